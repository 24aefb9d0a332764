#!/usr/bin/env bash
# Quick start (b): the whole test suite. Installs dependencies if missing,
# builds, then runs every test under ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh -DBUILD_TESTING=ON
# A second configuration, Release (-O3), for the CLI: gcc warns differently
# at each optimisation level, and a packager's build must not break unseen.
BUILD_DIR=build-release BUILD_TYPE=Release SONDE_TARGETS="sonde sonde-demo-workload" scripts/build.sh -DBUILD_TESTING=OFF
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
# The KernelAbi check builds sources again from ctest: the same ccache
# settings as build.sh let it reuse what is unchanged.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=pch_defines,time_macros
cd build
# Two at a time on this 2-core machine; tests that load every CPU are
# RUN_SERIAL. Narrow with ctest's own flags: scripts/test.sh -L unit,
# -LE browser, -R Name.
ctest --output-on-failure --timeout 900 -j2 "$@"
