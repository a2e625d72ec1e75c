// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Why a BPF load or attach failed: see bpf-reason.h.  The order of the questions is the
 * order in which a cause excludes the others: capabilities the caller lacks (then the
 * kernel's answer says nothing more), the kernel's lockdown, no BTF, no function to attach
 * to, no trampolines, the verifier's words, and last whatever the kernel said.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include "common/bpf-reason.h"
#include "common/macro.h"

#ifndef ENOTSUPP
#define ENOTSUPP 524 /* the kernel's internal "not supported", seen by BPF callers */
#endif

#define LOCKDOWN_FILE "/sys/kernel/security/lockdown"
#define BTF_VMLINUX "/sys/kernel/btf/vmlinux"
#define UNPRIV_BPF_SYSCTL "/proc/sys/kernel/unprivileged_bpf_disabled"

void bpf_lockdown_mode(const char *text, char *ret, size_t len)
{
	const char *open = strchr(text, '['), *close = open ? strchr(open, ']') : NULL;

	if (!open || !close)
		snprintf(ret, len, "%s", "");
	else
		snprintf(ret, len, "%.*s", (int)(close - open - 1), open + 1);
}

/* The first line of a small file, or "" when it cannot be read. */
static void bpf_reason_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

/* Seccomp: of /proc/self/status (0 none, 1 strict, 2 filter), -1 unknown. */
static int seccomp_mode(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	int mode = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "Seccomp:", 8) == 0)
			mode = atoi(line + 8);
	fclose(f);
	return mode;
}

void bpf_load_facts_read(struct bpf_load_facts *f)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};
	char line[128];

	f->caps_known = syscall(SYS_capget, &h, d) == 0;
	f->caps_effective = f->caps_known ? (uint64_t)d[1].effective << 32 | d[0].effective : 0;
	f->euid = geteuid();
	bpf_reason_read_line(LOCKDOWN_FILE, line, sizeof(line));
	bpf_lockdown_mode(line, f->lockdown, sizeof(f->lockdown));
	f->btf = access(BTF_VMLINUX, R_OK) == 0;
	bpf_reason_read_line(UNPRIV_BPF_SYSCTL, line, sizeof(line));
	f->unprivileged_bpf_disabled = line[0] ? atoi(line) : -1;
	f->seccomp_filter = seccomp_mode() == 2;
}

static const struct {
	int bit;
	const char *name;
} cap_names[] = {
	{ BPF_REASON_CAP_BPF, "CAP_BPF" },
	{ BPF_REASON_CAP_PERFMON, "CAP_PERFMON" },
	{ BPF_REASON_CAP_NET_ADMIN, "CAP_NET_ADMIN" },
	{ BPF_REASON_CAP_SYS_ADMIN, "CAP_SYS_ADMIN" },
};

/* "CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN" */
static void cap_list(uint64_t caps, char *buf, size_t len)
{
	size_t n = 0, total = 0, at = 0;

	for (size_t i = 0; i < ELEMENTSOF(cap_names); i++)
		total += !!(caps & (UINT64_C(1) << cap_names[i].bit));
	buf[0] = '\0';
	for (size_t i = 0; i < ELEMENTSOF(cap_names) && at < len; i++) {
		if (!(caps & (UINT64_C(1) << cap_names[i].bit)))
			continue;
		n++;
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       n == 1	    ? ""
				       : n == total ? " and "
						    : ", ",
				       cap_names[i].name);
	}
}

/* What of caps_needed the caller lacks: CAP_SYS_ADMIN stands for CAP_BPF and CAP_PERFMON,
 * as it does for the kernel (and before Linux 5.8, which has neither). */
static uint64_t caps_missing(const struct bpf_load_facts *f)
{
	uint64_t have = f->caps_effective;

	if (have & BPF_REASON_CAP(SYS_ADMIN))
		have |= BPF_REASON_CAP(BPF) | BPF_REASON_CAP(PERFMON);
	return f->caps_needed & ~have;
}

_printf_(4, 5) static int say(char *why, size_t len, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return err;
}

/* libbpf's words without its own "libbpf: " (ours names it), or NULL. */
static const char *detail_of(const struct bpf_load_facts *f)
{
	const char *d = f->detail;

	if (d && strncmp(d, "libbpf: ", 8) == 0)
		d += 8;
	return d && d[0] ? d : NULL;
}

/* EPERM (or the verifier's EACCES for a caller without the capabilities). */
static int not_permitted(const struct bpf_load_facts *f, char *why, size_t len)
{
	uint64_t missing = caps_missing(f);
	char needed[96], lacks[96], unpriv[160] = "";

	cap_list(f->caps_needed, needed, sizeof(needed));
	cap_list(missing, lacks, sizeof(lacks));
	if (f->unprivileged_bpf_disabled > 0 && (missing & BPF_REASON_CAP(BPF)))
		snprintf(unpriv, sizeof(unpriv),
			 "; kernel.unprivileged_bpf_disabled is %d, so without CAP_BPF no BPF "
			 "program loads at all",
			 f->unprivileged_bpf_disabled);
	if (!f->caps_known)
		return say(why, len, -EPERM,
			   "the kernel did not permit loading %s (%s: %s): it needs root (%s)%s%s",
			   f->what, f->step, strerror(-f->err), needed, f->hint ? " " : "",
			   f->hint ? f->hint : "");
	if (missing && f->euid == 0)
		return say(why, len, -EPERM,
			   "loading %s needs %s, and this process runs as root but without %s (a "
			   "container, systemd's CapabilityBoundingSet= or capsh dropped it): run it "
			   "with %s%s",
			   f->what, needed, lacks, lacks, unpriv);
	if (missing)
		return say(why, len, -EPERM,
			   "loading %s needs root (%s; this process lacks %s)%s%s%s", f->what,
			   needed, lacks, f->hint ? " " : "", f->hint ? f->hint : "", unpriv);
	if (streq(f->lockdown, "integrity") || streq(f->lockdown, "confidentiality"))
		return say(why, len, -ENOTSUP,
			   "the kernel refused %s (%s: %s) although this process has %s: the kernel "
			   "is locked down (%s, %s), and lockdown refuses BPF programs that read "
			   "kernel memory even to root; boot with lockdown=none (or with Secure Boot's "
			   "lockdown off) to use them",
			   f->what, f->step, strerror(-f->err), needed, f->lockdown, LOCKDOWN_FILE);
	if (f->seccomp_filter)
		return say(why, len, -EPERM,
			   "the kernel refused %s (%s: %s) although this process has %s: it runs "
			   "under a seccomp filter (Seccomp: 2 in /proc/self/status: a container's, or "
			   "systemd's SystemCallFilter=), which most likely forbids bpf(); run it where "
			   "bpf() is allowed%s%s",
			   f->what, f->step, strerror(-f->err), needed,
			   detail_of(f) ? "; libbpf: " : "", detail_of(f) ? detail_of(f) : "");
	return say(why, len, -EPERM,
		   "the kernel refused %s (%s: %s) although this process has %s%s: a security "
		   "module (SELinux, AppArmor, a BPF LSM) or a container's policy forbids it here "
		   "(the kernel log may say which)%s%s",
		   f->what, f->step, strerror(-f->err), needed,
		   streq(f->lockdown, "none") ? " and the kernel is not locked down" : "",
		   detail_of(f) ? "; libbpf: " : "", detail_of(f) ? detail_of(f) : "");
}

int bpf_load_reason(const struct bpf_load_facts *f, char *why, size_t len)
{
	int err = f->err < 0 ? f->err : -f->err;
	bool attach = f->step && strncmp(f->step, "attach", 6) == 0;

	if (!why || !len)
		return err;
	if (err == -EPERM || (err == -EACCES && f->caps_known && caps_missing(f)))
		return not_permitted(f, why, len);
	if (!f->btf)
		return say(why, len, -ENOTSUP,
			   "this kernel has no BTF (/sys/kernel/btf/vmlinux; CONFIG_DEBUG_INFO_BTF), "
			   "which %s need",
			   f->what);
	if (err == -ENOENT || err == -ESRCH || (attach && err == -EINVAL))
		return say(why, len, -ENOTSUP, "this kernel has no %s to attach %s to (%s: %s)%s%s",
			   f->target ? f->target : "hook", f->what, f->step, strerror(-err),
			   detail_of(f) ? "; libbpf: " : "", detail_of(f) ? detail_of(f) : "");
	if (err == -ENOTSUPP || err == -EOPNOTSUPP)
		return say(why, len, -ENOTSUP,
			   "this kernel cannot attach BPF trampolines (CONFIG_BPF_JIT, and on x86 "
			   "CONFIG_FUNCTION_TRACER with DYNAMIC_FTRACE), which %s need",
			   f->what);
	if ((err == -EACCES || err == -EINVAL || err == -E2BIG) && detail_of(f))
		return say(why, len, err, "the kernel's verifier refused %s (%s: %s): %s", f->what,
			   f->step, strerror(-err), detail_of(f));
	return say(why, len, err, "the kernel refused %s (%s: %s)%s%s", f->what, f->step,
		   strerror(-err), detail_of(f) ? "; libbpf: " : "",
		   detail_of(f) ? detail_of(f) : "");
}
