/*
 * selfckpt: a program that checkpoints itself.  It computes in four
 * steps; after steps 1 to 3 it calls ckpt_and_exit() (it leaves, and
 * goes on from there when resumed), after step 2 ckpt() first too, and
 * it prints after each.  Built natively (without CONDOR_RELINKED) it
 * makes no such calls: its output is what every relinked run must
 * print, however often it was resumed.
 *
 *	selfckpt [ITERATIONS]	(default 3000000 a step)
 */
#include <stdio.h>
#include <stdlib.h>
#ifdef CONDOR_RELINKED
#include "condor_ckpt.h"
#endif

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3000000, i;
	double x = 1.0;
	int step;

	for (step = 1; step <= 4; step++) {
		for (i = 0; i < n; i++)
			x = x * 1.0000001 + 1e-9;
		printf("step %d: %.6f\n", step, x);
		fflush(stdout);
#ifdef CONDOR_RELINKED
		if (step == 2 && ckpt() == -1)
			fprintf(stderr, "ckpt failed\n");
		if (step <= 3)
			ckpt_and_exit();
#endif
		printf("after step %d\n", step);
		fflush(stdout);
	}
	printf("done\n");
	return 0;
}
