// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * common/container-ident.c: the cgroup forms of podman and docker, and their state read from
 * a tree of the runtimes' files (tests/fixtures/containers/host, written after podman 4.3's
 * containers.json and docker 20.10's config.v2.json, trimmed), copied to a temporary
 * directory with the modes the runtimes give them.  Hostile files are made here: a
 * symlink, a file others may write, one of another owner (as root), one too large, bad
 * JSON, another container's copy.  The real runtimes are the podman and docker lanes'
 * (tests/pkg/guest/podman-612lo.sh, docker-612lo.sh).
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
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/container-ident.h"

#define P_SRV "e13652de5c3a1c8d631ef02ff574212a799a02b0afaf52be45475c03ca804ae7"
#define P_CLI "bbee91767bbadeb1086115ca522a1b8a7a761b1f0fa88f59057ca0c79957c52e"
#define P_PODDED "e627998cc6c698997f889c5ed37546d8fcf19e42486745cb868fe27ea990600c"
#define P_INFRA "7f3ee51fe32b6657c6d8fadd0dfec03a1fc0dd06a1a18dc9e4575e82305dc140"
#define P_BAD "0000000000000000000000000000000000000000000000000000000000000000"
#define POD "5ea618a82d38c4b9d0322273f1b4b26ef5e41c032bad80686923e4a7b3fc8a57"
#define D_SRV "c0639fb49cbfeb1fa04b8efde41fed84ea95a094707fa902294079057c9b889c"
#define D_BAD "53970bef62fed9372b667bda995e06aacb98771800af62aa99f11b0e02d7a407"
#define D_OTHER "f0966ac6c44493cfcd328a8ece56871008a97ec09fdea71f7076b8728fdf3432"
#define D_MISSING "e565612f4ef794ccaea27365bd6ff3c6ed6968d7a043ae5d90a141c17ea08a39"

#define PODMAN_JSON "var/lib/containers/storage/vfs-containers/containers.json"
#define DOCKER_JSON "var/lib/docker/containers/" D_SRV "/config.v2.json"

static char root[] = "/tmp/test-container-ident-XXXXXX";

static void sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("failed: %s", cmd);
}

static const char *at(const char *rel)
{
	static char p[1024];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	return p;
}

/* A fresh copy of the fixture tree, the runtimes' modes (root's 0600 there; the caller's
 * here, which the rule also takes). */
static int setup(void **state)
{
	const char *top = getenv("top_srcdir");

	(void)state;
	snprintf(root, sizeof(root), "/tmp/test-container-ident-XXXXXX");
	assert_non_null(mkdtemp(root));
	sh("cp -R '%s/tests/fixtures/containers/host/.' '%s' && chmod -R go-w '%s' && "
	   "find '%s' -type f -exec chmod 0600 {} +",
	   top ? top : ".", root, root, root);
	container_ident_set_root(root);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	container_ident_forget();
	sh("rm -rf '%s'", root);
	return 0;
}

static void test_forms(void **state)
{
	static const struct {
		const char *cgroup, *runtime, *id, *pod;
	} cases[] = {
		{ "/machine.slice/libpod-" P_SRV ".scope", "podman", P_SRV, "" },
		/* systemd inside: its own cgroups below the scope are still the container */
		{ "/machine.slice/libpod-" P_SRV ".scope/container/init.scope", "podman", P_SRV, "" },
		{ "/machine.slice/machine-libpod_pod_" POD ".slice/libpod-" P_PODDED ".scope",
		  "podman", P_PODDED, "5ea618a82d38" },
		{ "/libpod_parent/libpod-" P_SRV, "podman", P_SRV, "" },
		{ "/system.slice/docker-" D_SRV ".scope", "docker", D_SRV, "" },
		{ "/docker.slice/docker-" D_SRV ".scope", "docker", D_SRV, "" },
		{ "/docker/" D_SRV, "docker", D_SRV, "" },
		/* rootless podman: recognised (its state is the user's, not looked for) */
		{ "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" P_SRV ".scope",
		  "podman", P_SRV, "" },
		/* not containers */
		{ "/machine.slice/libpod-conmon-" P_SRV ".scope", NULL, NULL, NULL },
		{ "/system.slice/nginx.service", NULL, NULL, NULL },
		{ "/machine.slice/libpod-" P_SRV "0.scope", NULL, NULL, NULL },
		{ "/machine.slice/libpod-E13652DE5C3A1C8D631EF02FF574212A799A02B0AFAF52BE45475C03CA804AE7.scope",
		  NULL, NULL, NULL },
		{ "/docker", NULL, NULL, NULL },
		{ "/xdocker/" D_SRV, NULL, NULL, NULL },
		{ "/", NULL, NULL, NULL },
		{ "", NULL, NULL, NULL },
		{ NULL, NULL, NULL, NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct container_ident c;
		bool is = container_cgroup_parse(cases[i].cgroup, &c);

		if (is != (cases[i].runtime != NULL))
			fail_msg("%s: %s", cases[i].cgroup ? cases[i].cgroup : "(null)",
				 is ? "taken for a container" : "not recognised");
		if (!is) {
			assert_null(c.runtime);
			continue;
		}
		assert_string_equal(c.runtime, cases[i].runtime);
		assert_string_equal(c.id, cases[i].id);
		assert_string_equal(c.pod, cases[i].pod);
	}
}

static struct container_ident ident_ok(const char *cgroup)
{
	struct container_ident c;

	if (container_ident_of(cgroup, &c) != 1)
		fail_msg("%s: not identified", cgroup);
	return c;
}

static void ident_none(const char *cgroup)
{
	struct container_ident c = { .name = "x" };

	if (container_ident_of(cgroup, &c) != 0)
		fail_msg("%s: identified as %s", cgroup, c.name);
	assert_null(c.runtime);
	assert_string_equal(c.name, "");
}

static void test_podman(void **state)
{
	struct container_ident c;
	char label[64];

	(void)state;
	c = ident_ok("/machine.slice/libpod-" P_SRV ".scope");
	assert_string_equal(c.runtime, "podman");
	assert_string_equal(c.name, "smc-srv");
	assert_string_equal(c.image, "localhost/smc-conn:latest");
	assert_string_equal(c.pod, "");
	assert_int_equal(container_label(&c, label, sizeof(label)), strlen("podman:smc-srv"));
	assert_string_equal(label, "podman:smc-srv");
	assert_int_equal(container_label(&c, label, 8), 7); /* cut, terminated */
	assert_string_equal(label, "podman:");
	/* renamed: "names" is the name now, the metadata the name at creation */
	c = ident_ok("/machine.slice/libpod-" P_CLI ".scope");
	assert_string_equal(c.name, "smc-cli-renamed");
	c = ident_ok("/machine.slice/machine-libpod_pod_" POD ".slice/libpod-" P_PODDED ".scope");
	assert_string_equal(c.name, "web-pod-app");
	assert_string_equal(c.pod, "5ea618a82d38");
	/* the infra container has no image */
	c = ident_ok("/machine.slice/machine-libpod_pod_" POD ".slice/libpod-" P_INFRA ".scope");
	assert_string_equal(c.name, "5ea618a82d38-infra");
	assert_string_equal(c.image, "");
	/* an entry of the wrong types, an id nobody has, a cgroupfs path */
	ident_none("/machine.slice/libpod-" P_BAD ".scope");
	ident_none("/machine.slice/libpod-" D_SRV ".scope");
	c = ident_ok("/libpod_parent/libpod-" P_SRV);
	assert_string_equal(c.name, "smc-srv");
	ident_none("/system.slice/nginx.service");
}

static void test_docker(void **state)
{
	struct container_ident c;

	(void)state;
	c = ident_ok("/system.slice/docker-" D_SRV ".scope");
	assert_string_equal(c.runtime, "docker");
	assert_string_equal(c.name, "smc-srv"); /* without docker's "/" */
	assert_string_equal(c.image, "smc-conn");
	assert_string_equal(c.pod, "");
	c = ident_ok("/docker/" D_SRV);
	assert_string_equal(c.name, "smc-srv");
	ident_none("/system.slice/docker-" D_BAD ".scope");	/* cut short: not JSON */
	ident_none("/system.slice/docker-" D_OTHER ".scope");	/* another container's file */
	ident_none("/system.slice/docker-" D_MISSING ".scope"); /* no directory */
	/* docker under podman's name: podman's state has no such id */
	ident_none("/machine.slice/libpod-" D_SRV ".scope");
}

/* A file is read again when it changed, and a file that went is forgotten. */
static void test_cache(void **state)
{
	struct container_ident c;

	(void)state;
	c = ident_ok("/system.slice/docker-" D_SRV ".scope");
	assert_string_equal(c.name, "smc-srv");
	sh("sed -i 's|\"/smc-srv\"|\"/smc-server-renamed\"|' '%s'", at(DOCKER_JSON));
	c = ident_ok("/system.slice/docker-" D_SRV ".scope");
	assert_string_equal(c.name, "smc-server-renamed");
	sh("sed -i 's|\\[\"smc-srv\"\\]|[\"smc-srv-2\"]|' '%s'", at(PODMAN_JSON));
	c = ident_ok("/machine.slice/libpod-" P_SRV ".scope");
	assert_string_equal(c.name, "smc-srv-2");
	sh("rm '%s'", at(PODMAN_JSON));
	sh("rm '%s'", at(DOCKER_JSON));
	ident_none("/machine.slice/libpod-" P_SRV ".scope");
	ident_none("/system.slice/docker-" D_SRV ".scope");
}

/* Each of the file's shapes that is not the runtime's own is refused, never followed. */
static void test_hostile(void **state)
{
	const char *srv = "/machine.slice/libpod-" P_SRV ".scope";
	const char *dsrv = "/system.slice/docker-" D_SRV ".scope";
	char real[1100];

	(void)state;
	ident_ok(srv);
	/* a symlink (to a file that would answer) */
	snprintf(real, sizeof(real), "%s.real", at(PODMAN_JSON));
	sh("mv '%s' '%s' && ln -s '%s' '%s'", at(PODMAN_JSON), real, real, at(PODMAN_JSON));
	ident_none(srv);
	sh("rm '%s' && mv '%s' '%s'", at(PODMAN_JSON), real, at(PODMAN_JSON));
	ident_ok(srv);
	/* writable by others, by the group */
	sh("chmod o+w '%s'", at(PODMAN_JSON));
	ident_none(srv);
	sh("chmod o-w,g+w '%s'", at(PODMAN_JSON));
	ident_none(srv);
	sh("chmod g-w '%s'", at(PODMAN_JSON));
	ident_ok(srv);
	/* another user's (nobody's): only root can make one */
	if (geteuid() == 0) {
		sh("chown 65534 '%s'", at(DOCKER_JSON));
		ident_none(dsrv);
		sh("chown 0 '%s'", at(DOCKER_JSON));
		ident_ok(dsrv);
	}
	/* too large: the same document after CONTAINER_STATE_MAX bytes of blanks */
	sh("{ head -c %u /dev/zero | tr '\\0' ' '; cat '%s'; } > '%s.new' && chmod 0600 '%s.new' "
	   "&& mv '%s.new' '%s'",
	   CONTAINER_STATE_MAX, at(DOCKER_JSON), at(DOCKER_JSON), at(DOCKER_JSON), at(DOCKER_JSON),
	   at(DOCKER_JSON));
	ident_none(dsrv);
	/* a directory where the file should be; a FIFO (never blocks: O_NONBLOCK) */
	sh("rm '%s' && mkdir '%s'", at(DOCKER_JSON), at(DOCKER_JSON));
	ident_none(dsrv);
	sh("rmdir '%s' && mkfifo -m 0600 '%s'", at(DOCKER_JSON), at(DOCKER_JSON));
	ident_none(dsrv);
	/* not an array */
	sh("echo '{\"id\": \"%s\", \"names\": [\"smc-srv\"]}' > '%s'", P_SRV, at(PODMAN_JSON));
	ident_none(srv);
}

/*
 * A reader without the rights to the runtime's state (smcctl runs with its caller's; the
 * files are root's, 0600) gets nothing, and so the scope: only root can switch to another
 * user to show it.
 */
static void test_unprivileged(void **state)
{
	const char *srv = "/machine.slice/libpod-" P_SRV ".scope";
	int status = 0;
	pid_t pid;

	(void)state;
	if (geteuid() != 0) {
		skip();
		return;
	}
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct container_ident c;

		container_ident_forget();
		if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
			_exit(2);
		_exit(container_ident_of(srv, &c) == 0 && !c.runtime ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	ident_ok(srv); /* and root still reads it */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
		cmocka_unit_test_setup_teardown(test_podman, setup, teardown),
		cmocka_unit_test_setup_teardown(test_docker, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unprivileged, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
