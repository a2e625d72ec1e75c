// SPDX-License-Identifier: GPL-2.0-or-later
/* The per-uid table of the bus rate limit (rate-limit.h). */
#include <stdlib.h>

#include "smcd-agent/rate-limit.h"

/* Slots for RATE_TABLE_MAX entries at half load: probes stay short. */
#define RATE_SLOTS_MAX (2 * (size_t)RATE_TABLE_MAX)

static bool in_window(const struct rate_entry *e, uint64_t now, uint64_t window)
{
	return e->window_usec && now - e->window_usec < window;
}

/* uid's slot, or the free one where it would go (linear probing; the table has one). */
static struct rate_entry *slot_of(const struct rate_table *t, uint32_t uid)
{
	size_t i = (uint32_t)(uid * 2654435761U) & (t->size - 1);

	while (t->v[i].window_usec && t->v[i].uid != uid)
		i = (i + 1) & (t->size - 1);
	return &t->v[i];
}

/*
 * The entries whose window has not passed, in a new array at most a quarter full (half at
 * RATE_SLOTS_MAX): a sweep of passed windows is paid for by the inserts before the next.
 */
static int rebuild(struct rate_table *t, uint64_t now, uint64_t window)
{
	size_t live = 0, size = 32;
	uint64_t oldest = UINT64_MAX;
	struct rate_entry *old = t->v, *v;
	size_t old_size = t->size;

	for (size_t i = 0; i < old_size; i++)
		if (in_window(&old[i], now, window)) {
			live++;
			if (old[i].window_usec < oldest)
				oldest = old[i].window_usec;
		}
	while (size < RATE_SLOTS_MAX && size / 4 < live + 1)
		size *= 2;
	v = calloc(size, sizeof(*v));
	if (!v)
		return -1;
	t->v = v;
	t->size = size;
	t->n = live;
	for (size_t i = 0; i < old_size; i++)
		if (in_window(&old[i], now, window))
			*slot_of(t, old[i].uid) = old[i];
	free(old);
	/* Full: nothing can be reclaimed before the oldest window passes. */
	t->full_until_usec = live >= RATE_TABLE_MAX ? oldest + window : 0;
	return 0;
}

enum rate_verdict rate_table_charge(struct rate_table *t, uint32_t uid, uint64_t now_usec,
				    uint64_t window_usec, unsigned limit)
{
	struct rate_entry *e = t->size ? slot_of(t, uid) : NULL;

	if (!e || !e->window_usec) {
		if (t->n + 1 > t->size / 2) {
			if (now_usec < t->full_until_usec)
				return RATE_FULL;
			if (rebuild(t, now_usec, window_usec) < 0)
				return RATE_NOMEM;
			if (t->n + 1 > t->size / 2)
				return RATE_FULL;
		}
		e = slot_of(t, uid);
		*e = (struct rate_entry){ .uid = uid, .window_usec = now_usec };
		t->n++;
	}
	if (!in_window(e, now_usec, window_usec))
		*e = (struct rate_entry){ .uid = uid, .window_usec = now_usec };
	if (e->calls < limit) {
		e->calls++;
		return RATE_OK;
	}
	if (e->logged)
		return RATE_REFUSED;
	e->logged = true;
	return RATE_REFUSED_LOG;
}

void rate_table_free(struct rate_table *t)
{
	free(t->v);
	*t = (struct rate_table){ 0 };
}
