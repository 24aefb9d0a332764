# bash completion for sonde. Subcommands and options are read from sonde's
# own --help text when completing, so they are always the installed binary's.
_sonde_words_of() {  # _sonde_words_of SECTION WORDS...: first words of a --help section
  local section="$1"; shift
  sonde "$@" --help 2>/dev/null | awk -v want="$section" \
    '/^[A-Z][A-Za-z ]*:$/ {in_s = ($0 == want); next} in_s && NF {print $1}'
}

_sonde() {
  local cur="${COMP_WORDS[COMP_CWORD]}" path=() i w subs
  # The subcommand path typed so far: words that name a subcommand of the last.
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    subs="$(_sonde_words_of Subcommands: "${path[@]}")"
    if grep -qx -- "$w" <<<"$subs"; then path+=("$w"); else break; fi
  done
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_sonde_words_of Options: "${path[@]}" | tr ',' '\n' | sed 's/[[{=].*//')" -- "$cur"))
    return
  fi
  subs="$(_sonde_words_of Subcommands: "${path[@]}")"
  if [ -n "$subs" ] && [ "$i" -ge "$COMP_CWORD" ]; then
    COMPREPLY=($(compgen -W "$subs" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -F _sonde sonde
