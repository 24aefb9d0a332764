#!/usr/bin/env bash
# The analysis page at scale (issue 15, part 2): a recording of about a
# million samples with call chains (two demo workloads sampled at FREQ Hz
# for SECONDS_OF_WORK s, as bench/export.sh), converted by `sonde convert
# --to html`, then opened in headless Chromium (bench/page_timing.js):
# page size, conversion time, load to interactive, a range selection by a
# mouse drag, and each view switch. Goals: a few MB, < 2 s to interactive,
# < 200 ms per selection or view switch. perf has no such page: the row for
# it is `perf script` of the same recording, the input any perf-based page
# generator starts from.
# Usage: bench/html_scale.sh [SONDE_BIN] [--write-docs]   (root; needs tests/convert/js/node_modules)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/build/cli/sonde}
write_docs=${2:-}
runs=${RUNS:-3}
seconds=${SECONDS_OF_WORK:-25}
freq=${FREQ:-20000}
demo=$(dirname "$(dirname "$sonde")")/demo/sonde-demo-workload
scratch=$(mktemp -d /tmp/sonde-html-bench.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
source "$here/bench/lib.sh"

rec=$scratch/rec.data
record_two_demos "$rec" "$freq" "$seconds"
export SONDE_BUILDID_DIR=$scratch/cache
sonde_html() { "$sonde" convert -i "$rec" --to html -o "$scratch/out.html" 2>/dev/null; }
perf_script() { perf script -i "$rec" >/dev/null 2>&1; }
export -f sonde_html perf_script
export sonde rec scratch
read -r html_t html_m <<<"$(measure_median sonde_html)"
read -r ps_t ps_m <<<"$(measure_median perf_script)"
rec_mb=$(awk -v b="$(stat -c %s "$rec")" 'BEGIN {printf "%.1f", b / 1048576}')
page_mb=$(awk -v b="$(stat -c %s "$scratch/out.html")" 'BEGIN {printf "%.2f", b / 1048576}')
timing=$(node "$here/bench/page_timing.js" "$scratch/out.html")

out=$scratch/section.md
python3 - "$timing" "$rec_mb" "$page_mb" "$html_t" "$html_m" "$ps_t" "$ps_m" "$freq" "$seconds" "$runs" >"$out" <<'PY'
import json, sys
j = json.loads(sys.argv[1])
rec_mb, page_mb, html_t, html_m, ps_t, ps_m, freq, seconds, runs = sys.argv[2:]
print(f"Recording: `sonde record -g -F {freq}` of two demo workloads for {seconds} s: {j['totalSamples']:,} samples with call chains, "
      f"{rec_mb} MB. The page holds {j['rows']} rows (bin, thread, stack, event) over {j['nodes']} stack nodes.")
print()
print("| step | sonde | goal |")
print("|---|---|---|")
print(f"| `sonde convert --to html` (median of {runs}) | {html_t} s, {html_m} MB peak RSS | |")
print(f"| `perf script >/dev/null` of the same recording (for scale) | {ps_t} s, {ps_m} MB | |")
print(f"| page size | {page_mb} MB | a few MB |")
print(f"| load to interactive (Chromium, median of 5 fresh tabs) | {j['load']} ms | < 2000 ms |")
print(f"| range selection by a mouse drag: in the page / with Playwright's round trip | {j['selectPage']:.1f} ms / {j['selectRoundTrip']} ms | < 200 ms |")
for k in ['flame', 'calltree', 'bottomup', 'callers', 'top']:
    print(f"| switch to {k} (key): in the page / round trip | {j['view'][k]:.1f} ms / {j['viewRoundTrip'][k]} ms | < 200 ms |")
print()
print("In the page = `performance.now()` around the page's own work (recompute the selection's weights from the typed "
      "columns, redraw the timeline, render the shown view); the round trip adds Playwright's input and evaluate calls.")
PY
cat "$out"
[[ $write_docs == --write-docs ]] && write_section "$here/docs/benchmarks.md" html_scale "The analysis page at scale (convert --to html)" "$out"
exit 0
