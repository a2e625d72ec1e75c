// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The dry-run kernel (plan.c): reads go to the kernel below, writes never do.  Each write
 * is counted and answered as if it had succeeded, with the state the caller would then
 * see where the caller reads the answer (the smc_lo device after SET, ACTIVATE and the
 * deactivation), so the loopback reconciler, which plans and applies in one pass
 * (loopback.c), runs unchanged and reports what it would do.  The pure planners of
 * reconcile.c and policy-plan.c need no such help; this table is what makes sure that no
 * apply path reaches the kernel in a plan whatever it calls: there is no pointer to the
 * real kernel's write operations in it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "smcd-agent/plan.h"

struct kernel_dryrun {
	struct kernel base;
	struct kernel *inner; /* not owned */
	unsigned writes;
	const char *why; /* the last refused read's reason (extack), else NULL */
};

static struct kernel *inner(struct kernel *k)
{
	return ((struct kernel_dryrun *)k)->inner;
}

static int wrote(struct kernel *k)
{
	((struct kernel_dryrun *)k)->writes++;
	return 0;
}

unsigned kernel_dryrun_writes(struct kernel *k)
{
	return ((struct kernel_dryrun *)k)->writes;
}

/* ---- reads: the kernel below ------------------------------------------------------------ */

#define READ_OP(name, params, args)                      \
	static int dr_##name params                      \
	{                                                \
		struct kernel *i = inner(k);             \
		((struct kernel_dryrun *)k)->why = NULL; \
		return i->ops->name args;                \
	}

READ_OP(caps, (struct kernel * k, struct smc_caps *ret), (i, ret))
READ_OP(module_loaded, (struct kernel * k, const char *name), (i, name))
READ_OP(ueid_list, (struct kernel * k, char ret[SMC_UEID_MAX][SMC_EID_LEN + 1], size_t *ret_n),
	(i, ret, ret_n))
READ_OP(seid_get, (struct kernel * k, struct smc_seid *ret), (i, ret))
READ_OP(hs_get, (struct kernel * k, bool *ret), (i, ret))
READ_OP(sysctl_get, (struct kernel * k, const char *name, char *buf, size_t len), (i, name, buf, len))
READ_OP(pnet_list, (struct kernel * k, struct smc_pnet_entry **ret, size_t *ret_n), (i, ret, ret_n))
READ_OP(smcd_devices, (struct kernel * k, struct smcd_device **ret, size_t *ret_n), (i, ret, ret_n))
READ_OP(smcr_devices, (struct kernel * k, struct smcr_device **ret, size_t *ret_n), (i, ret, ret_n))
READ_OP(smcd_linkgroups, (struct kernel * k, struct smcd_linkgroup **ret, size_t *ret_n),
	(i, ret, ret_n))
READ_OP(smcr_linkgroups, (struct kernel * k, struct smcr_linkgroup **ret, size_t *ret_n),
	(i, ret, ret_n))
READ_OP(stats, (struct kernel * k, struct smc_stats *ret), (i, ret))
READ_OP(fback_stats, (struct kernel * k, struct smc_fback_stats *ret), (i, ret))
READ_OP(sockets, (struct kernel * k, smc_socket_fn fn, void *userdata), (i, fn, userdata))

/*
 * smc_lo's device, read only where smc_lo is loaded: resolving its netlink family loads the
 * module where it is installed (MODULE_ALIAS_GENL_FAMILY), and a plan loads nothing.  So a
 * plan that "loads" smc_lo cannot see its device: the loopback items then say so (failed,
 * exit status 3: plan again once it is loaded).
 */
static int smclo_read(struct kernel *k, struct smclo_device *ret)
{
	struct kernel_dryrun *d = (struct kernel_dryrun *)k;
	int r = d->inner->ops->module_loaded(d->inner, "smc_lo");

	d->why = NULL;
	if (r < 0)
		return r;
	if (r == 0) {
		d->why = "smc_lo is not loaded, and a plan loads nothing: its device is planned once it is loaded";
		return -ENOPKG;
	}
	return d->inner->ops->smclo_get(d->inner, ret);
}

static int dr_smclo_get(struct kernel *k, struct smclo_device *ret)
{
	return smclo_read(k, ret);
}

static const char *dr_extack(struct kernel *k)
{
	struct kernel_dryrun *d = (struct kernel_dryrun *)k;

	return d->why ? d->why : d->inner->ops->extack(d->inner);
}

/* ---- writes: counted, never sent --------------------------------------------------------- */

static int dr_module_load(struct kernel *k, const char *name, char *msg, size_t len)
{
	return wrote(k);
}

static int dr_ueid(struct kernel *k, const char *ueid)
{
	return wrote(k);
}

static int dr_none(struct kernel *k)
{
	return wrote(k);
}

static int dr_bool(struct kernel *k, bool enable)
{
	return wrote(k);
}

static int dr_sysctl_set(struct kernel *k, const char *name, const char *value)
{
	return wrote(k);
}

static int dr_pnet_add(struct kernel *k, const struct smc_pnet_entry *e)
{
	return wrote(k);
}

static int dr_pnet_del(struct kernel *k, const char *pnetid)
{
	return wrote(k);
}

/* The device as it is, then as the write would leave it. */
static int dr_smclo_activate(struct kernel *k, struct smclo_device *ret, bool *ret_changed)
{
	int r = smclo_read(k, ret);

	if (r < 0)
		return r;
	if (ret_changed)
		*ret_changed = ret->state != SMCLO_STATE_ACTIVE;
	if (ret->state != SMCLO_STATE_ACTIVE) {
		ret->state = SMCLO_STATE_ACTIVE;
		ret->active = ret->settings;
		ret->generation++;
	}
	return wrote(k);
}

static int dr_smclo_shutdown(struct kernel *k, uint32_t drain_ms, uint32_t removal_ms,
			     struct smclo_shutdown_result *res)
{
	int r;

	memset(res, 0, sizeof(*res));
	r = smclo_read(k, &res->last);
	if (r < 0)
		return r;
	res->was_active = res->last.state != SMCLO_STATE_INACTIVE;
	res->removed = true;
	res->last.state = SMCLO_STATE_INACTIVE;
	res->last.removing = false;
	return wrote(k);
}

static int dr_smclo_set(struct kernel *k, const struct smclo_set_request *q, struct smclo_device *ret)
{
	int r = smclo_read(k, ret);

	if (r < 0)
		return r;
	if (q->set_dmb_type)
		ret->settings.dmb_type = q->dmb_type;
	if (q->set_nocopy)
		ret->settings.nocopy = q->nocopy;
	if (q->set_max_dmbs)
		ret->settings.max_dmbs = q->max_dmbs;
	return wrote(k);
}

static int dr_smclo_monitor(struct kernel *k, struct smclo_monitor **ret)
{
	return -EOPNOTSUPP;
}

static void dr_free(struct kernel *k)
{
	free(k);
}

static const struct kernel_ops dryrun_ops = {
	.caps = dr_caps,
	.module_loaded = dr_module_loaded,
	.module_load = dr_module_load,
	.ueid_list = dr_ueid_list,
	.ueid_add = dr_ueid,
	.ueid_del = dr_ueid,
	.ueid_flush = dr_none,
	.seid_get = dr_seid_get,
	.seid_set = dr_bool,
	.hs_get = dr_hs_get,
	.hs_set = dr_bool,
	.sysctl_get = dr_sysctl_get,
	.sysctl_set = dr_sysctl_set,
	.pnet_list = dr_pnet_list,
	.pnet_add = dr_pnet_add,
	.pnet_del = dr_pnet_del,
	.pnet_flush = dr_none,
	.smcd_devices = dr_smcd_devices,
	.smcr_devices = dr_smcr_devices,
	.smcd_linkgroups = dr_smcd_linkgroups,
	.smcr_linkgroups = dr_smcr_linkgroups,
	.stats = dr_stats,
	.fback_stats = dr_fback_stats,
	.sockets = dr_sockets,
	.extack = dr_extack,
	.smclo_get = dr_smclo_get,
	.smclo_activate = dr_smclo_activate,
	.smclo_shutdown = dr_smclo_shutdown,
	.smclo_set = dr_smclo_set,
	.smclo_monitor = dr_smclo_monitor,
	.free = dr_free,
};

int kernel_dryrun_new(struct kernel *below, struct kernel **ret)
{
	struct kernel_dryrun *k = calloc(1, sizeof(*k));

	if (!k)
		return -ENOMEM;
	k->base.ops = &dryrun_ops;
	k->inner = below;
	*ret = &k->base;
	return 0;
}
