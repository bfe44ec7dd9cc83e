/*
 * jobargs.c: splitting a job's Args and Env (see jobargs.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jobargs.h"
#include "xalloc.h"

void
jobargs_free(char **words)
{
	char **w;

	if (words == NULL)
		return;
	for (w = words; *w != NULL; w++)
		free(*w);
	free(words);
}

int
jobargs_split(const char *args, char ***words, char *err, size_t errlen)
{
	const char *p = args ? args : "";
	char **v = xcalloc(1, sizeof(*v));
	struct buf w;
	int n = 0, inword, quoted;

	buf_init(&w);
	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			break;
		if (n >= JOBARGS_MAX_WORDS) {
			snprintf(err, errlen, "more than %d arguments",
			    JOBARGS_MAX_WORDS);
			goto fail;
		}
		buf_reset(&w);
		inword = 1;
		quoted = 0;
		while (inword && *p != '\0') {
			if (quoted) {
				if (*p == '\\' && (p[1] == '"' ||
				    p[1] == '\\')) {
					buf_addc(&w, p[1]);
					p += 2;
				} else if (*p == '"') {
					quoted = 0;
					p++;
				} else
					buf_addc(&w, *p++);
			} else if (*p == '"') {
				quoted = 1;
				p++;
			} else if (isspace((unsigned char)*p))
				inword = 0;
			else
				buf_addc(&w, *p++);
		}
		if (quoted) {
			snprintf(err, errlen, "unterminated quote in "
			    "arguments");
			goto fail;
		}
		v = xreallocarray(v, (size_t)n + 2, sizeof(*v));
		v[n++] = xstrndup(w.data, w.len);
		v[n] = NULL;
	}
	buf_free(&w);
	*words = v;
	return n;
fail:
	buf_free(&w);
	jobargs_free(v);
	*words = NULL;
	return -1;
}

static int
env_name_valid(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	for (i = 1; i < len; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return 0;
	return 1;
}

int
jobenv_parse(const char *env, char ***vars, char *err, size_t errlen)
{
	const char *p = env ? env : "", *end, *eq;
	char **v = xcalloc(1, sizeof(*v));
	int n = 0;

	while (*p != '\0') {
		end = p + strcspn(p, ";");
		while (p < end && isspace((unsigned char)*p))
			p++;
		if (p == end) {
			p = *end ? end + 1 : end;
			continue;
		}
		eq = memchr(p, '=', (size_t)(end - p));
		if (eq == NULL || !env_name_valid(p, (size_t)(eq - p))) {
			snprintf(err, errlen, "bad environment entry "
			    "\"%.*s\": expected NAME=value", (int)(end - p),
			    p);
			jobargs_free(v);
			*vars = NULL;
			return -1;
		}
		if (n >= JOBARGS_MAX_WORDS) {
			snprintf(err, errlen, "more than %d environment "
			    "variables", JOBARGS_MAX_WORDS);
			jobargs_free(v);
			*vars = NULL;
			return -1;
		}
		v = xreallocarray(v, (size_t)n + 2, sizeof(*v));
		v[n++] = xstrndup(p, (size_t)(end - p));
		v[n] = NULL;
		p = *end ? end + 1 : end;
	}
	*vars = v;
	return n;
}

const char *
jobenv_get(char **vars, const char *name)
{
	size_t len = strlen(name);
	char **v;

	for (v = vars; v != NULL && *v != NULL; v++)
		if (strncmp(*v, name, len) == 0 && (*v)[len] == '=')
			return *v + len + 1;
	return NULL;
}

int
jobenv_set(char ***vars, int n, const char *name, const char *value)
{
	size_t len = strlen(name);
	char **v = *vars;
	int i;

	for (i = 0; i < n; i++) {
		if (strncmp(v[i], name, len) == 0 && v[i][len] == '=') {
			free(v[i]);
			v[i] = xasprintf("%s=%s", name, value);
			return n;
		}
	}
	v = xreallocarray(v, (size_t)n + 2, sizeof(*v));
	v[n++] = xasprintf("%s=%s", name, value);
	v[n] = NULL;
	*vars = v;
	return n;
}
