/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The host's UEID, derived from /etc/machine-id: "MID-" followed by the first 27 hex digits
 * of the machine ID in upper case (31 characters).
 *
 * Why 27 and not 28: the convention comes from the script Niklas Schnelle posted with the
 * IPPROTO_SMC series (`head -c 27`), and hosts set up with that script already carry that
 * exact UEID.  EID negotiation compares all 32 bytes, so a 28-digit variant would silently
 * stop matching those hosts.  28 digits would also fit the kernel's 32-byte limit (that is
 * where a "28" in our kernel notes comes from), but one more digit buys nothing: 27 hex
 * digits are 108 random bits.  The issue that defines this tool says 27; we follow it.
 *
 * Shared by smcctl ("ueid derive") and the agent (automatic UEID provisioning).
 */
#pragma once

#include <stddef.h>

#define UEID_DERIVE_PREFIX "MID-"
#define UEID_DERIVE_DIGITS 27
#define UEID_DERIVED_LEN (sizeof(UEID_DERIVE_PREFIX) - 1 + UEID_DERIVE_DIGITS) /* 31 */
#define MACHINE_ID_LEN 32
#define MACHINE_ID_FILE "/etc/machine-id"

/*
 * Check the contents of a machine-id file: exactly 32 lowercase hex digits, optionally
 * followed by one newline (machine-id(5)).  Returns 0 and the 32 digits in ret_id, or
 * -EINVAL and a static sentence in *ret_reason ("is empty", "is \"uninitialized\": ...").
 */
int machine_id_parse(const char *buf, size_t len, char ret_id[MACHINE_ID_LEN + 1],
		     const char **ret_reason);

/* Derive the UEID from a valid machine ID (as returned by machine_id_parse()). */
void ueid_derive(const char *machine_id, char ret_ueid[UEID_DERIVED_LEN + 1]);

/*
 * Read and check a machine-id file (NULL: /etc/machine-id): returns 0 and the 32 digits in
 * ret_id, or what ueid_derive_from_file() returns on failure.  (smcctl support-bundle reads
 * the ID itself, to replace it by the UEID everywhere it collects.)
 */
int machine_id_read(const char *path, char ret_id[MACHINE_ID_LEN + 1], const char **ret_reason);

/*
 * Read a machine-id file (NULL: /etc/machine-id) and derive the UEID.  Returns 0; -errno
 * when the file cannot be read (*ret_reason NULL: use strerror); or -EINVAL with
 * *ret_reason set when its contents are not a valid machine ID.
 */
int ueid_derive_from_file(const char *path, char ret_ueid[UEID_DERIVED_LEN + 1],
			  const char **ret_reason);
