/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers for the netlink unit tests (tests/unit/test-netlink-*.c): fixture paths, replay
 * handles, temporary folders.  cmocka must be included before this header.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netlink/smcnl.h"

/* tests/fixtures/<rel> (from $top_srcdir when set, else the configured source tree). */
const char *fixture_path(const char *rel);
/* A handle replaying tests/fixtures/<rel>, sysroot <rel>/sysroot (absent is fine). */
struct smcnl *replay_open(const char *rel);
/* The same for an absolute folder. */
struct smcnl *replay_open_abs(const char *dir);

char *tmpdir_new(void);
void tmpdir_remove(char *dir);
void write_file(const char *dir, const char *name, const void *data, size_t len);
void write_text(const char *dir, const char *name, const char *text);
/* The whole file; aborts the test when missing. */
uint8_t *read_whole(const char *path, size_t *ret_len);
