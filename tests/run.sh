#!/usr/bin/env bash
# Builds Strata (warnings are errors) and runs every test: unit and integration. A test
# that skipped something (exit 77) shows as Skipped; its "SKIP: <what>: <why>" lines are
# printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DSTRATA_WERROR=ON >/dev/null
cmake --build build -j"$(nproc)"
status=0
ctest --test-dir build --output-on-failure -j"$(nproc)" || status=$?
# ctest lists skipped tests but shows output only for failures: repeat the reasons.
grep -h '^SKIP: ' build/Testing/Temporary/LastTest.log 2>/dev/null | sort -u || true
exit "$status"
