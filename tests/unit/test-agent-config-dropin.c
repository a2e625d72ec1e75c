// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smc.yaml's drop-ins (config/dropin.c): FILE.d/NAME.yaml merged after FILE in byte order,
 * only policies: in them, errors naming the drop-in, duplicates across files merged, the
 * revision covering them, the dump saying where each entry came from; and the unit helpers
 * of "smcctl enable" (names, paths, text).
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
#include "config/config.h"
#include "config/dropin.h"

static char dir[] = "/tmp/test-config-dropin-XXXXXX";
static char main_path[256], dropin_dir[300];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void write_dropin(const char *name, const char *text)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", dropin_dir, name);
	write_file(path, text);
}

static int setup(void **state)
{
	if (!mkdtemp(dir))
		return -1;
	snprintf(main_path, sizeof(main_path), "%s/smc.yaml", dir);
	snprintf(dropin_dir, sizeof(dropin_dir), "%s.d", main_path);
	return 0;
}

static int teardown(void **state)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* A fresh smc.yaml with this text and an empty drop-in directory. */
static int fresh(void **state)
{
	char cmd[700];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir '%s'", dropin_dir, dropin_dir);
	if (system(cmd) != 0)
		return -1;
	write_file(main_path, "policies:\n  cgroups: [/system.slice/a.service]\n");
	return 0;
}

static struct config *load(struct config_errors *errors)
{
	struct config *c = NULL;

	memset(errors, 0, sizeof(*errors));
	if (config_load(main_path, &c, errors) < 0)
		return NULL;
	return c;
}

static void expect_error(const char *file, const char *expected)
{
	struct config_errors errors;
	struct config *c = load(&errors);
	char want[1024];

	snprintf(want, sizeof(want), "%s/%s:%s", dropin_dir, file, expected);
	assert_null(c);
	assert_true(errors.n >= 1);
	assert_string_equal(errors.lines[0], want);
	config_errors_clear(&errors);
}

static void test_no_directory(void **state)
{
	_cleanup_(config_freep) struct config *c = NULL;
	struct config_errors errors;

	assert_int_equal(rmdir(dropin_dir), 0);
	c = load(&errors);
	assert_non_null(c);
	assert_int_equal(c->policies.n_cgroups, 1);
	assert_int_equal(c->n_dropins, 0);
}

static void test_merge_in_order(void **state)
{
	_cleanup_(config_freep) struct config *c = NULL;
	struct config_errors errors;
	char b[600], z[600];

	/* Byte order: "50-unit-b" before "60-x", whatever the locale; hidden and other
	 * names are not read. */
	write_dropin("60-x.yaml", "policies:\n  cgroups: [/machine.slice]\n  netns: [blue]\n"
				  "  exclude: [192.0.2.0/24]\n");
	write_dropin("50-unit-b.service.yaml", "policies:\n  cgroups: [/system.slice/b.service]\n");
	write_dropin(".50-unit-c.service.yaml.XXXXXX", "garbage: [\n");
	write_dropin("notes.txt", "ueid: {}\n");
	write_dropin("README", "anything\n");
	c = load(&errors);
	assert_int_equal(errors.n, 0);
	assert_non_null(c);
	snprintf(b, sizeof(b), "%s/50-unit-b.service.yaml", dropin_dir);
	snprintf(z, sizeof(z), "%s/60-x.yaml", dropin_dir);
	assert_int_equal(c->n_dropins, 2);
	assert_string_equal(c->dropins[0], b);
	assert_string_equal(c->dropins[1], z);
	assert_int_equal(c->policies.n_cgroups, 3);
	assert_string_equal(c->policies.cgroups[0].path, "/system.slice/a.service");
	assert_null(c->policies.cgroups[0].file);
	assert_string_equal(c->policies.cgroups[1].path, "/system.slice/b.service");
	assert_string_equal(c->policies.cgroups[1].file, b);
	assert_int_equal(c->policies.cgroups[1].line, 2);
	assert_string_equal(c->policies.cgroups[2].path, "/machine.slice");
	assert_string_equal(c->policies.cgroups[2].file, z);
	assert_int_equal(c->policies.n_netns, 1);
	assert_string_equal(c->policies.netns[0].path, "/run/netns/blue");
	assert_int_equal(c->policies.n_exclude, 1);
	assert_string_equal(c->policies.exclude[0].file, z);
	/* policies: of the file, not of a drop-in. */
	assert_int_equal(c->policies.line, 1);
}

static void test_duplicates_across_files_merged(void **state)
{
	_cleanup_(config_freep) struct config *c = NULL;
	struct config_errors errors;

	write_dropin("50-unit-a.service.yaml", "policies:\n  cgroups: [/system.slice/a.service]\n"
					       "  exclude: [{port: 5432}]\n");
	write_dropin("60-y.yaml", "policies:\n  cgroups: [/system.slice/a.service]\n"
				  "  exclude: [{port: 5432}]\n");
	c = load(&errors);
	assert_int_equal(errors.n, 0);
	assert_non_null(c);
	assert_int_equal(c->policies.n_cgroups, 1);
	assert_null(c->policies.cgroups[0].file); /* the first is kept: smc.yaml's */
	assert_int_equal(c->policies.n_exclude, 1);
	assert_non_null(strstr(c->policies.exclude[0].file, "50-unit-a.service.yaml"));
}

static void test_duplicate_in_one_dropin_is_error(void **state)
{
	write_dropin("60-y.yaml", "policies:\n  cgroups: [/x.slice, /x.slice]\n");
	expect_error(
		"60-y.yaml",
		"2:23: policies.cgroups: duplicate entry '/x.slice' (first given at line 2, column 13)");
}

static void test_only_policies(void **state)
{
	char want[700];

	write_dropin("70-bad.yaml", "policies:\n  cgroups: [/x.slice]\nsysctl:\n  wmem: 2M\n");
	snprintf(want, sizeof(want),
		 "3:1: sysctl: only policies: may be set in a drop-in (expected policies: with cgroups, netns or exclude; set sysctl in %s)",
		 main_path);
	expect_error("70-bad.yaml", want);
}

static void test_errors_name_the_dropin(void **state)
{
	write_dropin("70-bad.yaml", "# a comment\npolicies:\n  cgroups: [relative/path]\n");
	expect_error(
		"70-bad.yaml",
		"3:13: policies.cgroups: 'relative/path' is not a valid cgroup path: it is not absolute (expected a path below the cgroup2 root such as /system.slice/nginx.service or /machine.slice)");
	write_dropin("70-bad.yaml", "- a list\n");
	expect_error("70-bad.yaml", "1:1: the drop-in is a list (expected a mapping with policies:)");
	write_dropin("70-bad.yaml", "policies:\n  cgroups: [/x.slice]\npolicies: {}\n");
	expect_error("70-bad.yaml",
		     "3:1: drop-in: duplicate key 'policies' (first given at line 1, column 1)");
	write_dropin("70-bad.yaml", "policies: {cgroups: [\n");
	{
		struct config_errors errors;

		assert_null(load(&errors));
		assert_true(errors.n >= 1);
		assert_non_null(strstr(errors.lines[0], "/70-bad.yaml:"));
		assert_non_null(strstr(errors.lines[0], "YAML syntax error"));
		config_errors_clear(&errors);
	}
}

static void test_not_regular(void **state)
{
	char path[600], want[700];
	struct config_errors errors;

	snprintf(path, sizeof(path), "%s/x.yaml", dropin_dir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_null(load(&errors));
	snprintf(want, sizeof(want), "%s: is a directory (expected a regular YAML file)", path);
	assert_int_equal(errors.n, 1);
	assert_string_equal(errors.lines[0], want);
	config_errors_clear(&errors);
	assert_int_equal(rmdir(path), 0);
	/* The directory itself a file: an error, never "no drop-ins". */
	assert_int_equal(rmdir(dropin_dir), 0);
	write_file(dropin_dir, "");
	assert_null(load(&errors));
	assert_int_equal(errors.n, 1);
	snprintf(want, sizeof(want),
		 "%s: cannot read the drop-in directory: Not a directory (expected a directory of NAME.yaml files, or none)",
		 dropin_dir);
	assert_string_equal(errors.lines[0], want);
	config_errors_clear(&errors);
	assert_int_equal(unlink(dropin_dir), 0);
}

/* The revision covers the drop-ins: a new or changed one is a new configuration. */
static void test_revision(void **state)
{
	struct config_errors errors;
	struct config *c;
	uint64_t h0, h1, h2;

	c = load(&errors);
	assert_non_null(c);
	h0 = c->hash;
	config_free(c);
	write_dropin("50-unit-b.service.yaml", "policies:\n  cgroups: [/b.slice]\n");
	c = load(&errors);
	assert_non_null(c);
	h1 = c->hash;
	config_free(c);
	write_dropin("50-unit-b.service.yaml", "policies:\n  cgroups: [/c.slice]\n");
	c = load(&errors);
	assert_non_null(c);
	h2 = c->hash;
	config_free(c);
	assert_true(h0 != h1);
	assert_true(h1 != h2);
}

/* Where each entry came from, as comments; the dump reads back to the same entries. */
static void test_dump(void **state)
{
	_cleanup_(config_freep) struct config *c = NULL, *d = NULL;
	_cleanup_(freep) char *text = NULL;
	struct config_errors errors;
	char want[2000];

	write_dropin("50-unit-b.service.yaml", "policies:\n  cgroups: [/system.slice/b.service]\n");
	c = load(&errors);
	assert_non_null(c);
	text = config_dump(c);
	assert_non_null(text);
	snprintf(want, sizeof(want), "# with the drop-in \"%s/50-unit-b.service.yaml\"\n",
		 dropin_dir);
	assert_non_null(strstr(text, want));
	snprintf(want, sizeof(want),
		 "policies:\n  cgroups:\n    - \"/system.slice/a.service\"  # %s:2\n"
		 "    - \"/system.slice/b.service\"  # %s/50-unit-b.service.yaml:2\n"
		 "  netns: []\n  exclude: []\n",
		 main_path, dropin_dir);
	assert_non_null(strstr(text, want));
	assert_int_equal(config_load_text("dump", text, strlen(text), NULL, &d, &errors), 0);
	assert_int_equal(d->policies.n_cgroups, 2);
	assert_string_equal(d->policies.cgroups[1].path, "/system.slice/b.service");
}

/* config_load_text(): drop-ins of the directory given, none without. */
static void test_load_text(void **state)
{
	_cleanup_(config_freep) struct config *c = NULL, *d = NULL;
	struct config_errors errors = {};

	write_dropin("50-unit-b.service.yaml", "policies:\n  cgroups: [/b.slice]\n");
	assert_int_equal(config_load_text(main_path, "", 0, dropin_dir, &c, &errors), 0);
	assert_int_equal(c->policies.n_cgroups, 1);
	assert_string_equal(c->policies.cgroups[0].path, "/b.slice");
	assert_int_equal(config_load_text(main_path, "", 0, NULL, &d, &errors), 0);
	assert_int_equal(d->policies.n_cgroups, 0);
}

static void test_unit_name(void **state)
{
	char u[CONFIG_UNIT_NAME_MAX + 1], long_name[300];
	const char *why;

	assert_int_equal(config_unit_name("nginx", u, &why), 0);
	assert_string_equal(u, "nginx.service");
	assert_int_equal(config_unit_name("foo.bar", u, &why), 0);
	assert_string_equal(u, "foo.bar.service");
	assert_int_equal(config_unit_name("getty@tty1.service", u, &why), 0);
	assert_string_equal(u, "getty@tty1.service");
	assert_int_equal(config_unit_name("machine.slice", u, &why), 0);
	assert_string_equal(u, "machine.slice");
	assert_int_equal(config_unit_name("run-r1.scope", u, &why), 0);
	assert_int_equal(config_unit_name("multi-user.target", u, &why), -EINVAL);
	assert_non_null(strstr(why, "runs no processes"));
	assert_int_equal(config_unit_name("../etc/passwd", u, &why), -EINVAL);
	assert_non_null(strstr(why, "a unit name has only"));
	assert_int_equal(config_unit_name("a/b", u, &why), -EINVAL);
	/* systemd takes a leading dot (.hidden.service): only the suffix's dot may not be first. */
	assert_int_equal(config_unit_name(".hidden", u, &why), 0);
	assert_string_equal(u, ".hidden.service");
	assert_int_equal(config_unit_name("", u, &why), -EINVAL);
	assert_int_equal(config_unit_name("a b", u, &why), -EINVAL);
	/* As systemd's unit_name_is_valid() (issue 35): templates, '@' first, a bare type. */
	assert_int_equal(config_unit_name("getty@.service", u, &why), -EINVAL);
	assert_non_null(strstr(why, "is a template"));
	assert_non_null(strstr(why, "NAME@INSTANCE.service"));
	assert_int_equal(config_unit_name("getty@", u, &why), -EINVAL);
	assert_non_null(strstr(why, "is a template"));
	assert_int_equal(config_unit_name("@tty1.service", u, &why), -EINVAL);
	assert_non_null(strstr(why, "starts with '@'"));
	assert_int_equal(config_unit_name(".service", u, &why), -EINVAL);
	assert_non_null(strstr(why, "only a type suffix"));
	assert_int_equal(config_unit_name("a\\x2db@x@y.service", u, &why), 0);
	assert_int_equal(config_unit_name("n\xc3\xa9.service", u, &why), -EINVAL);
	assert_non_null(strstr(why, "such as nginx, nginx.service or getty@tty1.service"));
	/* 255 with the suffix systemctl adds is the limit, as systemd's UNIT_NAME_MAX. */
	memset(long_name, 'a', 248);
	long_name[248] = '\0';
	assert_int_equal(config_unit_name(long_name, u, &why), -EINVAL);
	assert_non_null(strstr(why, "longer than 255"));
	memset(long_name, 'a', 250);
	long_name[250] = '\0';
	assert_int_equal(config_unit_name(long_name, u, &why), -EINVAL);
	assert_non_null(strstr(why, "longer than 255"));
	/* Longer than a drop-in's file name allows: 50-unit-NAME.yaml and its temporary. */
	memset(long_name, 'a', 227);
	long_name[227] = '\0';
	assert_int_equal(config_unit_name(long_name, u, &why), -EINVAL);
	assert_string_equal(
		why,
		"unit name too long for a drop-in file name: at most 234 characters (with its type suffix, such as .service)");
	long_name[226] = '\0';
	assert_int_equal(config_unit_name(long_name, u, &why), 0);
	assert_int_equal(strlen(u), CONFIG_UNIT_DROPIN_NAME_MAX);
	{
		/* ... and the longest one's drop-in can be written. */
		char d[] = "/tmp/test-unit-name-XXXXXX", cfg[64];
		_cleanup_(freep) char *path = NULL, *dd = NULL;

		assert_non_null(mkdtemp(d));
		snprintf(cfg, sizeof(cfg), "%s/smc.yaml", d);
		dd = config_dropin_dir(cfg);
		assert_int_equal(mkdir(dd, 0755), 0);
		path = config_unit_dropin_path(cfg, u);
		assert_int_equal(textfile_write_atomic(path, "policies: {}\n", 13, 0644, NULL), 0);
		assert_int_equal(unlink(path), 0);
		assert_int_equal(rmdir(dd), 0);
		assert_int_equal(rmdir(d), 0);
	}
}

/* The text enable writes is a valid drop-in of that cgroup; the path is where it is read. */
static void test_unit_dropin(void **state)
{
	_cleanup_(freep) char *path = config_unit_dropin_path(main_path, "b.service");
	_cleanup_(freep) char *text = config_unit_dropin_text("b.service", "/system.slice/b.service");
	_cleanup_(config_freep) struct config *c = NULL;
	const struct config_policy_target *t;
	struct config_errors errors;
	char want[600];

	assert_non_null(path);
	assert_non_null(text);
	snprintf(want, sizeof(want), "%s/50-unit-b.service.yaml", dropin_dir);
	assert_string_equal(path, want);
	write_file(path, text);
	c = load(&errors);
	assert_non_null(c);
	assert_int_equal(c->policies.n_cgroups, 2);
	t = config_unit_cgroup_find(c, "b.service", NULL);
	assert_non_null(t);
	assert_string_equal(t->file, path);
	assert_null(config_unit_cgroup_find(c, "b.service", path));
	/* a.service is smc.yaml's own: what disable must send the operator to. */
	t = config_unit_cgroup_find(c, "a.service", path);
	assert_non_null(t);
	assert_null(t->file);
	assert_null(config_unit_cgroup_find(c, "c.service", NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_no_directory, fresh),
		cmocka_unit_test_setup(test_merge_in_order, fresh),
		cmocka_unit_test_setup(test_duplicates_across_files_merged, fresh),
		cmocka_unit_test_setup(test_duplicate_in_one_dropin_is_error, fresh),
		cmocka_unit_test_setup(test_only_policies, fresh),
		cmocka_unit_test_setup(test_errors_name_the_dropin, fresh),
		cmocka_unit_test_setup(test_not_regular, fresh),
		cmocka_unit_test_setup(test_revision, fresh),
		cmocka_unit_test_setup(test_dump, fresh),
		cmocka_unit_test_setup(test_load_text, fresh),
		cmocka_unit_test_setup(test_unit_name, fresh),
		cmocka_unit_test_setup(test_unit_dropin, fresh),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
