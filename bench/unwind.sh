#!/usr/bin/env bash
# DWARF call chains: `sonde record --call-graph dwarf` against `perf record
# --call-graph dwarf`, then reading (unwinding every sample) with sonde and
# perf, on the same work in the same run. The workload is the unwind_qsort
# fixture (hot qsort callback under libc's msort, no frame pointers).
#   1. recorder CPU (task-clock) per 10K samples, and file bytes per sample
#   2. report and script of sonde's recording, sonde vs perf (median of RUNS)
#   3. how many samples unwind to the same functions in both
# Usage: bench/unwind.sh [SONDE_BIN] [--write-docs]   (root)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/build/cli/sonde}
write_docs=${2:-}
runs=${RUNS:-5}
rounds=${ROUNDS:-1500}
scratch=$(mktemp -d /tmp/sonde-unwind-bench.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
source "$here/bench/lib.sh"
bin=$scratch/unwind_qsort
gcc -g -O2 -fomit-frame-pointer -o "$bin" "$here/tests/fixtures/unwind_qsort.c"

record_cpu() {  # name command... -> "cpu_seconds samples bytes"
  local name=$1; shift
  perf stat -x, -e task-clock -o "$scratch/$name.time" -- "$@" -o "$scratch/$name.data" -- "$bin" "$rounds" >/dev/null 2>&1
  local cpu samples
  # task-clock counts the recorder and its workload: the workload's own
  # time is taken out below (same work in both runs).
  cpu=$(awk -F, '$3 == "task-clock" {printf "%.4f", $1 / 1000}' "$scratch/$name.time")
  samples=$(perf script -G -F event -i "$scratch/$name.data" 2>/dev/null | grep -c :)
  echo "$cpu $samples $(stat -c %s "$scratch/$name.data")"
}
perf stat -x, -e task-clock -o "$scratch/bare.time" -- "$bin" "$rounds" >/dev/null 2>&1
bare=$(awk -F, '$3 == "task-clock" {printf "%.4f", $1 / 1000}' "$scratch/bare.time")
read -r s_cpu s_samples s_bytes <<<"$(record_cpu sonde "$sonde" record -q -N --call-graph dwarf)"
read -r p_cpu p_samples p_bytes <<<"$(record_cpu perf perf record -q -N --call-graph dwarf)"
per10k() { awk -v c="$1" -v b="$bare" -v s="$2" 'BEGIN { if (s + 0 == 0) print "n/a"; else printf "%.3f", (c - b) / s * 10000 }'; }
s_per=$(per10k "$s_cpu" "$s_samples")
p_per=$(per10k "$p_cpu" "$p_samples")

rec=$scratch/sonde.data
sonde_report() { "$sonde" report -i "$rec" >/dev/null 2>&1; }
perf_report() { perf report --stdio -i "$rec" >/dev/null 2>&1; }
sonde_script() { "$sonde" script -i "$rec" >/dev/null 2>&1; }
perf_script() { perf script -i "$rec" >/dev/null 2>&1; }
read -r sr_t sr_m <<<"$(measure_median sonde_report)"
read -r pr_t pr_m <<<"$(measure_median perf_report)"
read -r ss_t ss_m <<<"$(measure_median sonde_script)"
read -r ps_t ps_m <<<"$(measure_median perf_script)"

# Frame-by-frame agreement: function names per sample, leaf first.
"$sonde" script -i "$rec" >"$scratch/s.txt"
perf script --no-inline -F ip,sym -i "$rec" >"$scratch/p.txt" 2>/dev/null
agree=$(python3 - "$scratch/s.txt" "$scratch/p.txt" <<'EOF'
import re, sys
def chains(path):
    out, cur = [], None
    for line in open(path, errors="replace"):
        m = re.match(r"^\s+[0-9a-f]+ (.+?)(\+0x[0-9a-f]+)?( \(.*\))?$", line.rstrip("\n"))
        if line[:1] in "\t " and m:
            if cur is None:
                cur = []
                out.append(cur)
            cur.append(m.group(1))
        elif not line.strip():
            cur = None
    return out
s, p = chains(sys.argv[1]), chains(sys.argv[2])
same = sum(1 for a, b in zip(s, p) if a == b)
print(f"{same} of {len(s)} (perf: {len(p)})")
EOF
)

out=$scratch/section.md
{
  echo "\`bench/unwind.sh\`: the \`unwind_qsort\` fixture (-O2 -fomit-frame-pointer; its hot qsort callback runs under libc's msort, which has no frame pointers) for ${rounds} rounds, recorded by each tool with \`--call-graph dwarf\` (8 KiB of stack per sample), on $(uname -r), $(date -u +%F)."
  echo
  echo "| measure | sonde | perf 6.1 | perf / sonde |"
  echo "|---|---|---|---|"
  echo "| recorder CPU per 10K samples (task-clock minus the workload's ${bare} s) | ${s_per} s ($s_samples samples) | ${p_per} s ($p_samples samples) | $(ratio "$p_per" "$s_per") |"
  echo "| bytes per sample | $((s_bytes / (s_samples > 0 ? s_samples : 1))) | $((p_bytes / (p_samples > 0 ? p_samples : 1))) | |"
  echo "| report of sonde's recording, unwinding every sample (median of $runs) | $sr_t s, $sr_m MB | $pr_t s, $pr_m MB | $(ratio "$pr_t" "$sr_t") |"
  echo "| script of the same | $ss_t s, $ss_m MB | $ps_t s, $ps_m MB | $(ratio "$ps_t" "$ss_t") |"
  echo
  echo "Samples whose unwound functions equal perf's, frame for frame (\`perf script --no-inline\`): $agree."
} >"$out"
cat "$out"
[[ $write_docs == --write-docs ]] && write_section "$here/docs/benchmarks.md" unwind "DWARF call chains" "$out"
exit 0
