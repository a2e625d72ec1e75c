#!/bin/sh
# lanes: 7x
# timeout: 1100
#
# The autopilot (smc.yaml auto:, smcd-agent(8) AUTOPILOT) on the real kernel, one workload
# per decision kind, each server and client in cgroups of their own (smc-load):
#   rr     long-lived request/response at a fixed rate (open loop: SMC cannot change its
#          figures), its connections reopened every 2 s so that a switch reaches them:
#          observe says it would try SMC; on tries it and keeps it (smc)
#   churn  a new connection per request: stays TCP, its port excluded (smc_hs_ctrl)
#   slow   long-lived like rr, but a connection that is SMC sleeps 50 ms per request:
#          the trial makes it worse, and it is rolled back
# Then: observe changed nothing (kernel state before and after); the agent killed in the
# middle of the trials comes back with its table and what it switched is still switched
# (pinned, not pruned), and the trials end as they would have; rr turns to churn (a phase change) and the autopilot follows it back to TCP; an
# smc.yaml entry for a workload wins (admin); off takes back everything it switched; in
# observe mode with auto.scope.netns, a workload of another namespace is out of scope.
#
# Every wait is for a state the agent reports (GetWorkloads), a line in its log or a count
# of smc-load's; the windows are 10 s of guest time, the smallest auto.window.
. "$(dirname "$0")/lib.sh"
require_cmd smcd-agent smcctl smc-load bpf-progs dbus-daemon busctl jq
IP=/usr/sbin/ip
[ -x $IP ] || fail "iproute2's ip is not in the guest (vm-run --host-bin ip)"
CG=/sys/fs/cgroup
AP="$SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_AUTOPILOT"
M="$SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_MANAGER"
ID_DECISION=3b0c6f2e9a7d4c1e8f5a2b6d9e0c4f17
ID_ROLLBACK=c85e1d7a4f2b49e6a0d3b8f1e6c27a94

cleanup() {
	_rc=$?
	touch /tmp/stop
	if [ $_rc -ne 0 ]; then
		info "--- at the failure: the table, the policies, the clients, the agent's log"
		smcctl auto 2>&1 | sed 's/^/# /'
		busctl --json=short call $AP GetWorkloads 2>&1 | jq -r '.data[0]' 2>&1 |
			jq -c '.workloads[] | {name, state, why}' 2>&1 | sed 's/^/# /'
		smcctl policy 2>&1 | sed 's/^/# /'
		for f in /tmp/rr.out /tmp/churn.out /tmp/slow.out; do
			echo "# $f: $(tail -n 1 $f)"
		done
		tail -n 40 /tmp/agent.log | sed 's/^/# /'
	fi
	for p in ${pids:-} ${rr_srv:-} ${slow_srv:-}; do kill "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

# every call bounded: a wait must not hang on an agent that does not answer
workloads() { busctl --timeout=5 --json=short call $AP GetWorkloads | jq -r '.data[0]'; }
# field CGROUP KEY: the server workload of that cgroup
field() { workloads | jq -r --arg cg "$1" ".workloads[] | select(.cgroup == \$cg) | .$2"; }
state_is() { [ "$(field "$1" state)" = "$2" ]; }
why_has() { field "$1" why | grep -q -- "$2"; }
# wait_for SECONDS WHAT CMD...: wait_until by the clock: each try of CMD here (smcctl, busctl
# and jq in TCG, beside four workloads) takes longer than wait_until's tenth of a second.
wait_for() {
	_wf_secs=$1 _wf_what=$2
	_wf_end=$(($(date +%s) + _wf_secs))
	shift 2
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -lt $_wf_end ] || fail "$_wf_what: not within $_wf_secs s"
		sleep 0.5
	done
}
# wait_state SECONDS WHAT CGROUP STATE: wait_for, saying the table every 20 s meanwhile
wait_state() {
	_ws_end=$(($(date +%s) + $1))
	_ws_next=$(($(date +%s) + 20))
	until state_is "$3" "$4"; do
		[ "$(date +%s)" -lt $_ws_end ] || fail "$2: not within $1 s"
		if [ "$(date +%s)" -ge $_ws_next ]; then
			info "waiting for $3 $4: $(workloads | jq -c '[.workloads[] | [.name, .state, .why[0:80]]]')"
			_ws_next=$(($(date +%s) + 20))
		fi
		sleep 0.5
	done
}
policy_targets() { smcctl -j policy | jq -r '[.policies[] | .target] | sort | join(" ")'; }
has_target() { policy_targets | tr ' ' '\n' | grep -qx -- "$1"; }
# the connections smc-load opened so far by carrier, from its last line
carrier() { grep '^{"t"' "$1" | tail -n 1 | jq -r ".$2"; }
smc_above() { [ "$(carrier "$1" smc)" -gt "$2" ] 2>/dev/null; }
# smcd_on PORT: SMC-D connections to PORT open now (smc-load's "smc" counts IPPROTO_SMC
# sockets, which a fallback is too; smc_diag tells them apart)
smcd_on() {
	[ "$(smcctl -j socket | jq --argjson p "$1" '[.sockets[] | select(.mode == "SMCD" and .peer.port == $p)] | length')" -gt 0 ] 2>/dev/null
}
kernel_state() {
	smcctl -j policy | jq -c '[.policies[] | {target, state}]'
	cat /proc/sys/net/smc/hs_ctrl
	ls /sys/fs/bpf/smcd-agent 2>/dev/null
	bpf-progs | grep -v assess || true
}

write_config() { # AUTO-SECTION [MORE]
	cat >/etc/smc/smc.yaml <<EOF
ueid: {auto: true}
modules: [smc, smc_diag]
drift: {interval: 0}
monitor: {interval: 0}
$1
$2
EOF
}

# The table survives the agent in its state directory, as under systemd's StateDirectory=.
export STATE_DIRECTORY=/var/lib/smcd-agent
mkdir -p -m 0700 $STATE_DIRECTORY
for g in rr-srv rr-cli churn-srv churn-cli slow-srv slow-cli; do mkdir -p $CG/ap-$g; done
modprobe smc 2>/dev/null || true
start_system_bus
mkdir -p /etc/smc
rm -f /tmp/stop /tmp/churn
write_config "auto: {mode: observe, window: 10s}"
start_agent
assert_eq "s \"observe\"" "$(busctl get-property $AP Mode)" "the mode"
before=$(kernel_state)

(exec_in_cgroup /ap-rr-srv smc-load serve --port 7301) >/tmp/rr-srv.out 2>&1 &
rr_srv=$!
(exec_in_cgroup /ap-churn-srv smc-load serve --port 7302) >/tmp/churn-srv.out 2>&1 &
pids="$pids $!"
(exec_in_cgroup /ap-slow-srv smc-load serve --port 7303) >/tmp/slow-srv.out 2>&1 &
slow_srv=$!
wait_listen 7301
wait_listen 7302
wait_listen 7303
(exec_in_cgroup /ap-rr-cli smc-load client --port 7301 --shape rr --rate 100 --conns 2 \
	--reconnect 2 --until /tmp/stop --churn-after /tmp/churn) >/tmp/rr.out 2>&1 &
pids="$pids $!"
(exec_in_cgroup /ap-churn-cli smc-load client --port 7302 --shape churn --rate 40 \
	--until /tmp/stop) >/tmp/churn.out 2>&1 &
pids="$pids $!"
(exec_in_cgroup /ap-slow-cli smc-load client --port 7303 --shape rr --rate 100 --conns 2 \
	--reconnect 2 --slow-on-smc 50 --until /tmp/stop) >/tmp/slow.out 2>&1 &
pids="$pids $!"

# --- observe: decides, shows, changes nothing -------------------------------------------------
wait_state 300 "observe decided rr (it would try SMC)" /ap-rr-srv trial
wait_state 300 "observe decided churn (it stays TCP)" /ap-churn-srv tcp
assert_eq smc-on "$(field /ap-rr-srv would)" "observe: what on would do for rr"
assert_eq exclude "$(field /ap-churn-srv would)" "observe: what on would do for churn"
assert_eq 7302 "$(field /ap-churn-srv port)" "a workload is its server's port"
assert_contains "$(field /ap-churn-srv why)" "short-lived" "churn's reason"
assert_contains "$(cat /tmp/agent.log)" "MESSAGE_ID=$ID_DECISION" "decisions are logged with their MESSAGE_ID"
assert_contains "$(cat /tmp/agent.log)" "observe: nothing changed" "and say that observe changed nothing"
assert_eq "$before" "$(kernel_state)" "observe changed nothing in the kernel"
assert_eq 0 "$(carrier /tmp/rr.out smc)" "rr's connections stayed TCP"
assert_eq 0 "$(carrier /tmp/churn.out smc)" "churn's stayed TCP"
explain=$(busctl --json=short call $AP Explain s /ap-rr-srv | jq -r '.data[0]')
assert_json "$explain" '.windows | length >= 2' true "explain shows the windows of evidence"
assert_json "$explain" '.clients | index("/ap-rr-cli") != null' true "and rr's local client"
assert_ok smcctl auto
assert_contains "$out" "ap-rr-srv" "smcctl auto lists the workloads"

# --- on: rr is tried and kept; slow is tried and rolled back; churn's port is excluded --------
write_config "auto: {mode: on, window: 10s}"
assert_ok busctl call $M Reload
wait_for 120 "rr's cgroups are switched to SMC" has_target /ap-rr-cli
assert_ok has_target /ap-rr-srv
assert_eq autopilot "$(smcctl -j policy | jq -r '.policies[] | select(.target == "/ap-rr-srv") | .source')" \
	"the entry says it is the autopilot's"
# A listening socket made before the switch stays TCP (SMC is chosen when a socket is
# made): the trial says so and waits; the servers are restarted, as an operator would.
wait_for 60 "the trial says what it waits for" sh -c "busctl --timeout=5 --json=short call $AP GetWorkloads | jq -r '.data[0]' | grep -q 'trial waiting'"
kill $rr_srv $slow_srv
wait $rr_srv $slow_srv 2>/dev/null
(exec_in_cgroup /ap-rr-srv smc-load serve --port 7301) >/tmp/rr-srv.out 2>&1 &
rr_srv=$!
(exec_in_cgroup /ap-slow-srv smc-load serve --port 7303) >/tmp/slow-srv.out 2>&1 &
slow_srv=$!
wait_listen 7301
wait_listen 7303
wait_for 120 "rr's new connections are SMC-D" smcd_on 7301
wait_for 120 "churn's port is excluded" has_target '*:7302'
assert_eq smcd_excl "$(cat /proc/sys/net/smc/hs_ctrl)" "net.smc.hs_ctrl names the exclusions"

# --- the agent killed in the middle of the trials: they go on, nothing it switched is lost -----
# (a trial takes two windows on SMC: on a fast machine one may have ended already)
rr_state=$(field /ap-rr-srv state)
slow_state=$(field /ap-slow-srv state)
case "$rr_state $slow_state" in
"trial "*) ;;
*) fail "rr is not in its trial ($rr_state)" ;;
esac
kill -9 $agent
wait $agent 2>/dev/null || true
# the kernel holds the switch (pinned): sockets made while the agent is down are SMC
# (smc-load's count of them grows) and connect as SMC-D
n=$(carrier /tmp/rr.out smc)
wait_for 60 "with the agent down, rr's new sockets are SMC" smc_above /tmp/rr.out "$n"
wait_for 60 "with the agent down, rr's connections are SMC-D" smcd_on 7301
start_agent
assert_eq "$rr_state" "$(field /ap-rr-srv state)" "rr is still in its trial after the restart"
assert_eq "$slow_state" "$(field /ap-slow-srv state)" "and slow as it was"
assert_ok has_target /ap-rr-cli
assert_ok has_target '*:7302'
assert_contains "$(cat /tmp/agent.log)" "3 workloads read back" "the table was read back"
wait_for 60 "rr's connections are still made SMC-D" smcd_on 7301

wait_state 400 "rr's trial is kept" /ap-rr-srv smc
wait_state 400 "slow's trial is rolled back" /ap-slow-srv rolled-back
assert_contains "$(cat /tmp/agent.log)" "MESSAGE_ID=$ID_ROLLBACK" "the rollback is logged with its MESSAGE_ID"
assert_json "$(workloads)" '[.workloads[] | select(.cgroup == "/ap-slow-srv") | .rollbacks][0]' 1 \
	"one rollback"
wait_for 60 "slow's cgroups are back on TCP" sh -c "! smcctl -j policy | grep -q /ap-slow-cli"
assert_ne 0 "$(field /ap-rr-srv sndbuf)" "rr got buffer sizes"
bytes=$(busctl get-property $AP BufferBytes | cut -d' ' -f2)
budget=$(busctl get-property $AP BudgetBytes | cut -d' ' -f2)
[ "$bytes" -gt 0 ] && [ "$bytes" -le "$budget" ] || fail "buffer memory $bytes not within the budget $budget"
assert_ne "t 0" "$(busctl get-property $AP Rollbacks)" "the Rollbacks counter"

# --- a phase change: rr turns to churn, the autopilot follows it back to TCP -----------------
touch /tmp/churn
wait_state 400 "rr, now churning, goes back to TCP" /ap-rr-srv tcp
assert_contains "$(field /ap-rr-srv why)" "short-lived" "the reason of the change"
wait_for 60 "rr's cgroups are back on TCP" sh -c "! smcctl -j policy | grep -q /ap-rr-cli"

# --- an administrator's entry wins -------------------------------------------------------------
write_config "auto: {mode: on, window: 10s}" "policies: {cgroups: [/ap-slow-srv, /ap-slow-cli]}"
assert_ok busctl call $M Reload
wait_state 60 "slow is the administrator's" /ap-slow-srv admin
assert_contains "$(field /ap-slow-srv why)" "policies.cgroups" "the reason names the entry"
assert_eq "" "$(smcctl -j policy | jq -r '.policies[] | select(.source == "autopilot") | select(.target | test("slow")) | .target')" \
	"the autopilot holds no entry of its own for it"

# --- off: everything it switched goes back ------------------------------------------------------
write_config "auto: {mode: off}" "policies: {cgroups: [/ap-slow-srv, /ap-slow-cli]}"
assert_ok busctl call $M Reload
assert_eq "" "$(smcctl -j policy | jq -r '.policies[] | select(.source == "autopilot") | .target')" \
	"off: no entry of the autopilot's is left"
assert_fails busctl call $AP GetWorkloads
assert_contains "$out" "auto.mode" "off: GetWorkloads says how to switch it on"

# --- auto.scope.netns: a workload of a listed namespace is decided, one outside is not ---------
# blue churns in a namespace of its own; the scope names it by its name in /run/netns
# (the cookie the agent compares is the kernel's, from the assessment's records).
$IP netns add ap-blue || fail "ip netns add ap-blue"
$IP -n ap-blue link set lo up
mkdir -p $CG/ap-blue-srv $CG/ap-blue-cli
(exec_in_cgroup /ap-blue-srv $IP netns exec ap-blue smc-load serve --port 7304) >/tmp/blue-srv.out 2>&1 &
pids="$pids $!"
wait_listen 7304 ap-blue
(exec_in_cgroup /ap-blue-cli $IP netns exec ap-blue smc-load client --port 7304 --shape churn \
	--rate 40 --until /tmp/stop) >/tmp/blue.out 2>&1 &
pids="$pids $!"
write_config "auto: {mode: observe, window: 10s, scope: {netns: [ap-blue]}}"
assert_ok busctl call $M Reload
wait_state 300 "blue, in a namespace of auto.scope.netns, is decided" /ap-blue-srv tcp
wait_for 60 "churn, in the host's namespace, is out of scope" why_has /ap-churn-srv "outside auto.scope"
assert_eq undecided "$(field /ap-churn-srv state)" "a workload out of scope is not decided"
assert_ne "$(busctl --json=short call $AP Explain s /ap-blue-srv | jq -r '.data[0]' | jq .netns_cookie)" \
	"$(busctl --json=short call $AP Explain s /ap-churn-srv | jq -r '.data[0]' | jq .netns_cookie)" \
	"the two are in namespaces of their own"
touch /tmp/stop
