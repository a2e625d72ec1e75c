// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smc-runc: docker's per-container opt-in to SMC.  Docker 20.10 passes no annotations
 * to the OCI spec, so podman's and CRI-O's way (the annotation org.smcd.smc=true read by
 * the hook of hooks.d) cannot reach its containers; a runtime registered in daemon.json can
 * (nvidia-container-runtime's way):
 *
 *     {"runtimes": {"smc": {"path": "/usr/libexec/smcd-agent/smc-runc"}}}
 *     docker run --runtime smc ...
 *
 * For runc's create (and run), smc-runc adds to the bundle's config.json what hooks.d adds
 * for an annotated container under podman: the annotation and the hooks createRuntime and
 * poststop running smcctl oci-hook (cli/oci-hook.c, which does the rest and refuses what
 * it refuses there: a host-network container, say), written back atomically; then, for
 * every command, it executes the real runc with the arguments it was given.
 *
 * It never keeps a container from starting on its own trouble: a config.json it cannot
 * read, understand or write back is said (stderr and syslog, so the journal) and handed to
 * runc as it is, which starts the container without SMC or says what is wrong with the
 * bundle.  Only what leaves no runtime to run fails: no runc found, or the runtime named
 * being smc-runc itself (directly or through a script: SMC_RUNC_ACTIVE marks the
 * environment of what it executes).
 *
 * The runtime is the first "runc" in $PATH that is not smc-runc itself, or the one named by
 * --smc-runtime=PATH, taken only as the first argument (daemon.json's runtimeArgs).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "cli/smc-runc.h"
#include "common/macro.h"
#include "common/util.h"

#define ACTIVE_ENV "SMC_RUNC_ACTIVE"

static void smc_runc_say(int level, const char *fmt, ...) _printf_(2, 3);
static void smc_runc_say(int level, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "smc-runc: %s\n", msg);
	syslog(level, "%s", msg);
}

static bool same_file(const struct stat *a, const char *path)
{
	struct stat b;

	return stat(path, &b) == 0 && a->st_dev == b.st_dev && a->st_ino == b.st_ino;
}

/* The runtime to execute into buf: 0, or -ENOENT (none) or -ELOOP (only ourselves). */
static int runtime_find(const char *name, char *buf, size_t len)
{
	const char *path = getenv("PATH"), *p;
	struct stat self;
	bool looped = false;

	if (stat("/proc/self/exe", &self) < 0)
		return negative_errno();
	if (strchr(name, '/')) {
		snprintf(buf, len, "%s", name);
		if (access(buf, X_OK) < 0)
			return negative_errno();
		return same_file(&self, buf) ? -ELOOP : 0;
	}
	for (p = path && path[0] ? path
				 : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	     *p; p += *p == ':') {
		size_t n = strcspn(p, ":");
		int k = snprintf(buf, len, "%.*s/%s", (int)n, n ? p : ".", name);

		p += n;
		if (k < 0 || (size_t)k >= len || access(buf, X_OK) < 0)
			continue;
		if (same_file(&self, buf)) {
			looped = true;
			continue;
		}
		return 0;
	}
	return looped ? -ELOOP : -ENOENT;
}

/* The bundle's config.json: its text and mode, 0 or -errno (said by the caller). */
static int config_read(const char *path, char **ret, size_t *ret_len, mode_t *ret_mode)
{
	_cleanup_(closep) int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	int r;

	if (fd < 0)
		return negative_errno();
	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (!S_ISREG(st.st_mode))
		return -EBADF;
	if (st.st_size >= SMC_RUNC_CONFIG_MAX)
		return -EFBIG;
	/* One byte more than its size: a file that grew while read is not ours to rewrite. */
	r = fd_read_small(fd, (size_t)st.st_size + 1, ret, ret_len);
	if (r < 0)
		return r;
	*ret_mode = st.st_mode & 07777;
	return 0;
}

/* The annotation and the hooks into BUNDLE/config.json; whatever fails is said, and runc
 * gets the bundle as it is. */
static void bundle_edit(const char *bundle)
{
	_cleanup_(freep) char *path = NULL, *text = NULL, *edited = NULL;
	char why[512];
	size_t len = 0;
	mode_t mode = 0644;
	int r;

	if (asprintf(&path, "%s/config.json", bundle) < 0) {
		smc_runc_say(LOG_WARNING, "out of memory: the container starts without SMC");
		return;
	}
	r = config_read(path, &text, &len, &mode);
	if (r < 0) {
		smc_runc_say(
			LOG_WARNING,
			"cannot read %s: %s: the container gets no SMC (runc says whether the bundle is usable)",
			path,
			r == -EFBIG   ? "it is too large to edit"
			: r == -EBADF ? "not a regular file"
				      : strerror(-r));
		return;
	}
	r = smc_runc_config_edit(text, len, SMC_RUNC_SMCCTL, &edited, why, sizeof(why));
	if (r < 0) {
		smc_runc_say(
			LOG_WARNING,
			"%s is left as it is, %s: the container gets no SMC (runc says whether the bundle is usable)",
			path, why);
		return;
	}
	if (r == 0)
		return; /* the hooks are there already */
	r = textfile_replace(path, edited, strlen(edited), mode);
	if (r < 0)
		smc_runc_say(LOG_WARNING, "cannot write %s: %s: the container starts without SMC",
			     path, textfile_untrusted() ? textfile_untrusted() : strerror(-r));
}

int main(int argc, char **argv)
{
	struct smc_runc_args a;
	char runtime[4096];
	char **args;
	int r;

	openlog("smc-runc", LOG_PID, LOG_DAEMON);
	if (getenv("SMC_RUNC_ACTIVE")) { /* ACTIVE_ENV, spelled for man-coverage.test */
		smc_runc_say(
			LOG_ERR,
			"started by smc-runc itself: the runtime it executes runs it again; name the real runc with %sPATH in daemon.json's runtimeArgs",
			SMC_RUNC_RUNTIME_OPT);
		return 1;
	}
	if (smc_runc_args_parse(argc, argv, &a) < 0) {
		smc_runc_say(LOG_ERR, "%s needs a path: %sPATH (the real runc)",
			     SMC_RUNC_RUNTIME_OPT, SMC_RUNC_RUNTIME_OPT);
		return 1;
	}
	r = runtime_find(a.runtime ? a.runtime : "runc", runtime, sizeof(runtime));
	if (r < 0) {
		if (r == -ELOOP)
			smc_runc_say(
				LOG_ERR,
				"%s is smc-runc itself, not a runtime; name the real runc with %sPATH in daemon.json's runtimeArgs",
				a.runtime ? a.runtime : "every runc in $PATH", SMC_RUNC_RUNTIME_OPT);
		else
			smc_runc_say(
				LOG_ERR,
				"cannot run %s: %s; install runc, or name the runtime with %sPATH in daemon.json's runtimeArgs",
				a.runtime ? a.runtime : "runc (in $PATH)", strerror(-r),
				SMC_RUNC_RUNTIME_OPT);
		return 1;
	}
	if (a.creates)
		bundle_edit(a.bundle);
	args = calloc((size_t)(argc - a.first + 2), sizeof(*args));
	if (!args) {
		smc_runc_say(LOG_ERR, "out of memory");
		return 1;
	}
	args[0] = runtime;
	for (int i = a.first; i < argc; i++)
		args[i - a.first + 1] = argv[i];
	if (setenv(ACTIVE_ENV, "1", 1) < 0) {
		smc_runc_say(LOG_ERR, "out of memory");
		return 1;
	}
	closelog();
	execv(runtime, args);
	r = errno;
	openlog("smc-runc", LOG_PID, LOG_DAEMON);
	smc_runc_say(LOG_ERR, "cannot execute %s: %s", runtime, strerror(r));
	return 1;
}
