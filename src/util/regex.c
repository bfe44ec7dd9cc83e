/*
 * regex.c: regular expressions in PCRE's syntax, matched by a Pike VM
 * (Thompson's NFA simulation carrying capture positions per thread).
 *
 * A pattern is parsed into a tree, the tree compiled into a program of
 * a few instruction kinds (match a byte set, split, jump, save a
 * position, assert, match), and the program run over the subject one
 * byte at a time with every live thread kept in a list ordered by
 * priority.  Lower-priority threads that reach the same instruction at
 * the same position are dropped, so a search costs at most one visit per
 * instruction per byte: no pattern can make it exponential, which
 * matters because users' patterns run inside the negotiator and schedd.
 * Keeping the list in priority order (a split's first branch before its
 * second, threads started earlier before later ones) makes the match
 * the one PCRE's backtracking would report.  See regex_pcre.h for the
 * contract.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "regex_pcre.h"
#include "xalloc.h"

enum node_type {
	N_EMPTY, N_SET, N_ASSERT, N_CAT, N_ALT, N_REP, N_GROUP
};

/* Zero-width assertions. */
enum {
	A_BOS,			/* \A, ^ */
	A_MBOL,			/* ^ multiline */
	A_EOL,			/* $, \Z: end or before a final newline */
	A_MEOL,			/* $ multiline */
	A_EOS,			/* \z */
	A_WORDB,		/* \b */
	A_NWORDB,		/* \B */
	A_START			/* \G */
};

struct node {
	enum node_type type;
	int	 arg;		/* set index, assertion, group number */
	int	 min, max;	/* N_REP; max -1: unbounded */
	int	 greedy;	/* N_REP */
	int	*kids;		/* N_CAT, N_ALT; N_REP, N_GROUP: kids[0] */
	int	 nkids, capkids;
};

typedef uint8_t byteset[32];

enum op {
	I_SET, I_SPLIT, I_JMP, I_SAVE, I_ASSERT, I_MATCH,
	I_MARK,			/* loop register x = position */
	I_PROGRESS		/* loop register x == position: go to y */
};

/*
 * Loops whose body can match the empty string get a register holding
 * the position where the current iteration began: an iteration that
 * matched nothing leaves the loop there and then, as PCRE's does, rather
 * than dying (which would let a lower-priority alternative win).  Each
 * register costs a word per thread; past this many such loops the rest
 * are compiled without (their empty iterations simply die).
 */
#define RX_MAX_LOOPREGS	64

struct inst {
	uint8_t	 op;
	int	 x, y;
};

struct rx {
	struct inst *prog;
	int	 nprog;
	byteset	*sets;
	int	 nsets;
	int	 ngroups;
	int	 nregs;		/* loop registers */
	int	 nthreads;	/* I_SET and I_MATCH count: most live threads */
	int	 anchored;	/* every match starts at the search's start */
	int	 has_first;	/* every match begins with a byte of first */
	byteset	 first;
};

struct parser {
	const unsigned char *pat, *p, *end;
	int	 flags;
	int	 ngroups;
	int	 depth;
	struct node *nodes;
	int	 nnodes, capnodes;
	byteset	*sets;
	int	 nsets, capsets;
	struct inst *prog;
	int	 nprog, capprog;
	int	 nregs;
	int	 failed;
	char	*err;
	size_t	 errlen;
};

static void
fail(struct parser *ps, const char *what)
{
	if (ps->failed)
		return;
	ps->failed = 1;
	errbuf_set(ps->err, ps->errlen, "%s at offset %zu", what,
	    (size_t)(ps->p - ps->pat));
}

static int
new_node(struct parser *ps, enum node_type type)
{
	struct node *n;

	if (ps->nnodes == ps->capnodes) {
		ps->capnodes = ps->capnodes ? 2 * ps->capnodes : 64;
		ps->nodes = xreallocarray(ps->nodes, ps->capnodes,
		    sizeof(*ps->nodes));
	}
	n = &ps->nodes[ps->nnodes];
	memset(n, 0, sizeof(*n));
	n->type = type;
	return ps->nnodes++;
}

static void
add_kid(struct parser *ps, int parent, int kid)
{
	struct node *n = &ps->nodes[parent];

	if (n->nkids == n->capkids) {
		n->capkids = n->capkids ? 2 * n->capkids : 4;
		n->kids = xreallocarray(n->kids, n->capkids, sizeof(int));
	}
	n->kids[n->nkids++] = kid;
}

static int
new_set(struct parser *ps, const byteset s)
{
	if (ps->nsets == ps->capsets) {
		ps->capsets = ps->capsets ? 2 * ps->capsets : 16;
		ps->sets = xreallocarray(ps->sets, ps->capsets,
		    sizeof(*ps->sets));
	}
	memcpy(ps->sets[ps->nsets], s, sizeof(byteset));
	return ps->nsets++;
}

static void
set_add(byteset s, int c)
{
	s[c >> 3] |= 1u << (c & 7);
}

static int
set_has(const byteset s, int c)
{
	return (s[c >> 3] >> (c & 7)) & 1;
}

static void
set_range(byteset s, int lo, int hi)
{
	int c;

	for (c = lo; c <= hi; c++)
		set_add(s, c);
}

static void
set_negate(byteset s)
{
	size_t i;

	for (i = 0; i < sizeof(byteset); i++)
		s[i] = ~s[i];
}

static void
set_merge(byteset s, const byteset t)
{
	size_t i;

	for (i = 0; i < sizeof(byteset); i++)
		s[i] |= t[i];
}

/* ASCII only: case folding must not depend on the locale. */
static void
set_fold(byteset s)
{
	int c;

	for (c = 'A'; c <= 'Z'; c++) {
		if (set_has(s, c) || set_has(s, c + 32)) {
			set_add(s, c);
			set_add(s, c + 32);
		}
	}
}

static int
is_word(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_';
}

static int
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int
hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Whitespace as PCRE's \s has it since 8.34: VT included. */
static int
is_space(int c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/*
 * The sets of the backslash classes (\d \w \s \h \v, and their
 * negations in upper case).  Returns 0 when C names none.
 */
static int
class_escape(int c, byteset s)
{
	int k;

	memset(s, 0, sizeof(byteset));
	switch (c | 0x20) {
	case 'd':
		set_range(s, '0', '9');
		break;
	case 'w':
		for (k = 0; k < 256; k++)
			if (is_word(k))
				set_add(s, k);
		break;
	case 's':
		for (k = 0; k < 256; k++)
			if (is_space(k))
				set_add(s, k);
		break;
	case 'h':
		set_add(s, ' ');
		set_add(s, '\t');
		set_add(s, 0xa0);
		break;
	case 'v':
		set_range(s, '\n', '\r');
		set_add(s, 0x85);
		break;
	default:
		return 0;
	}
	if (c >= 'A' && c <= 'Z')
		set_negate(s);
	return 1;
}

/* The POSIX class NAME (of LEN bytes) into S; 0 if there is none. */
static int
posix_class(const unsigned char *name, size_t len, byteset s)
{
	static const char *names[] = {
		"alpha", "digit", "alnum", "upper", "lower", "space",
		"punct", "print", "graph", "cntrl", "xdigit", "blank",
		"word", "ascii", NULL
	};
	int i, c, in;

	for (i = 0; names[i] != NULL; i++)
		if (strlen(names[i]) == len &&
		    memcmp(names[i], name, len) == 0)
			break;
	if (names[i] == NULL)
		return 0;
	memset(s, 0, sizeof(byteset));
	for (c = 0; c < 256; c++) {
		int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
		int graph = c > ' ' && c < 127;

		switch (i) {
		case 0: in = alpha; break;
		case 1: in = is_digit(c); break;
		case 2: in = alpha || is_digit(c); break;
		case 3: in = c >= 'A' && c <= 'Z'; break;
		case 4: in = c >= 'a' && c <= 'z'; break;
		case 5: in = is_space(c); break;
		case 6: in = graph && !alpha && !is_digit(c); break;
		case 7: in = graph || c == ' '; break;
		case 8: in = graph; break;
		case 9: in = c < 32 || c == 127; break;
		case 10: in = hex_value(c) >= 0; break;
		case 11: in = c == ' ' || c == '\t'; break;
		case 12: in = is_word(c); break;
		default: in = c < 128; break;
		}
		if (in)
			set_add(s, c);
	}
	return 1;
}

enum esc {
	E_ERROR = -1, E_BYTE, E_SET, E_ASSERT, E_QUOTE, E_NOTHING
};

/*
 * The escape after a backslash (ps->p is past the backslash): a byte
 * (*BYTE), a set (S), an assertion (*BYTE its kind, outside classes
 * only), \Q (E_QUOTE) or \E (E_NOTHING).
 */
static enum esc
parse_escape(struct parser *ps, int inclass, int *byte, byteset s)
{
	int c, v, n;

	if (ps->p >= ps->end) {
		fail(ps, "\\ at end of pattern");
		return E_ERROR;
	}
	c = *ps->p++;
	if (class_escape(c, s))
		return E_SET;
	switch (c) {
	case 'a': *byte = 7; return E_BYTE;
	case 'e': *byte = 27; return E_BYTE;
	case 'f': *byte = '\f'; return E_BYTE;
	case 'n': *byte = '\n'; return E_BYTE;
	case 'r': *byte = '\r'; return E_BYTE;
	case 't': *byte = '\t'; return E_BYTE;
	case 'Q': return E_QUOTE;
	case 'E': return E_NOTHING;
	case 'c':
		if (ps->p >= ps->end || *ps->p < 32 || *ps->p > 126) {
			fail(ps, "\\c must be followed by a printable "
			    "character");
			return E_ERROR;
		}
		v = *ps->p++;
		if (v >= 'a' && v <= 'z')
			v -= 32;
		*byte = v ^ 0x40;
		return E_BYTE;
	case 'x':
		v = 0;
		if (ps->p < ps->end && *ps->p == '{') {
			const unsigned char *q = ps->p + 1;

			for (n = 0; q < ps->end && hex_value(*q) >= 0; q++) {
				v = v * 16 + hex_value(*q);
				if (v > 255) {
					fail(ps, "character code above \\xff "
					    "(text is bytes)");
					return E_ERROR;
				}
				n++;
			}
			if (q >= ps->end || *q != '}' || n == 0) {
				fail(ps, "malformed \\x{...}");
				return E_ERROR;
			}
			ps->p = q + 1;
		} else {
			for (n = 0; n < 2 && ps->p < ps->end &&
			    hex_value(*ps->p) >= 0; n++)
				v = v * 16 + hex_value(*ps->p++);
		}
		*byte = v;
		return E_BYTE;
	case 'o':
		if (ps->p >= ps->end || *ps->p != '{') {
			fail(ps, "\\o must be followed by {");
			return E_ERROR;
		}
		ps->p++;
		for (v = 0, n = 0; ps->p < ps->end && *ps->p >= '0' &&
		    *ps->p <= '7'; ps->p++, n++) {
			v = v * 8 + (*ps->p - '0');
			if (v > 255) {
				fail(ps, "character code above \\377 "
				    "(text is bytes)");
				return E_ERROR;
			}
		}
		if (ps->p >= ps->end || *ps->p != '}' || n == 0) {
			fail(ps, "malformed \\o{...}");
			return E_ERROR;
		}
		ps->p++;
		*byte = v;
		return E_BYTE;
	case '0':
		for (v = 0, n = 0; n < 2 && ps->p < ps->end &&
		    *ps->p >= '0' && *ps->p <= '7'; n++)
			v = v * 8 + (*ps->p++ - '0');
		*byte = v;
		return E_BYTE;
	}
	if (c >= '1' && c <= '9') {
		if (inclass) {
			/* In a class there are no backreferences: octal. */
			ps->p--;
			for (v = 0, n = 0; n < 3 && ps->p < ps->end &&
			    *ps->p >= '0' && *ps->p <= '7'; n++)
				v = v * 8 + (*ps->p++ - '0');
			if (n == 0 || v > 255) {
				fail(ps, "bad octal escape in a class");
				return E_ERROR;
			}
			*byte = v;
			return E_BYTE;
		}
		/*
		 * PCRE reads \1..\9 (and a number no larger than the
		 * groups) as a backreference, a larger one as octal.
		 */
		if (ps->p < ps->end && is_digit(*ps->p) && c <= '7' &&
		    *ps->p <= '7') {
			ps->p--;
			for (v = 0, n = 0; n < 3 && ps->p < ps->end &&
			    *ps->p >= '0' && *ps->p <= '7'; n++)
				v = v * 8 + (*ps->p++ - '0');
			if (v > 255) {
				fail(ps, "octal value above \\377");
				return E_ERROR;
			}
			*byte = v;
			return E_BYTE;
		}
		fail(ps, "backreferences are not supported");
		return E_ERROR;
	}
	if (inclass) {
		if (c == 'b') {
			*byte = '\b';
			return E_BYTE;
		}
	} else {
		switch (c) {
		case 'A': *byte = A_BOS; return E_ASSERT;
		case 'z': *byte = A_EOS; return E_ASSERT;
		case 'Z': *byte = A_EOL; return E_ASSERT;
		case 'b': *byte = A_WORDB; return E_ASSERT;
		case 'B': *byte = A_NWORDB; return E_ASSERT;
		case 'G': *byte = A_START; return E_ASSERT;
		case 'N':
			memset(s, 0xff, sizeof(byteset));
			s['\n' >> 3] &= ~(1u << ('\n' & 7));
			return E_SET;
		case 'g':
		case 'k':
			fail(ps, "backreferences are not supported");
			return E_ERROR;
		}
	}
	if (c == 'K' || c == 'R' || c == 'X' || c == 'p' || c == 'P' ||
	    c == 'C') {
		ps->p--;
		fail(ps, "this escape is not supported");
		return E_ERROR;
	}
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    is_digit(c)) {
		ps->p--;
		fail(ps, "unrecognized escape");
		return E_ERROR;
	}
	*byte = c;
	return E_BYTE;
}

/* A one-byte set for C, both cases when caseless. */
static int
byte_node(struct parser *ps, int c)
{
	byteset s;
	int n;

	memset(s, 0, sizeof(s));
	set_add(s, c);
	if (ps->flags & RX_CASELESS)
		set_fold(s);
	n = new_node(ps, N_SET);
	ps->nodes[n].arg = new_set(ps, s);
	return n;
}

static int
set_node(struct parser *ps, const byteset s)
{
	int n = new_node(ps, N_SET);

	ps->nodes[n].arg = new_set(ps, s);
	return n;
}

/* A class; ps->p is past the "[". */
static int
parse_class(struct parser *ps)
{
	byteset s, t;
	int neg = 0, first = 1, lo, hi;
	enum esc e;

	memset(s, 0, sizeof(s));
	if (ps->p < ps->end && *ps->p == '^') {
		neg = 1;
		ps->p++;
	}
	for (;;) {
		if (ps->p >= ps->end) {
			fail(ps, "missing terminating ] for a class");
			return -1;
		}
		if (*ps->p == ']' && !first)
			break;
		first = 0;
		if (*ps->p == '[' && ps->p + 1 < ps->end &&
		    ps->p[1] == ':') {
			const unsigned char *q = ps->p + 2, *name;
			int pneg = 0;

			if (q < ps->end && *q == '^') {
				pneg = 1;
				q++;
			}
			name = q;
			while (q < ps->end && *q >= 'a' && *q <= 'z')
				q++;
			if (q + 1 < ps->end && q[0] == ':' && q[1] == ']') {
				if (!posix_class(name, q - name, t)) {
					fail(ps, "unknown POSIX class name");
					return -1;
				}
				if (pneg)
					set_negate(t);
				set_merge(s, t);
				ps->p = q + 2;
				continue;
			}
		}
		if (*ps->p == '\\') {
			ps->p++;
			e = parse_escape(ps, 1, &lo, t);
			if (e == E_ERROR)
				return -1;
			if (e == E_SET) {
				set_merge(s, t);
				continue;
			}
			if (e == E_QUOTE || e == E_NOTHING)
				continue;	/* \Q..\E in a class: ignored */
		} else
			lo = *ps->p++;
		/* A range, unless "-" ends the class. */
		if (ps->p + 1 < ps->end && ps->p[0] == '-' &&
		    ps->p[1] != ']') {
			const unsigned char *save = ps->p;

			ps->p++;
			if (*ps->p == '\\') {
				ps->p++;
				e = parse_escape(ps, 1, &hi, t);
				if (e == E_ERROR)
					return -1;
				if (e != E_BYTE) {
					/* [a-\d]: "-" is literal (PCRE). */
					set_add(s, lo);
					set_add(s, '-');
					if (e == E_SET)
						set_merge(s, t);
					continue;
				}
			} else if (*ps->p == '[' && ps->p + 1 < ps->end &&
			    ps->p[1] == ':') {
				/* [a-[:digit:]]: "-" is literal. */
				ps->p = save + 1;
				set_add(s, lo);
				set_add(s, '-');
				continue;
			} else
				hi = *ps->p++;
			if (hi < lo) {
				fail(ps, "range out of order in class");
				return -1;
			}
			set_range(s, lo, hi);
		} else
			set_add(s, lo);
	}
	ps->p++;
	if (ps->flags & RX_CASELESS)
		set_fold(s);
	if (neg)
		set_negate(s);
	return set_node(ps, s);
}

/* In extended mode, skip whitespace and comments. */
static void
skip_extended(struct parser *ps)
{
	if (!(ps->flags & RX_EXTENDED))
		return;
	while (ps->p < ps->end) {
		if (is_space(*ps->p))
			ps->p++;
		else if (*ps->p == '#') {
			while (ps->p < ps->end && *ps->p != '\n')
				ps->p++;
		} else
			break;
	}
}

/*
 * A {n}, {n,} or {n,m} at ps->p: 1 with *MIN and *MAX (-1: none) and
 * ps->p past it, 0 when there is none (then "{" is a literal), -1 on a
 * count too large.
 */
static int
parse_braces(struct parser *ps, int *min, int *max)
{
	const unsigned char *q = ps->p + 1;
	long lo = 0, hi;
	int n;

	for (n = 0; q < ps->end && is_digit(*q); q++, n++)
		if (lo <= RX_MAX_REPEAT)
			lo = lo * 10 + (*q - '0');
	if (n == 0 || q >= ps->end)
		return 0;
	if (*q == '}')
		hi = lo;
	else if (*q == ',') {
		q++;
		hi = 0;
		for (n = 0; q < ps->end && is_digit(*q); q++, n++)
			if (hi <= RX_MAX_REPEAT)
				hi = hi * 10 + (*q - '0');
		if (q >= ps->end || *q != '}')
			return 0;
		if (n == 0)
			hi = -1;
	} else
		return 0;
	if (lo > RX_MAX_REPEAT || hi > RX_MAX_REPEAT) {
		fail(ps, "repetition count too large (limit "
		    "RX_MAX_REPEAT = 1000)");
		return -1;
	}
	if (hi >= 0 && hi < lo) {
		fail(ps, "numbers out of order in {} quantifier");
		return -1;
	}
	ps->p = q + 1;
	*min = (int)lo;
	*max = (int)hi;
	return 1;
}

static int parse_alt(struct parser *);

/*
 * Option letters after "(?" up to ")" or ":"; ps->p at the first letter.
 * Returns the character that ended them, or -1.
 */
static int
parse_flags(struct parser *ps, int *flags)
{
	int neg = 0, bit;

	for (;;) {
		if (ps->p >= ps->end) {
			fail(ps, "unterminated (? group");
			return -1;
		}
		switch (*ps->p) {
		case ')':
		case ':':
			return *ps->p++;
		case '-':
			if (neg) {
				fail(ps, "two - in inline options");
				return -1;
			}
			neg = 1;
			ps->p++;
			continue;
		case 'i': bit = RX_CASELESS; break;
		case 'm': bit = RX_MULTILINE; break;
		case 's': bit = RX_DOTALL; break;
		case 'x': bit = RX_EXTENDED; break;
		default:
			fail(ps, "unrecognized character after (? "
			    "(lookaround, atomic groups, conditionals and "
			    "recursion are not supported)");
			return -1;
		}
		if (neg)
			*flags &= ~bit;
		else
			*flags |= bit;
		ps->p++;
	}
}

/*
 * A group; ps->p is past the "(".  Returns its node, or -2 for an
 * inline option setting "(?i)" that changed ps->flags and made nothing.
 */
static int
parse_group(struct parser *ps)
{
	int capture = 1, flags = ps->flags, saved = ps->flags, g = 0;
	int body, n;

	if (ps->p < ps->end && *ps->p == '*') {
		fail(ps, "(*VERB) is not supported");
		return -1;
	}
	if (ps->p < ps->end && *ps->p == '?') {
		const unsigned char *q;
		int close = 0;

		ps->p++;
		if (ps->p >= ps->end) {
			fail(ps, "unterminated (? group");
			return -1;
		}
		switch (*ps->p) {
		case '#':
			while (ps->p < ps->end && *ps->p != ')')
				ps->p++;
			if (ps->p >= ps->end) {
				fail(ps, "missing ) after (?# comment");
				return -1;
			}
			ps->p++;
			return -2;
		case '=':
		case '!':
			fail(ps, "lookahead is not supported");
			return -1;
		case '>':
			fail(ps, "atomic groups are not supported");
			return -1;
		case '|':
			fail(ps, "(?| groups are not supported");
			return -1;
		case '(':
			fail(ps, "conditional groups are not supported");
			return -1;
		case 'P':
			ps->p++;
			if (ps->p < ps->end && *ps->p == '<')
				close = '>';
			else {
				fail(ps, "backreferences and recursion are "
				    "not supported");
				return -1;
			}
			break;
		case '<':
			if (ps->p + 1 < ps->end &&
			    (ps->p[1] == '=' || ps->p[1] == '!')) {
				fail(ps, "lookbehind is not supported");
				return -1;
			}
			close = '>';
			break;
		case '\'':
			close = '\'';
			break;
		}
		if (close) {
			/* A named group: the name is checked, then dropped. */
			q = ++ps->p;
			while (ps->p < ps->end && is_word(*ps->p))
				ps->p++;
			if (ps->p >= ps->end || *ps->p != close ||
			    ps->p == q || is_digit(*q)) {
				fail(ps, "bad group name");
				return -1;
			}
			ps->p++;
		} else {
			int c = parse_flags(ps, &flags);

			if (c < 0)
				return -1;
			if (c == ')') {
				ps->flags = flags;
				return -2;
			}
			capture = 0;
		}
	}
	if (capture)
		g = ++ps->ngroups;
	if (++ps->depth > RX_MAX_DEPTH) {
		fail(ps, "groups nested too deeply");
		return -1;
	}
	ps->flags = flags;
	body = parse_alt(ps);
	ps->flags = saved;
	ps->depth--;
	if (body < 0)
		return -1;
	if (ps->p >= ps->end || *ps->p != ')') {
		fail(ps, "missing )");
		return -1;
	}
	ps->p++;
	if (!capture)
		return body;
	n = new_node(ps, N_GROUP);
	ps->nodes[n].arg = g;
	add_kid(ps, n, body);
	return n;
}

/* A sequence of quantified atoms, up to "|", ")" or the end. */
static int
parse_seq(struct parser *ps)
{
	int seq = new_node(ps, N_CAT), atom, min, max, r, c, b;
	byteset s;
	enum esc e;

	for (;;) {
		skip_extended(ps);
		if (ps->p >= ps->end || *ps->p == '|' || *ps->p == ')')
			break;
		c = *ps->p++;
		atom = -1;
		switch (c) {
		case '(':
			atom = parse_group(ps);
			if (atom == -2)
				continue;
			if (atom < 0)
				return -1;
			break;
		case '[':
			if ((atom = parse_class(ps)) < 0)
				return -1;
			break;
		case '.':
			memset(s, 0xff, sizeof(s));
			if (!(ps->flags & RX_DOTALL))
				s['\n' >> 3] &= ~(1u << ('\n' & 7));
			atom = set_node(ps, s);
			break;
		case '^':
			atom = new_node(ps, N_ASSERT);
			ps->nodes[atom].arg = ps->flags & RX_MULTILINE ?
			    A_MBOL : A_BOS;
			break;
		case '$':
			atom = new_node(ps, N_ASSERT);
			ps->nodes[atom].arg = ps->flags & RX_MULTILINE ?
			    A_MEOL : A_EOL;
			break;
		case '*':
		case '+':
		case '?':
			ps->p--;
			fail(ps, "quantifier does not follow a repeatable "
			    "item");
			return -1;
		case '{':
			ps->p--;
			r = parse_braces(ps, &min, &max);
			if (r < 0)
				return -1;
			if (r > 0) {
				fail(ps, "quantifier does not follow a "
				    "repeatable item");
				return -1;
			}
			ps->p++;
			atom = byte_node(ps, '{');
			break;
		case '\\':
			e = parse_escape(ps, 0, &b, s);
			if (e == E_ERROR)
				return -1;
			if (e == E_NOTHING)
				continue;
			if (e == E_QUOTE) {
				/*
				 * \Q...\E: literals, each its own atom; a
				 * quantifier after \E takes the last.
				 */
				atom = -1;
				while (ps->p < ps->end && !(*ps->p == '\\' &&
				    ps->p + 1 < ps->end && ps->p[1] == 'E')) {
					if (atom >= 0)
						add_kid(ps, seq, atom);
					atom = byte_node(ps, *ps->p++);
				}
				if (ps->p < ps->end)
					ps->p += 2;
				if (atom < 0)
					continue;
				break;
			}
			if (e == E_SET) {
				if (ps->flags & RX_CASELESS)
					set_fold(s);
				atom = set_node(ps, s);
			} else if (e == E_ASSERT) {
				atom = new_node(ps, N_ASSERT);
				ps->nodes[atom].arg = b;
			} else
				atom = byte_node(ps, b);
			break;
		default:
			atom = byte_node(ps, c);
			break;
		}
		/* Quantifiers. */
		skip_extended(ps);
		if (ps->p < ps->end) {
			c = *ps->p;
			r = 0;
			if (c == '*') {
				min = 0, max = -1, r = 1;
				ps->p++;
			} else if (c == '+') {
				min = 1, max = -1, r = 1;
				ps->p++;
			} else if (c == '?') {
				min = 0, max = 1, r = 1;
				ps->p++;
			} else if (c == '{') {
				r = parse_braces(ps, &min, &max);
				if (r < 0)
					return -1;
			}
			if (r) {
				int rep = new_node(ps, N_REP);

				ps->nodes[rep].min = min;
				ps->nodes[rep].max = max;
				ps->nodes[rep].greedy = 1;
				add_kid(ps, rep, atom);
				atom = rep;
				if (ps->p < ps->end && *ps->p == '?') {
					ps->nodes[rep].greedy = 0;
					ps->p++;
				} else if (ps->p < ps->end && *ps->p == '+') {
					fail(ps, "possessive quantifiers are "
					    "not supported");
					return -1;
				}
				skip_extended(ps);
				if (ps->p < ps->end && (*ps->p == '*' ||
				    *ps->p == '+' || *ps->p == '?' ||
				    (*ps->p == '{' &&
				    parse_braces(ps, &min, &max) != 0))) {
					if (!ps->failed)
						fail(ps, "nested quantifier");
					return -1;
				}
			}
		}
		add_kid(ps, seq, atom);
	}
	return seq;
}

static int
parse_alt(struct parser *ps)
{
	int first, alt, seq;

	if ((first = parse_seq(ps)) < 0)
		return -1;
	if (ps->p >= ps->end || *ps->p != '|')
		return first;
	alt = new_node(ps, N_ALT);
	add_kid(ps, alt, first);
	while (ps->p < ps->end && *ps->p == '|') {
		ps->p++;
		if ((seq = parse_seq(ps)) < 0)
			return -1;
		add_kid(ps, alt, seq);
	}
	return alt;
}

static int
emit(struct parser *ps, int op, int x, int y)
{
	if (ps->nprog >= RX_MAX_PROG) {
		if (!ps->failed) {
			ps->failed = 1;
			errbuf_set(ps->err, ps->errlen, "pattern too large "
			    "(more than %d instructions once repetitions "
			    "are expanded)", RX_MAX_PROG);
		}
		return -1;
	}
	if (ps->nprog == ps->capprog) {
		ps->capprog = ps->capprog ? 2 * ps->capprog : 64;
		ps->prog = xreallocarray(ps->prog, ps->capprog,
		    sizeof(*ps->prog));
	}
	ps->prog[ps->nprog].op = op;
	ps->prog[ps->nprog].x = x;
	ps->prog[ps->nprog].y = y;
	return ps->nprog++;
}

static void compile_node(struct parser *, int);

/* Whether node N can match the empty string. */
static int
nullable(const struct parser *ps, int n)
{
	const struct node *nd = &ps->nodes[n];
	int i;

	switch (nd->type) {
	case N_SET:
		return 0;
	case N_CAT:
		for (i = 0; i < nd->nkids; i++)
			if (!nullable(ps, nd->kids[i]))
				return 0;
		return 1;
	case N_ALT:
		for (i = 0; i < nd->nkids; i++)
			if (nullable(ps, nd->kids[i]))
				return 1;
		return 0;
	case N_REP:
		return nd->min == 0 || nullable(ps, nd->kids[0]);
	case N_GROUP:
		return nullable(ps, nd->kids[0]);
	default:
		return 1;
	}
}

static void
compile_rep(struct parser *ps, const struct node *nd)
{
	int kid = nd->kids[0], i, top, split, reg = -1, progress = -1;

	for (i = 0; i < nd->min && !ps->failed; i++)
		if (nd->max >= 0 || i + 1 < nd->min)
			compile_node(ps, kid);
	if (ps->failed)
		return;
	if (nd->max < 0) {
		if (ps->nregs < RX_MAX_LOOPREGS && nullable(ps, kid))
			reg = ps->nregs++;
		if (nd->min > 0) {
			/*
			 * The last required copy loops:
			 * top: [mark r] x [progress r, out] split top, out
			 */
			top = ps->nprog;
			if (reg >= 0 && emit(ps, I_MARK, reg, 0) < 0)
				return;
			compile_node(ps, kid);
			if (reg >= 0 &&
			    (progress = emit(ps, I_PROGRESS, reg, 0)) < 0)
				return;
			if ((split = emit(ps, I_SPLIT, 0, 0)) < 0)
				return;
			ps->prog[split].x = nd->greedy ? top : split + 1;
			ps->prog[split].y = nd->greedy ? split + 1 : top;
		} else {
			/*
			 * x*: L: split body, out; body: [mark r] x
			 * [progress r, out] jmp L
			 */
			if ((split = emit(ps, I_SPLIT, 0, 0)) < 0)
				return;
			if (reg >= 0 && emit(ps, I_MARK, reg, 0) < 0)
				return;
			compile_node(ps, kid);
			if (reg >= 0 &&
			    (progress = emit(ps, I_PROGRESS, reg, 0)) < 0)
				return;
			if (emit(ps, I_JMP, split, 0) < 0)
				return;
			ps->prog[split].x = nd->greedy ? split + 1 :
			    ps->nprog;
			ps->prog[split].y = nd->greedy ? ps->nprog :
			    split + 1;
		}
		if (progress >= 0)
			ps->prog[progress].y = ps->nprog;
		return;
	}
	/*
	 * x{0,k}: k optional copies, each split skipping to the end
	 * (x(x(x)?)?)? would nest; skipping to the end of all is the same
	 * language and the same priorities, and keeps the program flat.
	 */
	{
		int *splits, nsplit = 0, k = nd->max - nd->min;

		if (k == 0)
			return;
		splits = xreallocarray(NULL, k, sizeof(int));
		for (i = 0; i < k; i++) {
			if ((split = emit(ps, I_SPLIT, 0, 0)) < 0)
				break;
			splits[nsplit++] = split;
			compile_node(ps, kid);
			if (ps->failed)
				break;
		}
		if (!ps->failed)
			for (i = 0; i < nsplit; i++) {
				split = splits[i];
				ps->prog[split].x = nd->greedy ? split + 1 :
				    ps->nprog;
				ps->prog[split].y = nd->greedy ? ps->nprog :
				    split + 1;
			}
		free(splits);
	}
}

static void
compile_node(struct parser *ps, int n)
{
	const struct node *nd;
	int i, split, *jumps;

	if (ps->failed)
		return;
	nd = &ps->nodes[n];
	switch (nd->type) {
	case N_EMPTY:
		break;
	case N_SET:
		emit(ps, I_SET, nd->arg, 0);
		break;
	case N_ASSERT:
		emit(ps, I_ASSERT, nd->arg, 0);
		break;
	case N_CAT:
		for (i = 0; i < nd->nkids && !ps->failed; i++)
			compile_node(ps, nd->kids[i]);
		break;
	case N_GROUP:
		emit(ps, I_SAVE, 2 * nd->arg, 0);
		compile_node(ps, nd->kids[0]);
		emit(ps, I_SAVE, 2 * nd->arg + 1, 0);
		break;
	case N_REP:
		compile_rep(ps, nd);
		break;
	case N_ALT:
		jumps = xreallocarray(NULL, nd->nkids, sizeof(int));
		for (i = 0; i < nd->nkids && !ps->failed; i++) {
			split = -1;
			if (i + 1 < nd->nkids &&
			    (split = emit(ps, I_SPLIT, 0, 0)) < 0)
				break;
			if (split >= 0)
				ps->prog[split].x = split + 1;
			compile_node(ps, nd->kids[i]);
			jumps[i] = -1;
			if (i + 1 < nd->nkids)
				jumps[i] = emit(ps, I_JMP, 0, 0);
			if (split >= 0)
				ps->prog[split].y = ps->nprog;
		}
		if (!ps->failed)
			for (i = 0; i + 1 < nd->nkids; i++)
				ps->prog[jumps[i]].x = ps->nprog;
		free(jumps);
		break;
	}
}

int
rx_options(const char *opts)
{
	int flags = 0;

	for (; opts != NULL && *opts != '\0'; opts++) {
		switch (*opts | 0x20) {
		case 'i': flags |= RX_CASELESS; break;
		case 'm': flags |= RX_MULTILINE; break;
		case 's': flags |= RX_DOTALL; break;
		case 'x': flags |= RX_EXTENDED; break;
		case 'f': flags |= RX_FULL; break;
		case 'g': flags |= RX_GLOBAL; break;
		}
	}
	return flags;
}

/*
 * The bytes a match can begin with: the union of the sets reachable from
 * the start without consuming a byte (assertions taken as true).  When
 * the match instruction is reachable so, a match can be empty and there
 * is no such set.  The search skips, with no thread alive, to the next
 * byte that can begin one.
 */
static void
first_bytes(struct rx *rx)
{
	int *stack, *seen, sp = 0, pc;

	stack = xreallocarray(NULL, 2 * (size_t)rx->nprog + 2, sizeof(int));
	seen = xcalloc(rx->nprog, sizeof(int));
	memset(rx->first, 0, sizeof(rx->first));
	rx->has_first = 1;
	stack[sp++] = 0;
	while (sp > 0 && rx->has_first) {
		pc = stack[--sp];
		if (seen[pc])
			continue;
		seen[pc] = 1;
		switch (rx->prog[pc].op) {
		case I_SET:
			set_merge(rx->first, rx->sets[rx->prog[pc].x]);
			break;
		case I_MATCH:
			rx->has_first = 0;
			break;
		case I_JMP:
			stack[sp++] = rx->prog[pc].x;
			break;
		case I_SPLIT:
			stack[sp++] = rx->prog[pc].x;
			stack[sp++] = rx->prog[pc].y;
			break;
		case I_PROGRESS:
			stack[sp++] = pc + 1;
			stack[sp++] = rx->prog[pc].y;
			break;
		default:
			stack[sp++] = pc + 1;
			break;
		}
	}
	free(stack);
	free(seen);
}

struct rx *
rx_compilen(const char *pattern, size_t patlen, int flags, char *err,
    size_t errlen)
{
	struct parser ps;
	struct rx *rx = NULL;
	int root, i;

	if (patlen > RX_MAX_PATTERN) {
		errbuf_set(err, errlen, "pattern longer than %d bytes",
		    RX_MAX_PATTERN);
		return NULL;
	}
	memset(&ps, 0, sizeof(ps));
	ps.pat = ps.p = (const unsigned char *)pattern;
	ps.end = ps.pat + patlen;
	ps.flags = flags & (RX_CASELESS | RX_MULTILINE | RX_DOTALL |
	    RX_EXTENDED);
	ps.err = err;
	ps.errlen = errlen;
	root = parse_alt(&ps);
	if (root >= 0 && ps.p < ps.end) {
		/* Only an unmatched ")" stops the top level early. */
		fail(&ps, "unmatched )");
	}
	if (!ps.failed) {
		emit(&ps, I_SAVE, 0, 0);
		compile_node(&ps, root);
		emit(&ps, I_SAVE, 1, 0);
		emit(&ps, I_MATCH, 0, 0);
	}
	if (!ps.failed) {
		rx = xcalloc(1, sizeof(*rx));
		rx->prog = ps.prog;
		rx->nprog = ps.nprog;
		rx->sets = ps.sets;
		rx->nsets = ps.nsets;
		rx->ngroups = ps.ngroups;
		rx->nregs = ps.nregs;
		for (i = 0; i < ps.nprog; i++)
			if (ps.prog[i].op == I_SET || ps.prog[i].op == I_MATCH)
				rx->nthreads++;
		rx->anchored = ps.nprog > 1 && ps.prog[1].op == I_ASSERT &&
		    (ps.prog[1].x == A_BOS || ps.prog[1].x == A_START);
		ps.prog = NULL;
		ps.sets = NULL;
		first_bytes(rx);
	}
	for (i = 0; i < ps.nnodes; i++)
		free(ps.nodes[i].kids);
	free(ps.nodes);
	free(ps.prog);
	free(ps.sets);
	return rx;
}

struct rx *
rx_compile(const char *pattern, int flags, char *err, size_t errlen)
{
	return rx_compilen(pattern, strlen(pattern), flags, err, errlen);
}

void
rx_free(struct rx *rx)
{
	if (rx == NULL)
		return;
	free(rx->prog);
	free(rx->sets);
	free(rx);
}

size_t
rx_ngroups(const struct rx *rx)
{
	return rx->ngroups;
}

/* The state of one search. */
struct vm {
	const struct rx *rx;
	const unsigned char *s;
	size_t	 len, start;
	int	 ncap;		/* capture slots tracked */
	int	 nslot;		/* those and the loop registers after them */
	size_t	*mark;		/* per instruction: position+1 last added */
	struct frame {
		int	 pc;	/* -1: restore slot k to old */
		int	 k;
		size_t	 old;
	} *stack;
	size_t	*work;		/* the captures being built */
};

struct tlist {
	int	 n;
	int	*pc;
	size_t	*caps;		/* n x ncap */
};

static int
assert_holds(const struct vm *vm, int kind, size_t pos)
{
	const unsigned char *s = vm->s;
	size_t len = vm->len;
	int before, after;

	switch (kind) {
	case A_BOS:
		return pos == 0;
	case A_MBOL:
		return pos == 0 || (s[pos - 1] == '\n' && pos < len);
	case A_EOL:
		return pos == len || (pos + 1 == len && s[pos] == '\n');
	case A_MEOL:
		return pos == len || s[pos] == '\n';
	case A_EOS:
		return pos == len;
	case A_START:
		return pos == vm->start;
	case A_WORDB:
	case A_NWORDB:
		before = pos > 0 && is_word(s[pos - 1]);
		after = pos < len && is_word(s[pos]);
		return (before != after) == (kind == A_WORDB);
	}
	return 0;
}

/*
 * Add the thread at PC with captures CAPS to L at position POS,
 * following jumps, splits (first branch first), saves and assertions
 * to the instructions that consume a byte or match.  An instruction
 * already reached at this position is not added again: the thread that
 * got there first has the higher priority.
 */
static void
add_thread(struct vm *vm, struct tlist *l, int pc0, size_t pos,
    const size_t *caps)
{
	const struct inst *prog = vm->rx->prog;
	int sp = 0, pc, k;

	memcpy(vm->work, caps, vm->nslot * sizeof(size_t));
	vm->stack[sp++].pc = pc0;
	while (sp > 0) {
		struct frame f = vm->stack[--sp];

		if (f.pc < 0) {
			vm->work[f.k] = f.old;
			continue;
		}
		pc = f.pc;
		/*
		 * A loop's progress test is not marked: reached again at
		 * this position it may hold another register (the end of an
		 * iteration begun here, not earlier) and must then leave the
		 * loop.  A chain of them leads outwards, through at most
		 * RX_MAX_LOOPREGS loops, so the work stays bounded.
		 */
		if (prog[pc].op != I_PROGRESS) {
			if (vm->mark[pc] == pos + 1)
				continue;
			vm->mark[pc] = pos + 1;
		}
		switch (prog[pc].op) {
		case I_JMP:
			vm->stack[sp++].pc = prog[pc].x;
			break;
		case I_SPLIT:
			vm->stack[sp++].pc = prog[pc].y;
			vm->stack[sp++].pc = prog[pc].x;
			break;
		case I_SAVE:
			if (prog[pc].x < vm->ncap) {
				vm->stack[sp].pc = -1;
				vm->stack[sp].k = prog[pc].x;
				vm->stack[sp].old = vm->work[prog[pc].x];
				sp++;
				vm->work[prog[pc].x] = pos;
			}
			vm->stack[sp++].pc = pc + 1;
			break;
		case I_ASSERT:
			if (assert_holds(vm, prog[pc].x, pos))
				vm->stack[sp++].pc = pc + 1;
			break;
		case I_MARK:
			k = vm->ncap + prog[pc].x;
			vm->stack[sp].pc = -1;
			vm->stack[sp].k = k;
			vm->stack[sp].old = vm->work[k];
			sp++;
			vm->work[k] = pos;
			vm->stack[sp++].pc = pc + 1;
			break;
		case I_PROGRESS:
			k = vm->ncap + prog[pc].x;
			vm->stack[sp++].pc = vm->work[k] == pos ? prog[pc].y :
			    pc + 1;
			break;
		default:
			l->pc[l->n] = pc;
			memcpy(&l->caps[(size_t)l->n * vm->nslot], vm->work,
			    vm->nslot * sizeof(size_t));
			l->n++;
			break;
		}
	}
}

/*
 * rx_search, and with NONEMPTY a search for a match that begins at START
 * and is not empty (for global substitution after an empty match).
 */
static int
search(const struct rx *rx, const char *subject, size_t len, size_t start,
    struct rx_match *groups, size_t ngroups, int nonempty)
{
	struct vm vm;
	struct tlist a, b, *clist = &a, *nlist = &b, *t;
	size_t pos, *init, *best, i;
	int matched = 0, anchored = rx->anchored || nonempty, k;

	if (start > len)
		return 0;
	memset(&vm, 0, sizeof(vm));
	vm.rx = rx;
	vm.s = (const unsigned char *)subject;
	vm.len = len;
	vm.start = start;
	vm.ncap = 2;
	if (ngroups > 1)
		vm.ncap = 2 * (int)(ngroups - 1 < (size_t)rx->ngroups ?
		    ngroups : (size_t)rx->ngroups + 1);
	vm.nslot = vm.ncap + rx->nregs;
	vm.mark = xcalloc(rx->nprog, sizeof(size_t));
	/*
	 * A marked instruction is visited once and pushes at most two
	 * frames; a progress test pops one and pushes one.
	 */
	vm.stack = xreallocarray(NULL, 2 * (size_t)rx->nprog + 2,
	    sizeof(*vm.stack));
	vm.work = xreallocarray(NULL, vm.nslot, sizeof(size_t));
	init = xreallocarray(NULL, vm.nslot, sizeof(size_t));
	best = xreallocarray(NULL, vm.ncap, sizeof(size_t));
	for (k = 0; k < vm.nslot; k++)
		init[k] = RX_UNSET;
	a.n = b.n = 0;
	a.pc = xreallocarray(NULL, rx->nthreads, sizeof(int));
	b.pc = xreallocarray(NULL, rx->nthreads, sizeof(int));
	a.caps = xreallocarray(NULL, (size_t)rx->nthreads * vm.nslot,
	    sizeof(size_t));
	b.caps = xreallocarray(NULL, (size_t)rx->nthreads * vm.nslot,
	    sizeof(size_t));

	for (pos = start;; pos++) {
		/* A thread starting here ranks below every earlier one. */
		if (!matched && clist->n == 0 && rx->has_first &&
		    !anchored) {
			/* Nothing alive: on to a byte that can begin one. */
			while (pos < len && !set_has(rx->first, vm.s[pos]))
				pos++;
			if (pos >= len)
				break;
		}
		if (!matched && (pos == start || !anchored))
			add_thread(&vm, clist, 0, pos, init);
		else if (clist->n == 0)
			break;
		nlist->n = 0;
		for (k = 0; k < clist->n; k++) {
			const struct inst *in = &rx->prog[clist->pc[k]];
			size_t *caps = &clist->caps[(size_t)k * vm.nslot];

			if (in->op == I_MATCH) {
				if (nonempty && pos == start)
					continue;
				matched = 1;
				memcpy(best, caps, vm.ncap * sizeof(size_t));
				/* Lower-priority threads can only lose. */
				break;
			}
			if (pos < len && set_has(rx->sets[in->x], vm.s[pos]))
				add_thread(&vm, nlist, clist->pc[k] + 1,
				    pos + 1, caps);
		}
		t = clist;
		clist = nlist;
		nlist = t;
		if (pos >= len) {
			/* The threads left wait for a byte there is not. */
			break;
		}
	}
	if (matched && groups != NULL) {
		for (i = 0; i < ngroups; i++) {
			if ((int)(2 * i + 1) < vm.ncap &&
			    best[2 * i] != RX_UNSET &&
			    best[2 * i + 1] != RX_UNSET) {
				groups[i].so = best[2 * i];
				groups[i].eo = best[2 * i + 1];
			} else
				groups[i].so = groups[i].eo = RX_UNSET;
		}
	}
	free(vm.mark);
	free(vm.stack);
	free(vm.work);
	free(init);
	free(best);
	free(a.pc);
	free(b.pc);
	free(a.caps);
	free(b.caps);
	return matched;
}

int
rx_search(const struct rx *rx, const char *subject, size_t len,
    size_t start, struct rx_match *groups, size_t ngroups)
{
	return search(rx, subject, len, start, groups, ngroups, 0);
}

int
rx_expand(const char *tmpl, const char *subject,
    const struct rx_match *groups, size_t ngroups, struct buf *out)
{
	const char *p;
	size_t g, last = 0;

	/* As PCRE counts them: one past the highest group that took part. */
	for (g = 0; g < ngroups; g++)
		if (groups[g].so != RX_UNSET)
			last = g + 1;
	for (p = tmpl; *p != '\0'; p++) {
		if (*p == '\\' && p[1] >= '0' && p[1] <= '9') {
			g = (size_t)(p[1] - '0');
			p++;
			if (g >= last)
				return -1;
			if (groups[g].so != RX_UNSET)
				buf_add(out, subject + groups[g].so,
				    groups[g].eo - groups[g].so);
		} else
			buf_addc(out, *p);
	}
	return 0;
}

char *
rx_subst(const struct rx *rx, const char *subject, size_t len,
    const char *tmpl, int opts, size_t *outlen, size_t *nmatch)
{
	struct rx_match m[10];
	struct buf out;
	size_t pos = 0, last = 0, count = 0;
	int after_empty = 0;

	buf_init(&out);
	while (pos <= len) {
		if (after_empty) {
			/*
			 * After an empty match, a non-empty one may start at
			 * the same place (PCRE and Perl); else step over a
			 * byte, keeping it.
			 */
			after_empty = 0;
			if (!search(rx, subject, len, pos, m, 10, 1)) {
				if (pos >= len)
					break;
				if (opts & RX_FULL)
					buf_add(&out, subject + pos, 1);
				last = ++pos;
				continue;
			}
		} else if (!search(rx, subject, len, pos, m, 10, 0))
			break;
		count++;
		if (opts & RX_FULL)
			buf_add(&out, subject + last, m[0].so - last);
		if (rx_expand(tmpl, subject, m, 10, &out) == -1) {
			buf_free(&out);
			if (nmatch != NULL)
				*nmatch = count;
			return NULL;
		}
		last = pos = m[0].eo;
		if (!(opts & RX_GLOBAL))
			break;
		after_empty = m[0].so == m[0].eo;
	}
	if (opts & RX_FULL)
		buf_add(&out, subject + last, len - last);
	if (outlen != NULL)
		*outlen = out.len;
	if (nmatch != NULL)
		*nmatch = count;
	return buf_take(&out);
}
