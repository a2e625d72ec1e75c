// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * common/advice.c: the advice of synthetic counters at and around every threshold, of the
 * counters the 7x lane recorded (tests/fixtures, through the real parsers), and the same
 * advice from a counter tree (the agent's path) as from the rows (the kernel's path).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/advice.h"
#include "common/macro.h"
#include "common/stats-table.h"
#include "tests/unit/netlink-test-util.h"

#define N_ROWS_MAX 256

struct rows {
	struct stats_num v[N_ROWS_MAX];
};

static void set(struct rows *r, const char *key, uint64_t v)
{
	int i = stats_table_find(key);

	assert_true(i >= 0);
	r->v[i].u = v;
}

static const struct advice_env env64k = {
	.has_wmem = true, .has_rmem = true, .wmem = 65536, .rmem = 65536, .hs_limit = 0
};

static const struct advice *find(const struct advice *a, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(a[i].id, id))
			return &a[i];
	return NULL;
}

static size_t compute(const struct rows *r, const struct advice_env *env, struct advice *out)
{
	return advice_compute(r->v, NULL, 0, env, out, ADVICE_MAX);
}

static void test_table_fits(void **state)
{
	size_t n;
	const struct stats_desc *t = stats_table(&n);

	(void)state;
	assert_true(n <= N_ROWS_MAX);
	/* stats_table_find()'s index: every row by its key, nothing else. */
	for (size_t i = 0; i < n; i++)
		assert_int_equal(stats_table_find(t[i].key), (int)i);
	/* The strings are arrays: each one terminated within its array (not filled up). */
	for (size_t i = 0; i < n; i++) {
		assert_non_null(memchr(t[i].key, '\0', sizeof(t[i].key) - 1));
		assert_non_null(memchr(t[i].metric, '\0', sizeof(t[i].metric) - 1));
		assert_non_null(memchr(t[i].labels, '\0', sizeof(t[i].labels) - 1));
	}
	assert_int_equal(stats_table_find("smcd"), -ENOENT);
	assert_int_equal(stats_table_find("smcd.rx.bytes.x"), -ENOENT);
	assert_int_equal(stats_table_find(""), -ENOENT);
	assert_int_equal(stats_table_find(NULL), -ENOENT);
}

/* advice_env.load: called once, and only when a rule's counters call for the settings. */
static unsigned loads;

static void load64k(struct advice_env *env)
{
	loads++;
	*env = env64k;
}

static void test_env_on_demand(void **state)
{
	const struct advice_env lazy = { .hs_limit = -1, .load = load64k };
	struct stats_tree_reason nosmc = { .server = true, .code = 0x03010000u, .n = { .u = 5 } };
	struct rows r = {};
	struct advice a[ADVICE_MAX];

	(void)state;
	/* Busy but healthy, and short-lived connections: no rule that reads the settings. */
	set(&r, "smcd.client_v2", 100);
	set(&r, "smcd.server_v2", 100);
	set(&r, "smcd.tx.requests", 1000);
	set(&r, "smcd.tx.buffer.full", 10);
	set(&r, "smcd.tx.buffer.too_small", 10);
	loads = 0;
	assert_int_equal(compute(&r, &lazy, a), 1);
	assert_string_equal(a[0].id, "smc-short-connections");
	assert_int_equal(loads, 0);
	/* Two rules that need wmem: read once, and its value is used. */
	set(&r, "smcd.tx.buffer.full", 500);
	set(&r, "smcd.tx.buffer.too_small", 500);
	assert_int_equal(compute(&r, &lazy, a), 3);
	assert_int_equal(loads, 1);
	assert_non_null(find(a, 3, "smc-tx-buffer-full"));
	assert_int_equal(find(a, 3, "smc-tx-buffer-too-small")->current, 65536);
	/* PEERNOSMC on the server side asks for the handshake limitation (off in env64k). */
	set(&r, "smcd.tx.buffer.full", 0);
	set(&r, "smcd.tx.buffer.too_small", 0);
	loads = 0;
	assert_int_equal(advice_compute(r.v, &nosmc, 1, &lazy, a, ADVICE_MAX), 1);
	assert_int_equal(loads, 1);
}

static void test_nothing(void **state)
{
	struct rows r = {};
	struct advice a[ADVICE_MAX];

	(void)state;
	assert_int_equal(compute(&r, &env64k, a), 0);
	/* A busy, healthy host: long connections, few full buffers. */
	set(&r, "smcd.client_v2", 50);
	set(&r, "smcd.server_v2", 50);
	set(&r, "smcd.tx.requests", 100000);
	set(&r, "smcd.rx.requests", 100000);
	set(&r, "smcd.tx.buffer.full", 10000); /* exactly 10%: not above */
	set(&r, "smcd.rx.buffer.full", 9999);
	set(&r, "smcd.rx.buffer.too_small", 90000); /* the application's read size: no advice */
	assert_int_equal(compute(&r, &env64k, a), 0);
}

/* Seed 001's second mail: TX buffer full on 49.95% of 1.28M sends at 64 KiB. */
static void test_seed001(void **state)
{
	struct rows r = {};
	struct advice a[ADVICE_MAX];
	const struct advice *x;
	size_t n;

	(void)state;
	set(&r, "smcd.client_v2", 1);
	set(&r, "smcd.server_v2", 1);
	set(&r, "smcd.tx.requests", 1277734);
	set(&r, "smcd.tx.buffer.full", 638239);
	set(&r, "smcd.rx.requests", 1277190);
	set(&r, "smcd.rx.buffer.full", 45);
	n = compute(&r, &env64k, a);
	assert_int_equal(n, 1);
	x = find(a, n, "smc-tx-buffer-full");
	assert_non_null(x);
	assert_int_equal(x->severity, ADVICE_WARNING);
	assert_string_equal(x->sysctl, "wmem");
	assert_int_equal(x->current, 65536);
	assert_int_equal(x->suggested, 262144);
	assert_string_equal(x->config, "sysctl: {wmem: 256KiB}");
	assert_int_equal(x->count, 638239);
	assert_int_equal(x->total, 1277734);
	assert_non_null(strstr(x->text, "full on 50.0% of sends (638239 of 1277734)"));
	assert_non_null(strstr(x->text, "raise net.smc.wmem (now 64KiB) to 256KiB: 'smcctl sysctl "
					"set wmem 262144' or in smc.yaml 'sysctl: {wmem: 256KiB}'"));
}

static void test_suggestions(void **state)
{
	struct rows r = {};
	struct advice a[ADVICE_MAX];
	struct advice_env env = env64k;
	const struct advice *x;

	(void)state;
	set(&r, "smcr.rx.requests", 1000);
	set(&r, "smcr.rx.buffer.full", 500);
	/* 4x, a power of two, up to 1 MiB */
	env.rmem = 300000;
	assert_int_equal(compute(&r, &env, a), 1);
	x = find(a, 1, "smc-rx-buffer-full");
	assert_non_null(x);
	assert_string_equal(x->sysctl, "rmem");
	assert_int_equal(x->suggested, 1048576);
	assert_string_equal(x->config, "sysctl: {rmem: 1MiB}");
	env.rmem = 16384;
	compute(&r, &env, a);
	assert_int_equal(a[0].suggested, 65536);
	/* at the cap: the peer's pace, not the buffer's size */
	env.rmem = 1048576;
	assert_int_equal(compute(&r, &env, a), 0);
	env.rmem = 4 << 20;
	assert_int_equal(compute(&r, &env, a), 0);
	/* unknown value: suggested from the kernel's default, said so */
	env.has_rmem = false;
	assert_int_equal(compute(&r, &env, a), 1);
	assert_int_equal(a[0].current, -1);
	assert_int_equal(a[0].suggested, 262144);
	assert_non_null(strstr(a[0].text, "(now unknown)"));
	/* too few receives say nothing */
	set(&r, "smcr.rx.requests", 99);
	set(&r, "smcr.rx.buffer.full", 99);
	assert_int_equal(compute(&r, &env, a), 0);
}

static void test_other_rules(void **state)
{
	struct rows r = {};
	struct advice a[ADVICE_MAX];
	struct stats_tree_reason reasons[] = {
		{ true, 0x03010000, { .u = 40 } },  /* PEERNOSMC, server */
		{ false, 0x03010000, { .u = 40 } }, /* client side: not counted */
	};
	struct advice_env env = env64k;
	const struct advice *x;
	size_t n;

	(void)state;
	/* 200 connections with 2 requests each: short-lived */
	set(&r, "smcd.client_v2", 100);
	set(&r, "smcd.server_v2", 100);
	set(&r, "smcd.tx.requests", 200);
	set(&r, "smcd.rx.requests", 200);
	set(&r, "smcd.tx.bytes", 2000);
	set(&r, "smcd.tx.buffer.too_small", 21); /* > 10% of sends */
	set(&r, "smcd.rx.buffer.downgrade", 1);
	set(&r, "smcd.rx.buffer.alloc", 200);
	set(&r, "smcd.tx.buffer.full_peer", 50);
	n = advice_compute(r.v, reasons, ELEMENTSOF(reasons), &env, a, ADVICE_MAX);
	assert_int_equal(n, 4);
	assert_non_null(find(a, n, "smc-peer-buffer-full"));
	assert_non_null((x = find(a, n, "smc-tx-buffer-too-small")));
	assert_string_equal(x->sysctl, "wmem");
	assert_non_null((x = find(a, n, "smc-buffer-downgrade")));
	assert_int_equal(x->severity, ADVICE_INFO); /* 1 of 200: 0.5% */
	assert_non_null((x = find(a, n, "smc-short-connections")));
	assert_int_equal(x->count, 400);
	assert_int_equal(x->total, 200);
	assert_non_null(strstr(x->text, "200 SMC connections made 2.0 sends and receives each"));
	assert_null(find(a, n, "smc-handshake-limited")); /* the limitation is off */
	env.hs_limit = 1;
	n = advice_compute(r.v, reasons, ELEMENTSOF(reasons), &env, a, ADVICE_MAX);
	assert_non_null((x = find(a, n, "smc-handshake-limited")));
	assert_int_equal(x->count, 40);
	assert_int_equal(x->total, 240);
	/* max is respected */
	assert_int_equal(advice_compute(r.v, reasons, ELEMENTSOF(reasons), &env, a, 2), 2);
	/* downgrades without allocations counted, or above 1%: a warning */
	set(&r, "smcd.rx.buffer.downgrade", 3);
	n = advice_compute(r.v, reasons, ELEMENTSOF(reasons), &env, a, ADVICE_MAX);
	assert_int_equal(find(a, n, "smc-buffer-downgrade")->severity, ADVICE_WARNING);
}

/* The tree the agent answers with gives the same advice as the rows it was built from. */
static void same_from_tree(const struct rows *r, const struct advice_env *env)
{
	struct advice a[ADVICE_MAX], b[ADVICE_MAX];
	struct rows back = {};
	json_object *tree = stats_tree_new(r->v, NULL, 0, false);
	size_t na, nb;

	assert_non_null(tree);
	advice_rows_from_tree(tree, back.v);
	na = advice_compute(r->v, NULL, 0, env, a, ADVICE_MAX);
	nb = advice_compute(back.v, NULL, 0, env, b, ADVICE_MAX);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_string_equal(a[i].id, b[i].id);
		assert_string_equal(a[i].text, b[i].text);
	}
	json_object_put(tree);
}

static void test_tree(void **state)
{
	struct rows r = {};
	struct advice a[ADVICE_MAX];
	json_object *j;
	size_t n;

	(void)state;
	set(&r, "smcd.tx.requests", 4101);
	set(&r, "smcd.tx.buffer.full", 2051);
	set(&r, "smcd.tx.buffer.too_small", 2048);
	same_from_tree(&r, &env64k);
	n = compute(&r, &env64k, a);
	assert_int_equal(n, 2);
	j = advice_json(a, n);
	assert_non_null(j);
	assert_string_equal(
		json_object_to_json_string_ext(json_object_array_get_idx(j, 0),
					       JSON_C_TO_STRING_PLAIN),
		"{\"id\":\"smc-tx-buffer-full\",\"severity\":\"warning\",\"based_on\":{\"tx_buffer_"
		"full\":2051,\"tx_requests\":4101},\"sysctl\":{\"name\":\"net.smc.wmem\",\"current\":"
		"65536,\"suggested\":262144,\"smc_yaml\":\"sysctl: {wmem: 256KiB}\"},\"text\":\"the "
		"send buffer was full on 50.0% of sends (2051 of 4101): SMC's buffers do not grow "
		"like TCP's, raise net.smc.wmem (now 64KiB) to 256KiB: 'smcctl sysctl set wmem "
		"262144' or in smc.yaml 'sysctl: {wmem: 256KiB}'; it applies to connections opened "
		"afterwards\"}");
	json_object_put(j);
}

/* Recorded replies: what the 7x lane's steps advise. */
static size_t from_fixture(const char *rel, struct advice *out)
{
	struct smcnl *nl = replay_open(rel);
	struct smc_stats s = {};
	struct smc_fback_stats *f = calloc(1, sizeof(*f));
	struct rows r = {};
	struct stats_tree_reason reasons[2 * SMC_FBACK_SLOTS];
	struct advice_env env = { .hs_limit = -1 };
	size_t n;

	assert_non_null(nl);
	assert_non_null(f);
	assert_int_equal(smc_stats_get(nl, &s), 0);
	assert_int_equal(smc_fback_stats_get(nl, f), 0);
	env.has_wmem = smc_sysctl_get_int(nl, "wmem", &env.wmem) >= 0;
	env.has_rmem = smc_sysctl_get_int(nl, "rmem", &env.rmem) >= 0;
	n = stats_rows_from_kernel(&s, f, r.v, reasons);
	n = advice_compute(r.v, reasons, n, &env, out, ADVICE_MAX);
	same_from_tree(&r, &env);
	free(f);
	smcnl_close(nl);
	return n;
}

static void test_fixtures(void **state)
{
	struct advice a[ADVICE_MAX];

	(void)state;
	/* idle: nothing to say */
	assert_int_equal(from_fixture("7x/idle", a), 0);
	/* a few test connections: too few to judge */
	assert_int_equal(from_fixture("7x/loopback", a), 0);
	/* "many": 208 connections of a request each, the short-lived case */
	assert_int_equal(from_fixture("7x/many", a), 1);
	assert_string_equal(a[0].id, "smc-short-connections");
	assert_int_equal(a[0].total, 208);
	assert_true(a[0].count < 208 * 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_fits),  cmocka_unit_test(test_nothing),
		cmocka_unit_test(test_seed001),	    cmocka_unit_test(test_suggestions),
		cmocka_unit_test(test_other_rules), cmocka_unit_test(test_tree),
		cmocka_unit_test(test_fixtures),    cmocka_unit_test(test_env_on_demand),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
