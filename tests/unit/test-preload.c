// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The LD_PRELOAD library under concurrency (smc-tools issue #9: smc_run segfaulted when
 * many threads of MySQL called socket() at once, because the real socket() was resolved
 * lazily without a lock).  preload/smc-preload.c is linked into this program without its
 * constructor, so the very first socket() calls of the process race inside it.
 *
 * The host has no SMC, so every converted attempt falls back: what is checked is that no
 * call crashes or fails, every socket is what the caller asked for, errno is untouched on
 * success, and non-stream or non-inet sockets are passed through unchanged.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cmocka.h>

#define THREADS 64
#define PER_THREAD 50

static pthread_barrier_t start;

struct result {
	int failures;
	int wrong_type;
	int errno_changed;
};

static int sock_int(int fd, int opt)
{
	int v = -1;
	socklen_t len = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, opt, &v, &len) < 0)
		return -1;
	return v;
}

static void *worker(void *arg)
{
	struct result *res = arg;
	static const int types[] = { SOCK_STREAM, SOCK_STREAM | SOCK_NONBLOCK,
				     SOCK_STREAM | SOCK_CLOEXEC,
				     SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC };

	pthread_barrier_wait(&start);
	for (int i = 0; i < PER_THREAD; i++) {
		int type = types[i % 4], fd;

		errno = 12345;
		fd = socket(i % 2 ? AF_INET6 : AF_INET, type, i % 3 ? 0 : IPPROTO_TCP);
		if (fd < 0) {
			/* An IPv6-less host is fine; anything else is not. */
			if (!(i % 2 && errno == EAFNOSUPPORT))
				res->failures++;
			continue;
		}
		if (errno != 12345)
			res->errno_changed++;
		if (sock_int(fd, SO_TYPE) != SOCK_STREAM)
			res->wrong_type++;
		close(fd);
	}
	return NULL;
}

static void test_first_calls_race(void **state)
{
	pthread_t t[THREADS];
	struct result res[THREADS] = {};

	(void)state;
	assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, worker, &res[i]), 0);
	for (int i = 0; i < THREADS; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(res[i].failures, 0);
		assert_int_equal(res[i].wrong_type, 0);
		assert_int_equal(res[i].errno_changed, 0);
	}
	pthread_barrier_destroy(&start);
}

/* Datagram, raw-ish and unix sockets are none of the library's business. */
static void test_pass_through(void **state)
{
	int fd;

	(void)state;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(sock_int(fd, SO_PROTOCOL), IPPROTO_UDP);
	close(fd);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(sock_int(fd, SO_DOMAIN), AF_UNIX);
	close(fd);
	/* An explicit other protocol on a stream socket is left alone too (SCTP may be absent). */
	errno = 0;
	fd = socket(AF_INET, SOCK_STREAM, 132 /* IPPROTO_SCTP */);
	if (fd >= 0) {
		assert_int_equal(sock_int(fd, SO_PROTOCOL), 132);
		close(fd);
	} else {
		assert_int_not_equal(errno, 0);
	}
}

/* Errors of the real call reach the caller unchanged. */
static void test_errors_pass_through(void **state)
{
	(void)state;
	errno = 0;
	assert_int_equal(socket(12345, SOCK_STREAM, 0), -1);
	assert_int_equal(errno, EAFNOSUPPORT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_calls_race),
		cmocka_unit_test(test_pass_through),
		cmocka_unit_test(test_errors_pass_through),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
