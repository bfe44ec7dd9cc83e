/*
 * remote_zlib.c: a job using zlib (Debian's libz.a), for
 * tests/pool/remote_libs_test.sh.  Writes 2 MB of deterministic text to
 * plain.txt, compresses it with gzopen/gzwrite to plain.txt.gz,
 * decompresses that back to back.txt, and prints the sizes and CRC-32s
 * of all three.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <zlib.h>

#define TEXT_SIZE	(2 * 1024 * 1024)	/* bytes */

static unsigned long
file_crc(const char *path, long *size)
{
	static unsigned char b[65536];
	unsigned long crc = crc32(0, 0, 0);
	FILE *f = fopen(path, "rb");
	size_t n;

	*size = 0;
	if (f == 0) {
		perror(path);
		exit(1);
	}
	while ((n = fread(b, 1, sizeof(b), f)) > 0) {
		crc = crc32(crc, b, (unsigned)n);
		*size += (long)n;
	}
	fclose(f);
	return crc;
}

int
main(void)
{
	static char b[65536];
	unsigned long x = 12345;
	long size, n = 0;
	struct stat st;
	gzFile gz;
	FILE *f;
	int i, r;

	/* The input: lines of words from a fixed generator. */
	if ((f = fopen("plain.txt", "w")) == 0) {
		perror("plain.txt");
		return 1;
	}
	while (n < TEXT_SIZE) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		i = fprintf(f, "line %ld: %s %lu %s\n", n, (x >> 60) & 1 ?
		    "alpha beta" : "gamma", (x >> 33) % 1000,
		    (x >> 40) & 2 ? "delta" : "epsilon epsilon");
		n += i;
	}
	fclose(f);
	printf("plain.txt    crc %08lx\n", file_crc("plain.txt", &size));
	printf("plain.txt    size %ld\n", size);

	/* Compress. */
	if ((f = fopen("plain.txt", "r")) == 0 ||
	    (gz = gzopen("plain.txt.gz", "wb9")) == 0) {
		perror("compress");
		return 1;
	}
	while ((n = (long)fread(b, 1, sizeof(b), f)) > 0)
		if (gzwrite(gz, b, (unsigned)n) != n) {
			printf("gzwrite failed\n");
			return 1;
		}
	fclose(f);
	if ((r = gzclose(gz)) != Z_OK) {
		printf("gzclose: %d\n", r);
		return 1;
	}
	printf("plain.txt.gz crc %08lx\n", file_crc("plain.txt.gz", &size));
	printf("plain.txt.gz size %ld\n", size);
	if (stat("plain.txt.gz", &st) == 0)
		printf("plain.txt.gz stat size %lld\n", (long long)st.st_size);

	/* Decompress. */
	if ((gz = gzopen("plain.txt.gz", "rb")) == 0 ||
	    (f = fopen("back.txt", "w")) == 0) {
		perror("decompress");
		return 1;
	}
	while ((r = gzread(gz, b, sizeof(b))) > 0)
		fwrite(b, 1, (size_t)r, f);
	if (r < 0) {
		printf("gzread failed\n");
		return 1;
	}
	gzclose(gz);
	fclose(f);
	printf("back.txt     crc %08lx\n", file_crc("back.txt", &size));
	printf("back.txt     size %ld\n", size);
	printf("done\n");
	return 0;
}
