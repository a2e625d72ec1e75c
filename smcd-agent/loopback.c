// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcd-agent and our loopback module (kmod/, smc-lo(4), netlink/smclo.h).
 *
 * 1. Reconciliation of smc.yaml's loopback: section (config-loopback.c), after the other
 *    items, with the same report, drift and logging rules (loopback.h lists the items).
 *    The module is loaded with libkmod (kernel-smcnl.c's module_load) when the file says
 *    active: true; a host without it gets an "unsupported" item, not a fault.
 *
 *    Order matters for SMC-D loopback to keep working: "lo" gets its PNET ID (which takes
 *    SMC-Dv2 loopback away from it) only after smclo is active, and loses it before smclo
 *    is deactivated.  A device that runs with other settings than the file's is
 *    re-activated (SMC reads them once per device): the deactivation protocol (PNET ID on
 *    smclo, drain for loopback.drain-timeout, wait for "deactivated", delete the PNET ID),
 *    then an activation.  New connections fall back to TCP for those seconds; "lo" keeps
 *    its PNET ID meanwhile, so they do not move to "lo" for good.
 *
 *    The deactivation waits synchronously, in the event loop: at most drain-timeout (30 s
 *    at most, config-loopback.h) plus the removal bound (10 s), well inside WatchdogSec=1min.
 *    D-Bus calls wait meanwhile.  Doing it asynchronously would split the reconcile into
 *    callbacks for an operation that is rare and bounded; not worth it.
 *
 * 2. org.smcd.Agent1.Loopback on /org/smcd/Agent1: Activate() -> b changed,
 *    Deactivate(u seconds) -> (b changed, u waited_msec), Set(s setting, s value):
 *    smcctl's "device loopback-ism" when the agent runs.  What
 *    the file owns (loopback.active, a setting key) is refused with the line to edit, like
 *    every other runtime change (bus-manager.c).
 *
 * 3. org.smcd.Agent1.LoopbackDevice on /org/smcd/Agent1/device/smcd/<name> (the path of
 *    the Device object the DIBS device has while registered): state, settings and the
 *    module's counters, whenever smc_lo is loaded, active or not.  Refreshed with the other
 *    objects (monitor.interval, Refresh(), Reconcile()) and at once on every notification
 *    of the module's "state" group; PropertiesChanged names what changed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "common/bus-api.h"
#include "common/macro.h"
#include "smcd-agent/bus-snapshot.h"
#include "smcd-agent/log.h"
#include "smcd-agent/loopback.h"
#include "smcd-agent/manager.h"

#define MODULE "smc_lo"
/* After the drain: how long the removal may take before it is reported as stuck. */
#define REMOVAL_MS SMCLO_REMOVAL_MS
/* Deactivate() over D-Bus waits in the event loop too: the same bound as the file's. */
#define BUS_WAIT_MAX_S SMCLO_WAIT_MAX_S

/* The D-Bus snapshot of the module's device: flat, compared field by field. */
struct bus_loopback {
	char path[256];
	char name[SMC_DIBS_NAME_LEN];
	char state[16];
	bool removing;
	uint32_t generation;
	char gid[SMC_UUID_TEXT_LEN + 1];
	bool pending;
	char dmb_type[16];
	bool nocopy;
	uint32_t max_dmbs;
	char active_dmb_type[16];
	bool active_nocopy;
	uint32_t active_max_dmbs;
	uint32_t drain_timeout_ms;
	uint32_t drain_remaining_ms;
	uint32_t dmbs;
	uint64_t dmb_bytes;
	uint32_t attached;
	uint32_t link_groups;
	uint64_t registrations;
	uint64_t unregistrations;
	uint64_t alloc_failures;
	uint64_t limit_rejects;
	uint64_t moves;
	uint64_t move_bytes;
	uint64_t move_signals;
	uint64_t move_errors;
	uint64_t attaches;
	uint64_t detaches;
	uint64_t activations;
	uint64_t deactivations;
	uint64_t drain_rejects;
};

struct loopback {
	bool present; /* the object exists (smc_lo loaded and readable) */
	struct bus_loopback snap;
	struct smclo_monitor *mon;
	sd_event_source *mon_src;
	bool no_monitor; /* the kernel has none (fake): do not ask again */
};

static struct loopback *lb_of(struct manager *m)
{
	if (!m->loopback)
		m->loopback = calloc(1, sizeof(*m->loopback));
	return m->loopback;
}

/* ------------------------------------------------------------------------------------- */
/* Config helpers                                                                          */

bool loopback_pnetid_reserved(const char *pnetid)
{
	return streq(pnetid, SMCLO_LO_PNETID) || streq(pnetid, SMCLO_DRAIN_PNETID);
}

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
static int take_over_lo(struct manager *m, bool want, const char *why, const struct report *prev,
			bool report_only, struct report *ret)
{
	static const char *const name = "loopback:take-over-lo";
	struct smc_pnet_entry e = { .ib_port = 1 };
	struct kernel *k = m->kernel;
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

static int do_settings(struct manager *m, struct smclo_device *d, const struct report *prev,
		       bool report_only, bool *ret_failed, struct report *ret)
{
	static const char *const name = "loopback:settings";
	const struct config_loopback *c = &m->config->loopback;
	struct smclo_settings want = wanted_settings(c, &d->settings);
	struct smclo_set_request q = {};
	struct kernel *k = m->kernel;
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
static int shutdown_dev(struct manager *m, struct smclo_device *d, char *msg, size_t len)
{
	const struct config_loopback *c = &m->config->loopback;
	uint32_t drain_ms = (uint32_t)(c->drain_timeout_usec / 1000);
	struct smclo_shutdown_result res;
	struct kernel *k = m->kernel;
	char buf[256];
	int r;

	r = k->ops->smclo_shutdown(k, drain_ms, REMOVAL_MS, &res);
	if (r == -ETIMEDOUT) {
		*d = res.last;
		log_info("%s: %u DMBs, %u link groups and %u nocopy attachments hold it after %u ms",
			 d->name, d->counters.dmbs, d->counters.link_groups, d->counters.attached,
			 res.waited_ms);
		snprintf(msg, len,
			 "still being removed %u s after the drain began: DMBs and link groups "
			 "hold it (applications keep aborted connections open); PNET ID %s keeps "
			 "it out of new connections",
			 (drain_ms + REMOVAL_MS) / 1000, SMCLO_DRAIN_PNETID);
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

static int do_state(struct manager *m, struct smclo_device *d, bool settings_failed,
		    const struct report *prev, bool report_only, struct report *ret)
{
	static const char *const name = "loopback:state";
	const struct config_loopback *c = &m->config->loopback;
	/*
	 * Only the keys the file has decide a re-activation: a setting changed with smcctl
	 * (one the file leaves out) is stored for the next activation, never forced now.
	 */
	struct smclo_settings want = wanted_settings(c, &d->active);
	struct kernel *k = m->kernel;
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
		r = shutdown_dev(m, d, msg, sizeof(msg));
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
		r = shutdown_dev(m, d, msg, sizeof(msg));
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
static int release_lo(struct manager *m, const char *why, const struct report *prev,
		      bool report_only, struct report *ret)
{
	const struct config_loopback *c = &m->config->loopback;
	char other[SMC_PNETID_LEN + 1];
	bool any, ours;

	if (!c->has_active && (lo_pnet(m->kernel, &any, &ours, other) < 0 || !ours))
		return 0;
	return take_over_lo(m, false, why, prev, report_only, ret);
}

/* loopback:module: smc_lo loaded with libkmod; *ret_loaded says whether it is now. */
static int load_module(struct manager *m, const struct report *prev, bool report_only,
		       bool *ret_loaded, struct report *ret)
{
	static const char *const name = "loopback:module";
	struct kernel *k = m->kernel;
	char msg[200] = "";
	int r;

	if (*ret_loaded)
		return item(ret, name, ITEM_UNCHANGED, "loaded");
	if (report_drift(prev, report_only, name))
		return item(ret, name, ITEM_DRIFTED, "desired loaded, actual not loaded");
	r = k->ops->module_load(k, MODULE, msg, sizeof(msg));
	if (r == -ENOENT)
		return item(ret, name, ITEM_UNSUPPORTED,
			    "the smc_lo module is not installed for this kernel: install "
			    "smc-lo-dkms (it needs Linux 6.18 or later with DIBS)");
	if (r < 0)
		return item(ret, name, ITEM_FAILED, "%s", msg[0] ? msg : strerror(-r));
	*ret_loaded = true;
	return item(ret, name, ITEM_APPLIED, "loaded");
}

int loopback_reconcile(struct manager *m, const struct report *prev, bool report_only,
		       struct report *ret)
{
	const struct config_loopback *c = &m->config->loopback;
	bool want_active = c->has_active && c->active;
	bool any_setting = c->has_dmb_type || c->has_nocopy || c->has_max_dmbs;
	struct kernel *k = m->kernel;
	bool loaded, settings_failed = false;
	struct smclo_device d;
	char buf[256];
	int r;

	r = k->ops->module_loaded(k, MODULE);
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
		return release_lo(m, "smclo is not active", prev, report_only, ret);
	}
	if (want_active && (r = load_module(m, prev, report_only, &loaded, ret)) < 0)
		return r;
	if (!loaded) {
		/* Nothing to keep: active: false holds, settings wait until someone loads it. */
		if (!want_active &&
		    (r = item(ret, "loopback:device", ITEM_UNCHANGED, "smc_lo is not loaded")) < 0)
			return r;
		return release_lo(m, "smc_lo is not loaded", prev, report_only, ret);
	}
	r = k->ops->smclo_get(k, &d);
	if (r < 0) {
		r = item(ret, "loopback:device",
			 r == -EPROTONOSUPPORT ? ITEM_UNSUPPORTED : ITEM_FAILED, "%s",
			 errtext(k, SMC_OP_LOOPBACK_QUERY, r, buf, sizeof(buf)));
		return r < 0 ? r : release_lo(m, "smclo cannot be read", prev, report_only, ret);
	}
	if (c->has_active && !(want_active && c->take_over_lo) &&
	    (r = take_over_lo(m, false, NULL, prev, report_only, ret)) < 0)
		return r;
	if (any_setting && (r = do_settings(m, &d, prev, report_only, &settings_failed, ret)) < 0)
		return r;
	if (c->has_active && (r = do_state(m, &d, settings_failed, prev, report_only, ret)) < 0)
		return r;
	/*
	 * lo's PNET ID only while smclo is active: without an eligible loopback device every
	 * SMC-D loopback connection would fall back to TCP.
	 */
	if (want_active && c->take_over_lo)
		r = take_over_lo(m, d.state == SMCLO_STATE_ACTIVE, "smclo is not active", prev,
				 report_only, ret);
	else if (!c->has_active && d.state != SMCLO_STATE_ACTIVE)
		r = release_lo(m, "smclo is not active", prev, report_only, ret);
	(void)loopback_refresh(m);
	return r < 0 ? r : 0;
}

/* ------------------------------------------------------------------------------------- */
/* The device object                                                                       */

#define LB(f) offsetof(struct bus_loopback, f)

#define RO SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE

static const sd_bus_vtable device_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Name", "s", bus_snapshot_prop_string, LB(name), SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("State", "s", bus_snapshot_prop_string, LB(state), RO),
	SD_BUS_PROPERTY("Removing", "b", bus_snapshot_prop_bool, LB(removing), RO),
	SD_BUS_PROPERTY("Generation", "u", NULL, LB(generation), RO),
	SD_BUS_PROPERTY("Gid", "s", bus_snapshot_prop_string, LB(gid), RO),
	SD_BUS_PROPERTY("Pending", "b", bus_snapshot_prop_bool, LB(pending), RO),
	SD_BUS_PROPERTY("DmbType", "s", bus_snapshot_prop_string, LB(dmb_type), RO),
	SD_BUS_PROPERTY("Nocopy", "b", bus_snapshot_prop_bool, LB(nocopy), RO),
	SD_BUS_PROPERTY("MaxDmbs", "u", NULL, LB(max_dmbs), RO),
	SD_BUS_PROPERTY("ActiveDmbType", "s", bus_snapshot_prop_string, LB(active_dmb_type), RO),
	SD_BUS_PROPERTY("ActiveNocopy", "b", bus_snapshot_prop_bool, LB(active_nocopy), RO),
	SD_BUS_PROPERTY("ActiveMaxDmbs", "u", NULL, LB(active_max_dmbs), RO),
	SD_BUS_PROPERTY("DrainTimeoutMSec", "u", NULL, LB(drain_timeout_ms), RO),
	SD_BUS_PROPERTY("DrainRemainingMSec", "u", NULL, LB(drain_remaining_ms), RO),
	SD_BUS_PROPERTY("Dmbs", "u", NULL, LB(dmbs), RO),
	SD_BUS_PROPERTY("DmbBytes", "t", NULL, LB(dmb_bytes), RO),
	SD_BUS_PROPERTY("Attached", "u", NULL, LB(attached), RO),
	SD_BUS_PROPERTY("LinkGroups", "u", NULL, LB(link_groups), RO),
	SD_BUS_PROPERTY("Registrations", "t", NULL, LB(registrations), RO),
	SD_BUS_PROPERTY("Unregistrations", "t", NULL, LB(unregistrations), RO),
	SD_BUS_PROPERTY("AllocFailures", "t", NULL, LB(alloc_failures), RO),
	SD_BUS_PROPERTY("LimitRejects", "t", NULL, LB(limit_rejects), RO),
	SD_BUS_PROPERTY("Moves", "t", NULL, LB(moves), RO),
	SD_BUS_PROPERTY("MoveBytes", "t", NULL, LB(move_bytes), RO),
	SD_BUS_PROPERTY("MoveSignals", "t", NULL, LB(move_signals), RO),
	SD_BUS_PROPERTY("MoveErrors", "t", NULL, LB(move_errors), RO),
	SD_BUS_PROPERTY("Attaches", "t", NULL, LB(attaches), RO),
	SD_BUS_PROPERTY("Detaches", "t", NULL, LB(detaches), RO),
	SD_BUS_PROPERTY("Activations", "t", NULL, LB(activations), RO),
	SD_BUS_PROPERTY("Deactivations", "t", NULL, LB(deactivations), RO),
	SD_BUS_PROPERTY("DrainRejects", "t", NULL, LB(drain_rejects), RO),
	SD_BUS_VTABLE_END,
};

static void snapshot(const struct smclo_device *d, struct bus_loopback *s)
{
	_cleanup_(freep) char *p = NULL;
	const struct smclo_counters *c = &d->counters;

	memset(s, 0, sizeof(*s));
	if (sd_bus_path_encode(SMCD_BUS_PATH_SMCD_DEVICE, d->name, &p) >= 0 &&
	    strlen(p) < sizeof(s->path))
		snprintf(s->path, sizeof(s->path), "%s", p);
	else
		snprintf(s->path, sizeof(s->path), "%s/_", SMCD_BUS_PATH_SMCD_DEVICE);
	snprintf(s->name, sizeof(s->name), "%s", d->name);
	snprintf(s->state, sizeof(s->state), "%s", smclo_state_name(d->state) ?: "");
	s->removing = d->removing;
	s->generation = d->registered ? d->generation : 0;
	snprintf(s->gid, sizeof(s->gid), "%s", d->registered ? d->gid_uuid : "");
	s->pending = d->pending;
	snprintf(s->dmb_type, sizeof(s->dmb_type), "%s",
		 smclo_dmb_type_name(d->settings.dmb_type) ?: "");
	s->nocopy = d->settings.nocopy;
	s->max_dmbs = d->settings.max_dmbs;
	if (d->registered) {
		snprintf(s->active_dmb_type, sizeof(s->active_dmb_type), "%s",
			 smclo_dmb_type_name(d->active.dmb_type) ?: "");
		s->active_nocopy = d->active.nocopy;
		s->active_max_dmbs = d->active.max_dmbs;
	}
	s->drain_timeout_ms = d->state == SMCLO_STATE_DRAINING ? d->drain_timeout_ms : 0;
	s->drain_remaining_ms = d->has_drain_remaining ? d->drain_remaining_ms : 0;
	s->dmbs = c->dmbs;
	s->dmb_bytes = c->dmb_bytes;
	s->attached = c->attached;
	s->link_groups = c->link_groups;
	s->registrations = c->registrations;
	s->unregistrations = c->unregistrations;
	s->alloc_failures = c->alloc_failures;
	s->limit_rejects = c->limit_rejects;
	s->moves = c->moves;
	s->move_bytes = c->move_bytes;
	s->move_signals = c->move_signals;
	s->move_errors = c->move_errors;
	s->attaches = c->attaches;
	s->detaches = c->detaches;
	s->activations = c->activations;
	s->deactivations = c->deactivations;
	s->drain_rejects = c->drain_rejects;
}

static const struct bus_snapshot_type device_type = {
	.iface = SMCD_BUS_IFACE_LOOPBACK_DEVICE,
	.vtable = device_vtable,
	.size = sizeof(struct bus_loopback),
	.path_offset = LB(path),
	/* The path is the Device object's too while the DIBS device is registered. */
	.whole_object = false,
};

static void monitor_close(struct loopback *lb)
{
	lb->mon_src = sd_event_source_disable_unref(lb->mon_src);
	smclo_monitor_close(lb->mon);
	lb->mon = NULL;
}

static int on_notification(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct manager *m = userdata;
	struct loopback *lb = m->loopback;
	struct smclo_device d;
	int r;

	/* Take every waiting message; the state itself is read again with a GET. */
	while ((r = smclo_monitor_read(lb->mon, &d)) > 0)
		log_debug("smc_lo: %s, %s", smclo_event_name(d.event) ?: "?",
			  smclo_state_name(d.state) ?: "?");
	if (r == -ESTALE)
		/* Unloaded or loaded again: the refresh below opens a monitor for the new
		 * family once it is there; until then this one hears nlctrl for it. */
		log_info("smc_lo's netlink family was unregistered or registered again");
	else if (r < 0 && r != -ENOBUFS) {
		log_warning_errno(r, "Reading smc_lo's notifications failed, polling only: %m");
		monitor_close(lb);
	}
	(void)loopback_refresh(m);
	return 0;
}

static void monitor_open(struct manager *m, struct loopback *lb)
{
	struct kernel *k = m->kernel;
	int r;

	if (lb->mon || lb->no_monitor || !m->event)
		return;
	r = k->ops->smclo_monitor(k, &lb->mon);
	if (r == -EOPNOTSUPP) {
		lb->no_monitor = true;
		return;
	}
	if (r < 0) {
		lb->mon = NULL;
		return;
	}
	if (smclo_monitor_fd(lb->mon) < 0 ||
	    sd_event_add_io(m->event, &lb->mon_src, smclo_monitor_fd(lb->mon), EPOLLIN,
			    on_notification, m) < 0)
		monitor_close(lb);
}

int loopback_refresh(struct manager *m)
{
	struct loopback *lb = lb_of(m);
	struct kernel *k = m->kernel;
	const struct bus_loopback *o, *n;
	struct bus_loopback old;
	struct smclo_device d;
	bool was = lb ? lb->present : false;
	int r;

	if (!lb)
		return -ENOMEM;
	old = lb->snap;
	/* An error that says nothing about the device (not "no module", not "no family")
	 * keeps the object as it was: reading it as "gone" removed it from D-Bus and added it
	 * back at the next refresh. */
	r = k->ops->module_loaded(k, MODULE);
	if (r < 0)
		return r;
	if (r > 0) {
		r = k->ops->smclo_get(k, &d);
		if (r < 0 && r != -ENOENT && r != -EPROTONOSUPPORT && r != -EOPNOTSUPP && r != -ENODEV)
			return r;
	} else
		r = -ENOENT;
	if (r == 0) {
		snapshot(&d, &lb->snap);
		lb->present = true;
		/* The GET found the family under a new id (module reloaded): listen anew. */
		if (smclo_monitor_stale(lb->mon))
			monitor_close(lb);
		monitor_open(m, lb);
	} else {
		lb->present = false;
		/* A stale monitor stays: it hears nlctrl announce the family's return. */
		if (!smclo_monitor_stale(lb->mon))
			monitor_close(lb);
	}
	o = was ? &old : NULL;
	n = lb->present ? &lb->snap : NULL;
	/* A new path (another device name) is a removal and an addition. */
	if (o && n && !streq(o->path, n->path)) {
		(void)bus_snapshot_emit(m->bus, &device_type, o, NULL);
		o = NULL;
	}
	(void)bus_snapshot_emit(m->bus, &device_type, o, n);
	return 0;
}

static int find_device(sd_bus *bus, const char *path, const char *iface, void *userdata, void **ret,
		       sd_bus_error *error)
{
	struct manager *m = userdata;

	if (!m->loopback || !m->loopback->present || !streq(path, m->loopback->snap.path))
		return 0;
	*ret = &m->loopback->snap;
	return 1;
}

static int enumerate(sd_bus *bus, const char *prefix, void *userdata, char ***ret, sd_bus_error *error)
{
	struct manager *m = userdata;
	char **v = calloc(2, sizeof(char *));

	if (!v)
		return -ENOMEM;
	if (m->loopback && m->loopback->present && !(v[0] = strdup(m->loopback->snap.path))) {
		free(v);
		return -ENOMEM;
	}
	*ret = v;
	return 0;
}

void loopback_free(struct manager *m)
{
	if (!m->loopback)
		return;
	monitor_close(m->loopback);
	free(m->loopback);
	m->loopback = NULL;
}

/* ------------------------------------------------------------------------------------- */
/* org.smcd.Agent1.Loopback                                                                */

static int owned(struct manager *m, sd_bus_error *error, struct config_mark mark, const char *what)
{
	return sd_bus_error_setf(error, SMCD_BUS_ERROR_OWNED,
				 "%s is managed by %s:%u:%u; change it there and reload", what,
				 m->config->path, mark.line, mark.column);
}

static int kernel_error(struct manager *m, sd_bus_error *error, enum smc_op op, int r)
{
	char buf[512];

	return sd_bus_error_set(
		error, r == -EPROTONOSUPPORT ? SMCD_BUS_ERROR_NO_MODULE : SMCD_BUS_ERROR_KERNEL,
		errtext(m->kernel, op, r, buf, sizeof(buf)));
}

/* The module, loaded with libkmod if needed (the agent may; smcctl relies on autoload). */
static int need_module(struct manager *m, sd_bus_error *error)
{
	struct kernel *k = m->kernel;
	char msg[200] = "";
	int r;

	if (k->ops->module_loaded(k, MODULE) > 0)
		return 0;
	r = k->ops->module_load(k, MODULE, msg, sizeof(msg));
	if (r == -ENOENT)
		return sd_bus_error_set(
			error, SMCD_BUS_ERROR_NO_MODULE,
			"the smc_lo module is not loaded: install smc-lo-dkms or modprobe smc_lo");
	if (r < 0)
		return sd_bus_error_setf(error, SMCD_BUS_ERROR_KERNEL, "cannot load smc_lo: %s",
					 msg[0] ? msg : strerror(-r));
	log_info("Loaded %s for a D-Bus request", MODULE);
	return 0;
}

static void log_change(sd_bus_message *msg, const char *what)
{
	log_fields(LOG_NOTICE, 0, (const char *const[]){ "SMC_ITEM=loopback", NULL },
		   "Runtime change requested by %s: loopback device: %s",
		   sd_bus_message_get_sender(msg) ?: "?", what);
}

static int method_activate(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	struct smclo_device d;
	bool changed = false;
	int r;

	r = bus_check_admin(msg, m, error);
	if (r < 0)
		return r;
	if (m->config->loopback.has_active)
		return owned(m, error, m->config->loopback.active_mark,
			     "The loopback device's state");
	r = need_module(m, error);
	if (r < 0)
		return r;
	log_change(msg, "activate");
	r = m->kernel->ops->smclo_activate(m->kernel, &d, &changed);
	(void)loopback_refresh(m);
	if (r < 0)
		return kernel_error(m, error, SMC_OP_LOOPBACK_ACTIVATE, r);
	return sd_bus_reply_method_return(msg, "b", (int)changed);
}

static int method_deactivate(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	struct smclo_shutdown_result res;
	struct kernel *k = m->kernel;
	uint32_t secs;
	int r;

	r = sd_bus_message_read(msg, "u", &secs);
	if (r < 0)
		return r;
	if (secs < 1 || secs > BUS_WAIT_MAX_S)
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "the drain bound is 1 to %d seconds through smcd-agent "
					 "(it waits in its event loop), got %" PRIu32,
					 BUS_WAIT_MAX_S, secs);
	r = bus_check_admin(msg, m, error);
	if (r < 0)
		return r;
	if (m->config->loopback.has_active)
		return owned(m, error, m->config->loopback.active_mark,
			     "The loopback device's state");
	/* Nothing registered: inactive already (smcctl says "not loaded"). */
	if (k->ops->module_loaded(k, MODULE) <= 0) {
		(void)loopback_refresh(m);
		return sd_bus_reply_method_return(msg, "bu", 0, (uint32_t)0);
	}
	log_change(msg, "deactivate");
	r = k->ops->smclo_shutdown(k, secs * 1000, REMOVAL_MS, &res);
	(void)loopback_refresh(m);
	if (r == -ETIMEDOUT)
		return sd_bus_error_setf(
			error, SMCD_BUS_ERROR_KERNEL,
			"%s is still being removed %u s after the drain began: %u DMBs, %u link "
			"groups and %u nocopy attachments hold it (applications keep aborted "
			"connections open); PNET ID %s keeps it out of new connections until it is "
			"gone: run this again after they closed them",
			res.last.name, res.waited_ms / 1000, res.last.counters.dmbs,
			res.last.counters.link_groups, res.last.counters.attached,
			SMCLO_DRAIN_PNETID);
	if (r < 0)
		return kernel_error(m, error, SMC_OP_LOOPBACK_DEACTIVATE, r);
	return sd_bus_reply_method_return(msg, "bu", (int)res.was_active, res.waited_ms);
}

static int method_set(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	const struct config_loopback *c = &m->config->loopback;
	struct smclo_set_request q = {};
	const char *key, *value;
	struct smclo_device d;
	char what[96];
	int r;

	r = sd_bus_message_read(msg, "ss", &key, &value);
	if (r < 0)
		return r;
	if (streq(key, "dmb-type") && (streq(value, "physical") || streq(value, "virtual"))) {
		q.set_dmb_type = true;
		q.dmb_type = streq(value, "virtual") ? SMCLO_DMB_VIRTUAL : SMCLO_DMB_PHYSICAL;
	} else if (streq(key, "nocopy") && (streq(value, "on") || streq(value, "off"))) {
		q.set_nocopy = true;
		q.nocopy = streq(value, "on");
	} else if (streq(key, "max-dmbs")) {
		char *end;
		unsigned long v = strtoul(value, &end, 10);

		if (!*value || *end || value[0] == '-' || v < SMCLO_MAX_DMBS_MIN ||
		    v > SMCLO_MAX_DMBS_MAX)
			return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
						 "invalid max-dmbs '%s': %d to %d", value,
						 SMCLO_MAX_DMBS_MIN, SMCLO_MAX_DMBS_MAX);
		q.set_max_dmbs = true;
		q.max_dmbs = (uint32_t)v;
	} else {
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "invalid setting '%s %s' (dmb-type physical|virtual, "
					 "nocopy on|off, max-dmbs N)",
					 key, value);
	}
	r = bus_check_admin(msg, m, error);
	if (r < 0)
		return r;
	if (q.set_dmb_type && c->has_dmb_type)
		return owned(m, error, c->dmb_type_mark, "loopback.dmb-type");
	if (q.set_nocopy && c->has_nocopy)
		return owned(m, error, c->nocopy_mark, "loopback.nocopy");
	if (q.set_max_dmbs && c->has_max_dmbs)
		return owned(m, error, c->max_dmbs_mark, "loopback.max-dmbs");
	r = need_module(m, error);
	if (r < 0)
		return r;
	snprintf(what, sizeof(what), "set %s %s", key, value);
	log_change(msg, what);
	r = m->kernel->ops->smclo_set(m->kernel, &q, &d);
	(void)loopback_refresh(m);
	if (r < 0)
		return kernel_error(m, error, SMC_OP_LOOPBACK_SET, r);
	return sd_bus_reply_method_return(msg, NULL);
}

#define ANYONE SD_BUS_VTABLE_UNPRIVILEGED

static const sd_bus_vtable loopback_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD_WITH_ARGS("Activate", SD_BUS_NO_ARGS, SD_BUS_RESULT("b", changed),
				method_activate, ANYONE),
	SD_BUS_METHOD_WITH_ARGS("Deactivate", SD_BUS_ARGS("u", seconds),
				SD_BUS_RESULT("b", changed, "u", waited_msec), method_deactivate,
				ANYONE),
	SD_BUS_METHOD_WITH_ARGS("Set", SD_BUS_ARGS("s", setting, "s", value), SD_BUS_NO_RESULT,
				method_set, ANYONE),
	SD_BUS_VTABLE_END,
};

int bus_loopback_register(struct manager *m)
{
	int r;

	if (!lb_of(m))
		return -ENOMEM;
	r = sd_bus_add_object_vtable(m->bus, NULL, SMCD_BUS_PATH, SMCD_BUS_IFACE_LOOPBACK,
				     loopback_vtable, m);
	if (r >= 0)
		r = sd_bus_add_fallback_vtable(m->bus, NULL, SMCD_BUS_PATH_SMCD_DEVICE,
					       SMCD_BUS_IFACE_LOOPBACK_DEVICE, device_vtable,
					       find_device, m);
	if (r >= 0)
		r = sd_bus_add_node_enumerator(m->bus, NULL, SMCD_BUS_PATH, enumerate, m);
	return r;
}
