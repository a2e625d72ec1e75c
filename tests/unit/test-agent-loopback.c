// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smc.yaml's loopback: section (config/section-loopback.c) and its reconciliation
 * (smcd-agent/loopback-reconcile.c) through the whole manager on the fake kernel
 * (kernel-fake-smclo.c): the order of the items (lo's PNET ID only while smclo is active),
 * re-activation for pending settings, drift, a removal that cannot finish, a host without the
 * module, and pnet.exclusive leaving the loopback PNET IDs alone; and the real kernel's check for a
 * module being removed.
 */
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

#include "common/macro.h"
#include "smcd-agent/loopback-reconcile.h"
#include "smcd-agent/manager.h"
#include "tests/unit/golden.h"

static char dir[] = "/tmp/test-agent-loopback-XXXXXX";
static char cfg_path[512];

static void write_file(const char *name, const char *text)
{
	test_write_file(dir, name, text);
}

static char *read_file(const char *name, char *buf, size_t len)
{
	return test_read_file(dir, name, buf, len);
}

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
	return 0;
}

static int teardown(void **state)
{
	char cmd[1100];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* A fake kernel with SMC and nothing else; smc_lo loadable unless told otherwise. */
static void fake_reset(bool module_available)
{
	sh("rm -rf modules modules-available smclo pnet sysctl no-dibs smcd-devices && mkdir -p modules "
	   "modules-available sysctl && touch modules/smc");
	if (module_available)
		sh("touch modules-available/smc_lo");
}

/* Only the loopback: section matters here: no UEIDs, sysctls or modules besides. */
static struct manager *agent(const char *loopback_yaml)
{
	struct kernel *k = NULL;
	struct manager *m = NULL;
	char text[2048];

	snprintf(text, sizeof(text), "ueid: {auto: false}\nsysctl: {}\nmodules: []\n%s",
		 loopback_yaml);
	write_file("smc.yaml", text);
	assert_int_equal(kernel_fake_new(dir, &k), 0);
	assert_int_equal(manager_new(cfg_path, k, &m), 0);
	assert_int_equal(manager_load_config(m), 0);
	return m;
}

static void reload(struct manager *m, const char *loopback_yaml)
{
	char text[2048];

	snprintf(text, sizeof(text), "ueid: {auto: false}\nsysctl: {}\nmodules: []\n%s",
		 loopback_yaml);
	write_file("smc.yaml", text);
	assert_int_equal(manager_reload(m, NULL, NULL), 0);
}

static const struct item_report *expect(const struct manager *m, const char *name,
					enum item_result want, const char *message_part)
{
	const struct item_report *ir = report_find(&m->report, name);

	if (!ir)
		fail_msg("no item %s", name);
	if (ir->result != want)
		fail_msg("%s: %s (%s), expected %s", name, item_result_to_string(ir->result),
			 ir->message, item_result_to_string(want));
	if (message_part && !strstr(ir->message, message_part))
		fail_msg("%s: message '%s' lacks '%s'", name, ir->message, message_part);
	return ir;
}

static size_t index_of(const struct manager *m, const char *name)
{
	for (size_t i = 0; i < m->report.n; i++)
		if (streq(m->report.items[i].name, name))
			return i;
	fail_msg("no item %s", name);
	return 0;
}

/* ---- the file -------------------------------------------------------------------------- */

static void expect_config_error(const char *yaml, const char *part)
{
	struct config_errors errors = {};
	struct config *c = NULL;

	write_file("smc.yaml", yaml);
	assert_int_equal(config_load(cfg_path, &c, &errors), -EINVAL);
	assert_true(errors.n >= 1);
	if (!strstr(errors.lines[0], part))
		fail_msg("error '%s' lacks '%s'", errors.lines[0], part);
	config_errors_clear(&errors);
}

static void test_config(void **state)
{
	struct config_errors errors = {};
	struct config *c = NULL;
	char *dump;

	write_file("smc.yaml", "loopback:\n  active: true\n  dmb-type: physical\n  nocopy: false\n"
			       "  max-dmbs: 64\n  take-over-lo: false\n  drain-timeout: 20s\n");
	assert_int_equal(config_load(cfg_path, &c, &errors), 0);
	assert_true(c->loopback.present && c->loopback.has_active && c->loopback.active);
	assert_true(c->loopback.has_dmb_type && c->loopback.dmb_type == SMCLO_DMB_PHYSICAL);
	assert_true(c->loopback.has_nocopy && !c->loopback.nocopy);
	assert_true(c->loopback.has_max_dmbs && c->loopback.max_dmbs == 64);
	assert_false(c->loopback.take_over_lo);
	assert_int_equal(c->loopback.drain_timeout_usec, 20000000);
	assert_int_equal(c->loopback.max_dmbs_mark.line, 5);
	dump = config_dump(c);
	assert_non_null(strstr(dump, "loopback:\n  active: true\n  dmb-type: physical\n"
				     "  nocopy: false\n  max-dmbs: 64\n  take-over-lo: false\n"
				     "  drain-timeout: 20s\n"));
	free(dump);
	config_free(c);

	/* A drain-timeout that is not whole seconds is dumped in milliseconds, not cut. */
	write_file("smc.yaml", "loopback:\n  active: true\n  drain-timeout: 1500ms\n");
	assert_int_equal(config_load(cfg_path, &c, &errors), 0);
	assert_int_equal(c->loopback.drain_timeout_usec, 1500000);
	dump = config_dump(c);
	assert_non_null(strstr(dump, "  drain-timeout: 1500ms\n"));
	free(dump);
	config_free(c);

	/* No section: nothing in the dump, the agent never touches smc_lo. */
	write_file("smc.yaml", "seid: leave\n");
	assert_int_equal(config_load(cfg_path, &c, &errors), 0);
	assert_false(c->loopback.present);
	dump = config_dump(c);
	assert_null(strstr(dump, "\nloopback:"));
	free(dump);
	config_free(c);

	/* Settings only: the state is not the file's. */
	write_file("smc.yaml", "loopback:\n  nocopy: true\n");
	assert_int_equal(config_load(cfg_path, &c, &errors), 0);
	assert_true(c->loopback.present && !c->loopback.has_active && c->loopback.has_nocopy);
	config_free(c);

	expect_config_error("loopback:\n  dmb-type: virtual\n",
			    ":2:13: loopback.dmb-type: virtual is refused: virtually contiguous "
			    "DMBs corrupt memory");
	expect_config_error("loopback:\n  dmb-type: paged\n",
			    "'paged' is not a valid value (expected physical)");
	expect_config_error("loopback:\n  max-dmbs: 0\n",
			    ":2:13: loopback.max-dmbs: '0' is not valid");
	expect_config_error("loopback:\n  max-dmbs: 32769\n", "from 1 to 32768");
	/* The top of the range is taken. */
	write_file("smc.yaml", "loopback:\n  max-dmbs: 32768\n");
	assert_int_equal(config_load(cfg_path, &c, &errors), 0);
	assert_true(c->loopback.has_max_dmbs);
	assert_int_equal(c->loopback.max_dmbs, 32768);
	config_free(c);
	expect_config_error("loopback:\n  active: true\n  drain-timeout: 0s\n",
			    "loopback.drain-timeout: '0s' is not valid");
	expect_config_error("loopback:\n  active: true\n  drain-timeout: 31s\n", "from 1s to 30s");
	expect_config_error("loopback:\n  take-over-lo: true\n",
			    ":2:3: loopback.take-over-lo: only valid with loopback.active");
	expect_config_error("loopback:\n  drain-timeout: 5s\n", "only valid with loopback.active");
	expect_config_error("loopback:\n  active: maybe\n",
			    "loopback.active: 'maybe' is not a boolean");
	expect_config_error("loopback:\n  colour: red\n", "loopback: unknown key 'colour'");
	expect_config_error(
		"loopback: {active: true}\npnet:\n  entries:\n"
		"    - {pnetid: SMCDVIASMCLO, ib: lo}\n",
		":4:7: pnet.entries: PNET ID SMCDVIASMCLO is used by the loopback: section");
}

/* ---- reconcile ------------------------------------------------------------------------- */

static void test_absent(void **state)
{
	struct manager *m;
	char p[1024];

	fake_reset(true);
	m = agent("seid: leave\n");
	assert_int_equal(manager_reconcile(m, RECONCILE_START), 0);
	for (size_t i = 0; i < m->report.n; i++)
		assert_true(strncmp(m->report.items[i].name, "loopback:", 9) != 0);
	snprintf(p, sizeof(p), "%s/modules/smc_lo", dir);
	assert_int_equal(access(p, F_OK), -1);
	manager_free(m);
}

static void test_no_module(void **state)
{
	struct manager *m;
	char buf[512];

	fake_reset(false);
	m = agent("loopback: {active: true}\n");
	assert_int_equal(manager_reconcile(m, RECONCILE_START), 0);
	expect(m, "loopback:module", ITEM_UNSUPPORTED, "install smc-lo-dkms");
	/* Nothing else is tried; SMC-D loopback stays with lo; not a fault. */
	expect(m, "loopback:take-over-lo", ITEM_UNCHANGED, "smc_lo is not loaded");
	assert_null(report_find(&m->report, "loopback:state"));
	assert_int_equal(m->state, MANAGER_RUNNING);
	manager_free(m);

	/* The module went away (DKMS removed) while lo had our PNET ID: lo gets it back. */
	fake_reset(false);
	write_file("pnet", "SMCDVIASMCLO ib lo 1\n");
	m = agent("loopback: {active: true}\n");
	assert_int_equal(manager_reconcile(m, RECONCILE_START), 0);
	expect(m, "loopback:module", ITEM_UNSUPPORTED, "install smc-lo-dkms");
	expect(m, "loopback:take-over-lo", ITEM_APPLIED,
	       "removed PNET ID SMCDVIASMCLO from lo: SMC-D loopback uses lo (smc_lo is not loaded)");
	assert_string_equal(read_file("pnet", buf, sizeof(buf)), "");
	manager_free(m);

	/* The same with active: false and the module unloaded. */
	fake_reset(true);
	write_file("pnet", "SMCDVIASMCLO ib lo 1\n");
	m = agent("loopback: {active: false}\n");
	assert_int_equal(manager_reconcile(m, RECONCILE_START), 0);
	expect(m, "loopback:take-over-lo", ITEM_APPLIED, "smc_lo is not loaded");
	assert_string_equal(read_file("pnet", buf, sizeof(buf)), "");
	manager_free(m);

	/* active: false never loads it. */
	fake_reset(true);
	m = agent("loopback: {active: false}\n");
	assert_int_equal(manager_reconcile(m, RECONCILE_START), 0);
	expect(m, "loopback:device", ITEM_UNCHANGED, "not loaded");
	manager_free(m);
}

/*
 * 6.10-6.17 with CONFIG_SMC_LO (the 612lo lane): no DIBS, loopback-ism inside smc.ko.  Every
 * key of the section is unsupported with the reason; nothing is loaded or tried, no fault.
 * Without loopback-ism either (6.1, or 6.12 as Debian ships it) the reason says that.
 */
static void test_no_dibs(void **state)
{
	struct manager *m;
	char p[1024];

	fake_reset(true);
	sh("touch no-dibs && echo loopback-ism >smcd-devices");
	m = agent("loopback: {active: true, nocopy: false, max-dmbs: 64}\n");
	assert_int_equal(manager_reconcile(m, RECONCILE_START), 0);
	expect(m, "loopback:module", ITEM_UNSUPPORTED, "needs Linux 6.18 or later with DIBS");
	expect(m, "loopback:state", ITEM_UNSUPPORTED,
	       "loopback-ism, built into smc.ko (Linux 6.10-6.17, CONFIG_SMC_LO): it is active "
	       "while smc is loaded and cannot be activated or deactivated");
	expect(m, "loopback:settings", ITEM_UNSUPPORTED, "at most 5000 DMBs");
	expect(m, "loopback:take-over-lo", ITEM_UNSUPPORTED, "no DIBS device lo");
	assert_int_equal(m->state, MANAGER_RUNNING);
	snprintf(p, sizeof(p), "%s/modules/smc_lo", dir);
	assert_int_equal(access(p, F_OK), -1);
	manager_free(m);

	/* active: false alone: one item, the device cannot be deactivated. */
	m = agent("loopback: {active: false}\n");
	assert_int_equal(manager_reconcile(m, RECONCILE_START), 0);
	expect(m, "loopback:state", ITEM_UNSUPPORTED, "cannot be activated or deactivated");
	assert_null(report_find(&m->report, "loopback:module"));
	assert_null(report_find(&m->report, "loopback:settings"));
	assert_null(report_find(&m->report, "loopback:take-over-lo"));
	assert_int_equal(m->state, MANAGER_RUNNING);
	manager_free(m);

	/* No loopback device at all (no DIBS, no CONFIG_SMC_LO). */
	sh("rm smcd-devices");
	m = agent("loopback: {active: true, dmb-type: physical}\n");
	assert_int_equal(manager_reconcile(m, RECONCILE_START), 0);
	expect(m, "loopback:state", ITEM_UNSUPPORTED, "no loopback device to activate");
	expect(m, "loopback:settings", ITEM_UNSUPPORTED, "no loopback-ism (CONFIG_SMC_LO");
	assert_int_equal(m->state, MANAGER_RUNNING);
	manager_free(m);
}

static void test_activate_and_keep(void **state)
{
	struct manager *m;
	char buf[512];

	fake_reset(true);
	m = agent("loopback:\n  active: true\n  max-dmbs: 64\n");
	assert_int_equal(manager_reconcile(m, RECONCILE_START), 0);
	expect(m, "loopback:module", ITEM_APPLIED, "loaded");
	expect(m, "loopback:settings", ITEM_APPLIED, "max-dmbs 64");
	expect(m, "loopback:state", ITEM_APPLIED, "activated (generation 1)");
	expect(m, "loopback:take-over-lo", ITEM_APPLIED, "gave lo PNET ID SMCDVIASMCLO");
	/* lo loses SMC-D loopback only after smclo is active */
	assert_true(index_of(m, "loopback:state") < index_of(m, "loopback:take-over-lo"));
	assert_string_equal(read_file("pnet", buf, sizeof(buf)), "SMCDVIASMCLO ib lo 1\n");
	assert_string_equal(read_file("smclo/state", buf, sizeof(buf)), "active 1\n");
	assert_string_equal(read_file("smclo/active", buf, sizeof(buf)), "physical 1 64\n");
	assert_int_equal(m->state, MANAGER_RUNNING);

	/* Idempotent. */
	assert_int_equal(manager_reconcile(m, RECONCILE_REQUEST), 0);
	expect(m, "loopback:module", ITEM_UNCHANGED, NULL);
	expect(m, "loopback:settings", ITEM_UNCHANGED, "max-dmbs 64");
	expect(m, "loopback:state", ITEM_UNCHANGED, "active (generation 1)");
	expect(m, "loopback:take-over-lo", ITEM_UNCHANGED, NULL);

	/* A new setting for a running device: stored, then the device is re-activated. */
	reload(m, "loopback:\n  active: true\n  max-dmbs: 128\n  nocopy: false\n");
	expect(m, "loopback:settings", ITEM_APPLIED,
	       "set to dmb-type physical, nocopy off, max-dmbs 128");
	expect(m, "loopback:state", ITEM_APPLIED,
	       "re-activated with the file's settings (generation 2)");
	expect(m, "loopback:take-over-lo", ITEM_UNCHANGED, NULL);
	assert_string_equal(read_file("smclo/active", buf, sizeof(buf)), "physical 0 128\n");
	assert_string_equal(read_file("smclo/counters", buf, sizeof(buf)), "2 1\n");

	/* Drift: someone deactivated it; drift.action report reports, repair repairs. */
	reload(m, "loopback:\n  active: true\n  max-dmbs: 128\n  nocopy: false\n"
		  "drift: {action: report}\n");
	write_file("smclo/state", "inactive 2\n");
	assert_int_equal(manager_reconcile(m, RECONCILE_PERIODIC), 0);
	expect(m, "loopback:state", ITEM_DRIFTED, "desired active, actual inactive");
	expect(m, "loopback:take-over-lo", ITEM_DRIFTED, "smclo is not active");
	assert_int_equal(m->state, MANAGER_DEGRADED);
	reload(m, "loopback:\n  active: true\n  max-dmbs: 128\n  nocopy: false\n");
	expect(m, "loopback:state", ITEM_APPLIED, "activated (generation 3)");

	/* active: false: lo gets SMC-D loopback back first, then smclo is drained. */
	reload(m, "loopback:\n  active: false\n");
	expect(m, "loopback:take-over-lo", ITEM_APPLIED, "removed PNET ID SMCDVIASMCLO from lo");
	expect(m, "loopback:state", ITEM_APPLIED, "deactivated");
	assert_true(index_of(m, "loopback:take-over-lo") < index_of(m, "loopback:state"));
	assert_string_equal(read_file("pnet", buf, sizeof(buf)), "");
	assert_string_equal(read_file("smclo/state", buf, sizeof(buf)), "inactive 3\n");
	manager_free(m);
}

/* The loopback: section removed: lo keeps our PNET ID only while smclo is active. */
static void test_section_removed(void **state)
{
	struct manager *m;
	char buf[512];

	fake_reset(true);
	m = agent("loopback: {active: true}\n");
	assert_int_equal(manager_reconcile(m, RECONCILE_START), 0);
	assert_string_equal(read_file("pnet", buf, sizeof(buf)), "SMCDVIASMCLO ib lo 1\n");
	reload(m, "seid: leave\n");
	assert_null(report_find(&m->report, "loopback:take-over-lo"));
	assert_string_equal(read_file("pnet", buf, sizeof(buf)), "SMCDVIASMCLO ib lo 1\n");
	/* Someone deactivates smclo: lo gets SMC-D loopback back. */
	write_file("smclo/state", "inactive 1\n");
	assert_int_equal(manager_reconcile(m, RECONCILE_PERIODIC), 0);
	expect(m, "loopback:take-over-lo", ITEM_APPLIED, "smclo is not active");
	assert_string_equal(read_file("pnet", buf, sizeof(buf)), "");
	/* ... and nothing more is said about it afterwards. */
	assert_int_equal(manager_reconcile(m, RECONCILE_PERIODIC), 0);
	assert_null(report_find(&m->report, "loopback:take-over-lo"));
	manager_free(m);
}

/*
 * A setting the file leaves out, changed with smcctl (stored, pending): no re-activation
 * on the next reconcile, with drift.action report no drift either.  A key the file owns
 * that differs from the running device's does re-activate; not when it cannot be stored.
 */
static void test_unowned_setting(void **state)
{
	struct smclo_set_request q = { .set_max_dmbs = true, .max_dmbs = 100 };
	struct smclo_device d;
	struct manager *m;
	char buf[512];

	fake_reset(true);
	m = agent("loopback:\n  active: true\n  nocopy: true\n");
	assert_int_equal(manager_reconcile(m, RECONCILE_START), 0);
	expect(m, "loopback:state", ITEM_APPLIED, "activated (generation 1)");
	assert_int_equal(fake_smclo_set_dir(dir, &q, &d), 0);
	assert_true(d.pending);
	assert_int_equal(manager_reconcile(m, RECONCILE_PERIODIC), 0);
	expect(m, "loopback:settings", ITEM_UNCHANGED, "max-dmbs 100");
	expect(m, "loopback:state", ITEM_UNCHANGED, "active (generation 1)");
	assert_string_equal(read_file("smclo/state", buf, sizeof(buf)), "active 1\n");
	reload(m, "loopback:\n  active: true\n  nocopy: true\ndrift: {action: report}\n");
	assert_int_equal(manager_reconcile(m, RECONCILE_PERIODIC), 0);
	expect(m, "loopback:state", ITEM_UNCHANGED, "active (generation 1)");
	assert_int_equal(m->state, MANAGER_RUNNING);

	/* The file's nocopy cannot be stored: no re-activation with the old settings. */
	write_file("smclo/set-fails", "");
	reload(m, "loopback:\n  active: true\n  nocopy: false\n");
	expect(m, "loopback:settings", ITEM_FAILED, NULL);
	expect(m, "loopback:state", ITEM_FAILED, "not re-activated");
	assert_string_equal(read_file("smclo/state", buf, sizeof(buf)), "active 1\n");

	/* Stored: re-activated, the pending max-dmbs of smcctl taken along. */
	sh("rm smclo/set-fails");
	assert_int_equal(manager_reconcile(m, RECONCILE_PERIODIC), 0);
	expect(m, "loopback:state", ITEM_APPLIED, "re-activated with the file's settings");
	assert_string_equal(read_file("smclo/active", buf, sizeof(buf)), "physical 0 100\n");
	manager_free(m);
}

static void test_stuck_and_lo_pnet(void **state)
{
	struct manager *m;
	const char *msg;
	char buf[512], first[512];

	/* lo has a PNET ID of the user's: it is out of SMC-Dv2 already, nothing to add. */
	fake_reset(true);
	write_file("pnet", "NOLO ib lo 1\n");
	m = agent("loopback: {active: true}\n");
	assert_int_equal(manager_reconcile(m, RECONCILE_START), 0);
	expect(m, "loopback:take-over-lo", ITEM_UNCHANGED, "lo has PNET ID NOLO");

	/* A removal that cannot finish: failed, with what holds it; degraded. */
	write_file("smclo/stuck", "");
	reload(m, "loopback: {active: false}\n");
	msg = expect(m, "loopback:state", ITEM_FAILED, "still being removed")->message;
	snprintf(first, sizeof(first), "%s", msg);
	assert_int_equal(m->state, MANAGER_DEGRADED);
	/* The next passes do not drain again (the fake would finish the removal now) and
	 * say the same words every time (the log de-duplicates them). */
	sh("rm smclo/stuck");
	assert_int_equal(manager_reconcile(m, RECONCILE_PERIODIC), 0);
	msg = expect(m, "loopback:state", ITEM_FAILED, "still being removed")->message;
	assert_string_equal(read_file("smclo/state", buf, sizeof(buf)), "draining 1\n");
	assert_int_equal(manager_reconcile(m, RECONCILE_PERIODIC), 0);
	assert_string_equal(expect(m, "loopback:state", ITEM_FAILED, NULL)->message, msg);
	assert_null(strpbrk(msg, "0123456789"));
	assert_null(strstr(first, " ms"));
	/* ... and activating again while it is removed waits for it. */
	reload(m, "loopback: {active: true}\n");
	expect(m, "loopback:state", ITEM_FAILED, "still being removed");
	expect(m, "loopback:take-over-lo", ITEM_UNCHANGED, "smclo is not active");
	assert_string_equal(read_file("pnet", buf, sizeof(buf)), "NOLO ib lo 1\n");
	/* lo must not stay without SMC-D loopback while smclo cannot be activated. */
	write_file("pnet", "SMCDVIASMCLO ib lo 1\n");
	assert_int_equal(manager_reconcile(m, RECONCILE_REQUEST), 0);
	expect(m, "loopback:take-over-lo", ITEM_APPLIED,
	       "removed PNET ID SMCDVIASMCLO from lo: SMC-D loopback uses lo (smclo is not active");
	assert_string_equal(read_file("pnet", buf, sizeof(buf)), "");
	manager_free(m);
}

static void test_pnet_exclusive(void **state)
{
	struct manager *m;
	char buf[512];

	fake_reset(true);
	write_file("pnet", "SMCLODRAIN ib smclo 1\nOTHER eth eth0\n");
	m = agent("loopback: {active: true}\npnet: {exclusive: true}\n");
	assert_int_equal(manager_reconcile(m, RECONCILE_START), 0);
	expect(m, "pnet:OTHER", ITEM_APPLIED, NULL);
	assert_null(report_find(&m->report, "pnet:SMCLODRAIN"));
	assert_null(report_find(&m->report, "pnet:SMCDVIASMCLO"));
	assert_string_equal(read_file("pnet", buf, sizeof(buf)),
			    "SMCLODRAIN ib smclo 1\nSMCDVIASMCLO ib lo 1\n");
	/* A second pass does not remove lo's PNET ID either. */
	assert_int_equal(manager_reconcile(m, RECONCILE_REQUEST), 0);
	expect(m, "loopback:take-over-lo", ITEM_UNCHANGED, NULL);
	manager_free(m);
}

/* The real kernel's module check (kernel-smcnl.c, on a sysroot): a module that rmmod is
 * removing counts as not loaded, or the agent, hearing smc_lo's family go, would read the
 * device and make the kernel load smc_lo again. */
static void test_module_going(void **state)
{
	struct kernel *k = NULL;
	char root[600];

	sh("rm -rf root && mkdir -p root/sys/module/smc_lo root/sys/module/smc");
	snprintf(root, sizeof(root), "%s/root", dir);
	assert_int_equal(kernel_smcnl_new(root, &k), 0);
	assert_int_equal(k->ops->module_loaded(k, "smc"), 1); /* built in: no initstate */
	write_file("root/sys/module/smc_lo/initstate", "live\n");
	assert_int_equal(k->ops->module_loaded(k, "smc_lo"), 1);
	write_file("root/sys/module/smc_lo/initstate", "going\n");
	assert_int_equal(k->ops->module_loaded(k, "smc_lo"), 0);
	assert_int_equal(k->ops->module_loaded(k, "smc_diag"), 0);
	kernel_free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_absent),
		cmocka_unit_test(test_no_module),
		cmocka_unit_test(test_no_dibs),
		cmocka_unit_test(test_activate_and_keep),
		cmocka_unit_test(test_section_removed),
		cmocka_unit_test(test_unowned_setting),
		cmocka_unit_test(test_stuck_and_lo_pnet),
		cmocka_unit_test(test_pnet_exclusive),
		cmocka_unit_test(test_module_going),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
