/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rate limit of the methods anyone may call (bus-access.c): one entry per caller uid,
 * never a slot shared between callers, so that no set of users can use up another's calls.
 *
 * The bus vouches for a caller's uid (it cannot be forged), so distinct uids are distinct
 * accounts; the table grows with them (a hash table, open addressing) and reclaims the
 * entries whose window has passed.  It holds at most RATE_TABLE_MAX entries (3 MiB): when
 * that many uids have each called within one window, a uid not yet in the table is refused
 * (RATE_FULL) until the oldest window passes; the uids in it keep their own limits, and
 * root is never limited (bus_rate_limit_uid()).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RATE_TABLE_MAX 65536U

struct rate_entry {
	uint32_t uid;
	uint32_t calls;	      /* in this window */
	uint64_t window_usec; /* CLOCK_MONOTONIC start; 0: slot unused */
	bool logged;	      /* the refusal was logged in this window */
};

struct rate_table {
	struct rate_entry *v;
	size_t size;		  /* slots: 0 or a power of two */
	size_t n;		  /* slots in use, windows passed or not */
	uint64_t full_until_usec; /* full at the last sweep: no sweep before this */
};

enum rate_verdict {
	RATE_OK,
	RATE_REFUSED,	  /* the uid's own limit */
	RATE_REFUSED_LOG, /* the same, the first time in its window: log it */
	RATE_FULL,	  /* RATE_TABLE_MAX uids within one window: a new one is refused */
	RATE_NOMEM,
};

/*
 * Count one call of uid at now_usec (CLOCK_MONOTONIC, > 0) against limit calls per
 * window_usec.
 */
enum rate_verdict rate_table_charge(struct rate_table *t, uint32_t uid, uint64_t now_usec,
				    uint64_t window_usec, unsigned limit);
void rate_table_free(struct rate_table *t);
