#!/usr/bin/env bash
# Builds every target (library, CLI, tests, bench) in each build type with
# gcc and clang, warnings as errors, each into build-matrix/COMPILER-TYPE, and
# prints one line per configuration. What a packager or a new compiler meets
# first; CI builds only the default tree and the Release CLI (time limit).
#   scripts/build-matrix.sh                   all eight configurations
#   scripts/build-matrix.sh gcc:Release clang:Debug   just these
#   scripts/build-matrix.sh clang:Fuzz        the libFuzzer harnesses (ASan+UBSan)
# Exit status: 1 if any configuration failed (its log is named in the line).
set -uo pipefail
cd "$(dirname "$0")/.."
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(gcc:Release gcc:Debug gcc:RelWithDebInfo gcc:MinSizeRel
                                     clang:Release clang:Debug clang:RelWithDebInfo clang:MinSizeRel
                                     clang:Fuzz)
failed=0
mkdir -p build-matrix
for cfg in "${configs[@]}"; do
  compiler=${cfg%%:*} type=${cfg##*:}
  case $compiler in
    gcc) cc=gcc cxx=g++ ;;
    clang) cc=clang cxx=clang++ ;;
    *) echo "build-matrix.sh: unknown compiler '$compiler' (gcc or clang)" >&2; exit 2 ;;
  esac
  dir=build-matrix/$compiler-$type log=build-matrix/$compiler-$type.log
  # Fuzz: every harness of fuzz/ and the library they link, instrumented as
  # scripts/fuzz.sh builds them (libFuzzer needs clang).
  extra=(-DBUILD_TESTING=ON)
  [ "$type" = Fuzz ] && type=RelWithDebInfo extra=(-DBUILD_TESTING=OFF -DSONDE_FUZZ=ON)
  start=$SECONDS
  if CC=$cc CXX=$cxx BUILD_DIR=$dir BUILD_TYPE=$type scripts/build.sh "${extra[@]}" >"$log" 2>&1; then
    result=ok
  else
    result="FAILED (see $log)"; failed=1
  fi
  echo "$cfg: $result, $((SECONDS - start)) s, $(grep -c 'warning:' "$log") warnings"
done
exit $failed
