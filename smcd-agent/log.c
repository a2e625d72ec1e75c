// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>
#include <time.h>

#include "common/clock.h"
#include "smcd-agent/log.h"

static bool log_to_journal;
static int log_max_level = LOG_INFO;

void log_setup(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	log_to_journal = e && sscanf(e, "%llu:%llu", &dev, &ino) == 2 &&
			 fstat(STDERR_FILENO, &st) == 0 && (unsigned long long)st.st_dev == dev &&
			 (unsigned long long)st.st_ino == ino;
	e = getenv("SMCD_LOG_LEVEL");
	if (e && streq(e, "debug"))
		log_max_level = LOG_DEBUG;
}

static void log_journal(int level, int err, const char *const *fields, const char *msg)
{
	struct iovec iov[32];
	char prio[16], errnobuf[32];
	_cleanup_(freep) char *message = NULL;
	size_t n = 0;

	if (asprintf(&message, "MESSAGE=%s", msg) < 0)
		return;
	snprintf(prio, sizeof(prio), "PRIORITY=%d", level);
	iov[n++] = (struct iovec){ message, strlen(message) };
	iov[n++] = (struct iovec){ prio, strlen(prio) };
	iov[n++] = (struct iovec){ (char *)"SYSLOG_IDENTIFIER=smcd-agent", 28 };
	if (err) {
		snprintf(errnobuf, sizeof(errnobuf), "ERRNO=%d", abs(err));
		iov[n++] = (struct iovec){ errnobuf, strlen(errnobuf) };
	}
	for (size_t i = 0; fields && fields[i] && n < ELEMENTSOF(iov); i++)
		iov[n++] = (struct iovec){ (char *)fields[i], strlen(fields[i]) };
	sd_journal_sendv(iov, (int)n);
}

static void log_write(int level, int err, const char *const *fields, const char *msg)
{
	if (log_to_journal) {
		log_journal(level, err, fields, msg);
		return;
	}
	fprintf(stderr, "smcd-agent: %s", msg);
	for (size_t i = 0; fields && fields[i]; i++)
		fprintf(stderr, "%s%s", i ? " " : " [", fields[i]);
	fprintf(stderr, "%s\n", fields && fields[0] ? "]" : "");
}

/* ------------------------------------------------------------------------------------- */
/* Rate limit (log.h)                                                                     */

/*
 * One slot per place in the code with a window open.  More places than slots at once are
 * not limited (a message is never lost for want of a slot): callers cannot make that many
 * different places log, the agent has few that they reach.
 */
#define LOG_SITES 64

static struct log_site {
	const char *file; /* NULL: the slot is free */
	int line;
	uint64_t window_usec; /* when this window started */
	unsigned n;	      /* messages in it, suppressed ones included */
	unsigned suppressed;
	int level;	   /* the most severe one suppressed */
	char example[200]; /* the first one suppressed */
} sites[LOG_SITES];

static unsigned rl_burst = LOG_RATELIMIT_BURST;
static uint64_t rl_interval = LOG_RATELIMIT_INTERVAL_USEC;
static void (*rl_wakeup)(void *userdata);
static void *rl_wakeup_userdata;

static uint64_t monotonic_usec(void)
{
	return now_usec(CLOCK_MONOTONIC);
}

static uint64_t (*rl_now)(void) = monotonic_usec;

void log_ratelimit_setup(unsigned burst, uint64_t interval_usec, uint64_t (*now)(void))
{
	rl_burst = burst ? burst : LOG_RATELIMIT_BURST;
	rl_interval = interval_usec ? interval_usec : LOG_RATELIMIT_INTERVAL_USEC;
	rl_now = now ?: monotonic_usec;
	memset(sites, 0, sizeof(sites));
}

void log_ratelimit_set_wakeup(void (*fn)(void *userdata), void *userdata)
{
	rl_wakeup = fn;
	rl_wakeup_userdata = userdata;
}

static void site_summary(struct log_site *s)
{
	char count[32];
	const char *fields[] = { count, NULL };

	_cleanup_(freep) char *msg = NULL;

	snprintf(count, sizeof(count), "SMCD_SUPPRESSED=%u", s->suppressed);
	if (asprintf(&msg,
		     "Suppressed %u message%s like \"%s\" (more than %u in %llu s from the same place)",
		     s->suppressed, s->suppressed == 1 ? "" : "s", s->example, rl_burst,
		     (unsigned long long)(rl_interval / USEC_PER_SEC)) >= 0)
		log_write(s->level, 0, fields, msg);
}

void log_ratelimit_flush(bool all)
{
	uint64_t now = rl_now();

	for (size_t i = 0; i < LOG_SITES; i++) {
		struct log_site *s = &sites[i];

		if (!s->file || (!all && now - s->window_usec < rl_interval))
			continue;
		if (s->suppressed)
			site_summary(s);
		*s = (struct log_site){};
	}
}

uint64_t log_ratelimit_deadline(void)
{
	uint64_t first = 0;

	for (size_t i = 0; i < LOG_SITES; i++)
		if (sites[i].file && sites[i].suppressed &&
		    (!first || sites[i].window_usec + rl_interval < first))
			first = sites[i].window_usec + rl_interval;
	return first;
}

static bool exempt(int level, const char *const *fields)
{
	if (level >= LOG_DEBUG)
		return true;
	for (size_t i = 0; fields && fields[i]; i++)
		if (strncmp(fields[i], "MESSAGE_ID=", 11) == 0 ||
		    strncmp(fields[i], "SMC_ITEM=", 9) == 0)
			return true;
	return false;
}

/* Whether this message may be written now; counts it if not. */
static bool ratelimit_pass(const char *file, int line, int level, const char *const *fields,
			   const char *msg)
{
	struct log_site *s = NULL, *free_slot = NULL;

	if (exempt(level, fields))
		return true;
	log_ratelimit_flush(false);
	for (size_t i = 0; i < LOG_SITES && !s; i++) {
		if (sites[i].file && sites[i].line == line && streq(sites[i].file, file))
			s = &sites[i];
		else if (!sites[i].file && !free_slot)
			free_slot = &sites[i];
	}
	if (!s && !free_slot)
		return true;
	if (!s) {
		s = free_slot;
		*s = (struct log_site){ .file = file, .line = line, .window_usec = rl_now() };
	}
	if (++s->n <= rl_burst)
		return true;
	if (!s->suppressed++) {
		size_t n = strlen(msg);

		/* Cut at a character, not inside one (the journal wants UTF-8). */
		if (n >= sizeof(s->example)) {
			n = sizeof(s->example) - 1;
			while (n && ((unsigned char)msg[n] & 0xc0) == 0x80)
				n--;
		}
		memcpy(s->example, msg, n);
		s->example[n] = '\0';
		s->level = level;
		if (rl_wakeup)
			rl_wakeup(rl_wakeup_userdata);
	}
	if (level < s->level)
		s->level = level;
	return false;
}

int log_set_max_level(int level)
{
	int old = log_max_level;

	log_max_level = level;
	return old;
}

int log_fields_at(const char *file, int line, int level, int err, const char *const *fields,
		  const char *fmt, ...)
{
	_cleanup_(freep) char *msg = NULL;
	int saved = errno;
	va_list ap;

	if (level > log_max_level)
		return err ? -abs(err) : 0;
	errno = abs(err);
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (msg && ratelimit_pass(file, line, level, fields, msg))
		log_write(level, err, fields, msg);
	errno = saved;
	return err ? -abs(err) : 0;
}
