// SPDX-License-Identifier: GPL-2.0-or-later
/* UEID derivation from machine-id: the convention, and every way a machine-id file is bad. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/ueid-derive.h"

#define ID "0123456789abcdef0123456789abcdef"

static char dir[] = "/tmp/test-ueid-derive-XXXXXX";

static const char *file_with(const char *name, const char *content, size_t len)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(content, 1, len, f), len);
	fclose(f);
	return path;
}

/* The seed script: "MID-" + `tr a-z A-Z | head -c 27`, i.e. 31 characters. */
static void test_derive_convention(void **state)
{
	char ueid[UEID_DERIVED_LEN + 1];

	ueid_derive(ID, ueid);
	assert_string_equal(ueid, "MID-0123456789ABCDEF0123456789A");
	assert_int_equal(strlen(ueid), 31);
	assert_int_equal(UEID_DERIVED_LEN, 31);
}

static void test_parse_valid(void **state)
{
	char id[MACHINE_ID_LEN + 1];
	const char *reason = "x";

	assert_int_equal(machine_id_parse(ID "\n", 33, id, &reason), 0);
	assert_string_equal(id, ID);
	assert_null(reason);
	/* the newline is optional */
	assert_int_equal(machine_id_parse(ID, 32, id, &reason), 0);
	assert_string_equal(id, ID);
}

static void expect_invalid(const char *buf, size_t len, const char *words)
{
	char id[MACHINE_ID_LEN + 1];
	const char *reason = NULL;

	assert_int_equal(machine_id_parse(buf, len, id, &reason), -EINVAL);
	assert_non_null(reason);
	if (!strstr(reason, words))
		fail_msg("reason \"%s\" does not mention \"%s\"", reason, words);
}

static void test_parse_invalid(void **state)
{
	expect_invalid("", 0, "empty");
	expect_invalid("\n", 1, "empty");
	expect_invalid("uninitialized\n", 14, "uninitialized");
	expect_invalid("uninitialized", 13, "uninitialized");
	expect_invalid("0123456789abcdef\n", 17, "too short");
	expect_invalid(ID "00\n", 35, "too long");
	expect_invalid("0123456789abcdeg0123456789abcdef\n", 33, "not hex");
	expect_invalid("0123456789ABCDEF0123456789abcdef\n", 33, "uppercase");
	expect_invalid("0123456789abcdef 123456789abcdef\n", 33, "not hex");
	expect_invalid("00000000000000000000000000000000\n", 33, "all zeros");
	expect_invalid(ID "\n\n", 34, "more than one line");
	expect_invalid("0123456789abcdef\n0123456789abcde\n", 33, "more than one line");
	expect_invalid("0123456789abcdef\0"
		       "0123456789abcde\n",
		       33, "not hex");
}

static void test_file_valid(void **state)
{
	char ueid[UEID_DERIVED_LEN + 1];
	const char *reason = NULL;
	const char *p = file_with("good", ID "\n", 33);

	assert_int_equal(ueid_derive_from_file(p, ueid, &reason), 0);
	assert_string_equal(ueid, "MID-0123456789ABCDEF0123456789A");
}

static void expect_file_error(const char *path, int err, bool with_reason)
{
	char ueid[UEID_DERIVED_LEN + 1];
	const char *reason = NULL;

	assert_int_equal(ueid_derive_from_file(path, ueid, &reason), err);
	if (with_reason)
		assert_non_null(reason);
	else
		assert_null(reason);
}

static void test_file_errors(void **state)
{
	char path[256];
	char big[8192];

	expect_file_error(file_with("empty", "", 0), -EINVAL, true);
	expect_file_error(file_with("short", "0123\n", 5), -EINVAL, true);
	expect_file_error(file_with("nonhex", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\n", 33), -EINVAL,
			  true);
	expect_file_error(file_with("uninit", "uninitialized\n", 14), -EINVAL, true);
	memset(big, 'a', sizeof(big));
	expect_file_error(file_with("big", big, sizeof(big)), -EINVAL, true);

	snprintf(path, sizeof(path), "%s/missing", dir);
	expect_file_error(path, -ENOENT, false);
	expect_file_error(dir, -EISDIR, false);

	/* A FIFO must neither hang nor be read as a machine ID. */
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	expect_file_error(path, -EINVAL, true);

	/* Unreadable: only observable when not root (root reads mode 0000 files). */
	if (geteuid() != 0) {
		const char *p = file_with("noperm", ID "\n", 33);

		assert_int_equal(chmod(p, 0), 0);
		expect_file_error(p, -EACCES, false);
	}
}

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_derive_convention), cmocka_unit_test(test_parse_valid),
		cmocka_unit_test(test_parse_invalid),	  cmocka_unit_test(test_file_valid),
		cmocka_unit_test(test_file_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
