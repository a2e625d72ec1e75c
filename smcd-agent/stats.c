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
#include "smcd-agent/manager.h"
#include "smcd-agent/stats.h"

/* ------------------------------------------------------------------------------------- */
/* The table                                                                              */

#define ROW(t, key, metric, labels, kind, field)                                           \
	{ #t key, metric, "technology=\"" #t "\"," labels, STATS_##kind, STATS_SRC_STATS,   \
	  offsetof(struct smc_stats, t) + offsetof(struct smc_stats_tech, field),          \
	  offsetof(struct smc_stats, t) }

/* clang-format off: one row per kernel counter, in the order of the direct document */
#define TECH_ROWS(t) \
	ROW(t, ".client_v1", "smc_handshakes_total", "side=\"client\",version=\"1\"", COUNTER, clnt_v1_succ), \
	ROW(t, ".client_v2", "smc_handshakes_total", "side=\"client\",version=\"2\"", COUNTER, clnt_v2_succ), \
	ROW(t, ".server_v1", "smc_handshakes_total", "side=\"server\",version=\"1\"", COUNTER, srv_v1_succ), \
	ROW(t, ".server_v2", "smc_handshakes_total", "side=\"server\",version=\"2\"", COUNTER, srv_v2_succ), \
	ROW(t, ".rx.bytes", "smc_bytes_total", "direction=\"rx\"", COUNTER, rx_bytes), \
	ROW(t, ".rx.requests", "smc_requests_total", "direction=\"rx\"", COUNTER, rx_cnt), \
	ROW(t, ".rx.buffer_usage", "smc_buffer_usage_bytes", "direction=\"rx\"", GAUGE, rx_rmb_usage), \
	ROW(t, ".rx.buffer.full", "smc_buffer_events_total", "direction=\"rx\",event=\"full\"", COUNTER, rx_rmb.buf_full), \
	ROW(t, ".rx.buffer.full_peer", "smc_buffer_events_total", "direction=\"rx\",event=\"full_peer\"", COUNTER, rx_rmb.buf_full_peer), \
	ROW(t, ".rx.buffer.too_small", "smc_buffer_events_total", "direction=\"rx\",event=\"too_small\"", COUNTER, rx_rmb.buf_size_small), \
	ROW(t, ".rx.buffer.too_small_peer", "smc_buffer_events_total", "direction=\"rx\",event=\"too_small_peer\"", COUNTER, rx_rmb.buf_size_small_peer), \
	ROW(t, ".rx.buffer.alloc", "smc_buffer_events_total", "direction=\"rx\",event=\"alloc\"", COUNTER, rx_rmb.alloc), \
	ROW(t, ".rx.buffer.reuse", "smc_buffer_events_total", "direction=\"rx\",event=\"reuse\"", COUNTER, rx_rmb.reuse), \
	ROW(t, ".rx.buffer.downgrade", "smc_buffer_events_total", "direction=\"rx\",event=\"downgrade\"", COUNTER, rx_rmb.downgrade), \
	ROW(t, ".rx.buffer_sizes.8k", "smc_buffer_sizes_total", "direction=\"rx\",size=\"8k\"", COUNTER, rx_rmb_size[0]), \
	ROW(t, ".rx.buffer_sizes.16k", "smc_buffer_sizes_total", "direction=\"rx\",size=\"16k\"", COUNTER, rx_rmb_size[1]), \
	ROW(t, ".rx.buffer_sizes.32k", "smc_buffer_sizes_total", "direction=\"rx\",size=\"32k\"", COUNTER, rx_rmb_size[2]), \
	ROW(t, ".rx.buffer_sizes.64k", "smc_buffer_sizes_total", "direction=\"rx\",size=\"64k\"", COUNTER, rx_rmb_size[3]), \
	ROW(t, ".rx.buffer_sizes.128k", "smc_buffer_sizes_total", "direction=\"rx\",size=\"128k\"", COUNTER, rx_rmb_size[4]), \
	ROW(t, ".rx.buffer_sizes.256k", "smc_buffer_sizes_total", "direction=\"rx\",size=\"256k\"", COUNTER, rx_rmb_size[5]), \
	ROW(t, ".rx.buffer_sizes.512k", "smc_buffer_sizes_total", "direction=\"rx\",size=\"512k\"", COUNTER, rx_rmb_size[6]), \
	ROW(t, ".rx.buffer_sizes.1024k", "smc_buffer_sizes_total", "direction=\"rx\",size=\"1024k\"", COUNTER, rx_rmb_size[7]), \
	ROW(t, ".rx.buffer_sizes.over_1024k", "smc_buffer_sizes_total", "direction=\"rx\",size=\"over_1024k\"", COUNTER, rx_rmb_size[8]), \
	ROW(t, ".rx.request_sizes.8k", "smc_request_sizes_total", "direction=\"rx\",size=\"8k\"", COUNTER, rx_pload[0]), \
	ROW(t, ".rx.request_sizes.16k", "smc_request_sizes_total", "direction=\"rx\",size=\"16k\"", COUNTER, rx_pload[1]), \
	ROW(t, ".rx.request_sizes.32k", "smc_request_sizes_total", "direction=\"rx\",size=\"32k\"", COUNTER, rx_pload[2]), \
	ROW(t, ".rx.request_sizes.64k", "smc_request_sizes_total", "direction=\"rx\",size=\"64k\"", COUNTER, rx_pload[3]), \
	ROW(t, ".rx.request_sizes.128k", "smc_request_sizes_total", "direction=\"rx\",size=\"128k\"", COUNTER, rx_pload[4]), \
	ROW(t, ".rx.request_sizes.256k", "smc_request_sizes_total", "direction=\"rx\",size=\"256k\"", COUNTER, rx_pload[5]), \
	ROW(t, ".rx.request_sizes.512k", "smc_request_sizes_total", "direction=\"rx\",size=\"512k\"", COUNTER, rx_pload[6]), \
	ROW(t, ".rx.request_sizes.1024k", "smc_request_sizes_total", "direction=\"rx\",size=\"1024k\"", COUNTER, rx_pload[7]), \
	ROW(t, ".rx.request_sizes.over_1024k", "smc_request_sizes_total", "direction=\"rx\",size=\"over_1024k\"", COUNTER, rx_pload[8]), \
	ROW(t, ".tx.bytes", "smc_bytes_total", "direction=\"tx\"", COUNTER, tx_bytes), \
	ROW(t, ".tx.requests", "smc_requests_total", "direction=\"tx\"", COUNTER, tx_cnt), \
	ROW(t, ".tx.buffer_usage", "smc_buffer_usage_bytes", "direction=\"tx\"", GAUGE, tx_rmb_usage), \
	ROW(t, ".tx.buffer.full", "smc_buffer_events_total", "direction=\"tx\",event=\"full\"", COUNTER, tx_rmb.buf_full), \
	ROW(t, ".tx.buffer.full_peer", "smc_buffer_events_total", "direction=\"tx\",event=\"full_peer\"", COUNTER, tx_rmb.buf_full_peer), \
	ROW(t, ".tx.buffer.too_small", "smc_buffer_events_total", "direction=\"tx\",event=\"too_small\"", COUNTER, tx_rmb.buf_size_small), \
	ROW(t, ".tx.buffer.too_small_peer", "smc_buffer_events_total", "direction=\"tx\",event=\"too_small_peer\"", COUNTER, tx_rmb.buf_size_small_peer), \
	ROW(t, ".tx.buffer.alloc", "smc_buffer_events_total", "direction=\"tx\",event=\"alloc\"", COUNTER, tx_rmb.alloc), \
	ROW(t, ".tx.buffer.reuse", "smc_buffer_events_total", "direction=\"tx\",event=\"reuse\"", COUNTER, tx_rmb.reuse), \
	ROW(t, ".tx.buffer.downgrade", "smc_buffer_events_total", "direction=\"tx\",event=\"downgrade\"", COUNTER, tx_rmb.downgrade), \
	ROW(t, ".tx.buffer_sizes.8k", "smc_buffer_sizes_total", "direction=\"tx\",size=\"8k\"", COUNTER, tx_rmb_size[0]), \
	ROW(t, ".tx.buffer_sizes.16k", "smc_buffer_sizes_total", "direction=\"tx\",size=\"16k\"", COUNTER, tx_rmb_size[1]), \
	ROW(t, ".tx.buffer_sizes.32k", "smc_buffer_sizes_total", "direction=\"tx\",size=\"32k\"", COUNTER, tx_rmb_size[2]), \
	ROW(t, ".tx.buffer_sizes.64k", "smc_buffer_sizes_total", "direction=\"tx\",size=\"64k\"", COUNTER, tx_rmb_size[3]), \
	ROW(t, ".tx.buffer_sizes.128k", "smc_buffer_sizes_total", "direction=\"tx\",size=\"128k\"", COUNTER, tx_rmb_size[4]), \
	ROW(t, ".tx.buffer_sizes.256k", "smc_buffer_sizes_total", "direction=\"tx\",size=\"256k\"", COUNTER, tx_rmb_size[5]), \
	ROW(t, ".tx.buffer_sizes.512k", "smc_buffer_sizes_total", "direction=\"tx\",size=\"512k\"", COUNTER, tx_rmb_size[6]), \
	ROW(t, ".tx.buffer_sizes.1024k", "smc_buffer_sizes_total", "direction=\"tx\",size=\"1024k\"", COUNTER, tx_rmb_size[7]), \
	ROW(t, ".tx.buffer_sizes.over_1024k", "smc_buffer_sizes_total", "direction=\"tx\",size=\"over_1024k\"", COUNTER, tx_rmb_size[8]), \
	ROW(t, ".tx.request_sizes.8k", "smc_request_sizes_total", "direction=\"tx\",size=\"8k\"", COUNTER, tx_pload[0]), \
	ROW(t, ".tx.request_sizes.16k", "smc_request_sizes_total", "direction=\"tx\",size=\"16k\"", COUNTER, tx_pload[1]), \
	ROW(t, ".tx.request_sizes.32k", "smc_request_sizes_total", "direction=\"tx\",size=\"32k\"", COUNTER, tx_pload[2]), \
	ROW(t, ".tx.request_sizes.64k", "smc_request_sizes_total", "direction=\"tx\",size=\"64k\"", COUNTER, tx_pload[3]), \
	ROW(t, ".tx.request_sizes.128k", "smc_request_sizes_total", "direction=\"tx\",size=\"128k\"", COUNTER, tx_pload[4]), \
	ROW(t, ".tx.request_sizes.256k", "smc_request_sizes_total", "direction=\"tx\",size=\"256k\"", COUNTER, tx_pload[5]), \
	ROW(t, ".tx.request_sizes.512k", "smc_request_sizes_total", "direction=\"tx\",size=\"512k\"", COUNTER, tx_pload[6]), \
	ROW(t, ".tx.request_sizes.1024k", "smc_request_sizes_total", "direction=\"tx\",size=\"1024k\"", COUNTER, tx_pload[7]), \
	ROW(t, ".tx.request_sizes.over_1024k", "smc_request_sizes_total", "direction=\"tx\",size=\"over_1024k\"", COUNTER, tx_pload[8]), \
	ROW(t, ".cork", "smc_socket_calls_total", "call=\"cork\"", COUNTER, cork), \
	ROW(t, ".nodelay", "smc_socket_calls_total", "call=\"nodelay\"", COUNTER, ndly), \
	ROW(t, ".sendpage", "smc_socket_calls_total", "call=\"sendpage\"", COUNTER, sendpage), \
	ROW(t, ".splice", "smc_socket_calls_total", "call=\"splice\"", COUNTER, splice), \
	ROW(t, ".urgent_data", "smc_socket_calls_total", "call=\"urgent_data\"", COUNTER, urg_data)

static const struct stats_desc table[] = {
	TECH_ROWS(smcd),
	TECH_ROWS(smcr),
	{ "handshake_errors.client", "smc_handshake_errors_total", "side=\"client\"", STATS_COUNTER,
	  STATS_SRC_STATS, offsetof(struct smc_stats, clnt_hs_err), SIZE_MAX },
	{ "handshake_errors.server", "smc_handshake_errors_total", "side=\"server\"", STATS_COUNTER,
	  STATS_SRC_STATS, offsetof(struct smc_stats, srv_hs_err), SIZE_MAX },
	{ "fallback.client", "smc_fallbacks_total", "side=\"client\"", STATS_COUNTER,
	  STATS_SRC_FBACK, offsetof(struct smc_fback_stats, clnt_total), SIZE_MAX },
	{ "fallback.server", "smc_fallbacks_total", "side=\"server\"", STATS_COUNTER,
	  STATS_SRC_FBACK, offsetof(struct smc_fback_stats, srv_total), SIZE_MAX },
};

/* clang-format on */

const struct stats_desc *stats_table(size_t *ret_n)
{
	*ret_n = ELEMENTSOF(table);
	return table;
}

int stats_table_find(const char *key)
{
	for (size_t i = 0; i < ELEMENTSOF(table); i++)
		if (streq(table[i].key, key))
			return (int)i;
	return -ENOENT;
}

uint64_t stats_desc_value(const struct stats_desc *d, const struct smc_stats *s,
			  const struct smc_fback_stats *f, bool *ret_valid)
{
	const char *base = d->source == STATS_SRC_STATS ? (const char *)s : (const char *)f;
	uint64_t v;

	*ret_valid = true;
	if (d->kind == STATS_GAUGE && d->tech_offset != SIZE_MAX) {
		const struct smc_stats_tech *t = (const void *)((const char *)s + d->tech_offset);

		*ret_valid = t->has_rmb_usage;
	}
	memcpy(&v, base + d->offset, sizeof(v));
	return v;
}

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
	[STATS_SOCK_SMCD] = "smcd",
	[STATS_SOCK_SMCR] = "smcr",
	[STATS_SOCK_FALLBACK] = "fallback",
	[STATS_SOCK_LISTEN] = "listen",
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
void stats_sample_count_sockets(struct stats_sample *s, const struct smc_socket *v, size_t n)
{
	memset(s->sockets, 0, sizeof(s->sockets));
	s->n_fallback_sockets = 0;
	for (size_t i = 0; i < n; i++) {
		enum stats_sock k;

		if (v[i].state == SMC_STATE_LISTEN)
			k = STATS_SOCK_LISTEN;
		else if (v[i].mode == SMC_MODE_FALLBACK)
			k = STATS_SOCK_FALLBACK;
		else if (v[i].state == SMC_STATE_INIT)
			k = STATS_SOCK_INIT;
		else if (v[i].mode == SMC_MODE_SMCD)
			k = STATS_SOCK_SMCD;
		else
			k = STATS_SOCK_SMCR;
		s->sockets[k]++;
		if (k == STATS_SOCK_FALLBACK)
			count_fallback_socket(s, v[i].has_fallback ? v[i].fallback_reason : 0);
	}
	s->has_sockets = true;
}

/* ------------------------------------------------------------------------------------- */
/* Engine                                                                                 */

int stats_engine_new(uint32_t linkgroup_series, struct stats_engine **ret)
{
	struct stats_engine *e = calloc(1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	e->n_counters = ELEMENTSOF(table);
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
	c->total += n;
}

/* ---- link groups and devices ----------------------------------------------------------- */

static struct stats_device *device_find(struct stats_engine *e, const char *tech,
					const char *name)
{
	for (size_t i = 0; i < e->n_devices; i++)
		if (streq(e->devices[i].technology, tech) && streq(e->devices[i].name, name))
			return &e->devices[i];
	return NULL;
}

static struct stats_device *device_add(struct stats_engine *e, const char *tech,
				       const char *name)
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

static struct stats_lgr *lgr_add(struct stats_engine *e, const struct bus_linkgroup *l,
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

static int track_devices(struct stats_engine *e, struct bus_device *devs, size_t n)
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

static void fill_devices(struct stats_engine *e, struct bus_device *devs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct stats_device *d = device_find(e, devs[i].technology, devs[i].name);

		devs[i].linkgroups_seen = d ? d->seen.total : 0;
	}
}

static int track_new_lgr(struct stats_engine *e, struct bus_linkgroup *l, uint64_t real_usec,
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

int stats_engine_track(struct stats_engine *e, struct bus_device *devs, size_t n_devs,
		       struct bus_linkgroup *lgrs, size_t n_lgrs, uint64_t real_usec)
{
	size_t o = 0;
	int r;

	r = track_devices(e, devs, n_devs);
	if (r < 0)
		return r;
	for (size_t i = 0; i < e->n_lgrs; i++)
		e->lgrs[i].present = false;
	for (size_t i = 0; i < n_lgrs; i++) {
		struct stats_lgr *t = (struct stats_lgr *)stats_engine_lgr(e, lgrs[i].technology,
									    lgrs[i].id);

		if (!t && (r = track_new_lgr(e, &lgrs[i], real_usec, &t)) < 0)
			return r;
		t->present = true;
		snprintf(t->device, sizeof(t->device), "%s", lgrs[i].device);
		if (lgrs[i].conns > t->peak_conns)
			t->peak_conns = lgrs[i].conns;
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
								    : STATS_LGR_REMOVED_SMCR], 1);
		e->dirty = true;
	}
	e->n_lgrs = o;
	fill_devices(e, devs, n_devs);
	return select_exported(e);
}

/* ---- counters --------------------------------------------------------------------------- */

static uint32_t lgrs_current(const struct stats_engine *e, const char *tech);

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

	if (!e->have_raw)
		return false;
	for (size_t i = 0; i < ELEMENTSOF(table); i++) {
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

int stats_engine_update(struct stats_engine *e, const struct stats_sample *s,
			uint64_t mono_usec, uint64_t real_usec)
{
	bool was_active = e->active, epoch;
	int changed = 0, r;

	if (s->ok != e->available)
		changed |= STATS_CHANGED_AVAILABLE;
	if (gauges_differ(s, &e->last) || lgrs_current(e, "smcd") != e->lgrs_reported[0] ||
	    lgrs_current(e, "smcr") != e->lgrs_reported[1])
		changed |= STATS_CHANGED_GAUGES;
	e->lgrs_reported[0] = lgrs_current(e, "smcd");
	e->lgrs_reported[1] = lgrs_current(e, "smcr");
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
	for (size_t i = 0; i < ELEMENTSOF(table); i++) {
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

static uint32_t lgrs_current(const struct stats_engine *e, const char *tech)
{
	uint32_t n = 0;

	for (size_t i = 0; i < e->n_lgrs; i++)
		n += streq(e->lgrs[i].technology, tech);
	return n;
}

static int add_gauge_row(const struct stats_engine *e, json_object *root, size_t i,
			 enum stats_view v)
{
	bool valid;
	uint64_t g = stats_desc_value(&table[i], &e->last.stats, &e->last.fback, &valid);

	if (!valid || v == STATS_VIEW_RATE || !e->available)
		return add_path(root, table[i].key, NULL, true);
	return add_path(root, table[i].key, json_object_new_uint64(g), false);
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
			r |= add_path(root, key, json_object_new_uint64(lgrs_current(e, techs[t])), false);
	}
	for (size_t i = 0; i < STATS_KERNEL_EPOCHS; i++)
		r |= add_path(root, agent_keys[i], num_json(v, counter_num(e, &e->agent[i], v)), false);
	r |= add_num(root, "kernel_epochs", v, counter_num(e, &e->agent[STATS_KERNEL_EPOCHS], v));
	return r;
}

json_object *stats_engine_tree(const struct stats_engine *e, enum stats_view v)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	json_object *sum = json_object_new_object(), *fallback;
	struct num d, rr, fb, hs, total;
	int r = 0;

	if (!o || json_add(o, "summary", sum) < 0)
		return NULL;
	d = tech_connections(e, "smcd", v);
	rr = tech_connections(e, "smcr", v);
	r |= add_path(o, "smcd.connections", num_json(v, d), false);
	r |= add_path(o, "smcr.connections", num_json(v, rr), false);
	for (size_t i = 0; i < ELEMENTSOF(table); i++) {
		if (table[i].kind == STATS_GAUGE)
			r |= add_gauge_row(e, o, i, v);
		else
			r |= add_path(o, table[i].key, num_json(v, counter_num(e, &e->counters[i], v)),
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
		r |= json_add_u64(o, sock_names[i], e->last.sockets[i]);
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
