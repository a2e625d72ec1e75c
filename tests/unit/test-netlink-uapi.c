// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Our uapi copies (netlink/uapi/, 7.3) against the system's (<linux/smc.h>, 6.1; compiled
 * in test-netlink-uapi-sys.c): every value both define agrees, *_MAX only grew, the diag
 * structs have the same layout - except smcd_diag_dmbinfo, 40 bytes in 6.1 and 56 since
 * 6.8 - and the names only 7.x has carry the values of Appendix A.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "netlink/uapi/smc.h"
#include "netlink/uapi/smc_diag.h"
#include "netlink/uapi/rdma_netlink.h"
#include "tests/unit/test-netlink-uapi.h"

#define INT(n) { #n, (long long)(n) },
#define STR(n) { #n, n },
#define OFF(s, f) { #s "." #f, (long long)offsetof(struct s, f) },
#define SIZE(s) { #s, (long long)sizeof(struct s) },

static const struct uapi_value ours_ints[] = { UAPI_INTS(INT){ NULL, 0 } };
static const struct uapi_value ours_maxes[] = { UAPI_MAXES(INT){ NULL, 0 } };
static const struct uapi_str ours_strings[] = { UAPI_STRINGS(STR){ NULL, NULL } };
static const struct uapi_value ours_offsets[] = { UAPI_FIELDS(OFF){ NULL, 0 } };
static const struct uapi_value ours_sizes[] = { UAPI_STRUCTS(SIZE){ NULL, 0 } };

static void test_values_agree(void **state)
{
	size_t i;

	for (i = 0; ours_ints[i].name; i++) {
		assert_string_equal(ours_ints[i].name, uapi_sys_ints[i].name);
		if (ours_ints[i].value != uapi_sys_ints[i].value)
			fail_msg("%s: ours %lld, system %lld", ours_ints[i].name,
				 ours_ints[i].value, uapi_sys_ints[i].value);
	}
	assert_true(i > 150);
	for (i = 0; ours_maxes[i].name; i++)
		if (ours_maxes[i].value < uapi_sys_maxes[i].value)
			fail_msg("%s: ours %lld < system %lld", ours_maxes[i].name,
				 ours_maxes[i].value, uapi_sys_maxes[i].value);
	for (i = 0; ours_strings[i].name; i++)
		assert_string_equal(ours_strings[i].value, uapi_sys_strings[i].value);
}

static void test_struct_layout(void **state)
{
	for (size_t i = 0; ours_offsets[i].name; i++)
		if (ours_offsets[i].value != uapi_sys_offsets[i].value)
			fail_msg("%s: offset %lld vs %lld", ours_offsets[i].name,
				 ours_offsets[i].value, uapi_sys_offsets[i].value);
	for (size_t i = 0; ours_sizes[i].name; i++) {
		if (strcmp(ours_sizes[i].name, "smcd_diag_dmbinfo") == 0) {
			/* 6.8 appended peer_gid_ext and my_gid_ext */
			assert_int_equal(uapi_sys_sizes[i].value, 40);
			assert_int_equal(ours_sizes[i].value, 56);
			continue;
		}
		if (ours_sizes[i].value != uapi_sys_sizes[i].value)
			fail_msg("%s: size %lld vs %lld", ours_sizes[i].name, ours_sizes[i].value,
				 uapi_sys_sizes[i].value);
	}
	/* Appendix C (x86-64, 7.3) */
	assert_int_equal(sizeof(struct smc_diag_req), 52);
	assert_int_equal(sizeof(struct smc_diag_msg), 64);
	assert_int_equal(offsetof(struct smc_diag_msg, diag_uid), 52);
	assert_int_equal(offsetof(struct smc_diag_msg, diag_inode), 56);
	assert_int_equal(sizeof(struct smc_diag_conninfo), 76);
	assert_int_equal(sizeof(struct smc_diag_linkinfo), 146);
	assert_int_equal(sizeof(struct smc_diag_lgrinfo), 147);
	assert_int_equal(sizeof(struct smc_diag_fallback), 8);
	assert_int_equal(offsetof(struct smcd_diag_dmbinfo, peer_gid_ext), 40);
	assert_int_equal(offsetof(struct smcd_diag_dmbinfo, my_gid_ext), 48);
}

/* What only the 7.x uapi has (Appendix A of kernel-smc.md). */
static void test_7x_additions(void **state)
{
	assert_int_equal(SMC_NLA_LGR_R_V2_MAX_CONNS, 2);
	assert_int_equal(SMC_NLA_LGR_R_V2_MAX_LINKS, 3);
	assert_int_equal(SMC_NLA_LGR_R_V2_MAX, 3);
	assert_int_equal(SMC_NLA_LGR_R_SNDBUF_ALLOC, 12);
	assert_int_equal(SMC_NLA_LGR_R_RMB_ALLOC, 13);
	assert_int_equal(SMC_NLA_LGR_R_MAX, 13);
	assert_int_equal(SMC_NLA_LGR_D_EXT_GID, 10);
	assert_int_equal(SMC_NLA_LGR_D_PEER_EXT_GID, 11);
	assert_int_equal(SMC_NLA_LGR_D_SNDBUF_ALLOC, 12);
	assert_int_equal(SMC_NLA_LGR_D_DMB_ALLOC, 13);
	assert_int_equal(SMC_NLA_LGR_D_MAX, 13);
	assert_int_equal(SMC_NLA_STATS_T_RX_RMB_USAGE, 20);
	assert_int_equal(SMC_NLA_STATS_T_TX_RMB_USAGE, 21);
	assert_int_equal(SMC_NLA_STATS_T_MAX, 21);
	/* the traps: the V2 nest starts at 0, pads */
	assert_int_equal(SMC_NLA_LGR_V2_VER, 0);
	assert_int_equal(SMC_NLA_LGR_R_PAD, 10);
	assert_int_equal(SMC_NLA_LGR_D_PAD, 8);
	assert_int_equal(SMC_NLA_STATS_PAD, 0);
	assert_int_equal(SMC_NETLINK_DISABLE_HS_LIMITATION, 18);
	assert_int_equal(SMC_MAX_UEID, 4);
	assert_int_equal(SMC_MAX_EID_LEN, 32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values_agree),
		cmocka_unit_test(test_struct_layout),
		cmocka_unit_test(test_7x_additions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
