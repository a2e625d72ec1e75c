// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * EnableUnit and DisableUnit (smcd-agent/unit-dropin.c) through the whole manager on the
 * fake kernel: a drop-in is put back only when the configuration with it was refused; an
 * error applying a configuration that was accepted leaves the file in force and says so.
 *
 * The apply error comes from policy_reconcile(), wrapped at link time (-Wl,--wrap): on a
 * real host it is the BPF maps' errors (-EINVAL among them), which no fake kernel gives.
 */
#include <errno.h>
#include <limits.h>
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

#include "common/bus-api.h"
#include "common/macro.h"
#include "config/dropin.h"
#include "smcd-agent/bus-manager.h"
#include "smcd-agent/dropin-prune.h"
#include "smcd-agent/manager.h"
#include "smcd-agent/policy-engine.h"
#include "tests/unit/golden.h"

static char dir[] = "/tmp/test-agent-unit-dropin-XXXXXX";
static char cfg_path[512], dropin_dir[600];

/* ---- policy_reconcile() failing on demand ---------------------------------------------- */

static int policy_fail; /* -errno: the next policy_reconcile() calls fail so */

int __real_policy_reconcile(struct policy_engine *e, const struct config *c, struct report *ret);
int __wrap_policy_reconcile(struct policy_engine *e, const struct config *c, struct report *ret);
int __wrap_policy_reconcile(struct policy_engine *e, const struct config *c, struct report *ret)
{
	if (policy_fail)
		return policy_fail;
	return __real_policy_reconcile(e, c, ret);
}

/* ---- helpers ------------------------------------------------------------------------- */

static void sh(const char *cmds)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), "cd '%s' && %s", dir, cmds);
	assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
	if (!mkdtemp(dir))
		return -1;
	snprintf(cfg_path, sizeof(cfg_path), "%s/smc.yaml", dir);
	snprintf(dropin_dir, sizeof(dropin_dir), "%s.d", cfg_path);
	return 0;
}

static int teardown(void **state)
{
	char cmd[1100];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* A fake kernel with SMC; smc.yaml with no policies (written unless with_file is false). */
static struct manager *agent(bool with_file)
{
	struct kernel *k = NULL;
	struct manager *m = NULL;

	sh("rm -rf modules sysctl smc.yaml smc.yaml.d && mkdir -p modules sysctl && touch modules/smc");
	if (with_file)
		test_write_file(dir, "smc.yaml", "modules: []\nueid: {auto: false}\nsysctl: {}\n");
	assert_int_equal(kernel_fake_new(dir, &k), 0);
	assert_int_equal(manager_new(cfg_path, k, &m), 0);
	assert_int_equal(manager_load_config(m), 0);
	assert_int_equal(manager_reconcile(m, RECONCILE_START), 0);
	return m;
}

static void agent_free(struct manager *m)
{
	manager_free(m); /* and its kernel */
}

static bool running_has(const struct manager *m, const char *cgroup)
{
	for (size_t i = 0; i < m->config->policies.n_cgroups; i++)
		if (streq(m->config->policies.cgroups[i].path, cgroup))
			return true;
	return false;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* ---- the tests --------------------------------------------------------------------------- */

/*
 * Applying fails with -EINVAL after the configuration with the drop-in was accepted: the
 * drop-in stays (it is the running configuration), and the answer says the apply failed,
 * not that the configuration was refused.
 */
static void test_apply_error_keeps_dropin(void **state)
{
	struct manager *m = agent(true);
	char want[700], *path = NULL, *why = NULL;
	uint64_t rev = m->config->hash;

	mkdir(dropin_dir, 0755);
	snprintf(want, sizeof(want), "%s/50-unit-a.service.yaml", dropin_dir);
	policy_fail = -EINVAL;
	assert_int_equal(manager_enable_unit(m, "a", "/system.slice/a.service", &path, &why),
			 MANAGER_UNIT_APPLY_FAILED);
	policy_fail = 0;
	assert_true(exists(want));
	assert_non_null(path);
	assert_string_equal(path, want);
	assert_non_null(why);
	assert_non_null(strstr(why, "it is the running configuration, but applying it failed"));
	assert_non_null(strstr(why, strerror(EINVAL)));
	assert_true(running_has(m, "/system.slice/a.service"));
	assert_true(m->config->hash != rev);
	assert_null(m->config_error);
	free(path);
	free(why);

	/* Disable, failing the same way: the drop-in stays removed. */
	path = why = NULL;
	policy_fail = -EINVAL;
	assert_int_equal(manager_disable_unit(m, "a", &path, &why), MANAGER_UNIT_APPLY_FAILED);
	policy_fail = 0;
	assert_false(exists(want));
	assert_non_null(why);
	assert_non_null(strstr(why, "but applying it failed"));
	assert_false(running_has(m, "/system.slice/a.service"));
	free(path);
	free(why);
	agent_free(m);
}

/*
 * An apply error that happens to be -EBADMSG (netlink's "bad message", say) is an apply
 * error like any other, not a refusal: the drop-in stays, and the caller is not told
 * "Configuration refused, nothing changed" (once the refusal was told by -EBADMSG).
 */
static void test_apply_ebadmsg_is_no_refusal(void **state)
{
	struct manager *m = agent(true);
	char want[700], *path = NULL, *why = NULL;
	sd_bus_error e = SD_BUS_ERROR_NULL;

	mkdir(dropin_dir, 0755);
	snprintf(want, sizeof(want), "%s/50-unit-a.service.yaml", dropin_dir);
	policy_fail = -EBADMSG;
	assert_int_equal(manager_enable_unit(m, "a", "/system.slice/a.service", &path, &why),
			 MANAGER_UNIT_APPLY_FAILED);
	policy_fail = 0;
	assert_true(exists(want));
	assert_true(running_has(m, "/system.slice/a.service"));
	assert_non_null(why);
	assert_non_null(strstr(why, strerror(EBADMSG)));
	assert_true(bus_unit_error(MANAGER_UNIT_APPLY_FAILED, why, &e) < 0);
	assert_string_equal(e.name, SD_BUS_ERROR_FAILED);
	assert_non_null(strstr(e.message, "it is the running configuration, but applying it failed"));
	assert_null(strstr(e.message, "refused"));
	sd_bus_error_free(&e);
	free(path);
	free(why);

	path = why = NULL;
	policy_fail = -EBADMSG;
	assert_int_equal(manager_disable_unit(m, "a", &path, &why), MANAGER_UNIT_APPLY_FAILED);
	policy_fail = 0;
	assert_false(exists(want));
	assert_false(running_has(m, "/system.slice/a.service"));
	assert_true(bus_unit_error(MANAGER_UNIT_APPLY_FAILED, why, &e) < 0);
	assert_string_equal(e.name, SD_BUS_ERROR_FAILED);
	assert_null(strstr(e.message, "refused"));
	sd_bus_error_free(&e);
	free(path);
	free(why);
	agent_free(m);
}

/* The other failure: a configuration that does not validate is refused and put back. */
static void test_refusal_puts_back(void **state)
{
	struct manager *m = agent(true);
	char want[700], *path = NULL, *why = NULL;
	uint64_t rev = m->config->hash;

	mkdir(dropin_dir, 0755);
	sh("printf 'sysctl: {wmem: 2M}\\n' >smc.yaml.d/60-bad.yaml");
	snprintf(want, sizeof(want), "%s/50-unit-a.service.yaml", dropin_dir);
	assert_int_equal(manager_enable_unit(m, "a", "/system.slice/a.service", &path, &why),
			 MANAGER_UNIT_REFUSED);
	assert_false(exists(want));
	assert_null(path);
	assert_non_null(why);
	assert_non_null(strstr(why, "only policies: may be set in a drop-in"));
	assert_int_equal(m->config->hash, rev);
	assert_null(m->config_error); /* as it was */
	/* ... and on the bus: ConfigInvalid, "nothing changed". */
	{
		sd_bus_error e = SD_BUS_ERROR_NULL;

		assert_true(bus_unit_error(MANAGER_UNIT_REFUSED, why, &e) < 0);
		assert_string_equal(e.name, SMCD_BUS_ERROR_CONFIG_INVALID);
		assert_non_null(strstr(e.message, "Configuration refused, nothing changed"));
		assert_non_null(strstr(e.message, "only policies: may be set in a drop-in"));
		sd_bus_error_free(&e);
	}
	free(why);

	/* manager_reload() says which failure it was. */
	{
		bool refused = false;
		char *error = NULL;

		assert_int_equal(manager_reload(m, &refused, &error), -EINVAL);
		assert_true(refused);
		assert_non_null(error);
		free(error);
		sh("rm smc.yaml.d/60-bad.yaml");
		policy_fail = -EINVAL;
		assert_int_equal(manager_reload(m, &refused, NULL), -EINVAL);
		policy_fail = 0;
		assert_false(refused);
		assert_null(m->config_error);
	}
	agent_free(m);
}

/*
 * No smc.yaml: the agent runs on the built-in defaults, and enable works all the same: the
 * drop-in goes into FILE.d (created, mode 0755) and its policy applies on the defaults.
 * Once the file exists, a reload without it is refused again.
 */
static void test_no_main_file(void **state)
{
	struct manager *m = agent(false);
	char want[700], *path = NULL, *why = NULL;
	struct stat st;
	bool refused = false;

	assert_true(m->config_builtin);
	snprintf(want, sizeof(want), "%s/50-unit-a.service.yaml", dropin_dir);
	umask(0077);
	assert_int_equal(manager_enable_unit(m, "a", "/system.slice/a.service", &path, &why), 0);
	umask(0022);
	assert_null(why);
	assert_non_null(path);
	assert_string_equal(path, want);
	assert_int_equal(stat(dropin_dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_true(running_has(m, "/system.slice/a.service"));
	assert_true(m->config_builtin);
	{
		/* On top of the built-in defaults, which stay as they are. */
		struct config_errors errors = {};
		struct config *d = NULL;

		assert_int_equal(config_load_text(cfg_path, "", 0, NULL, &d, &errors), 0);
		assert_int_equal(m->config->n_modules, d->n_modules);
		assert_int_equal(m->config->ueid.auto_derive, d->ueid.auto_derive);
		assert_int_equal(m->config->n_sysctls, d->n_sysctls);
		assert_int_equal(d->policies.n_cgroups, 0);
		assert_int_equal(m->config->policies.n_cgroups, 1);
		config_free(d);
	}
	free(path);
	path = NULL;
	assert_int_equal(manager_disable_unit(m, "a", &path, &why), 0);
	assert_null(why);
	assert_false(exists(want));
	assert_false(running_has(m, "/system.slice/a.service"));
	free(path);

	/* The file appears, is loaded, and is deleted: that reload is refused. */
	test_write_file(dir, "smc.yaml", "modules: []\nueid: {auto: false}\nsysctl: {}\n");
	assert_int_equal(manager_reload(m, &refused, NULL), 0);
	assert_false(m->config_builtin);
	sh("rm smc.yaml");
	assert_int_equal(manager_reload(m, &refused, NULL), -EINVAL);
	assert_true(refused);
	assert_non_null(strstr(m->config_error, "does not exist"));
	agent_free(m);
}

/* ---- drop-ins of containers that are gone ------------------------------------------------ */

#define HEX_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define HEX_B "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define HEX_C "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
#define HEX_D "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"

/* UNIT's drop-in as EnableUnit writes it, listing cgroup, with extra appended. */
static void dropin_write(const char *unit, const char *cgroup, const char *extra)
{
	char name[400], *text = config_unit_dropin_text(unit, cgroup), *all = NULL;

	assert_non_null(text);
	assert_true(asprintf(&all, "%s%s", text, extra) >= 0);
	snprintf(name, sizeof(name), "smc.yaml.d/50-unit-%s.yaml", unit);
	test_write_file(dir, name, all);
	free(text);
	free(all);
}

static bool dropin_exists(const char *unit)
{
	char path[900];

	snprintf(path, sizeof(path), "%s/50-unit-%s.yaml", dropin_dir, unit);
	return exists(path);
}

/*
 * Only a container's scope, in the drop-in EnableUnit wrote for it, whose cgroup is gone:
 * a scope whose cgroup is there, a drop-in edited by hand, a service, a scope of another
 * name and a drop-in listing another cgroup than the scope's own all stay.
 */
static void test_prune_gone_containers(void **state)
{
	struct config_errors errors = {};
	struct config *c = NULL;
	bool builtin = false;
	char root[700];

	sh("rm -rf smc.yaml.d && mkdir smc.yaml.d");
	test_write_file(dir, "smc.yaml", "modules: []\nueid: {auto: false}\nsysctl: {}\n");
	sh("mkdir -p cgroot/machine.slice/libpod-" HEX_A ".scope cgroot/system.slice");
	snprintf(root, sizeof(root), "%s/cgroot", dir);
	dropin_write("libpod-" HEX_A ".scope", "/machine.slice/libpod-" HEX_A ".scope", "");
	dropin_write("libpod-" HEX_B ".scope", "/machine.slice/libpod-" HEX_B ".scope", "");
	dropin_write("docker-" HEX_C ".scope", "/system.slice/docker-" HEX_C ".scope", "# mine\n");
	dropin_write("crio-" HEX_D ".scope", "/machine.slice", "");
	dropin_write("a.service", "/system.slice/a.service", "");
	dropin_write("session-" HEX_D "x.scope", "/user.slice/session-" HEX_D "x.scope", "");
	/* Read as the agent reads it, without its own pruning on this host's cgroup tree. */
	assert_int_equal(manager_config_read(cfg_path, true, false, &c, &builtin, &errors), 0);
	assert_int_equal(c->policies.n_cgroups, 6);
	assert_int_equal(dropin_prune_containers(c, cfg_path, root), 1);
	assert_false(dropin_exists("libpod-" HEX_B ".scope"));
	assert_true(dropin_exists("libpod-" HEX_A ".scope"));
	assert_true(dropin_exists("docker-" HEX_C ".scope"));
	assert_true(dropin_exists("crio-" HEX_D ".scope"));
	assert_true(dropin_exists("a.service"));
	assert_true(dropin_exists("session-" HEX_D "x.scope"));
	/* Done: nothing more to remove. */
	config_free(c);
	assert_int_equal(manager_config_read(cfg_path, true, false, &c, &builtin, &errors), 0);
	assert_int_equal(c->policies.n_cgroups, 5);
	assert_int_equal(dropin_prune_containers(c, cfg_path, root), 0);
	/* The container's cgroup gone too: its drop-in next. */
	sh("rmdir cgroot/machine.slice/libpod-" HEX_A ".scope");
	assert_int_equal(dropin_prune_containers(c, cfg_path, root), 1);
	assert_false(dropin_exists("libpod-" HEX_A ".scope"));
	config_free(c);
	config_errors_clear(&errors);
}

/*
 * At start and at reload, on the fake kernel's cgroup2 tree (its cgroup/): the agent drops
 * the drop-in of a container whose cgroup is gone, and the running configuration is
 * without it; a running container's and a service's stay.  Without a tree (the other tests
 * here, the dry run) nothing is taken for gone.
 */
static void test_prune_at_start_and_reload(void **state)
{
	struct manager *m;

	agent_free(agent(true)); /* the fake kernel's files and smc.yaml */
	mkdir(dropin_dir, 0755);
	dropin_write("libpod-" HEX_A ".scope", "/machine.slice/libpod-" HEX_A ".scope", "");
	dropin_write("libpod-" HEX_B ".scope", "/machine.slice/libpod-" HEX_B ".scope", "");
	dropin_write("a.service", "/system.slice/a.service", "");
	/* No tree known: a start removes nothing. */
	{
		struct kernel *k = NULL;

		assert_int_equal(kernel_fake_new(dir, &k), 0);
		assert_int_equal(manager_new(cfg_path, k, &m), 0);
		assert_int_equal(manager_load_config(m), 0);
		assert_true(dropin_exists("libpod-" HEX_B ".scope"));
		agent_free(m);
	}
	/* Started as agent() starts it, with the tree: libpod-A runs, libpod-B is gone. */
	sh("mkdir -p cgroup/machine.slice/libpod-" HEX_A ".scope cgroup/system.slice");
	{
		struct kernel *k = NULL;

		assert_int_equal(kernel_fake_new(dir, &k), 0);
		assert_int_equal(manager_new(cfg_path, k, &m), 0);
		assert_int_equal(manager_load_config(m), 0);
	}
	assert_false(dropin_exists("libpod-" HEX_B ".scope"));
	assert_false(running_has(m, "/machine.slice/libpod-" HEX_B ".scope"));
	assert_true(dropin_exists("libpod-" HEX_A ".scope"));
	assert_true(running_has(m, "/machine.slice/libpod-" HEX_A ".scope"));
	assert_true(running_has(m, "/system.slice/a.service"));
	/* At a reload: a container stopped since. */
	dropin_write("docker-" HEX_C ".scope", "/system.slice/docker-" HEX_C ".scope", "");
	sh("rmdir cgroup/machine.slice/libpod-" HEX_A ".scope");
	assert_int_equal(manager_reload(m, NULL, NULL), 0);
	assert_false(dropin_exists("docker-" HEX_C ".scope"));
	assert_false(dropin_exists("libpod-" HEX_A ".scope"));
	assert_false(running_has(m, "/system.slice/docker-" HEX_C ".scope"));
	assert_false(running_has(m, "/machine.slice/libpod-" HEX_A ".scope"));
	assert_true(running_has(m, "/system.slice/a.service"));
	agent_free(m);
	sh("rm -rf cgroup");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_apply_error_keeps_dropin),
		cmocka_unit_test(test_apply_ebadmsg_is_no_refusal),
		cmocka_unit_test(test_refusal_puts_back),
		cmocka_unit_test(test_no_main_file),
		cmocka_unit_test(test_prune_gone_containers),
		cmocka_unit_test(test_prune_at_start_and_reload),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
