/*
 * fuzz_regex.c: libFuzzer target for the regular expressions of
 * src/util/regex.c.  The first byte chooses the options, the bytes up to
 * the first NUL are the pattern, the rest the subject.  A pattern that
 * compiles is searched from every offset of a short subject (from the
 * start of a long one), and substituted with every option; the spans
 * reported must lie inside the subject and be ordered, a search from a
 * match's start must find a match there, and a substitution's length
 * must be what it says.  A search may give up as too costly (-1) only
 * by backtracking (a pattern with a back-reference), and then the other
 * searches are skipped; so are they once the input has taken a second
 * (each backtracking search may take its whole budget without giving
 * up), to keep the run quick.  The pattern is also
 * compiled for the backtracking matcher (RX_BACKTRACK), which must agree
 * with the Pike VM on whether and where it matches, except where
 * regex_pcre.h says they differ (more than 16 loops that can match
 * empty: a pattern with more than 16 quantifiers is not compared), on
 * subjects of up to 12 bytes (where backtracking stays quick).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "regex_pcre.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Seconds since T0. */
static double
since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void
check_groups(const struct rx_match *m, size_t n, size_t start, size_t len)
{
	size_t i;

	if (m[0].so == RX_UNSET || m[0].so < start || m[0].so > m[0].eo ||
	    m[0].eo > len)
		abort();
	for (i = 1; i < n; i++) {
		if (m[i].so == RX_UNSET) {
			if (m[i].eo != RX_UNSET)
				abort();
			continue;
		}
		if (m[i].so > m[i].eo || m[i].eo > len)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int optsets[] = { 0, RX_GLOBAL, RX_FULL,
	    RX_FULL | RX_GLOBAL };
	struct rx_match m[10], again[10], first[10];
	const uint8_t *nul;
	const char *pat, *subj;
	size_t patlen, len, start, outlen, nmatch, i, nquant;
	struct rx *rx, *bt;
	char err[256], *out;
	int flags, r, r0;
	struct timespec t0;

	if (size < 1)
		return 0;
	flags = data[0] & (RX_CASELESS | RX_MULTILINE | RX_DOTALL |
	    RX_EXTENDED);
	pat = (const char *)data + 1;
	nul = memchr(data + 1, '\0', size - 1);
	patlen = nul != NULL ? (size_t)(nul - (data + 1)) : size - 1;
	subj = nul != NULL ? (const char *)nul + 1 : "";
	len = nul != NULL ? size - 1 - patlen - 1 : 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	rx = rx_compilen(pat, patlen, flags, err, sizeof(err));
	if (rx == NULL) {
		if (err[0] == '\0')
			abort();	/* a refusal always says why */
		return 0;
	}
	r0 = -2;
	for (start = 0; start <= len; start++) {
		r = rx_search(rx, subj, len, start, m, 10);
		if (start == 0) {
			r0 = r;
			memcpy(first, m, sizeof(first));
		}
		if (r < 0)
			break;		/* too costly: no more of those */
		if (r) {
			check_groups(m, 10, start, len);
			/* The leftmost match found from its own start. */
			if (rx_search(rx, subj, len, m[0].so, again, 1) == 0 &&
			    memmem(pat, patlen, "\\G", 2) == NULL)
				abort();
		}
		if (len > 64 || since(&t0) > 1)
			break;		/* keep long inputs quick */
	}
	for (i = 0; r0 >= 0 && i < sizeof(optsets) / sizeof(optsets[0]) &&
	    since(&t0) < 1; i++) {
		errno = 0;
		out = rx_subst(rx, subj, len, "<\\0|\\1\\>", optsets[i],
		    &outlen, &nmatch);
		if (out == NULL) {
			/* \1 is an error in a match without group 1. */
			if (errno == EINVAL && nmatch == 0)
				abort();
			if (errno != EINVAL && errno != ERANGE)
				abort();
			continue;
		}
		if (out[outlen] != '\0' ||
		    (nmatch == 0 && (optsets[i] & RX_FULL) &&
		    (outlen != len || memcmp(out, subj, len) != 0)))
			abort();
		free(out);
	}
	/* The backtracker agrees with the Pike VM. */
	for (i = 0, nquant = 0; i < patlen; i++)
		if (pat[i] == '*' || pat[i] == '+' || pat[i] == '{')
			nquant++;
	bt = rx_compilen(pat, patlen, flags | RX_BACKTRACK, err, sizeof(err));
	/* (It may exceed RX_MAX_PROG with its loop registers.) */
	if (bt != NULL && r0 >= 0 && nquant <= 16 && len <= 12 &&
	    since(&t0) < 1) {
		r = rx_search(bt, subj, len, 0, m, 1);
		if (r >= 0 && (r != r0 || (r && (m[0].so != first[0].so ||
		    m[0].eo != first[0].eo))))
			abort();
	}
	rx_free(bt);
	rx_free(rx);
	return 0;
}
