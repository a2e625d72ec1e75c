// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * common/container-ident.c: the cgroup forms of podman, docker and CRI-O, and their state read
 * from a tree of the runtimes' files (tests/fixtures/containers/host, written after podman
 * 4.3's containers.json, docker 20.10's config.v2.json and CRI-O's RuntimeContainerMetadata
 * in overlay-containers/containers.json, trimmed), copied to a temporary
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

/* CRI-O's, in overlay-containers (written after CRI-O's RuntimeContainerMetadata) */
#define C_SANDBOX "9a1d2c4e6f8b0a1c3e5f7a9b1d3c5e7f9a1b3c5d7e9f1a2b3c4d5e6f7a8b9c0d"
#define C_NGINX "4c2e8a1f3b5d7c9e0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b8c0d2e4f"
#define C_API "b7e1c3d5f7a9b1c3d5e7f9a1b3c5d7e9f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1"
#define C_ODD "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00"
#define C_LONG "d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4"
#define C_FAKE_POD "f00df00df00df00df00df00df00df00df00df00df00df00df00df00df00df00d"
#define C_SELF_POD "e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0"
#define C_OF_SELF_POD "e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1"
#define C_TYPES "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define C_NOT_OBJ "1111111111111111111111111111111111111111111111111111111111111111"
#define KUBEPODS \
	"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod3f2b8c1e_7a4d_4e9b_a1c2_5d6e7f8a9b0c.slice/"

#define PODMAN_JSON "var/lib/containers/storage/vfs-containers/containers.json"
#define CRIO_JSON "var/lib/containers/storage/overlay-containers/containers.json"
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
		/* CRI-O: systemd driver, cgroupfs driver; no pod from the path */
		{ KUBEPODS "crio-" C_NGINX ".scope", "cri-o", C_NGINX, "" },
		{ "/kubepods/besteffort/pod3f2b8c1e-7a4d-4e9b-a1c2-5d6e7f8a9b0c/crio-" C_NGINX,
		  "cri-o", C_NGINX, "" },
		{ "/machine.slice/machine-libpod_pod_" POD ".slice/crio-" C_NGINX ".scope", "cri-o",
		  C_NGINX, "" },
		/* not containers */
		{ "/machine.slice/libpod-conmon-" P_SRV ".scope", NULL, NULL, NULL },
		{ KUBEPODS "crio-conmon-" C_NGINX ".scope", NULL, NULL, NULL },
		{ KUBEPODS "crio-" C_NGINX ".slice", NULL, NULL, NULL },
		{ KUBEPODS "crio" C_NGINX ".scope", NULL, NULL, NULL },
		{ KUBEPODS, NULL, NULL, NULL },
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

static void test_crio(void **state)
{
	struct container_ident c;
	char label[64];

	(void)state;
	c = ident_ok(KUBEPODS "crio-" C_NGINX ".scope");
	assert_string_equal(c.runtime, "cri-o");
	assert_string_equal(c.id, C_NGINX);
	assert_string_equal(c.name, "nginx"); /* "metadata-name", not "k8s_nginx_..." */
	assert_string_equal(c.image, "docker.io/library/nginx:1.25");
	assert_string_equal(c.pod, "web-7d9f8"); /* the sandbox entry's "metadata-name" */
	assert_int_equal(container_label(&c, label, sizeof(label)), strlen("cri-o:nginx"));
	assert_string_equal(label, "cri-o:nginx");
	/* the sandbox (pause) container: its pod's name for both */
	c = ident_ok(KUBEPODS "crio-" C_SANDBOX ".scope");
	assert_string_equal(c.name, "web-7d9f8");
	assert_string_equal(c.pod, "web-7d9f8");
	assert_string_equal(c.image, "registry.k8s.io/pause:3.9");
	/* cgroupfs driver */
	c = ident_ok("/kubepods/besteffort/pod3f2b8c1e-7a4d-4e9b-a1c2-5d6e7f8a9b0c/crio-" C_NGINX);
	assert_string_equal(c.name, "nginx");
	/* no sandbox entry: the pod from "pod-name" (k8s_<pod>_<namespace>_...) */
	c = ident_ok(KUBEPODS "crio-" C_API ".scope");
	assert_string_equal(c.name, "api");
	assert_string_equal(c.pod, "api-0");
	/* neither: the pod id's first 12 digits; no image */
	c = ident_ok(KUBEPODS "crio-" C_ODD ".scope");
	assert_string_equal(c.name, "odd-one");
	assert_string_equal(c.pod, "abcdef012345");
	assert_string_equal(c.image, "");
	/* a pod-id that is another container's (no "pod": true): not taken for the sandbox */
	c = ident_ok(KUBEPODS "crio-" C_FAKE_POD ".scope");
	assert_string_equal(c.name, "f");
	assert_string_equal(c.pod, "real-pod");
	/* one that has the pod's id and pod-name but is no sandbox ("pod": true): not taken */
	c = ident_ok(KUBEPODS "crio-" C_OF_SELF_POD ".scope");
	assert_string_equal(c.name, "z");
	assert_string_equal(c.pod, "real2");
	c = ident_ok(KUBEPODS "crio-" C_SELF_POD ".scope");
	assert_string_equal(c.pod, "real2");
	/* metadata of the wrong types, metadata not an object, an id nobody has: not named */
	ident_none(KUBEPODS "crio-" C_TYPES ".scope");
	ident_none(KUBEPODS "crio-" C_NOT_OBJ ".scope");
	ident_none(KUBEPODS "crio-" D_SRV ".scope");
	/* podman's entry under CRI-O's form: "name" of its metadata (no metadata-name) */
	c = ident_ok(KUBEPODS "crio-" P_SRV ".scope");
	assert_string_equal(c.name, "smc-srv");
	assert_string_equal(c.pod, "");
}

/* Values of any length and bytes: kept raw and cut to CONTAINER_NAME_LEN - 1 (the outputs
 * sanitise them); a pod id that is not hex is no pod. */
static void test_crio_hostile(void **state)
{
	struct container_ident c;

	(void)state;
	c = ident_ok(KUBEPODS "crio-" C_LONG ".scope");
	assert_int_equal(strlen(c.name), CONTAINER_NAME_LEN - 1);
	assert_memory_equal(c.name, "evil\n\x1b[31mname", 14);
	assert_int_equal(strlen(c.image), CONTAINER_NAME_LEN - 1);
	assert_memory_equal(c.image, "img\tx", 5);
	assert_int_equal(strlen(c.pod), CONTAINER_NAME_LEN - 1);
	for (size_t i = 0; i < CONTAINER_NAME_LEN - 1; i++)
		assert_int_equal(c.pod[i], 'p');
	/* the sandbox entry is data too: a writable file is refused whole */
	sh("chmod o+w '%s'", at(CRIO_JSON));
	ident_none(KUBEPODS "crio-" C_NGINX ".scope");
	sh("chmod o-w '%s'", at(CRIO_JSON));
	ident_ok(KUBEPODS "crio-" C_NGINX ".scope");
	/* the sandbox's entry gone: its pod from pod-name, all the same */
	sh("sed -i 's|\"id\":\"%s\"|\"id\":\"gone\"|' '%s'", C_SANDBOX, at(CRIO_JSON));
	c = ident_ok(KUBEPODS "crio-" C_NGINX ".scope");
	assert_string_equal(c.pod, "web-7d9f8");
	ident_none(KUBEPODS "crio-" C_SANDBOX ".scope");
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
		cmocka_unit_test_setup_teardown(test_crio, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crio_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unprivileged, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
