#!/bin/bash
# Off-CPU benchmark (issue 14): what recording every context switch costs a
# switch-heavy workload. bench/pingpong.c (two threads handing a byte over
# pipes, pinned to one CPU: ~2 context switches per round trip) runs alone,
# then under each recorder, attached with -p to the running workload:
#   sonde record -e dummy --off-cpu          (in-kernel sums, flushed every 50 ms)
#   sonde record -e dummy --off-cpu --call-graph dwarf   (+ an 8 KiB user stack copy at every switch-out)
#   perf record -e sched:sched_switch -g      (every switch written, with its stack)
#   perf, Hotspot's recipe                    (-e sched:sched_switch --switch-events --sample-cpu -m 8M --aio -z --call-graph dwarf)
#   bcc offcputime, bpftrace                  (only when installed: Debian's bpfcc-tools / bpftrace)
# For each: the workload's round trips per second (slowdown against alone),
# the bytes written and the recorder's CPU seconds (user+sys, /usr/bin/time).
# Usage: bench/offcpu.sh [SONDE_BIN] [--write-docs]   (root)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/build/cli/sonde}
write_docs=${2:-}
runs=${RUNS:-3}
rounds=${ROUNDS:-600000}
source "$here/bench/lib.sh"
scratch=$(mktemp -d /tmp/sonde-offcpu-bench.XXXXXX)
workload_pid=
main_pid=$BASHPID
cleanup() {
  [[ $BASHPID == "$main_pid" ]] || return 0  # not in the $(run_one) subshells
  [[ -n $workload_pid ]] && kill -9 "$workload_pid" 2>/dev/null || true
  rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
gcc -O2 -pthread -fno-omit-frame-pointer -o "$scratch/pingpong" "$here/bench/pingpong.c"

# Starts the workload on CPU 1 after a delay (the recorder attaches
# meanwhile); the recorder runs on CPU 0.
start_workload() {
  (sleep "$1"; exec taskset -c 1 "$scratch/pingpong" "$rounds") >"$scratch/rate" &
  workload_pid=$!
}
rate() { sed -n 's/.*rt_per_s=\([0-9]*\).*/\1/p' "$scratch/rate"; }

# Tools that run until Ctrl-C: once the workload PID is gone, SIGINT to the
# tool itself (the child of /usr/bin/time TIME_PID, which ignores SIGINT).
stop_tool_after() {
  local pid=$1 time_pid=$2 child
  while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  child=$(cat "/proc/$time_pid/task/$time_pid/children" 2>/dev/null || true)
  [[ -n $child ]] && kill -INT $child 2>/dev/null
  wait "$time_pid" || true
}

# One run of recorder NAME: "rt_per_s bytes cpu_seconds".
run_one() {
  local name=$1 out=$scratch/out.$1 delay=1
  rm -rf "$out"
  case $name in bcc | bpftrace) delay=4 ;; esac  # they compile their program first
  start_workload "$delay"
  local pid=$workload_pid
  case $name in
    alone) wait "$pid" ;;
    sonde) /usr/bin/time -f '%U %S' -o "$scratch/cpu" taskset -c 0 "$sonde" record -q -e dummy --off-cpu -p "$pid" -o "$out" ;;
    sonde_dwarf) /usr/bin/time -f '%U %S' -o "$scratch/cpu" taskset -c 0 "$sonde" record -q -e dummy --off-cpu \
               --call-graph dwarf -p "$pid" -o "$out" ;;
    perf) /usr/bin/time -f '%U %S' -o "$scratch/cpu" taskset -c 0 perf record -q -e sched:sched_switch -g -p "$pid" -o "$out" 2>/dev/null ;;
    hotspot) /usr/bin/time -f '%U %S' -o "$scratch/cpu" taskset -c 0 perf record -q -e sched:sched_switch --switch-events \
               --sample-cpu -m 8M --aio -z --call-graph dwarf -p "$pid" -o "$out" 2>/dev/null ;;
    bcc) /usr/bin/time -f '%U %S' -o "$scratch/cpu" taskset -c 0 "$bcc" -p "$pid" -f >"$out" 2>/dev/null &
         stop_tool_after "$pid" $! ;;
    bpftrace) /usr/bin/time -f '%U %S' -o "$scratch/cpu" taskset -c 0 bpftrace -e "$bpftrace_script" "$pid" >"$out" 2>/dev/null &
         stop_tool_after "$pid" $! ;;
  esac
  wait "$pid" 2>/dev/null || true
  workload_pid=
  local bytes=0 cpu=0
  [[ -e $out ]] && bytes=$(du -sb "$out" | cut -f1)
  [[ $name != alone ]] && cpu=$(awk '{print $1 + $2}' "$scratch/cpu")
  echo "$(rate) $bytes $cpu"
}

# Median (by rate) of $runs runs.
run_median() {
  local i results=()
  for ((i = 0; i < runs; i++)); do results+=("$(run_one "$1")"); done
  printf '%s\n' "${results[@]}" | sort -n | awk -v n="$runs" 'NR == int((n + 1) / 2)'
}

# offcputime's method in bpftrace: at the switch-out of a target thread its
# time and stacks, at its switch-in the nanoseconds summed per stack pair.
bpftrace_script='tracepoint:sched:sched_switch {
  if (pid == $1) { @start[tid] = nsecs; @ustk[tid] = ustack; @kstk[tid] = kstack; }
  if (@start[args->next_pid] != 0) {
    @ns[@kstk[args->next_pid], @ustk[args->next_pid]] = sum(nsecs - @start[args->next_pid]);
    delete(@start[args->next_pid]);
  }
}'

tools=(alone sonde sonde_dwarf perf hotspot)
bcc=$(command -v offcputime-bpfcc || true)
[[ -n $bcc ]] && tools+=(bcc)
command -v bpftrace >/dev/null && tools+=(bpftrace)
declare -A label=([alone]="workload alone" [sonde]="\`sonde record -e dummy --off-cpu\`"
  [sonde_dwarf]="\`sonde record -e dummy --off-cpu --call-graph dwarf\` (an 8 KiB user stack copy at every switch-out; blocks of 1 ms or more carry it)"
  [perf]="\`perf record -e sched:sched_switch -g\`"
  [hotspot]="perf, Hotspot's recipe (\`-e sched:sched_switch --switch-events --sample-cpu -m 8M --aio -z --call-graph dwarf\`)"
  [bcc]="bcc \`offcputime -p PID -f\` (in-kernel sums, printed at the end)"
  [bpftrace]="bpftrace 0.17, offcputime's method (stacks at switch-out, ns summed per stack pair in maps)")

table=$scratch/table.md
base=
{
  echo "| recorder | round trips/s | slowdown | bytes written | recorder CPU (s) |"
  echo "|---|---|---|---|---|"
  for t in "${tools[@]}"; do
    read -r r b c <<<"$(run_median "$t")"
    [[ $t == alone ]] && base=$r
    slow=$(awk -v a="$base" -v b="$r" 'BEGIN { if (b + 0 == 0) print "n/a"; else printf "%.1f%%", 100 * (a - b) / a }')
    [[ $t == alone ]] && slow="-" && b="-" && c="-"
    echo "| ${label[$t]} | $r | $slow | $b | $c |"
  done
} >"$table"
cat "$table"
missing=
[[ -z $bcc ]] && missing+="bcc's offcputime (Debian's bpfcc-tools compiles its program at run time against the running kernel's headers, which this machine lacks: neither /lib/modules/\$(uname -r)/build nor /sys/kernel/kheaders.tar.xz); "
command -v bpftrace >/dev/null || missing+="bpftrace is not installed here; "
if [[ $write_docs == --write-docs ]]; then
  {
    echo "\`bench/offcpu.sh\`, $(date -u +%Y-%m-%d): \`bench/pingpong.c\` ($rounds round trips over two pipes between two threads"
    echo "pinned to CPU 1, ~2 context switches per round trip), alone and with each recorder attached by"
    echo "\`-p\` and pinned to CPU 0; median of $runs runs (by rate). Slowdown is the loss of round trips per second"
    echo "against the workload alone; recorder CPU is the recorder's user+system seconds (/usr/bin/time)."
    [[ -n $missing ]] && echo "Not measured: ${missing%; }."
    echo
    cat "$table"
  } >"$scratch/section.md"
  write_section "$here/docs/benchmarks.md" offcpu "Off-CPU recording: a context-switch-heavy workload" "$scratch/section.md"
fi
