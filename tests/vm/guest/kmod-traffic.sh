#!/bin/sh
# lanes: 7x debug
# timeout: 600
#
# Real SMC-D traffic through smc_lo, proven with smcctl: every SMC-D link group's local GID
# (smcctl linkgroup) equals the device's GID, and the device's counters (smcctl device show
# smclo) move; data is intact with read() and with splice().  Coexistence with the built-in
# "lo": with a PNET ID on "lo" (smcctl pnet add ... --ib lo) "lo" is ineligible for SMC-Dv2
# on x86 and smc_lo carries the traffic; without it the first eligible loopback device, "lo",
# does, and smcctl device says which one carries it.  Both nocopy settings.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-kmod.sh"
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
# Held until killed below: a guessed --secs can end while a loaded machine still looks.
smclo-xfer hold --conns 2 --secs 3600 >/tmp/hold.out 2>&1 &
hold=$!
n=0
while [ "$(kmod_counter dmbs)" -lt 4 ]; do
	n=$((n + 1)); [ $n -lt 100 ] || fail "expected 4 DMBs, have $(kmod_counter dmbs)"; sleep 0.2
done
lgrs_only_on "$gid" "PNET ID on lo"
assert_ok smcctl device show smclo
assert_match "$out" "State: +active, generation 1"
assert_match "$out" "Link groups: +[1-9]" "smcctl counts link groups on smclo"
assert_match "$out" "Connections: +[1-9]" "... and connections"
assert_match "$out" "DMBs: +[1-9]" "the module's DMB gauge"
assert_ok smcctl device
assert_contains "$out" "SMC-D loopback traffic: smclo (" "device list: smclo carries the traffic"
assert_contains "$out" "; lo: none"
assert_ok smcctl -j linkgroup list --smcd
assert_json "$out" '[.smcd[].device] | unique | join(",")' smclo "link groups named by device"
kill $hold
wait $hold
assert_ok smclo-xfer verify --conns 4 --bytes 4000000
assert_ok smcctl -j device show smclo
regs=$(json_get "$out" .smcd[0].smc_lo.counters.registrations)
[ "$regs" -ge 2 ] || fail "expected DMB registrations on smclo, got $regs"
[ "$(json_get "$out" .smcd[0].smc_lo.counters.moves)" -gt 0 ] || fail "no move_data calls"
[ "$(kmod_counter attaches)" -gt 0 ] || fail "nocopy is on but nothing attached"
assert_eq "$(kmod_counter attaches)" "$(kmod_counter detaches)" "every attach detached after close"
assert_eq 0 "$(kmod_counter attached)" "no attachment left"
[ "$(kmod_counter link_groups)" -ge 1 ] || fail "link_groups counter does not see SMC's link groups"
assert_ok smcctl -j stats
assert_json "$out" .summary.fallback 0 "no fallback so far"

info "--- 2. splice() from an SMC-D socket on smc_lo (physically contiguous DMBs)"
moves=$(kmod_counter moves)
assert_ok smclo-xfer verify --conns 2 --bytes 8000000 --recv splice
[ "$(kmod_counter moves)" -gt "$moves" ] || fail "splice transfer did not go through smc_lo"

info "--- control: without the PNET ID on lo, the built-in lo is first and wins"
assert_ok smcctl pnet del "$KMOD_LO_PNETID"
regs=$(kmod_counter registrations)
smclo-xfer hold --conns 1 --secs 3600 >/tmp/hold.out 2>&1 &
hold=$!
kmod_wait_lgr_on "$lo_gid"
assert_eq "$regs" "$(kmod_counter registrations)" "no new DMB on smclo"
assert_ok smcctl device
assert_match "$out" "SMC-D loopback traffic: lo \([0-9]+ link groups?\), smclo" "both carry link groups now"
kill $hold
wait $hold
assert_ok smcctl pnet add "$KMOD_LO_PNETID" --ib lo

info "--- 3. nocopy off: payload goes through move_data"
assert_ok smcctl -j device loopback-ism set nocopy off
assert_json "$out" .apply next-activation
kmod_deactivate 2
assert_ok smcctl device loopback-ism activate
regs=$(kmod_counter registrations)
bytes=$(kmod_counter move_bytes)
attaches=$(kmod_counter attaches)
assert_ok smclo-xfer verify --conns 2 --bytes 4000000
assert_ok smclo-xfer verify --conns 2 --bytes 4000000 --recv splice
[ "$(kmod_counter registrations)" -gt "$regs" ] || fail "no DMB on the re-activated smclo"
moved=$(( $(kmod_counter move_bytes) - bytes ))
[ "$moved" -ge 16000000 ] || fail "nocopy off: expected >= 16000000 bytes through move_data, got $moved"
assert_eq "$attaches" "$(kmod_counter attaches)" "nocopy off: no attach"

info "--- 4. deactivate with idle link groups (nocopy off: the drain runs to its bound), then unload"
assert_ok smcctl -j device loopback-ism deactivate --wait 2
assert_json "$out" .smc_lo.state inactive
assert_eq 0 "$(kmod_counter dmbs)" "all DMBs freed"
kmod_unload
assert_ok smcctl pnet del "$KMOD_LO_PNETID"
kmod_check_dmesg
kmod_check_leaks
info "ok"
