/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The host's UEID, derived from its machine ID (/etc/machine-id, or ueid.machine-id-file),
 * in one of two ways (smc.yaml(5), ueid.derive; smcctl ueid derive --derive):
 *
 * app-specific (the default): "APP-" and the first 28 hex digits, in upper case, of the
 *   machine's application-specific ID for our application ID UEID_APP_ID, computed exactly
 *   as sd_id128_get_machine_app_specific() computes it: HMAC-SHA256 keyed with the 16 bytes
 *   of the machine ID over the 16 bytes of the application ID, its first 16 bytes with the
 *   UUID version 4 and variant bits set.  `systemd-id128 machine-id --app-specific=UEID_APP_ID`
 *   prints the same 32 digits (in lower case).  The UEID goes to every SMC peer in the CLC
 *   handshake, and machine-id(5) calls the machine ID confidential and asks for exactly this:
 *   an ID derived from it that cannot be turned back into it, nor matched with what other
 *   applications derive.  Why our own HMAC (sha256.c) and not libsystemd's: libsystemd
 *   (252) computes it only for /etc/machine-id, while ueid.machine-id-file may name another
 *   file; tests/unit/test-common-ueid-derive.c checks that both agree on /etc/machine-id.
 *   The prefix is not "MID-": this is no longer the machine ID.  Why 28 digits: nothing
 *   older has to match it, so it takes the kernel's whole 32 bytes (4 + 28, no padding);
 *   28 digits are 112 bits, of which 106 vary (digit 13 is always the version, 4, and digit
 *   17 one of 8, 9, A, B: the variant): plenty for a few hosts sharing a network.
 *
 * machine-id (the seed's convention, for hosts already configured with it): "MID-" followed
 *   by the first 27 hex digits of the machine ID itself in upper case (31 characters).
 *   Why 27 and not 28: the convention comes from the script Niklas Schnelle posted with the
 *   IPPROTO_SMC series (`head -c 27`), and hosts set up with that script already carry that
 *   exact UEID.  EID negotiation compares all 32 bytes, so a 28-digit variant would silently
 *   stop matching those hosts.  It shows 108 of the machine ID's 128 bits to every peer,
 *   which is why it is no longer the default.
 *
 * An upgraded host changes its UEID unless smc.yaml says `derive: machine-id`; the agent
 * removes the UEID of the other derivation of this machine from the kernel's table (ueid.auto
 * owns both forms) and says so in the journal (debian/smcd-agent.NEWS tells operators).
 *
 * Shared by smcctl ("ueid derive", support-bundle's scrubbing) and the agent (ueid.auto).
 */
#pragma once

#include <stddef.h>

#define UEID_APP_PREFIX "APP-"
#define UEID_APP_DIGITS 28
#define UEID_MID_PREFIX "MID-"
#define UEID_MID_DIGITS 27
#define UEID_DERIVED_MAX 32 /* the longer of the two (the kernel's SMC_EID_LEN) */
#define MACHINE_ID_LEN 32
#define MACHINE_ID_FILE "/etc/machine-id"

/*
 * Our application ID: a random 128-bit constant made once (/proc/sys/kernel/random/uuid)
 * for the app-specific UEID; never change it, or every host's UEID changes.
 */
#define UEID_APP_ID "0dcf8e886ba04a648f7d341d49eff4ef"

enum ueid_derivation {
	UEID_DERIVE_APP_SPECIFIC,
	UEID_DERIVE_MACHINE_ID,
	_UEID_DERIVATION_MAX,
};

/* "app-specific", "machine-id": the words of ueid.derive and of smcctl's --derive. */
extern const char *const ueid_derivation_names[_UEID_DERIVATION_MAX];
/* The derivation named s, or -EINVAL. */
int ueid_derivation_from_string(const char *s);

/*
 * Check the contents of a machine-id file: exactly 32 lowercase hex digits, optionally
 * followed by one newline (machine-id(5)).  Returns 0 and the 32 digits in ret_id, or
 * -EINVAL and a static sentence in *ret_reason ("is empty", "is \"uninitialized\": ...").
 */
int machine_id_parse(const char *buf, size_t len, char ret_id[MACHINE_ID_LEN + 1],
		     const char **ret_reason);

/*
 * The application-specific ID of a valid machine ID for app_id (both 32 lowercase hex
 * digits), as sd_id128_get_machine_app_specific() computes it, in 32 lowercase hex digits.
 */
void machine_id_app_specific(const char *machine_id, const char *app_id,
			     char ret[MACHINE_ID_LEN + 1]);

/* Derive the UEID from a valid machine ID (as returned by machine_id_parse()). */
void ueid_derive(const char *machine_id, enum ueid_derivation how,
		 char ret_ueid[UEID_DERIVED_MAX + 1]);

/*
 * Read and check a machine-id file (NULL: /etc/machine-id): returns 0 and the 32 digits in
 * ret_id, or what ueid_derive_from_file() returns on failure.  (smcctl support-bundle reads
 * the ID itself, to scrub it and both UEIDs derived from it everywhere it collects.)
 */
int machine_id_read(const char *path, char ret_id[MACHINE_ID_LEN + 1], const char **ret_reason);

/*
 * Read a machine-id file (NULL: /etc/machine-id) and derive the UEID.  Returns 0; -errno
 * when the file cannot be read (*ret_reason NULL: use strerror); or -EINVAL with
 * *ret_reason set when its contents are not a valid machine ID.
 */
int ueid_derive_from_file(const char *path, enum ueid_derivation how,
			  char ret_ueid[UEID_DERIVED_MAX + 1], const char **ret_reason);
