/*
 * ad_test.c: attribute lists: setting and replacing, order, lookup with
 * and without the index, typed getters, printing, text parsing, and the
 * wire form including hostile input.
 *
 * checks: 148
 */
#include <rpc/rpc.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad.h"
#include "buf.h"
#include "condor_types.h"
#include "expr.h"
#include "test.h"
#include "xalloc.h"

static char *
ad_text(const struct ad *ad)
{
	struct buf b;

	buf_init(&b);
	ad_print(ad, &b);
	return b.data;
}

static void
test_set_and_print(void)
{
	struct ad *ad;
	char err[256], *s;

	ad = ad_new();
	CHECK("new ad is empty", ad_count(ad) == 0);
	ad_set_int(ad, "ClusterId", 12);
	ad_set_real(ad, "LoadAvg", 0.25);
	ad_set_bool(ad, "ExitBySignal", 0);
	ad_set_string(ad, "Owner", "bob \"the\" builder\n");
	ad_set_int(ad, "Neg", -3);
	ad_set_real(ad, "Whole", 2);
	CHECK("set_expr ok", ad_set_expr(ad, "Requirements",
	    "TARGET.Memory>=ImageSize&&Arch==\"X86_64\"", err,
	    sizeof(err)) == 0);
	s = ad_text(ad);
	CHECK_STR("print", s,
	    "ClusterId = 12\n"
	    "LoadAvg = 0.25\n"
	    "ExitBySignal = false\n"
	    "Owner = \"bob \\\"the\\\" builder\\n\"\n"
	    "Neg = -3\n"
	    "Whole = 2.0\n"
	    "Requirements = TARGET.Memory >= ImageSize && "
	    "Arch == \"X86_64\"\n");
	free(s);

	/* Replacing keeps the place and takes the latest spelling. */
	ad_set_int(ad, "clusterid", 13);
	CHECK("replace keeps count", ad_count(ad) == 7);
	CHECK_STR("replace keeps place", ad_name_at(ad, 0), "clusterid");
	s = expr_to_string(ad_expr_at(ad, 0));
	CHECK_STR("replace value", s, "13");
	free(s);
	CHECK("name_at past end", ad_name_at(ad, 7) == NULL);
	CHECK("expr_at past end", ad_expr_at(ad, 7) == NULL);
	CHECK("lookup any case", ad_lookup(ad, "LOADAVG") != NULL);
	CHECK("lookup missing", ad_lookup(ad, "Nope") == NULL);

	CHECK("delete", ad_delete(ad, "loadavg") == 0);
	CHECK("delete again", ad_delete(ad, "LoadAvg") == -1);
	CHECK("delete keeps order", ad_count(ad) == 6 &&
	    strcmp(ad_name_at(ad, 1), "ExitBySignal") == 0);

	CHECK("bad name", ad_set_expr(ad, "1abc", "1", err,
	    sizeof(err)) == -1 && strstr(err, "bad attribute name") != NULL);
	CHECK("bad name char", ad_set_expr(ad, "a-b", "1", err,
	    sizeof(err)) == -1);
	CHECK("empty name", ad_set_expr(ad, "", "1", err, sizeof(err)) == -1);
	CHECK("NULL name", ad_set_expr(ad, NULL, "1", err,
	    sizeof(err)) == -1);
	CHECK("NULL text", ad_set_expr(ad, "x", NULL, err,
	    sizeof(err)) == -1);
	CHECK("bad expression", ad_set_expr(ad, "x", "1 +", err,
	    sizeof(err)) == -1 &&
	    strstr(err, "x: at column 4") != NULL);
	CHECK("NULL err buffer", ad_set_expr(ad, "x", "(", NULL, 0) == -1);
	CHECK("failed sets change nothing", ad_count(ad) == 6);
	ad_set_int(ad, "bad name", 1);	/* logged and ignored */
	CHECK("setter ignores bad name", ad_count(ad) == 6);
	ad_free(ad);
	ad_free(NULL);
}

static void
test_names(void)
{
	static const struct {
		const char	*name;
		int		 ok;
	} rows[] = {
		{ "a", 1 },
		{ "_", 1 },
		{ "Machine.Name_2", 1 },
		{ "A1", 1 },
		{ "1A", 0 },
		{ ".a", 0 },
		{ "a b", 0 },
		{ "a=b", 0 },
		{ "a\xc3\xa9", 0 },
		{ "", 0 },
	};
	char name[80], longname[AD_MAX_NAME + 2];
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		(void)snprintf(name, sizeof(name), "name valid \"%s\"",
		    rows[i].name);
		CHECK(name, ad_name_valid(rows[i].name) == rows[i].ok);
	}
	CHECK("name NULL", !ad_name_valid(NULL));
	memset(longname, 'a', sizeof(longname));
	longname[AD_MAX_NAME] = '\0';
	CHECK("name of AD_MAX_NAME bytes", ad_name_valid(longname));
	longname[AD_MAX_NAME] = 'a';
	longname[AD_MAX_NAME + 1] = '\0';
	CHECK("name past AD_MAX_NAME", !ad_name_valid(longname));
}

static void
test_getters(void)
{
	static const char *const attrs[][2] = {
		{ "I", "42" },
		{ "R", "2.75" },
		{ "NegR", "-2.75" },
		{ "B", "TRUE" },
		{ "S", "\"text\"" },
		{ "E", "I * 2" },
		{ "U", "UNDEFINED" },
		{ "Big", "1e300" },
		{ "Cmp", "I > 40" },
	};
	struct ad *ad;
	long long i;
	double r;
	int b;
	char *s;
	size_t k;

	ad = ad_new();
	for (k = 0; k < sizeof(attrs) / sizeof(attrs[0]); k++)
		ad_set_expr(ad, attrs[k][0], attrs[k][1], NULL, 0);
	CHECK("get_int int", ad_get_int(ad, "I", &i) == 0 && i == 42);
	CHECK("get_int evaluates", ad_get_int(ad, "e", &i) == 0 && i == 84);
	CHECK("get_int truncates real", ad_get_int(ad, "R", &i) == 0 &&
	    i == 2);
	CHECK("get_int truncates negative real",
	    ad_get_int(ad, "NegR", &i) == 0 && i == -2);
	CHECK("get_int out of range", ad_get_int(ad, "Big", &i) == -1);
	CHECK("get_int bool", ad_get_int(ad, "B", &i) == 0 && i == 1);
	CHECK("get_int string", ad_get_int(ad, "S", &i) == -1);
	CHECK("get_int missing", ad_get_int(ad, "Nope", &i) == -1);
	CHECK("get_int undefined", ad_get_int(ad, "U", &i) == -1);
	CHECK("get_real real", ad_get_real(ad, "R", &r) == 0 && r == 2.75);
	CHECK("get_real int", ad_get_real(ad, "I", &r) == 0 && r == 42.0);
	CHECK("get_real string", ad_get_real(ad, "S", &r) == -1);
	CHECK("get_bool bool", ad_get_bool(ad, "B", &b) == 0 && b == 1);
	CHECK("get_bool expression", ad_get_bool(ad, "Cmp", &b) == 0 &&
	    b == 1);
	CHECK("get_bool int", ad_get_bool(ad, "I", &b) == 0 && b == 1);
	CHECK("get_bool string", ad_get_bool(ad, "S", &b) == -1);
	CHECK("get_string", ad_get_string(ad, "S", &s) == 0 &&
	    strcmp(s, "text") == 0);
	free(s);
	CHECK("get_string int", ad_get_string(ad, "I", &s) == -1);
	CHECK("get_string missing", ad_get_string(ad, "Nope", &s) == -1);
	CHECK("getters on NULL ad", ad_get_int(NULL, "I", &i) == -1);
	ad_free(ad);
}

static void
test_eval(void)
{
	struct ad *job, *machine;
	struct value v;

	job = ad_new();
	machine = ad_new();
	ad_set_int(job, "ImageSize", 100);
	ad_set_expr(job, "Requirements", "TARGET.Memory >= ImageSize", NULL,
	    0);
	ad_set_expr(job, "Rank", "Memory", NULL, 0);
	ad_set_int(machine, "Memory", 128);
	ad_set_expr(machine, "Start", "TARGET.ImageSize < Memory", NULL, 0);
	ad_eval(job, machine, "Requirements", &v);
	CHECK("job requirements vs machine", v.type == VAL_BOOL && v.u.b);
	ad_eval(machine, job, "Start", &v);
	CHECK("machine start vs job", v.type == VAL_BOOL && v.u.b);
	ad_eval(job, machine, "Rank", &v);
	CHECK("rank reaches the machine", v.type == VAL_INT && v.u.i == 128);
	ad_eval(job, machine, "Nope", &v);
	CHECK("missing attribute is UNDEFINED", v.type == VAL_UNDEFINED);
	ad_eval(machine, job, "Rank", &v);
	CHECK("ad_eval looks only in MY", v.type == VAL_UNDEFINED);
	ad_free(job);
	ad_free(machine);
}

/* Past AD_INDEX_MIN the ad keeps an index; it must stay right. */
static void
test_many(void)
{
	struct ad *ad, *c;
	char name[32];
	long long v;
	int i, ok;

	ad = ad_new();
	for (i = 0; i < 2000; i++) {
		(void)snprintf(name, sizeof(name), "Attr%d", i);
		ad_set_int(ad, name, i);
	}
	CHECK("many: count", ad_count(ad) == 2000);
	for (ok = 1, i = 0; i < 2000; i++) {
		(void)snprintf(name, sizeof(name), "ATTR%d", i);
		if (ad_get_int(ad, name, &v) == -1 || v != i)
			ok = 0;
	}
	CHECK("many: every lookup", ok);
	for (i = 0; i < 2000; i += 2) {
		(void)snprintf(name, sizeof(name), "attr%d", i);
		if (ad_delete(ad, name) == -1)
			ok = 0;
	}
	CHECK("many: deletes", ok && ad_count(ad) == 1000);
	for (ok = 1, i = 0; i < 2000; i++) {
		(void)snprintf(name, sizeof(name), "Attr%d", i);
		if ((ad_lookup(ad, name) != NULL) != (i % 2 == 1))
			ok = 0;
	}
	CHECK("many: lookups after delete", ok);
	CHECK_STR("many: order after delete", ad_name_at(ad, 0), "Attr1");
	ad_set_int(ad, "attr1", -1);
	CHECK("many: replace in place", ad_count(ad) == 1000 &&
	    strcmp(ad_name_at(ad, 0), "attr1") == 0);
	c = ad_copy(ad);
	CHECK("many: copy", ad_count(c) == 1000 &&
	    ad_get_int(c, "Attr1999", &v) == 0 && v == 1999);
	for (i = 1; i < 2000; i += 2) {
		(void)snprintf(name, sizeof(name), "Attr%d", i);
		ad_delete(c, name);
	}
	CHECK("many: copy emptied", ad_count(c) == 0 &&
	    ad_lookup(c, "Attr1") == NULL);
	ad_set_int(c, "x", 1);
	CHECK("many: reuse emptied", ad_lookup(c, "X") != NULL);
	ad_free(c);
	ad_free(ad);
}

static void
test_copy_merge(void)
{
	struct ad *a, *b, *c;
	char *s;

	a = ad_new();
	b = ad_new();
	ad_set_int(a, "X", 1);
	ad_set_string(a, "Y", "a");
	ad_set_int(b, "y", 2);
	ad_set_int(b, "Z", 3);
	c = ad_copy(a);
	ad_merge(a, b);
	s = ad_text(a);
	CHECK_STR("merge replaces and appends", s, "X = 1\ny = 2\nZ = 3\n");
	free(s);
	s = ad_text(c);
	CHECK_STR("copy is independent", s, "X = 1\nY = \"a\"\n");
	free(s);
	ad_merge(a, a);
	CHECK("merge into itself", ad_count(a) == 3);
	ad_merge(a, NULL);
	ad_free(a);
	ad_free(b);
	ad_free(c);
	c = ad_copy(NULL);
	CHECK("copy NULL is empty", c != NULL && ad_count(c) == 0);
	ad_free(c);
}

static void
test_parse_text(void)
{
	static const struct {
		const char	*text;
		int		 max;
		int		 want;		/* ads, or -1 */
		const char	*first;		/* ads[0] printed, or err */
	} rows[] = {
		{ "A = 1\nB = \"x\"\n", 10, 1, "A = 1\nB = \"x\"\n" },
		{ "A=1", 10, 1, "A = 1\n" },
		{ "  A   =   1 + 2  \r\n", 10, 1, "A = 1 + 2\n" },
		{ "# comment\nA = 1\n\n\nB = 2\n\n", 10, 2, "A = 1\n" },
		{ "A = 1\n  # indented comment\nB = 2\n", 10, 1,
		  "A = 1\nB = 2\n" },
		{ "A = 1\n\nB = 2\n\nC = 3\n", 2, 2, "A = 1\n" },
		{ "", 10, 0, NULL },
		{ "\n\n# only comments\n", 10, 0, NULL },
		{ "A = 1\na = 2\n", 10, 1, "a = 2\n" },
		{ "A = x == \"a = b\"\n", 10, 1, "A = x == \"a = b\"\n" },
		{ "A = 1\nB\n", 10, -1, "line 2: expected \"Name = value\"" },
		{ "A = 1\n\n1x = 2\n", 10, -1, "line 3: bad attribute name" },
		{ "A =\n", 10, -1, "line 1: A: no value" },
		{ "A = 1 +\n", 10, -1, "line 1: A: at column 4:" },
		{ "= 1\n", 10, -1, "line 1: bad attribute name" },
		{ "A : 1\n", 10, -1, "line 1: expected" },
	};
	struct ad *ads[10];
	char err[256], name[200], *s;
	size_t i;
	int n, k;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		n = ad_parse_text(rows[i].text, ads, rows[i].max, err,
		    sizeof(err));
		(void)snprintf(name, sizeof(name), "parse_text row %zu", i);
		CHECK(name, n == rows[i].want);
		if (n == -1) {
			(void)snprintf(name, sizeof(name),
			    "parse_text row %zu error", i);
			CHECK(name, strstr(err, rows[i].first) == err);
			if (strstr(err, rows[i].first) != err)
				printf("  message: %s\n", err);
		} else if (n > 0 && rows[i].first != NULL) {
			s = ad_text(ads[0]);
			(void)snprintf(name, sizeof(name),
			    "parse_text row %zu ad", i);
			CHECK_STR(name, s, rows[i].first);
			free(s);
		}
		for (k = 0; k < n; k++)
			ad_free(ads[k]);
	}
}

/* Printing and parsing back gives the same text. */
static void
test_text_round_trip(void)
{
	struct ad *ad, *back[1];
	char *s1, *s2;

	ad = ad_new();
	ad_set_string(ad, "S", "quote \" back \\ tab \t nl \n cr \r");
	ad_set_real(ad, "R", 0.1);
	ad_set_real(ad, "Tiny", 5e-324);
	ad_set_real(ad, "Inf", 1.0 / 0.0);
	ad_set_int(ad, "Min", -9223372036854775807LL - 1);
	ad_set_expr(ad, "E", "ifThenElse(MY.a, -(b + c), !d) =?= UNDEFINED",
	    NULL, 0);
	s1 = ad_text(ad);
	CHECK("text round trip parses",
	    ad_parse_text(s1, back, 1, NULL, 0) == 1);
	s2 = ad_text(back[0]);
	CHECK_STR("text round trip", s2, s1);
	free(s1);
	free(s2);
	ad_free(back[0]);
	ad_free(ad);
}

static void
test_fprint(void)
{
	struct ad *ad;
	char *mem = NULL;
	size_t len = 0;
	FILE *fp;

	ad = ad_new();
	ad_set_int(ad, "A", 1);
	ad_set_string(ad, "B", "b");
	if ((fp = open_memstream(&mem, &len)) == NULL) {
		CHECK("open_memstream", 0);
		ad_free(ad);
		return;
	}
	ad_fprint(ad, fp);
	fclose(fp);
	CHECK_STR("fprint", mem, "A = 1\nB = \"b\"\n");
	free(mem);
	ad_free(ad);
}

static void
test_xdr(void)
{
	struct ad *ad, *back;
	struct ad_x x, y;
	char err[256], *s1, *s2;
	char buf[65536];
	XDR xdrs;
	int i;

	ad = ad_new();
	ad_set_int(ad, "ClusterId", 7);
	ad_set_string(ad, "Cmd", "/bin/sleep");
	ad_set_expr(ad, "Requirements", "Arch == \"X86_64\" && Memory > 0",
	    NULL, 0);
	ad_to_xdr(ad, &x);
	CHECK("to_xdr count", x.attrs.attrs_len == 3);
	CHECK_STR("to_xdr name", x.attrs.attrs_val[1].name, "Cmd");
	CHECK_STR("to_xdr text", x.attrs.attrs_val[1].text, "\"/bin/sleep\"");
	back = ad_from_xdr(&x, err, sizeof(err));
	s1 = ad_text(ad);
	s2 = back ? ad_text(back) : NULL;
	CHECK_STR("xdr round trip", s2, s1);
	free(s2);
	ad_free(back);

	/* Through real XDR encoding and decoding. */
	xdrmem_create(&xdrs, buf, sizeof(buf), XDR_ENCODE);
	CHECK("xdr encode", xdr_ad_x(&xdrs, &x));
	xdr_destroy(&xdrs);
	memset(&y, 0, sizeof(y));
	xdrmem_create(&xdrs, buf, sizeof(buf), XDR_DECODE);
	CHECK("xdr decode", xdr_ad_x(&xdrs, &y));
	xdr_destroy(&xdrs);
	back = ad_from_xdr(&y, err, sizeof(err));
	s2 = back ? ad_text(back) : NULL;
	CHECK_STR("xdr wire round trip", s2, s1);
	free(s2);
	ad_free(back);
	ad_x_free(&y);
	CHECK("x_free clears", y.attrs.attrs_len == 0 &&
	    y.attrs.attrs_val == NULL);
	ad_x_free(&x);
	ad_x_free(NULL);
	free(s1);

	/* An empty ad. */
	ad_free(ad);
	ad = ad_new();
	ad_to_xdr(ad, &x);
	CHECK("empty to_xdr", x.attrs.attrs_len == 0);
	back = ad_from_xdr(&x, err, sizeof(err));
	CHECK("empty from_xdr", back != NULL && ad_count(back) == 0);
	ad_free(back);
	ad_x_free(&x);

	/* What cannot travel is left out. */
	for (i = 0; i < AD_MAX_ATTRS + 5; i++) {
		char name[32];

		(void)snprintf(name, sizeof(name), "A%d", i);
		ad_set_int(ad, name, i);
	}
	s1 = xmalloc(AD_MAX_TEXT + 1);
	memset(s1, 'x', AD_MAX_TEXT);
	s1[AD_MAX_TEXT] = '\0';
	ad_set_string(ad, "A0", s1);	/* quoted, it is too long */
	free(s1);
	ad_to_xdr(ad, &x);
	CHECK("to_xdr caps attributes", x.attrs.attrs_len == AD_MAX_ATTRS - 1);
	CHECK_STR("to_xdr skips long text", x.attrs.attrs_val[0].name, "A1");
	ad_x_free(&x);
	ad_free(ad);
}

static void
test_xdr_hostile(void)
{
	static attr_x good = { "A", "1" };
	static const struct {
		const char	*name;
		const char	*text;
		const char	*want;
	} rows[] = {
		{ NULL, "1", "attribute 0: missing name" },
		{ "A", NULL, "attribute 0: missing value" },
		{ "1A", "1", "attribute 0: bad name" },
		{ "", "1", "attribute 0: bad name" },
		{ "A", "", "attribute 0: A: at column 1: empty" },
		{ "A", "1 +", "attribute 0: A: at column 4" },
		{ "A", "\"open", "unterminated string" },
	};
	struct ad_x x;
	attr_x attrs[2];
	struct ad *ad;
	char err[256], name[64], *big;
	size_t i;

	CHECK("from_xdr NULL", ad_from_xdr(NULL, err, sizeof(err)) == NULL &&
	    strcmp(err, "no ad") == 0);
	x.attrs.attrs_len = 1;
	x.attrs.attrs_val = NULL;
	CHECK("from_xdr NULL array", ad_from_xdr(&x, err,
	    sizeof(err)) == NULL);
	x.attrs.attrs_len = AD_MAX_ATTRS + 1;
	x.attrs.attrs_val = &good;	/* never read past the check */
	CHECK("from_xdr too many", ad_from_xdr(&x, err, sizeof(err)) == NULL &&
	    strstr(err, "more than") != NULL);
	x.attrs.attrs_len = 0xffffffffu;
	CHECK("from_xdr huge count", ad_from_xdr(&x, NULL, 0) == NULL);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		attrs[0].name = (char *)rows[i].name;
		attrs[0].text = (char *)rows[i].text;
		x.attrs.attrs_len = 1;
		x.attrs.attrs_val = attrs;
		ad = ad_from_xdr(&x, err, sizeof(err));
		(void)snprintf(name, sizeof(name), "from_xdr hostile %zu", i);
		CHECK(name, ad == NULL && strstr(err, rows[i].want) != NULL);
		if (ad != NULL || strstr(err, rows[i].want) == NULL)
			printf("  message: %s\n", err);
		ad_free(ad);
	}
	/* Too long: a name of AD_MAX_NAME + 1 bytes, a text past the max. */
	big = xmalloc(AD_MAX_TEXT + 2);
	memset(big, 'a', AD_MAX_TEXT + 1);
	big[AD_MAX_TEXT + 1] = '\0';
	attrs[0].text = "1";
	attrs[0].name = big + AD_MAX_TEXT - AD_MAX_NAME;
	x.attrs.attrs_len = 1;
	x.attrs.attrs_val = attrs;
	CHECK("from_xdr long name", ad_from_xdr(&x, err, sizeof(err)) ==
	    NULL && strstr(err, "bad name") != NULL);
	attrs[0].name = "A";
	attrs[0].text = big;
	CHECK("from_xdr long text", ad_from_xdr(&x, err, sizeof(err)) ==
	    NULL && strstr(err, "longer than") != NULL);
	free(big);
	/* The second attribute bad: nothing leaks from the first. */
	attrs[0].name = "A";
	attrs[0].text = "1";
	attrs[1].name = "B";
	attrs[1].text = ")";
	x.attrs.attrs_len = 2;
	CHECK("from_xdr second bad", ad_from_xdr(&x, err, sizeof(err)) ==
	    NULL && strstr(err, "attribute 1: B:") != NULL);
	/* Duplicates: the last wins. */
	attrs[1].name = "a";
	attrs[1].text = "2";
	ad = ad_from_xdr(&x, err, sizeof(err));
	CHECK("from_xdr duplicate", ad != NULL && ad_count(ad) == 1 &&
	    strcmp(ad_name_at(ad, 0), "a") == 0);
	ad_free(ad);
}

/* ad_print_json: HTCondor's JSON form, always valid JSON. */
static void
check_json(void)
{
	struct ad *ad = ad_new();
	struct buf b;

	ad_set_int(ad, "I", -7);
	ad_set_real(ad, "R", 2.0);
	ad_set_bool(ad, "B", 0);
	ad_set_string(ad, "S", "a\"b\\c\n\x01\xc3\xa9\xff\xe2\x82");
	ad_set_expr(ad, "E", "I + 1 == \"x\"", NULL, 0);
	ad_set_expr(ad, "U", "UNDEFINED", NULL, 0);
	ad_set_expr(ad, "X", "1 / 0", NULL, 0);
	buf_init(&b);
	ad_print_json(ad, &b);
	CHECK("json: an int", strstr(b.data, "\"I\": -7") != NULL);
	CHECK("json: a real keeps its point", strstr(b.data, "\"R\": 2.0") !=
	    NULL);
	CHECK("json: a bool", strstr(b.data, "\"B\": false") != NULL);
	CHECK_STR("json: a string's quote, backslash, controls, UTF-8 and "
	    "bytes that are not UTF-8", strstr(b.data, "\"S\": ") ? strchr(
	    strstr(b.data, "\"S\": ") + 4, '"') : NULL,
	    "\"a\\\"b\\\\c\\u000a\\u0001\xc3\xa9\\ufffd\\ufffd\\ufffd\",\n"
	    "  \"E\": \"\\/Expr(I + 1 == \\\"x\\\")\\/\",\n"
	    "  \"U\": null,\n  \"X\": \"\\/Expr(1 / 0)\\/\"\n}");
	buf_free(&b);
	ad_free(ad);
	buf_init(&b);
	ad_print_json(NULL, &b);
	CHECK_STR("json: no ad, an empty object", b.data, "{}");
	buf_free(&b);
}

/* $$(Attr) and $$([expr]) from a machine's ad (ad_match_expand). */
static void
test_match_expand(void)
{
	struct ad *job = ad_new(), *m = ad_new(), *exp = ad_new();
	char err[256], *s = NULL;

	ad_set_string(m, "Name", "slot1@exec \"q\"");
	ad_set_int(m, "Memory", 8192);
	ad_set_string(job, "Args", "on $$(Name) mem $$(Memory) x $$(No:dflt) "
	    "half $$([Memory / 2])");
	ad_set_string(job, "Plain", "no refs");
	CHECK("$$(): every reference filled",
	    ad_match_expand(job, m, exp, err, sizeof(err)) == 0);
	CHECK("... a string's characters, escaped, a number, a default and "
	    "an expression", ad_get_string(exp, "MATCH_EXP_Args", &s) == 0 &&
	    strcmp(s, "on slot1@exec \"q\" mem 8192 x dflt half 4096") == 0);
	free(s);
	s = NULL;
	CHECK("... an attribute without references is left alone",
	    ad_lookup(exp, "MATCH_EXP_Plain") == NULL);
	ad_match_apply(job);
	ad_merge(job, exp);
	ad_match_apply(job);
	CHECK("ad_match_apply: the attribute takes its expanded value",
	    ad_get_string(job, "Args", &s) == 0 && strncmp(s, "on slot1", 8)
	    == 0);
	free(s);
	ad_free(exp);
	exp = ad_new();
	ad_set_string(job, "Bad", "$$(Missing) and $$(Name)");
	ad_set_string(job, "Good", "$$(Name)");
	CHECK("a reference the machine lacks is an error naming it",
	    ad_match_expand(job, m, exp, err, sizeof(err)) == -1 &&
	    strstr(err, "Missing") != NULL);
	CHECK("... the others are still expanded",
	    ad_lookup(exp, "MATCH_EXP_Good") != NULL &&
	    ad_lookup(exp, "MATCH_EXP_Bad") == NULL);
	ad_free(exp);
	ad_free(job);
	ad_free(m);
}

/* A machine's private attributes never reach a job. */
static void
test_private(void)
{
	struct ad *job = ad_new(), *m = ad_new(), *exp = ad_new();
	char err[256];

	ad_set_string(m, "Name", "exec1");
	ad_set_string(m, "ClaimId", "0123456789abcdef0123456789abcdef");
	CHECK("ClaimId is private, whatever its case; Name is not",
	    ad_attr_private("ClaimId") && ad_attr_private("claimid") &&
	    !ad_attr_private("Name"));
	ad_set_string(job, "Leak", "$$(ClaimId)");
	CHECK("$$(ClaimId) is an error saying the attribute is private",
	    ad_match_expand(job, m, exp, err, sizeof(err)) == -1 &&
	    strstr(err, "private") != NULL &&
	    ad_lookup(exp, "MATCH_EXP_Leak") == NULL);
	ad_delete(job, "Leak");
	ad_set_string(job, "Leak2", "$$([ClaimId])");
	ad_set_string(job, "Leak3", "$$([strcat(\"x\", ClaimId)])");
	ad_set_string(job, "Leak4", "$$(CLAIMID:none)");
	CHECK("$$([expr]) does not see it, nor does a default hide it",
	    ad_match_expand(job, m, exp, err, sizeof(err)) == -1 &&
	    ad_lookup(exp, "MATCH_EXP_Leak2") == NULL &&
	    ad_lookup(exp, "MATCH_EXP_Leak3") == NULL &&
	    ad_lookup(exp, "MATCH_EXP_Leak4") == NULL);
	ad_strip_private(m);
	CHECK("ad_strip_private deletes it and keeps the rest",
	    ad_lookup(m, "ClaimId") == NULL && ad_lookup(m, "Name") != NULL);
	ad_free(exp);
	ad_free(job);
	ad_free(m);
}

int
main(void)
{
	test_set_and_print();
	test_names();
	test_getters();
	test_eval();
	test_many();
	test_copy_merge();
	test_parse_text();
	test_text_round_trip();
	test_fprint();
	test_xdr();
	test_xdr_hostile();
	check_json();
	test_match_expand();
	test_private();
	TEST_EXIT();
}
