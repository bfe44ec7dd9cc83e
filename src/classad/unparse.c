/*
 * unparse.c: a tree back to text.  Our canonical form (what ads carry
 * on the wire and in files) reads back to the same tree; HTCondor's
 * form (for values shown as condor_q -l shows them) differs in its
 * literals and spacing.  Also the walks condor_q -analyze uses.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "classad_impl.h"
#include "expr.h"

void	 value_unparse_lit(const struct value *, int htc, struct buf *);

static void unparse(const struct expr *, int htc, struct buf *);

/*
 * A child is parenthesised when its operator binds no tighter than its
 * parent's, which for left-associative operators is needed only on the
 * right; logical nodes are n-ary, so a nested one of the same operator
 * keeps its parentheses to read back the same.
 */
static int
prec_of(const struct expr *e)
{
	switch (e->kind) {
	case EK_COND:
		/* "a ?: b" binds like a subscript, but reads better (and as
		 * submit files write it) parenthesised as an operand. */
		return 1;
	case EK_LOGIC:
		return e->op == T_OR ? 2 : 3;
	case EK_BINARY:
		switch (e->op) {
		case T_BITOR:
			return 4;
		case T_BITXOR:
			return 5;
		case T_BITAND:
			return 6;
		case T_EQ:
		case T_NE:
		case T_IS:
		case T_ISNT:
			return 7;
		case T_LT:
		case T_LE:
		case T_GT:
		case T_GE:
			return 8;
		case T_SHL:
		case T_SHR:
		case T_USHR:
			return 9;
		case T_PLUS:
		case T_MINUS:
			return 10;
		default:
			return 11;
		}
	case EK_UNARY:
		return 12;
	case EK_LIT:
		/* A negative number reads back as a unary minus's operand. */
		if ((e->lit.type == VAL_INT && e->lit.u.i < 0) ||
		    (e->lit.type == VAL_REAL && e->lit.u.r < 0))
			return 12;
		return 14;
	default:
		return 14;
	}
}

static const char *
op_text(int op)
{
	switch (op) {
	case T_OR: return "||";
	case T_AND: return "&&";
	case T_EQ: return "==";
	case T_NE: return "!=";
	case T_IS: return "=?=";
	case T_ISNT: return "=!=";
	case T_LT: return "<";
	case T_LE: return "<=";
	case T_GT: return ">";
	case T_GE: return ">=";
	case T_PLUS: return "+";
	case T_MINUS: return "-";
	case T_MUL: return "*";
	case T_DIV: return "/";
	case T_MOD: return "%";
	case T_NOT: return "!";
	case T_BITNOT: return "~";
	case T_BITAND: return "&";
	case T_BITOR: return "|";
	case T_BITXOR: return "^";
	case T_SHL: return "<<";
	case T_SHR: return ">>";
	case T_USHR: return ">>>";
	}
	return "?";
}

/* An attribute name, quoted when it is not a plain name or a keyword. */
static void
name_unparse(const char *n, struct buf *b)
{
	static const char *const reserved[] = {
		"true", "false", "undefined", "error", "is", "isnt",
	};
	const char *p;
	size_t i;
	int plain = isalpha((unsigned char)n[0]) || n[0] == '_';

	for (p = n; *p != '\0' && plain; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			plain = 0;
	for (i = 0; plain && i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (strcasecmp(n, reserved[i]) == 0)
			plain = 0;
	if (plain) {
		buf_adds(b, n);
		return;
	}
	buf_addc(b, '\'');
	for (p = n; *p != '\0'; p++) {
		if (*p == '\'' || *p == '\\')
			buf_addc(b, '\\');
		buf_addc(b, *p);
	}
	buf_addc(b, '\'');
}

/* HTC: HTCondor shows the parentheses as written, and no others. */
static void
unparse_paren(const struct expr *e, int paren, int htc, struct buf *b)
{
	if (htc)
		paren = 0;
	if (paren)
		buf_addc(b, '(');
	unparse(e, htc, b);
	if (paren)
		buf_addc(b, ')');
}

static void unparse_node(const struct expr *, int, struct buf *);

/*
 * HTC_PRETTY: the new syntax laid out as HTCondor's PrettyPrint lays it
 * out for unparse(): each list and ad opens on a line of its own, its
 * bracket indented by 3 (lists) or 4 (ads) more than the level it is
 * in, its members one a line a further 3 or 4 in, and closes on a line
 * of its own under its opening bracket.  The level is kept here for the
 * one unparse running at a time.
 */
#define LIST_INDENT	3
#define AD_INDENT	4

static size_t	pretty_level;

static void
pretty_newline(struct buf *b)
{
	size_t i;

	buf_addc(b, '\n');
	for (i = 0; i < pretty_level; i++)
		buf_addc(b, ' ');
}

static void
pretty_open(struct buf *b, size_t indent, int bracket)
{
	pretty_level += indent;
	pretty_newline(b);
	buf_addc(b, bracket);
	pretty_level += indent;
}

static void
pretty_line(struct buf *b)
{
	pretty_newline(b);
}

static void
pretty_close(struct buf *b, size_t indent, int bracket)
{
	pretty_level -= indent;
	pretty_newline(b);
	buf_addc(b, bracket);
	pretty_level -= indent;
}

static void
unparse(const struct expr *e, int htc, struct buf *b)
{
	unsigned i;

	if (!htc) {
		unparse_node(e, htc, b);
		return;
	}
	for (i = 0; i < e->parens; i++)
		buf_addc(b, '(');
	unparse_node(e, htc, b);
	for (i = 0; i < e->parens; i++)
		buf_addc(b, ')');
}

static void
unparse_node(const struct expr *e, int htc, struct buf *b)
{
	size_t i;
	int prec = prec_of(e);

	switch (e->kind) {
	case EK_LIT:
		if (htc)
			value_unparse_lit(&e->lit, htc, b);
		else
			value_print(&e->lit, b);
		break;
	case EK_ATTR:
		if (e->scope == SCOPE_MY)
			buf_adds(b, "MY.");
		else if (e->scope == SCOPE_TARGET)
			buf_adds(b, "TARGET.");
		else if (e->scope == SCOPE_PARENT)
			buf_adds(b, "PARENT.");
		name_unparse(e->name, b);
		break;
	case EK_UNARY:
		if (htc)
			buf_addc(b, ' ');
		buf_adds(b, op_text(e->op));
		/* "-5" would read back as the literal -5: keep "-(5)", and
		 * "-(5[0])" or "-(5 ?: x)", whose 5 would be read as -5. */
		unparse_paren(e->kids[0], prec_of(e->kids[0]) < prec ||
		    (e->op == T_MINUS && (e->kids[0]->kind == EK_SELECT ||
		    e->kids[0]->kind == EK_INDEX || (e->kids[0]->kind ==
		    EK_COND && e->kids[0]->nkids == 2))) ||
		    (e->op == T_MINUS && e->kids[0]->kind == EK_LIT &&
		    ((e->kids[0]->lit.type == VAL_INT &&
		    e->kids[0]->lit.u.i >= 0) ||
		    (e->kids[0]->lit.type == VAL_REAL &&
		    isfinite(e->kids[0]->lit.u.r) &&
		    !signbit(e->kids[0]->lit.u.r)))), htc, b);
		break;
	case EK_BINARY:
		unparse_paren(e->kids[0], prec_of(e->kids[0]) < prec, htc, b);
		buf_addc(b, ' ');
		/* HTCondor's new syntax spells =?= and =!= as words. */
		if (htc >= 2 && (e->op == T_IS || e->op == T_ISNT))
			buf_adds(b, e->op == T_IS ? "is" : "isnt");
		else
			buf_adds(b, op_text(e->op));
		buf_addc(b, ' ');
		unparse_paren(e->kids[1], prec_of(e->kids[1]) <= prec, htc, b);
		break;
	case EK_LOGIC:
		for (i = 0; i < e->nkids; i++) {
			if (i > 0) {
				buf_addc(b, ' ');
				buf_adds(b, op_text(e->op));
				buf_addc(b, ' ');
			}
			unparse_paren(e->kids[i],
			    prec_of(e->kids[i]) <= prec, htc, b);
		}
		break;
	case EK_COND:
		if (e->nkids == 2) {
			/* Postfix, and right-nested: a ?: b ?: c is a ?: (b ?: c). */
			unparse_paren(e->kids[0], prec_of(e->kids[0]) < 13 ||
			    (e->kids[0]->kind == EK_COND &&
			    e->kids[0]->nkids == 2), htc, b);
			buf_adds(b, " ?: ");
			unparse_paren(e->kids[1], prec_of(e->kids[1]) < 13, htc, b);
			break;
		}
		unparse_paren(e->kids[0], prec_of(e->kids[0]) <= prec, htc, b);
		buf_adds(b, " ? ");
		unparse(e->kids[1], htc, b);
		buf_adds(b, " : ");
		unparse(e->kids[2], htc, b);
		break;
	case EK_CALL:
		buf_adds(b, e->name);
		buf_addc(b, '(');
		for (i = 0; i < e->nkids; i++) {
			if (i > 0)
				buf_addc(b, ',');
			unparse(e->kids[i], htc, b);
		}
		buf_addc(b, ')');
		break;
	case EK_LIST:
		if (htc == HTC_PRETTY) {
			pretty_open(b, LIST_INDENT, '{');
			for (i = 0; i < e->nkids; i++) {
				pretty_line(b);
				unparse(e->kids[i], htc, b);
				if (i + 1 < e->nkids)
					buf_addc(b, ',');
			}
			pretty_close(b, LIST_INDENT, '}');
			break;
		}
		buf_adds(b, "{ ");
		for (i = 0; i < e->nkids; i++) {
			if (i > 0)
				buf_addc(b, ',');
			unparse(e->kids[i], htc, b);
		}
		buf_adds(b, " }");
		break;
	case EK_AD:
		if (htc == HTC_PRETTY)
			pretty_open(b, AD_INDENT, '[');
		else
			buf_adds(b, "[ ");
		for (i = 0; i < e->nkids; i++) {
			if (i > 0)
				buf_adds(b, "; ");
			if (htc == HTC_PRETTY)
				pretty_line(b);
			name_unparse(e->names[i], b);
			buf_adds(b, " = ");
			unparse(e->kids[i], htc, b);
		}
		if (htc == HTC_PRETTY)
			pretty_close(b, AD_INDENT, ']');
		else
			buf_adds(b, " ]");
		break;
	case EK_SELECT:
		/* "2.x" would read as a bad real: a number keeps parentheses. */
		unparse_paren(e->kids[0], prec_of(e->kids[0]) < 13 ||
		    (e->kids[0]->kind == EK_LIT && (e->kids[0]->lit.type ==
		    VAL_INT || e->kids[0]->lit.type == VAL_REAL)), htc, b);
		buf_addc(b, '.');
		name_unparse(e->name, b);
		break;
	case EK_INDEX:
		unparse_paren(e->kids[0], prec_of(e->kids[0]) < 13, htc, b);
		buf_addc(b, '[');
		unparse(e->kids[1], htc, b);
		buf_addc(b, ']');
		break;
	}
}

void
unparse_expr(const struct expr *e, int htc, struct buf *b)
{
	if (htc == HTC_PRETTY)
		pretty_level = 0;
	unparse(e, htc, b);
}

void
expr_unparse(const struct expr *e, struct buf *b)
{
	if (e == NULL)
		return;
	unparse(e, 0, b);
}

char *
expr_to_string(const struct expr *e)
{
	struct buf b;

	buf_init(&b);
	expr_unparse(e, &b);
	return buf_take(&b);
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
