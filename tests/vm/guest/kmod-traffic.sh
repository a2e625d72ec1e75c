#!/bin/sh
# lanes: 7x debug
# timeout: 300
#
# Real SMC-D traffic through smc_lo, verified to be on our device: every SMC-D link group's
# local GID equals the device GID, our counters move, and data is intact with read() and
# with splice().  Coexistence with the built-in "lo": with a PNET ID on "lo" (SMC_PNETID
# IBNAME=lo) "lo" is ineligible for SMC-Dv2 on x86 and smc_lo carries the traffic; without
# it the first eligible loopback device, "lo", does.  Both nocopy settings.
. "$(dirname "$0")/lib.sh"
kmod_lib=$(find / -xdev -name kmod-lib.sh 2>/dev/null | head -n 1)
[ -n "$kmod_lib" ] || skip "kmod-lib.sh is not in the guest (run with kmod/vm-test)"
. "$kmod_lib"
kmod_require

lo_gid=$(kmod_sysfs_gid lo)
kmod_load activate=1
gid=$(kmod_get gid)
info "lo GID $lo_gid, smclo GID $gid"

# lgrs_only_on GID WHAT: at least one SMC-D link group exists and all are on GID.
# Careful: 7.3's SMC_NETLINK_GET_LGR_SMCD dump does not reset its per-device cursor when it
# moves to the next device (smc_nl_fill_smcd_dev/smc_nl_handle_smcd_lgr, cb_ctx->pos[1]),
# so a device's link groups are hidden when an earlier device in the list has as many or
# more.  "lo" sorts first; the dump is only trusted while "lo" has no link group.
lgrs_only_on() {
	_g=$(kmod_lgr_gids | sort -u)
	info "SMC-D link group GIDs: $(echo $_g)"
	[ -n "$_g" ] || fail "$2: no SMC-D link group (did the connections fall back to TCP?)"
	assert_eq "$1" "$_g" "$2: link groups on the expected device"
}

info "--- 1. UEID and a PNET ID on lo: smc_lo carries SMC-D"
kmod_smc_setup
assert_ok smclo-xfer verify --conns 4 --bytes 4000000
lgrs_only_on "$gid" "PNET ID on lo"
regs=$(kmod_counter registrations)
[ "$regs" -ge 2 ] || fail "expected DMB registrations on smclo, got $regs"
[ "$(kmod_counter moves)" -gt 0 ] || fail "no move_data calls"
[ "$(kmod_counter attaches)" -gt 0 ] || fail "nocopy is on but nothing attached"
assert_eq "$(kmod_counter attaches)" "$(kmod_counter detaches)" "every attach detached after close"
assert_eq 0 "$(kmod_counter attached)" "no attachment left"
[ "$(kmod_counter link_groups)" -ge 1 ] || fail "link_groups counter does not see SMC's link groups"
assert_eq 0 "$(smclo-ctl fback | wc -l)" "no fallback so far: $(smclo-ctl fback)"

info "--- 3. splice() from an SMC-D socket on smc_lo (physically contiguous DMBs)"
moves=$(kmod_counter moves)
assert_ok smclo-xfer verify --conns 2 --bytes 8000000 --recv splice
[ "$(kmod_counter moves)" -gt "$moves" ] || fail "splice transfer did not go through smc_lo"

info "--- control: without the PNET ID on lo, the built-in lo is first and wins"
assert_ok smclo-ctl pnet-del "$KMOD_LO_PNETID"
regs=$(kmod_counter registrations)
assert_ok smclo-xfer verify --conns 1 --bytes 1000000
assert_eq "$regs" "$(kmod_counter registrations)" "no new DMB on smclo"
kmod_lgr_gids | grep -q "$lo_gid" || fail "no link group on lo: $(smclo-ctl lgrs)"
assert_ok smclo-ctl pnet-add "$KMOD_LO_PNETID" lo

info "--- 4. nocopy off: payload goes through move_data"
assert_ok smclo-ctl set nocopy off
assert_contains "$out" "apply=next-activation"
assert_ok smclo-ctl deactivate 0
kmod_wait_state inactive 30
assert_ok smclo-ctl activate
regs=$(kmod_counter registrations)
bytes=$(kmod_counter move_bytes)
attaches=$(kmod_counter attaches)
assert_ok smclo-xfer verify --conns 2 --bytes 4000000
assert_ok smclo-xfer verify --conns 2 --bytes 4000000 --recv splice
[ "$(kmod_counter registrations)" -gt "$regs" ] || fail "no DMB on the re-activated smclo"
moved=$(( $(kmod_counter move_bytes) - bytes ))
[ "$moved" -ge 16000000 ] || fail "nocopy off: expected >= 16000000 bytes through move_data, got $moved"
assert_eq "$attaches" "$(kmod_counter attaches)" "nocopy off: no attach"

info "--- 5. deactivate with idle link groups, then unload"
assert_ok smclo-ctl deactivate 200
kmod_wait_state inactive 30
assert_eq 0 "$(kmod_counter dmbs)" "all DMBs freed"
kmod_unload
assert_ok smclo-ctl pnet-del "$KMOD_LO_PNETID"
kmod_check_dmesg
kmod_check_leaks
info "ok"
