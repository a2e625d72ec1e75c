#!/bin/sh
# lanes: 7x debug
# timeout: 300
#
# Unload and removal while connections are open.  rmmod is refused ("in use": every DMB
# pins the module) and changes nothing; deactivation drains, removes the device, aborts
# the open connections, and finishes once their applications close them.  While an
# application keeps an aborted socket open the removal waits - without blocking the
# netlink family, a new activation (refused) or anything else - and smcctl says what holds
# it and leaves the PNET ID that keeps new connections off the device.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-kmod.sh"
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
kmod_monitor 3 60 /tmp/events
assert_ok smcctl -j device loopback-ism deactivate --wait 1
assert_json "$out" .smc_lo.state inactive
wait $KMOD_MON || fail "missing notifications: $(cat /tmp/events)"
assert_eq "draining removing deactivated " "$(kmod_events /tmp/events)" "event order"
# What held the device when the removal started (the REMOVING notification):
removing=$(sed -n '/event=removing/,/counters/p' /tmp/events | tail -n 1)
assert_match "$removing" ' dmbs=[1-9]' "DMBs reported as holders"
assert_match "$removing" ' link_groups=[1-9]' "link groups reported as holders"
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
assert_fails smcctl device loopback-ism deactivate --wait 1
assert_eq 1 "$rc" "the removal cannot finish: exit 1"
assert_contains "$out" "smclo is still being removed"
assert_match "$out" "[1-9][0-9]* DMBs" "smcctl names the holders"
assert_contains "$out" "PNET ID SMCLODRAIN keeps it out of new connections"
assert_ok smcctl -j device loopback-ism
assert_json "$out" .smc_lo.state draining "still removing while the sockets are open"
assert_json "$out" .smc_lo.removing true
[ "$(json_get "$out" .smc_lo.counters.dmbs)" -gt 0 ] || fail "the holders are reported"
assert_ok smcctl pnet list
assert_contains "$out" "SMCLODRAIN" "the PNET ID stays while the device is being removed"
assert_fails smcctl device loopback-ism activate
assert_contains "$out" "still being removed" "activate while the old device is being removed"
assert_fails rmmod smc_lo
assert_ok smcctl device loopback-ism set max-dmbs 100
kill $hold
wait $hold
kmod_wait_state inactive 30
assert_ok smcctl -j device loopback-ism activate
assert_json "$out" .smc_lo.active_settings.max_dmbs 100
assert_ok smcctl pnet list
assert_not_contains "$out" "SMCLODRAIN" "activate deleted the PNET ID the interrupted deactivation left"
kmod_deactivate 1
kmod_unload
smcctl pnet del "$KMOD_LO_PNETID" || true
kmod_check_dmesg
kmod_check_leaks
info "ok"
