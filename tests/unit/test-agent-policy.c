// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smc.yaml "policies:" (parsing, errors with their FILE:LINE:COL, dump round trip) and the
 * policy planner (policy-plan.c), which is pure: made-up observations in, items and ops out.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/macro.h"
#include "config/config.h"
#ifdef HAVE_BPF
#include "bpf/smcbpf.h"
#endif
#include "smcd-agent/policy-engine.h"

static char tmp_path[] = "/tmp/test-agent-policy-XXXXXX";

static int setup(void **state)
{
	int fd = mkstemp(tmp_path);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	unlink(tmp_path);
	return 0;
}

static struct config *load_text(const char *text, struct config_errors *errors)
{
	struct config *c = NULL;
	FILE *f = fopen(tmp_path, "we");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	memset(errors, 0, sizeof(*errors));
	if (config_load(tmp_path, &c, errors) < 0)
		return NULL;
	return c;
}

static void expect_error(const char *text, const char *expected)
{
	struct config_errors errors;
	struct config *c = load_text(text, &errors);
	char want[1024];

	snprintf(want, sizeof(want), "%s:%s", tmp_path, expected);
	assert_null(c);
	assert_true(errors.n >= 1);
	assert_string_equal(errors.lines[0], want);
	config_errors_clear(&errors);
}

/* ---- parsing ------------------------------------------------------------------------------ */

static void test_parse_full(void **state)
{
	struct config_errors errors;
	struct config *c = load_text("policies:\n"
				     "  cgroups: [/system.slice/nginx.service, /machine.slice, /]\n"
				     "  netns:\n"
				     "    - blue\n"
				     "    - /proc/1/ns/net\n"
				     "  exclude:\n"
				     "    - 192.0.2.0/24\n"
				     "    - {port: 5432}\n"
				     "    - {address: \"2001:db8::/32\", port: 443}\n"
				     "    - 10.1.2.3\n"
				     "    - \"::ffff:10.0.0.0/104\"\n",
				     &errors);
	const struct config_policies *p;

	assert_int_equal(errors.n, 0);
	assert_non_null(c);
	p = &c->policies;
	assert_int_equal(p->n_cgroups, 3);
	assert_string_equal(p->cgroups[0].path, "/system.slice/nginx.service");
	assert_string_equal(p->cgroups[2].path, "/");
	assert_int_equal(p->cgroups[1].line, 2);
	assert_int_equal(p->n_netns, 2);
	assert_string_equal(p->netns[0].path, "/run/netns/blue");
	assert_string_equal(p->netns[1].path, "/proc/1/ns/net");
	assert_int_equal(p->n_exclude, 5);
	assert_string_equal(p->exclude[0].text, "192.0.2.0/24");
	assert_int_equal(p->exclude[0].family, AF_INET);
	assert_int_equal(p->exclude[0].prefixlen, 24);
	assert_string_equal(p->exclude[1].text, "*:5432");
	assert_int_equal(p->exclude[1].family, 0);
	assert_string_equal(p->exclude[2].text, "[2001:db8::]/32:443");
	assert_string_equal(p->exclude[3].text, "10.1.2.3");
	assert_int_equal(p->exclude[3].prefixlen, 32);
	assert_int_equal(p->exclude[4].family, AF_INET6);
	assert_int_equal(config_policies_count(p), 10);
	config_free(c);
}

static void test_parse_empty(void **state)
{
	struct config_errors errors;
	struct config *c = load_text("policies: {}\n", &errors);

	assert_non_null(c);
	assert_int_equal(config_policies_count(&c->policies), 0);
	config_free(c);
	c = load_text("policies:\n  cgroups: []\n  exclude:\n", &errors);
	assert_non_null(c);
	assert_int_equal(config_policies_count(&c->policies), 0);
	config_free(c);
}

static void test_parse_errors(void **state)
{
	expect_error(
		"policies:\n  cgroups: [system.slice]\n",
		"2:13: policies.cgroups: 'system.slice' is not a valid cgroup path: it is not absolute (expected a path below the cgroup2 root such as /system.slice/nginx.service or /machine.slice)");
	expect_error(
		"policies:\n  cgroups: [/sys/fs/cgroup/machine.slice]\n",
		"2:13: policies.cgroups: '/sys/fs/cgroup/machine.slice' is not a valid cgroup path: it includes the mount point /sys/fs/cgroup (write the path below it, as /proc/PID/cgroup shows it) (expected a path below the cgroup2 root such as /system.slice/nginx.service or /machine.slice)");
	expect_error(
		"policies:\n  cgroups: [/a/../b]\n",
		"2:13: policies.cgroups: '/a/../b' is not a valid cgroup path: it has an empty, '.' or '..' component (expected a path below the cgroup2 root such as /system.slice/nginx.service or /machine.slice)");
	expect_error(
		"policies:\n  cgroups: [/a/]\n",
		"2:13: policies.cgroups: '/a/' is not a valid cgroup path: it ends with '/' (expected a path below the cgroup2 root such as /system.slice/nginx.service or /machine.slice)");
	expect_error(
		"policies:\n  cgroups: [/a, /a]\n",
		"2:17: policies.cgroups: duplicate entry '/a' (first given at line 2, column 13)");
	expect_error(
		"policies:\n  netns: [blue, /run/netns/blue]\n",
		"2:17: policies.netns: duplicate entry '/run/netns/blue' (first given at line 2, column 11)");
	expect_error(
		"policies:\n  netns: [a/b]\n",
		"2:11: policies.netns: 'a/b' is not valid (expected a name in /run/netns or an absolute path such as /proc/PID/ns/net)");
	/* the checks auto.scope.netns shares (config_netns_path_problem()) */
	expect_error(
		"policies:\n  netns: [/run/netns/..]\n",
		"2:11: policies.netns: '/run/netns/..' is not valid (expected a name in /run/netns or an absolute path such as /proc/PID/ns/net)");
	expect_error(
		"policies:\n  netns: [\"\"]\n",
		"2:11: policies.netns: '' is not valid (expected a name in /run/netns or an absolute path such as /proc/PID/ns/net)");
	expect_error(
		"policies:\n  exclude: [192.0.2.1/24]\n",
		"2:13: policies.exclude: '192.0.2.1/24' is not a network: it has host bits set (expected the network 192.0.2.0/24, without host bits)");
	expect_error(
		"policies:\n  exclude: [10.0.0.0/33]\n",
		"2:13: policies.exclude: '10.0.0.0/33' is not a valid address (expected a prefix length from 0 to 32)");
	expect_error(
		"policies:\n  exclude: [example.com]\n",
		"2:13: policies.exclude: 'example.com' is not a valid address (expected an IPv4 or IPv6 address, optionally /LENGTH)");
	expect_error(
		"policies:\n  exclude:\n    - {port: 0}\n",
		"3:14: policies.exclude.port: '0' is not a valid port (expected a port from 1 to 65535)");
	expect_error(
		"policies:\n  exclude:\n    - {}\n",
		"3:7: policies.exclude: an entry needs an address, a port or both (expected {address: ADDRESS[/LENGTH], port: PORT})");
	expect_error("policies:\n  exclude:\n    - {port: 80}\n    - {port: 80}\n",
		     "4:7: policies.exclude: duplicate entry *:80 (first given at line 3, column 7)");
	expect_error("policies:\n  exclude:\n    - {host: a}\n",
		     "3:8: policies.exclude: unknown key 'host' (expected one of: address, port)");
	expect_error("policies:\n  cgroup: [/a]\n",
		     "2:3: policies: unknown key 'cgroup' (expected one of: cgroups, netns, exclude)");
	expect_error(
		"sysctl:\n  hs_ctrl: x\npolicies:\n  exclude: [10.0.0.1]\n",
		"2:12: sysctl.hs_ctrl: net.smc.hs_ctrl is set by policies.exclude (line 4) to the agent's own smc_hs_ctrl (expected no sysctl.hs_ctrl while policies.exclude has entries)");
}

static void test_parse_limits(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	fputs("policies:\n  cgroups:\n", f);
	for (int i = 0; i < 65; i++)
		fprintf(f, "    - /c%d\n", i);
	fclose(f);
	expect_error(
		text,
		"67:7: policies.cgroups: too many entries (expected at most 64 cgroups and netns entries together)");
	free(text);
}

static void test_dump_round_trip(void **state)
{
	struct config_errors errors;
	struct config *c = load_text(
			      "policies:\n"
			      "  cgroups: [/system.slice/a b.service]\n"
			      "  netns: [blue]\n"
			      "  exclude: [192.0.2.0/24, {port: 5432}, {address: \"::1\", port: 80}]\n",
			      &errors),
		      *d;
	char *text, *again;
	FILE *f;

	assert_non_null(c);
	text = config_dump(c);
	assert_non_null(text);
	assert_non_null(strstr(text, "policies:\n  cgroups: [\"/system.slice/a b.service\"]\n"));
	f = fopen(tmp_path, "we");
	fputs(text, f);
	fclose(f);
	memset(&errors, 0, sizeof(errors));
	assert_int_equal(config_load(tmp_path, &d, &errors), 0);
	again = config_dump(d);
	/* Only the first line (path and revision) may differ. */
	assert_string_equal(strchr(text, '\n'), strchr(again, '\n'));
	free(text);
	free(again);
	config_free(c);
	config_free(d);
}

/* ---- planning ------------------------------------------------------------------------------ */

struct fixture {
	struct config *c;
	struct policy_caps caps;
	struct policy_observed o;
	struct policy_plan p;
};

static void fixture_load(struct fixture *f, const char *text)
{
	struct config_errors errors;

	memset(f, 0, sizeof(*f));
	f->c = load_text(text, &errors);
	assert_non_null(f->c);
	f->caps.probed = true;
	f->o.cgroups = calloc(f->c->policies.n_cgroups + 1, sizeof(*f->o.cgroups));
	f->o.netns_targets = calloc(f->c->policies.n_netns + 1, sizeof(*f->o.netns_targets));
}

static void fixture_free(struct fixture *f)
{
	policy_plan_clear(&f->p);
	policy_observed_clear(&f->o);
	config_free(f->c);
}

static void plan(struct fixture *f)
{
	policy_plan_clear(&f->p);
	assert_int_equal(policy_plan(&f->c->policies, &f->caps, &f->o, &f->p), 0);
}

static size_t count_ops(const struct fixture *f, enum policy_op_type t)
{
	size_t n = 0;

	for (size_t i = 0; i < f->p.n_ops; i++)
		n += f->p.ops[i].type == t;
	return n;
}

static const struct policy_op *find_op(const struct fixture *f, enum policy_op_type t)
{
	for (size_t i = 0; i < f->p.n_ops; i++)
		if (f->p.ops[i].type == t)
			return &f->p.ops[i];
	return NULL;
}

/* Nothing configured, nothing loaded: nothing to do, nothing probed. */
static void test_plan_nothing(void **state)
{
	struct fixture f;

	fixture_load(&f, "modules: [smc]\n");
	plan(&f);
	assert_int_equal(f.p.n_items, 0);
	assert_int_equal(f.p.n_ops, 0);
	fixture_free(&f);
}

/* First pass: load, put paths, ids and cookies, counts, cgroup_mkdir. */
static void test_plan_first_pass(void **state)
{
	struct fixture f;
	const struct policy_op *op;

	fixture_load(&f, "policies:\n  cgroups: [/a, /b]\n  netns: [blue]\n");
	f.o.cgroups[0] = (struct policy_target){ .key = 100 };
	f.o.cgroups[1] = (struct policy_target){ .err = -ENOENT };
	f.o.netns_targets[0] = (struct policy_target){ .key = 7777 };
	plan(&f);
	assert_int_equal(f.p.n_items, 3);
	assert_string_equal(f.p.items[0].name, "policy:cgroup:/a");
	assert_string_equal(f.p.items[2].name, "policy:netns:/run/netns/blue");
	assert_int_equal(f.p.items[0].state, PI_CHANGE);
	assert_int_equal(f.p.items[1].state, PI_CHANGE);
	assert_non_null(strstr(f.p.items[1].message, "waiting"));
	assert_int_equal(f.p.items[2].counter, 2);
	assert_int_equal(f.p.ops[0].type, POP_SELECT_LOAD);
	assert_int_equal(count_ops(&f, POP_PATH_PUT), 2);
	assert_int_equal(count_ops(&f, POP_CGID_PUT), 1);
	op = find_op(&f, POP_CGID_PUT);
	assert_int_equal(op->key, 100);
	assert_int_equal(op->idx, 0);
	op = find_op(&f, POP_NETNS_PUT);
	assert_int_equal(op->key, 7777);
	assert_int_equal(op->idx, 2);
	op = find_op(&f, POP_RULE_COUNTS);
	assert_int_equal(op->idx, 2);
	assert_int_equal(op->idx2, 1);
	assert_true(find_op(&f, POP_MKDIR_ATTACH)->on);
	fixture_free(&f);
}

/* Converged: the same observation as the kernel would show after the first pass. */
static void test_plan_converged(void **state)
{
	struct fixture f;
	static char paths[2][SMCBPF_CGROUP_PATH_MAX] = { "/a", "/b" };

	fixture_load(&f, "policies:\n  cgroups: [/a, /b]\n  netns: [blue]\n");
	f.o.cgroups[0] = (struct policy_target){ .key = 100 };
	f.o.cgroups[1] = (struct policy_target){ .err = -ENOENT };
	f.o.netns_targets[0] = (struct policy_target){ .key = 7777 };
	f.o.select_loaded = true;
	f.o.mkdir_attached = true;
	f.o.n_cgroup_rules = 2;
	f.o.n_netns_rules = 1;
	f.o.paths = malloc(sizeof(paths));
	memcpy(f.o.paths, paths, sizeof(paths));
	f.o.path_idx = calloc(2, sizeof(uint32_t));
	f.o.path_idx[1] = 1;
	f.o.n_paths = 2;
	f.o.cgroup_ids = calloc(1, sizeof(*f.o.cgroup_ids));
	f.o.cgroup_ids[0] = (struct policy_map_entry){ 100, 0 };
	f.o.n_cgroup_ids = 1;
	f.o.netns = calloc(1, sizeof(*f.o.netns));
	f.o.netns[0] = (struct policy_map_entry){ 7777, 2 };
	f.o.n_netns = 1;
	plan(&f);
	assert_int_equal(f.p.n_ops, 0);
	assert_int_equal(f.p.items[0].state, PI_OK);
	assert_int_equal(f.p.items[1].state, PI_WAITING);
	assert_int_equal(f.p.items[2].state, PI_OK);

	/* The service restarted: its cgroup has a new id, the old entry goes. */
	f.o.cgroups[0].key = 101;
	plan(&f);
	assert_int_equal(find_op(&f, POP_CGID_PUT)->key, 101);
	assert_int_equal(find_op(&f, POP_CGID_DEL)->key, 100);
	assert_int_equal(f.p.items[0].state, PI_CHANGE);

	/* The cgroup_mkdir program put the new id in before the lookup: nothing removed. */
	f.o.cgroup_ids[0].key = 101;
	plan(&f);
	assert_int_equal(f.p.n_ops, 0);

	/* /b could not be looked up for another reason: its entry stays. */
	f.o.cgroups[1] = (struct policy_target){ .err = -EACCES };
	f.o.cgroup_ids = realloc(f.o.cgroup_ids, 2 * sizeof(*f.o.cgroup_ids));
	f.o.cgroup_ids[1] = (struct policy_map_entry){ 200, 1 };
	f.o.n_cgroup_ids = 2;
	plan(&f);
	assert_null(find_op(&f, POP_CGID_DEL));
	assert_int_equal(f.p.items[1].state, PI_FAILED);
	fixture_free(&f);
}

/*
 * [/a, /b] becomes [/b]: /b's rule moves from index 1 to 0.  Its entries are put again with
 * the new index and must not be removed after (they were, by key: /b had no entry until the
 * next drift interval, reported as applied).
 */
static void test_plan_rule_moved(void **state)
{
	struct fixture f;
	static char paths[2][SMCBPF_CGROUP_PATH_MAX] = { "/a", "/b" };

	fixture_load(&f, "policies:\n  cgroups: [/b]\n");
	f.o.cgroups[0] = (struct policy_target){ .key = 200 };
	f.o.select_loaded = true;
	f.o.mkdir_attached = true;
	f.o.n_cgroup_rules = 2;
	f.o.paths = malloc(sizeof(paths));
	memcpy(f.o.paths, paths, sizeof(paths));
	f.o.path_idx = calloc(2, sizeof(uint32_t));
	f.o.path_idx[1] = 1;
	f.o.n_paths = 2;
	f.o.cgroup_ids = calloc(2, sizeof(*f.o.cgroup_ids));
	f.o.cgroup_ids[0] = (struct policy_map_entry){ 100, 0 };
	f.o.cgroup_ids[1] = (struct policy_map_entry){ 200, 1 };
	f.o.n_cgroup_ids = 2;
	plan(&f);
	assert_int_equal(find_op(&f, POP_PATH_PUT)->idx, 0);
	assert_string_equal(find_op(&f, POP_PATH_PUT)->path, "/b");
	assert_int_equal(find_op(&f, POP_CGID_PUT)->key, 200);
	assert_int_equal(count_ops(&f, POP_PATH_DEL), 1);
	assert_string_equal(find_op(&f, POP_PATH_DEL)->path, "/a");
	assert_int_equal(count_ops(&f, POP_CGID_DEL), 1);
	assert_int_equal(find_op(&f, POP_CGID_DEL)->key, 100);
	assert_int_equal(f.p.items[0].state, PI_CHANGE);
	fixture_free(&f);
}

/* Policies removed: entries go, counts to 0, cgroup_mkdir off, programs unloaded. */
static void test_plan_removed(void **state)
{
	struct fixture f;
	static char paths[1][SMCBPF_CGROUP_PATH_MAX] = { "/a" };

	fixture_load(&f, "policies: {}\n");
	f.o.select_loaded = true;
	f.o.mkdir_attached = true;
	f.o.n_cgroup_rules = 1;
	f.o.paths = malloc(sizeof(paths));
	memcpy(f.o.paths, paths, sizeof(paths));
	f.o.path_idx = calloc(1, sizeof(uint32_t));
	f.o.n_paths = 1;
	f.o.cgroup_ids = calloc(1, sizeof(*f.o.cgroup_ids));
	f.o.cgroup_ids[0] = (struct policy_map_entry){ 100, 0 };
	f.o.n_cgroup_ids = 1;
	plan(&f);
	assert_int_equal(f.p.n_items, 0);
	assert_int_equal(f.p.n_ops, 1);
	assert_int_equal(f.p.ops[0].type, POP_SELECT_UNLOAD);

	/* smcctl run enrolled processes through the agent: the programs stay, emptied. */
	f.o.keep_select = true;
	plan(&f);
	assert_null(find_op(&f, POP_SELECT_UNLOAD));
	assert_int_equal(count_ops(&f, POP_PATH_DEL), 1);
	assert_int_equal(count_ops(&f, POP_CGID_DEL), 1);
	assert_int_equal(find_op(&f, POP_RULE_COUNTS)->idx, 0);
	assert_false(find_op(&f, POP_MKDIR_ATTACH)->on);
	fixture_free(&f);
}

/* A kernel without the hook: every item says why, and where to go instead. */
static void test_plan_unsupported(void **state)
{
	struct fixture f;

	fixture_load(&f, "policies:\n  cgroups: [/a]\n  exclude: [{port: 80}]\n");
	f.caps.select_err = -ENOTSUP;
	snprintf(f.caps.select_why, sizeof(f.caps.select_why), "no hook");
	f.caps.excl_err = -ENOTSUP;
	snprintf(f.caps.excl_why, sizeof(f.caps.excl_why), "no hs_ctrl");
	plan(&f);
	assert_int_equal(f.p.n_ops, 0);
	assert_int_equal(f.p.n_items, 2);
	assert_int_equal(f.p.items[0].state, PI_UNSUPPORTED);
	assert_non_null(strstr(f.p.items[0].message, "no hook"));
	assert_non_null(strstr(f.p.items[0].message, "smcctl run --method preload"));
	assert_int_equal(f.p.items[0].counter, -1);
	assert_int_equal(f.p.items[1].state, PI_UNSUPPORTED);
	assert_non_null(strstr(f.p.items[1].message, "no hs_ctrl"));
	fixture_free(&f);
}

static void test_plan_exclude(void **state)
{
	struct fixture f;
	const struct policy_op *op;

	fixture_load(&f, "policies:\n  exclude: [192.0.2.0/24, {port: 5432}]\n");
	f.o.hs = calloc(3, sizeof(*f.o.hs));
	f.o.n_hs = 3;
	snprintf(f.o.hs[0].path, sizeof(f.o.hs[0].path), "/proc/1/ns/net");
	snprintf(f.o.hs[1].path, sizeof(f.o.hs[1].path), "/proc/99/ns/net");
	snprintf(f.o.hs[1].value, sizeof(f.o.hs[1].value), "theirs");
	snprintf(f.o.hs[2].path, sizeof(f.o.hs[2].path), "/run/netns/x");
	f.o.hs[2].err = -ENOENT;
	plan(&f);
	assert_int_equal(f.p.n_items, 2);
	assert_string_equal(f.p.items[0].name, "policy:exclude:192.0.2.0/24");
	assert_string_equal(f.p.items[1].name, "policy:exclude:*:5432");
	assert_int_equal(f.p.items[1].excl, 1);
	assert_int_equal(f.p.ops[0].type, POP_EXCL_LOAD);
	assert_int_equal(f.p.ops[1].type, POP_EXCL_RULES);
	assert_int_equal(count_ops(&f, POP_HS_SET), 1);
	op = find_op(&f, POP_HS_SET);
	assert_string_equal(op->path, "/proc/1/ns/net");
	assert_string_equal(op->value, "smcd_excl");
	assert_non_null(strstr(f.p.items[0].message, "in 1 of 2 network namespaces"));
	assert_non_null(strstr(f.p.items[0].message, "another smc_hs_ctrl ('theirs')"));

	/* Converged. */
	f.o.excl_loaded = true;
	f.o.n_rules = policy_excl_rules(&f.c->policies, f.o.rules);
	snprintf(f.o.hs[0].value, sizeof(f.o.hs[0].value), "smcd_excl");
	plan(&f);
	assert_int_equal(f.p.n_ops, 0);
	assert_int_equal(f.p.items[0].state, PI_OK);

	/* An older registration of the name is alive (a netns holds it: a kill before the
	 * renaming, a failed write): named again until it is gone. */
	f.o.excl_others_alive = true;
	plan(&f);
	assert_int_equal(count_ops(&f, POP_HS_SET), 1);
	assert_string_equal(find_op(&f, POP_HS_SET)->value, "smcd_excl");
	f.o.excl_others_alive = false;

	/* Registered anew (another build's was pinned, or none could be adopted): a netns that
	 * names ours still holds the old registration, so it is named again. */
	f.o.excl_loaded = false;
	plan(&f);
	assert_int_equal(f.p.ops[0].type, POP_EXCL_LOAD);
	assert_int_equal(count_ops(&f, POP_HS_SET), 1);
	op = find_op(&f, POP_HS_SET);
	assert_string_equal(op->path, "/proc/1/ns/net");
	assert_string_equal(op->value, "smcd_excl");
	fixture_free(&f);

	/* Exclusions removed: hs_ctrl cleared where it is ours, then unregistered. */
	fixture_load(&f, "policies: {}\n");
	f.o.excl_loaded = true;
	f.o.hs = calloc(2, sizeof(*f.o.hs));
	f.o.n_hs = 2;
	snprintf(f.o.hs[0].path, sizeof(f.o.hs[0].path), "/proc/1/ns/net");
	snprintf(f.o.hs[0].value, sizeof(f.o.hs[0].value), "smcd_excl");
	snprintf(f.o.hs[1].value, sizeof(f.o.hs[1].value), "theirs");
	plan(&f);
	assert_int_equal(f.p.n_ops, 2);
	assert_int_equal(f.p.ops[0].type, POP_HS_SET);
	assert_string_equal(f.p.ops[0].value, "");
	assert_int_equal(f.p.ops[1].type, POP_EXCL_UNLOAD);
	fixture_free(&f);
}

/* The rules as the BPF program takes them: masks, families, ports. */
static void test_excl_rules(void **state)
{
	struct fixture f;
	struct smcbpf_excl_rule r[SMCBPF_MAX_EXCL];

	fixture_load(
		&f,
		"policies:\n  exclude: [192.0.2.0/24, {port: 5432}, {address: \"2001:db8::/33\", port: 443}]\n");
	assert_int_equal(policy_excl_rules(&f.c->policies, r), 3);
	assert_int_equal(r[0].family, AF_INET);
	assert_int_equal(r[0].addr[0], htonl(0xc0000200));
	assert_int_equal(r[0].mask[0], htonl(0xffffff00));
	assert_int_equal(r[0].mask[1], 0);
	assert_int_equal(r[1].family, 0);
	assert_int_equal(r[1].port, 5432);
	assert_int_equal(r[1].mask[0], 0);
	assert_int_equal(r[2].family, AF_INET6);
	assert_int_equal(r[2].mask[0], 0xffffffff);
	assert_int_equal(r[2].mask[1], htonl(0x80000000));
	assert_int_equal(r[2].port, 443);
	fixture_free(&f);
}

#ifdef HAVE_BPF
/*
 * The pin directory found there already (bpf/smcbpf.c): used only as mkdir(root, 0700)
 * makes it, the agent's own and not writable by others; refused untouched otherwise
 * (issue 35).  bpffs needs root: the check takes any directory.
 */
static void test_pin_dir_check(void **state)
{
	char d[] = "/tmp/test-pin-dir-XXXXXX", link[64], why[512];
	struct stat st;

	assert_non_null(mkdtemp(d));
	assert_int_equal(chmod(d, 0700), 0);
	assert_int_equal(smcbpf_pin_dir_check(d, why, sizeof(why)), 0);
	assert_int_equal(chmod(d, 0755), 0);
	assert_int_equal(smcbpf_pin_dir_check(d, why, sizeof(why)), 0);
	assert_int_equal(chmod(d, 0770), 0);
	assert_int_equal(smcbpf_pin_dir_check(d, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "mode 0770, not the agent's own"));
	assert_non_null(strstr(why, "remove it"));
	assert_int_equal(stat(d, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0770); /* untouched */
	assert_int_equal(chmod(d, 0702), 0);
	assert_int_equal(smcbpf_pin_dir_check(d, why, sizeof(why)), -EPERM);
	if (geteuid() == 0) {
		assert_int_equal(chmod(d, 0700), 0);
		assert_int_equal(chown(d, 65534, 65534), 0);
		assert_int_equal(smcbpf_pin_dir_check(d, why, sizeof(why)), -EPERM);
		assert_non_null(strstr(why, "owned by uid 65534"));
		assert_int_equal(chown(d, 0, 0), 0);
	}
	assert_int_equal(chmod(d, 0700), 0);
	snprintf(link, sizeof(link), "%s.link", d);
	assert_int_equal(symlink(d, link), 0);
	assert_int_equal(smcbpf_pin_dir_check(link, why, sizeof(why)), -ELOOP);
	assert_non_null(strstr(why, "is a symbolic link"));
	unlink(link);
	assert_int_equal(smcbpf_pin_dir_check(link, why, sizeof(why)), -ENOENT);
	rmdir(d);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_full),	 cmocka_unit_test(test_parse_empty),
		cmocka_unit_test(test_parse_errors),	 cmocka_unit_test(test_parse_limits),
		cmocka_unit_test(test_dump_round_trip),	 cmocka_unit_test(test_plan_nothing),
		cmocka_unit_test(test_plan_first_pass),	 cmocka_unit_test(test_plan_converged),
		cmocka_unit_test(test_plan_rule_moved),	 cmocka_unit_test(test_plan_removed),
		cmocka_unit_test(test_plan_unsupported), cmocka_unit_test(test_plan_exclude),
		cmocka_unit_test(test_excl_rules),
#ifdef HAVE_BPF
		cmocka_unit_test(test_pin_dir_check),
#endif
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
