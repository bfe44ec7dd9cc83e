/*
 * fn_env.c: the ClassAd functions on a job's environment and arguments
 * in HTCondor's two syntaxes (envV1ToV2, mergeEnvironment, argsToList,
 * listToArgs) and userHome, as HTCondor's ClassAd layer has them.
 *
 * The second ("V2") syntax of both is a list of words separated by
 * white space, a word quoted where it holds white space or a quote:
 * 'a b' is one word, '' inside quotes one quote, '' alone an empty
 * word.  An environment in it is NAME=value words; the first ("V1")
 * environment syntax is NAME=value entries separated by ';' (or by the
 * character it starts with, one of !#$%&*+,-/:;<>?@^`|~), the first
 * arguments syntax words separated by white space, with no quoting.
 */
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "classad_impl.h"
#include "expr.h"
#include "xalloc.h"

fn_t fn_envv1tov2, fn_mergeenv, fn_argstolist, fn_listtoargs, fn_userhome;

#define ENV_MAX_WORDS	4096	/* words of one environment or argument list */

/* A list of words, or of NAME=value entries kept sorted by name. */
struct words {
	char	**v;
	size_t	  n, cap;
};

static void
words_free(struct words *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	memset(w, 0, sizeof(*w));
}

static int
words_add(struct words *w, const char *s, size_t len)
{
	if (w->n >= ENV_MAX_WORDS)
		return 0;
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 8;
		w->v = xreallocarray(w->v, w->cap, sizeof(*w->v));
	}
	w->v[w->n++] = xstrndup(s, len);
	return 1;
}

/*
 * Set variable ENTRY ("NAME=value") in ENV, sorted by name as
 * HTCondor's table is (bytes, case counting); a later one replaces.  An
 * entry with no '=' is kept as it is only when it holds "$$" (a macro
 * the schedd expands later); otherwise, or with an empty name, 0.
 */
static int
env_set(struct words *env, const char *entry, size_t len)
{
	const char *eq = memchr(entry, '=', len);
	size_t name = eq != NULL ? (size_t)(eq - entry) : len, i, m;
	char *last;
	int c;

	if (name == 0 || (eq == NULL && (len < 2 ||
	    memmem(entry, len, "$$", 2) == NULL)))
		return 0;
	for (i = 0; i < env->n; i++) {
		m = strcspn(env->v[i], "=");
		c = memcmp(env->v[i], entry, m < name ? m : name);
		if (c == 0)
			c = m < name ? -1 : m > name;
		if (c == 0) {
			free(env->v[i]);
			env->v[i] = xstrndup(entry, len);
			return 1;
		}
		if (c > 0)
			break;
	}
	if (!words_add(env, entry, len))
		return 0;
	last = env->v[env->n - 1];
	memmove(env->v + i + 1, env->v + i, (env->n - 1 - i) * sizeof(char *));
	env->v[i] = last;
	return 1;
}

/* The words of S in the second syntax into W; 0 on an unbalanced
 * quote or too many words. */
static int
split_v2(const char *s, struct words *w)
{
	struct buf b;
	int token = 0, ok = 1;

	buf_init(&b);
	while (*s != '\0' && ok) {
		if (*s == '\'') {
			token = 1;
			for (s++;; s++) {
				if (*s == '\0') {
					ok = 0;
					break;
				}
				if (*s == '\'' && s[1] == '\'')
					buf_addc(&b, *s++);
				else if (*s == '\'')
					break;
				else
					buf_addc(&b, *s);
			}
			if (ok)
				s++;
		} else if (strchr(" \t\n\r", *s) != NULL) {
			s++;
			if (token && !words_add(w, b.data, b.len))
				ok = 0;
			token = 0;
			buf_reset(&b);
		} else {
			token = 1;
			buf_addc(&b, *s++);
		}
	}
	if (ok && token && !words_add(w, b.data, b.len))
		ok = 0;
	buf_free(&b);
	return ok;
}

/* Word S appended to B in the second syntax. */
static void
join_v2(struct buf *b, const char *s)
{
	if (b->len > 0)
		buf_addc(b, ' ');
	if (*s == '\0')
		buf_adds(b, "''");
	for (; *s != '\0'; s++) {
		if (strchr(" \t\n\r'", *s) == NULL) {
			buf_addc(b, *s);
			continue;
		}
		/* Run quoted stretches together: a'b c' rather than a'b'' c'. */
		if (b->len > 0 && b->data[b->len - 1] == '\'')
			b->data[--b->len] = '\0';
		else
			buf_addc(b, '\'');
		if (*s == '\'')
			buf_addc(b, '\'');
		buf_addc(b, *s);
		buf_addc(b, '\'');
	}
}

static void
env_result(struct words *env, struct value *out)
{
	struct buf b;
	size_t i;

	buf_init(&b);
	for (i = 0; i < env->n; i++)
		join_v2(&b, env->v[i]);
	words_free(env);
	val_string(out, buf_take(&b));
}

/*
 * envV1ToV2(S): environment S of the first syntax in the second, its
 * variables sorted by name.  UNDEFINED is UNDEFINED; not a string, or
 * an entry that is not NAME=value, ERROR.
 */
void
fn_envv1tov2(const struct expr *call, const struct env *env,
    struct value *out)
{
	static const char delims[] = "!#$%&*+,-/:;<>?@^`|~\x1F";
	struct words vars = { NULL, 0, 0 };
	struct value v;
	const char *s, *end;
	char delim = ';';

	if (call->nkids != 1) {
		val_error(out);
		return;
	}
	classad_eval(call->kids[0], env, &v);
	if (v.type != VAL_STRING) {
		if (v.type == VAL_UNDEFINED)
			val_undef(out);
		else
			val_error(out);
		value_free(&v);
		return;
	}
	s = v.u.s;
	if (*s != '\0' && strchr(delims, *s) != NULL)
		delim = *s++;
	while (*s != '\0') {
		s += strspn(s, " \t\n\r");
		for (end = s; *end != '\0' && *end != delim && *end != '\n';
		    end++)
			;
		if (end > s && !env_set(&vars, s, (size_t)(end - s))) {
			words_free(&vars);
			value_free(&v);
			val_error(out);
			return;
		}
		s = *end != '\0' ? end + 1 : end;
	}
	value_free(&v);
	env_result(&vars, out);
}

/*
 * mergeEnvironment(E1, ...): environments of the second syntax merged,
 * a later variable replacing an earlier one of that name; UNDEFINED
 * arguments are skipped.  An argument that is not a string, or not
 * NAME=value words, is ERROR.
 */
void
fn_mergeenv(const struct expr *call, const struct env *env,
    struct value *out)
{
	struct words vars = { NULL, 0, 0 }, w;
	struct value v;
	size_t i, j;
	int ok = 1;

	for (i = 0; i < call->nkids && ok; i++) {
		classad_eval(call->kids[i], env, &v);
		if (v.type == VAL_UNDEFINED)
			continue;
		memset(&w, 0, sizeof(w));
		ok = v.type == VAL_STRING && split_v2(v.u.s, &w);
		for (j = 0; ok && j < w.n; j++)
			ok = env_set(&vars, w.v[j], strlen(w.v[j]));
		words_free(&w);
		value_free(&v);
	}
	if (!ok) {
		words_free(&vars);
		val_error(out);
		return;
	}
	env_result(&vars, out);
}

/* The syntax version argument I of CALL (2 when there is none): 1 or
 * 2, or 0 when it is not one of them. */
static int
syntax_version(const struct expr *call, size_t i, const struct env *env)
{
	struct value v;
	int vers = 0;

	if (call->nkids <= i)
		return 2;
	classad_eval(call->kids[i], env, &v);
	if (v.type == VAL_INT && (v.u.i == 1 || v.u.i == 2))
		vers = (int)v.u.i;
	value_free(&v);
	return vers;
}

/*
 * argsToList(S[, V]): the list of the words of arguments S in syntax V
 * (2 by default; 1 splits at white space only).  S not a string, V not
 * 1 or 2, or an unbalanced quote: ERROR.
 */
void
fn_argstolist(const struct expr *call, const struct env *env,
    struct value *out)
{
	struct words w = { NULL, 0, 0 };
	struct value v, *vals;
	const char *s;
	size_t i, len;
	int vers, ok = 1;

	if (call->nkids < 1 || call->nkids > 2 ||
	    (vers = syntax_version(call, 1, env)) == 0) {
		val_error(out);
		return;
	}
	classad_eval(call->kids[0], env, &v);
	if (v.type != VAL_STRING) {
		value_free(&v);
		val_error(out);
		return;
	}
	if (vers == 2)
		ok = split_v2(v.u.s, &w);
	else
		for (s = v.u.s; ok && *s != '\0'; s += len) {
			s += strspn(s, " \t\n\r");
			len = strcspn(s, " \t\n\r");
			if (len > 0)
				ok = words_add(&w, s, len);
		}
	value_free(&v);
	if (!ok) {
		words_free(&w);
		val_error(out);
		return;
	}
	vals = xcalloc(w.n > 0 ? w.n : 1, sizeof(*vals));
	for (i = 0; i < w.n; i++) {
		val_string(&vals[i], w.v[i]);
		w.v[i] = NULL;
	}
	val_list(out, vals, w.n);
	free(vals);
	w.n = 0;
	words_free(&w);
}

/*
 * listToArgs(L[, V]): the strings of list L as arguments in syntax V
 * (2 by default).  L not a list, an element not a string, V not 1 or 2,
 * or a word syntax 1 cannot hold (white space in it): ERROR.
 */
void
fn_listtoargs(const struct expr *call, const struct env *env,
    struct value *out)
{
	struct value list, item;
	struct buf b;
	size_t i, n;
	int vers, ok = 1;

	if (call->nkids < 1 || call->nkids > 2 ||
	    (vers = syntax_version(call, 1, env)) == 0) {
		val_error(out);
		return;
	}
	classad_eval(call->kids[0], env, &list);
	if (list.type != VAL_LIST) {
		value_free(&list);
		val_error(out);
		return;
	}
	buf_init(&b);
	n = list_len(&list);
	for (i = 0; i < n && ok; i++) {
		list_item(&list, i, &item, env->ctx);
		if (item.type != VAL_STRING)
			ok = 0;
		else if (vers == 2)
			join_v2(&b, item.u.s);
		else if (item.u.s[strcspn(item.u.s, " \t\n\r")] != '\0')
			ok = 0;
		else {
			if (b.len > 0)
				buf_addc(&b, ' ');
			buf_adds(&b, item.u.s);
		}
		value_free(&item);
	}
	value_free(&list);
	if (!ok) {
		buf_free(&b);
		val_error(out);
		return;
	}
	val_string(out, buf_take(&b));
}

/* Whether configuration setting NAME is a true boolean. */
static int
config_true(const char *name)
{
	const char *s = classad_config(name);

	return s != NULL && (strcasecmp(s, "true") == 0 ||
	    strcasecmp(s, "yes") == 0 || strcmp(s, "1") == 0 ||
	    strcasecmp(s, "t") == 0);
}

/*
 * userHome(USER[, DEFAULT]): USER's home directory from the password
 * database, when CLASSAD_ENABLE_USER_HOME is true (a lookup may be slow
 * where the database is remote).  Otherwise, or when there is no such
 * user, DEFAULT if it is a non-empty string, else UNDEFINED; USER not a
 * string (nor UNDEFINED) is DEFAULT or ERROR.
 */
void
fn_userhome(const struct expr *call, const struct env *env,
    struct value *out)
{
	struct value user, def;
	struct passwd *pw;
	char *dflt = NULL;

	if (call->nkids != 1 && call->nkids != 2) {
		val_error(out);
		return;
	}
	if (call->nkids == 2) {
		classad_eval(call->kids[1], env, &def);
		if (def.type == VAL_STRING && def.u.s[0] != '\0')
			dflt = xstrdup(def.u.s);
		value_free(&def);
	}
	classad_eval(call->kids[0], env, &user);
	if (user.type == VAL_STRING && config_true("CLASSAD_ENABLE_USER_HOME") &&
	    (pw = getpwnam(user.u.s)) != NULL && pw->pw_dir != NULL) {
		val_strdup(out, pw->pw_dir);
		free(dflt);
	} else if (dflt != NULL)
		val_string(out, dflt);
	else if (user.type == VAL_STRING || user.type == VAL_UNDEFINED)
		val_undef(out);
	else
		val_error(out);
	value_free(&user);
}
