#!/bin/sh
# lanes: 7x debug
# timeout: 240
#
# DMB exhaustion at max_dmbs: with max_dmbs=4, two open connections (one DMB per end)
# use them all; the next connection is declined with SMC_CLC_DECL_MAX_DMB (0x030d0000)
# and falls back to TCP cleanly, with intact data.
. "$(dirname "$0")/lib.sh"
kmod_lib=$(find / -xdev -name kmod-lib.sh 2>/dev/null | head -n 1)
[ -n "$kmod_lib" ] || skip "kmod-lib.sh is not in the guest (run with kmod/vm-test)"
. "$kmod_lib"
kmod_require

kmod_load activate=1 max_dmbs=4
kmod_smc_setup
smclo-xfer hold --conns 2 --secs 300 >/tmp/hold.out 2>&1 &
hold=$!
n=0
while [ "$(kmod_counter dmbs)" -lt 4 ]; do
	n=$((n + 1)); [ $n -lt 100 ] || fail "expected 4 DMBs, have $(kmod_counter dmbs)"; sleep 0.2
done
assert_eq 0 "$(kmod_counter limit_rejects)"
assert_ok smclo-xfer verify --conns 2 --bytes 2000000
[ "$(kmod_counter limit_rejects)" -gt 0 ] || fail "no registration was refused at max_dmbs"
assert_eq 4 "$(kmod_counter dmbs)" "never more than max_dmbs DMBs"
assert_ok smclo-ctl fback
assert_match "$out" '^server 0x030d0000 [1-9]' "server declined with SMC_CLC_DECL_MAX_DMB"
assert_match "$out" '^client 0x05000000 [1-9]' "client fell back on the peer's decline"
kill $hold
wait $hold
assert_ok smclo-ctl deactivate 0
kmod_wait_state inactive 30
kmod_unload
kmod_check_dmesg
kmod_check_leaks
info "ok"
