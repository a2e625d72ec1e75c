// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Files under the sysroot (/sys, /proc, or a recorded tree in tests), and the DIBS class.
 *
 * DIBS (6.18+) has no netlink interface; /sys/class/dibs/<name>/ has "gid" (a UUID, %pUb)
 * and "fabric_id" ("0x%04x"; 0xffff = loopback), and a "device" link to the parent for
 * devices with one (ISM: the PCI function).  Kernels 6.10-6.17 had the loopback device
 * ("loopback-ism") inside smc.ko, never added to sysfs: nothing lists it there, see
 * device.c.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netlink/smcnl-internal.h"

int smcnl_path(const struct smcnl *nl, char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n, m;

	n = snprintf(buf, len, "%s", nl->sysroot ? nl->sysroot : "");
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	va_start(ap, fmt);
	m = vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
	if (m < 0 || (size_t)m >= len - n)
		return -ENAMETOOLONG;
	return 0;
}

bool smcnl_path_exists(const struct smcnl *nl, const char *p)
{
	char path[PATH_MAX];

	return smcnl_path(nl, path, sizeof(path), "%s", p) == 0 && access(path, F_OK) == 0;
}

int smcnl_read_file(const char *path, char *buf, size_t len)
{
	return smcnl_read_file_at(AT_FDCWD, path, buf, len);
}

int smcnl_read_file_at(int dfd, const char *path, char *buf, size_t len)
{
	_cleanup_(closep) int fd = openat(dfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	ssize_t n;

	if (fd < 0)
		return negative_errno();
	if (len == 0)
		return -EINVAL;
	n = read(fd, buf, len - 1);
	if (n < 0)
		return negative_errno();
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = '\0';
	return (int)n;
}

bool smcnl_dibs_class_exists(const struct smcnl *nl)
{
	char path[PATH_MAX];
	struct stat st;

	if (smcnl_path(nl, path, sizeof(path), "/sys/class/dibs") < 0)
		return false;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* "xxxxxxxx-xxxx-..." → 32 lower-case hex digits; false if it is not a UUID. */
static bool uuid_to_hex(const char *uuid, char hex[33])
{
	size_t n = 0;

	for (const char *p = uuid; *p; p++) {
		if (*p == '-')
			continue;
		if (!isxdigit((unsigned char)*p) || n >= 32)
			return false;
		hex[n++] = (char)tolower((unsigned char)*p);
	}
	hex[n] = '\0';
	return n == 32;
}

/*
 * The files WHAT asks for of the device d->name, in the class directory classfd.  They are
 * opened from the device's own directory, so its class link and the path above are walked
 * once per device, not once per file (sysfs opens cost some 25 thousand instructions under
 * TCG, most of it the walk: bench/smcctl-vs-smctools).
 */
static void dibs_read_one(int classfd, unsigned what, struct smcnl_dibs *d)
{
	_cleanup_(closep) int dfd = -1;
	char buf[128], link[PATH_MAX];
	ssize_t n;

	if (!what)
		return;
	dfd = openat(classfd, d->name, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;
	if ((what & SMCNL_DIBS_GID) && smcnl_read_file_at(dfd, "gid", buf, sizeof(buf)) > 0 &&
	    strlen(buf) <= SMC_UUID_TEXT_LEN && uuid_to_hex(buf, d->gid_hex))
		snprintf(d->gid, sizeof(d->gid), "%s", buf);
	if ((what & SMCNL_DIBS_FABRIC) && smcnl_read_file_at(dfd, "fabric_id", buf, sizeof(buf)) > 0) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(buf, &end, 16);
		if (errno == 0 && end != buf && *end == '\0' && v <= UINT16_MAX) {
			d->has_fabric_id = true;
			d->fabric_id = (uint16_t)v;
		}
	}
	if (what & SMCNL_DIBS_PARENT) {
		n = readlinkat(dfd, "device", link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			snprintf(d->parent, sizeof(d->parent), "%s", basename(link));
		}
	}
}

static int dibs_cmp(const void *a, const void *b)
{
	return strcmp(((const struct smcnl_dibs *)a)->name, ((const struct smcnl_dibs *)b)->name);
}

static int dibs_list(const struct smcnl *nl, unsigned what, struct smcnl_dibs **ret, size_t *ret_n,
		     bool *ret_class)
{
	_cleanup_(freep) struct smcnl_dibs *v = NULL;
	char path[PATH_MAX];
	struct dirent *de;
	size_t n = 0;
	DIR *dir;
	int r;

	*ret = NULL;
	*ret_n = 0;
	*ret_class = false;
	r = smcnl_path(nl, path, sizeof(path), "/sys/class/dibs");
	if (r < 0)
		return r;
	dir = opendir(path);
	if (!dir)
		return errno == ENOENT || errno == ENOTDIR ? 0 : negative_errno();
	*ret_class = true;
	while ((de = readdir(dir))) {
		struct smcnl_dibs *nv;

		if (de->d_name[0] == '.' || strlen(de->d_name) >= SMC_DIBS_NAME_LEN)
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv) {
			closedir(dir);
			return -ENOMEM;
		}
		v = nv;
		memset(&v[n], 0, sizeof(v[n]));
		snprintf(v[n].name, sizeof(v[n].name), "%s", de->d_name);
		dibs_read_one(dirfd(dir), what, &v[n++]);
	}
	closedir(dir);
	if (n > 1)
		qsort(v, n, sizeof(*v), dibs_cmp);
	*ret = TAKE_PTR(v);
	*ret_n = n;
	return 0;
}

static int dibs_copy(const struct smcnl_dibs *v, size_t n, struct smcnl_dibs **ret)
{
	*ret = NULL;
	if (n == 0)
		return 0;
	*ret = malloc(n * sizeof(*v));
	if (!*ret)
		return -ENOMEM;
	memcpy(*ret, v, n * sizeof(*v));
	return 0;
}

int smcnl_dibs_read(struct smcnl *nl, unsigned what, struct smcnl_dibs **ret, size_t *ret_n,
		    bool *ret_class)
{
	struct smcnl_dibs *v;
	size_t n;
	bool class;
	int r;

	if (!nl->snapshot)
		return dibs_list(nl, what, ret, ret_n, ret_class);
	if (!nl->dibs_what) {
		r = dibs_list(nl, what, &v, &n, &class);
		if (r < 0)
			return r;
		nl->dibs = v;
		nl->n_dibs = n;
		nl->dibs_class = class;
		nl->dibs_what = what;
	} else if ((nl->dibs_what & what) != what) {
		/* The same devices, with what they lack. */
		char path[PATH_MAX];
		_cleanup_(closep) int classfd = -1;

		r = smcnl_path(nl, path, sizeof(path), "/sys/class/dibs");
		if (r < 0)
			return r;
		classfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		/* Listed a moment ago: a class that cannot be opened now is an error, not
		 * devices without the fields asked for (nothing is marked as read). */
		if (classfd < 0 && nl->n_dibs)
			return negative_errno();
		for (size_t i = 0; classfd >= 0 && i < nl->n_dibs; i++)
			dibs_read_one(classfd, what & ~nl->dibs_what, &nl->dibs[i]);
		nl->dibs_what |= what;
	}
	r = dibs_copy(nl->dibs, nl->n_dibs, ret);
	if (r < 0)
		return r;
	*ret_n = nl->n_dibs;
	*ret_class = nl->dibs_class;
	return 0;
}

void smcnl_snapshot_begin(struct smcnl *nl)
{
	smcnl_snapshot_end(nl);
	nl->snapshot = true;
}

void smcnl_snapshot_end(struct smcnl *nl)
{
	free(nl->dibs);
	nl->dibs = NULL;
	nl->n_dibs = 0;
	nl->dibs_what = 0;
	nl->dibs_class = false;
	nl->snapshot = false;
}

void smcnl_dibs_gid(struct smcnl *nl, const char *name, char *gid, size_t len)
{
	char path[PATH_MAX], buf[128], hex[33];

	if (len)
		gid[0] = '\0';
	if (smcnl_path(nl, path, sizeof(path), "/sys/class/dibs/%s/gid", name) == 0 &&
	    smcnl_read_file(path, buf, sizeof(buf)) > 0 && strlen(buf) <= SMC_UUID_TEXT_LEN &&
	    uuid_to_hex(buf, hex))
		snprintf(gid, len, "%s", buf);
}
