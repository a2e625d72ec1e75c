/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Value syntax shared by smc.yaml, the agent's D-Bus methods and smcctl (config/units.c):
 * one parser, so that a value valid in one place is valid in all.  Every parser returns 0,
 * -EINVAL (not that kind of value) or -ERANGE.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netlink/smcnl.h"

/* "64KiB", "1MiB", "1048576" (binary units only: k, K, KiB, M, MiB, G, GiB, B, bytes). */
int parse_size(const char *s, int64_t *ret);
/*
 * ": did you mean 64KiB?" when s is a number with a near-miss size unit ("64KB", "1 mb"),
 * else "": for the message refusing s (smc.yaml, smcctl).  Caller's buffer.
 */
const char *size_hint(const char *s, char *buf, size_t len);
/* A whole number. */
int parse_count(const char *s, int64_t *ret);
/* A TCP or UDP port: decimal digits only (no sign, no spaces either side), 1 to 65535 (0 and
 * above are -ERANGE).  smc.yaml's and every smcctl option's port. */
int parse_port(const char *s, uint16_t *ret);
/* A signed decimal integer as the kernel writes one (one trailing newline allowed), no units:
 * what /proc/sys and sysfs files hold. */
int parse_int64(const char *s, int64_t *ret);
/* 1 to 8 hex digits, "0x" optional ("0x1f00", "1f00"): ids as the kernel prints them. */
int parse_hex32(const char *s, uint32_t *ret);
/* "30", "30s", "2m", "1h". */
int parse_seconds(const char *s, int64_t *ret);
/* "500ms", "2s", "1m"; a bare number is seconds. */
int parse_duration_usec(const char *s, uint64_t *ret);
/* true/false, yes/no, on/off, 1/0, enable(d)/disable(d), in any case. */
int parse_bool(const char *s, bool *ret);
/* "5m", "30s", "1500ms" (microseconds, the largest unit that is exact); caller's buffer. */
const char *format_duration(uint64_t usec, char *buf, size_t len);
/* "1MiB", "64KiB", "1000" (bytes); caller's buffer. */
const char *format_size(int64_t v, char *buf, size_t len);

/*
 * A net.smc.* value in the units of d ("1MiB", "30s", "on", "virtual", ...), checked against
 * its range: 0, -EINVAL (expected then says what is valid) or -ERANGE (expected then gives
 * the range).
 */
int sysctl_parse_value(const struct smc_sysctl_desc *d, const char *s, int64_t *ret, char *expected,
		       size_t len);
/* What d takes, in words ("a size such as 64KiB or 1MiB"). */
void sysctl_value_expected(const struct smc_sysctl_desc *d, char *buf, size_t len);
