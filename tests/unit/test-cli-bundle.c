// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl support-bundle: the scrubbing (every form of the machine ID becomes the UEID), the
 * search for network namespaces (over a procfs tree of the test's own), and the stop when
 * smcctl cannot return to its own network namespace (setns() wrapped: -Wl,--wrap=setns).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli/bundle.h"

#define ID "0123456789abcdef0123456789abcdef"
#define UEID "<machine-id>"

static void check(const char *in, const char *want, size_t want_n)
{
	size_t len, n;
	char *out = bundle_scrub(in, strlen(in), ID, UEID, &len, &n);

	assert_non_null(out);
	assert_string_equal(out, want);
	assert_int_equal(len, strlen(want));
	assert_int_equal(n, want_n);
	free(out);
}

static void test_forms(void **state)
{
	(void)state;
	check("", "", 0);
	check("nothing here", "nothing here", 0);
	check(ID, UEID, 1);
	check("id=" ID "\n", "id=" UEID "\n", 1);
	check("0123456789ABCDEF0123456789ABCDEF", UEID, 1);
	check("0123456789AbCdEf0123456789aBcDeF", UEID, 1);
	check("01234567-89ab-cdef-0123-456789abcdef", UEID, 1);
	check("{" ID "," ID "}", "{" UEID "," UEID "}", 2);
	/* the seed's UEID (27 digits: bundle_scrub_word's) and near misses stay */
	check("MID-0123456789ABCDEF0123456789A", "MID-0123456789ABCDEF0123456789A", 0);
	check("0123456789abcdef0123456789abcdee", "0123456789abcdef0123456789abcdee", 0);
	check("0123456789abcdef0123456789abcde", "0123456789abcdef0123456789abcde", 0);
	check("01234567-89abcdef-0123-456789abcdef", "01234567-89abcdef-0123-456789abcdef", 0);
	/* overlapping candidates: the first full match wins, the rest is kept */
	check("0" ID, "0" UEID, 1);
}

static void check_word(const char *in, const char *word, const char *by, const char *want,
		       size_t want_n)
{
	size_t len, n;
	char *out = bundle_scrub_word(in, strlen(in), word, by, &len, &n);

	assert_non_null(out);
	assert_string_equal(out, want);
	assert_int_equal(len, strlen(want));
	assert_int_equal(n, want_n);
	free(out);
}

/* The derived UEIDs: in any case, every occurrence, nothing else. */
static void test_words(void **state)
{
	const char *mid = "MID-0123456789ABCDEF0123456789A", *by = "<ueid:machine-id>";

	(void)state;
	check_word("", mid, by, "", 0);
	check_word(mid, mid, by, by, 1);
	check_word("ueid:MID-0123456789ABCDEF0123456789A: removed", mid, by,
		   "ueid:<ueid:machine-id>: removed", 1);
	check_word("mid-0123456789abcdef0123456789a", mid, by, by, 1);
	check_word("MID-0123456789ABCDEF0123456789AB", mid, by, "<ueid:machine-id>B", 1);
	check_word("[\"MID-0123456789ABCDEF0123456789A\",\"MID-0123456789ABCDEF0123456789A\"]", mid,
		   by, "[\"<ueid:machine-id>\",\"<ueid:machine-id>\"]", 2);
	/* near misses and prefixes stay */
	check_word("MID-0123456789ABCDEF0123456789", mid, by, "MID-0123456789ABCDEF0123456789", 0);
	check_word("MID-0123456789ABCDEF0123456789B", mid, by, "MID-0123456789ABCDEF0123456789B", 0);
	check_word("MMID-0123456789ABCDEF0123456789A", mid, by, "M<ueid:machine-id>", 1);
}

/* NUL bytes in a word's place do not match it, nor stop the scan. */
static void test_words_binary(void **state)
{
	static const char in[] = "MID-0\0MID-0123456789ABCDEF0123456789A\0";
	size_t len, n;
	char *out = bundle_scrub_word(in, sizeof(in) - 1, "MID-0123456789ABCDEF0123456789A",
				      "<ueid:machine-id>", &len, &n);

	(void)state;
	assert_non_null(out);
	assert_int_equal(n, 1);
	assert_int_equal(len, 6 + strlen("<ueid:machine-id>") + 1);
	assert_memory_equal(out, "MID-0\0<ueid:machine-id>\0", len);
	free(out);
}

/* NUL bytes in the input (a binary journal field) do not stop the scan. */
static void test_binary(void **state)
{
	static const char in[] = "a\0" ID "\0b";
	size_t len, n;
	char *out = bundle_scrub(in, sizeof(in) - 1, ID, UEID, &len, &n);

	(void)state;
	assert_non_null(out);
	assert_int_equal(n, 1);
	assert_int_equal(len, 2 + strlen(UEID) + 2);
	assert_memory_equal(out, "a\0" UEID "\0b", len);
	free(out);
}

/* ---- the network namespaces ------------------------------------------------------- */

static char tree[64];

static void mkfile(const char *rel)
{
	char p[256];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", tree, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
}

static void mkdirs(const char *rel)
{
	char p[256], cmd[300];

	snprintf(p, sizeof(p), "%s/%s", tree, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", p);
	assert_int_equal(system(cmd), 0);
}

/* PROC/PID/ns/net -> the namespace file NS (ns/NAME), as the kernel's magic link resolves. */
static void proc_ns(const char *pid, const char *ns)
{
	char dir[128], link[256], target[256];

	snprintf(dir, sizeof(dir), "proc/%s/ns", pid);
	mkdirs(dir);
	snprintf(link, sizeof(link), "%s/%s/net", tree, dir);
	snprintf(target, sizeof(target), "%s/ns/%s", tree, ns);
	assert_int_equal(symlink(target, link), 0);
}

/* RUN/NAME: a bind mount of the namespace, here a hard link to its file. */
static void run_name(const char *name, const char *ns)
{
	char from[256], to[256];

	snprintf(from, sizeof(from), "%s/ns/%s", tree, ns);
	snprintf(to, sizeof(to), "%s/run/%s", tree, name);
	assert_int_equal(link(from, to), 0);
}

static ino_t ino_of(const char *ns)
{
	char p[256];
	struct stat st;

	snprintf(p, sizeof(p), "%s/ns/%s", tree, ns);
	assert_int_equal(stat(p, &st), 0);
	return st.st_ino;
}

static void test_netns_scan(void **state)
{
	struct bundle_netns_list l = {};
	char proc[128], run[128], cmd[128];
	const struct bundle_netns *b, *self;

	(void)state;
	snprintf(tree, sizeof(tree), "/tmp/test-cli-bundle.XXXXXX");
	assert_non_null(mkdtemp(tree));
	mkdirs("ns");
	mkdirs("run/not-a-namespace");
	mkdirs("proc/40");	/* a zombie: no ns/ */
	mkdirs("proc/sys/net"); /* not a pid */
	mkfile("ns/A");
	mkfile("ns/B");
	mkfile("ns/C");
	mkfile("ns/D");
	proc_ns("self", "A");
	proc_ns("1", "A");
	proc_ns("20", "B");
	proc_ns("7", "B");
	proc_ns("300", "C");
	run_name("web", "C");
	run_name("other-name", "C"); /* a second name: known by the first, sorted */
	run_name("alpha", "D");	     /* no process in it */
	snprintf(proc, sizeof(proc), "%s/proc", tree);
	snprintf(run, sizeof(run), "%s/run", tree);

	assert_int_equal(bundle_netns_scan(proc, run, &l), 0);
	assert_int_equal(l.n, 4);
	assert_int_equal(l.unreadable, 0);
	assert_int_equal(l.run_netns_errno, 0);
	/* named first, by name */
	assert_string_equal(l.ns[0].name, "alpha");
	assert_int_equal(l.ns[0].ino, ino_of("D"));
	assert_int_equal(l.ns[0].n_pids, 0);
	assert_int_equal(l.ns[0].n_names, 1);
	assert_string_equal(l.ns[1].name, "other-name");
	assert_int_equal(l.ns[1].ino, ino_of("C"));
	assert_int_equal(l.ns[1].n_names, 2);
	assert_int_equal(l.ns[1].n_pids, 1);
	assert_int_equal(l.ns[1].pids[0], 300);
	assert_false(l.ns[1].self);
	/* then the unnamed ones, by inode: A (smcctl's own) and B, each once */
	self = ino_of("A") < ino_of("B") ? &l.ns[2] : &l.ns[3];
	b = self == &l.ns[2] ? &l.ns[3] : &l.ns[2];
	assert_true(l.ns[2].ino < l.ns[3].ino);
	assert_string_equal(self->name, "");
	assert_true(self->self);
	assert_int_equal(self->n_pids, 1);
	assert_int_equal(self->pids[0], 1);
	assert_string_equal(b->name, "");
	assert_false(b->self);
	assert_int_equal(b->ino, ino_of("B"));
	assert_int_equal(b->n_pids, 2);
	assert_int_equal(b->pids[0], 7); /* ascending */
	assert_int_equal(b->pids[1], 20);
	bundle_netns_list_done(&l);
	assert_int_equal(l.n, 0);

	/* No RUN directory: no name, and no error either. */
	snprintf(run, sizeof(run), "%s/no-such-dir", tree);
	assert_int_equal(bundle_netns_scan(proc, run, &l), 0);
	assert_int_equal(l.n, 3);
	assert_int_equal(l.run_netns_errno, 0);
	bundle_netns_list_done(&l);
	/* No PROC: an error, never "no namespaces". */
	snprintf(proc, sizeof(proc), "%s/no-proc", tree);
	assert_int_equal(bundle_netns_scan(proc, run, &l), -ENOENT);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
	assert_int_equal(system(cmd), 0);
}

/*
 * setns() as the test wants it: entering passes through, returning to the namespace the
 * test started in fails with fail_return's errno (0: passes too).
 */
int __real_setns(int fd, int nstype);
int __wrap_setns(int fd, int nstype);

static struct stat home_ns;
static int fail_return;
static unsigned entered;

int __wrap_setns(int fd, int nstype)
{
	struct stat st;

	if (fail_return && fstat(fd, &st) == 0 && st.st_dev == home_ns.st_dev &&
	    st.st_ino == home_ns.st_ino) {
		errno = fail_return;
		return -1;
	}
	entered++;
	return __real_setns(fd, nstype);
}

/* A bundle that cannot get back home stops, says why, and writes nothing. */
static void test_netns_no_return(void **state)
{
	char dir[64], file[128], err[4096] = "", cmd[128];
	int ready[2], status;
	FILE *out, *errf;
	pid_t child;
	char c;

	(void)state;
	if (geteuid() != 0)
		skip(); /* entering another network namespace needs CAP_SYS_ADMIN */
	assert_int_equal(stat("/proc/self/ns/net", &home_ns), 0);
	assert_int_equal(pipe(ready), 0);
	/* A process in an unnamed network namespace of its own, as a container's. */
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		c = unshare(CLONE_NEWNET) == 0 ? 'y' : 'n';
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	assert_int_equal(read(ready[0], &c, 1), 1);
	if (c != 'y') {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		skip(); /* no new network namespace here (a container without CAP_SYS_ADMIN) */
	}
	snprintf(dir, sizeof(dir), "/tmp/test-cli-bundle.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/b.tar.gz", dir);
	setenv("TMPDIR", dir, 1);
	/* Nobody answers there: no agent, whatever the host runs. */
	setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/bus", 1);
	fail_return = EPERM;
	out = fopen("/dev/null", "w");
	errf = fmemopen(err, sizeof(err) - 1, "w");
	assert_non_null(out);
	assert_non_null(errf);
	status = smcctl_run(4, (char *[]){ "smcctl", "support-bundle", "-o", file, NULL }, NULL,
			    out, errf);
	fclose(out);
	fclose(errf);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	print_message("# %s", err);
	assert_true(entered >= 1);
	assert_int_equal(status, 1);
	assert_non_null(strstr(err, "smcctl: cannot write the bundle to "));
	/* After the first namespace it entered: the unnamed one of this test, or one that a
	 * test running beside it named in /run/netns (support-bundle.test's smcbundle-PID). */
	assert_non_null(strstr(err, ": cannot return to smcctl's own network namespace after "
				    "visiting "));
	assert_non_null(strstr(err, "Operation not permitted (nothing more was collected)"));
	/* Neither the bundle, nor its temporary file, nor the staging directory is left. */
	snprintf(cmd, sizeof(cmd), "rmdir '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_binary),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_words_binary),
		cmocka_unit_test(test_netns_scan),
		/* Last: it leaves the test process in the other network namespace. */
		cmocka_unit_test(test_netns_no_return),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
