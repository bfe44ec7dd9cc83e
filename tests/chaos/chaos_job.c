/*
 * chaos_job: the job of the chaos runs (tests/chaos/chaos.sh).  Prints
 * STEPS lines, each the next value of a hash chain seeded by TAG after
 * SPINS rounds of arithmetic, and sleeps MS milliseconds after each, so
 * that its output depends on nothing but its arguments: built natively
 * it says what the same job must have written under Condor however
 * often it was killed, checkpointed and moved.
 *
 *   chaos_job TAG STEPS SPINS MS [LOCKDIR]
 *
 * With LOCKDIR (vanilla jobs, whose system calls are the execute
 * host's) it holds an exclusive lock on the existing file
 * LOCKDIR/TAG.lock while it runs (opened read-only: the directory is
 * one of the job's read-only system directories); a second copy of the
 * same job that finds it taken says so on its standard error.  Every
 * host of a test pool shares the machine's files, so two copies running
 * at once anywhere are caught.
 */
#include <sys/file.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void
hold_lock(const char *dir, const char *tag)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s.lock", dir, tag);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		perror(path);
		exit(2);
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == -1)
		fprintf(stderr, "chaos_job: %s: another copy of this job holds "
		    "%s\n", tag, path);
	/* else held until we exit */
}

int
main(int argc, char **argv)
{
	struct timespec nap;
	uint64_t h = 1469598103934665603ULL;
	long steps, spins, ms, i, j;
	const char *p;

	if (argc < 5) {
		fprintf(stderr, "usage: chaos_job TAG STEPS SPINS MS [LOCKDIR]\n");
		return 2;
	}
	steps = atol(argv[2]);
	spins = atol(argv[3]);
	ms = atol(argv[4]);
	if (argc > 5)
		hold_lock(argv[5], argv[1]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (p = argv[1]; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	nap.tv_sec = ms / 1000;
	nap.tv_nsec = (ms % 1000) * 1000000L;
	for (i = 0; i < steps; i++) {
		for (j = 0; j < spins; j++)
			h = (h ^ (h >> 29)) * 6364136223846793005ULL +
			    1442695040888963407ULL;
		printf("%s step %ld %016llx\n", argv[1], i,
		    (unsigned long long)h);
		if (ms > 0)
			nanosleep(&nap, NULL);
	}
	printf("%s done\n", argv[1]);
	return 0;
}
