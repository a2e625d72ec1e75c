/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Small helpers shared by every part of smcd-agent: cleanup attributes in the systemd
 * style, array sizes, string equality.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _noreturn_ __attribute__((noreturn))
#define _warn_unused_result_ __attribute__((warn_unused_result))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

/* Take ownership of a pointer: return it and leave NULL behind for the cleanup handler. */
#define TAKE_PTR(p)                        \
	({                                 \
		__typeof__(p) _ptr_ = (p); \
		(p) = NULL;                \
		_ptr_;                     \
	})

#define TAKE_FD(fd)              \
	({                       \
		int _fd_ = (fd); \
		(fd) = -1;       \
		_fd_;            \
	})

/* a + b, or UINT64_MAX when that does not fit: counts and their sums saturate, never wrap. */
static inline uint64_t u64_add_sat(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

static inline bool streq(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

static inline bool streq_ptr(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return streq(a, b);
}

static inline bool startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}

/* Close fd if it is one, keeping errno; returns -1 for "fd = safe_close(fd)". */
static inline int safe_close(int fd)
{
	closep(&fd);
	return -1;
}

static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

/* Define a cleanup function "namep(type **)" that calls "func(type *)" on non-NULL. */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func) \
	static inline void func##p(type *p)     \
	{                                       \
		if (*p)                         \
			func(*p);               \
	}

/* Return a negative errno from a failing libc call that sets errno (never 0). */
static inline int negative_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}
