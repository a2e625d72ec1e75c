#!/bin/sh
# lanes: 7x
# timeout: 7200
#
# Guest half of bench/smc-run/run-bench (README.md there): the comparisons of seed 000 with
# unmodified programs, over TCP loopback and over SMC-D loopback through "smcctl run" (BPF,
# IPPROTO_SMC):
#   sockperf throughput (64000-byte messages) and ping-pong (14 bytes), qperf tcp_bw and
#   tcp_lat, redis-benchmark GET and SET (1 KiB values), nginx with wrk
# in two configurations, alternating by round:
#   defaults  the kernel's net.smc.wmem/rmem (64 KiB); only a UEID (smcctl ueid derive
#             --apply), without which SMC-D loopback falls back to TCP on x86; smcctl run
#             holds the BPF programs itself
#   agent     smcd-agent running with the shipped smc.yaml (SMCD_BENCH_CONFIG: its UEID
#             and buffers); smcctl run goes through it
# on ONE SMC-D device per boot (SMCD_BENCH_DEVICE), so that one device's link groups and
# buffers never share the guest's memory with another's:
#   lo            the built-in DIBS loopback device (smc_lo not loaded)
#   smclo-nocopy  our module's device (kmod/, vm-run --kmod), nocopy on
#   smclo-copy    the same with nocopy off (SMC allocates send buffers; every byte copied)
# TCP (when SMCD_BENCH_TCP=1: run-bench asks it of one device's boots, since TCP does not
# depend on the SMC-D device) is measured in every round next to SMC-D, which of the two
# goes first alternating.
#
# Output, one line per measurement (run-bench parses it):
#   BENCH MODE BOOT ROUND CONFIG DEVICE TRANSPORT METRIC VALUE UNIT
# per SMC-D program run, what the kernel's SMC counters moved by (smcctl -j stats --kernel,
# before and after; only counters that moved), the link groups' buffer memory after it and
# how long its connections took to be freed after it ended (guest ms):
#   BENCHSTAT BOOT ROUND CONFIG DEVICE BENCH key=delta ... lgrs=N dmb_bytes=N sndbuf_bytes=N settle_ms=N
# and per configuration phase the check that SMC-D connections were made and none fell back:
#   BENCHCHECK BOOT ROUND CONFIG DEVICE smcd=N fallback=N handshake_errors=N
#
# Knobs (vm-run --env): SMCD_BENCH_SECONDS (sockperf and qperf guest seconds per
# measurement), SMCD_BENCH_REQUESTS and SMCD_BENCH_CLIENTS (redis-benchmark -n, -c),
# SMCD_BENCH_WRK_CONNS, SMCD_BENCH_WRK_THREADS and SMCD_BENCH_WRK_SECONDS (wrk -c, -t, -d),
# SMCD_BENCH_TCP (0: SMC-D only), SMCD_BENCH_ROUNDS,
# SMCD_BENCH_DEVICE, SMCD_BENCH_FIRST (the first round's configuration), SMCD_BENCH_BOOT and
# SMCD_BENCH_MODE (labels), SMCD_BENCH_TESTS (comma list of sockperf,qperf,redis,nginx),
# SMCD_BENCH_CONFIGS (comma list of defaults,agent), SMCD_BENCH_CONFIG (the smc.yaml).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-kmod.sh"
require_cmd smcctl smcd-agent sockperf qperf redis-server redis-benchmark nginx wrk jq busctl

T=${SMCD_BENCH_SECONDS:-1}
TW=${SMCD_BENCH_WRK_SECONDS:-10}
N=${SMCD_BENCH_REQUESTS:-40000}
C=${SMCD_BENCH_CLIENTS:-200}
WC=${SMCD_BENCH_WRK_CONNS:-1000}
WT=${SMCD_BENCH_WRK_THREADS:-8}
R=${SMCD_BENCH_ROUNDS:-2}
DEV=${SMCD_BENCH_DEVICE:-lo}
FIRST=${SMCD_BENCH_FIRST:-defaults}
BOOT=${SMCD_BENCH_BOOT:-1}
MODE=${SMCD_BENCH_MODE:-unknown}
TCP=${SMCD_BENCH_TCP:-1}
TESTS=$(echo "${SMCD_BENCH_TESTS:-sockperf,qperf,redis,nginx}" | tr ',' ' ')
CONFIGS=$(echo "${SMCD_BENCH_CONFIGS:-defaults,agent}" | tr ',' ' ')
YAML=${SMCD_BENCH_CONFIG:-}
SMCRUN="smcctl run -m bpf -q --"

case $FIRST in defaults | agent) ;; *) fail "SMCD_BENCH_FIRST must be defaults or agent, not '$FIRST'" ;; esac
for t in $TESTS; do
	case $t in sockperf | qperf | redis | nginx) ;; *) fail "unknown test '$t' in SMCD_BENCH_TESTS" ;; esac
done
[ -n "$CONFIGS" ] || fail "SMCD_BENCH_CONFIGS names no configuration"
for c in $CONFIGS; do
	case $c in defaults | agent) ;; *) fail "unknown configuration '$c' in SMCD_BENCH_CONFIGS (defaults, agent)" ;; esac
done
[ -n "$YAML" ] && [ -f "$YAML" ] || fail "SMCD_BENCH_CONFIG must name the shipped smc.yaml in the guest (got '$YAML')"

# Enough descriptors for wrk's and nginx's connections (the kernel's default is 1024).
ulimit -n 65536 || fail "cannot raise the descriptor limit"
info "bench: boot $BOOT ($MODE), device $DEV, $R rounds from '$FIRST', TCP too: $TCP;" \
	"$T s per sockperf/qperf run, redis -n $N -c $C -d 1024, wrk -t $WT -c $WC -d $TW;" \
	"$(nproc) CPU, $(grep MemTotal /proc/meminfo)"

round=0 cfg=
result() { echo "BENCH $MODE $BOOT $round $cfg $DEV $1 $2 $3 $4"; }

# --- processes ----------------------------------------------------------------------------
# start_server NAME PORT CMD... : CMD in the background as NAME, returns once it listens.
start_server() {
	_n=$1 _port=$2
	shift 2
	"$@" >/tmp/$_n.log 2>&1 &
	eval "pid_$_n=$!"
	_i=0
	until cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk -v p="$(printf ':%04X ' "$_port")" 'index($2 " ", p) && $4 == "0A" { f = 1 } END { exit !f }'; do
		_i=$((_i + 1))
		if [ $_i -gt 600 ] || ! kill -0 "$(eval echo "\$pid_$_n")" 2>/dev/null; then
			fail "$_n did not listen on port $_port: $(cat /tmp/$_n.log)"
		fi
		sleep 0.1
	done
}

stop_server() {
	eval "_p=\$pid_$1"
	kill "$_p" 2>/dev/null
	wait "$_p" 2>/dev/null
	return 0
}

# --- the kernel's SMC counters around each SMC-D run --------------------------------------
# stats_flat: every numeric counter of smcctl -j stats --kernel as "path value" lines.
stats_flat() {
	smcctl -j stats --kernel | jq -r 'paths(numbers) as $p | "\($p | map(tostring) | join(".")) \(getpath($p))"'
}

# stats_delta BEFORE AFTER: "key=delta" for the counters that moved, one line.
stats_delta() {
	awk 'NR == FNR { b[$1] = $2; next } ($2 - b[$1]) != 0 { printf "%s%s=%d", sep, $1, $2 - b[$1]; sep = " " }
		END { print "" }' "$1" "$2"
}

# lgr_memory: the SMC-D link groups and the buffer memory they hold (their DMBs and send
# buffers, in use or kept for reuse): lgrs=N dmb_bytes=N sndbuf_bytes=N
lgr_memory() {
	smcctl -j linkgroup list --smcd |
		jq -r '"lgrs=\(.smcd | length) dmb_bytes=\([.smcd[].dmb_alloc] | add // 0) sndbuf_bytes=\([.smcd[].sndbuf_alloc] | add // 0)"'
}

# settle: wait until the SMC-D link groups hold no connection any more, so that the closing
# of one run's connections (SMC zeroes every buffer of a closed connection before it can be
# reused) does not run into the next measurement; prints how long it took (guest ms).
settle() {
	_t0=$(cut -d' ' -f1 /proc/uptime)
	wait_smc_closed smcd 60
	awk -v a="$_t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%d", (b - a) * 1000 }'
}

# measure BENCH FUNC TRANSPORT : run FUNC; for SMC-D between two snapshots of the counters.
measure() {
	_b=$1 _f=$2 _tr=$3
	if [ "$_tr" = tcp ]; then
		[ "$TCP" = 0 ] || $_f tcp
		return
	fi
	stats_flat >/tmp/stats.before
	$_f smcd $SMCRUN
	stats_flat >/tmp/stats.after
	_d=$(stats_delta /tmp/stats.before /tmp/stats.after)
	echo "BENCHSTAT $BOOT $round $cfg $DEV $_b $_d $(lgr_memory) settle_ms=$(settle)"
	# Every SMC-D run must have made SMC-D connections and no fallback.
	case " $_d " in *" summary.smcd="*) ;; *) fail "$_b ($cfg, $DEV): no SMC-D connection was made" ;; esac
	case " $_d " in *" summary.fallback="*) fail "$_b ($cfg, $DEV): connections fell back to TCP: $_d" ;; esac
}

# --- the programs -------------------------------------------------------------------------
# bench_sockperf TRANSPORT [PREFIX...] (PREFIX: nothing for TCP, "smcctl run ..." for SMC-D)
bench_sockperf() {
	_tr=$1
	shift
	start_server sockperf 11111 "$@" sockperf sr --tcp -i 127.0.0.1 -p 11111
	out=$("$@" sockperf tp --tcp -i 127.0.0.1 -p 11111 -m 64000 -t "$T" 2>&1)
	v=$(printf '%s\n' "$out" | sed -n 's/.*BandWidth is \([0-9.]*\) MBps.*/\1/p' | tail -n 1)
	[ -n "$v" ] || fail "sockperf tp ($cfg $_tr): no bandwidth in: $out"
	result "$_tr" sockperf-tp-64000 "$v" MB/s
	out=$("$@" sockperf pp --tcp -i 127.0.0.1 -p 11111 -m 14 -t "$T" 2>&1)
	v=$(printf '%s\n' "$out" | sed -n 's/.*Latency is \([0-9.]*\) usec.*/\1/p' | tail -n 1)
	[ -n "$v" ] || fail "sockperf pp ($cfg $_tr): no latency in: $out"
	result "$_tr" sockperf-pp-14 "$v" us
	stop_server sockperf
}

# qperf prints "bw = 1.22 GB/sec" and "latency = 10.6 us": normalised to MB/s and us.
qperf_value() {
	awk -v key="$1" '$1 == key && $2 == "=" {
		v = $3; u = $4
		if (u == "GB/sec") v *= 1000; else if (u == "KB/sec") v /= 1000; else if (u == "bytes/sec") v /= 1000000
		if (u == "ms") v *= 1000; else if (u == "ns") v /= 1000; else if (u == "sec") v *= 1000000
		printf "%.3f\n", v }'
}

bench_qperf() {
	_tr=$1
	shift
	start_server qperf 19765 "$@" qperf
	out=$("$@" qperf 127.0.0.1 -t "$T" tcp_bw tcp_lat 2>&1)
	v=$(printf '%s\n' "$out" | qperf_value bw)
	[ -n "$v" ] || fail "qperf ($cfg $_tr): no bw in: $out"
	result "$_tr" qperf-tcp_bw "$v" MB/s
	v=$(printf '%s\n' "$out" | qperf_value latency)
	[ -n "$v" ] || fail "qperf ($cfg $_tr): no latency in: $out"
	result "$_tr" qperf-tcp_lat "$v" us
	stop_server qperf
}

bench_redis() {
	_tr=$1
	shift
	start_server redis 6380 "$@" redis-server --port 6380 --save "" --appendonly no \
		--protected-mode no --daemonize no --bind 127.0.0.1
	out=$("$@" redis-benchmark -h 127.0.0.1 -p 6380 -q -t set,get -n "$N" -c "$C" -d 1024 2>&1)
	for op in SET GET; do
		v=$(printf '%s\n' "$out" | tr '\r' '\n' | sed -n "s/^$op: \([0-9.]*\) requests per second.*/\1/p" | tail -n 1)
		[ -n "$v" ] || fail "redis-benchmark $op ($cfg $_tr): nothing in: $out"
		result "$_tr" "redis-$(echo $op | tr 'A-Z' 'a-z')" "$v" req/s
	done
	stop_server redis
}

nginx_conf 8080 auto

bench_nginx() {
	_tr=$1
	shift
	start_server nginx 8080 "$@" nginx -p /tmp/nginx -e /tmp/nginx/error.log -c /tmp/nginx/nginx.conf
	out=$("$@" wrk -t "$WT" -c "$WC" -d "${TW}s" --timeout 10s http://127.0.0.1:8080/ 2>&1)
	v=$(printf '%s\n' "$out" | sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p')
	[ -n "$v" ] || fail "wrk ($cfg $_tr): no rate in: $out"
	# wrk counts errors instead of failing: a failed connection, read or write, or an
	# answer other than 200, makes the rate meaningless.  (Its "timeout" counts answers
	# slower than --timeout, which are counted as requests all the same.)
	e=$(printf '%s\n' "$out" | sed -n 's/.*Socket errors: connect \([0-9]*\), read \([0-9]*\), write \([0-9]*\), timeout \([0-9]*\).*/\1 \2 \3 \4/p')
	case $e in '' | "0 0 0 "*) ;; *) fail "wrk ($cfg $_tr) had socket errors: $out" ;; esac
	case $out in *"Non-2xx"*) fail "wrk ($cfg $_tr) had answers other than 200: $out" ;; esac
	[ -z "$e" ] || echo "BENCHNOTE $BOOT $round $cfg $DEV $_tr wrk answers slower than 10 s: ${e##* }"
	result "$_tr" nginx-wrk "$v" req/s
	stop_server nginx
}

# --- the device -----------------------------------------------------------------------------
assert_ok smcctl ueid derive --apply
case $DEV in
lo)
	# smc_lo is not loaded: SMC-D loopback can only take the built-in device.
	! module_loaded smc_lo || fail "smc_lo is loaded in a boot for the built-in lo"
	;;
smclo-nocopy | smclo-copy)
	[ -n "$KMOD_KO" ] && [ -f "$KMOD_KO" ] || fail "smc_lo.ko is not in the guest (vm-run --kmod)"
	kmod_load
	nc=on
	[ $DEV = smclo-copy ] && nc=off
	assert_ok smcctl device loopback-ism set nocopy $nc
	assert_ok smcctl device loopback-ism activate
	assert_ok smcctl pnet add "$KMOD_LO_PNETID" --ib lo
	want=1
	[ $nc = off ] && want=0
	assert_eq $want "$(kmod_get active_nocopy)" "smclo's nocopy"
	;;
*) fail "unknown SMCD_BENCH_DEVICE '$DEV' (lo, smclo-nocopy, smclo-copy)" ;;
esac

# dev_check: after an SMC-D phase, that the device meant carried it.
smclo_moves=0
dev_check() {
	case $DEV in
	lo) ! module_loaded smc_lo || fail "smc_lo got loaded during a boot for lo" ;;
	*)
		m=$(kmod_counter moves)
		[ "$m" -gt "$smclo_moves" ] || fail "$cfg: SMC-D traffic did not go through smclo (moves $m)"
		smclo_moves=$m
		;;
	esac
}

# --- the configurations -----------------------------------------------------------------
agent=
agent_stop() {
	[ -n "$agent" ] || return 0
	kill "$agent"
	wait "$agent" 2>/dev/null
	agent=
}

use_defaults() {
	agent_stop
	{ echo 65536 >/proc/sys/net/smc/wmem && echo 65536 >/proc/sys/net/smc/rmem; } || fail "cannot reset wmem/rmem"
}

bus_started=0
use_agent() {
	[ -z "$agent" ] || return 0
	if [ $bus_started = 0 ]; then
		start_system_bus
		bus_started=1
	fi
	mkdir -p /etc/smc
	cp "$YAML" /etc/smc/smc.yaml
	start_agent
	# Up is not applied: wait for the first reconciliation.
	wait_until 60 "the agent's first reconciliation" sh -c \
		'smcctl -j status | jq -e ".last_reconcile.items | length > 0"'
}

# cold CONFIG: the first SMC-D run of the connection-heavy programs (redis-benchmark's and
# wrk's clients) in a boot and configuration, recorded as round 0 and left out of the
# medians.  SMC keeps the buffers of closed connections in their link group for the next
# ones (of the same size), so only a first run allocates (and zeroes) a buffer per
# connection end: with large buffers that is a cost of its own (README.md).
cold_done=
cold() {
	case " $cold_done " in *" $1 "*) return 0 ;; esac
	cold_done="$cold_done $1"
	_r=$round
	round=0
	for t in $TESTS; do
		case $t in redis | nginx) measure $t bench_$t smcd ;; esac
	done
	round=$_r
}

phase() {
	cfg=$1
	"use_$cfg"
	cold "$cfg"
	info "round $round, $cfg: net.smc.wmem $(cat /proc/sys/net/smc/wmem) rmem $(cat /proc/sys/net/smc/rmem)," \
		"UEIDs $(smcctl -j ueid | jq -c .), agent ${agent:-not running}"
	smcctl -j stats --kernel | jq -r '"\(.summary.smcd) \(.summary.fallback) \(.summary.handshake_errors)"' >/tmp/phase.before
	for t in $TESTS; do
		if [ $((round % 2)) = 1 ]; then
			measure $t bench_$t tcp
			measure $t bench_$t smcd
		else
			measure $t bench_$t smcd
			measure $t bench_$t tcp
		fi
	done
	read -r s0 f0 h0 </tmp/phase.before
	read -r s1 f1 h1 <<EOF
$(smcctl -j stats --kernel | jq -r '"\(.summary.smcd) \(.summary.fallback) \(.summary.handshake_errors)"')
EOF
	echo "BENCHCHECK $BOOT $round $cfg $DEV smcd=$((s1 - s0)) fallback=$((f1 - f0)) handshake_errors=$((h1 - h0))"
	[ $((s1 - s0)) -gt 0 ] || fail "$cfg: no SMC-D connection was made"
	[ $((f1 - f0)) = 0 ] || fail "$cfg: $((f1 - f0)) connections fell back to TCP: $(smcctl stats --kernel)"
	dev_check
}

other() { if [ "$1" = defaults ]; then echo agent; else echo defaults; fi; }

# Rounds alternate the configurations' order (defaults, agent | agent, defaults | ...), so
# that consecutive phases share a configuration and the agent starts and stops as rarely as
# possible, and which transport goes first.
round=1
c1=$FIRST
while [ $round -le "$R" ]; do
	c2=$(other "$c1")
	for c in $c1 $c2; do
		case " $CONFIGS " in *" $c "*) phase "$c" ;; esac
	done
	c1=$c2
	round=$((round + 1))
done
agent_stop
[ $DEV = lo ] || info "smclo at the end: $(kmod_json | jq -c '.smc_lo.counters')"
exit 0
