/*
 * expr.h: control expressions and job requirements.
 *
 * Values are integers, reals, strings, booleans, UNDEFINED and ERROR, with
 * ClassAd three-valued logic: UNDEFINED && FALSE is FALSE, UNDEFINED ||
 * TRUE is TRUE, otherwise UNDEFINED propagates; a type error gives ERROR.
 * Operators: unary - + !, * / %, + -, < <= > >= == != (=?= and =!= compare
 * exactly, never UNDEFINED), && ||, ?: and parentheses.  Names are
 * case-insensitive and resolve in MY ad, then TARGET ad, then through the
 * fallback (the configuration); MY.x and TARGET.x pick one.  CurrentTime is
 * the present time when no ad defines it.  Functions: ifThenElse,
 * isUndefined, isError, isString, isInteger, isReal, isBoolean, int, real,
 * string, floor, ceiling, round, strcat, size, toLower, toUpper, time,
 * min, max.
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
};

struct value {
	enum value_type	 type;
	union {
		int		 b;
		long long	 i;
		double		 r;
		char		*s;	/* owned by the value */
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
/* value_is_true: exactly TRUE (a boolean true, or a non-zero number). */
int		 value_is_true(const struct value *);
const char	*value_type_name(enum value_type);

#endif
