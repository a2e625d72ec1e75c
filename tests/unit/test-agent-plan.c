// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reconciliation: planning (desired + actual → actions, pure) and applying through the
 * fake kernel of kernel-fake.c (idempotence, drift, one failure not stopping the rest).
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
#include "smcd-agent/reconcile.h"
#include "tests/unit/golden.h"

static char dir[] = "/tmp/test-agent-plan-XXXXXX";
static char cfg_path[512];
static char mid_path[512];

static void write_file(const char *name, const char *text)
{
	test_write_file(dir, name, text);
}

static char *read_file(const char *name, char *buf, size_t len)
{
	return test_read_file(dir, name, buf, len);
}

static int setup(void **state)
{
	char p[1024];

	if (!mkdtemp(dir))
		return -1;
	snprintf(p, sizeof(p), "%s/sysctl", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/modules", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/modules-available", dir);
	mkdir(p, 0755);
	snprintf(cfg_path, sizeof(cfg_path), "%s/smc.yaml", dir);
	snprintf(mid_path, sizeof(mid_path), "%s/machine-id", dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[1100];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* A fresh fake kernel with SMC: default sysctls, empty tables, smc loaded. */
static void fake_reset(void)
{
	char cmd[1200];

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && rm -rf ueid pnet seid hs_limitation no-smc modules/* modules-available/* sysctl/* && "
		 "echo 65536 > sysctl/wmem && echo 65536 > sysctl/rmem && echo 65536 > sysctl/autocorking_size && "
		 "touch modules/smc modules-available/smc_diag",
		 dir);
	assert_int_equal(system(cmd), 0);
}

static struct config *config_text(const char *text)
{
	struct config_errors errors = {};
	struct config *c = NULL;
	char full[4096];

	snprintf(full, sizeof(full), "ueid:\n  machine-id-file: %s\n%s", mid_path, text);
	write_file("smc.yaml", full);
	if (config_load(cfg_path, &c, &errors) < 0) {
		for (size_t i = 0; i < errors.n; i++)
			fprintf(stderr, "%s\n", errors.lines[i]);
		fail();
	}
	config_errors_clear(&errors);
	return c;
}

static const struct plan_item *plan_find(const struct plan *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (streq(p->items[i].name, name))
			return &p->items[i];
	return NULL;
}

static void expect_result(const struct report *r, const char *name, enum item_result want,
			  const char *message)
{
	const struct item_report *ir = report_find(r, name);

	if (!ir)
		fail_msg("no item %s", name);
	if (ir->result != want)
		fail_msg("%s: %s (%s), expected %s", name, item_result_to_string(ir->result),
			 ir->message, item_result_to_string(want));
	if (message)
		assert_string_equal(ir->message, message);
}

#define MID "0123456789abcdef0123456789abcdef\n"
#define MID_UEID "MID-0123456789ABCDEF0123456789A"
/* HMAC-SHA256 (tests/unit/test-common-ueid-derive.c has where it comes from) */
#define APP_UEID "APP-2AD86DCC3FC94797917BC8340A5D"

/* ---------------------------------------------------------------------------------- */

static void test_ueid_derive(void **state)
{
	char ueid[SMC_EID_LEN + 1], other[SMC_EID_LEN + 1], err[160];

	write_file("machine-id", MID);
	assert_int_equal(
		ueid_auto_derive(mid_path, UEID_DERIVE_MACHINE_ID, ueid, other, err, sizeof(err)), 0);
	assert_string_equal(ueid, MID_UEID);
	assert_int_equal(strlen(ueid), 31);
	assert_string_equal(other, APP_UEID);
	assert_int_equal(
		ueid_auto_derive(mid_path, UEID_DERIVE_APP_SPECIFIC, ueid, other, err, sizeof(err)),
		0);
	assert_string_equal(ueid, APP_UEID);
	assert_string_equal(other, MID_UEID);
	write_file("machine-id", "uninitialized\n");
	assert_int_equal(
		ueid_auto_derive(mid_path, UEID_DERIVE_APP_SPECIFIC, ueid, NULL, err, sizeof(err)),
		-EINVAL);
	assert_true(strncmp(err, mid_path, strlen(mid_path)) == 0); /* "FILE <why>" */
	assert_int_equal(ueid_auto_derive("/nonexistent", UEID_DERIVE_APP_SPECIFIC, ueid, NULL, err,
					  sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "cannot read /nonexistent: No such file or directory");
}

/* The UEID of ueid.auto in each ueid.derive, and the other one's, from the same file. */
static void test_plan_ueid_derive_modes(void **state)
{
	static const struct {
		const char *yaml, *want, *other;
	} cases[] = {
		{ "", APP_UEID, MID_UEID },
		{ "  derive: app-specific\n", APP_UEID, MID_UEID },
		{ "  derive: machine-id\n", MID_UEID, APP_UEID },
	};

	write_file("machine-id", MID);
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		char yaml[256];
		struct config *c;
		struct actual_state a = { .caps.smc_module = true };
		struct desired_extra x;
		struct plan p = {};
		const struct plan_item *it;

		snprintf(yaml, sizeof(yaml), "%ssysctl: {}\n", cases[i].yaml);
		c = config_text(yaml);
		desired_extra_compute(c, &x);
		assert_string_equal(x.auto_ueid, cases[i].want);
		assert_string_equal(x.other_ueid, cases[i].other);
		assert_int_equal(plan_settings(c, &x, &a, &p), 0);
		it = plan_find(&p, cases[i].want[0] == 'A' ? "ueid:" APP_UEID : "ueid:" MID_UEID);
		assert_non_null(it);
		assert_int_equal(it->action, PLAN_UEID_ADD);
		/* Not in the table: nothing to remove. */
		assert_null(plan_find(&p, cases[i].want[0] == 'A' ? "ueid:" MID_UEID
								  : "ueid:" APP_UEID));
		plan_clear(&p);
		config_free(c);
	}
}

/* Pure planning from hand-made actual states. */
static void test_plan_no_smc(void **state)
{
	struct config *c;
	struct actual_state a = {};
	struct desired_extra x;
	struct plan p = {};
	const struct plan_item *it;

	write_file("machine-id", MID);
	c = config_text("handshake-limitation: true\n");
	a.ueid_err = -EPROTONOSUPPORT;
	a.hs_err = -EPROTONOSUPPORT;
	a.sysctls = calloc(c->n_sysctls, sizeof(*a.sysctls));
	for (size_t i = 0; i < c->n_sysctls; i++)
		a.sysctls[i].err = -ENOENT;
	desired_extra_compute(c, &x);
	assert_int_equal(plan_settings(c, &x, &a, &p), 0);
	assert_int_equal(plan_count_changes(&p), 0);
	it = plan_find(&p, "ueid:" APP_UEID);
	assert_non_null(it);
	assert_int_equal(it->action, PLAN_UNSUPPORTED);
	/* smc_strerror()'s sentence, which libsmcnl may continue with advice. */
	assert_true(strncmp(it->message, "SMC is not available in this kernel", 35) == 0);
	it = plan_find(&p, "sysctl:wmem");
	assert_int_equal(it->action, PLAN_UNSUPPORTED);
	assert_string_equal(it->message, "SMC is not loaded in this kernel (no /proc/sys/net/smc)");
	assert_int_equal(plan_find(&p, "handshake-limitation")->action, PLAN_UNSUPPORTED);
	plan_clear(&p);
	free(a.sysctls);
	config_free(c);
}

static void test_plan_changes(void **state)
{
	struct config *c;
	struct actual_state a = {};
	struct desired_extra x;
	struct plan p = {};
	const struct plan_item *it;

	write_file("machine-id", MID);
	c = config_text("  entries: [KEEP]\n  exclusive: true\n"
			"seid: enable\n"
			"sysctl: {wmem: 1MiB, rmem: 64KiB, smcr_max_send_wr: 32}\n");
	a.caps.smc_module = true;
	snprintf(a.ueids[0], sizeof(a.ueids[0]), "FOREIGN");
	snprintf(a.ueids[1], sizeof(a.ueids[1]), "KEEP");
	a.n_ueids = 2;
	a.seid.present = false;
	a.sysctls = calloc(c->n_sysctls, sizeof(*a.sysctls));
	snprintf(a.sysctls[0].value, sizeof(a.sysctls[0].value), "65536");
	snprintf(a.sysctls[1].value, sizeof(a.sysctls[1].value), "65536");
	a.sysctls[2].err = -ENOENT;
	desired_extra_compute(c, &x);
	assert_string_equal(x.auto_ueid, APP_UEID);
	assert_int_equal(plan_settings(c, &x, &a, &p), 0);

	/* Removal before addition: the table holds only 4. */
	assert_string_equal(p.items[0].name, "ueid:FOREIGN");
	assert_int_equal(p.items[0].action, PLAN_UEID_DEL);
	assert_string_equal(p.items[1].name, "ueid:" APP_UEID);
	assert_int_equal(p.items[1].action, PLAN_UEID_ADD);
	assert_int_equal(plan_find(&p, "ueid:KEEP")->action, PLAN_NONE);
	it = plan_find(&p, "seid");
	assert_int_equal(it->action, PLAN_UNSUPPORTED);
	assert_string_equal(it->message,
			    "this machine has no SEID (only s390 systems have one): use a UEID");
	it = plan_find(&p, "sysctl:wmem");
	assert_int_equal(it->action, PLAN_SYSCTL_SET);
	assert_string_equal(it->value, "1048576");
	assert_string_equal(it->actual, "65536");
	assert_int_equal(plan_find(&p, "sysctl:rmem")->action, PLAN_NONE);
	it = plan_find(&p, "sysctl:smcr_max_send_wr");
	assert_int_equal(it->action, PLAN_UNSUPPORTED);
	assert_string_equal(it->message,
			    "this kernel has no net.smc.smcr_max_send_wr (it appeared in Linux 6.19)");
	assert_int_equal(plan_count_changes(&p), 3);
	plan_clear(&p);
	free(a.sysctls);
	config_free(c);
}

/* pnet.exclusive: a PNET ID with a foreign entry is deleted whole, its wanted entries re-added. */
static void test_plan_pnet_exclusive(void **state)
{
	struct config *c;
	struct actual_state a = {};
	struct desired_extra x;
	struct plan p = {};
	struct smc_pnet_entry e[3] = {};

	write_file("machine-id", MID);
	c = config_text("  auto: false\nsysctl: {}\npnet:\n  exclusive: true\n  entries:\n"
			"    - {pnetid: NET1, eth: eth0}\n    - {pnetid: NET2, ib: lo}\n");
	snprintf(e[0].pnetid, sizeof(e[0].pnetid), "NET1");
	snprintf(e[0].eth_name, sizeof(e[0].eth_name), "eth0");
	snprintf(e[1].pnetid, sizeof(e[1].pnetid), "NET1");
	snprintf(e[1].eth_name, sizeof(e[1].eth_name), "eth9");
	snprintf(e[2].pnetid, sizeof(e[2].pnetid), "NET2");
	snprintf(e[2].ib_name, sizeof(e[2].ib_name), "lo");
	e[2].ib_port = 1;
	a.pnet = e;
	a.n_pnet = 3;
	desired_extra_compute(c, &x);
	assert_int_equal(plan_settings(c, &x, &a, &p), 0);
	assert_int_equal(p.n, 3);
	assert_string_equal(p.items[0].name, "pnet:NET1");
	assert_int_equal(p.items[0].action, PLAN_PNET_DEL);
	assert_string_equal(p.items[1].name, "pnet:NET1:eth0");
	assert_int_equal(p.items[1].action, PLAN_PNET_ADD);
	assert_string_equal(p.items[2].name, "pnet:NET2:lo/1");
	assert_int_equal(p.items[2].action, PLAN_NONE);
	plan_clear(&p);
	config_free(c);
}

/* ---------------------------------------------------------------------------------- */
/* Apply through the fake kernel                                                        */

static void test_apply_idempotent(void **state)
{
	struct kernel *k = NULL;
	struct report r1 = {}, r2 = {};
	struct config *c;
	char buf[256];

	fake_reset();
	write_file("machine-id", MID);
	c = config_text("handshake-limitation: true\n"
			"pnet: {entries: [{pnetid: LOOP, ib: lo}]}\n");
	assert_int_equal(kernel_fake_new(dir, &k), 0);

	assert_int_equal(reconcile(k, c, NULL, false, &r1), 0);
	expect_result(&r1, "module:smc", ITEM_UNCHANGED, "loaded");
	expect_result(&r1, "module:smc_diag", ITEM_APPLIED, "loaded");
	expect_result(&r1, "ueid:" APP_UEID, ITEM_APPLIED, "added");
	expect_result(&r1, "handshake-limitation", ITEM_APPLIED, "set to true (was false)");
	/* The defaults' wmem is the kernel's 64 KiB: listed, kept, not written. */
	expect_result(&r1, "sysctl:wmem", ITEM_UNCHANGED, NULL);
	expect_result(&r1, "sysctl:rmem", ITEM_APPLIED, "set to 262144 (was 65536)");
	expect_result(&r1, "pnet:LOOP:lo/1", ITEM_APPLIED, "added");
	assert_string_equal(read_file("sysctl/rmem", buf, sizeof(buf)), "262144\n");
	assert_string_equal(read_file("ueid", buf, sizeof(buf)), APP_UEID "\n");

	/* A restart with the same file changes nothing. */
	assert_int_equal(reconcile(k, c, NULL, false, &r2), 0);
	assert_int_equal(r2.n, r1.n);
	for (size_t i = 0; i < r2.n; i++)
		if (r2.items[i].result != ITEM_UNCHANGED)
			fail_msg("%s: %s", r2.items[i].name,
				 item_result_to_string(r2.items[i].result));
	report_clear(&r1);
	report_clear(&r2);
	kernel_free(k);
	config_free(c);
}

static void test_apply_drift(void **state)
{
	struct kernel *k = NULL;
	struct report r1 = {}, r2 = {}, r3 = {};
	struct config *c;
	char buf[256];

	fake_reset();
	write_file("machine-id", MID);
	c = config_text("drift: {action: report}\n");
	assert_int_equal(kernel_fake_new(dir, &k), 0);
	assert_int_equal(reconcile(k, c, NULL, false, &r1), 0);

	/* By hand: a sysctl changed, the UEID removed. */
	write_file("sysctl/rmem", "65536\n");
	write_file("ueid", "");
	assert_int_equal(reconcile(k, c, &r1, true, &r2), 0);
	expect_result(&r2, "sysctl:rmem", ITEM_DRIFTED, "desired 262144, actual 65536");
	expect_result(&r2, "ueid:" APP_UEID, ITEM_DRIFTED, "desired present, actual absent");
	assert_string_equal(read_file("sysctl/rmem", buf, sizeof(buf)), "65536\n");

	/* Repair mode puts it back. */
	assert_int_equal(reconcile(k, c, &r2, false, &r3), 0);
	expect_result(&r3, "sysctl:rmem", ITEM_APPLIED, "set to 262144 (was 65536)");
	expect_result(&r3, "ueid:" APP_UEID, ITEM_APPLIED, "added");
	assert_string_equal(read_file("sysctl/rmem", buf, sizeof(buf)), "262144\n");
	report_clear(&r1);
	report_clear(&r2);
	report_clear(&r3);
	kernel_free(k);
	config_free(c);
}

/* Report mode still retries items that never took effect: that is not drift. */
static void test_apply_report_mode_retries_failures(void **state)
{
	struct kernel *k = NULL;
	struct report r1 = {}, r2 = {};
	struct config *c;

	fake_reset();
	write_file("machine-id", MID);
	write_file("no-smc", "");
	c = config_text("drift: {action: report}\n");
	assert_int_equal(kernel_fake_new(dir, &k), 0);
	assert_int_equal(reconcile(k, c, NULL, false, &r1), 0);
	expect_result(&r1, "ueid:" APP_UEID, ITEM_UNSUPPORTED, NULL);
	assert_non_null(strstr(report_find(&r1, "ueid:" APP_UEID)->message,
			       "SMC is not available in this kernel"));
	expect_result(&r1, "sysctl:rmem", ITEM_UNSUPPORTED, NULL);

	/* The module appears later. */
	fake_reset();
	assert_int_equal(reconcile(k, c, &r1, true, &r2), 0);
	expect_result(&r2, "ueid:" APP_UEID, ITEM_APPLIED, "added");
	expect_result(&r2, "sysctl:rmem", ITEM_APPLIED, NULL);
	report_clear(&r1);
	report_clear(&r2);
	kernel_free(k);
	config_free(c);
}

static void test_apply_failure_does_not_stop_others(void **state)
{
	struct kernel *k = NULL;
	struct report r = {};
	struct config *c;

	fake_reset();
	write_file("machine-id", MID);
	write_file("ueid", "A\nB\nC\nD\n");
	c = config_text("modules: [smc, smc_nope]\n");
	assert_int_equal(kernel_fake_new(dir, &k), 0);
	assert_int_equal(reconcile(k, c, NULL, false, &r), 0);
	expect_result(
		&r, "module:smc_nope", ITEM_FAILED,
		"no module smc_nope for this kernel (not built, or not installed under /lib/modules)");
	expect_result(&r, "ueid:" APP_UEID, ITEM_FAILED, NULL);
	assert_non_null(strstr(report_find(&r, "ueid:" APP_UEID)->message, "table is full"));
	expect_result(&r, "sysctl:wmem", ITEM_UNCHANGED, NULL);
	expect_result(&r, "sysctl:rmem", ITEM_APPLIED, NULL);
	report_clear(&r);
	kernel_free(k);
	config_free(c);
}

static void test_apply_missing_machine_id(void **state)
{
	struct kernel *k = NULL;
	struct report r = {};
	struct config *c;

	fake_reset();
	unlink(mid_path);
	c = config_text("");
	assert_int_equal(kernel_fake_new(dir, &k), 0);
	assert_int_equal(reconcile(k, c, NULL, false, &r), 0);
	expect_result(&r, "ueid:auto", ITEM_FAILED, NULL);
	assert_non_null(strstr(report_find(&r, "ueid:auto")->message, "cannot read"));
	expect_result(&r, "sysctl:rmem", ITEM_APPLIED, NULL);
	report_clear(&r);
	kernel_free(k);
	config_free(c);
}

/*
 * An upgraded host: the seed's MID- UEID of this machine is in the table, ueid.derive is
 * app-specific (the default).  ueid.auto owns both forms: the old one is removed, with one
 * line saying what replaced it and how to keep it; one the config lists, or one that
 * ueid.auto: false leaves alone, stays.
 */
#define REPLACED_MID                                                                           \
	"removed: this machine's UEID by ueid.derive: machine-id, replaced by " APP_UEID       \
	" (ueid.derive: app-specific); to keep it, set ueid.derive: machine-id or list it in " \
	"ueid.entries"
#define REPLACED_APP                                                                           \
	"removed: this machine's UEID by ueid.derive: app-specific, replaced by " MID_UEID     \
	" (ueid.derive: machine-id); to keep it, set ueid.derive: app-specific or list it in " \
	"ueid.entries"

static void reconcile_with(const char *table, const char *yaml, struct report *r)
{
	struct kernel *k = NULL;
	struct config *c;

	fake_reset();
	write_file("machine-id", MID);
	write_file("ueid", table);
	c = config_text(yaml);
	assert_int_equal(kernel_fake_new(dir, &k), 0);
	assert_int_equal(reconcile(k, c, NULL, false, r), 0);
	kernel_free(k);
	config_free(c);
}

static void test_apply_replaces_other_derivation(void **state)
{
	struct kernel *k = NULL;
	struct report r = {}, r2 = {};
	struct config *c;
	char buf[256];

	reconcile_with(MID_UEID "\nOTHER\n", "", &r);
	expect_result(&r, "ueid:" MID_UEID, ITEM_APPLIED, REPLACED_MID);
	expect_result(&r, "ueid:" APP_UEID, ITEM_APPLIED, "added");
	assert_null(report_find(&r, "ueid:OTHER")); /* not the machine's: not ours */
	assert_string_equal(read_file("ueid", buf, sizeof(buf)), "OTHER\n" APP_UEID "\n");
	report_clear(&r);

	/* Once removed, nothing more: a restart changes nothing. */
	c = config_text("");
	assert_int_equal(kernel_fake_new(dir, &k), 0);
	assert_int_equal(reconcile(k, c, NULL, false, &r), 0);
	assert_null(report_find(&r, "ueid:" MID_UEID));
	expect_result(&r, "ueid:" APP_UEID, ITEM_UNCHANGED, "present");
	/*
	 * Put back by hand, drift.action: report: removed again, as ueid.exclusive's removals
	 * are (an item the last check did not have is applied, not drift), with its line.
	 */
	write_file("ueid", "OTHER\n" APP_UEID "\n" MID_UEID "\n");
	assert_int_equal(reconcile(k, c, &r, true, &r2), 0);
	expect_result(&r2, "ueid:" MID_UEID, ITEM_APPLIED, REPLACED_MID);
	report_clear(&r);
	report_clear(&r2);
	kernel_free(k);
	config_free(c);

	/* Listed in ueid.entries: wanted, kept. */
	reconcile_with(MID_UEID "\n", "  entries: [" MID_UEID "]\n", &r);
	expect_result(&r, "ueid:" MID_UEID, ITEM_UNCHANGED, "present");
	expect_result(&r, "ueid:" APP_UEID, ITEM_APPLIED, "added");
	report_clear(&r);

	/* ueid.auto: false: neither form is the agent's. */
	reconcile_with(MID_UEID "\n", "  auto: false\n", &r);
	assert_null(report_find(&r, "ueid:" MID_UEID));
	assert_string_equal(read_file("ueid", buf, sizeof(buf)), MID_UEID "\n");
	report_clear(&r);

	/* The other way round: back to the seed's convention, the APP- one goes. */
	reconcile_with(APP_UEID "\n", "  derive: machine-id\n", &r);
	expect_result(&r, "ueid:" APP_UEID, ITEM_APPLIED, REPLACED_APP);
	expect_result(&r, "ueid:" MID_UEID, ITEM_APPLIED, "added");
	assert_string_equal(read_file("ueid", buf, sizeof(buf)), MID_UEID "\n");
	report_clear(&r);

	/* ueid.exclusive: one removal of it, with its reason, beside the foreign one. */
	reconcile_with(MID_UEID "\nFOREIGN\n", "  exclusive: true\n", &r);
	expect_result(&r, "ueid:" MID_UEID, ITEM_APPLIED, REPLACED_MID);
	expect_result(&r, "ueid:FOREIGN", ITEM_APPLIED, "removed: absent (ueid.exclusive)");
	assert_string_equal(read_file("ueid", buf, sizeof(buf)), APP_UEID "\n");
	report_clear(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ueid_derive),
		cmocka_unit_test(test_plan_ueid_derive_modes),
		cmocka_unit_test(test_plan_no_smc),
		cmocka_unit_test(test_plan_changes),
		cmocka_unit_test(test_plan_pnet_exclusive),
		cmocka_unit_test(test_apply_idempotent),
		cmocka_unit_test(test_apply_drift),
		cmocka_unit_test(test_apply_report_mode_retries_failures),
		cmocka_unit_test(test_apply_failure_does_not_stop_others),
		cmocka_unit_test(test_apply_missing_machine_id),
		cmocka_unit_test(test_apply_replaces_other_derivation),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
