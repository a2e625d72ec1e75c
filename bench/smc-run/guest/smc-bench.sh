#!/bin/sh
# lanes: 7x
# timeout: 2400
#
# The seeds' comparisons (000, 001) with unmodified programs: sockperf throughput (64000-byte
# messages) and ping-pong latency (14 bytes), qperf tcp_bw and tcp_lat, redis-benchmark GET
# and SET, each over TCP loopback and over SMC-D loopback through "smcctl run", first with
# the kernel's defaults (net.smc.wmem/rmem 64 KiB; only a UEID, without which SMC-D
# loopback cannot work at all), then with smcd-agent's built-in configuration (the shipped
# smc.yaml: the UEID and 1 MiB buffers).  Run by bench/smc-run/run-bench, not by make check.
#
# The host is shared and TCG is slow, so the load changes during a run: each measurement is
# repeated in rounds that alternate TCP and SMC-D (and which goes first), and run-bench
# takes the median per transport.
#
# One line per measurement:  BENCH CONFIG TRANSPORT METRIC VALUE UNIT ROUND
# and per phase:             BENCHCHECK CONFIG before smcd=N fallback=N after ... (the
#                            kernel's stats: SMC-D connections were made, none fell back)
. "$(dirname "$0")/lib.sh"
require_cmd smcctl smcd-agent sockperf qperf redis-server redis-benchmark jq
export SMCD_PRELOAD_LIB=/usr/local/bin/libsmc-preload.so
T=${SMCD_BENCH_SECONDS:-8}      # seconds per sockperf/qperf measurement
N=${SMCD_BENCH_REQUESTS:-20000} # redis-benchmark requests per test
C=${SMCD_BENCH_CLIENTS:-10}     # redis-benchmark parallel clients
R=${SMCD_BENCH_ROUNDS:-3}       # rounds
info "bench: $R rounds, $T s per measurement, redis $N requests with $C clients, 1 KiB values"

round=0
result() { echo "BENCH $1 $2 $3 $4 $5 $round"; }

# wait_listen PORT: until something listens on PORT (an SMC listener's internal TCP socket
# is listed in /proc/net/tcp too).  Loading BPF under TCG can take seconds.
wait_listen() {
	_hex=$(printf ':%04X ' "$1")
	_i=0
	until grep -q "$_hex.* 0A " /proc/net/tcp /proc/net/tcp6 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -lt 300 ] || fail "nothing listens on port $1 after 30 s"
		sleep 0.1
	done
}

# start_server NAME PORT CMD... : run CMD in the background, remember its pid as NAME, wait
# until it listens on PORT.
start_server() {
	_n=$1 _port=$2
	shift 2
	"$@" >/tmp/$_n.log 2>&1 &
	eval "pid_$_n=$!"
	wait_listen "$_port"
}

stop_server() {
	eval "_p=\$pid_$1"
	kill "$_p" 2>/dev/null
	wait "$_p" 2>/dev/null
	return 0
}

# sockperf CONFIG TRANSPORT PREFIX... (PREFIX: empty for TCP, "smcctl run -q --" for SMC)
bench_sockperf() {
	cfg=$1 tr=$2
	shift 2
	start_server sockperf 11111 "$@" sockperf sr --tcp -p 11111
	out=$("$@" sockperf tp --tcp -i 127.0.0.1 -p 11111 -m 64000 -t "$T" 2>&1)
	v=$(printf '%s\n' "$out" | sed -n 's/.*BandWidth is \([0-9.]*\) MBps.*/\1/p' | tail -n 1)
	[ -n "$v" ] || fail "sockperf tp ($cfg $tr): no bandwidth in: $out"
	result "$cfg" "$tr" sockperf-tp-64000 "$v" MB/s
	out=$("$@" sockperf pp --tcp -i 127.0.0.1 -p 11111 -m 14 -t "$T" 2>&1)
	v=$(printf '%s\n' "$out" | sed -n 's/.*Latency is \([0-9.]*\) usec.*/\1/p' | tail -n 1)
	[ -n "$v" ] || fail "sockperf pp ($cfg $tr): no latency in: $out"
	result "$cfg" "$tr" sockperf-pp-14 "$v" us
	stop_server sockperf
}

# qperf prints "bw = 1.22 GB/sec" and "latency = 10.6 us": normalise to MB/s and us.
qperf_value() {
	awk -v key="$1" '$1 == key && $2 == "=" {
		v = $3; u = $4
		if (u == "GB/sec") v *= 1000; else if (u == "KB/sec") v /= 1000; else if (u == "bytes/sec") v /= 1000000
		if (u == "ms") v *= 1000; else if (u == "ns") v /= 1000; else if (u == "sec") v *= 1000000
		printf "%.3f\n", v }'
}

bench_qperf() {
	cfg=$1 tr=$2
	shift 2
	start_server qperf 19765 "$@" qperf
	out=$("$@" qperf 127.0.0.1 -t "$T" tcp_bw tcp_lat 2>&1)
	v=$(printf '%s\n' "$out" | qperf_value bw)
	[ -n "$v" ] || fail "qperf ($cfg $tr): no bw in: $out"
	result "$cfg" "$tr" qperf-tcp_bw "$v" MB/s
	v=$(printf '%s\n' "$out" | qperf_value latency)
	[ -n "$v" ] || fail "qperf ($cfg $tr): no latency in: $out"
	result "$cfg" "$tr" qperf-tcp_lat "$v" us
	stop_server qperf
}

bench_redis() {
	cfg=$1 tr=$2
	shift 2
	start_server redis 6380 "$@" redis-server --port 6380 --save "" --appendonly no \
		--protected-mode no --daemonize no --bind 127.0.0.1
	out=$("$@" redis-benchmark -h 127.0.0.1 -p 6380 -q -t set,get -n "$N" -c "$C" -d 1024 2>&1)
	for op in GET SET; do
		v=$(printf '%s\n' "$out" | tr '\r' '\n' | sed -n "s/^$op: \([0-9.]*\) requests per second.*/\1/p" | tail -n 1)
		[ -n "$v" ] || fail "redis-benchmark $op ($cfg $tr): nothing in: $out"
		result "$cfg" "$tr" "redis-$(echo $op | tr 'A-Z' 'a-z')" "$v" req/s
	done
	stop_server redis
}

smc_stats() { smcctl -j stats | jq -r '"smcd=\(.summary.smcd) fallback=\(.summary.fallback)"'; }

phase() {
	cfg=$1
	info "phase $cfg: net.smc.wmem $(cat /proc/sys/net/smc/wmem) rmem $(cat /proc/sys/net/smc/rmem), UEIDs: $(smcctl -j ueid | jq -c .)"
	before=$(smc_stats)
	round=1
	while [ $round -le "$R" ]; do
		for b in bench_sockperf bench_qperf bench_redis; do
			if [ $((round % 2)) = 1 ]; then
				$b "$cfg" tcp
				$b "$cfg" smcd smcctl run -q --
			else
				$b "$cfg" smcd smcctl run -q --
				$b "$cfg" tcp
			fi
		done
		round=$((round + 1))
	done
	echo "BENCHCHECK $cfg before $before after $(smc_stats)"
}

# --- the kernel's defaults, plus the one thing SMC-D loopback cannot do without -------------
assert_ok smcctl ueid derive --apply
phase defaults

# --- smcd-agent's configuration (no file: the built-in defaults, the shipped smc.yaml) -------
start_system_bus
smcd-agent --config /nonexistent/smc.yaml >/tmp/agent.log 2>&1 &
i=0
until [ "$(cat /proc/sys/net/smc/wmem)" = 1048576 ]; do
	sleep 0.2
	i=$((i + 1))
	[ $i -lt 150 ] || fail "the agent did not apply its configuration: $(cat /tmp/agent.log)"
done
phase tuned
exit 0
