#!/usr/bin/env bash
# Makes the Debian packages from the build in $BUILD_DIR (default build):
# sonde_VERSION_amd64.deb (the stripped binary in /usr/bin, man pages, bash
# completion, docs) and its debug symbols, sonde-dbgsym_VERSION_amd64.ddeb.
# Dependencies are computed (dpkg-shlibdeps, and packaging/CMakeLists.txt for
# the libraries loaded on first use). usage: scripts/package.sh [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="$(realpath "${BUILD_DIR:-build}")"
out="$(realpath -m "${1:-$build_dir}")"
[ -f "$build_dir/CPackConfig.cmake" ] || { echo "package.sh: no configured build in $build_dir (run scripts/build.sh)" >&2; exit 2; }
command -v dpkg-shlibdeps >/dev/null || { echo "package.sh: dpkg-shlibdeps missing (apt-get install dpkg-dev)" >&2; exit 1; }
ninja -C "$build_dir" sonde sonde_man >/dev/null
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && cpack -G DEB --config "$build_dir/CPackConfig.cmake" -B "$work" >/dev/null)
cp "$work"/*.deb "$work"/*.ddeb "$out"/ 2>/dev/null || cp "$work"/*.deb "$out"/
ls -1 "$out"/sonde*_amd64.*deb
