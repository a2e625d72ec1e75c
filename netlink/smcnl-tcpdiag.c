// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * TCP sockets of the caller's network namespace: inet_diag over NETLINK_SOCK_DIAG, for
 * smcctl assess where its BPF programs cannot be loaded (it samples them).
 *
 * Request: SOCK_DIAG_BY_FAMILY, NLM_F_DUMP, struct inet_diag_req_v2 for AF_INET and then
 * AF_INET6, IPPROTO_TCP, every state but TIME_WAIT and NEW_SYN_RECV (request sockets have
 * no tcp_info; listeners come along to tell accepted ends from connecting ones), with
 * INET_DIAG_INFO (struct tcp_info; its length grew over the releases, so what is missing reads as
 * 0).  INET_DIAG_CGROUP_ID comes without asking (5.7+, CONFIG_SOCK_CGROUP_DATA).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/inet_diag.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>

#include "netlink/smcnl-internal.h"

#ifndef INET_DIAG_CGROUP_ID
#define INET_DIAG_CGROUP_ID 21
#endif
#define TCPDIAG_ATTR_MAX 32

/*
 * Where struct tcp_info (linux/tcp.h, which clashes with glibc's netinet/tcp.h that libnl
 * includes) keeps what we read: the uapi only ever appends, so these offsets hold on every
 * kernel whose tcp_info is long enough (bytes_acked and bytes_received: 4.1+,
 * data_segs_out: 4.6+).
 */
#define TCPI_BYTES_ACKED 120
#define TCPI_BYTES_RECEIVED 128
#define TCPI_DATA_SEGS_OUT 156

struct tcpdiag_ctx {
	struct tcp_conn *v;
	size_t n;
};

static int tcpdiag_msg(struct nlmsghdr *nlh, void *userdata)
{
	struct nlattr *tb[TCPDIAG_ATTR_MAX + 1];
	struct tcpdiag_ctx *c = userdata;
	struct inet_diag_msg m;
	struct tcp_conn t = {};
	int r;

	r = smcnl_sock_diag_parse(nlh, &m, sizeof(m), tb, TCPDIAG_ATTR_MAX);
	if (r <= 0)
		return r;
	t.family = m.idiag_family;
	t.state = m.idiag_state;
	t.sport = ntohs(m.id.idiag_sport);
	t.dport = ntohs(m.id.idiag_dport);
	memcpy(&t.src, m.id.idiag_src, sizeof(t.src));
	memcpy(&t.dst, m.id.idiag_dst, sizeof(t.dst));
	memcpy(&t.cookie, m.id.idiag_cookie, sizeof(t.cookie));
	t.inode = m.idiag_inode;
	if (tb[INET_DIAG_INFO]) {
		size_t len = (size_t)nla_len(tb[INET_DIAG_INFO]);
		const uint8_t *ti = nla_data(tb[INET_DIAG_INFO]);

		if (len >= TCPI_BYTES_RECEIVED + 8) {
			memcpy(&t.bytes_acked, ti + TCPI_BYTES_ACKED, 8);
			memcpy(&t.bytes_received, ti + TCPI_BYTES_RECEIVED, 8);
		}
		if (len >= TCPI_DATA_SEGS_OUT + 4)
			memcpy(&t.data_segs_out, ti + TCPI_DATA_SEGS_OUT, 4);
	}
	if (tb[INET_DIAG_CGROUP_ID] && attr_u64(tb[INET_DIAG_CGROUP_ID], &t.cgroup_id) < 0)
		return -EBADMSG;
	return SMCNL_APPEND(c->v, c->n, t);
}

static int tcpdiag_dump(struct smcnl *nl, int family, struct tcpdiag_ctx *c)
{
	struct inet_diag_req_v2 req = {
		.sdiag_family = (uint8_t)family,
		.sdiag_protocol = IPPROTO_TCP,
		.idiag_ext = 1 << (INET_DIAG_INFO - 1),
		/* everything but TIME_WAIT (6) and NEW_SYN_RECV (12) */
		.idiag_states = 0xfff & ~((1u << 6) | (1u << 12)),
	};
	struct nl_msg *msg = smcnl_msg_new(SOCK_DIAG_BY_FAMILY, NLM_F_DUMP);
	int r;

	if (!msg)
		return -ENOMEM;
	if (nlmsg_append(msg, &req, sizeof(req), NLMSG_ALIGNTO) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	r = smcnl_request(nl, SMCNL_PROTO_SOCK_DIAG, msg,
			  family == AF_INET ? "tcp-diag-4" : "tcp-diag-6", tcpdiag_msg, c);
	/* no inet_diag (CONFIG_INET_DIAG) or no IPv6 */
	return r == -ENOENT ? -EPROTONOSUPPORT : r;
}

int tcp_conn_list(struct smcnl *nl, struct tcp_conn **ret, size_t *ret_n)
{
	struct tcpdiag_ctx c = {};
	int r = tcpdiag_dump(nl, AF_INET, &c);

	if (r >= 0) {
		int r6 = tcpdiag_dump(nl, AF_INET6, &c);

		/* a kernel without IPv6 has none of its sockets either */
		if (r6 < 0 && r6 != -EPROTONOSUPPORT)
			r = r6;
	}
	if (r < 0) {
		free(c.v);
		return r;
	}
	*ret = c.v;
	*ret_n = c.n;
	return 0;
}
