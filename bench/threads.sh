#!/usr/bin/env bash
# Draining under load (issue 13): `-g -F max -a` for SECONDS (default 10)
# while two hot loops keep both CPUs busy, into a file, into a pipe read at
# 20 MB/s (bench/slow_reader.py), and into a file with -z. Recorders: sonde
# (one drain thread), sonde --threads (per core), perf 6.1, perf --threads.
# Per row: samples kept, samples lost (sonde: by kind, from its summary
# line; perf: its LOST_SAMPLES total), bytes written, recorder CPU seconds
# (user+sys from /usr/bin/time), and samples kept per second of that CPU
# (with -z: records compressed per CPU second). A row a recorder cannot do
# is "n/a".
# Usage: bench/threads.sh [SONDE_BIN]   (root: -a and -F max)
# Environment: SECONDS_PER_RUN, CALLGRAPH (default -g), PIPE_RATE (bytes/s,
# default 20e6), SINKS (default "file pipe zfile").
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/build/cli/sonde}
secs=${SECONDS_PER_RUN:-10}
cg=${CALLGRAPH:--g}
pipe_rate=${PIPE_RATE:-20e6}   # the slow pipe's bytes/s
sinks=${SINKS:-file pipe zfile}
scratch=$(mktemp -d /tmp/sonde-threads-bench.XXXXXX)
loops=()
cleanup() {
  for p in "${loops[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$scratch"
}
trap cleanup EXIT
gcc -O1 -fno-omit-frame-pointer -o "$scratch/hot" "$here/tests/fixtures/hot_loop.c"

# --stats text: the aggregated SAMPLE count, and the per-event LOST_SAMPLES
# sums (each event's section, "NAME stats:") added up.
count_stats='/^ *SAMPLE events:/ && !s {s=$3} /stats:$/ {ev=1} ev && /^ *LOST_SAMPLES events:/ {l+=$3} END {print s+0, l+0}'

# Samples kept and lost in a stream, a perf file or a directory.
stats() {  # path -> "samples lost"
  local p=$1
  # perf's directory: data is file mode (header size 104; a pipe's is 16).
  if [ -d "$p" ] && [ "$(od -An -tu8 -j8 -N8 "$p/data" | tr -d ' ')" != 16 ]; then
    perf report --stats -i "$p" 2>/dev/null | awk "$count_stats"
    return
  fi
  local files=("$p")
  [ -d "$p" ] && files=("$p"/data*)
  local s=0 l=0 f a b
  for f in "${files[@]}"; do
    read -r a b < <("$sonde" report --stats -i "$f" 2>/dev/null |
      awk "$count_stats")
    s=$((s + a)); l=$((l + b))
  done
  echo "$s $l"
}

bytes() { du -sb "$1" | cut -f1; }
cpu_of() { awk '{printf "%.2f", $1 + $2}' "$1"; }

row() {  # label sink recorder-argv...
  local label=$1 sink=$2; shift 2
  local out=$scratch/out err=$scratch/err t=$scratch/time
  rm -rf "$out" "$out.pipe"
  for _ in 1 2; do "$scratch/hot" $((secs + 3)) & loops+=($!); done
  sleep 0.5
  case $sink in
    file) /usr/bin/time -f "%U %S" -o "$t" "$@" -o "$out" -- sleep "$secs" 2>"$err" >/dev/null ;;
    zfile) /usr/bin/time -f "%U %S" -o "$t" "$@" -z -o "$out" -- sleep "$secs" 2>"$err" >/dev/null ;;
    pipe) /usr/bin/time -f "%U %S" -o "$t" "$@" -o - -- sleep "$secs" 2>"$err" |
            python3 "$here/bench/slow_reader.py" "$out" "$pipe_rate" ;;
  esac
  local rc=$?
  for p in "${loops[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  loops=()
  if [ $rc -ne 0 ] || [ ! -e "$out" ]; then
    printf '| %s | %s | n/a | | | | | %s |\n' "$label" "$sink" "$(grep -v -e '^\[' -e '^info:' "$err" | tail -1 | cut -c1-80)"
    return
  fi
  local s l kinds
  read -r s l < <(stats "$out")
  kinds=$(grep -o 'lost by kind: [^(]*' "$err" | sed 's/lost by kind: //; s/ from the full user-space buffer//; s/dwarf samples had their user stack cut/stacks cut/')
  local cpu
  cpu=$(grep -E '^[0-9.]+ [0-9.]+$' "$t" | cpu_of /dev/stdin)
  printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$label" "$sink" "$s" "$l" "$(bytes "$out")" "$cpu" \
    "$(awk -v s="$s" -v c="$cpu" 'BEGIN {if (c > 0) printf "%.0fK", s / c / 1000}')" "$kinds"
}

echo "| recorder | sink | samples kept | samples lost | bytes | recorder CPU s | kept per CPU s | sonde's losses by kind |"
echo "|---|---|---|---|---|---|---|---|"
for sink in $sinks; do
  row "sonde" $sink "$sonde" record $cg -F max -a
  row "sonde --threads" $sink "$sonde" record $cg -F max -a --threads
  row "perf" $sink perf record -q $cg -F max -a
  row "perf --threads" $sink perf record -q $cg -F max -a --threads
done
