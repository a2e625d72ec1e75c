// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * "smcctl run --sndbuf/--rcvbuf" on the BPF path: SO_SNDBUF/SO_RCVBUF on the SMC sockets
 * of enrolled tasks, set as the socket is created.
 *
 * An IPPROTO_SMC socket starts with sk_sndbuf = 2 * net.smc.wmem (likewise rcvbuf and
 * rmem), and SMC sizes its send buffer and RMB/DMB from those at the first connect or
 * accept.  The program that switches the protocol (update_socket_protocol) runs before the
 * socket exists and cannot touch it; cgroup/sock_create runs right after the protocol's
 * init, on the new socket, in the creating task, and may call bpf_setsockopt() there.  It
 * is attached to the cgroup2 root (so it sees every task) and does nothing for tasks
 * without a mark or for non-SMC sockets.
 *
 * bpf_setsockopt(SO_SNDBUF) follows setsockopt(2): the value is capped at
 * net.core.wmem_max (rmem_max) and doubled by the kernel.  A separate object from
 * smc_select so that a kernel whose verifier refuses setsockopt here still gets the rest;
 * it shares smc_select's run_tasks map (the loader reuses its fd).
 *
 * A task without a run mark gets the sizes of its cgroup from cgroup_bufs (the cgroup v2
 * id of the creating task, bpf_get_current_cgroup_id(); that cgroup only, not its
 * descendants): the autopilot's per-workload sizes.  The loader pins the map with the rest
 * of the selection layout, so the sizes outlive the agent, and a new layout takes it over.
 * A run mark wins over the cgroup's sizes.
 */
#include "bpf/smc-vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "bpf/smcbpf-abi.h"
#include "bpf/smc-run-tasks.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SMCBPF_MAX_CGROUP_BUFS);
	__type(key, __u64);
	__type(value, struct smcbpf_bufs);
} cgroup_bufs SEC(".maps");

__u64 buffers_set;
__u64 buffers_failed;

static __always_inline void bufs_set_buf(struct bpf_sock *sk, int opt, __u32 bytes)
{
	int v = (int)bytes;

	if (!bytes)
		return;
	if (bpf_setsockopt(sk, SMCBPF_SOL_SOCKET, opt, &v, sizeof(v)) == 0)
		__sync_fetch_and_add(&buffers_set, 1);
	else
		__sync_fetch_and_add(&buffers_failed, 1);
}

SEC("cgroup/sock_create")
int smcd_bufs(struct bpf_sock *sk)
{
	struct smcbpf_run_mark *m;
	struct smcbpf_bufs *b;
	__u64 cg;

	if (sk->protocol != SMCBPF_IPPROTO_SMC)
		return 1;
	m = bpf_task_storage_get(&run_tasks, bpf_get_current_task_btf(), 0, 0);
	if (m) {
		bufs_set_buf(sk, SMCBPF_SO_SNDBUF, m->sndbuf);
		bufs_set_buf(sk, SMCBPF_SO_RCVBUF, m->rcvbuf);
		return 1;
	}
	cg = bpf_get_current_cgroup_id();
	b = bpf_map_lookup_elem(&cgroup_bufs, &cg);
	if (!b)
		return 1;
	bufs_set_buf(sk, SMCBPF_SO_SNDBUF, b->sndbuf);
	bufs_set_buf(sk, SMCBPF_SO_RCVBUF, b->rcvbuf);
	return 1;
}
