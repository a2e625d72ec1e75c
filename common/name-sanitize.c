// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one sanitiser for names that users choose (see name-sanitize.h).  Such a name is
 * whatever bytes its owner wrote: prctl(PR_SET_NAME) and /proc/PID/comm take any 15 bytes,
 * a delegated cgroup's directory any name without '/'.  Passed on raw, invalid UTF-8 makes
 * sd-bus refuse the whole reply or signal and the Prometheus textfile invalid, and an
 * escape sequence reaches the terminal of whoever runs smcctl.
 *
 * The rule:
 *   - valid UTF-8 stays as it is, backslash and quotes included (systemd's unit names
 *     escape with '\', as in "dev-disk-by\x2dlabel.device", and stay copyable; each output
 *     quotes for its own syntax: JSON, the textfile's label values);
 *   - control characters become \xNN, one escape per byte: C0 (U+0000-U+001F: ESC, newline,
 *     tab...), DEL, C1 (U+0080-U+009F, whose U+009B some terminals take as CSI), and those
 *     that reorder or break a line unseen (U+061C, U+200E, U+200F, U+2028-U+202E,
 *     U+2066-U+2069);
 *   - every byte that is not part of valid UTF-8 (a stray continuation byte, a sequence cut
 *     short, an overlong form, a surrogate, beyond U+10FFFF) becomes \xNN;
 *   - the result fits the caller's buffer, cut at a whole character or escape.
 * A C string cannot hold a NUL: a name with one ends there, as the kernel's do.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/name-sanitize.h"

static bool continuation(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

/* The length of the valid UTF-8 character at p (its code point in *ret), 0 if invalid. */
static size_t utf8_char(const unsigned char *p, uint32_t *ret)
{
	if (p[0] < 0x80) {
		*ret = p[0];
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf && continuation(p[1])) {
		*ret = (uint32_t)(p[0] & 0x1f) << 6 | (p[1] & 0x3f);
		return 2;
	}
	if (p[0] >= 0xe0 && p[0] <= 0xef && continuation(p[1]) && continuation(p[2])) {
		*ret = (uint32_t)(p[0] & 0x0f) << 12 | (uint32_t)(p[1] & 0x3f) << 6 | (p[2] & 0x3f);
		/* overlong, or a UTF-16 surrogate */
		return *ret < 0x800 || (*ret >= 0xd800 && *ret <= 0xdfff) ? 0 : 3;
	}
	if (p[0] >= 0xf0 && p[0] <= 0xf4 && continuation(p[1]) && continuation(p[2]) &&
	    continuation(p[3])) {
		*ret = (uint32_t)(p[0] & 0x07) << 18 | (uint32_t)(p[1] & 0x3f) << 12 |
		       (uint32_t)(p[2] & 0x3f) << 6 | (p[3] & 0x3f);
		return *ret < 0x10000 || *ret > 0x10ffff ? 0 : 4;
	}
	return 0;
}

static bool control(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x61c || c == 0x200e || c == 0x200f ||
	       (c >= 0x2028 && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/* The bytes at p that stay (n > 0), or 0: escape p[0] alone. */
static size_t kept(const unsigned char *p)
{
	uint32_t c;
	size_t n = utf8_char(p, &c);

	return n && !control(c) ? n : 0;
}

size_t name_sanitize(const char *name, char *buf, size_t size)
{
	const unsigned char *p = (const unsigned char *)(name ? name : "");
	size_t len = 0;

	if (!size)
		return 0;
	while (*p) {
		size_t n = kept(p);

		if (n) {
			if (len + n >= size)
				break;
			memcpy(buf + len, p, n);
			p += n;
			len += n;
			continue;
		}
		if (len + 4 >= size)
			break;
		snprintf(buf + len, 5, "\\x%02x", *p++);
		len += 4;
	}
	buf[len] = '\0';
	return len;
}

bool name_is_clean(const char *name)
{
	const unsigned char *p = (const unsigned char *)(name ? name : "");

	for (size_t n; *p; p += n)
		if (!(n = kept(p)))
			return false;
	return true;
}
