/*
 * crc.c: CRC-32 and CRC-32C (crc.h).
 *
 * Both are reflected CRCs computed by slicing by 8: table[k] carries a
 * byte's effect k bytes further, so eight bytes cost eight independent
 * lookups.  CRC-32C also has the SSE 4.2 crc32 instruction, 8 bytes a
 * step in three lanes at once, used when the processor has it.
 */
#include <stdint.h>
#include <string.h>

#include "crc.h"

struct crc_tables {
	uint32_t	t[8][256];
	int		ready;
};

static struct crc_tables ieee, castagnoli;

static void
tables_make(struct crc_tables *c, uint32_t poly)
{
	uint32_t v;
	int i, k;

	for (i = 0; i < 256; i++) {
		v = (uint32_t)i;
		for (k = 0; k < 8; k++)
			v = v & 1 ? poly ^ (v >> 1) : v >> 1;
		c->t[0][i] = v;
	}
	for (i = 0; i < 256; i++)
		for (k = 1; k < 8; k++)
			c->t[k][i] = (c->t[k - 1][i] >> 8) ^
			    c->t[0][c->t[k - 1][i] & 0xff];
	c->ready = 1;
}

static uint32_t
sliced(const struct crc_tables *c, uint32_t crc, const unsigned char *p,
    size_t n)
{
	uint32_t a, b;

	crc = ~crc;
	for (; n >= 8; p += 8, n -= 8) {
		a = ((uint32_t)p[0] | (uint32_t)p[1] << 8 |
		    (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24) ^ crc;
		b = (uint32_t)p[4] | (uint32_t)p[5] << 8 |
		    (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
		crc = c->t[7][a & 0xff] ^ c->t[6][(a >> 8) & 0xff] ^
		    c->t[5][(a >> 16) & 0xff] ^ c->t[4][a >> 24] ^
		    c->t[3][b & 0xff] ^ c->t[2][(b >> 8) & 0xff] ^
		    c->t[1][(b >> 16) & 0xff] ^ c->t[0][b >> 24];
	}
	while (n-- > 0)
		crc = c->t[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

uint32_t
crc32_ieee(uint32_t crc, const void *data, size_t n)
{
	if (!ieee.ready)
		tables_make(&ieee, 0xedb88320u);
	return sliced(&ieee, crc, data, n);
}

#if defined(__x86_64__)
/*
 * The crc32 instruction takes 3 cycles and can start one a cycle: three
 * lanes of LANE bytes are summed at once, then joined.  The register is
 * linear in its start, so A then B is shift(A, len B) ^ B, where shift
 * feeds zero bytes: a linear map, kept as four byte tables.
 */
#define LANE	8192

static uint32_t	shift_lane[4][256];	/* shift by LANE bytes */

__attribute__((target("sse4.2")))
static uint32_t
hw_bytes(uint32_t c, const unsigned char *p, size_t n)
{
	uint64_t c64 = c, v;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&v, p, 8);
		c64 = __builtin_ia32_crc32di(c64, v);
	}
	c = (uint32_t)c64;
	while (n-- > 0)
		c = __builtin_ia32_crc32qi(c, *p++);
	return c;
}

__attribute__((target("sse4.2")))
static void
shift_make(void)
{
	static const unsigned char zero[LANE];
	uint32_t basis[32];
	int i, b, k;

	for (k = 0; k < 32; k++)
		basis[k] = hw_bytes(1u << k, zero, LANE);
	for (i = 0; i < 4; i++)
		for (b = 0; b < 256; b++) {
			uint32_t v = 0;

			for (k = 0; k < 8; k++)
				if (b & (1 << k))
					v ^= basis[8 * i + k];
			shift_lane[i][b] = v;
		}
}

static uint32_t
shift(uint32_t c)
{
	return shift_lane[0][c & 0xff] ^ shift_lane[1][(c >> 8) & 0xff] ^
	    shift_lane[2][(c >> 16) & 0xff] ^ shift_lane[3][c >> 24];
}

__attribute__((target("sse4.2")))
static uint32_t
crc32c_sse42(uint32_t crc, const unsigned char *p, size_t n)
{
	uint64_t a, b, c, v;
	size_t k;

	crc = ~crc;
	for (; n >= 3 * LANE; p += 3 * LANE, n -= 3 * LANE) {
		a = crc;
		b = c = 0;
		for (k = 0; k < LANE; k += 8) {
			memcpy(&v, p + k, 8);
			a = __builtin_ia32_crc32di(a, v);
			memcpy(&v, p + LANE + k, 8);
			b = __builtin_ia32_crc32di(b, v);
			memcpy(&v, p + 2 * LANE + k, 8);
			c = __builtin_ia32_crc32di(c, v);
		}
		crc = shift(shift((uint32_t)a) ^ (uint32_t)b) ^ (uint32_t)c;
	}
	return ~hw_bytes(crc, p, n);
}
#endif

uint32_t
crc32c_portable(uint32_t crc, const void *data, size_t n)
{
	if (!castagnoli.ready)
		tables_make(&castagnoli, 0x82f63b78u);
	return sliced(&castagnoli, crc, data, n);
}

uint32_t
crc32c(uint32_t crc, const void *data, size_t n)
{
#if defined(__x86_64__)
	static int hw = -1;

	if (hw == -1) {
		__builtin_cpu_init();
		hw = __builtin_cpu_supports("sse4.2") != 0;
		if (hw)
			shift_make();
	}
	if (hw)
		return crc32c_sse42(crc, data, n);
#endif
	return crc32c_portable(crc, data, n);
}
