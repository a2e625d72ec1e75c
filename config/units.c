// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Value syntax shared by smc.yaml, the agent's D-Bus methods and smcctl: sizes with binary
 * units, durations, booleans, and net.smc.* values in their units.  Strict: no fractions, no
 * signs, no trailing garbage.  One parser, so that "1MiB" means the same everywhere.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/clock.h"
#include "common/macro.h"
#include "config/units.h"

struct unit {
	const char *suffix;
	int64_t factor;
};

static int parse_with_units(const char *s, const struct unit *units, size_t n_units, int64_t *ret)
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

int parse_port(const char *s, uint16_t *ret)
{
	int64_t v;
	int r;

	/* Digits only: parse_count() takes a space before a unit, which a port has none of
	 * ("80 " is no more a port than " 80" is). */
	if (!s || !*s || strspn(s, "0123456789") != strlen(s))
		return -EINVAL;
	r = parse_count(s, &v);
	if (r < 0)
		return r;
	if (v < 1 || v > UINT16_MAX)
		return -ERANGE;
	*ret = (uint16_t)v;
	return 0;
}

int parse_int64(const char *s, int64_t *ret)
{
	char *end;
	long long v;

	if (!*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno)
		return -errno;
	/* As the kernel writes a value in /proc/sys: one trailing newline. */
	if (*end == '\n')
		end++;
	if (*end)
		return -EINVAL;
	*ret = v;
	return 0;
}

int parse_hex32(const char *s, uint32_t *ret)
{
	const char *p = s;
	char *end;
	unsigned long v;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (!*p || strlen(p) > 8 || strspn(p, "0123456789abcdefABCDEF") != strlen(p))
		return -EINVAL;
	errno = 0;
	v = strtoul(p, &end, 16);
	if (errno || *end)
		return -EINVAL;
	*ret = (uint32_t)v;
	return 0;
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

/*
 * A number with a near-miss unit ("64KB", "64 kb", "1Mi", "1gib"): the binary unit it
 * most likely means, with the number as written.  "KB" is refused rather than read as
 * 1000 or 1024 (see size_units), but the user should not have to guess the spelling.
 */
const char *size_hint(const char *s, char *buf, size_t len)
{
	static const char *const iec[] = { "KiB", "MiB", "GiB" };
	char unit[8];
	const char *end, *u;
	size_t digits, n = 0;
	int64_t v;

	buf[0] = '\0';
	if (!s || parse_size(s, &v) == 0)
		return buf;
	digits = strspn(s, "0123456789");
	if (digits == 0 || digits > 19)
		return buf;
	end = s + digits;
	while (*end == ' ')
		end++;
	for (; end[n] && n < sizeof(unit) - 1; n++)
		unit[n] = (char)tolower((unsigned char)end[n]);
	unit[n] = '\0';
	if (end[n] || !(u = strchr("kmg", unit[0])))
		return buf;
	/* k, kb, ki, kib, kbyte, kbytes (and m, g) */
	if (!unit[1] || streq(unit + 1, "b") || streq(unit + 1, "i") || streq(unit + 1, "ib") ||
	    streq(unit + 1, "byte") || streq(unit + 1, "bytes"))
		snprintf(buf, len, ": did you mean %.*s%s?", (int)digits, s, iec[u - "kmg"]);
	return buf;
}

static const struct unit second_units[] = {
	{ "s", 1 }, { "sec", 1 }, { "m", 60 }, { "min", 60 }, { "h", 3600 },
};

int parse_seconds(const char *s, int64_t *ret)
{
	return parse_with_units(s, second_units, ELEMENTSOF(second_units), ret);
}

static const struct unit usec_units[] = {
	{ "ms", 1000 },		 { "s", 1000000 },	    { "sec", 1000000 },
	{ "m", 60 * 1000000LL }, { "min", 60 * 1000000LL }, { "h", 3600 * 1000000LL },
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
	static const char *const yes[] = { "true", "yes", "on", "1", "enable", "enabled" };
	static const char *const no[] = { "false", "no", "off", "0", "disable", "disabled" };

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

const char *format_duration(uint64_t usec, char *buf, size_t len)
{
	if (usec && usec % (60 * USEC_PER_SEC) == 0)
		snprintf(buf, len, "%" PRIu64 "m", (uint64_t)(usec / (60 * USEC_PER_SEC)));
	else if (usec % USEC_PER_SEC == 0)
		snprintf(buf, len, "%" PRIu64 "s", (uint64_t)(usec / USEC_PER_SEC));
	else
		snprintf(buf, len, "%" PRIu64 "ms", (uint64_t)(usec / 1000ULL));
	return buf;
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

/* ---- net.smc.* values ---------------------------------------------------------------- */

static void format_range(const struct smc_sysctl_desc *d, char *buf, size_t len)
{
	char a[32], b[32];

	/* Both ends in one unit: "16KiB to 1073741823" read as KiB to something else. */
	if (d->unit == SMC_UNIT_BYTES && d->max % 1024 == 1023)
		snprintf(buf, len, "%s to %s less 1 byte", format_size(d->min, a, sizeof(a)),
			 format_size(d->max + 1, b, sizeof(b)));
	else if (d->unit == SMC_UNIT_BYTES)
		snprintf(buf, len, "%s to %s", format_size(d->min, a, sizeof(a)),
			 format_size(d->max, b, sizeof(b)));
	else
		snprintf(buf, len, "%" PRId64 " to %" PRId64 "%s", d->min, d->max,
			 d->unit == SMC_UNIT_SECONDS ? " seconds" : "");
}

static void enum_expected(const struct smc_sysctl_desc *d, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; d->enum_names && d->enum_names[i] && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", d->enum_names[i]);
}

void sysctl_value_expected(const struct smc_sysctl_desc *d, char *buf, size_t len)
{
	switch (d->unit) {
	case SMC_UNIT_BYTES:
		snprintf(buf, len, "a size such as 64KiB or 1MiB");
		break;
	case SMC_UNIT_SECONDS:
		snprintf(buf, len, "a duration in seconds such as 30s or 2m");
		break;
	case SMC_UNIT_BOOL:
		snprintf(buf, len, "true or false");
		break;
	case SMC_UNIT_ENUM:
		enum_expected(d, buf, len);
		break;
	case SMC_UNIT_COUNT:
		snprintf(buf, len, "a whole number");
		break;
	case SMC_UNIT_STRING:
		snprintf(buf, len, "a string of at most %" PRId64 " characters", d->max);
		break;
	}
}

int sysctl_parse_value(const struct smc_sysctl_desc *d, const char *s, int64_t *ret, char *expected,
		       size_t len)
{
	bool b = false;
	int r = -EINVAL;

	switch (d->unit) {
	case SMC_UNIT_BYTES:
		r = parse_size(s, ret);
		break;
	case SMC_UNIT_SECONDS:
		r = parse_seconds(s, ret);
		break;
	case SMC_UNIT_BOOL:
		r = parse_bool(s, &b);
		*ret = b;
		break;
	case SMC_UNIT_ENUM:
		for (size_t i = 0; d->enum_names && d->enum_names[i]; i++)
			if (streq(d->enum_names[i], s)) {
				*ret = (int64_t)i;
				r = 0;
			}
		/* Or the number the kernel itself takes (smcctl sysctl set smcr_buf_type 0). */
		if (r < 0)
			r = parse_count(s, ret);
		break;
	case SMC_UNIT_COUNT:
		r = parse_count(s, ret);
		break;
	case SMC_UNIT_STRING:
		*ret = 0;
		r = (int64_t)strlen(s) > d->max ? -ERANGE : 0;
		break;
	}
	if (r == 0 && d->unit != SMC_UNIT_STRING && (*ret < d->min || *ret > d->max))
		r = -ERANGE;
	if (r == -ERANGE && d->unit != SMC_UNIT_STRING)
		format_range(d, expected, len);
	else if (r < 0)
		sysctl_value_expected(d, expected, len);
	return r;
}
