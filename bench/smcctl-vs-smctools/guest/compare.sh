#!/bin/sh
# timeout: 2400
#
# smcctl against smc-tools, whole processes, in one guest (bench/smcctl-vs-smctools/run
# boots it; README.md next to it).  No "lanes:" header: never part of make check.
#   1. A UEID, then 20 SMC-D loopback connections held open (smc-conn pair --hold).
#   2. For each read verb and its smc-tools equivalent, abtime runs the two commands
#      SMCD_BENCH_RUNS times each, interleaved (A B B A ...), output to /dev/null, and
#      prints one "@@BENCH {json}" line: medians, spread and the ratio of this run.
#   3. With SMCD_BENCH_CALLGRIND=1 and valgrind in the guest: the instructions each command
#      executes in user space against the live kernel ("@@COUNT name n").
#   4. With SMCD_BENCH_STRACE=1 and strace in the guest: each command's system calls.
. "$(dirname "$0")/lib.sh"
require_cmd smcctl smcd smcss smc-conn abtime
runs=${SMCD_BENCH_RUNS:-30}
conns=${SMCD_BENCH_CONNS:-20}

info "kernel $(uname -r), $runs runs per command, $conns SMC-D connections"
bench_hold_conns "$conns"
smcd=$(grep -c '"mode":"smcd"' /tmp/conn.log || true)
[ "$smcd" -ge "$conns" ] || { cat /tmp/conn.log; fail "only $smcd of $conns connections use SMC-D"; }
info "$conns connections up, all SMC-D"

# What each side prints, once (the comparison is only fair if both show the same objects).
for c in "smcctl linkgroup" "smcd linkgroup" "smcctl stats" "smcd stats" "smcctl device" \
	"smcd device" "smcctl socket" "smcss" "smcctl info" "smcd info"; do
	echo "### $c"
	$c 2>&1 | head -n 12
done

# name | smcctl command | smc-tools command
# name | smcctl command | smc-tools command: the five of issue 13, then two that say where
# a difference comes from: starting the program (smcd -v exits 255, hence --any-status) and
# the SMC-D link groups alone (smcctl linkgroup also dumps SMC-R's).
pairs="linkgroup|smcctl linkgroup|smcd linkgroup
stats|smcctl stats|smcd stats
device|smcctl device|smcd device
socket|smcctl socket|smcss
info|smcctl info|smcd info
startup|smcctl --version|smcd -v
lgr-smcd|smcctl linkgroup --smcd|smcd linkgroup"

echo "$pairs" | while IFS='|' read -r name a b; do
	st=
	[ "$name" = startup ] && st=--any-status
	# shellcheck disable=SC2086 # the commands are word lists on purpose
	out=$(abtime --runs "$runs" --warmup 3 --label "$name" $st -- $a --vs $b) || fail "abtime $name"
	echo "@@BENCH $out"
done

if [ "${SMCD_BENCH_CALLGRIND:-0}" = 1 ] && command -v valgrind >/dev/null; then
	echo "$pairs" | while IFS='|' read -r name a b; do
		for cmd in "$a" "$b"; do
			# shellcheck disable=SC2086
			n=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null $cmd 2>&1 >/dev/null |
				sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
			echo "@@COUNT $name|$cmd|$n"
		done
	done
fi

# With SMCD_BENCH_STRACE=1 and strace in the guest: each command's system calls, counted by
# name ("@@SYSCALLS name|cmd|n call:count ..."): where the kernel's share of the time goes.
if [ "${SMCD_BENCH_STRACE:-0}" = 1 ] && command -v strace >/dev/null; then
	echo "$pairs" | while IFS='|' read -r name a b; do
		for cmd in "$a" "$b"; do
			# shellcheck disable=SC2086
			strace -f -o /tmp/st.txt $cmd >/dev/null 2>&1 || true
			n=$(grep -vc -e '^[0-9]* +++' -e 'resumed>' /tmp/st.txt)
			calls=$(sed -n 's/^[0-9]* *\([a-z_0-9]*\)(.*/\1/p' /tmp/st.txt | sort | uniq -c |
				sort -rn | awk '{ printf "%s:%s ", $2, $1 }')
			echo "@@SYSCALLS $name|$cmd|$n $calls"
			sed 's/^/    /' /tmp/st.txt
		done
	done
fi

# shellcheck disable=SC2154 # conn: smc-conn's pid, set by bench_hold_conns (lib.sh)
kill "$conn"
wait "$conn" 2>/dev/null
exit 0
