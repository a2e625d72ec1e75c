/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smcctl's views of smcd-agent (cli/agent.c): "status" and "config check|show|reload".
 * Pure parts (*_json, *_text) are exported for the tests.
 */
#pragma once

#include <stdarg.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "cli/smcctl.h"
#include "config/config.h"

int agent_status(struct smcctl *c, const struct verb_args *a);
int agent_config_check(struct smcctl *c, const struct verb_args *a);
int agent_config_show(struct smcctl *c, const struct verb_args *a);
int agent_config_reload(struct smcctl *c, const struct verb_args *a);
/* cli/diff.c: the dry run of a file (PlanConfig, or smcd-agent --plan). */
int agent_config_diff(struct smcctl *c, const struct verb_args *a);

/* props: the Manager's properties as a JSON object keyed by property name. */
json_object *agent_status_json(json_object *props);
void agent_status_text(struct smcctl *c, json_object *doc);
json_object *config_check_json(const char *path, const struct config *cfg,
			       const struct config_errors *errors);
void config_check_text(struct smcctl *c, json_object *doc);
void config_show_text(struct smcctl *c, json_object *doc);

/*
 * The changing verbs, through the agent when it runs (the same verbs direct otherwise):
 * registered in cli/table.c instead of the direct handlers.
 */
int agent_ueid_add(struct smcctl *c, const struct verb_args *a);
int agent_ueid_del(struct smcctl *c, const struct verb_args *a);
int agent_ueid_flush(struct smcctl *c, const struct verb_args *a);
int agent_seid_enable(struct smcctl *c, const struct verb_args *a);
int agent_seid_disable(struct smcctl *c, const struct verb_args *a);
int agent_hslimit_enable(struct smcctl *c, const struct verb_args *a);
int agent_hslimit_disable(struct smcctl *c, const struct verb_args *a);
int agent_pnet_add(struct smcctl *c, const struct verb_args *a);
int agent_pnet_del(struct smcctl *c, const struct verb_args *a);
int agent_pnet_flush(struct smcctl *c, const struct verb_args *a);
int agent_sysctl_set(struct smcctl *c, const struct verb_args *a);

/* Helpers shared by the agent views (the D-Bus ones are in cli/bus.h). */
/* A time stamp of the agent (µs since the epoch) as local time, "-" for 0. */
const char *agent_fmt_time(uint64_t usec, char *buf, size_t len);

/*
 * Statistics through the agent (cli/stats-agent.c): served by smcd-agent when it runs,
 * with rates and since-reset values; straight from the kernel otherwise (or with
 * --kernel, --netns).
 */
int agent_stats_show(struct smcctl *c, const struct verb_args *a);
/* Needs the agent: it holds the baseline. */
int agent_stats_reset(struct smcctl *c, const struct verb_args *a);
/* The kernel's link groups, with the agent's per-group statistics when it runs. */
int agent_linkgroup_list(struct smcctl *c, const struct verb_args *a);
int agent_linkgroup_show(struct smcctl *c, const struct verb_args *a);
/* The "stats" document from GetStatistics(): filters and --absolute applied. */
json_object *agent_stats_doc(const char *json, bool absolute, bool only_smcd, bool only_smcr);

/* smcctl monitor (cli/monitor.c): the agent's signals as events, until SIGINT/SIGTERM. */
int monitor_events(struct smcctl *c, const struct verb_args *a);
/* One event as text (the JSON line is the object itself). */
void monitor_event_text(FILE *f, json_object *ev);
