// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The policy engine: observe (BPF maps, cgroup and netns lookups, net.smc.hs_ctrl of every
 * network namespace), plan (policy-plan.c, pure), apply (libsmcbpf).  See policy.h.
 *
 * Without BPF support in the build (configure --disable-bpf) the same code runs with every
 * kernel operation answering -ENOTSUP, so policies are reported as unsupported with the
 * reason and the LD_PRELOAD hint, never silently ignored.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpf/smcbpf.h"
#include "common/clock.h"
#include "common/macro.h"
#include "common/util.h"
#include "smcd-agent/log.h"
#include "smcd-agent/policy-engine.h"

struct total {
	char name[POLICY_NAME_LEN];
	uint64_t sockets;
};

struct policy_engine {
	struct policy_caps caps;
	struct smcbpf_select *select;
	struct smcbpf_excl *excl;
	bool keep_select;     /* EnrollProcess loaded it or used it, or it was adopted: it stays for
			       * the enrolled processes (which cannot be listed) */
	const char *pin_root; /* SMCBPF_PIN_DIR, NULL: nothing pinned */
	bool adopt_tried;     /* the pins were looked at (the first reconcile) */
	bool select_adopt_tried;
	int pin_lock;	    /* flock of pin_root while it exists (smcbpf_pin_lock) */
	bool slots_adopted; /* counter slots came with adopted programs: names unknown yet */
	bool walked_once;   /* hs_ctrl looked at in every netns at least once (crash leftovers) */
	const char *no_kernel; /* policy_engine_no_kernel(): why */
	uint64_t enrolled;
	uint32_t next_run_id;
	uint64_t enroll_probe_usec; /* CLOCK_MONOTONIC of EnrollProcess's last probe */
	int enroll_open_err;	    /* EnrollProcess's last load of the programs, if it failed */
	uint64_t enroll_open_usec;
	char enroll_open_why[POLICY_WHY_LEN];
	/* Counter slots are rule indexes, which move when the config changes: each slot's
	 * count is folded into totals by item name before the slot is reused. */
	char slot_names[SMCBPF_MAX_RULES][POLICY_NAME_LEN];
	struct total *totals;
	size_t n_totals;
	/* The last reconcile's items, their state after apply. */
	struct policy_item *items;
	size_t n_items;
	struct policy_auto autop; /* policy_engine_set_auto() */
};

/* ---- the kernel side, or -ENOTSUP without BPF ------------------------------------------- */

#ifdef HAVE_BPF
/* Debug only: a failure is explained once, by the caller, in words. */
static void libbpf_log(int level, const char *line)
{
	log_debug("libbpf: %s", line);
}
#endif

static void probe(struct policy_engine *e, bool select, bool excl)
{
	static const char nobpf[] =
		"smcd-agent was built without BPF support (configure --disable-bpf)";

	if (e->no_kernel) {
		e->caps = (struct policy_caps){ .probed = true,
						.select_err = -ENOTSUP,
						.excl_err = -ENOTSUP };
		snprintf(e->caps.select_why, sizeof(e->caps.select_why), "%s", e->no_kernel);
		snprintf(e->caps.excl_why, sizeof(e->caps.excl_why), "%s", e->no_kernel);
		return;
	}
	if (select && (!e->caps.probed || e->caps.select_err < 0)) {
		e->caps.select_err =
			SMCBPF_OR(smcbpf_probe_select(e->caps.select_why, sizeof(e->caps.select_why)),
				  -ENOTSUP);
		if (!SMCBPF_OR(1, 0))
			snprintf(e->caps.select_why, sizeof(e->caps.select_why), "%s", nobpf);
	}
	if (excl && (!e->caps.probed || e->caps.excl_err < 0)) {
		e->caps.excl_err = SMCBPF_OR(
			smcbpf_probe_excl(e->caps.excl_why, sizeof(e->caps.excl_why)), -ENOTSUP);
		if (!SMCBPF_OR(1, 0))
			snprintf(e->caps.excl_why, sizeof(e->caps.excl_why), "%s", nobpf);
	}
	e->caps.probed = true;
}

/* ---- observe ---------------------------------------------------------------------------- */

static int observe_maps(struct policy_engine *e, struct policy_observed *o)
{
#ifdef HAVE_BPF
	struct smcbpf_entry *v = NULL;
	size_t n = 0;
	int r;

	o->select_loaded = e->select != NULL;
	o->keep_select = e->keep_select;
	if (!e->select)
		return 0;
	r = smcbpf_cgroup_ids(e->select, &v, &n);
	if (r < 0)
		return r;
	o->cgroup_ids = (struct policy_map_entry *)v; /* same layout */
	o->n_cgroup_ids = n;
	r = smcbpf_netns_list(e->select, &v, &n);
	if (r < 0)
		return r;
	o->netns = (struct policy_map_entry *)v;
	o->n_netns = n;
	r = smcbpf_cgroup_paths(e->select, &o->paths, &o->path_idx, &o->n_paths);
	if (r < 0)
		return r;
	smcbpf_select_state(e->select, &o->n_cgroup_rules, &o->n_netns_rules, &o->mkdir_attached);
#else
	o->keep_select = e->keep_select;
#endif
	return 0;
}

static void resolve_targets(const struct config_policies *c, struct policy_observed *o)
{
	char root[PATH_MAX] = "", path[PATH_MAX + SMCBPF_CGROUP_PATH_MAX];
	int root_err = SMCBPF_OR(smcbpf_cgroup2_root(root, sizeof(root)), -ENOTSUP);

	for (size_t i = 0; i < c->n_cgroups; i++) {
		struct policy_target *t = &o->cgroups[i];

		if (root_err < 0) {
			t->err = root_err;
			continue;
		}
		/* "/" is the root itself: every process of the host. */
		snprintf(path, sizeof(path), "%s%s", root,
			 streq(c->cgroups[i].path, "/") ? "" : c->cgroups[i].path);
		t->err = SMCBPF_OR(cgroup_id_of(path, &t->key), -ENOTSUP);
		if (t->err == -ENOTDIR)
			t->err = -ENOENT;
	}
	for (size_t j = 0; j < c->n_netns; j++) {
		struct policy_target *t = &o->netns_targets[j];

		t->err = SMCBPF_OR(smcbpf_netns_cookie(c->netns[j].path, &t->key), -ENOTSUP);
	}
}

_unused_ static int hs_add(struct policy_observed *o, const char *path)
{
	struct policy_netns_hs *v = realloc(o->hs, (o->n_hs + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	o->hs = v;
	v = &o->hs[o->n_hs++];
	memset(v, 0, sizeof(*v));
	snprintf(v->path, sizeof(v->path), "%s", path);
	v->err = SMCBPF_OR(smcbpf_hs_ctrl_get(path, v->value, sizeof(v->value)), -ENOTSUP);
	return 0;
}

#ifdef HAVE_BPF
static int hs_add_cb(const char *path, void *arg)
{
	return hs_add(arg, path);
}
#endif

/* Every network namespace (smcbpf_netns_each): where net.smc.hs_ctrl must name ours. */
static int walk_netns(struct policy_observed *o)
{
#ifdef HAVE_BPF
	return smcbpf_netns_each(hs_add_cb, o);
#else
	(void)o;
	return 0;
#endif
}

static int observe(struct policy_engine *e, const struct config_policies *c,
		   struct policy_observed *o)
{
	bool want_excl = c->n_exclude > 0;
	int r;

	/* Maps first, lookups second: see cgroup_entry_wanted() in policy-plan.c. */
	r = observe_maps(e, o);
	if (r < 0)
		return r;
	o->cgroups = calloc(c->n_cgroups + 1, sizeof(*o->cgroups));
	o->netns_targets = calloc(c->n_netns + 1, sizeof(*o->netns_targets));
	if (!o->cgroups || !o->netns_targets)
		return -ENOMEM;
	if (e->no_kernel)
		return 0;
	resolve_targets(c, o);
	o->excl_loaded = e->excl != NULL;
#ifdef HAVE_BPF
	if (e->excl) {
		smcbpf_excl_rules_get(e->excl, o->rules, &o->n_rules);
		o->excl_others_alive = smcbpf_excl_others_alive(e->excl);
	}
#endif
	if ((want_excl && e->caps.excl_err == 0) || e->excl ||
	    (!e->walked_once && access("/proc/sys/net/smc/hs_ctrl", F_OK) == 0)) {
		r = walk_netns(o);
		if (r < 0)
			return r;
		e->walked_once = true;
	}
	return 0;
}

/* ---- apply ------------------------------------------------------------------------------ */

static int apply_select_op(struct policy_engine *e, const struct policy_op *op, char *why, size_t len)
{
#ifdef HAVE_BPF
	if (op->type == POP_SELECT_LOAD)
		return smcbpf_select_open(true, e->pin_root, &e->select, why, len);
	if (!e->select)
		return -ENODEV;
	switch (op->type) {
	case POP_PATH_PUT:
		return smcbpf_cgroup_path_put(e->select, op->path, op->idx);
	case POP_PATH_DEL:
		return smcbpf_cgroup_path_del(e->select, op->path);
	case POP_CGID_PUT:
		return smcbpf_cgroup_id_put(e->select, op->key, op->idx);
	case POP_CGID_DEL:
		return smcbpf_cgroup_id_del(e->select, op->key);
	case POP_NETNS_PUT:
		return smcbpf_netns_put(e->select, op->key, op->idx);
	case POP_NETNS_DEL:
		return smcbpf_netns_del(e->select, op->key);
	case POP_RULE_COUNTS:
		return smcbpf_rule_counts(e->select, op->idx, op->idx2);
	case POP_MKDIR_ATTACH:
		return smcbpf_cgroup_mkdir_attach(e->select, op->on);
	case POP_SELECT_UNLOAD:
		e->select = smcbpf_select_unload(e->select);
		return 0;
	default:
		return -EINVAL;
	}
#else
	return -ENOTSUP;
#endif
}

static int apply_excl_op(struct policy_engine *e, const struct config_policies *c,
			 const struct policy_op *op, char *why, size_t len)
{
#ifdef HAVE_BPF
	struct smcbpf_excl_rule rules[SMCBPF_MAX_EXCL];

	switch (op->type) {
	case POP_EXCL_LOAD:
		return smcbpf_excl_open(e->pin_root, &e->excl, why, len);
	case POP_EXCL_RULES:
		if (!e->excl)
			return -ENODEV;
		return smcbpf_excl_set_rules(e->excl, rules, policy_excl_rules(c, rules));
	case POP_HS_SET:
		return smcbpf_hs_ctrl_set(op->path, op->value);
	case POP_EXCL_UNLOAD:
		e->excl = smcbpf_excl_unload(e->excl);
		return 0;
	default:
		return -EINVAL;
	}
#else
	return -ENOTSUP;
#endif
}

static void fail_items(struct policy_plan *p, int item, const char *msg)
{
	for (size_t i = 0; i < p->n_items; i++) {
		struct policy_item *it = &p->items[i];
		bool hit = item == (int)i ||
			   (item == POLICY_ITEM_ALL_RULES && !streq(it->kind, "exclude")) ||
			   (item == POLICY_ITEM_ALL_EXCLUDE && streq(it->kind, "exclude"));

		if (!hit || it->state == PI_UNSUPPORTED || it->state == PI_FAILED)
			continue;
		it->state = PI_FAILED;
		snprintf(it->message, sizeof(it->message), "%.250s", msg);
	}
}

static void policy_apply(struct policy_engine *e, const struct config_policies *c,
			 struct policy_plan *p)
{
	for (size_t i = 0; i < p->n_ops; i++) {
		const struct policy_op *op = &p->ops[i];
		char why[POLICY_WHY_LEN] = "", msg[POLICY_WHY_LEN + 64];
		int r;

		if (op->type >= POP_EXCL_LOAD)
			r = apply_excl_op(e, c, op, why, sizeof(why));
		else
			r = apply_select_op(e, op, why, sizeof(why));
		if (r >= 0) {
			if (op->item == POLICY_ITEM_NONE)
				log_info("Policies: %s%s%s (smc.yaml no longer asks for it)",
					 policy_op_to_string(op->type), op->path[0] ? " " : "",
					 op->path);
			continue;
		}
		if (why[0])
			snprintf(msg, sizeof(msg), "%s", why);
		else
			snprintf(msg, sizeof(msg), "%s%s%s: %s", policy_op_to_string(op->type),
				 op->path[0] ? " " : "", op->path, strerror(-r));
		if (op->item == POLICY_ITEM_NONE)
			log_warning("Policies: %s", msg); /* a removal: no item of its own */
		else
			fail_items(p, op->item, msg);
		/* A failed load: the hook is said to be unusable, with this reason, until a
		 * probe looks again (the next reconcile's, as the error makes it). */
		if (op->type == POP_SELECT_LOAD) {
			e->caps.select_err = r;
			snprintf(e->caps.select_why, sizeof(e->caps.select_why), "%.*s",
				 (int)sizeof(e->caps.select_why) - 1, msg);
		} else if (op->type == POP_EXCL_LOAD) {
			e->caps.excl_err = r;
			snprintf(e->caps.excl_why, sizeof(e->caps.excl_why), "%.*s",
				 (int)sizeof(e->caps.excl_why) - 1, msg);
		}
	}
}

/* ---- counters ---------------------------------------------------------------------------- */

static uint64_t *total_of(struct policy_engine *e, const char *name)
{
	struct total *v;

	for (size_t i = 0; i < e->n_totals; i++)
		if (streq(e->totals[i].name, name))
			return &e->totals[i].sockets;
	v = realloc(e->totals, (e->n_totals + 1) * sizeof(*v));
	if (!v)
		return NULL;
	e->totals = v;
	v = &e->totals[e->n_totals++];
	memset(v, 0, sizeof(*v));
	snprintf(v->name, sizeof(v->name), "%s", name);
	return &v->sockets;
}

/* Slots whose rule changed: their count goes to the old rule's total, the slot to 0. */
static void fold_counters(struct policy_engine *e, const struct policy_plan *p)
{
	char names[SMCBPF_MAX_RULES][POLICY_NAME_LEN] = {};
	uint64_t now[SMCBPF_N_COUNTERS] = {};

#ifdef HAVE_BPF
	if (e->select)
		smcbpf_counters(e->select, now);
#endif
	for (size_t i = 0; i < p->n_items; i++)
		if (p->items[i].counter >= 0 && p->items[i].counter < SMCBPF_MAX_RULES)
			snprintf(names[p->items[i].counter], POLICY_NAME_LEN, "%s", p->items[i].name);
	for (uint32_t k = 0; k < SMCBPF_MAX_RULES; k++) {
		uint64_t *t;

		if (streq(names[k], e->slot_names[k]))
			continue;
		if (e->slots_adopted) {
			/* Counted by the programs before this agent started: assume the rules are
			 * where smc.yaml puts them now (a rule moved meanwhile keeps its count). */
			memcpy(e->slot_names[k], names[k], POLICY_NAME_LEN);
			continue;
		}
		if (e->slot_names[k][0] && now[k]) {
			t = total_of(e, e->slot_names[k]);
			if (t)
				*t += now[k];
		}
#ifdef HAVE_BPF
		if (e->select)
			smcbpf_counters_reset(e->select, k, 1);
#endif
		memcpy(e->slot_names[k], names[k], POLICY_NAME_LEN);
	}
	e->slots_adopted = false;
}

/* ---- reconcile ---------------------------------------------------------------------------- */

static enum item_result result_of(enum policy_item_state s)
{
	switch (s) {
	case PI_OK:
	case PI_WAITING:
		return ITEM_UNCHANGED;
	case PI_CHANGE:
		return ITEM_APPLIED;
	case PI_UNSUPPORTED:
		return ITEM_UNSUPPORTED;
	default:
		return ITEM_FAILED;
	}
}

static int report_items(struct policy_engine *e, struct policy_plan *p, struct report *ret)
{
	struct item_report *v = realloc(ret->items, (ret->n + p->n_items + 1) * sizeof(*v));
	struct policy_item *items;

	if (!v)
		return -ENOMEM;
	ret->items = v;
	for (size_t i = 0; i < p->n_items; i++) {
		struct item_report *ir = &ret->items[ret->n++];

		memset(ir, 0, sizeof(*ir));
		snprintf(ir->name, sizeof(ir->name), "%s", p->items[i].name);
		ir->result = result_of(p->items[i].state);
		snprintf(ir->message, sizeof(ir->message), "%s", p->items[i].message);
		if (p->items[i].state == PI_CHANGE)
			p->items[i].state = PI_OK;
	}
	items = p->n_items ? malloc(p->n_items * sizeof(*items)) : NULL;
	if (p->n_items && !items)
		return -ENOMEM;
	if (items)
		memcpy(items, p->items, p->n_items * sizeof(*items));
	free(e->items);
	e->items = items;
	e->n_items = p->n_items;
	return 0;
}

/*
 * Take over what an earlier agent pinned (once: afterwards this agent holds it or loads it
 * itself).  The enrollments in adopted programs cannot be listed, so selection stays.
 */
static void adopt_select(struct policy_engine *e)
{
#ifdef HAVE_BPF
	char why[POLICY_WHY_LEN];
	int r;

	r = smcbpf_select_adopt(e->pin_root, &e->select, why, sizeof(why));
	if (r > 0) {
		e->keep_select = true;
		e->slots_adopted = true;
		log_info("Policies: took over the selection programs pinned in %s: processes enrolled by smcctl run and the policies stayed in force while no agent ran",
			 e->pin_root);
		return;
	}
	if (r < 0 || why[0])
		log_warning("Policies: %s", why);
	/* Another build's (or a crash's): loaded anew, it is replaced with its maps' entries
	 * (enrollments among them), and what smc.yaml no longer asks for is pruned from them;
	 * never left attached with nobody to prune it. */
	if (smcbpf_pinned_any(e->pin_root, false)) {
		e->keep_select = true;
		log_info("Policies: replacing the selection programs another build left pinned in %s",
			 e->pin_root);
	}
#else
	(void)e;
#endif
}

static void adopt_excl(struct policy_engine *e, const struct config_policies *cp)
{
#ifdef HAVE_BPF
	char why[POLICY_WHY_LEN];
	int r;

	r = smcbpf_excl_adopt(e->pin_root, &e->excl, why, sizeof(why));
	if (r > 0) {
		log_info("Policies: took over the exclusions (smc_hs_ctrl %s) pinned in %s",
			 SMCBPF_EXCL_NAME, e->pin_root);
		return;
	}
	if (r < 0 || why[0])
		log_warning("Policies: %s", why);
	/* Wanted, registering replaces it; not wanted, it goes now (the plan clears
	 * net.smc.hs_ctrl where it is named). */
	/* Also one registered and never pinned (a kill before the pin): found by name. */
	if (cp->n_exclude == 0) {
		r = smcbpf_excl_retire(e->pin_root);
		if (r < 0)
			log_warning(
				"Policies: cannot remove the exclusions an earlier agent left in %s: %s",
				e->pin_root, strerror(-r));
		else if (r > 0)
			log_info("Policies: removed the exclusions an earlier agent left (smc.yaml no longer asks for them)");
	}
#else
	(void)e;
	(void)cp;
#endif
}

/* Hold the pin root's lock once it exists (a flush waits for nobody: it refuses). */
static void hold_pins(struct policy_engine *e)
{
#ifdef HAVE_BPF
	int fd;

	if (e->pin_lock >= 0 || e->no_kernel || !e->pin_root)
		return;
	fd = smcbpf_pin_lock(e->pin_root, true);
	if (fd >= 0)
		e->pin_lock = fd;
	else if (fd != -ENOENT)
		log_warning("Policies: cannot lock %s: %s", e->pin_root, strerror(-fd));
#else
	(void)e;
#endif
}

/*
 * Take over what an earlier agent pinned, once, at the first reconcile (cp: its config);
 * an enrollment before it (cp NULL; never in practice) takes over selection only.
 */
static void adopt(struct policy_engine *e, const struct config_policies *cp)
{
	if (e->adopt_tried || e->no_kernel || !e->pin_root)
		return;
	hold_pins(e);
	if (!e->select && !e->select_adopt_tried) {
		e->select_adopt_tried = true;
		adopt_select(e);
	}
	if (!cp)
		return;
	e->adopt_tried = true;
	if (!e->excl)
		adopt_excl(e, cp);
}

/* After a replacement of other layouts: theirs go once ours are filled. */
static void settle(struct policy_engine *e)
{
#ifdef HAVE_BPF
	int r;

	if (e->select) {
		r = smcbpf_select_settle(e->select);
		if (r < 0)
			log_warning(
				"Policies: cannot remove the programs of an earlier agent from %s: %s",
				e->pin_root, strerror(-r));
	}
#else
	(void)e;
#endif
}

/* This round loaded the selection programs with another layout's maps, entries and all. */
static bool reloaded_with_entries(struct policy_engine *e, const struct policy_plan *p)
{
#ifdef HAVE_BPF
	if (!e->select || !smcbpf_select_reused(e->select))
		return false;
	for (size_t i = 0; i < p->n_ops; i++)
		if (p->ops[i].type == POP_SELECT_LOAD)
			return true;
#else
	(void)e;
	(void)p;
#endif
	return false;
}

/*
 * The first round planned against empty maps; these came with entries, so what smc.yaml no
 * longer asks for is pruned now, before the old programs go (settle), not a drift interval
 * later.  An item either round changed is reported as changed.
 */
static int second_round(struct policy_engine *e, const struct config_policies *cp,
			struct policy_plan *p)
{
	struct policy_observed o = {};
	struct policy_plan q = {};
	int r;

	r = observe(e, cp, &o);
	if (r >= 0)
		r = policy_plan(cp, &e->caps, &o, &q);
	if (r >= 0) {
		policy_apply(e, cp, &q);
		for (size_t i = 0; i < q.n_items && i < p->n_items; i++)
			if (p->items[i].state == PI_CHANGE && q.items[i].state == PI_OK)
				q.items[i].state = PI_CHANGE;
		policy_plan_clear(p);
		*p = q;
		q = (struct policy_plan){};
	}
	policy_plan_clear(&q);
	policy_observed_clear(&o);
	return r;
}

/* The source of the autopilot's entries: told apart by this address. */
static const char auto_source[] = POLICY_AUTO_SOURCE;

void policy_engine_set_auto(struct policy_engine *e, const struct policy_auto *a)
{
	if (e)
		e->autop = *a;
}

void policy_engine_probe(struct policy_engine *e)
{
	if (e)
		probe(e, true, true);
}

const struct policy_auto *policy_engine_auto(const struct policy_engine *e)
{
	return &e->autop;
}

/*
 * smc.yaml's policies with the autopilot's entries after them (into buf, whose arrays the
 * caller frees with policies_merged_done()).  Out of memory: smc.yaml's alone.
 */
static const struct config_policies *policies_merged(struct policy_engine *e,
						     const struct config_policies *c,
						     struct config_policies *buf)
{
	const struct policy_auto *a = &e->autop;
	size_t used = c->n_cgroups + c->n_netns;
	size_t room = used < CONFIG_POLICY_MAX_RULES ? CONFIG_POLICY_MAX_RULES - used : 0;

	*buf = *c;
	buf->cgroups = NULL;
	buf->exclude = NULL;
	if (!a->n_cgroups && !a->n_ports)
		return c;
	buf->cgroups = calloc(c->n_cgroups + a->n_cgroups + 1, sizeof(*buf->cgroups));
	buf->exclude = calloc(c->n_exclude + a->n_ports + 1, sizeof(*buf->exclude));
	if (!buf->cgroups || !buf->exclude) {
		free(buf->cgroups);
		free(buf->exclude);
		return c;
	}
	memcpy(buf->cgroups, c->cgroups, c->n_cgroups * sizeof(*c->cgroups));
	buf->n_cgroups = c->n_cgroups;
	for (size_t i = 0; i < a->n_cgroups && room > 0; i++) {
		bool theirs = false;

		for (size_t k = 0; k < c->n_cgroups && !theirs; k++)
			theirs = streq(c->cgroups[k].path, a->cgroups[i].path);
		if (theirs)
			continue;
		buf->cgroups[buf->n_cgroups++] = (struct config_policy_target){
			.path = (char *)a->cgroups[i].path,
			.file = auto_source,
		};
		room--;
	}
	memcpy(buf->exclude, c->exclude, c->n_exclude * sizeof(*c->exclude));
	buf->n_exclude = c->n_exclude;
	for (size_t i = 0; i < a->n_ports && buf->n_exclude < CONFIG_POLICY_MAX_EXCLUDE; i++) {
		struct config_policy_exclude *x = &buf->exclude[buf->n_exclude];
		bool theirs = false;

		for (size_t k = 0; k < c->n_exclude && !theirs; k++)
			theirs = c->exclude[k].family == 0 && c->exclude[k].port == a->ports[i];
		if (theirs)
			continue;
		*x = (struct config_policy_exclude){ .port = a->ports[i], .file = auto_source };
		policy_exclude_text(x);
		buf->n_exclude++;
	}
	return buf;
}

static void policies_merged_done(struct config_policies *buf)
{
	free(buf->cgroups);
	free(buf->exclude);
}

/* The autopilot's buffer sizes on its cgroups that are in effect, and no others. */
static void apply_auto_bufs(struct policy_engine *e, const struct config_policies *cp,
			    const struct policy_observed *o)
{
#ifdef HAVE_BPF
	struct smcbpf_cgroup_bufs *have = NULL;
	size_t n_have = 0;

	if (!e->select || smcbpf_cgroup_bufs_list(e->select, &have, &n_have) < 0)
		return;
	for (size_t i = 0; i < cp->n_cgroups; i++) {
		const struct policy_target *t = &o->cgroups[i];

		if (cp->cgroups[i].file != auto_source || t->err < 0)
			continue;
		for (size_t k = 0; k < e->autop.n_cgroups; k++)
			if (streq(e->autop.cgroups[k].path, cp->cgroups[i].path) &&
			    (e->autop.cgroups[k].sndbuf || e->autop.cgroups[k].rcvbuf)) {
				bool same = false;

				for (size_t j = 0; j < n_have; j++)
					if (have[j].cgroup_id == t->key) {
						same = have[j].sndbuf == e->autop.cgroups[k].sndbuf &&
						       have[j].rcvbuf == e->autop.cgroups[k].rcvbuf;
						have[j].cgroup_id = 0; /* wanted */
					}
				if (!same && smcbpf_cgroup_bufs_put(e->select, t->key,
								    e->autop.cgroups[k].sndbuf,
								    e->autop.cgroups[k].rcvbuf) < 0)
					log_warning("Autopilot: cannot set the buffer sizes of %s",
						    cp->cgroups[i].path);
			}
	}
	for (size_t j = 0; j < n_have; j++)
		if (have[j].cgroup_id)
			(void)smcbpf_cgroup_bufs_del(e->select, have[j].cgroup_id);
	free(have);
#else
	(void)e, (void)cp, (void)o;
#endif
}

int policy_reconcile(struct policy_engine *e, const struct config *c, struct report *ret)
{
	struct config_policies merged;
	const struct config_policies *cp = policies_merged(e, &c->policies, &merged);
	struct policy_observed o = {};
	struct policy_plan p = {};
	int r;

	adopt(e, cp);
	if (cp->n_cgroups + cp->n_netns > 0 || e->keep_select || cp->n_exclude > 0)
		probe(e, cp->n_cgroups + cp->n_netns > 0 || e->keep_select, cp->n_exclude > 0);
	r = observe(e, cp, &o);
	if (r >= 0)
		r = policy_plan(cp, &e->caps, &o, &p);
	if (r >= 0)
		policy_apply(e, cp, &p);
	if (r >= 0 && reloaded_with_entries(e, &p))
		r = second_round(e, cp, &p);
	if (r >= 0) {
		apply_auto_bufs(e, cp, &o);
		settle(e);
		hold_pins(e);
		fold_counters(e, &p);
		r = report_items(e, &p, ret);
	}
	policy_plan_clear(&p);
	policy_observed_clear(&o);
	policies_merged_done(&merged);
	return r;
}

/*
 * The dry run (plan.c): what policy_reconcile() would plan now, applying nothing.  No
 * adopt(): taking over pins is a change, and the running engine has done it at its first
 * reconcile.  The probe is the reconcile's (loading a test program changes nothing that
 * stays); the walk of every netns is looked at, not remembered (walked_once belongs to the
 * reconciliation's clean-up of a crash's leftovers).
 */
int policy_plan_dry(struct policy_engine *e, const struct config *c, struct policy_plan *ret)
{
	struct config_policies merged;
	const struct config_policies *cp = policies_merged(e, &c->policies, &merged);
	struct policy_observed o = {};
	bool walked = e->walked_once;
	int r;

	if (cp->n_cgroups + cp->n_netns > 0 || e->keep_select || cp->n_exclude > 0)
		probe(e, cp->n_cgroups + cp->n_netns > 0 || e->keep_select, cp->n_exclude > 0);
	r = observe(e, cp, &o);
	e->walked_once = walked;
	if (r >= 0)
		r = policy_plan(cp, &e->caps, &o, ret);
	policy_observed_clear(&o);
	policies_merged_done(&merged);
	return r;
}

/* ---- enroll (smcctl run through the agent) ------------------------------------------------ */

int policy_enroll(struct policy_engine *e, int pidfd, uint32_t sndbuf, uint32_t rcvbuf, char *why,
		  size_t len)
{
#ifdef HAVE_BPF
	const char *bufs;
	int r;

	why[0] = '\0';
	if (e->no_kernel) {
		snprintf(why, len, "%s", e->no_kernel);
		return -ENOTSUP;
	}
	adopt(e, NULL);
	if (!e->select) {
		uint64_t now;

		/* A failed probe is kept for a minute here (a reconcile still probes afresh):
		 * it reads the kernel's 5 MB BTF, 18 ms of CPU that any caller could make the
		 * agent spend again and again. */
		now = now_usec(CLOCK_MONOTONIC) + 1;
		if (!e->caps.probed || e->caps.select_err >= 0 || !e->enroll_probe_usec ||
		    now - e->enroll_probe_usec >= 60 * USEC_PER_SEC) {
			probe(e, true, false);
			e->enroll_probe_usec = now;
		}
		if (e->caps.select_err < 0) {
			snprintf(why, len, "%s", e->caps.select_why);
			return e->caps.select_err;
		}
		/* A failed load is kept for as long, for the same reason. */
		if (e->enroll_open_err < 0 && now - e->enroll_open_usec < 60 * USEC_PER_SEC) {
			snprintf(why, len, "%s", e->enroll_open_why);
			return e->enroll_open_err;
		}
		r = smcbpf_select_open(true, e->pin_root, &e->select, why, len);
		if (r < 0) {
			e->enroll_open_err = r;
			e->enroll_open_usec = now;
			snprintf(e->enroll_open_why, sizeof(e->enroll_open_why), "%s", why);
			return r;
		}
		e->enroll_open_err = 0;
		/* The maps are empty (or another layout's): the next reconcile puts the policies
		 * back in and settles. */
	}
	e->keep_select = true;
	hold_pins(e);
	r = smcbpf_enroll(e->select, pidfd, ++e->next_run_id, sndbuf, rcvbuf);
	if (r < 0) {
		snprintf(why, len, "cannot enroll the process: %s", strerror(-r));
		return r;
	}
	e->enrolled++;
	bufs = smcbpf_select_buffers(e->select);
	if ((sndbuf || rcvbuf) && bufs) {
		snprintf(why, len, "buffer sizes are not applied: %s", bufs);
		return 1;
	}
	return 0;
#else
	snprintf(why, len, "smcd-agent was built without BPF support (configure --disable-bpf)");
	return -ENOTSUP;
#endif
}

/* ---- status -------------------------------------------------------------------------------- */

int policy_status(struct policy_engine *e, struct policy_status **ret, size_t *ret_n)
{
	struct policy_status *v = calloc(e->n_items + 1, sizeof(*v));
	uint64_t now[SMCBPF_N_COUNTERS] = {}, hits[SMCBPF_MAX_EXCL] = {};

	if (!v)
		return -ENOMEM;
#ifdef HAVE_BPF
	if (e->select)
		smcbpf_counters(e->select, now);
	if (e->excl)
		smcbpf_excl_hits(e->excl, hits, SMCBPF_MAX_EXCL, NULL);
#endif
	for (size_t i = 0; i < e->n_items; i++) {
		const struct policy_item *it = &e->items[i];
		uint64_t *t;

		v[i].item = it;
		if (it->counter >= 0 && it->counter < SMCBPF_MAX_RULES) {
			t = total_of(e, it->name);
			v[i].sockets = now[it->counter] + (t ? *t : 0);
		} else if (it->excl >= 0 && it->excl < SMCBPF_MAX_EXCL)
			v[i].sockets = hits[it->excl];
	}
	*ret = v;
	*ret_n = e->n_items;
	return 0;
}

void policy_hooks(struct policy_engine *e, struct policy_hooks *ret)
{
	uint64_t now[SMCBPF_N_COUNTERS] = {};

	memset(ret, 0, sizeof(*ret));
	ret->select = e->caps.probed && e->caps.select_err == 0;
	ret->select_why =
		e->caps.probed ? e->caps.select_why : "not probed yet (no policy needed it)";
	ret->exclude = e->caps.probed && e->caps.excl_err == 0;
	ret->exclude_why = e->caps.probed ? e->caps.excl_why : "not probed yet (no policy needed it)";
	ret->select_loaded = e->select != NULL;
	ret->exclude_loaded = e->excl != NULL;
	ret->enrolled = e->enrolled;
	ret->pin_why = e->pin_root ? "nothing is loaded" : "pinning is off";
#ifdef HAVE_BPF
	if (e->select) {
		const char *dir, *why;
		bool adopted;

		smcbpf_select_pins(e->select, &dir, &adopted, &why);
		ret->pinned = dir != NULL;
		ret->pin_why = dir ? "" : why;
		ret->adopted = adopted;
	}
	if (e->excl) {
		const char *dir, *why;
		bool adopted;

		smcbpf_excl_pins(e->excl, &dir, &adopted, &why);
		if (!dir) {
			ret->pinned = false;
			ret->pin_why = why;
		} else if (!e->select) {
			ret->pinned = true;
			ret->pin_why = "";
		}
		ret->adopted = ret->adopted || adopted;
	}
	if (e->select) {
		smcbpf_counters(e->select, now);
		ret->buffers_why = smcbpf_select_buffers(e->select);
		ret->buffers = ret->buffers_why == NULL;
	}
#endif
	if (!e->select)
		ret->buffers_why = "the selection programs are not loaded";
	ret->run_sockets = now[SMCBPF_CNT_RUN];
	ret->inherit_failures = now[SMCBPF_CNT_INHERIT_FAIL];
}

/* ---- life ------------------------------------------------------------------------------------ */

int policy_engine_new(struct policy_engine **ret)
{
	struct policy_engine *e = calloc(1, sizeof(*e));

	if (!e)
		return -ENOMEM;
#ifdef HAVE_BPF
	smcbpf_set_log(libbpf_log);
#endif
	e->pin_root = SMCBPF_PIN_DIR;
	e->pin_lock = -1;
	*ret = e;
	return 0;
}

#ifdef HAVE_BPF
void policy_engine_no_kernel(struct policy_engine *e, const char *why)
{
	e->no_kernel = why;
	e->walked_once = true;
	e->pin_root = NULL;
}

/* Nothing of ours stays in a netns: clear hs_ctrl where it names us. */
static void clear_hs_ctrl(void)
{
	struct policy_observed o = {};

	if (walk_netns(&o) >= 0)
		for (size_t k = 0; k < o.n_hs; k++)
			if (o.hs[k].err == 0 && streq(o.hs[k].value, SMCBPF_EXCL_NAME))
				(void)smcbpf_hs_ctrl_set(o.hs[k].path, "");
	policy_observed_clear(&o);
}
#endif

struct policy_engine *policy_engine_free(struct policy_engine *e)
{
	if (!e)
		return NULL;
#ifdef HAVE_BPF
	/* What is pinned stays in force for the next agent (smcctl policy flush removes it);
	 * what could not be pinned ends here, exclusions out of every netns first. */
	if (e->excl) {
		const char *dir, *why;
		bool adopted;

		smcbpf_excl_pins(e->excl, &dir, &adopted, &why);
		if (!dir)
			clear_hs_ctrl();
		e->excl = smcbpf_excl_free(e->excl);
	}
	e->select = smcbpf_select_free(e->select);
#endif
	if (e->pin_lock >= 0)
		close(e->pin_lock);
	free(e->totals);
	free(e->items);
	free(e);
	return NULL;
}
