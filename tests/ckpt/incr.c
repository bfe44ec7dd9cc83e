/*
 * incr: a large memory rewritten 1 % at a time between checkpoints, for
 * incremental checkpoints (tests/ckpt/incr_suite.sh).  Each round
 * rewrites 1 % of the pages of a block of MIB MiB (pages chosen by a
 * seeded generator), drops a few pages with MADV_DONTNEED (they must
 * read as zeros), maps a new anonymous region and unmaps the last
 * round's, grows the break, prints one line of checksums and, relinked,
 * takes a checkpoint with ckpt().  With DIE >= 0 the relinked program
 * exits (status 3) right after the checkpoint of round DIE, unless that
 * checkpoint is the one it was resumed from.  Deterministic: the native
 * and the relinked runs print the same lines.  With a fourth argument
 * "t" (bench/ckpt_incr_bench.sh) it says on stderr how long each ckpt()
 * took, the checkpoint durable; with "f" it takes each checkpoint with
 * SIGUSR2 instead and says how long the signal stopped it (the handler
 * forks the writer and returns).  A fifth, MS, makes it sleep that many
 * milliseconds after each round (tests/pool/ckpt_incr_pool_test.sh; with
 * "f", time for the writer to finish).
 *
 *   incr MIB ROUNDS DIE [t|f|-] [MS]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#ifdef CONDOR_RELINKED
#include "condor_ckpt.h"
#endif

#define PG	4096UL
#define NEWMAP	(256UL << 10)
#define GROW	(64UL << 10)

static uint64_t
sum(const unsigned char *p, size_t n)
{
	const uint64_t *w = (const uint64_t *)p;
	uint64_t h = 14695981039346656037ULL;
	size_t i;

	for (i = 0; i < n / 8; i += 7)
		h = (h ^ w[i]) * 1099511628211ULL;
	return h;
}

static void
fill(unsigned char *p, size_t n, uint64_t seed)
{
	uint64_t *w = (uint64_t *)p, x = seed * 2654435761ULL + 1;
	size_t i;

	for (i = 0; i < n / 8; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		w[i] = x;
	}
}

int
main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
	int rounds = argc > 2 ? atoi(argv[2]) : 4;
	int die = argc > 3 ? atoi(argv[3]) : -1;
	int timed = argc > 4 && strcmp(argv[4], "t") == 0;
	int frozen = argc > 4 && strcmp(argv[4], "f") == 0;
	long ms = argc > 5 ? atol(argv[5]) : 0;
	size_t len = mib << 20, npages = len / PG, k, i;
	unsigned char *big, *map = NULL, *brk0;
	uint64_t x = 12345;
	int r;

	big = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (big == MAP_FAILED)
		return 1;
	for (i = 0; i < npages; i++)
		fill(big + i * PG, PG, i);
	brk0 = sbrk(0);
	for (r = 0; r < rounds; r++) {
		unsigned char *nm, *gb;

		/* 1 % of the pages rewritten. */
		for (k = 0; k < npages / 100; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			i = (size_t)(x % npages);
			fill(big + i * PG, PG, x);
		}
		/* A few pages given back: zeros from now on. */
		madvise(big + ((size_t)r * 97 % npages) * PG, 4 * PG,
		    MADV_DONTNEED);
		/* A new mapping; the last one removed. */
		nm = mmap(NULL, NEWMAP, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (nm == MAP_FAILED)
			return 1;
		fill(nm, NEWMAP, (uint64_t)r + 7);
		if (map != NULL)
			munmap(map, NEWMAP);
		map = nm;
		/* The break grown. */
		gb = sbrk((intptr_t)GROW);
		if (gb == (void *)-1)
			return 1;
		fill(gb, GROW, (uint64_t)r + 99);
		printf("round %d big %016llx map %016llx brk %016llx\n", r,
		    (unsigned long long)sum(big, len),
		    (unsigned long long)sum(map, NEWMAP),
		    (unsigned long long)sum(brk0, (size_t)((unsigned char *)
		    sbrk(0) - brk0)));
		fflush(stdout);
#ifdef CONDOR_RELINKED
		{
			struct timespec t0, t1;
			int c;

			clock_gettime(CLOCK_MONOTONIC, &t0);
			if (frozen) {
				raise(SIGUSR2);
				c = -1;
			} else
				c = ckpt();
			clock_gettime(CLOCK_MONOTONIC, &t1);
			if (timed || frozen)
				fprintf(stderr, "%s %d %.4f\n",
				    frozen ? "frozen" : "ckpt", r,
				    (double)(t1.tv_sec - t0.tv_sec) +
				    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
			if (c == 0 && r == die)
				_exit(3);
		}
#else
		(void)timed;
		(void)frozen;
#endif
		if (ms > 0)
			usleep((useconds_t)ms * 1000);
	}
	printf("done\n");
	return 0;
}
