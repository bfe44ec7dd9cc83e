/*
 * fn_list.c: the ClassAd functions on lists ({ ... }) and on string
 * lists ("a, b, c"): member, sum, avg, min, max, anyCompare, allCompare,
 * split, splitUserName, splitSlotName and the stringList family.
 */
#include <ctype.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "classad_impl.h"
#include "expr.h"
#include "regex_pcre.h"
#include "xalloc.h"

int	 re_options(const char *opts);

fn_t fn_member, fn_sumavg, fn_minmax, fn_listcompare, fn_sl_size,
    fn_sl_sum, fn_sl_member, fn_sl_regexp, fn_sl_intersect, fn_split_at,
    fn_split;

/* member(V, LIST) (==), identicalMember(V, LIST) (=?=). */
void
fn_member(const struct expr *call, const struct env *env, struct value *out)
{
	struct value a[2], item, r;
	int is = strcasecmp(call->name, "identicalMember") == 0;
	size_t i;

	if (call->nkids != 2) {
		val_error(out);
		return;
	}
	args_eval(call, env, a, 2);
	if (a[1].type == VAL_UNDEFINED || (!is && a[0].type == VAL_UNDEFINED))
		val_undef(out);
	else if (a[1].type != VAL_LIST || a[0].type == VAL_LIST ||
	    a[0].type == VAL_AD || (!is && a[0].type == VAL_ERROR))
		val_error(out);
	else {
		val_bool(out, 0);
		for (i = 0; i < list_len(&a[1]); i++) {
			list_item(&a[1], i, &item, env->ctx);
			classad_binary(is ? T_IS : T_EQ, &item, &a[0], &r);
			value_free(&item);
			if (r.type == VAL_BOOL && r.u.b) {
				val_bool(out, 1);
				break;
			}
			value_free(&r);
		}
	}
	args_free(a, 2);
}

/* A list argument: 1 with the list in *L, or 0 with OUT set. */
static int
list_arg(const struct expr *call, const struct env *env, struct value *l,
    struct value *out)
{
	if (call->nkids != 1) {
		val_error(out);
		return 0;
	}
	classad_eval(call->kids[0], env, l);
	if (l->type == VAL_LIST)
		return 1;
	if (l->type == VAL_UNDEFINED)
		val_undef(out);
	else
		val_error(out);
	value_free(l);
	return 0;
}

/* sum(LIST), avg(LIST): of its numbers, UNDEFINED elements skipped. */
void
fn_sumavg(const struct expr *call, const struct env *env, struct value *out)
{
	struct value l, item, acc, t, cnt;
	size_t i, n = 0;
	int first = 1;

	if (!list_arg(call, env, &l, out))
		return;
	val_int(&acc, 0);
	for (i = 0; i < list_len(&l); i++) {
		list_item(&l, i, &item, env->ctx);
		if (item.type == VAL_UNDEFINED)
			continue;
		n++;
		if (!val_is_number(&item)) {
			value_free(&item);
			val_error(out);
			goto done;
		}
		if (first)
			acc = item;
		else {
			classad_binary(T_PLUS, &acc, &item, &t);
			acc = t;
		}
		first = 0;
	}
	if (strcasecmp(call->name, "avg") == 0 && n > 0) {
		val_real(&cnt, (double)n);
		classad_binary(T_DIV, &acc, &cnt, out);
	} else
		*out = acc;
done:
	value_free(&l);
}

/* A boolean as the integer 0 or 1. */
static void
bool_to_int(struct value *v)
{
	if (v->type == VAL_BOOL)
		val_int(v, v->u.b ? 1 : 0);
}

/*
 * The two numbers of a comparison in one type, in place, as HTCondor's
 * comparison promotes its operands: booleans become integers, and an
 * integer beside a real becomes a real.
 */
static void
promote_pair(struct value *a, struct value *b)
{
	bool_to_int(a);
	bool_to_int(b);
	if (a->type == VAL_INT && b->type == VAL_REAL)
		val_real(a, (double)a->u.i);
	else if (a->type == VAL_REAL && b->type == VAL_INT)
		val_real(b, (double)b->u.i);
}

/*
 * min(LIST), max(LIST): the least or greatest number, UNDEFINED if
 * there is none.  As in HTCondor, each element is compared with the
 * bound so far after both are promoted (promote_pair), and the bound
 * keeps the promoted value: max({2, 1.0}) is 2.0, max({true, 0}) is 1,
 * while a list of one boolean gives it back unchanged.
 */
void
fn_minmax(const struct expr *call, const struct env *env, struct value *out)
{
	struct value l, item, best, r;
	size_t i;
	int first = 1, is_min = strcasecmp(call->name, "min") == 0;

	if (!list_arg(call, env, &l, out))
		return;
	val_undef(&best);
	for (i = 0; i < list_len(&l); i++) {
		list_item(&l, i, &item, env->ctx);
		if (item.type == VAL_UNDEFINED)
			continue;
		if (!val_is_number(&item)) {
			value_free(&item);
			val_error(&best);
			break;
		}
		if (first) {
			best = item;
			first = 0;
			continue;
		}
		promote_pair(&item, &best);
		classad_binary(is_min ? T_LT : T_GT, &item, &best, &r);
		if (r.type == VAL_BOOL && r.u.b)
			best = item;
	}
	*out = best;
	value_free(&l);
}

/* anyCompare(OP, LIST, V), allCompare(OP, LIST, V). */
void
fn_listcompare(const struct expr *call, const struct env *env,
    struct value *out)
{
	static const struct {
		const char	*text;
		int		 op;
	} ops[] = {
		{ "<", T_LT }, { "<=", T_LE }, { "!=", T_NE }, { "==", T_EQ },
		{ ">", T_GT }, { ">=", T_GE }, { "is", T_IS }, { "isnt", T_ISNT },
	};
	struct value a[3], item, r;
	size_t i;
	int op = -1, all = strcasecmp(call->name, "allCompare") == 0;

	if (call->nkids != 3) {
		val_error(out);
		return;
	}
	args_eval(call, env, a, 3);
	if (a[0].type == VAL_UNDEFINED) {
		val_undef(out);
		goto done;
	}
	if (a[0].type == VAL_STRING)
		for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
			if (strcmp(a[0].u.s, ops[i].text) == 0)
				op = ops[i].op;
	if (op < 0) {
		val_error(out);
		goto done;
	}
	if (a[1].type == VAL_UNDEFINED) {
		val_undef(out);
		goto done;
	}
	if (a[1].type != VAL_LIST) {
		val_error(out);
		goto done;
	}
	val_bool(out, all);
	for (i = 0; i < list_len(&a[1]); i++) {
		list_item(&a[1], i, &item, env->ctx);
		classad_binary(op, &item, &a[2], &r);
		value_free(&item);
		if (r.type != VAL_BOOL) {
			if (r.type == VAL_UNDEFINED)
				val_bool(out, 0);
			else
				val_error(out);
			value_free(&r);
			break;
		}
		if (r.u.b != all) {
			val_bool(out, !all);
			break;
		}
	}
done:
	args_free(a, 3);
}

/*
 * String lists: tokens between any of DELIMS, empty ones skipped, white
 * space around each trimmed.  NEXT returns the next token's start and
 * length from *P, or NULL at the end.
 */
static const char *
sl_next(const char **p, const char *delims, size_t *len)
{
	const char *s = *p, *e;

	for (;;) {
		if (*s == '\0')
			return NULL;
		e = s + strcspn(s, delims);
		*p = *e != '\0' ? e + 1 : e;
		while (s < e && isspace((unsigned char)*s))
			s++;
		while (e > s && isspace((unsigned char)e[-1]))
			e--;
		if (e > s) {
			*len = (size_t)(e - s);
			return s;
		}
		s = *p;
	}
}

/* Arguments all strings: 1, else 0 with OUT ERROR. */
static int
all_strings(const struct value *a, size_t n, struct value *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i].type != VAL_STRING) {
			val_error(out);
			return 0;
		}
	return 1;
}

/* stringListSize(LIST[, DELIMS]). */
void
fn_sl_size(const struct expr *call, const struct env *env, struct value *out)
{
	struct value a[2];
	const char *p, *t;
	size_t n, len;
	long long count = 0;

	if (call->nkids < 1 || call->nkids > 2) {
		val_error(out);
		return;
	}
	n = args_eval(call, env, a, 2);
	if (all_strings(a, n, out)) {
		p = a[0].u.s;
		while ((t = sl_next(&p, n == 2 ? a[1].u.s : ", ", &len)) != NULL)
			count++;
		val_int(out, count);
	}
	args_free(a, n);
}

/* stringListSum, stringListAvg, stringListMin, stringListMax: of the
 * numbers of a string list; a real if any is written as one. */
void
fn_sl_sum(const struct expr *call, const struct env *env, struct value *out)
{
	struct value a[2];
	const char *p, *t;
	size_t n, len;
	double acc, x;
	long long cnt = 0;
	int is_real = 0, kind;
	char *tok, *end;

	if (call->nkids < 1 || call->nkids > 2) {
		val_error(out);
		return;
	}
	n = args_eval(call, env, a, 2);
	if (!all_strings(a, n, out))
		goto done;
	kind = strcasecmp(call->name, "stringListMin") == 0 ? 'n' :
	    strcasecmp(call->name, "stringListMax") == 0 ? 'x' : 's';
	acc = kind == 'n' ? FLT_MAX : kind == 'x' ? FLT_MIN : 0;
	p = a[0].u.s;
	while ((t = sl_next(&p, n == 2 ? a[1].u.s : ", ", &len)) != NULL) {
		cnt++;
		tok = xstrndup(t, len);
		x = strtod(tok, &end);
		if (end == tok) {
			free(tok);
			val_error(out);
			goto done;
		}
		if (strspn(tok, "+-0123456789") != len)
			is_real = 1;
		free(tok);
		if (kind == 's')
			acc += x;
		else if (kind == 'n')
			acc = x < acc ? x : acc;
		else
			acc = x > acc ? x : acc;
	}
	if (cnt == 0) {
		if (kind == 's')
			val_real(out, 0);
		else
			val_undef(out);
		goto done;
	}
	if (strcasecmp(call->name, "stringListAvg") == 0)
		acc /= (double)cnt;
	if (is_real)
		val_real(out, acc);
	else if (isnan(acc) || acc >= 9223372036854775808.0 ||
	    acc < -9223372036854775808.0)
		val_int(out, LLONG_MIN);
	else
		val_int(out, (long long)acc);
done:
	args_free(a, n);
}

static int
sl_contains(const char *list, const char *delims, const char *item,
    size_t ilen, int icase)
{
	const char *p = list, *t;
	size_t len;

	while ((t = sl_next(&p, delims, &len)) != NULL)
		if (len == ilen && (icase ? strncasecmp(t, item, len) :
		    strncmp(t, item, len)) == 0)
			return 1;
	return 0;
}

/* stringListMember(ITEM, LIST[, DELIMS]), stringListIMember,
 * stringListSubsetMatch(SUB, LIST[, DELIMS]), stringListISubsetMatch. */
void
fn_sl_member(const struct expr *call, const struct env *env,
    struct value *out)
{
	struct value a[3];
	const char *item, *list, *delims = ", \t\r\n", *p, *t;
	size_t n, i, len;
	int icase, subset, r = 1;

	if (call->nkids < 2 || call->nkids > 3) {
		val_error(out);
		return;
	}
	n = args_eval(call, env, a, 3);
	for (i = 0; i < n; i++)
		if (a[i].type != VAL_STRING && a[i].type != VAL_UNDEFINED) {
			val_error(out);
			goto done;
		}
	if (a[0].type == VAL_UNDEFINED && a[1].type == VAL_UNDEFINED) {
		val_undef(out);
		goto done;
	}
	item = a[0].type == VAL_STRING ? a[0].u.s : "";
	list = a[1].type == VAL_STRING ? a[1].u.s : "";
	if (n == 3 && a[2].type == VAL_STRING)
		delims = a[2].u.s;
	icase = strcasecmp(call->name, "stringListIMember") == 0 ||
	    strcasecmp(call->name, "stringListISubsetMatch") == 0;
	subset = strncasecmp(call->name + strlen(call->name) - 5, "Match",
	    5) == 0;
	if (!subset) {
		val_bool(out, sl_contains(list, delims, item, strlen(item),
		    icase));
		goto done;
	}
	p = item;
	while (r && (t = sl_next(&p, delims, &len)) != NULL)
		r = sl_contains(list, delims, t, len, icase);
	val_bool(out, r);
done:
	args_free(a, n);
}

/* stringListRegexpMember(PATTERN, LIST[, DELIMS[, OPTIONS]]). */
void
fn_sl_regexp(const struct expr *call, const struct env *env,
    struct value *out)
{
	struct value a[4];
	const char *p, *t;
	size_t n, len;
	struct rx *re;
	int found = 0, any = 0;

	if (call->nkids < 2 || call->nkids > 4) {
		val_error(out);
		return;
	}
	n = args_eval(call, env, a, 4);
	if (!all_strings(a, n, out))
		goto done;
	if ((re = rx_compile(a[0].u.s, re_options(n == 4 ? a[3].u.s : NULL),
	    NULL, 0)) == NULL) {
		val_error(out);
		goto done;
	}
	p = a[1].u.s;
	while (!found && (t = sl_next(&p, n >= 3 ? a[2].u.s : ", ", &len))) {
		any = 1;
		found = rx_search(re, t, len, 0, NULL, 0);
	}
	rx_free(re);
	if (found < 0)
		val_error(out);		/* too costly to answer */
	else if (!any)
		val_undef(out);
	else
		val_bool(out, found);
done:
	args_free(a, n);
}

/* stringListsIntersect(A, B[, DELIMS]): whether they share an item. */
void
fn_sl_intersect(const struct expr *call, const struct env *env,
    struct value *out)
{
	struct value a[3];
	const char *delims = " ,", *s, *t;
	size_t n, i, want, len;
	int found = 0;

	if (call->nkids < 2 || call->nkids > 3) {
		val_error(out);
		return;
	}
	n = args_eval(call, env, a, 3);
	for (i = 0; i < n; i++)
		if (a[i].type == VAL_ERROR) {
			val_error(out);
			goto done;
		}
	for (i = 0; i < n; i++)
		if (a[i].type == VAL_UNDEFINED) {
			val_undef(out);
			goto done;
		}
	if (!all_strings(a, n, out))
		goto done;
	if (n == 3 && a[2].u.s[0] != '\0')
		delims = a[2].u.s;
	for (s = a[0].u.s; *s != '\0' && !found; s += want) {
		s += strspn(s, delims);
		want = strcspn(s, delims);
		for (t = a[1].u.s; want > 0 && *t != '\0' && !found; t += len) {
			t += strspn(t, delims);
			len = strcspn(t, delims);
			found = len == want && strncmp(s, t, len) == 0;
		}
	}
	val_bool(out, found);
done:
	args_free(a, n);
}

static void
string_pair(struct value *out, const char *a, size_t alen, const char *b)
{
	struct value v[2];

	val_string(&v[0], xstrndup(a, alen));
	val_strdup(&v[1], b);
	val_list(out, v, 2);
}

/* splitUserName("user@domain"), splitSlotName("slot1@host"): a list of
 * the two parts. */
void
fn_split_at(const struct expr *call, const struct env *env,
    struct value *out)
{
	struct value v;
	const char *at;

	if (call->nkids != 1) {
		val_error(out);
		return;
	}
	classad_eval(call->kids[0], env, &v);
	if (v.type != VAL_STRING)
		val_error(out);
	else if ((at = strchr(v.u.s, '@')) != NULL)
		string_pair(out, v.u.s, (size_t)(at - v.u.s), at + 1);
	else if (strcasecmp(call->name, "splitSlotName") == 0)
		string_pair(out, "", 0, v.u.s);
	else
		string_pair(out, v.u.s, strlen(v.u.s), "");
	value_free(&v);
}

/* split(S[, SEPS]): the list of S's parts between any of SEPS (white
 * space and commas by default); two separators in a row that are not
 * white space mark an empty part. */
void
fn_split(const struct expr *call, const struct env *env, struct value *out)
{
	struct value a[2], *items = NULL;
	const char *s, *seps = ", \t";
	size_t n, i, last = 0, len, count = 0, cap = 0;
	int ch = -1;

	if (call->nkids < 1 || call->nkids > 2) {
		val_error(out);
		return;
	}
	n = args_eval(call, env, a, 2);
	if (!all_strings(a, n, out))
		goto done;
	if (n == 2)
		seps = a[1].u.s;
	s = a[0].u.s;
	len = strlen(s);
	for (i = 0; *seps != '\0'; ) {
		while (i < len && strchr(seps, s[i]) == NULL)
			i++;
		if (i >= len)
			break;
		if (count == cap) {
			cap = cap ? cap * 2 : 8;
			items = xreallocarray(items, cap, sizeof(*items));
		}
		if (i > last)
			val_string(&items[count++], xstrndup(s + last,
			    i - last));
		else if (!(ch >= 0 && isspace(ch)) && ch == s[i])
			val_strdup(&items[count++], "");
		if (!isspace((unsigned char)s[i]))
			ch = (unsigned char)s[i];
		last = i + 1;
		i = last;
	}
	if (len > last) {
		if (count == cap) {
			cap = cap ? cap * 2 : 8;
			items = xreallocarray(items, cap, sizeof(*items));
		}
		val_strdup(&items[count++], s + last);
	}
	val_list(out, items, count);
	free(items);
done:
	args_free(a, n);
}
