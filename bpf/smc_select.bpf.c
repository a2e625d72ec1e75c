// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Which TCP stream sockets become SMC: the programs behind "smcctl run" and the cgroup and
 * network-namespace policies of smc.yaml.
 *
 * The decision is made in update_socket_protocol(), the fmod_ret hook that __sys_socket()
 * calls with (family, type, protocol) before it creates a socket (Linux 6.6+; allow-listed
 * for fmod_ret by MPTCP).  Returning IPPROTO_SMC there makes socket(AF_INET[6],
 * SOCK_STREAM, 0) an SMC socket (Linux 6.11+), the program unchanged.  Only the socket()
 * system call passes through the hook: io_uring's IORING_OP_SOCKET and kernel sockets do
 * not, and neither do sockets created before a policy existed.
 *
 * A socket is switched when, in this order,
 *  1. the calling task is enrolled (task storage run_tasks: smcctl run), or a parent is and
 *     the task's copy of the mark failed at fork (run_ancestor_marked),
 *  2. its network namespace's cookie is in netns_cookies,
 *  3. its cgroup or any ancestor (cgroup v2) is in cgroup_ids.
 *
 * Why task storage for smcctl run, and not a pid map (smc_run.bpf) or a per-run cgroup:
 * storage hangs off the task_struct itself, so it is right for threads (each thread has its
 * own, copied when the thread is created, freed when that thread exits: one worker thread
 * ending does not end the process's enrollment, smc_run.bpf's tgid bug), for forks from any
 * thread, in any pid namespace (no pid numbers are involved at all), and it cannot leak or
 * go stale: the kernel frees it with the task.  A per-run cgroup would move the program out
 * of the cgroup systemd or a container runtime put it in.
 *
 * Why cookies for network namespaces, not inode numbers: a netns inode number is reused
 * once the namespace is gone (smc_run.bpf needed an fentry on proc_free_inum to forget
 * them); net_cookie never is, so a stale entry can never match a new namespace.
 *
 * Why cgroup ids plus a path map: policies name cgroups by path, and a service's or a
 * container's cgroup is created at start with a fresh id.  The loader resolves the paths
 * that exist; cgroup_mkdir (below) adds the id of a matching path in the same instant the
 * cgroup is created, before any process can be moved into it, so a restarted service is
 * covered from its first socket without waiting for the agent.  Descendants are covered by
 * the ancestor walk, which is why a policy on /machine.slice covers every container
 * started under it later.
 */
#include "bpf/smc-vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "bpf/smcbpf-abi.h"
#include "bpf/smc-run-tasks.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SMCBPF_MAX_CGROUP_IDS);
	__type(key, __u64);
	__type(value, __u32);
} cgroup_ids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SMCBPF_MAX_RULES);
	__type(key, struct smcbpf_cgroup_path);
	__type(value, __u32);
} cgroup_paths SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SMCBPF_MAX_NETNS);
	__type(key, __u64);
	__type(value, __u32);
} netns_cookies SEC(".maps");

/* Written by the loader (mmap'ed .bss): skip the lookups nobody configured. */
__u32 n_cgroup_rules;
__u32 n_netns_rules;
/* Read by the loader. */
__u64 counters[SMCBPF_N_COUNTERS];

static __always_inline void count(__u32 slot)
{
	if (slot < SMCBPF_N_COUNTERS)
		__sync_fetch_and_add(&counters[slot], 1);
}

static __always_inline bool tcp_stream(int family, int type, int protocol)
{
	return (family == SMCBPF_AF_INET || family == SMCBPF_AF_INET6) &&
	       (type & SMCBPF_SOCK_TYPE_MASK) == SMCBPF_SOCK_STREAM &&
	       (protocol == 0 || protocol == SMCBPF_IPPROTO_TCP);
}

/* The deepest of the current task's cgroups (itself or an ancestor) with a rule. */
static __always_inline int cgroup_rule(__u32 *ret)
{
	int found = -1;

	for (int level = 0; level < SMCBPF_CGROUP_DEPTH; level++) {
		__u64 id = bpf_get_current_ancestor_cgroup_id(level);
		__u32 *idx;

		if (!id)
			break;
		idx = bpf_map_lookup_elem(&cgroup_ids, &id);
		if (idx) {
			*ret = *idx;
			found = 0;
		}
	}
	return found;
}

/*
 * The mark of an enrolled parent, for a task that did not get its copy at fork.  Making the
 * copy allocates task storage, and that can fail: the allocator's per-CPU cache is empty
 * until its refill runs, or the storage lock is not taken in time (the kernel's rqspinlock
 * gives up rather than spin, seen on a loaded two-CPU guest).  smcd_fork counts each such
 * failure; only once one has happened are the parents looked at, so a host where none
 * failed pays nothing for this.  The task takes its own copy when it can, so that its
 * children inherit it at their fork again.
 */
static __always_inline bool run_ancestor_marked(struct task_struct *task)
{
	struct task_struct *t = task;

	if (!counters[SMCBPF_CNT_INHERIT_FAIL])
		return false;
	for (int i = 0; i < SMCBPF_RUN_ANCESTORS; i++) {
		struct smcbpf_run_mark *m, copy;

		t = t->real_parent;
		if (!t || t->pid <= 1)
			return false;
		m = bpf_task_storage_get(&run_tasks, t, 0, 0);
		if (!m)
			continue;
		copy = *m;
		bpf_task_storage_get(&run_tasks, task, &copy, BPF_LOCAL_STORAGE_GET_F_CREATE);
		return true;
	}
	return false;
}

SEC("fmod_ret/update_socket_protocol")
int BPF_PROG(smcd_select, int family, int type, int protocol, int ret)
{
	struct task_struct *task;
	__u32 idx;

	/* Another fmod_ret program (mptcpify, a second loader) chose already: keep that. */
	if (ret)
		return ret;
	if (!tcp_stream(family, type, protocol))
		return 0;
	task = bpf_get_current_task_btf();
	if (bpf_task_storage_get(&run_tasks, task, 0, 0) || run_ancestor_marked(task)) {
		count(SMCBPF_CNT_RUN);
		return SMCBPF_IPPROTO_SMC;
	}
	if (n_netns_rules) {
		__u64 cookie = BPF_CORE_READ(task, nsproxy, net_ns, net_cookie);
		__u32 *v = bpf_map_lookup_elem(&netns_cookies, &cookie);

		if (v) {
			count(*v);
			return SMCBPF_IPPROTO_SMC;
		}
	}
	if (n_cgroup_rules && cgroup_rule(&idx) == 0) {
		count(idx);
		return SMCBPF_IPPROTO_SMC;
	}
	return 0;
}

/* Every new task and thread of an enrolled one is enrolled too (a copy of the mark). */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(smcd_fork, struct task_struct *parent, struct task_struct *child)
{
	struct smcbpf_run_mark *m, copy;

	m = bpf_task_storage_get(&run_tasks, parent, 0, 0);
	if (!m)
		return 0;
	copy = *m;
	if (!bpf_task_storage_get(&run_tasks, child, &copy, BPF_LOCAL_STORAGE_GET_F_CREATE))
		count(SMCBPF_CNT_INHERIT_FAIL);
	return 0;
}

/*
 * A cgroup is created: if a rule names its path, its id joins cgroup_ids now.  Runs under
 * the cgroup code's path spinlock (TRACE_CGROUP_PATH), so nothing here may sleep.
 */
SEC("tp_btf/cgroup_mkdir")
int BPF_PROG(smcd_cgroup_mkdir, struct cgroup *cgrp, const char *path)
{
	struct smcbpf_cgroup_path key = {};
	__u64 id;
	__u32 *idx;

	if (!n_cgroup_rules)
		return 0;
	/* Hierarchy 0 is cgroup v2; cgroup v1 hierarchies have their own cgroup_mkdir. */
	if (BPF_CORE_READ(cgrp, root, hierarchy_id) != 0)
		return 0;
	if (bpf_probe_read_kernel_str(key.path, sizeof(key.path), path) < 0)
		return 0;
	idx = bpf_map_lookup_elem(&cgroup_paths, &key);
	if (!idx)
		return 0;
	id = BPF_CORE_READ(cgrp, kn, id);
	if (bpf_map_update_elem(&cgroup_ids, &id, idx, BPF_ANY) < 0)
		count(SMCBPF_CNT_CGROUP_MAP_FULL);
	return 0;
}
