// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl oci-hook (cli/oci-hook.c): the OCI state and config.json as the hook reads them
 * (the bundles of tests/fixtures/oci/), the checks against the running system (the host's
 * network namespace, the process's cgroup), and the verbs run whole with a state on stdin:
 * not annotated, nothing said; refused with the reason; no agent, no bus, or a bus that
 * never answers: exit 0 all the same, and the reason said.  No agent is reached here: the
 * system bus is pointed at a path that does not exist or at a socket that never answers.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/oci-hook.h"
#include "cli/smcctl.h"
#include "common/macro.h"
#include "tests/unit/golden.h"

#define ID "3f1c9a0e5b7d4c2a8e6f0b1d2c3e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4"

static char *bundle(const char *name)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/tests/fixtures/oci/%s", golden_top_srcdir(), name);
	if (path[0] != '/') {
		char cwd[PATH_MAX / 2];

		assert_non_null(getcwd(cwd, sizeof(cwd)));
		snprintf(path, sizeof(path), "%s/tests/fixtures/oci/%s", cwd, name);
	}
	return path;
}

/* The state podman's runtime writes at createRuntime, for the bundle NAME. */
static char *state_of(const char *name, long pid, bool annotated)
{
	char *s = NULL;

	assert_true(asprintf(&s,
			     "{\"ociVersion\": \"1.0.2-dev\", \"id\": \"" ID
			     "\", \"status\": \"creating\", "
			     "\"pid\": %ld, \"bundle\": \"%s\", \"annotations\": {%s}}",
			     pid, bundle(name),
			     annotated ? "\"org.smcd.smc\": \"true\""
				       : "\"io.container.manager\": \"libpod\"") >= 0);
	return s;
}

static char *config_of(const char *name)
{
	char path[PATH_MAX + 16], *text;

	snprintf(path, sizeof(path), "%s/config.json", bundle(name));
	text = golden_read_file(path);
	assert_non_null(text);
	return text;
}

/* ---- parsing ---------------------------------------------------------------------------- */

static void test_state(void **state)
{
	struct oci_container c;
	const char *why;
	char *s = state_of("bridge", 4242, true);

	assert_int_equal(oci_state_parse(s, &c, &why), 0);
	assert_string_equal(c.id, ID);
	assert_int_equal(c.pid, 4242);
	assert_string_equal(c.bundle, bundle("bridge"));
	assert_true(c.opted_in);
	free(s);

	/* poststop: no pid; another value of the annotation is no opt-in */
	assert_int_equal(oci_state_parse("{\"id\": \"abc\", \"bundle\": \"/b\", \"status\": \"stopped\", "
					 "\"annotations\": {\"org.smcd.smc\": \"yes\"}}",
					 &c, &why),
			 0);
	assert_int_equal(c.pid, 0);
	assert_false(c.opted_in);

	for (const char *const *bad =
		     (const char *const[]){ "", "[]", "{\"id\": \"a\"}", "{\"bundle\": \"/b\"}",
					    "{\"id\": \"a/b\", \"bundle\": \"/b\"}",
					    "{\"id\": \"a b\", \"bundle\": \"/b\"}",
					    "{\"id\": \"a\", \"bundle\": \"b\"}",
					    "{\"id\": 7, \"bundle\": \"/b\"}", NULL };
	     *bad; bad++) {
		why = NULL;
		if (oci_state_parse(*bad, &c, &why) != -EINVAL || !why)
			fail_msg("state '%s' was taken", *bad);
	}
}

struct config_case {
	const char *bundle;
	int ret;
	const char *unit, *cgroup; /* on success */
	enum oci_netns netns;
	const char *why; /* a piece of the refusal */
};

static void test_config(void **state)
{
	static const struct config_case cases[] = {
		{ "bridge", 0, "libpod-" ID ".scope", "/machine.slice/libpod-" ID ".scope",
		  OCI_NETNS_PATH, NULL },
		{ "plain", 0, "libpod-" ID ".scope", "/machine.slice/libpod-" ID ".scope",
		  OCI_NETNS_OWN, NULL },
		{ "host", 0, "libpod-" ID ".scope", "/machine.slice/libpod-" ID ".scope",
		  OCI_NETNS_HOST, NULL },
		/* a pod's slice nests as systemd nests slices */
		{ "pod", 0, "libpod-" ID ".scope",
		  "/machine.slice/machine-libpod_pod_5b2e.slice/libpod-" ID ".scope",
		  OCI_NETNS_PATH, NULL },
		{ "docker", 0, "docker-" ID ".scope", "/docker.slice/docker-" ID ".scope",
		  OCI_NETNS_PATH, NULL },
		{ "cgroupfs", -EINVAL, NULL, NULL, 0, "not in systemd's form SLICE:PREFIX:NAME" },
		{ "other-scope", -EINVAL, NULL, NULL, 0, "does not name the container's own scope" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct config_case *k = &cases[i];
		char *s = state_of(k->bundle, 0, false), *cfg = config_of(k->bundle), why[512] = "";
		struct oci_container c;
		const char *bad;
		int r;

		assert_int_equal(oci_state_parse(s, &c, &bad), 0);
		assert_false(c.opted_in);
		r = oci_config_parse(cfg, &c, why, sizeof(why));
		if (r != k->ret)
			fail_msg("%s: %d (%s), expected %d", k->bundle, r, why, k->ret);
		if (r < 0 && !strstr(why, k->why))
			fail_msg("%s: refused with \"%s\", expected \"%s\"", k->bundle, why, k->why);
		if (r == 0) {
			assert_string_equal(c.unit, k->unit);
			assert_string_equal(c.cgroup, k->cgroup);
			assert_int_equal(c.netns, k->netns);
			/* the annotation of config.json counts when the state has none */
			assert_int_equal(c.opted_in, !streq(k->bundle, "plain"));
		}
		free(s);
		free(cfg);
	}
	{
		struct oci_container c = { .id = "abc" };
		char why[512];

		assert_int_equal(oci_config_parse("{\"linux\": {}}", &c, why, sizeof(why)), -EINVAL);
		assert_non_null(strstr(why, "no linux.cgroupsPath"));
		assert_int_equal(oci_config_parse("{", &c, why, sizeof(why)), -EINVAL);
		assert_int_equal(
			oci_config_parse("{\"linux\": {\"cgroupsPath\": \"-bad.slice:p:abc\"}}", &c,
					 why, sizeof(why)),
			-EINVAL);
		assert_non_null(strstr(why, "is not a slice name"));
		/* an empty slice is the runtimes' default, system.slice */
		assert_int_equal(oci_config_parse("{\"linux\": {\"cgroupsPath\": \":crio:abc\", "
						  "\"namespaces\": [{\"type\": \"network\"}]}}",
						  &c, why, sizeof(why)),
				 0);
		assert_string_equal(c.cgroup, "/system.slice/crio-abc.scope");
	}
}

/* ---- checks against this system --------------------------------------------------------- */

static void own_cgroup(char *buf, size_t len)
{
	char line[256];
	FILE *f = fopen("/proc/self/cgroup", "re");

	assert_non_null(f);
	buf[0] = '\0';
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "0::", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, len, "%s", line + 3);
		}
	fclose(f);
}

static void test_check_netns(void **state)
{
	struct oci_container c = { .id = ID, .netns = OCI_NETNS_HOST };
	char why[512];

	assert_int_equal(oci_container_check(&c, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "host network"));
	assert_non_null(strstr(why, "policies.cgroups"));
	/* joining the hook's own namespace by its path is the host's too */
	c.netns = OCI_NETNS_PATH;
	snprintf(c.netns_path, sizeof(c.netns_path), "/proc/self/ns/net");
	assert_int_equal(oci_container_check(&c, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "is the host's"));
	snprintf(c.netns_path, sizeof(c.netns_path), "/nonexistent/netns");
	assert_int_equal(oci_container_check(&c, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "cannot tell its network namespace"));
	/* a process in the hook's namespace, whatever config.json says */
	c.netns = OCI_NETNS_OWN;
	c.pid = getpid();
	assert_int_equal(oci_container_check(&c, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "is the host's"));
}

/* A child in a network namespace of its own, stopped until killed; 0 when none can be made. */
static pid_t child_in_own_netns(void)
{
	int p[2];
	char ok = 0;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		ok = unshare(CLONE_NEWNET) == 0;
		(void)!write(p[1], &ok, 1);
		for (;;)
			pause();
	}
	close(p[1]);
	assert_int_equal(read(p[0], &ok, 1), 1);
	close(p[0]);
	if (!ok) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return 0;
	}
	return pid;
}

static void test_check_cgroup(void **state)
{
	struct oci_container c = { .id = ID, .netns = OCI_NETNS_OWN };
	char why[512], mine[256];
	pid_t child = child_in_own_netns();

	if (!child)
		skip(); /* no CAP_SYS_ADMIN: no namespace to put the child in */
	c.pid = child;
	own_cgroup(mine, sizeof(mine));
	snprintf(c.cgroup, sizeof(c.cgroup), "%s", mine);
	assert_int_equal(oci_container_check(&c, why, sizeof(why)), 0);
	/* a parent of its cgroup is not the container's own */
	snprintf(c.cgroup, sizeof(c.cgroup), "%s/libpod-" ID ".scope", mine);
	assert_int_equal(oci_container_check(&c, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "that its config.json names"));
	/* nor a cgroup whose name only starts like it */
	snprintf(c.cgroup, sizeof(c.cgroup), "%.*s", (int)strlen(mine) - 1, mine);
	if (strcmp(mine, "/") != 0)
		assert_int_equal(oci_container_check(&c, why, sizeof(why)), -EPERM);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

/* ---- the verbs, whole ------------------------------------------------------------------- */

struct result {
	int status;
	char *out, *err;
};

/* smcctl ARGS with TEXT on stdin (a file, as the runtimes give it). */
static struct result run_with_stdin(const char *text, const char *const *args)
{
	char path[] = "/tmp/smcctl-oci-hook-XXXXXX", *argv[16];
	struct smcnl_options opts = {};
	struct result r = {};
	size_t lo = 0, le = 0;
	int fd = mkstemp(path), saved = dup(STDIN_FILENO), argc = 0;
	FILE *out = open_memstream(&r.out, &lo), *err = open_memstream(&r.err, &le);

	assert_true(fd >= 0 && saved >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(dup2(fd, STDIN_FILENO), STDIN_FILENO);
	argv[argc++] = (char *)"smcctl";
	for (size_t i = 0; args[i]; i++)
		argv[argc++] = (char *)args[i];
	argv[argc] = NULL;
	r.status = smcctl_run(argc, argv, &opts, out, err);
	fclose(out);
	fclose(err);
	assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
	close(saved);
	close(fd);
	unlink(path);
	return r;
}

#define RUN_STDIN(text, ...) run_with_stdin(text, (const char *const[]){ __VA_ARGS__, NULL })

static void expect(struct result r, const char *const *words)
{
	if (r.status != 0 || r.out[0])
		fail_msg("exit %d, stdout \"%s\", stderr \"%s\"", r.status, r.out, r.err);
	for (; *words; words++)
		if (!strstr(r.err, *words))
			fail_msg("stderr lacks \"%s\": \"%s\"", *words, r.err);
	free(r.out);
	free(r.err);
}

#define EXPECT(r, ...) expect(r, (const char *const[]){ __VA_ARGS__, NULL })

static int setup(void **state)
{
	setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/smcctl-test/bus", 1);
	return 0;
}

static void test_verbs(void **state)
{
	char *s;

	/* not annotated (state nor config.json): nothing done, nothing said */
	s = state_of("plain", 0, false);
	EXPECT(RUN_STDIN(s, "oci-hook", "createRuntime"), "");
	EXPECT(RUN_STDIN(s, "oci-hook", "poststop"), "");
	free(s);
	{
		struct result r = RUN_STDIN("", "oci-hook", "createRuntime");

		assert_non_null(strstr(r.err, "not an OCI state"));
		EXPECT(r, "");
	}
	/* host network: refused before the agent is asked */
	s = state_of("host", 0, true);
	EXPECT(RUN_STDIN(s, "oci-hook", "createRuntime"),
	       "container 3f1c9a0e5b7d is annotated org.smcd.smc=true but stays on TCP",
	       "host network");
	free(s);
	s = state_of("cgroupfs", 0, true);
	EXPECT(RUN_STDIN(s, "oci-hook", "createRuntime"), "stays on TCP", "systemd cgroup manager");
	free(s);
	/* a namespace of its own, but no bus: it starts all the same */
	s = state_of("plain", 0, true);
	EXPECT(RUN_STDIN(s, "oci-hook", "createRuntime"),
	       "cannot switch its scope libpod-" ID ".scope: no system bus",
	       "it starts with TCP sockets");
	EXPECT(RUN_STDIN(s, "oci-hook", "poststop"),
	       "cannot remove the drop-in of libpod-" ID ".scope", "smcctl disable");
	free(s);
	{
		struct result r = RUN_STDIN("{}", "oci-hook", "createRuntime", "--timeout", "31");

		assert_int_equal(r.status, SMCCTL_EXIT_USAGE);
		free(r.out);
		free(r.err);
	}
}

/* A bus that accepts the connection and never answers: the hook gives up and exits 0. */
static void test_timeout(void **state)
{
	char dir[] = "/tmp/smcctl-oci-bus-XXXXXX", addr[160], *s = state_of("plain", 0, true);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), status, errp[2];
	char err[4096] = "";
	ssize_t n;
	pid_t pid;

	assert_non_null(mkdtemp(dir));
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/bus", dir);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 4), 0);
	snprintf(addr, sizeof(addr), "unix:path=%s", sa.sun_path);
	assert_int_equal(pipe(errp), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		FILE *e = fdopen(errp[1], "w");
		struct result r;

		setenv("DBUS_SYSTEM_BUS_ADDRESS", addr, 1);
		setvbuf(e, NULL, _IONBF, 0);
		dup2(errp[1], STDERR_FILENO); /* the alarm's message is written there */
		r = RUN_STDIN(s, "oci-hook", "createRuntime", "--timeout", "1");
		fputs(r.err, e);
		_exit(r.status);
	}
	close(errp[1]);
	n = read(errp[0], err, sizeof(err) - 1);
	while (n > 0) {
		ssize_t k = read(errp[0], err + n, sizeof(err) - 1 - (size_t)n);

		if (k <= 0)
			break;
		n += k;
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	if (!strstr(err, "TCP"))
		fail_msg("the hook gave up without saying so: \"%s\"", err);
	close(errp[0]);
	close(fd);
	unlink(sa.sun_path);
	rmdir(dir);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state),	    cmocka_unit_test(test_config),
		cmocka_unit_test(test_check_netns), cmocka_unit_test(test_check_cgroup),
		cmocka_unit_test(test_verbs),	    cmocka_unit_test(test_timeout),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
