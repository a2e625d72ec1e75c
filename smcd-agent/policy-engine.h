/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The agent's side of smc.yaml "policies:" and of "smcctl run" through the agent: it owns
 * the BPF programs of bpf/ (through libsmcbpf) and keeps them as the config says, with the
 * same observe -> plan (pure) -> apply split as reconcile.c.
 *
 * Items (LastReconcile, smcctl policy list):
 *   policy:cgroup:PATH     sockets of the cgroup PATH (below the cgroup2 root) and its
 *                          descendants become SMC
 *   policy:netns:PATH      sockets created in that network namespace become SMC
 *   policy:exclude:TEXT    connections whose server end matches TEXT stay TCP
 *
 * Who holds what: the kernel, through pins under SMCBPF_PIN_DIR (libsmcbpf), so that a
 * stopped, crashed or upgrading agent leaves enrollments, policies and exclusions in
 * force; the first reconcile adopts them (or replaces them when they are another build's)
 * and prunes what smc.yaml no longer asks for.  Selection is loaded when the config has
 * cgroups/netns entries or a caller enrolled a process (EnrollProcess, for smcctl run), and
 * then stays for the enrolled processes (adopted selection too: they cannot be listed).
 * Exclusions are registered while the config has exclude entries.  smcctl policy flush
 * removes it all.  When pinning fails (no bpffs), everything is the agent's as before:
 * stopping it unregisters the exclusions and clears net.smc.hs_ctrl where it named them.
 *
 * Targets are looked up at every reconcile (drift.interval): a netns created later is found
 * then; a cgroup created later is found at once by the cgroup_mkdir program.  Containers are
 * therefore best matched by their parent cgroup (machine.slice, system.slice's docker-*
 * scopes' parent): covered from their first socket, whatever netns they get.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/smcbpf-abi.h"
#include "config/config.h"
#include "smcd-agent/reconcile.h"

#define POLICY_WHY_LEN 512
#define POLICY_NAME_LEN REPORT_ITEM_NAME_LEN

/* What this kernel can do; probed when first needed, again after a reload. */
struct policy_caps {
	bool probed;
	int select_err; /* 0: TCP sockets can be switched to SMC (update_socket_protocol) */
	char select_why[POLICY_WHY_LEN];
	int excl_err; /* 0: exclusions can be enforced (smc_hs_ctrl) */
	char excl_why[POLICY_WHY_LEN];
};

/* A cgroups:/netns: entry after lookup. */
struct policy_target {
	int err;      /* 0, -ENOENT (not there, yet) or another errno */
	uint64_t key; /* cgroup id, netns cookie */
};

struct policy_map_entry {
	uint64_t key;
	uint32_t idx;
};

/* One network namespace and its net.smc.hs_ctrl. */
struct policy_netns_hs {
	char path[64]; /* /proc/PID/ns/net or /run/netns/NAME */
	int err;       /* reading failed: -ENOENT means no SMC sysctls there */
	char value[16];
};

/* Everything the planner looks at.  Map contents are listed before targets are looked up
 * (see policy.c), so an entry the cgroup_mkdir program adds meanwhile is never removed. */
struct policy_observed {
	bool select_loaded;
	bool mkdir_attached;
	uint32_t n_cgroup_rules, n_netns_rules;
	struct policy_map_entry *cgroup_ids;
	size_t n_cgroup_ids;
	struct policy_map_entry *netns;
	size_t n_netns;
	char (*paths)[SMCBPF_CGROUP_PATH_MAX];
	uint32_t *path_idx;
	size_t n_paths;
	struct policy_target *cgroups;	     /* parallel to config cgroups */
	struct policy_target *netns_targets; /* parallel to config netns */
	bool excl_loaded;
	bool excl_others_alive; /* an older registration of our name that a netns still holds */
	struct smcbpf_excl_rule rules[SMCBPF_MAX_EXCL];
	size_t n_rules;
	struct policy_netns_hs *hs;
	size_t n_hs;
	bool keep_select; /* a process was enrolled: selection stays loaded */
};

void policy_observed_clear(struct policy_observed *o);

enum policy_op_type {
	POP_SELECT_LOAD,
	POP_PATH_PUT,
	POP_PATH_DEL,
	POP_CGID_PUT,
	POP_CGID_DEL,
	POP_NETNS_PUT,
	POP_NETNS_DEL,
	POP_RULE_COUNTS,
	POP_MKDIR_ATTACH,
	POP_SELECT_UNLOAD,
	POP_EXCL_LOAD,
	POP_EXCL_RULES,
	POP_HS_SET,
	POP_EXCL_UNLOAD,
};

const char *policy_op_to_string(enum policy_op_type t);

/* Which items an op's failure fails. */
#define POLICY_ITEM_NONE (-1)
#define POLICY_ITEM_ALL_RULES (-2)   /* every cgroup and netns item */
#define POLICY_ITEM_ALL_EXCLUDE (-3) /* every exclude item */

struct policy_op {
	enum policy_op_type type;
	int item;
	uint64_t key;
	uint32_t idx, idx2;
	bool on;
	char path[SMCBPF_CGROUP_PATH_MAX]; /* cgroup path or netns path */
	char value[16];			   /* POP_HS_SET */
};

enum policy_item_state {
	PI_OK,		/* in effect, nothing to do */
	PI_WAITING,	/* nothing to do until the target appears (not a fault) */
	PI_CHANGE,	/* ops below change the kernel for it */
	PI_UNSUPPORTED, /* this kernel cannot */
	PI_FAILED,
};

struct policy_item {
	char name[POLICY_NAME_LEN];
	char kind[8]; /* cgroup, netns, exclude */
	char target[SMCBPF_CGROUP_PATH_MAX];
	enum policy_item_state state;
	char message[256];
	int counter;  /* smc_select counter slot, or -1 */
	int excl;     /* smc_excl rule index, or -1 */
	bool waiting; /* the target does not exist (yet): nothing switched, not a fault */
};

struct policy_plan {
	struct policy_item *items;
	size_t n_items;
	struct policy_op *ops;
	size_t n_ops;
};

void policy_plan_clear(struct policy_plan *p);

/* The exclusion rules of the config, as the BPF program takes them. */
size_t policy_excl_rules(const struct config_policies *c, struct smcbpf_excl_rule *ret);

/* Pure: config + caps + observation -> items and ops. */
int policy_plan(const struct config_policies *c, const struct policy_caps *caps,
		const struct policy_observed *o, struct policy_plan *ret);

/* ---- the engine (policy.c; real kernel) -------------------------------------------------- */

struct policy_engine;

int policy_engine_new(struct policy_engine **ret);
/*
 * Never touch the kernel: every policy is unsupported with this reason.  For the fake-kernel
 * test agent, which runs on the build host (whose kernel must not get BPF programs from a
 * test).
 */
void policy_engine_no_kernel(struct policy_engine *e, const char *why);
/* Unregisters the exclusions (clearing net.smc.hs_ctrl where it is ours), frees the rest. */
struct policy_engine *policy_engine_free(struct policy_engine *e);

/*
 * The autopilot's entries (autopilot.c): cgroups switched to SMC with their buffer sizes
 * (0: the host's) and server ports kept TCP, appended to smc.yaml's policies at every
 * reconcile (and dry run) until the next call; their items and Sources say "autopilot".
 * Entries beyond what the BPF maps hold (smc.yaml's first) are left out, and a cgroup or
 * port smc.yaml names itself is smc.yaml's.  Copied; applied at the next reconcile.
 */
#define POLICY_AUTO_MAX 64
#define POLICY_AUTO_SOURCE "autopilot"
struct policy_auto {
	struct {
		char path[SMCBPF_CGROUP_PATH_MAX];
		uint32_t sndbuf, rcvbuf;
	} cgroups[POLICY_AUTO_MAX];
	size_t n_cgroups;
	uint16_t ports[POLICY_AUTO_MAX];
	size_t n_ports;
};
void policy_engine_set_auto(struct policy_engine *e, const struct policy_auto *a);
/* What this kernel can do, probed now if it was not (the autopilot decides by it). */
void policy_engine_probe(struct policy_engine *e);
/* What the last call handed over (Sources names them: POLICY_AUTO_SOURCE). */
const struct policy_auto *policy_engine_auto(const struct policy_engine *e);

/* Observe, plan, apply; appends one item_report per item to ret. */
int policy_reconcile(struct policy_engine *e, const struct config *c, struct report *ret);

/* The same observe and plan without apply, for the dry run (plan.c); ret: policy_plan()'s. */
int policy_plan_dry(struct policy_engine *e, const struct config *c, struct policy_plan *ret);

/*
 * smcctl run through the agent: enroll the process behind pidfd.  On failure why says
 * why (for the caller); on success note is empty or says what was not applied.
 */
int policy_enroll(struct policy_engine *e, int pidfd, uint32_t sndbuf, uint32_t rcvbuf, char *why,
		  size_t len);

/* For D-Bus: the items of the last reconcile with their socket counts. */
struct policy_status {
	const struct policy_item *item;
	uint64_t sockets; /* switched to SMC (cgroup, netns) or kept TCP (exclude) */
};
int policy_status(struct policy_engine *e, struct policy_status **ret, size_t *ret_n);
/* Capabilities and counters of the engine as key/value pairs, for D-Bus Hooks. */
struct policy_hooks {
	bool select;
	const char *select_why;
	bool buffers;
	const char *buffers_why;
	bool exclude;
	const char *exclude_why;
	bool select_loaded;
	bool exclude_loaded;
	uint64_t enrolled;
	bool pinned;	     /* what is loaded outlives the agent (SMCBPF_PIN_DIR) */
	const char *pin_why; /* why not, "" when pinned */
	bool adopted;	     /* taken over from an earlier agent */
	uint64_t run_sockets;
	uint64_t inherit_failures;
};
void policy_hooks(struct policy_engine *e, struct policy_hooks *ret);
