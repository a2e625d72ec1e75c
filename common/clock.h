/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one place clock readings become numbers: the units (systemd's names) and a clock's
 * time in microseconds, nanoseconds or milliseconds.  Header only, so that netlink/ (which
 * links no common/ library) can use it as it uses macro.h.
 */
#pragma once

#include <stdint.h>
#include <time.h>

#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC 1000000000ULL
#define USEC_PER_MSEC 1000ULL
#define USEC_PER_SEC 1000000ULL
#define MSEC_PER_SEC 1000ULL

static inline uint64_t timespec_to_nsec(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * NSEC_PER_SEC + (uint64_t)ts->tv_nsec;
}

static inline uint64_t timespec_to_usec(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * USEC_PER_SEC + (uint64_t)ts->tv_nsec / NSEC_PER_USEC;
}

static inline uint64_t timespec_to_msec(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * MSEC_PER_SEC + (uint64_t)ts->tv_nsec / NSEC_PER_MSEC;
}

/* The clock's time now (CLOCK_MONOTONIC, CLOCK_REALTIME, ...): it cannot fail for those. */
static inline struct timespec clock_now(clockid_t clock)
{
	struct timespec ts = { 0, 0 };

	(void)clock_gettime(clock, &ts);
	return ts;
}

static inline uint64_t now_nsec(clockid_t clock)
{
	struct timespec ts = clock_now(clock);

	return timespec_to_nsec(&ts);
}

static inline uint64_t now_usec(clockid_t clock)
{
	struct timespec ts = clock_now(clock);

	return timespec_to_usec(&ts);
}

static inline uint64_t now_msec(clockid_t clock)
{
	struct timespec ts = clock_now(clock);

	return timespec_to_msec(&ts);
}
