/*
 * negotiator_updown_test.c: station priorities by Up-Down
 * (src/negotiator/negotiator_updown.c): the update step, its bounds,
 * the table and its file.
 *
 * checks: 93
 */
#include <sys/stat.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "expr.h"
#include "test.h"
#include "negotiator_updown.h"
#include "xalloc.h"

static char dir[] = "/tmp/updown_test.XXXXXX";

static const struct {
	const char	*name;
	const char	*expr;		/* UPDATE_PRIO; NULL: undefined */
	double		 prio;
	long long	 users, running;
	int		 ok;
	double		 want;
} step_cases[] = {
	{ "waiting station rises", "Prio + Users - Running", 0, 1, 0, 1, 1 },
	{ "two users rise by two", "Prio + Users - Running", 3, 2, 0, 1, 5 },
	{ "running station sinks", "Prio + Users - Running", 0, 1, 4, 1, -3 },
	{ "running only sinks", "Prio + Users - Running", -2, 0, 3, 1, -5 },
	{ "balanced stays", "Prio + Users - Running", 7, 2, 2, 1, 7 },
	{ "idle positive decays", "Prio + Users - Running", 5, 0, 0, 1, 4 },
	{ "idle negative recovers", "Prio + Users - Running", -5, 0, 0, 1,
	    -4 },
	{ "idle small positive to 0", "Prio + Users - Running", 0.5, 0, 0, 1,
	    0 },
	{ "idle small negative to 0", "Prio + Users - Running", -0.25, 0, 0,
	    1, 0 },
	{ "idle zero stays", "Prio + Users - Running", 0, 0, 0, 1, 0 },
	{ "idle ignores a broken expr", "\"junk\"", 3, 0, 0, 1, 2 },
	{ "clamped above", "Prio + Users - Running", 999, 5, 0, 1, 1000 },
	{ "clamped below", "Prio + Users - Running", -999, 0, 5, 1, -1000 },
	{ "huge result clamped", "Prio * 1e300 * 1e300", 2, 1, 0, 0, 2 },
	{ "real result", "Prio + Users - Running * 0.5", 1, 1, 3, 1, 0.5 },
	{ "other expression", "Prio * 2 + Users", 3, 1, 1, 1, 7 },
	{ "boolean is not a number", "Users > 0", 3, 1, 0, 0, 3 },
	{ "string is not a number", "\"high\"", 3, 1, 0, 0, 3 },
	{ "undefined name", "Prio + NoSuchAttr", 3, 1, 0, 0, 3 },
	{ "error keeps", "Prio / 0", 3, 1, 0, 0, 3 },
	{ "undefined UPDATE_PRIO keeps", NULL, 3, 1, 0, 0, 3 },
	{ "big but legal", "Prio + Users * 100", 0, 3, 1, 1, 300 },
};

static void
test_step(void)
{
	struct expr *e;
	char err[256], label[256];
	double next;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(step_cases) / sizeof(step_cases[0]); i++) {
		e = NULL;
		if (step_cases[i].expr != NULL) {
			e = expr_parse(step_cases[i].expr, err, sizeof(err));
			if (e == NULL) {
				printf("FAIL %s: parse: %s\n",
				    step_cases[i].name, err);
				test_failures++;
				continue;
			}
		}
		err[0] = '\0';
		rc = updown_step(e, step_cases[i].prio, step_cases[i].users,
		    step_cases[i].running, &next, err, sizeof(err));
		snprintf(label, sizeof(label), "step: %s: status",
		    step_cases[i].name);
		CHECK(label, rc == (step_cases[i].ok ? 0 : -1));
		snprintf(label, sizeof(label), "step: %s: value",
		    step_cases[i].name);
		CHECK(label, fabs(next - step_cases[i].want) < 1e-9);
		if (!step_cases[i].ok) {
			snprintf(label, sizeof(label), "step: %s: says why",
			    step_cases[i].name);
			CHECK(label, err[0] != '\0');
		}
		expr_free(e);
	}
}

static void
test_clamp(void)
{
	CHECK("clamp: NaN is 0", updown_clamp(NAN) == 0);
	CHECK("clamp: +inf", updown_clamp(INFINITY) == UPDOWN_LIMIT);
	CHECK("clamp: -inf", updown_clamp(-INFINITY) == -UPDOWN_LIMIT);
	CHECK("clamp: inside", updown_clamp(-12.5) == -12.5);
}

/*
 * The seeds' scenario: a heavy station keeps the pool busy, a light one
 * arrives and waits.  After one update the light one is ahead, and the
 * heavy one's index only recovers once it stops running.
 */
static void
test_dynamics(void)
{
	struct expr *e;
	char err[256];
	double heavy = 0, light = 0;
	int i;

	e = expr_parse("Prio + Users - Running", err, sizeof(err));
	for (i = 0; i < 10; i++)
		updown_step(e, heavy, 1, 4, &heavy, err, sizeof(err));
	CHECK("dynamics: heavy sank", heavy == -30);
	updown_step(e, light, 1, 0, &light, err, sizeof(err));
	updown_step(e, heavy, 1, 4, &heavy, err, sizeof(err));
	CHECK("dynamics: light ahead after one update", light > heavy);
	for (i = 0; i < 5000; i++)
		updown_step(e, heavy, 1, 4, &heavy, err, sizeof(err));
	CHECK("dynamics: heavy bounded", heavy == -UPDOWN_LIMIT);
	for (i = 0; i < 10; i++)
		updown_step(e, heavy, 1, 0, &heavy, err, sizeof(err));
	CHECK("dynamics: heavy waiting recovers", heavy == -990);
	for (i = 0; i < 2000; i++)
		updown_step(e, heavy, 0, 0, &heavy, err, sizeof(err));
	CHECK("dynamics: heavy gone quiet returns to 0", heavy == 0);
	expr_free(e);
}

static void
test_table(void)
{
	struct updown t;
	struct updown_station *a, *b, *c;
	char longname[UPDOWN_MAX_NAME + 2];
	int sorted = 1;
	size_t i;

	updown_init(&t);
	b = updown_add(&t, "bravo");
	a = updown_add(&t, "alpha");
	c = updown_add(&t, "charlie");
	CHECK("table: three stations", t.n == 3);
	CHECK("table: new station at 0", a != NULL && a->prio == 0);
	a->prio = 4;
	CHECK("table: add finds the same", updown_add(&t, "alpha") == a);
	CHECK("table: pointers stable", updown_find(&t, "bravo") == b &&
	    updown_find(&t, "charlie") == c);
	CHECK("table: find missing", updown_find(&t, "delta") == NULL);
	CHECK("table: find NULL", updown_find(&t, NULL) == NULL);
	for (i = 1; i < t.n; i++)
		if (strcmp(t.v[i - 1]->name, t.v[i]->name) >= 0)
			sorted = 0;
	CHECK("table: sorted by name", sorted);
	errno = 0;
	CHECK("table: empty name refused", updown_add(&t, "") == NULL &&
	    errno == EINVAL);
	CHECK("table: control character refused",
	    updown_add(&t, "bad\nname") == NULL && errno == EINVAL);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	CHECK("table: overlong name refused",
	    updown_add(&t, longname) == NULL && errno == EINVAL);
	longname[UPDOWN_MAX_NAME] = '\0';
	CHECK("table: longest name accepted", updown_add(&t, longname) !=
	    NULL);
	updown_clear(&t);
	CHECK("table: cleared", t.n == 0 && t.v == NULL);
}

static void
test_full(void)
{
	struct updown t;
	struct updown_station *s;
	char name[64];
	int i, ok = 1;

	updown_init(&t);
	for (i = 0; i < UPDOWN_MAX_STATIONS; i++) {
		snprintf(name, sizeof(name), "s%05d", i);
		if ((s = updown_add(&t, name)) == NULL) {
			ok = 0;
			break;
		}
		s->prio = 10 + i;	/* all far from 0 ... */
		s->seen = 1;
	}
	CHECK("full: fills up", ok && t.n == UPDOWN_MAX_STATIONS);
	errno = 0;
	CHECK("full: every station advertises: refused",
	    updown_add(&t, "newcomer") == NULL && errno == ENOSPC);
	updown_find(&t, "s00500")->seen = 0;
	updown_find(&t, "s00007")->seen = 0;
	updown_find(&t, "s00007")->prio = -1;	/* ... but this one */
	CHECK("full: room made", updown_add(&t, "newcomer") != NULL);
	CHECK("full: the silent one nearest 0 went",
	    updown_find(&t, "s00007") == NULL &&
	    updown_find(&t, "s00500") != NULL &&
	    t.n == UPDOWN_MAX_STATIONS);
	updown_clear(&t);
}

static char *
path_of(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static void
write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f == NULL || fputs(text, f) == EOF || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

static void
test_file(void)
{
	struct updown t, u;
	struct updown_station *s;
	char err[512], *path, *tmp, *bad, *nodir;
	int nbad, same = 1;
	size_t i;

	path = path_of("prios");
	updown_init(&t);
	updown_init(&u);
	CHECK("file: missing file is empty", updown_load(&u, path, &nbad,
	    err, sizeof(err)) == 0 && u.n == 0 && nbad == 0);

	updown_add(&t, "light.example.org")->prio = 12.75;
	updown_add(&t, "heavy")->prio = -1000;
	updown_add(&t, "zero")->prio = 0;
	updown_add(&t, "with space")->prio = 1.0 / 3.0;
	s = updown_add(&t, "seen");
	s->prio = 2;
	s->seen = 1;
	s->running = 5;
	CHECK("file: save", updown_save(&t, path, err, sizeof(err)) == 0);
	tmp = xasprintf("%s.tmp", path);
	CHECK("file: no temporary left", access(tmp, F_OK) == -1);
	CHECK("file: load", updown_load(&u, path, &nbad, err,
	    sizeof(err)) == 0 && nbad == 0);
	CHECK("file: same count", u.n == t.n);
	for (i = 0; i < t.n && i < u.n; i++)
		if (strcmp(t.v[i]->name, u.v[i]->name) != 0 ||
		    t.v[i]->prio != u.v[i]->prio)
			same = 0;
	CHECK("file: same names and exact indexes", same);
	CHECK("file: counts are not kept",
	    updown_find(&u, "seen")->seen == 0 &&
	    updown_find(&u, "seen")->running == 0);

	/* A crash while writing leaves a temporary; the file is intact. */
	write_text(tmp, "17 torn");
	CHECK("file: a stale temporary is ignored", updown_load(&u, path,
	    NULL, err, sizeof(err)) == 0 && updown_find(&u, "torn") == NULL
	    && u.n == t.n);
	CHECK("file: save over a stale temporary",
	    updown_save(&t, path, err, sizeof(err)) == 0);

	bad = path_of("bad");
	write_text(bad, "# comment\n"
	    "\n"
	    "   \n"
	    "3 good\n"
	    "nonsense\n"
	    "4\n"
	    "5  \n"
	    "nan fish\n"
	    "inf fowl\n"
	    "1e999 big\n"
	    "2,5 comma\n"
	    "-7 neg\n"
	    "5000 high\n"
	    "1 ctl\001char\n"
	    "2 good\n"
	    "9 last-without-newline");
	CHECK("file: garbage lines skipped", updown_load(&u, bad, &nbad,
	    err, sizeof(err)) == 0);
	CHECK("file: bad lines counted", nbad == 8);
	CHECK("file: good lines kept", updown_find(&u, "good") != NULL &&
	    updown_find(&u, "good")->prio == 2 &&
	    updown_find(&u, "neg")->prio == -7);
	CHECK("file: index clamped on load",
	    updown_find(&u, "high")->prio == UPDOWN_LIMIT);
	CHECK("file: last line without newline",
	    updown_find(&u, "last-without-newline") != NULL);
	CHECK("file: blank name refused", updown_find(&u, " ") == NULL);

	/* A very long line, and binary junk, do not stop the rest. */
	{
		FILE *f = fopen(bad, "w");
		int k;

		fputs("1 before\n", f);
		for (k = 0; k < 100000; k++)
			fputc('7', f);
		fputs(" long\n", f);
		fwrite("3 nul\0byte\n", 1, 11, f);
		fputs("2 after\n", f);
		fclose(f);
	}
	CHECK("file: long line and NUL skipped", updown_load(&u, bad, &nbad,
	    err, sizeof(err)) == 0 && nbad == 2 && u.n == 2 &&
	    updown_find(&u, "before") && updown_find(&u, "after"));

	nodir = path_of("no/such/dir/prios");
	CHECK("file: save into a missing directory fails",
	    updown_save(&t, nodir, err, sizeof(err)) == -1 && err[0] != '\0');
	CHECK("file: load of a directory fails or is empty",
	    updown_load(&u, dir, NULL, err, sizeof(err)) == -1 || u.n == 0);

	unlink(tmp);
	unlink(path);
	unlink(bad);
	free(tmp);
	free(path);
	free(bad);
	free(nodir);
	updown_clear(&t);
	updown_clear(&u);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	test_step();
	test_clamp();
	test_dynamics();
	test_table();
	test_full();
	test_file();
	rmdir(dir);
	TEST_EXIT();
}
