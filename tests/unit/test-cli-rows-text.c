// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The read verbs whose default text is drawn from the kernel's structs, not from their
 * document (so that it needs no json-c): the text must be exactly what the document's
 * renderer prints for the same objects.  linkgroup has one path (cli/linkgroup.c emits
 * into a sink): its streamed JSON against json-c's print of its document, with --smcd,
 * --smcr and both, for every link group dump recorded in tests/fixtures (every lane and
 * step) and for synthetic groups with what no recording has (SMC-R groups with links,
 * every role and type, unknown ones, VLANs, PNET IDs, long names; their tables' text held
 * by goldens).  stats has one text renderer drawn from the counters' rows; what is held
 * here is its model: stats_rows_text() (the kernel's structs) against stats_tree_text() of
 * stats_tree_from_kernel() (the tree read back into rows, as the agent's answer is; less
 * the other technology for --smcd and --smcr), in every view and at both detail levels,
 * for every statistics dump recorded and for synthetic numbers (all counters set, gauges
 * sent and not, numbers past 2^32, reasons known and unknown, more fallbacks than the
 * reasons count).  Its -j streams the counter tree (stats_rows_emit()): held against
 * json-c's print of stats_tree_from_kernel() (the agent's shape), compact and pretty, in
 * every view, for the same numbers.  device has one path (cli/device.c emits into a
 * sink): its streamed JSON against json-c's print of its document, with --smcd, --smcr and
 * both, for every device dump recorded and for synthetic devices (ISM with PCI data, user
 * PNET IDs, RDMA ports down, without PCI ids, no usable port; their tables' text at both
 * detail levels held by goldens); and the counts of the default table's device list, which
 * reads GIDs only where two devices share a fabric id, equal to those of the whole list
 * for every recording.
 * info has one path (cli/info.c emits into a sink): its streamed JSON against json-c's
 * print of its document for every recorded step the capability probe can be replayed in
 * (test-cli-render holds text and JSON to the goldens of its synthetic hosts); and that
 * info asks for the SEID only when the system information names one.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <linux/genetlink.h>

#include "cli/verbs.h"
#include "common/advice.h"
#include "common/output.h"
#include "common/stats-table.h"
#include "netlink/smcnl-internal.h"
#include "tests/unit/golden.h"

/*
 * smcctl linkgroup's answer has one path (linkgroup_list_emit()): its streamed JSON must be
 * what json-c prints for the document the same emits build (the -d blocks are drawn from
 * that document), compact and pretty, with --smcd, --smcr and both; the tables' text of
 * the synthetic groups is held by goldens (synthetic/NAME-{both,smcd,smcr}.txt), that of
 * every recording by test-cli-golden.
 */
static void lgr_same(const char *what, const struct smcd_linkgroup *d, size_t n_d,
		     const struct smcr_linkgroup *r, size_t n_r, const char *golden)
{
	static const bool wants[][2] = { { true, true }, { true, false }, { false, true } };
	static const char *const suffix[] = { "both", "smcd", "smcr" };

	for (size_t w = 0; w < ELEMENTSOF(wants); w++) {
		for (int pretty = 0; pretty < 2; pretty++) {
			struct out_sink o;
			struct capture a, b;
			json_object *doc;

			out_sink_doc(&o);
			assert_int_equal(linkgroup_list_emit(&o, d, n_d, r, n_r, wants[w][0],
							     wants[w][1], NULL, NULL),
					 0);
			assert_non_null(doc = out_sink_take_doc(&o));
			capture_begin(&a);
			assert_int_equal(out_json(a.f, doc, pretty), 0);
			capture_end(&a);
			json_object_put(doc);
			capture_begin(&b);
			out_sink_json(&o, b.f, pretty);
			assert_int_equal(linkgroup_list_emit(&o, d, n_d, r, n_r, wants[w][0],
							     wants[w][1], NULL, NULL),
					 0);
			capture_end(&b);
			if (strcmp(a.buf, b.buf) != 0)
				fail_msg("%s (smcd %d, smcr %d): the JSON differs\n--- json-c:\n%s\n"
					 "--- streamed:\n%s",
					 what, wants[w][0], wants[w][1], a.buf, b.buf);
			free(a.buf);
			free(b.buf);
		}
		if (golden) {
			struct out_sink o;
			struct capture t;
			char file[256];

			capture_begin(&t);
			out_sink_text(&o, t.f, 0);
			assert_int_equal(linkgroup_list_emit(&o, d, n_d, r, n_r, wants[w][0],
							     wants[w][1], NULL, NULL),
					 0);
			capture_end(&t);
			/* a title at least */
			assert_true(strlen(t.buf) > 0);
			snprintf(file, sizeof(file), "synthetic/%s-%s.txt", golden, suffix[w]);
			golden_check(file, t.buf);
			free(t.buf);
		}
	}
}

static void test_lgr_synthetic(void **state)
{
	struct smcd_linkgroup d[4] = {};
	struct smcr_linkgroup r[8] = {};
	struct smcr_link links[3] = {};

	d[0] = (struct smcd_linkgroup){ .id = 0x100, .conns = 39, .chid = 0xffff };
	snprintf(d[0].device, sizeof(d[0].device), "lo");
	d[1] = (struct smcd_linkgroup){
		.id = 0xdeadbe00, .vlan_id = 255, .conns = 4000000000u, .chid = 0x1234
	};
	snprintf(d[1].pnetid, sizeof(d[1].pnetid), "NET1");
	snprintf(d[1].device, sizeof(d[1].device), "ism0123456789abcdef");
	d[2] = (struct smcd_linkgroup){ .id = 0 };
	for (size_t i = 0; i < ELEMENTSOF(r); i++) {
		r[i] = (struct smcr_linkgroup){ .id = 0x1000 * (uint32_t)(i + 1),
						.conns = (uint32_t)i,
						.role = (uint8_t)(i % 3),
						.type = (uint8_t)(i % 6),
						.vlan_id = (uint8_t)(i * 30) };
		if (i % 2)
			snprintf(r[i].pnetid, sizeof(r[i].pnetid), "PNET%zu", i);
	}
	r[1].links = links;
	r[1].n_links = ELEMENTSOF(links);
	links[0].id = 1;
	r[2].links = links;
	r[2].n_links = 1;
	lgr_same("synthetic", d, 3, r, ELEMENTSOF(r), "linkgroup-edges");
	lgr_same("synthetic SMC-D only", d, 3, NULL, 0, NULL);
	lgr_same("synthetic SMC-R only", NULL, 0, r, ELEMENTSOF(r), NULL);
	lgr_same("no groups", NULL, 0, NULL, 0, "linkgroup-edges-none");
}

static void lgr_step(const char *dir)
{
	char sysroot[2048];
	struct smcnl_options opts = { .replay_dir = dir, .sysroot = sysroot };
	struct smcd_linkgroup *d = NULL;
	struct smcr_linkgroup *r = NULL;
	size_t n_d = 0, n_r = 0;
	struct smcnl *nl = NULL;

	assert_true(strlen(dir) < 1800);
	snprintf(sysroot, sizeof(sysroot), "%s/sysroot", dir);
	assert_int_equal(smcnl_open(&opts, &nl), 0);
	/* A step whose recording has the dump fail (no SMC) has nothing to render. */
	if (smcd_linkgroup_list(nl, &d, &n_d) == 0 && smcr_linkgroup_list(nl, true, &r, &n_r) == 0)
		lgr_same(dir, d, n_d, r, n_r, NULL);
	free(d);
	smcr_linkgroup_list_free(r, n_r);
	smcnl_close(nl);
}

static void test_lgr_recorded(void **state)
{
	/* The lanes recorded dozens of steps with link groups: finding few is a broken path. */
	assert_true(golden_each_fixture_step("smc-genl-get-lgr-smcd.bin", lgr_step) >= 10);
}

/* ---- stats ---------------------------------------------------------------------------- */

static char *stats_doc(const struct smc_stats *s, const struct smc_fback_stats *f, unsigned view,
		       unsigned detail)
{
	json_object *doc = stats_tree_from_kernel(s, f);
	struct smcctl c = { .view = view, .detail = detail };
	struct capture cap;

	/* As stats_show() builds it. */
	assert_non_null(doc);
	assert_int_equal(json_add_str(doc, "source", "kernel"), 0);
	if (view & STATS_VIEW_SMCD)
		json_object_object_del(doc, "smcr");
	if (view & STATS_VIEW_SMCR)
		json_object_object_del(doc, "smcd");
	capture_begin(&cap);
	c.out = cap.f;
	assert_int_equal(stats_tree_text(&c, doc), 0);
	capture_end(&cap);
	json_object_put(doc);
	return cap.buf;
}

static char *stats_rows(const struct smc_stats *s, const struct smc_fback_stats *f, unsigned view,
			unsigned detail)
{
	struct smcctl c = { .view = view, .detail = detail };
	struct capture cap;

	capture_begin(&cap);
	c.out = cap.f;
	assert_int_equal(
		stats_rows_text(&c, s, f, view & STATS_VIEW_SMCD, view & STATS_VIEW_SMCR, NULL, 0),
		0);
	capture_end(&cap);
	return cap.buf;
}

/*
 * smcctl -j stats streamed (stats_rows_emit(), as stats_show() emits it) against json-c's
 * print of the counter tree (stats_tree_from_kernel(), the agent's shape) with the same
 * "source" and "advice", less the other technology for --smcd and --smcr.
 */
static void stats_json_same(const char *what, const struct smc_stats *s,
			    const struct smc_fback_stats *f, unsigned view, bool pretty)
{
	struct stats_tree_reason reasons[ELEMENTSOF(f->entries)];
	struct stats_num *rows;
	struct out_sink o;
	struct capture a, b;
	json_object *doc = stats_tree_from_kernel(s, f);
	size_t n_rows, n;

	assert_non_null(doc);
	assert_int_equal(json_add_str(doc, "source", "kernel"), 0);
	assert_int_equal(json_add(doc, "advice", json_object_new_array()), 0);
	if (view & STATS_VIEW_SMCD)
		json_object_object_del(doc, "smcr");
	if (view & STATS_VIEW_SMCR)
		json_object_object_del(doc, "smcd");
	capture_begin(&a);
	assert_int_equal(out_json(a.f, doc, pretty), 0);
	capture_end(&a);
	json_object_put(doc);

	stats_table(&n_rows);
	assert_non_null(rows = calloc(n_rows, sizeof(*rows)));
	n = stats_rows_from_kernel(s, f, rows, reasons);
	capture_begin(&b);
	out_sink_json(&o, b.f, pretty);
	out_object_begin(&o, NULL);
	stats_rows_emit(&o, rows, reasons, n, view & STATS_VIEW_SMCR, view & STATS_VIEW_SMCD);
	out_str(&o, "source", OUT_NO_COL, "kernel");
	advice_emit(&o, "advice", NULL, 0);
	out_object_end(&o);
	assert_int_equal(out_sink_done(&o), 0);
	capture_end(&b);
	free(rows);
	assert_non_null(strstr(a.buf, "\"summary\""));
	if (strcmp(a.buf, b.buf) != 0)
		fail_msg("%s (view %u, pretty %d): the JSON differs\n--- json-c:\n%s\n"
			 "--- streamed:\n%s",
			 what, view, pretty, a.buf, b.buf);
	free(a.buf);
	free(b.buf);
}

static void stats_same(const char *what, const struct smc_stats *s, const struct smc_fback_stats *f)
{
	static const unsigned views[] = { 0,
					  STATS_VIEW_ALL,
					  STATS_VIEW_SMCD,
					  STATS_VIEW_SMCR,
					  STATS_VIEW_ALL | STATS_VIEW_SMCD,
					  STATS_VIEW_ALL | STATS_VIEW_SMCR };

	for (size_t v = 0; v < ELEMENTSOF(views); v++) {
		stats_json_same(what, s, f, views[v], false);
		stats_json_same(what, s, f, views[v], true);
	}
	for (size_t v = 0; v < ELEMENTSOF(views); v++)
		for (unsigned d = 0; d <= 1; d++) {
			char *a = stats_doc(s, f, views[v], d), *b = stats_rows(s, f, views[v], d);

			assert_non_null(strstr(a, "Total connections handled"));
			if (strcmp(a, b) != 0)
				fail_msg("%s (view %u, detail %u): the text differs\n--- from the "
					 "tree:\n%s\n--- from the rows:\n%s",
					 what, views[v], d, a, b);
			free(a);
			free(b);
		}
}

static void fill(uint64_t *p, size_t n, uint64_t base)
{
	for (size_t i = 0; i < n; i++)
		p[i] = base + i * 7919;
}

static void test_stats_synthetic(void **state)
{
	struct smc_stats s = {};
	struct smc_fback_stats *f = calloc(1, sizeof(*f));
	/* every uint64_t of the two techs: the struct minus the flag and its padding */
	const size_t n_tech = offsetof(struct smc_stats_tech, has_rmb_usage) / sizeof(uint64_t);

	assert_non_null(f);
	stats_same("all zero", &s, f);
	fill((uint64_t *)&s.smcd, n_tech, 1);
	fill((uint64_t *)&s.smcr, n_tech, 5000000000ULL);
	s.smcd.has_rmb_usage = true;
	s.smcd.rx_rmb_usage = 123456;
	s.smcd.tx_rmb_usage = 0;
	s.clnt_hs_err = 3;
	s.srv_hs_err = 4000000000ULL;
	f->clnt_total = 70000;
	f->srv_total = 12;
	f->entries[f->n++] = (struct smc_fback_entry){ false, 0x03030008, 65535 };
	f->entries[f->n++] = (struct smc_fback_entry){ true, 0x03030008, 7 };
	f->entries[f->n++] = (struct smc_fback_entry){ true, 0x12345678, 5 };
	f->entries[f->n++] = (struct smc_fback_entry){ false, 0x05000000, 65535 };
	stats_same("synthetic", &s, f);
	/* SMC-R idle, SMC-D without gauges, fallbacks without reasons */
	memset(&s.smcr, 0, sizeof(s.smcr));
	s.smcd.has_rmb_usage = false;
	f->n = 0;
	stats_same("synthetic, SMC-R idle", &s, f);
	free(f);
}

static void stats_step(const char *dir)
{
	char sysroot[2048];
	struct smcnl_options opts = { .replay_dir = dir, .sysroot = sysroot };
	struct smc_fback_stats *f = calloc(1, sizeof(*f));
	struct smc_stats s = {};
	struct smcnl *nl = NULL;

	assert_non_null(f);
	assert_true(strlen(dir) < 1800);
	snprintf(sysroot, sizeof(sysroot), "%s/sysroot", dir);
	assert_int_equal(smcnl_open(&opts, &nl), 0);
	if (smc_stats_get(nl, &s) == 0 && smc_fback_stats_get(nl, f) == 0)
		stats_same(dir, &s, f);
	free(f);
	smcnl_close(nl);
}

static void test_stats_recorded(void **state)
{
	assert_true(golden_each_fixture_step("smc-genl-get-stats.bin", stats_step) >= 10);
}

/* ---- device --------------------------------------------------------------------------- */

/*
 * smcctl device's answer has one path (device_list_emit()): its streamed JSON must be what
 * json-c prints for the document the same emits build (device show's blocks are drawn from
 * that document), compact and pretty, with --smcd, --smcr and both; the tables' text of
 * the synthetic devices, at both detail levels, is held by goldens
 * (synthetic/NAME-{both,smcd,smcr}[-d].txt), that of every recording by test-cli-golden.
 */
static void dev_same(const char *what, const struct smcd_device *d, size_t n_d,
		     const struct smcr_device *r, size_t n_r, const char *golden)
{
	static const bool wants[][2] = { { true, true }, { true, false }, { false, true } };
	static const char *const suffix[] = { "both", "smcd", "smcr" };

	for (size_t w = 0; w < ELEMENTSOF(wants); w++) {
		for (int pretty = 0; pretty < 2; pretty++) {
			struct out_sink o;
			struct capture a, b;
			json_object *doc;

			out_sink_doc(&o);
			assert_int_equal(device_list_emit(&o, d, n_d, r, n_r, wants[w][0],
							  wants[w][1], NULL, NULL, 0),
					 0);
			assert_non_null(doc = out_sink_take_doc(&o));
			capture_begin(&a);
			assert_int_equal(out_json(a.f, doc, pretty), 0);
			capture_end(&a);
			json_object_put(doc);
			capture_begin(&b);
			out_sink_json(&o, b.f, pretty);
			assert_int_equal(device_list_emit(&o, d, n_d, r, n_r, wants[w][0],
							  wants[w][1], NULL, NULL, 0),
					 0);
			capture_end(&b);
			if (strcmp(a.buf, b.buf) != 0)
				fail_msg("%s (smcd %d, smcr %d): the JSON differs\n--- json-c:\n%s\n"
					 "--- streamed:\n%s",
					 what, wants[w][0], wants[w][1], a.buf, b.buf);
			free(a.buf);
			free(b.buf);
		}
		for (unsigned detail = 0; golden && detail <= 1; detail++) {
			struct out_sink o;
			struct capture t;
			char file[256];

			capture_begin(&t);
			out_sink_text(&o, t.f, detail);
			assert_int_equal(device_list_emit(&o, d, n_d, r, n_r, wants[w][0],
							  wants[w][1], NULL, NULL, 0),
					 0);
			capture_end(&t);
			assert_non_null(strstr(t.buf, "devices"));
			snprintf(file, sizeof(file), "synthetic/%s-%s%s.txt", golden, suffix[w],
				 detail ? "-d" : "");
			golden_check(file, t.buf);
			free(t.buf);
		}
	}
}

static void test_dev_synthetic(void **state)
{
	struct smcd_device d[4] = {};
	struct smcr_device r[4] = {};

	/* DIBS loopback seen in sysfs only; an ISM device with PCI data and a user PNET ID;
	 * one seen over netlink without a PCI id; a nameless one. */
	d[0] = (struct smcd_device){ .seen = SMCD_SEEN_DIBS,
				     .loopback = true,
				     .has_fabric_id = true,
				     .fabric_id = 0xffff,
				     .linkgroups = 3,
				     .conns = 4000000000u };
	snprintf(d[0].name, sizeof(d[0].name), "lo");
	snprintf(d[0].gid, sizeof(d[0].gid), "ada890f1-b5ce-48ad-8644-7829c0b30bad");
	d[1] = (struct smcd_device){ .seen = SMCD_SEEN_NETLINK | SMCD_SEEN_DIBS,
				     .has_fabric_id = true,
				     .fabric_id = 0x0123,
				     .is_crit = true,
				     .pci_fid = 0xdeadbeef,
				     .pci_chid = 0x42,
				     .pci_vendor = 0x1014,
				     .pci_device = 0x04ed };
	snprintf(d[1].name, sizeof(d[1].name), "ism0123456789abcdef");
	snprintf(d[1].pci_id, sizeof(d[1].pci_id), "0000:00:00.0");
	snprintf(d[1].port.pnetid, sizeof(d[1].port.pnetid), "NET1");
	d[1].port.user_defined = true;
	d[2] = (struct smcd_device){ .seen = SMCD_SEEN_NETLINK, .pci_fid = 7 };
	snprintf(d[2].name, sizeof(d[2].name), "ism1");
	snprintf(d[2].port.pnetid, sizeof(d[2].port.pnetid), "NET2");
	/* d[3]: all zero */

	/* RoCE with two ports (one down, one with links and a user PNET ID), one without PCI
	 * and one valid port, one whose ports are both invalid. */
	snprintf(r[0].ib_name, sizeof(r[0].ib_name), "mlx5_0");
	r[0].is_crit = true;
	r[0].has_pci = true;
	r[0].pci_fid = 0x1234;
	r[0].pci_chid = 0xabc;
	snprintf(r[0].pci_id, sizeof(r[0].pci_id), "0001:00:00.0");
	r[0].ports[0] = (struct smcr_port){ .valid = true, .active = true, .link_cnt = 17 };
	snprintf(r[0].ports[0].netdev, sizeof(r[0].ports[0].netdev), "eth0");
	snprintf(r[0].ports[0].pnet.pnetid, sizeof(r[0].ports[0].pnet.pnetid), "PNETA");
	r[0].ports[0].pnet.user_defined = true;
	r[0].ports[1] = (struct smcr_port){ .valid = true };
	snprintf(r[1].ib_name, sizeof(r[1].ib_name), "rxe0");
	r[1].has_pci = true; /* a PCI function without an id */
	r[1].ports[1] = (struct smcr_port){ .valid = true, .active = true };
	snprintf(r[1].ports[1].pnet.pnetid, sizeof(r[1].ports[1].pnet.pnetid), "NET2");
	snprintf(r[2].ib_name, sizeof(r[2].ib_name), "siw0");

	dev_same("synthetic", d, ELEMENTSOF(d), r, 3, "device-edges");
	dev_same("synthetic, no usable port", d, 2, &r[2], 1, "device-edges-no-port");
	dev_same("synthetic SMC-R only", NULL, 0, r, 2, "device-edges-smcr-only");
	dev_same("no devices", NULL, 0, NULL, 0, "device-edges-none");
}

/* Recorded steps where two SMC-D devices with link groups share a fabric id. */
static size_t dev_shared_fabric;

/*
 * The default table's list (SMCD_LIST_GIDS not asked: GIDs read only where the CHID does
 * not tell a device's link groups) counts what the whole list counts.
 */
static void dev_counts_same(const char *dir, const struct smcnl_options *opts,
			    const struct smcd_device *d, size_t n_d)
{
	struct smcd_device *e = NULL;
	struct smcnl *nl = NULL;
	size_t n_e = 0;
	bool shared = false;

	assert_int_equal(smcnl_open(opts, &nl), 0);
	assert_int_equal(smcd_device_list_flags(nl, SMCD_LIST_LINKGROUPS, &e, &n_e), 0);
	assert_int_equal(n_e, n_d);
	for (size_t i = 0; i < n_d; i++) {
		assert_string_equal(e[i].name, d[i].name);
		assert_int_equal(e[i].loopback, d[i].loopback);
		if (e[i].linkgroups != d[i].linkgroups || e[i].conns != d[i].conns)
			fail_msg("%s: %s counts %u/%u link groups/connections, with GIDs %u/%u", dir,
				 e[i].name, e[i].linkgroups, e[i].conns, d[i].linkgroups, d[i].conns);
		for (size_t j = 0; j < n_d; j++)
			shared |= j != i && d[i].linkgroups && d[i].has_fabric_id &&
				  d[j].has_fabric_id && d[j].fabric_id == d[i].fabric_id;
	}
	dev_shared_fabric += shared;
	free(e);
	smcnl_close(nl);
}

static void dev_step(const char *dir)
{
	char sysroot[2048];
	struct smcnl_options opts = { .replay_dir = dir, .sysroot = sysroot };
	struct smcd_device *d = NULL;
	struct smcr_device *r = NULL;
	size_t n_d = 0, n_r = 0;
	struct smcnl *nl = NULL;

	assert_true(strlen(dir) < 1800);
	snprintf(sysroot, sizeof(sysroot), "%s/sysroot", dir);
	assert_int_equal(smcnl_open(&opts, &nl), 0);
	if (smcd_device_list(nl, &d, &n_d) == 0 && smcr_device_list(nl, &r, &n_r) == 0) {
		dev_same(dir, d, n_d, r, n_r, NULL);
		dev_counts_same(dir, &opts, d, n_d);
	}
	free(d);
	free(r);
	smcnl_close(nl);
}

static void test_dev_recorded(void **state)
{
	assert_true(golden_each_fixture_step("smc-genl-get-dev-smcd.bin", dev_step) >= 10);
	/* 7x-smclo: DIBS lo and smc_lo's device, both fabric 0xffff, with link groups. */
	assert_true(dev_shared_fabric >= 1);
}

/*
 * info has one path (info_emit()): for every recorded step, its streamed JSON, compact and
 * pretty, against json-c's print of the document the same emits build, and its text at both
 * detail levels ending in the verdicts (the goldens of test-cli-golden hold the text).
 */
static size_t info_compared;

static void info_step(const char *dir)
{
	char sysroot[2048];
	struct smcctl c = { .nl_opts = { .replay_dir = dir, .sysroot = sysroot } };
	struct info_facts i = {};

	assert_true(strlen(dir) < 1800);
	snprintf(sysroot, sizeof(sysroot), "%s/sysroot", dir);
	assert_int_equal(smcnl_open(&c.nl_opts, &c.nl), 0);
	if (info_gather(&c, &i) == 0) {
		struct out_sink o;
		json_object *doc;

		info_compared++;
		out_sink_doc(&o);
		assert_int_equal(info_emit(&o, &i), 0);
		assert_non_null(doc = out_sink_take_doc(&o));
		for (int pretty = 0; pretty < 2; pretty++) {
			struct capture a, b;

			capture_begin(&a);
			assert_int_equal(out_json(a.f, doc, pretty), 0);
			capture_end(&a);
			capture_begin(&b);
			out_sink_json(&o, b.f, pretty);
			assert_int_equal(info_emit(&o, &i), 0);
			capture_end(&b);
			if (strcmp(a.buf, b.buf) != 0)
				fail_msg("%s: the JSON differs\n--- json-c:\n%s\n--- streamed:\n%s",
					 dir, a.buf, b.buf);
			free(a.buf);
			free(b.buf);
		}
		json_object_put(doc);
		for (unsigned d = 0; d <= 1; d++) {
			struct capture t;

			capture_begin(&t);
			out_sink_text(&o, t.f, d);
			assert_int_equal(info_emit(&o, &i), 0);
			capture_end(&t);
			assert_non_null(strstr(t.buf, "SMC-D loopback: "));
			free(t.buf);
		}
	}
	info_facts_done(&i);
	smcnl_close(c.nl);
}

static void test_info_recorded(void **state)
{
	size_t n = golden_each_fixture_step("smc-genl-get-sys-info.bin", info_step);

	print_message("info: %zu of %zu recorded steps compared\n", info_compared, n);
	assert_true(info_compared >= 10);
}

/* A genl reply of one message (cmd, a nest of type nest with attrs) and NLMSG_DONE. */
struct attr {
	uint16_t type;
	const void *data;
	size_t len;
};

static size_t genl_reply(uint8_t *buf, uint8_t cmd, uint16_t nest, const struct attr *a, size_t n)
{
	static const struct nlmsghdr done = { .nlmsg_len = NLMSG_LENGTH(sizeof(int)),
					      .nlmsg_type = NLMSG_DONE };
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct genlmsghdr *g = NLMSG_DATA(h);
	size_t off = NLMSG_HDRLEN + GENL_HDRLEN, start = off;

	memset(buf, 0, 512);
	g->cmd = cmd;
	g->version = 1;
	if (nest)
		off += NLA_HDRLEN;
	for (size_t i = 0; i < n; i++) {
		struct nlattr *x = (struct nlattr *)(buf + off);

		x->nla_type = a[i].type;
		x->nla_len = (uint16_t)(NLA_HDRLEN + a[i].len);
		memcpy(buf + off + NLA_HDRLEN, a[i].data, a[i].len);
		off += NLA_ALIGN(x->nla_len);
	}
	if (nest)
		*(struct nlattr *)(buf + start) =
			(struct nlattr){ .nla_len = (uint16_t)(off - start), .nla_type = nest };
	*h = (struct nlmsghdr){ .nlmsg_len = (uint32_t)off,
				.nlmsg_type = GENL_MIN_ID,
				.nlmsg_flags = NLM_F_MULTI };
	memcpy(buf + off, &done, sizeof(done));
	return off + done.nlmsg_len;
}

/*
 * The SEID of info: the SEID dump is asked when the system information names a SEID
 * (s390; whether it is enabled comes from the dump), not when it names none, where the
 * dump could only say the same (here it would say otherwise, to tell).
 */
static void info_seid(const char *sys_seid, bool want_dump)
{
	static const char seid[] = "IBM-SYSZ-ISMSEID0000000012AB";
	static uint8_t sys[512], dump[512];
	const uint8_t two = 2, one = 1;
	const struct attr sa[] = { { SMC_NLA_SYS_VER, &two, 1 },
				   { SMC_NLA_SYS_REL, &one, 1 },
				   { SMC_NLA_SYS_IS_ISM_V2, &one, 1 },
				   { SMC_NLA_SYS_SEID, sys_seid, strlen(sys_seid) + 1 } };
	const struct attr da[] = { { SMC_NLA_SEID_ENTRY, seid, sizeof(seid) },
				   { SMC_NLA_SEID_ENABLED, &one, 1 } };
	char dir[2048], sysroot[2100];
	struct smcctl c = { .nl_opts = { .replay_dir = dir, .sysroot = sysroot } };
	struct info_facts i = {};
	size_t n;

	snprintf(dir, sizeof(dir), "%s/tests/fixtures/7x/many", golden_top_srcdir());
	snprintf(sysroot, sizeof(sysroot), "%s/sysroot", dir);
	assert_int_equal(smcnl_open(&c.nl_opts, &c.nl), 0);
	n = genl_reply(sys, SMC_NETLINK_GET_SYS_INFO, SMC_GEN_SYS_INFO, sa, ELEMENTSOF(sa));
	assert_int_equal(smcnl_replay_mem(c.nl, "smc-genl-get-sys-info", sys, n), 0);
	n = genl_reply(dump, SMC_NETLINK_DUMP_SEID, 0, da, ELEMENTSOF(da));
	assert_int_equal(smcnl_replay_mem(c.nl, "smc-genl-dump-seid", dump, n), 0);
	assert_int_equal(info_gather(&c, &i), 0);
	assert_true(i.has_sysinfo);
	assert_int_equal(i.has_seid, want_dump);
	if (want_dump) {
		assert_string_equal(i.seid.seid, seid);
		assert_true(i.seid.enabled);
	}
	info_facts_done(&i);
	smcnl_close(c.nl);
}

static void test_info_seid(void **state)
{
	info_seid("IBM-SYSZ-ISMSEID0000000012AB", true);
	info_seid("", false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lgr_synthetic),	cmocka_unit_test(test_lgr_recorded),
		cmocka_unit_test(test_stats_synthetic), cmocka_unit_test(test_stats_recorded),
		cmocka_unit_test(test_dev_synthetic),	cmocka_unit_test(test_dev_recorded),
		cmocka_unit_test(test_info_recorded),	cmocka_unit_test(test_info_seid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
