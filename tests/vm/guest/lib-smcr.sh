# SMC-R over soft-RoCE in the guest (busybox sh), sourced after lib.sh:
#   . "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/lib-smcr.sh"
# Needs the 7x lane (RDMA_RXE=m) and the host's iproute2 in the guest:
#   vm-run --host-bin ip --host-bin rdma   (tests/vm/Makefile.inc puts both in every lane)
#
# The topology (smcr_setup):
#
#   netns smcA                          netns smcB
#   vethA 198.18.0.1/24  <-- veth -->   vethB 198.18.0.2/24
#   rxe0 (rdma_rxe on vethA)            rxe1 (rdma_rxe on vethB)
#   the server                          the client
#
# What makes SMC-R happen here, and why (read in net/smc and drivers/infiniband/sw/rxe of
# 7.3, then seen in the lane):
#   - rdma_rxe is RoCE v2 only (port cap ROCE_UDP_ENCAP): its GID table has no RoCE v1
#     entries, and SMC-Rv1 needs one (smc_ib_determine_gid_rcu: IB_GID_TYPE_ROCE).  So only
#     SMC-Rv2 can run over soft-RoCE, and the client proposes SMC-Rv2 only when a UEID is
#     configured (smc_find_proposal_devices: smc_clc_ueid_count()) and the connection is
#     IPv4 (an IPv6 CLC socket never proposes SMC-Rv2; it falls back with NOSMCDEV).
#   - With a UEID, SMC-Dv2 over the DIBS loopback device is proposed too, and the server
#     prefers it: the loopback device ignores network namespaces, so without more the
#     "cross-netns" connections run as SMC-D.  A PNET ID on lo (IB entry "lo" in the
#     initial netns' PNET table) takes it out of SMC-Dv2 proposals on x86 (its PNET ID is
#     not among the netns' hardware PNET IDs, which are always empty off s390).
#   - rdma_rxe is netns aware (7.3: per-netns UDP tunnel sockets, rxe_ns.c): the netdev
#     named in "rdma link add" is looked up in the caller's netns, so the link is added
#     from inside each namespace.  The RDMA subsystem stays in its default "shared" netns
#     mode (rdma system show: "netns shared"): rxe0 and rxe1 both belong to init_net and
#     are usable from every netns - so SMC also uses rxe1 for the server's second link
#     (an asymmetric link group), and the link groups' netns cookie is init_net's (SMC
#     takes the RDMA device's netns, smc_ib_net()), not the namespace of the sockets.
#   - Addresses: 198.18.0.0/24 (RFC 2544 benchmarking range, never routed); the guest has
#     no network card, nothing leaves it.  Same subnet on purpose: SMC-Rv2 checks that the
#     source address is on the RoCE netdev (smc_ib_determine_gid_rcu's subnet match).

SMCR_IP=/usr/sbin/ip     # iproute2 (busybox's ip has no netns); full path: see lib.sh
SMCR_RDMA=/usr/bin/rdma
SMCR_NS_A=smcA
SMCR_NS_B=smcB
SMCR_ADDR_A=198.18.0.1
SMCR_ADDR_B=198.18.0.2
SMCR_ADDR6_A=2001:db8:5c::1   # documentation prefix, for the IPv6 (no SMC-R) case
SMCR_ADDR6_B=2001:db8:5c::2
SMCR_UEID=SMCR-AGENT-TEST
SMCR_LO_PNETID=NOSMCDLO

# in_ns NS CMD... : run CMD in network namespace NS.
in_ns() {
	_in_ns=$1
	shift
	$SMCR_IP netns exec "$_in_ns" "$@"
}

# smcr_wait_gid IBDEV : until the port is ACTIVE and has an IPv4 (RoCE v2) GID; the GID
# table is filled from netdev events by a workqueue, after "rdma link add" returned.
smcr_wait_gid() {
	_swg_i=0
	while :; do
		if grep -q ACTIVE "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null &&
			cat "/sys/class/infiniband/$1/ports/1/gids/"* 2>/dev/null |
			grep -q '^0000:0000:0000:0000:0000:ffff:'; then
			return 0
		fi
		_swg_i=$((_swg_i + 1))
		[ $_swg_i -gt 300 ] && fail "$1: no ACTIVE port with an IPv4 GID after 30 s"
		sleep 0.1
	done
}

# smcr_topology : rdma_rxe, the two namespaces, the veth pair, addresses, rxe0 and rxe1.
# No SMC configuration (see smcr_enable).
smcr_topology() {
	require_cmd smcctl smc-conn
	[ -x $SMCR_IP ] || fail "no $SMCR_IP in the guest (vm-run --host-bin ip)"
	[ -x $SMCR_RDMA ] || fail "no $SMCR_RDMA in the guest (vm-run --host-bin rdma)"
	modprobe rdma_rxe || fail "modprobe rdma_rxe failed (the 7x kernel has RDMA_RXE=m)"
	$SMCR_IP netns add $SMCR_NS_A || fail "ip netns add $SMCR_NS_A"
	$SMCR_IP netns add $SMCR_NS_B || fail "ip netns add $SMCR_NS_B"
	$SMCR_IP link add vethA type veth peer name vethB || fail "ip link add veth"
	$SMCR_IP link set vethA netns $SMCR_NS_A
	$SMCR_IP link set vethB netns $SMCR_NS_B
	for _st in "$SMCR_NS_A vethA $SMCR_ADDR_A $SMCR_ADDR6_A" \
		"$SMCR_NS_B vethB $SMCR_ADDR_B $SMCR_ADDR6_B"; do
		set -- $_st
		in_ns "$1" $SMCR_IP link set lo up
		in_ns "$1" $SMCR_IP addr add "$3/24" dev "$2" || fail "address $3 on $2"
		in_ns "$1" $SMCR_IP addr add "$4/64" dev "$2" nodad || fail "address $4 on $2"
		in_ns "$1" $SMCR_IP link set "$2" up
	done
	in_ns $SMCR_NS_A $SMCR_RDMA link add rxe0 type rxe netdev vethA ||
		fail "rdma link add rxe0 (netdev vethA in $SMCR_NS_A)"
	in_ns $SMCR_NS_B $SMCR_RDMA link add rxe1 type rxe netdev vethB ||
		fail "rdma link add rxe1 (netdev vethB in $SMCR_NS_B)"
	smcr_wait_gid rxe0
	smcr_wait_gid rxe1
	info "rdma: $($SMCR_RDMA system show | tr '\n' ' ')"
	info "rdma links: $($SMCR_RDMA link show | tr '\n' ' ')"
}

# smcr_enable : what SMC-Rv2 over soft-RoCE needs (see above): a UEID, and a PNET ID on the
# DIBS loopback device so that SMC-D does not win.
smcr_enable() {
	smcctl ueid add $SMCR_UEID >/dev/null || fail "smcctl ueid add $SMCR_UEID"
	smcctl pnet add $SMCR_LO_PNETID --ib lo >/dev/null || fail "smcctl pnet add $SMCR_LO_PNETID --ib lo"
}

# smcr_setup : smcr_topology + smcr_enable.
smcr_setup() {
	smcr_topology
	smcr_enable
}

# smcr_wait_lines FILE N PATTERN : until FILE has N lines containing PATTERN (60 s).  FILE
# may not exist yet (the background writer's redirection races with the first look).
smcr_wait_lines() {
	_swl_i=0
	while _swl_n=$(grep -c "$3" "$1" 2>/dev/null); [ "${_swl_n:-0}" -lt "$2" ]; do
		_swl_i=$((_swl_i + 1))
		if [ $_swl_i -gt 600 ]; then
			echo "timeout waiting for $2 lines with '$3' in $1:"
			cat "$1"
			return 1
		fi
		sleep 0.1
	done
}

# smcr_pair PORT OUT CONNS HOLD [smc-conn options...] : a server in smcA (background, pid
# in $smcr_srv) and a client in smcB connecting to it (background, pid in $smcr_cli, its
# output in OUT); returns once the client printed CONNS connection lines (data moved and
# verified, mode known) - the connections then stay open for HOLD seconds.
smcr_pair() {
	_sp_port=$1 _sp_out=$2 _sp_n=$3 _sp_hold=$4
	shift 4
	_sp_addr=$SMCR_ADDR_A
	case " $* " in *" --addr "*) _sp_addr= ;; esac
	# Not through in_ns: a backgrounded shell function is a subshell of its own, and $!
	# would name it rather than smc-conn ("ip netns exec" execs the command in its place).
	$SMCR_IP netns exec $SMCR_NS_A smc-conn serve --port "$_sp_port" --conns "$_sp_n" \
		${_sp_addr:+--addr $_sp_addr} "$@" >"$_sp_out.srv" 2>&1 &
	smcr_srv=$!
	smcr_wait_lines "$_sp_out.srv" 1 '"listening"' || fail "the server did not listen"
	$SMCR_IP netns exec $SMCR_NS_B smc-conn connect --port "$_sp_port" --conns "$_sp_n" \
		--hold "$_sp_hold" ${_sp_addr:+--addr $_sp_addr} "$@" >"$_sp_out" 2>&1 &
	smcr_cli=$!
	smcr_wait_lines "$_sp_out" "$_sp_n" '"conn":' || fail "the client did not connect"
}

# smcr_pair_wait : wait for both sides of the last smcr_pair (after its HOLD); fails
# unless both exited 0.
smcr_pair_wait() {
	wait $smcr_cli || fail "the client failed: $(cat "$_sp_out")"
	wait $smcr_srv || fail "the server failed: $(cat "$_sp_out.srv")"
}
