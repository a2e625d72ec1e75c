#!/bin/sh
# lanes: 7x
# timeout: 360
#
# smcctl assess's SMC-R reach on the real kernel, and its scopes with BPF: the default one
# (smcctl's own netns), -n NAME and --cgroup PATH.
#
# Soft-RoCE as in smcr-7x.sh (lib-smcr.sh): rxe0 on vethA in netns smcA, rxe1 on vethB in
# smcB.  A peer that is no address of any netns stands for another host: smcB answers for
# all of 198.51.100.0/24 by a local route ("AnyIP": no interface has those addresses, so
# assess cannot find them on this host), smcA routes there over vethA.  A second pair of
# namespaces without RDMA does the same over a plain veth whose end in assessC is ALSO
# NAMED vethA:
#
#   smcA  vethA 198.18.0.1 (rxe0) <-> smcB  vethB 198.18.0.2 (rxe1), local 198.51.100.0/24
#   assessC vethA 198.19.0.1 (no RDMA) <-> assessD vethD 198.19.0.2, local 203.0.113.0/24
#
# Three observations at once: smcctl -n smcA (the client's end over rxe0's netdev: SMC-R),
# smcctl -n assessC --cgroup /assess-c1 (over the other vethA: none; only that cgroup's
# connection of two), and the default scope in init_net (its own local pair only).  Then
# PNET IDs (assessC's vethA and rxe0: NETA) make the plain vethA reach SMC-R through rxe0,
# SMC's own rule.  assess used to ask sysfs which netdev NAMES have an RDMA device, in its
# own netns, and took assessC's vethA for smcA's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-smcr.sh"
require_cmd smcctl smc-conn jq
CG=/sys/fs/cgroup
C=assessC
D=assessD
FAR=198.51.100.9
FAR_C=203.0.113.9

smcr_topology
# another host behind rxe0's vethA
in_ns $SMCR_NS_B $SMCR_IP route add local 198.51.100.0/24 dev lo || fail "AnyIP route in smcB"
in_ns $SMCR_NS_A $SMCR_IP route add 198.51.100.0/24 via $SMCR_ADDR_B dev vethA ||
	fail "route to 198.51.100.0/24 in smcA"
# the same without RDMA, over an interface of the same name
$SMCR_IP netns add $C || fail "ip netns add $C"
$SMCR_IP netns add $D || fail "ip netns add $D"
$SMCR_IP link add xc type veth peer name vethD || fail "ip link add veth"
$SMCR_IP link set xc netns $C
$SMCR_IP link set vethD netns $D
in_ns $C $SMCR_IP link set xc name vethA || fail "rename to vethA in $C"
in_ns $C $SMCR_IP addr add 198.19.0.1/24 dev vethA
in_ns $D $SMCR_IP addr add 198.19.0.2/24 dev vethD
for ns in $C $D; do in_ns $ns $SMCR_IP link set lo up; done
in_ns $C $SMCR_IP link set vethA up
in_ns $D $SMCR_IP link set vethD up
in_ns $D $SMCR_IP route add local 203.0.113.0/24 dev lo || fail "AnyIP route in $D"
in_ns $C $SMCR_IP route add 203.0.113.0/24 via 198.19.0.2 dev vethA || fail "route in $C"
for g in c1 c2 d; do mkdir -p $CG/assess-$g; done

listens() { # listens NS PORT
	in_ns "$1" cat /proc/net/tcp | grep -q ":$(printf %04X "$2") 00000000:0000 0A"
}
observe() { # observe NAME ARGS...: smcctl -j ARGS assess in the background, pid in $obs
	_on=$1
	shift
	smcctl -j "$@" >/tmp/$_on.json 2>/tmp/$_on.err &
	obs=$!
	wait_until 120 "assess ($_on) starts observing" grep -q "observing TCP connections" /tmp/$_on.err
}
finish() { # finish PID NAME: end the observation, its report must come
	kill -INT "$1"
	wait "$1" || fail "smcctl assess ($2) exited with $?: $(cat /tmp/$2.err)"
}
conns() { jq -c "[.connections[] | select($2)]" "/tmp/$1.json"; }

# --- three observations, three scopes ---------------------------------------------------------
observe smcA -n $SMCR_NS_A assess --duration 240
oa=$obs
observe plain -n $C assess --cgroup /assess-c1 --duration 4m
oc=$obs
observe here assess -t 240s
oh=$obs

$SMCR_IP netns exec $SMCR_NS_B smc-conn serve --proto tcp --addr $FAR --port 7201 --conns 1 \
	>/tmp/far-srv.out 2>&1 &
fsrv=$!
$SMCR_IP netns exec $D smc-conn serve --proto tcp --addr $FAR_C --port 7202 --conns 2 \
	>/tmp/c-srv.out 2>&1 &
csrv=$!
wait_until 60 "the server in smcB listens" listens $SMCR_NS_B 7201
wait_until 60 "the server in $D listens" listens $D 7202
assert_ok in_ns $SMCR_NS_A smc-conn connect --proto tcp --addr $FAR --port 7201 --bytes 4M --hold 1
assert_json "$(printf '%s\n' "$out" | grep '"summary"')" .ok 1 "smcA -> $FAR: verified"
assert_ok in_cgroup /assess-c1 $SMCR_IP netns exec $C smc-conn connect --proto tcp --addr $FAR_C \
	--port 7202 --bytes 4M --hold 1
assert_json "$(printf '%s\n' "$out" | grep '"summary"')" .ok 1 "$C -> $FAR_C: verified"
assert_ok in_cgroup /assess-c2 $SMCR_IP netns exec $C smc-conn connect --proto tcp --addr $FAR_C \
	--port 7202 --bytes 4M --hold 1
assert_ok in_cgroup /assess-d smc-conn pair --proto tcp --port 7203 --bytes 4M --hold 1
assert_json "$(printf '%s\n' "$out" | grep '"summary"')" .ok 1 "init_net's pair: verified"
wait $fsrv || fail "the server in smcB failed: $(cat /tmp/far-srv.out)"
wait $csrv || fail "the server in $D failed: $(cat /tmp/c-srv.out)"
finish $oa smcA
finish $oc plain
finish $oh here

# -n assessC --cgroup /assess-c1: the plain vethA, and that cgroup's connection only.
out=$(cat /tmp/plain.json)
assert_json "$out" .method bpf "-n --cgroup: observed with BPF"
assert_json "$out" '[.connections[].cgroup] | unique | join(",")' /assess-c1 "--cgroup: that cgroup only"
assert_json "$out" '.connections | length' 1 "--cgroup: one connection of the two"
c=$(conns plain '.peer | startswith("'$FAR_C':")')
assert_json "$c" '.[0].reach' none "the other vethA has no RDMA device: no SMC-R"
assert_json "$c" '.[0].egress' vethA "the same name"
assert_json "$c" '.[0].rdma_device' null "no RDMA device"
assert_json "$c" '.[0].why' "peer $FAR_C is not on this host and vethA has no RDMA device" \
	"the reason"
assert_json "$out" '.applications[0].cgroup' /assess-c1 "the application"
assert_json "$out" '.applications[0].verdict' no-change "no change: SMC cannot carry it"

# -n smcA: only smcA's end (the server's in smcB is out of scope), over rxe0's netdev.
out=$(cat /tmp/smcA.json)
assert_json "$out" .method bpf "-n: observed with BPF"
assert_json "$out" .scope "network namespace of --netns" "-n: the scope"
assert_json "$out" '.connections | length' 1 "-n $SMCR_NS_A: the client's end alone"
c=$(conns smcA '.peer == "'$FAR':7201"')
assert_json "$c" '.[0].reach' smcr "over vethA (rxe0): SMC-R"
assert_json "$c" '.[0].egress' vethA "its interface"
assert_json "$c" '.[0].rdma_device' rxe0 "the RDMA device SMC-R would take"
assert_json "$c" '.[0].rdma_port' 1 "its port"
assert_json "$c" '.[0].pnetid' null "no PNET ID"
assert_contains "$(json_get "$c" '.[0].why')" \
	"peer $FAR is reached through vethA, which has an RDMA device (rxe0 port 1), lived"
assert_json "$c" '.[0].class' well_suited "4 MiB over 1 s: well suited"

# The default scope: init_net's own pair (both ends), nothing of the other namespaces.
out=$(cat /tmp/here.json)
assert_json "$out" .method bpf "default scope: observed with BPF"
assert_json "$out" .scope "this network namespace" "default scope"
assert_json "$out" '[.connections[] | select(.peer | startswith("127.0.0.1:"))] | length >= 2' \
	true "init_net's pair: both ends"
assert_json "$out" '[.connections[].peer | select(startswith("'$FAR'") or startswith("'$FAR_C'"))] | length' \
	0 "no connection of another netns"
assert_json "$out" '[.connections[].local | select(startswith("'$FAR'") or startswith("'$FAR_C'"))] | length' \
	0 "no server end of another netns"
a=$(jq -c '.applications[] | select(.cgroup == "/assess-d")' /tmp/here.json)
assert_json "$a" .verdict likely-faster "the local pair: likely faster"

# --- PNET IDs: assessC's vethA and rxe0 share NETA, so SMC-R takes rxe0 from there ------------
assert_ok smcctl pnet add NETA --ib rxe0
assert_ok smcctl -n $C pnet add NETA --eth vethA
observe pnet -n $C assess --duration 240
op=$obs
$SMCR_IP netns exec $D smc-conn serve --proto tcp --addr $FAR_C --port 7204 --conns 1 \
	>/tmp/c-srv.out 2>&1 &
csrv=$!
wait_until 60 "the server in $D listens" listens $D 7204
assert_ok in_ns $C smc-conn connect --proto tcp --addr $FAR_C --port 7204 --bytes 1M --hold 1
wait $csrv || fail "the server in $D failed: $(cat /tmp/c-srv.out)"
finish $op pnet
c=$(conns pnet '.peer == "'$FAR_C':7204"')
assert_json "$c" '.[0].reach' smcr "by PNET ID: SMC-R"
assert_json "$c" '.[0].pnetid' NETA "vethA's PNET ID (its netns's table)"
assert_json "$c" '.[0].rdma_device' rxe0 "the port with that PNET ID (its netdev is in smcA)"
assert_contains "$(json_get "$c" '.[0].why')" \
	"peer $FAR_C is reached through vethA, whose PNET ID NETA an RDMA device has (rxe0 port 1)"

smcctl pnet del NETA >/dev/null 2>&1 || true
smcctl -n $C pnet del NETA >/dev/null 2>&1 || true
info "assess-smcr-7x: ok"
