/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), for the application-specific UEID
 * (ueid-derive.c), which must be computed as sd_id128_get_machine_app_specific() computes it
 * but from any file ueid.machine-id-file names: libsystemd only offers it for
 * /etc/machine-id, and no crypto library is a dependency of ours for one HMAC.
 *
 * Not for secrets that need constant time against a local attacker: the key here is the
 * machine ID, which a process able to time us could read itself (it is world-readable).
 * tests/unit/test-common-ueid-derive.c checks both against FIPS 180-2's and RFC 4231's
 * vectors.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_SIZE 32
#define SHA256_BLOCK_SIZE 64

struct sha256 {
	uint32_t h[8];			  /* the state: H0..H7 */
	uint64_t length;		  /* bytes hashed so far */
	uint8_t block[SHA256_BLOCK_SIZE]; /* the partial block not yet compressed */
	size_t used;			  /* bytes of it in use */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, uint8_t ret[SHA256_DIGEST_SIZE]);
/* All three at once. */
void sha256(const void *data, size_t len, uint8_t ret[SHA256_DIGEST_SIZE]);

/* HMAC-SHA256(key, data), any key length (a key longer than a block is hashed first). */
void hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
		 uint8_t ret[SHA256_DIGEST_SIZE]);
