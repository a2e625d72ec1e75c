// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl run's command line (VERB_COMMAND: options stop at the first word that is not one;
 * the first word may be the verb "exec" or the command) and its errors before anything is
 * started, and smcctl policy without an agent.  Nothing here may reach exec(): every case
 * ends in a usage error, or in the LD_PRELOAD method with a library that does not exist.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/smcctl.h"

struct result {
	int status;
	char *out;
	char *err;
};

static struct result run_v(const char *const *args)
{
	struct smcnl_options opts = { .replay_dir = "/nonexistent/smcctl-test",
				      .sysroot = "/nonexistent/smcctl-test" };
	struct result r = {};
	size_t lo = 0, le = 0;
	FILE *out = open_memstream(&r.out, &lo), *err = open_memstream(&r.err, &le);
	char *argv[32];
	int argc = 0;

	argv[argc++] = (char *)"smcctl";
	for (size_t i = 0; args[i]; i++)
		argv[argc++] = (char *)args[i];
	argv[argc] = NULL;
	r.status = smcctl_run(argc, argv, &opts, out, err);
	fclose(out);
	fclose(err);
	return r;
}

#define RUN(...) run_v((const char *const[]){ __VA_ARGS__, NULL })

static void expect(struct result r, int status, const char *words)
{
	if (r.status != status || !strstr(r.err, words) || r.out[0])
		fail_msg("expected exit %d with \"%s\" on stderr, got exit %d, stderr \"%s\", stdout \"%s\"",
			 status, words, r.status, r.err, r.out);
	free(r.out);
	free(r.err);
}

static int setup(void **state)
{
	/* The preload method must fail before exec in every case below. */
	setenv("SMCD_PRELOAD_LIB", "/nonexistent/libsmc-preload.so", 1);
	return 0;
}

static void test_usage(void **state)
{
	expect(RUN("run"), SMCCTL_EXIT_USAGE, "'run exec' needs");
	expect(RUN("run", "--"), SMCCTL_EXIT_USAGE, "'run exec' needs");
	expect(RUN("run", "--method", "magic", "--", "true"), SMCCTL_EXIT_USAGE,
	       "--method: 'magic' is not a method (expected auto, bpf or preload)");
	expect(RUN("run", "--sndbuf", "1k", "true"), SMCCTL_EXIT_USAGE,
	       "--sndbuf: '1k' is not a size from 4KiB to 512MiB");
	expect(RUN("run", "--rcvbuf", "2G", "true"), SMCCTL_EXIT_USAGE,
	       "--rcvbuf: '2G' is not a size");
	expect(RUN("run", "--sndbuf", "lots", "true"), SMCCTL_EXIT_USAGE, "is not a size");
	expect(RUN("run", "--frobnicate", "true"), SMCCTL_EXIT_USAGE,
	       "unknown or ambiguous option '--frobnicate'");
}

/* Everything after the first non-option word is the command's, options included. */
static void test_command_line(void **state)
{
	const char *missing = "the LD_PRELOAD library /nonexistent/libsmc-preload.so is missing";
	struct result r;

	expect(RUN("run", "-m", "preload", "--", "sockperf", "sr", "--tcp"),
	       SMCCTL_EXIT_UNAVAILABLE, missing);
	expect(RUN("run", "-m", "preload", "sockperf", "sr", "--tcp", "-m", "14"),
	       SMCCTL_EXIT_UNAVAILABLE, missing);
	expect(RUN("run", "exec", "-m", "preload", "-q", "--sndbuf", "1MiB", "--", "true"),
	       SMCCTL_EXIT_UNAVAILABLE, missing);
	/* -j: the same line, and the failure's one document on stdout (smcctl(8) JSON OUTPUT) */
	r = RUN("-j", "run", "--method=preload", "--rcvbuf=256KiB", "true");
	assert_int_equal(r.status, SMCCTL_EXIT_UNAVAILABLE);
	assert_non_null(strstr(r.err, missing));
	assert_non_null(strstr(r.out, "{\"error\":{\"message\":\"run: the LD_PRELOAD library"));
	assert_non_null(strstr(r.out, ",\"exit_status\":3}}\n"));
	free(r.out);
	free(r.err);
	/* A word that is no verb starts the command, even right after "run". */
	expect(RUN("run", "--method", "preload", "list"), SMCCTL_EXIT_UNAVAILABLE, missing);
}

static void test_help(void **state)
{
	struct result r = RUN("run", "--help");

	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "run [exec] [-m METHOD] [--sndbuf SIZE] [--rcvbuf SIZE]"));
	assert_non_null(strstr(r.out, "--method auto|bpf|preload"));
	free(r.out);
	free(r.err);
	r = RUN("help", "policy");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "policy [list]"));
	free(r.out);
	free(r.err);
}

/* Policies are the agent's: without one (no bus here) there is nothing to list. */
static void test_policy_without_agent(void **state)
{
	struct result r;

	setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/bus", 1);
	r = RUN("policy");
	assert_int_equal(r.status, SMCCTL_EXIT_NO_BUS);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "is dbus running?"));
	free(r.out);
	free(r.err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_command_line),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_policy_without_agent),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
