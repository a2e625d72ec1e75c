// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reading a configuration file: a regular file only (never a FIFO, a directory or a device,
 * opened non-blocking), at most 4 MiB, no NUL byte; for the agent's own drop-ins, a file of
 * the reader's own that nobody else may write; the error line a user reads; the revision
 * hash.  Below config.c and dropin.c, which both read through it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/macro.h"
#include "common/util.h"
#include "config/config.h"
#include "config/sections.h"

uint64_t config_fnv1a64(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/*
 * Opened non-blocking and checked to be a regular file before anything is read: a FIFO at
 * the config path would block the agent until a writer came, a directory or a device is a
 * mistake to say so about.  -EBADFD for such a file, whose kind *ret_kind names.
 */
int config_read_file(const char *path, char **ret, size_t *ret_len, const char **ret_kind)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return negative_errno();
	return config_read_fd(fd, false, ret, ret_len, ret_kind);
}

bool config_stat_owned(const struct stat *st)
{
	return stat_is_ours(st, false);
}

int config_read_fd(int fd, bool owned, char **ret, size_t *ret_len, const char **ret_kind)
{
	_cleanup_(fclosep) FILE *f = NULL;
	_cleanup_(freep) char *buf = NULL;
	size_t len = 0, cap = 0;
	struct stat st;

	if (fstat(fd, &st) < 0) {
		int r = negative_errno();

		close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		*ret_kind = S_ISDIR(st.st_mode)	   ? "a directory"
			    : S_ISFIFO(st.st_mode) ? "a FIFO"
			    : S_ISSOCK(st.st_mode) ? "a socket"
			    : S_ISCHR(st.st_mode)  ? "a character device"
			    : S_ISBLK(st.st_mode)  ? "a block device"
						   : "not a regular file";
		return -EBADFD;
	}
	if (owned && !config_stat_owned(&st)) {
		close(fd);
		*ret_kind = "file";
		return -EPERM;
	}
	f = fdopen(fd, "re");
	if (!f) {
		int r = negative_errno();

		close(fd);
		return r;
	}
	for (;;) {
		size_t n;

		if (len + 4096 + 1 > cap) {
			char *b;

			cap = cap ? cap * 2 : 8192;
			if (cap > 4 * 1024 * 1024)
				return -EFBIG;
			b = realloc(buf, cap);
			if (!b)
				return -ENOMEM;
			buf = b;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0) {
			if (ferror(f))
				return -EIO;
			break;
		}
	}
	buf[len] = '\0';
	if (strlen(buf) != len)
		return -EBADMSG;
	*ret = TAKE_PTR(buf);
	*ret_len = len;
	return 0;
}

void config_read_error(struct config_errors *errors, const char *path, int r, const char *kind)
{
	char *line = NULL;
	int k;

	if (r == -EBADFD)
		k = asprintf(&line, "%s: is %s (expected a regular YAML file)", path, kind);
	else if (r == -EPERM && kind)
		k = asprintf(
			&line,
			"%s: the %s is not the agent's own: it must be owned by %s and not writable by group or others (chown %s; chmod go-w)",
			path, kind, geteuid() == 0 ? "root" : "the agent's user",
			geteuid() == 0 ? "root" : "it");
	else if (r == -ELOOP)
		k = asprintf(
			&line,
			"%s: is a symbolic link, which is not followed here (expected the file itself: replace the link with a copy)",
			path);
	else
		k = asprintf(&line, "%s: cannot read: %s (expected a readable YAML file)", path,
			     r == -EBADMSG ? "the file contains a NUL byte" : strerror(-r));
	if (k >= 0)
		config_errors_add(errors, (struct config_mark){}, line);
}
