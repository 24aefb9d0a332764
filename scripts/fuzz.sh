#!/usr/bin/env bash
# A bounded fuzzing run (not part of CI): builds the libFuzzer harnesses of
# fuzz/ with clang, ASan and UBSan into BUILD_DIR (default build-fuzz), makes
# seeds, then runs every harness (or those named in FUZZERS) for SECONDS each
# (default 60), one at a time and niced. Corpora grow in BUILD_DIR/corpus;
# a crash is saved to BUILD_DIR/crashes and ends the script with status 1 and
# the reproducer's path (run the harness with that file to replay it, then
# add it to tests/corpus).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
export BUILD_DIR="${BUILD_DIR:-build-fuzz}"
root="$PWD"
out="$root/$BUILD_DIR"
# Every harness in fuzz/ unless FUZZERS names some: a new harness is fuzzed
# without editing this list.
all_fuzzers=$(cd fuzz && ls fuzz_*.cpp | grep -v '^fuzz_input' | sed 's/\.cpp$//' | tr '\n' ' ')
fuzzers="${FUZZERS:-$all_fuzzers}"
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
CC=clang CXX=clang++ cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSONDE_FUZZ=ON \
  -DBUILD_TESTING=OFF "${launcher[@]}" >/dev/null
# The harnesses, and the instrumented CLI that records seeds.
nice ninja -C "$BUILD_DIR" $fuzzers sonde
mkdir -p "$out/crashes"
"$root/fuzz/make_seeds.sh" "$out/seeds" "$out"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
status=0
printf '%-22s %8s %12s %8s %8s\n' harness seconds executions cov ft
for f in $fuzzers; do
  mkdir -p "$out/corpus/$f"
  log="$out/$f.log"
  max_len=8192
  case $f in fuzz_recording|fuzz_elf|fuzz_sdt_note|fuzz_directory) max_len=65536 ;; esac
  if ! nice -n 10 "$out/fuzz/$f" -max_total_time="$seconds" -max_len="$max_len" -timeout=30 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$out/crashes/$f-" "$out/corpus/$f" "$out/seeds/$f" >"$log" 2>&1; then
    status=1
    echo "$f: FOUND A CRASH, see $log and $(ls -t "$out/crashes/$f-"* 2>/dev/null | head -1)"
  fi
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' <<<"$last" | grep -o '[0-9]*' || echo "?")
  ft=$(grep -o 'ft: [0-9]*' <<<"$last" | grep -o '[0-9]*' || echo "?")
  printf '%-22s %8s %12s %8s %8s\n' "$f" "$seconds" "$execs" "$cov" "$ft"
done
exit $status
