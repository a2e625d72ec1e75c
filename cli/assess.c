// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl assess: watch TCP connections for a while, without changing anything, and say
 * whether SMC would pay off, for which applications (common/assess.c has the rules).
 *
 * Collection: bpf/smc_assess (read-only tracing programs, never pinned: the programs, maps
 * and links end with this process, also on SIGINT/SIGTERM, which end the observation
 * early and still report).  What the rules need about the host is found here: the local
 * addresses of every network namespace smcctl can enter (those in /run/netns, those of running
 * processes), the interface the route to a peer leaves through (a UDP socket's connect(),
 * which sends nothing), whether that interface has an RDMA device (its
 * /sys/class/net/IF/device/infiniband, or an RDMA port's gid_attrs/ndevs naming it), and
 * the cgroup path of each cgroup id (a walk of the cgroup2 mount).
 *
 * Where the programs cannot be loaded (no BTF, no CAP_BPF, an old kernel, a build without
 * BPF), --method auto samples inet_diag instead (netlink/tcpdiag.c, every
 * ASSESS_SAMPLE_MS, this netns only) and says so ("method": "sock_diag" with the reason):
 * connections that live between two samples are not seen, lifetimes are rounded to the
 * samples, "sends" are data segments and there are no send sizes.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <inttypes.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/objects.h"
#include "common/assess.h"
#include "common/output.h"
#include "common/owner.h"

#ifdef HAVE_BPF
#include "bpf/smcbpf.h"
#endif

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

#define ASSESS_DURATION_DEFAULT 30
#define ASSESS_DURATION_MAX 86400
#define ASSESS_MAX_NETNS 256
#define CGROUP_ROOT "/sys/fs/cgroup"
#define ASSESS_SAMPLE_MS 500

struct netns {
	uint64_t cookie;
	uint32_t inum;
	char name[ASSESS_NETNS_LEN]; /* "" the one smcctl runs in */
	char path[288];
	struct ifaddrs *ifa;
};

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
	uint64_t start_ns; /* CLOCK_MONOTONIC now */
	uint64_t end_ns;
	struct netns ns[ASSESS_MAX_NETNS];
	size_t n_ns;
	uint64_t only_cookie; /* 0: every netns */
	const char *cgroup;   /* only this cgroup and below */
	char **rdma_ifs;
	size_t n_rdma_ifs;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- the host: network namespaces, addresses, RDMA interfaces, cgroups ----------------- */

static uint64_t current_netns_cookie(void)
{
	uint64_t cookie = 0;
	socklen_t len = sizeof(cookie);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return 0;
	if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len) < 0)
		cookie = 0;
	close(fd);
	return cookie;
}

static bool netns_known(const struct assess *k, uint64_t cookie)
{
	for (size_t i = 0; i < k->n_ns; i++)
		if (k->ns[i].cookie == cookie)
			return true;
	return false;
}

/* Enter the namespace at path, note it, come back to self. */
static void netns_add(struct assess *k, int self, const char *path, const char *name)
{
	struct netns *ns;
	struct stat st;
	uint64_t cookie;
	int fd;

	if (k->n_ns == ASSESS_MAX_NETNS)
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || setns(fd, CLONE_NEWNET) < 0) {
		close(fd);
		return;
	}
	close(fd);
	cookie = current_netns_cookie();
	if (cookie && !netns_known(k, cookie)) {
		ns = &k->ns[k->n_ns++];
		*ns = (struct netns){ .cookie = cookie, .inum = (uint32_t)st.st_ino };
		snprintf(ns->name, sizeof(ns->name), "%s", name);
		snprintf(ns->path, sizeof(ns->path), "%s", path);
		if (getifaddrs(&ns->ifa) < 0)
			ns->ifa = NULL;
	}
	if (setns(self, CLONE_NEWNET) < 0)
		smcctl_note(k->c, "cannot return to the network namespace: %s", strerror(errno));
}

/* This one first; then the named ones; then those of processes (entering needs root). */
static void netns_scan(struct assess *k)
{
	char path[288], name[ASSESS_NETNS_LEN];
	struct dirent *de;
	DIR *d;
	int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);

	if (self < 0)
		return;
	netns_add(k, self, "/proc/self/ns/net", "");
	if ((d = opendir("/run/netns"))) {
		while ((de = readdir(d)))
			if (de->d_name[0] != '.') {
				snprintf(path, sizeof(path), "/run/netns/%.200s", de->d_name);
				snprintf(name, sizeof(name), "%.60s", de->d_name);
				netns_add(k, self, path, name);
			}
		closedir(d);
	}
	if ((d = opendir("/proc"))) {
		while ((de = readdir(d)))
			if (de->d_name[0] >= '1' && de->d_name[0] <= '9') {
				snprintf(path, sizeof(path), "/proc/%.16s/ns/net", de->d_name);
				snprintf(name, sizeof(name), "pid %.16s", de->d_name);
				netns_add(k, self, path, name);
			}
		closedir(d);
	}
	close(self);
}

static const struct netns *netns_find(const struct assess *k, uint64_t cookie)
{
	for (size_t i = 0; i < k->n_ns; i++)
		if (k->ns[i].cookie == cookie)
			return &k->ns[i];
	return NULL;
}

static bool addr_eq(const struct sockaddr *sa, int family, const struct in6_addr *a)
{
	if (!sa || sa->sa_family != family)
		return false;
	if (family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_addr.s_addr == a->s6_addr32[0];
	return !memcmp(&((const struct sockaddr_in6 *)sa)->sin6_addr, a, sizeof(*a));
}

/* Is the address local in some namespace?  Its name ("" this one) or NULL. */
static const struct netns *addr_local(const struct assess *k, int family, const struct in6_addr *a,
				      const char **ret_if)
{
	for (size_t i = 0; i < k->n_ns; i++)
		for (struct ifaddrs *p = k->ns[i].ifa; p; p = p->ifa_next)
			if (addr_eq(p->ifa_addr, family, a)) {
				if (ret_if)
					*ret_if = p->ifa_name;
				return &k->ns[i];
			}
	return NULL;
}

static bool is_loopback(int family, const struct in6_addr *a)
{
	if (family == AF_INET)
		return (ntohl(a->s6_addr32[0]) >> 24) == 127;
	return IN6_IS_ADDR_LOOPBACK(a) ||
	       (IN6_IS_ADDR_V4MAPPED(a) && (ntohl(a->s6_addr32[3]) >> 24) == 127);
}

static int str_push(char ***v, size_t *n, const char *s)
{
	char **nv;

	for (size_t i = 0; i < *n; i++)
		if (streq((*v)[i], s))
			return 0;
	nv = realloc(*v, (*n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	if (!(nv[*n] = strdup(s)))
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* Netdevs with an RDMA device: RoCE GIDs name them; a netdev's device may have one. */
static void rdma_scan(struct assess *k)
{
	char path[768], buf[64];
	struct dirent *dev, *port, *idx;
	DIR *d, *pd, *nd;

	if ((d = opendir("/sys/class/infiniband"))) {
		while ((dev = readdir(d))) {
			if (dev->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports", dev->d_name);
			if (!(pd = opendir(path)))
				continue;
			while ((port = readdir(pd))) {
				if (port->d_name[0] == '.')
					continue;
				snprintf(path, sizeof(path),
					 "/sys/class/infiniband/%s/ports/%s/gid_attrs/ndevs",
					 dev->d_name, port->d_name);
				if (!(nd = opendir(path)))
					continue;
				while ((idx = readdir(nd))) {
					char f[1024];
					FILE *fp;

					if (idx->d_name[0] == '.')
						continue;
					snprintf(f, sizeof(f), "%s/%s", path, idx->d_name);
					/* unused GID slots answer EINVAL */
					if (!(fp = fopen(f, "re")))
						continue;
					if (fgets(buf, sizeof(buf), fp)) {
						buf[strcspn(buf, "\n")] = '\0';
						if (buf[0])
							str_push(&k->rdma_ifs, &k->n_rdma_ifs, buf);
					}
					fclose(fp);
				}
				closedir(nd);
			}
			closedir(pd);
		}
		closedir(d);
	}
	if ((d = opendir("/sys/class/net"))) {
		while ((dev = readdir(d))) {
			if (dev->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/sys/class/net/%s/device/infiniband",
				 dev->d_name);
			if (access(path, F_OK) == 0)
				str_push(&k->rdma_ifs, &k->n_rdma_ifs, dev->d_name);
		}
		closedir(d);
	}
}

static bool if_rdma(const struct assess *k, const char *ifname)
{
	for (size_t i = 0; i < k->n_rdma_ifs; i++)
		if (streq(k->rdma_ifs[i], ifname))
			return true;
	return false;
}

/* The interface the route to the peer leaves through, in the current netns. */
static void route_egress(const struct netns *ns, struct assess_conn *c)
{
	struct sockaddr_storage ss = {}, src = {};
	socklen_t len = sizeof(src);
	int fd = socket(c->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return;
	if (c->family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(c->rport ? c->rport : 9);
		s4->sin_addr.s_addr = c->raddr.s6_addr32[0];
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(c->rport ? c->rport : 9);
		s6->sin6_addr = c->raddr;
	}
	/* a UDP connect() only looks the route up */
	if (connect(fd, (struct sockaddr *)&ss,
		    c->family == AF_INET ? sizeof(struct sockaddr_in)
					 : sizeof(struct sockaddr_in6)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&src, &len) == 0) {
		struct in6_addr a = {};

		if (c->family == AF_INET)
			a.s6_addr32[0] = ((struct sockaddr_in *)&src)->sin_addr.s_addr;
		else
			a = ((struct sockaddr_in6 *)&src)->sin6_addr;
		for (struct ifaddrs *p = ns->ifa; p; p = p->ifa_next)
			if (addr_eq(p->ifa_addr, c->family, &a)) {
				snprintf(c->egress, sizeof(c->egress), "%s", p->ifa_name);
				break;
			}
	}
	close(fd);
}

static void host_fill(struct assess *k)
{
	int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);

	for (size_t i = 0; i < k->n; i++) {
		struct assess_conn *c = &k->v[i];
		const struct netns *at = netns_find(k, c->netns_cookie), *peer;

		if (at)
			c->netns_inum = at->inum;
		if (is_loopback(c->family, &c->raddr)) {
			c->peer_local = true;
			continue;
		}
		peer = addr_local(k, c->family, &c->raddr, NULL);
		if (peer) {
			c->peer_local = true;
			snprintf(c->peer_netns, sizeof(c->peer_netns), "%s",
				 peer->name[0] ? peer->name : "");
		}
	}
	/* Routes are per netns: one visit each for the peers that are not local. */
	for (size_t j = 0; self >= 0 && j < k->n_ns; j++) {
		bool entered = false;

		for (size_t i = 0; i < k->n; i++) {
			struct assess_conn *c = &k->v[i];
			int fd;

			if (c->peer_local || c->netns_cookie != k->ns[j].cookie)
				continue;
			if (!entered) {
				fd = open(k->ns[j].path, O_RDONLY | O_CLOEXEC);
				if (fd < 0 || setns(fd, CLONE_NEWNET) < 0) {
					if (fd >= 0)
						close(fd);
					break;
				}
				close(fd);
				entered = true;
			}
			route_egress(&k->ns[j], c);
			c->egress_rdma = c->egress[0] && if_rdma(k, c->egress);
		}
		if (entered && setns(self, CLONE_NEWNET) < 0)
			smcctl_note(k->c, "cannot return to the network namespace: %s",
				    strerror(errno));
	}
	if (self >= 0)
		close(self);
}

/* cgroup ids to paths: one walk of the cgroup2 mount for all of them. */
static int cgroup_id_of(const char *dir, uint64_t *ret)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh.handle_bytes = sizeof(uint64_t) };
	struct stat st;
	int mnt;

	if (name_to_handle_at(AT_FDCWD, dir, &h.fh, &mnt, 0) == 0 &&
	    h.fh.handle_bytes == sizeof(uint64_t)) {
		memcpy(ret, h.fh.f_handle, sizeof(*ret));
		return 0;
	}
	if (stat(dir, &st) < 0)
		return -errno;
	*ret = st.st_ino;
	return 0;
}

static void cgroup_walk(struct assess *k, const char *rel, unsigned depth)
{
	char full[ASSESS_CGROUP_LEN + 32], sub[ASSESS_CGROUP_LEN];
	struct dirent *de;
	uint64_t id = 0;
	DIR *d;

	snprintf(full, sizeof(full), CGROUP_ROOT "%s", rel);
	if (cgroup_id_of(full, &id) == 0)
		for (size_t i = 0; i < k->n; i++)
			if (k->v[i].cgroup_id == id)
				snprintf(k->v[i].cgroup, sizeof(k->v[i].cgroup), "%s",
					 rel[0] ? rel : "/");
	if (depth >= 32 || !(d = opendir(full)))
		return;
	while ((de = readdir(d)))
		if (de->d_type == DT_DIR && de->d_name[0] != '.') {
			if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", rel, de->d_name) >=
			    sizeof(sub))
				continue;
			cgroup_walk(k, sub, depth + 1);
		}
	closedir(d);
}

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

static int sample(struct assess *k, struct smcnl *nl, uint64_t now, bool first)
{
	struct tcp_conn *t = NULL;
	size_t n_t = 0, from = k->n;
	int r = tcp_conn_list(nl, &t, &n_t);

	if (r < 0)
		return r;
	for (size_t i = 0; i < k->n; i++)
		k->seen[i].present = false;
	for (size_t j = 0; j < n_t; j++) {
		struct assess_conn *c = NULL;
		bool passive = false;
		size_t i;

		if (t[j].state == 10) /* LISTEN: no connection, but its port tells accepted ends */
			continue;
		for (size_t l = 0; l < n_t && !passive; l++)
			passive = t[l].state == 10 && t[l].sport == t[j].sport &&
				  t[l].family == t[j].family;

		for (i = 0; i < from && !c; i++)
			if (k->v[i].id == t[j].cookie && k->seen[i].present == false && k->v[i].open)
				c = &k->v[i];
		if (!c) {
			if (!(c = rec_slot(k)))
				break;
			i = k->n;
			*c = (struct assess_conn){ .id = t[j].cookie,
						   .family = t[j].family,
						   .laddr = t[j].src,
						   .raddr = t[j].dst,
						   .lport = t[j].sport,
						   .rport = t[j].dport,
						   .cgroup_id = t[j].cgroup_id,
						   .before = first,
						   .passive = passive,
						   .open = true,
						   .netns_cookie = k->only_cookie };
			k->seen[i - 1] = (struct seen){ .first_ns = now, .inode = t[j].inode };
		}
		i--;
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
	free(t);
	sample_owners(k, from);
	return 0;
}

static int observe_diag(struct assess *k, unsigned long duration, char *why, size_t len)
{
	struct sigaction act = { .sa_handler = on_signal }, old_int, old_term;
	bool tty = isatty(fileno(k->c->err));
	uint64_t deadline;
	struct smcnl *nl;
	int r;

	if (smcctl_nl(k->c, &nl) != SMCCTL_EXIT_OK) {
		snprintf(why, len, "cannot open the netlink sockets");
		return -EIO;
	}
	sigaction(SIGINT, &act, &old_int);
	sigaction(SIGTERM, &act, &old_term);
	k->start_ns = mono_ns();
	deadline = k->start_ns + duration * 1000000000ULL;
	start_lines(k, duration, "sock_diag");
	for (bool first = true; !stop; first = false) {
		uint64_t now = mono_ns();

		r = sample(k, nl, now, first);
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
	k->end_ns = mono_ns();
	for (size_t i = 0; i < k->n; i++) {
		uint64_t last = k->v[i].open ? k->end_ns : k->seen[i].last_ns;

		k->v[i].lifetime_ns = last - (k->v[i].before ? k->start_ns : k->seen[i].first_ns);
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (tty)
		fprintf(k->c->err, "\r%70s\r", "");
	return r < 0 ? r : 0;
}

#ifdef HAVE_BPF
static void rec_add(const struct smcbpf_assess_rec *r, void *arg)
{
	struct assess *k = arg;
	struct assess_conn *c = rec_slot(k);

	if (!c)
		return;
	*c = (struct assess_conn){
		.id = r->sk,
		.netns_cookie = r->netns_cookie,
		.family = r->family,
		.lport = r->lport,
		.rport = r->rport,
		.passive = r->passive,
		.established = r->established,
		.open = !r->end_ns,
		.before = !r->start_ns,
		.bytes_sent = r->bytes_acked,
		.bytes_received = r->bytes_received,
		.sends = r->sends,
		.pid = r->pid,
		.cgroup_id = r->cgroup_id,
	};
	memcpy(&c->laddr, r->laddr, sizeof(c->laddr));
	memcpy(&c->raddr, r->raddr, sizeof(c->raddr));
	memcpy(c->comm, r->comm, sizeof(r->comm));
	c->comm[sizeof(c->comm) - 1] = '\0';
	for (unsigned i = 0; i < ASSESS_BUCKETS; i++)
		c->hist[i] = r->hist[i];
	/* open ones live until the end; those from before, since the start (a lower bound) */
	c->lifetime_ns =
		(r->end_ns ? r->end_ns : k->end_ns) - (r->start_ns ? r->start_ns : k->start_ns);
}

static int observe_bpf(struct assess *k, unsigned long duration, char *why, size_t len,
		       uint64_t *ret_dropped)
{
	struct smcbpf_assess *b = NULL;
	struct sigaction act = { .sa_handler = on_signal }, old_int, old_term;
	bool tty = isatty(fileno(k->c->err));
	uint64_t start, deadline;
	int r;

	r = smcbpf_assess_open(rec_add, k, &b, why, len);
	if (r < 0)
		return r;
	sigaction(SIGINT, &act, &old_int);
	sigaction(SIGTERM, &act, &old_term);
	start = mono_ns();
	k->start_ns = start;
	deadline = start + duration * 1000000000ULL;
	start_lines(k, duration, "bpf");
	while (!stop) {
		uint64_t now = mono_ns();
		struct pollfd p = { .fd = smcbpf_assess_fd(b), .events = POLLIN };

		if (now >= deadline)
			break;
		progress(k, (unsigned long)((deadline - now + 999999999ULL) / 1000000000ULL), tty);
		r = poll(&p, 1,
			 (int)((deadline - now) / 1000000 < 1000 ? (deadline - now) / 1000000 + 1
								 : 1000));
		if (r < 0 && errno != EINTR)
			break;
		smcbpf_assess_consume(b);
	}
	k->end_ns = mono_ns();
	r = smcbpf_assess_open_conns(b, rec_add, k);
	/* closed before the detach, not yet read: they are closed, not open */
	smcbpf_assess_consume(b);
	*ret_dropped = smcbpf_assess_dropped(b);
	/* Everything the kernel holds for us ends here: programs detach, maps go. */
	smcbpf_assess_free(b);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (tty)
		fprintf(k->c->err, "\r%70s\r", "");
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

static int parse_duration(const char *s, unsigned long *ret)
{
	char *end;
	unsigned long v;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || (*end && strcmp(end, "s")) || v < 1 || v > ASSESS_DURATION_MAX)
		return -EINVAL;
	*ret = v;
	return 0;
}

static void assess_done(struct assess *k)
{
	for (size_t i = 0; i < k->n_ns; i++)
		if (k->ns[i].ifa)
			freeifaddrs(k->ns[i].ifa);
	for (size_t i = 0; i < k->n_rdma_ifs; i++)
		free(k->rdma_ifs[i]);
	free(k->rdma_ifs);
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

int assess_run(struct smcctl *c, const struct verb_args *a)
{
	struct assess *k;
	struct assess_thresholds th;
	struct assess_meta m = {
		.coverage = "connections opened during the observation, and those open before it "
			    "that sent or received during it",
	};
	_cleanup_(json_object_putp) json_object *doc = NULL;
	unsigned long duration = ASSESS_DURATION_DEFAULT;
	const char *method = a->opt[ASSESS_OPT_METHOD] ? a->opt[ASSESS_OPT_METHOD] : "auto";
	uint64_t t0, dropped = 0;
	char why[320] = "", diag_reason[320];
	bool diag = false;
	int r, status;

	if (a->opt[ASSESS_OPT_DURATION] && parse_duration(a->opt[ASSESS_OPT_DURATION], &duration) < 0)
		return smcctl_usage(c, "invalid --duration '%s' (1 to %d seconds)",
				    a->opt[ASSESS_OPT_DURATION], ASSESS_DURATION_MAX);
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
		k->only_cookie = current_netns_cookie();
		if (!k->only_cookie) {
			assess_done(k);
			free(k);
			return unavailable(c, -ENOTSUP,
					   "this kernel cannot name network namespaces "
					   "(SO_NETNS_COOKIE, Linux 5.14 or later)");
		}
	}
	t0 = mono_ns();
	r = -ENOTSUP;
	snprintf(why, sizeof(why), "smcctl was built without BPF support");
#ifdef HAVE_BPF
	if (!streq(method, "sock_diag"))
		r = observe_bpf(k, duration, why, sizeof(why), &dropped);
	else
		snprintf(why, sizeof(why), "--method sock_diag");
#endif
	if (r < 0 && !k->oom && !stop && !streq(method, "bpf")) {
		/* without BPF: samples of this netns, saying why and what that misses */
		snprintf(diag_reason, sizeof(diag_reason), "%s", why);
		k->only_cookie = current_netns_cookie();
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
	cgroup_walk(k, "", 0);
	records_filter(k);
	netns_scan(k);
	rdma_scan(k);
	host_fill(k);
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
