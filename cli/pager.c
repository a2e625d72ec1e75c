// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl's pager, as systemd's tools have one (src/shared/pager.c there): a verb whose text
 * can be longer than a screen (VERB_PAGER) and help go through a pager when stdout is a
 * terminal.  Which: $SMCCTL_PAGER, else $PAGER, else less (LESS=FRKX unless set: quit when
 * it fits a screen, colours, Ctrl-C quits, no clearing), else more, else a plain copy.
 * "cat" or an empty value, --no-pager, -j, TERM=dumb or a stdout that is no terminal: none.
 *
 * Started with privileges another user granted (sudo, pkexec, setuid), a pager must not
 * become a shell with them (less "!sh"): then only less runs, with LESSSECURE=1, and the
 * caller's $SMCCTL_PAGER/$PAGER count only to turn it off.
 *
 * The pager never changes smcctl's exit status: smcctl waits for it, and a pager quit
 * before the end of the text (EPIPE; SIGPIPE is ignored while it runs) is no error
 * (flush_out in cli/smcctl.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/smcctl.h"

static bool pager_secure(void)
{
	return getuid() != geteuid() || getgid() != getegid() ||
	       (geteuid() == 0 && (getenv("SUDO_UID") || getenv("PKEXEC_UID")));
}

const char *smcctl_pager_command(const char *smcctl_pager, const char *pager, bool secure,
				 bool *ret_off)
{
	const char *want = smcctl_pager ? smcctl_pager : pager;

	*ret_off = want && (!*want || strcmp(want, "cat") == 0);
	if (*ret_off || secure)
		return NULL;
	return want;
}

/* The child: stdin is the pipe.  Never returns. */
static void pager_exec(const char *cmd, bool secure)
{
	char buf[4096];
	ssize_t n;

	setenv("LESS", "FRKX", 0);
	if (secure)
		setenv("LESSSECURE", "1", 1);
	signal(SIGPIPE, SIG_DFL);
	if (cmd) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	} else {
		execlp("less", "less", (char *)NULL);
		if (!secure)
			execlp("more", "more", (char *)NULL);
	}
	/* no pager to be had: the text as it is */
	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0 && write(STDOUT_FILENO, buf, (size_t)n) != n)
			break;
	_exit(n < 0 ? EXIT_FAILURE : EXIT_SUCCESS);
}

void smcctl_pager_open(struct smcctl *c)
{
	const char *term = getenv("TERM"), *cmd;
	bool off, secure = pager_secure();
	int fd[2];
	pid_t pid;

	if (c->pager_pid > 0 || c->no_pager || c->json || c->out != stdout ||
	    !isatty(STDOUT_FILENO) || (term && strcmp(term, "dumb") == 0))
		return;
	cmd = smcctl_pager_command(getenv("SMCCTL_PAGER"), getenv("PAGER"), secure, &off);
	if (off)
		return;
	fflush(stdout);
	fflush(stderr);
	/* Our text into the pipe; errors too when they would reach the same terminal, so
	 * they stay in order with it (as systemd's tools do).  The terminal's descriptors are
	 * kept to give back in smcctl_pager_close(). */
	c->pager_stdout = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	c->pager_stderr = isatty(STDERR_FILENO) ? fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3) : -1;
	if (c->pager_stdout < 0 || pipe2(fd, O_CLOEXEC) < 0)
		goto none;
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		goto none;
	}
	if (pid == 0) {
		/* Close-on-exec is not enough: with no pager to exec, the copy reads to EOF. */
		if (dup2(fd[0], STDIN_FILENO) < 0)
			_exit(EXIT_FAILURE);
		close(fd[0]);
		close(fd[1]);
		close(c->pager_stdout);
		if (c->pager_stderr >= 0)
			close(c->pager_stderr);
		pager_exec(cmd, secure);
	}
	dup2(fd[1], STDOUT_FILENO);
	if (c->pager_stderr >= 0)
		dup2(fd[1], STDERR_FILENO);
	close(fd[0]);
	close(fd[1]);
	signal(SIGPIPE, SIG_IGN);
	c->pager_pid = pid;
	return;
none:
	if (c->pager_stdout >= 0)
		close(c->pager_stdout);
	if (c->pager_stderr >= 0)
		close(c->pager_stderr);
	c->pager_stdout = c->pager_stderr = -1;
}

void smcctl_pager_close(struct smcctl *c)
{
	int wstatus;

	if (c->pager_pid <= 0)
		return;
	fflush(stdout);
	fflush(stderr);
	/* end of text for the pager: the terminal is ours again */
	dup2(c->pager_stdout, STDOUT_FILENO);
	close(c->pager_stdout);
	if (c->pager_stderr >= 0) {
		dup2(c->pager_stderr, STDERR_FILENO);
		close(c->pager_stderr);
	}
	clearerr(stdout);
	while (waitpid(c->pager_pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	c->pager_pid = 0;
	signal(SIGPIPE, SIG_DFL);
}
