/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The agent's statistics state (collector.c); bus-stats.c reads it. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "smcd-agent/stats.h"

struct manager;

/* Beyond STATS_CHANGED_*: what else bus_stats_emit_changed() may be told. */
enum {
	COLLECTOR_CHANGED_PROMETHEUS = 1 << 8,
	COLLECTOR_CHANGED_INTERVAL = 1 << 9,
	COLLECTOR_CHANGED_RESET = 1 << 10,
};

struct collector {
	struct stats_engine *engine;
	sd_event_source *timer; /* only when stats.interval differs from monitor.interval */
	uint64_t interval_usec;
	char *state_path;
	char boot_id[40];
	int state_error;
	int sample_error;
	uint64_t last_sample_mono_usec;
	char *prom_path;   /* NULL: not writing */
	bool prom_written; /* this process wrote prom_path */
	int prom_error;
	char *prom_error_text; /* PrometheusError; NULL when writing works */
};

/* A sample unless the last one is younger than 250 ms. */
int collector_sample_on_demand(struct manager *m);
/* ResetStatistics(): the baseline, saved at once. */
void collector_reset(struct manager *m);
