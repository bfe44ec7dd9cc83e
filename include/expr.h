/*
 * expr.h: the ClassAd language (classad(5)): control expressions, job
 * requirements, every attribute's value.  The library is src/classad.
 *
 * Values are integers, reals, strings, booleans, UNDEFINED, ERROR, lists
 * ({ 1, 2 }) and nested ads ([ a = 1; b = a + 1 ]), absolute and
 * relative times (absTime(), relTime()), with HTCondor's
 * default (non-strict) semantics: three-valued logic, ERROR and
 * UNDEFINED propagating through strict operators, 64-bit integer
 * arithmetic that wraps, IEEE reals.  Names are case-insensitive and
 * resolve in the nested ad being evaluated, MY ad, TARGET ad, then
 * through the fallback (the configuration); MY.x and TARGET.x pick one.
 * CurrentTime is the present time when no ad defines it.  The functions
 * are those of HTCondor's ClassAd reference (classad(5) lists them).
 */
#ifndef CONDOR_EXPR_H
#define CONDOR_EXPR_H

#include <stddef.h>

struct ad;
struct buf;
struct expr;

enum value_type {
	VAL_UNDEFINED,
	VAL_ERROR,
	VAL_BOOL,
	VAL_INT,
	VAL_REAL,
	VAL_STRING,
	VAL_LIST,
	VAL_AD,
	VAL_ABSTIME,	/* u.t: seconds since the epoch in a zone */
	VAL_RELTIME,	/* u.r: seconds, maybe fractional */
};

/*
 * A list or nested ad value refers to its (shared, counted) expression:
 * its elements are evaluated when asked for, in the scope (MY, TARGET)
 * where it was made, as in HTCondor.  Those ads are borrowed: ask for
 * elements only while they live.
 */
struct value {
	enum value_type	 type;
	union {
		int		 b;
		long long	 i;
		double		 r;
		char		*s;	/* owned by the value */
		struct {
			long long	 secs;
			int		 off;	/* seconds east of UTC */
		} t;
		struct {
			struct expr		*e;	/* counted reference */
			const struct ad		*my;
			const struct ad		*target;
			const struct expr	*nest;	/* made inside */
		} x;
	} u;
};

/*
 * expr_parse: parse TEXT into a tree.  Returns NULL with a message ("at
 * column N: what") in ERR on a syntax error.  Input of any length and
 * content is safe; nesting deeper than EXPR_MAX_DEPTH is an error.
 */
#define EXPR_MAX_DEPTH	200
struct expr	*expr_parse(const char *text, char *err, size_t errlen);
void		 expr_free(struct expr *);
struct expr	*expr_copy(const struct expr *);
/* expr_from_value: a literal tree holding a copy of V (for ad_set_int...). */
struct expr	*expr_from_value(const struct value *v);

/*
 * Evaluation bounds: a string value longer than EXPR_MAX_STRING bytes
 * (strcat of strcats) is ERROR.
 */
#define EXPR_MAX_STRING	(1024 * 1024)

/* expr_unparse: canonical text that expr_parse reads back to the same tree. */
void		 expr_unparse(const struct expr *, struct buf *);
char		*expr_to_string(const struct expr *);	/* caller frees */

/*
 * expr_eval: evaluate E with MY and TARGET (either may be NULL).  The
 * result is stored in OUT; free it with value_free.  Never fails: errors
 * are VAL_ERROR.  Recursion through attribute references is bounded.
 */
void		 expr_eval(const struct expr *e, const struct ad *my,
		    const struct ad *target, struct value *out);

/*
 * expr_eval_text: parse and evaluate TEXT in one step (parse errors give
 * VAL_ERROR).
 */
void		 expr_eval_text(const char *text, const struct ad *my,
		    const struct ad *target, struct value *out);

/*
 * expr_set_fallback: names found in neither ad are looked up with FN,
 * which returns expression text or NULL.  config_init installs param.
 */
void		 expr_set_fallback(const char *(*fn)(const char *name));

/*
 * expr_references: append to OUT (space separated, no duplicates) the
 * attribute names E refers to; used by condor_q -analyze.
 */
void		 expr_references(const struct expr *, struct buf *out);

/*
 * expr_clauses: split E on its top-level && into separate trees; returns
 * how many were stored in CLAUSES (at most MAX).  condor_q -analyze
 * evaluates each to tell which part of a requirement fails.
 */
size_t		 expr_clauses(const struct expr *, struct expr **clauses,
		    size_t max);

/*
 * expr_comparison: whether E is a comparison (< <= > >= == != =?= =!=);
 * if so its operands go to *LEFT and *RIGHT (E's own) and the
 * operator's text to *OP.  expr_is_literal: whether E is a constant
 * written as such (a number, maybe negative, a string...).  For
 * condor_q -analyze, which shows the values that make a clause false.
 */
int		 expr_comparison(const struct expr *e,
		    const struct expr **left, const char **op,
		    const struct expr **right);
int		 expr_is_literal(const struct expr *e);

void		 value_free(struct value *);
/* value_copy: DST becomes a deep copy of SRC (its string duplicated). */
void		 value_copy(struct value *dst, const struct value *src);
/* value_print: the value as ClassAd text (strings quoted and escaped). */
void		 value_print(const struct value *, struct buf *);
/*
 * value_print_plain: the value as text for people (-af, condor_status):
 * strings unquoted, booleans true/false, UNDEFINED as UNDEF ("undefined"
 * when NULL), ERROR as "error", numbers as value_print writes them.
 */
void		 value_print_plain(const struct value *, const char *undef,
		    struct buf *);
/*
 * value_unparse: V as HTCondor's ClassAd unparser writes an attribute's
 * value (condor_q -l): booleans true/false, undefined, error, reals with
 * 16 significant digits (".0" added to look like a real), real("INF"),
 * lists "{ a,b }", ads "[ a = 1; b = 2 ]".
 */
void		 value_unparse(const struct value *, struct buf *);
/* value_list_len: elements of a list value (0 for any other value). */
size_t		 value_list_len(const struct value *);
/* value_list_item: element I of list value V, evaluated, into OUT. */
void		 value_list_item(const struct value *v, size_t i,
		    struct value *out);
/* value_ad_lookup: attribute NAME of nested ad value V, evaluated. */
void		 value_ad_lookup(const struct value *v, const char *name,
		    struct value *out);
/* value_is_true: exactly TRUE (a boolean true, or a non-zero number). */
int		 value_is_true(const struct value *);
const char	*value_type_name(enum value_type);

#endif
