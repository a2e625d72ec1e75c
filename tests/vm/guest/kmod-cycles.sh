#!/bin/sh
# lanes: 7x debug
# timeout: 900
#
# Activate/deactivate cycles with smcctl while SMC traffic runs (open, transfer, verify,
# close in a loop): 100 in the debug lane (make check-vm-debug, kmod/vm-test --lane debug),
# 20 in the 7x lane of make check, whose time budget they would otherwise dominate (a cycle
# there takes about a second and a half).  Connections that meet a deactivation fall back to
# TCP or are drained; none may deliver corrupt data, and the kernel must not splat, leak or
# hang.  Then rmmod.
#
# smcctl device loopback-ism deactivate follows the module's protocol: it gives smclo a PNET
# ID (so clients stop proposing it), drains with a bound of seconds (with nocopy the drain
# ends half a second after the SMC-D connections in flight are closed), waits for the
# "deactivated" notification and deletes the PNET ID.  Without the PNET ID, a client
# handshake that picked the device just before the removal can still read SMC's freed
# device struct (KASAN: use-after-free in smc_clc_send_proposal, an SMC 7.3 bug); a forced
# removal (no drain) while connections are in the middle of closing hits another one: such
# a connection never finishes closing once DIBS stopped signalling the device, its link
# group is never freed, and dibs_dev_del() waits forever (see kmod/README.md).  Forced
# removal with open, idle connections is tested by kmod-rmmod.sh.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-kmod.sh"
kmod_require

case $SMCD_VM_LANE in
debug) CYCLES=100 ;;
*) CYCLES=20 ;;
esac
info "$CYCLES cycles (lane $SMCD_VM_LANE)"
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
	until smcctl device loopback-ism activate >/dev/null 2>/tmp/act.err; do
		grep -q 'still being removed' /tmp/act.err || fail "cycle $i: activate: $(cat /tmp/act.err)"
		n=$((n + 1))
		[ $n -lt 300 ] || fail "cycle $i: device still busy after 30 s: $(kmod_json)"
		sleep 0.1
	done
	# Let some connections use the device, then drain it.
	sleep 0.$((i % 3))
	smcctl device loopback-ism deactivate --wait 5 >/dev/null 2>/tmp/deact.err ||
		fail "cycle $i: deactivate: $(cat /tmp/deact.err)"
	[ $((i % 10)) -eq 0 ] && info "cycle $i: $(kmod_counter registrations) registrations so far"
done
kmod_wait_state inactive 60
assert_ok smcctl pnet list
assert_not_contains "$out" "SMCLODRAIN" "every deactivation deleted its PNET ID"
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
smcctl pnet del "$KMOD_LO_PNETID" || true
kmod_check_dmesg
kmod_check_leaks
kill $KMOD_WATCHDOG 2>/dev/null
info "ok"
