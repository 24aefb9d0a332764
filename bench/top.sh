#!/usr/bin/env bash
# Live-view benchmark: the CPU that `sonde top --stdio` costs per second
# against `perf top --stdio`, at the same rate on the same workload, in the
# same run. Each tool runs for SECONDS (default 10) and is ended by SIGINT;
# its CPU is the run time of all its threads (both are single processes:
# sonde's recorder, reader and symbol threads included). Median of RUNS.
# Usage: bench/top.sh [SONDE_BIN] [--write-docs]   (root)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/build/cli/sonde}
write_docs=${2:-}
runs=${RUNS:-3}
seconds=${SECONDS_OF_WORK:-10}
freq=${FREQ:-4000}
demo=$(dirname "$(dirname "$sonde")")/demo/sonde-demo-workload
scratch=$(mktemp -d /tmp/sonde-top-bench.XXXXXX)
source "$here/bench/lib.sh"

# The workload: two demo processes (one per CPU), for the whole benchmark.
"$demo" 100000 >/dev/null 2>&1 & w1=$!
"$demo" 100000 >/dev/null 2>&1 & w2=$!
trap 'kill $w1 $w2 2>/dev/null; wait 2>/dev/null; rm -rf "$scratch"' EXIT
sleep 0.5

# One run: prints the CPU seconds per wall second of `$@` run for $seconds s:
# the run time of all its threads from /proc/PID/task/*/schedstat (exact,
# in ns; time(1)'s tick-sampled user+sys misses a process that always wakes
# just after the timer tick, as a reader woken by cpu-clock samples does),
# read just before SIGINT ends it. Standard input is a pipe that stays open
# and silent: perf top --stdio reads keys from it (at EOF it shows its key
# menu and waits).
cpu_per_second() {
  "$@" >/dev/null 2>&1 < <(sleep $((seconds + 5))) &
  local pid=$! t0=$EPOCHREALTIME ns t1
  sleep "$seconds"
  ns=$(cat /proc/"$pid"/task/*/schedstat 2>/dev/null | awk '{s += $1} END {print s + 0}')
  t1=$EPOCHREALTIME
  kill -INT "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  awk -v ns="$ns" -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%.4f\n", ns / 1e9 / (t1 - t0) }'
}
median_cpu() {
  local i results=()
  for ((i = 0; i < runs; i++)); do results+=("$(cpu_per_second "$@")"); done
  printf '%s\n' "${results[@]}" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'
}
pct() { awk -v v="$1" 'BEGIN { printf "%.1f%%", v * 100 }'; }

row() {  # title, sonde args..., --, perf args...
  local title=$1; shift
  local sargs=() pargs=()
  while [[ $1 != -- ]]; do sargs+=("$1"); shift; done
  shift
  pargs=("$@")
  local s p
  s=$(median_cpu "$sonde" top --stdio -d 1 -F "$freq" "${sargs[@]}")
  p=$(median_cpu perf top --stdio -d 1 -F "$freq" "${pargs[@]}")
  printf '| %s | %s | %s | %s |\n' "$title" "$(pct "$s")" "$(pct "$p")" "$(ratio "$p" "$s")"
}

out=$scratch/section.md
{
  echo "CPU of the live view itself (run time of every thread of the process, recorder, reader and symbol lookups included, from /proc/PID/task/*/schedstat: exact, where time(1)'s tick-sampled user+sys charged sonde next to nothing) per second of wall time, in % of one CPU: \`sonde top --stdio -d 1\` against \`perf top --stdio -d 1\`, both at \`-F ${freq}\` (cpu-clock), ${seconds} s each, ended by SIGINT, median of ${runs} runs, while two \`sonde-demo-workload\` processes keep both CPUs busy. Ratio = perf / sonde (above 1: sonde costs less)."
  echo
  echo "| target | sonde top | perf top | ratio |"
  echo "|---|---|---|---|"
  row "\`-p\` one demo process" -p "$w1" -- -p "$w1"
  row "\`-g -p\` one demo process, call chains" -g -p "$w1" -- -g -p "$w1"
  row "system-wide" -- -a
} >"$out"
cat "$out"
[[ $write_docs == --write-docs ]] && write_section "$here/docs/benchmarks.md" top "Live view: top" "$out"
exit 0
