/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The smc.yaml loader's node tree and helpers, for section parsers that live in their own
 * file (config-policy.c, config-loopback.c) instead of growing config.c.  Not for anything
 * but the loader.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <yaml.h>

#include "common/macro.h"
#include "smcd-agent/config.h"

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

struct ctx {
	const char *path;
	struct config_errors *errors;
	struct config *config;
	yaml_parser_t parser;
	size_t n_nodes;	  /* built so far, against CONFIG_MAX_NODES */
	const char *text; /* the file, for positions of encoding errors */
	size_t len;
};

struct key_handler {
	const char *key;
	int (*parse)(struct ctx *ctx, const struct ynode *key, const struct ynode *value);
};

/* "FILE:LINE:COL: message" into the error list. */
_printf_(3, 4) void error_at(struct ctx *ctx, struct config_mark m, const char *fmt, ...);
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
const struct ynode *get_seq(struct ctx *ctx, const struct ynode *n, const char *key,
			    const char *expected);
char *xstrdup_into(char **dst, const char *s);
/* A mapping: every key known (table, "*" matches any) and unique; continues after errors. */
int parse_map(struct ctx *ctx, const struct ynode *map, const char *section,
	      const struct key_handler *table, size_t n_table);

/* policies: (config-policy.c) */
int section_policies(struct ctx *ctx, const struct ynode *k, const struct ynode *v);
/* After all sections: what policies: needs from the others. */
int config_policies_check(struct ctx *ctx);
/* loopback: (config-loopback.c) */
int section_loopback(struct ctx *ctx, const struct ynode *k, const struct ynode *v);
/* After all sections: what loopback: needs from the others (reserved PNET IDs). */
int config_loopback_check(struct ctx *ctx);
