/*
 * demo_primes: the sample job of `make demo`.  Counts the primes below
 * N by trial division (CPU-bound, deterministic), printing a progress
 * line every STEP numbers and the total at the end.  Built natively and
 * relinked with condor_cc, it prints the same lines however often it is
 * checkpointed and restarted.
 *
 *   demo_primes [N [STEP]]
 */
#include <stdio.h>
#include <stdlib.h>

static int
is_prime(long n)
{
	long d;

	if (n < 2)
		return 0;
	for (d = 2; d * d <= n; d++)
		if (n % d == 0)
			return 0;
	return 1;
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 4000000;
	long step = argc > 2 ? atol(argv[2]) : 500000;
	long i, count = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < n; i++) {
		count += is_prime(i);
		if (step > 0 && (i + 1) % step == 0)
			printf("%ld numbers checked, %ld primes so far\n",
			    i + 1, count);
	}
	printf("%ld primes below %ld\n", count, n);
	return 0;
}
