// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Statistics in the agent: when to sample, what a sample reads, where it goes.
 *
 * A sample reads the kernel's counters (GET_STATS, GET_FBACK_STATS) and every socket
 * (smc_diag, no extensions) of the agent's network namespace, and takes devices and link
 * groups from the object refresh (manager_refresh_objects_only(), so each dump is made once
 * per interval).  It goes to the engine (stats.c), then to D-Bus (one PropertiesChanged for
 * what changed, bus-stats.c), the Prometheus textfile and, when something that cannot be
 * read again from the kernel changed, the state file.
 *
 * Timing: stats.interval equal to monitor.interval (the default) shares the monitor timer,
 * so the agent wakes once per interval for both; a different stats.interval gets a timer of
 * its own.  On-demand samples (GetStatistics(true), ResetStatistics()) are taken at most
 * every 250 ms: a caller in a loop cannot make the agent dump the kernel continuously.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/macro.h"
#include "smcd-agent/collector.h"
#include "smcd-agent/log.h"
#include "smcd-agent/manager.h"

#define STATE_FILE "stats.state"
#define ON_DEMAND_MIN_USEC 250000ULL
#define OBJECTS_FRESH_USEC 500000ULL

static uint64_t now_usec(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

/*
 * systemd's StateDirectory= sets $STATE_DIRECTORY (a colon-separated list: ours is the
 * first); without systemd, LOCALSTATEDIR/lib/smcd-agent, created 0700.
 */
static int state_path(char **ret)
{
	const char *env = getenv("STATE_DIRECTORY");
	char dir[4096];

	if (env && *env)
		snprintf(dir, sizeof(dir), "%.*s", (int)strcspn(env, ":"), env);
	else
		snprintf(dir, sizeof(dir), "%s/lib/smcd-agent", LOCALSTATEDIR);
	/* systemd created it already; by hand (or in a test) nobody may have. */
	(void)mkdir(dir, 0700);
	return asprintf(ret, "%s/%s", dir, STATE_FILE) < 0 ? -ENOMEM : 0;
}

static void apply_prometheus_config(struct manager *m);

static void save_state(struct collector *c)
{
	int r;

	if (!c->engine->have_raw)
		return;
	r = stats_state_save(c->engine, c->state_path, c->boot_id);
	if (r < 0 && r != c->state_error)
		log_warning_errno(
			r,
			"Cannot save the statistics to %s (resets and link-group counts are lost at a restart): %m",
			c->state_path);
	else if (r >= 0)
		c->engine->dirty = false;
	c->state_error = r < 0 ? r : 0;
}

int collector_new(struct manager *m)
{
	_cleanup_(freep) struct collector *c = calloc(1, sizeof(*c));
	int r;

	if (!c)
		return -ENOMEM;
	r = stats_engine_new(m->config->stats.linkgroup_series, &c->engine);
	if (r < 0)
		return r;
	r = state_path(&c->state_path);
	if (r < 0) {
		stats_engine_free(c->engine);
		return r;
	}
	stats_boot_id(c->boot_id);
	/* An agent killed while writing leaves its temporary behind (it is never renamed). */
	if (textfile_remove_stale(c->state_path) > 0)
		log_info("Removed the temporary statistics state a killed agent left next to %s",
			 c->state_path);
	r = stats_state_load(c->engine, c->state_path, c->boot_id);
	if (r == -EBADMSG)
		log_warning(
			"The statistics state %s is damaged (cut short, or not written by smcd-agent): ignored, the statistics start afresh (no reset baseline, totals from the kernel's counters, link groups counted from now); the next save replaces it",
			c->state_path);
	else if (r < 0)
		log_warning_errno(r, "Ignoring the statistics state %s: %m", c->state_path);
	else if (r > 0)
		log_info("Statistics continue from %s%s", c->state_path,
			 c->engine->reset_real_usec ? " (with its reset baseline)" : "");
	m->collector = TAKE_PTR(c);
	/* Before the first sample (at start, before the timers are armed). */
	apply_prometheus_config(m);
	return 0;
}

void collector_free(struct manager *m)
{
	struct collector *c = m->collector;

	if (!c)
		return;
	/* Fresh raw values make the next start continue exactly where this one stopped. */
	save_state(c);
	sd_event_source_disable_unref(c->timer);
	stats_engine_free(c->engine);
	free(c->state_path);
	free(c->prom_path);
	free(c->prom_error_text);
	free(c);
	m->collector = NULL;
}

void collector_track(struct manager *m, struct bus_device *devs, size_t n_devs,
		     struct bus_linkgroup *lgrs, size_t n_lgrs)
{
	struct collector *c = m->collector;

	if (!c)
		return;
	if (stats_engine_track(c->engine, devs, n_devs, lgrs, n_lgrs, now_usec(CLOCK_REALTIME)) < 0)
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

static void set_prom_error(struct manager *m, int err)
{
	struct collector *c = m->collector;
	char *text = NULL;

	if (err == c->prom_error)
		return;
	if (err < 0) {
		if (asprintf(&text, "%s: %s%s", c->prom_path, strerror(-err), write_hint(err)) < 0)
			text = NULL;
		log_warning("Cannot write the Prometheus textfile %s", text ? text : c->prom_path);
	} else if (c->prom_error)
		log_info("Writing the Prometheus textfile %s again", c->prom_path);
	free(c->prom_error_text);
	c->prom_error_text = text;
	c->prom_error = err;
	bus_stats_emit_changed(m, COLLECTOR_CHANGED_PROMETHEUS);
}

static void write_textfile(struct manager *m)
{
	struct collector *c = m->collector;
	_cleanup_(freep) char *text = NULL;
	int r;

	if (!c->prom_path)
		return;
	text = prometheus_render(c->engine, m->devices, m->n_devices, m->linkgroups, m->n_linkgroups);
	if (!text) {
		set_prom_error(m, -ENOMEM);
		return;
	}
	/* 0644: node_exporter runs as its own user (prometheus on Debian). */
	r = textfile_write_atomic(c->prom_path, text, strlen(text), 0644);
	set_prom_error(m, r < 0 ? r : 0);
	if (r >= 0)
		c->prom_written = true;
}

/*
 * A file the agent wrote and no longer maintains (disabled, or another path) is removed: a
 * stale file would be exported with frozen values for ever.  At a stop it stays (a restart
 * is a gap of seconds); smc_stats_timestamp_seconds shows its age.
 */
static void apply_prometheus_config(struct manager *m)
{
	struct collector *c = m->collector;
	const char *want = m->config->stats.prometheus ? m->config->stats.prometheus_path : NULL;

	if (streq_ptr(want, c->prom_path))
		return;
	if (c->prom_path && c->prom_written && unlink(c->prom_path) < 0 && errno != ENOENT)
		log_warning_errno(-errno, "Cannot remove the old Prometheus textfile %s: %m",
				  c->prom_path);
	free(c->prom_path);
	c->prom_path = want ? strdup(want) : NULL;
	c->prom_written = false;
	if (c->prom_path && textfile_remove_stale(c->prom_path) > 0)
		log_info("Removed the temporary Prometheus textfile a killed agent left next to %s",
			 c->prom_path);
	set_prom_error(m, 0);
	bus_stats_emit_changed(m, COLLECTOR_CHANGED_PROMETHEUS);
}

/* ------------------------------------------------------------------------------------- */
/* Sampling                                                                               */

static void read_kernel(struct manager *m, struct stats_sample *s)
{
	struct kernel *k = m->kernel;
	struct smc_socket *socks = NULL;
	size_t n = 0;
	int r;

	r = k->ops->stats(k, &s->stats);
	if (r >= 0)
		r = k->ops->fback_stats(k, &s->fback);
	s->ok = r >= 0;
	s->error = r < 0 ? r : 0;
	if (!s->ok)
		return;
	/* Without smc_diag the counters still work; the socket gauges are left out. */
	if (k->ops->sockets(k, &socks, &n) >= 0)
		stats_sample_count_sockets(s, socks, n);
	free(socks);
}

int collector_sample(struct manager *m)
{
	struct collector *c = m->collector;
	struct stats_sample *s;
	uint64_t t0 = now_usec(CLOCK_MONOTONIC);
	int changed;

	if (!c)
		return 0;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	if (!m->objects_mono_usec || t0 - m->objects_mono_usec > OBJECTS_FRESH_USEC)
		(void)manager_refresh_objects_only(m, NULL);
	read_kernel(m, s);
	if (!s->ok && s->error != c->sample_error)
		log_debug("Statistics not available: %s", strerror(-s->error));
	c->sample_error = s->error;
	s->duration_usec = now_usec(CLOCK_MONOTONIC) - t0;
	changed = stats_engine_update(c->engine, s, now_usec(CLOCK_MONOTONIC),
				      now_usec(CLOCK_REALTIME));
	free(s);
	if (changed < 0)
		return log_warning_errno(changed, "Cannot update the statistics: %m");
	c->last_sample_mono_usec = t0;
	bus_stats_emit_changed(m, changed);
	write_textfile(m);
	/*
	 * Also whenever a counter moved, for fresh raw values: after a crash (SIGKILL, OOM) and
	 * an smc reload while the agent is down, the new kernel's counts are compared with them.
	 * Older ones could be exceeded, the epoch missed and everything counted since that write
	 * lost (the totals going back); so it is at most this interval.  One small file per
	 * interval with traffic, like the textfile.
	 */
	if (c->engine->dirty || c->engine->active)
		save_state(c);
	return 0;
}

int collector_sample_on_demand(struct manager *m)
{
	struct collector *c = m->collector;

	if (c && c->last_sample_mono_usec &&
	    now_usec(CLOCK_MONOTONIC) - c->last_sample_mono_usec < ON_DEMAND_MIN_USEC)
		return 0;
	return collector_sample(m);
}

void collector_reset(struct manager *m)
{
	struct collector *c = m->collector;

	stats_engine_reset(c->engine, now_usec(CLOCK_REALTIME));
	save_state(c);
	bus_stats_emit_changed(m, STATS_CHANGED_COUNTERS | STATS_CHANGED_REASONS |
					  COLLECTOR_CHANGED_RESET);
}

/* ------------------------------------------------------------------------------------- */
/* Timer                                                                                  */

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;

	(void)collector_sample(m);
	(void)sd_event_source_set_time_relative(s, m->config->stats.interval_usec);
	return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

void collector_arm(struct manager *m)
{
	struct collector *c = m->collector;
	uint64_t interval = m->config->stats.interval_usec;
	int r;

	if (!c)
		return;
	c->engine->linkgroup_series = m->config->stats.linkgroup_series;
	apply_prometheus_config(m);
	if (interval != c->interval_usec) {
		c->interval_usec = interval;
		bus_stats_emit_changed(m, COLLECTOR_CHANGED_INTERVAL);
	}
	if (!interval || interval == m->config->monitor.interval_usec) {
		c->timer = sd_event_source_disable_unref(c->timer);
		return;
	}
	if (c->timer) {
		(void)sd_event_source_set_time_relative(c->timer, interval);
		(void)sd_event_source_set_enabled(c->timer, SD_EVENT_ONESHOT);
		return;
	}
	/* Accuracy 1 s like the other timers: sd-event can then wake once for several. */
	r = sd_event_add_time_relative(m->event, &c->timer, CLOCK_MONOTONIC, interval, 1000000,
				       on_timer, m);
	if (r < 0)
		log_warning_errno(r,
				  "Cannot arm the statistics timer, statistics only on request: %m");
}
