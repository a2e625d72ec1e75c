// SPDX-License-Identifier: GPL-2.0
/*
 * smc_lo: the DIBS device ops (identity, DMBs, move_data) and the counters.
 *
 * Locking:
 *  - move_data() is the hot path and runs in process and softirq (tasklet) context.  It
 *    finds the DMB under rcu_read_lock() and never sleeps or takes a lock, except
 *    dibs->lock (irqsave) to raise the receiver's handle_irq when asked to signal.
 *  - register/unregister/attach/detach (process context) serialize on dev->ht_lock.
 *  - A DMB holds one reference for its registration and one per attachment.  The last
 *    put unhashes it and frees memory, index and node after an RCU grace period, so a
 *    concurrent move_data() never writes into freed memory.
 *  - dibs->dmb_clientid_arr[idx] is set under dibs->lock before the DMB is visible and
 *    reset to NO_DIBS_CLIENT by unregister (the client gave the DMB up; attachments may
 *    keep the memory, but nothing must be signalled to the client any more).  The index
 *    is reused only after the final free.
 *  - Every DMB pins the module (try_module_get), so rmmod is refused with "in use" while
 *    SMC holds DMBs instead of blocking in dibs_dev_del().
 */
#include <linux/bitops.h>
#include <linux/dibs.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "smc_lo_int.h"

/* DMB memory is one folio, so one allocation is at most this long. */
#define SMCLO_DMB_MAX_LEN	(PAGE_SIZE << MAX_PAGE_ORDER)
/* Never 0: SMC skips unregister_dmb for a DMB with dma_addr 0. */
#define SMCLO_DMA_ADDR_INVALID	(~(dma_addr_t)0)

struct smclo_stats smclo_stats;

/*
 * Physically contiguous, page-backed, compound, zeroed: SMC-D takes virt_to_page() of the
 * DMB and gives that page with offsets across the whole buffer to splice().  Failure is
 * not critical (SMC retries smaller or falls back to TCP), hence no retries or warnings.
 */
static void *smclo_mem_alloc(u8 type, u32 len)
{
	struct folio *folio;

	if (type == SMC_LO_DMB_VIRT)
		return vzalloc(len);

	folio = folio_alloc(GFP_KERNEL | __GFP_NOWARN | __GFP_NOMEMALLOC | __GFP_NORETRY |
			    __GFP_ZERO, get_order(len));
	return folio ? folio_address(folio) : NULL;
}

static void smclo_mem_free(u8 type, void *addr)
{
	if (type == SMC_LO_DMB_VIRT)
		vfree(addr);
	else
		folio_put(virt_to_folio(addr));
}

static int smclo_idx_get(struct smclo_dev *dev)
{
	unsigned int idx;

	for_each_clear_bit(idx, dev->idx_map, dev->set.max_dmbs) {
		if (!test_and_set_bit(idx, dev->idx_map))
			return idx;
	}
	return -ENOSPC;
}

static struct smclo_dmb *smclo_dmb_find_rcu(struct smclo_dev *dev, u64 token)
{
	struct smclo_dmb *dmb;

	hash_for_each_possible_rcu(dev->dmb_ht, dmb, node, token) {
		if (dmb->token == token)
			return dmb;
	}
	return NULL;
}

static struct smclo_dmb *smclo_dmb_find_locked(struct smclo_dev *dev, u64 token)
{
	struct smclo_dmb *dmb;

	lockdep_assert_held(&dev->ht_lock);
	hash_for_each_possible(dev->dmb_ht, dmb, node, token) {
		if (dmb->token == token)
			return dmb;
	}
	return NULL;
}

static void smclo_dmb_free_rcu(struct rcu_head *head)
{
	struct smclo_dmb *dmb = container_of(head, struct smclo_dmb, rcu);
	struct smclo_dev *dev = dmb->dev;

	smclo_mem_free(dmb->type, dmb->cpu_addr);
	clear_bit(dmb->idx, dev->idx_map);
	atomic64_sub(dmb->len, &dev->dmb_bytes);
	kfree(dmb);
	/*
	 * The removal path waits for dmbs == 0 and then rcu_barrier(), so dev stays valid
	 * until this callback has returned.
	 */
	if (atomic_dec_and_test(&dev->dmbs))
		wake_up(&dev->release_wq);
	module_put(THIS_MODULE);
}

/* Drop one reference; the caller holds ht_lock and calls smclo_dmb_release() after. */
static bool smclo_dmb_put_locked(struct smclo_dmb *dmb)
{
	if (!refcount_dec_and_test(&dmb->refs))
		return false;
	hash_del_rcu(&dmb->node);
	return true;
}

static void smclo_dmb_release(struct smclo_dmb *dmb)
{
	call_rcu(&dmb->rcu, smclo_dmb_free_rcu);
}

static void smclo_set_client(struct dibs_dev *dibs, u32 idx, u8 client_id)
{
	unsigned long flags;

	spin_lock_irqsave(&dibs->lock, flags);
	dibs->dmb_clientid_arr[idx] = client_id;
	spin_unlock_irqrestore(&dibs->lock, flags);
}

static void smclo_dmb_hash(struct smclo_dev *dev, struct smclo_dmb *dmb)
{
	spin_lock_bh(&dev->ht_lock);
	do {
		dmb->token = get_random_u64();
	} while (!dmb->token || smclo_dmb_find_locked(dev, dmb->token));
	hash_add_rcu(dev->dmb_ht, &dmb->node, dmb->token);
	spin_unlock_bh(&dev->ht_lock);
}

static struct smclo_dmb *smclo_dmb_create(struct smclo_dev *dev, u32 len, int idx)
{
	struct smclo_dmb *dmb;

	dmb = kzalloc_obj(*dmb, GFP_KERNEL);
	if (!dmb)
		return NULL;
	/* Only a test build can ever get here with SMC_LO_DMB_VIRT (see smc_lo_main.c). */
	dmb->type = smclo_unsafe_virt_allowed() ? dev->set.dmb_type : SMC_LO_DMB_PHYS;
	dmb->cpu_addr = smclo_mem_alloc(dmb->type, len);
	if (!dmb->cpu_addr) {
		kfree(dmb);
		return NULL;
	}
	dmb->dev = dev;
	dmb->len = len;
	dmb->idx = idx;
	refcount_set(&dmb->refs, 1);
	dmb->registered = true;
	return dmb;
}

/*
 * A requested index (dmb->idx on input) is ignored, like the built-in loopback device
 * does: SMC only passes the index of a fresh descriptor, which is 0.
 */
static int smclo_register_dmb(struct dibs_dev *dibs, struct dibs_dmb *dmb,
			      struct dibs_client *client)
{
	struct smclo_dev *dev = dibs->drv_priv;
	struct smclo_dmb *node;
	int idx, rc;

	if (!dmb->dmb_len || dmb->dmb_len > SMCLO_DMB_MAX_LEN)
		return -EINVAL;
	/*
	 * A draining device takes no new DMBs.  Besides "no new connections", this closes a
	 * race in SMC (7.3): a handshake that picked the device before smcd_unregister_dev()
	 * marked it going away can still create a link group after smc_smcd_terminate_all()
	 * collected the device's link groups; that one is never terminated, and the removal
	 * then waits for its 10-minute idle timeout (or forever, while its connection stays
	 * open).  A link group is created before its first DMB, so refusing the DMB makes SMC
	 * abort the handshake and free that link group at once (smc_lgr_cleanup_early()).
	 */
	if (READ_ONCE(dev->state) != SMC_LO_STATE_ACTIVE) {
		atomic64_inc(&smclo_stats.drain_rejects);
		return -ENODEV;
	}
	if (!try_module_get(THIS_MODULE))
		return -ENODEV;

	idx = smclo_idx_get(dev);
	if (idx < 0) {
		atomic64_inc(&smclo_stats.limit_rejects);
		rc = -ENOSPC;
		goto err_module;
	}
	node = smclo_dmb_create(dev, dmb->dmb_len, idx);
	if (!node) {
		atomic64_inc(&smclo_stats.alloc_failures);
		rc = -ENOMEM;
		goto err_idx;
	}

	atomic_inc(&dev->dmbs);
	atomic64_add(node->len, &dev->dmb_bytes);
	smclo_set_client(dibs, idx, client->id);
	smclo_dmb_hash(dev, node);

	dmb->idx = idx;
	dmb->dmb_tok = node->token;
	dmb->cpu_addr = node->cpu_addr;
	dmb->dma_addr = SMCLO_DMA_ADDR_INVALID;
	atomic64_inc(&smclo_stats.registrations);
	return 0;

err_idx:
	clear_bit(idx, dev->idx_map);
err_module:
	module_put(THIS_MODULE);
	return rc;
}

static int smclo_unregister_dmb(struct dibs_dev *dibs, struct dibs_dmb *dmb)
{
	struct smclo_dev *dev = dibs->drv_priv;
	struct smclo_dmb *node;
	bool last;
	u32 idx;

	spin_lock_bh(&dev->ht_lock);
	node = smclo_dmb_find_locked(dev, dmb->dmb_tok);
	if (!node || !node->registered) {
		spin_unlock_bh(&dev->ht_lock);
		return -EINVAL;
	}
	node->registered = false;
	idx = node->idx;
	last = smclo_dmb_put_locked(node);
	spin_unlock_bh(&dev->ht_lock);

	/* The index stays allocated until the final free, so this cannot hit a new DMB. */
	smclo_set_client(dibs, idx, NO_DIBS_CLIENT);
	atomic64_inc(&smclo_stats.unregistrations);
	if (last)
		smclo_dmb_release(node);
	return 0;
}

static void smclo_signal(struct dibs_dev *dibs, u32 sba_idx, unsigned int idx)
{
	struct dibs_client *client = NULL;
	unsigned long flags;
	u8 client_id;

	spin_lock_irqsave(&dibs->lock, flags);
	client_id = dibs->dmb_clientid_arr[sba_idx];
	if (likely(client_id < MAX_DIBS_CLIENTS))
		client = dibs->subs[client_id];
	if (likely(client))
		client->ops->handle_irq(dibs, sba_idx, ror16(0x1000, idx));
	spin_unlock_irqrestore(&dibs->lock, flags);
}

/* Process or softirq context: must not sleep. */
static int smclo_move_data(struct dibs_dev *dibs, u64 dmb_tok, unsigned int idx, bool sf,
			   unsigned int offset, void *data, unsigned int size)
{
	struct smclo_dev *dev = dibs->drv_priv;
	struct smclo_dmb *dmb;
	u32 sba_idx;

	rcu_read_lock();
	dmb = smclo_dmb_find_rcu(dev, dmb_tok);
	if (unlikely(!dmb || (u64)offset + size > dmb->len)) {
		rcu_read_unlock();
		this_cpu_inc(smclo_stats.pcpu->move_errors);
		return -EINVAL;
	}
	memcpy((u8 *)dmb->cpu_addr + offset, data, size);
	sba_idx = dmb->idx;
	rcu_read_unlock();

	this_cpu_inc(smclo_stats.pcpu->moves);
	this_cpu_add(smclo_stats.pcpu->move_bytes, size);
	if (sf) {
		this_cpu_inc(smclo_stats.pcpu->move_signals);
		smclo_signal(dibs, sba_idx, idx);
	}
	return 0;
}

/* Fixed for the lifetime of the device: SMC re-reads it at every CDC message. */
static int smclo_support_mmapped_rdmb(struct dibs_dev *dibs)
{
	struct smclo_dev *dev = dibs->drv_priv;

	return dev->set.nocopy;
}

static int smclo_attach_dmb(struct dibs_dev *dibs, struct dibs_dmb *dmb)
{
	struct smclo_dev *dev = dibs->drv_priv;
	struct smclo_dmb *node;

	if (!dev->set.nocopy)
		return -EOPNOTSUPP;

	spin_lock_bh(&dev->ht_lock);
	node = smclo_dmb_find_locked(dev, dmb->dmb_tok);
	if (!node || !node->registered) {
		spin_unlock_bh(&dev->ht_lock);
		return -EINVAL;
	}
	refcount_inc(&node->refs);
	node->attaches++;
	dmb->idx = node->idx;
	dmb->cpu_addr = node->cpu_addr;
	dmb->dma_addr = SMCLO_DMA_ADDR_INVALID;
	dmb->dmb_len = node->len;
	spin_unlock_bh(&dev->ht_lock);

	atomic_inc(&dev->attached);
	atomic64_inc(&smclo_stats.attaches);
	return 0;
}

static int smclo_detach_dmb(struct dibs_dev *dibs, u64 token)
{
	struct smclo_dev *dev = dibs->drv_priv;
	struct smclo_dmb *node;
	bool last;

	spin_lock_bh(&dev->ht_lock);
	node = smclo_dmb_find_locked(dev, token);
	if (!node || !node->attaches) {
		spin_unlock_bh(&dev->ht_lock);
		return -EINVAL;
	}
	node->attaches--;
	last = smclo_dmb_put_locked(node);
	spin_unlock_bh(&dev->ht_lock);

	atomic_dec(&dev->attached);
	atomic64_inc(&smclo_stats.detaches);
	if (last)
		smclo_dmb_release(node);
	return 0;
}

static u16 smclo_get_fabric_id(struct dibs_dev *dibs)
{
	return DIBS_LOOPBACK_FABRIC;
}

/*
 * The server side of SMC picks the local device for a proposed (fabric, GID) with this.
 * A draining device answers "unreachable", so new connections decline and use TCP.
 */
static int smclo_query_remote_gid(struct dibs_dev *dibs, const uuid_t *rgid, u32 vid_valid,
				  u32 vid)
{
	struct smclo_dev *dev = dibs->drv_priv;

	if (READ_ONCE(dev->state) != SMC_LO_STATE_ACTIVE)
		return -ENETUNREACH;
	return uuid_equal(rgid, &dibs->gid) ? 0 : -ENETUNREACH;
}

/* No device argument; see smclo_max_dmbs_live in smc_lo_dev.c. */
static int smclo_max_dmbs(void)
{
	return READ_ONCE(smclo_max_dmbs_live);
}

const struct dibs_dev_ops smclo_ops = {
	.get_fabric_id = smclo_get_fabric_id,
	.query_remote_gid = smclo_query_remote_gid,
	.max_dmbs = smclo_max_dmbs,
	.register_dmb = smclo_register_dmb,
	.unregister_dmb = smclo_unregister_dmb,
	.move_data = smclo_move_data,
	.support_mmapped_rdmb = smclo_support_mmapped_rdmb,
	.attach_dmb = smclo_attach_dmb,
	.detach_dmb = smclo_detach_dmb,
};

int smclo_stats_init(void)
{
	smclo_stats.pcpu = alloc_percpu(struct smclo_pcpu_stats);
	return smclo_stats.pcpu ? 0 : -ENOMEM;
}

void smclo_stats_exit(void)
{
	free_percpu(smclo_stats.pcpu);
}

/* Fill totals[] in enum smc_lo_counter_attr order from SMC_LO_C_REGISTRATIONS. */
void smclo_stats_read(u64 *totals)
{
	struct smclo_pcpu_stats sum = {};
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct smclo_pcpu_stats *s = per_cpu_ptr(smclo_stats.pcpu, cpu);

		sum.moves += READ_ONCE(s->moves);
		sum.move_bytes += READ_ONCE(s->move_bytes);
		sum.move_signals += READ_ONCE(s->move_signals);
		sum.move_errors += READ_ONCE(s->move_errors);
	}
#define SMCLO_T(attr) totals[(attr) - SMC_LO_C_REGISTRATIONS]
	SMCLO_T(SMC_LO_C_REGISTRATIONS) = atomic64_read(&smclo_stats.registrations);
	SMCLO_T(SMC_LO_C_UNREGISTRATIONS) = atomic64_read(&smclo_stats.unregistrations);
	SMCLO_T(SMC_LO_C_ALLOC_FAILURES) = atomic64_read(&smclo_stats.alloc_failures);
	SMCLO_T(SMC_LO_C_LIMIT_REJECTS) = atomic64_read(&smclo_stats.limit_rejects);
	SMCLO_T(SMC_LO_C_MOVES) = sum.moves;
	SMCLO_T(SMC_LO_C_MOVE_BYTES) = sum.move_bytes;
	SMCLO_T(SMC_LO_C_MOVE_SIGNALS) = sum.move_signals;
	SMCLO_T(SMC_LO_C_MOVE_ERRORS) = sum.move_errors;
	SMCLO_T(SMC_LO_C_ATTACHES) = atomic64_read(&smclo_stats.attaches);
	SMCLO_T(SMC_LO_C_DETACHES) = atomic64_read(&smclo_stats.detaches);
	SMCLO_T(SMC_LO_C_ACTIVATIONS) = atomic64_read(&smclo_stats.activations);
	SMCLO_T(SMC_LO_C_DEACTIVATIONS) = atomic64_read(&smclo_stats.deactivations);
	SMCLO_T(SMC_LO_C_DRAIN_REJECTS) = atomic64_read(&smclo_stats.drain_rejects);
#undef SMCLO_T
}
