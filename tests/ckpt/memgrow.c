/*
 * memgrow: memory that keeps changing shape for a while, for a job that
 * is checkpointed and moved in the middle: each round grows a large
 * block with realloc (malloc's mremap), gives back pages of an
 * anonymous mapping filled in the round before with MADV_DONTNEED
 * (they must read as zeros), grows
 * and shrinks the break, and prints checksums; then computes for a
 * while.  Deterministic: the native and the relinked run print the
 * same lines however often it was stopped.
 *
 *   memgrow [ROUNDS [WORK]]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MiB	(1024UL * 1024)

static unsigned long
sum(const unsigned char *p, size_t n)
{
	unsigned long h = 14695981039346656037UL;
	size_t i;

	for (i = 0; i < n; i += 61)
		h = (h ^ p[i]) * 1099511628211UL;
	return h;
}

int
main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 40, r;
	long work = argc > 2 ? atol(argv[2]) : 40000000, k;
	unsigned char *big = malloc(1 * MiB), *m, *b;
	volatile unsigned long x = 1;
	size_t n = 1 * MiB, i, z;

	m = mmap(NULL, 4 * MiB, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (big == NULL || m == MAP_FAILED)
		return 1;
	memset(big, 1, n);
	for (r = 0; r < rounds; r++) {
		size_t nn = (size_t)(r % 12 + 1) * MiB + (size_t)r * 4096;

		if ((big = realloc(big, nn)) == NULL)
			return 1;
		for (i = n < nn ? n : nn; i < nn; i++)
			big[i] = (unsigned char)(i * 7 + (size_t)r);
		n = nn;
		/* Filled at the end of the last round: the checkpoint
		 * most likely saved it full. */
		madvise(m + MiB, 2 * MiB, MADV_DONTNEED);
		for (z = 0, i = 0; i < 4 * MiB; i++)
			z += m[i] == 0;
		b = sbrk(0);
		if (sbrk(512 * 1024) != (void *)-1) {
			for (i = 0, k = 0; i < 512 * 1024; i++)
				k += b[i] != 0;
			memset(b, 9, 512 * 1024);
			sbrk(-512 * 1024);
		} else
			k = -1;
		printf("round %2d: block %5zu KiB sum %016lx, %zu zeros after "
		    "DONTNEED, %ld non-zero in new break\n", r, n / 1024,
		    sum(big, n), z, k);
		fflush(stdout);
		memset(m, r + 1, 4 * MiB);
		for (k = 0; k < work; k++)
			x = x * 6364136223846793005UL + 1;
	}
	printf("memgrow done\n");
	return 0;
}
