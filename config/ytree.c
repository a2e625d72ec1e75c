// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The YAML toolkit (ytree.h).  Two passes: libyaml events -> a small node tree that keeps
 * every node's mark, then the sections walk the tree.  Keeping the tree (instead of acting
 * on events directly) lets one walker report duplicates with both locations and lets every
 * section be a small table-driven function.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "common/macro.h"
#include "common/util.h"
#include "config/units.h"
#include "config/ytree.h"

/* ------------------------------------------------------------------------------------- */
/* Node tree                                                                              */

void ynode_free(struct ynode *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n_items; i++)
		ynode_free(n->items[i]);
	free(n->items);
	free(n->value);
	free(n);
}

static struct config_mark mark_of(yaml_mark_t m)
{
	return (struct config_mark){ .line = (unsigned)m.line + 1, .column = (unsigned)m.column + 1 };
}

void config_errors_add(struct config_errors *e, struct config_mark m, char *line)
{
	if (!line)
		return;
	if (e->n >= ELEMENTSOF(e->lines)) {
		e->truncated = true;
		free(line);
		return;
	}
	e->marks[e->n] = m;
	e->lines[e->n++] = line;
}

/*
 * Control characters from the file (a key or value quoted in a message) written as \xNN,
 * C1 controls as \uNNNN:
 * raw, they would reach the terminal of whoever runs config check and the journal, where
 * an ESC sequence or a newline could forge or hide a line.
 */
static char *escape_controls(char *msg)
{
	size_t n = 0, len = strlen(msg);
	char *out, *p;

	for (const char *c = msg; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f ||
		    ((unsigned char)c[0] == 0xc2 && (unsigned char)c[1] >= 0x80 &&
		     (unsigned char)c[1] <= 0x9f))
			n++;
	if (!n)
		return msg;
	out = malloc(len + 4 * n + 1);
	if (!out) {
		free(msg);
		return NULL;
	}
	p = out;
	for (const char *c = msg; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			p += sprintf(p, "\\x%02x", (unsigned char)*c);
		else if ((unsigned char)c[0] == 0xc2 && (unsigned char)c[1] >= 0x80 &&
			 (unsigned char)c[1] <= 0x9f) {
			/* a C1 control such as CSI, as its code point */
			p += sprintf(p, "\\u%04x", (unsigned char)c[1]);
			c++;
		} else
			*p++ = *c;
	*p = '\0';
	free(msg);
	return out;
}

_printf_(3, 4) void error_at(struct ctx *ctx, struct config_mark m, const char *fmt, ...)
{
	char *msg = NULL, *line = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg)
		return;
	msg = escape_controls(msg);
	if (!msg)
		return;
	if (asprintf(&line, "%s:%u:%u: %s", ctx->path, m.line, m.column, msg) < 0)
		line = NULL;
	free(msg);
	config_errors_add(ctx->errors, m, line);
}

/* The line and column (in characters) of a byte offset of the text. */
static struct config_mark mark_of_offset(const struct ctx *ctx, size_t offset)
{
	struct config_mark m = { .line = 1, .column = 1 };

	for (size_t i = 0; i < offset && i < ctx->len; i++) {
		unsigned char c = (unsigned char)ctx->text[i];

		if (c == '\n') {
			m.line++;
			m.column = 1;
		} else if ((c & 0xc0) != 0x80) /* not a UTF-8 continuation byte */
			m.column++;
	}
	return m;
}

static int next_event(struct ctx *ctx, yaml_event_t *ev)
{
	if (yaml_parser_parse(ctx->parser, ev))
		return 0;
	/* An encoding error (invalid UTF-8, a control character) comes from libyaml's reader,
	 * which sets problem_offset and leaves problem_mark at the start of the file. */
	if (ctx->parser->error == YAML_READER_ERROR) {
		error_at(ctx, mark_of_offset(ctx, ctx->parser->problem_offset),
			 "%s (expected UTF-8 text without control characters)",
			 ctx->parser->problem ? ctx->parser->problem : "invalid input");
		return -EINVAL;
	}
	error_at(ctx, mark_of(ctx->parser->problem_mark), "YAML syntax error: %s%s%s",
		 ctx->parser->problem ? ctx->parser->problem : "unknown problem",
		 ctx->parser->context ? " " : "", ctx->parser->context ? ctx->parser->context : "");
	return -EINVAL;
}

static int ynode_append(struct ynode *parent, struct ynode *child)
{
	size_t n = parent->n_items;

	/* The array is full when n is 0 or a power of two: double it (linear in all). */
	if ((n & (n - 1)) == 0) {
		struct ynode **v = realloc(parent->items, (n ? 2 * n : 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		parent->items = v;
	}
	parent->items[parent->n_items++] = child;
	return 0;
}

struct dup_key {
	const char *value;
	size_t index;
};

static int dup_key_cmp(const void *a, const void *b)
{
	const struct dup_key *x = a, *y = b;
	int c = strcmp(x->value, y->value);

	if (c)
		return c;
	return x->index < y->index ? -1 : x->index > y->index;
}

int find_duplicates(const struct ynode *const *items, size_t n, size_t stride, size_t **ret)
{
	_cleanup_(freep) struct dup_key *keys = NULL;
	_cleanup_(freep) size_t *first = NULL;
	size_t n_keys = 0;

	first = malloc((n ? n : 1) * sizeof(*first));
	keys = malloc((n ? n : 1) * sizeof(*keys));
	if (!first || !keys)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		first[i] = SIZE_MAX;
		if (i % stride == 0 && items[i]->type == YNODE_SCALAR)
			keys[n_keys++] = (struct dup_key){ .value = items[i]->value, .index = i };
	}
	/* Sorted by value, then by position: each run's head is the first occurrence. */
	qsort(keys, n_keys, sizeof(*keys), dup_key_cmp);
	for (size_t i = 1; i < n_keys; i++)
		if (streq(keys[i].value, keys[i - 1].value))
			first[keys[i].index] = first[keys[i - 1].index] == SIZE_MAX
						       ? keys[i - 1].index
						       : first[keys[i - 1].index];
	*ret = TAKE_PTR(first);
	return 0;
}

/*
 * Bounds on the tree, checked while it is built: smc.yaml nests four levels at most and a
 * large file has a few thousand nodes.  Without them a file under the 4 MiB cap could
 * overflow the stack of this recursive builder (40,000 nested "[") or keep the agent's
 * event loop busy for minutes.
 */
#define CONFIG_MAX_DEPTH 32
#define CONFIG_MAX_NODES 20000

/* Build the node for the event ev (already read); consumes the events of its children. */
static int ynode_build(struct ctx *ctx, yaml_event_t *ev, unsigned depth, struct ynode **ret)
{
	_cleanup_(ynode_freep) struct ynode *n = NULL;
	const yaml_char_t *tag;
	yaml_event_type_t end;
	int r;

	if (depth > CONFIG_MAX_DEPTH) {
		error_at(ctx, mark_of(ev->start_mark),
			 "nested more than %u levels deep (smc.yaml needs at most 4)",
			 CONFIG_MAX_DEPTH);
		return -EINVAL;
	}
	if (++ctx->n_nodes > CONFIG_MAX_NODES) {
		error_at(ctx, mark_of(ev->start_mark),
			 "more than %u YAML nodes (keys, values and list items): the file is too large",
			 CONFIG_MAX_NODES);
		return -EINVAL;
	}
	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->mark = mark_of(ev->start_mark);
	tag = ev->type == YAML_SCALAR_EVENT	      ? ev->data.scalar.tag
	      : ev->type == YAML_MAPPING_START_EVENT  ? ev->data.mapping_start.tag
	      : ev->type == YAML_SEQUENCE_START_EVENT ? ev->data.sequence_start.tag
						      : NULL;
	/* A tag would change what the value is (!!binary, !!int, an application's !custom);
	 * the loader knows no tags, and ignoring one would read the value as something the
	 * author did not mean. */
	if (tag) {
		error_at(ctx, n->mark,
			 "the YAML tag '%s' is not supported (expected a value without a tag: remove it)",
			 (const char *)tag);
		return -EINVAL;
	}
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		n->type = YNODE_SCALAR;
		n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		n->value = strdup((const char *)ev->data.scalar.value);
		if (!n->value)
			return -ENOMEM;
		*ret = TAKE_PTR(n);
		return 0;
	case YAML_MAPPING_START_EVENT:
		n->type = YNODE_MAP;
		end = YAML_MAPPING_END_EVENT;
		break;
	case YAML_SEQUENCE_START_EVENT:
		n->type = YNODE_SEQ;
		end = YAML_SEQUENCE_END_EVENT;
		break;
	case YAML_ALIAS_EVENT:
		error_at(ctx, n->mark, "YAML aliases are not supported (write the value out)");
		return -EINVAL;
	default:
		error_at(ctx, n->mark, "unexpected YAML event");
		return -EINVAL;
	}
	for (;;) {
		yaml_event_t child_ev;
		struct ynode *child = NULL;

		r = next_event(ctx, &child_ev);
		if (r < 0)
			return r;
		if (child_ev.type == end) {
			yaml_event_delete(&child_ev);
			break;
		}
		r = ynode_build(ctx, &child_ev, depth + 1, &child);
		yaml_event_delete(&child_ev);
		if (r < 0)
			return r;
		r = ynode_append(n, child);
		if (r < 0) {
			ynode_free(child);
			return r;
		}
	}
	*ret = TAKE_PTR(n);
	return 0;
}

/* The document's root node, or NULL for an empty file. */
static int parse_document(struct ctx *ctx, const char *text, size_t len, struct ynode **ret)
{
	struct ynode *root = NULL;
	bool done = false;
	int r = 0;

	ctx->text = text;
	ctx->len = len;
	yaml_parser_set_input_string(ctx->parser, (const unsigned char *)text, len);
	while (!done) {
		yaml_event_t ev;

		r = next_event(ctx, &ev);
		if (r < 0)
			break;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (ev.data.document_start.tag_directives.start !=
			    ev.data.document_start.tag_directives.end) {
				error_at(ctx, mark_of(ev.start_mark),
					 "%%TAG directives are not supported (expected no tags: remove the %%TAG line)");
				r = -EINVAL;
			}
			break;
		case YAML_STREAM_START_EVENT:
		case YAML_DOCUMENT_END_EVENT:
			break;
		default:
			if (root) {
				error_at(ctx, mark_of(ev.start_mark),
					 "a second YAML document (expected exactly one)");
				r = -EINVAL;
			} else
				r = ynode_build(ctx, &ev, 1, &root);
			break;
		}
		yaml_event_delete(&ev);
		if (r < 0)
			break;
	}
	if (r < 0) {
		ynode_free(root);
		return r;
	}
	*ret = root;
	return 0;
}

int ytree_parse(struct ctx *ctx, const char *text, size_t len, struct ynode **ret)
{
	yaml_parser_t parser;
	int r;

	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	ctx->parser = &parser;
	r = parse_document(ctx, text, len, ret);
	yaml_parser_delete(&parser);
	ctx->parser = NULL;
	return r;
}

/* ------------------------------------------------------------------------------------- */
/* Typed accessors: each reports its own error and returns NULL/-EINVAL                   */

const char *node_type_name(const struct ynode *n)
{
	switch (n->type) {
	case YNODE_MAP:
		return "a mapping";
	case YNODE_SEQ:
		return "a list";
	default:
		return "a scalar";
	}
}

bool node_is_null(const struct ynode *n)
{
	return n->type == YNODE_SCALAR && n->plain &&
	       (n->value[0] == '\0' || streq(n->value, "~") || streq(n->value, "null"));
}

const char *get_scalar(struct ctx *ctx, const struct ynode *n, const char *key, const char *expected)
{
	if (n->type != YNODE_SCALAR || node_is_null(n)) {
		error_at(ctx, n->mark, "%s: %s is not a valid value (expected %s)", key,
			 node_is_null(n) ? "an empty value" : node_type_name(n), expected);
		return NULL;
	}
	return n->value;
}

int get_bool(struct ctx *ctx, const struct ynode *n, const char *key, bool *ret)
{
	const char *s = get_scalar(ctx, n, key, "true or false");

	if (!s)
		return -EINVAL;
	if (parse_bool(s, ret) < 0) {
		error_at(ctx, n->mark, "%s: '%s' is not a boolean (expected true or false)", key, s);
		return -EINVAL;
	}
	return 0;
}

int get_enum(struct ctx *ctx, const struct ynode *n, const char *key, const char *const *names,
	     size_t n_names, const char *expected, int *ret)
{
	const char *s = get_scalar(ctx, n, key, expected);

	if (!s)
		return -EINVAL;
	for (size_t i = 0; i < n_names; i++)
		if (names[i] && streq(s, names[i])) {
			*ret = (int)i;
			return 0;
		}
	error_at(ctx, n->mark, "%s: '%s' is not a valid value (expected %s)", key, s, expected);
	return -EINVAL;
}

int get_duration(struct ctx *ctx, const struct ynode *n, const char *key, uint64_t min,
		 uint64_t max, uint64_t *ret)
{
	const char *s = get_scalar(ctx, n, key, "a duration such as 30s or 5m");
	uint64_t v;

	if (!s)
		return -EINVAL;
	if (parse_duration_usec(s, &v) < 0) {
		error_at(ctx, n->mark,
			 "%s: '%s' is not a duration (expected a number with s, m or h, e.g. 30s)",
			 key, s);
		return -EINVAL;
	}
	if (v != 0 && (v < min || v > max)) {
		error_at(ctx, n->mark,
			 "%s: %s is out of range (expected 0 or %" PRIu64 "s to %" PRIu64 "s)", key,
			 s, (uint64_t)(min / 1000000), (uint64_t)(max / 1000000));
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

const struct ynode *get_seq(struct ctx *ctx, const struct ynode *n, const char *key,
			    const char *expected)
{
	if (n->type != YNODE_SEQ) {
		if (node_is_null(n))
			return n; /* "entries:" with nothing: an empty list */
		error_at(ctx, n->mark, "%s: %s is not valid here (expected a list of %s)", key,
			 node_type_name(n), expected);
		return NULL;
	}
	return n;
}

char *xstrdup_into(char **dst, const char *s)
{
	free(*dst);
	*dst = strdup(s);
	return *dst;
}

/* ------------------------------------------------------------------------------------- */
/* Table-driven mappings                                                                  */

void expected_keys(const struct key_handler *t, size_t n, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", t[i].key);
}

/*
 * Walk a mapping: every key must be a scalar and unique; each calls each().  Continues
 * after errors so one run reports as much as possible.  A null value (a key with nothing
 * after it) is an empty section.
 */
int walk_map(struct ctx *ctx, const struct ynode *map, const char *section, walk_fn each,
	     const void *userdata)
{
	_cleanup_(freep) size_t *first = NULL;
	int ret = 0;

	if (node_is_null(map))
		return 0;
	if (map->type != YNODE_MAP) {
		error_at(ctx, map->mark, "%s: %s is not valid here (expected a mapping)", section,
			 node_type_name(map));
		return -EINVAL;
	}
	if (find_duplicates((const struct ynode *const *)map->items, map->n_items, 2, &first) < 0)
		return -ENOMEM;
	for (size_t i = 0; i + 1 < map->n_items; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		int r;

		if (k->type != YNODE_SCALAR) {
			error_at(ctx, k->mark, "%s: %s as a key (expected a name)", section,
				 node_type_name(k));
			ret = -EINVAL;
			continue;
		}
		if (first[i] != SIZE_MAX) {
			const struct ynode *o = map->items[first[i]];

			error_at(ctx, k->mark,
				 "%s: duplicate key '%s' (first given at line %u, column %u)",
				 section, k->value, o->mark.line, o->mark.column);
			ret = -EINVAL;
			continue;
		}
		r = each(ctx, section, k, v, userdata);
		if (r < 0)
			ret = -EINVAL;
	}
	return ret;
}

void error_unknown_key(struct ctx *ctx, const struct ynode *k, const char *section, const char *keys)
{
	error_at(ctx, k->mark, "%s: unknown key '%s' (expected one of: %s)", section, k->value, keys);
}

struct handler_table {
	const struct key_handler *table;
	size_t n;
};

static int handler_each(struct ctx *ctx, const char *section, const struct ynode *k,
			const struct ynode *v, const void *userdata)
{
	const struct handler_table *t = userdata;
	const struct key_handler *h = NULL;

	for (size_t j = 0; j < t->n; j++)
		if (streq(t->table[j].key, k->value) || streq(t->table[j].key, "*"))
			h = &t->table[j];
	if (!h) {
		char keys[512];

		expected_keys(t->table, t->n, keys, sizeof(keys));
		error_unknown_key(ctx, k, section, keys);
		return -EINVAL;
	}
	return h->parse(ctx, k, v);
}

int parse_map(struct ctx *ctx, const struct ynode *map, const char *section,
	      const struct key_handler *table, size_t n_table)
{
	struct handler_table t = { table, n_table };

	return walk_map(ctx, map, section, handler_each, &t);
}

void config_errors_clear(struct config_errors *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->lines[i]);
	memset(e, 0, sizeof(*e));
}

char *config_errors_join(const struct config_errors *e)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; i < e->n; i++)
		len += strlen(e->lines[i]) + 1;
	len += 32;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (size_t i = 0; i < e->n; i++) {
		if (i)
			strcat(s, "\n");
		strcat(s, e->lines[i]);
	}
	if (e->truncated)
		strcat(s, "\n(more errors not shown)");
	return s;
}

/*
 * The UTF-8 sequences a YAML reader does not give back as they are: C1 controls (U+0080 to
 * U+009F, NEL among them; libyaml refuses them raw), LS and PS (folded to a space), the
 * BOM.  Their length at s, or 0.
 */
static size_t yaml_unsafe_utf8(const unsigned char *s, uint32_t *ret)
{
	if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f) {
		*ret = s[1];
		return 2;
	}
	if (s[0] == 0xe2 && s[1] == 0x80 && (s[2] == 0xa8 || s[2] == 0xa9)) {
		*ret = 0x2000 | (s[2] - 0x80);
		return 3;
	}
	if (s[0] == 0xef && s[1] == 0xbb && s[2] == 0xbf) {
		*ret = 0xfeff;
		return 3;
	}
	return 0;
}

void config_dump_string(FILE *f, const char *s)
{
	fputc('"', f);
	while (*s) {
		unsigned char ch = (unsigned char)*s;
		uint32_t cp;
		size_t n = yaml_unsafe_utf8((const unsigned char *)s, &cp);

		if (n) {
			fprintf(f, "\\u%04" PRIx32, cp);
			s += n;
			continue;
		}
		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(f, "\\x%02x", ch);
		else
			fputc(ch, f);
		s++;
	}
	fputc('"', f);
}
