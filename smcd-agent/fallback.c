// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fallback attribution, the agent's side: see fallback.h.  The program's records arrive in
 * a ring buffer whose epoll fd is one more source of the manager's sd-event loop; each
 * record is resolved here, announced, and counted.
 *
 * Records are resolved in batches: every record one wake-up of the ring buffer brings (up
 * to BATCH_MAX) is resolved with at most one walk of the cgroup2 mount and one walk of
 * /proc, and each kind of walk runs at most every WALK_MIN_USEC (100 ms).  A batch that
 * needs a walk sooner waits for it (at most 100 ms, on a timer) instead of being
 * attributed "unknown": a fallback storm costs ten walks of each kind a second, never one
 * per record, and a cgroup created just after the last walk is still found.  A full batch
 * is resolved at once.
 *
 * cgroup id to path: a cgroup v2 id is the kernfs id of its directory (the file handle
 * name_to_handle_at() gives, cgroup_id_of()).  Resolved by a walk of the cgroup2 mount
 * that caches every id it passes, repeated when a batch has an id it does not know; an id
 * that a walk started after its record arrived did not find is gone for good (ids are
 * never reused) and is remembered as such (the last NEGATIVE_CACHE of them), so it costs
 * no further walk; not by open_by_handle_at(), which needs CAP_DAC_READ_SEARCH (not in
 * smcd-agent.service's bounding set) and would cost a syscall pair per record.  A cgroup
 * removed before the walk saw it is "unknown".
 *
 * Process: the record's pid and command when the switch ran in a process; when it ran in a
 * kworker (always on the server side), the holder of the socket inode the record names
 * (the listening socket there) from /proc (common/owner.c): one walk for every inode of
 * the batch, the answers cached for 10 s per inode (OWNER_CACHE of them), so that a storm
 * of server-side fallbacks on a few listeners costs no walk at all.
 *
 * Signals: at most FALLBACK_SIGNALS_PER_SEC FallbackAttributed signals a second; the
 * others are counted (Prometheus smc_fallback_attribution_unsignalled_total), never lost
 * from the table.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/bus-api.h"
#include "common/clock.h"
#include "common/container-ident.h"
#include "common/macro.h"
#include "common/output.h"
#include "common/owner.h"
#include "common/util.h"
#include "netlink/smcnl.h"
#include "smcd-agent/bus-snapshot.h"
#include "smcd-agent/autopilot.h"
#include "smcd-agent/fallback.h"
#include "smcd-agent/log.h"
#include "smcd-agent/manager.h"
#ifdef HAVE_BPF
#include "bpf/smcbpf.h"
#endif

#define FALLBACK_SIGNALS_PER_SEC 100
#define CGROUP_WALK_MAX 65536
#define CGROUP_WALK_DEPTH 32
#define WALK_MIN_USEC 100000ULL
#define NEGATIVE_CACHE 64
#define OWNER_CACHE 64
#define BATCH_MAX 1024
#define OWNER_TTL_USEC (10 * USEC_PER_SEC)
#define RETRY_USEC (5 * USEC_PER_SEC)

struct cg_entry {
	uint64_t id;
	char *path; /* relative to the mount, "/system.slice/x.service" */
};

struct owner_entry {
	uint64_t ino;
	uint64_t mono_usec; /* 0: unused */
	uint32_t pid;
	char comm[17];
};

#ifdef HAVE_BPF
struct pending {
	struct smcbpf_fallback_event rec;
	uint64_t arrived; /* CLOCK_MONOTONIC when the record was read */
	uint64_t real;	  /* CLOCK_REALTIME, the time the signal carries */
};
#endif

struct fallback {
	struct fbattr table;
	char why[FBATTR_WHY_LEN]; /* "" while working */
	int err;
	uint64_t retry_mono_usec;
	bool tried_with_smc; /* /sys/module/smc existed at the last try */
#ifdef HAVE_BPF
	struct smcbpf_fallback *bpf;
#endif
	sd_event_source *src;
	struct manager *m;
	char cgroot[PATH_MAX];
	struct cg_entry *cgs;
	size_t n_cgs;
	uint64_t walk_mono_usec;
	uint64_t gone[NEGATIVE_CACHE]; /* ids a walk after their record did not find */
	size_t n_gone;
	struct owner_entry owners[OWNER_CACHE];
	uint64_t proc_walk_mono_usec;
#ifdef HAVE_BPF
	struct pending batch[BATCH_MAX];
	size_t n_batch;
#endif
	sd_event_source *defer; /* armed while a batch waits for a walk */
	uint64_t window_mono_usec;
	unsigned window_signals;
	uint64_t unsignalled;
};

static uint64_t mono_usec(void)
{
	return now_usec(CLOCK_MONOTONIC);
}

static uint64_t real_usec(void)
{
	return now_usec(CLOCK_REALTIME);
}

const char *fallback_error(const struct manager *m)
{
	if (!m->fallback)
		return "fallback attribution is not set up";
	return m->fallback->why[0] ? m->fallback->why : NULL;
}

const struct fbattr *fallback_table(const struct manager *m)
{
	static const struct fbattr empty;

	return m->fallback ? &m->fallback->table : &empty;
}

void fallback_losses(const struct manager *m, uint64_t *ret_lost, uint64_t *ret_unsignalled)
{
	uint64_t seen = 0, lost = 0;

#ifdef HAVE_BPF
	if (m->fallback && m->fallback->bpf)
		smcbpf_fallback_counts(m->fallback->bpf, &seen, &lost);
#endif
	(void)seen;
	*ret_lost = lost;
	*ret_unsignalled = m->fallback ? m->fallback->unsignalled : 0;
}

static json_object *unit_json(const char *unit, uint64_t count)
{
	json_object *o = json_object_new_object();

	if (o && (json_add_str(o, "unit", unit) < 0 || json_add_u64(o, "count", count) < 0)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

json_object *fallback_json(const struct manager *m)
{
	const struct fbattr *a = fallback_table(m);
	const char *why = fallback_error(m);
	json_object *o = json_object_new_object(), *reasons = json_object_new_array();
	uint64_t lost, unsignalled;

	if (!o || !reasons)
		goto oom;
	fallback_losses(m, &lost, &unsignalled);
	if (json_add_bool(o, "available", !why) < 0 ||
	    (why ? json_add_str(o, "error", why) : json_add_null(o, "error")) < 0 ||
	    json_add_u64(o, "events", a->events) < 0 || json_add_u64(o, "lost", lost) < 0 ||
	    json_add_u64(o, "other_reasons", a->other_reasons) < 0 ||
	    json_add_u64(o, "units_per_reason", FBATTR_TOP_UNITS) < 0)
		goto oom;
	for (size_t i = 0; i < a->n_reasons; i++) {
		const struct fbattr_reason *r = &a->reasons[i];
		json_object *ro = json_object_new_object(), *units = json_object_new_array();
		struct fbattr_unit u[FBATTR_TOP_UNITS];
		size_t n = fbattr_units_sorted(r, u);

		if (!ro || !units || json_object_array_add(reasons, ro) < 0) {
			json_object_put(ro);
			json_object_put(units);
			goto oom;
		}
		if (json_add(ro, "units", units) < 0 || json_add_u64(ro, "code", r->code) < 0 ||
		    (smc_decline_name(r->code) ? json_add_str(ro, "name", smc_decline_name(r->code))
					       : json_add_null(ro, "name")) < 0 ||
		    json_add_u64(ro, "total", r->total) < 0)
			goto oom;
		for (size_t k = 0; k < n; k++)
			if (json_object_array_add(units, unit_json(u[k].unit, u[k].count)) < 0)
				goto oom;
		if (r->other && json_object_array_add(units, unit_json(FBATTR_OTHER, r->other)) < 0)
			goto oom;
	}
	if (json_add(o, "reasons", reasons) < 0) {
		reasons = NULL;
		goto oom;
	}
	return o;
oom:
	json_object_put(reasons);
	json_object_put(o);
	return NULL;
}

#ifdef HAVE_BPF
/* ---- cgroup ids --------------------------------------------------------------------------- */

static void cgs_clear(struct fallback *f)
{
	for (size_t i = 0; i < f->n_cgs; i++)
		free(f->cgs[i].path);
	free(f->cgs);
	f->cgs = NULL;
	f->n_cgs = 0;
}

static void walk(struct fallback *f, size_t *cap, const char *rel, unsigned depth)
{
	char full[PATH_MAX];
	struct dirent *d;
	uint64_t id;
	DIR *dir;

	if (f->n_cgs >= CGROUP_WALK_MAX)
		return;
	snprintf(full, sizeof(full), "%s%s", f->cgroot, rel);
	if (cgroup_id_of(full, &id) == 0) {
		if (f->n_cgs == *cap) {
			size_t n = *cap ? *cap * 2 : 256;
			struct cg_entry *v = realloc(f->cgs, n * sizeof(*v));

			if (!v)
				return;
			f->cgs = v;
			*cap = n;
		}
		f->cgs[f->n_cgs].id = id;
		f->cgs[f->n_cgs].path = strdup(rel[0] ? rel : "/");
		if (f->cgs[f->n_cgs].path)
			f->n_cgs++;
	}
	if (depth >= CGROUP_WALK_DEPTH || !(dir = opendir(full)))
		return;
	while ((d = readdir(dir))) {
		char sub[PATH_MAX];

		if (d->d_type != DT_DIR || d->d_name[0] == '.')
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", rel, d->d_name) >= (int)sizeof(sub))
			continue;
		walk(f, cap, sub, depth + 1);
	}
	closedir(dir);
}

static const char *cg_find(const struct fallback *f, uint64_t id)
{
	for (size_t i = 0; i < f->n_cgs; i++)
		if (f->cgs[i].id == id)
			return f->cgs[i].path;
	return NULL;
}

static bool cg_gone(const struct fallback *f, uint64_t id)
{
	for (size_t i = 0; i < f->n_gone && i < NEGATIVE_CACHE; i++)
		if (f->gone[i] == id)
			return true;
	return false;
}

/* Would this cgroup id take a walk: not known, not known to be gone? */
static bool cg_wants_walk(const struct fallback *f, uint64_t id)
{
	return id && f->cgroot[0] && !cg_find(f, id) && !cg_gone(f, id);
}

/* Walk the cgroup2 mount once; ids of the batch it did not find are gone for good. */
static void cg_walk(struct fallback *f, uint64_t start)
{
	size_t cap = 0;

	cgs_clear(f);
	walk(f, &cap, "", 0);
	f->walk_mono_usec = start;
	for (size_t i = 0; i < f->n_batch; i++) {
		const struct pending *p = &f->batch[i];

		if (cg_wants_walk(f, p->rec.cgroup_id) && start >= p->arrived)
			f->gone[f->n_gone++ % NEGATIVE_CACHE] = p->rec.cgroup_id;
	}
}

/* ---- socket holders ------------------------------------------------------------------------ */

static struct owner_entry *owner_cached(struct fallback *f, uint64_t ino, uint64_t now)
{
	for (size_t i = 0; i < OWNER_CACHE; i++) {
		struct owner_entry *e = &f->owners[i];

		if (e->mono_usec && e->ino == ino && now - e->mono_usec < OWNER_TTL_USEC)
			return e;
	}
	return NULL;
}

static bool owner_wanted(struct fallback *f, const struct smcbpf_fallback_event *rec, uint64_t now)
{
	return !rec->pid && rec->sock_ino && !owner_cached(f, rec->sock_ino, now);
}

/*
 * One /proc walk for every inode of the batch without a cached holder, into *o (the
 * batch's answers, for resolve(): more inodes than the cache holds are still resolved);
 * each answer (a holder, or none) also goes into the cache, the oldest entry making room.
 */
static void owners_walk(struct fallback *f, uint64_t now, struct sock_owners *o)
{
	_cleanup_(freep) uint64_t *inos = calloc(f->n_batch, sizeof(*inos));
	size_t n = 0;
	int r;

	f->proc_walk_mono_usec = now;
	if (!inos)
		return;
	for (size_t i = 0; i < f->n_batch; i++) {
		const struct smcbpf_fallback_event *rec = &f->batch[i].rec;
		bool dup = false;

		if (!owner_wanted(f, rec, now))
			continue;
		for (size_t k = 0; k < n && !dup; k++)
			dup = inos[k] == rec->sock_ino;
		if (!dup)
			inos[n++] = rec->sock_ino;
	}
	if (!n)
		return;
	r = sock_owners_scan("/proc", inos, n, o);
	if (r < 0) {
		log_debug("Cannot read the holders of %zu sockets from /proc: %s", n, strerror(-r));
		sock_owners_done(o);
		*o = (struct sock_owners){};
	}
	for (size_t k = 0; k < n; k++) {
		struct owner_entry *slot = &f->owners[0];
		const struct sock_proc *p;

		for (size_t i = 1; i < OWNER_CACHE; i++)
			if (f->owners[i].mono_usec < slot->mono_usec)
				slot = &f->owners[i];
		*slot = (struct owner_entry){ .ino = inos[k], .mono_usec = now };
		if (r == 0 && sock_owners_of(o, inos[k], &p) > 0) {
			slot->pid = (uint32_t)p->pid;
			snprintf(slot->comm, sizeof(slot->comm), "%s", p->comm);
		}
	}
}

/* ---- records ---------------------------------------------------------------------------- */

static void fallback_signal_emit(struct fallback *f, const struct fbattr_event *ev)
{
	struct manager *m = f->m;
	const char *name = smc_decline_name(ev->reason);
	char hex[16];
	uint64_t now = mono_usec();
	int r;

	if (!m->bus)
		return;
	if (now - f->window_mono_usec >= USEC_PER_SEC) {
		f->window_mono_usec = now;
		f->window_signals = 0;
	}
	if (f->window_signals >= FALLBACK_SIGNALS_PER_SEC) {
		f->unsignalled++;
		return;
	}
	f->window_signals++;
	if (!name) {
		snprintf(hex, sizeof(hex), "0x%08" PRIx32, ev->reason);
		name = hex;
	}
	r = bus_snapshot_emit_signal(
		m->bus, SMCD_BUS_PATH, SMCD_BUS_IFACE_STATS, SMCD_BUS_STATS_FALLBACK_ATTRIBUTED,
		"tusbubsssttqqs", ev->time_usec, ev->reason, name, ev->server, ev->pid,
		ev->pid_from_socket, ev->comm, ev->unit, ev->cgroup, ev->netns_cookie,
		ev->cgroup_id, ev->lport, ev->rport, ev->raddr);
	if (r < 0)
		log_debug("Cannot send FallbackAttributed: %s", strerror(-r));
}

/* o: this batch's /proc answers (may be empty). */
static void resolve(struct fallback *f, const struct pending *p, uint64_t now,
		    const struct sock_owners *o)
{
	const struct smcbpf_fallback_event *rec = &p->rec;
	struct fbattr_event ev = {
		.time_usec = p->real,
		.netns_cookie = rec->netns_cookie,
		.cgroup_id = rec->cgroup_id,
		.reason = (uint32_t)rec->reason,
		.server = rec->server,
		.pid = rec->pid,
		.lport = rec->lport,
		.rport = rec->rport,
	};
	char comm[SMCBPF_COMM_LEN + 1] = "", container[FBATTR_UNIT_LEN] = "";
	struct container_ident ci;
	const char *cg;

	if (rec->pid) {
		snprintf(comm, sizeof(comm), "%.*s", SMCBPF_COMM_LEN, rec->comm);
	} else if (rec->sock_ino) {
		const struct owner_entry *e = owner_cached(f, rec->sock_ino, now);
		const struct sock_proc *h;

		if (e) {
			ev.pid = e->pid;
			snprintf(comm, sizeof(comm), "%s", e->comm);
			ev.pid_from_socket = e->pid != 0;
		} else if (sock_owners_of(o, rec->sock_ino, &h) > 0) {
			ev.pid = (uint32_t)h->pid;
			snprintf(comm, sizeof(comm), "%s", h->comm);
			ev.pid_from_socket = true;
		}
	}
	name_sanitize(comm, ev.comm, sizeof(ev.comm));
	cg = rec->cgroup_id && f->cgroot[0] ? cg_find(f, rec->cgroup_id) : NULL;
	name_sanitize(cg, ev.cgroup, sizeof(ev.cgroup));
	/* the runtime's state is read as root, once per change of its file (cached) */
	if (cg && container_ident_of(cg, &ci) == 1)
		container_label(&ci, container, sizeof(container));
	fbattr_label(cg, container, ev.unit, sizeof(ev.unit));
	if (rec->family == SMCBPF_AF_INET || rec->family == SMCBPF_AF_INET6)
		(void)inet_ntop(rec->family == SMCBPF_AF_INET ? AF_INET : AF_INET6, rec->raddr,
				ev.raddr, sizeof(ev.raddr));
	fbattr_add(&f->table, ev.reason, ev.unit);
	autopilot_fallback(f->m, cg, rec->lport, rec->rport, rec->server, ev.reason);
	log_debug("Fallback to TCP (%s side, reason 0x%08" PRIx32 "): unit %s, pid %" PRIu32
		  " (%s), netns %" PRIu64,
		  ev.server ? "server" : "client", ev.reason, ev.unit, ev.pid, ev.comm,
		  ev.netns_cookie);
	fallback_signal_emit(f, &ev);
}

static int on_defer(sd_event_source *s, uint64_t usec, void *userdata);

/*
 * Resolve and count the batch: with the walks it needs, unless one ran less than
 * WALK_MIN_USEC ago; then (unless force) wait on a timer for the moment it may run.
 */
static void flush_batch(struct fallback *f, bool force)
{
	uint64_t now = mono_usec(), due = 0;
	bool want_cg = false, want_proc = false;
	struct sock_owners o = {};
	int r;

	if (!f->n_batch)
		return;
	for (size_t i = 0; i < f->n_batch; i++) {
		want_cg = want_cg || cg_wants_walk(f, f->batch[i].rec.cgroup_id);
		want_proc = want_proc || owner_wanted(f, &f->batch[i].rec, now);
	}
	if (want_cg && f->walk_mono_usec && now - f->walk_mono_usec < WALK_MIN_USEC)
		due = f->walk_mono_usec + WALK_MIN_USEC;
	if (want_proc && f->proc_walk_mono_usec && now - f->proc_walk_mono_usec < WALK_MIN_USEC &&
	    f->proc_walk_mono_usec + WALK_MIN_USEC > due)
		due = f->proc_walk_mono_usec + WALK_MIN_USEC;
	if (due && !force) {
		if (f->defer) {
			r = sd_event_source_set_time(f->defer, due);
			if (r >= 0)
				r = sd_event_source_set_enabled(f->defer, SD_EVENT_ONESHOT);
		} else {
			r = sd_event_add_time(f->m->event, &f->defer, CLOCK_MONOTONIC, due, 1000,
					      on_defer, f);
		}
		if (r >= 0)
			return;
		log_debug("Cannot wait for the next walk: %s", strerror(-r));
	}
	if (want_cg)
		cg_walk(f, now);
	if (want_proc)
		owners_walk(f, now, &o);
	for (size_t i = 0; i < f->n_batch; i++)
		resolve(f, &f->batch[i], now, &o);
	sock_owners_done(&o);
	f->n_batch = 0;
	if (f->defer)
		(void)sd_event_source_set_enabled(f->defer, SD_EVENT_OFF);
}

static int on_defer(sd_event_source *s, uint64_t usec, void *userdata)
{
	flush_batch(userdata, false);
	return 0;
}

static void on_record(const struct smcbpf_fallback_event *rec, void *arg)
{
	struct fallback *f = arg;

	if (f->n_batch == BATCH_MAX)
		flush_batch(f, true);
	f->batch[f->n_batch++] = (struct pending){
		.rec = *rec,
		.arrived = mono_usec(),
		.real = real_usec(),
	};
}

static int on_ring(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct fallback *f = userdata;

	(void)smcbpf_fallback_consume(f->bpf);
	flush_batch(f, false);
	return 0;
}

static void try_open(struct fallback *f)
{
	int r;

	r = smcbpf_fallback_open(on_record, f, &f->bpf, f->why, sizeof(f->why));
	f->err = r < 0 ? r : 0;
	f->retry_mono_usec = mono_usec();
	f->tried_with_smc = access("/sys/module/smc", F_OK) == 0;
	/* Before the first reconcile has loaded smc (modules: of smc.yaml) its tracepoint is
	 * not there yet: said at info level, and tried again once smc is loaded. */
	if (r == -ENOENT && !f->tried_with_smc) {
		log_info("Fallback attribution waits for the smc module: %s", f->why);
		return;
	}
	if (r < 0) {
		log_warning("Fallback attribution is unavailable: %s", f->why);
		return;
	}
	r = sd_event_add_io(f->m->event, &f->src, smcbpf_fallback_fd(f->bpf), EPOLLIN, on_ring, f);
	if (r < 0) {
		snprintf(f->why, sizeof(f->why), "cannot watch the fallback ring buffer: %s",
			 strerror(-r));
		f->err = r;
		f->bpf = smcbpf_fallback_free(f->bpf);
		log_warning("Fallback attribution is unavailable: %s", f->why);
		return;
	}
	f->why[0] = '\0';
	log_info("Fallback attribution: following smc:smc_switch_to_fallback");
}
#endif

void fallback_start(struct manager *m)
{
	struct fallback *f = calloc(1, sizeof(*f));

	if (!f) {
		log_warning("Fallback attribution is unavailable: out of memory");
		return;
	}
	f->m = m;
	m->fallback = f;
	if (m->fallback_no_kernel) {
		f->err = -ENOTSUP;
		snprintf(f->why, sizeof(f->why), "%s", m->fallback_no_kernel);
		log_info("Fallback attribution is unavailable: %s", f->why);
		return;
	}
#ifdef HAVE_BPF
	if (smcbpf_cgroup2_root(f->cgroot, sizeof(f->cgroot)) < 0)
		f->cgroot[0] = '\0';
	try_open(f);
#else
	f->err = -ENOTSUP;
	snprintf(f->why, sizeof(f->why),
		 "smcd-agent was built without BPF support (configure --disable-bpf)");
	log_info("Fallback attribution is unavailable: %s", f->why);
#endif
}

void fallback_retry(struct manager *m)
{
#ifdef HAVE_BPF
	struct fallback *f = m->fallback;

	/* Only "SMC is not loaded" can change by itself, and only when smc appears: at once
	 * when it was not there at the last try (the start's first reconcile loads it), else
	 * no more often than every RETRY_USEC. */
	if (!f || f->bpf || f->err != -ENOENT || access("/sys/module/smc", F_OK) < 0 ||
	    (f->tried_with_smc && mono_usec() - f->retry_mono_usec < RETRY_USEC))
		return;
	try_open(f);
#endif
}

void fallback_stop(struct manager *m)
{
	struct fallback *f = m->fallback;

	if (!f)
		return;
	sd_event_source_disable_unref(f->src);
	sd_event_source_disable_unref(f->defer);
	f->defer = NULL;
#ifdef HAVE_BPF
	flush_batch(f, true); /* what waited for a walk is counted, not dropped */
#endif
#ifdef HAVE_BPF
	smcbpf_fallback_free(f->bpf);
	cgs_clear(f);
#endif
	free(f);
	m->fallback = NULL;
}
