#!/usr/bin/env bash
# Installs everything sonde needs to build and test on Debian 12 (as root);
# libclang-rt-14-dev has the sanitizer and libFuzzer runtimes (scripts/fuzz.sh).
# Idempotent: does nothing when every package is already installed.
set -euo pipefail
PACKAGES=(
  build-essential cmake ninja-build pkg-config git ccache
  libelf-dev libdw-dev libdebuginfod-dev elfutils debuginfod
  libzstd-dev zlib1g-dev libfmt-dev libcli11-dev nlohmann-json3-dev
  libprotozero-dev libbpf-dev clang llvm libclang-rt-14-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libcapstone-dev  # build-time: sonde annotate disassembles with capstone (loaded on first use)
  systemtap-sdt-dev linux-perf binutils liblzma-dev tmux
  golang-go chromium chromium-driver nodejs
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# Export tests: npm (Debian's package unless node already bundles it), then
# the pinned Node packages (playwright-core, ajv, speedscope's schema) once.
if ! command -v npm >/dev/null; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends npm >/dev/null
fi
js_dir="$(cd "$(dirname "$0")/.." && pwd)/tests/convert/js"
if [ -f "$js_dir/package-lock.json" ] && [ ! -d "$js_dir/node_modules" ]; then
  (cd "$js_dir" && npm ci --no-audit --no-fund --ignore-scripts)
fi
