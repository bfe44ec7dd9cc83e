/*
 * fn_scope.c: the ClassAd functions that look at expressions and the
 * ads they are evaluated in rather than at values alone:
 * evalInEachContext, countMatches and unresolved, as HTCondor has them.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ad.h"
#include "buf.h"
#include "classad_impl.h"
#include "expr.h"
#include "regex_pcre.h"
#include "xalloc.h"

fn_t fn_evalineach, fn_unresolved;

/* The expression attribute reference REF names where ENV evaluates
 * (nested ads, MY, then TARGET), or NULL. */
static const struct expr *
attr_deref(const struct expr *ref, const struct env *env)
{
	const struct expr *x = NULL;

	switch (ref->scope) {
	case SCOPE_MY:
		return ad_lookup(env->my, ref->name);
	case SCOPE_TARGET:
		return ad_lookup(env->target, ref->name);
	case SCOPE_PARENT:
		return env->outer != NULL ? nest_lookup(env->outer, ref->name) :
		    NULL;
	case SCOPE_NONE:
		break;
	}
	if (env->nest != NULL)
		x = nest_lookup(env->nest, ref->name);
	if (x == NULL && env->outer != NULL)
		x = nest_lookup(env->outer, ref->name);
	if (x == NULL)
		x = ad_lookup(env->my, ref->name);
	if (x == NULL && env->nest == NULL)
		x = ad_lookup(env->target, ref->name);
	return x;
}

/*
 * evalInEachContext(E, L): the list of E's values, evaluated in each ad
 * of list L; countMatches(E, L): how many of them are true.  E written
 * as an attribute's name stands for that attribute's expression (the
 * name itself where there is none).  Inside each ad, names resolve in
 * it, then in the ads it was written in.  An element that is UNDEFINED
 * gives UNDEFINED, any other that is not an ad ERROR.  L UNDEFINED:
 * UNDEFINED (evalInEachContext) or 0 (countMatches); L not a list:
 * ERROR.
 */
void
fn_evalineach(const struct expr *call, const struct env *env,
    struct value *out)
{
	const struct expr *e, *x;
	struct value list, item, *vals;
	struct env sub;
	size_t i, n;
	long long count = 0;
	int each = strcasecmp(call->name, "evalInEachContext") == 0, b;

	if (call->nkids != 2) {
		val_error(out);
		return;
	}
	e = call->kids[0];
	if (e->kind == EK_ATTR && (x = attr_deref(e, env)) != NULL)
		e = x;
	classad_eval(call->kids[1], env, &list);
	if (list.type == VAL_UNDEFINED) {
		if (each)
			val_undef(out);
		else
			val_int(out, 0);
		return;
	}
	if (list.type != VAL_LIST) {
		value_free(&list);
		val_error(out);
		return;
	}
	n = list_len(&list);
	vals = each ? xcalloc(n > 0 ? n : 1, sizeof(*vals)) : NULL;
	for (i = 0; i < n; i++) {
		struct value r;

		list_item(&list, i, &item, env->ctx);
		if (item.type == VAL_AD) {
			sub.my = item.u.x.my;
			sub.target = item.u.x.target;
			sub.nest = item.u.x.e;
			sub.outer = item.u.x.nest;
			sub.ctx = env->ctx;
			classad_eval(e, &sub, &r);
		} else if (item.type == VAL_UNDEFINED)
			val_undef(&r);
		else
			val_error(&r);
		value_free(&item);
		if (each)
			vals[i] = r;
		else {
			if (val_bool_equiv(&r, &b) && b)
				count++;
			value_free(&r);
		}
	}
	value_free(&list);
	if (each) {
		val_list(out, vals, n);
		free(vals);
	} else
		val_int(out, count);
}

/* A set of attribute names, case-insensitive, kept sorted. */
struct names {
	char	**v;
	size_t	  n, cap;
};

static void
names_add(struct names *s, const char *name, size_t len)
{
	size_t lo = 0, hi = s->n, mid;
	char *copy = xstrndup(name, len);
	int c;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		c = strcasecmp(s->v[mid], copy);
		if (c == 0) {
			free(copy);
			return;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 8;
		s->v = xreallocarray(s->v, s->cap, sizeof(*s->v));
	}
	memmove(s->v + lo + 1, s->v + lo, (s->n - lo) * sizeof(*s->v));
	s->v[lo] = copy;
	s->n++;
}

static void
names_free(struct names *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

struct refwalk {
	const struct env	*env;
	struct names		 names;
	unsigned long		 steps;
};

/*
 * The names E refers to that no ad defines, with CUR the ad its
 * unscoped names resolve in; names CUR defines are followed into their
 * expressions.  0 when the walk gives up (too deep or too long, as
 * HTCondor's does on a cycle; or a selection from something not an ad).
 */
static int
refs_walk(struct refwalk *w, const struct expr *e, const struct ad *cur,
    unsigned depth)
{
	const struct expr *x;
	const struct ad *other;
	struct value v;
	struct buf b;
	size_t i;
	int ok;

	if (depth > EVAL_MAX_REFS || ++w->steps > EVAL_MAX_STEPS)
		return 0;
	switch (e->kind) {
	case EK_LIT:
		return 1;
	case EK_ATTR:
		other = cur == w->env->my ? w->env->target : w->env->my;
		if (e->scope == SCOPE_TARGET)
			cur = other;
		if (e->scope == SCOPE_PARENT ||
		    (x = ad_lookup(cur, e->name)) == NULL) {
			/* MY and TARGET alone are the ads, no names. */
			if (e->scope != SCOPE_NONE ||
			    (strcasecmp(e->name, "MY") != 0 &&
			    strcasecmp(e->name, "TARGET") != 0))
				names_add(&w->names, e->name, strlen(e->name));
			return 1;
		}
		return refs_walk(w, x, cur, depth + 1);
	case EK_SELECT:
		classad_eval(e->kids[0], w->env, &v);
		ok = 1;
		if (v.type == VAL_UNDEFINED) {
			buf_init(&b);
			unparse_expr(e->kids[0], 2, &b);
			buf_addc(&b, '.');
			buf_adds(&b, e->name);
			if (b.len > 7 && strncasecmp(b.data, "target.", 7) == 0)
				names_add(&w->names, b.data + 7, b.len - 7);
			else
				names_add(&w->names, b.data, b.len);
			buf_free(&b);
		} else if (v.type == VAL_AD) {
			if ((x = nest_lookup(v.u.x.e, e->name)) == NULL)
				names_add(&w->names, e->name, strlen(e->name));
			else
				ok = refs_walk(w, x, cur, depth + 1);
		} else
			ok = 0;
		value_free(&v);
		return ok;
	default:
		for (i = 0; i < e->nkids; i++)
			if (!refs_walk(w, e->kids[i], cur, depth + 1))
				return 0;
		return 1;
	}
}

/*
 * unresolved(Attr): the names attribute Attr's expression refers to,
 * directly or through the attributes of its ad it names, that its ad
 * does not define (TARGET's names count for TARGET.x only), sorted
 * and joined by commas; unresolved(Attr, P):
 * whether one of them matches regular expression P (any case).  Attr
 * not defined: UNDEFINED.  Attr not a name, P not a string or not a
 * pattern: ERROR.
 */
void
fn_unresolved(const struct expr *call, const struct env *env,
    struct value *out)
{
	const struct expr *ref, *x;
	const struct ad *home;
	struct refwalk w;
	struct value p;
	struct rx *re = NULL;
	struct buf b;
	size_t i;
	int found = 0, ok;

	if (call->nkids < 1 || call->nkids > 2 ||
	    call->kids[0]->kind != EK_ATTR) {
		val_error(out);
		return;
	}
	/* Where the name is found (an unscoped one in TARGET too, as in a
	 * match) is the ad the expression's own names are looked up in. */
	ref = call->kids[0];
	home = ref->scope == SCOPE_TARGET ? env->target : env->my;
	x = ref->scope == SCOPE_PARENT ? NULL : ad_lookup(home, ref->name);
	if (x == NULL && ref->scope == SCOPE_NONE &&
	    (x = ad_lookup(env->target, ref->name)) != NULL)
		home = env->target;
	if (x == NULL) {
		val_undef(out);
		return;
	}
	if (call->nkids == 2) {
		classad_eval(call->kids[1], env, &p);
		if (p.type == VAL_STRING)
			re = rx_compile(p.u.s, rx_options("i"), NULL, 0);
		value_free(&p);
		if (re == NULL) {
			val_error(out);
			return;
		}
	}
	memset(&w, 0, sizeof(w));
	w.env = env;
	ok = refs_walk(&w, x, home, 0);
	buf_init(&b);
	for (i = 0; ok && i < w.names.n; i++) {
		if (re != NULL) {
			if (w.names.v[i][0] != '\0' && rx_search(re,
			    w.names.v[i], strlen(w.names.v[i]), 0, NULL, 0)) {
				found = 1;
				break;
			}
			continue;
		}
		if (i > 0)
			buf_addc(&b, ',');
		buf_adds(&b, w.names.v[i]);
	}
	names_free(&w.names);
	if (re != NULL) {
		rx_free(re);
		buf_free(&b);
		val_bool(out, found);
	} else
		val_string(out, buf_take(&b));
}
