// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Link groups: SMC_NETLINK_GET_LGR_SMCD, GET_LGR_SMCR and GET_LINK_SMCR.
 *
 * Wire facts (net/smc/smc_core.c, 7.3):
 *   - Dumps are global (all network namespaces).  SMC-R link groups carry the netns cookie;
 *     SMC-D ones carry nothing to tell the netns.
 *   - GET_LINK_SMCR sends, per link group, one GET_LGR_SMCR message followed by one
 *     GET_LINK_SMCR message per usable link; link messages carry no link group id, so a
 *     link belongs to the link group message before it.  When a batch fills up in the
 *     middle of a link group, that link group is re-sent whole in the next batch: link
 *     groups are deduplicated by id, and a re-sent one starts with no links again.
 *     (7.3 cancels the partial group with genlmsg_cancel(), so the re-send is not a
 *     duplicate there, but older kernels and the SMC-D device cursor are not as careful;
 *     deduplicating SMC-D link groups by id too costs nothing.)
 *   - SMC_NLA_LGR_*_VLAN_ID is the kernel's 16-bit VLAN id truncated to 8 bits.
 *   - SMC_NLA_LGR_D_CHID is a u32 on the wire; *_ALLOC are "uint" (4 or 8 bytes, 6.12+);
 *     EXT_GID / PEER_EXT_GID exist since 6.8; the V2_COMMON nest starts at type 0.
 *   - SMC-D GID (7.3): GID = first 8 bytes of the DIBS device UUID read big-endian,
 *     EXT_GID = the last 8; so "%016llx%016llx" equals the sysfs gid without dashes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "netlink/smcnl-internal.h"

void smcd_gid_format(uint64_t gid, uint64_t ext_gid, char ret[33])
{
	snprintf(ret, 33, "%016" PRIx64 "%016" PRIx64, gid, ext_gid);
}

static int lgr_v2_parse(const struct nlattr *nest, struct smc_lgr_v2 *v2)
{
	/* This nest has no UNSPEC: SMC_NLA_LGR_V2_VER is attribute type 0. */
	struct nlattr *tb[SMC_NLA_LGR_V2_MAX + 1];
	int r;

	if (!nest)
		return 0;
	r = smcnl_parse_nested(tb, SMC_NLA_LGR_V2_MAX, nest);
	r = r ?: attr_u8(tb[SMC_NLA_LGR_V2_VER], &v2->ver);
	r = r ?: attr_u8(tb[SMC_NLA_LGR_V2_REL], &v2->rel);
	r = r ?: attr_u8(tb[SMC_NLA_LGR_V2_OS], &v2->os);
	r = r ?: attr_str(tb[SMC_NLA_LGR_V2_NEG_EID], v2->neg_eid, sizeof(v2->neg_eid));
	r = r ?: attr_str(tb[SMC_NLA_LGR_V2_PEER_HOST], v2->peer_host, sizeof(v2->peer_host));
	if (r < 0)
		return r;
	strip_blanks(v2->neg_eid);
	strip_blanks(v2->peer_host);
	v2->present = true;
	return 0;
}

/* ---- SMC-D ------------------------------------------------------------------------------- */

static int lgr_d_parse(const struct nlattr *nest, struct smcd_linkgroup *lg)
{
	struct nlattr *tb[SMC_NLA_LGR_D_MAX + 1];
	int r;

	memset(lg, 0, sizeof(*lg));
	r = smcnl_parse_nested(tb, SMC_NLA_LGR_D_MAX, nest);
	if (r < 0)
		return r;
	if (!tb[SMC_NLA_LGR_D_ID])
		return -EBADMSG;
	r = r ?: attr_u32(tb[SMC_NLA_LGR_D_ID], &lg->id);
	r = r ?: attr_u64(tb[SMC_NLA_LGR_D_GID], &lg->gid);
	r = r ?: attr_u64(tb[SMC_NLA_LGR_D_EXT_GID], &lg->ext_gid);
	r = r ?: attr_u64(tb[SMC_NLA_LGR_D_PEER_GID], &lg->peer_gid);
	r = r ?: attr_u64(tb[SMC_NLA_LGR_D_PEER_EXT_GID], &lg->peer_ext_gid);
	r = r ?: attr_u8(tb[SMC_NLA_LGR_D_VLAN_ID], &lg->vlan_id);
	r = r ?: attr_u32(tb[SMC_NLA_LGR_D_CONNS_NUM], &lg->conns);
	r = r ?: attr_u32(tb[SMC_NLA_LGR_D_CHID], &lg->chid);
	r = r ?: attr_uint(tb[SMC_NLA_LGR_D_SNDBUF_ALLOC], &lg->sndbuf_alloc);
	r = r ?: attr_uint(tb[SMC_NLA_LGR_D_DMB_ALLOC], &lg->dmb_alloc);
	r = r ?: attr_str(tb[SMC_NLA_LGR_D_PNETID], lg->pnetid, sizeof(lg->pnetid));
	r = r ?: lgr_v2_parse(tb[SMC_NLA_LGR_D_V2_COMMON], &lg->v2);
	if (r < 0)
		return r;
	lg->has_ext_gid = tb[SMC_NLA_LGR_D_EXT_GID] != NULL;
	lg->has_alloc = tb[SMC_NLA_LGR_D_SNDBUF_ALLOC] || tb[SMC_NLA_LGR_D_DMB_ALLOC];
	strip_blanks(lg->pnetid);
	return 0;
}

struct lgr_d_ctx {
	struct smcd_linkgroup *v;
	size_t n;
};

static int lgr_d_msg(struct nlmsghdr *nlh, void *userdata)
{
	struct nlattr *tb[SMC_GEN_MAX + 1];
	struct lgr_d_ctx *c = userdata;
	struct smcd_linkgroup lg;
	uint8_t cmd;
	int r;

	r = smcnl_parse_genl(nlh, tb, SMC_GEN_MAX, &cmd);
	if (r < 0)
		return r;
	if (cmd != SMC_NETLINK_GET_LGR_SMCD || !tb[SMC_GEN_LGR_SMCD])
		return 0;
	r = lgr_d_parse(tb[SMC_GEN_LGR_SMCD], &lg);
	if (r < 0)
		return r;
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].id == lg.id) {
			c->v[i] = lg; /* re-sent: the newer copy wins */
			return 0;
		}
	return SMCNL_APPEND(c->v, c->n, lg);
}

void smcnl_lgr_device_name(const struct smcd_linkgroup *lg, const struct smcnl_dibs *dibs,
			   size_t n_dibs, bool dibs_class, char *buf, size_t len)
{
	char hex[33];

	buf[0] = '\0';
	smcd_gid_format(lg->gid, lg->ext_gid, hex);
	for (size_t i = 0; i < n_dibs; i++)
		if (dibs[i].gid_hex[0] && streq(dibs[i].gid_hex, hex)) {
			snprintf(buf, len, "%s", dibs[i].name);
			return;
		}
	/*
	 * 6.10-6.17: the loopback device lived inside smc.ko as "loopback-ism" and was never
	 * in sysfs (no /sys/class/dibs at all); fabric id 0xFFFF was used by nothing else.
	 */
	if (!dibs_class && lg->chid == SMC_LOOPBACK_FABRIC)
		snprintf(buf, len, "%s", SMC_BUILTIN_LOOPBACK_NAME);
}

int smcnl_lgr_d_dump(struct smcnl *nl, struct smcd_linkgroup **ret, size_t *ret_n)
{
	struct lgr_d_ctx c = {};
	int r;

	r = smcnl_genl_dump(nl, SMCNL_FAM_SMC, SMC_NETLINK_GET_LGR_SMCD, lgr_d_msg, &c);
	if (r < 0) {
		free(c.v);
		return r;
	}
	*ret = c.v;
	*ret_n = c.n;
	return 0;
}

int smcd_linkgroup_list(struct smcnl *nl, struct smcd_linkgroup **ret, size_t *ret_n)
{
	_cleanup_(freep) struct smcnl_dibs *dibs = NULL;
	struct smcd_linkgroup *v;
	size_t n, n_dibs;
	bool dibs_class = false;
	int r;

	r = smcnl_lgr_d_dump(nl, &v, &n);
	if (r < 0)
		return r;
	/* No group, no device to name: sysfs is not read. */
	r = n ? smcnl_dibs_read(nl, SMCNL_DIBS_GID, &dibs, &n_dibs, &dibs_class) : 0;
	if (r < 0) {
		free(v);
		return r;
	}
	for (size_t i = 0; i < n; i++)
		smcnl_lgr_device_name(&v[i], dibs, n_dibs, dibs_class, v[i].device,
				      sizeof(v[i].device));
	*ret = v;
	*ret_n = n;
	return 0;
}

/* ---- SMC-R ------------------------------------------------------------------------------- */

static int lgr_r_v2_parse(const struct nlattr *nest, struct smcr_linkgroup *lg)
{
	struct nlattr *tb[SMC_NLA_LGR_R_V2_MAX + 1];
	int r;

	if (!nest)
		return 0;
	r = smcnl_parse_nested(tb, SMC_NLA_LGR_R_V2_MAX, nest);
	r = r ?: attr_bool(tb[SMC_NLA_LGR_R_V2_DIRECT], &lg->direct);
	r = r ?: attr_u8(tb[SMC_NLA_LGR_R_V2_MAX_CONNS], &lg->max_conns);
	r = r ?: attr_u8(tb[SMC_NLA_LGR_R_V2_MAX_LINKS], &lg->max_links);
	if (r < 0)
		return r;
	lg->has_v2r = true;
	return 0;
}

static int lgr_r_parse(const struct nlattr *nest, struct smcr_linkgroup *lg)
{
	struct nlattr *tb[SMC_NLA_LGR_R_MAX + 1];
	int r;

	memset(lg, 0, sizeof(*lg));
	r = smcnl_parse_nested(tb, SMC_NLA_LGR_R_MAX, nest);
	if (r < 0)
		return r;
	if (!tb[SMC_NLA_LGR_R_ID])
		return -EBADMSG;
	r = r ?: attr_u32(tb[SMC_NLA_LGR_R_ID], &lg->id);
	r = r ?: attr_u32(tb[SMC_NLA_LGR_R_CONNS_NUM], &lg->conns);
	r = r ?: attr_u8(tb[SMC_NLA_LGR_R_ROLE], &lg->role);
	r = r ?: attr_u8(tb[SMC_NLA_LGR_R_TYPE], &lg->type);
	r = r ?: attr_u8(tb[SMC_NLA_LGR_R_BUF_TYPE], &lg->buf_type);
	r = r ?: attr_u8(tb[SMC_NLA_LGR_R_VLAN_ID], &lg->vlan_id);
	r = r ?: attr_u64(tb[SMC_NLA_LGR_R_NET_COOKIE], &lg->net_cookie);
	r = r ?: attr_str(tb[SMC_NLA_LGR_R_PNETID], lg->pnetid, sizeof(lg->pnetid));
	r = r ?: attr_uint(tb[SMC_NLA_LGR_R_SNDBUF_ALLOC], &lg->sndbuf_alloc);
	r = r ?: attr_uint(tb[SMC_NLA_LGR_R_RMB_ALLOC], &lg->rmb_alloc);
	r = r ?: lgr_v2_parse(tb[SMC_NLA_LGR_R_V2_COMMON], &lg->v2);
	r = r ?: lgr_r_v2_parse(tb[SMC_NLA_LGR_R_V2], lg);
	if (r < 0)
		return r;
	lg->has_buf_type = tb[SMC_NLA_LGR_R_BUF_TYPE] != NULL;
	lg->has_net_cookie = tb[SMC_NLA_LGR_R_NET_COOKIE] != NULL;
	lg->has_alloc = tb[SMC_NLA_LGR_R_SNDBUF_ALLOC] || tb[SMC_NLA_LGR_R_RMB_ALLOC];
	strip_blanks(lg->pnetid);
	return 0;
}

static int link_parse(const struct nlattr *nest, struct smcr_link *l)
{
	struct nlattr *tb[SMC_NLA_LINK_MAX + 1];
	int r;

	memset(l, 0, sizeof(*l));
	r = smcnl_parse_nested(tb, SMC_NLA_LINK_MAX, nest);
	r = r ?: attr_u8(tb[SMC_NLA_LINK_ID], &l->id);
	r = r ?: attr_u32(tb[SMC_NLA_LINK_STATE], &l->state);
	r = r ?: attr_u32(tb[SMC_NLA_LINK_CONN_CNT], &l->conn_cnt);
	r = r ?: attr_u8(tb[SMC_NLA_LINK_IB_PORT], &l->ib_port);
	r = r ?: attr_u32(tb[SMC_NLA_LINK_NET_DEV], &l->netdev_ifindex);
	r = r ?: attr_str(tb[SMC_NLA_LINK_IB_DEV], l->ib_dev, sizeof(l->ib_dev));
	r = r ?: attr_u32(tb[SMC_NLA_LINK_UID], &l->uid);
	r = r ?: attr_u32(tb[SMC_NLA_LINK_PEER_UID], &l->peer_uid);
	r = r ?: attr_str(tb[SMC_NLA_LINK_GID], l->gid, sizeof(l->gid));
	r = r ?: attr_str(tb[SMC_NLA_LINK_PEER_GID], l->peer_gid, sizeof(l->peer_gid));
	return r;
}

struct lgr_r_ctx {
	struct smcr_linkgroup *v;
	size_t n;
	ssize_t cur; /* the link group the next link message belongs to */
};

static int lgr_r_add(struct lgr_r_ctx *c, const struct smcr_linkgroup *lg)
{
	struct smcr_linkgroup *nv;

	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].id == lg->id) {
			/* Re-sent after a full batch: replace it, its links follow again. */
			free(c->v[i].links);
			c->v[i] = *lg;
			c->cur = (ssize_t)i;
			return 0;
		}
	nv = realloc(c->v, (c->n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	c->v = nv;
	c->v[c->n] = *lg;
	c->cur = (ssize_t)c->n++;
	return 0;
}

static int link_add(struct smcr_linkgroup *lg, const struct smcr_link *l)
{
	struct smcr_link *nv;

	for (size_t i = 0; i < lg->n_links; i++)
		if (lg->links[i].id == l->id) {
			lg->links[i] = *l;
			return 0;
		}
	nv = realloc(lg->links, (lg->n_links + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	lg->links = nv;
	lg->links[lg->n_links++] = *l;
	return 0;
}

static int lgr_r_msg(struct nlmsghdr *nlh, void *userdata)
{
	struct nlattr *tb[SMC_GEN_MAX + 1];
	struct lgr_r_ctx *c = userdata;
	struct smcr_linkgroup lg;
	struct smcr_link l;
	uint8_t cmd;
	int r;

	r = smcnl_parse_genl(nlh, tb, SMC_GEN_MAX, &cmd);
	if (r < 0)
		return r;
	if (cmd == SMC_NETLINK_GET_LGR_SMCR && tb[SMC_GEN_LGR_SMCR]) {
		r = lgr_r_parse(tb[SMC_GEN_LGR_SMCR], &lg);
		return r < 0 ? r : lgr_r_add(c, &lg);
	}
	if (cmd == SMC_NETLINK_GET_LINK_SMCR && tb[SMC_GEN_LINK_SMCR]) {
		if (c->cur < 0)
			return -EBADMSG; /* a link before any link group */
		r = link_parse(tb[SMC_GEN_LINK_SMCR], &l);
		return r < 0 ? r : link_add(&c->v[c->cur], &l);
	}
	return 0;
}

void smcr_linkgroup_list_free(struct smcr_linkgroup *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i].links);
	free(v);
}

/*
 * Link netdevs: NET_DEV is the ifindex in the netdev's own netns, and the link group's netns
 * cookie does not say which that is (SMC puts the RDMA device's netns there, init_net in the
 * RDMA "shared" mode, whatever netns the sockets and the netdev are in).  A link's netdev is
 * its RDMA port's netdev: name it only when RDMA netlink says that this ifindex is that
 * port's netdev in our netns (rdma.c).  Best effort: without an answer nothing is named.
 */
static void links_name_netdevs(struct smcnl *nl, struct smcr_linkgroup *v, size_t n)
{
	_cleanup_(freep) struct smcnl_rdma_port *ports = NULL;
	size_t n_ports = 0;
	bool any = false;

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < v[i].n_links; j++)
			any |= v[i].links[j].netdev_ifindex != 0;
	if (!any || smcnl_rdma_ports(nl, &ports, &n_ports) < 0)
		return;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < v[i].n_links; j++) {
			struct smcr_link *l = &v[i].links[j];

			smcnl_rdma_netdev_name(ports, n_ports, l->ib_dev, l->ib_port,
					       l->netdev_ifindex, l->netdev);
		}
}

int smcr_linkgroup_list(struct smcnl *nl, bool with_links, struct smcr_linkgroup **ret, size_t *ret_n)
{
	struct lgr_r_ctx c = { .cur = -1 };
	int r;

	r = smcnl_genl_dump(nl, SMCNL_FAM_SMC,
			    with_links ? SMC_NETLINK_GET_LINK_SMCR : SMC_NETLINK_GET_LGR_SMCR,
			    lgr_r_msg, &c);
	if (r < 0) {
		smcr_linkgroup_list_free(c.v, c.n);
		return r;
	}
	links_name_netdevs(nl, c.v, c.n);
	*ret = c.v;
	*ret_n = c.n;
	return 0;
}
