#!/usr/bin/env bash
# Runs the benchmarks against perf 6.1 and writes their sections of
# docs/benchmarks.md. Each area has its own script (bench/<area>.sh taking
# SONDE_BIN and --write-docs); with no argument only the recorder's runs.
# Usage: bench/run.sh [SONDE_BIN] [--all]   (root)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sonde=${1:-$here/build/cli/sonde}
[[ -x $sonde ]] || { echo "bench/run.sh: build sonde first ($sonde not found)" >&2; exit 1; }
"$here/bench/record.sh" "$sonde" --write-docs
if [[ ${2:-} == --all ]]; then
  for s in "$here"/bench/*.sh; do
    case $(basename "$s") in run.sh | record.sh | lib.sh) continue ;; esac
    "$s" "$sonde" --write-docs
  done
fi
