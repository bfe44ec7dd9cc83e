/*
 * std_rusage: computes in four equal steps and prints, after each, the
 * user CPU getrusage(RUSAGE_SELF) reports, in seconds.  Relinked, it
 * calls ckpt_and_exit() after steps 1 to 3: each step then runs in a
 * process of its own, and the times printed must still grow by a step's
 * worth each time (the library adds the earlier runs').  times() is
 * printed beside it, in seconds, and must grow the same way.
 *
 *	std_rusage [ITERATIONS]	(a step; default 100000000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/times.h>
#include <unistd.h>
#ifdef CONDOR_RELINKED
#include "condor_ckpt.h"
#endif

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000000, i;
	volatile double x = 1.0;
	struct rusage ru;
	struct tms t;
	int step;

	for (step = 1; step <= 4; step++) {
		for (i = 0; i < n; i++)
			x = x * 1.0000001 + 1e-9;
		if (getrusage(RUSAGE_SELF, &ru) == -1) {
			perror("getrusage");
			return 1;
		}
		if (times(&t) == (clock_t)-1) {
			perror("times");
			return 1;
		}
		printf("step %d user %.3f times %.2f\n", step,
		    (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		    (double)t.tms_utime / sysconf(_SC_CLK_TCK));
		fflush(stdout);
#ifdef CONDOR_RELINKED
		if (step <= 3)
			ckpt_and_exit();
#endif
	}
	return 0;
}
