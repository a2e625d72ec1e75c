/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Golden-file helpers for the smcctl tests.  Golden files live in tests/golden/ of the
 * source tree ($top_srcdir, set by make check).  SMCCTL_UPDATE_GOLDEN=1 rewrites them from
 * the actual output instead of comparing: review the diff before committing it.  (This
 * variable is read by the test programs only; smcctl itself reads no environment.)
 */
#pragma once

#include <stdio.h>

struct capture {
	char *buf;
	size_t len;
	FILE *f;
};

void capture_begin(struct capture *c);
/* Closes the stream; the text stays in c->buf (free it). */
const char *capture_end(struct capture *c);

/* Compare text with tests/golden/NAME; fails the current cmocka test with a diff. */
void golden_check(const char *name, const char *text);
/* The whole file at path (caller frees), or NULL. */
char *golden_read_file(const char *path);

/* Fails unless text is exactly one JSON document followed by one newline. */
void assert_one_json_document(const char *text);

/* $top_srcdir, or "." when run by hand from the source tree. */
const char *golden_top_srcdir(void);

/*
 * fn(step) for every recorded step (tests/fixtures/LANE/STEP, or $SMCCTL_FIXTURES_DIR's)
 * that has the file FILE; returns how many.
 */
size_t golden_each_fixture_step(const char *file, void (*fn)(const char *step));

/* Write TEXT to DIR/NAME; fails the current cmocka test on an error. */
void test_write_file(const char *dir, const char *name, const char *text);
/* The text of DIR/NAME in BUF (at most LEN - 1 bytes), "" when it does not exist. */
char *test_read_file(const char *dir, const char *name, char *buf, size_t len);
