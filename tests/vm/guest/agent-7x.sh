#!/bin/sh
# lanes: 7x
# timeout: 300
#
# smcd-agent on a real SMC kernel: started with a yaml, the kernel gets the UEID and the
# sysctls; a sysctl broken by hand is repaired within the drift interval; a bad file on
# reload is refused and the old config kept; SMC-D connections through the loopback device
# then work (which needs the UEID) and their link group appears on D-Bus while they run.
# Host programs: dbus-daemon and busctl (vm-run --host-bin dbus-daemon --host-bin busctl).
. "$(dirname "$0")/lib.sh"
require_cmd smcd-agent smcctl smc-conn dbus-daemon busctl

M="$SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_MANAGER"
prop() { busctl get-property $M "$1"; }

start_system_bus

mid=$(cat /etc/machine-id)
# ueid.derive's default, app-specific, as smcctl derives it (test-common-ueid-derive checks
# that derivation against libsystemd's sd_id128_get_machine_app_specific()); the seed's
# MID- form as the shell derives it.
ueid=$(smcctl ueid derive)
mid_ueid="MID-$(printf '%s' "$mid" | cut -c1-27 | tr 'a-f' 'A-F')"
info "machine-id $mid, expected UEID $ueid (MID- form $mid_ueid)"
assert_match "$ueid" '^APP-[0-9A-F]{28}$' "the app-specific UEID"
assert_eq "$mid_ueid" "$(smcctl ueid derive --derive machine-id)" "the seed's UEID, unchanged"
# An upgraded host: the kernel holds the MID- UEID the agent added before the upgrade.
modprobe smc
assert_ok smcctl ueid derive --derive machine-id --apply
info "before: wmem $(cat /proc/sys/net/smc/wmem) rmem $(cat /proc/sys/net/smc/rmem)"

mkdir -p /etc/smc
cat >/etc/smc/smc.yaml <<'EOF'
# the shipped defaults, with short intervals for the test
ueid: {auto: true}
sysctl:
  wmem: 1MiB
  rmem: 1MiB
modules: [smc, smc_diag]
drift: {action: repair, interval: 2s}
monitor: {interval: 1s}
EOF
assert_ok smcd-agent --check-config /etc/smc/smc.yaml

# The binary may be built for another prefix: name the file.
start_agent
info "agent up"

run prop State
assert_eq 's "running"' "$out" "State on a kernel with SMC"
# What the start applied, from its log: LastReconcile may already be a later drift check
# (every 2 s; a loaded run read "unchanged" there).
run prop LastReconcile
info "$out"
assert_contains "$(cat /tmp/agent.log)" "ueid:$ueid: added" "the derived UEID was added"
assert_contains "$(cat /tmp/agent.log)" \
	"ueid:$mid_ueid: removed: this machine's UEID by ueid.derive: machine-id, replaced by $ueid (ueid.derive: app-specific); to keep it, set ueid.derive: machine-id or list it in ueid.entries" \
	"the MID- UEID of the upgraded host was removed, the log says by what and how to keep it"
assert_ok smcctl ueid
assert_contains "$out" "$ueid" "the kernel's table holds the app-specific UEID"
assert_not_contains "$out" "$mid_ueid" "and no longer the MID- one"
assert_contains "$(cat /tmp/agent.log)" "sysctl:wmem: set to 1048576 (was 65536)" "wmem set"
assert_eq 1048576 "$(cat /proc/sys/net/smc/wmem)" "net.smc.wmem in the kernel"
assert_eq 1048576 "$(cat /proc/sys/net/smc/rmem)" "net.smc.rmem in the kernel"
run prop Capabilities
info "$out"
assert_contains "$out" '"smc_gen_netlink" b true' "capabilities: SMC netlink"
assert_contains "$out" '"loopback" b true' "capabilities: loopback device"

# Idempotent: asking again changes nothing.
run busctl call $M Reconcile
assert_contains "$out" "\"ueid:$ueid\" \"unchanged\"" "the UEID is in the kernel's table"
assert_not_contains "$out" '"applied"' "a second pass applies nothing"

# Broken by hand, repaired at the next drift check (every 2 s): DriftRepairs, read before the
# change, moves when it is done (and logged).
repairs=$(prop DriftRepairs)
repaired() { [ "$(prop DriftRepairs)" != "$repairs" ]; }
echo 65536 >/proc/sys/net/smc/wmem
wait_until 60 "a drift check repairs wmem (DriftRepairs stays ${repairs#t })" repaired
assert_eq 1048576 "$(cat /proc/sys/net/smc/wmem)" "wmem repaired after being changed by hand"
assert_contains "$(cat /tmp/agent.log)" "MESSAGE_ID=176145134e62472abf3d96f24b5d4150 SMC_ITEM=sysctl:wmem" \
	"drift-repaired logged"

# A bad file on reload: refused, the old config stays (and keeps being enforced).
rev=$(prop ConfigRevision)
printf 'sysctl:\n  wmem: 4KiB\n' >/etc/smc/smc.yaml
run busctl call $M Reload
assert_ne 0 "$rc" "Reload of a bad file fails"
assert_contains "$out" "/etc/smc/smc.yaml:2:9: sysctl.wmem: 4KiB is out of range" "the error has its location"
assert_eq "$rev" "$(prop ConfigRevision)" "the running config stays"
repairs=$(prop DriftRepairs)
echo 65536 >/proc/sys/net/smc/wmem
wait_until 60 "a drift check repairs wmem after the refused reload" repaired
assert_eq 1048576 "$(cat /proc/sys/net/smc/wmem)" "the old config is still repaired after a refused reload"

# SMC-D through the loopback device, with the UEID the agent set.  The link group appears
# on D-Bus while the connections are open: held until the test has looked (SIGUSR1), not
# for a guessed time (--hold 8 was four busctl calls on a loaded machine).
smc-conn pair --conns 2 --bytes 4M --hold 3600 >/tmp/conn.log 2>&1 &
conn=$!
wait_conns /tmp/conn.log 2
busctl call $M Refresh
run busctl tree --list $SMCD_BUS_NAME
info "$out"
lg=$(printf '%s\n' "$out" | grep "$SMCD_BUS_PATH_LINKGROUP/smcd/" | head -n 1)
[ -n "$lg" ] || { cat /tmp/conn.log; fail "no SMC-D link-group object on D-Bus while connections run"; }
run busctl get-property $SMCD_BUS_NAME "$lg" $SMCD_BUS_IFACE_LINKGROUP Connections
info "$lg: connections $out"
assert_match "$out" '^u [1-9]' "the link group has connections"
run busctl get-property $SMCD_BUS_NAME "$lg" $SMCD_BUS_IFACE_LINKGROUP Device
assert_eq 's "lo"' "$out" "the link group is on the loopback device"
run busctl get-property $SMCD_BUS_NAME "$lg" $SMCD_BUS_IFACE_LINKGROUP NegotiatedEid
assert_eq "s \"$ueid\"" "$out" "the link group negotiated the agent's UEID"
run busctl get-property $SMCD_BUS_NAME $SMCD_BUS_PATH_SMCD_DEVICE/lo $SMCD_BUS_IFACE_DEVICE Loopback
assert_eq "b true" "$out" "the loopback device object"
kill -USR1 $conn
wait $conn
info "$(tail -n 1 /tmp/conn.log)"
assert_json "$(tail -n 1 /tmp/conn.log)" .ok 2 "both connections moved their data"
assert_json "$(tail -n 1 /tmp/conn.log)" .smcd 2 "both used SMC-D (the agent's UEID made it possible)"
# The kernel keeps an idle link group for minutes; its object stays and shows 0 connections
# once the kernel has closed them (after smc-conn exits, not at once).
lg_idle() {
	busctl call $M Refresh &&
		[ "$(busctl get-property $SMCD_BUS_NAME "$lg" $SMCD_BUS_IFACE_LINKGROUP Connections)" = "u 0" ]
}
wait_until 30 "the link group's connections back to 0 after the close" lg_idle
busctl call $M Refresh
run busctl get-property $SMCD_BUS_NAME "$lg" $SMCD_BUS_IFACE_LINKGROUP Connections
assert_eq "u 0" "$out" "the link group's connections went back to 0"

kill $agent
wait $agent
assert_eq 0 "$?" "the agent stops cleanly"
exit 0
