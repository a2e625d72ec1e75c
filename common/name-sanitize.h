/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Names that users choose, made safe for every output (common/name-sanitize.c): a
 * process's comm, a cgroup's path, a systemd unit, a network namespace's name, on D-Bus,
 * in the Prometheus textfile, in JSON and on a terminal.  The rule is in the .c file and
 * in smcctl(8) and smcd-agent(8).
 */
#include <stdbool.h>
#include <stddef.h>

/* A buffer that holds any name of len bytes sanitised: every byte as \xNN. */
#define NAME_SANITIZED_SIZE(len) ((len)*4 + 1)
/* The most any output carries of one name (json_add_name()): longer ones are cut. */
#define NAME_OUT_MAX 1024

/*
 * name, sanitised, into buf (size bytes, NUL-terminated; a longer result is cut at a
 * whole character or escape, never inside one).  NULL is "".  Returns the length written.
 */
size_t name_sanitize(const char *name, char *buf, size_t size);
/* Would name_sanitize() keep name as it is?  (It keeps its own result: it is idempotent.) */
bool name_is_clean(const char *name);
