/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smcctl auto (cli/auto.c): what the tests reach.  The handlers are the table's alone
 * (verb_fn in cli/table.c).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* "Now" of the text (SINCE is relative): 0, the clock; the golden test fixes it. */
extern uint64_t auto_now_usec;
/* "42s ago", "5min ago", "2h 5min ago", "3d 4h ago"; "-" for 0, "now" for the future. */
const char *auto_fmt_ago(uint64_t then_usec, uint64_t now_usec, char *buf, size_t len);
