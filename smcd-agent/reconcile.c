// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/macro.h"
#include "common/ueid-derive.h"
#include "common/util.h"
#include "smcd-agent/loopback-reconcile.h"
#include "smcd-agent/reconcile.h"

static const char *const item_result_names[_ITEM_RESULT_MAX] = {
	[ITEM_UNCHANGED] = "unchanged",	    [ITEM_APPLIED] = "applied", [ITEM_FAILED] = "failed",
	[ITEM_UNSUPPORTED] = "unsupported", [ITEM_DRIFTED] = "drifted",
};

const char *item_result_to_string(enum item_result r)
{
	return r < _ITEM_RESULT_MAX ? item_result_names[r] : NULL;
}

/* ------------------------------------------------------------------------------------- */
/* Plan containers                                                                        */

void plan_clear(struct plan *p)
{
	free(p->items);
	p->items = NULL;
	p->n = 0;
}

size_t plan_count_changes(const struct plan *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n; i++)
		n += p->items[i].action >= PLAN_MODULE_LOAD;
	return n;
}

_printf_(3, 4) static struct plan_item *plan_add(struct plan *p, enum plan_action action,
						 const char *fmt, ...)
{
	struct plan_item *v = realloc(p->items, (p->n + 1) * sizeof(*v));
	va_list ap;

	if (!v)
		return NULL;
	p->items = v;
	v = &p->items[p->n++];
	memset(v, 0, sizeof(*v));
	v->action = action;
	va_start(ap, fmt);
	vsnprintf(v->name, sizeof(v->name), fmt, ap);
	va_end(ap);
	return v;
}

/* Say why a query failed, in the words libsmcnl has for it. */
static void set_query_failure(struct plan_item *it, int err)
{
	char buf[200];

	it->action = err == -EPROTONOSUPPORT ? PLAN_UNSUPPORTED : PLAN_FAILED;
	snprintf(it->message, sizeof(it->message), "%s",
		 smc_strerror(SMC_OP_QUERY, err, NULL, buf, sizeof(buf)));
}

/* ------------------------------------------------------------------------------------- */
/* Observe                                                                                */

void actual_state_clear(struct actual_state *a)
{
	free(a->module_loaded);
	free(a->module_err);
	free(a->sysctls);
	free(a->pnet);
	memset(a, 0, sizeof(*a));
}

int actual_observe_modules(struct kernel *k, const struct config *c, struct actual_state *a)
{
	free(a->module_loaded);
	free(a->module_err);
	a->module_loaded = calloc(c->n_modules + 1, sizeof(bool));
	a->module_err = calloc(c->n_modules + 1, sizeof(int));
	if (!a->module_loaded || !a->module_err)
		return -ENOMEM;
	for (size_t i = 0; i < c->n_modules; i++) {
		int r = k->ops->module_loaded(k, c->modules[i]);

		a->module_loaded[i] = r > 0;
		a->module_err[i] = r < 0 ? r : 0;
	}
	return 0;
}

/* Reads only what the config manages: `leave` means not even looking. */
int actual_observe(struct kernel *k, const struct config *c, struct actual_state *a)
{
	int r;

	r = k->ops->caps(k, &a->caps);
	if (r < 0)
		memset(&a->caps, 0, sizeof(a->caps));
	a->ueid_err = k->ops->ueid_list(k, a->ueids, &a->n_ueids);
	if (c->seid != CONFIG_LEAVE)
		a->seid_err = k->ops->seid_get(k, &a->seid);
	if (c->hs_limitation != CONFIG_LEAVE)
		a->hs_err = k->ops->hs_get(k, &a->hs);
	free(a->sysctls);
	a->sysctls = calloc(c->n_sysctls + 1, sizeof(*a->sysctls));
	if (!a->sysctls)
		return -ENOMEM;
	for (size_t i = 0; i < c->n_sysctls; i++) {
		struct actual_sysctl *s = &a->sysctls[i];

		s->err = k->ops->sysctl_get(k, c->sysctls[i].desc->name, s->value, sizeof(s->value));
		if (s->err >= 0)
			strstrip_trailing(s->value);
	}
	free(a->pnet);
	a->pnet = NULL;
	a->n_pnet = 0;
	if (c->pnet.n_entries > 0 || c->pnet.exclusive)
		a->pnet_err = k->ops->pnet_list(k, &a->pnet, &a->n_pnet);
	return 0;
}

/* ------------------------------------------------------------------------------------- */
/* The derived UEID                                                                       */

/* The derivation is common/ueid-derive's, shared with "smcctl ueid derive". */
int ueid_auto_derive(const char *machine_id_file, enum ueid_derivation how, char ret[SMC_EID_LEN + 1],
		     char ret_other[SMC_EID_LEN + 1], char *err, size_t errlen)
{
	char id[MACHINE_ID_LEN + 1], ueid[UEID_DERIVED_MAX + 1];
	const char *reason = NULL;
	int r;

	r = machine_id_read(machine_id_file, id, &reason);
	if (r < 0) {
		if (reason)
			snprintf(err, errlen, "%s %s", machine_id_file, reason);
		else
			snprintf(err, errlen, "cannot read %s: %s", machine_id_file, strerror(-r));
		return r;
	}
	ueid_derive(id, how, ueid);
	snprintf(ret, SMC_EID_LEN + 1, "%s", ueid);
	if (ret_other) {
		ueid_derive(id,
			    how == UEID_DERIVE_MACHINE_ID ? UEID_DERIVE_APP_SPECIFIC
							  : UEID_DERIVE_MACHINE_ID,
			    ueid);
		snprintf(ret_other, SMC_EID_LEN + 1, "%s", ueid);
	}
	explicit_bzero(id, sizeof(id));
	return 0;
}

void desired_extra_compute(const struct config *c, struct desired_extra *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (c->ueid.auto_derive &&
	    ueid_auto_derive(c->ueid.machine_id_file, c->ueid.derivation, ret->auto_ueid,
			     ret->other_ueid, ret->auto_error, sizeof(ret->auto_error)) < 0) {
		ret->auto_ueid[0] = '\0';
		ret->other_ueid[0] = '\0';
	}
}

/* ------------------------------------------------------------------------------------- */
/* Plan                                                                                   */

int plan_modules(const struct config *c, const struct actual_state *a, struct plan *p)
{
	for (size_t i = 0; i < c->n_modules; i++) {
		struct plan_item *it;

		it = plan_add(p, a->module_loaded[i] ? PLAN_NONE : PLAN_MODULE_LOAD, "module:%s",
			      c->modules[i]);
		if (!it)
			return -ENOMEM;
		snprintf(it->arg, sizeof(it->arg), "%s", c->modules[i]);
		snprintf(it->desired, sizeof(it->desired), "loaded");
		snprintf(it->actual, sizeof(it->actual), "%s",
			 a->module_loaded[i] ? "loaded" : "not loaded");
		/* Not knowing is not "not loaded": no load on a guess, the item fails. */
		if (a->module_err && a->module_err[i] < 0) {
			it->action = PLAN_FAILED;
			snprintf(it->actual, sizeof(it->actual), "unknown");
			snprintf(it->message, sizeof(it->message),
				 "cannot tell whether %s is loaded: %s (retried at the next reconciliation)",
				 c->modules[i], strerror(-a->module_err[i]));
		}
	}
	return 0;
}

static bool ueid_in_kernel(const struct actual_state *a, const char *ueid)
{
	for (size_t i = 0; i < a->n_ueids; i++)
		if (streq(a->ueids[i], ueid))
			return true;
	return false;
}

static bool ueid_wanted(const struct config *c, const struct desired_extra *x, const char *ueid)
{
	if (x->auto_ueid[0] && streq(x->auto_ueid, ueid))
		return true;
	for (size_t i = 0; i < c->ueid.n_entries; i++)
		if (streq(c->ueid.entries[i].ueid, ueid))
			return true;
	return false;
}

/* The other derivation's UEID of this machine, in the table and not listed: ueid.auto's. */
static bool ueid_replaced(const struct config *c, const struct desired_extra *x,
			  const struct actual_state *a)
{
	return x->other_ueid[0] && a->ueid_err >= 0 && ueid_in_kernel(a, x->other_ueid) &&
	       !ueid_wanted(c, x, x->other_ueid);
}

/*
 * Removed with a message for the journal (the item's "removed: ..." line at start or
 * reload): which UEID replaced it, and how to keep it.  Its peers may know this host only by
 * it (debian/smcd-agent.NEWS).
 */
static int plan_replaced_ueid(const struct config *c, const struct desired_extra *x, struct plan *p)
{
	enum ueid_derivation other = c->ueid.derivation == UEID_DERIVE_MACHINE_ID
					     ? UEID_DERIVE_APP_SPECIFIC
					     : UEID_DERIVE_MACHINE_ID;
	struct plan_item *it = plan_add(p, PLAN_UEID_DEL, "ueid:%s", x->other_ueid);

	if (!it)
		return -ENOMEM;
	snprintf(it->arg, sizeof(it->arg), "%s", x->other_ueid);
	snprintf(it->desired, sizeof(it->desired), "absent (replaced by %s)", x->auto_ueid);
	snprintf(it->actual, sizeof(it->actual), "present");
	snprintf(it->message, sizeof(it->message),
		 "this machine's UEID by ueid.derive: %s, replaced by %s (ueid.derive: %s); "
		 "to keep it, set ueid.derive: %s or list it in ueid.entries",
		 ueid_derivation_names[other], x->auto_ueid,
		 ueid_derivation_names[c->ueid.derivation], ueid_derivation_names[other]);
	return 0;
}

static int plan_one_ueid(const struct actual_state *a, const char *ueid, struct plan *p)
{
	struct plan_item *it = plan_add(p, PLAN_NONE, "ueid:%s", ueid);

	if (!it)
		return -ENOMEM;
	snprintf(it->arg, sizeof(it->arg), "%s", ueid);
	snprintf(it->desired, sizeof(it->desired), "present");
	if (a->ueid_err < 0) {
		set_query_failure(it, a->ueid_err);
		return 0;
	}
	snprintf(it->actual, sizeof(it->actual), "%s",
		 ueid_in_kernel(a, ueid) ? "present" : "absent");
	if (!ueid_in_kernel(a, ueid))
		it->action = PLAN_UEID_ADD;
	return 0;
}

static int plan_ueids(const struct config *c, const struct desired_extra *x,
		      const struct actual_state *a, struct plan *p)
{
	int r;

	/* Removals first: the table holds 4, an addition may need the room. */
	if (c->ueid.exclusive && a->ueid_err >= 0)
		for (size_t i = 0; i < a->n_ueids; i++) {
			struct plan_item *it;

			if (ueid_wanted(c, x, a->ueids[i]) ||
			    (x->other_ueid[0] && streq(a->ueids[i], x->other_ueid)))
				continue; /* wanted, or removed below with its reason */
			it = plan_add(p, PLAN_UEID_DEL, "ueid:%s", a->ueids[i]);
			if (!it)
				return -ENOMEM;
			snprintf(it->arg, sizeof(it->arg), "%s", a->ueids[i]);
			snprintf(it->desired, sizeof(it->desired), "absent (ueid.exclusive)");
			snprintf(it->actual, sizeof(it->actual), "present");
		}
	if (ueid_replaced(c, x, a) && (r = plan_replaced_ueid(c, x, p)) < 0)
		return r;
	if (c->ueid.auto_derive) {
		if (x->auto_ueid[0])
			r = plan_one_ueid(a, x->auto_ueid, p);
		else {
			struct plan_item *it = plan_add(p, PLAN_FAILED, "ueid:auto");

			if (!it)
				return -ENOMEM;
			snprintf(it->desired, sizeof(it->desired), "derived from %s",
				 c->ueid.machine_id_file);
			snprintf(it->message, sizeof(it->message), "%s", x->auto_error);
			r = 0;
		}
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < c->ueid.n_entries; i++) {
		if (x->auto_ueid[0] && streq(x->auto_ueid, c->ueid.entries[i].ueid))
			continue; /* listed and derived: one item */
		r = plan_one_ueid(a, c->ueid.entries[i].ueid, p);
		if (r < 0)
			return r;
	}
	return 0;
}

static int plan_seid(const struct config *c, const struct actual_state *a, struct plan *p)
{
	bool want = c->seid == CONFIG_ENABLE;
	struct plan_item *it;

	if (c->seid == CONFIG_LEAVE)
		return 0;
	it = plan_add(p, PLAN_NONE, "seid");
	if (!it)
		return -ENOMEM;
	it->enable = want;
	snprintf(it->desired, sizeof(it->desired), "%s", want ? "enabled" : "disabled");
	if (a->seid_err < 0) {
		set_query_failure(it, a->seid_err);
		return 0;
	}
	if (!a->seid.present) {
		/* No SEID (every machine but s390): "disabled" already holds, "enabled" cannot. */
		snprintf(it->actual, sizeof(it->actual), "no SEID on this machine");
		if (want) {
			it->action = PLAN_UNSUPPORTED;
			snprintf(it->message, sizeof(it->message),
				 "this machine has no SEID (only s390 systems have one): use a UEID");
		}
		return 0;
	}
	snprintf(it->actual, sizeof(it->actual), "%s", a->seid.enabled ? "enabled" : "disabled");
	if (a->seid.enabled != want)
		it->action = PLAN_SEID_SET;
	return 0;
}

static int plan_hs(const struct config *c, const struct actual_state *a, struct plan *p)
{
	bool want = c->hs_limitation == CONFIG_ENABLE;
	struct plan_item *it;

	if (c->hs_limitation == CONFIG_LEAVE)
		return 0;
	it = plan_add(p, PLAN_NONE, "handshake-limitation");
	if (!it)
		return -ENOMEM;
	it->enable = want;
	snprintf(it->desired, sizeof(it->desired), "%s", want ? "true" : "false");
	if (a->hs_err < 0) {
		set_query_failure(it, a->hs_err);
		return 0;
	}
	snprintf(it->actual, sizeof(it->actual), "%s", a->hs ? "true" : "false");
	if (a->hs != want)
		it->action = PLAN_HS_SET;
	return 0;
}

/* The text the kernel's file takes and shows for a configured value. */
static void sysctl_kernel_text(const struct config_sysctl *s, char *buf, size_t len)
{
	if (s->desc->unit == SMC_UNIT_STRING)
		snprintf(buf, len, "%s", s->string);
	else
		snprintf(buf, len, "%" PRId64, s->value);
}

static int plan_sysctls(const struct config *c, const struct actual_state *a, struct plan *p)
{
	for (size_t i = 0; i < c->n_sysctls; i++) {
		const struct config_sysctl *s = &c->sysctls[i];
		const struct actual_sysctl *as = &a->sysctls[i];
		struct plan_item *it = plan_add(p, PLAN_NONE, "sysctl:%s", s->desc->name);

		if (!it)
			return -ENOMEM;
		snprintf(it->arg, sizeof(it->arg), "%s", s->desc->name);
		sysctl_kernel_text(s, it->value, sizeof(it->value));
		snprintf(it->desired, sizeof(it->desired), "%s", it->value);
		if (as->err == -ENOENT && !a->caps.smc_module) {
			it->action = PLAN_UNSUPPORTED;
			snprintf(it->message, sizeof(it->message),
				 "SMC is not loaded in this kernel (no /proc/sys/net/smc)");
		} else if (as->err == -ENOENT) {
			it->action = PLAN_UNSUPPORTED;
			snprintf(it->message, sizeof(it->message),
				 "this kernel has no net.smc.%s (it appeared in Linux %s)",
				 s->desc->name, s->desc->since ? s->desc->since : "a later release");
		} else if (as->err < 0) {
			it->action = PLAN_FAILED;
			snprintf(it->message, sizeof(it->message), "cannot read net.smc.%s: %s",
				 s->desc->name, strerror(-as->err));
		} else {
			snprintf(it->actual, sizeof(it->actual), "%s", as->value);
			if (!streq(as->value, it->value))
				it->action = PLAN_SYSCTL_SET;
		}
	}
	return 0;
}

static bool pnet_matches(const struct config_pnet *cp, const struct smc_pnet_entry *e)
{
	if (!streq(cp->pnetid, e->pnetid))
		return false;
	if (cp->eth[0])
		return streq(cp->eth, e->eth_name);
	return streq(cp->ib, e->ib_name) && cp->port == e->ib_port;
}

static bool pnet_entry_wanted(const struct config *c, const struct smc_pnet_entry *e)
{
	for (size_t i = 0; i < c->pnet.n_entries; i++)
		if (pnet_matches(&c->pnet.entries[i], e))
			return true;
	return false;
}

static void pnet_device_name(const struct config_pnet *cp, char *buf, size_t len)
{
	if (cp->eth[0])
		snprintf(buf, len, "%s", cp->eth);
	else
		snprintf(buf, len, "%s/%u", cp->ib, cp->port);
}

/*
 * The kernel deletes by PNET ID only.  With pnet.exclusive, a PNET ID that has any entry the
 * config does not list is deleted as a whole, and its listed entries are added back.
 */
static int plan_pnet(const struct config *c, const struct actual_state *a, struct plan *p)
{
	char deleted[64][SMC_PNETID_LEN + 1];
	size_t n_deleted = 0;

	if (a->pnet_err >= 0 && c->pnet.exclusive)
		for (size_t i = 0; i < a->n_pnet; i++) {
			const struct smc_pnet_entry *e = &a->pnet[i];
			bool done = false;
			struct plan_item *it;

			/* The loopback handling's PNET IDs are the loopback: section's (loopback.c). */
			if (pnet_entry_wanted(c, e) || loopback_pnetid_reserved(e->pnetid))
				continue;
			for (size_t j = 0; j < n_deleted; j++)
				done |= streq(deleted[j], e->pnetid);
			if (done || n_deleted >= ELEMENTSOF(deleted))
				continue;
			snprintf(deleted[n_deleted++], SMC_PNETID_LEN + 1, "%s", e->pnetid);
			it = plan_add(p, PLAN_PNET_DEL, "pnet:%s", e->pnetid);
			if (!it)
				return -ENOMEM;
			snprintf(it->arg, sizeof(it->arg), "%s", e->pnetid);
			snprintf(it->desired, sizeof(it->desired), "only the entries in smc.yaml");
			snprintf(it->actual, sizeof(it->actual), "%s has %.40s (not in smc.yaml)",
				 e->pnetid, e->eth_name[0] ? e->eth_name : e->ib_name);
		}
	for (size_t i = 0; i < c->pnet.n_entries; i++) {
		const struct config_pnet *cp = &c->pnet.entries[i];
		char dev[80];
		struct plan_item *it;
		bool present = false;

		pnet_device_name(cp, dev, sizeof(dev));
		it = plan_add(p, PLAN_NONE, "pnet:%s:%s", cp->pnetid, dev);
		if (!it)
			return -ENOMEM;
		snprintf(it->pnet.pnetid, sizeof(it->pnet.pnetid), "%s", cp->pnetid);
		snprintf(it->pnet.eth_name, sizeof(it->pnet.eth_name), "%s", cp->eth);
		snprintf(it->pnet.ib_name, sizeof(it->pnet.ib_name), "%s", cp->ib);
		it->pnet.ib_port = cp->ib[0] ? cp->port : 0;
		snprintf(it->desired, sizeof(it->desired), "present");
		if (a->pnet_err < 0) {
			set_query_failure(it, a->pnet_err);
			continue;
		}
		for (size_t j = 0; j < a->n_pnet; j++)
			present |= pnet_matches(cp, &a->pnet[j]);
		for (size_t j = 0; j < n_deleted; j++)
			if (streq(deleted[j], cp->pnetid))
				present = false;
		snprintf(it->actual, sizeof(it->actual), "%s", present ? "present" : "absent");
		if (!present)
			it->action = PLAN_PNET_ADD;
	}
	return 0;
}

int plan_settings(const struct config *c, const struct desired_extra *x,
		  const struct actual_state *a, struct plan *p)
{
	int r;

	r = plan_ueids(c, x, a, p);
	if (r >= 0)
		r = plan_seid(c, a, p);
	if (r >= 0)
		r = plan_hs(c, a, p);
	if (r >= 0)
		r = plan_sysctls(c, a, p);
	if (r >= 0)
		r = plan_pnet(c, a, p);
	return r;
}

/* ------------------------------------------------------------------------------------- */
/* Apply                                                                                  */

void report_clear(struct report *r)
{
	free(r->items);
	memset(r, 0, sizeof(*r));
}

const struct item_report *report_find(const struct report *r, const char *name)
{
	for (size_t i = 0; r && i < r->n; i++)
		if (streq(r->items[i].name, name))
			return &r->items[i];
	return NULL;
}

void report_count(const struct report *r, size_t counts[_ITEM_RESULT_MAX])
{
	memset(counts, 0, sizeof(size_t) * _ITEM_RESULT_MAX);
	for (size_t i = 0; i < r->n; i++)
		counts[r->items[i].result]++;
}

static enum smc_op plan_op(const struct plan_item *it)
{
	switch (it->action) {
	case PLAN_UEID_ADD:
		return SMC_OP_UEID_ADD;
	case PLAN_UEID_DEL:
		return SMC_OP_UEID_DEL;
	case PLAN_SEID_SET:
		return it->enable ? SMC_OP_SEID_ENABLE : SMC_OP_SEID_DISABLE;
	case PLAN_HS_SET:
		return SMC_OP_HS_LIMITATION_SET;
	case PLAN_SYSCTL_SET:
		return SMC_OP_SYSCTL_SET;
	case PLAN_PNET_ADD:
		return SMC_OP_PNET_ADD;
	case PLAN_PNET_DEL:
		return SMC_OP_PNET_DEL;
	default:
		return SMC_OP_QUERY;
	}
}

static int apply_one(struct kernel *k, const struct plan_item *it, char *msg, size_t len)
{
	switch (it->action) {
	case PLAN_MODULE_LOAD:
		return k->ops->module_load(k, it->arg, msg, len);
	case PLAN_UEID_ADD:
		return k->ops->ueid_add(k, it->arg);
	case PLAN_UEID_DEL:
		return k->ops->ueid_del(k, it->arg);
	case PLAN_SEID_SET:
		return k->ops->seid_set(k, it->enable);
	case PLAN_HS_SET:
		return k->ops->hs_set(k, it->enable);
	case PLAN_SYSCTL_SET:
		return k->ops->sysctl_set(k, it->arg, it->value);
	case PLAN_PNET_ADD:
		return k->ops->pnet_add(k, &it->pnet);
	case PLAN_PNET_DEL:
		return k->ops->pnet_del(k, it->arg);
	default:
		return 0;
	}
}

static void applied_message(const struct plan_item *it, char *buf, size_t len)
{
	switch (it->action) {
	case PLAN_MODULE_LOAD:
		snprintf(buf, len, "loaded");
		break;
	case PLAN_UEID_ADD:
	case PLAN_PNET_ADD:
		snprintf(buf, len, "added");
		break;
	case PLAN_UEID_DEL:
	case PLAN_PNET_DEL:
		snprintf(buf, len, "removed: %.200s", it->message[0] ? it->message : it->desired);
		break;
	default:
		snprintf(buf, len, "set to %s (was %s)", it->desired, it->actual);
		break;
	}
}

static bool converged_before(const struct report *previous, const char *name)
{
	const struct item_report *ir = report_find(previous, name);

	return ir && (ir->result == ITEM_UNCHANGED || ir->result == ITEM_APPLIED ||
		      ir->result == ITEM_DRIFTED);
}

int plan_apply(struct kernel *k, const struct plan *p, const struct report *previous,
	       bool report_only, struct report *ret)
{
	struct item_report *v = realloc(ret->items, (ret->n + p->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	ret->items = v;
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_item *it = &p->items[i];
		struct item_report *ir = &ret->items[ret->n++];
		char buf[200] = "";
		int r;

		memset(ir, 0, sizeof(*ir));
		snprintf(ir->name, sizeof(ir->name), "%s", it->name);
		switch (it->action) {
		case PLAN_NONE:
			ir->result = ITEM_UNCHANGED;
			snprintf(ir->message, sizeof(ir->message), "%s", it->actual);
			continue;
		case PLAN_UNSUPPORTED:
			ir->result = ITEM_UNSUPPORTED;
			snprintf(ir->message, sizeof(ir->message), "%s", it->message);
			continue;
		case PLAN_FAILED:
			ir->result = ITEM_FAILED;
			snprintf(ir->message, sizeof(ir->message), "%s", it->message);
			continue;
		default:
			break;
		}
		if (report_only && converged_before(previous, it->name)) {
			ir->result = ITEM_DRIFTED;
			snprintf(ir->message, sizeof(ir->message), "desired %s, actual %s",
				 it->desired, it->actual);
			continue;
		}
		r = apply_one(k, it, buf, sizeof(buf));
		if (r >= 0) {
			ir->result = ITEM_APPLIED;
			applied_message(it, ir->message, sizeof(ir->message));
		} else {
			ir->result = ITEM_FAILED;
			if (!buf[0])
				smc_strerror(plan_op(it), r, k->ops->extack(k), buf, sizeof(buf));
			snprintf(ir->message, sizeof(ir->message), "%s", buf);
		}
	}
	return 0;
}

int plan_settings_observed(struct kernel *k, const struct config *c, struct actual_state *a,
			   struct plan *p)
{
	struct desired_extra x;
	int r = actual_observe(k, c, a);

	if (r < 0)
		return r;
	desired_extra_compute(c, &x);
	return plan_settings(c, &x, a, p);
}

int reconcile(struct kernel *k, const struct config *c, const struct report *previous,
	      bool report_only, struct report *ret)
{
	struct actual_state a = {};
	struct plan p = {};
	int r;

	report_clear(ret);
	ret->timestamp = now_usec(CLOCK_REALTIME);

	/* Modules first, then look again: loading smc creates everything else. */
	r = actual_observe_modules(k, c, &a);
	if (r >= 0)
		r = plan_modules(c, &a, &p);
	if (r >= 0)
		r = plan_apply(k, &p, previous, report_only, ret);
	plan_clear(&p);
	if (r >= 0)
		r = plan_settings_observed(k, c, &a, &p);
	if (r >= 0)
		r = plan_apply(k, &p, previous, report_only, ret);
	plan_clear(&p);
	actual_state_clear(&a);
	return r;
}
