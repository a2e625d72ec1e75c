// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Value syntax shared by smc.yaml and the SetSysctl D-Bus method: sizes with binary units,
 * durations, booleans.  Strict: no fractions, no signs, no trailing garbage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/macro.h"
#include "smcd-agent/config.h"

struct unit {
	const char *suffix;
	int64_t factor;
};

static int parse_with_units(const char *s, const struct unit *units, size_t n_units,
			    int64_t *ret)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE || v > INT64_MAX)
		return -ERANGE;
	while (*end == ' ')
		end++;
	if (*end == '\0') {
		*ret = (int64_t)v;
		return 0;
	}
	for (size_t i = 0; i < n_units; i++) {
		if (!streq(end, units[i].suffix))
			continue;
		if (v > (unsigned long long)(INT64_MAX / units[i].factor))
			return -ERANGE;
		*ret = (int64_t)v * units[i].factor;
		return 0;
	}
	return -EINVAL;
}

int parse_count(const char *s, int64_t *ret)
{
	return parse_with_units(s, NULL, 0, ret);
}

/* Binary units only: "k" meaning 1000 in one place and 1024 in another helps nobody. */
static const struct unit size_units[] = {
	{ "B", 1 },
	{ "bytes", 1 },
	{ "k", 1024 },
	{ "K", 1024 },
	{ "KiB", 1024 },
	{ "M", 1024 * 1024 },
	{ "MiB", 1024 * 1024 },
	{ "G", 1024 * 1024 * 1024 },
	{ "GiB", 1024 * 1024 * 1024 },
};

int parse_size(const char *s, int64_t *ret)
{
	return parse_with_units(s, size_units, ELEMENTSOF(size_units), ret);
}

static const struct unit second_units[] = {
	{ "s", 1 },
	{ "sec", 1 },
	{ "m", 60 },
	{ "min", 60 },
	{ "h", 3600 },
};

int parse_seconds(const char *s, int64_t *ret)
{
	return parse_with_units(s, second_units, ELEMENTSOF(second_units), ret);
}

static const struct unit usec_units[] = {
	{ "ms", 1000 },
	{ "s", 1000000 },
	{ "sec", 1000000 },
	{ "m", 60 * 1000000LL },
	{ "min", 60 * 1000000LL },
	{ "h", 3600 * 1000000LL },
};

/* A bare number is seconds, as everywhere else in this file format. */
int parse_duration_usec(const char *s, uint64_t *ret)
{
	int64_t v;
	int r;

	r = parse_with_units(s, usec_units, ELEMENTSOF(usec_units), &v);
	if (r == 0 && strspn(s, "0123456789 ") == strlen(s)) {
		if (v > INT64_MAX / 1000000)
			return -ERANGE;
		v *= 1000000;
	}
	if (r < 0)
		return r;
	*ret = (uint64_t)v;
	return 0;
}

int parse_bool(const char *s, bool *ret)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };

	for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*ret = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*ret = false;
			return 0;
		}
	}
	return -EINVAL;
}

const char *format_size(int64_t v, char *buf, size_t len)
{
	if (v >= 1024 * 1024 * 1024 && v % (1024 * 1024 * 1024) == 0)
		snprintf(buf, len, "%" PRId64 "GiB", v / (1024 * 1024 * 1024));
	else if (v >= 1024 * 1024 && v % (1024 * 1024) == 0)
		snprintf(buf, len, "%" PRId64 "MiB", v / (1024 * 1024));
	else if (v >= 1024 && v % 1024 == 0)
		snprintf(buf, len, "%" PRId64 "KiB", v / 1024);
	else
		snprintf(buf, len, "%" PRId64, v);
	return buf;
}
