// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Every key of smc.yaml, in the order of the file (keys.h).  The order is the order of
 * --dump-config and of "expected one of" in errors; smc.yaml(5) documents each row with its
 * default (tests/integration/man-coverage.test checks that through tests/tools/config-keys).
 */
#include <string.h>

#include "common/clock.h"
#include "common/macro.h"
#include "common/ueid-derive.h"
#include "config/config.h"
#include "config/keys.h"
#include "config/sections.h"

#define DAY_USEC (86400 * USEC_PER_SEC)

static const char *const switch_names[] = {
	[CONFIG_LEAVE] = "leave",
	[CONFIG_ENABLE] = "enable",
	[CONFIG_DISABLE] = "disable",
};

const char *config_switch_to_string(enum config_switch s)
{
	return s < ELEMENTSOF(switch_names) ? switch_names[s] : NULL;
}

static const char *const drift_action_names[] = {
	[DRIFT_REPAIR] = "repair",
	[DRIFT_REPORT] = "report",
};

const char *drift_action_to_string(enum drift_action a)
{
	return a < ELEMENTSOF(drift_action_names) ? drift_action_names[a] : NULL;
}

static const char *const auto_mode_names[] = {
	[AUTO_MODE_OFF] = "off",
	[AUTO_MODE_OBSERVE] = "observe",
	[AUTO_MODE_ON] = "on",
};

const char *auto_mode_to_string(enum auto_mode m)
{
	return m < ELEMENTSOF(auto_mode_names) ? auto_mode_names[m] : NULL;
}

static bool absolute_path(const char *s)
{
	return s[0] == '/';
}

static bool group_name(const char *s)
{
	return strlen(s) <= 32 &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") ==
		       strlen(s);
}

/*
 * node_exporter's textfile collector reads only *.prom files of its directory, so another
 * name would be written and never read: refuse it here instead.  The agent writes a
 * temporary ".NAME.XXXXXX" beside it and renames it (which the collector ignores).
 */
static bool prometheus_file(const char *s)
{
	size_t n = strlen(s);
	const char *base = strrchr(s, '/');

	return s[0] == '/' && n >= 6 && streq(s + n - 5, ".prom") && base && base[1] != '.' &&
	       !streq(base + 1, ".prom") && !strstr(s, "/../") && n < 4000;
}

#define INTERVAL(p, m, d)                                                                       \
	{                                                                                       \
		.path = p, .type = CONFIG_KEY_DURATION, .def = d, .flags = CONFIG_KEY_ZERO_OFF, \
		CONFIG_FIELD(m), .min = USEC_PER_SEC, .max = DAY_USEC                           \
	}

const struct config_key config_keys[] = {
	{ .path = "ueid", .type = CONFIG_KEY_SECTION, .parse = section_ueid },
	{ .path = "ueid.auto", .type = CONFIG_KEY_BOOL, .def = "true", CONFIG_FIELD(ueid.auto_derive) },
	/* How: common/ueid-derive.h says why app-specific is the default. */
	{ .path = "ueid.derive",
	  .type = CONFIG_KEY_ENUM,
	  .def = "app-specific",
	  CONFIG_FIELD(ueid.derivation),
	  .names = ueid_derivation_names,
	  .n_names = ELEMENTSOF(ueid_derivation_names),
	  .expected = "app-specific or machine-id" },
	{ .path = "ueid.machine-id-file",
	  .type = CONFIG_KEY_STRING,
	  .def = "/etc/machine-id",
	  CONFIG_FIELD(ueid.machine_id_file),
	  .expected = "an absolute path",
	  .valid = absolute_path,
	  .invalid = "is not an absolute path (expected a path starting with /)" },
	{ .path = "ueid.exclusive",
	  .type = CONFIG_KEY_BOOL,
	  .def = "false",
	  CONFIG_FIELD(ueid.exclusive) },
	{ .path = "ueid.entries",
	  .type = CONFIG_KEY_SECTION,
	  .def = "[]",
	  .parse = ueid_entries,
	  .dump = ueid_entries_dump },

	{ .path = "seid",
	  .type = CONFIG_KEY_ENUM,
	  .def = "leave",
	  CONFIG_FIELD(seid),
	  .mark = CONFIG_OFFSET(seid_mark),
	  .names = switch_names,
	  .n_names = ELEMENTSOF(switch_names),
	  .expected = "leave, enable or disable" },
	{ .path = "handshake-limitation",
	  .type = CONFIG_KEY_CUSTOM,
	  .def = "leave",
	  .parse = hs_limitation_parse,
	  .dump = hs_limitation_dump },
	{ .path = "sysctl", .type = CONFIG_KEY_SECTION, .parse = section_sysctl, .dump = sysctl_dump },

	{ .path = "pnet",
	  .type = CONFIG_KEY_SECTION,
	  .mark = CONFIG_OFFSET(pnet.mark),
	  .flags = CONFIG_KEY_MARK_KEY },
	{ .path = "pnet.exclusive",
	  .type = CONFIG_KEY_BOOL,
	  .def = "false",
	  CONFIG_FIELD(pnet.exclusive) },
	{ .path = "pnet.entries",
	  .type = CONFIG_KEY_SECTION,
	  .def = "[]",
	  .parse = pnet_entries,
	  .dump = pnet_entries_dump },

	{ .path = "modules",
	  .type = CONFIG_KEY_SECTION,
	  .def = "[smc, smc_diag]",
	  .parse = section_modules,
	  .dump = modules_dump },

	{ .path = "drift.action",
	  .type = CONFIG_KEY_ENUM,
	  .def = "repair",
	  CONFIG_FIELD(drift.action),
	  .names = drift_action_names,
	  .n_names = ELEMENTSOF(drift_action_names),
	  .expected = "repair or report" },
	INTERVAL("drift.interval", drift.interval_usec, "30s"),
	INTERVAL("monitor.interval", monitor.interval_usec, "10s"),

	{ .path = "admin-group",
	  .type = CONFIG_KEY_STRING,
	  .def = "smcd",
	  .flags = CONFIG_KEY_NULLABLE,
	  CONFIG_FIELD(admin_group),
	  .expected = "a group name, or nothing",
	  .valid = group_name,
	  .invalid = "is not a group name (expected letters, digits, '_', '-' or '.')" },
	{ .path = "rate-limit",
	  .type = CONFIG_KEY_UINT,
	  .def = "20",
	  CONFIG_FIELD(rate_limit),
	  .min = 1,
	  .max = 10000 },

	INTERVAL("stats.interval", stats.interval_usec, "10s"),
	{ .path = "stats.linkgroup-series",
	  .type = CONFIG_KEY_UINT,
	  .def = "100",
	  CONFIG_FIELD(stats.linkgroup_series),
	  .min = 0,
	  .max = STATS_LINKGROUP_SERIES_MAX,
	  .expected = "a whole number" },
	{ .path = "stats.netns",
	  .type = CONFIG_KEY_CUSTOM,
	  .def = "all",
	  .parse = stats_netns_parse,
	  .dump = stats_netns_dump },
	{ .path = "stats.netns-max",
	  .type = CONFIG_KEY_UINT,
	  .def = "32",
	  CONFIG_FIELD(stats.netns_max),
	  .min = 1,
	  .max = STATS_NETNS_MAX,
	  .expected = "a whole number from 1 to 256" },
	{ .path = "stats.prometheus.enabled",
	  .type = CONFIG_KEY_BOOL,
	  .def = "true",
	  CONFIG_FIELD(stats.prometheus) },
	{ .path = "stats.prometheus.path",
	  .type = CONFIG_KEY_STRING,
	  .def = STATS_PROMETHEUS_DEFAULT_PATH,
	  CONFIG_FIELD(stats.prometheus_path),
	  .expected = "an absolute path ending in .prom",
	  .valid = prometheus_file,
	  .invalid = "is not valid (expected an absolute path of a file NAME.prom, which "
		     "node_exporter's textfile collector reads)" },

	/* Off by default: it loads tracing programs on every TCP connection (smcd-agent(8)). */
	{ .path = "assess.interval",
	  .type = CONFIG_KEY_DURATION,
	  .def = "0",
	  .flags = CONFIG_KEY_ZERO_OFF,
	  CONFIG_FIELD(assess.interval_usec),
	  .min = 10 * USEC_PER_SEC,
	  .max = DAY_USEC,
	  .invalid = "is not valid (expected 0 for off, or a window from 10s to 1d)" },
	{ .path = "assess.applications",
	  .type = CONFIG_KEY_UINT,
	  .def = "20",
	  CONFIG_FIELD(assess.applications),
	  .min = 1,
	  .max = ASSESS_APPLICATIONS_MAX,
	  .expected = "a whole number from 1 to 1000" },

	/*
	 * Off by default: acting must be the operator's choice, and observing loads the
	 * assessment's tracing programs on every TCP connection (smc.yaml(5), auto).
	 */
	{ .path = "auto.mode",
	  .type = CONFIG_KEY_ENUM,
	  .def = "off",
	  CONFIG_FIELD(autopilot.mode),
	  .names = auto_mode_names,
	  .n_names = ELEMENTSOF(auto_mode_names),
	  .expected = "off, observe or on" },
	{ .path = "auto.window",
	  .type = CONFIG_KEY_DURATION,
	  .def = "30s",
	  CONFIG_FIELD(autopilot.window_usec),
	  .min = AUTO_WINDOW_MIN_USEC,
	  .max = AUTO_WINDOW_MAX_USEC,
	  .invalid = "is not valid (expected a duration from 10s to 1h)" },
	{ .path = "auto.budget",
	  .type = CONFIG_KEY_SIZE,
	  .def = "256MiB",
	  CONFIG_FIELD(autopilot.budget_bytes),
	  .min = 0,
	  .max = AUTO_BUDGET_MAX,
	  .expected = "a size such as 256MiB, or 0",
	  .invalid = "is not valid (expected 0 for no budget, or a size up to 1024GiB such as "
		     "256MiB)" },
	{ .path = "auto.scope.cgroups",
	  .type = CONFIG_KEY_SECTION,
	  .def = "[]",
	  .parse = auto_scope_cgroups,
	  .dump = auto_scope_cgroups_dump },
	{ .path = "auto.scope.units",
	  .type = CONFIG_KEY_SECTION,
	  .def = "[]",
	  .parse = auto_scope_units,
	  .dump = auto_scope_units_dump },
	{ .path = "auto.scope.netns",
	  .type = CONFIG_KEY_SECTION,
	  .def = "[]",
	  .parse = auto_scope_netns,
	  .dump = auto_scope_netns_dump },
	{ .path = "auto.exclude-ports",
	  .type = CONFIG_KEY_SECTION,
	  .def = "[]",
	  .parse = auto_exclude_ports,
	  .dump = auto_exclude_ports_dump },

	{ .path = "policies",
	  .type = CONFIG_KEY_SECTION,
	  .parse = section_policies,
	  .dump = policies_dump },

	/* Each key owns what it names: without the section, or a key, the agent leaves it. */
	{ .path = "loopback",
	  .type = CONFIG_KEY_SECTION,
	  .parse = section_loopback,
	  .shown = CONFIG_OFFSET(loopback.present) },
	{ .path = "loopback.active",
	  .type = CONFIG_KEY_BOOL,
	  CONFIG_FIELD(loopback.active),
	  .has = CONFIG_OFFSET(loopback.has_active),
	  .mark = CONFIG_OFFSET(loopback.active_mark),
	  .shown = CONFIG_OFFSET(loopback.has_active) },
	{ .path = "loopback.dmb-type",
	  .type = CONFIG_KEY_CUSTOM,
	  .parse = loopback_dmb_type,
	  .dump = loopback_dmb_type_dump,
	  .shown = CONFIG_OFFSET(loopback.has_dmb_type) },
	{ .path = "loopback.nocopy",
	  .type = CONFIG_KEY_BOOL,
	  CONFIG_FIELD(loopback.nocopy),
	  .has = CONFIG_OFFSET(loopback.has_nocopy),
	  .mark = CONFIG_OFFSET(loopback.nocopy_mark),
	  .shown = CONFIG_OFFSET(loopback.has_nocopy) },
	{ .path = "loopback.max-dmbs",
	  .type = CONFIG_KEY_UINT,
	  CONFIG_FIELD(loopback.max_dmbs),
	  .min = SMCLO_MAX_DMBS_MIN,
	  .max = SMCLO_MAX_DMBS_MAX,
	  .has = CONFIG_OFFSET(loopback.has_max_dmbs),
	  .mark = CONFIG_OFFSET(loopback.max_dmbs_mark),
	  .shown = CONFIG_OFFSET(loopback.has_max_dmbs) },
	/* How active is kept: they apply (and are shown) with active only. */
	{ .path = "loopback.take-over-lo",
	  .type = CONFIG_KEY_BOOL,
	  .def = "true",
	  .flags = CONFIG_KEY_IN_SECTION | CONFIG_KEY_MARK_KEY,
	  CONFIG_FIELD(loopback.take_over_lo),
	  .has = CONFIG_OFFSET(loopback.has_take_over_lo),
	  .mark = CONFIG_OFFSET(loopback.take_over_lo_mark),
	  .shown = CONFIG_OFFSET(loopback.has_active) },
	{ .path = "loopback.drain-timeout",
	  .type = CONFIG_KEY_DURATION,
	  .def = "10s",
	  .flags = CONFIG_KEY_IN_SECTION | CONFIG_KEY_MARK_KEY,
	  CONFIG_FIELD(loopback.drain_timeout_usec),
	  .min = LOOPBACK_DRAIN_MIN_USEC,
	  .max = LOOPBACK_DRAIN_MAX_USEC,
	  .has = CONFIG_OFFSET(loopback.has_drain_timeout),
	  .mark = CONFIG_OFFSET(loopback.drain_timeout_mark),
	  .shown = CONFIG_OFFSET(loopback.has_active),
	  .invalid = "is not valid (expected a duration from 1s to 30s: the agent waits that "
		     "long for the drain, and a removal without draining can hang in SMC 7.3)" },
};

const size_t config_n_keys = ELEMENTSOF(config_keys);
const struct config_key_table config_key_table = { config_keys, ELEMENTSOF(config_keys) };
