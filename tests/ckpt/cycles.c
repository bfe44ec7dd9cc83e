/*
 * cycles: checkpoints itself and exits (ckpt_and_exit) at every one of
 * 200 steps; the driver restarts it each time.  The break (sbrk(0)) must
 * not move across restarts.  Built natively, it just runs the steps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef CONDOR_RELINKED
#include "condor_ckpt.h"
#endif

int
main(void)
{
	void *brk0 = NULL;
	unsigned long x = 3;
	int i, moved = 0;
	char *p;

	for (i = 0; i < 200; i++) {
		long k;

		for (k = 0; k < 200000; k++)
			x = x * 6364136223846793005UL + 1;
		p = malloc(1000 + (size_t)i * 10);
		memset(p, i, 1000);
		free(p);
		if (i == 0)
			brk0 = sbrk(0);
		else if (sbrk(0) != brk0)
			moved++;
		printf("cycle %d %016lx break moved %d\n", i, x, moved);
#ifdef CONDOR_RELINKED
		ckpt_and_exit();
#endif
	}
	printf("cycles done, break moved %d times\n", moved);
	return moved != 0;
}
