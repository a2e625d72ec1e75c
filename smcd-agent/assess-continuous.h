/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The continuous assessment (smc.yaml assess.interval, off by default): the rules of
 * `smcctl assess` (common/assess-rules.c) over back-to-back windows, so that a fleet's
 * dashboards show where SMC would pay before it is switched on.  The tracing programs of
 * bpf/smc_assess (read-only, never pinned) stay loaded while it is on; every second the
 * agent reads the closed connections off their ring buffer, and a batch of them at a time
 * is classified and added to the window (assess_sum) and dropped, so memory does not grow
 * with the traffic.  At the end of a window the connections open then are added too, the
 * window's document replaces the last one (GetAssessment(), the Assessment interface)
 * and its gauges go into the Prometheus textfile (smc_assess_*).  smcd-agent(8), ASSESSMENT.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct manager;
struct assess_gauges;

/* Start, stop or re-time it after the configuration changed (at the start and on reload). */
void assess_configure(struct manager *m);
void assess_stop(struct manager *m);

/* ---- what the bus and the textfile read ------------------------------------------------- */

bool assess_enabled(const struct manager *m);
/* NULL when it runs (or is off); else why it cannot. */
const char *assess_error(const struct manager *m);
/* Windows completed since the start (or the last change of assess.interval). */
uint64_t assess_windows(const struct manager *m);
/* CLOCK_REALTIME end of the last window; 0: none yet. */
uint64_t assess_window_end_usec(const struct manager *m);
/* The last window's document (JSON text), NULL: none yet. */
const char *assess_document(const struct manager *m);
/* Its gauges, NULL: none yet. */
const struct assess_gauges *assess_gauges(const struct manager *m);
/* Its length in seconds and the connections the ring buffer lost in it. */
void assess_window_facts(const struct manager *m, double *ret_seconds, uint64_t *ret_dropped);
