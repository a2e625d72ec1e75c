// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl socket: its answer streamed as JSON (the JSON sink, no document) is byte for byte
 * what json-c prints for the document of the same sockets (the document sink, socket_json()),
 * compact and indented, for every socket dump recorded in tests/fixtures (every lane and
 * step, with and without the -d infos); and -p, the processes holding the sockets.  The
 * text of every recording is held by the goldens (test-cli-golden), the edges by
 * test-cli-render.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "cli/verbs.h"
#include "common/container-ident.h"
#include "common/output.h"
#include "tests/unit/golden.h"

/* The JSON sink's stream against json-c's print of the document of the same sockets. */
static void check_json(const char *what, const struct smc_socket *s, size_t n)
{
	const struct smc_socket **rows = calloc(n ? n : 1, sizeof(*rows));

	assert_non_null(rows);
	for (size_t i = 0; i < n; i++)
		rows[i] = &s[i];
	for (int pretty = 0; pretty < 2; pretty++) {
		json_object *doc = json_object_new_object(), *arr = json_object_new_array();
		struct capture a, b;
		struct out_sink o;

		assert_int_equal(json_add(doc, "sockets", arr), 0);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(json_append(arr, socket_json(&s[i])), 0);
		capture_begin(&a);
		assert_int_equal(out_json(a.f, doc, pretty), 0);
		capture_end(&a);
		capture_begin(&b);
		out_sink_json(&o, b.f, pretty);
		assert_int_equal(socket_list_emit(&o, rows, n, NULL), 0);
		capture_end(&b);
		if (strcmp(a.buf, b.buf) != 0)
			fail_msg("%s, %s: the JSON differs\n--- json-c:\n%s\n--- streamed:\n%s",
				 what, pretty ? "pretty" : "compact", a.buf, b.buf);
		free(a.buf);
		free(b.buf);
		json_object_put(doc);
	}
	free(rows);
}

/* Every recorded socket dump, with and without the -d infos. */
static void replay_dir(const char *dir)
{
	static const unsigned wants[] = { 0, SMC_DIAG_WANT_CONNINFO | SMC_DIAG_WANT_LGRINFO |
						     SMC_DIAG_WANT_DMBINFO };
	char sysroot[2048];

	assert_true(strlen(dir) < 1800);
	snprintf(sysroot, sizeof(sysroot), "%s/sysroot", dir);
	for (size_t w = 0; w < ELEMENTSOF(wants); w++) {
		struct smcnl_options opts = { .replay_dir = dir, .sysroot = sysroot };
		struct smc_socket *s = NULL;
		struct smcnl *nl = NULL;
		size_t n = 0;
		char what[2048];

		assert_int_equal(smcnl_open(&opts, &nl), 0);
		if (smc_socket_list(nl, wants[w], &s, &n) == 0) {
			snprintf(what, sizeof(what), "%s, want %u", dir, wants[w]);
			check_json(what, s, n);
		}
		free(s);
		smcnl_close(nl);
	}
}

static void test_recorded(void **state)
{
	/* The lanes recorded dozens of steps with sockets: finding none is a broken path. */
	assert_true(golden_each_fixture_step("sock-diag-00.bin", replay_dir) >= 10);
}

/* ---- socket -p: the holders found in a procfs tree (here under the sysroot) ---- */

static char proc_root[] = "/tmp/test-socket-p-XXXXXX";

static void mk(const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", proc_root, rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

static void fd_link(const char *rel, const char *target)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", proc_root, rel);
	assert_int_equal(symlink(target, p), 0);
}

/* smcctl ARGS replayed from the recording in dir with this sysroot. */
static char *run_p_in(const char *dir, const char *sysroot, int want_status, const char *const *args)
{
	struct smcnl_options opts = { .sysroot = sysroot, .replay_dir = dir };
	struct capture out, err;
	char *argv[16];
	int argc = 0, status;

	argv[argc++] = (char *)"smcctl";
	for (size_t i = 0; args[i]; i++)
		argv[argc++] = (char *)args[i];
	argv[argc] = NULL;
	capture_begin(&out);
	capture_begin(&err);
	status = smcctl_run(argc, argv, &opts, out.f, err.f);
	capture_end(&out);
	capture_end(&err);
	if (status != want_status)
		fail_msg("smcctl %s: exit %d, not %d: %s", args[0], status, want_status, err.buf);
	free(err.buf);
	return out.buf;
}

/* smcctl ARGS replayed from the 7x loopback recording, with proc_root as the sysroot. */
static char *run_p(const char *sysroot, int want_status, const char *const *args)
{
	_cleanup_(freep) char *dir = NULL;

	assert_true(asprintf(&dir, "%s/tests/fixtures/7x/loopback", golden_top_srcdir()) > 0);
	return run_p_in(dir, sysroot, want_status, args);
}

#define RUN_P(status, ...) run_p(proc_root, status, (const char *const[]){ __VA_ARGS__, NULL })

static void rm_tree(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * The recording's sockets: 1168 and 1169 (a loopback pair) and others.  smc-conn holds
 * the pair, a worker shares 1168, nobody holds the others.
 */
static void test_processes(void **state)
{
	json_object *doc, *socks, *procs, *p;
	unsigned held = 0;
	char *t;

	(void)state;
	assert_non_null(mkdtemp(proc_root));
	mk("proc");
	mk("proc/500");
	mk("proc/500/fd");
	fd_link("proc/500/fd/7", "socket:[1168]");
	fd_link("proc/500/fd/8", "socket:[1169]");
	test_write_file(proc_root, "proc/500/comm", "smc-conn\n");
	test_write_file(proc_root, "proc/500/cgroup", "0::/smcd-test.slice/conn-app.service\n");
	mk("proc/600");
	mk("proc/600/fd");
	fd_link("proc/600/fd/3", "socket:[1168]");
	test_write_file(proc_root, "proc/600/comm", "worker\n");
	test_write_file(proc_root, "proc/600/cgroup",
			"0::/user.slice/user-1000.slice/user@1000.service/app.slice/w.scope\n");

	/* text: the two columns, "+1" for the second holder, nothing for an orphan */
	t = RUN_P(0, "socket", "-p");
	assert_non_null(strstr(t, "Process"));
	assert_non_null(strstr(t, "Unit"));
	assert_non_null(strstr(t, "smc-conn/500+1  conn-app.service"));
	assert_non_null(strstr(t, "smc-conn/500    conn-app.service"));
	assert_null(strstr(t, "could not be inspected"));
	free(t);

	/* -j: every holder, its unit and user unit; an orphan has an empty list */
	t = RUN_P(0, "-j", "socket", "--processes");
	assert_non_null(doc = json_tokener_parse(t));
	socks = out_get(doc, "sockets");
	for (size_t i = 0; i < json_object_array_length(socks); i++) {
		json_object *s = json_object_array_get_idx(socks, i);
		uint64_t inode = out_get_u64(s, "inode", 0);

		procs = out_get(s, "processes");
		assert_non_null(procs);
		if (inode != 1168 && inode != 1169) {
			assert_int_equal(json_object_array_length(procs), 0);
			continue;
		}
		held++;
		assert_int_equal(json_object_array_length(procs), inode == 1168 ? 2 : 1);
		p = json_object_array_get_idx(procs, 0);
		assert_int_equal(out_get_u64(p, "pid", 0), 500);
		assert_string_equal(out_get_str(p, "command", ""), "smc-conn");
		assert_int_equal(out_get_u64(p, "fd", 0), inode == 1168 ? 7 : 8);
		assert_string_equal(out_get_str(p, "unit", ""), "conn-app.service");
		assert_null(out_get_str(p, "user_unit", NULL));
		if (inode == 1168) {
			p = json_object_array_get_idx(procs, 1);
			assert_int_equal(out_get_u64(p, "pid", 0), 600);
			assert_string_equal(out_get_str(p, "unit", ""), "user@1000.service");
			assert_string_equal(out_get_str(p, "user_unit", ""), "w.scope");
		}
	}
	assert_int_equal(held, 2);
	assert_int_equal(out_get_u64(out_get(doc, "process_scan"), "unreadable", 1), 0);
	json_object_put(doc);
	free(t);

	/* -p has one meaning, --processes (cli/table.c): before the object it is none, pretty
	 * JSON is --pretty (--json=pretty) before the object or after the verb */
	t = RUN_P(SMCCTL_EXIT_USAGE, "-p", "socket");
	assert_string_equal(t, "");
	free(t);
	t = RUN_P(0, "--pretty", "socket");
	assert_non_null(strstr(t, "{\n"));
	assert_null(strstr(t, "\"processes\""));
	free(t);
	t = RUN_P(0, "socket", "--pretty", "-p");
	assert_non_null(strstr(t, "{\n"));
	assert_non_null(strstr(t, "\"processes\""));
	free(t);
	t = RUN_P(0, "socket");
	assert_null(strstr(t, "Process"));
	free(t);
	rm_tree(proc_root);
}

/*
 * A holder's command and cgroup are its owner's choice (issue 35): an escape sequence and a
 * byte that is not UTF-8 reach neither the terminal nor the JSON raw, but as \xNN.
 */
static void test_processes_hostile_names(void **state)
{
	char *t;

	(void)state;
	/* proc_root's template was used by test_processes: a new one */
	snprintf(proc_root, sizeof(proc_root), "/tmp/test-socket-p-XXXXXX");
	assert_non_null(mkdtemp(proc_root));
	mk("proc");
	mk("proc/700");
	mk("proc/700/fd");
	fd_link("proc/700/fd/4", "socket:[1168]");
	test_write_file(proc_root, "proc/700/comm", "\033[31mX\377\n");
	test_write_file(proc_root, "proc/700/cgroup", "0::/evil\033]0;t\007.slice/x\xfe.service\n");
	for (int json = 0; json < 2; json++) {
		t = json ? RUN_P(0, "-j", "socket", "-p", "-d") : RUN_P(0, "socket", "-p", "-dd");
		for (const unsigned char *p = (const unsigned char *)t; *p; p++)
			if (*p == 0x1b || *p == 0x07 || *p == 0xff || *p == 0xfe)
				fail_msg("raw byte 0x%02x in smcctl socket -p's output:\n%s", *p, t);
		assert_non_null(strstr(t, json ? "\"command\":\"\\\\x1b[31mX\\\\xff\""
					       : "\\x1b[31mX\\xff/700"));
		if (json)
			assert_non_null(strstr(t, "\"unit\":\"x\\\\xfe.service\""));
		free(t);
	}
	rm_tree(proc_root);
}

/*
 * A holder in a container: named by its runtime and name in the Unit column, and the
 * "container" object in JSON, from the runtimes' state under the sysroot
 * (tests/fixtures/containers/host); a container whose state is not there keeps its
 * scope, and a process outside containers has "container": null.
 */
#define SRV_ID "e13652de5c3a1c8d631ef02ff574212a799a02b0afaf52be45475c03ca804ae7"
#define POD_ID "5ea618a82d38c4b9d0322273f1b4b26ef5e41c032bad80686923e4a7b3fc8a57"
#define POD_CTR "e627998cc6c698997f889c5ed37546d8fcf19e42486745cb868fe27ea990600c"
#define DOCKER_ID "c0639fb49cbfeb1fa04b8efde41fed84ea95a094707fa902294079057c9b889c"
#define CRIO_CTR "4c2e8a1f3b5d7c9e0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b8c0d2e4f"
/* CRI-O's container whose name and image hold control bytes */
#define CRIO_HOSTILE "d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4"
#define KUBEPODS_POD                                    \
	"0::/kubepods.slice/kubepods-besteffort.slice/" \
	"kubepods-besteffort-pod3f2b8c1e_7a4d_4e9b_a1c2_5d6e7f8a9b0c.slice/"

static json_object *first_proc(json_object *doc, uint64_t inode)
{
	json_object *socks = out_get(doc, "sockets");

	for (size_t i = 0; i < json_object_array_length(socks); i++) {
		json_object *s = json_object_array_get_idx(socks, i);

		if (out_get_u64(s, "inode", 0) == inode)
			return json_object_array_get_idx(out_get(s, "processes"), 0);
	}
	fail_msg("no socket %" PRIu64, inode);
	return NULL;
}

static void test_processes_container(void **state)
{
	json_object *doc, *c;
	char cmd[1200];
	char *t;

	(void)state;
	snprintf(proc_root, sizeof(proc_root), "/tmp/test-socket-p-XXXXXX");
	assert_non_null(mkdtemp(proc_root));
	snprintf(cmd, sizeof(cmd),
		 "cp -R '%s/tests/fixtures/containers/host/.' '%s' && chmod -R go-w '%s'",
		 golden_top_srcdir(), proc_root, proc_root);
	assert_int_equal(system(cmd), 0);
	mk("proc");
	mk("proc/800");
	mk("proc/800/fd");
	fd_link("proc/800/fd/5", "socket:[1168]");
	test_write_file(proc_root, "proc/800/comm", "smc-conn\n");
	test_write_file(proc_root, "proc/800/cgroup", "0::/machine.slice/libpod-" SRV_ID ".scope\n");
	mk("proc/900");
	mk("proc/900/fd");
	fd_link("proc/900/fd/6", "socket:[1169]");
	test_write_file(proc_root, "proc/900/comm", "smc-conn\n");
	test_write_file(proc_root, "proc/900/cgroup",
			"0::/machine.slice/machine-libpod_pod_" POD_ID ".slice/libpod-" POD_CTR
			".scope\n");

	t = RUN_P(0, "socket", "-p");
	assert_non_null(strstr(t, "smc-conn/800  podman:smc-srv\n"));
	assert_non_null(strstr(t, "smc-conn/900  podman:web-pod-app\n"));
	assert_null(strstr(t, "libpod-"));
	free(t);

	t = RUN_P(0, "-j", "socket", "-p");
	assert_non_null(doc = json_tokener_parse(t));
	c = out_get(first_proc(doc, 1168), "container");
	assert_non_null(c);
	assert_string_equal(out_get_str(c, "name", ""), "smc-srv");
	assert_string_equal(out_get_str(c, "id", ""), "e13652de5c3a");
	assert_string_equal(out_get_str(c, "image", ""), "localhost/smc-conn:latest");
	assert_null(out_get_str(c, "pod", NULL));
	assert_string_equal(out_get_str(c, "runtime", ""), "podman");
	/* the unit is still the scope's name: one word for one thing */
	assert_string_equal(out_get_str(first_proc(doc, 1168), "unit", ""),
			    "libpod-" SRV_ID ".scope");
	c = out_get(first_proc(doc, 1169), "container");
	assert_string_equal(out_get_str(c, "pod", ""), "5ea618a82d38");
	json_object_put(doc);
	free(t);

	/* docker's scope under its slice; a docker id whose state is not there keeps its scope */
	test_write_file(proc_root, "proc/800/cgroup",
			"0::/docker.slice/docker-" DOCKER_ID ".scope\n");
	test_write_file(proc_root, "proc/900/cgroup", "0::/system.slice/docker-" POD_CTR ".scope\n");
	t = RUN_P(0, "socket", "-p");
	assert_non_null(strstr(t, "smc-conn/800  docker:smc-srv\n"));
	assert_non_null(strstr(t, "smc-conn/900  docker-" POD_CTR ".scope\n"));
	free(t);
	t = RUN_P(0, "-j", "socket", "-p");
	assert_non_null(doc = json_tokener_parse(t));
	c = out_get(first_proc(doc, 1168), "container");
	assert_string_equal(out_get_str(c, "runtime", ""), "docker");
	assert_string_equal(out_get_str(c, "image", ""), "smc-conn");
	assert_true(json_object_is_type(out_get(first_proc(doc, 1169), "container"), json_type_null));
	assert_non_null(strstr(t, "\"container\":null"));
	json_object_put(doc);
	free(t);

	/* CRI-O: the Kubernetes container's name, its pod's name; hostile names sanitised */
	test_write_file(proc_root, "proc/800/cgroup", KUBEPODS_POD "crio-" CRIO_CTR ".scope\n");
	test_write_file(proc_root, "proc/900/cgroup", KUBEPODS_POD "crio-" CRIO_HOSTILE ".scope\n");
	t = RUN_P(0, "socket", "-p");
	assert_non_null(strstr(t, "smc-conn/800  cri-o:nginx\n"));
	assert_non_null(strstr(t, "smc-conn/900  cri-o:evil"));
	assert_null(strchr(t, '\x1b'));
	assert_null(strstr(t, "evil\n"));
	free(t);
	t = RUN_P(0, "-j", "socket", "-p");
	assert_non_null(doc = json_tokener_parse(t));
	c = out_get(first_proc(doc, 1168), "container");
	assert_string_equal(out_get_str(c, "runtime", ""), "cri-o");
	assert_string_equal(out_get_str(c, "name", ""), "nginx");
	assert_string_equal(out_get_str(c, "pod", ""), "web-7d9f8");
	assert_string_equal(out_get_str(c, "image", ""), "docker.io/library/nginx:1.25");
	assert_string_equal(out_get_str(c, "id", ""), "4c2e8a1f3b5d");
	c = out_get(first_proc(doc, 1169), "container");
	assert_string_equal(out_get_str(c, "runtime", ""), "cri-o");
	assert_null(strchr(out_get_str(c, "name", ""), '\x1b'));
	assert_null(strchr(out_get_str(c, "image", ""), '\t'));
	assert_true(strlen(out_get_str(c, "pod", "")) < CONTAINER_NAME_LEN);
	assert_true(strncmp(out_get_str(c, "pod", ""), "ppp", 3) == 0);
	json_object_put(doc);
	free(t);
	rm_tree(proc_root);
}

/* A procfs that cannot be read is an error that says so, never "no processes". */
static void test_processes_no_proc(void **state)
{
	char empty[] = "/tmp/test-socket-p-XXXXXX", *t;

	(void)state;
	assert_non_null(mkdtemp(empty)); /* a sysroot without proc/ */
	t = run_p(empty, 1, (const char *const[]){ "socket", "-p", NULL });
	assert_string_equal(t, "");
	free(t);
	rm_tree(empty);
}

/* smcctl ARGS replayed from a recording of the 7x lane (no sysroot of its own). */
static char *run_step(const char *step, const char *const *args)
{
	_cleanup_(freep) char *dir = NULL, *sysroot = NULL;

	assert_true(asprintf(&dir, "%s/tests/fixtures/7x/%s", golden_top_srcdir(), step) > 0);
	assert_true(asprintf(&sysroot, "%s/sysroot", dir) > 0);
	return run_p_in(dir, sysroot, 0, args);
}

/*
 * --no-legend (global, as systemctl's): the table's rows alone, no header line, no fallback
 * reasons below; the same rows as without it.  Anywhere on the line; JSON is unchanged.
 */
static void test_no_legend(void **state)
{
	char *full, *bare, *rows, *j1, *j2;

	(void)state;
	full = run_step("fallback", (const char *const[]){ "socket", "-a", NULL });
	bare = run_step("fallback", (const char *const[]){ "--no-legend", "socket", "-a", NULL });
	assert_non_null(strstr(full, "Fallback reasons:"));
	assert_null(strstr(bare, "Fallback reasons:"));
	assert_null(strstr(bare, "Local-Address"));
	assert_non_null(strstr(bare, "NOUEID"));
	/* the header line and everything from the blank line on are what is left out */
	rows = strchr(full, '\n') + 1;
	*strstr(rows, "\n\n") = '\0';
	assert_int_equal(strlen(bare), strlen(rows) + 1);
	assert_memory_equal(bare, rows, strlen(rows));
	free(bare);
	bare = run_step("fallback", (const char *const[]){ "socket", "-a", "--no-legend", NULL });
	assert_null(strstr(bare, "Local-Address"));
	free(bare);
	free(full);
	/* a table drawn from a document goes the same way: sysctl's, less its header line */
	bare = run_step("fallback", (const char *const[]){ "--no-legend", "sysctl", NULL });
	full = run_step("fallback", (const char *const[]){ "sysctl", NULL });
	assert_true(strncmp(full, "Name ", 5) == 0);
	assert_string_equal(bare, strchr(full, '\n') + 1);
	free(bare);
	free(full);
	j1 = run_step("fallback", (const char *const[]){ "-j", "socket", "-a", NULL });
	j2 = run_step("fallback", (const char *const[]){ "-j", "--no-legend", "socket", "-a", NULL });
	assert_string_equal(j1, j2);
	free(j1);
	free(j2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recorded),
		cmocka_unit_test(test_processes),
		cmocka_unit_test(test_processes_hostile_names),
		cmocka_unit_test(test_processes_container),
		cmocka_unit_test(test_processes_no_proc),
		cmocka_unit_test(test_no_legend),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
