// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The name tables: every CLC decline code of the 7.3 kernel (smc_clc.h) has a name, a text
 * and round-trips through smc_decline_from_name(); the small enums round-trip and their
 * names are unique.
 */
#include <ctype.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "netlink/smcnl-internal.h"

/* net/smc/smc_clc.h of 7.3, every SMC_CLC_DECL_* */
static const struct {
	uint32_t code;
	const char *name;
} kernel_declines[] = {
	{ 0x01010000, "MEM" },	      { 0x02010000, "TIMEOUT_CL" }, { 0x02020000, "TIMEOUT_AL" },
	{ 0x03000000, "CNFERR" },     { 0x03010000, "PEERNOSMC" },  { 0x03020000, "IPSEC" },
	{ 0x03030000, "NOSMCDEV" },   { 0x03030001, "NOSMCDDEV" },  { 0x03030002, "NOSMCRDEV" },
	{ 0x03030003, "NOISM2SUPP" }, { 0x03030004, "NOV2EXT" },    { 0x03030005, "NOV2DEXT" },
	{ 0x03030006, "NOSEID" },     { 0x03030007, "NOSMCD2DEV" }, { 0x03030008, "NOUEID" },
	{ 0x03030009, "RELEASEERR" }, { 0x0303000a, "MAXCONNERR" }, { 0x0303000b, "MAXLINKERR" },
	{ 0x03040000, "MODEUNSUPP" }, { 0x03050000, "RMBE_EC" },    { 0x03060000, "OPTUNSUPP" },
	{ 0x03070000, "DIFFPREFIX" }, { 0x03080000, "GETVLANERR" }, { 0x03090000, "ISMVLANERR" },
	{ 0x030a0000, "NOACTLINK" },  { 0x030b0000, "NOSRVLINK" },  { 0x030c0000, "VERSMISMAT" },
	{ 0x030d0000, "MAX_DMB" },    { 0x030e0000, "NOROUTE" },    { 0x030f0000, "NOINDIRECT" },
	{ 0x04000000, "SYNCERR" },    { 0x05000000, "PEERDECL" },   { 0x09990000, "INTERR" },
	{ 0x09990001, "ERR_RTOK" },   { 0x09990002, "ERR_RDYLNK" }, { 0x09990003, "ERR_REGBUF" },
};

static void test_declines(void **state)
{
	uint32_t code;

	for (size_t i = 0; i < ELEMENTSOF(kernel_declines); i++) {
		uint32_t c = kernel_declines[i].code;
		char prefixed[64], lower[64];

		assert_non_null(smc_decline_name(c));
		assert_string_equal(smc_decline_name(c), kernel_declines[i].name);
		assert_non_null(smc_decline_text(c));
		assert_true(strlen(smc_decline_text(c)) > 5);
		assert_int_equal(smc_decline_from_name(smc_decline_name(c), &code), 0);
		assert_int_equal(code, c);
		snprintf(prefixed, sizeof(prefixed), "SMC_CLC_DECL_%s", kernel_declines[i].name);
		assert_int_equal(smc_decline_from_name(prefixed, &code), 0);
		assert_int_equal(code, c);
		for (size_t k = 0; k <= strlen(kernel_declines[i].name); k++)
			lower[k] = (char)tolower((unsigned char)kernel_declines[i].name[k]);
		assert_int_equal(smc_decline_from_name(lower, &code), 0);
		assert_int_equal(code, c);
	}
	/* where an operator can act, the advice says how */
	assert_non_null(strstr(smc_decline_advice(0x03030008), "smcctl ueid derive --apply"));
	assert_non_null(strstr(smc_decline_advice(0x03030001), "smcctl ueid derive --apply"));
	assert_non_null(strstr(smc_decline_text(0x03010000), "does not speak SMC"));
	assert_non_null(smc_decline_advice(0x030d0000));
	assert_non_null(smc_decline_advice(0x03030000));
	assert_null(smc_decline_name(0x03030099));
	assert_null(smc_decline_text(0));
	assert_null(smc_decline_advice(0x12345678));
	assert_int_equal(smc_decline_from_name("0x03030008", &code), 0);
	assert_int_equal(code, 0x03030008);
	assert_int_equal(smc_decline_from_name("NOPE", &code), -ENOENT);
	assert_int_equal(smc_decline_from_name("", &code), -EINVAL);
}

typedef const char *(*name_fn)(unsigned v);

#define WRAP(fn, type)                        \
	static const char *w_##fn(unsigned v) \
	{                                     \
		return fn((type)v);           \
	}
WRAP(smc_sock_state_name, uint8_t)
WRAP(smc_sock_mode_name, uint8_t)
WRAP(smc_link_state_name, uint32_t)
WRAP(smc_lgr_type_name, uint8_t)
WRAP(smc_lgr_role_name, uint8_t)
WRAP(smc_os_name, uint8_t)
WRAP(smc_buf_type_name, uint8_t)

/* Every value 0..255 with a name: names unique; and the count is what the kernel has. */
static void check_table(name_fn fn, size_t expect)
{
	const char *seen[256];
	size_t n = 0;

	for (unsigned v = 0; v < 256; v++) {
		const char *s = fn(v);

		if (!s)
			continue;
		for (size_t i = 0; i < n; i++)
			assert_true(strcasecmp(seen[i], s) != 0);
		seen[n++] = s;
	}
	assert_int_equal(n, expect);
}

static void test_enums(void **state)
{
	uint8_t v;

	check_table(w_smc_sock_state_name, 12);
	check_table(w_smc_sock_mode_name, 3);
	check_table(w_smc_link_state_name, 4);
	check_table(w_smc_lgr_type_name, 5);
	check_table(w_smc_lgr_role_name, 2);
	check_table(w_smc_os_name, 3);
	check_table(w_smc_buf_type_name, 3);

	assert_string_equal(smc_sock_state_name(1), "ACTIVE");
	assert_string_equal(smc_sock_state_name(10), "LISTEN");
	assert_string_equal(smc_sock_state_name(27), "PROCESSABORT");
	assert_null(smc_sock_state_name(3));
	assert_string_equal(smc_sock_mode_name(2), "SMCD");
	assert_string_equal(smc_os_name(2), "LINUX");
	assert_null(smc_os_name(0));
	for (unsigned s = 0; s < 256; s++) {
		const char *name = smc_sock_state_name((uint8_t)s);

		if (!name)
			continue;
		assert_int_equal(smc_sock_state_from_name(name, &v), 0);
		assert_int_equal(v, s);
	}
	for (unsigned m = 0; m < 3; m++) {
		assert_int_equal(smc_sock_mode_from_name(smc_sock_mode_name((uint8_t)m), &v), 0);
		assert_int_equal(v, m);
	}
	assert_int_equal(smc_sock_state_from_name("listen", &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(smc_sock_state_from_name("NOPE", &v), -ENOENT);
	assert_int_equal(smc_sock_mode_from_name(NULL, &v), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_declines),
		cmocka_unit_test(test_enums),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
