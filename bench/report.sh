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
demo=$(dirname "$(dirname "$sonde")")/demo/sonde-demo-workload  # the build the sonde under test comes from
scratch=$(mktemp -d /tmp/sonde-report-bench.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
source "$here/bench/lib.sh"

rec=$scratch/rec.data
# Two copies of the demo so both CPUs work; -F 10000 with call chains.
record_two_demos "$rec" 10000 "$seconds"
samples=$("$sonde" report -i "$rec" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"][0]["samples"])')
size_mb=$(( $(stat -c %s "$rec") / 1048576 ))

perf_report() { perf report --stdio -i "$rec" >/dev/null 2>&1; }
sonde_report() { "$sonde" report -i "$rec" >/dev/null 2>&1; }
perf_script() { perf script -i "$rec" >/dev/null 2>&1; }
sonde_script() { "$sonde" script -i "$rec" >/dev/null 2>&1; }
# No symbol index yet: each run starts from an empty build-id cache (no
# kallsyms copy, no kept binaries), so both read /proc/kallsyms and the
# binaries where they lie.
fresh_cache() { local d; d=$(mktemp -d "$scratch/cache.XXXXXX"); echo "$d"; }
perf_report_noindex() { perf --buildid-dir "$(fresh_cache)" report --stdio -i "$rec" >/dev/null 2>&1; }
sonde_report_noindex() { SONDE_BUILDID_DIR="$(fresh_cache)" "$sonde" report -i "$rec" >/dev/null 2>&1; }
perf_script_noindex() { perf --buildid-dir "$(fresh_cache)" script -i "$rec" >/dev/null 2>&1; }
sonde_script_noindex() { SONDE_BUILDID_DIR="$(fresh_cache)" "$sonde" script -i "$rec" >/dev/null 2>&1; }

cold() { sync; echo 3 >/proc/sys/vm/drop_caches; measure_once "$@"; }
# One cold run is at the mercy of whatever else refills the page cache
# (a run once measured both tools 3x slower than usual): median of 3.
cold3() {
  local i
  for i in 1 2 3; do cold "$1"; done | sort -n | awk '{t[NR]=$1; m[NR]=$2} END {printf "%s %s\n", t[2], m[2]}'
}

line() {  # name, variant, "t m" of sonde, "t m" of perf
  local st sm pt pm
  read -r st sm <<<"$3"
  read -r pt pm <<<"$4"
  printf '| %s, %s | %s s | %s s | %s | %s MB | %s MB | %s |\n' "$1" "$2" "$st" "$pt" "$(ratio "$pt" "$st")" "$sm" "$pm" "$(ratio "$sm" "$pm")"
}

row() {  # name, sonde fn, perf fn
  local name=$1 s=$2 p=$3
  line "$name" "cold disk (page cache dropped; median of 3)" "$(cold3 "$s")" "$(cold3 "$p")"
  line "$name" "no symbol index (empty build-id cache)" "$(measure_median "${s}_noindex")" "$(measure_median "${p}_noindex")"
  line "$name" "warm" "$(measure_median "$s")" "$(measure_median "$p")"
}

out=$scratch/section.md
{
  echo "Recording: \`sonde record -g -F 10000\` of two demo workloads for ${seconds} s: ${samples} samples with call chains, ${size_mb} MB. Median of ${runs} runs (wall time in this shell, peak RSS from /usr/bin/time); cold disk = median of 3 runs, each after dropping the page cache; no symbol index = every run from an empty build-id cache (both tools read /proc/kallsyms, 40-50 ms of kernel time here, and the binaries in place); warm = the cache \`sonde record\` filled (the kernel's kallsyms and the binaries, in perf's layout, which perf reads too). Speed-up = perf time / sonde time; memory ratio = sonde peak RSS / perf peak RSS. This VM's speed drifts between runs (the same binary has measured up to 2x apart minutes later), so compare the two tools within a run."
  echo
  echo "| command | sonde | perf 6.1 | speed-up | sonde RSS | perf RSS | memory ratio |"
  echo "|---|---|---|---|---|---|---|"
  row "report (\`sonde report\` vs \`perf report --stdio\`)" sonde_report perf_report
  row "script (\`sonde script\` vs \`perf script\`)" sonde_script perf_script
} >"$out"

# A few million samples: is a report about as long as reading the file?
# (LARGE_SECONDS=0 skips it.)
large_seconds=${LARGE_SECONDS:-45}
if ((large_seconds > 0)); then
  rec=$scratch/large.data
  record_two_demos "$rec" 25000 "$large_seconds"
  large_samples=$("$sonde" report -i "$rec" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"][0]["samples"])')
  large_mb=$(( $(stat -c %s "$rec") / 1048576 ))
  read_file() { cat "$rec" >/dev/null; }
  saved_runs=$runs
  runs=3
  read -r cat_cold_t _ <<<"$(cold read_file)"
  read -r rep_cold_t rep_cold_m <<<"$(cold sonde_report)"
  read -r cat_warm_t _ <<<"$(measure_median read_file)"
  read -r rep_warm_t rep_warm_m <<<"$(measure_median sonde_report)"
  runs=1
  read -r perf_warm_t perf_warm_m <<<"$(measure_median perf_report)"
  runs=$saved_runs
  {
    echo
    echo "A few million samples: the same workloads at \`-F 25000\` for ${large_seconds} s, ${large_samples} samples, ${large_mb} MB (\`cat\` = reading the file)."
    echo
    echo "| | read the file (\`cat\`) | \`sonde report\` | \`perf report --stdio\` | speed-up | sonde RSS | perf RSS |"
    echo "|---|---|---|---|---|---|---|"
    echo "| cold disk | $cat_cold_t s | $rep_cold_t s | | | $rep_cold_m MB | |"
    echo "| warm | $cat_warm_t s | $rep_warm_t s | $perf_warm_t s | $(ratio "$perf_warm_t" "$rep_warm_t") | $rep_warm_m MB | $perf_warm_m MB |"
  } >>"$out"
fi
cat "$out"
[[ $write_docs == --write-docs ]] && write_section "$here/docs/benchmarks.md" report "Reading: report and script" "$out"
exit 0
