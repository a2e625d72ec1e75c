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

	/* Methods anyone may call (Refresh, EnrollProcess), per caller uid (bus-manager.c). */
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
/* The D-Bus error of such a result (bus-manager.c): 0 for 0 and 1, else < 0 and *error set
 * (ConfigInvalid only for MANAGER_UNIT_REFUSED). */
int bus_unit_error(int r, const char *why, sd_bus_error *error);
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
int manager_start(struct manager *m);
int manager_run(struct manager *m);

/* bus-manager.c / bus-objects.c */
int bus_setup(struct manager *m);
/* Every object and interface of the agent on m->bus (bus_setup(); tests on a private bus). */
int bus_register_all(struct manager *m);
int bus_objects_register(struct manager *m);
int bus_policy_register(struct manager *m); /* bus-policy.c */
int bus_emit_manager_changed(struct manager *m, const char *first, ...);
/* Compare old and new snapshots and emit InterfacesAdded/Removed and PropertiesChanged;
 * the snapshots are swapped in any case, the first failed signal's error is returned. */
int bus_objects_update(struct manager *m, struct obj_device *devices, size_t n_devices,
		       struct obj_linkgroup *linkgroups, size_t n_linkgroups);
int bus_append_report(sd_bus_message *reply, const struct report *r);
/*
 * bus-polkit.c: may the caller make this change?  The action is the one bus-polkit.c's
 * table names for the call's interface and member.  Root and CAP_NET_ADMIN are not asked
 * about; for anyone else polkit decides, or, where polkit is not installed, membership in
 * admin-group (root only for EnrollProcess, as before polkit).  0: go on; 1: the call waits for
 * polkit, return 1 from the handler (it runs again from the start when polkit answered,
 * so read and check the arguments before, change nothing before); < 0: refused (an
 * AccessDenied error saying why) or failed.
 */
int bus_authorize(sd_bus_message *msg, struct manager *m, sd_bus_error *error);
/* Whether polkit's answer for this call waits for its handler (its second run). */
bool bus_authorize_answered(struct manager *m, sd_bus_message *msg);
/* bus-polkit.c's table, one "INTERFACE MEMBER ACTION" line per row (tests/tools). */
void bus_actions_print(FILE *f);
/* Drop every pending question to polkit (manager_free()). */
void bus_auth_free_all(struct manager *m);
/* The bus filter that drops a question whose call's second run ended without it. */
int bus_polkit_register(struct manager *m);
/* Whether the bus's groups of the caller hold GROUP (bus-manager.c). */
bool bus_sender_in_group(sd_bus_message *msg, const char *group);

/* vtable flags of methods.  sd-bus lets anyone call every method, so that the agent's own
 * check decides: POLKIT, the method asks bus_authorize() (for its row of bus-polkit.c's
 * table: agent-polkit-actions.test holds them together); ANYONE, it asks nobody. */
#define ANYONE SD_BUS_VTABLE_UNPRIVILEGED
#define POLKIT SD_BUS_VTABLE_UNPRIVILEGED
/*
 * Methods anyone may call that cost the agent work: at most smc.yaml's rate-limit calls per
 * caller uid in BUS_RATE_WINDOW_USEC (root is not limited); beyond, a RateLimited error and one
 * journal line per window.  0, or the error's negative errno; *ret_uid (when not NULL): the
 * caller's uid as the bus vouches for it, (uid_t)-1 when it does not say.
 */
#define BUS_RATE_WINDOW_USEC (10ULL * 1000000ULL)
int bus_rate_limit(sd_bus_message *msg, struct manager *m, uid_t *ret_uid, sd_bus_error *error);
/* The same for a caller whose uid the method has read already ((uid_t)-1: the bus did not
 * say): one GetConnectionCredentials per call, not two. */
int bus_rate_limit_uid(sd_bus_message *msg, struct manager *m, uid_t uid, sd_bus_error *error);
/* The caller's uid and groups as the bus recorded them at connect time (bus-manager.c). */
int bus_sender_credentials(sd_bus_message *msg, uid_t *ret_uid, uint32_t **ret_gids,
			   size_t *ret_n_gids);

/* bus-stats.c: org.smcd.Agent1.Statistics on /org/smcd/Agent1 */
int bus_stats_register(struct manager *m);
int bus_stats_emit_changed(struct manager *m, int changed);
/* Unanswered GetStatistics(true) calls dropped (at the stop: the bus closes after). */
void bus_stats_drop_waiting(struct manager *m);
/* GetStatistics(true) within the rate limit: msg waits for the sample due at due_usec
 * (CLOCK_MONOTONIC, timer accuracy 1 ms); 1, or -errno with error set. */
int bus_stats_wait_for_sample(sd_bus_message *msg, struct manager *m, uint64_t due_usec,
			      sd_bus_error *error);
int bus_append_capabilities(sd_bus_message *reply, const struct smc_caps *c);

static inline void manager_freep(struct manager **m)
{
	if (*m)
		manager_free(*m);
}
