// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Prometheus textfile for node_exporter's textfile collector (exposition format 0.0.4).
 *
 * Names are part of the interface (dashboards and alerts use them): every family below is
 * listed in smcd-agent(8), and a golden test holds the output.  Rules followed:
 *   - prefix smc_, base units (bytes, seconds), counters end in _total;
 *   - HELP and TYPE once per family, a family only when it has samples;
 *   - every sample of a family has the same label names (node_exporter's registry refuses a
 *     family whose samples disagree, and drops the whole file);
 *   - counters are the agent's totals (monotonic across smc reloads, see stats.h), never the
 *     since-reset values: "smcctl stats reset" is for people, rate() needs no reset;
 *   - link groups come and go, so their series are capped (stats.linkgroup-series): the
 *     others are summed per technology into linkgroup="_other";
 *   - what the kernel keeps per network namespace (counters, fallback reasons, sockets) has a
 *     netns label on every sample: "host" for the agent's own namespace (the engine's
 *     totals), the /run/netns name for the others (their kernel's counters as read, netns.h);
 *     a namespace whose read failed is left out, and smc_netns_up says so.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/assess-rules.h"
#include "common/auto-rules.h"
#include "common/macro.h"
#include "smcd-agent/fallback.h"
#include "smcd-agent/netns-sampler.h"
#include "smcd-agent/objects.h"
#include "smcd-agent/stats-engine.h"

struct family {
	const char *name;
	const char *type;
	const char *help;
};

/* clang-format off */
static const struct family families[] = {
	{ "smc_handshakes_total", "counter", "Successful SMC handshakes (connections using SMC) by technology, side and SMC version." },
	{ "smc_handshake_errors_total", "counter", "SMC handshakes that failed with an error, by side." },
	{ "smc_fallbacks_total", "counter", "Connections that fell back to TCP, by side." },
	{ "smc_fallback_reasons_total", "counter", "Fallbacks to TCP by side and reason (CLC decline code name, or its hex value)." },
	{ "smc_bytes_total", "counter", "Payload bytes received (rx) and sent (tx) over SMC." },
	{ "smc_requests_total", "counter", "Receive (rx) and send (tx) calls on SMC sockets." },
	{ "smc_buffer_usage_bytes", "gauge", "Bytes of SMC receive (rx) and send (tx) buffers in use (kernel 6.12+)." },
	{ "smc_buffer_events_total", "counter", "Buffer events: full, full_peer, too_small, too_small_peer, alloc, reuse, downgrade." },
	{ "smc_buffer_sizes_total", "counter", "Buffers allocated or reused, by size (up_to_8kib, up_to_16kib: over 8 up to 16 KiB, ..., over_1024kib)." },
	{ "smc_request_sizes_total", "counter", "Send (tx) and receive (rx) requests by size, buckets as smc_buffer_sizes_total." },
	{ "smc_socket_calls_total", "counter", "Special socket calls on SMC sockets: cork, nodelay, sendpage, splice, urgent_data." },
	{ "smc_sockets", "gauge", "SMC sockets by mode: smcd, smcr, fallback (to TCP), listen, init (handshake not finished)." },
	{ "smc_fallback_sockets", "gauge", "Open sockets that fell back to TCP, by reason." },
	{ "smc_netns_up", "gauge", "1 when the last read of a network namespace's SMC statistics succeeded (netns=\"host\": smcd-agent's own), 0 when it failed and its series are left out." },
	{ "smc_netns_left_out", "gauge", "Named network namespaces (/run/netns) whose SMC statistics are not sampled: over stats.netns-max, or named host." },
	{ "smc_fallback_attributed_total", "counter", "Fallbacks to TCP seen by smcd-agent (smc:smc_switch_to_fallback), by reason and systemd unit (a container as runtime:name, else the cgroup): per reason the first 8 units, the others summed into unit=\"other\"." },
	{ "smc_fallback_attribution_available", "gauge", "1 when smcd-agent follows the kernel's fallbacks (BPF on smc:smc_switch_to_fallback); smcctl status says why not." },
	{ "smc_fallback_attribution_lost_total", "counter", "Fallbacks the attribution missed: its ring buffer was full." },
	{ "smc_fallback_attribution_unsignalled_total", "counter", "Fallbacks attributed but not announced by a FallbackAttributed signal (over the signals' rate limit); in the table all the same." },
	{ "smc_linkgroups", "gauge", "Link groups, by technology." },
	{ "smc_linkgroups_seen_total", "counter", "Link groups the agent has seen appear (including those there at its first look)." },
	{ "smc_linkgroups_removed_total", "counter", "Link groups the agent has seen disappear." },
	{ "smc_linkgroups_aggregated", "gauge", "Link groups without series of their own (over stats.linkgroup-series), summed into linkgroup=\"_other\"." },
	{ "smc_linkgroup_connections", "gauge", "Connections of a link group." },
	{ "smc_linkgroup_peak_connections", "gauge", "Most connections the agent has seen in a link group." },
	{ "smc_linkgroup_sndbuf_bytes", "gauge", "Send buffer bytes allocated in a link group (kernel 6.12+)." },
	{ "smc_linkgroup_rmb_bytes", "gauge", "Receive buffer (RMB; DMB for SMC-D) bytes allocated in a link group (kernel 6.12+)." },
	{ "smc_link_connections", "gauge", "Connections of an SMC-R link." },
	{ "smc_link_up", "gauge", "1 when an SMC-R link is ACTIVE." },
	{ "smc_device_linkgroups", "gauge", "Link groups on an SMC device." },
	{ "smc_device_connections", "gauge", "Connections over an SMC device." },
	{ "smc_device_linkgroups_seen_total", "counter", "Link groups the agent has seen appear on an SMC device." },
	{ "smc_agent_objects_stale", "gauge", "1 when the last read of the SMC devices and link groups failed: their series are those of the last good read." },
	{ "smc_agent_objects_timestamp_seconds", "gauge", "When the SMC devices and link groups were last read successfully (Unix time; 0: never)." },
	{ "smc_agent_info", "gauge", "Always 1: smcd-agent's version and the kernel release it runs on, as labels." },
	{ "smc_agent_state", "gauge", "1 for smcd-agent's current state (starting, running, degraded, unavailable, stopping), 0 for the others." },
	{ "smc_agent_drift_repairs_total", "counter", "Settings of smc.yaml the drift check found changed in the kernel and set again (drift.action: repair)." },
	{ "smc_agent_drifted_items", "gauge", "Settings that differ from smc.yaml now and are left alone (drift.action: report)." },
	{ "smc_loopback_state", "gauge", "1 for the state of smc_lo's loopback device (inactive, active, draining), 0 for the others; absent when smc_lo is not loaded." },
	{ "smc_assess_available", "gauge", "1 when smcd-agent's continuous assessment (assess.interval) observes TCP connections; smcctl assess --agent says why not." },
	{ "smc_assess_windows_total", "counter", "Assessment windows completed; the smc_assess_ gauges are of the last one." },
	{ "smc_assess_window_seconds", "gauge", "Length of the last assessment window." },
	{ "smc_assess_dropped_connections", "gauge", "Connections the last assessment window lost (its ring buffer was full)." },
	{ "smc_assess_connections", "gauge", "TCP connections of the last assessment window by class: well_suited, not_suited (short-lived or tiny), not_servable (SMC cannot reach the peer), failed (never established)." },
	{ "smc_assess_bytes", "gauge", "Bytes moved by the connections of the last assessment window, by class." },
	{ "smc_assess_reach_connections", "gauge", "TCP connections of the last assessment window by how SMC could carry them: smcd (peer on this host), smcr (over an RDMA interface), none." },
	{ "smc_assess_application_connections", "gauge", "Connection ends of the last assessment window by application (systemd unit, container as runtime:name, cgroup or command; the top assess.applications by bytes, the others summed into application=\"other\") and class." },
	{ "smc_assess_application_bytes", "gauge", "Bytes of the last assessment window by application and class." },
	{ "smc_auto_mode", "gauge", "1 for the autopilot's mode (smc.yaml auto.mode: observe, on), 0 for the other; absent when it is off." },
	{ "smc_auto_workloads", "gauge", "Workloads the autopilot follows, by state: undecided, tcp, trial, smc, rolled-back, frozen, admin (smcctl auto)." },
	{ "smc_auto_decisions_total", "counter", "Changes of a workload's state the autopilot made (in mode observe: would have made)." },
	{ "smc_auto_rollbacks_total", "counter", "Trials the autopilot rolled back because the workload got worse beyond the noise." },
	{ "smc_auto_buffer_bytes", "gauge", "SMC buffer memory the autopilot's workloads hold with the sizes it chose (sndbuf + rcvbuf times open connections)." },
	{ "smc_auto_budget_bytes", "gauge", "smc.yaml auto.budget: the memory the autopilot's SMC buffers may hold; 0 none." },
	{ "smc_assess_application_verdict", "gauge", "1 for an application's expected effect of SMC (likely-faster, likely-slower, no-change, mixed) in the last assessment window, 0 for the others." },
	{ "smc_kernel_epochs_total", "counter", "Times the kernel's SMC counters restarted (smc reloaded); the counters here continue across." },
	{ "smc_up", "gauge", "1 when the last sample of the kernel's SMC statistics succeeded." },
	{ "smc_stats_collection_duration_seconds", "gauge", "How long the last sample took." },
	{ "smc_stats_timestamp_seconds", "gauge", "When the last sample was taken (Unix time); its age shows a stopped agent." },
};
/* clang-format on */

/*
 * The text is appended to a buffer of our own, not printed through stdio: fprintf() was
 * three quarters of the cost of a write (callgrind: 577,000 of the 590,000 instructions of
 * collector_export() for an 18 KB file; bench/README.md, Scale), which made the agent's
 * tick 2.3x the raw dumps with one connection.
 */
struct out {
	char *buf;
	size_t len, cap;
	bool oom;
	const char *family;	  /* HELP/TYPE printed for this one */
	size_t next;		  /* where begin() looks first: families come in table order */
	struct prom_cache *cache; /* NULL: every family is rendered */
};

static void prom_put(struct out *o, const char *s, size_t n)
{
	if (o->oom)
		return;
	if (n >= o->cap - o->len) {
		size_t cap = o->cap * 2 > o->len + n + 1 ? o->cap * 2 : o->len + n + 1;
		char *b = realloc(o->buf, cap);

		if (!b) {
			o->oom = true;
			return;
		}
		o->buf = b;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static void put_str(struct out *o, const char *s)
{
	prom_put(o, s, strlen(s));
}

static void put_char(struct out *o, char c)
{
	prom_put(o, &c, 1);
}

static void put_u64(struct out *o, uint64_t v)
{
	char b[20];
	size_t i = sizeof(b);

	do
		b[--i] = (char)('0' + v % 10);
	while ((v /= 10));
	prom_put(o, b + i, sizeof(b) - i);
}

/* A value with a fixed number of decimals (timestamps, durations): a handful per file. */
static void put_fixed(struct out *o, double v, int decimals)
{
	char b[64];
	int n = snprintf(b, sizeof(b), "%.*f", decimals, v);

	if (n > 0)
		prom_put(o, b, (size_t)n < sizeof(b) ? (size_t)n : sizeof(b) - 1);
}

/*
 * "# HELP NAME HELP\n# TYPE NAME TYPE\n" of every family, made once from the table (a third
 * of the file; the agent renders on one thread).  NULL when out of memory: made each time.
 */
static const char *prom_header(size_t i, size_t *ret_len)
{
	static char *text;
	static size_t at[ELEMENTSOF(families) + 1];
	size_t len = 0;

	if (!text) {
		for (size_t k = 0; k < ELEMENTSOF(families); k++)
			len += 2 * strlen(families[k].name) + strlen(families[k].help) +
			       strlen(families[k].type) + sizeof("# HELP  \n# TYPE  \n") - 1;
		text = malloc(len + 1);
		if (!text)
			return NULL;
		len = 0;
		for (size_t k = 0; k < ELEMENTSOF(families); k++) {
			at[k] = len;
			len += (size_t)sprintf(text + len, "# HELP %s %s\n# TYPE %s %s\n",
					       families[k].name, families[k].help, families[k].name,
					       families[k].type);
		}
		at[ELEMENTSOF(families)] = len;
	}
	*ret_len = at[i + 1] - at[i];
	return text + at[i];
}

static void begin(struct out *o, const char *name)
{
	if (o->family && (o->family == name || streq(o->family, name)))
		return;
	for (size_t k = 0; k < ELEMENTSOF(families); k++) {
		size_t i = (o->next + k) % ELEMENTSOF(families), len;
		const char *h;

		if (!streq(families[i].name, name))
			continue;
		h = prom_header(i, &len);
		if (h)
			prom_put(o, h, len);
		else {
			put_str(o, "# HELP ");
			put_str(o, name);
			put_char(o, ' ');
			put_str(o, families[i].help);
			put_str(o, "\n# TYPE ");
			put_str(o, name);
			put_char(o, ' ');
			put_str(o, families[i].type);
			put_char(o, '\n');
		}
		o->family = families[i].name;
		o->next = i + 1;
		return;
	}
	abort(); /* a family missing from the table is a bug the golden test catches */
}

/* ---- reuse ------------------------------------------------------------------------------- */

/*
 * A family's text is a function of its key: every value and label it is rendered from, and
 * nothing else (the table's constant text aside).  memo_start() starts the key, key_*() add
 * to it, memo_hit() copies the text when the key is the one of the last file; otherwise the
 * family is rendered and memo_store() keeps it.  Without a cache (o->cache NULL) each is a
 * no-op and every family is rendered.
 *
 * Why a second way to the same text (issue 36 weighed removing it): it is what an interval
 * without traffic costs.  bench/README.md, run of 2026-12-06 (icount, 7x): the write 0.148 ms
 * with it, 0.250 ms with every family rendered (prom fresh), spread under 0.005 ms; callgrind
 * on the fake kernel 77,000 against 182,000 instructions.  Without it the tick at 1 connection
 * goes from 0.80 to about 0.90 ms (+13%) and tick/raw from 1.45 past issue 17's 1.5x.
 * test_prometheus_cache holds the two ways byte-equal through every kind of change.
 */
enum {
	SLOT_REASONS = 10, /* 0-9: the kernel_family() calls, in order */
	SLOT_SOCKETS,
};
_Static_assert(SLOT_SOCKETS < PROM_CACHE_SLOTS, "PROM_CACHE_SLOTS");

static bool memo_start(struct out *o)
{
	if (!o->cache)
		return false;
	o->cache->key_len = 0;
	return true;
}

static bool key_grow(struct out *o, size_t n)
{
	struct prom_cache *c = o->cache;
	size_t cap = c->key_cap * 2 > c->key_len + n ? c->key_cap * 2 : c->key_len + n + 256;
	char *k = realloc(c->key, cap);

	if (!k) {
		/* Nothing is reused then, nor kept. */
		o->cache = NULL;
		return false;
	}
	c->key = k;
	c->key_cap = cap;
	return true;
}

static inline void key_bytes(struct out *o, const void *p, size_t n)
{
	struct prom_cache *c = o->cache;

	if (!c || (n > c->key_cap - c->key_len && !key_grow(o, n)))
		return;
	memcpy(c->key + c->key_len, p, n);
	c->key_len += n;
}

static void key_u64(struct out *o, uint64_t v)
{
	key_bytes(o, &v, sizeof(v));
}

static void key_str(struct out *o, const char *s)
{
	key_bytes(o, s, strlen(s) + 1);
}

static bool memo_hit(struct out *o, size_t slot)
{
	struct prom_cache *c = o->cache;
	struct prom_memo *m;

	if (!c)
		return false;
	m = &c->slot[slot];
	/* memcmp() may not be given NULL even for no bytes: a render without views has no key. */
	if (!m->key || m->key_len != c->key_len ||
	    (c->key_len && memcmp(m->key, c->key, c->key_len) != 0)) {
		c->misses++;
		return false;
	}
	c->hits++;
	prom_put(o, m->text, m->text_len);
	if (m->family)
		o->family = m->family;
	return true;
}

/* The family was rendered from o->buf + start on: keep it with its key. */
static void memo_store(struct out *o, size_t slot, size_t start)
{
	struct prom_cache *c = o->cache;
	struct prom_memo *m;
	char *key, *text;

	if (!c || o->oom)
		return;
	m = &c->slot[slot];
	key = realloc(m->key, c->key_len ?: 1);
	if (key)
		m->key = key;
	text = realloc(m->text, o->len - start ?: 1);
	if (text)
		m->text = text;
	if (!key || !text) {
		/* Forgotten: rendered next time. */
		free(m->key);
		free(m->text);
		*m = (struct prom_memo){};
		return;
	}
	if (c->key_len)
		memcpy(m->key, c->key, c->key_len);
	m->key_len = c->key_len;
	if (o->len > start)
		memcpy(m->text, o->buf + start, o->len - start);
	m->text_len = o->len - start;
	m->family = o->len > start ? o->family : NULL;
}

void prom_cache_clear(struct prom_cache *c)
{
	for (size_t i = 0; i < PROM_CACHE_SLOTS; i++) {
		free(c->slot[i].key);
		free(c->slot[i].text);
	}
	free(c->key);
	*c = (struct prom_cache){};
}

/* A label value: backslash, double quote and newline escaped. */
static void put_value(struct out *o, const char *s)
{
	for (;;) {
		size_t n = strcspn(s, "\\\"\n");

		prom_put(o, s, n);
		s += n;
		if (!*s)
			return;
		put_str(o, *s == '\n' ? "\\n" : *s == '"' ? "\\\"" : "\\\\");
		s++;
	}
}

/* labels: NULL-terminated name, value pairs. */
static void prom_sample(struct out *o, const char *name, const char *const *labels, uint64_t v)
{
	begin(o, name);
	put_str(o, name);
	for (size_t i = 0; labels && labels[i]; i += 2) {
		put_char(o, i ? ',' : '{');
		put_str(o, labels[i]);
		put_str(o, "=\"");
		put_value(o, labels[i + 1]);
		put_char(o, '"');
	}
	if (labels && labels[0])
		put_char(o, '}');
	put_char(o, ' ');
	put_u64(o, v);
	put_char(o, '\n');
}

/* ------------------------------------------------------------------------------------- */

/*
 * One network namespace's numbers: the agent's own from the engine (its totals), another's
 * from its last read (the kernel's counters as they are).
 */
struct ns_view {
	const char *label;
	const struct stats_engine *e; /* the agent's own; NULL for another */
	const struct stats_sample *s; /* gauges and sockets (the engine's last sample) */
};

static void prom_netns_label(struct out *o, const char *label)
{
	put_str(o, "netns=\"");
	put_value(o, label);
	put_char(o, '"');
}

static uint64_t row_value(const struct stats_desc *t, size_t i, const struct ns_view *w,
			  bool *ret_valid)
{
	*ret_valid = true;
	if (t[i].kind == STATS_GAUGE || !w->e)
		return stats_desc_value(&t[i], &w->s->stats, &w->s->fback, ret_valid);
	return w->e->counters[i].total;
}

/* The families of the kernel's table, in the file's order (smc_fallback_reasons_total, which
 * is not a row, goes after the first three). */
static const char *const kernel_families[] = {
	"smc_handshakes_total",	   "smc_handshake_errors_total", "smc_fallbacks_total",
	"smc_bytes_total",	   "smc_requests_total",	 "smc_buffer_usage_bytes",
	"smc_buffer_events_total", "smc_buffer_sizes_total",	 "smc_request_sizes_total",
	"smc_socket_calls_total",
};
_Static_assert(ELEMENTSOF(kernel_families) == SLOT_REASONS, "one slot per kernel family");

/* The rows of each of kernel_families[] in table order, found once (the table is constant). */
static const uint16_t *family_rows(size_t f, size_t *ret_n)
{
	static uint16_t *rows; /* grouped by family */
	static size_t at[ELEMENTSOF(kernel_families) + 1];
	size_t n, len = 0;
	const struct stats_desc *t = stats_table(&n);

	if (!rows) {
		rows = calloc(n ?: 1, sizeof(*rows));
		if (!rows)
			return NULL;
		for (size_t k = 0; k < ELEMENTSOF(kernel_families); k++) {
			at[k] = len;
			for (size_t i = 0; i < n; i++)
				if (streq(t[i].metric, kernel_families[k]))
					rows[len++] = (uint16_t)i;
		}
		at[ELEMENTSOF(kernel_families)] = len;
	}
	*ret_n = at[f + 1] - at[f];
	return rows + at[f];
}

/* Rows of the kernel's table: their other labels are written in the table already. */
static void kernel_family(struct out *o, const struct ns_view *views, size_t n_views, size_t f)
{
	const char *family = kernel_families[f];
	size_t n, start = o->len;
	const struct stats_desc *t = stats_table(&n);
	const uint16_t *rows = family_rows(f, &n);

	if (!rows) {
		o->oom = true;
		return;
	}
	if (memo_start(o)) {
		for (size_t j = 0; j < n_views; j++) {
			key_str(o, views[j].label);
			for (size_t r = 0; r < n; r++) {
				bool valid;
				uint64_t v = row_value(t, rows[r], &views[j], &valid);

				key_u64(o, valid ? v : UINT64_MAX);
				key_bytes(o, &valid, sizeof(valid));
			}
		}
		if (memo_hit(o, f))
			return;
	}
	for (size_t j = 0; j < n_views; j++)
		for (size_t r = 0; r < n; r++) {
			const struct ns_view *w = &views[j];
			size_t i = rows[r];
			bool valid;
			uint64_t v = row_value(t, i, w, &valid);

			if (!valid)
				continue;
			begin(o, family);
			put_str(o, family);
			put_char(o, '{');
			prom_netns_label(o, w->label);
			put_char(o, ',');
			put_str(o, t[i].labels);
			put_str(o, "} ");
			put_u64(o, v);
			put_char(o, '\n');
		}
	memo_store(o, f, start);
}

static const char *reason_name(uint32_t code, char buf[16])
{
	const char *s = smc_decline_name(code);

	if (s)
		return s;
	snprintf(buf, 16, "0x%08" PRIx32, code);
	return buf;
}

static int prom_cmp_reason(const void *a, const void *b)
{
	const struct stats_reason *x = a, *y = b;

	if (x->server != y->server)
		return x->server ? 1 : -1;
	return x->code < y->code ? -1 : x->code > y->code;
}

/* The agent's own: its totals (u16 wraps added up); another's: the kernel's u16 counts. */
static void prom_reasons(struct out *o, const struct ns_view *views, size_t n_views)
{
	size_t start = o->len;

	if (memo_start(o)) {
		for (size_t j = 0; j < n_views; j++) {
			const struct ns_view *w = &views[j];
			size_t n = w->e ? w->e->n_reasons : w->s->fback.n;

			key_str(o, w->label);
			key_u64(o, n);
			for (size_t i = 0; i < n; i++) {
				bool server = w->e ? w->e->reasons[i].server
						   : w->s->fback.entries[i].server;

				key_u64(o,
					w->e ? w->e->reasons[i].code : w->s->fback.entries[i].code);
				key_u64(o, w->e ? w->e->reasons[i].c.total
						: w->s->fback.entries[i].count);
				key_bytes(o, &server, sizeof(server));
			}
		}
		if (memo_hit(o, SLOT_REASONS))
			return;
	}
	for (size_t j = 0; j < n_views; j++) {
		const struct ns_view *w = &views[j];
		size_t n = w->e ? w->e->n_reasons : w->s->fback.n;
		_cleanup_(freep) struct stats_reason *v = calloc(n + 1, sizeof(*v));
		char buf[16];

		if (!v) {
			o->oom = true;
			return;
		}
		for (size_t i = 0; i < n; i++)
			v[i] = w->e ? w->e->reasons[i]
				    : (struct stats_reason){ .server = w->s->fback.entries[i].server,
							     .code = w->s->fback.entries[i].code,
							     .c.total = w->s->fback.entries[i].count };
		qsort(v, n, sizeof(*v), prom_cmp_reason);
		for (size_t i = 0; i < n; i++)
			prom_sample(o, "smc_fallback_reasons_total",
				    (const char *const[]){ "netns", w->label, "side",
							   v[i].server ? "server" : "client", "reason",
							   reason_name(v[i].code, buf), NULL },
				    v[i].c.total);
	}
	memo_store(o, SLOT_REASONS, start);
}

static void prom_sockets(struct out *o, const struct ns_view *views, size_t n_views)
{
	size_t start = o->len;
	char buf[16];

	if (memo_start(o)) {
		for (size_t j = 0; j < n_views; j++) {
			const struct stats_sample *s = views[j].s;

			key_str(o, views[j].label);
			key_bytes(o, &s->has_sockets, sizeof(s->has_sockets));
			key_bytes(o, s->sockets, sizeof(s->sockets));
			key_u64(o, s->n_fallback_sockets);
			for (size_t i = 0; i < s->n_fallback_sockets; i++) {
				key_u64(o, s->fallback_sockets[i].code);
				key_u64(o, s->fallback_sockets[i].count);
			}
		}
		if (memo_hit(o, SLOT_SOCKETS))
			return;
	}

	for (size_t j = 0; j < n_views; j++) {
		const struct stats_sample *s = views[j].s;

		for (size_t i = 0; s->has_sockets && i < _STATS_SOCK_MAX; i++)
			prom_sample(o, "smc_sockets",
				    (const char *const[]){ "netns", views[j].label, "mode",
							   stats_sock_name(i), NULL },
				    s->sockets[i]);
	}
	for (size_t j = 0; j < n_views; j++) {
		const struct stats_sample *s = views[j].s;

		for (size_t i = 0; s->has_sockets && i < s->n_fallback_sockets; i++)
			prom_sample(o, "smc_fallback_sockets",
				    (const char *const[]){
					    "netns", views[j].label, "reason",
					    reason_name(s->fallback_sockets[i].code, buf), NULL },
				    s->fallback_sockets[i].count);
	}
	memo_store(o, SLOT_SOCKETS, start);
}

/* Which namespaces were read: every one sampled, 1 or 0, and those left out. */
static void netns_meta(struct out *o, const struct stats_engine *e, const struct netns_set *ns)
{
	prom_sample(o, "smc_netns_up", (const char *const[]){ "netns", NETNS_HOST_LABEL, NULL },
		    e->available);
	for (size_t i = 0; ns && i < ns->n; i++)
		prom_sample(o, "smc_netns_up",
			    (const char *const[]){ "netns", ns->v[i].id.name, NULL },
			    ns->v[i].error == 0);
	if (ns)
		prom_sample(o, "smc_netns_left_out", NULL, ns->left_out);
}

/* ---- link groups ------------------------------------------------------------------------- */

static const char *const techs[] = { "smcd", "smcr" };

static uint64_t agent_total(const struct stats_engine *e, enum stats_agent_counter c)
{
	return e->agent[c].total;
}

static bool exported(const struct stats_engine *e, const struct obj_linkgroup *l)
{
	const struct stats_lgr *t = stats_engine_lgr(e, l->technology, l->id);

	return t && t->exported;
}

static void lgr_counts(struct out *o, const struct stats_engine *e,
		       const struct obj_linkgroup *lgrs, size_t n)
{
	for (size_t t = 0; t < 2; t++) {
		uint64_t cur = 0;

		for (size_t i = 0; i < n; i++)
			cur += streq(lgrs[i].technology, techs[t]);
		prom_sample(o, "smc_linkgroups",
			    (const char *const[]){ "technology", techs[t], NULL }, cur);
	}
	for (size_t t = 0; t < 2; t++)
		prom_sample(o, "smc_linkgroups_seen_total",
			    (const char *const[]){ "technology", techs[t], NULL },
			    agent_total(e, t ? STATS_LGR_SEEN_SMCR : STATS_LGR_SEEN_SMCD));
	for (size_t t = 0; t < 2; t++)
		prom_sample(o, "smc_linkgroups_removed_total",
			    (const char *const[]){ "technology", techs[t], NULL },
			    agent_total(e, t ? STATS_LGR_REMOVED_SMCR : STATS_LGR_REMOVED_SMCD));
	for (size_t t = 0; t < 2; t++) {
		uint64_t agg = 0;

		for (size_t i = 0; i < n; i++)
			agg += streq(lgrs[i].technology, techs[t]) && !exported(e, &lgrs[i]);
		prom_sample(o, "smc_linkgroups_aggregated",
			    (const char *const[]){ "technology", techs[t], NULL }, agg);
	}
}

struct lgr_values {
	uint64_t conns, peak, sndbuf, rmb;
};

static void lgr_family(struct out *o, const struct stats_engine *e,
		       const struct obj_linkgroup *lgrs, size_t n, const char *family, size_t field)
{
	for (size_t i = 0; i < n; i++) {
		const struct obj_linkgroup *l = &lgrs[i];
		struct lgr_values v = { l->conns, l->peak_conns, l->sndbuf_alloc, l->buf_alloc };
		char id[16];

		if (!exported(e, l))
			continue;
		snprintf(id, sizeof(id), "%08" PRIx32, l->id);
		prom_sample(o, family,
			    (const char *const[]){ "technology", l->technology, "linkgroup", id,
						   "device", l->device, "pnetid", l->pnetid, "role",
						   l->role, NULL },
			    *(const uint64_t *)((const char *)&v + field));
	}
	if (field == offsetof(struct lgr_values, peak))
		return; /* a peak of a sum means nothing */
	for (size_t t = 0; t < 2; t++) {
		uint64_t sum = 0;
		bool any = false;

		for (size_t i = 0; i < n; i++) {
			struct lgr_values v = { lgrs[i].conns, 0, lgrs[i].sndbuf_alloc,
						lgrs[i].buf_alloc };

			if (!streq(lgrs[i].technology, techs[t]) || exported(e, &lgrs[i]))
				continue;
			sum = u64_add_sat(sum, *(const uint64_t *)((const char *)&v + field));
			any = true;
		}
		if (any)
			prom_sample(o, family,
				    (const char *const[]){ "technology", techs[t], "linkgroup",
							   "_other", "device", "", "pnetid", "",
							   "role", "", NULL },
				    sum);
	}
}

static void link_family(struct out *o, const struct stats_engine *e,
			const struct obj_linkgroup *lgrs, size_t n, bool up)
{
	for (size_t i = 0; i < n; i++) {
		char id[16], link[8];

		if (!exported(e, &lgrs[i]))
			continue;
		snprintf(id, sizeof(id), "%08" PRIx32, lgrs[i].id);
		for (size_t k = 0; k < lgrs[i].n_links; k++) {
			snprintf(link, sizeof(link), "%u", lgrs[i].links[k].id);
			prom_sample(o, up ? "smc_link_up" : "smc_link_connections",
				    (const char *const[]){ "technology", lgrs[i].technology,
							   "linkgroup", id, "link", link, "device",
							   lgrs[i].links[k].ib_dev, "netdev",
							   lgrs[i].links[k].netdev, NULL },
				    up ? streq(lgrs[i].links[k].state, "ACTIVE")
				       : lgrs[i].links[k].conns);
		}
	}
}

static void linkgroups(struct out *o, const struct stats_engine *e,
		       const struct obj_linkgroup *lgrs, size_t n)
{
	lgr_counts(o, e, lgrs, n);
	lgr_family(o, e, lgrs, n, "smc_linkgroup_connections", offsetof(struct lgr_values, conns));
	lgr_family(o, e, lgrs, n, "smc_linkgroup_peak_connections",
		   offsetof(struct lgr_values, peak));
	lgr_family(o, e, lgrs, n, "smc_linkgroup_sndbuf_bytes", offsetof(struct lgr_values, sndbuf));
	lgr_family(o, e, lgrs, n, "smc_linkgroup_rmb_bytes", offsetof(struct lgr_values, rmb));
	link_family(o, e, lgrs, n, false);
	link_family(o, e, lgrs, n, true);
}

/* ---- devices ----------------------------------------------------------------------------- */

/* SMC-D counts come from the kernel (by GID); SMC-R ones from the link groups' first link. */
static void device_counts(const struct obj_device *d, const struct obj_linkgroup *lgrs, size_t n,
			  uint64_t *ret_lgrs, uint64_t *ret_conns)
{
	*ret_lgrs = d->linkgroups;
	*ret_conns = d->conns;
	if (streq(d->technology, "smcd"))
		return;
	*ret_lgrs = *ret_conns = 0;
	for (size_t i = 0; i < n; i++)
		if (streq(lgrs[i].technology, "smcr") && streq(lgrs[i].device, d->name)) {
			(*ret_lgrs)++;
			*ret_conns += lgrs[i].conns;
		}
}

static void devices(struct out *o, const struct obj_device *devs, size_t n_devs,
		    const struct obj_linkgroup *lgrs, size_t n_lgrs)
{
	static const char *const names[] = { "smc_device_linkgroups", "smc_device_connections",
					     "smc_device_linkgroups_seen_total" };

	for (size_t f = 0; f < ELEMENTSOF(names); f++)
		for (size_t i = 0; i < n_devs; i++) {
			uint64_t v[3];

			device_counts(&devs[i], lgrs, n_lgrs, &v[0], &v[1]);
			v[2] = devs[i].linkgroups_seen;
			prom_sample(o, names[f],
				    (const char *const[]){ "technology", devs[i].technology,
							   "device", devs[i].name, "pnetid",
							   devs[i].pnetid, NULL },
				    v[f]);
		}
}

/* ---- the file ---------------------------------------------------------------------------- */

/* A failed read keeps the last objects (no false removal): say so, and how old they are. */
static void objects_meta(struct out *o, const struct objects *obj)
{
	prom_sample(o, "smc_agent_objects_stale", NULL, objects_stale(obj));
	begin(o, "smc_agent_objects_timestamp_seconds");
	put_str(o, "smc_agent_objects_timestamp_seconds ");
	put_fixed(o, (double)obj->read_real_usec / 1e6, 3);
	put_char(o, '\n');
}

/*
 * The agent's state.  States as a set of 0/1 series (the "StateSet" of OpenMetrics): an
 * alert matches state="degraded" == 1 and sees the change as a value, not as a series that
 * disappears.  The state names are fixed, so the label is bounded.
 */
static void agent_meta(struct out *o, const struct prom_agent *a)
{
	static const char *const states[] = { "starting", "running", "degraded", "unavailable",
					      "stopping" };
	static const char *const lo_states[] = { "inactive", "active", "draining" };

	prom_sample(o, "smc_agent_info",
		    (const char *const[]){ "version", a->version ?: "", "kernel", a->kernel ?: "",
					   NULL },
		    1);
	for (size_t i = 0; i < ELEMENTSOF(states); i++)
		prom_sample(o, "smc_agent_state", (const char *const[]){ "state", states[i], NULL },
			    streq_ptr(a->state, states[i]));
	prom_sample(o, "smc_agent_drift_repairs_total", NULL, a->drift_repairs);
	prom_sample(o, "smc_agent_drifted_items", NULL, a->drifted);
	if (!a->loopback)
		return;
	for (size_t i = 0; i < ELEMENTSOF(lo_states); i++)
		prom_sample(
			o, "smc_loopback_state",
			(const char *const[]){ "device", a->loopback, "state", lo_states[i], NULL },
			streq_ptr(a->loopback_state, lo_states[i]));
}

/*
 * The continuous assessment.  Gauges of the last window, not counters: a window replaces
 * the one before (rate() of a window's connections means nothing).  The class, reach and
 * verdict names are fixed; applications are bounded by assess.applications plus "other".
 */
static void assessment(struct out *o, const struct prom_agent *a)
{
	const struct assess_gauges *g = a->assess;

	if (!a->assess_enabled)
		return;
	prom_sample(o, "smc_assess_available", NULL, a->assess_available);
	prom_sample(o, "smc_assess_windows_total", NULL, a->assess_windows);
	if (!g)
		return;
	begin(o, "smc_assess_window_seconds");
	put_str(o, "smc_assess_window_seconds ");
	put_fixed(o, a->assess_seconds, 3);
	put_char(o, '\n');
	prom_sample(o, "smc_assess_dropped_connections", NULL, a->assess_dropped);
	for (unsigned k = 0; k < _ASSESS_CLASS_MAX; k++)
		prom_sample(o, "smc_assess_connections",
			    (const char *const[]){ "class", assess_class_name(k), NULL },
			    g->conns[k]);
	for (unsigned k = 0; k < _ASSESS_CLASS_MAX; k++)
		prom_sample(o, "smc_assess_bytes",
			    (const char *const[]){ "class", assess_class_name(k), NULL },
			    g->bytes[k]);
	for (unsigned k = 0; k < _ASSESS_REACH_MAX; k++)
		prom_sample(o, "smc_assess_reach_connections",
			    (const char *const[]){ "reach", assess_reach_name(k), NULL },
			    g->reach[k]);
	for (size_t j = 0; j < g->n_apps; j++)
		for (unsigned k = 0; k < _ASSESS_CLASS_MAX; k++)
			prom_sample(o, "smc_assess_application_connections",
				    (const char *const[]){ "application", g->apps[j].name, "class",
							   assess_class_name(k), NULL },
				    g->apps[j].conns[k]);
	for (size_t j = 0; j < g->n_apps; j++)
		for (unsigned k = 0; k < _ASSESS_CLASS_MAX; k++)
			prom_sample(o, "smc_assess_application_bytes",
				    (const char *const[]){ "application", g->apps[j].name, "class",
							   assess_class_name(k), NULL },
				    g->apps[j].bytes[k]);
	for (size_t j = 0; j < g->n_apps; j++)
		for (size_t v = 0; g->apps[j].verdict && v < assess_n_verdicts; v++)
			prom_sample(o, "smc_assess_application_verdict",
				    (const char *const[]){ "application", g->apps[j].name, "verdict",
							   assess_verdict_names[v], NULL },
				    streq(g->apps[j].verdict, assess_verdict_names[v]));
}

/* smc_stats_timestamp_seconds last: a reader checks that a file is whole by its last line
 * (tests/tools/prom-reader.c). */
/* The autopilot: states by their fixed names, so the label values are bounded. */
static void autopilot_families(struct out *o, const struct prom_agent *a)
{
	static const char *const modes[] = { "observe", "on" };

	if (!a->auto_mode)
		return;
	for (size_t i = 0; i < ELEMENTSOF(modes); i++)
		prom_sample(o, "smc_auto_mode", (const char *const[]){ "mode", modes[i], NULL },
			    streq(a->auto_mode, modes[i]));
	for (size_t s = 0; s < AUTO_STATES_N; s++)
		prom_sample(
			o, "smc_auto_workloads",
			(const char *const[]){ "state", auto_state_name((enum auto_state)s), NULL },
			a->auto_states[s]);
	prom_sample(o, "smc_auto_decisions_total", NULL, a->auto_decisions);
	prom_sample(o, "smc_auto_rollbacks_total", NULL, a->auto_rollbacks);
	prom_sample(o, "smc_auto_buffer_bytes", NULL, a->auto_buffer_bytes);
	prom_sample(o, "smc_auto_budget_bytes", NULL, a->auto_budget_bytes);
}

static void meta(struct out *o, const struct stats_engine *e, const struct objects *obj)
{
	objects_meta(o, obj);
	prom_sample(o, "smc_kernel_epochs_total", NULL, agent_total(e, STATS_KERNEL_EPOCHS));
	prom_sample(o, "smc_up", NULL, e->available);
	begin(o, "smc_stats_collection_duration_seconds");
	put_str(o, "smc_stats_collection_duration_seconds ");
	put_fixed(o, (double)e->last.duration_usec / 1e6, 6);
	put_char(o, '\n');
	begin(o, "smc_stats_timestamp_seconds");
	put_str(o, "smc_stats_timestamp_seconds ");
	put_fixed(o, (double)e->sample_real_usec / 1e6, 3);
	put_char(o, '\n');
}

/* The HELP text above, smcd-agent(8), smcctl(8) and the README say 8 and 64. */
_Static_assert(FBATTR_TOP_UNITS == 8 && FBATTR_MAX_REASONS == 64, "update the texts");

static void prom_attribution(struct out *o, const struct prom_fallback *fb)
{
	const struct fbattr *a = fb->table;
	char buf[16];

	prom_sample(o, "smc_fallback_attribution_available", NULL, fb->available);
	if (!fb->available && (!a || !a->events))
		return;
	for (size_t i = 0; a && i < a->n_reasons; i++) {
		const struct fbattr_reason *r = &a->reasons[i];
		const char *reason = reason_name(r->code, buf);

		for (size_t u = 0; u < r->n_units; u++)
			prom_sample(o, "smc_fallback_attributed_total",
				    (const char *const[]){ "reason", reason, "unit",
							   r->units[u].unit, NULL },
				    r->units[u].count);
		if (r->other)
			prom_sample(o, "smc_fallback_attributed_total",
				    (const char *const[]){ "reason", reason, "unit", FBATTR_OTHER,
							   NULL },
				    r->other);
	}
	if (a && a->other_reasons)
		prom_sample(
			o, "smc_fallback_attributed_total",
			(const char *const[]){ "reason", FBATTR_OTHER, "unit", FBATTR_OTHER, NULL },
			a->other_reasons);
	prom_sample(o, "smc_fallback_attribution_lost_total", NULL, fb->lost);
	prom_sample(o, "smc_fallback_attribution_unsignalled_total", NULL, fb->unsignalled);
}

char *prometheus_render(const struct stats_engine *e, const struct objects *obj)
{
	return prometheus_render_fallback(e, obj, NULL);
}

char *prometheus_render_fallback(const struct stats_engine *e, const struct objects *obj,
				 const struct prom_fallback *fb)
{
	return prometheus_render_agent(e, obj, fb, NULL);
}

char *prometheus_render_agent(const struct stats_engine *e, const struct objects *obj,
			      const struct prom_fallback *fb, const struct prom_agent *a)
{
	const struct netns_set *ns = a ? a->netns : NULL;
	_cleanup_(freep) struct ns_view *views = calloc(1 + (ns ? ns->n : 0), sizeof(*views));
	size_t n_views = 0;
	/* The file of one namespace is about 16 KB: one allocation in most cases. */
	struct out o = { .cap = 32768 };

	if (!views)
		return NULL;
	if (e->available)
		views[n_views++] = (struct ns_view){ NETNS_HOST_LABEL, e, &e->last };
	for (size_t i = 0; ns && i < ns->n; i++)
		if (ns->v[i].error == 0)
			views[n_views++] =
				(struct ns_view){ ns->v[i].id.name, NULL, &ns->v[i].sample };
	o.buf = malloc(o.cap);
	if (!o.buf)
		return NULL;
	if (a && a->cache)
		o.cache = a->cache;
	for (size_t f = 0; f < ELEMENTSOF(kernel_families); f++) {
		kernel_family(&o, views, n_views, f);
		if (f == 2)
			prom_reasons(&o, views, n_views);
	}
	prom_sockets(&o, views, n_views);
	netns_meta(&o, e, ns);
	if (fb)
		prom_attribution(&o, fb);
	linkgroups(&o, e, obj->linkgroups, obj->n_linkgroups);
	devices(&o, obj->devices, obj->n_devices, obj->linkgroups, obj->n_linkgroups);
	if (a) {
		agent_meta(&o, a);
		assessment(&o, a);
		autopilot_families(&o, a);
	}
	meta(&o, e, obj);
	put_char(&o, '\0');
	if (o.oom) {
		free(o.buf);
		return NULL;
	}
	return o.buf;
}

/* ------------------------------------------------------------------------------------- */
/* Atomic replacement                                                                     */

int textfile_remove_stale(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[4096], prefix[512];
	struct dirent *de;
	int n = 0, pfd, dfd;
	DIR *d;

	if (!slash || (size_t)(slash - path) >= sizeof(dir) - 1 ||
	    (size_t)snprintf(prefix, sizeof(prefix), ".%s.", slash + 1) >= sizeof(prefix))
		return 0;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash == path ? 1 : slash - path), path);
	/* Only in a directory the writes would trust (textfile_dir_open()); they say why not. */
	pfd = textfile_dir_open(dir);
	if (pfd < 0)
		return 0;
	dfd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(pfd);
	if (dfd < 0)
		return 0;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return 0;
	}
	while ((de = readdir(d))) {
		/* The temporary's six characters, nothing else: never someone else's file. */
		if (strncmp(de->d_name, prefix, strlen(prefix)) != 0 ||
		    strlen(de->d_name) != strlen(prefix) + 6)
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0)
			n++;
	}
	closedir(d);
	return n;
}
