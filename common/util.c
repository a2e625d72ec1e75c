// SPDX-License-Identifier: GPL-2.0-or-later
#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static int write_all(int fd, const char *p, size_t len)
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

static int fsync_dir(const char *dir)
{
	_cleanup_(closep) int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || fsync(fd) < 0)
		return negative_errno();
	return 0;
}

static int replace(const char *path, const char *data, size_t len, unsigned mode, bool durable,
		   int *ret_sync_error)
{
	const char *slash = strrchr(path, '/');
	char dir[4096], tmp[4200];
	_cleanup_(closep) int fd = -1;
	int r;

	if (!slash || (size_t)(slash - path) >= sizeof(dir) - 1)
		return -EINVAL;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash == path ? 1 : slash - path), path);
	/* ".smc.prom.XXXXXX": hidden, and not *.prom, so node_exporter never reads it. */
	snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, slash + 1);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	r = write_all(fd, data, len);
	if (r >= 0 && fchmod(fd, mode) < 0)
		r = negative_errno();
	if (r >= 0 && durable && fsync(fd) < 0)
		r = negative_errno();
	/* Without the fsync a write error may only show at close() (NFS, quotas): closed and
	 * checked here, so that a short file never replaces a whole one. */
	if (close(fd) < 0 && errno != EINTR && r >= 0)
		r = negative_errno();
	fd = -1;
	if (r >= 0 && rename(tmp, path) < 0)
		r = negative_errno();
	if (r < 0) {
		(void)unlink(tmp);
		return r;
	}
	if (!durable)
		return 0;
	/* Renamed: path is the new file whatever follows, so a failure now is no "not
	 * written" (a caller putting its old text back would undo a change that was made). */
	r = fsync_dir(dir);
	if (ret_sync_error)
		*ret_sync_error = r < 0 ? r : 0;
	return r < 0 ? TEXTFILE_NOT_DURABLE : 0;
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

int textfile_read_small(const char *path, size_t max, char **ret)
{
	_cleanup_(closep) int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	_cleanup_(freep) char *buf = NULL;
	size_t len = 0;

	*ret = NULL;
	if (fd < 0)
		return errno == ENOENT ? 0 : negative_errno();
	buf = malloc(max + 1);
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
	return 0;
}
