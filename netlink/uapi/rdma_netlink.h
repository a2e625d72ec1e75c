/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * smcd-agent's copy of the few names of the kernel uapi header include/uapi/rdma/
 * rdma_netlink.h (RDMA netlink, NETLINK_RDMA, "nldev") that netlink/smcnl-rdma.c uses, with
 * their values (an ABI: never renumbered; tests/unit/test-netlink-uapi.c checks them
 * against the system's header).  Only these, so no RDMA headers are needed to build.
 */
#ifndef SMCNL_UAPI_RDMA_NETLINK_H
#define SMCNL_UAPI_RDMA_NETLINK_H

#define RDMA_NL_NLDEV 5
#define RDMA_NL_GET_TYPE(client, op) ((client << 10) + op)

#define RDMA_NLDEV_CMD_GET 1      /* can dump: one message per device */
#define RDMA_NLDEV_CMD_PORT_GET 5 /* can dump (needs DEV_INDEX): one message per port */

#define RDMA_NLDEV_ATTR_DEV_INDEX 1      /* u32 */
#define RDMA_NLDEV_ATTR_DEV_NAME 2       /* string */
#define RDMA_NLDEV_ATTR_PORT_INDEX 3     /* u32 */
#define RDMA_NLDEV_ATTR_PORT_STATE 12    /* u8: enum ib_port_state (4 ACTIVE) */
#define RDMA_NLDEV_ATTR_DEV_NODE_TYPE 14 /* u8: RDMA_NODE_* */
#define RDMA_NLDEV_ATTR_NDEV_INDEX 50    /* u32, only if the netdev is in the caller's netns */
#define RDMA_NLDEV_ATTR_NDEV_NAME 51     /* string, same condition */

/* For RDMA_NLDEV_ATTR_DEV_NODE_TYPE: SMC uses channel adapters only (smc_ib_add_dev()). */
#define RDMA_NODE_IB_CA 1

#endif
