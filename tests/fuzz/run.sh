#!/usr/bin/env bash
# tests/fuzz/run.sh [SECONDS_PER_TARGET] - builds the libFuzzer targets of tests/fuzz with
# clang (build-fuzz/, -DSTRATA_FUZZ=ON: the product libraries with coverage, ASan and
# UBSan, warnings as errors) and runs each target for SECONDS_PER_TARGET (default 60) on
# a private copy of its seed corpus (tests/fuzz/corpus/<target>/ is never written to).
# Fails if any target reports a crash, a leak, undefined behaviour, a timeout (> 10 s on
# one input) or running out of memory, and prints the crashing input's path
# (build-fuzz/artifacts/) and how to replay it. docs/fuzzing.md explains the targets.
#
# Environment: STRATA_FUZZ_JOBS targets at once (default 2), STRATA_FUZZ_TARGETS
# (default: all of them), STRATA_FUZZ_BUILD (default build-fuzz), STRATA_FUZZ_KEEP=1
# keeps the grown corpora and logs (their directory is printed).
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-60}
jobs=${STRATA_FUZZ_JOBS:-2}
build=${STRATA_FUZZ_BUILD:-build-fuzz}
read -r -a targets <<<"${STRATA_FUZZ_TARGETS:-wal wal_split storefile reference block rpc filter_parse rest_docs}"
case "$secs" in '' | *[!0-9]*) echo "usage: $0 [seconds-per-target]" >&2; exit 2 ;; esac

echo "fuzz: building ${targets[*]} in $build (clang, libFuzzer, ASan, UBSan)"
mkdir -p "$build"
build=$(cd "$build" && pwd)
# The whole product (the strata binary links every library) and the fuzz targets; the
# output is shown only if the build fails.
if ! { cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DSTRATA_FUZZ=ON -DSTRATA_WERROR=ON \
         -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
       cmake --build "$build" -j"$jobs" --target strata "${targets[@]/#/fuzz_}"; } \
     >"$build/fuzz-build.log" 2>&1; then
  tail -n 80 "$build/fuzz-build.log"
  echo "fuzz: the build failed (log: $build/fuzz-build.log)" >&2
  exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/strata-fuzz-run.XXXXXX")
scratch_base=/dev/shm
[ -d "$scratch_base" ] && [ -w "$scratch_base" ] || scratch_base=$work
scratch=$(mktemp -d "$scratch_base/strata-fuzz-scratch.XXXXXX")
artifacts="$build/artifacts"
mkdir -p "$artifacts"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$scratch"
  if [ "${STRATA_FUZZ_KEEP:-0}" = 1 ]; then echo "fuzz: corpora and logs kept in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Runs one target (in a background subshell); its output goes to $work/<target>.log.
run_one() {
  local t=$1 dict=() corpus="$work/corpus/$t"
  mkdir -p "$corpus" "$scratch/$t"
  cp tests/fuzz/corpus/"$t"/* "$corpus"/
  [ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
  # exec: the background job's pid is the fuzzer's, so cleanup() can stop it.
  exec env STRATA_FUZZ_TMPDIR="$scratch/$t" \
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$build/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -close_fd_mask=2 -print_final_stats=1 -artifact_prefix="$artifacts/$t-" "${dict[@]}" \
    "$corpus" >"$work/$t.log" 2>&1
}

echo "fuzz: ${#targets[@]} targets, ${secs}s each, $jobs at a time"
declare -A rc_of pid_of
queue=("${targets[@]}")
running=()
while [ ${#queue[@]} -gt 0 ] || [ ${#running[@]} -gt 0 ]; do
  while [ ${#queue[@]} -gt 0 ] && [ ${#running[@]} -lt "$jobs" ]; do
    t=${queue[0]}
    queue=("${queue[@]:1}")
    run_one "$t" &
    pid_of[$t]=$!
    pids+=("$!")
    running+=("$t")
  done
  # Wait for the first running target to finish (the others keep running).
  t=${running[0]}
  running=("${running[@]:1}")
  set +e
  wait "${pid_of[$t]}"
  rc_of[$t]=$?
  set -e
done

failed=0
for t in "${targets[@]}"; do
  log="$work/$t.log"
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n1 || true)
  if [ "${rc_of[$t]}" -eq 0 ]; then
    echo "fuzz: $t: ok, ${execs:-?} runs in ${secs}s, ${cov:-cov: ?}"
    continue
  fi
  failed=1
  echo "fuzz: $t: FAILED (exit ${rc_of[$t]}); the end of its log:"
  grep -v '^#[0-9]' "$log" | tail -n 60 | sed 's/^/    /'
  for a in $(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log"); do
    echo "fuzz: $t: crashing input: $a"
    echo "fuzz: replay it with: $build/fuzz_$t $a   (or build/fuzz_replay_$t $a)"
  done
done
exit $failed
