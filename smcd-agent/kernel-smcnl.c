// SPDX-License-Identifier: GPL-2.0-or-later
/* The real kernel: libsmcnl for SMC, libkmod for modules. */
#include <errno.h>
#include <libkmod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/macro.h"
#include "smcd-agent/kernel.h"
#ifdef HAVE_BPF
#include "bpf/smcbpf.h"
#endif

struct kernel_smcnl {
	struct kernel base;
	struct smcnl *nl;
	struct kmod_ctx *kmod;
	char *sysroot;
};

#define NL(k) (((struct kernel_smcnl *)(k))->nl)

static int ks_caps(struct kernel *k, struct smc_caps *ret)
{
	return smc_caps_probe(NL(k), ret);
}

static struct kmod_ctx *ks_kmod(struct kernel_smcnl *ks)
{
	if (!ks->kmod) {
		ks->kmod = kmod_new(NULL, NULL);
		if (ks->kmod)
			(void)kmod_load_resources(ks->kmod);
	}
	return ks->kmod;
}

/* /sys/module/NAME/initstate says "going": rmmod is removing it. */
static bool ks_module_going(const char *dir)
{
	char path[600], state[16] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/initstate", dir);
	f = fopen(path, "re");
	if (!f)
		return false; /* built in (no initstate) */
	if (!fgets(state, sizeof(state), f))
		state[0] = '\0';
	fclose(f);
	return strncmp(state, "going", 5) == 0;
}

/*
 * Loaded, or built in.  Built-in modules often have no /sys/module/NAME (only those with
 * parameters or a version get one), so ask libkmod, which also reads modules.builtin.
 * A module being removed is not loaded: rmmod marks it "going" before its exit function
 * runs, and smc_lo's unregisters the family there, which the agent hears at once; reading
 * the device then would resolve the family and make the kernel load smc_lo again
 * (request_module) as soon as the old one is gone.
 */
static int ks_module_loaded(struct kernel *k, const char *name)
{
	struct kernel_smcnl *ks = (struct kernel_smcnl *)k;
	struct kmod_list *list = NULL, *it;
	char path[512];
	bool found = false;

	snprintf(path, sizeof(path), "%s/sys/module/%s", ks->sysroot ? ks->sysroot : "", name);
	if (access(path, F_OK) == 0)
		return !ks_module_going(path);
	if (ks->sysroot || !ks_kmod(ks) || kmod_module_new_from_lookup(ks->kmod, name, &list) < 0)
		return 0;
	kmod_list_foreach(it, list) {
		struct kmod_module *mod = kmod_module_get_module(it);
		int state = kmod_module_get_initstate(mod);

		found |= state == KMOD_MODULE_BUILTIN || state == KMOD_MODULE_LIVE ||
			 state == KMOD_MODULE_COMING;
		kmod_module_unref(mod);
	}
	kmod_module_unref_list(list);
	return found;
}

static int ks_module_load(struct kernel *k, const char *name, char *msg, size_t len)
{
	struct kernel_smcnl *ks = (struct kernel_smcnl *)k;
	struct kmod_list *list = NULL, *it;
	int r;

	if (!ks_kmod(ks)) {
		snprintf(msg, len, "cannot initialise libkmod");
		return -ENOMEM;
	}
	r = kmod_module_new_from_lookup(ks->kmod, name, &list);
	if (r < 0) {
		snprintf(msg, len, "module lookup failed: %s", strerror(-r));
		return r;
	}
	if (!list) {
		snprintf(msg, len,
			 "no module %s for this kernel (not built, or not installed under /lib/modules)",
			 name);
		return -ENOENT;
	}
	kmod_list_foreach(it, list) {
		struct kmod_module *mod = kmod_module_get_module(it);

		r = kmod_module_probe_insert_module(mod, KMOD_PROBE_APPLY_BLACKLIST, NULL, NULL,
						    NULL, NULL);
		if (r > 0) {
			snprintf(msg, len, "module %s is blacklisted", name);
			r = -EPERM;
		} else if (r < 0)
			snprintf(msg, len, "loading %s failed: %s", name, strerror(-r));
		kmod_module_unref(mod);
		if (r < 0)
			break;
	}
	kmod_module_unref_list(list);
	return r;
}

static int ks_ueid_list(struct kernel *k, char ret[SMC_UEID_MAX][SMC_EID_LEN + 1], size_t *ret_n)
{
	return smc_ueid_list(NL(k), ret, ret_n);
}

static int ks_ueid_add(struct kernel *k, const char *ueid)
{
	return smc_ueid_add(NL(k), ueid);
}

static int ks_ueid_del(struct kernel *k, const char *ueid)
{
	return smc_ueid_del(NL(k), ueid);
}

static int ks_ueid_flush(struct kernel *k)
{
	return smc_ueid_flush(NL(k));
}

static int ks_seid_get(struct kernel *k, struct smc_seid *ret)
{
	return smc_seid_get(NL(k), ret);
}

static int ks_seid_set(struct kernel *k, bool enable)
{
	return smc_seid_set(NL(k), enable);
}

static int ks_hs_get(struct kernel *k, bool *ret)
{
	return smc_hs_limitation_get(NL(k), ret);
}

static int ks_hs_set(struct kernel *k, bool enable)
{
	return smc_hs_limitation_set(NL(k), enable);
}

static int ks_sysctl_get(struct kernel *k, const char *name, char *buf, size_t len)
{
	return smc_sysctl_get(NL(k), name, buf, len);
}

static int ks_sysctl_set(struct kernel *k, const char *name, const char *value)
{
	return smc_sysctl_set(NL(k), name, value);
}

static int ks_pnet_list(struct kernel *k, struct smc_pnet_entry **ret, size_t *ret_n)
{
	return smc_pnet_list(NL(k), NULL, ret, ret_n);
}

static int ks_pnet_add(struct kernel *k, const struct smc_pnet_entry *e)
{
	return smc_pnet_add(NL(k), e);
}

static int ks_pnet_del(struct kernel *k, const char *pnetid)
{
	return smc_pnet_del(NL(k), pnetid);
}

static int ks_pnet_flush(struct kernel *k)
{
	return smc_pnet_flush(NL(k));
}

static int ks_smcd_devices(struct kernel *k, struct smcd_device **ret, size_t *ret_n)
{
	return smcd_device_list(NL(k), ret, ret_n);
}

static int ks_smcr_devices(struct kernel *k, struct smcr_device **ret, size_t *ret_n)
{
	return smcr_device_list(NL(k), ret, ret_n);
}

static int ks_smcd_linkgroups(struct kernel *k, struct smcd_linkgroup **ret, size_t *ret_n)
{
	return smcd_linkgroup_list(NL(k), ret, ret_n);
}

static int ks_smcr_linkgroups(struct kernel *k, struct smcr_linkgroup **ret, size_t *ret_n)
{
	return smcr_linkgroup_list(NL(k), true, ret, ret_n);
}

static int ks_stats(struct kernel *k, struct smc_stats *ret)
{
	return smc_stats_get(NL(k), ret);
}

static int ks_fback_stats(struct kernel *k, struct smc_fback_stats *ret)
{
	return smc_fback_stats_get(NL(k), ret);
}

static int ks_sockets(struct kernel *k, smc_socket_fn fn, void *userdata)
{
	return smc_socket_foreach(NL(k), 0, fn, userdata);
}

static const char *ks_extack(struct kernel *k)
{
	return smcnl_extack(NL(k));
}

static int ks_netns_list(struct kernel *k, struct smc_netns *ret_self, struct smc_netns **ret,
			 size_t *ret_n)
{
	int r = smc_netns_self(ret_self);

	return r < 0 ? r : smc_netns_list(NL(k), ret, ret_n);
}

/* Another namespace: a libsmcnl handle whose sockets are created there. */
struct kernel_smcnl_netns {
	struct kernel_netns base;
	struct smcnl *nl;
};

#define NS_NL(n) (((struct kernel_smcnl_netns *)(n))->nl)

static int ksn_stats(struct kernel_netns *n, struct smc_stats *ret)
{
	return smc_stats_get(NS_NL(n), ret);
}

static int ksn_fback_stats(struct kernel_netns *n, struct smc_fback_stats *ret)
{
	return smc_fback_stats_get(NS_NL(n), ret);
}

static int ksn_sockets(struct kernel_netns *n, smc_socket_fn fn, void *userdata)
{
	return smc_socket_foreach(NS_NL(n), 0, fn, userdata);
}

static void ksn_free(struct kernel_netns *n)
{
	smcnl_close(NS_NL(n));
	free(n);
}

static const struct kernel_netns_ops smcnl_netns_ops = {
	.stats = ksn_stats,
	.fback_stats = ksn_fback_stats,
	.sockets = ksn_sockets,
	.free = ksn_free,
};

static int ks_netns_open(struct kernel *k, const struct smc_netns *ns, struct kernel_netns **ret)
{
	struct kernel_smcnl *ks = (struct kernel_smcnl *)k;
	struct smcnl_options opts = { .sysroot = ks->sysroot };
	struct kernel_smcnl_netns *n = calloc(1, sizeof(*n));
	int r;

	if (!n)
		return -ENOMEM;
	n->base.ops = &smcnl_netns_ops;
	r = smcnl_open_netns(&opts, ns, &n->nl);
	if (r < 0) {
		free(n);
		return r;
	}
	*ret = &n->base;
	return 0;
}

static int ks_smclo_get(struct kernel *k, struct smclo_device *ret)
{
	return smclo_get(NL(k), ret);
}

static int ks_smclo_activate(struct kernel *k, struct smclo_device *ret, bool *ret_changed)
{
	return smclo_activate_clean(NL(k), ret, ret_changed);
}

static int ks_smclo_shutdown(struct kernel *k, uint32_t drain_ms, uint32_t removal_ms,
			     struct smclo_shutdown_result *res)
{
	return smclo_shutdown(NL(k), drain_ms, removal_ms, res);
}

static int ks_smclo_set(struct kernel *k, const struct smclo_set_request *q, struct smclo_device *ret)
{
	return smclo_set(NL(k), q, ret);
}

static int ks_smclo_monitor(struct kernel *k, struct smclo_monitor **ret)
{
	return smclo_monitor_open(NL(k), ret);
}

/* The host's cgroup2 mount (a recorded tree has none of its own: none known). */
static int ks_cgroup_root(struct kernel *k, char *buf, size_t len)
{
	if (((struct kernel_smcnl *)k)->sysroot)
		return -EOPNOTSUPP;
#ifdef HAVE_BPF
	return smcbpf_cgroup2_root(buf, len);
#else
	(void)buf;
	(void)len;
	return -EOPNOTSUPP; /* no cgroup policies without BPF */
#endif
}

static void ks_free(struct kernel *k)
{
	struct kernel_smcnl *ks = (struct kernel_smcnl *)k;

	smcnl_close(ks->nl);
	if (ks->kmod)
		kmod_unref(ks->kmod);
	free(ks->sysroot);
	free(ks);
}

static const struct kernel_ops smcnl_ops = {
	.caps = ks_caps,
	.module_loaded = ks_module_loaded,
	.module_load = ks_module_load,
	.ueid_list = ks_ueid_list,
	.ueid_add = ks_ueid_add,
	.ueid_del = ks_ueid_del,
	.ueid_flush = ks_ueid_flush,
	.seid_get = ks_seid_get,
	.seid_set = ks_seid_set,
	.hs_get = ks_hs_get,
	.hs_set = ks_hs_set,
	.sysctl_get = ks_sysctl_get,
	.sysctl_set = ks_sysctl_set,
	.pnet_list = ks_pnet_list,
	.pnet_add = ks_pnet_add,
	.pnet_del = ks_pnet_del,
	.pnet_flush = ks_pnet_flush,
	.smcd_devices = ks_smcd_devices,
	.smcr_devices = ks_smcr_devices,
	.smcd_linkgroups = ks_smcd_linkgroups,
	.smcr_linkgroups = ks_smcr_linkgroups,
	.stats = ks_stats,
	.fback_stats = ks_fback_stats,
	.sockets = ks_sockets,
	.extack = ks_extack,
	.netns_list = ks_netns_list,
	.netns_open = ks_netns_open,
	.smclo_get = ks_smclo_get,
	.smclo_activate = ks_smclo_activate,
	.smclo_shutdown = ks_smclo_shutdown,
	.smclo_set = ks_smclo_set,
	.smclo_monitor = ks_smclo_monitor,
	.cgroup_root = ks_cgroup_root,
	.free = ks_free,
};

int kernel_smcnl_new(const char *sysroot, struct kernel **ret)
{
	struct kernel_smcnl *ks = calloc(1, sizeof(*ks));
	struct smcnl_options opts = { .sysroot = sysroot };
	int r;

	if (!ks)
		return -ENOMEM;
	ks->base.ops = &smcnl_ops;
	if (sysroot && !(ks->sysroot = strdup(sysroot))) {
		free(ks);
		return -ENOMEM;
	}
	r = smcnl_open(&opts, &ks->nl);
	if (r < 0) {
		free(ks->sysroot);
		free(ks);
		return r;
	}
	*ret = &ks->base;
	return 0;
}
