#!/usr/bin/env bash
# --call-graph cfi (docs/cfi.md) against -g and --call-graph dwarf, sonde and
# perf 6.1, on the same work in the same run: Debian's own xz -9 (built
# without frame pointers) compressing libc, once per mode.
#   1. bytes per sample (the recording's size / its samples)
#   2. recorder + kernel CPU per sample: task-clock of the recorder and its
#      workload minus the bare workload's (the BPF walk runs in the
#      workload's context, a stack copy in the kernel's: both are counted)
#   3. lost samples (perf report's "Total Lost Samples"), also at -F max -a
#   4. root reach: samples whose chain reaches _start, __libc_start_main or clone
# Usage: bench/cfi.sh [SONDE_BIN] [--write-docs]   (root)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/build/cli/sonde}
write_docs=${2:-}
scratch=$(mktemp -d /tmp/sonde-cfi-bench.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
source "$here/bench/lib.sh"
cp /usr/lib/x86_64-linux-gnu/libc.so.6 "$scratch/input"
work=(/usr/bin/xz -9 -k -c -T1 "$scratch/input")

task_clock() {  # file -> seconds
  awk -F, '$3 == "task-clock" {printf "%.4f", $1 / 1000}' "$1"
}
perf stat -x, -e task-clock -o "$scratch/bare.time" -- "${work[@]}" >/dev/null 2>&1
bare=$(task_clock "$scratch/bare.time")

reach() {  # reader file -> "samples rooted"
  "$1" script -i "$2" -F comm,pid,tid,period,event,ip,sym 2>/dev/null | python3 -c '
import re, sys
text = sys.stdin.read().strip().split("\n\n")
root = re.compile(r" (_start|__libc_start_main\S*|__libc_start_call_main|clone3?|start_thread)(\+0x[0-9a-f]+)?( \(.*\))?$", re.M)
print(len(text), sum(1 for s in text if root.search(s)))'
}

row() {  # label tool mode... -> one table row
  local label=$1 tool=$2; shift 2
  local data=$scratch/$label.data
  if [[ $tool == sonde ]]; then
    perf stat -x, -e task-clock -o "$scratch/$label.time" -- "$sonde" record -q "$@" -o "$data" -- "${work[@]}" >/dev/null 2>&1
  else
    perf stat -x, -e task-clock -o "$scratch/$label.time" -- perf record -q "$@" -o "$data" -- "${work[@]}" >/dev/null 2>&1
  fi
  local reader=$sonde
  [[ $tool == perf ]] && reader=perf
  local samples rooted bytes cpu lost
  read -r samples rooted <<<"$(reach "$reader" "$data")"
  bytes=$(stat -c %s "$data")
  cpu=$(task_clock "$scratch/$label.time")
  lost=$(perf report -i "$data" --stdio 2>/dev/null | awk '/Total Lost Samples/ {print $NF}')
  awk -v l="$label" -v s="$samples" -v r="$rooted" -v b="$bytes" -v c="$cpu" -v bare="$bare" -v lost="${lost:-0}" 'BEGIN {
    printf "| %s | %d | %d | %.1f | %d | %.1f%% |\n", l, s, (s ? b / s : 0), (s ? (c - bare) / s * 1e6 : 0), lost, (s ? 100 * r / s : 0) }'
}

# -F max -a: every CPU at the kernel's highest rate for half a second while
# xz -9 runs in a loop (a fixed window: a workload slowed by the sampling
# would otherwise stretch the run); samples, bytes per sample, and samples
# lost (the recording's own count, as perf report's header prints it).
row_max() {  # label tool mode...
  local label=$1 tool=$2; shift 2
  local data=$scratch/max.data
  ( while :; do "${work[@]}" >/dev/null; done ) & local loop=$!
  if [[ $tool == sonde ]]; then "$sonde" record -q -a -F max "$@" -o "$data" -- sleep 0.5 >/dev/null 2>&1
  else perf record -q -a -F max "$@" -o "$data" -- sleep 0.5 >/dev/null 2>&1; fi
  kill "$loop"; wait "$loop" 2>/dev/null || true
  local reader=$sonde; [[ $tool == perf ]] && reader=perf
  local head samples lost bytes
  head=$("$reader" report -i "$data" --stdio --no-children -g none 2>/dev/null | head -40 || true)  # head closes the pipe
  lost=$(awk '/Total Lost Samples/ {print $NF; exit}' <<<"$head")
  samples=$("$sonde" report -i "$data" --stats 2>/dev/null | awk '/ SAMPLE events:/ {print $3; exit}')
  bytes=$(stat -c %s "$data")
  awk -v l="$label" -v s="$samples" -v b="$bytes" -v lost="${lost:-0}" 'BEGIN {
    printf "| %s | %d | %d | %d |\n", l, s, (s ? b / s : 0), lost }'
  rm -f "$data"
}

out=$scratch/section.md
{
  echo "\`bench/cfi.sh\`: Debian's \`xz -9 -T1\` compressing libc ($(stat -c %s "$scratch/input") bytes), recorded once per mode at the default 4000 Hz; sonde built RelWithDebInfo; $(uname -r), $(date -u +%F). CPU per sample: task-clock of recorder and workload minus the bare workload's ${bare} s, over the samples (the BPF walk runs in the workload's context, stack copies in the kernel's)."
  echo
  echo "| mode | samples | bytes/sample | recorder + kernel CPU µs/sample | lost | root reach |"
  echo "|---|---|---|---|---|---|"
  row "sonde -g" sonde -g
  row "sonde --call-graph cfi" sonde --call-graph cfi
  row "sonde --call-graph dwarf" sonde --call-graph dwarf
  row "perf -g" perf -g
  row "perf --call-graph dwarf" perf --call-graph dwarf
  echo
  echo "Root reach: share of samples whose chain reaches \`_start\`, \`__libc_start_main\` or \`clone\` (sonde's recordings read by sonde script, perf's by perf script)."
  echo
  echo "At \`-F max -a\` ($(cat /proc/sys/kernel/perf_event_max_sample_rate) Hz on each of $(nproc) CPUs) for 0.5 s while \`xz -9\` runs in a loop: samples kept, bytes per sample, and samples lost (the recording's count: perf report's \"Total Lost Samples\"; samples: the SAMPLE records, sonde report --stats)."
  echo
  echo "| mode | samples | bytes/sample | lost |"
  echo "|---|---|---|---|"
  row_max "sonde -g" sonde -g
  row_max "sonde --call-graph cfi" sonde --call-graph cfi
  row_max "sonde --call-graph dwarf" sonde --call-graph dwarf
  row_max "perf -g" perf -g
  row_max "perf --call-graph dwarf" perf --call-graph dwarf
  echo
  echo "Each xz of the loop lives about a second, and with \`-a\` a process's tables are loaded when its first samples ask: most cfi samples of this window meet a process not known yet and keep their leaf frames only (the recorder's end line counts them), so this table measures losses, not root reach."
} >"$out"
cat "$out"
[[ $write_docs == --write-docs ]] && write_section "$here/docs/benchmarks.md" cfi "CFI unwinding in BPF: --call-graph cfi vs -g and dwarf" "$out"
exit 0
