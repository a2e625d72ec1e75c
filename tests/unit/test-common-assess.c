// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * common/assess-rules.c over synthetic connection records: reach, class and reason of each
 * shape, both ends of one connection counted once, the verdict per application, the
 * buffer sizing, and the smc.yaml fragment, which the real loader (config/) must accept
 * with the cgroups, exclusions and sizes the records call for.  The real kernel's records
 * are the VM test's (tests/vm/guest/assess-7x.sh).
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

#include <cmocka.h>

#include "common/assess-rules.h"
#include "common/output.h"
#include "config/config.h"
#include "config/section-policies.h"

#define MS 1000000ULL
#define SEC (1000 * MS)

static struct assess_thresholds th;

static void v4(struct in6_addr *a, const char *s)
{
	memset(a, 0, sizeof(*a));
	assert_int_equal(inet_pton(AF_INET, s, a), 1);
}

/* An established client end: laddr:lport -> raddr:rport. */
static struct assess_conn conn(const char *comm, const char *cgroup, const char *l, uint16_t lport,
			       const char *r, uint16_t rport)
{
	struct assess_conn c = {
		.family = AF_INET, .lport = lport, .rport = rport, .established = true, .pid = 100
	};

	v4(&c.laddr, l);
	v4(&c.raddr, r);
	snprintf(c.comm, sizeof(c.comm), "%s", comm);
	snprintf(c.cgroup, sizeof(c.cgroup), "%s", cgroup);
	return c;
}

static void bulk(struct assess_conn *c, uint64_t bytes, uint64_t sends, unsigned bucket)
{
	c->lifetime_ns = 5 * SEC;
	c->bytes_sent = bytes;
	c->sends = sends;
	c->hist[bucket] = sends;
}

/* The server's end of the same connection. */
static struct assess_conn mirror(const struct assess_conn *c, const char *comm, const char *cgroup)
{
	struct assess_conn m = *c;

	m.laddr = c->raddr, m.raddr = c->laddr;
	m.lport = c->rport, m.rport = c->lport;
	m.passive = true;
	m.bytes_sent = c->bytes_received, m.bytes_received = c->bytes_sent;
	m.sends = 0;
	memset(m.hist, 0, sizeof(m.hist));
	m.pid = 200;
	m.peer_local = false; /* the pairing must find it */
	snprintf(m.comm, sizeof(m.comm), "%s", comm);
	snprintf(m.cgroup, sizeof(m.cgroup), "%s", cgroup);
	return m;
}

static void test_buckets(void **state)
{
	(void)state;
	assert_int_equal(assess_bucket(1), 0);
	assert_int_equal(assess_bucket(8192), 0);
	assert_int_equal(assess_bucket(8193), 1);
	assert_int_equal(assess_bucket(65536), 3);
	assert_int_equal(assess_bucket(65537), 4);
	assert_int_equal(assess_bucket(1024 * 1024), 7);
	assert_int_equal(assess_bucket(1024 * 1024 + 1), 8);
	assert_int_equal(assess_bucket(1ULL << 40), 8);
	assert_int_equal(assess_bucket_size(3), 65536);
	assert_string_equal(assess_class_name(ASSESS_NOT_SERVABLE), "not_servable");
	assert_string_equal(assess_reach_name(ASSESS_REACH_SMCR), "smcr");
	assert_null(assess_class_name(_ASSESS_CLASS_MAX));
}

static void test_classes(void **state)
{
	struct assess_conn c;

	(void)state;
	/* long-lived bulk to a local peer: SMC-D, well suited */
	c = conn("bulk", "/a", "127.0.0.1", 40000, "127.0.0.1", 7000);
	c.peer_local = true;
	bulk(&c, 64 << 20, 1024, 3);
	assess_classify(&c, &th);
	assert_int_equal(c.reach, ASSESS_REACH_SMCD);
	assert_int_equal(c.cls, ASSESS_WELL_SUITED);
	assert_non_null(strstr(c.why, "on this host"));

	/* short-lived: closed after 2 ms, however many bytes */
	c.lifetime_ns = 2 * MS;
	assess_classify(&c, &th);
	assert_int_equal(c.cls, ASSESS_NOT_SUITED);
	assert_non_null(strstr(c.why, "short-lived"));
	/* the same, still open at the end: its life is a lower bound, not short */
	c.open = true;
	assess_classify(&c, &th);
	assert_int_equal(c.cls, ASSESS_WELL_SUITED);

	/* long but tiny: 200 bytes in 2 sends */
	c = conn("ssh", "/b", "10.0.0.1", 40001, "10.0.0.2", 22);
	c.peer_local = true;
	c.lifetime_ns = 10 * SEC, c.bytes_sent = 200, c.sends = 2;
	assess_classify(&c, &th);
	assert_int_equal(c.cls, ASSESS_NOT_SUITED);
	assert_non_null(strstr(c.why, "tiny"));
	/* many small sends are no longer tiny (request/response) */
	c.sends = 500;
	assess_classify(&c, &th);
	assert_int_equal(c.cls, ASSESS_WELL_SUITED);

	/* a remote peer over an RDMA interface: SMC-R */
	c = conn("db", "/c", "192.0.2.1", 40002, "192.0.2.9", 5432);
	snprintf(c.egress, sizeof(c.egress), "ens1");
	c.egress_rdma = true;
	snprintf(c.rdma_dev, sizeof(c.rdma_dev), "mlx5_0");
	c.rdma_port = 1;
	bulk(&c, 1 << 20, 100, 2);
	assess_classify(&c, &th);
	assert_int_equal(c.reach, ASSESS_REACH_SMCR);
	assert_int_equal(c.cls, ASSESS_WELL_SUITED);
	assert_non_null(strstr(c.why, "peer 192.0.2.9 is reached through ens1, which has an RDMA "
				      "device (mlx5_0 port 1)"));
	/* over a VLAN: the device below it has the port */
	snprintf(c.egress_lower, sizeof(c.egress_lower), "ens0");
	assess_classify(&c, &th);
	assert_int_equal(c.reach, ASSESS_REACH_SMCR);
	assert_non_null(strstr(c.why, "through ens1, on ens0, which has an RDMA device (mlx5_0 "
				      "port 1)"));
	/* by PNET ID */
	snprintf(c.pnetid, sizeof(c.pnetid), "NET1");
	assess_classify(&c, &th);
	assert_non_null(strstr(c.why, "through ens1, whose PNET ID NET1 an RDMA device has "
				      "(mlx5_0 port 1)"));

	/* a PNET ID no active port has: not servable */
	c.egress_rdma = false;
	c.rdma_dev[0] = '\0';
	assess_classify(&c, &th);
	assert_int_equal(c.cls, ASSESS_NOT_SERVABLE);
	assert_string_equal(c.why, "peer 192.0.2.9 is not on this host and no active RDMA port "
				   "has the PNET ID of ens1 (NET1)");
	c.pnetid[0] = '\0';
	assess_classify(&c, &th);
	assert_string_equal(c.why, "peer 192.0.2.9 is not on this host and ens1 (on ens0) has no "
				   "RDMA device");
	c.egress_lower[0] = '\0';
	c.egress_lower_elsewhere = true;
	assess_classify(&c, &th);
	assert_non_null(strstr(c.why, "in another network namespace: not looked at"));
	c.egress_lower_elsewhere = false;
	/* could not be told: said, with the error, never "no RDMA device" */
	c.rdma_err = -EPERM;
	assess_classify(&c, &th);
	assert_int_equal(c.cls, ASSESS_NOT_SERVABLE);
	assert_string_equal(c.why,
			    "peer 192.0.2.9 is not on this host, and whether ens1 has an "
			    "RDMA device for SMC-R could not be told: Operation not permitted");
	c.rdma_err = 0;

	/* without RDMA: not servable, with the reason */
	assess_classify(&c, &th);
	assert_int_equal(c.cls, ASSESS_NOT_SERVABLE);
	assert_string_equal(c.why, "peer 192.0.2.9 is not on this host and ens1 has no RDMA device");
	/* and without a route */
	c.egress[0] = '\0';
	assess_classify(&c, &th);
	assert_non_null(strstr(c.why, "no route"));

	/* a refused local connection */
	c = conn("x", "/d", "127.0.0.1", 40003, "127.0.0.1", 1);
	c.peer_local = true;
	c.established = false;
	assess_classify(&c, &th);
	assert_int_equal(c.cls, ASSESS_FAILED);
}

static void test_pairs(void **state)
{
	struct assess_conn v[3];

	(void)state;
	/* a sink: the client sends 64 MiB, the server only receives */
	v[0] = conn("client", "/bulk-c", "10.9.0.1", 40000, "10.9.0.2", 7000);
	bulk(&v[0], 64 << 20, 1024, 3);
	v[1] = mirror(&v[0], "server", "/bulk-s");
	/* another connection with the same ports but other addresses: no pair */
	v[2] = conn("other", "/o", "10.9.0.3", 40000, "10.9.0.4", 7000);
	bulk(&v[2], 64 << 20, 1024, 3);
	assess_classify_all(v, 3, &th);
	assert_int_equal(v[0].pair, 1);
	assert_int_equal(v[1].pair, 0);
	assert_int_equal(v[2].pair, -1);
	/* both ends seen: on this host even though no address table said so */
	assert_int_equal(v[0].reach, ASSESS_REACH_SMCD);
	assert_int_equal(v[1].reach, ASSESS_REACH_SMCD);
	assert_int_equal(v[1].cls, ASSESS_WELL_SUITED);
	assert_int_equal(v[2].cls, ASSESS_NOT_SERVABLE);
	/* the sink's own sends stay its own */
	assert_int_equal(v[1].sends, 0);

	_cleanup_(json_object_putp) json_object *doc = NULL;
	struct assess_meta m = { .method = "bpf", .coverage = "x", .scope = "y", .duration_s = 1 };

	assert_non_null(doc = assess_report_json(v, 3, &th, &m));
	/* two connections, not three ends */
	assert_int_equal(out_get_u64(doc, "total.connections", 0), 2);
	assert_int_equal(out_get_u64(doc, "total.classes.well_suited.connections", 0), 1);
	assert_int_equal(out_get_u64(doc, "total.classes.well_suited.share_connections", 0), 50);
	assert_int_equal(out_get_u64(doc, "total.classes.not_servable.share_bytes", 0), 50);
	assert_int_equal(json_object_array_length(out_get(doc, "applications")), 3);
	assert_int_equal(json_object_array_length(out_get(doc, "connections")), 3);
	assert_string_equal(out_get_str(doc, "method", ""), "bpf");
	assert_null(out_get(doc, "method_reason"));
}

/* A connection's SMC-R port and PNET ID in the document (what the VM test reads). */
static void test_smcr_json(void **state)
{
	_cleanup_(json_object_putp) json_object *doc = NULL;
	struct assess_meta m = { .method = "bpf", .coverage = "x", .scope = "y", .duration_s = 1 };
	struct assess_conn v[2];
	json_object *c;

	(void)state;
	v[0] = conn("db", "/db", "192.0.2.1", 40000, "192.0.2.9", 5432);
	bulk(&v[0], 1 << 20, 100, 2);
	snprintf(v[0].egress, sizeof(v[0].egress), "ens1");
	snprintf(v[0].rdma_dev, sizeof(v[0].rdma_dev), "mlx5_0");
	snprintf(v[0].pnetid, sizeof(v[0].pnetid), "NET1");
	v[0].rdma_port = 2;
	v[0].egress_rdma = true;
	v[1] = conn("db", "/db", "192.0.2.1", 40001, "198.51.100.9", 5432);
	bulk(&v[1], 1 << 20, 100, 2);
	snprintf(v[1].egress, sizeof(v[1].egress), "ens2");
	assess_classify_all(v, 2, &th);
	assert_non_null(doc = assess_report_json(v, 2, &th, &m));
	c = json_object_array_get_idx(out_get(doc, "connections"), 0);
	assert_string_equal(out_get_str(c, "reach", ""), "smcr");
	assert_string_equal(out_get_str(c, "rdma_device", ""), "mlx5_0");
	assert_int_equal(out_get_u64(c, "rdma_port", 0), 2);
	assert_string_equal(out_get_str(c, "pnetid", ""), "NET1");
	c = json_object_array_get_idx(out_get(doc, "connections"), 1);
	assert_string_equal(out_get_str(c, "reach", ""), "none");
	assert_null(out_get(c, "rdma_device"));
	assert_null(out_get(c, "rdma_port"));
	assert_null(out_get(c, "pnetid"));
}

static json_object *app_named(json_object *doc, const char *name)
{
	json_object *apps = out_get(doc, "applications");

	for (size_t i = 0; i < json_object_array_length(apps); i++)
		if (strcmp(out_get_str(json_object_array_get_idx(apps, i), "name", ""), name) == 0)
			return json_object_array_get_idx(apps, i);
	fail_msg("no application %s", name);
	return NULL;
}

/* The VM test's mix: bulk (same host), bulk across netns, short ones, one unreachable. */
static size_t mix(struct assess_conn *v)
{
	size_t n = 0;

	v[n] = conn("smc-conn", "/system.slice/bulk.service", "127.0.0.1", 40000, "127.0.0.1", 7000);
	bulk(&v[n], 64 << 20, 1024, 3);
	v[n + 1] = mirror(&v[n], "smc-conn", "/system.slice/bulk.service");
	n += 2;
	v[n] = conn("smc-conn", "/assess-ns", "10.77.0.1", 40001, "10.77.0.2", 7001);
	bulk(&v[n], 16 << 20, 256, 3);
	v[n + 1] = mirror(&v[n], "smc-conn", "/assess-ns");
	n += 2;
	for (unsigned i = 0; i < 30; i++, n += 2) {
		v[n] = conn("smc-conn", "/assess-short", "127.0.0.1", (uint16_t)(41000 + i),
			    "127.0.0.1", 7002);
		v[n].lifetime_ns = 3 * MS, v[n].bytes_sent = 116, v[n].sends = 2;
		v[n].hist[0] = 2;
		v[n + 1] = mirror(&v[n], "smc-conn", "/assess-short");
	}
	v[n] = conn("smc-conn", "/assess-far", "10.78.0.1", 42000, "198.51.100.7", 7003);
	v[n].established = false, v[n].open = true, v[n].lifetime_ns = 20 * SEC;
	snprintf(v[n].egress, sizeof(v[n].egress), "vfar");
	return n + 1;
}

static void test_verdicts(void **state)
{
	struct assess_conn v[80];
	size_t n = mix(v);
	_cleanup_(json_object_putp) json_object *doc = NULL;
	struct assess_meta m = { .method = "bpf", .coverage = "x", .scope = "y", .duration_s = 10 };
	json_object *a;

	(void)state;
	assess_classify_all(v, n, &th);
	assert_non_null(doc = assess_report_json(v, n, &th, &m));
	a = app_named(doc, "bulk.service");
	assert_string_equal(out_get_str(a, "verdict", ""), "likely-faster");
	assert_string_equal(out_get_str(a, "unit", ""), "bulk.service");
	assert_int_equal(json_object_array_length(out_get(a, "processes")), 2);
	/* both ends of the one connection are the application's */
	assert_int_equal(out_get_u64(a, "connections", 0), 2);
	a = app_named(doc, "/assess-ns");
	assert_string_equal(out_get_str(a, "verdict", ""), "likely-faster");
	a = app_named(doc, "/assess-short");
	assert_string_equal(out_get_str(a, "verdict", ""), "likely-slower");
	assert_string_equal(out_get_str(a, "why", ""), "100% of connections live < 100 ms");
	a = app_named(doc, "/assess-far");
	assert_string_equal(out_get_str(a, "verdict", ""), "no-change");
	assert_int_equal(out_get_u64(doc, "total.connections", 0), 33);
	assert_int_equal(out_get_u64(doc, "total.classes.not_suited.connections", 0), 30);
	assert_int_equal(out_get_u64(doc, "total.classes.not_servable.connections", 0), 1);
}

static void test_buffers(void **state)
{
	uint64_t h[ASSESS_BUCKETS] = {};

	(void)state;
	assert_int_equal(assess_buffer_size(h), 0);
	h[0] = 100; /* small messages: the kernel's default */
	assert_int_equal(assess_buffer_size(h), 64 * 1024);
	h[3] = 1000; /* mostly 64 KiB sends: 128 KiB */
	assert_int_equal(assess_buffer_size(h), 128 * 1024);
	h[8] = 10000; /* more than 1 MiB: the largest SMC-D buffer */
	assert_int_equal(assess_buffer_size(h), 1024 * 1024);
}

static void test_fragment(void **state)
{
	struct assess_conn v[80];
	size_t n = mix(v);
	_cleanup_(freep) char *frag = NULL;
	struct config_errors errors = {};
	struct config *cfg = NULL;
	const struct config_policies *p;
	int r;

	(void)state;
	assess_classify_all(v, n, &th);
	assert_non_null(frag = assess_fragment(v, n, &th));
	r = config_load_text("fragment.yaml", frag, strlen(frag), NULL, &cfg, &errors);
	if (r < 0) {
		_cleanup_(freep) char *e = config_errors_join(&errors);

		fail_msg("the fragment does not load:\n%s\n%s", frag, e ? e : "?");
	}
	p = &cfg->policies;
	assert_int_equal(p->n_cgroups, 2);
	assert_non_null(strstr(frag, "- /system.slice/bulk.service"));
	assert_non_null(strstr(frag, "- /assess-ns"));
	assert_null(strstr(frag, "- /assess-short"));
	assert_null(strstr(frag, "- /assess-far"));
	assert_int_equal(p->n_exclude, 1);
	assert_non_null(strstr(frag, "{address: 127.0.0.1, port: 7002}"));
	assert_non_null(strstr(frag, "wmem: 128KiB"));
	config_free(cfg);
	config_errors_clear(&errors);

	/* nothing well suited: an empty list, no sizes, still a valid file */
	free(frag);
	n = 1;
	v[0] = conn("x", "/x", "127.0.0.1", 1000, "127.0.0.1", 2000);
	v[0].peer_local = true, v[0].lifetime_ns = MS;
	assess_classify_all(v, n, &th);
	assert_non_null(frag = assess_fragment(v, n, &th));
	assert_non_null(strstr(frag, "cgroups: []"));
	assert_int_equal(config_load_text("f.yaml", frag, strlen(frag), NULL, &cfg, &errors), 0);
	assert_int_equal(cfg->policies.n_cgroups, 0);
	config_free(cfg);
	config_errors_clear(&errors);

	/*
	 * A likely-faster application in the root cgroup before one whose cgroup name (its
	 * owner's choice) has a quote and a line break, and a command name with one: still one
	 * valid file, listing exactly the second, the first named in a comment line.
	 */
	free(frag);
	v[0] = conn("root\napp", "/", "127.0.0.1", 1000, "127.0.0.1", 2000);
	v[1] = conn("odd", "/odd\"name", "127.0.0.1", 1001, "127.0.0.1", 2001);
	v[2] = conn("evil", "/x\n- /evil", "127.0.0.1", 1002, "127.0.0.1", 2002);
	for (size_t i = 0; i < 3; i++) {
		v[i].peer_local = true;
		bulk(&v[i], 64 << 20, 1024, 3);
	}
	assess_classify_all(v, 3, &th);
	assert_non_null(frag = assess_fragment(v, 3, &th));
	r = config_load_text("f.yaml", frag, strlen(frag), NULL, &cfg, &errors);
	if (r < 0) {
		_cleanup_(freep) char *e = config_errors_join(&errors);

		fail_msg("the fragment does not load:\n%s\n%s", frag, e ? e : "?");
	}
	assert_int_equal(cfg->policies.n_cgroups, 1);
	assert_string_equal(cfg->policies.cgroups[0].path, "/odd\"name");
	assert_null(strstr(frag, "\n- /evil"));
	assert_non_null(strstr(frag, "# evil: likely faster, but its cgroup is a name smc.yaml"));
	assert_non_null(strstr(frag, "# root\\x0aapp: likely faster, but its cgroup is the root"));
	config_free(cfg);
	config_errors_clear(&errors);
}

static void test_text(void **state)
{
	struct assess_conn v[80];
	size_t n = mix(v);
	_cleanup_(json_object_putp) json_object *doc = NULL;
	struct assess_meta m = { .method = "sock_diag",
				 .method_reason = "no BTF",
				 .coverage = "connections seen",
				 .scope = "this netns",
				 .duration_s = 10 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assess_classify_all(v, n, &th);
	assert_non_null(doc = assess_report_json(v, n, &th, &m));
	assert_non_null(f = open_memstream(&buf, &len));
	assess_report_text(f, doc, 1);
	fclose(f);
	assert_non_null(strstr(buf, "(sock_diag: no BTF)"));
	assert_non_null(
		strstr(buf, "bulk.service (cgroup /system.slice/bulk.service): likely-faster"));
	assert_non_null(strstr(buf, "/assess-short (cgroup /assess-short): likely-slower"));
	assert_non_null(strstr(buf, "smc-conn[100]"));
	assert_non_null(strstr(buf, "Suggested smc.yaml fragment:"));
	free(buf);
}

/* A dual-stack server's end of an IPv4 connection: ::ffff:a.b.c.d; it pairs with the client. */
static void test_pairs_v4mapped(void **state)
{
	struct assess_conn v[2];

	(void)state;
	v[0] = conn("client", "/c", "10.9.0.1", 40000, "10.9.0.2", 7000);
	bulk(&v[0], 64 << 20, 1024, 3);
	v[1] = mirror(&v[0], "server", "/s");
	v[1].family = AF_INET6;
	for (unsigned i = 0; i < 2; i++) {
		struct in6_addr *a = i ? &v[1].raddr : &v[1].laddr;
		uint32_t ip = a->s6_addr32[0];

		*a = (struct in6_addr){ .s6_addr32 = { 0, 0, htonl(0xffff), ip } };
	}
	assess_classify_all(v, 2, &th);
	assert_int_equal(v[0].pair, 1);
	assert_int_equal(v[1].pair, 0);
	assert_int_equal(v[1].reach, ASSESS_REACH_SMCD);
}

/* The agent's way: the same records added in two batches give the same document. */
static void test_sum_pieces(void **state)
{
	struct assess_conn v[80];
	size_t n = mix(v), half = 34; /* cuts no pair: the mix's pairs are at even indices */
	_cleanup_(json_object_putp) json_object *whole = NULL, *pieces = NULL;
	struct assess_meta m = { .method = "bpf", .coverage = "x", .scope = "y", .duration_s = 10 };
	struct assess_sum *s;
	char *frag;

	(void)state;
	assess_classify_all(v, n, &th);
	assert_non_null(whole = assess_report_json(v, n, &th, &m));
	assert_non_null(s = assess_sum_new(0));
	assess_classify_all(v, half, &th);
	assert_int_equal(assess_sum_add(s, v, half, &th), 0);
	assess_classify_all(v + half, n - half, &th);
	assert_int_equal(assess_sum_add(s, v + half, n - half, &th), 0);
	assert_int_equal(assess_sum_ends(s), n);
	assert_non_null(pieces = assess_sum_json(s, &th, &m));
	assert_null(out_get(pieces, "connections"));
	json_object_object_del(whole, "connections");
	/* the fragments differ in their first line only (who made them) */
	frag = strchr(out_get_str(pieces, "fragment", ""), '\n');
	assert_non_null(frag);
	assert_string_equal(frag, strchr(out_get_str(whole, "fragment", ""), '\n'));
	assert_non_null(strstr(out_get_str(pieces, "fragment", ""), "from smcd-agent's"));
	json_object_object_del(whole, "fragment");
	json_object_object_del(pieces, "fragment");
	assert_string_equal(json_object_to_json_string(pieces), json_object_to_json_string(whole));
	assess_sum_free(s);
}

/*
 * A container's application is named by its container (the host found "podman:smc-srv",
 * assess_cgroup_names()), in the report and in the gauges; its unit stays the scope.  A
 * container the host could not name keeps its scope's name.
 */
static void test_container_named(void **state)
{
	const char *scope = "/machine.slice/libpod-"
			    "e13652de5c3a1c8d631ef02ff574212a799a02b0afaf52be45475c03ca804ae7.scope";
	const char *other = "/machine.slice/libpod-"
			    "bbee91767bbadeb1086115ca522a1b8a7a761b1f0fa88f59057ca0c79957c52e.scope";
	struct assess_conn v[4];
	_cleanup_(json_object_putp) json_object *doc = NULL;
	struct assess_meta m = { .method = "bpf", .coverage = "x", .scope = "y", .duration_s = 10 };
	struct assess_gauges g;
	struct assess_sum *s;
	json_object *a;

	(void)state;
	v[0] = conn("smc-conn", other, "127.0.0.1", 40000, "127.0.0.1", 7000);
	bulk(&v[0], 64 << 20, 1024, 3);
	v[1] = mirror(&v[0], "smc-conn", scope);
	snprintf(v[1].container, sizeof(v[1].container), "podman:smc-srv");
	assess_classify_all(v, 2, &th);
	assert_non_null(doc = assess_report_json(v, 2, &th, &m));
	a = app_named(doc, "podman:smc-srv");
	assert_string_equal(out_get_str(a, "unit", ""), scope + strlen("/machine.slice/"));
	assert_string_equal(out_get_str(a, "cgroup", ""), scope);
	app_named(doc, other + strlen("/machine.slice/"));
	assert_non_null(s = assess_sum_new(8));
	assert_int_equal(assess_sum_add(s, v, 2, &th), 0);
	assert_int_equal(assess_sum_gauges(s, 8, &g), 0);
	assert_int_equal(g.n_apps, 2);
	assert_true(strcmp(g.apps[0].name, "podman:smc-srv") == 0 ||
		    strcmp(g.apps[1].name, "podman:smc-srv") == 0);
	assess_gauges_done(&g);
	assess_sum_free(s);
}

/* Bounded: applications beyond max_apps are "other"; gauges name the top N by bytes. */
static void test_sum_bounds(void **state)
{
	struct assess_conn v[80];
	size_t n = mix(v);
	_cleanup_(json_object_putp) json_object *doc = NULL;
	struct assess_meta m = { .method = "bpf", .coverage = "x", .scope = "y", .duration_s = 10 };
	struct assess_gauges g;
	struct assess_sum *s;
	uint64_t conns = 0;

	(void)state;
	assess_classify_all(v, n, &th);
	/* four applications in the mix; room for two */
	assert_non_null(s = assess_sum_new(2));
	assert_int_equal(assess_sum_add(s, v, n, &th), 0);
	assert_non_null(doc = assess_sum_json(s, &th, &m));
	assert_int_equal(json_object_array_length(out_get(doc, "applications")), 3);
	app_named(doc, "bulk.service");
	app_named(doc, "/assess-ns");
	assert_int_equal(out_get_u64(app_named(doc, "other"), "connections", 0), 61);
	/* the total is not bounded */
	assert_int_equal(out_get_u64(doc, "total.connections", 0), 33);

	assert_int_equal(assess_sum_gauges(s, 1, &g), 0);
	assert_int_equal(g.n_apps, 2);
	assert_string_equal(g.apps[0].name, "bulk.service"); /* most bytes */
	assert_string_equal(g.apps[0].verdict, "likely-faster");
	assert_string_equal(g.apps[1].name, "other");
	assert_null(g.apps[1].verdict);
	for (unsigned k = 0; k < _ASSESS_CLASS_MAX; k++)
		conns += g.apps[1].conns[k];
	assert_int_equal(conns, 2 + 61);
	assert_int_equal(g.conns[ASSESS_NOT_SUITED], 30);
	assert_int_equal(g.conns[ASSESS_FAILED] + g.conns[ASSESS_NOT_SERVABLE], 1);
	assert_int_equal(g.reach[ASSESS_REACH_SMCD], 32);
	assess_gauges_done(&g);
	assess_sum_free(s);
}

/* No byte of s is ESC, another C0 control or a byte that invalid UTF-8 starts with here. */
static void assert_no_raw(const char *what, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p == 0x1b || *p == 0x07 || *p == 0xff || *p == 0xfe)
			fail_msg("%s has the raw byte 0x%02x: %s", what, *p, s);
}

/*
 * Names users choose (issue 35): a command name with an escape sequence and a byte that is
 * not UTF-8 (prctl(PR_SET_NAME) takes any), a delegated cgroup named alike.  What the
 * agent's GetAssessment returns (the document as text: sd-bus refuses invalid UTF-8), the
 * textfile's label values and smcctl's text carry them escaped, never raw.
 */
static void test_user_names(void **state)
{
	struct assess_conn v[2];
	_cleanup_(json_object_putp) json_object *doc = NULL;
	struct assess_meta m = { .method = "bpf", .coverage = "x", .scope = "y", .duration_s = 10 };
	struct assess_gauges g;
	struct assess_sum *s;
	const char *text;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	v[0] = conn("\033[31mX\377", "", "127.0.0.1", 1000, "127.0.0.1", 2000);
	v[1] = conn("ok\033]0;t\007", "/user\033[2J\xfe", "127.0.0.1", 1001, "127.0.0.1", 2001);
	for (size_t i = 0; i < 2; i++) {
		v[i].peer_local = true;
		bulk(&v[i], 64 << 20, 1024, 3);
	}
	assess_classify_all(v, 2, &th);
	assert_non_null(s = assess_sum_new(5));
	assert_int_equal(assess_sum_add(s, v, 2, &th), 0);
	assert_non_null(doc = assess_sum_json(s, &th, &m));
	text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN);
	assert_no_raw("the document", text);
	app_named(doc, "\\x1b[31mX\\xff");
	app_named(doc, "/user\\x1b[2J\\xfe");
	assert_non_null(strstr(text, "\"comm\":\"ok\\\\x1b]0;t\\\\x07\""));
	/* the fragment cannot name that cgroup: a comment says so, on one line */
	assert_non_null(strstr(out_get_str(doc, "fragment", ""),
			       "  # ok\\x1b]0;t\\x07: likely faster, but its cgroup is a name"));
	/* the label values of the textfile */
	assert_int_equal(assess_sum_gauges(s, 5, &g), 0);
	assert_int_equal(g.n_apps, 2);
	for (size_t j = 0; j < g.n_apps; j++)
		assert_no_raw("a label value", g.apps[j].name);
	assess_gauges_done(&g);
	/* smcctl's text */
	assert_non_null(f = open_memstream(&buf, &len));
	assess_report_text(f, doc, 1);
	fclose(f);
	assert_no_raw("the text", buf);
	free(buf);
	assess_sum_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets),		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_pairs),		cmocka_unit_test(test_smcr_json),
		cmocka_unit_test(test_verdicts),	cmocka_unit_test(test_buffers),
		cmocka_unit_test(test_fragment),	cmocka_unit_test(test_text),
		cmocka_unit_test(test_pairs_v4mapped),	cmocka_unit_test(test_sum_pieces),
		cmocka_unit_test(test_container_named), cmocka_unit_test(test_sum_bounds),
		cmocka_unit_test(test_user_names),
	};

	assess_thresholds_default(&th);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
