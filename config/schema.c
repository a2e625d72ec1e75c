// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The engine of the key table (keys.h): one parser, one default, one dump and one listing
 * per type, so that a scalar key is a row and nothing else.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/macro.h"
#include "config/config.h"
#include "config/keys.h"
#include "config/units.h"
#include "config/ytree.h"

static void *field(struct config *c, size_t offset)
{
	return (char *)c + offset;
}

static const void *cfield(const struct config *c, size_t offset)
{
	return (const char *)c + offset;
}

static void store_uint(struct config *c, const struct config_key *k, uint64_t v)
{
	void *p = field(c, k->offset);

	switch (k->size) {
	case 1:
		*(uint8_t *)p = (uint8_t)v;
		break;
	case 2:
		*(uint16_t *)p = (uint16_t)v;
		break;
	case 4:
		*(uint32_t *)p = (uint32_t)v;
		break;
	default:
		*(uint64_t *)p = v;
		break;
	}
}

static uint64_t load_uint(const struct config *c, const struct config_key *k)
{
	const void *p = cfield(c, k->offset);

	switch (k->size) {
	case 1:
		return *(const uint8_t *)p;
	case 2:
		return *(const uint16_t *)p;
	case 4:
		return *(const uint32_t *)p;
	default:
		return *(const uint64_t *)p;
	}
}

/* "a whole number from 0 to 10000": what the range allows. */
static const char *range_of(const struct config_key *k, char *buf, size_t len)
{
	char a[32], b[32];

	switch (k->type) {
	case CONFIG_KEY_UINT:
		snprintf(buf, len, "a whole number from %" PRIu64 " to %" PRIu64, k->min, k->max);
		break;
	case CONFIG_KEY_SIZE:
		snprintf(buf, len, "a size from %s to %s", format_size((int64_t)k->min, a, sizeof(a)),
			 format_size((int64_t)k->max, b, sizeof(b)));
		break;
	case CONFIG_KEY_DURATION:
		snprintf(buf, len, "a duration from %s to %s", format_duration(k->min, a, sizeof(a)),
			 format_duration(k->max, b, sizeof(b)));
		break;
	default:
		snprintf(buf, len, "a value");
		break;
	}
	return buf;
}

static int parse_number(struct ctx *ctx, const struct config_key *k, const struct ynode *v,
			struct config *c)
{
	char expected[96];
	const char *s =
		get_scalar(ctx, v, k->path, k->expected ?: range_of(k, expected, sizeof(expected)));
	int64_t n;
	int r;

	if (!s)
		return -EINVAL;
	r = k->type == CONFIG_KEY_SIZE ? parse_size(s, &n) : parse_count(s, &n);
	if (r < 0 || n < 0 || (uint64_t)n < k->min || (uint64_t)n > k->max) {
		char hint[64] = "";

		if (k->type == CONFIG_KEY_SIZE)
			size_hint(s, hint, sizeof(hint));
		if (k->invalid)
			error_at(ctx, v->mark, "%s: '%s' %s%s", k->path, s, k->invalid, hint);
		else
			error_at(ctx, v->mark, "%s: '%s' is not valid (expected %s)%s", k->path, s,
				 range_of(k, expected, sizeof(expected)), hint);
		return -EINVAL;
	}
	store_uint(c, k, (uint64_t)n);
	return 0;
}

static int parse_duration(struct ctx *ctx, const struct config_key *k, const struct ynode *v,
			  struct config *c)
{
	char expected[96];
	const char *s;
	uint64_t usec;

	/* Intervals, where 0 is "off": the toolkit's words. */
	if (k->flags & CONFIG_KEY_ZERO_OFF)
		return get_duration(ctx, v, k->path, k->min, k->max, (uint64_t *)field(c, k->offset));
	s = get_scalar(ctx, v, k->path, k->expected ?: range_of(k, expected, sizeof(expected)));
	if (!s)
		return -EINVAL;
	if (parse_duration_usec(s, &usec) < 0 || usec < k->min || usec > k->max) {
		if (k->invalid)
			error_at(ctx, v->mark, "%s: '%s' %s", k->path, s, k->invalid);
		else
			error_at(ctx, v->mark, "%s: '%s' is not valid (expected %s)", k->path, s,
				 range_of(k, expected, sizeof(expected)));
		return -EINVAL;
	}
	*(uint64_t *)field(c, k->offset) = usec;
	return 0;
}

static int parse_string(struct ctx *ctx, const struct config_key *k, const struct ynode *v,
			struct config *c)
{
	char **dst = field(c, k->offset);
	const char *s;

	if ((k->flags & CONFIG_KEY_NULLABLE) &&
	    (node_is_null(v) || (v->type == YNODE_SCALAR && v->value[0] == '\0'))) {
		free(*dst);
		*dst = NULL;
		return 0;
	}
	s = get_scalar(ctx, v, k->path, k->expected ? k->expected : "a string");
	if (!s)
		return -EINVAL;
	if (k->valid && !k->valid(s)) {
		error_at(ctx, v->mark, "%s: '%s' %s", k->path, s,
			 k->invalid ? k->invalid : "is not valid");
		return -EINVAL;
	}
	return xstrdup_into(dst, s) ? 0 : -ENOMEM;
}

/* The value alone: no has, no mark (also how a default is applied). */
static int parse_value(struct ctx *ctx, const struct config_key *k, const struct ynode *key,
		       const struct ynode *v, struct config *c)
{
	int i, r;

	switch (k->type) {
	case CONFIG_KEY_BOOL:
		return get_bool(ctx, v, k->path, (bool *)field(c, k->offset));
	case CONFIG_KEY_UINT:
	case CONFIG_KEY_SIZE:
		return parse_number(ctx, k, v, c);
	case CONFIG_KEY_DURATION:
		return parse_duration(ctx, k, v, c);
	case CONFIG_KEY_ENUM:
		r = get_enum(ctx, v, k->path, k->names, k->n_names, k->expected, &i);
		if (r == 0)
			*(int *)field(c, k->offset) = i;
		return r;
	case CONFIG_KEY_STRING:
		return parse_string(ctx, k, v, c);
	case CONFIG_KEY_CUSTOM:
	case CONFIG_KEY_SECTION:
		if (k->parse)
			return k->parse(ctx, key, v);
		return config_keys_parse(ctx, v, k->path);
	}
	return -EINVAL;
}

static int parse_key(struct ctx *ctx, const struct config_key *k, const struct ynode *key,
		     const struct ynode *v)
{
	struct config *c = ctx->config;

	if (k->has)
		*(bool *)field(c, k->has) = true;
	if (k->mark)
		*(struct config_mark *)field(c, k->mark) =
			(k->flags & CONFIG_KEY_MARK_KEY) ? key->mark : v->mark;
	return parse_value(ctx, k, key, v, c);
}

/* ---- the walk ------------------------------------------------------------------------- */

/* Is path below prefix ("" : the file)?  Then the name of prefix's child it is in (or is),
 * with its length. */
static bool child_of(const char *path, const char *prefix, const char **ret, size_t *ret_len)
{
	size_t n = strlen(prefix);
	const char *rest = path;

	if (n) {
		if (strncmp(path, prefix, n) != 0 || path[n] != '.')
			return false;
		rest = path + n + 1;
	}
	*ret = rest;
	*ret_len = strcspn(rest, ".");
	return true;
}

/* The direct children of prefix, in the table's order, each once. */
static void expected_children(const struct config_key_table *t, const char *prefix, char *buf,
			      size_t len)
{
	const char *prev = NULL;
	size_t prev_len = 0, o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < t->n && o < len; i++) {
		const char *name;
		size_t n;
		bool seen = false;

		if (!child_of(t->rows[i].path, prefix, &name, &n))
			continue;
		/* rows of one section are adjacent, so comparing with the last one is enough */
		seen = prev && n == prev_len && strncmp(name, prev, n) == 0;
		if (seen)
			continue;
		o += (size_t)snprintf(buf + o, len - o, "%s%.*s", o ? ", " : "", (int)n, name);
		prev = name;
		prev_len = n;
	}
}

static int key_each(struct ctx *ctx, const char *section, const struct ynode *k,
		    const struct ynode *v, const void *userdata)
{
	const char *prefix = userdata;
	bool known = false, plain;
	char path[128];

	/* "stats.interval:" at the top is no way to write stats: {interval: ...} */
	plain = !strchr(k->value, '.') && strlen(prefix) + strlen(k->value) + 2 <= sizeof(path);
	snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", k->value);
	for (size_t i = 0; plain && i < ctx->keys->n; i++) {
		const struct config_key *row = &ctx->keys->rows[i];
		const char *name;
		size_t n;

		if (streq(row->path, path))
			return parse_key(ctx, row, k, v);
		if (child_of(row->path, prefix, &name, &n) && n == strlen(k->value) &&
		    strncmp(name, k->value, n) == 0)
			known = true;
	}
	if (known) /* a section with no row of its own: its keys are the rows below it */
		return config_keys_parse(ctx, v, path);

	char keys[512];

	expected_children(ctx->keys, prefix, keys, sizeof(keys));
	error_unknown_key(ctx, k, section, keys);
	return -EINVAL;
}

int config_keys_parse(struct ctx *ctx, const struct ynode *v, const char *prefix)
{
	return walk_map(ctx, v, *prefix ? prefix : "smc.yaml", key_each, prefix);
}

const struct config_key *config_key_find(const struct config_key_table *t, const char *path)
{
	for (size_t i = 0; i < t->n; i++)
		if (streq(t->rows[i].path, path))
			return &t->rows[i];
	return NULL;
}

static bool below(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(path, prefix, n) == 0 && path[n] == '.';
}

int config_keys_defaults(const struct config_key_table *t, struct config *c, const char *prefix)
{
	struct config_errors errors = {};
	struct ctx ctx = { .path = "(built-in default)", .errors = &errors, .config = c, .keys = t };
	int r = 0;

	for (size_t i = 0; i < t->n && r >= 0; i++) {
		const struct config_key *k = &t->rows[i];
		struct ynode v = { .type = YNODE_SCALAR, .value = (char *)k->def };

		if (!k->def || k->type == CONFIG_KEY_SECTION)
			continue;
		if (prefix ? !below(k->path, prefix) : !!(k->flags & CONFIG_KEY_IN_SECTION))
			continue;
		r = parse_value(&ctx, k, &v, &v, c);
	}
	config_errors_clear(&errors);
	return r < 0 ? -EINVAL : 0;
}

/* ---- dump ----------------------------------------------------------------------------- */

static void dump_value(FILE *f, const struct config *c, const struct config_key *k)
{
	char buf[32];

	switch (k->type) {
	case CONFIG_KEY_BOOL:
		fputs(*(const bool *)cfield(c, k->offset) ? "true" : "false", f);
		break;
	case CONFIG_KEY_UINT:
		fprintf(f, "%" PRIu64, load_uint(c, k));
		break;
	case CONFIG_KEY_SIZE:
		fputs(format_size((int64_t)load_uint(c, k), buf, sizeof(buf)), f);
		break;
	case CONFIG_KEY_DURATION:
		fputs(format_duration(*(const uint64_t *)cfield(c, k->offset), buf, sizeof(buf)), f);
		break;
	case CONFIG_KEY_ENUM: {
		int i = *(const int *)cfield(c, k->offset);

		fputs(i >= 0 && (size_t)i < k->n_names ? k->names[i] : "", f);
		break;
	}
	case CONFIG_KEY_STRING: {
		const char *s = *(char *const *)cfield(c, k->offset);

		config_dump_string(f, s ? s : "");
		break;
	}
	default:
		break;
	}
}

static unsigned depth_of(const char *path)
{
	unsigned d = 0;

	for (const char *p = path; *p; p++)
		d += *p == '.';
	return d;
}

/*
 * The "  name:" lines of the sections without a row of their own that path is in and open
 * (the section open so far) is not: "stats:" and "  prometheus:" before
 * stats.prometheus.enabled.  open becomes path's section.
 */
static void dump_headers(FILE *f, char *open, size_t len, const char *path)
{
	const char *end = strrchr(path, '.');
	size_t parent = end ? (size_t)(end - path) : 0, keep, pos, i;

	for (i = 0; i < parent && open[i] && open[i] == path[i]; i++)
		;
	if ((i == parent || path[i] == '.') && (open[i] == '\0' || open[i] == '.'))
		keep = i;
	else {
		while (i > 0 && path[i - 1] != '.')
			i--;
		keep = i ? i - 1 : 0;
	}
	for (pos = keep ? keep + 1 : 0; pos < parent;) {
		size_t n = strcspn(path + pos, ".");
		unsigned depth = 0;

		for (i = 0; i < pos; i++)
			depth += path[i] == '.';
		fprintf(f, "%*s%.*s:\n", 2 * (int)depth, "", (int)n, path + pos);
		pos += n + 1;
	}
	snprintf(open, len, "%.*s", (int)parent, path);
}

void config_keys_dump(const struct config_key_table *t, FILE *f, const struct config *c,
		      const char *prefix)
{
	const char *skip = NULL;
	char open[128] = "";

	if (prefix)
		snprintf(open, sizeof(open), "%s", prefix);
	for (size_t i = 0; i < t->n; i++) {
		const struct config_key *k = &t->rows[i];
		const char *name = strrchr(k->path, '.');

		if (prefix && !below(k->path, prefix))
			continue;
		if (skip && below(k->path, skip))
			continue;
		skip = NULL;
		if (k->shown && !*(const bool *)cfield(c, k->shown)) {
			skip = k->path;
			continue;
		}
		dump_headers(f, open, sizeof(open), k->path);
		if (k->dump) {
			k->dump(f, c);
			skip = k->path;
			continue;
		}
		name = name ? name + 1 : k->path;
		fprintf(f, "%*s%s:", 2 * (int)depth_of(k->path), "", name);
		if (k->type == CONFIG_KEY_SECTION) {
			fputc('\n', f);
			snprintf(open, sizeof(open), "%s", k->path);
			continue;
		}
		fputc(' ', f);
		dump_value(f, c, k);
		fputc('\n', f);
	}
}

const char *config_key_type_name(enum config_key_type t)
{
	static const char *const names[] = {
		[CONFIG_KEY_BOOL] = "bool",	[CONFIG_KEY_UINT] = "uint",
		[CONFIG_KEY_SIZE] = "size",	[CONFIG_KEY_DURATION] = "duration",
		[CONFIG_KEY_ENUM] = "enum",	[CONFIG_KEY_STRING] = "string",
		[CONFIG_KEY_CUSTOM] = "scalar", [CONFIG_KEY_SECTION] = "section",
	};

	return (size_t)t < ELEMENTSOF(names) ? names[t] : "?";
}

void config_keys_list(const struct config_key_table *t, FILE *f)
{
	for (size_t i = 0; i < t->n; i++)
		fprintf(f, "%s|%s|%s\n", t->rows[i].path, config_key_type_name(t->rows[i].type),
			t->rows[i].def ? t->rows[i].def : "");
}
