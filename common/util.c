// SPDX-License-Identifier: GPL-2.0-or-later
#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/macro.h"

#include "common/util.h"

char *strstrip_trailing(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

bool str_all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

int fd_write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static char untrusted_why[4400];

const char *textfile_untrusted(void)
{
	return untrusted_why[0] ? untrusted_why : NULL;
}

bool stat_is_ours(const struct stat *st, bool root_too)
{
	return (st->st_uid == geteuid() || (root_too && st->st_uid == 0)) &&
	       !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/*
 * The directory dir, opened one component at a time from / (or the working directory) with
 * O_NOFOLLOW, so that no component is a symlink, and itself owned by root or the caller's
 * euid and writable by nobody else.  Debian's /var/lib/prometheus/node-exporter is root's,
 * 0755, in /var/lib/prometheus, which is prometheus's: that user can rename the directory
 * and put a symlink or a directory of its own there (issue 35: the agent then wrote
 * smc.prom as root wherever the symlink pointed).  Either is refused here; what the
 * directory holds is then reached only through the returned fd (openat, renameat, unlinkat),
 * so that a swap after the check changes nothing.  An O_PATH fd, or -EPERM with
 * textfile_untrusted() saying why, or another -errno.
 */
int textfile_dir_open(const char *dir)
{
	_cleanup_(closep) int fd = -1;
	const char *p = dir;
	struct stat st;

	untrusted_why[0] = '\0';
	/* O_PATH: a directory the caller may write and not list (mode 0300) is still one. */
	fd = open(*dir == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	while (*p) {
		size_t n = strcspn(p, "/");
		char name[256];
		int nfd;

		if (n == 0 || (n == 1 && *p == '.')) {
			p += n + (p[n] == '/');
			continue;
		}
		if (n >= sizeof(name))
			return -ENAMETOOLONG;
		memcpy(name, p, n);
		name[n] = '\0';
		nfd = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0 && (errno == ELOOP || errno == ENOTDIR) &&
		    fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
			snprintf(untrusted_why, sizeof(untrusted_why),
				 "refusing the directory %s: %.*s is a symlink; name the directory by its real path",
				 dir, (int)(p - dir + n), dir);
			return -EPERM;
		}
		if (nfd < 0)
			return negative_errno();
		close(fd);
		fd = nfd;
		p += n + (p[n] == '/');
	}
	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (!stat_is_ours(&st, true)) {
		snprintf(untrusted_why, sizeof(untrusted_why),
			 "refusing the directory %s: it is owned by uid %u with mode %04o, and only a directory of root's that no one else may write is trusted; make it so (chown root %s; chmod go-w %s), or choose another",
			 dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777), dir, dir);
		return -EPERM;
	}
	return TAKE_FD(fd);
}

/* A temporary ".NAME.XXXXXX" created in dfd, never through a symlink, never an old file. */
static int open_temp(int dfd, const char *name, char *ret_tmp, size_t size)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

	for (int tries = 0; tries < 100; tries++) {
		uint64_t rnd = 0;
		char x[7];
		int fd;

		if (getentropy(&rnd, sizeof(rnd)) < 0)
			return negative_errno();
		for (size_t i = 0; i < 6; i++, rnd /= sizeof(chars) - 1)
			x[i] = chars[rnd % (sizeof(chars) - 1)];
		x[6] = '\0';
		if ((size_t)snprintf(ret_tmp, size, ".%s.%s", name, x) >= size)
			return -ENAMETOOLONG;
		fd = openat(dfd, ret_tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : negative_errno();
	}
	return -EEXIST;
}

/* path's directory (opened by textfile_dir_open()) and its last component. */
static int split_open(const char *path, const char **ret_name)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];

	if (!slash || !slash[1] || (size_t)(slash - path) >= sizeof(dir) - 1)
		return -EINVAL;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash == path ? 1 : slash - path), path);
	*ret_name = slash + 1;
	return textfile_dir_open(dir);
}

static int replace(const char *path, const char *data, size_t len, unsigned mode, bool durable,
		   int *ret_sync_error)
{
	_cleanup_(closep) int dfd = -1, fd = -1;
	const char *name;
	char tmp[300];
	int r;

	dfd = split_open(path, &name);
	if (dfd < 0)
		return dfd;
	/* ".smc.prom.XXXXXX": hidden, and not *.prom, so node_exporter never reads it. */
	fd = open_temp(dfd, name, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	r = fd_write_all(fd, data, len);
	if (r >= 0 && fchmod(fd, mode) < 0)
		r = negative_errno();
	if (r >= 0 && durable && fsync(fd) < 0)
		r = negative_errno();
	/* Without the fsync a write error may only show at close() (NFS, quotas): closed and
	 * checked here, so that a short file never replaces a whole one. */
	if (close(fd) < 0 && errno != EINTR && r >= 0)
		r = negative_errno();
	fd = -1;
	if (r >= 0 && renameat(dfd, tmp, dfd, name) < 0)
		r = negative_errno();
	if (r < 0) {
		(void)unlinkat(dfd, tmp, 0);
		return r;
	}
	if (!durable)
		return 0;
	/* Renamed: path is the new file whatever follows, so a failure now is no "not
	 * written" (a caller putting its old text back would undo a change that was made). */
	fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	r = fd < 0 || fsync(fd) < 0 ? negative_errno() : 0;
	if (ret_sync_error)
		*ret_sync_error = r < 0 ? r : 0;
	return r < 0 ? TEXTFILE_NOT_DURABLE : 0;
}

int textfile_unlink(const char *path)
{
	_cleanup_(closep) int dfd = -1;
	const char *name;

	dfd = split_open(path, &name);
	if (dfd < 0)
		return dfd;
	return unlinkat(dfd, name, 0) < 0 ? negative_errno() : 0;
}

int textfile_write_atomic(const char *path, const char *data, size_t len, unsigned mode,
			  int *ret_sync_error)
{
	return replace(path, data, len, mode, true, ret_sync_error);
}

int textfile_replace(const char *path, const char *data, size_t len, unsigned mode)
{
	return replace(path, data, len, mode, false, NULL);
}

int fd_read_small(int fd, size_t max, char **ret, size_t *ret_len)
{
	_cleanup_(freep) char *buf = malloc(max + 1);
	size_t len = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n = read(fd, buf + len, max - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return negative_errno();
		if (n == 0)
			break;
		len += (size_t)n;
		if (len == max)
			return -EFBIG;
	}
	buf[len] = '\0';
	*ret = TAKE_PTR(buf);
	if (ret_len)
		*ret_len = len;
	return 0;
}

int textfile_read_small(const char *path, size_t max, char **ret)
{
	_cleanup_(closep) int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	*ret = NULL;
	if (fd < 0)
		return errno == ENOENT ? 0 : negative_errno();
	return fd_read_small(fd, max, ret, NULL);
}

int cgroup_id_of(const char *dir, uint64_t *ret)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh.handle_bytes = sizeof(uint64_t) };
	struct stat st;
	int mnt;

	/* The file handle of a cgroup2 directory is its kernfs id (systemd does the same). */
	if (name_to_handle_at(AT_FDCWD, dir, &h.fh, &mnt, 0) == 0 &&
	    h.fh.handle_bytes == sizeof(uint64_t)) {
		memcpy(ret, h.fh.f_handle, sizeof(*ret));
		return 0;
	}
	if (errno != EOPNOTSUPP && errno != EOVERFLOW)
		return negative_errno();
	/* On 64-bit kernels the inode number is the id as well. */
	if (stat(dir, &st) < 0)
		return negative_errno();
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	*ret = st.st_ino;
	return 0;
}
