// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * common/clock.h: the conversions at their edges (a whole second less one nanosecond,
 * truncation, not rounding), the clocks read through them against time(2) and each other;
 * and common/util.c's cgroup_id_of(), the id of a cgroup2 directory (its inode number on
 * 64-bit kernels, as the BPF helpers report it), refusing what is no directory.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>

#include <cmocka.h>
#include <linux/magic.h>

#include "common/clock.h"
#include "common/util.h"

static void test_units(void **state)
{
	assert_int_equal(USEC_PER_SEC, 1000 * USEC_PER_MSEC);
	assert_int_equal(NSEC_PER_SEC, 1000 * NSEC_PER_MSEC);
	assert_int_equal(NSEC_PER_MSEC, 1000 * NSEC_PER_USEC);
	assert_int_equal(NSEC_PER_SEC, USEC_PER_SEC * NSEC_PER_USEC);
	assert_int_equal(MSEC_PER_SEC * USEC_PER_MSEC, USEC_PER_SEC);
}

static void test_timespec(void **state)
{
	struct timespec ts = { .tv_sec = 1, .tv_nsec = 999999999 };
	/* 2^33 s: past 2038 and past 32 bits of seconds. */
	struct timespec far = { .tv_sec = (time_t)1 << 33, .tv_nsec = 1500 };

	assert_int_equal(timespec_to_nsec(&ts), 1999999999ULL);
	assert_int_equal(timespec_to_usec(&ts), 1999999ULL);
	assert_int_equal(timespec_to_msec(&ts), 1999ULL);
	assert_int_equal(timespec_to_usec(&far), ((uint64_t)1 << 33) * 1000000ULL + 1);
	assert_int_equal(timespec_to_nsec(&far), ((uint64_t)1 << 33) * 1000000000ULL + 1500);
	ts = (struct timespec){ 0, 0 };
	assert_int_equal(timespec_to_nsec(&ts), 0);
}

static void test_now(void **state)
{
	uint64_t a = now_usec(CLOCK_MONOTONIC), ns = now_nsec(CLOCK_MONOTONIC);
	uint64_t ms = now_msec(CLOCK_MONOTONIC), b = now_usec(CLOCK_MONOTONIC);
	time_t t0 = time(NULL);
	uint64_t real = now_usec(CLOCK_REALTIME) / USEC_PER_SEC;
	time_t t1 = time(NULL);

	/* One clock through every unit, in the order read. */
	assert_true(a > 0 && a <= ns / NSEC_PER_USEC && ns / NSEC_PER_MSEC <= ms &&
		    ms <= b / USEC_PER_MSEC);
	/* time(2) may lag the realtime clock by up to a tick of its coarse clock. */
	assert_in_range(real, (uint64_t)t0, (uint64_t)t1 + 1);
}

static void test_cgroup_id(void **state)
{
	struct statfs sfs;
	struct stat st;
	uint64_t id = 0;

	assert_int_equal(cgroup_id_of("/nonexistent/cgroup", &id), -ENOENT);
	assert_int_equal(cgroup_id_of("/proc/self/status", &id), -ENOTDIR);
	assert_int_equal(id, 0);
	if (statfs("/sys/fs/cgroup", &sfs) < 0 || sfs.f_type != CGROUP2_SUPER_MAGIC)
		skip();
	assert_int_equal(stat("/sys/fs/cgroup", &st), 0);
	assert_int_equal(cgroup_id_of("/sys/fs/cgroup", &id), 0);
	assert_int_equal(id, (uint64_t)st.st_ino);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_timespec),
		cmocka_unit_test(test_now),
		cmocka_unit_test(test_cgroup_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
