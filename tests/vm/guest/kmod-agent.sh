#!/bin/sh
# lanes: 7x
# timeout: 300
#
# Issue 6's acceptance for the agent, on the real kernel with our module: smcd-agent applies
# a loopback: section (loads smc_lo with libkmod from /lib/modules, activates the device with
# the file's settings, gives "lo" the PNET ID), real SMC-D traffic then runs on smclo (link
# groups with its GID, its counters moving - on D-Bus, in smcctl device show smclo), the
# device object follows (PropertiesChanged on a re-activation for a new setting), a
# deactivation made behind the agent's back is repaired, smcctl's changes of what the file
# owns are refused, and active: false gives SMC-D loopback back to "lo".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-kmod.sh"
kmod_require
require_cmd smcd-agent

M="$SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_MANAGER"
DEV=$SMCD_BUS_PATH_SMCD_DEVICE/smclo
D="$SMCD_BUS_NAME $DEV $SMCD_BUS_IFACE_LOOPBACK_DEVICE"
prop() { busctl get-property $M "$1"; }
dprop() { busctl get-property $D "$1" | sed 's/^[a-z] //; s/"//g'; }

# Installed like the DKMS package installs it: libkmod finds it by name.
kver=$(uname -r)
mkdir -p "/lib/modules/$kver/extra"
cp "$KMOD_KO" "/lib/modules/$kver/extra/smc_lo.ko"
depmod -a "$kver" || fail "depmod"
module_loaded smc_lo && fail "smc_lo is loaded before the agent starts"

start_system_bus

mkdir -p /etc/smc
write_config() { # LOOPBACK-SECTION
	cat >/etc/smc/smc.yaml <<EOF
ueid: {auto: true}
sysctl: {wmem: 1MiB, rmem: 1MiB}
modules: [smc, smc_diag]
drift: {action: repair, interval: 2s}
monitor: {interval: 1s}
$1
stats: {interval: 1s}
EOF
}
write_config "loopback:
  active: true
  max-dmbs: 256"
assert_ok smcd-agent --check-config /etc/smc/smc.yaml
start_agent

info "--- the agent applies the loopback: section"
# What the start applied, from its log: LastReconcile may already be a later drift check
# (every 2 s here), the race a loaded run hit in agent-7x and below.
run prop LastReconcile
log=$(cat /tmp/agent.log)
assert_contains "$log" 'loopback:module: loaded' "smc_lo loaded with libkmod"
assert_contains "$log" 'loopback:settings: ' "max-dmbs stored"
assert_contains "$log" 'loopback:state: activated (generation 1)' "smclo activated"
assert_contains "$log" 'loopback:take-over-lo: ' "lo got its PNET ID"
assert_eq 's "running"' "$(prop State)" "State"
module_loaded smc_lo || fail "smc_lo is not loaded"
assert_eq active "$(dprop State)" "D-Bus: the device is active"
assert_eq 256 "$(dprop ActiveMaxDmbs)" "D-Bus: running with the file's max-dmbs"
gid=$(dprop Gid)
assert_eq "$(tr -d '\n' </sys/class/dibs/smclo/gid)" "$gid" "D-Bus: the device's GID"
assert_ok smcctl pnet list
assert_match "$out" "SMCDVIASMCLO +ib +lo" "lo's PNET ID"

info "--- real SMC-D traffic on smclo"
smclo-xfer hold --conns 2 --secs 60 >/tmp/hold.out 2>&1 &
hold=$!
n=0
while [ "$(kmod_counter dmbs)" -lt 4 ]; do
	n=$((n + 1)); [ $n -lt 100 ] || fail "expected 4 DMBs, have $(kmod_counter dmbs)"; sleep 0.2
done
hex=$(printf '%s' "$gid" | tr -d -)
assert_eq "$hex" "$(kmod_lgr_gids | sort -u)" "every SMC-D link group is on smclo's GID"
assert_ok busctl call $M Refresh
[ "$(dprop Dmbs)" -ge 4 ] || fail "D-Bus: Dmbs $(dprop Dmbs)"
[ "$(dprop LinkGroups)" -ge 1 ] || fail "D-Bus: LinkGroups $(dprop LinkGroups)"
[ "$(dprop Registrations)" -ge 4 ] || fail "D-Bus: Registrations $(dprop Registrations)"
assert_ok smcctl device show smclo
assert_match "$out" "Link groups: +[1-9]" "smcctl device show smclo: link groups"
assert_match "$out" "Registrations: +[1-9]" "... and the module's counters"
kill $hold
wait $hold
assert_ok smclo-xfer verify --conns 2 --bytes 2000000
moves=$(dprop Moves)
# A monitor interval's refresh of the counters after that read: with stats.interval equal to
# monitor.interval the statistics sample runs right after each refresh and moves TimestampUSec.
wait_samples 1
[ "$(dprop Moves)" -ge "$moves" ] || fail "D-Bus: Moves went backwards"
assert_ok smcctl -j stats
assert_json "$out" .summary.fallback 0 "no connection fell back to TCP"

info "--- runtime changes of what the file owns are refused"
assert_fails smcctl device loopback-ism deactivate
assert_contains "$out" "The loopback device's state is managed by /etc/smc/smc.yaml:7:11"
assert_fails smcctl device loopback-ism set max-dmbs 10
assert_contains "$out" "loopback.max-dmbs is managed by /etc/smc/smc.yaml:8:13"
assert_ok smcctl device loopback-ism set nocopy on
assert_eq active "$(dprop State)" "an unowned setting is stored, the device stays"

info "--- drift: deactivated behind the agent's back (no traffic now), repaired"
assert_ok smcnl-record /tmp/raw smclo-raw 3 10=500
# No wait for "inactive" in between: the agent hears the module's "deactivated"
# notification and may well have activated the device again before the first look.
n=0
until [ "$(kmod_get state)" = active ] && [ "$(kmod_get generation)" = 2 ]; do
	n=$((n + 1)); [ $n -lt 100 ] || fail "not removed and re-activated within 20 s: $(kmod_json)"; sleep 0.2
done
assert_eq 1 "$(kmod_counter deactivations)" "the device was removed once (by the test)"
assert_eq 2 "$(kmod_counter activations)" "and activated again (by the agent)"
assert_contains "$(cat /tmp/agent.log)" "SMC_ITEM=loopback:state" "the repair is logged"

info "--- a new setting: re-activation, PropertiesChanged"
start_bus_monitor /tmp/signals "type='signal',interface='org.freedesktop.DBus.Properties',path='$DEV'"
write_config "loopback:
  active: true
  max-dmbs: 512"
assert_ok busctl call $M Reload
# From the log, as above: a loaded run read a later drift check's LastReconcile here.
assert_contains "$(cat /tmp/agent.log)" "re-activated with the file" "re-activated for max-dmbs 512"
assert_eq 512 "$(dprop ActiveMaxDmbs)" "D-Bus: running with 512"
assert_eq 3 "$(dprop Generation)" "D-Bus: generation 3"
# The signal was sent before Reload answered; the monitor prints it a moment later.
wait_until 30 "busctl monitor shows a PropertiesChanged naming ActiveMaxDmbs" grep -q ActiveMaxDmbs /tmp/signals
kill $bmon
assert_contains "$(cat /tmp/signals)" "ActiveMaxDmbs" "PropertiesChanged names ActiveMaxDmbs"
assert_ok smcctl pnet list
assert_not_contains "$out" "SMCLODRAIN" "the re-activation deleted its drain PNET ID"

info "--- smc_lo unloaded and loaded again under the running agent (a new family id)"
# No periodic refresh or reconcile: only smc_lo's notifications (and nlctrl's) tell the agent.
cat >/etc/smc/smc.yaml <<EOF
ueid: {auto: true}
sysctl: {wmem: 1MiB, rmem: 1MiB}
modules: [smc, smc_diag]
drift: {action: repair, interval: 0}
monitor: {interval: 0}
loopback:
  active: true
  max-dmbs: 512
EOF
assert_ok busctl call $M Reload
rmmod smc_lo || fail "rmmod smc_lo: $(lsmod | grep smc_lo)"
modprobe smc_lo || fail "modprobe smc_lo"
n=0
until [ "$(dprop State 2>/dev/null)" = inactive ]; do
	n=$((n + 1)); [ $n -lt 50 ] || fail "no inactive device object within 10 s: $(busctl tree $SMCD_BUS_NAME)"; sleep 0.2
done
# The device object can turn inactive before the agent has logged nlctrl's message (the
# Reload's pending re-activation reads the new module's device as well): wait for the line.
wait_until 30 "the agent heard nlctrl" \
	grep -q "netlink family was unregistered or registered again" /tmp/agent.log
assert_ok busctl call $M Reconcile
run prop LastReconcile
assert_contains "$out" '"loopback:state" "applied" "activated (generation 1)"' \
	"activated through the new family id"
assert_not_contains "$out" '"failed"' "no loopback item failed"
assert_eq active "$(kmod_get state)" "the module's device is active"
assert_eq active "$(dprop State)" "D-Bus: active"
# A change behind the agent's back: only the re-opened monitor can tell it.
assert_ok smcnl-record /tmp/raw-set smclo-set nocopy off
n=0
until [ "$(dprop Nocopy)" = false ]; do
	n=$((n + 1)); [ $n -lt 50 ] || fail "the agent saw no notification after the reload"; sleep 0.2
done
info "--- active: false gives SMC-D loopback back to lo"
write_config "loopback:
  active: false"
mark=$(wc -c </tmp/agent.log)
assert_ok busctl call $M Reload
# What the Reload applied, from the log it wrote before it answered: LastReconcile may be a
# later drift check already (every 2 s here), as a loaded run of the suite saw.
log=$(tail -c +$((mark + 1)) /tmp/agent.log)
assert_contains "$log" 'loopback:take-over-lo: removed PNET ID SMCDVIASMCLO from lo' \
	"the reload took lo's PNET ID away"
assert_contains "$log" 'loopback:state: deactivated' "the reload deactivated smclo"
assert_eq inactive "$(dprop State)" "D-Bus: inactive"
assert_ok smcctl pnet list
assert_not_contains "$out" "SMCDVIASMCLO" "lo has no PNET ID any more"
lo_gid=$(kmod_sysfs_gid lo)
smclo-xfer hold --conns 1 --secs 30 >/tmp/hold.out 2>&1 &
hold=$!
kmod_wait_lgr_on "$lo_gid"
kill $hold
wait $hold

kill $agent
wait $agent
assert_eq 0 "$?" "the agent stops cleanly"
kmod_check_dmesg
info "ok"
