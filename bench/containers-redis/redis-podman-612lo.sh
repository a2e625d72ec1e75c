#!/bin/sh
# lanes: 612lo
#
# bench/containers-redis: the seeds' redis benchmark between two podman containers on
# podman's default bridge network, SMC-D against TCP (bench/containers-redis/README.md).
# Run by bench/containers-redis/run through tests/pkg/systemd-lane --lane 612lo --podman
# (--icount), with the installed package and its shipped smc.yaml.
#
# Two redis-server containers stay up for the whole run: redis-smcd annotated
# org.smcd.smc=true (the package's OCI hook enrolls its scope, so its plain TCP sockets are
# SMC), redis-tcp without.  Per round, in alternating order, a redis-benchmark container
# (annotated for the SMC-D arm, not for the TCP arm) runs
#   redis-benchmark -h SERVER -p 6380 -q -t set,get -n REQUESTS -c CLIENTS -d 1024
# against the server of its arm.  Round 0 is the warm-up (SMC keeps the buffers of a closed
# connection for the next) and is reported as such, not measured.  Each run is checked by
# the kernel's SMC counters of the server's network namespace (smcctl --netns ... stats
# --kernel): the SMC-D arm made at least CLIENTS SMC-D connections per operation and none
# fell back, the TCP arm made none and its server has no SMC socket.
#
# Environment (systemd-lane --env): SMCD_BENCH_REQUESTS (default 40000), SMCD_BENCH_CLIENTS
# (200), SMCD_BENCH_ROUNDS (3), as bench/smc-run names them.
# One line per run on stdout: @@BENCH {"round":R,"arm":"smcd"|"tcp","op":"SET"|"GET",
# "rps":N,"smcd":N,"fallback":N}.
. "$(dirname "$0")/lib.sh"
require_cmd podman smcctl redis-server redis-benchmark jq nsenter
U=smcd-agent
ANN=org.smcd.smc=true
N=${SMCD_BENCH_REQUESTS:-40000}
C=${SMCD_BENCH_CLIENTS:-200}
R=${SMCD_BENCH_ROUNDS:-3}

info "boot: $SMCD_VM_BOOT_STATE after $(cut -d' ' -f1 /proc/uptime)s; kernel $SMCD_VM_KERNEL"
info "redis-benchmark -q -t set,get -n $N -c $C -d 1024; $R rounds after a warm-up"
wait_until 120 "$U.service active" systemctl is-active --quiet $U

# The image: redis-server, redis-benchmark and what ldd names, at the same paths.
img=/tmp/redis-image
mkdir -p $img/usr/bin $img/tmp
for b in redis-server redis-benchmark; do
	cp -L "$(command -v $b)" $img/usr/bin/
	for lib in $(ldd "$(command -v $b)" | grep -o '/[^ ]*'); do
		mkdir -p "$img$(dirname "$lib")"
		cp -L "$lib" "$img$lib"
	done
done
tar -C $img -c . | podman import - localhost/redis >/tmp/import.out 2>&1 ||
	fail "podman import: $(cat /tmp/import.out)"

# server ARM [ARGS...]: a redis-server container, detached; prints its address once it
# listens on 6380.
server() {
	arm=$1
	shift
	podman run -d --name "redis-$arm" "$@" localhost/redis /usr/bin/redis-server --port 6380 \
		--save "" --appendonly no --protected-mode no --bind 0.0.0.0 >/tmp/redis-$arm.id 2>&1 ||
		fail "podman run redis-$arm: $(cat /tmp/redis-$arm.id)"
	pid=$(podman inspect -f '{{.State.Pid}}' "redis-$arm")
	echo "$pid" >/tmp/redis-$arm.pid
	# port 6380 (18EC) listening (0A) in its network namespace
	wait_until 120 "redis-$arm listens" sh -c \
		"nsenter -t $pid -n cat /proc/net/tcp | grep -q ':18EC [0-9A-F:]* 0A'"
	podman inspect -f '{{.NetworkSettings.IPAddress}}' "redis-$arm"
}
# counters ARM: "smcd fallback handshake_errors" of the server's network namespace.
counters() {
	smcctl -n "/proc/$(cat /tmp/redis-$1.pid)/ns/net" -j stats --kernel |
		jq -r '"\(.summary.smcd) \(.summary.fallback) \(.summary.handshake_errors)"'
}
# smc_sockets ARM: how many SMC sockets the server's network namespace has.
smc_sockets() {
	smcctl -n "/proc/$(cat /tmp/redis-$1.pid)/ns/net" -j socket -a | jq '.sockets | length'
}

ip_smcd=$(server smcd --annotation $ANN | tail -n 1)
assert_match "$ip_smcd" '^[0-9.]+$' "redis-smcd's address on the bridge"
ip_tcp=$(server tcp | tail -n 1)
assert_match "$ip_tcp" '^[0-9.]+$' "redis-tcp's address on the bridge"
assert_ne 0 "$(smc_sockets smcd)" "redis-smcd listens on an SMC socket (the hook's policy)"
assert_eq 0 "$(smc_sockets tcp)" "redis-tcp has no SMC socket"

# bench ROUND ARM: one redis-benchmark container against the arm's server, checked.
bench() {
	round=$1 arm=$2
	if [ "$arm" = smcd ]; then ip=$ip_smcd ann="--annotation $ANN"; else ip=$ip_tcp ann=; fi
	set -- $(counters "$arm")
	s0=$1 f0=$2 h0=$3
	# shellcheck disable=SC2086
	podman run --rm --name "bench-$arm-$round" $ann localhost/redis /usr/bin/redis-benchmark \
		-h "$ip" -p 6380 -q -t set,get -n "$N" -c "$C" -d 1024 >/tmp/bench.out 2>&1 ||
		fail "redis-benchmark ($arm, round $round): $(tail -n 5 /tmp/bench.out)"
	set -- $(counters "$arm")
	ds=$(($1 - s0)) df=$(($2 - f0)) dh=$(($3 - h0))
	info "round $round $arm: server's SMC-D connections +$ds, fallbacks +$df, handshake errors +$dh"
	if [ "$arm" = smcd ]; then
		[ "$ds" -ge $((2 * C)) ] || fail "SMC-D arm, round $round: only $ds SMC-D connections for 2 x $C clients"
		[ "$df" = 0 ] && [ "$dh" = 0 ] || fail "SMC-D arm, round $round: $df fallbacks, $dh handshake errors"
	else
		[ "$ds" = 0 ] || fail "TCP arm, round $round: $ds SMC-D connections"
	fi
	for op in SET GET; do
		v=$(tr '\r' '\n' </tmp/bench.out | sed -n "s/^$op: \([0-9.]*\) requests per second.*/\1/p" | tail -n 1)
		[ -n "$v" ] || fail "redis-benchmark $op ($arm, round $round): nothing in: $(tail -n 5 /tmp/bench.out)"
		echo "@@BENCH {\"round\":$round,\"arm\":\"$arm\",\"op\":\"$op\",\"rps\":$v,\"smcd\":$ds,\"fallback\":$df}"
	done
}

r=0
while [ $r -le "$R" ]; do
	# Alternate which arm goes first, so that neither always runs after the other.
	if [ $((r % 2)) = 0 ]; then bench $r smcd; bench $r tcp; else bench $r tcp; bench $r smcd; fi
	r=$((r + 1))
done
assert_eq 0 "$(smc_sockets tcp)" "redis-tcp still has no SMC socket"
assert_ok podman rm -f -t 0 redis-smcd redis-tcp
