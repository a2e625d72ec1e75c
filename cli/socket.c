// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl socket: the smcss view of SMC sockets in this network namespace (smc_diag).
 *
 * Differences from smcss, on purpose: fallback reasons are shown by name (with what they
 * mean and what to do, below the table) instead of bare hex codes; IPPROTO_SMC sockets,
 * for which the kernel reports no addresses, show "*:PORT" rather than 0.0.0.0; addresses
 * are never truncated; an ambiguous family is not guessed from the address bits (the
 * library reports the family the kernel gave).
 *
 * -p adds the processes holding each socket (common/owner.c walks /proc as `ss -p` does)
 * with their cgroup and systemd unit; that view is drawn from the document, as -j is.
 */
#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cli/objects.h"
#include "common/output.h"
#include "common/owner.h"
#include "common/smc-socket.h"

/* smc_diag states (kernel net/smc/smc.h), for the smcss default filter. */
#define SMC_STATE_INIT 2
#define SMC_STATE_LISTEN 10
/* smc_diag modes */
#define SMC_MODE_SMCR 0
#define SMC_MODE_TCP 1
#define SMC_MODE_SMCD 2

static json_object *addr_json(int family, const struct in6_addr *a, uint16_t port)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	char buf[INET6_ADDRSTRLEN];
	const char *s = NULL;

	if (family == AF_INET)
		s = inet_ntop(AF_INET, &a->s6_addr32[0], buf, sizeof(buf));
	else if (family == AF_INET6)
		s = inet_ntop(AF_INET6, a, buf, sizeof(buf));
	if (!o || json_add_str(o, "address", s) < 0 || json_add_u64(o, "port", port) < 0)
		return NULL;
	return TAKE_PTR(o);
}

/* {code, name, text, advice} of a CLC decline code; names from the library's table. */
static json_object *reason_json(uint32_t code)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();

	if (!o || json_add_u64(o, "code", code) < 0 ||
	    json_add_str(o, "name", smc_decline_name(code)) < 0 ||
	    json_add_str(o, "text", smc_decline_text(code)) < 0 ||
	    json_add_str(o, "advice", smc_decline_advice(code)) < 0)
		return NULL;
	return TAKE_PTR(o);
}

static json_object *fallback_json(const struct smc_socket *s)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	int r = 0;

	if (!o)
		return NULL;
	r |= json_add(o, "reason", reason_json(s->fallback_reason));
	if (s->peer_diagnosis)
		r |= json_add(o, "peer_diagnosis", reason_json(s->peer_diagnosis));
	else
		r |= json_add_null(o, "peer_diagnosis");
	return r < 0 ? NULL : TAKE_PTR(o);
}

static json_object *cursor_json(const struct smc_cursor *c)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();

	if (!o || json_add_u64(o, "wrap", c->wrap) < 0 || json_add_u64(o, "count", c->count) < 0)
		return NULL;
	return TAKE_PTR(o);
}

static json_object *conninfo_json(const struct smc_socket *s)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	int r = 0;

	if (!o)
		return NULL;
	r |= json_add_u64(o, "token", s->conn.token);
	r |= json_add_u64(o, "sndbuf_size", s->conn.sndbuf_size);
	r |= json_add_u64(o, "rmbe_size", s->conn.rmbe_size);
	r |= json_add_u64(o, "peer_rmbe_size", s->conn.peer_rmbe_size);
	r |= json_add(o, "rx_prod", cursor_json(&s->conn.rx_prod));
	r |= json_add(o, "rx_cons", cursor_json(&s->conn.rx_cons));
	r |= json_add(o, "tx_prod", cursor_json(&s->conn.tx_prod));
	r |= json_add(o, "tx_cons", cursor_json(&s->conn.tx_cons));
	r |= json_add(o, "tx_prep", cursor_json(&s->conn.tx_prep));
	r |= json_add(o, "tx_sent", cursor_json(&s->conn.tx_sent));
	r |= json_add(o, "tx_fin", cursor_json(&s->conn.tx_fin));
	r |= json_add_u64(o, "rx_prod_flags", s->conn.rx_prod_flags);
	r |= json_add_u64(o, "rx_conn_state_flags", s->conn.rx_conn_state_flags);
	r |= json_add_u64(o, "tx_prod_flags", s->conn.tx_prod_flags);
	r |= json_add_u64(o, "tx_conn_state_flags", s->conn.tx_conn_state_flags);
	return r < 0 ? NULL : TAKE_PTR(o);
}

static json_object *lgrinfo_json(const struct smc_socket *s)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	int r = 0;

	if (!o)
		return NULL;
	r |= json_add_u64(o, "link_id", s->lgr.link_id);
	r |= json_add_str(o, "ib_dev", s->lgr.ibname);
	r |= json_add_u64(o, "ib_port", s->lgr.ibport);
	r |= json_add_str(o, "gid", s->lgr.gid);
	r |= json_add_str(o, "peer_gid", s->lgr.peer_gid);
	r |= json_add_str(o, "role", smc_lgr_role_name(s->lgr.role));
	return r < 0 ? NULL : TAKE_PTR(o);
}

static json_object *dmbinfo_json(const struct smc_socket *s)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	char gid[33], peer[33];
	int r = 0;

	if (!o)
		return NULL;
	if (s->dmb.has_ext) {
		smcd_gid_format(s->dmb.my_gid, s->dmb.my_gid_ext, gid);
		smcd_gid_format(s->dmb.peer_gid, s->dmb.peer_gid_ext, peer);
	} else {
		snprintf(gid, sizeof(gid), "%016" PRIx64, s->dmb.my_gid);
		snprintf(peer, sizeof(peer), "%016" PRIx64, s->dmb.peer_gid);
	}
	r |= json_add_u64(o, "linkgroup_id", s->dmb.linkid);
	r |= json_add_str(o, "gid", gid);
	r |= json_add_str(o, "peer_gid", peer);
	r |= json_add_u64(o, "token", s->dmb.token);
	r |= json_add_u64(o, "peer_token", s->dmb.peer_token);
	return r < 0 ? NULL : TAKE_PTR(o);
}

static int add_if(json_object *o, const char *key, bool has,
		  json_object *(*fn)(const struct smc_socket *), const struct smc_socket *s)
{
	return has ? json_add(o, key, fn(s)) : json_add_null(o, key);
}

/* A listener or a socket in INIT has negotiated nothing: its mode would be a lie. */
static const char *mode_name(const struct smc_socket *s)
{
	if (s->mode != SMC_MODE_TCP && (s->state == SMC_STATE_LISTEN || s->state == SMC_STATE_INIT))
		return NULL;
	return smc_sock_mode_name(s->mode);
}

json_object *socket_json(const struct smc_socket *s)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	bool inet = s->diag_family != AF_SMC;
	int r = 0;

	if (!o)
		return NULL;
	r |= json_add_str(o, "state", smc_sock_state_name(s->state));
	r |= json_add_u64(o, "uid", s->uid);
	r |= json_add_u64(o, "inode", s->inode);
	r |= json_add_str(o, "protocol", inet ? "IPPROTO_SMC" : "AF_SMC");
	r |= json_add(o, "local", addr_json(s->addr_family, &s->src, s->sport));
	r |= json_add(o, "peer", addr_json(s->addr_family, &s->dst, s->dport));
	r |= json_add_u64(o, "ifindex", s->ifindex);
	r |= json_add_str(o, "mode", mode_name(s));
	r |= json_add_u64(o, "shutdown", s->shutdown);
	r |= json_add_u64(o, "cookie", s->cookie);
	/* The kernel sends SMC_DIAG_FALLBACK for every socket: {0, 0} unless it fell back. */
	r |= add_if(o, "fallback", s->has_fallback && (s->mode == SMC_MODE_TCP || s->fallback_reason),
		    fallback_json, s);
	r |= add_if(o, "conninfo", s->has_conninfo, conninfo_json, s);
	r |= add_if(o, "lgrinfo", s->has_lgrinfo, lgrinfo_json, s);
	r |= add_if(o, "dmbinfo", s->has_dmbinfo, dmbinfo_json, s);
	return r < 0 ? NULL : TAKE_PTR(o);
}

/* ---------------------------------------------------------------------------------- */
/* Text                                                                                */

static const char *fmt_addr(json_object *a, char *buf, size_t len)
{
	const char *addr = out_get_str(a, "address", NULL);
	uint64_t port = out_get_u64(a, "port", 0);

	if (!a)
		return NULL;
	if (!addr)
		snprintf(buf, len, "*:%" PRIu64, port);
	else if (strchr(addr, ':'))
		snprintf(buf, len, "[%s]:%" PRIu64, addr, port);
	else
		snprintf(buf, len, "%s:%" PRIu64, addr, port);
	return buf;
}

static const char *fmt_local(json_object *row, const struct out_column *col, char *buf, size_t len)
{
	return fmt_addr(out_get(row, "local"), buf, len);
}

static const char *fmt_peer(json_object *row, const struct out_column *col, char *buf, size_t len)
{
	return fmt_addr(out_get(row, "peer"), buf, len);
}

static const char *reason_name(json_object *r, char *buf, size_t len)
{
	const char *name = out_get_str(r, "name", NULL);

	if (name)
		return name;
	snprintf(buf, len, "0x%08" PRIx64, out_get_u64(r, "code", 0));
	return buf;
}

/* "NOSMCDDEV", or for a decline by the peer "PEERDECL/NOUEID" (smcss: 0x05000000/0x...). */
static const char *fmt_fallback(json_object *row, const struct out_column *col, char *buf, size_t len)
{
	json_object *f = out_get(row, "fallback"), *peer;
	char a[16], b[16];

	if (!f)
		return NULL;
	peer = out_get(f, "peer_diagnosis");
	if (!peer)
		snprintf(buf, len, "%s", reason_name(out_get(f, "reason"), a, sizeof(a)));
	else
		snprintf(buf, len, "%s/%s", reason_name(out_get(f, "reason"), a, sizeof(a)),
			 reason_name(peer, b, sizeof(b)));
	return buf;
}

static const char *fmt_cursor(json_object *c, char *buf, size_t len)
{
	if (!c)
		return NULL;
	snprintf(buf, len, "%" PRIu64 ":%" PRIu64, out_get_u64(c, "wrap", 0),
		 out_get_u64(c, "count", 0));
	return buf;
}

#define CURSOR_FMT(field)                                                                         \
	static const char *fmt_##field(json_object *row, const struct out_column *col, char *buf, \
				       size_t len)                                                \
	{                                                                                         \
		return fmt_cursor(out_get(row, "conninfo." #field), buf, len);                    \
	}
CURSOR_FMT(rx_prod)
CURSOR_FMT(rx_cons)
CURSOR_FMT(tx_prod)
CURSOR_FMT(tx_cons)

/* SMC-D: the link group (hex) of the DMB; SMC-R: device/port and link id. */
static const char *fmt_link(json_object *row, const struct out_column *col, char *buf, size_t len)
{
	json_object *d = out_get(row, "dmbinfo"), *l = out_get(row, "lgrinfo");

	if (d)
		snprintf(buf, len, "%08" PRIx64, out_get_u64(d, "linkgroup_id", 0));
	else if (l)
		snprintf(buf, len, "%s/%" PRIu64 "#%" PRIu64, out_get_str(l, "ib_dev", "-"),
			 out_get_u64(l, "ib_port", 0), out_get_u64(l, "link_id", 0));
	else
		return NULL;
	return buf;
}

/* The first holder as "command/pid", "+N" for N more (a listener shared by workers). */
static const char *fmt_process(json_object *row, const struct out_column *col, char *buf, size_t len)
{
	json_object *procs = out_get(row, "processes"), *p;
	size_t n = procs ? json_object_array_length(procs) : 0;

	(void)col;
	if (n == 0)
		return NULL;
	p = json_object_array_get_idx(procs, 0);
	if (n > 1)
		snprintf(buf, len, "%s/%" PRIu64 "+%zu", out_get_str(p, "command", "?"),
			 out_get_u64(p, "pid", 0), n - 1);
	else
		snprintf(buf, len, "%s/%" PRIu64, out_get_str(p, "command", "?"),
			 out_get_u64(p, "pid", 0));
	return buf;
}

/* The first holder's unit: the user unit under a user manager, else the system unit, else
 * its cgroup path (a cgroup outside systemd's units, a container of the cgroupfs driver). */
static const char *fmt_unit(json_object *row, const struct out_column *col, char *buf, size_t len)
{
	json_object *procs = out_get(row, "processes");
	json_object *p = procs && json_object_array_length(procs)
				 ? json_object_array_get_idx(procs, 0)
				 : NULL;
	const char *u;

	(void)col;
	if (!p)
		return NULL;
	u = out_get_str(p, "user_unit", NULL);
	if (!u)
		u = out_get_str(p, "unit", NULL);
	if (!u)
		u = out_get_str(p, "cgroup", NULL);
	if (!u)
		return NULL;
	snprintf(buf, len, "%s", u);
	return buf;
}

/*
 * The smcss columns, then the two of -p (SOCKET_COLS_P): every table but -p's shows the
 * first SOCKET_COLS.
 */
static const struct out_column cols[] = {
	OUT_COL("state", "State", OUT_STR),
	OUT_COL("uid", "UID", OUT_U64),
	OUT_COL("inode", "Inode", OUT_U64),
	OUT_COL(NULL, "Local-Address", OUT_CUSTOM, .format = fmt_local),
	OUT_COL(NULL, "Peer-Address", OUT_CUSTOM, .format = fmt_peer),
	OUT_COL("ifindex", "Intf", OUT_U64),
	OUT_COL("protocol", "Protocol", OUT_STR, .detail = 1),
	OUT_COL("shutdown", "Shutd", OUT_U64, .detail = 1),
	OUT_COL("conninfo.token", "Token", OUT_HEX32, .detail = 1),
	OUT_COL("conninfo.sndbuf_size", "Sndbuf", OUT_U64, .detail = 1),
	OUT_COL("conninfo.rmbe_size", "Rcvbuf", OUT_U64, .detail = 1),
	OUT_COL("conninfo.peer_rmbe_size", "Peerbuf", OUT_U64, .detail = 1),
	OUT_COL(NULL, "Link", OUT_CUSTOM, .detail = 1, .format = fmt_link),
	OUT_COL(NULL, "RX-Prod", OUT_CUSTOM, .detail = 2, .flags = OUT_RIGHT, .format = fmt_rx_prod),
	OUT_COL(NULL, "RX-Cons", OUT_CUSTOM, .detail = 2, .flags = OUT_RIGHT, .format = fmt_rx_cons),
	OUT_COL(NULL, "TX-Prod", OUT_CUSTOM, .detail = 2, .flags = OUT_RIGHT, .format = fmt_tx_prod),
	OUT_COL(NULL, "TX-Cons", OUT_CUSTOM, .detail = 2, .flags = OUT_RIGHT, .format = fmt_tx_cons),
	OUT_COL("mode", "Mode", OUT_STR),
	OUT_COL(NULL, "Fallback", OUT_CUSTOM, .format = fmt_fallback),
	/* -p */
	OUT_COL(NULL, "Process", OUT_CUSTOM, .format = fmt_process),
	OUT_COL(NULL, "Unit", OUT_CUSTOM, .format = fmt_unit),
};
#define SOCKET_COLS_P ELEMENTSOF(cols)
#define SOCKET_COLS (SOCKET_COLS_P - 2)

/* Every distinct reason of the table, explained once: "NOUEID  the peer sent ... ". */
static void print_legend(struct smcctl *c, json_object *socks)
{
	uint32_t seen[64];
	size_t n_seen = 0, n = json_object_array_length(socks);

	for (size_t i = 0; i < n; i++) {
		json_object *f = out_get(json_object_array_get_idx(socks, i), "fallback");
		json_object *rs[2] = { out_get(f, "reason"), out_get(f, "peer_diagnosis") };

		for (size_t k = 0; k < 2; k++) {
			uint32_t code;
			const char *advice;
			bool dup = false;

			if (!rs[k])
				continue;
			code = (uint32_t)out_get_u64(rs[k], "code", 0);
			for (size_t j = 0; j < n_seen; j++)
				dup |= seen[j] == code;
			if (dup || n_seen == ELEMENTSOF(seen))
				continue;
			if (n_seen == 0)
				fputs("\nFallback reasons:\n", c->out);
			seen[n_seen++] = code;
			fprintf(c->out, "  %-10s 0x%08" PRIx32 "  %s\n",
				out_get_str(rs[k], "name", "-"), code,
				out_get_str(rs[k], "text", "unknown reason code"));
			advice = out_get_str(rs[k], "advice", NULL);
			if (advice)
				fprintf(c->out, "  %-10s %10s  -> %s\n", "", "", advice);
		}
	}
}

void socket_list_text(struct smcctl *c, json_object *doc)
{
	json_object *socks = out_get(doc, "sockets"), *scan = out_get(doc, "process_scan");
	uint64_t unreadable = out_get_u64(scan, "unreadable", 0);

	out_table(c->out, cols, scan ? SOCKET_COLS_P : SOCKET_COLS, socks, c->detail, 0);
	if (socks)
		print_legend(c, socks);
	if (unreadable)
		fprintf(c->out,
			"\n%" PRIu64 " process%s of other users could not be inspected: run as root to "
			"see every socket's process.\n",
			unreadable, unreadable == 1 ? "" : "es");
}

/*
 * The same text straight from the sockets, for the handler: socket_json()'s document of a
 * few hundred sockets costs twenty times what the kernel's answer does (json-c allocates
 * every key, value and object, then frees them), more than smcss needs for all of its work.
 * Each cell here is what out_table() renders from that document for cols[] (the goldens of
 * tests/golden replay the handler; test-cli-socket-text holds it to socket_list_text()).
 */
/*
 * "a.b.c.d:port", "[v6]:port" or "*:port".  IPv4 and the port without stdio: a table of
 * sockets formats two of these per row (glibc's inet_ntop() for IPv4 is an snprintf()).
 */
static const char *addr_text(int family, const struct in6_addr *a, uint16_t port, char *buf,
			     size_t len)
{
	char s[INET6_ADDRSTRLEN + 8], p[8];
	size_t n = 0, lp;

	if (family == AF_INET) {
		const uint8_t *b = (const uint8_t *)&a->s6_addr32[0];

		for (int i = 0; i < 4; i++) {
			out_fmt_dec(b[i], s + n, 4);
			n += strlen(s + n);
			s[n++] = i < 3 ? '.' : ':';
		}
	} else if (family == AF_INET6 && inet_ntop(AF_INET6, a, s + 1, sizeof(s) - 1)) {
		s[0] = '[';
		n = strlen(s);
		s[n++] = ']';
		s[n++] = ':';
	} else {
		s[n++] = '*';
		s[n++] = ':';
	}
	lp = strlen(out_fmt_dec(port, p, sizeof(p)));
	if (len == 0)
		return buf;
	if (n + lp >= len) { /* as snprintf(): cut, terminated */
		snprintf(buf, len, "%.*s%s", (int)n, s, p);
		return buf;
	}
	memcpy(buf, s, n);
	memcpy(buf + n, p, lp + 1);
	return buf;
}

static const char *str_cell(const char *s)
{
	return s && *s ? s : "-";
}

static bool shows_fallback(const struct smc_socket *s)
{
	return s->has_fallback && (s->mode == SMC_MODE_TCP || s->fallback_reason);
}

static const char *reason_text(uint32_t code, char *buf, size_t len)
{
	const char *name = smc_decline_name(code);

	if (name)
		return name;
	snprintf(buf, len, "0x%08" PRIx32, code);
	return buf;
}

static const char *cursor_text(const struct smc_socket *s, const struct smc_cursor *cur, char *buf,
			       size_t len)
{
	if (!s->has_conninfo)
		return "-";
	snprintf(buf, len, "%" PRIu16 ":%" PRIu32, cur->wrap, cur->count);
	return buf;
}

static const char *u64_text(uint64_t v, char *buf, size_t len)
{
	return out_fmt_dec(v, buf, len);
}

/* The cell of column i of cols[] (their order) for socket s. */
static const char *socket_cell(const struct smc_socket *s, size_t i, char *buf, size_t len)
{
	char a[16], b[16];

	switch (i) {
	case 0:
		return str_cell(smc_sock_state_name(s->state));
	case 1:
		return u64_text(s->uid, buf, len);
	case 2:
		return u64_text(s->inode, buf, len);
	case 3:
		return addr_text(s->addr_family, &s->src, s->sport, buf, len);
	case 4:
		return addr_text(s->addr_family, &s->dst, s->dport, buf, len);
	case 5:
		return u64_text(s->ifindex, buf, len);
	case 6:
		return s->diag_family != AF_SMC ? "IPPROTO_SMC" : "AF_SMC";
	case 7:
		return u64_text(s->shutdown, buf, len);
	case 8:
		if (!s->has_conninfo)
			return "-";
		snprintf(buf, len, "%08" PRIx32, s->conn.token);
		return buf;
	case 9:
		return s->has_conninfo ? u64_text(s->conn.sndbuf_size, buf, len) : "-";
	case 10:
		return s->has_conninfo ? u64_text(s->conn.rmbe_size, buf, len) : "-";
	case 11:
		return s->has_conninfo ? u64_text(s->conn.peer_rmbe_size, buf, len) : "-";
	case 12:
		if (s->has_dmbinfo)
			snprintf(buf, len, "%08" PRIx32, s->dmb.linkid);
		else if (s->has_lgrinfo)
			snprintf(buf, len, "%s/%u#%u", s->lgr.ibname, s->lgr.ibport, s->lgr.link_id);
		else
			return "-";
		return str_cell(buf);
	case 13:
		return cursor_text(s, &s->conn.rx_prod, buf, len);
	case 14:
		return cursor_text(s, &s->conn.rx_cons, buf, len);
	case 15:
		return cursor_text(s, &s->conn.tx_prod, buf, len);
	case 16:
		return cursor_text(s, &s->conn.tx_cons, buf, len);
	case 17:
		return str_cell(mode_name(s));
	case 18:
		if (!shows_fallback(s))
			return "-";
		if (s->peer_diagnosis)
			snprintf(buf, len, "%s/%s", reason_text(s->fallback_reason, a, sizeof(a)),
				 reason_text(s->peer_diagnosis, b, sizeof(b)));
		else
			snprintf(buf, len, "%s", reason_text(s->fallback_reason, a, sizeof(a)));
		return str_cell(buf);
	default:
		return "-";
	}
}

static void print_reason(struct smcctl *c, uint32_t code, uint32_t *seen, size_t *n_seen)
{
	const char *advice = smc_decline_advice(code), *name = smc_decline_name(code);
	const char *text = smc_decline_text(code);

	for (size_t j = 0; j < *n_seen; j++)
		if (seen[j] == code)
			return;
	if (*n_seen == 64)
		return;
	if (*n_seen == 0)
		fputs("\nFallback reasons:\n", c->out);
	seen[(*n_seen)++] = code;
	fprintf(c->out, "  %-10s 0x%08" PRIx32 "  %s\n", name ? name : "-", code,
		text ? text : "unknown reason code");
	if (advice)
		fprintf(c->out, "  %-10s %10s  -> %s\n", "", "", advice);
}

int socket_rows_text(struct smcctl *c, const struct smc_socket *const *rows, size_t n)
{
	_cleanup_(out_cells_done) struct out_cells t = {};
	uint32_t seen[64];
	size_t n_seen = 0;

	static_assert(SOCKET_COLS == 19, "socket_cell() knows the columns by position");
	for (size_t r = 0; r < n; r++)
		for (size_t i = 0; i < SOCKET_COLS; i++) {
			char buf[256];

			if (cols[i].detail > c->detail)
				continue;
			if (out_cells_add(&t, socket_cell(rows[r], i, buf, sizeof(buf))) < 0)
				return -ENOMEM;
		}
	if (out_table_cells(c->out, cols, SOCKET_COLS, &t, c->detail, 0) < 0)
		return -ENOMEM;
	for (size_t r = 0; r < n; r++) {
		if (!shows_fallback(rows[r]))
			continue;
		print_reason(c, rows[r]->fallback_reason, seen, &n_seen);
		if (rows[r]->peer_diagnosis)
			print_reason(c, rows[r]->peer_diagnosis, seen, &n_seen);
	}
	return 0;
}

/* ---------------------------------------------------------------------------------- */
/* Handler                                                                             */

struct filter {
	bool all, listening, smcd, smcr;
};

static json_object *process_json(const struct sock_proc *p)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	char unit[256], user_unit[256];
	int r = 0;

	if (!o)
		return NULL;
	cgroup_units(p->cgroup, unit, sizeof(unit), user_unit, sizeof(user_unit));
	r |= json_add_u64(o, "pid", (uint64_t)p->pid);
	/* names their owners chose: never raw on a terminal or in JSON */
	r |= json_add_name(o, "command", p->comm[0] ? p->comm : NULL);
	r |= json_add_u64(o, "fd", (uint64_t)p->fd);
	r |= json_add_name(o, "cgroup", p->cgroup);
	r |= json_add_name(o, "unit", unit[0] ? unit : NULL);
	r |= json_add_name(o, "user_unit", user_unit[0] ? user_unit : NULL);
	return r < 0 ? NULL : TAKE_PTR(o);
}

/* socket_json() and, with -p, "processes": every holder found (none: an empty list). */
static json_object *socket_row_json(const struct smc_socket *s, const struct sock_owners *o)
{
	_cleanup_(json_object_putp) json_object *row = socket_json(s);
	const struct sock_proc *p;
	json_object *arr;
	size_t n;

	if (!row || !o)
		return TAKE_PTR(row);
	if (json_add(row, "processes", arr = json_object_new_array()) < 0)
		return NULL;
	n = sock_owners_of(o, s->inode, &p);
	for (size_t i = 0; i < n; i++)
		if (json_append(arr, process_json(&p[i])) < 0)
			return NULL;
	return TAKE_PTR(row);
}

/* smcss semantics: by default connected and closing sockets; -a adds LISTEN and INIT. */
static bool wanted(const struct filter *f, const struct smc_socket *s)
{
	bool listen = s->state == SMC_STATE_LISTEN;

	if (f->listening)
		return listen;
	if (!f->all && (listen || s->state == SMC_STATE_INIT))
		return false;
	if (f->smcd && s->mode != SMC_MODE_SMCD)
		return false;
	if (f->smcr && s->mode != SMC_MODE_SMCR)
		return false;
	return true;
}

int socket_list(struct smcctl *c, const struct verb_args *a)
{
	struct filter f = {
		.all = a->opt[SOCKET_OPT_ALL],
		.listening = a->opt[SOCKET_OPT_LISTENING],
		.smcd = a->opt[SOCKET_OPT_SMCD],
		.smcr = a->opt[SOCKET_OPT_SMCR],
	};
	bool processes = a->opt[SOCKET_OPT_PROCESSES];
	_cleanup_(sock_owners_done) struct sock_owners owners = {};
	_cleanup_(freep) struct smc_socket *socks = NULL;
	_cleanup_(json_object_putp) json_object *doc = NULL;
	json_object *arr;
	unsigned want = 0;
	struct smcnl *nl;
	size_t n = 0;
	int r, s;

	if (f.all && f.listening)
		return smcctl_usage(c, "--all and --listening exclude each other");
	if (f.smcd && f.smcr)
		return smcctl_usage(c, "--smcd and --smcr exclude each other");
	if (f.listening && (f.smcd || f.smcr))
		return smcctl_usage(c, "listening sockets have no SMC mode yet: drop --%s",
				    f.smcd ? "smcd" : "smcr");
	if (c->detail)
		want |= SMC_DIAG_WANT_CONNINFO | SMC_DIAG_WANT_LGRINFO | SMC_DIAG_WANT_DMBINFO;
	if (f.smcd)
		want |= SMC_DIAG_WANT_DMBINFO;
	if (f.smcr)
		want |= SMC_DIAG_WANT_LGRINFO;

	if ((s = smcctl_nl(c, &nl)))
		return s;
	r = smc_socket_list(nl, want, &socks, &n);
	if (r < 0)
		return smcctl_fail(c, SMC_OP_SOCKET_DIAG, r, "cannot list the SMC sockets");
	if (processes) {
		_cleanup_(freep) uint64_t *inodes = calloc(n ? n : 1, sizeof(*inodes));
		const char *sysroot = c->nl_opts.sysroot ? c->nl_opts.sysroot : "";
		char proc[PATH_MAX];
		size_t k = 0;

		if (!inodes)
			return smcctl_oom(c);
		for (size_t i = 0; i < n; i++)
			if (wanted(&f, &socks[i]))
				inodes[k++] = socks[i].inode;
		/* the tests' sysroot holds a procfs tree of their own */
		snprintf(proc, sizeof(proc), "%s/proc", sysroot);
		r = sock_owners_scan(proc, inodes, k, &owners);
		if (r == -ENOMEM)
			return smcctl_oom(c);
		if (r < 0)
			return smcctl_error(c, SMCCTL_EXIT_FAILURE,
					    "cannot read %s to find the sockets' processes: %s "
					    "(is procfs mounted?)",
					    proc, strerror(-r));
	}
	if (!c->json && !processes) {
		_cleanup_(freep) const struct smc_socket **rows = calloc(n ? n : 1, sizeof(*rows));
		size_t k = 0;

		if (!rows)
			return smcctl_oom(c);
		for (size_t i = 0; i < n; i++)
			if (wanted(&f, &socks[i]))
				rows[k++] = &socks[i];
		/* No document: the text does not need json-c (loaded on first use, cli/dl.c). */
		if (socket_rows_text(c, rows, k) < 0)
			return smcctl_oom(c);
		return smcctl_emit(c, NULL, NULL);
	}
	doc = json_object_new_object();
	if (!doc || json_add(doc, "sockets", arr = json_object_new_array()) < 0)
		return smcctl_oom(c);
	for (size_t i = 0; i < n; i++)
		if (wanted(&f, &socks[i]) &&
		    json_append(arr, socket_row_json(&socks[i], processes ? &owners : NULL)) < 0)
			return smcctl_oom(c);
	if (processes) {
		json_object *scan;

		if (json_add(doc, "process_scan", scan = json_object_new_object()) < 0 ||
		    json_add_u64(scan, "unreadable", owners.unreadable) < 0)
			return smcctl_oom(c);
	}
	return smcctl_emit(c, doc, socket_list_text);
}
