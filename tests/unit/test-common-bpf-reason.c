// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * common/bpf-reason.c: why a BPF load failed, from injected facts (errno, capabilities,
 * lockdown, BTF, kernel.unprivileged_bpf_disabled, libbpf's words): every branch, and that
 * root with every capability is never told to be root (issue 37).  bpf_load_facts_read()
 * is run once for what it can be checked against here (this process's euid).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/bpf-reason.h"

#define NEEDED (BPF_REASON_CAP(BPF) | BPF_REASON_CAP(PERFMON))

static char why[1024];

/* Root with what the assessment needs, BTF, no lockdown: the host of the report. */
static struct bpf_load_facts facts(int err, const char *step)
{
	return (struct bpf_load_facts){
		.err = err,
		.step = step,
		.what = "the assessment programs",
		.target = "tcp_sendmsg function",
		.caps_needed = NEEDED,
		.caps_known = true,
		.caps_effective = NEEDED,
		.euid = 0,
		.lockdown = "none",
		.btf = true,
		.unprivileged_bpf_disabled = 2,
		.detail = "",
	};
}

static void has(const char *s)
{
	if (!strstr(why, s))
		fail_msg("\"%s\" not in \"%s\"", s, why);
}

static void lacks(const char *s)
{
	if (strstr(why, s))
		fail_msg("\"%s\" in \"%s\"", s, why);
}

static void test_lockdown_mode(void **state)
{
	char m[24];

	bpf_lockdown_mode("none integrity [confidentiality]", m, sizeof(m));
	assert_string_equal(m, "confidentiality");
	bpf_lockdown_mode("[none] integrity confidentiality", m, sizeof(m));
	assert_string_equal(m, "none");
	bpf_lockdown_mode("", m, sizeof(m));
	assert_string_equal(m, "");
	bpf_lockdown_mode("none [integrity", m, sizeof(m));
	assert_string_equal(m, "");
}

/* Root with CAP_BPF and CAP_PERFMON, EPERM, no lockdown: not "needs root" but what else
 * forbids it, with libbpf's words. */
static void test_eperm_root_with_caps(void **state)
{
	struct bpf_load_facts f = facts(-EPERM, "load");

	f.detail = "libbpf: prog 'x': failed to load: -1";
	assert_int_equal(bpf_load_reason(&f, why, sizeof(why)), -EPERM);
	lacks("needs root");
	has("although this process has CAP_BPF and CAP_PERFMON and the kernel is not locked down");
	has("security module");
	has("; libbpf: prog 'x': failed to load: -1");
	lacks("libbpf: libbpf:");
	/* Lockdown unknown (no securityfs): not claimed either way. */
	f.lockdown[0] = '\0';
	bpf_load_reason(&f, why, sizeof(why));
	lacks("locked down");
	has("security module");
}

/* A seccomp filter on the caller (a container's): named as the likely cause. */
static void test_eperm_seccomp(void **state)
{
	struct bpf_load_facts f = facts(-EPERM, "load");

	f.seccomp_filter = true;
	assert_int_equal(bpf_load_reason(&f, why, sizeof(why)), -EPERM);
	lacks("needs root");
	has("although this process has CAP_BPF and CAP_PERFMON: it runs under a seccomp filter");
	has("forbids bpf()");
}

static void test_eperm_lockdown(void **state)
{
	struct bpf_load_facts f = facts(-EPERM, "load");

	snprintf(f.lockdown, sizeof(f.lockdown), "confidentiality");
	assert_int_equal(bpf_load_reason(&f, why, sizeof(why)), -ENOTSUP);
	lacks("needs root");
	has("locked down (confidentiality, /sys/kernel/security/lockdown)");
	has("lockdown=none");
	snprintf(f.lockdown, sizeof(f.lockdown), "integrity");
	bpf_load_reason(&f, why, sizeof(why));
	has("locked down (integrity");
}

/* CAP_SYS_ADMIN stands for CAP_BPF and CAP_PERFMON (kernels before 5.8 have neither). */
static void test_eperm_sys_admin(void **state)
{
	struct bpf_load_facts f = facts(-EPERM, "load");

	f.caps_effective = BPF_REASON_CAP(SYS_ADMIN);
	bpf_load_reason(&f, why, sizeof(why));
	lacks("lacks");
	has("although this process has");
}

static void test_eperm_root_without_caps(void **state)
{
	struct bpf_load_facts f = facts(-EPERM, "load");

	f.caps_effective = BPF_REASON_CAP(BPF);
	assert_int_equal(bpf_load_reason(&f, why, sizeof(why)), -EPERM);
	has("runs as root but without CAP_PERFMON");
	has("CapabilityBoundingSet=");
	lacks("needs root");
}

static void test_eperm_user(void **state)
{
	struct bpf_load_facts f = facts(-EPERM, "load");

	f.euid = 1000;
	f.caps_effective = 0;
	f.hint = "or a running smcd-agent";
	assert_int_equal(bpf_load_reason(&f, why, sizeof(why)), -EPERM);
	has("needs root (CAP_BPF and CAP_PERFMON; this process lacks CAP_BPF and CAP_PERFMON)");
	has("or a running smcd-agent");
	has("kernel.unprivileged_bpf_disabled is 2");
	f.unprivileged_bpf_disabled = 0;
	bpf_load_reason(&f, why, sizeof(why));
	lacks("unprivileged_bpf_disabled");
}

/* The verifier's EACCES of a caller without the capabilities is about rights too; with
 * them it is the verifier's. */
static void test_eacces(void **state)
{
	struct bpf_load_facts f = facts(-EACCES, "load");

	f.euid = 1000;
	f.caps_effective = 0;
	assert_int_equal(bpf_load_reason(&f, why, sizeof(why)), -EPERM);
	has("needs root");
	f = facts(-EACCES, "load");
	f.detail = "R1 invalid mem access 'scalar'";
	assert_int_equal(bpf_load_reason(&f, why, sizeof(why)), -EACCES);
	has("the kernel's verifier refused the assessment programs (load: Permission denied): "
	    "R1 invalid mem access 'scalar'");
}

static void test_caps_unknown(void **state)
{
	struct bpf_load_facts f = facts(-EPERM, "load");

	f.caps_known = false;
	assert_int_equal(bpf_load_reason(&f, why, sizeof(why)), -EPERM);
	has("did not permit");
	has("CAP_BPF and CAP_PERFMON");
}

static void test_no_btf(void **state)
{
	struct bpf_load_facts f = facts(-ESRCH, "load");

	f.btf = false;
	assert_int_equal(bpf_load_reason(&f, why, sizeof(why)), -ENOTSUP);
	has("no BTF (/sys/kernel/btf/vmlinux; CONFIG_DEBUG_INFO_BTF)");
}

static void test_no_hook(void **state)
{
	static const struct {
		int err;
		const char *step;
	} cases[] = { { -ESRCH, "load" },
		      { -ENOENT, "load" },
		      { -ENOENT, "attach" },
		      { -EINVAL, "attach" },
		      { -ESRCH, "attach" } };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bpf_load_facts f = facts(cases[i].err, cases[i].step);

		f.detail = "failed to find kernel BTF type ID of 'tcp_sendmsg': -3";
		assert_int_equal(bpf_load_reason(&f, why, sizeof(why)), -ENOTSUP);
		has("this kernel has no tcp_sendmsg function to attach the assessment programs to");
		has("libbpf: failed to find kernel BTF type ID");
	}
}

static void test_no_trampolines(void **state)
{
	struct bpf_load_facts f = facts(-524, "attach");

	assert_int_equal(bpf_load_reason(&f, why, sizeof(why)), -ENOTSUP);
	has("cannot attach BPF trampolines");
	f = facts(-EOPNOTSUPP, "load");
	bpf_load_reason(&f, why, sizeof(why));
	has("CONFIG_BPF_JIT");
}

/* EINVAL at load without the verifier's words, and any other errno: what the kernel said,
 * in our sentence (never libbpf's words alone). */
static void test_other(void **state)
{
	struct bpf_load_facts f = facts(-EINVAL, "load");

	assert_int_equal(bpf_load_reason(&f, why, sizeof(why)), -EINVAL);
	assert_string_equal(why,
			    "the kernel refused the assessment programs (load: Invalid argument)");
	f = facts(-ENOMEM, "load");
	f.detail = "map 'closed': failed to create: -12";
	assert_int_equal(bpf_load_reason(&f, why, sizeof(why)), -ENOMEM);
	assert_string_equal(why, "the kernel refused the assessment programs (load: Cannot "
				 "allocate memory); libbpf: map 'closed': failed to create: -12");
	f = facts(-E2BIG, "load");
	f.detail = "BPF program is too large";
	bpf_load_reason(&f, why, sizeof(why));
	has("verifier refused");
}

/* A short buffer is cut, not overrun; a NULL one leaves only the errno. */
static void test_buffers(void **state)
{
	struct bpf_load_facts f = facts(-EPERM, "load");
	char small[16];

	memset(small, 'x', sizeof(small));
	bpf_load_reason(&f, small, sizeof(small));
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_int_equal(bpf_load_reason(&f, NULL, 0), -EPERM);
}

static void test_facts_read(void **state)
{
	struct bpf_load_facts f = facts(-EPERM, "load");

	bpf_load_facts_read(&f);
	assert_int_equal(f.euid, geteuid());
	assert_string_equal(f.what, "the assessment programs");
	assert_true(f.unprivileged_bpf_disabled >= -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lockdown_mode),
		cmocka_unit_test(test_eperm_root_with_caps),
		cmocka_unit_test(test_eperm_seccomp),
		cmocka_unit_test(test_eperm_lockdown),
		cmocka_unit_test(test_eperm_sys_admin),
		cmocka_unit_test(test_eperm_root_without_caps),
		cmocka_unit_test(test_eperm_user),
		cmocka_unit_test(test_eacces),
		cmocka_unit_test(test_caps_unknown),
		cmocka_unit_test(test_no_btf),
		cmocka_unit_test(test_no_hook),
		cmocka_unit_test(test_no_trampolines),
		cmocka_unit_test(test_other),
		cmocka_unit_test(test_buffers),
		cmocka_unit_test(test_facts_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
