# SPDX-License-Identifier: GPL-2.0-or-later
# zsh completion-zsh.zsh FPATHDIR (for completion-shells.test): reads command lines on stdin
# and prints, for each, the matches that zsh's completion system (compinit, with the _smcctl
# of FPATHDIR first in $fpath) offers for LINE<Tab> in an interactive zsh on a pseudo
# terminal, one per line, then a line holding only \x1e.  compadd is wrapped to print what
# it adds; nothing is inserted or listed.
zmodload zsh/zpty || exit 9
init=$(mktemp) || exit 9
trap 'rm -f $init' EXIT
cat >$init <<INIT
PROMPT= RPROMPT= PS2=
fpath=(${(q)1} \$fpath)
autoload -U compinit && compinit -u -D
bindkey -e
bindkey '^I' complete-word
bindkey '^U' kill-whole-line
_capture_begin() { print -rn -- \$'\\x1eBEGIN\\n' }
# (_main_complete empties both arrays after each completion)
_capture_end() {
	compstate[insert]= compstate[list]=
	print -rn -- \$'\\x1eEND\\n'
	compprefuncs=(_capture_begin) comppostfuncs=(_capture_end)
}
compprefuncs=(_capture_begin)
comppostfuncs=(_capture_end)
compadd() {
	local -a __hits
	if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then
		builtin compadd "\$@"
		return
	fi
	builtin compadd -A __hits "\$@"
	local h
	for h in \$__hits; print -r -- \$'\\x1f'"\$h"
	builtin compadd "\$@"
}
print READY
INIT
zpty z zsh -f -i
zpty -w z ". ${(q)init}"
local l q
while zpty -r z l; do [[ $l == READY* ]] && break; done
while IFS= read -r q; do
	zpty -w -n z $'\x15'"$q"$'\t'
	while zpty -r z l; do
		l=${l%$'\n'}; l=${l%$'\r'}
		[[ $l == *$'\x1e'END* ]] && break
		[[ $l == *$'\x1f'* ]] && print -r -- "${l#*$'\x1f'}"
	done
	print $'\x1e'
done
zpty -d z
