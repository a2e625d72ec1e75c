#!/bin/sh
# lanes: 7x debug
# timeout: 900
#
# 100 activate/deactivate cycles while SMC traffic runs (open, transfer, verify, close in
# a loop).  Connections that meet a deactivation fall back to TCP or are drained; none may
# deliver corrupt data, and the kernel must not splat, leak or hang.  Then rmmod.
#
# Deactivation first gives smclo a PNET ID (so clients stop proposing it) and then drains
# with a 5 s bound: with nocopy the drain ends half a second after the SMC-D connections
# in flight are closed.  Without the PNET ID, a client handshake that picked the device
# just before the removal can still read SMC's freed device struct (KASAN:
# use-after-free in smc_clc_send_proposal, an SMC 7.3 bug).  Forcing the removal (bound 0) while
# connections are in the middle of closing hits a bug in SMC 7.3: such a connection never
# finishes closing once DIBS stopped signalling the device, its link group is never
# freed, and dibs_dev_del() waits forever (see kmod/README.md).  Forced removal with open,
# idle connections is tested by kmod-rmmod.sh.
. "$(dirname "$0")/lib.sh"
kmod_lib=$(find / -xdev -name kmod-lib.sh 2>/dev/null | head -n 1)
[ -n "$kmod_lib" ] || skip "kmod-lib.sh is not in the guest (run with kmod/vm-test)"
. "$kmod_lib"
kmod_require

CYCLES=${KMOD_CYCLES:-100}
kmod_watchdog 700
kmod_load
kmod_smc_setup

smclo-xfer churn --secs 100000 --bytes 65536 >/tmp/churn.out 2>&1 &
churn=$!

i=0
while [ $i -lt "$CYCLES" ]; do
	i=$((i + 1))
	# The previous device may still be being removed (connections being closed): retry.
	n=0
	until smclo-ctl activate >/dev/null 2>/tmp/act.err; do
		grep -q 'error: 16 ' /tmp/act.err || fail "cycle $i: activate: $(cat /tmp/act.err)"
		n=$((n + 1))
		[ $n -lt 300 ] || fail "cycle $i: device still busy after 30 s: $(smclo-ctl get | tr '\n' ' ')"
		sleep 0.1
	done
	# Let some connections use the device, then drain it the way smcctl/the agent do:
	# first make it ineligible for new proposals (PNET ID), then deactivate.
	sleep 0.$((i % 3))
	smclo-ctl pnet-add SMCLOEXCL smclo || fail "cycle $i: pnet-add smclo failed"
	smclo-ctl deactivate 5000 >/dev/null || fail "cycle $i: deactivate failed"
	kmod_wait_state inactive 60
	smclo-ctl pnet-del SMCLOEXCL || fail "cycle $i: pnet-del failed"
	[ $((i % 10)) -eq 0 ] && info "cycle $i: $(smclo-ctl get registrations) registrations so far"
done
kmod_wait_state inactive 60
kill $churn
wait $churn
churn_rc=$?
cat /tmp/churn.out
[ "$churn_rc" -eq 0 ] || [ "$churn_rc" -eq 143 ] || fail "traffic reported corruption (exit $churn_rc)"
grep -q 'corrupt=[1-9]' /tmp/churn.out && fail "corrupt data"

assert_eq "$CYCLES" "$(kmod_counter activations)" "activations"
assert_eq "$CYCLES" "$(kmod_counter deactivations)" "deactivations"
assert_eq 0 "$(kmod_counter dmbs)" "DMBs left"
regs=$(kmod_counter registrations)
[ "$regs" -gt 0 ] || fail "the traffic never used smc_lo"
info "registrations $regs, unregistrations $(kmod_counter unregistrations)"
kmod_unload
smclo-ctl pnet-del "$KMOD_LO_PNETID" || true
kmod_check_dmesg
kmod_check_leaks
kill $KMOD_WATCHDOG 2>/dev/null
info "ok"
