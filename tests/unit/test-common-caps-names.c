// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * common/smc-caps-names.c: the one table of capability names.  Every key is snake_case and
 * unique, every row names a bool of struct smc_caps of its own, the lookup finds each row,
 * and the rows tests/vm/guest/vocab-7x.sh lints against (its CAPS) are the table's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/macro.h"
#include "common/smc-caps-names.h"

static bool snake_case(const char *s)
{
	if (!(*s >= 'a' && *s <= 'z'))
		return false;
	for (const char *p = s; *p; p++) {
		bool ok = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
			  (*p == '_' && p[1] && p[1] != '_');

		if (!ok)
			return false;
	}
	return true;
}

static void test_keys(void **state)
{
	size_t n;
	const struct smc_cap_name *t = smc_caps_names(&n);

	assert_true(n > 0);
	for (size_t i = 0; i < n; i++) {
		assert_true(snake_case(t[i].key));
		assert_non_null(t[i].label);
		assert_ptr_equal(smc_caps_name_lookup(t[i].key), &t[i]);
		assert_true(t[i].offset + sizeof(bool) <= sizeof(struct smc_caps));
		/* a row smcctl info shows says what its absence means */
		assert_true(!t[i].info || t[i].missing);
		/* smcctl info's rows come first (cli/info.c info_caps()) */
		assert_true(!t[i].info || i == 0 || t[i - 1].info);
		for (size_t j = 0; j < i; j++) {
			assert_false(streq(t[i].key, t[j].key));
			assert_false(streq(t[i].label, t[j].label));
			assert_int_not_equal(t[i].offset, t[j].offset);
		}
	}
	assert_null(smc_caps_name_lookup("af-smc"));
	assert_null(smc_caps_name_lookup(NULL));
}

/* The vocabulary test's list (tests/vm/guest/vocab-7x.sh CAPS), in the table's order. */
static void test_vocab_list(void **state)
{
	static const char *const vocab[] = { "smc_module", "smc_gen_netlink", "smc_pnetid",
					     "smc_diag",   "af_smc",	      "ipproto_smc",
					     "dibs",	   "loopback",	      "smcd_v2",
					     "smcr_v2",	   "seid_supported" };
	size_t n;
	const struct smc_cap_name *t = smc_caps_names(&n);

	assert_int_equal(n, ELEMENTSOF(vocab));
	for (size_t i = 0; i < n; i++)
		assert_string_equal(t[i].key, vocab[i]);
}

static void test_values(void **state)
{
	struct smc_caps c = { .smc_genl = true, .af_smc = true, .seid_supported = true };

	assert_null(smc_caps_name_lookup("seid")); /* the SEID itself in smcctl seid -j */

	assert_true(smc_caps_value(&c, smc_caps_name_lookup("af_smc")));
	assert_true(smc_caps_value(&c, smc_caps_name_lookup("seid_supported")));
	assert_false(smc_caps_value(&c, smc_caps_name_lookup("loopback")));
	/* the module is there when its family answers, /sys/module or not */
	assert_true(smc_caps_value(&c, smc_caps_name_lookup("smc_module")));
	c.smc_genl = false;
	assert_false(smc_caps_value(&c, smc_caps_name_lookup("smc_module")));
	assert_false(smc_caps_value(&c, smc_caps_name_lookup("smc_gen_netlink")));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_vocab_list),
		cmocka_unit_test(test_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
