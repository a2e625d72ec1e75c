/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smcctl support-bundle (cli/bundle.c): everything a bug report about SMC on this host needs,
 * in one tar.gz with a manifest, the machine ID replaced by its UEID.  Option indexes are
 * shared with cli/table.c.
 */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cli/smcctl.h"

enum { BUNDLE_OPT_OUTPUT };

/* The version of the archive's layout and of manifest.json (smcctl(8), SUPPORT BUNDLE). */
#define BUNDLE_FORMAT_VERSION 1

int bundle_create(struct smcctl *c, const struct verb_args *a);

/*
 * Replace every occurrence of the 32 hex digits of machine_id (in any case, plain or as a
 * UUID with dashes) in buf[0..len) by replacement (at most 32 bytes).  Returns the new text
 * (malloc'ed, NUL terminated, its length in *ret_len) and the number of occurrences in *ret_n, or
 * NULL when out of memory.  Exported for the unit test.
 */
char *bundle_scrub(const char *buf, size_t len, const char *machine_id, const char *replacement,
		   size_t *ret_len, size_t *ret_n);

/*
 * The same for a word (a UEID derived from the machine ID), compared in any case; NUL bytes
 * in buf are data.  replacement must not be longer than word.
 */
char *bundle_scrub_word(const char *buf, size_t len, const char *word, const char *replacement,
			size_t *ret_len, size_t *ret_n);

/*
 * The network namespaces of this host that support-bundle can reach: every one a process
 * lives in (PROC/PID/ns/net) and every one bound to a name in RUN_NETNS, each once (the
 * device and inode of its nsfs file are its identity).  Named ones first, by name, then the
 * unnamed ones by inode.  Exported for the unit test, which passes a tree of its own.
 */
struct bundle_netns {
	dev_t dev;
	ino_t ino;
	bool self;		 /* smcctl's own (PROC/self/ns/net) */
	char name[NAME_MAX + 1]; /* its first name in RUN_NETNS (sorted); "" when none */
	size_t n_names;		 /* how many names RUN_NETNS has for it */
	pid_t *pids;		 /* the processes in it, ascending */
	size_t n_pids;
};

struct bundle_netns_list {
	struct bundle_netns *ns;
	size_t n;
	/* Processes whose namespace could not be read (another user's, without root). */
	size_t unreadable;
	/* errno of listing RUN_NETNS (ENOENT, "no name given to any", is no error), else 0. */
	int run_netns_errno;
};

/* 0, or -errno when out of memory or PROC cannot be listed at all. */
int bundle_netns_scan(const char *proc, const char *run_netns, struct bundle_netns_list *ret);
void bundle_netns_list_done(struct bundle_netns_list *l);
