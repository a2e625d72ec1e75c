#!/bin/sh
# lanes: 7x
# timeout: 300
#
# Fallback attribution (smcd-agent's BPF program on smc:smc_switch_to_fallback): an
# unmodified program in a cgroup named like a systemd service falls back to TCP (no UEID:
# NOUEID) and shows up as it happens in smcctl monitor with its unit, pid, command and
# reason, in the Prometheus textfile under its own unit, in smcctl stats and on D-Bus.
# First smc-conn, which opens IPPROTO_SMC sockets itself; then busybox nc, a program that
# knows nothing of SMC (socket(AF_INET, SOCK_STREAM, 0), statically linked), switched to SMC
# by smcctl run through the agent: server (an echo server, nc -ll -e cat) and client each in
# a unit of its own, each named by its own pid and command, and smcctl socket -p names
# them while the connection is open.
. "$(dirname "$0")/lib.sh"
require_cmd smcd-agent smcctl smc-conn dbus-daemon busctl jq
CG=/sys/fs/cgroup
# The textfile in a directory of root's: the agent writes into none that others may write (/tmp).
PROM=/tmp/prom/smc.prom
mkdir -p /tmp/prom
S="$SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_STATS"
export STATE_DIRECTORY=/tmp/state
# json_true JSON JQ_EXPR WHAT: the jq expression must print true
json_true() { assert_json "$1" "$2" true "$3"; }
mkdir -p /tmp/state /etc/smc

start_system_bus
cat >/etc/smc/smc.yaml <<EOF2
ueid: {auto: false}
modules: [smc, smc_diag]
monitor: {interval: 1s}
stats:
  interval: 1s
  prometheus: {path: $PROM}
EOF2
start_agent $PROM
info "agent up"
assert_contains "$(cat /tmp/agent.log)" "Fallback attribution: following smc:smc_switch_to_fallback"
run busctl get-property $S FallbackAttributionError
assert_eq 's ""' "$out" "attribution works on this kernel"
assert_ok smcctl stats
assert_not_contains "$out" "attribution is unavailable"
assert_ok smcctl status
assert_contains "$out" "Attribution:    every fallback to TCP, with its unit and process"

assert_ok smcctl ueid flush
mkdir -p $CG/smcd-test.slice/fb-app.service
start_monitor /tmp/mon.json
# The text form too (start_monitor is for -j).
smcctl monitor >/tmp/mon.txt 2>/tmp/mon.txt.err &
tmon=$!
following() { grep -q "following smcd-agent" /tmp/mon.txt.err; }
wait_until 60 "the text monitor subscribed" following

# The program: smc-conn over IPPROTO_SMC, moved into the unit's cgroup before it starts
# (sh writes its own pid, then execs: $! is smc-conn's pid).
sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' $CG/smcd-test.slice/fb-app.service \
	smc-conn pair --proto smc --conns 1 --bytes 64K --hold 120 >/tmp/fb.out 2>&1 &
app=$!
# Held open until the events are checked: the server side's pid is found through the
# listening socket in /proc, which a program that already exited no longer holds.
wait_conns /tmp/fb.out 1
info "smc-conn ($app): $(grep '"conn":' /tmp/fb.out)"

SEL='select(.event == "fallback-attributed" and .unit == "fb-app.service" and .reason == "NOUEID")'
mine() { jq -c "$SEL" /tmp/mon.json; }
seen() { [ -n "$(mine)" ]; }
wait_until 60 "the fallback in smcctl monitor" seen
info "monitor: $(mine | head -n 2)"
ev=$(mine | head -n 1)
assert_json "$ev" .pid "$app" "the event names smc-conn's pid"
assert_json "$ev" .command smc-conn "and its command"
assert_json "$ev" .cgroup /smcd-test.slice/fb-app.service "and its cgroup"
json_true "$ev" '.netns_cookie > 0' "and its network namespace"
# The server side's switch ran in a kworker: its pid is the listening socket's holder.
assert_json "$ev" .side server "NOUEID is the server's: the client sent no UEID"
assert_json "$ev" .pid_from_socket true "server side: found through the listening socket"
text_seen() { grep -q "fallback to TCP: fb-app.service pid $app (smc-conn) server side NOUEID (the peer sent no UEID), netns [1-9]" /tmp/mon.txt; }
wait_until 60 "the fallback in the text monitor" text_seen
grep "fallback to TCP" /tmp/mon.txt | sed 's/^/# text: /'
kill $mon $tmon $app 2>/dev/null
wait $mon $tmon $app 2>/dev/null
assert_ok smcctl monitor --help

# Prometheus: under its own unit, bounded labels.
wait_prom $PROM 60 "the unit's counter in the textfile" \
	grep -q '^smc_fallback_attributed_total{reason="NOUEID",unit="fb-app.service"} [1-9]'
grep '^smc_fallback_attribut' $prom_snap | sed 's/^/# prom: /'
assert_contains "$(cat $prom_snap)" "smc_fallback_attribution_available 1"
# promtool when the run brings it (--host-bin promtool; too big for every lane boot).
if command -v promtool >/dev/null 2>&1; then
	assert_ok sh -c "promtool check metrics <$prom_snap"
	info "promtool check metrics: ok"
fi

# smcctl stats through the agent: where fallbacks come from.
assert_ok smcctl stats
printf '%s\n' "$out" | sed -n '/Fallbacks by unit/,/^$/p' | sed 's/^/# stats: /'
assert_match "$out" "NOUEID +fb-app.service +[1-9]"
assert_ok smcctl -j stats
json_true "$out" '[.fallback.attribution.reasons[] | select(.name == "NOUEID") | .units[] | select(.unit == "fb-app.service" and .count >= 1)] | length == 1' "stats -j: the unit under NOUEID"

# D-Bus: the same table.
run busctl --json=short get-property $S FallbackAttribution
json_true "$out" '[.data[] | select(.[1] == "NOUEID" and .[2] == "fb-app.service" and .[3] >= 1)] | length == 1' "D-Bus FallbackAttribution"

# --- an unmodified program: busybox nc under smcctl run ------------------------------------
# The server an echo server that keeps listening (-ll -e: a child runs cat per connection):
# the server side's switch runs in a kworker and is attributed to the listener's holder,
# which a one-shot "nc -l" closes right after accept().
start_monitor /tmp/mon-nc.json
mkdir -p $CG/smcd-test.slice/fb-ncd.service $CG/smcd-test.slice/fb-nc.service
# smcctl run execs the command once the agent enrolled it: $! is nc's pid.
(exec_in_cgroup /smcd-test.slice/fb-ncd.service smcctl run -m bpf -- nc -ll -p 7000 -e /bin/cat) \
	</dev/null >/tmp/ncd.out 2>/tmp/ncd.err &
ncd=$!
wait_listen 7000
# The client's stdin a FIFO that a sleep keeps open: nc reads no EOF, the connection stays.
mkfifo /tmp/nc.in
sleep 600 >/tmp/nc.in &
w1=$!
(exec_in_cgroup /smcd-test.slice/fb-nc.service smcctl run -m bpf -- nc 127.0.0.1 7000) \
	</tmp/nc.in >/tmp/nc.out 2>/tmp/nc.err &
ncc=$!
echo "hello over a fallen-back SMC socket" >/tmp/nc.in
wait_until 60 "nc's data echoed by the server" grep -q "hello over a fallen-back SMC socket" /tmp/nc.out
assert_contains "$(cat /tmp/ncd.err)" "SMC through BPF (IPPROTO_SMC; enrolled by smcd-agent)" "the server's smcctl run"
assert_contains "$(cat /tmp/nc.err)" "SMC through BPF (IPPROTO_SMC; enrolled by smcd-agent)" "the client's smcctl run"
assert_eq nc "$(cat /proc/$ncd/comm)" "the server is nc itself"
assert_eq nc "$(cat /proc/$ncc/comm)" "the client is nc itself"
info "nc server $ncd, client $ncc"

# smcctl monitor: each side with its own unit, pid and command.
NSEL='select(.event == "fallback-attributed" and (.unit == "fb-ncd.service" or .unit == "fb-nc.service"))'
nc_events() { jq -c "$NSEL" /tmp/mon-nc.json; }
both_seen() { [ "$(nc_events | jq -s 'map(.side) | unique | length')" = 2 ]; }
wait_until 60 "both nc sides' fallbacks in smcctl monitor" both_seen
nc_events | sed 's/^/# monitor: /'
ev=$(nc_events | jq -c 'select(.side == "server")' | head -n 1)
assert_json "$ev" .unit fb-ncd.service "server side: its unit"
assert_json "$ev" .cgroup /smcd-test.slice/fb-ncd.service "server side: its cgroup"
assert_json "$ev" .reason NOUEID "server side: no UEID"
assert_json "$ev" .pid "$ncd" "server side: nc's pid"
assert_json "$ev" .command nc "server side: nc's command"
assert_json "$ev" .pid_from_socket true "server side: found through the listening socket"
ev=$(nc_events | jq -c 'select(.side == "client")' | head -n 1)
assert_json "$ev" .unit fb-nc.service "client side: its unit"
assert_json "$ev" .cgroup /smcd-test.slice/fb-nc.service "client side: its cgroup"
assert_json "$ev" .reason PEERDECL "client side: the server declined"
assert_json "$ev" .pid "$ncc" "client side: nc's pid"
assert_json "$ev" .command nc "client side: nc's command"
assert_json "$ev" '(has("pid_from_socket") | not) or .pid_from_socket == false' true "client side: the switch ran in nc itself"

# smcctl socket -p while the connection is open: the sockets nc holds, fallen back, by name
# (the server's end of the connection is its cat's, in the same unit).
assert_ok smcctl -j socket -a -p
j=$out
json_true "$j" "[.sockets[] | select(.state == \"LISTEN\" and any(.processes[]; .pid == $ncd and .command == \"nc\" and .unit == \"fb-ncd.service\"))] | length == 1" \
	"socket -p: nc's listening SMC socket, held by nc ($ncd) of fb-ncd.service"
json_true "$j" "[.sockets[] | select(.mode == \"TCP\" and .fallback.reason.name == \"NOUEID\" and any(.processes[]; .command == \"cat\" and .unit == \"fb-ncd.service\"))] | length == 1" \
	"socket -p: the server's end, NOUEID, held by the cat nc started, in fb-ncd.service"
json_true "$j" "[.sockets[] | select(.mode == \"TCP\" and .fallback.reason.name == \"PEERDECL\" and any(.processes[]; .pid == $ncc and .command == \"nc\" and .unit == \"fb-nc.service\"))] | length == 1" \
	"socket -p: the client's connection, PEERDECL, held by nc ($ncc) of fb-nc.service"
assert_ok smcctl socket -a -p
assert_contains "$out" "nc/$ncd"
assert_contains "$out" "nc/$ncc"

# Prometheus: under each unit.
wait_prom $PROM 60 "nc's units in the textfile" sh -c \
	'grep -q "^smc_fallback_attributed_total{reason=\"NOUEID\",unit=\"fb-ncd.service\"} [1-9]" "$0" &&
	 grep -q "^smc_fallback_attributed_total{reason=\"PEERDECL\",unit=\"fb-nc.service\"} [1-9]" "$0"'
grep '^smc_fallback_attributed_total.*fb-nc' $prom_snap | sed 's/^/# prom: /'
kill $ncc $w1 $mon 2>/dev/null
wait $ncc $w1 $mon 2>/dev/null
kill $ncd 2>/dev/null
wait $ncd 2>/dev/null

kill $agent
wait $agent 2>/dev/null
echo "ok"
