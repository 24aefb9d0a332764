#!/usr/bin/env bash
# The whole suite under AddressSanitizer and UndefinedBehaviorSanitizer
# (gcc), in its own tree (BUILD_DIR, default build-asan). Any report stops
# the process that made it (-fno-sanitize-recover), so a test fails on the
# first out-of-bounds access, leak or undefined operation. Extra arguments go
# to ctest (e.g. -R Corpus).
set -euo pipefail
cd "$(dirname "$0")/.."
export BUILD_DIR="${BUILD_DIR:-build-asan}"
# -Wno-maybe-uninitialized: gcc 12 with the sanitizers warns falsely inside
# libstdc++'s <regex> (std::function in _NFA::_M_insert_subexpr_end).
flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -Wno-maybe-uninitialized"
scripts/build.sh -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined"
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
# Leaks are reported (detect_leaks=1) but the recorder's forked workloads exit
# through _exit, which LeakSanitizer does not see as a leak.
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
cd "$BUILD_DIR"
ctest --output-on-failure --timeout 1800 -j1 "$@"
