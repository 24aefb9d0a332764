#!/bin/bash
# report --wall against the nominal times of tests/fixtures/offcpu_waits.c's
# "single" mode: 200 ms of spin(), then 10 x 50 ms of nap(). Wall-clock
# figures depend on the machine's load, so they are measured here rather
# than asserted by the suite (tests/offcpu/offcpu_record_test.cpp checks the
# view's consistency). Usage: bench/wall_view.sh [SONDE_BIN]   (root)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/build/cli/sonde}
scratch=$(mktemp -d /tmp/sonde-wall-bench.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
gcc -O0 -g -fno-omit-frame-pointer -pthread -o "$scratch/offcpu_waits" "$here/tests/fixtures/offcpu_waits.c"
for run in 1 2 3; do
  "$sonde" record -q -g -e cpu-clock --off-cpu -o "$scratch/wall.data" -- "$scratch/offcpu_waits" single >/dev/null
  "$sonde" report -i "$scratch/wall.data" --wall |
    awk -v run="$run" '$5 == "spin" { spin = $1 } $5 == "nap" { nap = $3 }
      END { printf "run %s: spin wall %.1f ms (nominal 200, %+.1f%%), nap blocked %.1f ms (nominal 500, %+.1f%%)\n",
            run, spin, 100 * (spin - 200) / 200, nap, 100 * (nap - 500) / 500 }'
done
