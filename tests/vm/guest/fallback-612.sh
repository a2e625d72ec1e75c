#!/bin/sh
# lanes: 612
# timeout: 300
#
# Fallback attribution on Debian's stock 6.12, where SMC is a module that the agent loads
# itself (modules: in smc.yaml) after it started: the tracepoint and struct smc_sock are in
# the smc module's BTF, so the first attempt says "SMC is not loaded" and the agent tries
# again once the module is there (tp_btf on a module's tracepoint, CO-RE against module
# BTF).  No SMC-D device here: the client falls back with NOSMCDEV in its own process, the
# server with PEERDECL in the kernel's listen worker (the pid found through the socket).
. "$(dirname "$0")/lib.sh"
require_cmd smcd-agent smcctl smc-conn dbus-daemon busctl jq
CG=/sys/fs/cgroup
# The textfile in a directory of root's: the agent writes into none that others may write (/tmp).
PROM=/tmp/prom/smc.prom
mkdir -p /tmp/prom
export STATE_DIRECTORY=/tmp/state
mkdir -p /tmp/state /etc/smc
json_true() { assert_json "$1" "$2" true "$3"; }

start_system_bus
module_loaded smc && skip "smc is loaded already: this test is about the agent loading it"
cat >/etc/smc/smc.yaml <<EOF2
ueid: {auto: false}
modules: [smc, smc_diag]
monitor: {interval: 1s}
stats:
  interval: 1s
  prometheus: {path: $PROM}
EOF2
start_agent $PROM
attached() { grep -q "Fallback attribution: following smc:smc_switch_to_fallback" /tmp/agent.log; }
wait_until 60 "the agent attaches once it loaded smc" attached
assert_contains "$(cat /tmp/agent.log)" "Fallback attribution waits for the smc module: SMC is not loaded"
assert_not_contains "$(cat /tmp/agent.log)" "Fallback attribution is unavailable"
assert_ok smcctl status
assert_contains "$out" "Attribution:    every fallback to TCP, with its unit and process"

mkdir -p $CG/smcd-test.slice/fb-app.service
start_monitor /tmp/mon.json
sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' $CG/smcd-test.slice/fb-app.service \
	smc-conn pair --proto smc --conns 1 --bytes 64K --hold 120 >/tmp/fb.out 2>&1 &
app=$!
# Held open until the events are checked: the server side's pid is found through the
# listening socket in /proc, which a program that already exited no longer holds.
wait_conns /tmp/fb.out 1
both() { [ "$(jq -c 'select(.event == "fallback-attributed" and .unit == "fb-app.service")' /tmp/mon.json | wc -l)" -ge 2 ]; }
wait_until 60 "both sides' fallbacks in smcctl monitor" both
cli=$(jq -c 'select(.event == "fallback-attributed" and .side == "client")' /tmp/mon.json | head -n 1)
srv=$(jq -c 'select(.event == "fallback-attributed" and .side == "server")' /tmp/mon.json | head -n 1)
info "client: $cli"
info "server: $srv"
assert_json "$cli" .reason NOSMCDEV "client: no SMC device on 6.12"
assert_json "$cli" .pid "$app" "client: smc-conn's pid"
assert_json "$cli" .pid_from_socket false "client: from the connecting process itself"
assert_json "$srv" .reason PEERDECL "server: the client declined"
assert_json "$srv" .pid "$app" "server: the listener's holder"
assert_json "$srv" .pid_from_socket true "server: found through the socket (listen worker)"
assert_json "$srv" .command smc-conn "server: its command"
kill $mon $app 2>/dev/null
wait $mon $app 2>/dev/null
wait_prom $PROM 60 "the unit's counter in the textfile" \
	grep -q '^smc_fallback_attributed_total{reason="NOSMCDEV",unit="fb-app.service"} [1-9]'
kill $agent
wait $agent 2>/dev/null
echo "ok"
