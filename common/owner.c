// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/macro.h"
#include "common/owner.h"
#include "common/util.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir);

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct sock_proc *x = a, *y = b;

	if (x->inode != y->inode)
		return x->inode < y->inode ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* "socket:[12345]" -> 12345; 0 for anything else (a file, a pipe, "anon_inode:..."). */
static uint64_t socket_inode(const char *link)
{
	const char *p = link + strlen("socket:[");
	char *end;
	unsigned long long v;

	if (strncmp(link, "socket:[", strlen("socket:[")) != 0)
		return 0;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno || end == p || strcmp(end, "]") != 0)
		return 0;
	return v;
}

/* A small file of the process directory, first line without its newline; "" if unreadable. */
static void read_line_at(int dirfd, const char *name, char *buf, size_t len)
{
	_cleanup_(closep) int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t k;

	buf[0] = '\0';
	if (fd < 0)
		return;
	k = read(fd, buf, len - 1);
	if (k <= 0) {
		buf[0] = '\0';
		return;
	}
	buf[k] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/*
 * The unified hierarchy's path from /proc/PID/cgroup: the "0::PATH" line (cgroup v2, and
 * the hybrid layout); on a v1-only host systemd's own "name=systemd" hierarchy.
 */
static char *read_cgroup(int dirfd)
{
	_cleanup_(closep) int fd = openat(dirfd, "cgroup", O_RDONLY | O_CLOEXEC);
	_cleanup_(fclosep) FILE *f = NULL;
	_cleanup_(freep) char *line = NULL, *v1 = NULL;
	size_t cap = 0;

	if (fd < 0 || !(f = fdopen(fd, "re")))
		return NULL;
	TAKE_FD(fd);
	while (getline(&line, &cap, f) > 0) {
		char *path;

		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "0::", 3) == 0)
			return strdup(line + 3);
		path = strstr(line, ":name=systemd:");
		if (path && !v1)
			v1 = strdup(path + strlen(":name=systemd:"));
	}
	return TAKE_PTR(v1);
}

struct scan {
	const uint64_t *want; /* sorted, unique */
	size_t n_want;
	struct sock_proc *procs;
	size_t n, cap;
};

static int add_match(struct scan *s, uint64_t inode, pid_t pid, int fd, size_t first_of_pid)
{
	/* One entry per process and socket: the lowest descriptor (dup()s say nothing new). */
	for (size_t i = first_of_pid; i < s->n; i++)
		if (s->procs[i].inode == inode) {
			if (fd < s->procs[i].fd)
				s->procs[i].fd = fd;
			return 0;
		}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct sock_proc *p = reallocarray(s->procs, cap, sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->procs = p;
		s->cap = cap;
	}
	s->procs[s->n++] = (struct sock_proc){ .inode = inode, .pid = pid, .fd = fd };
	return 0;
}

/* One /proc/PID: its socket descriptors that are wanted.  0, or -ENOMEM. */
static int scan_pid(struct scan *s, int procfd, const char *name, size_t *unreadable)
{
	_cleanup_(closep) int pidfd = openat(procfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_(closedirp) DIR *fds = NULL;
	size_t first = s->n;
	pid_t pid = (pid_t)strtol(name, NULL, 10);
	struct dirent *de;
	int fdfd;

	if (pidfd < 0)
		return 0; /* gone */
	fdfd = openat(pidfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fdfd < 0) {
		if (errno == EACCES || errno == EPERM)
			(*unreadable)++;
		return 0;
	}
	if (!(fds = fdopendir(fdfd))) {
		close(fdfd);
		return 0;
	}
	while ((de = readdir(fds))) {
		char link[64];
		ssize_t k;
		uint64_t ino;

		if (!str_all_digits(de->d_name))
			continue;
		k = readlinkat(dirfd(fds), de->d_name, link, sizeof(link) - 1);
		if (k <= 0)
			continue;
		link[k] = '\0';
		ino = socket_inode(link);
		if (!ino || !bsearch(&ino, s->want, s->n_want, sizeof(*s->want), cmp_u64))
			continue;
		if (add_match(s, ino, pid, (int)strtol(de->d_name, NULL, 10), first) < 0)
			return -ENOMEM;
	}
	if (s->n == first)
		return 0;
	/* The process's command and cgroup, shared by its entries (the first one owns them). */
	char comm[sizeof(s->procs[0].comm)];
	char *cg;

	read_line_at(pidfd, "comm", comm, sizeof(comm));
	cg = read_cgroup(pidfd);
	for (size_t i = first; i < s->n; i++) {
		memcpy(s->procs[i].comm, comm, sizeof(comm));
		s->procs[i].cgroup = i == first ? cg : (cg ? strdup(cg) : NULL);
		if (cg && !s->procs[i].cgroup)
			return -ENOMEM;
	}
	return 0;
}

int sock_owners_scan(const char *proc, const uint64_t *inodes, size_t n, struct sock_owners *o)
{
	_cleanup_(freep) uint64_t *want = NULL;
	_cleanup_(closedirp) DIR *d = NULL;
	struct scan s = {};
	struct dirent *de;
	size_t k = 0, unreadable = 0;
	int r = 0;

	*o = (struct sock_owners){};
	if (n == 0)
		return 0;
	if (!(want = malloc(n * sizeof(*want))))
		return -ENOMEM;
	memcpy(want, inodes, n * sizeof(*want));
	qsort(want, n, sizeof(*want), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (want[i] && (k == 0 || want[k - 1] != want[i]))
			want[k++] = want[i];
	s.want = want;
	s.n_want = k;
	if (!(d = opendir(proc)))
		return -errno;
	while ((de = readdir(d)))
		if (str_all_digits(de->d_name) &&
		    (r = scan_pid(&s, dirfd(d), de->d_name, &unreadable)) < 0)
			break;
	o->procs = s.procs;
	o->n = s.n;
	o->unreadable = unreadable;
	if (r < 0) {
		sock_owners_done(o);
		return r;
	}
	if (o->n)
		qsort(o->procs, o->n, sizeof(*o->procs), cmp_proc);
	return 0;
}

size_t sock_owners_of(const struct sock_owners *o, uint64_t inode, const struct sock_proc **first)
{
	size_t lo = 0, hi = o->n, end;

	*first = NULL;
	while (lo < hi) { /* the first entry with this inode or above */
		size_t mid = lo + (hi - lo) / 2;

		if (o->procs[mid].inode < inode)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < o->n && o->procs[end].inode == inode; end++)
		;
	if (end > lo)
		*first = &o->procs[lo];
	return end - lo;
}

void sock_owners_done(struct sock_owners *o)
{
	for (size_t i = 0; i < o->n; i++)
		free(o->procs[i].cgroup);
	free(o->procs);
	*o = (struct sock_owners){};
}

/* ---------------------------------------------------------------------------------- */
/* Units                                                                               */

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t k = strlen(suffix);

	return len > k && memcmp(s + len - k, suffix, k) == 0;
}

/* A unit name as systemd puts it in a cgroup path: NAME.TYPE, of a type with a cgroup. */
static bool is_unit(const char *s, size_t len)
{
	static const char *const types[] = { ".service", ".scope", ".slice",
					     ".socket",	 ".mount", ".swap" };

	for (size_t i = 0; i < ELEMENTSOF(types); i++)
		if (ends_with(s, len, types[i]))
			return true;
	return false;
}

static void copy_component(char *dst, size_t dst_len, const char *s, size_t len)
{
	if (dst_len == 0)
		return;
	if (len >= dst_len)
		len = dst_len - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

void cgroup_units(const char *cgroup, char *unit, size_t unit_len, char *user_unit,
		  size_t user_unit_len)
{
	const char *p = cgroup ? cgroup : "";
	bool have_unit = false;

	if (unit_len)
		unit[0] = '\0';
	if (user_unit_len)
		user_unit[0] = '\0';
	while (*p) {
		size_t len;

		p += strspn(p, "/");
		len = strcspn(p, "/");
		if (len == 0)
			break;
		const char *c = p;

		p += len;
		/* systemd escapes a name that would clash with a kernel file with '_'. */
		if (c[0] == '_') {
			c++;
			len--;
		}
		if (ends_with(c, len, ".slice"))
			continue;
		if (!is_unit(c, len))
			return; /* a cgroup of its own below (or instead of) the units */
		if (!have_unit) {
			copy_component(unit, unit_len, c, len);
			have_unit = true;
			/* Only a user manager has units of its own below it. */
			if (!(len > strlen("user@") && startswith(c, "user@") &&
			      ends_with(c, len, ".service")))
				return;
			continue;
		}
		copy_component(user_unit, user_unit_len, c, len);
		return;
	}
}
