/*
 * fn_type.c: the ClassAd functions on types, conversions and numbers,
 * and the control functions (ifThenElse, eval, debug, unparse, time).
 * Each checks its own arguments: a wrong count is ERROR, as in HTCondor.
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ad.h"
#include "buf.h"
#include "classad_impl.h"
#include "expr.h"
#include "xalloc.h"

fn_t fn_istype, fn_int, fn_real, fn_string, fn_bool, fn_round, fn_pow,
    fn_quantize, fn_random, fn_ifthenelse, fn_eval, fn_debug, fn_unparse,
    fn_time, fn_interval, fn_formattime, fn_reltime, fn_abstime;

/* isUndefined(V), isError, isString, isInteger, isReal, isBoolean,
 * isList, isClassAd, isAbstime, isReltime: whether V is of that type. */
void
fn_istype(const struct expr *call, const struct env *env, struct value *out)
{
	static const struct {
		const char	*name;
		enum value_type	 type;
	} types[] = {
		{ "isUndefined", VAL_UNDEFINED }, { "isError", VAL_ERROR },
		{ "isString", VAL_STRING }, { "isInteger", VAL_INT },
		{ "isReal", VAL_REAL }, { "isBoolean", VAL_BOOL },
		{ "isList", VAL_LIST }, { "isClassAd", VAL_AD },
		{ "isAbstime", VAL_ABSTIME }, { "isReltime", VAL_RELTIME },
	};
	struct value v;
	size_t i;
	int r = 0;

	if (call->nkids != 1) {
		val_error(out);
		return;
	}
	classad_eval(call->kids[0], env, &v);
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcasecmp(call->name, types[i].name) == 0)
			r = (int)v.type == (int)types[i].type;
	value_free(&v);
	val_bool(out, r);
}

static int
one_arg(const struct expr *call, const struct env *env, struct value *v,
    struct value *out)
{
	if (call->nkids != 1) {
		val_error(out);
		return 0;
	}
	classad_eval(call->kids[0], env, v);
	return 1;
}

/* int(V): a number truncated, a string read as C's strtod reads it. */
void
fn_int(const struct expr *call, const struct env *env, struct value *out)
{
	struct value v;
	long long i;

	if (!one_arg(call, env, &v, out))
		return;
	if (v.type == VAL_UNDEFINED)
		val_undef(out);
	else if (val_to_int(&v, &i))
		val_int(out, i);
	else
		val_error(out);
	value_free(&v);
}

void
fn_real(const struct expr *call, const struct env *env, struct value *out)
{
	struct value v;
	double d;

	if (!one_arg(call, env, &v, out))
		return;
	if (v.type == VAL_UNDEFINED)
		val_undef(out);
	else if (val_to_real(&v, &d))
		val_real(out, d);
	else
		val_error(out);
	value_free(&v);
}

/* string(V): V's text; reals as "%1.15E", booleans true/false. */
void
fn_string(const struct expr *call, const struct env *env, struct value *out)
{
	struct value v;

	if (!one_arg(call, env, &v, out))
		return;
	if (v.type == VAL_UNDEFINED)
		val_undef(out);
	else if (v.type == VAL_ERROR)
		val_error(out);
	else
		val_string(out, val_text(&v));
	value_free(&v);
}

/* bool(V): numbers non-zero, the strings "true" and "false". */
void
fn_bool(const struct expr *call, const struct env *env, struct value *out)
{
	struct value v;
	int b;

	if (!one_arg(call, env, &v, out))
		return;
	if (v.type == VAL_UNDEFINED)
		val_undef(out);
	else if (val_bool_equiv(&v, &b))
		val_bool(out, b);
	else if (v.type == VAL_RELTIME)	/* a duration: non-zero is true */
		val_bool(out, v.u.r != 0);
	else if (v.type == VAL_STRING && strcasecmp(v.u.s, "true") == 0)
		val_bool(out, 1);
	else if (v.type == VAL_STRING && strcasecmp(v.u.s, "false") == 0)
		val_bool(out, 0);
	else if (v.type == VAL_STRING)
		val_undef(out);
	else
		val_error(out);
	value_free(&v);
}

static long long
real_to_ll(double r)
{
	if (isnan(r) || r >= 9223372036854775808.0 ||
	    r < -9223372036854775808.0)
		return LLONG_MIN;
	return (long long)r;
}

/* floor, ceil(ing), round (halves to even, as rint): an integer; an
 * integer passes through. */
void
fn_round(const struct expr *call, const struct env *env, struct value *out)
{
	struct value v;
	double d;

	if (!one_arg(call, env, &v, out))
		return;
	if (v.type == VAL_INT)
		val_int(out, v.u.i);
	else if (!val_to_real(&v, &d))
		val_error(out);
	else if (strcasecmp(call->name, "floor") == 0)
		val_int(out, real_to_ll(floor(d)));
	else if (strcasecmp(call->name, "round") == 0)
		val_int(out, real_to_ll(rint(d)));
	else
		val_int(out, real_to_ll(ceil(d)));
	value_free(&v);
}

/* pow(B, E): an integer for integers and E >= 0, else a real. */
void
fn_pow(const struct expr *call, const struct env *env, struct value *out)
{
	struct value a[2];
	double x, y;

	if (call->nkids != 2) {
		val_error(out);
		return;
	}
	args_eval(call, env, a, 2);
	if (a[0].type == VAL_INT && a[1].type == VAL_INT && a[1].u.i >= 0)
		val_int(out, real_to_ll(pow((double)a[0].u.i,
		    (double)a[1].u.i) + 0.5));
	else if (a[0].type == VAL_UNDEFINED || a[1].type == VAL_UNDEFINED ||
	    !val_to_real(&a[0], &x) || !val_to_real(&a[1], &y))
		val_error(out);
	else
		val_real(out, pow(x, y));
	args_free(a, 2);
}

/* quantize(A, B): A rounded up to a multiple of B (or to the first of
 * list B not below it). */
void
fn_quantize(const struct expr *call, const struct env *env, struct value *out)
{
	struct value a[2], base, item;
	double ra, rb = 0;
	size_t i, n;

	if (call->nkids != 2) {
		val_error(out);
		return;
	}
	args_eval(call, env, a, 2);
	val_undef(&base);
	if (a[0].type == VAL_UNDEFINED || !val_to_real(&a[0], &ra)) {
		val_error(out);
		goto done;
	}
	if (a[1].type == VAL_LIST) {
		n = list_len(&a[1]);
		val_real(&base, 0);
		for (i = 0; i < n; i++) {
			list_item(&a[1], i, &item, env->ctx);
			value_free(&base);
			base = item;
			if (!val_to_real(&base, &rb)) {
				val_error(out);
				goto done;
			}
			if (rb >= ra) {
				value_copy(out, &base);
				goto done;
			}
		}
	} else {
		value_copy(&base, &a[1]);
		if (base.type == VAL_UNDEFINED || !val_to_real(&base, &rb)) {
			val_error(out);
			goto done;
		}
	}
	if (base.type == VAL_INT) {
		long long b = base.u.i;

		if (b == 0)
			value_copy(out, &a[0]);
		else if (a[0].type == VAL_INT) {
			/* Wrapping as HTCondor's long long arithmetic. */
			long long q = (long long)((unsigned long long)a[0].u.i +
			    (unsigned long long)b - 1);

			val_int(out, (long long)((unsigned long long)(q / b) *
			    (unsigned long long)b));
		} else
			val_real(out, ceil(ra / (double)b) * (double)b);
	} else if (rb >= -1e-8 && rb <= 1e-8)
		value_copy(out, &a[0]);
	else
		val_real(out, ceil(ra / rb) * rb);
done:
	value_free(&base);
	args_free(a, 2);
}

/* random([N]): an integer in [0, N) or a real in [0, N). */
void
fn_random(const struct expr *call, const struct env *env, struct value *out)
{
	struct value v;

	if (call->nkids > 1) {
		val_error(out);
		return;
	}
	if (call->nkids == 0)
		val_real(&v, 1.0);
	else
		classad_eval(call->kids[0], env, &v);
	if (v.type == VAL_INT && v.u.i > 0)
		val_int(out, (long long)(drand48() * (double)v.u.i));
	else if (v.type == VAL_REAL && v.u.r > 0)
		val_real(out, v.u.r * drand48());
	else
		val_error(out);
	value_free(&v);
}

/* ifThenElse(C, A, B): A or B as C is true or false, evaluating only
 * that one; UNDEFINED for an undefined C, ERROR for anything else. */
void
fn_ifthenelse(const struct expr *call, const struct env *env,
    struct value *out)
{
	struct value c;
	int b;

	if (call->nkids != 3) {
		val_error(out);
		return;
	}
	classad_eval(call->kids[0], env, &c);
	if (val_bool_equiv(&c, &b))
		classad_eval(call->kids[b ? 1 : 2], env, out);
	else if (c.type == VAL_UNDEFINED)
		val_undef(out);
	else
		val_error(out);
	value_free(&c);
}

/* eval(S): S parsed and evaluated here. */
void
fn_eval(const struct expr *call, const struct env *env, struct value *out)
{
	struct value v;
	struct expr *e;
	char *s;

	if (!one_arg(call, env, &v, out))
		return;
	if (v.type == VAL_UNDEFINED || v.type == VAL_ERROR) {
		value_free(&v);
		val_error(out);
		return;
	}
	s = val_text(&v);
	value_free(&v);
	if ((e = expr_parse(s, NULL, 0)) == NULL)
		val_error(out);
	else {
		classad_eval(e, env, out);
		expr_free(e);
	}
	free(s);
}

/* debug(V): V (HTCondor logs it; we have nowhere to). */
void
fn_debug(const struct expr *call, const struct env *env, struct value *out)
{
	if (call->nkids != 1) {
		val_error(out);
		return;
	}
	classad_eval(call->kids[0], env, out);
}

/* unparse(Attr): the text of attribute Attr's expression. */
void
fn_unparse(const struct expr *call, const struct env *env, struct value *out)
{
	const struct expr *x;
	struct buf b;

	if (call->nkids != 1 || call->kids[0]->kind != EK_ATTR) {
		val_error(out);
		return;
	}
	x = ad_lookup(call->kids[0]->scope == SCOPE_TARGET ? env->target :
	    env->my, call->kids[0]->name);
	buf_init(&b);
	if (x != NULL)
		unparse_expr(x, HTC_PRETTY, &b);
	val_string(out, buf_take(&b));
}

void
fn_time(const struct expr *call, const struct env *env, struct value *out)
{
	if (call->nkids != 0) {
		val_error(out);
		return;
	}
	val_int(out, (long long)time(NULL));
}

/* interval(S): seconds as [days+]hh:mm:ss. */
void
fn_interval(const struct expr *call, const struct env *env,
    struct value *out)
{
	struct value v;
	long long t, days, hours, mins, secs;
	char s[96];

	if (!one_arg(call, env, &v, out))
		return;
	if (!val_to_int(&v, &t)) {
		value_free(&v);
		val_error(out);
		return;
	}
	value_free(&v);
	t = (int)(unsigned)t;
	days = t / 86400;
	t -= 86400 * days;
	hours = t / 3600;
	t -= 3600 * hours;
	mins = t / 60;
	secs = t - 60 * mins;
	if (days != 0)
		(void)snprintf(s, sizeof(s), "%lld+%02lld:%02lld:%02lld", days,
		    llabs(hours), llabs(mins), llabs(secs));
	else if (hours != 0)
		(void)snprintf(s, sizeof(s), "%lld:%02lld:%02lld", hours,
		    llabs(mins), llabs(secs));
	else if (mins != 0)
		(void)snprintf(s, sizeof(s), "%lld:%02lld", mins, llabs(secs));
	else
		(void)snprintf(s, sizeof(s), "%lld", secs);
	val_strdup(out, s);
}

/* HTCondor's day numbers: days since the Gregorian calendar's day 0
 * (a Sunday), for the weekday and the day of the year of an ad's date,
 * whatever its fields hold. */
static long long
fixed_day(long long y, long long m, long long d)
{
	long long adj = m <= 2 ? 0 :
	    ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0) ? -1 : -2;

	return 365 * (y - 1) + (y - 1) / 4 - (y - 1) / 100 + (y - 1) / 400 +
	    (367 * m - 362) / 12 + adj + d;
}

/* Field NAME of ad value V as an integer less BIAS, or 0 where it is no
 * integer (HTCondor's defaults: year 1900, January, day 0). */
static int
ad_int_field(const struct value *v, const char *name, int bias,
    struct eval_ctx *ctx)
{
	struct value f;
	int r = 0;

	ad_value_lookup(v, name, &f, ctx);
	if (f.type == VAL_INT && f.u.i >= -1000000000LL &&
	    f.u.i <= 1000000000LL)
		r = (int)f.u.i - bias;
	value_free(&f);
	return r;
}

/*
 * formatTime([T[, FMT]]): strftime of T (now) in local time, or of an
 * absolute time in its own zone; FMT "%c" by default.  As HTCondor's, T
 * may also be a real (truncated) or the ad splitTime() makes (its
 * integer Year, Month, Day, Hours, Minutes, Seconds; missing ones 0).
 */
void
fn_formattime(const struct expr *call, const struct env *env,
    struct value *out)
{
	struct value a[2];
	long long t = (long long)time(NULL), fixed;
	const char *fmt = "%c";
	size_t n;
	time_t tt;
	struct tm tm, *tp = &tm;
	int zoned = 0, split = 0;
	char s[1024];

	if (call->nkids > 2) {
		val_error(out);
		return;
	}
	n = args_eval(call, env, a, 2);
	if (n >= 1) {
		if (a[0].type == VAL_ABSTIME) {
			t = a[0].u.t.secs + a[0].u.t.off;
			zoned = 1;
		} else if (a[0].type == VAL_INT) {
			t = a[0].u.i;
		} else if (a[0].type == VAL_REAL && a[0].u.r > -9e15 &&
		    a[0].u.r < 9e15) {
			t = (long long)a[0].u.r;
		} else if (a[0].type == VAL_AD) {
			split = 1;
		} else {
			val_error(out);
			goto done;
		}
	}
	if (n == 2) {
		if (a[1].type != VAL_STRING) {
			val_error(out);
			goto done;
		}
		fmt = a[1].u.s;
	}
	if (split) {
		memset(&tm, 0, sizeof(tm));
		tm.tm_sec = ad_int_field(&a[0], "Seconds", 0, env->ctx);
		tm.tm_min = ad_int_field(&a[0], "Minutes", 0, env->ctx);
		tm.tm_hour = ad_int_field(&a[0], "Hours", 0, env->ctx);
		tm.tm_mday = ad_int_field(&a[0], "Day", 0, env->ctx);
		tm.tm_mon = ad_int_field(&a[0], "Month", 1, env->ctx);
		tm.tm_year = ad_int_field(&a[0], "Year", 1900, env->ctx);
		fixed = fixed_day(tm.tm_year + 1900LL, tm.tm_mon + 1LL,
		    tm.tm_mday);
		tm.tm_wday = (int)(((fixed % 7) + 7) % 7);
		tm.tm_yday = (int)(fixed - fixed_day(tm.tm_year + 1900LL, 1, 1));
		/* strftime wants fields it can index tables with. */
		if (tm.tm_mon < 0 || tm.tm_mon > 11)
			tm.tm_mon = 0;
	} else {
		tt = (time_t)t;
		tp = zoned ? gmtime_r(&tt, &tm) : localtime_r(&tt, &tm);
	}
	if (tp == NULL) {
		val_error(out);
		goto done;
	}
	if (strftime(s, sizeof(s), fmt, &tm) == 0)
		s[0] = '\0';
	val_strdup(out, s);
done:
	args_free(a, n);
}

/* A number of seconds for relTime() and absTime(): an integer, a real
 * or a relative time; 1 if V is one. */
static int
time_secs(const struct value *v, double *d)
{
	if (v->type != VAL_INT && v->type != VAL_REAL &&
	    v->type != VAL_RELTIME)
		return 0;
	return val_to_real(v, d);
}

/*
 * The digits of S ending just before index *I (reading backwards, as
 * HTCondor does), as a whole number (0 when there are none, or too
 * many); *I is left before them.
 */
static double
digits_before(const char *s, long *i)
{
	long end = *i + 1;

	while (*i >= 0 && isdigit((unsigned char)s[*i]))
		(*i)--;
	if (end - (*i + 1) > 15)
		return 0;
	return end > *i + 1 ? strtod(s + *i + 1, NULL) : 0;
}

static void
skip_space_back(const char *s, long *i)
{
	while (*i >= 0 && isspace((unsigned char)s[*i]))
		(*i)--;
}

/*
 * A relative time's text into *D; 1 if S is one.  HTCondor reads it from
 * the right: seconds (with a fraction, a trailing "s" allowed), then
 * minutes after ':' or 'm', hours after ':' or 'h', days after '+' or
 * 'd', and a leading '-': "1+02:03:04", "90", "1d 2h", "-5s".  Every
 * part may be missing (relTime("") is 0); nothing else may be there.
 */
static int
reltime_parse(const char *s, double *d)
{
	static const char *const units[] = { "mM:", "hH:", "dD+" };
	static const double scale[] = { 60, 3600, 86400 };
	double secs = 0, part;
	long i = (long)strlen(s) - 1, end;
	size_t u;
	int neg = 0;

	skip_space_back(s, &i);
	if (i >= 0 && (s[i] == 's' || s[i] == 'S' ||
	    isdigit((unsigned char)s[i]))) {
		if (!isdigit((unsigned char)s[i]))
			i--;
		skip_space_back(s, &i);
		end = i;
		while (i >= 0 && isdigit((unsigned char)s[i]))
			i--;
		if (i >= 0 && s[i] == '.') {
			i--;
			while (i >= 0 && isdigit((unsigned char)s[i]))
				i--;
		}
		if (end - i > 30)
			return 0;
		if (end > i)
			secs = strtod(s + i + 1, NULL);
	}
	for (u = 0; u < 3; u++) {
		skip_space_back(s, &i);
		if (i < 0 || strchr(units[u], s[i]) == NULL)
			continue;
		i--;
		skip_space_back(s, &i);
		part = digits_before(s, &i);
		secs += part * scale[u];
	}
	skip_space_back(s, &i);
	if (i >= 0 && s[i] == '-') {
		neg = 1;
		i--;
	}
	skip_space_back(s, &i);
	if (i >= 0)
		return 0;
	*d = neg ? -secs : secs;
	return isfinite(*d) && fabs(*d) < 1e15;
}

/*
 * An absolute time's text into *SECS and its zone *OFF; 1 if S is one.
 * As HTCondor reads it: a zone at the end ("Z", "+hh:mm", "+hhmm"; none
 * is the local zone), then, skipping whatever is not a digit between
 * them, a four-digit year and two-digit month, day, hours, minutes and
 * seconds, each but the year optional and out-of-range fields carried
 * over: "2026-11-28T01:00:00+01:00", "20261128T010000Z", "2026-11-28".
 */
static int
abstime_parse(const char *s, long long *secs, int *off)
{
	char t[64];
	int field[6] = { 0, 1, 0, 0, 0, 0 }, zoned = 0, sign;
	size_t len, i, f;
	struct tm tm;
	time_t local;

	if ((len = strlen(s)) >= sizeof(t))
		return 0;
	memcpy(t, s, len + 1);
	while (len > 0 && isspace((unsigned char)t[len - 1]))
		len--;
	t[len] = '\0';
	*off = 0;
	if (len > 1 && (t[len - 1] == 'z' || t[len - 1] == 'Z')) {
		zoned = 1;
		t[--len] = '\0';
	} else if (len > 6 && (t[len - 6] == '+' || t[len - 6] == '-') &&
	    t[len - 3] == ':') {
		memmove(t + len - 3, t + len - 2, 3);
		len--;
	}
	if (!zoned && len > 5 && (t[len - 5] == '+' || t[len - 5] == '-')) {
		for (i = len - 4; i < len; i++)
			if (!isdigit((unsigned char)t[i]))
				return 0;
		sign = t[len - 5] == '-' ? -1 : 1;
		*off = sign * (((t[len - 4] - '0') * 10 + t[len - 3] - '0') *
		    3600 + ((t[len - 2] - '0') * 10 + t[len - 1] - '0') * 60);
		zoned = 1;
		t[len -= 5] = '\0';
	}
	for (i = 0, f = 0; f < 6; f++) {
		size_t w = f == 0 ? 4 : 2, k;

		while (i < len && !isdigit((unsigned char)t[i]))
			i++;
		if (i + w > len) {
			if (f == 0)
				return 0;
			break;
		}
		field[f] = 0;
		for (k = 0; k < w && isdigit((unsigned char)t[i + k]); k++)
			field[f] = field[f] * 10 + t[i + k] - '0';
		i += w;
	}
	while (i < len && !isdigit((unsigned char)t[i]))
		i++;
	if (i < len)
		return 0;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = field[0] - 1900;
	tm.tm_mon = field[1] - 1;
	tm.tm_mday = field[2];
	tm.tm_hour = field[3];
	tm.tm_min = field[4];
	tm.tm_sec = field[5];
	*secs = (long long)timegm(&tm);
	if (!zoned) {
		/* The zone of the place, at that time. */
		local = (time_t)*secs;
		if (localtime_r(&local, &tm) != NULL)
			*off = (int)tm.tm_gmtoff;
	}
	*secs -= *off;
	return 1;
}

/*
 * time_literal: the value of absTime(S) (ABS) or relTime(S) of string
 * literal S, as HTCondor's parser makes it; 1, or 0 if S is no time.
 */
int
time_literal(int abs, const char *s, struct value *out)
{
	long long secs;
	double d;
	int off;

	if (abs) {
		if (!abstime_parse(s, &secs, &off))
			return 0;
		val_abstime(out, secs, off);
	} else {
		if (!reltime_parse(s, &d))
			return 0;
		val_reltime(out, d);
	}
	return 1;
}

/*
 * time_reads_back: whether time value V's printed text reads back as V
 * (not so for years past 9999, or a relative time %g prints with an
 * exponent); a literal that does not stays a call, so that an
 * expression's text always parses to itself.
 */
int
time_reads_back(const struct value *v)
{
	struct value w;
	struct buf b;
	int same;

	buf_init(&b);
	time_unparse(v, 0, &b);
	same = time_literal(v->type == VAL_ABSTIME, b.data, &w) &&
	    w.type == v->type && (v->type == VAL_ABSTIME ?
	    w.u.t.secs == v->u.t.secs && w.u.t.off == v->u.t.off :
	    w.u.r == v->u.r);
	buf_free(&b);
	return same;
}

/* relTime(N): N seconds as a relative time; relTime("01:30") reads
 * back what it prints. */
void
fn_reltime(const struct expr *call, const struct env *env, struct value *out)
{
	struct value v;
	double d;

	if (!one_arg(call, env, &v, out))
		return;
	if (v.type == VAL_UNDEFINED)
		val_undef(out);
	else if (v.type == VAL_STRING && reltime_parse(v.u.s, &d))
		val_reltime(out, d);
	else if (time_secs(&v, &d) && isfinite(d) && fabs(d) < 1e15)
		val_reltime(out, d);
	else
		val_error(out);
	value_free(&v);
}

/*
 * absTime([SECS[, OFFSET]]): SECS since the epoch (now) as an absolute
 * time in the zone OFFSET seconds east of UTC (the local zone);
 * absTime("2023-11-14T23:13:20+01:00") reads back what it prints.  Reals
 * are truncated; an OFFSET that is not a number, beyond a day, or -1
 * (which HTCondor reserves) is ERROR.
 */
void
fn_abstime(const struct expr *call, const struct env *env, struct value *out)
{
	struct value a[2];
	double secs, off;
	size_t n;
	time_t now;
	struct tm tm;

	if (call->nkids > 2) {
		val_error(out);
		return;
	}
	n = args_eval(call, env, a, 2);
	now = time(NULL);
	secs = (double)now;
	off = localtime_r(&now, &tm) != NULL ? (double)tm.tm_gmtoff : 0;
	if (n >= 1 && a[0].type == VAL_UNDEFINED) {
		val_undef(out);
		goto done;
	}
	if (n == 1 && a[0].type == VAL_STRING) {
		long long t;
		int o;

		if (abstime_parse(a[0].u.s, &t, &o))
			val_abstime(out, t, o);
		else
			val_error(out);
		goto done;
	}
	if (n >= 1 && !time_secs(&a[0], &secs)) {
		val_error(out);
		goto done;
	}
	if (n == 2 && !time_secs(&a[1], &off)) {
		val_error(out);
		goto done;
	}
	off = trunc(off);
	secs = trunc(secs);
	if (isnan(secs) || fabs(secs) > 1e15 || isnan(off) ||
	    fabs(off) > 86400 || off == -1) {
		val_error(out);
		goto done;
	}
	val_abstime(out, (long long)secs, (int)off);
done:
	args_free(a, n);
}
