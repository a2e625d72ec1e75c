/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What smc_assess and smc_assess_smc share: the open_conns map (smc_assess owns it; the
 * loader hands its fd to smc_assess_smc, so both definitions are this one) and the two
 * helpers that fill a record.
 */
#pragma once

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SMCBPF_ASSESS_MAX_OPEN);
	__type(key, __u64);
	__type(value, struct smcbpf_assess_rec);
} open_conns SEC(".maps");

static __always_inline void fill_task(struct smcbpf_assess_rec *r)
{
	struct task_struct *task = bpf_get_current_task_btf();

	if (task->flags & PF_KTHREAD)
		return;
	r->pid = bpf_get_current_pid_tgid() >> 32;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
}

/* One sendmsg of size bytes. */
static __always_inline void count_send(struct smcbpf_assess_rec *r, __u64 size)
{
	__u64 v;
	__u32 b = 0;

	__sync_fetch_and_add(&r->sends, 1);
	if (size) {
		v = (size - 1) >> 13;
		/* fls() capped at 8, unrolled for the verifier */
		for (int i = 0; i < SMCBPF_ASSESS_BUCKETS - 1; i++) {
			if (!v)
				break;
			v >>= 1;
			b++;
		}
	}
	if (b < SMCBPF_ASSESS_BUCKETS)
		__sync_fetch_and_add(&r->hist[b], 1);
}
