#!/usr/bin/env bash
# Builds the whole tree, tests included, with clang into ./build-clang
# (BUILD_DIR overrides), so code that only gcc accepts is caught: the fuzz
# harnesses (scripts/fuzz.sh) need clang. -Wall -Wextra -Werror as with gcc.
# Extra arguments go to cmake (e.g. -DCMAKE_BUILD_TYPE=Debug).
set -euo pipefail
cd "$(dirname "$0")/.."
export CC="${CC:-clang}" CXX="${CXX:-clang++}"
BUILD_DIR="${BUILD_DIR:-build-clang}" exec scripts/build.sh "$@"
