// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The dry run (smcd-agent/plan.c, kernel-dryrun.c, common/plan-text.c): the document of a
 * plan on the fake kernel and its text, golden (tests/golden/agent/config-diff*), the exit
 * statuses, and the dry-run kernel, which answers writes without passing them on: the
 * fake kernel's files stay as they were while the loopback reconciler "activates" smclo.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "common/macro.h"
#include "common/output.h"
#include "common/plan-text.h"
#include "smcd-agent/loopback-reconcile.h"
#include "smcd-agent/plan.h"
#include "tests/unit/golden.h"

static char dir[] = "/tmp/test-agent-dryrun-XXXXXX";

/* Every file of the fake kernel with its content and mtime, for "nothing was written". */
static char *kernel_state(void)
{
	char cmd[512], *out = NULL;
	size_t len = 0;
	FILE *p, *m;
	int ch;

	snprintf(cmd, sizeof(cmd),
		 "cd '%s/kernel' && find . -type f -printf '%%p %%T@ ' -exec md5sum {} \\; | sort",
		 dir);
	p = popen(cmd, "r");
	m = open_memstream(&out, &len);
	assert_non_null(p);
	assert_non_null(m);
	while ((ch = fgetc(p)) != EOF)
		fputc(ch, m);
	assert_int_equal(pclose(p), 0);
	fclose(m);
	assert_true(len > 0);
	return out;
}

static int setup(void **state)
{
	char cmd[1024];

	if (!mkdtemp(dir))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && mkdir -p kernel/sysctl kernel/modules kernel/smclo && "
		 "echo 65536 > kernel/sysctl/wmem && echo 65536 > kernel/sysctl/rmem && "
		 "echo SMC-OLD > kernel/ueid && echo 'NET9 eth eth9' > kernel/pnet && "
		 "echo 0 > kernel/hs_limitation && "
		 "touch kernel/modules/smc kernel/modules/smc_lo && "
		 "echo 'inactive 0' > kernel/smclo/state",
		 dir);
	return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[1100];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* The file's path is fixed (it is in the document); the text is what differs. */
static const char config_yaml[] = "ueid:\n"
				  "  auto: false\n"
				  "  exclusive: true\n"
				  "  entries: [SMC-NEW]\n"
				  "handshake-limitation: true\n"
				  "modules: [smc, smc_diag]\n"
				  "sysctl:\n"
				  "  wmem: 1MiB\n"
				  "  rmem: 64KiB\n"
				  "pnet:\n"
				  "  exclusive: true\n"
				  "  entries: [{pnetid: NET1, eth: eth0}]\n"
				  "policies:\n"
				  "  cgroups: [/system.slice/demo.service]\n"
				  "loopback:\n"
				  "  active: true\n"
				  "  take-over-lo: false\n";

static json_object *plan_of(const char *yaml)
{
	_cleanup_(kernel_freep) struct kernel *k = NULL;
	struct config_errors errors = {};
	struct config *c = NULL;
	json_object *doc = NULL;
	char kdir[256];

	snprintf(kdir, sizeof(kdir), "%s/kernel", dir);
	assert_int_equal(kernel_fake_new(kdir, &k), 0);
	if (config_load_text("/etc/smc/smc.yaml", yaml, strlen(yaml), NULL, &c, &errors) < 0) {
		doc = config_plan_invalid_json("/etc/smc/smc.yaml", &errors, PLAN_PLANNER_STANDALONE);
		config_errors_clear(&errors);
		return doc;
	}
	assert_int_equal(config_plan_json(k, NULL, c, PLAN_PLANNER_STANDALONE, &doc), 0);
	config_free(c);
	return doc;
}

static void check_text(json_object *doc, bool all, const char *golden)
{
	struct capture cap;

	capture_begin(&cap);
	plan_text(cap.f, doc, all);
	golden_check(golden, capture_end(&cap));
	free(cap.buf);
}

static void check_json(json_object *doc, const char *cmd, const char *golden)
{
	struct capture cap;

	capture_begin(&cap);
	fprintf(cap.f, "$ %s\n", cmd);
	out_json(cap.f, doc, true);
	golden_check(golden, capture_end(&cap));
	free(cap.buf);
}

static void test_plan_document_and_text(void **state)
{
	_cleanup_(freep) char *before = kernel_state(), *after = NULL;
	_cleanup_(json_object_putp) json_object *doc = plan_of(config_yaml);

	assert_non_null(doc);
	check_json(doc, "smcctl -j config diff", "agent/config-diff.json.txt");
	check_text(doc, false, "agent/config-diff.txt");
	check_text(doc, true, "agent/config-diff-all.txt");
	assert_int_equal(plan_exit_status(doc), PLAN_EXIT_CHANGES);
	after = kernel_state();
	assert_string_equal(before, after);
}

static void test_plan_nothing_to_change(void **state)
{
	_cleanup_(json_object_putp) json_object *doc =
		plan_of("ueid: {auto: false}\nmodules: [smc]\nsysctl: {wmem: 64KiB}\n");

	assert_non_null(doc);
	assert_int_equal(out_get_u64(doc, "changes", 99), 0);
	assert_int_equal(plan_exit_status(doc), PLAN_EXIT_NONE);
}

static void test_plan_invalid(void **state)
{
	_cleanup_(json_object_putp) json_object *doc = plan_of("sysctl:\n  wmem: lots\n");

	assert_non_null(doc);
	assert_int_equal(plan_exit_status(doc), PLAN_EXIT_INVALID);
	check_json(doc, "smcctl -j config diff", "agent/config-diff-invalid.json.txt");
	check_text(doc, false, "agent/config-diff-invalid.txt");
}

/* The loopback reconciler, which applies as it goes, through the dry-run kernel. */
static void test_dryrun_kernel_writes_nothing(void **state)
{
	_cleanup_(kernel_freep) struct kernel *fake = NULL, *dry = NULL;
	_cleanup_(freep) char *before = kernel_state(), *after = NULL;
	struct config_loopback lo = { .present = true, .has_active = true, .active = true };
	struct report rep = {};
	char kdir[256];

	snprintf(kdir, sizeof(kdir), "%s/kernel", dir);
	assert_int_equal(kernel_fake_new(kdir, &fake), 0);
	assert_int_equal(kernel_dryrun_new(fake, &dry), 0);
	assert_true(loopback_reconcile(dry, &lo, NULL, false, &rep) >= 0);
	assert_non_null(report_find(&rep, "loopback:state"));
	assert_int_equal(report_find(&rep, "loopback:state")->result, ITEM_APPLIED);
	/* The activation was asked for, answered, and never reached the kernel below. */
	assert_true(kernel_dryrun_writes(dry) >= 1);
	after = kernel_state();
	assert_string_equal(before, after);
	report_clear(&rep);
}

/* smc_lo not loaded: the plan loads nothing (resolving its family would load it), and its
 * device cannot be planned: said so, exit status 3. */
static void test_plan_smclo_not_loaded(void **state)
{
	char path[300];
	_cleanup_(freep) char *before = NULL, *after = NULL;
	_cleanup_(json_object_putp) json_object *doc = NULL;
	json_object *items, *dev = NULL;

	snprintf(path, sizeof(path), "%s/kernel/modules/smc_lo", dir);
	assert_int_equal(unlink(path), 0);
	before = kernel_state();
	doc = plan_of("ueid: {auto: false}\nmodules: [smc]\nloopback: {active: true}\n");
	assert_non_null(doc);
	items = out_get(doc, "items");
	for (size_t i = 0; items && i < json_object_array_length(items); i++)
		if (streq(out_get_str(json_object_array_get_idx(items, i), "item", ""),
			  "loopback:device"))
			dev = json_object_array_get_idx(items, i);
	assert_non_null(dev);
	assert_string_equal(out_get_str(dev, "state", ""), "failed");
	assert_non_null(strstr(out_get_str(dev, "message", ""), "a plan loads nothing"));
	assert_int_equal(plan_exit_status(doc), PLAN_EXIT_UNPLANNED);
	after = kernel_state();
	assert_string_equal(before, after);
	assert_int_equal(access(path, F_OK), -1); /* still not loaded */
	assert_int_equal(close(open(path, O_CREAT | O_WRONLY, 0644)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_document_and_text),
		cmocka_unit_test(test_plan_nothing_to_change),
		cmocka_unit_test(test_plan_invalid),
		cmocka_unit_test(test_dryrun_kernel_writes_nothing),
		cmocka_unit_test(test_plan_smclo_not_loaded),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
