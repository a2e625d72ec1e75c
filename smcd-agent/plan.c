// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The dry run (plan.h): the agent's planners, their items as one JSON document, nothing
 * applied.  The document is built here, in the agent, because the planners are here: the
 * layering (ARCHITECTURE.md) keeps smcd-agent/ out of cli/, so smcctl asks the running agent
 * (PlanConfig) or runs "smcd-agent --plan" and renders what it gets (common/plan-text.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "common/output.h"
#include "common/plan-text.h"
#include "smcd-agent/log.h"
#include "smcd-agent/loopback-reconcile.h"
#include "smcd-agent/plan.h"
#include "smcd-agent/policy-engine.h"
#include "smcd-agent/reconcile.h"

/* What smc.yaml has that is no kernel state: applied by a reload, never planned. */
static const char not_kernel_state[] =
	"drift, monitor, stats, admin-group, rate-limit, assess, auto and loopback.drain-timeout: "
	"how the agent runs, not kernel state (they take effect at the reload)";

struct doc {
	json_object *items;
	json_object *unplanned;
	uint64_t changes;
};

static int add_item(struct doc *d, const char *name, const char *state, const char *action,
		    const char *current, const char *desired, const char *message)
{
	json_object *o = json_object_new_object();
	int r = 0;

	if (!o)
		return -ENOMEM;
	r |= json_add_str(o, "item", name);
	r |= json_add_str(o, "state", state);
	r |= json_add_str(o, "action", action ? action : "");
	r |= json_add_str(o, "current", current ? current : "");
	r |= json_add_str(o, "desired", desired ? desired : "");
	r |= json_add_str(o, "message", message ? message : "");
	if (r < 0) {
		json_object_put(o);
		return -ENOMEM;
	}
	d->changes += streq(state, "change");
	return json_append(d->items, o) < 0 ? -ENOMEM : 0;
}

/* ---- reconcile.c's items ---------------------------------------------------------------- */

static const char *plan_action_word(const struct plan_item *it)
{
	switch (it->action) {
	case PLAN_MODULE_LOAD:
		return "load";
	case PLAN_UEID_ADD:
	case PLAN_PNET_ADD:
		return "add";
	case PLAN_UEID_DEL:
	case PLAN_PNET_DEL:
		return "remove";
	case PLAN_SEID_SET:
		return it->enable ? "enable" : "disable";
	case PLAN_HS_SET:
	case PLAN_SYSCTL_SET:
		return "set";
	default:
		return "";
	}
}

static const char *plan_state_word(enum plan_action a)
{
	return a == PLAN_NONE	       ? "unchanged"
	       : a == PLAN_UNSUPPORTED ? "unsupported"
	       : a == PLAN_FAILED      ? "failed"
				       : "change";
}

static int add_plan(struct doc *d, const struct plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_item *it = &p->items[i];
		int r = add_item(d, it->name, plan_state_word(it->action), plan_action_word(it),
				 it->actual, it->desired, it->message);

		if (r < 0)
			return r;
	}
	return 0;
}

static int plan_reconcile(struct kernel *k, const struct config *c, struct doc *d)
{
	struct actual_state a = {};
	struct plan p = {};
	bool loads = false;
	int r;

	/* reconcile() without its two plan_apply() calls.  Settings are planned against the
	 * kernel as it is: what a module load would create is not there yet. */
	r = actual_observe_modules(k, c, &a);
	if (r >= 0)
		r = plan_modules(c, &a, &p);
	for (size_t i = 0; r >= 0 && i < p.n; i++)
		loads |= p.items[i].action == PLAN_MODULE_LOAD;
	if (r >= 0)
		r = plan_settings_observed(k, c, &a, &p);
	if (r >= 0)
		r = add_plan(d, &p);
	if (r >= 0 && loads)
		r = json_append_str(d->unplanned,
				    "what the module loads create: the items after them are planned "
				    "against the kernel as it is now (plan again after the load)");
	plan_clear(&p);
	actual_state_clear(&a);
	return r < 0 ? r : 0;
}

/* ---- loopback.c's items, through the dry-run kernel ------------------------------------- */

static int plan_loopback(struct kernel *k, const struct config *c, struct doc *d)
{
	_cleanup_(kernel_freep) struct kernel *dry = NULL;
	struct report rep = {};
	int r, level;

	r = kernel_dryrun_new(k, &dry);
	if (r < 0)
		return r;
	level = log_set_max_level(LOG_WARNING);
	r = loopback_reconcile(dry, &c->loopback, NULL, false, &rep);
	log_set_max_level(level);
	for (size_t i = 0; r >= 0 && i < rep.n; i++) {
		const struct item_report *ir = &rep.items[i];

		switch (ir->result) {
		case ITEM_APPLIED:
			/* The reconciler's words for what it did, which is what it would do. */
			r = add_item(d, ir->name, "change",
				     streq(ir->name, "loopback:module") ? "load" : "apply", "", "",
				     ir->message);
			break;
		case ITEM_UNCHANGED:
			r = add_item(d, ir->name, "unchanged", "", ir->message, "", "");
			break;
		default:
			r = add_item(d, ir->name, item_result_to_string(ir->result), "", "", "",
				     ir->message);
			break;
		}
	}
	report_clear(&rep);
	return r < 0 ? r : 0;
}

/* ---- policy-plan.c's items --------------------------------------------------------------- */

static const char *policy_state_word(enum policy_item_state s)
{
	static const char *const words[] = {
		[PI_OK] = "unchanged",	[PI_WAITING] = "waiting",
		[PI_CHANGE] = "change", [PI_UNSUPPORTED] = "unsupported",
		[PI_FAILED] = "failed",
	};

	return s < ELEMENTSOF(words) ? words[s] : "failed";
}

static bool op_serves(const struct policy_op *op, const struct policy_plan *p, size_t item)
{
	const struct policy_item *it = &p->items[item];

	if (op->item == (int)item)
		return true;
	if (op->item == POLICY_ITEM_ALL_RULES)
		return !streq(it->kind, "exclude");
	return op->item == POLICY_ITEM_ALL_EXCLUDE && streq(it->kind, "exclude");
}

/* The ops of one item, in words: "add cgroup path, add cgroup". */
static void item_ops(const struct policy_plan *p, size_t item, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < p->n_ops; i++) {
		const char *w = policy_op_to_string(p->ops[i].type);

		if (!op_serves(&p->ops[i], p, item) || strstr(buf, w))
			continue;
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? ", " : "", w);
	}
}

/* An op that serves no item: something smc.yaml no longer asks for goes. */
static int add_removal(struct doc *d, const struct policy_op *op)
{
	char name[POLICY_NAME_LEN + SMCBPF_CGROUP_PATH_MAX];

	switch (op->type) {
	case POP_PATH_DEL:
		snprintf(name, sizeof(name), "policy:cgroup:%s", op->path);
		break;
	case POP_CGID_DEL:
		snprintf(name, sizeof(name), "policy:cgroup-id:%" PRIu64, op->key);
		break;
	case POP_NETNS_DEL:
		snprintf(name, sizeof(name), "policy:netns-cookie:%" PRIu64, op->key);
		break;
	case POP_HS_SET:
		snprintf(name, sizeof(name), "policy:hs_ctrl:%s", op->path);
		break;
	default:
		snprintf(name, sizeof(name), "policy:%s",
			 op->type == POP_SELECT_UNLOAD ? "selection" : "exclusions");
		break;
	}
	return add_item(d, name, "change", policy_op_to_string(op->type), "present", "absent",
			"not in the file");
}

static int plan_policies(struct policy_engine *e, const struct config *c, struct doc *d)
{
	struct policy_plan p = {};
	char ops[256];
	int r;

	r = policy_plan_dry(e, c, &p);
	for (size_t i = 0; r >= 0 && i < p.n_items; i++) {
		const struct policy_item *it = &p.items[i];

		item_ops(&p, i, ops, sizeof(ops));
		r = add_item(d, it->name, policy_state_word(it->state),
			     it->state == PI_CHANGE ? ops : "", "", it->target, it->message);
	}
	for (size_t i = 0; r >= 0 && i < p.n_ops; i++)
		if (p.ops[i].item == POLICY_ITEM_NONE)
			r = add_removal(d, &p.ops[i]);
	policy_plan_clear(&p);
	return r < 0 ? r : 0;
}

/* Without the agent's engine: each entry named, none planned. */
static int policies_unplanned(const struct config *c, struct doc *d)
{
	static const char why[] =
		"not planned without a running smcd-agent: policies live in the agent's pinned BPF "
		"maps, and taking them over is a change";
	const struct config_policies *cp = &c->policies;
	char name[POLICY_NAME_LEN + 128];
	int r = 0;

	for (size_t i = 0; r >= 0 && i < cp->n_cgroups; i++) {
		snprintf(name, sizeof(name), "policy:cgroup:%s", cp->cgroups[i].path);
		r = add_item(d, name, "unplanned", "", "", cp->cgroups[i].path, why);
	}
	for (size_t i = 0; r >= 0 && i < cp->n_netns; i++) {
		snprintf(name, sizeof(name), "policy:netns:%s", cp->netns[i].path);
		r = add_item(d, name, "unplanned", "", "", cp->netns[i].path, why);
	}
	for (size_t i = 0; r >= 0 && i < cp->n_exclude; i++) {
		snprintf(name, sizeof(name), "policy:exclude:%s", cp->exclude[i].text);
		r = add_item(d, name, "unplanned", "", "", cp->exclude[i].text, why);
	}
	if (r >= 0)
		r = json_append_str(d->unplanned,
				    "policies: only a running smcd-agent plans them (and the "
				    "entries it would remove)");
	return r < 0 ? -ENOMEM : 0;
}

/* ---- the document ------------------------------------------------------------------------- */

static json_object *doc_new(const char *path, bool valid, const char *revision, const char *planner)
{
	json_object *o = json_object_new_object();
	int r = 0;

	if (!o)
		return NULL;
	r |= json_add_str(o, "file", path);
	r |= json_add_bool(o, "valid", valid);
	r |= revision ? json_add_str(o, "revision", revision) : json_add_null(o, "revision");
	r |= json_add_str(o, "planner", planner);
	if (r < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

json_object *config_plan_invalid_json(const char *path, const struct config_errors *errors,
				      const char *planner)
{
	return plan_invalid_json(path, (const char *const *)errors->lines, errors->n,
				 errors->truncated, planner);
}

int config_plan_ueid_unread(json_object *doc, const char *file)
{
	json_object *items = NULL, *unplanned = NULL;
	struct doc d = {};
	_cleanup_(freep) char *desired = NULL;
	int r;

	if (!json_object_object_get_ex(doc, "items", &items) ||
	    !json_object_object_get_ex(doc, "unplanned", &unplanned))
		return -EINVAL;
	d.items = items;
	if (asprintf(&desired, "derived from %s when applied", file) < 0)
		return -ENOMEM;
	r = add_item(&d, "ueid:auto", "unplanned", "", "", desired,
		     "not read for this plan: the agent reads another ueid.machine-id-file than its "
		     "running configuration's only for root (plan as root to see the UEID)");
	if (r >= 0)
		r = json_append_str(unplanned,
				    "ueid:auto: the UEID derived from ueid.machine-id-file (with "
				    "ueid.exclusive, a removal listed may be of that UEID)");
	return r < 0 ? -ENOMEM : 0;
}

int config_plan_json(struct kernel *k, struct policy_engine *policy, const struct config *c,
		     const char *planner, json_object **ret)
{
	_cleanup_(json_object_putp) json_object *o = NULL;
	struct doc d = {};
	char rev[17];
	int r;

	snprintf(rev, sizeof(rev), "%016" PRIx64, c->hash);
	o = doc_new(c->path, true, rev, planner);
	d.items = json_object_new_array();
	d.unplanned = json_object_new_array();
	if (!o || !d.items || !d.unplanned || json_add(o, "errors", json_object_new_array()) < 0) {
		json_object_put(d.items);
		json_object_put(d.unplanned);
		return -ENOMEM;
	}
	/* The agent's order: settings, policies, loopback (manager_reconcile()). */
	r = plan_reconcile(k, c, &d);
	if (r >= 0)
		r = policy ? plan_policies(policy, c, &d) : policies_unplanned(c, &d);
	if (r >= 0)
		r = plan_loopback(k, c, &d);
	if (r >= 0)
		r = json_append_str(d.unplanned, not_kernel_state);
	if (json_add_u64(o, "changes", d.changes) < 0 || json_add(o, "items", d.items) < 0) {
		json_object_put(d.unplanned);
		return -ENOMEM;
	}
	if (json_add(o, "unplanned", d.unplanned) < 0)
		return -ENOMEM;
	if (r < 0)
		return r;
	*ret = TAKE_PTR(o);
	return 0;
}
