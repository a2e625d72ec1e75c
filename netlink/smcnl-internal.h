/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside libsmcnl: the socket/error layer (socket.c), attribute helpers (attr.c), the
 * sysroot helpers (sysfs.c) and what the per-feature files share.  Nothing here is part of
 * the contract (smcnl.h); tests and tests/tools/smcnl-record may use it.
 */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/netlink.h>

#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "common/macro.h"
#include "netlink/smcnl.h"
#include "netlink/uapi/smc.h"

/* Constants the uapi headers do not export (kernel-internal or newer than Debian 12). */
#ifndef AF_SMC
#define AF_SMC 43
#endif
#define SMCNL_IPPROTO_SMC 256	   /* <netinet/in.h> has it only since glibc for 6.11 */
#define SMC_MAX_PNETID_LEN 16	   /* net/smc/smc.h */
#define SMC_LOOPBACK_FABRIC 0xffff /* DIBS_LOOPBACK_FABRIC */

#if defined(__s390__) || defined(__s390x__)
#define ARCH_HAS_ISM true
#else
#define ARCH_HAS_ISM false
#endif

/* Append item to the array v of n elements, grown by one: 0, or -ENOMEM (v unchanged). */
#define SMCNL_APPEND(v, n, item)                                        \
	({                                                              \
		typeof(v) _nv = realloc((v), ((n) + 1) * sizeof(*_nv)); \
		_nv ? ((v) = _nv, (v)[(n)++] = (item), 0) : -ENOMEM;    \
	})

/* One netlink socket per protocol: SMC_GEN_NETLINK and SMC_PNETID share the genl one. */
enum smcnl_proto {
	SMCNL_PROTO_GENL,
	SMCNL_PROTO_SOCK_DIAG,
	SMCNL_PROTO_RDMA,  /* NETLINK_RDMA (nldev): port netdevs, netns-aware (rdma.c) */
	SMCNL_PROTO_ROUTE, /* NETLINK_ROUTE: the netdevs and what they sit on (smcr-reach.c) */
	_SMCNL_PROTO_MAX,
};

enum smcnl_family {
	SMCNL_FAM_SMC,	 /* SMC_GEN_NETLINK */
	SMCNL_FAM_PNET,	 /* SMC_PNETID */
	SMCNL_FAM_SMCLO, /* SMC_LO: our loopback module (smclo.c) */
	_SMCNL_FAM_MAX,
};

/* Called for every reply message that is not NLMSG_DONE/ERROR; < 0 aborts (after draining). */
typedef int (*smcnl_msg_fn)(struct nlmsghdr *nlh, void *userdata);

struct smcnl_req;

struct smcnl_sock {
	struct smcnl *nl;
	enum smcnl_proto proto;
	struct nl_sock *sk;
	bool broken; /* left mid-stream: reopen before the next request */
	/* The request in flight (socket.c sets these around every exchange). */
	struct smcnl_req *req;
	char key[96]; /* record/replay file stem of this request */
	uint32_t expect_seq;
	bool have_seq;
	int send_err; /* negative errno from the send hook */
	FILE *record;
	uint8_t *replay;
	size_t replay_len;
	size_t replay_pos;
};

struct smcnl_occurrence {
	char key[96];
	unsigned count;
};

/* An in-memory replay stream (smcnl_replay_mem()), answering every occurrence of key. */
struct smcnl_mem_stream {
	char key[96];
	const uint8_t *data;
	size_t len;
};

struct smcnl {
	char *sysroot;
	char *replay_dir;
	char *record_dir;
	struct smcnl_sock socks[_SMCNL_PROTO_MAX];
	int family_id[_SMCNL_FAM_MAX];
	/* smcnl_family_prefetch()'s "no such family", for the next resolve of it (once). */
	int family_absent[_SMCNL_FAM_MAX];
	char *extack;
	/* How often each request key was sent: the n-th replay/record file of a key. */
	struct smcnl_occurrence *occ;
	size_t n_occ;
	struct smcnl_mem_stream *mem;
	size_t n_mem;
	int builtin_loopback_error; /* smcd_device_list(): why loopback-ism was not inferred */
	/* smcnl_snapshot_begin(): the DIBS class as read once (sysfs.c) */
	bool snapshot;
	struct smcnl_dibs *dibs; /* valid with dibs_what != 0 */
	size_t n_dibs;
	unsigned dibs_what; /* SMCNL_DIBS_* read into dibs */
	bool dibs_class;
	int netns_fd; /* smcnl_open_netns(): sockets are created in this namespace; else -1 */
};

/* ---- socket.c: requests -------------------------------------------------------------- */

/*
 * A request message of type with flags (the header put, port and sequence filled in when
 * sent).  nlmsg_alloc() sizes every message at a page and zeroes it, which under TCG's
 * icount is 4096 stores per request (bench/smcctl-vs-smctools); ours are at most a few
 * hundred bytes, and a message that outgrows SMCNL_MSG_SIZE fails to build (-ENOMEM or
 * -EMSGSIZE from the attribute put), never sends less.
 */
#define SMCNL_MSG_SIZE 1024
struct nl_msg *smcnl_msg_new(int type, int flags);

/* Whether requests are recorded or replayed, which names them by a key (else unused). */
bool smcnl_keyed(const struct smcnl *nl);

/*
 * Resolve the families of mask (1 << SMCNL_FAM_*) not resolved yet with one sendmsg() for
 * all of them (the kernel answers each in turn; one system call instead of one per family).
 * For a verb that will need them all.  Best effort: a family it could not resolve is
 * resolved on its own when used, as without it; a missing family is said by that resolve
 * without asking the kernel again.  Live only: recording and replay resolve one by one.
 */
void smcnl_family_prefetch(struct smcnl *nl, unsigned mask);

/* Whether a handle failed to return the thread to its own netns (then nothing may go on). */
bool smcnl_netns_lost(void);

/* Resolve a genl family (autoloads smc.ko through the kernel); -EPROTONOSUPPORT if absent. */
int smcnl_family_resolve(struct smcnl *nl, enum smcnl_family fam);
/*
 * Forget a resolved family id (its module was seen unloaded): the next request resolves it
 * again.  smcnl_request() does so by itself when a genl request gets -ENOENT and the family
 * has a new id, and then sends the request once more.
 */
void smcnl_family_forget(struct smcnl *nl, enum smcnl_family fam);
/* A genl request for fam/cmd: flags NLM_F_DUMP for dumps, NLM_F_ACK for do-commands. */
int smcnl_genl_msg_new(struct smcnl *nl, enum smcnl_family fam, uint8_t cmd, int flags,
		       struct nl_msg **ret);
/*
 * Send msg (consumed) and read the reply stream until NLMSG_DONE, an ACK or an error,
 * calling fn for every data message.  key names the record/replay file.  Returns 0 or the
 * kernel's negative errno (its extack kept for smcnl_extack()), a parser's error, or a
 * translated local error.
 */
int smcnl_request(struct smcnl *nl, enum smcnl_proto proto, struct nl_msg *msg, const char *key,
		  smcnl_msg_fn fn, void *userdata);
/* Dump fam/cmd (no attributes: the SMC families validate strictly). */
int smcnl_genl_dump(struct smcnl *nl, enum smcnl_family fam, uint8_t cmd, smcnl_msg_fn fn,
		    void *userdata);
/* A do-command with at most one string attribute (type > 0) of exactly len bytes. */
int smcnl_genl_do(struct smcnl *nl, enum smcnl_family fam, uint8_t cmd, int attr_type,
		  const void *data, size_t len);
/* The file stem used for fam/cmd ("smc-genl-get-sys-info", "pnet-get"). */
const char *smcnl_genl_key(enum smcnl_family fam, uint8_t cmd, char *buf, size_t len);
/* libnl's NLE_* code as an errno (never leaves the library as NLE_*). */
int smcnl_errno_from_nle(int nle);
void smcnl_set_extack(struct smcnl *nl, const char *msg, size_t len);
bool smcnl_replaying(const struct smcnl *nl);
/*
 * Replay key from memory (not copied: data must outlive the handle) before looking at
 * replay_dir; for the fuzz target.  Only on a replaying handle (-EINVAL otherwise).
 */
int smcnl_replay_mem(struct smcnl *nl, const char *key, const void *data, size_t len);
/* Record/replay the outcome of a non-netlink probe (socket(2) in caps.c) as an errno. */
int smcnl_probe_result(struct smcnl *nl, const char *name, int (*probe)(void));

/*
 * Does the smc_diag dump work?  Asked as smc_socket_list(nl, 0) asks (the same replay key,
 * the same autoload of smc_diag), but acknowledged instead of dumped: the capability probe
 * needs the answer, not every socket of the namespace (diag.c).  0 or -errno.
 */
int smcnl_diag_probe(struct smcnl *nl);

/*
 * The ids of a genl family's multicast group, by the names (CTRL_CMD_GETFAMILY through
 * the handle's genl socket; group ids are the kernel's, not a socket's): > 0, -ENOENT
 * when the family has no such group, -EPROTONOSUPPORT when there is no such family.
 */
int smcnl_genl_mcast_group(struct smcnl *nl, const char *family, const char *group);

/* ---- attr.c: validated attribute access ------------------------------------------------ */

/*
 * Generic netlink headers, as libnl-genl-3 would write and read them (not linked: the
 * library loaded for a handful of one-line helpers cost every smcctl start its mapping
 * and relocation, bench/smcctl-vs-smctools).  No user header in any of our families.
 */
/* A netlink and a genl header at the end of msg; NULL when msg has no room. */
void *smcnl_genlmsg_put(struct nl_msg *msg, uint32_t port, uint32_t seq, int family, int flags,
			uint8_t cmd, uint8_t version);
/* Whether nlh is long enough for its genl header. */
bool smcnl_genl_valid(const struct nlmsghdr *nlh);

/* Parse the genl message: header check, attributes into tb[0..maxtype]; -EBADMSG if bad. */
int smcnl_parse_genl(struct nlmsghdr *nlh, struct nlattr **tb, int maxtype, uint8_t *ret_cmd);
int smcnl_parse_nested(struct nlattr **tb, int maxtype, const struct nlattr *nest);
int smcnl_parse_attrs(struct nlattr **tb, int maxtype, struct nlattr *head, int len);
/*
 * One message of a sock_diag dump: its fixed header (hdr_len bytes, copied to hdr) and the
 * attributes after it.  1: parsed; 0: not a SOCK_DIAG_BY_FAMILY message (skip it);
 * -EBADMSG: shorter than the header or corrupt attributes.
 */
int smcnl_sock_diag_parse(struct nlmsghdr *nlh, void *hdr, size_t hdr_len, struct nlattr **tb,
			  int maxtype);

/*
 * Getters: a NULL attribute leaves *ret alone and returns 0 (optional attributes); a
 * present one must have a sane length and a value that fits, else -EBADMSG.
 */
int attr_uint(const struct nlattr *a, uint64_t *ret); /* 1, 2, 4 or 8 bytes */
int attr_u8(const struct nlattr *a, uint8_t *ret);
int attr_u16(const struct nlattr *a, uint16_t *ret);
int attr_u32(const struct nlattr *a, uint32_t *ret);
int attr_u64(const struct nlattr *a, uint64_t *ret);
int attr_bool(const struct nlattr *a, bool *ret);
/* String, NUL-terminated or not; longer than size-1 bytes is -EBADMSG. */
int attr_str(const struct nlattr *a, char *buf, size_t size);
/* Copy a fixed struct attribute: at least min bytes, at most size copied (rest zeroed). */
int attr_struct(const struct nlattr *a, void *buf, size_t size, size_t min, size_t *ret_len);

/* Remove trailing blanks (0x20) in place: the kernel blank-pads EIDs and host names. */
void strip_blanks(char *s);

/* ---- sysfs.c: files under the sysroot ------------------------------------------------- */

int smcnl_path(const struct smcnl *nl, char *buf, size_t len, const char *fmt, ...) _printf_(4, 5);
/* Whether p (absolute, under the sysroot) exists. */
bool smcnl_path_exists(const struct smcnl *nl, const char *p);
/* Read a small file into buf (NUL-terminated, trailing newline removed). */
int smcnl_read_file(const char *path, char *buf, size_t len);
/* The same for path relative to the directory dfd. */
int smcnl_read_file_at(int dfd, const char *path, char *buf, size_t len);

struct smcnl_dibs {
	char name[SMC_DIBS_NAME_LEN];
	char gid[SMC_UUID_TEXT_LEN + 1]; /* as in sysfs, empty if unreadable */
	char gid_hex[33];		 /* gid without dashes, lower case */
	bool has_fabric_id;
	uint16_t fabric_id;
	char parent[64]; /* basename of the device/ link (PCI name), or "" */
};

/* What smcnl_dibs_read() reads of each device besides its name (one sysfs file each). */
enum {
	SMCNL_DIBS_GID = 1 << 0,    /* "gid": names a link group's device */
	SMCNL_DIBS_FABRIC = 1 << 1, /* "fabric_id": 0xffff is a loopback device */
	SMCNL_DIBS_PARENT = 1 << 2, /* the "device" link: the PCI function of an ISM device */
};
/*
 * /sys/class/dibs/<name> entries sorted by name, with what WHAT asks for (more within a
 * snapshot), and whether the class exists (opendir() of it succeeded); 0 entries if it
 * does not.  The caller frees *ret.
 */
int smcnl_dibs_read(struct smcnl *nl, unsigned what, struct smcnl_dibs **ret, size_t *ret_n,
		    bool *ret_class);
bool smcnl_dibs_class_exists(const struct smcnl *nl);
/* The GID of DIBS device name, as smcnl_dibs_read() reads it ("" when it cannot). */
void smcnl_dibs_gid(struct smcnl *nl, const char *name, char *gid, size_t len);

/* ---- linkgroup.c ------------------------------------------------------------------------ */

/* GET_LGR_SMCD without device names (device.c counts link groups per device with it). */
int smcnl_lgr_d_dump(struct smcnl *nl, struct smcd_linkgroup **ret, size_t *ret_n);

/* Name the dibs device carrying an SMC-D link group (by GID); "" if unknown. */
void smcnl_lgr_device_name(const struct smcd_linkgroup *lg, const struct smcnl_dibs *dibs,
			   size_t n_dibs, bool dibs_class, char *buf, size_t len);

/* ---- device.c ---------------------------------------------------------------------------- */

/* GET_DEV_SMCR alone: no netdev names, no GID types (smcr-reach.c needs the PNET IDs). */
int smcnl_smcr_dev_dump(struct smcnl *nl, struct smcr_device **ret, size_t *ret_n);

/* ---- rdma.c: port netdevs as the caller's netns sees them --------------------------------- */

/* enum ib_port_state (include/rdma/ib_verbs.h, not uapi): what SMC calls active. */
#define SMCNL_IB_PORT_ACTIVE 4

struct smcnl_rdma_port {
	char ib_dev[SMC_IB_NAME_LEN + 1];
	uint8_t node_type; /* the device's RDMA_NODE_* (0: not reported) */
	uint32_t port;
	uint8_t state;		  /* RDMA_NLDEV_ATTR_PORT_STATE (0: not reported) */
	uint32_t ifindex;	  /* 0: no netdev, or not in the caller's netns */
	char netdev[IF_NAMESIZE]; /* "" in the same cases */
};

/*
 * Every port of every RDMA device the caller's netns can use, with its netdev when that
 * netdev is in the caller's netns.  Errors are the request's (-ENODATA when replaying a
 * recording made before this query existed): callers then name no netdev at all.
 */
int smcnl_rdma_ports(struct smcnl *nl, struct smcnl_rdma_port **ret, size_t *ret_n);
/* The name of the netdev of (ib_dev, port) if it is ifindex in the caller's netns, else "". */
void smcnl_rdma_netdev_name(const struct smcnl_rdma_port *v, size_t n, const char *ib_dev,
			    uint32_t port, uint32_t ifindex, char buf[IF_NAMESIZE]);

/* ---- eid.c (testing and recording hooks) ------------------------------------------------ */

/* ADD_UEID with raw bytes, no local validation: records the kernel's own refusals. */
int smcnl_ueid_add_raw(struct smcnl *nl, const void *data, size_t len);

/* ---- smclo.c (testing and recording hooks) ---------------------------------------------- */

/*
 * Any SMC_LO command with raw u32 top-level attributes (types[i] = values[i]) and no local
 * validation, to record the kernel's own refusals (policies, strict validation).  ret may
 * be NULL; a reply, if any, is parsed into it.
 */
struct smclo_device;
int smcnl_smclo_raw(struct smcnl *nl, uint8_t cmd, const uint16_t *types, const uint32_t *values,
		    size_t n, struct smclo_device *ret);

/* ---- strerror.c ------------------------------------------------------------------------- */

struct smcnl_errmsg {
	int op;	 /* enum smc_op, or _SMC_OP_MAX for "any operation" */
	int err; /* positive errno */
	const char *text;
};

/* Every mapped (operation, errno) pair, for the tests. */
const struct smcnl_errmsg *smcnl_errmsg_table(size_t *ret_n);

/* The kernel's Latin-1 ctype classes (lib/ctype.c), for the bytes UEIDs and PNET IDs hold. */
static inline bool k_isupper(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 0xc0 && c <= 0xde && c != 0xd7);
}

static inline bool k_islower(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 0xdf && c != 0xf7);
}

static inline bool k_isdigit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static inline bool k_isalnum(unsigned char c)
{
	return k_isdigit(c) || k_isupper(c) || k_islower(c);
}

static inline bool k_isspace(unsigned char c)
{
	return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0xa0;
}
