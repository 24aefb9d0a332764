# Shared helpers for bench/*.sh (sourced).

# One run of a shell function: prints "seconds peak_MB". The wall time is
# taken in this shell around the function (bash's EPOCHREALTIME: microseconds,
# one fork per command, no extra shell); the peak RSS comes from a second run
# under /usr/bin/time, whose 10 ms wall clock is too coarse for 40 ms runs.
measure_once() {
  local tf t0 t1; tf=$(mktemp)
  t0=$EPOCHREALTIME
  "$1"
  t1=$EPOCHREALTIME
  /usr/bin/time -f '%M' -o "$tf" bash -c "$(declare -f); $(declare -p sonde rec demo scratch 2>/dev/null); $1"
  awk -v t0="$t0" -v t1="$t1" '{printf "%.4f %d\n", t1 - t0, $1/1024}' "$tf"
  rm -f "$tf"
}

# Median over $runs runs: "seconds peak_MB".
measure_median() {
  local i results=()
  for ((i = 0; i < runs; i++)); do results+=("$(measure_once "$1")"); done
  printf '%s\n' "${results[@]}" | sort -n | awk '{t[NR]=$1; m[NR]=$2} END {i=int((NR+1)/2); printf "%s %s\n", t[i], m[i]}'
}

# a / b with one decimal ("n/a" when b is 0).
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "n/a"; else printf "%.1fx\n", a / b }'; }

# Replaces (or appends) the section NAME of FILE with TITLE and the content of SRC.
write_section() {
  local file=$1 name=$2 title=$3 src=$4
  [[ -f $file ]] || printf '# Benchmarks: sonde against perf 6.1\n\nEvery figure is measured by a script in bench/ that runs sonde and perf on the same work in the same run, on this project'"'"'s 2-core VM (no hardware PMU). Re-run with `bench/run.sh`.\n' >"$file"
  python3 - "$file" "$name" "$title" "$src" <<'PY'
import re, sys
path, name, title, src = sys.argv[1:]
text = open(path).read()
body = open(src).read().rstrip() + "\n"
block = f"<!-- bench:{name} -->\n## {title}\n\n{body}<!-- /bench:{name} -->\n"
pat = re.compile(rf"<!-- bench:{re.escape(name)} -->.*?<!-- /bench:{re.escape(name)} -->\n", re.S)
text = pat.sub(lambda m: block, text) if pat.search(text) else text.rstrip() + "\n\n" + block
open(path, "w").write(text)
PY
}

# Records two copies of the demo workload (both CPUs busy) with call chains:
# record_two_demos OUTPUT FREQ SECONDS (uses $sonde and $demo).
record_two_demos() {
  "$sonde" record -q -g -F "$2" -o "$1" -- sh -c "$demo $3 & $demo $3; wait" >/dev/null
}
