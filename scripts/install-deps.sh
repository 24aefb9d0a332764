#!/usr/bin/env bash
# Installs everything sonde needs to build and test on Debian 12 (as root).
# Idempotent: does nothing when every package is already installed.
set -euo pipefail
PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  libelf-dev libdw-dev libdebuginfod-dev elfutils debuginfod
  libzstd-dev zlib1g-dev libfmt-dev libcli11-dev nlohmann-json3-dev
  libprotobuf-dev protobuf-compiler libbpf-dev clang llvm
  libgtest-dev libgmock-dev libbenchmark-dev
  systemtap-sdt-dev linux-perf binutils liblzma-dev
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
