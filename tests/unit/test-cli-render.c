// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Golden text and JSON of every smcctl object rendered from synthetic model structs: the
 * cases the test VMs cannot produce (SMC-R hardware, s390 SEID, ISM, old kernels without
 * the 6.8/6.12 attributes, unknown reason codes, wrapped counters).  The replay tests
 * (test-cli-golden) cover the same renderers with real kernel replies.
 *
 * Every document is rendered three ways: text, text -d (and -dd where it matters), and
 * pretty JSON, which must parse as exactly one document.  info is drawn from its facts
 * through the sinks (info_emit()): text, the document and the streamed -j (check_info()).
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "cli/verbs.h"
#include "common/output.h"
#include "common/stats-table.h"
#include "tests/unit/golden.h"

/* stats' text as a smcctl_text_fn (its renderer can fail for memory). */
static void stats_text(struct smcctl *c, json_object *doc)
{
	assert_int_equal(stats_tree_text(c, doc), 0);
}

/* Render doc as text at each detail level up to max_detail and as JSON; check goldens. */
static void check(const char *name, json_object *doc, smcctl_text_fn text, unsigned max_detail,
		  unsigned view)
{
	char file[256];
	struct capture cap;

	assert_non_null(doc);
	for (unsigned d = 0; d <= max_detail; d++) {
		struct smcctl c = { .detail = d, .view = view };

		capture_begin(&cap);
		c.out = cap.f;
		text(&c, doc);
		capture_end(&cap);
		snprintf(file, sizeof(file), "synthetic/%s%s%s.txt", name, d ? "-" : "",
			 d == 1	  ? "d"
			 : d == 2 ? "dd"
				  : "");
		golden_check(file, cap.buf);
		free(cap.buf);
	}
	capture_begin(&cap);
	out_json(cap.f, doc, true);
	capture_end(&cap);
	assert_one_json_document(cap.buf);
	snprintf(file, sizeof(file), "synthetic/%s.json", name);
	golden_check(file, cap.buf);
	free(cap.buf);

	/* compact JSON is one line and one document too */
	capture_begin(&cap);
	out_json(cap.f, doc, false);
	capture_end(&cap);
	assert_one_json_document(cap.buf);
	assert_null(strchr(cap.buf, '\n') == cap.buf + strlen(cap.buf) - 1 ? NULL : "newline");
	free(cap.buf);
	json_object_put(doc);
}

static void test_ueid(void **state)
{
	char u[SMC_UEID_MAX][SMC_EID_LEN + 1] = { "MID-0123456789ABCDEF0123456789A", "SMC-TEST" };

	check("ueid-list", ueid_list_json(u, 2), ueid_list_text, 1, 0);
	check("ueid-list-empty", ueid_list_json(u, 0), ueid_list_text, 0, 0);
}

static void test_seid(void **state)
{
	struct smc_seid x86 = { .present = true }, none = {};
	struct smc_seid s390 = { .present = true,
				 .seid = "IBM-SYSZ-ISMSEID00000000A1B28561",
				 .enabled = true };

	check("seid-x86", seid_json(&x86, false), seid_text, 0, 0);
	check("seid-s390-nodev", seid_json(&none, true), seid_text, 0, 0);
	check("seid-s390", seid_json(&s390, true), seid_text, 0, 0);
}

/* Two DIBS loopback devices (one with a user PNET ID), an ISM device, a RoCE device. */
static const struct smcd_device test_smcd[] = {
	{
		.name = "lo",
		.seen = SMCD_SEEN_DIBS,
		.loopback = true,
		.has_fabric_id = true,
		.fabric_id = 0xffff,
		.gid = "5b2c0e7d-0c44-4e3b-9a41-0f7c2d3e4f50",
		.linkgroups = 2,
		.conns = 4,
	},
	{
		.name = "smcd-lo2",
		.seen = SMCD_SEEN_DIBS,
		.loopback = true,
		.has_fabric_id = true,
		.fabric_id = 0xffff,
		.gid = "0a1b2c3d-4e5f-4061-8273-94a5b6c7d8e9",
		.port = { .user_defined = true, .pnetid = "NOLO" },
	},
	{
		.name = "ism0001",
		.seen = SMCD_SEEN_NETLINK | SMCD_SEEN_DIBS,
		.has_fabric_id = true,
		.fabric_id = 0x0123,
		.gid = "00000000-0000-1234-0000-000000000000",
		.use_cnt = 1,
		.is_crit = true,
		.pci_fid = 0x1001,
		.pci_chid = 0x5a0,
		.pci_vendor = 0x1014,
		.pci_device = 0x04ed,
		.pci_id = "0001:00:00.0",
		.port = { .pnetid = "NET1" },
		.linkgroups = 1,
		.conns = 7,
	},
};
static const struct smcr_device test_smcr[] = {
	{
		.ib_name = "mlx5_0", .is_crit = true, .has_pci = true, .pci_fid = 0x2002,
		.pci_chid = 0x1c0, .pci_vendor = 0x15b3, .pci_device = 0x1016,
		.pci_id = "0000:3b:00.0",
		.ports = {
			{ .valid = true, .active = true, .pnet = { true, "NET1" },
			  .netdev_ifindex = 4, .netdev = "eth1", .link_cnt = 2 },
			{ .valid = true, .netdev_ifindex = 5, .netdev = "eth2" },
		},
	},
};

/* The devices as smcd_device_json() and smcr_device_json() have them (without "smc_lo"). */
static json_object *devices_doc(void)
{
	json_object *doc = json_object_new_object(), *d = json_object_new_array(),
		    *r = json_object_new_array();

	json_add(doc, "smcd", d);
	json_add(doc, "smcr", r);
	for (size_t i = 0; i < ELEMENTSOF(test_smcd); i++)
		json_append(d, smcd_device_json(&test_smcd[i]));
	for (size_t i = 0; i < ELEMENTSOF(test_smcr); i++)
		json_append(r, smcr_device_json(&test_smcr[i]));
	return doc;
}

/* The JSON of doc pretty into a golden, and compact on one line. */
static void check_json_doc(const char *name, json_object *doc)
{
	struct capture cap;
	char file[256];

	assert_non_null(doc);
	capture_begin(&cap);
	out_json(cap.f, doc, true);
	capture_end(&cap);
	assert_one_json_document(cap.buf);
	snprintf(file, sizeof(file), "synthetic/%s.json", name);
	golden_check(file, cap.buf);
	free(cap.buf);
	capture_begin(&cap);
	out_json(cap.f, doc, false);
	capture_end(&cap);
	assert_one_json_document(cap.buf);
	assert_ptr_equal(strchr(cap.buf, '\n'), cap.buf + strlen(cap.buf) - 1);
	free(cap.buf);
	json_object_put(doc);
}

/*
 * smcctl device's answer for these devices (smc_lo not loaded): device list's table from
 * the text sink at each detail level up to max_detail, device show's blocks from the
 * document sink's document (show), the JSON sink's JSON into a golden (json) and equal to
 * json-c's print of that document, compact and pretty.
 */
static void check_devices(const char *name, const struct smcd_device *d, size_t n_d,
			  const struct smcr_device *r, size_t n_r, bool want_d, bool want_r,
			  unsigned max_detail, const char *show, const char *json)
{
	struct out_sink o;
	struct capture cap, doc_cap;
	json_object *doc;
	char file[256];

	for (unsigned det = 0; det <= max_detail; det++) {
		capture_begin(&cap);
		out_sink_text(&o, cap.f, det);
		assert_int_equal(device_list_emit(&o, d, n_d, r, n_r, want_d, want_r, NULL, NULL, 0),
				 0);
		capture_end(&cap);
		assert_non_null(strstr(cap.buf, "devices"));
		snprintf(file, sizeof(file), "synthetic/%s%s.txt", name, det ? "-d" : "");
		golden_check(file, cap.buf);
		free(cap.buf);
	}
	for (int pretty = 1; pretty >= 0; pretty--) {
		out_sink_doc(&o);
		assert_int_equal(device_list_emit(&o, d, n_d, r, n_r, want_d, want_r, NULL, NULL, 0),
				 0);
		assert_non_null(doc = out_sink_take_doc(&o));
		if (show && pretty) {
			struct smcctl c = {};

			capture_begin(&cap);
			c.out = cap.f;
			device_show_text(&c, doc);
			capture_end(&cap);
			snprintf(file, sizeof(file), "synthetic/%s.txt", show);
			golden_check(file, cap.buf);
			free(cap.buf);
		}
		capture_begin(&doc_cap);
		assert_int_equal(out_json(doc_cap.f, doc, pretty), 0);
		capture_end(&doc_cap);
		json_object_put(doc);
		capture_begin(&cap);
		out_sink_json(&o, cap.f, pretty);
		assert_int_equal(device_list_emit(&o, d, n_d, r, n_r, want_d, want_r, NULL, NULL, 0),
				 0);
		capture_end(&cap);
		assert_one_json_document(cap.buf);
		assert_string_equal(cap.buf, doc_cap.buf);
		if (json && pretty) {
			snprintf(file, sizeof(file), "synthetic/%s.json", json);
			golden_check(file, cap.buf);
		}
		free(cap.buf);
		free(doc_cap.buf);
	}
}

static void test_device(void **state)
{
	json_object *only_d = json_object_new_object();

	check_devices("device-list", test_smcd, ELEMENTSOF(test_smcd), test_smcr,
		      ELEMENTSOF(test_smcr), true, true, 1, "device-show", "device-list-views");
	check_json_doc("device-list", devices_doc());
	check_json_doc("device-show", devices_doc());
	check_devices("device-list-smcd-none", NULL, 0, NULL, 0, true, false, 0, NULL,
		      "device-list-smcd-none");
	json_add(only_d, "smcd", json_object_new_array());
	check_json_doc("device-list-smcd-none", only_d);
}

/*
 * check() of smcctl linkgroup's answer for these groups: the tables from the text sink (no
 * -d), the blocks of -d and -dd (and of show) from the document sink's, the JSON from the
 * JSON sink.
 */
static void check_linkgroups(const char *name, const struct smcd_linkgroup *d, size_t n_d,
			     const struct smcr_linkgroup *r, size_t n_r, unsigned max_detail,
			     bool show)
{
	struct out_sink o;
	struct capture cap;
	char file[256];

	for (unsigned det = 0; det <= max_detail; det++) {
		struct smcctl c = { .detail = det };
		json_object *doc;

		capture_begin(&cap);
		c.out = cap.f;
		if (det == 0 && !show) {
			out_sink_text(&o, cap.f, 0);
			assert_int_equal(
				linkgroup_list_emit(&o, d, n_d, r, n_r, true, true, NULL, NULL), 0);
		} else {
			out_sink_doc(&o);
			assert_int_equal(
				linkgroup_list_emit(&o, d, n_d, r, n_r, true, true, NULL, NULL), 0);
			assert_non_null(doc = out_sink_take_doc(&o));
			linkgroup_blocks_text(&c, doc);
			json_object_put(doc);
		}
		capture_end(&cap);
		snprintf(file, sizeof(file), "synthetic/%s%s%s.txt", name, det ? "-" : "",
			 det == 1   ? "d"
			 : det == 2 ? "dd"
				    : "");
		golden_check(file, cap.buf);
		free(cap.buf);
	}
	for (int pretty = 1; pretty >= 0; pretty--) {
		capture_begin(&cap);
		out_sink_json(&o, cap.f, pretty);
		assert_int_equal(linkgroup_list_emit(&o, d, n_d, r, n_r, true, true, NULL, NULL), 0);
		capture_end(&cap);
		assert_one_json_document(cap.buf);
		if (pretty) {
			snprintf(file, sizeof(file), "synthetic/%s.json", name);
			golden_check(file, cap.buf);
		} else {
			assert_ptr_equal(strchr(cap.buf, '\n'), cap.buf + strlen(cap.buf) - 1);
		}
		free(cap.buf);
	}
}

static void test_linkgroup(void **state)
{
	struct smcd_linkgroup lo = {
		.id = 0x100,
		.gid = 0x5b2c0e7d0c444e3bULL,
		.ext_gid = 0x9a410f7c2d3e4f50ULL,
		.peer_gid = 0x5b2c0e7d0c444e3bULL,
		.peer_ext_gid = 0x9a410f7c2d3e4f50ULL,
		.has_ext_gid = true,
		.conns = 3,
		.chid = 0xffff,
		.has_alloc = true,
		.sndbuf_alloc = 0,
		.dmb_alloc = 3 * 65568,
		.v2 = { .present = true,
			.ver = 2,
			.rel = 1,
			.os = 2,
			.neg_eid = "MID-0123456789ABCDEF0123456789A",
			.peer_host = "vm" },
		.device = "lo",
	};
	struct smcd_linkgroup old = {
		.id = 0x200,
		.gid = 0x1122334455667788ULL,
		.peer_gid = 0x8877665544332211ULL,
		.vlan_id = 7,
		.conns = 1,
		.chid = 0x0123,
		.pnetid = "NET1",
	};
	struct smcr_link links[] = {
		{ .id = 1,
		  .state = 3,
		  .conn_cnt = 5,
		  .ib_port = 1,
		  .netdev_ifindex = 4,
		  .netdev = "eth1",
		  .ib_dev = "mlx5_0",
		  .uid = 0x01020304,
		  .peer_uid = 0x0a0b0c0d,
		  .gid = "fe80:0000:0000:0000:0ace:deff:fe01:0203",
		  .peer_gid = "fe80:0000:0000:0000:0ace:deff:fe04:0506" },
		{ .id = 2,
		  .state = 1,
		  .ib_port = 2,
		  .netdev_ifindex = 5,
		  .netdev = "eth2",
		  .ib_dev = "mlx5_0",
		  .uid = 0x01020305,
		  .peer_uid = 0x0a0b0c0e },
	};
	struct smcr_linkgroup r = {
		.id = 0x300,
		.conns = 5,
		.role = 1,
		.type = 2,
		.has_buf_type = true,
		.buf_type = 1,
		.has_net_cookie = true,
		.net_cookie = 4096,
		.pnetid = "NET1",
		.has_alloc = true,
		.sndbuf_alloc = 327680,
		.rmb_alloc = 327680,
		.v2 = { .present = true,
			.ver = 2,
			.rel = 1,
			.os = 1,
			.neg_eid = "SHARED-EID",
			.peer_host = "zos1" },
		.has_v2r = true,
		.direct = true,
		.max_conns = 255,
		.max_links = 2,
		.n_links = 2,
		.links = links,
	};
	struct smcd_linkgroup d[2];
	uint32_t id = 0;

	d[0] = lo;
	d[1] = old;
	check_linkgroups("linkgroup-list", d, 2, &r, 1, 2, false);
	check_linkgroups("linkgroup-show", d, 2, &r, 1, 0, true);
	check_linkgroups("linkgroup-list-empty", d, 0, &r, 0, 0, false);

	assert_int_equal(linkgroup_parse_id("100", &id), 0);
	assert_int_equal(id, 0x100);
	assert_int_equal(linkgroup_parse_id("0xDEADbeef", &id), 0);
	assert_int_equal(id, 0xdeadbeef);
	assert_int_equal(linkgroup_parse_id("0x", &id), -EINVAL);
	assert_int_equal(linkgroup_parse_id("", &id), -EINVAL);
	assert_int_equal(linkgroup_parse_id("123456789", &id), -EINVAL);
	assert_int_equal(linkgroup_parse_id("12g", &id), -EINVAL);
	assert_int_equal(linkgroup_parse_id("-1", &id), -EINVAL);
}

/* Six sockets with what the test VMs cannot produce. */
static void sockets_fill(struct smc_socket v[6])
{
	/* SMC-D over loopback, AF_SMC, IPv4, with -d infos */
	v[0] = (struct smc_socket){ .diag_family = 43,
				    .state = 1,
				    .mode = 2,
				    .addr_family = AF_INET,
				    .sport = 5201,
				    .dport = 40000,
				    .uid = 0,
				    .inode = 1234,
				    .cookie = 99,
				    .has_conninfo = true,
				    .has_dmbinfo = true };
	inet_pton(AF_INET, "127.0.0.1", &v[0].src.s6_addr32[0]);
	inet_pton(AF_INET, "127.0.0.1", &v[0].dst.s6_addr32[0]);
	v[0].conn.token = 0x1234;
	v[0].conn.sndbuf_size = 65536;
	v[0].conn.rmbe_size = 65536;
	v[0].conn.peer_rmbe_size = 65536;
	v[0].conn.rx_prod = (struct smc_cursor){ 1, 200 };
	v[0].conn.tx_prod = (struct smc_cursor){ 0, 4096 };
	v[0].dmb = (typeof(v[0].dmb)){ .linkid = 0x100,
				       .peer_gid = 0x5b2c0e7d0c444e3bULL,
				       .my_gid = 0x5b2c0e7d0c444e3bULL,
				       .token = 0xabcdef,
				       .peer_token = 0xfedcba,
				       .has_ext = true,
				       .peer_gid_ext = 0x9a410f7c2d3e4f50ULL,
				       .my_gid_ext = 0x9a410f7c2d3e4f50ULL };
	/* fallback: the server declined, the peer diagnosis names its reason */
	v[1] = (struct smc_socket){ .diag_family = 43,
				    .state = 1,
				    .mode = 1,
				    .addr_family = AF_INET,
				    .sport = 40002,
				    .dport = 5201,
				    .uid = 1000,
				    .inode = 1235,
				    .has_fallback = true,
				    .fallback_reason = 0x05000000,
				    .peer_diagnosis = 0x03030001 };
	inet_pton(AF_INET, "10.0.0.1", &v[1].src.s6_addr32[0]);
	inet_pton(AF_INET, "10.0.0.2", &v[1].dst.s6_addr32[0]);
	/* IPPROTO_SMC: the kernel reports no addresses */
	v[2] = (struct smc_socket){ .diag_family = AF_INET,
				    .state = 1,
				    .mode = 1,
				    .addr_family = AF_UNSPEC,
				    .sport = 8080,
				    .dport = 51000,
				    .uid = 0,
				    .inode = 1236,
				    .has_fallback = true,
				    .fallback_reason = 0x03030008 };
	/* SMC-R over IPv6 with link info */
	v[3] = (struct smc_socket){ .diag_family = 43,
				    .state = 1,
				    .mode = 0,
				    .addr_family = AF_INET6,
				    .sport = 22,
				    .dport = 50000,
				    .inode = 1237,
				    .has_lgrinfo = true };
	inet_pton(AF_INET6, "fd00::1", &v[3].src);
	inet_pton(AF_INET6, "fd00::2", &v[3].dst);
	v[3].lgr = (typeof(v[3].lgr)){ .link_id = 1,
				       .ibname = "mlx5_0",
				       .ibport = 1,
				       .gid = "fe80:0000:0000:0000:0ace:deff:fe01:0203",
				       .peer_gid = "fe80:0000:0000:0000:0ace:deff:fe04:0506",
				       .role = 0 };
	/* a listener (no mode) and an unknown fallback code */
	v[4] = (struct smc_socket){ .diag_family = 43,
				    .state = 10,
				    .mode = 0,
				    .addr_family = AF_INET6,
				    .sport = 5201,
				    .inode = 1238 };
	v[5] = (struct smc_socket){ .diag_family = 43,
				    .state = 22,
				    .mode = 1,
				    .addr_family = AF_INET,
				    .sport = 1,
				    .dport = 2,
				    .inode = 1239,
				    .has_fallback = true,
				    .fallback_reason = 0x0999abcd };
}

/*
 * check() for an answer emitted into a sink (smcctl socket): the text sink at each detail
 * level, the JSON sink indented (one document) and compact (one line, one document).
 */
static void check_sockets(const char *name, const struct smc_socket *v, size_t n, unsigned max_detail)
{
	const struct smc_socket *rows[128];
	struct out_sink o;
	struct capture cap;
	char file[256];

	assert_true(n <= ELEMENTSOF(rows));
	for (size_t i = 0; i < n; i++)
		rows[i] = &v[i];
	for (unsigned d = 0; d <= max_detail; d++) {
		capture_begin(&cap);
		out_sink_text(&o, cap.f, d);
		assert_int_equal(socket_list_emit(&o, rows, n, NULL), 0);
		capture_end(&cap);
		snprintf(file, sizeof(file), "synthetic/%s%s%s.txt", name, d ? "-" : "",
			 d == 1	  ? "d"
			 : d == 2 ? "dd"
				  : "");
		golden_check(file, cap.buf);
		free(cap.buf);
	}
	for (int pretty = 1; pretty >= 0; pretty--) {
		capture_begin(&cap);
		out_sink_json(&o, cap.f, pretty);
		assert_int_equal(socket_list_emit(&o, rows, n, NULL), 0);
		capture_end(&cap);
		assert_one_json_document(cap.buf);
		if (pretty) {
			snprintf(file, sizeof(file), "synthetic/%s.json", name);
			golden_check(file, cap.buf);
		} else {
			assert_ptr_equal(strchr(cap.buf, '\n'), cap.buf + strlen(cap.buf) - 1);
		}
		free(cap.buf);
	}
}

static void test_socket(void **state)
{
	struct smc_socket v[6] = {};

	sockets_fill(v);
	check_sockets("socket-list", v, ELEMENTSOF(v), 2);
	check_sockets("socket-list-empty", v, 0, 0);
}

/*
 * The edges of the socket table (once held by a parity test of two renderers): IPv6, no
 * address, SMC-R link infos with and without a device name, every octet width, a listener,
 * INIT and an unknown state, unknown and peer reason codes, reason 0 in TCP mode, and more
 * distinct reasons than the legend keeps (64).
 */
static void test_socket_edges(void **state)
{
	struct smc_socket v[80] = {};
	size_t n = 0;

	/* SMC-D, IPv4, every info */
	v[n] = (struct smc_socket){ .diag_family = 43,
				    .state = 1,
				    .mode = 2,
				    .addr_family = AF_INET,
				    .sport = 5201,
				    .dport = 40000,
				    .inode = 1234,
				    .has_fallback = true,
				    .has_conninfo = true,
				    .has_dmbinfo = true };
	inet_pton(AF_INET, "127.0.0.1", &v[n].src.s6_addr32[0]);
	inet_pton(AF_INET, "10.1.2.3", &v[n].dst.s6_addr32[0]);
	v[n].conn.token = 0x1234;
	v[n].conn.sndbuf_size = 65536;
	v[n].conn.rx_prod = (struct smc_cursor){ 1, 200 };
	v[n].conn.tx_cons = (struct smc_cursor){ 65535, 4294967295u };
	v[n].dmb.linkid = 0x100;
	n++;
	/* SMC-R over IPv6 with link infos, an empty IB device name */
	v[n] = (struct smc_socket){ .diag_family = 10,
				    .state = 1,
				    .mode = 0,
				    .addr_family = AF_INET6,
				    .sport = 1,
				    .dport = 65535,
				    .uid = 4294967295u,
				    .inode = 7,
				    .ifindex = 3,
				    .shutdown = 3,
				    .has_conninfo = true,
				    .has_lgrinfo = true };
	inet_pton(AF_INET6, "fe80::1", &v[n].src);
	inet_pton(AF_INET6, "2001:db8::42", &v[n].dst);
	v[n].lgr.link_id = 2;
	v[n].lgr.ibport = 1;
	n++;
	v[n] = v[n - 1];
	snprintf(v[n].lgr.ibname, sizeof(v[n].lgr.ibname), "rxe0");
	n++;
	/* IPv4 with every octet width and the highest port */
	v[n] = (struct smc_socket){ .diag_family = 43,
				    .state = 1,
				    .mode = 2,
				    .addr_family = AF_INET,
				    .sport = 65535,
				    .dport = 0 };
	inet_pton(AF_INET, "255.0.10.100", &v[n].src.s6_addr32[0]);
	inet_pton(AF_INET, "0.0.0.0", &v[n].dst.s6_addr32[0]);
	n++;
	/* IPPROTO_SMC without addresses, a listener, a socket in INIT, an unknown state */
	v[n++] = (struct smc_socket){ .diag_family = 2, .state = 10, .mode = 2, .sport = 80 };
	v[n++] = (struct smc_socket){ .diag_family = 43, .state = 2, .mode = 0 };
	v[n++] = (struct smc_socket){ .diag_family = 43, .state = 200, .mode = 9 };
	/* fallbacks: known, unknown, with a peer diagnosis, reason 0 in TCP mode */
	v[n++] = (struct smc_socket){ .diag_family = 43,
				      .state = 1,
				      .mode = 1,
				      .addr_family = AF_INET,
				      .has_fallback = true,
				      .fallback_reason = 0x03030008 };
	v[n++] = (struct smc_socket){ .diag_family = 43,
				      .state = 1,
				      .mode = 1,
				      .has_fallback = true,
				      .fallback_reason = 0x05000000,
				      .peer_diagnosis = 0x03030008 };
	v[n++] = (struct smc_socket){ .diag_family = 43,
				      .state = 1,
				      .mode = 1,
				      .has_fallback = true,
				      .fallback_reason = 0x12345678,
				      .peer_diagnosis = 0x9abcdef0 };
	v[n++] = (struct smc_socket){ .diag_family = 43, .state = 1, .mode = 1, .has_fallback = true };
	v[n++] = (struct smc_socket){ .diag_family = 43,
				      .state = 1,
				      .mode = 2,
				      .has_fallback = true,
				      .fallback_reason = 0x03030008 };
	/* more distinct reasons than the legend keeps (64) */
	while (n < ELEMENTSOF(v)) {
		v[n] = (struct smc_socket){ .diag_family = 43,
					    .state = 1,
					    .mode = 1,
					    .has_fallback = true,
					    .fallback_reason = 0x7f000000u + (uint32_t)n };
		n++;
	}
	check_sockets("socket-edges", v, n, 2);
	check_sockets("socket-edges-11", v, 11, 0);
}

static void test_pnet(void **state)
{
	struct smc_pnet_entry e[] = {
		{ .pnetid = "NET1", .eth_name = "eth1" },
		{ .pnetid = "NET1", .ib_name = "mlx5_0", .ib_port = 1 },
		{ .pnetid = "NOLO", .ib_name = "lo", .ib_port = 1 },
	};
	json_object *doc = json_object_new_object(), *arr = json_object_new_array();
	json_object *empty = json_object_new_object();

	json_add(doc, "pnet", arr);
	for (size_t i = 0; i < ELEMENTSOF(e); i++)
		json_append(arr, pnet_entry_json(&e[i]));
	check("pnet-list", doc, pnet_list_text, 0, 0);
	json_add(empty, "pnet", json_object_new_array());
	check("pnet-list-empty", empty, pnet_list_text, 0, 0);
}

static void test_sysctl(void **state)
{
	json_object *doc = json_object_new_object(), *arr = json_object_new_array(),
		    *absent = json_object_new_array(), *a = json_object_new_object();

	json_add(doc, "sysctls", arr);
	json_add(doc, "absent", absent);
	json_append(arr, sysctl_entry_json("autocorking_size", smc_sysctl_find("autocorking_size"),
					   "65536"));
	json_append(arr, sysctl_entry_json("smcr_buf_type", smc_sysctl_find("smcr_buf_type"), "1"));
	json_append(arr, sysctl_entry_json("wmem", smc_sysctl_find("wmem"), "262144"));
	json_append(arr, sysctl_entry_json("hs_ctrl", smc_sysctl_find("hs_ctrl"), ""));
	json_append(arr, sysctl_entry_json("new_knob", NULL, "42"));
	json_append(absent, a);
	json_add_str(a, "name", "smcr_max_send_wr");
	json_add_str(a, "since", "6.19");
	check("sysctl-show", doc, sysctl_show_text, 1, 0);
}

static void test_stats(void **state)
{
	struct smc_stats s = {};
	struct smc_fback_stats f = {};
	struct smc_stats_tech *d = &s.smcd;

	d->clnt_v2_succ = 120;
	d->srv_v2_succ = 118;
	d->clnt_v1_succ = 3;
	d->srv_v1_succ = 2;
	d->rx_bytes = 123456789012ULL;
	d->tx_bytes = 98765432109ULL;
	d->rx_cnt = 1000000;
	d->tx_cnt = 1200000;
	d->has_rmb_usage = true;
	d->rx_rmb_usage = 655360;
	d->tx_rmb_usage = 786432;
	d->rx_rmb.buf_full = 1234;
	d->tx_rmb.buf_full = 4321;
	d->tx_rmb.buf_full_peer = 222;
	d->tx_rmb.buf_size_small = 11;
	d->tx_rmb.buf_size_small_peer = 7;
	d->tx_rmb.downgrade = 2;
	d->tx_rmb.reuse = 200;
	d->tx_rmb.alloc = 40;
	d->rx_rmb.reuse = 190;
	for (int i = 1; i < SMC_STATS_BUCKETS; i++) {
		d->rx_rmb_size[i] = 10 * i;
		d->rx_pload[i] = 100000 * i;
		d->tx_rmb_size[i] = 11 * i;
		d->tx_pload[i] = 1234567 * i;
	}
	d->cork = 1;
	d->ndly = 240;
	d->splice = 3;
	s.clnt_hs_err = 1;
	f.srv_total = 7;
	f.clnt_total = 70005;
	f.n = 4;
	f.entries[0] = (struct smc_fback_entry){ true, 0x03010000, 1 };
	f.entries[1] = (struct smc_fback_entry){ false, 0x05000000, 4 };
	f.entries[2] = (struct smc_fback_entry){ true, 0x03030008, 6 };
	f.entries[3] = (struct smc_fback_entry){ false, 0x0999abcd, 1 };

	check("stats", stats_tree_from_kernel(&s, &f), stats_text, 1, 0);
	check("stats-all", stats_tree_from_kernel(&s, &f), stats_text, 0, STATS_VIEW_ALL);

	memset(&s, 0, sizeof(s));
	memset(&f, 0, sizeof(f));
	check("stats-idle", stats_tree_from_kernel(&s, &f), stats_text, 0, 0);
}

/*
 * info's answer from its facts (info_emit(), one path): the text at each detail level and
 * the pretty JSON against the goldens, the JSON one document (compact: on one line), and
 * the streamed JSON, pretty and compact, exactly what json-c prints for the document the
 * same emits build.
 */
static void check_info(const char *name, const struct info_facts *i, unsigned max_detail)
{
	char file[256];
	struct capture cap, streamed;
	struct out_sink o;
	json_object *doc;

	for (unsigned d = 0; d <= max_detail; d++) {
		capture_begin(&cap);
		out_sink_text(&o, cap.f, d);
		assert_int_equal(info_emit(&o, i), 0);
		capture_end(&cap);
		snprintf(file, sizeof(file), "synthetic/%s%s.txt", name, d ? "-d" : "");
		golden_check(file, cap.buf);
		free(cap.buf);
	}
	out_sink_doc(&o);
	assert_int_equal(info_emit(&o, i), 0);
	assert_non_null(doc = out_sink_take_doc(&o));
	for (int pretty = 1; pretty >= 0; pretty--) {
		capture_begin(&cap);
		assert_int_equal(out_json(cap.f, doc, pretty), 0);
		capture_end(&cap);
		capture_begin(&streamed);
		out_sink_json(&o, streamed.f, pretty);
		assert_int_equal(info_emit(&o, i), 0);
		capture_end(&streamed);
		assert_string_equal(streamed.buf, cap.buf);
		free(streamed.buf);
		free(cap.buf);
	}
	check_json_doc(name, doc);
}

static struct info_facts loopback_host(void)
{
	struct info_facts i = {
		.caps = { .kernel_release = "7.3.4-smcd",
			  .smc_genl = true,
			  .pnet_genl = true,
			  .smc_diag = true,
			  .af_smc = true,
			  .ipproto_smc = true,
			  .dibs = true,
			  .loopback = true,
			  .smc_module = true,
			  .smcd_v2 = true,
			  .smcr_v2 = true,
			  .smc_ver = 2,
			  .smc_rel = 1 },
		.has_sysinfo = true,
		.sys = { .ver = 2,
			 .rel = 1,
			 .ism_v2 = true,
			 .smcr_v2 = true,
			 .hostname = "vm",
			 .has_seid = true },
		.has_ueids = true,
		.n_ueids = 1,
		.has_seid = true,
		.seid = { .present = true },
		.has_devices = true,
		.n_loopback = 1,
		.loopback_names = "lo",
	};
	return i;
}

static char *present_sysctls[] = { "autocorking_size",
				   "limit_smc_hs",
				   "rmem",
				   "smcr_buf_type",
				   "smcr_max_conns_per_lgr",
				   "smcr_max_links_per_lgr",
				   "smcr_testlink_time",
				   "wmem" };

/*
 * The next step for SMC-D loopback, per kernel and per what is missing (cli/info.c's
 * table): the right row for each kernel family the VM lanes boot, none where loopback
 * works, and each step word for word in README.md's Requirements table.
 */
static void test_info_next_step(void **state)
{
	static const struct {
		const char *release;
		bool smc, loopback;
		const char *expect; /* a part of the step; NULL: no step */
	} cases[] = {
		{ "6.1.0-57-amd64", true, false, "needs Linux 6.10 or later" },
		{ "6.1.0-57-amd64", false, false, "needs Linux 6.10 or later" },
		{ "6.12.118+deb13-amd64", true, false, "rebuild the smc module with CONFIG_SMC_LO=y" },
		{ "6.12.118+deb13-amd64", false, false, "CONFIG_SMC=m and CONFIG_SMC_LO=y" },
		{ "6.12.118+deb13-amd64", true, true, NULL },
		{ "7.3.4-amd64", false, false, "CONFIG_DIBS=y, CONFIG_DIBS_LO=y and CONFIG_SMC=m" },
		{ "7.3.4-amd64", true, false, "install smc-lo-dkms" },
		{ "6.18.0", true, false, "install smc-lo-dkms" },
		{ "6.17.9", true, false, "rebuild the smc module" },
		{ "6.10.0", true, false, "rebuild the smc module" },
		{ "6.9.12", true, false, "needs Linux 6.10 or later" },
		{ "7.3.4-amd64", true, true, NULL },
		{ "garbage", true, false, "needs Linux 6.10 or later" },
	};
	char path[4096], *readme;
	FILE *f;
	long n;

	(void)state;
	snprintf(path, sizeof(path), "%s/README.md", golden_top_srcdir());
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	readme = calloc(1, (size_t)n + 1);
	assert_non_null(readme);
	assert_int_equal(fread(readme, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const char *step = smcd_next_step(cases[k].release, cases[k].smc, cases[k].loopback);

		if (!cases[k].expect) {
			assert_null(step);
			continue;
		}
		assert_non_null(step);
		if (!strstr(step, cases[k].expect))
			fail_msg("%s: '%s' lacks '%s'", cases[k].release, step, cases[k].expect);
		if (!strstr(readme, step))
			fail_msg("README.md's Requirements table lacks the step '%s'", step);
	}
	free(readme);
}

static void test_info(void **state)
{
	struct info_facts i = loopback_host();

	i.sysctls = present_sysctls;
	i.n_sysctls = ELEMENTSOF(present_sysctls);
	check_info("info-ready", &i, 1);

	i.n_ueids = 0;
	check_info("info-no-ueid", &i, 0);

	i.n_ueids = 1;
	snprintf(i.loopback_pnetid, sizeof(i.loopback_pnetid), "NOLO");
	i.n_loopback_pnetid = 1;
	check_info("info-loopback-pnetid", &i, 0);

	/* Debian 6.12: SMC without loopback, one probe failed */
	i = (struct info_facts){
		.caps = { .kernel_release = "6.12.117-amd64",
			  .smc_genl = true,
			  .pnet_genl = true,
			  .smc_diag = true,
			  .af_smc = true,
			  .ipproto_smc = true,
			  .smc_module = true,
			  .smcr_v2 = true,
			  .smc_ver = 2,
			  .smc_rel = 1 },
		.has_sysinfo = true,
		.sys = { .ver = 2, .rel = 1, .smcr_v2 = true, .hostname = "debian" },
		.has_ueids = true,
		.has_seid = true,
		.sysctls = present_sysctls,
		.n_sysctls = ELEMENTSOF(present_sysctls),
		.errors = { "SMC-D devices: the kernel's reply did not parse" },
		.n_errors = 1,
	};
	check_info("info-stock-612", &i, 0);

	/* a kernel without SMC: Debian 7.3 */
	i = (struct info_facts){ .caps = { .kernel_release = "7.3.4-amd64" } };
	check_info("info-nosmc", &i, 0);
}

static void test_action(void **state)
{
	check("action-ueid-add", action_json("add", "ueid", "SMC-TEST", true), action_text, 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ueid),	       cmocka_unit_test(test_seid),
		cmocka_unit_test(test_device),	       cmocka_unit_test(test_linkgroup),
		cmocka_unit_test(test_socket),	       cmocka_unit_test(test_socket_edges),
		cmocka_unit_test(test_pnet),	       cmocka_unit_test(test_sysctl),
		cmocka_unit_test(test_stats),	       cmocka_unit_test(test_info),
		cmocka_unit_test(test_info_next_step), cmocka_unit_test(test_action),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
