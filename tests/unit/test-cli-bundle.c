// SPDX-License-Identifier: GPL-2.0-or-later
/* smcctl support-bundle's scrubbing: every form of the machine ID becomes the UEID. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli/bundle.h"

#define ID "0123456789abcdef0123456789abcdef"
#define UEID "MID-0123456789ABCDEF0123456789A"

static void check(const char *in, const char *want, size_t want_n)
{
	size_t len, n;
	char *out = bundle_scrub(in, strlen(in), ID, UEID, &len, &n);

	assert_non_null(out);
	assert_string_equal(out, want);
	assert_int_equal(len, strlen(want));
	assert_int_equal(n, want_n);
	free(out);
}

static void test_forms(void **state)
{
	(void)state;
	check("", "", 0);
	check("nothing here", "nothing here", 0);
	check(ID, UEID, 1);
	check("id=" ID "\n", "id=" UEID "\n", 1);
	check("0123456789ABCDEF0123456789ABCDEF", UEID, 1);
	check("0123456789AbCdEf0123456789aBcDeF", UEID, 1);
	check("01234567-89ab-cdef-0123-456789abcdef", UEID, 1);
	check("{" ID "," ID "}", "{" UEID "," UEID "}", 2);
	/* the UEID itself (27 digits) and near misses stay */
	check(UEID, UEID, 0);
	check("0123456789abcdef0123456789abcdee", "0123456789abcdef0123456789abcdee", 0);
	check("0123456789abcdef0123456789abcde", "0123456789abcdef0123456789abcde", 0);
	check("01234567-89abcdef-0123-456789abcdef", "01234567-89abcdef-0123-456789abcdef", 0);
	/* overlapping candidates: the first full match wins, the rest is kept */
	check("0" ID, "0" UEID, 1);
}

/* NUL bytes in the input (a binary journal field) do not stop the scan. */
static void test_binary(void **state)
{
	static const char in[] = "a\0" ID "\0b";
	size_t len, n;
	char *out = bundle_scrub(in, sizeof(in) - 1, ID, UEID, &len, &n);

	(void)state;
	assert_non_null(out);
	assert_int_equal(n, 1);
	assert_int_equal(len, 2 + strlen(UEID) + 2);
	assert_memory_equal(out, "a\0" UEID "\0b", len);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_binary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
