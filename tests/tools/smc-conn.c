// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smc-conn: open SMC connections over loopback, move data, verify it, hold the
 * connections open, and report per connection whether SMC-D, SMC-R or TCP (fallback) was
 * used. A test tool for the VM tests (tests/vm/guest/), not an installed program.
 *
 *   smc-conn socket  [--proto P] [--addr A]           open one socket, report, close
 *   smc-conn serve   --port N [--proto P] [--addr A] [--conns N]
 *   smc-conn connect --port N [--proto P] [--addr A] [--conns N] [--bytes B] [--hold S]
 *   smc-conn pair    [--port N] [--proto P] [--addr A] [--conns N] [--bytes B] [--hold S]
 *   smc-conn trickle --port N [--proto P] [--addr A]
 *
 * --hold S      keep the connections open S seconds after their transfer, or until a
 *               SIGUSR1: a test that needs them open while it looks releases them when it
 *               is done, instead of guessing how long its looking takes on a loaded machine.
 *
 * --read-full   a slow reader, for the RX side of the kernel's buffer counters: before each
 *               read wait until the receive buffer (the RMB, its size from smc_diag) is full
 *               (or holds the rest of the transfer, or up to the end of its ring), then
 *               read all of it in one call; the kernel counts such a read as "RX buffer
 *               full" (smc_rx_recvmsg: bytes_to_rcv >= the RMB's length).  The summary
 *               says how many reads found it full.
 *
 * trickle       a slow client, for servers that must bound it (smcctl check --listen): connect,
 *               say {"trickle":"connected"}, then send one byte a second until the server
 *               closes or resets the connection, and say {"trickle":"cut","sent":N}.  No
 *               protocol: the bytes are what a check's client sends first, too slowly.
 *
 * --proto smc   socket(AF_INET[6], SOCK_STREAM, IPPROTO_SMC)  (default; kernel 6.11+)
 *         afsmc socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC[6])
 *         tcp   plain TCP, for comparison
 *
 * Wire protocol per connection: the client sends a 16-byte header (magic, connection
 * index, byte count), then that many bytes of a pattern derived from the index; the server
 * checks the pattern, answers with the same amount of its own pattern, and the client
 * checks that. Both sides compare every received byte with the expected pattern, so a
 * corrupted, reordered or short transfer is reported, not just counted.
 *
 * Output: one JSON object per line: for `connect`/`pair` one per connection, then a
 * summary line; for `serve` one per accepted connection; for `socket` one line. Exit
 * status 0 when every connection was verified, 1 when something failed, 2 on usage errors.
 */
#ifndef _GNU_SOURCE /* config.h defines it in the automake build */
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h> /* SIOCINQ */
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/smc-socket.h"

#define HDR_MAGIC 0x534d43434f4e4e31ULL /* "SMCCONN1" */
#define CHUNK (64 * 1024)

enum proto { PROTO_SMC, PROTO_AFSMC, PROTO_TCP };
static const char *const proto_names[] = {
	[PROTO_SMC] = "smc",
	[PROTO_AFSMC] = "afsmc",
	[PROTO_TCP] = "tcp",
};

struct options {
	enum proto proto;
	const char *addr;
	unsigned int port;
	unsigned int conns;
	uint64_t bytes;
	unsigned int hold;
	bool read_full;
};

/* --read-full: set once in main; the reads, and those that found the buffer full. */
static bool read_full;
static unsigned long reads_total, reads_full;

struct wire_hdr {
	uint64_t magic;
	uint32_t index;
	uint32_t pad;
	uint64_t bytes;
} __attribute__((packed));

/* ---- small helpers ------------------------------------------------------------------ */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Up to secs seconds, or until a SIGUSR1 (main() blocks it from the start, so one sent
 * before this waits here, pending, instead of being lost or ending the process). */
static void hold(unsigned int secs)
{
	double end = now_ms() + secs * 1e3, left;
	sigset_t ss;

	sigemptyset(&ss);
	sigaddset(&ss, SIGUSR1);
	while ((left = end - now_ms()) > 0) {
		uint64_t ns = (uint64_t)(left * 1e6);
		struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000),
				       .tv_nsec = (long)(ns % 1000000000) };

		if (sigtimedwait(&ss, NULL, &ts) == SIGUSR1 || errno != EINTR)
			return;
	}
}

static int parse_proto(const char *s, enum proto *ret)
{
	for (size_t i = 0; i < sizeof(proto_names) / sizeof(proto_names[0]); i++)
		if (strcmp(s, proto_names[i]) == 0) {
			*ret = (enum proto)i;
			return 0;
		}
	return -EINVAL;
}

static int parse_u64(const char *s, uint64_t *ret)
{
	char *end;
	unsigned long long v;
	uint64_t mult = 1;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	if (*end == 'K' || *end == 'k')
		mult = 1024, end++;
	else if (*end == 'M')
		mult = 1024 * 1024, end++;
	else if (*end == 'G')
		mult = 1024ULL * 1024 * 1024, end++;
	if (*end)
		return -EINVAL;
	*ret = v * mult;
	return 0;
}

/* Deterministic pattern: a xorshift stream seeded by (direction, index). */
struct pattern {
	uint64_t state;
	uint8_t word[8]; /* the last word made, of which the last `left` bytes are still due */
	unsigned int left;
};

static void pattern_init(struct pattern *p, uint32_t index, bool from_server)
{
	*p = (struct pattern){ .state = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)index << 1) ^
					(from_server ? 1 : 0) };
	if (!p->state)
		p->state = 1;
}

static void pattern_next(struct pattern *p)
{
	p->state ^= p->state << 13;
	p->state ^= p->state >> 7;
	p->state ^= p->state << 17;
}

/* Word at a time: under TCG every instruction counts.  Any lengths: a piece that ends inside
 * a word continues from there in the next call (--read-full reads such pieces). */
static void pattern_fill(struct pattern *p, uint8_t *buf, size_t len)
{
	size_t i = 0;

	while (i < len && p->left)
		buf[i++] = p->word[8 - p->left--];
	for (; i + 8 <= len; i += 8) {
		pattern_next(p);
		memcpy(buf + i, &p->state, 8);
	}
	if (i < len) {
		pattern_next(p);
		memcpy(p->word, &p->state, 8);
		p->left = 8;
		while (i < len)
			buf[i++] = p->word[8 - p->left--];
	}
}

static int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = recv(fd, p, len, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Send `bytes` of the pattern; return 0 or -errno. */
static int send_pattern(int fd, uint32_t index, bool from_server, uint64_t bytes)
{
	static __thread uint8_t buf[CHUNK];
	struct pattern p;
	int r;

	pattern_init(&p, index, from_server);
	while (bytes) {
		size_t n = bytes < CHUNK ? (size_t)bytes : CHUNK;

		pattern_fill(&p, buf, n);
		r = write_all(fd, buf, n);
		if (r < 0)
			return r;
		bytes -= n;
	}
	return 0;
}

static uint32_t rmb_size(int fd);

/*
 * --read-full: wait until the socket's receive buffer holds want bytes (SIOCINQ: the
 * kernel's bytes_to_rcv), polling; true when it did.  The sender fills it unless it stops
 * for good: after 5 s without growth the read goes ahead (counted as not full).
 */
static bool wait_readable(int fd, size_t want)
{
	struct timespec pause = { .tv_nsec = 200 * 1000 };
	int have = -1, last = -1;
	double since = now_ms();

	for (;;) {
		if (ioctl(fd, SIOCINQ, &have) < 0)
			return false;
		if (have >= 0 && (size_t)have >= want)
			return true;
		if (have != last) {
			last = have;
			since = now_ms();
		} else if (now_ms() - since > 5000) {
			fprintf(stderr,
				"smc-conn: --read-full: the receive buffer holds %d of %zu bytes "
				"and has not grown for 5 s: reading anyway\n",
				have, want);
			return false;
		}
		nanosleep(&pause, NULL);
	}
}

/* Receive `bytes` and compare them with the expected pattern, all of them (a mismatch does
 * not stop the reading, so the peer is never left blocked): 0 = verified, 1 = data
 * differs, -errno = I/O error. */
static int recv_pattern(int fd, uint32_t index, bool from_server, uint64_t bytes)
{
	static __thread uint8_t sbuf[CHUNK], swant[CHUNK];
	uint8_t *buf = sbuf, *want = swant;
	/* Where the pattern starts in the stream: after the header on the server's side. */
	uint64_t pos = from_server ? 0 : sizeof(struct wire_hdr);
	size_t rmb = 0;
	struct pattern p;
	bool differs = false;
	int r = 0;

	if (read_full) {
		rmb = rmb_size(fd);
		buf = rmb ? malloc(rmb) : NULL;
		want = rmb ? malloc(rmb) : NULL;
		if (!buf || !want) {
			free(buf);
			free(want);
			return rmb ? -ENOMEM : -ENOTSUP;
		}
	}
	pattern_init(&p, index, from_server);
	while (bytes) {
		size_t n = bytes < CHUNK ? (size_t)bytes : CHUNK;

		if (read_full) {
			/*
			 * Up to the end of the ring, never across it: the kernel confirms a
			 * read to the sender piece by piece, and the piece after the wrap is
			 * below its update limit (rmbe_update_limit), so a read across the
			 * end leaves the sender short of that much room and the buffer never
			 * fills again (seen: 65480 of 65504 bytes after the header's 16).
			 */
			size_t to_end = rmb - (size_t)(pos % rmb);
			bool full;

			n = bytes < to_end ? (size_t)bytes : to_end;
			full = wait_readable(fd, n);
			__atomic_add_fetch(&reads_total, 1, __ATOMIC_RELAXED);
			if (full && n == rmb)
				__atomic_add_fetch(&reads_full, 1, __ATOMIC_RELAXED);
		}
		r = read_all(fd, buf, n);
		if (r < 0)
			break;
		pattern_fill(&p, want, n);
		differs |= memcmp(buf, want, n) != 0;
		bytes -= n;
		pos += n;
	}
	if (read_full) {
		free(buf);
		free(want);
	}
	return r < 0 ? r : differs ? 1 : 0;
}

/* ---- sockets ------------------------------------------------------------------------ */

struct endpoint {
	struct sockaddr_storage ss;
	socklen_t len;
	int family;
};

static int endpoint_parse(const char *addr, unsigned int port, struct endpoint *ret)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&ret->ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ret->ss;

	memset(ret, 0, sizeof(*ret));
	if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
		ret->len = sizeof(*sin);
		ret->family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		ret->len = sizeof(*sin6);
		ret->family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

/*
 * In TCP mode the program asked for TCP, but "smcctl run" or a policy may have made the
 * kernel create an SMC socket (IPPROTO_SMC) or the preload library an AF_SMC one: ask the
 * kernel what the socket is, so that an unmodified TCP program's mode is reported too.
 * Asked right after socket(): once an SMC socket falls back to TCP the kernel puts the
 * internal TCP socket behind the file descriptor, which then reports TCP.
 */
static bool fd_is_smc(int fd)
{
	int v = 0;
	socklen_t len = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &len) == 0 && v == AF_SMC)
		return true;
	len = sizeof(v);
	return getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &v, &len) == 0 && v == IPPROTO_SMC;
}

#define FD_TRACKED 4096
static bool fd_created_smc[FD_TRACKED];

static bool fd_was_smc(int fd)
{
	return fd >= 0 && fd < FD_TRACKED && fd_created_smc[fd];
}

static int open_socket(enum proto proto, int family)
{
	int fd;

	switch (proto) {
	case PROTO_SMC:
		fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_SMC);
		break;
	case PROTO_AFSMC:
		fd = socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC,
			    family == AF_INET6 ? SMCPROTO_SMC6 : SMCPROTO_SMC);
		break;
	default:
		fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
		break;
	}
	if (fd >= 0 && fd < FD_TRACKED)
		fd_created_smc[fd] = fd_is_smc(fd);
	return fd < 0 ? -errno : fd;
}

static void format_sockaddr(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN] = "?";
	unsigned int port = 0;

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip));
		port = ntohs(sin->sin_port);
		snprintf(buf, len, "%s:%u", ip, port);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &sin6->sin6_addr, ip, sizeof(ip));
		port = ntohs(sin6->sin6_port);
		snprintf(buf, len, "[%s]:%u", ip, port);
	} else {
		snprintf(buf, len, "?");
	}
}

static void local_name(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	memset(&ss, 0, sizeof(ss));
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
		snprintf(buf, len, "?");
	else
		format_sockaddr(&ss, buf, len);
}

/* ---- mode detection ------------------------------------------------------------------ */

struct conn_mode {
	const char *mode;	   /* "smcd", "smcr", "tcp" (fallback) or "unknown" */
	uint32_t fallback_reason;  /* CLC decline/fallback code when mode is "tcp" */
	const char *fallback_name; /* its name ("PEERDECL"), NULL when unknown */
	const char *detail;	   /* why "unknown" */
	bool smc_socket;	   /* the kernel made it an SMC socket (asked for or not) */
};

/*
 * Mode detection. The mode of a live connection is only visible through smc_diag
 * (NETLINK_SOCK_DIAG, family AF_SMC), which belongs to the project's netlink library: this
 * tool carries no sock_diag code of its own. Our sockets are found in the dump by inode
 * (IPPROTO_SMC sockets are listed without IP addresses, so the inode is the only reliable
 * key). tests/vm/Makefile.inc builds it with SMC_CONN_WITH_SMCNL and libsmcnl; compiled
 * on its own (gcc smc-conn.c, e.g. for another machine) the mode is reported as "unknown".
 */
#ifdef SMC_CONN_WITH_SMCNL
#include "netlink/smcnl.h"

static void conns_mode_query(enum proto proto, int *fds, struct conn_mode *modes, unsigned int n)
{
	static char err[160];
	struct smc_socket *socks = NULL;
	size_t nsocks = 0;
	struct smcnl *nl = NULL;
	int r;

	r = smcnl_open(NULL, &nl);
	if (r >= 0)
		r = smc_socket_list(nl, 0, &socks, &nsocks);
	if (r < 0)
		snprintf(err, sizeof(err), "smc_diag query failed: %s", strerror(-r));
	for (unsigned int i = 0; i < n; i++) {
		struct stat st;

		modes[i] = (struct conn_mode){ .mode = "unknown", .smc_socket = true };
		if (fds[i] < 0)
			continue;
		if (proto == PROTO_TCP && !fd_was_smc(fds[i])) {
			modes[i] = (struct conn_mode){ .mode = "tcp", .detail = "plain TCP socket" };
			continue;
		}
		if (r < 0) {
			modes[i].detail = err;
			continue;
		}
		modes[i].detail = "socket not found in the smc_diag dump";
		if (fstat(fds[i], &st) < 0)
			continue;
		for (size_t k = 0; k < nsocks; k++) {
			if (socks[k].inode != (uint32_t)st.st_ino)
				continue;
			modes[i].detail = NULL;
			switch (socks[k].mode) {
			case 0:
				modes[i].mode = "smcr";
				break;
			case 2:
				modes[i].mode = "smcd";
				break;
			default:
				modes[i].mode = "tcp";
				modes[i].fallback_reason =
					socks[k].has_fallback ? socks[k].fallback_reason : 0;
				modes[i].fallback_name = smc_decline_name(modes[i].fallback_reason);
				break;
			}
			break;
		}
	}
	free(socks);
	if (nl)
		smcnl_close(nl);
}

/* The length of the socket's receive buffer (RMB) as the kernel counts it; 0: unknown. */
static uint32_t rmb_size(int fd)
{
	struct smc_socket *socks = NULL;
	struct smcnl *nl = NULL;
	size_t nsocks = 0;
	uint32_t size = 0;
	struct stat st;

	if (fstat(fd, &st) < 0 || smcnl_open(NULL, &nl) < 0)
		return 0;
	if (smc_socket_list(nl, SMC_DIAG_WANT_CONNINFO, &socks, &nsocks) == 0)
		for (size_t k = 0; k < nsocks; k++)
			if (socks[k].inode == (uint32_t)st.st_ino && socks[k].has_conninfo)
				size = socks[k].conn.rmbe_size;
	free(socks);
	smcnl_close(nl);
	if (!size)
		fprintf(stderr, "smc-conn: --read-full: no receive buffer size for the socket "
				"in smc_diag (not an SMC connection?)\n");
	return size;
}
#else
static uint32_t rmb_size(int fd)
{
	(void)fd;
	fprintf(stderr, "smc-conn: --read-full needs smc_diag (built without libsmcnl)\n");
	return 0;
}

static void conns_mode_query(enum proto proto, int *fds, struct conn_mode *modes, unsigned int n)
{
	(void)fds;
	for (unsigned int i = 0; i < n; i++)
		modes[i] =
			proto == PROTO_TCP
				? (struct conn_mode){ .mode = "tcp", .detail = "plain TCP socket" }
				: (struct conn_mode){
					  .mode = "unknown",
					  .detail = "built without the netlink library (smc_diag)",
				  };
}
#endif

/* ---- `socket` ------------------------------------------------------------------------- */

static int cmd_socket(const struct options *o)
{
	struct endpoint ep;
	int fd;

	if (endpoint_parse(o->addr, 0, &ep) < 0) {
		fprintf(stderr, "smc-conn: bad address %s\n", o->addr);
		return 2;
	}
	fd = open_socket(o->proto, ep.family);
	if (fd < 0) {
		printf("{\"event\":\"socket\",\"proto\":\"%s\",\"ok\":false,\"errno\":%d,"
		       "\"error\":\"%s\"}\n",
		       proto_names[o->proto], -fd, strerror(-fd));
		return 1;
	}
	close(fd);
	printf("{\"event\":\"socket\",\"proto\":\"%s\",\"ok\":true}\n", proto_names[o->proto]);
	return 0;
}

/* ---- server --------------------------------------------------------------------------- */

struct server {
	const struct options *o;
	int lfd;
	unsigned int port; /* actual port (for --port 0) */
	bool quiet;	   /* pair mode: the client reports */
	pthread_mutex_t lock;
	unsigned int failed;
};

struct server_conn {
	struct server *srv;
	int fd;
};

static void *server_conn_run(void *arg)
{
	struct server_conn *sc = arg;
	struct server *srv = sc->srv;
	struct wire_hdr hdr;
	const char *err = NULL;
	int r = read_all(sc->fd, &hdr, sizeof(hdr));

	if (r < 0)
		err = "reading the header failed";
	else if (hdr.magic != HDR_MAGIC)
		err = "bad header magic";
	if (!err) {
		r = recv_pattern(sc->fd, hdr.index, false, hdr.bytes);
		if (r > 0)
			err = "received data differs from the expected pattern";
		else if (r < 0)
			err = "receiving data failed";
	}
	if (!err && send_pattern(sc->fd, hdr.index, true, hdr.bytes) < 0)
		err = "sending data failed";
	/* Wait for the client to close (it holds the connection open with --hold). */
	if (!err) {
		char c;

		while (recv(sc->fd, &c, 1, 0) > 0)
			;
	}
	pthread_mutex_lock(&srv->lock);
	if (err)
		srv->failed++;
	if (!srv->quiet || err)
		printf("{\"role\":\"server\",\"conn\":%u,\"bytes\":%" PRIu64 ",\"ok\":%s%s%s%s}\n",
		       err ? 0 : hdr.index, err ? 0 : hdr.bytes, err ? "false" : "true",
		       err ? ",\"error\":\"" : "", err ? err : "", err ? "\"" : "");
	fflush(stdout);
	pthread_mutex_unlock(&srv->lock);
	close(sc->fd);
	free(sc);
	return NULL;
}

static int server_listen(struct server *srv)
{
	const struct options *o = srv->o;
	struct endpoint ep;
	int one = 1, fd, r;

	if (endpoint_parse(o->addr, o->port, &ep) < 0) {
		fprintf(stderr, "smc-conn: bad address %s\n", o->addr);
		return -EINVAL;
	}
	fd = open_socket(o->proto, ep.family);
	if (fd < 0) {
		fprintf(stderr, "smc-conn: socket(%s): %s\n", proto_names[o->proto], strerror(-fd));
		return fd;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ep.ss, ep.len) < 0 || listen(fd, 128) < 0) {
		r = -errno;
		fprintf(stderr, "smc-conn: bind/listen on %s port %u: %s\n", o->addr, o->port,
			strerror(-r));
		close(fd);
		return r;
	}
	{
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);

		srv->port = o->port;
		if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
			srv->port = ntohs(ss.ss_family == AF_INET6
						  ? ((struct sockaddr_in6 *)&ss)->sin6_port
						  : ((struct sockaddr_in *)&ss)->sin_port);
	}
	srv->lfd = fd;
	return 0;
}

/* Accept `max` connections (0 = forever), each served by its own thread; join them all. */
static int server_accept_loop(struct server *srv, unsigned int max)
{
	pthread_t *threads = NULL;
	unsigned int n = 0;

	for (;;) {
		struct server_conn *sc;
		int fd;

		if (max && n == max)
			break;
		fd = accept4(srv->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "smc-conn: accept: %s\n", strerror(errno));
			break;
		}
		sc = calloc(1, sizeof(*sc));
		threads = realloc(threads, (n + 1) * sizeof(*threads));
		if (!sc || !threads) {
			fprintf(stderr, "smc-conn: out of memory\n");
			exit(1);
		}
		sc->srv = srv;
		sc->fd = fd;
		if (pthread_create(&threads[n], NULL, server_conn_run, sc) != 0) {
			fprintf(stderr, "smc-conn: pthread_create failed\n");
			exit(1);
		}
		n++;
	}
	for (unsigned int i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	free(threads);
	return srv->failed ? 1 : 0;
}

static int cmd_serve(const struct options *o, bool conns_given)
{
	struct server srv = { .o = o, .lfd = -1, .lock = PTHREAD_MUTEX_INITIALIZER };
	int r;

	if (server_listen(&srv) < 0)
		return 1;
	printf("{\"role\":\"server\",\"event\":\"listening\",\"proto\":\"%s\",\"port\":%u}\n",
	       proto_names[o->proto], srv.port);
	fflush(stdout);
	r = server_accept_loop(&srv, conns_given ? o->conns : 0);
	close(srv.lfd);
	return r;
}

/* ---- client --------------------------------------------------------------------------- */

struct client_conn {
	int fd;
	int err;	  /* -errno of the failing step, 0 */
	const char *step; /* failing step */
	bool verified;
	double connect_ms, transfer_ms;
	char local[64];
	struct conn_mode mode;
};

static void client_connect_one(const struct options *o, const struct endpoint *ep,
			       struct client_conn *c)
{
	double t0 = now_ms();

	c->fd = open_socket(o->proto, ep->family);
	if (c->fd < 0) {
		c->err = c->fd, c->step = "socket";
		return;
	}
	if (connect(c->fd, (const struct sockaddr *)&ep->ss, ep->len) < 0) {
		c->err = -errno, c->step = "connect";
		close(c->fd);
		c->fd = -1;
		return;
	}
	c->connect_ms = now_ms() - t0;
	local_name(c->fd, c->local, sizeof(c->local));
}

static void client_transfer(const struct options *o, uint32_t index, struct client_conn *c)
{
	struct wire_hdr hdr = { .magic = HDR_MAGIC, .index = index, .bytes = o->bytes };
	double t0 = now_ms();
	int r;

	if (c->fd < 0)
		return;
	r = write_all(c->fd, &hdr, sizeof(hdr));
	if (r == 0)
		r = send_pattern(c->fd, index, false, o->bytes);
	if (r < 0) {
		c->err = r, c->step = "send";
		return;
	}
	r = recv_pattern(c->fd, index, true, o->bytes);
	if (r < 0) {
		c->err = r, c->step = "receive";
		return;
	}
	c->verified = r == 0;
	if (!c->verified)
		c->step = "verify";
	c->transfer_ms = now_ms() - t0;
}

static void client_print(const struct options *o, unsigned int i, const struct client_conn *c,
			 const char *peer)
{
	printf("{\"conn\":%u,\"proto\":\"%s\",\"local\":\"%s\",\"peer\":\"%s\","
	       "\"bytes_sent\":%" PRIu64 ",\"bytes_received\":%" PRIu64 ",\"verified\":%s,"
	       "\"mode\":\"%s\"",
	       i, proto_names[o->proto], c->local[0] ? c->local : "", peer,
	       c->verified ? o->bytes : 0, c->verified ? o->bytes : 0,
	       c->verified ? "true" : "false", c->mode.mode ? c->mode.mode : "none");
	printf(",\"smc_socket\":%s", c->mode.smc_socket ? "true" : "false");
	if (c->mode.mode && strcmp(c->mode.mode, "tcp") == 0 && c->mode.smc_socket) {
		printf(",\"fallback_reason\":\"0x%08" PRIx32 "\"", c->mode.fallback_reason);
		if (c->mode.fallback_name)
			printf(",\"fallback_name\":\"%s\"", c->mode.fallback_name);
	}
	if (c->mode.detail)
		printf(",\"mode_detail\":\"%s\"", c->mode.detail);
	printf(",\"connect_ms\":%.2f,\"transfer_ms\":%.2f", c->connect_ms, c->transfer_ms);
	if (c->step)
		printf(",\"error\":\"%s%s%s\"", c->step, c->err ? ": " : "",
		       c->err ? strerror(-c->err) : "");
	printf("}\n");
}

static int run_client(const struct options *o, unsigned int port)
{
	struct client_conn *cs = calloc(o->conns, sizeof(*cs));
	unsigned int ok = 0, smcd = 0, smcr = 0, tcp = 0, unknown = 0;
	struct endpoint ep;
	char peer[80];
	double t0;

	if (!cs) {
		fprintf(stderr, "smc-conn: out of memory\n");
		return 1;
	}
	if (endpoint_parse(o->addr, port, &ep) < 0) {
		fprintf(stderr, "smc-conn: bad address %s\n", o->addr);
		free(cs);
		return 2;
	}
	format_sockaddr(&ep.ss, peer, sizeof(peer));
	t0 = now_ms();
	/* Open all connections first so they exist side by side (link groups), then move the
	 * data on each, then look at their mode while they are all still open. */
	for (unsigned int i = 0; i < o->conns; i++)
		client_connect_one(o, &ep, &cs[i]);
	for (unsigned int i = 0; i < o->conns; i++)
		client_transfer(o, i, &cs[i]);
	{
		int *fds = calloc(o->conns, sizeof(*fds));
		struct conn_mode *modes = calloc(o->conns, sizeof(*modes));

		if (!fds || !modes) {
			fprintf(stderr, "smc-conn: out of memory\n");
			exit(1);
		}
		for (unsigned int i = 0; i < o->conns; i++)
			fds[i] = cs[i].fd;
		conns_mode_query(o->proto, fds, modes, o->conns);
		for (unsigned int i = 0; i < o->conns; i++)
			if (cs[i].fd >= 0)
				cs[i].mode = modes[i];
		free(fds);
		free(modes);
	}
	for (unsigned int i = 0; i < o->conns; i++) {
		struct client_conn *c = &cs[i];

		client_print(o, i, c, peer);
		ok += c->verified && !c->step;
		if (!c->mode.mode)
			continue;
		if (strcmp(c->mode.mode, "smcd") == 0)
			smcd++;
		else if (strcmp(c->mode.mode, "smcr") == 0)
			smcr++;
		else if (strcmp(c->mode.mode, "tcp") == 0)
			tcp++;
		else
			unknown++;
	}
	fflush(stdout);
	if (o->hold)
		hold(o->hold);
	for (unsigned int i = 0; i < o->conns; i++)
		if (cs[i].fd >= 0)
			close(cs[i].fd);
	{
		double secs = (now_ms() - t0) / 1e3;

		printf("{\"summary\":true,\"proto\":\"%s\",\"conns\":%u,\"ok\":%u,\"failed\":%u,"
		       "\"smcd\":%u,\"smcr\":%u,\"tcp\":%u,\"unknown\":%u,"
		       "\"bytes_per_conn\":%" PRIu64 ",\"hold\":%u,\"seconds\":%.3f",
		       proto_names[o->proto], o->conns, ok, o->conns - ok, smcd, smcr, tcp, unknown,
		       o->bytes, o->hold, secs);
		/* Both ends' reads in pair mode: the server's may still run for another connection,
		 * but by now every byte of every connection has been read. */
		if (o->read_full)
			printf(",\"reads\":%lu,\"reads_full\":%lu",
			       __atomic_load_n(&reads_total, __ATOMIC_RELAXED),
			       __atomic_load_n(&reads_full, __ATOMIC_RELAXED));
		printf("}\n");
	}
	free(cs);
	return ok == o->conns ? 0 : 1;
}

static void *pair_server_thread(void *arg)
{
	struct server *srv = arg;

	server_accept_loop(srv, srv->o->conns);
	return NULL;
}

static int cmd_pair(const struct options *o)
{
	struct server srv = { .o = o, .lfd = -1, .quiet = true, .lock = PTHREAD_MUTEX_INITIALIZER };
	pthread_t th;
	int r;

	if (server_listen(&srv) < 0)
		return 1;
	if (pthread_create(&th, NULL, pair_server_thread, &srv) != 0) {
		fprintf(stderr, "smc-conn: pthread_create failed\n");
		return 1;
	}
	r = run_client(o, srv.port);
	/* Connections that failed to connect never reach the server: unblock accept(). */
	shutdown(srv.lfd, SHUT_RDWR);
	if (r == 0)
		pthread_join(th, NULL);
	close(srv.lfd);
	return r ? r : (srv.failed ? 1 : 0);
}

/* ---- trickle: a slow client ---------------------------------------------------------- */

static int cmd_trickle(const struct options *o)
{
	struct endpoint ep;
	uint64_t sent = 0;
	char local[128];
	int fd;

	if (endpoint_parse(o->addr, o->port, &ep) < 0) {
		fprintf(stderr, "smc-conn: bad address '%s'\n", o->addr);
		return 2;
	}
	fd = open_socket(o->proto, ep.family);
	if (fd < 0 || connect(fd, (const struct sockaddr *)&ep.ss, ep.len) < 0) {
		fprintf(stderr, "smc-conn: trickle: cannot connect: %s\n",
			strerror(fd < 0 ? -fd : errno));
		return 1;
	}
	local_name(fd, local, sizeof(local));
	printf("{\"trickle\":\"connected\",\"local\":\"%s\"}\n", local);
	for (;;) {
		/* the second between two bytes is a wait for the server's close */
		struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDHUP };
		ssize_t n = 1;
		char b;

		if (send(fd, "x", 1, MSG_NOSIGNAL) != 1)
			break;
		sent++;
		if (poll(&p, 1, 1000) > 0)
			n = recv(fd, &b, 1, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN))
			break;
	}
	printf("{\"trickle\":\"cut\",\"sent\":%" PRIu64 "}\n", sent);
	close(fd);
	return 0;
}

/* ---- main ----------------------------------------------------------------------------- */

static void usage(FILE *f)
{
	fputs("usage: smc-conn socket  [--proto smc|afsmc|tcp] [--addr A]\n"
	      "       smc-conn serve   --port N [--proto P] [--addr A] [--conns N]\n"
	      "       smc-conn connect --port N [--proto P] [--addr A] [--conns N] [--bytes B]"
	      " [--hold S]\n"
	      "       smc-conn pair    [--port N] [--proto P] [--addr A] [--conns N] [--bytes B]"
	      " [--hold S]\n"
	      "       smc-conn trickle --port N [--proto P] [--addr A]  (one byte a second)\n"
	      "--read-full: read only when the receive buffer is full (RX buffer-full counters)\n"
	      "--hold S: keep the connections open S seconds, or until a SIGUSR1\n"
	      "B accepts K, M, G suffixes. Defaults: --proto smc --addr 127.0.0.1 --conns 1\n"
	      "--bytes 1M --hold 0; pair uses an ephemeral port unless --port is given.\n",
	      f);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "proto", required_argument, NULL, 'P' },
		{ "addr", required_argument, NULL, 'a' },
		{ "port", required_argument, NULL, 'p' },
		{ "conns", required_argument, NULL, 'n' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "hold", required_argument, NULL, 'H' },
		{ "read-full", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct options o = { .proto = PROTO_SMC, .addr = "127.0.0.1", .conns = 1, .bytes = 1024 * 1024 };
	bool port_given = false, conns_given = false;
	const char *cmd;
	uint64_t v;
	int c;

	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	cmd = argv[1];
	optind = 2;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'P':
			if (parse_proto(optarg, &o.proto) < 0) {
				fprintf(stderr, "smc-conn: --proto must be smc, afsmc or tcp\n");
				return 2;
			}
			break;
		case 'a':
			o.addr = optarg;
			break;
		case 'p':
		case 'n':
		case 'H':
			if (parse_u64(optarg, &v) < 0 || v > (c == 'p' ? 65535 : 1000000)) {
				fprintf(stderr, "smc-conn: bad number '%s'\n", optarg);
				return 2;
			}
			if (c == 'p')
				o.port = (unsigned int)v, port_given = true;
			else if (c == 'n')
				o.conns = (unsigned int)v, conns_given = true;
			else
				o.hold = (unsigned int)v;
			break;
		case 'b':
			if (parse_u64(optarg, &o.bytes) < 0) {
				fprintf(stderr, "smc-conn: bad byte count '%s'\n", optarg);
				return 2;
			}
			break;
		case 'F':
			o.read_full = read_full = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "smc-conn: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	/* For hold(): blocked in every thread (they inherit it), taken by sigtimedwait(). */
	{
		sigset_t ss;

		sigemptyset(&ss);
		sigaddset(&ss, SIGUSR1);
		sigprocmask(SIG_BLOCK, &ss, NULL);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (strcmp(cmd, "socket") == 0)
		return cmd_socket(&o);
	if (strcmp(cmd, "pair") == 0)
		return cmd_pair(&o);
	if (!port_given) {
		fprintf(stderr, "smc-conn: %s needs --port\n", cmd);
		return 2;
	}
	if (strcmp(cmd, "serve") == 0)
		return cmd_serve(&o, conns_given);
	if (strcmp(cmd, "connect") == 0)
		return run_client(&o, o.port);
	if (strcmp(cmd, "trickle") == 0)
		return cmd_trickle(&o);
	fprintf(stderr, "smc-conn: unknown command '%s'\n", cmd);
	usage(stderr);
	return 2;
}
