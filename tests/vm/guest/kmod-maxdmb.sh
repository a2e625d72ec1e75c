#!/bin/sh
# lanes: 7x debug
# timeout: 480
#
# DMB exhaustion at max_dmbs: with max-dmbs 4 (smcctl), two open connections (one DMB per
# end) use them all; the next connection is declined with SMC_CLC_DECL_MAX_DMB
# (0x030d0000) and falls back to TCP cleanly, with intact data; smcctl stats names it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-kmod.sh"
kmod_require

kmod_load
assert_ok smcctl device loopback-ism set max-dmbs 4
assert_ok smcctl -j device loopback-ism activate
assert_json "$out" .smc_lo.active_settings.max_dmbs 4
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
[ "$(kmod_fback server MAX_DMB)" -gt 0 ] || fail "server did not decline with MAX_DMB: $(smcctl stats)"
[ "$(kmod_fback client PEERDECL)" -gt 0 ] || fail "client did not fall back on the peer's decline"
assert_ok smcctl stats
assert_contains "$out" "MAX_DMB" "smcctl stats names the reason"
kill $hold
wait $hold
kmod_deactivate 1
kmod_unload
kmod_check_dmesg
kmod_check_leaks
info "ok"
