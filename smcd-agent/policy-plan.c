// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The pure part of policies: config + what the kernel can do + what is in the BPF maps and
 * the network namespaces -> items (for the report) and ops (for policy.c to apply).  No
 * system calls here; tests/unit/test-agent-policy.c drives it with made-up observations.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "bpf/smcbpf.h"
#include "common/macro.h"
#include "smcd-agent/policy-engine.h"

#define PRELOAD_HINT \
	"; programs can still be switched one by one with: smcctl run --method preload -- COMMAND"

static const char *const op_names[] = {
	[POP_SELECT_LOAD] = "load selection programs",
	[POP_PATH_PUT] = "add cgroup path",
	[POP_PATH_DEL] = "remove cgroup path",
	[POP_CGID_PUT] = "add cgroup",
	[POP_CGID_DEL] = "remove cgroup",
	[POP_NETNS_PUT] = "add network namespace",
	[POP_NETNS_DEL] = "remove network namespace",
	[POP_RULE_COUNTS] = "set rule counts",
	[POP_MKDIR_ATTACH] = "attach cgroup_mkdir",
	[POP_SELECT_UNLOAD] = "unload selection programs",
	[POP_EXCL_LOAD] = "register smc_hs_ctrl",
	[POP_EXCL_RULES] = "set exclusion rules",
	[POP_HS_SET] = "set net.smc.hs_ctrl",
	[POP_EXCL_UNLOAD] = "unregister smc_hs_ctrl",
};

const char *policy_op_to_string(enum policy_op_type t)
{
	return t < ELEMENTSOF(op_names) ? op_names[t] : NULL;
}

void policy_plan_clear(struct policy_plan *p)
{
	free(p->items);
	free(p->ops);
	memset(p, 0, sizeof(*p));
}

void policy_observed_clear(struct policy_observed *o)
{
	free(o->cgroup_ids);
	free(o->netns);
	free(o->paths);
	free(o->path_idx);
	free(o->cgroups);
	free(o->netns_targets);
	free(o->hs);
	memset(o, 0, sizeof(*o));
}

static struct policy_op *op_add(struct policy_plan *p, enum policy_op_type type, int item)
{
	struct policy_op *v = realloc(p->ops, (p->n_ops + 1) * sizeof(*v));

	if (!v)
		return NULL;
	p->ops = v;
	v = &p->ops[p->n_ops++];
	memset(v, 0, sizeof(*v));
	v->type = type;
	v->item = item;
	return v;
}

_printf_(4, 5) static struct policy_item *item_add(struct policy_plan *p, const char *kind,
						   const char *target, const char *fmt, ...)
{
	struct policy_item *v = realloc(p->items, (p->n_items + 1) * sizeof(*v));
	va_list ap;

	if (!v)
		return NULL;
	p->items = v;
	v = &p->items[p->n_items++];
	memset(v, 0, sizeof(*v));
	snprintf(v->kind, sizeof(v->kind), "%s", kind);
	snprintf(v->target, sizeof(v->target), "%s", target);
	v->counter = -1;
	v->excl = -1;
	va_start(ap, fmt);
	vsnprintf(v->name, sizeof(v->name), fmt, ap);
	va_end(ap);
	return v;
}

_printf_(3, 4) static void item_set(struct policy_item *it, enum policy_item_state s,
				    const char *fmt, ...)
{
	va_list ap;

	it->state = s;
	va_start(ap, fmt);
	vsnprintf(it->message, sizeof(it->message), fmt, ap);
	va_end(ap);
}

static bool has_entry(const struct policy_map_entry *v, size_t n, uint64_t key, uint32_t idx)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].key == key && v[i].idx == idx)
			return true;
	return false;
}

/* ---- cgroups and netns ------------------------------------------------------------------ */

static int plan_cgroup(const struct config_policies *c, const struct policy_observed *o, size_t i,
		       struct policy_item *it, struct policy_plan *p)
{
	const char *path = c->cgroups[i].path;
	const struct policy_target *t = &o->cgroups[i];
	int item = (int)(it - p->items);
	bool path_ok = false, changed = false;
	struct policy_op *op;

	for (size_t k = 0; k < o->n_paths; k++)
		if (streq(o->paths[k], path) && o->path_idx[k] == i)
			path_ok = true;
	if (!path_ok) {
		op = op_add(p, POP_PATH_PUT, item);
		if (!op)
			return -ENOMEM;
		snprintf(op->path, sizeof(op->path), "%s", path);
		op->idx = (uint32_t)i;
		changed = true;
	}
	if (t->err == -ENOENT) {
		it->waiting = true;
		item_set(it, changed ? PI_CHANGE : PI_WAITING,
			 "waiting: the cgroup does not exist yet; its sockets (and those of the cgroups below it) switch from the first one when it is created");
		return 0;
	}
	if (t->err < 0) {
		item_set(it, PI_FAILED, "cannot look up the cgroup: %s", strerror(-t->err));
		return 0;
	}
	if (!has_entry(o->cgroup_ids, o->n_cgroup_ids, t->key, (uint32_t)i)) {
		op = op_add(p, POP_CGID_PUT, item);
		if (!op)
			return -ENOMEM;
		op->key = t->key;
		op->idx = (uint32_t)i;
		changed = true;
	}
	item_set(it, changed ? PI_CHANGE : PI_OK,
		 "TCP sockets of cgroup %" PRIu64 " and the cgroups below it become SMC", t->key);
	return 0;
}

static int plan_netns(const struct config_policies *c, const struct policy_observed *o, size_t j,
		      uint32_t idx, struct policy_item *it, struct policy_plan *p)
{
	const struct policy_target *t = &o->netns_targets[j];
	struct policy_op *op;

	if (t->err == -ENOENT) {
		it->waiting = true;
		item_set(it, PI_WAITING,
			 "waiting: %s does not exist; looked up again every drift interval",
			 c->netns[j].path);
		return 0;
	}
	if (t->err == -ENOTSUP) {
		item_set(it, PI_FAILED, "%s is not a network namespace", c->netns[j].path);
		return 0;
	}
	if (t->err < 0) {
		item_set(it, PI_FAILED, "cannot look up the network namespace: %s",
			 strerror(-t->err));
		return 0;
	}
	if (has_entry(o->netns, o->n_netns, t->key, idx)) {
		item_set(it, PI_OK,
			 "TCP sockets created in this network namespace (cookie %" PRIu64
			 ") become SMC",
			 t->key);
		return 0;
	}
	op = op_add(p, POP_NETNS_PUT, (int)(it - p->items));
	if (!op)
		return -ENOMEM;
	op->key = t->key;
	op->idx = idx;
	item_set(it, PI_CHANGE,
		 "TCP sockets created in this network namespace (cookie %" PRIu64 ") become SMC",
		 t->key);
	return 0;
}

/*
 * Entries to remove.  A listed entry stays when it is what its rule resolves to now, or
 * when its rule's target could not be looked up for another reason than "gone".
 */
static bool cgroup_entry_wanted(const struct config_policies *c, const struct policy_observed *o,
				const struct policy_map_entry *e)
{
	const struct policy_target *t;

	if (e->idx >= c->n_cgroups)
		return false;
	t = &o->cgroups[e->idx];
	if (t->err == 0)
		return t->key == e->key;
	return t->err != -ENOENT;
}

static bool netns_entry_wanted(const struct config_policies *c, const struct policy_observed *o,
			       const struct policy_map_entry *e)
{
	const struct policy_target *t;

	if (e->idx < c->n_cgroups || e->idx >= c->n_cgroups + c->n_netns)
		return false;
	t = &o->netns_targets[e->idx - c->n_cgroups];
	if (t->err == 0)
		return t->key == e->key;
	return t->err != -ENOENT;
}

/*
 * A put earlier in this plan writes the same key (an entry whose rule moved to another
 * index): it overwrites the value, and a removal after it would take the entry away.
 */
static bool put_planned(const struct policy_plan *p, enum policy_op_type put, uint64_t key,
			const char *path)
{
	for (size_t i = 0; i < p->n_ops; i++) {
		const struct policy_op *op = &p->ops[i];

		if (op->type == put && (path ? streq(op->path, path) : op->key == key))
			return true;
	}
	return false;
}

static int plan_removals(const struct config_policies *c, const struct policy_observed *o,
			 struct policy_plan *p)
{
	struct policy_op *op;

	for (size_t k = 0; k < o->n_paths; k++) {
		bool wanted = false;

		for (size_t i = 0; i < c->n_cgroups; i++)
			wanted |= streq(o->paths[k], c->cgroups[i].path) && o->path_idx[k] == i;
		if (wanted || put_planned(p, POP_PATH_PUT, 0, o->paths[k]))
			continue;
		op = op_add(p, POP_PATH_DEL, POLICY_ITEM_NONE);
		if (!op)
			return -ENOMEM;
		snprintf(op->path, sizeof(op->path), "%s", o->paths[k]);
	}
	for (size_t k = 0; k < o->n_cgroup_ids; k++) {
		if (cgroup_entry_wanted(c, o, &o->cgroup_ids[k]) ||
		    put_planned(p, POP_CGID_PUT, o->cgroup_ids[k].key, NULL))
			continue;
		op = op_add(p, POP_CGID_DEL, POLICY_ITEM_NONE);
		if (!op)
			return -ENOMEM;
		op->key = o->cgroup_ids[k].key;
	}
	for (size_t k = 0; k < o->n_netns; k++) {
		if (netns_entry_wanted(c, o, &o->netns[k]) ||
		    put_planned(p, POP_NETNS_PUT, o->netns[k].key, NULL))
			continue;
		op = op_add(p, POP_NETNS_DEL, POLICY_ITEM_NONE);
		if (!op)
			return -ENOMEM;
		op->key = o->netns[k].key;
	}
	return 0;
}

static int plan_rules(const struct config_policies *c, const struct policy_caps *caps,
		      const struct policy_observed *o, struct policy_plan *p)
{
	size_t n_rules = c->n_cgroups + c->n_netns, first = p->n_items;
	bool want = n_rules > 0 || o->keep_select;
	struct policy_op *op;
	int r;

	for (size_t i = 0; i < c->n_cgroups; i++)
		if (!item_add(p, "cgroup", c->cgroups[i].path, "policy:cgroup:%s", c->cgroups[i].path))
			return -ENOMEM;
	for (size_t j = 0; j < c->n_netns; j++)
		if (!item_add(p, "netns", c->netns[j].path, "policy:netns:%s", c->netns[j].path))
			return -ENOMEM;
	for (size_t i = 0; i < n_rules; i++)
		p->items[first + i].counter = (int)i;
	if (want && caps->select_err < 0) {
		for (size_t i = 0; i < n_rules; i++) {
			p->items[first + i].counter = -1;
			item_set(&p->items[first + i], PI_UNSUPPORTED, "%s" PRELOAD_HINT,
				 caps->select_why);
		}
		return 0;
	}
	if (!want) {
		if (o->select_loaded && !o->keep_select &&
		    !op_add(p, POP_SELECT_UNLOAD, POLICY_ITEM_NONE))
			return -ENOMEM;
		return 0;
	}
	if (!o->select_loaded) {
		/* Nothing is in the maps yet: everything below is an addition. */
		if (!op_add(p, POP_SELECT_LOAD, POLICY_ITEM_ALL_RULES))
			return -ENOMEM;
	}
	for (size_t i = 0; i < c->n_cgroups; i++) {
		r = plan_cgroup(c, o, i, &p->items[first + i], p);
		if (r < 0)
			return r;
	}
	for (size_t j = 0; j < c->n_netns; j++) {
		r = plan_netns(c, o, j, (uint32_t)(c->n_cgroups + j),
			       &p->items[first + c->n_cgroups + j], p);
		if (r < 0)
			return r;
	}
	r = plan_removals(c, o, p);
	if (r < 0)
		return r;
	if (o->n_cgroup_rules != c->n_cgroups || o->n_netns_rules != c->n_netns) {
		op = op_add(p, POP_RULE_COUNTS, POLICY_ITEM_ALL_RULES);
		if (!op)
			return -ENOMEM;
		op->idx = (uint32_t)c->n_cgroups;
		op->idx2 = (uint32_t)c->n_netns;
	}
	if (o->mkdir_attached != (c->n_cgroups > 0)) {
		op = op_add(p, POP_MKDIR_ATTACH, POLICY_ITEM_ALL_RULES);
		if (!op)
			return -ENOMEM;
		op->on = c->n_cgroups > 0;
	}
	/* A freshly loaded selection changes every item it serves. */
	if (!o->select_loaded)
		for (size_t i = 0; i < n_rules; i++)
			if (p->items[first + i].state == PI_OK)
				p->items[first + i].state = PI_CHANGE;
	return 0;
}

/* ---- exclusions ------------------------------------------------------------------------ */

static void prefix_mask(int family, uint8_t prefixlen, uint32_t mask[4])
{
	uint8_t m[16] = {};
	int bits = family == AF_INET6 ? prefixlen : family == AF_INET ? prefixlen : 0;

	for (int b = 0; b < bits; b++)
		m[b / 8] |= (uint8_t)(0x80u >> (b % 8));
	memcpy(mask, m, sizeof(m));
}

size_t policy_excl_rules(const struct config_policies *c, struct smcbpf_excl_rule *ret)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n_exclude && n < SMCBPF_MAX_EXCL; i++, n++) {
		const struct config_policy_exclude *e = &c->exclude[i];
		struct smcbpf_excl_rule *r = &ret[n];

		memset(r, 0, sizeof(*r));
		r->family = (uint16_t)e->family;
		r->port = e->port;
		memcpy(r->addr, e->addr, sizeof(r->addr));
		prefix_mask(e->family, e->prefixlen, r->mask);
	}
	return n;
}

static bool hs_readable(const struct policy_netns_hs *h)
{
	return h->err == 0;
}

static int plan_exclude(const struct config_policies *c, const struct policy_caps *caps,
			const struct policy_observed *o, struct policy_plan *p)
{
	struct smcbpf_excl_rule want[SMCBPF_MAX_EXCL];
	size_t n = policy_excl_rules(c, want), first = p->n_items, active = 0, foreign = 0, total = 0;
	bool change = !o->excl_loaded;
	struct policy_op *op;
	char foreign_name[16] = "";

	for (size_t i = 0; i < c->n_exclude; i++) {
		struct policy_item *it = item_add(p, "exclude", c->exclude[i].text,
						  "policy:exclude:%s", c->exclude[i].text);

		if (!it)
			return -ENOMEM;
		it->excl = (int)i;
	}
	if (!n) {
		/* Clean up: ours out of every netns first, then unregister. */
		for (size_t k = 0; k < o->n_hs; k++) {
			if (!hs_readable(&o->hs[k]) || !streq(o->hs[k].value, SMCBPF_EXCL_NAME))
				continue;
			op = op_add(p, POP_HS_SET, POLICY_ITEM_NONE);
			if (!op)
				return -ENOMEM;
			snprintf(op->path, sizeof(op->path), "%s", o->hs[k].path);
		}
		if (o->excl_loaded && !op_add(p, POP_EXCL_UNLOAD, POLICY_ITEM_NONE))
			return -ENOMEM;
		return 0;
	}
	if (caps->excl_err < 0) {
		for (size_t i = 0; i < n; i++)
			item_set(&p->items[first + i], PI_UNSUPPORTED,
				 "%s; until then SMC sockets still offer SMC to this server end: keep programs that talk to it out of policies",
				 caps->excl_why);
		return 0;
	}
	if (!o->excl_loaded && !op_add(p, POP_EXCL_LOAD, POLICY_ITEM_ALL_EXCLUDE))
		return -ENOMEM;
	if (!o->excl_loaded || o->n_rules != n || memcmp(o->rules, want, n * sizeof(*want)) != 0) {
		op = op_add(p, POP_EXCL_RULES, POLICY_ITEM_ALL_EXCLUDE);
		if (!op)
			return -ENOMEM;
		change = true;
	}
	for (size_t k = 0; k < o->n_hs; k++) {
		const struct policy_netns_hs *h = &o->hs[k];

		if (!hs_readable(h))
			continue;
		total++;
		/* Ours, registered by this agent or adopted.  When we register it now, or while
		 * an older registration of the name is alive (a kill before the renaming, a
		 * failed write, a netns created in between), a netns naming it may hold that
		 * one: named again, it takes ours (the kernel: no change where it has it). */
		if (streq(h->value, SMCBPF_EXCL_NAME) && o->excl_loaded && !o->excl_others_alive) {
			active++;
			continue;
		}
		if (h->value[0] && !streq(h->value, SMCBPF_EXCL_NAME)) {
			/* Someone else's smc_hs_ctrl: never overwritten. */
			foreign++;
			snprintf(foreign_name, sizeof(foreign_name), "%s", h->value);
			continue;
		}
		op = op_add(p, POP_HS_SET, POLICY_ITEM_ALL_EXCLUDE);
		if (!op)
			return -ENOMEM;
		snprintf(op->path, sizeof(op->path), "%s", h->path);
		snprintf(op->value, sizeof(op->value), "%s", SMCBPF_EXCL_NAME);
		active++;
		change = true;
	}
	for (size_t i = 0; i < n; i++) {
		char extra[128] = "";

		if (foreign)
			snprintf(extra, sizeof(extra),
				 "; not in %zu that use another smc_hs_ctrl ('%s')", foreign,
				 foreign_name);
		item_set(&p->items[first + i], change ? PI_CHANGE : PI_OK,
			 "no SMC option on handshakes with this server end: in %zu of %zu network namespaces, and in new ones%s",
			 active, total, extra);
	}
	return 0;
}

int policy_plan(const struct config_policies *c, const struct policy_caps *caps,
		const struct policy_observed *o, struct policy_plan *ret)
{
	int r;

	r = plan_rules(c, caps, o, ret);
	if (r >= 0)
		r = plan_exclude(c, caps, o, ret);
	return r;
}
