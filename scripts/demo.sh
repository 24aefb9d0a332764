#!/usr/bin/env bash
# Quick start (a): install dependencies, build, then profile the bundled demo
# workload and show the result.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
out=build/demo.data
echo "== sonde record -g -o $out -- build/demo/sonde-demo-workload 1"
build/cli/sonde record -g -o "$out" -- build/demo/sonde-demo-workload 1
if build/cli/sonde report --help >/dev/null 2>&1; then
  echo "== sonde report -i $out"
  build/cli/sonde report -i "$out" | head -30
else
  echo "== sonde script -i $out (first lines)"
  build/cli/sonde script -i "$out" | head -30
fi
