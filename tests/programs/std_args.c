/*
 * std_args: prints its arguments, then counts slowly to 30 (a line per
 * tenth of a second), so that it can be checkpointed on the way.
 */
#include <stdio.h>
#include <time.h>

int
main(int argc, char **argv)
{
	struct timespec ts = { 0, 100000000 };
	int i;

	printf("argc %d:", argc);
	for (i = 1; i < argc; i++)
		printf(" [%s]", argv[i]);
	printf("\n");
	for (i = 0; i < 30; i++) {
		printf("count %d\n", i);
		fflush(stdout);
		nanosleep(&ts, NULL);
	}
	return 0;
}
