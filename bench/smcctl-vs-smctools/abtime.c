// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * abtime: whole-process time of two commands, interleaved, in one go.
 *
 *   abtime [--runs N] [--warmup N] [--label L] [--any-status] -- CMD_A [ARGS...] --vs CMD_B [ARGS...]
 *
 * Runs A and B N times each in ABBA order (A B, then B A, ...: a drift of the machine
 * weighs on both alike), after --warmup unmeasured runs of each (page cache, dentries).
 * Each run is fork + execvp + wait4 with stdout and stderr on /dev/null, timed with
 * CLOCK_MONOTONIC from before fork() to after wait4(): what a user waits for.  A run that
 * does not exit 0 is an error (the comparison would be void), unless --any-status (smc-tools'
 * "smcd -v" exits 255).  Prints one JSON line:
 *   {"label":L,"runs":N,"a":{"median_us":..,"min_us":..,"p10_us":..,"p90_us":..,"max_us":..},
 *    "b":{...},"ratio_median":A/B,"ratio_min":A/B}
 * (bench/smcctl-vs-smctools/README.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUNS_MAX 1000

static int any_status;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static double run_once(char **argv)
{
	double t0 = now_us(), t1;
	int status = 0;
	pid_t pid = fork();

	if (pid < 0) {
		perror("abtime: fork");
		exit(1);
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("abtime: waitpid");
			exit(1);
		}
	t1 = now_us();
	if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0 && !any_status)) {
		fprintf(stderr, "abtime: %s exited with status 0x%x\n", argv[0], status);
		exit(1);
	}
	return t1 - t0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted array. */
static double pct(const double *v, int n, int p)
{
	int k = (p * n + 99) / 100;

	return v[k < 1 ? 0 : k - 1];
}

static double median(const double *v, int n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void print_stats(const char *name, double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	printf("\"%s\":{\"median_us\":%.1f,\"min_us\":%.1f,\"p10_us\":%.1f,\"p90_us\":%.1f,"
	       "\"max_us\":%.1f}",
	       name, median(v, n), v[0], pct(v, n, 10), pct(v, n, 90), v[n - 1]);
}

int main(int argc, char **argv)
{
	static double a[RUNS_MAX], b[RUNS_MAX];
	const char *label = "";
	char **cmd_a = NULL, **cmd_b = NULL;
	int runs = 20, warmup = 2, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--warmup") && i + 1 < argc)
			warmup = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--label") && i + 1 < argc)
			label = argv[++i];
		else if (!strcmp(argv[i], "--any-status"))
			any_status = 1;
		else if (!strcmp(argv[i], "--")) {
			cmd_a = &argv[i + 1];
			break;
		} else
			break;
	}
	for (; cmd_a && i < argc; i++)
		if (!strcmp(argv[i], "--vs")) {
			argv[i] = NULL;
			cmd_b = &argv[i + 1];
			break;
		}
	if (!cmd_a || !cmd_a[0] || !cmd_b || !cmd_b[0] || runs < 1 || runs > RUNS_MAX || warmup < 0) {
		fputs("usage: abtime [--runs N] [--warmup N] [--label L] [--any-status] -- CMD_A... "
		      "--vs CMD_B...\n",
		      stderr);
		return 2;
	}
	for (i = 0; i < warmup; i++) {
		run_once(cmd_a);
		run_once(cmd_b);
	}
	for (i = 0; i < runs; i++) {
		if (i % 2 == 0) {
			a[i] = run_once(cmd_a);
			b[i] = run_once(cmd_b);
		} else {
			b[i] = run_once(cmd_b);
			a[i] = run_once(cmd_a);
		}
	}
	printf("{\"label\":\"%s\",\"runs\":%d,", label, runs);
	print_stats("a", a, runs);
	putchar(',');
	print_stats("b", b, runs);
	/* print_stats sorted both arrays */
	printf(",\"ratio_median\":%.3f,\"ratio_min\":%.3f}\n", median(a, runs) / median(b, runs),
	       a[0] / b[0]);
	return fflush(stdout) ? 1 : 0;
}
