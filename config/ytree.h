/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The YAML toolkit of the smc.yaml loader, apart from what the file means: libyaml's events
 * turned into a small node tree that keeps every node's line and column, errors as
 * "FILE:LINE:COL: what is wrong (what was expected)", typed accessors that report their own
 * error, duplicate detection, and the walker of a mapping against a table of keys.  The
 * sections (config.c, policy.c, loopback.c) and the key table (keys.c) are built on it;
 * nothing here knows a key of smc.yaml.
 *
 * The header does not include <yaml.h>: smcctl includes it through config.h and loads
 * libyaml only when it loads a file (cli/dl.c).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/macro.h"

#define CONFIG_MAX_ERRORS 20

/* Where a value came from; line 0 means "the built-in default". */
struct config_mark {
	unsigned line;
	unsigned column;
};

struct config_errors {
	char *lines[CONFIG_MAX_ERRORS];
	struct config_mark marks[CONFIG_MAX_ERRORS]; /* of each line; line 0: the whole file */
	size_t n;
	bool truncated; /* more errors than lines[] holds */
};

enum ynode_type {
	YNODE_SCALAR,
	YNODE_MAP,
	YNODE_SEQ,
};

struct ynode {
	enum ynode_type type;
	struct config_mark mark;
	char *value;	      /* scalar */
	bool plain;	      /* plain (unquoted) scalar: may be null */
	struct ynode **items; /* seq: items; map: key, value, key, value, ... */
	size_t n_items;
};

struct config;
struct config_key_table;
struct yaml_parser_s;

struct ctx {
	const char *path;
	struct config_errors *errors;
	struct config *config; /* what the sections fill in; the toolkit never looks */
	const struct config_key_table *keys; /* the key table (keys.h), for its engine */
	struct yaml_parser_s *parser;
	size_t n_nodes;	  /* built so far, against CONFIG_MAX_NODES */
	const char *text; /* the file, for positions of encoding errors */
	/* The drop-in being read (a string of config->dropins), NULL: the main file. */
	const char *source;
	size_t len;
};

struct key_handler {
	const char *key;
	int (*parse)(struct ctx *ctx, const struct ynode *key, const struct ynode *value);
};

/* The document of text as a tree (*ret NULL for an empty file); errors into ctx. */
int ytree_parse(struct ctx *ctx, const char *text, size_t len, struct ynode **ret);
void ynode_free(struct ynode *n);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct ynode *, ynode_free);

/* "FILE:LINE:COL: message" into the error list. */
_printf_(3, 4) void error_at(struct ctx *ctx, struct config_mark m, const char *fmt, ...);
/* line (taken; NULL: nothing) about m into the list, or counted as truncated. */
void config_errors_add(struct config_errors *e, struct config_mark m, char *line);
void config_errors_clear(struct config_errors *e);
/* All errors joined by newlines (caller frees), for D-Bus error messages. */
char *config_errors_join(const struct config_errors *e);

const char *node_type_name(const struct ynode *n);
/* S as a YAML double-quoted string that reads back as S (\", \\, \xNN for controls). */
void config_dump_string(FILE *f, const char *s);
/*
 * Duplicates among the scalars items[0], items[stride], ...: *ret[i] is the index of the
 * first earlier item with the same value, or SIZE_MAX (n entries, free()d by the caller).
 * O(n log n), where comparing each item with all before it took minutes on large files.
 */
int find_duplicates(const struct ynode *const *items, size_t n, size_t stride, size_t **ret);
bool node_is_null(const struct ynode *n);
/* Each reports its own error and returns NULL / -EINVAL. */
const char *get_scalar(struct ctx *ctx, const struct ynode *n, const char *key, const char *expected);
int get_bool(struct ctx *ctx, const struct ynode *n, const char *key, bool *ret);
int get_enum(struct ctx *ctx, const struct ynode *n, const char *key, const char *const *names,
	     size_t n_names, const char *expected, int *ret);
/* 0 (off) or min..max. */
int get_duration(struct ctx *ctx, const struct ynode *n, const char *key, uint64_t min,
		 uint64_t max, uint64_t *ret);
const struct ynode *get_seq(struct ctx *ctx, const struct ynode *n, const char *key,
			    const char *expected);
char *xstrdup_into(char **dst, const char *s);
/* "a, b, c": the keys of a table, for "expected one of". */
void expected_keys(const struct key_handler *t, size_t n, char *buf, size_t len);
/* For each unique scalar key of a mapping (walk_map): 0 or -errno. */
typedef int (*walk_fn)(struct ctx *ctx, const char *section, const struct ynode *k,
		       const struct ynode *v, const void *userdata);
/* A mapping (or null: empty) whose keys are scalars and unique; continues after errors. */
int walk_map(struct ctx *ctx, const struct ynode *map, const char *section, walk_fn each,
	     const void *userdata);
/* "SECTION: unknown key 'K' (expected one of: KEYS)". */
void error_unknown_key(struct ctx *ctx, const struct ynode *k, const char *section, const char *keys);
/* A mapping: every key known (table, "*" matches any) and unique; continues after errors. */
int parse_map(struct ctx *ctx, const struct ynode *map, const char *section,
	      const struct key_handler *table, size_t n_table);
