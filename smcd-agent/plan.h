/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The dry run: what applying a smc.yaml would change in the running kernel, item by item,
 * as a JSON document (smcd-agent --plan, PlanConfig on D-Bus, smcctl config diff; the keys
 * are in smcctl(8) JSON OUTPUT).  It runs the agent's own planners and changes nothing:
 *   reconcile.c    observe, then plan_modules() and plan_settings() (pure); never applied
 *   loopback.c     loopback_reconcile() itself, on the dry-run kernel (kernel-dryrun.c),
 *                  which answers writes without passing them on
 *   policy-plan.c  policy_plan() on the engine's observation (policy_plan_dry()), only
 *                  with the running agent's engine: without it the policies are listed as
 *                  not planned (their BPF maps are the agent's; adopting them is a change)
 * Items are in the order the agent applies them, named as in LastReconcile.
 */
#pragma once

#include <json-c/json.h>

#include "config/config.h"
#include "smcd-agent/kernel.h"

struct policy_engine;

/* Values of "planner". */
#define PLAN_PLANNER_AGENT "agent"
#define PLAN_PLANNER_STANDALONE "smcd-agent --plan"

/*
 * The plan of c against kernel k (read only).  policy: the running agent's engine, or NULL
 * (policies not planned).  *ret: the document.  0 or -errno.
 */
int config_plan_json(struct kernel *k, struct policy_engine *policy, const struct config *c,
		     const char *planner, json_object **ret);
/*
 * Into a plan of a config with ueid.auto turned off for it: the derived UEID as an item not
 * planned, FILE (its ueid.machine-id-file) not read (PlanConfig for a caller who is not
 * root).  0, -ENOMEM, or -EINVAL for a document that is not a plan.
 */
int config_plan_ueid_unread(json_object *doc, const char *file);
/* The document of a file that is not valid: its errors, nothing planned. */
json_object *config_plan_invalid_json(const char *path, const struct config_errors *errors,
				      const char *planner);

/* The dry-run kernel (kernel-dryrun.c): reads from below, writes counted and not sent. */
int kernel_dryrun_new(struct kernel *below, struct kernel **ret);
unsigned kernel_dryrun_writes(struct kernel *k);
