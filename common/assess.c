// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The rules of `smcctl assess` (see assess.h), pure: records in, classes, shares, verdicts
 * and an smc.yaml fragment out.
 *
 * Why these rules (the numbers are in assess_thresholds_default() and smcctl(8)): SMC-D
 * loopback made long-lived same-host traffic faster in every published measurement (+35 %
 * to +86 %: request/response with redis and nginx over kept-alive connections, bulk with
 * sockperf, small messages with an IPC benchmark), while each connection pays once for
 * the CLC handshake over its TCP connection (one extra round trip and more) and for
 * setting up its buffers.  So what decides is the connection's life and traffic, not the
 * size of single messages: a connection that closes within short_ns, or one that moves
 * fewer than tiny_bytes in fewer than tiny_sends sends, spends a large share of its life in
 * that setup, and is "not suited".  Buffers that are small against the messages make SMC
 * slower (its sends then wait for the peer to drain a full buffer): the fragment sizes
 * net.smc.wmem/rmem from the observed sends.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/assess.h"
#include "common/macro.h"
#include "common/output.h"
#include "common/owner.h"

#define MS ((uint64_t)1000000)

static const char *const reach_names[] = {
	[ASSESS_REACH_SMCD] = "smcd",
	[ASSESS_REACH_SMCR] = "smcr",
	[ASSESS_REACH_NONE] = "none",
};
static const char *const class_names[] = {
	[ASSESS_WELL_SUITED] = "well-suited",
	[ASSESS_NOT_SUITED] = "not-suited",
	[ASSESS_NOT_SERVABLE] = "not-servable",
	[ASSESS_FAILED] = "failed",
};

const char *assess_reach_name(enum assess_reach r)
{
	return r < _ASSESS_REACH_MAX ? reach_names[r] : NULL;
}

const char *assess_class_name(enum assess_class c)
{
	return c < _ASSESS_CLASS_MAX ? class_names[c] : NULL;
}

unsigned assess_bucket(uint64_t len)
{
	uint64_t v;
	unsigned b = 0;

	if (len == 0)
		return 0;
	v = (len - 1) >> 13;
	while (v && b < ASSESS_BUCKETS - 1) {
		v >>= 1;
		b++;
	}
	return b;
}

uint64_t assess_bucket_size(unsigned bucket)
{
	return (8192ULL << (bucket < ASSESS_BUCKETS ? bucket : ASSESS_BUCKETS - 1));
}

void assess_thresholds_default(struct assess_thresholds *t)
{
	*t = (struct assess_thresholds){
		.short_ns = 100 * MS,
		.tiny_bytes = 64 * 1024,
		.tiny_sends = 16,
		.major_pct = 50,
	};
}

/* snprintf() where cutting a long reason short is fine (vsnprintf: no truncation warning). */
static void why_printf(char *buf, size_t len, const char *fmt, ...) _printf_(3, 4);
static void why_printf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static const char *addr_text(int family, const struct in6_addr *a, char *buf, size_t len)
{
	if (!inet_ntop(family == AF_INET6 ? AF_INET6 : AF_INET, a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

static uint64_t conn_bytes(const struct assess_conn *c)
{
	return c->bytes_sent + c->bytes_received;
}

/* ---- one connection ---------------------------------------------------------------- */

static void set_reach(struct assess_conn *c)
{
	char peer[INET6_ADDRSTRLEN];

	addr_text(c->family, &c->raddr, peer, sizeof(peer));
	if (c->peer_local) {
		c->reach = ASSESS_REACH_SMCD;
		if (c->peer_netns[0])
			why_printf(c->why, sizeof(c->why), "peer %s is on this host (netns %s)",
				   peer, c->peer_netns);
		else
			why_printf(c->why, sizeof(c->why), "peer %s is on this host", peer);
	} else if (c->egress_rdma) {
		c->reach = ASSESS_REACH_SMCR;
		why_printf(c->why, sizeof(c->why),
			   "peer %s is reached through %s, which has an RDMA device", peer,
			   c->egress);
	} else {
		c->reach = ASSESS_REACH_NONE;
		if (c->egress[0])
			why_printf(c->why, sizeof(c->why),
				   "peer %s is not on this host and %s has no RDMA device", peer,
				   c->egress);
		else
			why_printf(c->why, sizeof(c->why),
				   "peer %s is not on this host and no route to it was found", peer);
	}
}

void assess_classify(struct assess_conn *c, const struct assess_thresholds *t)
{
	char reach[ASSESS_WHY_LEN];
	uint64_t bytes = conn_bytes(c);

	set_reach(c);
	if (c->reach == ASSESS_REACH_NONE) {
		c->cls = ASSESS_NOT_SERVABLE;
		return;
	}
	why_printf(reach, sizeof(reach), "%s", c->why);
	if (!c->established) {
		c->cls = ASSESS_FAILED;
		why_printf(c->why, sizeof(c->why), "never established (%s)", reach);
		return;
	}
	if (!c->open && c->lifetime_ns < t->short_ns) {
		c->cls = ASSESS_NOT_SUITED;
		why_printf(c->why, sizeof(c->why),
			   "short-lived: %.1f ms, less than the %" PRIu64
			   " ms that pay for SMC's handshake and buffers",
			   c->lifetime_ns / 1e6, t->short_ns / MS);
		return;
	}
	if (bytes < t->tiny_bytes && c->sends < t->tiny_sends) {
		c->cls = ASSESS_NOT_SUITED;
		why_printf(c->why, sizeof(c->why),
			   "tiny: %" PRIu64 " bytes in %" PRIu64 " sends (less than %" PRIu64
			   " KiB and %" PRIu64 " sends)",
			   bytes, c->sends, t->tiny_bytes / 1024, t->tiny_sends);
		return;
	}
	c->cls = ASSESS_WELL_SUITED;
	why_printf(c->why, sizeof(c->why), "%s, %s%.1f s, %" PRIu64 " bytes in %" PRIu64 " sends",
		   reach, c->open ? "open for at least " : "lived ", c->lifetime_ns / 1e9, bytes,
		   c->sends);
}

/* ---- both ends of a connection ------------------------------------------------------ */

struct end_key {
	int family;
	uint64_t netns_lo; /* not compared: ends in two netns pair too */
	uint8_t a[16], b[16];
	uint16_t pa, pb;
	size_t idx;
	bool passive;
};

static int end_cmp(const void *x, const void *y)
{
	const struct end_key *p = x, *q = y;
	int r;

	if (p->family != q->family)
		return p->family < q->family ? -1 : 1;
	if ((r = memcmp(p->a, q->a, 16)) || (r = memcmp(p->b, q->b, 16)))
		return r;
	if (p->pa != q->pa)
		return p->pa < q->pa ? -1 : 1;
	if (p->pb != q->pb)
		return p->pb < q->pb ? -1 : 1;
	return p->passive - q->passive;
}

/* The connection's tuple in a canonical order: (smaller end, larger end). */
static void end_key_of(const struct assess_conn *c, size_t i, struct end_key *k)
{
	int r = memcmp(&c->laddr, &c->raddr, 16);
	bool swap = r > 0 || (r == 0 && c->lport > c->rport);

	*k = (struct end_key){ .family = c->family, .idx = i, .passive = c->passive };
	memcpy(k->a, swap ? &c->raddr : &c->laddr, 16);
	memcpy(k->b, swap ? &c->laddr : &c->raddr, 16);
	k->pa = swap ? c->rport : c->lport;
	k->pb = swap ? c->lport : c->rport;
}

static void pair_ends(struct assess_conn *v, size_t n)
{
	struct end_key *k;

	for (size_t i = 0; i < n; i++)
		v[i].pair = -1;
	if (n < 2 || !(k = calloc(n, sizeof(*k))))
		return; /* without memory for the sort, ends stay unpaired: counted twice */
	for (size_t i = 0; i < n; i++)
		end_key_of(&v[i], i, &k[i]);
	qsort(k, n, sizeof(*k), end_cmp);
	for (size_t i = 0; i + 1 < n; i++) {
		struct end_key *p = &k[i], *q = &k[i + 1];

		if (p->family != q->family || memcmp(p->a, q->a, 16) || memcmp(p->b, q->b, 16) ||
		    p->pa != q->pa || p->pb != q->pb || p->passive == q->passive)
			continue;
		/* the same tuple twice, one active, one passive end: the two ends of one */
		v[p->idx].pair = (int)q->idx;
		v[q->idx].pair = (int)p->idx;
		i++;
	}
	free(k);
}

void assess_classify_all(struct assess_conn *v, size_t n, const struct assess_thresholds *t)
{
	pair_ends(v, n);
	for (size_t i = 0; i < n; i++) {
		struct assess_conn *c = &v[i];

		/* Both ends seen: the peer is on this host whatever the address tables said. */
		if (c->pair >= 0)
			c->peer_local = true;
	}
	for (size_t i = 0; i < n; i++) {
		struct assess_conn *c = &v[i];
		uint64_t own = c->sends;

		/* A sink's end sends nothing: the connection's sends are both ends'. */
		if (c->pair >= 0)
			c->sends += v[c->pair].sends;
		assess_classify(c, t);
		c->sends = own;
	}
	/* Both ends of one connection in one class: the active end's (it saw the SYN). */
	for (size_t i = 0; i < n; i++) {
		struct assess_conn *c = &v[i];

		if (c->pair >= 0 && c->passive) {
			c->cls = v[c->pair].cls;
			c->reach = v[c->pair].reach;
			memcpy(c->why, v[c->pair].why, sizeof(c->why));
		}
	}
}

/* ---- aggregation --------------------------------------------------------------------- */

struct tally {
	uint64_t conns[_ASSESS_CLASS_MAX], bytes[_ASSESS_CLASS_MAX];
	uint64_t reach[_ASSESS_REACH_MAX];
	uint64_t n, total_bytes;
	uint64_t hist[ASSESS_BUCKETS];
	uint64_t short_n, tiny_n, closed_n;
	uint64_t lifetime_sum_ns; /* of the well-suited */
};

static void tally_add(struct tally *t, const struct assess_conn *c, const struct assess_thresholds *th)
{
	uint64_t b = conn_bytes(c);

	t->n++;
	t->total_bytes += b;
	t->conns[c->cls]++;
	t->bytes[c->cls] += b;
	t->reach[c->reach]++;
	for (unsigned i = 0; i < ASSESS_BUCKETS; i++)
		t->hist[i] += c->hist[i];
	if (c->cls == ASSESS_NOT_SUITED) {
		if (!c->open && c->lifetime_ns < th->short_ns)
			t->short_n++;
		else
			t->tiny_n++;
	}
	if (c->cls == ASSESS_WELL_SUITED)
		t->lifetime_sum_ns += c->lifetime_ns;
}

static unsigned pct(uint64_t part, uint64_t whole)
{
	return whole ? (unsigned)((part * 100 + whole / 2) / whole) : 0;
}

static json_object *hist_json(const uint64_t hist[ASSESS_BUCKETS])
{
	json_object *a = json_object_new_array();

	for (unsigned i = 0; a && i < ASSESS_BUCKETS; i++)
		json_object_array_add(a, json_object_new_uint64(hist[i]));
	return a;
}

static json_object *classes_json(const struct tally *t)
{
	json_object *o = json_object_new_object();

	for (unsigned k = 0; o && k < _ASSESS_CLASS_MAX; k++) {
		json_object *c = json_object_new_object();

		if (!c)
			break;
		json_object_object_add(c, "connections", json_object_new_uint64(t->conns[k]));
		json_object_object_add(c, "bytes", json_object_new_uint64(t->bytes[k]));
		json_object_object_add(c, "share_connections",
				       json_object_new_int((int)pct(t->conns[k], t->n)));
		json_object_object_add(c, "share_bytes",
				       json_object_new_int((int)pct(t->bytes[k], t->total_bytes)));
		json_object_object_add(o, class_names[k], c);
	}
	return o;
}

/* The most common send size of a histogram, as text ("64K", "more than 1M"). */
static const char *typical_send(const uint64_t hist[ASSESS_BUCKETS], char *buf, size_t len)
{
	unsigned best = 0;

	for (unsigned i = 1; i < ASSESS_BUCKETS; i++)
		if (hist[i] > hist[best])
			best = i;
	if (!hist[best])
		snprintf(buf, len, "send sizes unknown");
	else if (best == 0)
		snprintf(buf, len, "sends of up to 8 KiB");
	else if (best == ASSESS_BUCKETS - 1)
		snprintf(buf, len, "sends of more than 1 MiB");
	else
		why_printf(buf, len, "sends of %" PRIu64 "-%" PRIu64 " KiB",
			   assess_bucket_size(best - 1) / 1024, assess_bucket_size(best) / 1024);
	return buf;
}

enum verdict { V_FASTER, V_SLOWER, V_NOCHANGE, V_MIXED };
static const char *const verdict_names[] = {
	[V_FASTER] = "likely-faster",
	[V_SLOWER] = "likely-slower",
	[V_NOCHANGE] = "no-change",
	[V_MIXED] = "mixed",
};

/* The expected direction of the effect, from the shape, with the why. */
static enum verdict verdict_of(const struct tally *t, const struct assess_thresholds *th, char *why,
			       size_t len)
{
	uint64_t cand = t->n - t->conns[ASSESS_NOT_SERVABLE] - t->conns[ASSESS_FAILED];
	char sends[48];
	const char *where = t->reach[ASSESS_REACH_SMCD] >= t->reach[ASSESS_REACH_SMCR]
				    ? "peers on this host (SMC-D)"
				    : "peers over RDMA (SMC-R)";

	if (!t->n || pct(t->conns[ASSESS_NOT_SERVABLE], t->n) >= th->major_pct || !cand) {
		why_printf(why, len, "%u%% of connections cannot use SMC: it would fall back to TCP",
			   pct(t->conns[ASSESS_NOT_SERVABLE], t->n));
		return V_NOCHANGE;
	}
	if (pct(t->conns[ASSESS_WELL_SUITED], cand) >= th->major_pct &&
	    pct(t->conns[ASSESS_WELL_SUITED], t->n) >= th->major_pct) {
		why_printf(why, len, "%u%% of connections long-lived (%.1f s on average), %s, %s",
			   pct(t->conns[ASSESS_WELL_SUITED], t->n),
			   t->lifetime_sum_ns / 1e9 / (double)t->conns[ASSESS_WELL_SUITED],
			   typical_send(t->hist, sends, sizeof(sends)), where);
		return V_FASTER;
	}
	if (pct(t->conns[ASSESS_NOT_SUITED], cand) >= th->major_pct) {
		if (t->short_n >= t->tiny_n)
			why_printf(why, len, "%u%% of connections live < %" PRIu64 " ms",
				   pct(t->short_n, t->n), th->short_ns / MS);
		else
			why_printf(why, len, "%u%% of connections move < %" PRIu64 " KiB",
				   pct(t->tiny_n, t->n), th->tiny_bytes / 1024);
		return V_SLOWER;
	}
	why_printf(why, len, "%u%% well suited, %u%% not suited, %u%% cannot use SMC",
		   pct(t->conns[ASSESS_WELL_SUITED], t->n), pct(t->conns[ASSESS_NOT_SUITED], t->n),
		   pct(t->conns[ASSESS_NOT_SERVABLE], t->n));
	return V_MIXED;
}

/* An application: the cgroup when known (its unit names it), else the command. */
struct app {
	char key[ASSESS_CGROUP_LEN + ASSESS_COMM_LEN + 2];
	const struct assess_conn *first;
	struct tally t;
	struct {
		uint32_t pid;
		char comm[ASSESS_COMM_LEN];
	} procs[8];
	size_t n_procs;
	enum verdict verdict;
	char why[ASSESS_WHY_LEN];
};

static void app_key(const struct assess_conn *c, char *buf, size_t len)
{
	if (c->cgroup[0])
		snprintf(buf, len, "cg:%s", c->cgroup);
	else
		snprintf(buf, len, "comm:%s", c->comm[0] ? c->comm : "?");
}

static void app_add_proc(struct app *a, const struct assess_conn *c)
{
	for (size_t i = 0; i < a->n_procs; i++)
		if (a->procs[i].pid == c->pid && streq(a->procs[i].comm, c->comm))
			return;
	if (a->n_procs == ELEMENTSOF(a->procs) || (!c->pid && !c->comm[0]))
		return;
	a->procs[a->n_procs].pid = c->pid;
	snprintf(a->procs[a->n_procs].comm, sizeof(a->procs[0].comm), "%s", c->comm);
	a->n_procs++;
}

static int apps_build(const struct assess_conn *v, size_t n, const struct assess_thresholds *th,
		      struct app **ret, size_t *ret_n)
{
	struct app *apps = NULL;
	size_t n_apps = 0;

	for (size_t i = 0; i < n; i++) {
		char key[sizeof(apps[0].key)];
		struct app *a = NULL;

		app_key(&v[i], key, sizeof(key));
		for (size_t j = 0; j < n_apps && !a; j++)
			if (streq(apps[j].key, key))
				a = &apps[j];
		if (!a) {
			struct app *nv = realloc(apps, (n_apps + 1) * sizeof(*nv));

			if (!nv) {
				free(apps);
				return -1;
			}
			apps = nv;
			a = &apps[n_apps++];
			*a = (struct app){ .first = &v[i] };
			snprintf(a->key, sizeof(a->key), "%s", key);
		}
		tally_add(&a->t, &v[i], th);
		app_add_proc(a, &v[i]);
	}
	for (size_t j = 0; j < n_apps; j++)
		apps[j].verdict = verdict_of(&apps[j].t, th, apps[j].why, sizeof(apps[j].why));
	*ret = apps;
	*ret_n = n_apps;
	return 0;
}

static void app_label(const struct assess_conn *c, char *buf, size_t len, char *unit, size_t ulen)
{
	char user_unit[ASSESS_CGROUP_LEN];

	cgroup_units(c->cgroup, unit, ulen, user_unit, sizeof(user_unit));
	if (user_unit[0])
		snprintf(buf, len, "%s", user_unit);
	else if (unit[0])
		snprintf(buf, len, "%s", unit);
	else if (c->cgroup[0])
		snprintf(buf, len, "%s", c->cgroup);
	else
		snprintf(buf, len, "%s", c->comm[0] ? c->comm : "?");
}

static json_object *app_json(const struct app *a)
{
	json_object *o = json_object_new_object(), *procs = json_object_new_array();
	char label[ASSESS_CGROUP_LEN], unit[ASSESS_CGROUP_LEN];

	if (!o || !procs) {
		json_object_put(o);
		json_object_put(procs);
		return NULL;
	}
	app_label(a->first, label, sizeof(label), unit, sizeof(unit));
	json_object_object_add(o, "name", json_object_new_string(label));
	json_object_object_add(o, "unit", unit[0] ? json_object_new_string(unit) : NULL);
	json_object_object_add(
		o, "cgroup", a->first->cgroup[0] ? json_object_new_string(a->first->cgroup) : NULL);
	for (size_t i = 0; i < a->n_procs; i++) {
		json_object *p = json_object_new_object();

		if (!p)
			break;
		json_object_object_add(
			p, "pid", a->procs[i].pid ? json_object_new_int64(a->procs[i].pid) : NULL);
		json_object_object_add(p, "comm", json_object_new_string(a->procs[i].comm));
		json_object_array_add(procs, p);
	}
	json_object_object_add(o, "processes", procs);
	json_object_object_add(o, "connections", json_object_new_uint64(a->t.n));
	json_object_object_add(o, "bytes", json_object_new_uint64(a->t.total_bytes));
	json_object_object_add(o, "classes", classes_json(&a->t));
	json_object_object_add(o, "send_sizes", hist_json(a->t.hist));
	json_object_object_add(o, "verdict", json_object_new_string(verdict_names[a->verdict]));
	json_object_object_add(o, "why", json_object_new_string(a->why));
	return o;
}

static json_object *conn_json(const struct assess_conn *c)
{
	json_object *o = json_object_new_object();
	char a[INET6_ADDRSTRLEN], buf[INET6_ADDRSTRLEN + 16];

	if (!o)
		return NULL;
	snprintf(buf, sizeof(buf), c->family == AF_INET6 ? "[%s]:%u" : "%s:%u",
		 addr_text(c->family, &c->laddr, a, sizeof(a)), c->lport);
	json_object_object_add(o, "local", json_object_new_string(buf));
	snprintf(buf, sizeof(buf), c->family == AF_INET6 ? "[%s]:%u" : "%s:%u",
		 addr_text(c->family, &c->raddr, a, sizeof(a)), c->rport);
	json_object_object_add(o, "peer", json_object_new_string(buf));
	json_object_object_add(o, "side", json_object_new_string(c->passive ? "server" : "client"));
	json_object_object_add(o, "pid", c->pid ? json_object_new_int64(c->pid) : NULL);
	json_object_object_add(o, "comm", c->comm[0] ? json_object_new_string(c->comm) : NULL);
	json_object_object_add(o, "cgroup", c->cgroup[0] ? json_object_new_string(c->cgroup) : NULL);
	json_object_object_add(o, "netns_cookie", json_object_new_uint64(c->netns_cookie));
	json_object_object_add(o, "netns_inum", json_object_new_uint64(c->netns_inum));
	json_object_object_add(o, "established", json_object_new_boolean(c->established));
	json_object_object_add(o, "open", json_object_new_boolean(c->open));
	json_object_object_add(o, "before", json_object_new_boolean(c->before));
	json_object_object_add(o, "lifetime_ms", json_object_new_double(c->lifetime_ns / 1e6));
	json_object_object_add(o, "bytes_sent", json_object_new_uint64(c->bytes_sent));
	json_object_object_add(o, "bytes_received", json_object_new_uint64(c->bytes_received));
	json_object_object_add(o, "sends", json_object_new_uint64(c->sends));
	json_object_object_add(o, "send_sizes", hist_json(c->hist));
	json_object_object_add(o, "egress", c->egress[0] ? json_object_new_string(c->egress) : NULL);
	json_object_object_add(o, "both_ends_seen", json_object_new_boolean(c->pair >= 0));
	json_object_object_add(o, "reach", json_object_new_string(reach_names[c->reach]));
	json_object_object_add(o, "class", json_object_new_string(class_names[c->cls]));
	json_object_object_add(o, "why", json_object_new_string(c->why));
	return o;
}

static json_object *thresholds_json(const struct assess_thresholds *t)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "short_ms", json_object_new_uint64(t->short_ns / MS));
	json_object_object_add(o, "tiny_bytes", json_object_new_uint64(t->tiny_bytes));
	json_object_object_add(o, "tiny_sends", json_object_new_uint64(t->tiny_sends));
	json_object_object_add(o, "majority_percent", json_object_new_uint64(t->major_pct));
	return o;
}

json_object *assess_report_json(const struct assess_conn *v, size_t n,
				const struct assess_thresholds *t, const struct assess_meta *m)
{
	_cleanup_(json_object_putp) json_object *doc = json_object_new_object();
	json_object *apps_a = json_object_new_array(), *conns_a = json_object_new_array();
	json_object *total = json_object_new_object();
	struct tally all = {};
	struct app *apps = NULL;
	size_t n_apps = 0;
	char *frag;

	if (!doc || !apps_a || !conns_a || !total || apps_build(v, n, t, &apps, &n_apps) < 0) {
		json_object_put(apps_a);
		json_object_put(conns_a);
		json_object_put(total);
		return NULL;
	}
	json_object_object_add(doc, "method", json_object_new_string(m->method));
	json_object_object_add(doc, "method_reason",
			       m->method_reason ? json_object_new_string(m->method_reason) : NULL);
	json_object_object_add(doc, "coverage", json_object_new_string(m->coverage));
	json_object_object_add(doc, "scope", json_object_new_string(m->scope));
	json_object_object_add(doc, "duration_s", json_object_new_double(m->duration_s));
	json_object_object_add(doc, "dropped", json_object_new_uint64(m->dropped));
	json_object_object_add(doc, "thresholds", thresholds_json(t));
	/* Connections, not ends: a connection seen at both ends counts once (its client's). */
	for (size_t i = 0; i < n; i++)
		if (!(v[i].pair >= 0 && v[i].passive))
			tally_add(&all, &v[i], t);
	json_object_object_add(total, "connections", json_object_new_uint64(all.n));
	json_object_object_add(total, "bytes", json_object_new_uint64(all.total_bytes));
	json_object_object_add(total, "classes", classes_json(&all));
	json_object_object_add(doc, "total", total);
	for (size_t j = 0; j < n_apps; j++)
		json_object_array_add(apps_a, app_json(&apps[j]));
	free(apps);
	json_object_object_add(doc, "applications", apps_a);
	for (size_t i = 0; i < n; i++)
		json_object_array_add(conns_a, conn_json(&v[i]));
	json_object_object_add(doc, "connections", conns_a);
	frag = assess_fragment(v, n, t);
	if (!frag)
		return NULL;
	json_object_object_add(doc, "fragment", json_object_new_string(frag));
	free(frag);
	return TAKE_PTR(doc);
}

/* ---- the fragment -------------------------------------------------------------------- */

uint64_t assess_buffer_size(const uint64_t hist[ASSESS_BUCKETS])
{
	uint64_t total = 0, sum = 0, size = 64 * 1024;

	for (unsigned i = 0; i < ASSESS_BUCKETS; i++)
		total += hist[i];
	if (!total)
		return 0;
	for (unsigned i = 0; i < ASSESS_BUCKETS; i++) {
		sum += hist[i];
		if (sum * 10 >= total * 9) {
			/* two messages fit: one being drained while the next is written */
			size = assess_bucket_size(i) * 2;
			break;
		}
	}
	if (size < 64 * 1024)
		size = 64 * 1024;
	if (size > 1024 * 1024)
		size = 1024 * 1024;
	return size;
}

struct sbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...) _printf_(2, 3);
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = true;
			return;
		}
		if (b->s && b->len + (size_t)n < b->cap) {
			b->len += (size_t)n;
			return;
		}
		char *nv = realloc(b->s, b->cap + (size_t)n + 256);

		if (!nv) {
			b->oom = true;
			return;
		}
		b->s = nv;
		b->cap += (size_t)n + 256;
	}
}

#define ASSESS_MAX_EXCLUDE 64
#define ASSESS_MAX_CGROUPS 64

struct server {
	int family;
	struct in6_addr addr;
	uint16_t port;
	uint64_t n, not_suited, short_n;
};

/* The server end of a record: its own address if it accepted, else its peer's. */
static void server_of(const struct assess_conn *c, struct server *s)
{
	*s = (struct server){ .family = c->family, .port = c->passive ? c->lport : c->rport };
	s->addr = c->passive ? c->laddr : c->raddr;
}

static size_t servers_build(const struct assess_conn *v, size_t n,
			    const struct assess_thresholds *t, struct server *out, size_t max)
{
	size_t n_out = 0;

	for (size_t i = 0; i < n; i++) {
		const struct assess_conn *c = &v[i];
		struct server s, *p = NULL;

		if (c->pair >= 0 && c->passive)
			continue; /* counted at its client end */
		if (c->reach == ASSESS_REACH_NONE || c->cls == ASSESS_FAILED)
			continue;
		server_of(c, &s);
		if (!s.port)
			continue; /* not known (never established): no entry to write */
		for (size_t j = 0; j < n_out && !p; j++)
			if (out[j].family == s.family && out[j].port == s.port &&
			    !memcmp(&out[j].addr, &s.addr, sizeof(s.addr)))
				p = &out[j];
		if (!p) {
			if (n_out == max)
				continue;
			p = &out[n_out++];
			*p = s;
		}
		p->n++;
		if (c->cls == ASSESS_NOT_SUITED) {
			p->not_suited++;
			if (!c->open && c->lifetime_ns < t->short_ns)
				p->short_n++;
		}
	}
	return n_out;
}

/* text with every byte but printable ASCII replaced by '?': safe after a YAML '#'. */
static void comment_safe(const char *text, char *buf, size_t len)
{
	size_t i = 0;

	for (; text[i] && i + 1 < len; i++)
		buf[i] = text[i] >= 0x20 && text[i] < 0x7f ? text[i] : '?';
	buf[i] = '\0';
}

/*
 * A cgroup path as a YAML scalar: plain when it is only path characters, else
 * double-quoted with '"', '\\' and the control bytes escaped (a delegated cgroup's name is
 * its owner's choice: it must not end the scalar or start a line of its own).
 */
static void sb_path(struct sbuf *b, const char *path)
{
	bool plain = path[0] == '/';

	for (const char *q = path; *q && plain; q++)
		plain = (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
			(*q >= '0' && *q <= '9') || strchr("/._@:+-", *q);
	if (plain) {
		sb_printf(b, "%s", path);
		return;
	}
	sb_printf(b, "\"");
	for (const unsigned char *q = (const unsigned char *)path; *q; q++)
		if (*q == '"' || *q == '\\')
			sb_printf(b, "\\%c", *q);
		else if (*q < 0x20 || *q == 0x7f)
			sb_printf(b, "\\x%02x", *q);
		else
			sb_printf(b, "%c", *q);
	sb_printf(b, "\"");
}

/* A cgroup smc.yaml can name: not the root, not unknown, no control byte (config/policy.c). */
static bool cgroup_nameable(const char *cg)
{
	if (!cg[0] || streq(cg, "/"))
		return false;
	for (const unsigned char *q = (const unsigned char *)cg; *q; q++)
		if (*q < 0x20 || *q == 0x7f)
			return false;
	return true;
}

static void fragment_cgroups(struct sbuf *b, const struct app *apps, size_t n_apps)
{
	size_t listed = 0;
	char comm[ASSESS_COMM_LEN * 2], why[ASSESS_WHY_LEN * 2];

	/* The list first, the applications it cannot name after it, each line on its own. */
	sb_printf(b, "policies:\n  cgroups:");
	for (size_t j = 0; j < n_apps && listed < ASSESS_MAX_CGROUPS; j++) {
		const struct app *a = &apps[j];

		if (a->verdict != V_FASTER || !cgroup_nameable(a->first->cgroup))
			continue;
		comment_safe(a->why, why, sizeof(why));
		sb_printf(b, "\n    - ");
		sb_path(b, a->first->cgroup);
		sb_printf(b, "  # likely faster: %s", why);
		listed++;
	}
	if (!listed)
		sb_printf(b, " []  # no application is likely faster");
	sb_printf(b, "\n");
	for (size_t j = 0; j < n_apps; j++) {
		const struct app *a = &apps[j];

		if (a->verdict != V_FASTER || cgroup_nameable(a->first->cgroup))
			continue;
		comment_safe(a->first->comm, comm, sizeof(comm));
		sb_printf(b, "  # %s: likely faster, but its cgroup is %s: use smcctl run\n", comm,
			  !a->first->cgroup[0]		 ? "unknown"
			  : streq(a->first->cgroup, "/") ? "the root"
							 : "a name smc.yaml cannot hold");
	}
}

static void fragment_exclude(struct sbuf *b, const struct assess_conn *v, size_t n,
			     const struct assess_thresholds *t)
{
	struct server servers[ASSESS_MAX_EXCLUDE * 4];
	size_t n_s = servers_build(v, n, t, servers, ELEMENTSOF(servers)), listed = 0;

	for (size_t j = 0; j < n_s && listed < ASSESS_MAX_EXCLUDE; j++) {
		const struct server *s = &servers[j];
		char a[INET6_ADDRSTRLEN];

		if (pct(s->not_suited, s->n) < t->major_pct)
			continue;
		if (!listed)
			sb_printf(b, "  exclude:\n");
		sb_printf(b,
			  "    - {address: %s, port: %u}  # %u%% of %" PRIu64
			  " connections not suited%s\n",
			  addr_text(s->family, &s->addr, a, sizeof(a)), s->port,
			  pct(s->not_suited, s->n), s->n,
			  s->short_n * 2 >= s->not_suited ? " (short-lived)" : " (tiny)");
		listed++;
	}
}

static void fragment_sysctl(struct sbuf *b, const struct assess_conn *v, size_t n)
{
	uint64_t hist[ASSESS_BUCKETS] = {}, size;

	for (size_t i = 0; i < n; i++)
		if (v[i].cls == ASSESS_WELL_SUITED)
			for (unsigned k = 0; k < ASSESS_BUCKETS; k++)
				hist[k] += v[i].hist[k];
	size = assess_buffer_size(hist);
	if (!size) {
		sb_printf(b,
			  "# sysctl: no sends of well-suited connections seen; keep the buffers\n");
		return;
	}
	sb_printf(b, "sysctl:  # twice the 90th percentile of the well-suited sends\n");
	if (size >= 1024 * 1024)
		sb_printf(b, "  wmem: %" PRIu64 "MiB\n  rmem: %" PRIu64 "MiB\n", size >> 20,
			  size >> 20);
	else
		sb_printf(b, "  wmem: %" PRIu64 "KiB\n  rmem: %" PRIu64 "KiB\n", size >> 10,
			  size >> 10);
}

char *assess_fragment(const struct assess_conn *v, size_t n, const struct assess_thresholds *t)
{
	struct sbuf b = {};
	struct app *apps = NULL;
	size_t n_apps = 0;

	if (apps_build(v, n, t, &apps, &n_apps) < 0)
		return NULL;
	sb_printf(&b, "# smc.yaml fragment from smcctl assess (review before use)\n");
	fragment_cgroups(&b, apps, n_apps);
	free(apps);
	fragment_exclude(&b, v, n, t);
	fragment_sysctl(&b, v, n);
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

/* ---- text ------------------------------------------------------------------------------ */

static void text_classes(FILE *f, json_object *classes, const char *indent)
{
	for (unsigned k = 0; k < _ASSESS_CLASS_MAX; k++) {
		json_object *c = out_get(classes, class_names[k]);
		char sz[16];

		if (!out_get_u64(c, "connections", 0))
			continue;
		fprintf(f,
			"%s%-13s %3" PRIu64 "%% of connections (%" PRIu64 "), %3" PRIu64
			"%% of bytes (%s)\n",
			indent, class_names[k], out_get_u64(c, "share_connections", 0),
			out_get_u64(c, "connections", 0), out_get_u64(c, "share_bytes", 0),
			out_fmt_size(out_get_u64(c, "bytes", 0), sz, sizeof(sz)));
	}
}

void assess_report_text(FILE *f, json_object *doc, unsigned detail)
{
	json_object *apps = out_get(doc, "applications"), *conns = out_get(doc, "connections");
	json_object *total = out_get(doc, "total");
	char sz[16];

	fprintf(f, "Observed %.0f s (%s%s%s), %s: %s.\n",
		json_object_get_double(out_get(doc, "duration_s")), out_get_str(doc, "method", "?"),
		out_get(doc, "method_reason") ? ": " : "", out_get_str(doc, "method_reason", ""),
		out_get_str(doc, "scope", "?"), out_get_str(doc, "coverage", "?"));
	if (out_get_u64(doc, "dropped", 0))
		fprintf(f, "%" PRIu64 " records were lost (too many connections at once).\n",
			out_get_u64(doc, "dropped", 0));
	fprintf(f, "\nTotal: %" PRIu64 " connections, %s\n", out_get_u64(total, "connections", 0),
		out_fmt_size(out_get_u64(total, "bytes", 0), sz, sizeof(sz)));
	text_classes(f, out_get(total, "classes"), "  ");
	for (size_t j = 0; j < json_object_array_length(apps); j++) {
		json_object *a = json_object_array_get_idx(apps, j), *procs = out_get(a, "processes");

		fprintf(f, "\n%s", out_get_str(a, "name", "?"));
		if (out_get(a, "cgroup"))
			fprintf(f, " (cgroup %s)", out_get_str(a, "cgroup", ""));
		fprintf(f, ": %s, %s\n", out_get_str(a, "verdict", "?"), out_get_str(a, "why", ""));
		fprintf(f, "  processes:");
		for (size_t i = 0; i < json_object_array_length(procs); i++) {
			json_object *p = json_object_array_get_idx(procs, i);

			fprintf(f, " %s", out_get_str(p, "comm", "?"));
			if (out_get(p, "pid"))
				fprintf(f, "[%" PRIu64 "]", out_get_u64(p, "pid", 0));
		}
		fprintf(f, "%s\n", json_object_array_length(procs) ? "" : " -");
		text_classes(f, out_get(a, "classes"), "  ");
	}
	if (detail) {
		fprintf(f, "\nConnections:\n");
		for (size_t i = 0; i < json_object_array_length(conns); i++) {
			json_object *c = json_object_array_get_idx(conns, i);

			fprintf(f, "  %s %s -> %s %s %s: %s\n", out_get_str(c, "comm", "-"),
				out_get_str(c, "local", "?"), out_get_str(c, "peer", "?"),
				out_get_str(c, "side", "?"), out_get_str(c, "class", "?"),
				out_get_str(c, "why", ""));
		}
	}
	fprintf(f, "\nSuggested smc.yaml fragment:\n%s", out_get_str(doc, "fragment", ""));
}
