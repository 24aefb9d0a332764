# Shared helpers for bench/*.sh (sourced).

# One run of a shell function under /usr/bin/time: prints "seconds peak_MB".
measure_once() {
  local tf; tf=$(mktemp)
  /usr/bin/time -f '%e %M' -o "$tf" bash -c "$(declare -f "$1"); $(declare -p sonde rec demo scratch 2>/dev/null); $1"
  awk '{printf "%.3f %d\n", $1, $2/1024}' "$tf"
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
