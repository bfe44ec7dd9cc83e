/*
 * fn_usermap.c: the ClassAd function userMap(), which maps a name (a
 * user) through a map of HTCondor's map-file form to a list of groups.
 *
 * Map NAME is the file CLASSAD_USER_MAPFILE_<NAME> names or, without
 * one, the lines CLASSAD_USER_MAPDATA_<NAME> holds.  Each line is
 * "METHOD PRINCIPAL RESULT": METHOD "*" for userMap() (a map name
 * written "NAME.METHOD" picks another); PRINCIPAL a name matched
 * exactly (case counting) or "/regex/" with the flag i after it
 * (ignore case); RESULT the mapped text, where \0..\9 stand for the
 * regex's groups (\0 the whole name).  A field may be "quoted" to hold
 * white space (\" a quote).  Lines starting with '#' and blank lines are
 * skipped, as are lines missing a field and regexes that do not
 * compile (or ask for the U flag, which this matcher lacks); the first
 * line that matches wins.  A map is read again when its file (path,
 * size, time) or its text in the configuration changes.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "buf.h"
#include "classad_impl.h"
#include "expr.h"
#include "regex_pcre.h"
#include "xalloc.h"

fn_t fn_usermap;

#define USERMAP_MAX_BYTES	(4 * 1024 * 1024)	/* of one map */
#define USERMAP_MAX_NAME	128	/* bytes of a map's name */
#define USERMAP_CACHE		16	/* maps kept parsed */
#define USERMAP_GROUPS		10	/* \0 .. \9 */

struct map_line {
	char		*method;
	char		*principal;	/* a literal, when RE is NULL */
	struct rx	*re;
	char		*result;
};

struct usermap {
	char		*name;
	char		*source;	/* the file's path, or the map's text */
	int		 is_file;
	struct stat	 st;		/* of the file when it was read */
	struct map_line	*lines;
	size_t		 n, cap;
};

static struct usermap cache[USERMAP_CACHE];
static size_t cache_next;	/* the slot to reuse next */

static void
map_clear(struct usermap *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		free(m->lines[i].method);
		free(m->lines[i].principal);
		rx_free(m->lines[i].re);
		free(m->lines[i].result);
	}
	free(m->lines);
	free(m->name);
	free(m->source);
	memset(m, 0, sizeof(*m));
}

/*
 * The field of LINE[0..LEN) at *OFF into B, as HTCondor's map files have
 * them: white space before it skipped; "quoted" (\" a quote, \\ a
 * backslash) or, for a principal (RE not NULL), /regex/ with flags
 * after it (*RE set to 1, *FLAGS the RX_ flags, -1 for one we lack);
 * else up to white space.  A quote left open ends at the line's end.
 */
static void
map_field(const char *line, size_t len, size_t *off, struct buf *b, int *re,
    int *flags)
{
	size_t i = *off;
	char end = 0;

	buf_reset(b);
	while (i < len && (line[i] == ' ' || line[i] == '\t' ||
	    line[i] == '\r'))
		i++;
	if (i < len && (line[i] == '"' || (re != NULL && line[i] == '/')))
		end = line[i++];
	if (re != NULL) {
		*re = end == '/';
		*flags = 0;
	}
	for (; i < len; i++) {
		if (end == 0) {
			if (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')
				break;
			buf_addc(b, line[i]);
		} else if (line[i] == end) {
			for (i++; end == '/' && i < len; i++)
				if (line[i] == 'i')
					*flags |= RX_CASELESS;
				else if (line[i] == 'U')
					*flags = -1;
				else
					break;
			break;
		} else if (line[i] == '\\' && i + 1 < len) {
			i++;
			if (line[i] != end && line[i] != '\\')
				buf_addc(b, '\\');
			buf_addc(b, line[i]);
		} else
			buf_addc(b, line[i]);
	}
	*off = i;
}

/* The lines of map text TEXT[0..LEN) into M. */
static void
map_parse(struct usermap *m, const char *text, size_t len)
{
	struct buf method, principal, result;
	const char *line, *nl;
	size_t off, ll;
	int re, flags;
	struct rx *rx;

	buf_init(&method);
	buf_init(&principal);
	buf_init(&result);
	for (line = text; line < text + len; line = nl + 1) {
		if ((nl = memchr(line, '\n', (size_t)(text + len - line))) ==
		    NULL)
			nl = text + len;
		ll = (size_t)(nl - line);
		off = 0;
		map_field(line, ll, &off, &method, NULL, NULL);
		if (method.len == 0 || method.data[0] == '#' ||
		    strcmp(method.data, "@include") == 0)
			continue;
		map_field(line, ll, &off, &principal, &re, &flags);
		map_field(line, ll, &off, &result, NULL, NULL);
		if (principal.len == 0 || result.len == 0 || flags < 0)
			continue;
		rx = NULL;
		if (re && (rx = rx_compilen(principal.data, principal.len,
		    flags, NULL, 0)) == NULL)
			continue;
		if (m->n == m->cap) {
			m->cap = m->cap ? m->cap * 2 : 16;
			m->lines = xreallocarray(m->lines, m->cap,
			    sizeof(*m->lines));
		}
		m->lines[m->n].method = xstrdup(method.data);
		m->lines[m->n].principal = re ? NULL : xstrdup(principal.data);
		m->lines[m->n].re = rx;
		m->lines[m->n].result = xstrdup(result.data);
		m->n++;
	}
	buf_free(&method);
	buf_free(&principal);
	buf_free(&result);
}

/* The whole of file PATH (at most USERMAP_MAX_BYTES) into B; 0 if it
 * cannot be read. */
static int
map_read(const char *path, struct stat *st, struct buf *b)
{
	char chunk[8192];
	ssize_t got;
	int fd, ok = 1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	if (fstat(fd, st) == -1 || !S_ISREG(st->st_mode) ||
	    st->st_size > USERMAP_MAX_BYTES) {
		close(fd);
		return 0;
	}
	for (;;) {
		got = read(fd, chunk, sizeof(chunk));
		if (got == -1 && errno == EINTR)
			continue;
		if (got <= 0) {
			ok = got == 0;
			break;
		}
		if (b->len + (size_t)got > USERMAP_MAX_BYTES) {
			ok = 0;
			break;
		}
		buf_add(b, chunk, (size_t)got);
	}
	close(fd);
	return ok;
}

/* Map NAME, read or read again as the configuration has it; NULL when
 * it configures none or its file cannot be read. */
static struct usermap *
map_find(const char *name)
{
	char key[USERMAP_MAX_NAME + 32];
	const char *file, *data;
	struct usermap *m = NULL;
	struct stat st;
	struct buf b;
	size_t i;

	if (*name == '\0' || strlen(name) > USERMAP_MAX_NAME)
		return NULL;
	for (i = 0; name[i] != '\0'; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_')
			return NULL;
	(void)snprintf(key, sizeof(key), "CLASSAD_USER_MAPFILE_%s", name);
	file = classad_config(key);
	(void)snprintf(key, sizeof(key), "CLASSAD_USER_MAPDATA_%s", name);
	data = file == NULL ? classad_config(key) : NULL;
	for (i = 0; i < USERMAP_CACHE; i++)
		if (cache[i].name != NULL && strcasecmp(cache[i].name, name) == 0)
			m = &cache[i];
	if (file == NULL && data == NULL) {
		if (m != NULL)
			map_clear(m);
		return NULL;
	}
	if (m != NULL && file != NULL && m->is_file &&
	    strcmp(m->source, file) == 0 && stat(file, &st) == 0 &&
	    st.st_mtime == m->st.st_mtime && st.st_size == m->st.st_size &&
	    st.st_ino == m->st.st_ino)
		return m;
	if (m != NULL && data != NULL && !m->is_file &&
	    strcmp(m->source, data) == 0)
		return m;
	if (m == NULL) {
		m = &cache[cache_next];
		cache_next = (cache_next + 1) % USERMAP_CACHE;
	}
	map_clear(m);
	m->name = xstrdup(name);
	buf_init(&b);
	if (file != NULL) {
		m->is_file = 1;
		m->source = xstrdup(file);
		if (!map_read(file, &m->st, &b)) {
			buf_free(&b);
			map_clear(m);
			return NULL;
		}
		map_parse(m, b.data, b.len);
	} else {
		m->source = xstrdup(data);
		map_parse(m, data, strlen(data));
	}
	buf_free(&b);
	return m;
}

/* RESULT with \0..\9 replaced by the groups G of SUBJECT, into B. */
static void
map_substitute(const char *result, const char *subject,
    const struct rx_match *g, size_t ng, struct buf *b)
{
	const char *p;
	size_t k;

	for (p = result; *p != '\0'; p++) {
		if (*p != '\\' || p[1] == '\0') {
			buf_addc(b, *p);
			continue;
		}
		p++;
		if (isdigit((unsigned char)*p) && (k = (size_t)(*p - '0')) < ng) {
			if (g[k].so != RX_UNSET)
				buf_add(b, subject + g[k].so, g[k].eo - g[k].so);
			continue;
		}
		buf_addc(b, '\\');
		buf_addc(b, *p);
	}
}

/* Map INPUT through map MAPNAME ("NAME" or "NAME.METHOD") into B; 0
 * when there is no such map or no line matches. */
static int
map_apply(const char *mapname, const char *input, struct buf *b)
{
	char name[USERMAP_MAX_NAME + 1];
	const char *dot = strchr(mapname, '.'), *method = "*";
	struct rx_match g[USERMAP_GROUPS];
	struct usermap *m;
	size_t i, len, ng;

	len = dot != NULL ? (size_t)(dot - mapname) : strlen(mapname);
	if (len > USERMAP_MAX_NAME)
		return 0;
	memcpy(name, mapname, len);
	name[len] = '\0';
	if (dot != NULL)
		method = dot + 1;
	if ((m = map_find(name)) == NULL)
		return 0;
	for (i = 0; i < m->n; i++) {
		if (strcasecmp(m->lines[i].method, method) != 0)
			continue;
		if (m->lines[i].re == NULL) {
			if (strcmp(m->lines[i].principal, input) != 0)
				continue;
			g[0].so = 0;
			g[0].eo = strlen(input);
			ng = 1;
		} else {
			ng = rx_ngroups(m->lines[i].re) + 1;
			if (ng > USERMAP_GROUPS)
				ng = USERMAP_GROUPS;
			if (!rx_search(m->lines[i].re, input, strlen(input), 0,
			    g, ng))
				continue;
		}
		map_substitute(m->lines[i].result, input, g, ng, b);
		return 1;
	}
	return 0;
}

/*
 * userMap(MAP, USER): the text USER maps to in MAP (its groups, by
 * commas), UNDEFINED when it maps to nothing; userMap(MAP, USER,
 * PREFERRED): PREFERRED if it is one of those groups (any case), else
 * the first, UNDEFINED when there is none; userMap(MAP, USER,
 * PREFERRED, DEFAULT): likewise, DEFAULT where that is UNDEFINED.  MAP
 * or USER ERROR is ERROR; not a string otherwise UNDEFINED (DEFAULT with
 * four arguments).
 */
void
fn_usermap(const struct expr *call, const struct env *env,
    struct value *out)
{
	struct value a[4];
	struct buf b;
	const char *p, *pick = NULL;
	size_t n, len, picklen = 0;

	if (call->nkids < 2 || call->nkids > 4) {
		val_error(out);
		return;
	}
	n = args_eval(call, env, a, 4);
	buf_init(&b);
	if (a[0].type != VAL_STRING || a[1].type != VAL_STRING) {
		if (a[0].type == VAL_ERROR || a[1].type == VAL_ERROR)
			val_error(out);
		else if (n == 4) {
			value_copy(out, &a[3]);
		} else
			val_undef(out);
	} else if (!map_apply(a[0].u.s, a[1].u.s, &b)) {
		if (n == 4)
			value_copy(out, &a[3]);
		else
			val_undef(out);
	} else if (n == 2)
		val_strdup(out, b.data);
	else {
		/* The groups, by commas, white space around them dropped. */
		for (p = b.data; *p != '\0'; p += len) {
			p += strspn(p, ", \t\r\n");
			len = strcspn(p, ",");
			while (len > 0 && isspace((unsigned char)p[len - 1]))
				len--;
			if (len == 0)
				break;
			if (pick == NULL) {
				pick = p;
				picklen = len;
			}
			if (a[2].type == VAL_STRING &&
			    strlen(a[2].u.s) == len &&
			    strncasecmp(p, a[2].u.s, len) == 0) {
				pick = p;
				picklen = len;
				break;
			}
			len += strcspn(p + len, ",");
		}
		if (pick != NULL)
			val_string(out, xstrndup(pick, picklen));
		else if (n == 4)
			value_copy(out, &a[3]);
		else
			val_undef(out);
	}
	buf_free(&b);
	args_free(a, n);
}
