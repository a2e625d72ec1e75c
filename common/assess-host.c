// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the assessment's rules need to know about the host (assess.h): the local addresses
 * of every network namespace this process can enter (this one, those in /run/netns, those
 * of running processes), the interface the route to a peer leaves through (a UDP socket's
 * connect(), which sends nothing), which RDMA port SMC-R would take there (asked from
 * inside that netns through libsmcnl, netlink/smcnl-smcr-reach.c: by ifindex, PNET ID and lower
 * device, never by a name seen in another netns), and the cgroup path of each cgroup id (a
 * walk of the cgroup2 mount).  Shared by smcctl
 * assess and the agent's continuous assessment.
 *
 * Entering a namespace is setns() of the calling thread; every entry is followed by the
 * return to the namespace the process started in.  Should that return fail (it does not,
 * short of the kernel running out of memory), the functions stop and say so: the caller
 * must not go on in the wrong namespace (smcctl exits, the agent stops and is restarted).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpf/smcbpf-abi.h"
#include "common/assess-rules.h"
#include "common/container-ident.h"
#include "common/macro.h"
#include "common/util.h"
#include "netlink/smcnl.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

#define ASSESS_MAX_NETNS 256
#define CGROUP_ROOT "/sys/fs/cgroup"

struct netns {
	uint64_t cookie;
	uint32_t inum;
	char name[ASSESS_NETNS_LEN]; /* "" the one this process runs in */
	char path[288];
	struct ifaddrs *ifa;
	/* SMC-R's view of its netdevs, asked from inside on the first route looked up there */
	bool reach_done;
	int reach_err;
	struct smcr_reach *reach;
	size_t n_reach;
};

struct assess_host {
	struct netns ns[ASSESS_MAX_NETNS];
	size_t n_ns;
	int lost; /* errno of a failed return to our own netns: stop everything */
};

uint64_t assess_netns_cookie(void)
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

static bool netns_known(const struct assess_host *k, uint64_t cookie)
{
	for (size_t i = 0; i < k->n_ns; i++)
		if (k->ns[i].cookie == cookie)
			return true;
	return false;
}

/* Enter the namespace at path, note it, come back to self. */
static void netns_add(struct assess_host *k, int self, const char *path, const char *name)
{
	struct netns *ns;
	struct stat st;
	uint64_t cookie;
	int fd;

	if (k->n_ns == ASSESS_MAX_NETNS || k->lost)
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || setns(fd, CLONE_NEWNET) < 0) {
		close(fd);
		return;
	}
	close(fd);
	cookie = assess_netns_cookie();
	if (cookie && !netns_known(k, cookie)) {
		ns = &k->ns[k->n_ns++];
		*ns = (struct netns){ .cookie = cookie, .inum = (uint32_t)st.st_ino };
		snprintf(ns->name, sizeof(ns->name), "%s", name);
		snprintf(ns->path, sizeof(ns->path), "%s", path);
		if (getifaddrs(&ns->ifa) < 0)
			ns->ifa = NULL;
	}
	if (setns(self, CLONE_NEWNET) < 0)
		k->lost = errno;
}

/* This one first; then the named ones; then those of processes (entering needs root). */
static void netns_scan(struct assess_host *k)
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

static const struct netns *netns_find(const struct assess_host *k, uint64_t cookie)
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
static const struct netns *addr_local(const struct assess_host *k, int family,
				      const struct in6_addr *a, const char **ret_if)
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

/*
 * What SMC-R can leave through in the netns we are in (netlink/smcnl-smcr-reach.c: by ifindex in
 * this netns, with PNET IDs and lower devices as SMC itself looks at them).  A handle of
 * its own, opened here: a netlink socket stays in the netns it was created in.
 */
static void reach_scan(struct netns *ns)
{
	struct smcnl *nl;
	int r;

	ns->reach_done = true;
	r = smcnl_open(NULL, &nl);
	if (r == 0) {
		r = smcr_reach_list(nl, &ns->reach, &ns->n_reach);
		smcnl_close(nl);
	}
	ns->reach_err = r < 0 ? r : 0;
}

static void reach_fill(const struct netns *ns, struct assess_conn *c)
{
	if (!c->egress[0])
		return;
	if (ns->reach_err) {
		c->rdma_err = ns->reach_err;
		return;
	}
	for (size_t i = 0; i < ns->n_reach; i++) {
		const struct smcr_reach *r = &ns->reach[i];

		if (!streq(r->netdev, c->egress))
			continue;
		snprintf(c->egress_lower, sizeof(c->egress_lower), "%s", r->lower);
		c->egress_lower_elsewhere = r->lower_elsewhere;
		snprintf(c->pnetid, sizeof(c->pnetid), "%s", r->pnetid);
		snprintf(c->rdma_dev, sizeof(c->rdma_dev), "%s", r->ib_dev);
		c->rdma_port = r->ib_port;
		c->egress_rdma = r->ib_dev[0] != '\0';
		return;
	}
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

int assess_host_fill(struct assess_host *k, struct assess_conn *v, size_t n)
{
	int self;

	if (k->lost)
		return -k->lost;
	for (size_t i = 0; i < n; i++) {
		struct assess_conn *c = &v[i];
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
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0)
		return 0; /* no routes: the peers not on this host say "no route found" */
	/* Routes are per netns: one visit each for the peers that are not local. */
	for (size_t j = 0; j < k->n_ns; j++) {
		bool entered = false;

		for (size_t i = 0; i < n; i++) {
			struct assess_conn *c = &v[i];
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
				if (!k->ns[j].reach_done)
					reach_scan(&k->ns[j]);
			}
			route_egress(&k->ns[j], c);
			reach_fill(&k->ns[j], c);
		}
		if (entered && setns(self, CLONE_NEWNET) < 0) {
			k->lost = errno;
			break;
		}
	}
	close(self);
	return k->lost ? -k->lost : 0;
}

/* cgroup ids to paths: one walk of the cgroup2 mount for all of them. */
static void cgroup_walk(struct assess_conn *v, size_t n, const char *rel, unsigned depth)
{
	char full[ASSESS_CGROUP_LEN + 32], sub[ASSESS_CGROUP_LEN];
	struct dirent *de;
	uint64_t id = 0;
	DIR *d;

	snprintf(full, sizeof(full), CGROUP_ROOT "%s", rel);
	if (cgroup_id_of(full, &id) == 0)
		for (size_t i = 0; i < n; i++)
			if (v[i].cgroup_id == id)
				snprintf(v[i].cgroup, sizeof(v[i].cgroup), "%s", rel[0] ? rel : "/");
	if (depth >= 32 || !(d = opendir(full)))
		return;
	while ((de = readdir(d)))
		if (de->d_type == DT_DIR && de->d_name[0] != '.') {
			if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", rel, de->d_name) >=
			    sizeof(sub))
				continue;
			cgroup_walk(v, n, sub, depth + 1);
		}
	closedir(d);
}

void assess_cgroup_names(struct assess_conn *v, size_t n)
{
	struct container_ident c;

	if (n)
		cgroup_walk(v, n, "", 0);
	/* the runtime's state is cached: a container's many records read it once */
	for (size_t i = 0; i < n; i++)
		if (v[i].cgroup[0] && container_ident_of(v[i].cgroup, &c) == 1)
			container_label(&c, v[i].container, sizeof(v[i].container));
		else
			v[i].container[0] = '\0';
}

int assess_host_scan(struct assess_host **ret)
{
	struct assess_host *k = calloc(1, sizeof(*k));

	*ret = NULL;
	if (!k)
		return -ENOMEM;
	netns_scan(k);
	if (k->lost) {
		int r = -k->lost;

		assess_host_free(k);
		return r;
	}
	*ret = k;
	return 0;
}

size_t assess_host_netns(const struct assess_host *k)
{
	return k->n_ns;
}

struct assess_host *assess_host_free(struct assess_host *k)
{
	if (!k)
		return NULL;
	for (size_t i = 0; i < k->n_ns; i++) {
		if (k->ns[i].ifa)
			freeifaddrs(k->ns[i].ifa);
		free(k->ns[i].reach);
	}
	free(k);
	return NULL;
}

void assess_conn_from_bpf(struct assess_conn *c, const struct smcbpf_assess_rec *r,
			  uint64_t start_ns, uint64_t end_ns)
{
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
		/* on an SMC connection TCP's are only the CLC handshake's few bytes */
		.bytes_sent = r->bytes_acked + r->smc_bytes_sent,
		.bytes_received = r->bytes_received + r->smc_bytes_received,
		.smc = r->smc,
		.sends = r->sends,
		.pid = r->pid,
		.cgroup_id = r->cgroup_id,
	};
	memcpy(&c->laddr, r->laddr, sizeof(c->laddr));
	memcpy(&c->raddr, r->raddr, sizeof(c->raddr));
	memcpy(c->comm, r->comm,
	       sizeof(c->comm) < sizeof(r->comm) ? sizeof(c->comm) : sizeof(r->comm));
	c->comm[sizeof(c->comm) - 1] = '\0';
	for (unsigned i = 0; i < ASSESS_BUCKETS; i++)
		c->hist[i] = r->hist[i];
	/* open ones live until the end; those from before, since the start (a lower bound) */
	c->lifetime_ns = (r->end_ns ? r->end_ns : end_ns) - (r->start_ns ? r->start_ns : start_ns);
}
