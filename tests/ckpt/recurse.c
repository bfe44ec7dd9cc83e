/*
 * recurse: deep recursion with an array in every frame; the work happens
 * at the bottom (where checkpoints land), then every frame's array is
 * checked on the way back up.
 */
#include <stdio.h>
#include <string.h>

#define DEPTH	12000
#define FRAME	400

static unsigned long work_result;

static __attribute__((noinline)) void
work(void)
{
	unsigned long x = 7;
	long i, j;

	for (i = 0; i < 120; i++) {
		for (j = 0; j < 5000000; j++)
			x = x * 2862933555777941757UL + 3037000493UL;
		printf("bottom step %ld %016lx\n", i, x);
	}
	work_result = x;
}

static __attribute__((noinline)) long
recurse(int depth)
{
	volatile unsigned char buf[FRAME];
	long bad = 0;
	int k;

	for (k = 0; k < FRAME; k++)
		buf[k] = (unsigned char)(depth * 31 + k);
	if (depth < DEPTH)
		bad = recurse(depth + 1);
	else
		work();
	for (k = 0; k < FRAME; k++)
		if (buf[k] != (unsigned char)(depth * 31 + k))
			bad++;
	return bad;
}

int
main(void)
{
	long bad = recurse(0);

	printf("depth %d, frames damaged %ld, result %016lx\n", DEPTH, bad,
	    work_result);
	return bad != 0;
}
