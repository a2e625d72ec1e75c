// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The statistics engine (smcd-agent/stats-engine.c) and what hangs off it: baseline and reset, u16
 * wraps of the fallback reasons, kernel epochs (smc reloaded), link-group tracking and the
 * Prometheus series cap, the rendering (golden file), the state file, the atomic textfile
 * write and the stats: section of smc.yaml.
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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/wait.h>
#include <time.h>
#include <cmocka.h>

#include "common/assess-rules.h"
#include "common/bus-api.h"
#include "common/macro.h"
#include "common/output.h"
#include "common/util.h"
#include "config/config.h"
#include "smcd-agent/manager.h"
#include "smcd-agent/netns-sampler.h"
#include "smcd-agent/stats-engine.h"
#include "tests/unit/golden.h"

#define SEC 1000000ULL
#define T0 1700000000000000ULL /* a fixed wall clock for golden output */

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

static void reason(struct stats_sample *s, bool server, uint32_t code, uint16_t count)
{
	for (size_t i = 0; i < s->fback.n; i++)
		if (s->fback.entries[i].server == server && s->fback.entries[i].code == code) {
			s->fback.entries[i].count = count;
			return;
		}
	s->fback.entries[s->fback.n++] = (struct smc_fback_entry){ server, code, count };
}

static uint64_t total(const struct stats_engine *e, const char *key)
{
	int i = stats_table_find(key);

	assert_true(i >= 0);
	return e->counters[i].total;
}

static uint64_t since_reset(const struct stats_engine *e, const char *key)
{
	return stats_counter_value(&e->counters[stats_table_find(key)], STATS_VIEW_SINCE_RESET);
}

static const struct stats_reason *find_reason(const struct stats_engine *e, bool server, uint32_t code)
{
	for (size_t i = 0; i < e->n_reasons; i++)
		if (e->reasons[i].server == server && e->reasons[i].code == code)
			return &e->reasons[i];
	return NULL;
}

static struct stats_engine *engine(uint32_t cap)
{
	struct stats_engine *e = NULL;

	assert_int_equal(stats_engine_new(cap, &e), 0);
	return e;
}

static int update(struct stats_engine *e, const struct stats_sample *s, unsigned sec)
{
	return stats_engine_update(e, s, (uint64_t)sec * SEC, T0 + (uint64_t)sec * SEC);
}

/* ------------------------------------------------------------------------------------- */
/* Counters                                                                               */

static void test_first_sample_and_rates(void **state)
{
	struct stats_engine *e = engine(10);
	struct stats_sample s = { .ok = true };
	double rate;
	int changed;

	set(&s, "smcd.rx.bytes", 1000);
	set(&s, "smcd.client_v2", 4);
	changed = update(e, &s, 10);
	assert_true(changed & STATS_CHANGED_COUNTERS);
	assert_false(changed & STATS_CHANGED_RATES); /* one sample: no interval yet */
	assert_int_equal(total(e, "smcd.rx.bytes"), 1000);
	assert_false(stats_engine_rate(e, &e->counters[stats_table_find("smcd.rx.bytes")], &rate));

	set(&s, "smcd.rx.bytes", 3000);
	changed = update(e, &s, 20);
	assert_true(changed & STATS_CHANGED_RATES);
	assert_int_equal(total(e, "smcd.rx.bytes"), 3000);
	assert_true(stats_engine_rate(e, &e->counters[stats_table_find("smcd.rx.bytes")], &rate));
	assert_float_equal(rate, 200.0, 1e-9);

	/* Nothing counted: rates are signalled once more (back to 0), then no more. */
	changed = update(e, &s, 30);
	assert_true(changed & STATS_CHANGED_RATES);
	assert_false(changed & STATS_CHANGED_COUNTERS);
	changed = update(e, &s, 40);
	assert_int_equal(changed & (STATS_CHANGED_RATES | STATS_CHANGED_COUNTERS), 0);
	stats_engine_free(e);
}

static void test_reset_is_a_baseline(void **state)
{
	struct stats_engine *e = engine(10);
	struct stats_sample s = { .ok = true };

	set(&s, "fallback.client", 7);
	reason(&s, false, 0x03030008, 7);
	update(e, &s, 1);
	stats_engine_reset(e, T0 + 2 * SEC);
	assert_int_equal(since_reset(e, "fallback.client"), 0);
	assert_int_equal(total(e, "fallback.client"), 7);
	assert_int_equal(
		stats_counter_value(&find_reason(e, false, 0x03030008)->c, STATS_VIEW_SINCE_RESET),
		0);
	assert_true(e->dirty); /* saved at once */

	set(&s, "fallback.client", 10);
	reason(&s, false, 0x03030008, 9);
	reason(&s, false, 0x05000000, 1); /* a reason first seen after the reset */
	update(e, &s, 3);
	assert_int_equal(since_reset(e, "fallback.client"), 3);
	assert_int_equal(total(e, "fallback.client"), 10);
	assert_int_equal(
		stats_counter_value(&find_reason(e, false, 0x03030008)->c, STATS_VIEW_SINCE_RESET),
		2);
	assert_int_equal(
		stats_counter_value(&find_reason(e, false, 0x05000000)->c, STATS_VIEW_SINCE_RESET),
		1);
	assert_int_equal(e->reset_real_usec, T0 + 2 * SEC);
	stats_engine_free(e);
}

static void test_u16_reason_wrap(void **state)
{
	struct stats_engine *e = engine(10);
	struct stats_sample s = { .ok = true };
	const struct stats_reason *r;

	set(&s, "fallback.server", 65530);
	reason(&s, true, 0x03030008, 65530);
	update(e, &s, 1);
	e->dirty = false;
	/* 11 more: the kernel's u16 reads 5. */
	set(&s, "fallback.server", 65541);
	reason(&s, true, 0x03030008, 5);
	assert_false(update(e, &s, 2) & STATS_CHANGED_EPOCH);
	r = find_reason(e, true, 0x03030008);
	assert_int_equal(r->c.total, 65541);
	assert_true(e->dirty); /* a wrap cannot be recomputed after a restart: saved */
	assert_int_equal(e->agent[STATS_KERNEL_EPOCHS].total, 0);
	/* Around again, and once more. */
	set(&s, "fallback.server", 65541 + 65535);
	reason(&s, true, 0x03030008, 4);
	update(e, &s, 3);
	assert_int_equal(find_reason(e, true, 0x03030008)->c.total, 65541 + 65535);
	/* The per-side total agrees, so nothing is "not itemised". */
	assert_int_equal(total(e, "fallback.server"), find_reason(e, true, 0x03030008)->c.total);
	stats_engine_free(e);
}

static void test_kernel_epoch(void **state)
{
	struct stats_engine *e = engine(10);
	struct stats_sample s = { .ok = true };
	double rate;
	int changed;

	set(&s, "smcd.tx.bytes", 5000);
	set(&s, "fallback.client", 4);
	reason(&s, false, 0x05000000, 4);
	update(e, &s, 1);
	/* smc reloaded: everything restarts from 0, and counts again. */
	memset(&s, 0, sizeof(s));
	s.ok = true;
	set(&s, "smcd.tx.bytes", 300);
	changed = update(e, &s, 2);
	assert_true(changed & STATS_CHANGED_EPOCH);
	assert_int_equal(e->agent[STATS_KERNEL_EPOCHS].total, 1);
	assert_int_equal(total(e, "smcd.tx.bytes"), 5300); /* never backwards */
	assert_int_equal(total(e, "fallback.client"), 4);
	assert_true(stats_engine_rate(e, &e->counters[stats_table_find("smcd.tx.bytes")], &rate));
	assert_float_equal(rate, 300.0, 1e-9); /* what was counted since the reload, not < 0 */
	/* Reasons start again from the new raw values. */
	set(&s, "fallback.client", 2);
	reason(&s, false, 0x05000000, 2);
	assert_false(update(e, &s, 3) & STATS_CHANGED_EPOCH);
	assert_int_equal(find_reason(e, false, 0x05000000)->c.total, 6);
	stats_engine_free(e);
}

/* Fewer itemised reasons than before is also a reload (slots never empty while smc runs). */
static void test_epoch_from_reasons(void **state)
{
	struct stats_engine *e = engine(10);
	struct stats_sample s = { .ok = true };

	set(&s, "fallback.client", 3);
	reason(&s, false, 0x05000000, 2);
	reason(&s, false, 0x03030008, 1);
	update(e, &s, 1);
	memset(&s.fback, 0, sizeof(s.fback));
	set(&s, "fallback.client", 3); /* the same total by coincidence */
	reason(&s, false, 0x05000000, 3);
	assert_true(update(e, &s, 2) & STATS_CHANGED_EPOCH);
	assert_int_equal(find_reason(e, false, 0x05000000)->c.total, 5);
	stats_engine_free(e);
}

static void test_unavailable(void **state)
{
	struct stats_engine *e = engine(10);
	struct stats_sample s = { .ok = true };

	set(&s, "smcd.rx.bytes", 10);
	update(e, &s, 1);
	s.ok = false;
	assert_true(update(e, &s, 2) & STATS_CHANGED_AVAILABLE);
	assert_false(e->available);
	assert_int_equal(total(e, "smcd.rx.bytes"), 10); /* kept */
	s.ok = true;
	set(&s, "smcd.rx.bytes", 15);
	update(e, &s, 3);
	assert_int_equal(total(e, "smcd.rx.bytes"), 15);
	stats_engine_free(e);
}

/* ------------------------------------------------------------------------------------- */
/* Link groups                                                                            */

static void lgr(struct obj_linkgroup *l, const char *tech, uint32_t id, uint32_t conns)
{
	memset(l, 0, sizeof(*l));
	snprintf(l->technology, sizeof(l->technology), "%s", tech);
	l->id = id;
	l->conns = conns;
	snprintf(l->device, sizeof(l->device), "%s", streq(tech, "smcd") ? "lo" : "mlx5_0");
	snprintf(l->role, sizeof(l->role), "%s", streq(tech, "smcd") ? "" : "SERV");
	snprintf(l->path, sizeof(l->path), SMCD_BUS_PATH_LINKGROUP "/%s/%08x", tech, id);
}

static void dev(struct obj_device *d, const char *tech, const char *name)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->technology, sizeof(d->technology), "%s", tech);
	snprintf(d->name, sizeof(d->name), "%s", name);
}

static void test_linkgroup_tracking(void **state)
{
	struct stats_engine *e = engine(10);
	struct obj_device d[1];
	struct obj_linkgroup l[2];

	dev(&d[0], "smcd", "lo");
	lgr(&l[0], "smcd", 0x100, 2);
	lgr(&l[1], "smcd", 0x200, 1);
	assert_int_equal(stats_engine_track(e, d, 1, l, 2, T0), 0);
	assert_int_equal(e->agent[STATS_LGR_SEEN_SMCD].total, 2);
	assert_int_equal(l[0].first_seen_usec, T0);
	assert_int_equal(d[0].linkgroups_seen, 2);
	/* 0x100 grows then closes; 0x200 disappears; 0x300 appears. */
	lgr(&l[0], "smcd", 0x100, 5);
	lgr(&l[1], "smcd", 0x300, 1);
	assert_int_equal(stats_engine_track(e, d, 1, l, 2, T0 + SEC), 0);
	assert_int_equal(l[0].peak_conns, 5);
	assert_int_equal(l[0].first_seen_usec, T0);
	assert_int_equal(l[1].first_seen_usec, T0 + SEC);
	/* A new peak alone is saved too: the kernel keeps none, a crash would lose it. */
	e->dirty = false;
	lgr(&l[0], "smcd", 0x100, 6);
	assert_int_equal(stats_engine_track(e, d, 1, l, 2, T0 + SEC), 0);
	assert_true(e->dirty);
	e->dirty = false;
	lgr(&l[0], "smcd", 0x100, 0);
	assert_int_equal(stats_engine_track(e, d, 1, l, 2, T0 + 2 * SEC), 0);
	assert_int_equal(l[0].peak_conns, 6);
	assert_false(e->dirty); /* fewer connections: nothing to save */
	assert_int_equal(e->agent[STATS_LGR_SEEN_SMCD].total, 3);
	assert_int_equal(e->agent[STATS_LGR_REMOVED_SMCD].total, 1);
	assert_int_equal(d[0].linkgroups_seen, 3);
	assert_int_equal(stats_engine_track(e, d, 1, l, 0, T0 + 3 * SEC), 0);
	assert_int_equal(e->agent[STATS_LGR_REMOVED_SMCD].total, 3);
	assert_int_equal(e->n_lgrs, 0);
	stats_engine_free(e);
}

static size_t count_lines(const char *text, const char *prefix)
{
	size_t n = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		n += strncmp(p, prefix, strlen(prefix)) == 0;
	return n;
}

static void test_series_cap(void **state)
{
	struct stats_engine *e = engine(3);
	struct obj_linkgroup l[5];
	_cleanup_(freep) char *text = NULL;
	struct stats_sample s = { .ok = true };

	for (size_t i = 0; i < 5; i++)
		lgr(&l[i], "smcd", 0x100 * (uint32_t)(i + 1), (uint32_t)i + 1);
	assert_int_equal(stats_engine_track(e, NULL, 0, l, 5, T0), 0);
	update(e, &s, 1);
	text = prometheus_render(e, &(struct objects){ .linkgroups = l, .n_linkgroups = 5 });
	/* Three groups of their own (the oldest, then the lowest ids), two summed. */
	assert_int_equal(count_lines(text, "smc_linkgroup_connections{"), 4);
	assert_non_null(strstr(
		text, "smc_linkgroup_connections{technology=\"smcd\",linkgroup=\"00000100\""));
	assert_non_null(strstr(
		text,
		"smc_linkgroup_connections{technology=\"smcd\",linkgroup=\"_other\",device=\"\",pnetid=\"\",role=\"\"} 9\n"));
	assert_non_null(strstr(text, "smc_linkgroups_aggregated{technology=\"smcd\"} 2\n"));
	free(TAKE_PTR(text));

	/* Sticky: a newer group does not take a place; a freed place goes to the oldest waiting. */
	l[0] = l[4];
	lgr(&l[4], "smcd", 0x50, 1);
	assert_int_equal(stats_engine_track(e, NULL, 0, l, 5, T0 + SEC), 0);
	assert_true(stats_engine_lgr(e, "smcd", 0x200)->exported);
	assert_true(stats_engine_lgr(e, "smcd", 0x300)->exported);
	assert_true(stats_engine_lgr(e, "smcd", 0x400)->exported); /* took 0x100's place */
	assert_false(stats_engine_lgr(e, "smcd", 0x500)->exported);
	assert_false(stats_engine_lgr(e, "smcd", 0x50)->exported);
	/* A cap of 0: every group in "_other". */
	e->linkgroup_series = 0;
	for (size_t i = 0; i < e->n_lgrs; i++)
		e->lgrs[i].exported = false;
	assert_int_equal(stats_engine_track(e, NULL, 0, l, 5, T0 + 2 * SEC), 0);
	text = prometheus_render(e, &(struct objects){ .linkgroups = l, .n_linkgroups = 5 });
	assert_int_equal(count_lines(text, "smc_linkgroup_connections{"), 1);
	stats_engine_free(e);
}

/* ------------------------------------------------------------------------------------- */
/* Prometheus                                                                             */

/* A fixed engine with a bit of everything: the golden file's input. */
static struct stats_engine *golden_engine(struct obj_device *d, struct obj_linkgroup *l)
{
	struct stats_engine *e = engine(3);
	struct stats_sample s = { .ok = true, .duration_usec = 1234 };
	struct smc_socket socks[4] = {
		{ .state = 1, .mode = 2 },
		{ .state = 1, .mode = 2 },
		{ .state = 10, .mode = 0 },
		{ .state = 1, .mode = 1, .has_fallback = true, .fallback_reason = 0x03030008 },
	};

	dev(&d[0], "smcd", "lo");
	d[0].linkgroups = 2;
	d[0].conns = 3;
	dev(&d[1], "smcr", "mlx5_0");
	snprintf(d[1].pnetid, sizeof(d[1].pnetid), "NET\"1");
	lgr(&l[0], "smcd", 0x100, 2);
	lgr(&l[1], "smcr", 0x200, 1);
	l[1].n_links = 1;
	l[1].links[0].id = 1;
	snprintf(l[1].links[0].state, sizeof(l[1].links[0].state), "ACTIVE");
	snprintf(l[1].links[0].ib_dev, sizeof(l[1].links[0].ib_dev), "mlx5_0");
	snprintf(l[1].links[0].netdev, sizeof(l[1].links[0].netdev), "eth0");
	l[1].links[0].conns = 1;
	l[1].sndbuf_alloc = 65536;
	l[1].buf_alloc = 131072;
	lgr(&l[2], "smcd", 0x300, 1);
	assert_int_equal(stats_engine_track(e, d, 2, l, 3, T0), 0);
	/* The fourth and newest is over the cap of 3: "_other". */
	lgr(&l[3], "smcd", 0x400, 4);
	assert_int_equal(stats_engine_track(e, d, 2, l, 4, T0 + SEC), 0);
	set(&s, "smcd.client_v2", 3);
	set(&s, "smcd.server_v2", 3);
	set(&s, "smcd.rx.bytes", 123456789);
	set(&s, "smcd.tx.bytes", 987654321);
	set(&s, "smcd.rx.buffer_sizes.1024k", 6);
	set(&s, "smcr.server_v1", 1);
	set(&s, "handshake_errors.client", 1);
	set(&s, "fallback.client", 70000);
	set(&s, "fallback.server", 2);
	s.stats.smcd.has_rmb_usage = true;
	s.stats.smcd.rx_rmb_usage = 1048576;
	reason(&s, false, 0x05000000, 65535);
	reason(&s, true, 0x03030008, 2);
	reason(&s, false, 0x0abc0000, 1); /* no name: hex */
	stats_sample_count_sockets(&s, socks, 4);
	update(e, &s, 1);
	reason(&s, false, 0x05000000, 4464); /* wrapped: 65535 + 4465 = 70000 */
	update(e, &s, 2);
	return e;
}

/* Every sample of a family has the same label names (node_exporter refuses the file else). */
static void check_label_consistency(const char *text)
{
	char family[128] = "", labels[512] = "";

	for (const char *p = text; *p;) {
		const char *end = strchr(p, '\n');
		char line[1024], name[128], names[512] = "";
		size_t n;

		assert_non_null(end); /* every line ends with a newline */
		n = (size_t)(end - p);
		assert_true(n < sizeof(line));
		memcpy(line, p, n);
		line[n] = '\0';
		p = end + 1;
		if (line[0] == '#')
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(line, "{ "), line);
		for (char *q = strchr(line, '{'); q && *q && *q != '}';) {
			char *eq = strchr(q + 1, '=');

			strncat(names, q + 1, (size_t)(eq - q - 1));
			strcat(names, ",");
			q = strchr(eq + 2,
				   '"'); /* values in the golden input hold no escaped '"' but one */
			while (q && q[-1] == '\\')
				q = strchr(q + 1, '"');
			q = q ? q + 1 : NULL;
		}
		if (streq(name, family))
			assert_string_equal(names, labels);
		snprintf(family, sizeof(family), "%s", name);
		snprintf(labels, sizeof(labels), "%s", names);
	}
}

static void test_prometheus_golden(void **state)
{
	struct obj_device d[2];
	struct obj_linkgroup l[4];
	struct stats_engine *e = golden_engine(d, l);
	/* With the agent's own families (and smc_lo's), so that the file shows every family a
	 * running agent writes (grafana-dashboard.test evaluates the panels over it). */
	struct assess_app_gauge apps[2] = {
		{ .name = "nginx.service",
		  .conns = { [ASSESS_WELL_SUITED] = 40, [ASSESS_NOT_SUITED] = 2 },
		  .bytes = { [ASSESS_WELL_SUITED] = 1 << 30, [ASSESS_NOT_SUITED] = 300 },
		  .verdict = "likely-faster" },
		{ .name = ASSESS_OTHER,
		  .conns = { [ASSESS_NOT_SERVABLE] = 7 },
		  .bytes = { [ASSESS_NOT_SERVABLE] = 9000 } },
	};
	struct assess_gauges g = {
		.conns = { [ASSESS_WELL_SUITED] = 20, [ASSESS_NOT_SUITED] = 1, [ASSESS_NOT_SERVABLE] = 7 },
		.bytes = { [ASSESS_WELL_SUITED] = 1 << 30, [ASSESS_NOT_SUITED] = 300, [ASSESS_NOT_SERVABLE] = 9000 },
		.reach = { [ASSESS_REACH_SMCD] = 21, [ASSESS_REACH_NONE] = 7 },
		.apps = apps,
		.n_apps = 2
	};
	/* Two other network namespaces: ctr1 read (its kernel's counters as they are), ctr2
	 * not (left out, smc_netns_up 0); one more over stats.netns-max. */
	struct netns_entry ns_v[2] = { { .id.name = "ctr1" }, { .id.name = "ctr2", .error = -EPERM } };
	struct netns_set ns = { .all = true, .max = 2, .v = ns_v, .n = 2, .left_out = 1 };
	struct smc_socket ns_socks[2] = {
		{ .state = 1, .mode = 2 },
		{ .state = 1, .mode = 1, .has_fallback = true, .fallback_reason = 0x03030008 },
	};
	struct prom_agent a = { .version = "0.1.0",
				.netns = &ns,
				.kernel = "7.3.4",
				.state = "running",
				.drift_repairs = 1,
				.loopback = "smclo",
				.loopback_state = "active",
				.assess_enabled = true,
				.assess_available = true,
				.assess_windows = 3,
				.assess_seconds = 600,
				.assess = &g };
	_cleanup_(freep) char *text = NULL;

	ns_v[0].sample.ok = true;
	set(&ns_v[0].sample, "smcd.client_v2", 5);
	set(&ns_v[0].sample, "smcd.server_v2", 5);
	set(&ns_v[0].sample, "smcd.rx.bytes", 4096);
	set(&ns_v[0].sample, "smcd.tx.bytes", 8192);
	set(&ns_v[0].sample, "fallback.client", 1);
	reason(&ns_v[0].sample, false, 0x03030008, 1);
	stats_sample_count_sockets(&ns_v[0].sample, ns_socks, 2);
	text = prometheus_render_agent(
		e,
		&(struct objects){ .devices = d, .n_devices = 2, .linkgroups = l, .n_linkgroups = 4 },
		NULL, &a);
	assert_non_null(text);
	golden_check("agent/smc.prom", text);
	check_label_consistency(text);
	/* The assessment: classes, reach, the application's verdict as a set, "other" without. */
	assert_non_null(strstr(text, "\nsmc_assess_connections{class=\"well-suited\"} 20\n"));
	assert_non_null(strstr(text, "\nsmc_assess_reach_connections{reach=\"none\"} 7\n"));
	assert_non_null(strstr(text, "\nsmc_assess_application_bytes{application=\"nginx.service\","
				     "class=\"well-suited\"} 1073741824\n"));
	assert_non_null(strstr(text, "\nsmc_assess_application_verdict{application=\"nginx."
				     "service\",verdict=\"likely-faster\"} 1\n"));
	assert_non_null(strstr(text, "\nsmc_assess_application_verdict{application=\"nginx."
				     "service\",verdict=\"mixed\"} 0\n"));
	assert_null(strstr(text, "smc_assess_application_verdict{application=\"other\""));
	assert_non_null(strstr(text, "\nsmc_assess_window_seconds 600.000\n"));
	/* The reason that wrapped: 65535 + (4464 - 65535 mod 65536) = 70000, the u64 total. */
	assert_non_null(strstr(
		text,
		"smc_fallback_reasons_total{netns=\"host\",side=\"client\",reason=\"PEERDECL\"} 70000\n"));
	/* Another namespace: the kernel's counts as read, its own label; one not read: left
	 * out, and said so. */
	assert_non_null(strstr(
		text,
		"\nsmc_bytes_total{netns=\"ctr1\",technology=\"smcd\",direction=\"tx\"} 8192\n"));
	assert_non_null(strstr(text, "\nsmc_sockets{netns=\"ctr1\",mode=\"smcd\"} 1\n"));
	assert_non_null(strstr(
		text,
		"\nsmc_fallback_reasons_total{netns=\"ctr1\",side=\"client\",reason=\"NOUEID\"} 1\n"));
	assert_null(strstr(text, "netns=\"ctr2\",")); /* in no family but smc_netns_up */
	assert_non_null(strstr(text, "\nsmc_netns_up{netns=\"host\"} 1\n"));
	assert_non_null(strstr(text, "\nsmc_netns_up{netns=\"ctr1\"} 1\n"));
	assert_non_null(strstr(text, "\nsmc_netns_up{netns=\"ctr2\"} 0\n"));
	assert_non_null(strstr(text, "\nsmc_netns_left_out 1\n"));
	stats_engine_free(e);
}

static void test_prometheus_unavailable(void **state)
{
	struct stats_engine *e = engine(10);
	struct stats_sample s = { .ok = false, .error = -EPROTONOSUPPORT };
	_cleanup_(freep) char *text = NULL;

	update(e, &s, 1);
	text = prometheus_render(e, &(struct objects){});
	assert_non_null(strstr(text, "\nsmc_up 0\n"));
	assert_null(strstr(text, "smc_bytes_total"));
	stats_engine_free(e);
}

/* The agent's own families: info, the state as a set, drift, smc_lo's state. */
static void test_prometheus_agent(void **state)
{
	struct stats_engine *e = engine(10);
	struct prom_agent a = { .version = "1.2.3",
				.kernel = "7.3.4",
				.state = "degraded",
				.drift_repairs = 5,
				.drifted = 2 };
	_cleanup_(freep) char *text = NULL;
	_cleanup_(freep) char *text2 = NULL;

	text = prometheus_render_agent(e, &(struct objects){}, NULL, &a);
	assert_non_null(text);
	check_label_consistency(text);
	assert_non_null(strstr(text, "\nsmc_agent_info{version=\"1.2.3\",kernel=\"7.3.4\"} 1\n"));
	assert_non_null(strstr(text, "\nsmc_agent_state{state=\"degraded\"} 1\n"));
	assert_non_null(strstr(text, "\nsmc_agent_state{state=\"running\"} 0\n"));
	assert_non_null(strstr(text, "\nsmc_agent_drift_repairs_total 5\n"));
	assert_non_null(strstr(text, "\nsmc_agent_drifted_items 2\n"));
	assert_null(strstr(text, "smc_loopback_state")); /* no smc_lo: no series */
	assert_null(strstr(text, "smc_assess_"));	 /* assess.interval 0: no series */
	/* smc_stats_timestamp_seconds stays the last family (readers check for it). */
	assert_non_null(strstr(
		text, "# TYPE smc_stats_timestamp_seconds gauge\nsmc_stats_timestamp_seconds"));
	assert_null(strstr(strstr(text, "\nsmc_stats_timestamp_seconds "), "\n# "));

	a.loopback = "smclo";
	a.loopback_state = "draining";
	text2 = prometheus_render_agent(e, &(struct objects){}, NULL, &a);
	assert_non_null(text2);
	check_label_consistency(text2);
	assert_non_null(
		strstr(text2, "\nsmc_loopback_state{device=\"smclo\",state=\"draining\"} 1\n"));
	assert_non_null(strstr(text2, "\nsmc_loopback_state{device=\"smclo\",state=\"active\"} 0\n"));
	assert_non_null(
		strstr(text2, "\nsmc_loopback_state{device=\"smclo\",state=\"inactive\"} 0\n"));

	/* On, but it cannot run (or no window yet): its state, no window's gauges. */
	_cleanup_(freep) char *text3 = NULL;

	a.assess_enabled = true;
	text3 = prometheus_render_agent(e, &(struct objects){}, NULL, &a);
	assert_non_null(text3);
	assert_non_null(strstr(text3, "\nsmc_assess_available 0\n"));
	assert_non_null(strstr(text3, "\nsmc_assess_windows_total 0\n"));
	assert_null(strstr(text3, "smc_assess_connections"));
	stats_engine_free(e);
}

/* Render with the cache and without: the same text, and how many families were reused. */
static void check_cached(const struct stats_engine *e, struct prom_agent *a,
			 struct prom_cache *cache, uint64_t want_hits)
{
	uint64_t hits = cache->hits, misses = cache->misses;
	_cleanup_(freep) char *fresh = NULL;
	_cleanup_(freep) char *cached = NULL;

	a->cache = NULL;
	fresh = prometheus_render_agent(e, &(struct objects){}, NULL, a);
	a->cache = cache;
	cached = prometheus_render_agent(e, &(struct objects){}, NULL, a);
	assert_non_null(fresh);
	assert_non_null(cached);
	assert_string_equal(cached, fresh);
	check_label_consistency(cached);
	assert_int_equal(cache->hits - hits, want_hits);
	assert_int_equal(cache->misses - misses, PROM_CACHE_SLOTS - want_hits);
}

/*
 * The text of a family whose values did not change is reused (the agent's textfile at
 * every interval); anything it is made of changing makes it again: a counter, a reason, a
 * socket, a namespace's sample, its name, a namespace more or less, the agent's own
 * namespace unreadable.
 */
static void test_prometheus_cache(void **state)
{
	struct obj_device d[2];
	struct obj_linkgroup l[4];
	struct stats_engine *e = golden_engine(d, l);
	struct netns_entry ns_v[2] = { { .id.name = "ctr1" }, { .id.name = "ctr2", .error = -EPERM } };
	struct netns_set ns = { .all = true, .max = 2, .v = ns_v, .n = 2 };
	struct prom_agent a = {
		.version = "0.1.0", .kernel = "7.3.4", .state = "running", .netns = &ns
	};
	struct prom_cache cache = {};
	struct stats_sample s = e->last;
	struct smc_socket socks[3] = {
		{ .state = 1, .mode = 2 },
		{ .state = 1, .mode = 1, .has_fallback = true, .fallback_reason = 0x03030008 },
		{ .state = 1, .mode = 1, .has_fallback = true, .fallback_reason = 0x03030008 },
	};

	ns_v[0].sample.ok = true;
	set(&ns_v[0].sample, "smcd.tx.bytes", 8192);
	stats_sample_count_sockets(&ns_v[0].sample, socks, 1);
	check_cached(e, &a, &cache, 0);		       /* the first file: every family made */
	check_cached(e, &a, &cache, PROM_CACHE_SLOTS); /* nothing changed: every one reused */

	/* The agent's own: one counter (smc_bytes_total) ... */
	set(&s, "smcd.tx.bytes", 987654321 + 10);
	update(e, &s, 3);
	check_cached(e, &a, &cache, PROM_CACHE_SLOTS - 1);
	/* ... a gauge (smc_buffer_usage_bytes), a reason (smc_fallback_reasons_total, and
	 * smc_fallbacks_total), the sockets (smc_sockets, smc_fallback_sockets) */
	s.stats.smcd.rx_rmb_usage = 65536;
	update(e, &s, 4);
	check_cached(e, &a, &cache, PROM_CACHE_SLOTS - 1);
	reason(&s, true, 0x03030008, 3);
	set(&s, "fallback.server", 3);
	update(e, &s, 5);
	check_cached(e, &a, &cache, PROM_CACHE_SLOTS - 2);
	stats_sample_count_sockets(&s, socks, 3);
	update(e, &s, 6);
	check_cached(e, &a, &cache, PROM_CACHE_SLOTS - 1);
	/* Another namespace: its counters as read, its sockets, its name */
	set(&ns_v[0].sample, "smcd.tx.bytes", 16384);
	check_cached(e, &a, &cache, PROM_CACHE_SLOTS - 1);
	stats_sample_count_sockets(&ns_v[0].sample, socks, 2);
	check_cached(e, &a, &cache, PROM_CACHE_SLOTS - 1);
	snprintf(ns_v[0].id.name, sizeof(ns_v[0].id.name), "ctr3");
	check_cached(e, &a, &cache, 0);
	/* One namespace more (ctr2 read, no counters), none at all, the agent's own unread */
	ns_v[1].error = 0;
	ns_v[1].sample.ok = true;
	check_cached(e, &a, &cache, 0);
	a.netns = NULL;
	check_cached(e, &a, &cache, 0);
	check_cached(e, &a, &cache, PROM_CACHE_SLOTS);
	e->available = false;
	check_cached(e, &a, &cache, 0);
	/* A first file with nothing to read (no SMC yet, no namespace): no family has a key,
	 * and the next file reuses every one (memcpy/memcmp of no bytes, never of NULL). */
	prom_cache_clear(&cache);
	check_cached(e, &a, &cache, 0);
	check_cached(e, &a, &cache, PROM_CACHE_SLOTS);
	prom_cache_clear(&cache);
	stats_engine_free(e);
}

/* ------------------------------------------------------------------------------------- */
/* State file and textfile                                                                */

static char dir[] = "/tmp/test-agent-stats-XXXXXX";

static int setup_dir(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_state_round_trip(void **state)
{
	struct stats_engine *e = engine(10), *f = engine(10), *g = engine(10);
	struct stats_sample s = { .ok = true };
	struct obj_device d[1];
	struct obj_linkgroup l[1];
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/stats.state", dir);
	dev(&d[0], "smcd", "lo");
	lgr(&l[0], "smcd", 0x100, 2);
	stats_engine_track(e, d, 1, l, 1, T0);
	set(&s, "smcd.rx.bytes", 1000);
	reason(&s, true, 0x03030008, 65000);
	update(e, &s, 1);
	stats_engine_reset(e, T0 + SEC);
	set(&s, "smcd.rx.bytes", 1500);
	reason(&s, true, 0x03030008, 100); /* wrapped */
	update(e, &s, 2);
	assert_int_equal(stats_state_save(e, path, "boot-a", NULL), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);

	/* Another boot: nothing carries over. */
	assert_int_equal(stats_state_load(g, path, "boot-b", NULL), 0);
	assert_int_equal(g->reset_real_usec, 0);
	assert_false(g->have_raw);

	/* The same boot: a restarted agent continues exactly. */
	assert_int_equal(stats_state_load(f, path, "boot-a", NULL), 1);
	assert_int_equal(f->reset_real_usec, T0 + SEC);
	assert_int_equal(total(f, "smcd.rx.bytes"), 1500);
	assert_int_equal(since_reset(f, "smcd.rx.bytes"), 500);
	assert_int_equal(find_reason(f, true, 0x03030008)->c.total, 65636);
	set(&s, "smcd.rx.bytes", 1700);
	reason(&s, true, 0x03030008, 110);
	assert_false(update(f, &s, 3) & STATS_CHANGED_EPOCH);
	assert_int_equal(total(f, "smcd.rx.bytes"), 1700);
	assert_int_equal(find_reason(f, true, 0x03030008)->c.total, 65646);
	/* The link group it knew is not new; its device keeps its count. */
	stats_engine_track(f, d, 1, l, 1, T0 + 4 * SEC);
	assert_int_equal(f->agent[STATS_LGR_SEEN_SMCD].total, 1);
	assert_int_equal(l[0].first_seen_usec, T0);
	assert_int_equal(d[0].linkgroups_seen, 1);
	stats_engine_free(e);
	stats_engine_free(f);
	stats_engine_free(g);
}

static void test_state_ignores_unknown_lines(void **state)
{
	struct stats_engine *e = engine(10);
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/other.state", dir);
	fp = fopen(path, "we");
	assert_non_null(fp);
	fputs("version 1\nboot_id b\nreset_usec 5\ncounter smcd.rx.bytes 1 2 1\n"
	      "counter no.such.key 1 2 3\nfuture-kind a b c\ncounter smcd.tx.bytes 1 2 9\n",
	      fp);
	fclose(fp);
	assert_int_equal(stats_state_load(e, path, "b", NULL), 1);
	assert_int_equal(total(e, "smcd.rx.bytes"), 2);
	assert_int_equal(since_reset(e, "smcd.rx.bytes"), 1);
	assert_int_equal(since_reset(e, "smcd.tx.bytes"), 2); /* baseline > total: dropped */
	stats_engine_free(e);
	/* Another version is not read at all. */
	e = engine(10);
	fp = fopen(path, "we");
	fputs("version 2\nboot_id b\nreset_usec 5\ncounter smcd.rx.bytes 1 2 1\n", fp);
	fclose(fp);
	assert_int_equal(stats_state_load(e, path, "b", NULL), 0);
	assert_int_equal(total(e, "smcd.rx.bytes"), 0);
	stats_engine_free(e);
}

static void write_file(const char *path, const char *data, size_t len)
{
	FILE *fp = fopen(path, "we");

	assert_non_null(fp);
	assert_int_equal(fwrite(data, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

/* A refused file leaves nothing behind: the engine is as new. */
static void assert_as_new(const struct stats_engine *e)
{
	assert_int_equal(e->reset_real_usec, 0);
	assert_false(e->have_raw);
	assert_int_equal(e->n_reasons + e->n_lgrs + e->n_devices, 0);
	for (size_t i = 0; i < e->n_counters; i++)
		assert_int_equal(e->counters[i].total + e->counters[i].baseline, 0);
	for (size_t i = 0; i < _STATS_AGENT_MAX; i++)
		assert_int_equal(e->agent[i].total, 0);
}

static int load_text(const char *path, const char *text)
{
	struct stats_engine *e = engine(10);
	int r;

	write_file(path, text, strlen(text));
	r = stats_state_load(e, path, "b", NULL);
	if (r < 0)
		assert_as_new(e);
	stats_engine_free(e);
	return r;
}

/* A state file of n duplicate copies of one line, framed as the agent frames its own. */
static void write_duplicates(const char *path, const char *line, size_t n)
{
	FILE *fp = fopen(path, "we");

	assert_non_null(fp);
	fprintf(fp, "version 1\nboot_id b\nreset_usec 5\nentries %zu\n", n);
	for (size_t i = 0; i < n; i++)
		fputs(line, fp);
	fputs("end\n", fp);
	assert_int_equal(fclose(fp), 0);
}

static int load_why(const char *path, const char **why)
{
	struct stats_engine *e = engine(10);
	int r = stats_state_load(e, path, "b", why);

	if (r < 0)
		assert_as_new(e);
	stats_engine_free(e);
	return r;
}

/*
 * A state file is data from disk, not trusted (issue 35: 200,000 duplicate reason lines
 * started the agent at 884 MB and it wrote them back): duplicates, too many entries, a file
 * over 8 MiB, counts above 2^62, times in the future are refused whole, saying why.
 */
static void test_state_untrusted(void **state)
{
	char path[256], buf[256];
	const char *why = NULL;

	snprintf(path, sizeof(path), "%s/hostile.state", dir);
	write_duplicates(path, "reason server 0x03030008 1 2 0\n", 200000);
	assert_int_equal(load_why(path, &why), -EBADMSG);
	assert_string_equal(why, "a fallback reason is listed twice");
	write_duplicates(path, "counter smcd.rx.bytes 1 2 1\n", 2);
	assert_int_equal(load_why(path, &why), -EBADMSG);
	assert_string_equal(why, "a counter is listed twice");
	write_duplicates(path, "linkgroup smcd 00000100 5 1\n", 2);
	assert_int_equal(load_why(path, &why), -EBADMSG);
	assert_string_equal(why, "a link group is listed twice");
	write_duplicates(path, "device smcd lo 1 0\n", 2);
	assert_int_equal(load_why(path, &why), -EBADMSG);
	assert_string_equal(why, "a device is listed twice");
	/* Lines the agent skips (another agent's kinds) still count against the size. */
	write_duplicates(path, "future-kind xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n", 300000);
	assert_int_equal(load_why(path, &why), -EBADMSG);
	assert_string_equal(why, "it is larger than 8 MiB, more than the agent ever writes");

	/* Counts and times out of range. */
	assert_int_equal(load_text(path, "version 1\nboot_id b\nreset_usec 5\nentries 1\n"
					 "counter smcd.rx.bytes 1 18446744073709551615 0\nend\n"),
			 -EBADMSG);
	assert_int_equal(load_text(path, "version 1\nboot_id b\nreset_usec 5\nentries 1\n"
					 "reason client 0x1 1 18446744073709551615 0\nend\n"),
			 -EBADMSG);
	assert_int_equal(load_text(path, "version 1\nboot_id b\nreset_usec 18446744073709551615\n"
					 "entries 1\ncounter smcd.rx.bytes 1 2 1\nend\n"),
			 -EBADMSG);
	snprintf(buf, sizeof(buf),
		 "version 1\nboot_id b\nreset_usec 5\nentries 1\nlinkgroup smcd 1 %llu 1\nend\n",
		 (unsigned long long)time(NULL) * 1000000ULL + 2 * 86400ULL * 1000000ULL);
	assert_int_equal(load_text(path, buf), -EBADMSG);
	/* The largest count accepted, and a reset a moment ago, still load. */
	snprintf(buf, sizeof(buf),
		 "version 1\nboot_id b\nreset_usec %llu\nentries 1\n"
		 "counter smcd.rx.bytes 1 4611686018427387904 0\nend\n",
		 (unsigned long long)time(NULL) * 1000000ULL);
	assert_int_equal(load_text(path, buf), 1);
	/* Another boot's file is not read at all, whatever it holds. */
	assert_int_equal(
		load_text(path, "version 1\nboot_id other\nreset_usec 18446744073709551615\n"), 0);
	/* Sums saturate: totals near the top never wrap to small numbers. */
	assert_true(u64_add_sat(UINT64_MAX - 1, 5) == UINT64_MAX);
	assert_true(u64_add_sat(1, 2) == 3);
	(void)state;
}

/*
 * Damaged files are refused whole, never loaded in part: every cut of a saved file (in a
 * line or at a line's end: the frame "entries N" ... "end" shows those), garbage, a known
 * kind that does not parse.  Arbitrary input is the fuzz target's (tests/fuzz).
 */
static void test_state_damaged(void **state)
{
	struct stats_engine *e = engine(10);
	struct stats_sample s = { .ok = true };
	struct obj_device d[1];
	struct obj_linkgroup l[1];
	char path[256], cut[256];
	_cleanup_(freep) char *text = NULL;
	size_t len = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/stats.state", dir);
	snprintf(cut, sizeof(cut), "%s/cut.state", dir);
	dev(&d[0], "smcd", "lo");
	lgr(&l[0], "smcd", 0x100, 2);
	stats_engine_track(e, d, 1, l, 1, T0);
	set(&s, "smcd.rx.bytes", 1000);
	reason(&s, true, 0x03030008, 7);
	update(e, &s, 1);
	stats_engine_reset(e, T0 + SEC);
	assert_int_equal(stats_state_save(e, path, "b", NULL), 0);
	stats_engine_free(e);
	fp = fopen(path, "re");
	assert_non_null(fp);
	text = calloc(1, 65536);
	assert_non_null(text);
	len = fread(text, 1, 65535, fp);
	fclose(fp);
	assert_true(len > 0 && len < 65535);
	assert_non_null(strstr(text, "\nentries "));
	assert_int_equal(strcmp(text + len - 4, "end\n"), 0);

	for (size_t n = 0; n < len; n++) {
		int r;

		e = engine(10);
		write_file(cut, text, n);
		r = stats_state_load(e, cut, "b", NULL);
		if (r != -EBADMSG)
			fail_msg("a file cut after %zu of %zu bytes: %d, not -EBADMSG", n, len, r);
		assert_as_new(e);
		stats_engine_free(e);
	}
	e = engine(10);
	assert_int_equal(stats_state_load(e, path, "b", NULL), 1);
	stats_engine_free(e);

	/* Not a state file, garbage in one, a known kind that does not parse, the frame wrong. */
	assert_int_equal(load_text(cut, "not a state file\n"), -EBADMSG);
	assert_int_equal(load_text(cut, "\001\002\n"), -EBADMSG);
	assert_int_equal(
		load_text(cut,
			  "version 1\nboot_id b\nreset_usec 5\ncounter smcd.rx.bytes 1 2 1\n\001\n"),
		-EBADMSG);
	assert_int_equal(
		load_text(cut, "version 1\nboot_id b\nreset_usec 5\ncounter smcd.rx.bytes 1 x 1\n"),
		-EBADMSG);
	assert_int_equal(
		load_text(cut, "version 1\nboot_id b\nreset_usec 5\nreason client 0x1 70000 1 1\n"),
		-EBADMSG);
	assert_int_equal(
		load_text(cut,
			  "version 1\nboot_id b\nreset_usec 5\nentries 2\ncounter smcd.rx.bytes 1 2 1\nend\n"),
		-EBADMSG);
	assert_int_equal(
		load_text(cut,
			  "version 1\nboot_id b\nreset_usec 5\nentries 1\ncounter smcd.rx.bytes 1 2 1\nend\nmore\n"),
		-EBADMSG);
	assert_int_equal(load_text(cut, "version 1\nboot_id b\nreset_usec 5\n"), -EBADMSG);
	assert_int_equal(load_text(cut, ""), -EBADMSG);
	/* Framed right, with a kind of a newer agent: read. */
	assert_int_equal(
		load_text(cut,
			  "version 1\nboot_id b\nreset_usec 5\nentries 2\ncounter smcd.rx.bytes 1 2 1\nnew_kind x\nend\n"),
		1);
	/* Another boot or another version is not damage, whatever follows. */
	assert_int_equal(load_text(cut, "version 1\nboot_id a\nreset_usec 5\n\001\n"), 0);
	assert_int_equal(load_text(cut, "version 2\nboot_id b\nnew header\n"), 0);
}

static void test_textfile_write(void **state)
{
	char path[256], buf[64] = "";
	struct stat st;
	size_t n_files = 0;
	FILE *f;
	DIR *dp;
	struct dirent *de;

	snprintf(path, sizeof(path), "%s/smc.prom", dir);
	assert_int_equal(textfile_write_atomic(path, "a 1\n", 4, 0644, NULL), 0);
	assert_int_equal(textfile_write_atomic(path, "b 2\n", 4, 0644, NULL), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	f = fopen(path, "re");
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "b 2\n");
	dp = opendir(dir);
	while ((de = readdir(dp)))
		n_files += strncmp(de->d_name, ".smc.prom.", 10) == 0;
	closedir(dp);
	assert_int_equal(n_files, 0); /* no temporary file left */
	snprintf(path, sizeof(path), "%s/missing/smc.prom", dir);
	assert_int_equal(textfile_write_atomic(path, "a 1\n", 4, 0644, NULL), -ENOENT);
}

/*
 * The Prometheus textfile's write (textfile_replace(): atomic, not durable): a new file each
 * time (another inode: a reader holding the old one reads it whole), so its mtime moves at
 * every write even with the same text (node_textfile_mtime_seconds, the SmcTextfileStale
 * alert), mode as asked, no temporary left; a missing directory is an error.
 */
static void test_textfile_replace(void **state)
{
	char path[256];
	struct stat st, st2;
	struct timespec old[2] = { { .tv_sec = 1000000000 }, { .tv_sec = 1000000000 } };
	size_t n_files = 0;
	DIR *dp;
	struct dirent *de;
	int fd;

	snprintf(path, sizeof(path), "%s/replaced.prom", dir);
	assert_int_equal(textfile_replace(path, "a 1\n", 4, 0644), 0);
	assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mtime, 1000000000);
	fd = open(path, O_RDONLY | O_CLOEXEC); /* a reader in the middle of the old file */
	assert_true(fd >= 0);
	assert_int_equal(textfile_replace(path, "a 1\n", 4, 0644), 0);
	assert_int_equal(stat(path, &st2), 0);
	assert_true(st2.st_mtime > 1000000000);
	assert_true(st2.st_ino != st.st_ino);
	assert_int_equal(st2.st_mode & 07777, 0644);
	assert_int_equal(st2.st_size, 4);
	assert_int_equal(fstat(fd, &st2), 0);
	assert_int_equal(st2.st_ino, st.st_ino); /* the old file, whole, for its reader */
	assert_int_equal(st2.st_size, 4);
	close(fd);
	dp = opendir(dir);
	while ((de = readdir(dp)))
		n_files += strncmp(de->d_name, ".replaced.prom.", 15) == 0;
	closedir(dp);
	assert_int_equal(n_files, 0);
	snprintf(path, sizeof(path), "%s/missing/smc.prom", dir);
	assert_int_equal(textfile_replace(path, "a 1\n", 4, 0644), -ENOENT);
}

/*
 * The rename done, the directory's fsync failing: the file is replaced, and the answer says
 * so (TEXTFILE_NOT_DURABLE and the fsync's error), not "not written".  The failure is a real
 * one: a directory with write and search but no read permission (0300) lets mkostemp and
 * rename through and refuses the open(O_RDONLY) that fsync needs.  Root passes any
 * permission, so the writer runs as nobody then.
 */
static void test_textfile_write_not_durable(void **state)
{
	char top[] = "/tmp/test-textfile-XXXXXX", sub[64], path[96], buf[64] = "";
	int st = 0, fd;
	pid_t pid;

	assert_non_null(mkdtemp(top));
	assert_int_equal(chmod(top, 0711), 0);
	snprintf(sub, sizeof(sub), "%s/wx", top);
	snprintf(path, sizeof(path), "%s/f", sub);
	assert_int_equal(mkdir(sub, 0700), 0);
	test_write_file(sub, "f", "old\n");
	if (getuid() == 0) {
		assert_int_equal(chown(sub, 65534, 65534), 0);
		assert_int_equal(chown(path, 65534, 65534), 0);
	}
	assert_int_equal(chmod(sub, 0300), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int sync_error = 0, r;

		if (getuid() == 0 && (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
				      setresuid(65534, 65534, 65534) < 0))
			_exit(90);
		r = textfile_write_atomic(path, "new\n", 4, 0644, &sync_error);
		if (r != TEXTFILE_NOT_DURABLE || sync_error != -EACCES)
			_exit(100 + (r & 0x3f));
		/* The textfile's write syncs nothing: the directory is never opened. */
		snprintf(path, sizeof(path), "%s/g", sub);
		r = textfile_replace(path, "new\n", 4, 0644);
		_exit(r == 0 ? 0 : 100 + (r & 0x3f));
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf) - 1), 4);
	close(fd);
	assert_string_equal(buf, "new\n"); /* replaced */
	assert_int_equal(chmod(sub, 0700), 0);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/g", sub);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(sub), 0);
	assert_int_equal(rmdir(top), 0);
}

/* A writer killed between mkostemp and rename leaves ".smc.prom.XXXXXX": the next agent
 * removes its own such files at start, and nothing else in the directory. */
static void test_textfile_remove_stale(void **state)
{
	static const char *const keep[] = { "smc.prom", ".smc.prom.ABC", ".other.prom.ABCDEF",
					    "x.smc.prom.ABCDEF", ".smc.prom.ABCDEFG" };
	char path[256], p[300];
	struct stat st;

	snprintf(path, sizeof(path), "%s/smc.prom", dir);
	for (size_t i = 0; i < sizeof(keep) / sizeof(*keep); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, keep[i]);
		fclose(fopen(p, "we"));
	}
	snprintf(p, sizeof(p), "%s/.smc.prom.Zq3x9A", dir);
	fclose(fopen(p, "we"));
	assert_int_equal(textfile_remove_stale(path), 1);
	assert_int_not_equal(stat(p, &st), 0);
	for (size_t i = 0; i < sizeof(keep) / sizeof(*keep); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, keep[i]);
		assert_int_equal(stat(p, &st), 0);
		unlink(p);
	}
	assert_int_equal(textfile_remove_stale(path), 0);
}

/* ------------------------------------------------------------------------------------- */
/* smc.yaml                                                                               */

static struct config *load_yaml(const char *text, struct config_errors *errors)
{
	char path[256];
	struct config *c = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "%s/smc.yaml", dir);
	f = fopen(path, "we");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	memset(errors, 0, sizeof(*errors));
	(void)config_load(path, &c, errors);
	return c;
}

static void expect_config_error(const char *text, const char *expected)
{
	struct config_errors errors;
	struct config *c = load_yaml(text, &errors);

	assert_null(c);
	assert_true(errors.n >= 1);
	if (!strstr(errors.lines[0], expected))
		fail_msg("expected '%s' in '%s'", expected, errors.lines[0]);
	config_errors_clear(&errors);
}

static void test_config_stats(void **state)
{
	struct config_errors errors;
	struct config *c = load_yaml("seid: leave\n", &errors);

	assert_non_null(c);
	assert_int_equal(c->stats.interval_usec, 10 * SEC);
	assert_int_equal(c->stats.linkgroup_series, 100);
	assert_true(c->stats.prometheus);
	assert_string_equal(c->stats.prometheus_path, "/var/lib/prometheus/node-exporter/smc.prom");
	assert_int_equal(c->stats.netns, CONFIG_NETNS_ALL);
	assert_int_equal(c->stats.n_netns_names, 0);
	assert_int_equal(c->stats.netns_max, 32);
	config_free(c);
	c = load_yaml("stats:\n  netns: none\n  netns-max: 256\n", &errors);
	assert_non_null(c);
	assert_int_equal(c->stats.netns, CONFIG_NETNS_NONE);
	assert_int_equal(c->stats.netns_max, 256);
	config_free(c);
	c = load_yaml("stats:\n  netns: [ctr1, \"cni-1f0c\"]\n", &errors);
	assert_non_null(c);
	assert_int_equal(c->stats.netns, CONFIG_NETNS_LIST);
	assert_int_equal(c->stats.n_netns_names, 2);
	assert_string_equal(c->stats.netns_names[0], "ctr1");
	assert_string_equal(c->stats.netns_names[1], "cni-1f0c");
	config_free(c);
	c = load_yaml("stats:\n  interval: 0\n  linkgroup-series: 0\n  prometheus:\n"
		      "    enabled: false\n    path: /srv/metrics/x.prom\n",
		      &errors);
	assert_non_null(c);
	assert_int_equal(c->stats.interval_usec, 0);
	assert_int_equal(c->stats.linkgroup_series, 0);
	assert_false(c->stats.prometheus);
	assert_string_equal(c->stats.prometheus_path, "/srv/metrics/x.prom");
	config_free(c);

	expect_config_error(
		"stats:\n  prometheus: {path: metrics/smc.prom}\n",
		"smc.yaml:2:22: stats.prometheus.path: 'metrics/smc.prom' is not valid (expected an absolute path");
	expect_config_error("stats:\n  prometheus: {path: /var/lib/x/smc.txt}\n", "is not valid");
	expect_config_error("stats:\n  prometheus: {path: /var/lib/x/.prom}\n", "is not valid");
	expect_config_error(
		"stats:\n  linkgroup-series: 10001\n",
		"smc.yaml:2:21: stats.linkgroup-series: '10001' is not valid (expected a whole number from 0 to 10000)");
	expect_config_error("stats:\n  interval: 100ms\n", "stats.interval");
	expect_config_error(
		"stats:\n  export: yes\n",
		"stats: unknown key 'export' (expected one of: interval, linkgroup-series, netns, netns-max, prometheus)");
	expect_config_error(
		"stats:\n  netns: some\n",
		"smc.yaml:2:10: stats.netns: 'some' is not valid (expected all, none or a list of names in /run/netns)");
	expect_config_error("stats:\n  netns: [a, ../b]\n",
			    "smc.yaml:2:14: stats.netns: '../b' is not a network namespace name");
	expect_config_error(
		"stats:\n  netns: [a, b, a]\n",
		"smc.yaml:2:17: stats.netns: duplicate name 'a' (first given at line 2, column 11)");
	expect_config_error("stats:\n  netns: {a: 1}\n", "stats.netns");
	expect_config_error(
		"stats:\n  netns-max: 0\n",
		"smc.yaml:2:14: stats.netns-max: '0' is not valid (expected a whole number from 1 to 256)");
	expect_config_error("stats:\n  prometheus: {enabled: maybe}\n",
			    "stats.prometheus.enabled: 'maybe' is not a boolean");
}

/* The shipped smc.yaml spells out every default: it must load to the built-in defaults. */
static void test_config_shipped(void **state)
{
	char path[512];
	struct config_errors errors = {};
	struct config *c = NULL, *d = NULL;

	snprintf(path, sizeof(path), "%s/etc/smc/smc.yaml", golden_top_srcdir());
	assert_int_equal(config_load(path, &c, &errors), 0);
	assert_int_equal(config_new_default(path, &d), 0);
	assert_int_equal(c->stats.interval_usec, d->stats.interval_usec);
	assert_int_equal(c->stats.linkgroup_series, d->stats.linkgroup_series);
	assert_int_equal(c->stats.prometheus, d->stats.prometheus);
	assert_string_equal(c->stats.prometheus_path, d->stats.prometheus_path);
	assert_int_equal(c->stats.netns, d->stats.netns);
	assert_int_equal(c->stats.netns_max, d->stats.netns_max);
	config_free(c);
	config_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_sample_and_rates),
		cmocka_unit_test(test_reset_is_a_baseline),
		cmocka_unit_test(test_u16_reason_wrap),
		cmocka_unit_test(test_kernel_epoch),
		cmocka_unit_test(test_epoch_from_reasons),
		cmocka_unit_test(test_unavailable),
		cmocka_unit_test(test_linkgroup_tracking),
		cmocka_unit_test(test_series_cap),
		cmocka_unit_test(test_prometheus_golden),
		cmocka_unit_test(test_prometheus_unavailable),
		cmocka_unit_test(test_prometheus_agent),
		cmocka_unit_test(test_prometheus_cache),
		cmocka_unit_test(test_state_round_trip),
		cmocka_unit_test(test_state_ignores_unknown_lines),
		cmocka_unit_test(test_state_damaged),
		cmocka_unit_test(test_state_untrusted),
		cmocka_unit_test(test_textfile_write),
		cmocka_unit_test(test_textfile_replace),
		cmocka_unit_test(test_textfile_write_not_durable),
		cmocka_unit_test(test_textfile_remove_stale),
		cmocka_unit_test(test_config_stats),
		cmocka_unit_test(test_config_shipped),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
