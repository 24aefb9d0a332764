#!/usr/bin/env bash
# Runs perf's own shell tests (tools/perf/tests/shell in the Linux tree) from a
# directory the user gives, once with the installed perf and once with sonde
# standing in for perf (a copy named `perf` first in PATH), and prints one line per
# test: the test, perf's result, sonde's result (pass, skip, FAIL, timeout).
# It fetches nothing: copy the tests yourself (they are GPL-2.0; keep them out
# of this tree). docs/compatibility.md says which tests and how.
#
#   scripts/perf-shell-tests.sh DIR [TEST.sh...]
#     SONDE=build/cli/sonde  the sonde binary (default: ./build/cli/sonde)
#     PERF=/usr/bin/perf     the perf binary for the perf column ("" skips it)
#     TIMEOUT=120            seconds per test
#     LOGS=DIR               keep each run's output in DIR/TEST.{perf,sonde}.log
set -uo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 DIR [TEST.sh...] (DIR holds perf's tools/perf/tests/shell files)" >&2
  exit 2
fi
tests_dir=$(cd "$1" && pwd); shift
sonde=$(realpath "${SONDE:-build/cli/sonde}")
perf=${PERF-$(command -v perf || true)}
timeout_s=${TIMEOUT:-120}
[ -x "$sonde" ] || { echo "$0: no sonde at $sonde (build it, or set SONDE)" >&2; exit 2; }

work=$(mktemp -d /tmp/perf-shell-tests.XXXXXX)
trap 'rm -rf "$work"' EXIT
logs=${LOGS:-$work/logs}
mkdir -p "$logs" "$work/perf-bin" "$work/sonde-bin"
# The shims are named perf: a process exec'd through one is named "perf" as
# with the real perf (pipe_test.sh looks for that comm). sonde is copied, so
# that a rebuild during the run cannot leave PATH to fall through to perf.
[ -z "$perf" ] || ln -s "$(realpath "$perf")" "$work/perf-bin/perf"
cp "$sonde" "$work/sonde-bin/perf"

# One test under one shim: pass (exit 0), skip (exit 2, perf's convention),
# timeout, or FAIL(exit code).
run_one() {
  local bin=$1 test=$2 log=$3 rc
  (cd "$tests_dir" && PATH="$bin:$PATH" timeout -k 5 "$timeout_s" bash "./$test") > "$log" 2>&1
  rc=$?
  case $rc in
    0) echo pass ;;
    2) echo skip ;;
    124) echo timeout ;;
    *) echo "FAIL($rc)" ;;
  esac
}

if [ $# -gt 0 ]; then tests=("$@"); else
  mapfile -t tests < <(cd "$tests_dir" && ls -- *.sh)
fi
printf '%-32s %-10s %-10s\n' test "perf" sonde
for t in "${tests[@]}"; do
  p=-
  [ -n "$perf" ] && p=$(run_one "$work/perf-bin" "$t" "$logs/$t.perf.log")
  s=$(run_one "$work/sonde-bin" "$t" "$logs/$t.sonde.log")
  printf '%-32s %-10s %-10s\n' "$t" "$p" "$s"
done
[ -n "${LOGS:-}" ] || echo "(set LOGS=DIR to keep each run's output)"
