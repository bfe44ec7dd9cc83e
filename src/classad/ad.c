/*
 * ad.c: attribute lists ("ads").
 *
 * An ad keeps its attributes in insertion order in an array, each with
 * its parsed tree, so evaluation never parses again.  Small ads are
 * searched linearly (comparing a hash first); once an ad holds more than
 * AD_INDEX_MIN attributes an open-addressing index over the array is
 * kept too, because the negotiator looks names up in thousands of ads.
 */
#include <sys/types.h>

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ad.h"
#include "classad_impl.h"
#include "buf.h"
#include "condor_types.h"
#include "expr.h"
#include "log.h"
#include "xalloc.h"

#define AD_INDEX_MIN	32	/* attributes before an index pays off */

struct ad_attr {
	char		*name;
	struct expr	*expr;
	char		*text;		/* canonical text, cached; or NULL */
	unsigned	 hash;
};

struct ad {
	struct ad_attr	*attrs;
	size_t		 n;
	size_t		 cap;
	size_t		*slots;		/* index + 1, 0 empty; NULL if small */
	size_t		 nslots;	/* a power of two, > 2 * n */
};

/* FNV-1a over the lower-cased name: names are case-insensitive. */
static unsigned
ad_hash(const char *s)
{
	unsigned h = 2166136261u;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned)tolower((unsigned char)*s)) * 16777619u;
	return h;
}

int
ad_name_valid(const char *name)
{
	size_t i;

	if (name == NULL || !isascii((unsigned char)name[0]) ||
	    !(isalpha((unsigned char)name[0]) || name[0] == '_'))
		return 0;
	for (i = 1; name[i] != '\0'; i++) {
		if (i >= AD_MAX_NAME)
			return 0;
		if (!isascii((unsigned char)name[i]) ||
		    !(isalnum((unsigned char)name[i]) || name[i] == '_' ||
		    name[i] == '.'))
			return 0;
	}
	return 1;
}

/* ad_new: an empty ad; free it with ad_free (which accepts NULL). */
struct ad *
ad_new(void)
{
	return xcalloc(1, sizeof(struct ad));
}

void
ad_free(struct ad *ad)
{
	size_t i;

	if (ad == NULL)
		return;
	for (i = 0; i < ad->n; i++) {
		free(ad->attrs[i].name);
		expr_free(ad->attrs[i].expr);
		free(ad->attrs[i].text);
	}
	free(ad->attrs);
	free(ad->slots);
	free(ad);
}

static void
index_insert(struct ad *ad, size_t i)
{
	size_t mask = ad->nslots - 1, s = ad->attrs[i].hash & mask;

	while (ad->slots[s] != 0)
		s = (s + 1) & mask;
	ad->slots[s] = i + 1;
}

/* Build the index from scratch, or drop it when the ad is small. */
static void
index_rebuild(struct ad *ad)
{
	size_t i, want;

	free(ad->slots);
	ad->slots = NULL;
	ad->nslots = 0;
	if (ad->n <= AD_INDEX_MIN)
		return;
	for (want = 64; want < ad->n * 4; want *= 2)
		;
	ad->slots = xcalloc(want, sizeof(*ad->slots));
	ad->nslots = want;
	for (i = 0; i < ad->n; i++)
		index_insert(ad, i);
}

/* The position of NAME in AD, or -1. */
static ssize_t
ad_find(const struct ad *ad, const char *name)
{
	unsigned h;
	size_t i, s, mask;

	if (ad == NULL || name == NULL)
		return -1;
	h = ad_hash(name);
	if (ad->slots == NULL) {
		for (i = 0; i < ad->n; i++)
			if (ad->attrs[i].hash == h &&
			    strcasecmp(ad->attrs[i].name, name) == 0)
				return (ssize_t)i;
		return -1;
	}
	mask = ad->nslots - 1;
	for (s = h & mask; ad->slots[s] != 0; s = (s + 1) & mask) {
		i = ad->slots[s] - 1;
		if (ad->attrs[i].hash == h &&
		    strcasecmp(ad->attrs[i].name, name) == 0)
			return (ssize_t)i;
	}
	return -1;
}

/* Store E (taken over) as NAME, which the caller has validated. */
static void
ad_put(struct ad *ad, const char *name, struct expr *e)
{
	struct ad_attr *a;
	ssize_t i;

	if ((i = ad_find(ad, name)) >= 0) {
		a = &ad->attrs[i];
		expr_free(a->expr);
		a->expr = e;
		free(a->text);
		a->text = NULL;
		if (strcmp(a->name, name) != 0) {
			free(a->name);
			a->name = xstrdup(name);
		}
		return;
	}
	if (ad->n == ad->cap) {
		ad->cap = ad->cap ? ad->cap * 2 : 8;
		ad->attrs = xreallocarray(ad->attrs, ad->cap,
		    sizeof(*ad->attrs));
	}
	a = &ad->attrs[ad->n++];
	a->name = xstrdup(name);
	a->expr = e;
	a->text = NULL;
	a->hash = ad_hash(name);
	if (ad->n > AD_INDEX_MIN) {
		if (ad->slots == NULL || ad->n * 2 > ad->nslots)
			index_rebuild(ad);
		else
			index_insert(ad, ad->n - 1);
	}
}

/* ad_copy: a deep copy, in the same order; an empty ad for NULL. */
struct ad *
ad_copy(const struct ad *ad)
{
	struct ad *c;
	size_t i;

	c = ad_new();
	if (ad == NULL)
		return c;
	for (i = 0; i < ad->n; i++)
		ad_put(c, ad->attrs[i].name, expr_copy(ad->attrs[i].expr));
	return c;
}

int
ad_set_expr(struct ad *ad, const char *name, const char *text, char *err,
    size_t errlen)
{
	struct expr *e;
	char perr[256];

	if (!ad_name_valid(name)) {
		errbuf_set(err, errlen, "bad attribute name \"%.64s\"",
		    name ? name : "(null)");
		return -1;
	}
	if (text == NULL) {
		errbuf_set(err, errlen, "%s: no value", name);
		return -1;
	}
	if (strnlen(text, AD_MAX_TEXT + 1) > AD_MAX_TEXT) {
		errbuf_set(err, errlen, "%s: value longer than %d bytes", name,
		    AD_MAX_TEXT);
		return -1;
	}
	if ((e = expr_parse(text, perr, sizeof(perr))) == NULL) {
		errbuf_set(err, errlen, "%s: %s", name, perr);
		return -1;
	}
	ad_put(ad, name, e);
	return 0;
}

/*
 * ad_set_int, ad_set_real, ad_set_bool, ad_set_string: store a literal
 * without parsing text.  They cannot fail: a bad NAME is a bug in the
 * caller, logged and ignored.  A NULL string is stored as "".
 */
static void
ad_set_value(struct ad *ad, const char *name, const struct value *v)
{
	if (!ad_name_valid(name)) {
		log_warnx("ad: ignoring bad attribute name \"%.64s\"",
		    name ? name : "(null)");
		return;
	}
	ad_put(ad, name, expr_from_value(v));
}

void
ad_set_int(struct ad *ad, const char *name, long long i)
{
	struct value v;

	v.type = VAL_INT;
	v.u.i = i;
	ad_set_value(ad, name, &v);
}

void
ad_set_real(struct ad *ad, const char *name, double r)
{
	struct value v;

	v.type = VAL_REAL;
	v.u.r = r;
	ad_set_value(ad, name, &v);
}

void
ad_set_bool(struct ad *ad, const char *name, int b)
{
	struct value v;

	v.type = VAL_BOOL;
	v.u.b = b != 0;
	ad_set_value(ad, name, &v);
}

void
ad_set_string(struct ad *ad, const char *name, const char *s)
{
	struct value v;

	v.type = VAL_STRING;
	v.u.s = (char *)(s ? s : "");	/* copied by expr_from_value */
	ad_set_value(ad, name, &v);
}

/* ad_delete: remove NAME, keeping the others' order; -1 if absent. */
int
ad_delete(struct ad *ad, const char *name)
{
	ssize_t i;

	if ((i = ad_find(ad, name)) < 0)
		return -1;
	free(ad->attrs[i].name);
	expr_free(ad->attrs[i].expr);
	free(ad->attrs[i].text);
	memmove(&ad->attrs[i], &ad->attrs[i + 1],
	    (ad->n - (size_t)i - 1) * sizeof(*ad->attrs));
	ad->n--;
	if (ad->slots != NULL)
		index_rebuild(ad);
	return 0;
}

void
ad_merge(struct ad *to, const struct ad *from)
{
	size_t i;

	if (from == NULL || to == from)
		return;
	for (i = 0; i < from->n; i++)
		ad_put(to, from->attrs[i].name,
		    expr_copy(from->attrs[i].expr));
}

/* ad_count: attributes in AD; 0 for NULL. */
size_t
ad_count(const struct ad *ad)
{
	return ad ? ad->n : 0;
}

const char *
ad_name_at(const struct ad *ad, size_t i)
{
	return ad != NULL && i < ad->n ? ad->attrs[i].name : NULL;
}

const struct expr *
ad_expr_at(const struct ad *ad, size_t i)
{
	return ad != NULL && i < ad->n ? ad->attrs[i].expr : NULL;
}

/* ad_lookup: NAME's tree (owned by AD), or NULL if AD (may be NULL)
 * has no such attribute. */
const struct expr *
ad_lookup(const struct ad *ad, const char *name)
{
	ssize_t i;

	if ((i = ad_find(ad, name)) < 0)
		return NULL;
	return ad->attrs[i].expr;
}

void
ad_eval(const struct ad *my, const struct ad *target, const char *name,
    struct value *out)
{
	const struct expr *e;

	if ((e = ad_lookup(my, name)) == NULL) {
		out->type = VAL_UNDEFINED;
		out->u.i = 0;
		return;
	}
	expr_eval(e, my, target, out);
}

/*
 * The getters evaluate the attribute on its own.  Condor 4 wrote
 * booleans as 0 and 1, so a boolean is accepted as an integer and an
 * integer (non-zero is true) as a boolean.
 *
 * get_as: NAME's value in V, converted to WANT: an integer from a
 * boolean or a real in range, a real from an integer or a boolean, a
 * boolean from an integer.  -1 (V freed) if it is none of these.
 */
static int
get_as(const struct ad *ad, const char *name, enum value_type want,
    struct value *v)
{
	ad_eval(ad, NULL, name, v);
	if (v->type == want)
		return 0;
	if (want == VAL_INT && v->type == VAL_BOOL)
		v->u.i = v->u.b;
	/* -2^63 is exact as a double; 2^63 is the first past range. */
	else if (want == VAL_INT && v->type == VAL_REAL &&
	    v->u.r >= -9223372036854775808.0 &&
	    v->u.r < 9223372036854775808.0)
		v->u.i = (long long)v->u.r;
	else if (want == VAL_REAL && v->type == VAL_INT)
		v->u.r = (double)v->u.i;
	else if (want == VAL_REAL && v->type == VAL_BOOL)
		v->u.r = v->u.b;
	else if (want == VAL_BOOL && v->type == VAL_INT)
		v->u.b = v->u.i != 0;
	else {
		value_free(v);
		return -1;
	}
	v->type = want;
	return 0;
}

int
ad_get_int(const struct ad *ad, const char *name, long long *out)
{
	struct value v;

	if (get_as(ad, name, VAL_INT, &v) == -1)
		return -1;
	*out = v.u.i;
	return 0;
}

int
ad_get_real(const struct ad *ad, const char *name, double *out)
{
	struct value v;

	if (get_as(ad, name, VAL_REAL, &v) == -1)
		return -1;
	*out = v.u.r;
	return 0;
}

int
ad_get_bool(const struct ad *ad, const char *name, int *out)
{
	struct value v;

	if (get_as(ad, name, VAL_BOOL, &v) == -1)
		return -1;
	*out = v.u.b;
	return 0;
}

int
ad_get_string(const struct ad *ad, const char *name, char **out)
{
	struct value v;

	if (get_as(ad, name, VAL_STRING, &v) == -1)
		return -1;
	*out = v.u.s;		/* handed over, not freed */
	return 0;
}

void
ad_print(const struct ad *ad, struct buf *b)
{
	size_t i;

	if (ad == NULL)
		return;
	for (i = 0; i < ad->n; i++) {
		buf_adds(b, ad->attrs[i].name);
		buf_adds(b, " = ");
		expr_unparse(ad->attrs[i].expr, b);
		buf_addc(b, '\n');
	}
}

/* S as a JSON string: quotes, escapes, and valid UTF-8 only (a byte
 * that is not is U+FFFD). */
static void
json_string(const char *s, struct buf *b)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n, k;

	buf_addc(b, '"');
	while (*u != '\0') {
		if (*u == '"' || *u == '\\') {
			buf_addc(b, '\\');
			buf_addc(b, *u++);
		} else if (*u < 0x20) {
			buf_printf(b, "\\u%04x", *u++);
		} else if (*u < 0x80) {
			buf_addc(b, *u++);
		} else {
			/* The length a lead byte says, and its followers. */
			n = *u >= 0xf0 && *u <= 0xf4 ? 4 : *u >= 0xe0 ? 3 :
			    *u >= 0xc2 && *u <= 0xdf ? 2 : 0;
			for (k = 1; k < n && (u[k] & 0xc0) == 0x80; k++)
				;
			if (n == 0 || k < n ||
			    (n == 3 && *u == 0xe0 && u[1] < 0xa0) ||
			    (n == 3 && *u == 0xed && u[1] >= 0xa0) ||
			    (n == 4 && *u == 0xf0 && u[1] < 0x90) ||
			    (n == 4 && *u == 0xf4 && u[1] >= 0x90)) {
				buf_adds(b, "\\ufffd");
				u++;
			} else {
				buf_add(b, u, n);
				u += n;
			}
		}
	}
	buf_addc(b, '"');
}

/*
 * One expression in HTCondor's JSON, as its multi-line JSON unparser
 * writes it: a literal is its value (UNDEFINED null), a list an array and
 * a nested ad an object of the same, a member a line, indented two
 * spaces a level (DEPTH is this value's), anything else the string
 * "\/Expr(TEXT)\/" with TEXT in the new ClassAd syntax.
 */
static void
json_indent(struct buf *b, int depth)
{
	int i;

	buf_addc(b, '\n');
	for (i = 0; i < depth; i++)
		buf_adds(b, "  ");
}

static void
json_expr(const struct expr *e, int depth, struct buf *b)
{
	struct buf text, lit;
	const struct value *v = &e->lit;
	size_t i;

	if (e->kind == EK_LIST || e->kind == EK_AD) {
		buf_addc(b, e->kind == EK_LIST ? '[' : '{');
		for (i = 0; i < e->nkids; i++) {
			if (i > 0)
				buf_addc(b, ',');
			json_indent(b, depth + 1);
			if (e->kind == EK_AD) {
				json_string(e->names[i], b);
				buf_adds(b, ": ");
			}
			json_expr(e->kids[i], depth + 1, b);
		}
		json_indent(b, depth);
		buf_addc(b, e->kind == EK_LIST ? ']' : '}');
		return;
	}
	/* Times have no JSON form: written as the calls that make them. */
	if (e->kind != EK_LIT || v->type == VAL_ERROR ||
	    v->type == VAL_ABSTIME || v->type == VAL_RELTIME ||
	    (v->type == VAL_REAL && !isfinite(v->u.r))) {
		buf_init(&text);
		buf_init(&lit);
		unparse_expr(e, 2, &text);
		json_string(text.data, &lit);
		buf_adds(b, "\"\\/Expr(");
		buf_add(b, lit.data + 1, lit.len - 2);
		buf_adds(b, ")\\/\"");
		buf_free(&text);
		buf_free(&lit);
	} else if (v->type == VAL_UNDEFINED)
		buf_adds(b, "null");
	else if (v->type == VAL_BOOL)
		buf_adds(b, v->u.b ? "true" : "false");
	else if (v->type == VAL_INT)
		buf_printf(b, "%lld", v->u.i);
	else if (v->type == VAL_REAL) {
		char r[64];

		snprintf(r, sizeof(r), "%.17g", v->u.r);
		buf_adds(b, r);
		if (strpbrk(r, ".eE") == NULL)
			buf_adds(b, ".0");
	} else
		json_string(v->u.s, b);
}

void
ad_print_json(const struct ad *ad, struct buf *b)
{
	size_t i;

	buf_adds(b, "{");
	for (i = 0; ad != NULL && i < ad->n; i++) {
		buf_adds(b, i ? ",\n  " : "\n  ");
		json_string(ad->attrs[i].name, b);
		buf_adds(b, ": ");
		json_expr(ad->attrs[i].expr, 1, b);
	}
	buf_adds(b, ad != NULL && ad->n > 0 ? "\n}" : "}");
}

void
ad_json_next(const struct ad *ad, int *first, FILE *fp)
{
	struct buf b;

	buf_init(&b);
	ad_print_json(ad, &b);
	fputs(*first ? "[\n" : ",\n", fp);
	fputs(b.data, fp);
	*first = 0;
	buf_free(&b);
}

void
ad_json_end(int first, FILE *fp)
{
	fputs(first ? "[]\n" : "\n]\n", fp);
}

void
ad_fprint(const struct ad *ad, FILE *fp)
{
	struct buf b;

	buf_init(&b);
	ad_print(ad, &b);
	(void)fwrite(b.data, 1, b.len, fp);
	buf_free(&b);
}

/* Parse one "Name = value" line (NUL-terminated, trimmed) into AD. */
static int
parse_line(struct ad *ad, char *line, char *err, size_t errlen)
{
	char *name = line, *eq, *value, *end;
	char perr[256];

	eq = line + strcspn(line, " \t=");
	value = eq + strspn(eq, " \t");
	if (*value != '=') {
		errbuf_set(perr, sizeof(perr), "expected \"Name = value\"");
		goto fail;
	}
	*eq = '\0';
	value++;
	value += strspn(value, " \t");
	if (!ad_name_valid(name)) {
		errbuf_set(perr, sizeof(perr), "bad attribute name \"%.64s\"",
		    name);
		goto fail;
	}
	if (*value == '\0') {
		errbuf_set(perr, sizeof(perr), "%s: no value", name);
		goto fail;
	}
	for (end = value + strlen(value); end > value &&
	    isspace((unsigned char)end[-1]); end--)
		;
	*end = '\0';
	if (ad_set_expr(ad, name, value, perr, sizeof(perr)) == -1)
		goto fail;
	return 0;
fail:
	errbuf_set(err, errlen, "%s", perr);
	return -1;
}

int
ad_parse_text(const char *text, struct ad **ads, int max, char *err,
    size_t errlen)
{
	struct ad *cur = NULL;
	const char *p, *nl;
	char *line, *s;
	char perr[300];
	size_t lineno = 0, len;
	int n = 0, i;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (text == NULL || max <= 0)
		return 0;
	for (p = text; *p != '\0' && n < max; p = *nl ? nl + 1 : nl) {
		lineno++;
		nl = p + strcspn(p, "\n");
		len = (size_t)(nl - p);
		if (len > 0 && p[len - 1] == '\r')
			len--;
		line = xstrndup(p, len);
		s = line + strspn(line, " \t\f\v\r");
		if (*s == '\0') {
			/* A blank line ends the ad being read. */
			if (cur != NULL) {
				ads[n++] = cur;
				cur = NULL;
			}
		} else if (*s != '#') {
			if (cur == NULL)
				cur = ad_new();
			if (parse_line(cur, s, perr, sizeof(perr)) == -1) {
				errbuf_set(err, errlen, "line %zu: %s", lineno,
				    perr);
				free(line);
				ad_free(cur);
				for (i = 0; i < n; i++) {
					ad_free(ads[i]);
					ads[i] = NULL;
				}
				return -1;
			}
		}
		free(line);
	}
	if (cur != NULL)
		ads[n++] = cur;
	return n;
}

void
ad_x_free(struct ad_x *x)
{
	u_int i;

	if (x == NULL)
		return;
	if (x->attrs.attrs_val != NULL) {
		for (i = 0; i < x->attrs.attrs_len; i++) {
			free(x->attrs.attrs_val[i].name);
			free(x->attrs.attrs_val[i].text);
		}
		free(x->attrs.attrs_val);
	}
	x->attrs.attrs_val = NULL;
	x->attrs.attrs_len = 0;
}

/*
 * Attributes that cannot travel (the wire allows AD_MAX_ATTRS of at most
 * AD_MAX_TEXT bytes each) are left out with a warning rather than
 * failing the whole message.
 */
void
ad_to_xdr(const struct ad *ad, struct ad_x *x)
{
	size_t i, n;
	char *text;

	x->attrs.attrs_len = 0;
	x->attrs.attrs_val = NULL;
	if (ad == NULL || ad->n == 0)
		return;
	n = ad->n < AD_MAX_ATTRS ? ad->n : AD_MAX_ATTRS;
	if (ad->n > AD_MAX_ATTRS)
		log_warnx("ad: %zu attributes, only %d sent", ad->n,
		    AD_MAX_ATTRS);
	x->attrs.attrs_val = xcalloc(n, sizeof(attr_x));
	for (i = 0; i < n; i++) {
		text = expr_to_string(ad->attrs[i].expr);
		if (strlen(text) > AD_MAX_TEXT) {
			log_warnx("ad: %s is longer than %d bytes, not sent",
			    ad->attrs[i].name, AD_MAX_TEXT);
			free(text);
			continue;
		}
		x->attrs.attrs_val[x->attrs.attrs_len].name =
		    xstrdup(ad->attrs[i].name);
		x->attrs.attrs_val[x->attrs.attrs_len].text = text;
		x->attrs.attrs_len++;
	}
}

/*
 * The canonical text of attribute I, computed once and kept until the
 * attribute changes: an ad sent many times (the collector's, the
 * schedd's) is unparsed once.
 */
static const char *
attr_text(struct ad *ad, size_t i)
{
	if (ad->attrs[i].text == NULL)
		ad->attrs[i].text = expr_to_string(ad->attrs[i].expr);
	return ad->attrs[i].text;
}

void
ad_to_xdr_view(const struct ad *cad, const char *const *names, size_t nnames,
    struct ad_x *x)
{
	struct ad *ad = (struct ad *)cad;	/* only the text cache changes */
	size_t i, j, n;
	ssize_t k;

	x->attrs.attrs_len = 0;
	x->attrs.attrs_val = NULL;
	if (ad == NULL || ad->n == 0)
		return;
	n = names != NULL ? nnames : ad->n;
	if (n > AD_MAX_ATTRS)
		n = AD_MAX_ATTRS;
	x->attrs.attrs_val = xcalloc(n ? n : 1, sizeof(attr_x));
	for (j = 0; j < n; j++) {
		if (names != NULL) {
			if ((k = ad_find(ad, names[j])) < 0)
				continue;
			i = (size_t)k;
		} else
			i = j;
		if (strlen(attr_text(ad, i)) > AD_MAX_TEXT)
			continue;
		x->attrs.attrs_val[x->attrs.attrs_len].name =
		    ad->attrs[i].name;
		x->attrs.attrs_val[x->attrs.attrs_len].text =
		    ad->attrs[i].text;
		x->attrs.attrs_len++;
	}
}

void
ad_x_free_view(struct ad_x *x)
{
	free(x->attrs.attrs_val);
	x->attrs.attrs_val = NULL;
	x->attrs.attrs_len = 0;
}

static struct ad *from_xdr(const struct ad_x *, struct ad *, int, char *,
		    size_t);

struct ad *
ad_from_xdr(const struct ad_x *x, char *err, size_t errlen)
{
	return from_xdr(x, NULL, 0, err, errlen);
}

struct ad *
ad_from_xdr_reuse(const struct ad_x *x, struct ad *old, char *err,
    size_t errlen)
{
	return from_xdr(x, old, 1, err, errlen);
}

/*
 * Take attribute NAME's parsed expression out of OLD when OLD holds it
 * as exactly TEXT: the caller is replacing OLD, and parsing the same text
 * again is most of the cost of an update.  NULL if it cannot.
 */
static struct expr *
steal_same(struct ad *old, const char *name, const char *text)
{
	struct ad_attr *a;
	struct expr *e;
	ssize_t i;

	if (old == NULL || (i = ad_find(old, name)) < 0)
		return NULL;
	a = &old->attrs[i];
	if (a->text == NULL || a->expr == NULL || strcmp(a->text, text) != 0)
		return NULL;
	e = a->expr;
	a->expr = NULL;
	return e;
}

static struct ad *
from_xdr(const struct ad_x *x, struct ad *old, int keep_text, char *err,
    size_t errlen)
{
	struct ad *ad;
	struct expr *e;
	const attr_x *a;
	char perr[256];
	ssize_t k;
	u_int i;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (x == NULL) {
		errbuf_set(err, errlen, "no ad");
		return NULL;
	}
	if (x->attrs.attrs_len > AD_MAX_ATTRS) {
		errbuf_set(err, errlen, "ad has %u attributes, more than %d",
		    x->attrs.attrs_len, AD_MAX_ATTRS);
		return NULL;
	}
	if (x->attrs.attrs_len > 0 && x->attrs.attrs_val == NULL) {
		errbuf_set(err, errlen, "ad has no attribute array");
		return NULL;
	}
	ad = ad_new();
	for (i = 0; i < x->attrs.attrs_len; i++) {
		a = &x->attrs.attrs_val[i];
		if (a->name == NULL || a->text == NULL) {
			errbuf_set(err, errlen, "attribute %u: missing %s", i,
			    a->name == NULL ? "name" : "value");
			goto fail;
		}
		if (!ad_name_valid(a->name)) {
			errbuf_set(err, errlen, "attribute %u: bad name", i);
			goto fail;
		}
		if ((e = steal_same(old, a->name, a->text)) != NULL)
			ad_put(ad, a->name, e);
		else if (ad_set_expr(ad, a->name, a->text, perr,
		    sizeof(perr)) == -1) {
			errbuf_set(err, errlen, "attribute %u: %s", i, perr);
			goto fail;
		}
		/* Keep the text it came as: the next update compares with
		 * it, and replies may send it as it is. */
		if (keep_text && (k = ad_find(ad, a->name)) >= 0 &&
		    ad->attrs[k].text == NULL)
			ad->attrs[k].text = xstrdup(a->text);
	}
	return ad;
fail:
	ad_free(ad);
	return NULL;
}

/* ---- Private attributes ---- */

/*
 * The one list of them.  ClaimId claims the machine; the others are
 * names a claim's secret has had or may have, kept private should a
 * startd ever advertise them.
 */
static const char *const private_attrs[] = {
	"ClaimId",
	"ClaimIds",
	"ClaimKey",
	"Capability",
};

int
ad_attr_private(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(private_attrs) / sizeof(private_attrs[0]); i++)
		if (strcasecmp(name, private_attrs[i]) == 0)
			return 1;
	return 0;
}

void
ad_strip_private(struct ad *ad)
{
	size_t i;

	for (i = 0; i < sizeof(private_attrs) / sizeof(private_attrs[0]); i++)
		(void)ad_delete(ad, private_attrs[i]);
}

/* ---- $$(Attr): what the matched machine says ---- */

#define MATCH_EXP_PREFIX	"MATCH_EXP_"

/* Whether position AT of TEXT (a ClassAd expression) is inside a
 * string literal. */
static int
in_string(const char *text, size_t at)
{
	size_t i;
	int in = 0;

	for (i = 0; i < at; i++) {
		if (in && text[i] == '\\' && i + 1 < at)
			i++;
		else if (text[i] == '"')
			in = !in;
	}
	return in;
}

/* Append MACHINE's NAME (or DFLT) to B, escaped if INSIDE a string;
 * -1 if there is neither. */
static int
match_value(const struct ad *machine, const char *name, const char *dflt,
    int inside, struct buf *b)
{
	const struct expr *e = ad_lookup(machine, name);
	struct value v;
	struct buf t;
	const char *s;

	buf_init(&t);
	if (e != NULL) {
		ad_eval(machine, NULL, name, &v);
		if (v.type == VAL_STRING)
			buf_adds(&t, v.u.s);
		else if (inside)
			value_print_plain(&v, "undefined", &t);
		else
			expr_unparse(e, &t);
		value_free(&v);
	} else if (dflt != NULL)
		buf_adds(&t, dflt);
	else {
		buf_free(&t);
		return -1;
	}
	for (s = t.data ? t.data : ""; *s != '\0'; s++) {
		if (inside && (*s == '"' || *s == '\\'))
			buf_addc(b, '\\');
		buf_addc(b, *s);
	}
	buf_free(&t);
	return 0;
}

/* Append expression TEXT (LEN bytes) evaluated in MACHINE to B, as
 * match_value; -1 if it does not parse or is UNDEFINED or ERROR. */
static int
match_expr(const struct ad *machine, const char *text, size_t len,
    int inside, struct buf *b)
{
	struct expr *e;
	struct value v;
	struct buf t;
	char *src = xstrndup(text, len), err[128];
	const char *s;
	int rc = -1;

	e = expr_parse(src, err, sizeof(err));
	free(src);
	if (e == NULL)
		return -1;
	expr_eval(e, machine, NULL, &v);
	expr_free(e);
	if (v.type != VAL_UNDEFINED && v.type != VAL_ERROR) {
		buf_init(&t);
		if (v.type == VAL_STRING && inside)
			buf_adds(&t, v.u.s);
		else if (inside)
			value_print_plain(&v, "undefined", &t);
		else
			value_print(&v, &t);
		for (s = t.data ? t.data : ""; *s != '\0'; s++) {
			if (inside && (*s == '"' || *s == '\\'))
				buf_addc(b, '\\');
			buf_addc(b, *s);
		}
		buf_free(&t);
		rc = 0;
	}
	value_free(&v);
	return rc;
}

int
ad_match_expand(const struct ad *job, const struct ad *whole,
    struct ad *out, char *err, size_t errlen)
{
	struct buf text, b;
	struct ad *machine;
	char name[AD_MAX_NAME + 1], *exp;
	const char *s, *ref, *close, *colon;
	size_t i, len;
	int rc = 0, failed;

	/* What the job may see of the machine: never its secrets, not even
	 * through an expression. */
	machine = ad_copy(whole);
	ad_strip_private(machine);
	buf_init(&text);
	buf_init(&b);
	for (i = 0; i < ad_count(job); i++) {
		failed = 0;
		buf_reset(&text);
		expr_unparse(ad_expr_at(job, i), &text);
		if (text.data == NULL || strstr(text.data, "$$(") == NULL ||
		    strncmp(ad_name_at(job, i), MATCH_EXP_PREFIX,
		    strlen(MATCH_EXP_PREFIX)) == 0)
			continue;
		buf_reset(&b);
		for (s = text.data; (ref = strstr(s, "$$(")) != NULL;
		    s = close + 1) {
			buf_add(&b, s, (size_t)(ref - s));
			if ((close = strchr(ref + 3, ')')) == NULL) {
				buf_adds(&b, ref);
				s = ref + strlen(ref);
				break;
			}
			if (ref[3] == '[') {
				/* $$([expr]): evaluated in the machine's ad. */
				const char *rb = strchr(ref + 3, ']');

				if (rb != NULL && (close = strchr(rb, ')')) !=
				    NULL && match_expr(machine, ref + 4,
				    (size_t)(rb - ref - 4), in_string(text.data,
				    (size_t)(ref - text.data)), &b) == 0)
					continue;
				snprintf(err, errlen, "%s: %.*s does not "
				    "evaluate in the machine's ad",
				    ad_name_at(job, i), close ? (int)(close + 1 -
				    ref) : 3, ref);
				failed = 1;
				break;
			}
			colon = memchr(ref + 3, ':', (size_t)(close - ref - 3));
			len = (size_t)((colon ? colon : close) - ref - 3);
			if (len == 0 || len > AD_MAX_NAME) {
				buf_add(&b, ref, (size_t)(close + 1 - ref));
				continue;
			}
			memcpy(name, ref + 3, len);
			name[len] = '\0';
			if (ad_attr_private(name)) {
				snprintf(err, errlen, "%s: $$(%s) names a "
				    "private attribute of the machine, which "
				    "no job may see", ad_name_at(job, i), name);
				failed = 1;
				break;
			}
			exp = colon ? xstrndup(colon + 1,
			    (size_t)(close - colon - 1)) : NULL;
			if (match_value(machine, name, exp,
			    in_string(text.data, (size_t)(ref - text.data)),
			    &b) == -1) {
				snprintf(err, errlen, "%s: the machine has no "
				    "%s for $$(%s)", ad_name_at(job, i), name,
				    name);
				failed = 1;
			}
			free(exp);
			if (failed)
				break;
		}
		if (failed)
			rc = -1;	/* the others still go */
		else {
			buf_adds(&b, s);
			snprintf(name, sizeof(name), "%s%s", MATCH_EXP_PREFIX,
			    ad_name_at(job, i));
			if (strlen(ad_name_at(job, i)) + strlen(MATCH_EXP_PREFIX)
			    > AD_MAX_NAME || ad_set_expr(out, name, b.data ?
			    b.data : "", err, errlen) == -1) {
				snprintf(err, errlen, "%s: $$() expands to "
				    "something that is not an expression",
				    ad_name_at(job, i));
				rc = -1;
			}
		}
	}
	buf_free(&text);
	buf_free(&b);
	ad_free(machine);
	return rc;
}

void
ad_match_apply(struct ad *job)
{
	const char *name;
	struct buf b;
	size_t i, plen = strlen(MATCH_EXP_PREFIX);
	char err[128];

	buf_init(&b);
	for (i = 0; i < ad_count(job); i++) {
		name = ad_name_at(job, i);
		if (strncmp(name, MATCH_EXP_PREFIX, plen) != 0 ||
		    name[plen] == '\0')
			continue;
		buf_reset(&b);
		expr_unparse(ad_expr_at(job, i), &b);
		(void)ad_set_expr(job, name + plen, b.data ? b.data : "", err,
		    sizeof(err));
	}
	buf_free(&b);
}
