// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sinks (text, streamed JSON, json-c document) and the table and key/value renderers
 * (see output.h for the conventions).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/name-sanitize.h"
#include "common/output.h"

#define CELL_MAX 256

static unsigned style;
static int color_auto = -1; /* OUT_STYLE_COLOR_AUTO resolved: -1 not yet, 0 or 1 */

unsigned out_style_set(unsigned st)
{
	unsigned old = style;

	style = st;
	color_auto = -1;
	return old;
}

/* Whether cells go out in colour: asked once, when the first coloured column is printed
 * (a verb without one pays no isatty() or getenv()). */
static bool colors_for(FILE *f)
{
	if (style & OUT_STYLE_COLOR)
		return true;
	if (!(style & OUT_STYLE_COLOR_AUTO))
		return false;
	if (color_auto < 0)
		color_auto =
			out_color_auto(isatty(fileno(f)) == 1, getenv("NO_COLOR"), getenv("TERM"));
	return color_auto;
}

unsigned out_style(void)
{
	return style;
}

bool out_color_auto(bool tty, const char *no_color, const char *term)
{
	if (no_color && *no_color)
		return false;
	if (term && strcmp(term, "dumb") == 0)
		return false;
	return tty;
}

const char *out_color_state(const char *cell)
{
	static const char *const good[] = { "ACTIVE", "active", "SMCD", "SMCR", "yes", "ok" };
	static const char *const warn[] = { "TCP", "INACTIVE", "degraded", "inactive", "fallback" };
	static const char *const bad[] = { "failed", "FAILED", "error" };

	for (size_t i = 0; i < ELEMENTSOF(good); i++)
		if (strcmp(cell, good[i]) == 0)
			return OUT_ANSI_GREEN;
	for (size_t i = 0; i < ELEMENTSOF(warn); i++)
		if (strcmp(cell, warn[i]) == 0)
			return OUT_ANSI_YELLOW;
	for (size_t i = 0; i < ELEMENTSOF(bad); i++)
		if (strcmp(cell, bad[i]) == 0)
			return OUT_ANSI_RED;
	return NULL;
}

const char *out_color_warn(const char *cell)
{
	return strcmp(cell, "-") ? OUT_ANSI_YELLOW : NULL;
}

json_object *out_get(json_object *obj, const char *path)
{
	const char *p = path;

	while (obj && p) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		char key[64];
		json_object *next = NULL;

		if (!json_object_is_type(obj, json_type_object) || n >= sizeof(key))
			return NULL;
		memcpy(key, p, n);
		key[n] = '\0';
		if (!json_object_object_get_ex(obj, key, &next))
			return NULL;
		obj = next;
		p = dot ? dot + 1 : NULL;
	}
	return obj;
}

uint64_t out_get_u64(json_object *obj, const char *path, uint64_t def)
{
	json_object *v = out_get(obj, path);

	if (!v)
		return def;
	if (json_object_is_type(v, json_type_int))
		return json_object_get_uint64(v);
	if (json_object_is_type(v, json_type_boolean))
		return json_object_get_boolean(v);
	return def;
}

const char *out_get_str(json_object *obj, const char *path, const char *def)
{
	json_object *v = out_get(obj, path);

	if (!v || !json_object_is_type(v, json_type_string))
		return def;
	return json_object_get_string(v);
}

bool out_get_bool(json_object *obj, const char *path, bool def)
{
	json_object *v = out_get(obj, path);

	if (!v || !json_object_is_type(v, json_type_boolean))
		return def;
	return json_object_get_boolean(v);
}

/* A decimal as snprintf("%" PRIu64) writes it (cut to len - 1 characters), without stdio. */
const char *out_fmt_dec(uint64_t v, char *buf, size_t len)
{
	char tmp[20]; /* UINT64_MAX has 20 digits; tmp holds them last digit first */
	size_t n = 0, k;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (len == 0)
		return buf;
	k = n < len ? n : len - 1;
	for (size_t i = 0; i < k; i++)
		buf[i] = tmp[n - 1 - i];
	buf[k] = '\0';
	return buf;
}

/* smc-tools' get_abbreviated(): at most 6 characters, decimal (K = 1000) suffixes. */
const char *out_fmt_abbrev(uint64_t v, char *buf, size_t len)
{
	static const char suffix[] = "KMGTPE";
	double d = (double)v;
	int i = -1;

	if (v < 100000)
		return out_fmt_dec(v, buf, len);
	/* 999.95 rather than 1000: what would round up to "1000.0K" moves to "1.000M". */
	while (d >= 999.95 && i < (int)sizeof(suffix) - 2) {
		d /= 1000.0;
		i++;
	}
	/* Keep the mantissa to 4 significant characters so the whole fits in 6. */
	if (d >= 99.95)
		snprintf(buf, len, "%.1f%c", d, suffix[i]);
	else if (d >= 9.995)
		snprintf(buf, len, "%.2f%c", d, suffix[i]);
	else
		snprintf(buf, len, "%.3f%c", d, suffix[i]);
	return buf;
}

/* Short binary size for tables: 0, 512B, 16K, 1M, 1.5M (no "i": space is scarce there). */
const char *out_fmt_size(uint64_t v, char *buf, size_t len)
{
	static const char suffix[] = "KMGTPE";
	double d = (double)v;
	int i = -1;

	if (v < 1024) {
		snprintf(buf, len, v ? "%" PRIu64 "B" : "0", v);
		return buf;
	}
	while (d >= 1024.0 && i < (int)sizeof(suffix) - 2) {
		d /= 1024.0;
		i++;
	}
	if (d == (double)(uint64_t)d)
		snprintf(buf, len, "%" PRIu64 "%c", (uint64_t)d, suffix[i]);
	else
		snprintf(buf, len, "%.1f%c", d, suffix[i]);
	return buf;
}

/* A size in IEC units for text: "512 B", "256 KiB", "2.0 MiB" (smcctl(8) JSON OUTPUT). */
const char *out_fmt_iec(uint64_t v, char *buf, size_t len)
{
	char size[32];
	size_t n;

	if (v < 1024) {
		snprintf(buf, len, "%" PRIu64 " B", v);
		return buf;
	}
	/* "256K" becomes "256 KiB". */
	n = strlen(out_fmt_size(v, size, sizeof(size)));
	snprintf(buf, len, "%.*s %ciB", (int)(n - 1), size, size[n - 1]);
	return buf;
}

/* Exact number of bytes, plus the IEC size when that says more: "262144 (256 KiB)". */
const char *out_fmt_bytes(uint64_t v, char *buf, size_t len)
{
	char size[32];
	size_t n;

	if (v < 1024)
		return out_fmt_dec(v, buf, len);
	/* "256K" becomes "256 KiB". */
	n = strlen(out_fmt_size(v, size, sizeof(size)));
	snprintf(buf, len, "%" PRIu64 " (%.*s %ciB)", v, (int)(n - 1), size, size[n - 1]);
	return buf;
}

static const char *format_list(json_object *v, char *buf, size_t len)
{
	size_t n = json_object_array_length(v), used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used + 1 < len; i++) {
		const char *s = json_object_get_string(json_object_array_get_idx(v, i));
		int r = snprintf(buf + used, len - used, "%s%s", i ? " " : "", s ? s : "-");

		if (r < 0)
			break;
		used += (size_t)r;
	}
	return buf[0] ? buf : "-";
}

/* The formats that write a number their own way; NULL: the plain decimal. */
static const char *fmt_special(uint64_t u, enum out_fmt fmt, char *buf, size_t len)
{
	switch (fmt) {
	case OUT_HEX32:
		snprintf(buf, len, "%08" PRIx64, u);
		return buf;
	case OUT_HEX16:
		snprintf(buf, len, "0x%04" PRIx64, u);
		return buf;
	case OUT_BYTES:
		return out_fmt_bytes(u, buf, len);
	case OUT_SIZE:
		return out_fmt_size(u, buf, len);
	case OUT_ABBREV:
		return out_fmt_abbrev(u, buf, len);
	case OUT_COUNT:
		if (u >= 1000000) {
			char a[16];

			snprintf(buf, len, "%" PRIu64 " (%s)", u, out_fmt_abbrev(u, a, sizeof(a)));
			return buf;
		}
		return NULL;
	case OUT_BOOL:
		return u ? "yes" : "no";
	default:
		return NULL;
	}
}

const char *out_format(json_object *v, enum out_fmt fmt, char *buf, size_t len)
{
	const char *r;
	uint64_t u;

	if (!v)
		return "-";
	if (fmt == OUT_LIST && json_object_is_type(v, json_type_array))
		return format_list(v, buf, len);
	if (json_object_is_type(v, json_type_string)) {
		const char *s = json_object_get_string(v);

		if (!*s)
			return "-";
		snprintf(buf, len, "%s", s);
		return buf;
	}
	if (json_object_is_type(v, json_type_boolean)) {
		if (fmt == OUT_BOOL || fmt == OUT_STR)
			return json_object_get_boolean(v) ? "yes" : "no";
		return json_object_get_boolean(v) ? "1" : "0";
	}
	if (!json_object_is_type(v, json_type_int)) {
		snprintf(buf, len, "%s", json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
		return buf;
	}
	u = json_object_get_uint64(v);
	if ((r = fmt_special(u, fmt, buf, len)))
		return r;
	if (json_object_get_int64(v) < 0)
		snprintf(buf, len, "%" PRId64, json_object_get_int64(v));
	else
		out_fmt_dec(u, buf, len);
	return buf;
}

const char *out_fmt_uint(uint64_t u, enum out_fmt fmt, char *buf, size_t len)
{
	const char *r = fmt_special(u, fmt, buf, len);

	return r ? r : out_fmt_dec(u, buf, len);
}

static const char *cell(json_object *row, const struct out_column *c, char *buf, size_t len)
{
	if (c->fmt == OUT_CUSTOM) {
		const char *s = c->format ? c->format(row, c, buf, len) : NULL;

		return s && *s ? s : "-";
	}
	return out_format(out_get(row, c->key), c->fmt, buf, len);
}

static bool right_aligned(const struct out_column *c)
{
	if (c->flags & OUT_LEFT)
		return false;
	if (c->flags & OUT_RIGHT)
		return true;
	switch (c->fmt) {
	case OUT_U64:
	case OUT_HEX32:
	case OUT_HEX16:
	case OUT_BYTES:
	case OUT_SIZE:
	case OUT_ABBREV:
	case OUT_COUNT:
		return true;
	default:
		return false;
	}
}

/* A line is assembled here and written with one call: stdio per cell was most of a large
 * table's cost. */
struct line {
	FILE *f;
	size_t len;
	char buf[4096];
};

static void put(struct line *l, const char *s, size_t n)
{
	while (n) {
		size_t k;

		if (l->len == sizeof(l->buf)) {
			fwrite(l->buf, 1, l->len, l->f);
			l->len = 0;
		}
		k = sizeof(l->buf) - l->len < n ? sizeof(l->buf) - l->len : n;
		memcpy(l->buf + l->len, s, k);
		l->len += k;
		s += k;
		n -= k;
	}
}

static void pad(struct line *l, size_t n)
{
	static const char blanks[] =
		"                                                                ";

	while (n) {
		size_t k = n < sizeof(blanks) - 1 ? n : sizeof(blanks) - 1;

		put(l, blanks, k);
		n -= k;
	}
}

/* Print one line of cells; the last cell is never padded so no line ends in blanks. */
/* show[i]: SHOW_COL when column i is shown, SHOW_RIGHT when it is right-aligned */
enum { SHOW_COL = 1, SHOW_RIGHT = 2 };

static void print_line(FILE *f, const struct out_column *cols, size_t n_cols,
		       const unsigned char *show, const size_t *width, const char *const *cells,
		       unsigned indent, bool colors)
{
	struct line l; /* not zeroed: 4 KiB of stores per line (a fifth of 'smcctl socket') */
	const char *color;
	size_t last = 0;
	bool first = true, right;

	l.f = f;
	l.len = 0;
	for (size_t i = 0; i < n_cols; i++)
		if (show[i])
			last = i;
	pad(&l, indent);
	for (size_t i = 0; i < n_cols; i++) {
		size_t n;

		if (!show[i])
			continue;
		if (!first)
			put(&l, "  ", 2);
		first = false;
		n = strlen(cells[i]);
		right = show[i] & SHOW_RIGHT;
		if (right)
			pad(&l, width[i] > n ? width[i] - n : 0);
		/* the width counts the text alone, not the colour's escapes */
		color = !colors				   ? NULL
			: cols[i].color == OUT_COLOR_STATE ? out_color_state(cells[i])
			: cols[i].color == OUT_COLOR_WARN  ? out_color_warn(cells[i])
							   : NULL;
		if (color) {
			put(&l, color, strlen(color));
			put(&l, cells[i], n);
			put(&l, OUT_ANSI_RESET, strlen(OUT_ANSI_RESET));
		} else {
			put(&l, cells[i], n);
		}
		if (!right && i != last)
			pad(&l, width[i] > n ? width[i] - n : 0);
	}
	put(&l, "\n", 1);
	fwrite(l.buf, 1, l.len, f);
}

int out_cells_add(struct out_cells *t, const char *s)
{
	size_t n = strnlen(s, CELL_MAX - 1);

	if (t->n == t->cap_cells) {
		size_t cap = t->cap_cells ? 2 * t->cap_cells : 64;
		size_t *off = realloc(t->off, cap * sizeof(*off));

		if (!off)
			return -ENOMEM;
		t->off = off;
		t->cap_cells = cap;
	}
	if (t->len + n + 1 > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 4096;
		char *buf;

		while (cap < t->len + n + 1)
			cap *= 2;
		buf = realloc(t->buf, cap);
		if (!buf)
			return -ENOMEM;
		t->buf = buf;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, s, n);
	t->buf[t->len + n] = '\0';
	t->off[t->n++] = t->len;
	t->len += n + 1;
	return 0;
}

void out_cells_done(struct out_cells *t)
{
	free(t->buf);
	free(t->off);
	*t = (struct out_cells){};
}

static bool n_rows_any(const struct out_cells *t)
{
	return t->n > 0;
}

int out_table_cells(FILE *f, const struct out_column *cols, size_t n_cols,
		    const struct out_cells *t, unsigned detail, unsigned indent)
{
	size_t n_shown = 0, n_rows;
	bool colors = false;
	_cleanup_(freep) unsigned char *show = calloc(n_cols ? n_cols : 1, 1);
	_cleanup_(freep) size_t *width = calloc(n_cols ? n_cols : 1, sizeof(size_t));
	_cleanup_(freep) const char **cells = calloc(n_cols ? n_cols : 1, sizeof(char *));

	if (!show || !width || !cells)
		return -ENOMEM;
	for (size_t i = 0; i < n_cols; i++) {
		show[i] = cols[i].detail <= detail ? SHOW_COL : 0;
		if (show[i] && right_aligned(&cols[i]))
			show[i] |= SHOW_RIGHT;
		width[i] = strlen(cols[i].header);
		n_shown += show[i] != 0;
		colors |= show[i] && cols[i].color;
	}
	colors = colors && n_rows_any(t) && colors_for(f);
	n_rows = n_shown ? t->n / n_shown : 0;
	for (size_t r = 0, k = 0; r < n_rows; r++)
		for (size_t i = 0; i < n_cols; i++) {
			size_t w;

			if (!show[i])
				continue;
			w = strlen(t->buf + t->off[k++]);
			if (w > width[i])
				width[i] = w;
		}

	for (size_t i = 0; i < n_cols; i++)
		cells[i] = cols[i].header;
	if (!(style & OUT_STYLE_NO_LEGEND))
		print_line(f, cols, n_cols, show, width, cells, indent,
			   false); /* a header is never coloured */
	for (size_t r = 0, k = 0; r < n_rows; r++) {
		for (size_t i = 0; i < n_cols; i++)
			cells[i] = show[i] ? t->buf + t->off[k++] : NULL;
		print_line(f, cols, n_cols, show, width, cells, indent, colors);
	}
	return 0;
}

int out_table(FILE *f, const struct out_column *cols, size_t n_cols, json_object *rows,
	      unsigned detail, unsigned indent)
{
	size_t n_rows = rows && json_object_is_type(rows, json_type_array)
				? json_object_array_length(rows)
				: 0;
	_cleanup_(out_cells_done) struct out_cells t = {};

	/* Every shown cell rendered once, then laid out. */
	for (size_t r = 0; r < n_rows; r++) {
		json_object *row = json_object_array_get_idx(rows, r);

		for (size_t i = 0; i < n_cols; i++) {
			char buf[CELL_MAX];

			if (cols[i].detail > detail)
				continue;
			if (out_cells_add(&t, cell(row, &cols[i], buf, sizeof(buf))) < 0)
				return -ENOMEM;
		}
	}
	return out_table_cells(f, cols, n_cols, &t, detail, indent);
}

static size_t kv_width(const struct out_column *fields, size_t n_fields, unsigned detail)
{
	size_t width = 0;

	for (size_t i = 0; i < n_fields; i++)
		if (fields[i].detail <= detail && strlen(fields[i].header) > width)
			width = strlen(fields[i].header);
	return width;
}

/* "%*s%s:%*s %s\n" into the line buffer (no printf padding); l->f for when it is full. */
static void kv_build(struct line *l, const struct out_column *field, size_t width, unsigned indent,
		     const char *value)
{
	size_t lh = strlen(field->header);

	l->len = 0;
	pad(l, indent);
	put(l, field->header, lh);
	put(l, ":", 1);
	pad(l, width > lh ? width - lh : 0);
	put(l, " ", 1);
	put(l, value, strlen(value));
	put(l, "\n", 1);
}

/* One line, one write. */
static void kv_line(FILE *f, const struct out_column *field, size_t width, unsigned indent,
		    const char *value)
{
	struct line l;

	l.f = f;
	kv_build(&l, field, width, indent, value);
	fwrite(l.buf, 1, l.len, f);
}

int out_kv(FILE *f, const struct out_column *fields, size_t n_fields, json_object *obj,
	   unsigned detail, unsigned indent)
{
	size_t width = kv_width(fields, n_fields, detail);

	for (size_t i = 0; i < n_fields; i++) {
		char buf[CELL_MAX];

		if (fields[i].detail <= detail)
			kv_line(f, &fields[i], width, indent,
				cell(obj, &fields[i], buf, sizeof(buf)));
	}
	return 0;
}

int out_json(FILE *f, json_object *doc, bool pretty)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE |
		    (pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
			    : JSON_C_TO_STRING_PLAIN);
	const char *s = json_object_to_json_string_ext(doc, flags);

	if (!s)
		return -ENOMEM;
	if (fputs(s, f) < 0 || fputc('\n', f) < 0)
		return -EIO;
	return 0;
}

int json_add(json_object *obj, const char *key, json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_object_add(obj, key, v) < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

int json_add_u64(json_object *obj, const char *key, uint64_t v)
{
	return json_add(obj, key, json_object_new_uint64(v));
}

int json_add_i64(json_object *obj, const char *key, int64_t v)
{
	return json_add(obj, key, json_object_new_int64(v));
}

int json_add_str(json_object *obj, const char *key, const char *s)
{
	if (!s)
		return json_add_null(obj, key);
	return json_add(obj, key, json_object_new_string(s));
}

int json_add_name(json_object *obj, const char *key, const char *name)
{
	char buf[NAME_OUT_MAX + 1];

	if (!name)
		return json_add_null(obj, key);
	name_sanitize(name, buf, sizeof(buf));
	return json_add_str(obj, key, buf);
}

int json_add_bool(json_object *obj, const char *key, bool b)
{
	return json_add(obj, key, json_object_new_boolean(b));
}

int json_add_null(json_object *obj, const char *key)
{
	/* json-c represents null as a NULL value; adding it cannot run out of memory here. */
	return json_object_object_add(obj, key, NULL) < 0 ? -ENOMEM : 0;
}

int json_append(json_object *arr, json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_array_add(arr, v) < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

int json_append_str(json_object *arr, const char *s)
{
	if (!s)
		return json_object_array_add(arr, NULL) < 0 ? -ENOMEM : 0;
	return json_append(arr, json_object_new_string(s));
}

/* ---------------------------------------------------------------------------------- */
/* The sink                                                                            */

static void sink_fail(struct out_sink *s, int err)
{
	if (!s->err)
		s->err = err;
}

static void jput(struct out_sink *s, const char *p, size_t n)
{
	while (n) {
		size_t k;

		if (s->len == sizeof(s->buf)) {
			if (fwrite(s->buf, 1, s->len, s->f) != s->len)
				sink_fail(s, -EIO);
			s->len = 0;
		}
		k = sizeof(s->buf) - s->len < n ? sizeof(s->buf) - s->len : n;
		memcpy(s->buf + s->len, p, k);
		s->len += k;
		p += k;
		n -= k;
	}
}

static void jputs(struct out_sink *s, const char *p)
{
	jput(s, p, strlen(p));
}

/* A string as json-c writes it with JSON_C_TO_STRING_NOSLASHESCAPE (json_escape_str()). */
static void jstring(struct out_sink *s, const char *p)
{
	static const char hex[] = "0123456789abcdef";
	const char *run = p;

	jput(s, "\"", 1);
	for (; *p; p++) {
		unsigned char c = (unsigned char)*p;
		char esc[7] = { '\\', 0 };
		size_t n = 2;

		switch (c) {
		case '\b':
			esc[1] = 'b';
			break;
		case '\n':
			esc[1] = 'n';
			break;
		case '\r':
			esc[1] = 'r';
			break;
		case '\t':
			esc[1] = 't';
			break;
		case '\f':
			esc[1] = 'f';
			break;
		case '"':
		case '\\':
			esc[1] = (char)c;
			break;
		default:
			if (c >= ' ')
				continue;
			memcpy(esc + 1, "u00", 3);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 0xf];
			n = 6;
		}
		jput(s, run, (size_t)(p - run));
		jput(s, esc, n);
		run = p + 1;
	}
	jput(s, run, (size_t)(p - run));
	jput(s, "\"", 1);
}

/* Before a member: the comma, the line and indent of pretty output, the key. */
static void jmember(struct out_sink *s, const char *key)
{
	if (s->depth == 0) /* the root */
		return;
	if (s->had[s->depth])
		jput(s, ",", 1);
	/* json-c: a bracket ends its line (jopen()), so does every member but the last */
	if (s->pretty && s->had[s->depth])
		jput(s, "\n", 1);
	if (s->pretty)
		for (unsigned i = 0; i < s->depth; i++)
			jput(s, "  ", 2);
	s->had[s->depth] = true;
	if (key) {
		jstring(s, key);
		jputs(s, s->pretty ? ": " : ":");
	}
}

static void jopen(struct out_sink *s, const char *key, char c)
{
	jmember(s, key);
	if (s->depth + 1 >= OUT_SINK_DEPTH) {
		sink_fail(s, -E2BIG);
		return;
	}
	jput(s, &c, 1);
	if (s->pretty)
		jput(s, "\n", 1);
	s->had[++s->depth] = false;
	s->arr[s->depth] = c == '[';
}

static void jclose(struct out_sink *s, char c)
{
	if (s->depth == 0)
		return;
	if (s->pretty) { /* empty: "{", a line, the indent, "}" */
		if (s->had[s->depth])
			jput(s, "\n", 1);
		for (unsigned i = 1; i < s->depth; i++)
			jput(s, "  ", 2);
	}
	jput(s, &c, 1);
	s->depth--;
}

/* Document: add v under key to the open object, or append it to the open array. */
static void dadd(struct out_sink *s, const char *key, json_object *v, bool is_null)
{
	json_object *top = s->stack[s->depth];
	int r;

	if (!v && !is_null) {
		sink_fail(s, -ENOMEM);
		return;
	}
	if (!top) { /* the root */
		s->stack[0] = v;
		return;
	}
	if (json_object_is_type(top, json_type_array))
		r = is_null ? (json_object_array_add(top, NULL) < 0 ? -ENOMEM : 0)
			    : json_append(top, v);
	else
		r = is_null ? json_add_null(top, key) : json_add(top, key, v);
	if (r < 0)
		sink_fail(s, r);
}

static void dopen(struct out_sink *s, const char *key, json_object *v)
{
	if (s->depth + 1 >= OUT_SINK_DEPTH) {
		json_object_put(v);
		sink_fail(s, -E2BIG);
		return;
	}
	/* added before it is filled: the parent (or stack[0], the root) holds the reference */
	dadd(s, key, v, false);
	if (!s->err) {
		s->stack[++s->depth] = v;
		s->arr[s->depth] = json_object_is_type(v, json_type_array);
	}
}

static void sink_init(struct out_sink *s, enum out_sink_kind kind, FILE *f)
{
	s->kind = kind;
	s->f = f;
	s->detail = 0;
	s->pretty = false;
	s->err = 0;
	s->depth = 0;
	s->had[0] = s->arr[0] = false;
	s->stack[0] = NULL;
	s->cols = NULL;
	s->n_cols = 0;
	s->cells = (struct out_cells){};
	s->kv = false;
	s->parts = false;
	s->tbuf = NULL;
	s->tlen = s->tcap = 0;
	s->n_seg = 0;
	s->len = 0;
}

void out_sink_text(struct out_sink *s, FILE *f, unsigned detail)
{
	sink_init(s, OUT_SINK_TEXT, f);
	s->detail = detail;
}

void out_sink_json(struct out_sink *s, FILE *f, bool pretty)
{
	sink_init(s, OUT_SINK_JSON, f);
	s->pretty = pretty;
}

void out_sink_doc(struct out_sink *s)
{
	sink_init(s, OUT_SINK_DOC, NULL);
}

int out_sink_done(struct out_sink *s)
{
	if (s->kind == OUT_SINK_JSON) {
		jput(s, "\n", 1);
		if (s->len && fwrite(s->buf, 1, s->len, s->f) != s->len)
			sink_fail(s, -EIO);
		s->len = 0;
	}
	out_cells_done(&s->cells);
	for (unsigned n = 0; s->parts && n < OUT_SINK_PARTS; n++)
		for (unsigned k = 0; !s->err && k < s->n_seg; k++) {
			size_t at = s->seg_start[k],
			       end = k + 1 < s->n_seg ? s->seg_start[k + 1] : s->tlen;

			if (s->seg_part[k] == n && end > at &&
			    fwrite(s->tbuf + at, 1, end - at, s->f) != end - at)
				sink_fail(s, -EIO);
		}
	if (s->tbuf != s->buf)
		free(s->tbuf);
	s->tbuf = NULL;
	s->parts = false;
	if (s->kind == OUT_SINK_DOC && s->err && s->stack[0]) {
		json_object_put(s->stack[0]);
		s->stack[0] = NULL;
	}
	return s->err;
}

json_object *out_sink_take_doc(struct out_sink *s)
{
	json_object *doc = s->err ? NULL : s->stack[0];

	s->stack[0] = NULL;
	return doc;
}

/* An object ('{') or array ('['): opened in the JSON or the document, closed. */
static void sink_open(struct out_sink *s, const char *key, char c)
{
	if (s->err)
		return;
	if (s->kind == OUT_SINK_JSON)
		jopen(s, key, c);
	else
		dopen(s, key, c == '[' ? json_object_new_array() : json_object_new_object());
}

static void sink_close(struct out_sink *s, char c)
{
	if (s->err)
		return;
	if (s->kind == OUT_SINK_JSON)
		jclose(s, c);
	else if (s->depth)
		s->depth--;
}

void out_object_begin_(struct out_sink *s, const char *key)
{
	sink_open(s, key, '{');
}

void out_object_end_(struct out_sink *s)
{
	sink_close(s, '}');
}

void out_array_begin_(struct out_sink *s, const char *key)
{
	sink_open(s, key, '[');
}

void out_array_end_(struct out_sink *s)
{
	sink_close(s, ']');
}

void out_table_begin(struct out_sink *s, const char *key, const struct out_column *cols,
		     size_t n_cols, unsigned indent)
{
	if (s->err)
		return;
	if (n_cols > OUT_SINK_COLS) {
		sink_fail(s, -E2BIG);
		return;
	}
	s->cols = cols;
	s->n_cols = n_cols;
	s->indent = indent;
	s->cells.n = s->cells.len = 0;
	/* the cell of a field not emitted: "-" at offset 0, shared */
	if (s->kind == OUT_SINK_TEXT && out_cells_add(&s->cells, "-") < 0) {
		sink_fail(s, -ENOMEM);
		return;
	}
	s->cells.n = 0;
	memset(s->cell_off, 0, n_cols * sizeof(s->cell_off[0]));
	s->n_shown = 0;
	for (size_t i = 0; i < n_cols; i++)
		if (cols[i].detail <= s->detail)
			s->shown[s->n_shown++] = (unsigned char)i;
	out_array_begin(s, key);
}

void out_row_begin(struct out_sink *s)
{
	if (s->err)
		return;
	out_object_begin(s, NULL);
}

void out_row_end(struct out_sink *s)
{
	struct out_cells *t = &s->cells;

	out_object_end(s);
	if (s->err || s->kind != OUT_SINK_TEXT)
		return;
	/* the row's cells are in t->buf already (out_cell()); their offsets in column order */
	if (t->n + s->n_shown > t->cap_cells) {
		size_t cap = t->cap_cells ? 2 * t->cap_cells : 64;
		size_t *off;

		while (cap < t->n + s->n_shown)
			cap *= 2;
		off = realloc(t->off, cap * sizeof(*off));
		if (!off) {
			sink_fail(s, -ENOMEM);
			return;
		}
		t->off = off;
		t->cap_cells = cap;
	}
	for (size_t k = 0; k < s->n_shown; k++) {
		size_t i = s->shown[k];

		t->off[t->n++] = s->cell_off[i] ? s->cell_off[i] - 1 : 0;
		s->cell_off[i] = 0; /* for the next row (only shown cells are set) */
	}
}

void out_table_end(struct out_sink *s)
{
	out_array_end(s);
	if (s->err || s->kind != OUT_SINK_TEXT || !s->cols)
		return;
	if (s->parts) { /* into the text's buffer, through a memory stream */
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);

		if (!m ||
		    out_table_cells(m, s->cols, s->n_cols, &s->cells, s->detail, s->indent) < 0 ||
		    fclose(m) != 0)
			sink_fail(s, -ENOMEM);
		else
			out_text_put(s, buf, len);
		free(buf);
	} else if (out_table_cells(s->f, s->cols, s->n_cols, &s->cells, s->detail, s->indent) < 0) {
		sink_fail(s, -ENOMEM);
	}
	s->cols = NULL;
	s->n_cols = 0;
}

void out_kv_begin(struct out_sink *s, const struct out_column *fields, size_t n_fields,
		  unsigned indent)
{
	if (s->kind != OUT_SINK_TEXT)
		return;
	out_table_begin(s, NULL, fields, n_fields, indent);
	s->kv = true;
}

void out_kv_end(struct out_sink *s)
{
	size_t width;

	if (s->err || s->kind != OUT_SINK_TEXT || !s->kv)
		return;
	width = kv_width(s->cols, s->n_cols, s->detail);
	for (size_t i = 0; i < s->n_cols; i++) {
		struct line l;

		if (s->cols[i].detail > s->detail)
			continue;
		/* a value is a cell, at most CELL_MAX: the line never fills the buffer */
		l.f = s->f;
		kv_build(&l, &s->cols[i], width, s->indent,
			 s->cell_off[i] ? s->cells.buf + s->cell_off[i] - 1 : "-");
		out_text_put(s, l.buf, l.len);
	}
	s->cols = NULL;
	s->n_cols = 0;
	s->kv = false;
}

void out_text_part(struct out_sink *s, unsigned n)
{
	if (s->err || s->kind != OUT_SINK_TEXT)
		return;
	if (n >= OUT_SINK_PARTS || s->n_seg == OUT_SINK_SEGS) {
		sink_fail(s, -E2BIG);
		return;
	}
	s->parts = true;
	s->seg_part[s->n_seg] = (unsigned char)n;
	s->seg_start[s->n_seg++] = s->tlen;
}

void out_table_drop(struct out_sink *s)
{
	out_array_end(s);
	s->cols = NULL;
	s->n_cols = 0;
}

/* The text of column col of the current row (cut at CELL_MAX - 1 as a table cuts it),
 * straight into the table's cells. */
void out_cell_put_(struct out_sink *s, int col, const char *text)
{
	struct out_cells *t = &s->cells;
	size_t n;

	if (!text || !*text) {
		s->cell_off[col] = 1; /* the shared "-" */
		return;
	}
	n = strnlen(text, CELL_MAX - 1);
	if (t->len + n + 1 > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 4096;
		char *buf;

		while (cap < t->len + n + 1)
			cap *= 2;
		buf = realloc(t->buf, cap);
		if (!buf) {
			sink_fail(s, -ENOMEM);
			return;
		}
		t->buf = buf;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, text, n);
	t->buf[t->len + n] = '\0';
	s->cell_off[col] = t->len + 1;
	t->len += n + 1;
}

/* Whether a field goes into the JSON or the document: a key, or an element of an array. */
static bool json_field(const struct out_sink *s, const char *key)
{
	return s->kind != OUT_SINK_TEXT && (key || s->arr[s->depth]);
}

void out_cell_u64_(struct out_sink *s, int col, uint64_t v)
{
	struct out_cells *t = &s->cells;
	enum out_fmt fmt = s->cols[col].fmt;
	char buf[64];

	if (fmt != OUT_U64 || t->len + 21 > t->cap) {
		out_cell_put_(s, col, out_fmt_uint(v, fmt, buf, sizeof(buf)));
		return;
	}
	/* a decimal straight into the cells (most of a socket table's cells) */
	out_fmt_dec(v, t->buf + t->len, 21);
	s->cell_off[col] = t->len + 1;
	t->len += strlen(t->buf + t->len) + 1;
}

void out_u64_(struct out_sink *s, const char *key, uint64_t v)
{
	char buf[64];

	if (s->err)
		return;
	if (s->kind == OUT_SINK_JSON && json_field(s, key)) {
		jmember(s, key);
		jputs(s, out_fmt_dec(v, buf, sizeof(buf)));
	} else if (s->kind == OUT_SINK_DOC && json_field(s, key)) {
		dadd(s, key, json_object_new_uint64(v), false);
	}
}

void out_str_(struct out_sink *s, const char *key, const char *v)
{
	if (s->err)
		return;
	if (s->kind == OUT_SINK_JSON && json_field(s, key)) {
		jmember(s, key);
		if (v)
			jstring(s, v);
		else
			jputs(s, "null");
	} else if (s->kind == OUT_SINK_DOC && json_field(s, key)) {
		if (v)
			dadd(s, key, json_object_new_string(v), false);
		else
			dadd(s, key, NULL, true);
	}
}

void out_name(struct out_sink *s, const char *key, int col, const char *v)
{
	char buf[NAME_OUT_MAX + 1];

	if (s->err)
		return;
	if (!v || (s->kind == OUT_SINK_TEXT && !out_text_wants(s, col)) ||
	    (s->kind != OUT_SINK_TEXT && !json_field(s, key))) {
		out_str(s, key, col, v);
		return;
	}
	name_sanitize(v, buf, sizeof(buf));
	out_str(s, key, col, buf);
}

void out_bool(struct out_sink *s, const char *key, int col, bool v)
{
	if (s->err)
		return;
	if (s->kind == OUT_SINK_JSON && json_field(s, key)) {
		jmember(s, key);
		jputs(s, v ? "true" : "false");
	} else if (s->kind == OUT_SINK_DOC && json_field(s, key)) {
		dadd(s, key, json_object_new_boolean(v), false);
	} else if (out_text_wants(s, col)) {
		out_cell(s, col, v ? "yes" : "no");
	}
}

/* Text into the sink's stream, or with parts into its buffer. */
void out_text_put(struct out_sink *s, const char *p, size_t n)
{
	if (s->err || s->kind != OUT_SINK_TEXT)
		return;
	if (!s->parts) {
		if (fwrite(p, 1, n, s->f) != n)
			sink_fail(s, -EIO);
		return;
	}
	if (!s->tbuf) { /* first the JSON's buffer, which a text sink does not use */
		s->tbuf = s->buf;
		s->tcap = sizeof(s->buf);
	}
	if (s->tlen + n > s->tcap) {
		size_t cap = 2 * s->tcap;
		char *b;

		while (cap < s->tlen + n)
			cap *= 2;
		b = s->tbuf == s->buf ? malloc(cap) : realloc(s->tbuf, cap);
		if (!b) {
			sink_fail(s, -ENOMEM);
			return;
		}
		if (s->tbuf == s->buf)
			memcpy(b, s->buf, s->tlen);
		s->tbuf = b;
		s->tcap = cap;
	}
	memcpy(s->tbuf + s->tlen, p, n);
	s->tlen += n;
}

static void text_vprintf(struct out_sink *s, const char *fmt, va_list ap)
{
	char buf[512], *big;
	va_list aq;
	int n;

	if (!s->parts) {
		if (vfprintf(s->f, fmt, ap) < 0)
			sink_fail(s, -EIO);
		return;
	}
	va_copy(aq, ap);
	n = vsnprintf(buf, sizeof(buf), fmt, aq);
	va_end(aq);
	if (n < 0) {
		sink_fail(s, -EIO);
	} else if ((size_t)n < sizeof(buf)) {
		out_text_put(s, buf, (size_t)n);
	} else if (!(big = malloc((size_t)n + 1))) {
		sink_fail(s, -ENOMEM);
	} else {
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		out_text_put(s, big, (size_t)n);
		free(big);
	}
}

void out_text(struct out_sink *s, const char *fmt, ...)
{
	va_list ap;

	if (s->err || s->kind != OUT_SINK_TEXT)
		return;
	va_start(ap, fmt);
	text_vprintf(s, fmt, ap);
	va_end(ap);
}

void out_legend(struct out_sink *s, const char *fmt, ...)
{
	va_list ap;

	if (s->err || s->kind != OUT_SINK_TEXT || (style & OUT_STYLE_NO_LEGEND))
		return;
	va_start(ap, fmt);
	text_vprintf(s, fmt, ap);
	va_end(ap);
}

/* indent blanks, label left-aligned to column label_w (counted from the line's start) and
 * a blank, at p; returns the end.  The label is never cut. */
static char *line_label(char *p, unsigned indent, unsigned label_w, const char *label, size_t ll)
{
	size_t lw = label_w > indent ? label_w - indent : 0;

	memset(p, ' ', indent);
	p = mempcpy(p + indent, label, ll);
	if (ll < lw) {
		memset(p, ' ', lw - ll);
		p += lw - ll;
	}
	return p;
}

/* The line's bytes in buf when they fit (most), else on the heap; NULL: out of memory. */
static char *line_buf(struct out_sink *s, char *buf, size_t size, size_t need)
{
	char *p = need <= size ? buf : malloc(need);

	if (!p)
		sink_fail(s, -ENOMEM);
	return p;
}

void out_line(struct out_sink *s, unsigned indent, unsigned label_w, const char *label,
	      unsigned value_w, const char *value, const char *extra)
{
	size_t ll, lv, le;
	char buf[512], *b, *p;

	if (s->err || s->kind != OUT_SINK_TEXT)
		return;
	ll = strlen(label);
	lv = strlen(value);
	le = extra ? strlen(extra) : 0;
	b = line_buf(s, buf, sizeof(buf), indent + label_w + ll + 1 + value_w + lv + 1 + le + 1);
	if (!b)
		return;
	p = line_label(b, indent, label_w, label, ll);
	*p++ = ' ';
	if (lv < value_w) {
		memset(p, ' ', value_w - lv);
		p += value_w - lv;
	}
	p = mempcpy(p, value, lv);
	if (le) {
		*p++ = ' ';
		p = mempcpy(p, extra, le);
	}
	*p++ = '\n';
	out_text_put(s, b, (size_t)(p - b));
	if (b != buf)
		free(b);
}

/* out_line_cells() and out_line_cols(): cells[i] in cols[i], or all in cols[0] (same). */
static void line_cells(struct out_sink *s, unsigned indent, unsigned label_w, const char *label,
		       const struct out_line_col cols[], bool same, const char *const cells[],
		       size_t n)
{
	size_t ll, need, lc;
	char buf[512], *b, *p;

	if (s->err || s->kind != OUT_SINK_TEXT)
		return;
	ll = strlen(label);
	need = indent + label_w + ll + 1;
	for (size_t i = 0; i < n; i++)
		need += 1 + cols[same ? 0 : i].width + strlen(cells[i]);
	b = line_buf(s, buf, sizeof(buf), need);
	if (!b)
		return;
	p = line_label(b, indent, label_w, label, ll);
	for (size_t i = 0; i < n; i++) {
		const struct out_line_col *c = &cols[same ? 0 : i];
		size_t pad;

		lc = strlen(cells[i]);
		pad = lc < c->width ? c->width - lc : 0;
		*p++ = ' ';
		if (!(c->align & OUT_LEFT)) {
			memset(p, ' ', pad);
			p += pad;
		}
		p = mempcpy(p, cells[i], lc);
		if (c->align & OUT_LEFT) {
			memset(p, ' ', pad);
			p += pad;
		}
	}
	*p++ = '\n';
	out_text_put(s, b, (size_t)(p - b));
	if (b != buf)
		free(b);
}

void out_line_cells(struct out_sink *s, unsigned indent, unsigned label_w, const char *label,
		    unsigned cell_w, const char *const cells[], size_t n)
{
	const struct out_line_col col = { cell_w, OUT_RIGHT };

	line_cells(s, indent, label_w, label, &col, true, cells, n);
}

void out_line_cols(struct out_sink *s, unsigned indent, unsigned label_w, const char *label,
		   const struct out_line_col cols[], const char *const cells[], size_t n)
{
	line_cells(s, indent, label_w, label, cols, false, cells, n);
}
