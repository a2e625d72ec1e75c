// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl assess: watch TCP connections for a while, without changing anything, and say
 * whether SMC would pay off, for which applications (common/assess-rules.c has the rules).
 *
 * Collection: bpf/smc_assess (read-only tracing programs, never pinned: the programs, maps
 * and links end with this process, also on SIGINT/SIGTERM, which end the observation
 * early and still report).  What the rules need about the host (local addresses of every
 * network namespace, routes, RDMA interfaces, cgroup paths) is found by
 * common/assess-host.c, which the agent's continuous assessment shares.
 *
 * Where the programs cannot be loaded (no BTF, no CAP_BPF, an old kernel, a build without
 * BPF), --method auto samples inet_diag instead (netlink/smcnl-tcpdiag.c, every
 * ASSESS_SAMPLE_MS, this netns only) and says so ("method": "sock_diag" with the reason):
 * connections that live between two samples are not seen, lifetimes are rounded to the
 * samples, "sends" are data segments and there are no send sizes.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#include "cli/bus.h"
#include "cli/verbs.h"
#include "common/bus-api.h"
#include "common/assess-rules.h"
#include "common/clock.h"
#include "common/output.h"
#include "common/owner.h"
#include "config/units.h"

#ifdef HAVE_BPF
#include "bpf/smcbpf.h"
#endif

#define ASSESS_SAMPLE_MS 500

/* What the sampler keeps per record beside it (same index). */
struct seen {
	uint64_t first_ns, last_ns;
	uint32_t inode;
	bool present; /* in the latest sample */
};

struct assess {
	struct smcctl *c;
	struct assess_conn *v;
	struct seen *seen; /* sock_diag only */
	size_t n, cap;
	bool oom;
	bool observed; /* the programs were attached: a later error is no reason for sock_diag */
	uint64_t start_ns; /* CLOCK_MONOTONIC now */
	uint64_t end_ns;
	uint64_t only_cookie; /* 0: every netns */
	const char *cgroup;   /* only this cgroup and below */
};

/* ---- records ------------------------------------------------------------------------- */

static bool in_cgroup(const char *path, const char *want)
{
	size_t n = strlen(want);

	while (n > 1 && want[n - 1] == '/')
		n--;
	if (n == 1 && want[0] == '/')
		return true;
	return !strncmp(path, want, n) && (path[n] == '\0' || path[n] == '/');
}

/* Drop what the options leave out (after the cgroups are known). */
static void records_filter(struct assess *k)
{
	size_t o = 0;

	for (size_t i = 0; i < k->n; i++) {
		const struct assess_conn *c = &k->v[i];

		if (k->only_cookie && c->netns_cookie != k->only_cookie)
			continue;
		if (k->cgroup && !in_cgroup(c->cgroup, k->cgroup))
			continue;
		k->v[o++] = *c;
	}
	k->n = o;
}

static void progress(struct assess *k, unsigned long left, bool tty)
{
	if (!tty)
		return;
	fprintf(k->c->err, "\rsmcctl: observing, %lu s left, %zu connections so far   ", left, k->n);
	fflush(k->c->err);
}

/* ---- without BPF: inet_diag samples -------------------------------------------------------- */

static void start_lines(struct assess *k, unsigned long duration, const char *method)
{
	/* Also with -j and without a tty: from this line on connections are seen, which is
	 * what a script starting workloads waits for (as for smcctl monitor). */
	fprintf(k->c->err, "smcctl: observing TCP connections for %lu s (%s); Ctrl-C ends early\n",
		duration, method);
	fflush(k->c->err);
}

static struct assess_conn *rec_slot(struct assess *k)
{
	if (k->n == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 256;
		struct assess_conn *nv = realloc(k->v, cap * sizeof(*nv));
		struct seen *ns;

		if (!nv) {
			k->oom = true;
			return NULL;
		}
		k->v = nv;
		ns = realloc(k->seen, cap * sizeof(*ns));
		if (!ns) {
			k->oom = true;
			return NULL;
		}
		k->seen = ns;
		k->cap = cap;
	}
	return &k->v[k->n++];
}

/* Name the holders of the sockets first seen in this sample. */
static void sample_owners(struct assess *k, size_t from)
{
	struct sock_owners o = {};
	uint64_t *inodes;
	size_t n = k->n - from;

	if (!n || !(inodes = calloc(n, sizeof(*inodes))))
		return;
	for (size_t i = 0; i < n; i++)
		inodes[i] = k->seen[from + i].inode;
	if (sock_owners_scan("/proc", inodes, n, &o) == 0) {
		for (size_t i = from; i < k->n; i++) {
			const struct sock_proc *p;

			if (!sock_owners_of(&o, k->seen[i].inode, &p))
				continue;
			k->v[i].pid = (uint32_t)p->pid;
			snprintf(k->v[i].comm, sizeof(k->v[i].comm), "%.15s", p->comm);
		}
		sock_owners_done(&o);
	}
	free(inodes);
}

/* A listening port: an end on it was accepted (passive). */
struct listen_port {
	int family;
	uint16_t port;
};

static int listen_cmp(const void *a, const void *b)
{
	const struct listen_port *x = a, *y = b;

	if (x->family != y->family)
		return x->family < y->family ? -1 : 1;
	return x->port < y->port ? -1 : x->port > y->port;
}

/* The open records of the earlier samples, by socket cookie. */
struct open_rec {
	uint64_t id;
	size_t i;
};

static int open_cmp(const void *a, const void *b)
{
	const struct open_rec *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * One sample: O(n log n) in sockets, so 10,000 connections cost a sort each, not 10^8
 * comparisons (the listeners and the open records are looked up in sorted copies).
 */
static int assess_sample(struct assess *k, struct smcnl *nl, uint64_t now, bool first)
{
	struct tcp_conn *t = NULL;
	struct listen_port *ls = NULL;
	struct open_rec *open = NULL;
	size_t n_t = 0, n_ls = 0, n_open = 0, from = k->n;
	int r = tcp_conn_list(nl, &t, &n_t);

	if (r < 0)
		return r;
	ls = calloc(n_t ? n_t : 1, sizeof(*ls));
	open = calloc(from ? from : 1, sizeof(*open));
	if (!ls || !open) {
		free(ls);
		free(open);
		free(t);
		return -ENOMEM;
	}
	for (size_t j = 0; j < n_t; j++)
		if (t[j].state == 10) /* LISTEN */
			ls[n_ls++] = (struct listen_port){ t[j].family, t[j].sport };
	qsort(ls, n_ls, sizeof(*ls), listen_cmp);
	for (size_t i = 0; i < from; i++) {
		k->seen[i].present = false;
		if (k->v[i].open)
			open[n_open++] = (struct open_rec){ k->v[i].id, i };
	}
	qsort(open, n_open, sizeof(*open), open_cmp);
	for (size_t j = 0; j < n_t; j++) {
		struct listen_port key = { t[j].family, t[j].sport };
		struct open_rec okey = { .id = t[j].cookie }, *o;
		struct assess_conn *c = NULL;
		size_t i = 0;

		if (t[j].state == 10) /* LISTEN: no connection, but its port tells accepted ends */
			continue;
		o = bsearch(&okey, open, n_open, sizeof(*open), open_cmp);
		if (o && !k->seen[o->i].present) {
			i = o->i;
			c = &k->v[i];
		}
		if (!c) {
			if (!(c = rec_slot(k)))
				break;
			i = k->n - 1;
			*c = (struct assess_conn){ .id = t[j].cookie,
						   .family = t[j].family,
						   .laddr = t[j].src,
						   .raddr = t[j].dst,
						   .lport = t[j].sport,
						   .rport = t[j].dport,
						   .cgroup_id = t[j].cgroup_id,
						   .before = first,
						   .passive = bsearch(&key, ls, n_ls, sizeof(*ls),
								      listen_cmp) != NULL,
						   .open = true,
						   .netns_cookie = k->only_cookie };
			k->seen[i] = (struct seen){ .first_ns = now, .inode = t[j].inode };
		}
		k->seen[i].present = true;
		k->seen[i].last_ns = now;
		/* SYN_SENT (2), SYN_RECV (3): not (yet) established */
		if (t[j].state != 2 && t[j].state != 3)
			c->established = true;
		c->bytes_sent = t[j].bytes_acked;
		c->bytes_received = t[j].bytes_received;
		c->sends = t[j].data_segs_out;
	}
	/* gone since the last sample: closed in between */
	for (size_t i = 0; i < from; i++)
		if (!k->seen[i].present)
			k->v[i].open = false;
	free(open);
	free(ls);
	free(t);
	sample_owners(k, from);
	return 0;
}

static int observe_diag(struct assess *k, unsigned long duration, char *why, size_t len)
{
	struct sigaction old[2];
	bool tty = isatty(fileno(k->c->err));
	uint64_t deadline;
	struct smcnl *nl;
	int r;

	if (smcctl_nl(k->c, &nl) != SMCCTL_EXIT_OK) {
		snprintf(why, len, "cannot open the netlink sockets");
		return -EIO;
	}
	smcctl_interrupt_catch(old);
	k->start_ns = now_nsec(CLOCK_MONOTONIC);
	deadline = k->start_ns + duration * 1000000000ULL;
	start_lines(k, duration, "sock_diag");
	for (bool first = true; !smcctl_interrupted; first = false) {
		uint64_t now = now_nsec(CLOCK_MONOTONIC);

		r = assess_sample(k, nl, now, first);
		if (r < 0) {
			if (r == -EPROTONOSUPPORT)
				snprintf(why, len,
					 "this kernel has no inet_diag for TCP "
					 "(CONFIG_INET_TCP_DIAG: modprobe tcp_diag)");
			else
				snprintf(why, len, "cannot list TCP sockets (inet_diag): %s",
					 strerror(-r));
			break;
		}
		if (now >= deadline)
			break;
		progress(k, (unsigned long)((deadline - now + 999999999ULL) / 1000000000ULL), tty);
		poll(NULL, 0, ASSESS_SAMPLE_MS);
	}
	k->end_ns = now_nsec(CLOCK_MONOTONIC);
	for (size_t i = 0; i < k->n; i++) {
		uint64_t last = k->v[i].open ? k->end_ns : k->seen[i].last_ns;

		k->v[i].lifetime_ns = last - (k->v[i].before ? k->start_ns : k->seen[i].first_ns);
	}
	smcctl_interrupt_restore(old);
	if (tty)
		fprintf(k->c->err, "\r%70s\r", "");
	return r < 0 ? r : 0;
}

#ifdef HAVE_BPF
static void assess_rec_add(const struct smcbpf_assess_rec *r, void *arg)
{
	struct assess *k = arg;
	struct assess_conn *c = rec_slot(k);

	if (c)
		assess_conn_from_bpf(c, r, k->start_ns, k->end_ns);
}

static int observe_bpf(struct assess *k, unsigned long duration, char *why, size_t len,
		       uint64_t *ret_dropped)
{
	struct smcbpf_assess *b = NULL;
	struct sigaction old[2];
	bool tty = isatty(fileno(k->c->err));
	uint64_t start, deadline;
	int r, err = 0;

	r = smcbpf_assess_open(assess_rec_add, k, &b, why, len);
	if (r < 0)
		return r;
	k->observed = true;
	smcctl_interrupt_catch(old);
	start = now_nsec(CLOCK_MONOTONIC);
	k->start_ns = start;
	deadline = start + duration * 1000000000ULL;
	start_lines(k, duration, "bpf");
	while (!smcctl_interrupted) {
		uint64_t now = now_nsec(CLOCK_MONOTONIC);
		struct pollfd p = { .fd = smcbpf_assess_fd(b), .events = POLLIN };

		if (now >= deadline)
			break;
		progress(k, (unsigned long)((deadline - now + 999999999ULL) / 1000000000ULL), tty);
		r = poll(&p, 1,
			 (int)((deadline - now) / 1000000 < 1000 ? (deadline - now) / 1000000 + 1
								 : 1000));
		if (r < 0 && errno != EINTR) {
			err = -errno;
			snprintf(why, len, "cannot wait for the assessment ring buffer: %s",
				 strerror(-err));
			break;
		}
		r = smcbpf_assess_consume(b);
		if (r < 0 && r != -EINTR) {
			err = r;
			snprintf(why, len, "cannot read the assessment ring buffer: %s",
				 strerror(-err));
			break;
		}
	}
	k->end_ns = now_nsec(CLOCK_MONOTONIC);
	r = smcbpf_assess_open_conns(b, assess_rec_add, k);
	/* closed before the detach, not yet read: they are closed, not open */
	if (!err && r >= 0) {
		int c = smcbpf_assess_consume(b);

		if (c < 0 && c != -EINTR) {
			err = c;
			snprintf(why, len, "cannot read the assessment ring buffer: %s",
				 strerror(-err));
		}
	}
	*ret_dropped = smcbpf_assess_dropped(b);
	/* Everything the kernel holds for us ends here: programs detach, maps go. */
	smcbpf_assess_free(b);
	smcctl_interrupt_restore(old);
	if (tty)
		fprintf(k->c->err, "\r%70s\r", "");
	if (err < 0)
		return err;
	if (r < 0) {
		snprintf(why, len, "cannot read the open connections: %s", strerror(-r));
		return r;
	}
	return 0;
}
#endif

/* ---- the verb ------------------------------------------------------------------------ */

static void assess_text(struct smcctl *c, json_object *doc)
{
	assess_report_text(c->out, doc, c->detail);
}

/* The one duration syntax of smc.yaml (config/units.c): "30", "30s", "2m", "1h". */
static void assess_done(struct assess *k)
{
	free(k->v);
	free(k->seen);
}

static int unavailable(struct smcctl *c, int err, const char *why)
{
	_cleanup_(json_object_putp) json_object *doc = NULL;
	int status = err == -EPERM ? SMCCTL_EXIT_PERMISSION : SMCCTL_EXIT_UNAVAILABLE;

	if (!c->json)
		return smcctl_error(c, status, "assess: cannot observe TCP connections: %s", why);
	doc = json_object_new_object();
	if (!doc)
		return smcctl_oom(c);
	json_object_object_add(doc, "method", NULL);
	json_object_object_add(doc, "method_reason", json_object_new_string(why));
	fprintf(c->err, "smcctl: assess: cannot observe TCP connections: %s\n", why);
	smcctl_emit(c, doc, NULL);
	return status;
}

/* The agent's last window (smcd-agent/assess-continuous.c), rendered as an observation of ours. */
static void agent_text(struct smcctl *c, json_object *doc)
{
	json_object *w = out_get(doc, "window");
	time_t end = (time_t)(out_get_u64(w, "end_usec", 0) / 1000000);
	char when[64] = "?";
	struct tm tm;

	if (localtime_r(&end, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(c->out, "smcd-agent's assessment, window %" PRIu64 ", ended %s:\n",
		out_get_u64(w, "number", 0), when);
	assess_report_text(c->out, doc, c->detail);
}

static int from_agent(struct smcctl *c, const struct verb_args *a)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(json_object_putp) json_object *doc = NULL;
	const char *json;
	int r;

	if (a->opt[ASSESS_OPT_DURATION] || a->opt[ASSESS_OPT_ALL_NETNS] ||
	    a->opt[ASSESS_OPT_CGROUP] || a->opt[ASSESS_OPT_METHOD] || c->netns)
		return smcctl_usage(c, "--agent shows the agent's window as it is: it takes none "
				       "of --duration, --all-netns, --cgroup, --method, --netns");
	r = bus_open(c, &bus);
	if (r)
		return r;
	r = sd_bus_call_method(bus, SMCD_BUS_NAME, SMCD_BUS_PATH, SMCD_BUS_IFACE_ASSESSMENT,
			       SMCD_BUS_ASSESS_GET_ASSESSMENT, &e, &reply, NULL);
	if (r < 0 && sd_bus_error_has_name(&e, SMCD_BUS_ERROR_UNAVAILABLE))
		return smcctl_error(c, SMCCTL_EXIT_NO_AGENT, "assess --agent: %s", e.message);
	if (r < 0)
		return bus_failed(c, "assess --agent", &e, r);
	r = sd_bus_message_read(reply, "s", &json);
	if (r < 0 || !(doc = json_tokener_parse(json)))
		return smcctl_error(c, SMCCTL_EXIT_FAILURE, "smcd-agent's assessment did not parse");
	return smcctl_emit(c, doc, agent_text);
}

verb_fn assess_run;
int assess_run(struct smcctl *c, const struct verb_args *a)
{
	struct assess *k;
	struct assess_host *host = NULL;
	struct assess_thresholds th;
	struct assess_meta m = {
		.coverage = "connections opened during the observation, and those open before it "
			    "that sent or received during it",
	};
	_cleanup_(json_object_putp) json_object *doc = NULL;
	/* Range and default: the table's (cli/table.c), checked by the parser. */
	unsigned long duration = (unsigned long)a->num[ASSESS_OPT_DURATION];
	const char *method = a->opt[ASSESS_OPT_METHOD] ? a->opt[ASSESS_OPT_METHOD] : "auto";
	uint64_t t0, dropped = 0;
	char why[512] = "", diag_reason[512];
	bool diag = false;
	int r, status;

	if (a->opt[ASSESS_OPT_AGENT])
		return from_agent(c, a);
	if (!streq(method, "auto") && !streq(method, "bpf") && !streq(method, "sock_diag"))
		return smcctl_usage(c, "invalid --method '%s' (auto, bpf or sock_diag)", method);
	if (a->opt[ASSESS_OPT_ALL_NETNS] && c->netns)
		return smcctl_usage(c, "--all-netns and --netns exclude each other");
	if (a->opt[ASSESS_OPT_CGROUP] && a->opt[ASSESS_OPT_CGROUP][0] != '/')
		return smcctl_usage(c, "--cgroup takes a path below the cgroup2 root, such as "
				       "/system.slice/nginx.service");
	k = calloc(1, sizeof(*k));
	if (!k)
		return smcctl_oom(c);
	k->c = c;
	k->cgroup = a->opt[ASSESS_OPT_CGROUP];
	if (!a->opt[ASSESS_OPT_ALL_NETNS]) {
		k->only_cookie = assess_netns_cookie();
		if (!k->only_cookie) {
			assess_done(k);
			free(k);
			return unavailable(c, -ENOTSUP,
					   "this kernel cannot name network namespaces "
					   "(SO_NETNS_COOKIE, Linux 5.14 or later)");
		}
	}
	t0 = now_nsec(CLOCK_MONOTONIC);
	r = -ENOTSUP;
	snprintf(why, sizeof(why), "smcctl was built without BPF support");
#ifdef HAVE_BPF
	if (!streq(method, "sock_diag"))
		r = observe_bpf(k, duration, why, sizeof(why), &dropped);
	else
		snprintf(why, sizeof(why), "--method sock_diag");
#endif
	if (r < 0 && !k->oom && !k->observed && !smcctl_interrupted && !streq(method, "bpf")) {
		/* without BPF: samples of this netns, saying why and what that misses */
		snprintf(diag_reason, sizeof(diag_reason), "%s", why);
		k->only_cookie = assess_netns_cookie();
		m.method_reason = diag_reason;
		m.coverage = "connections alive at one of the samples (every 500 ms) of this "
			     "network namespace: shorter ones are missed, lifetimes are rounded to "
			     "the samples, sends are data segments, and send sizes are unknown";
		r = observe_diag(k, duration, why, sizeof(why));
		diag = true;
	}
	if (r < 0 || k->oom) {
		assess_done(k);
		free(k);
		if (r >= 0)
			return smcctl_oom(c);
		return unavailable(c, r, why);
	}
	m.method = diag ? "sock_diag" : "bpf";
	m.duration_s = (double)(k->end_ns - t0) / 1e9;
	m.dropped = dropped;
	m.scope = diag				 ? "this network namespace"
		  : a->opt[ASSESS_OPT_ALL_NETNS] ? "all network namespaces"
		  : c->netns			 ? "network namespace of --netns"
						 : "this network namespace";
	assess_cgroup_names(k->v, k->n);
	records_filter(k);
	r = assess_host_scan(&host);
	if (r == 0) {
		r = assess_host_fill(host, k->v, k->n);
		assess_host_free(host);
	}
	if (r < 0) {
		assess_done(k);
		free(k);
		if (r == -ENOMEM)
			return smcctl_oom(c);
		return smcctl_error(c, SMCCTL_EXIT_FAILURE,
				    "assess: cannot return to smcctl's network namespace: %s",
				    strerror(-r));
	}
	assess_thresholds_default(&th);
	assess_classify_all(k->v, k->n, &th);
	doc = assess_report_json(k->v, k->n, &th, &m);
	assess_done(k);
	free(k);
	if (!doc)
		return smcctl_oom(c);
	status = smcctl_emit(c, doc, assess_text);
	return status;
}
