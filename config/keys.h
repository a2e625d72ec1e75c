/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The keys of smc.yaml, one row each (keys.c), in the order of the file.  A scalar key is
 * declared: its type, range, default and the field of struct config it fills; the engine
 * (schema.c) parses it, applies its default, dumps it and names it in "unknown key"
 * errors.  Lists, maps and the odd section are rows with a parse (and dump) function of
 * their own, so that the walk, the order and the list of expected keys still come from
 * here.  A new scalar key is its field of struct config (config.h), a row of keys.c, a case
 * in tests/unit/test-agent-config.c and its text in man/smc.yaml.5, which man-coverage.test
 * asks for (tests/tools/config-keys prints the table); ARCHITECTURE.md ("To add one
 * thing") says the rest.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config/ytree.h"

enum config_key_type {
	CONFIG_KEY_BOOL,     /* bool */
	CONFIG_KEY_UINT,     /* a whole number, min..max (any unsigned field) */
	CONFIG_KEY_SIZE,     /* bytes with a binary unit, min..max (any unsigned field) */
	CONFIG_KEY_DURATION, /* uint64_t usec, min..max (and 0 with CONFIG_KEY_ZERO_OFF) */
	CONFIG_KEY_ENUM,     /* an int-sized enum: names[] by index */
	CONFIG_KEY_STRING,   /* char *, valid() decides */
	CONFIG_KEY_CUSTOM,   /* a scalar with its own parse() and dump() */
	CONFIG_KEY_SECTION,  /* a mapping (its keys are the rows below it) or, with parse(), a
			      * list or map of its own */
};

enum {
	CONFIG_KEY_ZERO_OFF = 1 << 0,	/* duration: 0 is valid (off) besides min..max */
	CONFIG_KEY_NULLABLE = 1 << 1,	/* string: nothing or "" means NULL */
	CONFIG_KEY_MARK_KEY = 1 << 2,	/* mark: where the key is, not the value */
	CONFIG_KEY_IN_SECTION = 1 << 3, /* the default applies when the section is given */
};

struct config;

struct config_key {
	const char *path; /* "stats.linkgroup-series" */
	enum config_key_type type;
	const char *def; /* the default as written in the file; NULL: none */
	unsigned flags;
	size_t offset, size; /* the value in struct config (CONFIG_FIELD) */
	size_t has;	     /* bool set when the file gives the key; 0: none */
	size_t mark;	     /* struct config_mark of it; 0: none */
	size_t shown;	     /* bool: dumped only when true; 0: always */
	uint64_t min, max;
	const char *const *names; /* enum */
	size_t n_names;
	const char *expected; /* what a value is, for errors; NULL: from type and range */
	const char *invalid;  /* string (or another type's own): "is not ... (expected ...)" */
	bool (*valid)(const char *s);
	/* CUSTOM and SECTION: the key's own parser and dumper (lines with their key). */
	int (*parse)(struct ctx *ctx, const struct ynode *k, const struct ynode *v);
	void (*dump)(FILE *f, const struct config *c);
};

#define CONFIG_FIELD(m) \
	.offset = offsetof(struct config, m), .size = sizeof(((struct config *)0)->m)
#define CONFIG_OFFSET(m) offsetof(struct config, m)

extern const struct config_key config_keys[];
extern const size_t config_n_keys;
/*
 * The table as the engine (schema.c) takes it: from its callers (config.c, through
 * struct ctx for the sections), never by name, because the rows name the sections' parsers
 * and those call the engine: naming the table there would close a circle.
 */
struct config_key_table {
	const struct config_key *rows;
	size_t n;
};
extern const struct config_key_table config_key_table;

const struct config_key *config_key_find(const struct config_key_table *t, const char *path);
/* The type's name for listings ("bool", "uint", ...). */
const char *config_key_type_name(enum config_key_type t);

/* Walk the mapping v of section prefix ("" for the file) against the rows below it. */
int config_keys_parse(struct ctx *ctx, const struct ynode *v, const char *prefix);
/* The defaults of every row below prefix (NULL: every row without CONFIG_KEY_IN_SECTION). */
int config_keys_defaults(const struct config_key_table *t, struct config *c, const char *prefix);
/* Every row below prefix (NULL: the file) as YAML, indented by its depth. */
void config_keys_dump(const struct config_key_table *t, FILE *f, const struct config *c,
		      const char *prefix);
/* "PATH|TYPE|DEFAULT" per row, for tests/tools/config-keys. */
void config_keys_list(const struct config_key_table *t, FILE *f);
