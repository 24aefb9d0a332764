#!/usr/bin/env bash
# Writes the man pages from the CLI's own --help text, so that they cannot
# drift from the options: sonde(1) and one sonde-SUBCOMMAND(1) per
# subcommand (sonde-sdt-add(1) and the like for nested ones).
# usage: gen-man.sh SONDE_BINARY OUTDIR
set -euo pipefail
sonde="$1"
out="$2"
mkdir -p "$out"
version="$("$sonde" --version | awk '{print $2}')"

# Lines of a section of the help text ("Options:", "Subcommands:", ...).
section() { awk -v want="$1" '/^[A-Z][A-Za-z ]*:$/ {in_s = ($0 == want); next} in_s && NF' ; }

# roff-safe text: backslashes, hyphens, a leading dot or quote.
escape() { sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\([.']\)/\\\\\&\1/"; }

# One .TP entry per "  NAME   description" line (two or more spaces apart).
entries() {
  while IFS= read -r line; do
    line="${line#"${line%%[![:space:]]*}"}"
    name="$(printf '%s' "$line" | sed -E 's/ {2,}.*//')"
    desc="$(printf '%s' "$line" | sed -E 's/^[^ ]*( [^ ]+)*( {2,}|$)//')"
    [ "$desc" = "$line" ] && desc=""
    printf '.TP\n.B %s\n%s\n' "$(printf '%s' "$name" | escape)" "$(printf '%s' "$desc" | escape)"
  done
}

page() {  # page WORDS...: the page of `sonde WORDS... --help`
  local words=("$@") help title name summary usage subs
  help="$("$sonde" "${words[@]}" --help)"
  name="sonde${words[*]:+-${words[*]}}"
  name="${name// /-}"
  title="$(printf '%s' "$name" | tr '[:lower:]' '[:upper:]')"
  # No `head` here: it exits at its first line, and with pipefail the
  # writer's SIGPIPE (a --help longer than a pipe write) fails the build.
  summary="${help%%$'\n'*}"
  usage="$(printf '%s\n' "$help" | sed -n 's/^Usage: //p' | sed -n 1p)"
  {
    printf '.TH %s 1 "" "sonde %s" "sonde manual"\n' "$title" "$version"
    printf '.SH NAME\n%s \\- %s\n' "$(printf '%s' "$name" | escape)" "$(printf '%s' "$summary" | escape)"
    printf '.SH SYNOPSIS\n%s\n' "$(printf '%s' "$usage" | escape)"
    for s in Positionals Options Subcommands; do
      body="$(printf '%s\n' "$help" | section "$s:")"
      [ -n "$body" ] || continue
      printf '.SH %s\n' "$(printf '%s' "$s" | tr '[:lower:]' '[:upper:]')"
      printf '%s\n' "$body" | entries
    done
    printf '.SH EXIT STATUS\n0 on success, 1 on a runtime failure, 2 on a usage error (nothing is written).\n'
    printf '.SH SEE ALSO\n.BR sonde (1),\n.BR perf (1).\nThe documentation in /usr/share/doc/sonde and docs/ of the source tree.\n'
  } >"$out/$name.1"
  subs="$(printf '%s\n' "$help" | section "Subcommands:" | awk '{print $1}')"
  for s in $subs; do page "${words[@]}" "$s"; done
}

page
