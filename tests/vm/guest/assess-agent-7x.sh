#!/bin/sh
# lanes: 7x
# timeout: 400
#
# The agent's continuous assessment (assess.interval) on the real kernel, over the workload
# mix of assess-7x.sh, each part in a cgroup of its own: a long-lived bulk transfer between
# two local processes (/assess-bulk, open across windows), the same across two network
# namespaces (/assess-xns), a stream of short-lived connections (/assess-short) and a
# connection to an address SMC cannot serve (/assess-far, which stays in SYN_SENT).
# Switched on by a reload, the agent loads the tracing programs; every window is collected
# from GetAssessment as Windows moves, and together they must classify each part as the
# test expects and name its processes; the last window's gauges are in the Prometheus
# textfile, its fragment passes config check, no connection was changed, and switched off
# by a reload the agent leaves no program, link or map of the assessment behind.
. "$(dirname "$0")/lib.sh"
require_cmd smcd-agent smcctl smc-conn bpf-progs dbus-daemon busctl jq
IP=/usr/sbin/ip
[ -x $IP ] || fail "iproute2's ip is not in the guest (vm-run --host-bin ip)"
CG=/sys/fs/cgroup
NS=assess-ns
PROM=/tmp/prom/smc.prom
A="$SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_ASSESSMENT"
M="$SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_MANAGER"
aprop() { busctl get-property $A "$1"; }
windows() { aprop Windows | cut -d' ' -f2; }
bpf_objects() { { bpf-progs; bpf-progs links; bpf-progs maps; } | sort; }
ns_listens() { $IP netns exec $NS cat /proc/net/tcp | grep -q ":$(printf %04X "$1") 00000000:0000 0A"; }
now_usec() { echo $(($(date +%s) * 1000000)); }

for g in bulk xns short far; do mkdir -p $CG/assess-$g; done
$IP netns add $NS || fail "ip netns add"
$IP link add va type veth peer name vb || fail "ip link add veth"
$IP link set vb netns $NS
$IP addr add 10.77.0.1/24 dev va
$IP link set va up
$IP -n $NS addr add 10.77.0.2/24 dev vb
$IP -n $NS link set vb up
$IP -n $NS link set lo up
$IP route add 198.51.100.0/24 via 10.77.0.2 dev va
modprobe smc 2>/dev/null || true

start_system_bus
mkdir -p /etc/smc /tmp/prom
write_config() { # ASSESS-SECTION
	cat >/etc/smc/smc.yaml <<EOF
ueid: {auto: true}
modules: [smc, smc_diag]
drift: {interval: 0}
monitor: {interval: 0}
stats: {interval: 1s, prometheus: {path: $PROM}}
$1
EOF
}
write_config ""
start_agent
assert_eq "t 0" "$(aprop IntervalUSec)" "off by default"
before=$(bpf_objects)

# --- on, by a reload --------------------------------------------------------------------------
write_config "assess: {interval: 15s, applications: 5}"
assert_ok busctl call $M Reload
assert_eq "b true" "$(aprop Available)" "the assessment runs (Error: $(aprop Error))"
assert_ne "$before" "$(bpf_objects)" "its tracing programs are loaded"
assert_contains "$(cat /tmp/agent.log)" "Assessment: observing TCP connections in windows of 15 s"

# --- the workload ----------------------------------------------------------------------------
(exec_in_cgroup /assess-far smc-conn connect --proto tcp --addr 198.51.100.7 --port 7104) >/tmp/far.out 2>&1 &
far=$!
(exec_in_cgroup /assess-xns $IP netns exec $NS smc-conn serve --proto tcp --addr 10.77.0.2 --port 7102 --conns 1) >/tmp/xns-srv.out 2>&1 &
xsrv=$!
(exec_in_cgroup /assess-short smc-conn serve --proto tcp --port 7103) >/tmp/short-srv.out 2>&1 &
ssrv=$!
wait_until 30 "the server in $NS listens" ns_listens 7102
wait_listen 7103
# Long-lived: open at the end of the windows that follow (so in the last one's gauges).
(exec_in_cgroup /assess-bulk smc-conn pair --proto tcp --port 7101 --bytes 16M --hold 90) >/tmp/bulk.out 2>&1 &
bulk=$!
wait_conns /tmp/bulk.out 1
assert_ok in_cgroup /assess-xns smc-conn connect --proto tcp --addr 10.77.0.2 --port 7102 --bytes 8M --hold 1
assert_json "$(printf '%s\n' "$out" | grep '"summary"')" .ok 1 "the cross-netns transfer was verified"
assert_json "$(printf '%s\n' "$out" | grep '"conn":0')" .smc_socket false "and stayed a TCP socket"
i=0
while [ $i -lt 20 ]; do
	in_cgroup /assess-short smc-conn connect --proto tcp --port 7103 --bytes 100 >/dev/null ||
		fail "short connection $i failed"
	i=$((i + 1))
done
wait $xsrv || true
done_usec=$(now_usec)
info "workload done; windows so far: $(windows)"

# --- every window from now until one that began after the workload ---------------------------
# Each closed connection is read off the ring buffer within a second and added to the window
# running then, so the windows up to the first one that began after the workload hold all of
# it.  Each is fetched as Windows moves (every 15 s of the agent's clock); a window missed
# would be a gap in the numbers, which fails below.
mkdir -p /tmp/win
last=$(windows) first= n=0
while :; do
	wait_until 120 "window $((last + 1)) ends" sh -c "[ \$(busctl get-property $A Windows | cut -d' ' -f2) -gt $last ]"
	busctl --json=short call $A GetAssessment | jq -r '.data[0]' >/tmp/win/cur.json ||
		fail "GetAssessment: $(busctl call $A GetAssessment 2>&1)"
	num=$(jq .window.number /tmp/win/cur.json)
	mv /tmp/win/cur.json /tmp/win/$num.json
	[ -n "$first" ] || first=$num
	last=$num
	n=$((n + 1))
	[ "$(jq ".window.start_usec >= $done_usec" /tmp/win/$num.json)" = true ] && break
	[ $n -lt 10 ] || fail "no window began after the workload within 10 windows"
done
info "windows $first to $last"
for w in $(seq "$first" "$last"); do
	[ -s /tmp/win/$w.json ] || fail "window $w was not fetched before the next one ended"
done
out=$(cat /tmp/win/$last.json)
assert_json "$out" .method bpf "observed with BPF"
assert_json "$out" .scope "all network namespaces" "the agent's scope"
assert_json "$out" 'has("connections")' false "no list of single connections"
assert_json "$out" .window.interval_usec 15000000 "the window's length"

# What each part was, over the windows that held it.
apps() { jq -c --arg cg "$1" '.applications[] | select(.cgroup == $cg)' /tmp/win/[0-9]*.json; }
verdicts() { apps "$1" | jq -r .verdict | sort -u | tr '\n' ' '; }
assert_eq "likely-faster " "$(verdicts /assess-bulk)" "bulk on one host: likely faster in every window"
assert_eq "likely-faster " "$(verdicts /assess-xns)" "bulk across network namespaces: likely faster"
assert_eq "likely-slower " "$(verdicts /assess-short)" "short connections: likely slower"
assert_eq "no-change " "$(verdicts /assess-far)" "the unreachable peer: no change"
short=$(apps /assess-short | jq -s 'map(.classes["not-suited"].connections) | add')
assert_eq 40 "$short" "all 20 short connections, both ends, not suited (over the windows)"
assert_json "$(apps /assess-bulk | head -n 1)" '.processes[0].comm' smc-conn "bulk: the command is named"
assert_json "$(apps /assess-bulk | head -n 1)" "[.processes[].pid] | length > 0" true "bulk: and its processes"
assert_json "$(apps /assess-xns | head -n 1)" '.classes["well-suited"].connections' 2 \
	"across netns: both ends seen and well suited"

# The last window: the bulk transfer still open, the far connection still trying.
assert_json "$(jq -c '.applications[] | select(.cgroup == "/assess-bulk")' /tmp/win/$last.json)" \
	'.classes["well-suited"].connections' 2 "the last window has the open bulk transfer"
assert_json "$(jq -c '.applications[] | select(.cgroup == "/assess-far")' /tmp/win/$last.json)" \
	'.classes["not-servable"].connections' 1 "and the far connection, not servable"
has_window() { grep -qx "smc_assess_windows_total $last" "$1"; }
wait_prom $PROM 60 "the textfile has window $last" has_window
p=$(cat "$prom_snap")
assert_contains "$p" "smc_assess_available 1"
assert_contains "$p" 'smc_assess_application_verdict{application="/assess-bulk",verdict="likely-faster"} 1'
assert_contains "$p" 'smc_assess_application_verdict{application="/assess-far",verdict="no-change"} 1'
assert_contains "$p" 'smc_assess_application_connections{application="/assess-bulk",class="well-suited"} 2'
assert_match "$p" 'smc_assess_connections\{class="not-servable"\} [1-9]'
assert_match "$p" 'smc_assess_window_seconds 1[0-9]\.'

# smcctl shows it, and its fragment is one smc.yaml accepts.
run smcctl assess --agent
assert_contains "$out" "smcd-agent's assessment, window"
assert_contains "$out" "/assess-bulk (cgroup /assess-bulk): likely-faster"
smcctl -j assess --agent | jq -r .fragment >/tmp/fragment.yaml
assert_contains "$(cat /tmp/fragment.yaml)" "fragment from smcd-agent's assessment"
assert_contains "$(cat /tmp/fragment.yaml)" "- /assess-bulk"
assert_not_contains "$(cat /tmp/fragment.yaml)" "- /assess-far"
assert_ok smcctl config check /tmp/fragment.yaml

# Nothing was changed: the bulk transfer ends verified, over TCP.
kill $far $ssrv 2>/dev/null
wait $far $ssrv 2>/dev/null
wait $bulk || fail "the bulk transfer failed: $(cat /tmp/bulk.out)"
assert_json "$(grep '"summary"' /tmp/bulk.out)" .ok 1 "the long bulk transfer was verified"
assert_json "$(grep '"summary"' /tmp/bulk.out)" .tcp 1 "the assessment changed no connection: TCP"

# --- off, by a reload: nothing of it is left --------------------------------------------------
write_config ""
assert_ok busctl call $M Reload
assert_eq "t 0" "$(aprop IntervalUSec)" "switched off"
assert_fails busctl call $A GetAssessment
assert_contains "$out" "off: set assess.interval"
# The kernel frees a trampoline program after an RCU tasks grace period (assess-7x.sh).
same_objects() { [ "$(bpf_objects)" = "$before" ]; }
wait_until 30 "the assessment left no BPF program, link or map behind (left: $(bpf_objects))" same_objects
no_assess() { ! grep -q '^smc_assess_' "$1"; }
wait_prom $PROM 60 "the smc_assess_ families leave the textfile" no_assess

kill $agent
wait $agent 2>/dev/null
$IP netns del $NS
info "assess-agent-7x: ok"
