#!/bin/bash
# Dynamic probes: `sonde probe` vs `perf probe` 6.1 on the fixture
# tests/fixtures/probe_args.c (-O2), one function with 3 DWARF arguments:
#   1. resolving the definition (-D: DWARF only, nothing defined)
#   2. defining the tracefs event (then deleting it, untimed)
#   3. end to end, one hit recorded: sonde's one step (`record -e probe:BIN:DEF`,
#      BPF uprobe_multi) vs perf probe + perf record + perf probe -d
# The events live in the group probe_pbench, deleted on every way out.
# Usage: bench/probe.sh [SONDE_BIN] [--write-docs]   (root, tracefs mounted)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/build/cli/sonde}
write_docs=${2:-}
runs=${RUNS:-7}
scratch=$(mktemp -d /tmp/sonde-probe-bench.XXXXXX)
cleanup() {
  "$sonde" probe -q -d 'probe_pbench:*' >/dev/null 2>&1 || true
  rm -rf "$scratch"
}
trap cleanup EXIT INT TERM
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
if grep -q '^[pr]:probe_pbench/' /sys/kernel/tracing/uprobe_events; then
  echo "probe_pbench events already exist; refusing to touch them" >&2
  exit 1
fi
# shellcheck source=bench/lib.sh
. "$here/bench/lib.sh"

bin=$scratch/pbench
gcc -g -O2 -o "$bin" "$here/tests/fixtures/probe_args.c"
def='handle_request req->id req->size flags'

# median of $runs runs of a command, in ms; `after` (untimed) runs after each
time_ms() {
  local samples=() after=$1
  shift
  for ((i = 0; i < runs; i++)); do
    local t0=${EPOCHREALTIME/./}
    "$@" >/dev/null 2>&1
    local t1=${EPOCHREALTIME/./}
    samples+=($((10#$t1 - 10#$t0)))
    $after >/dev/null 2>&1 || true
  done
  printf '%s\n' "${samples[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}'
}
nothing() { :; }
delete_all() { "$sonde" probe -q -d 'probe_pbench:*'; }

t_sonde_d=$(time_ms nothing "$sonde" probe -x "$bin" -D "$def")
t_perf_d=$(time_ms nothing perf probe -x "$bin" -D "$def")
same_d=$([[ "$("$sonde" probe -x "$bin" -D "$def")" == "$(perf probe -x "$bin" -D "$def" 2>/dev/null)" ]] && echo yes || echo no)
t_sonde_add=$(time_ms delete_all "$sonde" probe -q -x "$bin" "$def")
t_perf_add=$(time_ms delete_all perf probe -q -x "$bin" "$def")

sonde_one_step() { "$sonde" record -q -o "$scratch/one.data" -e "probe:$bin:$def" -- "$bin" 1; }
perf_two_steps() {
  perf probe -q -x "$bin" "$def"
  perf record -q -o "$scratch/perf.data" -e probe_pbench:handle_request -- "$bin" 1
  perf probe -q -d 'probe_pbench:*'
}
t_sonde_e2e=$(time_ms nothing sonde_one_step)
t_perf_e2e=$(time_ms nothing perf_two_steps)
left=$(grep -c '^[pr]:probe_pbench/' /sys/kernel/tracing/uprobe_events || true)

out=$scratch/section.md
{
  echo "\`bench/probe.sh\` on $(uname -r), $(nproc) CPUs, $(date +%F): \`tests/fixtures/probe_args.c\` at -O2,"
  echo "the definition \`$def\` (3 DWARF arguments), median of $runs runs, sonde RelWithDebInfo."
  echo
  echo "| task | sonde | perf | ratio |"
  echo "|---|---|---|---|"
  echo "| resolve the definition (\`probe -D\`, same line: $same_d) | $t_sonde_d ms | $t_perf_d ms | $(ratio "$t_perf_d" "$t_sonde_d") |"
  echo "| define the tracefs event (\`probe -x BIN DEF\`) | $t_sonde_add ms | $t_perf_add ms | $(ratio "$t_perf_add" "$t_sonde_add") |"
  echo "| record one call end to end (sonde: \`record -e 'probe:BIN:DEF' -- BIN 1\`; perf: \`perf probe\` + \`perf record\` + \`perf probe -d\`) | $t_sonde_e2e ms | $t_perf_e2e ms | $(ratio "$t_perf_e2e" "$t_sonde_e2e") |"
  echo
  echo "Events of the bench group left in uprobe_events after the run: $left."
} >"$out"
cat "$out"
if [[ $write_docs == --write-docs ]]; then
  write_section "$here/docs/benchmarks.md" probe "Dynamic probes: sonde probe vs perf probe" "$out"
fi
