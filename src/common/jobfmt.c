/*
 * jobfmt.c: -af and -format for condor_q and condor_history (see
 * jobfmt.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad.h"
#include "buf.h"
#include "expr.h"
#include "jobfmt.h"
#include "schedd_client.h"
#include "xalloc.h"

static void	clean(char *);

static const char af_letters[] = "jlhVr,tng";

int
jobfmt_expr_valid(const char *text)
{
	struct expr *e;
	char err[64];

	if (ad_name_valid(text))
		return 1;
	if ((e = expr_parse(text, err, sizeof(err))) == NULL)
		return 0;
	expr_free(e);
	return 1;
}

/* TEXT (an attribute name or an expression) evaluated in AD. */
static void
item_eval(const struct ad *ad, const char *text, struct value *out)
{
	if (ad_name_valid(text))
		ad_eval(ad, NULL, text, out);
	else
		expr_eval_text(text, ad, NULL, out);
}

/* The expression TEXT of AD as text for people, as -af shows it. */
static char *
expr_value_text(const struct ad *ad, const char *text)
{
	struct value v;
	struct buf b;

	if (ad_name_valid(text))
		return job_value_text(ad, text);
	expr_eval_text(text, ad, NULL, &v);
	buf_init(&b);
	value_print_plain(&v, NULL, &b);
	value_free(&v);
	clean(b.data);
	return buf_take(&b);
}

int
jobfmt_af_opts(struct jobfmt *f, const char *letters, char *err,
    size_t errlen)
{
	const char *p, *at;

	for (p = letters; *p != '\0'; p++) {
		if ((at = strchr(af_letters, *p)) == NULL) {
			snprintf(err, errlen, "-af:%s: '%c' is not one of %s",
			    letters, *p, af_letters);
			return -1;
		}
		f->opts |= 1u << (at - af_letters);
	}
	return 0;
}

/* Append TEXT[0..N) to B with the escapes \n \t \\ and %% read. */
static void
literal(struct buf *b, const char *text, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (text[i] == '\\' && i + 1 < n && (text[i + 1] == 'n' ||
		    text[i + 1] == 't' || text[i + 1] == '\\')) {
			buf_addc(b, text[i + 1] == 'n' ? '\n' :
			    text[i + 1] == 't' ? '\t' : '\\');
			i++;
		} else if (text[i] == '%' && i + 1 < n && text[i + 1] == '%') {
			buf_addc(b, '%');
			i++;
		} else
			buf_addc(b, text[i]);
	}
}

int
jobfmt_add_format(struct jobfmt *f, const char *fmt, const char *attr,
    char *err, size_t errlen)
{
	struct jobfmt_item it;
	struct buf pre, post;
	const char *p, *start = NULL, *letter = NULL;
	size_t width = 0, prec = 0;

	if (!jobfmt_expr_valid(attr)) {
		snprintf(err, errlen, "-format: \"%.64s\" is neither an "
		    "attribute name nor an expression", attr);
		return -1;
	}
	for (p = fmt; *p != '\0'; p++) {
		if (*p != '%')
			continue;
		if (p[1] == '%') {
			p++;
			continue;
		}
		if (letter != NULL) {
			snprintf(err, errlen, "-format \"%.64s\": one "
			    "conversion per -format", fmt);
			return -1;
		}
		start = p++;
		while (*p != '\0' && strchr("-+ #0", *p) != NULL)
			p++;
		for (width = 0; *p >= '0' && *p <= '9'; p++)
			width++;
		if (*p == '.')
			for (p++, prec = 0; *p >= '0' && *p <= '9'; p++)
				prec++;
		if (*p == '\0' || strchr("diuxXofFeEgGsvV", *p) == NULL ||
		    width > 3 || prec > 3) {
			snprintf(err, errlen, "-format \"%.64s\": a conversion "
			    "is %%d, %%i, %%u, %%x, %%X, %%o, %%f, %%e, %%g, "
			    "%%s, %%v or %%V, with a width and precision of "
			    "at most 3 digits", fmt);
			return -1;
		}
		letter = p;
	}
	memset(&it, 0, sizeof(it));
	buf_init(&pre);
	buf_init(&post);
	if (letter == NULL)
		literal(&pre, fmt, strlen(fmt));
	else {
		literal(&pre, fmt, (size_t)(start - fmt));
		literal(&post, letter + 1, strlen(letter + 1));
		it.spec = xstrndup(start, (size_t)(letter - start));
		it.conv = *letter;
	}
	it.pre = buf_take(&pre);
	it.post = buf_take(&post);
	it.attr = xstrdup(attr);
	f->items = xreallocarray(f->items, (size_t)f->nitems + 1,
	    sizeof(*f->items));
	f->items[f->nitems++] = it;
	return 0;
}

int
jobfmt_active(const struct jobfmt *f)
{
	return f->naf > 0 || f->nitems > 0;
}

/* Append to B (space separated) the attribute names TEXT needs. */
static void
attrs_of(const char *text, struct buf *b)
{
	struct expr *e;
	char err[64];

	if (ad_name_valid(text)) {
		buf_printf(b, "%s ", text);
		return;
	}
	if ((e = expr_parse(text, err, sizeof(err))) == NULL)
		return;
	expr_references(e, b);
	buf_addc(b, ' ');
	expr_free(e);
}

/*
 * The names go in the one allocation with the array, after its
 * pointers, so that the caller's free() of the array frees them too.
 */
const char **
jobfmt_attrs(const struct jobfmt *f)
{
	struct buf b;
	const char **v;
	char *text, *p, *save;
	size_t n = 0, words = 0, i;
	int k;

	buf_init(&b);
	if (f->opts & JOBFMT_JOBID)
		buf_printf(&b, "%s ", f->id_attr != NULL ? f->id_attr :
		    "ClusterId ProcId");
	for (k = 0; k < f->naf; k++)
		attrs_of(f->af[k], &b);
	for (k = 0; k < f->nitems; k++)
		attrs_of(f->items[k].attr, &b);
	buf_addc(&b, '\0');
	for (i = 0; i < b.len; i++)
		if (b.data[i] == ' ')
			words++;
	v = xmalloc((words + 1) * sizeof(*v) + b.len);
	text = (char *)(v + words + 1);
	memcpy(text, b.data, b.len);
	buf_free(&b);
	for (p = strtok_r(text, " ", &save); p != NULL && n < words;
	    p = strtok_r(NULL, " ", &save))
		v[n++] = p;
	v[n] = NULL;
	return v;
}

/* Replace control characters (but newlines and tabs our own). */
static void
clean(char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

/* NAME of AD in ClassAd form: strings quoted; an expression that does
 * not evaluate here (Requirements) as written. */
static char *
classad_text(const struct ad *ad, const char *name)
{
	const struct expr *e;
	struct value v;
	struct buf b;

	buf_init(&b);
	item_eval(ad, name, &v);
	if ((v.type == VAL_UNDEFINED || v.type == VAL_ERROR) &&
	    (e = ad_lookup(ad, name)) != NULL)
		expr_unparse(e, &b);
	else
		value_print(&v, &b);
	value_free(&v);
	clean(b.data);
	return buf_take(&b);
}

static char *
raw_text(const struct ad *ad, const char *name)
{
	const struct expr *e;
	struct buf b;
	char *text;

	if (!ad_name_valid(name)) {	/* an expression: as written */
		text = xstrdup(name);
		clean(text);
		return text;
	}
	if ((e = ad_lookup(ad, name)) == NULL)
		return xstrdup("undefined");
	buf_init(&b);
	expr_unparse(e, &b);
	clean(b.data);
	return buf_take(&b);
}

static char *
af_value(const struct jobfmt *f, const struct ad *ad, const char *name)
{
	if (f->opts & JOBFMT_RAW)
		return raw_text(ad, name);
	if (f->opts & JOBFMT_QUOTE)
		return classad_text(ad, name);
	return expr_value_text(ad, name);
}

static const char *
af_separator(const struct jobfmt *f)
{
	return (f->opts & JOBFMT_NEWLINE) ? "\n" : (f->opts & JOBFMT_TAB) ?
	    "\t" : (f->opts & JOBFMT_COMMA) ? ", " : " ";
}

void
jobfmt_header(const struct jobfmt *f, FILE *fp)
{
	const char *sep = af_separator(f);
	int i, first = 1;

	if (!(f->opts & JOBFMT_HEADER) || f->naf == 0)
		return;
	if (f->opts & JOBFMT_JOBID) {
		fputs(f->id_attr != NULL ? f->id_attr : "ID", fp);
		first = 0;
	}
	for (i = 0; i < f->naf; i++) {
		fprintf(fp, "%s%s", first ? "" : sep, f->af[i]);
		first = 0;
	}
	fputc('\n', fp);
}

/* One -format item for AD onto FP; nothing when it cannot be shown. */
static void
format_item(const struct jobfmt_item *it, const struct ad *ad, FILE *fp)
{
	struct value v;
	char spec[32], *text = NULL, *out = NULL;
	int n = -1;

	if (it->conv == 0) {
		fputs(it->pre, fp);
		return;
	}
	item_eval(ad, it->attr, &v);
	switch (it->conv) {
	case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': {
		long long i;

		if (v.type == VAL_INT)
			i = v.u.i;
		else if (v.type == VAL_BOOL)
			i = v.u.b;
		else if (v.type == VAL_REAL && isfinite(v.u.r) &&
		    fabs(v.u.r) < 9e18)
			i = (long long)v.u.r;
		else
			break;
		snprintf(spec, sizeof(spec), "%sll%c", it->spec, it->conv);
		if (it->conv == 'd' || it->conv == 'i')
			n = asprintf(&out, spec, i);
		else
			n = asprintf(&out, spec, (unsigned long long)i);
		break;
	}
	case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': {
		double d;

		if (v.type == VAL_REAL)
			d = v.u.r;
		else if (v.type == VAL_INT)
			d = (double)v.u.i;
		else if (v.type == VAL_BOOL)
			d = v.u.b;
		else
			break;
		snprintf(spec, sizeof(spec), "%s%c", it->spec, it->conv);
		n = asprintf(&out, spec, d);
		break;
	}
	default:	/* s, v, V */
		if (v.type == VAL_UNDEFINED && (!ad_name_valid(it->attr) ||
		    ad_lookup(ad, it->attr) == NULL))
			break;
		if (it->conv == 'V')
			text = classad_text(ad, it->attr);
		else if (it->conv == 's' && v.type == VAL_STRING) {
			text = xstrdup(v.u.s);
			clean(text);
		} else
			text = expr_value_text(ad, it->attr);
		snprintf(spec, sizeof(spec), "%ss", it->spec);
		n = asprintf(&out, spec, text);
		break;
	}
	value_free(&v);
	free(text);
	if (n >= 0) {
		fprintf(fp, "%s%s%s", it->pre, out, it->post);
		free(out);
	}
}

void
jobfmt_print(const struct jobfmt *f, const struct ad *ad, FILE *fp)
{
	const char *sep = af_separator(f);
	long long c = -1, p = -1;
	char *s;
	int i, first = 1;

	for (i = 0; i < f->nitems; i++)
		format_item(&f->items[i], ad, fp);
	if (f->naf == 0)
		return;
	if ((f->opts & JOBFMT_JOBID) && f->id_attr != NULL) {
		s = expr_value_text(ad, f->id_attr);
		fprintf(fp, (f->opts & JOBFMT_LABEL) ? "%s = %s" : "%.0s%s",
		    f->id_attr, s);
		free(s);
		first = 0;
	} else if (f->opts & JOBFMT_JOBID) {
		(void)ad_get_int(ad, "ClusterId", &c);
		(void)ad_get_int(ad, "ProcId", &p);
		fprintf(fp, (f->opts & JOBFMT_LABEL) ? "ID = %lld.%lld" :
		    "%lld.%lld", c, p);
		first = 0;
	}
	for (i = 0; i < f->naf; i++) {
		s = af_value(f, ad, f->af[i]);
		if (f->opts & JOBFMT_LABEL)
			fprintf(fp, "%s%s = %s", first ? "" : sep, f->af[i],
			    s);
		else
			fprintf(fp, "%s%s", first ? "" : sep, s);
		free(s);
		first = 0;
	}
	fputc('\n', fp);
	if (f->opts & JOBFMT_GAP)
		fputc('\n', fp);
}

void
jobfmt_free(struct jobfmt *f)
{
	int i;

	for (i = 0; i < f->nitems; i++) {
		free(f->items[i].pre);
		free(f->items[i].spec);
		free(f->items[i].post);
		free(f->items[i].attr);
	}
	free(f->items);
	f->items = NULL;
	f->nitems = 0;
}
