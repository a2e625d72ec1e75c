// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smc.yaml's drop-ins (dropin.h): reading FILE.d/ after FILE, and the names and text of the
 * unit drop-ins that "smcctl enable" writes.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "config/sections.h"

char *config_dropin_dir(const char *config_path)
{
	char *s = NULL;

	return asprintf(&s, "%s.d", config_path) < 0 ? NULL : s;
}

/* ---- reading -------------------------------------------------------------------------- */

/* NAME.yaml, not hidden: editors' and our own temporaries (".NAME.XXXXXX") are skipped. */
static int dropin_filter(const struct dirent *de)
{
	size_t n = strlen(de->d_name), s = strlen(CONFIG_DROPIN_SUFFIX);

	return de->d_name[0] != '.' && n > s && streq(de->d_name + n - s, CONFIG_DROPIN_SUFFIX);
}

static int dropin_compare(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
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
	char **v = realloc(c->dropins, (c->n_dropins + 1) * sizeof(*v));

	if (!v)
		return NULL;
	c->dropins = v;
	v[c->n_dropins] = strdup(path);
	return v[c->n_dropins] ? v[c->n_dropins++] : NULL;
}

static int dropin_load(struct ctx *main, const char *path)
{
	struct config *c = main->config;
	_cleanup_(ynode_freep) struct ynode *root = NULL;
	_cleanup_(freep) char *text = NULL;
	const char *kind = NULL, *stored = dropin_remember(c, path);
	struct ctx ctx = { .errors = main->errors, .config = c };
	size_t len = 0;
	int r;

	if (!stored)
		return -ENOMEM;
	ctx.path = ctx.source = stored;
	r = config_read_file(path, &text, &len, &kind);
	if (r < 0) {
		config_read_error(main->errors, path, r, kind);
		return r == -ENOMEM ? r : -EINVAL;
	}
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

int config_dropins_load(struct ctx *ctx, const char *dir)
{
	struct dirent **names = NULL;
	int n, ret = 0;

	n = scandir(dir, &names, dropin_filter, dropin_compare);
	if (n < 0) {
		char *line = NULL;

		/* No directory is no drop-ins; one that cannot be read is no "none". */
		if (errno == ENOENT)
			return 0;
		if (errno == ENOMEM)
			return -ENOMEM;
		if (asprintf(&line,
			     "%s: cannot read the drop-in directory: %s (expected a directory of NAME.yaml files, or none)",
			     dir, strerror(errno)) >= 0)
			config_errors_add(ctx->errors, (struct config_mark){}, line);
		return -EINVAL;
	}
	for (int i = 0; i < n; i++) {
		char *path = NULL;
		int r = -ENOMEM;

		if (ret != -ENOMEM && asprintf(&path, "%s/%s", dir, names[i]->d_name) >= 0)
			r = dropin_load(ctx, path);
		if (r < 0 && ret != -ENOMEM)
			ret = r;
		free(path);
		free(names[i]);
	}
	free(names);
	return ret;
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

int config_unit_name(const char *name, char ret[CONFIG_UNIT_NAME_MAX + 1], const char **ret_why)
{
	const char *dot = strrchr(name, '.');
	bool typed = dot && in_list(dot + 1, cgroup_unit_types, ELEMENTSOF(cgroup_unit_types));
	size_t n = strlen(name);

	/* systemd's unit_name_is_valid(): these characters, no leading dot. */
	if (n == 0 || name[0] == '.' ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.\\@") != n)
		*ret_why = "a unit name has only letters, digits and \":-_.\\@\", and no leading '.'";
	else if (dot && in_list(dot + 1, other_unit_types, ELEMENTSOF(other_unit_types)))
		*ret_why =
			"this kind of unit runs no processes (expected a service, scope, slice, socket, mount or swap unit)";
	else if (n + (typed ? 0 : strlen(".service")) > CONFIG_UNIT_NAME_MAX)
		*ret_why = "it is longer than 255 characters";
	else if (n + (typed ? 0 : strlen(".service")) > CONFIG_UNIT_DROPIN_NAME_MAX)
		*ret_why =
			"unit name too long for a drop-in file name: at most 234 characters (with its type suffix, such as .service)";
	else {
		*ret_why = NULL;
		snprintf(ret, CONFIG_UNIT_NAME_MAX + 1, "%s%s", name, typed ? "" : ".service");
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
