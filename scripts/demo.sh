#!/usr/bin/env bash
# Quick start (a): install dependencies, build, then profile the bundled demo
# workload and show the result. DWARF call chains, so the stacks through
# libc (built without frame pointers) reach main; -z keeps the file small.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
out=build/demo.data
echo "== sonde record -z --call-graph dwarf -o $out -- build/demo/sonde-demo-workload 1"
build/cli/sonde record -z --call-graph dwarf -o "$out" -- build/demo/sonde-demo-workload 1
echo "== sonde report -i $out"
build/cli/sonde report -i "$out" | head -30
