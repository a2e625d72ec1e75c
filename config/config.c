// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smc.yaml: load and dump, on top of the rest of config/: the file is read by read.c,
 * parsed by the YAML toolkit (ytree.c) and the key table's engine (schema.c, keys.c) into
 * the sections (sections.c, policy.c, loopback.c), its drop-ins added (dropin.c).  Nothing
 * of config/ calls back into this file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/macro.h"
#include "common/util.h"
#include "config/config.h"
#include "config/keys.h"
#include "config/sections.h"
#include "config/ytree.h"

/* ------------------------------------------------------------------------------------- */
/* Load                                                                                   */

/* The scalars' defaults are their rows' (keys.c); the lists' are the sections' (sections.c). */
static int config_defaults(struct config *c)
{
	int r = config_keys_defaults(&config_key_table, c, NULL);

	return r < 0 ? r : config_lists_defaults(c);
}

struct config *config_free(struct config *c)
{
	if (!c)
		return NULL;
	free(c->path);
	free(c->text);
	free(c->ueid.machine_id_file);
	config_lists_free(c);
	free(c->pnet.entries);
	for (size_t i = 0; i < c->n_dropins; i++) {
		free(c->dropins[i]);
		free(c->dropin_texts[i]);
	}
	free(c->dropins);
	free(c->dropin_texts);
	free(c->admin_group);
	free(c->stats.prometheus_path);
	config_policies_clear(&c->policies);
	config_auto_free(c);
	free(c);
	return NULL;
}

int config_new_default(const char *path, struct config **ret)
{
	_cleanup_(config_freep) struct config *c = calloc(1, sizeof(*c));
	int r;

	if (!c)
		return -ENOMEM;
	r = config_defaults(c);
	if (r < 0)
		return r;
	c->path = strdup(path);
	c->text = strdup("");
	if (!c->path || !c->text)
		return -ENOMEM;
	c->hash = config_fnv1a64(CONFIG_FNV_OFFSET, "", 0);
	*ret = TAKE_PTR(c);
	return 0;
}

int config_load_from(const char *path, const char *text, size_t text_len,
		     const struct config_dropins *d, struct config **ret,
		     struct config_errors *errors)
{
	_cleanup_(freep) char *dropin_dir = config_dropin_dir(path);
	_cleanup_(config_freep) struct config *c = calloc(1, sizeof(*c));
	_cleanup_(ynode_freep) struct ynode *root = NULL;
	struct ctx ctx = { .path = path, .errors = errors, .keys = &config_key_table };
	const char *kind = NULL;
	size_t len = text_len;
	int r;

	if (!c || !dropin_dir)
		return -ENOMEM;
	ctx.config = c;
	r = config_defaults(c);
	if (r < 0)
		return r;
	c->path = strdup(path);
	if (!c->path)
		return -ENOMEM;
	if (text) {
		c->text = strndup(text, text_len);
		r = !c->text ? -ENOMEM : strlen(c->text) != text_len ? -EBADMSG : 0;
	} else
		r = config_read_file(path, &c->text, &len, &kind);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		config_read_error(errors, path, r, kind);
		return r;
	}
	c->hash = config_fnv1a64(CONFIG_FNV_OFFSET, c->text, len);

	r = ytree_parse(&ctx, c->text, len, &root);
	if (r < 0)
		return r;
	if (root) {
		if (node_is_null(root))
			; /* a file of comments only: all defaults */
		else if (root->type != YNODE_MAP)
			error_at(&ctx, root->mark,
				 "the file is %s (expected a mapping of sections such as ueid:, sysctl:)",
				 node_type_name(root));
		else
			r = config_keys_parse(&ctx, root, "");
		if (r == -ENOMEM)
			return r;
	}
	/* Drop-ins after the file, so that their entries follow its own (policies.c). */
	if (d && config_dropins_load(&ctx, dropin_dir, d) == -ENOMEM)
		return -ENOMEM;
	if (errors->n == 0) {
		r = config_policies_check(&ctx);
		if (r == 0)
			r = config_loopback_check(&ctx);
		if (r == -ENOMEM)
			return r;
	}
	if (errors->n > 0)
		return -EINVAL;
	*ret = TAKE_PTR(c);
	return 0;
}

int config_load(const char *path, struct config **ret, struct config_errors *errors)
{
	_cleanup_(freep) char *dir = config_dropin_dir(path);

	if (!dir)
		return -ENOMEM;
	return config_load_from(path, NULL, 0, &(struct config_dropins){ .dir = dir }, ret, errors);
}

int config_load_or_defaults(const char *path, struct config **ret, bool *ret_defaults,
			    struct config_errors *errors)
{
	_cleanup_(freep) char *dir = config_dropin_dir(path);
	int r;

	*ret_defaults = false;
	if (!dir)
		return -ENOMEM;
	r = config_load(path, ret, errors);
	if (r != -ENOENT)
		return r;
	config_errors_clear(errors);
	r = config_load_text(path, "", 0, dir, ret, errors);
	*ret_defaults = r >= 0;
	return r;
}

int config_load_text(const char *path, const char *text, size_t len, const char *dropin_dir,
		     struct config **ret, struct config_errors *errors)
{
	return config_load_from(path, text, len,
				dropin_dir ? &(struct config_dropins){ .dir = dropin_dir } : NULL,
				ret, errors);
}

char *config_dump(const struct config *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	/* Every string is written double-quoted with escapes: a path with " #" or ": " or a
	 * newline in it must read back as itself (smcctl config show, --dump-config). */
	fputs("# effective configuration of ", f);
	config_dump_string(f, c->path);
	fprintf(f, " (revision %016" PRIx64 ")\n", c->hash);
	for (size_t i = 0; i < c->n_dropins; i++) {
		fputs("# with the drop-in ", f);
		config_dump_string(f, c->dropins[i]);
		fputc('\n', f);
	}
	config_keys_dump(&config_key_table, f, c, NULL);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
