#!/bin/sh
# timeout: 1500
#
# The collection benchmark, in the guest (bench/run boots it; see bench/README.md).
# No "lanes:" header: never part of make check.  Results: lines starting with "@@BENCH ".
#   1. smcd-agent idle (on its system bus, stats/monitor every 10 s, drift every 30 s,
#      WatchdogSec=1min emulated): RSS, and wake-ups (voluntary context switches) in 60 s.
#   2. For 1, 100 and 1000 open SMC-D connections (smc-conn pair --hold): collect-bench
#      (raw dumps vs collector_sample() vs the whole tick; smc-tools' commands when bench/run
#      put smc-tools' smcd and smcss in the guest), and the running agent's RSS.
. "$(dirname "$0")/lib.sh"
require_cmd smcd-agent smcctl smc-conn collect-bench jq dbus-daemon busctl
ulimit -n 16384 || ulimit -n 8192

start_system_bus
mkdir -p /tmp/bench /etc/smc

# The kernel's default 64 KiB buffers (not the agent's 1 MiB): 1000 connections in 1 GiB.
cat >/etc/smc/smc.yaml <<XEOF
ueid: {auto: true}
sysctl: {}
modules: [smc, smc_diag]
drift: {interval: 30s}
monitor: {interval: 10s}
stats: {interval: 10s, prometheus: {path: /tmp/bench/smc.prom}}
XEOF
cp /etc/smc/smc.yaml /tmp/bench/bench.yaml

status() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }

# --- 1. idle --------------------------------------------------------------------------------
STATE_DIRECTORY=/tmp/bench/agent-state WATCHDOG_USEC=60000000 \
	smcd-agent --config /etc/smc/smc.yaml >/tmp/agent.log 2>&1 &
agent=$!
mkdir -p /tmp/bench/agent-state
i=0
until busctl status org.smcd.Agent1 >/dev/null 2>&1 && [ -s /tmp/bench/smc.prom ]; do
	sleep 0.2
	i=$((i + 1))
	[ $i -lt 150 ] || { cat /tmp/agent.log; fail "the agent did not come up"; }
done
sleep 12
v0=$(status $agent voluntary_ctxt_switches)
n0=$(status $agent nonvoluntary_ctxt_switches)
sleep 60
v1=$(status $agent voluntary_ctxt_switches)
n1=$(status $agent nonvoluntary_ctxt_switches)
echo "@@BENCH {\"idle\":true,\"window_s\":60,\"voluntary_switches\":$((v1 - v0)),\"nonvoluntary_switches\":$((n1 - n0)),\"vmrss_kb\":$(status $agent VmRSS),\"vmhwm_kb\":$(status $agent VmHWM),\"expected_wakeups\":\"6 stats+monitor (10 s), 2 drift (30 s), 2 watchdog (WatchdogSec=1min: every 30 s)\"}"

# The running agent samples only on request from here on: its timer must not disturb the
# measurements (collect-bench has its own instance of the agent's code).
sed -i 's/interval: 10s/interval: 0/g; s/drift: {interval: 30s}/drift: {interval: 0}/' /etc/smc/smc.yaml
busctl call org.smcd.Agent1 /org/smcd/Agent1 org.smcd.Agent1.Manager Reload

# --- 2. 1, 100, 1000 connections -------------------------------------------------------------
for n in 1 100 1000; do
	smc-conn pair --conns $n --bytes 1K --hold 3000 >/tmp/conn-$n.log 2>&1 &
	conn=$!
	i=0
	while [ "$(grep -c '"conn":' /tmp/conn-$n.log)" -lt $n ]; do
		sleep 0.5
		i=$((i + 1))
		[ $i -lt 600 ] || { tail -5 /tmp/conn-$n.log; fail "$n connections did not come up"; }
		kill -0 $conn 2>/dev/null || { tail -5 /tmp/conn-$n.log; fail "smc-conn died"; }
	done
	modes=$(jq -r 'select(.conn != null) | .mode' /tmp/conn-$n.log | sort | uniq -c | tr -s ' \n' ' ')
	info "$n connections up: $modes"
	tools=
	[ -x /usr/local/bin/smcd ] && [ -x /usr/local/bin/smcss ] && tools="--smc-tools /usr/local/bin"
	out=$(STATE_DIRECTORY=/tmp/bench/state-$n collect-bench --iterations 40 --config /tmp/bench/bench.yaml --label "conns=$n" $tools)
	echo "@@BENCH $out"
	busctl call org.smcd.Agent1 /org/smcd/Agent1 org.smcd.Agent1.Statistics GetStatistics b true >/dev/null
	echo "@@BENCH {\"agent_with_conns\":$n,\"vmrss_kb\":$(status $agent VmRSS),\"vmhwm_kb\":$(status $agent VmHWM),\"smc_sockets\":$(busctl --json=short get-property org.smcd.Agent1 /org/smcd/Agent1 org.smcd.Agent1.Statistics Gauges | jq '.data["sockets.smcd"]')}"
	kill $conn
	wait $conn 2>/dev/null
	sleep 2
done
kill $agent
wait $agent
exit 0
