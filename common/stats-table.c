// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The table of the kernel's SMC counters and the statistics tree built from it (see
 * stats-table.h).
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "common/output.h"
#include "common/stats-table.h"

/* ------------------------------------------------------------------------------------- */
/* The table                                                                              */

/* clang-format off */
#define ROW(t, key, metric, labels, kind, field)                                           \
	{ #t key, metric, "technology=\"" #t "\"," labels, STATS_##kind, STATS_SRC_STATS,   \
	  offsetof(struct smc_stats, t) + offsetof(struct smc_stats_tech, field),          \
	  offsetof(struct smc_stats, t) }

/* The rows of one direction (rx, tx), in the order of the document. */
#define DIR_ROW(t, d, key, metric, labels, kind, field) \
	ROW(t, "." #d key, metric, "direction=\"" #d "\"" labels, kind, field)
#define EVENT_ROW(t, d, event, field) \
	DIR_ROW(t, d, ".buffer." #event, "smc_buffer_events_total", ",event=\"" #event "\"", COUNTER, d##_rmb.field)
#define SIZE_ROWS(t, d, what, metric, field) \
	DIR_ROW(t, d, what ".up_to_8kib", metric, ",size=\"up_to_8kib\"", COUNTER, field[0]), \
	DIR_ROW(t, d, what ".up_to_16kib", metric, ",size=\"up_to_16kib\"", COUNTER, field[1]), \
	DIR_ROW(t, d, what ".up_to_32kib", metric, ",size=\"up_to_32kib\"", COUNTER, field[2]), \
	DIR_ROW(t, d, what ".up_to_64kib", metric, ",size=\"up_to_64kib\"", COUNTER, field[3]), \
	DIR_ROW(t, d, what ".up_to_128kib", metric, ",size=\"up_to_128kib\"", COUNTER, field[4]), \
	DIR_ROW(t, d, what ".up_to_256kib", metric, ",size=\"up_to_256kib\"", COUNTER, field[5]), \
	DIR_ROW(t, d, what ".up_to_512kib", metric, ",size=\"up_to_512kib\"", COUNTER, field[6]), \
	DIR_ROW(t, d, what ".up_to_1024kib", metric, ",size=\"up_to_1024kib\"", COUNTER, field[7]), \
	DIR_ROW(t, d, what ".over_1024kib", metric, ",size=\"over_1024kib\"", COUNTER, field[8])
#define DIR_ROWS(t, d) \
	DIR_ROW(t, d, ".bytes", "smc_bytes_total", "", COUNTER, d##_bytes), \
	DIR_ROW(t, d, ".requests", "smc_requests_total", "", COUNTER, d##_cnt), \
	DIR_ROW(t, d, ".buffer_usage", "smc_buffer_usage_bytes", "", GAUGE, d##_rmb_usage), \
	EVENT_ROW(t, d, full, buf_full), \
	EVENT_ROW(t, d, full_peer, buf_full_peer), \
	EVENT_ROW(t, d, too_small, buf_size_small), \
	EVENT_ROW(t, d, too_small_peer, buf_size_small_peer), \
	EVENT_ROW(t, d, alloc, alloc), \
	EVENT_ROW(t, d, reuse, reuse), \
	EVENT_ROW(t, d, downgrade, downgrade), \
	SIZE_ROWS(t, d, ".buffer_sizes", "smc_buffer_sizes_total", d##_rmb_size), \
	SIZE_ROWS(t, d, ".request_sizes", "smc_request_sizes_total", d##_pload)

/* One row per kernel counter, in the order of the document. */
#define TECH_ROWS(t) \
	ROW(t, ".client_v1", "smc_handshakes_total", "side=\"client\",version=\"1\"", COUNTER, clnt_v1_succ), \
	ROW(t, ".client_v2", "smc_handshakes_total", "side=\"client\",version=\"2\"", COUNTER, clnt_v2_succ), \
	ROW(t, ".server_v1", "smc_handshakes_total", "side=\"server\",version=\"1\"", COUNTER, srv_v1_succ), \
	ROW(t, ".server_v2", "smc_handshakes_total", "side=\"server\",version=\"2\"", COUNTER, srv_v2_succ), \
	DIR_ROWS(t, rx), \
	DIR_ROWS(t, tx), \
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

/*
 * The rows by key: an open-addressed hash index, built once per process.  A read verb
 * looks up some 70 keys (the text, the summary, the advice rules); a linear search with
 * strcmp() cost 1700 instructions each, a tenth of "smcctl stats" in user space
 * (bench/smcctl-vs-smctools).
 */
#define INDEX_SLOTS 512 /* a power of two, over three times the rows */
static uint8_t index_slot[INDEX_SLOTS];
static pthread_once_t index_once = PTHREAD_ONCE_INIT;

/*
 * FNV-1a of the length, the characters that tell smcd from smcr and rx from tx, and the
 * last ten: no two keys of the table hash alike, and a key costs a third of hashing it
 * whole (the index is built once per process; strcmp() decides every match anyway).
 */
static uint32_t key_hash(const char *key)
{
	size_t n = strlen(key);
	uint32_t h = (2166136261u ^ (uint32_t)n) * 16777619u;

	if (n > 5) {
		h = (h ^ (unsigned char)key[3]) * 16777619u;
		h = (h ^ (unsigned char)key[5]) * 16777619u;
	}
	for (const unsigned char *p = (const unsigned char *)key + (n > 10 ? n - 10 : 0); *p; p++)
		h = (h ^ *p) * 16777619u;
	return h;
}

static void index_build(void)
{
	static_assert(ELEMENTSOF(table) < UINT8_MAX && ELEMENTSOF(table) * 3 < INDEX_SLOTS,
		      "the index holds row numbers in a byte, 0xff = empty");
	memset(index_slot, 0xff, sizeof(index_slot));
	for (size_t i = 0; i < ELEMENTSOF(table); i++) {
		uint32_t s = key_hash(table[i].key) & (INDEX_SLOTS - 1);

		while (index_slot[s] != 0xff)
			s = (s + 1) & (INDEX_SLOTS - 1);
		index_slot[s] = (uint8_t)i;
	}
}

int stats_table_find(const char *key)
{
	uint32_t s;

	if (!key)
		return -ENOENT;
	(void)pthread_once(&index_once, index_build);
	for (s = key_hash(key) & (INDEX_SLOTS - 1); index_slot[s] != 0xff;
	     s = (s + 1) & (INDEX_SLOTS - 1))
		if (streq(table[index_slot[s]].key, key))
			return index_slot[s];
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

/* ------------------------------------------------------------------------------------- */
/* The tree                                                                               */

static void num_add(struct stats_num *a, struct stats_num b)
{
	a->u = u64_add_sat(a->u, b.u);
	a->d += b.d;
}

static json_object *num_json(struct stats_num n, bool rate)
{
	return rate ? json_object_new_double(n.d) : json_object_new_uint64(n.u);
}

static int add_num(json_object *o, const char *key, struct stats_num n, bool rate)
{
	return n.null ? json_add_null(o, key) : json_add(o, key, num_json(n, rate));
}

/* The object at the path's parent ("smcd.rx.bytes" -> root.smcd.rx), created as needed. */
static json_object *path_parent(json_object *root, const char *path, const char **ret_leaf)
{
	const char *p = path, *dot;
	json_object *o = root;

	while ((dot = strchr(p, '.'))) {
		char key[64];
		size_t n = (size_t)(dot - p) < sizeof(key) ? (size_t)(dot - p) : sizeof(key) - 1;
		json_object *next;

		memcpy(key, p, n);
		key[n] = '\0';
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

int stats_tree_add(json_object *root, const char *path, struct stats_num n, bool rate)
{
	const char *leaf;
	json_object *o = path_parent(root, path, &leaf);

	return o ? add_num(o, leaf, n, rate) : -ENOMEM;
}

static struct stats_num stats_table_row(const struct stats_num *rows, const char *key)
{
	int i = stats_table_find(key);

	return i < 0 ? (struct stats_num){} : rows[i];
}

/* The sum in this order: a rate's last digits depend on it. */
struct stats_num stats_rows_connections(const struct stats_num *rows, const char *tech)
{
	static const char *const keys[] = { "client_v1", "client_v2", "server_v1", "server_v2" };
	struct stats_num n = {};

	size_t lt = strlen(tech);
	char key[32];

	if (lt + sizeof(".server_v1") > sizeof(key))
		return n;
	memcpy(key, tech, lt);
	key[lt] = '.';
	for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
		memcpy(key + lt + 1, keys[i], strlen(keys[i]) + 1);
		num_add(&n, stats_table_row(rows, key));
	}
	return n;
}

/* Server first, then the larger number, then the code: a stable order. */
static int stats_table_cmp_reason(const void *a, const void *b, void *userdata)
{
	const struct stats_tree_reason *x = a, *y = b;
	bool rate = *(const bool *)userdata;

	if (x->server != y->server)
		return x->server ? -1 : 1;
	if (rate ? x->n.d != y->n.d : x->n.u != y->n.u) {
		if (rate)
			return x->n.d > y->n.d ? -1 : 1;
		return x->n.u > y->n.u ? -1 : 1;
	}
	return x->code < y->code ? -1 : x->code > y->code;
}

static json_object *stats_table_reason_json(const struct stats_tree_reason *e, bool rate)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	int r = 0;

	if (!o)
		return NULL;
	r |= json_add_str(o, "side", e->server ? "server" : "client");
	r |= json_add_u64(o, "code", e->code);
	r |= json_add_str(o, "name", smc_decline_name(e->code));
	r |= add_num(o, "count", e->n, rate);
	r |= json_add_str(o, "text", smc_decline_text(e->code));
	r |= json_add_str(o, "advice", smc_decline_advice(e->code));
	return r < 0 ? NULL : TAKE_PTR(o);
}

static struct stats_num minus(struct stats_num a, struct stats_num b)
{
	return (struct stats_num){ .u = a.u > b.u ? a.u - b.u : 0, .d = a.d > b.d ? a.d - b.d : 0 };
}

void stats_rows_reasons(const struct stats_num *rows, struct stats_tree_reason *reasons, size_t n,
			bool rate, struct stats_num ret_not_itemised[2])
{
	struct stats_num sum[2] = {};

	if (n > 1) /* qsort_r(NULL, 0, ...) is undefined, and UBSan says so */
		qsort_r(reasons, n, sizeof(*reasons), stats_table_cmp_reason, &rate);
	for (size_t i = 0; i < n; i++)
		num_add(&sum[reasons[i].server], reasons[i].n);
	ret_not_itemised[0] = minus(stats_table_row(rows, "fallback.client"), sum[0]);
	ret_not_itemised[1] = minus(stats_table_row(rows, "fallback.server"), sum[1]);
}

static int add_reasons(json_object *fallback, const struct stats_num *rows,
		       struct stats_tree_reason *reasons, size_t n, bool rate)
{
	_cleanup_(json_object_putp) json_object *rest = json_object_new_object();
	json_object *arr = json_object_new_array();
	struct stats_num ni[2];
	int r = 0;

	if (json_add(fallback, "reasons", arr) < 0 || !rest)
		return -ENOMEM;
	stats_rows_reasons(rows, reasons, n, rate, ni);
	for (size_t i = 0; i < n; i++)
		r |= json_append(arr, stats_table_reason_json(&reasons[i], rate));
	r |= add_num(rest, "client", ni[0], rate);
	r |= add_num(rest, "server", ni[1], rate);
	return r | json_add(fallback, "not_itemised", TAKE_PTR(rest));
}

void stats_rows_summary(const struct stats_num *rows, struct stats_summary *ret)
{
	ret->smcd = stats_rows_connections(rows, "smcd");
	ret->smcr = stats_rows_connections(rows, "smcr");
	ret->fallback = stats_table_row(rows, "fallback.client");
	ret->handshake_errors = stats_table_row(rows, "handshake_errors.client");
	num_add(&ret->fallback, stats_table_row(rows, "fallback.server"));
	num_add(&ret->handshake_errors, stats_table_row(rows, "handshake_errors.server"));
	ret->total = ret->smcd;
	num_add(&ret->total, ret->smcr);
	num_add(&ret->total, ret->fallback);
	num_add(&ret->total, ret->handshake_errors);
}

static int add_summary(json_object *sum, const struct stats_num *rows, bool rate)
{
	struct stats_summary m;
	int r = 0;

	stats_rows_summary(rows, &m);
	r |= add_num(sum, "total", m.total, rate);
	r |= add_num(sum, "smcd", m.smcd, rate);
	r |= add_num(sum, "smcr", m.smcr, rate);
	r |= add_num(sum, "fallback", m.fallback, rate);
	r |= add_num(sum, "handshake_errors", m.handshake_errors, rate);
	return r;
}

json_object *stats_tree_new(const struct stats_num *rows, struct stats_tree_reason *reasons,
			    size_t n_reasons, bool rate)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	json_object *sum = json_object_new_object(), *fallback;
	int r = 0;

	/* The keys in the order they are printed: summary first, filled in last. */
	if (!o || json_add(o, "summary", sum) < 0)
		return NULL;
	r |= stats_tree_add(o, "smcd.connections", stats_rows_connections(rows, "smcd"), rate);
	r |= stats_tree_add(o, "smcr.connections", stats_rows_connections(rows, "smcr"), rate);
	for (size_t i = 0; i < ELEMENTSOF(table); i++)
		r |= stats_tree_add(o, table[i].key, rows[i], rate);
	if (r < 0 || !json_object_object_get_ex(o, "fallback", &fallback) ||
	    add_reasons(fallback, rows, reasons, n_reasons, rate) < 0 ||
	    add_summary(sum, rows, rate) < 0)
		return NULL;
	return TAKE_PTR(o);
}

size_t stats_rows_from_kernel(const struct smc_stats *s, const struct smc_fback_stats *f,
			      struct stats_num rows[], struct stats_tree_reason reasons[])
{
	size_t n = f->n < ELEMENTSOF(f->entries) ? f->n : ELEMENTSOF(f->entries);

	for (size_t i = 0; i < ELEMENTSOF(table); i++) {
		bool valid;

		rows[i] = (struct stats_num){ .u = stats_desc_value(&table[i], s, f, &valid) };
		rows[i].null = !valid;
	}
	for (size_t i = 0; i < n; i++)
		reasons[i] = (struct stats_tree_reason){ f->entries[i].server,
							 f->entries[i].code,
							 { .u = f->entries[i].count } };
	return n;
}

json_object *stats_tree_from_kernel(const struct smc_stats *s, const struct smc_fback_stats *f)
{
	struct stats_num rows[ELEMENTSOF(table)];
	struct stats_tree_reason reasons[ELEMENTSOF(f->entries)];
	size_t n = stats_rows_from_kernel(s, f, rows, reasons);

	return stats_tree_new(rows, reasons, n, false);
}

/* ------------------------------------------------------------------------------------- */
/* The tree into a sink                                                                   */

struct emit_path {
	char part[4][24]; /* the open objects below the root, outermost first */
	unsigned n;
};

static void emit_num(struct out_sink *o, const char *key, struct stats_num n)
{
	if (n.null)
		out_null(o, key, OUT_NO_COL);
	else
		out_u64(o, key, OUT_NO_COL, n.u);
}

/* Close the open objects down to depth keep; "fallback" gets its reasons on the way. */
static void emit_close(struct out_sink *o, struct emit_path *p, unsigned keep,
		       const struct stats_tree_reason *reasons, size_t n_reasons,
		       const struct stats_num ni[2])
{
	while (p->n > keep) {
		if (p->n == 1 && streq(p->part[0], "fallback")) {
			out_array_begin(o, "reasons");
			for (size_t i = 0; i < n_reasons; i++) {
				const struct stats_tree_reason *e = &reasons[i];

				out_object_begin(o, NULL);
				out_str(o, "side", OUT_NO_COL, e->server ? "server" : "client");
				out_u64(o, "code", OUT_NO_COL, e->code);
				out_str(o, "name", OUT_NO_COL, smc_decline_name(e->code));
				emit_num(o, "count", e->n);
				out_str(o, "text", OUT_NO_COL, smc_decline_text(e->code));
				out_str(o, "advice", OUT_NO_COL, smc_decline_advice(e->code));
				out_object_end(o);
			}
			out_array_end(o);
			out_object_begin(o, "not_itemised");
			emit_num(o, "client", ni[0]);
			emit_num(o, "server", ni[1]);
			out_object_end(o);
		}
		out_object_end(o);
		p->n--;
	}
}

void stats_rows_emit(struct out_sink *o, const struct stats_num *rows,
		     struct stats_tree_reason *reasons, size_t n_reasons, bool no_smcd, bool no_smcr)
{
	struct stats_summary m;
	struct stats_num ni[2];
	struct emit_path p = { .n = 0 };

	stats_rows_reasons(rows, reasons, n_reasons, false, ni);
	stats_rows_summary(rows, &m);
	out_object_begin(o, "summary");
	emit_num(o, "total", m.total);
	emit_num(o, "smcd", m.smcd);
	emit_num(o, "smcr", m.smcr);
	emit_num(o, "fallback", m.fallback);
	emit_num(o, "handshake_errors", m.handshake_errors);
	out_object_end(o);
	for (size_t i = 0; i < ELEMENTSOF(table); i++) {
		const char *k = table[i].key, *dot;
		unsigned depth = 0;

		if ((no_smcd && !strncmp(k, "smcd.", 5)) || (no_smcr && !strncmp(k, "smcr.", 5)))
			continue;
		/* the open objects that are this key's too */
		while (depth < p.n && (dot = strchr(k, '.')) &&
		       (size_t)(dot - k) == strlen(p.part[depth]) &&
		       !strncmp(k, p.part[depth], (size_t)(dot - k))) {
			k = dot + 1;
			depth++;
		}
		emit_close(o, &p, depth, reasons, n_reasons, ni);
		while ((dot = strchr(k, '.')) && p.n < ELEMENTSOF(p.part)) {
			size_t n = (size_t)(dot - k);

			if (n >= sizeof(p.part[0]))
				n = sizeof(p.part[0]) - 1;
			memcpy(p.part[p.n], k, n);
			p.part[p.n][n] = '\0';
			out_object_begin(o, p.part[p.n]);
			if (p.n++ == 0 && (streq(p.part[0], "smcd") || streq(p.part[0], "smcr")))
				emit_num(o, "connections", stats_rows_connections(rows, p.part[0]));
			k = dot + 1;
		}
		emit_num(o, k, rows[i]);
	}
	emit_close(o, &p, 0, reasons, n_reasons, ni);
}
