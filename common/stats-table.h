/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's SMC counters as one table.
 *
 * Each row names one uint64_t of struct smc_stats or struct smc_fback_stats by its path in
 * the statistics document ("smcd.rx.bytes"), which is also its D-Bus key and state-file
 * name, and by its Prometheus series.  Below both smcctl and the agent, so that both can
 * build the document from it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netlink/smcnl.h"

enum stats_kind {
	STATS_COUNTER,  /* only grows within a kernel epoch */
	STATS_GAUGE,    /* a current value (RMB usage, 6.12+) */
};

enum stats_source {
	STATS_SRC_STATS, /* struct smc_stats */
	STATS_SRC_FBACK, /* struct smc_fback_stats */
};

struct stats_desc {
	const char *key;        /* JSON path, D-Bus key and state-file name: "smcd.rx.bytes" */
	const char *metric;     /* Prometheus family: "smc_bytes_total" */
	const char *labels;     /* its labels without braces: technology="smcd",direction="rx" */
	enum stats_kind kind;
	enum stats_source source;
	size_t offset;          /* of the uint64_t in the source struct */
	size_t tech_offset;     /* of its struct smc_stats_tech, or SIZE_MAX for global rows */
};

/* The rows in the order of the document. */
const struct stats_desc *stats_table(size_t *ret_n);
/* Row index of key, or -ENOENT. */
int stats_table_find(const char *key);
/* A row's value in a sample; *ret_valid false for a gauge the kernel did not send. */
uint64_t stats_desc_value(const struct stats_desc *d, const struct smc_stats *s,
			  const struct smc_fback_stats *f, bool *ret_valid);
