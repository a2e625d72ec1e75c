/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The autopilot (smc.yaml auto:, smcd-agent(8) AUTOPILOT): the agent's side of
 * common/auto-rules.h.  It rides on the continuous assessment's windows: every classified
 * batch of connection records is added to the current window of its workload (the server
 * end's cgroup and port; its local clients' cgroups are noted with it, and the server
 * end's network namespace, for auto.scope.netns, whose paths are found again at every
 * window's end), the figures of a connection open across windows counted by what it moved
 * in this window only; at the end of a window every workload takes one auto_step().  In mode on,
 * the changes go to the policy engine as its autopilot entries (policy_engine_set_auto(): the
 * workload's cgroup and its clients' switched to SMC with their buffer sizes; a churning server
 * port excluded through smc_hs_ctrl), which pins them as it pins smc.yaml's policies; in mode
 * observe nothing is handed over and the table says what on would do.
 *
 * Every change of state is a journal line with MESSAGE_ID SMCD_MESSAGE_AUTO_DECISION (a
 * rollback SMCD_MESSAGE_AUTO_ROLLBACK) and a Decision signal.  The table is kept in
 * the agent's state directory (AUTOPILOT_STATE_NAME) at every change and read back at the start, so
 * that a restarted agent goes on with its experiments and hands the same entries to the first
 * reconcile (nothing it switched is pruned); a workload whose cgroup is gone is dropped then and at
 * every window end.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

struct manager;
struct assess_conn;

/* In the agent's state directory (agent_state_path(), collector.h). */
#define AUTOPILOT_STATE_NAME "autopilot.json"

/*
 * After a config load (start, reload): mode, scope and budget; off forgets everything.
 * apply applies what it hands the policy engine (the manager's reconcile, handed
 * down: the autopilot sits below the manager and never calls it).
 */
typedef int (*autopilot_reconcile_fn)(struct manager *m);
void autopilot_configure(struct manager *m, autopilot_reconcile_fn apply);
/*
 * What this kernel lets it do (switch sockets, exclude ports), probed after the reconcile
 * that followed the configuration: the probe's test socket would load the smc module,
 * which the reconcile loads itself (modules:) and reports.
 */
void autopilot_probe(struct manager *m);
void autopilot_stop(struct manager *m);

/* From the assessment: a classified batch of this window, and the window's end. */
void autopilot_batch(struct manager *m, const struct assess_conn *v, size_t n);
void autopilot_window_end(struct manager *m, uint64_t number, double seconds);
/* From the fallback attribution: a fallback of a socket of cgroup (path) on port. */
void autopilot_fallback(struct manager *m, const char *cgroup, uint16_t lport, uint16_t rport,
			bool server, uint32_t reason);

/* ---- what the bus and the textfile read (bus-autopilot.c, prometheus.c) ------------------ */

const char *autopilot_mode_name(const struct manager *m);
/* NULL while it can act as its mode says; else why not. */
const char *autopilot_error(const struct manager *m);
size_t autopilot_workloads(const struct manager *m);
uint64_t autopilot_buffer_bytes(const struct manager *m);
uint64_t autopilot_decisions(const struct manager *m);
uint64_t autopilot_rollbacks(const struct manager *m);
/* Workloads per state (enum auto_state), for the gauges. */
void autopilot_state_counts(const struct manager *m, uint64_t *ret, size_t n);
/* GetWorkloads (name NULL) or Explain (name or cgroup): NULL with -ENOENT/-ENOMEM in *ret_err. */
json_object *autopilot_json(const struct manager *m, const char *name, int *ret_err);
/* Freeze/thaw, forget: 0, -ENOENT (no such workload), -EALREADY. */
int autopilot_freeze(struct manager *m, const char *name, bool freeze);
int autopilot_forget(struct manager *m, const char *name);
