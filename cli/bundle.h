/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smcctl support-bundle (cli/bundle.c): everything a bug report about SMC on this host needs,
 * in one tar.gz with a manifest, the machine ID replaced by its UEID.  Option indexes are
 * shared with cli/table.c.
 */
#pragma once

#include <stddef.h>

#include "cli/smcctl.h"

enum { BUNDLE_OPT_OUTPUT };

/* The version of the archive's layout and of manifest.json (smcctl(8), SUPPORT BUNDLE). */
#define BUNDLE_FORMAT_VERSION 1

int bundle_create(struct smcctl *c, const struct verb_args *a);

/*
 * Replace every occurrence of the 32 hex digits of machine_id (in any case, plain or as a
 * UUID with dashes) in buf[0..len) by replacement.  Returns the new text (malloc'ed, NUL
 * terminated, its length in *ret_len) and the number of occurrences in *ret_n, or NULL when
 * out of memory.  Exported for the unit test.
 */
char *bundle_scrub(const char *buf, size_t len, const char *machine_id, const char *replacement,
		   size_t *ret_len, size_t *ret_n);
