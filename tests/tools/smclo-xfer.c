// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smclo-xfer: SMC traffic for the kmod guest tests and the bench/kmod-* benchmark.  Server
 * and client run in one process (threads) over 127.0.0.1 with IPPROTO_SMC sockets.  A
 * test tool, not an installed program.
 *
 *   smclo-xfer verify [--bytes N] [--conns N] [--recv read|splice]
 *       N connections, each sends --bytes of a per-connection pattern; the server reads
 *       it with read() or with splice() into a pipe, and checks every byte.  Exit 1 on
 *       any mismatch or short transfer.
 *   smclo-xfer churn --secs S [--bytes N] [--rate R]
 *       open, transfer (verified), close, repeat for S seconds.  Errors such as
 *       ECONNABORTED (the device went away) are counted, not fatal; corruption is fatal.
 *       --rate: at most R connections a second, started on a fixed schedule (a soak's
 *       steady rate; a connection that takes longer delays the next ones, no burst after)
 *   smclo-xfer hold --conns N --secs S [--stubborn]
 *       open N connections, keep them open S seconds moving a little data each second.
 *       A connection that fails is closed at once, or with --stubborn only at the end
 *       (an application that does not notice its aborted socket).
 *   smclo-xfer stream --secs S [--msg BYTES]   bulk throughput, prints MB/s
 *   smclo-xfer rr --secs S [--msg BYTES]       request/response rate, prints transactions/s
 *
 * Common: --proto smc|tcp (default smc), --port N (default 45000 + pid % 1000).
 * SIGTERM/SIGINT end churn and hold early, with their summary line.
 * Output: one line of KEY=VALUE pairs.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/smc-socket.h"

static struct {
	int proto;
	int port;
	long long bytes;
	int conns;
	bool splice;
	double secs;
	int msg;
	bool stubborn;
	double rate;
} opt = { .proto = IPPROTO_SMC, .bytes = 1 << 20, .conns = 1, .secs = 5, .msg = 65536 };

static int listen_fd;
static volatile bool stop;

static void on_term(int sig)
{
	stop = true;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint8_t pattern(uint64_t conn, uint64_t off)
{
	return (uint8_t)((off * 131 + conn * 7 + (off >> 12)) & 0xff);
}

static int sock_new(void)
{
	return socket(AF_INET, SOCK_STREAM, opt.proto);
}

static struct sockaddr_in addr(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(opt.port) };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

static int do_listen(void)
{
	struct sockaddr_in a = addr();
	int one = 1;

	listen_fd = sock_new();
	if (listen_fd < 0) {
		perror("socket");
		return -1;
	}
	setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(listen_fd, (struct sockaddr *)&a, sizeof(a)) || listen(listen_fd, 128)) {
		perror("bind/listen");
		return -1;
	}
	return 0;
}

static int do_connect(void)
{
	struct sockaddr_in a = addr();
	int fd = sock_new();

	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		p += n;
		len -= n;
	}
	return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ENODATA;
		p += n;
		len -= n;
	}
	return 0;
}

/* Send the header (connection id, length) and the pattern. */
static int send_stream(int fd, uint64_t conn, long long bytes)
{
	static __thread char buf[65536];
	uint64_t hdr[2] = { conn, (uint64_t)bytes };
	long long off = 0;
	int rc, i, n;

	rc = write_all(fd, hdr, sizeof(hdr));
	while (!rc && off < bytes) {
		n = bytes - off < (long long)sizeof(buf) ? (int)(bytes - off) : (int)sizeof(buf);
		for (i = 0; i < n; i++)
			buf[i] = pattern(conn, off + i);
		rc = write_all(fd, buf, n);
		off += n;
	}
	return rc;
}

/* Read n bytes either directly or through a pipe filled by splice(). */
static ssize_t recv_some(int fd, int pipefd[2], char *buf, size_t n)
{
	ssize_t got, r, total = 0;

	if (!opt.splice)
		return read(fd, buf, n);
	got = splice(fd, NULL, pipefd[1], NULL, n, SPLICE_F_MOVE);
	if (got <= 0)
		return got;
	while (total < got) {
		r = read(pipefd[0], buf + total, got - total);
		if (r <= 0)
			return -1;
		total += r;
	}
	return total;
}

/* Returns 0 verified, -EBADMSG corrupt, other -errno transport errors. */
static int recv_stream(int fd, long long *ret_bytes)
{
	static __thread char buf[65536];
	int pipefd[2] = { -1, -1 };
	uint64_t hdr[2];
	long long off = 0;
	ssize_t n, i;
	int rc;

	rc = read_all(fd, hdr, sizeof(hdr));
	if (rc)
		return rc;
	if (opt.splice && pipe(pipefd))
		return -errno;
	while (off < (long long)hdr[1]) {
		size_t want = hdr[1] - off < sizeof(buf) ? hdr[1] - off : sizeof(buf);

		n = recv_some(fd, pipefd, buf, want);
		if (n <= 0) {
			rc = n < 0 ? -errno : -ENODATA;
			break;
		}
		for (i = 0; i < n; i++) {
			if ((uint8_t)buf[i] != pattern(hdr[0], off + i)) {
				fprintf(stderr,
					"corrupt: conn %llu offset %lld: got 0x%02x want 0x%02x\n",
					(unsigned long long)hdr[0], off + (long long)i,
					(uint8_t)buf[i], pattern(hdr[0], off + i));
				rc = -EBADMSG;
				goto out;
			}
		}
		off += n;
	}
out:
	if (pipefd[0] >= 0) {
		close(pipefd[0]);
		close(pipefd[1]);
	}
	*ret_bytes = off;
	return rc;
}

struct result {
	long long ok, errors, corrupt, bytes;
	double value;
};

static pthread_mutex_t res_lock = PTHREAD_MUTEX_INITIALIZER;
static struct result res;

/* Server side of verify/churn: verify one stream, then acknowledge with one byte. */
static void *serve_verify(void *arg)
{
	int fd = (int)(intptr_t)arg;
	long long got = 0;
	char ack = 'k';
	int rc;

	rc = recv_stream(fd, &got);
	if (!rc)
		rc = write_all(fd, &ack, 1);
	pthread_mutex_lock(&res_lock);
	if (rc == -EBADMSG)
		res.corrupt++;
	else if (rc)
		res.errors++;
	else
		res.bytes += got;
	pthread_mutex_unlock(&res_lock);
	close(fd);
	return NULL;
}

static void *acceptor(void *arg)
{
	void *(*fn)(void *) = arg;
	pthread_t t;
	int fd;

	while (!stop) {
		fd = accept(listen_fd, NULL, NULL);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			break;
		}
		pthread_create(&t, NULL, fn, (void *)(intptr_t)fd);
		pthread_detach(t);
	}
	return NULL;
}

/* One verified client transfer; 0 ok, -errno otherwise. */
static int client_once(uint64_t conn)
{
	char ack;
	int fd, rc;

	fd = do_connect();
	if (fd < 0)
		return fd;
	rc = send_stream(fd, conn, opt.bytes);
	if (!rc)
		rc = read_all(fd, &ack, 1);
	close(fd);
	return rc;
}

static void *client_verify(void *arg)
{
	int rc = client_once((uintptr_t)arg);

	pthread_mutex_lock(&res_lock);
	if (rc)
		res.errors++;
	else
		res.ok++;
	pthread_mutex_unlock(&res_lock);
	return NULL;
}

static int run_verify(void)
{
	pthread_t *t = calloc(opt.conns, sizeof(*t));
	int i;

	for (i = 0; i < opt.conns; i++)
		pthread_create(&t[i], NULL, client_verify, (void *)(uintptr_t)i);
	for (i = 0; i < opt.conns; i++)
		pthread_join(t[i], NULL);
	/* The server threads count bytes/corruption after the client got its ack. */
	usleep(100000);
	printf("mode=verify recv=%s conns=%d ok=%lld errors=%lld corrupt=%lld bytes=%lld\n",
	       opt.splice ? "splice" : "read", opt.conns, res.ok, res.errors, res.corrupt, res.bytes);
	return res.ok == opt.conns && !res.corrupt && !res.errors ? 0 : 1;
}

/* --rate: sleep until the next connection's slot; never catch up on missed slots. */
static void pace(double *next)
{
	double t = now_s();

	if (opt.rate <= 0)
		return;
	if (*next > t) {
		struct timespec ts = { .tv_sec = (time_t)(*next - t),
				       .tv_nsec = (long)((*next - t - (time_t)(*next - t)) * 1e9) };

		nanosleep(&ts, NULL);
		t = *next;
	}
	*next = t + 1.0 / opt.rate;
}

static int run_churn(void)
{
	double end = now_s() + opt.secs, next = 0;
	uint64_t i = 0;
	int rc;

	while (now_s() < end && !stop) {
		pace(&next);
		if (stop)
			break;
		rc = client_once(i++);
		pthread_mutex_lock(&res_lock);
		if (rc)
			res.errors++;
		else
			res.ok++;
		pthread_mutex_unlock(&res_lock);
		if (rc)
			usleep(20000);
	}
	usleep(100000);
	printf("mode=churn ok=%lld errors=%lld corrupt=%lld\n", res.ok, res.errors, res.corrupt);
	return res.corrupt ? 1 : 0;
}

/* hold: each connection echoes one byte per second until the end. */
static void *serve_echo(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char c;

	while (read(fd, &c, 1) == 1 && write(fd, &c, 1) == 1)
		;
	close(fd);
	return NULL;
}

static int run_hold(void)
{
	int *fds = calloc(opt.conns, sizeof(int));
	bool *dead = calloc(opt.conns, sizeof(bool));
	double end = now_s() + opt.secs;
	int i, open_ok = 0, lost = 0;
	char c = 'h';

	for (i = 0; i < opt.conns; i++) {
		fds[i] = do_connect();
		open_ok += fds[i] >= 0;
	}
	printf("mode=hold opened=%d\n", open_ok);
	fflush(stdout);
	while (now_s() < end && !stop) {
		for (i = 0; i < opt.conns; i++) {
			if (fds[i] < 0 || dead[i])
				continue;
			if (write(fds[i], &c, 1) != 1 || read(fds[i], &c, 1) != 1) {
				dead[i] = true;
				lost++;
				printf("mode=hold conn=%d lost errno=%d\n", i, errno);
				fflush(stdout);
				if (!opt.stubborn) {
					close(fds[i]);
					fds[i] = -1;
				}
			}
		}
		sleep(1);
	}
	for (i = 0; i < opt.conns; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	printf("mode=hold done lost=%d\n", lost);
	return open_ok == opt.conns ? 0 : 1;
}

/* stream: the server drains, the client writes msg-sized chunks for secs. */
static void *serve_drain(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char *buf = malloc(1 << 20);
	long long total = 0;
	ssize_t n;

	while ((n = read(fd, buf, 1 << 20)) > 0)
		total += n;
	pthread_mutex_lock(&res_lock);
	res.bytes += total;
	pthread_mutex_unlock(&res_lock);
	free(buf);
	close(fd);
	return NULL;
}

static int run_stream(void)
{
	char *buf = calloc(1, opt.msg);
	double t0, t1;
	long long sent = 0;
	int fd;

	fd = do_connect();
	if (fd < 0) {
		fprintf(stderr, "connect: %s\n", strerror(-fd));
		return 1;
	}
	t0 = now_s();
	while ((t1 = now_s()) < t0 + opt.secs) {
		if (write_all(fd, buf, opt.msg))
			return 1;
		sent += opt.msg;
	}
	shutdown(fd, SHUT_WR);
	close(fd);
	printf("mode=stream msg=%d secs=%.2f bytes=%lld mbps=%.1f\n", opt.msg, t1 - t0, sent,
	       sent / (t1 - t0) / 1e6);
	return 0;
}

static void *serve_rr(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char *buf = malloc(opt.msg);

	while (!read_all(fd, buf, opt.msg) && !write_all(fd, buf, opt.msg))
		;
	free(buf);
	close(fd);
	return NULL;
}

static int run_rr(void)
{
	char *buf = calloc(1, opt.msg);
	long long n = 0;
	double t0, t1;
	int fd, one = 1;

	fd = do_connect();
	if (fd < 0) {
		fprintf(stderr, "connect: %s\n", strerror(-fd));
		return 1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	t0 = now_s();
	while ((t1 = now_s()) < t0 + opt.secs) {
		if (write_all(fd, buf, opt.msg) || read_all(fd, buf, opt.msg))
			return 1;
		n++;
	}
	close(fd);
	printf("mode=rr msg=%d secs=%.2f transactions=%lld tps=%.0f\n", opt.msg, t1 - t0, n,
	       n / (t1 - t0));
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "proto", required_argument, NULL, 'p' },
		{ "port", required_argument, NULL, 'P' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "conns", required_argument, NULL, 'c' },
		{ "recv", required_argument, NULL, 'r' },
		{ "secs", required_argument, NULL, 's' },
		{ "msg", required_argument, NULL, 'm' },
		{ "stubborn", no_argument, NULL, 'S' },
		{ "rate", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	void *(*server)(void *) = serve_verify;
	const char *mode;
	pthread_t acc;
	int c;

	if (argc < 2)
		goto usage;
	mode = argv[1];
	opt.port = 45000 + getpid() % 1000;
	optind = 2;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'p':
			opt.proto = !strcmp(optarg, "tcp") ? 0 : IPPROTO_SMC;
			break;
		case 'P':
			opt.port = atoi(optarg);
			break;
		case 'b':
			opt.bytes = atoll(optarg);
			break;
		case 'c':
			opt.conns = atoi(optarg);
			break;
		case 'r':
			opt.splice = !strcmp(optarg, "splice");
			break;
		case 's':
			opt.secs = atof(optarg);
			break;
		case 'm':
			opt.msg = atoi(optarg);
			break;
		case 'S':
			opt.stubborn = true;
			break;
		case 'R':
			opt.rate = atof(optarg);
			break;
		default:
			goto usage;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	if (!strcmp(mode, "hold"))
		server = serve_echo;
	else if (!strcmp(mode, "stream"))
		server = serve_drain;
	else if (!strcmp(mode, "rr"))
		server = serve_rr;
	if (do_listen())
		return 1;
	pthread_create(&acc, NULL, acceptor, (void *)server);
	pthread_detach(acc);

	if (!strcmp(mode, "verify"))
		return run_verify();
	if (!strcmp(mode, "churn"))
		return run_churn();
	if (!strcmp(mode, "hold"))
		return run_hold();
	if (!strcmp(mode, "stream"))
		return run_stream();
	if (!strcmp(mode, "rr"))
		return run_rr();
usage:
	fprintf(stderr, "usage: smclo-xfer verify|churn|hold|stream|rr [options] (see source)\n");
	return 2;
}
