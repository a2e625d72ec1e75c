#!/bin/sh
# lanes: 7x debug
# timeout: 420
#
# SMC-R for real: soft-RoCE (rdma_rxe) on a veth pair between two network namespaces
# (lib-smcr.sh has the topology and why each piece is needed).  Proves that
#   - SMC-R needs a UEID here (SMC-Rv2 only: rxe has no RoCE v1 GIDs) and that the DIBS
#     loopback device wins across namespaces unless it has a PNET ID;
#   - connections then run as SMC-R and move verified data;
#   - smcctl device / linkgroup (with links) / socket --smcr -d / stats show the real
#     SMC-R devices, link groups, links, sockets and counters;
#   - an IPv6 connection cannot use SMC-R (no SMC-Rv2 over IPv6) and says why.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-smcr.sh"
require_cmd jq

smcr_topology

# Both RDMA devices are visible to SMC (RDMA netns mode "shared"), ports active.
assert_ok smcctl -j device
dev=$out
assert_json "$dev" '[.smcr[].ib_dev] | sort | join(",")' "rxe0,rxe1" "SMC-R devices"
assert_json "$dev" '[.smcr[].ports[] | select(.active)] | length' 2 "active SMC-R ports"
assert_json "$dev" '[.smcr[].ports[].links] | add' 0 "links before any connection"
assert_ok smcctl -n $SMCR_NS_A device
assert_match "$out" '^ +vethA +rxe0 +1 +ACTIVE' "smcctl -n smcA device names rxe0's netdev"
assert_match "$out" '^ +- +rxe1 +1 +ACTIVE' "smcctl -n smcA device: rxe1's netdev is in smcB"
# The port netdev ifindexes SMC reports are those of the netdev's own netns.  A decoy in
# init_net with vethA's ifindex must not be taken for rxe0's netdev (smcctl used to
# resolve the bare ifindex with if_indextoname() in its own netns).
idx=$(in_ns $SMCR_NS_A cat /sys/class/net/vethA/ifindex)
$SMCR_IP link add decoy index "$idx" type veth peer name decoy1 || fail "decoy with ifindex $idx"
assert_eq "$idx" "$(cat /sys/class/net/decoy/ifindex)" "the decoy's ifindex"
assert_ok smcctl -j device
assert_json "$out" '[.smcr[] | select(.ib_dev == "rxe0") | .ports[0]][0] | [.ifindex, .netdev] | @text' \
	"[$idx,null]" "rxe0's netdev seen from init_net (ifindex $idx is the decoy here)"
$SMCR_IP link del decoy

# check_mode PORT EXPECTED WHAT : one connection smcB -> smcA, its mode must be EXPECTED.
check_mode() {
	smcr_pair "$1" /tmp/m$1 1 0 --bytes 64K
	smcr_pair_wait
	first=$(head -n 1 /tmp/m$1)
	assert_json "$first" .verified true "$3: data"
	assert_json "$first" .mode "$2" "$3: mode"
}

# smcctl info knows why: soft-RoCE has no RoCE v1 GIDs, SMC-Rv2 needs a UEID.
assert_ok smcctl info
assert_contains "$out" "SMC-R: connections will fall back to TCP: the RDMA devices have no RoCE v1 GIDs" \
	"smcctl info without a UEID"

# No UEID: only SMC-Dv2 (loopback) is proposed, and the server declines it.
check_mode 5000 tcp "without a UEID"
assert_json "$first" .fallback_name PEERDECL "without a UEID: client reason"
# A UEID alone: SMC-D loopback, which does not care about network namespaces, wins.
assert_ok smcctl ueid add $SMCR_UEID
check_mode 5001 smcd "with a UEID, lo without a PNET ID"
# A PNET ID on lo takes it out of SMC-Dv2: SMC-Rv2 over rxe.
assert_ok smcctl pnet add $SMCR_LO_PNETID --ib lo
check_mode 5002 smcr "with a UEID and a PNET ID on lo"
assert_ok smcctl info
assert_contains "$out" "SMC-R: ready for SMC-Rv2 only" "smcctl info with a UEID"

# Two connections held open: link groups, links, sockets, statistics.  The hold is only an
# upper bound (the client is killed once the checks are done): under the debug lane's KASAN
# kernel on a busy host the checks below took more than 30 s, and the client's sockets were
# gone before smcctl looked for them.
assert_ok smcctl -n $SMCR_NS_B -j stats
cli_before=$(json_get "$out" .smcr.tx.bytes)
smcr_pair 5003 /tmp/hold 2 300 --bytes 1M
for i in 1 2; do
	line=$(sed -n "${i}p" /tmp/hold)
	assert_json "$line" .mode smcr "held connection $i: mode"
	assert_json "$line" .verified true "held connection $i: data"
done

assert_ok smcctl -d linkgroup
assert_ok smcctl -j linkgroup
lgs=$out
# The server's and the client's link group (both in this kernel), 3 connections each: the
# check_mode one (5002, closed: its link group stays) reused them, so count >= 2.
for role in SERV CLNT; do
	lg=$(printf '%s\n' "$lgs" | jq -c "[.smcr[] | select(.role == \"$role\" and .conns >= 2)][0]")
	[ "$lg" != null ] || fail "no $role SMC-R link group with the 2 held connections: $lgs"
	assert_json "$lg" .v2.version 2 "$role link group: SMC version"
	assert_json "$lg" .v2.negotiated_eid "$SMCR_UEID" "$role link group: negotiated EID"
	assert_json "$lg" '.links | length >= 1' true "$role link group: links"
	assert_json "$lg" '[.links[] | select(.state == "ACTIVE")] | length >= 1' true \
		"$role link group: an ACTIVE link"
	assert_json "$lg" '[.links[] | select(.conns >= 2)] | length' 1 \
		"$role link group: the link carrying the connections"
	case $role in
	SERV) ib=rxe0 gid=c612:0001 peer=c612:0002 ;;
	CLNT) ib=rxe1 gid=c612:0002 peer=c612:0001 ;;
	esac
	l=$(printf '%s\n' "$lg" | jq -c '[.links[] | select(.conns >= 2)][0]')
	assert_json "$l" .ib_dev $ib "$role link: RDMA device"
	assert_json "$l" .ib_port 1 "$role link: port"
	# IPv4-mapped RoCE v2 GIDs: ::ffff:198.18.0.x
	assert_json "$l" .gid "0000:0000:0000:0000:0000:ffff:$gid" "$role link: GID"
	assert_json "$l" .peer_gid "0000:0000:0000:0000:0000:ffff:$peer" "$role link: peer GID"
done

assert_ok smcctl -j device
assert_json "$out" '[.smcr[] | select(.ib_dev == "rxe0") | .ports[0].links][0] >= 1' true \
	"rxe0 carries a link"
assert_json "$out" '[.smcr[] | select(.ib_dev == "rxe1") | .ports[0].links][0] >= 1' true \
	"rxe1 carries a link"
assert_json "$out" '[.smcr[] | select(.critical)] | length >= 1' true \
	"a device is critical (a link group depends on it alone)"

# Sockets (smc_diag is per netns): the server's two in smcA, the client's two in smcB, each
# with its SMC-R link (lgrinfo).
for side in A B; do
	case $side in
	A) ns=$SMCR_NS_A ib=rxe0 role=SERV ;;
	B) ns=$SMCR_NS_B ib=rxe1 role=CLNT ;;
	esac
	assert_ok smcctl -n $ns socket --smcr -d
	assert_match "$out" "rxe[01]/1#1 +SMCR" "smcctl -n $ns socket --smcr -d: link column"
	assert_ok smcctl -n $ns -j socket --smcr -d
	assert_json "$out" '[.sockets[] | select(.mode == "SMCR" and .state == "ACTIVE")] | length >= 2' \
		true "$ns: ACTIVE SMC-R sockets"
	assert_json "$out" "[.sockets[] | select(.lgrinfo.ib_dev == \"$ib\" and .lgrinfo.role == \"$role\")] | length >= 2" \
		true "$ns: sockets on $ib as $role"
	assert_json "$out" '[.sockets[] | select(.conninfo.token > 0)] | length >= 2' true \
		"$ns: connection info"
done

# Statistics (per netns): the client side counted its SMC-Rv2 handshakes and bytes.
assert_ok smcctl -n $SMCR_NS_B stats
assert_ok smcctl -n $SMCR_NS_B -j stats
assert_json "$out" '.smcr.client_v2 >= 3' true "client SMC-Rv2 handshakes"
cli_after=$(json_get "$out" .smcr.tx.bytes)
[ "$cli_after" -ge $((cli_before + 2 * 1024 * 1024)) ] ||
	fail "client SMC-R tx bytes grew from $cli_before to $cli_after, expected 2 MiB more"
assert_ok smcctl -n $SMCR_NS_A -j stats
assert_json "$out" '.smcr.server_v2 >= 3' true "server SMC-Rv2 handshakes"
assert_json "$out" '.smcr.rx.bytes >= 2097152' true "server SMC-R rx bytes"
kill $smcr_cli 2>/dev/null
wait $smcr_cli $smcr_srv 2>/dev/null

# IPv6: SMC-Rv2 is never proposed for an IPv6 CLC socket and lo is out: no device.
smcr_pair 5004 /tmp/v6 1 0 --bytes 64K --addr $SMCR_ADDR6_A
smcr_pair_wait
first=$(head -n 1 /tmp/v6)
assert_json "$first" .mode tcp "IPv6: mode"
assert_json "$first" .fallback_name NOSMCDEV "IPv6: client reason"
exit 0
