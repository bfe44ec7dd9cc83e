/*
 * parse.c: the ClassAd lexer and a recursive-descent parser that builds
 * a tree once (evaluated by eval.c, printed by unparse.c).
 *
 * Lexing follows HTCondor's in its old ClassAd semantics (what its
 * daemons and tools use unless STRICT_CLASSAD_EVALUATION is set):
 * integers are decimal, and one written with a leading zero (010, 007)
 * or in hexadecimal (0x1F) is an error, not octal; "7." is an error, a
 * real too large is infinite, strings take C's escapes (octal too) and
 * adjacent strings join; 'quoted names' are attribute names.
 *
 * Every recursion is bounded so that no input can overflow the stack:
 * by EXPR_MAX_DEPTH levels of nesting and EXPR_MAX_HEIGHT levels of tree
 * (so unparse, copy and free are bounded too).  Long && and || chains
 * are stored as one n-ary node, so a requirement listing hundreds of
 * machines stays shallow.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "classad_impl.h"
#include "expr.h"
#include "xalloc.h"

/* 2^63: the magnitude of LLONG_MIN, legal only right after a minus. */
#define INT_MAGNITUDE_MAX	((unsigned long long)LLONG_MAX + 1)

struct parser {
	const char		*text;
	size_t			 pos;		/* next byte to lex */
	size_t			 tokpos;	/* start of the current token */
	enum token		 tok;
	int			 quoted;	/* T_NAME written 'quoted' */
	unsigned long long	 ival;
	double			 rval;
	struct buf		 sval;		/* T_STRING or T_NAME text */
	unsigned		 depth;		/* against EXPR_MAX_DEPTH */
	int			 failed;
	char			*err;
	size_t			 errlen;
};

static struct expr	*parse_cond(struct parser *);

struct expr *
node_new(enum expr_kind kind, int op, size_t nkids)
{
	struct expr *e;

	e = xcalloc(1, sizeof(*e));
	e->kind = kind;
	e->op = op;
	e->height = 1;
	val_undef(&e->lit);
	e->nkids = nkids;
	if (nkids > 0)
		e->kids = xcalloc(nkids, sizeof(*e->kids));
	return e;
}

/* expr_free: release a whole tree (or one of its values' references to
 * it); NULL is allowed. */
void
expr_free(struct expr *e)
{
	size_t i;

	if (e == NULL)
		return;
	if (e->shared > 0) {
		e->shared--;
		return;
	}
	for (i = 0; i < e->nkids; i++) {
		expr_free(e->kids[i]);
		if (e->names != NULL)
			free(e->names[i]);
	}
	free(e->names);
	free(e->kids);
	free(e->name);
	value_free(&e->lit);
	free(e);
}

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
	c->parens = e->parens;
	value_copy(&c->lit, &e->lit);
	if (e->name != NULL)
		c->name = xstrdup(e->name);
	if (e->names != NULL)
		c->names = xcalloc(e->nkids ? e->nkids : 1, sizeof(char *));
	for (i = 0; i < e->nkids; i++) {
		c->kids[i] = expr_copy(e->kids[i]);
		if (e->names != NULL)
			c->names[i] = xstrdup(e->names[i]);
	}
	return c;
}

struct expr *
expr_from_value(const struct value *v)
{
	struct expr *e;

	if (v->type == VAL_LIST || v->type == VAL_AD)
		return expr_copy(v->u.x.e);
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
	return isascii(c) && (isalnum(c) || c == '_');
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
		[T_BITNOT] = "'~'", [T_BITAND] = "'&'", [T_BITOR] = "'|'",
		[T_BITXOR] = "'^'", [T_SHL] = "'<<'", [T_SHR] = "'>>'",
		[T_USHR] = "'>>>'", [T_LBRACE] = "'{'", [T_RBRACE] = "'}'",
		[T_LBRACK] = "'['", [T_RBRACK] = "']'", [T_SEMI] = "';'",
		[T_DOT] = "'.'", [T_ASSIGN] = "'='", [T_ELVIS] = "'?:'",
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

	if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X') &&
	    isxdigit((unsigned char)q[2])) {
		parse_fail(p, p->tokpos, "no hexadecimal integers in "
		    "ClassAds");
		p->tok = T_EOF;
		return;
	}
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
		if (!isdigit((unsigned char)q[1]) && q != s) {
			parse_fail(p, p->tokpos, "digit required after '.'");
			p->tok = T_EOF;
			return;
		}
		real = 1;
		q++;
		while (isdigit((unsigned char)*q))
			q++;
	}
	if (*q == 'e' || *q == 'E') {
		const char *x = q + 1;

		if (*x == '+' || *x == '-')
			x++;
		if (!isdigit((unsigned char)*x)) {
			parse_fail(p, p->tokpos, "bad exponent");
			p->tok = T_EOF;
			return;
		}
		real = 1;
		q = x;
		while (isdigit((unsigned char)*q))
			q++;
	}
	p->pos = (size_t)(q - p->text);
	if (!real && s[0] == '0' && q - s > 1) {
		parse_fail(p, p->tokpos, "an integer may not start with 0 "
		    "(ClassAds have no octal integers)");
		p->tok = T_EOF;
		return;
	}
	if (!real) {
		p->tok = T_INT;
		p->ival = v;
		return;
	}
	copy = xstrndup(s, (size_t)(q - s));
	p->rval = strtod(copy, NULL);	/* too large: infinite */
	free(copy);
	p->tok = T_REAL;
}

static int
is_octal(int c)
{
	return c >= '0' && c <= '7';
}

/* A quoted string or name (QUOTE " or '), C escapes; adjacent strings
 * of the same quote join. */
static void
lex_quoted(struct parser *p, int quote)
{
	const char *q = p->text + p->pos;
	int c, n;

	buf_reset(&p->sval);
	for (;;) {
		q++;	/* the opening quote */
		for (;;) {
			if (*q == '\0') {
				parse_fail(p, p->tokpos, "unterminated string");
				p->tok = T_EOF;
				return;
			}
			if (*q == quote)
				break;
			if (*q != '\\' || q[1] == '\0') {
				buf_addc(&p->sval, *q++);
				continue;
			}
			q++;
			c = (unsigned char)*q++;
			switch (c) {
			case 'a': c = '\a'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'v': c = '\v'; break;
			default:
				if (!is_octal(c))
					break;
				n = c - '0';
				if (is_octal(*q)) {
					n = n * 8 + (*q++ - '0');
					if (n < 0x20 && is_octal(*q))
						n = n * 8 + (*q++ - '0');
				}
				c = n & 0xff;
				if (c == 0) {
					parse_fail(p, p->tokpos,
					    "NUL in string");
					p->tok = T_EOF;
					return;
				}
			}
			buf_addc(&p->sval, c);
		}
		q++;	/* the closing quote */
		{
			const char *r = q;

			while (isspace((unsigned char)*r))
				r++;
			if (*r != quote)
				break;
			q = r;
		}
	}
	p->pos = (size_t)(q - p->text);
	p->tok = quote == '"' ? T_STRING : T_NAME;
	p->quoted = quote == '\'';
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
		/* Most names are no keyword: compare the first letter first. */
		if (tolower((unsigned char)*s) ==
		    tolower((unsigned char)words[i].word[0]) &&
		    strcasecmp(p->sval.data, words[i].word) == 0) {
			p->tok = words[i].tok;
			return;
		}
	}
	p->tok = T_NAME;
}

/* Punctuators, longest first ("=?=" before "="). */
static const struct {
	const char	*text;
	enum token	 tok;
	size_t		 len;
} puncts[] = {
	{ "=?=", T_IS, 3 }, { "=!=", T_ISNT, 3 }, { ">>>", T_USHR, 3 },
	{ "<<", T_SHL, 2 }, { ">>", T_SHR, 2 }, { "<=", T_LE, 2 },
	{ ">=", T_GE, 2 }, { "==", T_EQ, 2 }, { "!=", T_NE, 2 },
	{ "&&", T_AND, 2 }, { "||", T_OR, 2 }, { "?:", T_ELVIS, 2 },
	{ "<", T_LT, 1 }, { ">", T_GT, 1 }, { "=", T_ASSIGN, 1 },
	{ "+", T_PLUS, 1 }, { "-", T_MINUS, 1 }, { "*", T_MUL, 1 },
	{ "/", T_DIV, 1 }, { "%", T_MOD, 1 }, { "!", T_NOT, 1 },
	{ "~", T_BITNOT, 1 }, { "&", T_BITAND, 1 }, { "|", T_BITOR, 1 },
	{ "^", T_BITXOR, 1 }, { "?", T_QUEST, 1 }, { ":", T_COLON, 1 },
	{ "(", T_LPAREN, 1 }, { ")", T_RPAREN, 1 }, { "[", T_LBRACK, 1 },
	{ "]", T_RBRACK, 1 }, { "{", T_LBRACE, 1 }, { "}", T_RBRACE, 1 },
	{ ",", T_COMMA, 1 }, { ";", T_SEMI, 1 }, { ".", T_DOT, 1 },
};

/* Index of the first entry of PUNCTS starting with each byte. */
static unsigned char punct_first[256];

static void
punct_init(void)
{
	static int done;
	size_t i;

	if (done)
		return;
	done = 1;
	for (i = sizeof(puncts) / sizeof(puncts[0]); i-- > 0; )
		punct_first[(unsigned char)puncts[i].text[0]] =
		    (unsigned char)i;
}

/* Read the next token into P; at the first error the token is T_EOF. */
static void
lex(struct parser *p)
{
	const char *s;
	enum token last = p->tok;
	size_t i, n;
	int c;

	if (p->failed) {
		p->tok = T_EOF;
		return;
	}
	while (isspace((unsigned char)p->text[p->pos]))
		p->pos++;
	p->tokpos = p->pos;
	p->quoted = 0;
	s = p->text + p->pos;
	c = (unsigned char)s[0];
	if (c == '\0') {
		p->tok = T_EOF;
		return;
	}
	if (isdigit(c) || (c == '.' && isdigit((unsigned char)s[1]) &&
	    last != T_DOT)) {
		lex_number(p);
		return;
	}
	if (c == '"' || c == '\'') {
		lex_quoted(p, c);
		return;
	}
	if (c == '?') {
		/* "? :" is "?:" as HTCondor's lexer reads it. */
		n = 1;
		while (isspace((unsigned char)s[n]))
			n++;
		if (s[n] == ':') {
			p->pos += n + 1;
			p->tok = T_ELVIS;
			return;
		}
	}
	if (name_start(c)) {
		lex_name(p);
		return;
	}
	/* Only a punctuator can start with these bytes: look it up by
	 * its first byte, the longest first (the table is so ordered). */
	if (strchr("=<>!&|?+-*/%~^:()[]{},;.", c) != NULL) {
		for (i = punct_first[c]; i < sizeof(puncts) / sizeof(puncts[0]);
		    i++) {
			if (puncts[i].text[0] != c)
				continue;
			n = puncts[i].len;
			if (strncmp(s, puncts[i].text, n) == 0) {
				p->pos += n;
				p->tok = puncts[i].tok;
				return;
			}
		}
	}
	if (isprint(c))
		parse_fail(p, p->tokpos, "unexpected '%c'", c);
	else
		parse_fail(p, p->tokpos, "unexpected byte 0x%02x", c);
	p->tok = T_EOF;
}

/*
 * The parser.  Each function returns a tree or NULL after parse_fail().
 * HTCondor's precedence, loosest first:
 *
 *	cond	:= or [ '?' cond ':' cond ]
 *	or	:= and { '||' and }		(n-ary)
 *	and	:= bor { '&&' bor }		(n-ary)
 *	bor, bxor, band: '|', '^', '&'
 *	eq	:= ('==' | '!=' | '=?=' | '=!=' | is | isnt)
 *	rel	:= ('<' | '<=' | '>' | '>=')
 *	shift	:= ('<<' | '>>' | '>>>')
 *	add, mul
 *	unary	:= ('-' | '+' | '!' | '~') unary | postfix
 *	postfix	:= primary { '.' name | '[' cond ']' | '?:' postfix }
 *	primary	:= literal | name | '.' name | name '(' args ')'
 *		 | '(' cond ')' | '{' [ cond { ',' cond } ] '}'
 *		 | '[' { name '=' cond ';' } ']'
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
		expr_free(e);
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
	return node_finish(p, e, pos) ? e : NULL;
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

/* A comma-separated sequence up to CLOSE (the opening token has been
 * read); *N items in a new array. */
static struct expr **
parse_seq(struct parser *p, enum token close, size_t *np)
{
	struct expr **items = NULL, *x;
	size_t n = 0, cap = 0;

	if (p->tok != close) {
		for (;;) {
			if ((x = parse_cond(p)) == NULL)
				goto fail;
			if (n == cap) {
				cap = cap ? cap * 2 : 4;
				items = xreallocarray(items, cap,
				    sizeof(*items));
			}
			items[n++] = x;
			if (p->tok != T_COMMA)
				break;
			lex(p);
		}
	}
	if (!expect(p, close))
		goto fail;
	*np = n;
	return items != NULL ? items : xcalloc(1, sizeof(*items));
fail:
	while (n > 0)
		expr_free(items[--n]);
	free(items);
	return NULL;
}

/* NAME has been read and the current token is its '('.  An unknown
 * function parses (HTCondor evaluates it to ERROR). */
static struct expr *
parse_call(struct parser *p, const char *name, size_t namepos)
{
	struct expr *e, **args;
	const struct func *f;
	size_t n;
	int fn;

	if (!nest_enter(p))
		return NULL;
	lex(p);
	if ((args = parse_seq(p, T_RPAREN, &n)) == NULL)
		return NULL;
	p->depth--;
	/* absTime("...") and relTime("...") of a string written there are
	 * times already, as HTCondor's parser makes them: a text that is
	 * no time does not parse.  (HTCondor leaves ("...") to run time;
	 * it is folded too, so that the canonical text, which drops the
	 * parentheses, parses to the same tree.) */
	if (n == 1 && args[0]->kind == EK_LIT &&
	    args[0]->lit.type == VAL_STRING &&
	    (strcasecmp(name, "absTime") == 0 ||
	    strcasecmp(name, "relTime") == 0)) {
		struct value t;

		if (!time_literal(strcasecmp(name, "absTime") == 0,
		    args[0]->lit.u.s, &t)) {
			expr_free(args[0]);
			free(args);
			parse_fail(p, namepos, "%s: not a time", name);
			return NULL;
		}
		if (time_reads_back(&t)) {
			expr_free(args[0]);
			free(args);
			e = node_new(EK_LIT, 0, 0);
			e->lit = t;
			return node_finish(p, e, namepos) ? e : NULL;
		}
	}
	f = func_lookup(name, &fn);
	e = node_new(EK_CALL, f != NULL ? fn : -1, 0);
	e->name = xstrdup(f != NULL ? f->name : name);
	e->nkids = n;
	e->kids = args;
	return node_finish(p, e, namepos) ? e : NULL;
}

static struct expr *
parse_name(struct parser *p)
{
	struct expr *e;
	size_t namepos = p->tokpos;
	enum scope scope = SCOPE_NONE;
	char *name;
	int quoted = p->quoted;

	name = xstrndup(p->sval.data, p->sval.len);
	lex(p);
	if (p->failed) {
		free(name);
		return NULL;
	}
	if (p->tok == T_LPAREN && !quoted) {
		e = parse_call(p, name, namepos);
		free(name);
		return e;
	}
	if (!quoted && p->tok == T_DOT) {
		if (strcasecmp(name, "MY") == 0)
			scope = SCOPE_MY;
		else if (strcasecmp(name, "TARGET") == 0)
			scope = SCOPE_TARGET;
		else if (strcasecmp(name, "PARENT") == 0)
			scope = SCOPE_PARENT;
	}
	if (scope != SCOPE_NONE) {
		lex(p);
		if (p->tok != T_NAME) {
			parse_fail(p, p->tokpos, "attribute name expected");
			free(name);
			return NULL;
		}
		free(name);
		name = xstrndup(p->sval.data, p->sval.len);
		lex(p);
	}
	e = node_new(EK_ATTR, 0, 0);
	e->scope = scope;
	e->name = name;
	return e;
}

static struct expr *
parse_ad(struct parser *p, size_t pos)
{
	struct expr *e, *x;
	size_t cap = 0;

	e = node_new(EK_AD, 0, 0);
	while (p->tok != T_RBRACK) {
		char *name;

		/* Empty entries (";;") are nothing, as in HTCondor. */
		if (p->tok == T_SEMI) {
			lex(p);
			continue;
		}

		if (p->tok != T_NAME) {
			parse_fail(p, p->tokpos,
			    "attribute name expected in ad");
			goto fail;
		}
		name = xstrndup(p->sval.data, p->sval.len);
		lex(p);
		if (!expect(p, T_ASSIGN) || (x = parse_cond(p)) == NULL) {
			free(name);
			goto fail;
		}
		if (e->nkids == cap) {
			cap = cap ? cap * 2 : 4;
			e->kids = xreallocarray(e->kids, cap,
			    sizeof(*e->kids));
			e->names = xreallocarray(e->names, cap,
			    sizeof(*e->names));
		}
		e->names[e->nkids] = name;
		e->kids[e->nkids++] = x;
		if (p->tok == T_RBRACK)
			break;
		if (!expect(p, T_SEMI))
			goto fail;
	}
	lex(p);
	if (e->names == NULL)
		e->names = xcalloc(1, sizeof(*e->names));
	return node_finish(p, e, pos) ? e : NULL;
fail:
	expr_free(e);
	return NULL;
}

static struct expr *
parse_primary(struct parser *p)
{
	struct expr *e;
	size_t pos = p->tokpos, n;
	struct expr **items;

	switch (p->tok) {
	case T_INT:
		if (p->ival > (unsigned long long)LLONG_MAX) {
			parse_fail(p, p->tokpos, "integer out of range");
			return NULL;
		}
		e = node_new(EK_LIT, 0, 0);
		val_int(&e->lit, (long long)p->ival);
		lex(p);
		return e;
	case T_REAL:
		e = node_new(EK_LIT, 0, 0);
		val_real(&e->lit, p->rval);
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
		val_bool(&e->lit, p->tok == T_TRUE);
		lex(p);
		return e;
	case T_UNDEF:
		e = node_new(EK_LIT, 0, 0);
		lex(p);
		return e;
	case T_ERROR:
		e = node_new(EK_LIT, 0, 0);
		val_error(&e->lit);
		lex(p);
		return e;
	case T_NAME:
		return parse_name(p);
	case T_DOT:
		/* .name: an absolute reference, MY's attribute. */
		lex(p);
		if (p->tok != T_NAME) {
			parse_fail(p, p->tokpos, "attribute name expected");
			return NULL;
		}
		e = node_new(EK_ATTR, 0, 0);
		e->scope = SCOPE_MY;
		e->name = xstrndup(p->sval.data, p->sval.len);
		lex(p);
		return e;
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
		/* Kept for HTCondor's unparsed form, which shows them. */
		e->parens++;
		return e;
	case T_LBRACE:
		if (!nest_enter(p))
			return NULL;
		lex(p);
		if ((items = parse_seq(p, T_RBRACE, &n)) == NULL)
			return NULL;
		p->depth--;
		e = node_new(EK_LIST, 0, 0);
		e->kids = items;
		e->nkids = n;
		return node_finish(p, e, pos) ? e : NULL;
	case T_LBRACK:
		if (!nest_enter(p))
			return NULL;
		lex(p);
		if ((e = parse_ad(p, pos)) == NULL)
			return NULL;
		p->depth--;
		return e;
	default:
		parse_fail(p, p->tokpos, "unexpected %s", token_desc(p->tok));
		return NULL;
	}
}

static struct expr	*parse_postfix(struct parser *);
static struct expr	*parse_elvis_operand(struct parser *);

/*
 * Selections, subscripts and HTCondor's "A ?: B" (A unless it is
 * UNDEFINED), which binds as tightly as a subscript: B is a postfix
 * expression, so 1 + x ?: 5 is 1 + (x ?: 5).
 */
static struct expr *
postfix_loop(struct parser *p, struct expr *e)
{
	struct expr *k, *x;
	size_t pos;

	for (;;) {
		pos = p->tokpos;
		if (p->tok == T_ELVIS) {
			if (!nest_enter(p)) {
				expr_free(e);
				return NULL;
			}
			lex(p);
			if ((k = parse_elvis_operand(p)) == NULL) {
				expr_free(e);
				return NULL;
			}
			p->depth--;
			x = node_new(EK_COND, 0, 2);
			x->kids[0] = e;
			x->kids[1] = k;
		} else if (p->tok == T_DOT) {
			lex(p);
			if (p->tok != T_NAME) {
				parse_fail(p, p->tokpos,
				    "attribute name expected");
				expr_free(e);
				return NULL;
			}
			x = node_new(EK_SELECT, 0, 1);
			x->kids[0] = e;
			x->name = xstrndup(p->sval.data, p->sval.len);
			lex(p);
		} else if (p->tok == T_LBRACK) {
			if (!nest_enter(p)) {
				expr_free(e);
				return NULL;
			}
			lex(p);
			if ((k = parse_cond(p)) == NULL) {
				expr_free(e);
				return NULL;
			}
			if (!expect(p, T_RBRACK)) {
				expr_free(e);
				expr_free(k);
				return NULL;
			}
			p->depth--;
			x = node_new(EK_INDEX, 0, 2);
			x->kids[0] = e;
			x->kids[1] = k;
		} else
			return e;
		if (!node_finish(p, x, pos))
			return NULL;
		e = x;
	}
}

static struct expr *
parse_postfix(struct parser *p)
{
	struct expr *e;

	if ((e = parse_primary(p)) == NULL)
		return NULL;
	return postfix_loop(p, e);
}

/* The operand after "?:": a postfix expression, where "-5" is one
 * number, as HTCondor's lexer reads it. */
static struct expr *
parse_elvis_operand(struct parser *p)
{
	struct expr *k;
	const char *after;

	if (p->tok != T_MINUS)
		return parse_postfix(p);
	after = p->text + p->pos;
	lex(p);
	if ((p->tok != T_INT && p->tok != T_REAL) ||
	    p->text + p->tokpos != after) {
		parse_fail(p, p->tokpos, "unexpected %s after '-'",
		    token_desc(p->tok));
		return NULL;
	}
	if (p->tok == T_INT && p->ival > INT_MAGNITUDE_MAX) {
		parse_fail(p, p->tokpos, "integer out of range");
		return NULL;
	}
	k = node_new(EK_LIT, 0, 0);
	if (p->tok == T_INT)
		val_int(&k->lit, (long long)(0ULL - p->ival));
	else
		val_real(&k->lit, -p->rval);
	lex(p);
	return postfix_loop(p, k);
}

/*
 * A minus in front of a number is folded into the literal, as HTCondor's
 * lexer reads "-5" as one number; -9223372036854775808 is accepted
 * here although its magnitude alone is out of range.
 */
static struct expr *
parse_unary(struct parser *p)
{
	struct expr *e, *k;
	size_t pos = p->tokpos;
	int op = p->tok;
	const char *after;

	if (op != T_MINUS && op != T_PLUS && op != T_NOT && op != T_BITNOT)
		return parse_postfix(p);
	if (!nest_enter(p))
		return NULL;
	after = p->text + p->pos;
	lex(p);
	if (op == T_MINUS && p->tok == T_INT && p->ival == INT_MAGNITUDE_MAX) {
		k = node_new(EK_LIT, 0, 0);
		val_int(&k->lit, LLONG_MIN);
		lex(p);
		p->depth--;
		return postfix_loop(p, k);
	}
	if (op == T_MINUS && (p->tok == T_INT || p->tok == T_REAL) &&
	    p->text + p->tokpos == after) {
		/* "-5" and "-2.5" are literals, still subject to postfix. */
		if (p->tok == T_INT && p->ival > (unsigned long long)LLONG_MAX) {
			parse_fail(p, p->tokpos, "integer out of range");
			return NULL;
		}
		k = node_new(EK_LIT, 0, 0);
		if (p->tok == T_INT)
			val_int(&k->lit, -(long long)p->ival);
		else
			val_real(&k->lit, -p->rval);
		lex(p);
		p->depth--;
		return postfix_loop(p, k);
	}
	if ((k = parse_unary(p)) == NULL)
		return NULL;
	p->depth--;
	e = node_new(EK_UNARY, op, 1);
	e->kids[0] = k;
	return node_finish(p, e, pos) ? e : NULL;
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

#define LEVEL(fn, next, ...)						\
static struct expr *							\
fn(struct parser *p)							\
{									\
	static const enum token ops[] = { __VA_ARGS__, T_EOF };		\
									\
	return parse_level(p, next, ops);				\
}

LEVEL(parse_mul, parse_unary, T_MUL, T_DIV, T_MOD)
LEVEL(parse_add, parse_mul, T_PLUS, T_MINUS)
LEVEL(parse_shift, parse_add, T_SHL, T_SHR, T_USHR)
LEVEL(parse_rel, parse_shift, T_LT, T_LE, T_GT, T_GE)
LEVEL(parse_eq, parse_rel, T_EQ, T_NE, T_IS, T_ISNT)
LEVEL(parse_band, parse_eq, T_BITAND)
LEVEL(parse_bxor, parse_band, T_BITXOR)
LEVEL(parse_bor, parse_bxor, T_BITOR)

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
	return node_finish(p, e, pos) ? e : NULL;
}

static struct expr *
parse_and(struct parser *p)
{
	return parse_logic(p, parse_bor, T_AND);
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
	return node_finish(p, e, pos) ? e : NULL;
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
	punct_init();
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
