// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Other network namespaces: the named ones of /run/netns, and handles whose sockets are
 * created inside one of them (socket.c enters the namespace for each socket it creates and
 * comes back).  The SMC counters (GET_STATS, GET_FBACK_STATS) and the smc_diag dump are per
 * namespace in the kernel, answered for the namespace the netlink socket was created in;
 * link groups, devices and the UEID table are global.
 *
 * A namespace is known by the device and inode of its nsfs file (what stat(2) of
 * /run/netns/NAME and of /proc/self/ns/net says): a name removed and added again is another
 * namespace, and the caller's own one may have a name too (ip netns attach).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netlink/smcnl-internal.h"

#ifndef NS_GET_NSTYPE
#define NS_GET_NSTYPE _IO(0xb7, 0x3) /* linux/nsfs.h, 4.11+ */
#endif

#define NETNS_DIR "/run/netns"

int smc_netns_self(struct smc_netns *ret)
{
	struct stat st;

	if (stat("/proc/thread-self/ns/net", &st) < 0)
		return negative_errno();
	*ret = (struct smc_netns){ .dev = st.st_dev, .ino = st.st_ino };
	return 0;
}

static int netns_cmp(const void *a, const void *b)
{
	return strcmp(((const struct smc_netns *)a)->name, ((const struct smc_netns *)b)->name);
}

int smc_netns_list(struct smcnl *nl, struct smc_netns **ret, size_t *ret_n)
{
	_cleanup_(freep) struct smc_netns *v = NULL;
	char dir[PATH_MAX];
	struct dirent *de;
	size_t n = 0;
	DIR *d;
	int r;

	r = smcnl_path(nl, dir, sizeof(dir), NETNS_DIR);
	if (r < 0)
		return r;
	d = opendir(dir);
	if (!d) {
		if (errno != ENOENT)
			return negative_errno();
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	while ((de = readdir(d))) {
		struct smc_netns *nv;
		struct stat st;

		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(v->name))
			continue;
		/* Gone meanwhile (ip netns del): not there.  Any other error is no "not there":
		 * the listing fails and says why (its namespaces would go unread in silence). */
		if (fstatat(dirfd(d), de->d_name, &st, 0) < 0) {
			if (errno == ENOENT)
				continue;
			r = negative_errno();
			closedir(d);
			return r;
		}
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv) {
			closedir(d);
			return -ENOMEM;
		}
		v = nv;
		v[n] = (struct smc_netns){ .dev = st.st_dev, .ino = st.st_ino };
		snprintf(v[n].name, sizeof(v[n].name), "%s", de->d_name);
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), netns_cmp);
	*ret = TAKE_PTR(v);
	*ret_n = n;
	return 0;
}

int smcnl_open_netns(const struct smcnl_options *opts, const struct smc_netns *ns, struct smcnl **ret)
{
	_cleanup_(closep) int fd = -1;
	struct smcnl *nl;
	char path[PATH_MAX];
	struct stat st;
	int r;

	if (!ns || !ns->name[0] || strchr(ns->name, '/') || streq(ns->name, "..") || !ret)
		return -EINVAL;
	r = smcnl_open(opts, &nl);
	if (r < 0)
		return r;
	r = smcnl_path(nl, path, sizeof(path), NETNS_DIR "/%s", ns->name);
	if (r < 0)
		goto fail;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = negative_errno();
		goto fail;
	}
	if ((uint64_t)st.st_dev != ns->dev || (uint64_t)st.st_ino != ns->ino) {
		r = -ESTALE;
		goto fail;
	}
	/* A replayed handle creates no socket; a real one must be given a network namespace
	 * (a stale file left in /run/netns is none), or setns() would refuse each socket. */
	if (!smcnl_replaying(nl) && ioctl(fd, NS_GET_NSTYPE) != CLONE_NEWNET) {
		r = -EINVAL;
		goto fail;
	}
	nl->netns_fd = TAKE_FD(fd);
	*ret = nl;
	return 0;
fail:
	smcnl_close(nl);
	return r;
}
