// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Every read function of libsmcnl fed with replies recorded from real kernels
 * (tests/fixtures/7x: SMC+DIBS loopback 7.3; 612: Debian 6.12; 61: Debian 12's 6.1;
 * nosmc: a kernel without SMC), through the public API in replay mode.  The assertions hold for any
 * re-recording (tests/fixtures/record): they check structure and the facts the scenario guarantees,
 * not ports or inode numbers.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>

#include <cmocka.h>

#include "netlink/smcnl-internal.h"
#include "tests/unit/netlink-test-util.h"

/* ---- 7.3 with DIBS loopback ---------------------------------------------------------------- */

static void test_7x_idle(void **state)
{
	struct smcnl *nl = replay_open("7x/idle");
	struct smc_sysinfo info;
	struct smc_caps caps;
	struct smc_stats stats;
	struct smc_fback_stats fb;
	struct smc_seid seid;
	char ueids[SMC_UEID_MAX][SMC_EID_LEN + 1];
	struct smcd_device *dev;
	struct smcd_linkgroup *lgr;
	struct smcr_linkgroup *rlgr;
	struct smc_socket *socks;
	size_t n;
	bool hs;

	assert_int_equal(smc_caps_probe(nl, &caps), 0);
	assert_string_equal(caps.kernel_release, "7.3.4");
	assert_true(caps.smc_genl && caps.pnet_genl && caps.smc_diag && caps.af_smc);
	assert_true(caps.ipproto_smc && caps.dibs && caps.loopback && caps.smc_module);
	assert_true(caps.smcd_v2 && caps.smcr_v2);
	assert_false(caps.seid_supported);
	assert_int_equal(caps.smc_ver, 2);
	assert_int_equal(caps.smc_rel, 1);

	assert_int_equal(smc_sysinfo_get(nl, &info), 0);
	assert_int_equal(info.ver, 2);
	assert_int_equal(info.rel, 1);
	assert_true(info.ism_v2 && info.smcr_v2 && info.has_seid);
	/* built-in smc: the host name captured at smc init, before init set one */
	assert_string_equal(info.hostname, "(none)");
	assert_string_equal(info.seid, "");

	assert_int_equal(smcd_device_list(nl, &dev, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(dev[0].name, "lo");
	assert_int_equal(dev[0].seen, SMCD_SEEN_DIBS); /* GET_DEV_SMCD skips loopback */
	assert_true(dev[0].loopback && dev[0].has_fabric_id);
	assert_int_equal(dev[0].fabric_id, 0xffff);
	assert_int_equal(strlen(dev[0].gid), 36);
	assert_int_equal(dev[0].linkgroups, 0);
	free(dev);

	assert_int_equal(smcd_linkgroup_list(nl, &lgr, &n), 0);
	assert_int_equal(n, 0);
	free(lgr);
	assert_int_equal(smcr_linkgroup_list(nl, true, &rlgr, &n), 0);
	assert_int_equal(n, 0);
	smcr_linkgroup_list_free(rlgr, n);

	assert_int_equal(smc_stats_get(nl, &stats), 0);
	assert_true(stats.smcd.has_rmb_usage && stats.smcr.has_rmb_usage);
	assert_int_equal(stats.smcd.rx_bytes, 0);
	assert_int_equal(smc_fback_stats_get(nl, &fb), 0);
	assert_int_equal(fb.n, 0); /* empty dump: no totals either */
	assert_int_equal(fb.srv_total, 0);
	assert_int_equal(fb.clnt_total, 0);

	assert_int_equal(smc_ueid_list(nl, ueids, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(smc_seid_get(nl, &seid), 0);
	assert_true(seid.present); /* ISMv2 capable through loopback: an empty SEID */
	assert_false(seid.enabled);
	assert_string_equal(seid.seid, "");
	assert_int_equal(smc_hs_limitation_get(nl, &hs), 0);
	assert_false(hs);

	assert_int_equal(smc_socket_list(nl, 0, &socks, &n), 0);
	assert_int_equal(n, 0);
	free(socks);
	smcnl_close(nl);
}

static const struct smc_socket *find_sock(const struct smc_socket *v, size_t n, uint8_t family,
					  uint8_t state, int addr_family)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].diag_family == family && v[i].state == state &&
		    v[i].addr_family == addr_family)
			return &v[i];
	return NULL;
}

static void test_7x_fallback(void **state)
{
	struct smcnl *nl = replay_open("7x/fallback");
	struct smc_fback_stats fb;
	struct smc_socket *s;
	const struct smc_socket *x;
	size_t n, srv = 0, clnt = 0;

	assert_int_equal(smc_fback_stats_get(nl, &fb), 0);
	assert_int_equal(fb.srv_total, 2);
	assert_int_equal(fb.clnt_total, 2);
	assert_int_equal(fb.n, 2);
	for (size_t i = 0; i < fb.n; i++) {
		/* no UEID: the server declines with NOUEID, the client sees PEERDECL */
		if (fb.entries[i].server) {
			assert_int_equal(fb.entries[i].code, 0x03030008);
			assert_string_equal(smc_decline_name(fb.entries[i].code), "NOUEID");
		} else {
			assert_int_equal(fb.entries[i].code, 0x05000000);
		}
		assert_int_equal(fb.entries[i].count, 2);
	}

	assert_int_equal(smc_socket_list(nl, 0, &s, &n), 0);
	assert_int_equal(n, 5); /* 2 connections x 2 ends + the listener */
	for (size_t i = 0; i < n; i++) {
		/* IPPROTO_SMC sockets and the ones they accepted carry no addresses */
		assert_int_equal(s[i].addr_family, AF_UNSPEC);
		assert_true(s[i].has_fallback);
		if (s[i].state == 10)
			continue;
		assert_int_equal(s[i].mode, 1);
		assert_string_equal(smc_sock_mode_name(s[i].mode), "TCP");
		if (s[i].fallback_reason == 0x03030008)
			srv++;
		if (s[i].fallback_reason == 0x05000000 && s[i].peer_diagnosis == 0x03030008)
			clnt++;
	}
	assert_int_equal(srv, 2);
	assert_int_equal(clnt, 2);
	x = find_sock(s, n, AF_INET, 10, AF_UNSPEC);
	assert_non_null(x); /* the IPPROTO_SMC listener: diag_family 2 */
	assert_string_equal(smc_sock_state_name(x->state), "LISTEN");
	assert_int_not_equal(x->sport, 0);
	free(s);
	smcnl_close(nl);
}

static void test_7x_loopback(void **state)
{
	struct smcnl *nl = replay_open("7x/loopback");
	struct smcd_linkgroup *lgr;
	struct smcd_device *dev;
	struct smc_stats st;
	struct smc_socket *s;
	const struct smc_socket *x;
	char gid[33], sys_gid[64], hex[33], path[PATH_MAX];
	uint32_t conns = 0;
	size_t n, k = 0;

	assert_int_equal(smcd_linkgroup_list(nl, &lgr, &n), 0);
	assert_int_equal(n, 2);
	snprintf(path, sizeof(path), "%s/sysroot/sys/class/dibs/lo/gid", fixture_path("7x/loopback"));
	assert_true(smcnl_read_file(path, sys_gid, sizeof(sys_gid)) > 0);
	for (const char *p = sys_gid; *p; p++)
		if (*p != '-')
			hex[k++] = *p;
	hex[k] = '\0';
	for (size_t i = 0; i < n; i++) {
		/* 7.3 mapping: GID, EXT_GID = the dibs UUID */
		smcd_gid_format(lgr[i].gid, lgr[i].ext_gid, gid);
		assert_string_equal(gid, hex);
		assert_true(lgr[i].has_ext_gid);
		assert_int_equal(lgr[i].peer_gid, lgr[i].gid); /* loopback talks to itself */
		assert_int_equal(lgr[i].chid, 0xffff);
		assert_string_equal(lgr[i].device, "lo");
		assert_true(lgr[i].has_alloc);
		assert_true(lgr[i].dmb_alloc > 0);
		assert_true(lgr[i].v2.present);
		assert_int_equal(lgr[i].v2.ver, 2);
		assert_string_equal(smc_os_name(lgr[i].v2.os), "LINUX");
		assert_string_equal(lgr[i].v2.neg_eid, "SMCD-AGENT-TEST");
		conns += lgr[i].conns;
	}
	assert_int_equal(conns, 8); /* 4 connections, both ends */
	free(lgr);

	assert_int_equal(smcd_device_list(nl, &dev, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(dev[0].linkgroups, 2);
	assert_int_equal(dev[0].conns, 8);
	free(dev);

	assert_int_equal(smc_stats_get(nl, &st), 0);
	assert_int_equal(st.smcd.clnt_v2_succ, 4);
	assert_int_equal(st.smcd.srv_v2_succ, 4);
	assert_true(st.smcd.rx_bytes >= 2 * (256 + 256 + 64 + 64) * 1024);
	assert_int_equal(st.smcr.rx_bytes, 0);

	assert_int_equal(smc_socket_list(nl,
					 SMC_DIAG_WANT_CONNINFO | SMC_DIAG_WANT_LGRINFO |
						 SMC_DIAG_WANT_DMBINFO,
					 &s, &n),
			 0);
	assert_int_equal(n, 11);
	/* AF_SMC over IPv4: addresses in word 0 */
	x = find_sock(s, n, AF_SMC, 1, AF_INET);
	assert_non_null(x);
	assert_int_equal(x->src.s6_addr32[0], htonl(INADDR_LOOPBACK));
	assert_int_equal(x->mode, 2);
	assert_true(x->has_conninfo && x->has_dmbinfo && x->dmb.has_ext);
	assert_true(x->conn.rmbe_size >= 16384);
	assert_int_equal(x->dmb.my_gid, x->dmb.peer_gid);
	assert_true(x->dmb.my_gid_ext != 0);
	/* AF_SMC over IPv6 */
	x = find_sock(s, n, AF_SMC, 1, AF_INET6);
	assert_non_null(x);
	assert_true(IN6_IS_ADDR_LOOPBACK(&x->src));
	x = find_sock(s, n, AF_SMC, 10, AF_INET6);
	assert_non_null(x); /* listener on ::1 */
	assert_false(x->has_conninfo);
	/* IPPROTO_SMC: no addresses */
	x = find_sock(s, n, AF_INET, 1, AF_UNSPEC);
	assert_non_null(x);
	assert_true(x->has_dmbinfo);
	free(s);
	smcnl_close(nl);
}

/* 201 sockets: the kernel's dump spans several batches (about 32 KiB each). */
static void test_7x_many(void **state)
{
	struct smcnl *nl = replay_open("7x/many");
	struct smcd_linkgroup *lgr;
	struct smc_socket *s;
	size_t n, smcd = 0, dmb = 0;
	uint32_t conns = 0;

	assert_int_equal(smc_socket_list(nl,
					 SMC_DIAG_WANT_CONNINFO | SMC_DIAG_WANT_LGRINFO |
						 SMC_DIAG_WANT_DMBINFO,
					 &s, &n),
			 0);
	assert_int_equal(n, 201);
	for (size_t i = 0; i < n; i++) {
		smcd += s[i].mode == 2;
		dmb += s[i].has_dmbinfo;
	}
	assert_int_equal(smcd, 200);
	assert_int_equal(dmb, 200);
	free(s);
	assert_int_equal(smcd_linkgroup_list(nl, &lgr, &n), 0);
	for (size_t i = 0; i < n; i++)
		conns += lgr[i].conns;
	assert_int_equal(conns, 200);
	free(lgr);
	smcnl_close(nl);
}

static void test_7x_after_close(void **state)
{
	struct smcnl *nl = replay_open("7x/after-close");
	struct smcd_linkgroup *lgr;
	struct smc_stats st;
	size_t n;

	/* link groups outlive their connections (kept for reuse) */
	assert_int_equal(smcd_linkgroup_list(nl, &lgr, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(lgr[0].conns + lgr[1].conns, 0);
	free(lgr);
	assert_int_equal(smc_stats_get(nl, &st), 0);
	assert_int_equal(st.smcd.rx_rmb_usage, 0); /* a gauge, back to 0 */
	smcnl_close(nl);
}

/* ---- UEID, SEID, handshake limitation: every answer of the kernel ----------------------- */

static void test_7x_ueid_answers(void **state)
{
	char buf[256], ueids[SMC_UEID_MAX][SMC_EID_LEN + 1];
	struct smcnl *nl;
	size_t n;

	nl = replay_open("7x/ueid-add");
	assert_int_equal(smc_ueid_add(nl, "SMCD-AGENT-TEST"), 0);
	assert_null(smcnl_extack(nl));
	smcnl_close(nl);

	nl = replay_open("7x/ueid-add-dup");
	assert_int_equal(smc_ueid_add(nl, "SMCD-AGENT-TEST"), -EEXIST);
	smcnl_close(nl);

	nl = replay_open("7x/ueid-add-full");
	assert_int_equal(smc_ueid_add(nl, "SMCD-AGENT-FIVE"), -ERANGE);
	assert_null(smcnl_extack(nl)); /* table full: no extack ... */
	smc_strerror(SMC_OP_UEID_ADD, -ERANGE, smcnl_extack(nl), buf, sizeof(buf));
	assert_non_null(strstr(buf, "table is full"));
	smcnl_close(nl);

	/* ... while the policy failure for 33 characters has one: the two -ERANGEs */
	nl = replay_open("7x/ueid-add-too-long");
	assert_int_equal(smcnl_ueid_add_raw(nl, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456", 34), -ERANGE);
	assert_string_equal(smcnl_extack(nl), "Attribute failed policy validation");
	smc_strerror(SMC_OP_UEID_ADD, -ERANGE, smcnl_extack(nl), buf, sizeof(buf));
	assert_non_null(strstr(buf, "longer"));
	assert_null(strstr(buf, "full"));
	smcnl_close(nl);

	nl = replay_open("7x/ueid-add-invalid");
	assert_int_equal(smcnl_ueid_add_raw(nl, "x", 2), -EINVAL);
	smcnl_close(nl);
	nl = replay_open("7x/ueid-add-short");
	assert_int_equal(smcnl_ueid_add_raw(nl, "ABC", 4), -EINVAL);
	smcnl_close(nl);

	nl = replay_open("7x/ueid-full");
	assert_int_equal(smc_ueid_list(nl, ueids, &n), 0);
	assert_int_equal(n, 4);
	/* insertion order, trailing blanks removed */
	assert_string_equal(ueids[0], "SMCD-AGENT-TEST");
	assert_string_equal(ueids[1], "SMCD-AGENT-TWO");
	assert_string_equal(ueids[2], "SMCD.AGENT.3");
	assert_string_equal(ueids[3], "4-SMCD-AGENT-FOUR-0123456789ABCD");
	smcnl_close(nl);

	nl = replay_open("7x/ueid-del-missing");
	assert_int_equal(smc_ueid_del(nl, "NOT-CONFIGURED"), -ENOENT);
	smcnl_close(nl);
	nl = replay_open("7x/ueid-del");
	assert_int_equal(smc_ueid_del(nl, "SMCD-AGENT-TWO"), 0);
	smcnl_close(nl);
	nl = replay_open("7x/ueid-flush");
	assert_int_equal(smc_ueid_flush(nl), 0);
	smcnl_close(nl);
}

static void test_7x_seid_hs(void **state)
{
	struct smcnl *nl;
	bool hs;

	/* no System EID off s390 */
	nl = replay_open("7x/seid-enable");
	assert_int_equal(smc_seid_set(nl, true), -EOPNOTSUPP);
	smcnl_close(nl);
	nl = replay_open("7x/seid-disable");
	assert_int_equal(smc_seid_set(nl, false), -EOPNOTSUPP);
	smcnl_close(nl);

	nl = replay_open("7x/hs-enable");
	assert_int_equal(smc_hs_limitation_set(nl, true), 0);
	smcnl_close(nl);
	nl = replay_open("7x/hs-enabled");
	assert_int_equal(smc_hs_limitation_get(nl, &hs), 0);
	assert_true(hs);
	smcnl_close(nl);
	nl = replay_open("7x/hs-disable");
	assert_int_equal(smc_hs_limitation_set(nl, false), 0);
	smcnl_close(nl);
}

/* ---- PNET table ----------------------------------------------------------------------- */

static void test_7x_pnet(void **state)
{
	struct smc_pnet_entry eth = { .pnetid = "net1", .eth_name = "lo" };
	struct smc_pnet_entry ib = { .pnetid = "NET2", .ib_name = "lo", .ib_port = 1 };
	struct smc_pnet_entry *e;
	struct smcd_device *dev;
	struct smcnl *nl;
	size_t n;

	nl = replay_open("7x/pnet-add-eth");
	assert_int_equal(smc_pnet_add(nl, &eth), 0);
	smcnl_close(nl);
	nl = replay_open("7x/pnet-add-eth-dup");
	assert_int_equal(smc_pnet_add(nl, &eth), -EEXIST);
	smcnl_close(nl);
	nl = replay_open("7x/pnet-add-ib");
	assert_int_equal(smc_pnet_add(nl, &ib), 0);
	smcnl_close(nl);

	nl = replay_open("7x/pnet-list");
	assert_int_equal(smc_pnet_list(nl, NULL, &e, &n), 0);
	assert_int_equal(n, 2);
	/* the kernel upper-cased "net1"; "n/a" and 0xff became empty and 0 */
	assert_string_equal(e[0].pnetid, "NET1");
	assert_string_equal(e[0].eth_name, "lo");
	assert_string_equal(e[0].ib_name, "");
	assert_int_equal(e[0].ib_port, 0);
	assert_string_equal(e[1].pnetid, "NET2");
	assert_string_equal(e[1].eth_name, "");
	assert_string_equal(e[1].ib_name, "lo");
	assert_int_equal(e[1].ib_port, 1);
	free(e);
	/* filter by PNET ID, normalised like the kernel does */
	assert_int_equal(smc_pnet_list(nl, " net2 ", &e, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(e[0].ib_name, "lo");
	free(e);
	/* the loopback device got its PNET ID from the IB entry */
	assert_int_equal(smcd_device_list(nl, &dev, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(dev[0].port.pnetid, "NET2");
	assert_true(dev[0].port.user_defined);
	free(dev);
	smcnl_close(nl);

	nl = replay_open("7x/pnet-del");
	assert_int_equal(smc_pnet_del(nl, "net1"), 0);
	smcnl_close(nl);
	nl = replay_open("7x/pnet-del-missing");
	assert_int_equal(smc_pnet_del(nl, "NET1"), -ENOENT);
	smcnl_close(nl);
	nl = replay_open("7x/pnet-flush");
	assert_int_equal(smc_pnet_flush(nl), 0);
	smcnl_close(nl);
	nl = replay_open("7x/pnet-flush-empty");
	assert_int_equal(smc_pnet_flush(nl), 0);
	smcnl_close(nl);
}

/* ---- Debian 6.12: smc as modules, no SMC-D device -------------------------------------- */

static void test_612(void **state)
{
	struct smcnl *nl = replay_open("612/idle");
	struct smc_sysinfo info;
	struct smc_caps caps;
	struct smc_fback_stats fb;
	struct smc_seid seid;
	struct smcd_device *dev;
	size_t n;

	assert_int_equal(smc_caps_probe(nl, &caps), 0);
	assert_true(caps.smc_genl && caps.smc_diag && caps.ipproto_smc && caps.smc_module);
	assert_false(caps.dibs);
	assert_false(caps.loopback); /* CONFIG_SMC_LO is not set in Debian's 6.12 */
	assert_false(caps.smcd_v2);
	assert_int_equal(smc_sysinfo_get(nl, &info), 0);
	assert_false(info.has_seid);
	assert_false(info.ism_v2);
	assert_string_equal(info.hostname, "smcd-vm"); /* smc.ko loaded after boot */
	assert_int_equal(smc_seid_get(nl, &seid), 0);
	assert_false(seid.present); /* not ISMv2 capable: an empty DUMP_SEID message */
	assert_int_equal(smcd_device_list(nl, &dev, &n), 0);
	assert_int_equal(n, 0);
	free(dev);
	smcnl_close(nl);

	nl = replay_open("612/fallback");
	assert_int_equal(smc_fback_stats_get(nl, &fb), 0);
	assert_int_equal(fb.n, 2);
	for (size_t i = 0; i < fb.n; i++)
		if (!fb.entries[i].server)
			assert_string_equal(smc_decline_name(fb.entries[i].code), "NOSMCDEV");
	smcnl_close(nl);

	nl = replay_open("612/ueid-add-too-long");
	assert_int_equal(smcnl_ueid_add_raw(nl, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456", 34), -ERANGE);
	assert_string_equal(smcnl_extack(nl), "Attribute failed policy validation");
	smcnl_close(nl);
}

/* ---- Debian 12's 6.1: no IPPROTO_SMC, SMC release 0, five sysctls ----------------------- */

static void test_61(void **state)
{
	static const char *const present[] = { "autocorking_size", "rmem", "smcr_buf_type",
					       "smcr_testlink_time", "wmem" };
	struct smcnl *nl = replay_open("61/idle");
	struct smc_sysinfo info;
	struct smc_caps caps;
	struct smc_stats stats;
	struct smc_fback_stats fb;
	struct smc_socket *s;
	char **names;
	size_t n, clnt = 0, srv = 0;
	bool hs = true;

	assert_int_equal(smc_caps_probe(nl, &caps), 0);
	assert_true(caps.smc_genl && caps.pnet_genl && caps.smc_diag && caps.af_smc);
	assert_true(caps.smc_module && caps.smcr_v2);
	assert_false(caps.ipproto_smc); /* 6.11 */
	assert_false(caps.dibs || caps.loopback || caps.smcd_v2 || caps.seid_supported);
	assert_int_equal(caps.smc_ver, 2);
	assert_int_equal(caps.smc_rel, 0); /* SMC_RELEASE 1 (v2.1) came with 6.6 */
	assert_int_equal(smc_sysinfo_get(nl, &info), 0);
	assert_int_equal(info.rel, 0);
	assert_false(info.has_seid || info.ism_v2);
	assert_string_equal(info.hostname, "smcd-vm");
	assert_int_equal(smc_stats_get(nl, &stats), 0);
	/* no *_RMB_USAGE before 6.12 */
	assert_false(stats.smcd.has_rmb_usage || stats.smcr.has_rmb_usage);
	assert_int_equal(smc_hs_limitation_get(nl, &hs), 0); /* netlink only: no sysctl */
	assert_false(hs);
	assert_int_equal(smc_sysctl_list_present(nl, &names, &n), 0);
	assert_int_equal(n, ELEMENTSOF(present));
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(names[i], present[i]);
		free(names[i]);
	}
	free(names);
	smcnl_close(nl);

	/* AF_SMC connections (no IPPROTO_SMC) without a device: both ends fell back */
	nl = replay_open("61/fallback");
	assert_int_equal(smc_fback_stats_get(nl, &fb), 0);
	assert_int_equal(fb.n, 2);
	for (size_t i = 0; i < fb.n; i++)
		assert_string_equal(smc_decline_name(fb.entries[i].code),
				    fb.entries[i].server ? "PEERDECL" : "NOSMCDEV");
	assert_int_equal(smc_socket_list(nl, 0, &s, &n), 0);
	assert_int_equal(n, 5); /* 2 connections x 2 ends + the listener */
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(s[i].diag_family, AF_SMC);
		assert_int_equal(s[i].addr_family, AF_INET); /* AF_SMC sockets carry addresses */
		assert_true(s[i].has_fallback);
		if (s[i].state == 10)
			continue;
		assert_string_equal(smc_sock_mode_name(s[i].mode), "TCP");
		if (s[i].fallback_reason == 0x03030000)
			clnt++;
		if (s[i].fallback_reason == 0x05000000 && s[i].peer_diagnosis == 0x03030000)
			srv++;
	}
	assert_int_equal(clnt, 2);
	assert_int_equal(srv, 2);
	free(s);
	smcnl_close(nl);

	nl = replay_open("61/hs-enabled");
	assert_int_equal(smc_hs_limitation_get(nl, &hs), 0);
	assert_true(hs);
	smcnl_close(nl);
}

/*
 * The same kernel with its system information query failing (EBUSY): the inference of
 * loopback-ism is skipped, with the reason kept, and the device list is no failure.
 */
static void test_612lo_sysinfo_fails(void **state)
{
	static const struct {
		struct nlmsghdr h;
		struct nlmsgerr e;
	} busy = {
		.h = { .nlmsg_len = sizeof(busy),
		       .nlmsg_type = NLMSG_ERROR,
		       .nlmsg_flags = NLM_F_CAPPED },
		.e = { .error = -EBUSY, .msg = { .nlmsg_len = NLMSG_HDRLEN } },
	};
	struct smcnl *nl = replay_open("612lo/idle");
	struct smcd_device *dev = NULL;
	size_t n = 99;

	assert_int_equal(smcnl_replay_mem(nl, "smc-genl-get-sys-info", &busy, sizeof(busy)), 0);
	assert_int_equal(smcd_device_list(nl, &dev, &n), 0);
	assert_int_equal(n, 0); /* the kernel lists none, and none is inferred */
	assert_int_equal(smcd_builtin_loopback_error(nl), -EBUSY);
	free(dev);
	smcnl_close(nl);

	/* Answered: inferred, no error kept. */
	nl = replay_open("612lo/idle");
	assert_int_equal(smcd_device_list(nl, &dev, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(smcd_builtin_loopback_error(nl), 0);
	free(dev);
	smcnl_close(nl);
}

/*
 * 6.12 with CONFIG_SMC_LO (the 612lo lane): loopback-ism lives in smc.ko, no DIBS, no sysfs.
 * The device is inferred (ISMv2 off s390), its GID is that of its link groups.
 */
static void test_612lo(void **state)
{
	struct smcnl *nl = replay_open("612lo/idle");
	struct smcd_linkgroup *lgr;
	struct smcd_device *dev;
	struct smc_caps caps;
	struct smc_stats st;
	struct smc_socket *s;
	char gid[33];
	uint32_t conns = 0;
	size_t n, n_lgr, smcd = 0;

	assert_int_equal(smc_caps_probe(nl, &caps), 0);
	assert_false(caps.dibs);
	assert_true(caps.loopback && caps.smcd_v2);
	assert_int_equal(smcd_device_list(nl, &dev, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(dev[0].name, "loopback-ism");
	assert_int_equal(dev[0].seen, SMCD_SEEN_BUILTIN);
	assert_true(dev[0].loopback && dev[0].has_fabric_id);
	assert_int_equal(dev[0].fabric_id, 0xffff);
	assert_string_equal(dev[0].gid, ""); /* no link group yet: unknown */
	assert_int_equal(dev[0].linkgroups, 0);
	free(dev);
	smcnl_close(nl);

	nl = replay_open("612lo/loopback");
	assert_int_equal(smcd_linkgroup_list(nl, &lgr, &n_lgr), 0);
	assert_true(n_lgr >= 1);
	for (size_t i = 0; i < n_lgr; i++) {
		assert_int_equal(lgr[i].chid, 0xffff);
		assert_string_equal(lgr[i].device, "loopback-ism");
		assert_int_equal(lgr[i].peer_gid, lgr[i].gid);
		assert_true(lgr[i].has_alloc && lgr[i].dmb_alloc > 0);
		assert_true(lgr[i].v2.present);
		assert_string_equal(lgr[i].v2.neg_eid, "SMCD-AGENT-TEST");
		conns += lgr[i].conns;
	}
	assert_int_equal(conns, 8); /* 4 connections, both ends */
	smcd_gid_format(lgr[0].gid, lgr[0].ext_gid, gid);
	free(lgr);
	assert_int_equal(smcd_device_list(nl, &dev, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(dev[0].gid, gid);
	assert_int_equal(dev[0].linkgroups, n_lgr);
	assert_int_equal(dev[0].conns, 8);
	free(dev);
	assert_int_equal(smc_stats_get(nl, &st), 0);
	assert_int_equal(st.smcd.clnt_v2_succ, 4);
	assert_int_equal(st.smcd.srv_v2_succ, 4);
	assert_int_equal(smc_socket_list(nl,
					 SMC_DIAG_WANT_CONNINFO | SMC_DIAG_WANT_LGRINFO |
						 SMC_DIAG_WANT_DMBINFO,
					 &s, &n),
			 0);
	for (size_t i = 0; i < n; i++)
		if (s[i].mode == 2) {
			smcd++;
			assert_true(s[i].has_dmbinfo);
			assert_int_equal(s[i].dmb.my_gid, s[i].dmb.peer_gid);
		}
	assert_int_equal(smcd, 8);
	free(s);
	smcnl_close(nl);
}

/* ---- privileges and network namespaces ------------------------------------------------- */

static void test_612_userns(void **state)
{
	char buf[256], ueids[SMC_UEID_MAX][SMC_EID_LEN + 1];
	struct smcnl *nl;
	size_t n;

	/* root of a new user namespace: no CAP_NET_ADMIN in the initial one */
	nl = replay_open("612/ueid-add-eperm");
	assert_int_equal(smc_ueid_add(nl, "SMCD-AGENT-USERNS"), -EPERM);
	smc_strerror(SMC_OP_UEID_ADD, -EPERM, smcnl_extack(nl), buf, sizeof(buf));
	assert_non_null(strstr(buf, "CAP_NET_ADMIN in the initial user namespace"));
	smcnl_close(nl);
	nl = replay_open("612/pnet-flush-eperm");
	assert_int_equal(smc_pnet_flush(nl), -EPERM);
	smcnl_close(nl);
	/* ... while the dumps need no privilege */
	nl = replay_open("612/userns");
	assert_int_equal(smc_ueid_list(nl, ueids, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(ueids[0], "SMCD-AGENT-TEST");
	smcnl_close(nl);
}

static void test_7x_netns(void **state)
{
	struct smc_pnet_entry ib = { .pnetid = "NET3", .ib_name = "lo", .ib_port = 1 };
	struct smcd_linkgroup *lgr;
	struct smc_fback_stats fb;
	struct smc_socket *s;
	struct smc_stats st;
	struct smcnl *nl;
	size_t n;

	/* IB/SMC-D entries only in the initial netns: elsewhere the kernel says -EEXIST */
	nl = replay_open("7x/netns-pnet-add-ib");
	assert_int_equal(smc_pnet_add(nl, &ib), -EEXIST);
	smcnl_close(nl);

	nl = replay_open("7x/netns-read");
	/* link groups are global ... */
	assert_int_equal(smcd_linkgroup_list(nl, &lgr, &n), 0);
	assert_int_equal(n, 2);
	free(lgr);
	/* ... statistics, fallback reasons and sockets are the namespace's own */
	assert_int_equal(smc_stats_get(nl, &st), 0);
	assert_int_equal(st.smcd.rx_bytes, 0);
	assert_int_equal(smc_fback_stats_get(nl, &fb), 0);
	assert_int_equal(fb.n, 0);
	assert_int_equal(smc_socket_list(nl, 0, &s, &n), 0);
	assert_int_equal(n, 0);
	free(s);
	smcnl_close(nl);
}

/* ---- a kernel without SMC -------------------------------------------------------------- */

static void test_nosmc(void **state)
{
	struct smcnl *nl = replay_open("nosmc");
	struct smc_sysinfo info;
	struct smc_caps caps;
	struct smc_socket *s;
	struct smc_stats st;
	char **names, buf[256];
	size_t n;

	assert_int_equal(smc_caps_probe(nl, &caps), 0);
	assert_false(caps.smc_genl || caps.pnet_genl || caps.smc_diag || caps.af_smc);
	assert_false(caps.ipproto_smc || caps.dibs || caps.loopback || caps.smc_module);
	assert_int_equal(smc_sysinfo_get(nl, &info), -EPROTONOSUPPORT);
	assert_int_equal(smc_stats_get(nl, &st), -EPROTONOSUPPORT);
	assert_int_equal(smc_socket_list(nl, 0, &s, &n), -EPROTONOSUPPORT);
	assert_int_equal(smc_sysctl_list_present(nl, &names, &n), -ENOENT);
	smc_strerror(SMC_OP_QUERY, -EPROTONOSUPPORT, NULL, buf, sizeof(buf));
	assert_non_null(strstr(buf, "SMC is not available in this kernel"));
	smcnl_close(nl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_7x_idle),
		cmocka_unit_test(test_7x_fallback),
		cmocka_unit_test(test_7x_loopback),
		cmocka_unit_test(test_7x_many),
		cmocka_unit_test(test_7x_after_close),
		cmocka_unit_test(test_7x_ueid_answers),
		cmocka_unit_test(test_7x_seid_hs),
		cmocka_unit_test(test_7x_pnet),
		cmocka_unit_test(test_612),
		cmocka_unit_test(test_61),
		cmocka_unit_test(test_612lo),
		cmocka_unit_test(test_612lo_sysinfo_fails),
		cmocka_unit_test(test_612_userns),
		cmocka_unit_test(test_7x_netns),
		cmocka_unit_test(test_nosmc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
