/*
 * submit_fuzz_test: random and mutated job description files never crash
 * the parser, and every error names a line of the file ("f:LINE: ...",
 * LINE within the file) and queues nothing; every file accepted gives
 * proc ads whose attributes all parse.
 *
 * Deterministic: a fixed seed and a fixed number of cases (about two
 * seconds).  A hang is caught by tests/run's time limit, not here.
 *
 * checks: 4
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad.h"
#include "buf.h"
#include "submit.h"
#include "test.h"
#include "xalloc.h"

#define RANDOM_CASES	20000
#define MUTATED_CASES	30000

static uint64_t rng = 0x2c0d0004cafef00dULL;

static uint32_t
rnd(void)
{
	/* xorshift64*: fixed sequence on every machine. */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 0x2545F4914F6CDD1DULL) >> 32);
}

static const char *corpus[] = {
	"executable = /bin/true\nqueue\n",
	"# a job\nuniverse = vanilla\nexecutable = /bin/echo\n"
	"arguments = hello $(Process)\ninput = in.$(Process)\n"
	"output = out.$(Cluster).$(Process)\nerror = err.$(Process)\n"
	"log = job.log\nqueue 3\n",
	"executable = prog\nrequirements = Memory > 64 && Arch == \"X86_64\"\n"
	"rank = KFlops\npriority = 5\nnotification = Error\n"
	"notify_user = me@example.com\nimage_size = 2M\n+Group = \"a\"\n"
	"queue 2\narguments = second\nqueue\n",
	"N = 4\nA = $(N)$(N)\nexecutable = /bin/true\nenvironment = A=1;B=2\n"
	"getenv = false\ninitialdir = /tmp\nrootdir = /\narguments = $(A) \\\n"
	"  continued\nqueue $(N)\n",
	"Executable = /bin/sleep\nArguments = 10\nPreferences = Memory\n"
	"+Weight = 2 * $(Process)\nQueue 5\n",
	"executable = /bin/echo\narguments = \"a 'b c' \"\"d\"\" 'it''s'\"\n"
	"environment = \"A=1 B='x y'\"\nqueue 2\n",
};

/* Pieces that make the parser's paths interesting when spliced in. */
static const char *tokens[] = {
	"$(", ")", "$(Process)", "$(Cluster)", "$(N)", "$(A:x)", "$ENV(HOME)",
	"queue", "queue 2", "queue -1", "queue 100000", "\\\n", "\n", "=",
	"+", "+X = ", "#", "\"", "\\", "&&", "||", "(", "executable = ",
	"requirements = ", "arguments = ", "priority = ", "universe = ",
	"vanilla", "standard", "getenv = true", "\r\n", "\t", " ", "0",
	"-20", "99999999999999999999", "A = $(A)", "\0",
	"'", "''", "\"\"", "environment = \"", "arguments = \"'",
	"queue x in (", " in ", " from (", " matching ", ")", "$(Item)",
	"$(Step)", "$(Row)", "queue 2 a,b from (\n1 2\n)\n", "queue in (a b)",
	"$RANDOM_INTEGER(", "$RANDOM_CHOICE(", "$(OPSYS)", "request_cpus = ",
	"request_disk = ", "if defined X\n", "if $(N) > 1\n", "elif true\n",
	"else\n", "endif\n", "if\n", "include : /dev/null\n",
	"periodic_hold = ", "max_retries = ", "on_exit_remove = ",
};

static int
count_lines(const char *text, size_t len)
{
	int n = 1;
	size_t i;

	for (i = 0; i < len; i++)
		if (text[i] == '\n')
			n++;
	return n;
}

static int failures_shown;

static void
show(const char *why, const char *text, size_t len, const char *err)
{
	size_t i;

	if (failures_shown++ > 5)
		return;
	printf("    %s: error \"%s\"; input:\n    ", why, err);
	for (i = 0; i < len && i < 400; i++)
		if (text[i] == '\n')
			printf("\\n");
		else if (text[i] < 0x20 || text[i] == 0x7f)
			printf("\\x%02x", (unsigned char)text[i]);
		else
			putchar(text[i]);
	putchar('\n');
}

/* How many procs the last case queued, and its error if refused. */
static size_t last_nprocs;
static char last_err[1024];

/*
 * Parse one case; count what went wrong in the three counters.
 * Returns submit_parse's result: 0 accepted, -1 refused.
 */
static int
one(const char *text, size_t len, int *bad_err, int *bad_ok, int *cases)
{
	static char *env[] = { "HOME=/home/x", NULL };
	struct submit_env senv = { "/work", env, 0, NULL, NULL, NULL };
	struct submit_result res;
	struct ad *ad;
	char err[1024], *end;
	long line;
	int rc;

	(*cases)++;
	rc = submit_parse(text, len, "f", &senv, &res, err, sizeof(err));
	last_nprocs = res.nprocs;
	snprintf(last_err, sizeof(last_err), "%s", rc == -1 ? err : "");
	if (rc == -1) {
		if (strncmp(err, "f:", 2) != 0) {
			show("no file name", text, len, err);
			(*bad_err)++;
		} else {
			line = strtol(err + 2, &end, 10);
			if (strncmp(end, ": ", 2) != 0 || line < 1 ||
			    line > count_lines(text, len)) {
				show("bad line", text, len, err);
				(*bad_err)++;
			} else if (res.nprocs != 0) {
				show("queued on error", text, len, err);
				(*bad_err)++;
			}
		}
	} else {
		/* The first and the last proc: every attribute parses. */
		if (res.nprocs == 0 ||
		    (ad = submit_proc_ad(&res, 0, 12, err, sizeof(err))) ==
		    NULL) {
			show("accepted, bad ad", text, len, err);
			(*bad_ok)++;
		} else {
			ad_free(ad);
			ad = submit_proc_ad(&res, res.nprocs - 1, 12, err,
			    sizeof(err));
			if (ad == NULL) {
				show("accepted, bad last ad", text, len, err);
				(*bad_ok)++;
			}
			ad_free(ad);
		}
	}
	submit_result_free(&res);
	return rc;
}

static void
random_case(struct buf *b)
{
	size_t n = rnd() % 300, i;

	buf_reset(b);
	for (i = 0; i < n; i++) {
		if (rnd() % 4 == 0) {
			const char *t = tokens[rnd() % (sizeof(tokens) /
			    sizeof(tokens[0]))];

			buf_add(b, t, *t ? strlen(t) : 1);
		} else
			buf_addc(b, (int)(rnd() % 128));
	}
}

static void
mutated_case(struct buf *b)
{
	const char *src = corpus[rnd() % (sizeof(corpus) / sizeof(corpus[0]))];
	int k, edits = 1 + (int)(rnd() % 4);
	size_t pos, n;

	buf_reset(b);
	buf_adds(b, src);
	for (k = 0; k < edits; k++) {
		struct buf nb;

		pos = b->len ? rnd() % (b->len + 1) : 0;
		buf_init(&nb);
		buf_add(&nb, b->data, pos);
		switch (rnd() % 5) {
		case 0:		/* insert a token */
		{
			const char *t = tokens[rnd() % (sizeof(tokens) /
			    sizeof(tokens[0]))];

			buf_add(&nb, t, *t ? strlen(t) : 1);
			buf_add(&nb, b->data + pos, b->len - pos);
			break;
		}
		case 1:		/* delete a stretch */
			n = rnd() % 12;
			if (pos + n > b->len)
				n = b->len - pos;
			buf_add(&nb, b->data + pos + n, b->len - pos - n);
			break;
		case 2:		/* replace a byte */
			buf_addc(&nb, (int)(rnd() % 256));
			if (pos < b->len)
				buf_add(&nb, b->data + pos + 1,
				    b->len - pos - 1);
			break;
		case 3:		/* duplicate what follows */
			n = rnd() % 40;
			if (pos + n > b->len)
				n = b->len - pos;
			buf_add(&nb, b->data + pos, n);
			buf_add(&nb, b->data + pos, b->len - pos);
			break;
		default:	/* cut the file here */
			break;
		}
		buf_free(b);
		*b = nb;
	}
}

int
main(void)
{
	struct buf b;
	int i, rc, bad_err = 0, bad_ok = 0, cases = 0;

	buf_init(&b);
	for (i = 0; i < RANDOM_CASES; i++) {
		random_case(&b);
		one(b.data, b.len, &bad_err, &bad_ok, &cases);
	}
	for (i = 0; i < MUTATED_CASES; i++) {
		mutated_case(&b);
		one(b.data, b.len, &bad_err, &bad_ok, &cases);
	}
	buf_free(&b);
	CHECK("fuzz: every error names the file and a line of it",
	    bad_err == 0);
	CHECK("fuzz: every accepted file gives ads that parse", bad_ok == 0);

	/* A pathological file: many distinct macros, many queues. */
	buf_init(&b);
	for (i = 0; i < 20000; i++)
		buf_printf(&b, "M%d = $(M%d)x\n", i, i > 0 ? i - 1 : 0);
	buf_adds(&b, "executable = /bin/true\narguments = $(M19999)\nqueue\n");
	bad_err = bad_ok = cases = 0;
	rc = one(b.data, b.len, &bad_err, &bad_ok, &cases);
	CHECK("fuzz: deep macro chain fails with a line",
	    rc == -1 && bad_err == 0 && strstr(last_err, "nested") != NULL);
	buf_reset(&b);
	buf_adds(&b, "executable = /bin/true\n");
	for (i = 0; i < 50000; i++)
		buf_printf(&b, "arguments = %d\nqueue\n", i);
	rc = one(b.data, b.len, &bad_err, &bad_ok, &cases);
	CHECK("fuzz: 50000 queue statements queue 50000 procs",
	    rc == 0 && last_nprocs == 50000 && bad_err == 0 && bad_ok == 0);
	buf_free(&b);
	TEST_EXIT();
}
