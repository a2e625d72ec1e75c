// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The log's rate limit (log.h) on a fake clock: per place in the code, at most the burst
 * per window, then one summary when the window ends (on the next log call, at a flush, or
 * at exit); places independent; the reconciliation's reports and debug messages never
 * limited; the manager's timer writes the summary of a flood that stopped.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/macro.h"
#include "smcd-agent/log.h"
#include "smcd-agent/manager.h"

static uint64_t fake_now;

static uint64_t fake_clock(void)
{
	return fake_now;
}

/* stderr (where the log goes outside the journal) into a file, read back by taken(). */
static int out = -1, saved_stderr = -1;

static int setup(void **state)
{
	char path[] = "/tmp/test-agent-log-XXXXXX";

	fflush(stderr);
	out = mkstemp(path);
	assert_true(out >= 0);
	unlink(path);
	saved_stderr = dup(STDERR_FILENO);
	assert_true(dup2(out, STDERR_FILENO) >= 0);
	setvbuf(stderr, NULL, _IONBF, 0);
	fake_now = 1000000000;
	log_ratelimit_setup(0, 0, fake_clock);
	return 0;
}

/* Whatever is left (a failed test's messages from cmocka among it) goes to the real stderr. */
static int teardown(void **state)
{
	char buf[4096];
	ssize_t n;
	off_t at = 0;

	log_ratelimit_setup(0, 0, NULL);
	dup2(saved_stderr, STDERR_FILENO);
	close(saved_stderr);
	while ((n = pread(out, buf, sizeof(buf), at)) > 0) {
		fwrite(buf, 1, (size_t)n, stderr);
		at += n;
	}
	close(out);
	return 0;
}

/* What was logged since the last call (caller frees).  The file offset is shared with
 * stderr: it is where the next message goes. */
static char *taken(void)
{
	off_t end = lseek(out, 0, SEEK_CUR);
	char *buf = calloc(1, (size_t)end + 1);

	assert_non_null(buf);
	assert_int_equal(pread(out, buf, (size_t)end, 0), end);
	assert_int_equal(ftruncate(out, 0), 0);
	assert_int_equal(lseek(out, 0, SEEK_SET), 0);
	return buf;
}

static unsigned count(const char *text, const char *what)
{
	unsigned n = 0;

	for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* One place in the code, called n times. */
static void refused(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		log_notice("Refused call %u", i);
}

static void test_burst_then_summary(void **state)
{
	_cleanup_(freep) char *a = NULL, *b = NULL, *c = NULL;

	refused(25);
	a = taken();
	assert_int_equal(count(a, "Refused call"), LOG_RATELIMIT_BURST);
	assert_non_null(strstr(a, "Refused call 9\n"));
	assert_null(strstr(a, "Suppressed"));
	assert_int_equal(log_ratelimit_deadline(), 1000000000 + LOG_RATELIMIT_INTERVAL_USEC);

	/* Not before the window ends. */
	fake_now += LOG_RATELIMIT_INTERVAL_USEC - 1;
	log_ratelimit_flush(false);
	b = taken();
	assert_string_equal(b, "");
	fake_now += 1;
	log_ratelimit_flush(false);
	b = (free(b), taken());
	assert_non_null(strstr(
		b,
		"smcd-agent: Suppressed 15 messages like \"Refused call 10\" (more than 10 in 30 s from the same place) [SMCD_SUPPRESSED=15]\n"));
	assert_int_equal(count(b, "\n"), 1);
	assert_int_equal(log_ratelimit_deadline(), 0);

	/* A new window: the place may log again. */
	refused(3);
	c = taken();
	assert_int_equal(count(c, "Refused call"), 3);
	log_ratelimit_flush(true);
}

static void test_summary_at_next_message(void **state)
{
	_cleanup_(freep) char *a = NULL;

	refused(11);
	fake_now += LOG_RATELIMIT_INTERVAL_USEC;
	log_info("Something else");
	a = taken();
	/* The summary of the ended window first, then the new message. */
	assert_non_null(strstr(a, "Suppressed 1 message like \"Refused call 10\""));
	assert_true(strstr(a, "Suppressed 1 message") < strstr(a, "Something else"));
	log_ratelimit_flush(true);
}

static void test_places_independent(void **state)
{
	_cleanup_(freep) char *a = NULL;

	refused(30);
	for (int i = 0; i < 5; i++)
		log_warning("Other place %d", i);
	a = taken();
	assert_int_equal(count(a, "Refused call"), LOG_RATELIMIT_BURST);
	assert_int_equal(count(a, "Other place"), 5);
	log_ratelimit_flush(true);
	free(a);
	a = taken();
	assert_non_null(strstr(a, "Suppressed 20 messages like \"Refused call 10\""));
	assert_int_equal(count(a, "Suppressed"), 1);
}

/* The reconciliation's reports (MESSAGE_ID=, SMC_ITEM=) and debug messages: all of them. */
static void test_exempt(void **state)
{
	_cleanup_(freep) char *a = NULL;
	char item[64];

	for (int i = 0; i < 40; i++) {
		snprintf(item, sizeof(item), "SMC_ITEM=sysctl:s%d", i);
		log_fields(LOG_WARNING, 0,
			   (const char *const[]){ "MESSAGE_ID=" SMCD_MESSAGE_ITEM_FAILED, item, NULL },
			   "item %d failed", i);
		log_fields(LOG_INFO, 0, (const char *const[]){ item, NULL }, "item %d applied", i);
		log_debug("debug %d", i);
	}
	log_ratelimit_flush(true);
	a = taken();
	assert_int_equal(count(a, "failed"), 40);
	assert_int_equal(count(a, "applied"), 40);
	assert_null(strstr(a, "Suppressed"));
}

/* A suppressed call still returns -errno and keeps errno: callers return its value. */
static void test_return_value(void **state)
{
	_cleanup_(freep) char *a = NULL;

	for (int i = 0; i < 20; i++) {
		errno = EAGAIN;
		assert_int_equal(log_error_errno(-ENOBUFS, "Cannot read: %m"), -ENOBUFS);
		assert_int_equal(errno, EAGAIN);
	}
	log_ratelimit_flush(true);
	a = taken();
	assert_int_equal(count(a, "Cannot read: No buffer space available\n"), 10);
	assert_non_null(
		strstr(a, "Suppressed 10 messages like \"Cannot read: No buffer space available\""));
}

/* An example longer than the summary keeps is cut between characters, not inside one. */
static void test_example_cut(void **state)
{
	_cleanup_(freep) char *a = NULL;
	char long_msg[400];
	const char *q, *end;

	/* 198 bytes, then a two-byte character across the 199 the summary keeps. */
	memset(long_msg, 'x', 198);
	strcpy(long_msg + 198, "\xc3\xa9 and more");
	for (int i = 0; i < 11; i++)
		log_notice("%s", long_msg);
	log_ratelimit_flush(true);
	a = taken();
	q = strstr(a, "like \"");
	assert_non_null(q);
	q += 6;
	end = strchr(q, '"');
	assert_non_null(end);
	assert_int_equal(end - q, 198);
}

/* The manager's timer: a flood that stopped is summed up when its window ends, by the
 * event loop (real clock, short window). */
static void test_manager_timer(void **state)
{
	_cleanup_(freep) char *a = NULL;
	struct manager *m = NULL;

	log_ratelimit_setup(2, 200000, NULL);
	assert_int_equal(manager_new("/nonexistent/smc.yaml", NULL, &m), 0);
	refused(5);
	free(taken());
	for (int i = 0; i < 50 && !a; i++) {
		assert_true(sd_event_run(m->event, 100000) >= 0);
		a = taken();
		if (!strstr(a, "Suppressed"))
			a = (free(a), NULL);
	}
	assert_non_null(a);
	assert_non_null(
		strstr(a, "Suppressed 3 messages like \"Refused call 2\" (more than 2 in 0 s"));
	manager_free(m);
	log_ratelimit_setup(0, 0, fake_clock);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_burst_then_summary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_summary_at_next_message, setup, teardown),
		cmocka_unit_test_setup_teardown(test_places_independent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exempt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_return_value, setup, teardown),
		cmocka_unit_test_setup_teardown(test_example_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_manager_timer, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
