/*
 * fn_string.c: the ClassAd functions on strings: strcat, join, substr,
 * toUpper, toLower, size, strcmp, stricmp, the version comparisons and
 * the regular expressions.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "classad_impl.h"
#include "expr.h"
#include "regex_pcre.h"
#include "xalloc.h"

fn_t fn_strcat, fn_case, fn_substr, fn_size, fn_strcmp, fn_version,
    fn_version_in_range, fn_regexp, fn_regexps, fn_regexpmember;

/*
 * strcat(A, ...): the arguments as text; join(SEP, A, ...) or
 * join(SEP, LIST) or join(LIST): with SEP between them.  ERROR if one
 * is ERROR; UNDEFINED arguments make strcat UNDEFINED and are skipped
 * by join.
 */
void
fn_strcat(const struct expr *call, const struct env *env, struct value *out)
{
	int is_join = strcasecmp(call->name, "join") == 0;
	struct value v, lst, *items = NULL;
	size_t n = 0, i, nlist = 0;
	struct buf b, sep;
	int undef = 0, defined = 0, first = 1;
	char *s;

	val_undef(&lst);
	if (is_join && call->nkids >= 1 && call->nkids <= 2) {
		classad_eval(call->kids[call->nkids - 1], env, &lst);
		if (lst.type == VAL_LIST)
			nlist = list_len(&lst);
		else
			value_free(&lst);
	}
	n = lst.type == VAL_LIST ? nlist + 1 : call->nkids;
	items = xcalloc(n ? n : 1, sizeof(*items));
	for (i = 0; i < n; i++) {
		if (lst.type != VAL_LIST)
			classad_eval(call->kids[i], env, &items[i]);
		else if (i == 0 && call->nkids == 2)
			classad_eval(call->kids[0], env, &items[0]);
		else if (i == 0)
			val_strdup(&items[0], "");
		else
			list_item(&lst, i - 1, &items[i], env->ctx);
	}
	buf_init(&b);
	buf_init(&sep);
	for (i = 0; i < n; i++) {
		v = items[i];
		if (v.type == VAL_UNDEFINED) {
			undef = 1;
			if (is_join)
				continue;
			defined = 0;
			break;
		}
		if (v.type == VAL_ERROR) {
			val_error(out);
			goto done;
		}
		s = val_text(&v);
		if (is_join && i == 0) {
			buf_adds(&sep, s);
			free(s);
			continue;
		}
		/* HTCondor puts no separator after an empty start. */
		if (is_join && !first && b.len > 0)
			buf_add(&b, sep.data, sep.len);
		first = 0;
		defined = 1;
		buf_adds(&b, s);
		free(s);
		if (b.len > EXPR_MAX_STRING) {
			val_error(out);
			goto done;
		}
	}
	if (undef && !defined)
		val_undef(out);
	else
		val_string(out, buf_take(&b));
done:
	buf_free(&b);
	buf_free(&sep);
	args_free(items, n);
	free(items);
	value_free(&lst);
}

/* toUpper(S), toLower(S). */
void
fn_case(const struct expr *call, const struct env *env, struct value *out)
{
	struct value v;
	char *s, *p;
	int up = strcasecmp(call->name, "toUpper") == 0;

	if (call->nkids != 1) {
		val_error(out);
		return;
	}
	classad_eval(call->kids[0], env, &v);
	if (v.type == VAL_UNDEFINED || v.type == VAL_ERROR) {
		*out = v;
		return;
	}
	s = val_text(&v);
	value_free(&v);
	for (p = s; *p != '\0'; p++)
		*p = (char)(up ? toupper((unsigned char)*p) :
		    tolower((unsigned char)*p));
	val_string(out, s);
}

/* substr(S, OFFSET[, LENGTH]): negative OFFSET from the end, negative
 * LENGTH leaves that many off the end. */
void
fn_substr(const struct expr *call, const struct env *env, struct value *out)
{
	struct value a[3];
	size_t n, i;
	long long len, off, ln;

	if (call->nkids < 2 || call->nkids > 3) {
		val_error(out);
		return;
	}
	n = args_eval(call, env, a, 3);
	for (i = 0; i < n; i++)
		if (a[i].type == VAL_UNDEFINED) {
			val_undef(out);
			goto done;
		}
	if (a[0].type != VAL_STRING || a[1].type != VAL_INT ||
	    (n == 3 && a[2].type != VAL_INT)) {
		val_error(out);
		goto done;
	}
	len = (long long)strlen(a[0].u.s);
	off = a[1].u.i;
	ln = n == 3 ? a[2].u.i : 0;
	if (off < 0) {
		off += len;
		if (off < 0)
			off = 0;
	} else if (off >= len)
		off = len;
	if (ln <= 0) {
		ln = len - off + ln;
		if (ln < 0)
			ln = 0;
	} else if (ln > len - off)
		ln = len - off;
	if (n == 3 && a[2].u.i == 0)
		ln = 0;
	val_string(out, xstrndup(a[0].u.s + off, (size_t)ln));
done:
	args_free(a, n);
}

/* size(X): characters of a string, elements of a list, attributes of
 * an ad. */
void
fn_size(const struct expr *call, const struct env *env, struct value *out)
{
	struct value v;

	if (call->nkids != 1) {
		val_error(out);
		return;
	}
	classad_eval(call->kids[0], env, &v);
	if (v.type == VAL_UNDEFINED)
		val_undef(out);
	else if (v.type == VAL_STRING)
		val_int(out, (long long)strlen(v.u.s));
	else if (v.type == VAL_LIST || v.type == VAL_AD)
		val_int(out, (long long)v.u.x.e->nkids);
	else
		val_error(out);
	value_free(&v);
}

/* Two arguments as text: 1, or 0 with OUT set (UNDEFINED or ERROR). */
static int
two_texts(const struct expr *call, const struct env *env, char **s1,
    char **s2, struct value *out)
{
	struct value a[2];
	int ok = 0;

	if (call->nkids != 2) {
		val_error(out);
		return 0;
	}
	args_eval(call, env, a, 2);
	if (a[0].type == VAL_UNDEFINED || a[1].type == VAL_UNDEFINED)
		val_undef(out);
	else if (a[0].type == VAL_ERROR || a[1].type == VAL_ERROR)
		val_error(out);
	else {
		*s1 = val_text(&a[0]);
		*s2 = val_text(&a[1]);
		ok = 1;
	}
	args_free(a, 2);
	return ok;
}

/* strcmp(A, B), stricmp(A, B): -1, 0 or 1. */
void
fn_strcmp(const struct expr *call, const struct env *env, struct value *out)
{
	char *a, *b;
	int c;

	if (!two_texts(call, env, &a, &b, out))
		return;
	c = strcasecmp(call->name, "stricmp") == 0 ? strcasecmp(a, b) :
	    strcmp(a, b);
	val_int(out, c < 0 ? -1 : c > 0);
	free(a);
	free(b);
}

/*
 * Version order, as HTCondor's (glibc's strverscmp, whose value it
 * returns): runs of digits compare as numbers, so "8.10.0" is after
 * "8.9.2"; leading zeros make a fraction.
 */
static int
version_cmp(const char *s1, const char *s2)
{
	const unsigned char *a = (const unsigned char *)s1;
	const unsigned char *b = (const unsigned char *)s2;
	size_t i = 0, n1, z1, z2, e1, e2;

	while (a[i] != '\0' && a[i] == b[i])
		i++;
	if (a[i] == b[i])
		return 0;
	n1 = i;
	while (n1 > 0 && isdigit(a[n1 - 1]))
		n1--;
	if (n1 == i && (!isdigit(a[i]) || !isdigit(b[i])))
		return a[i] - b[i];
	z1 = z2 = n1;
	while (a[z1] == '0')
		z1++;
	while (b[z2] == '0')
		z2++;
	if (z1 > n1 && !isdigit(a[z1]))
		z1--;
	if (z2 > n1 && !isdigit(b[z2]))
		z2--;
	if (z1 - n1 != z2 - n1)
		return (int)(z2 - n1) - (int)(z1 - n1);
	if (z1 > n1)
		return a[i] - b[i];
	for (e1 = z1; isdigit(a[e1]); e1++)
		;
	for (e2 = z2; isdigit(b[e2]); e2++)
		;
	if (e1 - n1 != e2 - n1)
		return (int)(e1 - n1) - (int)(e2 - n1);
	return a[i] - b[i];
}

/* versioncmp(A, B): <0, 0, >0; versionLT, versionLE, versionEQ,
 * versionGE, versionGT: booleans. */
void
fn_version(const struct expr *call, const struct env *env, struct value *out)
{
	char *a, *b;
	int c;

	if (!two_texts(call, env, &a, &b, out))
		return;
	c = version_cmp(a, b);
	free(a);
	free(b);
	if (strcasecmp(call->name, "versioncmp") == 0)
		val_int(out, c);
	else if (strcasecmp(call->name, "versionLT") == 0)
		val_bool(out, c < 0);
	else if (strcasecmp(call->name, "versionLE") == 0)
		val_bool(out, c <= 0);
	else if (strcasecmp(call->name, "versionEQ") == 0)
		val_bool(out, c == 0);
	else if (strcasecmp(call->name, "versionGE") == 0)
		val_bool(out, c >= 0);
	else
		val_bool(out, c > 0);
}

/* version_in_range(V, LO, HI): LO <= V <= HI in version order. */
void
fn_version_in_range(const struct expr *call, const struct env *env,
    struct value *out)
{
	struct value a[3];
	char *s[3];
	size_t i;

	if (call->nkids != 3) {
		val_error(out);
		return;
	}
	args_eval(call, env, a, 3);
	if (a[1].type == VAL_UNDEFINED || a[2].type == VAL_UNDEFINED)
		val_undef(out);
	else if (a[0].type == VAL_UNDEFINED || a[0].type == VAL_ERROR ||
	    a[1].type == VAL_ERROR || a[2].type == VAL_ERROR)
		val_error(out);
	else {
		for (i = 0; i < 3; i++)
			s[i] = val_text(&a[i]);
		val_bool(out, version_cmp(s[1], s[0]) <= 0 &&
		    version_cmp(s[0], s[2]) <= 0);
		for (i = 0; i < 3; i++)
			free(s[i]);
	}
	args_free(a, 3);
}

/*
 * Regular expressions: PCRE's syntax, matched in linear time by
 * src/util/regex.c (rx_*), so that no pattern a user writes can keep
 * the negotiator busy; options as HTCondor's ("i", "m", "s", "x"; "f"
 * and "g" for substitution).  A pattern that does not compile is ERROR.
 */
int	 re_options(const char *opts);

/* HTCondor honours the lower-case option letters only. */
int
re_options(const char *opts)
{
	char lower[16] = "";
	size_t n = 0;

	for (; opts != NULL && *opts != '\0' && n < sizeof(lower) - 1; opts++)
		if (strchr("imsxfg", *opts) != NULL && strchr(lower, *opts) ==
		    NULL) {
			lower[n++] = *opts;
			lower[n] = '\0';
		}
	lower[n] = '\0';
	return rx_options(lower);
}

static struct rx *
re_compile(const char *pattern, const char *opts)
{
	return rx_compile(pattern, re_options(opts), NULL, 0);
}

/* Checks common to the regular-expression functions: ERROR before
 * UNDEFINED; the options argument (index NFIXED) must be a string. */
static int
pattern_args(const struct value *a, size_t n, size_t nfixed,
    struct value *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i].type == VAL_ERROR) {
			val_error(out);
			return 0;
		}
	for (i = 0; i < n; i++)
		if (a[i].type == VAL_UNDEFINED) {
			val_undef(out);
			return 0;
		}
	if (n > nfixed && a[nfixed].type != VAL_STRING) {
		val_error(out);
		return 0;
	}
	return 1;
}

/* regexp(PATTERN, TARGET[, OPTIONS]): whether PATTERN matches. */
void
fn_regexp(const struct expr *call, const struct env *env, struct value *out)
{
	struct value a[3];
	size_t n;
	struct rx *re;
	int r;

	if (call->nkids < 2 || call->nkids > 3) {
		val_error(out);
		return;
	}
	n = args_eval(call, env, a, 3);
	if (!pattern_args(a, n, 2, out))
		goto done;
	if (a[0].type != VAL_STRING || a[1].type != VAL_STRING ||
	    (re = re_compile(a[0].u.s, n == 3 ? a[2].u.s : NULL)) == NULL) {
		val_error(out);
		goto done;
	}
	r = rx_search(re, a[1].u.s, strlen(a[1].u.s), 0, NULL, 0);
	if (r < 0)
		val_error(out);		/* too costly to answer */
	else
		val_bool(out, r);
	rx_free(re);
done:
	args_free(a, n);
}

/*
 * regexpMember(PATTERN, LIST[, OPTIONS]): whether an element matches.
 * As in HTCondor, a PATTERN that does not compile matches no element
 * (the value is then FALSE, or UNDEFINED beside an UNDEFINED element),
 * while an element neither a string nor UNDEFINED is still an ERROR.
 */
void
fn_regexpmember(const struct expr *call, const struct env *env,
    struct value *out)
{
	struct value a[3], item;
	size_t n, i;
	struct rx *re;
	int undef = 0, found = 0;

	if (call->nkids < 2 || call->nkids > 3) {
		val_error(out);
		return;
	}
	n = args_eval(call, env, a, 3);
	if (!pattern_args(a, n, 2, out))
		goto done;
	if (a[0].type == VAL_STRING && a[1].type == VAL_LIST &&
	    list_len(&a[1]) == 0) {
		val_bool(out, 0);	/* no element to match, nothing compiled */
		goto done;
	}
	if (a[0].type != VAL_STRING || a[1].type != VAL_LIST) {
		val_error(out);
		goto done;
	}
	re = re_compile(a[0].u.s, n == 3 ? a[2].u.s : NULL);
	for (i = 0; i < list_len(&a[1]) && !found; i++) {
		list_item(&a[1], i, &item, env->ctx);
		if (item.type == VAL_STRING)
			found = re == NULL ? 0 : rx_search(re, item.u.s,
			    strlen(item.u.s), 0, NULL, 0);
		else if (item.type == VAL_UNDEFINED)
			undef = 1;
		else {
			value_free(&item);
			rx_free(re);
			val_error(out);
			goto done;
		}
		value_free(&item);
	}
	rx_free(re);
	if (found < 0)
		val_error(out);		/* too costly to answer */
	else if (found)
		val_bool(out, 1);
	else if (undef)
		val_undef(out);
	else
		val_bool(out, 0);
done:
	args_free(a, n);
}

/* 1 if RE matches the empty string at the end of SUBJECT (or the
 * search is too costly to answer: ERROR too). */
static int
global_empty_at_end(const struct rx *re, const char *subject)
{
	struct rx_match m;
	size_t len = strlen(subject);
	int r = rx_search(re, subject, len, len, &m, 1);

	return r < 0 || (r == 1 && m.so == len && m.eo == len);
}

/*
 * regexps(PATTERN, TARGET, SUBST[, OPTIONS]): SUBST with \0..\9 replaced
 * by what the match captured; replace() keeps the rest of TARGET around
 * the first match, replaceall() replaces every match.
 */
void
fn_regexps(const struct expr *call, const struct env *env, struct value *out)
{
	struct value a[4];
	size_t n;
	struct rx *re;
	char *r;
	int opts;

	if (call->nkids < 3 || call->nkids > 4) {
		val_error(out);
		return;
	}
	n = args_eval(call, env, a, 4);
	if (!pattern_args(a, n, 3, out))
		goto done;
	opts = re_options(n == 4 ? a[3].u.s : NULL);
	if (strcasecmp(call->name, "replace") == 0)
		opts |= RX_FULL;
	else if (strcasecmp(call->name, "replaceAll") == 0)
		opts |= RX_FULL | RX_GLOBAL;
	if (a[0].type != VAL_STRING || a[1].type != VAL_STRING ||
	    a[2].type != VAL_STRING ||
	    (re = rx_compile(a[0].u.s, opts, NULL, 0)) == NULL) {
		val_error(out);
		goto done;
	}
	/* HTCondor's replaceAll() gives ERROR where the pattern matches
	 * the empty string at the very end of TARGET (its PCRE loop finds
	 * no way past that match). */
	if ((opts & RX_GLOBAL) && global_empty_at_end(re, a[1].u.s)) {
		rx_free(re);
		val_error(out);
		goto done;
	}
	r = rx_subst(re, a[1].u.s, strlen(a[1].u.s), a[2].u.s, opts, NULL,
	    NULL);
	rx_free(re);
	if (r == NULL)
		val_error(out);
	else
		val_string(out, r);
done:
	args_free(a, n);
}
