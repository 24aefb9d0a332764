#!/usr/bin/env bash
# System-call tracing cost: N getppid() calls (bench/getppid_loop.c, N=1M)
# alone, under `sonde trace` (lines to a file, -s counted in BPF maps and
# -s from streamed events), `perf trace` (the
# same two), `strace -f` and `strace -c`; wall time (median of RUNS),
# slowdown against the workload alone, the bytes of text written, and the
# events each tracer reports lost. Also `sonde trace record` against `perf
# trace record`: the recording's bytes.
# Usage: bench/trace.sh [SONDE_BIN] [--write-docs]   (root)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/build/cli/sonde}
write_docs=${2:-}
runs=${RUNS:-3}
calls=${CALLS:-1000000}
scratch=$(mktemp -d /tmp/sonde-trace-bench.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
source "$here/bench/lib.sh"
gcc -O2 -o "$scratch/w" "$here/bench/getppid_loop.c"
w="$scratch/w"

# One tracer run: "seconds bytes lost" (bytes of its text output; lost as it reports).
one() {  # OUT ERR CMD...
  local out=$1 err=$2 t0 t1; shift 2
  rm -f "$out"
  t0=$EPOCHREALTIME
  "$@" >/dev/null 2>"$err" || true
  t1=$EPOCHREALTIME
  local bytes=0; [[ -f $out ]] && bytes=$(stat -c %s "$out")
  local lost; lost=$(grep -oE '([0-9]+) events lost|LOST ([0-9]+) events' "$err" | grep -oE '[0-9]+' | awk '{s+=$1} END {print s+0}')
  awk -v a="$t0" -v b="$t1" -v by="$bytes" -v l="$lost" 'BEGIN {printf "%.3f %d %d\n", b - a, by, l}'
}
median() {  # label CMD...
  local i r=()
  for ((i = 0; i < runs; i++)); do r+=("$("$@")"); done
  printf '%s\n' "${r[@]}" | sort -n | awk '{t[NR]=$0} END {print t[int((NR+1)/2)]}'
}

o=$scratch/out e=$scratch/err
base=$(median one "$o" "$e" "$w" "$calls")
declare -A res
res[sonde]=$(median one "$o" "$e" "$sonde" trace -o "$o" -- "$w" "$calls")
res[sonde_s]=$(median one "$o" "$e" "$sonde" trace -s -o "$o" -- "$w" "$calls")
res[sonde_s_streamed]=$(median one "$o" "$e" "$sonde" trace -s --no-bpf-summary -o "$o" -- "$w" "$calls")
res[perf]=$(median one "$o" "$e" perf trace -o "$o" -- "$w" "$calls")
res[perf_s]=$(median one "$o" "$e" perf trace -s -o "$o" -- "$w" "$calls")
res[strace]=$(median one "$o" "$e" strace -f -o "$o" "$w" "$calls")
res[strace_c]=$(median one "$o" "$e" strace -c -o "$o" "$w" "$calls")
"$sonde" trace record -o "$scratch/s.data" -- "$w" "$calls" >/dev/null 2>&1
perf trace record -o "$scratch/p.data" -- "$w" "$calls" >/dev/null 2>&1
srec=$(stat -c %s "$scratch/s.data"); prec=$(stat -c %s "$scratch/p.data")

t0=$(awk '{print $1}' <<<"$base")
row() {  # label key
  read -r t b l <<<"${res[$2]}"
  printf '| %s | %s | %s | %s | %s |\n' "$1" "$t" "$(ratio "$t" "$t0")" "$b" "$l"
}
report=$scratch/report.md
{
  echo "\`bench/trace.sh\`, $(date -u +%F): $calls \`getppid()\` calls (\`bench/getppid_loop.c\`), median of $runs runs; sonde built RelWithDebInfo (scripts/build.sh). Slowdown = wall time / the workload's alone. Bytes = the text written (\`-o\`); lost = events the tracer said it lost."
  echo
  echo "| tracer | wall (s) | slowdown | bytes | lost |"
  echo "|---|---|---|---|---|"
  echo "| workload alone | $t0 | 1.0x | - | - |"
  row '`sonde trace -o F`' sonde
  row '`sonde trace -s` (counted in BPF maps, the default)' sonde_s
  row '`sonde trace -s --no-bpf-summary` (from streamed events)' sonde_s_streamed
  row '`perf trace -o F`' perf
  row '`perf trace -s`' perf_s
  row '`strace -f -o F`' strace
  row '`strace -c`' strace_c
  echo
  echo "Recordings of the same run: \`sonde trace record\` $srec bytes, \`perf trace record\` $prec bytes."
} >"$report"
cat "$report"
if [[ $write_docs == --write-docs ]]; then
  write_section "$here/docs/benchmarks.md" trace "System calls: sonde trace, perf trace, strace" "$report"
fi
