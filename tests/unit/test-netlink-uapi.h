/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The names the system's uapi headers (<linux/smc.h>, <linux/smc_diag.h> of Debian 12:
 * Linux 6.1; the RDMA netlink names netlink/smcnl-rdma.c uses from <rdma/rdma_netlink.h>)
 * define, for test-netlink-uapi: every one must have the same value in our netlink/uapi
 * copies (7.3).  *_MAX values grow when attributes are appended: ours may only
 * be larger.  Generated once from the 6.1 headers; the test fails to compile if a name is
 * missing on either side.
 */
#pragma once

#include <stddef.h>

#define UAPI_INTS(X)                          \
	X(SMC_PNETID_UNSPEC)                  \
	X(SMC_PNETID_NAME)                    \
	X(SMC_PNETID_ETHNAME)                 \
	X(SMC_PNETID_IBNAME)                  \
	X(SMC_PNETID_IBPORT)                  \
	X(SMC_PNETID_GET)                     \
	X(SMC_PNETID_ADD)                     \
	X(SMC_PNETID_DEL)                     \
	X(SMC_PNETID_FLUSH)                   \
	X(SMC_NETLINK_GET_SYS_INFO)           \
	X(SMC_NETLINK_GET_LGR_SMCR)           \
	X(SMC_NETLINK_GET_LINK_SMCR)          \
	X(SMC_NETLINK_GET_LGR_SMCD)           \
	X(SMC_NETLINK_GET_DEV_SMCD)           \
	X(SMC_NETLINK_GET_DEV_SMCR)           \
	X(SMC_NETLINK_GET_STATS)              \
	X(SMC_NETLINK_GET_FBACK_STATS)        \
	X(SMC_NETLINK_DUMP_UEID)              \
	X(SMC_NETLINK_ADD_UEID)               \
	X(SMC_NETLINK_REMOVE_UEID)            \
	X(SMC_NETLINK_FLUSH_UEID)             \
	X(SMC_NETLINK_DUMP_SEID)              \
	X(SMC_NETLINK_ENABLE_SEID)            \
	X(SMC_NETLINK_DISABLE_SEID)           \
	X(SMC_NETLINK_DUMP_HS_LIMITATION)     \
	X(SMC_NETLINK_ENABLE_HS_LIMITATION)   \
	X(SMC_NETLINK_DISABLE_HS_LIMITATION)  \
	X(SMC_GEN_UNSPEC)                     \
	X(SMC_GEN_SYS_INFO)                   \
	X(SMC_GEN_LGR_SMCR)                   \
	X(SMC_GEN_LINK_SMCR)                  \
	X(SMC_GEN_LGR_SMCD)                   \
	X(SMC_GEN_DEV_SMCD)                   \
	X(SMC_GEN_DEV_SMCR)                   \
	X(SMC_GEN_STATS)                      \
	X(SMC_GEN_FBACK_STATS)                \
	X(SMC_NLA_SYS_UNSPEC)                 \
	X(SMC_NLA_SYS_VER)                    \
	X(SMC_NLA_SYS_REL)                    \
	X(SMC_NLA_SYS_IS_ISM_V2)              \
	X(SMC_NLA_SYS_LOCAL_HOST)             \
	X(SMC_NLA_SYS_SEID)                   \
	X(SMC_NLA_SYS_IS_SMCR_V2)             \
	X(SMC_NLA_LGR_V2_VER)                 \
	X(SMC_NLA_LGR_V2_REL)                 \
	X(SMC_NLA_LGR_V2_OS)                  \
	X(SMC_NLA_LGR_V2_NEG_EID)             \
	X(SMC_NLA_LGR_V2_PEER_HOST)           \
	X(SMC_NLA_LGR_R_V2_UNSPEC)            \
	X(SMC_NLA_LGR_R_V2_DIRECT)            \
	X(SMC_NLA_LGR_R_UNSPEC)               \
	X(SMC_NLA_LGR_R_ID)                   \
	X(SMC_NLA_LGR_R_ROLE)                 \
	X(SMC_NLA_LGR_R_TYPE)                 \
	X(SMC_NLA_LGR_R_PNETID)               \
	X(SMC_NLA_LGR_R_VLAN_ID)              \
	X(SMC_NLA_LGR_R_CONNS_NUM)            \
	X(SMC_NLA_LGR_R_V2_COMMON)            \
	X(SMC_NLA_LGR_R_V2)                   \
	X(SMC_NLA_LGR_R_NET_COOKIE)           \
	X(SMC_NLA_LGR_R_PAD)                  \
	X(SMC_NLA_LGR_R_BUF_TYPE)             \
	X(SMC_NLA_LINK_UNSPEC)                \
	X(SMC_NLA_LINK_ID)                    \
	X(SMC_NLA_LINK_IB_DEV)                \
	X(SMC_NLA_LINK_IB_PORT)               \
	X(SMC_NLA_LINK_GID)                   \
	X(SMC_NLA_LINK_PEER_GID)              \
	X(SMC_NLA_LINK_CONN_CNT)              \
	X(SMC_NLA_LINK_NET_DEV)               \
	X(SMC_NLA_LINK_UID)                   \
	X(SMC_NLA_LINK_PEER_UID)              \
	X(SMC_NLA_LINK_STATE)                 \
	X(SMC_NLA_LGR_D_UNSPEC)               \
	X(SMC_NLA_LGR_D_ID)                   \
	X(SMC_NLA_LGR_D_GID)                  \
	X(SMC_NLA_LGR_D_PEER_GID)             \
	X(SMC_NLA_LGR_D_VLAN_ID)              \
	X(SMC_NLA_LGR_D_CONNS_NUM)            \
	X(SMC_NLA_LGR_D_PNETID)               \
	X(SMC_NLA_LGR_D_CHID)                 \
	X(SMC_NLA_LGR_D_PAD)                  \
	X(SMC_NLA_LGR_D_V2_COMMON)            \
	X(SMC_NLA_DEV_PORT_UNSPEC)            \
	X(SMC_NLA_DEV_PORT_PNET_USR)          \
	X(SMC_NLA_DEV_PORT_PNETID)            \
	X(SMC_NLA_DEV_PORT_NETDEV)            \
	X(SMC_NLA_DEV_PORT_STATE)             \
	X(SMC_NLA_DEV_PORT_VALID)             \
	X(SMC_NLA_DEV_PORT_LNK_CNT)           \
	X(SMC_NLA_DEV_UNSPEC)                 \
	X(SMC_NLA_DEV_USE_CNT)                \
	X(SMC_NLA_DEV_IS_CRIT)                \
	X(SMC_NLA_DEV_PCI_FID)                \
	X(SMC_NLA_DEV_PCI_CHID)               \
	X(SMC_NLA_DEV_PCI_VENDOR)             \
	X(SMC_NLA_DEV_PCI_DEVICE)             \
	X(SMC_NLA_DEV_PCI_ID)                 \
	X(SMC_NLA_DEV_PORT)                   \
	X(SMC_NLA_DEV_PORT2)                  \
	X(SMC_NLA_DEV_IB_NAME)                \
	X(SMC_NLA_STATS_PLOAD_PAD)            \
	X(SMC_NLA_STATS_PLOAD_8K)             \
	X(SMC_NLA_STATS_PLOAD_16K)            \
	X(SMC_NLA_STATS_PLOAD_32K)            \
	X(SMC_NLA_STATS_PLOAD_64K)            \
	X(SMC_NLA_STATS_PLOAD_128K)           \
	X(SMC_NLA_STATS_PLOAD_256K)           \
	X(SMC_NLA_STATS_PLOAD_512K)           \
	X(SMC_NLA_STATS_PLOAD_1024K)          \
	X(SMC_NLA_STATS_PLOAD_G_1024K)        \
	X(SMC_NLA_STATS_RMB_PAD)              \
	X(SMC_NLA_STATS_RMB_SIZE_SM_PEER_CNT) \
	X(SMC_NLA_STATS_RMB_SIZE_SM_CNT)      \
	X(SMC_NLA_STATS_RMB_FULL_PEER_CNT)    \
	X(SMC_NLA_STATS_RMB_FULL_CNT)         \
	X(SMC_NLA_STATS_RMB_REUSE_CNT)        \
	X(SMC_NLA_STATS_RMB_ALLOC_CNT)        \
	X(SMC_NLA_STATS_RMB_DGRADE_CNT)       \
	X(SMC_NLA_STATS_T_PAD)                \
	X(SMC_NLA_STATS_T_TX_RMB_SIZE)        \
	X(SMC_NLA_STATS_T_RX_RMB_SIZE)        \
	X(SMC_NLA_STATS_T_TXPLOAD_SIZE)       \
	X(SMC_NLA_STATS_T_RXPLOAD_SIZE)       \
	X(SMC_NLA_STATS_T_TX_RMB_STATS)       \
	X(SMC_NLA_STATS_T_RX_RMB_STATS)       \
	X(SMC_NLA_STATS_T_CLNT_V1_SUCC)       \
	X(SMC_NLA_STATS_T_CLNT_V2_SUCC)       \
	X(SMC_NLA_STATS_T_SRV_V1_SUCC)        \
	X(SMC_NLA_STATS_T_SRV_V2_SUCC)        \
	X(SMC_NLA_STATS_T_SENDPAGE_CNT)       \
	X(SMC_NLA_STATS_T_SPLICE_CNT)         \
	X(SMC_NLA_STATS_T_CORK_CNT)           \
	X(SMC_NLA_STATS_T_NDLY_CNT)           \
	X(SMC_NLA_STATS_T_URG_DATA_CNT)       \
	X(SMC_NLA_STATS_T_RX_BYTES)           \
	X(SMC_NLA_STATS_T_TX_BYTES)           \
	X(SMC_NLA_STATS_T_RX_CNT)             \
	X(SMC_NLA_STATS_T_TX_CNT)             \
	X(SMC_NLA_STATS_PAD)                  \
	X(SMC_NLA_STATS_SMCD_TECH)            \
	X(SMC_NLA_STATS_SMCR_TECH)            \
	X(SMC_NLA_STATS_CLNT_HS_ERR_CNT)      \
	X(SMC_NLA_STATS_SRV_HS_ERR_CNT)       \
	X(SMC_NLA_FBACK_STATS_PAD)            \
	X(SMC_NLA_FBACK_STATS_TYPE)           \
	X(SMC_NLA_FBACK_STATS_SRV_CNT)        \
	X(SMC_NLA_FBACK_STATS_CLNT_CNT)       \
	X(SMC_NLA_FBACK_STATS_RSN_CODE)       \
	X(SMC_NLA_FBACK_STATS_RSN_CNT)        \
	X(SMC_NLA_EID_TABLE_UNSPEC)           \
	X(SMC_NLA_EID_TABLE_ENTRY)            \
	X(SMC_NLA_SEID_UNSPEC)                \
	X(SMC_NLA_SEID_ENTRY)                 \
	X(SMC_NLA_SEID_ENABLED)               \
	X(SMC_NLA_HS_LIMITATION_UNSPEC)       \
	X(SMC_NLA_HS_LIMITATION_ENABLED)      \
	X(SMC_DIAG_MODE_SMCR)                 \
	X(SMC_DIAG_MODE_FALLBACK_TCP)         \
	X(SMC_DIAG_MODE_SMCD)                 \
	X(SMC_DIAG_NONE)                      \
	X(SMC_DIAG_CONNINFO)                  \
	X(SMC_DIAG_LGRINFO)                   \
	X(SMC_DIAG_SHUTDOWN)                  \
	X(SMC_DIAG_DMBINFO)                   \
	X(SMC_DIAG_FALLBACK)                  \
	X(SMCR_GENL_FAMILY_VERSION)           \
	X(SMC_GENL_FAMILY_VERSION)            \
	X(SMC_PCI_ID_STR_LEN)                 \
	X(SMC_MAX_HOSTNAME_LEN)               \
	X(SMC_MAX_UEID)                       \
	X(SMC_MAX_EID_LEN)                    \
	X(SMC_LIMIT_HS)                       \
	X(SMC_DIAG_MAX)                       \
	X(RDMA_NL_NLDEV)                      \
	X(RDMA_NLDEV_CMD_GET)                 \
	X(RDMA_NLDEV_CMD_PORT_GET)            \
	X(RDMA_NLDEV_ATTR_DEV_INDEX)          \
	X(RDMA_NLDEV_ATTR_DEV_NAME)           \
	X(RDMA_NLDEV_ATTR_PORT_INDEX)         \
	X(RDMA_NLDEV_ATTR_PORT_STATE)         \
	X(RDMA_NLDEV_ATTR_DEV_NODE_TYPE)      \
	X(RDMA_NODE_IB_CA)                    \
	X(RDMA_NLDEV_ATTR_NDEV_INDEX)         \
	X(RDMA_NLDEV_ATTR_NDEV_NAME)          \
	X(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_PORT_GET))

#define UAPI_MAXES(X)                  \
	X(__SMC_PNETID_MAX)            \
	X(SMC_PNETID_MAX)              \
	X(__SMC_GEN_MAX)               \
	X(SMC_GEN_MAX)                 \
	X(__SMC_NLA_SYS_MAX)           \
	X(SMC_NLA_SYS_MAX)             \
	X(__SMC_NLA_LGR_V2_MAX)        \
	X(SMC_NLA_LGR_V2_MAX)          \
	X(__SMC_NLA_LGR_R_V2_MAX)      \
	X(SMC_NLA_LGR_R_V2_MAX)        \
	X(__SMC_NLA_LGR_R_MAX)         \
	X(SMC_NLA_LGR_R_MAX)           \
	X(__SMC_NLA_LINK_MAX)          \
	X(SMC_NLA_LINK_MAX)            \
	X(__SMC_NLA_LGR_D_MAX)         \
	X(SMC_NLA_LGR_D_MAX)           \
	X(__SMC_NLA_DEV_PORT_MAX)      \
	X(SMC_NLA_DEV_PORT_MAX)        \
	X(__SMC_NLA_DEV_MAX)           \
	X(SMC_NLA_DEV_MAX)             \
	X(__SMC_NLA_STATS_PLOAD_MAX)   \
	X(SMC_NLA_STATS_PLOAD_MAX)     \
	X(__SMC_NLA_STATS_RMB_MAX)     \
	X(SMC_NLA_STATS_RMB_MAX)       \
	X(__SMC_NLA_STATS_T_MAX)       \
	X(SMC_NLA_STATS_T_MAX)         \
	X(__SMC_NLA_STATS_MAX)         \
	X(SMC_NLA_STATS_MAX)           \
	X(__SMC_NLA_FBACK_STATS_MAX)   \
	X(SMC_NLA_FBACK_STATS_MAX)     \
	X(__SMC_NLA_EID_TABLE_MAX)     \
	X(SMC_NLA_EID_TABLE_MAX)       \
	X(__SMC_NLA_SEID_TABLE_MAX)    \
	X(SMC_NLA_SEID_TABLE_MAX)      \
	X(__SMC_NLA_HS_LIMITATION_MAX) \
	X(SMC_NLA_HS_LIMITATION_MAX)   \
	X(__SMC_DIAG_MAX)

#define UAPI_STRINGS(X)          \
	X(SMCR_GENL_FAMILY_NAME) \
	X(SMC_GENL_FAMILY_NAME)

/* struct, field: offsets compared; sizes of the structs too (dmbinfo: 40 vs 56). */
#define UAPI_FIELDS(X)                            \
	X(smc_diag_req, diag_family)              \
	X(smc_diag_req, diag_ext)                 \
	X(smc_diag_req, id)                       \
	X(smc_diag_msg, diag_family)              \
	X(smc_diag_msg, diag_state)               \
	X(smc_diag_msg, diag_mode)                \
	X(smc_diag_msg, diag_shutdown)            \
	X(smc_diag_msg, id)                       \
	X(smc_diag_msg, diag_uid)                 \
	X(smc_diag_msg, diag_inode)               \
	X(smc_diag_cursor, wrap)                  \
	X(smc_diag_cursor, count)                 \
	X(smc_diag_conninfo, token)               \
	X(smc_diag_conninfo, peer_rmbe_size)      \
	X(smc_diag_conninfo, rx_prod)             \
	X(smc_diag_conninfo, tx_cons)             \
	X(smc_diag_conninfo, rx_prod_flags)       \
	X(smc_diag_conninfo, tx_conn_state_flags) \
	X(smc_diag_conninfo, tx_prep)             \
	X(smc_diag_conninfo, tx_fin)              \
	X(smc_diag_linkinfo, link_id)             \
	X(smc_diag_linkinfo, ibname)              \
	X(smc_diag_linkinfo, ibport)              \
	X(smc_diag_linkinfo, gid)                 \
	X(smc_diag_linkinfo, peer_gid)            \
	X(smc_diag_lgrinfo, lnk)                  \
	X(smc_diag_lgrinfo, role)                 \
	X(smc_diag_fallback, reason)              \
	X(smc_diag_fallback, peer_diagnosis)      \
	X(smcd_diag_dmbinfo, linkid)              \
	X(smcd_diag_dmbinfo, peer_gid)            \
	X(smcd_diag_dmbinfo, my_gid)              \
	X(smcd_diag_dmbinfo, token)               \
	X(smcd_diag_dmbinfo, peer_token)

#define UAPI_STRUCTS(X)      \
	X(smc_diag_req)      \
	X(smc_diag_msg)      \
	X(smc_diag_cursor)   \
	X(smc_diag_conninfo) \
	X(smc_diag_linkinfo) \
	X(smc_diag_lgrinfo)  \
	X(smc_diag_fallback) \
	X(smcd_diag_dmbinfo)

struct uapi_value {
	const char *name;
	long long value;
};

struct uapi_str {
	const char *name;
	const char *value;
};

/* test-netlink-uapi-sys.c: the system's values, in list order */
extern const struct uapi_value uapi_sys_ints[];
extern const struct uapi_value uapi_sys_maxes[];
extern const struct uapi_str uapi_sys_strings[];
extern const struct uapi_value uapi_sys_offsets[];
extern const struct uapi_value uapi_sys_sizes[];
