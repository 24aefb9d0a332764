#!/usr/bin/env bash
# Quick start (a): install what building and running sonde need, build the
# CLI and the demo workload only (the suite is scripts/test.sh), then
# profile the demo and show the result. DWARF call chains, so the stacks
# through libc (built without frame pointers) reach main; -z keeps the file
# small. Cold on a fresh Debian 12 VM (2 cores): see README.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --build
# Release, no debug info: the quickest build from nothing, and the tree
# scripts/test.sh builds its second configuration in, so it is reused there.
b=build-release
BUILD_DIR=$b BUILD_TYPE=Release SONDE_TARGETS="sonde sonde-demo-workload" scripts/build.sh -DBUILD_TESTING=OFF
out=$b/demo.data
echo "== sonde record -z --call-graph dwarf -o $out -- $b/demo/sonde-demo-workload 1"
$b/cli/sonde record -z --call-graph dwarf -o "$out" -- $b/demo/sonde-demo-workload 1
echo "== sonde report -i $out"
# sed, not head: head exits after 30 lines and, with pipefail, the report's
# SIGPIPE would fail the demo.
$b/cli/sonde report -i "$out" | sed -n 1,30p
