/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The agent's statistics (collector.c): the engine (stats.c), its state file and the
 * Prometheus textfile.  Like the policy engine (policy.h) it knows nothing of the manager:
 * its functions take the collector and what they work on (the kernel, the objects of the
 * poll) and return what changed (COLLECTOR_CHANGED_*, STATS_CHANGED_*), which the manager
 * publishes (bus-stats.c).  When to sample is the manager's (manager_poll()).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "smcd-agent/netns-sampler.h"
#include "smcd-agent/stats-engine.h"

struct kernel;
struct objects;

/* Beyond STATS_CHANGED_*: what else manager_announce_stats() may be told. */
enum {
	COLLECTOR_CHANGED_PROMETHEUS = 1 << 8,
	COLLECTOR_CHANGED_INTERVAL = 1 << 9,
	COLLECTOR_CHANGED_RESET = 1 << 10,
};

struct collector {
	struct stats_engine *engine;
	uint64_t interval_usec; /* stats.interval, for IntervalUSec's change signal */
	char *state_path;
	char boot_id[40];
	int state_error;
	int state_sync_error; /* saved, but its directory's fsync failed so */
	int sample_error;
	int sockets_error; /* the last socket dump's error, 0 when it worked or was not made */
	uint64_t last_sample_mono_usec;
	char *prom_path;   /* NULL: not writing */
	bool prom_written; /* this process wrote prom_path */
	int prom_error;
	char *prom_error_text;	       /* PrometheusError; NULL when writing works */
	struct prom_fallback fallback; /* the manager's attribution table, for the textfile */
	struct prom_agent agent;       /* the manager's own state, for the textfile */
	struct netns_set netns;	       /* the other network namespaces sampled (netns.h) */
	struct prom_cache prom_cache;  /* the last textfile's families, for reuse */
};

/* A collector continuing from the state file of $STATE_DIRECTORY (logged, never fatal). */
int collector_new(uint32_t linkgroup_series, struct collector **ret);
/*
 * The path of the agent's state file FILE: in systemd's StateDirectory= ($STATE_DIRECTORY,
 * the first of its list), else LOCALSTATEDIR/lib/smcd-agent (created 0700).  -ENOMEM.
 */
int agent_state_path(const char *file, char **ret);
/* Saves the state (fresh raw values make the next start continue where this one stopped). */
struct collector *collector_free(struct collector *c);

/*
 * The config's stats section (start and reload): prom_path NULL when the textfile is off.
 * A textfile this process wrote and no longer maintains is removed.  COLLECTOR_CHANGED_*.
 */
int collector_configure(struct collector *c, uint64_t interval_usec, uint32_t linkgroup_series,
			const char *prom_path);

/* stats.netns and stats.netns-max (start and reload).  -ENOMEM. */
int collector_configure_netns(struct collector *c, bool all, char *const *names, size_t n_names,
			      uint32_t max);

/* A new read of the objects, before it is published: fills the agent's fields in place. */
void collector_track(struct collector *c, struct objects *o);

/*
 * Sample the kernel's counters and sockets into the engine, and those of the other network
 * namespaces (netns.h): STATS_CHANGED_*, or -errno; -ENOTRECOVERABLE when the thread could
 * not come back from another namespace (the agent must stop).
 */
int collector_sample(struct collector *c, struct kernel *k);

/* Write the Prometheus textfile of the engine and o: COLLECTOR_CHANGED_PROMETHEUS or 0. */
int collector_export(struct collector *c, const struct objects *o);

/* On-demand samples (GetStatistics(true), ResetStatistics()): false within 250 ms of the
 * last one, so that a caller in a loop cannot make the agent dump the kernel continuously. */
bool collector_sample_due(const struct collector *c);
/* CLOCK_MONOTONIC time when it is (0: now). */
uint64_t collector_sample_due_usec(const struct collector *c);

/* ResetStatistics(): the baseline, saved at once.  What changed (STATS_/COLLECTOR_CHANGED_*). */
int collector_reset(struct collector *c);
