# rat's terminal start-up: the files a login shell reads, then rat's prompt hook, first.
if [ -r /etc/profile ]; then . /etc/profile; fi
for __rat_f in ~/.bash_profile ~/.bash_login ~/.profile; do
  if [ -r "$__rat_f" ]; then . "$__rat_f"; break; fi
done
unset __rat_f
__rat_dir=@DIR@
__rat_on=1
# Whether the hook hands ratd the values of secret-named variables (ratd masks secrets).
__rat_sec=@SECRETS@
__rat_cn='\#'
__rat_jc='\j'
# `&& :`: the hook runs where errexit is ignored (a command before `&&`), so `set -e` typed
# in a terminal never ends the shell at a prompt, and its status stays the user's `$?`.
__rat_entry='__rat_s=("$?" "${PIPESTATUS[@]}"); ${__rat_on:+__rat_hook} && :'
__rat_e=
# PS0's piece: `$!` noted; rat's entry put back into a PROMPT_COMMAND left empty (element 0) or,
# in a bash started inside this one (`__rat_top` is not exported), added as element 990 when
# missing, with the command number, so that the prompt after its first command is recorded.
__rat_top=0
__rat_ps0='${__rat_z[__rat_bang=${!:-0},0]-}${__rat_e/x/${PROMPT_COMMAND[${__rat_top:-990}]:=$__rat_entry}${__rat_n:=${__rat_cn@P}}}${__rat_c-}'
# Defined with aliases off, builtins named as such: a startup file's aliases or functions
# (printf, read) never change it.
__rat_aliases=
if shopt -q expand_aliases; then __rat_aliases=1; shopt -u expand_aliases; fi
__rat_hook() {
  local n=${__rat_cn@P} a=0 b=0 c=0 w= i e t u= r=0 m=- q=${PS1-} j=- IFS=$' \t\n'
  # Once, at the first prompt (after every startup file, an inputrc included): ~0.2 ms.
  [ -n "${__rat_n-}" ] || builtin bind 'set enable-bracketed-paste on' >/dev/null 2>&1
  # The marks, after every byte the command printed: the end of the command typed at the
  # prompt before (OSC 133 D, with its status when one ran), this prompt's start (OSC 133 A),
  # and the pane's path (OSC 7). PS0 prints __rat_c, the command's output start (OSC 133 C),
  # on stderr: set only while stderr is the terminal.
  __rat_k=$((${__rat_k:-0} + 1)) __rat_c=
  if [ -t 1 ]; then
    if [ -z "${__rat_n-}" ]; then i=
    elif [ "$n" != "$__rat_n" ]; then builtin printf -v i '\e]133;D;%s;rat=%s:%s\e\\' "${__rat_s[0]}" "$$" "$((__rat_k - 1))"
    else builtin printf -v i '\e]133;D;rat=%s:%s\e\\' "$$" "$((__rat_k - 1))"; fi
    builtin printf '%s\e]133;A;rat=%s:%s\e\\\e[?2004h\e]7;rat:prompt:%s\e\\' "$i" "$$" "$__rat_k" "$__rat_k"
    m=$__rat_k
    if [ -t 2 ]; then builtin printf -v __rat_c '\e]133;C;rat=%s:%s\e\\' "$$" "$__rat_k"; fi
  fi
  for i in "${!PROMPT_COMMAND[@]}"; do
    e=${PROMPT_COMMAND[i]}
    if [[ $e == *"$__rat_entry"* && $e != "$__rat_entry"* ]]; then
      u=1; PROMPT_COMMAND[i]=$__rat_entry$'\n'${e//"$__rat_entry"/:}
    fi
  done
  [[ ${PS0-} == *"$__rat_ps0"* ]] || PS0=${PS0-}$__rat_ps0
  t=${EPOCHSECONDS-}; [ -n "$t" ] || builtin printf -v t '%(%s)T' -1
  builtin printf -v __rat_p '%s,' "${__rat_s[@]:1}"; __rat_p=${__rat_p%,}
  if [ -z "${__rat_n-}" ]; then __rat_st=-; __rat_stt=$t
  elif [ "$n" != "$__rat_n" ]; then
    __rat_stt=$t; r=1
    if [ -n "$u" ]; then __rat_st='?'
    elif [ "${__rat_s[${#__rat_s[@]}-1]}" != "${__rat_s[0]}" ] ||
      { [ "${!:-0}" != "${__rat_bang:-0}" ] && [ "$__rat_p" = "${__rat_lp-}" ]; }; then
      __rat_st=${__rat_s[0]}
    else __rat_st=$__rat_p; fi
  fi
  __rat_n=$n; __rat_lp=$__rat_p; __rat_bang=${!:-0}
  if [ -n "${TMUX_PANE-}" ] && [ -d "$__rat_dir/out" ]; then
    for ((i = 0; i < 50; i++)); do
      builtin read -r a b c w 2>/dev/null <"$__rat_dir/in/${TMUX_PANE#%}" || { a=0 b=0 c=0 w=; }
      [ "$a" = "$b" ] && break
      builtin read -r -t 0.01 -u 9 9<>"$__rat_dir/sleep" 2>/dev/null
    done
    # A command stopped (a status of 128 + SIGSTOP, SIGTSTP, SIGTTIN or SIGTTOU): the
    # current job's number and process, from the builtin `jobs`, for ratd to look at, whether
    # bash has more jobs than at the prompt before (`\j`), and when that prompt was (the
    # time since boot, as process start times are told).
    j=-
    if ((r && __rat_s[0] > 146 && __rat_s[0] < 151)); then
      builtin jobs -l %+ >"$__rat_dir/in/.job${TMUX_PANE#%}" 2>/dev/null
      e=; builtin read -r e <"$__rat_dir/in/.job${TMUX_PANE#%}" 2>/dev/null
      e=${e#\[}; i=${e%%]*}; e=${e#*]}; e=${e#[+-]}; e=${e#"${e%%[! ]*}"}; e=${e%% *}
      [[ -n $i && $i != *[!0-9]* && -n $e && $e != *[!0-9]* ]] &&
        j=$i:$e:$((${__rat_jc@P} > ${__rat_jl:-0})):${__rat_pt:--}
    fi
    __rat_jl=${__rat_jc@P} __rat_pt=
    builtin read -r __rat_pt e </proc/uptime 2>/dev/null
    # The values of the variables whose names say secret (ratd's rules), handed to ratd
    # over env/PANE when they changed since the last prompt (docs/design/secrets.md):
    # `NAME=VALUE` entries each ended by a NUL, then `.`. Before the record, so that ratd has
    # them when the record wakes it. No process. Listed (one `compgen`, its names filtered by
    # their last characters) at the shell's first prompt, and after a command when an input
    # answered since the prompt before could set a variable (`c`, the last such input, as ratd
    # read their texts), or none was (the command came from elsewhere), or one of the words of
    # those inputs (`w`) names a function or alias.
    if [ -n "${__rat_sec-}" ] && [ -d "$__rat_dir/env" ]; then
      local v s= sa=() sp=() l=
      if [ -z "${__rat_lb-}" ]; then l=1
      elif ((r)) && { [ "$b" = "$__rat_lb" ] || ((c > __rat_lb)); }; then l=1
      elif ((r)); then
        for i in $w; do
          if [ -n "${BASH_ALIASES[$i]+x}" ] || builtin declare -F -- "$i" >/dev/null 2>&1; then
            l=1; break
          fi
        done
      fi
      __rat_lb=$b
      if [ -z "$l" ]; then :
      elif builtin compgen -v -X '!@GATE@' >"$__rat_dir/env/.${TMUX_PANE#%}" 2>/dev/null; then
        builtin mapfile -t sa <"$__rat_dir/env/.${TMUX_PANE#%}" 2>/dev/null
        for i in "${sa[@]}"; do
          case $i in @CASES@) v=${!i-}; [ -z "$v" ] || { s+=$i=${#v}:$v$'\n'; sp+=("$i=$v"); } ;; esac
        done
      fi
      if [ -n "$l" ] && [ "$s" != "${__rat_sv-}" ]; then
        __rat_sv=$s
        builtin printf '%s\0' "${sp[@]}" . >"$__rat_dir/env/${TMUX_PANE#%}" 2>/dev/null
      fi
    fi
    if ! builtin read -t 0 2>/dev/null; then
      builtin printf 'R %s %s %s %s %s %s %s %s %s %s %s E\n' "${TMUX_PANE#%}" "$b" "$t" "$__rat_stt" "$__rat_st" "$a" "$r" "$m" "${#q}" "$$" "$j" >"$__rat_dir/out/${TMUX_PANE#%}" 2>/dev/null
    fi
  fi
  return "${__rat_s[0]}"
}
if [ -n "$__rat_aliases" ]; then shopt -s expand_aliases; fi
unset __rat_aliases
# A bash started inside this one (`bash`, `bash -l`, `exec bash -l`) inherits the hook, its
# variables and PS0, whatever its startup files assign to PROMPT_COMMAND.
export -f __rat_hook
export __rat_dir __rat_on __rat_sec __rat_cn __rat_jc __rat_entry __rat_e __rat_ps0 PS0
if [[ -n ${PROMPT_COMMAND+x} && ${PROMPT_COMMAND@a} == *a* ]]; then
  PROMPT_COMMAND=("$__rat_entry" "${PROMPT_COMMAND[@]}")
else
  PROMPT_COMMAND=$__rat_entry${PROMPT_COMMAND:+$'\n'$PROMPT_COMMAND}
fi
