// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl stats: the SMC counters of this network namespace, in the smc-tools layout plus
 * what smc-tools leaves out: every fallback reason by name with what it means and what to
 * do, buffer usage, all nine histogram buckets, and in JSON every counter including the
 * handshake errors and the fallback reasons.
 *
 * Fixed on the way: fallbacks and handshake errors are global, not per technology; smc-tools
 * adds them to both the SMC-D and the SMC-R "total", so the totals double-count.  Here they
 * appear once, in the summary.  The RX section says "received".
 *
 * The document (-j) is the counter tree of common/stats-table.c, the one the agent answers
 * with; the kernel's is streamed into the JSON sink from the counters' rows
 * (stats_rows_emit(): integers and strings only, key for key in the tree's order), so it
 * builds no document.  The agent's answer, whose rates are json-c's doubles, is printed by
 * json-c as it came (cli/stats-agent.c).  The text has one renderer, drawn from the
 * counters' rows (struct rows_src): the kernel's numbers go there without a tree, a tree
 * (the agent's answer) is read back into them; it goes through a text sink (its
 * "label  value (extra)" lines are out_line(), the histograms out_line_cells(), the agent's
 * fallbacks by unit out_line_cols()).
 *
 * Counters only ever grow in the kernel, which has no reset.  When smcd-agent runs, the
 * answer comes from it (cli/stats-agent.c) in the same layout: since-reset values at the
 * top, "total" and "rate" beside them; the text then says where the numbers come from and
 * adds what is open now and the rates of the last interval.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/agent.h"
#include "cli/verbs.h"
#include "common/advice.h"
#include "common/output.h"
#include "common/stats-table.h"

/* ---------------------------------------------------------------------------------- */
/* Text                                                                                */

/* The size buckets: keys of the counter tree (common/stats-table.c: snake_case, and the
 * textfile's size label), and IEC units in the text (smcctl(8) JSON OUTPUT). */
static const char *const bucket_keys[SMC_STATS_BUCKETS] = {
	"up_to_8kib",	"up_to_16kib",	"up_to_32kib",	 "up_to_64kib",	 "up_to_128kib",
	"up_to_256kib", "up_to_512kib", "up_to_1024kib", "over_1024kib",
};
static const char *const bucket_headers[SMC_STATS_BUCKETS] = {
	"8KiB", "16KiB", "32KiB", "64KiB", "128KiB", "256KiB", "512KiB", "1MiB", ">1MiB",
};

#define LABEL_WIDTH 30
#define VALUE_WIDTH 13

/*
 * What the text reads: the counters as rows of stats_table() with what the counter tree
 * derives from them (common/stats-table.c), whichever way they came: from the kernel's
 * structs (stats_rows_text(), no tree is built: building, rendering from and freeing a
 * json-c object per counter was most of the verb), or from a counter tree (stats_tree_text():
 * the agent's answer, or -j's document) read back into rows by advice_rows_from_tree().
 * One model, so one text: there is no second renderer to keep equal to this one.
 */
struct rows_src {
	const struct stats_num *rows;
	const struct stats_desc *table;
	size_t n;
	struct stats_summary sum;
	struct stats_num conns[2]; /* smcd, smcr */
	const struct stats_tree_reason *reasons;
	size_t n_reasons;
	struct stats_num not_itemised[2];
	bool no_smcd, no_smcr;	     /* --smcr, --smcd, or not in the tree */
	const struct advice *advice; /* what stats_show() computed, shown last */
	size_t n_advice;
	json_object *advice_json; /* or the tree's "advice" */
};

struct sv {
	struct rows_src *r;
	char path[48]; /* where this is in the tree ("smcd.rx"), "" at the top */
	bool absent;   /* no such object */
};

/* a "." b into buf (a may be ""); false when it does not fit (no key is that long). */
static bool join(char *buf, size_t size, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la + 1 + lb + 1 > size)
		return false;
	memcpy(buf, a, la);
	if (la)
		buf[la++] = '.';
	memcpy(buf + la, b, lb + 1);
	return true;
}

static struct sv sub(const struct sv *v, const char *key)
{
	struct sv w = { .r = v->r, .absent = v->absent };

	if (!join(w.path, sizeof(w.path), v->path, key))
		w.absent = true; /* no key of the table is this long */
	if (!v->path[0] &&
	    ((streq(key, "smcd") && v->r->no_smcd) || (streq(key, "smcr") && v->r->no_smcr)))
		w.absent = true;
	return w;
}

static bool here(const struct sv *v)
{
	return !v->absent;
}

/* The number at path below v; false when it is missing or null (a gauge not sent). */
static bool num(const struct sv *v, const char *path, struct stats_num *ret)
{
	struct rows_src *r = v->r;
	char key[96];
	int i;

	*ret = (struct stats_num){};
	if (v->absent)
		return false;
	if (!join(key, sizeof(key), v->path, path))
		return false;
	/* The tree's derived numbers. */
	if (strncmp(key, "summary.", 8) == 0) {
		const char *k = key + 8;

		*ret = streq(k, "total")	      ? r->sum.total
		       : streq(k, "smcd")	      ? r->sum.smcd
		       : streq(k, "smcr")	      ? r->sum.smcr
		       : streq(k, "fallback")	      ? r->sum.fallback
		       : streq(k, "handshake_errors") ? r->sum.handshake_errors
						      : (struct stats_num){ .null = true };
		return !ret->null;
	}
	if (streq(key, "smcd.connections") || streq(key, "smcr.connections")) {
		*ret = r->conns[key[3] == 'r'];
		return true;
	}
	if (streq(key, "fallback.not_itemised.client") || streq(key, "fallback.not_itemised.server")) {
		*ret = r->not_itemised[key[22] == 's'];
		return true;
	}
	i = stats_table_find(key); /* the table's hash index: one strcmp() */
	if (i < 0)
		return false;
	*ret = r->rows[i];
	return !ret->null;
}

/* 0 for a missing or null number, as the tree's reader took it. */
static uint64_t u(const struct sv *v, const char *path)
{
	struct stats_num n;

	return num(v, path, &n) ? n.u : 0;
}

static bool has(const struct sv *v, const char *path)
{
	struct stats_num n;

	return num(v, path, &n);
}

/* The agent's own numbers (its answer only). */
static uint64_t uj(json_object *o, const char *path)
{
	return out_get_u64(o, path, 0);
}

/* "label  value (extra)", the label to column 30, the value right-aligned in 13. */
static void line(struct out_sink *o, unsigned indent, const char *label, const char *value,
		 const char *extra)
{
	out_line(o, indent, LABEL_WIDTH, label, VALUE_WIDTH, value, extra);
}

static void line_u64(struct out_sink *o, unsigned indent, const char *label, uint64_t v,
		     const char *extra)
{
	char buf[32];

	line(o, indent, label, out_fmt_dec(v, buf, sizeof(buf)), extra);
}

/*
 * "2132416 (2.0 MiB)": a size in bytes with its IEC size, as smc.yaml and every other
 * size smcctl shows (smc-tools' "(2.132M)" is decimal, so "M" meant two things here).
 */
static void line_bytes(struct out_sink *o, unsigned indent, const char *label, uint64_t v)
{
	char size[24], extra[32] = "";

	if (v >= 1024)
		snprintf(extra, sizeof(extra), "(%s)", out_fmt_iec(v, size, sizeof(size)));
	line_u64(o, indent, label, v, extra);
}

/* "123456789012 (123.5G)" as smc-tools prints request counts: a count, not a size. */
static void line_abbrev(struct out_sink *o, unsigned indent, const char *label, uint64_t v)
{
	char a[16], extra[24] = "";

	if (v >= 100000)
		snprintf(extra, sizeof(extra), "(%s)", out_fmt_abbrev(v, a, sizeof(a)));
	line_u64(o, indent, label, v, extra);
}

static void line_pct(struct out_sink *o, unsigned indent, const char *label, uint64_t v, uint64_t of)
{
	char extra[32] = "";

	if (of)
		snprintf(extra, sizeof(extra), "(%.2f%%)", 100.0 * (double)v / (double)of);
	line_u64(o, indent, label, v, extra);
}

static void line_split(struct out_sink *o, unsigned indent, const char *label, uint64_t total,
		       uint64_t client, uint64_t server)
{
	char extra[64];

	snprintf(extra, sizeof(extra), "(client %" PRIu64 ", server %" PRIu64 ")", client, server);
	line_u64(o, indent, label, total, total ? extra : NULL);
}

/* "    %-6s" and " %7s" per cell. */
static void cells_line(struct out_sink *o, const char *label, const char *const cells[], size_t n)
{
	out_line_cells(o, 4, 10, label, 7, cells, n);
}

static void histogram(struct out_sink *o, const char *label, const struct sv *b)
{
	char a[SMC_STATS_BUCKETS][16];
	const char *cells[SMC_STATS_BUCKETS];

	for (size_t i = 0; i < SMC_STATS_BUCKETS; i++)
		cells[i] = out_fmt_abbrev(u(b, bucket_keys[i]), a[i], sizeof(a[i]));
	cells_line(o, label, cells, SMC_STATS_BUCKETS);
}

static void direction(struct out_sink *o, struct smcctl *c, const struct sv *d, bool tx)
{
	struct sv bufs = sub(d, "buffer_sizes"), reqs = sub(d, "request_sizes");
	uint64_t cnt = u(d, "requests");

	out_text(o, "  %s\n", tx ? "TX" : "RX");
	line_bytes(o, 4, tx ? "Data transmitted (bytes)" : "Data received (bytes)", u(d, "bytes"));
	line_abbrev(o, 4, "Requests", cnt);
	if (has(d, "buffer_usage"))
		line_bytes(o, 4, "Buffer usage (bytes)", u(d, "buffer_usage"));
	else if (c->view & STATS_VIEW_ALL)
		line(o, 4, "Buffer usage (bytes)", "-", "(kernel 6.12+)");
	line_pct(o, 4, "Buffer full", u(d, "buffer.full"), cnt);
	if (tx) {
		line_pct(o, 4, "Buffer full (remote)", u(d, "buffer.full_peer"), cnt);
		line_pct(o, 4, "Buffer too small", u(d, "buffer.too_small"), cnt);
		line_pct(o, 4, "Buffer too small (remote)", u(d, "buffer.too_small_peer"), cnt);
	}
	if (c->detail) {
		line_u64(o, 4, "Buffer allocations", u(d, "buffer.alloc"), NULL);
		line_u64(o, 4, "Buffer downgrades", u(d, "buffer.downgrade"), NULL);
		line_u64(o, 4, "Buffer reuses", u(d, "buffer.reuse"), NULL);
	}
	cells_line(o, "", bucket_headers, SMC_STATS_BUCKETS);
	histogram(o, "Bufs", &bufs);
	histogram(o, "Reqs", &reqs);
}

static bool tech_active(const struct sv *t)
{
	return u(t, "connections") || u(t, "rx.requests") || u(t, "tx.requests") ||
	       u(t, "rx.buffer_usage") || u(t, "tx.buffer_usage");
}

static void tech(struct out_sink *o, struct smcctl *c, const char *title, const struct sv *t,
		 bool forced)
{
	struct sv rx = sub(t, "rx"), tx = sub(t, "tx");
	uint64_t conns = u(t, "connections");
	uint64_t special = u(t, "cork") + u(t, "nodelay") + u(t, "sendpage") + u(t, "splice") +
			   u(t, "urgent_data");
	char avg[32];

	if (!here(t))
		return;
	if (!forced && !tech_active(t)) {
		out_text(o, "\n%s: no activity\n", title);
		return;
	}
	out_text(o, "\n%s\n", title);
	line_split(o, 2, "SMC connections", conns, u(t, "client_v1") + u(t, "client_v2"),
		   u(t, "server_v1") + u(t, "server_v2"));
	if (c->detail) {
		line_split(o, 4, "v1", u(t, "client_v1") + u(t, "server_v1"), u(t, "client_v1"),
			   u(t, "server_v1"));
		line_split(o, 4, "v2", u(t, "client_v2") + u(t, "server_v2"), u(t, "client_v2"),
			   u(t, "server_v2"));
	}
	if (conns) {
		snprintf(avg, sizeof(avg), "%.1f",
			 (double)(u(t, "rx.requests") + u(t, "tx.requests")) / (double)conns);
		line(o, 2, "Avg requests per SMC conn", avg, NULL);
	}
	direction(o, c, &rx, false);
	direction(o, c, &tx, true);
	out_puts(o, "  Extras\n");
	line_u64(o, 4, "Special socket calls", special, NULL);
	if (c->detail) {
		line_u64(o, 6, "cork", u(t, "cork"), NULL);
		line_u64(o, 6, "nodelay", u(t, "nodelay"), NULL);
		line_u64(o, 6, "sendpage", u(t, "sendpage"), NULL);
		line_u64(o, 6, "splice", u(t, "splice"), NULL);
		line_u64(o, 6, "urgent data", u(t, "urgent_data"), NULL);
	}
}

/* The i-th itemised reason, with what smc_decline_*() say about its code. */
struct reason {
	const char *side, *name, *text, *advice;
	uint64_t code, count;
};

static size_t n_reasons(const struct sv *f)
{
	return f->absent ? 0 : f->r->n_reasons;
}

static struct reason reason_at(const struct sv *f, size_t i)
{
	const struct stats_tree_reason *e = &f->r->reasons[i];

	return (struct reason){ e->server ? "server" : "client",
				smc_decline_name(e->code),
				smc_decline_text(e->code),
				smc_decline_advice(e->code),
				e->code,
				e->n.u };
}

static void reasons(struct out_sink *o, struct smcctl *c, const struct sv *f)
{
	size_t n = n_reasons(f);
	uint64_t ni_c = u(f, "not_itemised.client"), ni_s = u(f, "not_itemised.server");

	if (n == 0 && !ni_c && !ni_s)
		return;
	out_puts(o, "\nTCP fallback reasons\n");
	for (size_t i = 0; i < n; i++) {
		struct reason e = reason_at(f, i);
		char label[48];

		if (e.name)
			snprintf(label, sizeof(label), "%s %s", e.side ? e.side : "?", e.name);
		else
			snprintf(label, sizeof(label), "%s 0x%08" PRIx64, e.side ? e.side : "?",
				 e.code);
		line_u64(o, 2, label, e.count, e.text ? e.text : "unknown reason code");
		if (e.advice)
			out_line(o, LABEL_WIDTH + VALUE_WIDTH + 2, 0, "->", 0, e.advice, NULL);
	}
	if (ni_c || ni_s)
		out_text(o,
			 "  (%" PRIu64 " client and %" PRIu64 " server fallbacks not itemised: the "
			 "kernel lists 36 reasons per side, with 16-bit counts that wrap)\n",
			 ni_c, ni_s);
}

/* ---- served by the agent ----------------------------------------------------------- */

/*
 * Where the fallbacks came from (the agent's fallback.attribution): per reason its units,
 * largest first, "other" for those beyond the agent's bound.  Since the agent started,
 * whatever the view: the kernel's counters above are the exact totals.
 */
/* "  name          unit                                          count": the reason's name to
 * column 14, the unit left in 40, the count right in 10. */
static const struct out_line_col attribution_cols[] = { { 40, OUT_LEFT }, { 10, OUT_RIGHT } };

static void attribution(struct out_sink *o, struct smcctl *c, json_object *doc)
{
	json_object *a = out_get(doc, "fallback.attribution"), *reasons;
	size_t n;

	if (!a)
		return;
	if (!out_get_bool(a, "available", false)) {
		out_text(o, "\nFallback attribution is unavailable: %s\n",
			 out_get_str(a, "error", "unknown reason"));
		return;
	}
	reasons = out_get(a, "reasons");
	n = json_object_is_type(reasons, json_type_array) ? json_object_array_length(reasons) : 0;
	if (n == 0)
		return;
	out_puts(o, "\nFallbacks by unit (seen by smcd-agent since it started)\n");
	for (size_t i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(reasons, i), *units = out_get(r, "units");
		size_t k = json_object_is_type(units, json_type_array)
				   ? json_object_array_length(units)
				   : 0;
		char name[16];

		if (out_get_str(r, "name", NULL))
			snprintf(name, sizeof(name), "%s", out_get_str(r, "name", NULL));
		else
			snprintf(name, sizeof(name), "0x%08" PRIx64, out_get_u64(r, "code", 0));
		for (size_t j = 0; j < k; j++) {
			json_object *u = json_object_array_get_idx(units, j);
			char count[24];
			const char *cells[] = {
				out_get_str(u, "unit", "?"),
				out_fmt_dec(out_get_u64(u, "count", 0), count, sizeof(count)),
			};

			out_line_cols(o, 2, 14, name, attribution_cols, cells, ELEMENTSOF(cells));
		}
	}
	if (out_get_u64(a, "lost", 0))
		out_text(o, "  (%" PRIu64 " fallbacks not attributed: the ring buffer was full)\n",
			 out_get_u64(a, "lost", 0));
}

static void agent_header(struct out_sink *o, struct smcctl *c, json_object *doc)
{
	char t1[64], t2[64];

	out_text(o, "From smcd-agent: sampled %s, every %" PRIu64 "s%s\n",
		 agent_fmt_time(uj(doc, "time_usec"), t1, sizeof(t1)),
		 uj(doc, "interval_usec") / 1000000,
		 out_get_bool(doc, "available", false) ? "" : " (SMC is not available now)");
	if (c->view & STATS_VIEW_RESET)
		out_puts(o, "Counts until this reset (from now on they start again at 0):\n");
	else if (c->view & STATS_VIEW_ABSOLUTE || !uj(doc, "reset_usec"))
		out_puts(o, "Counts since smc was loaded ('smcctl stats reset' sets a baseline)\n");
	else
		out_text(o, "Counts since the reset of %s (--absolute: since smc was loaded)\n",
			 agent_fmt_time(uj(doc, "reset_usec"), t2, sizeof(t2)));
	if (uj(doc, "kernel_epochs"))
		out_text(o,
			 "(the kernel's counters restarted %" PRIu64 " time%s, smc reloaded; "
			 "counted across)\n",
			 uj(doc, "kernel_epochs"), uj(doc, "kernel_epochs") == 1 ? "" : "s");
	out_puts(o, "\n");
}

static double d(json_object *o, const char *path)
{
	json_object *v = out_get(o, path);

	return v ? json_object_get_double(v) : 0.0;
}

static void line_rate(struct out_sink *o, const char *label, double v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.1f", v);
	line(o, 2, label, buf, NULL);
}

static void agent_now(struct out_sink *o, struct smcctl *c, json_object *doc)
{
	json_object *socks = out_get(doc, "sockets"), *r = out_get(doc, "rate");
	char buf[160];

	out_puts(o, "\nNow\n");
	if (socks) {
		snprintf(buf, sizeof(buf),
			 "%" PRIu64 " SMC-D, %" PRIu64 " SMC-R, %" PRIu64
			 " fell back to TCP, %" PRIu64 " listening",
			 uj(socks, "smcd"), uj(socks, "smcr"), uj(socks, "fallback"),
			 uj(socks, "listen"));
		out_line(o, 2, LABEL_WIDTH, "Sockets", 0, buf, NULL);
	}
	snprintf(buf, sizeof(buf),
		 "%" PRIu64 " SMC-D, %" PRIu64 " SMC-R (%" PRIu64 " seen, %" PRIu64 " gone%s)",
		 uj(doc, "linkgroups.smcd.current"), uj(doc, "linkgroups.smcr.current"),
		 uj(doc, "linkgroups.smcd.seen") + uj(doc, "linkgroups.smcr.seen"),
		 uj(doc, "linkgroups.smcd.removed") + uj(doc, "linkgroups.smcr.removed"),
		 c->view & STATS_VIEW_ABSOLUTE || !uj(doc, "reset_usec") ? "" : " since the reset");
	out_line(o, 2, LABEL_WIDTH, "Link groups", 0, buf, NULL);
	if (!r)
		return;
	out_text(o, "\nRates (per second over the last %.1fs)\n",
		 (double)uj(doc, "elapsed_usec") / 1e6);
	line_rate(o, "SMC connections", d(r, "summary.smcd") + d(r, "summary.smcr"));
	line_rate(o, "TCP fallbacks", d(r, "summary.fallback"));
	line_rate(o, "Handshake errors", d(r, "summary.handshake_errors"));
	line_rate(o, "Data received (bytes)", d(r, "smcd.rx.bytes") + d(r, "smcr.rx.bytes"));
	line_rate(o, "Data transmitted (bytes)", d(r, "smcd.tx.bytes") + d(r, "smcr.tx.bytes"));
}

/* The counters' text, from the tree or from the rows (top: the root); doc: the agent's. */
static void render(struct out_sink *o, struct smcctl *c, const struct sv *top, json_object *agent_doc)
{
	struct sv f = sub(top, "fallback"), hs = sub(top, "handshake_errors");
	struct sv smcd = sub(top, "smcd"), smcr = sub(top, "smcr");
	bool all = c->view & STATS_VIEW_ALL;

	if (agent_doc)
		agent_header(o, c, agent_doc);
	out_puts(o, "Connections (this network namespace)\n");
	line_u64(o, 2, "Total connections handled", u(top, "summary.total"), NULL);
	if (here(&smcd))
		line_u64(o, 2, "SMC-D connections", u(top, "summary.smcd"), NULL);
	if (here(&smcr))
		line_u64(o, 2, "SMC-R connections", u(top, "summary.smcr"), NULL);
	line_split(o, 2, "TCP fallbacks", u(top, "summary.fallback"), u(&f, "client"),
		   u(&f, "server"));
	line_split(o, 2, "Handshake errors", u(top, "summary.handshake_errors"), u(&hs, "client"),
		   u(&hs, "server"));
	reasons(o, c, &f);
	tech(o, c, "SMC-D", &smcd, all || (c->view & STATS_VIEW_SMCD));
	tech(o, c, "SMC-R", &smcr, all || (c->view & STATS_VIEW_SMCR));
	if (agent_doc) {
		attribution(o, c, agent_doc);
		agent_now(o, c, agent_doc);
	}
	/* Last, and only when there is some: what the numbers above mean. */
	if (top->r->advice_json)
		advice_text_json(o, top->r->advice_json);
	else
		advice_emit(o, NULL, top->r->advice, top->r->n_advice);
}

/* The text into a text sink on smcctl's output.  A failed write is the flush's to report
 * (smcctl_emit()); returns -ENOMEM or 0. */
static int render_text(struct smcctl *c, const struct sv *top, json_object *agent_doc)
{
	struct out_sink o;
	int r;

	out_sink_text(&o, c->out, c->detail);
	render(&o, c, top, agent_doc);
	r = out_sink_done(&o);
	return r == -ENOMEM ? r : 0;
}

/* A number of the tree as the rows hold one: null when missing or not an integer. */
static struct stats_num tree_num(json_object *doc, const char *path)
{
	json_object *v = out_get(doc, path);

	return v && json_object_is_type(v, json_type_int)
		       ? (struct stats_num){ .u = (uint64_t)json_object_get_uint64(v) }
		       : (struct stats_num){ .null = true };
}

/* The tree read back into the model, the numbers stats_rows_text() derives as it has them. */
int stats_tree_text(struct smcctl *c, json_object *doc)
{
	struct stats_tree_reason reasons[2 * SMC_FBACK_SLOTS];
	_cleanup_(freep) struct stats_num *rows = NULL;
	bool agent = streq_ptr(out_get_str(doc, "source", NULL), "smcd-agent");
	struct rows_src r = {};
	struct sv top;

	r.table = stats_table(&r.n);
	rows = calloc(r.n, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	advice_rows_from_tree(doc, rows);
	/* The derived numbers as the tree has them (its summary counts both technologies
	 * also when --smcd or --smcr took one out), the reasons in its order. */
	r.n_reasons = advice_reasons_from_tree(doc, reasons, ELEMENTSOF(reasons));
	r.not_itemised[0] = tree_num(doc, "fallback.not_itemised.client");
	r.not_itemised[1] = tree_num(doc, "fallback.not_itemised.server");
	r.sum = (struct stats_summary){
		.total = tree_num(doc, "summary.total"),
		.smcd = tree_num(doc, "summary.smcd"),
		.smcr = tree_num(doc, "summary.smcr"),
		.fallback = tree_num(doc, "summary.fallback"),
		.handshake_errors = tree_num(doc, "summary.handshake_errors"),
	};
	r.conns[0] = tree_num(doc, "smcd.connections");
	r.conns[1] = tree_num(doc, "smcr.connections");
	r.rows = rows;
	r.reasons = reasons;
	r.no_smcd = !out_get(doc, "smcd");
	r.no_smcr = !out_get(doc, "smcr");
	r.advice_json = out_get(doc, "advice");
	top = (struct sv){ .r = &r };
	return render_text(c, &top, agent ? doc : NULL);
}

int stats_rows_text(struct smcctl *c, const struct smc_stats *s, const struct smc_fback_stats *f,
		    bool only_smcd, bool only_smcr, const struct advice *advice, size_t n_advice)
{
	_cleanup_(freep) struct rows_src *r = calloc(1, sizeof(*r));
	_cleanup_(freep) struct stats_num *rows = NULL;
	_cleanup_(freep) struct stats_tree_reason *reasons = NULL;
	struct sv top;

	if (!r)
		return -ENOMEM;
	r->table = stats_table(&r->n);
	rows = calloc(r->n, sizeof(*rows));
	reasons = calloc(ELEMENTSOF(f->entries), sizeof(*reasons));
	if (!rows || !reasons)
		return -ENOMEM;
	r->n_reasons = stats_rows_from_kernel(s, f, rows, reasons);
	stats_rows_reasons(rows, reasons, r->n_reasons, false, r->not_itemised);
	stats_rows_summary(rows, &r->sum);
	r->conns[0] = stats_rows_connections(rows, "smcd");
	r->conns[1] = stats_rows_connections(rows, "smcr");
	r->rows = rows;
	r->reasons = reasons;
	/* --smcd / --smcr: the document loses the other technology, so does this. */
	r->no_smcd = only_smcr;
	r->no_smcr = only_smcd;
	r->advice = advice;
	r->n_advice = n_advice;
	top = (struct sv){ .r = r };
	return render_text(c, &top, NULL);
}

/* ---------------------------------------------------------------------------------- */
/* Advice                                                                              */

/*
 * What the advice is judged against, in smcctl's network namespace (the one whose counters
 * these are; the agent's are those of the agent's, which is smcctl's when it asks the
 * agent).  A value that cannot be read is unknown, not a failure of the verb: the advice
 * then says "now unknown" (JSON null) and the counters are still shown.
 */
static void advice_env_load(struct advice_env *env)
{
	struct smcctl *c = env->userdata;
	struct smcnl *nl;
	bool on;

	/* Not smcctl_nl(): the agent's answer is printed even when this handle fails. */
	if (!c->nl && smcnl_open(&c->nl_opts, &c->nl) < 0)
		return;
	nl = c->nl;
	env->has_wmem = smc_sysctl_get_int(nl, "wmem", &env->wmem) >= 0;
	env->has_rmem = smc_sysctl_get_int(nl, "rmem", &env->rmem) >= 0;
	if (smc_hs_limitation_get(nl, &on) >= 0)
		env->hs_limit = on;
}

/* Read when a rule needs them (advice_env.load): most hosts' counters call for none. */
void stats_advice_env(struct smcctl *c, struct advice_env *env)
{
	*env = (struct advice_env){ .hs_limit = -1, .load = advice_env_load, .userdata = c };
}

/* The rows of the other technology zeroed (--smcd, --smcr: advice about what is shown). */
static void rows_only(struct stats_num *rows, bool only_smcd, bool only_smcr)
{
	size_t n;
	const struct stats_desc *t = stats_table(&n);

	for (size_t i = 0; i < n; i++)
		if ((only_smcd && !strncmp(t[i].key, "smcr.", 5)) ||
		    (only_smcr && !strncmp(t[i].key, "smcd.", 5)))
			rows[i] = (struct stats_num){};
}

size_t stats_tree_advice(struct smcctl *c, json_object *tree, struct advice *out)
{
	_cleanup_(freep) struct stats_num *rows = NULL;
	struct stats_tree_reason reasons[2 * SMC_FBACK_SLOTS];
	struct advice_env env;
	size_t n, n_reasons;

	stats_table(&n);
	rows = calloc(n, sizeof(*rows));
	if (!rows)
		return 0;
	advice_rows_from_tree(tree, rows);
	n_reasons = advice_reasons_from_tree(tree, reasons, ELEMENTSOF(reasons));
	stats_advice_env(c, &env);
	return advice_compute(rows, reasons, n_reasons, &env, out, ADVICE_MAX);
}

/* ---------------------------------------------------------------------------------- */
/* Handler                                                                             */

int stats_show(struct smcctl *c, const struct verb_args *a)
{
	bool only_d = a->opt[STATS_OPT_SMCD], only_r = a->opt[STATS_OPT_SMCR];
	_cleanup_(freep) struct smc_fback_stats *f = calloc(1, sizeof(*f));
	_cleanup_(freep) struct stats_num *rows = NULL;
	_cleanup_(freep) struct stats_tree_reason *reasons = NULL;
	struct advice advice[ADVICE_MAX];
	struct advice_env env;
	struct smc_stats s = {};
	struct out_sink o;
	struct smcnl *nl;
	size_t n_rows, n_reasons, n_advice;
	int r, st;

	stats_table(&n_rows);
	rows = calloc(n_rows, sizeof(*rows));
	reasons = calloc(ELEMENTSOF(f->entries), sizeof(*reasons));
	if (!f || !rows || !reasons)
		return smcctl_oom(c);
	if (only_d && only_r)
		return smcctl_usage(c, "--smcd and --smcr exclude each other");
	if ((st = smcctl_nl(c, &nl)))
		return st;
	r = smc_stats_get(nl, &s);
	if (r < 0)
		return smcctl_fail(c, SMC_OP_QUERY, r, "cannot read the SMC statistics");
	r = smc_fback_stats_get(nl, f);
	if (r < 0)
		return smcctl_fail(c, SMC_OP_QUERY, r, "cannot read the fallback statistics");
	n_reasons = stats_rows_from_kernel(&s, f, rows, reasons);
	rows_only(rows, only_d, only_r);
	stats_advice_env(c, &env);
	n_advice = advice_compute(rows, reasons, n_reasons, &env, advice, ADVICE_MAX);
	c->view = (a->opt[STATS_OPT_ALL] ? STATS_VIEW_ALL : 0) | (only_d ? STATS_VIEW_SMCD : 0) |
		  (only_r ? STATS_VIEW_SMCR : 0);
	if (!c->json) {
		/* No tree: neither the text nor -j needs json-c (loaded on first use, cli/dl.c). */
		if (stats_rows_text(c, &s, f, only_d, only_r, advice, n_advice) < 0)
			return smcctl_oom(c);
		return smcctl_emit(c, NULL, NULL);
	}
	/* The counter tree streamed, from the kernel's rows before --smcd or --smcr zeroed
	 * some (the summary counts both); the filter leaves the other technology out. */
	n_reasons = stats_rows_from_kernel(&s, f, rows, reasons);
	out_sink_json(&o, c->out, c->pretty);
	out_object_begin(&o, NULL);
	stats_rows_emit(&o, rows, reasons, n_reasons, only_r, only_d);
	out_str(&o, "source", OUT_NO_COL, "kernel");
	advice_emit(&o, "advice", advice, n_advice);
	out_object_end(&o);
	if (out_sink_done(&o) == -ENOMEM)
		return smcctl_oom(c);
	return smcctl_flush(c);
}
