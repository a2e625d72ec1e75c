// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The netdevs of RDMA device ports, named for the caller's network namespace, through RDMA
 * netlink (NETLINK_RDMA, "nldev": what `rdma link show` uses).
 *
 * Why: SMC's GET_DEV_SMCR (port NETDEV) and GET_LINK_SMCR (link NET_DEV) carry a bare
 * ifindex, which is the ifindex in the netdev's OWN network namespace.  In the RDMA
 * subsystem's default "shared" netns mode every RDMA device is visible from every netns,
 * while its netdev lives in one of them: soft-RoCE on a veth in another netns (the SMC-R
 * VM lane: rxe0 on vethA in netns smcA), a RoCE function given to a container.  Resolving
 * such an ifindex with if_indextoname() in our netns names nothing or, worse, an unrelated
 * netdev that happens to have the same number.  Nor does the link group's netns cookie
 * help: SMC sets it to the RDMA device's netns (smc_ib_net(): init_net in shared mode), not
 * to the netdev's or the sockets'.
 * nldev's port dump reports the port's netdev (RDMA_NLDEV_ATTR_NDEV_INDEX/NAME) only when
 * it is in the requester's netns (fill_port_info(): net_eq(dev_net(netdev), net)), so it
 * answers exactly the question: a name for (device, port, ifindex) or none.
 *
 * Requests (record/replay keys): RDMA_NLDEV_CMD_GET dump ("rdma-dev-get": one message per
 * device), then one RDMA_NLDEV_CMD_PORT_GET dump per device with DEV_INDEX
 * ("rdma-port-get", "-2", ... in device order).  No privileges needed.  Replies carry no
 * family header: attributes follow the netlink header.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "netlink/smcnl-internal.h"
#include "netlink/uapi/rdma_netlink.h"

#define RDMA_ATTR_MAX RDMA_NLDEV_ATTR_NDEV_NAME

static int rdma_parse(struct nlmsghdr *nlh, struct nlattr **tb)
{
	if (!nlmsg_valid_hdr(nlh, 0))
		return -EBADMSG;
	return smcnl_parse_attrs(tb, RDMA_ATTR_MAX, nlmsg_attrdata(nlh, 0), nlmsg_attrlen(nlh, 0));
}

struct rdma_dev {
	uint32_t index;
	uint8_t node_type;
	char name[SMC_IB_NAME_LEN + 1];
};

struct dev_ctx {
	struct rdma_dev *v;
	size_t n;
};

static int dev_msg(struct nlmsghdr *nlh, void *userdata)
{
	struct nlattr *tb[RDMA_ATTR_MAX + 1];
	struct dev_ctx *c = userdata;
	struct rdma_dev d = {};
	int r;

	r = rdma_parse(nlh, tb);
	if (r < 0)
		return r;
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_DEV_NAME])
		return -EBADMSG;
	r = attr_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX], &d.index);
	r = r ?: attr_str(tb[RDMA_NLDEV_ATTR_DEV_NAME], d.name, sizeof(d.name));
	r = r ?: attr_u8(tb[RDMA_NLDEV_ATTR_DEV_NODE_TYPE], &d.node_type);
	if (r < 0)
		return r;
	return SMCNL_APPEND(c->v, c->n, d);
}

struct port_ctx {
	const struct rdma_dev *dev;
	struct smcnl_rdma_port *v;
	size_t n;
};

static int port_msg(struct nlmsghdr *nlh, void *userdata)
{
	struct nlattr *tb[RDMA_ATTR_MAX + 1];
	struct port_ctx *c = userdata;
	struct smcnl_rdma_port p = {};
	int r;

	r = rdma_parse(nlh, tb);
	if (r < 0)
		return r;
	if (!tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		return -EBADMSG;
	snprintf(p.ib_dev, sizeof(p.ib_dev), "%s", c->dev->name);
	p.node_type = c->dev->node_type;
	r = attr_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX], &p.port);
	r = r ?: attr_u8(tb[RDMA_NLDEV_ATTR_PORT_STATE], &p.state);
	r = r ?: attr_u32(tb[RDMA_NLDEV_ATTR_NDEV_INDEX], &p.ifindex);
	r = r ?: attr_str(tb[RDMA_NLDEV_ATTR_NDEV_NAME], p.netdev, sizeof(p.netdev));
	if (r < 0)
		return r;
	/* Both or neither (the kernel puts them together); half of it names nothing. */
	if (!p.ifindex || !p.netdev[0]) {
		p.ifindex = 0;
		p.netdev[0] = '\0';
	}
	return SMCNL_APPEND(c->v, c->n, p);
}

int smcnl_rdma_ports(struct smcnl *nl, struct smcnl_rdma_port **ret, size_t *ret_n)
{
	struct dev_ctx d = {};
	struct port_ctx p = {};
	struct nl_msg *msg;
	int r;

	msg = smcnl_msg_new(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET), NLM_F_DUMP);
	if (!msg)
		return -ENOMEM;
	r = smcnl_request(nl, SMCNL_PROTO_RDMA, msg, "rdma-dev-get", dev_msg, &d);
	for (size_t i = 0; r >= 0 && i < d.n; i++) {
		msg = smcnl_msg_new(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_PORT_GET),
				    NLM_F_DUMP);
		if (!msg) {
			r = -ENOMEM;
			break;
		}
		if (nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, d.v[i].index) < 0) {
			nlmsg_free(msg);
			r = -ENOMEM;
			break;
		}
		p.dev = &d.v[i];
		r = smcnl_request(nl, SMCNL_PROTO_RDMA, msg, "rdma-port-get", port_msg, &p);
	}
	free(d.v);
	if (r < 0) {
		free(p.v);
		return r;
	}
	*ret = p.v;
	*ret_n = p.n;
	return 0;
}

void smcnl_rdma_netdev_name(const struct smcnl_rdma_port *v, size_t n, const char *ib_dev,
			    uint32_t port, uint32_t ifindex, char buf[IF_NAMESIZE])
{
	buf[0] = '\0';
	if (!ifindex)
		return;
	for (size_t i = 0; i < n; i++)
		if (v[i].port == port && v[i].ifindex == ifindex && streq(v[i].ib_dev, ib_dev)) {
			snprintf(buf, IF_NAMESIZE, "%s", v[i].netdev);
			return;
		}
}
