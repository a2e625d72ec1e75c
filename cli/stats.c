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
 * The document is the counter tree of common/stats-table.c, the one the agent answers with;
 * this file renders it as text.
 *
 * Counters only ever grow in the kernel, which has no reset.  When smcd-agent runs, the
 * answer comes from it (cli/stats-agent.c) in the same layout: since-reset values at the
 * top, "total" and "rate" beside them; the text then says where the numbers come from and
 * adds what is open now and the rates of the last interval.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/agent.h"
#include "cli/objects.h"
#include "common/output.h"
#include "common/stats-table.h"

/* ---------------------------------------------------------------------------------- */
/* Text                                                                                */

static const char *const bucket_keys[SMC_STATS_BUCKETS] = {
	"8k", "16k", "32k", "64k", "128k", "256k", "512k", "1024k", "over_1024k",
};
static const char *const bucket_headers[SMC_STATS_BUCKETS] = {
	"8K", "16K", "32K", "64K", "128K", "256K", "512K", "1M", ">1M",
};

#define LABEL_WIDTH 30
#define VALUE_WIDTH 13

static uint64_t u(json_object *o, const char *path)
{
	return out_get_u64(o, path, 0);
}

static void line(struct smcctl *c, unsigned indent, const char *label, const char *value,
		 const char *extra)
{
	fprintf(c->out, "%*s%-*s %*s%s%s\n", (int)indent, "", LABEL_WIDTH - (int)indent, label,
		VALUE_WIDTH, value, extra && *extra ? " " : "", extra ? extra : "");
}

static void line_u64(struct smcctl *c, unsigned indent, const char *label, uint64_t v,
		     const char *extra)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	line(c, indent, label, buf, extra);
}

/* "123456789012 (123.5G)" as smc-tools prints byte and request counts. */
static void line_abbrev(struct smcctl *c, unsigned indent, const char *label, uint64_t v)
{
	char a[16], extra[24] = "";

	if (v >= 100000)
		snprintf(extra, sizeof(extra), "(%s)", out_fmt_abbrev(v, a, sizeof(a)));
	line_u64(c, indent, label, v, extra);
}

static void line_pct(struct smcctl *c, unsigned indent, const char *label, uint64_t v, uint64_t of)
{
	char extra[32] = "";

	if (of)
		snprintf(extra, sizeof(extra), "(%.2f%%)", 100.0 * (double)v / (double)of);
	line_u64(c, indent, label, v, extra);
}

static void line_split(struct smcctl *c, unsigned indent, const char *label, uint64_t total,
		       uint64_t client, uint64_t server)
{
	char extra[64];

	snprintf(extra, sizeof(extra), "(client %" PRIu64 ", server %" PRIu64 ")", client, server);
	line_u64(c, indent, label, total, total ? extra : NULL);
}

static void histogram(struct smcctl *c, const char *label, json_object *b)
{
	char a[16];

	fprintf(c->out, "    %-6s", label);
	for (size_t i = 0; i < SMC_STATS_BUCKETS; i++)
		fprintf(c->out, " %7s", out_fmt_abbrev(u(b, bucket_keys[i]), a, sizeof(a)));
	fputc('\n', c->out);
}

static void direction(struct smcctl *c, json_object *d, bool tx)
{
	uint64_t cnt = u(d, "requests");

	fprintf(c->out, "  %s\n", tx ? "TX" : "RX");
	line_abbrev(c, 4, tx ? "Data transmitted (bytes)" : "Data received (bytes)", u(d, "bytes"));
	line_abbrev(c, 4, "Requests", cnt);
	if (out_get(d, "buffer_usage"))
		line_abbrev(c, 4, "Buffer usage (bytes)", u(d, "buffer_usage"));
	else if (c->view & STATS_VIEW_ALL)
		line(c, 4, "Buffer usage (bytes)", "-", "(kernel 6.12+)");
	line_pct(c, 4, "Buffer full", u(d, "buffer.full"), cnt);
	if (tx) {
		line_pct(c, 4, "Buffer full (remote)", u(d, "buffer.full_peer"), cnt);
		line_pct(c, 4, "Buffer too small", u(d, "buffer.too_small"), cnt);
		line_pct(c, 4, "Buffer too small (remote)", u(d, "buffer.too_small_peer"), cnt);
	}
	if (c->detail) {
		line_u64(c, 4, "Buffer allocations", u(d, "buffer.alloc"), NULL);
		line_u64(c, 4, "Buffer downgrades", u(d, "buffer.downgrade"), NULL);
		line_u64(c, 4, "Buffer reuses", u(d, "buffer.reuse"), NULL);
	}
	fprintf(c->out, "    %-6s", "");
	for (size_t i = 0; i < SMC_STATS_BUCKETS; i++)
		fprintf(c->out, " %7s", bucket_headers[i]);
	fputc('\n', c->out);
	histogram(c, "Bufs", out_get(d, "buffer_sizes"));
	histogram(c, "Reqs", out_get(d, "request_sizes"));
}

static bool tech_active(json_object *t)
{
	return u(t, "connections") || u(t, "rx.requests") || u(t, "tx.requests") ||
	       u(t, "rx.buffer_usage") || u(t, "tx.buffer_usage");
}

static void tech(struct smcctl *c, const char *title, json_object *t, bool forced)
{
	uint64_t conns = u(t, "connections");
	uint64_t special = u(t, "cork") + u(t, "nodelay") + u(t, "sendpage") + u(t, "splice") +
			   u(t, "urgent_data");
	char avg[32];

	if (!t)
		return;
	if (!forced && !tech_active(t)) {
		fprintf(c->out, "\n%s: no activity\n", title);
		return;
	}
	fprintf(c->out, "\n%s\n", title);
	line_split(c, 2, "SMC connections", conns, u(t, "client_v1") + u(t, "client_v2"),
		   u(t, "server_v1") + u(t, "server_v2"));
	if (c->detail) {
		line_split(c, 4, "v1", u(t, "client_v1") + u(t, "server_v1"), u(t, "client_v1"),
			   u(t, "server_v1"));
		line_split(c, 4, "v2", u(t, "client_v2") + u(t, "server_v2"), u(t, "client_v2"),
			   u(t, "server_v2"));
	}
	if (conns) {
		snprintf(avg, sizeof(avg), "%.1f",
			 (double)(u(t, "rx.requests") + u(t, "tx.requests")) / (double)conns);
		line(c, 2, "Avg requests per SMC conn", avg, NULL);
	}
	direction(c, out_get(t, "rx"), false);
	direction(c, out_get(t, "tx"), true);
	fputs("  Extras\n", c->out);
	line_u64(c, 4, "Special socket calls", special, NULL);
	if (c->detail) {
		line_u64(c, 6, "cork", u(t, "cork"), NULL);
		line_u64(c, 6, "nodelay", u(t, "nodelay"), NULL);
		line_u64(c, 6, "sendpage", u(t, "sendpage"), NULL);
		line_u64(c, 6, "splice", u(t, "splice"), NULL);
		line_u64(c, 6, "urgent data", u(t, "urgent_data"), NULL);
	}
}

static void reasons(struct smcctl *c, json_object *f)
{
	json_object *arr = out_get(f, "reasons");
	size_t n = arr ? json_object_array_length(arr) : 0;
	uint64_t ni_c = u(f, "not_itemised.client"), ni_s = u(f, "not_itemised.server");

	if (n == 0 && !ni_c && !ni_s)
		return;
	fputs("\nTCP fallback reasons\n", c->out);
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(arr, i);
		const char *name = out_get_str(e, "name", NULL);
		const char *advice = out_get_str(e, "advice", NULL);
		char label[48];

		if (name)
			snprintf(label, sizeof(label), "%s %s", out_get_str(e, "side", "?"), name);
		else
			snprintf(label, sizeof(label), "%s 0x%08" PRIx64,
				 out_get_str(e, "side", "?"), u(e, "code"));
		line_u64(c, 2, label, u(e, "count"), out_get_str(e, "text", "unknown reason code"));
		if (advice)
			fprintf(c->out, "%*s-> %s\n", LABEL_WIDTH + VALUE_WIDTH + 2, "", advice);
	}
	if (ni_c || ni_s)
		fprintf(c->out,
			"  (%" PRIu64 " client and %" PRIu64 " server fallbacks not itemised: the "
			"kernel lists 36 reasons per side, with 16-bit counts that wrap)\n",
			ni_c, ni_s);
}

/* ---- served by the agent ----------------------------------------------------------- */

static void agent_header(struct smcctl *c, json_object *doc)
{
	char t1[64], t2[64];

	fprintf(c->out, "From smcd-agent: sampled %s, every %" PRIu64 "s%s\n",
		agent_fmt_time(u(doc, "time_usec"), t1, sizeof(t1)),
		u(doc, "interval_usec") / 1000000,
		out_get_bool(doc, "available", false) ? "" : " (SMC is not available now)");
	if (c->view & STATS_VIEW_RESET)
		fputs("Counts until this reset (from now on they start again at 0):\n", c->out);
	else if (c->view & STATS_VIEW_ABSOLUTE || !u(doc, "reset_usec"))
		fputs("Counts since smc was loaded ('smcctl stats reset' sets a baseline)\n", c->out);
	else
		fprintf(c->out, "Counts since the reset of %s (--absolute: since smc was loaded)\n",
			agent_fmt_time(u(doc, "reset_usec"), t2, sizeof(t2)));
	if (u(doc, "kernel_epochs"))
		fprintf(c->out,
			"(the kernel's counters restarted %" PRIu64 " time%s, smc reloaded; "
			"counted across)\n",
			u(doc, "kernel_epochs"), u(doc, "kernel_epochs") == 1 ? "" : "s");
	fputc('\n', c->out);
}

static double d(json_object *o, const char *path)
{
	json_object *v = out_get(o, path);

	return v ? json_object_get_double(v) : 0.0;
}

static void line_rate(struct smcctl *c, const char *label, double v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.1f", v);
	line(c, 2, label, buf, NULL);
}

static void agent_now(struct smcctl *c, json_object *doc)
{
	json_object *socks = out_get(doc, "sockets"), *r = out_get(doc, "rate");
	char buf[160];

	fputs("\nNow\n", c->out);
	if (socks) {
		snprintf(buf, sizeof(buf),
			 "%" PRIu64 " SMC-D, %" PRIu64 " SMC-R, %" PRIu64
			 " fell back to TCP, %" PRIu64 " listening",
			 u(socks, "smcd"), u(socks, "smcr"), u(socks, "fallback"),
			 u(socks, "listen"));
		fprintf(c->out, "  %-*s %s\n", LABEL_WIDTH - 2, "Sockets", buf);
	}
	snprintf(buf, sizeof(buf),
		 "%" PRIu64 " SMC-D, %" PRIu64 " SMC-R (%" PRIu64 " seen, %" PRIu64 " gone%s)",
		 u(doc, "linkgroups.smcd.current"), u(doc, "linkgroups.smcr.current"),
		 u(doc, "linkgroups.smcd.seen") + u(doc, "linkgroups.smcr.seen"),
		 u(doc, "linkgroups.smcd.removed") + u(doc, "linkgroups.smcr.removed"),
		 c->view & STATS_VIEW_ABSOLUTE || !u(doc, "reset_usec") ? "" : " since the reset");
	fprintf(c->out, "  %-*s %s\n", LABEL_WIDTH - 2, "Link groups", buf);
	if (!r)
		return;
	fprintf(c->out, "\nRates (per second over the last %.1fs)\n",
		(double)u(doc, "elapsed_usec") / 1e6);
	line_rate(c, "SMC connections", d(r, "summary.smcd") + d(r, "summary.smcr"));
	line_rate(c, "TCP fallbacks", d(r, "summary.fallback"));
	line_rate(c, "Handshake errors", d(r, "summary.handshake_errors"));
	line_rate(c, "Data received (bytes)", d(r, "smcd.rx.bytes") + d(r, "smcr.rx.bytes"));
	line_rate(c, "Data transmitted (bytes)", d(r, "smcd.tx.bytes") + d(r, "smcr.tx.bytes"));
}

void stats_text(struct smcctl *c, json_object *doc)
{
	json_object *f = out_get(doc, "fallback"), *hs = out_get(doc, "handshake_errors");
	bool all = c->view & STATS_VIEW_ALL;
	bool agent = streq_ptr(out_get_str(doc, "source", NULL), "smcd-agent");

	if (agent)
		agent_header(c, doc);
	fputs("Connections (this network namespace)\n", c->out);
	line_u64(c, 2, "Total connections handled", u(doc, "summary.total"), NULL);
	if (out_get(doc, "smcd"))
		line_u64(c, 2, "SMC-D connections", u(doc, "summary.smcd"), NULL);
	if (out_get(doc, "smcr"))
		line_u64(c, 2, "SMC-R connections", u(doc, "summary.smcr"), NULL);
	line_split(c, 2, "TCP fallbacks", u(doc, "summary.fallback"), u(f, "client"), u(f, "server"));
	line_split(c, 2, "Handshake errors", u(doc, "summary.handshake_errors"), u(hs, "client"),
		   u(hs, "server"));
	reasons(c, f);
	tech(c, "SMC-D", out_get(doc, "smcd"), all || (c->view & STATS_VIEW_SMCD));
	tech(c, "SMC-R", out_get(doc, "smcr"), all || (c->view & STATS_VIEW_SMCR));
	if (agent)
		agent_now(c, doc);
}

/* ---------------------------------------------------------------------------------- */
/* Handler                                                                             */

int stats_show(struct smcctl *c, const struct verb_args *a)
{
	bool only_d = a->opt[STATS_OPT_SMCD], only_r = a->opt[STATS_OPT_SMCR];
	_cleanup_(json_object_putp) json_object *doc = NULL;
	_cleanup_(freep) struct smc_fback_stats *f = calloc(1, sizeof(*f));
	struct smc_stats s = {};
	struct smcnl *nl;
	int r, st;

	if (!f)
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
	doc = stats_tree_from_kernel(&s, f);
	if (!doc || json_add_str(doc, "source", "kernel") < 0)
		return smcctl_oom(c);
	/* A filter removes the other technology from the document, not only from the text. */
	if (only_d)
		json_object_object_del(doc, "smcr");
	if (only_r)
		json_object_object_del(doc, "smcd");
	c->view = (a->opt[STATS_OPT_ALL] ? STATS_VIEW_ALL : 0) | (only_d ? STATS_VIEW_SMCD : 0) |
		  (only_r ? STATS_VIEW_SMCR : 0);
	return smcctl_emit(c, doc, stats_text);
}
