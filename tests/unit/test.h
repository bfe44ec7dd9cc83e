/*
 * test.h: a tiny table-friendly unit test harness.  Each check prints
 * "PASS name" or "FAIL name: why", or "SKIP name: why" when it cannot
 * run here; tests/run counts the lines against the "checks: N" comment
 * each test file carries.  Each line is flushed at once, so that what a
 * test writes to stderr (the same file under tests/run) never lands in
 * the middle of one.
 */
#ifndef CONDOR_TEST_H
#define CONDOR_TEST_H

#include <stdio.h>
#include <string.h>

static int test_failures;

#define CHECK(name, cond) do {						\
	if (cond)							\
		printf("PASS %s\n", (name));				\
	else {								\
		printf("FAIL %s: %s (%s:%d)\n", (name), #cond,		\
		    __FILE__, __LINE__);				\
		test_failures++;					\
	}								\
	fflush(stdout);							\
} while (0)

#define CHECK_STR(name, got, want) do {					\
	const char *g_ = (got), *w_ = (want);				\
	if (g_ != NULL && w_ != NULL && strcmp(g_, w_) == 0)		\
		printf("PASS %s\n", (name));				\
	else {								\
		printf("FAIL %s: got \"%s\", want \"%s\" (%s:%d)\n",	\
		    (name), g_ ? g_ : "(null)", w_ ? w_ : "(null)",	\
		    __FILE__, __LINE__);				\
		test_failures++;					\
	}								\
	fflush(stdout);							\
} while (0)

/* A check that cannot run here (not root, say): REASON says why. */
#define SKIP(name, reason) do {					\
	printf("SKIP %s: %s\n", (name), (reason));			\
	fflush(stdout);							\
} while (0)

#define TEST_EXIT()	return test_failures ? 1 : 0

#endif
