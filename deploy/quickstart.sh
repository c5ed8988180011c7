#!/usr/bin/env bash
# Strata quick start: install what is missing, build, and show the storage engine
# working: write, read and scan 200,000 rows on Strata next to RocksDB and LevelDB.
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
./build/strata version
./build/strata bench engine --num 200000
