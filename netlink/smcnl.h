/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smcnl: the one library that talks to the kernel's SMC interfaces.
 *
 *   SMC_GEN_NETLINK   (generic netlink; all 18 commands)         smc-genl.c
 *   SMC_PNETID        (generic netlink; get/add/del/flush)       pnet.c
 *   SMC_LO            (our loopback module, kmod/; smclo.h)      smclo.c
 *   smc_diag          (NETLINK_SOCK_DIAG, family AF_SMC)          diag.c
 *   /sys/class/dibs   (DIBS devices that GET_DEV_SMCD never lists) dibs.c
 *   /proc/sys/net/smc (net.smc.* sysctls)                         sysctl.c
 *   RDMA netlink, NETLINK_ROUTE links (SMC-R's reach of a netns)   rdma.c, smcr-reach.c
 *
 * Callers get plain C model structs and never see libnl types.  Every fallible function
 * returns >= 0 on success and a negative errno on failure: the kernel's own errno where
 * the kernel answered, with the kernel's extended-ack text (if any) available from
 * smcnl_extack() until the next request.  libnl's NLE_* codes never leave this library.
 *
 * Library-level conditions use these errnos consistently:
 *   -EPROTONOSUPPORT  the kernel has no such interface (family not registered and the
 *                     module could not be loaded: "SMC is not available in this kernel")
 *   -EPERM            the kernel refused for lack of CAP_NET_ADMIN (init user namespace)
 *   -EBADMSG          the kernel's reply did not parse (a bug or a kernel we do not know)
 *   -EINVAL           an argument failed the same validation the kernel applies (for
 *                     UEIDs and PNET IDs: see the *_validate() functions for the reason)
 *   -ENODATA          replay mode only: no recorded reply for this request
 *   -ENOTRECOVERABLE  a handle of another network namespace (smcnl_open_netns()) could not
 *                     return the calling thread to its own namespace after creating a
 *                     socket there: the thread is in the wrong namespace, and from then on
 *                     every handle of the process refuses to open a socket with this
 *                     error.  The caller must stop (the agent exits and is restarted).
 *
 * Lists returned through ret/ret_n are malloc()ed arrays: free() them (and for
 * smcr_linkgroup_list() use smcr_linkgroup_list_free(); smc_sysctl_list_present(): free
 * each name, then the array).
 *
 * smc_strerror() turns (operation, errno, extack) into one line for a user.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <net/if.h>

/* Sizes from the kernel uapi (include/uapi/linux/smc.h). */
#define SMC_EID_LEN 32 /* an EID is exactly 32 bytes, blank-padded */
#define SMC_UEID_MAX 4 /* the kernel's UEID table holds 4 entries */
#define SMC_HOSTNAME_LEN 32
#define SMC_PNETID_LEN 16
#define SMC_PCI_ID_LEN 16
#define SMC_IB_NAME_LEN 64
#define SMC_GID_TEXT_LEN 40 /* "xxxx:xxxx:...": 8 groups of 4 hex digits */
#define SMC_DIBS_NAME_LEN 64
#define SMC_UUID_TEXT_LEN 36
#define SMC_STATS_BUCKETS 9 /* 8K 16K 32K 64K 128K 256K 512K 1024K >1024K */
#define SMC_FBACK_SLOTS 36  /* per side (server, client) in the kernel */

/* ---------------------------------------------------------------------------------- */
/* Handle                                                                              */

struct smcnl;

struct smcnl_options {
	/*
	 * Prefix for /sys and /proc paths (NULL: the real ones).  Unit tests point it at a
	 * directory tree holding recorded sysfs/procfs files.
	 */
	const char *sysroot;
	/*
	 * Replay: answer every netlink request from recorded kernel replies in this folder
	 * instead of a socket (unit tests).  Record: additionally write every reply stream
	 * received from the real kernel to this folder (tests/fixtures/record uses it).
	 * The environment variable SMCNL_RECORD_DIR sets record_dir when this is NULL.
	 * File naming: netlink/smcnl-socket.c.  Replay and record exclude each other (-EINVAL).
	 */
	const char *replay_dir;
	const char *record_dir;
};

/*
 * Open a handle.  Cheap: sockets are opened and families resolved on first use.  A handle
 * is not thread-safe: one per thread.
 */
int smcnl_open(const struct smcnl_options *opts, struct smcnl **ret);
void smcnl_close(struct smcnl *nl);

/*
 * One report's snapshot: between begin and end the handle reads the DIBS class in sysfs
 * (/sys/class/dibs: the devices, their GIDs and fabric ids) once, however many probes ask
 * for it (smcctl info: the capability probe and the SMC-D device list).  Without a
 * snapshot every call reads it anew, as a long-lived handle (the agent's) must.
 */
void smcnl_snapshot_begin(struct smcnl *nl);
void smcnl_snapshot_end(struct smcnl *nl);

/* ---------------------------------------------------------------------------------- */
/* Network namespaces (netns.c)                                                        */

/*
 * A network namespace: its name in /run/netns ("" for the caller's own) and its identity,
 * the device and inode of its nsfs file.  A name reused for a new namespace (ip netns del,
 * ip netns add) is another identity.
 */
struct smc_netns {
	char name[256];
	uint64_t dev;
	uint64_t ino;
};

/* The identity of the calling thread's network namespace. */
int smc_netns_self(struct smc_netns *ret);
/*
 * The named network namespaces (/run/netns under the handle's sysroot, where ip netns,
 * podman/netavark and CNI plugins mount them), sorted by name; none when the folder does
 * not exist.  An entry that vanishes while it is listed is left out; one that is not a
 * network namespace is listed all the same (smcnl_open_netns() refuses it).
 */
int smc_netns_list(struct smcnl *nl, struct smc_netns **ret, size_t *ret_n);
/*
 * A handle whose sockets are created inside ns (entering it with setns(2) on the calling
 * thread, creating the socket, returning): its netlink requests are answered by that
 * namespace's kernel (statistics, fallback statistics, sockets; link groups and devices
 * are global anyway).  The namespace is held open while the handle lives.  Its sysctl
 * functions answer -EOPNOTSUPP: /proc/sys/net is the caller's.  -ENOENT when the name is
 * gone, -ESTALE when it names another namespace than ns says (reused since it was listed),
 * -EINVAL when it is no network namespace, -EPERM without CAP_SYS_ADMIN.
 */
int smcnl_open_netns(const struct smcnl_options *opts, const struct smc_netns *ns,
		     struct smcnl **ret);

/* The kernel's extended-ack message of the last failed request, or NULL. */
const char *smcnl_extack(const struct smcnl *nl);

/* ---------------------------------------------------------------------------------- */
/* Errors                                                                              */

/* What was being done: selects the wording of smc_strerror(). */
enum smc_op {
	SMC_OP_QUERY, /* any dump / read */
	SMC_OP_UEID_ADD,
	SMC_OP_UEID_DEL,
	SMC_OP_UEID_FLUSH,
	SMC_OP_SEID_ENABLE,
	SMC_OP_SEID_DISABLE,
	SMC_OP_HS_LIMITATION_SET,
	SMC_OP_PNET_ADD,
	SMC_OP_PNET_DEL,
	SMC_OP_PNET_FLUSH,
	SMC_OP_SYSCTL_SET,
	SMC_OP_SOCKET_DIAG,
	/* Our loopback module's SMC_LO family (netlink/smclo.h). */
	SMC_OP_LOOPBACK_QUERY,
	SMC_OP_LOOPBACK_ACTIVATE,
	SMC_OP_LOOPBACK_DEACTIVATE,
	SMC_OP_LOOPBACK_SET,
	_SMC_OP_MAX,
};

/*
 * One line for a user: what went wrong and what to do, e.g. for (UEID_ADD, -ERANGE,
 * NULL): "the kernel's UEID table is full (it holds at most 4 UEIDs): remove one with
 * 'smcctl ueid del UEID'".  Never mentions libnl.  Writes into buf and returns it.
 */
const char *smc_strerror(enum smc_op op, int err, const char *extack, char *buf, size_t len);

/* ---------------------------------------------------------------------------------- */
/* SMC_NETLINK_GET_SYS_INFO                                                            */

struct smc_sysinfo {
	uint8_t ver; /* SMC_NLA_SYS_VER (2) */
	uint8_t rel; /* SMC_NLA_SYS_REL: 0 before 6.6, 1 since */
	bool ism_v2; /* SMC-D v2 capable (ISMv2 or loopback registered; sticky) */
	bool smcr_v2;
	char hostname[SMC_HOSTNAME_LEN + 1]; /* trailing blanks removed */
	bool has_seid;			     /* SEID attribute present (ISMv2 capable) */
	char seid[SMC_EID_LEN + 1];	     /* empty on non-s390 */
};

int smc_sysinfo_get(struct smcnl *nl, struct smc_sysinfo *ret);

/* ---------------------------------------------------------------------------------- */
/* Devices                                                                             */

struct smc_pnet_port {
	bool user_defined; /* PNET ID set by the user (PNET table), not by hardware */
	char pnetid[SMC_PNETID_LEN + 1];
};

/* The loopback device of 6.10-6.17 (CONFIG_SMC_LO), inside smc.ko. */
#define SMC_BUILTIN_LOOPBACK_NAME "loopback-ism"

/* Where an SMC-D device was seen. */
enum {
	SMCD_SEEN_NETLINK = 1 << 0, /* SMC_NETLINK_GET_DEV_SMCD (never lists loopback) */
	SMCD_SEEN_DIBS = 1 << 1,    /* /sys/class/dibs/<name> (6.18+) */
	/* Inferred (6.10-6.17): smc.ko's own "loopback-ism", which nothing lists; there when
	 * the kernel is ISMv2 capable off s390 and has no DIBS (smc_caps.loopback's rule). */
	SMCD_SEEN_BUILTIN = 1 << 2,
};

struct smcd_device {
	char name[SMC_DIBS_NAME_LEN]; /* dibs name ("lo", "ism..."), else the PCI id */
	unsigned seen;		      /* SMCD_SEEN_* */
	bool loopback;		      /* fabric id 0xFFFF */
	bool has_fabric_id;
	uint16_t fabric_id;		 /* = SMC-D CHID */
	char gid[SMC_UUID_TEXT_LEN + 1]; /* dibs UUID text, empty if unknown */
	/* From GET_DEV_SMCD (zero for devices seen only in sysfs): */
	uint32_t use_cnt;
	bool is_crit;
	uint32_t pci_fid;
	uint16_t pci_chid;
	uint16_t pci_vendor;
	uint16_t pci_device;
	char pci_id[SMC_PCI_ID_LEN + 1];
	struct smc_pnet_port port; /* for loopback: from the PNET table (IB entries) */
	/* Computed: SMC-D link groups on this device (matched by GID) and their connections. */
	uint32_t linkgroups;
	uint32_t conns;
};

struct smcr_port {
	bool valid;
	bool active; /* SMC_NLA_DEV_PORT_STATE */
	struct smc_pnet_port pnet;
	uint32_t netdev_ifindex;
	/* The ifindex is the one in the netdev's own netns: named only when RDMA netlink says
	 * it is this port's netdev in the caller's netns, else empty (netlink/smcnl-rdma.c). */
	char netdev[IF_NAMESIZE];
	uint32_t link_cnt;
	/*
	 * GID types of the port, from /sys/class/infiniband/DEV/ports/N/gid_attrs/types/
	 * (has_gid_types false when unreadable).  SMC-Rv1 needs a RoCE v1 GID ("IB/RoCE v1"),
	 * SMC-Rv2 an IPv4 RoCE v2 one: soft-RoCE (rdma_rxe) has RoCE v2 GIDs only.
	 */
	bool has_gid_types;
	bool roce_v1;
	bool roce_v2;
};

struct smcr_device {
	char ib_name[SMC_IB_NAME_LEN + 1];
	bool is_crit;
	bool has_pci;
	uint32_t pci_fid;
	uint16_t pci_chid;
	uint16_t pci_vendor;
	uint16_t pci_device;
	char pci_id[SMC_PCI_ID_LEN + 1];
	struct smcr_port ports[2];
};

/* SMC-D devices: GET_DEV_SMCD merged with /sys/class/dibs (loopback included). */
int smcd_device_list(struct smcnl *nl, struct smcd_device **ret, size_t *ret_n);
/*
 * The same with what flags ask for (smcd_device_list(): both).  Without
 * SMCD_LIST_LINKGROUPS linkgroups and conns stay 0 (the SMC-D link group dump that counts
 * them is not made), and smc.ko's loopback-ism (6.10-6.17) has no GID (it has none but
 * its link groups').  Without SMCD_LIST_GIDS a DIBS device's GID is read only where its
 * link groups cannot be told by their CHID (another device has the same fabric id), else
 * gid stays "": for a view that does not show GIDs (a sysfs read per device saved).
 */
enum { SMCD_LIST_LINKGROUPS = 1 << 0, SMCD_LIST_GIDS = 1 << 1 };
int smcd_device_list_flags(struct smcnl *nl, unsigned flags, struct smcd_device **ret, size_t *ret_n);
/*
 * 0, or why the last smcd_device_list() could not tell whether smc.ko's loopback-ism
 * (6.10-6.17, device.c) is there: the -errno of the system information query it needs.
 * The devices were listed all the same, without that inferred one.
 */
int smcd_builtin_loopback_error(const struct smcnl *nl);
int smcr_device_list(struct smcnl *nl, struct smcr_device **ret, size_t *ret_n);

/* ---------------------------------------------------------------------------------- */
/* SMC-R reach (the caller's network namespace; smcr-reach.c)                         */

/*
 * A netdev of the caller's netns as SMC-R's choice of RDMA port sees it, for a connection
 * whose route leaves through it (net/smc/smc_pnet.c smc_pnet_find_roce_resource()): its
 * lowest device (a VLAN's, macvlan's or ipvlan's real device; a bond's, team's or bridge's
 * first port), the PNET ID of that device or else of the netdev (PNET table), and the
 * active RDMA port SMC-R would take: one with that PNET ID, or, without a PNET ID, the one
 * whose netdev is the lowest device - identified by ifindex in this netns, never by name.
 */
struct smcr_reach {
	char netdev[IF_NAMESIZE];
	uint32_t ifindex;
	char lower[IF_NAMESIZE]; /* the lowest device when it is not netdev itself, else "" */
	bool lower_elsewhere;	 /* stacked on a device of another netns, not followed */
	char pnetid[SMC_PNETID_LEN + 1];  /* "" none */
	char ib_dev[SMC_IB_NAME_LEN + 1]; /* "" none: SMC-R cannot leave through netdev */
	uint8_t ib_port;
};

/*
 * The netdevs of the caller's netns with an RDMA port SMC-R can use, a PNET ID, or a lower
 * device in another netns (not followed); a netdev not listed cannot carry SMC-R.  Loads no module
 * (no RDMA core, or no smc: nothing of theirs to ask).  Errors are the requests' (smcr-reach.c lists them).
 */
int smcr_reach_list(struct smcnl *nl, struct smcr_reach **ret, size_t *ret_n);

/* ---------------------------------------------------------------------------------- */
/* Link groups                                                                         */

struct smc_lgr_v2 {
	bool present; /* V2_COMMON nest present (link group version > 1) */
	uint8_t ver;
	uint8_t rel;		       /* peer release */
	uint8_t os;		       /* peer OS: 1 z/OS, 2 Linux, 3 AIX */
	char neg_eid[SMC_EID_LEN + 1]; /* negotiated EID, blanks removed */
	char peer_host[SMC_HOSTNAME_LEN + 1];
};

struct smcd_linkgroup {
	uint32_t id;
	uint64_t gid;	  /* local GID, high 64 bits */
	uint64_t ext_gid; /* local GID, low 64 bits (6.8+; 0 for native ISM) */
	uint64_t peer_gid;
	uint64_t peer_ext_gid;
	bool has_ext_gid;
	uint8_t vlan_id; /* the kernel truncates it to 8 bits */
	uint32_t conns;
	uint32_t chid; /* u32 on the wire; 0xFFFF for loopback */
	char pnetid[SMC_PNETID_LEN + 1];
	bool has_alloc; /* 6.12+ */
	uint64_t sndbuf_alloc;
	uint64_t dmb_alloc;
	struct smc_lgr_v2 v2;
	/* dibs device carrying it (by GID); "loopback-ism" for CHID 0xFFFF on 6.10-6.17
	 * (no /sys/class/dibs); empty if unknown */
	char device[SMC_DIBS_NAME_LEN];
};

struct smcr_link {
	uint8_t id;
	uint32_t state; /* 0 unused, 1 inactive, 2 activating, 3 active */
	uint32_t conn_cnt;
	uint8_t ib_port;
	uint32_t netdev_ifindex;  /* in the netdev's own netns */
	char netdev[IF_NAMESIZE]; /* as for smcr_port.netdev: empty unless in the caller's netns */
	char ib_dev[SMC_IB_NAME_LEN + 1];
	uint32_t uid;
	uint32_t peer_uid;
	char gid[SMC_GID_TEXT_LEN + 1];
	char peer_gid[SMC_GID_TEXT_LEN + 1];
};

struct smcr_linkgroup {
	uint32_t id;
	uint32_t conns;
	uint8_t role; /* 0 client, 1 server */
	uint8_t type; /* 0 none, 1 single, 2 symmetric, 3 asym. peer, 4 asym. local */
	bool has_buf_type;
	uint8_t buf_type; /* 0 physical, 1 virtual, 2 mixed */
	uint8_t vlan_id;
	bool has_net_cookie;
	uint64_t net_cookie;
	char pnetid[SMC_PNETID_LEN + 1];
	bool has_alloc;
	uint64_t sndbuf_alloc;
	uint64_t rmb_alloc;
	struct smc_lgr_v2 v2;
	bool has_v2r; /* SMC_NLA_LGR_R_V2 nest */
	bool direct;
	uint8_t max_conns;
	uint8_t max_links;
	size_t n_links;
	struct smcr_link *links;
};

int smcd_linkgroup_list(struct smcnl *nl, struct smcd_linkgroup **ret, size_t *ret_n);
/* with_links: use GET_LINK_SMCR and fill links[] (links belong to the preceding LGR). */
int smcr_linkgroup_list(struct smcnl *nl, bool with_links, struct smcr_linkgroup **ret,
			size_t *ret_n);
void smcr_linkgroup_list_free(struct smcr_linkgroup *v, size_t n);

/* "%016llx%016llx" of (gid, ext_gid): equals the dibs sysfs gid without dashes (7.3). */
void smcd_gid_format(uint64_t gid, uint64_t ext_gid, char ret[33]);

/* ---------------------------------------------------------------------------------- */
/* Statistics (per network namespace of the caller)                                    */

/*
 * The kernel's u64 counters, one row each: X(field, attribute of netlink/uapi/smc.h).  The
 * struct field and its parsing (smcnl-stats.c) follow from the row; its name in JSON, text
 * and Prometheus is its row in common/stats-table.c.  Of a buffer nest (RX and TX):
 */
#define SMC_STATS_RMB_U64(X)                                       \
	X(buf_size_small_peer, SMC_NLA_STATS_RMB_SIZE_SM_PEER_CNT) \
	X(buf_size_small, SMC_NLA_STATS_RMB_SIZE_SM_CNT)           \
	X(buf_full_peer, SMC_NLA_STATS_RMB_FULL_PEER_CNT)          \
	X(buf_full, SMC_NLA_STATS_RMB_FULL_CNT)                    \
	X(reuse, SMC_NLA_STATS_RMB_REUSE_CNT)                      \
	X(alloc, SMC_NLA_STATS_RMB_ALLOC_CNT)                      \
	X(downgrade, SMC_NLA_STATS_RMB_DGRADE_CNT)

/* Of a technology's nest (SMC-D, SMC-R): */
#define SMC_STATS_TECH_U64(X)                         \
	X(clnt_v1_succ, SMC_NLA_STATS_T_CLNT_V1_SUCC) \
	X(clnt_v2_succ, SMC_NLA_STATS_T_CLNT_V2_SUCC) \
	X(srv_v1_succ, SMC_NLA_STATS_T_SRV_V1_SUCC)   \
	X(srv_v2_succ, SMC_NLA_STATS_T_SRV_V2_SUCC)   \
	X(sendpage, SMC_NLA_STATS_T_SENDPAGE_CNT)     \
	X(splice, SMC_NLA_STATS_T_SPLICE_CNT)         \
	X(cork, SMC_NLA_STATS_T_CORK_CNT)             \
	X(ndly, SMC_NLA_STATS_T_NDLY_CNT)             \
	X(urg_data, SMC_NLA_STATS_T_URG_DATA_CNT)     \
	X(rx_bytes, SMC_NLA_STATS_T_RX_BYTES)         \
	X(tx_bytes, SMC_NLA_STATS_T_TX_BYTES)         \
	X(rx_cnt, SMC_NLA_STATS_T_RX_CNT)             \
	X(tx_cnt, SMC_NLA_STATS_T_TX_CNT)

/* Of the statistics nest itself: */
#define SMC_STATS_U64(X)                              \
	X(clnt_hs_err, SMC_NLA_STATS_CLNT_HS_ERR_CNT) \
	X(srv_hs_err, SMC_NLA_STATS_SRV_HS_ERR_CNT)

#define SMC_STATS_FIELD(field, attr) uint64_t field;

struct smc_stats_rmb {
	SMC_STATS_RMB_U64(SMC_STATS_FIELD)
};

struct smc_stats_tech {
	uint64_t tx_rmb_size[SMC_STATS_BUCKETS];
	uint64_t rx_rmb_size[SMC_STATS_BUCKETS];
	uint64_t tx_pload[SMC_STATS_BUCKETS];
	uint64_t rx_pload[SMC_STATS_BUCKETS];
	struct smc_stats_rmb tx_rmb;
	struct smc_stats_rmb rx_rmb;
	SMC_STATS_TECH_U64(SMC_STATS_FIELD)
	bool has_rmb_usage; /* 6.12+: gauges, not counters */
	uint64_t rx_rmb_usage;
	uint64_t tx_rmb_usage;
};

struct smc_stats {
	struct smc_stats_tech smcd;
	struct smc_stats_tech smcr;
	SMC_STATS_U64(SMC_STATS_FIELD)
};

struct smc_fback_entry {
	bool server;
	uint32_t code;	/* CLC decline code, see smc_decline_name() */
	uint16_t count; /* u16 in the kernel: wraps at 65536 */
};

struct smc_fback_stats {
	uint64_t srv_total; /* 0 when the kernel's dump was empty */
	uint64_t clnt_total;
	size_t n;
	struct smc_fback_entry entries[2 * SMC_FBACK_SLOTS];
};

int smc_stats_get(struct smcnl *nl, struct smc_stats *ret);
int smc_fback_stats_get(struct smcnl *nl, struct smc_fback_stats *ret);

/* ---------------------------------------------------------------------------------- */
/* UEID, SEID, handshake limitation                                                    */

/*
 * Validate exactly as the kernel's smc_clc_ueid_valid() does and produce the 32-byte
 * blank-padded form the kernel stores (plus NUL).  On failure returns -EINVAL and sets
 * *ret_reason to a static sentence ("lowercase letters are not allowed", ...).
 */
int smc_ueid_validate(const char *ueid, char ret_padded[SMC_EID_LEN + 1], const char **ret_reason);

/* Entries with trailing blanks removed, in kernel (insertion) order. */
int smc_ueid_list(struct smcnl *nl, char ret[SMC_UEID_MAX][SMC_EID_LEN + 1], size_t *ret_n);
int smc_ueid_add(struct smcnl *nl, const char *ueid);
/* On s390 removing the last UEID re-enables the SEID: returns 1 (success) in that case. */
int smc_ueid_del(struct smcnl *nl, const char *ueid);
int smc_ueid_flush(struct smcnl *nl);

struct smc_seid {
	bool present; /* the kernel reports an SEID (ISMv2 capable) */
	char seid[SMC_EID_LEN + 1];
	bool enabled;
};

int smc_seid_get(struct smcnl *nl, struct smc_seid *ret);
int smc_seid_set(struct smcnl *nl, bool enable);

int smc_hs_limitation_get(struct smcnl *nl, bool *ret);
int smc_hs_limitation_set(struct smcnl *nl, bool enable);

/* ---------------------------------------------------------------------------------- */
/* PNET table (SMC_PNETID; per network namespace)                                       */

struct smc_pnet_entry {
	char pnetid[SMC_PNETID_LEN + 1];
	char eth_name[IF_NAMESIZE];    /* empty for IB/SMC-D entries */
	char ib_name[SMC_IB_NAME_LEN]; /* empty for ETH entries */
	uint8_t ib_port;	       /* 0 for ETH entries */
};

/* Validate (1-16 alphanumerics after trimming) and normalise to upper case. */
int smc_pnetid_validate(const char *pnetid, char ret_norm[SMC_PNETID_LEN + 1],
			const char **ret_reason);
/* pnetid NULL: the whole table. */
int smc_pnet_list(struct smcnl *nl, const char *pnetid, struct smc_pnet_entry **ret, size_t *ret_n);
int smc_pnet_add(struct smcnl *nl, const struct smc_pnet_entry *e);
int smc_pnet_del(struct smcnl *nl, const char *pnetid);
/* Flushing an empty table succeeds. */
int smc_pnet_flush(struct smcnl *nl);

/* ---------------------------------------------------------------------------------- */
/* Sockets (smc_diag; the caller's network namespace)                                  */

enum {
	SMC_DIAG_WANT_CONNINFO = 1 << 0,
	SMC_DIAG_WANT_LGRINFO = 1 << 1, /* SMC-R */
	SMC_DIAG_WANT_DMBINFO = 1 << 2, /* SMC-D */
};

struct smc_cursor {
	uint16_t wrap;
	uint32_t count;
};

/*
 * addr_family: the kernel reports addresses only for AF_SMC sockets, without saying IPv4
 * or IPv6 (inferred from the address words).  AF_UNSPEC when all address bytes are zero:
 * IPPROTO_SMC sockets (always), unbound sockets and wildcard listeners of either family
 * (show "*").
 */
struct smc_socket {
	uint8_t diag_family; /* AF_SMC (43), or AF_INET/AF_INET6 for IPPROTO_SMC sockets */
	uint8_t state;	     /* see smc_sock_state_name() */
	uint8_t mode;	     /* 0 SMC-R, 1 TCP fallback, 2 SMC-D (listeners report 0) */
	uint8_t shutdown;
	int addr_family;     /* AF_INET, AF_INET6, or AF_UNSPEC when the kernel gave none */
	struct in6_addr src; /* IPv4 in src.s6_addr32[0] when addr_family == AF_INET */
	struct in6_addr dst;
	uint16_t sport;
	uint16_t dport;
	uint32_t ifindex;
	uint32_t uid;
	uint32_t inode;
	uint64_t cookie;
	/* SMC_DIAG_FALLBACK was sent (7.3 always sends it: reason 0 unless mode is TCP) */
	bool has_fallback;
	uint32_t fallback_reason;
	uint32_t peer_diagnosis;
	bool has_conninfo;
	struct {
		uint32_t token;
		uint32_t sndbuf_size;
		uint32_t rmbe_size;
		uint32_t peer_rmbe_size;
		struct smc_cursor rx_prod, rx_cons, tx_prod, tx_cons, tx_prep, tx_sent, tx_fin;
		uint8_t rx_prod_flags, rx_conn_state_flags, tx_prod_flags, tx_conn_state_flags;
	} conn;
	bool has_lgrinfo;
	struct {
		uint8_t link_id;
		char ibname[SMC_IB_NAME_LEN + 1];
		uint8_t ibport;
		char gid[SMC_GID_TEXT_LEN + 1];
		char peer_gid[SMC_GID_TEXT_LEN + 1];
		uint8_t role;
	} lgr;
	bool has_dmbinfo;
	struct {
		uint32_t linkid;
		uint64_t peer_gid;
		uint64_t my_gid;
		uint64_t token;
		uint64_t peer_token;
		bool has_ext; /* 6.8+ */
		uint64_t peer_gid_ext;
		uint64_t my_gid_ext;
	} dmb;
};

int smc_socket_list(struct smcnl *nl, unsigned want, struct smc_socket **ret, size_t *ret_n);
/*
 * The same dump, each socket handed to fn as it is parsed and none kept: what counting
 * needs (the agent's sample), in memory that does not grow with the sockets.  A negative
 * return of fn ends the walk (the rest of the dump is read and dropped) and is returned;
 * so is a failure of the dump after some sockets were handed over (the caller discards
 * what it counted).
 */
typedef int (*smc_socket_fn)(const struct smc_socket *s, void *userdata);
int smc_socket_foreach(struct smcnl *nl, unsigned want, smc_socket_fn fn, void *userdata);

/*
 * TCP connections of this netns from inet_diag (netlink/smcnl-tcpdiag.c), for smcctl assess's
 * sampling without BPF: every state but TIME_WAIT (LISTEN included).  Addresses as in smc_socket
 * (IPv4 in s6_addr32[0]); bytes and segments from tcp_info (0 where the kernel's tcp_info
 * is too short to have them).
 */
struct tcp_conn {
	int family;
	uint8_t state; /* TCP_* of tcp_states.h */
	struct in6_addr src, dst;
	uint16_t sport, dport;
	uint32_t inode;
	uint64_t cookie;
	uint64_t cgroup_id; /* 0: the kernel did not say */
	uint64_t bytes_acked, bytes_received;
	uint32_t data_segs_out;
};
int tcp_conn_list(struct smcnl *nl, struct tcp_conn **ret, size_t *ret_n);

/* ---------------------------------------------------------------------------------- */
/* net.smc.* sysctls (per network namespace)                                            */

enum smc_sysctl_unit {
	SMC_UNIT_BYTES,
	SMC_UNIT_SECONDS,
	SMC_UNIT_BOOL,
	SMC_UNIT_ENUM,
	SMC_UNIT_COUNT,
	SMC_UNIT_STRING,
};

struct smc_sysctl_desc {
	const char *name; /* file name under /proc/sys/net/smc */
	enum smc_sysctl_unit unit;
	int64_t min; /* the kernel's accepted range */
	int64_t max;
	int64_t def;		       /* kernel default */
	const char *since;	       /* first kernel release, e.g. "6.1" */
	const char *const *enum_names; /* SMC_UNIT_ENUM: names by value, NULL-terminated */
	const char *help;	       /* one line */
};

/* Every net.smc sysctl this project knows, in a stable order. */
const struct smc_sysctl_desc *smc_sysctl_table(size_t *ret_n);
const struct smc_sysctl_desc *smc_sysctl_find(const char *name);
/* -ENOENT when this kernel has no such sysctl (or smc is not loaded). */
int smc_sysctl_get(struct smcnl *nl, const char *name, char *buf, size_t len);
int smc_sysctl_get_int(struct smcnl *nl, const char *name, int64_t *ret);
int smc_sysctl_set(struct smcnl *nl, const char *name, const char *value);
/* Names present in this kernel's /proc/sys/net/smc (sorted), including unknown ones. */
int smc_sysctl_list_present(struct smcnl *nl, char ***ret_names, size_t *ret_n);

/* ---------------------------------------------------------------------------------- */
/* Capabilities                                                                        */

struct smc_caps {
	char kernel_release[65];
	bool smc_genl;	  /* SMC_GEN_NETLINK family (may have autoloaded smc) */
	bool pnet_genl;	  /* SMC_PNETID family */
	bool smc_diag;	  /* sock_diag for AF_SMC answers */
	bool af_smc;	  /* socket(AF_SMC, SOCK_STREAM, 0) works */
	bool ipproto_smc; /* socket(AF_INET, SOCK_STREAM, 256) works (6.11+) */
	bool dibs;	  /* /sys/class/dibs exists (6.18+) */
	bool loopback;	  /* an SMC-D loopback device exists */
	bool smc_module; /* smc loaded or built in (its family, /sys/module/smc or net.smc sysctls) */
	bool smcd_v2;	 /* from sysinfo */
	bool smcr_v2;
	uint8_t smc_ver;
	uint8_t smc_rel;
	bool seid_supported; /* s390 only */
	/* The system information the probe read (has_sysinfo: it answered), for a caller that
	 * shows it too (smcctl info) and need not ask again. */
	bool has_sysinfo;
	struct smc_sysinfo sysinfo;
};

/* Probe everything; never fails for a missing feature (that is what the flags say). */
int smc_caps_probe(struct smcnl *nl, struct smc_caps *ret);
/* (loopback: on 6.10-6.17 loopback-ism is invisible; off s390 it is inferred from ism_v2.) */

/* ---------------------------------------------------------------------------------- */
/* Names: tables that round-trip, tested                                               */

/* Every lookup below returns NULL for a number it does not know. */

/* CLC decline / fallback reason codes (kernel smc_clc.h). */
const char *smc_decline_name(uint32_t code);   /* "NOUEID" */
const char *smc_decline_text(uint32_t code);   /* "the peer sent no UEID" */
const char *smc_decline_advice(uint32_t code); /* what to do, or NULL */
/* "NOUEID", "SMC_CLC_DECL_NOUEID" (any case) or a number; -ENOENT if unknown. */
int smc_decline_from_name(const char *name, uint32_t *ret_code);

const char *smc_sock_state_name(uint8_t state);	 /* "ACTIVE", "LISTEN", ... */
const char *smc_sock_mode_name(uint8_t mode);	 /* "SMCR", "TCP", "SMCD" */
const char *smc_link_state_name(uint32_t state); /* "ACTIVE", ... */
const char *smc_lgr_type_name(uint8_t type);	 /* "SINGLE", "SYM", ... */
const char *smc_lgr_role_name(uint8_t role);	 /* "CLNT", "SERV" */
const char *smc_os_name(uint8_t os);		 /* "ZOS", "LINUX", "AIX" */
const char *smc_buf_type_name(uint8_t t);	 /* "physical", "virtual", "mixed" */
/* Reverse lookups (any case) for filters; -ENOENT if unknown. */
int smc_sock_state_from_name(const char *name, uint8_t *ret);
int smc_sock_mode_from_name(const char *name, uint8_t *ret);
