#!/bin/bash
# stat benchmark: sonde vs perf 6.1, same work, same run.
#   1. start-up + teardown: wall time of `stat -e <default> -- true`, median of 15
#   2. an interval recorder: `stat -I 1 -a` for 10 s (perf 6.1 accepts 1 ms),
#      CPU time (user + sys) of the stat process itself
# Usage: bench/stat.sh [SONDE_BIN] [--write-docs]   (root)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/build/cli/sonde}
write_docs=${2:-}
runs=${RUNS:-15}
seconds=${SECONDS_I:-10}
source "$here/bench/lib.sh"

# Median wall seconds of `$@ -- true`, counts to /dev/null.
wall_median() {
  local i t0 t1 results=()
  for ((i = 0; i < runs; i++)); do
    t0=$EPOCHREALTIME
    "$@" -- true 2>/dev/null
    t1=$EPOCHREALTIME
    results+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.6f", b - a}')")
  done
  printf '%s\n' "${results[@]}" | sort -n | awk '{t[NR]=$1} END {print t[int((NR+1)/2)]}'
}

# CPU seconds (user + sys) of `$@ -I 1 -a -- sleep N`.
interval_cpu() {
  local tf; tf=$(mktemp)
  /usr/bin/time -f '%U %S' -o "$tf" "$@" -I 1 -a -x, -e cs,cpu-clock -- sleep "$seconds" 2>/dev/null >/dev/null
  awk '{printf "%.2f\n", $1 + $2}' "$tf"
  rm -f "$tf"
}

s_start=$(wall_median "$sonde" stat)
p_start=$(wall_median perf stat)
s_cpu=$(interval_cpu "$sonde" stat)
p_cpu=$(interval_cpu perf stat)

out=$(mktemp)
{
  echo "\`bench/stat.sh\` ($(git -C "$here" rev-parse --short HEAD), RelWithDebInfo build from scripts/build.sh, $(nproc) CPUs, no PMU)."
  echo
  echo "| | sonde | perf 6.1 | perf / sonde |"
  echo "|---|---|---|---|"
  echo "| \`stat -- true\` wall time, median of $runs (default events) | $(awk -v t="$s_start" 'BEGIN{printf "%.2f ms", t*1000}') | $(awk -v t="$p_start" 'BEGIN{printf "%.2f ms", t*1000}') | $(ratio "$p_start" "$s_start") |"
  echo "| \`stat -I 1 -a -e cs,cpu-clock\` for ${seconds} s: stat's own CPU (user+sys) | ${s_cpu} s | ${p_cpu} s | $(ratio "$p_cpu" "$s_cpu") |"
  echo
  echo "Start-up is what a \`stat\` in a script loop pays per call: option parsing, event setup,"
  echo "fork/exec of the workload, teardown. The interval figure is the cost of reading and"
  echo "printing 2 CPUs x 2 counters every millisecond (perf's timing drifts with its work;"
  echo "sonde's absolute timerfd does not)."
} >"$out"
cat "$out"
if [[ $write_docs == --write-docs ]]; then
  write_section "$here/docs/benchmarks.md" stat "Counting: stat" "$out"
fi
rm -f "$out"
