// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Statistics of the caller's network namespace: SMC_NETLINK_GET_STATS and
 * SMC_NETLINK_GET_FBACK_STATS (net/smc/smc_stats.c).
 *
 * GET_STATS: one message, nest SMC_GEN_STATS with one nest per technology (identical
 * layout) and the two handshake error counters.  Pad attributes are type 0 in every nest
 * and are never read.  RX/TX_RMB_USAGE (6.12+) are "uint" gauges (4 or 8 bytes).
 *
 * GET_FBACK_STATS: 0..72 messages, one per used (side, reason) slot: TYPE (1 = server),
 * RSN_CODE (u32), RSN_CNT (u16: wraps at 65536).  Only the first message carries the u64
 * totals SRV_CNT and CLNT_CNT; an empty dump (no fallback ever) reports no totals at all,
 * which means zero.  Each total is read on its own: smc-tools tests SRV_CNT but reads
 * CLNT_CNT (a NULL dereference the day a kernel sends only one of them).
 */
#include <errno.h>
#include <string.h>

#include "netlink/smcnl-internal.h"

/* One row of the SMC_STATS_*_U64 lists of smcnl.h: attribute nla[attr] into dst->field. */
#define PARSE_U64(field, attr) r = r ?: attr_u64(nla[attr], &dst->field);

static int pload_parse(const struct nlattr *nest, uint64_t v[SMC_STATS_BUCKETS])
{
	struct nlattr *tb[SMC_NLA_STATS_PLOAD_MAX + 1];
	int r;

	if (!nest)
		return 0;
	r = smcnl_parse_nested(tb, SMC_NLA_STATS_PLOAD_MAX, nest);
	/* SMC_NLA_STATS_PLOAD_8K (1) .. _G_1024K (9): buckets 0..8 */
	for (int i = 0; r == 0 && i < SMC_STATS_BUCKETS; i++)
		r = attr_u64(tb[SMC_NLA_STATS_PLOAD_8K + i], &v[i]);
	return r;
}

static int rmb_parse(const struct nlattr *nest, struct smc_stats_rmb *dst)
{
	struct nlattr *nla[SMC_NLA_STATS_RMB_MAX + 1];
	int r;

	if (!nest)
		return 0;
	r = smcnl_parse_nested(nla, SMC_NLA_STATS_RMB_MAX, nest);
	SMC_STATS_RMB_U64(PARSE_U64)
	return r;
}

static int tech_parse(const struct nlattr *nest, struct smc_stats_tech *dst)
{
	struct nlattr *nla[SMC_NLA_STATS_T_MAX + 1];
	int r;

	if (!nest)
		return 0;
	r = smcnl_parse_nested(nla, SMC_NLA_STATS_T_MAX, nest);
	r = r ?: pload_parse(nla[SMC_NLA_STATS_T_TX_RMB_SIZE], dst->tx_rmb_size);
	r = r ?: pload_parse(nla[SMC_NLA_STATS_T_RX_RMB_SIZE], dst->rx_rmb_size);
	r = r ?: pload_parse(nla[SMC_NLA_STATS_T_TXPLOAD_SIZE], dst->tx_pload);
	r = r ?: pload_parse(nla[SMC_NLA_STATS_T_RXPLOAD_SIZE], dst->rx_pload);
	r = r ?: rmb_parse(nla[SMC_NLA_STATS_T_TX_RMB_STATS], &dst->tx_rmb);
	r = r ?: rmb_parse(nla[SMC_NLA_STATS_T_RX_RMB_STATS], &dst->rx_rmb);
	SMC_STATS_TECH_U64(PARSE_U64)
	r = r ?: attr_uint(nla[SMC_NLA_STATS_T_RX_RMB_USAGE], &dst->rx_rmb_usage);
	r = r ?: attr_uint(nla[SMC_NLA_STATS_T_TX_RMB_USAGE], &dst->tx_rmb_usage);
	if (r < 0)
		return r;
	dst->has_rmb_usage = nla[SMC_NLA_STATS_T_RX_RMB_USAGE] || nla[SMC_NLA_STATS_T_TX_RMB_USAGE];
	return 0;
}

struct stats_ctx {
	struct smc_stats *stats;
	bool seen;
};

static int stats_msg(struct nlmsghdr *nlh, void *userdata)
{
	struct nlattr *tb[SMC_GEN_MAX + 1], *nla[SMC_NLA_STATS_MAX + 1];
	struct stats_ctx *c = userdata;
	struct smc_stats *dst = c->stats;
	uint8_t cmd;
	int r;

	r = smcnl_parse_genl(nlh, tb, SMC_GEN_MAX, &cmd);
	if (r < 0)
		return r;
	if (cmd != SMC_NETLINK_GET_STATS || !tb[SMC_GEN_STATS])
		return 0;
	memset(dst, 0, sizeof(*dst));
	r = smcnl_parse_nested(nla, SMC_NLA_STATS_MAX, tb[SMC_GEN_STATS]);
	r = r ?: tech_parse(nla[SMC_NLA_STATS_SMCD_TECH], &dst->smcd);
	r = r ?: tech_parse(nla[SMC_NLA_STATS_SMCR_TECH], &dst->smcr);
	SMC_STATS_U64(PARSE_U64)
	if (r < 0)
		return r;
	c->seen = true;
	return 0;
}

int smc_stats_get(struct smcnl *nl, struct smc_stats *ret)
{
	struct smc_stats stats = {};
	struct stats_ctx c = { .stats = &stats };
	int r;

	r = smcnl_genl_dump(nl, SMCNL_FAM_SMC, SMC_NETLINK_GET_STATS, stats_msg, &c);
	if (r < 0)
		return r;
	/* The kernel sends one message unless it ran out of memory building it. */
	if (!c.seen)
		return -EBADMSG;
	*ret = stats;
	return 0;
}

static int fback_msg(struct nlmsghdr *nlh, void *userdata)
{
	struct nlattr *tb[SMC_GEN_MAX + 1], *fb[SMC_NLA_FBACK_STATS_MAX + 1];
	struct smc_fback_stats *s = userdata;
	struct smc_fback_entry e = {};
	uint8_t cmd;
	int r;

	r = smcnl_parse_genl(nlh, tb, SMC_GEN_MAX, &cmd);
	if (r < 0)
		return r;
	if (cmd != SMC_NETLINK_GET_FBACK_STATS || !tb[SMC_GEN_FBACK_STATS])
		return 0;
	r = smcnl_parse_nested(fb, SMC_NLA_FBACK_STATS_MAX, tb[SMC_GEN_FBACK_STATS]);
	if (r < 0)
		return r;
	/* A reason slot without a code is not something the kernel sends. */
	if (!fb[SMC_NLA_FBACK_STATS_RSN_CODE])
		return -EBADMSG;
	r = r ?: attr_u64(fb[SMC_NLA_FBACK_STATS_SRV_CNT], &s->srv_total);
	r = r ?: attr_u64(fb[SMC_NLA_FBACK_STATS_CLNT_CNT], &s->clnt_total);
	r = r ?: attr_bool(fb[SMC_NLA_FBACK_STATS_TYPE], &e.server);
	r = r ?: attr_u32(fb[SMC_NLA_FBACK_STATS_RSN_CODE], &e.code);
	r = r ?: attr_u16(fb[SMC_NLA_FBACK_STATS_RSN_CNT], &e.count);
	if (r < 0)
		return r;
	/* 36 slots per side in the kernel: more is a kernel this build does not know. */
	if (s->n >= ELEMENTSOF(s->entries))
		return -EBADMSG;
	s->entries[s->n++] = e;
	return 0;
}

int smc_fback_stats_get(struct smcnl *nl, struct smc_fback_stats *ret)
{
	struct smc_fback_stats s = {};
	int r;

	/* An empty dump is a valid answer: no fallback yet, totals 0. */
	r = smcnl_genl_dump(nl, SMCNL_FAM_SMC, SMC_NETLINK_GET_FBACK_STATS, fback_msg, &s);
	if (r < 0)
		return r;
	*ret = s;
	return 0;
}
