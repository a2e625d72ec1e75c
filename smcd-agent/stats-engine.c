// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The statistics engine (see stats.h for what it guarantees and why).
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "common/output.h"
#include "smcd-agent/objects.h"
#include "smcd-agent/stats-engine.h"

/* ------------------------------------------------------------------------------------- */
/* Counters of the agent and sockets                                                      */

static const char *const agent_keys[_STATS_AGENT_MAX] = {
	[STATS_LGR_SEEN_SMCD] = "linkgroups.smcd.seen",
	[STATS_LGR_SEEN_SMCR] = "linkgroups.smcr.seen",
	[STATS_LGR_REMOVED_SMCD] = "linkgroups.smcd.removed",
	[STATS_LGR_REMOVED_SMCR] = "linkgroups.smcr.removed",
	[STATS_KERNEL_EPOCHS] = "kernel_epochs",
};

const char *stats_agent_key(enum stats_agent_counter c)
{
	return c < _STATS_AGENT_MAX ? agent_keys[c] : NULL;
}

static const char *const sock_names[_STATS_SOCK_MAX] = {
	[STATS_SOCK_SMCD] = "smcd",	    [STATS_SOCK_SMCR] = "smcr",
	[STATS_SOCK_FALLBACK] = "fallback", [STATS_SOCK_LISTEN] = "listen",
	[STATS_SOCK_INIT] = "init",
};

const char *stats_sock_name(enum stats_sock s)
{
	return s < _STATS_SOCK_MAX ? sock_names[s] : NULL;
}

/* ------------------------------------------------------------------------------------- */
/* Samples                                                                                */

#define SMC_STATE_ACTIVE 1
#define SMC_STATE_INIT 2
#define SMC_STATE_LISTEN 10
#define SMC_MODE_SMCR 0
#define SMC_MODE_FALLBACK 1
#define SMC_MODE_SMCD 2

static void count_fallback_socket(struct stats_sample *s, uint32_t code)
{
	for (size_t i = 0; i < s->n_fallback_sockets; i++)
		if (s->fallback_sockets[i].code == code) {
			s->fallback_sockets[i].count++;
			return;
		}
	/* More than 64 distinct open reasons: the rest are counted in sockets[] only. */
	if (s->n_fallback_sockets < ELEMENTSOF(s->fallback_sockets)) {
		s->fallback_sockets[s->n_fallback_sockets].code = code;
		s->fallback_sockets[s->n_fallback_sockets++].count = 1;
	}
}

/*
 * The state decides first: listeners report mode 0 (SMC-R) whatever they will use, and a
 * socket in INIT has not negotiated anything yet.
 */
void stats_sample_sockets_begin(struct stats_sample *s)
{
	memset(s->sockets, 0, sizeof(s->sockets));
	s->n_fallback_sockets = 0;
	s->has_sockets = false;
}

int stats_sample_count_socket(const struct smc_socket *sock, void *userdata)
{
	struct stats_sample *s = userdata;
	enum stats_sock k;

	if (sock->state == SMC_STATE_LISTEN)
		k = STATS_SOCK_LISTEN;
	else if (sock->mode == SMC_MODE_FALLBACK)
		k = STATS_SOCK_FALLBACK;
	else if (sock->state == SMC_STATE_INIT)
		k = STATS_SOCK_INIT;
	else if (sock->mode == SMC_MODE_SMCD)
		k = STATS_SOCK_SMCD;
	else
		k = STATS_SOCK_SMCR;
	s->sockets[k]++;
	if (k == STATS_SOCK_FALLBACK)
		count_fallback_socket(s, sock->has_fallback ? sock->fallback_reason : 0);
	return 0;
}

void stats_sample_sockets_end(struct stats_sample *s, int r)
{
	if (r < 0)
		stats_sample_sockets_begin(s); /* a part of a dump is no count */
	else
		s->has_sockets = true;
}

void stats_sample_count_sockets(struct stats_sample *s, const struct smc_socket *v, size_t n)
{
	stats_sample_sockets_begin(s);
	for (size_t i = 0; i < n; i++)
		(void)stats_sample_count_socket(&v[i], s);
	stats_sample_sockets_end(s, 0);
}

/* ------------------------------------------------------------------------------------- */
/* Engine                                                                                 */

int stats_engine_new(uint32_t linkgroup_series, struct stats_engine **ret)
{
	struct stats_engine *e = calloc(1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	stats_table(&e->n_counters);
	e->counters = calloc(e->n_counters, sizeof(*e->counters));
	if (!e->counters) {
		free(e);
		return -ENOMEM;
	}
	e->linkgroup_series = linkgroup_series;
	*ret = e;
	return 0;
}

void stats_engine_free(struct stats_engine *e)
{
	if (!e)
		return;
	free(e->counters);
	free(e->reasons);
	free(e->lgrs);
	free(e->devices);
	free(e);
}

uint64_t stats_counter_value(const struct stats_counter *c, enum stats_view v)
{
	if (v == STATS_VIEW_TOTAL)
		return c->total;
	return c->total >= c->baseline ? c->total - c->baseline : 0;
}

bool stats_engine_rate(const struct stats_engine *e, const struct stats_counter *c, double *ret)
{
	uint64_t dt = e->sample_mono_usec - e->prev_mono_usec;

	if (e->samples < 2 || dt == 0)
		return false;
	*ret = (double)(c->last >= c->prev ? c->last - c->prev : 0) * 1e6 / (double)dt;
	return true;
}

static void counter_add(struct stats_counter *c, uint64_t n)
{
	c->total = u64_add_sat(c->total, n);
}

/* ---- link groups and devices ----------------------------------------------------------- */

static struct stats_device *device_find(struct stats_engine *e, const char *tech, const char *name)
{
	for (size_t i = 0; i < e->n_devices; i++)
		if (streq(e->devices[i].technology, tech) && streq(e->devices[i].name, name))
			return &e->devices[i];
	return NULL;
}

static struct stats_device *device_add(struct stats_engine *e, const char *tech, const char *name)
{
	struct stats_device *v = realloc(e->devices, (e->n_devices + 1) * sizeof(*v));

	if (!v)
		return NULL;
	e->devices = v;
	v = &e->devices[e->n_devices++];
	memset(v, 0, sizeof(*v));
	snprintf(v->technology, sizeof(v->technology), "%s", tech);
	snprintf(v->name, sizeof(v->name), "%s", name);
	return v;
}

const struct stats_lgr *stats_engine_lgr(const struct stats_engine *e, const char *technology,
					 uint32_t id)
{
	for (size_t i = 0; i < e->n_lgrs; i++)
		if (e->lgrs[i].id == id && streq(e->lgrs[i].technology, technology))
			return &e->lgrs[i];
	return NULL;
}

static struct stats_lgr *lgr_add(struct stats_engine *e, const struct obj_linkgroup *l,
				 uint64_t real_usec)
{
	struct stats_lgr *v = realloc(e->lgrs, (e->n_lgrs + 1) * sizeof(*v));

	if (!v)
		return NULL;
	e->lgrs = v;
	v = &e->lgrs[e->n_lgrs++];
	memset(v, 0, sizeof(*v));
	snprintf(v->technology, sizeof(v->technology), "%s", l->technology);
	v->id = l->id;
	v->first_seen_usec = real_usec;
	return v;
}

static bool is_smcd(const char *tech)
{
	return streq(tech, "smcd");
}

/* Older first, then by technology and id: a stable order for the series cap. */
static int cmp_lgr_age(const void *a, const void *b)
{
	const struct stats_lgr *x = *(const struct stats_lgr *const *)a;
	const struct stats_lgr *y = *(const struct stats_lgr *const *)b;
	int c;

	if (x->first_seen_usec != y->first_seen_usec)
		return x->first_seen_usec < y->first_seen_usec ? -1 : 1;
	c = strcmp(x->technology, y->technology);
	if (c)
		return c;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Which link groups get their own Prometheus series.  Sticky: a group keeps its series as
 * long as it exists (a series that moves into "_other" and back would look like churn);
 * free places go to the oldest groups that have none yet.
 */
static int select_exported(struct stats_engine *e)
{
	_cleanup_(freep) struct stats_lgr **waiting = calloc(e->n_lgrs + 1, sizeof(*waiting));
	size_t n_exported = 0, n_waiting = 0;

	if (!waiting)
		return -ENOMEM;
	for (size_t i = 0; i < e->n_lgrs; i++) {
		if (e->lgrs[i].exported)
			n_exported++;
		else
			waiting[n_waiting++] = &e->lgrs[i];
	}
	qsort(waiting, n_waiting, sizeof(*waiting), cmp_lgr_age);
	for (size_t i = 0; i < n_waiting && n_exported < e->linkgroup_series; i++, n_exported++)
		waiting[i]->exported = true;
	return 0;
}

static int track_devices(struct stats_engine *e, struct obj_device *devs, size_t n)
{
	for (size_t i = 0; i < e->n_devices; i++)
		e->devices[i].present = false;
	for (size_t i = 0; i < n; i++) {
		struct stats_device *d = device_find(e, devs[i].technology, devs[i].name);

		if (!d && !(d = device_add(e, devs[i].technology, devs[i].name)))
			return -ENOMEM;
		d->present = true;
	}
	return 0;
}

static void fill_devices(struct stats_engine *e, struct obj_device *devs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct stats_device *d = device_find(e, devs[i].technology, devs[i].name);

		devs[i].linkgroups_seen = d ? d->seen.total : 0;
	}
}

static int track_new_lgr(struct stats_engine *e, struct obj_linkgroup *l, uint64_t real_usec,
			 struct stats_lgr **ret)
{
	struct stats_lgr *t = lgr_add(e, l, real_usec);
	struct stats_device *d;

	if (!t)
		return -ENOMEM;
	counter_add(&e->agent[is_smcd(l->technology) ? STATS_LGR_SEEN_SMCD : STATS_LGR_SEEN_SMCR], 1);
	d = l->device[0] ? device_find(e, l->technology, l->device) : NULL;
	if (d)
		counter_add(&d->seen, 1);
	e->dirty = true;
	*ret = t;
	return 0;
}

int stats_engine_track(struct stats_engine *e, struct obj_device *devs, size_t n_devs,
		       struct obj_linkgroup *lgrs, size_t n_lgrs, uint64_t real_usec)
{
	size_t o = 0;
	int r;

	r = track_devices(e, devs, n_devs);
	if (r < 0)
		return r;
	for (size_t i = 0; i < e->n_lgrs; i++)
		e->lgrs[i].present = false;
	for (size_t i = 0; i < n_lgrs; i++) {
		struct stats_lgr *t =
			(struct stats_lgr *)stats_engine_lgr(e, lgrs[i].technology, lgrs[i].id);

		if (!t && (r = track_new_lgr(e, &lgrs[i], real_usec, &t)) < 0)
			return r;
		t->present = true;
		snprintf(t->device, sizeof(t->device), "%s", lgrs[i].device);
		if (lgrs[i].conns > t->peak_conns) {
			t->peak_conns = lgrs[i].conns;
			e->dirty = true; /* the kernel keeps no peak: a crash would lose it */
		}
		lgrs[i].first_seen_usec = t->first_seen_usec;
		lgrs[i].peak_conns = t->peak_conns;
	}
	/* Gone: counted, and their place in the series cap is free again. */
	for (size_t i = 0; i < e->n_lgrs; i++) {
		if (e->lgrs[i].present) {
			e->lgrs[o++] = e->lgrs[i];
			continue;
		}
		counter_add(&e->agent[is_smcd(e->lgrs[i].technology) ? STATS_LGR_REMOVED_SMCD
								     : STATS_LGR_REMOVED_SMCR],
			    1);
		e->dirty = true;
	}
	e->n_lgrs = o;
	fill_devices(e, devs, n_devs);
	return select_exported(e);
}

uint32_t stats_engine_linkgroups(const struct stats_engine *e, const char *tech)
{
	uint32_t n = 0;

	for (size_t i = 0; i < e->n_lgrs; i++)
		n += streq(e->lgrs[i].technology, tech);
	return n;
}

/* ---- counters --------------------------------------------------------------------------- */

static struct stats_reason *reason_find(struct stats_engine *e, bool server, uint32_t code)
{
	for (size_t i = 0; i < e->n_reasons; i++)
		if (e->reasons[i].server == server && e->reasons[i].code == code)
			return &e->reasons[i];
	return NULL;
}

static struct stats_reason *reason_add(struct stats_engine *e, bool server, uint32_t code)
{
	struct stats_reason *v = realloc(e->reasons, (e->n_reasons + 1) * sizeof(*v));

	if (!v)
		return NULL;
	e->reasons = v;
	v = &e->reasons[e->n_reasons++];
	memset(v, 0, sizeof(*v));
	v->server = server;
	v->code = code;
	return v;
}

/*
 * A new kernel epoch: a u64 counter went down, or fewer reasons are itemised than before
 * (the kernel fills reason slots and never empties them while it runs).
 */
static bool epoch_changed(const struct stats_engine *e, const struct stats_sample *s)
{
	size_t n = s->fback.n < ELEMENTSOF(s->fback.entries) ? s->fback.n
							     : ELEMENTSOF(s->fback.entries);
	size_t n_table;
	const struct stats_desc *table = stats_table(&n_table);

	if (!e->have_raw)
		return false;
	for (size_t i = 0; i < n_table; i++) {
		bool valid;
		uint64_t v = stats_desc_value(&table[i], &s->stats, &s->fback, &valid);

		if (table[i].kind == STATS_COUNTER && v < e->counters[i].raw)
			return true;
	}
	return n < e->n_reasons_raw;
}

static uint64_t increase(uint64_t raw_before, uint64_t raw_now, bool epoch)
{
	return !epoch && raw_now >= raw_before ? raw_now - raw_before : raw_now;
}

static int update_reasons(struct stats_engine *e, const struct stats_sample *s, bool epoch)
{
	size_t n = s->fback.n < ELEMENTSOF(s->fback.entries) ? s->fback.n
							     : ELEMENTSOF(s->fback.entries);

	if (epoch)
		for (size_t i = 0; i < e->n_reasons; i++)
			e->reasons[i].c.raw = 0;
	for (size_t i = 0; i < n; i++) {
		const struct smc_fback_entry *f = &s->fback.entries[i];
		struct stats_reason *r = reason_find(e, f->server, f->code);

		if (!r && !(r = reason_add(e, f->server, f->code)))
			return -ENOMEM;
		/* u16 in the kernel: the increase modulo 65536 (a wrap is not an epoch). */
		if (!epoch && f->count < r->c.raw)
			e->dirty = true; /* a wrap cannot be recomputed after a restart */
		counter_add(&r->c, epoch ? f->count : (uint16_t)(f->count - (uint16_t)r->c.raw));
		r->c.raw = f->count;
	}
	e->n_reasons_raw = n;
	return 0;
}

/* Move last/prev for the rates; report whether a counter changed. */
static bool roll(struct stats_counter *c)
{
	bool changed = c->total != c->last;

	c->prev = c->last;
	c->last = c->total;
	return changed;
}

static int roll_all(struct stats_engine *e)
{
	size_t n_table;
	const struct stats_desc *table = stats_table(&n_table);
	bool counters = false, reasons = false;

	for (size_t i = 0; i < e->n_counters; i++)
		counters |= table[i].kind == STATS_COUNTER && roll(&e->counters[i]);
	for (size_t i = 0; i < _STATS_AGENT_MAX; i++)
		counters |= roll(&e->agent[i]);
	for (size_t i = 0; i < e->n_devices; i++)
		counters |= roll(&e->devices[i].seen);
	for (size_t i = 0; i < e->n_reasons; i++)
		reasons |= roll(&e->reasons[i].c);
	return (counters ? STATS_CHANGED_COUNTERS : 0) | (reasons ? STATS_CHANGED_REASONS : 0);
}

static bool gauges_differ(const struct stats_sample *a, const struct stats_sample *b)
{
	return memcmp(a->sockets, b->sockets, sizeof(a->sockets)) != 0 ||
	       a->has_sockets != b->has_sockets ||
	       a->stats.smcd.rx_rmb_usage != b->stats.smcd.rx_rmb_usage ||
	       a->stats.smcd.tx_rmb_usage != b->stats.smcd.tx_rmb_usage ||
	       a->stats.smcr.rx_rmb_usage != b->stats.smcr.rx_rmb_usage ||
	       a->stats.smcr.tx_rmb_usage != b->stats.smcr.tx_rmb_usage;
}

int stats_engine_update(struct stats_engine *e, const struct stats_sample *s, uint64_t mono_usec,
			uint64_t real_usec)
{
	size_t n_table;
	const struct stats_desc *table = stats_table(&n_table);
	bool was_active = e->active, epoch;
	int changed = 0, r;

	if (s->ok != e->available)
		changed |= STATS_CHANGED_AVAILABLE;
	if (gauges_differ(s, &e->last) || stats_engine_linkgroups(e, "smcd") != e->lgrs_reported[0] ||
	    stats_engine_linkgroups(e, "smcr") != e->lgrs_reported[1])
		changed |= STATS_CHANGED_GAUGES;
	e->lgrs_reported[0] = stats_engine_linkgroups(e, "smcd");
	e->lgrs_reported[1] = stats_engine_linkgroups(e, "smcr");
	e->last = *s;
	e->available = s->ok;
	e->sample_real_usec = real_usec;
	if (!s->ok)
		return changed;

	epoch = epoch_changed(e, s);
	if (epoch) {
		counter_add(&e->agent[STATS_KERNEL_EPOCHS], 1);
		e->dirty = true;
		changed |= STATS_CHANGED_EPOCH;
	}
	for (size_t i = 0; i < n_table; i++) {
		struct stats_counter *c = &e->counters[i];
		bool valid;
		uint64_t v = stats_desc_value(&table[i], &s->stats, &s->fback, &valid);

		if (table[i].kind == STATS_GAUGE)
			continue;
		counter_add(c, increase(c->raw, v, epoch));
		c->raw = v;
	}
	r = update_reasons(e, s, epoch);
	if (r < 0)
		return r;
	changed |= roll_all(e);
	e->prev_mono_usec = e->sample_mono_usec;
	e->sample_mono_usec = mono_usec;
	e->have_raw = true;
	e->samples++;
	e->active = changed & (STATS_CHANGED_COUNTERS | STATS_CHANGED_REASONS);
	/* Rates move when something was counted, and once more when they drop back to 0. */
	if (e->samples >= 2 && (e->active || was_active))
		changed |= STATS_CHANGED_RATES;
	return changed;
}

void stats_engine_reset(struct stats_engine *e, uint64_t real_usec)
{
	for (size_t i = 0; i < e->n_counters; i++)
		e->counters[i].baseline = e->counters[i].total;
	for (size_t i = 0; i < _STATS_AGENT_MAX; i++)
		e->agent[i].baseline = e->agent[i].total;
	for (size_t i = 0; i < e->n_reasons; i++)
		e->reasons[i].c.baseline = e->reasons[i].c.total;
	for (size_t i = 0; i < e->n_devices; i++)
		e->devices[i].seen.baseline = e->devices[i].seen.total;
	e->reset_real_usec = real_usec;
	e->dirty = true;
}
