/*
 * fn_time.c: the ClassAd functions that take times apart or tell the
 * time of the place (currentTime, timeZoneOffset, dayTime, getYear and
 * its kin, splitTime), as HTCondor's ClassAd library has them.
 */
#include <stddef.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "classad_impl.h"
#include "expr.h"

fn_t fn_currenttime, fn_timezoneoffset, fn_daytime, fn_getfield,
    fn_splittime;

/* The zone offset of the place at time T, seconds east of UTC. */
static int
local_offset(time_t t)
{
	struct tm tm;

	return localtime_r(&t, &tm) != NULL ? (int)tm.tm_gmtoff : 0;
}

/* currentTime(): now, as an absolute time in the zone of the place. */
void
fn_currenttime(const struct expr *call, const struct env *env,
    struct value *out)
{
	time_t now = time(NULL);

	if (call->nkids != 0)
		val_error(out);
	else
		val_abstime(out, (long long)now, local_offset(now));
}

/* timeZoneOffset(): the zone offset of the place, a relative time. */
void
fn_timezoneoffset(const struct expr *call, const struct env *env,
    struct value *out)
{
	if (call->nkids != 0)
		val_error(out);
	else
		val_reltime(out, local_offset(time(NULL)));
}

/* dayTime(): the time since midnight at the place, a relative time. */
void
fn_daytime(const struct expr *call, const struct env *env,
    struct value *out)
{
	time_t now = time(NULL);
	struct tm tm;

	if (call->nkids != 0 || localtime_r(&now, &tm) == NULL)
		val_error(out);
	else
		val_reltime(out, tm.tm_hour * 3600 + tm.tm_min * 60 +
		    tm.tm_sec);
}

/* Relative seconds as HTCondor takes them whole: truncated toward 0. */
static long long
rel_whole(double r)
{
	if (!(r > -9e18 && r < 9e18))
		return 0;
	return (long long)r;
}

/*
 * getYear(T), getMonth, getDayOfYear (from 0), getDayOfMonth,
 * getDayOfWeek (0 Sunday), getHours, getMinutes, getSeconds, getDays.
 * An absolute time is read in the zone of the place (not its own, as
 * HTCondor does); a relative one gives only days, hours, minutes and
 * seconds.  Anything else, UNDEFINED too, is ERROR.
 */
void
fn_getfield(const struct expr *call, const struct env *env,
    struct value *out)
{
	static const char *const names[] = { "getYear", "getMonth",
	    "getDayOfYear", "getDayOfMonth", "getDayOfWeek", "getHours",
	    "getMinutes", "getSeconds", "getDays" };
	struct value v;
	struct tm tm;
	time_t t;
	long long r;
	size_t f;

	if (call->nkids != 1) {
		val_error(out);
		return;
	}
	for (f = 0; f < sizeof(names) / sizeof(names[0]); f++)
		if (strcasecmp(call->name, names[f]) == 0)
			break;
	classad_eval(call->kids[0], env, &v);
	if (v.type == VAL_ABSTIME && f != 8) {
		t = (time_t)v.u.t.secs;
		if (localtime_r(&t, &tm) == NULL) {
			val_error(out);
			return;
		}
		switch (f) {
		case 0:
			val_int(out, tm.tm_year + 1900LL);
			break;
		case 1:
			val_int(out, tm.tm_mon + 1);
			break;
		case 2:
			val_int(out, tm.tm_yday);
			break;
		case 3:
			val_int(out, tm.tm_mday);
			break;
		case 4:
			val_int(out, tm.tm_wday);
			break;
		case 5:
			val_int(out, tm.tm_hour);
			break;
		case 6:
			val_int(out, tm.tm_min);
			break;
		default:
			val_int(out, tm.tm_sec);
			break;
		}
		return;
	}
	if (v.type == VAL_RELTIME && f >= 5) {
		r = rel_whole(v.u.r);
		switch (f) {
		case 5:
			val_int(out, r % 86400 / 3600);
			break;
		case 6:
			val_int(out, r % 3600 / 60);
			break;
		case 7:
			val_int(out, r % 60);
			break;
		default:
			val_int(out, r / 86400);
			break;
		}
		return;
	}
	value_free(&v);
	val_error(out);
}

/* An absolute time's fields in its own zone, as an ad. */
static void
split_abstime(long long secs, int off, struct value *out)
{
	static const char *const names[] = { "Type", "Year", "Month", "Day",
	    "Hours", "Minutes", "Seconds", "Offset" };
	struct value vals[8];
	struct tm tm;
	time_t t = (time_t)(secs + off);

	if (gmtime_r(&t, &tm) == NULL)
		memset(&tm, 0, sizeof(tm));
	val_strdup(&vals[0], "AbsoluteTime");
	val_int(&vals[1], tm.tm_year + 1900LL);
	val_int(&vals[2], tm.tm_mon + 1);
	val_int(&vals[3], tm.tm_mday);
	val_int(&vals[4], tm.tm_hour);
	val_int(&vals[5], tm.tm_min);
	val_int(&vals[6], tm.tm_sec);
	val_int(&vals[7], off);
	val_ad(out, names, vals, 8);
}

/*
 * A relative time's fields as an ad; only the first non-zero of days,
 * hours, minutes and seconds carries the sign of a negative one (as
 * HTCondor has it).
 */
static void
split_reltime(double r, struct value *out)
{
	static const char *const names[] = { "Type", "Days", "Hours",
	    "Minutes", "Seconds" };
	struct value vals[5];
	long long whole, days, hrs, mins;
	double secs;
	int neg = r < 0;

	if (neg)
		r = -r;
	whole = rel_whole(r);
	days = whole / 86400;
	hrs = whole % 86400 / 3600;
	mins = whole % 3600 / 60;
	secs = (double)(whole % 60) + (r - (double)whole);
	if (neg) {
		if (days > 0)
			days = -days;
		else if (hrs > 0)
			hrs = -hrs;
		else if (mins > 0)
			mins = -mins;
		else
			secs = -secs;
	}
	val_strdup(&vals[0], "RelativeTime");
	val_int(&vals[1], days);
	val_int(&vals[2], hrs);
	val_int(&vals[3], mins);
	val_real(&vals[4], secs);
	val_ad(out, names, vals, 5);
}

/*
 * splitTime(T): the fields of time T as an ad: an absolute time's Type
 * ("AbsoluteTime"), Year, Month, Day, Hours, Minutes, Seconds and
 * Offset in its own zone; a number is seconds since the epoch in the
 * zone of the place; a relative time's Type ("RelativeTime"), Days,
 * Hours, Minutes and Seconds (a real).  UNDEFINED is UNDEFINED; any
 * other value ERROR.
 */
void
fn_splittime(const struct expr *call, const struct env *env,
    struct value *out)
{
	struct value v;
	long long secs;

	if (call->nkids != 1) {
		val_error(out);
		return;
	}
	classad_eval(call->kids[0], env, &v);
	switch (v.type) {
	case VAL_UNDEFINED:
		val_undef(out);
		return;
	case VAL_ABSTIME:
		split_abstime(v.u.t.secs, v.u.t.off, out);
		return;
	case VAL_RELTIME:
		split_reltime(v.u.r, out);
		return;
	case VAL_INT:
	case VAL_REAL:
		if (v.type == VAL_REAL) {
			if (!(v.u.r > -2147483649.0 && v.u.r < 2147483648.0)) {
				val_error(out);
				return;
			}
			secs = (long long)v.u.r;
		} else
			secs = v.u.i;
		if (secs < -(1LL << 40) || secs > (1LL << 40)) {
			val_error(out);
			return;
		}
		split_abstime(secs, local_offset((time_t)secs), out);
		return;
	default:
		value_free(&v);
		val_error(out);
		return;
	}
}
