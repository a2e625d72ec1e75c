// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SHA-256 as FIPS 180-4 section 6.2 describes it, in its words: the message is padded to a
 * multiple of 512 bits (a 1 bit, zeros, the length in bits as a 64-bit big-endian number),
 * each 512-bit block is expanded into 64 words W[t] and compressed into the eight working
 * variables a..h with the constants K[t]; the digest is H0..H7, big-endian.
 */
#include <string.h>

#include "common/sha256.h"

/* The first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

/* The functions of FIPS 180-4 4.1.2. */
static uint32_t ch(uint32_t x, uint32_t y, uint32_t z)
{
	return (x & y) ^ (~x & z);
}

static uint32_t maj(uint32_t x, uint32_t y, uint32_t z)
{
	return (x & y) ^ (x & z) ^ (y & z);
}

static uint32_t big_sigma0(uint32_t x)
{
	return rotr(x, 2) ^ rotr(x, 13) ^ rotr(x, 22);
}

static uint32_t big_sigma1(uint32_t x)
{
	return rotr(x, 6) ^ rotr(x, 11) ^ rotr(x, 25);
}

static uint32_t small_sigma0(uint32_t x)
{
	return rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3);
}

static uint32_t small_sigma1(uint32_t x)
{
	return rotr(x, 17) ^ rotr(x, 19) ^ (x >> 10);
}

/* One 512-bit block into the state (FIPS 180-4 6.2.2, steps 1 to 4). */
static void compress(uint32_t h[8], const uint8_t block[SHA256_BLOCK_SIZE])
{
	uint32_t w[64], v[8];

	for (int t = 0; t < 16; t++)
		w[t] = (uint32_t)block[4 * t] << 24 | (uint32_t)block[4 * t + 1] << 16 |
		       (uint32_t)block[4 * t + 2] << 8 | (uint32_t)block[4 * t + 3];
	for (int t = 16; t < 64; t++)
		w[t] = small_sigma1(w[t - 2]) + w[t - 7] + small_sigma0(w[t - 15]) + w[t - 16];
	memcpy(v, h, sizeof(v)); /* a..h */
	for (int t = 0; t < 64; t++) {
		uint32_t t1 = v[7] + big_sigma1(v[4]) + ch(v[4], v[5], v[6]) + K[t] + w[t];
		uint32_t t2 = big_sigma0(v[0]) + maj(v[0], v[1], v[2]);

		memmove(v + 1, v, 7 * sizeof(v[0])); /* h = g, g = f, ..., b = a */
		v[4] += t1;			     /* e = d + T1 */
		v[0] = t1 + t2;			     /* a = T1 + T2 */
	}
	for (int i = 0; i < 8; i++)
		h[i] += v[i];
}

void sha256_init(struct sha256 *s)
{
	/* The first 32 bits of the fractional parts of the square roots of the first 8 primes. */
	static const uint32_t h0[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

	memcpy(s->h, h0, sizeof(h0));
	s->length = 0;
	s->used = 0;
}

void sha256_update(struct sha256 *s, const void *data, size_t len)
{
	const uint8_t *p = data;

	s->length += len;
	while (len > 0) {
		size_t n = SHA256_BLOCK_SIZE - s->used;

		if (n > len)
			n = len;
		memcpy(s->block + s->used, p, n);
		s->used += n;
		p += n;
		len -= n;
		if (s->used == SHA256_BLOCK_SIZE) {
			compress(s->h, s->block);
			s->used = 0;
		}
	}
}

void sha256_final(struct sha256 *s, uint8_t ret[SHA256_DIGEST_SIZE])
{
	uint64_t bits = s->length * 8;
	uint8_t pad[SHA256_BLOCK_SIZE + 8] = { 0x80 };
	/* The 1 bit and zeros up to 56 bytes into a block, then 8 bytes of length. */
	size_t n = (s->used < 56 ? 56 : 56 + SHA256_BLOCK_SIZE) - s->used;

	for (int i = 0; i < 8; i++)
		pad[n + i] = (uint8_t)(bits >> (56 - 8 * i));
	sha256_update(s, pad, n + 8);
	for (int i = 0; i < 8; i++) {
		ret[4 * i] = (uint8_t)(s->h[i] >> 24);
		ret[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
		ret[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
		ret[4 * i + 3] = (uint8_t)s->h[i];
	}
	memset(s, 0, sizeof(*s));
}

void sha256(const void *data, size_t len, uint8_t ret[SHA256_DIGEST_SIZE])
{
	struct sha256 s;

	sha256_init(&s);
	sha256_update(&s, data, len);
	sha256_final(&s, ret);
}

/* RFC 2104: H((K ^ opad) || H((K ^ ipad) || data)), K zero-padded to a block. */
void hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
		 uint8_t ret[SHA256_DIGEST_SIZE])
{
	uint8_t k[SHA256_BLOCK_SIZE] = {}, pad[SHA256_BLOCK_SIZE], inner[SHA256_DIGEST_SIZE];
	struct sha256 s;

	if (key_len > SHA256_BLOCK_SIZE)
		sha256(key, key_len, k);
	else if (key_len > 0)
		memcpy(k, key, key_len);

	for (size_t i = 0; i < sizeof(pad); i++)
		pad[i] = k[i] ^ 0x36;
	sha256_init(&s);
	sha256_update(&s, pad, sizeof(pad));
	sha256_update(&s, data, len);
	sha256_final(&s, inner);

	for (size_t i = 0; i < sizeof(pad); i++)
		pad[i] = k[i] ^ 0x5c;
	sha256_init(&s);
	sha256_update(&s, pad, sizeof(pad));
	sha256_update(&s, inner, sizeof(inner));
	sha256_final(&s, ret);
	memset(k, 0, sizeof(k));
	memset(pad, 0, sizeof(pad));
}
