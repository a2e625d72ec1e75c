// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The statistics engine's JSON document (GetStatistics(), "smcctl -j stats" through the
 * agent): the counter tree of smcctl's direct document (stats_tree_new()) once per view
 * (since reset, total, rate) from the engine's numbers, with what only the agent counts,
 * and the lists of link groups and devices.  Schema in smcd-agent(8).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "common/output.h"
#include "smcd-agent/objects.h"
#include "smcd-agent/stats-engine.h"

/* ------------------------------------------------------------------------------------- */
/* JSON                                                                                   */

/* A counter's number in a view: a count, or a rate per second. */
static struct stats_num counter_num(const struct stats_engine *e, const struct stats_counter *c,
				    enum stats_view v)
{
	struct stats_num n = { .u = stats_counter_value(c, v) };

	if (v == STATS_VIEW_RATE && !stats_engine_rate(e, c, &n.d))
		n.d = 0;
	return n;
}

/* A gauge is a value of the last sample: none in a view of rates, or while SMC is away. */
static struct stats_num gauge_num(const struct stats_engine *e, const struct stats_desc *d,
				  enum stats_view v)
{
	bool valid;
	struct stats_num n = { .u = stats_desc_value(d, &e->last.stats, &e->last.fback, &valid) };

	n.null = !valid || v == STATS_VIEW_RATE || !e->available;
	return n;
}

static int add_linkgroups(const struct stats_engine *e, json_object *root, enum stats_view v)
{
	static const char *const techs[] = { "smcd", "smcr" };
	bool rate = v == STATS_VIEW_RATE;
	int r = 0;

	for (size_t t = 0; t < 2; t++) {
		struct stats_num n = { .u = stats_engine_linkgroups(e, techs[t]), .null = rate };
		char key[48];

		snprintf(key, sizeof(key), "linkgroups.%s.current", techs[t]);
		r |= stats_tree_add(root, key, n, rate);
	}
	/* The link groups seen and removed, then the kernel epochs. */
	for (size_t i = 0; i < _STATS_AGENT_MAX; i++)
		r |= stats_tree_add(root, stats_agent_key(i), counter_num(e, &e->agent[i], v), rate);
	return r;
}

json_object *stats_engine_tree(const struct stats_engine *e, enum stats_view v)
{
	size_t n_table, n_reasons = 0;
	const struct stats_desc *t = stats_table(&n_table);
	_cleanup_(freep) struct stats_num *rows = calloc(n_table, sizeof(*rows));
	_cleanup_(freep) struct stats_tree_reason *reasons =
		calloc(e->n_reasons + 1, sizeof(*reasons));
	_cleanup_(json_object_putp) json_object *o = NULL;

	if (!rows || !reasons)
		return NULL;
	for (size_t i = 0; i < n_table; i++)
		rows[i] = t[i].kind == STATS_GAUGE ? gauge_num(e, &t[i], v)
						   : counter_num(e, &e->counters[i], v);
	/* Only reasons that happened in the view's period, as the kernel lists only those. */
	for (size_t i = 0; i < e->n_reasons; i++) {
		struct stats_num n = counter_num(e, &e->reasons[i].c, v);

		if (v == STATS_VIEW_RATE ? n.d != 0 : n.u != 0)
			reasons[n_reasons++] = (struct stats_tree_reason){ e->reasons[i].server,
									   e->reasons[i].code, n };
	}
	o = stats_tree_new(rows, reasons, n_reasons, v == STATS_VIEW_RATE);
	if (!o || add_linkgroups(e, o, v) < 0)
		return NULL;
	return TAKE_PTR(o);
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

static json_object *link_json(const struct obj_linkgroup *l, size_t i)
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

static json_object *lgr_json(const struct stats_engine *e, const struct obj_linkgroup *l)
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

static json_object *device_json(const struct stats_engine *e, const struct obj_device *d)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	const struct stats_device *s = NULL;
	int r = 0;

	if (!o)
		return NULL;
	for (size_t i = 0; i < e->n_devices; i++)
		if (streq(e->devices[i].technology, d->technology) &&
		    streq(e->devices[i].name, d->name))
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

json_object *stats_engine_json(const struct stats_engine *e, const struct obj_device *devs,
			       size_t n_devs, const struct obj_linkgroup *lgrs, size_t n_lgrs,
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
	r |= e->samples >= 2
		     ? json_add_u64(doc, "elapsed_usec", e->sample_mono_usec - e->prev_mono_usec)
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
