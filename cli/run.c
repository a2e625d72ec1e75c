// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl run [--method auto|bpf|preload] [--sndbuf SIZE] [--rcvbuf SIZE] [-q] -- COMMAND...
 *
 * Runs COMMAND with its TCP stream sockets created as SMC, the program unchanged, and says on
 * stderr which way was used.  Three ways, in this order for --method auto:
 *
 *  1. BPF through smcd-agent (when it runs): smcctl asks the agent, over D-Bus with a pidfd of
 *     itself, to enroll this very process, then execs COMMAND.  The agent holds the programs,
 *     so nothing of smcctl stays around: COMMAND is the process, its exit status and signals
 *     are its own.  Works for any user (a process may enroll itself; see bus-policy.c).
 *  2. BPF held by smcctl (no agent; needs root): smcctl loads the programs, enrolls itself,
 *     forks COMMAND and stays as its parent until it exits, because the programs (links) live
 *     exactly as long as smcctl's file descriptors: nothing is pinned, nothing is left behind
 *     when smcctl ends, however it ends.  Signals sent to smcctl are forwarded; the exit
 *     status is COMMAND's (a signal death is re-raised).  If COMMAND leaves daemons behind
 *     and exits, their new sockets are TCP again once smcctl is gone: use a policy for them.
 *  3. LD_PRELOAD of libsmc-preload.so (no BPF here, or --method preload): exec with the
 *     library in LD_PRELOAD.  Dynamically linked programs only.
 *
 * The enrollment (1, 2) covers COMMAND, every thread and every child it creates, in any pid
 * namespace, and ends with each task (BPF task storage; smc_select.bpf.c says why).
 *
 * Buffer sizes (--sndbuf/--rcvbuf) are SO_SNDBUF/SO_RCVBUF on every SMC socket, set by the
 * library (3) or by a cgroup/sock_create program as the socket is created (1, 2).  Both are
 * setsockopt semantics: capped by net.core.wmem_max/rmem_max and doubled by the kernel; SMC
 * then uses half of it (rounded up to a power of two, at most 1 MiB for SMC-D) for the send
 * buffer and the RMB/DMB.  Without them, IPPROTO_SMC sockets start from net.smc.wmem/rmem of
 * the network namespace (what smc.yaml's sysctl: section sets for everybody).
 *
 * Exit status: COMMAND's; 127 when it cannot be found, 126 when it cannot be run; smcctl's
 * own statuses (2 usage, 3 not available, 4 permission, 1 other) before it started.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

#include "cli/bus.h"
#include "cli/verbs.h"
#include "cli/run.h"
#include "common/bus-api.h"
#include "config/units.h"
#ifdef HAVE_BPF
#include "bpf/smcbpf.h"
#endif

#ifndef SMCD_PRELOAD_LIB
#define SMCD_PRELOAD_LIB "/usr/local/lib/smcd-agent/libsmc-preload.so"
#endif
#ifndef AF_SMC
#define AF_SMC 43
#endif
#define RUN_IPPROTO_SMC 256

#define SIZE_MIN 4096
#define SIZE_MAX_BYTES (512 * 1024 * 1024)

enum run_method {
	METHOD_AUTO,
	METHOD_BPF,
	METHOD_PRELOAD,
};

struct run_args {
	FILE *err;
	enum run_method method;
	uint32_t sndbuf, rcvbuf;
	bool quiet;
	char **argv;
};

_printf_(2, 3) static void note(const struct run_args *r, const char *fmt, ...)
{
	va_list ap;

	if (r->quiet)
		return;
	fputs("smcctl: run: ", r->err);
	va_start(ap, fmt);
	vfprintf(r->err, fmt, ap);
	va_end(ap);
	fputc('\n', r->err);
	fflush(r->err);
}

static int parse_buf(struct smcctl *c, const char *opt, const char *s, uint32_t *ret)
{
	int64_t v;

	if (!s)
		return 0;
	if (parse_size(s, &v) < 0 || v < SIZE_MIN || v > SIZE_MAX_BYTES) {
		char hint[64];

		return smcctl_usage(
			c, "--%s: '%s' is not a size from 4KiB to 512MiB (e.g. 256KiB, 1MiB)%s",
			opt, s, size_hint(s, hint, sizeof(hint)));
	}
	*ret = (uint32_t)v;
	return 0;
}

static int parse_args(struct smcctl *c, const struct verb_args *a, struct run_args *r)
{
	const char *m = a->opt[RUN_OPT_METHOD];
	int s;

	memset(r, 0, sizeof(*r));
	r->err = c->err;
	if (!m || streq(m, "auto"))
		r->method = METHOD_AUTO;
	else if (streq(m, "bpf"))
		r->method = METHOD_BPF;
	else if (streq(m, "preload"))
		r->method = METHOD_PRELOAD;
	else
		return smcctl_usage(
			c, "--method: '%s' is not a method (expected auto, bpf or preload)", m);
	if ((s = parse_buf(c, "sndbuf", a->opt[RUN_OPT_SNDBUF], &r->sndbuf)) ||
	    (s = parse_buf(c, "rcvbuf", a->opt[RUN_OPT_RCVBUF], &r->rcvbuf)))
		return s;
	r->quiet = a->opt[RUN_OPT_QUIET] != NULL;
	r->argv = a->pos;
	return 0;
}

/* The setsockopt cap the kernel applies to SO_SNDBUF/SO_RCVBUF, worth a warning. */
static void warn_cap(const struct run_args *r, const char *opt, uint32_t v, const char *sysctl)
{
	char path[64], buf[32];
	FILE *f;
	int64_t max;

	if (!v)
		return;
	snprintf(path, sizeof(path), "/proc/sys/net/core/%s", sysctl);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, sizeof(buf), f) && parse_int64(buf, &max) >= 0 && max > 0 && v > max)
		note(r,
		     "--%s %u is more than net.core.%s (%ld): the kernel caps SO_%s there (raise it with sysctl -w net.core.%s=%u)",
		     opt, v, sysctl, (long)max, streq(opt, "sndbuf") ? "SNDBUF" : "RCVBUF", sysctl,
		     v);
	fclose(f);
}

/* ---- exec ------------------------------------------------------------------------------ */

static int exec_failed(const char *cmd, int err)
{
	fprintf(stderr, "smcctl: run: cannot run '%s': %s\n", cmd, strerror(err));
	return err == ENOENT ? 127 : 126;
}

/* Only returns on failure, with the exit status to use. */
static int exec_command(char **argv)
{
	execvp(argv[0], argv);
	return exec_failed(argv[0], errno);
}

/* ---- 3: LD_PRELOAD ------------------------------------------------------------------------ */

static const char *preload_lib(void)
{
	const char *p = getenv("SMCD_PRELOAD_LIB");

	return p && *p ? p : SMCD_PRELOAD_LIB;
}

/* What the library will use here, probed the way it does. */
static const char *preload_proto(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, RUN_IPPROTO_SMC);

	if (fd >= 0) {
		close(fd);
		return "IPPROTO_SMC";
	}
	fd = socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		close(fd);
		return "AF_SMC";
	}
	return NULL;
}

static int setenv_size(const char *name, uint32_t v)
{
	char buf[16];

	if (!v)
		return 0;
	snprintf(buf, sizeof(buf), "%u", v);
	return setenv(name, buf, 1);
}

static int run_preload(struct smcctl *c, const struct run_args *r, const char *why_not_bpf)
{
	const char *lib = preload_lib(), *old = getenv("LD_PRELOAD"), *proto;
	_cleanup_(freep) char *value = NULL;

	if (access(lib, R_OK) < 0)
		return smcctl_error(
			c, SMCCTL_EXIT_UNAVAILABLE,
			"run: the LD_PRELOAD library %s is missing: %s (is smcd-agent installed?)",
			lib, strerror(errno));
	/* After the caller's own preloads: another socket() wrapper stays first and reaches
	 * ours through RTLD_NEXT (smc_run does the same). */
	if (asprintf(&value, "%s%s%s", old && *old ? old : "", old && *old ? ":" : "", lib) < 0)
		return smcctl_oom(c);
	if (setenv("LD_PRELOAD", value, 1) < 0 || setenv_size("SMC_SNDBUF", r->sndbuf) < 0 ||
	    setenv_size("SMC_RCVBUF", r->rcvbuf) < 0)
		return smcctl_oom(c);
	proto = preload_proto();
	if (proto)
		note(r, "SMC through LD_PRELOAD (%s, %s)%s%s", proto, lib,
		     why_not_bpf ? "; BPF not used: " : "", why_not_bpf ? why_not_bpf : "");
	else
		note(r,
		     "LD_PRELOAD (%s) set, but this kernel creates neither IPPROTO_SMC nor AF_SMC sockets: the sockets stay TCP%s%s",
		     lib, why_not_bpf ? "; BPF not used: " : "", why_not_bpf ? why_not_bpf : "");
	warn_cap(r, "sndbuf", r->sndbuf, "wmem_max");
	warn_cap(r, "rcvbuf", r->rcvbuf, "rmem_max");
	return exec_command(r->argv);
}

/* ---- 1: through the agent ----------------------------------------------------------------- */

static int pidfd_self(void)
{
#ifdef SYS_pidfd_open
	int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);

	return fd < 0 ? negative_errno() : fd;
#else
	return -ENOSYS;
#endif
}

/*
 * 0 enrolled (note: what was not applied), -ENOENT no agent (or one without policies),
 * other -errno with why.
 */
static int enroll_via_agent(const struct run_args *r, char *why, size_t len, char *notes, size_t nlen)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_(closep) int pidfd = -1;
	const char *s = NULL;
	int k;

	if (bus_open_quiet(&bus) < 0)
		return -ENOENT;
	pidfd = pidfd_self();
	if (pidfd < 0) {
		snprintf(why, len, "no pidfd_open() (Linux 5.3 or later): %s", strerror(-pidfd));
		return pidfd;
	}
	k = sd_bus_call_method(bus, SMCD_BUS_NAME, SMCD_BUS_PATH, SMCD_BUS_IFACE_POLICY,
			       SMCD_BUS_POLICY_ENROLL_PROCESS, &e, &reply, "huu", pidfd, r->sndbuf,
			       r->rcvbuf);
	if (k < 0) {
		if (sd_bus_error_has_names(&e, SD_BUS_ERROR_SERVICE_UNKNOWN,
					   SD_BUS_ERROR_NAME_HAS_NO_OWNER,
					   SD_BUS_ERROR_UNKNOWN_INTERFACE,
					   SD_BUS_ERROR_UNKNOWN_METHOD, SD_BUS_ERROR_UNKNOWN_OBJECT))
			return -ENOENT;
		snprintf(why, len, "smcd-agent: %s", e.message ? e.message : strerror(-k));
		if (sd_bus_error_has_name(&e, SMCD_BUS_ERROR_RATE_LIMITED))
			return -EBUSY;
		return sd_bus_error_has_name(&e, SD_BUS_ERROR_ACCESS_DENIED) ? -EACCES : -ENOTSUP;
	}
	if (sd_bus_message_read(reply, "s", &s) >= 0 && s)
		snprintf(notes, nlen, "%s", s);
	return 0;
}

/* ---- 2: held by smcctl ------------------------------------------------------------------- */

#ifdef HAVE_BPF
static volatile sig_atomic_t child_pid;

static void run_forward(int sig)
{
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

/* The child's end as our own: its status, or its signal (without a core dump of ours). */
static int pass_status(int status)
{
	struct rlimit no_core = { 0, 0 };
	int sig;

	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (!WIFSIGNALED(status))
		return SMCCTL_EXIT_FAILURE;
	sig = WTERMSIG(status);
	(void)setrlimit(RLIMIT_CORE, &no_core);
	signal(sig, SIG_DFL);
	{
		sigset_t ss;

		sigemptyset(&ss);
		sigaddset(&ss, sig);
		sigprocmask(SIG_UNBLOCK, &ss, NULL);
	}
	raise(sig);
	return 128 + sig;
}

static int fork_and_wait(char **argv)
{
	static const int forwarded[] = { SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGCONT, SIGWINCH };
	struct sigaction sa = { .sa_handler = run_forward }, ign = { .sa_handler = SIG_IGN },
			 old_int, old_quit;
	sigset_t block, old_mask;
	int status;
	pid_t pid;

	/* Held from before the fork until forwarding is in place: a signal sent to us once the
	 * command runs is never lost, however the two processes are scheduled. */
	sigemptyset(&block);
	for (size_t i = 0; i < ELEMENTSOF(forwarded); i++)
		sigaddset(&block, forwarded[i]);
	sigprocmask(SIG_BLOCK, &block, &old_mask);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "smcctl: run: cannot fork: %s\n", strerror(errno));
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		return SMCCTL_EXIT_FAILURE;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		_exit(exec_command(argv));
	}
	child_pid = pid;
	/* A terminal's ^C / ^\ reach the whole foreground group, the child included: we wait for
	 * its decision (what system(3) does).  Signals sent to us alone are passed on. */
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < ELEMENTSOF(forwarded); i++)
		sigaction(forwarded[i], &sa, NULL);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "smcctl: run: waitpid: %s\n", strerror(errno));
			return SMCCTL_EXIT_FAILURE;
		}
	child_pid = 0;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	return status;
}

static void libbpf_quiet(int level, const char *line)
{
	if (getenv("SMCD_DEBUG_BPF"))
		fprintf(stderr, "libbpf: %s\n", line);
}

/* Returns -errno (why set) before COMMAND ran, else the wait status of COMMAND. */
static int run_self_held(const struct run_args *r, char *why, size_t len, int *ret_status)
{
	struct smcbpf_select *s = NULL;
	_cleanup_(closep) int pidfd = -1;
	const char *bufs;
	int k;

	smcbpf_set_log(libbpf_quiet);
	k = smcbpf_select_open(r->sndbuf || r->rcvbuf, NULL, &s, why, len);
	if (k < 0)
		return k;
	pidfd = pidfd_self();
	k = pidfd < 0 ? pidfd : smcbpf_enroll(s, pidfd, (uint32_t)getpid(), r->sndbuf, r->rcvbuf);
	if (k < 0) {
		snprintf(why, len, "cannot enroll the command: %s", strerror(-k));
		smcbpf_select_free(s);
		return k;
	}
	bufs = smcbpf_select_buffers(s);
	note(r, "SMC through BPF (IPPROTO_SMC; programs held by smcctl until the command exits)");
	if ((r->sndbuf || r->rcvbuf) && bufs)
		note(r, "buffer sizes are not applied: %s", bufs);
	warn_cap(r, "sndbuf", r->sndbuf, "wmem_max");
	warn_cap(r, "rcvbuf", r->rcvbuf, "rmem_max");
	*ret_status = fork_and_wait(r->argv);
	smcbpf_select_free(s);
	return 0;
}
#endif

/* ---- the verb ------------------------------------------------------------------------------ */

int run_command(struct smcctl *c, const struct verb_args *a)
{
	char why[512] = "", notes[400] = "";
	struct run_args r;
	int s, k;

	s = parse_args(c, a, &r);
	if (s)
		return s;
	if (r.method == METHOD_PRELOAD)
		return run_preload(c, &r, NULL);

	k = enroll_via_agent(&r, why, sizeof(why), notes, sizeof(notes));
	if (k == 0) {
		note(&r, "SMC through BPF (IPPROTO_SMC; enrolled by smcd-agent)");
		if (notes[0])
			note(&r, "%s", notes);
		warn_cap(&r, "sndbuf", r.sndbuf, "wmem_max");
		warn_cap(&r, "rcvbuf", r.rcvbuf, "rmem_max");
		return exec_command(r.argv);
	}
	/* Not a reason to take another method behind the user's back: the agent can, later. */
	if (k == -EBUSY)
		return smcctl_error(c, SMCCTL_EXIT_FAILURE, "run: %s", why);
	if (k == -ENOENT) {
#ifdef HAVE_BPF
		int status;

		k = run_self_held(&r, why, sizeof(why), &status);
		if (k == 0)
			return pass_status(status);
#else
		snprintf(why, sizeof(why),
			 "smcctl was built without BPF support (configure --disable-bpf) and smcd-agent is not running");
		k = -ENOTSUP;
#endif
	}
	if (r.method == METHOD_BPF)
		return smcctl_error(c,
				    k == -EPERM || k == -EACCES ? SMCCTL_EXIT_PERMISSION
								: SMCCTL_EXIT_UNAVAILABLE,
				    "run: --method bpf: %s", why);
	return run_preload(c, &r, why);
}
