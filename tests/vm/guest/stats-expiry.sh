#!/bin/sh
# timeout: 1000
#
# No "lanes:" header: not part of a lane (it takes 11 minutes); run it by hand:
#   tests/vm/vm-run --lane 7x --bin cli/smcctl --bin smcd-agent/smcd-agent \
#     --bin tests/tools/smc-conn --host-bin jq --host-bin dbus-daemon --host-bin busctl \
#     tests/vm/guest/stats-expiry.sh
#
# A link group disappears after its connections close: the kernel frees an idle SMC-D link
# group SMC_LGR_FREE_DELAY_SERV (600 s) after its last connection, and nothing in 7.3 lets
# user space end it sooner (there is no netlink command, and the loopback device cannot
# be removed).  Then it must leave the Prometheus file, its D-Bus object must go
# (InterfacesRemoved, "linkgroup-removed" in smcctl monitor) and the removed counter count it,
# within one interval.
. "$(dirname "$0")/lib.sh"
require_cmd smcd-agent smcctl smc-conn jq dbus-daemon busctl

PROM=/tmp/prom/smc.prom
start_system_bus
mkdir -p /tmp/prom /tmp/state
export STATE_DIRECTORY=/tmp/state
mkdir -p /etc/smc
printf 'ueid: {auto: true}\nmonitor: {interval: 5s}\nstats: {interval: 5s, prometheus: {path: %s}}\n' $PROM >/etc/smc/smc.yaml
start_agent $PROM
start_monitor /tmp/monitor.json

assert_ok smc-conn pair --conns 1 --bytes 1M
now() { cut -d' ' -f1 /proc/uptime; }
closed=$(now)
# Two samples after the close (TimestampUSec), whatever the machine's speed.
wait_samples 2
run grep '^smc_linkgroup' $PROM
assert_match "$out" '^smc_linkgroups\{technology="smcd"\} [1-9]' "the idle link groups are still there"
lgs=$(awk '$1 == "smc_linkgroups{technology=\"smcd\"}" { print $2 }' $PROM)
info "$lgs idle SMC-D link group(s) at $(now)s; the kernel frees them 600 s after the close (${closed}s)"
i=0
while [ $i -lt 140 ]; do
	grep -qx 'smc_linkgroups{technology="smcd"} 0' $PROM && break
	sleep 5
	i=$((i + 1))
done
gone=$(now)
assert_match "$(cat $PROM)" '^smc_linkgroups\{technology="smcd"\} 0$' "the link groups left the file"
info "gone from the file $(awk -v a="$closed" -v b="$gone" 'BEGIN { printf "%.0f", b - a }')s after the close"
assert_match "$(cat $PROM)" "^smc_linkgroups_removed_total\\{technology=\"smcd\"\\} $lgs\$" "counted as removed"
assert_not_contains "$(cat $PROM)" 'smc_linkgroup_connections{' "no per-link-group series left"
run busctl tree --list $SMCD_BUS_NAME
assert_not_contains "$out" "/linkgroup/smcd/" "the D-Bus objects are gone"
kill $agent
stop_monitor /tmp/monitor.json
assert_eq "$lgs" "$(grep -c '"event":"linkgroup-removed"' /tmp/monitor.json)" "smcctl monitor reported each removal"
exit 0
