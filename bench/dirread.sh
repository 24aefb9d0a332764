#!/usr/bin/env bash
# Reading a directory of streams (docs/format.md, "Directory recordings")
# against the same records as one stream, in the same run: `sonde report`
# and `sonde script` of a call-chain recording, and of that recording split
# into sonde's layout (data + data.0 + data.1, the kernel records dealt to the
# two files in turn, so the merge interleaves them record by record). Wall
# time, CPU time (user + system, all threads) and peak RSS, median of RUNS;
# cost per sample = CPU time / samples.
# Usage: bench/dirread.sh [SONDE_BIN] [--write-docs]   (root)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/build/cli/sonde}
write_docs=${2:-}
runs=${RUNS:-5}
seconds=${SECONDS_OF_WORK:-12}
demo=$(dirname "$(dirname "$sonde")")/demo/sonde-demo-workload
scratch=$(mktemp -d /tmp/sonde-dirread-bench.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
source "$here/bench/lib.sh"

# One pipe-mode stream into DIR/data (header records and everything up to
# FINISHED_INIT), DIR/data.0 and DIR/data.1 (header records, then kernel
# records in turn); every FINISHED_ROUND into every file.
split_stream() {  # STREAM DIR
  python3 - "$1" "$2" <<'PY'
import struct, sys
src, out = sys.argv[1], sys.argv[2]
buf = open(src, "rb").read()
files = [open(f"{out}/{n}", "wb") for n in ("data", "data.0", "data.1")]
for f in files: f.write(buf[:16])
at, init, turn = 16, False, 0
while at + 8 <= len(buf):
    typ, misc, size = struct.unpack_from("<IHH", buf, at)
    end = at + size
    if typ == 66: end += struct.unpack_from("<I", buf, at + 8)[0]   # TRACING_DATA's blob
    rec = buf[at:end]
    if typ == 68 or (typ >= 64 and not init and typ != 82): targets = files
    elif typ < 64 and init: targets = [files[1 + turn % 2]]; turn += 1
    else: targets = [files[0]]
    if typ == 82: init = True
    for f in targets: f.write(rec)
    at = end
PY
}

# The samples report counts in a stream or directory.
samples_in() { "$sonde" report -i "$1" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"][0]["samples"])'; }

# Records $rec at FREQ for SECONDS, splits it into $dir, checks both hold the
# same samples; sets samples and size_mb.
record_and_split() {  # FREQ SECONDS
  record_two_demos "$rec" "$1" "$2"
  mkdir "$dir"
  split_stream "$rec" "$dir"
  samples=$(samples_in "$rec")
  local dir_samples; dir_samples=$(samples_in "$dir")
  [[ $samples == "$dir_samples" ]] || { echo "the directory has $dir_samples samples, the stream $samples" >&2; exit 1; }
  size_mb=$(( $(stat -c %s "$rec") / 1048576 ))
}

rec=$scratch/one.data
dir=$scratch/dir.data
record_and_split 10000 "$seconds"

# One run: "wall_s cpu_s peak_MB" (wall time in this shell; CPU = perf
# stat's task-clock of all threads; peak RSS from /usr/bin/time).
run_once() {  # INPUT COMMAND
  local tf sf t0 t1; tf=$(mktemp); sf=$(mktemp)
  t0=$EPOCHREALTIME
  perf stat -x, -e task-clock -o "$sf" /usr/bin/time -f '%M' -o "$tf" "$sonde" "$2" -i "$1" >/dev/null 2>&1
  t1=$EPOCHREALTIME
  local ms; ms=$(awk -F, '/task-clock/ {print $1}' "$sf")
  awk -v t0="$t0" -v t1="$t1" -v ms="$ms" '{printf "%.4f %.3f %d\n", t1 - t0, ms / 1000, $1/1024}' "$tf"
  rm -f "$tf" "$sf"
}
median() {  # INPUT COMMAND: medians of wall, cpu, rss over $runs runs
  local i k all; all=$(for ((i = 0; i < runs; i++)); do run_once "$1" "$2"; done)
  for k in 1 2 3; do
    cut -d' ' -f$k <<<"$all" | sort -n | awk '{v[NR]=$1} END {printf "%s ", v[int((NR+1)/2)]}'
  done
  echo
}
per_sample() { awk -v c="$1" -v n="$samples" 'BEGIN {printf "%.2f", c * 1e6 / n}'; }

out=$scratch/section.md
load=$(cut -d' ' -f1-3 /proc/loadavg)
table() {  # LABEL: rows for $rec / $dir
  echo "| command | input | wall | CPU | CPU per sample | peak RSS | wall ratio (dir / stream) | CPU ratio |"
  echo "|---|---|---|---|---|---|---|---|"
  for cmd in report script; do
    read -r sw sc sm <<<"$(median "$rec" "$cmd")"
    read -r dw dc dm <<<"$(median "$dir" "$cmd")"
    echo "| \`sonde $cmd\` | one stream | $sw s | $sc s | $(per_sample "$sc") µs | $sm MB | | |"
    echo "| \`sonde $cmd\` | directory (3 streams) | $dw s | $dc s | $(per_sample "$dc") µs | $dm MB | $(ratio "$dw" "$sw") | $(ratio "$dc" "$sc") |"
  done
}
{
  echo "Recording: \`sonde record -g -F 10000\` of two demo workloads for ${seconds} s: ${samples} samples with call chains, ${size_mb} MB, read as that one stream and as a directory of three streams made from it (\`data\` + \`data.0\` + \`data.1\`, kernel records dealt to the two in turn: the merge switches files at almost every record, its worst case). Both give the same report (the tests check it byte for byte). Median of ${runs} runs, warm page cache; CPU = task-clock of all threads (perf stat; the directory adds one ordering thread per file); load average before the run: ${load} (other engineers' builds and tests share the 2 cores, so wall times are noisy: compare CPU)."
  echo
  table
} >"$out"

# A bigger one (LARGE_SECONDS=0 skips it).
large_seconds=${LARGE_SECONDS:-15}
if ((large_seconds > 0)); then
  rec=$scratch/large.data
  dir=$scratch/large.dir
  record_and_split 25000 "$large_seconds"
  runs=3
  {
    echo
    echo "Bigger: \`-F 25000\` for ${large_seconds} s, ${samples} samples, ${size_mb} MB, median of 3 runs."
    echo
    table
  } >>"$out"
fi
cat "$out"
[[ $write_docs == --write-docs ]] && write_section "$here/docs/benchmarks.md" dirread "Reading a directory of streams" "$out"
exit 0
