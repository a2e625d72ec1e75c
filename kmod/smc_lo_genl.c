// SPDX-License-Identifier: GPL-2.0
/*
 * smc_lo: the SMC_LO generic netlink family (contract: netlink/uapi/smc_lo.h).
 *
 * Decisions:
 *  - netnsok = false.  The device and SMC's view of it (link groups, UEIDs, the pnet
 *    table's IBNAME entries) are host-global, so the family is only visible in the
 *    initial network namespace; a container cannot even read it.
 *  - parallel_ops = true.  Handlers serialize on smclo_ctl.lock themselves, so an
 *    activation that waits for DIBS-global mutexes does not hold genl_mutex and stall
 *    every other generic netlink family.  Nothing that can block for long (dibs_dev_del)
 *    runs in a handler.
 *  - Every command is new (resv_start_op past the last one): strict validation, unknown
 *    attributes are rejected; per-command policies carry types and ranges.
 *  - Changing commands need GENL_ADMIN_PERM (CAP_NET_ADMIN in the initial user ns).
 */
#include <linux/module.h>
#include <net/genetlink.h>

#include "smc_lo_int.h"

/*
 * A full range, not NLA_POLICY_RANGE(): that one keeps min and max as s16 in the policy, and
 * SMC_LO_MAX_DMBS_MAX (32768) does not fit: the kernel then WARNs in
 * nla_get_range_unsigned() and lets every value through.
 */
static const struct netlink_range_validation smclo_max_dmbs_range = {
	.min = SMC_LO_MAX_DMBS_MIN,
	.max = SMC_LO_MAX_DMBS_MAX,
};

static const struct nla_policy smclo_settings_policy[SMC_LO_S_MAX + 1] = {
	[SMC_LO_S_DMB_TYPE] = NLA_POLICY_MAX(NLA_U8, SMC_LO_DMB_VIRT),
	[SMC_LO_S_NOCOPY] = NLA_POLICY_MAX(NLA_U8, 1),
	[SMC_LO_S_MAX_DMBS] = NLA_POLICY_FULL_RANGE(NLA_U32, &smclo_max_dmbs_range),
};

static const struct netlink_range_validation smclo_drain_range = {
	.min = 0,
	.max = SMC_LO_DRAIN_TIMEOUT_MAX_MS,
};

/* No attribute allowed (strict validation rejects every type without a policy entry). */
static const struct nla_policy smclo_none_policy[SMC_LO_A_MAX + 1] = {
};

static const struct nla_policy smclo_deactivate_policy[SMC_LO_A_MAX + 1] = {
	[SMC_LO_A_DRAIN_TIMEOUT_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &smclo_drain_range),
};

static const struct nla_policy smclo_set_policy[SMC_LO_A_MAX + 1] = {
	[SMC_LO_A_SETTINGS] = NLA_POLICY_NESTED(smclo_settings_policy),
};

static struct genl_family smclo_genl_family;

static int smclo_put_settings(struct sk_buff *skb, int attr, const struct smclo_settings *set)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, attr);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u8(skb, SMC_LO_S_DMB_TYPE, set->dmb_type) ||
	    nla_put_u8(skb, SMC_LO_S_NOCOPY, set->nocopy) ||
	    nla_put_u32(skb, SMC_LO_S_MAX_DMBS, set->max_dmbs)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int smclo_put_counters(struct sk_buff *skb, const struct smclo_snapshot *snap)
{
	struct nlattr *nest;
	int i;

	nest = nla_nest_start(skb, SMC_LO_A_COUNTERS);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, SMC_LO_C_DMBS, snap->dmbs) ||
	    nla_put_u64_64bit(skb, SMC_LO_C_DMB_BYTES, snap->dmb_bytes, SMC_LO_C_PAD) ||
	    nla_put_u32(skb, SMC_LO_C_ATTACHED, snap->attached) ||
	    nla_put_u32(skb, SMC_LO_C_LINK_GROUPS, snap->link_groups))
		goto cancel;
	for (i = 0; i < ARRAY_SIZE(snap->totals); i++) {
		if (nla_put_u64_64bit(skb, SMC_LO_C_REGISTRATIONS + i, snap->totals[i],
				      SMC_LO_C_PAD))
			goto cancel;
	}
	nla_nest_end(skb, nest);
	return 0;

cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int smclo_put_device(struct sk_buff *skb, const struct smclo_snapshot *snap)
{
	if (!snap->has_dev)
		return 0;
	if (nla_put(skb, SMC_LO_A_GID, SMC_LO_GID_LEN, &snap->gid) ||
	    nla_put_u16(skb, SMC_LO_A_FABRIC_ID, DIBS_LOOPBACK_FABRIC) ||
	    nla_put_u32(skb, SMC_LO_A_GENERATION, snap->generation) ||
	    smclo_put_settings(skb, SMC_LO_A_ACTIVE_SETTINGS, &snap->active))
		return -EMSGSIZE;
	if (snap->state != SMC_LO_STATE_DRAINING)
		return 0;
	if (nla_put_u32(skb, SMC_LO_A_DRAIN_TIMEOUT_MS, snap->drain_timeout_ms) ||
	    nla_put_u8(skb, SMC_LO_A_REMOVING, snap->removing))
		return -EMSGSIZE;
	if (!snap->removing &&
	    nla_put_u32(skb, SMC_LO_A_DRAIN_REMAINING_MS, snap->drain_remaining_ms))
		return -EMSGSIZE;
	return 0;
}

/* The attributes of a GET reply; also the body of replies and notifications. */
static int smclo_fill(struct sk_buff *skb, const struct smclo_snapshot *snap)
{
	if (nla_put_string(skb, SMC_LO_A_DEV_NAME, smclo_ctl.devname) ||
	    nla_put_u8(skb, SMC_LO_A_STATE, snap->state) ||
	    nla_put_u8(skb, SMC_LO_A_PENDING, snap->pending))
		return -EMSGSIZE;
	if (smclo_put_device(skb, snap) ||
	    smclo_put_settings(skb, SMC_LO_A_SETTINGS, &snap->next) ||
	    smclo_put_counters(skb, snap))
		return -EMSGSIZE;
	return 0;
}

/* Build one message; @extra_attr (u8 @extra_val) is added unless it is 0. */
static struct sk_buff *smclo_msg(u32 portid, u32 seq, u8 cmd, const struct smclo_snapshot *snap,
				 int extra_attr, u8 extra_val)
{
	struct sk_buff *skb;
	void *hdr;

	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return NULL;
	hdr = genlmsg_put(skb, portid, seq, &smclo_genl_family, 0, cmd);
	if (!hdr)
		goto err;
	if (smclo_fill(skb, snap))
		goto err;
	if (extra_attr && nla_put_u8(skb, extra_attr, extra_val))
		goto err;
	genlmsg_end(skb, hdr);
	return skb;

err:
	nlmsg_free(skb);
	return NULL;
}

static int smclo_reply(struct genl_info *info, int extra_attr, u8 extra_val)
{
	struct smclo_snapshot snap;
	struct sk_buff *skb;

	smclo_snapshot(&snap);
	skb = smclo_msg(info->snd_portid, info->snd_seq, info->genlhdr->cmd, &snap, extra_attr,
			extra_val);
	if (!skb)
		return -ENOMEM;
	return genlmsg_reply(skb, info);
}

static int smclo_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return smclo_reply(info, 0, 0);
}

/* A dump of the one device: a single message. */
static int smclo_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct smclo_snapshot snap;
	void *hdr;

	if (cb->args[0])
		return 0;
	smclo_snapshot(&snap);
	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &smclo_genl_family, NLM_F_MULTI, SMC_LO_CMD_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (smclo_fill(skb, &snap)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	cb->args[0] = 1;
	return skb->len;
}

static int smclo_activate_doit(struct sk_buff *skb, struct genl_info *info)
{
	int rc;

	rc = smclo_activate(info->extack);
	if (rc)
		return rc;
	return smclo_reply(info, 0, 0);
}

static int smclo_deactivate_doit(struct sk_buff *skb, struct genl_info *info)
{
	u32 timeout_ms = SMC_LO_DRAIN_TIMEOUT_DEFAULT_MS;
	int rc;

	if (info->attrs[SMC_LO_A_DRAIN_TIMEOUT_MS])
		timeout_ms = nla_get_u32(info->attrs[SMC_LO_A_DRAIN_TIMEOUT_MS]);
	rc = smclo_deactivate(timeout_ms, info->extack);
	if (rc)
		return rc;
	return smclo_reply(info, 0, 0);
}

static int smclo_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct smclo_settings_req req = { .dmb_type = -1, .nocopy = -1, .max_dmbs = -1 };
	struct nlattr *tb[SMC_LO_S_MAX + 1];
	int rc, apply;

	if (GENL_REQ_ATTR_CHECK(info, SMC_LO_A_SETTINGS))
		return -EINVAL;
	rc = nla_parse_nested(tb, SMC_LO_S_MAX, info->attrs[SMC_LO_A_SETTINGS],
			      smclo_settings_policy, info->extack);
	if (rc)
		return rc;
	if (!tb[SMC_LO_S_DMB_TYPE] && !tb[SMC_LO_S_NOCOPY] && !tb[SMC_LO_S_MAX_DMBS]) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[SMC_LO_A_SETTINGS],
				    "no setting given");
		return -EINVAL;
	}
	if (tb[SMC_LO_S_DMB_TYPE]) {
		req.dmb_type = nla_get_u8(tb[SMC_LO_S_DMB_TYPE]);
		if (req.dmb_type == SMC_LO_DMB_VIRT && !smclo_unsafe_virt_allowed()) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[SMC_LO_S_DMB_TYPE],
					    "virtual DMBs are unsafe with SMC-D: it uses virt_to_page() on the DMB and splice() passes that page on; see smc-lo(4)");
			return -EOPNOTSUPP;
		}
	}
	if (tb[SMC_LO_S_NOCOPY])
		req.nocopy = nla_get_u8(tb[SMC_LO_S_NOCOPY]);
	if (tb[SMC_LO_S_MAX_DMBS])
		req.max_dmbs = nla_get_u32(tb[SMC_LO_S_MAX_DMBS]);

	apply = smclo_settings_update(&req);
	return smclo_reply(info, SMC_LO_A_APPLY, apply);
}

static const struct genl_ops smclo_genl_ops[] = {
	{
		.cmd = SMC_LO_CMD_GET,
		.doit = smclo_get_doit,
		.dumpit = smclo_get_dumpit,
		.policy = smclo_none_policy,
		.maxattr = SMC_LO_A_MAX,
	},
	{
		.cmd = SMC_LO_CMD_ACTIVATE,
		.flags = GENL_ADMIN_PERM,
		.doit = smclo_activate_doit,
		.policy = smclo_none_policy,
		.maxattr = SMC_LO_A_MAX,
	},
	{
		.cmd = SMC_LO_CMD_DEACTIVATE,
		.flags = GENL_ADMIN_PERM,
		.doit = smclo_deactivate_doit,
		.policy = smclo_deactivate_policy,
		.maxattr = SMC_LO_A_MAX,
	},
	{
		.cmd = SMC_LO_CMD_SET,
		.flags = GENL_ADMIN_PERM,
		.doit = smclo_set_doit,
		.policy = smclo_set_policy,
		.maxattr = SMC_LO_A_MAX,
	},
};

static const struct genl_multicast_group smclo_mcgrps[] = {
	{ .name = SMC_LO_MCGRP_STATE },
};

static struct genl_family smclo_genl_family __ro_after_init = {
	.name = SMC_LO_GENL_NAME,
	.version = SMC_LO_GENL_VERSION,
	.netnsok = false,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = smclo_genl_ops,
	.n_ops = ARRAY_SIZE(smclo_genl_ops),
	.resv_start_op = SMC_LO_CMD_MAX + 1,
	.mcgrps = smclo_mcgrps,
	.n_mcgrps = ARRAY_SIZE(smclo_mcgrps),
};

/**
 * smclo_notify_locked() - announce a change on the "state" multicast group
 * @event: what happened
 *
 * Sent under smclo_ctl.lock, with a snapshot taken under it, so listeners see events in
 * the order the state changed.  Allocation failures lose the event (listeners can GET).
 *
 * Context: process context, smclo_ctl.lock held.
 */
void smclo_notify_locked(enum smc_lo_event event)
{
	struct smclo_snapshot snap;
	struct sk_buff *skb;

	lockdep_assert_held(&smclo_ctl.lock);
	if (smclo_ctl.exiting || !genl_has_listeners(&smclo_genl_family, &init_net, 0))
		return;
	smclo_snapshot_locked(&snap);
	skb = smclo_msg(0, 0, SMC_LO_CMD_NOTIFY, &snap, SMC_LO_A_EVENT, event);
	if (skb)
		genlmsg_multicast(&smclo_genl_family, skb, 0, 0, GFP_KERNEL);
}

int smclo_genl_init(void)
{
	return genl_register_family(&smclo_genl_family);
}

void smclo_genl_exit(void)
{
	mutex_lock(&smclo_ctl.lock);
	smclo_ctl.exiting = true;
	mutex_unlock(&smclo_ctl.lock);
	genl_unregister_family(&smclo_genl_family);
}
