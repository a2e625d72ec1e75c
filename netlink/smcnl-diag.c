// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SMC sockets of the caller's network namespace: smc_diag over NETLINK_SOCK_DIAG
 * (net/smc/smc_diag.c).
 *
 * Request: SOCK_DIAG_BY_FAMILY with NLM_F_DUMP (without it smc_diag does nothing) and a
 * struct smc_diag_req for family AF_SMC (43); diag_ext has bit 1 << (ext - 1) per wanted
 * extension.  The kernel loads smc_diag.ko on demand (alias net-pf-16-proto-4-type-43)
 * and answers -ENOENT when no handler for AF_SMC could be found: -EPROTONOSUPPORT here.
 *
 * Reply per socket: struct smc_diag_msg (64 bytes) + attributes.  SHUTDOWN and FALLBACK
 * are always sent (7.3); CONNINFO / LGRINFO / DMBINFO when asked for and applicable.
 * DMBINFO is 40 bytes before 6.8 and 56 since (peer_gid_ext, my_gid_ext): the length
 * decides.  Attributes are copied into aligned locals (the uapi structs have
 * __aligned_u64 members; netlink only guarantees 4-byte alignment).
 *
 * Addresses: diag_family is sk_family - 43 for AF_SMC sockets, 2/10 for IPPROTO_SMC
 * sockets (6.11+).  The kernel fills addresses only for AF_SMC sockets: src[0]/dst[0] for
 * SMCPROTO_SMC, the full 16 bytes for SMCPROTO_SMC6, and nothing for IPPROTO_SMC (their
 * sk_protocol matches neither branch).  The protocol is not in the reply, so for AF_SMC
 * the address family is inferred from the words: any non-zero word 1..3 means IPv6 (a
 * v4-mapped address included), else IPv4 in word 0.  All-zero addresses tell nothing
 * (an unbound socket, a wildcard listener of either family, or an IPPROTO_SMC socket):
 * addr_family is AF_UNSPEC then, and callers show a wildcard.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/sock_diag.h>

#include "netlink/smcnl-internal.h"
#include "netlink/uapi/smc_diag.h"

struct diag_ctx {
	smc_socket_fn fn;
	void *userdata;
	int fn_error; /* the callback's own error, told apart from the kernel's */
};

struct list_ctx {
	struct smc_socket *v;
	size_t n, cap;
};

static bool words_zero(const uint32_t *w, int from, int to)
{
	for (int i = from; i <= to; i++)
		if (w[i])
			return false;
	return true;
}

static void diag_addrs(const struct smc_diag_msg *m, struct smc_socket *s)
{
	const uint32_t *src = m->id.idiag_src, *dst = m->id.idiag_dst;

	s->sport = ntohs(m->id.idiag_sport);
	s->dport = ntohs(m->id.idiag_dport);
	s->ifindex = m->id.idiag_if;
	memcpy(&s->cookie, m->id.idiag_cookie, sizeof(s->cookie));
	if (words_zero(src, 0, 3) && words_zero(dst, 0, 3)) {
		s->addr_family = AF_UNSPEC;
		return;
	}
	if (m->diag_family == AF_INET || m->diag_family == AF_INET6)
		s->addr_family = m->diag_family; /* a future kernel that fills them */
	else if (words_zero(src, 1, 3) && words_zero(dst, 1, 3))
		s->addr_family = AF_INET;
	else
		s->addr_family = AF_INET6;
	if (s->addr_family == AF_INET) {
		memcpy(&s->src.s6_addr32[0], &src[0], 4);
		memcpy(&s->dst.s6_addr32[0], &dst[0], 4);
	} else {
		memcpy(&s->src, src, 16);
		memcpy(&s->dst, dst, 16);
	}
}

static void copy_cursor(struct smc_cursor *to, const struct smc_diag_cursor *from)
{
	to->wrap = from->wrap;
	to->count = from->count;
}

static int diag_conninfo(const struct nlattr *a, struct smc_socket *s)
{
	struct smc_diag_conninfo ci;
	int r;

	if (!a)
		return 0;
	r = attr_struct(a, &ci, sizeof(ci), sizeof(ci), NULL);
	if (r < 0)
		return r;
	s->has_conninfo = true;
	s->conn.token = ci.token;
	s->conn.sndbuf_size = ci.sndbuf_size;
	s->conn.rmbe_size = ci.rmbe_size;
	s->conn.peer_rmbe_size = ci.peer_rmbe_size;
	copy_cursor(&s->conn.rx_prod, &ci.rx_prod);
	copy_cursor(&s->conn.rx_cons, &ci.rx_cons);
	copy_cursor(&s->conn.tx_prod, &ci.tx_prod);
	copy_cursor(&s->conn.tx_cons, &ci.tx_cons);
	copy_cursor(&s->conn.tx_prep, &ci.tx_prep);
	copy_cursor(&s->conn.tx_sent, &ci.tx_sent);
	copy_cursor(&s->conn.tx_fin, &ci.tx_fin);
	s->conn.rx_prod_flags = ci.rx_prod_flags;
	s->conn.rx_conn_state_flags = ci.rx_conn_state_flags;
	s->conn.tx_prod_flags = ci.tx_prod_flags;
	s->conn.tx_conn_state_flags = ci.tx_conn_state_flags;
	return 0;
}

/* A fixed char array from the kernel: up to its first NUL, always terminated here. */
static void copy_chars(char *to, size_t to_len, const uint8_t *from, size_t from_len)
{
	size_t n = strnlen((const char *)from, from_len);

	if (n >= to_len)
		n = to_len - 1;
	memcpy(to, from, n);
	to[n] = '\0';
}

static int diag_lgrinfo(const struct nlattr *a, struct smc_socket *s)
{
	struct smc_diag_lgrinfo li;
	int r;

	if (!a)
		return 0;
	r = attr_struct(a, &li, sizeof(li), sizeof(li), NULL);
	if (r < 0)
		return r;
	s->has_lgrinfo = true;
	s->lgr.link_id = li.lnk[0].link_id;
	s->lgr.ibport = li.lnk[0].ibport;
	s->lgr.role = li.role;
	copy_chars(s->lgr.ibname, sizeof(s->lgr.ibname), li.lnk[0].ibname, sizeof(li.lnk[0].ibname));
	copy_chars(s->lgr.gid, sizeof(s->lgr.gid), li.lnk[0].gid, sizeof(li.lnk[0].gid));
	copy_chars(s->lgr.peer_gid, sizeof(s->lgr.peer_gid), li.lnk[0].peer_gid,
		   sizeof(li.lnk[0].peer_gid));
	return 0;
}

/* The 6.1 layout ends after peer_token. */
#define DMBINFO_V1_LEN offsetof(struct smcd_diag_dmbinfo, peer_gid_ext)

static int diag_dmbinfo(const struct nlattr *a, struct smc_socket *s)
{
	struct smcd_diag_dmbinfo di;
	size_t len;
	int r;

	if (!a)
		return 0;
	r = attr_struct(a, &di, sizeof(di), DMBINFO_V1_LEN, &len);
	if (r < 0)
		return r;
	s->has_dmbinfo = true;
	s->dmb.linkid = di.linkid;
	s->dmb.peer_gid = di.peer_gid;
	s->dmb.my_gid = di.my_gid;
	s->dmb.token = di.token;
	s->dmb.peer_token = di.peer_token;
	s->dmb.has_ext = len >= sizeof(di);
	if (s->dmb.has_ext) {
		s->dmb.peer_gid_ext = di.peer_gid_ext;
		s->dmb.my_gid_ext = di.my_gid_ext;
	}
	return 0;
}

static int diag_msg(struct nlmsghdr *nlh, void *userdata)
{
	struct nlattr *tb[SMC_DIAG_MAX + 1];
	struct diag_ctx *c = userdata;
	struct smc_diag_fallback fb;
	struct smc_diag_msg m;
	struct smc_socket s = {};
	int r;

	r = smcnl_sock_diag_parse(nlh, &m, sizeof(m), tb, SMC_DIAG_MAX);
	if (r <= 0)
		return r;
	s.diag_family = m.diag_family;
	s.state = m.diag_state;
	s.mode = m.diag_mode;
	s.uid = m.diag_uid;
	/* diag_inode is a u64 field holding the 32-bit inode number (sock_i_ino). */
	s.inode = (uint32_t)m.diag_inode;
	diag_addrs(&m, &s);
	r = attr_u8(tb[SMC_DIAG_SHUTDOWN], &s.shutdown);
	r = r ?: attr_struct(tb[SMC_DIAG_FALLBACK], &fb, sizeof(fb), sizeof(fb), NULL);
	r = r ?: diag_conninfo(tb[SMC_DIAG_CONNINFO], &s);
	r = r ?: diag_lgrinfo(tb[SMC_DIAG_LGRINFO], &s);
	r = r ?: diag_dmbinfo(tb[SMC_DIAG_DMBINFO], &s);
	if (r < 0)
		return r;
	if (tb[SMC_DIAG_FALLBACK]) {
		s.has_fallback = true;
		s.fallback_reason = fb.reason;
		s.peer_diagnosis = fb.peer_diagnosis;
	}
	r = c->fn(&s, c->userdata);
	if (r < 0)
		c->fn_error = r;
	return r;
}

/* KEY_NAME names the recorded reply; NULL: "sock-diag-EXT" by the extensions asked for. */
static int diag_request(struct smcnl *nl, unsigned want, int flags, const char *key_name,
			smcnl_msg_fn fn, void *userdata)
{
	struct smc_diag_req req = { .diag_family = AF_SMC };
	struct nl_msg *msg;
	char key[32];
	int r;

	if (want & SMC_DIAG_WANT_CONNINFO)
		req.diag_ext |= 1 << (SMC_DIAG_CONNINFO - 1);
	if (want & SMC_DIAG_WANT_LGRINFO)
		req.diag_ext |= 1 << (SMC_DIAG_LGRINFO - 1);
	if (want & SMC_DIAG_WANT_DMBINFO)
		req.diag_ext |= 1 << (SMC_DIAG_DMBINFO - 1);
	msg = smcnl_msg_new(SOCK_DIAG_BY_FAMILY, flags);
	if (!msg)
		return -ENOMEM;
	if (nlmsg_append(msg, &req, sizeof(req), NLMSG_ALIGNTO) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	if (!smcnl_keyed(nl))
		key[0] = '\0';
	else if (key_name)
		snprintf(key, sizeof(key), "%s", key_name);
	else
		snprintf(key, sizeof(key), "sock-diag-%02x", req.diag_ext);
	r = smcnl_request(nl, SMCNL_PROTO_SOCK_DIAG, msg, key, fn, userdata);
	/* No AF_SMC handler after the autoload attempt: no smc_diag in this kernel. */
	return r == -ENOENT ? -EPROTONOSUPPORT : r;
}

int smc_socket_foreach(struct smcnl *nl, unsigned want, smc_socket_fn fn, void *userdata)
{
	struct diag_ctx c = { fn, userdata, 0 };
	int r = diag_request(nl, want, NLM_F_DUMP, NULL, diag_msg, &c);

	/* A callback's -ENOENT is its own, not "no smc_diag in this kernel". */
	return r < 0 && c.fn_error ? c.fn_error : r;
}

/* Doubling, not one more each time: 20,000 sockets are a few dozen reallocs, not 20,000. */
static int list_add(const struct smc_socket *s, void *userdata)
{
	struct list_ctx *c = userdata;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct smc_socket *v = reallocarray(c->v, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = *s;
	return 0;
}

int smc_socket_list(struct smcnl *nl, unsigned want, struct smc_socket **ret, size_t *ret_n)
{
	struct list_ctx c = {};
	int r;

	r = smc_socket_foreach(nl, want, list_add, &c);
	if (r < 0) {
		free(c.v);
		return r;
	}
	*ret = c.v;
	*ret_n = c.n;
	return 0;
}

/* The probe's answer: an ACK, or in recordings from before the probe a whole dump. */
static int diag_ignore(struct nlmsghdr *nlh, void *userdata)
{
	return 0;
}

/*
 * The same request without NLM_F_DUMP, acknowledged: sock_diag autoloads smc_diag and
 * answers -ENOENT without an AF_SMC handler, as for the dump, while smc_diag's handler
 * starts a dump only for NLM_F_DUMP and acknowledges anything else with 0 (every kernel
 * since smc_diag exists).  No socket of the namespace is walked.
 */
int smcnl_diag_probe(struct smcnl *nl)
{
	int r = diag_request(nl, 0, NLM_F_ACK, "sock-diag-probe", diag_ignore, NULL);

	/*
	 * Its own key: under the socket list's key, a recording would hold the bare ACK where
	 * a later replay of "smcctl socket" looks for the dump.  Recordings from before the
	 * probe have its answer as the first socket dump: read (and skipped) as then.
	 */
	if (r == -ENODATA && smcnl_replaying(nl))
		r = diag_request(nl, 0, NLM_F_DUMP, NULL, diag_ignore, NULL);
	return r;
}
