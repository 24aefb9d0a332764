#!/usr/bin/env bash
# Export benchmark: `sonde convert --to pprof` (and the other formats) on a
# recording of about a million call-chain samples, against what a perf user
# runs to get the same data out of perf: `perf script` alone (the floor:
# every perf-based converter starts from it) and `perf script | collapse`
# pipelines (FlameGraph's stackcollapse-perf.pl when installed, else a tiny
# awk collapse that does the same folding). Also loads the HTML export of
# the same recording in headless Chromium and times load, click-zoom and
# search (needs tests/convert/js/node_modules: scripts/install-deps.sh).
# Wall time (median of RUNS) and peak RSS.
# Usage: bench/export.sh [SONDE_BIN] [--write-docs]   (root)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/build/cli/sonde}
write_docs=${2:-}
runs=${RUNS:-3}
seconds=${SECONDS_OF_WORK:-25}
freq=${FREQ:-20000}
demo=$(dirname "$(dirname "$sonde")")/demo/sonde-demo-workload
scratch=$(mktemp -d /tmp/sonde-export-bench.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
source "$here/bench/lib.sh"

rec=$scratch/rec.data
# Two copies of the demo so both CPUs work, sampled at $freq Hz each.
record_two_demos "$rec" "$freq" "$seconds"
export SONDE_BUILDID_DIR=$scratch/cache
"$sonde" convert -i "$rec" --to folded -o "$scratch/check.folded"
samples=$(awk '{n += $NF} END {print n}' "$scratch/check.folded")
size_mb=$(( $(stat -c %s "$rec") / 1048576 ))

# The awk collapse: perf script prints a header line per sample, then one
# "addr symbol+off (dso)" line per frame (leaf first), then a blank line.
cat >"$scratch/collapse.awk" <<'AWK'
/^[^ \t]/ { n = 0; next }
/^[ \t]*$/ { if (n) { s = f[n]; for (i = n - 1; i >= 1; i--) s = s ";" f[i]; c[s]++ } n = 0; next }
{ sym = $2; sub(/\+0x[0-9a-f]+$/, "", sym); f[++n] = sym }
END { for (s in c) print s, c[s] }
AWK
collapse_pl=$(command -v stackcollapse-perf.pl || true)

sonde_pprof() { "$sonde" convert -i "$rec" --to pprof -o "$scratch/out.pb.gz" 2>/dev/null; }
sonde_folded() { "$sonde" convert -i "$rec" --to folded -o "$scratch/out.folded" 2>/dev/null; }
sonde_speedscope() { "$sonde" convert -i "$rec" --to speedscope -o "$scratch/out.json" 2>/dev/null; }
sonde_html() { "$sonde" convert -i "$rec" --to html -o "$scratch/out.html" 2>/dev/null; }
sonde_perf() { "$sonde" convert -i "$rec" --to perf -o "$scratch/out.perf.data" 2>/dev/null; }
perf_script() { perf script -i "$rec" >/dev/null 2>&1; }
perf_awk() { perf script -i "$rec" 2>/dev/null | awk -f "$scratch/collapse.awk" >"$scratch/awk.folded"; }
perf_pl() { perf script -i "$rec" 2>/dev/null | "$collapse_pl" >"$scratch/pl.folded"; }
export -f sonde_pprof sonde_folded sonde_speedscope sonde_html sonde_perf perf_script perf_awk perf_pl
export sonde rec scratch collapse_pl

row() {  # label, fn, reference seconds
  local label=$1 fn=$2 ref=${3:-}
  echo "bench/export.sh: $label" >&2
  read -r t m <<<"$(measure_median "$fn")"
  printf '| %s | %s s | %s MB | %s |\n' "$label" "$t" "$m" "${ref:+$(ratio "$ref" "$t")}"
  echo "$t" >"$scratch/last"
}

out=$scratch/section.md
{
  echo "Recording: \`sonde record -g -F ${freq}\` of two demo workloads for ${seconds} s: ${samples} samples with call chains, ${size_mb} MB. Median of ${runs} runs (warm page cache), wall time and peak RSS. \"vs perf script\" = \`perf script\` time / this command's time (above 1: faster than \`perf script\` alone)."
  echo
  echo "| command | wall | peak RSS | vs perf script |"
  echo "|---|---|---|---|"
  read -r ps_t ps_m <<<"$(measure_median perf_script)"
  echo "| \`perf script >/dev/null\` (the floor) | $ps_t s | $ps_m MB | 1.0x |"
  row "\`sonde convert --to pprof\`" sonde_pprof "$ps_t"
  row "\`sonde convert --to folded\`" sonde_folded "$ps_t"
  row "\`sonde convert --to speedscope\`" sonde_speedscope "$ps_t"
  row "\`sonde convert --to html\`" sonde_html "$ps_t"
  row "\`sonde convert --to perf\` (file mode, records copied)" sonde_perf "$ps_t"
  row "\`perf script \\| awk collapse\` (folded)" perf_awk "$ps_t"
  if [[ -n $collapse_pl ]]; then row "\`perf script \\| stackcollapse-perf.pl\`" perf_pl "$ps_t"; fi
  echo
  sonde_pprof; sonde_html
  echo "Both stream the recording (${size_mb} MB; sonde reads it through a 256 KiB buffer on a reading thread, records in pooled 256 KiB chunks, see docs/architecture.md); sonde's peak RSS is its profile (here ~20K aggregates over ~30K stack nodes) and symbol tables (the kernel's 120K kallsyms entries, ~1 MB). "'The conversion target of the issue (faster than `perf script` alone) is the "vs perf script" column.'
  echo
  echo "Output sizes: pprof $(( $(stat -c %s "$scratch/out.pb.gz") / 1024 )) KB, HTML $(( $(stat -c %s "$scratch/out.html") / 1024 )) KB."
  js=$here/tests/convert/js
  if [[ -d $js/node_modules ]]; then
    # The leaf of the heaviest stack (awk, not sort | head: pipefail and SIGPIPE).
    hot=$(awk '$NF > max { max = $NF; s = $0 } END { sub(/ [0-9]+$/, "", s); n = split(s, f, ";"); print f[n] }' "$scratch/check.folded")
    if b=$(node "$js/browser.js" "$scratch/out.html" "$scratch/shot" "$hot" hash_strings 2>"$scratch/browser.err"); then
      python3 - "$b" <<'PY'
import json, sys
j = json.loads(sys.argv[1])
print(f"HTML flame graph of this recording in headless Chromium ({j['nodeCount']} tree nodes): "
      f"page load to first draw {j['loadMs']} ms, click-to-zoom {j['clickMs']} ms, search + redraw {j['searchMs']} ms "
      f"(each includes Playwright's round trip).")
PY
    else
      echo "HTML timing in Chromium failed: $(head -1 "$scratch/browser.err")"
    fi
  fi
} >"$out"
cat "$out"
cp "$out" "${KEEP_SECTION:-/dev/null}" 2>/dev/null || true
[[ $write_docs == --write-docs ]] && write_section "$here/docs/benchmarks.md" export "Exports" "$out"
exit 0
