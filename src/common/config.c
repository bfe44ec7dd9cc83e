/*
 * config.c: reading condor_config(5) and answering param().
 *
 * Definitions live in a store: a hash table keyed by the case-folded name,
 * plus the definitions in the order they were first made.  The table's
 * defaults (config_table.c) are loaded into a fresh store first, so that a
 * file's definition simply replaces a default and $(X) finds either.
 *
 * Values are kept as written and expanded only when asked for, both '='
 * macros and ':' expressions, so that a local file which redefines MINUTE
 * changes every policy written in $(MINUTE), whichever file defined it.
 * An expansion is cached in its entry until the configuration changes.
 *
 * Expansion is bounded in depth, in the number of macros expanded and in
 * the length of the result (CONFIG_MAX_*), so that no file, however
 * written, can make param() run long or exhaust memory; a cycle is an
 * error that names the macros on it.
 *
 * config_init builds the new configuration beside the old one and swaps
 * only when every file was read without error, so a daemon that re-reads a
 * broken file on SIGHUP keeps running on what it had.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <netdb.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "expr.h"
#include "log.h"
#include "xalloc.h"

#define CONFIG_MAX_NAME	256	/* bytes in a setting's name */

struct entry {
	char		*name;		/* spelling of the first definition */
	char		*raw;		/* as written; NULL: undefined */
	const char	*file;		/* NULL: the table or config_set */
	int		 line;
	int		 is_expr;	/* defined with ':' */
	int		 literal;	/* a computed default: never expanded */
	char		*(*compute)(void); /* ... not computed yet (raw "") */
	ssize_t		*match;		/* '(' in raw -> its ')', when needed */
	char		*cache;		/* raw expanded (in cache_gen) */
	int		 cache_err;	/* ... and that expansion failed */
	unsigned long	 cache_gen;
	int		 busy;		/* being expanded: met again, a cycle */
	struct entry	*next;		/* hash chain */
};

struct store {
	struct entry	**bucket;
	size_t		  nbucket;	/* a power of two */
	struct entry	**order;	/* in order of first definition */
	size_t		  n, cap;
	char		**files;	/* every file read, in order */
	size_t		  nfiles;
	char		 *main_file;
	struct buf	  local;	/* local files read, space separated */
	int		  personal;	/* no file names the central manager */
};

/* Text being expanded, with its paren matches computed on first need. */
struct text {
	const char	*s;
	size_t		 len;
	ssize_t		*match;
};

struct expansion {
	struct entry	*stack[CONFIG_MAX_DEPTH];	/* macros open */
	size_t		 depth;
	size_t		 nest;		/* macros and defaults open */
	size_t		 nsubst;
	struct buf	*out;
	char		*err;
	size_t		 errlen;
	struct entry	*blame;		/* a file's entry open at the error */
};

static struct store	*cf;
static unsigned long	 cf_gen = 1;	/* bumped whenever a value changes */

static int	 expand_range(struct expansion *, struct text *, size_t,
		    size_t);

static int
is_name_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '.';
}

static int
is_env_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_';
}

static int
is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* FNV-1a over the case-folded name. */
static size_t
name_hash(const char *name, size_t len)
{
	size_t h = 2166136261u, i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)lower((unsigned char)name[i]);
		h *= 16777619u;
	}
	return h;
}

static int
name_eq(const char *a, const char *b, size_t blen)
{
	return strncasecmp(a, b, blen) == 0 && a[blen] == '\0';
}

static struct store *
store_new(void)
{
	struct store *s;

	s = xcalloc(1, sizeof(*s));
	s->nbucket = 128;
	s->bucket = xcalloc(s->nbucket, sizeof(*s->bucket));
	buf_init(&s->local);
	return s;
}

static void
store_free(struct store *s)
{
	struct entry *e;
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->n; i++) {
		e = s->order[i];
		free(e->name);
		free(e->raw);
		free(e->match);
		free(e->cache);
		free(e);
	}
	for (i = 0; i < s->nfiles; i++)
		free(s->files[i]);
	free(s->files);
	free(s->order);
	free(s->bucket);
	free(s->main_file);
	buf_free(&s->local);
	free(s);
}

static struct entry *
store_lookup(struct store *s, const char *name, size_t len)
{
	struct entry *e;

	for (e = s->bucket[name_hash(name, len) & (s->nbucket - 1)];
	    e != NULL; e = e->next)
		if (name_eq(e->name, name, len))
			return e;
	return NULL;
}

static void
store_grow(struct store *s)
{
	struct entry **nb, *e;
	size_t i, nn = s->nbucket * 2, h;

	nb = xcalloc(nn, sizeof(*nb));
	for (i = 0; i < s->n; i++) {
		e = s->order[i];
		h = name_hash(e->name, strlen(e->name)) & (nn - 1);
		e->next = nb[h];
		nb[h] = e;
	}
	free(s->bucket);
	s->bucket = nb;
	s->nbucket = nn;
}

/*
 * Define NAME (LEN bytes) as RAW, which the store takes over; NULL RAW
 * undefines it.  Callers bump cf_gen once they are done defining.
 */
static void
store_define(struct store *s, const char *name, size_t len, char *raw,
    int is_expr, const char *file, int line)
{
	struct entry *e;
	size_t h;

	if ((e = store_lookup(s, name, len)) == NULL) {
		if (s->n >= s->nbucket)
			store_grow(s);
		if (s->n == s->cap) {
			s->cap = s->cap ? s->cap * 2 : 128;
			s->order = xreallocarray(s->order, s->cap,
			    sizeof(*s->order));
		}
		e = xcalloc(1, sizeof(*e));
		e->name = xstrndup(name, len);
		h = name_hash(name, len) & (s->nbucket - 1);
		e->next = s->bucket[h];
		s->bucket[h] = e;
		s->order[s->n++] = e;
	}
	free(e->raw);
	free(e->match);
	e->match = NULL;
	e->raw = raw;
	e->is_expr = is_expr;
	e->literal = 0;
	e->compute = NULL;
	e->file = file;
	e->line = line;
	/* Its old expansion stays until recomputed: see param(). */
	e->cache_gen = 0;
}

static const char *
store_add_file(struct store *s, const char *path)
{
	s->files = xreallocarray(s->files, s->nfiles + 1, sizeof(*s->files));
	s->files[s->nfiles] = xstrdup(path);
	return s->files[s->nfiles++];
}

/* The directory above the one holding the running program. */
static const char *
exe_release_dir(void)
{
	static char dir[PATH_MAX];
	char *slash;
	ssize_t n;
	int i;

	if (dir[0] != '\0')
		return dir;
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (n <= 0) {
		snprintf(dir, sizeof(dir), ".");
		return dir;
	}
	dir[n] = '\0';
	for (i = 0; i < 2; i++) {
		if ((slash = strrchr(dir, '/')) == NULL) {
			snprintf(dir, sizeof(dir), ".");
			return dir;
		}
		*slash = '\0';
	}
	if (dir[0] == '\0')
		snprintf(dir, sizeof(dir), "/");
	return dir;
}

static char *
computed_host(void)
{
	char host[256];
	char *dot;

	if (gethostname(host, sizeof(host)) == -1)
		return xstrdup("localhost");
	host[sizeof(host) - 1] = '\0';
	if ((dot = strchr(host, '.')) != NULL)
		*dot = '\0';
	return xstrdup(host[0] != '\0' ? host : "localhost");
}

/*
 * UID_DOMAIN and FILESYSTEM_DOMAIN, as HTCondor has them: the host's
 * full name (its canonical name in the host database), so that no two
 * hosts share a domain unless their owners say so.
 */
static char *
computed_full_host(void)
{
	struct addrinfo hints, *ai = NULL;
	char host[256];
	char *full;

	if (gethostname(host, sizeof(host)) == -1)
		return xstrdup("localhost");
	host[sizeof(host) - 1] = '\0';
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = AI_CANONNAME;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, NULL, &hints, &ai) == 0 && ai != NULL &&
	    ai->ai_canonname != NULL && ai->ai_canonname[0] != '\0')
		full = xstrdup(ai->ai_canonname);
	else
		full = xstrdup(host[0] != '\0' ? host : "localhost");
	if (ai != NULL)
		freeaddrinfo(ai);
	return full;
}

/*
 * Jobs never run as root: an ordinary user's personal pool runs them as
 * that user; a pool started by root uses condor, or else nobody.
 */
static char *
computed_execute_user(void)
{
	struct passwd *pw;

	if (getuid() != 0 && (pw = getpwuid(getuid())) != NULL &&
	    pw->pw_uid != 0)
		return xstrdup(pw->pw_name);
	if (getpwnam("condor") != NULL)
		return xstrdup("condor");
	return xstrdup("nobody");
}

static char *
computed_release_dir(void)
{
	return xstrdup(exe_release_dir());
}

/* The machine's cores: the processors online. */
static char *
computed_num_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return xasprintf("%ld", n >= 1 ? n : 1L);
}

/*
 * A personal pool's START: the jobs of the user running it, as
 * HTCondor's personal condor.  A user the system does not name runs
 * nothing (the expression is FALSE).
 */
static char *
computed_personal_start(void)
{
	struct passwd *pw = getpwuid(getuid());
	struct buf b;
	const char *p;

	if (pw == NULL || pw->pw_name == NULL)
		return xstrdup("FALSE");
	buf_init(&b);
	buf_adds(&b, "TARGET.Owner == \"");
	for (p = pw->pw_name; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			buf_addc(&b, '\\');
		buf_addc(&b, *p);
	}
	buf_addc(&b, '"');
	return buf_take(&b);
}

struct computed {
	const char	*name;
	char		*(*fn)(void);
};

static const struct computed computed[] = {
	{ "EXECUTE_USER", computed_execute_user },
	{ "FILESYSTEM_DOMAIN", computed_full_host },
	{ "HOST", computed_host },
	{ "NUM_CPUS", computed_num_cpus },
	{ "RELEASE_DIR", computed_release_dir },
	{ "UID_DOMAIN", computed_full_host },
	{ NULL, NULL }
};

/* The rows of config_personal_defaults that are computed. */
static const struct computed personal_computed[] = {
	{ "START", computed_personal_start },
	{ NULL, NULL }
};

static const struct computed *
computed_lookup(const struct computed *table, const char *name)
{
	const struct computed *c;

	for (c = table; c->name != NULL; c++)
		if (strcasecmp(c->name, name) == 0)
			return c;
	return NULL;
}

static const struct computed *
computed_find(const char *name)
{
	return computed_lookup(computed, name);
}

/* Define row D in S, a computed row from TABLE computed when asked. */
static void
store_define_default(struct store *s, const struct config_default *d,
    const struct computed *table)
{
	const struct computed *c;
	struct entry *e;

	if (d->value != NULL) {
		store_define(s, d->name, strlen(d->name), xstrdup(d->value),
		    d->is_expr, NULL, 0);
	} else if ((c = computed_lookup(table, d->name)) != NULL) {
		/* Computed when first asked for: a user database lookup
		 * can cost dozens of files, in every process. */
		store_define(s, d->name, strlen(d->name), xstrdup(""),
		    d->is_expr, NULL, 0);
		e = store_lookup(s, d->name, strlen(d->name));
		e->literal = 1;
		e->compute = c->fn;
	}
}

/* A store holding only the table's defaults. */
static struct store *
store_defaults(void)
{
	const struct config_default *d;
	struct store *s;

	s = store_new();
	for (d = config_defaults; d->name != NULL; d++)
		store_define_default(s, d, computed);
	return s;
}

/* Whether a configuration file (not a default) defines NAME in S. */
static int
file_defines(struct store *s, const char *name)
{
	struct entry *e = store_lookup(s, name, strlen(name));

	return e != NULL && e->raw != NULL && e->file != NULL;
}

/*
 * A configuration whose files name no central manager, neither
 * CONDOR_HOST nor COLLECTOR_HOST, describes a personal pool (no file at
 * all, or the release's own etc/condor_config, which leaves both
 * commented out): every setting no file defines that has a row in
 * config_personal_defaults takes that row's value instead of the
 * table's.  Naming the central manager is what makes a pool of hosts.
 */
static void
store_personal(struct store *s)
{
	const struct config_default *d;

	s->personal = !file_defines(s, "CONDOR_HOST") &&
	    !file_defines(s, "COLLECTOR_HOST");
	if (!s->personal)
		return;
	for (d = config_personal_defaults; d->name != NULL; d++)
		if (!file_defines(s, d->name))
			store_define_default(s, d, personal_computed);
	cf_gen++;
}

/* E's text as written; a computed default is computed now. */
static const char *
entry_raw(struct entry *e)
{
	if (e->compute != NULL) {
		free(e->raw);
		e->raw = e->compute();
		e->compute = NULL;
	}
	return e->raw;
}

static void
config_ensure(void)
{
	if (cf == NULL)
		cf = store_defaults();
}

static struct entry *
lookup(const char *name)
{
	struct entry *e;

	config_ensure();
	e = store_lookup(cf, name, strlen(name));
	return e != NULL && e->raw != NULL ? e : NULL;
}

/*
 * For each '(' in T, the index of the ')' that closes it, or -1.  Made
 * once per text, so that finding the end of $(X:default) never rescans.
 */
static ssize_t
text_match(struct text *t, size_t open)
{
	size_t *stack, sp = 0, i;

	if (t->match == NULL) {
		t->match = xreallocarray(NULL, t->len, sizeof(*t->match));
		stack = xreallocarray(NULL, t->len, sizeof(*stack));
		for (i = 0; i < t->len; i++) {
			t->match[i] = -1;
			if (t->s[i] == '(')
				stack[sp++] = i;
			else if (t->s[i] == ')' && sp > 0)
				t->match[stack[--sp]] = (ssize_t)i;
		}
		free(stack);
	}
	return t->match[open];
}

/*
 * Note the innermost macro on the stack that a file defined, so that an
 * error met while expanding a default still names a file and line.
 */
static void
blame(struct expansion *x)
{
	size_t i;

	for (i = x->depth; i > 0; i--)
		if (x->stack[i - 1]->file != NULL) {
			x->blame = x->stack[i - 1];
			return;
		}
}

static int
emit(struct expansion *x, const char *p, size_t n)
{
	if (n > CONFIG_MAX_VALUE - x->out->len) {
		blame(x);
		errbuf_set(x->err, x->errlen, "%s: expands to more than %d bytes",
		    x->depth > 0 ? x->stack[0]->name : "text",
		    CONFIG_MAX_VALUE);
		return -1;
	}
	buf_add(x->out, p, n);
	return 0;
}

static int
too_deep(struct expansion *x)
{
	if (x->nest < CONFIG_MAX_DEPTH)
		return 0;
	blame(x);
	errbuf_set(x->err, x->errlen, "%s: macros nested more than %d deep",
	    x->depth > 0 ? x->stack[0]->name : "text", CONFIG_MAX_DEPTH);
	return 1;
}

/* "recursive macro: A -> B -> A", from where E was opened. */
static void
recursion_error(struct expansion *x, struct entry *e)
{
	struct buf b;
	size_t i;

	blame(x);
	buf_init(&b);
	for (i = 0; i < x->depth && x->stack[i] != e; i++)
		continue;
	for (; i < x->depth; i++)
		buf_printf(&b, "%s -> ", x->stack[i]->name);
	buf_adds(&b, e->name);
	errbuf_set(x->err, x->errlen, "recursive macro: %s", b.data);
	buf_free(&b);
}

/* Expand one macro NAME, or its default [DLO, DHI) of T if undefined. */
static int
expand_macro(struct expansion *x, const char *name, size_t len,
    struct text *t, size_t dlo, size_t dhi, int has_default)
{
	struct text et;
	struct entry *e;
	int r;

	if (++x->nsubst > CONFIG_MAX_SUBST) {
		blame(x);
		errbuf_set(x->err, x->errlen, "%s: more than %d macros to expand",
		    x->depth > 0 ? x->stack[0]->name : "text",
		    CONFIG_MAX_SUBST);
		return -1;
	}
	e = store_lookup(cf, name, len);
	if (e == NULL || e->raw == NULL) {
		if (!has_default)
			return 0;	/* an unknown macro is empty */
		if (too_deep(x))
			return -1;
		x->nest++;
		r = expand_range(x, t, dlo, dhi);
		x->nest--;
		return r;
	}
	if (e->literal)
		return emit(x, entry_raw(e), strlen(entry_raw(e)));
	if (e->busy) {
		recursion_error(x, e);
		return -1;
	}
	if (too_deep(x))
		return -1;
	e->busy = 1;
	x->stack[x->depth++] = e;
	x->nest++;
	et.s = e->raw;
	et.len = strlen(e->raw);
	et.match = e->match;
	r = expand_range(x, &et, 0, et.len);
	e->match = et.match;
	x->nest--;
	x->depth--;
	e->busy = 0;
	return r;
}

/* Expand [LO, HI) of T onto x->out. */
static int
expand_range(struct expansion *x, struct text *t, size_t lo, size_t hi)
{
	const char *s = t->s, *dollar, *val;
	size_t i = lo, j, k, nlo;
	ssize_t m;
	char *env;

	while (i < hi) {
		if ((dollar = memchr(s + i, '$', hi - i)) == NULL)
			return emit(x, s + i, hi - i);
		j = (size_t)(dollar - s);
		if (emit(x, s + i, j - i) == -1)
			return -1;
		if (j + 1 < hi && s[j + 1] == '(') {
			nlo = j + 2;
			for (k = nlo; k < hi && is_name_char(s[k]); k++)
				continue;
			if (k > nlo && (k == hi || (s[k] == ':' &&
			    text_match(t, j + 1) == -1))) {
				blame(x);
				errbuf_set(x->err, x->errlen, "%s: unterminated "
				    "macro reference \"$(%.*s\"",
				    x->depth > 0 ? x->stack[0]->name : "text",
				    (int)(k - nlo), s + nlo);
				return -1;
			}
			if (k > nlo && k < hi && s[k] == ')') {
				if (expand_macro(x, s + nlo, k - nlo, t, 0, 0,
				    0) == -1)
					return -1;
				i = k + 1;
				continue;
			}
			if (k > nlo && k < hi && s[k] == ':' &&
			    (m = text_match(t, j + 1)) != -1 &&
			    (size_t)m < hi) {
				if (expand_macro(x, s + nlo, k - nlo, t, k + 1,
				    (size_t)m, 1) == -1)
					return -1;
				i = (size_t)m + 1;
				continue;
			}
		} else if (hi - j >= 5 && strncmp(s + j + 1, "ENV(", 4) == 0) {
			nlo = j + 5;
			for (k = nlo; k < hi && is_env_char(s[k]); k++)
				continue;
			if (k == hi) {
				blame(x);
				errbuf_set(x->err, x->errlen, "%s: unterminated "
				    "\"$ENV(%.*s\"",
				    x->depth > 0 ? x->stack[0]->name : "text",
				    (int)(k - nlo), s + nlo);
				return -1;
			}
			if (k > nlo && k < hi && s[k] == ')') {
				env = xstrndup(s + nlo, k - nlo);
				val = getenv(env);
				free(env);
				if (val != NULL &&
				    emit(x, val, strlen(val)) == -1)
					return -1;
				i = k + 1;
				continue;
			}
		}
		/* Not a reference: the '$' is text. */
		if (emit(x, "$", 1) == -1)
			return -1;
		i = j + 1;
	}
	return 0;
}

/*
 * Expand entry E afresh.  Returns a new string, or NULL with a message
 * (naming E's file and line where it has them) in ERR.
 */
static char *
entry_expand(struct entry *e, char *err, size_t errlen)
{
	struct expansion x;
	struct entry *where;
	struct text t;
	struct buf out;
	char msg[1024];
	int r;

	if (e->literal)
		return xstrdup(entry_raw(e));
	memset(&x, 0, sizeof(x));
	buf_init(&out);
	x.out = &out;
	x.err = msg;
	x.errlen = sizeof(msg);
	x.stack[x.depth++] = e;
	x.nest = 1;
	e->busy = 1;
	t.s = e->raw;
	t.len = strlen(e->raw);
	t.match = e->match;
	r = expand_range(&x, &t, 0, t.len);
	e->match = t.match;
	e->busy = 0;
	if (r == -1) {
		buf_free(&out);
		where = e->file != NULL ? e : x.blame;
		if (where != NULL)
			errbuf_set(err, errlen, "%s:%d: %s", where->file,
			    where->line, msg);
		else
			errbuf_set(err, errlen, "%s", msg);
		return NULL;
	}
	return buf_take(&out);
}

/*
 * E's expansion in the current generation, computing and caching it if
 * need be.  The previous generation's string is freed only now, so
 * pointers handed out live as long as the contract promises and no less.
 */
static const char *
entry_value(struct entry *e, char *err, size_t errlen, int *fresh)
{
	if (fresh != NULL)
		*fresh = 0;
	if (e->cache_gen == cf_gen) {
		if (e->cache_err)
			errbuf_set(err, errlen, "%s: cannot be expanded", e->name);
		return e->cache;
	}
	free(e->cache);
	e->cache = entry_expand(e, err, errlen);
	e->cache_err = e->cache == NULL;
	e->cache_gen = cf_gen;
	if (fresh != NULL)
		*fresh = 1;
	return e->cache;
}

/* Control expressions that do not parse, one "file:line: ..." a line. */
static struct buf	cf_warnings;
static int		cf_warnings_init;

/*
 * Every definition must expand: report the first that does not.  A
 * control expression (':') must also parse; one that does not is not
 * fatal here (the daemon that uses it treats it by its own rule, e.g.
 * START as FALSE) but is noted for config_warnings().
 */
static int
store_validate(struct store *s, char *err, size_t errlen)
{
	struct expr *ex;
	const char *v;
	char perr[256];
	size_t i;

	if (!cf_warnings_init) {
		buf_init(&cf_warnings);
		cf_warnings_init = 1;
	}
	buf_reset(&cf_warnings);
	for (i = 0; i < s->n; i++) {
		struct entry *e = s->order[i];

		/* A computed default needs no check (nor computing). */
		if (e->raw == NULL || e->literal)
			continue;
		if ((v = entry_value(e, err, errlen, NULL)) == NULL)
			return -1;
		if (!e->is_expr || e->file == NULL)
			continue;
		if ((ex = expr_parse(v, perr, sizeof(perr))) == NULL)
			buf_printf(&cf_warnings, "%s:%d: %s: bad expression "
			    "\"%.200s\": %s\n", e->file, e->line, e->name, v,
			    perr);
		expr_free(ex);
	}
	return 0;
}

const char *
config_warnings(void)
{
	return cf_warnings_init && cf_warnings.len > 0 ? cf_warnings.data :
	    NULL;
}

/* Describe C for a message, printable or not. */
static const char *
char_desc(int c, char *b, size_t blen)
{
	if (c >= 0x21 && c < 0x7f)
		snprintf(b, blen, "'%c'", c);
	else
		snprintf(b, blen, "byte 0x%02x", c & 0xff);
	return b;
}

/* One logical line: a definition, a comment or nothing. */
static int
parse_line(struct store *s, const char *path, int lineno, const char *p,
    char *err, size_t errlen)
{
	const char *name, *q, *v, *end;
	size_t nlen;
	char cd[16];
	int is_expr;

	while (is_blank((unsigned char)*p))
		p++;
	if (*p == '\0' || *p == '#')
		return 0;
	name = p;
	while (is_name_char((unsigned char)*p))
		p++;
	nlen = (size_t)(p - name);
	if (nlen == 0) {
		errbuf_set(err, errlen, "%s:%d: expected a name (letters, digits, "
		    "'_' and '.') at the start of the line, found %s", path,
		    lineno, char_desc((unsigned char)*p, cd, sizeof(cd)));
		return -1;
	}
	if (nlen > CONFIG_MAX_NAME) {
		errbuf_set(err, errlen, "%s:%d: name longer than %d bytes", path,
		    lineno, CONFIG_MAX_NAME);
		return -1;
	}
	q = p;
	while (is_blank((unsigned char)*q))
		q++;
	if (*q != '=' && *q != ':') {
		if (q == p && *q != '\0')
			errbuf_set(err, errlen, "%s:%d: bad character %s in name "
			    "\"%.*s\" (names are letters, digits, '_' and '.')",
			    path, lineno,
			    char_desc((unsigned char)*q, cd, sizeof(cd)),
			    (int)nlen, name);
		else
			errbuf_set(err, errlen, "%s:%d: expected '=' (a macro) or "
			    "':' (an expression) after \"%.*s\"", path, lineno,
			    (int)nlen, name);
		return -1;
	}
	is_expr = *q == ':';
	v = q + 1;
	while (is_blank((unsigned char)*v))
		v++;
	end = v + strlen(v);
	while (end > v && is_blank((unsigned char)end[-1]))
		end--;
	store_define(s, name, nlen, xstrndup(v, (size_t)(end - v)), is_expr,
	    path, lineno);
	return 0;
}

/*
 * Parse TEXT (LEN bytes, from PATH) into S.  A trailing '\' joins the next
 * line; a comment line is never continued, so that a commented-out
 * multi-line setting cannot swallow the line after it.
 */
static int
parse_text(struct store *s, const char *path, const char *text, size_t len,
    char *err, size_t errlen)
{
	const char *nl, *p;
	size_t i = 0, end, e2;
	struct buf line;
	int lineno = 0, first, cont, r = 0;

	buf_init(&line);
	while (i < len && r == 0) {
		buf_reset(&line);
		first = lineno + 1;
		for (;;) {
			nl = memchr(text + i, '\n', len - i);
			end = nl != NULL ? (size_t)(nl - text) : len;
			lineno++;
			if (memchr(text + i, '\0', end - i) != NULL) {
				errbuf_set(err, errlen, "%s:%d: NUL byte in the "
				    "line", path, lineno);
				r = -1;
				break;
			}
			for (e2 = end; e2 > i && is_blank(
			    (unsigned char)text[e2 - 1]); e2--)
				continue;
			for (p = text + i; p < text + e2 &&
			    is_blank((unsigned char)*p); p++)
				continue;
			cont = e2 > i && text[e2 - 1] == '\\' &&
			    !(line.len == 0 && *p == '#');
			buf_add(&line, text + i, e2 - i - (cont ? 1 : 0));
			i = nl != NULL ? end + 1 : len;
			if (!cont || i >= len)
				break;
		}
		if (r == 0)
			r = parse_line(s, path, first, line.data, err, errlen);
	}
	buf_free(&line);
	return r;
}

/*
 * Read PATH whole, at most CONFIG_MAX_FILE bytes.  Returns 0, or -1 with
 * errno set (EFBIG if too long, EISDIR for a directory).
 */
static int
read_whole(const char *path, char **textp, size_t *lenp)
{
	struct stat st;
	struct buf b;
	char chunk[8192];
	ssize_t n;
	int fd, saved;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, &st) == -1 || S_ISDIR(st.st_mode)) {
		saved = S_ISDIR(st.st_mode) ? EISDIR : errno;
		close(fd);
		errno = saved;
		return -1;
	}
	buf_init(&b);
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if ((size_t)n > CONFIG_MAX_FILE - b.len) {
			n = -1;
			errno = EFBIG;
			break;
		}
		buf_add(&b, chunk, (size_t)n);
	}
	saved = errno;
	close(fd);
	if (n == -1) {
		buf_free(&b);
		errno = saved;
		return -1;
	}
	*lenp = b.len;
	*textp = buf_take(&b);
	return 0;
}

/*
 * Read PATH into S.  Returns 0, or -1 with a message in ERR; *MISSING is
 * set when the file does not exist (callers that may skip it do).
 */
static int
store_read(struct store *s, const char *path, int *missing, char *err,
    size_t errlen)
{
	const char *name;
	char *text;
	size_t len;
	int r;

	if (missing != NULL)
		*missing = 0;
	if (read_whole(path, &text, &len) == -1) {
		if (missing != NULL)
			*missing = errno == ENOENT || errno == ENOTDIR;
		errbuf_set(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	name = store_add_file(s, path);
	r = parse_text(s, name, text, len, err, errlen);
	free(text);
	cf_gen++;
	return r;
}

/* The main file, in the order of condor_config(5). */
static int
read_main(struct store *s, char *err, size_t errlen)
{
	const char *env = getenv("CONDOR_CONFIG");
	char *cand[3];
	struct passwd *pw;
	size_t i, n = 0;
	int missing, r = 0, found = 0;

	if (env != NULL && *env != '\0') {
		if (store_read(s, env, &missing, err, errlen) == -1) {
			if (missing)
				errbuf_set(err, errlen, "%s: %s (named by "
				    "CONDOR_CONFIG)", env, strerror(ENOENT));
			return -1;
		}
		s->main_file = xstrdup(env);
		return 0;
	}
	cand[n++] = xstrdup("/etc/condor/condor_config");
	if ((pw = getpwnam("condor")) != NULL && pw->pw_dir != NULL)
		cand[n++] = xasprintf("%s/condor_config", pw->pw_dir);
	cand[n++] = xasprintf("%s/etc/condor_config", config_release_dir());
	for (i = 0; i < n && !found && r == 0; i++) {
		if (store_read(s, cand[i], &missing, err, errlen) == 0) {
			s->main_file = xstrdup(cand[i]);
			found = 1;
		} else if (!missing)
			r = -1;
	}
	for (i = 0; i < n; i++)
		free(cand[i]);
	return r;
}

/* LOCAL_CONFIG_FILE: a list separated by commas or blanks. */
static int
read_local(struct store *s, char *err, size_t errlen)
{
	struct entry *e;
	const char *v;
	char *list, *word, *save = NULL;
	int missing, r = 0;

	e = store_lookup(s, "LOCAL_CONFIG_FILE", strlen("LOCAL_CONFIG_FILE"));
	if (e == NULL || e->raw == NULL)
		return 0;
	if ((v = entry_value(e, err, errlen, NULL)) == NULL)
		return -1;
	list = xstrdup(v);
	for (word = strtok_r(list, ", \t", &save); word != NULL && r == 0;
	    word = strtok_r(NULL, ", \t", &save)) {
		if (store_read(s, word, &missing, err, errlen) == 0) {
			if (s->local.len > 0)
				buf_addc(&s->local, ' ');
			buf_adds(&s->local, word);
		} else if (!missing)
			r = -1;
	}
	free(list);
	return r;
}

int
config_init(char *err, size_t errlen)
{
	struct store *old, *s;
	unsigned long old_gen;
	int ok = 0;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	config_ensure();
	old = cf;
	old_gen = cf_gen;
	/* The new store is current while read: RELEASE_DIR and
	 * LOCAL_CONFIG_FILE are looked up in what has been read so far. */
	cf = s = store_defaults();
	cf_gen++;
	if (read_main(s, err, errlen) == 0 &&
	    read_local(s, err, errlen) == 0) {
		/* Only now is it known which settings the files define. */
		store_personal(s);
		ok = store_validate(s, err, errlen) == 0;
	}
	if (!ok) {
		/* The old store's expansions are still good: keep them, and
		 * the pointers param() handed out. */
		cf = old;
		cf_gen = old_gen;
		store_free(s);
		return -1;
	}
	store_free(old);
	expr_set_fallback(param);
	/* Files skipped as missing left their message behind. */
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	return 0;
}

int
config_read_file(const char *path, char *err, size_t errlen)
{
	config_ensure();
	if (store_read(cf, path, NULL, err, errlen) == -1)
		return -1;
	return store_validate(cf, err, errlen);
}

void
config_set(const char *name, const char *value, int is_expr)
{
	const char *p;

	config_ensure();
	for (p = name; *p != '\0' && is_name_char((unsigned char)*p); p++)
		continue;
	if (*name == '\0' || *p != '\0' || p - name > CONFIG_MAX_NAME) {
		log_warnx("config_set: bad name \"%s\"", name);
		return;
	}
	/* Copy first: VALUE may be a param() result this redefinition
	 * would otherwise free. */
	store_define(cf, name, strlen(name),
	    value != NULL ? xstrdup(value) : NULL, is_expr, NULL, 0);
	cf_gen++;
}

const char *
config_main_file(void)
{
	config_ensure();
	return cf->main_file != NULL ? cf->main_file : "";
}

int
config_personal(void)
{
	config_ensure();
	return cf->personal;
}

const char *
config_local_file(void)
{
	config_ensure();
	return cf->local.data;
}

const char *
config_source(size_t i)
{
	config_ensure();
	return i < cf->nfiles ? cf->files[i] : NULL;
}

static struct entry *
where(const char *name, const char **file, int *line)
{
	struct entry *e;

	if (file != NULL)
		*file = NULL;
	if (line != NULL)
		*line = 0;
	if ((e = lookup(name)) == NULL)
		return NULL;
	if (file != NULL)
		*file = e->file;
	if (line != NULL)
		*line = e->line;
	return e;
}

const char *
config_raw(const char *name, const char **file, int *line)
{
	struct entry *e = where(name, file, line);

	return e != NULL ? entry_raw(e) : NULL;
}

int
config_where(const char *name, const char **file, int *line)
{
	return where(name, file, line) != NULL;
}

const char *
param(const char *name)
{
	struct entry *e;
	const char *v;
	char err[1024];
	int fresh;

	if ((e = lookup(name)) == NULL)
		return NULL;
	v = entry_value(e, err, sizeof(err), &fresh);
	if (v == NULL && fresh)
		log_warnx("configuration: %s", err);
	return v;
}

int
param_is_expr(const char *name)
{
	struct entry *e;

	return (e = lookup(name)) != NULL && e->is_expr;
}

char *
config_expand(const char *text, char *err, size_t errlen)
{
	struct expansion x;
	struct text t;
	struct buf out;
	int r;

	config_ensure();
	memset(&x, 0, sizeof(x));
	buf_init(&out);
	x.out = &out;
	x.err = err;
	x.errlen = errlen;
	t.s = text;
	t.len = strlen(text);
	t.match = NULL;
	r = expand_range(&x, &t, 0, t.len);
	free(t.match);
	if (r == -1) {
		buf_free(&out);
		return NULL;
	}
	return buf_take(&out);
}

/* Nothing but blanks from S on. */
static int
blank_to_end(const char *s)
{
	while (is_blank((unsigned char)*s))
		s++;
	return *s == '\0';
}

/* V is a whole number, blanks around it allowed. */
static int
parse_long(const char *v, long *out)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (end == v || errno == ERANGE || !blank_to_end(end))
		return -1;
	*out = n;
	return 0;
}

static int
parse_double(const char *v, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (end == v || errno == ERANGE || !isfinite(d) || !blank_to_end(end))
		return -1;
	*out = d;
	return 0;
}

/* Compare V, blanks around it ignored, with WORD regardless of case. */
static int
word_is(const char *v, const char *word)
{
	size_t n = strlen(word);

	while (is_blank((unsigned char)*v))
		v++;
	return strncasecmp(v, word, n) == 0 && blank_to_end(v + n);
}

/*
 * TEXT, a value that is not written plainly, evaluated as an expression
 * and converted to WANT in OUT: VAL_INT from an integer or a finite real
 * that fits a long, VAL_REAL from an integer or a finite real, VAL_BOOL
 * from a boolean or a number (non-zero is true).  -1 if it is none of
 * these.
 */
static int
param_eval(const char *text, enum value_type want, struct value *out)
{
	struct value v;
	int ok = 1;

	expr_eval_text(text, NULL, NULL, &v);
	out->type = want;
	if (want == VAL_INT && v.type == VAL_INT &&
	    v.u.i >= LONG_MIN && v.u.i <= LONG_MAX)
		out->u.i = v.u.i;
	else if (want == VAL_INT && v.type == VAL_REAL && isfinite(v.u.r) &&
	    v.u.r > (double)LONG_MIN && v.u.r < (double)LONG_MAX)
		out->u.i = (long)v.u.r;
	else if (want == VAL_REAL && v.type == VAL_INT)
		out->u.r = (double)v.u.i;
	else if (want == VAL_REAL && v.type == VAL_REAL && isfinite(v.u.r))
		out->u.r = v.u.r;
	else if (want == VAL_BOOL && v.type == VAL_BOOL)
		out->u.b = v.u.b != 0;
	else if (want == VAL_BOOL && v.type == VAL_INT)
		out->u.b = v.u.i != 0;
	else if (want == VAL_BOOL && v.type == VAL_REAL)
		out->u.b = v.u.r != 0.0;
	else
		ok = 0;
	value_free(&v);
	return ok ? 0 : -1;
}

long
param_int(const char *name, long dflt)
{
	struct value val;
	const char *v;
	long n;

	if ((v = param(name)) == NULL)
		return dflt;
	if (parse_long(v, &n) == 0)
		return n;
	if (param_eval(v, VAL_INT, &val) == 0)
		return (long)val.u.i;
	log_warnx("%s = %s: expected an integer, using %ld", name, v, dflt);
	return dflt;
}

double
param_double(const char *name, double dflt)
{
	struct value val;
	const char *v;
	double d;

	if ((v = param(name)) == NULL)
		return dflt;
	if (parse_double(v, &d) == 0)
		return d;
	if (param_eval(v, VAL_REAL, &val) == 0)
		return val.u.r;
	log_warnx("%s = %s: expected a number, using %g", name, v, dflt);
	return dflt;
}

int
param_bool(const char *name, int dflt)
{
	struct value val;
	const char *v;

	if ((v = param(name)) == NULL)
		return dflt;
	if (word_is(v, "true") || word_is(v, "yes") || word_is(v, "on") ||
	    word_is(v, "1"))
		return 1;
	if (word_is(v, "false") || word_is(v, "no") || word_is(v, "off") ||
	    word_is(v, "0"))
		return 0;
	if (param_eval(v, VAL_BOOL, &val) == 0)
		return val.u.b;
	log_warnx("%s = %s: expected TRUE or FALSE, using %s", name, v,
	    dflt ? "TRUE" : "FALSE");
	return dflt;
}

static int
entry_cmp(const void *a, const void *b)
{
	const struct entry *x = *(const struct entry *const *)a;
	const struct entry *y = *(const struct entry *const *)b;

	return strcasecmp(x->name, y->name);
}

void
config_dump(FILE *fp)
{
	struct entry **v;
	const char *val;
	size_t i, n = 0;

	config_ensure();
	v = xreallocarray(NULL, cf->n + 1, sizeof(*v));
	for (i = 0; i < cf->n; i++)
		if (cf->order[i]->raw != NULL)
			v[n++] = cf->order[i];
	qsort(v, n, sizeof(*v), entry_cmp);
	for (i = 0; i < n; i++) {
		/* A value that cannot be expanded is shown as written. */
		if ((val = param(v[i]->name)) == NULL)
			val = entry_raw(v[i]);
		fprintf(fp, "%s %c %s\n", v[i]->name,
		    v[i]->is_expr ? ':' : '=', val);
	}
	free(v);
}

void
config_dump_defaults(FILE *fp)
{
	const struct config_default *d;
	const struct computed *c;
	char *val;

	for (d = config_defaults; d->name != NULL; d++) {
		if (d->value != NULL)
			val = xstrdup(d->value);
		else if ((c = computed_find(d->name)) != NULL)
			val = c->fn();
		else
			val = xstrdup("");
		fprintf(fp, "%s %c %s%s # %s\n", d->name,
		    d->is_expr ? ':' : '=', val, *val != '\0' ? " " : "",
		    d->meaning);
		free(val);
	}
	fprintf(fp, "# A personal pool (no file sets CONDOR_HOST or "
	    "COLLECTOR_HOST) has instead:\n");
	for (d = config_personal_defaults; d->name != NULL; d++) {
		if (d->value != NULL)
			val = xstrdup(d->value);
		else if ((c = computed_lookup(personal_computed,
		    d->name)) != NULL)
			val = c->fn();
		else
			val = xstrdup("");
		fprintf(fp, "#   %s %c %s  # %s\n", d->name,
		    d->is_expr ? ':' : '=', val, d->meaning);
		free(val);
	}
}

const char *
config_release_dir(void)
{
	struct entry *e;
	const char *v;

	if ((e = lookup("RELEASE_DIR")) != NULL && !e->literal &&
	    (v = param("RELEASE_DIR")) != NULL && *v != '\0')
		return v;
	return exe_release_dir();
}
