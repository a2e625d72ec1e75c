// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Advice from the SMC counters (see advice.h).  Every rule reads the counters summed over
 * SMC-D and SMC-R: the sysctls they point at (net.smc.wmem/rmem) apply to both.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/advice.h"
#include "common/macro.h"
#include "common/output.h"

/*
 * "Buffer full" above this share of the sends (or receives) is worth a bigger buffer.  A
 * full send buffer means the sender stopped and waited for the peer to consume: SMC's
 * buffers are preallocated rings that never grow like TCP's windows, so this is the
 * throughput limit itself.  Seed 001 lost 31% of its throughput at 50%; at 10% one send in
 * ten waits, which is already visible in a bulk transfer and still rare for request/response
 * traffic (whose sends fit the buffer).  Below that the wait is noise.
 */
#define FULL_SHARE_PERCENT 10
/* Fewer operations than this say nothing about throughput (a test connection or two). */
#define MIN_REQUESTS 100
/*
 * The largest buffer we suggest: 1 MiB is the kernel's largest histogram bucket (above it
 * only ">1M"), and an SMC-D DMB is one physically contiguous allocation (folio of
 * get_order(len)): larger ones fail under fragmentation and the kernel downgrades.  It is
 * also the value that fixed seed 001.  We suggest 4x the current value (the next power of
 * two, the kernel rounds up to one anyway) up to that cap: a step an operator can judge.
 */
#define SUGGEST_CAP (1024 * 1024)
#define SUGGEST_FACTOR 4
/*
 * Short-lived connections: SMC's handshake costs the TCP handshake plus the CLC exchange
 * (proposal, accept, confirm: at least one more round trip) and a buffer for each side (for
 * SMC-R also a link confirmation).  The counters do not say how long connections lived,
 * but they do say how many send and receive calls the connections made in all: fewer
 * than this many per connection (sends plus receives, both ends counted on loopback) is a
 * request/response or two, where the handshake costs more than SMC's faster data path
 * saves (seed 001's nginx/wrk case).  Judged only from this many connections on.
 */
#define SHORT_REQUESTS_PER_CONN 10
#define MIN_CONNECTIONS 100
/* Downgrades above this share of buffer allocations make a warning (any one is noted). */
#define DOWNGRADE_WARN_PERCENT 1

#define PEERNOSMC 0x03010000u

static uint64_t advice_row(const struct stats_num *rows, const char *key)
{
	int i = stats_table_find(key);

	return i < 0 || rows[i].null ? 0 : rows[i].u;
}

/* The counter summed over SMC-D and SMC-R: "tx.buffer.full". */
static uint64_t both(const struct stats_num *rows, const char *key)
{
	size_t n = strlen(key);
	char k[64];
	uint64_t v;

	/* "smcd." key, then "smcr." key: the keys are short (no snprintf: the verbs' hot path). */
	if (n + sizeof("smcd.") > sizeof(k))
		return 0;
	memcpy(k, "smcd.", 5);
	memcpy(k + 5, key, n + 1);
	v = advice_row(rows, k);
	k[3] = 'r';
	return v + advice_row(rows, k);
}

/* The env's values, read now if they were left to be read on demand (advice_env.load). */
static const struct advice_env *need(struct advice_env *env)
{
	if (env->load) {
		void (*load)(struct advice_env *) = env->load;

		env->load = NULL;
		load(env);
	}
	return env;
}

/* count > percent% of total, without overflow. */
static bool above(uint64_t count, uint64_t total, unsigned percent)
{
	return total && count > total / 100 * percent + total % 100 * percent / 100;
}

static double advice_pct(uint64_t count, uint64_t total)
{
	return total ? 100.0 * (double)count / (double)total : 0.0;
}

static int64_t suggest(int64_t current)
{
	int64_t v = 16384; /* the kernel's minimum */

	while (v < current * SUGGEST_FACTOR && v < SUGGEST_CAP)
		v *= 2;
	return v > current ? v : 0;
}

/* "64KiB", "1MiB", or bytes: the unit syntax smc.yaml accepts (config/units.c). */
static void size_str(int64_t v, char *buf, size_t len)
{
	if (v > 0 && v % (1024 * 1024) == 0)
		snprintf(buf, len, "%" PRId64 "MiB", v / (1024 * 1024));
	else if (v > 0 && v % 1024 == 0)
		snprintf(buf, len, "%" PRId64 "KiB", v / 1024);
	else
		snprintf(buf, len, "%" PRId64, v);
}

static struct advice *next(struct advice out[], size_t max, size_t *n)
{
	if (*n >= max)
		return NULL;
	out[*n] = (struct advice){ .current = -1 };
	return &out[(*n)++];
}

/* What the advice is and the two numbers it is based on (count of total). */
static void advice_basis(struct advice *a, const char *id, enum advice_severity severity,
			 const char *count_what, uint64_t count, const char *total_what,
			 uint64_t total)
{
	a->id = id;
	a->severity = severity;
	a->count_what = count_what;
	a->count = count;
	a->total_what = total_what;
	a->total = total;
}

/* Fill in the sysctl, its value, the suggestion and the smc.yaml line. */
static void set_sysctl(struct advice *a, const char *name, bool has, int64_t value)
{
	a->sysctl = name;
	a->current = has ? value : -1;
	a->suggested = suggest(has ? value : 65536 /* the kernel's default */);
	if (a->suggested) {
		char s[24];

		size_str(a->suggested, s, sizeof(s));
		snprintf(a->config, sizeof(a->config), "sysctl: {%s: %s}", name, s);
	}
}

static void sysctl_sentence(const struct advice *a, char *buf, size_t len)
{
	char cur[24], sug[24];

	size_str(a->current, cur, sizeof(cur));
	size_str(a->suggested, sug, sizeof(sug));
	snprintf(buf, len,
		 "raise net.smc.%s (now %s) to %s: 'smcctl sysctl set %s %" PRId64
		 "' or in smc.yaml '%s'; it applies to connections opened afterwards",
		 a->sysctl, a->current < 0 ? "unknown" : cur, sug, a->sysctl, a->suggested,
		 a->config);
}

/*
 * No advice about a buffer that is already at the cap: then a full buffer is the peer's
 * pace (a bulk sender is faster than its receiver with any buffer; in the 7x lane a 64 MiB
 * transfer at 1 MiB still finds the send buffer full on ~15% of sends), not its size.
 */
static bool can_raise(bool has, int64_t value)
{
	return suggest(has ? value : 65536) != 0;
}

static void buffer_full(const struct stats_num *rows, struct advice_env *e, bool tx,
			struct advice out[], size_t max, size_t *n)
{
	uint64_t full = both(rows, tx ? "tx.buffer.full" : "rx.buffer.full");
	uint64_t reqs = both(rows, tx ? "tx.requests" : "rx.requests");
	const struct advice_env *env;
	struct advice *a;
	char how[256];

	if (reqs < MIN_REQUESTS || !above(full, reqs, FULL_SHARE_PERCENT))
		return;
	env = need(e);
	if (!can_raise(tx ? env->has_wmem : env->has_rmem, tx ? env->wmem : env->rmem) ||
	    !(a = next(out, max, n)))
		return;
	advice_basis(a, tx ? "smc-tx-buffer-full" : "smc-rx-buffer-full", ADVICE_WARNING,
		     tx ? "tx_buffer_full" : "rx_buffer_full", full,
		     tx ? "tx_requests" : "rx_requests", reqs);
	if (tx)
		set_sysctl(a, "wmem", env->has_wmem, env->wmem);
	else
		set_sysctl(a, "rmem", env->has_rmem, env->rmem);
	sysctl_sentence(a, how, sizeof(how));
	snprintf(a->text, sizeof(a->text),
		 "the %s buffer was full on %.1f%% of %s (%" PRIu64 " of %" PRIu64
		 "): SMC's buffers do not grow like TCP's, %s",
		 tx ? "send" : "receive", advice_pct(full, reqs), tx ? "sends" : "receives", full,
		 reqs, how);
}

/* The peer's receive buffer (RMB) was full when we wanted to write: the peer's rmem. */
static void peer_full(const struct stats_num *rows, struct advice out[], size_t max, size_t *n)
{
	uint64_t full = both(rows, "tx.buffer.full_peer"), reqs = both(rows, "tx.requests");
	struct advice *a;

	if (reqs < MIN_REQUESTS || !above(full, reqs, FULL_SHARE_PERCENT) || !(a = next(out, max, n)))
		return;
	advice_basis(a, "smc-peer-buffer-full", ADVICE_WARNING, "tx_buffer_full_peer", full,
		     "tx_requests", reqs);
	snprintf(a->text, sizeof(a->text),
		 "the peer's receive buffer was full on %.1f%% of sends (%" PRIu64 " of %" PRIu64
		 "): raise net.smc.rmem on the peer's host (its 'smcctl stats' shows the same as "
		 "RX buffer full), or the application there reads too slowly",
		 advice_pct(full, reqs), full, reqs);
}

/*
 * Sends larger than the whole send buffer (the kernel's buf_size_small on TX: len >
 * sndbuf): each goes through it in pieces.  Its RX twin counts reads smaller than what was
 * waiting (len < readable in smc_rx_recvmsg), the application's read size, which no sysctl
 * changes: no advice from it.
 */
static void too_small(const struct stats_num *rows, struct advice_env *e, struct advice out[],
		      size_t max, size_t *n)
{
	uint64_t small = both(rows, "tx.buffer.too_small"), reqs = both(rows, "tx.requests");
	const struct advice_env *env;
	struct advice *a;
	char how[256];

	if (reqs < MIN_REQUESTS || !above(small, reqs, FULL_SHARE_PERCENT))
		return;
	env = need(e);
	if (!can_raise(env->has_wmem, env->wmem) || !(a = next(out, max, n)))
		return;
	advice_basis(a, "smc-tx-buffer-too-small", ADVICE_INFO, "tx_buffer_too_small", small,
		     "tx_requests", reqs);
	set_sysctl(a, "wmem", env->has_wmem, env->wmem);
	sysctl_sentence(a, how, sizeof(how));
	snprintf(a->text, sizeof(a->text),
		 "%.1f%% of sends (%" PRIu64 " of %" PRIu64 ") were larger than the whole send "
		 "buffer and went through it in pieces: %s",
		 advice_pct(small, reqs), small, reqs, how);
}

/* The kernel could not allocate the buffer size asked for and used a smaller one. */
static void downgrade(const struct stats_num *rows, struct advice out[], size_t max, size_t *n)
{
	uint64_t down = both(rows, "tx.buffer.downgrade") + both(rows, "rx.buffer.downgrade");
	uint64_t alloc = both(rows, "tx.buffer.alloc") + both(rows, "rx.buffer.alloc");
	struct advice *a;

	if (!down || !(a = next(out, max, n)))
		return;
	advice_basis(a, "smc-buffer-downgrade",
		     above(down, alloc, DOWNGRADE_WARN_PERCENT) || !alloc ? ADVICE_WARNING
									  : ADVICE_INFO,
		     "buffer_downgrade", down, "buffer_alloc", alloc);
	snprintf(a->text, sizeof(a->text),
		 "%" PRIu64 " of %" PRIu64 " buffer allocations got a smaller buffer than "
		 "net.smc.wmem/rmem ask for: the kernel found no contiguous memory that large "
		 "(or the device ran out of DMBs); lower wmem/rmem to what the host can give, or "
		 "free memory: raising them makes this worse",
		 down, alloc);
}

static void short_lived(const struct stats_num *rows, struct advice out[], size_t max, size_t *n)
{
	uint64_t conns =
		stats_rows_connections(rows, "smcd").u + stats_rows_connections(rows, "smcr").u;
	uint64_t reqs = both(rows, "tx.requests") + both(rows, "rx.requests");
	uint64_t bytes = both(rows, "tx.bytes") + both(rows, "rx.bytes");
	struct advice *a;

	if (conns < MIN_CONNECTIONS || reqs >= conns * SHORT_REQUESTS_PER_CONN ||
	    !(a = next(out, max, n)))
		return;
	advice_basis(a, "smc-short-connections", ADVICE_INFO, "requests", reqs, "connections", conns);
	snprintf(a->text, sizeof(a->text),
		 "%" PRIu64 " SMC connections made %.1f sends and receives each (%" PRIu64
		 " bytes each): too few for SMC's longer handshake to pay; keep connections open "
		 "(keep-alive, pooling) or leave these applications on TCP (smc.yaml policies, "
		 "or 'smcctl hs-limit enable' for busy listeners)",
		 conns, (double)reqs / (double)conns, bytes / conns);
}

/*
 * With the limitation on, a listener whose handshake queue is congested answers SYNs
 * without the SMC option: both ends then fall back with PEERNOSMC, the server side
 * counting it as an incoming connection from a peer without SMC.
 */
static void hs_limited(const struct stats_num *rows, const struct stats_tree_reason *reasons,
		       size_t n_reasons, struct advice_env *env, struct advice out[], size_t max,
		       size_t *n)
{
	uint64_t nosmc = 0, smc;
	struct advice *a;

	for (size_t i = 0; i < n_reasons; i++)
		if (reasons[i].server && reasons[i].code == PEERNOSMC)
			nosmc += reasons[i].n.u;
	if (!nosmc || need(env)->hs_limit != 1 || !(a = next(out, max, n)))
		return;
	smc = stats_rows_connections(rows, "smcd").u + stats_rows_connections(rows, "smcr").u;
	advice_basis(a, "smc-handshake-limited", ADVICE_INFO, "server_fallbacks_peernosmc", nosmc,
		     "connections", smc + nosmc);
	snprintf(a->text, sizeof(a->text),
		 "handshake limitation is on and %" PRIu64 " incoming connections went TCP "
		 "without an SMC handshake (server side PEERNOSMC, beside %" PRIu64
		 " on SMC): the limitation turns SYNs away from SMC while its handshake queue is "
		 "congested; if these should use SMC, 'smcctl hs-limit disable'",
		 nosmc, smc);
}

size_t advice_compute(const struct stats_num *rows, const struct stats_tree_reason *reasons,
		      size_t n_reasons, const struct advice_env *env, struct advice out[], size_t max)
{
	struct advice_env e = *env; /* loaded here on first need (advice_env.load) */
	size_t n = 0;

	buffer_full(rows, &e, true, out, max, &n);
	buffer_full(rows, &e, false, out, max, &n);
	peer_full(rows, out, max, &n);
	too_small(rows, &e, out, max, &n);
	downgrade(rows, out, max, &n);
	short_lived(rows, out, max, &n);
	hs_limited(rows, reasons, n_reasons, &e, out, max, &n);
	return n;
}

void advice_rows_from_tree(json_object *tree, struct stats_num rows[])
{
	size_t n;
	const struct stats_desc *t = stats_table(&n);

	for (size_t i = 0; i < n; i++) {
		json_object *v = out_get(tree, t[i].key);

		rows[i] = v && json_object_is_type(v, json_type_int)
				  ? (struct stats_num){ .u = (uint64_t)json_object_get_uint64(v) }
				  : (struct stats_num){ .null = true };
	}
}

size_t advice_reasons_from_tree(json_object *tree, struct stats_tree_reason reasons[], size_t max)
{
	json_object *arr = out_get(tree, "fallback.reasons");
	size_t n = 0;

	for (size_t i = 0; arr && json_object_is_type(arr, json_type_array) &&
			   i < json_object_array_length(arr) && n < max;
	     i++) {
		json_object *e = json_object_array_get_idx(arr, i), *code = out_get(e, "code"),
			    *count = out_get(e, "count");

		if (!code || !count || !json_object_is_type(count, json_type_int))
			continue;
		reasons[n++] = (struct stats_tree_reason){
			streq_ptr(out_get_str(e, "side", NULL), "server"),
			(uint32_t)json_object_get_uint64(code),
			{ .u = (uint64_t)json_object_get_uint64(count) },
		};
	}
	return n;
}

const char *advice_severity_name(enum advice_severity s)
{
	return s == ADVICE_WARNING ? "warning" : "info";
}

/*
 * The "advice" array under key (NULL: the root or an element), and in the text the block
 * "\nAdvice\n  ID (SEVERITY): TEXT" (nothing when there is no advice): each field once.
 */
void advice_emit(struct out_sink *o, const char *key, const struct advice *a, size_t n)
{
	out_array_begin(o, key);
	if (n)
		out_text(o, "\nAdvice\n");
	for (size_t i = 0; i < n; i++) {
		const char *severity = advice_severity_name(a[i].severity);

		out_object_begin(o, NULL);
		out_str(o, "id", OUT_NO_COL, a[i].id);
		out_str(o, "severity", OUT_NO_COL, severity);
		out_object_begin(o, "based_on");
		out_u64(o, a[i].count_what, OUT_NO_COL, a[i].count);
		out_u64(o, a[i].total_what, OUT_NO_COL, a[i].total);
		out_object_end(o);
		if (a[i].sysctl) {
			char name[32];

			snprintf(name, sizeof(name), "net.smc.%s", a[i].sysctl);
			out_object_begin(o, "sysctl");
			out_str(o, "name", OUT_NO_COL, name);
			if (a[i].current < 0)
				out_null(o, "current", OUT_NO_COL);
			else
				out_u64(o, "current", OUT_NO_COL, (uint64_t)a[i].current);
			if (a[i].suggested)
				out_u64(o, "suggested", OUT_NO_COL, (uint64_t)a[i].suggested);
			else
				out_null(o, "suggested", OUT_NO_COL);
			out_str(o, "smc_yaml", OUT_NO_COL, a[i].config[0] ? a[i].config : NULL);
			out_object_end(o);
		}
		out_str(o, "text", OUT_NO_COL, a[i].text);
		out_object_end(o);
		out_text(o, "  %s (%s): %s\n", a[i].id, severity, a[i].text);
	}
	out_array_end(o);
}

json_object *advice_json(const struct advice *a, size_t n)
{
	struct out_sink o;

	out_sink_doc(&o);
	advice_emit(&o, NULL, a, n);
	if (out_sink_done(&o) < 0)
		return NULL;
	return out_sink_take_doc(&o);
}

void advice_text_json(struct out_sink *o, json_object *arr)
{
	size_t n = arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr)
								    : 0;

	if (n)
		out_puts(o, "\nAdvice\n");
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(arr, i);

		out_text(o, "  %s (%s): %s\n", out_get_str(e, "id", "?"),
			 out_get_str(e, "severity", "?"), out_get_str(e, "text", ""));
	}
}
