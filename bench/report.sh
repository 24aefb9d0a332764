#!/usr/bin/env bash
# Reading benchmark: `sonde report` against `perf report --stdio` and
# `sonde script` against `perf script`, on the same call-chain recording, in
# the same run. Wall time (median of RUNS) and peak RSS; cold (page cache
# dropped, so every binary's symbols are read from disk) and warm runs.
# Usage: bench/report.sh [SONDE_BIN] [--write-docs]   (root)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/build/cli/sonde}
write_docs=${2:-}
runs=${RUNS:-5}
seconds=${SECONDS_OF_WORK:-12}
demo=$here/build/demo/sonde-demo-workload
scratch=$(mktemp -d /tmp/sonde-report-bench.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
source "$here/bench/lib.sh"

rec=$scratch/rec.data
# Two copies of the demo so both CPUs work; -F 10000 with call chains.
"$sonde" record -q -g -F 10000 -o "$rec" -- sh -c "$demo $seconds & $demo $seconds; wait" >/dev/null
samples=$("$sonde" report -i "$rec" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"][0]["samples"])')
size_mb=$(( $(stat -c %s "$rec") / 1048576 ))

perf_report() { perf report --stdio -i "$rec" >/dev/null 2>&1; }
sonde_report() { "$sonde" report -i "$rec" >/dev/null 2>&1; }
perf_script() { perf script -i "$rec" >/dev/null 2>&1; }
sonde_script() { "$sonde" script -i "$rec" >/dev/null 2>&1; }

cold() { sync; echo 3 >/proc/sys/vm/drop_caches; measure_once "$@"; }

row() {  # name, sonde fn, perf fn
  local name=$1 s=$2 p=$3
  read -r sc_t sc_m <<<"$(cold "$s")"
  read -r pc_t pc_m <<<"$(cold "$p")"
  read -r sw_t sw_m <<<"$(measure_median "$s")"
  read -r pw_t pw_m <<<"$(measure_median "$p")"
  printf '| %s, cold | %s s | %s s | %s | %s MB | %s MB | %s |\n' "$name" "$sc_t" "$pc_t" "$(ratio "$pc_t" "$sc_t")" "$sc_m" "$pc_m" "$(ratio "$sc_m" "$pc_m")"
  printf '| %s, warm | %s s | %s s | %s | %s MB | %s MB | %s |\n' "$name" "$sw_t" "$pw_t" "$(ratio "$pw_t" "$sw_t")" "$sw_m" "$pw_m" "$(ratio "$sw_m" "$pw_m")"
}

out=$scratch/section.md
{
  echo "Recording: \`sonde record -g -F 10000\` of two demo workloads for ${seconds} s: ${samples} samples with call chains, ${size_mb} MB. Median of ${runs} warm runs; cold = page cache dropped first. Speed-up = perf time / sonde time; memory ratio = sonde peak RSS / perf peak RSS."
  echo
  echo "| command | sonde | perf 6.1 | speed-up | sonde RSS | perf RSS | memory ratio |"
  echo "|---|---|---|---|---|---|---|"
  row "report (\`sonde report\` vs \`perf report --stdio\`)" sonde_report perf_report
  row "script (\`sonde script\` vs \`perf script\`)" sonde_script perf_script
} >"$out"
cat "$out"
[[ $write_docs == --write-docs ]] && write_section "$here/docs/benchmarks.md" report "Reading: report and script" "$out"
exit 0
