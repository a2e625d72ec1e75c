#!/bin/sh
# lanes: 7x
# timeout: 300
#
# smcctl enable/disable on a kernel with everything (7.3), through the agent: after
# "smcctl enable" an unmodified TCP program in the unit's cgroup gets SMC-D, after
# "smcctl disable" its new sockets are TCP; the drop-in survives an agent restart; without
# an agent smcctl writes the drop-in and the agent applies it when it starts.  The guest
# runs no systemd, so there is no ControlGroup to ask for: the unit's cgroup is given with
# --cgroup, a path of the shape systemd gives a service (/system.slice/x.service); the
# resolution through systemd's bus is the host test's (tests/integration/agent-enable.test).
. "$(dirname "$0")/lib.sh"
require_cmd smcd-agent smcctl smc-conn dbus-daemon busctl jq
CG=/sys/fs/cgroup
UNIT_CG=/system.slice/smc-demo.service
D=/etc/smc/smc.yaml.d

start_system_bus
last() { printf '%s\n' "$out" | grep '^{' | tail -n 1; }
policy_field() { smcctl -j policy | jq -r ".policies[] | select(.target == \"$1\") | .$2"; }
in_cgroup() { # in_cgroup CGROUP CMD...: run CMD as a process of CGROUP (from its first socket)
	_ic=$1
	shift
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG$_ic" "$@"
}

mkdir -p /etc/smc "$D" "$CG$UNIT_CG"
cat >/etc/smc/smc.yaml <<EOF
ueid: {auto: true}
sysctl: {wmem: 1MiB, rmem: 1MiB}
modules: [smc, smc_diag]
monitor: {interval: 0}
EOF
start_agent
info "agent up"

# --- before: the unit's programs use TCP ----------------------------------------------------
assert_ok in_cgroup $UNIT_CG smc-conn pair --proto tcp --conns 1 --bytes 64K
assert_json "$(last)" .tcp 1 "not enabled: TCP"

# --- enable through the agent ---------------------------------------------------------------
assert_ok smcctl enable smc-demo --cgroup $UNIT_CG
assert_contains "$out" "Enabled smc-demo.service: wrote $D/50-unit-smc-demo.service.yaml; smcd-agent applied it."
assert_eq active "$(policy_field $UNIT_CG state)" "the unit's cgroup is an active policy"
assert_ok in_cgroup $UNIT_CG smc-conn pair --proto tcp --conns 2 --bytes 1M
assert_json "$(last)" .smcd 2 "enabled: an unmodified TCP program of the unit used SMC-D"
assert_ok smcctl -j enable smc-demo --cgroup $UNIT_CG
assert_json "$out" .changed false "enable twice: nothing changed"

# --- an agent restart keeps it --------------------------------------------------------------
kill $agent
wait $agent
assert_eq 0 "$?" "the agent stops cleanly"
start_agent
# The agent takes its bus name before its start reconcile (manager_start()): wait for the
# policy's state, not only for the name.
is_active() { [ "$(policy_field $UNIT_CG state)" = active ]; }
wait_until 30 "a restarted agent keeps the enabled unit (its policy active)" is_active
assert_ok in_cgroup $UNIT_CG smc-conn pair --proto tcp --conns 1 --bytes 64K
assert_json "$(last)" .smcd 1 "after the restart: SMC-D"

# --- disable: new sockets are TCP -----------------------------------------------------------
assert_ok smcctl disable smc-demo
assert_contains "$out" "Disabled smc-demo.service: removed $D/50-unit-smc-demo.service.yaml; smcd-agent applied it."
[ ! -e "$D/50-unit-smc-demo.service.yaml" ] || fail "the drop-in is still there"
assert_ok in_cgroup $UNIT_CG smc-conn pair --proto tcp --conns 1 --bytes 64K
assert_json "$(last)" .tcp 1 "disabled: TCP again"
assert_json "$(printf '%s\n' "$out" | grep '"conn":0')" .smc_socket false "a TCP socket again"

# --- without an agent: smcctl writes the drop-in, the agent applies it when it starts --------
kill $agent
wait $agent
assert_ok smcctl enable smc-demo --cgroup $UNIT_CG --config /etc/smc/smc.yaml
assert_contains "$out" "smcd-agent is not running: wrote $D/50-unit-smc-demo.service.yaml; it takes effect when smcd-agent starts."
start_agent
wait_until 30 "the agent started with the drop-in applies its policy" is_active
assert_ok in_cgroup $UNIT_CG smc-conn pair --proto tcp --conns 1 --bytes 64K
assert_json "$(last)" .smcd 1 "enabled while the agent was stopped: SMC-D once it started"
assert_ok smcctl disable smc-demo
kill $agent
wait $agent
exit 0
