// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "tests/unit/golden.h"

void capture_begin(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
}

const char *capture_end(struct capture *c)
{
	fclose(c->f);
	c->f = NULL;
	return c->buf;
}

const char *golden_top_srcdir(void)
{
	const char *t = getenv("top_srcdir");

	return t && *t ? t : ".";
}

char *golden_read_file(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int ch;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	while ((ch = fgetc(f)) != EOF)
		fputc(ch, m);
	fclose(m);
	fclose(f);
	return buf;
}

static void mkdir_parents(const char *path)
{
	char tmp[4096];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0755);
			*p = '/';
		}
}

void golden_check(const char *name, const char *text)
{
	char path[4096], tmp[] = "/tmp/golden-actual-XXXXXX", cmd[8300];
	const char *update = getenv("SMCCTL_UPDATE_GOLDEN");
	char *expected;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%s/tests/golden/%s", golden_top_srcdir(), name);
	if (update && strcmp(update, "1") == 0) {
		mkdir_parents(path);
		/* A link to another step's output (test-cli-golden) is replaced, never written
		 * through: that would change the other step's golden file too. */
		if (unlink(path) < 0 && errno != ENOENT)
			fail_msg("cannot replace %s: %s", path, strerror(errno));
		f = fopen(path, "we");
		assert_non_null(f);
		fputs(text, f);
		fclose(f);
		return;
	}
	expected = golden_read_file(path);
	if (expected && strcmp(expected, text) == 0) {
		free(expected);
		return;
	}
	fd = mkstemp(tmp);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "diff -u '%s' '%s' >&2", path, tmp);
	if (system(cmd) < 0)
		fprintf(stderr, "(diff failed)\n");
	unlink(tmp);
	free(expected);
	fail_msg("output differs from tests/golden/%s%s (SMCCTL_UPDATE_GOLDEN=1 rewrites it)", name,
		 expected ? "" : ", which does not exist");
}

void assert_one_json_document(const char *text)
{
	struct json_tokener *tok = json_tokener_new();
	size_t len = strlen(text);
	json_object *o;

	assert_non_null(tok);
	assert_true(len > 1 && text[len - 1] == '\n');
	o = json_tokener_parse_ex(tok, text, (int)len - 1);
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != len - 1)
		fail_msg("not exactly one JSON document: %s\n%s",
			 json_tokener_error_desc(json_tokener_get_error(tok)), text);
	json_object_put(o);
	json_tokener_free(tok);
}

void test_write_file(const char *dir, const char *name, const char *text)
{
	char p[1024];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "we");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

char *test_read_file(const char *dir, const char *name, char *buf, size_t len)
{
	char p[1024];
	FILE *f;
	size_t n;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "re");
	if (!f) {
		buf[0] = '\0';
		return buf;
	}
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

size_t golden_each_fixture_step(const char *file, void (*fn)(const char *step))
{
	const char *env = getenv("SMCCTL_FIXTURES_DIR");
	char top[1024], lane[1300], step[1600], probe[1900];
	struct dirent *l, *s;
	size_t n = 0;
	DIR *d, *e;

	if (env && *env)
		snprintf(top, sizeof(top), "%s", env);
	else
		snprintf(top, sizeof(top), "%s/tests/fixtures", golden_top_srcdir());
	d = opendir(top);
	assert_non_null(d);
	while ((l = readdir(d))) {
		if (l->d_name[0] == '.')
			continue;
		snprintf(lane, sizeof(lane), "%s/%s", top, l->d_name);
		e = opendir(lane);
		if (!e)
			continue;
		while ((s = readdir(e))) {
			struct stat st;

			if (s->d_name[0] == '.')
				continue;
			snprintf(step, sizeof(step), "%s/%s", lane, s->d_name);
			snprintf(probe, sizeof(probe), "%s/%s", step, file);
			if (stat(probe, &st) < 0)
				continue;
			fn(step);
			n++;
		}
		closedir(e);
	}
	closedir(d);
	return n;
}
