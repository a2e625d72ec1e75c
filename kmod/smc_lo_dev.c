// SPDX-License-Identifier: GPL-2.0
/*
 * smc_lo: device lifecycle (activate, drain, remove) and state snapshots.
 *
 * One device instance (struct smclo_dev) exists per activation; a DIBS device cannot be
 * re-added after dibs_dev_del(), so every activation allocates a new one with a new GID.
 * At most one instance exists at a time: an activation is refused while the previous
 * instance is still being removed.  That also keeps the max_dmbs op, which has no device
 * argument, unambiguous (see smclo_max_dmbs_live).
 *
 * dibs_dev_del() can block for as long as applications keep aborted SMC sockets open,
 * while holding the DIBS-global mutexes.  It therefore only ever runs from the drain
 * work on the module's own workqueue, never from a netlink handler, never under
 * smclo_ctl.lock, and never from a sysfs callback of the device itself.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/device.h>
#include <linux/jiffies.h>
#include <linux/kref.h>
#include <linux/netlink.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "smc_lo_int.h"

/*
 * A drain never ends early before this (or its bound, if shorter): a client handshake
 * that picked the device just before draining started still reads SMC's device struct,
 * which SMC frees without a reference once the device is removed (KASAN saw a
 * use-after-free in smc_clc_send_proposal() with an immediate removal under traffic).
 */
#define SMCLO_DRAIN_GRACE_MS	500
/* How often the drain work looks at the link groups. */
#define SMCLO_DRAIN_POLL	msecs_to_jiffies(50)
/* How often a stuck removal says so in the kernel log. */
#define SMCLO_REMOVE_NAG	(30 * HZ)

/*
 * The max_dmbs op has no device argument and DIBS and SMC read it more than once per
 * device (dibs_dev_add, smcd_register_dev, dibs_unregister_client).  It returns this
 * value, which is only written while no device of ours is registered, i.e. it always
 * equals the registered instance's max_dmbs.
 */
int smclo_max_dmbs_live = SMC_LO_MAX_DMBS_DEFAULT;

bool smclo_settings_equal(const struct smclo_settings *a, const struct smclo_settings *b)
{
	return a->dmb_type == b->dmb_type && a->nocopy == b->nocopy &&
	       a->max_dmbs == b->max_dmbs;
}

static void smclo_drain_work(struct work_struct *work);

static struct smclo_dev *smclo_dev_alloc(const struct smclo_settings *set, u32 generation)
{
	struct smclo_dev *dev;

	/* The hash table makes this about 32 KiB. */
	dev = kvzalloc_obj(*dev, GFP_KERNEL);
	if (!dev)
		return NULL;
	dev->idx_map = bitmap_zalloc(set->max_dmbs, GFP_KERNEL);
	if (!dev->idx_map) {
		kvfree(dev);
		return NULL;
	}
	dev->set = *set;
	dev->generation = generation;
	dev->state = SMC_LO_STATE_INACTIVE;
	spin_lock_init(&dev->ht_lock);
	hash_init(dev->dmb_ht);
	init_waitqueue_head(&dev->release_wq);
	INIT_DELAYED_WORK(&dev->drain_work, smclo_drain_work);
	return dev;
}

static void smclo_dev_free(struct smclo_dev *dev)
{
	bitmap_free(dev->idx_map);
	kvfree(dev);
}

/* SMC treats a GID whose first 8 bytes are zero as "none"; a v4 UUID never is, but say so. */
static void smclo_gid_generate(uuid_t *gid)
{
	static const u8 zero[8];

	do {
		uuid_gen(gid);
	} while (!memcmp(gid->b, zero, sizeof(zero)));
}

u32 smclo_link_groups(struct smclo_dev *dev)
{
	unsigned int refs = kref_read(&dev->dibs->dev.kobj.kref);

	return refs > dev->dev_ref_base ? refs - dev->dev_ref_base : 0;
}

static int smclo_dev_register(struct smclo_dev *dev, struct netlink_ext_ack *extack)
{
	struct dibs_dev *dibs;
	int rc;

	dibs = dibs_dev_alloc();
	if (!dibs)
		return -ENOMEM;
	smclo_gid_generate(&dibs->gid);
	dev->gid = dibs->gid;
	dibs->ops = &smclo_ops;
	dibs->drv_priv = dev;
	dibs->dev.parent = NULL;
	rc = dev_set_name(&dibs->dev, "%s", smclo_ctl.devname);
	if (rc)
		goto err_put;

	WRITE_ONCE(smclo_max_dmbs_live, dev->set.max_dmbs);
	rc = dibs_dev_add(dibs);
	if (rc) {
		if (rc == -EEXIST)
			NL_SET_ERR_MSG(extack, "a DIBS device with this name exists already");
		else
			NL_SET_ERR_MSG(extack, "registering the DIBS device failed");
		goto err_put;
	}
	dev->dibs = dibs;
	/*
	 * Nobody can hold a link group yet: query_remote_gid refuses until the state is
	 * active, and a loopback link group is only created after the server accepted.
	 */
	dev->dev_ref_base = kref_read(&dibs->dev.kobj.kref);
	WRITE_ONCE(dev->state, SMC_LO_STATE_ACTIVE);
	return 0;

err_put:
	/* Pairs with dibs_dev_alloc(); dibs_dev_release() frees it. */
	put_device(&dibs->dev);
	return rc;
}

/**
 * smclo_activate() - register a new device with the stored settings
 * @extack: for error messages, may be NULL
 *
 * Context: process context, may sleep; takes smclo_ctl.lock.
 * Return: 0 if a device is registered and active (also if it was already),
 *	-EBUSY while another activation runs or the previous device is still being
 *	removed, or another negative errno.
 */
int smclo_activate(struct netlink_ext_ack *extack)
{
	struct smclo_settings set;
	struct smclo_dev *dev;
	u32 generation;
	int rc;

	mutex_lock(&smclo_ctl.lock);
	if (smclo_ctl.busy) {
		NL_SET_ERR_MSG(extack, "an activation is in progress");
		rc = -EBUSY;
		goto unlock;
	}
	if (smclo_ctl.dev) {
		rc = 0;
		if (READ_ONCE(smclo_ctl.dev->state) != SMC_LO_STATE_ACTIVE) {
			NL_SET_ERR_MSG(extack, "the previous device is still being removed");
			rc = -EBUSY;
		}
		goto unlock;
	}
	smclo_ctl.busy = true;
	set = smclo_ctl.next;
	generation = smclo_ctl.generation + 1;
	mutex_unlock(&smclo_ctl.lock);

	/* Not under the lock: dibs_dev_add() takes the DIBS-global mutexes. */
	dev = smclo_dev_alloc(&set, generation);
	rc = dev ? smclo_dev_register(dev, extack) : -ENOMEM;
	if (rc && dev) {
		smclo_dev_free(dev);
		dev = NULL;
	}

	mutex_lock(&smclo_ctl.lock);
	smclo_ctl.busy = false;
	if (!rc) {
		smclo_ctl.dev = dev;
		smclo_ctl.generation = generation;
		atomic64_inc(&smclo_stats.activations);
		pr_info("device %s activated (generation %u, GID %pUb, dmb_type %s, nocopy %d, max_dmbs %u)\n",
			smclo_ctl.devname, generation, &dev->gid,
			set.dmb_type == SMC_LO_DMB_VIRT ? "virtual" : "physical", set.nocopy,
			set.max_dmbs);
		smclo_notify_locked(SMC_LO_EVENT_ACTIVATED);
	}
unlock:
	mutex_unlock(&smclo_ctl.lock);
	return rc;
}

static void smclo_drain_start_locked(struct smclo_dev *dev, u32 timeout_ms)
{
	dev->drain_timeout_ms = timeout_ms;
	dev->drain_deadline = jiffies + msecs_to_jiffies(timeout_ms);
	dev->drain_grace_end = jiffies + msecs_to_jiffies(min(timeout_ms, SMCLO_DRAIN_GRACE_MS));
	WRITE_ONCE(dev->state, SMC_LO_STATE_DRAINING);
	queue_delayed_work(smclo_ctl.wq, &dev->drain_work, 0);
}

/**
 * smclo_deactivate() - start draining the registered device
 * @timeout_ms: how long to wait for link groups before removing the device anyway
 * @extack: for error messages, may be NULL
 *
 * Returns at once; the drain work removes the device and announces it.  While already
 * draining, a shorter timeout replaces the remaining wait.
 *
 * Context: process context; takes smclo_ctl.lock.
 * Return: 0 (also if nothing is registered), -EBUSY during an activation.
 */
int smclo_deactivate(u32 timeout_ms, struct netlink_ext_ack *extack)
{
	struct smclo_dev *dev;
	unsigned long deadline;
	int rc = 0;

	mutex_lock(&smclo_ctl.lock);
	dev = smclo_ctl.dev;
	if (smclo_ctl.busy) {
		NL_SET_ERR_MSG(extack, "an activation is in progress");
		rc = -EBUSY;
	} else if (!dev) {
		/* Nothing to do. */
	} else if (READ_ONCE(dev->state) == SMC_LO_STATE_ACTIVE) {
		smclo_drain_start_locked(dev, timeout_ms);
		pr_info("device %s draining (up to %u ms)\n", smclo_ctl.devname, timeout_ms);
		smclo_notify_locked(SMC_LO_EVENT_DRAINING);
	} else if (!dev->removing) {
		deadline = jiffies + msecs_to_jiffies(timeout_ms);
		if (time_before(deadline, dev->drain_deadline)) {
			dev->drain_timeout_ms = timeout_ms;
			dev->drain_deadline = deadline;
			if (time_before(deadline, dev->drain_grace_end))
				dev->drain_grace_end = deadline;
			mod_delayed_work(smclo_ctl.wq, &dev->drain_work, 0);
		}
	}
	mutex_unlock(&smclo_ctl.lock);
	return rc;
}

/*
 * Done waiting when the bound is reached, or - after a grace period of at most half a second,
 * see SMCLO_DRAIN_GRACE_MS - when no link group holds the device, or -
 * with nocopy, where every open SMC-D connection end holds exactly one attachment - when
 * no connection is open (SMC keeps an idle link group for 10 minutes after its last
 * connection closed; removing the device frees such link groups without aborting
 * anything).
 */
static bool smclo_drain_done(struct smclo_dev *dev)
{
	if (time_after_eq(jiffies, dev->drain_deadline))
		return true;
	if (time_before(jiffies, dev->drain_grace_end))
		return false;
	if (!smclo_link_groups(dev))
		return true;
	return dev->set.nocopy && !atomic_read(&dev->attached);
}

/* Unregister from DIBS and wait until SMC gave back every DMB.  May block for long. */
static void smclo_dev_remove(struct smclo_dev *dev)
{
	/*
	 * SMC's del_dev terminates the device's link groups (open connections get
	 * ECONNABORTED) and waits until all of them are freed, which for a connection
	 * needs its application to close the socket.
	 */
	dibs_dev_del(dev->dibs);
	while (!wait_event_timeout(dev->release_wq, !atomic_read(&dev->dmbs), SMCLO_REMOVE_NAG))
		pr_warn("device %s removed from DIBS but %d DMBs are not freed yet\n",
			smclo_ctl.devname, atomic_read(&dev->dmbs));
	/* The DMB free callbacks touch dev; let the last of them finish. */
	rcu_barrier();
}

static void smclo_drain_work(struct work_struct *work)
{
	struct smclo_dev *dev = container_of(to_delayed_work(work), struct smclo_dev,
					     drain_work);

	mutex_lock(&smclo_ctl.lock);
	if (!smclo_drain_done(dev)) {
		queue_delayed_work(smclo_ctl.wq, &dev->drain_work, SMCLO_DRAIN_POLL);
		mutex_unlock(&smclo_ctl.lock);
		return;
	}
	dev->removing = true;
	pr_info("device %s removing: %u link groups, %d DMBs, %d attachments left\n",
		smclo_ctl.devname, smclo_link_groups(dev), atomic_read(&dev->dmbs),
		atomic_read(&dev->attached));
	smclo_notify_locked(SMC_LO_EVENT_REMOVING);
	mutex_unlock(&smclo_ctl.lock);

	smclo_dev_remove(dev);

	mutex_lock(&smclo_ctl.lock);
	smclo_ctl.dev = NULL;
	atomic64_inc(&smclo_stats.deactivations);
	pr_info("device %s deactivated (generation %u)\n", smclo_ctl.devname, dev->generation);
	smclo_notify_locked(SMC_LO_EVENT_DEACTIVATED);
	mutex_unlock(&smclo_ctl.lock);

	/* Nobody can reach dev any more; SMC may still hold dibs references (harmless). */
	put_device(&dev->dibs->dev);
	smclo_dev_free(dev);
}

/**
 * smclo_remove_all() - remove the device at module exit
 *
 * Module exit only runs when no DMB pins the module, so no connection can hold the
 * device and the removal does not block.
 */
void smclo_remove_all(void)
{
	struct smclo_dev *dev;

	mutex_lock(&smclo_ctl.lock);
	dev = smclo_ctl.dev;
	if (dev && READ_ONCE(dev->state) == SMC_LO_STATE_ACTIVE) {
		smclo_drain_start_locked(dev, 0);
	} else if (dev && !dev->removing) {
		dev->drain_deadline = jiffies;
		dev->drain_grace_end = jiffies;
		mod_delayed_work(smclo_ctl.wq, &dev->drain_work, 0);
	}
	mutex_unlock(&smclo_ctl.lock);
	/* The drain work does not re-arm itself once the deadline has passed. */
	flush_workqueue(smclo_ctl.wq);
	WARN_ON(smclo_ctl.dev);
}

/**
 * smclo_settings_update() - store new settings for the next activation
 * @req: the new values; negative members are left unchanged
 *
 * Context: process context; takes smclo_ctl.lock.
 * Return: &enum smc_lo_apply.
 */
int smclo_settings_update(const struct smclo_settings_req *req)
{
	struct smclo_settings old;
	int apply = SMC_LO_APPLY_NOW;

	mutex_lock(&smclo_ctl.lock);
	old = smclo_ctl.next;
	if (req->dmb_type >= 0)
		smclo_ctl.next.dmb_type = req->dmb_type;
	if (req->nocopy >= 0)
		smclo_ctl.next.nocopy = req->nocopy;
	if (req->max_dmbs > 0)
		smclo_ctl.next.max_dmbs = req->max_dmbs;
	if (smclo_ctl.dev && !smclo_settings_equal(&smclo_ctl.next, &smclo_ctl.dev->set))
		apply = SMC_LO_APPLY_NEXT_ACTIVATION;
	if (!smclo_settings_equal(&old, &smclo_ctl.next))
		smclo_notify_locked(SMC_LO_EVENT_SETTINGS);
	mutex_unlock(&smclo_ctl.lock);
	return apply;
}

/**
 * smclo_snapshot_locked() - copy what a reply or notification reports
 * @snap: filled in
 *
 * Context: smclo_ctl.lock held, which keeps smclo_ctl.dev and its DIBS device alive.
 */
void smclo_snapshot_locked(struct smclo_snapshot *snap)
{
	struct smclo_dev *dev = smclo_ctl.dev;
	long left;

	lockdep_assert_held(&smclo_ctl.lock);
	memset(snap, 0, sizeof(*snap));
	snap->next = smclo_ctl.next;
	smclo_stats_read(snap->totals);
	snap->state = SMC_LO_STATE_INACTIVE;
	if (!dev)
		return;

	snap->has_dev = true;
	snap->state = READ_ONCE(dev->state);
	snap->gid = dev->gid;
	snap->generation = dev->generation;
	snap->active = dev->set;
	snap->pending = !smclo_settings_equal(&snap->next, &dev->set);
	snap->dmbs = atomic_read(&dev->dmbs);
	snap->dmb_bytes = atomic64_read(&dev->dmb_bytes);
	snap->attached = atomic_read(&dev->attached);
	snap->link_groups = smclo_link_groups(dev);
	if (snap->state != SMC_LO_STATE_DRAINING)
		return;
	snap->drain_timeout_ms = dev->drain_timeout_ms;
	snap->removing = dev->removing;
	left = (long)(dev->drain_deadline - jiffies);
	if (!dev->removing && left > 0)
		snap->drain_remaining_ms = jiffies_to_msecs(left);
}

void smclo_snapshot(struct smclo_snapshot *snap)
{
	mutex_lock(&smclo_ctl.lock);
	smclo_snapshot_locked(snap);
	mutex_unlock(&smclo_ctl.lock);
}
