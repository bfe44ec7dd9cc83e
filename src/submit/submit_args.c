/*
 * submit_args.c: arguments and environment, in Condor's one-line form
 * and HTCondor's new syntax (the value in double quotes), and getenv.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "submit_int.h"
#include "xalloc.h"

/* What the starter accepts as a variable name: [A-Za-z_][A-Za-z0-9_]*. */
static int
env_name_valid(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || (!isalpha((unsigned char)s[0]) && s[0] != '_'))
		return 0;
	for (i = 1; i < len; i++)
		if (!isascii((unsigned char)s[i]) ||
		    (!isalnum((unsigned char)s[i]) && s[i] != '_'))
			return 0;
	return 1;
}

/*
 * HTCondor's new syntax for arguments and environment: the whole value
 * in double quotes ("" inside is one "), words parted by white space, a
 * stretch in single quotes part of a word, spaces and all ('' inside is
 * one ').  Whether TEXT is written so.
 */
int
sub_is_new_style(const char *text)
{
	size_t n = strlen(text);

	return n >= 2 && text[0] == '"' && text[n - 1] == '"';
}

/*
 * The words of the new-style TEXT, each ended by '\0', one after the
 * other in OUT; their number, or -1 with *WHY set.
 */
static int
new_style_words(const char *text, struct buf *out, const char **why)
{
	const char *s = text + 1, *end = text + strlen(text) - 1;
	int n = 0, in_word = 0, quoted = 0;

	for (; s < end; s++) {
		if (*s == '"') {
			if (s + 1 < end && s[1] == '"') {
				s++;
			} else {
				*why = "a lone \" inside (write \"\" for one)";
				return -1;
			}
		} else if (*s == '\'') {
			if (quoted && s + 1 < end && s[1] == '\'') {
				s++;	/* '' in quotes: one ' */
			} else {
				quoted = !quoted;
				if (!in_word) {
					in_word = 1;
					n++;
				}
				continue;
			}
		} else if (!quoted && isspace((unsigned char)*s)) {
			if (in_word)
				buf_addc(out, '\0');
			in_word = 0;
			continue;
		}
		if (!in_word) {
			in_word = 1;
			n++;
		}
		buf_addc(out, *s);
	}
	if (quoted) {
		*why = "a single quote is not closed";
		return -1;
	}
	if (in_word)
		buf_addc(out, '\0');
	return n;
}

/* New-style arguments TEXT in the form the starter splits (Args:
 * words at white space, "..." one word, \" and \\ inside); NULL (an
 * error given) if TEXT is malformed. */
char *
sub_args_from_new_style(struct parser *p, const char *text, int line)
{
	struct buf words, args;
	const char *w, *why = NULL, *c;
	int n, i;

	buf_init(&words);
	buf_init(&args);
	if ((n = new_style_words(text, &words, &why)) == -1) {
		sub_perr(p, line, "arguments: %s", why);
		buf_free(&words);
		buf_free(&args);
		return NULL;
	}
	for (i = 0, w = words.data; i < n; i++, w += strlen(w) + 1) {
		if (i > 0)
			buf_addc(&args, ' ');
		if (*w != '\0' && strpbrk(w, " \t\n\"\\") == NULL) {
			buf_adds(&args, w);
			continue;
		}
		buf_addc(&args, '"');
		for (c = w; *c != '\0'; c++) {
			if (*c == '"' || *c == '\\')
				buf_addc(&args, '\\');
			buf_addc(&args, *c);
		}
		buf_addc(&args, '"');
	}
	buf_free(&words);
	return buf_take(&args);
}

/*
 * The environment TEXT as "NAME=value;NAME2=value2": as it is, or from
 * HTCondor's new syntax ("NAME=value NAME2='a b'"); NULL (an error
 * given) if it cannot be written so.
 */
char *
sub_env_canonical(struct parser *p, const char *text, int line)
{
	char *item, shownbuf[64];
	const char *why = NULL;
	struct buf words;
	int n, i;

	if (!sub_is_new_style(text))
		return xstrdup(text);
	buf_init(&words);
	if ((n = new_style_words(text, &words, &why)) == -1) {
		sub_perr(p, line, "environment: %s", why);
		buf_free(&words);
		return NULL;
	}
	/* One word an item: ';' parts them from now on. */
	for (i = 0, item = words.data; i < n; i++) {
		size_t len = strlen(item);

		if (strchr(item, ';') != NULL) {
			sub_perr(p, line,
			    "environment: a value cannot hold ';' "
			    "(\"%s\")", sub_shown(item, shownbuf,
			    sizeof(shownbuf)));
			buf_free(&words);
			return NULL;
		}
		if (i + 1 < n)
			item[len] = ';';
		item += len + 1;
	}
	return buf_take(&words);
}

/* "NAME=value;NAME2=value2" checked and appended to ENV (a buf). */
int
sub_env_add_list(struct parser *p, const char *list, int line, struct buf *env)
{
	char *copy, *item, *save = NULL, *eq, shownbuf[64];
	const char *sep = ";";

	copy = xstrdup(list);
	for (item = strtok_r(copy, sep, &save); item != NULL;
	    item = strtok_r(NULL, sep, &save)) {
		item = sub_trim(item);
		if (*item == '\0')
			continue;
		eq = strchr(item, '=');
		if (eq == NULL || eq == item) {
			sub_perr(p, line,
			    "environment: \"%s\" is not NAME=value",
			    sub_shown(item, shownbuf, sizeof(shownbuf)));
			free(copy);
			return -1;
		}
		*eq = '\0';
		if (!env_name_valid(item, strlen(item))) {
			sub_perr(p, line,
			    "environment: bad variable name \"%s\"",
			    sub_shown(item, shownbuf, sizeof(shownbuf)));
			free(copy);
			return -1;
		}
		*eq = '=';
		if (env->len > 0)
			buf_addc(env, ';');
		buf_adds(env, item);
	}
	free(copy);
	return 0;
}

/* Whether the variable NAME (NLEN bytes) matches one of the shell
 * patterns of the getenv list ONLY (commas or white space between). */
static int
getenv_wanted(const char *only, const char *name, size_t nlen)
{
	char pat[256], var[256];
	const char *s = only;
	size_t n;

	if (nlen >= sizeof(var))
		return 0;
	memcpy(var, name, nlen);
	var[nlen] = '\0';
	while (*s != '\0') {
		s += strspn(s, ", \t");
		n = strcspn(s, ", \t");
		if (n > 0 && n < sizeof(pat)) {
			memcpy(pat, s, n);
			pat[n] = '\0';
			if (fnmatch(pat, var, 0) == 0)
				return 1;
		}
		s += n;
	}
	return 0;
}

/*
 * The submitter's environment for getenv, minus what the one-line
 * format cannot hold (';' in a value, odd names) and what EXPLICIT sets
 * anyway.
 */
void
sub_env_add_getenv(struct parser *p, const char *explicit, const char *only,
    int line, struct buf *env)
{
	char *const *e;
	const char *eq;
	struct buf skipped;
	size_t nlen;

	if (p->env->environ == NULL)
		return;
	buf_init(&skipped);
	for (e = p->env->environ; *e != NULL; e++) {
		if ((eq = strchr(*e, '=')) == NULL || eq == *e)
			continue;
		nlen = (size_t)(eq - *e);
		if (only != NULL && !getenv_wanted(only, *e, nlen))
			continue;
		if (strchr(eq + 1, ';') != NULL || !env_name_valid(*e, nlen)) {
			buf_printf(&skipped, "%s%.*s", skipped.len ? " " : "",
			    (int)nlen, *e);
			continue;
		}
		if (explicit != NULL) {
			/* Is NAME= at the start of an item of EXPLICIT? */
			const char *q = explicit;
			int found = 0;

			while (*q != '\0' && !found) {
				while (*q == ';' || isspace((unsigned char)*q))
					q++;
				if (strncmp(q, *e, nlen + 1) == 0)
					found = 1;
				q += strcspn(q, ";");
			}
			if (found)
				continue;
		}
		if (env->len > 0)
			buf_addc(env, ';');
		buf_adds(env, *e);
	}
	if (skipped.len > 0)
		sub_pwarn(p, line,
		    "getenv: left out %s (a ';' in the value, or "
		    "not a plain name)",
		    skipped.data);
	buf_free(&skipped);
}
