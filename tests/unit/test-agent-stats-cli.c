// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The agent's statistics document against smcctl's direct one.  Both are the tree of
 * common/stats-table.c: every row of its table is in both, where its key says, and nothing
 * else is but what the tree derives.  On REAL kernel replies (the recorded fixtures of
 * tests/fixtures/) the agent's tree before any reset is the direct one byte for byte, plus
 * what only the agent counts, so scripts work the same with and without the agent.  Then
 * the text smcctl renders from an agent document (golden files), and --absolute.
 */
#include <dirent.h>
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

#include "cli/agent.h"
#include "cli/verbs.h"
#include "common/advice.h"
#include "common/output.h"
#include "common/stats-table.h"
#include "smcd-agent/manager.h"
#include "smcd-agent/stats-engine.h"
#include "tests/unit/golden.h"

#define SEC 1000000ULL
#define T0 1700000000000000ULL

static int read_sample(const char *dir, struct stats_sample *s)
{
	struct smcnl_options opts = { .replay_dir = dir, .sysroot = dir };
	struct smcnl *nl = NULL;
	int r;

	memset(s, 0, sizeof(*s));
	assert_int_equal(smcnl_open(&opts, &nl), 0);
	r = smc_stats_get(nl, &s->stats);
	if (r >= 0)
		r = smc_fback_stats_get(nl, &s->fback);
	smcnl_close(nl);
	s->ok = r >= 0;
	return r;
}

static const char *plain(json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
}

/*
 * The agent's tree is the direct one, keys in the same order and every number the same,
 * plus what the kernel does not count.
 */
static void assert_same_tree(json_object *direct, json_object *agent, const char *where)
{
	static const char *const agent_only[] = { "linkgroups", "kernel_epochs" };

	for (size_t i = 0; i < ELEMENTSOF(agent_only); i++) {
		assert_non_null(out_get(agent, agent_only[i]));
		json_object_object_del(agent, agent_only[i]);
	}
	if (!streq(plain(direct), plain(agent)))
		fail_msg("%s: the trees differ:\n  kernel %s\n  agent  %s", where, plain(direct),
			 plain(agent));
}

static void parity_in(const char *lane)
{
	char base[4096];
	struct dirent *de;
	size_t checked = 0;
	DIR *d;

	snprintf(base, sizeof(base), "%s/tests/fixtures/%s", golden_top_srcdir(), lane);
	d = opendir(base);
	assert_non_null(d);
	while ((de = readdir(d))) {
		char dir[4352], probe[4500];
		struct stats_sample s;
		struct stats_engine *e = NULL;
		_cleanup_(json_object_putp) json_object *direct = NULL, *tree = NULL;

		snprintf(dir, sizeof(dir), "%s/%s", base, de->d_name);
		snprintf(probe, sizeof(probe), "%s/smc-genl-get-stats.bin", dir);
		if (de->d_name[0] == '.' || access(probe, R_OK) < 0 || read_sample(dir, &s) < 0)
			continue;
		direct = stats_tree_from_kernel(&s.stats, &s.fback);
		assert_int_equal(stats_engine_new(10, &e), 0);
		assert_true(stats_engine_update(e, &s, SEC, T0) >= 0);
		tree = stats_engine_tree(e, STATS_VIEW_SINCE_RESET);
		assert_non_null(direct);
		assert_non_null(tree);
		assert_same_tree(direct, tree, dir);
		stats_engine_free(e);
		checked++;
	}
	closedir(d);
	assert_true(checked > 0);
}

static void test_parity_7x(void **state)
{
	parity_in("7x");
}

static void test_parity_612(void **state)
{
	parity_in("612");
}

/* SMC-R over soft-RoCE: real SMC-R counters. */
static void test_parity_7x_smcr(void **state)
{
	parity_in("7x-smcr");
}

/* ------------------------------------------------------------------------------------- */
/* One table drives both documents                                                        */

/* What the tree derives from the rows: these are the only numbers that are not a row. */
static const char *const derived[] = {
	"summary.total",
	"summary.smcd",
	"summary.smcr",
	"summary.fallback",
	"summary.handshake_errors",
	"smcd.connections",
	"smcr.connections",
	"fallback.not_itemised.client",
	"fallback.not_itemised.server",
};

static void set(struct stats_sample *s, const char *key, uint64_t v);

/* Every leaf of the tree (not into arrays: the reasons) is a row or derived, once. */
static size_t count_leaves(json_object *o, const char *prefix)
{
	size_t n = 0;

	json_object_object_foreach(o, key, val) {
		char path[128];

		snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", key);
		if (json_object_is_type(val, json_type_object)) {
			n += count_leaves(val, path);
			continue;
		}
		if (json_object_is_type(val, json_type_array))
			continue;
		if (stats_table_find(path) < 0) {
			size_t i = 0;

			while (i < ELEMENTSOF(derived) && !streq(derived[i], path))
				i++;
			if (i == ELEMENTSOF(derived))
				fail_msg("'%s' is in the tree but is no row of the table", path);
		}
		n++;
	}
	return n;
}

/* Each row alone set: its value is at its key in the direct tree and in the agent's. */
static void test_table_drives_trees(void **state)
{
	size_t n;
	const struct stats_desc *t = stats_table(&n);

	for (size_t i = 0; i < n; i++) {
		struct stats_sample s = { .ok = true };
		struct stats_engine *e = NULL;
		_cleanup_(json_object_putp) json_object *direct = NULL, *agent = NULL;
		uint64_t v = 1000 + i;

		s.stats.smcd.has_rmb_usage = s.stats.smcr.has_rmb_usage = true;
		set(&s, t[i].key, v);
		direct = stats_tree_from_kernel(&s.stats, &s.fback);
		assert_int_equal(stats_engine_new(10, &e), 0);
		assert_true(stats_engine_update(e, &s, SEC, T0) >= 0);
		agent = stats_engine_tree(e, STATS_VIEW_SINCE_RESET);
		stats_engine_free(e);
		assert_non_null(direct);
		assert_non_null(agent);
		if (out_get_u64(direct, t[i].key, 0) != v || out_get_u64(agent, t[i].key, 0) != v)
			fail_msg("row '%s' is not at its key in both trees", t[i].key);
		assert_int_equal(count_leaves(direct, ""), n + ELEMENTSOF(derived));
	}
}

/* ------------------------------------------------------------------------------------- */
/* The Prometheus file from recorded kernel replies                                       */

/*
 * What one collection reads (devices, link groups with links, counters, sockets), replayed
 * from a fixture folder through libsmcnl and the agent's own conversions, engine and
 * renderer: the textfile from real SMC-D and SMC-R data, held by a golden file (and checked
 * with promtool by tests/integration/agent-stats.test).
 */
static void replay_prometheus(const char *fixture, const char *golden)
{
	char dir[4096], sysroot[4200];
	struct smcnl_options opts = { .replay_dir = dir, .sysroot = sysroot };
	struct smcnl *nl = NULL;
	struct smcd_device *dd = NULL;
	struct smcr_device *rd = NULL;
	struct smcd_linkgroup *dl = NULL;
	struct smcr_linkgroup *rl = NULL;
	struct smc_socket *socks = NULL;
	size_t nd = 0, nr = 0, ndl = 0, nrl = 0, ns = 0;
	struct obj_device devs[16];
	struct obj_linkgroup lgrs[16];
	size_t n_devs = 0, n_lgrs = 0;
	struct stats_sample s = { .ok = true, .duration_usec = 2500 };
	struct stats_engine *e = NULL;
	_cleanup_(freep) char *text = NULL;

	snprintf(dir, sizeof(dir), "%s/tests/fixtures/%s", golden_top_srcdir(), fixture);
	/* The recorded /sys of the step (the DIBS devices among it), as the other replays. */
	snprintf(sysroot, sizeof(sysroot), "%s/sysroot", dir);
	assert_int_equal(smcnl_open(&opts, &nl), 0);
	assert_int_equal(smcd_device_list(nl, &dd, &nd), 0);
	assert_int_equal(smcr_device_list(nl, &rd, &nr), 0);
	assert_int_equal(smcd_linkgroup_list(nl, &dl, &ndl), 0);
	assert_int_equal(smcr_linkgroup_list(nl, true, &rl, &nrl), 0);
	assert_int_equal(smc_stats_get(nl, &s.stats), 0);
	assert_int_equal(smc_fback_stats_get(nl, &s.fback), 0);
	assert_int_equal(smc_socket_list(nl, 0, &socks, &ns), 0);
	for (size_t i = 0; i < nd && n_devs < ELEMENTSOF(devs); i++)
		obj_device_from_smcd(&dd[i], &devs[n_devs++]);
	for (size_t i = 0; i < nr && n_devs < ELEMENTSOF(devs); i++)
		obj_device_from_smcr(&rd[i], &devs[n_devs++]);
	for (size_t i = 0; i < ndl && n_lgrs < ELEMENTSOF(lgrs); i++)
		obj_linkgroup_from_smcd(&dl[i], &lgrs[n_lgrs++]);
	for (size_t i = 0; i < nrl && n_lgrs < ELEMENTSOF(lgrs); i++)
		obj_linkgroup_from_smcr(&rl[i], &lgrs[n_lgrs++]);
	stats_sample_count_sockets(&s, socks, ns);
	assert_int_equal(stats_engine_new(100, &e), 0);
	assert_int_equal(stats_engine_track(e, devs, n_devs, lgrs, n_lgrs, T0), 0);
	assert_true(stats_engine_update(e, &s, SEC, T0) >= 0);
	text = prometheus_render(e, &(struct objects){ .devices = devs,
						       .n_devices = n_devs,
						       .linkgroups = lgrs,
						       .n_linkgroups = n_lgrs });
	assert_non_null(text);
	golden_check(golden, text);
	stats_engine_free(e);
	free(dd);
	free(rd);
	free(dl);
	smcr_linkgroup_list_free(rl, nrl);
	free(socks);
	smcnl_close(nl);
}

static void test_replay_prometheus(void **state)
{
	_cleanup_(freep) char *smcr = NULL;
	char path[4096];
	FILE *f;
	size_t len = 0;

	replay_prometheus("7x/loopback", "agent/7x-loopback.prom");
	replay_prometheus("7x-smcr/server", "agent/7x-smcr-server.prom");
	/* Real SMC-R link groups have links: their series are there. */
	snprintf(path, sizeof(path), "%s/tests/golden/agent/7x-smcr-server.prom",
		 golden_top_srcdir());
	f = fopen(path, "re");
	assert_non_null(f);
	assert_true(getdelim(&smcr, &len, '\0', f) > 0);
	fclose(f);
	assert_non_null(
		strstr(smcr, "\nsmc_link_up{technology=\"smcr\",linkgroup=\"00000100\",link=\""));
	assert_non_null(strstr(
		smcr,
		"\nsmc_linkgroup_connections{technology=\"smcr\",linkgroup=\"00000100\",device=\""));
}

/* ------------------------------------------------------------------------------------- */
/* Text from an agent document                                                            */

static void set(struct stats_sample *s, const char *key, uint64_t v)
{
	size_t n;
	const struct stats_desc *t = stats_table(&n);
	int i = stats_table_find(key);

	assert_true(i >= 0);
	memcpy((char *)(t[i].source == STATS_SRC_STATS ? (void *)&s->stats : (void *)&s->fback) +
		       t[i].offset,
	       &v, sizeof(v));
}

/* Two samples 10 s apart, a reset between them, a link group and some sockets. */
static char *agent_doc_text(void)
{
	struct stats_engine *e = NULL;
	struct stats_sample s = { .ok = true, .has_sockets = true };
	struct obj_linkgroup l = {
		.technology = "smcd", .id = 0x100, .id_hex = "00000100", .conns = 2, .device = "lo"
	};
	json_object *doc;
	char *text;

	assert_int_equal(stats_engine_new(10, &e), 0);
	assert_int_equal(stats_engine_track(e, NULL, 0, &l, 1, T0), 0);
	set(&s, "smcd.client_v2", 10);
	set(&s, "smcd.server_v2", 10);
	set(&s, "smcd.rx.bytes", 1000000);
	set(&s, "fallback.client", 4);
	s.fback.entries[s.fback.n++] = (struct smc_fback_entry){ false, 0x05000000, 4 };
	s.sockets[STATS_SOCK_SMCD] = 4;
	s.sockets[STATS_SOCK_LISTEN] = 1;
	assert_true(stats_engine_update(e, &s, 10 * SEC, T0 + 10 * SEC) >= 0);
	stats_engine_reset(e, T0 + 15 * SEC);
	set(&s, "smcd.client_v2", 15);
	set(&s, "smcd.server_v2", 15);
	set(&s, "smcd.rx.bytes", 2000000);
	set(&s, "fallback.client", 5);
	s.fback.entries[0].count = 5;
	assert_true(stats_engine_update(e, &s, 20 * SEC, T0 + 20 * SEC) >= 0);
	doc = stats_engine_json(e, NULL, 0, &l, 1, 10 * SEC);
	assert_non_null(doc);
	text = strdup(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN));
	json_object_put(doc);
	stats_engine_free(e);
	return text;
}

static void render(const char *golden, unsigned view, bool absolute)
{
	_cleanup_(freep) char *json = agent_doc_text();
	_cleanup_(json_object_putp) json_object *doc = agent_stats_doc(json, absolute, false, false);
	struct capture out;
	struct smcctl c = { .err = stderr, .view = view };

	assert_non_null(doc);
	capture_begin(&out);
	c.out = out.f;
	assert_int_equal(stats_tree_text(&c, doc), 0);
	/* Times are local: the golden file holds them as rendered in UTC. */
	golden_check(golden, capture_end(&out));
	free(out.buf);
}

static void test_agent_text(void **state)
{
	setenv("TZ", "UTC", 1);
	render("agent/stats.txt", 0, false);
	render("agent/stats-absolute.txt", STATS_VIEW_ABSOLUTE, true);
	render("agent/stats-reset.txt", STATS_VIEW_RESET, false);
}

/* The agent's document with fallback.attribution as bus-stats.c adds it (fallback.h). */
static char *attributed_doc_text(bool available)
{
	_cleanup_(freep) char *json = agent_doc_text();
	_cleanup_(json_object_putp) json_object *doc = json_tokener_parse(json);
	json_object *f = out_get(doc, "fallback"), *a;
	char *text;

	a = json_tokener_parse(
		available ? "{\"available\":true,\"error\":null,\"events\":12,\"lost\":3,"
			    "\"other_reasons\":0,\"units_per_reason\":8,\"reasons\":["
			    "{\"units\":[{\"unit\":\"nginx.service\",\"count\":7},"
			    "{\"unit\":\"other\",\"count\":2}],\"code\":50528264,"
			    "\"name\":\"NOUEID\",\"total\":9},"
			    "{\"units\":[{\"unit\":\"/smc-on\",\"count\":3}],\"code\":"
			    "50593792,\"name\":null,\"total\":3}]}"
			  : "{\"available\":false,\"error\":\"this kernel has no BTF\",\"events\":0,"
			    "\"lost\":0,\"other_reasons\":0,\"units_per_reason\":8,\"reasons\":[]}");
	assert_non_null(a);
	assert_int_equal(json_add(f, "attribution", a), 0);
	text = strdup(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN));
	return text;
}

static char *render_text(const char *json, bool absolute)
{
	_cleanup_(json_object_putp) json_object *doc = agent_stats_doc(json, absolute, false, false);
	struct capture out;
	struct smcctl c = { .err = stderr, .view = absolute ? STATS_VIEW_ABSOLUTE : 0 };

	assert_non_null(doc);
	capture_begin(&out);
	c.out = out.f;
	assert_int_equal(stats_tree_text(&c, doc), 0);
	capture_end(&out);
	return out.buf;
}

/* smcctl stats through the agent: where the fallbacks came from, in every view. */
static void test_agent_attribution(void **state)
{
	_cleanup_(freep) char *json = attributed_doc_text(true);
	_cleanup_(freep) char *off = attributed_doc_text(false);
	_cleanup_(json_object_putp) json_object *abs = agent_stats_doc(json, true, false, false);
	static const struct {
		const char *name, *unit;
		int count;
	} rows[] = { { "NOUEID", "nginx.service", 7 },
		     { "NOUEID", "other", 2 },
		     { "0x03040000", "/smc-on", 3 } };
	char *text;

	for (int absolute = 0; absolute < 2; absolute++) {
		text = render_text(json, absolute);
		assert_non_null(strstr(text, "\nFallbacks by unit (seen by smcd-agent since it "
					     "started)\n"));
		assert_non_null(strstr(text, "\n  NOUEID       nginx.service"));
		assert_non_null(strstr(text, "\n  NOUEID       other "));
		/* A reason without a name: its code. */
		assert_non_null(strstr(text, "\n  0x03040000   /smc-on "));
		/* Each row whole, in the columns of smcctl's layout before out_line_cols(). */
		for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
			char want[128];

			snprintf(want, sizeof(want), "\n  %-12s %-40s %10d\n", rows[i].name,
				 rows[i].unit, rows[i].count);
			assert_non_null(strstr(text, want));
		}
		assert_non_null(
			strstr(text, "(3 fallbacks not attributed: the ring buffer was full)"));
		assert_null(strstr(text, "unavailable"));
		free(text);
	}
	/* --absolute keeps it, and the totals' own tree does not get it. */
	assert_int_equal(out_get_u64(abs, "fallback.attribution.events", 0), 12);
	assert_null(out_get(abs, "total.fallback.attribution"));
	text = render_text(off, false);
	assert_non_null(
		strstr(text, "\nFallback attribution is unavailable: this kernel has no BTF\n"));
	assert_null(strstr(text, "Fallbacks by unit"));
	free(text);
}

static void test_agent_doc(void **state)
{
	_cleanup_(freep) char *json = agent_doc_text();
	_cleanup_(json_object_putp) json_object *since = agent_stats_doc(json, false, false, false);
	_cleanup_(json_object_putp) json_object *abs = agent_stats_doc(json, true, true, false);

	/* Since the reset: 5 more connections each side; totals: everything. */
	assert_int_equal(out_get_u64(since, "summary.smcd", 0), 10);
	assert_int_equal(out_get_u64(since, "fallback.client", 0), 1);
	assert_int_equal(out_get_u64(since, "total.summary.smcd", 0), 30);
	assert_int_equal(out_get_u64(abs, "summary.smcd", 0), 30);
	assert_null(out_get(abs, "smcr")); /* --smcd */
	assert_null(out_get(abs, "total.smcr"));
	/* 10 connections and 1 fallback in 10 s. */
	assert_float_equal(json_object_get_double(out_get(since, "rate.summary.smcd")), 1.0, 1e-9);
	assert_float_equal(json_object_get_double(out_get(since, "rate.summary.fallback")), 0.1,
			   1e-9);
	assert_string_equal(out_get_str(since, "source", ""), "smcd-agent");
	assert_int_equal(out_get_u64(since, "linkgroups.smcd.current", 9), 1);
	assert_null(agent_stats_doc("[1]", false, false, false));
	assert_null(agent_stats_doc("not json", false, false, false));
}

/* The advice of the agent's view: ids of the tree's rows judged as smcctl stats does. */
static size_t tree_advice(json_object *tree, struct advice *out)
{
	static const struct advice_env env = {
		.has_wmem = true, .has_rmem = true, .wmem = 65536, .rmem = 65536, .hs_limit = 0
	};
	struct stats_num rows[512];
	size_t n;

	stats_table(&n);
	assert_true(n <= ELEMENTSOF(rows));
	advice_rows_from_tree(tree, rows);
	return advice_compute(rows, NULL, 0, &env, out, ADVICE_MAX);
}

/*
 * Seed 001's 50% buffer full before a reset, then a healthy interval: the since-reset view
 * (what an operator reads after raising wmem and resetting) no longer advises, the totals
 * still do.  And the agent's tree of a recorded dump advises what the kernel's rows do.
 */
static void test_agent_advice(void **state)
{
	struct stats_engine *e = NULL;
	struct stats_sample s = { .ok = true };
	struct advice a[ADVICE_MAX];
	json_object *since, *total;

	(void)state;
	assert_int_equal(stats_engine_new(10, &e), 0);
	set(&s, "smcd.client_v2", 1);
	set(&s, "smcd.server_v2", 1);
	set(&s, "smcd.tx.requests", 4000);
	set(&s, "smcd.tx.buffer.full", 2000);
	assert_true(stats_engine_update(e, &s, SEC, T0) >= 0);
	since = stats_engine_tree(e, STATS_VIEW_SINCE_RESET);
	assert_non_null(since);
	assert_int_equal(tree_advice(since, a), 1);
	assert_string_equal(a[0].id, "smc-tx-buffer-full");
	json_object_put(since);

	stats_engine_reset(e, T0 + 5 * SEC);
	set(&s, "smcd.client_v2", 2);
	set(&s, "smcd.server_v2", 2);
	set(&s, "smcd.tx.requests", 6000); /* 2000 more sends, 50 of them full: 2.5% */
	set(&s, "smcd.tx.buffer.full", 2050);
	assert_true(stats_engine_update(e, &s, 10 * SEC, T0 + 10 * SEC) >= 0);
	since = stats_engine_tree(e, STATS_VIEW_SINCE_RESET);
	total = stats_engine_tree(e, STATS_VIEW_TOTAL);
	assert_non_null(since);
	assert_non_null(total);
	assert_int_equal(out_get_u64(since, "smcd.tx.requests", 0), 2000);
	assert_int_equal(tree_advice(since, a), 0);
	assert_int_equal(tree_advice(total, a), 1);
	assert_string_equal(a[0].id, "smc-tx-buffer-full");
	assert_int_equal(a[0].count, 2050);
	json_object_put(since);
	json_object_put(total);
	stats_engine_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parity_7x),	  cmocka_unit_test(test_parity_612),
		cmocka_unit_test(test_parity_7x_smcr),	  cmocka_unit_test(test_table_drives_trees),
		cmocka_unit_test(test_replay_prometheus), cmocka_unit_test(test_agent_text),
		cmocka_unit_test(test_agent_doc),	  cmocka_unit_test(test_agent_attribution),
		cmocka_unit_test(test_agent_advice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
