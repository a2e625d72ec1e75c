// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/netlink-test-util.h"

#ifndef SMCNL_FIXTURE_DIR
#error "SMCNL_FIXTURE_DIR must be defined by the build"
#endif

const char *fixture_path(const char *rel)
{
	/* A few rotating buffers: tests use two or three paths at a time. */
	static char bufs[8][PATH_MAX];
	static unsigned next;
	const char *top = getenv("top_srcdir");
	char *buf = bufs[next++ % 8];

	if (top && *top)
		snprintf(buf, PATH_MAX, "%s/tests/fixtures/%s", top, rel);
	else
		snprintf(buf, PATH_MAX, "%s/%s", SMCNL_FIXTURE_DIR, rel);
	return buf;
}

struct smcnl *replay_open_abs(const char *dir)
{
	char sysroot[PATH_MAX];
	struct smcnl_options o = { .replay_dir = dir, .sysroot = sysroot };
	struct smcnl *nl = NULL;

	snprintf(sysroot, sizeof(sysroot), "%s/sysroot", dir);
	assert_int_equal(smcnl_open(&o, &nl), 0);
	assert_non_null(nl);
	return nl;
}

struct smcnl *replay_open(const char *rel)
{
	return replay_open_abs(fixture_path(rel));
}

char *tmpdir_new(void)
{
	const char *t = getenv("TMPDIR");
	char *dir;

	/* The mutation sweeps write tens of thousands of files: prefer memory to disk. */
	if (!t || !*t)
		t = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	assert_true(asprintf(&dir, "%s/smcnl-test.XXXXXX", t) > 0);
	assert_non_null(mkdtemp(dir));
	return dir;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

void tmpdir_remove(char *dir)
{
	if (!dir)
		return;
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

void write_file(const char *dir, const char *name, const void *data, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "we");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

void write_text(const char *dir, const char *name, const char *text)
{
	write_file(dir, name, text, strlen(text));
}

uint8_t *read_whole(const char *path, size_t *ret_len)
{
	struct stat st;
	uint8_t *buf;
	FILE *f = fopen(path, "re");

	if (!f)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	assert_int_equal(fstat(fileno(f), &st), 0);
	buf = malloc(st.st_size + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, st.st_size, f), (size_t)st.st_size);
	fclose(f);
	*ret_len = st.st_size;
	return buf;
}
