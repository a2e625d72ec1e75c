/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One rendering path for smcctl and the agent.
 *
 * Every answer is first built as one json-c document.  "-j" prints that document; text mode
 * renders the SAME document with the table and key/value renderers below, so the two
 * outputs cannot drift apart (the iproute2 lesson, done with a document instead of paired
 * print calls).  A column or field names a key of the document (dotted paths descend into
 * nested objects), a header, a format and the detail level from which it is shown.  The one
 * exception is "smcctl socket", whose rows are too many to pay for their document in text
 * mode: it fills the same columns itself (out_table_cells(); a test holds it equal).
 *
 * Text conventions: a missing value (JSON null, absent key or empty string) prints as "-";
 * numbers are right-aligned, text left-aligned; columns are separated by two blanks; no
 * line ends in blanks.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "common/macro.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(json_object *, json_object_put)

enum out_fmt {
	OUT_STR,    /* string as is */
	OUT_U64,    /* decimal */
	OUT_HEX32,  /* %08x: link group ids, as smc-tools prints them */
	OUT_HEX16,  /* 0x%04x: CHID, fabric id */
	OUT_BYTES,  /* exact bytes plus IEC size: "262144 (256 KiB)" */
	OUT_SIZE,   /* short IEC size for tables: "256K", "1.5M" */
	OUT_ABBREV, /* smc-tools style decimal abbreviation, at most 6 chars: "1.235M" */
	OUT_COUNT,  /* decimal, with the abbreviation appended from 1,000,000 on */
	OUT_BOOL,   /* yes / no */
	OUT_LIST,   /* array of strings or numbers, joined by blanks */
	OUT_CUSTOM, /* the column's format callback renders the whole row's cell */
};

struct out_column;

/* Render one cell from the row object (OUT_CUSTOM).  Return buf, or NULL for "-". */
typedef const char *(*out_format_fn)(json_object *row, const struct out_column *col, char *buf,
				     size_t len);

enum {
	OUT_LEFT = 1 << 0,  /* left-align even though the format is numeric */
	OUT_RIGHT = 1 << 1, /* right-align even though the format is text */
};

struct out_column {
	const char *key;    /* dotted path in the row object (OUT_CUSTOM: may be NULL) */
	const char *header; /* table header, or key/value label */
	enum out_fmt fmt;
	unsigned detail;      /* shown when the detail level (-d count) is >= this */
	unsigned flags;	      /* OUT_LEFT, OUT_RIGHT */
	out_format_fn format; /* OUT_CUSTOM only */
};

/*
 * A column or field: OUT_COL("vlan", "VLAN", OUT_U64), OUT_COL("gid", "GID", OUT_STR,
 * .detail = 1), OUT_COL(NULL, "PNET-ID", OUT_CUSTOM, .format = fmt_pnetid).
 */
#define OUT_COL(k, h, f, ...)                                      \
	{                                                          \
		.key = (k), .header = (h), .fmt = (f), __VA_ARGS__ \
	}

/* Look up a dotted path ("v2.peer_host"); NULL when any step is missing or not an object. */
json_object *out_get(json_object *obj, const char *path);
/* Typed lookups with a default for missing or null values. */
uint64_t out_get_u64(json_object *obj, const char *path, uint64_t def);
const char *out_get_str(json_object *obj, const char *path, const char *def);
bool out_get_bool(json_object *obj, const char *path, bool def);

/*
 * Format one value.  Returns buf, or "-" for a missing value.  Never fails: a value of the
 * wrong JSON type is printed with json-c's own string form (a bug we want to see).
 */
const char *out_format(json_object *v, enum out_fmt fmt, char *buf, size_t len);

/*
 * A non-negative number as out_format() writes it in a column of that format, for renderers
 * that draw a table from structs (out_table_cells()) rather than from a document.
 */
const char *out_fmt_uint(uint64_t u, enum out_fmt fmt, char *buf, size_t len);
/* A string as out_format() writes it: "-" for none or empty. */
static inline const char *out_fmt_str(const char *s)
{
	return s && *s ? s : "-";
}

/* Number formatting helpers, also used by hand-written renderers. */
/* snprintf(buf, len, "%" PRIu64, v) without stdio (the table renderers' hot path). */
const char *out_fmt_dec(uint64_t v, char *buf, size_t len);
const char *out_fmt_abbrev(uint64_t v, char *buf, size_t len);
const char *out_fmt_size(uint64_t v, char *buf, size_t len);
const char *out_fmt_bytes(uint64_t v, char *buf, size_t len);

/*
 * A table: one header line, one line per element of the array "rows" (objects).  Columns
 * whose detail level is above "detail" are left out.  indent blanks precede every line.
 */
int out_table(FILE *f, const struct out_column *cols, size_t n_cols, json_object *rows,
	      unsigned detail, unsigned indent);

/*
 * The same table from cells already rendered as text (out_table() renders a document into
 * one of these): the shown cells of each row, in column order, added with out_cells_add()
 * (at most 255 characters each, longer ones are cut as out_table() cuts them).  For a
 * handler whose rows are so many that building their document costs more than the answer
 * (cli/socket.c); the layout is out_table()'s own.
 */
struct out_cells {
	char *buf; /* the cells' strings, each NUL-terminated */
	size_t len, cap;
	size_t *off; /* where each cell starts in buf */
	size_t n, cap_cells;
};
int out_cells_add(struct out_cells *t, const char *s);
void out_cells_done(struct out_cells *t);
int out_table_cells(FILE *f, const struct out_column *cols, size_t n_cols,
		    const struct out_cells *t, unsigned detail, unsigned indent);
/* "TITLE: none" without rows, else "TITLE:" and the table of t indented by two blanks. */
int out_section_cells(FILE *f, const char *title, const struct out_column *cols, size_t n_cols,
		      const struct out_cells *t, size_t n_rows, unsigned detail);

/* Key/value lines "Label:  value" for one object, labels aligned. */
int out_kv(FILE *f, const struct out_column *fields, size_t n_fields, json_object *obj,
	   unsigned detail, unsigned indent);

/*
 * The same lines from values already rendered as text, one per field in field order (NULL
 * or "" print as "-"), for a handler that draws them from structs (cli/info.c).
 */
int out_kv_cells(FILE *f, const struct out_column *fields, size_t n_fields,
		 const char *const values[], unsigned detail, unsigned indent);

/* Print the document: compact on one line, or pretty; always followed by one newline. */
int out_json(FILE *f, json_object *doc, bool pretty);

/* Builders: add a key to an object.  NULL strings become JSON null.  Return 0 or -ENOMEM. */
int json_add_u64(json_object *obj, const char *key, uint64_t v);
int json_add_i64(json_object *obj, const char *key, int64_t v);
int json_add_str(json_object *obj, const char *key, const char *s);
/* A name a user chose (comm, cgroup, unit, netns): through name_sanitize(), at most
 * NAME_OUT_MAX bytes.  NULL is null. */
int json_add_name(json_object *obj, const char *key, const char *name);
int json_add_bool(json_object *obj, const char *key, bool b);
int json_add_null(json_object *obj, const char *key);
/* Takes the reference of v even on failure (like json_object_object_add). */
int json_add(json_object *obj, const char *key, json_object *v);
/* Append to an array; takes the reference of v even on failure. */
int json_append(json_object *arr, json_object *v);
int json_append_str(json_object *arr, const char *s);
