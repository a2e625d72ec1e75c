/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Advice from the SMC counters: what the numbers of `smcctl stats` mean for the operator,
 * as a list of findings with a stable id each ("smc-tx-buffer-full").  Pure functions of
 * the counter rows (one per stats_table() row: a kernel dump, or the agent's since-reset
 * view) and of the few settings they are judged against (net.smc.wmem/rmem, the handshake
 * limitation), so `smcctl stats` (both paths) and `smcctl info` compute them in one place.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>

#include "common/stats-table.h"

/* What the counters are judged against; read by the caller (smcctl) in the same netns. */
struct advice_env {
	bool has_wmem, has_rmem; /* false: the sysctl could not be read */
	int64_t wmem, rmem;	 /* net.smc.wmem / rmem, bytes */
	int hs_limit;		 /* handshake limitation: 1 on, 0 off, -1 unknown */
	/*
	 * Optional: fills in the values above when a rule first needs them, so that they are
	 * read only when the counters call for a rule that names them (on most hosts never:
	 * two sysctl reads and a netlink dump saved).  It gets advice_compute()'s own copy
	 * of the env.  NULL: the values are there already.
	 */
	void (*load)(struct advice_env *env);
	void *userdata; /* for load */
};

enum advice_severity {
	ADVICE_INFO,
	ADVICE_WARNING,
};

#define ADVICE_MAX 8

struct advice {
	const char *id; /* stable, kebab case: "smc-tx-buffer-full" */
	enum advice_severity severity;
	/* The numbers it is based on: count of total (e.g. buffer full of send requests). */
	const char *count_what, *total_what; /* "tx_buffer_full", "tx_requests" */
	uint64_t count, total;
	const char *sysctl; /* "wmem", "rmem" or NULL */
	int64_t current;    /* the sysctl's value, -1 when unknown */
	int64_t suggested;  /* a value to set, 0 for none */
	char config[64];    /* the smc.yaml line, "" for none */
	char text[400];	    /* one paragraph for the operator */
};

/*
 * The advice for these rows (stats_table() order; a missing row or a rate tree gives no
 * advice: advice is about counts) and the itemised fallback reasons; at most max entries
 * in out[] (ADVICE_MAX is enough for every rule); returns how many.
 */
size_t advice_compute(const struct stats_num *rows, const struct stats_tree_reason *reasons,
		      size_t n_reasons, const struct advice_env *env, struct advice out[],
		      size_t max);
/* The rows of a counter tree ("smcctl -j stats" or the agent's view), for advice_compute(). */
void advice_rows_from_tree(json_object *tree, struct stats_num rows[]);
/* The itemised fallback reasons of a tree; returns how many (at most max). */
size_t advice_reasons_from_tree(json_object *tree, struct stats_tree_reason reasons[], size_t max);

const char *advice_severity_name(enum advice_severity s);
struct out_sink;
/* The "advice" array under key (NULL: the root) and its text block ("\nAdvice\n  ...",
 * nothing when there is no advice), each field emitted once into the sink
 * (common/output.h). */
void advice_emit(struct out_sink *o, const char *key, const struct advice *a, size_t n);
/* The "advice" array of a document: [{ "id", "severity", "text", ... }]; NULL on ENOMEM. */
json_object *advice_json(const struct advice *a, size_t n);
/* The same text block from an "advice" array (the agent's answer, read back by smcctl
 * stats) into a text sink. */
void advice_text_json(struct out_sink *o, json_object *arr);
