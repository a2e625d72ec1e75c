// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl assess, the part SMC carries: on a connection SMC carries, the TCP socket under it
 * (SMC's clcsock) moves only the CLC handshake and the data goes through smc_sendmsg and
 * smc_recvmsg.  Read-only, like smc_assess.bpf.c, on its open_conns map:
 *
 *   fexit/smc_sendmsg   what SMC sent (the return value) into smc_bytes_sent of the
 *                       clcsock's record, one send with its size into sends and hist, and
 *                       the record marked smc
 *   fexit/smc_recvmsg   what it received into smc_bytes_received, marked smc
 *
 * A connection that fell back to TCP (use_fallback) is left to smc_assess's TCP programs.
 * Only records that exist are touched: inet_sock_set_state made them for the clcsock (a
 * connection open before the programs were loaded is not started from here).  The
 * accepted end's CLC handshake ran in a kworker, so the first task to send or receive on
 * it names it.
 *
 * A separate object so that it is optional: SMC's functions are in the smc module's BTF
 * where SMC is a module, there only while the module is loaded (and its BTF built); the
 * loader loads this one only then, and a refusal costs nothing of the rest.
 */
#include "bpf/smc-vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "bpf/smcbpf-abi.h"
#include "bpf/smc-assess-rec.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * The record of the TCP connection under an SMC socket that SMC carries, or NULL.  The
 * argument is typed struct sock: smc_sock's own fields are read with probe reads (CO-RE
 * against the smc module's BTF where SMC is a module); the clcsock's address is only a key.
 */
static __always_inline struct smcbpf_assess_rec *smc_rec(struct socket *sock)
{
	struct smc_sock *smc;
	struct smcbpf_assess_rec *r;
	struct socket *clc;
	__u64 key;

	if (!sock)
		return NULL;
	smc = (struct smc_sock *)sock->sk;
	if (!smc || BPF_CORE_READ(smc, use_fallback))
		return NULL; /* TCP moves the data: tcp_sendmsg/tcp_recvmsg count it */
	clc = BPF_CORE_READ(smc, clcsock);
	if (!clc)
		return NULL;
	key = (__u64)BPF_CORE_READ(clc, sk);
	if (!key)
		return NULL;
	r = bpf_map_lookup_elem(&open_conns, &key);
	if (r && !r->pid)
		fill_task(r); /* an accepted end: its CLC handshake ran in a kworker */
	return r;
}

SEC("fexit/smc_sendmsg")
int BPF_PROG(assess_smc_send, struct socket *sock, struct msghdr *msg, __u64 len, int ret)
{
	struct smcbpf_assess_rec *r;

	if (ret < 0)
		return 0;
	r = smc_rec(sock);
	if (!r)
		return 0;
	r->smc = 1;
	__sync_fetch_and_add(&r->smc_bytes_sent, (__u64)ret);
	count_send(r, len);
	return 0;
}

SEC("fexit/smc_recvmsg")
int BPF_PROG(assess_smc_recv, struct socket *sock, struct msghdr *msg, __u64 len, int flags, int ret)
{
	struct smcbpf_assess_rec *r;

	if (ret < 0)
		return 0;
	r = smc_rec(sock);
	if (!r)
		return 0;
	r->smc = 1;
	__sync_fetch_and_add(&r->smc_bytes_received, (__u64)ret);
	return 0;
}
