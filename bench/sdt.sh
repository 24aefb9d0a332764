#!/bin/bash
# SDT benchmark: sonde vs perf 6.1 on a generated binary with 1000 probes
# (tests/fixtures/sdt_many.c).
#   1. listing: `sonde sdt list BIN`  vs  `perf buildid-cache --add BIN` + `perf list sdt`
#   2. setting up N probes (N = 1000 and 100): sonde's attach time (BPF load,
#      site table, one uprobe_multi link: the extension's own figure, printed
#      with SONDE_SDT_TIMING=1) vs `perf probe` defining the same N probes
#      (one tracefs uprobe event per site)
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
  if [[ -n ${rcu_was:-} ]]; then echo "$rcu_was" >/sys/kernel/rcu_expedited; fi
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

# Wall clock in ns without forking date(1) (a fork+exec costs ~1-2 ms,
# which used to be counted in every sonde figure).
now() { local t=${EPOCHREALTIME/./}; echo $((10#$t * 1000)); }
# median of $runs runs of a command, in ms
time_ms() {
  local samples=()
  for ((i = 0; i < runs; i++)); do
    local t0=${EPOCHREALTIME/./}
    "$@" >/dev/null 2>&1
    local t1=${EPOCHREALTIME/./}
    samples+=($((10#$t1 - 10#$t0)))
  done
  printf '%s\n' "${samples[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}'
}
# median of numbers (ms) given as arguments
med_ms() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]}'; }

# Cold: a cache folder never used before, every run (a new name rather than
# an `rm -rf` inside the timed part, which forked a process per run and
# added ~1 ms to both tools' figures). Warm: the binary is cached already.
cold_runs=0
perf_list() {
  cold_runs=$((cold_runs + 1))
  perf --buildid-dir "$scratch/perfcold$cold_runs" buildid-cache --add "$bin"
  perf --buildid-dir "$scratch/perfcold$cold_runs" list sdt
}
sonde_list() { cold_runs=$((cold_runs + 1)); "$sonde" sdt list "$bin" --buildid-dir "$scratch/sondecold$cold_runs"; }
sonde_list_warm() { "$sonde" sdt list "$bin" --buildid-dir "$scratch/sondecache"; }
perf_list_warm() { perf --buildid-dir "$scratch/perfwarm" list sdt; }
perf --buildid-dir "$scratch/perfwarm" buildid-cache --add "$bin" >/dev/null 2>&1

"$sonde" sdt add "$bin" --buildid-dir "$scratch/sondecache" >/dev/null 2>&1
n_sonde=$(sonde_list | wc -l)
n_perf=$(perf_list 2>/dev/null | grep -c 'sdt_many:' || true)
sonde_list_warm >/dev/null
t_sonde_list=$(time_ms sonde_list)
t_perf_list=$(time_ms perf_list)
t_sonde_list_warm=$(time_ms sonde_list_warm)
t_perf_list_warm=$(time_ms perf_list_warm)

# Setting up every probe. sonde: a whole `sonde record` of /bin/true with all
# 1000 probes pinned (@BIN), i.e. BPF load + link create + teardown + the
# recorder itself; the baseline is the same recording without probes.
sonde_rec() { SONDE_BUILDID_DIR=$scratch/sondecache "$sonde" record -q -e "%many:*@$bin" -o "$scratch/out.data" -- /bin/true; }
sonde_rec_base() { "$sonde" record -q -e cpu-clock -o "$scratch/out0.data" -- /bin/true; }
t_sonde_rec=$(time_ms sonde_rec)
t_sonde_base=$(time_ms sonde_rec_base)
# The extension's own setup of N probes, from its SONDE_SDT_TIMING line:
# "attach X ms (bpf load A, ..., uprobe_multi links L); detach Y ms".
# Sets attach_N / detach_N / load_N / link_N (medians of $runs runs).
sonde_attach() {  # $1 = N, $2 = spec
  local a=() d=() l=() k=() line
  for ((i = 0; i < runs; i++)); do
    line=$(SONDE_SDT_TIMING=1 SONDE_BUILDID_DIR=$scratch/sondecache "$sonde" record -q -N -e "$2" \
             -o "$scratch/outN.data" -- /bin/true 2>&1 >/dev/null | grep 'sdt timing' || true)
    a+=($(sed -n 's/.* attach \([0-9.]*\) ms.*/\1/p' <<<"$line"))
    d+=($(sed -n 's/.* detach \([0-9.]*\) ms.*/\1/p' <<<"$line"))
    l+=($(sed -n 's/.*bpf load \([0-9.]*\),.*/\1/p' <<<"$line"))
    k+=($(sed -n 's/.*uprobe_multi links \([0-9.]*\)).*/\1/p' <<<"$line"))
  done
  printf -v "attach_$1" '%s' "$(med_ms "${a[@]}")"
  printf -v "detach_$1" '%s' "$(med_ms "${d[@]}")"
  printf -v "load_$1" '%s' "$(med_ms "${l[@]}")"
  printf -v "link_$1" '%s' "$(med_ms "${k[@]}")"
}
sonde_attach 1000 "%many:*@$bin"
sonde_attach 100 "%many:p0*@$bin"
# The same 1000 with expedited RCU grace periods (/sys/kernel/rcu_expedited,
# a system-wide setting that sonde itself never changes): shows how much of
# the set-up is the kernel's grace period. Restored right after.
attach_1000x=n/a link_1000x=n/a load_1000x=n/a detach_1000x=n/a
if [[ -w /sys/kernel/rcu_expedited ]]; then
  rcu_was=$(cat /sys/kernel/rcu_expedited)
  echo 1 >/sys/kernel/rcu_expedited
  sonde_attach 1000x "%many:*@$bin"
  echo "$rcu_was" >/sys/kernel/rcu_expedited
fi
# Time to live: from invoking the tool(s) until the workload runs with the
# probes in place (the workload prints the time it starts). sonde: one
# command; perf: perf probe, then perf record (its events are live when it
# starts the workload).
t_ns() { local t=${EPOCHREALTIME/./}; echo "${t}000"; }
sonde_live_samples=()
for ((i = 0; i < runs; i++)); do
  t0=$(t_ns)
  t1=$(SONDE_BUILDID_DIR=$scratch/sondecache "$sonde" record -q -e "%many:p0*@$bin" -o "$scratch/live.data" -- date +%s%N 2>/dev/null)
  sonde_live_samples+=($(( (t1 - t0) / 1000 )))
done
t_sonde_live=$(printf '%s\n' "${sonde_live_samples[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}')
# The extension's own attach/detach figures (GoogleTest scale test), if built.
scale=""
tp=$(dirname "$(dirname "$sonde")")/tests/probe/test_probe
if [[ -x $tp ]]; then
  scale=$("$tp" --gtest_filter='SdtScale.*' 2>/dev/null | grep '\[sdt-scale\]' || true)
fi

# perf: define the probes (perf probe), then delete them. --max-probes is
# raised: perf refuses more than 128 sites by default.
perf_probe_add() {  # $1 = event glob
  perf --buildid-dir "$scratch/perfcache" probe -q --max-probes 4096 -x "$bin" -a "sdt_many:${1:-*}"
}
perf_probe_del() { perf probe -q -d 'sdt_many:*'; }
perf --buildid-dir "$scratch/perfcache" buildid-cache --add "$bin" >/dev/null 2>&1
t_perf_add_samples=()
t_perf_del_samples=()
perf_events=0
perf_ok=yes
for ((i = 0; i < runs; i++)); do
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
# The same for 100 of the probes (p000..p099).
t_perf_add100_samples=()
perf_events100=0
for ((i = 0; i < runs; i++)); do
  t0=$(now)
  perf_probe_add 'p0*' >/dev/null 2>&1 || true
  t1=$(now)
  perf_events100=$(grep -c '^p:sdt_many/' /sys/kernel/tracing/uprobe_events || true)
  perf_probe_del >/dev/null 2>&1 || true
  t_perf_add100_samples+=($(( (t1 - t0) / 1000 )))
done
t_perf_add100=$(med "${t_perf_add100_samples[@]}")
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
# perf's time to live for the same 100 probes (once: its teardown takes ~10 s).
t0=$(t_ns)
t1=$({ perf --buildid-dir "$scratch/perfcache" probe -q --max-probes 4096 -x "$bin" -a 'sdt_many:p0*' >/dev/null 2>&1 &&
       timeout 600 perf record -q -o "$scratch/perf_live.data" -e 'sdt_many:p0*' -- date +%s%N 2>/dev/null; } | tail -1)
perf_probe_del >/dev/null 2>&1 || true
t_perf_live=$(awk "BEGIN{printf \"%.1f\", $(( (${t1:-$t0} - t0) / 1000 ))/1000}")
t_sonde_rec100=$(time_ms sonde_record_100)
t_sonde_version=$(time_ms "$sonde" --version)
left=$(grep -c '^p:sdt_many/' /sys/kernel/tracing/uprobe_events || true)

ratio() { awk "BEGIN{printf \"%.1fx\", $1/$2}"; }
report=$(cat <<EOT
## SDT

\`bench/sdt.sh\` on $(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%d): a generated binary with $sites probe sites
(\`tests/fixtures/sdt_many.c\`), median of $runs runs. perf $(perf version 2>/dev/null | awk '{print $3}') with a scratch \`--buildid-dir\`.
Times are wall clock from bash's \`EPOCHREALTIME\` (no fork per measurement).

| task | sonde | perf | ratio |
|---|---|---|---|
| list the probes, cold (\`sonde sdt list BIN\` with an empty cache vs \`perf buildid-cache --add\` + \`perf list sdt\`) | $t_sonde_list ms ($n_sonde sites) | $t_perf_list ms ($n_perf names) | $(ratio $t_perf_list $t_sonde_list) |
| list the probes, warm (binary already cached; perf: \`perf list sdt\` alone) | $t_sonde_list_warm ms | $t_perf_list_warm ms | $(ratio $t_perf_list_warm $t_sonde_list_warm) |
| set up 1000 probes (sonde: attach from \`SONDE_SDT_TIMING\` = resolve + BPF load + outputs + site table + the one uprobe_multi link, whose creation overlaps the load; "link" = the wait left after that; perf: \`perf probe -x BIN 'sdt_many:*'\`) | $attach_1000 ms (BPF load $load_1000, link $link_1000) | $t_perf_add ms ($perf_events events; ok: $perf_ok) | $(ratio $t_perf_add $attach_1000) |
| set up 100 probes (\`p0*\`, same measures) | $attach_100 ms (BPF load $load_100, link $link_100) | $t_perf_add100 ms ($perf_events100 events) | $(ratio $t_perf_add100 $attach_100) |
| set up 1000 probes with \`/sys/kernel/rcu_expedited\` = 1 (system-wide; sonde never sets it; the bench restores it) | $attach_1000x ms (BPF load $load_1000x, link $link_1000x) | $t_perf_add ms (as above) | $( [[ $attach_1000x == n/a ]] && echo n/a || ratio $t_perf_add $attach_1000x) |
| time to live: from the command until the workload starts with 100 probes in place (sonde: \`sonde record -e '%many:p0*@BIN' -- date\`; perf: \`perf probe\` + \`perf record -e 'sdt_many:p0*' -- date\`) | $t_sonde_live ms | $t_perf_live ms | $(ratio $t_perf_live $t_sonde_live) |
| remove them (sonde: closing the link; perf: \`perf probe -d 'sdt_many:*'\`) | $detach_1000 ms (100: $detach_100 ms) | $t_perf_del ms | $(ratio $t_perf_del $detach_1000) |
| whole \`sonde record -e '%many:*@BIN' -- /bin/true\` (attach + detach + recorder) | $t_sonde_rec ms (same record without probes: $t_sonde_base ms) | — | |
| record 100 of the probes end to end (define, record \`BIN 1\`, tear down, delete) | $t_sonde_rec100 ms | $t_perf_rec100 ms | $(awk "BEGIN{printf \"%.0fx\", $t_perf_rec100/$t_sonde_rec100}") |

\`sonde --version\` alone takes $t_sonde_version ms here (process start-up), most of sonde's listing time.
sonde's link creation is mostly one RCU grace period (the kernel's uprobe_register takes the
\`dup_mmap_sem\` percpu rw-semaphore for writing), so it varies with the machine's load; its
teardown waits for RCU-tasks-trace and SRCU grace periods.

Extension-level figures from the GoogleTest scale test (records \`many 2\`): ${scale:-not measured (tests/probe/test_probe not built)}.
perf probes left after the run: $left. perf only *defines* tracefs events here; recording them adds one
perf event per site and CPU, each costing ~80 ms to release (docs/sdt.md).
EOT
)
echo "$report"
if [[ $write_docs == --write-docs ]]; then
  source "$here/bench/lib.sh"
  printf '%s\n' "$report" | sed '1{/^## SDT$/d}' | sed '1{/^$/d}' >"$scratch/section.md"
  write_section "$here/docs/benchmarks.md" sdt "SDT" "$scratch/section.md"
fi
