/*
 * api: the calls of condor_ckpt.h and the checkpoints that must be
 * refused.
 *
 *	api ckpt      ckpt() returns 0, then a second, larger checkpoint
 *	              fails (the driver sets a file size limit) and returns
 *	              -1; resumed from the first, ckpt() returns 1
 *	api unlinked  an open file that was deleted: ckpt() refuses
 *	api threads   a second thread, asleep: ckpt() takes the checkpoint
 *	              (every thread stopped, then let go), the thread joins
 *	api environ   the environment as the program sees it (also built
 *	              natively: the start-up code must leave no trace)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef CONDOR_RELINKED
#include "condor_ckpt.h"
#endif

extern char **environ;

static void *
sleeper(void *arg)
{
	sleep(1);
	return arg;
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int r = 0;

	if (strcmp(mode, "environ") == 0) {
		char **e;
		int n = 0;

		for (e = environ; *e != NULL; e++)
			n++;
		printf("%d variables, GLIBC_TUNABLES %s, CONDOR_RT0_REEXEC %s\n",
		    n, getenv("GLIBC_TUNABLES") ? getenv("GLIBC_TUNABLES") :
		    "unset", getenv("CONDOR_RT0_REEXEC") ? "set" : "unset");
		return 0;
	}
#ifdef CONDOR_RELINKED
	if (strcmp(mode, "ckpt") == 0) {
		char *p;

		r = ckpt();
		printf("ckpt returned %d\n", r);
		if (r == 1) {
			printf("resumed from the first checkpoint\n");
			return 0;
		}
		p = malloc(64 << 20);
		memset(p, 1, 64 << 20);
		__asm__ volatile("" : : "r"(p) : "memory");	/* keep it */
		r = ckpt();
		printf("second ckpt returned %d\n", r);
		return p[12345] != 1;
	}
	if (strcmp(mode, "unlinked") == 0) {
		FILE *f = tmpfile();

		fputs("scratch", f);
		fflush(f);
		r = ckpt();
		printf("ckpt with a deleted open file returned %d\n", r);
		fclose(f);
		r = ckpt();
		printf("ckpt once it is closed returned %d\n", r);
		return 0;
	}
	if (strcmp(mode, "threads") == 0) {
		pthread_t t;

		void *ret = NULL;

		pthread_create(&t, NULL, sleeper, &r);
		r = ckpt();
		printf("ckpt with two threads returned %d\n", r);
		if (pthread_join(t, &ret) == 0 && ret == &r)
			printf("the second thread joined\n");
		return 0;
	}
#endif
	(void)r;
	return 2;
}
