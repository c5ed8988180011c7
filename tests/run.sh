#!/usr/bin/env bash
# Builds Strata (warnings are errors) and runs every test: unit and integration.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DSTRATA_WERROR=ON >/dev/null
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
