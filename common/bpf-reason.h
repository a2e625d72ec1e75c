/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Why a BPF load or attach failed, in words: one function for every loader (bpf/smcbpf.c:
 * the agent's policy, exclusion, fallback and assessment programs, smcctl assess and run).
 * An errno alone says little (EPERM is missing capabilities, but also lockdown, a security
 * module or seccomp; ESRCH is a kernel without the function to attach to), so the reason
 * is derived from the errno and facts about the caller and the kernel, which
 * bpf_load_facts_read() gathers and a test can set instead.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The capabilities a loader names (bit numbers as in linux/capability.h). */
#define BPF_REASON_CAP_NET_ADMIN 12
#define BPF_REASON_CAP_SYS_ADMIN 21
#define BPF_REASON_CAP_PERFMON 38
#define BPF_REASON_CAP_BPF 39
#define BPF_REASON_CAP(c) (UINT64_C(1) << BPF_REASON_CAP_##c)

struct bpf_load_facts {
	/* from the loader */
	int err;	      /* negative errno of the step */
	const char *step;     /* "load", "attach" */
	const char *what;     /* "the assessment programs" */
	const char *target;   /* what they attach to: "the tcp_sendmsg function" */
	uint64_t caps_needed; /* BPF_REASON_CAP() bits */
	const char *hint;     /* appended to "needs root": "or a running smcd-agent"; NULL */
	const char *detail;   /* the verifier's or libbpf's last words, "" or NULL: none */
	/* from the caller and the kernel (bpf_load_facts_read()) */
	bool caps_known;	 /* capget() answered */
	uint64_t caps_effective; /* the caller's effective set */
	uid_t euid;
	char lockdown[24]; /* the selected mode ("none", "integrity", ...); "": unknown */
	bool btf;	   /* /sys/kernel/btf/vmlinux is there */
	int unprivileged_bpf_disabled; /* kernel.unprivileged_bpf_disabled; -1: unknown */
	bool seccomp_filter;	       /* a seccomp filter is on this process (Seccomp: 2) */
};

/* The facts of this process and the running kernel into f (the loader's fields stay). */
void bpf_load_facts_read(struct bpf_load_facts *f);

/* The selected mode of /sys/kernel/security/lockdown's text ("none [integrity] ..."), or
 * "" when none is marked. */
void bpf_lockdown_mode(const char *text, char *ret, size_t len);

/*
 * The reason into why (never empty, never only libbpf's words) and the errno the caller
 * reports: -EPERM when the caller lacks what it could be given (capabilities, a security
 * policy), -ENOTSUP when the kernel cannot (lockdown, no BTF, no hook to attach to), else
 * f->err.
 */
int bpf_load_reason(const struct bpf_load_facts *f, char *why, size_t len);
