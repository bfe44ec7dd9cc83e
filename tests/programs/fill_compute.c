/*
 * fill_compute: fills MIB mebibytes of heap with pseudo-random words
 * (so every page is touched and a checkpoint image carries them all),
 * then computes over them for ROUNDS rounds, printing a checksum after
 * each round.  Deterministic: a run checkpointed and restarted prints
 * the same lines as a native one.
 *
 *   fill_compute [MIB [ROUNDS]]
 */
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char **argv)
{
	long mib = argc > 1 ? atol(argv[1]) : 100;
	long rounds = argc > 2 ? atol(argv[2]) : 100;
	size_t n = (size_t)mib << 17, i;	/* 8-byte words */
	unsigned long *w, x = 88172645463325252UL, h = 0;
	long r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((w = malloc(n * sizeof *w)) == NULL) {
		perror("malloc");
		return 1;
	}
	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		w[i] = x;
	}
	printf("filled %ld MiB\n", mib);
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < n; i++) {
			w[i] = w[i] * 6364136223846793005UL + 1442695040888963407UL;
			h = (h ^ w[i]) * 1099511628211UL;
		}
		printf("round %ld: %016lx\n", r + 1, h);
	}
	printf("done\n");
	return 0;
}
