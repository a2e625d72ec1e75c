// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * UEID validation exactly as the kernel's smc_clc_ueid_valid() (Latin-1 ctype, trailing
 * isspace, 32 bytes blank-padded), including every case of smc-tools' table
 * (../shared/reference/smc-tools.md §2.5), and PNET ID validation as smc_pnetid_valid().
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "netlink/smcnl-internal.h"

struct ueid_case {
	const char *in;
	int r;
	const char *padded_prefix; /* what the 32 bytes start with (the rest are blanks) */
	const char *reason_has;	   /* part of the reason for invalid ones */
};

static const struct ueid_case ueid_cases[] = {
	/* smc-tools' table */
	{ "ABC", 0, "ABC", NULL },
	{ "LOCATION-WEST", 0, "LOCATION-WEST", NULL },
	{ "A.B-C", 0, "A.B-C", NULL },
	{ "0123456789ABCDEF0123456789ABCDEF", 0, "0123456789ABCDEF0123456789ABCDEF", NULL },
	{ "ABC ", 0, "ABC", NULL },
	{ "abc", -EINVAL, NULL, "lower-case" },
	{ "A..B", 0, "A..B", NULL }, /* smc-tools refuses, the kernel does not */
	{ ".ABC", -EINVAL, NULL, "first character" },
	{ "-ABC", -EINVAL, NULL, "first character" },
	{ "A B", -EINVAL, NULL, "blanks inside" },
	{ "A_B", -EINVAL, NULL, "only letters" },
	{ "", -EINVAL, NULL, "empty" },
	{ "   ", -EINVAL, NULL, "empty" },
	{ "0123456789ABCDEF0123456789ABCDEFG", -EINVAL, NULL, "at most 32" },
	{ "0123456789ABCDEF0123456789ABCDEF ", -EINVAL, NULL, "at most 32" },
	/* UTF-8 "É" is 0xC3 0x89: 0xC3 is a Latin-1 capital, 0x89 no class at all */
	{ "\xc3\x89", -EINVAL, NULL, "only letters" },
	/* Latin-1: 0xC0-0xDE capitals (not 0xD7), 0xDF-0xFF small (not 0xF7) */
	{ "\xc9", 0, "\xc9", NULL },
	{ "\xc0\xde-1", 0, "\xc0\xde-1", NULL },
	{ "A\xd7", -EINVAL, NULL, "only letters" },
	{ "\xdf", -EINVAL, NULL, "lower-case" },
	{ "A\xe9", -EINVAL, NULL, "lower-case" },
	{ "A\xf7", -EINVAL, NULL, "only letters" },
	/* trailing isspace(): 0x09-0x0D, 0x20, 0xA0 - normalised to blanks */
	{ "ABC\t", 0, "ABC", NULL },
	{ "ABC\n\v\f\r", 0, "ABC", NULL },
	{ "ABC\xa0", 0, "ABC", NULL },
	{ "0123456789ABCDEF0123456789ABCDE\t", 0, "0123456789ABCDEF0123456789ABCDE", NULL },
	{ "\tABC", -EINVAL, NULL, "first character" },
	{ "ABC\tD", -EINVAL, NULL, "blanks inside" },
	{ "AB\xa0"
	  "C",
	  -EINVAL, NULL, "blanks inside" },
	{ "ABC\x1f", -EINVAL, NULL, "only letters" },
	/* the convention of smcctl ueid derive: MID- + 28 upper-case hex digits */
	{ "MID-0123456789ABCDEF0123456789AB", 0, "MID-0123456789ABCDEF0123456789AB", NULL },
	{ "MID-0123456789abcdef", -EINVAL, NULL, "lower-case" },
	{ "9", 0, "9", NULL },
};

static void test_ueid_validate(void **state)
{
	for (size_t i = 0; i < ELEMENTSOF(ueid_cases); i++) {
		const struct ueid_case *c = &ueid_cases[i];
		char padded[SMC_EID_LEN + 1], want[SMC_EID_LEN + 1];
		const char *reason = "unset";
		int r;

		memset(padded, 'x', sizeof(padded));
		r = smc_ueid_validate(c->in, padded, &reason);
		if (r != c->r)
			fail_msg("case %zu \"%s\": got %d, expected %d", i, c->in, r, c->r);
		if (r < 0) {
			assert_non_null(reason);
			if (!strstr(reason, c->reason_has))
				fail_msg("case %zu: reason \"%s\" lacks \"%s\"", i, reason,
					 c->reason_has);
			continue;
		}
		assert_null(reason);
		/* exactly 32 bytes, blank-padded, NUL-terminated: 33 on the wire */
		memset(want, ' ', SMC_EID_LEN);
		memcpy(want, c->padded_prefix, strlen(c->padded_prefix));
		want[SMC_EID_LEN] = '\0';
		assert_int_equal(padded[SMC_EID_LEN], '\0');
		assert_memory_equal(padded, want, sizeof(want));
	}
	assert_int_equal(smc_ueid_validate(NULL, NULL, NULL), -EINVAL);
	assert_int_equal(smc_ueid_validate("OK", NULL, NULL), 0);
}

/* Invalid UEIDs never reach the kernel: no replay file is needed to refuse them. */
static void test_ueid_refused_locally(void **state)
{
	struct smcnl_options o = { .replay_dir = "/nonexistent" };
	struct smcnl *nl;

	assert_int_equal(smcnl_open(&o, &nl), 0);
	assert_int_equal(smc_ueid_add(nl, "lower"), -EINVAL);
	assert_int_equal(smc_ueid_del(nl, "0123456789ABCDEF0123456789ABCDEF0"), -EINVAL);
	/* a valid one does try: and finds no recording */
	assert_int_equal(smc_ueid_add(nl, "VALID"), -ENODATA);
	smcnl_close(nl);
}

struct pnet_case {
	const char *in;
	int r;
	const char *norm;
};

static const struct pnet_case pnet_cases[] = {
	{ "NET1", 0, "NET1" },
	{ "net1", 0, "NET1" }, /* the kernel upper-cases (UEIDs it refuses) */
	{ "  Net1\t", 0, "NET1" },
	{ "0123456789ABCDEF", 0, "0123456789ABCDEF" },
	{ " 0123456789abcdef ", 0, "0123456789ABCDEF" },
	{ "0123456789ABCDEFG", -EINVAL, NULL },
	{ "", -EINVAL, NULL },
	{ " \t ", -EINVAL, NULL },
	{ "A B", -EINVAL, NULL },
	{ "A_B", -EINVAL, NULL },
	{ "A-B", -EINVAL, NULL },
	{ "A.B", -EINVAL, NULL },
	/* kernel Latin-1 ctype and toupper(): small letters minus 0x20, even 0xDF -> 0xBF */
	{ "abc\xe9", 0, "ABC\xc9" },
	{ "\xdf", 0, "\xbf" },
	{ "\xff", 0, "\xdf" },
	{ "\xf7", -EINVAL, NULL },
	{ "\xa0X\xa0", 0, "X" },
};

static void test_pnetid_validate(void **state)
{
	for (size_t i = 0; i < ELEMENTSOF(pnet_cases); i++) {
		const struct pnet_case *c = &pnet_cases[i];
		char norm[SMC_PNETID_LEN + 1] = "unset";
		const char *reason = "unset";
		int r = smc_pnetid_validate(c->in, norm, &reason);

		if (r != c->r)
			fail_msg("case %zu \"%s\": got %d, expected %d", i, c->in, r, c->r);
		if (r < 0) {
			assert_non_null(reason);
			continue;
		}
		assert_null(reason);
		assert_string_equal(norm, c->norm);
	}
	assert_int_equal(smc_pnetid_validate(NULL, NULL, NULL), -EINVAL);
}

static void test_pnet_add_refused_locally(void **state)
{
	struct smcnl_options o = { .replay_dir = "/nonexistent" };
	struct smc_pnet_entry none = { .pnetid = "NET1" };
	struct smc_pnet_entry port3 = { .pnetid = "NET1", .ib_name = "mlx5_0", .ib_port = 3 };
	struct smc_pnet_entry eth_port = { .pnetid = "NET1", .eth_name = "eth0", .ib_port = 1 };
	struct smc_pnet_entry bad = { .pnetid = "NET_1", .eth_name = "eth0" };
	struct smcnl *nl;

	assert_int_equal(smcnl_open(&o, &nl), 0);
	assert_int_equal(smc_pnet_add(nl, &none), -EINVAL);
	assert_int_equal(smc_pnet_add(nl, &port3), -EINVAL);
	assert_int_equal(smc_pnet_add(nl, &eth_port), -EINVAL);
	assert_int_equal(smc_pnet_add(nl, &bad), -EINVAL);
	assert_int_equal(smc_pnet_del(nl, ""), -EINVAL);
	smcnl_close(nl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ueid_validate),
		cmocka_unit_test(test_ueid_refused_locally),
		cmocka_unit_test(test_pnetid_validate),
		cmocka_unit_test(test_pnet_add_refused_locally),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
