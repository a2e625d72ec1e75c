// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Golden output of smcctl against REAL kernel replies: every fixture folder recorded in the
 * QEMU lanes (tests/fixtures/LANE/STEP, see tests/fixtures/record) is replayed through
 * libsmcnl and smcctl's handlers, exactly as the installed binary would run them, and the
 * output (stdout, stderr and exit status) is compared with tests/golden/LANE/STEP/NAME.txt.
 * Every -j output must be exactly one JSON document.
 *
 * The replay options reach smcctl_run() as a parameter; smcctl itself has no switch for it
 * (see cli/main.c).  SMCCTL_FIXTURES_DIR (test-only) replaces $top_srcdir/tests/fixtures.
 *
 * Every step replays every read command, and most outputs are what an earlier step of the
 * lane printed: such an output is a relative symlink to the first step (sorted by name) with
 * the same output under the same name, which reads as "this step did not change it".
 * SMCCTL_UPDATE_GOLDEN=1 writes regular files and links them afterwards; test_links refuses
 * a copy, so the tree stays that way.
 */
#include <dirent.h>
#include <errno.h>
#include <unistd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "cli/smcctl.h"
#include "tests/unit/golden.h"

#define ARGS_MAX 8

struct cmd {
	const char *name;
	const char *argv[ARGS_MAX];
};

/* Read-only commands: replayed in every fixture folder recorded with "read". */
static const struct cmd read_cmds[] = {
	{ "info", { "info" } },
	{ "info-d", { "-d", "info" } },
	{ "info.json", { "-j", "info" } },
	{ "ueid", { "ueid" } },
	{ "ueid.json", { "-j", "ueid", "list" } },
	{ "seid", { "seid" } },
	{ "seid.json", { "-j", "seid" } },
	{ "device", { "device" } },
	{ "device-d", { "device", "list", "-d" } },
	{ "device.json", { "--json=pretty", "device" } },
	{ "device-show-lo", { "device", "show", "lo" } },
	{ "linkgroup", { "linkgroup" } },
	{ "linkgroup-d", { "-d", "linkgroup" } },
	{ "linkgroup.json", { "--json=pretty", "linkgroup" } },
	{ "linkgroup-show-100", { "linkgroup", "show", "0x100" } },
	{ "socket", { "socket" } },
	{ "socket-a", { "socket", "-a" } },
	{ "socket-l", { "socket", "--listening" } },
	{ "socket-ad", { "socket", "-a", "-d" } },
	{ "socket-add", { "socket", "-a", "-dd" } },
	{ "socket.json", { "--json=pretty", "socket", "-a", "-d" } },
	{ "pnet", { "pnet" } },
	{ "pnet.json", { "-j", "pnet" } },
	{ "sysctl", { "sysctl" } },
	{ "sysctl-d", { "sysctl", "-d" } },
	{ "sysctl.json", { "--json=pretty", "sysctl" } },
	{ "sysctl-wmem", { "sysctl", "show", "net.smc.wmem" } },
	{ "hs-limit", { "hs-limit" } },
	{ "hs-limit.json", { "-j", "hs-limit" } },
	{ "stats", { "stats" } },
	{ "stats-d", { "stats", "-d" } },
	{ "stats-all", { "stats", "--all" } },
	{ "stats.json", { "--json=pretty", "stats" } },
};

/* Write commands: replayed only in the folder that recorded that request. */
struct write_cmd {
	const char *step;
	struct cmd cmd;
};

static const struct write_cmd write_cmds[] = {
	{ "ueid-add", { "ueid-add", { "ueid", "add", "SMCD-AGENT-TEST" } } },
	{ "ueid-add", { "ueid-add.json", { "-j", "ueid", "add", "SMCD-AGENT-TEST" } } },
	{ "ueid-add-dup", { "ueid-add", { "ueid", "add", "SMCD-AGENT-TEST" } } },
	{ "ueid-add-full", { "ueid-add", { "ueid", "add", "SMCD-AGENT-FIVE" } } },
	{ "ueid-del-missing", { "ueid-del", { "ueid", "del", "NOT-CONFIGURED" } } },
	{ "ueid-del", { "ueid-del", { "-j", "ueid", "del", "SMCD-AGENT-TWO" } } },
	{ "ueid-flush", { "ueid-flush", { "-j", "ueid", "flush" } } },
	{ "seid-enable", { "seid-enable", { "seid", "enable" } } },
	{ "seid-disable", { "seid-disable", { "seid", "disable" } } },
	{ "hs-enable", { "hs-limit-enable", { "-j", "hs-limit", "enable" } } },
	{ "hs-disable", { "hs-limit-disable", { "hs-limit", "disable" } } },
	{ "pnet-add-eth", { "pnet-add", { "-j", "pnet", "add", "net1", "--eth", "lo" } } },
	{ "pnet-add-eth-dup", { "pnet-add", { "pnet", "add", "NET1", "--eth", "lo" } } },
	{ "pnet-add-ib", { "pnet-add", { "pnet", "add", "NET2", "--ib", "lo" } } },
	{ "pnet-del", { "pnet-del", { "pnet", "del", "net1" } } },
	{ "pnet-del-missing", { "pnet-del", { "pnet", "del", "NET1" } } },
	{ "pnet-flush", { "pnet-flush", { "pnet", "flush" } } },
	{ "pnet-flush-empty", { "pnet-flush", { "pnet", "flush" } } },
	/* 7x-smclo: our loopback module (step names start with "smclo-") */
	{ "smclo-missing", { "loopback-activate", { "device", "loopback-ism", "activate" } } },
	{ "smclo-missing", { "loopback-show", { "device", "loopback-ism" } } },
	{ "smclo-missing", { "loopback-deactivate", { "device", "loopback-ism", "deactivate" } } },
	{ "smclo-missing",
	  { "loopback-deactivate.json", { "-j", "device", "loopback-ism", "deactivate" } } },
	{ "smclo-get-inactive", { "loopback-show", { "device", "loopback-ism" } } },
	{ "smclo-get-inactive",
	  { "loopback-show.json", { "--json=pretty", "device", "loopback-ism", "show" } } },
	{ "smclo-set-virtual",
	  { "loopback-set-virtual", { "device", "loopback-ism", "set", "dmb-type", "virtual" } } },
	{ "smclo-set-nocopy",
	  { "loopback-set-nocopy.json",
	    { "--json=pretty", "device", "loopback-ism", "set", "nocopy", "off" } } },
	/* The boolean words of smc.yaml's nocopy: the same request as "off". */
	{ "smclo-set-nocopy",
	  { "loopback-set-nocopy-false.json",
	    { "--json=pretty", "device", "loopback-ism", "set", "nocopy", "false" } } },
	{ "smclo-set-pending",
	  { "loopback-set-max-dmbs", { "device", "loopback-ism", "set", "max-dmbs", "64" } } },
	{ "smclo-set-pending",
	  { "loopback-set-max-dmbs.json", { "-j", "device", "loopback-ism", "set", "max", "64" } } },
	{ "smclo-activate", { "loopback-activate", { "device", "loopback-ism", "activate" } } },
	{ "smclo-activate",
	  { "loopback-activate.json", { "--json=pretty", "device", "loopback-ism", "activate" } } },
	{ "smclo-activate-again",
	  { "loopback-activate.json", { "-j", "device", "loopback-ism", "act" } } },
	{ "smclo-activate-busy", { "loopback-activate", { "device", "loopback-ism", "activate" } } },
	{ "smclo-shutdown",
	  { "loopback-deactivate.json",
	    { "--json=pretty", "device", "loopback-ism", "deactivate", "--wait", "5" } } },
	{ "smclo-shutdown-inactive",
	  { "loopback-deactivate.json", { "-j", "device", "loopback-ism", "deactivate" } } },
	{ "smclo-shutdown-timeout",
	  { "loopback-deactivate", { "device", "loopback-ism", "deactivate", "--wait", "1" } } },
	{ "smclo-shutdown-done",
	  { "loopback-deactivate", { "device", "loopback-ism", "deactivate", "-w", "1" } } },
	{ "smclo-idle", { "device-show-smclo", { "device", "show", "smclo" } } },
	{ "smclo-traffic", { "device-show-smclo", { "device", "show", "smclo" } } },
	{ "smclo-traffic",
	  { "device-show-smclo.json", { "--json=pretty", "device", "show", "smclo" } } },
	{ "smclo-both", { "device-show-smclo", { "device", "show", "smclo" } } },
	{ "smclo-after", { "device-show-smclo", { "device", "show", "smclo" } } },
	{ "smclo-after",
	  { "device-show-smclo.json", { "--json=pretty", "device", "show", "smclo" } } },
};

static char fixtures[4096];
static unsigned n_runs;

/* dir/name, allocated (paths here have no fixed bound worth guessing). */
static char *path_join(const char *dir, const char *name)
{
	char *p = NULL;

	assert_true(asprintf(&p, "%s/%s", dir, name) >= 0);
	return p;
}

/* {"error": {..., "exit_status": status}} and nothing else (smcctl_run()'s json_error()). */
static bool is_error_document(const char *text, int status)
{
	json_object *doc = json_tokener_parse(text), *e = NULL, *s = NULL;
	bool ok = doc && json_object_object_length(doc) == 1 &&
		  json_object_object_get_ex(doc, "error", &e) &&
		  json_object_object_get_ex(e, "exit_status", &s) &&
		  json_object_get_int(s) == status;

	json_object_put(doc);
	return ok;
}

static void run(const char *lane, const char *step, const char *dir, const struct cmd *cmd)
{
	char golden[512], *argv[ARGS_MAX + 2];
	char *sysroot = path_join(dir, "sysroot");
	struct smcnl_options opts = { .replay_dir = dir, .sysroot = sysroot };
	struct capture out, err, all;
	bool json = false;
	int argc = 0, status;

	argv[argc++] = (char *)"smcctl";
	for (size_t i = 0; i < ARGS_MAX && cmd->argv[i]; i++) {
		argv[argc++] = (char *)cmd->argv[i];
		json |= streq(cmd->argv[i], "-j") || strncmp(cmd->argv[i], "--json", 6) == 0;
	}
	argv[argc] = NULL;

	/* The command line first: getopt permutes argv. */
	capture_begin(&all);
	fputs("$ smcctl", all.f);
	for (int i = 1; i < argc; i++)
		fprintf(all.f, " %s", argv[i]);
	fputc('\n', all.f);

	capture_begin(&out);
	capture_begin(&err);
	status = smcctl_run(argc, argv, &opts, out.f, err.f);
	capture_end(&out);
	capture_end(&err);

	/*
	 * -j: exactly one JSON document, on failure too.  A failure prints nothing on stdout
	 * but, with -j, its {"error": ...} document, except "info", whose report is the answer
	 * even when it finds no SMC (exit 3).
	 */
	if (json && (out.len || status != 0))
		assert_one_json_document(out.buf);
	if (status != 0 && out.len && !(status == 3 && strncmp(cmd->name, "info", 4) == 0) &&
	    !(json && is_error_document(out.buf, status)))
		fail_msg("%s/%s %s: output on stdout despite exit %d", lane, step, cmd->name, status);
	if (err.len)
		assert_true(err.buf[err.len - 1] == '\n');
	assert_null(strstr(err.buf, "Success"));

	fputs(out.buf, all.f);
	if (err.len)
		fprintf(all.f, "[stderr]\n%s", err.buf);
	fprintf(all.f, "[exit %d]\n", status);
	capture_end(&all);
	snprintf(golden, sizeof(golden), "%s/%s/%s.txt", lane, step, cmd->name);
	golden_check(golden, all.buf);
	free(all.buf);
	free(out.buf);
	free(err.buf);
	free(sysroot);
	n_runs++;
}

static bool is_file(const char *dir, const char *name)
{
	char *p = path_join(dir, name);
	struct stat st;
	bool r = stat(p, &st) == 0 && S_ISREG(st.st_mode);

	free(p);
	return r;
}

/* A folder recorded with "read" has the system information dump (or, without SMC, the
 * failed family lookup and the socket probes). */
static bool is_read_step(const char *dir)
{
	return is_file(dir, "smc-genl-get-sys-info.bin") || is_file(dir, "socket-af-smc.errno");
}

static void replay_step(const char *lane, const char *step, const char *dir)
{
	if (is_read_step(dir))
		for (size_t i = 0; i < ELEMENTSOF(read_cmds); i++)
			run(lane, step, dir, &read_cmds[i]);
	for (size_t i = 0; i < ELEMENTSOF(write_cmds); i++)
		if (streq(write_cmds[i].step, step))
			run(lane, step, dir, &write_cmds[i].cmd);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted subfolder names of dir; returns how many. */
static size_t subdirs(const char *dir, char ***ret)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t n = 0;

	*ret = NULL;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		_cleanup_(freep) char *p = NULL;
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		p = path_join(dir, e->d_name);
		if (stat(p, &st) < 0 || !S_ISDIR(st.st_mode) || streq(e->d_name, "sysroot"))
			continue;
		v = realloc(v, (n + 1) * sizeof(*v));
		assert_non_null(v);
		v[n++] = strdup(e->d_name);
	}
	closedir(d);
	if (n > 1) /* qsort(NULL, 0, ...) is undefined, and UBSan says so */
		qsort(v, n, sizeof(*v), cmp_str);
	*ret = v;
	return n;
}

static void test_lanes(void **state)
{
	char **lanes;
	size_t n_lanes = subdirs(fixtures, &lanes);

	for (size_t l = 0; l < n_lanes; l++) {
		_cleanup_(freep) char *lane_dir = path_join(fixtures, lanes[l]);
		char **steps;
		size_t n_steps;

		/* A lane recorded as one folder (nosmc) is its own single step. */
		if (is_read_step(lane_dir)) {
			replay_step(lanes[l], "read", lane_dir);
			free(lanes[l]);
			continue;
		}
		n_steps = subdirs(lane_dir, &steps);
		for (size_t s = 0; s < n_steps; s++) {
			_cleanup_(freep) char *step_dir = path_join(lane_dir, steps[s]);

			replay_step(lanes[l], steps[s], step_dir);
			free(steps[s]);
		}
		free(steps);
		free(lanes[l]);
	}
	free(lanes);
	if (n_runs == 0)
		fail_msg("no fixtures found under %s", fixtures);
	print_message("replayed %u smcctl runs from %s\n", n_runs, fixtures);
}

/* The outputs (NAME.txt) of one golden step folder, sorted. */
static size_t outputs(const char *dir, char ***ret)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t n = 0;

	*ret = NULL;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (e->d_name[0] == '.' || l < 5 || !streq(e->d_name + l - 4, ".txt"))
			continue;
		v = realloc(v, (n + 1) * sizeof(*v));
		assert_non_null(v);
		v[n++] = strdup(e->d_name);
	}
	closedir(d);
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_str);
	*ret = v;
	return n;
}

/* First earlier step of the lane whose NAME is a regular file with this text, or NULL. */
static const char *earlier_same(const char *lane_dir, char **steps, size_t upto, const char *name,
				const char *text)
{
	for (size_t s = 0; s < upto; s++) {
		_cleanup_(freep) char *sd = path_join(lane_dir, steps[s]);
		_cleanup_(freep) char *p = path_join(sd, name);
		_cleanup_(freep) char *t = NULL;
		struct stat st;

		if (lstat(p, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		t = golden_read_file(p);
		if (t && streq(t, text))
			return steps[s];
	}
	return NULL;
}

static void test_links(void **state)
{
	const char *update = getenv("SMCCTL_UPDATE_GOLDEN");
	bool relink = update && streq(update, "1");
	_cleanup_(freep) char *golden = path_join(golden_top_srcdir(), "tests/golden");
	char **lanes;
	size_t n_lanes = subdirs(golden, &lanes), links = 0;
	_cleanup_(freep) char *mark = path_join(golden, ".dereferenced");

	(void)state;
	/* A release tarball: make dist made the links copies (cli/Makefile.inc). */
	if (access(mark, F_OK) == 0) {
		for (size_t l = 0; l < n_lanes; l++)
			free(lanes[l]);
		free(lanes);
		print_message("%s: the golden links were dereferenced by make dist\n", mark);
		skip();
	}
	for (size_t l = 0; l < n_lanes; l++) {
		_cleanup_(freep) char *lane_dir = path_join(golden, lanes[l]);
		char **steps;
		size_t n_steps = subdirs(lane_dir, &steps);

		for (size_t s = 0; s < n_steps; s++) {
			_cleanup_(freep) char *sd = path_join(lane_dir, steps[s]);
			char **names;
			size_t n_names = outputs(sd, &names);

			for (size_t k = 0; k < n_names; k++) {
				_cleanup_(freep) char *p = path_join(sd, names[k]);
				_cleanup_(freep) char *text = golden_read_file(p);
				_cleanup_(freep) char *target = NULL;
				const char *first;
				struct stat st;

				assert_int_equal(lstat(p, &st), 0);
				if (!text)
					fail_msg("tests/golden/%s/%s/%s: a link to nothing",
						 lanes[l], steps[s], names[k]);
				if (S_ISLNK(st.st_mode)) {
					links++;
					free(names[k]);
					continue; /* read through; golden_check compared it */
				}
				first = earlier_same(lane_dir, steps, s, names[k], text);
				if (!first) {
					free(names[k]);
					continue;
				}
				if (!relink)
					fail_msg("tests/golden/%s/%s/%s is a copy of ../%s/%s: SMCCTL_UPDATE_GOLDEN=1 make check TESTS=tests/unit/test-cli-golden links it",
						 lanes[l], steps[s], names[k], first, names[k]);
				assert_true(asprintf(&target, "../%s/%s", first, names[k]) >= 0);
				if (unlink(p) < 0 || symlink(target, p) < 0)
					fail_msg("cannot link %s to %s: %s", p, target,
						 strerror(errno));
				links++;
				free(names[k]);
			}
			free(names);
		}
		for (size_t s = 0; s < n_steps; s++)
			free(steps[s]); /* after the lane: earlier_same() reads them */
		free(steps);
		free(lanes[l]);
	}
	free(lanes);
	print_message("%zu golden outputs are links to an earlier step's\n", links);
}

int main(void)
{
	const char *env = getenv("SMCCTL_FIXTURES_DIR");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lanes),
		cmocka_unit_test(test_links), /* after test_lanes: it may have rewritten files */
	};

	if (env && *env)
		snprintf(fixtures, sizeof(fixtures), "%s", env);
	else
		snprintf(fixtures, sizeof(fixtures), "%s/tests/fixtures", golden_top_srcdir());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
