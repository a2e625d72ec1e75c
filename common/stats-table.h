/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's SMC counters as one table, and the statistics document built from it.
 *
 * Each row names one uint64_t of struct smc_stats or struct smc_fback_stats by its path in
 * the document ("smcd.rx.bytes"), which is also its D-Bus key and state-file name, and by
 * its Prometheus series.  stats_tree_new() builds the counter tree of "smcctl -j stats"
 * from a value per row, the agent once per view (since reset, total, rate;
 * smcd-agent/stats-json.c); smcctl streams the same tree of a kernel dump into a sink
 * (stats_rows_emit(), held equal to stats_tree_from_kernel() by test-cli-rows-text).  So
 * the two answers have one shape, and a new counter is one row here.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "netlink/smcnl.h"

enum stats_kind {
	STATS_COUNTER, /* only grows within a kernel epoch */
	STATS_GAUGE,   /* a current value (RMB usage, 6.12+) */
};

enum stats_source {
	STATS_SRC_STATS, /* struct smc_stats */
	STATS_SRC_FBACK, /* struct smc_fback_stats */
};

/*
 * The strings are arrays, not pointers: a table of pointers is relocated (and its pages
 * copied) at every start of a PIE program, whether it reads the table or not.
 * test-common-advice checks that every one is terminated.
 */
struct stats_desc {
	char key[40];	 /* JSON path, D-Bus key and state-file name: "smcd.rx.bytes" */
	char metric[32]; /* Prometheus family: "smc_bytes_total" */
	char labels[64]; /* its labels without braces: technology="smcd",direction="rx" */
	enum stats_kind kind;
	enum stats_source source;
	size_t offset;	    /* of the uint64_t in the source struct */
	size_t tech_offset; /* of its struct smc_stats_tech, or SIZE_MAX for global rows */
};

/* The rows in the order of the document. */
const struct stats_desc *stats_table(size_t *ret_n);
/* Row index of key, or -ENOENT. */
int stats_table_find(const char *key);
/* A row's value in a sample; *ret_valid false for a gauge the kernel did not send. */
uint64_t stats_desc_value(const struct stats_desc *d, const struct smc_stats *s,
			  const struct smc_fback_stats *f, bool *ret_valid);

/* A number of a tree: a count, or in a tree of rates a rate per second. */
struct stats_num {
	uint64_t u;
	double d;
	bool null; /* no value (JSON null): a gauge not sent, or not a rate */
};

/* One itemised fallback reason and its number. */
struct stats_tree_reason {
	bool server;
	uint32_t code;
	struct stats_num n;
};

/*
 * The counter tree: "summary", "smcd", "smcr", "handshake_errors", "fallback" (with its
 * "reasons", sorted here, in place, and "not_itemised").  rows has one number per
 * stats_table() row; rate: the tree holds the rates (d), else the counts (u).  NULL when
 * out of memory.
 */
json_object *stats_tree_new(const struct stats_num *rows, struct stats_tree_reason *reasons,
			    size_t n_reasons, bool rate);
/*
 * The numbers of one kernel dump: one per stats_table() row (rows[] has that many) and the
 * itemised reasons (reasons[] has room for 2 * SMC_FBACK_SLOTS); returns how many.
 */
size_t stats_rows_from_kernel(const struct smc_stats *s, const struct smc_fback_stats *f,
			      struct stats_num rows[], struct stats_tree_reason reasons[]);

/* What the tree derives from the rows, for a renderer that reads the rows themselves. */
struct stats_summary {
	struct stats_num total, smcd, smcr, fallback, handshake_errors;
};
void stats_rows_summary(const struct stats_num *rows, struct stats_summary *ret);
/* "smcd.connections": the tech's four handshake counters summed. */
struct stats_num stats_rows_connections(const struct stats_num *rows, const char *tech);
/* Sorts reasons[] as the tree lists them; the fallbacks of each side they do not cover. */
void stats_rows_reasons(const struct stats_num *rows, struct stats_tree_reason *reasons, size_t n,
			bool rate, struct stats_num ret_not_itemised[2]);

/* The tree of one kernel dump, as smcctl prints it without the agent. */
json_object *stats_tree_from_kernel(const struct smc_stats *s, const struct smc_fback_stats *f);
/*
 * The counter tree of stats_tree_new() (counts, not rates) emitted into a sink, key for
 * key in its order, without the technology no_smcd or no_smcr leaves out (the summary
 * still counts both): "smcctl -j stats" streamed.  Sorts reasons as stats_tree_new() does.
 */
struct out_sink;
void stats_rows_emit(struct out_sink *o, const struct stats_num *rows,
		     struct stats_tree_reason *reasons, size_t n_reasons, bool no_smcd, bool no_smcr);
/* Add n at a dotted path of a tree ("linkgroups.smcd.seen"), creating the objects above. */
int stats_tree_add(json_object *root, const char *path, struct stats_num n, bool rate);
