#!/bin/sh
# lanes: 61
# timeout: 300
#
# smcd-agent on Debian 12's own kernel (6.1): it loads smc and smc_diag (libkmod), adds the
# derived UEID, sets the sysctls 6.1 has and reports each one it lacks once, as unsupported,
# without degrading; the handshake limitation has no sysctl on 6.1 and goes through netlink
# (and is repaired there); every smc.yaml policy is reported unsupported, naming the missing
# kernel hook; smcctl run asked of the agent falls back to LD_PRELOAD and says why; the
# fallbacks are attributed (the smc module's tracepoint exists on 6.1).
. "$(dirname "$0")/lib.sh"
require_cmd smcd-agent smcctl smc-conn smc-threads dbus-daemon busctl jq
export SMCD_PRELOAD_LIB=/usr/local/bin/libsmc-preload.so
export STATE_DIRECTORY=/tmp/state
M="$SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_MANAGER"
prop() { busctl get-property $M "$1"; }
last() { printf '%s\n' "$out" | grep '^{' | tail -n 1; }
HOOKS="this kernel has no update_socket_protocol hook (Linux 6.6) and no IPPROTO_SMC (6.11)"

start_system_bus
module_loaded smc && skip "smc is loaded already: this test is about the agent loading it"
mkdir -p /etc/smc /tmp/state /sys/fs/cgroup/smc-on
cat >/etc/smc/smc.yaml <<'EOF2'
handshake-limitation: true
ueid: {auto: true}
sysctl:
  wmem: 1MiB
  rmem: 512KiB
  smcr_testlink_time: 20s
  smcr_max_links_per_lgr: 1
  smcr_max_send_wr: 64
modules: [smc, smc_diag]
drift: {action: repair, interval: 2s}
policies:
  cgroups: [/smc-on]
  netns: [smc-ns]
  exclude: [{port: 5555}]
auto: {mode: on, window: 10s}
EOF2
assert_ok smcd-agent --check-config /etc/smc/smc.yaml
start_agent
# The autopilot on 6.1: it cannot switch sockets to SMC (no IPPROTO_SMC, no
# update_socket_protocol), so it can only observe, and says why.
AP="$SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_AUTOPILOT"
assert_eq 's "on"' "$(busctl get-property $AP Mode)" "auto.mode on"
assert_contains "$(busctl get-property $AP Error)" "cannot switch sockets to SMC" "6.1: the autopilot says why it only observes"
assert_json "$(busctl --json=short call $AP GetWorkloads | jq -r '.data[0]')" .kernel.can_switch false "6.1: cannot switch"

# What the start applied, from its log (LastReconcile may be a later drift check already),
# once it says it started.
started() { grep -q "Started: configuration" /tmp/agent.log; }
wait_until 60 "the agent logs its start" started
log=$(cat /tmp/agent.log)
assert_contains "$log" 'module:smc: loaded' "smc loaded by the agent"
assert_contains "$log" 'module:smc_diag: loaded' "smc_diag loaded by the agent"
assert_contains "$log" "ueid:$(smcctl ueid derive)" "the derived UEID (app-specific)"
assert_contains "$log" 'handshake-limitation: set to true (was false)' "handshake limitation via netlink"
assert_contains "$log" 'sysctl:wmem: set to 1048576 (was 65536)' "wmem set"
assert_contains "$log" 'sysctl:rmem: set to 524288 (was 65536)' "rmem set"
assert_contains "$log" 'sysctl:smcr_testlink_time: set to 20 (was 30)' "smcr_testlink_time set"
assert_eq 1048576 "$(cat /proc/sys/net/smc/wmem)" "net.smc.wmem"
assert_eq 524288 "$(cat /proc/sys/net/smc/rmem)" "net.smc.rmem"
assert_eq 20 "$(cat /proc/sys/net/smc/smcr_testlink_time)" "net.smc.smcr_testlink_time"
run prop LastReconcile
info "$out"
assert_contains "$out" '"sysctl:smcr_max_links_per_lgr" "unsupported" "this kernel has no net.smc.smcr_max_links_per_lgr (it appeared in Linux 6.8)"'
assert_contains "$out" '"sysctl:smcr_max_send_wr" "unsupported" "this kernel has no net.smc.smcr_max_send_wr'
assert_contains "$out" "\"policy:cgroup:/smc-on\" \"unsupported\" \"$HOOKS"
assert_contains "$out" "\"policy:netns:/run/netns/smc-ns\" \"unsupported\" \"$HOOKS"
assert_contains "$out" '"policy:exclude:*:5555" "unsupported" "this kernel has no smc_hs_ctrl (Linux 6.19 or later'
assert_eq 's "running"' "$(prop State)" "unsupported items do not degrade the state"
run prop Capabilities
assert_contains "$out" '"ipproto_smc" b false'
assert_contains "$out" '"smc_release" y 0'

# Each policy entry, with the hook it lacks; the kernel's answer in one place.
assert_ok smcctl policy
assert_match "$out" "cgroup +/smc-on +unsupported"
assert_match "$out" "exclude +\\*:5555 +unsupported"
assert_contains "$out" "smcctl run --method preload -- COMMAND"
doc=$(smcctl -j policy)
assert_json "$doc" '[.policies[] | .state] | unique | join(" ")' unsupported "every entry"
assert_json "$doc" "[.policies[] | select(.kind != \"exclude\") | .message | startswith(\"$HOOKS\")] | all" true
assert_json "$doc" '.kernel.select or .kernel.exclude' false
assert_json "$doc" '.kernel.select_reason | test("update_socket_protocol")' true
# A program in the policy's cgroup stays TCP (and nothing pretends otherwise).
assert_ok sh -c 'echo $$ >/sys/fs/cgroup/smc-on/cgroup.procs && exec smc-threads threads --threads 1'
assert_json "$(last)" .tcp 3 "6.1: the cgroup policy cannot switch anything"

# smcctl run asks the agent, which cannot enroll on 6.1: LD_PRELOAD, with the agent's reason.
following() { grep -q "Fallback attribution: following smc:smc_switch_to_fallback" /tmp/agent.log; }
wait_until 60 "the agent attaches fallback attribution once it loaded smc" following
start_monitor /tmp/mon.json
assert_ok smcctl run -- smc-conn pair --proto tcp --conns 1 --bytes 64K
assert_contains "$out" "SMC through LD_PRELOAD (AF_SMC"
assert_contains "$out" "BPF not used: smcd-agent: $HOOKS"
c0=$(printf '%s\n' "$out" | grep '"conn":0')
assert_json "$c0" .smc_socket true "an AF_SMC socket under smcctl run"
assert_json "$c0" .fallback_name NOSMCDEV "no SMC device on 6.1"
attributed() { [ "$(jq -c 'select(.event == "fallback-attributed")' /tmp/mon.json | wc -l)" -ge 2 ]; }
wait_until 60 "both ends' fallbacks attributed in smcctl monitor" attributed
cli=$(jq -c 'select(.event == "fallback-attributed" and .side == "client")' /tmp/mon.json | head -n 1)
assert_json "$cli" .reason NOSMCDEV "the client's fallback"
assert_json "$cli" .command smc-conn "the client's command"
kill $mon 2>/dev/null
wait $mon 2>/dev/null

# The handshake limitation drifts through netlink (no sysctl on 6.1) and is repaired there.
repairs=$(prop DriftRepairs)
repaired() { [ "$(prop DriftRepairs)" != "$repairs" ]; }
# (smcctl would forward the change to the agent, which refuses it: past the bus, directly.)
assert_ok env DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent smcctl hs-limit disable
wait_until 60 "a drift check repairs the handshake limitation (DriftRepairs stays ${repairs#t })" repaired
assert_json "$(smcctl -j hs-limit)" .enabled true "handshake limitation repaired"
wait_drift_checks 2
assert_eq 1 "$(grep -c 'SMC_ITEM=sysctl:smcr_max_links_per_lgr' /tmp/agent.log)" \
	"the missing sysctl is reported once across drift checks"

kill $agent
wait $agent
assert_eq 0 "$?" "the agent stops cleanly"
exit 0
