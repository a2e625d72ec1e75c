// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl check: a live test of one SMC connection, as smc-tools' smc_chk does, answered
 * from the kernel's own view of the connection rather than guessed from outside.
 *
 *   smcctl check                 a server and a client inside smcctl, over loopback
 *   smcctl check HOST PORT       a client of `smcctl check --listen PORT` on HOST
 *   smcctl check --listen PORT   a server answering such checks, one report per check
 *
 * The sockets are IPPROTO_SMC on AF_INET/AF_INET6 (6.11+), AF_SMC where the kernel does not
 * have it.  Each check moves CHECK_BYTES both ways (the client sends, the server echoes,
 * the client verifies), then, while both ends are still open, reads the sockets from
 * smc_diag by inode: the mode, the fallback reasons of both ends (loopback) or of ours with
 * the peer's diagnosis (remote), the link group's device, SMC version and negotiated EID.
 * The one thing to change is the reason's advice from netlink/smcnl-names.c, the same text
 * smcctl socket and smcctl stats give.
 *
 * Exit status: 0 when the connection used SMC, 1 when it fell back to TCP (or failed);
 * --listen exits 0 when interrupted or after --count checks.  A client's every wait
 * (connect, read, write) ends after --timeout seconds with a message saying which one; the
 * server gives each check --timeout seconds from its accept to its end, several at once.
 * The server answers on the address --address names, and only there: exposing it to every
 * network of the host is a choice its user makes (0.0.0.0), not a default.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/verbs.h"
#include "common/clock.h"
#include "common/output.h"
#include "common/smc-socket.h"
#include "config/units.h"

#define CHECK_BYTES 4096

struct check {
	struct smcctl *c;
	int timeout_ms;
	bool ipproto;	    /* IPPROTO_SMC, else AF_SMC */
	const char *waited; /* what the last timed-out wait waited for */
};

/* ---- sockets ------------------------------------------------------------------------ */

/*
 * poll one fd for events within the check's timeout: 0, -ETIMEDOUT or -errno.  what: what
 * is waited for, for the timeout's message.
 */
static int wait_fd(struct check *k, int fd, short events, const char *what)
{
	struct pollfd p = { .fd = fd, .events = events };
	int r;

	do
		r = poll(&p, 1, k->timeout_ms);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (r == 0) {
		k->waited = what;
		return -ETIMEDOUT;
	}
	return 0;
}

/*
 * An SMC stream socket of family (AF_INET or AF_INET6), non-blocking: IPPROTO_SMC where the
 * kernel has it, else AF_SMC (whose sockets take the same sockaddr_in/in6).
 */
static int check_smc_socket(struct check *k, int family)
{
	int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_SMC);

	if (fd >= 0) {
		k->ipproto = true;
		return fd;
	}
	if (errno != EPROTONOSUPPORT && errno != EINVAL && errno != ESOCKTNOSUPPORT)
		return -errno;
	fd = socket(AF_SMC, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    family == AF_INET6 ? SMCPROTO_SMC6 : SMCPROTO_SMC);
	if (fd < 0)
		return -errno;
	k->ipproto = false;
	return fd;
}

static int socket_failure(struct check *k, int err)
{
	if (err == -EAFNOSUPPORT || err == -EPROTONOSUPPORT)
		return smcctl_error(k->c, SMCCTL_EXIT_UNAVAILABLE,
				    "cannot create an SMC socket: SMC is not in this kernel (modprobe "
				    "smc, or see smcctl info)");
	return smcctl_error(k->c, SMCCTL_EXIT_FAILURE, "cannot create an SMC socket: %s",
			    strerror(-err));
}

/* Write all of buf, then read exactly len bytes back into rbuf (either may be NULL). */
static int send_all(struct check *k, int fd, const unsigned char *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = send(fd, buf + done, len - done, MSG_NOSIGNAL);

		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			int r = wait_fd(k, fd, POLLOUT, "room to send (the peer reads nothing)");

			if (r < 0)
				return r;
			continue;
		}
		if (n < 0)
			return -errno;
		done += (size_t)n;
	}
	return 0;
}

static int recv_all(struct check *k, int fd, unsigned char *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = recv(fd, buf + done, len - done, 0);

		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			int r = wait_fd(k, fd, POLLIN, "data from the peer");

			if (r < 0)
				return r;
			continue;
		}
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ECONNRESET;
		done += (size_t)n;
	}
	return 0;
}

/* Connect the non-blocking fd and wait for the handshake (SMC's CLC included). */
static int connect_fd(struct check *k, int fd, const struct sockaddr *sa, socklen_t len)
{
	int err = 0;
	socklen_t elen = sizeof(err);

	if (connect(fd, sa, len) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return -errno;
	err = wait_fd(k, fd, POLLOUT, "the handshake to finish");
	if (err < 0)
		return err;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0)
		return -errno;
	return -err;
}

static uint32_t fd_inode(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 ? (uint32_t)st.st_ino : 0;
}

static void pattern(unsigned char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (unsigned char)(i * 7 + 3);
}

static void addr_json(json_object *o, const char *key, const struct sockaddr_storage *ss)
{
	char host[INET6_ADDRSTRLEN] = "";
	json_object *a = json_object_new_object();
	uint16_t port = 0;

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		port = ntohs(in->sin_port);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		port = ntohs(in6->sin6_port);
	}
	json_add_str(a, "address", host[0] ? host : NULL);
	json_add_u64(a, "port", port);
	json_add(o, key, a);
}

/* ---- the kernel's view -------------------------------------------------------------- */

static const struct smc_socket *find_inode(const struct smc_socket *s, size_t n, uint32_t ino)
{
	for (size_t i = 0; ino && i < n; i++)
		if (s[i].inode == ino)
			return &s[i];
	return NULL;
}

static json_object *check_reason_json(uint32_t code)
{
	json_object *o = json_object_new_object();
	char hex[16];

	snprintf(hex, sizeof(hex), "0x%08" PRIx32, code);
	json_add_str(o, "code", hex);
	json_add_str(o, "name", smc_decline_name(code));
	json_add_str(o, "text", smc_decline_text(code));
	return o;
}

#define DECL_PEER 0x05000000u /* SMC_CLC_DECL_PEERDECL: the peer declined */

/*
 * The mode, device, version and EID of the connection seen from socket s, and the
 * reasons: what the report says, into doc.  The advice: the reason that names the cause
 * (the peer's diagnosis of a decline, else our own).  0, or the link group dump's error
 * (never read as "no device": the caller fails).
 */
static int describe(struct smcnl *nl, json_object *doc, const struct smc_socket *s,
		    const struct smc_socket *srv)
{
	const char *mode = s->mode == 2 ? "SMCD" : s->mode == 0 ? "SMCR" : "TCP";
	uint32_t cause = 0;
	int r = 0;

	json_add_str(doc, "mode", mode);
	json_add_bool(doc, "smc", s->mode != 1);
	if (s->mode == 2 && s->has_dmbinfo) {
		_cleanup_(freep) struct smcd_linkgroup *l = NULL;
		size_t n = 0;

		r = smcd_linkgroup_list(nl, &l, &n);
		if (r == 0)
			for (size_t i = 0; i < n; i++)
				if (l[i].id == s->dmb.linkid) {
					json_add_str(doc, "device",
						     l[i].device[0] ? l[i].device : NULL);
					json_add_u64(doc, "linkgroup", l[i].id);
					if (l[i].v2.present) {
						json_add_u64(doc, "version", l[i].v2.ver);
						json_add_str(doc, "eid", l[i].v2.neg_eid);
					} else {
						json_add_u64(doc, "version", 1);
					}
					break;
				}
	} else if (s->mode == 0 && s->has_lgrinfo) {
		struct smcr_linkgroup *l = NULL;
		size_t n = 0;

		json_add_str(doc, "device", s->lgr.ibname);
		json_add_u64(doc, "port", s->lgr.ibport);
		r = smcr_linkgroup_list(nl, true, &l, &n);
		if (r == 0) {
			for (size_t i = 0; i < n; i++)
				for (size_t j = 0; j < l[i].n_links; j++)
					if (streq(l[i].links[j].gid, s->lgr.gid) &&
					    streq(l[i].links[j].peer_gid, s->lgr.peer_gid)) {
						json_add_u64(doc, "linkgroup", l[i].id);
						json_add_u64(doc, "version",
							     l[i].v2.present ? l[i].v2.ver : 1);
						if (l[i].v2.present)
							json_add_str(doc, "eid", l[i].v2.neg_eid);
						goto found;
					}
		found:
			smcr_linkgroup_list_free(l, n);
		}
	}
	if (s->mode == 1) {
		json_object *fb = json_object_new_object();

		json_add(fb, "client", check_reason_json(s->fallback_reason));
		if (s->fallback_reason == DECL_PEER && s->peer_diagnosis) {
			json_add(fb, "peer_diagnosis", check_reason_json(s->peer_diagnosis));
			cause = s->peer_diagnosis;
		} else {
			cause = s->fallback_reason;
		}
		if (srv && srv->mode == 1) {
			json_add(fb, "server", check_reason_json(srv->fallback_reason));
			if (srv->fallback_reason != DECL_PEER)
				cause = srv->fallback_reason;
		}
		json_add(doc, "fallback", fb);
		json_add_str(doc, "cause", smc_decline_name(cause));
		json_add_str(doc, "advice", smc_decline_advice(cause));
	}
	return r;
}

/* ---- text --------------------------------------------------------------------------- */

static void check_reason_text(FILE *f, json_object *r)
{
	fprintf(f, "%s (%s)", out_get_str(r, "name", "?"), out_get_str(r, "text", "?"));
}

static void check_text(struct smcctl *c, json_object *doc)
{
	json_object *fb = out_get(doc, "fallback"), *l = out_get(doc, "local"),
		    *p = out_get(doc, "peer");
	const char *mode = out_get_str(doc, "mode", "TCP");

	fprintf(c->out, "SMC check (%s): %s port %" PRIu64 " -> %s port %" PRIu64 " over %s",
		out_get_str(doc, "check", "?"), out_get_str(l, "address", "*"),
		out_get_u64(l, "port", 0), out_get_str(p, "address", "*"),
		out_get_u64(p, "port", 0), out_get_str(doc, "protocol", "?"));
	if (out_get_str(doc, "netns", NULL))
		fprintf(c->out, " in network namespace %s", out_get_str(doc, "netns", NULL));
	fputc('\n', c->out);
	if (!streq(mode, "TCP")) {
		fprintf(c->out, "  Result:  %s through %s", streq(mode, "SMCD") ? "SMC-D" : "SMC-R",
			out_get_str(doc, "device", "an unknown device"));
		if (out_get(doc, "port"))
			fprintf(c->out, " port %" PRIu64, out_get_u64(doc, "port", 0));
		fputc('\n', c->out);
		if (out_get(doc, "version"))
			fprintf(c->out, "  Version: SMC v%" PRIu64 "%s%s\n",
				out_get_u64(doc, "version", 0),
				out_get_str(doc, "eid", NULL) ? ", EID " : "",
				out_get_str(doc, "eid", ""));
	} else {
		fputs("  Result:  TCP fallback\n", c->out);
		if (out_get(fb, "client")) {
			fputs("  Client:  ", c->out);
			check_reason_text(c->out, out_get(fb, "client"));
			if (out_get(fb, "peer_diagnosis")) {
				fputs(", the peer's diagnosis: ", c->out);
				check_reason_text(c->out, out_get(fb, "peer_diagnosis"));
			}
			fputc('\n', c->out);
		}
		if (out_get(fb, "server")) {
			fputs("  Server:  ", c->out);
			check_reason_text(c->out, out_get(fb, "server"));
			fputc('\n', c->out);
		}
		if (out_get_str(doc, "advice", NULL))
			fprintf(c->out, "  Fix:     %s\n", out_get_str(doc, "advice", NULL));
	}
	fprintf(c->out, "  Data:    %" PRIu64 " bytes each way, verified\n",
		out_get_u64(doc, "bytes", 0));
}

/* ---- the checks --------------------------------------------------------------------- */

static json_object *check_report(const struct check *k, const char *kind, int fd)
{
	json_object *doc = json_object_new_object();
	struct sockaddr_storage la = {}, pa = {};
	socklen_t ll = sizeof(la), pl = sizeof(pa);

	getsockname(fd, (struct sockaddr *)&la, &ll);
	getpeername(fd, (struct sockaddr *)&pa, &pl);
	json_add_str(doc, "check", kind);
	json_add_str(doc, "protocol", k->ipproto ? "IPPROTO_SMC" : "AF_SMC");
	/* -n: where the check ran (its loopback device, its sysctls and its sockets). */
	if (k->c->netns)
		json_add_str(doc, "netns", k->c->netns);
	addr_json(doc, "local", &la);
	addr_json(doc, "peer", &pa);
	json_add_u64(doc, "bytes", CHECK_BYTES);
	return doc;
}

/* Our socket (and the server's, on loopback) from smc_diag into doc; status or -1. */
static int kernel_view(const struct check *k, json_object *doc, int fd, int srv_fd)
{
	_cleanup_(freep) struct smc_socket *s = NULL;
	const struct smc_socket *me, *srv = NULL;
	struct smcnl *nl;
	size_t n = 0;
	int r;

	if (smcctl_nl(k->c, &nl) < 0)
		return SMCCTL_EXIT_FAILURE;
	r = smc_socket_list(
		nl, SMC_DIAG_WANT_CONNINFO | SMC_DIAG_WANT_LGRINFO | SMC_DIAG_WANT_DMBINFO, &s, &n);
	if (r < 0)
		return smcctl_fail(k->c, SMC_OP_SOCKET_DIAG, r,
				   "cannot read the check's connection from the kernel");
	me = find_inode(s, n, fd_inode(fd));
	if (srv_fd >= 0)
		srv = find_inode(s, n, fd_inode(srv_fd));
	if (!me)
		return smcctl_error(k->c, SMCCTL_EXIT_FAILURE,
				    "the kernel does not list the check's socket (inode %" PRIu32
				    "): is smc_diag loaded? (modprobe smc_diag)",
				    fd_inode(fd));
	r = describe(nl, doc, me, srv);
	if (r < 0)
		return smcctl_fail(k->c, SMC_OP_QUERY, r,
				   "cannot read the link group of the check's connection");
	if (srv)
		json_add(doc, "server_socket", socket_json(srv));
	json_add(doc, "socket", socket_json(me));
	return -1;
}

static int io_failure(struct check *k, const char *what, int err)
{
	if (err == -ETIMEDOUT)
		return smcctl_error(k->c, SMCCTL_EXIT_FAILURE,
				    "check failed: %s: timed out after %d s waiting for %s (raise "
				    "--timeout, or check the peer)",
				    what, k->timeout_ms / 1000, k->waited ? k->waited : "an answer");
	return smcctl_error(k->c, SMCCTL_EXIT_FAILURE, "check failed: %s: %s", what, strerror(-err));
}

static int finish(struct check *k, json_object *doc)
{
	bool smc = out_get(doc, "smc") && json_object_get_boolean(out_get(doc, "smc"));
	int s = smcctl_emit(k->c, doc, check_text);

	if (s != SMCCTL_EXIT_OK)
		return s;
	return smc ? SMCCTL_EXIT_OK : SMCCTL_EXIT_FAILURE;
}

static int check_loopback(struct check *k)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	_cleanup_(closep) int lfd = -1, cfd = -1, afd = -1;
	_cleanup_(json_object_putp) json_object *doc = NULL;
	unsigned char out[CHECK_BYTES], in[CHECK_BYTES];
	socklen_t len = sizeof(sa);
	int r;

	lfd = check_smc_socket(k, AF_INET);
	if (lfd < 0)
		return socket_failure(k, lfd);
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 1) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &len) < 0)
		return smcctl_error(k->c, SMCCTL_EXIT_FAILURE,
				    "cannot listen on 127.0.0.1 for the check: %s (is lo up?)",
				    strerror(errno));
	cfd = check_smc_socket(k, AF_INET);
	if (cfd < 0)
		return socket_failure(k, cfd);
	r = connect_fd(k, cfd, (struct sockaddr *)&sa, sizeof(sa));
	if (r < 0)
		return io_failure(k, "connecting to 127.0.0.1", r);
	r = wait_fd(k, lfd, POLLIN, "the connection to arrive");
	if (r == 0) {
		afd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (afd < 0)
			r = -errno;
	}
	if (r < 0)
		return io_failure(k, "accepting the connection", r);
	pattern(out, sizeof(out));
	if ((r = send_all(k, cfd, out, sizeof(out))) < 0 ||
	    (r = recv_all(k, afd, in, sizeof(in))) < 0 ||
	    (r = send_all(k, afd, in, sizeof(in))) < 0 || (r = recv_all(k, cfd, in, sizeof(in))) < 0)
		return io_failure(k, "moving the data", r);
	if (memcmp(in, out, sizeof(in)) != 0)
		return smcctl_error(k->c, SMCCTL_EXIT_FAILURE,
				    "check failed: the data came back changed");
	doc = check_report(k, "loopback", cfd);
	if (!doc)
		return smcctl_oom(k->c);
	r = kernel_view(k, doc, cfd, afd);
	if (r >= 0)
		return r;
	return finish(k, doc);
}

static int check_client(struct check *k, const char *host, uint16_t port_n)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_ADDRCONFIG | AI_NUMERICSERV },
			*ai = NULL;
	_cleanup_(json_object_putp) json_object *doc = NULL;
	unsigned char out[CHECK_BYTES], in[CHECK_BYTES];
	_cleanup_(closep) int fd = -1;
	char port[8];
	int r;

	snprintf(port, sizeof(port), "%u", port_n);
	r = getaddrinfo(host, port, &hints, &ai);
	if (r != 0)
		return smcctl_usage(k->c, "cannot resolve '%s': %s", host, gai_strerror(r));
	/* every address in turn, as a TCP client does (the name may resolve to IPv6 first,
	 * while --listen answers on IPv4) */
	r = -EADDRNOTAVAIL;
	for (struct addrinfo *p = ai; p; p = p->ai_next) {
		fd = safe_close(fd);
		fd = check_smc_socket(k, p->ai_family);
		if (fd < 0) {
			r = fd;
			if (r == -EAFNOSUPPORT || r == -EPROTONOSUPPORT)
				continue;
			break;
		}
		r = connect_fd(k, fd, p->ai_addr, p->ai_addrlen);
		if (r == 0)
			break;
	}
	freeaddrinfo(ai);
	if (fd < 0)
		return socket_failure(k, fd);
	if (r < 0)
		return smcctl_error(k->c, SMCCTL_EXIT_FAILURE, "cannot connect to %s port %s: %s%s",
				    host, port, strerror(-r),
				    r == -ECONNREFUSED ? " (is smcctl check --listen running there?)"
						       : "");
	pattern(out, sizeof(out));
	if ((r = send_all(k, fd, out, sizeof(out))) < 0 || (r = recv_all(k, fd, in, sizeof(in))) < 0)
		return io_failure(k, "moving the data (is the server smcctl check --listen?)", r);
	if (memcmp(in, out, sizeof(in)) != 0)
		return smcctl_error(k->c, SMCCTL_EXIT_FAILURE,
				    "check failed: the data came back changed (is the server "
				    "smcctl check --listen?)");
	doc = check_report(k, "client", fd);
	if (!doc)
		return smcctl_oom(k->c);
	r = kernel_view(k, doc, fd, -1);
	if (r >= 0)
		return r;
	return finish(k, doc);
}

/*
 * --listen serves up to CHECK_CLIENTS_MAX checks at once, each within one deadline from its
 * accept to its end (--timeout): a client that trickles its bytes holds one slot for
 * --timeout seconds at most, and never the others.  Beyond the bound, clients wait in the
 * listen backlog until a slot frees.
 */
#define CHECK_CLIENTS_MAX 8

struct served {
	int fd;		      /* -1: a free slot */
	uint64_t deadline_ms; /* CLOCK_MONOTONIC: its accept + --timeout */
	size_t got, sent;     /* bytes received, bytes echoed */
	json_object *doc;     /* echoed: the report, while waiting for the client to close */
	char peer[INET_ADDRSTRLEN + 16];
	unsigned char buf[CHECK_BYTES];
};

static void served_close(struct served *s)
{
	s->fd = safe_close(s->fd);
	json_object_put(s->doc);
	s->doc = NULL;
}

/* The check ended early: say why, on stderr (the server goes on). */
static void served_failed(struct check *k, struct served *s, const char *why)
{
	fprintf(k->c->err, "smcctl: the check from %s was not completed: %s\n", s->peer, why);
	fflush(k->c->err);
	served_close(s);
}

/* Echoed and the client closed (or its time is up): the report.  0, or an exit status. */
static int served_report(struct check *k, struct served *s)
{
	int r = kernel_view(k, s->doc, s->fd, -1);

	if (r < 0) /* the view is in the report */
		r = smcctl_emit(k->c, s->doc, check_text);
	served_close(s);
	return r;
}

/* Its deadline passed: a check not echoed yet is cut, an echoed one is reported. */
static int served_expired(struct check *k, struct served *s)
{
	char why[160];

	if (s->doc)
		return served_report(k, s);
	if (s->got < CHECK_BYTES)
		snprintf(why, sizeof(why), "cut after %d s (--timeout): it sent %zu of %d bytes",
			 k->timeout_ms / 1000, s->got, CHECK_BYTES);
	else
		snprintf(why, sizeof(why),
			 "cut after %d s (--timeout): it read %zu of the %d bytes echoed",
			 k->timeout_ms / 1000, s->sent, CHECK_BYTES);
	served_failed(k, s, why);
	return 0;
}

/*
 * Move what the socket lets move now, without waiting: read the check's bytes, echo them,
 * then wait for the client to close.  0, or an exit status (the report could not be made).
 */
static int served_step(struct check *k, struct served *s)
{
	ssize_t n;

	while (!s->doc && s->got < CHECK_BYTES) {
		n = recv(s->fd, s->buf + s->got, CHECK_BYTES - s->got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0) {
			served_failed(k, s,
				      n == 0 ? "the client closed before sending all"
					     : strerror(errno));
			return 0;
		}
		s->got += (size_t)n;
	}
	while (!s->doc && s->sent < CHECK_BYTES) {
		n = send(s->fd, s->buf + s->sent, CHECK_BYTES - s->sent, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0) {
			served_failed(k, s, strerror(errno));
			return 0;
		}
		s->sent += (size_t)n;
	}
	if (!s->doc) {
		/* the report's addresses now; the kernel's view once the client closed, final */
		s->doc = check_report(k, "server", s->fd);
		if (!s->doc)
			return smcctl_oom(k->c);
		return 0;
	}
	return served_report(k, s);
}

static void served_start(struct check *k, struct served *s, int fd)
{
	struct sockaddr_in pa = {};
	socklen_t pl = sizeof(pa);
	char host[INET_ADDRSTRLEN] = "?";

	*s = (struct served){ .fd = fd,
			      .deadline_ms = now_msec(CLOCK_MONOTONIC) + (uint64_t)k->timeout_ms };
	if (getpeername(fd, (struct sockaddr *)&pa, &pl) == 0)
		inet_ntop(AF_INET, &pa.sin_addr, host, sizeof(host));
	snprintf(s->peer, sizeof(s->peer), "%s port %u", host, ntohs(pa.sin_port));
}

static void served_free(struct served **v)
{
	if (!*v)
		return;
	for (size_t i = 0; i < CHECK_CLIENTS_MAX; i++)
		served_close(&(*v)[i]);
	free(*v);
}

/* Accept one check into the free slot s: 0 (accepted or gone), or an exit status. */
static int served_accept(struct check *k, int lfd, struct served *s)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOMEM || errno == ENOBUFS))
		return smcctl_error(k->c, SMCCTL_EXIT_FAILURE, "cannot accept a check: %s",
				    strerror(errno));
	if (fd >= 0)
		served_start(k, s, fd);
	return 0; /* fd < 0: the client gave up (ECONNABORTED), or a signal */
}

static int check_listen(struct check *k, const struct in_addr *addr, uint16_t port, uint64_t count)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr = *addr };
	_cleanup_(served_free) struct served *v = calloc(CHECK_CLIENTS_MAX, sizeof(*v));
	char host[INET_ADDRSTRLEN];
	_cleanup_(closep) int lfd = -1;
	uint64_t done = 0;
	int one = 1, r;

	if (!v)
		return smcctl_oom(k->c);
	for (size_t i = 0; i < CHECK_CLIENTS_MAX; i++)
		v[i].fd = -1;
	inet_ntop(AF_INET, addr, host, sizeof(host));
	lfd = check_smc_socket(k, AF_INET);
	if (lfd < 0)
		return socket_failure(k, lfd);
	sa.sin_port = htons(port);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 16) < 0)
		return smcctl_error(k->c,
				    errno == EACCES ? SMCCTL_EXIT_PERMISSION : SMCCTL_EXIT_FAILURE,
				    "cannot listen on %s port %u: %s%s", host, port, strerror(errno),
				    errno == EADDRNOTAVAIL ? " (not an address of this host)" : "");
	smcctl_interrupt_catch(NULL);
	fprintf(k->c->err, "smcctl: answering SMC checks on %s port %u over %s%s\n", host, port,
		k->ipproto ? "IPPROTO_SMC" : "AF_SMC", count ? "" : " (Ctrl-C ends)");
	fflush(k->c->err);
	while (!smcctl_interrupted && (!count || done < count)) {
		struct pollfd p[1 + CHECK_CLIENTS_MAX];
		struct served *free_slot = NULL;
		uint64_t now = now_msec(CLOCK_MONOTONIC), next = UINT64_MAX;
		size_t active = 0;

		for (size_t i = 0; i < CHECK_CLIENTS_MAX; i++) {
			struct served *s = &v[i];

			if (s->fd >= 0 && now >= s->deadline_ms) {
				if ((r = served_expired(k, s)))
					return r;
				done++;
			}
			/* reading its bytes, or (echoed) waiting for it to close; else echoing */
			p[1 + i].fd = s->fd;
			p[1 + i].events = s->doc || s->got < CHECK_BYTES ? POLLIN : POLLOUT;
			p[1 + i].revents = 0;
			if (s->fd < 0) {
				free_slot = free_slot ?: s;
				continue;
			}
			active++;
			next = s->deadline_ms < next ? s->deadline_ms : next;
		}
		if (count && done >= count)
			break;
		/* a check beyond the bound (or beyond --count) waits in the backlog */
		p[0].fd = free_slot && (!count || done + active < count) ? lfd : -1;
		p[0].events = POLLIN;
		p[0].revents = 0;
		r = poll(p, 1 + CHECK_CLIENTS_MAX, next == UINT64_MAX ? -1 : (int)(next - now));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return smcctl_error(k->c, SMCCTL_EXIT_FAILURE, "cannot wait for checks: %s",
					    strerror(errno));
		for (size_t i = 0; i < CHECK_CLIENTS_MAX; i++) {
			if (v[i].fd < 0 || !p[1 + i].revents)
				continue;
			if ((r = served_step(k, &v[i])))
				return r;
			if (v[i].fd < 0)
				done++;
		}
		if (p[0].revents && (r = served_accept(k, lfd, free_slot)))
			return r;
	}
	return SMCCTL_EXIT_OK;
}

verb_fn check_run;
int check_run(struct smcctl *c, const struct verb_args *a)
{
	/* The numbers' ranges and defaults are the table's (cli/table.c): the parser checked. */
	struct check k = { .c = c, .timeout_ms = (int)a->num[CHECK_OPT_TIMEOUT] * 1000 };
	const char *listen_s = a->opt[CHECK_OPT_LISTEN], *count_s = a->opt[CHECK_OPT_COUNT];
	const char *address_s = a->opt[CHECK_OPT_ADDRESS];
	int64_t count = count_s ? a->num[CHECK_OPT_COUNT] : 0;
	uint16_t port = listen_s ? (uint16_t)a->num[CHECK_OPT_LISTEN] : 0;
	struct in_addr addr;

	if (count_s && !listen_s)
		return smcctl_usage(c, "--count belongs to --listen");
	if (listen_s && a->n_pos)
		return smcctl_usage(c, "--listen takes no HOST PORT: it answers checks");
	if (a->n_pos == 1)
		return smcctl_usage(c, "'check' needs HOST PORT, or nothing for a loopback check");
	if (address_s && !listen_s)
		return smcctl_usage(c, "--address belongs to --listen");
	if (listen_s && !address_s)
		return smcctl_usage(c, "--listen needs --address ADDR: the IPv4 address to answer "
				       "on (0.0.0.0: every address of this host)");
	if (address_s && inet_pton(AF_INET, address_s, &addr) != 1)
		return smcctl_usage(c,
				    "invalid --address '%s': an IPv4 address of this host, or "
				    "0.0.0.0 for all (SMC-Rv2 runs over IPv4 only)",
				    address_s);
	if (a->n_pos == 2 && parse_port(a->pos[1], &port) < 0)
		return smcctl_usage(c, "invalid port '%s': 1 to 65535 (a number, not a service name)",
				    a->pos[1]);
	if (listen_s)
		return check_listen(&k, &addr, port, (uint64_t)count);
	if (a->n_pos == 2)
		return check_client(&k, a->pos[0], port);
	return check_loopback(&k);
}
