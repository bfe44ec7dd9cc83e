/*
 * hmac.c: SHA-256 as FIPS 180-4 defines it (section 6.2), HMAC over it
 * as RFC 2104 does (RFC 4231 gives the test vectors,
 * tests/unit/hmac_test.c), and ct_equal, which compares MACs without
 * telling by its timing where they differ.
 */
#include <string.h>

#include "hmac.h"

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n)	(((x) >> (n)) | ((x) << (32 - (n))))

static void
compress(uint32_t h[8], const uint8_t *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, k, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		    (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (; i < 64; i++) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^
		    (w[i - 15] >> 3);
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^
		    (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = h[0], b = h[1], c = h[2], d = h[3];
	e = h[4], f = h[5], g = h[6], k = h[7];
	for (i = 0; i < 64; i++) {
		t1 = k + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) +
		    ((e & f) ^ (~e & g)) + K[i] + w[i];
		t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) +
		    ((a & b) ^ (a & c) ^ (b & c));
		k = g, g = f, f = e, e = d + t1;
		d = c, c = b, b = a, a = t1 + t2;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d;
	h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

void
sha256_init(struct sha256 *s)
{
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, h0, sizeof(h0));
	s->len = 0;
	s->nblock = 0;
}

void
sha256_update(struct sha256 *s, const void *data, size_t n)
{
	const uint8_t *p = data;
	size_t take;

	if (n == 0)
		return;		/* DATA may be NULL then */
	s->len += n;
	if (s->nblock > 0) {
		take = SHA256_BLOCK - s->nblock < n ? SHA256_BLOCK - s->nblock :
		    n;
		memcpy(s->block + s->nblock, p, take);
		s->nblock += take;
		p += take, n -= take;
		if (s->nblock < SHA256_BLOCK)
			return;
		compress(s->h, s->block);
		s->nblock = 0;
	}
	for (; n >= SHA256_BLOCK; p += SHA256_BLOCK, n -= SHA256_BLOCK)
		compress(s->h, p);
	memcpy(s->block, p, n);
	s->nblock = n;
}

void
sha256_final(struct sha256 *s, uint8_t out[SHA256_LEN])
{
	uint64_t bits = s->len * 8;
	int i;

	/* A one bit, zeros to 56 bytes of the block, the length in bits. */
	s->block[s->nblock++] = 0x80;
	if (s->nblock > 56) {
		memset(s->block + s->nblock, 0, SHA256_BLOCK - s->nblock);
		compress(s->h, s->block);
		s->nblock = 0;
	}
	memset(s->block + s->nblock, 0, 56 - s->nblock);
	for (i = 0; i < 8; i++)
		s->block[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
	compress(s->h, s->block);
	for (i = 0; i < 8; i++) {
		out[4 * i] = (uint8_t)(s->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)s->h[i];
	}
	memset(s, 0, sizeof(*s));
}

void
sha256(const void *data, size_t n, uint8_t out[SHA256_LEN])
{
	struct sha256 s;

	sha256_init(&s);
	sha256_update(&s, data, n);
	sha256_final(&s, out);
}

void
hmac_sha256_init(struct hmac_sha256 *m, const void *key, size_t keylen)
{
	uint8_t k[SHA256_BLOCK], pad[SHA256_BLOCK];
	int i;

	memset(k, 0, sizeof(k));
	if (keylen > SHA256_BLOCK)
		sha256(key, keylen, k);
	else if (keylen > 0)
		memcpy(k, key, keylen);
	for (i = 0; i < SHA256_BLOCK; i++)
		pad[i] = k[i] ^ 0x36;
	sha256_init(&m->inner);
	sha256_update(&m->inner, pad, sizeof(pad));
	for (i = 0; i < SHA256_BLOCK; i++)
		pad[i] = k[i] ^ 0x5c;
	sha256_init(&m->outer);
	sha256_update(&m->outer, pad, sizeof(pad));
	memset(k, 0, sizeof(k));
	memset(pad, 0, sizeof(pad));
}

void
hmac_sha256_update(struct hmac_sha256 *m, const void *data, size_t n)
{
	sha256_update(&m->inner, data, n);
}

void
hmac_sha256_final(struct hmac_sha256 *m, uint8_t out[SHA256_LEN])
{
	uint8_t ih[SHA256_LEN];

	sha256_final(&m->inner, ih);
	sha256_update(&m->outer, ih, sizeof(ih));
	sha256_final(&m->outer, out);
	memset(ih, 0, sizeof(ih));
}

void
hmac_sha256(const void *key, size_t keylen, const void *msg, size_t len,
    uint8_t out[SHA256_LEN])
{
	struct hmac_sha256 m;

	hmac_sha256_init(&m, key, keylen);
	hmac_sha256_update(&m, msg, len);
	hmac_sha256_final(&m, out);
}

int
ct_equal(const void *a, const void *b, size_t len)
{
	const volatile uint8_t *x = a, *y = b;
	uint8_t d = 0;
	size_t i;

	for (i = 0; i < len; i++)
		d |= x[i] ^ y[i];
	return d == 0;
}
