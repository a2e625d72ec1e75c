// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The autopilot (autopilot.h): windows of figures per workload from the assessment's
 * records, common/auto-rules.c's decisions, and the policy engine's autopilot entries.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "bpf/smcbpf.h"
#include "common/auto-rules.h"
#include "common/bus-api.h"
#include "common/clock.h"
#include "common/macro.h"
#include "common/output.h"
#include "common/owner.h"
#include "common/util.h"
#include "config/config.h"
#include "smcd-agent/autopilot.h"
#include "smcd-agent/bus-snapshot.h"
#include "smcd-agent/collector.h"
#include "smcd-agent/log.h"
#include "smcd-agent/manager.h"
#include "smcd-agent/policy-engine.h"
#include "smcd-agent/stats-engine.h"

_Static_assert(AUTO_STATES_N == _AUTO_STATE_MAX, "prometheus.c names every state");

/* Local clients noted per workload: their cgroups are switched with the server's. */
#define CLIENTS_MAX 8
/* Connections open at a window's end remembered for the next one (the assessment's map). */
#define OPEN_MAX SMCBPF_ASSESS_MAX_OPEN
/* The state file is read back only up to this size: it is data, never trusted. */
#define STATE_FILE_MAX (4u << 20)

/* What one connection had moved at the end of the last window. */
struct moved {
	uint64_t id;
	uint64_t bytes, sends;
	uint64_t hist[ASSESS_BUCKETS];
};

/* One workload's current window, while it fills. */
struct acc {
	char cgroup[AUTO_NAME_LEN];
	char name[AUTO_NAME_LEN];
	uint16_t port;
	uint64_t netns; /* its server end's network namespace (cookie) */
	struct auto_window w;
	uint64_t smc; /* connections SMC carried */
	char clients[CLIENTS_MAX][AUTO_NAME_LEN];
	size_t n_clients;
};

struct wl {
	struct auto_workload w;
	char clients[CLIENTS_MAX][AUTO_NAME_LEN];
	size_t n_clients;
	const char *would; /* observe: the action on would have taken; NULL none */
};

struct autopilot {
	struct manager *m;
	enum auto_mode mode;
	struct auto_params p;
	char why[256]; /* autopilot_error() */
	bool failed;
	struct wl *wls;
	size_t n_wls, cap_wls;
	size_t untracked; /* workloads beyond AUTO_WORKLOADS_MAX in the last window */
	struct acc *accs;
	size_t n_accs, cap_accs;
	struct moved *prev, *next;
	size_t n_prev, n_next;
	/* auto.scope.netns as found at the last window's end: its cookies (0: not found) and
	 * why not (-errno), so that a change is said once. */
	uint64_t scope_netns[AUTO_SCOPE_MAX];
	int scope_netns_err[AUTO_SCOPE_MAX];
	uint64_t windows, buffer_bytes, decisions, rollbacks;
	char *path; /* the state file (agent_state_path()) */
	autopilot_reconcile_fn reconcile_now;
};

static const char *const mode_names[] = {
	[AUTO_MODE_OFF] = "off",
	[AUTO_MODE_OBSERVE] = "observe",
	[AUTO_MODE_ON] = "on",
};

const char *autopilot_mode_name(const struct manager *m)
{
	return m->autopilot ? mode_names[m->autopilot->mode] : mode_names[AUTO_MODE_OFF];
}

const char *autopilot_error(const struct manager *m)
{
	return m->autopilot && m->autopilot->why[0] ? m->autopilot->why : NULL;
}

size_t autopilot_workloads(const struct manager *m)
{
	return m->autopilot ? m->autopilot->n_wls : 0;
}

uint64_t autopilot_buffer_bytes(const struct manager *m)
{
	return m->autopilot ? m->autopilot->buffer_bytes : 0;
}

uint64_t autopilot_decisions(const struct manager *m)
{
	return m->autopilot ? m->autopilot->decisions : 0;
}

uint64_t autopilot_rollbacks(const struct manager *m)
{
	return m->autopilot ? m->autopilot->rollbacks : 0;
}

void autopilot_state_counts(const struct manager *m, uint64_t *ret, size_t n)
{
	memset(ret, 0, n * sizeof(*ret));
	if (!m->autopilot)
		return;
	for (size_t i = 0; i < m->autopilot->n_wls; i++)
		if ((size_t)m->autopilot->wls[i].w.state < n)
			ret[m->autopilot->wls[i].w.state]++;
}

/* PropertiesChanged of the Autopilot interface. */
static void autopilot_announce(struct manager *m)
{
	(void)bus_snapshot_emit_changed(m->bus, SMCD_BUS_PATH, SMCD_BUS_IFACE_AUTOPILOT,
					(const char *const[]){
						SMCD_BUS_AUTO_MODE,
						SMCD_BUS_AUTO_ERROR,
						SMCD_BUS_AUTO_WORKLOADS,
						SMCD_BUS_AUTO_BUFFER_BYTES,
						SMCD_BUS_AUTO_BUDGET_BYTES,
						SMCD_BUS_AUTO_DECISIONS,
						SMCD_BUS_AUTO_ROLLBACKS,
						NULL,
					});
}

/* ---- the table ------------------------------------------------------------------------ */

static struct wl *wl_find(struct autopilot *a, const char *cgroup, uint16_t port)
{
	for (size_t i = 0; i < a->n_wls; i++)
		if (a->wls[i].w.port == port && streq(a->wls[i].w.cgroup, cgroup))
			return &a->wls[i];
	return NULL;
}

/* By the name the table shows, or by its cgroup; the first one of several ports. */
static struct wl *wl_lookup(struct autopilot *a, const char *name)
{
	for (size_t i = 0; i < a->n_wls; i++)
		if (streq(a->wls[i].w.name, name) || streq(a->wls[i].w.cgroup, name))
			return &a->wls[i];
	return NULL;
}

static struct wl *wl_add(struct autopilot *a, const struct acc *c)
{
	struct wl *w;

	if (a->n_wls == AUTO_WORKLOADS_MAX)
		return NULL;
	if (a->n_wls == a->cap_wls) {
		size_t cap = a->cap_wls ? a->cap_wls * 2 : 16;
		struct wl *nv = realloc(a->wls, cap * sizeof(*nv));

		if (!nv)
			return NULL;
		a->wls = nv;
		a->cap_wls = cap;
	}
	w = &a->wls[a->n_wls++];
	*w = (struct wl){};
	snprintf(w->w.name, sizeof(w->w.name), "%s", c->name);
	snprintf(w->w.cgroup, sizeof(w->w.cgroup), "%s", c->cgroup);
	w->w.port = c->port;
	w->w.netns_cookie = c->netns;
	w->w.state = AUTO_UNDECIDED;
	w->w.since_usec = now_usec(CLOCK_REALTIME);
	snprintf(w->w.why, sizeof(w->w.why), "not enough evidence yet");
	return w;
}

static void wl_remove(struct autopilot *a, struct wl *w)
{
	size_t i = (size_t)(w - a->wls);

	memmove(&a->wls[i], &a->wls[i + 1], (a->n_wls - i - 1) * sizeof(*w));
	a->n_wls--;
}

/* ---- the policy engine's entries ------------------------------------------------------ */

static bool on_smc(const struct wl *w)
{
	return w->w.state == AUTO_TRIAL || w->w.state == AUTO_SMC ||
	       (w->w.state == AUTO_FROZEN &&
		(w->w.before_freeze == AUTO_TRIAL || w->w.before_freeze == AUTO_SMC));
}

/*
 * Its port is excluded: the rules set excluded only where the kernel had smc_hs_ctrl.  Not
 * asked of the probe again: at the start the entries are handed over before the first
 * reconcile, and the probe comes after it (autopilot_probe()); an exclusion missing from
 * that reconcile would be pruned, and its clients would pay the handshake until the next
 * window.
 */
static bool excluded(const struct wl *w)
{
	enum auto_state s = w->w.state == AUTO_FROZEN ? w->w.before_freeze : w->w.state;

	return w->w.port && s == AUTO_TCP && w->w.excluded;
}

static void cg_add(struct policy_auto *pa, const char *path, uint32_t snd, uint32_t rcv)
{
	for (size_t i = 0; i < pa->n_cgroups; i++)
		if (streq(pa->cgroups[i].path, path))
			return;
	if (pa->n_cgroups == POLICY_AUTO_MAX)
		return;
	snprintf(pa->cgroups[pa->n_cgroups].path, sizeof(pa->cgroups[0].path), "%s", path);
	pa->cgroups[pa->n_cgroups].sndbuf = snd;
	pa->cgroups[pa->n_cgroups].rcvbuf = rcv;
	pa->n_cgroups++;
}

/* Hand the engine what mode on wants now (nothing in the other modes). */
static void hand_over(struct autopilot *a)
{
	struct policy_auto pa = {};

	if (a->mode == AUTO_MODE_ON)
		for (size_t i = 0; i < a->n_wls; i++) {
			struct wl *w = &a->wls[i];

			if (on_smc(w)) {
				cg_add(&pa, w->w.cgroup, w->w.sndbuf, w->w.rcvbuf);
				for (size_t k = 0; k < w->n_clients; k++)
					cg_add(&pa, w->clients[k], w->w.sndbuf, w->w.rcvbuf);
			}
			if (excluded(w) && pa.n_ports < POLICY_AUTO_MAX)
				pa.ports[pa.n_ports++] = w->w.port;
		}
	policy_engine_set_auto(a->m->policy, &pa);
}

/* ---- the state file ------------------------------------------------------------------- */

static void autopilot_save(struct autopilot *a)
{
	_cleanup_(json_object_putp) json_object *doc = json_object_new_object();
	json_object *arr = json_object_new_array();
	_cleanup_(freep) char *tmp = NULL;
	const char *text;
	int fd, r = 0;

	if (!doc || !arr) {
		json_object_put(arr);
		log_warning("Autopilot: out of memory; its table is not saved");
		return;
	}
	json_object_object_add(doc, "version", json_object_new_int(1));
	json_object_object_add(doc, "workloads", arr);
	for (size_t i = 0; i < a->n_wls; i++) {
		json_object *o = auto_workload_json(&a->wls[i].w, true), *cl;

		if (!o)
			continue;
		cl = json_object_new_array();
		for (size_t k = 0; cl && k < a->wls[i].n_clients; k++)
			json_object_array_add(cl, json_object_new_string(a->wls[i].clients[k]));
		json_object_object_add(o, "clients", cl);
		json_object_array_add(arr, o);
	}
	text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN);
	if (!a->path || asprintf(&tmp, "%s.XXXXXX", a->path) < 0) {
		log_warning("Autopilot: out of memory; its table is not saved");
		return;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		log_warning_errno(errno, "Autopilot: cannot write %s: %m; a restart starts over",
				  a->path);
		return;
	}
	if (fd_write_all(fd, text, strlen(text)) < 0 || fsync(fd) < 0)
		r = -errno;
	close(fd);
	if (r == 0 && rename(tmp, a->path) < 0)
		r = -errno;
	if (r < 0) {
		(void)unlink(tmp);
		log_warning_errno(r, "Autopilot: cannot write %s: %m; a restart starts over",
				  a->path);
	}
}

static bool cgroup_exists(struct autopilot *a, const char *cgroup)
{
	struct kernel *k = a->m->kernel;
	char root[256], path[512];
	struct stat st;

	/* No cgroup2 tree known (a recorded kernel): nothing is taken for gone. */
	if (!k || !k->ops->cgroup_root || k->ops->cgroup_root(k, root, sizeof(root)) < 0)
		return true;
	snprintf(path, sizeof(path), "%s%s", root, cgroup);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Read the table back: a file from disk is data; anything wrong and it starts empty. */
static void load(struct autopilot *a)
{
	_cleanup_(freep) char *text = NULL;
	_cleanup_(json_object_putp) json_object *doc = NULL;
	json_object *arr, *v;
	char why[256] = "";
	size_t len = 0, dropped = 0;
	int fd, r;

	fd = open(a->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		if (errno != ENOENT)
			log_warning_errno(errno, "Autopilot: cannot read %s: %m; starting over",
					  a->path);
		return;
	}
	r = fd_read_small(fd, STATE_FILE_MAX, &text, &len);
	close(fd);
	if (r < 0) {
		log_warning_errno(r, "Autopilot: cannot read %s: %m; starting over", a->path);
		return;
	}
	doc = json_tokener_parse(text);
	if (!doc || !json_object_object_get_ex(doc, "workloads", &arr) ||
	    !json_object_is_type(arr, json_type_array)) {
		log_warning("Autopilot: %s is not a table of workloads; starting over", a->path);
		return;
	}
	for (size_t i = 0; i < json_object_array_length(arr) && a->n_wls < AUTO_WORKLOADS_MAX; i++) {
		struct auto_workload w;
		struct acc c = {};
		struct wl *n;

		if (auto_workload_from_json(json_object_array_get_idx(arr, i), &w, why,
					    sizeof(why)) < 0) {
			log_warning("Autopilot: %s: workload %zu: %s; starting over", a->path, i,
				    why);
			a->n_wls = 0;
			return;
		}
		if (!cgroup_exists(a, w.cgroup)) {
			dropped++;
			continue;
		}
		snprintf(c.cgroup, sizeof(c.cgroup), "%s", w.cgroup);
		n = wl_add(a, &c);
		if (!n)
			break;
		n->w = w;
		if (json_object_object_get_ex(json_object_array_get_idx(arr, i), "clients", &v) &&
		    json_object_is_type(v, json_type_array))
			for (size_t k = 0; k < json_object_array_length(v) && k < CLIENTS_MAX; k++) {
				const char *s =
					json_object_get_string(json_object_array_get_idx(v, k));

				if (s && s[0] == '/' && !strstr(s, "/..") &&
				    strlen(s) < sizeof(n->clients[0]))
					snprintf(n->clients[n->n_clients++], sizeof(n->clients[0]),
						 "%s", s);
			}
	}
	log_info("Autopilot: %zu workloads read back from %s (%zu dropped: their cgroup is "
		 "gone)",
		 a->n_wls, a->path, dropped);
}

/* ---- configuration -------------------------------------------------------------------- */

static void autopilot_free(struct autopilot *a)
{
	if (!a)
		return;
	free(a->wls);
	free(a->accs);
	free(a->prev);
	free(a->next);
	free(a->path);
	free(a);
}

void autopilot_stop(struct manager *m)
{
	autopilot_free(m->autopilot);
	m->autopilot = NULL;
}

void autopilot_configure(struct manager *m, autopilot_reconcile_fn apply)
{
	const struct config *c = m->config;
	struct autopilot *a = m->autopilot;

	if (c->autopilot.mode == AUTO_MODE_OFF) {
		if (a) {
			log_info("Autopilot: off; its %zu workloads are forgotten and what it "
				 "switched goes back",
				 a->n_wls);
			if (a->path)
				(void)unlink(a->path);
		}
		autopilot_stop(m);
		policy_engine_set_auto(m->policy, &(struct policy_auto){});
		autopilot_announce(m);
		return;
	}
	if (!a) {
		a = calloc(1, sizeof(*a));
		if (!a || !(a->prev = calloc(OPEN_MAX, sizeof(*a->prev))) ||
		    !(a->next = calloc(OPEN_MAX, sizeof(*a->next)))) {
			autopilot_free(a);
			log_warning("Autopilot: out of memory; it stays off");
			return;
		}
		a->m = m;
		m->autopilot = a;
		auto_params_default(&a->p);
		if (agent_state_path(AUTOPILOT_STATE_NAME, &a->path) < 0)
			a->path = NULL;
		else
			load(a);
	}
	a->mode = c->autopilot.mode;
	a->p.observing = a->mode == AUTO_MODE_OBSERVE;
	a->reconcile_now = apply;
	hand_over(a);
	log_info("Autopilot: %s (window %" PRIu64 " s, budget %" PRIu64 " bytes)",
		 mode_names[a->mode], (uint64_t)(config_assess_window_usec(m->config) / USEC_PER_SEC),
		 c->autopilot.budget_bytes);
	autopilot_announce(m);
}

void autopilot_probe(struct manager *m)
{
	struct autopilot *a = m->autopilot;
	struct policy_hooks h;

	if (!a)
		return;
	policy_engine_probe(m->policy);
	policy_hooks(m->policy, &h);
	a->p.can_switch = h.select;
	a->p.hs_ctrl = h.exclude;
	a->why[0] = 0;
	if (a->mode == AUTO_MODE_ON && !h.select)
		snprintf(a->why, sizeof(a->why),
			 "it decides but cannot switch sockets to SMC on this kernel: %s",
			 h.select_why ?: "no update_socket_protocol");
	autopilot_announce(m);
}

/* ---- windows -------------------------------------------------------------------------- */

static int moved_cmp(const void *x, const void *y)
{
	const struct moved *p = x, *q = y;

	return p->id < q->id ? -1 : p->id > q->id;
}

static const struct moved *moved_find(const struct autopilot *a, uint64_t id)
{
	struct moved key = { .id = id };

	return a->n_prev ? bsearch(&key, a->prev, a->n_prev, sizeof(key), moved_cmp) : NULL;
}

/* The label a workload is shown by: its container, unit, or cgroup (as the assessment). */
static void label_of(const struct assess_conn *c, char *buf, size_t len)
{
	char unit[AUTO_NAME_LEN], user_unit[AUTO_NAME_LEN];

	cgroup_units(c->cgroup, unit, sizeof(unit), user_unit, sizeof(user_unit));
	snprintf(buf, len, "%s",
		 c->container[0] ? c->container
		 : user_unit[0]	 ? user_unit
		 : unit[0]	 ? unit
				 : c->cgroup);
}

static struct acc *acc_of(struct autopilot *a, const struct assess_conn *c, uint16_t port)
{
	struct acc *x;

	for (size_t i = 0; i < a->n_accs; i++)
		if (a->accs[i].port == port && streq(a->accs[i].cgroup, c->cgroup))
			return &a->accs[i];
	if (a->n_accs == AUTO_WORKLOADS_MAX)
		return NULL;
	if (a->n_accs == a->cap_accs) {
		size_t cap = a->cap_accs ? a->cap_accs * 2 : 16;
		struct acc *nv = realloc(a->accs, cap * sizeof(*nv));

		if (!nv)
			return NULL;
		a->accs = nv;
		a->cap_accs = cap;
	}
	x = &a->accs[a->n_accs++];
	*x = (struct acc){ .port = port, .netns = c->netns_cookie };
	snprintf(x->cgroup, sizeof(x->cgroup), "%s", c->cgroup);
	label_of(c, x->name, sizeof(x->name));
	return x;
}

static void client_add(struct acc *x, const char *cgroup)
{
	if (!cgroup[0] || streq(cgroup, x->cgroup))
		return;
	for (size_t i = 0; i < x->n_clients; i++)
		if (streq(x->clients[i], cgroup))
			return;
	if (x->n_clients < CLIENTS_MAX)
		snprintf(x->clients[x->n_clients++], sizeof(x->clients[0]), "%s", cgroup);
}

/* What the connection moved in this window: since the last window's end if it was open
 * then. */
static void window_share(struct autopilot *a, const struct assess_conn *c, uint64_t *bytes,
			 uint64_t *sends, uint64_t hist[ASSESS_BUCKETS])
{
	const struct moved *p = moved_find(a, c->id);
	uint64_t b = c->bytes_sent + c->bytes_received;

	*bytes = b;
	*sends = c->sends;
	memcpy(hist, c->hist, sizeof(c->hist));
	if (p && b >= p->bytes && c->sends >= p->sends) {
		*bytes = b - p->bytes;
		*sends = c->sends - p->sends;
		for (unsigned k = 0; k < ASSESS_BUCKETS; k++)
			hist[k] = c->hist[k] >= p->hist[k] ? c->hist[k] - p->hist[k] : c->hist[k];
	}
	if (c->open && a->n_next < OPEN_MAX) {
		struct moved *n = &a->next[a->n_next++];

		n->id = c->id;
		n->bytes = b;
		n->sends = c->sends;
		memcpy(n->hist, c->hist, sizeof(n->hist));
	}
}

void autopilot_batch(struct manager *m, const struct assess_conn *v, size_t n)
{
	struct autopilot *a = m->autopilot;

	if (!a)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct assess_conn *c = &v[i];
		uint64_t bytes, sends, hist[ASSESS_BUCKETS];
		struct auto_window *w;
		struct acc *x;

		if (!c->cgroup[0])
			continue; /* nothing to act on */
		if (!c->passive && c->pair >= 0) {
			/*
			 * A local client of a server seen here: noted with it, counted there;
			 * only its send sizes are added, for the buffers (a bulk client's
			 * sends are what its server's receive buffer must hold).
			 */
			const struct assess_conn *s = &v[c->pair];

			if (s->cgroup[0] && (x = acc_of(a, s, s->lport))) {
				client_add(x, c->cgroup);
				window_share(a, c, &bytes, &sends, hist);
				for (unsigned k = 0; k < ASSESS_BUCKETS; k++)
					x->w.hist[k] += hist[k];
			}
			continue;
		}
		if (!c->passive && c->reach == ASSESS_REACH_SMCD)
			continue; /* its server end is counted (in another batch) */
		x = acc_of(a, c, c->passive ? c->lport : c->rport);
		if (!x) {
			a->untracked++;
			continue;
		}
		w = &x->w;
		window_share(a, c, &bytes, &sends, hist);
		w->conns++;
		if (c->cls == ASSESS_NOT_SUITED) {
			if (!c->open && c->lifetime_ns < a->p.th.short_ns)
				w->conns_short++;
			else
				w->conns_tiny++;
		}
		w->conns_unreach += c->reach == ASSESS_REACH_NONE;
		w->conns_failed += c->cls == ASSESS_FAILED;
		if (c->open)
			w->conns_open++;
		else {
			w->closed++;
			w->lifetime_ns += c->lifetime_ns;
		}
		w->bytes += bytes;
		w->sends += sends;
		for (unsigned k = 0; k < ASSESS_BUCKETS; k++)
			w->hist[k] += hist[k];
		/* carried by SMC: seen at either end (the tracing names the socket that sent) */
		x->smc += c->smc || (c->pair >= 0 && v[c->pair].smc);
	}
}

void autopilot_fallback(struct manager *m, const char *cgroup, uint16_t lport, uint16_t rport,
			bool server, uint32_t reason)
{
	struct autopilot *a = m->autopilot;
	uint16_t port = server ? lport : rport;

	if (!a || !cgroup || !cgroup[0])
		return;
	for (size_t i = 0; i < a->n_accs; i++) {
		struct acc *x = &a->accs[i];
		bool client = false;

		for (size_t k = 0; k < x->n_clients && !client; k++)
			client = streq(x->clients[k], cgroup);
		if (x->port == port && (streq(x->cgroup, cgroup) || client)) {
			x->w.fallbacks++;
			/* SMC_CLC_DECL_ERR_*: the handshake failed, not a choice */
			x->w.handshake_errors += (reason & 0xffff0000u) == 0x09990000u;
			return;
		}
	}
}

/* Is the workload covered by smc.yaml itself (policies, exclusions, auto.exclude-ports)? */
static const char *admin_of(const struct config *c, const struct wl *w, char *buf, size_t len)
{
	const struct config_policies *p = &c->policies;

	for (size_t i = 0; i < p->n_cgroups; i++) {
		size_t l = strlen(p->cgroups[i].path);

		if (streq(p->cgroups[i].path, "/") ||
		    (!strncmp(w->w.cgroup, p->cgroups[i].path, l) &&
		     (w->w.cgroup[l] == 0 || w->w.cgroup[l] == '/'))) {
			snprintf(buf, len, "smc.yaml's policies.cgroups lists %s",
				 p->cgroups[i].path);
			return buf;
		}
	}
	for (size_t i = 0; i < p->n_exclude && w->w.port; i++)
		if (p->exclude[i].port == w->w.port) {
			snprintf(buf, len, "smc.yaml's policies.exclude lists %s",
				 p->exclude[i].text);
			return buf;
		}
	for (size_t i = 0; i < c->autopilot.n_exclude_ports && w->w.port; i++)
		if (c->autopilot.exclude_ports[i] == w->w.port) {
			snprintf(buf, len, "smc.yaml's auto.exclude-ports lists port %u", w->w.port);
			return buf;
		}
	return NULL;
}

static const char *action_would(enum auto_action act)
{
	return act == AUTO_ACT_NONE ? NULL : auto_action_name(act);
}

static void journal(struct autopilot *a, const struct wl *w, const struct auto_change *ch)
{
	char f_wl[AUTO_NAME_LEN + 16], f_state[48], f_action[48];

	snprintf(f_wl, sizeof(f_wl), "SMC_WORKLOAD=%s", w->w.name);
	snprintf(f_state, sizeof(f_state), "SMC_AUTO_STATE=%s", auto_state_name(ch->to));
	snprintf(f_action, sizeof(f_action), "SMC_AUTO_ACTION=%s", auto_action_name(ch->action));
	log_fields(LOG_NOTICE, 0,
		   (const char *const[]){ ch->rollback ? "MESSAGE_ID=" SMCD_MESSAGE_AUTO_ROLLBACK
						       : "MESSAGE_ID=" SMCD_MESSAGE_AUTO_DECISION,
					  f_wl, f_state, f_action, NULL },
		   "Autopilot%s: %s (port %u): %s -> %s%s: %s",
		   a->mode == AUTO_MODE_OBSERVE ? " (observe: nothing changed)" : "", w->w.name,
		   w->w.port, auto_state_name(ch->from), auto_state_name(ch->to),
		   ch->rollback ? " (rolled back)" : "", ch->why);
	if (a->m->bus)
		(void)sd_bus_emit_signal(a->m->bus, SMCD_BUS_PATH, SMCD_BUS_IFACE_AUTOPILOT,
					 SMCD_BUS_AUTO_DECISION, "ssssb", w->w.name,
					 auto_state_name(ch->from), auto_state_name(ch->to),
					 ch->why, (int)ch->rollback);
}

/* A workload's window: its accumulator, or an empty one (nothing seen: it is quiet). */
static void step_one(struct autopilot *a, struct wl *w, const struct acc *x, uint64_t number,
		     double seconds, uint64_t now, bool *changed)
{
	const struct config *c = a->m->config;
	struct auto_window win = {};
	struct auto_change ch = {};
	char why[AUTO_WHY_LEN], unit[AUTO_NAME_LEN], user_unit[AUTO_NAME_LEN];

	if (x) {
		if (x->netns)
			w->w.netns_cookie = x->netns;
		win = x->w;
		win.carrier = x->smc * 2 > x->w.conns ? AUTO_CARRIER_SMC : AUTO_CARRIER_TCP;
		for (size_t k = 0; k < x->n_clients; k++) {
			bool seen = false;

			for (size_t j = 0; j < w->n_clients && !seen; j++)
				seen = streq(w->clients[j], x->clients[k]);
			if (!seen && w->n_clients < CLIENTS_MAX)
				snprintf(w->clients[w->n_clients++], sizeof(w->clients[0]), "%s",
					 x->clients[k]);
		}
	}
	win.number = number;
	win.seconds = seconds;
	if (admin_of(c, w, why, sizeof(why))) {
		if (w->w.state != AUTO_ADMIN) {
			ch = (struct auto_change){ .from = w->w.state, .to = AUTO_ADMIN };
			snprintf(ch.why, sizeof(ch.why), "%.200s: the autopilot leaves it", why);
			w->w.state = AUTO_ADMIN;
			w->w.since_usec = now;
			w->w.since_window = number;
			snprintf(w->w.why, sizeof(w->w.why), "%s", ch.why);
			journal(a, w, &ch);
			a->decisions++;
			*changed = true;
		}
	} else if (w->w.state == AUTO_ADMIN) {
		w->w.state = AUTO_UNDECIDED;
		snprintf(w->w.why, sizeof(w->w.why), "smc.yaml no longer covers it");
		*changed = true;
	} else if (cgroup_units(w->w.cgroup, unit, sizeof(unit), user_unit, sizeof(user_unit)),
		   !config_auto_in_scope(c, w->w.cgroup, unit[0] ? unit : NULL, w->w.netns_cookie,
					 a->scope_netns)) {
		snprintf(w->w.why, sizeof(w->w.why), "outside auto.scope: observed, never switched");
		if (w->w.state != AUTO_UNDECIDED && w->w.state != AUTO_FROZEN) {
			w->w.state = AUTO_UNDECIDED;
			*changed = true;
		}
		return;
	}
	auto_step(&w->w, &win, now, &a->p, &ch);
	if (ch.from != ch.to || ch.action != AUTO_ACT_NONE) {
		if (ch.from != ch.to)
			a->decisions++;
		a->rollbacks += ch.rollback;
		w->would = a->mode == AUTO_MODE_OBSERVE ? action_would(ch.action) : NULL;
		journal(a, w, &ch);
		*changed = true;
	}
}

/*
 * auto.scope.netns by its paths, found again at every window as the policy engine finds
 * policies.netns: one created since is in scope from now, one gone is forgotten, and no
 * reference is held.  One not found matches nothing; said at debug level when that changes.
 */
static void scope_netns_find(struct autopilot *a)
{
	const struct config *c = a->m->config;

	for (size_t i = 0; i < c->autopilot.scope.n_netns && i < AUTO_SCOPE_MAX; i++) {
		const char *path = c->autopilot.scope.netns[i];
		uint64_t cookie = 0;
		int r = SMCBPF_OR(smcbpf_netns_cookie(path, &cookie), -ENOTSUP);

		if (r < 0)
			cookie = 0;
		if (r < 0 && r != a->scope_netns_err[i])
			log_fields(LOG_DEBUG, r, NULL,
				   "Autopilot: auto.scope.netns %s: %m; it matches no workload",
				   path);
		else if (r >= 0 && cookie != a->scope_netns[i])
			log_debug("Autopilot: auto.scope.netns %s is the namespace of cookie %" PRIu64,
				  path, cookie);
		a->scope_netns[i] = cookie;
		a->scope_netns_err[i] = r < 0 ? r : 0;
	}
}

void autopilot_window_end(struct manager *m, uint64_t number, double seconds)
{
	struct autopilot *a = m->autopilot;
	uint64_t now = now_usec(CLOCK_REALTIME), held;
	bool changed = false;
	struct auto_workload *v;

	if (!a)
		return;
	a->windows++;
	scope_netns_find(a);
	/* New workloads first, then one step each (a quiet one gets an empty window). */
	for (size_t i = 0; i < a->n_accs; i++)
		if (!wl_find(a, a->accs[i].cgroup, a->accs[i].port) && a->accs[i].w.conns &&
		    !wl_add(a, &a->accs[i]))
			a->untracked++;
	for (size_t i = 0; i < a->n_wls; i++) {
		struct wl *w = &a->wls[i];
		const struct acc *x = NULL;

		for (size_t k = 0; k < a->n_accs && !x; k++)
			if (a->accs[k].port == w->w.port && streq(a->accs[k].cgroup, w->w.cgroup))
				x = &a->accs[k];
		step_one(a, w, x, number, seconds, now, &changed);
	}
	/* Dropped when the workload goes: its cgroup is gone. */
	for (size_t i = a->n_wls; i-- > 0;)
		if (!cgroup_exists(a, a->wls[i].w.cgroup)) {
			log_info("Autopilot: %s is gone (its cgroup %s was removed); forgotten",
				 a->wls[i].w.name, a->wls[i].w.cgroup);
			wl_remove(a, &a->wls[i]);
			changed = true;
		}
	/* Buffers within the budget, over the workloads on SMC. */
	v = calloc(a->n_wls ?: 1, sizeof(*v));
	if (v) {
		size_t n = 0;
		bool *ch = calloc(a->n_wls ?: 1, sizeof(*ch));

		for (size_t i = 0; i < a->n_wls; i++)
			if (on_smc(&a->wls[i]))
				v[n++] = a->wls[i].w;
		held = auto_size_buffers(v, n, m->config->autopilot.budget_bytes, ch);
		for (size_t i = 0, j = 0; i < a->n_wls && j < n; i++)
			if (on_smc(&a->wls[i])) {
				if (ch && ch[j])
					changed = true;
				a->wls[i].w.sndbuf = v[j].sndbuf;
				a->wls[i].w.rcvbuf = v[j].rcvbuf;
				j++;
			}
		a->buffer_bytes = held;
		free(ch);
		free(v);
	}
	/* The next window's accumulators and the connections it continues. */
	a->n_accs = 0;
	qsort(a->next, a->n_next, sizeof(*a->next), moved_cmp);
	{
		struct moved *t = a->prev;

		a->prev = a->next;
		a->next = t;
	}
	a->n_prev = a->n_next;
	a->n_next = 0;
	if (changed) {
		hand_over(a);
		if (a->mode == AUTO_MODE_ON)
			(void)a->reconcile_now(m);
		autopilot_save(a);
	}
	autopilot_announce(m);
}

/* ---- the bus's calls ------------------------------------------------------------------ */

json_object *autopilot_json(const struct manager *m, const char *name, int *ret_err)
{
	const struct autopilot *a = m->autopilot;
	json_object *doc, *arr;

	*ret_err = 0;
	if (name) {
		struct wl *w = a ? wl_lookup((struct autopilot *)a, name) : NULL;
		json_object *o, *cl;

		if (!w) {
			*ret_err = -ENOENT;
			return NULL;
		}
		o = auto_workload_json(&w->w, true);
		cl = json_object_new_array();
		if (!o || !cl) {
			json_object_put(o);
			json_object_put(cl);
			*ret_err = -ENOMEM;
			return NULL;
		}
		for (size_t k = 0; k < w->n_clients; k++)
			json_object_array_add(cl, json_object_new_string(w->clients[k]));
		json_object_object_add(o, "clients", cl);
		json_object_object_add(o, "would",
				       w->would ? json_object_new_string(w->would) : NULL);
		return o;
	}
	doc = json_object_new_object();
	arr = json_object_new_array();
	if (!doc || !arr) {
		json_object_put(doc);
		json_object_put(arr);
		*ret_err = -ENOMEM;
		return NULL;
	}
	json_object_object_add(doc, "mode", json_object_new_string(autopilot_mode_name(m)));
	/* "error" is the bus object's to add: it knows the assessment's reason too */
	json_object_object_add(doc, "window_usec",
			       json_object_new_uint64(config_assess_window_usec(m->config)));
	json_object_object_add(doc, "windows", json_object_new_uint64(a ? a->windows : 0));
	json_object_object_add(doc, "budget_bytes",
			       json_object_new_uint64(m->config->autopilot.budget_bytes));
	json_object_object_add(doc, "buffer_bytes", json_object_new_uint64(a ? a->buffer_bytes : 0));
	json_object_object_add(doc, "untracked", json_object_new_uint64(a ? a->untracked : 0));
	{
		json_object *k = json_object_new_object();

		json_object_object_add(k, "can_switch",
				       json_object_new_boolean(a && a->p.can_switch));
		json_object_object_add(k, "can_exclude", json_object_new_boolean(a && a->p.hs_ctrl));
		json_object_object_add(doc, "kernel", k);
	}
	for (size_t i = 0; a && i < a->n_wls; i++) {
		json_object *o = auto_workload_json(&a->wls[i].w, false);

		if (!o)
			continue;
		json_object_object_add(
			o, "would", a->wls[i].would ? json_object_new_string(a->wls[i].would) : NULL);
		json_object_array_add(arr, o);
	}
	json_object_object_add(doc, "workloads", arr);
	return doc;
}

int autopilot_freeze(struct manager *m, const char *name, bool freeze)
{
	struct autopilot *a = m->autopilot;
	struct wl *w = a ? wl_lookup(a, name) : NULL;
	int r;

	if (!w)
		return -ENOENT;
	r = auto_freeze(&w->w, freeze, now_usec(CLOCK_REALTIME));
	if (r < 0)
		return r;
	log_fields(LOG_NOTICE, 0,
		   (const char *const[]){ "MESSAGE_ID=" SMCD_MESSAGE_AUTO_DECISION, NULL },
		   "Autopilot: %s %s by the operator; it stays %s", w->w.name,
		   freeze ? "frozen" : "thawed",
		   auto_state_name(freeze ? w->w.before_freeze : w->w.state));
	autopilot_save(a);
	autopilot_announce(m);
	return 0;
}

int autopilot_forget(struct manager *m, const char *name)
{
	struct autopilot *a = m->autopilot;
	struct wl *w = a ? wl_lookup(a, name) : NULL;
	bool acted;

	if (!w)
		return -ENOENT;
	acted = on_smc(w) || excluded(w);
	log_notice("Autopilot: %s forgotten by the operator%s", w->w.name,
		   acted && a->mode == AUTO_MODE_ON ? "; what it switched goes back" : "");
	wl_remove(a, w);
	hand_over(a);
	if (acted && a->mode == AUTO_MODE_ON)
		(void)a->reconcile_now(m);
	autopilot_save(a);
	autopilot_announce(m);
	return 0;
}
