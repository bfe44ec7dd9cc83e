/*
 * eval.c: evaluation of a tree with HTCondor's default (non-strict)
 * semantics: where names resolve, the operators on every pair of
 * types, selection and subscripts.  The functions are in fn_*.c.
 *
 * The evaluator is bounded by a budget of frames, attribute references
 * and steps, so that no expression keeps a daemon busy for long; an
 * attribute that refers to itself, directly or not, is UNDEFINED, as in
 * HTCondor.
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ad.h"
#include "buf.h"
#include "classad_impl.h"
#include "expr.h"
#include "xalloc.h"

#define FALLBACK_SLOTS	64	/* parsed fallback texts kept */

static const char *(*fallback_fn)(const char *);

/* Parsed fallback texts, so a name resolved through the configuration is
 * not parsed again on every evaluation. */
static struct fallback_slot {
	char		*name;
	char		*text;
	struct expr	*expr;		/* NULL: TEXT did not parse */
} fallback_cache[FALLBACK_SLOTS];

/*
 * Setting the fallback, even to the same function or NULL, empties the
 * cache of parsed fallback texts; expr_set_fallback(NULL) at exit leaves
 * nothing allocated.  The cache is not locked: evaluate from one thread.
 */
void
expr_set_fallback(const char *(*fn)(const char *name))
{
	size_t i;

	fallback_fn = fn;
	for (i = 0; i < FALLBACK_SLOTS; i++) {
		free(fallback_cache[i].name);
		free(fallback_cache[i].text);
		expr_free(fallback_cache[i].expr);
		memset(&fallback_cache[i], 0, sizeof(fallback_cache[i]));
	}
}

static unsigned
name_hash(const char *s)
{
	unsigned h = 2166136261u;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned)tolower((unsigned char)*s)) * 16777619u;
	return h;
}

/*
 * The parsed form of NAME's fallback text, or NULL if the fallback does
 * not know NAME.  *BAD is set when the text does not parse.  The text is
 * compared on every call, so a changed configuration is seen at once.
 */
static const struct expr *
fallback_lookup(const char *name, int *bad)
{
	struct fallback_slot *slot;
	const char *text;

	*bad = 0;
	if (fallback_fn == NULL || (text = fallback_fn(name)) == NULL)
		return NULL;
	slot = &fallback_cache[name_hash(name) % FALLBACK_SLOTS];
	if (slot->name == NULL || strcasecmp(slot->name, name) != 0 ||
	    strcmp(slot->text, text) != 0) {
		free(slot->name);
		free(slot->text);
		expr_free(slot->expr);
		slot->name = xstrdup(name);
		slot->text = xstrdup(text);
		slot->expr = expr_parse(text, NULL, 0);
	}
	if (slot->expr == NULL)
		*bad = 1;
	return slot->expr;
}

const char *
classad_config(const char *name)
{
	return fallback_fn != NULL ? fallback_fn(name) : NULL;
}

/*
 * Evaluate an attribute's tree X (of the ad or nested ad WHERE) one
 * reference deeper in ENV.  A reference already being evaluated is a
 * cycle: UNDEFINED.
 */
static void
eval_ref(const struct expr *x, const void *where, const struct env *env,
    struct value *out)
{
	struct eval_ctx *ctx = env->ctx;
	unsigned i;

	for (i = 0; i < ctx->nrefs; i++) {
		if (ctx->refs[i] == x && ctx->ref_ads[i] == where) {
			val_undef(out);
			return;
		}
	}
	if (ctx->nrefs >= EVAL_MAX_REFS) {
		val_error(out);
		return;
	}
	ctx->refs[ctx->nrefs] = x;
	ctx->ref_ads[ctx->nrefs] = where;
	ctx->nrefs++;
	classad_eval(x, env, out);
	ctx->nrefs--;
}

/* Attribute NAME of nested ad node AD, or NULL. */
const struct expr *
nest_lookup(const struct expr *ad, const char *name)
{
	size_t i;

	/* A name written twice: the last one counts. */
	for (i = ad->nkids; i-- > 0; )
		if (strcasecmp(ad->names[i], name) == 0)
			return ad->kids[i];
	return NULL;
}

/*
 * MY and TARGET named where no attribute has that name are the ads
 * themselves (isClassAd(MY), MY.TARGET.x, TARGET.MY.x), as in HTCondor:
 * a nested ad value holding a copy of AD's attributes, seen from AD
 * (its TARGET is OTHER).  No ad is UNDEFINED.
 */
#define AD_WHOLE	1	/* op of an EK_AD that whole_ad made */

static void
whole_ad(const struct ad *ad, const struct ad *other, struct value *out)
{
	struct expr *e;
	struct env sub;
	size_t i, n;

	if (ad == NULL) {
		val_undef(out);
		return;
	}
	n = ad_count(ad);
	e = node_new(EK_AD, AD_WHOLE, n);
	e->names = xcalloc(n > 0 ? n : 1, sizeof(*e->names));
	for (i = 0; i < n; i++) {
		e->names[i] = xstrdup(ad_name_at(ad, i));
		e->kids[i] = expr_copy(ad_expr_at(ad, i));
		if (e->kids[i]->height + 1 > e->height)
			e->height = e->kids[i]->height + 1;
	}
	memset(&sub, 0, sizeof(sub));
	sub.my = ad;
	sub.target = other;
	val_ref(out, VAL_AD, e, &sub);
	e->shared--;	/* the value holds the only reference */
}

/* Whether NAME, not found as an attribute, is one of the ads: 1 and the
 * value in OUT if so.  MY and TARGET here are those of the ad it was
 * looked up in. */
static int
scope_ad(const char *name, const struct ad *my, const struct ad *target,
    struct value *out)
{
	if (strcasecmp(name, "MY") == 0)
		whole_ad(my, target, out);
	else if (strcasecmp(name, "TARGET") == 0)
		whole_ad(target, my, out);
	else
		return 0;
	return 1;
}

/*
 * An attribute found in TARGET is evaluated from TARGET's point of view:
 * inside it MY is the target ad, as in ClassAds.
 */
static void
eval_attr(const struct expr *e, const struct env *env, struct value *out)
{
	const struct expr *x;
	struct env sub;
	int bad;

	sub = *env;
	switch (e->scope) {
	case SCOPE_MY:
		sub.nest = sub.outer = NULL;
		if ((x = ad_lookup(env->my, e->name)) != NULL)
			eval_ref(x, env->my, &sub, out);
		else if (!scope_ad(e->name, env->my, env->target, out))
			val_undef(out);
		return;
	case SCOPE_TARGET:
		sub.nest = sub.outer = NULL;
		sub.my = env->target;
		sub.target = env->my;
		if ((x = ad_lookup(env->target, e->name)) != NULL)
			eval_ref(x, env->target, &sub, out);
		else if (!scope_ad(e->name, env->target, env->my, out))
			val_undef(out);
		return;
	case SCOPE_PARENT:
		/* A nested ad's parent is the ad it was written in. */
		if (env->outer != NULL) {
			if ((x = nest_lookup(env->outer, e->name)) != NULL) {
				sub.nest = env->outer;
				sub.outer = NULL;
				eval_ref(x, env->outer, &sub, out);
			} else
				val_undef(out);
			return;
		}
		sub.nest = sub.outer = NULL;
		if (env->nest != NULL &&
		    (x = ad_lookup(env->my, e->name)) != NULL)
			eval_ref(x, env->my, &sub, out);
		else
			val_undef(out);
		return;
	case SCOPE_NONE:
		break;
	}
	if (env->nest != NULL && (x = nest_lookup(env->nest, e->name)) != NULL) {
		eval_ref(x, env->nest, env, out);
		return;
	}
	if (env->outer != NULL &&
	    (x = nest_lookup(env->outer, e->name)) != NULL) {
		sub.nest = env->outer;
		sub.outer = NULL;
		eval_ref(x, env->outer, &sub, out);
		return;
	}
	sub.nest = sub.outer = NULL;
	if ((x = ad_lookup(env->my, e->name)) != NULL) {
		eval_ref(x, env->my, &sub, out);
		return;
	}
	/* Inside a nested ad, HTCondor looks in its parents, not TARGET. */
	if (env->nest == NULL &&
	    (x = ad_lookup(env->target, e->name)) != NULL) {
		sub.my = env->target;
		sub.target = env->my;
		eval_ref(x, env->target, &sub, out);
		return;
	}
	if ((x = fallback_lookup(e->name, &bad)) != NULL) {
		eval_ref(x, NULL, &sub, out);
		return;
	}
	if (bad) {
		val_error(out);
		return;
	}
	if (strcasecmp(e->name, "CurrentTime") == 0) {
		val_int(out, (long long)time(NULL));
		return;
	}
	if (env->nest == NULL && scope_ad(e->name, env->my, env->target, out))
		return;
	val_undef(out);
}

/*
 * && and || as HTCondor has them, folded left to right over the n-ary
 * node: the left operand decides when it is a boolean (or a number)
 * that decides; ERROR on the left is ERROR; otherwise the right operand
 * is evaluated, and anything but a boolean, a number, UNDEFINED or
 * ERROR is ERROR.
 */
static void
logic_step(int is_or, struct value *acc, const struct value *b)
{
	int ab, bb, aok, bok;

	aok = val_bool_equiv(acc, &ab);
	bok = val_bool_equiv(b, &bb);
	if (!aok && acc->type != VAL_UNDEFINED) {
		value_free(acc);
		val_error(acc);
		return;
	}
	if (!bok && b->type != VAL_UNDEFINED && b->type != VAL_ERROR) {
		value_free(acc);
		val_error(acc);
		return;
	}
	if (aok) {		/* true && b, false || b */
		if (bok)
			val_bool(acc, bb);
		else
			*acc = *b;
		return;
	}
	/* acc is UNDEFINED */
	if (!bok) {
		*acc = *b;
		return;
	}
	if (is_or)
		bb ? val_bool(acc, 1) : val_undef(acc);
	else
		bb ? val_undef(acc) : val_bool(acc, 0);
}

static void
eval_logic(const struct expr *e, const struct env *env, struct value *out)
{
	struct value acc, v;
	size_t i;
	int is_or = e->op == T_OR, b;

	classad_eval(e->kids[0], env, &acc);
	for (i = 1; i < e->nkids; i++) {
		if (val_bool_equiv(&acc, &b) && b == is_or) {
			value_free(&acc);
			val_bool(out, is_or);
			return;
		}
		if (acc.type == VAL_ERROR)
			break;
		classad_eval(e->kids[i], env, &v);
		logic_step(is_or, &acc, &v);
		value_free(&v);
		if (acc.type != VAL_BOOL && acc.type != VAL_UNDEFINED) {
			value_free(&acc);
			val_error(&acc);
		}
	}
	if (acc.type == VAL_ERROR || acc.type == VAL_UNDEFINED ||
	    acc.type == VAL_BOOL) {
		*out = acc;
		return;
	}
	/* A lone number decides by itself in a one-operand chain only. */
	if (val_bool_equiv(&acc, &b))
		val_bool(out, b);
	else
		val_error(out);
	value_free(&acc);
}

static void
eval_unary(int op, struct value *v, struct value *out)
{
	int b;

	if (op == T_PLUS) {
		if (v->type == VAL_INT || v->type == VAL_REAL ||
		    v->type == VAL_RELTIME || v->type == VAL_UNDEFINED) {
			*out = *v;
			val_undef(v);
		} else
			val_error(out);
		return;
	}
	if (v->type == VAL_ERROR) {
		val_error(out);
		return;
	}
	if (v->type == VAL_UNDEFINED) {
		val_undef(out);
		return;
	}
	switch (op) {
	case T_MINUS:
		if (v->type == VAL_INT)
			val_int(out, (long long)(0ULL - (unsigned long long)
			    v->u.i));
		else if (v->type == VAL_REAL)
			val_real(out, -v->u.r);
		else if (v->type == VAL_RELTIME)
			val_reltime(out, -v->u.r);
		else
			val_error(out);
		return;
	case T_NOT:
		if (val_bool_equiv(v, &b))
			val_bool(out, !b);
		else
			val_error(out);
		return;
	default:	/* ~ */
		if (v->type == VAL_INT)
			val_int(out, ~v->u.i);
		else
			val_error(out);
		return;
	}
}

static int
is_time(const struct value *v)
{
	return v->type == VAL_ABSTIME || v->type == VAL_RELTIME;
}

static long long
wrap_add(long long a, long long b)
{
	return (long long)((unsigned long long)a + (unsigned long long)b);
}

static long long
wrap_sub(long long a, long long b)
{
	return (long long)((unsigned long long)a - (unsigned long long)b);
}

static long long
wrap_mul(long long a, long long b)
{
	return (long long)((unsigned long long)a * (unsigned long long)b);
}

static long long
num_int(const struct value *v)
{
	return v->type == VAL_BOOL ? v->u.b : v->u.i;
}

static double
num_real(const struct value *v)
{
	return v->type == VAL_REAL ? v->u.r : (double)num_int(v);
}

/*
 * Arithmetic with a time, as HTCondor has it: an absolute time plus or
 * minus a relative one (whole seconds of it), the difference of two
 * absolute times, sums and differences of relative times, a relative
 * time scaled by a number.  Anything else with a time is ERROR (a
 * boolean is not a number here, nor is a remainder defined).
 */
static void
eval_time_arith(int op, const struct value *l, const struct value *r,
    struct value *out)
{
	enum value_type lt = l->type, rt = r->type;

	if (lt == VAL_ABSTIME && rt == VAL_RELTIME &&
	    (op == T_PLUS || op == T_MINUS) && fabs(r->u.r) < 9e18) {
		long long d = (long long)r->u.r;

		val_abstime(out, op == T_PLUS ? wrap_add(l->u.t.secs, d) :
		    wrap_sub(l->u.t.secs, d), l->u.t.off);
	} else if (lt == VAL_RELTIME && rt == VAL_ABSTIME && op == T_PLUS &&
	    fabs(l->u.r) < 9e18)
		val_abstime(out, wrap_add(r->u.t.secs, (long long)l->u.r),
		    r->u.t.off);
	else if (lt == VAL_ABSTIME && rt == VAL_ABSTIME && op == T_MINUS)
		val_reltime(out, (double)wrap_sub(l->u.t.secs, r->u.t.secs));
	else if (lt == VAL_RELTIME && rt == VAL_RELTIME && op == T_PLUS)
		val_reltime(out, l->u.r + r->u.r);
	else if (lt == VAL_RELTIME && rt == VAL_RELTIME && op == T_MINUS)
		val_reltime(out, l->u.r - r->u.r);
	else if (lt == VAL_RELTIME && (rt == VAL_INT || rt == VAL_REAL) &&
	    (op == T_MUL || op == T_DIV))
		val_reltime(out, op == T_MUL ? l->u.r * num_real(r) :
		    l->u.r / num_real(r));
	else if ((lt == VAL_INT || lt == VAL_REAL) && rt == VAL_RELTIME &&
	    op == T_MUL)
		val_reltime(out, num_real(l) * r->u.r);
	else
		val_error(out);
}

static void
eval_arith(int op, const struct value *l, const struct value *r,
    struct value *out)
{
	long long a, b;
	double x, y, res;

	if (is_time(l) || is_time(r)) {
		if (l->type == VAL_STRING || r->type == VAL_STRING ||
		    l->type == VAL_LIST || r->type == VAL_LIST ||
		    l->type == VAL_AD || r->type == VAL_AD)
			val_error(out);
		else
			eval_time_arith(op, l, r, out);
		return;
	}
	if (!val_is_number(l) || !val_is_number(r)) {
		val_error(out);
		return;
	}
	if (l->type != VAL_REAL && r->type != VAL_REAL) {
		a = num_int(l);
		b = num_int(r);
		switch (op) {
		case T_PLUS:
			val_int(out, wrap_add(a, b));
			return;
		case T_MINUS:
			val_int(out, wrap_sub(a, b));
			return;
		case T_MUL:
			val_int(out, wrap_mul(a, b));
			return;
		case T_DIV:
			if (a == LLONG_MIN && b == -1)
				val_int(out, LLONG_MAX);
			else if (b == 0)
				val_error(out);
			else
				val_int(out, a / b);
			return;
		default:
			if (b == -1)
				val_int(out, 0);
			else if (b == 0)
				val_error(out);
			else
				val_int(out, a % b);
			return;
		}
	}
	x = num_real(l);
	y = num_real(r);
	switch (op) {
	case T_PLUS:
		res = x + y;
		break;
	case T_MINUS:
		res = x - y;
		break;
	case T_MUL:
		res = x * y;
		break;
	case T_DIV:
		res = x / y;
		break;
	default:
		/* HTCondor has no real remainder. */
		val_error(out);
		return;
	}
	/* HTCondor takes a result of +infinity for an overflow. */
	if (isinf(res) && res > 0)
		val_error(out);
	else
		val_real(out, res);
}

static void
eval_bitwise(int op, const struct value *l, const struct value *r,
    struct value *out)
{
	long long a, b;

	if (l->type != VAL_INT || r->type != VAL_INT) {
		val_error(out);
		return;
	}
	a = l->u.i;
	b = r->u.i;
	switch (op) {
	case T_BITAND:
		val_int(out, a & b);
		return;
	case T_BITOR:
		val_int(out, a | b);
		return;
	case T_BITXOR:
		val_int(out, a ^ b);
		return;
	case T_SHL:
		if (b < 0 || b >= 64)
			val_error(out);
		else
			val_int(out, (long long)((unsigned long long)a << b));
		return;
	case T_SHR:
		if (b < 0) {
			if (a < 0)
				val_int(out, a);
			else
				val_error(out);
		} else if (a < 0)
			val_int(out, a >> (b > 63 ? 63 : b));
		else if (b >= 64)
			val_error(out);
		else
			val_int(out, a >> b);
		return;
	default:	/* >>> */
		if (a >= 0) {
			if (b < 0 || b >= 64)
				val_error(out);
			else
				val_int(out, a >> b);
		} else if (b < 1 || b > 64)
			val_error(out);
		else
			val_int(out, (long long)(((unsigned long long)a >> 1) >>
			    (b - 1)));
		return;
	}
}

static int
cmp_result(int op, int c)
{
	switch (op) {
	case T_EQ:
	case T_IS:
		return c == 0;
	case T_NE:
	case T_ISNT:
		return c != 0;
	case T_LT:
		return c < 0;
	case T_LE:
		return c <= 0;
	case T_GT:
		return c > 0;
	default:
		return c >= 0;
	}
}

/* Numbers compared with C's operators (NaN is unordered). */
static int
cmp_num(int op, const struct value *l, const struct value *r)
{
	if (l->type != VAL_REAL && r->type != VAL_REAL) {
		long long a = num_int(l), b = num_int(r);

		return cmp_result(op, a < b ? -1 : a > b);
	}
	{
		double x = num_real(l), y = num_real(r);

		switch (op) {
		case T_EQ:
		case T_IS:
			return x == y;
		case T_NE:
		case T_ISNT:
			return x != y;
		case T_LT:
			return x < y;
		case T_LE:
			return x <= y;
		case T_GT:
			return x > y;
		default:
			return x >= y;
		}
	}
}

/* Two times of one kind compared: absolute times by their instant,
 * relative ones by length (a time against anything else is ERROR). */
static int
cmp_time(const struct value *l, const struct value *r)
{
	if (l->type == VAL_ABSTIME)
		return l->u.t.secs < r->u.t.secs ? -1 :
		    l->u.t.secs > r->u.t.secs;
	return l->u.r < r->u.r ? -1 : l->u.r > r->u.r;
}


static void
eval_compare(int op, const struct value *l, const struct value *r,
    struct value *out)
{
	int c;

	if (op == T_IS || op == T_ISNT) {
		/* The same type and value; strings case counting. */
		if (l->type != r->type) {
			val_bool(out, op == T_ISNT);
			return;
		}
		switch (l->type) {
		case VAL_UNDEFINED:
		case VAL_ERROR:
			val_bool(out, op == T_IS);
			return;
		case VAL_LIST:
			if (l->u.x.e->op != r->u.x.e->op) {
				val_bool(out, op == T_ISNT);
				return;
			}
			val_error(out);
			return;
		case VAL_AD:
			val_error(out);
			return;
		case VAL_STRING:
			c = strcmp(l->u.s, r->u.s);
			val_bool(out, cmp_result(op, c));
			return;
		case VAL_ABSTIME:
			c = cmp_time(l, r);
			if (c == 0)
				c = l->u.t.off != r->u.t.off;
			val_bool(out, cmp_result(op, c));
			return;
		case VAL_RELTIME:
			val_bool(out, cmp_result(op, cmp_time(l, r)));
			return;
		default:
			val_bool(out, cmp_num(op, l, r));
			return;
		}
	}
	if (l->type == VAL_LIST || l->type == VAL_AD || r->type == VAL_LIST ||
	    r->type == VAL_AD) {
		val_error(out);
		return;
	}
	if (is_time(l) || is_time(r)) {
		if (l->type != r->type)
			val_error(out);
		else
			val_bool(out, cmp_result(op, cmp_time(l, r)));
		return;
	}
	if (l->type == VAL_STRING || r->type == VAL_STRING) {
		if (l->type != r->type) {
			val_error(out);
			return;
		}
		c = strcasecmp(l->u.s, r->u.s);
		val_bool(out, cmp_result(op, c < 0 ? -1 : c > 0));
		return;
	}
	val_bool(out, cmp_num(op, l, r));
}

void
classad_binary(int op, const struct value *l, const struct value *r,
    struct value *out)
{
	if (op == T_IS || op == T_ISNT) {
		eval_compare(op, l, r, out);
		return;
	}
	if (l->type == VAL_ERROR || r->type == VAL_ERROR) {
		val_error(out);
		return;
	}
	if (l->type == VAL_UNDEFINED || r->type == VAL_UNDEFINED) {
		val_undef(out);
		return;
	}
	switch (op) {
	case T_PLUS:
	case T_MINUS:
	case T_MUL:
	case T_DIV:
	case T_MOD:
		eval_arith(op, l, r, out);
		return;
	case T_BITAND:
	case T_BITOR:
	case T_BITXOR:
	case T_SHL:
	case T_SHR:
	case T_USHR:
		eval_bitwise(op, l, r, out);
		return;
	default:
		eval_compare(op, l, r, out);
		return;
	}
}

size_t
list_len(const struct value *v)
{
	return v->type == VAL_LIST ? v->u.x.e->nkids : 0;
}

void
list_item(const struct value *v, size_t i, struct value *out,
    struct eval_ctx *ctx)
{
	struct env env;

	if (v->type != VAL_LIST || i >= v->u.x.e->nkids) {
		val_error(out);
		return;
	}
	env.my = v->u.x.my;
	env.target = v->u.x.target;
	env.nest = v->u.x.nest;
	env.outer = NULL;
	env.ctx = ctx;
	classad_eval(v->u.x.e->kids[i], &env, out);
}

void
ad_value_lookup(const struct value *v, const char *name, struct value *out,
    struct eval_ctx *ctx)
{
	const struct expr *x;
	struct env env;

	if (v->type != VAL_AD) {
		val_error(out);
		return;
	}
	env.my = v->u.x.my;
	env.target = v->u.x.target;
	env.ctx = ctx;
	if ((x = nest_lookup(v->u.x.e, name)) == NULL) {
		/* Not there: its parents' (the ads it was written in), not
		 * TARGET's, as HTCondor's scoping goes. */
		env.outer = NULL;
		if (v->u.x.e->op == AD_WHOLE &&
		    scope_ad(name, v->u.x.my, v->u.x.target, out))
			return;
		if (v->u.x.nest != NULL &&
		    (x = nest_lookup(v->u.x.nest, name)) != NULL) {
			env.nest = v->u.x.nest;
			eval_ref(x, v->u.x.nest, &env, out);
			return;
		}
		if ((x = ad_lookup(env.my, name)) == NULL) {
			val_undef(out);
			return;
		}
		env.nest = NULL;
		eval_ref(x, env.my, &env, out);
		return;
	}
	env.nest = v->u.x.e;
	env.outer = v->u.x.nest;
	eval_ref(x, v->u.x.e, &env, out);
}

/* BASE.NAME: an ad's attribute; of a list, the list of each element's. */
static void
select_value(const struct value *base, const char *name,
    struct eval_ctx *ctx, struct value *out)
{
	struct value *vals, item;
	size_t i, n;

	switch (base->type) {
	case VAL_UNDEFINED:
		val_undef(out);
		return;
	case VAL_AD:
		ad_value_lookup(base, name, out, ctx);
		return;
	case VAL_LIST:
		n = list_len(base);
		vals = xcalloc(n ? n : 1, sizeof(*vals));
		for (i = 0; i < n; i++) {
			list_item(base, i, &item, ctx);
			select_value(&item, name, ctx, &vals[i]);
			value_free(&item);
		}
		val_list(out, vals, n);
		out->u.x.e->op = 0;	/* of the written kind (LIST_MADE) */
		free(vals);
		return;
	default:
		val_error(out);
		return;
	}
}

static void
eval_select(const struct expr *e, const struct env *env, struct value *out)
{
	struct value base;

	classad_eval(e->kids[0], env, &base);
	select_value(&base, e->name, env->ctx, out);
	value_free(&base);
}

static void
eval_index(const struct expr *e, const struct env *env, struct value *out)
{
	struct value a, b;

	classad_eval(e->kids[0], env, &a);
	classad_eval(e->kids[1], env, &b);
	if (a.type == VAL_ERROR || b.type == VAL_ERROR)
		val_error(out);
	else if (a.type == VAL_UNDEFINED || b.type == VAL_UNDEFINED)
		val_undef(out);
	else if (a.type == VAL_AD && b.type == VAL_STRING)
		ad_value_lookup(&a, b.u.s, out, env->ctx);
	else if (a.type == VAL_LIST && b.type == VAL_INT) {
		if (b.u.i < 0 || (unsigned long long)b.u.i >= list_len(&a))
			val_error(out);
		else
			list_item(&a, (size_t)b.u.i, out, env->ctx);
	} else
		val_error(out);
	value_free(&a);
	value_free(&b);
}

void
classad_eval(const struct expr *e, const struct env *env, struct value *out)
{
	struct eval_ctx *ctx = env->ctx;
	struct value l, r;
	int b;

	if (++ctx->steps > EVAL_MAX_STEPS || ctx->frames >= EVAL_MAX_FRAMES) {
		val_error(out);
		return;
	}
	ctx->frames++;
	switch (e->kind) {
	case EK_LIT:
		value_copy(out, &e->lit);
		break;
	case EK_ATTR:
		eval_attr(e, env, out);
		break;
	case EK_UNARY:
		classad_eval(e->kids[0], env, &l);
		eval_unary(e->op, &l, out);
		value_free(&l);
		break;
	case EK_BINARY:
		classad_eval(e->kids[0], env, &l);
		classad_eval(e->kids[1], env, &r);
		classad_binary(e->op, &l, &r, out);
		value_free(&l);
		value_free(&r);
		break;
	case EK_LOGIC:
		eval_logic(e, env, out);
		break;
	case EK_COND:
		classad_eval(e->kids[0], env, &l);
		if (e->nkids == 2) {
			if (l.type == VAL_UNDEFINED)
				classad_eval(e->kids[1], env, out);
			else {
				*out = l;
				break;
			}
			value_free(&l);
			break;
		}
		if (val_bool_equiv(&l, &b))
			classad_eval(e->kids[b ? 1 : 2], env, out);
		else if (l.type == VAL_UNDEFINED)
			val_undef(out);
		else
			val_error(out);
		value_free(&l);
		break;
	case EK_CALL:
		if (e->op < 0)
			val_error(out);
		else
			func_at(e->op)->fn(e, env, out);
		break;
	case EK_LIST:
		val_ref(out, VAL_LIST, e, env);
		break;
	case EK_AD:
		val_ref(out, VAL_AD, e, env);
		break;
	case EK_SELECT:
		eval_select(e, env, out);
		break;
	case EK_INDEX:
		eval_index(e, env, out);
		break;
	}
	ctx->frames--;
}

size_t
args_eval(const struct expr *call, const struct env *env, struct value *args,
    size_t max)
{
	size_t i;

	for (i = 0; i < call->nkids && i < max; i++)
		classad_eval(call->kids[i], env, &args[i]);
	return i;
}

void
args_free(struct value *args, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		value_free(&args[i]);
}

void
expr_eval(const struct expr *e, const struct ad *my,
    const struct ad *target, struct value *out)
{
	struct eval_ctx ctx;
	struct env env;

	if (e == NULL) {
		val_error(out);
		return;
	}
	ctx.frames = 0;
	ctx.nrefs = 0;
	ctx.steps = 0;
	env.my = my;
	env.target = target;
	env.nest = env.outer = NULL;
	env.ctx = &ctx;
	classad_eval(e, &env, out);
}

void
expr_eval_text(const char *text, const struct ad *my,
    const struct ad *target, struct value *out)
{
	struct expr *e;

	if ((e = expr_parse(text, NULL, 0)) == NULL) {
		val_error(out);
		return;
	}
	expr_eval(e, my, target, out);
	expr_free(e);
}
