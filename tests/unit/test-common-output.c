// SPDX-License-Identifier: GPL-2.0-or-later
/* The renderers of common/output.c: formats, tables, key/value blocks, JSON. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pty.h>
#include <unistd.h>

#include "common/output.h"

struct capture {
	char *buf;
	size_t len;
	FILE *f;
};

static void capture_begin(struct capture *c)
{
	c->buf = NULL;
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
}

static const char *capture_end(struct capture *c)
{
	fclose(c->f);
	return c->buf;
}

static void test_abbrev(void **state)
{
	char b[16];

	/* The values of the smc-tools sample output. */
	assert_string_equal(out_fmt_abbrev(0, b, sizeof(b)), "0");
	assert_string_equal(out_fmt_abbrev(99999, b, sizeof(b)), "99999");
	assert_string_equal(out_fmt_abbrev(100000, b, sizeof(b)), "100.0K");
	assert_string_equal(out_fmt_abbrev(655360, b, sizeof(b)), "655.4K");
	assert_string_equal(out_fmt_abbrev(1234567, b, sizeof(b)), "1.235M");
	assert_string_equal(out_fmt_abbrev(18520000, b, sizeof(b)), "18.52M");
	assert_string_equal(out_fmt_abbrev(123456789012ULL, b, sizeof(b)), "123.5G");
	assert_string_equal(out_fmt_abbrev(98765432109ULL, b, sizeof(b)), "98.77G");
	/* never 7 characters: 999960 would round to "1000.0K" */
	assert_string_equal(out_fmt_abbrev(999960, b, sizeof(b)), "1.000M");
	assert_true(strlen(out_fmt_abbrev(UINT64_MAX, b, sizeof(b))) <= 6);
}

/* out_fmt_dec() writes what snprintf("%" PRIu64) writes, cut alike. */
static void test_dec(void **state)
{
	static const uint64_t v[] = {
		0,	   1,	  9,	       10,	    99,
		100,	   65535, 4294967295u, 4294967296u, 10000000000000000000u,
		UINT64_MAX
	};
	char a[32], b[32];

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		for (size_t len = 1; len <= 22; len++) {
			memset(a, 'x', sizeof(a));
			memset(b, 'x', sizeof(b));
			snprintf(a, len, "%" PRIu64, v[i]);
			assert_ptr_equal(out_fmt_dec(v[i], b, len), b);
			assert_memory_equal(a, b, sizeof(a));
		}
}

static void test_sizes(void **state)
{
	char b[32];

	assert_string_equal(out_fmt_size(0, b, sizeof(b)), "0");
	assert_string_equal(out_fmt_size(512, b, sizeof(b)), "512B");
	assert_string_equal(out_fmt_size(16384, b, sizeof(b)), "16K");
	assert_string_equal(out_fmt_size(1048576, b, sizeof(b)), "1M");
	assert_string_equal(out_fmt_size(1572864, b, sizeof(b)), "1.5M");
	assert_string_equal(out_fmt_bytes(1000, b, sizeof(b)), "1000");
	assert_string_equal(out_fmt_bytes(262144, b, sizeof(b)), "262144 (256 KiB)");
	assert_string_equal(out_fmt_bytes(1572864, b, sizeof(b)), "1572864 (1.5 MiB)");
	/* IEC units for every size in text: smcctl stats, assess (not smc-tools' 2.132M) */
	assert_string_equal(out_fmt_iec(0, b, sizeof(b)), "0 B");
	assert_string_equal(out_fmt_iec(1023, b, sizeof(b)), "1023 B");
	assert_string_equal(out_fmt_iec(262144, b, sizeof(b)), "256 KiB");
	assert_string_equal(out_fmt_iec(2132416, b, sizeof(b)), "2.0 MiB");
	assert_string_equal(out_fmt_iec(1000000, b, sizeof(b)), "976.6 KiB");
}

static void test_format_values(void **state)
{
	_cleanup_(json_object_putp) json_object *o = json_tokener_parse(
		"{\"s\":\"x\",\"e\":\"\",\"n\":null,\"u\":256,\"b\":true,\"neg\":-3,"
		"\"l\":[\"v1\",\"v2\"],\"big\":18446744073709551615,\"d\":{\"k\":\"deep\"}}");
	char b[64];

	assert_non_null(o);
	assert_string_equal(out_format(out_get(o, "s"), OUT_STR, b, sizeof(b)), "x");
	assert_string_equal(out_format(out_get(o, "e"), OUT_STR, b, sizeof(b)), "-");
	assert_string_equal(out_format(out_get(o, "n"), OUT_U64, b, sizeof(b)), "-");
	assert_string_equal(out_format(out_get(o, "absent"), OUT_U64, b, sizeof(b)), "-");
	assert_string_equal(out_format(out_get(o, "u"), OUT_U64, b, sizeof(b)), "256");
	assert_string_equal(out_format(out_get(o, "u"), OUT_HEX32, b, sizeof(b)), "00000100");
	assert_string_equal(out_format(out_get(o, "u"), OUT_HEX16, b, sizeof(b)), "0x0100");
	assert_string_equal(out_format(out_get(o, "b"), OUT_BOOL, b, sizeof(b)), "yes");
	assert_string_equal(out_format(out_get(o, "neg"), OUT_U64, b, sizeof(b)), "-3");
	assert_string_equal(out_format(out_get(o, "l"), OUT_LIST, b, sizeof(b)), "v1 v2");
	assert_string_equal(out_format(out_get(o, "big"), OUT_U64, b, sizeof(b)),
			    "18446744073709551615");
	assert_string_equal(out_format(out_get(o, "d.k"), OUT_STR, b, sizeof(b)), "deep");
	assert_null(out_get(o, "s.k"));
	assert_int_equal(out_get_u64(o, "u", 0), 256);
	assert_int_equal(out_get_u64(o, "n", 7), 7);
	assert_string_equal(out_get_str(o, "n", "def"), "def");
	assert_true(out_get_bool(o, "b", false));
}

static const char *fmt_custom(json_object *row, const struct out_column *col, char *buf, size_t len)
{
	snprintf(buf, len, "<%s>", out_get_str(row, "name", "?"));
	return buf;
}

static const struct out_column cols[] = {
	OUT_COL("name", "Name", OUT_STR),
	OUT_COL("n", "#N", OUT_U64),
	OUT_COL("id", "ID", OUT_HEX32, .flags = OUT_LEFT),
	OUT_COL("detail", "Detail", OUT_STR, .detail = 1),
	OUT_COL(NULL, "Custom", OUT_CUSTOM, .format = fmt_custom),
	OUT_COL("last", "Last", OUT_STR),
};

static void test_table(void **state)
{
	_cleanup_(json_object_putp) json_object *rows = json_tokener_parse(
		"[{\"name\":\"lo\",\"n\":2,\"id\":256,\"detail\":\"d\",\"last\":\"x\"},"
		"{\"name\":\"longer-name\",\"n\":12345,\"id\":null,\"last\":null}]");
	struct capture c;

	capture_begin(&c);
	out_table(c.f, cols, ELEMENTSOF(cols), rows, 0, 2);
	assert_string_equal(capture_end(&c), "  Name            #N  ID        Custom         Last\n"
					     "  lo               2  00000100  <lo>           x\n"
					     "  longer-name  12345  -         <longer-name>  -\n");
	free(c.buf);

	capture_begin(&c);
	out_table(c.f, cols, ELEMENTSOF(cols), rows, 1, 0);
	assert_string_equal(capture_end(&c),
			    "Name            #N  ID        Detail  Custom         Last\n"
			    "lo               2  00000100  d       <lo>           x\n"
			    "longer-name  12345  -         -       <longer-name>  -\n");
	free(c.buf);
}

static void test_table_empty(void **state)
{
	_cleanup_(json_object_putp) json_object *rows = json_object_new_array();
	struct capture c;

	capture_begin(&c);
	out_table(c.f, cols, ELEMENTSOF(cols), rows, 0, 0);
	assert_string_equal(capture_end(&c), "Name  #N  ID  Custom  Last\n");
	free(c.buf);
}

static void test_kv(void **state)
{
	_cleanup_(json_object_putp) json_object *o =
		json_tokener_parse("{\"name\":\"lo\",\"n\":2,\"id\":256,\"detail\":\"d\"}");
	struct capture c;

	capture_begin(&c);
	out_kv(c.f, cols, ELEMENTSOF(cols), o, 0, 2);
	assert_string_equal(capture_end(&c), "  Name:   lo\n"
					     "  #N:     2\n"
					     "  ID:     00000100\n"
					     "  Custom: <lo>\n"
					     "  Last:   -\n");
	free(c.buf);
}

static void test_json(void **state)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	json_object *a = json_object_new_array();
	struct capture c;

	assert_int_equal(json_add_str(o, "path", "/sys/class/dibs"), 0);
	assert_int_equal(json_add_u64(o, "big", UINT64_MAX), 0);
	assert_int_equal(json_add_i64(o, "neg", -1), 0);
	assert_int_equal(json_add_bool(o, "b", false), 0);
	assert_int_equal(json_add_str(o, "null", NULL), 0);
	assert_int_equal(json_add(o, "arr", a), 0);
	assert_int_equal(json_append_str(a, "x"), 0);
	assert_int_equal(json_append_str(a, NULL), 0);

	capture_begin(&c);
	out_json(c.f, o, false);
	/* Compact, insertion order, no escaped slashes, one trailing newline. */
	assert_string_equal(capture_end(&c),
			    "{\"path\":\"/sys/class/dibs\",\"big\":18446744073709551615,"
			    "\"neg\":-1,\"b\":false,\"null\":null,\"arr\":[\"x\",null]}\n");
	free(c.buf);

	capture_begin(&c);
	out_json(c.f, a, true);
	assert_string_equal(capture_end(&c), "[\n  \"x\",\n  null\n]\n");
	free(c.buf);
}

/* Everything a JSON value can be, once into the sink s (key order is the document's). */
static void emit_all(struct out_sink *s)
{
	out_object_begin(s, NULL);
	out_str(s, "esc", OUT_NO_COL, "q\"b\\s/\b\f\n\r\t\x01\x1f\x7f \xc3\xa9 \xff");
	out_u64(s, "big", OUT_NO_COL, UINT64_MAX);
	out_u64(s, "zero", OUT_NO_COL, 0);
	out_bool(s, "t", OUT_NO_COL, true);
	out_bool(s, "f", OUT_NO_COL, false);
	out_null(s, "n", OUT_NO_COL);
	out_str(s, "empty", OUT_NO_COL, "");
	out_name(s, "name", OUT_NO_COL, "a\033b");
	out_object_begin(s, "eo");
	out_object_end(s);
	out_array_begin(s, "ea");
	out_array_end(s);
	out_table_begin(s, "rows", NULL, 0, 0);
	for (int i = 0; i < 2; i++) {
		out_row_begin(s);
		out_u64(s, "i", OUT_NO_COL, (uint64_t)i);
		out_object_begin(s, "in");
		out_array_begin(s, "list");
		out_str(s, NULL, OUT_NO_COL, "x");
		out_null(s, NULL, OUT_NO_COL);
		out_object_begin(s, NULL);
		out_object_end(s);
		out_array_end(s);
		out_object_end(s);
		out_row_end(s);
	}
	out_table_end(s);
	out_object_end(s);
}

/* The JSON sink streams what json-c prints for the document sink's object, both ways. */
static void test_sink_json(void **state)
{
	for (int pretty = 0; pretty < 2; pretty++) {
		struct out_sink s;
		struct capture a, b;
		json_object *doc;

		out_sink_doc(&s);
		emit_all(&s);
		assert_int_equal(out_sink_done(&s), 0);
		assert_non_null(doc = out_sink_take_doc(&s));
		capture_begin(&a);
		assert_int_equal(out_json(a.f, doc, pretty), 0);
		capture_end(&a);
		json_object_put(doc);

		capture_begin(&b);
		out_sink_json(&s, b.f, pretty);
		emit_all(&s);
		assert_int_equal(out_sink_done(&s), 0);
		capture_end(&b);
		assert_string_equal(b.buf, a.buf);
		if (!pretty)
			assert_string_equal(
				b.buf,
				"{\"esc\":\"q\\\"b\\\\s/\\b\\f\\n\\r\\t\\u0001\\u001f\x7f \xc3\xa9 \xff\","
				"\"big\":18446744073709551615,\"zero\":0,\"t\":true,\"f\":false,"
				"\"n\":null,\"empty\":\"\",\"name\":\"a\\\\x1bb\",\"eo\":{},\"ea\":[],"
				"\"rows\":[{\"i\":0,\"in\":{\"list\":[\"x\",null,{}]}},"
				"{\"i\":1,\"in\":{\"list\":[\"x\",null,{}]}}]}\n");
		free(a.buf);
		free(b.buf);
	}
}

static const struct out_column sink_cols[] = {
	OUT_COL("name", "Name", OUT_STR),
	OUT_COL("id", "ID", OUT_HEX32),
	OUT_COL("more", "More", OUT_U64, .detail = 1),
	OUT_COL("state", "State", OUT_STR, .color = OUT_COLOR_STATE),
};

static void emit_table(struct out_sink *s)
{
	static const char *const names[] = { "lo", "longer-name" };
	static const char *const states[] = { "SMCD", "TCP" };

	out_object_begin(s, NULL);
	out_table_begin(s, "rows", sink_cols, ELEMENTSOF(sink_cols), 2);
	for (size_t i = 0; i < 2; i++) {
		out_row_begin(s);
		out_str(s, "state", 3, states[i]); /* any order: the column places it */
		out_str(s, "name", 0, names[i]);
		out_u64(s, "secret", OUT_NO_COL, 7); /* JSON only */
		if (i == 0)
			out_u64(s, "id", 1, 256);
		out_u64(s, "more", 2, 12345);
		out_row_end(s);
	}
	out_table_end(s);
	out_legend(s, "legend %d\n", 1);
	out_object_end(s);
	assert_int_equal(out_sink_done(s), 0);
}

static const struct out_column kv_fields[] = {
	OUT_COL("a", "Alpha", OUT_STR),
	OUT_COL("b", "Be", OUT_U64),
	OUT_COL("c", "Cee", OUT_STR, .detail = 1),
};

/*
 * A text in parts (out_text_part()): each part's text in part order, whatever the order of
 * the emits; a key/value block (out_kv_begin()) whose fields come between other parts' text;
 * a part longer than the sink's own buffer; a table in a part.
 */
static void emit_parts(struct out_sink *s, const char *big)
{
	out_object_begin(s, NULL);
	out_text_part(s, 1);
	out_text(s, "B%d\n", 1);
	out_text_part(s, 0);
	out_puts(s, "Title\n");
	out_kv_begin(s, kv_fields, ELEMENTSOF(kv_fields), 2);
	out_str(s, "a", 0, "x");
	out_text_part(s, 2);
	out_text_put(s, big, strlen(big));
	out_u64(s, "b", 1, 7);
	out_str(s, "c", 2, "hidden");
	out_text_part(s, 0);
	out_kv_end(s);
	out_text_part(s, 3);
	out_table_begin(s, "rows", sink_cols, ELEMENTSOF(sink_cols), 2);
	out_row_begin(s);
	out_str(s, "name", 0, "lo");
	out_u64(s, "id", 1, 256);
	out_str(s, "state", 3, "SMCD");
	out_row_end(s);
	out_table_end(s);
	out_text_part(s, 1);
	out_text(s, "B%d\n", 2);
	out_object_end(s);
	assert_int_equal(out_sink_done(s), 0);
}

static void test_sink_parts(void **state)
{
	unsigned old = out_style_set(0);
	char big[5002], *want;
	struct out_sink s;
	struct capture c;

	memset(big, 'y', 5000);
	big[5000] = '\n';
	big[5001] = '\0';
	assert_non_null(want = malloc(16384));
	snprintf(want, 16384, "%s%s%s%s",
		 "Title\n"
		 "  Alpha: x\n"
		 "  Be:    7\n",
		 "B1\nB2\n", big,
		 "  Name        ID  State\n"
		 "  lo    00000100  SMCD\n");
	capture_begin(&c);
	out_sink_text(&s, c.f, 0);
	emit_parts(&s, big);
	assert_string_equal(capture_end(&c), want);
	free(c.buf);

	/* -d: the block's detail field too */
	capture_begin(&c);
	out_sink_text(&s, c.f, 1);
	emit_parts(&s, big);
	assert_non_null(strstr(capture_end(&c), "  Be:    7\n  Cee:   hidden\nB1\n"));
	free(c.buf);
	free(want);

	/* JSON: the fields by their keys, in emit order; no text, no parts */
	capture_begin(&c);
	out_sink_json(&s, c.f, false);
	emit_parts(&s, big);
	assert_string_equal(capture_end(&c),
			    "{\"a\":\"x\",\"b\":7,\"c\":\"hidden\",\"rows\":[{\"name\":"
			    "\"lo\",\"id\":256,\"state\":\"SMCD\"}]}\n");
	free(c.buf);
	out_style_set(old);
}

/* The text sink: cells by column, detail levels, "-", legends; --no-legend; colour. */
static void test_sink_text(void **state)
{
	unsigned old = out_style_set(0);
	struct out_sink s;
	struct capture c;

	capture_begin(&c);
	out_sink_text(&s, c.f, 0);
	emit_table(&s);
	assert_string_equal(capture_end(&c), "  Name               ID  State\n"
					     "  lo           00000100  SMCD\n"
					     "  longer-name         -  TCP\n"
					     "legend 1\n");
	free(c.buf);

	capture_begin(&c);
	out_sink_text(&s, c.f, 1);
	emit_table(&s);
	assert_string_equal(capture_end(&c), "  Name               ID   More  State\n"
					     "  lo           00000100  12345  SMCD\n"
					     "  longer-name         -  12345  TCP\n"
					     "legend 1\n");
	free(c.buf);

	/* --no-legend: no header line, no legend; the columns as wide as before */
	out_style_set(OUT_STYLE_NO_LEGEND);
	capture_begin(&c);
	out_sink_text(&s, c.f, 0);
	emit_table(&s);
	assert_string_equal(capture_end(&c), "  lo           00000100  SMCD\n"
					     "  longer-name         -  TCP\n");
	free(c.buf);

	/* colour: the state's cell only, never the header, padding by the text's width */
	out_style_set(OUT_STYLE_COLOR);
	capture_begin(&c);
	out_sink_text(&s, c.f, 0);
	emit_table(&s);
	assert_string_equal(capture_end(&c), "  Name               ID  State\n"
					     "  lo           00000100  \x1b[0;32mSMCD\x1b[0m\n"
					     "  longer-name         -  \x1b[0;33mTCP\x1b[0m\n"
					     "legend 1\n");
	free(c.buf);

	/* automatic colour: a stream that is no terminal (a pipe, a file, here memory) has none */
	out_style_set(OUT_STYLE_COLOR_AUTO);
	capture_begin(&c);
	out_sink_text(&s, c.f, 0);
	emit_table(&s);
	assert_null(strchr(capture_end(&c), '\x1b'));
	free(c.buf);
	out_style_set(OUT_STYLE_COLOR);

	/* the JSON of the same emits has neither legend nor colour */
	capture_begin(&c);
	out_sink_json(&s, c.f, false);
	emit_table(&s);
	assert_string_equal(capture_end(&c),
			    "{\"rows\":[{\"state\":\"SMCD\",\"name\":\"lo\",\"secret\":7,\"id\":256,"
			    "\"more\":12345},{\"state\":\"TCP\",\"name\":\"longer-name\",\"secret\":7,"
			    "\"more\":12345}]}\n");
	free(c.buf);
	out_style_set(old);
}

/* Fixed-width lines (smcctl stats): label to its column, value right-aligned, extra after
 * a blank only when there is one; nothing cut; in parts and on the heap; none in JSON. */
static void test_sink_lines(void **state)
{
	static const char *const cells[] = { "8KiB", "1.235M", "0" };
	/* left in 8, right in 6; longer cells are not cut */
	static const struct out_line_col line_cols[] = { { 8, OUT_LEFT }, { 6, OUT_RIGHT } };
	static const char *const long_cells[] = { "123456789", "1234567" };
	char label[600], *want;
	struct out_sink s;
	struct capture c;

	capture_begin(&c);
	out_sink_text(&s, c.f, 0);
	out_line(&s, 2, 12, "Requests", 6, "42", "(x)");
	out_line(&s, 4, 12, "Buffer", 6, "7", NULL);
	out_line(&s, 4, 12, "Empty extra", 6, "7", "");
	out_line(&s, 2, 6, "a-longer-label", 2, "12345", NULL);
	out_line(&s, 6, 0, "->", 0, "what to do", NULL);
	out_line_cells(&s, 4, 10, "Bufs", 7, cells, 3);
	out_line_cols(&s, 2, 6, "name", line_cols, cells, 2);
	out_line_cols(&s, 2, 6, "x", line_cols, long_cells, 2);
	assert_int_equal(out_sink_done(&s), 0);
	assert_string_equal(capture_end(&c), "  Requests       42 (x)\n"
					     "    Buffer        7\n"
					     "    Empty extra      7\n"
					     "  a-longer-label 12345\n"
					     "      -> what to do\n"
					     "    Bufs      8KiB  1.235M       0\n"
					     "  name 8KiB     1.235M\n"
					     "  x    123456789 1234567\n");
	free(c.buf);

	/* longer than the line's buffer: the same layout from the heap, into a part */
	memset(label, 'x', sizeof(label) - 1);
	label[sizeof(label) - 1] = '\0';
	capture_begin(&c);
	out_sink_text(&s, c.f, 0);
	out_text_part(&s, 1);
	out_line(&s, 1, 0, label, 3, "1", "e");
	out_text_part(&s, 0);
	out_line_cells(&s, 0, 2, "L", 3, cells, 1);
	assert_int_equal(out_sink_done(&s), 0);
	assert_int_equal(asprintf(&want, "L  8KiB\n %s   1 e\n", label) > 0, true);
	assert_string_equal(capture_end(&c), want);
	free(want);
	free(c.buf);

	/* JSON: text only, so nothing */
	capture_begin(&c);
	out_sink_json(&s, c.f, false);
	out_object_begin(&s, NULL);
	out_line(&s, 2, 12, "Requests", 6, "42", "(x)");
	out_line_cells(&s, 4, 10, "Bufs", 7, cells, 3);
	out_object_end(&s);
	assert_int_equal(out_sink_done(&s), 0);
	assert_string_equal(capture_end(&c), "{}\n");
	free(c.buf);
	(void)state;
}

/* Colour as systemd's tools decide it: a terminal, unless NO_COLOR (not empty) or dumb. */
static void test_color_auto(void **state)
{
	assert_true(out_color_auto(true, NULL, "xterm-256color"));
	assert_true(out_color_auto(true, NULL, NULL));
	assert_true(out_color_auto(true, "", "xterm")); /* no-color.org: empty means unset */
	assert_false(out_color_auto(true, "1", "xterm"));
	assert_false(out_color_auto(true, "0", "xterm")); /* any value, even "0" */
	assert_false(out_color_auto(true, NULL, "dumb"));
	assert_false(out_color_auto(false, NULL, "xterm"));
	assert_string_equal(out_color_state("SMCD"), OUT_ANSI_GREEN);
	assert_string_equal(out_color_state("TCP"), OUT_ANSI_YELLOW);
	assert_string_equal(out_color_state("failed"), OUT_ANSI_RED);
	assert_null(out_color_state("-"));
	assert_null(out_color_warn("-"));
	assert_string_equal(out_color_warn("NOSMCDDEV"), OUT_ANSI_YELLOW);
}

/* A table written to a terminal (a pty) with automatic colour: what the master reads. */
static char *table_on_tty(void)
{
	static char got[4096];
	size_t len = 0;
	int master, slave;
	struct out_sink s;
	ssize_t n;
	FILE *f;

	assert_int_equal(openpty(&master, &slave, NULL, NULL, NULL), 0);
	assert_non_null(f = fdopen(slave, "w"));
	out_style_set(OUT_STYLE_COLOR_AUTO); /* asks again: a new style */
	out_sink_text(&s, f, 0);
	emit_table(&s);
	fclose(f);
	/* a pty hands its data over in pieces: read until the closed slave's end (EIO) */
	while (len < sizeof(got) - 1 && (n = read(master, got + len, sizeof(got) - 1 - len)) > 0)
		len += (size_t)n;
	assert_true(len > 0);
	assert_non_null(memmem(got, len, "legend 1", 8)); /* all of it */
	got[len] = '\0';
	close(master);
	return got;
}

/* On a terminal states are coloured, unless NO_COLOR (not empty) or TERM=dumb: they win. */
static void test_color_tty(void **state)
{
	unsigned old = out_style();
	char *no_color = getenv("NO_COLOR"), *term = getenv("TERM");
	int m, t;

	/* a build chroot without /dev/pts has no terminal to offer: nothing to test there */
	if (openpty(&m, &t, NULL, NULL, NULL) < 0)
		skip();
	close(m);
	close(t);

	no_color = no_color ? strdup(no_color) : NULL;
	term = term ? strdup(term) : NULL;
	unsetenv("NO_COLOR");
	setenv("TERM", "xterm", 1);
	assert_non_null(strstr(table_on_tty(), "\x1b[0;32mSMCD\x1b[0m"));
	setenv("NO_COLOR", "1", 1);
	assert_null(strchr(table_on_tty(), '\x1b'));
	setenv("NO_COLOR", "", 1); /* empty: as if unset */
	assert_non_null(strchr(table_on_tty(), '\x1b'));
	unsetenv("NO_COLOR");
	setenv("TERM", "dumb", 1);
	assert_null(strchr(table_on_tty(), '\x1b'));
	if (no_color)
		setenv("NO_COLOR", no_color, 1);
	else
		unsetenv("NO_COLOR");
	if (term)
		setenv("TERM", term, 1);
	else
		unsetenv("TERM");
	free(no_color);
	free(term);
	out_style_set(old);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_abbrev),	   cmocka_unit_test(test_dec),
		cmocka_unit_test(test_sizes),	   cmocka_unit_test(test_format_values),
		cmocka_unit_test(test_table),	   cmocka_unit_test(test_table_empty),
		cmocka_unit_test(test_kv),	   cmocka_unit_test(test_json),
		cmocka_unit_test(test_sink_json),  cmocka_unit_test(test_sink_text),
		cmocka_unit_test(test_sink_parts), cmocka_unit_test(test_color_auto),
		cmocka_unit_test(test_color_tty),  cmocka_unit_test(test_sink_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
