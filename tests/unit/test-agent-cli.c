// SPDX-License-Identifier: GPL-2.0-or-later
/* smcctl status / config: the document built from the agent's properties, and its text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli/agent.h"
#include "common/output.h"

/* What GetAll returns, after cli/agent.c's generic conversion. */
static const char props_text[] =
	"{\"Version\":\"0.1.0\",\"State\":\"degraded\",\"ConfigPath\":\"/etc/smc/smc.yaml\","
	"\"ConfigRevision\":\"0123456789abcdef\",\"ConfigLoadedUSec\":0,"
	"\"ConfigError\":\"/etc/smc/smc.yaml:1:7: seid: bad\\n/etc/smc/smc.yaml:2:1: foo\","
	"\"LastReconcile\":[1700000000000000,[[\"sysctl:wmem\",\"applied\",\"set to 1048576 (was 65536)\"],"
	"[\"ueid:MID-X\",\"failed\",\"table full\"]]],\"LastCheckUSec\":1700000000000000,"
	"\"Drift\":[[\"sysctl:rmem\",\"drifted\",\"desired 1048576, actual 65536\"]],"
	"\"DriftAction\":\"report\",\"DriftIntervalUSec\":30000000,\"DriftRepairs\":2,"
	"\"Capabilities\":{\"kernel_release\":\"7.3.4\",\"smc_gen_netlink\":true,\"loopback\":true,"
	"\"dibs\":false,\"smc_version\":2}}";

static char *render(json_object *doc, void (*text)(struct smcctl *, json_object *))
{
	char *buf = NULL;
	size_t len = 0;
	struct smcctl c = { .err = stderr };

	c.out = open_memstream(&buf, &len);
	assert_non_null(c.out);
	text(&c, doc);
	fclose(c.out);
	return buf;
}

static void test_status(void **state)
{
	json_object *props = json_tokener_parse(props_text);
	json_object *doc;
	char *text;

	assert_non_null(props);
	doc = agent_status_json(props);
	assert_non_null(doc);
	assert_string_equal(out_get_str(doc, "state", NULL), "degraded");
	assert_string_equal(out_get_str(doc, "config.revision", NULL), "0123456789abcdef");
	assert_int_equal(out_get_u64(doc, "last_reconcile.time_usec", 0), 1700000000000000ULL);
	assert_string_equal(
		out_get_str(json_object_array_get_idx(out_get(doc, "last_reconcile.items"), 1),
			    "result", NULL),
		"failed");
	assert_string_equal(out_get_str(json_object_array_get_idx(out_get(doc, "drift.items"), 0),
					"item", NULL),
			    "sysctl:rmem");
	assert_int_equal(out_get_u64(doc, "drift.repairs", 0), 2);
	assert_true(out_get_bool(doc, "capabilities.loopback", false));

	text = render(doc, agent_status_text);
	assert_non_null(strstr(text, "Agent:          smcd-agent 0.1.0, degraded\n"));
	assert_non_null(strstr(text, "Refused reload: /etc/smc/smc.yaml:1:7: seid: bad\n"
				     "                /etc/smc/smc.yaml:2:1: foo\n"));
	assert_non_null(
		strstr(text, "Drift:          report every 30s; 2 repaired since start; 1 now\n"));
	assert_non_null(strstr(text, "Kernel:         7.3.4: smc_gen_netlink loopback\n"));
	assert_non_null(strstr(text, "sysctl:wmem  applied  set to 1048576 (was 65536)"));
	assert_non_null(strstr(text, "Drifted (not repaired, drift action is report):\n"));
	free(text);
	json_object_put(doc);
	json_object_put(props);
}

static void test_config_check(void **state)
{
	struct config_errors errors = { .n = 1 };
	json_object *doc;
	char *text;

	errors.lines[0] = (char *)"/x.yaml:1:1: wrong (expected right)";
	doc = config_check_json("/x.yaml", NULL, &errors);
	assert_non_null(doc);
	assert_false(out_get_bool(doc, "valid", true));
	assert_null(out_get(doc, "revision"));
	text = render(doc, config_check_text);
	assert_string_equal(text, "/x.yaml:1:1: wrong (expected right)\n");
	free(text);
	json_object_put(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_config_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
