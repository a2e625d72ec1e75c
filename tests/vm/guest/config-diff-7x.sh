#!/bin/sh
# lanes: 7x
# timeout: 300
#
# smcctl config diff on a real SMC kernel (smcd-agent/plan.c): without an agent it runs
# smcd-agent --plan and shows the sysctl that differs, writing nothing; once the agent has
# applied the file the diff is empty (exit 0); a sysctl changed by hand (drift checks off)
# shows again as a diff through the agent's PlanConfig, still without a write; after the
# agent applies the file again (Reconcile) the diff is empty; an invalid file is exit 2.
# Host programs: dbus-daemon, busctl, jq (vm-run --host-bin dbus-daemon --host-bin busctl
# --host-bin jq).
. "$(dirname "$0")/lib.sh"
require_cmd smcctl smcd-agent dbus-daemon busctl jq

M="$SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_MANAGER"
# smcctl runs smcd-agent from its configured sbindir; here it is wherever vm-run put it.
SMCD_AGENT_BIN=$(command -v smcd-agent)
export SMCD_AGENT_BIN

start_system_bus
echo 65536 >/proc/sys/net/smc/wmem
mkdir -p /etc/smc
cat >/etc/smc/smc.yaml <<'EOF'
ueid: {auto: true}
sysctl:
  wmem: 1MiB
modules: [smc, smc_diag]
drift: {action: repair, interval: 0}
monitor: {interval: 0}
EOF
assert_ok smcd-agent --check-config /etc/smc/smc.yaml
ueids_before=$(smcctl -j ueid list)

# Without an agent: smcd-agent --plan on the real kernel, through smcctl.
run smcctl -j config diff /etc/smc/smc.yaml
assert_eq 1 "$rc" "config diff before the agent: something would change"
assert_json "$out" '.planner' "smcd-agent --plan" "planned by smcd-agent --plan (no agent)"
assert_json "$out" '.items[] | select(.item == "sysctl:wmem") | "\(.state) \(.current) \(.desired)"' \
	"change 65536 1048576" "wmem shows as a diff"
assert_eq 65536 "$(cat /proc/sys/net/smc/wmem)" "the plan wrote no sysctl"
assert_eq "$ueids_before" "$(smcctl -j ueid list)" "the plan added no UEID"
run smcctl config diff /etc/smc/smc.yaml
assert_match "$out" '^~ sysctl:wmem +set: 65536 -> 1048576$' "the text line of the diff"

# The agent applies the file: nothing left to change.
start_agent
wait_until 30 "the agent applied wmem" sh -c 'grep -qx 1048576 /proc/sys/net/smc/wmem'
run smcctl -j config diff /etc/smc/smc.yaml
assert_eq 0 "$rc" "config diff of the applied file: exit 0"
assert_json "$out" '.planner' "agent" "planned by the running agent (PlanConfig)"
assert_json "$out" '.changes' "0" "no changes"

# Changed by hand (drift checks are off): a diff again, planned by the agent, not applied.
echo 65536 >/proc/sys/net/smc/wmem
run smcctl -j config diff /etc/smc/smc.yaml
assert_eq 1 "$rc" "config diff after a change by hand: exit 1"
assert_json "$out" '[.items[] | select(.state == "change") | "\(.item) \(.current) \(.desired)"] | join(",")' \
	"sysctl:wmem 65536 1048576" "only wmem differs"
assert_eq 65536 "$(cat /proc/sys/net/smc/wmem)" "PlanConfig wrote nothing"

# Applied through the agent: the diff is empty.
assert_ok busctl call $M Reconcile
assert_eq 1048576 "$(cat /proc/sys/net/smc/wmem)" "Reconcile applied wmem"
run smcctl config diff /etc/smc/smc.yaml
assert_eq 0 "$rc" "config diff after the agent applied it: exit 0"
assert_contains "$out" "nothing would change" "the text says so"

printf 'sysctl:\n  wmem: lots\n' >/tmp/bad.yaml
run smcctl config diff /tmp/bad.yaml
assert_eq 7 "$rc" "config diff of an invalid file: exit 7, as config check"
assert_contains "$out" "/tmp/bad.yaml:2:" "the error with its line"

kill $agent
wait $agent
assert_eq 0 "$?" "the agent stops cleanly"
exit 0
