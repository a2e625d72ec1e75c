/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smcctl device loopback-ism and the smc_lo device in smcctl's device views (cli/loopback.c).
 * Pure parts (*_json) are exported for the tests.
 */
#pragma once

#include "cli/smcctl.h"
#include "netlink/smclo.h"

/* Option indexes of "device loopback-ism" (cli/table.c declares the options). */
enum { LOOPBACK_OPT_WAIT };

/*
 * --wait: default and limit in seconds, the same with and without smcd-agent (which waits
 * in its event loop: the module's own bound of 600 s would stop its watchdog).
 */
#define LOOPBACK_WAIT_MAX SMCLO_WAIT_MAX_S
/* How long the removal may take after the drain, before smcctl reports what holds it. */
#define LOOPBACK_REMOVAL_MS SMCLO_REMOVAL_MS
/*
 * D-Bus calls to the agent: it may be inside a drain of its own (a reconcile's, at most
 * SMCLO_WAIT_MAX_S plus the removal) before it reads ours; then a margin.
 */
#define LOOPBACK_BUS_BUSY_USEC ((SMCLO_WAIT_MAX_S * 1000ULL + LOOPBACK_REMOVAL_MS + 20000) * 1000)

/* smcctl device loopback-ism [show | activate | deactivate [--wait S] | set KEY VALUE] */
int loopback_ism(struct smcctl *c, const struct verb_args *a);

struct out_sink;
/* The "smc_lo" object of a device in smcctl's JSON (keys in smcctl(8)), by key (NULL: the
 * root or an element); nothing for text.  smclo_device_json(): the same as a document. */
void smclo_device_emit(struct out_sink *o, const char *key, const struct smclo_device *d);
json_object *smclo_device_json(const struct smclo_device *d);

/*
 * The device views, once smclo_module_loaded() said smc_lo is loaded (this function would
 * load it, and listing devices must not): when its device can be read (*ret_lo), find its
 * entry among the n SMC-D devices (*ret_idx), or add one for an inactive device (absent
 * from /sys/class/dibs) when name is NULL or names it, and count its link groups by the
 * module's gauge, which 7.3's link group dump can under-report.  Returns 1 when *ret_lo and
 * *ret_idx are set, 0 when smc_lo has no part in the view, -ENOMEM.  Never fails the view
 * otherwise: a module that cannot be read is reported on stderr.
 */
int loopback_amend(struct smcctl *c, struct smcd_device **smcd, size_t *n, const char *name,
		   struct smclo_device *ret_lo, size_t *ret_idx);
/* Text: the lines of device list about the loopback devices (after the SMC-D table). */
void loopback_list_emit(struct out_sink *o, const struct smcd_device *smcd, size_t n,
			const struct smclo_device *lo);
/* The text of device show for smc_lo's device, from its "smc_lo" object. */
void loopback_show_text(struct smcctl *c, json_object *dev);
