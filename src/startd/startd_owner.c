/*
 * startd_owner.c: the owner policy's decisions and measurements
 * (startd_owner.h).
 *
 * Everything parsed here comes from /proc files of processes a foreign
 * job controls (it names itself, so its command may hold any bytes): a
 * line that does not look right is refused, never guessed at.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "startd_owner.h"

static const char *expr_names[POLICY_NEXPR] = {
	"START", "SUSPEND", "CONTINUE", "VACATE", "KILL",
};

/* What a bad expression counts as: the owner's side (startd_owner.h). */
static const int bad_means[POLICY_NEXPR] = {
	0,	/* START: no job starts */
	1,	/* SUSPEND: the job stops */
	0,	/* CONTINUE: it stays stopped */
	1,	/* VACATE: a stopped job leaves */
	0,	/* KILL: the vacate's own deadline still holds */
};

const char *
policy_expr_name(enum policy_expr x)
{
	if ((int)x < 0 || x >= POLICY_NEXPR)
		return "?";
	return expr_names[x];
}

enum policy_truth
policy_truth_of(const struct value *v, const char **what)
{
	const char *w = NULL;
	enum policy_truth t = POLICY_BAD;

	switch (v->type) {
	case VAL_BOOL:
	case VAL_INT:
		t = value_is_true(v) ? POLICY_TRUE : POLICY_FALSE;
		break;
	case VAL_REAL:
		if (isnan(v->u.r))
			w = "not a number";
		else
			t = v->u.r != 0.0 ? POLICY_TRUE : POLICY_FALSE;
		break;
	case VAL_UNDEFINED:
		w = "UNDEFINED";
		break;
	case VAL_ERROR:
		w = "ERROR";
		break;
	case VAL_STRING:
		w = "a string";
		break;
	default:
		w = "of no known type";
		break;
	}
	if (what != NULL)
		*what = w;
	return t;
}

int
policy_bad_means(enum policy_expr x)
{
	if ((int)x < 0 || x >= POLICY_NEXPR)
		return 0;
	return bad_means[x];
}

int
policy_is_true(enum policy_expr x, enum policy_truth t)
{
	if (t == POLICY_BAD)
		return policy_bad_means(x);
	return t == POLICY_TRUE;
}

enum policy_action
policy_decide(enum startd_state state, policy_eval_fn eval, void *arg,
    enum policy_expr *why)
{
	enum policy_expr dummy;

	if (why == NULL)
		why = &dummy;
	switch (state) {
	case STATE_CLAIMED:
		*why = POLICY_SUSPEND;
		if (policy_is_true(POLICY_SUSPEND, eval(POLICY_SUSPEND, arg)))
			return POLICY_DO_SUSPEND;
		return POLICY_NONE;
	case STATE_SUSPENDED:
		*why = POLICY_CONTINUE;
		if (policy_is_true(POLICY_CONTINUE, eval(POLICY_CONTINUE,
		    arg)) && !policy_is_true(POLICY_SUSPEND,
		    eval(POLICY_SUSPEND, arg)))
			return POLICY_DO_CONTINUE;
		*why = POLICY_VACATE;
		if (policy_is_true(POLICY_VACATE, eval(POLICY_VACATE, arg)))
			return POLICY_DO_VACATE;
		return POLICY_NONE;
	case STATE_VACATING:
		*why = POLICY_KILL;
		if (policy_is_true(POLICY_KILL, eval(POLICY_KILL, arg)))
			return POLICY_DO_KILL;
		return POLICY_NONE;
	default:
		return POLICY_NONE;
	}
}

long long
policy_idle_seconds(double now, double latest, double *seen)
{
	int fresh;
	long long idle;

	if (latest < 0)
		return -1;
	fresh = *seen >= 0 && latest > *seen;
	if (latest > *seen)
		*seen = latest;
	if (fresh)
		return 0;
	idle = (long long)floor(now) - (long long)floor(latest);
	return idle > 0 ? idle : 0;
}

double
policy_load_update(double load, double runnable, double dt)
{
	double keep;

	if (!(dt > 0) || !isfinite(runnable))
		return load;
	if (runnable < 0)
		runnable = 0;
	keep = exp(-dt / POLICY_LOAD_TAU);
	return load * keep + runnable * (1.0 - keep);
}

/* One unsigned decimal field at *P, which then points past it. */
static int
field_ull(const char **p, unsigned long long *out)
{
	const char *s = *p;
	char *end;

	while (*s == ' ')
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno != 0 || (*end != ' ' && *end != '\n' && *end != '\0'))
		return -1;
	*p = end;
	return 0;
}

/* One signed decimal field (ppid and session may be 0, never less). */
static int
field_pid(const char **p, pid_t *out)
{
	unsigned long long v;

	if (field_ull(p, &v) == -1 || v > 0x7fffffffULL)
		return -1;
	*out = (pid_t)v;
	return 0;
}

/* Skip N fields that may be negative (tty_nr, tpgid, priority...). */
static int
skip_fields(const char **p, int n)
{
	const char *s = *p;

	while (n-- > 0) {
		while (*s == ' ')
			s++;
		if (*s == '-')
			s++;
		if (!isdigit((unsigned char)*s))
			return -1;
		while (isdigit((unsigned char)*s))
			s++;
		if (*s != ' ' && *s != '\n' && *s != '\0')
			return -1;
	}
	*p = s;
	return 0;
}

int
policy_parse_stat(const char *text, struct policy_proc *p)
{
	const char *s, *close;
	pid_t pgrp;

	memset(p, 0, sizeof(*p));
	s = text;
	if (field_pid(&s, &p->pid) == -1 || strncmp(s, " (", 2) != 0)
		return -1;
	/* The command ends at the last ')': it may hold ') ' itself. */
	if ((close = strrchr(s, ')')) == NULL || close[1] != ' ' ||
	    close[2] == '\0')
		return -1;
	s = close + 2;
	p->state = *s++;
	if (!isalpha((unsigned char)p->state) || *s != ' ')
		return -1;
	if (field_pid(&s, &p->ppid) == -1 || field_pid(&s, &pgrp) == -1 ||
	    field_pid(&s, &p->session) == -1 ||
	    skip_fields(&s, 7) == -1 ||		/* tty_nr .. cmajflt */
	    field_ull(&s, &p->utime) == -1 ||
	    field_ull(&s, &p->stime) == -1)
		return -1;
	/* cutime and cstime are signed in the kernel's format; never
	 * negative in practice, refused if they are. */
	if (field_ull(&s, &p->cutime) == -1 ||
	    field_ull(&s, &p->cstime) == -1 ||
	    skip_fields(&s, 4) == -1 ||		/* priority .. itrealvalue */
	    field_ull(&s, &p->starttime) == -1)
		return -1;
	return 0;
}

int
policy_parse_schedstat(const char *text, unsigned long long *wait_ns)
{
	const char *s = text;
	unsigned long long cpu;

	if (field_ull(&s, &cpu) == -1 || field_ull(&s, wait_ns) == -1)
		return -1;
	return 0;
}

int
policy_catches_signal(const char *text, int sig)
{
	const char *line = text, *s;
	unsigned long long mask;
	char *end;

	if (sig < 1 || sig > 64)
		return -1;
	while (line != NULL && *line != '\0') {
		if (strncmp(line, "SigCgt:", 7) == 0) {
			s = line + 7;
			while (*s == ' ' || *s == '\t')
				s++;
			if (!isxdigit((unsigned char)*s))
				return -1;
			errno = 0;
			mask = strtoull(s, &end, 16);
			if (errno != 0 || (*end != '\n' && *end != '\0'))
				return -1;
			return (mask >> (sig - 1)) & 1;
		}
		if ((line = strchr(line, '\n')) != NULL)
			line++;
	}
	return -1;
}

int
policy_stopped_state(char c)
{
	return c == 'T' || c == 't' || c == 'Z' || c == 'X' || c == 'x';
}
