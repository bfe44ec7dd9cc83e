/*
 * config_fuzz_test.c: no configuration file, however written, crashes,
 * hangs or exhausts the reader, and every rejection says file:line.
 *
 * Deterministic: a fixed seed drives random files (bytes weighted toward
 * the syntax's own tokens) and mutations of etc/condor_config; then a set
 * of pathological macros (deep chains, cycles, exponential fan-out, 100k
 * "$(") must each fail or succeed within a time bound.  About two seconds;
 * CONFIG_FUZZ_ITERATIONS sets the count (lower it under valgrind).
 *
 * checks: 42
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "log.h"
#include "test.h"
#include "xalloc.h"

#define DEFAULT_ITERATIONS	6000
#define TIME_BOUND		1.0	/* seconds, for any one case */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t
rng(void)
{
	/* xorshift64*: small, fast, and the same everywhere. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 2685821657736338717ull) >> 32);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *tokens[] = {
	"$(", ")", "(", ":", "=", " = ", " : ", "\\\n", "\\", "\n", "\n",
	"\n", "#", " ", "\t", "\r\n", "$ENV(", "HOME", "$(MINUTE)", "MINUTE",
	"START", "A", "B", "C", "a.b", "_", "$(A)", "$(B)", "$(C:", "$(X:d)",
	"$", "$$", "TRUE", "15 * ", "&&", "||", "\"", "'", "\0", "\xff",
	"LOCAL_CONFIG_FILE", "0", "9", "-", "!", ".",
};

static void
random_text(struct buf *b)
{
	size_t n = rng() % 200, i, len;
	const char *t;
	char c;

	for (i = 0; i < n; i++) {
		if (rng() % 4 == 0) {
			c = (char)(rng() & 0xff);
			buf_add(b, &c, 1);
			continue;
		}
		t = tokens[rng() % (sizeof(tokens) / sizeof(tokens[0]))];
		len = t[0] == '\0' ? 1 : strlen(t);
		buf_add(b, t, len);
	}
}

static void
mutate(struct buf *b, const char *base, size_t blen)
{
	size_t n = 1 + rng() % 8, i, at, len;

	buf_add(b, base, blen);
	for (i = 0; i < n && b->len > 0; i++) {
		at = rng() % b->len;
		switch (rng() % 5) {
		case 0:		/* flip a byte */
			b->data[at] = (char)(rng() & 0xff);
			break;
		case 1:		/* delete a span */
			len = rng() % 64;
			if (len > b->len - at)
				len = b->len - at;
			memmove(b->data + at, b->data + at + len,
			    b->len - at - len + 1);
			b->len -= len;
			break;
		case 2:		/* insert a token */
		{
			const char *t = tokens[rng() %
			    (sizeof(tokens) / sizeof(tokens[0]))];
			struct buf nb;

			buf_init(&nb);
			buf_add(&nb, b->data, at);
			buf_add(&nb, t, t[0] == '\0' ? 1 : strlen(t));
			buf_add(&nb, b->data + at, b->len - at);
			buf_free(b);
			*b = nb;
			break;
		}
		case 3:		/* duplicate a span at the end */
			len = rng() % 256;
			if (len > b->len - at)
				len = b->len - at;
			{
				/* Copied first: buf_add may move the data. */
				char *span = xmalloc(len + 1);

				memcpy(span, b->data + at, len);
				buf_add(b, span, len);
				free(span);
			}
			break;
		default:	/* truncate */
			b->len = at;
			b->data[at] = '\0';
			break;
		}
	}
}

static void
write_file(const char *path, const char *data, size_t len)
{
	FILE *fp;

	if ((fp = fopen(path, "w")) == NULL) {
		perror(path);
		exit(2);
	}
	fwrite(data, 1, len, fp);
	fclose(fp);
}

static char *
slurp(const char *path, size_t *lenp)
{
	char chunk[8192], *text = NULL;
	size_t len = 0, n;
	FILE *fp;

	if ((fp = fopen(path, "r")) == NULL)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0) {
		text = xreallocarray(text, len + n + 1, 1);
		memcpy(text + len, chunk, n);
		len += n;
	}
	fclose(fp);
	*lenp = len;
	return text;
}

/* Feed random and mutated files; check each result is clean. */
static void
fuzz_files(const char *dir, long iterations)
{
	static const char *names[] = { "A", "B", "C", "START", "MINUTE",
	    "a.b", "X", "LOCAL_CONFIG_FILE", "StartIdleTime", "_" };
	char *path, *base, err[1024], label[128];
	int bad_msg = 0, slow = 0, rejected = 0;
	size_t blen = 0, plen;
	struct buf b;
	double t0, worst = 0;
	long i;
	FILE *devnull;

	base = slurp("etc/condor_config", &blen);
	CHECK("fuzz: etc/condor_config read", base != NULL);
	if (base == NULL)
		return;
	path = xasprintf("%s/fuzz.cf", dir);
	plen = strlen(path);
	devnull = fopen("/dev/null", "w");
	setenv("CONDOR_CONFIG", "/dev/null", 1);
	config_init(err, sizeof(err));
	for (i = 0; i < iterations; i++) {
		buf_init(&b);
		if (rng() % 2)
			random_text(&b);
		else
			mutate(&b, base, blen);
		write_file(path, b.data, b.len);
		t0 = now();
		err[0] = '\0';
		if (config_read_file(path, err, sizeof(err)) == -1) {
			rejected++;
			/* Every rejection names this file, with a line. */
			if (strncmp(err, path, plen) != 0 || err[plen] != ':') {
				if (bad_msg++ < 5)
					printf("  unclean message: %s\n", err);
			}
		}
		/* Whatever was accepted must answer every question. */
		param(names[rng() % 10]);
		param_int(names[rng() % 10], 0);
		param_bool(names[rng() % 10], 0);
		param_double(names[rng() % 10], 0);
		config_dump(devnull);
		if (now() - t0 > worst)
			worst = now() - t0;
		if (now() - t0 > TIME_BOUND)
			slow++;
		buf_free(&b);
		/* Start afresh now and then, and after each rejection,
		 * so that broken definitions do not pile up. */
		if (i % 16 == 15 || err[0] != '\0')
			config_init(err, sizeof(err));
	}
	snprintf(label, sizeof(label), "fuzz: %ld files, %d rejected, every "
	    "rejection names file:line", iterations, rejected);
	CHECK(label, bad_msg == 0);
	snprintf(label, sizeof(label), "fuzz: every file handled within "
	    "%.1f s (worst %.3f s)", TIME_BOUND, worst);
	CHECK(label, slow == 0);
	CHECK("fuzz: some files rejected, some accepted",
	    rejected > 0 && rejected < iterations);
	fclose(devnull);
	unlink(path);
	free(path);
	free(base);
}

/* config_set NAME to VALUE and time param(NAME) and config_expand. */
static void
pathological(const char *label, const char *name, int want_ok)
{
	char err[1024], l[256], *s;
	const char *v;
	double t0;

	t0 = now();
	v = param(name);
	snprintf(l, sizeof(l), "pathological: %s: param %s", label,
	    want_ok ? "succeeds" : "fails");
	CHECK(l, (v != NULL) == want_ok);
	s = xasprintf("$(%s)", name);
	err[0] = '\0';
	free(config_expand(s, err, sizeof(err)));
	free(s);
	snprintf(l, sizeof(l), "pathological: %s: within %.1f s", label,
	    TIME_BOUND);
	CHECK(l, now() - t0 < TIME_BOUND);
	if (!want_ok) {
		snprintf(l, sizeof(l), "pathological: %s: says why", label);
		CHECK(l, err[0] != '\0');
	}
}

static void
fuzz_expansion(void)
{
	char name[32], val[64], err[1024], *s;
	struct buf b;
	size_t i;
	double t0;

	setenv("CONDOR_CONFIG", "/dev/null", 1);
	config_init(err, sizeof(err));

	/* A chain of 100000 macros: far deeper than allowed. */
	for (i = 0; i < 100000; i++) {
		snprintf(name, sizeof(name), "CHAIN%zu", i);
		snprintf(val, sizeof(val), "$(CHAIN%zu)", i + 1);
		config_set(name, val, 0);
	}
	config_set("CHAIN100000", "end", 0);
	pathological("deep chain", "CHAIN0", 0);
	/* Within the bound, a chain works. */
	pathological("chain of 60", "CHAIN99940", 1);
	CHECK_STR("pathological: chain of 60 value", param("CHAIN99940"),
	    "end");

	config_set("SELF", "x$(SELF)", 0);
	pathological("self-reference", "SELF", 0);
	config_set("SELF_E", "$(SELF_E) && TRUE", 1);
	pathological("self-referring expression", "SELF_E", 0);
	config_set("LOOP1", "$(LOOP2)", 0);
	config_set("LOOP2", "$(LOOP3:$(LOOP1))", 0);
	pathological("cycle through a default", "LOOP1", 0);

	/* Exponential fan-out: 2^40 references, bounded by count. */
	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "FAN%zu", i);
		snprintf(val, sizeof(val), "$(FAN%zu)$(FAN%zu)", i + 1, i + 1);
		config_set(name, val, 0);
	}
	config_set("FAN40", "", 0);
	pathological("exponential fan-out", "FAN0", 0);
	/* ... and by length when each leaf is long. */
	buf_init(&b);
	for (i = 0; i < 4096; i++)
		buf_addc(&b, 'x');
	config_set("FAN40", b.data, 0);
	buf_free(&b);
	pathological("exponential length", "FAN0", 0);

	/* 100000 "$(" in a row: all literal text. */
	buf_init(&b);
	for (i = 0; i < 100000; i++)
		buf_adds(&b, "$(");
	config_set("OPENS", b.data, 0);
	pathological("100k unclosed $(", "OPENS", 1);
	CHECK("pathological: 100k $( kept as text",
	    param("OPENS") != NULL && strlen(param("OPENS")) == 200000);
	buf_reset(&b);
	for (i = 0; i < 100000; i++)
		buf_adds(&b, "$(X:");
	config_set("DEFAULTS", b.data, 0);
	pathological("100k unclosed $(X:", "DEFAULTS", 0);
	for (i = 0; i < 100000; i++)
		buf_addc(&b, ')');
	config_set("NESTED", b.data, 0);
	pathological("100k nested defaults", "NESTED", 0);
	buf_reset(&b);
	for (i = 0; i < 100000; i++)
		buf_adds(&b, "$ENV(");
	config_set("ENVS", b.data, 0);
	pathological("100k unclosed $ENV(", "ENVS", 0);
	buf_reset(&b);
	for (i = 0; i < 100000; i++)
		buf_adds(&b, "$(MINUTE)");
	config_set("MANY", b.data, 0);
	pathological("100k references", "MANY", 0);
	buf_free(&b);

	/* A file with one 1 MiB line, read over the defaults alone. */
	config_init(err, sizeof(err));
	t0 = now();
	buf_init(&b);
	buf_adds(&b, "BIG = ");
	for (i = 0; i < 1024 * 1024 / 4; i++)
		buf_adds(&b, "$(Q:");
	buf_adds(&b, "\n");
	s = xasprintf("/tmp/config_fuzz_big.%d", (int)getpid());
	write_file(s, b.data, b.len);
	buf_free(&b);
	CHECK("pathological: 1 MiB line of unclosed references is refused",
	    config_read_file(s, err, sizeof(err)) == -1 &&
	    strstr(err, "unterminated macro reference") != NULL);
	CHECK("pathological: 1 MiB line within bound",
	    now() - t0 < TIME_BOUND * 2);
	unlink(s);
	free(s);
}

int
main(int argc, char **argv)
{
	char tmpl[] = "/tmp/config_fuzz.XXXXXX";
	long iterations = DEFAULT_ITERATIONS;
	const char *e;
	double t0 = now();

	log_init(argv[0]);
	/* Rejected values are logged: keep them out of the test output. */
	if (log_open_file("/dev/null") == -1)
		perror("/dev/null");
	if ((e = getenv("CONFIG_FUZZ_ITERATIONS")) != NULL)
		iterations = atol(e);
	if (mkdtemp(tmpl) == NULL) {
		perror("mkdtemp");
		return 2;
	}
	setenv("HOME", tmpl, 1);
	fuzz_files(tmpl, iterations);
	fuzz_expansion();
	rmdir(tmpl);
	printf("# %.2f s\n", now() - t0);
	TEST_EXIT();
}
