// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The statistics engine's JSON document (GetStatistics(), "smcctl -j stats" through the
 * agent): the counter tree in the layout of smcctl's direct document, once per view
 * (since reset, total, rate), and the lists of link groups and devices.  Schema in
 * smcd-agent(8); test-agent-stats-cli checks it against the direct document.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "common/output.h"
#include "smcd-agent/manager.h"
#include "smcd-agent/stats.h"

/* ------------------------------------------------------------------------------------- */
/* JSON                                                                                   */

/* A value in a view: a count, or a rate per second. */
struct num {
	uint64_t u;
	double d;
};

static void num_add(struct num *a, struct num b)
{
	a->u += b.u;
	a->d += b.d;
}

static struct num counter_num(const struct stats_engine *e, const struct stats_counter *c,
			      enum stats_view v)
{
	struct num n = { .u = stats_counter_value(c, v) };

	if (v == STATS_VIEW_RATE && !stats_engine_rate(e, c, &n.d))
		n.d = 0;
	return n;
}

static json_object *num_json(enum stats_view v, struct num n)
{
	return v == STATS_VIEW_RATE ? json_object_new_double(n.d) : json_object_new_uint64(n.u);
}

static int add_num(json_object *o, const char *key, enum stats_view v, struct num n)
{
	return json_add(o, key, num_json(v, n));
}

/* The object at the path's parent ("smcd.rx.bytes" -> root.smcd.rx), created as needed. */
static json_object *path_parent(json_object *root, const char *path, const char **ret_leaf)
{
	const char *p = path, *dot;
	json_object *o = root;

	while ((dot = strchr(p, '.'))) {
		char key[64];
		json_object *next;

		snprintf(key, sizeof(key), "%.*s", (int)(dot - p), p);
		if (!json_object_object_get_ex(o, key, &next)) {
			next = json_object_new_object();
			if (json_add(o, key, next) < 0)
				return NULL;
		}
		o = next;
		p = dot + 1;
	}
	*ret_leaf = p;
	return o;
}

/* v NULL: a JSON null. */
static int add_path(json_object *root, const char *path, json_object *v, bool null)
{
	const char *leaf;
	json_object *o = path_parent(root, path, &leaf);

	if (!o) {
		json_object_put(v);
		return -ENOMEM;
	}
	return null ? json_add_null(o, leaf) : json_add(o, leaf, v);
}

/* Server first, then the larger count, then the code: the order of the direct document. */
struct reason_row {
	const struct stats_reason *r;
	struct num n;
};

static enum stats_view sort_view;

static int cmp_reason_row(const void *a, const void *b)
{
	const struct reason_row *x = a, *y = b;

	if (x->r->server != y->r->server)
		return x->r->server ? -1 : 1;
	if (sort_view == STATS_VIEW_RATE ? x->n.d != y->n.d : x->n.u != y->n.u) {
		if (sort_view == STATS_VIEW_RATE)
			return x->n.d > y->n.d ? -1 : 1;
		return x->n.u > y->n.u ? -1 : 1;
	}
	return x->r->code < y->r->code ? -1 : x->r->code > y->r->code;
}

static json_object *reason_json(const struct reason_row *row, enum stats_view v)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	int r = 0;

	if (!o)
		return NULL;
	r |= json_add_str(o, "side", row->r->server ? "server" : "client");
	r |= json_add_u64(o, "code", row->r->code);
	r |= json_add_str(o, "name", smc_decline_name(row->r->code));
	r |= add_num(o, "count", v, row->n);
	r |= json_add_str(o, "text", smc_decline_text(row->r->code));
	r |= json_add_str(o, "advice", smc_decline_advice(row->r->code));
	return r < 0 ? NULL : TAKE_PTR(o);
}

static struct num row_num(const struct stats_engine *e, const char *key, enum stats_view v)
{
	int i = stats_table_find(key);

	return i < 0 ? (struct num){} : counter_num(e, &e->counters[i], v);
}

static json_object *pair_json(enum stats_view v, struct num client, struct num server)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();

	if (!o || add_num(o, "client", v, client) < 0 || add_num(o, "server", v, server) < 0)
		return NULL;
	return TAKE_PTR(o);
}

/* reasons[] and not_itemised (fallbacks the kernel could not itemise: 36 slots per side). */
static int add_reasons(const struct stats_engine *e, json_object *fallback, enum stats_view v)
{
	_cleanup_(freep) struct reason_row *rows = calloc(e->n_reasons + 1, sizeof(*rows));
	json_object *arr = json_object_new_array();
	struct num sum[2] = {}, tot[2], rest[2];
	int r = 0;

	if (!rows || json_add(fallback, "reasons", arr) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < e->n_reasons; i++) {
		rows[i] = (struct reason_row){ &e->reasons[i], counter_num(e, &e->reasons[i].c, v) };
		num_add(&sum[e->reasons[i].server], rows[i].n);
	}
	sort_view = v;
	qsort(rows, e->n_reasons, sizeof(*rows), cmp_reason_row);
	/* Only reasons that happened in the view's period, as the kernel lists only those. */
	for (size_t i = 0; i < e->n_reasons; i++)
		if (v == STATS_VIEW_RATE ? rows[i].n.d != 0 : rows[i].n.u != 0)
			r |= json_append(arr, reason_json(&rows[i], v));
	tot[0] = row_num(e, "fallback.client", v);
	tot[1] = row_num(e, "fallback.server", v);
	for (size_t s = 0; s < 2; s++)
		rest[s] = (struct num){ tot[s].u > sum[s].u ? tot[s].u - sum[s].u : 0,
					tot[s].d > sum[s].d ? tot[s].d - sum[s].d : 0 };
	r |= json_add(fallback, "not_itemised", pair_json(v, rest[0], rest[1]));
	return r;
}

static struct num tech_connections(const struct stats_engine *e, const char *tech,
				   enum stats_view v)
{
	static const char *const keys[] = { "client_v1", "client_v2", "server_v1", "server_v2" };
	struct num n = {};

	for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
		char key[32];

		snprintf(key, sizeof(key), "%s.%s", tech, keys[i]);
		num_add(&n, row_num(e, key, v));
	}
	return n;
}

static int add_gauge_row(const struct stats_engine *e, json_object *root, size_t i,
			 enum stats_view v)
{
	size_t n_table;
	const struct stats_desc *t = stats_table(&n_table);
	bool valid;
	uint64_t g = stats_desc_value(&t[i], &e->last.stats, &e->last.fback, &valid);

	if (!valid || v == STATS_VIEW_RATE || !e->available)
		return add_path(root, t[i].key, NULL, true);
	return add_path(root, t[i].key, json_object_new_uint64(g), false);
}

static int add_linkgroups(const struct stats_engine *e, json_object *root, enum stats_view v)
{
	static const char *const techs[] = { "smcd", "smcr" };
	int r = 0;

	for (size_t t = 0; t < 2; t++) {
		char key[48];

		snprintf(key, sizeof(key), "linkgroups.%s.current", techs[t]);
		if (v == STATS_VIEW_RATE)
			r |= add_path(root, key, NULL, true);
		else
			r |= add_path(root, key, json_object_new_uint64(stats_engine_linkgroups(e, techs[t])), false);
	}
	for (size_t i = 0; i < STATS_KERNEL_EPOCHS; i++)
		r |= add_path(root, stats_agent_key(i), num_json(v, counter_num(e, &e->agent[i], v)),
			      false);
	r |= add_num(root, "kernel_epochs", v, counter_num(e, &e->agent[STATS_KERNEL_EPOCHS], v));
	return r;
}

json_object *stats_engine_tree(const struct stats_engine *e, enum stats_view v)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	json_object *sum = json_object_new_object(), *fallback;
	struct num d, rr, fb, hs, total;
	size_t n_table;
	const struct stats_desc *t = stats_table(&n_table);
	int r = 0;

	if (!o || json_add(o, "summary", sum) < 0)
		return NULL;
	d = tech_connections(e, "smcd", v);
	rr = tech_connections(e, "smcr", v);
	r |= add_path(o, "smcd.connections", num_json(v, d), false);
	r |= add_path(o, "smcr.connections", num_json(v, rr), false);
	for (size_t i = 0; i < n_table; i++) {
		if (t[i].kind == STATS_GAUGE)
			r |= add_gauge_row(e, o, i, v);
		else
			r |= add_path(o, t[i].key, num_json(v, counter_num(e, &e->counters[i], v)),
				      false);
	}
	if (r < 0 || !json_object_object_get_ex(o, "fallback", &fallback) ||
	    add_reasons(e, fallback, v) < 0)
		return NULL;
	fb = row_num(e, "fallback.client", v);
	num_add(&fb, row_num(e, "fallback.server", v));
	hs = row_num(e, "handshake_errors.client", v);
	num_add(&hs, row_num(e, "handshake_errors.server", v));
	total = d;
	num_add(&total, rr);
	num_add(&total, fb);
	num_add(&total, hs);
	r |= add_num(sum, "total", v, total);
	r |= add_num(sum, "smcd", v, d);
	r |= add_num(sum, "smcr", v, rr);
	r |= add_num(sum, "fallback", v, fb);
	r |= add_num(sum, "handshake_errors", v, hs);
	r |= add_linkgroups(e, o, v);
	return r < 0 ? NULL : TAKE_PTR(o);
}

static json_object *sockets_json(const struct stats_engine *e)
{
	_cleanup_(json_object_putp) json_object *o = NULL;
	json_object *arr;
	int r = 0;

	if (!e->available || !e->last.has_sockets)
		return NULL;
	o = json_object_new_object();
	arr = json_object_new_array();
	if (!o || !arr) {
		json_object_put(arr);
		return NULL;
	}
	for (size_t i = 0; i < _STATS_SOCK_MAX; i++)
		r |= json_add_u64(o, stats_sock_name(i), e->last.sockets[i]);
	r |= json_add(o, "fallback_reasons", arr);
	for (size_t i = 0; i < e->last.n_fallback_sockets; i++) {
		json_object *x = json_object_new_object();
		uint32_t code = e->last.fallback_sockets[i].code;

		r |= json_append(arr, x);
		if (!x)
			break;
		r |= json_add_u64(x, "code", code);
		r |= json_add_str(x, "name", smc_decline_name(code));
		r |= json_add_u64(x, "count", e->last.fallback_sockets[i].count);
	}
	return r < 0 ? NULL : TAKE_PTR(o);
}

static json_object *link_json(const struct bus_linkgroup *l, size_t i)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	int r = 0;

	if (!o)
		return NULL;
	r |= json_add_u64(o, "id", l->links[i].id);
	r |= json_add_str(o, "state", l->links[i].state);
	r |= json_add_u64(o, "conns", l->links[i].conns);
	r |= json_add_str(o, "ib_dev", l->links[i].ib_dev[0] ? l->links[i].ib_dev : NULL);
	r |= json_add_str(o, "netdev", l->links[i].netdev[0] ? l->links[i].netdev : NULL);
	return r < 0 ? NULL : TAKE_PTR(o);
}

static json_object *lgr_json(const struct stats_engine *e, const struct bus_linkgroup *l)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	const struct stats_lgr *t = stats_engine_lgr(e, l->technology, l->id);
	json_object *links;
	int r = 0;

	if (!o)
		return NULL;
	r |= json_add_str(o, "technology", l->technology);
	r |= json_add_u64(o, "id", l->id);
	r |= json_add_str(o, "device", l->device[0] ? l->device : NULL);
	r |= json_add_str(o, "pnetid", l->pnetid[0] ? l->pnetid : NULL);
	r |= json_add_str(o, "role", l->role[0] ? l->role : NULL);
	r |= json_add_str(o, "type", l->type[0] ? l->type : NULL);
	r |= json_add_u64(o, "conns", l->conns);
	r |= json_add_u64(o, "peak_conns", t ? t->peak_conns : l->conns);
	r |= json_add_u64(o, "first_seen_usec", t ? t->first_seen_usec : 0);
	r |= json_add_u64(o, "sndbuf_alloc", l->sndbuf_alloc);
	r |= json_add_u64(o, "buf_alloc", l->buf_alloc);
	r |= json_add_bool(o, "own_series", t && t->exported);
	r |= json_add(o, "links", links = json_object_new_array());
	for (size_t i = 0; links && i < l->n_links; i++)
		r |= json_append(links, link_json(l, i));
	return r < 0 ? NULL : TAKE_PTR(o);
}

static json_object *device_json(const struct stats_engine *e, const struct bus_device *d)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	const struct stats_device *s = NULL;
	int r = 0;

	if (!o)
		return NULL;
	for (size_t i = 0; i < e->n_devices; i++)
		if (streq(e->devices[i].technology, d->technology) && streq(e->devices[i].name, d->name))
			s = &e->devices[i];
	r |= json_add_str(o, "technology", d->technology);
	r |= json_add_str(o, "name", d->name);
	r |= json_add_str(o, "pnetid", d->pnetid[0] ? d->pnetid : NULL);
	r |= json_add_bool(o, "loopback", d->loopback);
	r |= json_add_u64(o, "linkgroups", d->linkgroups);
	r |= json_add_u64(o, "conns", d->conns);
	r |= json_add_u64(o, "linkgroups_seen", s ? s->seen.total : 0);
	r |= json_add_u64(o, "linkgroups_seen_since_reset",
			  s ? stats_counter_value(&s->seen, STATS_VIEW_SINCE_RESET) : 0);
	return r < 0 ? NULL : TAKE_PTR(o);
}

static int add_usec_or_null(json_object *o, const char *key, uint64_t usec)
{
	return usec ? json_add_u64(o, key, usec) : json_add_null(o, key);
}

json_object *stats_engine_json(const struct stats_engine *e, const struct bus_device *devs,
			       size_t n_devs, const struct bus_linkgroup *lgrs, size_t n_lgrs,
			       uint64_t interval_usec)
{
	_cleanup_(json_object_putp) json_object *doc = json_object_new_object();
	_cleanup_(json_object_putp) json_object *root = stats_engine_tree(e, STATS_VIEW_SINCE_RESET);
	json_object *lgr_arr = json_object_new_array(), *dev_arr = json_object_new_array();
	int r = 0;

	if (!doc || !root || !lgr_arr || !dev_arr) {
		json_object_put(lgr_arr);
		json_object_put(dev_arr);
		return NULL;
	}
	r |= json_add_str(doc, "source", "smcd-agent");
	r |= json_add_bool(doc, "available", e->available);
	r |= add_usec_or_null(doc, "time_usec", e->sample_real_usec);
	r |= json_add_u64(doc, "interval_usec", interval_usec);
	r |= e->samples >= 2 ? json_add_u64(doc, "elapsed_usec",
					    e->sample_mono_usec - e->prev_mono_usec)
			     : json_add_null(doc, "elapsed_usec");
	r |= add_usec_or_null(doc, "reset_usec", e->reset_real_usec);
	json_object_object_foreach(root, key, val)
		r |= json_add(doc, key, json_object_get(val));
	r |= json_add(doc, "total", stats_engine_tree(e, STATS_VIEW_TOTAL));
	r |= e->samples >= 2 ? json_add(doc, "rate", stats_engine_tree(e, STATS_VIEW_RATE))
			     : json_add_null(doc, "rate");
	r |= e->available && e->last.has_sockets ? json_add(doc, "sockets", sockets_json(e))
						 : json_add_null(doc, "sockets");
	r |= json_add(doc, "linkgroup_list", lgr_arr);
	for (size_t i = 0; i < n_lgrs; i++)
		r |= json_append(lgr_arr, lgr_json(e, &lgrs[i]));
	r |= json_add(doc, "device_list", dev_arr);
	for (size_t i = 0; i < n_devs; i++)
		r |= json_append(dev_arr, device_json(e, &devs[i]));
	return r < 0 ? NULL : TAKE_PTR(doc);
}
