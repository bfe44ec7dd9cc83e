/*
 * value.c: ClassAd values: making, copying, freeing, converting and
 * printing them.  Lists and nested ads hold a counted reference to their
 * expression, whose elements are evaluated when asked for.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ad.h"
#include "buf.h"
#include "classad_impl.h"
#include "expr.h"
#include "xalloc.h"

void
val_undef(struct value *v)
{
	v->type = VAL_UNDEFINED;
	v->u.i = 0;
}

void
val_error(struct value *v)
{
	v->type = VAL_ERROR;
	v->u.i = 0;
}

void
val_bool(struct value *v, int b)
{
	v->type = VAL_BOOL;
	v->u.b = b != 0;
}

void
val_int(struct value *v, long long i)
{
	v->type = VAL_INT;
	v->u.i = i;
}

void
val_real(struct value *v, double r)
{
	v->type = VAL_REAL;
	v->u.r = r;
}

/* Takes ownership of S; a string past EXPR_MAX_STRING is ERROR. */
void
val_string(struct value *v, char *s)
{
	if (strlen(s) > EXPR_MAX_STRING) {
		free(s);
		val_error(v);
		return;
	}
	v->type = VAL_STRING;
	v->u.s = s;
}

void
val_strdup(struct value *v, const char *s)
{
	val_string(v, xstrdup(s));
}

void
val_ref(struct value *v, enum value_type t, const struct expr *e,
    const struct env *env)
{
	struct expr *x = (struct expr *)(uintptr_t)e;

	x->shared++;
	v->type = t;
	v->u.x.e = x;
	v->u.x.my = env != NULL ? env->my : NULL;
	v->u.x.target = env != NULL ? env->target : NULL;
	v->u.x.nest = env != NULL ? env->nest : NULL;
}

void
val_list(struct value *v, struct value *vals, size_t n)
{
	struct expr *e;
	size_t i;

	e = node_new(EK_LIST, 0, n);
	e->op = LIST_MADE;
	for (i = 0; i < n; i++) {
		if (vals[i].type == VAL_LIST || vals[i].type == VAL_AD) {
			e->kids[i] = vals[i].u.x.e;	/* the reference moves */
			vals[i].type = VAL_UNDEFINED;
			continue;
		}
		e->kids[i] = node_new(EK_LIT, 0, 0);
		e->kids[i]->lit = vals[i];
		val_undef(&vals[i]);
		if (e->kids[i]->height + 1 > e->height)
			e->height = e->kids[i]->height + 1;
	}
	for (i = 0; i < n; i++)
		if (e->kids[i]->height + 1 > e->height)
			e->height = e->kids[i]->height + 1;
	v->type = VAL_LIST;
	v->u.x.e = e;
	v->u.x.my = v->u.x.target = NULL;
	v->u.x.nest = NULL;
}

/*
 * val_ad: a nested ad value of N attributes NAMES (copied) with literal
 * values VALS (moved in), written in no other ad.
 */
void
val_ad(struct value *v, const char *const *names, struct value *vals,
    size_t n)
{
	struct expr *e;
	size_t i;

	val_list(v, vals, n);
	e = v->u.x.e;
	e->kind = EK_AD;
	e->names = xcalloc(n > 0 ? n : 1, sizeof(*e->names));
	for (i = 0; i < n; i++)
		e->names[i] = xstrdup(names[i]);
	v->type = VAL_AD;
}

/* value_free: release what V holds; V is left UNDEFINED.  NULL is
 * allowed. */
void
value_free(struct value *v)
{
	if (v == NULL)
		return;
	if (v->type == VAL_STRING)
		free(v->u.s);
	else if (v->type == VAL_LIST || v->type == VAL_AD)
		expr_free(v->u.x.e);
	val_undef(v);
}

void
value_copy(struct value *dst, const struct value *src)
{
	*dst = *src;
	if (src->type == VAL_STRING)
		dst->u.s = xstrdup(src->u.s);
	else if (src->type == VAL_LIST || src->type == VAL_AD)
		src->u.x.e->shared++;
}

int
value_is_true(const struct value *v)
{
	switch (v->type) {
	case VAL_BOOL:
		return v->u.b != 0;
	case VAL_INT:
		return v->u.i != 0;
	case VAL_REAL:
		return v->u.r != 0;
	default:
		return 0;
	}
}

const char *
value_type_name(enum value_type t)
{
	switch (t) {
	case VAL_UNDEFINED:
		return "undefined";
	case VAL_ERROR:
		return "error";
	case VAL_BOOL:
		return "boolean";
	case VAL_INT:
		return "integer";
	case VAL_REAL:
		return "real";
	case VAL_STRING:
		return "string";
	case VAL_LIST:
		return "list";
	case VAL_AD:
		return "classad";
	case VAL_ABSTIME:
		return "abstime";
	case VAL_RELTIME:
		return "reltime";
	}
	return "unknown";
}

int
val_is_number(const struct value *v)
{
	return v->type == VAL_BOOL || v->type == VAL_INT ||
	    v->type == VAL_REAL;
}

int
val_bool_equiv(const struct value *v, int *b)
{
	if (!val_is_number(v))
		return 0;
	*b = value_is_true(v);
	return 1;
}

/*
 * HTCondor prints an attribute's real with 16 significant digits (".0"
 * added when that looks like an integer) and the reals that string()
 * makes with "%1.15E"; zero keeps its sign, and infinities and NaN are
 * written as the call that makes them.  OLD: 1 the attribute form, 2
 * the same but exact (17 digits when 16 lose the value), 0 string()'s.
 */
void
real_unparse(double d, int old, struct buf *b)
{
	char s[64];

	if (d == 0) {
		buf_adds(b, signbit(d) ? "-0.0" : "0.0");
		return;
	}
	if (isnan(d)) {
		buf_adds(b, "real(\"NaN\")");
		return;
	}
	if (isinf(d)) {
		buf_adds(b, d < 0 ? "real(\"-INF\")" : "real(\"INF\")");
		return;
	}
	if (!old) {
		(void)snprintf(s, sizeof(s), "%1.15E", d);
		buf_adds(b, s);
		return;
	}
	(void)snprintf(s, sizeof(s), "%.16G", d);
	/* Our own text (old == 2), which ads travel and are stored in, must
	 * read back to the same double: 17 digits where 16 do not. */
	if (old == 2 && strtod(s, NULL) != d)
		(void)snprintf(s, sizeof(s), "%.17G", d);
	buf_adds(b, s);
	if (s[strcspn(s, ".Ee")] == '\0')
		buf_adds(b, ".0");
}

void
val_abstime(struct value *v, long long secs, int off)
{
	v->type = VAL_ABSTIME;
	v->u.t.secs = secs;
	v->u.t.off = off;
}

void
val_reltime(struct value *v, double secs)
{
	v->type = VAL_RELTIME;
	v->u.r = secs;
}

/*
 * A time as HTCondor writes it: an absolute time as ISO 8601 in its own
 * zone (a zero offset as "-00:00"), a relative one as [days+]hh:mm:ss
 * without the leading zero fields.  WRAP: inside the call that makes it
 * back (absTime("..."), the attribute form), else bare (string()).
 */
void
time_unparse(const struct value *v, int wrap, struct buf *b)
{
	if (v->type == VAL_ABSTIME) {
		time_t t = (time_t)(v->u.t.secs + v->u.t.off);
		struct tm tm;
		int off = v->u.t.off;

		if (wrap)
			buf_adds(b, "absTime(\"");
		if (gmtime_r(&t, &tm) == NULL)
			memset(&tm, 0, sizeof(tm));
		buf_printf(b, "%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d",
		    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		    tm.tm_min, tm.tm_sec, off > 0 ? '+' : '-',
		    abs(off) / 3600, abs(off) % 3600 / 60);
	} else {
		double r = v->u.r, frac;
		long long whole, days, hrs, mins, secs;

		if (wrap)
			buf_adds(b, "relTime(\"");
		if (r < 0) {
			buf_addc(b, '-');
			r = -r;
		}
		if (!(r < 9e18))	/* NaN, infinite, out of range */
			r = 0;
		whole = (long long)floor(r);
		frac = r - (double)whole;
		days = whole / 86400;
		hrs = whole % 86400 / 3600;
		mins = whole % 3600 / 60;
		secs = whole % 60;
		if (days != 0)
			buf_printf(b, "%lld+", days);
		if (days != 0 || hrs != 0)
			buf_printf(b, "%02lld:", hrs);
		if (days != 0 || hrs != 0 || mins != 0)
			buf_printf(b, "%02lld:", mins);
		if (frac != 0)
			buf_printf(b, "%g", (double)secs + frac);
		else
			buf_printf(b, "%02lld", secs);
	}
	if (wrap)
		buf_adds(b, "\")");
}

/* Our own text form escapes what the lexer would read otherwise, so
 * that every string reads back the same. */
static void
string_print(const char *s, struct buf *b)
{
	const char *p;

	buf_addc(b, '"');
	for (p = s; *p != '\0'; p++) {
		switch (*p) {
		case '"':
			buf_adds(b, "\\\"");
			break;
		case '\\':
			buf_adds(b, "\\\\");
			break;
		case '\n':
			buf_adds(b, "\\n");
			break;
		case '\t':
			buf_adds(b, "\\t");
			break;
		case '\r':
			buf_adds(b, "\\r");
			break;
		default:
			buf_addc(b, *p);
		}
	}
	buf_addc(b, '"');
}

/* HTCondor's attribute form escapes only the quote; its new syntax (in
 * strings that string() makes of lists) escapes controls too. */
static void
string_unparse(const char *s, int old, struct buf *b)
{
	const unsigned char *p;

	buf_addc(b, '"');
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p == '"') {
			buf_adds(b, "\\\"");
			continue;
		}
		if (!old) {
			const char *m = strchr("\a\b\f\n\r\t\v\\", *p);

			if (m != NULL) {
				buf_addc(b, '\\');
				buf_addc(b, "abfnrtv\\"[m - "\a\b\f\n\r\t\v\\"]);
				continue;
			}
			if (*p < 0x20 || *p >= 0x7f) {
				buf_printf(b, "\\%03o", *p);
				continue;
			}
		}
		buf_addc(b, *p);
	}
	buf_addc(b, '"');
}

void
value_print(const struct value *v, struct buf *b)
{
	switch (v->type) {
	case VAL_UNDEFINED:
		buf_adds(b, "undefined");
		break;
	case VAL_ERROR:
		buf_adds(b, "error");
		break;
	case VAL_BOOL:
		buf_adds(b, v->u.b ? "true" : "false");
		break;
	case VAL_INT:
		buf_printf(b, "%lld", v->u.i);
		break;
	case VAL_REAL:
		real_unparse(v->u.r, 2, b);
		break;
	case VAL_STRING:
		string_print(v->u.s, b);
		break;
	case VAL_LIST:
	case VAL_AD:
		unparse_expr(v->u.x.e, 0, b);
		break;
	case VAL_ABSTIME:
	case VAL_RELTIME:
		time_unparse(v, 1, b);
		break;
	}
}

/* OLD: the attribute form; else the new syntax string() uses. */
static void
value_unparse_as(const struct value *v, int old, struct buf *b)
{
	switch (v->type) {
	case VAL_UNDEFINED:
		buf_adds(b, "undefined");
		break;
	case VAL_ERROR:
		buf_adds(b, "error");
		break;
	case VAL_BOOL:
		buf_adds(b, v->u.b ? "true" : "false");
		break;
	case VAL_INT:
		buf_printf(b, "%lld", v->u.i);
		break;
	case VAL_REAL:
		real_unparse(v->u.r, old, b);
		break;
	case VAL_STRING:
		string_unparse(v->u.s, old, b);
		break;
	case VAL_LIST:
	case VAL_AD:
		unparse_expr(v->u.x.e, old ? 1 : 2, b);
		break;
	case VAL_ABSTIME:
	case VAL_RELTIME:
		time_unparse(v, 1, b);
		break;
	}
}

void
value_unparse(const struct value *v, struct buf *b)
{
	value_unparse_as(v, 1, b);
}

/* For unparse: a literal in HTCondor's form (HTC 1 old, 2 new). */
void value_unparse_lit(const struct value *v, int htc, struct buf *b);
void
value_unparse_lit(const struct value *v, int htc, struct buf *b)
{
	value_unparse_as(v, htc == 1, b);
}

void
value_print_plain(const struct value *v, const char *undef, struct buf *b)
{
	switch (v->type) {
	case VAL_UNDEFINED:
		buf_adds(b, undef != NULL ? undef : "undefined");
		break;
	case VAL_ERROR:
		buf_adds(b, "error");
		break;
	case VAL_BOOL:
		buf_adds(b, v->u.b ? "true" : "false");
		break;
	case VAL_STRING:
		buf_adds(b, v->u.s);
		break;
	default:
		value_print(v, b);
		break;
	}
}

char *
val_text(const struct value *v)
{
	struct buf b;

	if (v->type == VAL_STRING)
		return xstrdup(v->u.s);
	buf_init(&b);
	if (v->type == VAL_ABSTIME || v->type == VAL_RELTIME)
		time_unparse(v, 0, &b);
	else
		value_unparse_as(v, 0, &b);
	return buf_take(&b);
}

/* C's strtod over a string: whether it read anything. */
static int
str_to_real(const char *s, double *d)
{
	char *end;

	*d = strtod(s, &end);
	return end != s;
}

int
val_to_real(const struct value *v, double *d)
{
	switch (v->type) {
	case VAL_BOOL:
		*d = v->u.b;
		return 1;
	case VAL_INT:
		*d = (double)v->u.i;
		return 1;
	case VAL_REAL:
	case VAL_RELTIME:
		*d = v->u.r;
		return 1;
	case VAL_ABSTIME:
		*d = (double)v->u.t.secs;
		return 1;
	case VAL_STRING:
		return str_to_real(v->u.s, d) || *d != 0;
	default:
		return 0;
	}
}

/* What x86-64 gives for a real out of range: the least integer. */
static long long
real_to_ll(double r)
{
	if (isnan(r) || r >= 9223372036854775808.0 ||
	    r < -9223372036854775808.0)
		return LLONG_MIN;
	return (long long)r;
}

int
val_to_int(const struct value *v, long long *i)
{
	double d;
	int ok;

	switch (v->type) {
	case VAL_BOOL:
		*i = v->u.b;
		return 1;
	case VAL_INT:
		*i = v->u.i;
		return 1;
	case VAL_REAL:
	case VAL_RELTIME:
		*i = real_to_ll(v->u.r);
		return 1;
	case VAL_ABSTIME:
		*i = v->u.t.secs;
		return 1;
	case VAL_STRING:
		ok = str_to_real(v->u.s, &d);
		*i = real_to_ll(d);
		return ok || *i != 0;
	default:
		return 0;
	}
}

size_t
value_list_len(const struct value *v)
{
	return list_len(v);
}

void
value_list_item(const struct value *v, size_t i, struct value *out)
{
	struct eval_ctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	list_item(v, i, out, &ctx);
}

void
value_ad_lookup(const struct value *v, const char *name, struct value *out)
{
	struct eval_ctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	ad_value_lookup(v, name, out, &ctx);
}
