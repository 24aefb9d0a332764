#!/bin/bash
# SDT benchmark: sonde vs perf 6.1 on a generated binary with 1000 probes
# (tests/fixtures/sdt_many.c).
#   1. listing: `sonde sdt list BIN`  vs  `perf buildid-cache --add BIN` + `perf list sdt`
#   2. setting up the probes: sonde (one uprobe_multi link, in `sonde record`)
#      vs `perf probe` (one tracefs uprobe event per site)
# perf always runs with a scratch --buildid-dir; its probes are deleted by
# their exact group (sdt_many) on every way out.
# Usage: bench/sdt.sh [SONDE_BIN] [--write-docs]   (root, tracefs mounted)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/build/cli/sonde}
write_docs=${2:-}
runs=${RUNS:-5}
scratch=$(mktemp -d /tmp/sonde-sdt-bench.XXXXXX)
cleanup() {
  perf probe -q -d 'sdt_many:*' >/dev/null 2>&1 || true
  rm -rf "$scratch"
}
trap cleanup EXIT INT TERM
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
if grep -q '^[pr]:sdt_many/' /sys/kernel/tracing/uprobe_events; then
  echo "sdt_many probes already exist; refusing to touch them" >&2
  exit 1
fi

bin=$scratch/many
gcc -O2 -o "$bin" "$here/tests/fixtures/sdt_many.c"
sites=$(readelf -n "$bin" | grep -c 'Provider: many')

now() { date +%s%N; }
# median of $runs runs of a command, in ms
time_ms() {
  local samples=()
  for ((i = 0; i < runs; i++)); do
    local t0; t0=$(now)
    "$@" >/dev/null 2>&1
    samples+=($(( ($(now) - t0) / 1000 )))
  done
  printf '%s\n' "${samples[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}'
}

perf_list() {
  rm -rf "$scratch/perfcache"
  perf --buildid-dir "$scratch/perfcache" buildid-cache --add "$bin"
  perf --buildid-dir "$scratch/perfcache" list sdt
}
sonde_list() { "$sonde" sdt list "$bin" --buildid-dir "$scratch/sondecache"; }

n_sonde=$(sonde_list | wc -l)
n_perf=$(perf_list 2>/dev/null | grep -c 'sdt_many:' || true)
t_sonde_list=$(time_ms sonde_list)
t_perf_list=$(time_ms perf_list)

# Setting up every probe. sonde: a whole `sonde record` of /bin/true with all
# 1000 probes pinned (@BIN), i.e. BPF load + link create + teardown + the
# recorder itself; the baseline is the same recording without probes.
sonde_rec() { SONDE_BUILDID_DIR=$scratch/sondecache "$sonde" record -q -e "%many:*@$bin" -o "$scratch/out.data" -- /bin/true; }
sonde_rec_base() { "$sonde" record -q -e cpu-clock -o "$scratch/out0.data" -- /bin/true; }
t_sonde_rec=$(time_ms sonde_rec)
t_sonde_base=$(time_ms sonde_rec_base)
# The extension's own attach/detach figures (GoogleTest scale test), if built.
scale=""
tp=$(dirname "$(dirname "$sonde")")/tests/probe/test_probe
if [[ -x $tp ]]; then
  scale=$("$tp" --gtest_filter='SdtScale.*' 2>/dev/null | grep '\[sdt-scale\]' || true)
fi

# perf: define the probes (perf probe), then delete them. --max-probes is
# raised: perf refuses more than 128 sites by default.
perf_probe_add() {
  perf --buildid-dir "$scratch/perfcache" probe -q --max-probes 4096 -x "$bin" -a 'sdt_many:*'
}
perf_probe_del() { perf probe -q -d 'sdt_many:*'; }
perf --buildid-dir "$scratch/perfcache" buildid-cache --add "$bin" >/dev/null 2>&1
t_perf_add_samples=()
t_perf_del_samples=()
perf_events=0
perf_ok=yes
for ((i = 0; i < 3; i++)); do
  t0=$(now)
  if ! perf_probe_add >"$scratch/perf_probe.log" 2>&1; then perf_ok="no: $(tail -1 "$scratch/perf_probe.log")"; fi
  t1=$(now)
  perf_events=$(grep -c '^p:sdt_many/' /sys/kernel/tracing/uprobe_events || true)
  perf_probe_del >/dev/null 2>&1 || true
  t2=$(now)
  t_perf_add_samples+=($(( (t1 - t0) / 1000 )))
  t_perf_del_samples+=($(( (t2 - t1) / 1000 )))
done
med() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}'; }
t_perf_add=$(med "${t_perf_add_samples[@]}")
t_perf_del=$(med "${t_perf_del_samples[@]}")
# The whole perf route for recording, on 100 of the probes (p000..p099):
# define, `perf record` (one tracefs event per site, opened per CPU), delete.
# Closing uprobe perf events is what costs (~80 ms each, serialized).
perf_record_100() {
  perf --buildid-dir "$scratch/perfcache" probe -q --max-probes 4096 -x "$bin" -a 'sdt_many:p0*' &&
    timeout 600 perf record -q -o "$scratch/perf.data" -e 'sdt_many:p0*' -- "$bin" 1;
  local rc=$?
  perf_probe_del
  return $rc
}
sonde_record_100() { SONDE_BUILDID_DIR=$scratch/sondecache "$sonde" record -q -e "%many:p0*" -o "$scratch/out100.data" -- "$bin" 1; }
t0=$(now); perf_record_100 >/dev/null 2>&1 || true; t_perf_rec100=$(awk "BEGIN{printf \"%.1f\", $(( ($(now) - t0) / 1000 ))/1000}")
t_sonde_rec100=$(time_ms sonde_record_100)
t_sonde_version=$(time_ms "$sonde" --version)
left=$(grep -c '^p:sdt_many/' /sys/kernel/tracing/uprobe_events || true)

report=$(cat <<EOT
## SDT

\`bench/sdt.sh\` on $(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%d): a generated binary with $sites probe sites
(\`tests/fixtures/sdt_many.c\`), median of $runs runs (perf probe: 3). perf $(perf version 2>/dev/null | awk '{print $3}') with a scratch \`--buildid-dir\`.

| task | sonde | perf | ratio |
|---|---|---|---|
| list the probes (\`sonde sdt list BIN\` vs \`perf buildid-cache --add\` + \`perf list sdt\`) | $t_sonde_list ms ($n_sonde sites) | $t_perf_list ms ($n_perf names) | $(awk "BEGIN{printf \"%.1fx\", $t_perf_list/$t_sonde_list}") |
| set up all probes (sonde: whole \`sonde record -e '%many:*@BIN' -- /bin/true\`, attach + detach included; perf: \`perf probe -x BIN 'sdt_many:*'\`, definition only) | $t_sonde_rec ms (record without probes: $t_sonde_base ms) | $t_perf_add ms ($perf_events events; ok: $perf_ok) | $(awk "BEGIN{printf \"%.1fx\", $t_perf_add/$t_sonde_rec}") |
| remove them (perf: \`perf probe -d 'sdt_many:*'\`; sonde: part of the row above) | — | $t_perf_del ms | |
| record 100 of the probes end to end (define, record \`BIN 1\`, tear down, delete) | $t_sonde_rec100 ms | $t_perf_rec100 ms | $(awk "BEGIN{printf \"%.0fx\", $t_perf_rec100/$t_sonde_rec100}") |

\`sonde --version\` alone takes $t_sonde_version ms here (process start-up: the binary loads ~40 shared
libraries), which is most of sonde's listing time.

Extension-level figures (attach = BPF load + site map + one uprobe_multi link; detach = closing it): ${scale:-not measured (tests/probe/test_probe not built)}.
perf probes left after the run: $left. perf only *defines* tracefs events here; recording them adds one
perf event per site and CPU, each costing ~80 ms to release (docs/sdt.md).
EOT
)
echo "$report"
if [[ $write_docs == --write-docs ]]; then
  doc=$here/docs/benchmarks.md
  mkdir -p "$here/docs"
  [[ -f $doc ]] || printf '# Benchmarks\n' >"$doc"
  # Replace our section (from "## SDT" to the next "## " heading) or append it.
  python3 - "$doc" "$report" <<'PY'
import re, sys
path, section = sys.argv[1], sys.argv[2].rstrip("\n") + "\n"
text = open(path).read()
m = re.search(r"^## SDT\n.*?(?=^## |\Z)", text, flags=re.S | re.M)
if m:
    text = text[:m.start()] + section + ("\n" if m.end() < len(text) else "") + text[m.end():]
else:
    text = text.rstrip("\n") + "\n\n" + section
open(path, "w").write(text)
PY
fi
