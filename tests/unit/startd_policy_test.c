/*
 * startd_policy_test.c: the owner policy's decisions and measurements
 * (src/startd/startd_owner.c): the state machine, bad expressions, keyboard
 * idleness, the job's load average, and the /proc lines it reads.
 *
 * checks: 145
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "startd_owner.h"
#include "test.h"

/* A fake evaluator: the truth of each expression, and what was asked. */
struct fake {
	enum policy_truth truth[POLICY_NEXPR];
	int		 asked[POLICY_NEXPR];
};

static enum policy_truth
fake_eval(enum policy_expr x, void *arg)
{
	struct fake *f = arg;

	f->asked[x]++;
	return f->truth[x];
}

#define F POLICY_FALSE
#define T POLICY_TRUE
#define B POLICY_BAD

static const struct {
	const char		*name;
	enum startd_state	 state;
	/* START SUSPEND CONTINUE VACATE KILL */
	enum policy_truth	 truth[POLICY_NEXPR];
	enum policy_action	 want;
	enum policy_expr	 why;
} decide_cases[] = {
	{ "claimed, nothing", STATE_CLAIMED, { T, F, F, F, F },
	    POLICY_NONE, POLICY_SUSPEND },
	{ "claimed, SUSPEND", STATE_CLAIMED, { T, T, F, F, F },
	    POLICY_DO_SUSPEND, POLICY_SUSPEND },
	{ "claimed, bad SUSPEND suspends", STATE_CLAIMED, { T, B, F, F, F },
	    POLICY_DO_SUSPEND, POLICY_SUSPEND },
	{ "claimed, VACATE alone does not vacate", STATE_CLAIMED,
	    { T, F, F, T, T }, POLICY_NONE, POLICY_SUSPEND },
	{ "suspended, nothing", STATE_SUSPENDED, { T, T, F, F, F },
	    POLICY_NONE, POLICY_VACATE },
	{ "suspended, CONTINUE", STATE_SUSPENDED, { T, F, T, F, F },
	    POLICY_DO_CONTINUE, POLICY_CONTINUE },
	{ "suspended, CONTINUE first of both", STATE_SUSPENDED,
	    { T, F, T, T, F }, POLICY_DO_CONTINUE, POLICY_CONTINUE },
	{ "suspended, CONTINUE but SUSPEND: no flapping", STATE_SUSPENDED,
	    { T, T, T, F, F }, POLICY_NONE, POLICY_VACATE },
	{ "suspended, CONTINUE but bad SUSPEND: stays", STATE_SUSPENDED,
	    { T, B, T, F, F }, POLICY_NONE, POLICY_VACATE },
	{ "suspended, VACATE", STATE_SUSPENDED, { T, T, F, T, F },
	    POLICY_DO_VACATE, POLICY_VACATE },
	{ "suspended, bad CONTINUE, VACATE", STATE_SUSPENDED,
	    { T, F, B, T, F }, POLICY_DO_VACATE, POLICY_VACATE },
	{ "suspended, bad VACATE vacates", STATE_SUSPENDED,
	    { T, T, F, B, F }, POLICY_DO_VACATE, POLICY_VACATE },
	{ "suspended, KILL is not asked", STATE_SUSPENDED, { T, T, F, F, T },
	    POLICY_NONE, POLICY_VACATE },
	{ "vacating, nothing", STATE_VACATING, { T, T, F, T, F },
	    POLICY_NONE, POLICY_KILL },
	{ "vacating, KILL", STATE_VACATING, { T, T, F, T, T },
	    POLICY_DO_KILL, POLICY_KILL },
	{ "vacating, bad KILL does not kill", STATE_VACATING,
	    { T, T, F, T, B }, POLICY_NONE, POLICY_KILL },
	{ "killing: nothing more", STATE_KILLING, { T, T, T, T, T },
	    POLICY_NONE, POLICY_NEXPR },
	{ "owner: not the claim's business", STATE_OWNER, { T, T, T, T, T },
	    POLICY_NONE, POLICY_NEXPR },
	{ "idle: not the claim's business", STATE_IDLE, { T, T, T, T, T },
	    POLICY_NONE, POLICY_NEXPR },
};

static void
test_decide(void)
{
	enum policy_action a;
	enum policy_expr why;
	struct fake f;
	char label[256];
	size_t i;

	for (i = 0; i < sizeof(decide_cases) / sizeof(decide_cases[0]); i++) {
		memset(&f, 0, sizeof(f));
		memcpy(f.truth, decide_cases[i].truth, sizeof(f.truth));
		why = POLICY_NEXPR;
		a = policy_decide(decide_cases[i].state, fake_eval, &f, &why);
		snprintf(label, sizeof(label), "decide: %s",
		    decide_cases[i].name);
		CHECK(label, a == decide_cases[i].want);
		snprintf(label, sizeof(label), "decide: %s: why",
		    decide_cases[i].name);
		CHECK(label, decide_cases[i].why == POLICY_NEXPR ||
		    why == decide_cases[i].why);
		snprintf(label, sizeof(label), "decide: %s: START never asked",
		    decide_cases[i].name);
		CHECK(label, f.asked[POLICY_START] == 0);
	}
	/* Only what the state needs is evaluated. */
	memset(&f, 0, sizeof(f));
	policy_decide(STATE_CLAIMED, fake_eval, &f, NULL);
	CHECK("decide: claimed asks SUSPEND alone", f.asked[POLICY_SUSPEND] ==
	    1 && f.asked[POLICY_CONTINUE] == 0 && f.asked[POLICY_VACATE] == 0 &&
	    f.asked[POLICY_KILL] == 0);
	memset(&f, 0, sizeof(f));
	policy_decide(STATE_VACATING, fake_eval, &f, NULL);
	CHECK("decide: vacating asks KILL alone", f.asked[POLICY_KILL] == 1 &&
	    f.asked[POLICY_SUSPEND] == 0 && f.asked[POLICY_VACATE] == 0);
}

static void
test_bad_means(void)
{
	CHECK("bad: START is FALSE", !policy_bad_means(POLICY_START));
	CHECK("bad: SUSPEND is TRUE", policy_bad_means(POLICY_SUSPEND));
	CHECK("bad: CONTINUE is FALSE", !policy_bad_means(POLICY_CONTINUE));
	CHECK("bad: VACATE is TRUE", policy_bad_means(POLICY_VACATE));
	CHECK("bad: KILL is FALSE", !policy_bad_means(POLICY_KILL));
	CHECK("bad: out of range is FALSE", !policy_bad_means(POLICY_NEXPR));
	CHECK_STR("names: SUSPEND", policy_expr_name(POLICY_SUSPEND),
	    "SUSPEND");
	CHECK_STR("names: out of range", policy_expr_name(POLICY_NEXPR), "?");
}

static const struct {
	const char		*text;
	enum policy_truth	 want;
	const char		*what;
} truth_cases[] = {
	{ "TRUE", POLICY_TRUE, NULL },
	{ "FALSE", POLICY_FALSE, NULL },
	{ "3 > 2", POLICY_TRUE, NULL },
	{ "1", POLICY_TRUE, NULL },
	{ "0", POLICY_FALSE, NULL },
	{ "0.0", POLICY_FALSE, NULL },
	{ "2.5", POLICY_TRUE, NULL },
	{ "KeyboardIdel < 1", POLICY_BAD, "UNDEFINED" },
	{ "UNDEFINED", POLICY_BAD, "UNDEFINED" },
	{ "KeyboardIdle > \"soon\"", POLICY_BAD, "UNDEFINED" },
	{ "1 > \"soon\"", POLICY_BAD, "ERROR" },
	{ "1 + \"x\"", POLICY_BAD, "ERROR" },
	{ "\"yes\"", POLICY_BAD, "a string" },
	{ "ERROR", POLICY_BAD, "ERROR" },
	{ "UNDEFINED || TRUE", POLICY_TRUE, NULL },
	{ "UNDEFINED && FALSE", POLICY_FALSE, NULL },
};

static void
test_truth(void)
{
	struct value v;
	const char *what;
	char label[256];
	size_t i;

	for (i = 0; i < sizeof(truth_cases) / sizeof(truth_cases[0]); i++) {
		expr_eval_text(truth_cases[i].text, NULL, NULL, &v);
		what = NULL;
		snprintf(label, sizeof(label), "truth: %s",
		    truth_cases[i].text);
		CHECK(label, policy_truth_of(&v, &what) == truth_cases[i].want);
		if (truth_cases[i].what != NULL) {
			snprintf(label, sizeof(label), "truth: %s is %s",
			    truth_cases[i].text, truth_cases[i].what);
			CHECK_STR(label, what, truth_cases[i].what);
		}
		value_free(&v);
	}
	v.type = VAL_REAL;
	v.u.r = NAN;
	CHECK("truth: NaN is bad", policy_truth_of(&v, NULL) == POLICY_BAD);
	CHECK("is_true: bad SUSPEND", policy_is_true(POLICY_SUSPEND,
	    POLICY_BAD));
	CHECK("is_true: bad START", !policy_is_true(POLICY_START,
	    POLICY_BAD));
	CHECK("is_true: FALSE SUSPEND", !policy_is_true(POLICY_SUSPEND,
	    POLICY_FALSE));
}

static void
test_idle(void)
{
	double seen = -1;

	/* The first look gives the elapsed time, never 0 for old use. */
	CHECK("idle: first look", policy_idle_seconds(5000.5, 5000.0 - 3600,
	    &seen) == 3600);
	CHECK("idle: same again", policy_idle_seconds(5001.5, 5000.0 - 3600,
	    &seen) == 3601);
	/* Activity at 5001.9 seen at 5002.1: 0, although a whole second
	 * boundary lies between. */
	CHECK("idle: new activity is 0", policy_idle_seconds(5002.1, 5001.9,
	    &seen) == 0);
	CHECK("idle: then it ages by CurrentTime's seconds",
	    policy_idle_seconds(5003.0, 5001.9, &seen) == 2);
	/* A report that arrives late, stamped before the last look. */
	CHECK("idle: a late report is still news",
	    policy_idle_seconds(5003.2, 5002.95, &seen) == 0);
	CHECK("idle: older activity is not news",
	    policy_idle_seconds(5004.0, 5002.0, &seen) == 2);
	/* Time stamps ahead of us count as now. */
	seen = -1;
	CHECK("idle: future", policy_idle_seconds(1000.0, 1005.0, &seen) ==
	    0);
	seen = -1;
	CHECK("idle: no source at all", policy_idle_seconds(1000.0, -1,
	    &seen) == -1);
	/* KeyboardIdle >= CurrentTime - EnteredCurrentState after the
	 * look that saw the owner (entered at that look's second). */
	{
		double look = 2000.999, act = 2000.998, now;
		long long entered = (long long)look, k;
		int ok = 1;

		seen = 1000;
		policy_idle_seconds(look, act, &seen);
		for (now = 2001.0; now < 2010.0; now += 0.37) {
			k = policy_idle_seconds(now, act, &seen);
			if (k < (long long)now - entered)
				ok = 0;
		}
		CHECK("idle: never less than the time in the state", ok);
	}
}

static void
test_load(void)
{
	double load = 0;
	int i;

	for (i = 0; i < 60; i++)
		load = policy_load_update(load, 1.0, 1.0);
	CHECK("load: a minute of one task is 1 - 1/e",
	    fabs(load - (1 - exp(-1))) < 1e-9);
	/* The same in one step as in many. */
	CHECK("load: one step of a minute",
	    fabs(policy_load_update(0, 1.0, 60.0) - load) < 1e-9);
	load = policy_load_update(2.0, 0, 60.0);
	CHECK("load: decays to 1/e in a minute",
	    fabs(load - 2.0 * exp(-1)) < 1e-9);
	CHECK("load: zero time changes nothing",
	    policy_load_update(1.5, 4.0, 0) == 1.5);
	CHECK("load: negative time changes nothing",
	    policy_load_update(1.5, 4.0, -3) == 1.5);
	CHECK("load: NaN changes nothing",
	    policy_load_update(1.5, NAN, 1) == 1.5);
	CHECK("load: negative runnable counts as 0",
	    policy_load_update(0, -5, 10) == 0);
	/* Four busy tasks for a long time. */
	load = 0;
	for (i = 0; i < 600; i++)
		load = policy_load_update(load, 4.0, 1.0);
	CHECK("load: converges on the tasks", fabs(load - 4.0) < 0.01);
}

static void
test_stat(void)
{
	struct policy_proc p;

	CHECK("stat: a real line", policy_parse_stat("4242 (busy.sh) R 4200 "
	    "4242 4242 0 -1 4194304 120 0 0 0 1500 250 30 7 20 0 1 0 "
	    "987654 1000 10 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 "
	    "0 0 17 1 0 0 0 0 0\n", &p) == 0);
	CHECK("stat: pid", p.pid == 4242);
	CHECK("stat: ppid", p.ppid == 4200);
	CHECK("stat: session", p.session == 4242);
	CHECK("stat: state", p.state == 'R');
	CHECK("stat: utime stime", p.utime == 1500 && p.stime == 250);
	CHECK("stat: cutime cstime", p.cutime == 30 && p.cstime == 7);
	CHECK("stat: starttime", p.starttime == 987654);
	CHECK("stat: a name with ') ' and spaces",
	    policy_parse_stat("7 (a) b (c) T) T 1 7 7 0 -1 0 0 0 0 0 5 6 "
	    "0 0 20 0 1 0 99\n", &p) == 0 && p.state == 'T' &&
	    p.utime == 5 && p.stime == 6 && p.starttime == 99);
	CHECK("stat: negative priority", policy_parse_stat("9 (rt) S 1 9 9 "
	    "0 -1 0 0 0 0 0 1 2 3 4 -100 0 1 0 77\n", &p) == 0 &&
	    p.starttime == 77 && p.cutime == 3);
	CHECK("stat: empty", policy_parse_stat("", &p) == -1);
	CHECK("stat: truncated", policy_parse_stat("12 (x) R 1 12 12 0 -1 "
	    "0 0 0 0 0 5", &p) == -1);
	CHECK("stat: no parenthesis", policy_parse_stat("12 x R 1 12 12 0 "
	    "-1 0 0 0 0 0 5 6 0 0 20 0 1 0 99", &p) == -1);
	CHECK("stat: garbage number", policy_parse_stat("12 (x) R 1 12 12 "
	    "0 -1 0 0 0 0 0 5z 6 0 0 20 0 1 0 99", &p) == -1);
	CHECK("stat: negative cutime refused", policy_parse_stat("12 (x) R "
	    "1 12 12 0 -1 0 0 0 0 0 5 6 -3 0 20 0 1 0 99", &p) == -1);
	CHECK("stat: no state", policy_parse_stat("12 (x) ", &p) == -1);
	CHECK("stat: huge pid", policy_parse_stat("99999999999 (x) R 1 1 1 0 "
	    "-1 0 0 0 0 0 5 6 0 0 20 0 1 0 99", &p) == -1);
}

static void
test_schedstat(void)
{
	unsigned long long w = 0;

	CHECK("schedstat: a real line",
	    policy_parse_schedstat("125589040 296514112 343\n", &w) == 0 &&
	    w == 296514112ULL);
	CHECK("schedstat: empty", policy_parse_schedstat("", &w) == -1);
	CHECK("schedstat: one field", policy_parse_schedstat("12\n", &w) ==
	    -1);
	CHECK("schedstat: words", policy_parse_schedstat("a b c", &w) == -1);
}

static void
test_sigcgt(void)
{
	const char *status = "Name:\tcondor_starter\n"
	    "SigBlk:\t0000000000000000\nSigIgn:\t0000000000001000\n"
	    "SigCgt:\t0000000000094a03\n";
	const char *fresh = "Name:\tcondor_starter\n"
	    "SigCgt:\t0000000000000000\n";

	/* 0x94a03: bits 0 1 9 11 14 16 19, signals 1 2 10 12 15 17 20. */
	CHECK("sigcgt: catches SIGTSTP", policy_catches_signal(status,
	    SIGTSTP) == 1);
	CHECK("sigcgt: catches SIGTERM", policy_catches_signal(status,
	    SIGTERM) == 1);
	CHECK("sigcgt: not SIGQUIT", policy_catches_signal(status,
	    SIGQUIT) == 0);
	CHECK("sigcgt: a fresh process", policy_catches_signal(fresh,
	    SIGTSTP) == 0);
	CHECK("sigcgt: no line", policy_catches_signal("Name:\tx\n",
	    SIGTSTP) == -1);
	CHECK("sigcgt: garbage", policy_catches_signal("SigCgt:\tzz\n",
	    SIGTSTP) == -1);
	CHECK("sigcgt: signal out of range", policy_catches_signal(status,
	    0) == -1 && policy_catches_signal(status, 65) == -1);
	CHECK("stopped: T", policy_stopped_state('T'));
	CHECK("stopped: t (traced)", policy_stopped_state('t'));
	CHECK("stopped: Z", policy_stopped_state('Z'));
	CHECK("stopped: R runs", !policy_stopped_state('R'));
	CHECK("stopped: S runs", !policy_stopped_state('S'));
	CHECK("stopped: D runs", !policy_stopped_state('D'));
}

int
main(void)
{
	test_decide();
	test_bad_means();
	test_truth();
	test_idle();
	test_load();
	test_stat();
	test_schedstat();
	test_sigcgt();
	TEST_EXIT();
}
