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
 * with their cgroup and systemd unit.
 *
 * One emit per field into the sink (common/output.h): the table for text, streamed JSON
 * for -j, a json-c object for socket_json() (smcctl check).  No document is built for a
 * listing: for a few hundred sockets it cost twenty times what the kernel's answer does
 * (bench/smcctl-vs-smctools).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cli/verbs.h"
#include "common/container-ident.h"
#include "common/name-sanitize.h"
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

/* A listener or a socket in INIT has negotiated nothing: its mode would be a lie. */
static const char *mode_name(const struct smc_socket *s)
{
	if (s->mode != SMC_MODE_TCP && (s->state == SMC_STATE_LISTEN || s->state == SMC_STATE_INIT))
		return NULL;
	return smc_sock_mode_name(s->mode);
}

/* The kernel sends SMC_DIAG_FALLBACK for every socket: {0, 0} unless it fell back. */
static bool shows_fallback(const struct smc_socket *s)
{
	return s->has_fallback && (s->mode == SMC_MODE_TCP || s->fallback_reason);
}

/*
 * The smcss columns, then the two of -p (SOCKET_COLS_P): every table but -p's shows the
 * first SOCKET_COLS.  The keys are where the fields live in -j's rows.
 */
enum {
	COL_STATE,
	COL_UID,
	COL_INODE,
	COL_LOCAL,
	COL_PEER,
	COL_INTF,
	COL_PROTOCOL,
	COL_SHUTD,
	COL_TOKEN,
	COL_SNDBUF,
	COL_RCVBUF,
	COL_PEERBUF,
	COL_LINK,
	COL_RX_PROD,
	COL_RX_CONS,
	COL_TX_PROD,
	COL_TX_CONS,
	COL_MODE,
	COL_FALLBACK,
	COL_PROCESS,
	COL_UNIT,
};

static const struct out_column cols[] = {
	[COL_STATE] = OUT_COL("state", "State", OUT_STR),
	[COL_UID] = OUT_COL("uid", "UID", OUT_U64),
	[COL_INODE] = OUT_COL("inode", "Inode", OUT_U64),
	[COL_LOCAL] = OUT_COL("local", "Local-Address", OUT_STR),
	[COL_PEER] = OUT_COL("peer", "Peer-Address", OUT_STR),
	[COL_INTF] = OUT_COL("ifindex", "Intf", OUT_U64),
	[COL_PROTOCOL] = OUT_COL("protocol", "Protocol", OUT_STR, .detail = 1),
	[COL_SHUTD] = OUT_COL("shutdown", "Shutd", OUT_U64, .detail = 1),
	[COL_TOKEN] = OUT_COL("conninfo.token", "Token", OUT_HEX32, .detail = 1),
	[COL_SNDBUF] = OUT_COL("conninfo.sndbuf_size", "Sndbuf", OUT_U64, .detail = 1),
	[COL_RCVBUF] = OUT_COL("conninfo.rmbe_size", "Rcvbuf", OUT_U64, .detail = 1),
	[COL_PEERBUF] = OUT_COL("conninfo.peer_rmbe_size", "Peerbuf", OUT_U64, .detail = 1),
	/* SMC-D: the link group (hex) of the DMB; SMC-R: device/port and link id */
	[COL_LINK] = OUT_COL("dmbinfo.linkgroup_id", "Link", OUT_STR, .detail = 1),
	[COL_RX_PROD] =
		OUT_COL("conninfo.rx_prod", "RX-Prod", OUT_STR, .detail = 2, .flags = OUT_RIGHT),
	[COL_RX_CONS] =
		OUT_COL("conninfo.rx_cons", "RX-Cons", OUT_STR, .detail = 2, .flags = OUT_RIGHT),
	[COL_TX_PROD] =
		OUT_COL("conninfo.tx_prod", "TX-Prod", OUT_STR, .detail = 2, .flags = OUT_RIGHT),
	[COL_TX_CONS] =
		OUT_COL("conninfo.tx_cons", "TX-Cons", OUT_STR, .detail = 2, .flags = OUT_RIGHT),
	[COL_MODE] = OUT_COL("mode", "Mode", OUT_STR, .color = OUT_COLOR_STATE),
	/* "NOSMCDDEV", or for a decline by the peer "PEERDECL/NOUEID" (smcss: 0x0500.../0x...) */
	[COL_FALLBACK] = OUT_COL("fallback", "Fallback", OUT_STR, .color = OUT_COLOR_WARN),
	/* -p: the first holder as "command/pid", "+N" for N more (a listener shared by
	 * workers); its unit: the user unit under a user manager, else the system unit, else
	 * its cgroup path (a cgroup outside systemd's units, a container of the cgroupfs driver) */
	[COL_PROCESS] = OUT_COL("processes", "Process", OUT_STR),
	[COL_UNIT] = OUT_COL("processes", "Unit", OUT_STR),
};
#define SOCKET_COLS_P ELEMENTSOF(cols)
#define SOCKET_COLS (SOCKET_COLS_P - 2)

/*
 * "a.b.c.d:port", "[v6]:port" or "*:port".  IPv4 and the port without stdio: a table of
 * sockets formats two of these per row (glibc's inet_ntop() for IPv4 is an snprintf()).
 */
static const char *socket_addr_text(int family, const struct in6_addr *a, uint16_t port, char *buf,
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

/* "local": {address, port} (address null without one); text: one cell. */
static void addr_emit(struct out_sink *o, const char *key, int col, int family,
		      const struct in6_addr *a, uint16_t port)
{
	char buf[INET6_ADDRSTRLEN + 8];

	out_object_begin(o, key);
	if (!out_is_text(o)) {
		const char *addr = NULL;

		if (family == AF_INET)
			addr = inet_ntop(AF_INET, &a->s6_addr32[0], buf, sizeof(buf));
		else if (family == AF_INET6)
			addr = inet_ntop(AF_INET6, a, buf, sizeof(buf));
		out_str(o, "address", OUT_NO_COL, addr);
		out_u64(o, "port", OUT_NO_COL, port);
	}
	out_object_end(o);
	if (out_text_wants(o, col))
		out_cell(o, col, socket_addr_text(family, a, port, buf, sizeof(buf)));
}

/* {code, name, text, advice} of a CLC decline code; names from the library's table. */
static void reason_emit(struct out_sink *o, const char *key, uint32_t code)
{
	out_object_begin(o, key);
	out_u64(o, "code", OUT_NO_COL, code);
	out_str(o, "name", OUT_NO_COL, smc_decline_name(code));
	out_str(o, "text", OUT_NO_COL, smc_decline_text(code));
	out_str(o, "advice", OUT_NO_COL, smc_decline_advice(code));
	out_object_end(o);
}

static const char *socket_reason_text(uint32_t code, char *buf, size_t len)
{
	const char *name = smc_decline_name(code);

	if (name)
		return name;
	snprintf(buf, len, "0x%08" PRIx32, code);
	return buf;
}

static void fallback_emit(struct out_sink *o, const struct smc_socket *s)
{
	char buf[64], a[16], b[16];

	if (!shows_fallback(s)) {
		out_null(o, "fallback", COL_FALLBACK);
		return;
	}
	out_object_begin(o, "fallback");
	reason_emit(o, "reason", s->fallback_reason);
	if (s->peer_diagnosis)
		reason_emit(o, "peer_diagnosis", s->peer_diagnosis);
	else
		out_null(o, "peer_diagnosis", OUT_NO_COL);
	out_object_end(o);
	if (!out_text_wants(o, COL_FALLBACK))
		return;
	if (s->peer_diagnosis)
		snprintf(buf, sizeof(buf), "%s/%s",
			 socket_reason_text(s->fallback_reason, a, sizeof(a)),
			 socket_reason_text(s->peer_diagnosis, b, sizeof(b)));
	else
		snprintf(buf, sizeof(buf), "%s",
			 socket_reason_text(s->fallback_reason, a, sizeof(a)));
	out_cell(o, COL_FALLBACK, buf);
}

/* {wrap, count}; text: "wrap:count". */
static void cursor_emit(struct out_sink *o, const char *key, int col, const struct smc_cursor *c)
{
	char buf[32];

	out_object_begin(o, key);
	out_u64(o, "wrap", OUT_NO_COL, c->wrap);
	out_u64(o, "count", OUT_NO_COL, c->count);
	out_object_end(o);
	if (out_text_wants(o, col)) {
		snprintf(buf, sizeof(buf), "%" PRIu16 ":%" PRIu32, c->wrap, c->count);
		out_cell(o, col, buf);
	}
}

static void conninfo_emit(struct out_sink *o, const struct smc_socket *s)
{
	if (!s->has_conninfo) {
		out_null(o, "conninfo", OUT_NO_COL);
		return;
	}
	out_object_begin(o, "conninfo");
	out_u64(o, "token", COL_TOKEN, s->conn.token);
	out_u64(o, "sndbuf_size", COL_SNDBUF, s->conn.sndbuf_size);
	out_u64(o, "rmbe_size", COL_RCVBUF, s->conn.rmbe_size);
	out_u64(o, "peer_rmbe_size", COL_PEERBUF, s->conn.peer_rmbe_size);
	cursor_emit(o, "rx_prod", COL_RX_PROD, &s->conn.rx_prod);
	cursor_emit(o, "rx_cons", COL_RX_CONS, &s->conn.rx_cons);
	cursor_emit(o, "tx_prod", COL_TX_PROD, &s->conn.tx_prod);
	cursor_emit(o, "tx_cons", COL_TX_CONS, &s->conn.tx_cons);
	cursor_emit(o, "tx_prep", OUT_NO_COL, &s->conn.tx_prep);
	cursor_emit(o, "tx_sent", OUT_NO_COL, &s->conn.tx_sent);
	cursor_emit(o, "tx_fin", OUT_NO_COL, &s->conn.tx_fin);
	out_u64(o, "rx_prod_flags", OUT_NO_COL, s->conn.rx_prod_flags);
	out_u64(o, "rx_conn_state_flags", OUT_NO_COL, s->conn.rx_conn_state_flags);
	out_u64(o, "tx_prod_flags", OUT_NO_COL, s->conn.tx_prod_flags);
	out_u64(o, "tx_conn_state_flags", OUT_NO_COL, s->conn.tx_conn_state_flags);
	out_object_end(o);
}

static void lgrinfo_emit(struct out_sink *o, const struct smc_socket *s)
{
	char buf[256];

	if (!s->has_lgrinfo) {
		out_null(o, "lgrinfo", OUT_NO_COL);
		return;
	}
	out_object_begin(o, "lgrinfo");
	out_u64(o, "link_id", OUT_NO_COL, s->lgr.link_id);
	out_str(o, "ib_dev", OUT_NO_COL, s->lgr.ibname);
	out_u64(o, "ib_port", OUT_NO_COL, s->lgr.ibport);
	out_str(o, "gid", OUT_NO_COL, s->lgr.gid);
	out_str(o, "peer_gid", OUT_NO_COL, s->lgr.peer_gid);
	out_str(o, "role", OUT_NO_COL, smc_lgr_role_name(s->lgr.role));
	out_object_end(o);
	/* the Link cell: the DMB's link group when there is one (below), else this */
	if (!s->has_dmbinfo && out_text_wants(o, COL_LINK)) {
		snprintf(buf, sizeof(buf), "%s/%u#%u", s->lgr.ibname, s->lgr.ibport, s->lgr.link_id);
		out_cell(o, COL_LINK, buf);
	}
}

static void dmbinfo_emit(struct out_sink *o, const struct smc_socket *s)
{
	char gid[33], peer[33], buf[16];

	if (!s->has_dmbinfo) {
		out_null(o, "dmbinfo", OUT_NO_COL);
		return;
	}
	out_object_begin(o, "dmbinfo");
	/* the link group's id as its 8 hex digits, as in smcctl linkgroup (smcctl(8) JSON
	 * OUTPUT); smc_diag calls it linkid */
	if (!out_is_text(o))
		out_str(o, "linkgroup_id", OUT_NO_COL,
			out_fmt_uint(s->dmb.linkid, OUT_HEX32, buf, sizeof(buf)));
	if (!out_is_text(o)) {
		if (s->dmb.has_ext) {
			smcd_gid_format(s->dmb.my_gid, s->dmb.my_gid_ext, gid);
			smcd_gid_format(s->dmb.peer_gid, s->dmb.peer_gid_ext, peer);
		} else {
			snprintf(gid, sizeof(gid), "%016" PRIx64, s->dmb.my_gid);
			snprintf(peer, sizeof(peer), "%016" PRIx64, s->dmb.peer_gid);
		}
		out_str(o, "gid", OUT_NO_COL, gid);
		out_str(o, "peer_gid", OUT_NO_COL, peer);
	}
	out_u64(o, "token", OUT_NO_COL, s->dmb.token);
	out_u64(o, "peer_token", OUT_NO_COL, s->dmb.peer_token);
	out_object_end(o);
	if (out_text_wants(o, COL_LINK)) /* the Link cell */
		out_cell(o, COL_LINK, out_fmt_uint(s->dmb.linkid, OUT_HEX32, buf, sizeof(buf)));
}

/*
 * "container": the holder's container, named from its runtime's state
 * (common/container-ident.c), or null: no container, or none the caller may read about.
 */
static void container_emit(struct out_sink *o, const struct container_ident *c)
{
	char id[CONTAINER_SHORT_ID_LEN + 1];

	if (!c->runtime) {
		out_null(o, "container", OUT_NO_COL);
		return;
	}
	snprintf(id, sizeof(id), "%.*s", CONTAINER_SHORT_ID_LEN, c->id);
	out_object_begin(o, "container");
	/* name, image and a Kubernetes pod's name are their creators' choice: out_name() */
	out_name(o, "name", OUT_NO_COL, c->name);
	out_str(o, "id", OUT_NO_COL, id);
	out_name(o, "image", OUT_NO_COL, c->image[0] ? c->image : NULL);
	out_name(o, "pod", OUT_NO_COL, c->pod[0] ? c->pod : NULL);
	out_str(o, "runtime", OUT_NO_COL, c->runtime);
	out_object_end(o);
}

/* "processes": every holder found (none: an empty list); text: the first and its unit. */
static void processes_emit(struct out_sink *o, const struct smc_socket *s,
			   const struct sock_owners *owners)
{
	const struct sock_proc *p;
	size_t n = sock_owners_of(owners, s->inode, &p);
	char unit[256], user_unit[256];
	struct container_ident ci;

	out_array_begin(o, "processes");
	for (size_t i = 0; i < n && !out_is_text(o); i++) {
		cgroup_units(p[i].cgroup, unit, sizeof(unit), user_unit, sizeof(user_unit));
		(void)container_ident_of(p[i].cgroup, &ci);
		out_object_begin(o, NULL);
		out_u64(o, "pid", OUT_NO_COL, (uint64_t)p[i].pid);
		/* names their owners chose: never raw on a terminal or in JSON */
		out_name(o, "command", OUT_NO_COL, p[i].comm[0] ? p[i].comm : NULL);
		out_u64(o, "fd", OUT_NO_COL, (uint64_t)p[i].fd);
		out_name(o, "cgroup", OUT_NO_COL, p[i].cgroup);
		out_name(o, "unit", OUT_NO_COL, unit[0] ? unit : NULL);
		out_name(o, "user_unit", OUT_NO_COL, user_unit[0] ? user_unit : NULL);
		container_emit(o, &ci);
		out_object_end(o);
	}
	out_array_end(o);
	if (n && out_text_wants(o, COL_PROCESS)) {
		char comm[NAME_OUT_MAX + 1], buf[NAME_OUT_MAX + 48]; /* the cell cuts at 255 */
		char label[CONTAINER_NAME_LEN + 16];
		const char *u = NULL;

		name_sanitize(p[0].comm, comm, sizeof(comm));
		if (n > 1)
			snprintf(buf, sizeof(buf), "%s/%" PRIu64 "+%zu", p[0].comm[0] ? comm : "?",
				 (uint64_t)p[0].pid, n - 1);
		else
			snprintf(buf, sizeof(buf), "%s/%" PRIu64, p[0].comm[0] ? comm : "?",
				 (uint64_t)p[0].pid);
		out_cell(o, COL_PROCESS, buf);
		cgroup_units(p[0].cgroup, unit, sizeof(unit), user_unit, sizeof(user_unit));
		/* a container by its runtime and name ("podman:smc-srv"), not its scope */
		if (container_ident_of(p[0].cgroup, &ci) == 1 &&
		    container_label(&ci, label, sizeof(label)) > 0)
			u = label;
		else if (user_unit[0])
			u = user_unit;
		else if (unit[0])
			u = unit;
		else
			u = p[0].cgroup;
		out_name(o, NULL, COL_UNIT, u);
	}
}

/* One socket's fields, inside its object; with owners (-p) its "processes". */
static void socket_emit(struct out_sink *o, const struct smc_socket *s,
			const struct sock_owners *owners)
{
	out_str(o, "state", COL_STATE, smc_sock_state_name(s->state));
	out_u64(o, "uid", COL_UID, s->uid);
	out_u64(o, "inode", COL_INODE, s->inode);
	out_str(o, "protocol", COL_PROTOCOL, s->diag_family != AF_SMC ? "IPPROTO_SMC" : "AF_SMC");
	addr_emit(o, "local", COL_LOCAL, s->addr_family, &s->src, s->sport);
	addr_emit(o, "peer", COL_PEER, s->addr_family, &s->dst, s->dport);
	out_u64(o, "ifindex", COL_INTF, s->ifindex);
	out_str(o, "mode", COL_MODE, mode_name(s));
	out_u64(o, "shutdown", COL_SHUTD, s->shutdown);
	out_u64(o, "cookie", OUT_NO_COL, s->cookie);
	fallback_emit(o, s);
	conninfo_emit(o, s);
	lgrinfo_emit(o, s);
	dmbinfo_emit(o, s);
	if (owners)
		processes_emit(o, s, owners);
}

json_object *socket_json(const struct smc_socket *s)
{
	struct out_sink o;

	out_sink_doc(&o);
	out_object_begin(&o, NULL);
	socket_emit(&o, s, NULL);
	out_object_end(&o);
	out_sink_done(&o);
	return out_sink_take_doc(&o);
}

static void print_reason(struct out_sink *o, uint32_t code, uint32_t *seen, size_t *n_seen)
{
	const char *advice = smc_decline_advice(code), *name = smc_decline_name(code);
	const char *text = smc_decline_text(code);

	for (size_t j = 0; j < *n_seen; j++)
		if (seen[j] == code)
			return;
	if (*n_seen == 64)
		return;
	if (*n_seen == 0)
		out_legend(o, "\nFallback reasons:\n");
	seen[(*n_seen)++] = code;
	out_legend(o, "  %-10s 0x%08" PRIx32 "  %s\n", name ? name : "-", code,
		   text ? text : "unknown reason code");
	if (advice)
		out_legend(o, "  %-10s %10s  -> %s\n", "", "", advice);
}

int socket_list_emit(struct out_sink *o, const struct smc_socket *const *rows, size_t n,
		     const struct sock_owners *owners)
{
	uint32_t seen[64];
	size_t n_seen = 0;

	out_object_begin(o, NULL);
	out_table_begin(o, "sockets", cols, owners ? SOCKET_COLS_P : SOCKET_COLS, 0);
	for (size_t r = 0; r < n; r++) {
		out_row_begin(o);
		socket_emit(o, rows[r], owners);
		out_row_end(o);
	}
	out_table_end(o);
	if (owners) {
		out_object_begin(o, "process_scan");
		out_u64(o, "unreadable", OUT_NO_COL, owners->unreadable);
		out_object_end(o);
	}
	out_object_end(o);
	/* Every distinct reason of the table, explained once: "NOUEID  the peer sent ... ". */
	for (size_t r = 0; r < n && out_is_text(o); r++) {
		if (!shows_fallback(rows[r]))
			continue;
		print_reason(o, rows[r]->fallback_reason, seen, &n_seen);
		if (rows[r]->peer_diagnosis)
			print_reason(o, rows[r]->peer_diagnosis, seen, &n_seen);
	}
	if (owners && owners->unreadable)
		out_legend(o,
			   "\n%zu process%s of other users could not be inspected: run as root to "
			   "see every socket's process.\n",
			   owners->unreadable, owners->unreadable == 1 ? "" : "es");
	return out_sink_done(o);
}

/* ---------------------------------------------------------------------------------- */
/* Handler                                                                             */

struct filter {
	bool all, listening, smcd, smcr;
};

/* smcss semantics: by default connected and closing sockets; -a adds LISTEN and INIT. */
static bool socket_wanted(const struct filter *f, const struct smc_socket *s)
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
	_cleanup_(freep) const struct smc_socket **rows = NULL;
	struct out_sink o;
	unsigned want = 0;
	struct smcnl *nl;
	size_t n = 0, k = 0;
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
		size_t m = 0;

		if (!inodes)
			return smcctl_oom(c);
		for (size_t i = 0; i < n; i++)
			if (socket_wanted(&f, &socks[i]))
				inodes[m++] = socks[i].inode;
		/* the tests' sysroot holds a procfs tree of their own, and the runtimes' state */
		snprintf(proc, sizeof(proc), "%s/proc", sysroot);
		container_ident_set_root(sysroot);
		r = sock_owners_scan(proc, inodes, m, &owners);
		if (r == -ENOMEM)
			return smcctl_oom(c);
		if (r < 0)
			return smcctl_error(c, SMCCTL_EXIT_FAILURE,
					    "cannot read %s to find the sockets' processes: %s "
					    "(is procfs mounted?)",
					    proc, strerror(-r));
	}
	rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows)
		return smcctl_oom(c);
	for (size_t i = 0; i < n; i++)
		if (socket_wanted(&f, &socks[i]))
			rows[k++] = &socks[i];
	/* No document: streamed as JSON or laid out as text (json-c is not even loaded). */
	if (c->json)
		out_sink_json(&o, c->out, c->pretty);
	else
		out_sink_text(&o, c->out, c->detail);
	if (socket_list_emit(&o, rows, k, processes ? &owners : NULL) == -ENOMEM)
		return smcctl_oom(c);
	return smcctl_flush(c);
}
