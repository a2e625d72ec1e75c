// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * UEID derivation from machine-id: SHA-256 and HMAC-SHA256 against the published vectors,
 * the app-specific ID against libsystemd's, both UEID forms against the kernel's rules, the
 * seed's convention unchanged, and every way a machine-id file is bad.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <systemd/sd-id128.h>

#include "common/sha256.h"
#include "common/ueid-derive.h"
#include "netlink/smcnl.h"

#define ID "0123456789abcdef0123456789abcdef"

static char dir[] = "/tmp/test-ueid-derive-XXXXXX";

static const char *file_with(const char *name, const char *content, size_t len)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(content, 1, len, f), len);
	fclose(f);
	return path;
}

static void hex(const uint8_t *b, size_t n, char *ret)
{
	for (size_t i = 0; i < n; i++)
		sprintf(ret + 2 * i, "%02x", b[i]);
}

static void expect_sha256(const void *data, size_t len, const char *want)
{
	uint8_t d[SHA256_DIGEST_SIZE];
	char h[2 * SHA256_DIGEST_SIZE + 1];

	sha256(data, len, d);
	hex(d, sizeof(d), h);
	assert_string_equal(h, want);
}

/* FIPS 180-2 appendix B (B.1, B.2, B.3), and the padding's edges. */
static void test_sha256_vectors(void **state)
{
	char *million = malloc(1000000);
	struct sha256 s;
	uint8_t d[SHA256_DIGEST_SIZE];
	char h[2 * SHA256_DIGEST_SIZE + 1];

	expect_sha256("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	expect_sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
		      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	assert_non_null(million);
	memset(million, 'a', 1000000);
	expect_sha256(million, 1000000,
		      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	/* The same a million 'a's fed in odd pieces: the block buffering. */
	sha256_init(&s);
	for (size_t i = 0; i < 1000000;) {
		size_t n = (i % 7) * 13 + 1;

		if (n > 1000000 - i)
			n = 1000000 - i;
		sha256_update(&s, million + i, n);
		i += n;
	}
	sha256_final(&s, d);
	hex(d, sizeof(d), h);
	assert_string_equal(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(million);
	/* The empty message; 55 and 64 bytes: the length fits the block, or needs another. */
	expect_sha256("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	expect_sha256("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 55,
		      "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
	expect_sha256("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 64,
		      "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

static void expect_hmac(const void *key, size_t key_len, const void *data, size_t len,
			const char *want)
{
	uint8_t d[SHA256_DIGEST_SIZE];
	char h[2 * SHA256_DIGEST_SIZE + 1];

	hmac_sha256(key, key_len, data, len, d);
	hex(d, sizeof(d), h);
	assert_string_equal(h, want);
}

/* RFC 4231 section 4, HMAC-SHA-256 of test cases 1 to 4, 6 and 7 (5 truncates the output). */
static void test_hmac_vectors(void **state)
{
	uint8_t key[131], data[50];

	memset(key, 0x0b, 20);
	expect_hmac(key, 20, "Hi There", 8,
		    "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	expect_hmac("Jefe", 4, "what do ya want for nothing?", 28,
		    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	memset(key, 0xaa, 20);
	memset(data, 0xdd, 50);
	expect_hmac(key, 20, data, 50,
		    "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
	for (int i = 0; i < 25; i++)
		key[i] = (uint8_t)(i + 1);
	memset(data, 0xcd, 50);
	expect_hmac(key, 25, data, 50,
		    "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
	/* Keys longer than a block are hashed first. */
	memset(key, 0xaa, 131);
	expect_hmac(key, 131, "Test Using Larger Than Block-Size Key - Hash Key First", 54,
		    "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
	expect_hmac(key, 131,
		    "This is a test using a larger than block-size key and a larger than "
		    "block-size data. The key needs to be hashed before being used by the "
		    "HMAC algorithm.",
		    152, "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}

static void expect_valid_ueid(const char *ueid)
{
	char padded[SMC_EID_LEN + 1];
	const char *reason = NULL;

	if (smc_ueid_validate(ueid, padded, &reason) < 0)
		fail_msg("%s is not a valid UEID: %s", ueid, reason);
}

/* The seed script: "MID-" + `tr a-z A-Z | head -c 27`, i.e. 31 characters: unchanged. */
static void test_derive_convention(void **state)
{
	char ueid[UEID_DERIVED_MAX + 1];

	ueid_derive(ID, UEID_DERIVE_MACHINE_ID, ueid);
	assert_string_equal(ueid, "MID-0123456789ABCDEF0123456789A");
	assert_int_equal(strlen(ueid), 31);
	expect_valid_ueid(ueid);
}

/*
 * The default: "APP-" and 28 digits of the app-specific ID.  The golden value is Python's
 * hmac.new(bytes.fromhex(ID), bytes.fromhex(UEID_APP_ID), hashlib.sha256), its first 16 bytes
 * with byte 6 = (b & 0x0f) | 0x40 and byte 8 = (b & 0x3f) | 0x80, as systemd computes it (on
 * a machine with ID, `systemd-id128 machine-id --app-specific=UEID_APP_ID` prints it).  It
 * also pins UEID_APP_ID: a new one would change every host's UEID.
 */
static void test_derive_app_specific(void **state)
{
	char ueid[UEID_DERIVED_MAX + 1], app[MACHINE_ID_LEN + 1];

	machine_id_app_specific(ID, UEID_APP_ID, app);
	assert_string_equal(app, "2ad86dcc3fc94797917bc8340a5d3460");
	/* A UUID v4: version nibble 4, variant 8..b. */
	assert_int_equal(app[12], '4');
	assert_non_null(strchr("89ab", app[16]));
	ueid_derive(ID, UEID_DERIVE_APP_SPECIFIC, ueid);
	assert_int_equal(strlen(ueid), 32);
	assert_string_equal(ueid, "APP-2AD86DCC3FC94797917BC8340A5D");
	for (size_t i = 0; i < 28; i++)
		assert_int_equal(ueid[4 + i], toupper((unsigned char)app[i]));
	expect_valid_ueid(ueid);
	/* Nothing of the machine ID shows: not even its first digits. */
	assert_null(strstr(ueid, "0123456"));
	/* The names of ueid.derive and --derive. */
	assert_int_equal(ueid_derivation_from_string("app-specific"), UEID_DERIVE_APP_SPECIFIC);
	assert_int_equal(ueid_derivation_from_string("machine-id"), UEID_DERIVE_MACHINE_ID);
	assert_int_equal(ueid_derivation_from_string("MID"), -EINVAL);
}

/* The same as libsystemd's sd_id128_get_machine_app_specific() for /etc/machine-id. */
static void test_app_specific_is_libsystemd(void **state)
{
	char id[MACHINE_ID_LEN + 1], ours[MACHINE_ID_LEN + 1], theirs[SD_ID128_STRING_MAX];
	const char *reason = NULL;
	sd_id128_t app, result;

	if (machine_id_read(MACHINE_ID_FILE, id, &reason) < 0)
		skip(); /* no valid /etc/machine-id on this host */
	assert_int_equal(sd_id128_from_string(UEID_APP_ID, &app), 0);
	assert_int_equal(sd_id128_get_machine_app_specific(app, &result), 0);
	sd_id128_to_string(result, theirs);
	machine_id_app_specific(id, UEID_APP_ID, ours);
	assert_string_equal(ours, theirs);
}

static void test_parse_valid(void **state)
{
	char id[MACHINE_ID_LEN + 1];
	const char *reason = "x";

	assert_int_equal(machine_id_parse(ID "\n", 33, id, &reason), 0);
	assert_string_equal(id, ID);
	assert_null(reason);
	/* the newline is optional */
	assert_int_equal(machine_id_parse(ID, 32, id, &reason), 0);
	assert_string_equal(id, ID);
}

static void expect_invalid(const char *buf, size_t len, const char *words)
{
	char id[MACHINE_ID_LEN + 1];
	const char *reason = NULL;

	assert_int_equal(machine_id_parse(buf, len, id, &reason), -EINVAL);
	assert_non_null(reason);
	if (!strstr(reason, words))
		fail_msg("reason \"%s\" does not mention \"%s\"", reason, words);
}

static void test_parse_invalid(void **state)
{
	expect_invalid("", 0, "empty");
	expect_invalid("\n", 1, "empty");
	expect_invalid("uninitialized\n", 14, "uninitialized");
	expect_invalid("uninitialized", 13, "uninitialized");
	expect_invalid("0123456789abcdef\n", 17, "too short");
	expect_invalid(ID "00\n", 35, "too long");
	expect_invalid("0123456789abcdeg0123456789abcdef\n", 33, "not hex");
	expect_invalid("0123456789ABCDEF0123456789abcdef\n", 33, "uppercase");
	expect_invalid("0123456789abcdef 123456789abcdef\n", 33, "not hex");
	expect_invalid("00000000000000000000000000000000\n", 33, "all zeros");
	expect_invalid(ID "\n\n", 34, "more than one line");
	expect_invalid("0123456789abcdef\n0123456789abcde\n", 33, "more than one line");
	expect_invalid("0123456789abcdef\0"
		       "0123456789abcde\n",
		       33, "not hex");
}

static void test_file_valid(void **state)
{
	char ueid[UEID_DERIVED_MAX + 1], want[UEID_DERIVED_MAX + 1];
	const char *reason = NULL;
	const char *p = file_with("good", ID "\n", 33);

	assert_int_equal(ueid_derive_from_file(p, UEID_DERIVE_MACHINE_ID, ueid, &reason), 0);
	assert_string_equal(ueid, "MID-0123456789ABCDEF0123456789A");
	assert_int_equal(ueid_derive_from_file(p, UEID_DERIVE_APP_SPECIFIC, ueid, &reason), 0);
	ueid_derive(ID, UEID_DERIVE_APP_SPECIFIC, want);
	assert_string_equal(ueid, want);
}

static void expect_file_error(const char *path, int err, bool with_reason)
{
	char ueid[UEID_DERIVED_MAX + 1];
	const char *reason = NULL;

	assert_int_equal(ueid_derive_from_file(path, UEID_DERIVE_APP_SPECIFIC, ueid, &reason), err);
	if (with_reason)
		assert_non_null(reason);
	else
		assert_null(reason);
}

static void test_file_errors(void **state)
{
	char path[256];
	char big[8192];

	expect_file_error(file_with("empty", "", 0), -EINVAL, true);
	expect_file_error(file_with("short", "0123\n", 5), -EINVAL, true);
	expect_file_error(file_with("nonhex", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\n", 33), -EINVAL,
			  true);
	expect_file_error(file_with("uninit", "uninitialized\n", 14), -EINVAL, true);
	memset(big, 'a', sizeof(big));
	expect_file_error(file_with("big", big, sizeof(big)), -EINVAL, true);

	snprintf(path, sizeof(path), "%s/missing", dir);
	expect_file_error(path, -ENOENT, false);
	expect_file_error(dir, -EISDIR, false);

	/* A FIFO must neither hang nor be read as a machine ID. */
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	expect_file_error(path, -EINVAL, true);

	/* Unreadable: only observable when not root (root reads mode 0000 files). */
	if (geteuid() != 0) {
		const char *p = file_with("noperm", ID "\n", 33);

		assert_int_equal(chmod(p, 0), 0);
		expect_file_error(p, -EACCES, false);
	}
}

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_vectors),
		cmocka_unit_test(test_hmac_vectors),
		cmocka_unit_test(test_derive_convention),
		cmocka_unit_test(test_derive_app_specific),
		cmocka_unit_test(test_app_specific_is_libsystemd),
		cmocka_unit_test(test_parse_valid),
		cmocka_unit_test(test_parse_invalid),
		cmocka_unit_test(test_file_valid),
		cmocka_unit_test(test_file_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
