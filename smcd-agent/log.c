// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>

#include "smcd-agent/log.h"

static bool log_to_journal;
static int log_max_level = LOG_INFO;

void log_setup(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	log_to_journal = e && sscanf(e, "%llu:%llu", &dev, &ino) == 2 && fstat(STDERR_FILENO, &st) == 0 &&
			 (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
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

int log_fields(int level, int err, const char *const *fields, const char *fmt, ...)
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
	if (msg) {
		if (log_to_journal)
			log_journal(level, err, fields, msg);
		else {
			fprintf(stderr, "smcd-agent: %s", msg);
			for (size_t i = 0; fields && fields[i]; i++)
				fprintf(stderr, "%s%s", i ? " " : " [", fields[i]);
			fprintf(stderr, "%s\n", fields && fields[0] ? "]" : "");
		}
	}
	errno = saved;
	return err ? -abs(err) : 0;
}
