// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Shapes no QEMU lane can record, from tests/fixtures/synthetic/generate: SMC-R link groups
 * (with a re-sent link group), the 6.1 attribute set, 8-byte "uint" values with pad and
 * unknown attributes, fallback totals split, kernel error shapes and malformed replies;
 * an ISM device merged with its DIBS entry, and the DIBS class read once in a snapshot.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/inet_diag.h>
#include <linux/sock_diag.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "netlink/smcnl-internal.h"
#include "tests/unit/netlink-test-util.h"

/* The end of a dump. */
static const struct {
	struct nlmsghdr h;
	int e;
} done = { .h = { .nlmsg_len = sizeof(done), .nlmsg_type = NLMSG_DONE, .nlmsg_flags = NLM_F_MULTI } };

static const struct smcr_linkgroup *lgr_by_id(const struct smcr_linkgroup *v, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].id == id)
			return &v[i];
	return NULL;
}

static void test_smcr_links(void **state)
{
	struct smcnl *nl = replay_open("synthetic/smcr");
	const struct smcr_linkgroup *g;
	struct smcr_linkgroup *v;
	size_t n;

	assert_int_equal(smcr_linkgroup_list(nl, true, &v, &n), 0);
	assert_int_equal(n, 3);
	g = lgr_by_id(v, n, 0x100);
	assert_non_null(g);
	assert_int_equal(g->n_links, 2);
	assert_int_equal(g->conns, 3);
	assert_string_equal(smc_lgr_role_name(g->role), "CLNT");
	assert_string_equal(smc_lgr_type_name(g->type), "SINGLE");
	assert_true(g->has_buf_type);
	assert_string_equal(smc_buf_type_name(g->buf_type), "physical");
	assert_true(g->has_net_cookie);
	assert_int_equal(g->net_cookie, 0x1122334455667788ULL);
	assert_string_equal(g->pnetid, "PNET1");
	assert_true(g->has_alloc);
	assert_int_equal(g->sndbuf_alloc, 0x100000000ULL + 65536); /* 8-byte uint */
	assert_int_equal(g->rmb_alloc, 524288);			   /* 4-byte uint */
	assert_true(g->v2.present);
	assert_string_equal(g->v2.neg_eid, "SMCD-AGENT-TEST");
	assert_string_equal(g->v2.peer_host, "peer-host");
	assert_true(g->has_v2r && g->direct);
	assert_int_equal(g->max_conns, 255);
	assert_int_equal(g->max_links, 2);
	assert_int_equal(g->links[0].id, 1);
	assert_int_equal(g->links[0].state, 3);
	assert_string_equal(smc_link_state_name(g->links[0].state), "ACTIVE");
	assert_int_equal(g->links[0].conn_cnt, 2);
	assert_string_equal(g->links[0].ib_dev, "rxe0");
	assert_int_equal(g->links[0].netdev_ifindex, 2);
	assert_string_equal(g->links[0].netdev, ""); /* never resolved while replaying */
	assert_string_equal(g->links[0].gid, "fe80:0000:0000:0000:5054:00ff:fe12:3401");
	assert_int_equal(g->links[1].ib_port, 2);

	/* 0x200 came twice (the first batch ended inside it): one entry, links not doubled */
	g = lgr_by_id(v, n, 0x200);
	assert_non_null(g);
	assert_int_equal(g->n_links, 2);
	assert_false(g->v2.present);
	assert_false(g->has_v2r);
	assert_string_equal(smc_lgr_role_name(g->role), "SERV");

	g = lgr_by_id(v, n, 0x300);
	assert_non_null(g);
	assert_int_equal(g->n_links, 0);
	smcr_linkgroup_list_free(v, n);

	assert_int_equal(smcr_linkgroup_list(nl, false, &v, &n), 0);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(v[i].n_links, 0);
	smcr_linkgroup_list_free(v, n);
	smcnl_close(nl);
}

static void test_smcr_devices_sockets_pnet(void **state)
{
	struct smcnl *nl = replay_open("synthetic/smcr");
	struct smcr_device *d;
	struct smc_socket *s;
	struct smc_pnet_entry *e;
	struct in_addr a;
	size_t n;

	assert_int_equal(smcr_device_list(nl, &d, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(d[0].ib_name, "mlx5_0");
	assert_true(d[0].has_pci && d[0].is_crit);
	assert_string_equal(d[0].pci_id, "0000:00:04.0");
	assert_int_equal(d[0].pci_vendor, 0x15b3);
	assert_int_equal(d[0].pci_device, 0x1016);
	assert_int_equal(d[0].pci_chid, 0x3c4);
	assert_true(d[0].ports[0].valid && d[0].ports[0].active);
	assert_true(d[0].ports[0].pnet.user_defined);
	assert_string_equal(d[0].ports[0].pnet.pnetid, "NET1");
	assert_int_equal(d[0].ports[0].link_cnt, 2);
	assert_true(d[0].ports[1].valid);
	assert_false(d[0].ports[1].active);
	assert_string_equal(d[1].ib_name, "rxe0");
	assert_false(d[1].has_pci); /* no parent: no PCI attributes */
	assert_false(d[1].ports[1].valid);
	free(d);

	assert_int_equal(smc_socket_list(nl,
					 SMC_DIAG_WANT_CONNINFO | SMC_DIAG_WANT_LGRINFO |
						 SMC_DIAG_WANT_DMBINFO,
					 &s, &n),
			 0);
	assert_int_equal(n, 2);
	assert_int_equal(s[0].addr_family, AF_INET);
	assert_int_equal(inet_pton(AF_INET, "192.0.2.1", &a), 1);
	assert_int_equal(s[0].src.s6_addr32[0], a.s_addr);
	assert_int_equal(s[0].sport, 40000);
	assert_int_equal(s[0].dport, 5201);
	assert_int_equal(s[0].uid, 1000);
	assert_int_equal(s[0].inode, 4711);
	assert_int_equal(s[0].ifindex, 2);
	assert_true(s[0].has_conninfo);
	assert_int_equal(s[0].conn.token, 0x1234);
	assert_int_equal(s[0].conn.peer_rmbe_size, 131072);
	assert_int_equal(s[0].conn.tx_prod.wrap, 2);
	assert_int_equal(s[0].conn.tx_prod.count, 4000);
	assert_int_equal(s[0].conn.tx_fin.count, 3000);
	assert_int_equal(s[0].conn.tx_prod_flags, 3);
	assert_true(s[0].has_lgrinfo);
	assert_string_equal(s[0].lgr.ibname, "rxe0");
	assert_string_equal(s[0].lgr.peer_gid, "fe80:0000:0000:0000:5054:00ff:fe56:7801");
	assert_false(s[0].has_dmbinfo);
	/* an IPv6 listener on ::1: only word 3 of the address is set */
	assert_int_equal(s[1].addr_family, AF_INET6);
	assert_true(IN6_IS_ADDR_LOOPBACK(&s[1].src));
	assert_string_equal(smc_sock_state_name(s[1].state), "LISTEN");
	free(s);

	assert_int_equal(smc_pnet_list(nl, "net1", &e, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(e[0].eth_name, "eth0");
	assert_int_equal(e[0].ib_port, 0);
	assert_string_equal(e[1].ib_name, "rxe0");
	assert_int_equal(e[1].ib_port, 1);
	free(e);
	smcnl_close(nl);
}

static int mkdir_p(const char *path)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	return mkdir(p, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

/* An attribute into buf at *off (aligned), returning where its payload starts. */
static size_t put_attr(uint8_t *buf, size_t *off, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)(buf + *off);
	size_t at = *off + NLA_HDRLEN;

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	if (data)
		memcpy(buf + at, data, len);
	*off = NLMSG_ALIGN(at + len);
	return at;
}

/*
 * A DIBS class in a sysroot of dir: "lo" (loopback) and "ism0", whose device link names
 * the PCI function 0000:00:05.0, and the GET_DEV_SMCD dump of that ISM function (s390
 * only: no lane records one).  The class is written as DIBS presents it in 6.18+.
 */
static void ism_host(const char *dir, struct smcnl *nl, bool lgr)
{
	static const char gid_lo[] = "d7d37ede-b4be-476e-b3a2-d5ecca87aa01\n";
	static const char gid_ism[] = "11111111-2222-4333-8444-555555555555\n";
	static const char pci[] = "0000:00:05.0";
	static uint8_t dump[256], sysinfo[256];
	static const struct {
		struct nlmsghdr h;
		struct nlmsgerr e;
	} ack = { .h = { .nlmsg_len = sizeof(ack),
			 .nlmsg_type = NLMSG_ERROR,
			 .nlmsg_flags = NLM_F_CAPPED },
		  .e = { .msg = { .nlmsg_len = NLMSG_HDRLEN } } };
	uint8_t ver = 2, rel = 1;
	char path[1024];
	uint32_t zero = 0;
	size_t off = NLMSG_HDRLEN + GENL_HDRLEN, nest;
	struct genlmsghdr *g = (struct genlmsghdr *)(dump + NLMSG_HDRLEN);

	snprintf(path, sizeof(path), "%s/sysroot/sys/class/dibs/lo", dir);
	assert_int_equal(mkdir_p(path), 0);
	write_text(path, "gid", gid_lo);
	write_text(path, "fabric_id", "0xffff\n");
	snprintf(path, sizeof(path), "%s/sysroot/sys/class/dibs/ism0", dir);
	assert_int_equal(mkdir_p(path), 0);
	write_text(path, "gid", gid_ism);
	write_text(path, "fabric_id", "0x0123\n");
	snprintf(path, sizeof(path), "%s/sysroot/sys/class/dibs/ism0/device", dir);
	assert_true(symlink("../../../devices/pci0000:00/0000:00:05.0", path) == 0 ||
		    errno == EEXIST);

	memset(dump, 0, sizeof(dump));
	g->cmd = SMC_NETLINK_GET_DEV_SMCD;
	g->version = 1;
	nest = off;
	put_attr(dump, &off, SMC_GEN_DEV_SMCD | NLA_F_NESTED, NULL, 0);
	put_attr(dump, &off, SMC_NLA_DEV_USE_CNT, &zero, sizeof(zero));
	put_attr(dump, &off, SMC_NLA_DEV_PCI_ID, pci, sizeof(pci));
	((struct nlattr *)(dump + nest))->nla_len = (uint16_t)(off - nest);
	*(struct nlmsghdr *)dump = (struct nlmsghdr){ .nlmsg_len = (uint32_t)off,
						      .nlmsg_type = GENL_MIN_ID,
						      .nlmsg_flags = NLM_F_MULTI };
	memcpy(dump + off, &done, sizeof(done));
	off += sizeof(done);
	assert_int_equal(smcnl_replay_mem(nl, "smc-genl-get-dev-smcd", dump, off), 0);
	/* No link groups: an empty dump (without it, a dump asked for is -ENODATA). */
	if (lgr)
		assert_int_equal(smcnl_replay_mem(nl, "smc-genl-get-lgr-smcd", &done, sizeof(done)),
				 0);
	/* For the capability probe: SMC 2.1, ISMv2; smc_diag acknowledges. */
	g = (struct genlmsghdr *)(sysinfo + NLMSG_HDRLEN);
	g->cmd = SMC_NETLINK_GET_SYS_INFO;
	g->version = 1;
	off = NLMSG_HDRLEN + GENL_HDRLEN;
	nest = off;
	put_attr(sysinfo, &off, SMC_GEN_SYS_INFO | NLA_F_NESTED, NULL, 0);
	put_attr(sysinfo, &off, SMC_NLA_SYS_VER, &ver, 1);
	put_attr(sysinfo, &off, SMC_NLA_SYS_REL, &rel, 1);
	put_attr(sysinfo, &off, SMC_NLA_SYS_IS_ISM_V2, &rel, 1);
	((struct nlattr *)(sysinfo + nest))->nla_len = (uint16_t)(off - nest);
	*(struct nlmsghdr *)sysinfo = (struct nlmsghdr){ .nlmsg_len = (uint32_t)off,
							 .nlmsg_type = GENL_MIN_ID,
							 .nlmsg_flags = NLM_F_MULTI };
	memcpy(sysinfo + off, &done, sizeof(done));
	off += sizeof(done);
	assert_int_equal(smcnl_replay_mem(nl, "smc-genl-get-sys-info", sysinfo, off), 0);
	assert_int_equal(smcnl_replay_mem(nl, "sock-diag-probe", &ack, sizeof(ack)), 0);
}

/*
 * ISM: the DIBS device whose parent is the PCI function of a netlink device is that
 * device (one, named from sysfs, with the netlink data): the device link is read when the
 * netlink dump listed a device to match.
 */
static void test_ism_merge(void **state)
{
	char *dir = tmpdir_new();
	struct smcnl *nl = replay_open_abs(dir);
	struct smcd_device *d;
	size_t n;

	ism_host(dir, nl, true);
	assert_int_equal(smcd_device_list(nl, &d, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(d[0].name, "ism0");
	assert_string_equal(d[0].pci_id, "0000:00:05.0");
	assert_int_equal(d[0].seen, SMCD_SEEN_NETLINK | SMCD_SEEN_DIBS);
	assert_int_equal(d[0].fabric_id, 0x123);
	assert_false(d[0].loopback);
	assert_string_equal(d[1].name, "lo");
	assert_int_equal(d[1].seen, SMCD_SEEN_DIBS);
	assert_true(d[1].loopback);
	free(d);
	smcnl_close(nl);

	/* Without SMCD_LIST_LINKGROUPS: the same devices, no link group dump asked. */
	nl = replay_open_abs(dir);
	ism_host(dir, nl, false);
	assert_int_equal(smcd_device_list(nl, &d, &n), -ENODATA);
	assert_int_equal(smcd_device_list_flags(nl, 0, &d, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(d[0].name, "ism0");
	assert_true(d[1].loopback);
	free(d);
	smcnl_close(nl);
	tmpdir_remove(dir);
}

/*
 * smcnl_snapshot_begin(): the device list and the capability probe read the DIBS class
 * once (a device gone in between is still there for the probe); a file the snapshot has
 * not read yet (the ISM device's link) is read for its devices; after the end the class
 * is read anew.
 */
static void test_dibs_snapshot(void **state)
{
	char *dir = tmpdir_new(), path[1024];
	struct smcnl *nl = replay_open_abs(dir);
	struct smcd_device *d;
	struct smc_caps caps;
	size_t n;

	ism_host(dir, nl, true);
	smcnl_snapshot_begin(nl);
	assert_int_equal(smcd_device_list_flags(nl, 0, &d, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(d[1].gid, ""); /* not asked for */
	free(d);
	/* lo goes away: the snapshot still has it */
	snprintf(path, sizeof(path), "%s/sysroot/sys/class/dibs/lo/gid", dir);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/sysroot/sys/class/dibs/lo/fabric_id", dir);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/sysroot/sys/class/dibs/lo", dir);
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(smc_caps_probe(nl, &caps), 0);
	assert_true(caps.dibs && caps.loopback);
	assert_int_equal(smcd_device_list(nl, &d, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(d[0].name, "ism0");
	assert_string_equal(d[0].gid, "11111111-2222-4333-8444-555555555555");
	assert_int_equal(d[0].seen, SMCD_SEEN_NETLINK | SMCD_SEEN_DIBS);
	assert_string_equal(d[1].name, "lo");
	free(d);
	smcnl_snapshot_end(nl);
	assert_int_equal(smcd_device_list(nl, &d, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(d[0].name, "ism0");
	free(d);
	assert_int_equal(smc_caps_probe(nl, &caps), 0);
	assert_true(caps.dibs);
	assert_false(caps.loopback);
	smcnl_close(nl);
	tmpdir_remove(dir);
}

static void test_v61_shape(void **state)
{
	struct smcnl *nl = replay_open("synthetic/v61");
	struct smc_sysinfo info;
	struct smcd_linkgroup *g;
	struct smc_stats st;
	struct smc_socket *s;
	size_t n, dmb = 0;

	assert_int_equal(smc_sysinfo_get(nl, &info), 0);
	assert_int_equal(info.rel, 0);
	assert_int_equal(smcd_linkgroup_list(nl, &g, &n), 0);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		assert_false(g[i].has_ext_gid);
		assert_int_equal(g[i].ext_gid, 0);
		assert_false(g[i].has_alloc);
		assert_true(g[i].v2.present);
		/* no /sys/class/dibs and CHID 0xFFFF: the in-smc.ko loopback of 6.10-6.17 */
		assert_string_equal(g[i].device, "loopback-ism");
	}
	free(g);
	assert_int_equal(smc_stats_get(nl, &st), 0);
	assert_false(st.smcd.has_rmb_usage);
	assert_true(st.smcd.rx_bytes > 0);
	assert_int_equal(smc_socket_list(nl,
					 SMC_DIAG_WANT_CONNINFO | SMC_DIAG_WANT_LGRINFO |
						 SMC_DIAG_WANT_DMBINFO,
					 &s, &n),
			 0);
	for (size_t i = 0; i < n; i++) {
		if (!s[i].has_dmbinfo)
			continue;
		dmb++;
		assert_false(s[i].dmb.has_ext); /* 40-byte smcd_diag_dmbinfo */
		assert_int_equal(s[i].dmb.my_gid_ext, 0);
		assert_true(s[i].dmb.my_gid != 0 && s[i].dmb.token != 0);
	}
	assert_int_equal(dmb, 8);
	free(s);
	smcnl_close(nl);
}

/* The same link groups and stats as 7x/loopback: only the widened values differ. */
static void test_wide_uint_pad_unknown(void **state)
{
	struct smcnl *real = replay_open("7x/loopback"), *wide = replay_open("synthetic/wide");
	struct smcd_linkgroup *a, *b;
	struct smc_stats sa, sb;
	size_t na, nb;

	assert_int_equal(smcd_linkgroup_list(real, &a, &na), 0);
	assert_int_equal(smcd_linkgroup_list(wide, &b, &nb), 0);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(b[i].dmb_alloc, a[i].dmb_alloc + (5ULL << 32));
		assert_int_equal(b[i].sndbuf_alloc, a[i].sndbuf_alloc + (5ULL << 32));
		assert_int_equal(b[i].id, a[i].id);
		assert_int_equal(b[i].gid, a[i].gid);
		assert_int_equal(b[i].ext_gid, a[i].ext_gid);
		assert_int_equal(b[i].peer_gid, a[i].peer_gid);
		assert_int_equal(b[i].peer_ext_gid, a[i].peer_ext_gid);
		assert_int_equal(b[i].conns, a[i].conns);
		assert_int_equal(b[i].chid, a[i].chid);
		assert_true(b[i].has_ext_gid && b[i].has_alloc && b[i].v2.present);
		assert_string_equal(b[i].v2.neg_eid, a[i].v2.neg_eid);
		assert_string_equal(b[i].v2.peer_host, a[i].v2.peer_host);
		assert_int_equal(b[i].v2.os, a[i].v2.os);
	}
	free(a);
	free(b);
	assert_int_equal(smc_stats_get(real, &sa), 0);
	assert_int_equal(smc_stats_get(wide, &sb), 0);
	assert_int_equal(sb.smcd.rx_rmb_usage, sa.smcd.rx_rmb_usage + (7ULL << 32));
	assert_int_equal(sb.smcd.tx_rmb_usage, sa.smcd.tx_rmb_usage + (7ULL << 32));
	assert_int_equal(sb.smcr.rx_rmb_usage, sa.smcr.rx_rmb_usage + (7ULL << 32));
	/* everything before the gauges: histograms, buffer events, counters */
	assert_memory_equal(&sa.smcd, &sb.smcd, offsetof(struct smc_stats_tech, has_rmb_usage));
	assert_memory_equal(&sa.smcr, &sb.smcr, offsetof(struct smc_stats_tech, has_rmb_usage));
	assert_int_equal(sa.clnt_hs_err, sb.clnt_hs_err);
	assert_int_equal(sa.srv_hs_err, sb.srv_hs_err);
	smcnl_close(real);
	smcnl_close(wide);
}

static void test_fback_clnt_only(void **state)
{
	struct smcnl *nl = replay_open("synthetic/fback-clnt-only");
	struct smc_fback_stats fb;

	/* smc-tools tests SRV_CNT and reads CLNT_CNT: each total is read on its own here */
	assert_int_equal(smc_fback_stats_get(nl, &fb), 0);
	assert_int_equal(fb.srv_total, 0);
	assert_int_equal(fb.clnt_total, 70000);
	assert_int_equal(fb.n, 2);
	assert_false(fb.entries[0].server);
	assert_int_equal(fb.entries[0].code, 0x03030008);
	assert_int_equal(fb.entries[0].count, 4464);
	assert_true(fb.entries[1].server);
	assert_int_equal(fb.entries[1].count, 65535);
	smcnl_close(nl);
}

static void test_errors(void **state)
{
	struct smcd_linkgroup *g = NULL;
	struct smcnl *nl;
	size_t n;

	/* NLMSG_ERROR after a data message: the kernel's errno and extack, nothing leaked */
	nl = replay_open("synthetic/errors/error-mid-dump");
	assert_int_equal(smcd_linkgroup_list(nl, &g, &n), -ENOBUFS);
	assert_string_equal(smcnl_extack(nl), "test: dump failed");
	smcnl_close(nl);

	/* a dumpit failing: the error code in NLMSG_DONE's payload */
	nl = replay_open("synthetic/errors/done-with-error");
	assert_int_equal(smcd_linkgroup_list(nl, &g, &n), -EMSGSIZE);
	assert_string_equal(smcnl_extack(nl), "test: message too long");
	smcnl_close(nl);

	/* s390: the last UEID removed, the SEID active again - a success, said as 1 */
	nl = replay_open("synthetic/errors/s390-ueid-del-last");
	assert_int_equal(smc_ueid_del(nl, "LAST"), 1);
	smcnl_close(nl);

	/* older kernels: flushing an empty PNET table said -ENOENT - still a success */
	nl = replay_open("synthetic/errors/pnet-flush-enoent");
	assert_int_equal(smc_pnet_flush(nl), 0);
	smcnl_close(nl);

	/* without NETLINK_CAP_ACK the request is echoed before the TLVs */
	nl = replay_open("synthetic/errors/uncapped-ack");
	assert_int_equal(smc_ueid_add(nl, "ABC"), -ERANGE);
	assert_string_equal(smcnl_extack(nl), "Attribute failed policy validation");
	smcnl_close(nl);
}

struct malformed {
	const char *dir;
	int (*call)(struct smcnl *nl);
};

static int call_lgr_d(struct smcnl *nl)
{
	struct smcd_linkgroup *g = NULL;
	size_t n;
	int r = smcd_linkgroup_list(nl, &g, &n);

	if (r == 0)
		free(g);
	return r;
}

static int call_link_r(struct smcnl *nl)
{
	struct smcr_linkgroup *g = NULL;
	size_t n;
	int r = smcr_linkgroup_list(nl, true, &g, &n);

	if (r == 0)
		smcr_linkgroup_list_free(g, n);
	return r;
}

static int call_sysinfo(struct smcnl *nl)
{
	struct smc_sysinfo i;

	return smc_sysinfo_get(nl, &i);
}

static int call_ueids(struct smcnl *nl)
{
	char v[SMC_UEID_MAX][SMC_EID_LEN + 1];
	size_t n;

	return smc_ueid_list(nl, v, &n);
}

static int call_sockets(struct smcnl *nl, unsigned want)
{
	struct smc_socket *s = NULL;
	size_t n;
	int r = smc_socket_list(nl, want, &s, &n);

	if (r == 0)
		free(s);
	return r;
}

static int call_sockets_0(struct smcnl *nl)
{
	return call_sockets(nl, 0);
}

static int call_sockets_all(struct smcnl *nl)
{
	return call_sockets(nl,
			    SMC_DIAG_WANT_CONNINFO | SMC_DIAG_WANT_LGRINFO | SMC_DIAG_WANT_DMBINFO);
}

static void test_malformed(void **state)
{
	static const struct malformed cases[] = {
		{ "truncated-msg", call_lgr_d },      { "no-done", call_lgr_d },
		{ "bad-nla-len", call_lgr_d },	      { "long-string", call_lgr_d },
		{ "int-width", call_lgr_d },	      { "u8-overflow", call_lgr_d },
		{ "lgr-without-id", call_lgr_d },     { "no-genl-header", call_sysinfo },
		{ "link-before-lgr", call_link_r },   { "ueid-overflow", call_ueids },
		{ "short-diag-msg", call_sockets_0 }, { "short-dmbinfo", call_sockets_all },
	};
	char rel[128];

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct smcnl *nl;

		snprintf(rel, sizeof(rel), "synthetic/malformed/%s", cases[i].dir);
		nl = replay_open(rel);
		if (cases[i].call(nl) != -EBADMSG)
			fail_msg("%s: expected -EBADMSG", cases[i].dir);
		smcnl_close(nl);
	}
}

/* A TCP socket of inet_diag (tcpdiag.c) into buf at *off: header, INET_DIAG_INFO, cgroup. */
static void put_tcp_msg(uint8_t *buf, size_t *off, uint16_t type, uint32_t inode, uint64_t cgroup)
{
	size_t start = *off, at = *off + NLMSG_HDRLEN;
	struct inet_diag_msg m = { .idiag_family = AF_INET, .idiag_state = 1, .idiag_inode = inode };
	uint8_t info[160] = { 0 };
	uint64_t acked = 1000, received = 2000;
	uint32_t segs = 7;

	m.id.idiag_sport = htons(4000);
	m.id.idiag_dport = htons(80);
	m.id.idiag_src[0] = htonl(0x7f000001);
	memcpy(info + 120, &acked, 8);
	memcpy(info + 128, &received, 8);
	memcpy(info + 156, &segs, 4);
	memcpy(buf + at, &m, sizeof(m));
	*off = at + NLMSG_ALIGN(sizeof(m));
	put_attr(buf, off, INET_DIAG_INFO, info, sizeof(info));
	put_attr(buf, off, INET_DIAG_CGROUP_ID, &cgroup, sizeof(cgroup));
	*(struct nlmsghdr *)(buf + start) = (struct nlmsghdr){ .nlmsg_len = (uint32_t)(*off - start),
							       .nlmsg_type = type,
							       .nlmsg_flags = NLM_F_MULTI };
}

/*
 * inet_diag's TCP sockets (smcctl assess without BPF): the header and attributes through
 * the sock_diag reader smc_diag shares, a message of another type skipped, a header cut
 * short refused.
 */
static void test_tcp_diag(void **state)
{
	static uint8_t dump[1024];
	struct smcnl *nl = replay_open_abs("/nonexistent");
	struct tcp_conn *v;
	size_t off = 0, n;

	put_tcp_msg(dump, &off, SOCK_DIAG_BY_FAMILY, 11, 0x1234);
	put_tcp_msg(dump, &off, NLMSG_MIN_TYPE + 100, 12, 0); /* not a socket: skipped */
	put_tcp_msg(dump, &off, SOCK_DIAG_BY_FAMILY, 13, 0);
	memcpy(dump + off, &done, sizeof(done));
	assert_int_equal(smcnl_replay_mem(nl, "tcp-diag-4", dump, off + sizeof(done)), 0);
	assert_int_equal(smcnl_replay_mem(nl, "tcp-diag-6", &done, sizeof(done)), 0);
	assert_int_equal(tcp_conn_list(nl, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].inode, 11);
	assert_int_equal(v[0].family, AF_INET);
	assert_int_equal(v[0].sport, 4000);
	assert_int_equal(v[0].dport, 80);
	assert_int_equal(v[0].cgroup_id, 0x1234);
	assert_int_equal(v[0].bytes_acked, 1000);
	assert_int_equal(v[0].bytes_received, 2000);
	assert_int_equal(v[0].data_segs_out, 7);
	assert_int_equal(v[1].inode, 13);
	free(v);
	smcnl_close(nl);

	/* A message shorter than struct inet_diag_msg. */
	nl = replay_open_abs("/nonexistent");
	*(struct nlmsghdr *)dump = (struct nlmsghdr){ .nlmsg_len = NLMSG_HDRLEN + 8,
						      .nlmsg_type = SOCK_DIAG_BY_FAMILY,
						      .nlmsg_flags = NLM_F_MULTI };
	off = NLMSG_HDRLEN + 8;
	memcpy(dump + off, &done, sizeof(done));
	assert_int_equal(smcnl_replay_mem(nl, "tcp-diag-4", dump, off + sizeof(done)), 0);
	assert_int_equal(tcp_conn_list(nl, &v, &n), -EBADMSG);
	smcnl_close(nl);
}

static const struct smcr_reach *reach_find(const struct smcr_reach *v, size_t n, const char *netdev)
{
	for (size_t i = 0; i < n; i++)
		if (streq(v[i].netdev, netdev))
			return &v[i];
	return NULL;
}

static void assert_reach(const struct smcr_reach *v, size_t n, const char *netdev,
			 const char *ib_dev, unsigned port, const char *lower, const char *pnetid)
{
	const struct smcr_reach *r = reach_find(v, n, netdev);

	if (!r)
		fail_msg("%s is not listed", netdev);
	assert_string_equal(r->ib_dev, ib_dev);
	assert_int_equal(r->ib_port, port);
	assert_string_equal(r->lower, lower);
	assert_string_equal(r->pnetid, pnetid);
	assert_false(r->lower_elsewhere);
}

/* Every case of SMC-R's choice of a port for a netdev (tests/fixtures/synthetic/generate). */
static void test_smcr_reach(void **state)
{
	struct smcnl *nl = replay_open("synthetic/smcr-reach");
	const struct smcr_reach *r;
	struct smcr_reach *v;
	size_t n;

	assert_int_equal(smcr_reach_list(nl, &v, &n), 0);
	/* the port whose netdev it is, and what sits on that netdev */
	assert_reach(v, n, "eth0", "mlx5_0", 1, "", "");
	assert_reach(v, n, "eth0.100", "mlx5_0", 1, "eth0", "");
	/* a bond: its first port's (the ports themselves: their own) */
	assert_reach(v, n, "bond0", "mlx5_1", 1, "eth1", "");
	assert_reach(v, n, "eth2", "mlx5_1", 2, "", "");
	/* a PNET ID: the port with that PNET ID (its netdev elsewhere), not its own port */
	assert_reach(v, n, "eth3", "mlx5_3", 1, "", "NET1");
	/* a PNET ID no port has: listed with it, without a port */
	assert_reach(v, n, "eth4", "", 0, "", "NET9");
	/* a port down, an iWARP device (no channel adapter: SMC does not take it), veths */
	assert_null(reach_find(v, n, "eth5"));
	assert_null(reach_find(v, n, "eth6"));
	assert_null(reach_find(v, n, "veth0"));
	assert_null(reach_find(v, n, "veth1"));
	assert_null(reach_find(v, n, "lo"));
	/* on a device of another netns: not followed, and said */
	r = reach_find(v, n, "mv0");
	assert_non_null(r);
	assert_true(r->lower_elsewhere);
	assert_string_equal(r->ib_dev, "");
	assert_int_equal(n, 8);
	free(v);
	smcnl_close(nl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_smcr_links),
		cmocka_unit_test(test_smcr_devices_sockets_pnet),
		cmocka_unit_test(test_ism_merge),
		cmocka_unit_test(test_dibs_snapshot),
		cmocka_unit_test(test_smcr_reach),
		cmocka_unit_test(test_v61_shape),
		cmocka_unit_test(test_wide_uint_pad_unknown),
		cmocka_unit_test(test_fback_clnt_only),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_tcp_diag),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
