/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smcctl's views of smcd-agent (cli/agent.c): "status" and "config check|show|reload".
 * Pure parts (*_json, *_text) are exported for the tests.
 */
#pragma once

#include "cli/smcctl.h"
#include "smcd-agent/config.h"

int agent_status(struct smcctl *c, const struct verb_args *a);
int agent_config_check(struct smcctl *c, const struct verb_args *a);
int agent_config_show(struct smcctl *c, const struct verb_args *a);
int agent_config_reload(struct smcctl *c, const struct verb_args *a);

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
