#!/usr/bin/env bash
# Times the quick start's first command as a new user meets it: a fresh
# Debian 12 root made with debootstrap, given only what a new machine of this
# kind has (g++, cmake, git, GoogleTest/Benchmark: the `env` list), then
# `git clone` of this repository and `scripts/demo.sh` inside it (apt from
# Debian's mirror, a cold build: no ccache). Prints the wall time from clone
# to report. Not part of the suite (it downloads ~300 MB); run it by hand
# before quoting the figure in README.
#   scripts/fresh-demo.sh [ROOT]    (default /var/tmp/sonde-fresh; a ROOT that
#   exists is reused, and already has the build packages: delete it for a cold figure)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
root="${1:-/var/tmp/sonde-fresh}"
command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
mounts=(proc sys dev dev/pts src)
cleanup() {
  for ((i=${#mounts[@]}-1; i>=0; i--)); do
    mountpoint -q "$root/${mounts[i]}" && umount "$root/${mounts[i]}"
  done
  return 0
}
trap cleanup EXIT
if [ ! -x "$root/usr/bin/g++" ]; then
  debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >/dev/null
fi
for m in proc sys dev dev/pts; do mount --bind "/$m" "$root/$m"; done
mkdir -p "$root/src" && mount --bind "$repo" "$root/src"
cp /etc/resolv.conf "$root/etc/"
# What every new machine of this kind already has (not timed).
chroot "$root" bash -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
  --no-install-recommends g++ gcc make cmake git ca-certificates python3 libgtest-dev libgmock-dev \
  libbenchmark-dev >/dev/null'
# The timed part: clone, then the quick start's first command.
chroot "$root" bash -c 'git config --global --add safe.directory "*"; cd /root && rm -rf sonde &&
  start=$(date +%s%N) && git clone -q /src sonde && cd sonde && scripts/demo.sh >/root/demo.out 2>&1 &&
  echo "clone to report: $(( ($(date +%s%N) - start) / 1000000000 )) s (log: '"$root"'/root/demo.out)"'
