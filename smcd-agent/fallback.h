/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fallback attribution: who fell back to TCP, and why.  The BPF program smc_fallback
 * (bpf/smc_fallback.bpf.c) reports every switch; fallback.c resolves each record to a
 * process, cgroup and systemd unit, announces it (the FallbackAttributed signal, smcctl
 * monitor) and counts it in a table of bounded size (fallback-attr.c, pure: the unit tests
 * drive it directly), which smcctl stats, D-Bus and the Prometheus textfile read.
 *
 * Bounded cardinality.  Per reason the first FBATTR_TOP_UNITS units to fall back with it
 * get a count (and a Prometheus series) of their own for the agent's lifetime; every later
 * unit adds to unit "other".  Not a true running top N: a unit moving in or out of it would
 * take its count along, so both its series and "other" would go backwards, which
 * Prometheus reads as counter resets.  With the first N every series only grows.  smcctl
 * stats and D-Bus list them by count, largest first.  At most FBATTR_MAX_REASONS reasons
 * (the kernel has about forty decline codes); a record beyond them counts in
 * other_reasons.  The bound is fixed, not configurable: 64 x 9 series at most.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/name-sanitize.h"

#define FBATTR_TOP_UNITS 8
#define FBATTR_MAX_REASONS 64
#define FBATTR_UNIT_LEN 128
#define FBATTR_OTHER "other"
/* A cgroup id the agent could not find (the cgroup was gone before it looked). */
#define FBATTR_UNKNOWN "unknown"
#define FBATTR_WHY_LEN 512

struct fbattr_unit {
	char unit[FBATTR_UNIT_LEN];
	uint64_t count;
};

struct fbattr_reason {
	uint32_t code;
	uint64_t total;
	size_t n_units;
	struct fbattr_unit units[FBATTR_TOP_UNITS];
	uint64_t other; /* units beyond the first FBATTR_TOP_UNITS */
};

struct fbattr {
	struct fbattr_reason reasons[FBATTR_MAX_REASONS]; /* sorted by code */
	size_t n_reasons;
	uint64_t other_reasons; /* records beyond FBATTR_MAX_REASONS distinct reasons */
	uint64_t events;	/* records counted */
};

/* Count one fallback with reason code of unit (a label from fbattr_label()). */
void fbattr_add(struct fbattr *a, uint32_t code, const char *unit);
/* The reason's units by count, largest first (ties by name): ret[] has FBATTR_TOP_UNITS. */
size_t fbattr_units_sorted(const struct fbattr_reason *r, struct fbattr_unit *ret);
/*
 * The label of a cgroup v2 path: its container as RUNTIME:NAME ("podman:smc-srv") when
 * container is one (common/container-ident.h; NULL or "": none), its systemd unit
 * ("nginx.service"), the user unit under a user manager ("user@1000.service/app.scope"),
 * else the path itself ("/smc-on"); NULL (the cgroup was not found) is FBATTR_UNKNOWN.
 * Through name_sanitize() (common/).
 */
void fbattr_label(const char *cgroup, const char *container, char *buf, size_t len);

/* ---- the agent's side (fallback.c) ------------------------------------------------------ */

struct manager;

/* One resolved switch, as the signal carries it. */
struct fbattr_event {
	uint64_t time_usec; /* CLOCK_REALTIME when the agent read it */
	uint64_t netns_cookie;
	uint64_t cgroup_id;
	uint32_t reason;
	bool server;
	uint32_t pid;			    /* 0: not known */
	bool pid_from_socket;		    /* found as the holder of the (listening) socket */
	char comm[NAME_SANITIZED_SIZE(16)]; /* these three through name_sanitize() */
	char cgroup[256];		    /* "" when not found */
	char unit[FBATTR_UNIT_LEN];
	uint16_t lport, rport;
	char raddr[48];
};

/*
 * Load the program and read its records from m->event.  Never fatal: without the
 * tracepoint, BTF or the rights, fallback_error() says why (logged once); retried by
 * fallback_retry() (SMC as a module loaded later).
 */
void fallback_start(struct manager *m);
void fallback_retry(struct manager *m);
void fallback_stop(struct manager *m);
/* NULL while attribution works, else why not (one sentence). */
const char *fallback_error(const struct manager *m);
/* The table (never NULL once started). */
const struct fbattr *fallback_table(const struct manager *m);
/*
 * The table as JSON, the "fallback.attribution" of GetStatistics() and smcctl -j stats:
 * {"available", "error" (null while available), "events", "lost", "other_reasons",
 *  "units_per_reason", "reasons": [{"code", "name", "total", "units": [{"unit", "count"}]
 *  (largest first, then "other" when some were summed)}]}.  NULL: out of memory.
 */
struct json_object *fallback_json(const struct manager *m);
/* Records the program lost to a full ring buffer, and signals not sent (rate limit). */
void fallback_losses(const struct manager *m, uint64_t *ret_lost, uint64_t *ret_unsignalled);
