// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The rate limit's per-uid table (smcd-agent/rate-limit.h) on a fake clock: each uid its
 * own limit, however many other uids called (a table of 32 with a shared last slot once let
 * 32 uids refuse everyone else); windows that passed are reclaimed; RATE_TABLE_MAX uids
 * within one window refuse a new one until the oldest window passes, never an old one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "smcd-agent/rate-limit.h"

#define WINDOW 10000000ULL
#define LIMIT 20

static void test_own_limit(void **state)
{
	struct rate_table t = { 0 };

	(void)state;
	for (unsigned i = 0; i < LIMIT; i++)
		assert_int_equal(rate_table_charge(&t, 1000, 1 + i, WINDOW, LIMIT), RATE_OK);
	assert_int_equal(rate_table_charge(&t, 1000, 100, WINDOW, LIMIT), RATE_REFUSED_LOG);
	assert_int_equal(rate_table_charge(&t, 1000, 101, WINDOW, LIMIT), RATE_REFUSED);
	/* Another uid is not held up, and the next window starts afresh. */
	assert_int_equal(rate_table_charge(&t, 1001, 102, WINDOW, LIMIT), RATE_OK);
	assert_int_equal(rate_table_charge(&t, 1000, 1 + WINDOW, WINDOW, LIMIT), RATE_OK);
	rate_table_free(&t);
}

/* The finding of issue 35: many uids calling once, then one that never called. */
static void test_many_uids(void **state)
{
	struct rate_table t = { 0 };

	(void)state;
	for (uint32_t uid = 20000; uid < 20000 + 5000; uid++)
		for (unsigned i = 0; i < 2; i++)
			assert_int_equal(rate_table_charge(&t, uid, 1 + uid, WINDOW, LIMIT), RATE_OK);
	assert_int_equal(rate_table_charge(&t, 7, 30000, WINDOW, LIMIT), RATE_OK);
	for (unsigned i = 1; i < LIMIT; i++)
		assert_int_equal(rate_table_charge(&t, 7, 30000, WINDOW, LIMIT), RATE_OK);
	assert_int_equal(rate_table_charge(&t, 7, 30000, WINDOW, LIMIT), RATE_REFUSED_LOG);
	/* Every one of the 5000 still has its own count. */
	assert_int_equal(rate_table_charge(&t, 24999, 30001, WINDOW, LIMIT), RATE_OK);
	assert_true(t.n >= 5001);
	rate_table_free(&t);
}

/* Windows that passed give their entries back: the table does not grow with time. */
static void test_reclaimed(void **state)
{
	struct rate_table t = { 0 };
	size_t size;

	(void)state;
	for (uint32_t uid = 1; uid <= 1000; uid++)
		assert_int_equal(rate_table_charge(&t, uid, 1, WINDOW, LIMIT), RATE_OK);
	size = t.size;
	for (uint64_t round = 1; round <= 20; round++)
		for (uint32_t uid = 1; uid <= 1000; uid++)
			assert_int_equal(rate_table_charge(&t, round * 1000 + uid,
							   1 + round * WINDOW, WINDOW, LIMIT),
					 RATE_OK);
	assert_true(t.size <= 2 * size);
	assert_true(t.n <= 2000);
	rate_table_free(&t);
}

/* The hard bound: a new uid is refused while RATE_TABLE_MAX windows run, the old ones
 * keep their counts, and the first window to pass makes room. */
static void test_bound(void **state)
{
	struct rate_table t = { 0 };

	(void)state;
	for (uint32_t uid = 1; uid <= RATE_TABLE_MAX; uid++)
		assert_int_equal(rate_table_charge(&t, uid, uid, WINDOW, LIMIT), RATE_OK);
	assert_int_equal(t.n, RATE_TABLE_MAX);
	assert_int_equal(rate_table_charge(&t, 0x7fffffff, 70000, WINDOW, LIMIT), RATE_FULL);
	assert_int_equal(rate_table_charge(&t, 0x7fffffff, 70001, WINDOW, LIMIT), RATE_FULL);
	assert_int_equal(rate_table_charge(&t, 5, 70002, WINDOW, LIMIT), RATE_OK);
	/* uid 1's window (from 1 us) has passed: its entry is reclaimed for the new one. */
	assert_int_equal(rate_table_charge(&t, 0x7fffffff, 1 + WINDOW, WINDOW, LIMIT), RATE_OK);
	assert_true(t.n <= RATE_TABLE_MAX);
	rate_table_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_limit),
		cmocka_unit_test(test_many_uids),
		cmocka_unit_test(test_reclaimed),
		cmocka_unit_test(test_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
