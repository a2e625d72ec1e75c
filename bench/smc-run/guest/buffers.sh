#!/bin/sh
# lanes: 7x
# timeout: 7200
#
# Guest half of "bench/smc-run/run-bench --buffers" (README.md there): what the SMC buffer
# size (net.smc.wmem = rmem) costs and buys, per SMC-D device, in one boot:
#   - bulk throughput and latency: sockperf tp 64000 / pp 14
#   - connection cost: 200 connections opened one after the other and closed
#     (smc-conn pair --conns 200 --bytes 1) on a fresh link group (every buffer allocated)
#     and again (buffers reused), in guest microseconds per connection; and how long after
#     the close their buffers took to be freed (SMC zeroes each before reuse)
#   - churn: redis-benchmark -t set,get (the seed's command: the GET clients connect while
#     the SET clients' connections are being closed) against -t set and -t get run apart,
#     with the connections freed in between; with the link groups' buffer pool as a first
#     run leaves it ("small pool"), and again after 1000 connections at once (500 with
#     nocopy off) enlarged it ("big pool", as wrk's 1000 connections do in the matrix), and
#     then with smcd-agent
#     running (its shipped smc.yaml, SMCD_BENCH_CONFIG) at the size that file sets
# Output:  BUFS DEVICE SIZE METRIC VALUE UNIT [key=value ...]
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-kmod.sh"
require_cmd smcctl smcd-agent smc-conn sockperf redis-server redis-benchmark jq busctl

SIZES=$(echo "${SMCD_BENCH_SIZES:-65536,262144,1048576}" | tr ',' ' ')
DEVICES=$(echo "${SMCD_BENCH_DEVICES:-lo,smclo-copy}" | tr ',' ' ')
SR="smcctl run -m bpf -q --"
agent= bus_started=
ulimit -n 65536 || fail "cannot raise the descriptor limit"
assert_ok smcctl ueid derive --apply
info "buffers: sizes $SIZES, devices $DEVICES; $(nproc) CPU, $(grep MemTotal /proc/meminfo)"

up_us() { awk '{ printf "%d", $1 * 1000000 }' /proc/uptime; }
settle() { wait_smc_closed smcd 60; }
stat() { smcctl -j stats --kernel | jq -r "$1"; }
out() { echo "BUFS $dev $size $*"; }

# (the lo device needs nothing; smclo: our module, nocopy off, lo given away)
use_device() {
	case $1 in
	lo)
		if module_loaded smc_lo; then
			[ "$(kmod_get state)" = inactive ] || kmod_deactivate 5 >/dev/null
			assert_ok smcctl pnet del "$KMOD_LO_PNETID"
		fi
		;;
	smclo-nocopy | smclo-copy)
		if ! module_loaded smc_lo; then
			[ -n "$KMOD_KO" ] && [ -f "$KMOD_KO" ] || fail "smc_lo.ko is not in the guest (vm-run --kmod)"
			kmod_load
		fi
		smcctl -j pnet | jq -e --arg p "$KMOD_LO_PNETID" '[.. | strings] | index($p)' >/dev/null ||
			assert_ok smcctl pnet add "$KMOD_LO_PNETID" --ib lo
		[ "$(kmod_get state)" = inactive ] || kmod_deactivate 5 >/dev/null
		nc=on
		[ "$1" = smclo-copy ] && nc=off
		assert_ok smcctl device loopback-ism set nocopy $nc
		assert_ok smcctl device loopback-ism activate
		;;
	*) fail "unknown device $1" ;;
	esac
}

bulk() {
	$SR sockperf sr --tcp -i 127.0.0.1 -p 11111 >/tmp/sp.log 2>&1 &
	_p=$!
	wait_listen 11111
	v=$($SR sockperf tp --tcp -i 127.0.0.1 -p 11111 -m 64000 -t 1 2>&1 | sed -n 's/.*BandWidth is \([0-9.]*\) MBps.*/\1/p')
	[ -n "$v" ] || fail "sockperf tp ($dev $size): no bandwidth"
	out sockperf-tp-64000 "$v" MB/s
	v=$($SR sockperf pp --tcp -i 127.0.0.1 -p 11111 -m 14 -t 1 2>&1 | sed -n 's/.*Latency is \([0-9.]*\) usec.*/\1/p')
	[ -n "$v" ] || fail "sockperf pp ($dev $size): no latency"
	out sockperf-pp-14 "$v" us
	kill $_p
	wait $_p 2>/dev/null
	settle
}

# connect_cost LABEL: 200 connections, one after the other, 1 byte each way, then closed.
connect_cost() {
	a0=$(stat .smcd.rx.buffer.alloc)
	t0=$(up_us)
	smc-conn pair --proto smc --conns 200 --bytes 1 >/tmp/conn.out 2>&1 || fail "smc-conn: $(tail -n 3 /tmp/conn.out)"
	t1=$(up_us)
	settle
	t2=$(up_us)
	n=$(tail -n 1 /tmp/conn.out | jq .smcd)
	[ "$n" = 200 ] || fail "smc-conn made $n SMC-D connections of 200"
	out "connect-$1" $(((t1 - t0) / 200)) us/conn \
		"alloc=$(($(stat .smcd.rx.buffer.alloc) - a0)) freed_after_ms=$(((t2 - t1) / 1000))"
}

# redis POOL: the churn runs, labelled with the pool they ran with
redis() {
	pool=$1
	$SR redis-server --port 6380 --save "" --appendonly no --protected-mode no --daemonize no \
		--bind 127.0.0.1 >/tmp/redis.log 2>&1 &
	_p=$!
	wait_listen 6380
	# a first run fills the link group's buffer pool
	$SR redis-benchmark -h 127.0.0.1 -p 6380 -q -t set,get -n 20000 -c 200 -d 1024 >/dev/null 2>&1
	settle
	a0=$(stat .smcd.rx.buffer.alloc)
	o=$($SR redis-benchmark -h 127.0.0.1 -p 6380 -q -t set,get -n 40000 -c 200 -d 1024 2>&1 | tr '\r' '\n')
	a1=$(stat .smcd.rx.buffer.alloc)
	for op in SET GET; do
		v=$(printf '%s\n' "$o" | sed -n "s/^$op: \([0-9.]*\) requests per second.*/\1/p" | tail -n 1)
		out "redis-$op-together-$pool" "$v" req/s "alloc=$((a1 - a0))"
	done
	settle
	for op in SET GET; do
		a0=$(stat .smcd.rx.buffer.alloc)
		o=$($SR redis-benchmark -h 127.0.0.1 -p 6380 -q -t "$op" -n 40000 -c 200 -d 1024 2>&1 | tr '\r' '\n')
		v=$(printf '%s\n' "$o" | sed -n "s/^$op: \([0-9.]*\) requests per second.*/\1/p" | tail -n 1)
		out "redis-$op-apart-$pool" "$v" req/s "alloc=$(($(stat .smcd.rx.buffer.alloc) - a0))"
		settle
	done
	kill $_p
	wait $_p 2>/dev/null
}

for dev in $DEVICES; do
	use_device "$dev"
	for size in $SIZES; do
		echo "$size" >/proc/sys/net/smc/wmem && echo "$size" >/proc/sys/net/smc/rmem || fail "wmem/rmem $size"
		bulk
		connect_cost first
		connect_cost again
		redis small-pool
		# 1000 connections as wrk's; 500 without nocopy (each holds a send buffer too)
		fill=1000
		[ "$dev" = smclo-copy ] && fill=500
		smc-conn pair --proto smc --conns $fill --bytes 1 >/tmp/conn.out 2>&1 || fail "smc-conn $fill: $(tail -n 3 /tmp/conn.out)"
		settle
		redis big-pool
		out memory "$(smcctl -j linkgroup list --smcd | jq '[.smcd[] | .dmb_alloc + .sndbuf_alloc] | add // 0')" bytes \
			"lgrs=$(smcctl -j linkgroup list --smcd | jq '.smcd | length')"
	done
	if [ -n "${SMCD_BENCH_CONFIG:-}" ]; then
		# The same with the agent running its shipped configuration (which sets the buffer
		# sizes itself).
		[ -n "$agent" ] || {
			# One system bus for the boot: a second dbus-daemon would fail on its socket.
			[ -n "$bus_started" ] || { start_system_bus; bus_started=1; }
			mkdir -p /etc/smc
			cp "$SMCD_BENCH_CONFIG" /etc/smc/smc.yaml
			start_agent
			wait_until 60 "the agent's first reconciliation" sh -c \
				'smcctl -j status | jq -e ".last_reconcile.items | length > 0"'
		}
		size=agent-$(cat /proc/sys/net/smc/rmem)
		redis big-pool
		kill "$agent"
		wait "$agent" 2>/dev/null
		agent=
	fi
	[ "$dev" = lo ] || kmod_deactivate 5 >/dev/null
done
fb=$(stat .summary.fallback)
[ "$fb" = 0 ] || fail "$fb connections fell back to TCP"
exit 0
