/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Logging: to the journal with structured fields when stderr is journald's stream (the
 * JOURNAL_STREAM check systemd itself uses), else to stderr with the fields appended in
 * brackets, so tests and foreground runs see the same information.
 */
#pragma once

#include <syslog.h>

#include "common/macro.h"

/* MESSAGE_IDs an operator searches for (journalctl MESSAGE_ID=...); listed in smcd-agent(8). */
#define SMCD_MESSAGE_CONFIG_REJECTED "0d7968fa65244a9589ece3f9ca7f6fe8"
#define SMCD_MESSAGE_DRIFT_REPAIRED "176145134e62472abf3d96f24b5d4150"
#define SMCD_MESSAGE_CAPABILITY_MISSING "6e552d9a0f3548db8e01eb3681825728"
#define SMCD_MESSAGE_DRIFT_DETECTED "8d07db1a2e8d4df781881709d83c7634"
#define SMCD_MESSAGE_ITEM_FAILED "05e4b7b8237243659a9dfcceb8174707"
#define SMCD_MESSAGE_CONFIG_APPLIED "71498faa2f2549879f8ae203b25b87ce"

void log_setup(void);

/*
 * fields: NULL or a NULL-terminated list of "KEY=value" journal fields.  Formats with errno
 * set to |err| (so %m works) and returns -|err| (or 0), systemd style.
 */
_printf_(4, 5) int log_fields(int level, int err, const char *const *fields, const char *fmt, ...);

#define log_debug(...) log_fields(LOG_DEBUG, 0, NULL, __VA_ARGS__)
#define log_info(...) log_fields(LOG_INFO, 0, NULL, __VA_ARGS__)
#define log_notice(...) log_fields(LOG_NOTICE, 0, NULL, __VA_ARGS__)
#define log_warning(...) log_fields(LOG_WARNING, 0, NULL, __VA_ARGS__)
#define log_error(...) log_fields(LOG_ERR, 0, NULL, __VA_ARGS__)
#define log_warning_errno(e, ...) log_fields(LOG_WARNING, (e), NULL, __VA_ARGS__)
#define log_error_errno(e, ...) log_fields(LOG_ERR, (e), NULL, __VA_ARGS__)
