#!/bin/bash
# Dynamic probes: `sonde probe` vs `perf probe` 6.1 on the fixture
# tests/fixtures/probe_args.c (-O2), one function with 3 DWARF arguments:
#   1. resolving the definition (-D: DWARF only, nothing defined)
#   2. defining the tracefs event (then deleting it, untimed)
#   3. end to end, one hit recorded: sonde's one step (`record -e probe:BIN:DEF`,
#      BPF uprobe_multi) vs perf probe + perf record + perf probe -d
#   4. 1, 100 and 1000 sites (functions site_N with 3 DWARF arguments, a
#      program written by bench/probe_sites.sh): time to live (from the command
#      until the workload's main runs with every probe in place) and the cost
#      per hit (the workload's loop with probes minus without, per call), for
#      sonde's one step, perf probe + perf record, and bpftrace 0.17 (arguments
#      by register: it reads no DWARF locations for uprobes)
# The events live in the groups probe_pbench and probe_psites*, deleted on every way out.
# Usage: bench/probe.sh [SONDE_BIN] [--write-docs]   (root, tracefs mounted)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/build/cli/sonde}
write_docs=${2:-}
runs=${RUNS:-7}
scratch=$(mktemp -d /tmp/sonde-probe-bench.XXXXXX)
cleanup() {
  "$sonde" probe -q -d 'probe_pbench:*' >/dev/null 2>&1 || true
  "$sonde" probe -q -d 'probe_psites*:*' >/dev/null 2>&1 || true
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
# shellcheck source=bench/probe_sites.sh
. "$here/bench/probe_sites.sh"

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

# Many sites: "time_to_live_ms per_hit_ns" of one run of a tool on the
# program $1 (N sites), $calls calls; the workload's lines are in $scratch/w.
calls=${CALLS:-200000}
sites_def='site_* r->id a b'
live_and_hit() {
  local t0=$1 bare=$2
  awk -v t0="$t0" -v bare="$bare" -v calls="$calls" '
    /^live / { live = $2 } /^loop_ns / { loop = $2 }
    END { if (live == "" || loop == "") print "fail fail"; else printf "%.1f %.0f\n", (live / 1000 - t0) / 1000, (loop - bare) / calls }' "$scratch/w"
}
run_sonde_sites() {
  local bin=$1 t0=${EPOCHREALTIME/./}
  "$sonde" record -q -o "$scratch/sites.data" -e "probe:$bin:$sites_def" -- "$bin" "$calls" >"$scratch/w"
  live_and_hit "$t0" "$2"
}
run_perf_sites() {
  local bin=$1 group=probe_$(basename "$1") t0=${EPOCHREALTIME/./}
  # perf probe takes at most 128 probe points per definition and per command
  local n=$3 first k args
  for ((first = 0; first < n; first += 100)); do
    args=()
    for ((k = first; k < n && k < first + 100; k++)); do args+=(-a "site_$k r->id a b"); done
    perf probe -q -x "$bin" "${args[@]}" >/dev/null 2>&1
  done
  perf record -q -o "$scratch/sites.perf" -e "$group:*" -- "$bin" "$calls" >"$scratch/w" 2>/dev/null
  live_and_hit "$t0" "$2"
  perf probe -q -d "$group:*" >/dev/null 2>&1
}
run_bpftrace_sites() {
  local bin=$1 t0=${EPOCHREALTIME/./}
  BPFTRACE_MAX_PROBES=2000 bpftrace -e "uprobe:$bin:site_* { printf(\"%d %d %d\\n\", *(int32 *)arg0, (int32)arg1, arg2); }" \
    -c "$bin $calls" >"$scratch/w" 2>"$scratch/bpftrace.err" || true
  live_and_hit "$t0" "$2"
}
# median of $runs runs of "ttl per_hit" (each column on its own)
median_pair() {
  local i rows=() col
  for ((i = 0; i < runs; i++)); do rows+=("$("$@")"); done
  for col in 1 2; do
    printf '%s\n' "${rows[@]}" | awk -v c=$col '{print $c}' | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
  done | paste -sd' '
}
sites_rows=()
for n in 1 100 1000; do
  src=$scratch/psites$n.c bin=$scratch/psites$n
  write_sites_program "$n" "$src"
  gcc -g -O2 -o "$bin" "$src"
  bare=$(for ((i = 0; i < runs; i++)); do "$bin" "$calls" | awk '/^loop_ns/ {print $2}'; done | sort -n |
    awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
  read -r s_ttl s_hit < <(median_pair run_sonde_sites "$bin" "$bare")
  s_hits=$("$sonde" script -F event -i "$scratch/sites.data" | grep -c site_ || true)
  read -r p_ttl p_hit < <(median_pair run_perf_sites "$bin" "$bare" "$n")
  if command -v bpftrace >/dev/null; then
    read -r b_ttl b_hit < <(median_pair run_bpftrace_sites "$bin" "$bare")
    b_cell="$b_ttl ms, $b_hit ns"
    [[ $b_ttl == fail ]] && b_cell="fails: $(grep -m1 . "$scratch/bpftrace.err" | cut -c1-80)"
  else
    b_cell="not installed"
  fi
  sites_rows+=("| $n | $s_ttl ms, $s_hit ns | $p_ttl ms, $p_hit ns | $b_cell | $s_hits |")
done
left_sites=$(grep -c '^[pr]:probe_psites' /sys/kernel/tracing/uprobe_events || true)

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
  echo
  echo "Many sites: \`$sites_def\` on N functions (\`bench/probe_sites.sh\`, -O2), $calls calls spread over them."
  echo "Each cell: time to live (from the command until the workload's main runs, probes in place) and cost per hit"
  echo "(the workload's loop with probes minus without, per call; the bare loop: a few ns). perf probe refuses more than"
  echo "128 probe points per definition: perf's time includes one \`perf probe\` per 100 sites. bpftrace 0.17 reads the"
  echo "same three values by register (\`*(int32 *)arg0, arg1, arg2\`: it has no DWARF locations for uprobes), with BPFTRACE_MAX_PROBES=2000 (its limit is 512)."
  echo
  echo "| sites | sonde one step (\`record -e 'probe:BIN:DEF'\`) | perf probe + perf record | bpftrace 0.17 | sonde hits recorded |"
  echo "|---|---|---|---|---|"
  printf '%s\n' "${sites_rows[@]}"
  echo
  echo "Events of the sites groups left in uprobe_events after the run: $left_sites. Load average at the end:"
  echo "$(cut -d' ' -f1-3 /proc/loadavg) (other work shares the machine). The cost per hit is the uprobe trap's on this VM"
  echo "for all three tools; what differs is what the probe does after it (BPF here, the kernel's tracefs fetch for perf)."
} >"$out"
cat "$out"
if [[ $write_docs == --write-docs ]]; then
  write_section "$here/docs/benchmarks.md" probe "Dynamic probes: sonde probe vs perf probe" "$out"
fi
