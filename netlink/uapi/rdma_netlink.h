/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * smcd-agent's copy of the few names of the kernel uapi header include/uapi/rdma/
 * rdma_netlink.h (RDMA netlink, NETLINK_RDMA, "nldev") that netlink/rdma.c uses, with
 * their values (unchanged since Linux 4.16; tests/unit/test-netlink-uapi.c checks them
 * against the system's header).  Only these, so no RDMA headers are needed to build.
 */
#ifndef SMCNL_UAPI_RDMA_NETLINK_H
#define SMCNL_UAPI_RDMA_NETLINK_H

#define RDMA_NL_NLDEV 5
#define RDMA_NL_GET_TYPE(client, op) ((client << 10) + op)

#define RDMA_NLDEV_CMD_GET 1      /* can dump: one message per device */
#define RDMA_NLDEV_CMD_PORT_GET 5 /* can dump (needs DEV_INDEX): one message per port */

#define RDMA_NLDEV_ATTR_DEV_INDEX 1   /* u32 */
#define RDMA_NLDEV_ATTR_DEV_NAME 2    /* string */
#define RDMA_NLDEV_ATTR_PORT_INDEX 3  /* u32 */
#define RDMA_NLDEV_ATTR_NDEV_INDEX 50 /* u32, only if the netdev is in the caller's netns */
#define RDMA_NLDEV_ATTR_NDEV_NAME 51  /* string, same condition */

#endif
