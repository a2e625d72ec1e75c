/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One output path for smcctl and the agent.
 *
 * A handler emits every field of its answer once, from the model, into a sink
 * (struct out_sink, below): each emit names the JSON key, the column of the current table
 * (whose header, format and detail level are the text's) and the value.  The text sink lays
 * the fields out as tables; the JSON sink streams the same fields as one document (compact
 * or indented as json-c prints it), so a table of hundreds of sockets costs no document;
 * the document sink builds a json-c object from the same emits, for a caller that needs
 * one (smcctl check's socket, the blocks of linkgroup -d and of device show).  The
 * iproute2 json_print lesson: the text and -j cannot drift apart when one call feeds both.
 * On the sink: socket, linkgroup, device and info (and the advice block, advice_emit());
 * stats' text and its kernel -j too, by two emitters from its counters' rows.
 *
 * Verbs whose answer is a json-c document (the agent's answers, the configuration) render
 * it with out_table() and out_kv(), which lay out a table as the text sink does: a column
 * or field there names a key of the document (dotted paths descend into nested objects), a
 * header, a format and the detail level from which it is shown.  stats' text uses the
 * fixed-width lines (out_line(), out_line_cells()); its -j from the kernel is streamed
 * (stats_rows_emit()), the agent's answer is its json-c document as it came (json-c's
 * doubles for the rates).
 *
 * Text conventions: a missing value (JSON null, absent key or empty string) prints as "-";
 * numbers are right-aligned, text left-aligned; columns are separated by two blanks; no
 * line ends in blanks.  Text style (out_style_set()): --no-legend drops the tables' header
 * lines and the legends and summaries after them (systemctl's); colour marks states (a
 * column's .color) only on a terminal without NO_COLOR (out_color_auto()).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

/* How a column's cells are coloured when colour is on (out_style_set()). */
enum out_color {
	OUT_COLOR_NONE,
	OUT_COLOR_STATE, /* out_color_state() */
	OUT_COLOR_WARN,	 /* out_color_warn() */
};

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
	unsigned short flags; /* OUT_LEFT, OUT_RIGHT */
	unsigned char color;  /* enum out_color (in the padding: no bigger tables) */
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

/*
 * Text style for the whole process (smcctl sets it from its options before a verb runs;
 * the text of tables and legends reads it).  OUT_STYLE_NO_LEGEND: tables without their
 * header line, no legend or summary after them.  OUT_STYLE_COLOR: states in colour;
 * OUT_STYLE_COLOR_AUTO: when out_color_auto() says so for the stream a table goes to
 * (asked once, at the first table with a coloured column).
 * Returns the style before, for the caller to put back.
 */
enum {
	OUT_STYLE_NO_LEGEND = 1 << 0,
	OUT_STYLE_COLOR = 1 << 1,      /* always */
	OUT_STYLE_COLOR_AUTO = 1 << 2, /* out_color_auto() of the stream and the environment */
};
unsigned out_style_set(unsigned style);
unsigned out_style(void);
/*
 * Whether text to a stream is coloured, as systemd's tools decide: never when NO_COLOR is
 * set and not empty (https://no-color.org) or TERM is "dumb", else when it is a terminal.
 * The environment is passed in (getenv("NO_COLOR"), getenv("TERM")) so a test can force it.
 */
bool out_color_auto(bool tty, const char *no_color, const char *term);
/* The colour of a state word: green for a working one (ACTIVE, SMCD, SMCR, yes, ok),
 * yellow for a degraded one or a fallback (TCP, a reason name), red for a failure. */
const char *out_color_state(const char *cell);
/* Any cell but "-" in yellow (a fallback reason column). */
const char *out_color_warn(const char *cell);
#define OUT_ANSI_GREEN "\x1b[0;32m"
#define OUT_ANSI_YELLOW "\x1b[0;33m"
#define OUT_ANSI_RED "\x1b[0;31m"
#define OUT_ANSI_RESET "\x1b[0m"

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
/* A size in IEC units for text: "512 B", "256 KiB", "2.0 MiB". */
const char *out_fmt_iec(uint64_t v, char *buf, size_t len);

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
 * handler that draws its text from structs and for the text sink; the layout is
 * out_table()'s own.
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

/* Key/value lines "Label:  value" for one object, labels aligned. */
int out_kv(FILE *f, const struct out_column *fields, size_t n_fields, json_object *obj,
	   unsigned detail, unsigned indent);

/* Print the document: compact on one line, or pretty; always followed by one newline. */
int out_json(FILE *f, json_object *doc, bool pretty);

/*
 * The sink.  A handler emits, in its JSON order:
 *
 *	out_table_begin(s, "sockets", cols, n_cols, 0);	     "sockets": [ ... ] / the table
 *	for each socket:
 *		out_row_begin(s);			     { ... } / one line
 *		out_u64(s, "uid", COL_UID, sk->uid);	     "uid": 0 / the UID column
 *		out_object_begin(s, "local");		     "local": { (no text of its own)
 *		out_str(s, "address", OUT_NO_COL, a);	     JSON only
 *		out_object_end(s);
 *		out_cell(s, COL_LOCAL, "10.0.0.1:80");	     text only: a cell made of several keys
 *		out_row_end(s);
 *	out_table_end(s);				     ] / the laid-out table
 *	out_legend(s, "...");				     text only, not with --no-legend
 *
 * A field with a column of the current table is that cell, formatted by the column's
 * format and shown from its detail level; OUT_NO_COL is JSON only, a NULL key text only.
 * The text sink keeps one table's cells to size its columns (as systemctl does); the JSON
 * sink writes as it goes; the document sink builds json-c objects.  Emits after a failure
 * do nothing; out_sink_done() returns the first error (-ENOMEM, -EIO).
 */
#define OUT_NO_COL (-1)
#define OUT_SINK_DEPTH 16
#define OUT_SINK_COLS 32
#define OUT_SINK_PARTS 8
#define OUT_SINK_SEGS 16

enum out_sink_kind {
	OUT_SINK_TEXT,
	OUT_SINK_JSON,
	OUT_SINK_DOC,
};

struct out_sink {
	enum out_sink_kind kind;
	FILE *f;
	unsigned detail; /* text: the -d count */
	bool pretty;	 /* JSON: indented as json-c's JSON_C_TO_STRING_PRETTY | _SPACED */
	int err;
	unsigned depth;
	/* JSON: whether the open object or array at each depth has a member yet; all sinks:
	 * whether it is an array (a field without a key is then its element) */
	bool had[OUT_SINK_DEPTH];
	bool arr[OUT_SINK_DEPTH];
	/* document: the open objects and arrays; stack[0] the root */
	json_object *stack[OUT_SINK_DEPTH];
	/* text: the current table and its row */
	const struct out_column *cols;
	size_t n_cols;
	unsigned indent;
	struct out_cells cells;		    /* the table's cells so far */
	size_t cell_off[OUT_SINK_COLS];	    /* the row's: offset + 1 in cells.buf, 0: not set */
	unsigned char shown[OUT_SINK_COLS]; /* the columns shown at this detail level */
	size_t n_shown;
	bool kv; /* text: the current table is a block of key/value lines (out_kv_begin()) */
	/* text with parts (out_text_part()): all the text in emit order, in this buffer (buf
	 * below while it fits, then the heap), cut into segments, each of a part, written to
	 * f by part at the end */
	bool parts;
	char *tbuf;
	size_t tlen, tcap;
	unsigned n_seg;
	unsigned char seg_part[OUT_SINK_SEGS];
	size_t seg_start[OUT_SINK_SEGS];
	/* JSON: output assembled here, written when full and at the end */
	size_t len;
	char buf[4096];
};

void out_sink_text(struct out_sink *s, FILE *f, unsigned detail);
void out_sink_json(struct out_sink *s, FILE *f, bool pretty);
void out_sink_doc(struct out_sink *s);
/*
 * Finish: JSON: the final newline and the write; text: nothing left open.  Frees what the
 * sink holds but the document.  Returns the first error, or 0.
 */
int out_sink_done(struct out_sink *s);
/* The document sink's root (NULL after a failure); the caller owns it.  Call after done. */
json_object *out_sink_take_doc(struct out_sink *s);

/* For the inline emits below: what the JSON and document sinks do, and a text cell. */
void out_object_begin_(struct out_sink *s, const char *key);
void out_object_end_(struct out_sink *s);
void out_array_begin_(struct out_sink *s, const char *key);
void out_array_end_(struct out_sink *s);
void out_u64_(struct out_sink *s, const char *key, uint64_t v);
void out_str_(struct out_sink *s, const char *key, const char *v);
void out_cell_u64_(struct out_sink *s, int col, uint64_t v);
void out_cell_put_(struct out_sink *s, int col, const char *text);

/* Whether a text-only cell of column col would be shown (to skip rendering it). */
static inline bool out_text_wants(const struct out_sink *s, int col)
{
	return s->kind == OUT_SINK_TEXT && !s->err && col >= 0 && (size_t)col < s->n_cols &&
	       s->cols[col].detail <= s->detail;
}

static inline bool out_is_text(const struct out_sink *s)
{
	return s->kind == OUT_SINK_TEXT;
}

/*
 * An object or array, by key inside an object, with a NULL key inside an array or as the
 * root.  Text: nothing (the fields inside may still name columns).  The emits are inline
 * so that a text table pays no call for what it does not show (smcctl socket's hundreds of
 * rows, bench/smcctl-vs-smctools).
 */
static inline void out_object_begin(struct out_sink *s, const char *key)
{
	if (s->kind != OUT_SINK_TEXT)
		out_object_begin_(s, key);
}

static inline void out_object_end(struct out_sink *s)
{
	if (s->kind != OUT_SINK_TEXT)
		out_object_end_(s);
}

static inline void out_array_begin(struct out_sink *s, const char *key)
{
	if (s->kind != OUT_SINK_TEXT)
		out_array_begin_(s, key);
}

static inline void out_array_end(struct out_sink *s)
{
	if (s->kind != OUT_SINK_TEXT)
		out_array_end_(s);
}

/* A table: the array key of objects, one per row; text: the laid-out table. */
void out_table_begin(struct out_sink *s, const char *key, const struct out_column *cols,
		     size_t n_cols, unsigned indent);
void out_row_begin(struct out_sink *s);
void out_row_end(struct out_sink *s);
void out_table_end(struct out_sink *s);
/* Text: leave the table out (a section that says "none" instead).  Not for JSON. */
void out_table_drop(struct out_sink *s);

/*
 * Key/value lines ("Label:  value", labels aligned, as out_kv()): the fields of the block
 * are the columns of a table of one row, emitted wherever their keys are in the JSON (the
 * block adds nothing to it); text: the lines at out_kv_end(), in field order.
 */
void out_kv_begin(struct out_sink *s, const struct out_column *fields, size_t n_fields,
		  unsigned indent);
void out_kv_end(struct out_sink *s);

/*
 * Text: what follows goes to part n (0 to OUT_SINK_PARTS - 1) of the text, and the parts
 * are written in their order at out_sink_done(): for an answer whose text shows its
 * sections in another order than its JSON has their keys (smcctl info).  JSON: nothing.
 */
void out_text_part(struct out_sink *s, unsigned n);

/* Fields: key for JSON (NULL: text only, or an element inside an array), col the column of
 * the current table (OUT_NO_COL: JSON only).  out_str: NULL is null ("-"); out_name: a name
 * a user chose (json_add_name). */
static inline void out_u64(struct out_sink *s, const char *key, int col, uint64_t v)
{
	if (s->kind != OUT_SINK_TEXT)
		out_u64_(s, key, v);
	else if (out_text_wants(s, col))
		out_cell_u64_(s, col, v);
}

static inline void out_str(struct out_sink *s, const char *key, int col, const char *v)
{
	if (s->kind != OUT_SINK_TEXT)
		out_str_(s, key, v);
	else if (out_text_wants(s, col))
		out_cell_put_(s, col, v);
}

static inline void out_null(struct out_sink *s, const char *key, int col)
{
	out_str(s, key, col, NULL);
}

void out_name(struct out_sink *s, const char *key, int col, const char *v);
void out_bool(struct out_sink *s, const char *key, int col, bool v);
/* A text-only cell, rendered by the handler from several keys (NULL or "" print "-"). */
static inline void out_cell(struct out_sink *s, int col, const char *text)
{
	if (out_text_wants(s, col))
		out_cell_put_(s, col, text);
}
/* A text-only line that is part of the answer (a section's title, a blank line). */
void out_text(struct out_sink *s, const char *fmt, ...) _printf_(2, 3);
/* The same, n bytes assembled by the handler (no printf). */
void out_text_put(struct out_sink *s, const char *p, size_t n);
static inline void out_puts(struct out_sink *s, const char *text)
{
	if (out_is_text(s))
		out_text_put(s, text, strlen(text));
}
/*
 * Text-only lines of a block laid out by fixed widths (smcctl stats: "label  value (extra)"
 * and its histograms): indent blanks, the label left-aligned up to column label_w (counted
 * from the line's start), a blank, the value right-aligned in value_w (0: as is), and
 * " extra" when extra is neither NULL nor empty.  Nothing is cut: a longer label or value
 * pushes the rest to the right.
 */
void out_line(struct out_sink *s, unsigned indent, unsigned label_w, const char *label,
	      unsigned value_w, const char *value, const char *extra);
/* The same with n cells instead of value and extra, each after a blank, right-aligned in
 * cell_w. */
void out_line_cells(struct out_sink *s, unsigned indent, unsigned label_w, const char *label,
		    unsigned cell_w, const char *const cells[], size_t n);
/* A cell of out_line_cols(): its width, and OUT_LEFT or OUT_RIGHT (as out_column.flags). */
struct out_line_col {
	unsigned width;
	unsigned align;
};
/* The same with a width and an alignment per cell: cells[i] in cols[i] (rows of a block
 * whose columns differ, as the agent's fallbacks by unit: name, unit, count). */
void out_line_cols(struct out_sink *s, unsigned indent, unsigned label_w, const char *label,
		   const struct out_line_col cols[], const char *const cells[], size_t n);
/* A text-only line after a table: a legend or summary (not with --no-legend). */
void out_legend(struct out_sink *s, const char *fmt, ...) _printf_(2, 3);

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
