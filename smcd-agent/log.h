/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Logging: to the journal with structured fields when stderr is journald's stream (the
 * JOURNAL_STREAM check systemd itself uses), else to stderr with the fields appended in
 * brackets, so tests and foreground runs see the same information.
 *
 * Rate limit: anyone on the bus can make the agent log (a refused call, an enrollment), so
 * every place in the code that logs may write at most LOG_RATELIMIT_BURST messages per
 * LOG_RATELIMIT_INTERVAL_USEC; the rest of that window is counted, and when the window ends
 * one line says how many were suppressed and quotes the first of them.  journald's own
 * RateLimitBurst= applies to the whole service and would drop the agent's important lines
 * together with the flood.  Never limited: debug messages (asked for), and the
 * reconciliation's reports, which carry MESSAGE_ID= or SMC_ITEM= and are already logged
 * once per change by their callers (a file with 30 items applied or failing shows all 30).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <syslog.h>

#include "common/clock.h"
#include "common/macro.h"

/* MESSAGE_IDs an operator searches for (journalctl MESSAGE_ID=...); listed in smcd-agent(8). */
#define SMCD_MESSAGE_CONFIG_REJECTED "0d7968fa65244a9589ece3f9ca7f6fe8"
#define SMCD_MESSAGE_DRIFT_REPAIRED "176145134e62472abf3d96f24b5d4150"
#define SMCD_MESSAGE_CAPABILITY_MISSING "6e552d9a0f3548db8e01eb3681825728"
#define SMCD_MESSAGE_DRIFT_DETECTED "8d07db1a2e8d4df781881709d83c7634"
#define SMCD_MESSAGE_ITEM_FAILED "05e4b7b8237243659a9dfcceb8174707"
#define SMCD_MESSAGE_CONFIG_APPLIED "71498faa2f2549879f8ae203b25b87ce"
#define SMCD_MESSAGE_AUTO_DECISION "3b0c6f2e9a7d4c1e8f5a2b6d9e0c4f17"
#define SMCD_MESSAGE_AUTO_ROLLBACK "c85e1d7a4f2b49e6a0d3b8f1e6c27a94"

#define LOG_RATELIMIT_BURST 10
#define LOG_RATELIMIT_INTERVAL_USEC (30 * USEC_PER_SEC)

void log_setup(void);
/* Messages above level are dropped; returns the previous level.  The dry run (plan.c)
 * lowers it so that the loopback reconciler's lines about what it did are not logged for
 * what it only planned. */
int log_set_max_level(int level);

/*
 * fields: NULL or a NULL-terminated list of "KEY=value" journal fields.  Formats with errno
 * set to |err| (so %m works) and returns -|err| (or 0), systemd style; a message the rate
 * limit suppresses returns the same.  file and line name the place that logs (the key of
 * the rate limit): use log_fields(), which fills them in.
 */
_printf_(6, 7) int log_fields_at(const char *file, int line, int level, int err,
				 const char *const *fields, const char *fmt, ...);
#define log_fields(...) log_fields_at(__FILE__, __LINE__, __VA_ARGS__)

#define log_debug(...) log_fields(LOG_DEBUG, 0, NULL, __VA_ARGS__)
#define log_info(...) log_fields(LOG_INFO, 0, NULL, __VA_ARGS__)
#define log_notice(...) log_fields(LOG_NOTICE, 0, NULL, __VA_ARGS__)
#define log_warning(...) log_fields(LOG_WARNING, 0, NULL, __VA_ARGS__)
#define log_error(...) log_fields(LOG_ERR, 0, NULL, __VA_ARGS__)
#define log_warning_errno(e, ...) log_fields(LOG_WARNING, (e), NULL, __VA_ARGS__)
#define log_error_errno(e, ...) log_fields(LOG_ERR, (e), NULL, __VA_ARGS__)

/*
 * The summaries of windows that have ended (all: of every window, at exit).  Also done by
 * every log call; the manager calls it from a timer at log_ratelimit_deadline(), so that a
 * flood that stops is summed up on time.
 */
void log_ratelimit_flush(bool all);
/* When the first window with suppressed messages ends (CLOCK_MONOTONIC usec); 0: none. */
uint64_t log_ratelimit_deadline(void);
/* fn is called whenever a window starts suppressing (from inside a log call: it must not
 * log), so that the caller can arm its timer. */
void log_ratelimit_set_wakeup(void (*fn)(void *userdata), void *userdata);
/* Tests: another burst and interval (0, 0: the defaults) and clock (NULL: CLOCK_MONOTONIC). */
void log_ratelimit_setup(unsigned burst, uint64_t interval_usec, uint64_t (*now)(void));
