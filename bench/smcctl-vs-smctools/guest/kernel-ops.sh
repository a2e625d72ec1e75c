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

smcctl ueid add SMCD-BENCH >/dev/null || fail "smcctl ueid add"
: >/tmp/conn.log
smc-conn pair --conns "$conns" --bytes 1K --hold 3000 >>/tmp/conn.log 2>&1 &
conn=$!
trap 'kill $conn 2>/dev/null' EXIT
i=0
while [ "$(grep -c '"mode":' /tmp/conn.log || true)" -lt "$conns" ]; do
	sleep 0.5
	i=$((i + 1))
	[ $i -lt 600 ] || fail "$conns connections did not come up"
done
info "kernel $(uname -r), $conns connections up"

kernel-ops || fail "kernel-ops"
for c in "smcctl --version" "smcd -v" "smcctl device" "smcd device" "smcctl info" "smcd info"; do
	echo "## $c"
	# shellcheck disable=SC2086 # the command is a word list on purpose
	kernel-ops "$(command -v "${c%% *}")" ${c#* } || fail "kernel-ops $c"
done
kill $conn
wait $conn 2>/dev/null
exit 0
