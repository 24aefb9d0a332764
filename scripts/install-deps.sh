#!/usr/bin/env bash
# Installs what sonde needs on Debian 12 (as root), from Debian's packages.
#   scripts/install-deps.sh --build   building and running sonde (the demo)
#   scripts/install-deps.sh           that, plus what the test suite needs
# Idempotent: installs only what is missing; apt-get update runs only then.
set -euo pipefail
BUILD_PACKAGES=(
  build-essential cmake ninja-build pkg-config xxd clang
  libelf-dev libdw-dev libdebuginfod-dev libzstd-dev zlib1g-dev liblzma-dev
  libfmt-dev libcli11-dev nlohmann-json3-dev libprotozero-dev libbpf-dev
  libcapstone-dev  # sonde annotate disassembles with capstone (loaded on first use)
)
# The suite's oracles and tools: perf 6.1, readelf/eu-* and a debuginfod
# server, GoogleTest/Benchmark, sys/sdt.h for the fixtures, the sanitizer and
# libFuzzer runtimes (scripts/fuzz.sh), go (pprof), Chromium (the page),
# npm packages (tests/convert/js), tmux (top), man-db and dpkg-dev (package).
TEST_PACKAGES=(
  git ccache elfutils debuginfod linux-perf binutils tmux man-db dpkg-dev
  xz-utils gzip coreutils  # test-only: the real programs bench/report_real.sh records
  libgtest-dev libgmock-dev libbenchmark-dev systemtap-sdt-dev
  llvm libclang-rt-14-dev golang-go chromium chromium-driver nodejs
  # test-only: the fleet store the clickhouse-labelled tests start (docs/fleet.md)
  clickhouse-server clickhouse-client
  protobuf-compiler  # test-only: protoc decodes convert --to otlp against the OTLP profiles schema (tests/fleet)
  bpftrace  # test-only: bench/probe.sh compares sonde's one-step probes with bpftrace 0.17
  iputils-ping  # test-only: perf's record+probe_libc_inet_pton.sh (docs/probe.md) probes ping
)
packages=("${BUILD_PACKAGES[@]}")
[ "${1:-}" = "--build" ] || packages+=("${TEST_PACKAGES[@]}")

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
missing=()
for p in "${packages[@]}"; do
  [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" == *"ok installed"* ]] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[ "${1:-}" = "--build" ] && exit 0

# Export tests: npm (Debian's package unless node already bundles it), then
# the pinned Node packages (playwright-core, ajv, speedscope's schema) once.
if ! command -v npm >/dev/null; then
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends npm >/dev/null
fi
js_dir="$(cd "$(dirname "$0")/.." && pwd)/tests/convert/js"
if [ -f "$js_dir/package-lock.json" ] && [ ! -d "$js_dir/node_modules" ]; then
  (cd "$js_dir" && npm ci --no-audit --no-fund --ignore-scripts)
fi
