/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * struct manager owns everything the daemon has: the event loop, the bus, the kernel handle,
 * the last good config, the last reconcile report and the D-Bus object snapshots.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "config/config.h"
#include "smcd-agent/kernel.h"
#include "smcd-agent/objects.h"
#include "smcd-agent/rate-limit.h"
#include "smcd-agent/reconcile.h"

struct policy_engine; /* policy.h: smc.yaml policies and smcctl run (BPF) */
struct loopback;      /* loopback.c: smc.yaml's loopback: section and the smc_lo device object */
struct fallback;      /* fallback.c: fallback attribution (BPF) */
struct assess_agent;  /* assess.c: the continuous assessment (BPF) */
struct autopilot;     /* autopilot.c: smc.yaml auto: */

enum manager_state {
	MANAGER_STARTING,
	MANAGER_RUNNING,     /* every item in the desired state */
	MANAGER_DEGRADED,    /* some item failed, is unsupported or drifted */
	MANAGER_UNAVAILABLE, /* the kernel has no SMC: retried on drift.interval */
	MANAGER_STOPPING,
	_MANAGER_STATE_MAX,
};

const char *manager_state_to_string(enum manager_state s);

enum reconcile_reason {
	RECONCILE_START,
	RECONCILE_RELOAD,
	RECONCILE_REQUEST,  /* D-Bus Reconcile() */
	RECONCILE_PERIODIC, /* drift check */
};

struct manager {
	sd_event *event;
	sd_bus *bus;
	struct kernel *kernel;
	char *config_path;
	const char *bus_name;

	struct config *config; /* the last good one */
	bool config_builtin;   /* it is the built-in defaults: config_path did not exist */
	char *config_error;    /* why the last load was refused; NULL if it was not */
	uint64_t config_loaded_usec;

	enum manager_state state;
	struct report report; /* last reconcile that changed anything (or start/reload) */
	uint64_t last_check_usec;
	struct report drift;	/* items currently drifted (drift.action: report) */
	uint64_t drift_repairs; /* items repaired since start */
	struct smc_caps caps;
	bool smc_missing_logged;
	bool caps_error_logged; /* the last capability probe failed, and it was logged */

	sd_event_source *drift_timer;
	sd_event_source *monitor_timer;
	sd_event_source *stats_timer; /* only when stats.interval differs from monitor.interval */
	sd_event_source *log_timer;   /* the log rate limit's summaries (log.h) */

	struct objects objects; /* devices and link groups: the D-Bus objects (objects.h) */
	bool dump_error_logged; /* the last read failed, and it was logged */

	struct collector *collector; /* statistics: collector.c */
	/* GetStatistics(true) calls waiting for the next on-demand sample (bus-stats.c). */
	sd_bus_message **stats_waiting;
	size_t n_stats_waiting;
	sd_event_source *stats_wait_timer;

	struct policy_engine *policy;

	struct loopback *loopback;

	struct fallback *fallback;
	const char *fallback_no_kernel; /* set: attribution and assessment stay off: why */

	struct assess_agent *assess; /* assess.c; NULL: assess.interval is 0 */
	struct autopilot *autopilot; /* autopilot.c; NULL: auto.mode is off */

	/* Methods anyone may call (Refresh, EnrollProcess), per caller uid (bus-access.c). */
	struct rate_table rate;

	/* Method calls waiting for polkit's answer, or whose answer waits for them. */
	struct bus_auth *auths;
	unsigned n_auths;
};

int manager_new(const char *config_path, struct kernel *kernel, struct manager **ret);
struct manager *manager_free(struct manager *m);

/* First load: an invalid file is fatal (there is no good config to keep). */
int manager_load_config(struct manager *m);
/*
 * The configuration at path as the agent loads it, at start or (reload) at a reload while
 * the running one is (running_builtin) or is not the built-in defaults: a missing file is
 * the defaults with the drop-ins (*ret_builtin true), or at a reload from a file, -ENOENT
 * with that refusal as the one error.  Logs nothing (manager_reload() and PlanConfig).
 */
int manager_config_read(const char *path, bool reload, bool running_builtin, struct config **ret,
			bool *ret_builtin, struct config_errors *errors);
/*
 * Reload: load the file (and its drop-ins) again and apply it.  *ret_refused (when not NULL)
 * says which of two failures it was: true when the new configuration was refused (it did
 * not load or validate: the running one stays, config_error says why, *ret_error a copy;
 * -EINVAL), false when it was accepted, is the running one now, and applying it failed
 * (manager_reconcile()'s -errno, whatever it is: -EINVAL too).
 */
int manager_reload(struct manager *m, bool *ret_refused, char **ret_error);
/*
 * EnableUnit, DisableUnit (unit-dropin.c): write or remove UNIT's drop-in of smc.yaml and
 * reload.  0: done (*ret_path the drop-in), 1: nothing to do (enable: *ret_path the file
 * that already lists the cgroup), MANAGER_UNIT_APPLY_FAILED: done and the running
 * configuration, but applying it failed, whatever the errno (*ret_path the drop-in),
 * MANAGER_UNIT_REFUSED: the configuration was refused and the drop-in put back (never an
 * errno, which an apply error could also be), -EINVAL: a bad argument, -EEXIST: disable of
 * a unit that smc.yaml itself (or another drop-in) lists; other -errno.  *ret_why says
 * what went wrong.
 */
#define MANAGER_UNIT_APPLY_FAILED 2
#define MANAGER_UNIT_REFUSED 3
int manager_enable_unit(struct manager *m, const char *unit, const char *cgroup, char **ret_path,
			char **ret_why);
int manager_disable_unit(struct manager *m, const char *unit, char **ret_path, char **ret_why);
int manager_reconcile(struct manager *m, enum reconcile_reason reason);
/*
 * Re-read devices, link groups and capabilities; update D-Bus objects.  0, or the failed
 * read's -errno (the objects stay as they were, marked stale).  Change signals that could
 * not be sent are no failed read (the objects are updated all the same): logged, and the
 * first one's error in *ret_emit_error (when not NULL; 0 when every signal went out).
 */
int manager_refresh_objects(struct manager *m, int *ret_emit_error);
/* The same without the capability probe (which dumps every socket). */
int manager_refresh_objects_only(struct manager *m, int *ret_emit_error);

enum {
	MANAGER_POLL_OBJECTS = 1 << 0, /* read the devices and link groups */
	MANAGER_POLL_STATS = 1 << 1,   /* sample the statistics (and read the objects unless
					* they are fresh) and export them */
};
/*
 * One poll, in one direction: read the objects (an error stays an error: the last objects
 * stay, marked stale: ObjectsStale, smc_agent_objects_stale), track them (collector.c),
 * publish them (D-Bus objects, smc_lo's included), sample and export (Statistics,
 * Prometheus).  Returns the object read's result as manager_refresh_objects_only().
 */
int manager_poll(struct manager *m, unsigned what, int *ret_emit_error);
/* ResetStatistics() and the on-demand samples of GetStatistics(true): a statistics poll. */
void manager_sample_now(struct manager *m);
/* The statistics, before the bus is set up (bus_setup(), bus-manager.h): main.c. */
int manager_prepare(struct manager *m);
/* With the bus set up: the first reconcile and poll, the timers, READY=1. */
int manager_start(struct manager *m);
int manager_run(struct manager *m);

/*
 * Announcements of what the manager changed (bus-snapshot.c sends them; the objects that
 * serve the properties are bus-manager.c's and bus-stats.c's): PropertiesChanged of the
 * Manager's properties named (NULL-terminated), and of Statistics' for STATS_CHANGED_* and
 * COLLECTOR_CHANGED_* flags.  0, or the signal's negative errno; no bus is 0.
 */
int manager_announce(struct manager *m, const char *first, ...);
int manager_announce_stats(struct manager *m, int changed);
/* Unanswered GetStatistics(true) calls dropped (at the stop: the bus closes after). */
void manager_drop_stats_waiting(struct manager *m);

static inline void manager_freep(struct manager **m)
{
	if (*m)
		manager_free(*m);
}
