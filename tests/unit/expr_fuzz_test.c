/*
 * expr_fuzz_test.c: a deterministic fuzz test of the expression parser
 * and evaluator and of the ad decoders.
 *
 * A fixed seed drives every input: random bytes, token soup, generated
 * expressions and mutations of them, hand-picked hostile texts (deep
 * nesting, huge numbers, unterminated strings), ad text, and hostile
 * struct ad_x values, both built by hand and decoded by XDR from random
 * bytes.  For every expression that parses, parse -> unparse -> parse ->
 * unparse must give the same text and evaluate to the same value.  The
 * run stops after a fixed number of rounds or, past a smaller fixed
 * number, about two seconds, which ever comes first, so it stays short
 * under valgrind too.
 *
 * checks: 8
 */
#include <rpc/rpc.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ad.h"
#include "buf.h"
#include "condor_types.h"
#include "expr.h"
#include "test.h"
#include "xalloc.h"

#define SEED		0x5eed0c0ffee1989ULL
#define MAX_ROUNDS	150000
#define MIN_ROUNDS	8192	/* run whatever the time */
#define TIME_LIMIT	2.0	/* seconds */
#define MAX_REPORTS	10	/* failures printed in full per check */

static uint64_t rng_state = SEED;

/* xorshift64*: small, fast and the same everywhere. */
static uint64_t
rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static size_t
pick(size_t n)
{
	return n ? (size_t)(rng() % n) : 0;
}

static const char *const names[] = {
	"a", "b", "c", "Memory", "ImageSize", "Owner", "Arch", "LoadAvg",
	"MY.a", "TARGET.b", "my.Memory", "target.ImageSize", "Self",
	"MINUTE", "Broken", "NoSuch", "x.y.z", "_u", "MY.", "TARGET.Self",
	"Ping", "Pong",
};

static const char *const tokens[] = {
	"(", ")", ",", "?", ":", "||", "&&", "==", "!=", "=?=", "=!=",
	"is", "isnt", "<", "<=", ">", ">=", "+", "-", "*", "/", "%", "!",
	"TRUE", "false", "UNDEFINED", "error", "0", "1", "-1", "2.5",
	"1e3", ".5", "1e308", "9223372036854775807",
	"9223372036854775808", "\"s\"", "\"\"", "\"a\\\"b\"", "\"\\n\"",
	"ifThenElse", "strcat", "size", "min", "max", "int", "real",
	"string", "floor", "round", "toUpper", "isUndefined", "time",
	"a", "MY.a", "TARGET.b", "Memory", "=", "&", "|", "\"", "\\", "@",
	"#", ".", "e", "1.", "1e", "-9223372036854775808",
};

static const struct {
	const char	*name;
	int		 args;	/* -1: any number */
} calls[] = {
	{ "ifThenElse", 3 }, { "isUndefined", 1 }, { "isError", 1 },
	{ "isString", 1 }, { "isInteger", 1 }, { "isReal", 1 },
	{ "isBoolean", 1 }, { "int", 1 }, { "real", 1 }, { "string", 1 },
	{ "floor", 1 }, { "ceiling", 1 }, { "round", 1 }, { "strcat", -1 },
	{ "size", 1 }, { "toLower", 1 }, { "toUpper", 1 }, { "min", -1 },
	{ "max", -1 },
};

static const char *const binops[] = {
	"||", "&&", "==", "!=", "=?=", "=!=", "is", "isnt", "<", "<=", ">",
	">=", "+", "-", "*", "/", "%",
};

static void
gen_string(struct buf *b)
{
	static const char *const pieces[] = {
		"a", "Z", " ", "\\\"", "\\\\", "\\n", "\\t", "\\r", "#", "=",
		"\xc3\xa9", "\x01", "'",
	};
	size_t i, n = pick(6);

	buf_addc(b, '"');
	for (i = 0; i < n; i++)
		buf_adds(b, pieces[pick(sizeof(pieces) / sizeof(pieces[0]))]);
	buf_addc(b, '"');
}

static void
gen_number(struct buf *b)
{
	uint64_t bits;
	double d;

	switch (pick(5)) {
	case 0:
		buf_printf(b, "%llu", (unsigned long long)pick(1000));
		break;
	case 1:
		buf_printf(b, "%llu", (unsigned long long)(rng() >> 1));
		break;
	case 2:
		/* Any finite double, subnormals included. */
		bits = rng();
		memcpy(&d, &bits, sizeof(d));
		if (d != d || d - d != 0)
			d = 1.5;
		buf_printf(b, "%.17g", d < 0 ? -d : d);
		break;
	case 3:
		buf_printf(b, "%llu.%llu", (unsigned long long)pick(100),
		    (unsigned long long)pick(100));
		break;
	default:
		buf_printf(b, "%llue%d", (unsigned long long)pick(10),
		    (int)pick(40) - 20);
		break;
	}
}

static void
gen_expr(struct buf *b, int depth)
{
	size_t i, n, k;

	if (depth <= 0 || pick(4) == 0) {
		switch (pick(5)) {
		case 0:
			gen_number(b);
			break;
		case 1:
			gen_string(b);
			break;
		case 2:
			buf_adds(b, pick(2) ? "TRUE" : pick(2) ? "FALSE" :
			    pick(2) ? "UNDEFINED" : "ERROR");
			break;
		default:
			buf_adds(b, names[pick(sizeof(names) /
			    sizeof(names[0]))]);
			break;
		}
		return;
	}
	switch (pick(6)) {
	case 0:
		buf_addc(b, '(');
		gen_expr(b, depth - 1);
		buf_addc(b, ')');
		break;
	case 1:
		buf_adds(b, pick(3) == 0 ? "!" : pick(2) ? "-" : "+");
		gen_expr(b, depth - 1);
		break;
	case 2:
		gen_expr(b, depth - 1);
		buf_adds(b, " ? ");
		gen_expr(b, depth - 1);
		buf_adds(b, " : ");
		gen_expr(b, depth - 1);
		break;
	case 3:
		k = pick(sizeof(calls) / sizeof(calls[0]));
		n = calls[k].args >= 0 ? (size_t)calls[k].args : 1 + pick(4);
		buf_adds(b, calls[k].name);
		buf_addc(b, '(');
		for (i = 0; i < n; i++) {
			if (i > 0)
				buf_adds(b, ", ");
			gen_expr(b, depth - 1);
		}
		buf_addc(b, ')');
		break;
	default:
		gen_expr(b, depth - 1);
		buf_printf(b, " %s ",
		    binops[pick(sizeof(binops) / sizeof(binops[0]))]);
		gen_expr(b, depth - 1);
		break;
	}
}

/* Change S in place a few times: flip, insert, delete, duplicate. */
static void
mutate(struct buf *b)
{
	static const char interesting[] = "()\"\\-+!=?:,.e0159aZ_ \t\n\x01\xff";
	size_t n = 1 + pick(4), i, at, len;
	char *copy;

	for (i = 0; i < n; i++) {
		at = pick(b->len + 1);
		switch (pick(4)) {
		case 0:
			if (b->len > 0 && at < b->len)
				b->data[at] = interesting[pick(
				    sizeof(interesting) - 1)];
			break;
		case 1:
			copy = xstrdup(b->data + at);
			b->len = at;
			buf_addc(b, interesting[pick(sizeof(interesting) - 1)]);
			buf_adds(b, copy);
			free(copy);
			break;
		case 2:
			len = pick(b->len - at + 1);
			memmove(b->data + at, b->data + at + len,
			    b->len - at - len + 1);
			b->len -= len;
			break;
		default:
			len = pick(b->len - at + 1);
			copy = xstrndup(b->data + at, len);
			buf_adds(b, copy);
			free(copy);
			break;
		}
	}
}

struct stats {
	unsigned long	 inputs;
	unsigned long	 parsed;
	unsigned long	 roundtrip_fail;
	unsigned long	 eval_fail;
	unsigned long	 error_fail;
	unsigned long	 ad_inputs;
	unsigned long	 ad_parsed;
	unsigned long	 ad_fail;
	unsigned long	 xdr_inputs;
	unsigned long	 xdr_accepted;
	unsigned long	 xdr_fail;
};

static struct stats st;
static struct ad *job, *machine;

static void
report(unsigned long *counter, const char *what, const char *text,
    const char *a, const char *b)
{
	struct buf e;
	const char *p;

	if (++*counter > MAX_REPORTS)
		return;
	buf_init(&e);
	for (p = text; *p != '\0' && e.len < 200; p++) {
		if ((unsigned char)*p < ' ' || (unsigned char)*p >= 0x7f)
			buf_printf(&e, "\\x%02x", (unsigned char)*p);
		else
			buf_addc(&e, *p);
	}
	printf("FAIL fuzz %s: input \"%s\"%s: \"%s\" vs \"%s\"\n", what,
	    e.data, *p ? "..." : "", a ? a : "(null)", b ? b : "(null)");
	buf_free(&e);
}

static int
time_dependent(const char *s)
{
	return strcasestr(s, "time") != NULL;
}

static char *
eval_print(const struct expr *e)
{
	struct value v;
	struct buf b;

	expr_eval(e, job, machine, &v);
	buf_init(&b);
	value_print(&v, &b);
	value_free(&v);
	/* And the other way round, for the swapped scopes. */
	expr_eval(e, machine, job, &v);
	buf_addc(&b, '|');
	value_print(&v, &b);
	value_free(&v);
	return b.data;
}

/* One expression text through every entry point. */
static void
check_expr(const char *text)
{
	struct expr *e, *e2, *c, *cl[8];
	char err[256], *u1, *u2, *v1, *v2;
	struct buf refs;
	size_t i, n;

	st.inputs++;
	err[0] = '\0';
	e = expr_parse(text, err, sizeof(err));
	if (e == NULL) {
		if (strncmp(err, "at column ", 10) != 0)
			report(&st.error_fail, "error message", text, err, "");
		return;
	}
	st.parsed++;
	u1 = expr_to_string(e);
	e2 = expr_parse(u1, err, sizeof(err));
	u2 = e2 ? expr_to_string(e2) : NULL;
	if (u2 == NULL || strcmp(u1, u2) != 0)
		report(&st.roundtrip_fail, "round trip", text, u1,
		    u2 ? u2 : err);
	if (e2 != NULL && !time_dependent(u1)) {
		v1 = eval_print(e);
		v2 = eval_print(e2);
		if (strcmp(v1, v2) != 0)
			report(&st.eval_fail, "eval round trip", text, v1, v2);
		free(v2);
		c = expr_copy(e);
		v2 = eval_print(c);
		if (strcmp(v1, v2) != 0)
			report(&st.eval_fail, "eval copy", text, v1, v2);
		free(v2);
		free(v1);
		expr_free(c);
	}
	buf_init(&refs);
	expr_references(e, &refs);
	buf_free(&refs);
	n = expr_clauses(e, cl, sizeof(cl) / sizeof(cl[0]));
	for (i = 0; i < n; i++)
		expr_free(cl[i]);
	free(u1);
	free(u2);
	expr_free(e);
	expr_free(e2);
}

static char *
ad_text(const struct ad *ad)
{
	struct buf b;

	buf_init(&b);
	ad_print(ad, &b);
	return b.data;
}

/* Ad text: parse, then print -> parse and to_xdr -> from_xdr agree. */
static void
check_ad_text(const char *text)
{
	struct ad *ads[4], *back;
	char err[256], *s0, *s1;
	struct ad_x x;
	int n, i;

	st.ad_inputs++;
	n = ad_parse_text(text, ads, 4, err, sizeof(err));
	if (n < 0) {
		if (strncmp(err, "line ", 5) != 0)
			report(&st.ad_fail, "ad error message", text, err, "");
		return;
	}
	st.ad_parsed++;
	for (i = 0; i < n; i++) {
		s0 = ad_text(ads[i]);
		s1 = NULL;
		if (ad_parse_text(s0, &back, 1, err, sizeof(err)) == 1) {
			s1 = ad_text(back);
			ad_free(back);
		}
		if (s1 == NULL || strcmp(s0, s1) != 0)
			report(&st.ad_fail, "ad text round trip", text, s0,
			    s1 ? s1 : err);
		free(s1);
		ad_to_xdr(ads[i], &x);
		s1 = NULL;
		if ((back = ad_from_xdr(&x, err, sizeof(err))) != NULL) {
			s1 = ad_text(back);
			ad_free(back);
		}
		if (s1 == NULL || strcmp(s0, s1) != 0)
			report(&st.ad_fail, "ad xdr round trip", text, s0,
			    s1 ? s1 : err);
		free(s1);
		free(s0);
		ad_x_free(&x);
		ad_free(ads[i]);
	}
}

static void
gen_ad_text(struct buf *b)
{
	size_t i, n = pick(8);

	for (i = 0; i < n; i++) {
		switch (pick(8)) {
		case 0:
			buf_adds(b, "\n");
			break;
		case 1:
			buf_adds(b, "# a comment = 1\n");
			break;
		case 2:
			gen_expr(b, 2);
			buf_addc(b, '\n');
			break;
		default:
			buf_printf(b, "%s%s = ", pick(4) ? "" : " ",
			    names[pick(sizeof(names) / sizeof(names[0]))]);
			gen_expr(b, 3);
			buf_adds(b, pick(4) ? "\n" : "\r\n");
			break;
		}
	}
	if (pick(4) == 0)
		mutate(b);
}

/* A struct ad_x built to hurt: NULLs, bad names, long texts. */
static void
check_hostile_x(void)
{
	struct ad_x x;
	struct ad *ad;
	struct buf text;
	attr_x *a;
	char err[256], *longname, *longtext;
	size_t i, n;

	st.xdr_inputs++;
	longname = xmalloc(AD_MAX_NAME + 2);
	memset(longname, 'N', AD_MAX_NAME + 1);
	longname[AD_MAX_NAME + 1] = '\0';
	longtext = xmalloc(AD_MAX_TEXT + 2);
	memset(longtext, '1', AD_MAX_TEXT + 1);
	longtext[AD_MAX_TEXT + 1] = '\0';
	n = pick(4) == 0 ? AD_MAX_ATTRS + pick(3) : pick(6);
	if (n > AD_MAX_ATTRS) {
		/* The count alone must be refused, before any element. */
		x.attrs.attrs_len = (u_int)n;
		x.attrs.attrs_val = NULL;
		if ((ad = ad_from_xdr(&x, err, sizeof(err))) != NULL) {
			report(&st.xdr_fail, "too many attributes", "", "", "");
			ad_free(ad);
		}
		free(longname);
		free(longtext);
		return;
	}
	a = xcalloc(n ? n : 1, sizeof(*a));
	buf_init(&text);
	for (i = 0; i < n; i++) {
		switch (pick(8)) {
		case 0:
			a[i].name = NULL;
			break;
		case 1:
			a[i].name = xstrdup(pick(2) ? "1bad" : "a b");
			break;
		case 2:
			a[i].name = xstrdup(longname);
			break;
		case 3:
			a[i].name = xstrdup(longname + 1);	/* just fits */
			break;
		default:
			a[i].name = xstrdup(names[pick(sizeof(names) /
			    sizeof(names[0]))]);
			break;
		}
		switch (pick(6)) {
		case 0:
			a[i].text = NULL;
			break;
		case 1:
			a[i].text = xstrdup(longtext);
			break;
		default:
			buf_reset(&text);
			gen_expr(&text, 3);
			a[i].text = xstrdup(text.data);
			break;
		}
	}
	buf_free(&text);
	x.attrs.attrs_len = (u_int)n;
	x.attrs.attrs_val = a;
	if ((ad = ad_from_xdr(&x, err, sizeof(err))) != NULL) {
		st.xdr_accepted++;
		ad_free(ad);
	} else if (err[0] == '\0')
		report(&st.xdr_fail, "hostile ad_x without message", "", "",
		    "");
	ad_x_free(&x);
	free(longname);
	free(longtext);
}

/* Random bytes through the XDR decoder, then ad_from_xdr. */
static void
check_xdr_bytes(void)
{
	unsigned char bytes[512];
	struct ad_x x;
	struct ad *ad;
	char err[256];
	size_t i, n = pick(sizeof(bytes));
	XDR xdrs;

	st.xdr_inputs++;
	for (i = 0; i < n; i++)
		bytes[i] = (unsigned char)rng();
	/* Plausible counts and lengths now and then. */
	if (n >= 12 && pick(2)) {
		bytes[0] = bytes[1] = bytes[2] = 0;
		bytes[3] = (unsigned char)pick(4);
		bytes[4] = bytes[5] = bytes[6] = 0;
		bytes[7] = (unsigned char)pick(8);
	}
	memset(&x, 0, sizeof(x));
	xdrmem_create(&xdrs, (char *)bytes, (u_int)n, XDR_DECODE);
	if (xdr_ad_x(&xdrs, &x)) {
		if ((ad = ad_from_xdr(&x, err, sizeof(err))) != NULL) {
			st.xdr_accepted++;
			ad_free(ad);
		}
	}
	xdr_destroy(&xdrs);
	xdr_free((xdrproc_t)xdr_ad_x, (char *)&x);
}

static const char *
fallback(const char *name)
{
	if (strcasecmp(name, "MINUTE") == 0)
		return "60";
	if (strcasecmp(name, "Broken") == 0)
		return "1 +";
	if (strcasecmp(name, "Ping") == 0)
		return "Pong + 1";
	if (strcasecmp(name, "Pong") == 0)
		return "Ping * 2";
	return NULL;
}

/* The hand-picked hostile texts, run once each before the random ones. */
static void
run_fixed(void)
{
	static const char *const fixed[] = {
		"", " ", "\"", "\"\\", "\"abc", "\"abc\\\"", "\\", "(", ")",
		"1e", "1e+", ".", "..", "1..2", "0x10", "1.5.5", "--", "!",
		"a ?", "a ? b", "a ? b :", "f(", "strcat(", "strcat(1,",
		"9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "-9223372036854775809",
		"--9223372036854775808", "1e308", "1e309", "-1e309",
		"4.9e-324", "1e-400", "MY.", "TARGET.", "MY..x", "=?=", "=!",
		"a =? b", "a = = b", "&&", "a && || b", "\"\xff\xfe\"",
		"ifThenElse(1,2,3,4)", "time()", "x.", "_", "isnt isnt",
	};
	struct buf b;
	size_t i;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		check_expr(fixed[i]);
	buf_init(&b);
	for (i = 0; i < 100000; i++)
		buf_addc(&b, '(');
	check_expr(b.data);
	buf_addc(&b, '1');
	for (i = 0; i < 100000; i++)
		buf_addc(&b, ')');
	check_expr(b.data);
	buf_reset(&b);
	for (i = 0; i < 100000; i++)
		buf_addc(&b, ')');
	check_expr(b.data);
	buf_reset(&b);
	for (i = 0; i < 50000; i++)
		buf_adds(&b, "!-");
	buf_addc(&b, '1');
	check_expr(b.data);
	buf_reset(&b);
	for (i = 0; i < 20000; i++)
		buf_adds(&b, "ifThenElse(");
	check_expr(b.data);
	buf_reset(&b);
	for (i = 0; i < 100000; i++)
		buf_addc(&b, '9');
	check_expr(b.data);
	buf_adds(&b, ".5e3");
	check_expr(b.data);
	buf_reset(&b);
	buf_adds(&b, "0.");
	for (i = 0; i < 100000; i++)
		buf_addc(&b, '0');
	buf_addc(&b, '1');
	check_expr(b.data);
	buf_reset(&b);
	buf_addc(&b, '"');
	for (i = 0; i < 100000; i++)
		buf_adds(&b, "\\\"");
	check_expr(b.data);
	buf_addc(&b, '"');
	check_expr(b.data);
	buf_reset(&b);
	for (i = 0; i < 30000; i++)
		buf_adds(&b, "a || ");
	buf_adds(&b, "b");
	check_expr(b.data);
	buf_reset(&b);
	for (i = 0; i < 30000; i++)
		buf_adds(&b, "a - ");
	buf_adds(&b, "b");
	check_expr(b.data);
	buf_reset(&b);
	for (i = 0; i < 300; i++)
		buf_adds(&b, "a ? b : ");
	buf_adds(&b, "c");
	check_expr(b.data);
	buf_reset(&b);
	for (i = 0; i < 100000; i++)
		buf_addc(&b, 'N');
	check_expr(b.data);
	check_ad_text(b.data);
	buf_adds(&b, " = 1\n");
	check_ad_text(b.data);
	buf_free(&b);
}

static double
elapsed(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	    (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

int
main(void)
{
	struct timespec t0;
	struct buf b;
	unsigned long round;
	size_t i, n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	expr_set_fallback(fallback);
	job = ad_new();
	machine = ad_new();
	ad_set_expr(job, "a", "1", NULL, 0);
	ad_set_expr(job, "Memory", "64", NULL, 0);
	ad_set_expr(job, "ImageSize", "100", NULL, 0);
	ad_set_expr(job, "Owner", "\"bob\"", NULL, 0);
	ad_set_expr(job, "Self", "Self + 1", NULL, 0);
	ad_set_expr(job, "c", "TARGET.b * 2.5", NULL, 0);
	ad_set_expr(machine, "b", "MY.Memory / 3", NULL, 0);
	ad_set_expr(machine, "Memory", "128", NULL, 0);
	ad_set_expr(machine, "Arch", "\"X86_64\"", NULL, 0);
	ad_set_expr(machine, "LoadAvg", "0.25", NULL, 0);
	ad_set_expr(machine, "Self", "TARGET.Self", NULL, 0);

	run_fixed();
	buf_init(&b);
	for (round = 0; round < MAX_ROUNDS; round++) {
		if (round >= MIN_ROUNDS && round % 64 == 0 &&
		    elapsed(&t0) > TIME_LIMIT)
			break;
		buf_reset(&b);
		switch (round % 8) {
		case 0:
			n = pick(48);
			for (i = 0; i < n; i++)
				buf_addc(&b, 1 + (int)pick(255));
			check_expr(b.data);
			break;
		case 1:
			n = 1 + pick(12);
			for (i = 0; i < n; i++) {
				buf_adds(&b, tokens[pick(sizeof(tokens) /
				    sizeof(tokens[0]))]);
				if (pick(2))
					buf_addc(&b, ' ');
			}
			check_expr(b.data);
			break;
		case 2:
		case 3:
			gen_expr(&b, 1 + (int)pick(6));
			check_expr(b.data);
			break;
		case 4:
			gen_expr(&b, 1 + (int)pick(5));
			mutate(&b);
			check_expr(b.data);
			break;
		case 5:
			gen_ad_text(&b);
			check_ad_text(b.data);
			break;
		case 6:
			check_hostile_x();
			break;
		default:
			check_xdr_bytes();
			break;
		}
	}
	buf_free(&b);
	ad_free(job);
	ad_free(machine);
	expr_set_fallback(NULL);

	printf("# %lu rounds in %.2f s: %lu expressions (%lu parsed), "
	    "%lu ad texts (%lu parsed), %lu wire ads (%lu accepted)\n",
	    round, elapsed(&t0), st.inputs, st.parsed, st.ad_inputs,
	    st.ad_parsed, st.xdr_inputs, st.xdr_accepted);
	/* Inputs that never parse (or always do) would test little. */
	CHECK("fuzz: expressions both parse and fail",
	    st.parsed > 0 && st.parsed < st.inputs);
	CHECK("fuzz: ad texts both parse and fail",
	    st.ad_parsed > 0 && st.ad_parsed < st.ad_inputs);
	CHECK("fuzz: wire ads both accepted and refused",
	    st.xdr_accepted > 0 && st.xdr_accepted < st.xdr_inputs);
	CHECK("fuzz parse errors name a column", st.error_fail == 0);
	CHECK("fuzz parse-unparse-parse agrees", st.roundtrip_fail == 0);
	CHECK("fuzz round trip evaluates the same", st.eval_fail == 0);
	CHECK("fuzz ad text and wire round trips", st.ad_fail == 0);
	CHECK("fuzz hostile wire ads refused cleanly", st.xdr_fail == 0);
	TEST_EXIT();
}
