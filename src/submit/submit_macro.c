/*
 * submit_macro.c: the definitions ("NAME = value" lines, looked up by
 * name) and the expansion of $(NAME), $ENV(NAME), $RANDOM_INTEGER(),
 * $RANDOM_CHOICE() and HTCondor's function macros ($Fnx() and the like,
 * $INT()).
 */
#include <sys/random.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ad.h"
#include "buf.h"
#include "expr.h"
#include "machine.h"
#include "submit_int.h"
#include "xalloc.h"

/* FNV-1a over the lower-cased name; custom attributes hash apart. */
static size_t
name_hash(const char *name, int custom)
{
	size_t h = custom ? 0x9e3779b9u : 2166136261u;

	for (; *name != '\0'; name++) {
		h ^= (unsigned char)tolower((unsigned char)*name);
		h *= 16777619u;
	}
	return h;
}

static struct def *
def_lookup(struct parser *p, const char *name, int custom)
{
	size_t i, mask;
	struct def *d;

	if (p->nslots == 0)
		return NULL;
	mask = p->nslots - 1;
	for (i = name_hash(name, custom) & mask; p->slots[i] != 0;
	    i = (i + 1) & mask) {
		d = &p->defs[p->slots[i] - 1];
		if ((d->kind == DEF_CUSTOM) == (custom != 0) &&
		    strcasecmp(d->name, name) == 0)
			return d;
	}
	return NULL;
}

/* The definition of macro or keyword LNAME (lower case), or NULL. */
struct def *
sub_def_find(struct parser *p, const char *lname)
{
	return def_lookup(p, lname, 0);
}

static void
def_index(struct parser *p, size_t idx)
{
	size_t i, mask = p->nslots - 1;
	const struct def *d = &p->defs[idx];

	for (i = name_hash(d->name, d->kind == DEF_CUSTOM) & mask;
	    p->slots[i] != 0; i = (i + 1) & mask)
		;
	p->slots[i] = idx + 1;
}

void
sub_def_add(struct parser *p, const char *name, const char *value, int line,
    int kind)
{
	struct def *d;
	size_t i;

	if ((d = def_lookup(p, name, kind == DEF_CUSTOM)) != NULL) {
		free(d->value);
		d->value = xstrdup(value);
		d->line = line;
		d->seq = p->seq;
		return;
	}
	if (p->ndefs == p->capdefs) {
		p->capdefs = p->capdefs ? p->capdefs * 2 : 32;
		p->defs = xreallocarray(p->defs, p->capdefs, sizeof(*p->defs));
	}
	/* Keep the index at most half full. */
	if (2 * (p->ndefs + 1) > p->nslots) {
		free(p->slots);
		p->nslots = p->nslots ? p->nslots * 2 : 64;
		p->slots = xcalloc(p->nslots, sizeof(*p->slots));
		for (i = 0; i < p->ndefs; i++)
			def_index(p, i);
	}
	d = &p->defs[p->ndefs];
	d->name = xstrdup(name);
	d->value = xstrdup(value);
	d->line = line;
	d->seq = p->seq;
	d->kind = kind;
	d->used = 0;
	def_index(p, p->ndefs);
	if (kind == DEF_CUSTOM) {
		p->customs = xreallocarray(p->customs, p->ncustoms + 1,
		    sizeof(*p->customs));
		p->customs[p->ncustoms++] = p->ndefs;
	}
	p->ndefs++;
}

/* NAME's value in the submitter's environment, or NULL. */
static const char *
env_get(struct parser *p, const char *name)
{
	char *const *e;
	size_t len = strlen(name);

	if (p->env->environ == NULL)
		return NULL;
	for (e = p->env->environ; *e != NULL; e++)
		if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
			return *e + len + 1;
	return NULL;
}

/*
 * An undefined macro expands to nothing, with a warning naming it and
 * the line that uses it, once (a proc after another would repeat it).
 */
static void
undefined_warn(struct parser *p, const char *name, int line)
{
	char *key = xasprintf("%d %s", line, name);
	size_t i;

	p->undefined_seen++;
	snprintf(p->undefined_last, sizeof(p->undefined_last), "%s", name);
	for (i = 0; i < p->nundefined; i++)
		if (strcasecmp(p->undefined[i], key) == 0) {
			free(key);
			return;
		}
	if (p->nundefined < SUBMIT_MAX_WARNINGS) {
		p->undefined = xreallocarray(p->undefined, p->nundefined + 1,
		    sizeof(*p->undefined));
		p->undefined[p->nundefined++] = key;
	} else
		free(key);
	sub_pwarn(p, line, "undefined macro $(%s) expands to nothing", name);
}

/*
 * expand_ref: the reference that starts at TEXT ("$(NAME)",
 * "$(NAME:default)" or "$ENV(NAME)") into OUT; *END is set past it.
 * Returns 0 or -1 (the error recorded).
 */
static int
expand_ref(struct parser *p, const char *text, const char **end, int line,
    size_t proc, int depth, int *deps, struct buf *out)
{
	const char *open, *close, *colon;
	char name[AD_MAX_NAME + 1], shownbuf[80], lname[AD_MAX_NAME + 1];
	const char *val, *dflt = NULL;
	struct def *d;
	size_t len, dlen = 0;
	int isenv = 0;

	if (strncmp(text, "$ENV(", 5) == 0) {
		isenv = 1;
		open = text + 4;
	} else
		open = text + 1;
	if ((close = strchr(open, ')')) == NULL) {
		sub_perr(p, line, "unterminated macro reference \"%s\"",
		    sub_shown(text, shownbuf, 40));
		return -1;
	}
	*end = close + 1;
	len = (size_t)(close - open - 1);
	if ((colon = memchr(open + 1, ':', len)) != NULL) {
		dflt = colon + 1;
		dlen = (size_t)(close - dflt);
		len = (size_t)(colon - open - 1);
	}
	if (len == 0 || len > AD_MAX_NAME) {
		sub_perr(p, line, "bad macro reference \"%s\"",
		    sub_shown(text, shownbuf, (size_t)(close - text) + 2 < 40 ?
		    (size_t)(close - text) + 2 : 40));
		return -1;
	}
	memcpy(name, open + 1, len);
	name[len] = '\0';
	if (!sub_macro_name_valid(name)) {
		sub_perr(p, line, "bad macro name \"%s\"",
		    sub_shown(name, shownbuf, sizeof(shownbuf)));
		return -1;
	}
	if (++p->nsubst > SUBMIT_MAX_SUBST) {
		sub_perr(p, line, "more than %d macros expanded in one value",
		    SUBMIT_MAX_SUBST);
		return -1;
	}
	if (isenv) {
		if ((val = env_get(p, name)) != NULL)
			buf_adds(out, val);
		else if (dflt != NULL)
			buf_add(out, dflt, dlen);
		return 0;
	}
	memcpy(lname, name, len + 1);
	sub_lower(lname);
	if (strcmp(lname, "process") == 0 || strcmp(lname, "procid") == 0) {
		buf_printf(out, "%zu", proc);
		*deps |= DEP_PROCESS;
		return 0;
	}
	if (strcmp(lname, "cluster") == 0 ||
	    strcmp(lname, "clusterid") == 0) {
		buf_adds(out, SUBMIT_CLUSTER_MACRO);
		*deps |= DEP_CLUSTER;
		return 0;
	}
	/* The queue statement's: they change from one proc to the next. */
	if (strcmp(lname, "step") == 0 || strcmp(lname, "row") == 0 ||
	    strcmp(lname, "itemindex") == 0) {
		buf_printf(out, "%zu", lname[0] == 's' ? p->qstep : p->qrow);
		*deps |= DEP_PROCESS;
		return 0;
	}
	for (len = 0; len < p->nqvars; len++)
		if (strcmp(lname, p->qvars[len]) == 0) {
			/* (A macro of the same name is hidden, not unused.) */
			if ((d = sub_def_find(p, sub_canonical(lname))) != NULL)
				d->used = 1;
			buf_adds(out, p->qvals != NULL ? p->qvals[len] : "");
			*deps |= DEP_PROCESS;
			return 0;
		}
	if ((d = sub_def_find(p, sub_canonical(lname))) == NULL &&
	    (strcmp(lname, "opsys") == 0 || strcmp(lname, "arch") == 0)) {
		/* This machine's, as the default requirements have them. */
		if (p->arch[0] == '\0') {
			machine_arch(p->arch, sizeof(p->arch));
			machine_opsys(p->opsys, sizeof(p->opsys));
		}
		buf_adds(out, lname[0] == 'o' ? p->opsys : p->arch);
		return 0;
	}
	if (d == NULL) {
		if (dflt != NULL) {
			buf_add(out, dflt, dlen);
			return 0;
		}
		/* As HTCondor: nothing (a DAG's VARS may leave one out). */
		undefined_warn(p, name, line);
		return 0;
	}
	d->used = 1;
	if (depth + 1 > SUBMIT_MAX_DEPTH) {
		sub_perr(p, d->line,
		    "macros nested more than %d deep (a loop?) "
		    "in $(%s)", SUBMIT_MAX_DEPTH, name);
		return -1;
	}
	return sub_expand(p, d->value, d->line, proc, depth + 1, deps, out);
}

/*
 * $RANDOM_INTEGER(LOW, HIGH[, STEP]) or $RANDOM_CHOICE(A, B, ...) at
 * TEXT, drawn anew for each proc, into OUT; *END past it.
 */
static int
expand_random(struct parser *p, const char *text, const char **end,
    int line, int *deps, struct buf *out)
{
	const char *open = strchr(text, '('), *close;
	char args[256], *a[64], *save = NULL, *w, *e, shownbuf[64];
	long long lo, hi, step = 1;
	int n = 0;
	unsigned r;

	if ((close = strchr(open, ')')) == NULL ||
	    (size_t)(close - open - 1) >= sizeof(args)) {
		sub_perr(p, line, "bad %s", sub_shown(text, shownbuf, 40));
		return -1;
	}
	*end = close + 1;
	memcpy(args, open + 1, (size_t)(close - open - 1));
	args[close - open - 1] = '\0';
	for (w = strtok_r(args, ",", &save); w != NULL && n < 64;
	    w = strtok_r(NULL, ",", &save))
		a[n++] = sub_trim(w);
	if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
		r = (unsigned)random();
	*deps |= DEP_PROCESS;
	if (text[8] == 'C') {		/* $RANDOM_CHOICE */
		if (n == 0) {
			sub_perr(p, line, "$RANDOM_CHOICE() has no choices");
			return -1;
		}
		buf_adds(out, a[r % (unsigned)n]);
		return 0;
	}
	errno = 0;
	if (n < 2 || n > 3 || (lo = strtoll(a[0], &e, 10), *e != '\0') ||
	    (hi = strtoll(a[1], &e, 10), *e != '\0') ||
	    (n == 3 && (step = strtoll(a[2], &e, 10), *e != '\0')) ||
	    errno != 0 || hi < lo || step < 1 ||
	    (unsigned long long)hi - (unsigned long long)lo > 1000000000ULL) {
		sub_perr(p, line, "$RANDOM_INTEGER takes (LOW, HIGH[, STEP]) "
		    "with LOW <= HIGH, not \"%.*s\"", (int)(close - text <
		    60 ? close - text + 1 : 60), text);
		return -1;
	}
	buf_printf(out, "%lld", lo + (long long)(r %
	    (unsigned long long)((hi - lo) / step + 1)) * step);
	return 0;
}

/*
 * The length of the name of HTCondor's function macro at TEXT ("$Fnx",
 * "$BASENAME", "$DIRNAME", "$INT") when a "(" follows it; 0 if none.
 */
static size_t
func_name_len(const char *text)
{
	static const char *names[] = { "$BASENAME(", "$DIRNAME(", "$INT(",
	    NULL };
	size_t n, i;

	for (i = 0; names[i] != NULL; i++)
		if (strncmp(text, names[i], strlen(names[i])) == 0)
			return strlen(names[i]) - 1;
	if (text[1] != 'F')
		return 0;
	n = 2 + strspn(text + 2, "fpduwnxbqa");
	return text[n] == '(' ? n : 0;
}

/* A printf conversion for one long long: "%[flags][width]d" (or i, u,
 * x, X, o) with literal text around it; into OUT with "ll" added. */
static int
int_format(const char *fmt, char *out, size_t len)
{
	const char *pc = strchr(fmt, '%'), *c;
	size_t pre;

	if (pc == NULL || strchr(pc + 1, '%') != NULL)
		return -1;
	c = pc + 1 + strspn(pc + 1, "-+ 0#");
	c += strspn(c, "0123456789");
	if (*c == '\0' || strchr("diuxXo", *c) == NULL ||
	    (size_t)(c - pc) > 8 || strlen(fmt) + 3 > len)
		return -1;
	pre = (size_t)(c - fmt);
	memcpy(out, fmt, pre);
	snprintf(out + pre, len - pre, "ll%s", c);
	return 0;
}

/* " (undefined: $(NAME))" when a macro was found undefined since
 * the count was SEEN (what made a value useless), else "". */
static const char *
undef_note(const struct parser *p, size_t seen, char *buf, size_t len)
{
	if (p->undefined_seen <= seen)
		return "";
	snprintf(buf, len, " (undefined: $(%s))", p->undefined_last);
	return buf;
}

/*
 * HTCondor's function macros at TEXT, whose name is NLEN bytes long:
 * $F[fpdnxbqauw](NAME), $BASENAME(NAME) ($Fnx), $DIRNAME(NAME) ($Fp)
 * on the file name macro NAME holds, and $INT(NAME[, FORMAT]), the
 * expression NAME holds as a whole number.  NAME may also be text
 * with macros in it.  Into OUT; *END past it.
 */
static int
expand_func(struct parser *p, const char *text, size_t nlen,
    const char **end, int line, size_t proc, int depth, int *deps,
    struct buf *out)
{
	const char *open = text + nlen, *close, *flags, *comma, *slash;
	char shownbuf[64], fmt[64], err[256], *arg, *v, *base, *dot;
	char note[AD_MAX_NAME + 32];
	struct buf val, res;
	struct value ev;
	struct expr *e;
	long long iv;
	int rc = -1;
	size_t undefined = p->undefined_seen;

	if ((close = strchr(open, ')')) == NULL) {
		sub_perr(p, line, "unterminated %s", sub_shown(text, shownbuf,
		    40));
		return -1;
	}
	*end = close + 1;
	arg = xstrndup(open + 1, (size_t)(close - open - 1));
	comma = strncmp(text, "$INT(", 5) == 0 ? strchr(arg, ',') : NULL;
	if (comma != NULL)
		arg[comma - arg] = '\0';
	buf_init(&val);
	buf_init(&res);
	v = sub_trim(arg);
	if (sub_macro_name_valid(v) || strchr(v, ':') != NULL) {
		/* A macro's name (with a default, maybe): its value. */
		char *ref = xasprintf("$(%s)", v);

		rc = sub_expand(p, ref, line, proc, depth + 1, deps, &val);
		free(ref);
	} else
		rc = sub_expand(p, v, line, proc, depth + 1, deps, &val);
	if (rc == -1)
		goto out;
	rc = -1;
	v = sub_trim(val.data);
	if (strncmp(text, "$INT(", 5) == 0) {
		snprintf(fmt, sizeof(fmt), "%%lld");
		if (comma != NULL &&
		    int_format(sub_trim(arg + (comma - arg) + 1),
		    fmt, sizeof(fmt)) == -1) {
			sub_perr(p, line,
			    "$INT: the format must be one %%d-like "
			    "conversion");
			goto out;
		}
		if ((e = expr_parse(v, err, sizeof(err))) == NULL) {
			sub_perr(p, line, "$INT: \"%s\" is not a number: %s%s",
			    sub_shown(v, shownbuf, sizeof(shownbuf)), err,
			    undef_note(p, undefined, note, sizeof(note)));
			goto out;
		}
		expr_eval(e, NULL, NULL, &ev);
		expr_free(e);
		if (ev.type == VAL_INT || ev.type == VAL_BOOL)
			iv = ev.type == VAL_INT ? ev.u.i : ev.u.b;
		else if (ev.type == VAL_REAL && ev.u.r > -9e18 &&
		    ev.u.r < 9e18)
			iv = (long long)ev.u.r;
		else {
			value_free(&ev);
			sub_perr(p, line, "$INT: \"%s\" is not a number%s",
			    sub_shown(v, shownbuf, sizeof(shownbuf)),
			    undef_note(p, undefined, note, sizeof(note)));
			goto out;
		}
		value_free(&ev);
		buf_printf(out, fmt, iv);
		rc = 0;
		goto out;
	}
	if (text[1] == 'B')
		flags = "nx";
	else if (text[1] == 'D')
		flags = "p";
	else
		flags = xstrndup(text + 2, nlen - 2);
	if (strchr(flags, 'f') != NULL && *v != '\0' && *v != '/') {
		char *full = sub_path_join(p->cwd, v);

		buf_reset(&val);
		buf_adds(&val, full);
		free(full);
		v = val.data;
	}
	slash = strrchr(v, '/');
	base = (char *)(slash != NULL ? slash + 1 : v);
	dot = strrchr(base, '.');
	if (dot == base)
		dot = NULL;		/* ".bashrc" is a name */
	if (strpbrk(flags, "pdnx") == NULL)
		buf_adds(&res, v);
	if (strchr(flags, 'p') != NULL && slash != NULL)
		buf_add(&res, v, (size_t)(slash - v) + 1);
	else if (strchr(flags, 'd') != NULL && slash != NULL) {
		const char *d = slash;

		while (d > v && d[-1] != '/')
			d--;
		buf_add(&res, d, (size_t)(slash - d) +
		    (strchr(flags, 'b') == NULL));
	}
	if (strchr(flags, 'n') != NULL)
		buf_add(&res, base, dot != NULL ? (size_t)(dot - base) :
		    strlen(base));
	if (strchr(flags, 'x') != NULL && dot != NULL)
		buf_adds(&res, dot + (strchr(flags, 'b') != NULL));
	if (strchr(flags, 'w') != NULL)
		for (v = res.data; v != NULL && *v != '\0'; v++)
			if (*v == '/')
				*v = '\\';
	if (strchr(flags, 'q') != NULL)
		buf_addc(out, strchr(flags, 'a') != NULL ? '\'' : '"');
	buf_adds(out, res.data != NULL ? res.data : "");
	if (strchr(flags, 'q') != NULL)
		buf_addc(out, strchr(flags, 'a') != NULL ? '\'' : '"');
	if (text[1] == 'F')
		free((char *)flags);
	rc = 0;
out:
	free(arg);
	buf_free(&val);
	buf_free(&res);
	return rc;
}

/*
 * expand: TEXT (written at LINE) with its macro references expanded for
 * proc PROC, appended to OUT; the kinds of dependence found are or-ed
 * into *DEPS.  Returns 0 or -1 (the error recorded).
 */
int
sub_expand(struct parser *p, const char *text, int line, size_t proc,
    int depth, int *deps, struct buf *out)
{
	const char *s = text, *dollar, *end;
	size_t flen;

	while ((dollar = strchr(s, '$')) != NULL) {
		buf_add(out, s, (size_t)(dollar - s));
		if (dollar[1] == '$' && dollar[2] == '(' &&
		    (end = strchr(dollar + (dollar[3] == '[' ?
		    strcspn(dollar, "]") : 2), ')')) != NULL) {
			/* $$(Attr), $$([expr]): the matched machine's, when
			 * the job starts (its shadow's MATCH_EXP_
			 * attributes); kept as written. */
			buf_add(out, dollar, (size_t)(end + 1 - dollar));
			s = end + 1;
		} else if ((flen = func_name_len(dollar)) > 0) {
			if (expand_func(p, dollar, flen, &end, line, proc,
			    depth, deps, out) == -1)
				return -1;
			s = end;
		} else if (strncmp(dollar, "$RANDOM_INTEGER(", 16) == 0 ||
		    strncmp(dollar, "$RANDOM_CHOICE(", 15) == 0) {
			if (expand_random(p, dollar, &end, line, deps,
			    out) == -1)
				return -1;
			s = end;
		} else if (dollar[1] == '(' ||
		    strncmp(dollar, "$ENV(", 5) == 0) {
			if (expand_ref(p, dollar, &end, line, proc, depth, deps,
			    out) == -1)
				return -1;
			s = end;
		} else {
			buf_addc(out, '$');
			s = dollar + 1;
		}
		if (out->len > SUBMIT_MAX_VALUE) {
			sub_perr(p, line, "value longer than %d bytes once "
			    "expanded", SUBMIT_MAX_VALUE);
			return -1;
		}
	}
	buf_adds(out, s);
	if (out->len > SUBMIT_MAX_VALUE) {
		sub_perr(p, line, "value longer than %d bytes once expanded",
		    SUBMIT_MAX_VALUE);
		return -1;
	}
	return 0;
}

/* Expand the value of definition D for PROC into KV. */
int
sub_kval_expand(struct parser *p, const struct def *d, size_t proc,
    struct kval *kv)
{
	struct buf b;
	char *t;

	buf_init(&b);
	p->nsubst = 0;
	kv->deps = 0;
	kv->line = d->line;
	if (sub_expand(p, d->value, d->line, proc, 0, &kv->deps, &b) == -1) {
		buf_free(&b);
		kv->text = NULL;
		return -1;
	}
	t = sub_trim(b.data);
	/* An empty value is the same as none: the default applies. */
	kv->text = *t != '\0' ? xstrdup(t) : NULL;
	buf_free(&b);
	return 0;
}
