// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fallback attribution: every switch of an SMC socket to TCP, with who made it, as one
 * record in a ring buffer that smcd-agent reads.
 *
 * The kernel's tracepoint smc:smc_switch_to_fallback (net/smc/smc_tracepoint.h, Linux 5.17+)
 * fires in smc_switch_to_fallback() with the SMC socket and the reason (SMC_CLC_DECL_*).
 * tp_btf rather than a raw tracepoint or the tracefs format: the arguments are typed, so
 * the socket's fields are read through CO-RE (bpf/smc-vmlinux.h) without probe-read chains,
 * and where SMC is a module libbpf finds the tracepoint and struct smc_sock in the module's
 * BTF.
 *
 * Who.  On the client side the switch runs in the connecting task, unless a non-blocking
 * connect() left the handshake to a kworker (smc_connect_work); on the server side it
 * always runs in the kworker of the listen work (smc_listen_work), where current is no
 * process of the application.  So pid and comm are taken from current only when it is no
 * kernel thread, and always recorded is what the socket itself says: the cgroup of its
 * creator (sk_cgrp_data, cgroup v2; the server's new socket is allocated in the kworker, so
 * the listening socket's is taken there) and the inode of the socket file a process holds
 * (the listener's on the server side), from which the agent finds the holder in /proc.
 *
 * A full ring buffer drops records (counted in dropped); the kernel's own fallback
 * counters stay exact either way.
 */
#include "bpf/smc-vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>

#include "bpf/smcbpf-abi.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, SMCBPF_FALLBACK_RING_BYTES);
} events SEC(".maps");

__u64 seen;
__u64 dropped;

static __always_inline __u64 sock_ino(struct sock *sk)
{
	struct socket *so = sk->sk_socket;
	struct file *f;
	struct inode *ino;

	if (!so)
		return 0;
	f = so->file;
	if (!f)
		return 0;
	ino = f->f_inode;
	return ino ? ino->i_ino : 0;
}

SEC("tp_btf/smc_switch_to_fallback")
int BPF_PROG(smcd_fallback, struct smc_sock *smc, int reason)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct smcbpf_fallback_event *ev;
	struct smc_sock *owner;
	struct socket *clc;
	struct sock *tcp;
	struct cgroup *cg;
	struct net *net;

	/* 6.12's verifier types the argument as maybe NULL (7.3's does not): check first. */
	if (!smc)
		return 0;
	owner = smc->listen_smc;
	clc = smc->clcsock;
	tcp = clc ? clc->sk : NULL;
	__sync_fetch_and_add(&seen, 1);
	ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		__sync_fetch_and_add(&dropped, 1);
		return 0;
	}
	__builtin_memset(ev, 0, sizeof(*ev));
	ev->reason = reason;
	ev->server = owner != NULL;
	if (!owner)
		owner = smc;
	if (!(task->flags & PF_KTHREAD)) {
		ev->pid = bpf_get_current_pid_tgid() >> 32;
		bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	}
	cg = owner->sk.sk_cgrp_data.cgroup;
	if (cg && cg->kn)
		ev->cgroup_id = cg->kn->id;
	ev->sock_ino = sock_ino(&owner->sk);
	net = smc->sk.__sk_common.skc_net.net;
	if (net)
		ev->netns_cookie = net->net_cookie;
	if (tcp) {
		ev->family = tcp->__sk_common.skc_family;
		ev->lport = tcp->__sk_common.skc_num;
		ev->rport = bpf_ntohs(tcp->__sk_common.skc_dport);
		if (ev->family == SMCBPF_AF_INET) {
			ev->laddr[0] = tcp->__sk_common.skc_rcv_saddr;
			ev->raddr[0] = tcp->__sk_common.skc_daddr;
		} else if (ev->family == SMCBPF_AF_INET6) {
			for (int i = 0; i < 4; i++) {
				ev->laddr[i] = tcp->__sk_common.skc_v6_rcv_saddr.in6_u.u6_addr32[i];
				ev->raddr[i] = tcp->__sk_common.skc_v6_daddr.in6_u.u6_addr32[i];
			}
		}
	}
	bpf_ringbuf_submit(ev, 0);
	return 0;
}
