#!/usr/bin/env bash
# Configures and builds sonde into ./build (Release with debug info).
#   BUILD_DIR      the tree (default build): a second one (sanitizers, clang,
#                  Release) can sit beside it
#   BUILD_TYPE     CMAKE_BUILD_TYPE (default RelWithDebInfo)
#   SONDE_TARGETS  what to build (default: everything)
# Further arguments go to cmake (-DBUILD_TESTING=OFF, -DSONDE_WERROR=OFF...).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${BUILD_DIR:-build}"
launcher=()
# ccache, when present, makes rebuilds in any tree cheap.
if command -v ccache >/dev/null; then
  # pch_defines,time_macros: ccache caches the files that use the CLI's
  # precompiled header too.
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=pch_defines,time_macros
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" "${launcher[@]}" "$@" >/dev/null
# shellcheck disable=SC2086 # SONDE_TARGETS is a list of target names
ninja -C "$build_dir" ${SONDE_TARGETS:-}
