#!/usr/bin/env bash
# Reports of real Debian programs (issue 24): `sonde report --stdio` against
# `perf report --stdio` on the same file, warm (median of RUNS after one
# unmeasured run), for recordings made by sonde and by perf:
#   xz -9 (-g), gzip -9 (-g), sort (--call-graph dwarf), and gcc -O2 -g -c of
#   a generated 1,500-function C file (cc1, -g).
# The build-id cache is the one the recordings filled (a scratch root given
# to both tools), so a warm report has every index it keeps.
# BASELINE=OTHER_SONDE adds its times (an earlier build: before/after).
# Usage: bench/report_real.sh [SONDE_BIN] [--write-docs]   (root)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/build/cli/sonde}
write_docs=${2:-}
runs=${RUNS:-5}
scratch=$(mktemp -d /tmp/sonde-report-real.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
source "$here/bench/lib.sh"
export SONDE_BUILDID_DIR=$scratch/cache
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$(dirname "$(dirname "$sonde")")/CMakeCache.txt" 2>/dev/null || true)

make_inputs() {
  head -c 20000000 /usr/bin/perf >"$scratch/xz.in"
  seq 1 2000000 | awk '{print ($1*7919)%1000003, "line", $1}' >"$scratch/sort.in"
  python3 - "$scratch/gen.c" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("#include <stdio.h>\n#include <string.h>\n")
    for i in range(1500):
        f.write(f"""
static int helper_{i}(int *a, int n) {{
  int s = 0;
  for (int j = 0; j < n; j++) {{ s += a[j] * {i % 97 + 2}; if (s > {1000 + i * 61}) s ^= a[(j + {i}) % n]; }}
  return s;
}}
int fn_{i}(int x) {{
  int arr[16]; for (int k = 0; k < 16; k++) arr[k] = x + k * {i};
  char buf[64]; snprintf(buf, sizeof buf, "%d", helper_{i}(arr, 16));
  return (int)strlen(buf) + (x > {i} ? fn_{max(i - 1, 0)}(x - 1) : 0);
}}
""")
PY
}

# record TOOL NAME CALLGRAPH -- CMD...: $scratch/NAME.TOOL.data
record() {
  local tool=$1 name=$2 cg=$3; shift 4
  local out=$scratch/$name.$tool.data
  if [[ $tool == sonde ]]; then
    "$sonde" record -q $cg -o "$out" -- "$@" >/dev/null
  else
    perf --buildid-dir "$SONDE_BUILDID_DIR" record -q $cg -o "$out" -- "$@" >/dev/null 2>&1
  fi
}

recordings=()
record_all() {
  local tool
  for tool in sonde perf; do
    record $tool xz -g -- xz -9 -k -c "$scratch/xz.in"
    record $tool gzip -g -- gzip -9 -c "$scratch/sort.in"
    record $tool sort "--call-graph dwarf" -- sort "$scratch/sort.in" -o /dev/null
    record $tool gcc -g -- gcc -O2 -g -c "$scratch/gen.c" -o "$scratch/gen.o"
  done
  recordings=(xz gzip sort gcc)
}

rec=
sonde_report() { "$sonde" report --stdio -i "$rec" >/dev/null 2>&1; }
baseline=${BASELINE:-}
baseline_report() { "$baseline" report --stdio -i "$rec" >/dev/null 2>&1; }
perf_report() { perf --buildid-dir "$SONDE_BUILDID_DIR" report --stdio -i "$rec" >/dev/null 2>&1; }

describe() {
  case $1 in
    xz) echo '`xz -9` of 20 MB, `-g`' ;;
    gzip) echo '`gzip -9` of 38 MB of text, `-g`' ;;
    sort) echo '`sort` of 2M lines, `--call-graph dwarf`' ;;
    gcc) echo '`gcc -O2 -g -c` of a 1,500-function file (cc1), `-g`' ;;
  esac
}

make_inputs
record_all
out=$scratch/section.md
{
  echo "Real Debian programs (issue 24), recorded once by \`sonde record\` and once by \`perf record\`; each file reported by both tools (\`sonde report --stdio\`, \`perf report --stdio\`), warm: one unmeasured run, then the median of ${runs} (wall time). Both tools use the build-id cache the recordings filled. sonde build: ${build_type:-unknown}."
  echo
  if [[ -n $baseline ]]; then
    echo "Baseline: \`$baseline\` (\`$("$baseline" --version 2>/dev/null | head -1)\`), the same files and cache, measured in the same loop."
    echo
    echo "| recording | recorded by | samples | size | sonde | perf 6.1 | speed-up | baseline sonde | baseline speed-up |"
    echo "|---|---|---|---|---|---|---|---|---|"
  else
    echo "| recording | recorded by | samples | size | sonde | perf 6.1 | speed-up |"
    echo "|---|---|---|---|---|---|---|"
  fi
  for name in "${recordings[@]}"; do
    for tool in sonde perf; do
      rec=$scratch/$name.$tool.data
      samples=$("$sonde" report -i "$rec" --format json 2>/dev/null | python3 -c 'import json,sys; print(sum(e["samples"] for e in json.load(sys.stdin)["events"]))')
      size_mb=$(awk -v s="$(stat -c %s "$rec")" 'BEGIN{printf "%.1f", s/1048576}')
      sonde_report; perf_report
      read -r st _ <<<"$(measure_median sonde_report)"
      read -r pt _ <<<"$(measure_median perf_report)"
      printf '| %s | %s | %s | %s MB | %.3f s | %.3f s | %s |' "$(describe "$name")" "$tool" "$samples" "$size_mb" "$st" "$pt" "$(ratio "$pt" "$st")"
      if [[ -n $baseline ]]; then
        baseline_report
        read -r bt _ <<<"$(measure_median baseline_report)"
        printf ' %.3f s | %s |' "$bt" "$(ratio "$pt" "$bt")"
      fi
      echo
    done
  done
} >"$out"
cat "$out"
[[ $write_docs == --write-docs ]] && write_section "$here/docs/benchmarks.md" report_real "Reading real programs: report of xz, gzip, sort, gcc" "$out"
exit 0
