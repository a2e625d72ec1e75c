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
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>

#include <cmocka.h>
#include <systemd/sd-bus.h>

#include "cli/auto.h"
#include "cli/smcctl.h"
#include "common/bus-api.h"
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

/*
 * The agent's bus name as @SMCD_BUS_NAME@, in place (a message about a missing agent names
 * it): no golden spells the agent's names (tests/integration/bus-names.test).
 */
static char *unspell_bus_name(char *text)
{
	static const char subst[] = "@SMCD_BUS_NAME@";
	char *p;

	assert_true(strlen(SMCD_BUS_NAME) >= sizeof(subst) - 1);
	while ((p = strstr(text, SMCD_BUS_NAME))) {
		size_t n = strlen(SMCD_BUS_NAME);

		memcpy(p, subst, sizeof(subst) - 1);
		memmove(p + sizeof(subst) - 1, p + n, strlen(p + n) + 1);
	}
	return text;
}

/*
 * One command line into tests/golden/GOLDEN (see run()); after_fn (may be NULL) appends to
 * the text what else the command did (the fake agent's calls).
 */
static void run_golden(const char *golden, const struct smcnl_options *opts, const struct cmd *cmd,
		       void (*after_fn)(FILE *f))
{
	char *argv[ARGS_MAX + 2];
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
	status = smcctl_run(argc, argv, opts, out.f, err.f);
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
		fail_msg("%s: output on stdout despite exit %d", golden, status);
	if (err.len)
		assert_true(err.buf[err.len - 1] == '\n');
	assert_null(strstr(err.buf, "Success"));

	fputs(out.buf, all.f);
	if (err.len)
		fprintf(all.f, "[stderr]\n%s", err.buf);
	fprintf(all.f, "[exit %d]\n", status);
	if (after_fn)
		after_fn(all.f);
	capture_end(&all);
	golden_check(golden, unspell_bus_name(all.buf));
	free(all.buf);
	free(out.buf);
	free(err.buf);
	n_runs++;
}

static void run(const char *lane, const char *step, const char *dir, const struct cmd *cmd)
{
	char golden[512];
	char *sysroot = path_join(dir, "sysroot");
	struct smcnl_options opts = { .replay_dir = dir, .sysroot = sysroot };

	snprintf(golden, sizeof(golden), "%s/%s/%s.txt", lane, step, cmd->name);
	run_golden(golden, &opts, cmd, NULL);
	free(sysroot);
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

/*
 * smcctl auto against a fake smcd-agent: documents written after common/auto-rules.h's
 * auto_workload_json() in tests/fixtures/auto/CASE/ (workloads.json: GetWorkloads();
 * explain.json: Explain() of the workload it names; error: "NAME\nMESSAGE", the D-Bus error
 * every call gets; error-change: the one Freeze() and Forget() get), answered by a child
 * process on a private socket that DBUS_SYSTEM_BUS_ADDRESS names, as a bus would.  Its
 * goldens, in tests/golden/auto/CASE/, end with the calls the agent got.
 */
struct auto_cmd {
	const char *fixture;
	struct cmd cmd;
};

static const struct auto_cmd auto_cmds[] = {
	{ "observe", { "list", { "auto" } } },
	{ "observe", { "list.json", { "-j", "auto" } } },
	{ "observe", { "explain", { "auto", "explain", "redis.service" } } },
	{ "observe", { "explain-cgroup", { "auto", "explain", "/system.slice/redis.service" } } },
	{ "observe", { "explain.json", { "-j", "auto", "explain", "redis.service" } } },
	{ "observe", { "explain-unknown", { "auto", "explain", "nosuch.service" } } },
	{ "observe", { "explain-empty", { "auto", "explain", "" } } },
	{ "observe", { "freeze", { "auto", "freeze", "redis.service" } } },
	{ "observe", { "freeze-unknown", { "auto", "freeze", "/system.slice/nosuch.service" } } },
	{ "observe", { "list-no-legend", { "auto", "--no-legend" } } },
	{ "on", { "list", { "auto" } } },
	{ "on", { "list-show", { "auto", "show" } } },
	{ "on", { "explain", { "auto", "explain", "redis.service" } } },
	{ "on", { "explain-d", { "-d", "auto", "explain", "redis.service" } } },
	{ "on", { "freeze", { "auto", "freeze", "redis.service" } } },
	{ "on", { "freeze.json", { "-j", "auto", "freeze", "redis.service" } } },
	{ "on", { "freeze-frozen", { "auto", "freeze", "worker.service" } } },
	{ "on", { "thaw", { "auto", "thaw", "worker.service" } } },
	{ "on", { "thaw-not-frozen", { "auto", "thaw", "redis.service" } } },
	{ "on", { "forget", { "auto", "forget", "/system.slice/api.service" } } },
	{ "on", { "forget.json", { "-j", "auto", "forget", "api.service" } } },
	{ "empty", { "list", { "auto" } } },
	{ "empty", { "list-no-legend", { "--no-legend", "auto" } } },
	{ "empty", { "explain-unknown", { "auto", "explain", "redis.service" } } },
	{ "broken", { "list", { "auto" } } },
	{ "broken", { "list.json", { "-j", "auto" } } },
	{ "broken", { "freeze", { "auto", "freeze", "redis.service" } } },
	{ "rolled-back", { "list", { "auto" } } },
	{ "rolled-back", { "explain", { "auto", "explain", "memcached.service" } } },
	{ "rolled-back", { "explain-d", { "auto", "explain", "-d", "memcached.service" } } },
	{ "off", { "list", { "auto" } } },
	{ "off", { "list.json", { "-j", "auto" } } },
	{ "off", { "freeze", { "auto", "freeze", "redis.service" } } },
	{ "absent", { "list", { "auto" } } },
	{ "absent", { "thaw", { "auto", "thaw", "redis.service" } } },
	{ "denied", { "freeze", { "auto", "freeze", "redis.service" } } },
	{ "denied", { "forget", { "auto", "forget", "redis.service" } } },
	{ "denied", { "explain-unknown", { "auto", "explain", "nosuch.service" } } },
};

/* What the goldens' SINCE is relative to: 5 minutes after the documents' first stamp. */
#define AUTO_NOW_USEC (1765120000000000ULL + 300ULL * 1000000ULL)

struct fake_agent {
	const char *dir; /* the fixture */
	FILE *log;	 /* the calls, one a line */
};

/* The errors of the fixtures' error files, by the last word of their names (no file spells
 * the agent's names: bus-names.test). */
static const char *const fake_errors[] = {
	SD_BUS_ERROR_SERVICE_UNKNOWN,
	SD_BUS_ERROR_ACCESS_DENIED,
	SMCD_BUS_ERROR_UNAVAILABLE,
	SMCD_BUS_ERROR_NO_SUCH_WORKLOAD,
};

/* The file's error "NAME\nMESSAGE\n" as the reply; 0 when there is no such file. */
static int fake_error(sd_bus_message *m, const char *dir, const char *file)
{
	_cleanup_(freep) char *p = path_join(dir, file);
	_cleanup_(freep) char *text = golden_read_file(p);
	const char *name = NULL;
	char *message, *end;

	if (!text)
		return 0;
	message = strchr(text, '\n');
	assert_non_null(message);
	*message++ = '\0';
	if ((end = strchr(message, '\n')))
		*end = '\0';
	for (size_t i = 0; i < ELEMENTSOF(fake_errors); i++)
		if (streq(strrchr(fake_errors[i], '.') + 1, text))
			name = fake_errors[i];
	if (!name)
		_exit(2); /* a fixture that names no error of the list */
	return sd_bus_reply_method_errorf(m, name, "%s", message) < 0 ? -1 : 1;
}

static int fake_json(sd_bus_message *m, const char *dir, const char *file)
{
	_cleanup_(freep) char *p = path_join(dir, file);
	_cleanup_(freep) char *text = golden_read_file(p);

	if (!text)
		return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_FAILED, "fake agent: no %s", file);
	return sd_bus_reply_method_return(m, "s", text);
}

/* Whether GetWorkloads() lists a workload of this name (the agent's names). */
static bool fake_knows(const char *dir, const char *name, const char *file)
{
	_cleanup_(freep) char *p = path_join(dir, file);
	_cleanup_(freep) char *text = golden_read_file(p);
	json_object *doc = text ? json_tokener_parse(text) : NULL, *rows = NULL, *n = NULL;
	bool found = false;

	if (doc && json_object_object_get_ex(doc, "workloads", &rows))
		for (size_t i = 0; i < json_object_array_length(rows); i++)
			found |= json_object_object_get_ex(json_object_array_get_idx(rows, i),
							   "name", &n) &&
				 streq(json_object_get_string(n), name);
	else if (doc && json_object_object_get_ex(doc, "name", &n))
		found = streq(json_object_get_string(n), name);
	json_object_put(doc);
	return found;
}

static int fake_no_such(sd_bus_message *m, const char *name)
{
	return sd_bus_reply_method_errorf(m, SMCD_BUS_ERROR_NO_SUCH_WORKLOAD,
					  "no workload %s is followed", name);
}

static int fake_call(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
	struct fake_agent *f = userdata;
	const char *member = sd_bus_message_get_member(m), *name = NULL;
	int freeze = 0, r;
	uint8_t type;

	(void)ret_error;
	if (sd_bus_message_get_type(m, &type) < 0 || type != SD_BUS_MESSAGE_METHOD_CALL)
		return 0;
	if (streq_ptr(sd_bus_message_get_interface(m), "org.freedesktop.DBus"))
		return streq_ptr(member, "Hello") ? sd_bus_reply_method_return(m, "s", ":1.42")
						  : sd_bus_reply_method_return(m, NULL);
	if (sd_bus_message_has_signature(m, "s") || sd_bus_message_has_signature(m, "sb"))
		(void)sd_bus_message_read(m, sd_bus_message_get_signature(m, true), &name, &freeze);
	/* The interface's last word: no golden spells the agent's names (bus-names.test). */
	fprintf(f->log, "%s.%s(", strrchr(sd_bus_message_get_interface(m) ?: ".?", '.') + 1, member);
	if (name)
		fprintf(f->log, "\"%s\"", name);
	if (sd_bus_message_has_signature(m, "sb"))
		fprintf(f->log, ", %s", freeze ? "true" : "false");
	fputs(")\n", f->log);
	fflush(f->log);
	if ((r = fake_error(m, f->dir, "error")))
		return r;
	if (!streq_ptr(sd_bus_message_get_interface(m), SMCD_BUS_IFACE_AUTOPILOT))
		return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_UNKNOWN_INTERFACE, "fake agent");
	if (streq_ptr(member, SMCD_BUS_AUTO_GET_WORKLOADS))
		return fake_json(m, f->dir, "workloads.json");
	if (!name)
		return sd_bus_reply_method_errorf(m, SD_BUS_ERROR_INVALID_ARGS, "fake agent");
	if (streq_ptr(member, SMCD_BUS_AUTO_EXPLAIN))
		return fake_knows(f->dir, name, "explain.json")
			       ? fake_json(m, f->dir, "explain.json")
			       : fake_no_such(m, name);
	if ((r = fake_error(m, f->dir, "error-change")))
		return r;
	if (!fake_knows(f->dir, name, "workloads.json"))
		return fake_no_such(m, name);
	return sd_bus_reply_method_return(m, NULL);
}

/* The child: one bus connection after the other (one per smcctl run) until killed. */
_noreturn_ static void fake_agent_serve(int listen_fd, struct fake_agent *f)
{
	for (;;) {
		int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
		sd_bus *b = NULL;
		sd_id128_t id;

		if (fd < 0)
			_exit(1);
		if (sd_id128_randomize(&id) < 0 || sd_bus_new(&b) < 0 ||
		    sd_bus_set_fd(b, fd, fd) < 0 || sd_bus_set_server(b, 1, id) < 0 ||
		    sd_bus_add_filter(b, NULL, fake_call, f) < 0 || sd_bus_start(b) < 0)
			_exit(1);
		for (;;) {
			int r = sd_bus_process(b, NULL);

			if (r < 0)
				break;
			if (r == 0 && sd_bus_wait(b, UINT64_MAX) < 0)
				break;
		}
		sd_bus_flush_close_unref(b);
	}
}

struct fake_run {
	pid_t pid;
	char dir[64]; /* the socket and the log */
};

static void fake_agent_start(struct fake_run *run, const char *fixture_dir)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_(freep) char *log = NULL, *addr = NULL;
	int fd;

	snprintf(run->dir, sizeof(run->dir), "/tmp/smcctl-auto-XXXXXX");
	assert_non_null(mkdtemp(run->dir));
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/bus", run->dir);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 4), 0);
	log = path_join(run->dir, "calls");
	fflush(NULL);
	run->pid = fork();
	assert_true(run->pid >= 0);
	if (run->pid == 0) {
		struct fake_agent f = { .dir = fixture_dir, .log = fopen(log, "a") };

		if (!f.log)
			_exit(1);
		fake_agent_serve(fd, &f);
	}
	close(fd);
	assert_true(asprintf(&addr, "unix:path=%s", sa.sun_path) >= 0);
	setenv("DBUS_SYSTEM_BUS_ADDRESS", addr, 1);
}

static void fake_agent_stop(struct fake_run *run)
{
	_cleanup_(freep) char *bus = path_join(run->dir, "bus");
	_cleanup_(freep) char *log = path_join(run->dir, "calls");
	int status;

	unsetenv("DBUS_SYSTEM_BUS_ADDRESS");
	assert_int_equal(kill(run->pid, SIGTERM), 0);
	assert_int_equal(waitpid(run->pid, &status, 0), run->pid);
	/* Killed as asked, not dead of its own (a fake that failed would skew every golden). */
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	unlink(bus);
	unlink(log);
	rmdir(run->dir);
}

static struct fake_run *auto_run;

/* The calls the fake agent got during the command, then none for the next one. */
static void auto_calls(FILE *f)
{
	_cleanup_(freep) char *log = path_join(auto_run->dir, "calls");
	_cleanup_(freep) char *text = golden_read_file(log);
	FILE *t;

	fputs("[agent]\n", f);
	fputs(text ? text : "", f);
	t = fopen(log, "w");
	assert_non_null(t);
	fclose(t);
}

static void auto_calls_drop(FILE *f)
{
	_cleanup_(freep) char *log = path_join(auto_run->dir, "calls");
	FILE *t = fopen(log, "w");

	(void)f;
	assert_non_null(t);
	fclose(t);
}

static void test_auto(void **state)
{
	const char *tz = getenv("TZ");
	_cleanup_(freep) char *tz_was = tz ? strdup(tz) : NULL;
	_cleanup_(freep) char *top = path_join(golden_top_srcdir(), "tests/fixtures/auto");
	char ago[32];

	(void)state;
	/* The relative times, their edges first. */
	assert_string_equal(auto_fmt_ago(0, AUTO_NOW_USEC, ago, sizeof(ago)), "-");
	assert_string_equal(auto_fmt_ago(AUTO_NOW_USEC + 1, AUTO_NOW_USEC, ago, sizeof(ago)), "now");
	assert_string_equal(auto_fmt_ago(AUTO_NOW_USEC - 59999999, AUTO_NOW_USEC, ago, sizeof(ago)),
			    "59s ago");
	assert_string_equal(auto_fmt_ago(AUTO_NOW_USEC - 60000000, AUTO_NOW_USEC, ago, sizeof(ago)),
			    "1min ago");
	assert_string_equal(
		auto_fmt_ago(AUTO_NOW_USEC - 3660000000ULL, AUTO_NOW_USEC, ago, sizeof(ago)),
		"1h 1min ago");
	assert_string_equal(
		auto_fmt_ago(AUTO_NOW_USEC - 90000000000ULL, AUTO_NOW_USEC, ago, sizeof(ago)),
		"1d 1h ago");

	setenv("TZ", "UTC", 1);
	tzset();
	auto_now_usec = AUTO_NOW_USEC;
	for (size_t i = 0; i < ELEMENTSOF(auto_cmds);) {
		const char *fixture = auto_cmds[i].fixture;
		_cleanup_(freep) char *dir = path_join(top, fixture);
		struct fake_run run;

		fake_agent_start(&run, dir);
		auto_run = &run;
		for (; i < ELEMENTSOF(auto_cmds) && streq(auto_cmds[i].fixture, fixture); i++) {
			char golden[512];

			snprintf(golden, sizeof(golden), "auto/%s/%s.txt", fixture,
				 auto_cmds[i].cmd.name);
			/* A .json.txt is a document for man-coverage.test's jq: the calls
			 * are in the text run's golden. */
			run_golden(golden, NULL, &auto_cmds[i].cmd,
				   strstr(golden, ".json.txt") ? auto_calls_drop : auto_calls);
		}
		auto_run = NULL;
		fake_agent_stop(&run);
	}
	auto_now_usec = 0;
	if (tz_was)
		setenv("TZ", tz_was, 1);
	else
		unsetenv("TZ");
	tzset();
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
		cmocka_unit_test(test_lanes), cmocka_unit_test(test_auto),
		cmocka_unit_test(test_links), /* after test_lanes: it may have rewritten files */
	};

	if (env && *env)
		snprintf(fixtures, sizeof(fixtures), "%s", env);
	else
		snprintf(fixtures, sizeof(fixtures), "%s/tests/fixtures", golden_top_srcdir());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
