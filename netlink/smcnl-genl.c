// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SMC_GEN_NETLINK: system information and the handshake limitation switch.  The other
 * commands live with their features: linkgroup.c, device.c, stats.c, eid.c.
 *
 * Every GET_* / DUMP_* command of this family exists only as a dump (a plain request gets
 * -EOPNOTSUPP) and must carry no attributes (strict validation: -EINVAL), see
 * smcnl_genl_dump().  Replies are dispatched on the genl command, never on the attribute
 * number alone: UEID/SEID/HS-limitation replies put their attributes at the top level,
 * where 1 and 2 also mean SMC_GEN_SYS_INFO and SMC_GEN_LGR_SMCR.
 */
#include <errno.h>
#include <string.h>

#include "netlink/smcnl-internal.h"

struct sysinfo_ctx {
	struct smc_sysinfo *info;
	bool seen;
};

static int sysinfo_msg(struct nlmsghdr *nlh, void *userdata)
{
	struct nlattr *tb[SMC_GEN_MAX + 1], *sys[SMC_NLA_SYS_MAX + 1];
	struct sysinfo_ctx *c = userdata;
	struct smc_sysinfo *i = c->info;
	uint8_t cmd;
	int r;

	r = smcnl_parse_genl(nlh, tb, SMC_GEN_MAX, &cmd);
	if (r < 0)
		return r;
	if (cmd != SMC_NETLINK_GET_SYS_INFO || !tb[SMC_GEN_SYS_INFO])
		return 0;
	r = smcnl_parse_nested(sys, SMC_NLA_SYS_MAX, tb[SMC_GEN_SYS_INFO]);
	if (r < 0)
		return r;
	memset(i, 0, sizeof(*i));
	r = r ?: attr_u8(sys[SMC_NLA_SYS_VER], &i->ver);
	r = r ?: attr_u8(sys[SMC_NLA_SYS_REL], &i->rel);
	r = r ?: attr_bool(sys[SMC_NLA_SYS_IS_ISM_V2], &i->ism_v2);
	r = r ?: attr_bool(sys[SMC_NLA_SYS_IS_SMCR_V2], &i->smcr_v2);
	r = r ?: attr_str(sys[SMC_NLA_SYS_LOCAL_HOST], i->hostname, sizeof(i->hostname));
	r = r ?: attr_str(sys[SMC_NLA_SYS_SEID], i->seid, sizeof(i->seid));
	if (r < 0)
		return r;
	i->has_seid = sys[SMC_NLA_SYS_SEID] != NULL;
	strip_blanks(i->hostname);
	strip_blanks(i->seid);
	c->seen = true;
	return 0;
}

int smc_sysinfo_get(struct smcnl *nl, struct smc_sysinfo *ret)
{
	struct smc_sysinfo info = {};
	struct sysinfo_ctx c = { .info = &info };
	int r;

	r = smcnl_genl_dump(nl, SMCNL_FAM_SMC, SMC_NETLINK_GET_SYS_INFO, sysinfo_msg, &c);
	if (r < 0)
		return r;
	/* The kernel always sends exactly one SYS_INFO message. */
	if (!c.seen)
		return -EBADMSG;
	*ret = info;
	return 0;
}

struct hs_ctx {
	bool enabled;
	bool seen;
};

static int hs_msg(struct nlmsghdr *nlh, void *userdata)
{
	struct nlattr *tb[SMC_NLA_HS_LIMITATION_MAX + 1];
	struct hs_ctx *c = userdata;
	uint8_t cmd;
	int r;

	r = smcnl_parse_genl(nlh, tb, SMC_NLA_HS_LIMITATION_MAX, &cmd);
	if (r < 0)
		return r;
	if (cmd != SMC_NETLINK_DUMP_HS_LIMITATION || !tb[SMC_NLA_HS_LIMITATION_ENABLED])
		return 0;
	r = attr_bool(tb[SMC_NLA_HS_LIMITATION_ENABLED], &c->enabled);
	if (r < 0)
		return r;
	c->seen = true;
	return 0;
}

int smc_hs_limitation_get(struct smcnl *nl, bool *ret)
{
	struct hs_ctx c = {};
	int r;

	r = smcnl_genl_dump(nl, SMCNL_FAM_SMC, SMC_NETLINK_DUMP_HS_LIMITATION, hs_msg, &c);
	if (r < 0)
		return r;
	if (!c.seen)
		return -EBADMSG;
	*ret = c.enabled;
	return 0;
}

int smc_hs_limitation_set(struct smcnl *nl, bool enable)
{
	return smcnl_genl_do(nl, SMCNL_FAM_SMC,
			     enable ? SMC_NETLINK_ENABLE_HS_LIMITATION
				    : SMC_NETLINK_DISABLE_HS_LIMITATION,
			     0, NULL, 0);
}
