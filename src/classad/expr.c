/*
 * expr.c: control expressions.  A lexer and a recursive-descent parser
 * build a tree once; the evaluator walks it with ClassAd three-valued
 * logic; the unparser prints the canonical text that ads carry on the
 * wire and in files.
 *
 * Every recursion is bounded so that no input can overflow the stack or
 * keep a daemon busy for long: the parser by EXPR_MAX_DEPTH levels of
 * nesting and EXPR_MAX_HEIGHT levels of tree (so unparse, copy and free
 * are bounded too), the evaluator by a budget of frames, attribute
 * references and steps.  Long && and || chains are stored as one n-ary
 * node, so a requirement listing hundreds of machines stays shallow.
 *
 * The math library is deliberately not used (the build does not link
 * it): rounding and the real remainder are done by hand below.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ad.h"
#include "buf.h"
#include "expr.h"
#include "log.h"
#include "xalloc.h"

#define EXPR_MAX_HEIGHT	1000	/* levels of tree */
#define EVAL_MAX_FRAMES	4000	/* nested evaluator calls */
#define EVAL_MAX_REFS	100	/* nested attribute references */
#define EVAL_MAX_STEPS	1000000	/* nodes visited by one evaluation */
#define FALLBACK_SLOTS	64	/* parsed fallback texts kept */

enum token {
	T_EOF,
	T_INT,
	T_REAL,
	T_STRING,
	T_NAME,
	T_TRUE,
	T_FALSE,
	T_UNDEF,
	T_ERROR,
	T_LPAREN,
	T_RPAREN,
	T_COMMA,
	T_QUEST,
	T_COLON,
	T_OR,
	T_AND,
	T_EQ,
	T_NE,
	T_IS,
	T_ISNT,
	T_LT,
	T_LE,
	T_GT,
	T_GE,
	T_PLUS,
	T_MINUS,
	T_MUL,
	T_DIV,
	T_MOD,
	T_NOT,
};

enum expr_kind {
	EK_LIT,		/* lit */
	EK_ATTR,	/* scope, name */
	EK_UNARY,	/* op kids[0] */
	EK_BINARY,	/* kids[0] op kids[1] */
	EK_LOGIC,	/* kids[0] op kids[1] op ... (T_AND or T_OR) */
	EK_COND,	/* kids[0] ? kids[1] : kids[2]; with 2 kids,
			   kids[0] ?: kids[1] */
	EK_CALL,	/* funcs[op](kids...) */
};

enum scope {
	SCOPE_NONE,
	SCOPE_MY,
	SCOPE_TARGET,
};

struct expr {
	enum expr_kind	 kind;
	int		 op;		/* token, or index in funcs[] */
	enum scope	 scope;
	unsigned	 height;	/* 1 for a leaf */
	struct value	 lit;
	char		*name;
	size_t		 nkids;
	struct expr	**kids;
};

enum func {
	F_IFTHENELSE,
	F_ISUNDEFINED,
	F_ISERROR,
	F_ISSTRING,
	F_ISINTEGER,
	F_ISREAL,
	F_ISBOOLEAN,
	F_INT,
	F_REAL,
	F_STRING,
	F_FLOOR,
	F_CEILING,
	F_ROUND,
	F_STRCAT,
	F_SIZE,
	F_TOLOWER,
	F_TOUPPER,
	F_TIME,
	F_MIN,
	F_MAX,
	F_REGEXP,
	F_STRINGLISTMEMBER,
	F_STRINGLISTIMEMBER,
	F_STRINGLISTSINTERSECT,
};

/* Indexed by enum func; maxargs -1 means any number. */
static const struct {
	const char	*name;
	int		 minargs;
	int		 maxargs;
} funcs[] = {
	{ "ifThenElse", 3, 3 },
	{ "isUndefined", 1, 1 },
	{ "isError", 1, 1 },
	{ "isString", 1, 1 },
	{ "isInteger", 1, 1 },
	{ "isReal", 1, 1 },
	{ "isBoolean", 1, 1 },
	{ "int", 1, 1 },
	{ "real", 1, 1 },
	{ "string", 1, 1 },
	{ "floor", 1, 1 },
	{ "ceiling", 1, 1 },
	{ "round", 1, 1 },
	{ "strcat", 0, -1 },
	{ "size", 1, 1 },
	{ "toLower", 1, 1 },
	{ "toUpper", 1, 1 },
	{ "time", 0, 0 },
	{ "min", 1, -1 },
	{ "max", 1, -1 },
	{ "regexp", 2, 3 },
	{ "stringListMember", 2, 3 },
	{ "stringListIMember", 2, 3 },
	{ "stringListsIntersect", 2, 3 },
};
#define NFUNCS	(sizeof(funcs) / sizeof(funcs[0]))

/* 2^63: the magnitude of LLONG_MIN, legal only right after a minus. */
#define INT_MAGNITUDE_MAX	((unsigned long long)LLONG_MAX + 1)

struct parser {
	const char		*text;
	size_t			 pos;		/* next byte to lex */
	size_t			 tokpos;	/* start of the current token */
	enum token		 tok;
	unsigned long long	 ival;
	double			 rval;
	struct buf		 sval;		/* T_STRING or T_NAME text */
	unsigned		 depth;		/* against EXPR_MAX_DEPTH */
	int			 failed;
	char			*err;
	size_t			 errlen;
};

struct eval_ctx {
	unsigned	 frames;
	unsigned	 refs;
	unsigned long	 steps;
};

static const char *(*fallback_fn)(const char *);

/* Parsed fallback texts, so a name resolved through the configuration is
 * not parsed again on every evaluation. */
static struct fallback_slot {
	char		*name;
	char		*text;
	struct expr	*expr;		/* NULL: TEXT did not parse */
} fallback_cache[FALLBACK_SLOTS];

static struct expr	*parse_cond(struct parser *);
static void		 eval(const struct expr *, const struct ad *,
			    const struct ad *, struct eval_ctx *,
			    struct value *);
static void		 unparse(const struct expr *, struct buf *);

/*
 * Values.
 */

static void
set_undef(struct value *v)
{
	v->type = VAL_UNDEFINED;
	v->u.i = 0;
}

static void
set_error(struct value *v)
{
	v->type = VAL_ERROR;
	v->u.i = 0;
}

static void
set_bool(struct value *v, int b)
{
	v->type = VAL_BOOL;
	v->u.b = b != 0;
}

static void
set_int(struct value *v, long long i)
{
	v->type = VAL_INT;
	v->u.i = i;
}

static void
set_real(struct value *v, double r)
{
	v->type = VAL_REAL;
	v->u.r = r;
}

/* Takes ownership of S. */
static void
set_string(struct value *v, char *s)
{
	if (strlen(s) > EXPR_MAX_STRING) {
		free(s);
		set_error(v);
		return;
	}
	v->type = VAL_STRING;
	v->u.s = s;
}

/* value_free: release V's string, if any; V is left UNDEFINED.  NULL is
 * allowed. */
void
value_free(struct value *v)
{
	if (v == NULL)
		return;
	if (v->type == VAL_STRING)
		free(v->u.s);
	set_undef(v);
}

void
value_copy(struct value *dst, const struct value *src)
{
	*dst = *src;
	if (src->type == VAL_STRING)
		dst->u.s = xstrdup(src->u.s);
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

/* value_type_name: "integer", "string"... for messages; never NULL. */
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
	}
	return "unknown";
}

static int
is_number(const struct value *v)
{
	return v->type == VAL_BOOL || v->type == VAL_INT ||
	    v->type == VAL_REAL;
}

/* A boolean or integer: arithmetic on two of them stays integral. */
static int
is_integral(const struct value *v)
{
	return v->type == VAL_BOOL || v->type == VAL_INT;
}

static long long
as_int(const struct value *v)
{
	return v->type == VAL_BOOL ? v->u.b : v->u.i;
}

static double
as_real(const struct value *v)
{
	if (v->type == VAL_REAL)
		return v->u.r;
	return (double)as_int(v);
}

/*
 * Reals are printed with the fewest digits that read back to the same
 * double, and always look like reals (a "." or an exponent) so that they
 * re-parse as reals.  Infinities and NaN have no literal; WRAP asks for
 * the real("INF") form that evaluates back to them.
 */
static void
real_print(double d, int wrap, struct buf *b)
{
	char s[64];
	int prec;

	if (isnan(d) || isinf(d)) {
		const char *t = isnan(d) ? "NaN" : d < 0 ? "-INF" : "INF";

		if (wrap)
			buf_printf(b, "real(\"%s\")", t);
		else
			buf_adds(b, t);
		return;
	}
	for (prec = 15; prec < 17; prec++) {
		(void)snprintf(s, sizeof(s), "%.*g", prec, d);
		if (strtod(s, NULL) == d)
			break;
	}
	if (prec == 17)
		(void)snprintf(s, sizeof(s), "%.17g", d);
	buf_adds(b, s);
	if (strspn(s, "-0123456789") == strlen(s))
		buf_adds(b, ".0");
}

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

void
value_print(const struct value *v, struct buf *b)
{
	switch (v->type) {
	case VAL_UNDEFINED:
		buf_adds(b, "UNDEFINED");
		break;
	case VAL_ERROR:
		buf_adds(b, "ERROR");
		break;
	case VAL_BOOL:
		buf_adds(b, v->u.b ? "TRUE" : "FALSE");
		break;
	case VAL_INT:
		buf_printf(b, "%lld", v->u.i);
		break;
	case VAL_REAL:
		real_print(v->u.r, 1, b);
		break;
	case VAL_STRING:
		string_print(v->u.s, b);
		break;
	}
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

/*
 * Trees.
 */

static struct expr *
node_new(enum expr_kind kind, int op, size_t nkids)
{
	struct expr *e;

	e = xcalloc(1, sizeof(*e));
	e->kind = kind;
	e->op = op;
	e->height = 1;
	set_undef(&e->lit);
	e->nkids = nkids;
	if (nkids > 0)
		e->kids = xcalloc(nkids, sizeof(*e->kids));
	return e;
}

/* expr_free: release a whole tree; NULL is allowed. */
void
expr_free(struct expr *e)
{
	size_t i;

	if (e == NULL)
		return;
	for (i = 0; i < e->nkids; i++)
		expr_free(e->kids[i]);
	free(e->kids);
	free(e->name);
	value_free(&e->lit);
	free(e);
}

/* expr_copy: a deep copy of E (NULL for NULL); free it with expr_free. */
struct expr *
expr_copy(const struct expr *e)
{
	struct expr *c;
	size_t i;

	if (e == NULL)
		return NULL;
	c = node_new(e->kind, e->op, e->nkids);
	c->scope = e->scope;
	c->height = e->height;
	value_copy(&c->lit, &e->lit);
	if (e->name != NULL)
		c->name = xstrdup(e->name);
	for (i = 0; i < e->nkids; i++)
		c->kids[i] = expr_copy(e->kids[i]);
	return c;
}

struct expr *
expr_from_value(const struct value *v)
{
	struct expr *e;

	e = node_new(EK_LIT, 0, 0);
	value_copy(&e->lit, v);
	return e;
}

/*
 * The lexer.
 */

static void
parse_fail(struct parser *p, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
parse_fail(struct parser *p, size_t pos, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (p->failed)
		return;
	p->failed = 1;
	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->err != NULL && p->errlen > 0)
		(void)snprintf(p->err, p->errlen, "at column %zu: %s",
		    pos + 1, msg);
}

static int
name_start(int c)
{
	return isascii(c) && (isalpha(c) || c == '_');
}

static int
name_char(int c)
{
	return isascii(c) && (isalnum(c) || c == '_' || c == '.');
}

static const char *
token_desc(enum token t)
{
	static const char *const desc[] = {
		[T_EOF] = "end of expression", [T_INT] = "integer",
		[T_REAL] = "real", [T_STRING] = "string", [T_NAME] = "name",
		[T_TRUE] = "TRUE", [T_FALSE] = "FALSE",
		[T_UNDEF] = "UNDEFINED", [T_ERROR] = "ERROR",
		[T_LPAREN] = "'('", [T_RPAREN] = "')'", [T_COMMA] = "','",
		[T_QUEST] = "'?'", [T_COLON] = "':'", [T_OR] = "'||'",
		[T_AND] = "'&&'", [T_EQ] = "'=='", [T_NE] = "'!='",
		[T_IS] = "'=?='", [T_ISNT] = "'=!='", [T_LT] = "'<'",
		[T_LE] = "'<='", [T_GT] = "'>'", [T_GE] = "'>='",
		[T_PLUS] = "'+'", [T_MINUS] = "'-'", [T_MUL] = "'*'",
		[T_DIV] = "'/'", [T_MOD] = "'%'", [T_NOT] = "'!'",
	};

	return desc[t];
}

static void
lex_number(struct parser *p)
{
	const char *s = p->text + p->tokpos, *q = s;
	unsigned long long v = 0;
	int real = 0;
	char *copy;

	while (isdigit((unsigned char)*q)) {
		unsigned d = (unsigned)(*q - '0');

		/* Saturate just past 2^63; the parser reports overflow. */
		if (v <= (INT_MAGNITUDE_MAX - d) / 10)
			v = v * 10 + d;
		else
			v = INT_MAGNITUDE_MAX + 1;
		q++;
	}
	if (*q == '.') {
		real = 1;
		q++;
		while (isdigit((unsigned char)*q))
			q++;
	}
	if ((*q == 'e' || *q == 'E') && (isdigit((unsigned char)q[1]) ||
	    ((q[1] == '+' || q[1] == '-') && isdigit((unsigned char)q[2])))) {
		real = 1;
		q += 2;
		while (isdigit((unsigned char)*q))
			q++;
	}
	p->pos = (size_t)(q - p->text);
	if (!real) {
		p->tok = T_INT;
		p->ival = v;
		return;
	}
	copy = xstrndup(s, (size_t)(q - s));
	errno = 0;
	p->rval = strtod(copy, NULL);
	free(copy);
	/* Underflow to zero or a denormal is fine; overflow has no literal. */
	if (errno == ERANGE && isinf(p->rval))
		parse_fail(p, p->tokpos, "real number out of range");
	p->tok = T_REAL;
}

static void
lex_string(struct parser *p)
{
	const char *q = p->text + p->pos + 1;

	buf_reset(&p->sval);
	for (;;) {
		switch (*q) {
		case '\0':
			parse_fail(p, p->tokpos, "unterminated string");
			p->pos = (size_t)(q - p->text);
			p->tok = T_EOF;
			return;
		case '"':
			p->pos = (size_t)(q + 1 - p->text);
			p->tok = T_STRING;
			return;
		case '\\':
			q++;
			switch (*q) {
			case '"':
			case '\\':
				buf_addc(&p->sval, *q);
				break;
			case 'n':
				buf_addc(&p->sval, '\n');
				break;
			case 't':
				buf_addc(&p->sval, '\t');
				break;
			case 'r':
				buf_addc(&p->sval, '\r');
				break;
			case '\0':
				parse_fail(p, p->tokpos,
				    "unterminated string");
				p->pos = (size_t)(q - p->text);
				p->tok = T_EOF;
				return;
			default:
				parse_fail(p, (size_t)(q - 1 - p->text),
				    "unknown escape '\\%c' in string",
				    isprint((unsigned char)*q) ? *q : '?');
				p->pos = (size_t)(q - p->text);
				p->tok = T_EOF;
				return;
			}
			q++;
			break;
		default:
			buf_addc(&p->sval, *q);
			q++;
		}
	}
}

static void
lex_name(struct parser *p)
{
	static const struct {
		const char	*word;
		enum token	 tok;
	} words[] = {
		{ "TRUE", T_TRUE }, { "FALSE", T_FALSE },
		{ "UNDEFINED", T_UNDEF }, { "ERROR", T_ERROR },
		{ "is", T_IS }, { "isnt", T_ISNT },
	};
	const char *s = p->text + p->tokpos, *q = s;
	size_t i;

	while (name_char((unsigned char)*q))
		q++;
	p->pos = (size_t)(q - p->text);
	buf_reset(&p->sval);
	buf_add(&p->sval, s, (size_t)(q - s));
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (strcasecmp(p->sval.data, words[i].word) == 0) {
			p->tok = words[i].tok;
			return;
		}
	}
	p->tok = T_NAME;
}

/* Read the next token into P; at the first error the token is T_EOF. */
static void
lex(struct parser *p)
{
	const char *s;
	int c;

	if (p->failed) {
		p->tok = T_EOF;
		return;
	}
	while (isspace((unsigned char)p->text[p->pos]))
		p->pos++;
	p->tokpos = p->pos;
	s = p->text + p->pos;
	c = (unsigned char)s[0];
	if (c == '\0') {
		p->tok = T_EOF;
		return;
	}
	if (isdigit(c) || (c == '.' && isdigit((unsigned char)s[1]))) {
		lex_number(p);
		return;
	}
	if (c == '"') {
		lex_string(p);
		return;
	}
	if (name_start(c)) {
		lex_name(p);
		return;
	}
	p->pos++;
	switch (c) {
	case '(':
		p->tok = T_LPAREN;
		return;
	case ')':
		p->tok = T_RPAREN;
		return;
	case ',':
		p->tok = T_COMMA;
		return;
	case '?':
		p->tok = T_QUEST;
		return;
	case ':':
		p->tok = T_COLON;
		return;
	case '+':
		p->tok = T_PLUS;
		return;
	case '-':
		p->tok = T_MINUS;
		return;
	case '*':
		p->tok = T_MUL;
		return;
	case '/':
		p->tok = T_DIV;
		return;
	case '%':
		p->tok = T_MOD;
		return;
	case '|':
		if (s[1] == '|') {
			p->pos++;
			p->tok = T_OR;
			return;
		}
		break;
	case '&':
		if (s[1] == '&') {
			p->pos++;
			p->tok = T_AND;
			return;
		}
		break;
	case '!':
		if (s[1] == '=') {
			p->pos++;
			p->tok = T_NE;
		} else
			p->tok = T_NOT;
		return;
	case '<':
		if (s[1] == '=') {
			p->pos++;
			p->tok = T_LE;
		} else
			p->tok = T_LT;
		return;
	case '>':
		if (s[1] == '=') {
			p->pos++;
			p->tok = T_GE;
		} else
			p->tok = T_GT;
		return;
	case '=':
		if (s[1] == '=') {
			p->pos++;
			p->tok = T_EQ;
			return;
		}
		if (s[1] == '?' && s[2] == '=') {
			p->pos += 2;
			p->tok = T_IS;
			return;
		}
		if (s[1] == '!' && s[2] == '=') {
			p->pos += 2;
			p->tok = T_ISNT;
			return;
		}
		break;
	}
	if (isprint(c))
		parse_fail(p, p->tokpos, "unexpected '%c'", c);
	else
		parse_fail(p, p->tokpos, "unexpected byte 0x%02x", c);
	p->tok = T_EOF;
}

/*
 * The parser.  Each function returns a tree or NULL after parse_fail().
 *
 *	cond	:= or [ '?' cond ':' cond ]
 *	or	:= and { '||' and }
 *	and	:= eq { '&&' eq }
 *	eq	:= rel { ('==' | '!=' | '=?=' | '=!=' | is | isnt) rel }
 *	rel	:= add { ('<' | '<=' | '>' | '>=') add }
 *	add	:= mul { ('+' | '-') mul }
 *	mul	:= unary { ('*' | '/' | '%') unary }
 *	unary	:= ('-' | '+' | '!') unary | primary
 *	primary	:= literal | name | name '(' [ cond { ',' cond } ] ')'
 *		 | '(' cond ')'
 */

static int
nest_enter(struct parser *p)
{
	if (++p->depth > EXPR_MAX_DEPTH) {
		parse_fail(p, p->tokpos, "nesting deeper than %d",
		    EXPR_MAX_DEPTH);
		return 0;
	}
	return 1;
}

/* Set E's height from its children; false (and E freed) if too tall. */
static int
node_finish(struct parser *p, struct expr *e, size_t pos)
{
	size_t i;

	e->height = 1;
	for (i = 0; i < e->nkids; i++)
		if (e->kids[i]->height + 1 > e->height)
			e->height = e->kids[i]->height + 1;
	if (e->height > EXPR_MAX_HEIGHT) {
		parse_fail(p, pos, "expression deeper than %d",
		    EXPR_MAX_HEIGHT);
		return 0;
	}
	return 1;
}

static struct expr *
node_binary(struct parser *p, int op, struct expr *l, struct expr *r,
    size_t pos)
{
	struct expr *e;

	e = node_new(EK_BINARY, op, 2);
	e->kids[0] = l;
	e->kids[1] = r;
	if (!node_finish(p, e, pos)) {
		expr_free(e);
		return NULL;
	}
	return e;
}

static int
expect(struct parser *p, enum token t)
{
	if (p->tok != t) {
		parse_fail(p, p->tokpos, "expected %s, found %s",
		    token_desc(t), token_desc(p->tok));
		return 0;
	}
	lex(p);
	return 1;
}

static int
func_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < NFUNCS; i++)
		if (strcasecmp(name, funcs[i].name) == 0)
			return (int)i;
	return -1;
}

/* NAME has been read and the current token is its '('. */
static struct expr *
parse_call(struct parser *p, const char *name, size_t namepos)
{
	struct expr *e, *arg;
	size_t n = 0, cap = 0;
	struct expr **args = NULL;
	int fn;

	if ((fn = func_lookup(name)) < 0) {
		parse_fail(p, namepos, "unknown function '%.64s'", name);
		return NULL;
	}
	if (!nest_enter(p))
		return NULL;
	lex(p);
	if (p->tok != T_RPAREN) {
		for (;;) {
			if ((arg = parse_cond(p)) == NULL)
				goto fail;
			if (n == cap) {
				cap = cap ? cap * 2 : 4;
				args = xreallocarray(args, cap, sizeof(*args));
			}
			args[n++] = arg;
			if (p->tok != T_COMMA)
				break;
			lex(p);
		}
	}
	if (!expect(p, T_RPAREN))
		goto fail;
	p->depth--;
	if ((int)n < funcs[fn].minargs ||
	    (funcs[fn].maxargs >= 0 && (int)n > funcs[fn].maxargs)) {
		if (funcs[fn].minargs == funcs[fn].maxargs)
			parse_fail(p, namepos, "%s takes %d argument%s",
			    funcs[fn].name, funcs[fn].minargs,
			    funcs[fn].minargs == 1 ? "" : "s");
		else
			parse_fail(p, namepos, "%s takes at least %d "
			    "argument%s", funcs[fn].name, funcs[fn].minargs,
			    funcs[fn].minargs == 1 ? "" : "s");
		goto fail;
	}
	e = node_new(EK_CALL, fn, 0);
	e->nkids = n;
	e->kids = args;
	if (!node_finish(p, e, namepos)) {
		expr_free(e);
		return NULL;
	}
	return e;
fail:
	while (n > 0)
		expr_free(args[--n]);
	free(args);
	return NULL;
}

static struct expr *
parse_name(struct parser *p)
{
	struct expr *e;
	size_t namepos = p->tokpos;
	char *name;

	name = xstrndup(p->sval.data, p->sval.len);
	lex(p);
	if (p->failed) {
		free(name);
		return NULL;
	}
	if (p->tok == T_LPAREN) {
		e = parse_call(p, name, namepos);
		free(name);
		return e;
	}
	e = node_new(EK_ATTR, 0, 0);
	if (strlen(name) > 3 && strncasecmp(name, "MY.", 3) == 0) {
		e->scope = SCOPE_MY;
		e->name = xstrdup(name + 3);
		free(name);
	} else if (strlen(name) > 7 && strncasecmp(name, "TARGET.", 7) == 0) {
		e->scope = SCOPE_TARGET;
		e->name = xstrdup(name + 7);
		free(name);
	} else
		e->name = name;
	return e;
}

static struct expr *
parse_primary(struct parser *p)
{
	struct expr *e;

	switch (p->tok) {
	case T_INT:
		if (p->ival > (unsigned long long)LLONG_MAX) {
			parse_fail(p, p->tokpos, "integer out of range");
			return NULL;
		}
		e = node_new(EK_LIT, 0, 0);
		set_int(&e->lit, (long long)p->ival);
		lex(p);
		return e;
	case T_REAL:
		e = node_new(EK_LIT, 0, 0);
		set_real(&e->lit, p->rval);
		lex(p);
		return e;
	case T_STRING:
		e = node_new(EK_LIT, 0, 0);
		e->lit.type = VAL_STRING;
		e->lit.u.s = xstrndup(p->sval.data, p->sval.len);
		lex(p);
		return e;
	case T_TRUE:
	case T_FALSE:
		e = node_new(EK_LIT, 0, 0);
		set_bool(&e->lit, p->tok == T_TRUE);
		lex(p);
		return e;
	case T_UNDEF:
		e = node_new(EK_LIT, 0, 0);
		lex(p);
		return e;
	case T_ERROR:
		e = node_new(EK_LIT, 0, 0);
		set_error(&e->lit);
		lex(p);
		return e;
	case T_NAME:
		return parse_name(p);
	case T_LPAREN:
		if (!nest_enter(p))
			return NULL;
		lex(p);
		if ((e = parse_cond(p)) == NULL)
			return NULL;
		if (!expect(p, T_RPAREN)) {
			expr_free(e);
			return NULL;
		}
		p->depth--;
		return e;
	default:
		parse_fail(p, p->tokpos, "unexpected %s", token_desc(p->tok));
		return NULL;
	}
}

/*
 * A minus in front of a number is folded into the literal, so that the
 * unparsed "-5" reads back to the same tree; -9223372036854775808 is
 * accepted here although its magnitude alone is out of range.
 */
static struct expr *
parse_unary(struct parser *p)
{
	struct expr *e, *k;
	size_t pos = p->tokpos;
	int op = p->tok;

	if (op != T_MINUS && op != T_PLUS && op != T_NOT)
		return parse_primary(p);
	if (!nest_enter(p))
		return NULL;
	lex(p);
	if (op == T_MINUS && p->tok == T_INT && p->ival == INT_MAGNITUDE_MAX) {
		k = node_new(EK_LIT, 0, 0);
		set_int(&k->lit, LLONG_MIN);
		lex(p);
		p->depth--;
		return k;
	}
	if ((k = parse_unary(p)) == NULL)
		return NULL;
	p->depth--;
	if (op == T_MINUS && k->kind == EK_LIT && k->lit.type == VAL_REAL) {
		k->lit.u.r = -k->lit.u.r;
		return k;
	}
	if (op == T_MINUS && k->kind == EK_LIT && k->lit.type == VAL_INT &&
	    k->lit.u.i != LLONG_MIN) {
		k->lit.u.i = -k->lit.u.i;
		return k;
	}
	e = node_new(EK_UNARY, op, 1);
	e->kids[0] = k;
	if (!node_finish(p, e, pos)) {
		expr_free(e);
		return NULL;
	}
	return e;
}

/* One left-associative level of binary operators. */
static struct expr *
parse_level(struct parser *p, struct expr *(*next)(struct parser *),
    const enum token *ops)
{
	struct expr *l, *r;
	const enum token *t;
	size_t pos;
	int op;

	if ((l = next(p)) == NULL)
		return NULL;
	for (;;) {
		for (t = ops; *t != T_EOF && *t != p->tok; t++)
			;
		if (*t == T_EOF)
			return l;
		op = (int)p->tok;
		pos = p->tokpos;
		lex(p);
		if ((r = next(p)) == NULL) {
			expr_free(l);
			return NULL;
		}
		if ((l = node_binary(p, op, l, r, pos)) == NULL)
			return NULL;
	}
}

static struct expr *
parse_mul(struct parser *p)
{
	static const enum token ops[] = { T_MUL, T_DIV, T_MOD, T_EOF };

	return parse_level(p, parse_unary, ops);
}

static struct expr *
parse_add(struct parser *p)
{
	static const enum token ops[] = { T_PLUS, T_MINUS, T_EOF };

	return parse_level(p, parse_mul, ops);
}

static struct expr *
parse_rel(struct parser *p)
{
	static const enum token ops[] = { T_LT, T_LE, T_GT, T_GE, T_EOF };

	return parse_level(p, parse_add, ops);
}

static struct expr *
parse_eq(struct parser *p)
{
	static const enum token ops[] = {
		T_EQ, T_NE, T_IS, T_ISNT, T_EOF
	};

	return parse_level(p, parse_rel, ops);
}

/* A chain of one logical operator becomes one n-ary node. */
static struct expr *
parse_logic(struct parser *p, struct expr *(*next)(struct parser *),
    enum token op)
{
	struct expr *first, *k, *e;
	struct expr **kids;
	size_t n, cap, pos;

	if ((first = next(p)) == NULL)
		return NULL;
	if (p->tok != op)
		return first;
	pos = p->tokpos;
	cap = 4;
	kids = xreallocarray(NULL, cap, sizeof(*kids));
	kids[0] = first;
	n = 1;
	while (p->tok == op) {
		lex(p);
		if ((k = next(p)) == NULL) {
			while (n > 0)
				expr_free(kids[--n]);
			free(kids);
			return NULL;
		}
		if (n == cap) {
			cap *= 2;
			kids = xreallocarray(kids, cap, sizeof(*kids));
		}
		kids[n++] = k;
	}
	e = node_new(EK_LOGIC, op, 0);
	e->kids = kids;
	e->nkids = n;
	if (!node_finish(p, e, pos)) {
		expr_free(e);
		return NULL;
	}
	return e;
}

static struct expr *
parse_and(struct parser *p)
{
	return parse_logic(p, parse_eq, T_AND);
}

static struct expr *
parse_or(struct parser *p)
{
	return parse_logic(p, parse_and, T_OR);
}

static struct expr *
parse_cond(struct parser *p)
{
	struct expr *c, *a, *b, *e;
	size_t pos;

	if ((c = parse_or(p)) == NULL)
		return NULL;
	if (p->tok != T_QUEST)
		return c;
	pos = p->tokpos;
	if (!nest_enter(p)) {
		expr_free(c);
		return NULL;
	}
	lex(p);
	/* HTCondor's "A ?: B": A, unless it is UNDEFINED. */
	if (p->tok == T_COLON) {
		lex(p);
		if ((b = parse_cond(p)) == NULL) {
			expr_free(c);
			return NULL;
		}
		p->depth--;
		e = node_new(EK_COND, 0, 2);
		e->kids[0] = c;
		e->kids[1] = b;
		if (!node_finish(p, e, pos)) {
			expr_free(e);
			return NULL;
		}
		return e;
	}
	if ((a = parse_cond(p)) == NULL) {
		expr_free(c);
		return NULL;
	}
	if (!expect(p, T_COLON) || (b = parse_cond(p)) == NULL) {
		expr_free(c);
		expr_free(a);
		return NULL;
	}
	p->depth--;
	e = node_new(EK_COND, 0, 3);
	e->kids[0] = c;
	e->kids[1] = a;
	e->kids[2] = b;
	if (!node_finish(p, e, pos)) {
		expr_free(e);
		return NULL;
	}
	return e;
}

struct expr *
expr_parse(const char *text, char *err, size_t errlen)
{
	struct parser p;
	struct expr *e;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	memset(&p, 0, sizeof(p));
	p.err = err;
	p.errlen = errlen;
	if (text == NULL) {
		if (err != NULL && errlen > 0)
			(void)snprintf(err, errlen, "no expression");
		return NULL;
	}
	p.text = text;
	buf_init(&p.sval);
	lex(&p);
	if (p.tok == T_EOF && !p.failed) {
		parse_fail(&p, p.tokpos, "empty expression");
		buf_free(&p.sval);
		return NULL;
	}
	e = parse_cond(&p);
	if (e != NULL && p.tok != T_EOF) {
		parse_fail(&p, p.tokpos, "unexpected %s after expression",
		    token_desc(p.tok));
	}
	if (p.failed) {
		expr_free(e);
		e = NULL;
	}
	buf_free(&p.sval);
	return e;
}

/*
 * Unparsing.  A child is parenthesised when its operator binds no
 * tighter than its parent's, which for left-associative operators is
 * needed only on the right; logical nodes are n-ary, so a nested one of
 * the same operator keeps its parentheses to read back the same.
 */

static int
prec_of(const struct expr *e)
{
	switch (e->kind) {
	case EK_COND:
		return 1;
	case EK_LOGIC:
		return e->op == T_OR ? 2 : 3;
	case EK_BINARY:
		switch (e->op) {
		case T_EQ:
		case T_NE:
		case T_IS:
		case T_ISNT:
			return 4;
		case T_LT:
		case T_LE:
		case T_GT:
		case T_GE:
			return 5;
		case T_PLUS:
		case T_MINUS:
			return 6;
		default:
			return 7;
		}
	case EK_UNARY:
		return 8;
	default:
		return 9;
	}
}

static const char *
op_text(int op)
{
	switch (op) {
	case T_OR:
		return "||";
	case T_AND:
		return "&&";
	case T_EQ:
		return "==";
	case T_NE:
		return "!=";
	case T_IS:
		return "=?=";
	case T_ISNT:
		return "=!=";
	case T_LT:
		return "<";
	case T_LE:
		return "<=";
	case T_GT:
		return ">";
	case T_GE:
		return ">=";
	case T_PLUS:
		return "+";
	case T_MINUS:
		return "-";
	case T_MUL:
		return "*";
	case T_DIV:
		return "/";
	case T_MOD:
		return "%";
	case T_NOT:
		return "!";
	}
	return "?";
}

static void
unparse_paren(const struct expr *e, int paren, struct buf *b)
{
	if (paren)
		buf_addc(b, '(');
	unparse(e, b);
	if (paren)
		buf_addc(b, ')');
}

static void
unparse(const struct expr *e, struct buf *b)
{
	size_t i;
	int prec = prec_of(e);

	switch (e->kind) {
	case EK_LIT:
		value_print(&e->lit, b);
		break;
	case EK_ATTR:
		if (e->scope == SCOPE_MY)
			buf_adds(b, "MY.");
		else if (e->scope == SCOPE_TARGET)
			buf_adds(b, "TARGET.");
		buf_adds(b, e->name);
		break;
	case EK_UNARY:
		buf_adds(b, op_text(e->op));
		unparse_paren(e->kids[0], prec_of(e->kids[0]) < prec, b);
		break;
	case EK_BINARY:
		unparse_paren(e->kids[0], prec_of(e->kids[0]) < prec, b);
		buf_printf(b, " %s ", op_text(e->op));
		unparse_paren(e->kids[1], prec_of(e->kids[1]) <= prec, b);
		break;
	case EK_LOGIC:
		for (i = 0; i < e->nkids; i++) {
			if (i > 0)
				buf_printf(b, " %s ", op_text(e->op));
			unparse_paren(e->kids[i],
			    prec_of(e->kids[i]) <= prec, b);
		}
		break;
	case EK_COND:
		unparse_paren(e->kids[0], prec_of(e->kids[0]) <= prec, b);
		if (e->nkids == 2) {
			buf_adds(b, " ?: ");
			unparse(e->kids[1], b);
			break;
		}
		buf_adds(b, " ? ");
		unparse(e->kids[1], b);
		buf_adds(b, " : ");
		unparse(e->kids[2], b);
		break;
	case EK_CALL:
		buf_adds(b, funcs[e->op].name);
		buf_addc(b, '(');
		for (i = 0; i < e->nkids; i++) {
			if (i > 0)
				buf_adds(b, ", ");
			unparse(e->kids[i], b);
		}
		buf_addc(b, ')');
		break;
	}
}

void
expr_unparse(const struct expr *e, struct buf *b)
{
	if (e == NULL)
		return;
	unparse(e, b);
}

char *
expr_to_string(const struct expr *e)
{
	struct buf b;

	buf_init(&b);
	expr_unparse(e, &b);
	return b.data;
}

/*
 * References and clauses, for condor_q -analyze.
 */

/* Whether NAME is already one of the space-separated words in OUT. */
static int
word_present(const struct buf *out, const char *name)
{
	size_t len = strlen(name);
	const char *p = out->data;

	while (*p != '\0') {
		size_t n;

		while (*p == ' ')
			p++;
		n = strcspn(p, " ");
		if (n == len && strncasecmp(p, name, len) == 0)
			return 1;
		p += n;
	}
	return 0;
}

void
expr_references(const struct expr *e, struct buf *out)
{
	size_t i;

	if (e == NULL)
		return;
	if (e->kind == EK_ATTR && !word_present(out, e->name)) {
		if (out->len > 0 && out->data[out->len - 1] != ' ')
			buf_addc(out, ' ');
		buf_adds(out, e->name);
	}
	for (i = 0; i < e->nkids; i++)
		expr_references(e->kids[i], out);
}

size_t
expr_clauses(const struct expr *e, struct expr **clauses, size_t max)
{
	size_t i, n = 0;

	if (e == NULL || max == 0)
		return 0;
	if (e->kind != EK_LOGIC || e->op != T_AND) {
		clauses[0] = expr_copy(e);
		return 1;
	}
	for (i = 0; i < e->nkids && n < max; i++)
		n += expr_clauses(e->kids[i], clauses + n, max - n);
	return n;
}

int
expr_comparison(const struct expr *e, const struct expr **left,
    const char **op, const struct expr **right)
{
	if (e == NULL || e->kind != EK_BINARY)
		return 0;
	switch (e->op) {
	case T_EQ:
	case T_NE:
	case T_IS:
	case T_ISNT:
	case T_LT:
	case T_LE:
	case T_GT:
	case T_GE:
		break;
	default:
		return 0;
	}
	*left = e->kids[0];
	*right = e->kids[1];
	*op = op_text(e->op);
	return 1;
}

int
expr_is_literal(const struct expr *e)
{
	return e != NULL && (e->kind == EK_LIT || (e->kind == EK_UNARY &&
	    e->op == T_MINUS && e->kids[0]->kind == EK_LIT));
}

/*
 * Evaluation.
 */

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

/* Evaluate an attribute's tree, one reference deeper. */
static void
eval_ref(const struct expr *e, const struct ad *my, const struct ad *target,
    struct eval_ctx *ctx, struct value *out)
{
	if (ctx->refs >= EVAL_MAX_REFS) {
		set_error(out);
		return;
	}
	ctx->refs++;
	eval(e, my, target, ctx, out);
	ctx->refs--;
}

/*
 * An attribute found in TARGET is evaluated from TARGET's point of view:
 * inside it MY is the target ad, as in ClassAds.
 */
static void
eval_attr(const struct expr *e, const struct ad *my, const struct ad *target,
    struct eval_ctx *ctx, struct value *out)
{
	const struct expr *x;
	int bad;

	switch (e->scope) {
	case SCOPE_MY:
		if ((x = ad_lookup(my, e->name)) != NULL)
			eval_ref(x, my, target, ctx, out);
		else
			set_undef(out);
		return;
	case SCOPE_TARGET:
		if ((x = ad_lookup(target, e->name)) != NULL)
			eval_ref(x, target, my, ctx, out);
		else
			set_undef(out);
		return;
	case SCOPE_NONE:
		break;
	}
	if ((x = ad_lookup(my, e->name)) != NULL) {
		eval_ref(x, my, target, ctx, out);
		return;
	}
	if ((x = ad_lookup(target, e->name)) != NULL) {
		eval_ref(x, target, my, ctx, out);
		return;
	}
	if ((x = fallback_lookup(e->name, &bad)) != NULL) {
		eval_ref(x, my, target, ctx, out);
		return;
	}
	if (bad) {
		set_error(out);
		return;
	}
	if (strcasecmp(e->name, "CurrentTime") == 0) {
		set_int(out, (long long)time(NULL));
		return;
	}
	set_undef(out);
}

/* A value in logical context: 1 true, 0 false, -1 UNDEFINED, -2 ERROR. */
static int
truth(const struct value *v)
{
	switch (v->type) {
	case VAL_UNDEFINED:
		return -1;
	case VAL_BOOL:
	case VAL_INT:
	case VAL_REAL:
		return value_is_true(v);
	default:
		return -2;
	}
}

/*
 * && and || over any number of operands: the deciding value (FALSE for
 * &&, TRUE for ||) wins wherever it appears and stops the evaluation;
 * otherwise ERROR beats UNDEFINED.  This is associative, so the n-ary
 * node means the same as the binary chain it was parsed from.
 */
static void
eval_logic(const struct expr *e, const struct ad *my,
    const struct ad *target, struct eval_ctx *ctx, struct value *out)
{
	struct value v;
	size_t i;
	int decide = e->op == T_OR, undef = 0, error = 0, t;

	for (i = 0; i < e->nkids; i++) {
		eval(e->kids[i], my, target, ctx, &v);
		t = truth(&v);
		value_free(&v);
		if (t == decide) {
			set_bool(out, decide);
			return;
		}
		if (t == -1)
			undef = 1;
		else if (t == -2)
			error = 1;
	}
	if (error)
		set_error(out);
	else if (undef)
		set_undef(out);
	else
		set_bool(out, !decide);
}

static void
eval_unary(int op, struct value *v, struct value *out)
{
	if (v->type == VAL_UNDEFINED) {
		set_undef(out);
		return;
	}
	if (!is_number(v)) {
		set_error(out);
		return;
	}
	switch (op) {
	case T_NOT:
		set_bool(out, !value_is_true(v));
		break;
	case T_MINUS:
		if (v->type == VAL_REAL)
			set_real(out, -v->u.r);
		else if (as_int(v) == LLONG_MIN)
			set_error(out);
		else
			set_int(out, -as_int(v));
		break;
	default:
		if (v->type == VAL_REAL)
			set_real(out, v->u.r);
		else
			set_int(out, as_int(v));
		break;
	}
}

/* C's fmod, done by hand (no libm): exact, by binary long division. */
static double
real_mod(double a, double b)
{
	double r, d, d2;

	if (isnan(a) || isnan(b) || isinf(a))
		return NAN;
	if (isinf(b))
		return a;
	r = a < 0 ? -a : a;
	d = b < 0 ? -b : b;
	if (r < d)
		return a;
	d2 = d;
	while (d2 <= r / 2)
		d2 *= 2;
	/* Invariant r < 2 * d2, so each r - d2 is exact (Sterbenz). */
	while (d2 >= d) {
		if (r >= d2)
			r -= d2;
		d2 /= 2;
	}
	return a < 0 ? -r : r;
}

static void
eval_arith(int op, const struct value *l, const struct value *r,
    struct value *out)
{
	long long a, b, res;
	double x, y;

	if (is_integral(l) && is_integral(r)) {
		a = as_int(l);
		b = as_int(r);
		switch (op) {
		case T_PLUS:
			if (__builtin_add_overflow(a, b, &res))
				goto error;
			break;
		case T_MINUS:
			if (__builtin_sub_overflow(a, b, &res))
				goto error;
			break;
		case T_MUL:
			if (__builtin_mul_overflow(a, b, &res))
				goto error;
			break;
		case T_DIV:
			if (b == 0 || (a == LLONG_MIN && b == -1))
				goto error;
			res = a / b;
			break;
		default:
			if (b == 0)
				goto error;
			res = b == -1 ? 0 : a % b;
			break;
		}
		set_int(out, res);
		return;
	}
	x = as_real(l);
	y = as_real(r);
	switch (op) {
	case T_PLUS:
		set_real(out, x + y);
		break;
	case T_MINUS:
		set_real(out, x - y);
		break;
	case T_MUL:
		set_real(out, x * y);
		break;
	case T_DIV:
		if (y == 0)
			goto error;
		set_real(out, x / y);
		break;
	default:
		if (y == 0)
			goto error;
		set_real(out, real_mod(x, y));
		break;
	}
	return;
error:
	set_error(out);
}

static void
eval_compare(int op, const struct value *l, const struct value *r,
    struct value *out)
{
	int c;

	if (l->type == VAL_STRING && r->type == VAL_STRING)
		c = strcasecmp(l->u.s, r->u.s);
	else if (l->type == VAL_STRING || r->type == VAL_STRING) {
		set_error(out);
		return;
	} else if (is_integral(l) && is_integral(r))
		c = as_int(l) < as_int(r) ? -1 : as_int(l) > as_int(r);
	else {
		double x = as_real(l), y = as_real(r);

		/* NaN is unordered: only != holds. */
		if (x != x || y != y) {
			set_bool(out, op == T_NE);
			return;
		}
		c = x < y ? -1 : x > y;
	}
	switch (op) {
	case T_EQ:
		set_bool(out, c == 0);
		break;
	case T_NE:
		set_bool(out, c != 0);
		break;
	case T_LT:
		set_bool(out, c < 0);
		break;
	case T_LE:
		set_bool(out, c <= 0);
		break;
	case T_GT:
		set_bool(out, c > 0);
		break;
	default:
		set_bool(out, c >= 0);
		break;
	}
}

/* =?= : the same type and the same value; strings case-sensitively. */
static int
identical(const struct value *l, const struct value *r)
{
	if (l->type != r->type)
		return 0;
	switch (l->type) {
	case VAL_UNDEFINED:
	case VAL_ERROR:
		return 1;
	case VAL_BOOL:
		return l->u.b == r->u.b;
	case VAL_INT:
		return l->u.i == r->u.i;
	case VAL_REAL:
		return l->u.r == r->u.r ||
		    (l->u.r != l->u.r && r->u.r != r->u.r);
	case VAL_STRING:
		return strcmp(l->u.s, r->u.s) == 0;
	}
	return 0;
}

static void
eval_binary(int op, const struct value *l, const struct value *r,
    struct value *out)
{
	if (op == T_IS || op == T_ISNT) {
		set_bool(out, identical(l, r) == (op == T_IS));
		return;
	}
	if (l->type == VAL_ERROR || r->type == VAL_ERROR) {
		set_error(out);
		return;
	}
	if (l->type == VAL_UNDEFINED || r->type == VAL_UNDEFINED) {
		set_undef(out);
		return;
	}
	switch (op) {
	case T_PLUS:
	case T_MINUS:
	case T_MUL:
	case T_DIV:
	case T_MOD:
		if (!is_number(l) || !is_number(r))
			set_error(out);
		else
			eval_arith(op, l, r, out);
		return;
	default:
		eval_compare(op, l, r, out);
		return;
	}
}

/* string(): a value as text, strings bare. */
static char *
value_text(const struct value *v)
{
	struct buf b;

	if (v->type == VAL_STRING)
		return xstrdup(v->u.s);
	buf_init(&b);
	if (v->type == VAL_REAL)
		real_print(v->u.r, 0, &b);
	else
		value_print(v, &b);
	return b.data;
}

/* Convert a number or numeric string to a double; 0 if not possible. */
static int
value_to_real(const struct value *v, double *d)
{
	char *end;

	if (is_number(v)) {
		*d = as_real(v);
		return 1;
	}
	if (v->type != VAL_STRING)
		return 0;
	errno = 0;
	*d = strtod(v->u.s, &end);
	if (end == v->u.s)
		return 0;
	while (isspace((unsigned char)*end))
		end++;
	return *end == '\0';
}

/* A real to an integer, if it is in range; MODE 'f' floor, 'c' ceiling,
 * 'r' round half away from zero, 't' truncate. */
static int
real_to_int(double d, int mode, long long *out)
{
	long long t;
	double frac;

	/* -2^63 is exact as a double; 2^63 is the first value past range. */
	if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
		return 0;
	t = (long long)d;
	frac = d - (double)t;	/* exact: |d| < 2^63 */
	switch (mode) {
	case 'f':
		if (frac < 0)
			t--;
		break;
	case 'c':
		if (frac > 0)
			t++;
		break;
	case 'r':
		if (frac >= 0.5)
			t++;
		else if (frac <= -0.5)
			t--;
		break;
	}
	*out = t;
	return 1;
}

static void
eval_convert(int fn, const struct value *v, struct value *out)
{
	long long i;
	double d;
	char *s, *p;

	switch (fn) {
	case F_STRING:
		set_string(out, value_text(v));
		return;
	case F_REAL:
		if (value_to_real(v, &d))
			set_real(out, d);
		else
			set_error(out);
		return;
	case F_SIZE:
		if (v->type != VAL_STRING)
			set_error(out);
		else
			set_int(out, (long long)strlen(v->u.s));
		return;
	case F_TOLOWER:
	case F_TOUPPER:
		s = value_text(v);
		for (p = s; *p != '\0'; p++)
			*p = (char)(fn == F_TOLOWER ?
			    tolower((unsigned char)*p) :
			    toupper((unsigned char)*p));
		set_string(out, s);
		return;
	}
	/* int, floor, ceiling, round: integers pass through exactly. */
	if (is_integral(v)) {
		set_int(out, as_int(v));
		return;
	}
	if (v->type == VAL_STRING) {
		char *end;

		errno = 0;
		i = strtoll(v->u.s, &end, 10);
		if (end != v->u.s && *end == '\0' && errno == 0) {
			set_int(out, i);
			return;
		}
	}
	if (!value_to_real(v, &d) || !real_to_int(d, fn == F_FLOOR ? 'f' :
	    fn == F_CEILING ? 'c' : fn == F_ROUND ? 'r' : 't', &i)) {
		set_error(out);
		return;
	}
	set_int(out, i);
}

static void
eval_minmax(int fn, const struct value *args, size_t n, struct value *out)
{
	size_t i, best = 0;
	int real = 0;

	for (i = 0; i < n; i++) {
		if (args[i].type == VAL_ERROR || (args[i].type !=
		    VAL_UNDEFINED && !is_number(&args[i]))) {
			set_error(out);
			return;
		}
	}
	for (i = 0; i < n; i++) {
		if (args[i].type == VAL_UNDEFINED) {
			set_undef(out);
			return;
		}
		if (args[i].type == VAL_REAL)
			real = 1;
	}
	for (i = 1; i < n; i++) {
		int less = is_integral(&args[i]) && is_integral(&args[best]) ?
		    as_int(&args[i]) < as_int(&args[best]) :
		    as_real(&args[i]) < as_real(&args[best]);
		int more = is_integral(&args[i]) && is_integral(&args[best]) ?
		    as_int(&args[i]) > as_int(&args[best]) :
		    as_real(&args[i]) > as_real(&args[best]);

		if ((fn == F_MIN && less) || (fn == F_MAX && more))
			best = i;
	}
	if (real)
		set_real(out, as_real(&args[best]));
	else
		set_int(out, as_int(&args[best]));
}

static void
eval_strcat(const struct value *args, size_t n, struct value *out)
{
	struct buf b;
	size_t i;
	char *s;

	for (i = 0; i < n; i++)
		if (args[i].type == VAL_ERROR) {
			set_error(out);
			return;
		}
	for (i = 0; i < n; i++)
		if (args[i].type == VAL_UNDEFINED) {
			set_undef(out);
			return;
		}
	buf_init(&b);
	for (i = 0; i < n; i++) {
		if (args[i].type == VAL_STRING) {
			if (b.len + strlen(args[i].u.s) > EXPR_MAX_STRING)
				break;
			buf_adds(&b, args[i].u.s);
		} else {
			s = value_text(&args[i]);
			buf_adds(&b, s);
			free(s);
		}
	}
	if (i < n) {
		buf_free(&b);
		set_error(out);
		return;
	}
	set_string(out, b.data);
}

/*
 * Whether PATTERN is cheap to compile and run: not long, no back
 * references, counted repetitions ({m,n}) whose counts multiplied
 * together stay small, no repetition of a repetition ("a++", "a*{2}")
 * and repeated groups nested at most four deep.  glibc builds
 * "((a{200}){200}){200}" for seconds in gigabytes, copies the tree
 * again for each of "a++++...", and the negotiator evaluates what users
 * write.
 */
#define REGEXP_MAX_GROUPS	32
#define REGEXP_MAX_NESTED	4

static int
regexp_is_rep(char c)
{
	return c == '*' || c == '+' || c == '?' || c == '{';
}

static int
regexp_tame(const char *pattern)
{
	const char *s;
	unsigned long long product = 1, m;
	int nest[REGEXP_MAX_GROUPS + 1] = { 0 }, level = 0, v;
	char *end;

	if (strlen(pattern) > 1024)
		return 0;
	for (s = pattern; *s != '\0'; s++) {
		if (*s == '\\' && s[1] != '\0') {
			if (isdigit((unsigned char)s[1]))
				return 0;
			s++;
			continue;
		}
		if (*s == '[') {	/* a bracket expression: literal */
			s++;
			if (*s == '^')
				s++;
			if (*s == ']')
				s++;
			while (*s != '\0' && *s != ']')
				s++;
			if (*s == '\0')
				return 0;
			continue;
		}
		if (*s == '(') {
			if (level == REGEXP_MAX_GROUPS)
				return 0;
			nest[++level] = 0;
			continue;
		}
		if (*s == ')' && level > 0) {
			v = nest[level--];
			if (regexp_is_rep(s[1]))
				v++;
			if (v > nest[level])
				nest[level] = v;
			if (v > REGEXP_MAX_NESTED)
				return 0;
			continue;
		}
		if (!regexp_is_rep(*s))
			continue;
		if (nest[level] < 1)
			nest[level] = 1;
		if (*s == '{') {
			m = strtoull(s + 1, &end, 10);
			if (*end == ',')
				m = isdigit((unsigned char)end[1]) ?
				    strtoull(end + 1, &end, 10) : m + 1;
			if (m > 1000 || (product *= m + 1) > 1000)
				return 0;
			while (*s != '\0' && *s != '}')
				s++;
			if (*s == '\0')
				return 0;
		}
		if (regexp_is_rep(s[1]))
			return 0;
	}
	return 1;
}

/*
 * regexp(PATTERN, TARGET[, OPTIONS]) (POSIX extended; "i" in OPTIONS
 * ignores case), stringListMember(ITEM, LIST[, DELIMS]) and its
 * case-blind twin (LIST parted at DELIMS, default ", "),
 * stringListsIntersect(LIST, LIST[, DELIMS]): booleans;
 * UNDEFINED if an argument is, ERROR if one is not a string or the
 * pattern does not compile or is not tame (regexp_tame).
 */
static void
eval_strings(int fn, const struct value *args, size_t n, struct value *out)
{
	const char *delims = ", ", *s;
	regex_t re;
	size_t i, len, want;
	int flags = REG_EXTENDED | REG_NOSUB, found = 0;

	for (i = 0; i < n; i++)
		if (args[i].type == VAL_UNDEFINED) {
			set_undef(out);
			return;
		}
	for (i = 0; i < n; i++)
		if (args[i].type != VAL_STRING) {
			set_error(out);
			return;
		}
	if (fn == F_REGEXP) {
		if (n == 3 && strpbrk(args[2].u.s, "iI") != NULL)
			flags |= REG_ICASE;
		if (!regexp_tame(args[0].u.s) ||
		    regcomp(&re, args[0].u.s, flags) != 0) {
			set_error(out);
			return;
		}
		set_bool(out, regexec(&re, args[1].u.s, 0, NULL, 0) == 0);
		regfree(&re);
		return;
	}
	if (n == 3)
		delims = args[2].u.s;
	if (fn == F_STRINGLISTSINTERSECT) {
		/* Whether the lists share an item (case counts). */
		for (s = args[0].u.s; *s != '\0' && !found; s += want) {
			const char *t;

			s += strspn(s, delims);
			want = strcspn(s, delims);
			for (t = args[1].u.s; want > 0 && *t != '\0' &&
			    !found; t += len) {
				t += strspn(t, delims);
				len = strcspn(t, delims);
				found = len == want && strncmp(s, t, len) == 0;
			}
		}
		set_bool(out, found);
		return;
	}
	want = strlen(args[0].u.s);
	for (s = args[1].u.s; *s != '\0' && !found; s += len) {
		s += strspn(s, delims);
		len = strcspn(s, delims);
		if (len == want && len > 0 && (fn == F_STRINGLISTMEMBER ?
		    strncmp(s, args[0].u.s, len) :
		    strncasecmp(s, args[0].u.s, len)) == 0)
			found = 1;
	}
	set_bool(out, found);
}

static void
eval_call(const struct expr *e, const struct ad *my, const struct ad *target,
    struct eval_ctx *ctx, struct value *out)
{
	struct value v, *args;
	size_t i;
	int t;

	switch (e->op) {
	case F_IFTHENELSE:
		eval(e->kids[0], my, target, ctx, &v);
		t = truth(&v);
		value_free(&v);
		if (t == -1)
			set_undef(out);
		else if (t == -2)
			set_error(out);
		else
			eval(e->kids[t ? 1 : 2], my, target, ctx, out);
		return;
	case F_TIME:
		set_int(out, (long long)time(NULL));
		return;
	case F_STRCAT:
	case F_MIN:
	case F_MAX:
	case F_REGEXP:
	case F_STRINGLISTMEMBER:
	case F_STRINGLISTIMEMBER:
	case F_STRINGLISTSINTERSECT:
		args = xreallocarray(NULL, e->nkids ? e->nkids : 1,
		    sizeof(*args));
		for (i = 0; i < e->nkids; i++)
			eval(e->kids[i], my, target, ctx, &args[i]);
		if (e->op == F_STRCAT)
			eval_strcat(args, e->nkids, out);
		else if (e->op != F_MIN && e->op != F_MAX)
			eval_strings(e->op, args, e->nkids, out);
		else
			eval_minmax(e->op, args, e->nkids, out);
		for (i = 0; i < e->nkids; i++)
			value_free(&args[i]);
		free(args);
		return;
	}
	eval(e->kids[0], my, target, ctx, &v);
	switch (e->op) {
	case F_ISUNDEFINED:
		set_bool(out, v.type == VAL_UNDEFINED);
		break;
	case F_ISERROR:
		set_bool(out, v.type == VAL_ERROR);
		break;
	case F_ISSTRING:
		set_bool(out, v.type == VAL_STRING);
		break;
	case F_ISINTEGER:
		set_bool(out, v.type == VAL_INT);
		break;
	case F_ISREAL:
		set_bool(out, v.type == VAL_REAL);
		break;
	case F_ISBOOLEAN:
		set_bool(out, v.type == VAL_BOOL);
		break;
	default:
		if (v.type == VAL_UNDEFINED)
			set_undef(out);
		else if (v.type == VAL_ERROR)
			set_error(out);
		else
			eval_convert(e->op, &v, out);
		break;
	}
	value_free(&v);
}

static void
eval(const struct expr *e, const struct ad *my, const struct ad *target,
    struct eval_ctx *ctx, struct value *out)
{
	struct value l, r;

	if (++ctx->steps > EVAL_MAX_STEPS || ctx->frames >= EVAL_MAX_FRAMES) {
		set_error(out);
		return;
	}
	ctx->frames++;
	switch (e->kind) {
	case EK_LIT:
		value_copy(out, &e->lit);
		break;
	case EK_ATTR:
		eval_attr(e, my, target, ctx, out);
		break;
	case EK_UNARY:
		eval(e->kids[0], my, target, ctx, &l);
		eval_unary(e->op, &l, out);
		value_free(&l);
		break;
	case EK_BINARY:
		eval(e->kids[0], my, target, ctx, &l);
		eval(e->kids[1], my, target, ctx, &r);
		eval_binary(e->op, &l, &r, out);
		value_free(&l);
		value_free(&r);
		break;
	case EK_LOGIC:
		eval_logic(e, my, target, ctx, out);
		break;
	case EK_COND:
		eval(e->kids[0], my, target, ctx, &l);
		if (e->nkids == 2) {
			if (l.type == VAL_UNDEFINED)
				eval(e->kids[1], my, target, ctx, out);
			else {
				*out = l;
				break;
			}
			value_free(&l);
			break;
		}
		switch (truth(&l)) {
		case -1:
			set_undef(out);
			break;
		case -2:
			set_error(out);
			break;
		default:
			eval(e->kids[value_is_true(&l) ? 1 : 2], my, target,
			    ctx, out);
			break;
		}
		value_free(&l);
		break;
	case EK_CALL:
		eval_call(e, my, target, ctx, out);
		break;
	}
	ctx->frames--;
}

void
expr_eval(const struct expr *e, const struct ad *my,
    const struct ad *target, struct value *out)
{
	struct eval_ctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	if (e == NULL) {
		set_error(out);
		return;
	}
	eval(e, my, target, &ctx, out);
}

void
expr_eval_text(const char *text, const struct ad *my,
    const struct ad *target, struct value *out)
{
	struct expr *e;

	if ((e = expr_parse(text, NULL, 0)) == NULL) {
		set_error(out);
		return;
	}
	expr_eval(e, my, target, out);
	expr_free(e);
}
