/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smcd-agent and our loopback module (kmod/, smc-lo(4)): the loopback: section of smc.yaml
 * kept like every other item, the org.smcd.Agent1.Loopback methods and the
 * org.smcd.Agent1.LoopbackDevice object with the module's counters: loopback.c (the
 * reconcile), loopback-device.c (the device, read and refreshed), bus-loopback.c (D-Bus);
 * loopback-internal.h is what they share.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/macro.h"
#include "netlink/smclo.h"
#include "config/config.h"
#include "smcd-agent/reconcile.h"

struct manager;

/*
 * Reconcile the loopback: section after the other items (so smc and the PNET table are
 * there): appends its items to ret, in the order they are applied:
 *   loopback:module         smc_lo loaded (with active: true only)
 *   loopback:device         the module's device could not be read (or is not loaded)
 *   loopback:take-over-lo   "lo"'s PNET ID SMCLO_LO_PNETID: removed before a deactivation,
 *                           added after an activation (never while smclo is not active,
 *                           which would leave SMC-D loopback without a device); removed
 *                           too when smc_lo is not loaded, cannot be loaded or read, and
 *                           (only then an item) without the section or its active key
 *   loopback:settings       the stored settings (dmb-type, nocopy, max-dmbs)
 *   loopback:state          active or inactive; a device running with other values of the
 *                           file's keys than the file's is re-activated (deactivation
 *                           protocol, then activation), unless loopback:settings failed;
 *                           a device being removed is not drained again
 * previous and report_only: as for plan_apply() (drift.action report).  Like reconcile()
 * it takes the kernel and the file's section only: 1 when smc_lo's device was read (its
 * object is to be refreshed, loopback_refresh()), 0 when not, or a negative errno.
 */
struct kernel;
int loopback_reconcile(struct kernel *k, const struct config_loopback *c,
		       const struct report *previous, bool report_only, struct report *ret);
/* loopback-device.c: read the module's device (if smc_lo is loaded) and publish, update or
 * remove its object. */
int loopback_refresh(struct manager *m);
/* smc_lo's device name and state ("inactive", "active", "draining") when it is there:
 * false without smc_lo.  The strings live until the next refresh. */
bool loopback_state(struct manager *m, const char **ret_name, const char **ret_state);
void loopback_free(struct manager *m);

/* The PNET IDs of the loopback handling (never deleted by pnet.exclusive). */
static inline bool loopback_pnetid_reserved(const char *pnetid)
{
	return streq(pnetid, SMCLO_LO_PNETID) || streq(pnetid, SMCLO_DRAIN_PNETID);
}
/* SMCLO_LO_PNETID is the file's while loopback.active is set: its mark in *ret. */
bool config_loopback_owns_pnetid(const struct config *c, const char *pnetid, struct config_mark *ret);

/* kernel-fake-smclo.c: the fake kernel's smc_lo, kept in files under dir. */
int fake_smclo_get_dir(const char *dir, struct smclo_device *ret);
int fake_smclo_activate_dir(const char *dir, struct smclo_device *ret, bool *ret_changed);
int fake_smclo_shutdown_dir(const char *dir, uint32_t drain_ms, struct smclo_shutdown_result *res);
int fake_smclo_set_dir(const char *dir, const struct smclo_set_request *q, struct smclo_device *ret);
