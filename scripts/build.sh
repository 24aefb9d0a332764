#!/usr/bin/env bash
# Configures and builds sonde into ./build (Release with debug info).
set -euo pipefail
cd "$(dirname "$0")/.."
# BUILD_DIR (default build) lets a second tree (sanitizers, clang) sit beside
# it; ccache, when present, makes rebuilds in any of them cheap.
build_dir="${BUILD_DIR:-build}"
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" "$@" >/dev/null
ninja -C "$build_dir"
