/*
 * threads.c: a pthreads program for the checkpoint suite
 * (threads_suite.sh).  Its output depends only on its arguments, never
 * on how the threads were scheduled, so a run checkpointed and restarted
 * at any moment must print what the native run prints.
 *
 *	threads compute N PHASES WORK
 *		each phase: N threads made, each hashes WORK rounds seeded by
 *		(phase, its index), joined; the main thread prints the
 *		phase's results.  Threads made and joined on both sides of
 *		every restart.  With THREADS_SELF_CKPT=1 in the environment
 *		thread 1 calls ckpt() itself in phases 2, 7, 12 and 17 (a
 *		checkpoint taken by a thread other than the main one; the
 *		native build has no ckpt() and skips it).
 *	threads sync N PHASES WORK
 *		N threads for the whole run (N even): each phase, every
 *		thread adds to a counter under one recursive mutex (taken
 *		twice) WORK times; half of them push WORK values through a
 *		queue of four slots (an error-checking mutex and condition
 *		variables not_full/not_empty) to the other half,
 *		who wait with pthread_cond_timedwait; all meet the main
 *		thread at a barrier made of a mutex and a condition
 *		variable, the main thread prints the counter and the sum
 *		received and checks every thread with pthread_kill(t, 0)
 *		(the thread ids a restart changes), and they meet again.
 */
#define _GNU_SOURCE	/* the recursive and error-checking initializers */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int	nthreads, nphases, self_ckpt;
static long	work;

/* The checkpoint library's (condor_ckpt.h), in the relinked build only. */
extern int	ckpt(void) __attribute__((weak));

static uint64_t
mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* ---------------------------------------------------------------- */

struct job {
	int		phase, index;
	uint64_t	result;
};

static void *
compute(void *arg)
{
	struct job *j = arg;
	uint64_t h = (uint64_t)j->phase << 32 | (uint64_t)j->index;
	long i;

	for (i = 0; i < work; i++) {
		h = mix(h + (uint64_t)i);
		if (i == work / 2 && self_ckpt && j->index == 1 &&
		    j->phase % 5 == 2 && ckpt != NULL && ckpt() < 0) {
			fprintf(stderr, "ckpt() failed\n");
			exit(1);
		}
	}
	j->result = h;
	return j;
}

static int
run_compute(void)
{
	pthread_t *t = calloc((size_t)nthreads, sizeof(*t));
	struct job *jobs = calloc((size_t)nthreads, sizeof(*jobs));
	uint64_t sum;
	void *ret;
	int p, i;

	if (t == NULL || jobs == NULL)
		return 1;
	for (p = 0; p < nphases; p++) {
		for (i = 0; i < nthreads; i++) {
			jobs[i].phase = p;
			jobs[i].index = i;
			if (pthread_create(&t[i], NULL, compute, &jobs[i]) != 0) {
				fprintf(stderr, "pthread_create failed\n");
				return 1;
			}
		}
		sum = 0;
		for (i = 0; i < nthreads; i++) {
			if (pthread_join(t[i], &ret) != 0 || ret != &jobs[i]) {
				fprintf(stderr, "pthread_join failed\n");
				return 1;
			}
			sum = mix(sum ^ jobs[i].result);
		}
		printf("phase %d: %016llx", p, (unsigned long long)sum);
		for (i = 0; i < nthreads && i < 4; i++)
			printf(" %016llx", (unsigned long long)jobs[i].result);
		printf("\n");
		fflush(stdout);
	}
	free(t);
	free(jobs);
	return 0;
}

/* ---------------------------------------------------------------- */

/* Recursive and error-checking: their owner is a thread id, which a
 * restart must keep as the program knows it (unlock checks it). */
static pthread_mutex_t	count_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static uint64_t		counter;

#define QLEN	4
static pthread_mutex_t	q_lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static pthread_cond_t	q_not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t	q_not_empty = PTHREAD_COND_INITIALIZER;
static uint64_t		q[QLEN];
static int		q_head, q_n;
static uint64_t		received;	/* under q_lock */

static pthread_mutex_t	bar_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t	bar_cond = PTHREAD_COND_INITIALIZER;
static int		bar_count;
static unsigned		bar_gen;

static void
unlock(pthread_mutex_t *m, const char *what)
{
	int r;

	if ((r = pthread_mutex_unlock(m)) != 0) {
		fprintf(stderr, "unlock %s: %s\n", what, strerror(r));
		exit(1);
	}
}

static void
barrier(void)
{
	unsigned gen;

	pthread_mutex_lock(&bar_lock);
	gen = bar_gen;
	if (++bar_count == nthreads + 1) {
		bar_count = 0;
		bar_gen++;
		pthread_cond_broadcast(&bar_cond);
	} else
		while (gen == bar_gen)
			pthread_cond_wait(&bar_cond, &bar_lock);
	pthread_mutex_unlock(&bar_lock);
}

static void
push(uint64_t v)
{
	pthread_mutex_lock(&q_lock);
	while (q_n == QLEN)
		pthread_cond_wait(&q_not_full, &q_lock);
	q[(q_head + q_n) % QLEN] = v;
	q_n++;
	pthread_cond_signal(&q_not_empty);
	unlock(&q_lock, "queue");
}

static void
pop(void)
{
	struct timespec ts;

	pthread_mutex_lock(&q_lock);
	while (q_n == 0) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 20 * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		int r = pthread_cond_timedwait(&q_not_empty, &q_lock, &ts);
		if (r != 0 && r != ETIMEDOUT) {
			fprintf(stderr, "pthread_cond_timedwait: %s\n",
			    strerror(r));
			exit(1);
		}
	}
	received += q[q_head];
	q_head = (q_head + 1) % QLEN;
	q_n--;
	pthread_cond_signal(&q_not_full);
	unlock(&q_lock, "queue");
}

static void *
worker(void *arg)
{
	int index = (int)(intptr_t)arg, p;
	long i;
	uint64_t h;

	for (p = 0; p < nphases; p++) {
		h = (uint64_t)p << 32 | (uint64_t)index;
		for (i = 0; i < work; i++) {
			h = mix(h + (uint64_t)i);
			pthread_mutex_lock(&count_lock);
			pthread_mutex_lock(&count_lock);
			counter += h & 0xffff;
			unlock(&count_lock, "counter");
			unlock(&count_lock, "counter");
			if (index % 2 == 0)
				push(h >> 48);
			else
				pop();
		}
		barrier();	/* the phase is done */
		barrier();	/* the main thread has printed it */
	}
	return NULL;
}

static int
run_sync(void)
{
	pthread_t *t = calloc((size_t)nthreads, sizeof(*t));
	int p, i, r;

	if (t == NULL || nthreads % 2 != 0)
		return 1;
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i)) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	for (p = 0; p < nphases; p++) {
		barrier();
		for (i = 0; i < nthreads; i++)
			if ((r = pthread_kill(t[i], 0)) != 0) {
				fprintf(stderr, "pthread_kill(thread %d, 0): "
				    "%s\n", i, strerror(r));
				return 1;
			}
		pthread_mutex_lock(&count_lock);
		pthread_mutex_lock(&q_lock);
		printf("phase %d: counter %llu received %llu\n", p,
		    (unsigned long long)counter,
		    (unsigned long long)received);
		pthread_mutex_unlock(&q_lock);
		pthread_mutex_unlock(&count_lock);
		fflush(stdout);
		barrier();
	}
	for (i = 0; i < nthreads; i++)
		if (pthread_join(t[i], NULL) != 0) {
			fprintf(stderr, "pthread_join failed\n");
			return 1;
		}
	free(t);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: threads compute|sync N PHASES WORK\n");
		return 2;
	}
	nthreads = atoi(argv[2]);
	nphases = atoi(argv[3]);
	work = atol(argv[4]);
	self_ckpt = getenv("THREADS_SELF_CKPT") != NULL &&
	    strcmp(getenv("THREADS_SELF_CKPT"), "1") == 0;
	if (nthreads < 1 || nthreads > 1000 || nphases < 1 || work < 1)
		return 2;
	if (strcmp(argv[1], "compute") == 0)
		return run_compute();
	if (strcmp(argv[1], "sync") == 0)
		return run_sync();
	return 2;
}
