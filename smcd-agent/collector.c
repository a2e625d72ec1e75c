// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Statistics in the agent: when to sample, what a sample reads, where it goes.
 *
 * A sample reads the kernel's counters (GET_STATS, GET_FBACK_STATS) and every socket
 * (smc_diag, no extensions) of the agent's network namespace into the engine (stats.c) and,
 * when something that cannot be read again from the kernel changed, the state file; then
 * the same of the other network namespaces sampled (netns.c), kept as they are read.  The
 * devices and link groups are the manager's poll's (objects.h): it reads them once per
 * interval, has them tracked here (collector_track()), publishes them, samples and has the
 * textfile written (collector_export()); see manager_poll().
 *
 * Nothing here talks to D-Bus: every function returns what changed, the manager says it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/macro.h"
#include "smcd-agent/collector.h"
#include "smcd-agent/kernel.h"
#include "smcd-agent/log.h"
#include "smcd-agent/objects.h"

#define STATE_FILE "stats.state"
#define ON_DEMAND_MIN_USEC 250000ULL

/* systemd's StateDirectory= sets $STATE_DIRECTORY (a colon-separated list: ours is the
 * first). */
int agent_state_path(const char *file, char **ret)
{
	const char *env = getenv("STATE_DIRECTORY");
	char dir[4096];

	if (env && *env)
		snprintf(dir, sizeof(dir), "%.*s", (int)strcspn(env, ":"), env);
	else
		snprintf(dir, sizeof(dir), "%s/lib/smcd-agent", LOCALSTATEDIR);
	/* systemd created it already; by hand (or in a test) nobody may have. */
	(void)mkdir(dir, 0700);
	return asprintf(ret, "%s/%s", dir, file) < 0 ? -ENOMEM : 0;
}

static void save_state(struct collector *c)
{
	int r, sync_error = 0;

	if (!c->engine->have_raw)
		return;
	r = stats_state_save(c->engine, c->state_path, c->boot_id, &sync_error);
	if (r == TEXTFILE_NOT_DURABLE) {
		/* Saved (a restart reads it), only perhaps not across a crash: no failure. */
		if (sync_error != c->state_sync_error)
			log_warning_errno(
				sync_error,
				"Saved the statistics to %s, but cannot sync its directory (a crash may lose this save): %m",
				c->state_path);
		c->state_sync_error = sync_error;
		r = 0;
	} else if (r == 0)
		c->state_sync_error = 0;
	if (r < 0 && r != c->state_error && r == -EPERM && textfile_untrusted())
		log_warning(
			"Cannot save the statistics to %s (resets and link-group counts are lost at a restart): %s",
			c->state_path, textfile_untrusted());
	else if (r < 0 && r != c->state_error)
		log_warning_errno(
			r,
			"Cannot save the statistics to %s (resets and link-group counts are lost at a restart): %m",
			c->state_path);
	else if (r >= 0)
		c->engine->dirty = false;
	c->state_error = r < 0 ? r : 0;
}

/*
 * The state of the last run, when it is of this boot.  One that cannot be trusted (damaged,
 * too large, entries twice, counts or times out of range) is set aside as stats.state.broken
 * and the statistics start afresh: never a half-loaded state, never one that holds the
 * agent above its MemoryMax (issue 35).
 */
static void collector_load_state(struct collector *c)
{
	_cleanup_(freep) char *aside = NULL;
	const char *why = NULL;
	int r = stats_state_load(c->engine, c->state_path, c->boot_id, &why);

	if (r == -EBADMSG) {
		int q = stats_state_set_aside(c->state_path, &aside);

		if (q < 0)
			log_warning_errno(
				q,
				"The statistics state %s cannot be trusted (%s): ignored, and it cannot be set aside (%m); the statistics start afresh (no reset baseline, totals from the kernel's counters, link groups counted from now) and the next save replaces it",
				c->state_path, why ? why : "damaged");
		else
			log_warning(
				"The statistics state %s cannot be trusted (%s): set aside as %s, the statistics start afresh (no reset baseline, totals from the kernel's counters, link groups counted from now); remove %s when you no longer need it",
				c->state_path, why ? why : "damaged", aside, aside);
	} else if (r < 0)
		log_warning_errno(r, "Ignoring the statistics state %s: %m", c->state_path);
	else if (r > 0)
		log_info("Statistics continue from %s%s", c->state_path,
			 c->engine->reset_real_usec ? " (with its reset baseline)" : "");
}

int collector_new(uint32_t linkgroup_series, struct collector **ret)
{
	_cleanup_(freep) struct collector *c = calloc(1, sizeof(*c));
	int r;

	if (!c)
		return -ENOMEM;
	r = stats_engine_new(linkgroup_series, &c->engine);
	if (r < 0)
		return r;
	r = agent_state_path(STATE_FILE, &c->state_path);
	if (r < 0) {
		stats_engine_free(c->engine);
		return r;
	}
	stats_boot_id(c->boot_id);
	/* An agent killed while writing leaves its temporary behind (it is never renamed). */
	if (textfile_remove_stale(c->state_path) > 0)
		log_info("Removed the temporary statistics state a killed agent left next to %s",
			 c->state_path);
	collector_load_state(c);
	*ret = TAKE_PTR(c);
	return 0;
}

struct collector *collector_free(struct collector *c)
{
	if (!c)
		return NULL;
	/* Fresh raw values make the next start continue exactly where this one stopped. */
	save_state(c);
	stats_engine_free(c->engine);
	netns_set_clear(&c->netns);
	prom_cache_clear(&c->prom_cache);
	free(c->state_path);
	free(c->prom_path);
	free(c->prom_error_text);
	free(c);
	return NULL;
}

void collector_track(struct collector *c, struct objects *o)
{
	if (stats_engine_track(c->engine, o->devices, o->n_devices, o->linkgroups, o->n_linkgroups,
			       now_usec(CLOCK_REALTIME)) < 0)
		log_warning("Out of memory tracking link groups");
	if (c->engine->dirty)
		save_state(c);
}

/* ------------------------------------------------------------------------------------- */
/* Prometheus                                                                             */

static const char *write_hint(int err)
{
	switch (err) {
	case -ENOENT:
		return " (the directory does not exist: install prometheus-node-exporter, or set stats.prometheus.path)";
	case -EROFS:
	case -EACCES:
	case -EPERM:
		return " (smcd-agent.service may write only /var/lib/prometheus/node-exporter, and only if it existed when the agent started: restart it, or add a ReadWritePaths= drop-in for another directory)";
	default:
		return "";
	}
}

/* COLLECTOR_CHANGED_PROMETHEUS when PrometheusError changes (its errno or, for a directory
 * refused, what is wrong with it). */
static int set_prom_error(struct collector *c, int err)
{
	const char *untrusted = err == -EPERM ? textfile_untrusted() : NULL;
	char *text = NULL;

	if (err == c->prom_error && !untrusted)
		return 0;
	if (err < 0) {
		if (untrusted ? asprintf(&text, "%s: %s", c->prom_path, untrusted) < 0
			      : asprintf(&text, "%s: %s%s", c->prom_path, strerror(-err),
					 write_hint(err)) < 0)
			text = NULL;
		if (err == c->prom_error && streq_ptr(text, c->prom_error_text)) {
			free(text);
			return 0;
		}
		log_warning("Cannot write the Prometheus textfile %s", text ? text : c->prom_path);
	} else if (c->prom_error)
		log_info("Writing the Prometheus textfile %s again", c->prom_path);
	free(c->prom_error_text);
	c->prom_error_text = text;
	c->prom_error = err;
	return COLLECTOR_CHANGED_PROMETHEUS;
}

int collector_export(struct collector *c, const struct objects *o)
{
	_cleanup_(freep) char *text = NULL;
	struct prom_agent a = c->agent;
	int r;

	if (!c->prom_path)
		return 0;
	a.netns = &c->netns;
	a.cache = &c->prom_cache;
	text = prometheus_render_agent(c->engine, o, &c->fallback, &a);
	if (!text)
		return set_prom_error(c, -ENOMEM);
	/*
	 * 0644: node_exporter runs as its own user (prometheus on Debian).  Replaced atomically
	 * (node_exporter reads the old file or the new one) but not durably: no fsync of the
	 * file nor of its directory.  The file is written again at every interval and after
	 * a crash by the next start, so what a crash could lose is worth nothing, while the
	 * two fsyncs cost a journal commit each on a disk every interval (the state file,
	 * which cannot be made again, keeps them: save_state()).  The mtime still moves at
	 * every write (a new file each time), which node_textfile_mtime_seconds and the
	 * SmcTextfileStale alert read.
	 */
	r = textfile_replace(c->prom_path, text, strlen(text), 0644);
	if (r >= 0)
		c->prom_written = true;
	return set_prom_error(c, r < 0 ? r : 0);
}

/*
 * A file the agent wrote and no longer maintains (disabled, or another path) is removed: a
 * stale file would be exported with frozen values for ever.  At a stop it stays (a restart
 * is a gap of seconds); smc_stats_timestamp_seconds shows its age.
 */
static int apply_prometheus_path(struct collector *c, const char *want)
{
	if (streq_ptr(want, c->prom_path))
		return 0;
	if (c->prom_path && c->prom_written) {
		int r = textfile_unlink(c->prom_path);

		if (r < 0 && r != -ENOENT)
			log_warning_errno(r, "Cannot remove the old Prometheus textfile %s: %m",
					  c->prom_path);
	}
	free(c->prom_path);
	c->prom_path = want ? strdup(want) : NULL;
	c->prom_written = false;
	if (c->prom_path && textfile_remove_stale(c->prom_path) > 0)
		log_info("Removed the temporary Prometheus textfile a killed agent left next to %s",
			 c->prom_path);
	(void)set_prom_error(c, 0);
	return COLLECTOR_CHANGED_PROMETHEUS;
}

int collector_configure(struct collector *c, uint64_t interval_usec, uint32_t linkgroup_series,
			const char *prom_path)
{
	int changed;

	c->engine->linkgroup_series = linkgroup_series;
	changed = apply_prometheus_path(c, prom_path);
	if (interval_usec != c->interval_usec) {
		c->interval_usec = interval_usec;
		changed |= COLLECTOR_CHANGED_INTERVAL;
	}
	return changed;
}

int collector_configure_netns(struct collector *c, bool all, char *const *names, size_t n_names,
			      uint32_t max)
{
	return netns_set_configure(&c->netns, all, names, n_names, max);
}

/* ------------------------------------------------------------------------------------- */
/* Sampling                                                                               */

/* Returns the socket dump's result (0 when the counters could not be read: none made). */
static int read_kernel(struct kernel *k, struct stats_sample *s)
{
	int r;

	r = k->ops->stats(k, &s->stats);
	if (r >= 0)
		r = k->ops->fback_stats(k, &s->fback);
	s->ok = r >= 0;
	s->error = r < 0 ? r : 0;
	if (!s->ok)
		return 0;
	/*
	 * Without smc_diag the counters still work; the socket gauges are left out.  Counted as
	 * the dump is read: the whole dump held at once (376 bytes a socket, 7.5 MB for the
	 * 20,001 sockets of 10,000 connections) made the agent's peak memory (bench/README.md,
	 * Scale).
	 */
	stats_sample_sockets_begin(s);
	r = k->ops->sockets(k, stats_sample_count_socket, s);
	stats_sample_sockets_end(s, r);
	return r;
}

/* A failed socket dump leaves the socket gauges out (never 0): said once, as it changes.
 * Without smc_diag (-EPROTONOSUPPORT) they are left out too, which info and check say. */
static void collector_say_sockets_error(struct collector *c, int r)
{
	bool failed = r < 0 && r != -EPROTONOSUPPORT, was = c->sockets_error < 0;

	if (failed && r != c->sockets_error)
		log_warning(
			"Cannot dump the SMC sockets: %s; smc_sockets and smc_fallback_sockets are left out until a dump succeeds",
			strerror(-r));
	else if (!failed && was)
		log_info("The SMC sockets can be dumped again");
	c->sockets_error = failed ? r : 0;
}

int collector_sample(struct collector *c, struct kernel *k)
{
	_cleanup_(freep) struct stats_sample *s = calloc(1, sizeof(*s));
	uint64_t t0 = now_usec(CLOCK_MONOTONIC);
	int changed;

	int r;

	if (!s)
		return -ENOMEM;
	collector_say_sockets_error(c, read_kernel(k, s));
	if (!s->ok && s->error != c->sample_error)
		log_debug("Statistics not available: %s", strerror(-s->error));
	c->sample_error = s->error;
	/* The other namespaces in the same sample: one duration, one timestamp for all. */
	r = netns_set_sample(&c->netns, k);
	if (r == -ENOTRECOVERABLE)
		return r;
	if (r < 0)
		log_warning_errno(r, "Cannot sample the other network namespaces: %m");
	s->duration_usec = now_usec(CLOCK_MONOTONIC) - t0;
	changed = stats_engine_update(c->engine, s, now_usec(CLOCK_MONOTONIC),
				      now_usec(CLOCK_REALTIME));
	if (changed < 0)
		return log_warning_errno(changed, "Cannot update the statistics: %m");
	c->last_sample_mono_usec = t0;
	/*
	 * Also whenever a counter moved, for fresh raw values: after a crash (SIGKILL, OOM) and
	 * an smc reload while the agent is down, the new kernel's counts are compared with them.
	 * Older ones could be exceeded, the epoch missed and everything counted since that write
	 * lost (the totals going back); so it is at most this interval.  One small file per
	 * interval with traffic, like the textfile.
	 */
	if (c->engine->dirty || c->engine->active)
		save_state(c);
	return changed;
}

bool collector_sample_due(const struct collector *c)
{
	return collector_sample_due_usec(c) == 0;
}

uint64_t collector_sample_due_usec(const struct collector *c)
{
	uint64_t now = now_usec(CLOCK_MONOTONIC);

	if (!c->last_sample_mono_usec || now - c->last_sample_mono_usec >= ON_DEMAND_MIN_USEC)
		return 0;
	return c->last_sample_mono_usec + ON_DEMAND_MIN_USEC;
}

int collector_reset(struct collector *c)
{
	stats_engine_reset(c->engine, now_usec(CLOCK_REALTIME));
	save_state(c);
	return STATS_CHANGED_COUNTERS | STATS_CHANGED_REASONS | COLLECTOR_CHANGED_RESET;
}
