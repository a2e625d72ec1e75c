// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smc_strerror(): one line per (operation, errno), never a libnl word, the advice where an
 * operator can act, and the two -ERANGEs of UEID_ADD told apart by the extack.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "netlink/smcnl-internal.h"

static void check_line(const char *s)
{
	assert_non_null(s);
	assert_true(strlen(s) > 10);
	assert_null(strchr(s, '\n'));
	assert_null(strstr(s, "libnl"));
	assert_null(strstr(s, "NLE_"));
	assert_null(strstr(s, "Unspecific failure")); /* nl_geterror()'s words */
}

/* Every mapped pair gives its own text, for both signs of the errno. */
static void test_every_mapped_pair(void **state)
{
	const struct smcnl_errmsg *t;
	char a[512], b[512];
	size_t n;

	t = smcnl_errmsg_table(&n);
	assert_true(n > 20);
	for (size_t i = 0; i < n; i++) {
		enum smc_op op = t[i].op == _SMC_OP_MAX ? SMC_OP_QUERY : (enum smc_op)t[i].op;

		smc_strerror(op, -t[i].err, NULL, a, sizeof(a));
		smc_strerror(op, t[i].err, NULL, b, sizeof(b));
		check_line(a);
		assert_string_equal(a, b);
		/* op-specific entries win over the generic ones */
		if (t[i].op != _SMC_OP_MAX)
			assert_string_equal(a, t[i].text);
		for (size_t j = 0; j < i; j++)
			if (t[j].op == t[i].op && t[j].err == t[i].err)
				fail_msg("(%d, %d) is mapped twice", t[i].op, t[i].err);
	}
}

struct want {
	enum smc_op op;
	int err;
	const char *extack;
	const char *has;
};

static const struct want wants[] = {
	{ SMC_OP_UEID_ADD, -ERANGE, NULL,
	  "table is full (it holds at most 4 UEIDs): remove one "
	  "with 'smcctl ueid del UEID'" },
	{ SMC_OP_UEID_ADD, -ERANGE, "Attribute failed policy validation", "longer than" },
	{ SMC_OP_UEID_ADD, -EEXIST, NULL, "already configured" },
	{ SMC_OP_UEID_ADD, -EINVAL, NULL, "A-Z, 0-9" },
	{ SMC_OP_UEID_DEL, -ENOENT, NULL, "not configured" },
	{ SMC_OP_UEID_DEL, -EAGAIN, NULL, "re-enabled the System EID" },
	{ SMC_OP_SEID_ENABLE, -EOPNOTSUPP, NULL, "only on s390" },
	{ SMC_OP_SEID_DISABLE, -EOPNOTSUPP, NULL, "smcctl ueid derive --apply" },
	{ SMC_OP_SEID_DISABLE, -ENOENT, NULL, "no UEID is configured" },
	{ SMC_OP_HS_LIMITATION_SET, -EOPNOTSUPP, NULL, "handshake limitation" },
	{ SMC_OP_PNET_ADD, -EEXIST, NULL, "already has an entry" },
	{ SMC_OP_PNET_DEL, -ENOENT, NULL, "no PNET table entry" },
	{ SMC_OP_SYSCTL_SET, -EINVAL, NULL, "range" },
	{ SMC_OP_SYSCTL_SET, -ENOENT, NULL, "no such net.smc sysctl" },
	{ SMC_OP_SOCKET_DIAG, -EPROTONOSUPPORT, NULL, "smc_diag" },
	{ SMC_OP_QUERY, -EPROTONOSUPPORT, NULL, "SMC is not available in this kernel" },
	{ SMC_OP_UEID_ADD, -EPROTONOSUPPORT, NULL, "SMC is not available in this kernel" },
	{ SMC_OP_UEID_ADD, -EPERM, NULL, "CAP_NET_ADMIN" },
	{ SMC_OP_PNET_FLUSH, -EPERM, NULL, "CAP_NET_ADMIN" },
	{ SMC_OP_QUERY, -EBADMSG, NULL, "could not be understood" },
	/* unmapped: what was being done, in the system's words */
	{ SMC_OP_PNET_FLUSH, -ENOSPC, NULL, "flushing the PNET table failed: No space left" },
	/* the kernel's own reason is appended */
	{ SMC_OP_PNET_ADD, -EINVAL, "some reason", "(kernel: some reason)" },
	{ SMC_OP_QUERY, 0, NULL, "success" },
};

static void test_wording(void **state)
{
	char buf[512];

	for (size_t i = 0; i < ELEMENTSOF(wants); i++) {
		const struct want *w = &wants[i];

		smc_strerror(w->op, w->err, w->extack, buf, sizeof(buf));
		if (!strstr(buf, w->has))
			fail_msg("(%d, %d): \"%s\" lacks \"%s\"", w->op, w->err, buf, w->has);
		if (w->err)
			check_line(buf);
	}
	/* the policy extack is explained, not repeated */
	smc_strerror(SMC_OP_UEID_ADD, -ERANGE, "Attribute failed policy validation", buf,
		     sizeof(buf));
	assert_null(strstr(buf, "kernel:"));
	/* small buffers are truncated, not overrun */
	assert_string_equal(smc_strerror(SMC_OP_QUERY, -EPERM, NULL, buf, 6), "permi");
	assert_string_equal(smc_strerror(_SMC_OP_MAX + 3, -EPROTONOSUPPORT, NULL, buf, sizeof(buf)),
			    smc_strerror(SMC_OP_QUERY, -EPROTONOSUPPORT, NULL, buf, sizeof(buf)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_mapped_pair),
		cmocka_unit_test(test_wording),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
