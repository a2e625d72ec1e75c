# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by completion.test (bash) and completion-shells.test (zsh, fish): TAP output and
# what the verb table says, read from the help texts ("smcctl help", "smcctl OBJECT help",
# both printed from cli/table.c independently of cli/complete.c).
#
# Environment from the build (AM_TESTS_ENVIRONMENT): top_srcdir, top_builddir.
set -u
: "${top_srcdir:?run from make check}" "${top_builddir:?run from make check}"
SMCCTL=$top_builddir/cli/smcctl

n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $*"; }
check() { # check DESCRIPTION MISSING...
	local what=$1
	shift
	if (($# == 0)); then ok "$what"; else not_ok "$what: missing $*"; fi
}

help=$("$SMCCTL" help) || { echo "Bail out! smcctl help failed"; exit 1; }
# "  OBJECT [VERB] ..." / "  OBJECT VERB ..." lines between "Objects and verbs" and "Exit".
table=$(printf '%s\n' "$help" | sed -n '/^Objects and verbs/,/^Exit status/p' |
	sed -n 's/^  \([a-z][a-z-]*\) \[\{0,1\}\([a-z][a-z-]*\)\]\{0,1\}\( .*\)\{0,1\}$/\1 \2/p')
objects=$(printf '%s\n' "$table" | cut -d' ' -f1 | uniq)
# "  -j, --json ..." lines of the global options.
global_opts=$(printf '%s\n' "$help" | sed -n '/^Options/,/^$/p' |
	grep -o -- '--\{0,1\}-[A-Za-z][a-z-]*' | sort -u)
[ -n "$objects" ] && [ -n "$global_opts" ] || { echo "Bail out! cannot read smcctl help"; exit 1; }

# verbs_of OBJECT: the verbs of OBJECT, from "smcctl help".
verbs_of() {
	printf '%s\n' "$table" | awk -v o="$1" '$1 == o { print $2 }'
}

# verb_opts OBJECT VERB: "-x" and "--long" of the verb, from "smcctl OBJECT help".
verb_opts() {
	"$SMCCTL" "$1" help | sed -n "/^Options of '$1 $2':/,/^\$/p" | sed 1d |
		grep -o -- '^ *\(-[A-Za-z], \)\{0,1\}--[a-z][a-z-]*' | grep -o -- '-\{1,2\}[A-Za-z][a-z-]*'
}

# default_of OBJECT OPTION-AND-ARG: the default the help states for that option ("--wait S").
default_of() {
	"$SMCCTL" "$1" help | sed -n "s/.*$2 .*default \([0-9]*\)).*/\1/p"
}

# missing_from OUTPUT WORD... : the words that are not a line of OUTPUT
missing_from() {
	local out=$1 w
	shift
	for w in "$@"; do
		printf '%s\n' "$out" | grep -qxF -- "$w" || printf '%s ' "$w"
	done
}
