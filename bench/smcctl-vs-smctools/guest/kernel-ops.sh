#!/bin/sh
# timeout: 2400
#
# The guest side of bench/kernel-ops (README.md next to this folder, "Where the kernel's time
# goes"): one UEID and 20 SMC-D connections held open as for compare.sh, then the cost of
# each kernel operation smcctl's read verbs make ("@@OP name median min"), and of each
# whole command with its page faults.  No "lanes:" header: never part of make check.
. "$(dirname "$0")/lib.sh"
require_cmd smcctl smcd smc-conn kernel-ops
conns=${SMCD_BENCH_CONNS:-20}

bench_hold_conns "$conns"
info "kernel $(uname -r), $conns connections up"

kernel-ops || fail "kernel-ops"
for c in "smcctl --version" "smcd -v" "smcctl device" "smcd device" "smcctl info" "smcd info"; do
	echo "## $c"
	# shellcheck disable=SC2086 # the command is a word list on purpose
	kernel-ops "$(command -v "${c%% *}")" ${c#* } || fail "kernel-ops $c"
done
# shellcheck disable=SC2154 # conn: smc-conn's pid, set by bench_hold_conns (lib.sh)
kill "$conn"
wait "$conn" 2>/dev/null
exit 0
