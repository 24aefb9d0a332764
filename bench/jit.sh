#!/usr/bin/env bash
# JIT code, on the real node (tests/fixtures/jit_hot.js and a generated script
# that compiles thousands of functions), sonde against perf in the same run:
#   1. --call-graph dwarf of `node jit_hot.js`: reading sonde's recording
#      (wall time, opens of the node binary, share of samples whose chain
#      reaches _start / __libc_start_main) against perf reading its own
#      recording of the same script; OLD_SONDE (optional) for a before figure
#   2. a jitdump recording (`node --perf-prof`) of a script compiling
#      FUNCS functions: sonde's report (no inject step) against
#      `perf record -k mono` + `perf inject --jit` + `perf report`
# Usage: bench/jit.sh [SONDE_BIN] [--write-docs]   (root; node and perf installed)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/build/cli/sonde}
write_docs=${2:-}
runs=${RUNS:-3}
funcs=${FUNCS:-3000}
old=${OLD_SONDE:-}
scratch=$(mktemp -d /tmp/sonde-jit-bench.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
# perf's build-id cache in the scratch folder: perf inject adds every
# jitted-PID-N.so to it. --no-inline: perf 6.1 otherwise runs addr2line on
# node's 99 MB binary for every address (minutes).
export perf="perf --buildid-dir $scratch/debug" old
source "$here/bench/lib.sh"
cd "$scratch"

# Of `script` output on stdin: "reached total" (a chain reaches a root frame).
roots() {
  python3 -c '
import re, sys
roots = ("_start", "__libc_start_main", "__libc_start_call_main", "clone3", "start_thread")
n = ok = 0; last = None
def flush():
    global n, ok, last
    if last is not None:
        n += 1; ok += any(last.startswith(r) for r in roots)
    last = None
for line in sys.stdin:
    m = re.match(r"^\s+[0-9a-f]+ (.*?)(\+0x[0-9a-f]+)? \(.*\)$", line.rstrip("\n"))
    if line[:1] in "\t " and m: last = m.group(1)
    elif not line.strip(): flush()
flush(); print(ok, n)'
}
node_opens() {  # BIN ARGS...: how often the command opens a file named node
  strace -f -e trace=openat -o "$scratch/strace.txt" "$@" >/dev/null 2>&1
  grep -c '/node"\|/node/[0-9a-f]*/elf"' "$scratch/strace.txt" || true
}

# 1. --call-graph dwarf of node.
"$sonde" record -q --call-graph dwarf -o sonde.data -- node "$here/tests/fixtures/jit_hot.js" 2000 >/dev/null
$perf record -q --call-graph dwarf -o perf.data -- node "$here/tests/fixtures/jit_hot.js" 2000 >/dev/null 2>&1
sonde_report() { "$sonde" report -i sonde.data >/dev/null 2>&1; }
perf_report() { $perf report --stdio --no-inline -i perf.data >/dev/null 2>&1; }
read -r sr_t sr_m <<<"$(measure_median sonde_report)"
read -r pr_t pr_m <<<"$(measure_median perf_report)"
s_opens=$(node_opens "$sonde" report -i sonde.data)
p_opens=$(node_opens $perf report --stdio --no-inline -i perf.data)
read -r s_ok s_n <<<"$("$sonde" script -F ip,sym,dso -i sonde.data 2>/dev/null | roots)"
read -r p_ok p_n <<<"$($perf script --no-inline -F ip,sym,dso -i perf.data 2>/dev/null | roots)"
read -r ps_ok ps_n <<<"$($perf script --no-inline -F ip,sym,dso -i sonde.data 2>/dev/null | roots)"
old_row=""
if [[ -n $old ]]; then
  old_report() { "$old" report -i sonde.data >/dev/null 2>&1; }
  read -r or_t or_m <<<"$(measure_median old_report)"
  o_opens=$(node_opens "$old" report -i sonde.data)
  read -r o_ok o_n <<<"$("$old" script -F ip,sym,dso -i sonde.data 2>/dev/null | roots)"
  old_row="| sonde before (OLD_SONDE), same recording | $or_t s, $or_m MB | $o_opens | $o_ok of $o_n ($(awk -v a="$o_ok" -v b="$o_n" 'BEGIN{printf "%.1f", 100*a/b}')%) |"
fi
pct() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.1f", 100*a/(b>0?b:1)}'; }

# 2. A script compiling $funcs functions (each called enough for Sparkplug
#    with --always-sparkplug: one code load per function, and more as hot
#    ones tier up).
python3 - "$funcs" >many.js <<'PY'
import sys
n = int(sys.argv[1])
for i in range(n):
    print(f"function f{i}(x) {{ let s = {i}; for (let j = 0; j < 50; j++) s = (s * 31 + x + j) % 1000003; return s; }}")
print("const fs = [" + ", ".join(f"f{i}" for i in range(n)) + "];")
print("let acc = 0; const end = Date.now() + 1500;")
print("while (Date.now() < end) for (const f of fs) acc += f(acc & 1023);")
print("console.log(acc > 0 ? 'ok' : 'zero');")
PY
"$sonde" record -q -g -o sonde-jit.data -- node --perf-prof --always-sparkplug many.js >/dev/null
rm -f jit-*.dump
$perf record -q -k mono -g -o perf-jit.data -- node --perf-prof --always-sparkplug many.js >/dev/null 2>&1
loads=$(python3 - jit-*.dump <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read(); off = 40; n = 0
while off + 16 <= len(b):
    rid, size, _ = struct.unpack_from("<IIQ", b, off)
    if size < 16: break
    n += rid == 0; off += size
print(n)
PY
)
sonde_jit_report() { "$sonde" report -i sonde-jit.data >/dev/null 2>&1; }
perf_inject() { $perf inject --jit -i perf-jit.data -o perf-injected.data >/dev/null 2>&1; }
perf_jit_report() { $perf report --stdio --no-inline -i perf-injected.data >/dev/null 2>&1; }
read -r sj_t sj_m <<<"$(measure_median sonde_jit_report)"
read -r pi_t pi_m <<<"$(measure_median perf_inject)"
read -r pj_t pj_m <<<"$(measure_median perf_jit_report)"
sos=$(find "$scratch" -maxdepth 1 -name 'jitted-*.so' | wc -l)
s_top=$("$sonde" report --stdio -q --no-children -i sonde-jit.data 2>/dev/null | head -1 | sed 's/  */ /g' || true)
p_top=$($perf report --stdio -q --no-inline --no-children -i perf-injected.data 2>/dev/null | head -1 | sed 's/  */ /g' || true)
total_perf=$(awk -v a="$pi_t" -v b="$pj_t" 'BEGIN{printf "%.4f", a + b}')

out=$scratch/section.md
{
  echo "\`bench/jit.sh\` on $(uname -r), $(node --version), $(date -u +%F); medians of $runs runs."
  echo
  echo "**\`--call-graph dwarf\` of \`node tests/fixtures/jit_hot.js 2000\`** (a JS hot loop; V8's JIT code and its builtins have no CFI). Each tool reads its own recording (perf: the same script recorded by \`perf record --call-graph dwarf\`); \"opens\" counts the openat calls of the node binary (or its cached copy) during the report."
  echo
  echo "| reader | report time, peak RSS | opens of node | samples reaching _start / __libc_start_main |"
  echo "|---|---|---|---|"
  echo "| sonde | $sr_t s, $sr_m MB | $s_opens | $s_ok of $s_n ($(pct "$s_ok" "$s_n")%) |"
  [[ -n $old_row ]] && echo "$old_row"
  echo "| perf 6.1, its own recording | $pr_t s, $pr_m MB | $p_opens | $p_ok of $p_n ($(pct "$p_ok" "$p_n")%) |"
  echo "| perf 6.1, sonde's recording | | | $ps_ok of $ps_n ($(pct "$ps_ok" "$ps_n")%) |"
  echo
  echo "**A jitdump of $funcs functions** (\`node --perf-prof --always-sparkplug\`, $loads JIT_CODE_LOAD records): sonde reads the dump at report time; perf needs \`perf record -k mono\`, then \`perf inject --jit\` (one ELF file per function: $sos \`jitted-*.so\` written), then \`perf report\`."
  echo
  echo "| step | sonde | perf 6.1 | perf / sonde |"
  echo "|---|---|---|---|"
  echo "| inject | — | $pi_t s, $pi_m MB | |"
  echo "| report | $sj_t s, $sj_m MB | $pj_t s, $pj_m MB | $(ratio "$pj_t" "$sj_t") |"
  echo "| from recording to report | $sj_t s | $total_perf s | $(ratio "$total_perf" "$sj_t") |"
  echo
  echo "Top rows: sonde \`$s_top\`; perf \`$p_top\`."
} >"$out"
cat "$out"
[[ $write_docs == --write-docs ]] && write_section "$here/docs/benchmarks.md" jit "JIT code (node)" "$out"
exit 0
