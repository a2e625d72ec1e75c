#!/bin/sh
# lanes: 7x
# timeout: 400
#
# The agent's continuous assessment (assess.interval) on the real kernel, over the workload
# mix of assess-7x.sh, each part in a cgroup of its own: a long-lived bulk transfer between
# two local processes (/assess-bulk, open across windows), the same across two network
# namespaces (/assess-xns), a stream of short-lived connections (/assess-short) and a
# connection to an address SMC cannot serve (/assess-far, which stays in SYN_SENT).
# Switched on by a reload, the agent loads the tracing programs; every window from the
# first on is collected from GetAssessment as Windows moves (GetAssessment returns only the
# last one, and on a loaded machine the workload spans several), and together they must
# classify each part as the test expects and name its processes; while the bulk transfer
# and the far connection are open, the textfile has the last window's gauges and the
# fragment passes config check; no connection was changed, and switched off by a reload
# the agent leaves no program, link or map of the assessment behind.
#
# Nothing here waits a guessed time: the bulk transfer is held open until the test
# releases it (smc-conn's SIGUSR1), the far connection's SYNs are retried for longer than
# the test can run, and each wait is for the window, file or state it needs.
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
# The far connection must stay in SYN_SENT for as long as the test looks at it: the
# default 6 retries give up after 127 s, which a loaded run reaches (20: over 25 minutes).
echo 20 >/proc/sys/net/ipv4/tcp_syn_retries || fail "cannot set net.ipv4.tcp_syn_retries"
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
# collect: in the background, every window from the first on into /tmp/win/NNN.json, each
# fetched while it is the last one (GetAssessment returns only that; Windows moves every
# 15 s of the agent's clock, far more than a fetch takes), until it saved a window that
# began after the workload (/tmp/win/done, which the test writes then).  A window it
# could not fetch in time is a gap in the numbers, which fails below.
collect() {
	_next=1
	while :; do
		_i=0
		until [ "$(windows)" -ge $_next ] 2>/dev/null; do
			_i=$((_i + 1))
			[ $_i -le 240 ] || fail "window $_next did not end within 120 s"
			sleep 0.5
		done
		busctl --json=short call $A GetAssessment | jq -r '.data[0]' >/tmp/win/cur.json ||
			fail "GetAssessment: $(busctl call $A GetAssessment 2>&1)"
		_num=$(jq .window.number /tmp/win/cur.json) || fail "not a window: $(cat /tmp/win/cur.json)"
		mv /tmp/win/cur.json "/tmp/win/$(printf %03d "$_num").json"
		_next=$((_num + 1))
		if [ -s /tmp/win/done ] &&
			[ "$(jq ".window.start_usec >= $(cat /tmp/win/done)" "/tmp/win/$(printf %03d "$_num").json")" = true ]; then
			return 0
		fi
		[ "$_num" -lt 60 ] || fail "no window began after the workload within 60 windows"
	done
}
mkdir -p /tmp/win
write_config "assess: {interval: 15s, applications: 5}"
assert_ok busctl call $M Reload
(collect) &
collector=$!
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
wait_until 120 "the server in $NS listens" ns_listens 7102
wait_listen 7103
# Long-lived: open until the test releases it (kill -USR1), so in every window from now on.
(exec_in_cgroup /assess-bulk smc-conn pair --proto tcp --port 7101 --bytes 16M --hold 3600) >/tmp/bulk.out 2>&1 &
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
echo "$(now_usec)" >/tmp/win/done.tmp && mv /tmp/win/done.tmp /tmp/win/done
info "workload done; windows so far: $(windows)"

# --- every window from the first until one that began after the workload ---------------------
# Each closed connection is read off the ring buffer within a second and added to the window
# running then, so the windows up to the first one that began after the workload hold all of
# it (the workload took longer than a window on a loaded machine: its early parts were in
# windows that ended before it did).
wait $collector || fail "the windows were not all collected (above)"
last=$(ls /tmp/win | sed -n 's/^0*\([0-9][0-9]*\)\.json$/\1/p' | sort -n | tail -n 1)
info "windows 1 to $last"
for w in $(seq 1 "$last"); do
	[ -s "/tmp/win/$(printf %03d "$w").json" ] || fail "window $w was not fetched before the next one ended"
done
lastf=/tmp/win/$(printf %03d "$last").json
out=$(cat "$lastf")
assert_json "$out" .method bpf "observed with BPF"
assert_json "$out" .scope "all network namespaces" "the agent's scope"
assert_json "$out" 'has("connections")' false "no list of single connections"
assert_json "$out" .window.interval_usec 15000000 "the window's length"

# What each part was, over all the windows (in their order: the names are zero-padded).
apps() { jq -c --arg cg "$1" '.applications[] | select(.cgroup == $cg)' /tmp/win/[0-9]*.json; }
verdicts() { apps "$1" | jq -r .verdict | sort -u | tr '\n' ' '; }
assert_eq "likely-faster " "$(verdicts /assess-bulk)" "bulk on one host: likely faster in every window"
assert_eq "likely-faster " "$(verdicts /assess-xns)" "bulk across network namespaces: likely faster"
assert_eq "likely-slower " "$(verdicts /assess-short)" "short connections: likely slower"
assert_eq "no-change " "$(verdicts /assess-far)" "the unreachable peer: no change"
# All 20 short connections, both ends, not suited.  A window counts the connections that
# closed in it and those open at its end, so one open when a window ended is counted again
# when it closes: at most the few ends open at once (one connection's two, a server's end
# of the one before) for each window after the first that holds them.  Counting every
# closed connection twice, or missing one end, is outside that.
assert_eq "" "$(apps /assess-short | jq -r 'select(.classes.not_suited.connections != .connections)')" \
	"short connections: not suited, all of them, in every window"
short=$(apps /assess-short | jq -s 'map(.classes.not_suited.connections) | add')
nshort=$(apps /assess-short | jq -s length)
[ "$short" -ge 40 ] && [ "$short" -le $((40 + 4 * (nshort - 1))) ] ||
	fail "short connections over the $nshort windows that hold them: expected 40 ends (up to $((4 * (nshort - 1))) more counted open at a window's end), got $short"
assert_json "$(apps /assess-bulk | head -n 1)" '.processes[0].comm' smc-conn "bulk: the command is named"
assert_json "$(apps /assess-bulk | head -n 1)" "[.processes[].pid] | length > 0" true "bulk: and its processes"
# Both ends in the window that holds the whole connection (one it spans holds both ends
# open at its end, then both closed in the next).
assert_eq 2 "$(apps /assess-xns | jq -s 'map(.classes.well_suited.connections) | max')" \
	"across netns: both ends seen and well suited"

# The last window: the bulk transfer still open, the far connection still trying.
assert_json "$(jq -c '.applications[] | select(.cgroup == "/assess-bulk")' "$lastf")" \
	'.classes.well_suited.connections' 2 "the last window has the open bulk transfer"
assert_json "$(jq -c '.applications[] | select(.cgroup == "/assess-far")' "$lastf")" \
	'.classes.not_servable.connections' 1 "and the far connection, not servable"
# The textfile has the last window or a later one (one may end before this looks); the
# gauges below hold for any window while the bulk transfer and the far connection are open.
has_window() { [ "$(awk '$1 == "smc_assess_windows_total" { print $2 }' "$1")" -ge "$last" ]; }
wait_prom $PROM 120 "the textfile has window $last or a later one" has_window
p=$(cat "$prom_snap")
assert_contains "$p" "smc_assess_available 1"
assert_contains "$p" 'smc_assess_application_verdict{application="/assess-bulk",verdict="likely-faster"} 1'
assert_contains "$p" 'smc_assess_application_verdict{application="/assess-far",verdict="no-change"} 1'
assert_contains "$p" 'smc_assess_application_connections{application="/assess-bulk",class="well_suited"} 2'
assert_match "$p" 'smc_assess_connections\{class="not_servable"\} [1-9]'
# In seconds (a window of 15 s; a late timer on a loaded machine makes one longer).
assert_match "$p" '^smc_assess_window_seconds [1-9][0-9]\.[0-9]{3}$'

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
kill -USR1 $bulk
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
wait_until 120 "the assessment left no BPF program, link or map behind (left: $(bpf_objects))" same_objects
no_assess() { ! grep -q '^smc_assess_' "$1"; }
wait_prom $PROM 120 "the smc_assess_ families leave the textfile" no_assess

kill $agent
wait $agent 2>/dev/null
$IP netns del $NS
info "assess-agent-7x: ok"
