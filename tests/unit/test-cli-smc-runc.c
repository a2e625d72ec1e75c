// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smc-runc (cli/smc-runc-config.c): runc's command line as runc parses it (global options
 * with values, the command, --bundle in its four spellings, after the id too), and the edit
 * of config.json: the annotation and both hooks added once, after the bundle's own hooks,
 * everything else kept (numbers as written, Unicode); what the hook then reads of it
 * (oci_config_parse: opted in); and texts that must never be rewritten: not JSON, not an
 * object, a NUL inside, a second value after it, wrong types, nesting beyond the parser's
 * depth, and a text over the size bound.
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
#include <json-c/json.h>

#include <cmocka.h>

#include "cli/oci-hook.h"
#include "cli/smc-runc.h"
#include "common/macro.h"
#include "tests/unit/golden.h"

#define SMCCTL "/usr/bin/smcctl"
#define ID "3f1c9a0e5b7d4c2a8e6f0b1d2c3e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4"

static struct smc_runc_args parse(int r_want, ...)
{
	char *argv[32] = { "smc-runc" };
	struct smc_runc_args a;
	int argc = 1;
	va_list ap;

	va_start(ap, r_want);
	for (char *s; (s = va_arg(ap, char *));)
		argv[argc++] = s;
	va_end(ap);
	assert_int_equal(smc_runc_args_parse(argc, argv, &a), r_want);
	if (a.command) /* it points into argv, which goes now: keep a copy's truth */
		a.command = streq(a.command, "create")	? "create"
			    : streq(a.command, "run")	? "run"
			    : streq(a.command, "start") ? "start"
							: "other";
	return a;
}

static void test_args(void **state)
{
	struct smc_runc_args a;

	(void)state;
	/* containerd's own spelling: global options with values, then create. */
	a = parse(0, "--root", "/run/docker/runtime-runc/moby", "--log", "/run/l.json",
		  "--log-format", "json", "--systemd-cgroup", "create", "--bundle", "/b/one",
		  "--pid-file", "/b/one/init.pid", ID, NULL);
	assert_true(a.creates);
	assert_string_equal(a.command, "create");
	assert_string_equal(a.bundle, "/b/one");
	assert_int_equal(a.first, 1);
	assert_null(a.runtime);
	/* -b=, after the id (urfave/cli takes options after arguments). */
	a = parse(0, "create", ID, "-b=/b/two", NULL);
	assert_string_equal(a.bundle, "/b/two");
	a = parse(0, "-debug", "create", "--bundle=/b/three", ID, NULL);
	assert_string_equal(a.bundle, "/b/three");
	a = parse(0, "create", "-b", "/b/four", ID, NULL);
	assert_string_equal(a.bundle, "/b/four");
	/* No --bundle: runc's working directory. */
	a = parse(0, "create", ID, NULL);
	assert_string_equal(a.bundle, ".");
	/* run creates too. */
	a = parse(0, "run", "-d", "--bundle", "/b/five", ID, NULL);
	assert_true(a.creates);
	assert_string_equal(a.bundle, "/b/five");
	/* A value that looks like a command or an option is a value. */
	a = parse(0, "--root", "create", "start", ID, NULL);
	assert_false(a.creates);
	assert_string_equal(a.command, "start");
	a = parse(0, "create", "--console-socket", "-b", ID, NULL);
	assert_string_equal(a.bundle, ".");
	a = parse(0, "create", ID, "--", "--bundle", "/not", NULL);
	assert_string_equal(a.bundle, ".");
	/* Every other command passes untouched. */
	for (const char *const *c = (const char *const[]){ "start", "delete", "state", "kill", NULL };
	     *c; c++) {
		a = parse(0, *c, ID, NULL);
		assert_false(a.creates);
	}
	a = parse(0, "--version", NULL);
	assert_null(a.command);
	a = parse(0, NULL);
	assert_null(a.command);
	/* A --bundle without its value: not ours to edit, runc says what is missing. */
	a = parse(0, "create", ID, "--bundle", NULL);
	assert_false(a.creates);
	/* The runtime, first argument only. */
	a = parse(0, SMC_RUNC_RUNTIME_OPT "/usr/sbin/runc", "create", ID, NULL);
	assert_string_equal(a.runtime, "/usr/sbin/runc");
	assert_int_equal(a.first, 2);
	a = parse(0, "create", SMC_RUNC_RUNTIME_OPT "/x", ID, NULL);
	assert_null(a.runtime);
	parse(-EINVAL, SMC_RUNC_RUNTIME_OPT, "create", ID, NULL);
}

static int edit(const char *text, char **ret, char *why)
{
	return smc_runc_config_edit(text, strlen(text), SMCCTL, ret, why, 512);
}

static json_object *hook_at(json_object *root, const char *stage, size_t i)
{
	json_object *hooks, *list;

	assert_true(json_object_object_get_ex(root, "hooks", &hooks));
	assert_true(json_object_object_get_ex(hooks, stage, &list));
	assert_true(json_object_is_type(list, json_type_array));
	if (i == SIZE_MAX)
		i = json_object_array_length(list) - 1;
	return json_object_array_get_idx(list, i);
}

static void assert_our_hook(json_object *h, const char *stage)
{
	json_object *v;

	assert_non_null(h);
	assert_true(json_object_object_get_ex(h, "path", &v));
	assert_string_equal(json_object_get_string(v), SMCCTL);
	assert_true(json_object_object_get_ex(h, "args", &v));
	assert_int_equal(json_object_array_length(v), 3);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 0)), "smcctl");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 1)), "oci-hook");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 2)), stage);
	assert_true(json_object_object_get_ex(h, "timeout", &v));
	assert_int_equal(json_object_get_int(v), 10);
}

/* docker's config.json as runc gets it: no annotations, its own prestart hook. */
static const char docker_config[] =
	"{\"ociVersion\":\"1.0.2-dev\",\"process\":{\"args\":[\"/bin/smc-conn\"],\"cwd\":\"/\"},"
	"\"hooks\":{\"prestart\":[{\"path\":\"/proc/4242/exe\",\"args\":[\"libnetwork-setkey\","
	"\"-exec-root=/var/run/docker\",\"" ID "\",\"a1b2\"]}],"
	"\"createRuntime\":[{\"path\":\"/usr/bin/other-hook\"}]},"
	"\"linux\":{\"cgroupsPath\":\"system.slice:docker:" ID "\","
	"\"resources\":{\"memory\":{\"limit\":18446744073709551615,\"swappiness\":-1}},"
	"\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"network\"},{\"type\":\"mount\"}]},"
	"\"x-real\":1.50,\"x-utf8\":\"\\u00e9\\ud83d\\ude00 \\/ \\\"\"}\n";

static void test_edit(void **state)
{
	_cleanup_(freep) char *out = NULL, *again = NULL;
	json_object *before, *after, *v, *ann;
	struct oci_container c = { .id = ID };
	char why[512] = "";

	(void)state;
	assert_int_equal(edit(docker_config, &out, why), 1);
	assert_non_null(out);
	before = json_tokener_parse(docker_config);
	after = json_tokener_parse(out);
	assert_non_null(after);
	/* The annotation, and each hook once, after the bundle's own. */
	assert_true(json_object_object_get_ex(after, "annotations", &ann));
	assert_true(json_object_object_get_ex(ann, OCI_HOOK_ANNOTATION, &v));
	assert_string_equal(json_object_get_string(v), OCI_HOOK_ANNOTATION_ON);
	assert_our_hook(hook_at(after, "createRuntime", 1), "createRuntime");
	assert_our_hook(hook_at(after, "poststop", 0), "poststop");
	assert_true(json_object_equal(hook_at(before, "createRuntime", 0),
				      hook_at(after, "createRuntime", 0)));
	assert_true(json_object_equal(hook_at(before, "prestart", 0), hook_at(after, "prestart", 0)));
	/* Everything else as it was: drop what was added and compare. */
	json_object_object_del(after, "annotations");
	{
		json_object *hooks, *list;

		json_object_object_get_ex(after, "hooks", &hooks);
		json_object_object_del(hooks, "poststop");
		json_object_object_get_ex(hooks, "createRuntime", &list);
		json_object_array_del_idx(list, 1, 1);
	}
	assert_true(json_object_equal(before, after));
	/* Numbers as written (not 1.5, not a double's rounding of 2^64-1). */
	assert_non_null(strstr(out, "18446744073709551615"));
	assert_non_null(strstr(out, "1.50"));
	assert_non_null(strstr(out, "\"swappiness\":-1"));
	json_object_put(before);
	json_object_put(after);
	/* What the hook reads of it: opted in, the scope docker's. */
	assert_int_equal(oci_config_parse(out, &c, why, sizeof(why)), 0);
	assert_true(c.opted_in);
	assert_string_equal(c.unit, "docker-" ID ".scope");
	assert_int_equal(c.netns, OCI_NETNS_OWN);
	/* Once: a second edit finds it all there. */
	assert_int_equal(edit(out, &again, why), 0);
	assert_null(again);
	/* An annotation saying otherwise is overridden: --runtime smc is the opt-in. */
	assert_int_equal(edit("{\"annotations\":{\"org.smcd.smc\":\"false\"}}", &again, why), 1);
	after = json_tokener_parse(again);
	assert_true(json_object_object_get_ex(after, "annotations", &ann));
	assert_true(json_object_object_get_ex(ann, OCI_HOOK_ANNOTATION, &v));
	assert_string_equal(json_object_get_string(v), "true");
	json_object_put(after);
	free(TAKE_PTR(again));
	/* null members are absent ones. */
	assert_int_equal(edit("{\"annotations\":null,\"hooks\":{\"poststop\":null}}", &again, why),
			 1);
	after = json_tokener_parse(again);
	assert_our_hook(hook_at(after, "poststop", 0), "poststop");
	json_object_put(after);
}

static void test_edit_refused(void **state)
{
	static const struct {
		const char *text;
		const char *why;
	} cases[] = {
		{ "", "it is not JSON" },
		{ "{", "it is not JSON" },
		{ "{\"a\":}", "it is not JSON" },
		{ "[]", "it is not a JSON object" },
		{ "null", "it is not a JSON object" },
		{ "\"{}\"", "it is not a JSON object" },
		{ "{} {}", "more than one JSON value" },
		{ "{}x", "more than one JSON value" },
		{ "{\"annotations\":[]}", "its annotations is not an object" },
		{ "{\"annotations\":\"org.smcd.smc=true\"}", "its annotations is not an object" },
		{ "{\"hooks\":7}", "its hooks is not an object" },
		{ "{\"hooks\":{\"createRuntime\":{}}}", "its hooks.createRuntime is not an array" },
		{ "{\"hooks\":{\"poststop\":\"x\"}}", "its hooks.poststop is not an array" },
	};
	char why[512], *out = (char *)1;

	(void)state;
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		why[0] = '\0';
		assert_int_equal(edit(cases[i].text, &out, why), -EINVAL);
		assert_null(out);
		if (!strstr(why, cases[i].why))
			fail_msg("'%s': '%s', not '%s'", cases[i].text, why, cases[i].why);
	}
	/* A NUL inside: json-c would stop there and the rest be lost. */
	assert_int_equal(smc_runc_config_edit("{}\0{\"hooks\":1}", 14, SMCCTL, &out, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "NUL"));
	assert_null(out);
}

static void test_edit_huge(void **state)
{
	size_t n = SMC_RUNC_CONFIG_MAX;
	_cleanup_(freep) char *big = malloc(n + 1), *out = NULL;
	char why[512];

	(void)state;
	assert_non_null(big);
	/* Nesting far beyond json-c's depth: refused, not a crash. */
	memset(big, '[', 100000);
	memcpy(big, "{\"a\":", 5);
	big[100000] = '\0';
	assert_int_equal(edit(big, &out, why), -EINVAL);
	assert_null(out);
	/* At the bound: -EFBIG, not read further. */
	memset(big, ' ', n);
	big[0] = '{';
	big[n - 1] = '}';
	big[n] = '\0';
	assert_int_equal(smc_runc_config_edit(big, n, SMCCTL, &out, why, sizeof(why)), -EFBIG);
	assert_null(out);
	/* Just under it, one long string: edited, the string kept whole. */
	n = SMC_RUNC_CONFIG_MAX - 64;
	memset(big, 'x', n);
	memcpy(big, "{\"s\":\"", 6);
	memcpy(big + n - 2, "\"}", 2);
	big[n] = '\0';
	assert_int_equal(edit(big, &out, why), 1);
	assert_non_null(strstr(out, "oci-hook"));
	assert_true(strlen(out) > n - 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_edit),
		cmocka_unit_test(test_edit_refused),
		cmocka_unit_test(test_edit_huge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
