/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The autopilot's decisions, pure (smc.yaml auto:, smcd-agent(8) AUTOPILOT): per workload a
 * series of windows in, a decision with its evidence out.  No kernel, no clock, no files:
 * the agent (smcd-agent/autopilot.c) feeds each workload the figures the continuous
 * assessment measured for it in a window, acts on what auto_step() returns and keeps the
 * table; the unit test (tests/unit/test-common-auto.c) feeds recorded windows.
 *
 * A workload is an application of the assessment (its cgroup: a unit, a container) with the
 * server port most of its accepted connections came to (0: none, a client only).  States:
 *
 *   undecided    fewer than params.min_windows windows with params.min_conns connections
 *   tcp          the evidence says SMC would not pay (short-lived churn, tiny exchanges,
 *                peers SMC cannot reach); with a server port on a kernel with smc_hs_ctrl,
 *                the port is excluded so its SMC clients do not pay for the handshake
 *   trial        switched to SMC; params.trial_windows windows are compared with the
 *                baseline (the last TCP windows) before it is kept
 *   smc          kept on SMC: the trial was not worse beyond the noise
 *   rolled-back  the trial was worse: back on TCP, held there for hold windows (doubling
 *                with every rollback, up to params.max_hold_windows) before it is tried again
 *   frozen       the operator froze it (smcctl auto freeze): nothing changes until thawed
 *   admin        an explicit smc.yaml entry covers it: never touched, only shown
 *
 * Noise: a figure is worse when it fell below the baseline's mean by more than
 * max(params.noise_floor, params.noise_k x the baseline's relative spread), at most
 * params.noise_cap (a fall by half is worse however noisy the baseline), the spread being
 * the mean absolute deviation of the baseline windows.  One window above the line does not
 * switch back a kept decision; params.hysteresis_windows in a row do (no flapping).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "common/assess-rules.h"

#define AUTO_NAME_LEN ASSESS_CGROUP_LEN
#define AUTO_WHY_LEN 256
/* Windows of figures kept per workload (the baseline and the trial are taken from them). */
#define AUTO_HISTORY 8
/* Workloads the agent follows at once; those beyond are not decided (said in the table). */
#define AUTO_WORKLOADS_MAX 256

enum auto_state {
	AUTO_UNDECIDED,
	AUTO_TCP,
	AUTO_TRIAL,
	AUTO_SMC,
	AUTO_ROLLED_BACK,
	AUTO_FROZEN,
	AUTO_ADMIN,
	_AUTO_STATE_MAX,
};
/* "undecided", "tcp", "trial", "smc", "rolled-back", "frozen", "admin"; NULL out of range. */
const char *auto_state_name(enum auto_state s);
/* -EINVAL for a name not in the list. */
int auto_state_from_name(const char *name, enum auto_state *ret);

/* What carried the workload's connections in a window. */
enum auto_carrier {
	AUTO_CARRIER_TCP,
	AUTO_CARRIER_SMC,
};

/*
 * One window of one workload: what the continuous assessment measured for its connections
 * (those that closed in the window and those open at its end), and what the fallback
 * attribution counted for its cgroup.
 */
struct auto_window {
	uint64_t number; /* the assessment's window number */
	double seconds;	 /* its length */
	enum auto_carrier carrier;
	uint64_t conns;		/* connections */
	uint64_t conns_short;	/* closed ones that lived < thresholds.short_ns */
	uint64_t conns_tiny;	/* moved < tiny_bytes in < tiny_sends */
	uint64_t conns_unreach; /* SMC cannot reach the peer (reach none) */
	uint64_t conns_failed;	/* never established */
	uint64_t conns_open;	/* open at the window's end: buffers held at once */
	uint64_t closed;	/* closed in the window */
	uint64_t lifetime_ns;	/* summed over the closed ones */
	uint64_t bytes;		/* both directions */
	uint64_t sends;
	uint64_t hist[ASSESS_BUCKETS]; /* send sizes */
	uint64_t fallbacks;	       /* SMC fell back to TCP (fallback attribution) */
	uint64_t handshake_errors;     /* of those, the declines that were errors */
};

/* The figures a trial is judged by, per second of the window: higher is better, except
 * connect_ms (mean lifetime of a closed connection), where lower is better. */
struct auto_figures {
	double bytes_per_s;
	double sends_per_s; /* requests */
	double conns_per_s;
	double connect_ms; /* 0: no closed connection */
};
void auto_figures_of(const struct auto_window *w, struct auto_figures *ret);

struct auto_params {
	unsigned min_windows;	     /* windows of evidence before a first decision: 2 */
	uint64_t min_conns;	     /* connections in a window for it to count: 4 */
	unsigned trial_windows;	     /* windows on SMC before a trial is judged: 2 */
	unsigned hysteresis_windows; /* windows in a row against a kept decision: 3 */
	double noise_floor;	     /* 0.10: 10 % */
	double noise_k;		     /* 3 */
	double noise_cap;	     /* 0.5: the line is never above 50 % */
	unsigned hold_windows;	     /* after a first rollback: 4 (then 8, 16, ...) */
	unsigned max_hold_windows;   /* 64 */
	bool hs_ctrl;		     /* the kernel has smc_hs_ctrl (ports can be excluded) */
	bool can_switch; /* the kernel can switch sockets to SMC (update_socket_protocol) */
	bool observing;	 /* mode observe: nothing is switched, a trial waits for ever */
	struct assess_thresholds th; /* the assessment's classes */
};
void auto_params_default(struct auto_params *p);

struct auto_workload {
	char name[AUTO_NAME_LEN];   /* as the assessment names the application (its label) */
	char cgroup[AUTO_NAME_LEN]; /* below the cgroup2 root, "/system.slice/redis.service" */
	uint16_t port;		    /* its server port, 0: none */
	/* The network namespace of its server end (of itself when its server is elsewhere),
	 * as the last window saw it: its cookie, 0 unknown (auto.scope.netns). */
	uint64_t netns_cookie;
	enum auto_state state;
	enum auto_state before_freeze; /* frozen: what it was */
	uint64_t since_usec;	       /* CLOCK_REALTIME of the last change of state */
	uint64_t since_window;
	char why[AUTO_WHY_LEN]; /* the reason of the current state, one sentence */
	/* The figures of the last windows, oldest first. */
	struct auto_window hist[AUTO_HISTORY];
	size_t n_hist;
	/* The trial: its baseline (mean and relative spread of the TCP windows before it). */
	struct auto_figures baseline, baseline_spread;
	unsigned trial_seen;	 /* SMC windows of the trial so far */
	bool excluded;		 /* tcp: its server port is excluded (AUTO_ACT_EXCLUDE was asked) */
	unsigned against;	 /* windows in a row that spoke against the kept decision */
	unsigned rollbacks;	 /* over its life */
	uint64_t hold_until;	 /* rolled-back: no new trial before this window number */
	uint32_t sndbuf, rcvbuf; /* SMC buffer sizes chosen for it (0: the host's) */
};

/* What auto_step() asks the agent to do. */
enum auto_action {
	AUTO_ACT_NONE,
	AUTO_ACT_SMC_ON,  /* add the workload's cgroup to the SMC policy (with its buffers) */
	AUTO_ACT_SMC_OFF, /* take it out again (a rollback, or the evidence turned) */
	AUTO_ACT_EXCLUDE, /* keep its server port on TCP for every client (hs_ctrl) */
	AUTO_ACT_INCLUDE, /* drop that exclusion again */
};
/* "none", "smc-on", "smc-off", "exclude", "include". */
const char *auto_action_name(enum auto_action a);

struct auto_change {
	enum auto_action action;
	enum auto_state from, to;
	bool rollback; /* the change is a rollback (journal: SMCD_MESSAGE_AUTO_ROLLBACK) */
	char why[AUTO_WHY_LEN];
};

/*
 * Add one window to the workload and decide: *ret says what to do (action NONE: nothing)
 * and why.  now_usec becomes since_usec when the state changes.  frozen and admin
 * workloads only record the window.
 */
void auto_step(struct auto_workload *w, const struct auto_window *win, uint64_t now_usec,
	       const struct auto_params *p, struct auto_change *ret);

/*
 * Buffer sizes for the workloads on SMC (state trial or smc), within budget bytes (0: no
 * budget).  Each one's wish: assess_buffer_size() of its send sizes for both buffers; what
 * it holds: (sndbuf + rcvbuf) x its open connections (at least 1).  When the wishes exceed
 * the budget the largest are halved first, never below 16 KiB.  Sets sndbuf/rcvbuf of each
 * and returns the bytes the chosen sizes hold; *ret_changed[i] (may be NULL) says whose changed.
 */
uint64_t auto_size_buffers(struct auto_workload *v, size_t n, uint64_t budget, bool *ret_changed);

/* Freeze (the state is kept in before_freeze) or thaw; -EALREADY when already so. */
int auto_freeze(struct auto_workload *w, bool freeze, uint64_t now_usec);

/*
 * The workload as the agent shows it: {name, cgroup, port, state, since_usec, why, sndbuf,
 * rcvbuf, rollbacks}; with evidence also {netns_cookie, windows: [{number, carrier, seconds,
 * conns, bytes_per_s, sends_per_s, conns_per_s, connect_ms, fallbacks, ...}], baseline,
 * baseline_spread, trial_seen, hold_until} (smcctl auto explain).  NULL: out of memory.
 */
json_object *auto_workload_json(const struct auto_workload *w, bool evidence);

/*
 * The table across restarts: auto_workload_json(w, true) of each, and back.  The text read
 * back is data: a field out of range, a name that is not a state, a cgroup that is not an
 * absolute path: -EINVAL with what was wrong in why (the agent then starts with an empty
 * table and says so).  netns_cookie may be missing (a table of an older agent): 0.
 */
int auto_workload_from_json(json_object *o, struct auto_workload *ret, char *why, size_t len);
