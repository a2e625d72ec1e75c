// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smc.yaml "policies: exclude:" as an smc_hs_ctrl struct_ops (Linux 6.19+,
 * CONFIG_SMC_HS_CTRL_BPF).
 *
 * The kernel asks syn_option() while it builds the SYN of an SMC socket's TCP connection,
 * and synack_option() while it answers a SYN that offered SMC on an SMC listener.  Returning
 * 0 leaves the SMC experimental option out of that packet: the connection is plain TCP from
 * its first packet, without a CLC handshake, which is what servers that mishandle the option
 * (they echo it, against RFC 9293, and then hang) need.  The decision uses the real
 * endpoint, so it holds for connect() with any address the program computed.
 *
 * The rules name the server end of a connection: on a SYN the destination, on a SYN-ACK our
 * own (listening) address and port.  So "port: 5432" keeps PostgreSQL connections TCP
 * whether the client or the server side is the SMC one.  IPv4-mapped IPv6 endpoints are
 * matched as IPv4.
 *
 * Registered through a plain .struct_ops map (the kernel refuses a BPF link for this type)
 * under the name "smcd_excl"; the loader activates it per network namespace with
 * net.smc.hs_ctrl, and INHERITABLE makes new namespaces take init_net's choice.
 */
#include "bpf/smc-vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_endian.h>

#include "bpf/smcbpf-abi.h"

char LICENSE[] SEC("license") = "GPL";

/* Written by the loader through the mmap'ed .bss: n_rules = 0 first, then rules, then n. */
struct smcbpf_excl_rule rules[SMCBPF_MAX_EXCL];
__u32 n_rules;
/* Read by the loader. */
__u64 hits[SMCBPF_MAX_EXCL];
__u64 checked;

static __always_inline bool v4_mapped(const __u32 a[4])
{
	return a[0] == 0 && a[1] == 0 && a[2] == bpf_htonl(0xffff);
}

/* Non-zero: keep the SMC option.  addr: the endpoint in network order, IPv4 in word 0. */
static __always_inline int decide(__u16 family, __u32 a[4], __u16 port)
{
	__u32 n = n_rules;

	__sync_fetch_and_add(&checked, 1);
	if (family == SMCBPF_AF_INET6 && v4_mapped(a)) {
		family = SMCBPF_AF_INET;
		a[0] = a[3];
		a[1] = a[2] = a[3] = 0;
	}
	for (__u32 i = 0; i < SMCBPF_MAX_EXCL; i++) {
		const struct smcbpf_excl_rule *r = &rules[i];

		if (i >= n)
			break;
		if (r->family && r->family != family)
			continue;
		if (r->port && r->port != port)
			continue;
		if ((a[0] & r->mask[0]) != r->addr[0] || (a[1] & r->mask[1]) != r->addr[1] ||
		    (a[2] & r->mask[2]) != r->addr[2] || (a[3] & r->mask[3]) != r->addr[3])
			continue;
		__sync_fetch_and_add(&hits[i], 1);
		return 0;
	}
	return 1;
}

SEC("struct_ops/syn_option")
int BPF_PROG(smcd_syn_option, struct tcp_sock *tp)
{
	struct sock_common *skc = &tp->inet_conn.icsk_inet.sk.__sk_common;
	__u16 family = skc->skc_family;
	__u32 a[4] = {};

	if (family == SMCBPF_AF_INET) {
		a[0] = skc->skc_daddr;
	} else {
		a[0] = skc->skc_v6_daddr.in6_u.u6_addr32[0];
		a[1] = skc->skc_v6_daddr.in6_u.u6_addr32[1];
		a[2] = skc->skc_v6_daddr.in6_u.u6_addr32[2];
		a[3] = skc->skc_v6_daddr.in6_u.u6_addr32[3];
	}
	return decide(family, a, bpf_ntohs(skc->skc_dport));
}

SEC("struct_ops/synack_option")
int BPF_PROG(smcd_synack_option, const struct tcp_sock *tp, struct inet_request_sock *ireq)
{
	struct sock_common *skc = &ireq->req.__req_common;
	__u16 family = skc->skc_family;
	__u32 a[4] = {};

	if (family == SMCBPF_AF_INET) {
		a[0] = skc->skc_rcv_saddr;
	} else {
		a[0] = skc->skc_v6_rcv_saddr.in6_u.u6_addr32[0];
		a[1] = skc->skc_v6_rcv_saddr.in6_u.u6_addr32[1];
		a[2] = skc->skc_v6_rcv_saddr.in6_u.u6_addr32[2];
		a[3] = skc->skc_v6_rcv_saddr.in6_u.u6_addr32[3];
	}
	return decide(family, a, skc->skc_num);
}

SEC(".struct_ops")
struct smc_hs_ctrl smcd_excl = {
	.name = "smcd_excl",
	.flags = SMC_HS_CTRL_FLAG_INHERITABLE,
	.syn_option = (void *)smcd_syn_option,
	.synack_option = (void *)smcd_synack_option,
};
