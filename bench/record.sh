#!/usr/bin/env bash
# Recording benchmark: `sonde record` against `perf record` (6.1) on the same
# work, in the same run. Writes the "Recording" section of docs/benchmarks.md
# with --write-docs. Needs root (perf_event_paranoid, -a).
#   1. start-up + teardown: `record -o FILE -- true`, wall time (median of RUNS)
#   2. tail: from the workload's last action to the recorder's exit
#   3. recorder CPU time per 100K samples: -a -F 10000 -g while two hot loops
#      keep both CPUs busy; the recorder's task-clock from perf stat (its workload is `sleep`)
#   4. lost samples in that run (default buffers)
#   5. 3 and 4 again with -z (zstd level 1) for both, and the file bytes per sample
# Usage: bench/record.sh [SONDE_BIN] [--write-docs]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/build/cli/sonde}
write_docs=${2:-}
runs=${RUNS:-7}
busy=${BUSY_SECONDS:-3}
scratch=$(mktemp -d /tmp/sonde-record-bench.XXXXXX)
hot=$scratch/hot_loop
loops=()
cleanup() {
  for p in "${loops[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$scratch"
}
trap cleanup EXIT
gcc -O1 -fno-omit-frame-pointer -o "$hot" "$here/tests/fixtures/hot_loop.c"

now_ns() { date +%s%N; }
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
ms() { awk -v ns="$1" 'BEGIN { printf "%.1f", ns / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "n/a"; else printf "%.1fx", a / b }'; }

startup() {  # command... -> median wall ns of `CMD -- true`
  local i t0 t1
  for ((i = 0; i < runs; i++)); do
    t0=$(now_ns)
    "$@" -- true >/dev/null 2>&1
    t1=$(now_ns)
    echo $((t1 - t0))
  done | median
}

tail_ns() {  # command... -> median ns from the workload's last action to the recorder's exit
  local i end
  for ((i = 0; i < runs; i++)); do
    "$@" -- sh -c "sleep 0.2; date +%s%N > $scratch/stamp" >/dev/null 2>&1
    end=$(now_ns)
    echo $((end - $(cat "$scratch/stamp")))
  done | median
}

busy_run() {  # name command... -> "cpu_seconds samples lost"
  local name=$1; shift
  "$hot" $((busy + 2)) & loops+=($!)
  "$hot" $((busy + 2)) & loops+=($!)
  sleep 0.3
  # task-clock of the recorder and its `sleep` workload (negligible), to the microsecond.
  perf stat -x, -e task-clock -o "$scratch/$name.time" -- "$@" -- sleep "$busy" >/dev/null 2>"$scratch/$name.err" || true
  for p in "${loops[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  loops=()
  local cpu samples lost
  cpu=$(awk -F, '$3 == "task-clock" {printf "%.4f", $1 / 1000}' "$scratch/$name.time")
  # Count every recording with perf itself, so all are counted the same way:
  # perf script, since perf 6.1's `report --stats` fails on pipe-mode -z
  # streams, its own included ("Couldn't decompress data").
  read -r samples lost < <(perf script --show-lost-events -G -F event -i "$scratch/$name.data" 2>/dev/null |
    awk '/^PERF_RECORD_LOST / {l += $3; next} /^PERF_RECORD_LOST_SAMPLES / {l += $NF; next} /:/ {s++} END {print s+0, l+0}')
  echo "${cpu:-0} ${samples:-0} ${lost:-0}"
}

s_start=$(startup "$sonde" record -q -o "$scratch/s.data")
p_start=$(startup perf record -q -o "$scratch/p.data")
p_start_nobpf=$(startup perf record -q --no-bpf-event -o "$scratch/p.data")
s_tail=$(tail_ns "$sonde" record -q -o "$scratch/s.data")
p_tail=$(tail_ns perf record -q -o "$scratch/p.data")
# In-process time of sonde's record() (the summary line), without the
# dynamic loader's start-up of the sonde binary.
s_inproc=$("$sonde" record -o "$scratch/s.data" -- true 2>&1 >/dev/null | sed -n 's/.* in \([0-9.]*\) s.*/\1/p')
s_bin=$(for ((i = 0; i < runs; i++)); do t0=$(now_ns); "$sonde" --version >/dev/null; echo $(($(now_ns) - t0)); done | median)

read -r s_cpu s_samples s_lost <<<"$(busy_run sonde "$sonde" record -q -a -F 10000 -g -o "$scratch/sonde.data")"
read -r p_cpu p_samples p_lost <<<"$(busy_run perf perf record -q -a -F 10000 -g -o "$scratch/perf.data")"
read -r sz_cpu sz_samples sz_lost <<<"$(busy_run sonde_z "$sonde" record -q -z -a -F 10000 -g -o "$scratch/sonde_z.data")"
read -r pz_cpu pz_samples pz_lost <<<"$(busy_run perf_z perf record -q -z -a -F 10000 -g -o "$scratch/perf_z.data")"
per100k() { awk -v c="$1" -v s="$2" 'BEGIN { if (s + 0 == 0) print "n/a"; else printf "%.3f", c / s * 100000 }'; }
s_per=$(per100k "$s_cpu" "$s_samples")
p_per=$(per100k "$p_cpu" "$p_samples")
sz_per=$(per100k "$sz_cpu" "$sz_samples")
pz_per=$(per100k "$pz_cpu" "$pz_samples")
per_sample() { awk -v b="$(stat -c %s "$1")" -v s="$2" 'BEGIN { if (s + 0 == 0) print "n/a"; else printf "%.1f", b / s }'; }
s_bps=$(per_sample "$scratch/sonde.data" "$s_samples"); p_bps=$(per_sample "$scratch/perf.data" "$p_samples")
sz_bps=$(per_sample "$scratch/sonde_z.data" "$sz_samples"); pz_bps=$(per_sample "$scratch/perf_z.data" "$pz_samples")

out=$scratch/section.md
{
  echo "\`bench/record.sh\` on $(uname -r), $(nproc) CPUs, $(date -u +%F): median of $runs runs; perf $(perf --version | awk '{print $3}')."
  echo
  echo "| measure | sonde | perf | perf / sonde |"
  echo "|---|---|---|---|"
  echo "| start-up + teardown, \`record -o F -- true\` (wall) | $(ms "$s_start") ms | $(ms "$p_start") ms ($(ms "$p_start_nobpf") ms with --no-bpf-event) | $(ratio "$p_start" "$s_start") |"
  echo "| tail: workload's last action to recorder exit | $(ms "$s_tail") ms | $(ms "$p_tail") ms | $(ratio "$p_tail" "$s_tail") |"
  echo "| recorder CPU (task-clock) per 100K samples, \`-a -F 10000 -g\`, both CPUs busy, ${busy} s | ${s_per} s ($s_samples samples, ${s_cpu} s) | ${p_per} s ($p_samples samples, ${p_cpu} s) | $(ratio "$p_per" "$s_per") |"
  echo "| lost samples in that run (default buffers) | $s_lost | $p_lost | |"
  echo "| same with \`-z\` (zstd level 1): recorder CPU per 100K samples | ${sz_per} s ($sz_samples samples, ${sz_cpu} s, lost $sz_lost) | ${pz_per} s ($pz_samples samples, ${pz_cpu} s, lost $pz_lost) | $(ratio "$pz_per" "$sz_per") |"
  echo "| file bytes per sample, without / with \`-z\` (perf's file mode adds its own index and build-id tables) | ${s_bps} / ${sz_bps} | ${p_bps} / ${pz_bps} | |"
  echo
  echo "Targets (issue 2): start-up + teardown and tail each under 20 ms; CPU per 100K samples at most half of perf's; no lost samples."
  echo "sonde's wall start-up includes the dynamic loading of the \`sonde\` binary: \`sonde --version\` alone takes $(ms "$s_bin") ms;"
  echo "the recorder's own time for \`-- true\` (from its summary line: option checks, events, header, synthesis, drain, teardown) is ${s_inproc} s."
} >"$out"
cat "$out"
if [[ $write_docs == --write-docs ]]; then
  source "$here/bench/lib.sh"
  write_section "$here/docs/benchmarks.md" record "Recording" "$out"
fi
