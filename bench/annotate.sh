#!/usr/bin/env bash
# Annotate benchmark: `sonde annotate` against `perf annotate --stdio`, every
# symbol above 0.5% of the samples, on the same recordings in the same run:
# a `g++ -O2` compile (cc1plus, 35 MB, its .dynsym names 31K functions) and
# node running a JavaScript loop (a 99 MB binary). Wall time (median of RUNS)
# and peak RSS. perf runs objdump once per symbol; sonde disassembles with
# capstone in process (docs/annotate.md).
# Usage: bench/annotate.sh [SONDE_BIN] [--write-docs]   (root)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/build/cli/sonde}
write_docs=${2:-}
runs=${RUNS:-3}
scratch=$(mktemp -d /tmp/sonde-annotate-bench.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
source "$here/bench/lib.sh"

# The compile: one of sonde's own sources, -O2, with frame-pointer chains.
gcc_rec=$scratch/gcc.data
"$sonde" record -q -N -g -F 2000 -o "$gcc_rec" -- \
  g++ -O2 -std=c++20 -I"$here/src" -c "$here/src/analysis/profile_builder.cpp" -o "$scratch/pb.o" >/dev/null
node_rec=$scratch/node.data
have_node=0
if command -v node >/dev/null; then
  "$sonde" record -q -N -F 2000 -o "$node_rec" -- node -e \
    'let s=0; for (let i=0;i<3e7;i++) { s += JSON.stringify({i}).length; } console.log(s)' >/dev/null
  have_node=1
fi

rec=$gcc_rec
sonde_annotate() { "$sonde" annotate -i "$rec" --stdio --percent-limit 0.5 >/dev/null 2>&1; }
perf_annotate() { perf annotate -i "$rec" --stdio --percent-limit 0.5 >/dev/null 2>&1; }
symbols() { "$sonde" annotate -i "$rec" --stdio --percent-limit 0.5 2>/dev/null | grep -c '^ Percent |' || true; }
samples() { "$sonde" report -i "$rec" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"][0]["samples"])'; }

# CPU seconds (user + sys, waited-for children such as objdump included) of
# one run of a function; the median of $runs.
cpu_median() {
  local i tf results=()
  tf=$(mktemp)
  for ((i = 0; i < runs; i++)); do
    /usr/bin/time -f '%U %S' -o "$tf" bash -c "$(declare -f); $(declare -p sonde rec 2>/dev/null); $1"
    results+=("$(awk '{printf "%.2f\n", $1 + $2}' "$tf")")
  done
  rm -f "$tf"
  printf '%s\n' "${results[@]}" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'
}

row() {  # name
  local st sm pt pm n s sc pc
  n=$(symbols)
  s=$(samples)
  read -r st sm <<<"$(measure_median sonde_annotate)"
  read -r pt pm <<<"$(measure_median perf_annotate)"
  sc=$(cpu_median sonde_annotate)
  pc=$(cpu_median perf_annotate)
  printf '| %s | %s | %s | %s s | %s s | %s | %s MB | %s MB | %s s | %s s |\n' "$1" "$s" "$n" "$st" "$pt" \
    "$(ratio "$pt" "$st")" "$sm" "$pm" "$sc" "$pc"
}

out=$scratch/section.md
{
  echo "\`bench/annotate.sh\`, $(date -u +%F): \`sonde annotate --stdio --percent-limit 0.5\` against \`perf annotate --stdio --percent-limit 0.5\` on the same recording (sonde's pipe-mode file, which perf reads), every symbol with at least 0.5% of the samples. Build: RelWithDebInfo (scripts/build.sh). Median of ${runs} runs, warm page cache; peak RSS from /usr/bin/time. Speed-up = perf time / sonde time. perf runs \`objdump\` once per symbol (each run reads the binary's symbols again); sonde reads the recording once and disassembles each symbol's bytes with capstone. Kernel symbols are skipped by both (no vmlinux or /proc/kcore on this VM), and node's JavaScript by both (run without --perf-prof: no jitdump). The wall times move with the load of the other sessions on the 2 cores; CPU time (user + sys, objdump's included for perf) is in the last two columns."
  echo
  echo "| recording | samples | symbols annotated | sonde | perf 6.1 | speed-up | sonde RSS | perf RSS | sonde CPU | perf CPU |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  rec=$gcc_rec
  row "\`g++ -O2 -c\` (cc1plus, 35 MB)"
  if ((have_node)); then
    rec=$node_rec
    row "node, a JS loop (99 MB binary)"
  fi
} >"$out"
cat "$out"
[[ $write_docs == --write-docs ]] && write_section "$here/docs/benchmarks.md" annotate "Annotate: sonde annotate vs perf annotate --stdio" "$out"
exit 0
