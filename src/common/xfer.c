/*
 * xfer.c: file lists of jobs that transfer files (xfer.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"
#include "xfer.h"

char **
xfer_list_split(const char *text, size_t *n)
{
	char **items = NULL;
	size_t cap = 0, len;
	const char *s = text;

	*n = 0;
	while (s != NULL && *s != '\0') {
		while (*s == ',' || isspace((unsigned char)*s))
			s++;
		if (*s == '\0')
			break;
		for (len = 0; s[len] != '\0' && s[len] != ',' &&
		    !isspace((unsigned char)s[len]); len++)
			;
		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			items = xreallocarray(items, cap, sizeof(*items));
		}
		items[(*n)++] = xstrndup(s, len);
		s += len;
	}
	return items;
}

void
xfer_list_free(char **items, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(items[i]);
	free(items);
}

int
xfer_name_ok(const char *name)
{
	const char *c = name, *e;
	size_t len;

	if (*name == '\0' || *name == '/' || strlen(name) >= XFER_NAME_LEN)
		return 0;
	for (e = name; *e != '\0'; e++)
		if ((unsigned char)*e < 0x20 || *e == 0x7f)
			return 0;
	while (*c != '\0') {
		e = strchr(c, '/');
		len = e ? (size_t)(e - c) : strlen(c);
		if (len == 0 || (len == 1 && c[0] == '.') ||
		    (len == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		if (e == NULL)
			break;
		c = e + 1;
		if (*c == '\0')
			return 0;	/* a trailing slash */
	}
	return 1;
}

/* S without the white space around it, in a new string. */
static char *
trimmed(const char *s, size_t len)
{
	while (len > 0 && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	return xstrndup(s, len);
}

int
xfer_remaps_parse(const char *text, struct xfer_remap **out, size_t *n,
    char *err, size_t errlen)
{
	struct xfer_remap *r = NULL;
	size_t cap = 0, len;
	const char *s, *end, *eq, *semi;
	char *name, *to;

	*out = NULL;
	*n = 0;
	while (isspace((unsigned char)*text))
		text++;
	len = strlen(text);
	while (len > 0 && isspace((unsigned char)text[len - 1]))
		len--;
	if (len >= 2 && text[0] == '"' && text[len - 1] == '"') {
		text++;
		len -= 2;
	}
	end = text + len;
	for (s = text; s < end; s = semi + 1) {
		semi = memchr(s, ';', (size_t)(end - s));
		if (semi == NULL)
			semi = end;
		eq = memchr(s, '=', (size_t)(semi - s));
		if (eq == NULL) {
			name = trimmed(s, (size_t)(semi - s));
			if (*name == '\0') {
				free(name);
				if (semi == end)
					break;
				continue;
			}
			snprintf(err, errlen, "\"%s\" has no '='", name);
			free(name);
			goto bad;
		}
		name = trimmed(s, (size_t)(eq - s));
		to = trimmed(eq + 1, (size_t)(semi - eq - 1));
		if (!xfer_name_ok(name) || *to == '\0' ||
		    strlen(to) >= XFER_NAME_LEN * 4) {
			snprintf(err, errlen, "\"%s = %s\": the name must be "
			    "a relative path inside the job's directory, and "
			    "the destination not empty", name, to);
			free(name);
			free(to);
			goto bad;
		}
		if (*n == cap) {
			cap = cap ? cap * 2 : 4;
			r = xreallocarray(r, cap, sizeof(*r));
		}
		r[*n].name = name;
		r[*n].to = to;
		(*n)++;
		if (semi == end)
			break;
	}
	*out = r;
	return 0;
bad:
	xfer_remaps_free(r, *n);
	*n = 0;
	return -1;
}

void
xfer_remaps_free(struct xfer_remap *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(r[i].name);
		free(r[i].to);
	}
	free(r);
}
