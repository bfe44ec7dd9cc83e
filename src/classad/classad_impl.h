/*
 * classad_impl.h: what the files of src/classad share and no caller
 * sees: the tree, the evaluation environment, the function table.
 */
#ifndef CONDOR_CLASSAD_IMPL_H
#define CONDOR_CLASSAD_IMPL_H

#include <stddef.h>

#include "expr.h"

struct buf;

#define EXPR_MAX_HEIGHT	1000	/* levels of tree */
#define EVAL_MAX_FRAMES	4000	/* nested evaluator calls */
#define EVAL_MAX_REFS	100	/* nested attribute references */
#define EVAL_MAX_STEPS	1000000	/* nodes visited by one evaluation */

enum token {
	T_EOF, T_INT, T_REAL, T_STRING, T_NAME, T_TRUE, T_FALSE, T_UNDEF,
	T_ERROR, T_LPAREN, T_RPAREN, T_COMMA, T_QUEST, T_COLON, T_OR, T_AND,
	T_EQ, T_NE, T_IS, T_ISNT, T_LT, T_LE, T_GT, T_GE, T_PLUS, T_MINUS,
	T_MUL, T_DIV, T_MOD, T_NOT, T_BITNOT, T_BITAND, T_BITOR, T_BITXOR,
	T_SHL, T_SHR, T_USHR, T_LBRACE, T_RBRACE, T_LBRACK, T_RBRACK, T_SEMI,
	T_DOT, T_ASSIGN, T_ELVIS,
};

enum expr_kind {
	EK_LIT,		/* lit */
	EK_ATTR,	/* scope, name */
	EK_UNARY,	/* op kids[0] */
	EK_BINARY,	/* kids[0] op kids[1] */
	EK_LOGIC,	/* kids[0] op kids[1] op ... (T_AND or T_OR) */
	EK_COND,	/* kids[0] ? kids[1] : kids[2]; 2 kids: kids[0] ?: kids[1] */
	EK_CALL,	/* name(kids...); op: index in the function table or -1 */
	EK_LIST,	/* { kids... } */
	EK_AD,		/* [ names[i] = kids[i]; ... ] */
	EK_SELECT,	/* kids[0].name */
	EK_INDEX,	/* kids[0][kids[1]] */
};

enum scope {
	SCOPE_NONE,
	SCOPE_MY,
	SCOPE_TARGET,
	SCOPE_PARENT,
};

struct expr {
	enum expr_kind	 kind;
	int		 op;		/* token, or index in the function table;
					 * EK_LIST: LIST_MADE or 0 */
	enum scope	 scope;
	unsigned	 height;	/* 1 for a leaf */
	unsigned	 shared;	/* holders besides the owner (values) */
	unsigned	 parens;	/* parentheses written around it */
	struct value	 lit;
	char		*name;
	char		**names;	/* EK_AD: one per kid */
	size_t		 nkids;
	struct expr	**kids;
};

/*
 * A list a function made (split(), splitUserName(), ...) rather than one
 * written in an expression.  HTCondor keeps the two kinds apart, and its
 * "is" and "isnt" tell them apart: a made list is never identical to a
 * written one, while two lists of one kind are an ERROR to compare.
 */
#define LIST_MADE	1

struct eval_ctx {
	unsigned		 frames;
	unsigned		 nrefs;
	unsigned long		 steps;
	const struct expr	*refs[EVAL_MAX_REFS];	/* being evaluated */
	const void		*ref_ads[EVAL_MAX_REFS];
};

/* Where names resolve: NEST (an EK_AD node, or NULL), the nested ad it
 * is written in (OUTER), then MY, then TARGET (outside nested ads). */
struct env {
	const struct ad		*my;
	const struct ad		*target;
	const struct expr	*nest;
	const struct expr	*outer;	/* the nested ad NEST is written in */
	struct eval_ctx		*ctx;
};

/* Values. */
void	 val_undef(struct value *);
void	 val_error(struct value *);
void	 val_bool(struct value *, int);
void	 val_int(struct value *, long long);
void	 val_real(struct value *, double);
void	 val_string(struct value *, char *);	/* takes ownership */
void	 val_strdup(struct value *, const char *);
/* val_list: a list value of N literal elements VALS (moved in). */
void	 val_list(struct value *, struct value *vals, size_t n);
/* val_ad: an ad value of N attributes NAMES with values VALS (moved in). */
void	 val_ad(struct value *, const char *const *names, struct value *vals,
	    size_t n);
/* val_ref: a list or ad value referring to node E in ENV's scope. */
void	 val_ref(struct value *, enum value_type, const struct expr *e,
	    const struct env *env);
void	 val_abstime(struct value *, long long secs, int off);
void	 val_reltime(struct value *, double secs);
/* The time absTime(S) (ABS) or relTime(S) of a string literal S makes;
 * 0 if S is no time. */
int	 time_literal(int abs, const char *s, struct value *out);
/* Whether time V's printed text reads back as V. */
int	 time_reads_back(const struct value *v);
/* A time's text: WRAP in the call that makes it (the attribute form). */
void	 time_unparse(const struct value *, int wrap, struct buf *);
int	 val_is_number(const struct value *);	/* bool, int, real */
/* val_bool_equiv: 1 and *B if V is a boolean or a number (non-zero true). */
int	 val_bool_equiv(const struct value *, int *b);
/* Real as HTCondor prints it: OLD 1 the attribute form (%.16G), 2 the
 * same but exact (our canonical text), 0 the form string() and strcat()
 * make (%1.15E). */
void	 real_unparse(double, int old, struct buf *);
/* string(): V as text, strings bare, other values in the new syntax. */
char	*val_text(const struct value *);
/* C's strtod/conversions as HTCondor's int(), real() make them. */
int	 val_to_real(const struct value *, double *);
int	 val_to_int(const struct value *, long long *);

/* Trees and evaluation. */
struct expr	*node_new(enum expr_kind, int op, size_t nkids);
void		 classad_eval(const struct expr *, const struct env *,
		    struct value *);
/* A binary operator (a token) on two values, as the evaluator does it. */
void		 classad_binary(int op, const struct value *,
		    const struct value *, struct value *);
/* An element of list value V, or attribute NAME of ad value V. */
void		 list_item(const struct value *v, size_t i, struct value *out,
		    struct eval_ctx *ctx);
size_t		 list_len(const struct value *);
void		 ad_value_lookup(const struct value *v, const char *name,
		    struct value *out, struct eval_ctx *ctx);
/* Configuration setting NAME (through the fallback), or NULL. */
const char	*classad_config(const char *name);
/* Attribute NAME of nested ad node AD (an EK_AD), or NULL. */
const struct expr *nest_lookup(const struct expr *ad, const char *name);
/* HTC: 0 ours, 1 HTCondor's old syntax, 2 its new syntax, HTC_PRETTY
 * its new syntax laid out as its unparse() function does. */
#define HTC_PRETTY	3
void		 unparse_expr(const struct expr *, int htc, struct buf *);

/* The function table: each evaluates its own arguments. */
typedef void fn_t(const struct expr *call, const struct env *,
    struct value *out);
struct func {
	const char	*name;
	fn_t		*fn;
};
const struct func *func_lookup(const char *name, int *index);
const struct func *func_at(int index);

/* Evaluate every argument of CALL into ARGS (at most MAX); the count. */
size_t	 args_eval(const struct expr *call, const struct env *,
	    struct value *args, size_t max);
void	 args_free(struct value *args, size_t n);

#endif
