// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smc.yaml's drop-ins (dropin.h): reading FILE.d/ after FILE, and the names and text of the
 * unit drop-ins that "smcctl enable" writes.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/macro.h"
#include "config/sections.h"

char *config_dropin_dir(const char *config_path)
{
	char *s = NULL;

	return asprintf(&s, "%s.d", config_path) < 0 ? NULL : s;
}

/* ---- reading -------------------------------------------------------------------------- */

/* NAME.yaml, not hidden: editors' and our own temporaries (".NAME.XXXXXX") are skipped. */
static bool dropin_name(const char *name)
{
	size_t n = strlen(name), s = strlen(CONFIG_DROPIN_SUFFIX);

	return name[0] != '.' && n > s && streq(name + n - s, CONFIG_DROPIN_SUFFIX);
}

static int dropin_key(struct ctx *ctx, const char *section, const struct ynode *k,
		      const struct ynode *v, const void *userdata)
{
	if (streq(k->value, "policies"))
		return section_policies(ctx, k, v);
	error_at(ctx, k->mark,
		 "%s: only policies: may be set in a drop-in (expected policies: with cgroups, netns or exclude; set %s in %s)",
		 k->value, k->value, ctx->config->path);
	return -EINVAL;
}

/* The file's name is kept by the config: its entries point at it. */
static char *dropin_remember(struct config *c, const char *path)
{
	char **v = realloc(c->dropins, (c->n_dropins + 1) * sizeof(*v)), **t;

	if (!v)
		return NULL;
	c->dropins = v;
	t = realloc(c->dropin_texts, (c->n_dropins + 1) * sizeof(*t));
	if (!t)
		return NULL;
	c->dropin_texts = t;
	t[c->n_dropins] = NULL;
	v[c->n_dropins] = strdup(path);
	return v[c->n_dropins] ? v[c->n_dropins++] : NULL;
}

/* An error of a whole file or directory: "PATH: ...". */
_printf_(2, 3) static void dropin_error(struct ctx *ctx, const char *fmt, ...)
{
	char *line = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) >= 0)
		config_errors_add(ctx->errors, (struct config_mark){}, line);
	va_end(ap);
}

/* DIR/NAME: its text read (fd >= 0, taken) or given (fd < 0, text). */
static int dropin_load(struct ctx *main, const char *dir, const char *name, int fd,
		       const char *given, bool owned)
{
	struct config *c = main->config;
	_cleanup_(ynode_freep) struct ynode *root = NULL;
	_cleanup_(freep) char *path = NULL, *read = NULL;
	const char *kind = NULL, *stored, *text = given;
	struct ctx ctx = { .errors = main->errors, .config = c, .keys = main->keys };
	size_t len;
	int r;

	if (asprintf(&path, "%s/%s", dir, name) < 0 || !(stored = dropin_remember(c, path))) {
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	ctx.path = ctx.source = stored;
	if (fd >= 0) {
		r = config_read_fd(fd, owned, &read, &len, &kind);
		if (r < 0) {
			config_read_error(main->errors, path, r, kind);
			return r == -ENOMEM ? r : -EINVAL;
		}
		text = read;
	} else
		len = strlen(text);
	c->dropin_texts[c->n_dropins - 1] = strndup(text, len);
	if (!c->dropin_texts[c->n_dropins - 1])
		return -ENOMEM;
	/* The revision covers the drop-ins: a changed one is a new configuration. */
	c->hash = config_fnv1a64(c->hash, path, strlen(path) + 1);
	c->hash = config_fnv1a64(c->hash, text, len);
	r = ytree_parse(&ctx, text, len, &root);
	if (r < 0 || !root || node_is_null(root))
		return r;
	if (root->type != YNODE_MAP) {
		error_at(&ctx, root->mark, "the drop-in is %s (expected a mapping with policies:)",
			 node_type_name(root));
		return -EINVAL;
	}
	return walk_map(&ctx, root, "drop-in", dropin_key, NULL);
}

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir);

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * The NAME.yaml of the open directory fd, sorted (*ret: n names, caller frees each and
 * the array); -errno.
 */
static int dropin_names(int fd, char ***ret, size_t *ret_n)
{
	_cleanup_(closedirp) DIR *d = NULL;
	char **v = NULL;
	size_t n = 0;
	int dfd = fcntl(fd, F_DUPFD_CLOEXEC, 3), r = 0;

	if (dfd < 0)
		return negative_errno();
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return negative_errno();
	}
	for (;;) {
		struct dirent *de;
		char **w;

		errno = 0;
		de = readdir(d);
		if (!de) {
			r = errno ? -errno : 0;
			break;
		}
		if (!dropin_name(de->d_name))
			continue;
		w = realloc(v, (n + 1) * sizeof(*v));
		if (w)
			v = w;
		if (!w || !(v[n] = strdup(de->d_name))) {
			r = -ENOMEM;
			break;
		}
		n++;
	}
	if (r < 0) {
		while (n > 0)
			free(v[--n]);
		free(v);
		return r;
	}
	if (n > 0)
		qsort(v, n, sizeof(*v), compare_names);
	*ret = v;
	*ret_n = n;
	return 0;
}

/*
 * The directory opened without following a symbolic link, and, owned, checked to be the
 * reader's own: the agent, as root, reads only what root alone can change (a link or a
 * file of another user would let that user choose what root reads, and the errors quote
 * what they read).  Each file is opened relative to it, O_NOFOLLOW as well.
 */
static int dropins_read_dir(struct ctx *ctx, const char *dir, bool owned)
{
	_cleanup_(closep) int fd = -EBADF;
	char **names = NULL;
	size_t n = 0;
	struct stat st;
	int r, ret = 0;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* No directory is no drop-ins; one that cannot be read is no "none". */
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0 && errno == ENOMEM)
		return -ENOMEM;
	/* O_DIRECTORY on a link says ENOTDIR, O_NOFOLLOW on one ELOOP. */
	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR) && lstat(dir, &st) == 0 &&
	    S_ISLNK(st.st_mode)) {
		dropin_error(
			ctx,
			"%s: is a symbolic link, which is not followed here (expected the directory itself, of NAME.yaml files, or none)",
			dir);
		return -EINVAL;
	}
	if (fd < 0 || fstat(fd, &st) < 0) {
		dropin_error(
			ctx,
			"%s: cannot read the drop-in directory: %s (expected a directory of NAME.yaml files, or none)",
			dir, strerror(errno));
		return -EINVAL;
	}
	if (owned && !config_stat_owned(&st)) {
		config_read_error(ctx->errors, dir, -EPERM, "directory");
		return -EINVAL;
	}
	r = dropin_names(fd, &names, &n);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		dropin_error(
			ctx,
			"%s: cannot read the drop-in directory: %s (expected a directory of NAME.yaml files, or none)",
			dir, strerror(-r));
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		if (ret != -ENOMEM) {
			int f = openat(fd, names[i],
				       O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);

			r = f >= 0 ? dropin_load(ctx, dir, names[i], f, NULL, owned) : -errno;
			if (f < 0 && r != -ENOMEM) {
				_cleanup_(freep) char *path = NULL;

				if (asprintf(&path, "%s/%s", dir, names[i]) >= 0)
					config_read_error(ctx->errors, path, r, NULL);
				r = -EINVAL;
			}
			if (r < 0 && ret != -ENOMEM)
				ret = r;
		}
		free(names[i]);
	}
	free(names);
	return ret;
}

static int compare_texts(const void *a, const void *b)
{
	return strcmp(((const struct config_dropin_text *)a)->name,
		      ((const struct config_dropin_text *)b)->name);
}

/* Texts the caller read: named as files of dir, in the order of their names. */
static int dropins_given(struct ctx *ctx, const char *dir, const struct config_dropins *d)
{
	_cleanup_(freep) struct config_dropin_text *v = NULL;
	int r, ret = 0;

	if (d->n_texts > CONFIG_DROPIN_TEXTS_MAX) {
		dropin_error(ctx, "%s: %zu drop-ins, more than the %d a plan takes", dir,
			     d->n_texts, CONFIG_DROPIN_TEXTS_MAX);
		return -EINVAL;
	}
	v = calloc(d->n_texts + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (d->n_texts) /* none: texts may be NULL, which memcpy may not be given */
		memcpy(v, d->texts, d->n_texts * sizeof(*v));
	qsort(v, d->n_texts, sizeof(*v), compare_texts);
	for (size_t i = 0; i < d->n_texts; i++) {
		if (!dropin_name(v[i].name) || strchr(v[i].name, '/') ||
		    (i > 0 && streq(v[i].name, v[i - 1].name))) {
			dropin_error(
				ctx,
				"%s/%s: not a drop-in's name, or given twice (expected NAME.yaml, a file name that is not hidden, once)",
				dir, v[i].name);
			ret = -EINVAL;
			continue;
		}
		r = dropin_load(ctx, dir, v[i].name, -EBADF, v[i].text, false);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			ret = r;
	}
	return ret;
}

int config_dropins_load(struct ctx *ctx, const char *dir, const struct config_dropins *d)
{
	if (d->dir)
		return dropins_read_dir(ctx, d->dir, d->owned);
	return dropins_given(ctx, dir, d);
}

/* ---- unit drop-ins ---------------------------------------------------------------------- */

static const char *const cgroup_unit_types[] = { "service", "scope", "slice",
						 "socket",  "mount", "swap" };
static const char *const other_unit_types[] = { "target", "timer", "path", "device", "automount" };

static bool in_list(const char *s, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (streq(s, v[i]))
			return true;
	return false;
}

/* The number in config_unit_name()'s message. */
_Static_assert(CONFIG_UNIT_DROPIN_NAME_MAX == 234, "the drop-in name limit is said as 234");

#define UNIT_NAME_EXPECTED \
	" (expected a unit name such as nginx, nginx.service or getty@tty1.service)"

/*
 * systemd's unit_name_is_valid() for a plain unit or an instance (a template has no
 * processes), of the name as systemctl mangles it (NAME.service when NAME has no unit type
 * suffix): at most 255 characters with the suffix, only [a-zA-Z0-9:-_.\@] before it, a
 * known type after the last dot, '@' not first, and something between '@' and the dot.
 */
int config_unit_name(const char *name, char ret[CONFIG_UNIT_NAME_MAX + 1], const char **ret_why)
{
	const char *dot = strrchr(name, '.');
	bool cgroup = dot && in_list(dot + 1, cgroup_unit_types, ELEMENTSOF(cgroup_unit_types));
	bool other = dot && in_list(dot + 1, other_unit_types, ELEMENTSOF(other_unit_types));
	size_t n = strlen(name), full = n + (cgroup || other ? 0 : strlen(".service"));
	const char *end = cgroup || other ? dot : name + n;
	const char *at = memchr(name, '@', (size_t)(end - name));

	if (n == 0)
		*ret_why = "it is empty" UNIT_NAME_EXPECTED;
	else if (strspn(name,
			"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.\\@") != n)
		*ret_why = "a unit name has only letters, digits and \":-_.\\@\"" UNIT_NAME_EXPECTED;
	else if (end == name)
		*ret_why = "it is only a type suffix" UNIT_NAME_EXPECTED;
	else if (at == name)
		*ret_why = "it starts with '@' (expected NAME@INSTANCE.TYPE for an instance)";
	else if (at && at + 1 == end)
		*ret_why =
			"it is a template (NAME@.TYPE), which runs no processes (expected an instance of it, such as NAME@INSTANCE.service)";
	else if (other)
		*ret_why =
			"this kind of unit runs no processes (expected a service, scope, slice, socket, mount or swap unit)";
	else if (full > CONFIG_UNIT_NAME_MAX)
		*ret_why = "it is longer than 255 characters with its type suffix" UNIT_NAME_EXPECTED;
	else if (full > CONFIG_UNIT_DROPIN_NAME_MAX)
		*ret_why =
			"unit name too long for a drop-in file name: at most 234 characters (with its type suffix, such as .service)";
	else {
		*ret_why = NULL;
		snprintf(ret, CONFIG_UNIT_NAME_MAX + 1, "%s%s", name, cgroup ? "" : ".service");
		return 0;
	}
	return -EINVAL;
}

char *config_unit_dropin_path(const char *config_path, const char *unit)
{
	char *s = NULL;

	return asprintf(&s, "%s.d/" CONFIG_UNIT_DROPIN_PREFIX "%s" CONFIG_DROPIN_SUFFIX,
			config_path, unit) < 0
		       ? NULL
		       : s;
}

char *config_unit_dropin_text(const char *unit, const char *cgroup)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fprintf(f,
		"# smcctl enable %s: the sockets of its cgroup get SMC (smc.yaml(5), DROP-INS).\n"
		"# Written by smcctl or smcd-agent; \"smcctl disable %s\" removes this file.\n"
		"policies:\n  cgroups: [",
		unit, unit);
	config_dump_string(f, cgroup);
	fputs("]\n", f);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

const struct config_policy_target *config_unit_cgroup_find(const struct config *c, const char *unit,
							   const char *skip)
{
	for (size_t i = 0; i < c->policies.n_cgroups; i++) {
		const struct config_policy_target *t = &c->policies.cgroups[i];
		const char *last = strrchr(t->path, '/');

		if (last && streq(last + 1, unit) && !(skip && t->file && streq(t->file, skip)))
			return t;
	}
	return NULL;
}
