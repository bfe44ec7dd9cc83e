/*
 * submit_queue.c: queue statements: "queue [N]" and HTCondor's forms
 * "queue [N] VARS in|from|matching ..." with their items (a list, a
 * file, a ( list ) over lines, globbed files or directories, a slice),
 * each proc's keywords expanded and built.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "ad.h"
#include "buf.h"
#include "expr.h"
#include "submit_int.h"
#include "xalloc.h"

static void
kvals_free(struct kval *kv, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(kv[i].text);
		kv[i].text = NULL;
	}
}

/*
 * The live definitions of every keyword and custom attribute, expanded
 * for PROC into KV and CV; when ONLY_DEPS, only those whose DEPS (from
 * the first proc) say they use $(Process).
 */
static int
expand_all(struct parser *p, size_t proc, struct kval *kv, struct kval *cv,
    struct def **cdefs, size_t ncv, int only_deps)
{
	struct def *d, item;
	size_t i, k;

	for (i = 0; i < NKW; i++) {
		if (only_deps && !(kv[i].deps & DEP_PROCESS))
			continue;
		/* A queue variable named as a keyword sets it, item by
		 * item (queue input, arguments from ...), as in HTCondor. */
		for (k = 0; k < p->nqvars; k++)
			if (strcmp(sub_canonical(p->qvars[k]),
			    sub_kw_names[i]) == 0)
				break;
		if (k < p->nqvars) {
			memset(&item, 0, sizeof(item));
			item.value = p->qvals != NULL ? p->qvals[k] : "";
			item.line = p->stmts[p->nstmts - 1].line;
			free(kv[i].text);
			if (sub_kval_expand(p, &item, proc, &kv[i]) == -1)
				return -1;
			kv[i].deps |= DEP_PROCESS;
			continue;
		}
		if ((d = sub_def_find(p, sub_kw_names[i])) == NULL)
			continue;
		free(kv[i].text);
		if (sub_kval_expand(p, d, proc, &kv[i]) == -1)
			return -1;
	}
	for (i = 0; i < ncv; i++) {
		if (only_deps && !(cv[i].deps & DEP_PROCESS))
			continue;
		free(cv[i].text);
		if (sub_kval_expand(p, cdefs[i], proc, &cv[i]) == -1)
			return -1;
	}
	return 0;
}

/* The items of a queue statement: NITEMS rows of NVARS values. */
struct items {
	char	**vars;		/* lower case */
	size_t	  nvars;
	char	**vals;		/* row after row */
	size_t	  nitems;
	size_t	  cap;
};

static void
items_free(struct items *it)
{
	size_t i;

	for (i = 0; i < it->nvars; i++)
		free(it->vars[i]);
	for (i = 0; i < it->nitems * it->nvars; i++)
		free(it->vals[i]);
	free(it->vars);
	free(it->vals);
	memset(it, 0, sizeof(*it));
}

/* One row from TEXT: split at commas and white space, the last variable
 * taking the rest of it. */
static void
items_add_row(struct items *it, const char *text)
{
	const char *s = text, *e;
	size_t v;

	if (it->nitems + 1 > it->cap) {
		it->cap = it->cap ? 2 * it->cap : 16;
		it->vals = xreallocarray(it->vals, it->cap * it->nvars,
		    sizeof(*it->vals));
	}
	for (v = 0; v < it->nvars; v++) {
		while (*s == ',' || isspace((unsigned char)*s))
			s++;
		if (v + 1 == it->nvars) {
			e = s + strlen(s);
			while (e > s && isspace((unsigned char)e[-1]))
				e--;
		} else
			e = s + strcspn(s, ", \t");
		it->vals[it->nitems * it->nvars + v] = xstrndup(s,
		    (size_t)(e - s));
		s = e;
	}
	it->nitems++;
}

/* Each line of TEXT (blank lines and # comments left out) a row. */
static void
items_add_lines(struct items *it, char *text)
{
	char *l, *save = NULL;

	for (l = strtok_r(text, "\n", &save); l != NULL;
	    l = strtok_r(NULL, "\n", &save)) {
		l = sub_trim(l);
		if (*l != '\0' && *l != '#')
			items_add_row(it, l);
	}
}

/* Whether LIST (a "(...)" spanning lines, or what is left of the line)
 * is closed; its inside into *IN (NUL-terminated in place). */
static int
paren_list(char *list, char **in)
{
	char *close;

	list = sub_trim(list);
	if (*list != '(') {
		*in = list;
		return 1;
	}
	if ((close = strrchr(list, ')')) == NULL ||
	    sub_trim(close + 1)[0] != '\0')
		return 0;
	*close = '\0';
	*in = list + 1;
	return 1;
}

/* The rows of "from FILE" or "from ( lines )"; -1 with the error. */
static int
items_from(struct parser *p, struct items *it, char *rest, int line)
{
	char *in, *path, shownbuf[64];
	struct buf b;
	struct stat st;
	FILE *f;
	char chunk[8192];
	size_t n;
	int fd;

	if (*sub_trim(rest) == '(') {
		if (!paren_list(rest, &in)) {
			sub_perr(p, line,
			    "queue ... from (: the list is not closed "
			    "with )");
			return -1;
		}
		items_add_lines(it, in);
		return 0;
	}
	rest = sub_trim(rest);
	if (*rest == '\0') {
		sub_perr(p, line, "queue ... from: a file or a ( list ) is "
		    "missing");
		return -1;
	}
	path = sub_path_join(p->cwd, rest);
	memset(&st, 0, sizeof(st));
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (f = fdopen(fd, "r")) == NULL) {
		if (fd != -1 && !S_ISREG(st.st_mode))
			errno = EINVAL;
		sub_perr(p, line, "queue ... from %s: %s",
		    sub_shown(rest, shownbuf, sizeof(shownbuf)),
		    errno == EINVAL ? "not a regular file" : strerror(errno));
		if (fd != -1)
			close(fd);
		free(path);
		return -1;
	}
	free(path);
	buf_init(&b);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		buf_add(&b, chunk, n);
		if (b.len > SUBMIT_MAX_FILE)
			break;
	}
	fclose(f);
	if (b.len > SUBMIT_MAX_FILE || memchr(b.data, '\0', b.len) != NULL) {
		sub_perr(p, line,
		    "queue ... from %s: not a text file of at most "
		    "%d bytes", sub_shown(rest, shownbuf, sizeof(shownbuf)),
		    SUBMIT_MAX_FILE);
		buf_free(&b);
		return -1;
	}
	for (n = 0; n < b.len; n++)
		if (b.data[n] == '\r')
			b.data[n] = '\n';
	items_add_lines(it, b.data);
	buf_free(&b);
	return 0;
}

/* The rows of "matching [files|dirs] GLOB...", sorted as glob sorts. */
static int
items_matching(struct parser *p, struct items *it, char *rest, int line)
{
	char *w, *save = NULL, *pat, *in;
	int want = 3;	/* 1 files, 2 directories */
	glob_t g;
	struct stat st;
	size_t i;

	/* The patterns may be a ( list ), over lines, after files|dirs. */
	rest = sub_trim(rest);
	for (i = 0; i < 2; i++) {
		size_t n = strcspn(rest, " \t\n(");

		if ((n == 5 && strncasecmp(rest, "files", 5) == 0) ||
		    (n == 4 && strncasecmp(rest, "dirs", 4) == 0)) {
			want = tolower((unsigned char)rest[0]) == 'f' ? 1 : 2;
			rest = sub_trim(rest + n);
		}
	}
	if (!paren_list(rest, &in)) {
		sub_perr(p, line,
		    "queue ... matching (: the list is not closed "
		    "with )");
		return -1;
	}
	for (w = strtok_r(in, " \t\n,", &save); w != NULL;
	    w = strtok_r(NULL, " \t\n,", &save)) {
		if (strcasecmp(w, "files") == 0 || strcasecmp(w, "dirs") == 0) {
			want = w[0] == 'f' || w[0] == 'F' ? 1 : 2;
			continue;
		}
		pat = sub_path_join(p->cwd, w);
		memset(&g, 0, sizeof(g));
		if (glob(pat, 0, NULL, &g) == 0) {
			for (i = 0; i < g.gl_pathc; i++) {
				const char *m = g.gl_pathv[i];

				if (stat(m, &st) == -1 ||
				    !((want & 1 && !S_ISDIR(st.st_mode)) ||
				    (want & 2 && S_ISDIR(st.st_mode))))
					continue;
				/* As written: relative stays relative. */
				if (w[0] != '/' && strncmp(m, p->cwd,
				    strlen(p->cwd)) == 0 &&
				    m[strlen(p->cwd)] == '/')
					m += strlen(p->cwd) + 1;
				items_add_row(it, m);
				if (it->nitems > SUBMIT_MAX_PROCS)
					break;
			}
		}
		globfree(&g);
		free(pat);
		/* What matched nothing, for the message if nothing is
		 * queued at all. */
		if (it->nitems == 0 && p->empty_match[0] == '\0')
			snprintf(p->empty_match, sizeof(p->empty_match),
			    "%s matches %s", want == 2 ? "no directory" :
			    "no file", w);
	}
	return 0;
}

/*
 * The slice "start:stop:step" (LEN bytes at TEXT; each part may be
 * missing, start and stop may be negative) into SLICE: start, stop,
 * step, whether start and stop were given.  -1 if it is not one.
 */
static int
parse_slice(const char *text, size_t len, long long slice[5])
{
	char part[32], *end;
	size_t i, n;
	int k;

	slice[0] = 0;
	slice[1] = 0;
	slice[2] = 1;
	slice[3] = slice[4] = 0;
	for (k = 0, i = 0; k < 3; k++) {
		n = 0;
		while (i < len && text[i] != ':' && n + 1 < sizeof(part))
			part[n++] = text[i++];
		part[n] = '\0';
		if (i < len && text[i] != ':')
			return -1;
		if (*sub_trim(part) != '\0') {
			errno = 0;
			slice[k] = strtoll(sub_trim(part), &end, 10);
			if (*end != '\0' || errno != 0 ||
			    slice[k] < -SUBMIT_MAX_FILE ||
			    slice[k] > SUBMIT_MAX_FILE)
				return -1;
			if (k < 2)
				slice[3 + k] = 1;
		}
		if (i == len)
			break;
		i++;		/* the ':' */
	}
	if (i < len || slice[2] < 1)
		return -1;
	return 0;
}

/* Keep the rows SLICE picks, Python's way. */
static void
items_slice(struct items *it, const long long slice[5])
{
	long long n = (long long)it->nitems, start, stop, r;
	size_t kept = 0, v;

	start = slice[3] ? slice[0] : 0;
	stop = slice[4] ? slice[1] : n;
	if (start < 0)
		start += n;
	if (stop < 0)
		stop += n;
	start = start < 0 ? 0 : start > n ? n : start;
	stop = stop < 0 ? 0 : stop > n ? n : stop;
	for (r = 0; r < n; r++) {
		int keep = r >= start && r < stop &&
		    (r - start) % slice[2] == 0;

		for (v = 0; v < it->nvars; v++) {
			char *val = it->vals[(size_t)r * it->nvars + v];

			if (keep)
				it->vals[kept * it->nvars + v] = val;
			else
				free(val);
		}
		if (keep)
			kept++;
	}
	it->nitems = kept;
}

/* TEXT as an expression whose value is a whole number of jobs, 0 or
 * more (up to the limit), into *N; -1 if it is not one. */
static int
expr_count(const char *text, long long *n)
{
	char err[256];
	struct expr *e;
	struct value v;
	int rc = -1;

	if ((e = expr_parse(text, err, sizeof(err))) == NULL)
		return -1;
	expr_eval(e, NULL, NULL, &v);
	expr_free(e);
	if (v.type == VAL_INT && v.u.i >= 0 && v.u.i <= SUBMIT_MAX_PROCS) {
		*n = v.u.i;
		rc = 0;
	}
	value_free(&v);
	return rc;
}

/*
 * What follows "queue": [N] [VAR[,VAR...] in|from|matching ...].  *N is
 * the count; IT gets the items (none for a plain "queue N").
 */
static int
queue_args(struct parser *p, char *text, int line, long long *n,
    struct items *it)
{
	char *s = sub_trim(text), *w, *kw = NULL, *rest = NULL, *vars, *in;
	const char *whole = s;
	char shownbuf[64], *v, *save = NULL;
	size_t len;
	long long slice[5];
	int rc, sliced = 0;

	*n = 1;
	if (*s == '\0')
		return 0;
	if (isdigit((unsigned char)*s) || *s == '-' || *s == '+') {
		len = strcspn(s, " \t");
		w = xstrndup(s, len);
		if (sub_parse_long(w, n) == -1 || *n < 0) {
			sub_perr(p, line,
			    "the queue count must be a whole number "
			    "of jobs, 0 or more, not \"%s\"",
			    sub_shown(w, shownbuf, sizeof(shownbuf)));
			free(w);
			return -1;
		}
		free(w);
		s = sub_trim(s + len);
		if (*s == '\0')
			return 0;
	}
	/* The keyword: the first word that is one. */
	for (w = s; *w != '\0'; ) {
		len = strcspn(w, " \t,(");
		if ((len == 2 && strncasecmp(w, "in", 2) == 0) ||
		    (len == 4 && strncasecmp(w, "from", 4) == 0) ||
		    (len == 8 && strncasecmp(w, "matching", 8) == 0)) {
			kw = w;
			rest = w + len;
			break;
		}
		w += len;
		w += strspn(w, " \t,");
		if (*w == '(')
			break;
	}
	if (kw == NULL) {
		/* HTCondor's count is an expression: queue $(N) * 2. */
		if (expr_count(whole, n) == 0)
			return 0;
		sub_perr(p, line,
		    "queue takes [N] [VARS in|from|matching ...], "
		    "not \"%s\"", sub_shown(s, shownbuf, sizeof(shownbuf)));
		return -1;
	}
	vars = xstrndup(s, (size_t)(kw - s));
	for (v = strtok_r(vars, " \t,", &save); v != NULL;
	    v = strtok_r(NULL, " \t,", &save)) {
		if (!sub_macro_name_valid(v) || strlen(v) > AD_MAX_NAME) {
			sub_perr(p, line, "queue: bad variable name \"%s\"",
			    sub_shown(v, shownbuf, sizeof(shownbuf)));
			free(vars);
			return -1;
		}
		it->vars = xreallocarray(it->vars, it->nvars + 1,
		    sizeof(*it->vars));
		it->vars[it->nvars] = xstrdup(v);
		sub_lower(it->vars[it->nvars++]);
	}
	free(vars);
	if (it->nvars == 0) {
		it->vars = xcalloc(1, sizeof(*it->vars));
		it->vars[it->nvars++] = xstrdup("item");
	}
	/* A Python slice of the items: [start:stop:step]. */
	rest = sub_trim(rest);
	if (*rest == '[') {
		if ((w = strchr(rest, ']')) == NULL ||
		    parse_slice(rest + 1, (size_t)(w - rest - 1),
		    slice) == -1) {
			sub_perr(p, line,
			    "queue: a slice is [start:stop:step], "
			    "whole numbers, step above 0");
			return -1;
		}
		sliced = 1;
		rest = w + 1;
	}
	switch (tolower((unsigned char)kw[0])) {
	case 'i':
		if (!paren_list(rest, &in)) {
			sub_perr(p, line,
			    "queue ... in (: the list is not closed "
			    "with )");
			return -1;
		}
		/* Items at commas, white space and line ends; one value
		 * an item whatever the variables. */
		for (v = strtok_r(in, ", \t\n", &save); v != NULL;
		    v = strtok_r(NULL, ", \t\n", &save))
			items_add_row(it, v);
		rc = 0;
		break;
	case 'f':
		rc = items_from(p, it, rest, line);
		break;
	default:
		rc = items_matching(p, it, rest, line);
		break;
	}
	if (rc == 0 && sliced)
		items_slice(it, slice);
	return rc;
}

/* "queue [N] [VARS in|from|matching ...]" at LINE: ARG is what follows
 * the word. */
int
sub_queue_stmt(struct parser *p, const char *arg, int line)
{
	struct kval kv[NKW], *cv = NULL;
	struct def **cdefs = NULL, cnt;
	char **cnames = NULL, *whole;
	const char *list;
	struct items it;
	struct stmt *st;
	struct kval q;
	size_t ncv, i, k, per;
	long long n = 1;
	int rc = -1, deps = 0;

	memset(kv, 0, sizeof(kv));
	memset(&cnt, 0, sizeof(cnt));
	memset(&it, 0, sizeof(it));
	/* A ( list (after a blank or a slice's ]) with no macro in it is
	 * taken as it is: a long one is not a value, bounded by
	 * SUBMIT_MAX_VALUE once expanded. */
	for (list = strchr(arg, '('); list != NULL && (list == arg ||
	    (list[-1] != ' ' && list[-1] != '\t' && list[-1] != ']'));
	    list = strchr(list + 1, '('))
		;
	if (list != NULL && strchr(list, '$') == NULL) {
		cnt.value = xstrndup(arg, (size_t)(list - arg));
		cnt.line = line;
		rc = sub_kval_expand(p, &cnt, p->nprocs, &q);
		free(cnt.value);
		if (rc == -1)
			return -1;
		whole = xasprintf("%s %s", q.text != NULL ? q.text : "", list);
		free(q.text);
		q.text = whole;
		rc = -1;
	} else {
		cnt.value = (char *)arg;
		cnt.line = line;
		if (sub_kval_expand(p, &cnt, p->nprocs, &q) == -1)
			return -1;
	}
	if (q.text != NULL && queue_args(p, q.text, line, &n, &it) == -1) {
		free(q.text);
		items_free(&it);
		return -1;
	}
	free(q.text);
	/* N jobs for each item. */
	per = (size_t)n;
	if (it.nvars > 0)
		n = it.nitems > 0 && per > 0 && it.nitems >
		    (size_t)SUBMIT_MAX_PROCS / per ? SUBMIT_MAX_PROCS + 1LL :
		    (long long)(it.nitems * per);
	if (n > (long long)(SUBMIT_MAX_PROCS - p->nprocs)) {
		sub_perr(p, line, "too many jobs: a cluster holds at most %d",
		    SUBMIT_MAX_PROCS);
		items_free(&it);
		return -1;
	}
	p->qvars = it.vars;
	p->nqvars = it.nvars;
	p->qvals = it.nitems > 0 ? it.vals : NULL;
	p->qstep = p->qrow = 0;

	/* The custom attributes, in the order first defined. */
	ncv = p->ncustoms;
	if (ncv + NKW + 16 > AD_MAX_ATTRS) {
		sub_perr(p, line, "too many custom attributes (%zu; at most %d "
		    "in all)", ncv, AD_MAX_ATTRS - NKW - 16);
		return -1;
	}
	cv = xcalloc(ncv + 1, sizeof(*cv));
	cdefs = xcalloc(ncv + 1, sizeof(*cdefs));
	cnames = xcalloc(ncv + 1, sizeof(*cnames));
	for (k = 0; k < ncv; k++) {
		cdefs[k] = &p->defs[p->customs[k]];
		cnames[k] = cdefs[k]->name;
	}

	if (p->nstmts == p->capstmts) {
		p->capstmts = p->capstmts ? 2 * p->capstmts : 16;
		p->stmts = xreallocarray(p->stmts, p->capstmts,
		    sizeof(*p->stmts));
	}
	st = &p->stmts[p->nstmts++];
	memset(st, 0, sizeof(*st));
	st->first = p->nprocs;
	st->count = (size_t)n;
	st->line = line;
	st->seq = p->seq;

	/* Even "queue 0" checks the description. */
	if (expand_all(p, st->first, kv, cv, cdefs, ncv, 0) == -1)
		goto out;
	if (sub_build(p, kv, cv, cnames, ncv, st->first, 1, line,
	    &st->base) == -1)
		goto out;
	for (i = 0; i < st->base.n; i++)
		deps |= st->base.a[i].deps;
	if (n > 1 && (deps & DEP_PROCESS)) {
		st->more = xcalloc((size_t)n - 1, sizeof(*st->more));
		for (k = 1; k < (size_t)n; k++) {
			/* Item k / per, step k % per. */
			p->qstep = per > 0 ? k % per : 0;
			p->qrow = per > 0 ? k / per : 0;
			if (it.nitems > 0)
				p->qvals = &it.vals[p->qrow * it.nvars];
			if (expand_all(p, st->first + k, kv, cv, cdefs, ncv,
			    1) == -1)
				goto out;
			if (sub_build(p, kv, cv, cnames, ncv, st->first + k, 0,
			    line, &st->more[k - 1]) == -1)
				goto out;
		}
	}
	p->nprocs += (size_t)n;
	rc = 0;
out:
	p->qvars = p->qvals = NULL;
	p->nqvars = 0;
	items_free(&it);
	kvals_free(kv, NKW);
	kvals_free(cv, ncv);
	free(cv);
	free(cdefs);
	free(cnames);
	return rc;
}
