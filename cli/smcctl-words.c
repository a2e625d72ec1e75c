// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Words a user types: a unique prefix among names (objects, verbs, sysctls, loopback
 * settings) and, for a miss, the nearest names by edit distance ("did you mean").  For
 * the parser and the handlers alike; it calls nothing of cli/.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/smcctl.h"

int word_lookup(const char *word, const char *const *names, const size_t *dup, size_t n,
		char *candidates, size_t len)
{
	size_t wl = strlen(word), used = 0;
	int found = -ENOENT;

	if (candidates && len)
		candidates[0] = '\0';
	for (size_t i = 0; i < n; i++)
		if (names[i] && streq(word, names[i]))
			return (int)(dup ? dup[i] : i);
	if (wl == 0)
		return -ENOENT;
	for (size_t i = 0; i < n; i++) {
		size_t target = dup ? dup[i] : i;

		if (!names[i] || strncmp(word, names[i], wl) != 0)
			continue;
		if (found >= 0 && (size_t)found != target)
			found = -ENOTUNIQ;
		else if (found == -ENOENT)
			found = (int)target;
		if (candidates && used < len) {
			int k = snprintf(candidates + used, len - used, "%s%s", used ? ", " : "",
					 names[i]);
			if (k > 0)
				used += (size_t)k;
		}
	}
	return found;
}

/*
 * Edits from a to b (insert, delete, replace, swap two neighbours: the optimal string
 * alignment distance), at most WORD_MAX letters each; SIZE_MAX for longer words.
 */
static size_t min3(size_t a, size_t b, size_t c)
{
	return a < b ? (a < c ? a : c) : (b < c ? b : c);
}

static size_t word_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[WORD_MAX + 1][WORD_MAX + 1];

	if (la > WORD_MAX || lb > WORD_MAX)
		return SIZE_MAX;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t best = min3(d[i - 1][j - 1] + (a[i - 1] != b[j - 1]),
					   d[i - 1][j] + 1, d[i][j - 1] + 1);

			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

const char *word_nearest(const char *word, const char *const *names, size_t n, const char *prefix,
			 char *buf, size_t len)
{
	/* One edit in a short word, two in a longer one: "stauts", "lnkgroup", "--jsno". */
	size_t limit = strlen(word) <= 4 ? 1 : 2, best = SIZE_MAX, used = 0, found = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t k = names[i] ? word_distance(word, names[i]) : SIZE_MAX;

		if (k < best)
			best = k;
	}
	if (best > limit)
		return buf;
	for (size_t i = 0; i < n && used < len; i++) {
		int k;

		if (!names[i] || word_distance(word, names[i]) != best)
			continue;
		k = snprintf(buf + used, len - used, "%s'%s%s'",
			     !found ? ": did you mean " : " or ", prefix, names[i]);
		if (k > 0)
			used += (size_t)k;
		found++;
	}
	if (used + 1 < len)
		snprintf(buf + used, len - used, "?");
	return buf;
}
