// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl assess: the shape of every TCP connection while it is observed, read-only.  No
 * program here returns anything but 0 or writes to a socket: they only read.
 *
 *   tp_btf/inet_sock_set_state  SYN_SENT (the connecting task: pid, comm) or SYN_RECV (an
 *                               accepted socket, created in softirq: no task) starts a
 *                               record, ESTABLISHED marks it, CLOSE ends it: the bytes from
 *                               tcp_sock, the record into the ring buffer, out of the map.
 *   fentry/tcp_sendmsg          one send: its size into the kernel's SMC statistics
 *                               buckets; the first task to send or receive names an
 *                               accepted socket; a connection open before the program was
 *                               loaded gets its record here (start_ns 0).
 *   fentry/tcp_recvmsg          the same without a size.
 *
 * What SMC itself moves on a connection it carries: smc_assess_smc.bpf.c, a separate
 * object on the same open_conns map (smc-assess-rec.bpf.h), loaded where SMC's functions
 * can be traced.
 *
 * The socket's cgroup (sk_cgrp_data: its creator's; an accepted socket inherits the
 * listener's) and netns cookie are the attribution smcctl resolves.  The map holds what is
 * open (SMCBPF_ASSESS_MAX_OPEN); records that do not fit, and closed ones when the ring
 * buffer is full, are counted in dropped.  Nothing is pinned: the programs, maps and links
 * end with smcctl's file descriptors.
 */
#include "bpf/smc-vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "bpf/smcbpf-abi.h"
#include "bpf/smc-assess-rec.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, SMCBPF_ASSESS_RING_BYTES);
} closed SEC(".maps");

/* A zeroed record to insert (the stack is too small for memset of a 200-byte value). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct smcbpf_assess_rec);
} scratch SEC(".maps");

__u64 dropped;

static __always_inline bool is_tcp(const struct sock *sk)
{
	__u16 family = sk->__sk_common.skc_family;

	return sk->sk_protocol == SMCBPF_IPPROTO_TCP &&
	       (family == SMCBPF_AF_INET || family == SMCBPF_AF_INET6);
}

/*
 * Addresses and ports: final only from ESTABLISHED on (a connecting socket gets its port
 * after SYN_SENT, an accepted one its peer's address after SYN_RECV), so read again then.
 */
static __always_inline void fill_addrs(struct smcbpf_assess_rec *r, const struct sock *sk)
{
	/* inet_sport (probe-read: the tracepoint's argument is typed struct sock) */
	r->lport = __builtin_bswap16(BPF_CORE_READ((const struct inet_sock *)sk, inet_sport));
	r->rport = __builtin_bswap16(sk->__sk_common.skc_dport);
	if (r->family == SMCBPF_AF_INET) {
		r->laddr[0] = sk->__sk_common.skc_rcv_saddr;
		r->raddr[0] = sk->__sk_common.skc_daddr;
	} else {
		for (int i = 0; i < 4; i++) {
			r->laddr[i] = sk->__sk_common.skc_v6_rcv_saddr.in6_u.u6_addr32[i];
			r->raddr[i] = sk->__sk_common.skc_v6_daddr.in6_u.u6_addr32[i];
		}
	}
}

static __always_inline void fill_sock(struct smcbpf_assess_rec *r, const struct sock *sk)
{
	struct cgroup *cg = sk->sk_cgrp_data.cgroup;
	struct net *net = sk->__sk_common.skc_net.net;

	r->sk = (__u64)sk;
	if (cg && cg->kn)
		r->cgroup_id = cg->kn->id;
	if (net)
		r->netns_cookie = net->net_cookie;
	r->family = sk->__sk_common.skc_family;
	fill_addrs(r, sk);
}

static __always_inline void read_bytes(struct smcbpf_assess_rec *r, const struct sock *sk)
{
	const struct tcp_sock *tp = (const struct tcp_sock *)sk;

	r->bytes_acked = BPF_CORE_READ(tp, bytes_acked);
	r->bytes_received = BPF_CORE_READ(tp, bytes_received);
}

static __always_inline struct smcbpf_assess_rec *rec_new(const struct sock *sk, __u64 start)
{
	__u64 key = (__u64)sk;
	__u32 zero = 0;
	struct smcbpf_assess_rec *r = bpf_map_lookup_elem(&scratch, &zero);

	if (!r)
		return NULL;
	__builtin_memset(r, 0, sizeof(*r));
	r->start_ns = start;
	fill_sock(r, sk);
	if (bpf_map_update_elem(&open_conns, &key, r, BPF_ANY) < 0) {
		__sync_fetch_and_add(&dropped, 1);
		return NULL;
	}
	return bpf_map_lookup_elem(&open_conns, &key);
}

SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(assess_state, const struct sock *sk, int oldstate, int newstate)
{
	struct smcbpf_assess_rec *r, *out;
	__u64 key = (__u64)sk;

	if (!sk || !is_tcp(sk))
		return 0;
	if (newstate == SMCBPF_TCP_SYN_SENT || newstate == SMCBPF_TCP_SYN_RECV) {
		r = rec_new(sk, bpf_ktime_get_ns());
		if (!r)
			return 0;
		r->passive = newstate == SMCBPF_TCP_SYN_RECV;
		if (!r->passive)
			fill_task(r); /* connect(): the connecting task */
		return 0;
	}
	r = bpf_map_lookup_elem(&open_conns, &key);
	if (!r)
		return 0;
	if (newstate == SMCBPF_TCP_ESTABLISHED) {
		r->established = 1;
		r->established_ns = bpf_ktime_get_ns();
		fill_addrs(r, sk);
		return 0;
	}
	if (newstate != SMCBPF_TCP_CLOSE)
		return 0;
	r->end_ns = bpf_ktime_get_ns();
	if (r->established)
		fill_addrs(r, sk);
	read_bytes(r, sk);
	out = bpf_ringbuf_reserve(&closed, sizeof(*out), 0);
	if (out) {
		__builtin_memcpy(out, r, sizeof(*out));
		bpf_ringbuf_submit(out, 0);
	} else {
		__sync_fetch_and_add(&dropped, 1);
	}
	bpf_map_delete_elem(&open_conns, &key);
	return 0;
}

/* A send or receive: the record (a new one for a connection open before us), named. */
static __always_inline struct smcbpf_assess_rec *touch(struct sock *sk)
{
	__u64 key = (__u64)sk;
	struct smcbpf_assess_rec *r;
	unsigned char state;

	if (!sk || !is_tcp(sk))
		return NULL;
	r = bpf_map_lookup_elem(&open_conns, &key);
	if (!r) {
		state = sk->__sk_common.skc_state;
		/* a closed socket's failing send must not start a record */
		if (state != SMCBPF_TCP_ESTABLISHED && state != SMCBPF_TCP_CLOSE_WAIT)
			return NULL;
		r = rec_new(sk, 0);
		if (!r)
			return NULL;
		r->established = 1;
	}
	if (!r->pid)
		fill_task(r);
	read_bytes(r, sk);
	return r;
}

SEC("fentry/tcp_sendmsg")
int BPF_PROG(assess_send, struct sock *sk, void *msg, __u64 size)
{
	struct smcbpf_assess_rec *r = touch(sk);

	if (r)
		count_send(r, size);
	return 0;
}

SEC("fentry/tcp_recvmsg")
int BPF_PROG(assess_recv, struct sock *sk)
{
	touch(sk);
	return 0;
}
