/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reconciliation: observe (kernel → struct actual_state), plan (config + actual → actions,
 * a pure function), apply (actions → kernel, one report line per item).
 *
 * Items and their names (the first column of LastReconcile on D-Bus):
 *   module:NAME            a kernel module from modules:
 *   ueid:UEID              a UEID the config wants (or, with ueid.exclusive, one it removes;
 *                          or the one the other ueid.derive gives this machine, removed)
 *   ueid:auto              only when the machine-id UEID cannot be derived
 *   seid                   seid: enable|disable
 *   handshake-limitation   handshake-limitation: true|false
 *   sysctl:NAME            one per sysctl: key
 *   pnet:PNETID:DEVICE     a PNET table entry (DEVICE is "eth0" or "mlx5_0/1")
 *   pnet:PNETID            with pnet.exclusive, a PNET ID whose kernel entries differ
 * Items follow the order in which they are applied: modules first (everything else needs
 * them), UEIDs before the SEID (the kernel refuses to disable the SEID without a UEID),
 * removals before additions (the UEID table holds only 4).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "smcd-agent/kernel.h"

enum item_result {
	ITEM_UNCHANGED,
	ITEM_APPLIED,
	ITEM_FAILED,
	ITEM_UNSUPPORTED,
	ITEM_DRIFTED, /* differs from the config, left alone (drift.action: report) */
	_ITEM_RESULT_MAX,
};

const char *item_result_to_string(enum item_result r);

enum plan_action {
	PLAN_NONE,	  /* in the desired state */
	PLAN_UNSUPPORTED, /* this kernel cannot have it; message says why */
	PLAN_FAILED,	  /* cannot even be planned (e.g. the state is unreadable) */
	PLAN_MODULE_LOAD,
	PLAN_UEID_ADD,
	PLAN_UEID_DEL,
	PLAN_SEID_SET,
	PLAN_HS_SET,
	PLAN_SYSCTL_SET,
	PLAN_PNET_ADD,
	PLAN_PNET_DEL,
};

/*
 * An item's name: "policy:cgroup:" and a cgroup path of smc.yaml (at most 255 characters,
 * a podman scope below a pod's slice comes near 120) fit whole, so two containers' scopes
 * are never one item.
 */
#define REPORT_ITEM_NAME_LEN 288

struct plan_item {
	char name[REPORT_ITEM_NAME_LEN];
	enum plan_action action;
	char desired[96]; /* for reports and the Drift property */
	char actual[96];
	char message[256]; /* PLAN_UNSUPPORTED / PLAN_FAILED: the reason */
	/* Arguments, by action: */
	char arg[SMC_EID_LEN + 1]; /* module, UEID, sysctl name or PNET ID */
	char value[96];		   /* sysctl value as the kernel file takes it */
	bool enable;		   /* SEID, handshake limitation */
	struct smc_pnet_entry pnet;
};

struct plan {
	struct plan_item *items;
	size_t n;
};

void plan_clear(struct plan *p);
/* Number of items that would change the kernel. */
size_t plan_count_changes(const struct plan *p);

struct actual_sysctl {
	int err; /* -ENOENT: this kernel has no such sysctl */
	char value[96];
};

struct actual_state {
	struct smc_caps caps;
	bool *module_loaded; /* parallel to config->modules */
	int *module_err;     /* the same: why it could not be told (-errno), or 0 */
	int ueid_err;
	char ueids[SMC_UEID_MAX][SMC_EID_LEN + 1];
	size_t n_ueids;
	int seid_err;
	struct smc_seid seid;
	int hs_err;
	bool hs;
	struct actual_sysctl *sysctls; /* parallel to config->sysctls */
	int pnet_err;
	struct smc_pnet_entry *pnet;
	size_t n_pnet;
};

void actual_state_clear(struct actual_state *a);
int actual_observe_modules(struct kernel *k, const struct config *c, struct actual_state *a);
int actual_observe(struct kernel *k, const struct config *c, struct actual_state *a);

/*
 * The UEID of ueid.auto, derived as how says, and in ret_other (unless NULL) the UEID the
 * other derivation gives this machine; on failure a reason in err.  Exported for tests.
 */
int ueid_auto_derive(const char *machine_id_file, enum ueid_derivation how, char ret[SMC_EID_LEN + 1],
		     char ret_other[SMC_EID_LEN + 1], char *err, size_t errlen);

struct desired_extra {
	char auto_ueid[SMC_EID_LEN + 1]; /* empty when ueid.auto is off or failed */
	char auto_error[160];		 /* why the derivation failed */
	/*
	 * What the other ueid.derive gives this machine: ueid.auto's UEID before an upgrade
	 * or a change of ueid.derive, so ueid.auto owns it and removes it (unless
	 * ueid.entries lists it).  Empty with auto_ueid.
	 */
	char other_ueid[SMC_EID_LEN + 1];
};

void desired_extra_compute(const struct config *c, struct desired_extra *ret);

/* Pure: append to p the items for modules / for everything else. */
int plan_modules(const struct config *c, const struct actual_state *a, struct plan *p);
int plan_settings(const struct config *c, const struct desired_extra *x,
		  const struct actual_state *a, struct plan *p);
/* The kernel as it is now (into a), then plan_settings() against it. */
int plan_settings_observed(struct kernel *k, const struct config *c, struct actual_state *a,
			   struct plan *p);

struct item_report {
	char name[REPORT_ITEM_NAME_LEN];
	enum item_result result;
	char message[256];
};

struct report {
	uint64_t timestamp; /* CLOCK_REALTIME usec */
	struct item_report *items;
	size_t n;
};

void report_clear(struct report *r);
const struct item_report *report_find(const struct report *r, const char *name);
/* Counts by result. */
void report_count(const struct report *r, size_t counts[_ITEM_RESULT_MAX]);

/*
 * Apply p.  With report_only, items that were in the desired state in previous (result
 * unchanged, applied or drifted) are not touched but reported as ITEM_DRIFTED; items that
 * failed before are retried (the config never took effect for them, so this is not drift).
 */
int plan_apply(struct kernel *k, const struct plan *p, const struct report *previous,
	       bool report_only, struct report *ret);

/* The whole pass: modules, observe, plan, apply. */
int reconcile(struct kernel *k, const struct config *c, const struct report *previous,
	      bool report_only, struct report *ret);
