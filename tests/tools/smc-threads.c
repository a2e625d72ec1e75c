// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smc-threads: an ordinary TCP program (it asks for socket(AF_INET, SOCK_STREAM, 0) and
 * nothing else) that does what broke smc_run.bpf and smc_run, for the VM tests of
 * "smcctl run" (tests/vm/guest/run-*.sh):
 *
 *   smc-threads threads [--threads N]   N threads call socket() at the same instant, then
 *                                       exit; afterwards the main thread opens another
 *                                       socket (smc_run.bpf deleted the whole process's
 *                                       entry when any thread exited), and a child forked
 *                                       by a worker thread opens one (smc_run.bpf keyed
 *                                       inheritance on the thread id)
 *   smc-threads chain [--depth N]       a fork chain N deep; the last process opens one
 *
 * One JSON line per socket: {"who": ..., "proto": "smc"|"afsmc"|"tcp"|"error"}, then a
 * summary {"summary": true, "smc": N, "afsmc": N, "tcp": N, "error": N}.  proto is what the
 * kernel says (SO_DOMAIN, SO_PROTOCOL), so it reports what BPF or LD_PRELOAD made of it.
 * Exit status 0 when every socket was created, 1 otherwise, 2 on usage errors.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/smc-socket.h"

static pthread_barrier_t barrier;

static int sockopt(int fd, int opt)
{
	int v = -1;
	socklen_t len = sizeof(v);

	return getsockopt(fd, SOL_SOCKET, opt, &v, &len) < 0 ? -1 : v;
}

/* SO_SNDBUF/SO_RCVBUF of the last socket this thread opened (smcctl run --sndbuf). */
static __thread int last_sndbuf, last_rcvbuf;

/* Open a TCP stream socket the ordinary way and say what the kernel made of it. */
static const char *open_and_classify(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	const char *proto;

	if (fd < 0)
		return "error";
	last_sndbuf = sockopt(fd, SO_SNDBUF);
	last_rcvbuf = sockopt(fd, SO_RCVBUF);
	if (sockopt(fd, SO_DOMAIN) == AF_SMC)
		proto = "afsmc";
	else if (sockopt(fd, SO_PROTOCOL) == 256)
		proto = "smc";
	else if (sockopt(fd, SO_PROTOCOL) == 6)
		proto = "tcp";
	else
		proto = "error";
	close(fd);
	return proto;
}

/* Lines are written with one write() so that threads and processes do not interleave. */
static void report(const char *who, const char *proto)
{
	char line[200];
	int n = snprintf(line, sizeof(line),
			 "{\"who\":\"%s\",\"proto\":\"%s\",\"sndbuf\":%d,\"rcvbuf\":%d}\n", who,
			 proto, last_sndbuf, last_rcvbuf);

	if (write(STDOUT_FILENO, line, (size_t)n) < 0)
		_exit(3);
}

struct counts {
	int smc, afsmc, tcp, error;
};

static void count(struct counts *c, const char *proto)
{
	if (!strcmp(proto, "smc"))
		c->smc++;
	else if (!strcmp(proto, "afsmc"))
		c->afsmc++;
	else if (!strcmp(proto, "tcp"))
		c->tcp++;
	else
		c->error++;
}

/* A child reports through its exit status: 10 smc, 11 afsmc, 12 tcp, 13 error. */
static int proto_code(const char *p)
{
	return !strcmp(p, "smc") ? 10 : !strcmp(p, "afsmc") ? 11 : !strcmp(p, "tcp") ? 12 : 13;
}

static const char *code_proto(int status)
{
	if (!WIFEXITED(status))
		return "error";
	switch (WEXITSTATUS(status)) {
	case 10:
		return "smc";
	case 11:
		return "afsmc";
	case 12:
		return "tcp";
	default:
		return "error";
	}
}

struct worker {
	int index;
	const char *proto;
	const char *child_proto; /* worker 0 forks a child */
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	pthread_barrier_wait(&barrier);
	w->proto = open_and_classify();
	if (w->index == 0) {
		pid_t pid = fork();
		int status = 0;

		if (pid == 0) {
			const char *p = open_and_classify();

			report("child-of-thread", p);
			_exit(proto_code(p));
		}
		w->child_proto =
			pid < 0 || waitpid(pid, &status, 0) < 0 ? "error" : code_proto(status);
	}
	return NULL;
}

static int summary(const struct counts *c)
{
	printf("{\"summary\":true,\"smc\":%d,\"afsmc\":%d,\"tcp\":%d,\"error\":%d}\n", c->smc,
	       c->afsmc, c->tcp, c->error);
	fflush(stdout);
	return c->error ? 1 : 0;
}

static int cmd_threads(int n)
{
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	struct worker *w = calloc((size_t)n, sizeof(*w));
	struct counts c = {};
	char who[32];

	if (!t || !w || pthread_barrier_init(&barrier, NULL, (unsigned)n) != 0)
		return 1;
	for (int i = 0; i < n; i++) {
		w[i].index = i;
		if (pthread_create(&t[i], NULL, worker_main, &w[i]) != 0)
			return 1;
	}
	/* Every worker thread exits here. */
	for (int i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		snprintf(who, sizeof(who), "thread-%d", i);
		report(who, w[i].proto);
		count(&c, w[i].proto);
	}
	count(&c, w[0].child_proto);
	/* After all threads are gone the process is still enrolled. */
	{
		const char *p = open_and_classify();

		report("main-after-threads", p);
		count(&c, p);
	}
	free(t);
	free(w);
	return summary(&c);
}

static int cmd_chain(int depth)
{
	struct counts c = {};
	int status = 0;
	pid_t pid;

	for (int level = 1; level <= depth; level++) {
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid > 0) {
			/* Each level waits for its child and passes its status up. */
			if (waitpid(pid, &status, 0) < 0)
				_exit(13);
			if (level > 1)
				_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 13);
			break;
		}
		if (level == depth) {
			char who[32];
			const char *p = open_and_classify();

			snprintf(who, sizeof(who), "chain-depth-%d", depth);
			report(who, p);
			_exit(proto_code(p));
		}
	}
	count(&c, code_proto(status));
	return summary(&c);
}

int main(int argc, char **argv)
{
	int n = 8;

	if (argc >= 4 && (!strcmp(argv[2], "--threads") || !strcmp(argv[2], "--depth")))
		n = atoi(argv[3]);
	if (argc < 2 || n < 1 || n > 1024) {
		fprintf(stderr, "usage: smc-threads threads [--threads N] | chain [--depth N]\n");
		return 2;
	}
	if (!strcmp(argv[1], "threads"))
		return cmd_threads(n);
	if (!strcmp(argv[1], "chain"))
		return cmd_chain(n);
	fprintf(stderr, "usage: smc-threads threads [--threads N] | chain [--depth N]\n");
	return 2;
}
