// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * collect-bench: what one statistics collection of smcd-agent costs, against the raw
 * netlink dumps it is made of, on the running kernel (bench/README.md).
 *
 *   collect-bench [--iterations N] [--config FILE] [--label TEXT] [--smc-tools DIR] [--bus]
 *   collect-bench --fake-kernel DIR [--iterations N] [--config FILE]   (host profiling)
 *
 * Modes, run in turn in every iteration so that they share the conditions:
 *   raw      the libsmcnl calls one collection makes, results thrown away: in the agent's
 *            namespace devices (SMC-D, SMC-R), link groups (SMC-D, SMC-R with links),
 *            smc_lo's device where the module is loaded (the agent publishes it),
 *            GET_STATS, GET_FBACK_STATS and the socket dump (smc_diag without extensions,
 *            each socket dropped as it is parsed); in every other namespace the agent samples
 *            (stats.netns) GET_STATS, GET_FBACK_STATS and the socket dump, through a handle
 *            opened once, as the agent keeps one
 *   collect  a statistics poll of the agent (manager_poll(MANAGER_POLL_STATS), what its
 *            stats timer does), objects not fresh: the same dumps through its kernel table,
 *            the model of the objects, link-group tracking, the engine, the other
 *            namespaces, the Prometheus text and its write
 *   tick     all the agent does per interval when stats.interval equals monitor.interval
 *            (the default): its monitor timer's manager_poll(MANAGER_POLL_OBJECTS |
 *            MANAGER_POLL_STATS), one read of the objects for both
 *   prom_write          the Prometheus write alone, as a tick makes it (collector_export():
 *                       the text, families that did not change copied, and its atomic
 *                       replacement without fsync)
 *   prom_render         its text alone
 *   prom_fresh          the write with nothing to copy (the cache emptied first: every family
 *                       formatted, as when every counter moved)
 *   prom_write_durable  the text and the replacement the agent made before, with fsync of
 *                       the file and of its directory (textfile_write_atomic())
 *   probe    for comparison, the same tick with the capability probe the monitor timer made
 *            before (manager_refresh_objects(), then a statistics poll that reuses the fresh
 *            objects): it dumps every socket a second time
 *   emit     (--bus) the PropertiesChanged signal a poll sends when the counters moved
 *            (Counters, CountersSinceReset, Rates, Gauges of the Statistics interface):
 *            made and written to the bus, the agent's side
 *   signal   (--bus) from the start of a tick to that signal's arrival at another client of
 *            the bus (the tick, the emission, dbus-daemon's routing, the client woken)
 *   smctools (with --smc-tools DIR, smc-tools' binaries built for comparison): the commands
 *            that show the same, each a process of its own, output to /dev/null:
 *            "smcd stats", "smcd device", "smcd linkgroup", "smcss -a"
 * With --bus the agent's objects are on the system bus under the connection's unique name
 * (the running agent keeps the well-known one).  One JSON line: minimum, median and 90th
 * percentile in milliseconds per mode, the ratios of the medians and of the minimums, the
 * sockets of every namespace and how many are SMC-D by the agent's count.
 *
 * --fake-kernel DIR runs the agent's modes on the fake kernel of kernel-fake.c (no raw, no
 * smc-tools), so that valgrind --tool=callgrind counts the instructions of the agent's own
 * code on a host without SMC (bench/README.md says how).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "common/bus-api.h"
#include "common/macro.h"
#include "common/util.h"
#include "smcd-agent/collector.h"
#include "netlink/smclo.h"
#include "smcd-agent/bus-manager.h"
#include "smcd-agent/manager.h"

enum {
	RAW,
	COLLECT,
	TICK,
	PROM,
	PROM_RENDER,
	PROM_FRESH,
	PROM_DURABLE,
	PROBE,
	EMIT,
	SIGNAL,
	SMCTOOLS,
	_MODES
};
static const char *const mode_names[_MODES] = {
	"raw",
	"collect",
	"tick",
	"prom_write",
	"prom_render",
	"prom_fresh",
	"prom_write_durable",
	"tick_with_probe",
	"emit",
	"signal",
	"smctools",
};

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

/* A socket of the raw dump: counted, nothing else. */
static int count_socket(const struct smc_socket *s, void *userdata)
{
	(*(size_t *)userdata)++;
	return 0;
}

/* What the agent reads in another namespace: counters, reasons, sockets. */
static int raw_netns(struct smcnl *nl, size_t *socks)
{
	struct smc_fback_stats *f = calloc(1, sizeof(*f));
	struct smc_stats s;
	int r = f ? 0 : -ENOMEM;

	if (r >= 0)
		r = smc_stats_get(nl, &s);
	if (r >= 0)
		r = smc_fback_stats_get(nl, f);
	if (r >= 0)
		r = smc_socket_foreach(nl, 0, count_socket, socks);
	free(f);
	return r;
}

static int raw_dumps(struct smcnl *nl, bool smclo, struct smcnl **ns, size_t n_ns, size_t *ret_socks)
{
	struct smcd_device *dd = NULL;
	struct smcr_device *rd = NULL;
	struct smcd_linkgroup *dl = NULL;
	struct smcr_linkgroup *rl = NULL;
	size_t n1, n2, n3, n4 = 0, socks = 0;
	int r;

	r = smcd_device_list(nl, &dd, &n1);
	if (r >= 0)
		r = smcr_device_list(nl, &rd, &n2);
	if (r >= 0)
		r = smcd_linkgroup_list(nl, &dl, &n3);
	if (r >= 0)
		r = smcr_linkgroup_list(nl, true, &rl, &n4);
	if (r >= 0 && smclo) {
		struct smclo_device d;

		r = smclo_get(nl, &d);
	}
	if (r >= 0)
		r = raw_netns(nl, &socks);
	for (size_t i = 0; r >= 0 && i < n_ns; i++)
		r = raw_netns(ns[i], &socks);
	*ret_socks = socks;
	free(dd);
	free(rd);
	free(dl);
	smcr_linkgroup_list_free(rl, n4);
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

/* ---- the bus ------------------------------------------------------------------------------ */

static int on_changed(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	const char *iface = NULL;

	if (sd_bus_message_read(msg, "s", &iface) >= 0 && streq(iface, SMCD_BUS_IFACE_STATS))
		*(bool *)userdata = true;
	return 0;
}

/* The agent's objects on the bus (no name), and a client listening to their signals. */
static int bus_attach(struct manager *m, sd_bus **ret_client, bool *flag)
{
	const char *unique = NULL;
	int r;

	r = sd_bus_open_system(&m->bus);
	if (r >= 0)
		r = bus_register_all(m);
	if (r >= 0)
		r = sd_bus_get_unique_name(m->bus, &unique);
	if (r >= 0)
		r = sd_bus_open_system(ret_client);
	/* Synchronous: the match is in place when it returns. */
	if (r >= 0)
		r = sd_bus_match_signal(*ret_client, NULL, unique, SMCD_BUS_PATH,
					DBUS_IFACE_PROPERTIES, DBUS_PROPERTIES_CHANGED, on_changed,
					flag);
	return r;
}

/* The signal a poll sends when the counters moved; written out. */
static int emit(struct manager *m)
{
	int r = manager_announce_stats(m, STATS_CHANGED_COUNTERS | STATS_CHANGED_RATES |
						  STATS_CHANGED_GAUGES);

	return r < 0 ? r : sd_bus_flush(m->bus);
}

static int wait_signal(sd_bus *client, bool *flag)
{
	double deadline = now_ms() + 10000;
	int r;

	while (!*flag) {
		r = sd_bus_process(client, NULL);
		if (r < 0)
			return r;
		if (r > 0)
			continue;
		if (now_ms() > deadline)
			return -ETIMEDOUT;
		r = sd_bus_wait(client, 1000000);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ------------------------------------------------------------------------------------------- */

/* The Prometheus text alone, as collector_export() makes it. */
static char *render(struct collector *c, const struct objects *o)
{
	struct prom_agent a = c->agent;

	a.netns = &c->netns;
	a.cache = &c->prom_cache;
	return prometheus_render_agent(c->engine, o, &c->fallback, &a);
}

static int __attribute__((noinline)) prom_fresh(struct collector *c, const struct objects *o)
{
	uint64_t hits = c->prom_cache.hits, misses = c->prom_cache.misses;

	prom_cache_clear(&c->prom_cache);
	c->prom_cache.hits = hits;
	c->prom_cache.misses = misses;
	return collector_export(c, o);
}

static int __attribute__((noinline)) prom_durable(struct collector *c, const struct objects *o)
{
	_cleanup_(freep) char *text = render(c, o);

	if (!text)
		return -ENOMEM;
	return textfile_write_atomic(c->prom_path, text, strlen(text), 0644, NULL);
}

/* Handles on the other namespaces the agent samples (after its first sample). */
static int open_netns(const struct collector *c, struct smcnl ***ret, size_t *ret_n)
{
	struct smcnl **v = calloc(c->netns.n + 1, sizeof(*v));
	int r;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < c->netns.n; i++) {
		r = smcnl_open_netns(&(struct smcnl_options){}, &c->netns.v[i].id, &v[i]);
		if (r < 0) {
			fprintf(stderr, "collect-bench: cannot open network namespace %s: %s\n",
				c->netns.v[i].id.name, strerror(-r));
			return r;
		}
	}
	*ret = v;
	*ret_n = c->netns.n;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "iterations", required_argument, NULL, 'n' },
		{ "config", required_argument, NULL, 'c' },
		{ "label", required_argument, NULL, 'l' },
		{ "smc-tools", required_argument, NULL, 's' },
		{ "fake-kernel", required_argument, NULL, 'f' },
		{ "bus", no_argument, NULL, 'b' },
		{},
	};
	const char *config = "/etc/smc/smc.yaml", *label = "", *tools = NULL, *fake = NULL;
	struct manager *m = NULL;
	struct kernel *k = NULL;
	struct smcnl *nl = NULL, **ns = NULL;
	sd_bus *client = NULL;
	bool on_bus = false, changed = false, smclo = false, done[_MODES] = {};
	unsigned n = 20;
	double *t[_MODES], med[_MODES], p90[_MODES], min[_MODES];
	size_t socks = 0, n_ns = 0;
	uint64_t smcd_socks;
	struct rusage ru = {};
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
		case 'f':
			fake = optarg;
			break;
		case 'b':
			on_bus = true;
			break;
		default:
			fprintf(stderr,
				"usage: collect-bench [--iterations N] [--config FILE] [--label TEXT] [--smc-tools DIR] [--bus] [--fake-kernel DIR]\n");
			return 2;
		}
	}
	if (n < 1 || n > 10000)
		return 2;
	if (fake)
		tools = NULL;
	r = smcnl_open(&(struct smcnl_options){}, &nl);
	if (r >= 0)
		r = fake ? kernel_fake_new(fake, &k) : kernel_smcnl_new(NULL, &k);
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
	if (r >= 0)
		/* As the manager does (configure_collector()). */
		r = collector_configure_netns(
			m->collector, m->config->stats.netns == CONFIG_NETNS_ALL,
			m->config->stats.netns_names,
			m->config->stats.netns == CONFIG_NETNS_LIST ? m->config->stats.n_netns_names
								    : 0,
			m->config->stats.netns_max);
	if (r >= 0 && on_bus)
		r = bus_attach(m, &client, &changed);
	if (r < 0) {
		fprintf(stderr, "collect-bench: setup failed: %s\n", strerror(-r));
		return 1;
	}
	if (!m->collector->prom_path) {
		fprintf(stderr, "collect-bench: %s has no stats.prometheus.path\n", config);
		return 1;
	}
	for (size_t i = 0; i < _MODES; i++)
		t[i] = calloc(n, sizeof(double));
	/* One round to warm up: families resolved, sockets open, state file written, the
	 * namespaces the agent samples known. */
	(void)manager_refresh_objects(m, NULL);
	(void)manager_poll(m, MANAGER_POLL_STATS, NULL);
	if (!fake) {
		/* The agent reads smc_lo's device at every poll where the module is loaded. */
		smclo = k->ops->module_loaded(k, "smc_lo") > 0;
		r = open_netns(m->collector, &ns, &n_ns);
		if (r >= 0)
			r = raw_dumps(nl, smclo, ns, n_ns, &socks);
		if (r < 0) {
			fprintf(stderr, "collect-bench: the raw dumps failed: %s\n", strerror(-r));
			return 1;
		}
	}
	for (unsigned i = 0; i < n; i++) {
		double t0 = now_ms();

		r = fake ? 0 : raw_dumps(nl, smclo, ns, n_ns, &socks);
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
		free(render(m->collector, &m->objects));
		t[PROM_RENDER][i] = now_ms() - t0;
		t0 = now_ms();
		(void)prom_fresh(m->collector, &m->objects);
		t[PROM_FRESH][i] = now_ms() - t0;
		t0 = now_ms();
		(void)prom_durable(m->collector, &m->objects);
		t[PROM_DURABLE][i] = now_ms() - t0;
		t0 = now_ms();
		(void)manager_refresh_objects(m, NULL);
		(void)manager_poll(m, MANAGER_POLL_STATS, NULL);
		t[PROBE][i] = now_ms() - t0;
		if (on_bus) {
			t0 = now_ms();
			r = emit(m);
			t[EMIT][i] = now_ms() - t0;
			if (r >= 0)
				r = wait_signal(client, &changed);
			changed = false;
			t0 = now_ms();
			(void)manager_poll(m, MANAGER_POLL_OBJECTS | MANAGER_POLL_STATS, NULL);
			if (r >= 0)
				r = emit(m);
			if (r >= 0)
				r = wait_signal(client, &changed);
			t[SIGNAL][i] = now_ms() - t0;
			changed = false;
			if (r < 0) {
				fprintf(stderr, "collect-bench: no signal on the bus: %s\n",
					strerror(-r));
				return 1;
			}
		}
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
		done[i] = (i != RAW || !fake) && ((i != EMIT && i != SIGNAL) || on_bus) &&
			  (i != SMCTOOLS || tools);
		p90[i] = quantile(t[i], n, 0.9);
		med[i] = quantile(t[i], n, 0.5);
		min[i] = quantile(t[i], n, 0.0);
	}
	smcd_socks = m->collector->engine->last.sockets[STATS_SOCK_SMCD];
	for (size_t i = 0; i < m->collector->netns.n; i++)
		smcd_socks += m->collector->netns.v[i].sample.sockets[STATS_SOCK_SMCD];
	printf("{\"label\":\"%s\",\"iterations\":%u,\"netns\":%zu,\"sockets\":%zu,"
	       "\"smcd_sockets\":%" PRIu64 ",\"linkgroups\":%zu,",
	       label, n, n_ns, socks, smcd_socks, m->objects.n_linkgroups);
	for (size_t i = 0; i < _MODES; i++)
		if (done[i])
			printf("\"%s_ms\":{\"min\":%.3f,\"median\":%.3f,\"p90\":%.3f},",
			       mode_names[i], min[i], med[i], p90[i]);
	if (tools)
		printf("\"smctools_over_collect\":%.2f,", med[SMCTOOLS] / med[COLLECT]);
	/* Ratios of the medians, and of the minimums (least disturbed by other guests). */
	if (!fake)
		printf("\"collect_over_raw\":%.2f,\"tick_over_raw\":%.2f,"
		       "\"collect_over_raw_min\":%.2f,\"tick_over_raw_min\":%.2f,",
		       med[COLLECT] / med[RAW], med[TICK] / med[RAW], min[COLLECT] / min[RAW],
		       min[TICK] / min[RAW]);
	/* This process's peak: the agent's code sampling, without the agent's BPF. */
	(void)getrusage(RUSAGE_SELF, &ru);
	printf("\"prom_cache_hits\":%" PRIu64 ",\"prom_cache_misses\":%" PRIu64
	       ",\"prom_bytes\":%lld,\"maxrss_kb\":%ld}\n",
	       m->collector->prom_cache.hits, m->collector->prom_cache.misses,
	       stat(m->collector->prom_path, &st) == 0 ? (long long)st.st_size : -1LL, ru.ru_maxrss);
	for (size_t i = 0; i < _MODES; i++)
		free(t[i]);
	for (size_t i = 0; i < n_ns; i++)
		smcnl_close(ns[i]);
	free(ns);
	smcnl_close(nl);
	sd_bus_flush_close_unref(client);
	manager_free(m);
	return 0;
}
