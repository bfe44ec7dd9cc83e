/*
 * hmac.h: SHA-256 (FIPS 180-4), HMAC-SHA-256 (RFC 2104, RFC 4231) and a
 * constant-time comparison: the pool's authentication primitives
 * (src/util/hmac.c).  No allocation, no libc beyond memcpy/memset.
 */
#ifndef CONDOR_HMAC_H
#define CONDOR_HMAC_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN	32
#define SHA256_BLOCK	64

struct sha256 {
	uint32_t	 h[8];
	uint64_t	 len;		/* bytes so far */
	uint8_t		 block[SHA256_BLOCK];
	size_t		 nblock;	/* bytes waiting in block */
};

void	sha256_init(struct sha256 *);
void	sha256_update(struct sha256 *, const void *, size_t);
void	sha256_final(struct sha256 *, uint8_t out[SHA256_LEN]);
void	sha256(const void *, size_t, uint8_t out[SHA256_LEN]);

struct hmac_sha256 {
	struct sha256	 inner, outer;
};

/* A key of any length (longer than a block: its hash is used). */
void	hmac_sha256_init(struct hmac_sha256 *, const void *key, size_t);
void	hmac_sha256_update(struct hmac_sha256 *, const void *, size_t);
void	hmac_sha256_final(struct hmac_sha256 *, uint8_t out[SHA256_LEN]);
void	hmac_sha256(const void *key, size_t keylen, const void *msg,
	    size_t len, uint8_t out[SHA256_LEN]);

/* 1 if the LEN bytes at A and B are equal, in a time that depends on
 * LEN only (never on where they differ). */
int	ct_equal(const void *a, const void *b, size_t len);

#endif
