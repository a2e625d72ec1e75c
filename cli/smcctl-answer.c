// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a verb's handler answers with: its messages and exit statuses (the first error is
 * kept for -j's error document), its output (a document or a streamed sink, flushed), and
 * the netlink handle it opens when it first needs one.  Below the table and the parser
 * (smcctl.c): every handler calls here, and nothing here calls a handler or the table.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/smcctl.h"
#include "common/output.h"

/* ---------------------------------------------------------------------------------- */
/* Messages                                                                            */

static void vline(struct smcctl *c, const char *fmt, va_list ap)
{
	fputs("smcctl: ", c->err);
	vfprintf(c->err, fmt, ap);
	fputc('\n', c->err);
}

/* The first error of a run is the one -j answers with (json_error()); later lines follow
 * from it. */
static void keep_error(struct smcctl *c, const char *hint, const char *fmt, va_list ap)
{
	if (c->error[0])
		return;
	vsnprintf(c->error, sizeof(c->error), fmt, ap);
	snprintf(c->hint, sizeof(c->hint), "%s", hint ? hint : "");
}

int smcctl_error(struct smcctl *c, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(c, fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	keep_error(c, NULL, fmt, ap);
	va_end(ap);
	return status;
}

void smcctl_note(struct smcctl *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(c, fmt, ap);
	va_end(ap);
}

int smcctl_usage(struct smcctl *c, const char *fmt, ...)
{
	char hint[96];
	va_list ap;

	snprintf(hint, sizeof(hint), "see 'smcctl %s%shelp'", c->object ? c->object->name : "",
		 c->object ? " " : "");
	fputs("smcctl: ", c->err);
	va_start(ap, fmt);
	vfprintf(c->err, fmt, ap);
	va_end(ap);
	fprintf(c->err, " (%s)\n", hint);
	va_start(ap, fmt);
	keep_error(c, hint, fmt, ap);
	va_end(ap);
	return SMCCTL_EXIT_USAGE;
}

static int status_for_errno(int err)
{
	switch (err) {
	case -EPROTONOSUPPORT:
		return SMCCTL_EXIT_UNAVAILABLE;
	case -EPERM:
	case -EACCES:
		return SMCCTL_EXIT_PERMISSION;
	default:
		return SMCCTL_EXIT_FAILURE;
	}
}

const char *smcctl_lib_missing;

int smcctl_fail(struct smcctl *c, enum smc_op op, int err, const char *what, ...)
{
	char why[512];
	va_list ap;

	/* An errno of 0 here is our bug; never let it reach the user as "Success". */
	if (err >= 0)
		snprintf(why, sizeof(why), "internal error (no error code): please report this");
	else if (err == -ENOMEM && smcctl_lib_missing)
		snprintf(why, sizeof(why), "cannot go on without %s (reinstall smcd-agent)",
			 smcctl_lib_missing);
	else
		smc_strerror(op, err, c->nl ? smcnl_extack(c->nl) : NULL, why, sizeof(why));

	fputs("smcctl: ", c->err);
	va_start(ap, what);
	vfprintf(c->err, what, ap);
	va_end(ap);
	fprintf(c->err, ": %s\n", why);
	if (!c->error[0]) {
		size_t n;

		va_start(ap, what);
		vsnprintf(c->error, sizeof(c->error), what, ap);
		va_end(ap);
		n = strlen(c->error);
		snprintf(c->error + n, sizeof(c->error) - n, ": %s", why);
	}
	return status_for_errno(err);
}

int smcctl_oom(struct smcctl *c)
{
	/* dl.c said which library it could not load: that is why, not the memory. */
	if (smcctl_lib_missing)
		return smcctl_error(c, SMCCTL_EXIT_FAILURE,
				    "cannot go on without %s (reinstall smcd-agent)",
				    smcctl_lib_missing);
	return smcctl_error(c, SMCCTL_EXIT_FAILURE, "out of memory");
}

int smcctl_emit(struct smcctl *c, json_object *doc, smcctl_text_fn text)
{
	c->answered = true;
	if (c->json)
		out_json(c->out, doc, c->pretty);
	else if (text)
		text(c, doc);
	return smcctl_output_flush(c);
}

int smcctl_flush(struct smcctl *c)
{
	c->answered = true; /* a streamed answer (the sinks): no error document after it */
	return smcctl_output_flush(c);
}

/* Help and version are text, even with -j: they are not answers about the kernel. */
int smcctl_output_flush(struct smcctl *c)
{
	if (fflush(c->out) != 0 || ferror(c->out)) {
		/* Into our pager's pipe, a write fails only when the user quit the pager before
		 * the end (EPIPE): what they wanted, no error (cli/pager.c). */
		if (c->pager_pid > 0)
			return SMCCTL_EXIT_OK;
		return smcctl_error(c, SMCCTL_EXIT_FAILURE, "cannot write the output: %s",
				    strerror(errno ? errno : EIO));
	}
	return SMCCTL_EXIT_OK;
}

int smcctl_nl(struct smcctl *c, struct smcnl **ret)
{
	int r;

	if (!c->nl) {
		r = smcnl_open(&c->nl_opts, &c->nl);
		if (r < 0)
			return smcctl_fail(c, SMC_OP_QUERY, r, "cannot open the SMC interfaces");
	}
	*ret = c->nl;
	return SMCCTL_EXIT_OK;
}

volatile sig_atomic_t smcctl_interrupted;

static void smcctl_on_signal(int sig)
{
	(void)sig;
	smcctl_interrupted = 1;
}

void smcctl_interrupt_catch(struct sigaction ret_old[2])
{
	struct sigaction act = { .sa_handler = smcctl_on_signal };

	sigaction(SIGINT, &act, ret_old ? &ret_old[0] : NULL);
	sigaction(SIGTERM, &act, ret_old ? &ret_old[1] : NULL);
}

void smcctl_interrupt_restore(const struct sigaction old[2])
{
	sigaction(SIGINT, &old[0], NULL);
	sigaction(SIGTERM, &old[1], NULL);
}
