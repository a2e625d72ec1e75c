// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SMC-R reach of the caller's network namespace: which of its netdevs an SMC-R connection
 * can leave through, and over which RDMA port - by the rule SMC itself applies to the
 * interface a connection's route leaves through (net/smc/smc_pnet.c of 7.3,
 * smc_pnet_find_roce_resource() -> smc_pnet_find_roce_by_pnetid()):
 *
 *   1. the base device: the netdev's lowest device (pnet_find_base_ndev(): lower_level
 *      steps down the first lower device; a VLAN's real device, a bond's first port);
 *   2. its PNET ID: the base device's hardware PNET ID (s390), else the PNET table's ETH
 *      entry of the base device, else of the netdev itself (the table of the netdev's
 *      netns);
 *   3. with a PNET ID: an RDMA port with the same PNET ID (_smc_pnet_find_roce_by_pnetid());
 *      without: the RDMA port whose netdev is the base device (smc_pnet_find_rdma_dev()) -
 *      a port of a device the netns may use (rdma_dev_access_netns()), active, of a
 *      channel adapter (the only devices SMC takes, smc_ib_add_dev()).
 *
 * A netdev is identified by its ifindex in THIS netns, never by a name seen elsewhere: RDMA
 * netlink's port dump reports a port's netdev (RDMA_NLDEV_ATTR_NDEV_INDEX) only to a socket
 * of the netdev's own netns (drivers/infiniband/core/nldev.c fill_port_info(): net_eq(
 * dev_net(netdev), net)), and only the devices that netns may use (ib_enum_all_devs():
 * rdma_dev_access_netns()).  So an `eth0` of a container is not taken for the host's.
 *
 * Requests, in this order (record/replay keys): RTM_GETLINK dump ("rtnl-getlink"); when
 * /sys/class/infiniband exists (the RDMA core is loaded: it is never loaded for this) the
 * RDMA netlink dumps of rdma.c; when smc is loaded (never loaded for this either; no PNET ID
 * exists without it) GET_DEV_SMCR for the ports' PNET IDs and the PNET table dump.
 *
 * What is not seen: hardware PNET IDs of netdevs (s390: from the channel subsystem, which
 * no netlink reply carries), so on s390 a netdev with one is judged by its RDMA port;
 * lower devices in another netns (a macvlan whose real device stays in the host) are not
 * followed (lower_elsewhere says so).  Which port of a bond is "first" is the order the
 * ports were added in, which no dump says: the one with the lowest ifindex is taken.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "netlink/smcnl-internal.h"
#include "netlink/uapi/rdma_netlink.h"

#define LOWER_STEPS 8 /* MAX_NEST_DEV */

struct link {
	uint32_t index;
	uint32_t link;	 /* IFLA_LINK: for a stacked kind, the device below */
	bool link_netns; /* IFLA_LINK_NETNSID: that device is in another netns */
	uint32_t master; /* IFLA_MASTER */
	char name[IF_NAMESIZE];
	char kind[32]; /* IFLA_INFO_KIND, "" for a plain device */
};

struct link_ctx {
	struct link *v;
	size_t n;
};

static int link_msg(struct nlmsghdr *nlh, void *userdata)
{
	struct nlattr *tb[IFLA_LINK_NETNSID + 1], *info[IFLA_INFO_KIND + 1];
	struct link_ctx *c = userdata;
	struct link l = {};
	struct ifinfomsg *ifi;
	int r;

	if (nlh->nlmsg_type != RTM_NEWLINK)
		return 0;
	if (!nlmsg_valid_hdr(nlh, sizeof(*ifi)))
		return -EBADMSG;
	ifi = nlmsg_data(nlh);
	r = smcnl_parse_attrs(tb, IFLA_LINK_NETNSID, nlmsg_attrdata(nlh, sizeof(*ifi)),
			      nlmsg_attrlen(nlh, sizeof(*ifi)));
	if (r < 0)
		return r;
	if (ifi->ifi_index <= 0 || !tb[IFLA_IFNAME])
		return -EBADMSG;
	l.index = (uint32_t)ifi->ifi_index;
	r = attr_str(tb[IFLA_IFNAME], l.name, sizeof(l.name));
	r = r ?: attr_u32(tb[IFLA_LINK], &l.link);
	r = r ?: attr_u32(tb[IFLA_MASTER], &l.master);
	if (r == 0 && tb[IFLA_LINKINFO]) {
		r = smcnl_parse_nested(info, IFLA_INFO_KIND, tb[IFLA_LINKINFO]);
		r = r ?: attr_str(info[IFLA_INFO_KIND], l.kind, sizeof(l.kind));
	}
	if (r < 0)
		return r;
	l.link_netns = tb[IFLA_LINK_NETNSID] != NULL;
	return SMCNL_APPEND(c->v, c->n, l);
}

static int link_dump(struct smcnl *nl, struct link_ctx *c)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct nl_msg *msg = nlmsg_alloc_simple(RTM_GETLINK, NLM_F_DUMP);

	if (!msg)
		return -ENOMEM;
	if (nlmsg_append(msg, &ifi, sizeof(ifi), NLMSG_ALIGNTO) < 0 ||
	    nla_put_u32(msg, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return smcnl_request(nl, SMCNL_PROTO_ROUTE, msg, "rtnl-getlink", link_msg, c);
}

static const struct link *link_by_index(const struct link_ctx *c, uint32_t index)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].index == index)
			return &c->v[i];
	return NULL;
}

/* Kinds that sit on the device IFLA_LINK names (netdev_upper_dev_link() to it). */
static bool stacked_kind(const char *kind)
{
	static const char *const kinds[] = { "vlan",   "macvlan", "macvtap",
					     "ipvlan", "ipvtap",  "macsec" };

	for (size_t i = 0; i < ELEMENTSOF(kinds); i++)
		if (streq(kind, kinds[i]))
			return true;
	return false;
}

/* The device below l: NULL none; *elsewhere when it is in another netns. */
static const struct link *lower_of(const struct link_ctx *c, const struct link *l, bool *elsewhere)
{
	const struct link *best = NULL;

	if (stacked_kind(l->kind) && l->link && l->link != l->index) {
		if (l->link_netns) {
			*elsewhere = true;
			return NULL;
		}
		return link_by_index(c, l->link);
	}
	/* a master (bond, team, bridge): its ports name it */
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].master == l->index && (!best || c->v[i].index < best->index))
			best = &c->v[i];
	return best;
}

static const char *table_pnetid(const struct smc_pnet_entry *t, size_t n, const char *netdev)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].eth_name[0] && streq(t[i].eth_name, netdev) && t[i].pnetid[0])
			return t[i].pnetid;
	return NULL;
}

static const char *port_pnetid(const struct smcr_device *d, size_t n, const char *ib_dev,
			       uint32_t port)
{
	if (port < 1 || port > ELEMENTSOF(d->ports))
		return "";
	for (size_t i = 0; i < n; i++)
		if (streq(d[i].ib_name, ib_dev) && d[i].ports[port - 1].valid)
			return d[i].ports[port - 1].pnet.pnetid;
	return "";
}

static bool port_usable(const struct smcnl_rdma_port *p)
{
	return p->state == SMCNL_IB_PORT_ACTIVE && p->node_type == RDMA_NODE_IB_CA;
}

int smcr_reach_list(struct smcnl *nl, struct smcr_reach **ret, size_t *ret_n)
{
	_cleanup_(freep) struct smcnl_rdma_port *ports = NULL;
	_cleanup_(freep) struct smc_pnet_entry *table = NULL;
	_cleanup_(freep) struct smcr_device *devs = NULL;
	_cleanup_(freep) struct link *links = NULL;
	struct smcr_reach *v = NULL;
	size_t n_ports = 0, n_table = 0, n_devs = 0, n = 0;
	struct link_ctx lc = {};
	int r;

	r = link_dump(nl, &lc);
	links = lc.v;
	if (r < 0)
		return r;
	if (smcnl_path_exists(nl, "/sys/class/infiniband")) {
		r = smcnl_rdma_ports(nl, &ports, &n_ports);
		if (r < 0)
			return r;
	}
	if (smcnl_path_exists(nl, "/sys/module/smc") || smcnl_path_exists(nl, "/proc/sys/net/smc")) {
		/* A family gone by now is smc unloaded since: no PNET IDs then. */
		r = n_ports ? smcnl_smcr_dev_dump(nl, &devs, &n_devs) : 0;
		r = r ?: smc_pnet_list(nl, NULL, &table, &n_table);
		if (r == -EPROTONOSUPPORT) {
			n_devs = n_table = 0;
			r = 0;
		}
		if (r < 0)
			return r;
	}
	v = calloc(lc.n ? lc.n : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < lc.n; i++) {
		const struct link *l = &lc.v[i], *base = l, *low;
		struct smcr_reach e = { .ifindex = l->index };
		const char *pnetid;
		bool elsewhere = false;

		for (unsigned s = 0; s < LOWER_STEPS && (low = lower_of(&lc, base, &elsewhere)); s++)
			base = low;
		pnetid = table_pnetid(table, n_table, base->name)
				 ?: table_pnetid(table, n_table, l->name);
		snprintf(e.netdev, sizeof(e.netdev), "%s", l->name);
		if (base != l)
			snprintf(e.lower, sizeof(e.lower), "%s", base->name);
		e.lower_elsewhere = elsewhere;
		if (pnetid)
			snprintf(e.pnetid, sizeof(e.pnetid), "%s", pnetid);
		for (size_t j = 0; j < n_ports; j++) {
			const struct smcnl_rdma_port *p = &ports[j];

			if (!port_usable(p))
				continue;
			if (pnetid ? !streq(port_pnetid(devs, n_devs, p->ib_dev, p->port), pnetid)
				   : p->ifindex != base->index)
				continue;
			snprintf(e.ib_dev, sizeof(e.ib_dev), "%s", p->ib_dev);
			e.ib_port = (uint8_t)p->port;
			break;
		}
		if (e.ib_dev[0] || e.pnetid[0] || e.lower_elsewhere)
			v[n++] = e;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}
