/*
 * hmac_test: SHA-256 against the FIPS 180 examples (NIST's "abc", the
 * empty message, the 448- and 896-bit messages, a million "a"s), fed
 * whole and in uneven pieces, and the lengths around the padding's
 * boundary; HMAC-SHA-256 against the seven test cases
 * of RFC 4231 (case 5 truncated to 128 bits, as the RFC does);
 * ct_equal.
 * checks: 22
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hmac.h"
#include "test.h"

static const char *
hex(const uint8_t *p, size_t n)
{
	static char out[2 * SHA256_LEN + 1];
	size_t i;

	for (i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", p[i]);
	out[2 * n] = '\0';
	return out;
}

static const char *
digest(const void *msg, size_t len)
{
	uint8_t d[SHA256_LEN];

	sha256(msg, len, d);
	return hex(d, SHA256_LEN);
}

/* The same message fed in pieces of 1, 2, 3, ... bytes. */
static const char *
digest_pieces(const char *msg, size_t len)
{
	struct sha256 s;
	uint8_t d[SHA256_LEN];
	size_t at = 0, k = 1;

	sha256_init(&s);
	while (at < len) {
		size_t n = k < len - at ? k : len - at;

		sha256_update(&s, msg + at, n);
		at += n;
		k++;
	}
	sha256_final(&s, d);
	return hex(d, SHA256_LEN);
}

static const char *
mac(const void *key, size_t keylen, const void *msg, size_t len,
    size_t outlen)
{
	uint8_t d[SHA256_LEN];

	hmac_sha256(key, keylen, msg, len, d);
	return hex(d, outlen);
}

int
main(void)
{
	static const char m448[] =
	    "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	static const char m896[] =
	    "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
	    "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
	static const char big_data[] = "This is a test using a larger than "
	    "block-size key and a larger than block-size data. The key needs "
	    "to be hashed before being used by the HMAC algorithm.";
	char *million = malloc(1000000);
	uint8_t k20[20], k25[25], k131[131], d50[50], a[32], b[32];
	size_t i;

	CHECK_STR("sha256 abc", digest("abc", 3),
	    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	CHECK_STR("sha256 empty", digest("", 0),
	    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	CHECK_STR("sha256 448 bits", digest(m448, strlen(m448)),
	    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	CHECK_STR("sha256 896 bits", digest(m896, strlen(m896)),
	    "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
	memset(million, 'a', 1000000);
	CHECK_STR("sha256 a million a", digest(million, 1000000),
	    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	CHECK_STR("sha256 448 bits in pieces", digest_pieces(m448,
	    strlen(m448)),
	    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	CHECK_STR("sha256 896 bits in pieces", digest_pieces(m896,
	    strlen(m896)),
	    "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
	CHECK_STR("sha256 a million a in pieces", digest_pieces(million,
	    1000000),
	    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	/* Lengths around the padding's boundary: the length fits in the
	 * last block or needs one more (values from Python's hashlib). */
	{
		static const struct { size_t n; const char *want; } edge[] = {
			{ 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318" },
			{ 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a" },
			{ 63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34" },
			{ 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb" },
		};
		char name[64];

		for (i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
			snprintf(name, sizeof(name), "sha256 %zu a, in pieces",
			    edge[i].n);
			CHECK_STR(name, digest_pieces(million, edge[i].n),
			    edge[i].want);
		}
	}
	free(million);

	memset(k20, 0x0b, sizeof(k20));
	CHECK_STR("hmac rfc4231 case 1", mac(k20, 20, "Hi There", 8, 32),
	    "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	CHECK_STR("hmac rfc4231 case 2", mac("Jefe", 4,
	    "what do ya want for nothing?", 28, 32),
	    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	memset(k20, 0xaa, sizeof(k20));
	memset(d50, 0xdd, sizeof(d50));
	CHECK_STR("hmac rfc4231 case 3", mac(k20, 20, d50, 50, 32),
	    "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
	for (i = 0; i < sizeof(k25); i++)
		k25[i] = (uint8_t)(i + 1);
	memset(d50, 0xcd, sizeof(d50));
	CHECK_STR("hmac rfc4231 case 4", mac(k25, 25, d50, 50, 32),
	    "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
	memset(k20, 0x0c, sizeof(k20));
	CHECK_STR("hmac rfc4231 case 5 (128 bits)", mac(k20, 20,
	    "Test With Truncation", 20, 16),
	    "a3b6167473100ee06e0c796c2955552b");
	memset(k131, 0xaa, sizeof(k131));
	CHECK_STR("hmac rfc4231 case 6 (key longer than a block)",
	    mac(k131, 131, "Test Using Larger Than Block-Size Key - Hash Key "
	    "First", 54, 32),
	    "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
	CHECK_STR("hmac rfc4231 case 7 (key and data longer than a block)",
	    mac(k131, 131, big_data, strlen(big_data), 32),
	    "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");

	memset(a, 7, sizeof(a));
	memcpy(b, a, sizeof(b));
	CHECK("ct_equal: equal", ct_equal(a, b, sizeof(a)));
	b[0] ^= 1;
	CHECK("ct_equal: first byte differs", !ct_equal(a, b, sizeof(a)));
	b[0] ^= 1;
	b[31] ^= 0x80;
	CHECK("ct_equal: last bit differs", !ct_equal(a, b, sizeof(a)) &&
	    ct_equal(a, b, 31));
	TEST_EXIT();
}
