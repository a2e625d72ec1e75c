// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The attribution table: see fallback.h.  Pure, no kernel, no allocation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "common/name-sanitize.h"
#include "common/owner.h"
#include "smcd-agent/fallback.h"

static struct fbattr_reason *reason_slot(struct fbattr *a, uint32_t code)
{
	size_t lo = 0, hi = a->n_reasons;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (a->reasons[mid].code == code)
			return &a->reasons[mid];
		if (a->reasons[mid].code < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (a->n_reasons == FBATTR_MAX_REASONS)
		return NULL;
	memmove(&a->reasons[lo + 1], &a->reasons[lo], (a->n_reasons - lo) * sizeof(a->reasons[0]));
	a->n_reasons++;
	memset(&a->reasons[lo], 0, sizeof(a->reasons[lo]));
	a->reasons[lo].code = code;
	return &a->reasons[lo];
}

void fbattr_add(struct fbattr *a, uint32_t code, const char *unit)
{
	struct fbattr_reason *r = reason_slot(a, code);

	a->events++;
	if (!r) {
		a->other_reasons++;
		return;
	}
	r->total++;
	if (!unit || !unit[0])
		unit = FBATTR_UNKNOWN;
	for (size_t i = 0; i < r->n_units; i++)
		if (streq(r->units[i].unit, unit)) {
			r->units[i].count++;
			return;
		}
	if (r->n_units == FBATTR_TOP_UNITS) {
		r->other++;
		return;
	}
	snprintf(r->units[r->n_units].unit, sizeof(r->units[0].unit), "%s", unit);
	r->units[r->n_units++].count = 1;
}

static int cmp_unit(const void *a, const void *b)
{
	const struct fbattr_unit *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->unit, y->unit);
}

size_t fbattr_units_sorted(const struct fbattr_reason *r, struct fbattr_unit *ret)
{
	memcpy(ret, r->units, r->n_units * sizeof(*ret));
	qsort(ret, r->n_units, sizeof(*ret), cmp_unit);
	return r->n_units;
}

void fbattr_label(const char *cgroup, const char *container, char *buf, size_t len)
{
	char unit[FBATTR_UNIT_LEN], user_unit[FBATTR_UNIT_LEN], raw[FBATTR_UNIT_LEN * 2 + 1];

	if (!cgroup) {
		snprintf(buf, len, "%s", FBATTR_UNKNOWN);
		return;
	}
	cgroup_units(cgroup, unit, sizeof(unit), user_unit, sizeof(user_unit));
	/*
	 * A container by its name, not its libpod-<id>.scope: what an operator knows it by.  One
	 * label per container as there was one per scope, so the table's bound holds as it is.
	 */
	if (container && container[0])
		snprintf(raw, sizeof(raw), "%s", container);
	else if (user_unit[0])
		snprintf(raw, sizeof(raw), "%s/%s", unit, user_unit);
	else if (unit[0])
		snprintf(raw, sizeof(raw), "%s", unit);
	else
		snprintf(raw, sizeof(raw), "%s", cgroup[0] ? cgroup : "/");
	/* a delegated cgroup's name is its owner's choice: never raw in a label */
	name_sanitize(raw, buf, len);
}
