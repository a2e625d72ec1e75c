// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libsmcnl fed with REAL SMC-R replies: tests/fixtures/7x-smcr, recorded in the 7x lane with
 * soft-RoCE between two network namespaces (tests/fixtures/record-guest-smcr.sh says what
 * each step holds; tests/vm/guest/lib-smcr.sh the topology: server in netns smcA on rxe0 /
 * vethA 198.18.0.1, client in smcB on rxe1 / vethB 198.18.0.2, SMC-Rv2 with the UEID
 * SMCR-AGENT-TEST).  The assertions hold for any re-recording: they check what the scenario
 * guarantees, not ports, inodes, link group ids or cookies.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/rtnetlink.h>

#include <cmocka.h>

#include "netlink/smcnl-internal.h"
#include "tests/unit/netlink-test-util.h"

#define GID_A "0000:0000:0000:0000:0000:ffff:c612:0001" /* ::ffff:198.18.0.1 */
#define GID_B "0000:0000:0000:0000:0000:ffff:c612:0002"
#define UEID "SMCR-AGENT-TEST"

enum { ROLE_CLNT = 0, ROLE_SERV = 1 };
enum { LINK_ACTIVE = 3 };
enum { LGR_SINGLE = 1 };

static const struct smcr_device *dev_by_name(const struct smcr_device *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (streq(v[i].ib_name, name))
			return &v[i];
	fail_msg("no SMC-R device %s", name);
	return NULL;
}

static const struct smcr_linkgroup *lgr_by_role(const struct smcr_linkgroup *v, size_t n, uint8_t role)
{
	const struct smcr_linkgroup *found = NULL;

	for (size_t i = 0; i < n; i++)
		if (v[i].role == role) {
			assert_null(found); /* one per role in every step */
			found = &v[i];
		}
	assert_non_null(found);
	return found;
}

/* The link carrying the connections: the first one (link id 1). */
static const struct smcr_link *first_link(const struct smcr_linkgroup *g)
{
	for (size_t i = 0; i < g->n_links; i++)
		if (g->links[i].id == 1)
			return &g->links[i];
	fail_msg("link group %08x has no link 1", g->id);
	return NULL;
}

/* What every SMC-Rv2 link group of this lane carries. */
static void assert_v2_lgr(const struct smcr_linkgroup *g)
{
	assert_true(g->v2.present);
	assert_int_equal(g->v2.ver, 2);
	assert_int_equal(g->v2.rel, 1);
	assert_string_equal(smc_os_name(g->v2.os), "LINUX");
	assert_string_equal(g->v2.neg_eid, UEID);
	assert_true(g->has_v2r);
	assert_true(g->direct); /* same subnet, no gateway */
	assert_int_equal(g->max_conns, 255);
	assert_int_equal(g->max_links, 2);
	assert_true(g->has_buf_type);
	assert_string_equal(smc_buf_type_name(g->buf_type), "physical");
	assert_int_equal(g->vlan_id, 0);
	assert_true(g->has_net_cookie);
	assert_true(g->has_alloc);
}

/* A connection-carrying link; netdev: its name as seen where the list was taken (vethA in
 * smcA for rxe0's links, vethB in smcB for rxe1's, nothing elsewhere). */
static void assert_link(const struct smcr_link *l, uint8_t role, uint32_t conns, const char *netdev)
{
	assert_int_equal(l->state, LINK_ACTIVE);
	assert_string_equal(smc_link_state_name(l->state), "ACTIVE");
	assert_int_equal(l->conn_cnt, conns);
	assert_int_equal(l->ib_port, 1);
	assert_int_not_equal(l->netdev_ifindex, 0);
	assert_int_not_equal(l->uid, 0);
	assert_int_not_equal(l->peer_uid, 0);
	if (role == ROLE_SERV) {
		assert_string_equal(l->ib_dev, "rxe0");
		assert_string_equal(l->gid, GID_A);
		assert_string_equal(l->peer_gid, GID_B);
	} else {
		assert_string_equal(l->ib_dev, "rxe1");
		assert_string_equal(l->gid, GID_B);
		assert_string_equal(l->peer_gid, GID_A);
	}
	assert_string_equal(l->netdev, netdev);
}

static void test_smcr_idle(void **state)
{
	struct smcnl *nl = replay_open("7x-smcr/idle");
	struct smcnl_rdma_port *ports;
	struct smcr_device *d;
	struct smcr_linkgroup *g;
	size_t n;

	assert_int_equal(smcr_device_list(nl, &d, &n), 0);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		assert_true(streq(d[i].ib_name, "rxe0") || streq(d[i].ib_name, "rxe1"));
		assert_false(d[i].has_pci); /* soft-RoCE: no parent device */
		assert_false(d[i].is_crit);
		assert_true(d[i].ports[0].valid && d[i].ports[0].active);
		assert_int_equal(d[i].ports[0].link_cnt, 0);
		assert_int_not_equal(d[i].ports[0].netdev_ifindex, 0);
		/* init_net: neither vethA nor vethB lives here */
		assert_string_equal(d[i].ports[0].netdev, "");
		assert_false(d[i].ports[0].pnet.user_defined);
		assert_string_equal(d[i].ports[0].pnet.pnetid, "");
		assert_false(d[i].ports[1].valid); /* one port */
		/* soft-RoCE: RoCE v2 GIDs only (sysfs gid_attrs/types), so no SMC-Rv1 */
		assert_true(d[i].ports[0].has_gid_types);
		assert_true(d[i].ports[0].roce_v2);
		assert_false(d[i].ports[0].roce_v1);
	}
	free(d);

	/* RDMA netlink from init_net: both ports, no netdev reported. */
	assert_int_equal(smcnl_rdma_ports(nl, &ports, &n), 0);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(ports[i].port, 1);
		assert_int_equal(ports[i].ifindex, 0);
		assert_string_equal(ports[i].netdev, "");
	}
	free(ports);

	assert_int_equal(smcr_linkgroup_list(nl, true, &g, &n), 0);
	assert_int_equal(n, 0);
	smcr_linkgroup_list_free(g, n);
	smcnl_close(nl);
}

static void test_smcr_server(void **state)
{
	struct smcnl *nl = replay_open("7x-smcr/server");
	const struct smcr_linkgroup *srv, *cli;
	const struct smcr_device *rxe0, *rxe1;
	struct smcnl_rdma_port *ports;
	struct smcr_linkgroup *g;
	struct smcr_device *d;
	struct smc_socket *s;
	struct smc_stats st;
	struct smc_fback_stats fb;
	size_t n, smcr = 0, fallback = 0, listen = 0;

	/* Link groups are global: both ends of the connections, each in this kernel. */
	assert_int_equal(smcr_linkgroup_list(nl, true, &g, &n), 0);
	assert_int_equal(n, 2);
	srv = lgr_by_role(g, n, ROLE_SERV);
	cli = lgr_by_role(g, n, ROLE_CLNT);
	for (const struct smcr_linkgroup *x = g; x < g + n; x++) {
		assert_v2_lgr(x);
		assert_int_equal(x->conns, 2); /* the IPv6 connection fell back */
		assert_string_equal(x->pnetid, "");
		assert_true(x->sndbuf_alloc >= 2 * 65536 && x->rmb_alloc >= 2 * 65536);
		assert_true(x->n_links >= 1 && x->n_links <= 2);
	}
	/* SMC takes the RDMA device's netns for the cookie: init_net for both (shared mode). */
	assert_true(srv->net_cookie == cli->net_cookie);
	assert_link(first_link(srv), ROLE_SERV, 2, "vethA");
	assert_link(first_link(cli), ROLE_CLNT, 2, "");
	/* The second link (RDMA "shared" mode lets the server use rxe1 too): no connections. */
	for (size_t i = 0; i < srv->n_links; i++)
		if (srv->links[i].id != 1) {
			assert_int_equal(srv->links[i].conn_cnt, 0);
			assert_string_equal(srv->links[i].ib_dev, "rxe1");
			assert_string_equal(srv->links[i].netdev, "");
			assert_string_equal(smc_lgr_type_name(srv->type), "ASYMP");
		}
	smcr_linkgroup_list_free(g, n);

	/* Without links: the same link groups, no link array. */
	assert_int_equal(smcr_linkgroup_list(nl, false, &g, &n), 0);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(g[i].n_links, 0);
		assert_null(g[i].links);
		assert_v2_lgr(&g[i]);
	}
	smcr_linkgroup_list_free(g, n);

	/* Devices: rxe0's netdev is vethA here (smcA), rxe1's lives in smcB. */
	assert_int_equal(smcr_device_list(nl, &d, &n), 0);
	assert_int_equal(n, 2);
	rxe0 = dev_by_name(d, n, "rxe0");
	rxe1 = dev_by_name(d, n, "rxe1");
	assert_string_equal(rxe0->ports[0].netdev, "vethA");
	assert_string_equal(rxe1->ports[0].netdev, "");
	assert_int_not_equal(rxe1->ports[0].netdev_ifindex, 0);
	assert_true(rxe0->ports[0].link_cnt >= 1);
	assert_true(rxe1->ports[0].link_cnt >= 1);
	/* The client's link group has rxe1 alone: critical. */
	assert_true(rxe1->is_crit);
	free(d);

	/* The RDMA netlink view of smcA: vethA for rxe0 and nothing for rxe1 (a handle of
	 * its own: the recorded answers are numbered per handle, in request order). */
	smcnl_close(nl);
	nl = replay_open("7x-smcr/server");
	assert_int_equal(smcnl_rdma_ports(nl, &ports, &n), 0);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(ports[i].netdev, streq(ports[i].ib_dev, "rxe0") ? "vethA" : "");
	free(ports);

	/* The server's sockets (smc_diag: this netns only), with their SMC-R link. */
	assert_int_equal(smc_socket_list(nl,
					 SMC_DIAG_WANT_CONNINFO | SMC_DIAG_WANT_LGRINFO |
						 SMC_DIAG_WANT_DMBINFO,
					 &s, &n),
			 0);
	for (size_t i = 0; i < n; i++) {
		if (s[i].state == 10) { /* LISTEN: the IPv4 and the IPv6 listener */
			listen++;
			continue;
		}
		assert_string_equal(smc_sock_state_name(s[i].state), "ACTIVE");
		if (s[i].mode == 0) {
			smcr++;
			assert_string_equal(smc_sock_mode_name(s[i].mode), "SMCR");
			assert_true(s[i].has_lgrinfo);
			assert_string_equal(s[i].lgr.ibname, "rxe0");
			assert_int_equal(s[i].lgr.ibport, 1);
			assert_int_equal(s[i].lgr.link_id, 1);
			assert_string_equal(s[i].lgr.gid, GID_A);
			assert_string_equal(s[i].lgr.peer_gid, GID_B);
			assert_string_equal(smc_lgr_role_name(s[i].lgr.role), "SERV");
			assert_true(s[i].has_conninfo);
			assert_int_not_equal(s[i].conn.token, 0);
			assert_int_equal(s[i].conn.rmbe_size, 65536);
			assert_int_equal(s[i].conn.peer_rmbe_size, 65536);
			assert_false(s[i].has_dmbinfo);
			assert_int_equal(s[i].fallback_reason, 0);
		} else {
			/* the IPv6 one: the client declined, NOSMCDEV on its side */
			fallback++;
			assert_int_equal(s[i].mode, 1);
			assert_string_equal(smc_decline_name(s[i].fallback_reason), "PEERDECL");
			assert_string_equal(smc_decline_name(s[i].peer_diagnosis), "NOSMCDEV");
			assert_false(s[i].has_lgrinfo);
		}
	}
	assert_int_equal(smcr, 2);
	assert_int_equal(fallback, 1);
	assert_int_equal(listen, 2);
	free(s);

	/* The server netns' statistics: two SMC-Rv2 handshakes as server, 256 KiB each way. */
	assert_int_equal(smc_stats_get(nl, &st), 0);
	assert_int_equal(st.smcr.srv_v2_succ, 2);
	assert_int_equal(st.smcr.clnt_v2_succ, 0);
	assert_int_equal(st.smcr.srv_v1_succ + st.smcr.clnt_v1_succ, 0);
	assert_true(st.smcr.rx_bytes >= 2 * 256 * 1024);
	assert_true(st.smcr.tx_bytes >= 2 * 256 * 1024);
	assert_int_equal(st.smcr.rx_rmb_size[3], 2); /* two 64 KiB RMBs */
	assert_int_equal(st.smcr.rx_rmb.alloc, 2);
	assert_true(st.smcr.has_rmb_usage);
	assert_int_equal(st.smcd.srv_v2_succ + st.smcd.clnt_v2_succ, 0);
	assert_int_equal(smc_fback_stats_get(nl, &fb), 0);
	assert_int_equal(fb.srv_total, 1);
	assert_int_equal(fb.clnt_total, 0);
	assert_int_equal(fb.n, 1);
	assert_true(fb.entries[0].server);
	assert_string_equal(smc_decline_name(fb.entries[0].code), "PEERDECL");
	smcnl_close(nl);
}

static void test_smcr_client(void **state)
{
	struct smcnl *nl = replay_open("7x-smcr/client");
	struct smcr_linkgroup *g;
	struct smcr_device *d;
	struct smc_socket *s;
	struct smc_stats st;
	struct smc_fback_stats fb;
	size_t n, smcr = 0, fallback = 0;

	/* The same global link groups; from smcB rxe1's links are on vethB, rxe0's unnamed. */
	assert_int_equal(smcr_linkgroup_list(nl, true, &g, &n), 0);
	assert_int_equal(n, 2);
	assert_link(first_link(lgr_by_role(g, n, ROLE_SERV)), ROLE_SERV, 2, "");
	assert_link(first_link(lgr_by_role(g, n, ROLE_CLNT)), ROLE_CLNT, 2, "vethB");
	smcr_linkgroup_list_free(g, n);

	assert_int_equal(smcr_device_list(nl, &d, &n), 0);
	assert_string_equal(dev_by_name(d, n, "rxe0")->ports[0].netdev, "");
	assert_string_equal(dev_by_name(d, n, "rxe1")->ports[0].netdev, "vethB");
	free(d);

	/* (the recorded request: all three extensions) */
	assert_int_equal(smc_socket_list(nl,
					 SMC_DIAG_WANT_CONNINFO | SMC_DIAG_WANT_LGRINFO |
						 SMC_DIAG_WANT_DMBINFO,
					 &s, &n),
			 0);
	assert_int_equal(n, 3); /* no listener on the client side */
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(smc_sock_state_name(s[i].state), "ACTIVE");
		/* IPPROTO_SMC sockets: family AF_INET/AF_INET6, no addresses */
		assert_true(s[i].diag_family == AF_INET || s[i].diag_family == AF_INET6);
		assert_int_equal(s[i].addr_family, AF_UNSPEC);
		if (s[i].mode == 0) {
			smcr++;
			assert_int_equal(s[i].diag_family, AF_INET);
			assert_true(s[i].has_lgrinfo);
			assert_string_equal(s[i].lgr.ibname, "rxe1");
			assert_string_equal(s[i].lgr.gid, GID_B);
			assert_string_equal(s[i].lgr.peer_gid, GID_A);
			assert_string_equal(smc_lgr_role_name(s[i].lgr.role), "CLNT");
			assert_true(s[i].has_conninfo);
		} else {
			fallback++;
			assert_int_equal(s[i].diag_family, AF_INET6);
			assert_string_equal(smc_sock_mode_name(s[i].mode), "TCP");
			/* IPv6: SMC-Rv2 is never proposed and lo has a PNET ID: no device */
			assert_int_equal(s[i].fallback_reason, 0x03030000);
			assert_string_equal(smc_decline_name(s[i].fallback_reason), "NOSMCDEV");
			assert_false(s[i].has_lgrinfo);
		}
	}
	assert_int_equal(smcr, 2);
	assert_int_equal(fallback, 1);
	free(s);

	assert_int_equal(smc_stats_get(nl, &st), 0);
	assert_int_equal(st.smcr.clnt_v2_succ, 2);
	assert_int_equal(st.smcr.srv_v2_succ, 0);
	assert_true(st.smcr.tx_bytes >= 2 * 256 * 1024);
	assert_int_equal(smc_fback_stats_get(nl, &fb), 0);
	assert_int_equal(fb.clnt_total, 1);
	assert_int_equal(fb.srv_total, 0);
	assert_int_equal(fb.n, 1);
	assert_false(fb.entries[0].server);
	assert_int_equal(fb.entries[0].code, 0x03030000);
	smcnl_close(nl);
}

static void test_smcr_init(void **state)
{
	struct smcnl *nl = replay_open("7x-smcr/init");
	struct smcr_linkgroup *g;
	struct smcr_device *d;
	struct smc_socket *s;
	struct smc_stats st;
	size_t n;

	/* Global objects are all there; nothing is named in init_net. */
	assert_int_equal(smcr_linkgroup_list(nl, true, &g, &n), 0);
	assert_int_equal(n, 2);
	assert_link(first_link(lgr_by_role(g, n, ROLE_SERV)), ROLE_SERV, 2, "");
	assert_link(first_link(lgr_by_role(g, n, ROLE_CLNT)), ROLE_CLNT, 2, "");
	smcr_linkgroup_list_free(g, n);
	assert_int_equal(smcr_device_list(nl, &d, &n), 0);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(d[i].ports[0].netdev, "");
	free(d);
	/* Per-netns objects are not: no sockets, no counters. */
	assert_int_equal(smc_socket_list(nl, 0, &s, &n), 0);
	assert_int_equal(n, 0);
	free(s);
	assert_int_equal(smc_stats_get(nl, &st), 0);
	assert_int_equal(st.smcr.srv_v2_succ + st.smcr.clnt_v2_succ, 0);
	assert_int_equal(st.smcr.rx_bytes, 0);
	smcnl_close(nl);
}

static void test_smcr_after_close(void **state)
{
	struct smcnl *nl = replay_open("7x-smcr/after-close");
	struct smcr_linkgroup *g;
	struct smc_socket *s;
	size_t n;

	/* The link groups outlive their connections (freed minutes later), links still up. */
	assert_int_equal(smcr_linkgroup_list(nl, true, &g, &n), 0);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(g[i].conns, 0);
		assert_v2_lgr(&g[i]);
		for (size_t j = 0; j < g[i].n_links; j++) {
			assert_int_equal(g[i].links[j].state, LINK_ACTIVE);
			assert_int_equal(g[i].links[j].conn_cnt, 0);
		}
	}
	smcr_linkgroup_list_free(g, n);
	assert_int_equal(smc_socket_list(nl, 0, &s, &n), 0);
	assert_int_equal(n, 0);
	free(s);
	smcnl_close(nl);
}

static void test_smcr_pnet(void **state)
{
	struct smcnl *nl = replay_open("7x-smcr/pnet");
	struct smc_pnet_entry *e;
	struct smcr_linkgroup *g;
	struct smcr_device *d;
	const struct smcr_linkgroup *srv, *cli;
	const struct smcr_device *x;
	size_t n;

	/* Fresh link groups on the re-added devices: one link each (no alternate device with
	 * the same PNET ID), carrying the PNET ID of their device. */
	assert_int_equal(smcr_linkgroup_list(nl, true, &g, &n), 0);
	assert_int_equal(n, 2);
	srv = lgr_by_role(g, n, ROLE_SERV);
	cli = lgr_by_role(g, n, ROLE_CLNT);
	assert_string_equal(srv->pnetid, "NETA");
	assert_string_equal(cli->pnetid, "NETB");
	for (const struct smcr_linkgroup *y = g; y < g + n; y++) {
		assert_v2_lgr(y);
		assert_int_equal(y->type, LGR_SINGLE);
		assert_string_equal(smc_lgr_type_name(y->type), "SINGLE");
		assert_int_equal(y->n_links, 1);
		assert_int_equal(y->conns, 2);
	}
	assert_link(first_link(srv), ROLE_SERV, 2, "vethA");
	assert_link(first_link(cli), ROLE_CLNT, 2, "");
	smcr_linkgroup_list_free(g, n);

	/* The IB entries of init_net's PNET table set the devices' PNET IDs. */
	assert_int_equal(smcr_device_list(nl, &d, &n), 0);
	x = dev_by_name(d, n, "rxe0");
	assert_true(x->ports[0].pnet.user_defined);
	assert_string_equal(x->ports[0].pnet.pnetid, "NETA");
	assert_string_equal(x->ports[0].netdev, "vethA");
	assert_true(x->is_crit);
	x = dev_by_name(d, n, "rxe1");
	assert_true(x->ports[0].pnet.user_defined);
	assert_string_equal(x->ports[0].pnet.pnetid, "NETB");
	free(d);

	/* smcA's own PNET table: its ETH entry only. */
	assert_int_equal(smc_pnet_list(nl, NULL, &e, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(e[0].pnetid, "NETA");
	assert_string_equal(e[0].eth_name, "vethA");
	assert_string_equal(e[0].ib_name, "");
	free(e);
	smcnl_close(nl);
}

static void test_smcr_pnet_init(void **state)
{
	struct smcnl *nl = replay_open("7x-smcr/pnet-init");
	struct smc_pnet_entry *e;
	size_t n;
	bool lo = false, rxe0 = false, rxe1 = false;

	/* init_net's table: the IB entries (lo's PNET ID that keeps SMC-D out, and the two
	 * RDMA devices'); the ETH entries are in smcA and smcB. */
	assert_int_equal(smc_pnet_list(nl, NULL, &e, &n), 0);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(e[i].eth_name, "");
		assert_int_equal(e[i].ib_port, 1);
		lo |= streq(e[i].ib_name, "lo") && streq(e[i].pnetid, "NOSMCDLO");
		rxe0 |= streq(e[i].ib_name, "rxe0") && streq(e[i].pnetid, "NETA");
		rxe1 |= streq(e[i].ib_name, "rxe1") && streq(e[i].pnetid, "NETB");
	}
	assert_true(lo && rxe0 && rxe1);
	free(e);
	smcnl_close(nl);
}

/*
 * The netdev naming rule on its own (the bug: bare ifindexes resolved in the caller's
 * netns): the recorded SMC replies of smcA with RDMA netlink answers that do not confirm
 * the ifindex - another ifindex, or no netdev at all - name nothing.
 */
static void test_smcr_netdev_needs_rdma_confirmation(void **state)
{
	const struct smcnl_rdma_port ports[] = {
		{ .ib_dev = "rxe0", .port = 1, .ifindex = 7, .netdev = "decoy" },
		{ .ib_dev = "rxe1", .port = 1, .ifindex = 0, .netdev = "" },
	};
	char buf[IF_NAMESIZE];

	smcnl_rdma_netdev_name(ports, 2, "rxe0", 1, 7, buf);
	assert_string_equal(buf, "decoy");
	smcnl_rdma_netdev_name(ports, 2, "rxe0", 1, 3, buf); /* SMC says 3: not this one */
	assert_string_equal(buf, "");
	smcnl_rdma_netdev_name(ports, 2, "rxe0", 2, 7, buf); /* other port */
	assert_string_equal(buf, "");
	smcnl_rdma_netdev_name(ports, 2, "rxe1", 1, 2, buf); /* netdev in another netns */
	assert_string_equal(buf, "");
	smcnl_rdma_netdev_name(ports, 2, "rxe1", 1, 0, buf);
	assert_string_equal(buf, "");
	smcnl_rdma_netdev_name(ports, 2, "mlx5_0", 1, 7, buf);
	assert_string_equal(buf, "");
}

/* A recording made before the RDMA query existed (synthetic/smcr): no names, no error. */
static void test_smcr_netdev_without_rdma_replies(void **state)
{
	struct smcnl *nl = replay_open("synthetic/smcr");
	struct smcnl_rdma_port *ports;
	struct smcr_device *d;
	struct smcr_linkgroup *g;
	size_t n;

	assert_int_equal(smcnl_rdma_ports(nl, &ports, &n), -ENODATA);
	assert_int_equal(smcr_device_list(nl, &d, &n), 0);
	assert_true(n > 0);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(d[i].ports[0].netdev, "");
		assert_string_equal(d[i].ports[1].netdev, "");
		assert_false(d[i].ports[0].has_gid_types); /* no sysfs snapshot of them */
	}
	free(d);
	assert_int_equal(smcr_linkgroup_list(nl, true, &g, &n), 0);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < g[i].n_links; j++)
			assert_string_equal(g[i].links[j].netdev, "");
	smcr_linkgroup_list_free(g, n);
	smcnl_close(nl);
}

/* ---- smcr_reach_list() over the recorded replies ------------------------------------------ */

struct nl_link {
	uint32_t index;
	const char *name;
};

/*
 * An RTM_GETLINK dump answering links (the recordings predate that request; the RDMA,
 * SMC and PNET replies are the recorded ones): RTM_NEWLINK messages, then DONE.
 */
static size_t rtnl_reply(uint8_t *buf, size_t size, const struct nl_link *v, size_t n)
{
	size_t off = 0;

	for (size_t i = 0; i < n; i++) {
		size_t name = strlen(v[i].name) + 1, attr = NLA_HDRLEN + name;
		struct nlmsghdr h = {
			.nlmsg_len = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct ifinfomsg)) +
				     NLA_ALIGN(attr),
			.nlmsg_type = RTM_NEWLINK,
			.nlmsg_flags = NLM_F_MULTI,
			.nlmsg_seq = 1,
		};
		struct ifinfomsg ifi = { .ifi_index = (int)v[i].index };
		struct nlattr a = { .nla_len = (uint16_t)attr, .nla_type = IFLA_IFNAME };

		assert_true(off + h.nlmsg_len <= size);
		memset(buf + off, 0, h.nlmsg_len);
		memcpy(buf + off, &h, sizeof(h));
		memcpy(buf + off + NLMSG_HDRLEN, &ifi, sizeof(ifi));
		memcpy(buf + off + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(ifi)), &a, sizeof(a));
		memcpy(buf + off + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(ifi)) + NLA_HDRLEN, v[i].name,
		       name);
		off += h.nlmsg_len;
	}
	{
		struct nlmsghdr h = { .nlmsg_len = NLMSG_HDRLEN + sizeof(int),
				      .nlmsg_type = NLMSG_DONE,
				      .nlmsg_flags = NLM_F_MULTI,
				      .nlmsg_seq = 1 };

		assert_true(off + h.nlmsg_len <= size);
		memset(buf + off, 0, h.nlmsg_len);
		memcpy(buf + off, &h, sizeof(h));
		off += h.nlmsg_len;
	}
	return off;
}

static struct smcr_reach *reach_of(const char *step, const struct nl_link *links, size_t n_links,
				   size_t *ret_n)
{
	static uint8_t buf[1024];
	struct smcnl *nl = replay_open(step);
	struct smcr_reach *v;
	size_t len = rtnl_reply(buf, sizeof(buf), links, n_links);

	assert_int_equal(smcnl_replay_mem(nl, "rtnl-getlink", buf, len), 0);
	assert_int_equal(smcr_reach_list(nl, &v, ret_n), 0);
	smcnl_close(nl);
	return v;
}

static const struct smcr_reach *reach_find(const struct smcr_reach *v, size_t n, const char *netdev)
{
	for (size_t i = 0; i < n; i++)
		if (streq(v[i].netdev, netdev))
			return &v[i];
	return NULL;
}

/*
 * The bug this guards against: the netns of smcctl was asked which netdev NAMES have an
 * RDMA device, and every other netns's interface of that name was taken for it.  Here
 * init_net holds netdevs named vethA and vethB with the very ifindexes rxe0's and rxe1's
 * netdevs have in smcA and smcB (what SMC reports): RDMA netlink does not report those
 * ports' netdevs to init_net, so neither can carry SMC-R from here.
 */
static void test_smcr_reach_same_name_elsewhere(void **state)
{
	const struct nl_link links[] = { { 1, "lo" }, { 3, "vethA" }, { 2, "vethB" } };
	struct smcr_reach *v;
	size_t n;

	v = reach_of("7x-smcr/idle", links, ELEMENTSOF(links), &n);
	assert_int_equal(n, 0);
	free(v);
}

/* smcA: vethA is rxe0's netdev (RDMA netlink says so there); vethB's name means nothing. */
static void test_smcr_reach_server(void **state)
{
	const struct nl_link links[] = { { 1, "lo" }, { 3, "vethA" }, { 2, "vethB" } };
	const struct smcr_reach *r;
	struct smcr_reach *v;
	size_t n;

	v = reach_of("7x-smcr/server", links, ELEMENTSOF(links), &n);
	assert_int_equal(n, 1);
	r = reach_find(v, n, "vethA");
	assert_non_null(r);
	assert_int_equal(r->ifindex, 3);
	assert_string_equal(r->ib_dev, "rxe0");
	assert_int_equal(r->ib_port, 1);
	assert_string_equal(r->pnetid, "");
	assert_string_equal(r->lower, "");
	assert_false(r->lower_elsewhere);
	free(v);
}

/* smcA with PNET IDs: vethA's (NETA, smcA's table) is rxe0's (GET_DEV_SMCR). */
static void test_smcr_reach_pnet(void **state)
{
	const struct nl_link links[] = { { 1, "lo" }, { 3, "vethA" } };
	const struct smcr_reach *r;
	struct smcr_reach *v;
	size_t n;

	v = reach_of("7x-smcr/pnet", links, ELEMENTSOF(links), &n);
	assert_int_equal(n, 1);
	r = reach_find(v, n, "vethA");
	assert_non_null(r);
	assert_string_equal(r->pnetid, "NETA");
	assert_string_equal(r->ib_dev, "rxe0");
	assert_int_equal(r->ib_port, 1);
	free(v);
}

/* No RDMA core (7x/idle has no /sys/class/infiniband): RDMA netlink is not asked at all
 * (it would autoload ib_core; the recording has no reply for it). */
static void test_smcr_reach_no_rdma(void **state)
{
	const struct nl_link links[] = { { 1, "lo" }, { 2, "eth0" } };
	struct smcr_reach *v;
	size_t n;

	v = reach_of("7x/idle", links, ELEMENTSOF(links), &n);
	assert_int_equal(n, 0);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_smcr_idle),
		cmocka_unit_test(test_smcr_server),
		cmocka_unit_test(test_smcr_client),
		cmocka_unit_test(test_smcr_init),
		cmocka_unit_test(test_smcr_after_close),
		cmocka_unit_test(test_smcr_pnet),
		cmocka_unit_test(test_smcr_pnet_init),
		cmocka_unit_test(test_smcr_netdev_needs_rdma_confirmation),
		cmocka_unit_test(test_smcr_netdev_without_rdma_replies),
		cmocka_unit_test(test_smcr_reach_same_name_elsewhere),
		cmocka_unit_test(test_smcr_reach_server),
		cmocka_unit_test(test_smcr_reach_pnet),
		cmocka_unit_test(test_smcr_reach_no_rdma),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
