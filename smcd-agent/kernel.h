/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The agent's view of the kernel: a table of operations.  kernel-smcnl.c implements it with
 * libsmcnl and libkmod (the real kernel); kernel-fake.c with files in a directory (unit
 * tests, and the host integration tests that need a kernel with SMC, which the host lacks).
 * Everything above this table (plan, apply, D-Bus) is the same code in both.
 *
 * Return conventions are libsmcnl's: >= 0 success, negative errno, -EPROTONOSUPPORT when
 * the kernel has no SMC, -ENOENT for a sysctl this kernel lacks.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "netlink/smcnl.h"
#include "netlink/smclo.h"

struct kernel;
struct kernel_netns;

struct kernel_ops {
	int (*caps)(struct kernel *k, struct smc_caps *ret);
	/* 1 when loaded or built in, 0 when not. */
	int (*module_loaded)(struct kernel *k, const char *name);
	/* On failure a sentence for the user in msg. */
	int (*module_load)(struct kernel *k, const char *name, char *msg, size_t len);
	int (*ueid_list)(struct kernel *k, char ret[SMC_UEID_MAX][SMC_EID_LEN + 1], size_t *ret_n);
	int (*ueid_add)(struct kernel *k, const char *ueid);
	int (*ueid_del)(struct kernel *k, const char *ueid);
	int (*ueid_flush)(struct kernel *k);
	int (*seid_get)(struct kernel *k, struct smc_seid *ret);
	int (*seid_set)(struct kernel *k, bool enable);
	int (*hs_get)(struct kernel *k, bool *ret);
	int (*hs_set)(struct kernel *k, bool enable);
	int (*sysctl_get)(struct kernel *k, const char *name, char *buf, size_t len);
	int (*sysctl_set)(struct kernel *k, const char *name, const char *value);
	int (*pnet_list)(struct kernel *k, struct smc_pnet_entry **ret, size_t *ret_n);
	int (*pnet_add)(struct kernel *k, const struct smc_pnet_entry *e);
	int (*pnet_del)(struct kernel *k, const char *pnetid);
	int (*pnet_flush)(struct kernel *k);
	int (*smcd_devices)(struct kernel *k, struct smcd_device **ret, size_t *ret_n);
	int (*smcr_devices)(struct kernel *k, struct smcr_device **ret, size_t *ret_n);
	int (*smcd_linkgroups)(struct kernel *k, struct smcd_linkgroup **ret, size_t *ret_n);
	int (*smcr_linkgroups)(struct kernel *k, struct smcr_linkgroup **ret, size_t *ret_n);
	/* Statistics of the caller's network namespace (collector.c). */
	int (*stats)(struct kernel *k, struct smc_stats *ret);
	int (*fback_stats)(struct kernel *k, struct smc_fback_stats *ret);
	/*
	 * smc_diag without extensions: mode, state and fallback reason of every socket, each
	 * handed to fn as the dump is read and none kept (smc_socket_foreach()).
	 */
	int (*sockets)(struct kernel *k, smc_socket_fn fn, void *userdata);
	/* The kernel's extended-ack text of the last failed request, or NULL. */
	const char *(*extack)(struct kernel *k);
	/*
	 * Other network namespaces (netns.c): the identity of the agent's own and the named
	 * ones (smc_netns_list(): sorted by name), and a handle on one of them whose reads are
	 * answered by that namespace's kernel (smcnl_open_netns(): -ENOENT gone, -ESTALE the
	 * name is another namespace now, -EPERM).  NULL where a kernel has none to offer (the
	 * dry run, the tests' fault injectors): the agent samples its own namespace only.
	 */
	int (*netns_list)(struct kernel *k, struct smc_netns *ret_self, struct smc_netns **ret,
			  size_t *ret_n);
	int (*netns_open)(struct kernel *k, const struct smc_netns *ns, struct kernel_netns **ret);
	/*
	 * Our loopback module's SMC_LO family (kmod/, netlink/smclo.h; loopback.c).  The module
	 * itself is module_loaded/module_load("smc_lo").  smclo_monitor: the "state" group, or
	 * -EOPNOTSUPP where there is none (the fake kernel: the agent polls then).
	 */
	int (*smclo_get)(struct kernel *k, struct smclo_device *ret);
	int (*smclo_activate)(struct kernel *k, struct smclo_device *ret, bool *ret_changed);
	int (*smclo_shutdown)(struct kernel *k, uint32_t drain_ms, uint32_t removal_ms,
			      struct smclo_shutdown_result *res);
	int (*smclo_set)(struct kernel *k, const struct smclo_set_request *q,
			 struct smclo_device *ret);
	int (*smclo_monitor)(struct kernel *k, struct smclo_monitor **ret);
	/*
	 * The mount point of the cgroup2 tree the policies' cgroup paths are below (dropin-prune.c:
	 * a stopped container's drop-in), or -errno when none is known; NULL where there is
	 * none to trust (the dry run, a recorded tree): nothing is taken for gone then.
	 */
	int (*cgroup_root)(struct kernel *k, char *buf, size_t len);
	void (*free)(struct kernel *k);
};

struct kernel {
	const struct kernel_ops *ops;
};

/*
 * The per-namespace reads of one other network namespace, as the same ops above answer them
 * for the agent's own.  -ENOTRECOVERABLE (smcnl.h): the thread could not come back from the
 * namespace; nothing may go on.
 */
struct kernel_netns_ops {
	int (*stats)(struct kernel_netns *n, struct smc_stats *ret);
	int (*fback_stats)(struct kernel_netns *n, struct smc_fback_stats *ret);
	int (*sockets)(struct kernel_netns *n, smc_socket_fn fn, void *userdata);
	void (*free)(struct kernel_netns *n);
};

struct kernel_netns {
	const struct kernel_netns_ops *ops;
};

static inline void kernel_netns_free(struct kernel_netns *n)
{
	if (n)
		n->ops->free(n);
}

/* The real kernel (sysroot NULL) or a recorded tree (tests). */
int kernel_smcnl_new(const char *sysroot, struct kernel **ret);
/* A fake kernel kept in files under dir; see kernel-fake.c for the layout. */
int kernel_fake_new(const char *dir, struct kernel **ret);

static inline void kernel_free(struct kernel *k)
{
	if (k)
		k->ops->free(k);
}

static inline void kernel_freep(struct kernel **k)
{
	kernel_free(*k);
}
