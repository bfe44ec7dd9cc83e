/*
 * memory: a large heap, an anonymous mapping with holes, PROT_NONE pages
 * holding data, a read-only region, a 2 TiB MAP_NORESERVE region with a
 * few pages used, many small mappings, a mapping moved with mremap to a
 * fixed address.  (2 TiB of NORESERVE, a few pages used.)  Each step changes some of it and prints a checksum of
 * everything, so any page lost or misplaced by a restart shows.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE	4096UL
#define HEAP	(32UL << 20)
#define HOLEY	(256UL << 20)
#define HUGE	(2UL << 40)
#define NSMALL	300

static unsigned long
sum(const void *p, size_t n, unsigned long h)
{
	const unsigned long *w = p;
	size_t i;

	for (i = 0; i < n / 8; i++)
		h = (h ^ w[i]) * 1099511628211UL;
	return h;
}

static void
busy(long n)
{
	volatile unsigned long x = 1;

	while (n-- > 0)
		x = x * 6364136223846793005UL + 1;
}

int
main(void)
{
	unsigned char *heap, *holey, *none, *ro, *huge, *small[NSMALL], *moved;
	unsigned long h;
	size_t i;
	int step;

	heap = malloc(HEAP);
	holey = mmap(NULL, HOLEY, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	none = mmap(NULL, 64 * PAGE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro = mmap(NULL, 32 * PAGE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	huge = mmap(NULL, HUGE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	moved = mmap(NULL, 16 * PAGE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (heap == NULL || holey == MAP_FAILED || none == MAP_FAILED ||
	    ro == MAP_FAILED || huge == MAP_FAILED || moved == MAP_FAILED) {
		perror("memory");
		return 1;
	}
	for (i = 0; i < HEAP; i++)
		heap[i] = (unsigned char)(i * 7 + (i >> 12));
	for (i = 0; i < HOLEY; i += 257 * PAGE)
		holey[i] = (unsigned char)(i >> 12);
	for (i = 0; i < 64 * PAGE; i++)
		none[i] = (unsigned char)(i * 13);
	mprotect(none + 16 * PAGE, 16 * PAGE, PROT_NONE);
	for (i = 0; i < 32 * PAGE; i++)
		ro[i] = (unsigned char)(i * 3);
	mprotect(ro, 32 * PAGE, PROT_READ);
	for (i = 0; i < 5; i++)
		huge[i * (HUGE / 5) + 12345] = (unsigned char)(i + 1);
	for (i = 0; i < NSMALL; i++) {
		small[i] = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		memset(small[i], (int)i, PAGE);
		if (i % 2)
			mprotect(small[i], PAGE, PROT_READ);
	}
	for (i = 0; i < 16 * PAGE; i++)
		moved[i] = (unsigned char)(i * 5);
	{
		/* Move it to a fixed place far from everything else. */
		void *to = (void *)0x300000000000UL;
		void *r = mremap(moved, 16 * PAGE, 16 * PAGE,
		    MREMAP_MAYMOVE | MREMAP_FIXED, to);

		if (r != to) {
			perror("mremap");
			return 1;
		}
		moved = r;
	}
	for (step = 0; step < 30; step++) {
		heap[(size_t)step * 1000003 % HEAP] ^= (unsigned char)step;
		holey[(size_t)step * 257 * PAGE % HOLEY] += 1;
		moved[step] += 1;
		h = sum(heap, HEAP, 14695981039346656037UL);
		h = sum(holey, HOLEY, h);
		h = sum(none, 16 * PAGE, h);
		h = sum(none + 32 * PAGE, 32 * PAGE, h);
		h = sum(ro, 32 * PAGE, h);
		for (i = 0; i < 5; i++)
			h = (h ^ huge[i * (HUGE / 5) + 12345]) * 1099511628211UL;
		for (i = 0; i < NSMALL; i++)
			h = sum(small[i], PAGE, h);
		h = sum(moved, 16 * PAGE, h);
		printf("step %d memory %016lx\n", step, h);
		busy(3000000);
	}
	mprotect(none + 16 * PAGE, 16 * PAGE, PROT_READ);
	h = sum(none, 64 * PAGE, 14695981039346656037UL);
	printf("PROT_NONE pages kept their data: %016lx\n", h);
	return 0;
}
