// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "common/macro.h"
#include "common/ueid-derive.h"

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

void ueid_derive(const char *machine_id, char ret_ueid[UEID_DERIVED_LEN + 1])
{
	size_t p = strlen(UEID_DERIVE_PREFIX);

	memcpy(ret_ueid, UEID_DERIVE_PREFIX, p);
	for (size_t i = 0; i < UEID_DERIVE_DIGITS; i++) {
		char c = machine_id[i];

		ret_ueid[p + i] = (c >= 'a' && c <= 'f') ? (char)(c - 'a' + 'A') : c;
	}
	ret_ueid[UEID_DERIVED_LEN] = '\0';
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

int ueid_derive_from_file(const char *path, char ret_ueid[UEID_DERIVED_LEN + 1],
			  const char **ret_reason)
{
	char id[MACHINE_ID_LEN + 1];
	int r = machine_id_read(path, id, ret_reason);

	if (r < 0)
		return r;
	ueid_derive(id, ret_ueid);
	return 0;
}
