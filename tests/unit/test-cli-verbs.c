// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The object/verb table and the command line: prefix matching and ambiguity, help that
 * lists every verb, the man page that documents every verb and option, and usage errors
 * that exit 2 without talking to the kernel.
 *
 * "Without talking to the kernel" is checked by giving smcctl a replay folder that does
 * not exist: any request would fail with a library error (exit 1 or 3), never 2.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/smcctl.h"
#include "tests/unit/golden.h"

struct result {
	int status;
	char *out;
	char *err;
};

static const char *sysroot = "/nonexistent/smcctl-test";

static struct result run_in(const char *replay_dir, const char *const *args)
{
	struct smcnl_options opts = { .replay_dir = replay_dir, .sysroot = sysroot };
	struct capture out, err;
	struct result r;
	char *argv[32];
	int argc = 0;

	argv[argc++] = (char *)"smcctl";
	for (size_t i = 0; args[i]; i++)
		argv[argc++] = (char *)args[i];
	argv[argc] = NULL;
	capture_begin(&out);
	capture_begin(&err);
	r.status = smcctl_run(argc, argv, &opts, out.f, err.f);
	r.out = (char *)capture_end(&out);
	r.err = (char *)capture_end(&err);
	return r;
}

#define RUN(...) run_in("/nonexistent/smcctl-test", (const char *const[]){ __VA_ARGS__, NULL })

static void result_free(struct result *r)
{
	free(r->out);
	free(r->err);
}

/* exit 2, one line on stderr containing words, nothing on stdout */
static void expect_usage(struct result r, const char *words)
{
	if (r.status != SMCCTL_EXIT_USAGE || !strstr(r.err, words) || r.out[0] ||
	    strchr(r.err, '\n') != r.err + strlen(r.err) - 1)
		fail_msg("expected usage error with \"%s\", got exit %d, stderr \"%s\", stdout "
			 "\"%s\"",
			 words, r.status, r.err, r.out);
	result_free(&r);
}

static void expect_ok(struct result r, const char *words)
{
	if (r.status != 0 || !strstr(r.out, words) || r.err[0])
		fail_msg("expected success with \"%s\", got exit %d, stderr \"%s\"", words,
			 r.status, r.err);
	result_free(&r);
}

static void test_word_lookup(void **state)
{
	const char *names[] = { "stats", "socket", "seid", "sysctl", "show" };
	const size_t dup[] = { 0, 1, 2, 3, 0 };
	char cand[128];

	assert_int_equal(word_lookup("stats", names, NULL, 5, cand, sizeof(cand)), 0);
	assert_int_equal(word_lookup("st", names, NULL, 5, cand, sizeof(cand)), 0);
	assert_int_equal(word_lookup("so", names, NULL, 5, cand, sizeof(cand)), 1);
	assert_int_equal(word_lookup("x", names, NULL, 5, cand, sizeof(cand)), -ENOENT);
	assert_int_equal(word_lookup("", names, NULL, 5, cand, sizeof(cand)), -ENOENT);
	assert_int_equal(word_lookup("statsx", names, NULL, 5, cand, sizeof(cand)), -ENOENT);
	assert_int_equal(word_lookup("s", names, NULL, 5, cand, sizeof(cand)), -ENOTUNIQ);
	assert_string_equal(cand, "stats, socket, seid, sysctl, show");
	/* "show" is an alias of "stats" here: "st" and "sh" are both stats, "s" is not */
	assert_int_equal(word_lookup("sh", names, dup, 5, cand, sizeof(cand)), 0);
	assert_int_equal(word_lookup("s", names, dup, 5, cand, sizeof(cand)), -ENOTUNIQ);
	/* an exact match wins over being a prefix of another word */
	{
		const char *n2[] = { "del", "delete-all" };

		assert_int_equal(word_lookup("del", n2, NULL, 2, cand, sizeof(cand)), 0);
		assert_int_equal(word_lookup("dele", n2, NULL, 2, cand, sizeof(cand)), 1);
	}
}

/*
 * One short letter, one meaning (issue 37): the first long name each letter has, among the
 * global options and every verb's, and the first letter each long name has.  Returns NULL,
 * or a message naming the two meanings of a letter (or the two letters of a name).
 */
static const char *letter_clash(const struct object *objects, const struct option *globals,
				char *msg, size_t len)
{
	const char *name_of[128] = { 0 }, *where_of[128] = { 0 };
	const char *names[256], *wheres[256];
	char letters[256];
	static char here[256][64];
	size_t n = 0;

	/* every (letter, long name, where) of the table, globals first */
	for (const struct option *g = globals; g->name; g++)
		if (g->val > 0 && g->val < 128 && n < 256) {
			letters[n] = (char)g->val;
			names[n] = g->name;
			wheres[n++] = "the global options";
		}
	for (const struct object *o = objects; o->name; o++)
		for (const struct verb *v = o->verbs; v->name; v++)
			for (const struct verb_opt *p = v->opts; p && p->name && n < 256; p++) {
				snprintf(here[n], sizeof(here[n]), "'%s %s'", o->name, v->name);
				letters[n] = p->short_name;
				names[n] = p->name;
				wheres[n] = here[n];
				n++;
			}
	for (size_t i = 0; i < n; i++) {
		unsigned char l = (unsigned char)letters[i];

		if (!l)
			continue;
		assert_true(l < 128);
		if (name_of[l] && strcmp(name_of[l], names[i]) != 0) {
			snprintf(msg, len, "-%c is --%s in %s but --%s in %s", l, name_of[l],
				 where_of[l], names[i], wheres[i]);
			return msg;
		}
		name_of[l] = names[i];
		where_of[l] = wheres[i];
		for (size_t k = 0; k < i; k++)
			if (letters[k] && letters[k] != letters[i] &&
			    strcmp(names[k], names[i]) == 0) {
				snprintf(msg, len, "--%s is -%c in %s but -%c in %s", names[i],
					 letters[k], wheres[k], letters[i], wheres[i]);
				return msg;
			}
	}
	return NULL;
}

static int no_run(struct smcctl *c, const struct verb_args *a)
{
	(void)c;
	(void)a;
	return 0;
}

static void test_short_letters(void **state)
{
	static const struct option g[] = {
		{ .name = "json", .has_arg = optional_argument, .val = 'j' },
		{ .name = "pretty", .has_arg = no_argument, .val = SMCCTL_OPT_PRETTY },
		{},
	};
	static const struct verb_opt check[] = {
		{ .name = "timeout", .short_name = 't', .arg = "S", .help = "x" }, {}
	};
	static const struct verb_opt assess[] = {
		{ .name = "duration", .short_name = 't', .arg = "S", .help = "x" }, {}
	};
	static const struct verb_opt json[] = {
		{ .name = "jobs", .short_name = 'j', .arg = NULL, .help = "x" }, {}
	};
	static const struct verb_opt m1[] = {
		{ .name = "method", .short_name = 'm', .arg = "M", .help = "x" }, {}
	};
	static const struct verb_opt m2[] = {
		{ .name = "method", .short_name = 'M', .arg = "M", .help = "x" }, {}
	};
	static const struct verb_opt m3[] = {
		{ .name = "method", .short_name = 0, .arg = "M", .help = "x" }, {}
	};
	const struct verb v_check[] = { { .name = "a", .opts = check, .run = no_run }, {} };
	const struct verb v_assess[] = { { .name = "b", .opts = assess, .run = no_run }, {} };
	const struct verb v_json[] = { { .name = "c", .opts = json, .run = no_run }, {} };
	const struct verb v_m[] = { { .name = "d", .opts = m1, .run = no_run },
				    { .name = "e", .opts = m3, .run = no_run },
				    { .name = "f", .opts = m2, .run = no_run },
				    {} };
	const struct object bad_t[] = { { .name = "x", .verbs = v_check },
					{ .name = "y", .verbs = v_assess },
					{} };
	const struct object bad_global[] = { { .name = "z", .verbs = v_json }, {} };
	const struct object bad_name[] = { { .name = "w", .verbs = v_m }, {} };
	const struct object fine[] = { { .name = "x", .verbs = v_check },
				       { .name = "w", .verbs = v_m + 1 },
				       {} };
	char msg[256];

	(void)state;
	/* the lasting guarantee: smcctl's own table */
	if (letter_clash(smcctl_objects, smcctl_global_options, msg, sizeof(msg)))
		fail_msg("%s: one short letter, one meaning (cli/table.c)", msg);
	/* and the check finds what it is for */
	assert_non_null(letter_clash(bad_t, g, msg, sizeof(msg)));
	assert_string_equal(msg, "-t is --timeout in 'x a' but --duration in 'y b'");
	assert_non_null(letter_clash(bad_global, g, msg, sizeof(msg)));
	assert_string_equal(msg, "-j is --json in the global options but --jobs in 'z c'");
	assert_non_null(letter_clash(bad_name, g, msg, sizeof(msg)));
	assert_string_equal(msg, "--method is -m in 'w d' but -M in 'w f'");
	assert_null(letter_clash(fine, g, msg, sizeof(msg)));
}

/* Which pager (cli/pager.c): the environment's choice, "cat" or empty for none, and under
 * privileges another user granted only less (NULL) or none. */
static void test_pager_command(void **state)
{
	bool off;

	(void)state;
	assert_null(smcctl_pager_command(NULL, NULL, false, &off));
	assert_false(off);
	assert_string_equal(smcctl_pager_command("most", "more", false, &off), "most");
	assert_false(off);
	assert_string_equal(smcctl_pager_command(NULL, "less -S", false, &off), "less -S");
	assert_false(off);
	assert_null(smcctl_pager_command("cat", "most", false, &off));
	assert_true(off);
	assert_null(smcctl_pager_command("", "most", false, &off));
	assert_true(off);
	assert_null(smcctl_pager_command(NULL, "cat", false, &off));
	assert_true(off);
	/* "cat" of SMCCTL_PAGER wins over a PAGER; a PAGER does not undo SMCCTL_PAGER=... */
	assert_string_equal(smcctl_pager_command("most", "cat", false, &off), "most");
	assert_false(off);
	/* secure: the caller's pager is not run, only turned off */
	assert_null(smcctl_pager_command("sh", "vi", true, &off));
	assert_false(off);
	assert_null(smcctl_pager_command("cat", NULL, true, &off));
	assert_true(off);
}

static void test_table_sane(void **state)
{
	size_t n_obj = 0;

	for (const struct object *o = smcctl_objects; o->name; o++, n_obj++) {
		unsigned defaults = 0;
		size_t n_verbs = 0;

		assert_non_null(o->help);
		assert_true(o->verbs[0].name != NULL);
		assert_ptr_equal(object_find(o->name), o);
		for (const struct verb *v = o->verbs; v->name; v++, n_verbs++) {
			char line[256];
			size_t n_opts = 0;

			defaults += !!(v->flags & VERB_DEFAULT);
			assert_non_null(v->run);
			assert_non_null(v->help);
			assert_true(v->max_args >= v->min_args);
			assert_ptr_equal(verb_find(o, v->name), v);
			if (v->alias)
				assert_ptr_equal(verb_find(o, v->alias), v);
			/* help lines fit 80 columns (2 + 30 + 2 + 46) */
			snprintf(line, sizeof(line), "%s%s", v->help,
				 (v->flags & VERB_ADMIN) ? " (*)" : "");
			if (strlen(line) > 46)
				fail_msg("help of '%s %s' is longer than 46: %s", o->name, v->name,
					 line);
			for (const struct verb_opt *p = v->opts; p && p->name; p++, n_opts++) {
				char spec[64], shrt[8];

				/* every option is in the synopsis (long or short form) and
				 * (its letter: test_short_letters) */
				snprintf(spec, sizeof(spec), "--%s", p->name);
				snprintf(shrt, sizeof(shrt), "-%c",
					 p->short_name ? p->short_name : '-');
				if (!v->synopsis ||
				    (!strstr(v->synopsis, spec) && !strstr(v->synopsis, shrt)))
					fail_msg("'%s %s': synopsis lacks %s", o->name, v->name,
						 spec);
				assert_non_null(p->help);
			}
			assert_true(n_opts <= VERB_OPTS_MAX);
		}
		assert_true(defaults <= 1);
		assert_true(n_verbs <= 16);
	}
	assert_true(n_obj <= 32);
}

static void test_help(void **state)
{
	struct result r = RUN("help");

	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	/* every verb of every object is listed as "OBJECT [VERB]" or "OBJECT VERB" */
	for (const struct object *o = smcctl_objects; o->name; o++)
		for (const struct verb *v = o->verbs; v->name; v++) {
			char a[128], b[128];

			snprintf(a, sizeof(a), "  %s %s", o->name, v->name);
			snprintf(b, sizeof(b), "  %s [%s]", o->name, v->name);
			if (!strstr(r.out, a) && !strstr(r.out, b))
				fail_msg("'smcctl help' does not list '%s %s'", o->name, v->name);
		}
	for (char *line = r.out; *line;) {
		char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		if (len > 80)
			fail_msg("help line longer than 80 columns: %.*s", (int)len, line);
		line += len + (nl ? 1 : 0);
	}
	result_free(&r);

	expect_ok(RUN("--help"), "Usage: smcctl");
	expect_ok(RUN("-h"), "Usage: smcctl");
	expect_ok(RUN("-j", "help"), "Usage: smcctl");
	expect_ok(RUN("--version"), "smcctl (smcd-agent) ");
	expect_ok(RUN("-V"), PACKAGE_VERSION);
	expect_ok(RUN("ueid", "help"),
		  "ueid derive [--machine-id-file FILE] [--derive HOW] [--apply]");
	expect_ok(RUN("help", "ueid"), "--machine-id-file FILE");
	expect_ok(RUN("ueid", "--help"), "Options of 'ueid derive'");
	expect_ok(RUN("u", "h"), "smcctl ueid:");
	expect_ok(RUN("help", "lin"), "linkgroup show [ID|all]");
	expect_ok(RUN("stats", "help"), "stats reset");
	expect_ok(RUN("monitor", "help"), "monitor [events]");
	expect_ok(RUN("status", "help"), "1 degraded,\nstarting or stopping, 3 unavailable");
	expect_ok(RUN("config", "help"), "Exit status 7 when the file is invalid");
	expect_ok(RUN("socket", "list", "--help"), "--listening");
	expect_ok(RUN("config", "check", "--help"), "Examples:\n  smcctl config\n      the settings");
	expect_ok(RUN("help", "support-bundle"), "smcctl support-bundle -o /tmp/smc.tar.gz\n");
	/* "OBJECT help" is help for every object, also where the default verb takes a command */
	for (const struct object *o = smcctl_objects; o->name; o++) {
		char want[128];

		snprintf(want, sizeof(want), "smcctl %s: ", o->name);
		expect_ok(RUN(o->name, "help"), want);
	}
}

/*
 * Every verb of the table, whatever it does: --help answers with its usage and exits 0 with
 * nothing on stderr; an unknown option is a usage error (exit 2, one line on stderr naming
 * the option, nothing on stdout) before the verb does anything.
 */
static void test_every_verb(void **state)
{
	for (const struct object *o = smcctl_objects; o->name; o++)
		for (const struct verb *v = o->verbs; v->name; v++) {
			struct result r = RUN(o->name, v->name, "--help");
			char a[160], b[160];

			snprintf(a, sizeof(a), "%s %s", o->name, v->name);
			snprintf(b, sizeof(b), "%s [%s]", o->name, v->name);
			if (r.status != 0 || r.err[0] || !strstr(r.out, "Usage:") ||
			    (!strstr(r.out, a) && !strstr(r.out, b)))
				fail_msg("smcctl %s %s --help: exit %d, stderr \"%s\", stdout \"%s\"",
					 o->name, v->name, r.status, r.err, r.out);
			result_free(&r);
			/* the option named, and where to look: smcctl OBJECT help */
			snprintf(a, sizeof(a), "smcctl %s help", o->name);
			r = RUN(o->name, v->name, "--no-such-option");
			if (!strstr(r.err, a))
				fail_msg("smcctl %s %s --no-such-option: no next step in \"%s\"",
					 o->name, v->name, r.err);
			expect_usage(r, "option '--no-such-option'");
			expect_usage(RUN("-j", o->name, v->name, "--no-such-option"),
				     "option '--no-such-option'");
		}
}

static void test_usage_errors(void **state)
{
	expect_usage(RUN(""), "unknown object ''");
	expect_usage(RUN("-j"), "missing OBJECT");
	expect_usage(RUN("s"), "ambiguous object 's': could be seid, socket, sysctl, status, stats");
	expect_usage(RUN("h"), "ambiguous object 'h': could be hs-limit, help");
	expect_usage(RUN("bogus"), "unknown object 'bogus'");
	expect_usage(RUN("help", "bogus"), "unknown object 'bogus'");
	expect_usage(RUN("--bogus"), "unknown or ambiguous option '--bogus'");
	expect_usage(RUN("-x", "info"), "unknown option '-x'");
	expect_usage(RUN("-n"), "option '-n' needs an argument");
	expect_usage(RUN("--netns"), "option '--netns' needs an argument");
	expect_usage(RUN("info", "-a"), "unknown option '-a'");
	expect_usage(RUN("info", "extra"), "unknown verb 'extra' for 'info'");
	expect_usage(RUN("info", "show", "extra"), "unexpected argument 'extra' for 'info show'");
	expect_usage(RUN("ueid", "bogus"), "unknown verb 'bogus' for 'ueid'");
	expect_usage(RUN("ueid", "d"), "ambiguous verb 'd' for 'ueid': could be del, delete, derive");
	expect_usage(RUN("ueid", "add"), "'ueid add' needs UEID");
	expect_usage(RUN("ueid", "add", "A", "B"), "unexpected argument 'B'");
	expect_usage(RUN("ueid", "add", "abc"), "invalid UEID 'abc'");
	expect_usage(RUN("ueid", "add", "abc"), "did you mean 'ABC'?");
	expect_usage(RUN("ueid", "add", "0123456789ABCDEF0123456789ABCDEF0"), "invalid UEID");
	expect_usage(RUN("ueid", "add", ".ABC"), "invalid UEID");
	expect_usage(RUN("ueid", "add", "A B"), "invalid UEID");
	expect_usage(RUN("ueid", "add", ""), "invalid UEID ''");
	expect_usage(RUN("ueid", "del", "a_b"), "invalid UEID 'a_b'");
	expect_usage(RUN("ueid", "derive", "--machine-id-file"),
		     "option '--machine-id-file' needs an argument");
	expect_usage(RUN("ueid", "derive", "--machine-id-file="), "needs a file name");
	expect_usage(RUN("ueid", "derive", "--bogus"), "unknown or ambiguous option '--bogus'");
	expect_usage(RUN("ueid", "flush", "now"), "unexpected argument 'now'");
	/* a near miss gets a "did you mean": objects, verbs, options (the verb's and global) */
	expect_usage(RUN("lnkgroup"), "unknown object 'lnkgroup': did you mean 'linkgroup'?");
	expect_usage(RUN("stauts"), "unknown object 'stauts': did you mean 'status' or 'stats'?");
	expect_usage(RUN("config", "chek"),
		     "unknown verb 'chek' for 'config': did you mean 'check'?");
	expect_usage(RUN("socket", "--procesess"),
		     "unknown option '--procesess': did you mean '--processes'?");
	expect_usage(RUN("check", "--tiemout=3"),
		     "unknown option '--tiemout=3': did you mean '--timeout'?");
	expect_usage(RUN("--jsno", "info"), "unknown option '--jsno': did you mean '--json'?");
	/* and nothing made up for a word nowhere near */
	expect_usage(RUN("frobnicate"), "unknown object 'frobnicate' (see 'smcctl help')");
	expect_usage(RUN("info", "--frobnicate"), "unknown or ambiguous option '--frobnicate'");
	/* a near-miss size unit: the spelling smc.yaml and smcctl take (config/units.c) */
	expect_usage(RUN("sysctl", "set", "rmem", "64KB"),
		     "a size such as 64KiB or 1MiB is expected: did you mean 64KiB?");
	expect_usage(RUN("run", "--sndbuf", "1MB", "true"), "did you mean 1MiB?");
	/* assess refuses what it cannot observe before it loads anything */
	expect_usage(RUN("assess", "--duration", "0"), "invalid --duration '0': 1 to 86400 seconds");
	expect_usage(RUN("assess", "-t", "25h"), "invalid --duration '25h'");
	expect_usage(RUN("assess", "-t", "86401"), "invalid --duration '86401'");
	expect_usage(RUN("assess", "-t", "1.5m"), "invalid --duration '1.5m'");
	expect_usage(RUN("assess", "-t", "-5"), "invalid --duration '-5'");
	expect_usage(RUN("assess", "-t", "30x"), "invalid --duration '30x'");
	expect_usage(RUN("assess", "-t", "500ms"), "invalid --duration '500ms'");
	/* smc.yaml's duration syntax (config/units.c): the duration passes, the method does not */
	expect_usage(RUN("assess", "-t", "1m", "-m", "ebpf"), "invalid --method 'ebpf'");
	expect_usage(RUN("assess", "-t", "24h", "-m", "ebpf"), "invalid --method 'ebpf'");
	expect_usage(RUN("assess", "-t", "86400", "-m", "ebpf"), "invalid --method 'ebpf'");
	expect_usage(RUN("assess", "-t", "30s", "-m", "ebpf"), "invalid --method 'ebpf'");
	expect_usage(RUN("assess", "-m", "ebpf"), "invalid --method 'ebpf' (auto, bpf or sock_diag)");
	expect_usage(RUN("assess", "--cgroup", "system.slice"), "--cgroup takes a path below");
	expect_usage(RUN("assess", "observe", "extra"), "unexpected argument 'extra'");
	expect_usage(RUN("stats", "reset", "now"), "unexpected argument 'now'");
	expect_usage(RUN("monitor", "events", "now"), "unexpected argument 'now'");
	expect_usage(RUN("stats", "--absolute", "--kernel", "-D", "-R"), "exclude each other");
	expect_usage(RUN("stats", "--smcd", "--smcr"), "--smcd and --smcr exclude each other");
	expect_usage(RUN("socket", "-a", "-l"), "--all and --listening exclude each other");
	expect_usage(RUN("socket", "-D", "-R"), "--smcd and --smcr exclude each other");
	expect_usage(RUN("socket", "-l", "--smcd"), "listening sockets have no SMC mode");
	expect_usage(RUN("device", "--smcd", "--smcr"), "exclude each other");
	expect_usage(RUN("device", "show"), "'device show' needs NAME");
	expect_usage(RUN("linkgroup", "show", "xyz"), "invalid link group ID 'xyz'");
	expect_usage(RUN("linkgroup", "show", "123456789"), "invalid link group ID");
	expect_usage(RUN("linkgroup", "--smcd", "--smcr"), "exclude each other");
	expect_usage(RUN("pnet", "add", "NET1"), "give exactly one of --eth IFACE and --ib DEV");
	expect_usage(RUN("pnet", "add", "NET1", "--eth", "eth0", "--ib", "mlx5_0"), "exactly one of");
	expect_usage(RUN("pnet", "add", "NET1", "--eth", "eth0", "--port", "2"),
		     "--port belongs to --ib");
	expect_usage(RUN("pnet", "add", "NET1", "--ib", "mlx5_0", "--port", "3"),
		     "invalid --port '3': 1 to 2");
	expect_usage(RUN("pnet", "add", "NET1", "--ib", "mlx5_0", "--port", "1 "),
		     "invalid --port '1 '");
	expect_usage(RUN("pnet", "add", "NET1", "--eth", "0123456789abcdef"),
		     "invalid interface name");
	expect_usage(RUN("pnet", "add", "NET-1", "--eth", "eth0"), "invalid PNET ID 'NET-1'");
	expect_usage(RUN("pnet", "add", "N123456789ABCDEF0", "--eth", "eth0"), "invalid PNET ID");
	expect_usage(RUN("pnet", "del", ""), "invalid PNET ID ''");
	expect_usage(RUN("pnet", "list", "A", "B"), "unexpected argument 'B'");
	expect_usage(RUN("sysctl", "set", "wmem"), "'sysctl set' needs NAME VALUE");
	expect_usage(RUN("sysctl", "set", "wmem", "lots"), "invalid value 'lots' for net.smc.wmem");
	expect_usage(RUN("sysctl", "set", "net.smc.wmem", "1"),
		     "out of range (the kernel accepts 16KiB to ");
	expect_usage(RUN("sysctl", "set", "smcr_buf_type", "bogus"), "invalid value 'bogus'");
	expect_usage(RUN("sysctl", "set", "../../x", "1"), "invalid sysctl name");
	expect_usage(RUN("hs-limit", "enable", "now"), "unexpected argument 'now'");
	expect_usage(RUN("seid", "on"), "unknown verb 'on' for 'seid'");
	expect_usage(RUN("info", "--version"), "--version is an option of smcctl");
	/* device loopback-ism (cli/loopback.c) */
	expect_usage(RUN("device", "loopback-ism", "start"), "unknown action 'start'");
	expect_usage(RUN("device", "loopback-ism", "activate", "now"), "unexpected argument 'now'");
	expect_usage(RUN("device", "loopback-ism", "activate", "--wait", "5"),
		     "--wait belongs to 'loopback-ism deactivate'");
	expect_usage(RUN("device", "loopback-ism", "deactivate", "--wait", "0"),
		     "invalid --wait '0': 1 to 30 seconds (N, Ns, Nm or Nh); 0 (no drain) can hang");
	expect_usage(RUN("device", "loopback-ism", "deactivate", "--wait", "601"),
		     "invalid --wait '601'");
	expect_usage(RUN("device", "loopback-ism", "deactivate", "-w", "x"), "invalid --wait 'x'");
	expect_usage(RUN("device", "loopback-ism", "set", "nocopy"), "needs a setting and a value");
	expect_usage(RUN("device", "loopback-ism", "set", "colour", "red"), "unknown setting");
	expect_usage(RUN("device", "loopback-ism", "set", "dmb-type", "paged"),
		     "invalid dmb-type 'paged'");
	expect_usage(RUN("device", "loopback-ism", "set", "nocopy", "maybe"),
		     "invalid nocopy 'maybe': on or off (or true, false, yes, no, 1, 0)");
	expect_usage(RUN("device", "loopback-ism", "set", "max-dmbs", "0"), "invalid max-dmbs '0'");
	expect_usage(RUN("device", "loopback-ism", "set", "max-dmbs", "32769"),
		     "invalid max-dmbs '32769'");
	expect_usage(RUN("device", "loopback-ism", "set", "max-dmbs", "--", "-1"),
		     "invalid max-dmbs");
	expect_usage(RUN("device", "l"), "ambiguous verb 'l' for 'device'");
	/* check (cli/check.c): refused before any socket is made */
	expect_usage(RUN("check", "somehost"), "'check' needs HOST PORT");
	expect_usage(RUN("check", "somehost", "0"), "invalid port '0': 1 to 65535");
	expect_usage(RUN("check", "somehost", "http"),
		     "invalid port 'http': 1 to 65535 (a number, not a service name)");
	expect_usage(RUN("check", "somehost", "--", "-80"), "invalid port '-80'");
	expect_usage(RUN("check", "a", "1", "b"), "unexpected argument 'b'");
	expect_usage(RUN("check", "--count", "2"), "--count belongs to --listen");
	expect_usage(RUN("check", "--listen", "65536"), "invalid --listen '65536': 1 to 65535");
	expect_usage(RUN("check", "--listen", "5000", "--count", "0"),
		     "invalid --count '0': 1 to 1000000 checks");
	expect_usage(RUN("check", "--listen", "5000", "--count", "2x"), "invalid --count '2x'");
	expect_usage(RUN("check", "--listen", "5000", "h", "1"), "--listen takes no HOST PORT");
	/* one strict port parser (config/units.c): no space either side (issue 35) */
	expect_usage(RUN("check", "--listen", "80 ", "--address", "127.0.0.1"),
		     "invalid --listen '80 ': 1 to 65535");
	expect_usage(RUN("check", "--listen", " 80", "--address", "127.0.0.1"),
		     "invalid --listen ' 80': 1 to 65535");
	expect_usage(RUN("check", "somehost", "80 "), "invalid port '80 '");
	/* the address to answer on is the user's choice, never every address by default */
	expect_usage(RUN("check", "--listen", "5000"), "--listen needs --address ADDR");
	expect_usage(RUN("check", "--listen", "5000", "--address", "::1"),
		     "invalid --address '::1': an IPv4 address of this host");
	expect_usage(RUN("check", "--listen", "5000", "--address", "localhost"), "invalid --address");
	expect_usage(RUN("check", "--address", "127.0.0.1"), "--address belongs to --listen");
	expect_usage(RUN("check", "--timeout", "0"), "invalid --timeout '0'");
	expect_usage(RUN("check", "--timeout", "3601"),
		     "invalid --timeout '3601': 1 to 3600 seconds");
	/* one letter, one meaning: what a letter meant in one verb only is gone (cli/table.c) */
	expect_usage(RUN("check", "-t", "5"), "unknown option '-t'");
	expect_usage(RUN("pnet", "add", "N", "-D", "lo"), "unknown option '-D'");
	expect_usage(RUN("assess", "-A"), "unknown option '-A'");
	expect_usage(RUN("enable", "x", "-c", "/x"), "unknown option '-c'");
	expect_usage(RUN("-p", "stats"), "unknown option '-p'");
	expect_usage(RUN("check", "--timeout", "1.5"), "invalid --timeout '1.5'");
	/* Seconds with a unit, as smc.yaml takes them (config/units.c): 30s passes the
	 * timeout's check and meets the next one. */
	expect_usage(RUN("check", "--timeout", "30s", "--count", "1"), "--count belongs to --listen");
	expect_usage(RUN("check", "--timeout", "5x"), "invalid --timeout '5x'");
}

/* A library failure is one line "smcctl: what: why", exit 1 or 3, nothing on stdout. */
static void test_library_failure(void **state)
{
	struct result r = RUN("-j", "ueid");

	assert_true(r.status == SMCCTL_EXIT_FAILURE || r.status == SMCCTL_EXIT_UNAVAILABLE);
	assert_string_equal(r.out, "");
	assert_true(strncmp(r.err, "smcctl: cannot list the UEIDs: ", 31) == 0);
	assert_ptr_equal(strchr(r.err, '\n'), r.err + strlen(r.err) - 1);
	assert_null(strstr(r.err, "Success"));
	assert_null(strstr(r.err, "libnl"));
	result_free(&r);
}

/*
 * smc_lo missing and then the SMC-D device dump failing (tests/fixtures/synthetic/errors):
 * the failed dump is said as such, never read as "no loopback-ism on this kernel", which
 * would tell the operator to install smc-lo-dkms.
 */
static void test_loopback_device_dump_fails(void **state)
{
	static const char *const verbs[][6] = {
		{ "device", "loopback-ism", NULL },
		{ "device", "loopback-ism", "activate", NULL },
		{ "device", "loopback-ism", "deactivate", NULL },
		{ "device", "loopback-ism", "set", "nocopy", "off", NULL },
	};
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/tests/fixtures/synthetic/errors/smclo-missing-dev-fails",
		 golden_top_srcdir());
	for (size_t i = 0; i < ELEMENTSOF(verbs); i++) {
		const char *const *args = verbs[i];
		struct result r = run_in(dir, args);

		if (r.status != SMCCTL_EXIT_FAILURE ||
		    !strstr(r.err, "cannot list the SMC-D devices: ") ||
		    strstr(r.err, "smc-lo-dkms") || r.out[0])
			fail_msg("%s %s: expected the failed device dump, got exit %d, stderr \"%s\", "
				 "stdout \"%s\"",
				 args[1], args[2] ?: "", r.status, r.err, r.out);
		result_free(&r);
	}
}

/* "ueid derive" without --apply never touches the kernel. */
static void test_ueid_derive(void **state)
{
	char good[] = "/tmp/test-cli-verbs-mid-XXXXXX", bad[] = "/tmp/test-cli-verbs-bad-XXXXXX";
	int fd_good = mkstemp(good), fd_bad = mkstemp(bad);
	struct result r;

	assert_true(fd_good >= 0 && fd_bad >= 0);
	assert_int_equal(write(fd_good, "0123456789abcdef0123456789abcdef\n", 33), 33);
	assert_int_equal(write(fd_bad, "0123456789abcdef\n", 17), 17);
	close(fd_good);
	close(fd_bad);

	/* The default: app-specific (common/ueid-derive.h; the value is pinned there). */
	r = RUN("ueid", "derive", "--machine-id-file", good);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "APP-2AD86DCC3FC94797917BC8340A5D\n");
	assert_string_equal(r.err, "");
	result_free(&r);
	r = RUN("ueid", "derive", "--machine-id-file", good, "--derive", "app-specific");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "APP-2AD86DCC3FC94797917BC8340A5D\n");
	result_free(&r);

	/* The seed's convention, for hosts configured with it: unchanged. */
	r = RUN("ueid", "derive", "--derive", "machine-id", "--machine-id-file", good);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "MID-0123456789ABCDEF0123456789A\n");
	assert_string_equal(r.err, "");
	result_free(&r);

	r = RUN("-j", "ueid", "derive", "--machine-id-file", good);
	assert_int_equal(r.status, 0);
	assert_one_json_document(r.out);
	assert_non_null(strstr(r.out, "\"ueid\":\"APP-2AD86DCC3FC94797917BC8340A5D\""));
	assert_non_null(strstr(r.out, "\"derive\":\"app-specific\""));
	assert_non_null(strstr(r.out, "\"apply\":false,\"changed\":null"));
	result_free(&r);
	r = RUN("-j", "ueid", "derive", "--machine-id-file", good, "--derive=machine-id");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\"ueid\":\"MID-0123456789ABCDEF0123456789A\""));
	assert_non_null(strstr(r.out, "\"derive\":\"machine-id\""));
	result_free(&r);

	/* Another word is a usage error that names the two. */
	r = RUN("ueid", "derive", "--machine-id-file", good, "--derive", "MID");
	assert_int_equal(r.status, SMCCTL_EXIT_USAGE);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "invalid --derive 'MID' (app-specific or machine-id)"));
	result_free(&r);

	/* --json=MODE as systemd's tools take it, before the object or after the verb */
	r = RUN("--json=short", "ueid", "derive", "--machine-id-file", good);
	assert_int_equal(r.status, 0);
	assert_one_json_document(r.out);
	assert_null(strchr(r.out, ' '));
	result_free(&r);
	r = RUN("ueid", "derive", "--machine-id-file", good, "--json=pretty");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "{\n  \"ueid\": \"APP-"));
	result_free(&r);
	r = RUN("-j", "--json=off", "ueid", "derive", "--machine-id-file", good);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "APP-2AD86DCC3FC94797917BC8340A5D\n");
	result_free(&r);
	expect_usage(RUN("--json=1", "ueid", "derive", "--machine-id-file", good),
		     "invalid --json=1: pretty, short or off");
	expect_usage(RUN("ueid", "derive", "--json=yes"), "invalid --json=yes: pretty, short or off");

	r = RUN("ueid", "derive", "--machine-id-file", bad);
	assert_int_equal(r.status, SMCCTL_EXIT_FAILURE);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "is too short"));
	assert_ptr_equal(strchr(r.err, '\n'), r.err + strlen(r.err) - 1);
	result_free(&r);

	r = RUN("ueid", "derive", "--machine-id-file", "/nonexistent/machine-id");
	assert_int_equal(r.status, SMCCTL_EXIT_FAILURE);
	assert_non_null(strstr(r.err, "cannot read /nonexistent/machine-id: No such file"));
	result_free(&r);
	unlink(good);
	unlink(bad);
}

/*
 * The text of a .TP heading (the line after .TP or .TQ), without macro name, font escapes,
 * quotes and brackets, blanks squeezed: ".BI \"ueid add \" UEID \" (*)\"" is "ueid add UEID (*)",
 * ".BR \"linkgroup \" [ list \"] [\" --smcd | --smcr ]" is "linkgroup list --smcd | --smcr".
 */
static void heading_text(const char *line, char *buf, size_t len)
{
	size_t n = 0;
	const char *p = line;

	if (*p == '.')
		while (*p && *p != ' ')
			p++;
	for (; *p && *p != '\n' && n + 1 < len; p++) {
		if (p[0] == '\\' && p[1] == 'f' && p[2]) {
			p += 2;
			continue;
		}
		if (*p == '"' || *p == '[' || *p == ']')
			continue;
		if (*p == ' ' && (n == 0 || buf[n - 1] == ' '))
			continue;
		buf[n++] = *p;
	}
	while (n > 0 && buf[n - 1] == ' ')
		n--;
	buf[n] = '\0';
}

/*
 * Every verb has a heading of its own, "OBJECT VERB ...", in the man page (the default verb
 * too), and the heading ends in "(*)" exactly when the verb is VERB_ADMIN.  man is the page
 * with "\-" already read as "-".
 */
static void man_verb_headings(const char *man)
{
	for (const struct object *o = smcctl_objects; o->name; o++)
		for (const struct verb *v = o->verbs; v->name; v++) {
			char want[128], text[512];
			bool found = false, admin = false;

			snprintf(want, sizeof(want), "%s %s", o->name, v->name);
			for (const char *p = man; (p = strstr(p, "\n.T")); p++) {
				const char *h;

				if (strncmp(p, "\n.TP\n", 5) != 0 && strncmp(p, "\n.TQ\n", 5) != 0)
					continue;
				h = p + 5;
				heading_text(h, text, sizeof(text));
				if (strncmp(text, want, strlen(want)) != 0 ||
				    (text[strlen(want)] && text[strlen(want)] != ' '))
					continue;
				found = true;
				admin = strlen(text) >= 3 && streq(text + strlen(text) - 3, "(*)");
				if (admin == !!(v->flags & VERB_ADMIN))
					break;
			}
			if (!found)
				fail_msg("man page has no .TP heading for '%s'", want);
			if (admin != !!(v->flags & VERB_ADMIN))
				fail_msg("man page heading of '%s' %s (*), the table says it %s CAP_NET_ADMIN",
					 want, admin ? "has" : "lacks",
					 (v->flags & VERB_ADMIN) ? "needs" : "does not need");
		}
}

/* The man page documents every object, verb, alias and option of the table. */
/* The baseline is the agent's: without one, "stats reset" says so (exit 5, one line). */
static void test_stats_reset_needs_agent(void **state)
{
	struct result r = RUN("stats", "reset");

	assert_int_equal(r.status, SMCCTL_EXIT_NO_AGENT);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "stats reset needs smcd-agent, which keeps the baseline"));
	assert_ptr_equal(strchr(r.err, '\n'), r.err + strlen(r.err) - 1);
	result_free(&r);
}

static char *sysroot_file(const char *dir, const char *name)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/proc/sys/net/smc/%s", dir, name);
	return path;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static const char *read_file(const char *path)
{
	static char buf[128];
	FILE *f = fopen(path, "re");

	assert_non_null(f);
	buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/*
 * sysctl set without the agent takes what smc.yaml and the agent take (one parser,
 * config/units.c): "1MiB" was "a number is expected" here while valid there.
 */
static void test_sysctl_set_units(void **state)
{
	char dir[] = "/tmp/smcctl-sysroot-XXXXXX", cmd[600];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/proc/sys/net/smc", dir);
	assert_int_equal(system(cmd), 0);
	write_file(sysroot_file(dir, "rmem"), "65536\n");
	write_file(sysroot_file(dir, "autocorking_size"), "65536\n");
	sysroot = dir;

	expect_ok(RUN("sysctl", "set", "rmem", "1MiB"), ""); /* silent, as ip(8) is */
	assert_string_equal(read_file(sysroot_file(dir, "rmem")), "1048576");
	expect_ok(RUN("sysctl", "set", "net.smc.rmem", "256KiB"), "");
	assert_string_equal(read_file(sysroot_file(dir, "rmem")), "262144");
	expect_usage(RUN("sysctl", "set", "rmem", "1MB"), "a size such as 64KiB or 1MiB is expected");
	assert_string_equal(read_file(sysroot_file(dir, "rmem")), "262144");
	expect_usage(RUN("sysctl", "set", "rmem", "64GiB"), "out of range");
	assert_string_equal(read_file(sysroot_file(dir, "rmem")), "262144");
	/* Enumerations by name or by the kernel's number (cli-7x.sh sets smcr_buf_type 0). */
	write_file(sysroot_file(dir, "smcr_buf_type"), "0\n");
	expect_ok(RUN("sysctl", "set", "smcr_buf_type", "virtual"), "");
	assert_string_equal(read_file(sysroot_file(dir, "smcr_buf_type")), "1");
	expect_ok(RUN("sysctl", "set", "smcr_buf_type", "0"), "");
	assert_string_equal(read_file(sysroot_file(dir, "smcr_buf_type")), "0");
	expect_usage(RUN("sysctl", "set", "smcr_buf_type", "9"), "out of range");
	/* a mistyped name: the nearest known one */
	{
		struct result r = RUN("sysctl", "set", "autocorkign_size", "1");

		if (r.status != SMCCTL_EXIT_FAILURE ||
		    !strstr(r.err, "no sysctl net.smc.autocorkign_size: did you mean "
				   "'autocorking_size'?"))
			fail_msg("sysctl set of a mistyped name: exit %d, \"%s\"", r.status, r.err);
		result_free(&r);
	}

	sysroot = "/nonexistent/smcctl-test";
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* smcctl(8) with the roff escape that matters here undone: "\-" is "-". */
static char *read_man(void)
{
	char path[4096], *man = NULL, line[4096];
	size_t len = 0;
	FILE *f, *m;

	snprintf(path, sizeof(path), "%s/man/smcctl.8", golden_top_srcdir());
	f = fopen(path, "re");
	assert_non_null(f);
	m = open_memstream(&man, &len);
	while (fgets(line, sizeof(line), f))
		for (char *p = line; *p; p++) {
			if (p[0] == '\\' && p[1] == '-')
				p++;
			fputc(*p, m);
		}
	fclose(m);
	fclose(f);
	return man;
}

/*
 * Every verb has an example.  Each parses as the verb it is listed under (smcctl_parse():
 * the object, the verb, its options and their values, the number of arguments), fits the
 * help's 80 columns, and smcctl(8) EXAMPLES holds it: ".B LINE", then the same text.
 */
static void check_example(const struct object *o, const struct verb *v,
			  const struct verb_example *e, const char *examples)
{
	char *words = strdup(e->line), *argv[32], *save = NULL, want[512];
	const struct verb *got = NULL;
	struct capture out, err;
	const char *msg;
	int argc = 0, status;

	assert_non_null(words);
	for (char *w = strtok_r(words, " ", &save); w && argc < 31; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	if (argc == 0 || strcmp(argv[0], "smcctl") != 0)
		fail_msg("example '%s' of '%s %s' is no smcctl command line", e->line, o->name,
			 v->name);
	capture_begin(&out);
	capture_begin(&err);
	status = smcctl_parse(argc, argv, out.f, err.f, &got);
	free((char *)capture_end(&out));
	msg = capture_end(&err);
	if (status != 0 || got != v)
		fail_msg("example '%s' does not parse as '%s %s' (exit %d): %s", e->line, o->name,
			 v->name, status, msg);
	free((char *)msg);
	free(words);
	if (strlen(e->line) + 2 > 80 || strlen(e->what) + 6 > 80)
		fail_msg("example '%s' is wider than the help's 80 columns", e->line);
	snprintf(want, sizeof(want), "\n.B %s\n%s\n", e->line, e->what);
	if (!strstr(examples, want))
		fail_msg("smcctl(8) EXAMPLES lacks the example of '%s %s':%s", o->name, v->name,
			 want);
}

static void test_examples(void **state)
{
	char *man = read_man(), *examples = strstr(man, "\n.SH EXAMPLES\n"), *end;

	assert_non_null(examples);
	end = strstr(examples + 1, "\n.SH ");
	if (end)
		end[1] = '\0'; /* the section only */
	for (const struct object *o = smcctl_objects; o->name; o++)
		for (const struct verb *v = o->verbs; v->name; v++) {
			if (!v->examples || !v->examples[0].line)
				fail_msg("'%s %s' has no example in cli/table.c", o->name, v->name);
			for (const struct verb_example *e = v->examples; e->line; e++)
				check_example(o, v, e, examples);
		}
	free(man);
}

static void test_man_page(void **state)
{
	char *man = read_man();

	for (const struct object *o = smcctl_objects; o->name; o++) {
		char want[128];

		snprintf(want, sizeof(want), ".SS %s\n", o->name);
		if (!strstr(man, want))
			fail_msg("man page has no section for '%s'", o->name);
		for (const struct verb *v = o->verbs; v->name; v++) {
			char a[128], b[128];

			snprintf(a, sizeof(a), "\"%s %s", o->name, v->name);
			snprintf(b, sizeof(b), "%s \" [\n.BR %s", o->name, v->name);
			if (!strstr(man, a) && !strstr(man, v->name))
				fail_msg("man page does not document '%s %s'", o->name, v->name);
			if (v->alias && !strstr(man, v->alias))
				fail_msg("man page does not mention alias '%s'", v->alias);
			for (const struct verb_opt *p = v->opts; p && p->name; p++) {
				snprintf(a, sizeof(a), "--%s", p->name);
				if (!strstr(man, a))
					fail_msg("man page does not document %s of '%s %s'", a,
						 o->name, v->name);
			}
		}
	}
	man_verb_headings(man);
	for (const char *const *w =
		     (const char *const[]){ "--json", "--pretty", "--details", "--netns", "--help",
					    "--version", "--no-pager", "SMCCTL_PAGER",
					    "EXIT STATUS", "JSON OUTPUT", NULL };
	     *w; w++)
		if (!strstr(man, *w))
			fail_msg("man page does not mention %s", *w);
	free(man);
}

/*
 * A number's range and default are the table's alone: the help text of an option states
 * none by hand (the old "--wait S (1-600, default 10)" beside a parser taking 1 to 30), the
 * parser refuses just outside the range with the range in its message, "smcctl OBJECT help"
 * prints the range and default the parser uses, and smcctl(8) states the same words.
 */
static bool states_number(const char *help)
{
	for (const char *s = help; *s; s++) {
		if (!isdigit((unsigned char)*s))
			continue;
		/* "(default 10", "1-600", "1 to 30" */
		if ((s - help >= 8 && strncmp(s - 8, "default ", 8) == 0) || s[1] == '-' ||
		    strncmp(s + 1, " to ", 4) == 0)
			return true;
	}
	return false;
}

static void test_option_ranges(void **state)
{
	char *man = read_man();
	size_t numbers = 0;

	for (const struct object *o = smcctl_objects; o->name; o++)
		for (const struct verb *v = o->verbs; v->name; v++)
			for (const struct verb_opt *p = v->opts; p && p->name; p++) {
				char range[96], full[96], opt[64], arg[32], want[160];
				struct result r;

				if (states_number(p->help))
					fail_msg("'%s %s' --%s: its help states a number by hand "
						 "(\"%s\"): put it in the table",
						 o->name, v->name, p->name, p->help);
				if (p->type == VERB_OPT_TEXT)
					continue;
				numbers++;
				assert_true(p->min <= p->max);
				verb_opt_range(p, false, range, sizeof(range));
				verb_opt_range(p, true, full, sizeof(full));
				snprintf(opt, sizeof(opt), "--%s", p->name);

				/* the help prints what the parser takes */
				r = RUN(o->name, "help");
				snprintf(want, sizeof(want), "(%s)", full);
				if (r.status != 0 || !strstr(r.out, want))
					fail_msg("'smcctl %s help' lacks %s for %s", o->name, want,
						 opt);
				result_free(&r);
				/* just outside the range: refused, naming the range */
				snprintf(want, sizeof(want), "invalid %s", opt);
				snprintf(arg, sizeof(arg), "%" PRId64, p->max + 1);
				r = RUN(o->name, v->name, opt, arg);
				if (r.status != SMCCTL_EXIT_USAGE || !strstr(r.err, want) ||
				    !strstr(r.err, range))
					fail_msg("%s %s above the range: exit %d, \"%s\"", opt, arg,
						 r.status, r.err);
				result_free(&r);
				snprintf(arg, sizeof(arg), "%" PRId64, p->min - 1);
				r = RUN(o->name, v->name, opt, arg);
				if (r.status != SMCCTL_EXIT_USAGE || !strstr(r.err, range))
					fail_msg("%s %s below the range: exit %d, \"%s\"", opt, arg,
						 r.status, r.err);
				result_free(&r);
				/* the man page says the same */
				if (!strstr(man, full))
					fail_msg("smcctl(8) does not say \"%s\" of %s ('%s %s')",
						 full, opt, o->name, v->name);
			}
	assert_true(numbers >= 5);
	free(man);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_word_lookup),
		cmocka_unit_test(test_table_sane),
		cmocka_unit_test(test_short_letters),
		cmocka_unit_test(test_pager_command),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_every_verb),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_library_failure),
		cmocka_unit_test(test_loopback_device_dump_fails),
		cmocka_unit_test(test_stats_reset_needs_agent),
		cmocka_unit_test(test_man_page),
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_option_ranges),
		cmocka_unit_test(test_sysctl_set_units),
		cmocka_unit_test(test_ueid_derive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
