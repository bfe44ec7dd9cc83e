/*
 * submit_fuzz_test: random and mutated job description files never crash
 * the parser, and every error names a line of the file ("f:LINE: ...",
 * LINE within the file) and queues nothing; every file accepted gives
 * proc ads whose attributes all parse.
 *
 * Deterministic: a fixed seed and a fixed number of cases (about two
 * seconds).  A hang is caught by tests/run's time limit, not here.
 *
 * checks: 24
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
#define CONDITIONAL_CASES	5000
#define MACRO_CASES	5000

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
	/* The queue forms. */
	"universe = vanilla\nexecutable = /bin/echo\narguments = $(x) $(Step)"
	" $(Row) $(ItemIndex)\nqueue 2 x in (a b, c)\nqueue x in [1:3] (\n"
	"  p\n  q\n  r\n)\nqueue input,arguments from (\n  f1, -a 1\n"
	"  f2, -b 2\n)\nqueue a,b from [::2] (\n1 2\n3 4\n5 6\n)\n",
	"executable = /bin/true\narguments = $Fnx(f) $Fp(f) $Fqa(f) "
	"$BASENAME(f) $DIRNAME(f)\nqueue f matching files (\n  /dev/nu*\n"
	"  /etc/host*\n)\nqueue d matching dirs /tm?\nqueue 0\n",
	/* Conditionals, nested. */
	"N = 3\nexecutable = /bin/true\nif defined N\n if $(N) > 2\n"
	"  arguments = a\n elif $(N) > 1\n  arguments = b\n else\n"
	"  if !defined M\n   arguments = c\n  endif\n endif\nelif yes\n"
	"arguments = d\nelse\narguments = e\nendif\nif $(E:)\nqueue 9\n"
	"endif\nqueue\n",
	/* Macros: self-referencing, defaults, the environment, random. */
	"A = a\nA = $(A)$(A)\nA = $(A:z)$(A)\nB = $(C:$(A))\nC = $(B)\n"
	"executable = /bin/true\narguments = $(A) $(B:b) $ENV(HOME) "
	"$ENV(NONE:n) $RANDOM_INTEGER(1, 9, 2) $RANDOM_CHOICE(x, y) "
	"$INT(N, %03d) $$(Machine) $$([1 + 2])\nN = $(Process) * 7\n"
	"queue 3\n",
	"executable = /bin/true\ninclude : /dev/null\nInclude:/dev/null\n"
	"requirements = regexp(\"^a\", Name) && stringListMember(\"x\", L)"
	"\nqueue\n",
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
	"$Fnx(", "$Fpdnxbqafw(", "$BASENAME(", "$INT(", "$INT(N, %05x)",
	"$INT(N, %n)", "$$(", "$$([", "]", "[", "[1:2]", "[::0]", "[-1:]",
	"$(A)", "A = $(A)$(A)\n", "$(A:$(B))", "$ENV(X:", "elif $(E:)\n",
	"if !defined A\n", "queue x matching (", "queue input from (\n",
	"initial_dir = ", "$$", "Include:", "$RANDOM_INTEGER(1,2,0)",
	"$RANDOM_INTEGER(-9223372036854775808, 9223372036854775807)",
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
/* Where relative names start: a directory of include files. */
static const char *fuzz_cwd = "/work";

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
	struct submit_env senv = { NULL, env, 0, NULL, NULL, NULL, 0 };
	struct submit_result res;
	struct ad *ad;
	char err[1024], *end;
	long line;
	int rc;

	(*cases)++;
	senv.cwd = fuzz_cwd;
	rc = submit_parse(text, len, "f", &senv, &res, err, sizeof(err));
	last_nprocs = res.nprocs;
	snprintf(last_err, sizeof(last_err), "%s", rc == -1 ? err : "");
	if (rc == -1) {
		if (strncmp(err, "f:", 2) != 0 && memmem(text, len, "nclude",
		    6) != NULL) {
			/* An error in an included file names that file. */
		} else if (strncmp(err, "f:", 2) != 0) {
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

/* Random if/elif/else/endif lines, mostly well nested, with settings
 * and queue statements between them. */
static void
conditional_case(struct buf *b)
{
	static const char *conds[] = { "defined A", "!defined A", "true",
	    "false", "$(A:0)", "$(N) > 2", "yes", "", "$(E:)", "1 +",
	    "defined", "$(Process)" };
	int depth = 0, i, n = 1 + (int)(rnd() % 60);

	buf_reset(b);
	buf_adds(b, "N = 3\nexecutable = /bin/true\n");
	for (i = 0; i < n; i++) {
		switch (rnd() % 8) {
		case 0:
		case 1:
			buf_printf(b, "%*sif %s\n", depth, "",
			    conds[rnd() % (sizeof(conds) / sizeof(conds[0]))]);
			depth++;
			break;
		case 2:
			buf_printf(b, "%*selif %s\n", depth, "",
			    conds[rnd() % (sizeof(conds) / sizeof(conds[0]))]);
			break;
		case 3:
			buf_printf(b, "%*selse\n", depth, "");
			break;
		case 4:
		case 5:
			if (depth > 0 || rnd() % 20 == 0) {
				buf_printf(b, "%*sendif\n", depth, "");
				depth = depth > 0 ? depth - 1 : 0;
			}
			break;
		case 6:
			buf_printf(b, "A = %u\narguments = $(A)\n", rnd() % 3);
			break;
		default:
			buf_adds(b, rnd() % 2 ? "queue\n" : "queue 2 in (a b)\n");
			break;
		}
	}
	while (depth-- > 0 && rnd() % 8 != 0)
		buf_adds(b, "endif\n");
	buf_adds(b, "queue\n");
}

/* Macro definitions that name each other, themselves, defaults and the
 * environment at random. */
static void
macro_case(struct buf *b)
{
	int i, n = 1 + (int)(rnd() % 30);

	buf_reset(b);
	for (i = 0; i < n; i++) {
		unsigned a = rnd() % 6, c = rnd() % 6;

		switch (rnd() % 6) {
		case 0:
			buf_printf(b, "M%u = $(M%u)x\n", a, a);
			break;
		case 1:
			buf_printf(b, "M%u = $(M%u)$(M%u:d)\n", a, c, a);
			break;
		case 2:
			buf_printf(b, "M%u = $(M%u:$(M%u))\n", a, c, a);
			break;
		case 3:
			buf_printf(b, "M%u = $ENV(HOME:h)$ENV(M%u:e)\n", a, c);
			break;
		case 4:
			buf_printf(b, "M%u = $RANDOM_INTEGER(0, %u) $INT(M%u)\n",
			    a, c, c);
			break;
		default:
			buf_printf(b, "M%u = %u\n", a, c);
			break;
		}
	}
	buf_printf(b, "executable = /bin/true\narguments = $(M%u:none) "
	    "$(M%u:none)\nqueue\n", rnd() % 6, rnd() % 6);
}

static void
write_text(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	if (f == NULL) {
		perror(path);
		exit(1);
	}
	fwrite(text, 1, len, f);
	fclose(f);
}

/* The error of parsing TEXT in DIR (which it includes from); -1, 0. */
static int
parse_in(const char *dir, const char *text, size_t len, size_t *nprocs,
    char *err, size_t errlen)
{
	static char *env[] = { "HOME=/home/x", NULL };
	struct submit_env senv = { dir, env, 0, NULL, NULL, NULL, 0 };
	struct submit_result res;
	int rc;

	rc = submit_parse(text, len, "f", &senv, &res, err, errlen);
	*nprocs = res.nprocs;
	submit_result_free(&res);
	return rc;
}

/* Includes: a chain as deep as allowed, one deeper, a loop, a file
 * including itself through many names, and what is not a file. */
static void
check_includes(void)
{
	char dir[] = "/tmp/submit_fuzz.XXXXXX", path[128], text[256];
	char err[1024], want[256];
	size_t np;
	int i, rc;

	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		exit(1);
	}
	for (i = 1; i <= 9; i++) {
		snprintf(path, sizeof(path), "%s/d%d.inc", dir, i);
		if (i < 9)
			snprintf(text, sizeof(text), "A%d = %d\ninclude : "
			    "d%d.inc\n", i, i, i + 1);
		else
			snprintf(text, sizeof(text), "A9 = 9\n");
		write_text(path, text, strlen(text));
	}
	/* d2..d9 is 8 deep; d1..d9 is 9. */
	snprintf(text, sizeof(text), "include : d2.inc\nexecutable = "
	    "/bin/true\narguments = $(A2)$(A3)$(A4)$(A5)$(A6)$(A7)$(A8)"
	    "$(A9)\nqueue\n");
	rc = parse_in(dir, text, strlen(text), &np, err, sizeof(err));
	CHECK("fuzz: includes 8 deep are read", rc == 0 && np == 1);
	if (rc != 0)
		printf("    error: %s\n", err);
	snprintf(text, sizeof(text), "include : d1.inc\nexecutable = "
	    "/bin/true\narguments = $(A1)$(A9)\nqueue\n");
	rc = parse_in(dir, text, strlen(text), &np, err, sizeof(err));
	snprintf(want, sizeof(want), "%s/d8.inc:2: include nested", dir);
	CHECK("fuzz: includes 9 deep fail, naming the file and line",
	    rc == -1 && np == 0 && strncmp(err, want, strlen(want)) == 0);
	snprintf(path, sizeof(path), "%s/self.inc", dir);
	snprintf(text, sizeof(text), "include : self.inc\ninclude : "
	    "./self.inc\n");
	write_text(path, text, strlen(text));
	snprintf(text, sizeof(text), "executable = /bin/true\ninclude : "
	    "self.inc\nqueue\n");
	rc = parse_in(dir, text, strlen(text), &np, err, sizeof(err));
	CHECK("fuzz: a file that includes itself fails, queues nothing",
	    rc == -1 && np == 0 && strstr(err, "include nested") != NULL);
	/* A wide tree: each level includes the next twice; the count of
	 * files read is bounded before the time it would take. */
	for (i = 1; i <= 8; i++) {
		snprintf(path, sizeof(path), "%s/w%d.inc", dir, i);
		snprintf(text, sizeof(text), "include : w%d.inc\ninclude : "
		    "w%d.inc\n", i + 1, i + 1);
		write_text(path, text, strlen(text));
	}
	snprintf(path, sizeof(path), "%s/w9.inc", dir);
	write_text(path, "X = 1\n", 6);
	snprintf(text, sizeof(text), "executable = /bin/true\ninclude : "
	    "w2.inc\narguments = $(X)\nqueue\n");
	rc = parse_in(dir, text, strlen(text), &np, err, sizeof(err));
	CHECK("fuzz: an include tree of more than 100 files fails",
	    rc == -1 && np == 0 && strstr(err, "more than 100 files") != NULL);
	snprintf(text, sizeof(text), "executable = /bin/true\ninclude : "
	    "/dev/zero\ninclude : %s\nqueue\n", dir);
	rc = parse_in(dir, text, strlen(text), &np, err, sizeof(err));
	CHECK("fuzz: including a device fails at its line", rc == -1 &&
	    np == 0 && strncmp(err, "f:2: ", 5) == 0);
	snprintf(text, sizeof(text), "rm -rf '%s'", dir);
	if (system(text) != 0)
		printf("    could not remove %s\n", dir);
}

/* Very long lines, very long lists: limits, not crashes or hangs (a
 * hang is caught by tests/run's time limit). */
static void
check_huge(void)
{
	struct buf b;
	char err[1024];
	size_t np, i;
	int rc;

	buf_init(&b);
	buf_adds(&b, "executable = /bin/true\narguments = ");
	for (i = 0; i < 2 * 1024 * 1024; i++)
		buf_addc(&b, 'a' + (int)(i % 26));
	buf_adds(&b, "\nqueue\n");
	rc = parse_in("/work", b.data, b.len, &np, err, sizeof(err));
	CHECK("fuzz: a 2 MiB line fails at its line", rc == -1 && np == 0 &&
	    strncmp(err, "f:2: ", 5) == 0);

	buf_reset(&b);
	buf_adds(&b, "executable = /bin/true\narguments = \\\n");
	for (i = 0; i < 200000; i++)
		buf_adds(&b, "ab \\\n");
	buf_adds(&b, "\nqueue\n");
	rc = parse_in("/work", b.data, b.len, &np, err, sizeof(err));
	CHECK("fuzz: 200000 continued lines make one line, its first named",
	    rc == -1 && np == 0 && strncmp(err, "f:2: ", 5) == 0);

	buf_reset(&b);
	buf_adds(&b, "executable = /bin/true\narguments = ");
	for (i = 0; i < 300000; i++)
		buf_adds(&b, "$(");
	buf_adds(&b, "\nqueue\n");
	rc = parse_in("/work", b.data, b.len, &np, err, sizeof(err));
	CHECK("fuzz: 300000 open references fail at their line", rc == -1 &&
	    np == 0 && strncmp(err, "f:2: ", 5) == 0);

	/* A definition holding a million "$(A" and one ")": its
	 * references to itself are looked for once, not once each. */
	buf_reset(&b);
	buf_adds(&b, "A = x\nA = ");
	for (i = 0; i < 1000000; i++)
		buf_adds(&b, "$(A");
	buf_adds(&b, ")\nexecutable = /bin/true\narguments = $(A)\nqueue\n");
	rc = parse_in("/work", b.data, b.len, &np, err, sizeof(err));
	CHECK("fuzz: a million unclosed self-references fail at their line",
	    rc == -1 && np == 0 && strncmp(err, "f:2: ", 5) == 0);

	buf_reset(&b);
	buf_adds(&b, "universe = vanilla\nexecutable = /bin/true\n"
	    "arguments = $(x)\nqueue x in (");
	for (i = 0; i < SUBMIT_MAX_PROCS; i++)
		buf_printf(&b, "%zu ", i);
	buf_adds(&b, ")\n");
	rc = parse_in("/work", b.data, b.len, &np, err, sizeof(err));
	CHECK("fuzz: queue x in (100000 items) queues 100000 jobs",
	    rc == 0 && np == SUBMIT_MAX_PROCS);
	if (rc != 0)
		printf("    error: %s\n", err);

	buf_reset(&b);
	buf_adds(&b, "universe = vanilla\nexecutable = /bin/true\n"
	    "arguments = $(x)\nqueue x from (\n");
	for (i = 0; i <= SUBMIT_MAX_PROCS; i++)
		buf_printf(&b, "%zu\n", i);
	buf_adds(&b, ")\n");
	rc = parse_in("/work", b.data, b.len, &np, err, sizeof(err));
	CHECK("fuzz: queue from 100001 lines: too many jobs, at the queue",
	    rc == -1 && np == 0 && strncmp(err, "f:4: ", 5) == 0 &&
	    strstr(err, "too many jobs") != NULL);
	if (rc != -1 || strncmp(err, "f:4: ", 5) != 0)
		printf("    error: %s\n", err);

	/* A list longer than a value may be (1 MiB): 100000 file names. */
	buf_reset(&b);
	buf_adds(&b, "universe = vanilla\nexecutable = /bin/true\n"
	    "arguments = $(f)\nqueue f from (\n");
	for (i = 0; i < SUBMIT_MAX_PROCS; i++)
		buf_printf(&b, "data/sample_%06zu.dat\n", i);
	buf_adds(&b, ")\n");
	rc = parse_in("/work", b.data, b.len, &np, err, sizeof(err));
	CHECK("fuzz: queue from (2 MiB of 100000 names) queues 100000 jobs",
	    rc == 0 && np == SUBMIT_MAX_PROCS);
	if (rc != 0)
		printf("    error: %s\n", err);

	/* Three million lines in one open list: read once, not once a
	 * line (which took minutes). */
	buf_reset(&b);
	buf_adds(&b, "executable = /bin/true\nqueue x from (\n");
	for (i = 0; i < 3000000; i++)
		buf_adds(&b, "x\n");
	rc = parse_in("/work", b.data, b.len, &np, err, sizeof(err));
	CHECK("fuzz: an unclosed list of 3000000 lines fails at its queue",
	    rc == -1 && np == 0 && strncmp(err, "f:2: ", 5) == 0);
	buf_free(&b);
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

	bad_err = bad_ok = cases = 0;
	buf_init(&b);
	for (i = 0; i < CONDITIONAL_CASES; i++) {
		conditional_case(&b);
		one(b.data, b.len, &bad_err, &bad_ok, &cases);
	}
	CHECK("fuzz: random if/elif/else nesting: errors name a line, "
	    "ads parse", bad_err == 0 && bad_ok == 0);
	bad_err = bad_ok = cases = 0;
	for (i = 0; i < MACRO_CASES; i++) {
		macro_case(&b);
		one(b.data, b.len, &bad_err, &bad_ok, &cases);
	}
	CHECK("fuzz: random self-referencing and recursive macros: errors "
	    "name a line, ads parse", bad_err == 0 && bad_ok == 0);
	buf_reset(&b);
	for (i = 0; i < 33; i++)
		buf_adds(&b, "if true\n");
	buf_adds(&b, "executable = /bin/true\nqueue\n");
	for (i = 0; i < 33; i++)
		buf_adds(&b, "endif\n");
	bad_err = bad_ok = cases = 0;
	rc = one(b.data, b.len, &bad_err, &bad_ok, &cases);
	CHECK("fuzz: if nested 33 deep fails at the 33rd",
	    rc == -1 && bad_err == 0 && strncmp(last_err, "f:33: ", 6) == 0);
	buf_reset(&b);
	for (i = 0; i < 32; i++)
		buf_adds(&b, i % 2 ? "if false\nelif true\n" :
		    "if false\nelse\n");
	buf_adds(&b, "executable = /bin/true\nqueue\n");
	for (i = 0; i < 32; i++)
		buf_adds(&b, "endif\n");
	rc = one(b.data, b.len, &bad_err, &bad_ok, &cases);
	CHECK("fuzz: if/elif/else nested 32 deep takes the inmost branch",
	    rc == 0 && last_nprocs == 1);
	buf_reset(&b);
	buf_adds(&b, "A = $(B)\nB = $(C)\nC = $(A)\nexecutable = /bin/true\n"
	    "arguments = $(A)\nqueue\n");
	rc = one(b.data, b.len, &bad_err, &bad_ok, &cases);
	CHECK("fuzz: mutually recursive macros fail with a line",
	    rc == -1 && bad_err == 0 && strstr(last_err, "nested") != NULL);
	buf_reset(&b);
	for (i = 0; i < 2000; i++)
		buf_adds(&b, "A = $(A)x\n");
	buf_adds(&b, "executable = /bin/true\narguments = $(A)\nqueue\n");
	rc = one(b.data, b.len, &bad_err, &bad_ok, &cases);
	CHECK("fuzz: 2000 self-referencing definitions build one value",
	    rc == 0 && bad_ok == 0);
	buf_reset(&b);
	buf_adds(&b, "A = x\n");
	for (i = 0; i < 40; i++)
		buf_adds(&b, "A = $(A)$(A)\n");
	buf_adds(&b, "A = x$(A)\nexecutable = /bin/true\narguments = $(A)\n"
	    "queue\n");
	rc = one(b.data, b.len, &bad_err, &bad_ok, &cases);
	CHECK("fuzz: a self-reference doubled 40 times is bounded",
	    rc == -1 && bad_err == 0 && strstr(last_err, "longer") != NULL);
	buf_free(&b);
	check_includes();
	check_huge();

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
