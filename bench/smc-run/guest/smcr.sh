#!/bin/sh
# lanes: 7x
# timeout: 7200
#
# Guest half of "bench/smc-run/run-bench --smcr" (README.md there): what the send and
# receive buffer sizes (net.smc.wmem, net.smc.rmem) buy and cost over SMC-R, in one boot:
# SMC-Rv2 over soft-RoCE (rdma_rxe) between two network namespaces joined by a veth pair
# (lib-smcr.sh), the server in smcA, the client in smcB, both unmodified programs under
# "smcctl run -m bpf" (the enrollment follows "ip netns exec", which execs in its place).
# Over SMC-R wmem is a buffer of its own on every connection: the staging area of each RDMA
# write into the peer's receive buffer (rmem).  Per size pair (SMCD_BENCH_SMCR_SIZES, a
# comma list of WMEM:RMEM in bytes) and round (SMCD_BENCH_ROUNDS), the pairs' order
# alternating by round:
#   sockperf throughput (64000-byte messages) and ping-pong (14 bytes), qperf tcp_bw and
#   tcp_lat, redis-benchmark SET and GET (1 KiB values; -n SMCD_BENCH_REQUESTS,
#   -c SMCD_BENCH_CLIENTS)
# and the same programs over TCP on the veth pair once per round (the reference).
# Output, one line per measurement (run-bench parses it):
#   SMCR ROUND WMEM RMEM TRANSPORT METRIC VALUE UNIT
# and per size pair and round the check that every connection was SMC-R (the client
# namespace's counters; SMC statistics are per network namespace):
#   SMCRCHECK ROUND WMEM RMEM smcr=N smcd=N fallback=N handshake_errors=N
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-smcr.sh"
require_cmd smcctl sockperf qperf redis-server redis-benchmark jq

T=${SMCD_BENCH_SECONDS:-1}
N=${SMCD_BENCH_REQUESTS:-20000}
C=${SMCD_BENCH_CLIENTS:-50}
R=${SMCD_BENCH_ROUNDS:-3}
SIZES=$(echo "${SMCD_BENCH_SMCR_SIZES:-65536:65536,65536:262144,262144:262144}" | tr ',' ' ')
SR="smcctl run -m bpf -q --"
A=$SMCR_ADDR_A

smcr_setup
info "smcr: sizes $SIZES, $R rounds, $(nproc) CPU, $(grep MemTotal /proc/meminfo)"

# counters: the client namespace's SMC-R, SMC-D, fallback and handshake error totals
counters() {
	in_ns $SMCR_NS_B smcctl -j stats --kernel |
		jq -r '"\(.summary.smcr) \(.summary.smcd) \(.summary.fallback) \(.summary.handshake_errors)"' ||
		fail "smcctl stats --kernel in $SMCR_NS_B"
}

# pre TRANSPORT: the command prefix for that transport (empty for TCP)
pre() { [ "$1" = smcr ] && echo "$SR"; }

# measure ROUND WMEM RMEM TRANSPORT
measure() {
	m_round=$1 m_w=$2 m_r=$3 m_t=$4
	p=$(pre "$m_t")
	out() { echo "SMCR $m_round $m_w $m_r $m_t $*"; }

	$p $SMCR_IP netns exec $SMCR_NS_A sockperf sr --tcp -i $A -p 11111 >/tmp/sp.log 2>&1 &
	srv=$!
	wait_listen 11111 $SMCR_NS_A
	v=$($p $SMCR_IP netns exec $SMCR_NS_B sockperf tp --tcp -i $A -p 11111 -m 64000 -t "$T" 2>&1 |
		sed -n 's/.*BandWidth is \([0-9.]*\) MBps.*/\1/p')
	[ -n "$v" ] || fail "sockperf tp ($m_t $m_w $m_r): no bandwidth"
	out sockperf-tp-64000 "$v" MB/s
	v=$($p $SMCR_IP netns exec $SMCR_NS_B sockperf pp --tcp -i $A -p 11111 -m 14 -t "$T" 2>&1 |
		sed -n 's/.*Latency is \([0-9.]*\) usec.*/\1/p')
	[ -n "$v" ] || fail "sockperf pp ($m_t $m_w $m_r): no latency"
	out sockperf-pp-14 "$v" us
	kill $srv
	wait $srv 2>/dev/null

	$p $SMCR_IP netns exec $SMCR_NS_A qperf >/tmp/qperf.log 2>&1 &
	srv=$!
	wait_listen 19765 $SMCR_NS_A
	o=$($p $SMCR_IP netns exec $SMCR_NS_B qperf $A -t "$T" tcp_bw tcp_lat 2>&1)
	bw=$(printf '%s\n' "$o" | awk '/bw *=/ { v = $3; u = $4 } END { if (u == "GB/sec") v *= 1000; if (u == "KB/sec") v /= 1000; print v }')
	lat=$(printf '%s\n' "$o" | awk '/latency *=/ { v = $3; u = $4 } END { if (u == "ms") v *= 1000; if (u == "ns") v /= 1000; print v }')
	[ -n "$bw" ] && [ -n "$lat" ] || fail "qperf ($m_t $m_w $m_r): $o"
	out qperf-tcp_bw "$bw" MB/s
	out qperf-tcp_lat "$lat" us
	kill $srv
	wait $srv 2>/dev/null

	$p $SMCR_IP netns exec $SMCR_NS_A redis-server --port 6380 --save "" --appendonly no \
		--protected-mode no --daemonize no --bind $A >/tmp/redis.log 2>&1 &
	srv=$!
	wait_listen 6380 $SMCR_NS_A
	o=$($p $SMCR_IP netns exec $SMCR_NS_B redis-benchmark -h $A -p 6380 -q -t set,get -n "$N" \
		-c "$C" -d 1024 2>&1 | tr '\r' '\n')
	for op in SET GET; do
		v=$(printf '%s\n' "$o" | sed -n "s/^$op: \([0-9.]*\) requests per second.*/\1/p" | tail -n 1)
		[ -n "$v" ] || fail "redis-benchmark $op ($m_t $m_w $m_r): $(printf '%s\n' "$o" | tail -n 3)"
		out "redis-$(echo $op | tr A-Z a-z)" "$v" req/s
	done
	kill $srv
	wait $srv 2>/dev/null
	[ "$m_t" = smcr ] && wait_smc_closed smcr 60
	return 0
}

round=1
while [ $round -le "$R" ]; do
	order=$SIZES
	# every other round the size pairs in reverse order
	[ $((round % 2)) = 0 ] && order=$(echo "$SIZES" | tr ' ' '\n' | sed -n '1!G;h;$p' | tr '\n' ' ')
	# TCP first in odd rounds, last in even ones
	[ $((round % 2)) = 1 ] && measure $round - - tcp
	for pair in $order; do
		w=${pair%:*} r=${pair#*:}
		echo "$w" >/proc/sys/net/smc/wmem && echo "$r" >/proc/sys/net/smc/rmem || fail "wmem $w, rmem $r"
		set -- $(counters)
		measure $round "$w" "$r" smcr
		set -- $(counters) "$@"
		echo "SMCRCHECK $round $w $r smcr=$(($1 - $5)) smcd=$(($2 - $6)) fallback=$(($3 - $7)) handshake_errors=$(($4 - $8))"
		[ $(($1 - $5)) -gt 0 ] || fail "no SMC-R connection in the $w/$r runs"
		[ $(($2 - $6)) = 0 ] && [ $(($3 - $7)) = 0 ] ||
			fail "the $w/$r runs were not all SMC-R: smcd $(($2 - $6)), fallback $(($3 - $7))"
	done
	[ $((round % 2)) = 0 ] && measure $round - - tcp
	round=$((round + 1))
done
info "link groups at the end: $(smcctl -j linkgroup list --smcr | jq -c '[.smcr[] | {conns, links: (.links | length)}]')"
exit 0
