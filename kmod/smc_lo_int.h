/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smc_lo: internal declarations shared by the module's files.
 *
 *   smc_lo_main.c  module parameters, init/exit, the global control state
 *   smc_lo_dev.c   device lifecycle: activate, drain, remove; settings; snapshots
 *   smc_lo_dmb.c   the DIBS device ops (identity, DMBs, move_data) and the counters
 *   smc_lo_genl.c  the SMC_LO generic netlink family
 */
#ifndef _SMC_LO_INT_H
#define _SMC_LO_INT_H

#include <linux/dibs.h>
#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uuid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "smc_lo.h"

/*
 * DIBS exists since 6.18; the typed allocators came later.  Keep building on the older
 * kernels that have DIBS (the GFP argument is always given explicitly here).
 */
#ifndef kzalloc_obj
#define kzalloc_obj(P, GFP)	kzalloc(sizeof(P), GFP)
#endif
#ifndef kvzalloc_obj
#define kvzalloc_obj(P, GFP)	kvzalloc(sizeof(P), GFP)
#endif

#define SMCLO_DMB_HASH_BITS	12

/**
 * struct smclo_settings - what SMC reads once per device
 * @dmb_type: &enum smc_lo_dmb_type
 * @nocopy: offer mapped remote DMBs (support_mmapped_rdmb)
 * @max_dmbs: value of the max_dmbs op and size of the index space
 */
struct smclo_settings {
	u8 dmb_type;
	bool nocopy;
	u32 max_dmbs;
};

/**
 * struct smclo_dmb - one registered DMB
 * @node: in &smclo_dev.dmb_ht (RCU for move_data, @ht_lock for writers)
 * @rcu: deferred free, so move_data never copies into freed memory
 * @dev: owning device instance
 * @token: DMB token, unique within the instance
 * @cpu_addr: the memory
 * @len: its length
 * @idx: index in the device's DMB space (< max_dmbs)
 * @type: &enum smc_lo_dmb_type it was allocated with (for the free path)
 * @refs: 1 for the registration + 1 per attachment
 * @attaches: attachments not yet detached (guards against stray detaches)
 * @registered: false once unregister_dmb ran (memory may live on for attachments)
 */
struct smclo_dmb {
	struct hlist_node node;
	struct rcu_head rcu;
	struct smclo_dev *dev;
	u64 token;
	void *cpu_addr;
	u32 len;
	u32 idx;
	u8 type;
	refcount_t refs;
	u32 attaches;
	bool registered;
};

/**
 * struct smclo_dev - one activation: a registered DIBS device and its DMBs
 * @dibs: the DIBS device (drv_priv points back here)
 * @gid: copy of the device GID
 * @set: settings in force; fixed for the lifetime of the device
 * @generation: activation number
 * @state: &enum smc_lo_state, read locklessly by query_remote_gid
 * @removing: dibs_dev_del() has started (under &smclo_ctl.lock)
 * @drain_timeout_ms: drain bound in force (under &smclo_ctl.lock)
 * @drain_deadline: jiffies at which the drain wait ends (under &smclo_ctl.lock)
 * @drain_grace_end: jiffies before which the drain does not end early (same lock)
 * @drain_work: waits for link groups, then removes the device
 * @dev_ref_base: device references held by the driver and the driver core right after
 *	registration; anything above is held by others (SMC link groups)
 * @idx_map: bitmap of used DMB indexes, @set.max_dmbs bits
 * @ht_lock: serializes writers of @dmb_ht and DMB reference changes
 * @dmb_ht: DMBs by token
 * @dmbs: gauge, DMBs not yet freed
 * @dmb_bytes: gauge, their bytes
 * @attached: gauge, attachments not yet detached
 * @release_wq: woken when @dmbs drops to zero
 */
struct smclo_dev {
	struct dibs_dev *dibs;
	uuid_t gid;
	struct smclo_settings set;
	u32 generation;
	int state;
	bool removing;
	u32 drain_timeout_ms;
	unsigned long drain_deadline;
	unsigned long drain_grace_end;
	struct delayed_work drain_work;
	unsigned int dev_ref_base;
	unsigned long *idx_map;
	spinlock_t ht_lock; /* see kernel-doc above */
	DECLARE_HASHTABLE(dmb_ht, SMCLO_DMB_HASH_BITS);
	atomic_t dmbs;
	atomic64_t dmb_bytes;
	atomic_t attached;
	wait_queue_head_t release_wq;
};

/**
 * struct smclo_ctl - module-wide control state
 * @lock: protects @next, @dev, @busy, @generation and the drain fields of @dev; never
 *	held across DIBS calls (they may block for a long time)
 * @next: stored settings for the next activation
 * @dev: the registered device instance, or NULL
 * @busy: an activation is registering a device right now
 * @generation: activations so far
 * @exiting: module exit started; no notifications any more
 * @wq: runs the drain/remove work (ordered: one removal at a time)
 * @devname: DIBS device name
 */
struct smclo_ctl {
	struct mutex lock; /* see kernel-doc above */
	struct smclo_settings next;
	struct smclo_dev *dev;
	bool busy;
	u32 generation;
	bool exiting;
	struct workqueue_struct *wq;
	const char *devname;
};

extern struct smclo_ctl smclo_ctl;

/**
 * struct smclo_pcpu_stats - hot-path counters, per CPU
 * @moves: move_data calls
 * @move_bytes: bytes moved
 * @move_signals: calls with the signalling flag
 * @move_errors: refused calls
 */
struct smclo_pcpu_stats {
	u64 moves;
	u64 move_bytes;
	u64 move_signals;
	u64 move_errors;
};

/**
 * struct smclo_stats - totals since module load (see &enum smc_lo_counter_attr)
 * @pcpu: move_data counters
 * @registrations: successful register_dmb
 * @unregistrations: unregister_dmb that found the DMB
 * @alloc_failures: register_dmb failed with ENOMEM
 * @limit_rejects: register_dmb failed with ENOSPC
 * @attaches: successful attach_dmb
 * @detaches: successful detach_dmb
 * @activations: devices registered
 * @deactivations: devices removed
 * @drain_rejects: register_dmb refused because the device was draining
 */
struct smclo_stats {
	struct smclo_pcpu_stats __percpu *pcpu;
	atomic64_t registrations;
	atomic64_t unregistrations;
	atomic64_t alloc_failures;
	atomic64_t limit_rejects;
	atomic64_t attaches;
	atomic64_t detaches;
	atomic64_t activations;
	atomic64_t deactivations;
	atomic64_t drain_rejects;
};

extern struct smclo_stats smclo_stats;

/**
 * struct smclo_snapshot - a consistent-enough copy of the state for one reply
 * @state: &enum smc_lo_state
 * @has_dev: a device is registered; the fields below up to @pending are valid
 * @gid: its GID
 * @generation: its activation number
 * @active: its settings
 * @drain_timeout_ms: drain bound (draining only)
 * @drain_remaining_ms: time left of the drain wait (draining, not removing)
 * @removing: unregistering from DIBS
 * @next: stored settings
 * @pending: @next differs from @active
 * @dmbs: gauge
 * @dmb_bytes: gauge
 * @attached: gauge
 * @link_groups: gauge
 * @totals: cumulative counters, in &enum smc_lo_counter_attr order from
 *	%SMC_LO_C_REGISTRATIONS (index 0) to %SMC_LO_C_MAX
 */
struct smclo_snapshot {
	int state;
	bool has_dev;
	uuid_t gid;
	u32 generation;
	struct smclo_settings active;
	u32 drain_timeout_ms;
	u32 drain_remaining_ms;
	bool removing;
	struct smclo_settings next;
	bool pending;
	u32 dmbs;
	u64 dmb_bytes;
	u32 attached;
	u32 link_groups;
	u64 totals[SMC_LO_C_MAX - SMC_LO_C_REGISTRATIONS + 1];
};

/**
 * struct smclo_settings_req - a SET request; negative members are not to be changed
 * @dmb_type: &enum smc_lo_dmb_type or -1
 * @nocopy: 0, 1 or -1
 * @max_dmbs: new max DMBs or -1
 */
struct smclo_settings_req {
	int dmb_type;
	int nocopy;
	s64 max_dmbs;
};

/*
 * Virtually contiguous DMBs are unsafe with SMC-D (see smc_lo_main.c).  Only a build made
 * to prove that (make SMC_LO_UNSAFE_VIRT_DMB=1, never installed) accepts them.
 */
#ifdef SMC_LO_UNSAFE_VIRT_DMB
static inline bool smclo_unsafe_virt_allowed(void)
{
	return true;
}
#else
static inline bool smclo_unsafe_virt_allowed(void)
{
	return false;
}
#endif

/* smc_lo_dev.c */
extern int smclo_max_dmbs_live;
int smclo_activate(struct netlink_ext_ack *extack);
int smclo_deactivate(u32 timeout_ms, struct netlink_ext_ack *extack);
void smclo_remove_all(void);
int smclo_settings_update(const struct smclo_settings_req *req);
void smclo_snapshot_locked(struct smclo_snapshot *snap);
void smclo_snapshot(struct smclo_snapshot *snap);
u32 smclo_link_groups(struct smclo_dev *dev);
bool smclo_settings_equal(const struct smclo_settings *a, const struct smclo_settings *b);

/* smc_lo_dmb.c */
extern const struct dibs_dev_ops smclo_ops;
int smclo_stats_init(void);
void smclo_stats_exit(void);
void smclo_stats_read(u64 *totals);

/* smc_lo_genl.c */
int smclo_genl_init(void);
void smclo_genl_exit(void);
void smclo_notify_locked(enum smc_lo_event event);

#endif /* _SMC_LO_INT_H */
