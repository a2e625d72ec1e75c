#!/bin/sh
# timeout: 14400
#
# The collection benchmark, in the guest (bench/run boots it; see bench/README.md).
# No "lanes:" header: never part of make check.  Results: lines starting with "@@BENCH ".
#   0. smc_lo (/kmod/smc_lo.ko, bench/run passes it) loaded; the agent activates it with
#      max-dmbs 32768 and takes SMC-D loopback over from the built-in lo (loopback: of
#      smc.yaml), so that 10,000 connections (20,000 DMBs) are all SMC-D.
#   1. smcd-agent idle (on its system bus, stats/monitor every 10 s, drift every 30 s,
#      WatchdogSec=1min emulated): RSS, and wake-ups (voluntary context switches) in 60 s.
#   2. For each size in SMCD_BENCH_SIZES (default "1 1000 10000") open SMC-D connections in
#      the agent's own namespace (smc-conn pair --hold; socket buffers at the kernel's 16 KiB
#      minimum), checked SMC-D by the kernel's counters (smcctl stats: SMC-D handshakes +2
#      per connection, no fallback): collect-bench (raw dumps, the statistics poll, the
#      tick, the Prometheus write and its parts, the bus; smc-tools' commands when bench/run
#      put smcd and smcss in the guest), the whole-process times of smcctl
#      socket/stats/linkgroup against smc-tools' (abtime), a D-Bus property read, the
#      running agent's RSS; at the largest size the idle agent again.
#   3. The connections closed and their link groups gone (SMC keeps a link group's DMBs for
#      10 minutes after its last connection; idle time costs nothing under icount), then
#      SMCD_BENCH_NETNS (default 4) named namespaces, and each size again spread over them:
#      collect-bench (its raw side dumps every namespace as the agent samples it), the
#      agent's RSS, and at the largest size the idle agent with every namespace sampled.
#   Before all: who holds the start-up peak.  The agent started and stopped twice, once as
#   it is and once with the kernel's BTF hidden (an empty file bound over
#   /sys/kernel/btf/vmlinux: libbpf cannot load the fallback attribution's program): RSS and
#   peak once it is up.  The measured agent's peak is then reset (clear_refs 5), so that
#   its later peaks are those of the sampling.
# Environment: SMCD_BENCH_SIZES, SMCD_BENCH_ITERATIONS (collect-bench, default 20),
# SMCD_BENCH_RUNS (abtime runs per command, default 10), SMCD_BENCH_NETNS.
. "$(dirname "$0")/lib.sh"
require_cmd smcd-agent smcctl smc-conn collect-bench abtime jq dbus-daemon busctl
IP=/usr/sbin/ip # iproute2 (busybox's ip has no netns)
KO=/kmod/smc_lo.ko
sizes=$(echo "${SMCD_BENCH_SIZES:-1 1000 10000}" | tr , ' ')
iters=${SMCD_BENCH_ITERATIONS:-20}
runs=${SMCD_BENCH_RUNS:-10}
nns=${SMCD_BENCH_NETNS:-4}
[ -f $KO ] || fail "$KO is not in the guest (bench/run passes it with --kmod)"
[ -x $IP ] || fail "$IP is not in the guest (bench/run passes it with --host-bin ip)"
# smc-conn pair holds both ends of every connection: 2 descriptors each.
ulimit -n 65536 || fail "cannot raise the descriptor limit to 65536"

start_system_bus
mkdir -p /tmp/bench /etc/smc

# --- 0. smc_lo ------------------------------------------------------------------------------
insmod $KO || fail "insmod $KO failed"
# No buffer sizes from the agent (not its 256 KiB): the kernel's minimum of 16 KiB is set below,
# so that 10,000 connections (20,000 sockets, a DMB each) fit in the guest.
cat >/etc/smc/smc.yaml <<XEOF
ueid: {auto: true}
sysctl: {}
modules: [smc, smc_diag]
drift: {interval: 30s}
monitor: {interval: 10s}
stats: {interval: 10s, prometheus: {path: /tmp/bench/smc.prom}}
loopback: {active: true, max-dmbs: 32768, take-over-lo: true}
XEOF
cp /etc/smc/smc.yaml /tmp/bench/bench.yaml

status() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }

# wait_agent PID PROM: until the agent PID owns its bus name and wrote PROM
wait_agent() {
	_i=0
	until busctl status $SMCD_BUS_NAME >/dev/null 2>&1 && [ -s "$2" ]; do
		sleep 0.2
		_i=$((_i + 1))
		kill -0 "$1" 2>/dev/null || { tail -20 /tmp/agent*.log; fail "the agent exited"; }
		[ $_i -lt 150 ] || { tail -20 /tmp/agent*.log; fail "the agent did not come up"; }
	done
}

# --- the start-up peak: with and without the kernel's BTF -----------------------------------
sed 's|/tmp/bench/smc.prom|/tmp/bench/peak.prom|; /^loopback:/d' /tmp/bench/bench.yaml >/tmp/bench/peak.yaml
: >/tmp/bench/no-btf
for btf in yes no; do
	[ $btf = yes ] || mount --bind /tmp/bench/no-btf /sys/kernel/btf/vmlinux ||
		fail "cannot hide /sys/kernel/btf/vmlinux"
	rm -rf /tmp/bench/peak-state /tmp/bench/peak.prom
	STATE_DIRECTORY=/tmp/bench/peak-state smcd-agent --config /tmp/bench/peak.yaml \
		>/tmp/agent-peak-$btf.log 2>&1 &
	p=$!
	wait_agent $p /tmp/bench/peak.prom
	why=$(busctl --json=short get-property $SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_STATS \
		$SMCD_BUS_STATS_FALLBACK_ATTRIBUTION_ERROR | jq .data)
	echo "@@BENCH {\"startup\":true,\"btf\":\"$btf\",\"vmrss_kb\":$(status $p VmRSS),\"vmhwm_kb\":$(status $p VmHWM),\"attribution_error\":$why}"
	kill $p
	wait $p
	_i=0
	while busctl status $SMCD_BUS_NAME >/dev/null 2>&1; do # the name free for the next one
		sleep 0.1
		_i=$((_i + 1))
		[ $_i -lt 100 ] || fail "the bus name is still owned after the agent exited"
	done
	[ $btf = yes ] || umount /sys/kernel/btf/vmlinux || fail "cannot unhide /sys/kernel/btf/vmlinux"
done

STATE_DIRECTORY=/tmp/bench/agent-state WATCHDOG_USEC=60000000 \
	smcd-agent --config /etc/smc/smc.yaml >/tmp/agent.log 2>&1 &
agent=$!
mkdir -p /tmp/bench/agent-state
wait_agent $agent /tmp/bench/smc.prom
echo "@@BENCH {\"agent_started\":true,\"vmrss_kb\":$(status $agent VmRSS),\"vmhwm_kb\":$(status $agent VmHWM)}"
i=0
until [ "$(smcctl -j device loopback-ism 2>/dev/null | jq -r '"\(.smc_lo.state) \(.smc_lo.active_settings.max_dmbs)"')" = "active 32768" ] &&
	smcctl -j pnet | jq -e '[.pnet[] | select(.ib_dev == "lo")] | length == 1' >/dev/null 2>&1; do
	sleep 0.5
	i=$((i + 1))
	[ $i -lt 120 ] || { smcctl device loopback-ism; smcctl pnet; tail -20 /tmp/agent.log; fail "the agent did not activate smc_lo with max-dmbs 32768 and take lo over"; }
done
info "smc_lo active, max-dmbs 32768; PNET ID on lo: $(smcctl pnet | tail -n +2 | tr -s ' \n' ' ')"
# From here on VmHWM is the peak since this point: the sampling's, not the start-up's.
echo 5 >/proc/$agent/clear_refs || fail "cannot reset the agent's peak RSS"
echo "@@BENCH {\"peak_reset\":true,\"vmrss_kb\":$(status $agent VmRSS),\"vmhwm_kb\":$(status $agent VmHWM)}"

idle() { # label conns: wake-ups over 60 s of the running agent, intervals on
	sleep 12
	v0=$(status $agent voluntary_ctxt_switches)
	n0=$(status $agent nonvoluntary_ctxt_switches)
	sleep 60
	v1=$(status $agent voluntary_ctxt_switches)
	n1=$(status $agent nonvoluntary_ctxt_switches)
	echo "@@BENCH {\"idle\":true,\"phase\":\"$1\",\"conns\":$2,\"netns\":$3,\"window_s\":60,\"voluntary_switches\":$((v1 - v0)),\"nonvoluntary_switches\":$((n1 - n0)),\"vmrss_kb\":$(status $agent VmRSS),\"vmhwm_kb\":$(status $agent VmHWM),\"expected_wakeups\":\"6 stats+monitor (10 s), 2 drift (30 s), 2 watchdog (WatchdogSec=1min: every 30 s)\"}"
}

# set_bufs [NS]: net.smc.wmem and rmem (per namespace) at their 16 KiB minimum
set_bufs() {
	for f in wmem rmem; do
		if [ -z "${1:-}" ]; then
			echo 16384 >/proc/sys/net/smc/$f || fail "cannot set net.smc.$f to 16384"
		else
			$IP netns exec "$1" sh -c "echo 16384 >/proc/sys/net/smc/$f" ||
				fail "cannot set net.smc.$f to 16384 in $1"
		fi
	done
}

# intervals on|off: the running agent's timers (off: it samples only on request, so that its
# timer does not disturb the measurements; collect-bench has its own instance of its code)
intervals() {
	if [ "$1" = on ]; then
		cp /tmp/bench/bench.yaml /etc/smc/smc.yaml
	else
		sed 's/interval: 10s/interval: 0/g; s/drift: {interval: 30s}/drift: {interval: 0}/' \
			/tmp/bench/bench.yaml >/etc/smc/smc.yaml
	fi
	busctl call $SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_MANAGER Reload >/dev/null ||
		fail "Reload failed: $(tail -5 /tmp/agent.log)"
}

# kstats NS...: the kernel's SMC-D handshakes and fallbacks, summed over the namespaces
# ("-": the agent's own), as smcctl stats reads them
kstats() {
	_s=0
	_f=0
	for _ns in "$@"; do
		if [ "$_ns" = - ]; then
			_j=$(smcctl -j stats --kernel) || fail "smcctl stats --kernel: $_j"
		else
			_j=$(smcctl -n "$_ns" -j stats) || fail "smcctl -n $_ns stats: $_j"
		fi
		_s=$((_s + $(echo "$_j" | jq .summary.smcd)))
		_f=$((_f + $(echo "$_j" | jq .summary.fallback)))
	done
	echo "$_s $_f"
}

# open_conns N TAG NS...: N connections held open, spread over the namespaces; $conns: their
# smc-conn processes.  Fails unless every one is SMC-D by smc-conn's count (smc_diag) and by
# the kernel's counters (2 SMC-D handshakes a connection, no fallback).
open_conns() {
	_n=$1
	_tag=$2
	shift 2
	_k=$#
	_i=0
	conns=
	_before=$(kstats "$@")
	for _ns in "$@"; do
		_m=$((_n / _k + (_i < _n % _k ? 1 : 0)))
		_log=/tmp/conn-$_tag-$_i.log
		: >$_log
		if [ $_m -gt 0 ]; then
			if [ "$_ns" = - ]; then
				smc-conn pair --conns $_m --bytes 1K --hold 100000 >>$_log 2>&1 &
			else
				(exec $IP netns exec "$_ns" smc-conn pair --conns $_m --bytes 1K --hold 100000) >>$_log 2>&1 &
			fi
			conns="$conns $!"
		fi
		echo $_m >$_log.want
		_i=$((_i + 1))
	done
	_i=0
	while [ $_i -lt $_k ]; do
		_log=/tmp/conn-$_tag-$_i.log
		_w=0
		while [ "$(grep -c '"conn":' $_log || true)" -lt "$(cat $_log.want)" ]; do
			sleep 0.5
			_w=$((_w + 1))
			[ $_w -lt 7200 ] || { tail -5 $_log; fail "$_n connections did not come up"; }
			for _p in $conns; do
				kill -0 $_p 2>/dev/null || { tail -5 $_log; fail "smc-conn died"; }
			done
		done
		_i=$((_i + 1))
	done
	modes=$(cat /tmp/conn-$_tag-*.log | jq -r 'select(.conn != null) | .mode' | sort | uniq -c | tr -s ' \n' ' ')
	_after=$(kstats "$@")
	set -- $_before $_after
	dsmcd=$(($3 - $1))
	dfb=$(($4 - $2))
	echo "@@BENCH {\"conns_check\":\"$_tag\",\"conns\":$_n,\"modes\":\"$modes\",\"kernel_smcd_handshakes\":$dsmcd,\"kernel_fallbacks\":$dfb}"
	info "$_n connections up ($_tag): $modes; kernel: +$dsmcd SMC-D handshakes, +$dfb fallbacks"
	[ "$dsmcd" -eq $((2 * _n)) ] && [ "$dfb" -eq 0 ] ||
		fail "not all $_n connections are SMC-D by the kernel's counters: +$dsmcd SMC-D handshakes (want $((2 * _n))), +$dfb fallbacks"
}

# close_conns NS...: until no socket of the connections is left in any namespace
close_conns() {
	for _p in $conns; do kill $_p 2>/dev/null; done
	for _p in $conns; do wait $_p 2>/dev/null; done
	# The kernel frees the connections asynchronously: wait until they are gone.
	for _ns in "$@"; do
		_w=0
		if [ "$_ns" = - ]; then _o=; else _o="-n $_ns"; fi
		# shellcheck disable=SC2086 # $_o is empty or two words
		while [ "$(smcctl $_o socket 2>/dev/null | tail -n +2 | wc -l)" -gt 2 ] && [ $_w -lt 240 ]; do
			sleep 0.5
			_w=$((_w + 1))
		done
	done
}

agent_rss() { # phase conns netns: the running agent after a sample of every namespace
	busctl call $SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_STATS GetStatistics b true >/dev/null
	echo "@@BENCH {\"agent_with_conns\":$2,\"phase\":\"$1\",\"netns\":$3,\"vmrss_kb\":$(status $agent VmRSS),\"vmhwm_kb\":$(status $agent VmHWM),\"smc_sockets\":$(busctl --json=short get-property $SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_STATS Gauges | jq '.data["sockets.smcd"]')}"
}

# --- 1. idle --------------------------------------------------------------------------------
idle host 0 0
set_bufs
info "net.smc.wmem $(cat /proc/sys/net/smc/wmem), net.smc.rmem $(cat /proc/sys/net/smc/rmem)"
intervals off

# --- 2. each size, the agent's own namespace ------------------------------------------------
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
	open_conns $n host-$n -
	out=$(STATE_DIRECTORY=/tmp/bench/state-$n collect-bench --bus --iterations "$iters" \
		--config /tmp/bench/bench.yaml --label "conns=$n" ${tools:+--smc-tools $tools}) ||
		fail "collect-bench: $out"
	echo "@@BENCH {\"phase\":\"host\",\"conns\":$n,\"bench\":$out}"
	list="$dbus"
	[ -z "$tools" ] || list="$pairs
$dbus"
	echo "$list" | while IFS='|' read -r name a b; do
		# shellcheck disable=SC2086 # the commands are word lists on purpose
		out=$(abtime --runs "$runs" --warmup 2 --label "$name" -- $a --vs $b) || fail "abtime $name"
		echo "@@BENCH {\"conns\":$n,\"cmp\":$out}"
	done
	agent_rss host $n 0
	if [ "$n" = "$last" ]; then
		intervals on
		idle host $n 0
		intervals off
	fi
	close_conns -
done

# --- 3. each size spread over named namespaces ----------------------------------------------
# The link groups of phase 2 keep their DMBs for 10 minutes after their last connection:
# wait until smc_lo has none, so that this phase has all 32768 to itself.
i=0
while [ "$(smcctl -j device loopback-ism | jq .smc_lo.counters.dmbs)" -gt 0 ]; do
	sleep 10
	i=$((i + 1))
	[ $i -lt 120 ] || fail "smc_lo still has $(smcctl -j device loopback-ism | jq .smc_lo.counters.dmbs) DMBs 20 minutes after the last connection"
done
info "smc_lo: no DMB left after $((i * 10)) s"
names=
j=1
while [ $j -le "$nns" ]; do
	$IP netns add bench$j || fail "ip netns add bench$j"
	$IP -n bench$j link set lo up || fail "lo up in bench$j"
	set_bufs bench$j
	names="$names bench$j"
	j=$((j + 1))
done
# shellcheck disable=SC2086 # a list of names
for n in $sizes; do
	open_conns $n netns-$n $names
	out=$(STATE_DIRECTORY=/tmp/bench/state-ns-$n collect-bench --bus --iterations "$iters" \
		--config /tmp/bench/bench.yaml --label "conns=$n,netns=$nns") || fail "collect-bench: $out"
	echo "@@BENCH {\"phase\":\"netns\",\"conns\":$n,\"bench\":$out}"
	agent_rss netns $n $nns
	if [ "$n" = "$last" ]; then
		intervals on
		idle netns $n $nns
		intervals off
	fi
	close_conns $names
done

kill $agent
wait $agent
exit 0
