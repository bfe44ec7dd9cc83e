/*
 * condor_advertise: send ads from a file to the collector, as if the
 * daemons they describe had sent them (administration, scale testing).
 * See condor_advertise(1).
 *
 * The whole file is read and checked before anything is sent: a file
 * with a bad line or an ad without a Name sends nothing.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad.h"
#include "buf.h"
#include "collector_client.h"
#include "config.h"
#include "daemon.h"
#include "log.h"
#include "rpcutil.h"
#include "xalloc.h"

#define PROG		"condor_advertise"
#define INPUT_MAX	(256 * 1024 * 1024)	/* bytes of ads read */
#define BATCH_ADS	1000			/* ads in one request */
/*
 * Bytes of encoded ads in one request.  libtirpc's client splits a
 * larger record into fragments, and its non-blocking server (ours)
 * mistakes the first fragment of such a record for the whole of it, so a
 * request must fit in one fragment (64 KiB by default).
 */
#define BATCH_BYTES	60000

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: " PROG " [-startd | -schedd | -master] "
	    "[-pool HOST:PORT] FILE\n"
	    "  FILE holds ads as \"Name = value\" lines, separated by blank "
	    "lines;\n"
	    "  \"-\" reads standard input.  Ads are sent as machine (startd) "
	    "ads\n"
	    "  unless -schedd or -master says otherwise.\n");
}

/* All of PATH ("-": standard input) as a string; dies on failure. */
static char *
read_input(const char *path)
{
	struct buf b;
	char chunk[65536];
	size_t r;
	FILE *fp;

	if (strcmp(path, "-") == 0)
		fp = stdin;
	else if ((fp = fopen(path, "r")) == NULL)
		fatalx("%s: %s", path, strerror(errno));
	buf_init(&b);
	while ((r = fread(chunk, 1, sizeof(chunk), fp)) > 0) {
		if (b.len + r > INPUT_MAX)
			fatalx("%s: larger than %d MiB", path,
			    INPUT_MAX / (1024 * 1024));
		if (memchr(chunk, '\0', r) != NULL)
			fatalx("%s: not a text file (it holds a NUL byte)",
			    path);
		buf_add(&b, chunk, r);
	}
	if (ferror(fp))
		fatalx("%s: %s", path, strerror(errno));
	if (fp != stdin)
		fclose(fp);
	return buf_release(&b);
}

/* The size of AD on the wire. */
static size_t
ad_wire_size(const struct ad *ad)
{
	ad_x x;
	size_t n;

	memset(&x, 0, sizeof(x));
	ad_to_xdr(ad, &x);
	n = xdr_sizeof((xdrproc_t)xdr_ad_x, &x);
	ad_x_free(&x);
	return n;
}

/*
 * The line on which each ad of TEXT starts, read the way ad_parse_text
 * reads it: an ad starts at the first line that is neither blank nor a
 * comment after a blank line (or the start).  Returns how many ads; the
 * array is allocated.
 */
static size_t
ad_start_lines(const char *text, size_t **linesp)
{
	const char *p = text, *s, *nl;
	size_t *lines = NULL, n = 0, cap = 0, lineno = 0;
	int in_ad = 0;

	for (; *p != '\0'; p = *nl ? nl + 1 : nl) {
		lineno++;
		nl = p + strcspn(p, "\n");
		s = p + strspn(p, " \t\f\v\r");
		if (s == nl) {
			in_ad = 0;
			continue;
		}
		if (*s == '#' || in_ad)
			continue;
		in_ad = 1;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			lines = xreallocarray(lines, cap, sizeof(*lines));
		}
		lines[n++] = lineno;
	}
	*linesp = lines;
	return n;
}

int
main(int argc, char **argv)
{
	struct ad **ads;
	struct sockaddr_in sin;
	const char *path = NULL, *pool = NULL, *collector;
	char err[1024], *text, *name;
	size_t *lines, nstart, i, first, bytes, size, sent = 0, failed = 0;
	int adtype = ADTYPE_STARTD, n, bad = 0;

	common_init(argv[0]);
	/* A collector that hangs up must give an error, not kill us. */
	signal(SIGPIPE, SIG_IGN);
	for (i = 1; i < (size_t)argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "-h") == 0 || strcmp(a, "-help") == 0 ||
		    strcmp(a, "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(a, "-startd") == 0) {
			adtype = ADTYPE_STARTD;
		} else if (strcmp(a, "-schedd") == 0) {
			adtype = ADTYPE_SCHEDD;
		} else if (strcmp(a, "-master") == 0) {
			adtype = ADTYPE_MASTER;
		} else if (strcmp(a, "-pool") == 0) {
			if (++i >= (size_t)argc)
				fatalx("-pool needs HOST:PORT");
			pool = argv[i];
		} else if (a[0] == '-' && a[1] != '\0') {
			fprintf(stderr, PROG ": unknown option %s\n", a);
			usage(stderr);
			return 1;
		} else if (path == NULL)
			path = a;
		else {
			fprintf(stderr, PROG ": one FILE only\n");
			usage(stderr);
			return 1;
		}
	}
	if (path == NULL) {
		usage(stderr);
		return 1;
	}
	if (pool != NULL) {
		if (addr_parse(pool, &sin) == -1)
			fatalx("-pool: \"%s\" is not HOST:PORT", pool);
		config_set("COLLECTOR_HOST", pool, 0);
	}

	text = read_input(path);
	nstart = ad_start_lines(text, &lines);
	if (nstart > (size_t)1 << 30)
		fatalx("%s: too many ads", path);
	ads = xcalloc(nstart + 1, sizeof(*ads));
	n = ad_parse_text(text, ads, (int)nstart + 1, err, sizeof(err));
	free(text);
	if (n == -1)
		fatalx("%s: %s", path, err);
	if ((size_t)n != nstart)	/* ad.c reads differently: no lines */
		nstart = 0;

	for (i = 0; i < (size_t)n; i++) {
		if (ad_get_string(ads[i], "Name", &name) == 0 &&
		    *name != '\0') {
			free(name);
			continue;
		}
		if (ad_get_string(ads[i], "Name", &name) == 0)
			free(name);
		if (nstart > 0)
			fprintf(stderr, PROG ": %s: line %zu: the ad has no "
			    "Name (a string)\n", path, lines[i]);
		else
			fprintf(stderr, PROG ": %s: ad %zu has no Name "
			    "(a string)\n", path, i + 1);
		bad++;
	}
	if (bad > 0)
		fatalx("%s: nothing sent", path);

	collector = param("COLLECTOR_HOST") ? param("COLLECTOR_HOST") : "?";
	/* Batches bounded in count and in size (BATCH_BYTES). */
	for (first = 0; first < (size_t)n; first = i) {
		bytes = 0;
		for (i = first; i < (size_t)n && i - first < BATCH_ADS; i++) {
			size = ad_wire_size(ads[i]);
			if (i > first && bytes + size > BATCH_BYTES)
				break;
			bytes += size;
		}
		if (collector_update_many(adtype, ads + first, i - first, err,
		    sizeof(err)) == -1) {
			if (nstart > 0)
				fprintf(stderr, PROG ": cannot send the ads "
				    "of lines %zu to %zu to the collector at "
				    "%s: %s\n", lines[first],
				    i < nstart ? lines[i] - 1 : lines[i - 1],
				    collector, err);
			else
				fprintf(stderr, PROG ": cannot send ads %zu to "
				    "%zu to the collector at %s: %s\n",
				    first + 1, i, collector, err);
			failed += i - first;
		} else
			sent += i - first;
	}
	collector_free_ads(ads, n);
	free(lines);

	signal(SIGPIPE, SIG_DFL);
	printf("%zu ads sent\n", sent);
	return failed > 0 ? 1 : 0;
}
