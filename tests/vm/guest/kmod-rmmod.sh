#!/bin/sh
# lanes: 7x debug
# timeout: 300
#
# Unload and removal while connections are open.  rmmod is refused ("in use": every DMB
# pins the module) and changes nothing; deactivation drains, removes the device, aborts
# the open connections, and finishes once their applications close them.  While an
# application keeps an aborted socket open the removal waits - without blocking the
# netlink family, a new activation (EBUSY) or anything else - and says what holds it.
. "$(dirname "$0")/lib.sh"
kmod_lib=$(find / -xdev -name kmod-lib.sh 2>/dev/null | head -n 1)
[ -n "$kmod_lib" ] || skip "kmod-lib.sh is not in the guest (run with kmod/vm-test)"
. "$kmod_lib"
kmod_require

# wait_dmbs N: until the device has at least N DMBs
wait_dmbs() {
	_n=0
	while [ "$(kmod_counter dmbs)" -lt "$1" ]; do
		_n=$((_n + 1))
		[ $_n -lt 100 ] || fail "expected $1 DMBs, have $(kmod_counter dmbs)"
		sleep 0.2
	done
}

kmod_load activate=1
kmod_smc_setup

info "--- 1. rmmod with open connections is refused"
smclo-xfer hold --conns 3 --secs 300 >/tmp/hold.out 2>&1 &
hold=$!
wait_dmbs 6
assert_eq 6 "$(kmod_counter attached)" "one nocopy attachment per connection end"
assert_fails rmmod smc_lo
module_loaded smc_lo || fail "smc_lo was unloaded with open connections"
assert_eq active "$(kmod_get state)" "rmmod must not change the device"
assert_ok smclo-xfer verify --conns 1 --bytes 100000
info "--- 2. deactivate: drain, then remove; the open connections are aborted"
smclo-ctl monitor 3 60 >/tmp/events &
mon=$!
sleep 0.5
assert_ok smclo-ctl deactivate 1000
assert_contains "$out" "state=draining"
assert_contains "$out" "drain_timeout_ms=1000"
wait $mon || fail "missing notifications: $(cat /tmp/events)"
assert_contains "$(cat /tmp/events)" "event=removing"
# What held the device when the removal started (the REMOVING notification):
removing=$(sed -n '/^event=removing/,/^event=/p' /tmp/events)
assert_match "$removing" '^dmbs=[1-9]' "DMBs reported as holders"
assert_match "$removing" '^link_groups=[1-9]' "link groups reported as holders"
kmod_wait_state inactive 30
kill $hold 2>/dev/null
wait $hold
cat /tmp/hold.out
assert_contains "$(cat /tmp/hold.out)" "lost errno=" "the held connections were aborted"
assert_ok rmmod smc_lo

info "--- 3. an application that keeps its aborted sockets open"
kmod_load activate=1
smclo-xfer hold --conns 2 --secs 300 --stubborn >/tmp/hold.out 2>&1 &
hold=$!
wait_dmbs 4
assert_ok smclo-ctl deactivate 0
n=0
until [ "$(kmod_get removing)" = 1 ]; do n=$((n + 1)); [ $n -lt 50 ] || fail "removal did not start"; sleep 0.1; done
sleep 3
assert_ok smclo-ctl get
assert_contains "$out" "state=draining" "still removing while the sockets are open"
assert_contains "$out" "removing=1"
assert_match "$out" '^dmbs=[1-9]' "the holders are reported"
assert_fails smclo-ctl activate
assert_contains "$out" "error: 16 " "activate while the old device is being removed: EBUSY"
assert_contains "$out" "still being removed"
assert_fails rmmod smc_lo
assert_ok smclo-ctl set max-dmbs 100
kill $hold
wait $hold
kmod_wait_state inactive 30
assert_ok smclo-ctl activate
assert_eq 100 "$(kmod_get active_max_dmbs)"
assert_ok smclo-ctl deactivate 0
kmod_wait_state inactive 30
kmod_unload
smclo-ctl pnet-del "$KMOD_LO_PNETID" || true
kmod_check_dmesg
kmod_check_leaks
info "ok"
