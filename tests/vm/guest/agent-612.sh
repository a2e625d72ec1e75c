#!/bin/sh
# lanes: 612
# timeout: 300
#
# smcd-agent on Debian's stock 6.12 kernel: smc and smc_diag are modules (the agent loads
# them with libkmod), there is no SMC-D device, and the sysctls of later kernels are
# missing.  The agent must configure what exists, report each missing feature once, and
# drive the handshake limitation through netlink.
# Host programs: dbus-daemon and busctl (vm-run --host-bin dbus-daemon --host-bin busctl).
. "$(dirname "$0")/lib.sh"
require_cmd smcd-agent dbus-daemon busctl

M="$SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_MANAGER"
prop() { busctl get-property $M "$1"; }

start_system_bus

if module_loaded smc; then
	info "smc is loaded already"
else
	info "smc is not loaded: the agent loads it"
fi

mkdir -p /etc/smc
cat >/etc/smc/smc.yaml <<'EOF2'
handshake-limitation: true
sysctl:
  wmem: 1MiB
  rmem: 512KiB
  smcr_max_send_wr: 64
modules: [smc, smc_diag]
drift: {interval: 2s}
auto: {mode: on, window: 10s}
EOF2

start_agent
# The autopilot on 6.12: it can switch sockets to SMC, but has no smc_hs_ctrl to keep a
# churning server's port off SMC for its clients.
AP="$SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_AUTOPILOT"
assert_eq 's ""' "$(busctl get-property $AP Error)" "6.12: the autopilot can act"
doc=$(busctl --json=short call $AP GetWorkloads | jq -r '.data[0]')
assert_json "$doc" .kernel.can_switch true "6.12: can switch sockets"
assert_json "$doc" .kernel.can_exclude false "6.12: cannot exclude ports (no smc_hs_ctrl)"

# What the start applied, from its log: LastReconcile may already be a later drift check
# (every 2 s; agent-7x read "unchanged" there in a loaded run).
run prop LastReconcile
info "$out"
log=$(cat /tmp/agent.log)
assert_contains "$log" 'module:smc: loaded' "smc loaded by the agent (libkmod)"
assert_contains "$log" 'module:smc_diag: loaded' "smc_diag loaded by the agent"
assert_contains "$log" 'sysctl:wmem: set to' "wmem set"
assert_contains "$log" 'sysctl:rmem: set to 524288 (was 65536)' "rmem set"
assert_contains "$out" '"sysctl:smcr_max_send_wr" "unsupported" "this kernel has no net.smc.smcr_max_send_wr' \
	"a sysctl of a later kernel is reported unsupported"
assert_contains "$log" 'handshake-limitation: set to true (was false)' "handshake limitation via netlink"
assert_match "$out" '"ueid:APP-[0-9A-F]{28}"' "the derived UEID (app-specific)"
assert_eq 1048576 "$(cat /proc/sys/net/smc/wmem)" "net.smc.wmem"
assert_eq 524288 "$(cat /proc/sys/net/smc/rmem)" "net.smc.rmem"
assert_eq 1 "$(cat /proc/sys/net/smc/limit_smc_hs)" "limit_smc_hs follows handshake-limitation"
assert_eq 's "running"' "$(prop State)" "unsupported items do not degrade the state"
run prop Capabilities
info "$out"
assert_contains "$out" '"loopback" b false' "no SMC-D device on this kernel"

# Two drift checks, counted by the agent's LastCheckUSec (seconds could pass without one on
# a loaded machine): each looks at the sysctl again and must not report it again.
wait_drift_checks 2
n=$(grep -c 'SMC_ITEM=sysctl:smcr_max_send_wr' /tmp/agent.log)
assert_eq 1 "$n" "the missing sysctl is reported once across drift checks"

# Read before the change: a repair after it moves DriftRepairs.
repairs=$(prop DriftRepairs)
repaired() { [ "$(prop DriftRepairs)" != "$repairs" ]; }
echo 0 >/proc/sys/net/smc/limit_smc_hs
wait_until 60 "a drift check repairs limit_smc_hs (DriftRepairs stays ${repairs#t })" repaired
assert_eq 1 "$(cat /proc/sys/net/smc/limit_smc_hs)" "handshake limitation repaired"

kill $agent
wait $agent
assert_eq 0 "$?" "the agent stops cleanly"
exit 0
