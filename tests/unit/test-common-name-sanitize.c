// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one sanitiser of names users choose (common/name-sanitize.c): valid UTF-8 kept,
 * control characters and invalid bytes as \xNN, cut at a whole character or escape.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/name-sanitize.h"

static const char *san(const char *name)
{
	static char buf[NAME_SANITIZED_SIZE(64)];

	name_sanitize(name, buf, sizeof(buf));
	return buf;
}

static void test_kept(void **state)
{
	(void)state;
	assert_string_equal(san("nginx.service"), "nginx.service");
	assert_true(name_is_clean("nginx.service"));
	/* valid UTF-8, quotes and backslash stay (systemd's own escapes stay copyable) */
	assert_string_equal(san("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7"),
			    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7");
	assert_string_equal(san("dev-disk-by\\x2dlabel.device"), "dev-disk-by\\x2dlabel.device");
	assert_string_equal(san("a\"b'c"), "a\"b'c");
	assert_true(name_is_clean("a\"b\\c"));
	assert_string_equal(san(""), "");
	assert_string_equal(san(NULL), "");
}

static void test_controls(void **state)
{
	(void)state;
	/* a terminal's escape sequence: ESC escaped, the rest harmless text */
	assert_string_equal(san("\033[31mX"), "\\x1b[31mX");
	assert_false(name_is_clean("\033[31mX"));
	/* newline, tab, CR, DEL: a Prometheus label or a text line stays one line */
	assert_string_equal(san("a\nb\tc\rd\x7f"), "a\\x0ab\\x09c\\x0dd\\x7f");
	/* C1 controls, valid UTF-8 but U+009B is CSI to some terminals: byte by byte */
	assert_string_equal(san("x\xc2\x9b"
				"31m"),
			    "x\\xc2\\x9b31m");
	/* bidi overrides and line separators */
	assert_string_equal(san("a\xe2\x80\xae"
				"b"),
			    "a\\xe2\\x80\\xaeb");
	assert_string_equal(san("a\xe2\x80\xa8"
				"b"),
			    "a\\xe2\\x80\\xa8b");
	assert_string_equal(san("a\xe2\x81\xa6"
				"b"),
			    "a\\xe2\\x81\\xa6b");
	/* a C string cannot hold a NUL: the name ends there, as the kernel's names do */
	assert_string_equal(san("ab\0cd"), "ab");
}

static void test_invalid_utf8(void **state)
{
	(void)state;
	assert_string_equal(san("X\xff"), "X\\xff");
	assert_false(name_is_clean("X\xff"));
	/* a stray continuation byte, a sequence cut short (at the end, and before ASCII) */
	assert_string_equal(san("\x80"
				"a"),
			    "\\x80a");
	assert_string_equal(san("a\xc3"), "a\\xc3");
	assert_string_equal(san("\xe2\x82"
				"a"),
			    "\\xe2\\x82a");
	/* overlong forms ('/' as 2 and 3 bytes), a surrogate, beyond U+10FFFF */
	assert_string_equal(san("\xc0\xaf"), "\\xc0\\xaf");
	assert_string_equal(san("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");
	assert_string_equal(san("\xed\xa0\x80"), "\\xed\\xa0\\x80");
	assert_string_equal(san("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
	assert_string_equal(san("\xf5\x80\x80\x80"), "\\xf5\\x80\\x80\\x80");
	/* the comm of the issue: ESC and an invalid byte */
	assert_string_equal(san("\033[31mX\377"), "\\x1b[31mX\\xff");
}

static void test_idempotent_and_clean(void **state)
{
	const char *names[] = { "\033[31mX\377", "a\nb", "\xc2\x9b", "ok", "caf\xc3\xa9" };
	char once[NAME_SANITIZED_SIZE(64)], twice[NAME_SANITIZED_SIZE(256)];

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		name_sanitize(names[i], once, sizeof(once));
		assert_true(name_is_clean(once));
		name_sanitize(once, twice, sizeof(twice));
		assert_string_equal(once, twice);
	}
}

static void test_bound(void **state)
{
	char buf[8];

	(void)state;
	/* cut at a whole escape or character, never inside one; always terminated */
	assert_int_equal(name_sanitize("abcdefghij", buf, sizeof(buf)), 7);
	assert_string_equal(buf, "abcdefg");
	assert_int_equal(name_sanitize("a\033\033", buf, sizeof(buf)), 5);
	assert_string_equal(buf, "a\\x1b");
	assert_int_equal(name_sanitize("abcde\xc3\xa9", buf, sizeof(buf)), 7);
	assert_string_equal(buf, "abcde\xc3\xa9");
	assert_int_equal(name_sanitize("abcdef\xc3\xa9", buf, sizeof(buf)), 6);
	assert_string_equal(buf, "abcdef");
	assert_int_equal(name_sanitize("x", buf, 1), 0);
	assert_string_equal(buf, "");
	assert_int_equal(name_sanitize("x", buf, 0), 0);
	/* the worst case fits NAME_SANITIZED_SIZE */
	char big[NAME_SANITIZED_SIZE(16)];
	char bad[17];

	memset(bad, 0xff, 16);
	bad[16] = '\0';
	assert_int_equal(name_sanitize(bad, big, sizeof(big)), 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kept),	     cmocka_unit_test(test_controls),
		cmocka_unit_test(test_invalid_utf8), cmocka_unit_test(test_idempotent_and_clean),
		cmocka_unit_test(test_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
