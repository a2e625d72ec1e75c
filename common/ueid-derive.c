// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "common/macro.h"
#include "common/sha256.h"
#include "common/ueid-derive.h"

const char *const ueid_derivation_names[_UEID_DERIVATION_MAX] = {
	[UEID_DERIVE_APP_SPECIFIC] = "app-specific",
	[UEID_DERIVE_MACHINE_ID] = "machine-id",
};

int ueid_derivation_from_string(const char *s)
{
	for (int i = 0; i < _UEID_DERIVATION_MAX; i++)
		if (streq(s, ueid_derivation_names[i]))
			return i;
	return -EINVAL;
}

static bool is_lower_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

int machine_id_parse(const char *buf, size_t len, char ret_id[MACHINE_ID_LEN + 1],
		     const char **ret_reason)
{
	size_t n = len;
	bool all_zero = true;

	*ret_reason = NULL;
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	if (n == 0) {
		*ret_reason = "is empty: the machine ID has not been set up "
			      "(systemd-machine-id-setup creates it)";
		return -EINVAL;
	}
	/* systemd writes this while the ID is not committed yet (first boot, machine-id(5)). */
	if (n == strlen("uninitialized") && memcmp(buf, "uninitialized", n) == 0) {
		*ret_reason = "says \"uninitialized\": the machine ID is not committed yet "
			      "(first boot not finished; systemd-machine-id-setup --commit)";
		return -EINVAL;
	}
	if (memchr(buf, '\n', n)) {
		*ret_reason = "has more than one line: expected 32 hex digits and one newline";
		return -EINVAL;
	}
	for (size_t i = 0; i < n && i < MACHINE_ID_LEN; i++) {
		if (buf[i] >= 'A' && buf[i] <= 'F') {
			*ret_reason = "contains uppercase hex digits: machine-id(5) uses lowercase";
			return -EINVAL;
		}
		if (!is_lower_hex(buf[i])) {
			*ret_reason = "contains characters that are not hex digits";
			return -EINVAL;
		}
		if (buf[i] != '0')
			all_zero = false;
	}
	if (n < MACHINE_ID_LEN) {
		*ret_reason = "is too short: a machine ID has 32 hex digits";
		return -EINVAL;
	}
	if (n > MACHINE_ID_LEN) {
		*ret_reason = "is too long: a machine ID has 32 hex digits";
		return -EINVAL;
	}
	if (all_zero) {
		*ret_reason = "is all zeros, which is not a valid machine ID";
		return -EINVAL;
	}
	memcpy(ret_id, buf, MACHINE_ID_LEN);
	ret_id[MACHINE_ID_LEN] = '\0';
	return 0;
}

static int hex_value(char c)
{
	return c >= 'a' ? c - 'a' + 10 : c - '0';
}

/* 32 lowercase hex digits (checked by the caller) to the 16 bytes of an sd_id128_t. */
static void id128_bytes(const char *hex, uint8_t ret[16])
{
	for (size_t i = 0; i < 16; i++)
		ret[i] = (uint8_t)(hex_value(hex[2 * i]) << 4 | hex_value(hex[2 * i + 1]));
}

/*
 * systemd's get_app_specific() (src/libsystemd/sd-id128/sd-id128.c): the HMAC keyed with
 * the machine ID over the application ID, the first half of it, made a UUID v4 by
 * id128_make_v4_uuid() (version nibble 4 in byte 6, variant bits 10 in byte 8).
 */
void machine_id_app_specific(const char *machine_id, const char *app_id, char ret[MACHINE_ID_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";
	uint8_t key[16], app[16], mac[SHA256_DIGEST_SIZE];

	id128_bytes(machine_id, key);
	id128_bytes(app_id, app);
	hmac_sha256(key, sizeof(key), app, sizeof(app), mac);
	mac[6] = (mac[6] & 0x0f) | 0x40;
	mac[8] = (mac[8] & 0x3f) | 0x80;
	for (size_t i = 0; i < 16; i++) {
		ret[2 * i] = digits[mac[i] >> 4];
		ret[2 * i + 1] = digits[mac[i] & 0x0f];
	}
	ret[MACHINE_ID_LEN] = '\0';
	memset(key, 0, sizeof(key));
	memset(mac, 0, sizeof(mac));
}

/* prefix and the first n of the hex digits in upper case. */
static void ueid_format(const char *prefix, const char *hex, size_t n,
			char ret_ueid[UEID_DERIVED_MAX + 1])
{
	size_t p = strlen(prefix);

	memcpy(ret_ueid, prefix, p);
	for (size_t i = 0; i < n; i++) {
		char c = hex[i];

		ret_ueid[p + i] = (c >= 'a' && c <= 'f') ? (char)(c - 'a' + 'A') : c;
	}
	ret_ueid[p + n] = '\0';
}

void ueid_derive(const char *machine_id, enum ueid_derivation how,
		 char ret_ueid[UEID_DERIVED_MAX + 1])
{
	char app[MACHINE_ID_LEN + 1];

	if (how == UEID_DERIVE_MACHINE_ID) {
		ueid_format(UEID_MID_PREFIX, machine_id, UEID_MID_DIGITS, ret_ueid);
		return;
	}
	machine_id_app_specific(machine_id, UEID_APP_ID, app);
	ueid_format(UEID_APP_PREFIX, app, UEID_APP_DIGITS, ret_ueid);
}

int machine_id_read(const char *path, char ret_id[MACHINE_ID_LEN + 1], const char **ret_reason)
{
	/* A little more than a valid file so "too long" is recognised without reading it all. */
	char buf[MACHINE_ID_LEN + 8];
	_cleanup_(closep) int fd = -1;
	size_t len = 0;
	struct stat st;

	*ret_reason = NULL;
	/* O_NONBLOCK: a FIFO planted at the path must not hang us; regular files ignore it. */
	fd = open(path ? path : MACHINE_ID_FILE, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return negative_errno();
	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode)) {
		*ret_reason = "is not a regular file";
		return -EINVAL;
	}
	while (len < sizeof(buf)) {
		ssize_t k = read(fd, buf + len, sizeof(buf) - len);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		if (k == 0)
			break;
		len += (size_t)k;
	}
	return machine_id_parse(buf, len, ret_id, ret_reason);
}

int ueid_derive_from_file(const char *path, enum ueid_derivation how,
			  char ret_ueid[UEID_DERIVED_MAX + 1], const char **ret_reason)
{
	char id[MACHINE_ID_LEN + 1];
	int r = machine_id_read(path, id, ret_reason);

	if (r < 0)
		return r;
	ueid_derive(id, how, ret_ueid);
	return 0;
}
