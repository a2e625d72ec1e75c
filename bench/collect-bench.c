// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * collect-bench: what one statistics collection of smcd-agent costs, against the raw
 * netlink dumps it is made of, on the running kernel (bench/README.md).
 *
 *   collect-bench [--iterations N] [--config FILE] [--label TEXT] [--smc-tools DIR]
 *
 * Three modes, run in turn in every iteration so that they share the conditions:
 *   raw      the libsmcnl calls one collection makes, results thrown away: devices (SMC-D,
 *            SMC-R), link groups (SMC-D, SMC-R with links), GET_STATS, GET_FBACK_STATS and
 *            the socket dump (smc_diag without extensions)
 *   collect  a statistics poll of the agent (manager_poll(MANAGER_POLL_STATS), what its
 *            stats timer does), objects not fresh: the same dumps through its kernel table,
 *            the model of the objects, link-group tracking, the engine, the Prometheus text
 *            and its atomic write (the agent is not on a bus here, so no signal is sent)
 *   tick     all the agent does per interval when stats.interval equals monitor.interval
 *            (the default): its monitor timer's manager_poll(MANAGER_POLL_OBJECTS |
 *            MANAGER_POLL_STATS), one read of the objects for both
 *   prom     the Prometheus write alone (collector_export(): the text rendered from the
 *            engine and the objects, its atomic write), part of collect and tick
 *   probe    for comparison, the same tick with the capability probe the monitor timer made
 *            before (manager_refresh_objects(), then a statistics poll that reuses the fresh
 *            objects): it dumps every socket a second time
 *   smctools (with --smc-tools DIR, smc-tools' binaries built for comparison): the commands
 *            that show the same, each a process of its own, output to /dev/null:
 *            "smcd stats", "smcd device", "smcd linkgroup", "smcss -a"
 * One JSON line: minimum, median and 90th percentile in milliseconds per mode, and the
 * ratios of the medians and of the minimums.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <spawn.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/macro.h"
#include "smcd-agent/collector.h"
#include "smcd-agent/manager.h"

enum { RAW, COLLECT, TICK, PROM, PROBE, SMCTOOLS, _MODES };
static const char *const mode_names[_MODES] = { "raw",	      "collect",	 "tick",
						"prom_write", "tick_with_probe", "smctools" };

extern char **environ;

/* smc-tools' commands for the same information, one process each; -errno or exit status. */
static int smc_tools(const char *dir)
{
	static const char *const cmds[][3] = {
		{ "smcd", "stats", NULL },
		{ "smcd", "device", NULL },
		{ "smcd", "linkgroup", NULL },
		{ "smcss", "-a", NULL },
	};

	for (size_t i = 0; i < ELEMENTSOF(cmds); i++) {
		posix_spawn_file_actions_t fa;
		char path[4096];
		pid_t pid;
		int st, r;

		snprintf(path, sizeof(path), "%s/%s", dir, cmds[i][0]);
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
		r = posix_spawn(&pid, path, &fa, NULL, (char *const *)cmds[i], environ);
		posix_spawn_file_actions_destroy(&fa);
		if (r)
			return -r;
		if (waitpid(pid, &st, 0) < 0)
			return -errno;
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	}
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int raw_dumps(struct smcnl *nl, size_t *ret_socks)
{
	struct smcd_device *dd = NULL;
	struct smcr_device *rd = NULL;
	struct smcd_linkgroup *dl = NULL;
	struct smcr_linkgroup *rl = NULL;
	struct smc_socket *socks = NULL;
	struct smc_stats s;
	struct smc_fback_stats *f = calloc(1, sizeof(*f));
	size_t n1, n2, n3, n4 = 0, n5 = 0;
	int r = f ? 0 : -ENOMEM;

	if (r >= 0)
		r = smcd_device_list(nl, &dd, &n1);
	if (r >= 0)
		r = smcr_device_list(nl, &rd, &n2);
	if (r >= 0)
		r = smcd_linkgroup_list(nl, &dl, &n3);
	if (r >= 0)
		r = smcr_linkgroup_list(nl, true, &rl, &n4);
	if (r >= 0)
		r = smc_stats_get(nl, &s);
	if (r >= 0)
		r = smc_fback_stats_get(nl, f);
	if (r >= 0)
		r = smc_socket_list(nl, 0, &socks, &n5);
	*ret_socks = n5;
	free(dd);
	free(rd);
	free(dl);
	smcr_linkgroup_list_free(rl, n4);
	free(socks);
	free(f);
	return r;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double quantile(double *v, size_t n, double q)
{
	size_t i = (size_t)(q * (double)(n - 1) + 0.5);

	qsort(v, n, sizeof(*v), cmp_double);
	return v[i < n ? i : n - 1];
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "iterations", required_argument, NULL, 'n' },
		{ "config", required_argument, NULL, 'c' },
		{ "label", required_argument, NULL, 'l' },
		{ "smc-tools", required_argument, NULL, 's' },
		{},
	};
	const char *config = "/etc/smc/smc.yaml", *label = "", *tools = NULL;
	struct manager *m = NULL;
	struct kernel *k = NULL;
	struct smcnl *nl = NULL;
	unsigned n = 20;
	double *t[_MODES], med[_MODES], p90[_MODES], min[_MODES];
	size_t socks = 0;
	struct stat st;
	int c, r;

	while ((c = getopt_long(argc, argv, "n:c:l:", options, NULL)) >= 0) {
		switch (c) {
		case 'n':
			n = (unsigned)atoi(optarg);
			break;
		case 'c':
			config = optarg;
			break;
		case 'l':
			label = optarg;
			break;
		case 's':
			tools = optarg;
			break;
		default:
			fprintf(stderr,
				"usage: collect-bench [--iterations N] [--config FILE] [--label TEXT] [--smc-tools DIR]\n");
			return 2;
		}
	}
	if (n < 1 || n > 10000)
		return 2;
	r = smcnl_open(&(struct smcnl_options){}, &nl);
	if (r >= 0)
		r = kernel_smcnl_new(NULL, &k);
	if (r >= 0)
		r = manager_new(config, k, &m);
	if (r >= 0)
		r = manager_load_config(m);
	if (r >= 0)
		r = collector_new(m->config->stats.linkgroup_series, &m->collector);
	if (r >= 0)
		(void)collector_configure(
			m->collector, m->config->stats.interval_usec,
			m->config->stats.linkgroup_series,
			m->config->stats.prometheus ? m->config->stats.prometheus_path : NULL);
	if (r < 0) {
		fprintf(stderr, "collect-bench: setup failed: %s\n", strerror(-r));
		return 1;
	}
	for (size_t i = 0; i < _MODES; i++)
		t[i] = calloc(n, sizeof(double));
	/* One round to warm up: families resolved, sockets open, state file written. */
	(void)raw_dumps(nl, &socks);
	(void)manager_refresh_objects(m, NULL);
	(void)manager_poll(m, MANAGER_POLL_STATS, NULL);
	for (unsigned i = 0; i < n; i++) {
		double t0 = now_ms();

		r = raw_dumps(nl, &socks);
		if (r < 0) {
			fprintf(stderr, "collect-bench: a dump failed: %s\n", strerror(-r));
			return 1;
		}
		t[RAW][i] = now_ms() - t0;
		/* Not fresh: the statistics poll dumps devices and link groups itself. */
		m->objects.read_mono_usec = 0;
		t0 = now_ms();
		(void)manager_poll(m, MANAGER_POLL_STATS, NULL);
		t[COLLECT][i] = now_ms() - t0;
		t0 = now_ms();
		(void)manager_poll(m, MANAGER_POLL_OBJECTS | MANAGER_POLL_STATS, NULL);
		t[TICK][i] = now_ms() - t0;
		t0 = now_ms();
		(void)collector_export(m->collector, &m->objects);
		t[PROM][i] = now_ms() - t0;
		t0 = now_ms();
		(void)manager_refresh_objects(m, NULL);
		(void)manager_poll(m, MANAGER_POLL_STATS, NULL);
		t[PROBE][i] = now_ms() - t0;
		if (!tools)
			continue;
		t0 = now_ms();
		r = smc_tools(tools);
		if (r) {
			fprintf(stderr, "collect-bench: smc-tools failed: %d\n", r);
			tools = NULL;
			continue;
		}
		t[SMCTOOLS][i] = now_ms() - t0;
	}
	for (size_t i = 0; i < _MODES; i++) {
		p90[i] = quantile(t[i], n, 0.9);
		med[i] = quantile(t[i], n, 0.5);
		min[i] = quantile(t[i], n, 0.0);
	}
	printf("{\"label\":\"%s\",\"iterations\":%u,\"sockets\":%zu,\"linkgroups\":%zu,", label, n,
	       socks, m->objects.n_linkgroups);
	for (size_t i = 0; i < _MODES; i++)
		if (i != SMCTOOLS || tools)
			printf("\"%s_ms\":{\"min\":%.3f,\"median\":%.3f,\"p90\":%.3f},",
			       mode_names[i], min[i], med[i], p90[i]);
	if (tools)
		printf("\"smctools_over_collect\":%.2f,", med[SMCTOOLS] / med[COLLECT]);
	/* Ratios of the medians, and of the minimums (least disturbed by other guests). */
	printf("\"collect_over_raw\":%.2f,\"tick_over_raw\":%.2f,\"collect_over_raw_min\":%.2f,"
	       "\"tick_over_raw_min\":%.2f,\"prom_bytes\":%lld}\n",
	       med[COLLECT] / med[RAW], med[TICK] / med[RAW], min[COLLECT] / min[RAW],
	       min[TICK] / min[RAW],
	       m->collector->prom_path && stat(m->collector->prom_path, &st) == 0
		       ? (long long)st.st_size
		       : -1LL);
	for (size_t i = 0; i < _MODES; i++)
		free(t[i]);
	smcnl_close(nl);
	manager_free(m);
	return 0;
}
