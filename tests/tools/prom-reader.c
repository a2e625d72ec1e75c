// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * prom-reader: read a Prometheus textfile in a tight loop, as node_exporter could at any
 * moment, and check that every read is a whole file: not empty, ending in a newline, every
 * HELP followed by its TYPE, every sample line "name[{labels}] value", and the last family
 * the writer always writes last (smc_stats_timestamp_seconds).  A partial file (a writer
 * that truncates and rewrites in place) fails this within a few writes.
 *
 *   prom-reader FILE SECONDS [PAUSE_MS]
 *
 * PAUSE_MS (default 0: a tight loop) pauses between reads, so that a reader running for
 * minutes beside other load (tests/vm/guest/kmod-soak.sh) does not take a whole CPU;
 * SIGTERM or SIGINT end the loop early, with the summary.
 * Prints one JSON line {"reads":N,"versions":V,"bad":B,"first_bad":"..."}: versions counts
 * the distinct (inode, mtime) seen: each atomic rename is a new file (whose inode number
 * the file system may reuse, hence the mtime).  Exit 0 when no read was bad
 * and the file changed at least once, 1 otherwise, 2 on usage errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIZE (4 * 1024 * 1024)
#define LAST_FAMILY "smc_stats_timestamp_seconds"
#define MAX_INODES 4096

static char buf[MAX_SIZE + 1];
static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* NULL when the text is a whole file, else what is wrong. */
static const char *check(const char *text, size_t len)
{
	const char *p = text, *last_sample = NULL;
	char want_type[256] = "";

	if (len == 0)
		return "empty";
	if (text[len - 1] != '\n')
		return "no newline at the end";
	if (strncmp(text, "# HELP ", 7) != 0)
		return "does not start with # HELP";
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = (size_t)(nl - p);

		if (want_type[0]) {
			if (strncmp(p, "# TYPE ", 7) != 0 ||
			    strncmp(p + 7, want_type, strlen(want_type)) != 0)
				return "# HELP without its # TYPE";
			want_type[0] = '\0';
		} else if (strncmp(p, "# HELP ", 7) == 0) {
			size_t k = strcspn(p + 7, " \n");

			if (k >= sizeof(want_type))
				return "a metric name too long";
			memcpy(want_type, p + 7, k);
			want_type[k] = '\0';
		} else if (p[0] != '#') {
			const char *sp = memchr(p, ' ', n);
			char *end;

			if (!sp || sp == p)
				return "a sample line without a value";
			errno = 0;
			(void)strtod(sp + 1, &end);
			if (errno || end != nl)
				return "a sample value that does not parse";
			last_sample = p;
		}
		p = nl + 1;
	}
	if (want_type[0])
		return "ends after a # HELP";
	if (!last_sample || strncmp(last_sample, LAST_FAMILY " ", strlen(LAST_FAMILY) + 1) != 0)
		return "does not end with " LAST_FAMILY;
	return NULL;
}

int main(int argc, char **argv)
{
	static struct {
		ino_t ino;
		struct timespec mtime;
	} inodes[MAX_INODES];
	size_t n_inodes = 0;
	unsigned long reads = 0, bad = 0;
	const char *first_bad = NULL;
	struct sigaction sa = { .sa_handler = on_term };
	struct timespec pause = { 0 };
	double until;

	if (argc < 3 || argc > 4 || atof(argv[2]) <= 0 || (argc == 4 && atol(argv[3]) < 0)) {
		fprintf(stderr, "usage: prom-reader FILE SECONDS [PAUSE_MS]\n");
		return 2;
	}
	if (argc == 4) {
		pause.tv_sec = atol(argv[3]) / 1000;
		pause.tv_nsec = atol(argv[3]) % 1000 * 1000000L;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	until = now() + atof(argv[2]);
	while (now() < until && !stop) {
		int fd;
		size_t len = 0;
		ssize_t r = 0;
		struct stat st;
		const char *why;
		bool known = false;

		if (pause.tv_sec || pause.tv_nsec)
			nanosleep(&pause, NULL);
		fd = open(argv[1], O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			/* Before the first write; after it, the name always exists (rename). */
			if (errno == ENOENT && n_inodes == 0)
				continue;
			why = "the file vanished";
			goto bad;
		}
		while (len < MAX_SIZE && (r = read(fd, buf + len, MAX_SIZE - len)) > 0)
			len += (size_t)r;
		if (fstat(fd, &st) == 0)
			for (size_t i = 0; i < n_inodes; i++)
				known |= inodes[i].ino == st.st_ino &&
					 inodes[i].mtime.tv_sec == st.st_mtim.tv_sec &&
					 inodes[i].mtime.tv_nsec == st.st_mtim.tv_nsec;
		if (!known && n_inodes < MAX_INODES) {
			inodes[n_inodes].ino = st.st_ino;
			inodes[n_inodes++].mtime = st.st_mtim;
		}
		close(fd);
		reads++;
		buf[len] = '\0';
		why = r < 0 ? "read failed" : check(buf, len);
		if (!why)
			continue;
	bad:
		bad++;
		if (!first_bad)
			first_bad = why;
	}
	printf("{\"reads\":%lu,\"versions\":%zu,\"bad\":%lu,\"first_bad\":%s%s%s}\n", reads, n_inodes,
	       bad, first_bad ? "\"" : "", first_bad ? first_bad : "null", first_bad ? "\"" : "");
	return bad == 0 && n_inodes >= 2 ? 0 : 1;
}
