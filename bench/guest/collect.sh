#!/bin/sh
# timeout: 7200
#
# The collection benchmark, in the guest (bench/run boots it; see bench/README.md).
# No "lanes:" header: never part of make check.  Results: lines starting with "@@BENCH ".
#   1. smcd-agent idle (on its system bus, stats/monitor every 10 s, drift every 30 s,
#      WatchdogSec=1min emulated): RSS, and wake-ups (voluntary context switches) in 60 s.
#   2. For each size in SMCD_BENCH_SIZES (default "1 1000 10000") open SMC-D connections
#      (smc-conn pair --hold; socket buffers at the kernel's 16 KiB minimum): collect-bench
#      (raw dumps vs the statistics poll vs the whole tick vs the Prometheus write; smc-tools'
#      commands when bench/run put smc-tools' smcd and smcss in the guest), the whole-process
#      times of smcctl socket/stats/linkgroup against smc-tools' (abtime), a D-Bus property
#      read of the agent, and the running agent's RSS.
#   3. At the largest size: the idle agent again (intervals on), wake-ups and RSS.
# Environment: SMCD_BENCH_SIZES, SMCD_BENCH_ITERATIONS (collect-bench, default 20),
# SMCD_BENCH_RUNS (abtime runs per command, default 10).
. "$(dirname "$0")/lib.sh"
require_cmd smcd-agent smcctl smc-conn collect-bench abtime jq dbus-daemon busctl
sizes=$(echo "${SMCD_BENCH_SIZES:-1 1000 10000}" | tr , ' ')
iters=${SMCD_BENCH_ITERATIONS:-20}
runs=${SMCD_BENCH_RUNS:-10}
# smc-conn pair holds both ends of every connection: 2 descriptors each.
ulimit -n 65536 || fail "cannot raise the descriptor limit to 65536"

start_system_bus
mkdir -p /tmp/bench /etc/smc

# No buffer sizes from the agent (not its 1 MiB): the kernel's minimum of 16 KiB is set below,
# so that 10,000 connections (20,000 sockets, a send buffer and a DMB each) fit in the guest.
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
until busctl status $SMCD_BUS_NAME >/dev/null 2>&1 && [ -s /tmp/bench/smc.prom ]; do
	sleep 0.2
	i=$((i + 1))
	[ $i -lt 150 ] || { cat /tmp/agent.log; fail "the agent did not come up"; }
done
idle() { # label: wake-ups over 60 s of the running agent, intervals on
	sleep 12
	v0=$(status $agent voluntary_ctxt_switches)
	n0=$(status $agent nonvoluntary_ctxt_switches)
	sleep 60
	v1=$(status $agent voluntary_ctxt_switches)
	n1=$(status $agent nonvoluntary_ctxt_switches)
	echo "@@BENCH {\"idle\":true,\"conns\":$1,\"window_s\":60,\"voluntary_switches\":$((v1 - v0)),\"nonvoluntary_switches\":$((n1 - n0)),\"vmrss_kb\":$(status $agent VmRSS),\"vmhwm_kb\":$(status $agent VmHWM),\"expected_wakeups\":\"6 stats+monitor (10 s), 2 drift (30 s), 2 watchdog (WatchdogSec=1min: every 30 s)\"}"
}
idle 0
for f in wmem rmem; do
	echo 16384 >/proc/sys/net/smc/$f || fail "cannot set net.smc.$f to 16384"
done
info "net.smc.wmem $(cat /proc/sys/net/smc/wmem), net.smc.rmem $(cat /proc/sys/net/smc/rmem)"

# The running agent samples only on request from here on: its timer must not disturb the
# measurements (collect-bench has its own instance of the agent's code).
sed -i 's/interval: 10s/interval: 0/g; s/drift: {interval: 30s}/drift: {interval: 0}/' /etc/smc/smc.yaml
busctl call $SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_MANAGER Reload

# --- 2. each size ---------------------------------------------------------------------------
# name | smcctl command | smc-tools command (abtime: interleaved, whole processes).
# "smcctl stats" and "smcctl linkgroup" ask the running agent for a fresh sample
# (GetStatistics(true), at most one per 250 ms); "stats-kernel" reads the kernel directly.
# "dbus-read": a property read of the agent against the same busctl reading the bus
# daemon's own property (the difference is the agent's part).
pairs="socket|smcctl socket|smcss -a
stats|smcctl stats|smcd stats
stats-kernel|smcctl stats --kernel|smcd stats
linkgroup|smcctl linkgroup|smcd linkgroup"
dbus="dbus-read|busctl get-property $SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_STATS Gauges|busctl get-property org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus Features"
tools=
[ -x /usr/local/bin/smcd ] && [ -x /usr/local/bin/smcss ] && tools=/usr/local/bin
last=
for n in $sizes; do last=$n; done
for n in $sizes; do
	: >/tmp/conn-$n.log
	smc-conn pair --conns $n --bytes 1K --hold 100000 >>/tmp/conn-$n.log 2>&1 &
	conn=$!
	i=0
	while [ "$(grep -c '"conn":' /tmp/conn-$n.log || true)" -lt $n ]; do
		sleep 0.5
		i=$((i + 1))
		[ $i -lt 7200 ] || { tail -5 /tmp/conn-$n.log; fail "$n connections did not come up"; }
		kill -0 $conn 2>/dev/null || { tail -5 /tmp/conn-$n.log; fail "smc-conn died"; }
	done
	modes=$(jq -r 'select(.conn != null) | .mode' /tmp/conn-$n.log | sort | uniq -c | tr -s ' \n' ' ')
	info "$n connections up: $modes; $(smcctl linkgroup --smcd 2>/dev/null | tail -n +2 | wc -l) SMC-D link groups"
	out=$(STATE_DIRECTORY=/tmp/bench/state-$n collect-bench --iterations "$iters" --config /tmp/bench/bench.yaml --label "conns=$n" ${tools:+--smc-tools $tools})
	echo "@@BENCH $out"
	list="$dbus"
	[ -z "$tools" ] || list="$pairs
$dbus"
	echo "$list" | while IFS='|' read -r name a b; do
		# shellcheck disable=SC2086 # the commands are word lists on purpose
		out=$(abtime --runs "$runs" --warmup 2 --label "$name" -- $a --vs $b) || fail "abtime $name"
		echo "@@BENCH {\"conns\":$n,\"cmp\":$out}"
	done
	busctl call $SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_STATS GetStatistics b true >/dev/null
	echo "@@BENCH {\"agent_with_conns\":$n,\"vmrss_kb\":$(status $agent VmRSS),\"vmhwm_kb\":$(status $agent VmHWM),\"smc_sockets\":$(busctl --json=short get-property $SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_STATS Gauges | jq '.data["sockets.smcd"]')}"
	if [ "$n" = "$last" ]; then
		# --- 3. the idle agent with the most connections ---------------------------------
		cp /tmp/bench/bench.yaml /etc/smc/smc.yaml
		busctl call $SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_MANAGER Reload
		idle $n
	fi
	kill $conn
	wait $conn 2>/dev/null
	# The kernel frees the connections' buffers asynchronously: wait until they are gone.
	i=0
	while [ "$(smcctl socket 2>/dev/null | tail -n +2 | wc -l)" -gt 2 ] && [ $i -lt 240 ]; do
		sleep 0.5
		i=$((i + 1))
	done
done
kill $agent
wait $agent
exit 0
