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
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/assess-rules.h"
#include "common/macro.h"
#include "common/name-sanitize.h"
#include "common/output.h"
#include "common/owner.h"

#define MS ((uint64_t)1000000)

static const char *const reach_names[] = {
	[ASSESS_REACH_SMCD] = "smcd",
	[ASSESS_REACH_SMCR] = "smcr",
	[ASSESS_REACH_NONE] = "none",
};
/*
 * A class's name in JSON (keys of "classes" and the "class" value) and the textfile's class
 * label: snake_case as every JSON key (smcctl(8) JSON OUTPUT), one spelling in both; the
 * text says it in words.
 */
static const char *const class_names[] = {
	[ASSESS_WELL_SUITED] = "well_suited",
	[ASSESS_NOT_SUITED] = "not_suited",
	[ASSESS_NOT_SERVABLE] = "not_servable",
	[ASSESS_FAILED] = "failed",
};
static const char *const class_labels[] = {
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
		if (c->pnetid[0])
			why_printf(c->why, sizeof(c->why),
				   "peer %s is reached through %s, whose PNET ID %s an RDMA device "
				   "has (%s port %u)",
				   peer, c->egress, c->pnetid, c->rdma_dev, c->rdma_port);
		else if (c->egress_lower[0])
			why_printf(c->why, sizeof(c->why),
				   "peer %s is reached through %s, on %s, which has an RDMA device "
				   "(%s port %u)",
				   peer, c->egress, c->egress_lower, c->rdma_dev, c->rdma_port);
		else
			why_printf(c->why, sizeof(c->why),
				   "peer %s is reached through %s, which has an RDMA device (%s port %u)",
				   peer, c->egress, c->rdma_dev, c->rdma_port);
	} else {
		c->reach = ASSESS_REACH_NONE;
		if (!c->egress[0])
			why_printf(c->why, sizeof(c->why),
				   "peer %s is not on this host and no route to it was found", peer);
		else if (c->rdma_err)
			why_printf(c->why, sizeof(c->why),
				   "peer %s is not on this host, and whether %s has an RDMA device for "
				   "SMC-R could not be told: %s",
				   peer, c->egress, strerror(-c->rdma_err));
		else if (c->pnetid[0])
			why_printf(c->why, sizeof(c->why),
				   "peer %s is not on this host and no active RDMA port has the PNET "
				   "ID of %s (%s)",
				   peer, c->egress, c->pnetid);
		else if (c->egress_lower_elsewhere)
			why_printf(c->why, sizeof(c->why),
				   "peer %s is not on this host and %s has no RDMA device (the device "
				   "it sits on is in another network namespace: not looked at)",
				   peer, c->egress);
		else if (c->egress_lower[0])
			why_printf(c->why, sizeof(c->why),
				   "peer %s is not on this host and %s (on %s) has no RDMA device",
				   peer, c->egress, c->egress_lower);
		else
			why_printf(c->why, sizeof(c->why),
				   "peer %s is not on this host and %s has no RDMA device", peer,
				   c->egress);
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
	struct in6_addr l = c->laddr, rr = c->raddr;
	int family = c->family, r;
	bool swap;

	/* A dual-stack socket's end of an IPv4 connection (::ffff:a.b.c.d) is the IPv4 end. */
	if (family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&l) && IN6_IS_ADDR_V4MAPPED(&rr)) {
		family = AF_INET;
		l = (struct in6_addr){ .s6_addr32 = { c->laddr.s6_addr32[3] } };
		rr = (struct in6_addr){ .s6_addr32 = { c->raddr.s6_addr32[3] } };
	}
	r = memcmp(&l, &rr, 16);
	swap = r > 0 || (r == 0 && c->lport > c->rport);
	*k = (struct end_key){ .family = family, .idx = i, .passive = c->passive };
	memcpy(k->a, swap ? &rr : &l, 16);
	memcpy(k->b, swap ? &l : &rr, 16);
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

enum verdict { V_FASTER, V_SLOWER, V_NOCHANGE, V_MIXED, _V_MAX };
const char *const assess_verdict_names[] = {
	[V_FASTER] = "likely-faster",
	[V_SLOWER] = "likely-slower",
	[V_NOCHANGE] = "no-change",
	[V_MIXED] = "mixed",
};
const size_t assess_n_verdicts = _V_MAX;
#define verdict_names assess_verdict_names

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
	char cgroup[ASSESS_CGROUP_LEN];	      /* of its first record: names it */
	char container[ASSESS_CONTAINER_LEN]; /* of its first record: names it, before its unit */
	char comm[ASSESS_COMM_LEN];
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

#define ASSESS_MAX_EXCLUDE 64
#define ASSESS_MAX_CGROUPS 64
#define ASSESS_MAX_SERVERS (ASSESS_MAX_EXCLUDE * 4)

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

/*
 * What the records of one observation add up to, in pieces: the agent adds a window's
 * records a batch at a time and drops them, smcctl adds all of its at once.
 */
struct assess_sum {
	struct tally all; /* connections, not ends */
	struct app *apps;
	size_t n_apps, cap_apps, max_apps;
	struct app other; /* the applications beyond max_apps, summed */
	struct server *servers;
	size_t n_servers;
	uint64_t hist_well[ASSESS_BUCKETS]; /* sends of the well-suited connections */
	uint64_t ends;
	bool oom;
};

static struct app *app_find(struct assess_sum *s, const struct assess_conn *c)
{
	char key[sizeof(s->apps[0].key)];
	struct app *a;

	app_key(c, key, sizeof(key));
	for (size_t j = 0; j < s->n_apps; j++)
		if (streq(s->apps[j].key, key))
			return &s->apps[j];
	if (s->max_apps && s->n_apps == s->max_apps)
		return &s->other;
	if (s->n_apps == s->cap_apps) {
		size_t cap = s->cap_apps ? s->cap_apps * 2 : 16;
		struct app *nv = realloc(s->apps, cap * sizeof(*nv));

		if (!nv)
			return NULL;
		s->apps = nv;
		s->cap_apps = cap;
	}
	a = &s->apps[s->n_apps++];
	*a = (struct app){};
	snprintf(a->key, sizeof(a->key), "%s", key);
	snprintf(a->cgroup, sizeof(a->cgroup), "%s", c->cgroup);
	snprintf(a->container, sizeof(a->container), "%s", c->container);
	snprintf(a->comm, sizeof(a->comm), "%s", c->comm);
	return a;
}

/* The record's server, counted once per connection (at its client end when both were seen). */
static void server_add(struct assess_sum *s, const struct assess_conn *c,
		       const struct assess_thresholds *t)
{
	struct server srv, *p = NULL;

	if (c->pair >= 0 && c->passive)
		return; /* counted at its client end */
	if (c->reach == ASSESS_REACH_NONE || c->cls == ASSESS_FAILED)
		return;
	server_of(c, &srv);
	if (!srv.port)
		return; /* not known (never established): no entry to write */
	for (size_t j = 0; j < s->n_servers && !p; j++)
		if (s->servers[j].family == srv.family && s->servers[j].port == srv.port &&
		    !memcmp(&s->servers[j].addr, &srv.addr, sizeof(srv.addr)))
			p = &s->servers[j];
	if (!p) {
		if (s->n_servers == ASSESS_MAX_SERVERS)
			return;
		p = &s->servers[s->n_servers++];
		*p = srv;
	}
	p->n++;
	if (c->cls == ASSESS_NOT_SUITED) {
		p->not_suited++;
		if (!c->open && c->lifetime_ns < t->short_ns)
			p->short_n++;
	}
}

struct assess_sum *assess_sum_new(size_t max_apps)
{
	struct assess_sum *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->servers = calloc(ASSESS_MAX_SERVERS, sizeof(*s->servers));
	if (!s->servers) {
		free(s);
		return NULL;
	}
	s->max_apps = max_apps;
	snprintf(s->other.key, sizeof(s->other.key), "other");
	snprintf(s->other.comm, sizeof(s->other.comm), ASSESS_OTHER);
	return s;
}

struct assess_sum *assess_sum_free(struct assess_sum *s)
{
	if (s) {
		free(s->apps);
		free(s->servers);
		free(s);
	}
	return NULL;
}

int assess_sum_add(struct assess_sum *s, const struct assess_conn *v, size_t n,
		   const struct assess_thresholds *t)
{
	for (size_t i = 0; i < n; i++) {
		const struct assess_conn *c = &v[i];
		struct app *a = app_find(s, c);

		if (!a) {
			s->oom = true;
			return -ENOMEM;
		}
		s->ends++;
		tally_add(&a->t, c, t);
		app_add_proc(a, c);
		/* Connections, not ends: one seen at both ends counts once (its client's). */
		if (!(c->pair >= 0 && c->passive))
			tally_add(&s->all, c, t);
		server_add(s, c, t);
		if (c->cls == ASSESS_WELL_SUITED)
			for (unsigned k = 0; k < ASSESS_BUCKETS; k++)
				s->hist_well[k] += c->hist[k];
	}
	for (size_t j = 0; j < s->n_apps; j++)
		s->apps[j].verdict =
			verdict_of(&s->apps[j].t, t, s->apps[j].why, sizeof(s->apps[j].why));
	if (s->other.t.n)
		s->other.verdict = verdict_of(&s->other.t, t, s->other.why, sizeof(s->other.why));
	return 0;
}

uint64_t assess_sum_ends(const struct assess_sum *s)
{
	return s->ends;
}

/* The application's name, raw: every output sanitises it (json_add_name(), the gauges):
 * its container, else its user unit, its unit, its cgroup, its command. */
static void app_label(const struct app *a, char *buf, size_t len, char *unit, size_t ulen)
{
	char user_unit[ASSESS_CGROUP_LEN];

	cgroup_units(a->cgroup, unit, ulen, user_unit, sizeof(user_unit));
	/* a container by its runtime and name, not its libpod-<id>.scope */
	if (a->container[0])
		snprintf(buf, len, "%s", a->container);
	else if (user_unit[0])
		snprintf(buf, len, "%s", user_unit);
	else if (unit[0])
		snprintf(buf, len, "%s", unit);
	else if (a->cgroup[0])
		snprintf(buf, len, "%s", a->cgroup);
	else
		snprintf(buf, len, "%s", a->comm[0] ? a->comm : "?");
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
	app_label(a, label, sizeof(label), unit, sizeof(unit));
	json_add_name(o, "name", label);
	json_add_name(o, "unit", unit[0] ? unit : NULL);
	json_add_name(o, "cgroup", a->cgroup[0] ? a->cgroup : NULL);
	for (size_t i = 0; i < a->n_procs; i++) {
		json_object *p = json_object_new_object();

		if (!p)
			break;
		json_object_object_add(
			p, "pid", a->procs[i].pid ? json_object_new_int64(a->procs[i].pid) : NULL);
		json_add_name(p, "comm", a->procs[i].comm);
		json_object_array_add(procs, p);
	}
	json_object_object_add(o, "processes", procs);
	json_object_object_add(o, "connections", json_object_new_uint64(a->t.n));
	json_object_object_add(o, "bytes", json_object_new_uint64(a->t.total_bytes));
	json_object_object_add(o, "classes", classes_json(&a->t));
	json_object_object_add(o, "send_sizes", hist_json(a->t.hist));
	json_object_object_add(o, "verdict", json_object_new_string(verdict_names[a->verdict]));
	json_add_name(o, "why", a->why); /* names in it, as the fragment's comments */
	return o;
}

static void gauge_add(struct assess_app_gauge *g, const struct tally *t)
{
	for (unsigned k = 0; k < _ASSESS_CLASS_MAX; k++) {
		g->conns[k] += t->conns[k];
		g->bytes[k] += t->bytes[k];
	}
}

static int by_bytes(const void *x, const void *y)
{
	const struct app *const *p = x, *const *q = y;

	if ((*p)->t.total_bytes != (*q)->t.total_bytes)
		return (*p)->t.total_bytes > (*q)->t.total_bytes ? -1 : 1;
	return strcmp((*p)->key, (*q)->key);
}

int assess_sum_gauges(const struct assess_sum *s, size_t top, struct assess_gauges *ret)
{
	_cleanup_(freep) const struct app **order = NULL;
	struct assess_gauges g = {};
	size_t n = s->n_apps < top ? s->n_apps : top;
	bool other = s->n_apps > top || s->other.t.n;
	char unit[ASSESS_CGROUP_LEN], label[ASSESS_CGROUP_LEN];

	*ret = g;
	for (unsigned k = 0; k < _ASSESS_CLASS_MAX; k++) {
		g.conns[k] = s->all.conns[k];
		g.bytes[k] = s->all.bytes[k];
	}
	memcpy(g.reach, s->all.reach, sizeof(g.reach));
	if (s->n_apps && !(order = calloc(s->n_apps, sizeof(*order))))
		return -ENOMEM;
	for (size_t j = 0; j < s->n_apps; j++)
		order[j] = &s->apps[j];
	if (s->n_apps)
		qsort(order, s->n_apps, sizeof(*order), by_bytes);
	g.apps = calloc(n + 1, sizeof(*g.apps));
	if (!g.apps)
		return -ENOMEM;
	for (size_t j = 0; j < n; j++) {
		/* a Prometheus label value: UTF-8, one line */
		app_label(order[j], label, sizeof(label), unit, sizeof(unit));
		name_sanitize(label, g.apps[j].name, sizeof(g.apps[j].name));
		gauge_add(&g.apps[j], &order[j]->t);
		g.apps[j].verdict = verdict_names[order[j]->verdict];
	}
	g.n_apps = n;
	if (other) {
		struct assess_app_gauge *o = &g.apps[g.n_apps++];

		snprintf(o->name, sizeof(o->name), ASSESS_OTHER);
		for (size_t j = n; j < s->n_apps; j++)
			gauge_add(o, &order[j]->t);
		gauge_add(o, &s->other.t);
	}
	*ret = g;
	return 0;
}

void assess_gauges_done(struct assess_gauges *g)
{
	free(g->apps);
	*g = (struct assess_gauges){};
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
	json_add_name(o, "comm", c->comm[0] ? c->comm : NULL);
	json_add_name(o, "cgroup", c->cgroup[0] ? c->cgroup : NULL);
	json_object_object_add(o, "netns_cookie", json_object_new_uint64(c->netns_cookie));
	json_object_object_add(o, "netns_inum", json_object_new_uint64(c->netns_inum));
	json_object_object_add(o, "established", json_object_new_boolean(c->established));
	json_object_object_add(o, "open", json_object_new_boolean(c->open));
	json_object_object_add(o, "before", json_object_new_boolean(c->before));
	/* JSON times are whole microseconds, *_usec (smcctl(8) JSON OUTPUT) */
	json_object_object_add(o, "lifetime_usec", json_object_new_uint64(c->lifetime_ns / 1000));
	json_object_object_add(o, "bytes_sent", json_object_new_uint64(c->bytes_sent));
	json_object_object_add(o, "bytes_received", json_object_new_uint64(c->bytes_received));
	json_object_object_add(o, "sends", json_object_new_uint64(c->sends));
	json_object_object_add(o, "send_sizes", hist_json(c->hist));
	json_add_name(o, "egress", c->egress[0] ? c->egress : NULL);
	json_add_name(o, "rdma_device", c->egress_rdma ? c->rdma_dev : NULL);
	json_object_object_add(o, "rdma_port",
			       c->egress_rdma ? json_object_new_int(c->rdma_port) : NULL);
	json_object_object_add(o, "pnetid", c->pnetid[0] ? json_object_new_string(c->pnetid) : NULL);
	json_object_object_add(o, "both_ends_seen", json_object_new_boolean(c->pair >= 0));
	json_object_object_add(o, "smc", json_object_new_boolean(c->smc));
	json_object_object_add(o, "reach", json_object_new_string(reach_names[c->reach]));
	json_object_object_add(o, "class", json_object_new_string(class_names[c->cls]));
	json_add_name(o, "why", c->why); /* interface, device and netns names in it */
	return o;
}

static json_object *thresholds_json(const struct assess_thresholds *t)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "short_usec", json_object_new_uint64(t->short_ns / 1000));
	json_object_object_add(o, "tiny_bytes", json_object_new_uint64(t->tiny_bytes));
	json_object_object_add(o, "tiny_sends", json_object_new_uint64(t->tiny_sends));
	json_object_object_add(o, "majority_percent", json_object_new_uint64(t->major_pct));
	return o;
}

static char *fragment(const struct assess_sum *s, const struct assess_thresholds *t,
		      const char *source);

/* The document; connections[] from v when given (smcctl), else none (the agent's window). */
static json_object *report(const struct assess_sum *s, const struct assess_thresholds *t,
			   const struct assess_meta *m, const struct assess_conn *v, size_t n,
			   const char *source)
{
	_cleanup_(json_object_putp) json_object *doc = json_object_new_object();
	json_object *apps_a = json_object_new_array(), *total = json_object_new_object();
	json_object *conns_a = v ? json_object_new_array() : NULL;
	char *frag;

	if (!doc || !apps_a || !total || (v && !conns_a) || s->oom) {
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
	/* whole microseconds, not 1.0095499619999999 seconds */
	json_object_object_add(
		doc, "duration_usec",
		json_object_new_uint64(m->duration_s > 0 ? (uint64_t)(m->duration_s * 1e6 + 0.5) : 0));
	json_object_object_add(doc, "dropped", json_object_new_uint64(m->dropped));
	json_object_object_add(doc, "thresholds", thresholds_json(t));
	json_object_object_add(total, "connections", json_object_new_uint64(s->all.n));
	json_object_object_add(total, "bytes", json_object_new_uint64(s->all.total_bytes));
	json_object_object_add(total, "classes", classes_json(&s->all));
	json_object_object_add(doc, "total", total);
	for (size_t j = 0; j < s->n_apps; j++)
		json_object_array_add(apps_a, app_json(&s->apps[j]));
	if (s->other.t.n)
		json_object_array_add(apps_a, app_json(&s->other));
	json_object_object_add(doc, "applications", apps_a);
	if (v) {
		for (size_t i = 0; i < n; i++)
			json_object_array_add(conns_a, conn_json(&v[i]));
		json_object_object_add(doc, "connections", conns_a);
	}
	frag = fragment(s, t, source);
	if (!frag)
		return NULL;
	json_object_object_add(doc, "fragment", json_object_new_string(frag));
	free(frag);
	return TAKE_PTR(doc);
}

json_object *assess_report_json(const struct assess_conn *v, size_t n,
				const struct assess_thresholds *t, const struct assess_meta *m)
{
	struct assess_sum *s = assess_sum_new(0);
	json_object *doc = NULL;

	if (s && assess_sum_add(s, v, n, t) == 0)
		doc = report(s, t, m, v, n, "smcctl assess");
	assess_sum_free(s);
	return doc;
}

json_object *assess_sum_json(const struct assess_sum *s, const struct assess_thresholds *t,
			     const struct assess_meta *m)
{
	return report(s, t, m, NULL, 0, "smcd-agent's assessment");
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

/*
 * A cgroup path as a YAML scalar: plain when it is only path characters, else
 * double-quoted with '"' and '\\' escaped (a delegated cgroup's name is its owner's choice:
 * it must not end the scalar; cgroup_nameable() kept out the control bytes and invalid
 * UTF-8, which could start a line of its own or which YAML cannot hold).
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
		else
			sb_printf(b, "%c", *q);
	sb_printf(b, "\"");
}

/*
 * A cgroup smc.yaml can name: not the root, not unknown, valid UTF-8 without control
 * characters (config/section-policies.c; a YAML file is UTF-8).
 */
static bool cgroup_nameable(const char *cg)
{
	return cg[0] && !streq(cg, "/") && name_is_clean(cg);
}

static void fragment_cgroups(struct sbuf *b, const struct app *apps, size_t n_apps)
{
	size_t listed = 0;
	/* names in comments: one line each (name_sanitize() leaves no newline) */
	char comm[NAME_SANITIZED_SIZE(ASSESS_COMM_LEN)], why[NAME_SANITIZED_SIZE(ASSESS_WHY_LEN)];

	/* The list first, the applications it cannot name after it, each line on its own. */
	sb_printf(b, "policies:\n  cgroups:");
	for (size_t j = 0; j < n_apps && listed < ASSESS_MAX_CGROUPS; j++) {
		const struct app *a = &apps[j];

		if (a->verdict != V_FASTER || !cgroup_nameable(a->cgroup))
			continue;
		name_sanitize(a->why, why, sizeof(why));
		sb_printf(b, "\n    - ");
		sb_path(b, a->cgroup);
		sb_printf(b, "  # likely faster: %s", why);
		listed++;
	}
	if (!listed)
		sb_printf(b, " []  # no application is likely faster");
	sb_printf(b, "\n");
	for (size_t j = 0; j < n_apps; j++) {
		const struct app *a = &apps[j];

		if (a->verdict != V_FASTER || cgroup_nameable(a->cgroup))
			continue;
		name_sanitize(a->comm, comm, sizeof(comm));
		sb_printf(b, "  # %s: likely faster, but its cgroup is %s: use smcctl run\n", comm,
			  !a->cgroup[0]		  ? "unknown"
			  : streq(a->cgroup, "/") ? "the root"
						  : "a name smc.yaml cannot hold");
	}
}

static void fragment_exclude(struct sbuf *b, const struct assess_sum *s,
			     const struct assess_thresholds *t)
{
	size_t listed = 0;

	for (size_t j = 0; j < s->n_servers && listed < ASSESS_MAX_EXCLUDE; j++) {
		const struct server *srv = &s->servers[j];
		char a[INET6_ADDRSTRLEN];

		if (pct(srv->not_suited, srv->n) < t->major_pct)
			continue;
		if (!listed)
			sb_printf(b, "  exclude:\n");
		sb_printf(b,
			  "    - {address: %s, port: %u}  # %u%% of %" PRIu64
			  " connections not suited%s\n",
			  addr_text(srv->family, &srv->addr, a, sizeof(a)), srv->port,
			  pct(srv->not_suited, srv->n), srv->n,
			  srv->short_n * 2 >= srv->not_suited ? " (short-lived)" : " (tiny)");
		listed++;
	}
}

static void fragment_sysctl(struct sbuf *b, const struct assess_sum *s)
{
	uint64_t size = assess_buffer_size(s->hist_well);

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

static char *fragment(const struct assess_sum *s, const struct assess_thresholds *t,
		      const char *source)
{
	struct sbuf b = {};

	sb_printf(&b, "# smc.yaml fragment from %s (review before use)\n", source);
	fragment_cgroups(&b, s->apps, s->n_apps);
	fragment_exclude(&b, s, t);
	fragment_sysctl(&b, s);
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

char *assess_fragment(const struct assess_conn *v, size_t n, const struct assess_thresholds *t)
{
	struct assess_sum *s = assess_sum_new(0);
	char *frag = NULL;

	if (s && assess_sum_add(s, v, n, t) == 0)
		frag = fragment(s, t, "smcctl assess");
	assess_sum_free(s);
	return frag;
}

char *assess_sum_fragment(const struct assess_sum *s, const struct assess_thresholds *t)
{
	return fragment(s, t, "smcd-agent's assessment");
}

/* ---- text ------------------------------------------------------------------------------ */

static void text_classes(FILE *f, json_object *classes, const char *indent)
{
	for (unsigned k = 0; k < _ASSESS_CLASS_MAX; k++) {
		json_object *c = out_get(classes, class_names[k]);
		char sz[24];

		if (!out_get_u64(c, "connections", 0))
			continue;
		fprintf(f,
			"%s%-13s %3" PRIu64 "%% of connections (%" PRIu64 "), %3" PRIu64
			"%% of bytes (%s)\n",
			indent, class_labels[k], out_get_u64(c, "share_connections", 0),
			out_get_u64(c, "connections", 0), out_get_u64(c, "share_bytes", 0),
			out_fmt_iec(out_get_u64(c, "bytes", 0), sz, sizeof(sz)));
	}
}

void assess_report_text(FILE *f, json_object *doc, unsigned detail)
{
	json_object *apps = out_get(doc, "applications"), *conns = out_get(doc, "connections");
	json_object *total = out_get(doc, "total");
	char sz[24];

	fprintf(f, "Observed %.0f s (%s%s%s), %s: %s.\n",
		out_get_u64(doc, "duration_usec", 0) / 1e6, out_get_str(doc, "method", "?"),
		out_get(doc, "method_reason") ? ": " : "", out_get_str(doc, "method_reason", ""),
		out_get_str(doc, "scope", "?"), out_get_str(doc, "coverage", "?"));
	if (out_get_u64(doc, "dropped", 0))
		fprintf(f, "%" PRIu64 " records were lost (too many connections at once).\n",
			out_get_u64(doc, "dropped", 0));
	fprintf(f, "\nTotal: %" PRIu64 " connections, %s\n", out_get_u64(total, "connections", 0),
		out_fmt_iec(out_get_u64(total, "bytes", 0), sz, sizeof(sz)));
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
	if (detail && conns) {
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
