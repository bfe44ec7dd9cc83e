/*
 * regex.c: regular expressions in PCRE's syntax, matched by a Pike VM
 * (Thompson's NFA simulation carrying capture positions per thread), or,
 * for a pattern with back-references only, by a backtracking matcher
 * with a hard step budget.
 *
 * A pattern is parsed into a tree, the tree compiled into a program of
 * a few instruction kinds (match a byte set, split, jump, save a
 * position, assert, match), and the program run over the subject one
 * byte at a time with every live thread kept in a list ordered by
 * priority.  Lower-priority threads that reach the same instruction at
 * the same position (in the same state of the loops around it, see
 * mark_slots) are dropped, so a search costs a bounded number of visits
 * per instruction per byte: no pattern can make it exponential, which
 * matters because users' patterns run inside the negotiator and schedd.
 * Keeping the list in priority order (a split's first branch before its
 * second, threads started earlier before later ones) makes the match
 * the one PCRE's backtracking would report.  See regex_pcre.h for the
 * contract.
 *
 * Look-arounds keep the Pike VM linear: each has a program of its own,
 * run once over the whole subject (a look-ahead right to left, reversed,
 * a look-behind left to right) to give a table of the positions where it
 * holds; a thread passing one only looks its position up.  What a
 * positive look-around captured is worked out after the search, for the
 * winning thread only, by matching its body anchored where that thread
 * last passed it.
 *
 * Back-references make matching NP-hard in general, so no linear
 * algorithm exists; a pattern with one is matched by backtracking over
 * the same program, as PCRE does, and every instruction executed counts
 * against RX_MAX_STEPS: past it the search fails with an error instead
 * of running on.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "regex_pcre.h"
#include "xalloc.h"

enum node_type {
	N_EMPTY, N_SET, N_ASSERT, N_CAT, N_ALT, N_REP, N_GROUP, N_LOOK,
	N_BACKREF
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
	int	 arg;		/* set index, assertion, group number, look
				 * index; N_BACKREF by name: -1 until the
				 * name is resolved */
	int	 min, max;	/* N_REP; max -1: unbounded */
	int	 greedy;	/* N_REP */
	int	 caseless;	/* N_BACKREF: compare ignoring case */
	size_t	 off;		/* N_BACKREF, N_LOOK: offset in the pattern */
	size_t	 name_off, name_len;	/* N_BACKREF by name */
	int	*kids;		/* N_CAT, N_ALT; N_REP, N_GROUP, N_LOOK:
				 * kids[0] */
	int	 nkids, capkids;
};

typedef uint8_t byteset[32];

enum op {
	I_SET, I_SPLIT, I_JMP, I_SAVE, I_ASSERT, I_MATCH,
	I_MARK,			/* loop register x = position */
	I_PROGRESS,		/* loop register x == position: go to y */
	I_LOOK,			/* look-around x holds here */
	I_BACKREF		/* the text of group x (y: ignoring case) */
};

/*
 * Loops whose body can match the empty string get a register holding
 * the position where the current iteration began: an iteration that
 * matched nothing leaves the loop there and then, as PCRE's does, rather
 * than dying (which would let a lower-priority alternative win).  Each
 * register costs a word per thread; past this many such loops the rest
 * are compiled without (their empty iterations simply die).  The
 * backtracking matcher has no threads and needs every register (without
 * one it would loop on an empty iteration), so it has no such limit.
 */
#define RX_MAX_LOOPREGS	16

/*
 * The backtracking matcher's stack holds a choice point or an undone
 * assignment a frame (16 bytes).  Besides RX_MAX_STEPS it may hold at
 * most this many (16 MB), whatever the pattern: a match that needs more
 * is too costly too.
 */
#define RX_MAX_FRAMES	(1 << 20)

struct inst {
	uint8_t	 op;
	int	 x, y;
	int	 loop;		/* innermost loop register around it, or -1 */
};

/* A look-around assertion. */
struct look {
	int	 behind;	/* (?<= (?<! */
	int	 neg;		/* (?! (?<! */
	int	 g0, g1;	/* it holds groups g0+1 .. g1 */
	int	 uses_start;	/* it depends on \G, the search's start */
	int	 scan;		/* program that tabulates it (Pike VM) */
	int	 nbranch;	/* its top-level alternatives: */
	int	*branch;	/* each one's program, matched from */
	int	*blen;		/* this many bytes before the position */
	int	 slot;		/* per-thread slot of where it last held,
				 * or -1 (negative, or capturing nothing) */
};

struct rx {
	struct inst *prog;	/* the main program at 0, then the looks' */
	int	 nprog;
	byteset	*sets;
	int	 nsets;
	int	 ngroups;
	int	 nregs;		/* loop registers */
	int	*loop_parent;	/* per register: enclosing one, or -1 */
	struct look *looks;
	int	 nlooks;
	int	 nlookslots;	/* looks with a slot */
	int	 backtrack;	/* has back-references: the backtracker */
	size_t	*markbase;	/* per instruction: its first mark slot */
	size_t	 nmarks;
	int	 nthreads;	/* I_SET and I_MATCH count: most live threads */
	int	 anchored;	/* every match starts at the search's start */
	int	 has_first;	/* every match begins with a byte of first */
	byteset	 first;
};

/* A named group. */
struct gname {
	size_t	 off, len;	/* in the pattern */
	int	 group;
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
	int	 nregs, maxregs;
	int	 loop;		/* the loop being compiled, or -1 */
	int	*loop_parent;
	int	 caploops;
	struct look *looks;
	int	*look_node;	/* per look: its node */
	int	 nlooks;
	struct gname *names;
	int	 nnames, capnames;
	int	*name_hash;	/* open addressing: index in names, or -1 */
	int	 hashcap;	/* a power of two, or 0 */
	int	*group_node;	/* per group number: its N_GROUP node */
	int	 capgroups;
	int	 has_backref;
	size_t	 ref_off, ref_len;	/* the name of a reference just read */
	int	 nosave;	/* compiling: leave captures out */
	int	 reverse;	/* compiling: right to left */
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
	E_ERROR = -1, E_BYTE, E_SET, E_ASSERT, E_QUOTE, E_NOTHING, E_BACKREF
};

/*
 * A group name ending with CLOSE at ps->p: its place in ps->ref_off and
 * ps->ref_len, ps->p past CLOSE.  0, or -1 (failed) on a bad name.
 */
static int
parse_name(struct parser *ps, int close)
{
	const unsigned char *q = ps->p;

	while (ps->p < ps->end && is_word(*ps->p))
		ps->p++;
	if (ps->p >= ps->end || *ps->p != close || ps->p == q ||
	    is_digit(*q)) {
		fail(ps, "bad group name");
		return -1;
	}
	ps->ref_off = (size_t)(q - ps->pat);
	ps->ref_len = (size_t)(ps->p - q);
	ps->p++;
	return 0;
}

/*
 * The group that \g names (ps->p past the g): *GROUP its number, or -1
 * with the name in ps->ref_off and ps->ref_len.  0, or -1 (failed).
 * \g{n} \gn are absolute, \g{-n} \g-n count back from the last group
 * opened, \g{+n} on from it; \g<...>, \g'...' and \g+n are subroutine
 * calls.
 */
static int
parse_gref(struct parser *ps, int *group)
{
	int brace = 0, neg = 0, n = 0;
	long v = 0;

	if (ps->p < ps->end && (*ps->p == '<' || *ps->p == '\'' ||
	    *ps->p == '+')) {
		fail(ps, "subroutine calls are not supported");
		return -1;
	}
	if (ps->p < ps->end && *ps->p == '{') {
		brace = 1;
		ps->p++;
		if (ps->p < ps->end && !is_digit(*ps->p) && *ps->p != '-' &&
		    *ps->p != '+') {
			if (parse_name(ps, '}') < 0)
				return -1;
			*group = -1;
			return 0;
		}
	}
	if (ps->p < ps->end && *ps->p == '-') {
		neg = 1;
		ps->p++;
	} else if (brace && ps->p < ps->end && *ps->p == '+') {
		neg = -1;	/* \g{+n}: the nth group opened after */
		ps->p++;
	}
	for (; ps->p < ps->end && is_digit(*ps->p); ps->p++, n++)
		if (v <= RX_MAX_PATTERN)
			v = v * 10 + (*ps->p - '0');
	if (n == 0 || (brace && (ps->p >= ps->end || *ps->p != '}'))) {
		fail(ps, "\\g is not followed by a number or a name in "
		    "braces");
		return -1;
	}
	if (brace)
		ps->p++;
	if (v == 0) {
		fail(ps, "a back-reference must not be to group 0");
		return -1;
	}
	if (neg < 0)
		v += ps->ngroups;
	else if (neg) {
		v = ps->ngroups + 1 - v;
		if (v < 1) {
			fail(ps, "reference to a group that does not exist");
			return -1;
		}
	}
	*group = v > RX_MAX_PATTERN ? RX_MAX_PATTERN : (int)v;
	return 0;
}

/*
 * The escape after a backslash (ps->p is past the backslash): a byte
 * (*BYTE), a set (S), an assertion (*BYTE its kind, outside classes
 * only), \Q (E_QUOTE), \E (E_NOTHING) or a back-reference (*BYTE the
 * group, or -1 with a name in ps->ref_off and ps->ref_len; outside
 * classes only).
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
		 * As PCRE reads \N: a back-reference when N is below 10,
		 * begins with 8 or 9, or is no larger than the number of
		 * groups opened so far; else up to three octal digits.
		 */
		{
			const unsigned char *q = ps->p - 1;
			long num = 0;

			for (; q < ps->end && is_digit(*q); q++)
				if (num <= RX_MAX_PATTERN)
					num = num * 10 + (*q - '0');
			if (num < 10 || c >= '8' || num <= ps->ngroups) {
				ps->p = q;
				*byte = num > RX_MAX_PATTERN ? RX_MAX_PATTERN :
				    (int)num;
				return E_BACKREF;
			}
		}
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
			if (parse_gref(ps, byte) < 0)
				return E_ERROR;
			return E_BACKREF;
		case 'k':
			if (ps->p < ps->end && (*ps->p == '<' ||
			    *ps->p == '\'' || *ps->p == '{')) {
				v = *ps->p++;
				if (parse_name(ps, v == '<' ? '>' :
				    v == '{' ? '}' : '\'') < 0)
					return E_ERROR;
				*byte = -1;
				return E_BACKREF;
			}
			fail(ps, "\\k is not followed by a name in <>, '' "
			    "or {}");
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
			    "(atomic groups, conditionals and recursion are "
			    "not supported)");
			return -1;
		}
		if (neg)
			*flags &= ~bit;
		else
			*flags |= bit;
		ps->p++;
	}
}

/* A back-reference node to GROUP (-1: by the name just read). */
static int
backref_node(struct parser *ps, int group, size_t off)
{
	int n = new_node(ps, N_BACKREF);

	ps->nodes[n].arg = group;
	ps->nodes[n].caseless = (ps->flags & RX_CASELESS) != 0;
	ps->nodes[n].off = off;
	if (group < 0) {
		ps->nodes[n].name_off = ps->ref_off;
		ps->nodes[n].name_len = ps->ref_len;
	}
	ps->has_backref = 1;
	return n;
}

static uint32_t
name_hash(const unsigned char *name, size_t len)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	while (len-- > 0)
		h = (h ^ *name++) * 16777619u;
	return h;
}

/*
 * The index in ps->names of the name at pattern offset OFF, LEN bytes
 * long, or -1.  Names are hashed so that a pattern of thousands of them
 * does not cost a quadratic number of comparisons.
 */
static int
find_name(const struct parser *ps, size_t off, size_t len)
{
	uint32_t h;
	int i;

	if (ps->hashcap == 0)
		return -1;
	h = name_hash(ps->pat + off, len) & (ps->hashcap - 1);
	for (; (i = ps->name_hash[h]) >= 0; h = (h + 1) & (ps->hashcap - 1))
		if (ps->names[i].len == len && memcmp(ps->pat +
		    ps->names[i].off, ps->pat + off, len) == 0)
			return i;
	return -1;
}

/* Remember the name just read for GROUP; PCRE refuses a second use. */
static int
add_name(struct parser *ps, int group)
{
	uint32_t h;
	int i;

	if (find_name(ps, ps->ref_off, ps->ref_len) >= 0) {
		fail(ps, "two named groups have the same name");
		return -1;
	}
	if (ps->nnames == ps->capnames) {
		ps->capnames = ps->capnames ? 2 * ps->capnames : 8;
		ps->names = xreallocarray(ps->names, ps->capnames,
		    sizeof(*ps->names));
	}
	ps->names[ps->nnames].off = ps->ref_off;
	ps->names[ps->nnames].len = ps->ref_len;
	ps->names[ps->nnames].group = group;
	ps->nnames++;
	if (2 * ps->nnames > ps->hashcap) {
		/* Keep it at most half full: rehash at twice the size. */
		ps->hashcap = ps->hashcap ? 2 * ps->hashcap : 16;
		free(ps->name_hash);
		ps->name_hash = xreallocarray(NULL, ps->hashcap, sizeof(int));
		for (i = 0; i < ps->hashcap; i++)
			ps->name_hash[i] = -1;
		for (i = 0; i < ps->nnames; i++) {
			h = name_hash(ps->pat + ps->names[i].off,
			    ps->names[i].len) & (ps->hashcap - 1);
			while (ps->name_hash[h] >= 0)
				h = (h + 1) & (ps->hashcap - 1);
			ps->name_hash[h] = i;
		}
	} else {
		h = name_hash(ps->pat + ps->ref_off, ps->ref_len) &
		    (ps->hashcap - 1);
		while (ps->name_hash[h] >= 0)
			h = (h + 1) & (ps->hashcap - 1);
		ps->name_hash[h] = ps->nnames - 1;
	}
	return 0;
}

/*
 * A group; ps->p is past the "(".  Returns its node, or -2 for an
 * inline option setting "(?i)" that changed ps->flags and made nothing.
 */
static int
parse_group(struct parser *ps)
{
	int capture = 1, flags = ps->flags, saved = ps->flags, g = 0;
	int body, n, look = -1, named = 0;
	size_t off = (size_t)(ps->p - 1 - ps->pat);

	if (ps->p < ps->end && *ps->p == '*') {
		fail(ps, "(*VERB) is not supported");
		return -1;
	}
	if (ps->p < ps->end && *ps->p == '?') {
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
			look = *ps->p == '!' ? 1 : 0;
			ps->p++;
			break;
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
			else if (ps->p < ps->end && *ps->p == '=') {
				/* (?P=name): a back-reference. */
				ps->p++;
				if (parse_name(ps, ')') < 0)
					return -1;
				return backref_node(ps, -1, off);
			} else {
				fail(ps, "recursion and subroutine calls are "
				    "not supported");
				return -1;
			}
			break;
		case '<':
			if (ps->p + 1 < ps->end &&
			    (ps->p[1] == '=' || ps->p[1] == '!')) {
				look = ps->p[1] == '!' ? 3 : 2;
				ps->p += 2;
				break;
			}
			close = '>';
			break;
		case '\'':
			close = '\'';
			break;
		}
		if (close) {
			ps->p++;
			if (parse_name(ps, close) < 0)
				return -1;
			named = 1;
		} else if (look < 0) {
			int c = parse_flags(ps, &flags);

			if (c < 0)
				return -1;
			if (c == ')') {
				ps->flags = flags;
				return -2;
			}
			capture = 0;
		} else
			capture = 0;
	}
	if (capture) {
		g = ++ps->ngroups;
		if (named && add_name(ps, g) < 0)
			return -1;
	}
	if (look >= 0) {
		if (ps->nlooks >= RX_MAX_LOOK) {
			fail(ps, "too many look-around assertions (limit "
			    "RX_MAX_LOOK = 64)");
			return -1;
		}
		ps->looks = xreallocarray(ps->looks, ps->nlooks + 1,
		    sizeof(*ps->looks));
		ps->look_node = xreallocarray(ps->look_node, ps->nlooks + 1,
		    sizeof(int));
		memset(&ps->looks[ps->nlooks], 0, sizeof(*ps->looks));
		ps->looks[ps->nlooks].behind = look >= 2;
		ps->looks[ps->nlooks].neg = look & 1;
		ps->looks[ps->nlooks].g0 = ps->ngroups;
		look = ps->nlooks++;
	}
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
	if (look >= 0) {
		ps->looks[look].g1 = ps->ngroups;
		n = new_node(ps, N_LOOK);
		ps->nodes[n].arg = look;
		ps->nodes[n].off = off;
		add_kid(ps, n, body);
		ps->look_node[look] = n;
		return n;
	}
	if (!capture)
		return body;
	n = new_node(ps, N_GROUP);
	ps->nodes[n].arg = g;
	add_kid(ps, n, body);
	if (g >= ps->capgroups) {
		ps->capgroups = 2 * g + 16;
		ps->group_node = xreallocarray(ps->group_node, ps->capgroups,
		    sizeof(int));
	}
	ps->group_node[g] = n;
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
			if (e == E_BACKREF) {
				atom = backref_node(ps, b, (size_t)(ps->p -
				    ps->pat));
			} else if (e == E_SET) {
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
	ps->prog[ps->nprog].loop = ps->loop;
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
	int outer = ps->loop;

	for (i = 0; i < nd->min && !ps->failed; i++)
		if (nd->max >= 0 || i + 1 < nd->min)
			compile_node(ps, kid);
	if (ps->failed)
		return;
	if (nd->max < 0) {
		/* A scan only asks whether a match exists: no registers. */
		if (!ps->nosave && ps->nregs < ps->maxregs &&
		    nullable(ps, kid)) {
			if (ps->nregs == ps->caploops) {
				ps->caploops = 2 * ps->caploops + 16;
				ps->loop_parent = xreallocarray(
				    ps->loop_parent, ps->caploops,
				    sizeof(int));
			}
			reg = ps->nregs++;
			ps->loop_parent[reg] = outer;
		}
		if (nd->min > 0) {
			/*
			 * The last required copy loops:
			 * top: [mark r] x [progress r, out] split top, out
			 */
			top = ps->nprog;
			if (reg >= 0 && emit(ps, I_MARK, reg, 0) < 0)
				return;
			if (reg >= 0)
				ps->loop = reg;
			compile_node(ps, kid);
			if (reg >= 0 &&
			    (progress = emit(ps, I_PROGRESS, reg, 0)) < 0)
				return;
			ps->loop = outer;
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
			if (reg >= 0)
				ps->loop = reg;
			compile_node(ps, kid);
			if (reg >= 0 &&
			    (progress = emit(ps, I_PROGRESS, reg, 0)) < 0)
				return;
			ps->loop = outer;
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
			compile_node(ps, nd->kids[ps->reverse ?
			    nd->nkids - 1 - i : i]);
		break;
	case N_GROUP:
		if (!ps->nosave)
			emit(ps, I_SAVE, 2 * nd->arg, 0);
		compile_node(ps, nd->kids[0]);
		if (!ps->nosave)
			emit(ps, I_SAVE, 2 * nd->arg + 1, 0);
		break;
	case N_LOOK:
		/* Its body is a program of its own (compile_looks). */
		emit(ps, I_LOOK, nd->arg, 0);
		break;
	case N_BACKREF:
		emit(ps, I_BACKREF, nd->arg, nd->caseless);
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
		case I_BACKREF:		/* any bytes, or none */
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

/*
 * Dedupe slots.  A thread's future at an instruction that consumes
 * nothing depends, besides the instruction, on which of the loops
 * around it began their current iteration at this very position (an
 * empty iteration leaves the loop).  If an outer one did, every inner
 * one did too, so that state is how many of the loops, from the
 * innermost outwards, began here: 0 to the number of loops around the
 * instruction, each its own slot.  A thread about to consume a byte has
 * one slot: once the byte is consumed, no loop began at the new
 * position.
 */
static void
mark_slots(struct rx *rx)
{
	int pc, r;
	size_t n = 0;

	rx->markbase = xreallocarray(NULL, rx->nprog, sizeof(size_t));
	for (pc = 0; pc < rx->nprog; pc++) {
		rx->markbase[pc] = n++;
		if (rx->prog[pc].op == I_SET || rx->prog[pc].op == I_MATCH)
			continue;
		for (r = rx->prog[pc].loop; r >= 0; r = rx->loop_parent[r])
			n++;
	}
	rx->nmarks = n;
}

/*
 * The length of every string node N matches, -1 when they differ (as
 * PCRE has it for a look-behind: an alternation inside must have one
 * length, a back-reference the length of a group of one length).
 * GLEN holds each group's length once measured (-2: not yet, -3: being
 * measured, so that a group holding a reference to itself is found
 * variable rather than measured forever, and references to references
 * cost one measure each, not an exponential number).
 */
static long
fixed_len(struct parser *ps, int n, long *glen)
{
	const struct node *nd = &ps->nodes[n];
	long len, k;
	int i, g;

	switch (nd->type) {
	case N_SET:
		return 1;
	case N_CAT:
		for (i = 0, len = 0; i < nd->nkids; i++) {
			if ((k = fixed_len(ps, nd->kids[i], glen)) < 0)
				return -1;
			len += k;
			if (len > RX_MAX_PATTERN * 1000L)
				return -1;
		}
		return len;
	case N_ALT:
		len = -1;
		for (i = 0; i < nd->nkids; i++) {
			k = fixed_len(ps, nd->kids[i], glen);
			if (k < 0 || (i > 0 && k != len))
				return -1;
			len = k;
		}
		return len;
	case N_REP:
		if ((k = fixed_len(ps, nd->kids[0], glen)) < 0)
			return -1;
		if (k == 0)
			return 0;
		if (nd->min != nd->max)
			return -1;
		return k * nd->min > RX_MAX_PATTERN * 1000L ? -1 :
		    k * nd->min;
	case N_GROUP:
		return fixed_len(ps, nd->kids[0], glen);
	case N_BACKREF:
		g = nd->arg;
		if (glen[g] == -3)
			return -1;
		if (glen[g] == -2) {
			glen[g] = -3;
			glen[g] = fixed_len(ps, ps->group_node[g], glen);
		}
		return glen[g];
	default:
		return 0;	/* empty, assertions, look-arounds */
	}
}

/* Whether node N (looks inside included) depends on \G. */
static int
uses_start(struct parser *ps, int n)
{
	const struct node *nd = &ps->nodes[n];
	int i;

	if (nd->type == N_ASSERT)
		return nd->arg == A_START;
	for (i = 0; i < nd->nkids; i++)
		if (uses_start(ps, nd->kids[i]))
			return 1;
	return 0;
}

/* The error at pattern offset OFF, for checks after the parse. */
static void
fail_at(struct parser *ps, size_t off, const char *what)
{
	ps->p = ps->pat + off;
	fail(ps, what);
}

/*
 * After the parse: names to numbers, references to groups that exist,
 * the look-behinds' lengths.  0, or -1 (failed).
 */
static int
check_tree(struct parser *ps)
{
	struct node *nd;
	long len, *glen;
	int i, j, body, kids, *kid;

	for (i = 0; i < ps->nnodes; i++) {
		nd = &ps->nodes[i];
		if (nd->type != N_BACKREF)
			continue;
		if (nd->arg < 0) {
			if ((j = find_name(ps, nd->name_off,
			    nd->name_len)) >= 0)
				nd->arg = ps->names[j].group;
			if (nd->arg < 0) {
				fail_at(ps, nd->off, "reference to a group "
				    "name that does not exist");
				return -1;
			}
		}
		if (nd->arg > ps->ngroups) {
			fail_at(ps, nd->off, "reference to a group that does "
			    "not exist");
			return -1;
		}
	}
	glen = xreallocarray(NULL, (size_t)ps->ngroups + 1, sizeof(long));
	for (i = 0; i <= ps->ngroups; i++)
		glen[i] = -2;
	for (i = 0; i < ps->nlooks; i++) {
		struct look *lk = &ps->looks[i];

		body = ps->nodes[ps->look_node[i]].kids[0];
		lk->uses_start = uses_start(ps, body);
		kids = 1;
		kid = &ps->nodes[ps->look_node[i]].kids[0];
		if (ps->nodes[body].type == N_ALT) {
			kids = ps->nodes[body].nkids;
			kid = ps->nodes[body].kids;
		}
		lk->nbranch = kids;
		lk->branch = xcalloc(kids, sizeof(int));
		lk->blen = xcalloc(kids, sizeof(int));
		for (j = 0; j < kids; j++) {
			/* The branches' node numbers, for compile_looks. */
			lk->branch[j] = kid[j];
			if (!lk->behind)
				continue;
			if ((len = fixed_len(ps, kid[j], glen)) < 0) {
				free(glen);
				fail_at(ps, ps->nodes[ps->look_node[i]].off,
				    "lookbehind assertion is not fixed length");
				return -1;
			}
			lk->blen[j] = (int)len;
		}
	}
	free(glen);
	return 0;
}

/*
 * The looks' programs, after the main one: for the Pike VM a scan
 * program (no captures; a look-ahead's reversed, to run right to left),
 * and for either matcher each branch anchored, with captures.
 */
static void
compile_looks(struct parser *ps)
{
	int i, j, node;

	for (i = 0; i < ps->nlooks && !ps->failed; i++) {
		struct look *lk = &ps->looks[i];

		lk->scan = -1;
		if (!ps->has_backref) {
			lk->scan = ps->nprog;
			ps->nosave = 1;
			ps->reverse = !lk->behind;
			compile_node(ps, ps->nodes[ps->look_node[i]].kids[0]);
			ps->nosave = ps->reverse = 0;
			emit(ps, I_MATCH, 0, 0);
		}
		for (j = 0; j < lk->nbranch && !ps->failed; j++) {
			node = lk->branch[j];
			lk->branch[j] = ps->nprog;
			compile_node(ps, node);
			emit(ps, I_MATCH, 0, 0);
		}
	}
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
	ps.loop = -1;
	root = parse_alt(&ps);
	if (root >= 0 && ps.p < ps.end) {
		/* Only an unmatched ")" stops the top level early. */
		fail(&ps, "unmatched )");
	}
	if (!ps.failed)
		check_tree(&ps);
	if (flags & RX_BACKTRACK)
		ps.has_backref = 1;
	ps.maxregs = ps.has_backref ? RX_MAX_PROG : RX_MAX_LOOPREGS;
	if (!ps.failed) {
		emit(&ps, I_SAVE, 0, 0);
		compile_node(&ps, root);
		emit(&ps, I_SAVE, 1, 0);
		emit(&ps, I_MATCH, 0, 0);
		compile_looks(&ps);
	}
	if (!ps.failed) {
		rx = xcalloc(1, sizeof(*rx));
		rx->prog = ps.prog;
		rx->nprog = ps.nprog;
		rx->sets = ps.sets;
		rx->nsets = ps.nsets;
		rx->ngroups = ps.ngroups;
		rx->nregs = ps.nregs;
		rx->loop_parent = ps.loop_parent;
		rx->looks = ps.looks;
		rx->nlooks = ps.nlooks;
		rx->backtrack = ps.has_backref;
		for (i = 0; i < ps.nlooks; i++) {
			struct look *lk = &rx->looks[i];

			lk->slot = -1;
			if (!lk->neg && lk->g1 > lk->g0)
				lk->slot = rx->nlookslots++;
		}
		mark_slots(rx);
		for (i = 0; i < ps.nprog; i++)
			if (ps.prog[i].op == I_SET || ps.prog[i].op == I_MATCH)
				rx->nthreads++;
		rx->anchored = ps.nprog > 1 && ps.prog[1].op == I_ASSERT &&
		    (ps.prog[1].x == A_BOS || ps.prog[1].x == A_START);
		ps.prog = NULL;
		ps.sets = NULL;
		ps.loop_parent = NULL;
		ps.looks = NULL;
		ps.nlooks = 0;
		first_bytes(rx);
	}
	for (i = 0; i < ps.nnodes; i++)
		free(ps.nodes[i].kids);
	for (i = 0; i < ps.nlooks; i++) {
		free(ps.looks[i].branch);
		free(ps.looks[i].blen);
	}
	free(ps.looks);
	free(ps.look_node);
	free(ps.names);
	free(ps.name_hash);
	free(ps.group_node);
	free(ps.loop_parent);
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
	int i;

	if (rx == NULL)
		return;
	for (i = 0; i < rx->nlooks; i++) {
		free(rx->looks[i].branch);
		free(rx->looks[i].blen);
	}
	free(rx->looks);
	free(rx->loop_parent);
	free(rx->prog);
	free(rx->sets);
	free(rx->markbase);
	free(rx);
}

size_t
rx_ngroups(const struct rx *rx)
{
	return rx->ngroups;
}

/*
 * What the searches of one call share: the subject, the look-arounds'
 * tables and the backtracker's budget.  rx_subst keeps one across its
 * searches, so that a global replacement tabulates each look-around once
 * and all its searches draw on one budget.
 */
struct ctx {
	const struct rx *rx;
	const unsigned char *s;
	size_t	 len;
	size_t	 gstart;	/* \G: where the current search began */
	uint8_t	**table;	/* per look: a bit per position, or NULL */
	unsigned long steps;	/* the backtracker's so far */
};

static void
ctx_init(struct ctx *c, const struct rx *rx, const char *s, size_t len)
{
	memset(c, 0, sizeof(*c));
	c->rx = rx;
	c->s = (const unsigned char *)s;
	c->len = len;
	if (rx->nlooks > 0)
		c->table = xcalloc(rx->nlooks, sizeof(*c->table));
}

static void
ctx_free(struct ctx *c)
{
	int i;

	for (i = 0; c->table != NULL && i < c->rx->nlooks; i++)
		free(c->table[i]);
	free(c->table);
}

/* A search from START begins: the tables that depend on \G are stale. */
static void
ctx_start(struct ctx *c, size_t start)
{
	int i;

	c->gstart = start;
	for (i = 0; c->table != NULL && i < c->rx->nlooks; i++)
		if (c->rx->looks[i].uses_start) {
			free(c->table[i]);
			c->table[i] = NULL;
		}
}

static int
assert_holds(const struct ctx *c, int kind, size_t pos)
{
	const unsigned char *s = c->s;
	size_t len = c->len;
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
		return pos == c->gstart;
	case A_WORDB:
	case A_NWORDB:
		before = pos > 0 && is_word(s[pos - 1]);
		after = pos < len && is_word(s[pos]);
		return (before != after) == (kind == A_WORDB);
	}
	return 0;
}

/* One run of the Pike VM. */
struct tlist {
	int	 n;
	int	*pc;
	size_t	*caps;		/* n x nslot */
};

struct vm {
	struct ctx *ctx;
	const struct rx *rx;
	int	 ncap;		/* capture slots tracked */
	int	 nslot;		/* those, the loop registers, the look slots */
	int	 lookbase;	/* the first look slot, or -1: none tracked */
	size_t	*mark;		/* per mark slot: position+1 last added */
	struct frame {
		int	 pc;	/* -1: restore slot k to old */
		int	 k;
		size_t	 old;
	} *stack;
	size_t	*work;		/* the captures being built */
	size_t	*init;		/* all unset */
	struct tlist a, b;
};

static void
vm_init(struct vm *vm, struct ctx *c, int ncap, int track)
{
	const struct rx *rx = c->rx;
	int k;

	memset(vm, 0, sizeof(*vm));
	vm->ctx = c;
	vm->rx = rx;
	vm->ncap = ncap;
	vm->nslot = ncap + rx->nregs;
	vm->lookbase = -1;
	if (track && rx->nlookslots > 0) {
		vm->lookbase = vm->nslot;
		vm->nslot += rx->nlookslots;
	}
	vm->mark = xcalloc(rx->nmarks, sizeof(size_t));
	/*
	 * Each mark slot is taken once and pushes at most two frames; a
	 * progress test pops one and pushes one.
	 */
	vm->stack = xreallocarray(NULL, 2 * rx->nmarks + 2,
	    sizeof(*vm->stack));
	vm->work = xreallocarray(NULL, vm->nslot + 1, sizeof(size_t));
	vm->init = xreallocarray(NULL, vm->nslot + 1, sizeof(size_t));
	for (k = 0; k < vm->nslot; k++)
		vm->init[k] = RX_UNSET;
	vm->a.pc = xreallocarray(NULL, rx->nthreads, sizeof(int));
	vm->b.pc = xreallocarray(NULL, rx->nthreads, sizeof(int));
	vm->a.caps = xreallocarray(NULL, (size_t)rx->nthreads * vm->nslot + 1,
	    sizeof(size_t));
	vm->b.caps = xreallocarray(NULL, (size_t)rx->nthreads * vm->nslot + 1,
	    sizeof(size_t));
}

static void
vm_free(struct vm *vm)
{
	free(vm->mark);
	free(vm->stack);
	free(vm->work);
	free(vm->init);
	free(vm->a.pc);
	free(vm->b.pc);
	free(vm->a.caps);
	free(vm->b.caps);
}

static void scan_look(struct ctx *, int);

/* Whether look K's body matches at POS (its sign not applied). */
static int
look_holds(struct ctx *c, int k, size_t pos)
{
	if (c->table[k] == NULL)
		scan_look(c, k);
	return (c->table[k][pos >> 3] >> (pos & 7)) & 1;
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
	const struct look *lk;
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
			size_t slot = vm->rx->markbase[pc];
			int r;

			if (prog[pc].op != I_SET && prog[pc].op != I_MATCH)
				for (r = prog[pc].loop; r >= 0 &&
				    vm->work[vm->ncap + r] == pos;
				    r = vm->rx->loop_parent[r])
					slot++;
			if (vm->mark[slot] == pos + 1)
				continue;
			vm->mark[slot] = pos + 1;
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
			if (assert_holds(vm->ctx, prog[pc].x, pos))
				vm->stack[sp++].pc = pc + 1;
			break;
		case I_LOOK:
			lk = &vm->rx->looks[prog[pc].x];
			if (look_holds(vm->ctx, prog[pc].x, pos) == lk->neg)
				break;
			if (vm->lookbase >= 0 && lk->slot >= 0) {
				/* Where it held: its captures, later. */
				k = vm->lookbase + lk->slot;
				vm->stack[sp].pc = -1;
				vm->stack[sp].k = k;
				vm->stack[sp].old = vm->work[k];
				sp++;
				vm->work[k] = pos;
			}
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
		case I_BACKREF:
			/* Never in a program the Pike VM runs. */
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
 * Tabulate look K over the whole subject: its scan program run with a
 * thread started at every position, left to right for a look-behind
 * (it holds where a match ends), right to left over the reversed body
 * for a look-ahead (it holds where a match of the reversed body ends).
 * The cost is that of one search: O(program size x subject length).
 */
static void
scan_look(struct ctx *c, int k)
{
	const struct rx *rx = c->rx;
	const struct look *lk = &rx->looks[k];
	struct vm vm;
	struct tlist *clist, *nlist, *t;
	uint8_t *tab;
	size_t pos;
	int i, fwd = lk->behind, b;

	tab = xcalloc(c->len / 8 + 1, 1);
	vm_init(&vm, c, 0, 0);
	clist = &vm.a;
	nlist = &vm.b;
	pos = fwd ? 0 : c->len;
	for (;;) {
		add_thread(&vm, clist, lk->scan, pos, vm.init);
		nlist->n = 0;
		for (i = 0; i < clist->n; i++) {
			const struct inst *in = &rx->prog[clist->pc[i]];

			if (in->op == I_MATCH) {
				tab[pos >> 3] |= 1u << (pos & 7);
				continue;
			}
			if (fwd ? pos >= c->len : pos == 0)
				continue;
			b = c->s[fwd ? pos : pos - 1];
			if (set_has(rx->sets[in->x], b))
				add_thread(&vm, nlist, clist->pc[i] + 1,
				    fwd ? pos + 1 : pos - 1,
				    &clist->caps[(size_t)i * vm.nslot]);
		}
		t = clist;
		clist = nlist;
		nlist = t;
		if (fwd ? pos == c->len : pos == 0)
			break;
		pos = fwd ? pos + 1 : pos - 1;
	}
	vm_free(&vm);
	c->table[k] = tab;
}

/*
 * Run the program at ENTRY from FROM and, unless ANCHORED, from every
 * later position; with NONEMPTY a match must not be empty.  Returns 1
 * with the winning thread's slots in OUT (vm->nslot of them), else 0.
 */
static int
pike_run(struct vm *vm, int entry, size_t from, int anchored, int nonempty,
    size_t *out)
{
	const struct rx *rx = vm->rx;
	const unsigned char *s = vm->ctx->s;
	size_t len = vm->ctx->len, pos;
	struct tlist *clist = &vm->a, *nlist = &vm->b, *t;
	int matched = 0, k, skip = entry == 0 && rx->has_first && !anchored;

	clist->n = nlist->n = 0;
	for (pos = from;; pos++) {
		/* A thread starting here ranks below every earlier one. */
		if (!matched && clist->n == 0 && skip) {
			/* Nothing alive: on to a byte that can begin one. */
			while (pos < len && !set_has(rx->first, s[pos]))
				pos++;
			if (pos >= len)
				break;
		}
		if (!matched && (pos == from || !anchored))
			add_thread(vm, clist, entry, pos, vm->init);
		else if (clist->n == 0)
			break;
		nlist->n = 0;
		for (k = 0; k < clist->n; k++) {
			const struct inst *in = &rx->prog[clist->pc[k]];
			size_t *caps = &clist->caps[(size_t)k * vm->nslot];

			if (in->op == I_MATCH) {
				if (nonempty && pos == from)
					continue;
				matched = 1;
				memcpy(out, caps, vm->nslot * sizeof(size_t));
				/* Lower-priority threads can only lose. */
				break;
			}
			if (pos < len && set_has(rx->sets[in->x], s[pos]))
				add_thread(vm, nlist, clist->pc[k] + 1,
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
	return matched;
}

/*
 * The groups (below NCAP / 2) that the positive look-arounds of a
 * match captured: for each one SLOTS says held (at the position where
 * the match last passed it), its body is matched anchored there, as
 * PCRE does on its way, and what that match captured goes into SLOTS.
 * Only the winning thread pays for this, once per look-around.
 */
static void
resolve_looks(struct ctx *c, size_t *slots, int ncap, int lookbase)
{
	const struct rx *rx = c->rx;
	struct vm sub;
	size_t pos, *got;
	int k, b, g;

	for (k = 0; k < rx->nlooks; k++) {
		const struct look *lk = &rx->looks[k];

		if (lk->slot < 0 || 2 * (lk->g0 + 1) >= ncap ||
		    (pos = slots[lookbase + lk->slot]) == RX_UNSET)
			continue;
		vm_init(&sub, c, ncap, 1);
		got = xreallocarray(NULL, sub.nslot + 1, sizeof(size_t));
		for (b = 0; b < lk->nbranch; b++) {
			if (pos < (size_t)lk->blen[b] ||
			    !pike_run(&sub, lk->branch[b],
			    pos - lk->blen[b], 1, 0, got))
				continue;
			if (sub.lookbase >= 0)
				resolve_looks(c, got, ncap, sub.lookbase);
			for (g = lk->g0 + 1; g <= lk->g1 && 2 * g + 1 < ncap;
			    g++)
				if (got[2 * g] != RX_UNSET &&
				    got[2 * g + 1] != RX_UNSET) {
					slots[2 * g] = got[2 * g];
					slots[2 * g + 1] = got[2 * g + 1];
				}
			break;
		}
		free(got);
		vm_free(&sub);
	}
}

/*
 * The backtracking matcher, for patterns with back-references.  Its
 * slots: the captures (2 per group, group 0 first), then each group's
 * pending start (a group's capture changes when it closes, so that a
 * reference inside it sees the previous iteration's, as in PCRE), then
 * the loop registers.  Every assignment is logged on the stack below
 * the choice points, to be undone on the way back.
 */
struct bt {
	struct ctx *ctx;
	const struct rx *rx;
	size_t	*slot;
	int	 pend, regs;
	struct btframe {
		int	 pc;	/* a choice: resume here; -1: undo slot k */
		int	 k;
		size_t	 v;	/* the choice's position, the slot's value */
	} *stack;
	size_t	 sp, cap;
};

static int
bt_push(struct bt *bt, int pc, int k, size_t v)
{
	if (bt->sp == bt->cap) {
		if (bt->cap >= RX_MAX_FRAMES)
			return -1;
		bt->cap = bt->cap ? 2 * bt->cap : 256;
		bt->stack = xreallocarray(bt->stack, bt->cap,
		    sizeof(*bt->stack));
	}
	bt->stack[bt->sp].pc = pc;
	bt->stack[bt->sp].k = k;
	bt->stack[bt->sp].v = v;
	bt->sp++;
	return 0;
}

static int
bt_set(struct bt *bt, int k, size_t v)
{
	if (bt_push(bt, -1, k, bt->slot[k]) < 0)
		return -1;
	bt->slot[k] = v;
	return 0;
}

/* Drop the frames above BASE, undoing their assignments. */
static void
bt_unwind(struct bt *bt, size_t base)
{
	while (bt->sp > base) {
		bt->sp--;
		if (bt->stack[bt->sp].pc < 0)
			bt->slot[bt->stack[bt->sp].k] = bt->stack[bt->sp].v;
	}
}

static int
fold(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/*
 * The text group G captured, again at *POS (ignoring ASCII case when
 * CASELESS): 1 and *POS past it, or 0.  A group that has not captured
 * matches nothing (PCRE's default).
 */
static int
bt_backref(struct bt *bt, int g, int caseless, size_t *pos)
{
	const unsigned char *s = bt->ctx->s;
	size_t so = bt->slot[2 * g], eo = bt->slot[2 * g + 1], n, i;

	if (so == RX_UNSET || eo == RX_UNSET)
		return 0;
	n = eo - so;
	if (n > bt->ctx->len - *pos)
		return 0;
	/* A long comparison is many steps' work: it counts as such. */
	bt->ctx->steps += n / 4;
	for (i = 0; i < n; i++)
		if (s[so + i] != s[*pos + i] && (!caseless ||
		    fold(s[so + i]) != fold(s[*pos + i])))
			return 0;
	*pos += n;
	return 1;
}

static int bt_look(struct bt *, int, size_t);

/*
 * Match the program at PC from POS by backtracking.  A match that ends
 * at NOTEMPTY is refused (RX_UNSET: none is).  Returns 1 with the end in
 * *END (the frames it pushed stay above, for the caller to drop or keep),
 * 0 with every frame it pushed undone, -1 when the budget or the stack
 * is spent.
 */
static int
bt_run(struct bt *bt, int pc, size_t pos, size_t notempty, size_t *end)
{
	const struct rx *rx = bt->rx;
	const struct ctx *c = bt->ctx;
	const struct inst *in;
	size_t base = bt->sp;
	int ok, r, g;

	for (;;) {
		/* Past the budget the answer is an error (regex_pcre.h). */
		if (++bt->ctx->steps > RX_MAX_STEPS)
			return -1;
		in = &rx->prog[pc];
		ok = 1;
		switch (in->op) {
		case I_SET:
			ok = pos < c->len && set_has(rx->sets[in->x],
			    c->s[pos]);
			pos++;
			pc++;
			break;
		case I_JMP:
			pc = in->x;
			break;
		case I_SPLIT:
			if (bt_push(bt, in->y, 0, pos) < 0)
				return -1;
			pc = in->x;
			break;
		case I_SAVE:
			g = in->x / 2;
			if (in->x & 1) {
				if (bt_set(bt, 2 * g, bt->slot[bt->pend + g]) <
				    0 || bt_set(bt, 2 * g + 1, pos) < 0)
					return -1;
			} else if (bt_set(bt, bt->pend + g, pos) < 0)
				return -1;
			pc++;
			break;
		case I_ASSERT:
			ok = assert_holds(c, in->x, pos);
			pc++;
			break;
		case I_MARK:
			if (bt_set(bt, bt->regs + in->x, pos) < 0)
				return -1;
			pc++;
			break;
		case I_PROGRESS:
			pc = bt->slot[bt->regs + in->x] == pos ? in->y :
			    pc + 1;
			break;
		case I_BACKREF:
			ok = bt_backref(bt, in->x, in->y, &pos);
			pc++;
			break;
		case I_LOOK:
			if ((r = bt_look(bt, in->x, pos)) < 0)
				return -1;
			ok = r;
			pc++;
			break;
		case I_MATCH:
			if (pos == notempty) {
				ok = 0;
				break;
			}
			*end = pos;
			return 1;
		}
		if (ok)
			continue;
		/* Back to the last choice, undoing what came after it. */
		for (;;) {
			if (bt->sp == base)
				return 0;
			bt->sp--;
			if (bt->stack[bt->sp].pc >= 0) {
				pc = bt->stack[bt->sp].pc;
				pos = bt->stack[bt->sp].v;
				break;
			}
			bt->slot[bt->stack[bt->sp].k] = bt->stack[bt->sp].v;
		}
	}
}

/*
 * Whether look K holds at POS: its branches in turn, each anchored its
 * length before POS.  As in PCRE it is atomic: the first match of its
 * body decides, with no return into it, and a positive one keeps what
 * it captured.  1, 0, or -1 (budget spent).
 */
static int
bt_look(struct bt *bt, int k, size_t pos)
{
	const struct look *lk = &bt->rx->looks[k];
	size_t base = bt->sp, end, i, j;
	int b, r, found = 0;

	for (b = 0; b < lk->nbranch && !found; b++) {
		if (pos < (size_t)lk->blen[b])
			continue;
		r = bt_run(bt, lk->branch[b], pos - lk->blen[b], RX_UNSET,
		    &end);
		if (r < 0)
			return -1;
		if (r == 1 && lk->behind && end != pos) {
			bt_unwind(bt, base);	/* cannot be: fixed length */
			r = 0;
		}
		found = r;
	}
	if (found && !lk->neg) {
		/* Its choices go; its assignments stay, undoable. */
		for (i = j = base; i < bt->sp; i++)
			if (bt->stack[i].pc < 0)
				bt->stack[j++] = bt->stack[i];
		bt->sp = j;
		return 1;
	}
	bt_unwind(bt, base);
	return found != lk->neg;
}

/*
 * A search by backtracking from START (each later position in turn
 * unless anchored).  1 with the captures in CAPS (2 per group, group 0
 * first), 0, or -1 when the budget or stack was spent.
 */
static int
bt_search(struct ctx *c, size_t start, int nonempty, size_t *caps)
{
	const struct rx *rx = c->rx;
	struct bt bt;
	size_t pos, end, n;
	int r = 0, anchored = rx->anchored || nonempty;

	memset(&bt, 0, sizeof(bt));
	bt.ctx = c;
	bt.rx = rx;
	bt.pend = 2 * (rx->ngroups + 1);
	bt.regs = bt.pend + rx->ngroups + 1;
	n = (size_t)bt.regs + rx->nregs;
	bt.slot = xreallocarray(NULL, n, sizeof(size_t));
	for (pos = 0; pos < n; pos++)
		bt.slot[pos] = RX_UNSET;
	for (pos = start; pos <= c->len; pos++) {
		if (!anchored && rx->has_first) {
			while (pos < c->len && !set_has(rx->first, c->s[pos]))
				pos++;
			if (pos >= c->len)
				break;
		}
		r = bt_run(&bt, 0, pos, nonempty ? start : RX_UNSET, &end);
		if (r != 0 || anchored)
			break;
	}
	if (r == 1)
		memcpy(caps, bt.slot, bt.pend * sizeof(size_t));
	free(bt.slot);
	free(bt.stack);
	return r;
}

/*
 * rx_search in context C, and with NONEMPTY a search for a match that
 * begins at START and is not empty (for global substitution after an
 * empty match).  1, 0, or -1: too costly.
 */
static int
search(struct ctx *c, size_t start, struct rx_match *groups,
    size_t ngroups, int nonempty)
{
	const struct rx *rx = c->rx;
	struct vm vm;
	size_t *best, i;
	int matched, ncap;

	if (start > c->len)
		return 0;
	ctx_start(c, start);
	if (rx->backtrack) {
		ncap = 2 * (rx->ngroups + 1);
		best = xreallocarray(NULL, ncap, sizeof(size_t));
		matched = bt_search(c, start, nonempty, best);
	} else {
		ncap = 2;
		if (ngroups > 1)
			ncap = 2 * (int)(ngroups - 1 < (size_t)rx->ngroups ?
			    ngroups : (size_t)rx->ngroups + 1);
		vm_init(&vm, c, ncap, ncap > 2);
		best = xreallocarray(NULL, vm.nslot + 1, sizeof(size_t));
		matched = pike_run(&vm, 0, start, rx->anchored || nonempty,
		    nonempty, best);
		if (matched && vm.lookbase >= 0)
			resolve_looks(c, best, ncap, vm.lookbase);
		vm_free(&vm);
	}
	if (matched == 1 && groups != NULL) {
		for (i = 0; i < ngroups; i++) {
			if ((int)(2 * i + 1) < ncap &&
			    best[2 * i] != RX_UNSET &&
			    best[2 * i + 1] != RX_UNSET) {
				groups[i].so = best[2 * i];
				groups[i].eo = best[2 * i + 1];
			} else
				groups[i].so = groups[i].eo = RX_UNSET;
		}
	}
	free(best);
	return matched;
}

int
rx_search(const struct rx *rx, const char *subject, size_t len,
    size_t start, struct rx_match *groups, size_t ngroups)
{
	struct ctx c;
	int r;

	ctx_init(&c, rx, subject, len);
	r = search(&c, start, groups, ngroups, 0);
	ctx_free(&c);
	return r;
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
	struct ctx c;
	struct buf out;
	size_t pos = 0, last = 0, count = 0;
	int after_empty = 0, r, err = 0;

	buf_init(&out);
	ctx_init(&c, rx, subject, len);
	while (pos <= len) {
		if (after_empty) {
			/*
			 * After an empty match, a non-empty one may start at
			 * the same place (PCRE and Perl); else step over a
			 * byte, keeping it.
			 */
			after_empty = 0;
			if ((r = search(&c, pos, m, 10, 1)) < 0) {
				err = ERANGE;
				break;
			}
			if (r == 0) {
				if (pos >= len)
					break;
				if (opts & RX_FULL)
					buf_add(&out, subject + pos, 1);
				last = ++pos;
				continue;
			}
		} else if ((r = search(&c, pos, m, 10, 0)) <= 0) {
			if (r < 0)
				err = ERANGE;
			break;
		}
		count++;
		if (opts & RX_FULL)
			buf_add(&out, subject + last, m[0].so - last);
		if (rx_expand(tmpl, subject, m, 10, &out) == -1) {
			err = EINVAL;
			break;
		}
		last = pos = m[0].eo;
		if (!(opts & RX_GLOBAL))
			break;
		after_empty = m[0].so == m[0].eo;
	}
	ctx_free(&c);
	if (nmatch != NULL)
		*nmatch = count;
	if (err) {
		buf_free(&out);
		errno = err;
		return NULL;
	}
	if (opts & RX_FULL)
		buf_add(&out, subject + last, len - last);
	if (outlen != NULL)
		*outlen = out.len;
	return buf_take(&out);
}
