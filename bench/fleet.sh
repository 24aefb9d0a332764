#!/bin/bash
# Fleet store benchmark (issue 30): sonde push's throughput into ClickHouse
# and readers' query latency over many simulated hosts.
# One recording of bench/ work (the demo workload at a high rate, with call
# chains) is pushed HOSTS times, each as another --host (rows are per host),
# until TOTAL samples are stored; then `sonde report -i clickhouse://...` over
# the whole fleet, one host, and a glob of ten hosts, RUNS times each (median).
# Prints samples/s and bytes sent per sample (RowBinary, before HTTP), and
# query seconds. A private clickhouse-server is started on free ports with its
# data in a scratch folder and stopped by pid at the end.
# Usage: bench/fleet.sh [SONDE_BIN] [--write-docs]   (root: it records)
#   TOTALS="1000000 10000000" HOSTS=100 RUNS=3
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/build/cli/sonde}
demo=$(dirname "$sonde")/../demo/sonde-demo-workload
write_docs=${2:-}
runs=${RUNS:-3}
hosts=${HOSTS:-100}
totals=${TOTALS:-"1000000 10000000"}
source "$here/bench/lib.sh"
scratch=$(mktemp -d /tmp/sonde-fleet-bench.XXXXXX)
ch_pid=
cleanup() {
  [[ -n $ch_pid ]] && kill "$ch_pid" 2>/dev/null && wait "$ch_pid" 2>/dev/null || true
  rm -rf "$scratch"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
http=$(free_port); tcp=$(free_port)
mkdir -p "$scratch/ch"
cat >"$scratch/ch/config.xml" <<XML
<yandex><logger><level>warning</level><log>$scratch/ch/server.log</log><errorlog>$scratch/ch/error.log</errorlog><console>0</console></logger>
<http_port>$http</http_port><tcp_port>$tcp</tcp_port><listen_host>127.0.0.1</listen_host>
<path>$scratch/ch/data/</path><tmp_path>$scratch/ch/tmp/</tmp_path><user_files_path>$scratch/ch/uf/</user_files_path>
<users_config>$scratch/ch/users.xml</users_config><default_profile>default</default_profile><default_database>default</default_database>
<mark_cache_size>268435456</mark_cache_size></yandex>
XML
cat >"$scratch/ch/users.xml" <<XML
<yandex><profiles><default></default></profiles><users><default><password></password><networks><ip>127.0.0.1</ip></networks>
<profile>default</profile><quota>default</quota></default></users><quotas><default></default></quotas></yandex>
XML
clickhouse-server --config-file="$scratch/ch/config.xml" >"$scratch/ch/stdout" 2>&1 &
ch_pid=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$http/?query=SELECT%201" >/dev/null && break; sleep 0.2; done
q() { curl -sf --data-binary "$1" "http://127.0.0.1:$http/"; }

# One recording: ~1 s of the demo workload at 10 kHz with call chains.
"$sonde" record -q -F 10000 -g -o "$scratch/one.data" -- "$demo" >/dev/null 2>&1
per_push=$("$sonde" push -i "$scratch/one.data" --to "clickhouse://127.0.0.1:$http/probe" --host probe --start 1000000000 2>&1 |
  sed -n 's/.*: \([0-9]*\) samples in .*/\1/p')
out=$scratch/section.md
{
  echo "Build: RelWithDebInfo (scripts/build.sh). ClickHouse 18.16 (Debian 12) on the same 2-core VM. One recording of"
  echo "the demo workload ($per_push samples, call chains) pushed as $hosts hosts, repeatedly (other --start) until the total."
  echo "A push is the whole \`sonde push\`: read, symbolize, aggregate per 60 s bucket, send. Load average at the start:"
  echo "$(cut -d' ' -f1-3 /proc/loadavg) (other sessions share the 2 cores)."
  echo
  echo "| samples stored | pushes | push samples/s | bytes sent/sample | rows/sample | report, whole fleet (s) | report, one host (s) | report, host glob of 10 (s) |"
  echo "|---|---|---|---|---|---|---|---|"
} >"$out"
for total in $totals; do
  db=fleet$total
  pushes=$(( (total + per_push - 1) / per_push ))
  bytes=0; samples=0
  t0=$EPOCHREALTIME
  for ((i = 0; i < pushes; i++)); do
    line=$("$sonde" push -i "$scratch/one.data" --to "clickhouse://127.0.0.1:$http/$db" --host "h-$((i % hosts))" \
      --start $((1700000000 + (i / hosts) * 60)) 2>&1)
    samples=$((samples + $(sed -n 's/.*: \([0-9]*\) samples in .*/\1/p' <<<"$line")))
    bytes=$((bytes + $(sed -n 's/.* \([0-9]*\) bytes to .*/\1/p' <<<"$line")))
  done
  t1=$EPOCHREALTIME
  rows=$(q "SELECT count() FROM $db.sonde_samples")
  url="clickhouse://127.0.0.1:$http/$db"
  # The URL written into each function: measure_once reruns it in a fresh
  # shell (for its peak RSS) that knows only sonde, rec, demo and scratch.
  eval "all() { \"\$sonde\" report -i '$url' >/dev/null; }"
  eval "one() { \"\$sonde\" report -i '$url?host=h-7' >/dev/null; }"
  eval "glob() { \"\$sonde\" report -i '$url?host=h-1?' >/dev/null; }"
  ta=$(measure_median all | cut -d' ' -f1); to=$(measure_median one | cut -d' ' -f1); tg=$(measure_median glob | cut -d' ' -f1)
  awk -v s="$samples" -v p="$pushes" -v t0="$t0" -v t1="$t1" -v b="$bytes" -v r="$rows" -v ta="$ta" -v to="$to" -v tg="$tg" \
    'BEGIN { printf "| %d | %d | %.0f | %.2f | %.3f | %s | %s | %s |\n", s, p, s / (t1 - t0), b / s, r / s, ta, to, tg }' >>"$out"
done
cat "$out"
[[ $write_docs == --write-docs ]] && write_section "$here/docs/benchmarks.md" fleet "Fleet store: push and query (bench/fleet.sh)" "$out"
exit 0
