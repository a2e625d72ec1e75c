// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include "common/bus-api.h"
#include "common/clock.h"
#include "common/macro.h"
#include "common/util.h"
#include "smcd-agent/collector.h"
#include "smcd-agent/dropin-prune.h"
#include "smcd-agent/assess-continuous.h"
#include "smcd-agent/autopilot.h"
#include "smcd-agent/bus-access.h"
#include "smcd-agent/bus-manager.h"
#include "smcd-agent/bus-snapshot.h"
#include "smcd-agent/fallback.h"
#include "smcd-agent/log.h"
#include "smcd-agent/loopback-reconcile.h"
#include "smcd-agent/manager.h"
#include "smcd-agent/policy-engine.h"

static const char *const manager_state_names[_MANAGER_STATE_MAX] = {
	[MANAGER_STARTING] = "starting", [MANAGER_RUNNING] = "running",
	[MANAGER_DEGRADED] = "degraded", [MANAGER_UNAVAILABLE] = "unavailable",
	[MANAGER_STOPPING] = "stopping",
};

/*
 * The manager's announcements: what it changed, named for the objects that serve it
 * (bus-manager.c, bus-stats.c), sent through bus-snapshot.c so that the manager never calls
 * up into the bus objects.
 */
int manager_announce(struct manager *m, const char *first, ...)
{
	const char *names[16];
	size_t n = 0;
	va_list ap;

	va_start(ap, first);
	for (const char *s = first; s && n < ELEMENTSOF(names) - 1; s = va_arg(ap, const char *))
		names[n++] = s;
	va_end(ap);
	names[n] = NULL;
	return bus_snapshot_emit_changed(m->bus, SMCD_BUS_PATH, SMCD_BUS_IFACE_MANAGER, names);
}

/* What each STATS_CHANGED_* and COLLECTOR_CHANGED_* flag changed of Statistics. */
static const struct bus_snapshot_flag stats_changes[] = {
	{ STATS_CHANGED_AVAILABLE, { SMCD_BUS_STATS_AVAILABLE } },
	{ STATS_CHANGED_COUNTERS, { SMCD_BUS_STATS_COUNTERS, SMCD_BUS_STATS_COUNTERS_SINCE_RESET } },
	{ STATS_CHANGED_RATES, { SMCD_BUS_STATS_RATES } },
	{ STATS_CHANGED_REASONS, { SMCD_BUS_STATS_FALLBACK_REASONS } },
	{ STATS_CHANGED_GAUGES, { SMCD_BUS_STATS_GAUGES } },
	{ STATS_CHANGED_EPOCH, { SMCD_BUS_STATS_KERNEL_EPOCHS } },
	{ COLLECTOR_CHANGED_PROMETHEUS,
	  { SMCD_BUS_STATS_PROMETHEUS_PATH, SMCD_BUS_STATS_PROMETHEUS_ERROR } },
	{ COLLECTOR_CHANGED_INTERVAL, { SMCD_BUS_STATS_INTERVAL_USEC } },
	{ COLLECTOR_CHANGED_RESET, { SMCD_BUS_STATS_RESET_USEC } },
};

int manager_announce_stats(struct manager *m, int changed)
{
	if (!changed)
		return 0;
	return bus_snapshot_emit_flags(m->bus, SMCD_BUS_PATH, SMCD_BUS_IFACE_STATS, stats_changes,
				       ELEMENTSOF(stats_changes), (unsigned)changed);
}

void manager_drop_stats_waiting(struct manager *m)
{
	for (size_t i = 0; i < m->n_stats_waiting; i++)
		sd_bus_message_unref(m->stats_waiting[i]);
	free(m->stats_waiting);
	m->stats_waiting = NULL;
	m->n_stats_waiting = 0;
	m->stats_wait_timer = sd_event_source_disable_unref(m->stats_wait_timer);
}

const char *manager_state_to_string(enum manager_state s)
{
	return s < _MANAGER_STATE_MAX ? manager_state_names[s] : NULL;
}

static uint64_t now_realtime_usec(void)
{
	return now_usec(CLOCK_REALTIME);
}

/* ------------------------------------------------------------------------------------- */
/* Config                                                                                 */

/* One journal entry per error, with the location as fields (CONFIG_FILE, CONFIG_LINE). */
static void log_config_errors(const char *path, const struct config_errors *e, const char *what)
{
	for (size_t i = 0; i < e->n; i++) {
		unsigned line = e->marks[i].line; /* 0: about the file as a whole */
		char f_file[512], f_line[32];
		const char *fields[] = { "MESSAGE_ID=" SMCD_MESSAGE_CONFIG_REJECTED, f_file, f_line,
					 NULL };

		snprintf(f_file, sizeof(f_file), "CONFIG_FILE=%s", path);
		if (!line)
			fields[2] = NULL;
		snprintf(f_line, sizeof(f_line), "CONFIG_LINE=%u", line);
		log_fields(LOG_ERR, 0, fields, "%s", e->lines[i]);
	}
	log_fields(LOG_ERR, 0,
		   (const char *const[]){ "MESSAGE_ID=" SMCD_MESSAGE_CONFIG_REJECTED, NULL },
		   "%s %s refused: %zu error%s%s", what, path, e->n, e->n == 1 ? "" : "s",
		   e->truncated ? " (and more)" : "");
}

/*
 * At start a missing file means the built-in defaults (the same as the shipped file), with
 * the drop-ins.  At a reload it is refused like a bad file, unless the running configuration
 * is those defaults already (running_builtin: the file was missing at the last load too): a
 * file deleted, renamed away or left a dangling symlink by an edit must not silently replace
 * the settings the agent keeps applied, but with no file there was nothing to replace, and
 * refusing then made EnableUnit and DisableUnit (a drop-in changed, reloaded) impossible on
 * a host that runs on the defaults.  *ret_builtin says what the loaded one is.  Nothing is
 * logged: PlanConfig reads a reload's configuration this way too.
 */
int manager_config_read(const char *path, bool reload, bool running_builtin, struct config **ret,
			bool *ret_builtin, struct config_errors *errors)
{
	_cleanup_(freep) char *dir = config_dropin_dir(path);
	/* Its own drop-ins, which it reads as root: only root's files (dropin.c). */
	const struct config_dropins own = { .dir = dir, .owned = true };
	char *line = NULL;
	int r;

	if (!dir)
		return -ENOMEM;
	r = config_load_from(path, NULL, 0, &own, ret, errors);
	if (r != -ENOENT) {
		if (r >= 0)
			*ret_builtin = false;
		return r;
	}
	config_errors_clear(errors);
	if (reload && !running_builtin) {
		if (asprintf(&line,
			     "%s: does not exist (or is a dangling symlink); restore it, or restart the agent to run on the built-in defaults",
			     path) < 0)
			return -ENOMEM;
		config_errors_add(errors, (struct config_mark){}, line);
		return r;
	}
	/* The defaults with the drop-ins: a unit enabled by "smcctl enable" stays enabled on a
	 * host that has no smc.yaml. */
	r = config_load_from(path, "", 0, &own, ret, errors);
	if (r >= 0)
		*ret_builtin = true;
	return r;
}

/* The drop-ins of containers stopped while the agent could not hear their poststop hook
 * removed (dropin-prune.c): 1 when some were, so the configuration is read again. */
static int autopilot_reconcile(struct manager *m);

static int prune_gone_containers(struct kernel *k, const char *path, const struct config *c)
{
	char root[PATH_MAX];

	/* No cgroup2 tree known (the dry run, a recorded tree): nothing is taken for gone. */
	if (!k || !k->ops->cgroup_root || k->ops->cgroup_root(k, root, sizeof(root)) < 0)
		return 0;
	return dropin_prune_containers(c, path, root) > 0;
}

static int manager_config_load(struct kernel *k, const char *path, bool reload, bool *builtin,
			       struct config **ret, char **ret_error)
{
	struct config_errors errors = {};
	bool running_builtin = *builtin;
	int r;

	r = manager_config_read(path, reload, running_builtin, ret, builtin, &errors);
	if (r >= 0 && prune_gone_containers(k, path, *ret) > 0) {
		config_free(*ret);
		*ret = NULL;
		r = manager_config_read(path, reload, running_builtin, ret, builtin, &errors);
	}
	if (r == -ENOENT && reload)
		log_fields(LOG_ERR, 0,
			   (const char *const[]){ "MESSAGE_ID=" SMCD_MESSAGE_CONFIG_REJECTED, NULL },
			   "%s does not exist (or is a dangling symlink): reload refused", path);
	else if (r >= 0 && *builtin)
		log_notice("%s does not exist: using the built-in defaults", path);
	else if (r < 0)
		log_config_errors(path, &errors, "configuration");
	if (r < 0 && ret_error)
		*ret_error = config_errors_join(&errors);
	config_errors_clear(&errors);
	return r;
}

int manager_load_config(struct manager *m)
{
	return manager_config_load(m->kernel, m->config_path, false, &m->config_builtin, &m->config,
				   NULL);
}

static void manager_arm_timers(struct manager *m);

int manager_reload(struct manager *m, bool *ret_refused, char **ret_error)
{
	bool builtin = m->config_builtin;
	struct config *c = NULL;
	char *error = NULL;
	int r;

	if (ret_refused)
		*ret_refused = false;
	(void)sd_notify(0, "RELOADING=1\nSTATUS=Reloading configuration");
	r = manager_config_load(m->kernel, m->config_path, true, &builtin, &c, &error);
	if (r < 0) {
		free(m->config_error);
		m->config_error = error ? error : strdup("the configuration could not be read");
		log_fields(LOG_WARNING, 0,
			   (const char *const[]){ "MESSAGE_ID=" SMCD_MESSAGE_CONFIG_REJECTED, NULL },
			   "Keeping the running configuration (revision %016" PRIx64 ")",
			   m->config->hash);
		manager_announce(m, SMCD_BUS_MANAGER_CONFIG_ERROR, NULL);
		(void)sd_notifyf(
			0, "READY=1\nSTATUS=New configuration refused, running revision %016" PRIx64,
			m->config->hash);
		if (ret_error)
			*ret_error = strdup(m->config_error);
		if (ret_refused)
			*ret_refused = true;
		return -EINVAL;
	}
	config_free(m->config);
	m->config = c;
	m->config_builtin = builtin;
	free(m->config_error);
	m->config_error = NULL;
	m->config_loaded_usec = now_realtime_usec();
	log_fields(LOG_INFO, 0,
		   (const char *const[]){ "MESSAGE_ID=" SMCD_MESSAGE_CONFIG_APPLIED, NULL },
		   "Loaded %s (revision %016" PRIx64 ")", m->config_path, c->hash);
	manager_announce(m, SMCD_BUS_MANAGER_CONFIG_REVISION, SMCD_BUS_MANAGER_CONFIG_ERROR,
			 SMCD_BUS_MANAGER_CONFIG_LOADED_USEC, SMCD_BUS_MANAGER_DRIFT_ACTION,
			 SMCD_BUS_MANAGER_DRIFT_INTERVAL_USEC, NULL);
	manager_arm_timers(m);
	autopilot_configure(m, autopilot_reconcile);
	assess_configure(m);
	r = manager_reconcile(m, RECONCILE_RELOAD);
	autopilot_probe(m);
	(void)sd_notify(0, "READY=1");
	return r;
}

/* ------------------------------------------------------------------------------------- */
/* Reconcile                                                                              */

static bool converged(const struct item_report *ir)
{
	return ir && (ir->result == ITEM_UNCHANGED || ir->result == ITEM_APPLIED);
}

/* The journal fields of an item: SMC_ITEM always, SMC_UEID / SMC_SYSCTL where they apply. */
static void item_fields(const char *name, const char *message_id, char f[3][160],
			const char *fields[5])
{
	size_t n = 0;

	if (message_id)
		fields[n++] = message_id;
	snprintf(f[0], 160, "SMC_ITEM=%s", name);
	fields[n++] = f[0];
	if (strncmp(name, "ueid:", 5) == 0) {
		snprintf(f[1], 160, "SMC_UEID=%s", name + 5);
		fields[n++] = f[1];
	} else if (strncmp(name, "sysctl:", 7) == 0) {
		snprintf(f[1], 160, "SMC_SYSCTL=%s", name + 7);
		fields[n++] = f[1];
	} else if (strncmp(name, "pnet:", 5) == 0) {
		snprintf(f[1], 160, "SMC_PNET=%s", name + 5);
		fields[n++] = f[1];
	}
	fields[n] = NULL;
}

/* Log what changed since the previous report: each condition once, not every interval. */
static void log_item(struct manager *m, const struct item_report *ir,
		     const struct item_report *prev, enum reconcile_reason reason)
{
	char f[3][160];
	const char *fields[5];

	switch (ir->result) {
	case ITEM_APPLIED:
		if (reason == RECONCILE_PERIODIC && converged(prev)) {
			m->drift_repairs++;
			item_fields(ir->name, "MESSAGE_ID=" SMCD_MESSAGE_DRIFT_REPAIRED, f, fields);
			log_fields(LOG_NOTICE, 0, fields, "Drift repaired: %s %s", ir->name,
				   ir->message);
		} else {
			item_fields(ir->name, NULL, f, fields);
			log_fields(LOG_INFO, 0, fields, "%s: %s", ir->name, ir->message);
		}
		break;
	case ITEM_FAILED:
		if (prev && prev->result == ITEM_FAILED && streq(prev->message, ir->message))
			break;
		item_fields(ir->name, "MESSAGE_ID=" SMCD_MESSAGE_ITEM_FAILED, f, fields);
		log_fields(LOG_WARNING, 0, fields, "%s failed: %s", ir->name, ir->message);
		break;
	case ITEM_UNSUPPORTED:
		if (prev && prev->result == ITEM_UNSUPPORTED)
			break;
		item_fields(ir->name, "MESSAGE_ID=" SMCD_MESSAGE_CAPABILITY_MISSING, f, fields);
		log_fields(LOG_NOTICE, 0, fields, "%s skipped: %s", ir->name, ir->message);
		break;
	case ITEM_DRIFTED:
		if (prev && prev->result == ITEM_DRIFTED && streq(prev->message, ir->message))
			break;
		item_fields(ir->name, "MESSAGE_ID=" SMCD_MESSAGE_DRIFT_DETECTED, f, fields);
		log_fields(LOG_WARNING, 0, fields,
			   "Drift detected (not repaired, drift.action is report): %s %s", ir->name,
			   ir->message);
		break;
	default:
		if (!prev || prev->result != ITEM_UNCHANGED)
			log_fields(LOG_DEBUG, 0, NULL, "%s: unchanged (%s)", ir->name, ir->message);
		break;
	}
}

static bool reports_equal(const struct report *a, const struct report *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (!streq(a->items[i].name, b->items[i].name) ||
		    a->items[i].result != b->items[i].result ||
		    !streq(a->items[i].message, b->items[i].message))
			return false;
	return true;
}

static bool smc_available(const struct smc_caps *c)
{
	return c->smc_genl || c->smc_module;
}

static enum manager_state compute_state(const struct manager *m)
{
	size_t counts[_ITEM_RESULT_MAX];

	if (!smc_available(&m->caps))
		return MANAGER_UNAVAILABLE;
	report_count(&m->report, counts);
	/* Unsupported items are reported once but are not a fault: an older kernel is fine. */
	if (counts[ITEM_FAILED] || counts[ITEM_DRIFTED])
		return MANAGER_DEGRADED;
	return MANAGER_RUNNING;
}

static void notify_status(struct manager *m)
{
	size_t c[_ITEM_RESULT_MAX];

	if (m->state == MANAGER_UNAVAILABLE) {
		(void)sd_notifyf(
			0, "STATUS=SMC is not available in this kernel; retrying every %" PRIu64 "s",
			m->config->drift.interval_usec / 1000000);
		return;
	}
	report_count(&m->report, c);
	(void)sd_notifyf(0,
			 "STATUS=%s, revision %016" PRIx64
			 ": %zu unchanged, %zu applied, %zu failed, %zu unsupported, %zu drifted",
			 manager_state_to_string(m->state), m->config->hash, c[ITEM_UNCHANGED],
			 c[ITEM_APPLIED], c[ITEM_FAILED], c[ITEM_UNSUPPORTED], c[ITEM_DRIFTED]);
}

static void update_caps(struct manager *m)
{
	struct smc_caps caps;
	int r;

	/* A probe that fails says nothing about the kernel: the last known capabilities stay
	 * (zeroing them made a busy kernel look like one without SMC, State included). */
	r = m->kernel->ops->caps(m->kernel, &caps);
	if (r < 0) {
		if (!m->caps_error_logged)
			log_warning(
				"Cannot probe the kernel's SMC capabilities: %s; keeping the last known ones",
				strerror(-r));
		m->caps_error_logged = true;
		return;
	}
	m->caps_error_logged = false;
	if (memcmp(&caps, &m->caps, sizeof(caps)) != 0) {
		m->caps = caps;
		manager_announce(m, SMCD_BUS_MANAGER_CAPABILITIES, NULL);
	}
	if (!smc_available(&m->caps) && !m->smc_missing_logged) {
		log_fields(LOG_WARNING, 0,
			   (const char *const[]){ "MESSAGE_ID=" SMCD_MESSAGE_CAPABILITY_MISSING,
						  "SMC_ITEM=kernel", NULL },
			   "SMC is not available in this kernel (%s): serving D-Bus, retrying on the drift interval",
			   m->caps.kernel_release[0] ? m->caps.kernel_release : "unknown release");
		m->smc_missing_logged = true;
	} else if (smc_available(&m->caps) && m->smc_missing_logged) {
		log_notice("SMC is available now");
		m->smc_missing_logged = false;
	}
}

static int update_drift(struct manager *m)
{
	struct report d = {};
	bool changed;

	for (size_t i = 0; i < m->report.n; i++) {
		struct item_report *v;

		if (m->report.items[i].result != ITEM_DRIFTED)
			continue;
		v = realloc(d.items, (d.n + 1) * sizeof(*v));
		if (!v) {
			report_clear(&d);
			return -ENOMEM;
		}
		d.items = v;
		d.items[d.n++] = m->report.items[i];
	}
	changed = !reports_equal(&d, &m->drift);
	report_clear(&m->drift);
	m->drift = d;
	if (changed)
		manager_announce(m, SMCD_BUS_MANAGER_DRIFT, NULL);
	return 0;
}

/* What the autopilot changed, applied (autopilot_configure()). */
static int autopilot_reconcile(struct manager *m)
{
	return manager_reconcile(m, RECONCILE_REQUEST);
}

int manager_reconcile(struct manager *m, enum reconcile_reason reason)
{
	bool report_only = reason == RECONCILE_PERIODIC && m->config->drift.action == DRIFT_REPORT;
	enum manager_state old_state = m->state;
	uint64_t old_repairs = m->drift_repairs;
	struct report r = {};
	int ret;

	ret = reconcile(m->kernel, m->config, reason == RECONCILE_PERIODIC ? &m->report : NULL,
			report_only, &r);
	if (ret >= 0)
		ret = policy_reconcile(m->policy, m->config, &r);
	if (ret >= 0)
		ret = loopback_reconcile(m->kernel, &m->config->loopback,
					 reason == RECONCILE_PERIODIC ? &m->report : NULL,
					 report_only, &r);
	if (ret > 0) {
		(void)loopback_refresh(m);
		ret = 0;
	}
	if (ret < 0) {
		report_clear(&r);
		return log_error_errno(ret, "Reconciliation failed: %m");
	}
	for (size_t i = 0; i < r.n; i++)
		log_item(m, &r.items[i], report_find(&m->report, r.items[i].name), reason);
	m->last_check_usec = r.timestamp;
	update_caps(m);
	if (reason == RECONCILE_PERIODIC && reports_equal(&r, &m->report)) {
		/* Nothing new: keep LastReconcile as it is, no signal every interval. */
		report_clear(&r);
	} else {
		report_clear(&m->report);
		m->report = r;
		manager_announce(m, SMCD_BUS_MANAGER_LAST_RECONCILE, NULL);
	}
	if (m->drift_repairs != old_repairs)
		manager_announce(m, SMCD_BUS_MANAGER_DRIFT_REPAIRS, NULL);
	update_drift(m);
	m->state = compute_state(m);
	if (m->state != old_state)
		manager_announce(m, SMCD_BUS_MANAGER_STATE, NULL);
	notify_status(m);
	return 0;
}

/* ------------------------------------------------------------------------------------- */
/* Objects                                                                                */

/* Statistics objects fresher than this are not read again for a sample. */
#define OBJECTS_FRESH_USEC 500000ULL

static uint64_t now_mono_usec(void)
{
	return now_usec(CLOCK_MONOTONIC);
}

/* ObjectsStale changes only when a read fails after a good one, or succeeds after a bad one. */
static void set_objects_error(struct manager *m, int error)
{
	bool was = objects_stale(&m->objects);

	m->objects.error = error;
	if (was != objects_stale(&m->objects))
		manager_announce(m, SMCD_BUS_MANAGER_OBJECTS_STALE, NULL);
}

/*
 * A read that fails keeps the objects as they are, everywhere (D-Bus, statistics, the
 * textfile), and marks them stale: reading it as "no objects" removed every link group from
 * D-Bus and Prometheus, counted them as removed and added them again at the next poll.
 */
static int read_failed(struct manager *m, int r)
{
	set_objects_error(m, r);
	if (r == -ENOMEM)
		return r;
	if (!m->dump_error_logged)
		log_warning(
			"Cannot read the SMC devices and link groups: %s; keeping the last ones (marked stale) until a read succeeds",
			strerror(-r));
	m->dump_error_logged = true;
	return r;
}

/* Read, track, publish.  smc_lo's object is refreshed in any case: it comes from its own
 * family, not from these dumps, so a failed dump says nothing about it (skipping it left the
 * object stale until a dump succeeded, notifications aside). */
static int poll_objects(struct manager *m, int *ret_emit_error)
{
	struct objects next = {};
	int r;

	r = objects_read(m->kernel, &next);
	if (r < 0) {
		(void)loopback_refresh(m);
		return read_failed(m, r);
	}
	if (m->dump_error_logged)
		log_info("The SMC devices and link groups can be read again");
	m->dump_error_logged = false;
	/* The agent's own per-object statistics go into the snapshots before they compare. */
	if (m->collector)
		collector_track(m->collector, &next);
	m->objects.read_mono_usec = now_mono_usec();
	m->objects.read_real_usec = now_realtime_usec();
	set_objects_error(m, 0);
	(void)loopback_refresh(m);
	/* The objects are up to date even when a signal could not be sent: not a read error. */
	r = bus_objects_update(m, next.devices, next.n_devices, next.linkgroups, next.n_linkgroups);
	if (r < 0) {
		log_warning_errno(
			r, "Cannot send the change signals of the SMC devices and link groups: %m");
		if (ret_emit_error)
			*ret_emit_error = r;
	}
	return 0;
}

static bool objects_fresh(const struct manager *m)
{
	return m->objects.read_mono_usec &&
	       now_mono_usec() - m->objects.read_mono_usec <= OBJECTS_FRESH_USEC;
}

/* What the textfile says of the agent itself (prometheus.c's smc_agent_* families). */
static void agent_facts(struct manager *m, struct prom_agent *a)
{
	*a = (struct prom_agent){
		.version = PACKAGE_VERSION,
		.kernel = m->caps.kernel_release,
		.state = manager_state_to_string(m->state),
		.drift_repairs = m->drift_repairs,
		.drifted = m->drift.n,
	};
	if (!loopback_state(m, &a->loopback, &a->loopback_state))
		a->loopback = a->loopback_state = NULL;
	a->assess_enabled = assess_enabled(m);
	a->assess_available = a->assess_enabled && !assess_error(m);
	a->assess_windows = assess_windows(m);
	a->assess = assess_gauges(m);
	assess_window_facts(m, &a->assess_seconds, &a->assess_dropped);
	if (m->autopilot) {
		a->auto_mode = autopilot_mode_name(m);
		autopilot_state_counts(m, a->auto_states, AUTO_STATES_N);
		a->auto_decisions = autopilot_decisions(m);
		a->auto_rollbacks = autopilot_rollbacks(m);
		a->auto_buffer_bytes = autopilot_buffer_bytes(m);
		a->auto_budget_bytes = m->config->autopilot.budget_bytes;
	}
}

/* Sample and export with the objects of this poll (the last good ones when it failed). */
static void poll_stats(struct manager *m)
{
	int changed = collector_sample(m->collector, m->kernel);
	struct prom_fallback *fb = &m->collector->fallback;

	if (changed == -ENOTRECOVERABLE) {
		/* In another network namespace than our own: nothing may go on here. */
		log_error("Cannot return to the agent's network namespace after entering another one to sample it; stopping");
		(void)sd_event_exit(m->event, EXIT_FAILURE);
		return;
	}
	if (changed < 0)
		return;
	fb->table = fallback_table(m);
	fb->available = !fallback_error(m);
	fallback_losses(m, &fb->lost, &fb->unsignalled);
	agent_facts(m, &m->collector->agent);
	manager_announce_stats(m, changed);
	manager_announce_stats(m, collector_export(m->collector, &m->objects));
}

int manager_poll(struct manager *m, unsigned what, int *ret_emit_error)
{
	bool stats = (what & MANAGER_POLL_STATS) && m->collector;
	int r = 0;

	if (ret_emit_error)
		*ret_emit_error = 0;
	/* SMC as a module, loaded after the start (modules: of smc.yaml): attach now. */
	fallback_retry(m);
	/* A sample takes the devices and link groups of the same moment: each dump is made once
	 * per interval when the intervals are equal, and for the sample alone otherwise. */
	if ((what & MANAGER_POLL_OBJECTS) || (stats && !objects_fresh(m)))
		r = poll_objects(m, ret_emit_error);
	if (stats)
		poll_stats(m);
	return r;
}

void manager_sample_now(struct manager *m)
{
	if (m->collector)
		(void)manager_poll(m, MANAGER_POLL_STATS, NULL);
}

int manager_refresh_objects_only(struct manager *m, int *ret_emit_error)
{
	return manager_poll(m, MANAGER_POLL_OBJECTS, ret_emit_error);
}

int manager_refresh_objects(struct manager *m, int *ret_emit_error)
{
	update_caps(m);
	return manager_refresh_objects_only(m, ret_emit_error);
}

/* ------------------------------------------------------------------------------------- */
/* Event loop                                                                             */

static int on_drift_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;

	(void)manager_reconcile(m, RECONCILE_PERIODIC);
	(void)sd_event_source_set_time_relative(s, m->config->drift.interval_usec);
	return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

/*
 * Timing: stats.interval equal to monitor.interval (the default) shares the monitor timer,
 * so the agent wakes once per interval for both, and one poll reads the objects for both; a
 * different stats.interval gets a timer of its own.
 */
static bool stats_shares_monitor(const struct manager *m)
{
	return m->config->stats.interval_usec == m->config->monitor.interval_usec;
}

static int on_stats_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;

	(void)manager_poll(m, MANAGER_POLL_STATS, NULL);
	(void)sd_event_source_set_time_relative(s, m->config->stats.interval_usec);
	return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

static int on_monitor_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;

	/*
	 * Devices and link groups only: the capability probe dumps every socket again and
	 * opens two SMC sockets, which doubled the cost of an interval with 1000 connections
	 * (bench/README.md).  Capabilities follow every reconciliation instead (start, reload,
	 * each drift.interval, Reconcile()) and Refresh().
	 */
	(void)manager_poll(
		m, MANAGER_POLL_OBJECTS | (stats_shares_monitor(m) ? MANAGER_POLL_STATS : 0), NULL);
	(void)sd_event_source_set_time_relative(s, m->config->monitor.interval_usec);
	return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

/* Accuracy: a check a second late harms nobody and lets the kernel batch wake-ups. */
static void arm_timer(struct manager *m, sd_event_source **s, uint64_t interval,
		      sd_event_time_handler_t cb, const char *failure)
{
	int r;

	if (interval == 0) {
		*s = sd_event_source_disable_unref(*s);
		return;
	}
	if (*s) {
		(void)sd_event_source_set_time_relative(*s, interval);
		(void)sd_event_source_set_enabled(*s, SD_EVENT_ONESHOT);
		return;
	}
	r = sd_event_add_time_relative(m->event, s, CLOCK_MONOTONIC, interval, 1000000, cb, m);
	if (r < 0)
		log_warning_errno(r, "Cannot arm a timer, %s: %m", failure);
}

static void configure_collector(struct manager *m)
{
	const struct config *c = m->config;

	if (collector_configure_netns(
		    m->collector, c->stats.netns == CONFIG_NETNS_ALL, c->stats.netns_names,
		    c->stats.netns == CONFIG_NETNS_LIST ? c->stats.n_netns_names : 0,
		    c->stats.netns_max) < 0)
		log_warning(
			"Out of memory: the network namespaces to sample are those of the last configuration");

	manager_announce_stats(
		m, collector_configure(m->collector, c->stats.interval_usec, c->stats.linkgroup_series,
				       c->stats.prometheus ? c->stats.prometheus_path : NULL));
}

static void manager_arm_timers(struct manager *m)
{
	const struct config *c = m->config;

	arm_timer(m, &m->drift_timer, c->drift.interval_usec, on_drift_timer,
		  "periodic checks are off");
	arm_timer(m, &m->monitor_timer, c->monitor.interval_usec, on_monitor_timer,
		  "periodic checks are off");
	if (!m->collector)
		return;
	configure_collector(m);
	arm_timer(m, &m->stats_timer, stats_shares_monitor(m) ? 0 : c->stats.interval_usec,
		  on_stats_timer, "statistics only on request");
}

/* The log rate limit's summaries on time (log.h): a timer at the end of the first window
 * that suppressed something.  Called from inside a log call: must not log. */
static int on_log_timer(sd_event_source *s, uint64_t usec, void *userdata);

static void arm_log_timer(void *userdata)
{
	struct manager *m = userdata;
	uint64_t when = log_ratelimit_deadline();

	if (!when || !m->event) {
		if (m->log_timer)
			(void)sd_event_source_set_enabled(m->log_timer, SD_EVENT_OFF);
		return;
	}
	if (!m->log_timer) {
		(void)sd_event_add_time(m->event, &m->log_timer, CLOCK_MONOTONIC, when, 1000000,
					on_log_timer, m);
		return;
	}
	(void)sd_event_source_set_time(m->log_timer, when);
	(void)sd_event_source_set_enabled(m->log_timer, SD_EVENT_ONESHOT);
}

static int on_log_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	log_ratelimit_flush(false);
	arm_log_timer(userdata);
	return 0;
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	(void)manager_reload(userdata, NULL, NULL); /* either failure is logged */
	return 0;
}

static int on_exit_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	struct manager *m = userdata;

	m->state = MANAGER_STOPPING;
	(void)sd_notify(0, "STOPPING=1\nSTATUS=Stopping");
	return sd_event_exit(m->event, 0);
}

/*
 * The configuration file as the agent keeps it: absolute, against the directory it started
 * in, so that ConfigPath names the file for any reader (PlanConfig needs an absolute path to
 * find its drop-ins, and smcctl config diff plans ConfigPath); not resolved, so that a
 * symlink stays one (an edit may point it elsewhere).
 */
static int config_path_absolute(const char *path, char **ret)
{
	_cleanup_(freep) char *cwd = NULL;

	if (path[0] == '/') {
		*ret = strdup(path);
		return *ret ? 0 : -ENOMEM;
	}
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	cwd = getcwd(NULL, 0);
	if (!cwd)
		return negative_errno();
	if (asprintf(ret, "%s%s%s", cwd, streq(cwd, "/") ? "" : "/", path) < 0) {
		*ret = NULL;
		return -ENOMEM;
	}
	return 0;
}

int manager_new(const char *config_path, struct kernel *kernel, struct manager **ret)
{
	_cleanup_(manager_freep) struct manager *m = calloc(1, sizeof(*m));
	sigset_t ss;
	int r;

	if (!m)
		return -ENOMEM;
	m->kernel = kernel;
	m->bus_name = SMCD_BUS_NAME;
	r = config_path_absolute(config_path, &m->config_path);
	if (r < 0)
		return r;
	r = policy_engine_new(&m->policy);
	if (r < 0)
		return r;
	r = sd_event_default(&m->event);
	if (r < 0)
		return r;
	log_ratelimit_set_wakeup(arm_log_timer, m);
	/* systemd 252's sd-event needs the signals blocked by the caller. */
	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &ss, NULL) < 0)
		return negative_errno();
	r = sd_event_add_signal(m->event, NULL, SIGTERM, on_exit_signal, m);
	if (r >= 0)
		r = sd_event_add_signal(m->event, NULL, SIGINT, on_exit_signal, m);
	if (r >= 0)
		r = sd_event_add_signal(m->event, NULL, SIGHUP, on_sighup, m);
	if (r < 0)
		return r;
	/* Pings WATCHDOG=1 at half of WatchdogSec= when the unit sets it; a no-op otherwise. */
	r = sd_event_set_watchdog(m->event, true);
	if (r < 0)
		log_warning_errno(r, "Cannot enable the watchdog: %m");
	*ret = TAKE_PTR(m);
	return 0;
}

struct manager *manager_free(struct manager *m)
{
	if (!m)
		return NULL;
	/* What the rate limit still holds is summed up now, not lost. */
	log_ratelimit_set_wakeup(NULL, NULL);
	log_ratelimit_flush(true);
	sd_event_source_disable_unref(m->log_timer);
	fallback_stop(m);
	assess_stop(m);
	autopilot_stop(m);
	policy_engine_free(m->policy);
	sd_event_source_disable_unref(m->drift_timer);
	sd_event_source_disable_unref(m->monitor_timer);
	sd_event_source_disable_unref(m->stats_timer);
	manager_drop_stats_waiting(m);
	m->collector = collector_free(m->collector);
	bus_auth_free_all(m);
	rate_table_free(&m->rate);
	sd_bus_flush_close_unref(m->bus);
	sd_event_unref(m->event);
	kernel_free(m->kernel);
	config_free(m->config);
	free(m->config_error);
	free(m->config_path);
	report_clear(&m->report);
	report_clear(&m->drift);
	objects_clear_arrays(&m->objects);
	loopback_free(m);
	free(m);
	return NULL;
}

int manager_prepare(struct manager *m)
{
	int r;

	m->config_loaded_usec = now_realtime_usec();
	r = collector_new(m->config->stats.linkgroup_series, &m->collector);
	if (r < 0)
		return log_error_errno(r, "Cannot set up the statistics: %m");
	/* The textfile's path before the first sample (the bus is not up: no signal). */
	configure_collector(m);
	return 0;
}

int manager_start(struct manager *m)
{
	/* Before the first reconcile: fallbacks of the first connections are attributed. */
	fallback_start(m);
	/* Before the first reconcile: what it switched before a restart is not pruned. */
	autopilot_configure(m, autopilot_reconcile);
	(void)manager_reconcile(m, RECONCILE_START);
	/* After it: the modules it loads are there, so the assessment traces SMC's own
	 * send and receive too (bpf/smc_assess_smc, found in the smc module's BTF), and the
	 * autopilot's probe loads nothing the reconcile would have reported. */
	autopilot_probe(m);
	assess_configure(m);
	update_caps(m);
	(void)manager_poll(
		m, MANAGER_POLL_OBJECTS | (m->config->stats.interval_usec ? MANAGER_POLL_STATS : 0),
		NULL);
	manager_arm_timers(m);
	(void)sd_notify(0, "READY=1");
	log_fields(LOG_INFO, 0,
		   (const char *const[]){ "MESSAGE_ID=" SMCD_MESSAGE_CONFIG_APPLIED, NULL },
		   "Started: configuration %s revision %016" PRIx64 ", state %s", m->config_path,
		   m->config->hash, manager_state_to_string(m->state));
	return 0;
}

int manager_run(struct manager *m)
{
	return sd_event_loop(m->event);
}
