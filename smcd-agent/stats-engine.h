/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The statistics engine: turns samples of the kernel's SMC counters into numbers that never
 * go backwards to a reader, with a reset that is a baseline the agent holds.  No I/O here
 * besides the state file (stats-state.c); the agent's glue is collector.c, the Prometheus
 * text prometheus.c, the D-Bus interface bus-stats.c.
 *
 * Every counter has four numbers:
 *   raw       what the kernel said at the last sample
 *   total     the agent's monotonic count: it adds the kernel's increase at every sample
 *   baseline  total at the last "smcctl stats reset"; since-reset = total - baseline
 *   last/prev total at the last two samples of this process; rate = their difference / time
 *
 * The kernel's quirks (kernel-smc.md §6) and what the engine does about them:
 *   - No reset in the kernel: the baseline above (persisted, see stats-state.c), never a file
 *     in /tmp.
 *   - Per-reason fallback counts are u16 and wrap: the increase is taken modulo 65536 at
 *     every sample.  More than 65535 fallbacks of ONE reason within one interval cannot be
 *     told from fewer (the u64 per-side totals stay exact; "not itemised" absorbs the
 *     difference).
 *   - The counters restart at 0 when smc is reloaded (or its netns recreated): any u64 counter
 *     lower than at the last sample, or fewer itemised reasons than before (slots only ever
 *     fill), starts a new kernel epoch: the increase is the new raw value (counted since the
 *     reload), never a negative one, and smc_kernel_epochs_total counts the event.  What
 *     happened between the last sample and the reload is lost; a reload followed, within one
 *     interval, by more traffic than before on EVERY counter would go unnoticed.
 *   - Link groups are not counted by the kernel: the agent counts the ones it sees appear and
 *     disappear between object refreshes.  One that lives entirely between two refreshes is
 *     invisible here; its connections are still in the kernel's handshake counters
 *     (smc_handshakes_total) and its buffers in smc_buffer_events_total{event="alloc"}.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "common/stats-table.h"
#include "common/util.h"
#include "netlink/smcnl.h"

struct obj_device;
struct obj_linkgroup;
struct objects;

/* ------------------------------------------------------------------------------------- */
/* Counters                                                                               */

/*
 * The kernel's counters are the rows of stats_table() (common/stats-table.h): one table
 * drives the JSON tree, the D-Bus keys, the state file and the Prometheus series.
 */

/* Counters the agent keeps itself (the kernel has none for these). */
enum stats_agent_counter {
	STATS_LGR_SEEN_SMCD,
	STATS_LGR_SEEN_SMCR,
	STATS_LGR_REMOVED_SMCD,
	STATS_LGR_REMOVED_SMCR,
	STATS_KERNEL_EPOCHS,
	_STATS_AGENT_MAX,
};
/* "linkgroups.smcd.seen", ..., "kernel_epochs" */
const char *stats_agent_key(enum stats_agent_counter c);

/* ------------------------------------------------------------------------------------- */
/* Samples                                                                                */

/* Sockets by what they are now (smc_diag of the agent's network namespace). */
enum stats_sock {
	STATS_SOCK_SMCD,
	STATS_SOCK_SMCR,
	STATS_SOCK_FALLBACK, /* fell back to TCP */
	STATS_SOCK_LISTEN,
	STATS_SOCK_INIT, /* handshake not finished */
	_STATS_SOCK_MAX,
};
const char *stats_sock_name(enum stats_sock s);

#define STATS_SOCK_REASONS_MAX 64

struct stats_sample {
	bool ok;   /* the kernel answered GET_STATS and GET_FBACK_STATS */
	int error; /* else why (negative errno) */
	struct smc_stats stats;
	struct smc_fback_stats fback;
	bool has_sockets; /* smc_diag answered */
	uint32_t sockets[_STATS_SOCK_MAX];
	struct {
		uint32_t code;
		uint32_t count;
	} fallback_sockets[STATS_SOCK_REASONS_MAX]; /* open fallback sockets by reason */
	size_t n_fallback_sockets;
	uint64_t duration_usec; /* how long taking the sample took */
};

/*
 * Count the sockets of a dump as it is read (kernel.h's sockets op): begin, then each socket
 * through stats_sample_count_socket() (an smc_socket_fn; userdata is the sample), then end
 * with the dump's result: counted when it succeeded, left out (no socket gauges) when it
 * failed, whatever was counted before the failure.  Nothing is kept per socket.
 */
void stats_sample_sockets_begin(struct stats_sample *s);
int stats_sample_count_socket(const struct smc_socket *sock, void *userdata);
void stats_sample_sockets_end(struct stats_sample *s, int r);
/* All three over an array (tests). */
void stats_sample_count_sockets(struct stats_sample *s, const struct smc_socket *v, size_t n);

/* ------------------------------------------------------------------------------------- */
/* The engine                                                                             */

struct stats_counter {
	uint64_t raw;
	uint64_t total;
	uint64_t baseline;
	uint64_t last; /* total at the last sample of this process */
	uint64_t prev; /* total at the one before */
};

struct stats_reason {
	bool server;
	uint32_t code;
	struct stats_counter c; /* c.raw holds the kernel's u16 */
};

struct stats_lgr {
	char technology[8];
	uint32_t id;
	char device[SMC_IB_NAME_LEN + 1];
	uint64_t first_seen_usec;
	uint32_t peak_conns;
	bool exported; /* has its own Prometheus series (see stats.linkgroup-series) */
	bool present;
};

struct stats_device {
	char technology[8];
	char name[SMC_IB_NAME_LEN + 1];
	struct stats_counter seen; /* link groups seen on it */
	bool present;
};

/* What stats_engine_update() changed, for PropertiesChanged. */
enum {
	STATS_CHANGED_AVAILABLE = 1 << 0,
	STATS_CHANGED_COUNTERS = 1 << 1, /* and CountersSinceReset */
	STATS_CHANGED_RATES = 1 << 2,
	STATS_CHANGED_REASONS = 1 << 3,
	STATS_CHANGED_GAUGES = 1 << 4,
	STATS_CHANGED_EPOCH = 1 << 5,
};

struct stats_engine {
	struct stats_counter *counters; /* by stats_table() row */
	size_t n_counters;
	struct stats_counter agent[_STATS_AGENT_MAX];
	struct stats_reason *reasons;
	size_t n_reasons;
	size_t n_reasons_raw; /* itemised in the last kernel dump */
	struct stats_lgr *lgrs;
	size_t n_lgrs;
	struct stats_device *devices;
	size_t n_devices;
	uint32_t linkgroup_series; /* cap on link groups with own series */

	struct stats_sample last;  /* gauges and sockets of the last sample */
	bool available;		   /* the last sample succeeded */
	bool have_raw;		   /* raw values are from this boot's kernel */
	unsigned samples;	   /* successful samples in this process */
	bool active;		   /* the last interval changed a counter */
	uint32_t lgrs_reported[2]; /* smcd, smcr link groups at the last sample */
	uint64_t sample_mono_usec, prev_mono_usec;
	uint64_t sample_real_usec;
	uint64_t reset_real_usec; /* 0: never reset */
	bool dirty;		  /* save the state: it cannot be recomputed */
};

int stats_engine_new(uint32_t linkgroup_series, struct stats_engine **ret);
void stats_engine_free(struct stats_engine *e);

/*
 * Devices and link groups of an object refresh: first seen, peak connections, seen/removed
 * counts, and which link groups get their own Prometheus series.  Fills the agent's fields of
 * the snapshots (first_seen_usec, peak_conns, linkgroups_seen) in place.
 */
int stats_engine_track(struct stats_engine *e, struct obj_device *devs, size_t n_devs,
		       struct obj_linkgroup *lgrs, size_t n_lgrs, uint64_t real_usec);

/* Fold a sample in; returns STATS_CHANGED_* or -ENOMEM. */
int stats_engine_update(struct stats_engine *e, const struct stats_sample *s, uint64_t mono_usec,
			uint64_t real_usec);

/* "smcctl stats reset": every since-reset value starts again at 0. */
void stats_engine_reset(struct stats_engine *e, uint64_t real_usec);

enum stats_view {
	STATS_VIEW_SINCE_RESET,
	STATS_VIEW_TOTAL,
	STATS_VIEW_RATE, /* per second over the last interval */
};

uint64_t stats_counter_value(const struct stats_counter *c, enum stats_view v);
/* Per second over the last interval; false when there is no interval yet. */
bool stats_engine_rate(const struct stats_engine *e, const struct stats_counter *c, double *ret);
/* Link groups of a technology ("smcd", "smcr") now. */
uint32_t stats_engine_linkgroups(const struct stats_engine *e, const char *technology);
/* The open link group entry for technology/id, or NULL. */
const struct stats_lgr *stats_engine_lgr(const struct stats_engine *e, const char *technology,
					 uint32_t id);

/*
 * stats-json.c: the document of GetStatistics() and "smcctl -j stats" through the agent
 * (schema in smcd-agent(8)): since-reset counters at the top in the layout of the direct "stats"
 * document, then "total", "rate", "sockets", "linkgroup_list", "device_list".
 */
json_object *stats_engine_json(const struct stats_engine *e, const struct obj_device *devs,
			       size_t n_devs, const struct obj_linkgroup *lgrs, size_t n_lgrs,
			       uint64_t interval_usec);

/* The counter tree of one view (stats_tree_new(), the tree of the direct "stats" document). */
json_object *stats_engine_tree(const struct stats_engine *e, enum stats_view v);

/* ------------------------------------------------------------------------------------- */
/* State file (stats-state.c)                                                             */

/*
 * Saved with 0600 in the agent's StateDirectory, atomically; restored only when boot_id
 * matches (after a reboot the kernel starts from 0 and so does everything here).  Text,
 * one "KIND KEY VALUES" line per entry, unknown lines ignored: a newer or older agent reads
 * what it knows (the smc-tools cache broke on every layout change).
 */
/* textfile_write_atomic()'s results (common/util.h): TEXTFILE_NOT_DURABLE is saved. */
int stats_state_save(const struct stats_engine *e, const char *path, const char *boot_id,
		     int *ret_sync_error);
/*
 * Into a new engine: 1 restored, 0 nothing to restore (no file, another boot, unknown
 * version), -EBADMSG damaged or not to be trusted (cut short, garbage, too large, an entry
 * twice, a count or a time out of range: refused whole, the engine left as new; *ret_why,
 * when not NULL, says what is wrong), other <0 errors.
 */
int stats_state_load(struct stats_engine *e, const char *path, const char *boot_id,
		     const char **ret_why);
/* Renames a refused state file at path to path.broken (replacing an older one there): kept
 * for a look, out of the next start's way.  0 or -errno; *ret_path the new name. */
int stats_state_set_aside(const char *path, char **ret_path);
/* /proc/sys/kernel/random/boot_id, or "" */
void stats_boot_id(char ret[40]);

/* ------------------------------------------------------------------------------------- */
/* Prometheus (prometheus.c)                                                              */

/* The textfile (exposition format 0.0.4), every metric of smcd-agent(8), from the engine
 * and the model of the devices and link groups (objects.h).  Caller frees. */
char *prometheus_render(const struct stats_engine *e, const struct objects *objects);
/* Fallback attribution (fallback.h), for the textfile: table NULL when there is none. */
struct fbattr;
struct netns_set;
struct prom_fallback {
	const struct fbattr *table;
	bool available;
	uint64_t lost, unsignalled;
};
/* The same with the attribution's families. */
char *prometheus_render_fallback(const struct stats_engine *e, const struct objects *objects,
				 const struct prom_fallback *fb);
/*
 * The agent's own state, for the smc_agent_* and smc_loopback_state families (manager.c
 * fills it at each poll; every field a plain value, so the writer stays below the manager).
 */
/* enum auto_state's states (common/auto-rules.h): undecided ... admin. */
#define AUTO_STATES_N 7
struct prom_agent {
	const char *version;	    /* PACKAGE_VERSION */
	const char *kernel;	    /* uname release; "" unknown */
	const char *state;	    /* manager_state_to_string() */
	uint64_t drift_repairs;	    /* items repaired by the drift check since the start */
	uint64_t drifted;	    /* items drifted now and left alone (drift.action: report) */
	const char *loopback;	    /* smc_lo's device when loaded, else NULL */
	const char *loopback_state; /* its state: inactive, active, draining */
	/* The continuous assessment (assess.h): written when it is on. */
	bool assess_enabled, assess_available;
	uint64_t assess_windows, assess_dropped;
	double assess_seconds;
	const struct assess_gauges *assess; /* the last window's; NULL: none yet */
	/* The autopilot (autopilot.h): written when auto.mode is not off. */
	const char *auto_mode;		     /* NULL: off */
	uint64_t auto_states[AUTO_STATES_N]; /* workloads per state, enum auto_state's order */
	uint64_t auto_decisions, auto_rollbacks, auto_buffer_bytes, auto_budget_bytes;
	/* The other network namespaces (netns.h); NULL: the agent's own only. */
	const struct netns_set *netns;
	/* What may be reused from the last file (collector.c keeps one); NULL: nothing. */
	struct prom_cache *cache;
};

/*
 * The text of the families of the kernel's counters, fallback reasons and sockets (most of
 * the file) as last rendered, each with the values it was rendered from: a family whose
 * values did not change since is copied, not formatted again.  Zeroed: empty.
 */
#define PROM_CACHE_SLOTS 12
struct prom_cache {
	struct prom_memo {
		char *key; /* the family's values and labels, as bytes */
		size_t key_len;
		char *text;
		size_t text_len;
		const char *family; /* the last family in text (NULL: text is empty) */
	} slot[PROM_CACHE_SLOTS];
	char *key; /* the key being built */
	size_t key_len, key_cap;
	uint64_t hits, misses; /* slots reused and rendered (tests, bench/collect-bench) */
};
void prom_cache_clear(struct prom_cache *c);
/* The same with the agent's own families (a or fb may be NULL). */
char *prometheus_render_agent(const struct stats_engine *e, const struct objects *objects,
			      const struct prom_fallback *fb, const struct prom_agent *a);
/*
 * Remove the temporaries of path that a killed writer left (".NAME.XXXXXX": only ours, one
 * writer per path).  Returns how many were removed.
 */
int textfile_remove_stale(const char *path);
