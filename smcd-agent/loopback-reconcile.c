// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcd-agent and our loopback module (kmod/, smc-lo(4), netlink/smclo.h).
 *
 * Reconciliation of smc.yaml's loopback: section (config/section-loopback.c), after the other
 * items, with the same report, drift and logging rules (loopback.h lists the items).
 * The module is loaded with libkmod (kernel-smcnl.c's module_load) when the file says
 * active: true; a host without it gets an "unsupported" item, not a fault.
 *
 * Order matters for SMC-D loopback to keep working: "lo" gets its PNET ID (which takes
 * SMC-Dv2 loopback away from it) only after smclo is active, and loses it before smclo
 * is deactivated.  A device that runs with other settings than the file's is
 * re-activated (SMC reads them once per device): the deactivation protocol (PNET ID on
 * smclo, drain for loopback.drain-timeout, wait for "deactivated", delete the PNET ID),
 * then an activation.  New connections fall back to TCP for those seconds; "lo" keeps
 * its PNET ID meanwhile, so they do not move to "lo" for good.
 *
 * The deactivation waits synchronously, in the event loop: at most drain-timeout (30 s
 * at most, config/section-loopback.h) plus the removal bound (10 s), well inside WatchdogSec=1min.
 * D-Bus calls wait meanwhile.  Doing it asynchronously would split the reconcile into
 * callbacks for an operation that is rare and bounded; not worth it.
 *
 * smc_lo's device is read by loopback-device.c; its D-Bus object and the Loopback methods
 * are bus-loopback.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "smcd-agent/log.h"
#include "smcd-agent/loopback-internal.h"
#include "smcd-agent/loopback-reconcile.h"
#include "smcd-agent/kernel.h"

/* ------------------------------------------------------------------------------------- */
/* Config helpers                                                                          */

bool config_loopback_owns_pnetid(const struct config *c, const char *pnetid, struct config_mark *ret)
{
	if (!c->loopback.has_active || !streq(pnetid, SMCLO_LO_PNETID))
		return false;
	*ret = c->loopback.active_mark;
	return true;
}

/* ------------------------------------------------------------------------------------- */
/* Report items                                                                            */

_printf_(4, 5) static int item(struct report *r, const char *name, enum item_result res,
			       const char *fmt, ...)
{
	struct item_report *v = realloc(r->items, (r->n + 1) * sizeof(*v));
	va_list ap;

	if (!v)
		return -ENOMEM;
	r->items = v;
	v = &r->items[r->n++];
	memset(v, 0, sizeof(*v));
	snprintf(v->name, sizeof(v->name), "%s", name);
	v->result = res;
	va_start(ap, fmt);
	vsnprintf(v->message, sizeof(v->message), fmt, ap);
	va_end(ap);
	return 0;
}

/*
 * drift.action report: an item that was in the desired state before and is not now is
 * reported, not repaired (plan_apply()'s rule; items that failed before are retried).
 */
static bool report_drift(const struct report *previous, bool report_only, const char *name)
{
	const struct item_report *ir = report_find(previous, name);

	return report_only && ir &&
	       (ir->result == ITEM_UNCHANGED || ir->result == ITEM_APPLIED ||
		ir->result == ITEM_DRIFTED);
}

static const char *errtext(struct kernel *k, enum smc_op op, int r, char *buf, size_t len)
{
	return smc_strerror(op, r, k->ops->extack(k), buf, len);
}

static void settings_text(const struct smclo_settings *s, char *buf, size_t len)
{
	snprintf(buf, len, "dmb-type %s, nocopy %s, max-dmbs %" PRIu32,
		 smclo_dmb_type_name(s->dmb_type) ?: "?", s->nocopy ? "on" : "off", s->max_dmbs);
}

/* The file's settings applied to s (keys the file does not have stay as they are). */
static struct smclo_settings wanted_settings(const struct config_loopback *c,
					     const struct smclo_settings *s)
{
	struct smclo_settings w = *s;

	if (c->has_dmb_type)
		w.dmb_type = c->dmb_type;
	if (c->has_nocopy)
		w.nocopy = c->nocopy;
	if (c->has_max_dmbs)
		w.max_dmbs = c->max_dmbs;
	return w;
}

static bool settings_equal(const struct smclo_settings *a, const struct smclo_settings *b)
{
	return a->dmb_type == b->dmb_type && a->nocopy == b->nocopy && a->max_dmbs == b->max_dmbs;
}

/* ------------------------------------------------------------------------------------- */
/* Reconcile                                                                               */

/* Is there an IB entry for "lo" in the PNET table, and is it ours? */
static int lo_pnet(struct kernel *k, bool *ret_any, bool *ret_ours, char other[SMC_PNETID_LEN + 1])
{
	_cleanup_(freep) struct smc_pnet_entry *e = NULL;
	size_t n = 0;
	int r = k->ops->pnet_list(k, &e, &n);

	*ret_any = *ret_ours = false;
	other[0] = '\0';
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		if (!streq(e[i].ib_name, "lo"))
			continue;
		*ret_any = true;
		if (streq(e[i].pnetid, SMCLO_LO_PNETID))
			*ret_ours = true;
		else
			snprintf(other, SMC_PNETID_LEN + 1, "%s", e[i].pnetid);
	}
	return 0;
}

/*
 * "lo"'s PNET ID SMCLO_LO_PNETID present (want) or absent.  why: the reason it is wanted
 * absent, for the message ("smclo is not active").
 */
static int take_over_lo(struct kernel *k, const struct config_loopback *c, bool want, const char *why,
			const struct report *prev, bool report_only, struct report *ret)
{
	static const char *const name = "loopback:take-over-lo";
	struct smc_pnet_entry e = { .ib_port = 1 };
	char other[SMC_PNETID_LEN + 1], buf[256];
	bool any, ours;
	int r;

	r = lo_pnet(k, &any, &ours, other);
	if (r < 0)
		return item(ret, name, r == -EPROTONOSUPPORT ? ITEM_UNSUPPORTED : ITEM_FAILED,
			    "cannot read the PNET table: %s",
			    errtext(k, SMC_OP_QUERY, r, buf, sizeof(buf)));
	if (want && any)
		return item(ret, name, ITEM_UNCHANGED, "lo has PNET ID %s: SMC-D loopback uses smclo",
			    ours ? SMCLO_LO_PNETID : other);
	if (!want && !ours)
		return item(ret, name, ITEM_UNCHANGED, "lo has no PNET ID %s%s%s", SMCLO_LO_PNETID,
			    why ? ": " : "", why ? why : "");
	if (report_drift(prev, report_only, name))
		return item(ret, name, ITEM_DRIFTED, "desired %s PNET ID %s on lo%s%s",
			    want ? "a" : "no", SMCLO_LO_PNETID, why ? ": " : "", why ? why : "");
	if (!want) {
		r = k->ops->pnet_del(k, SMCLO_LO_PNETID);
		if (r < 0 && r != -ENOENT)
			return item(ret, name, ITEM_FAILED, "%s",
				    errtext(k, SMC_OP_PNET_DEL, r, buf, sizeof(buf)));
		return item(ret, name, ITEM_APPLIED,
			    "removed PNET ID %s from lo: SMC-D loopback uses lo%s%s%s",
			    SMCLO_LO_PNETID, why ? " (" : "", why ? why : "", why ? ")" : "");
	}
	snprintf(e.pnetid, sizeof(e.pnetid), "%s", SMCLO_LO_PNETID);
	snprintf(e.ib_name, sizeof(e.ib_name), "lo");
	r = k->ops->pnet_add(k, &e);
	if (r < 0)
		return item(ret, name, ITEM_FAILED, "%s",
			    errtext(k, SMC_OP_PNET_ADD, r, buf, sizeof(buf)));
	return item(ret, name, ITEM_APPLIED, "gave lo PNET ID %s: SMC-D loopback uses smclo",
		    SMCLO_LO_PNETID);
}

static int do_settings(struct kernel *k, const struct config_loopback *c, struct smclo_device *d,
		       const struct report *prev, bool report_only, bool *ret_failed,
		       struct report *ret)
{
	static const char *const name = "loopback:settings";
	struct smclo_settings want = wanted_settings(c, &d->settings);
	struct smclo_set_request q = {};
	char have[96], buf[256];
	int r;

	settings_text(&d->settings, have, sizeof(have));
	if (settings_equal(&want, &d->settings))
		return item(ret, name, ITEM_UNCHANGED, "%s", have);
	if (report_drift(prev, report_only, name))
		return item(ret, name, ITEM_DRIFTED, "stored %s, the file says otherwise", have);
	q.set_dmb_type = want.dmb_type != d->settings.dmb_type;
	q.dmb_type = want.dmb_type;
	q.set_nocopy = want.nocopy != d->settings.nocopy;
	q.nocopy = want.nocopy;
	q.set_max_dmbs = want.max_dmbs != d->settings.max_dmbs;
	q.max_dmbs = want.max_dmbs;
	r = k->ops->smclo_set(k, &q, d);
	if (r < 0) {
		*ret_failed = true;
		return item(ret, name, ITEM_FAILED, "%s",
			    errtext(k, SMC_OP_LOOPBACK_SET, r, buf, sizeof(buf)));
	}
	settings_text(&want, buf, sizeof(buf));
	return item(ret, name, ITEM_APPLIED, "set to %s (was %s)", buf, have);
}

/*
 * The deactivation protocol; on success d is the inactive device (or, when someone
 * activated it again meanwhile, that new registration).  The message carries no measured
 * numbers (waited time, DMBs): the log de-duplicates repeated item messages, and the
 * device object shows the gauges.
 */
static int shutdown_dev(struct kernel *k, const struct config_loopback *c, struct smclo_device *d,
			char *msg, size_t len)
{
	uint32_t drain_ms = (uint32_t)(c->drain_timeout_usec / 1000);
	struct smclo_shutdown_result res;
	char buf[256];
	int r;

	r = k->ops->smclo_shutdown(k, drain_ms, LOOPBACK_REMOVAL_MS, &res);
	if (r == -ETIMEDOUT) {
		*d = res.last;
		log_info("%s: %u DMBs, %u link groups and %u nocopy attachments hold it after %u ms",
			 d->name, d->counters.dmbs, d->counters.link_groups, d->counters.attached,
			 res.waited_ms);
		snprintf(msg, len,
			 "still being removed %u s after the drain began: DMBs and link groups "
			 "hold it (applications keep aborted connections open); PNET ID %s keeps "
			 "it out of new connections",
			 (drain_ms + LOOPBACK_REMOVAL_MS) / 1000, SMCLO_DRAIN_PNETID);
		return r;
	}
	if (r < 0) {
		snprintf(msg, len, "%s", errtext(k, SMC_OP_LOOPBACK_DEACTIVATE, r, buf, sizeof(buf)));
		return r;
	}
	*d = res.last;
	if (d->state != SMCLO_STATE_INACTIVE)
		snprintf(msg, len, "deactivated; activated again meanwhile by someone else");
	else
		snprintf(msg, len, "deactivated (drained and removed)");
	log_info("%s: drained and removed in %u ms", d->name, res.waited_ms);
	return 0;
}

/* Being removed (the drain is over): a new drain would only wait for the same holders. */
static int removing_item(struct report *ret, const char *name, const struct smclo_device *d,
			 const char *then)
{
	return item(ret, name, ITEM_FAILED,
		    "%s is still being removed: DMBs and link groups hold it (applications keep "
		    "aborted connections open)%s",
		    d->name, then);
}

static int do_state(struct kernel *k, const struct config_loopback *c, struct smclo_device *d,
		    bool settings_failed, const struct report *prev, bool report_only,
		    struct report *ret)
{
	static const char *const name = "loopback:state";
	/*
	 * Only the keys the file has decide a re-activation: a setting changed with smcctl
	 * (one the file leaves out) is stored for the next activation, never forced now.
	 */
	struct smclo_settings want = wanted_settings(c, &d->active);
	char msg[256], buf[256];
	bool reactivate = false;
	int r;

	if (!c->active) {
		if (d->state == SMCLO_STATE_INACTIVE)
			return item(ret, name, ITEM_UNCHANGED, "inactive");
		if (report_drift(prev, report_only, name))
			return item(ret, name, ITEM_DRIFTED, "desired inactive, actual %s",
				    smclo_state_name(d->state));
		if (d->state == SMCLO_STATE_DRAINING && d->removing)
			return removing_item(ret, name, d, "");
		r = shutdown_dev(k, c, d, msg, sizeof(msg));
		return item(ret, name, r < 0 ? ITEM_FAILED : ITEM_APPLIED, "%s", msg);
	}
	if (d->state == SMCLO_STATE_DRAINING)
		return d->removing ? removing_item(ret, name, d, ": activated again once it is gone")
				   : item(ret, name, ITEM_FAILED,
					  "%s is being drained: activated again once it is gone",
					  d->name);
	if (d->state == SMCLO_STATE_ACTIVE) {
		if (settings_equal(&want, &d->active))
			return item(ret, name, ITEM_UNCHANGED, "active (generation %" PRIu32 ")",
				    d->generation);
		/* The stored settings are not the file's: a re-activation would not help. */
		if (settings_failed)
			return item(ret, name, ITEM_FAILED,
				    "active, not re-activated: the file's settings could not be "
				    "stored (loopback:settings)");
		reactivate = true;
	}
	if (report_drift(prev, report_only, name))
		return item(ret, name, ITEM_DRIFTED, "desired active%s, actual %s",
			    reactivate ? " with the file's settings" : "",
			    smclo_state_name(d->state));
	if (reactivate) {
		settings_text(&d->active, buf, sizeof(buf));
		log_notice("Re-activating %s: it runs with %s, the file says otherwise (SMC reads "
			   "them once per device)",
			   d->name, buf);
		r = shutdown_dev(k, c, d, msg, sizeof(msg));
		if (r < 0)
			return item(ret, name, ITEM_FAILED, "re-activation: %s", msg);
	}
	r = k->ops->smclo_activate(k, d, NULL);
	if (r < 0)
		return item(ret, name, ITEM_FAILED, "%s",
			    errtext(k, SMC_OP_LOOPBACK_ACTIVATE, r, buf, sizeof(buf)));
	return item(ret, name, ITEM_APPLIED, "%s (generation %" PRIu32 ")",
		    reactivate ? "re-activated with the file's settings" : "activated",
		    d->generation);
}

/*
 * smclo is not active (not loaded, not loadable, unreadable, or the file leaves its state
 * alone): "lo" must not keep SMCLO_LO_PNETID, or every SMC-D loopback connection falls
 * back.  With loopback.active the ID is the file's and gets an item every time; otherwise
 * (settings only, or no loopback: section any more) only when the ID is there to remove.
 */
static int release_lo(struct kernel *k, const struct config_loopback *c, const char *why,
		      const struct report *prev, bool report_only, struct report *ret)
{
	char other[SMC_PNETID_LEN + 1];
	bool any, ours;

	if (!c->has_active && (lo_pnet(k, &any, &ours, other) < 0 || !ours))
		return 0;
	return take_over_lo(k, c, false, why, prev, report_only, ret);
}

/* loopback:module: smc_lo loaded with libkmod; *ret_loaded says whether it is now. */
static int load_module(struct kernel *k, const struct report *prev, bool report_only,
		       bool *ret_loaded, struct report *ret)
{
	static const char *const name = "loopback:module";
	char msg[200] = "";
	int r;

	if (*ret_loaded)
		return item(ret, name, ITEM_UNCHANGED, "loaded");
	if (report_drift(prev, report_only, name))
		return item(ret, name, ITEM_DRIFTED, "desired loaded, actual not loaded");
	r = k->ops->module_load(k, LOOPBACK_MODULE, msg, sizeof(msg));
	if (r == -ENOENT)
		return item(ret, name, ITEM_UNSUPPORTED,
			    "the smc_lo module is not installed for this kernel: install "
			    "smc-lo-dkms (it needs Linux 6.18 or later with DIBS)");
	if (r < 0)
		return item(ret, name, ITEM_FAILED, "%s", msg[0] ? msg : strerror(-r));
	*ret_loaded = true;
	return item(ret, name, ITEM_APPLIED, "loaded");
}

/*
 * A kernel without DIBS (before 6.18): smc_lo cannot exist there, and what the section asks
 * for is either impossible or already the kernel's fixed behaviour.  On 6.10-6.17 with
 * CONFIG_SMC_LO the loopback device is smc.ko's own "loopback-ism": there while smc is
 * loaded, without any control (no SMC_LO family, no DIBS "lo" to give a PNET ID to, DMBs
 * of physically contiguous pages, nocopy always, at most 5000 of them).  Every key the file
 * has gets an "unsupported" item saying so; nothing is tried and nothing fails.
 */
static int no_dibs_items(const struct config_loopback *c, const struct smc_caps *caps,
			 struct report *ret)
{
	char why[200];
	int r = 0;

	if (caps->loopback)
		snprintf(why, sizeof(why),
			 "the SMC-D loopback device of this kernel is loopback-ism, built into smc.ko "
			 "(Linux 6.10-6.17, CONFIG_SMC_LO)");
	else
		snprintf(why, sizeof(why),
			 "this kernel has no DIBS (Linux 6.18 or later) and no loopback-ism "
			 "(CONFIG_SMC_LO, 6.10-6.17)");
	if (c->has_active && c->active)
		r = item(ret, "loopback:module", ITEM_UNSUPPORTED,
			 "smc_lo needs Linux 6.18 or later with DIBS: %s", why);
	if (r >= 0 && c->has_active)
		r = item(ret, "loopback:state", ITEM_UNSUPPORTED,
			 caps->loopback ? "%s: it is active while smc is loaded and cannot be "
					  "activated or deactivated"
					: "%s: there is no loopback device to %s",
			 why, c->active ? "activate" : "deactivate");
	if (r >= 0 && (c->has_dmb_type || c->has_nocopy || c->has_max_dmbs))
		r = item(ret, "loopback:settings", ITEM_UNSUPPORTED,
			 caps->loopback ? "%s: its settings are fixed (DMBs of physically "
					  "contiguous pages, nocopy always, at most 5000 DMBs)"
					: "%s: nothing to configure",
			 why);
	if (r >= 0 && (c->has_take_over_lo || (c->has_active && c->active)))
		r = item(ret, "loopback:take-over-lo", ITEM_UNSUPPORTED,
			 "%s: there is no DIBS device lo to take SMC-D loopback from", why);
	return r < 0 ? r : 0;
}

int loopback_reconcile(struct kernel *k, const struct config_loopback *c, const struct report *prev,
		       bool report_only, struct report *ret)
{
	bool want_active = c->has_active && c->active;
	bool any_setting = c->has_dmb_type || c->has_nocopy || c->has_max_dmbs;
	bool loaded, settings_failed = false;
	struct smclo_device d;
	struct smc_caps caps;
	char buf[256];
	int r;

	r = k->ops->module_loaded(k, LOOPBACK_MODULE);
	if (r < 0) {
		/* Not knowing is not "not loaded": lo's PNET ID is not released on a guess. */
		if (!c->present)
			return 0;
		snprintf(buf, sizeof(buf),
			 "cannot tell whether smc_lo is loaded: %s (retried at the next reconciliation)",
			 strerror(-r));
		return item(ret, "loopback:device", ITEM_FAILED, "%s", buf);
	}
	loaded = r > 0;
	if (!c->present) {
		/* No section (any more): lo keeps no PNET ID of ours while smclo is inactive. */
		if (loaded && k->ops->smclo_get(k, &d) == 0 && d.state == SMCLO_STATE_ACTIVE)
			return 0;
		return release_lo(k, c, "smclo is not active", prev, report_only, ret);
	}
	if (k->ops->caps(k, &caps) == 0 && caps.smc_genl && !caps.dibs)
		return no_dibs_items(c, &caps, ret);
	if (want_active && (r = load_module(k, prev, report_only, &loaded, ret)) < 0)
		return r;
	if (!loaded) {
		/* Nothing to keep: active: false holds, settings wait until someone loads it. */
		if (!want_active &&
		    (r = item(ret, "loopback:device", ITEM_UNCHANGED, "smc_lo is not loaded")) < 0)
			return r;
		return release_lo(k, c, "smc_lo is not loaded", prev, report_only, ret);
	}
	r = k->ops->smclo_get(k, &d);
	if (r < 0) {
		r = item(ret, "loopback:device",
			 r == -EPROTONOSUPPORT ? ITEM_UNSUPPORTED : ITEM_FAILED, "%s",
			 errtext(k, SMC_OP_LOOPBACK_QUERY, r, buf, sizeof(buf)));
		return r < 0 ? r : release_lo(k, c, "smclo cannot be read", prev, report_only, ret);
	}
	if (c->has_active && !(want_active && c->take_over_lo) &&
	    (r = take_over_lo(k, c, false, NULL, prev, report_only, ret)) < 0)
		return r;
	if (any_setting && (r = do_settings(k, c, &d, prev, report_only, &settings_failed, ret)) < 0)
		return r;
	if (c->has_active && (r = do_state(k, c, &d, settings_failed, prev, report_only, ret)) < 0)
		return r;
	/*
	 * lo's PNET ID only while smclo is active: without an eligible loopback device every
	 * SMC-D loopback connection would fall back to TCP.
	 */
	if (want_active && c->take_over_lo)
		r = take_over_lo(k, c, d.state == SMCLO_STATE_ACTIVE, "smclo is not active", prev,
				 report_only, ret);
	else if (!c->has_active && d.state != SMCLO_STATE_ACTIVE)
		r = release_lo(k, c, "smclo is not active", prev, report_only, ret);
	/* The device was read: its object follows what this changed. */
	return r < 0 ? r : 1;
}
