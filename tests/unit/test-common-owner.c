// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * common/owner.c: the holders of socket inodes found in a procfs tree, and systemd unit
 * names from cgroup paths.  The tree is built here in a temporary directory with the
 * shapes procfs has (fd symlinks "socket:[N]", dup()ed descriptors, other files, comm and
 * cgroup files of v2 and v1 hosts); the real /proc is read by the VM test
 * (tests/vm/guest/diagnose-7x.sh).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/owner.h"

static char root[] = "/tmp/test-owner-XXXXXX";

static void mkpath(const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

static void put(const char *rel, const char *content)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	assert_non_null(f = fopen(p, "w"));
	fputs(content, f);
	assert_int_equal(fclose(f), 0);
}

static void link_fd(const char *rel, const char *target)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	assert_int_equal(symlink(target, p), 0);
}

static int setup(void **state)
{
	(void)state;
	assert_non_null(mkdtemp(root));
	/* nginx: the socket twice (dup), a file, a socket nobody asked about. */
	mkpath("100");
	mkpath("100/fd");
	link_fd("100/fd/4", "socket:[1001]");
	link_fd("100/fd/3", "socket:[1001]");
	link_fd("100/fd/5", "/dev/null");
	link_fd("100/fd/6", "socket:[9999]");
	link_fd("100/fd/7", "anon_inode:[eventpoll]");
	put("100/comm", "nginx\n");
	put("100/cgroup", "0::/system.slice/nginx.service\n");
	/* A worker sharing the listener, and a socket of its own; a v1 host's cgroup file. */
	mkpath("200");
	mkpath("200/fd");
	link_fd("200/fd/9", "socket:[1001]");
	link_fd("200/fd/8", "socket:[1002]");
	put("200/comm", "a-command-of-16c\n");
	put("200/cgroup", "12:cpu,cpuacct:/x\n"
			  "1:name=systemd:/user.slice/user-1000.slice/user@1000.service/app.slice/"
			  "foo.scope\n");
	/* Another user's process: its fd directory cannot be read (unless we are root). */
	mkpath("300");
	mkpath("300/fd");
	link_fd("300/fd/3", "socket:[1003]");
	put("300/comm", "secret\n");
	char fd300[512];

	snprintf(fd300, sizeof(fd300), "%s/300/fd", root);
	assert_int_equal(chmod(fd300, 0), 0);
	/* A kernel thread: no descriptors; not a process directory; a broken link value. */
	mkpath("2");
	mkpath("2/fd");
	mkpath("self");
	link_fd("self/x", "socket:[1001]");
	mkpath("400");
	mkpath("400/fd");
	link_fd("400/fd/1", "socket:[1001");
	put("400/comm", "broken\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[600];

	(void)state;
	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx %s && rm -rf %s", root, root);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static void test_scan(void **state)
{
	const uint64_t want[] = { 1002, 1001, 1003, 1001, 0, 4242 };
	const struct sock_proc *p;
	struct sock_owners o;

	(void)state;
	assert_int_equal(sock_owners_scan(root, want, sizeof(want) / sizeof(want[0]), &o), 0);
	assert_int_equal(sock_owners_of(&o, 1001, &p), 2);
	assert_int_equal(p[0].pid, 100);
	assert_int_equal(p[0].fd, 3); /* the lowest of its two descriptors */
	assert_string_equal(p[0].comm, "nginx");
	assert_string_equal(p[0].cgroup, "/system.slice/nginx.service");
	assert_int_equal(p[1].pid, 200);
	assert_int_equal(p[1].fd, 9);
	assert_string_equal(p[1].comm, "a-command-of-16c");
	assert_string_equal(p[1].cgroup,
			    "/user.slice/user-1000.slice/user@1000.service/app.slice/foo.scope");
	assert_int_equal(sock_owners_of(&o, 1002, &p), 1);
	assert_int_equal(p[0].pid, 200);
	assert_int_equal(p[0].fd, 8);
	assert_int_equal(sock_owners_of(&o, 4242, &p), 0);
	assert_null(p);
	assert_int_equal(sock_owners_of(&o, 9999, &p), 0); /* not asked for */
	if (geteuid() == 0) {
		assert_int_equal(sock_owners_of(&o, 1003, &p), 1);
		assert_string_equal(p[0].comm, "secret");
		assert_null(p[0].cgroup); /* no cgroup file */
		assert_int_equal(o.unreadable, 0);
		assert_int_equal(o.n, 4);
	} else {
		assert_int_equal(sock_owners_of(&o, 1003, &p), 0);
		assert_int_equal(o.unreadable, 1);
		assert_int_equal(o.n, 3);
	}
	sock_owners_done(&o);
	assert_null(o.procs);
}

static void test_scan_nothing_wanted(void **state)
{
	struct sock_owners o;

	(void)state;
	assert_int_equal(sock_owners_scan(root, NULL, 0, &o), 0);
	assert_int_equal(o.n, 0);
	assert_int_equal(sock_owners_scan("/nonexistent-proc", (uint64_t[]){ 1 }, 1, &o), -ENOENT);
}

static void test_units(void **state)
{
	static const struct {
		const char *cgroup, *unit, *user_unit;
	} cases[] = {
		{ "/system.slice/nginx.service", "nginx.service", "" },
		{ "/system.slice/docker-0123abcd.scope", "docker-0123abcd.scope", "" },
		{ "/system.slice/docker.service/inner", "docker.service", "" },
		{ "/user.slice/user-1000.slice/session-2.scope", "session-2.scope", "" },
		{ "/user.slice/user-1000.slice/user@1000.service/app.slice/foo.scope",
		  "user@1000.service", "foo.scope" },
		{ "/user.slice/user-1000.slice/user@1000.service/init.scope", "user@1000.service",
		  "init.scope" },
		{ "/user.slice/user-1000.slice/user@1000.service", "user@1000.service", "" },
		{ "/init.scope", "init.scope", "" },
		{ "/system.slice/system-getty.slice/getty@tty1.service", "getty@tty1.service", "" },
		{ "/system.slice/_cpu.service", "cpu.service", "" }, /* systemd's escape */
		{ "/smc-on", "", "" },
		{ "/smc-on/child", "", "" },
		{ "/docker/0123abcd", "", "" },
		{ "/machine.slice", "", "" },
		{ "/", "", "" },
		{ "", "", "" },
		{ NULL, "", "" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char unit[64] = "x", user[64] = "x";

		cgroup_units(cases[i].cgroup, unit, sizeof(unit), user, sizeof(user));
		assert_string_equal(unit, cases[i].unit);
		assert_string_equal(user, cases[i].user_unit);
	}
	/* A short buffer truncates, never overruns. */
	char small[6];

	cgroup_units("/system.slice/nginx.service", small, sizeof(small), NULL, 0);
	assert_string_equal(small, "nginx");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scan),
		cmocka_unit_test(test_scan_nothing_wanted),
		cmocka_unit_test(test_units),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
