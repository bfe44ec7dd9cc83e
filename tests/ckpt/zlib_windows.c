/*
 * zlib_windows: zlib (Debian's libz.a) with its largest windows
 * (windowBits 15, memLevel 9) over 16 MiB of generated text: rounds of
 * deflate and inflate with fresh streams and buffers of changing sizes
 * (small ones from the heap, large ones mmapped by malloc and given
 * back), each result checked and its CRC-32 and size printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MiB	(1024UL * 1024)

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;

static unsigned
next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)rng;
}

int
main(void)
{
	static const char *words[] = { "condor ", "checkpoint ", "migrate ",
	    "idle ", "workstation ", "owner ", "vacate ", "resume ",
	    "shadow ", "starter ", "\n" };
	size_t total = 16 * MiB, i = 0, n, len;
	unsigned char *text = malloc(total), *z, *back;
	int round, strategies[] = { Z_DEFAULT_STRATEGY, Z_FILTERED,
	    Z_HUFFMAN_ONLY };

	while (i < total) {
		const char *w = words[next() % 11];

		n = strlen(w);
		if (i + n > total)
			n = total - i;
		memcpy(text + i, w, n);
		i += n;
	}
	for (round = 0; round < 12; round++) {
		z_stream d, f;

		len = (size_t)(round % 4 + 1) * 2 * MiB;
		n = compressBound(len) + (size_t)round * 4096;
		z = malloc(n);
		back = malloc(len + 1);
		memset(&d, 0, sizeof(d));
		memset(&f, 0, sizeof(f));
		if (z == NULL || back == NULL || deflateInit2(&d, round % 3 == 0 ? 9 : 6,
		    Z_DEFLATED, 15, 9, strategies[round % 3]) != Z_OK)
			return 1;
		d.next_in = text + (size_t)round * 65536;
		d.avail_in = (uInt)len;
		d.next_out = z;
		d.avail_out = (uInt)n;
		if (deflate(&d, Z_FINISH) != Z_STREAM_END)
			return 1;
		deflateEnd(&d);
		if (inflateInit2(&f, 15) != Z_OK)
			return 1;
		f.next_in = z;
		f.avail_in = (uInt)d.total_out;
		f.next_out = back;
		f.avail_out = (uInt)len + 1;
		if (inflate(&f, Z_FINISH) != Z_STREAM_END)
			return 1;
		inflateEnd(&f);
		printf("round %2d: %8zu bytes -> %8lu, crc %08lx, back %s\n",
		    round, len, d.total_out, crc32(0, z, (uInt)d.total_out),
		    f.total_out == len && memcmp(back, text + (size_t)round *
		    65536, len) == 0 ? "same" : "DIFFERENT");
		free(z);
		free(back);
	}
	free(text);
	return 0;
}
