/*
 * stdio: lines assembled from pieces with work in between, so that a
 * checkpoint lands in the middle of a line still in stdio's buffer (stdout
 * is a file: fully buffered).  Prints results, never timings.
 */
#include <stdio.h>

int
main(void)
{
	unsigned long x = 1;
	int line, f;
	long k;

	for (line = 0; line < 600; line++) {
		for (f = 0; f < 8; f++) {
			for (k = 0; k < 150000; k++)
				x = x * 6364136223846793005UL + 1442695040888963407UL;
			printf("%s%016lx", f ? " " : "", x);
			if (f == 3)
				fputs(" |", stdout);
		}
		putchar('\n');
		if (line % 37 == 0)
			fflush(stdout);
	}
	printf("stdio done %lx\n", x);
	return 0;
}
