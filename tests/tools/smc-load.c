// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smc-load: the workload shapes the autopilot decides between, for its VM tests and its
 * benchmark (tests/vm/guest/autopilot-7x.sh, bench/autopilot).  Plain TCP sockets
 * (socket(AF_INET, SOCK_STREAM, 0)): whether they become SMC is the policy's business, and
 * each connection reports what it got (SO_PROTOCOL: 256 is IPPROTO_SMC; a connection that
 * fell back to TCP is one too: smc_diag tells them apart).
 *
 *   smc-load serve  --port N                     answer every request until killed
 *   smc-load client --port N --shape S [--conns C] [--size B] [--reply B] [--rate R]
 *                   [--seconds T | --until FILE] [--churn-after FILE] [--slow-on-smc F]
 *                   [--reconnect S]
 *
 * Shapes: rr      C long-lived connections, each a request of --size bytes answered with
 *                 --reply bytes, back to back (redis-like request/response);
 *         bulk    C long-lived connections streaming --size byte writes, the server
 *                 answering one byte per MiB (a bulk transfer, sockperf tp-like);
 *         churn   a new connection per request (connect, request, reply, close).
 * --rate R        at most R requests (rr, churn) or MiB (bulk) a second per connection:
 *                 an open-loop load whose figures do not depend on the carrier.
 * --churn-after F the shape turns to churn once FILE exists (a phase change).
 * --slow-on-smc F a connection that is SMC sleeps F ms after each request or MiB: a
 *                 workload that SMC makes worse, for the autopilot's rollback.
 * --reconnect S   rr, bulk: close and reopen each connection every S seconds, so that a
 *                 policy switched meanwhile reaches it (SMC is chosen when a socket is made).
 * --until FILE    run until FILE exists (else --seconds, default 10).
 *
 * Output: one JSON line a second ({"t":S,"requests":N,"bytes":N,"smc":N,"tcp":N}: this
 * second's requests and bytes, connections opened so far by carrier) and a summary line
 * ({"summary":true,"seconds":S,"requests":N,"bytes":N,"req_per_s":X,"mib_per_s":X,
 * "smc":N,"tcp":N,"errors":N}).  Exit 0, or 1 when a connection failed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS 64
#define MIB (1024 * 1024)
#define IPPROTO_SMC_VALUE 256

enum shape { SHAPE_RR, SHAPE_BULK, SHAPE_CHURN };

static struct {
	uint16_t port;
	enum shape shape;
	unsigned conns;
	uint32_t size, reply;
	double rate;
	double seconds;
	const char *until, *churn_after;
	unsigned slow_ms;
	double reconnect;
} opt = { .conns = 1, .size = 100, .reply = 100, .seconds = 10 };

static atomic_uint_fast64_t n_requests, n_bytes, n_smc, n_tcp, n_errors;
static atomic_bool stop;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool exists(const char *path)
{
	struct stat st;

	return path && stat(path, &st) == 0;
}

static void sleep_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int full_write(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static int full_read(int fd, void *p, size_t n)
{
	char *c = p;

	while (n) {
		ssize_t r = read(fd, c, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

/* ---- server --------------------------------------------------------------------------- */

/* A request: 8 bytes (its size, the reply's size), then size bytes; the reply follows. */
struct hdr {
	uint32_t size, reply;
};

static void *serve_conn(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char *buf = malloc(MIB);
	struct hdr h;

	while (buf && full_read(fd, &h, sizeof(h)) == 0) {
		uint32_t size = ntohl(h.size), reply = ntohl(h.reply);

		for (uint32_t left = size; left;) {
			uint32_t n = left < MIB ? left : MIB;

			if (full_read(fd, buf, n) < 0)
				goto out;
			left -= n;
		}
		for (uint32_t left = reply; left;) {
			uint32_t n = left < MIB ? left : MIB;

			if (full_write(fd, buf, n) < 0)
				goto out;
			left -= n;
		}
	}
out:
	free(buf);
	close(fd);
	return NULL;
}

static int serve(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(opt.port) };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 1024) < 0) {
		fprintf(stderr, "smc-load: cannot listen on port %u: %s\n", opt.port,
			strerror(errno));
		return 1;
	}
	printf("{\"listening\":%u}\n", opt.port);
	fflush(stdout);
	for (;;) {
		pthread_t t;
		int c = accept(fd, NULL, NULL);

		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return 1;
		}
		/* A request and its reply are each one message: no Nagle wait between them. */
		(void)setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (pthread_create(&t, NULL, serve_conn, (void *)(intptr_t)c) != 0) {
			close(c);
			continue;
		}
		pthread_detach(t);
	}
}

/* ---- client --------------------------------------------------------------------------- */

static int dial(bool *smc)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(opt.port) };
	int proto = 0, one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);
	socklen_t len = sizeof(proto);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return -1;
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	*smc = getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) == 0 &&
	       proto == IPPROTO_SMC_VALUE;
	atomic_fetch_add(*smc ? &n_smc : &n_tcp, 1);
	return fd;
}

static int request(int fd, uint32_t size, uint32_t reply, char *buf)
{
	struct hdr h = { htonl(size), htonl(reply) };

	if (full_write(fd, &h, sizeof(h)) < 0)
		return -1;
	for (uint32_t left = size; left;) {
		uint32_t n = left < MIB ? left : MIB;

		if (full_write(fd, buf, n) < 0)
			return -1;
		left -= n;
	}
	for (uint32_t left = reply; left;) {
		uint32_t n = left < MIB ? left : MIB;

		if (full_read(fd, buf, n) < 0)
			return -1;
		left -= n;
	}
	return 0;
}

static bool churning(void)
{
	return opt.shape == SHAPE_CHURN || exists(opt.churn_after);
}

static void *client_conn(void *arg)
{
	char *buf = calloc(1, MIB);
	double next = now_s(), opened = 0;
	bool smc = false;
	int fd = -1;

	(void)arg;
	while (buf && !atomic_load(&stop)) {
		bool churn = churning();
		uint32_t size = opt.shape == SHAPE_BULK && !churn ? MIB : opt.size;
		uint32_t reply = opt.shape == SHAPE_BULK && !churn ? 1 : opt.reply;

		if (fd >= 0 && opt.reconnect > 0 && now_s() - opened >= opt.reconnect) {
			close(fd);
			fd = -1;
		}
		if (fd < 0) {
			fd = dial(&smc);
			if (fd < 0) {
				atomic_fetch_add(&n_errors, 1);
				sleep_s(0.1);
				continue;
			}
			opened = now_s();
		}
		if (request(fd, size, reply, buf) < 0) {
			atomic_fetch_add(&n_errors, 1);
			close(fd);
			fd = -1;
			continue;
		}
		atomic_fetch_add(&n_requests, 1);
		atomic_fetch_add(&n_bytes, (uint64_t)size + reply);
		if (churn) {
			close(fd);
			fd = -1;
		}
		if (smc && opt.slow_ms)
			sleep_s(opt.slow_ms / 1000.0);
		if (opt.rate > 0) {
			double t = now_s();

			/* behind (a slow carrier): no burst to catch up, the rate stays the rate */
			next += 1.0 / opt.rate;
			if (next < t - 1.0 / opt.rate)
				next = t;
			sleep_s(next - t);
		}
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

static int client(void)
{
	pthread_t t[MAX_CONNS];
	double start = now_s(), last = start;
	uint64_t req0 = 0, bytes0 = 0;
	unsigned n = opt.shape == SHAPE_CHURN ? 1 : opt.conns;

	for (unsigned i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, client_conn, NULL) != 0) {
			fprintf(stderr, "smc-load: cannot start a thread\n");
			return 1;
		}
	for (;;) {
		double now;

		sleep_s(1.0 - (now_s() - last));
		now = now_s();
		printf("{\"t\":%.1f,\"requests\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"smc\":%" PRIu64
		       ",\"tcp\":%" PRIu64 ",\"churn\":%s}\n",
		       now - start, (uint64_t)atomic_load(&n_requests) - req0,
		       (uint64_t)atomic_load(&n_bytes) - bytes0, (uint64_t)atomic_load(&n_smc),
		       (uint64_t)atomic_load(&n_tcp), churning() ? "true" : "false");
		fflush(stdout);
		req0 = atomic_load(&n_requests);
		bytes0 = atomic_load(&n_bytes);
		last = now;
		if (opt.until ? exists(opt.until) : now - start >= opt.seconds)
			break;
	}
	atomic_store(&stop, true);
	for (unsigned i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	{
		double s = now_s() - start;
		uint64_t r = atomic_load(&n_requests), b = atomic_load(&n_bytes);

		printf("{\"summary\":true,\"seconds\":%.3f,\"requests\":%" PRIu64
		       ",\"bytes\":%" PRIu64 ",\"req_per_s\":%.1f,\"mib_per_s\":%.2f,\"smc\":%" PRIu64
		       ",\"tcp\":%" PRIu64 ",\"errors\":%" PRIu64 "}\n",
		       s, r, b, (double)r / s, (double)b / s / MIB, (uint64_t)atomic_load(&n_smc),
		       (uint64_t)atomic_load(&n_tcp), (uint64_t)atomic_load(&n_errors));
	}
	return atomic_load(&n_errors) && !atomic_load(&n_requests) ? 1 : 0;
}

static void usage(FILE *f)
{
	fputs("usage: smc-load serve  --port N\n"
	      "       smc-load client --port N --shape rr|bulk|churn [--conns C] [--size B]\n"
	      "                       [--reply B] [--rate R] [--seconds T | --until FILE]\n"
	      "                       [--churn-after FILE] [--slow-on-smc MS] [--reconnect S]\n",
	      f);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "shape", required_argument, NULL, 's' },
		{ "conns", required_argument, NULL, 'c' },
		{ "size", required_argument, NULL, 'b' },
		{ "reply", required_argument, NULL, 'r' },
		{ "rate", required_argument, NULL, 'R' },
		{ "seconds", required_argument, NULL, 'T' },
		{ "until", required_argument, NULL, 'U' },
		{ "churn-after", required_argument, NULL, 'C' },
		{ "slow-on-smc", required_argument, NULL, 'S' },
		{ "reconnect", required_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	const char *verb;
	int c;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	verb = argv[1];
	optind = 2;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			opt.port = (uint16_t)strtoul(optarg, NULL, 10);
			break;
		case 's':
			if (!strcmp(optarg, "rr"))
				opt.shape = SHAPE_RR;
			else if (!strcmp(optarg, "bulk"))
				opt.shape = SHAPE_BULK;
			else if (!strcmp(optarg, "churn"))
				opt.shape = SHAPE_CHURN;
			else {
				fprintf(stderr, "smc-load: unknown shape %s\n", optarg);
				return 2;
			}
			break;
		case 'c':
			opt.conns = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'b':
			opt.size = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'r':
			opt.reply = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'R':
			opt.rate = strtod(optarg, NULL);
			break;
		case 'T':
			opt.seconds = strtod(optarg, NULL);
			break;
		case 'U':
			opt.until = optarg;
			break;
		case 'C':
			opt.churn_after = optarg;
			break;
		case 'O':
			opt.reconnect = strtod(optarg, NULL);
			break;
		case 'S':
			opt.slow_ms = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	if (!opt.port || !opt.conns || opt.conns > MAX_CONNS || opt.size > 64u * MIB ||
	    opt.reply > 64u * MIB) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(verb, "serve"))
		return serve();
	if (!strcmp(verb, "client"))
		return client();
	usage(stderr);
	return 2;
}
