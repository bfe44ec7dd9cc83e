/*
 * omp.c: an OpenMP program for the checkpoint suite (threads_suite.sh),
 * built with gcc -fopenmp against libgomp's static archive.  Each phase
 * a parallel loop with a reduction, dynamic scheduling and a critical
 * section, then a parallel region with a barrier; the main thread prints
 * what they computed, which depends only on the arguments (never on the
 * number of threads or their scheduling).
 *
 *	omp PHASES WORK
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t
mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

int
main(int argc, char **argv)
{
	int phases, p;
	long work;

	if (argc != 3)
		return 2;
	phases = atoi(argv[1]);
	work = atol(argv[2]);
	for (p = 0; p < phases; p++) {
		uint64_t sum = 0, xored = 0, stage[2] = { 0, 0 };
		long i;

#pragma omp parallel for reduction(+:sum) schedule(dynamic, 16)
		for (i = 0; i < work; i++) {
			uint64_t h = (uint64_t)p << 40 | (uint64_t)i;
			int k;

			for (k = 0; k < 1000; k++)
				h = mix(h + (uint64_t)k);
			sum += h >> 20;
			if ((h & 63) == 0) {
#pragma omp critical
				xored ^= h;
			}
		}
#pragma omp parallel
		{
			uint64_t mine = mix((uint64_t)p);

#pragma omp atomic
			stage[0] += 1;
#pragma omp barrier
#pragma omp single
			stage[1] = stage[0] == (uint64_t)omp_get_num_threads() ?
			    mine : 0;
		}
		printf("phase %d: %llu %016llx %016llx\n", p,
		    (unsigned long long)sum, (unsigned long long)xored,
		    (unsigned long long)stage[1]);
		fflush(stdout);
	}
	return 0;
}
