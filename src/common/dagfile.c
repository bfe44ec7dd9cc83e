/*
 * dagfile.c: the DAG file language of dagfile.h, read into one graph.
 *
 * The parse is one pass over each file, read whole and tokenised in
 * place.  Definitions (JOB, FINAL, SUBDAG, SPLICE) take effect at once;
 * everything that names a node (PARENT/CHILD, SCRIPT, RETRY, VARS,
 * ...) is kept as a pending command and resolved when the namespace it
 * was written in ends (the top-level file with what it includes, or a
 * splice), so names may be used before they are defined.  A splice is
 * read completely, and its own commands resolved, where its SPLICE line
 * is; its entry and exit nodes are known from then on.
 *
 * Names are looked up in an open-addressing hash table keyed with a
 * random SipHash key (adversarial names cannot force collisions); every
 * string the DAG keeps lives in one arena that dag_free releases at
 * once.  Edges are collected as pairs and turned into one array of
 * children (CSR) at the end, duplicates dropped, and a cycle looked for
 * with Kahn's algorithm (no recursion).
 *
 * Unsupported HTCondor commands: SET_JOB_ATTR, ENV, PROVISIONER,
 * SERVICE, CONNECT, PIN_IN, PIN_OUT and SCRIPT HOLD change what runs, so
 * they are errors; REJECT is an error too (in HTCondor it refuses the
 * DAG); JOBSTATE_LOG and SAVE_POINT_FILE only ask for extra output, so
 * they are warnings and ignored.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "dagfile.h"
#include "fdio.h"
#include "xalloc.h"

/* ------------------------------------------------------------------ */
/* An arena: strings and small records that live as long as the DAG. */

#define ARENA_CHUNK	(1024 * 1024)	/* bytes */

struct arena_chunk {
	struct arena_chunk	*next;
	size_t			 used;
	size_t			 size;
	char			 data[];
};

struct arena {
	struct arena_chunk	*head;
};

static void *
arena_alloc(struct arena *a, size_t n)
{
	struct arena_chunk *c = a->head;
	void *p;
	size_t sz;

	if (n > SIZE_MAX / 2)
		n = SIZE_MAX / 2;	/* xmalloc refuses it below */
	n = (n + 7) & ~(size_t)7;
	if (c == NULL || c->size - c->used < n) {
		sz = n > ARENA_CHUNK / 4 ? n : ARENA_CHUNK;
		c = xmalloc(sizeof(*c) + sz);
		c->size = sz;
		c->used = 0;
		if (n > ARENA_CHUNK / 4 && a->head != NULL) {
			/* A big one: keep the current chunk's room. */
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = a->head;
			a->head = c;
		}
	}
	p = c->data + c->used;
	c->used += n;
	return p;
}

static char *
arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

static char *
arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

static void
arena_free(struct arena *a)
{
	struct arena_chunk *c, *next;

	for (c = a->head; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	a->head = NULL;
}

/* ------------------------------------------------------------------ */
/* SipHash-1-3 of a string, for the name tables. */

#define ROTL(x, b)	(uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND do {							\
	v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32);	\
	v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;				\
	v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;				\
	v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32);	\
} while (0)

static uint64_t
siphash(const uint64_t key[2], const char *s, size_t len)
{
	uint64_t v0 = 0x736f6d6570736575ULL ^ key[0];
	uint64_t v1 = 0x646f72616e646f6dULL ^ key[1];
	uint64_t v2 = 0x6c7967656e657261ULL ^ key[0];
	uint64_t v3 = 0x7465646279746573ULL ^ key[1];
	uint64_t m, b = (uint64_t)len << 56;
	size_t i, left = len & 7;
	const unsigned char *p = (const unsigned char *)s;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&m, p + i, 8);
		v3 ^= m;
		SIPROUND;
		v0 ^= m;
	}
	p += i;
	switch (left) {
	case 7: b |= (uint64_t)p[6] << 48;	/* FALLTHROUGH */
	case 6: b |= (uint64_t)p[5] << 40;	/* FALLTHROUGH */
	case 5: b |= (uint64_t)p[4] << 32;	/* FALLTHROUGH */
	case 4: b |= (uint64_t)p[3] << 24;	/* FALLTHROUGH */
	case 3: b |= (uint64_t)p[2] << 16;	/* FALLTHROUGH */
	case 2: b |= (uint64_t)p[1] << 8;	/* FALLTHROUGH */
	case 1: b |= (uint64_t)p[0];		/* FALLTHROUGH */
	default: break;
	}
	v3 ^= b;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

/* ------------------------------------------------------------------ */
/* A hash table of names: string -> int (open addressing, linear). */

struct hent {
	const char	*key;		/* NULL: empty */
	uint32_t	 hash;
	int32_t		 val;
};

struct htab {
	struct hent	*ent;
	size_t		 mask;		/* size - 1, size a power of two */
	size_t		 n;
	uint64_t	 key[2];
};

static void
htab_init(struct htab *h, const uint64_t key[2])
{
	h->mask = 63;
	h->ent = xcalloc(h->mask + 1, sizeof(*h->ent));
	h->n = 0;
	h->key[0] = key[0];
	h->key[1] = key[1];
}

static struct hent *
htab_slot(const struct htab *h, const char *k, size_t len, uint32_t hash)
{
	size_t i = hash & h->mask;
	struct hent *e;

	for (;;) {
		e = &h->ent[i];
		if (e->key == NULL)
			return e;
		if (e->hash == hash && strncmp(e->key, k, len) == 0 &&
		    e->key[len] == '\0')
			return e;
		i = (i + 1) & h->mask;
	}
}

/* The value of K (LEN bytes), or -1 with *FOUND 0. */
static int32_t
htab_get(const struct htab *h, const char *k, size_t len, int *found)
{
	struct hent *e;

	e = htab_slot(h, k, len, (uint32_t)siphash(h->key, k, len));
	*found = e->key != NULL;
	return e->key != NULL ? e->val : -1;
}

/* Add K (kept, not copied: it must outlive the table), not present. */
static void
htab_put(struct htab *h, const char *k, int32_t val)
{
	struct hent *old, *e;
	size_t i, oldsize, len = strlen(k);

	if ((h->n + 1) * 2 > h->mask + 1) {
		old = h->ent;
		oldsize = h->mask + 1;
		h->mask = oldsize * 2 - 1;
		h->ent = xcalloc(h->mask + 1, sizeof(*h->ent));
		for (i = 0; i < oldsize; i++) {
			if (old[i].key == NULL)
				continue;
			e = &h->ent[old[i].hash & h->mask];
			while (e->key != NULL)
				e = (e == &h->ent[h->mask]) ? h->ent : e + 1;
			*e = old[i];
		}
		free(old);
	}
	e = htab_slot(h, k, len, (uint32_t)siphash(h->key, k, len));
	e->key = k;
	e->hash = (uint32_t)siphash(h->key, k, len);
	e->val = val;
	h->n++;
}

static void
htab_free(struct htab *h)
{
	free(h->ent);
	h->ent = NULL;
	h->n = 0;
}

/* ------------------------------------------------------------------ */

/* What dag->index holds: what dag_find and dag_free need. */
struct dag_index {
	struct htab	names;		/* node: index; splice: -1 - index */
	struct arena	arena;
};

/* A node's settings already made, for ALL_NODES and "defined twice". */
#define B_PRE		0x0001	/* set (by anything) */
#define B_POST		0x0002
#define B_RETRY		0x0004
#define B_PRIO		0x0008
#define B_CAT		0x0010
#define B_PRESKIP	0x0020
#define B_ABORT		0x0040
#define B_XPRE		0x0100	/* set by a SCRIPT PRE naming it */
#define B_XPOST		0x0200

enum pkind {
	P_EDGES, P_PRE, P_POST, P_RETRY, P_VARS, P_ABORT, P_PRIO, P_CAT,
	P_PRESKIP, P_DONE
};

/* A command naming a node, resolved when its namespace ends. */
struct pend {
	enum pkind	 kind;
	uint32_t	 file;
	int		 line;
	const char	*name;		/* in the file's text; NULL: ALL_NODES */
	union {
		struct dag_script *script;
		struct {
			int	n, has_unless, unless;
		} retry;
		struct {
			struct dag_var	*v;
			size_t		 n;
		} vars;
		struct {
			int	value, has_ret, ret;
		} abort;
		int	value;		/* PRIORITY, CATEGORY, PRE_SKIP */
		struct {
			uint32_t p0, np, nc, group;	/* names in refs */
		} edges;
	} u;
};

struct epair {
	uint32_t	p, c, group;
};

struct egroup {
	uint32_t	file;
	int		line;
};

struct splice {
	uint32_t	end0, nsinks, nsources;	/* in ctx.ends: sinks, then
						   sources */
};

/* A namespace: the top-level DAG or one splice. */
struct scope {
	const char	*prefix;	/* "" or "S+T+" */
	size_t		 prefixlen;
	const char	*dir;		/* NULL: the DAG's directory */
	size_t		 node_start;
	size_t		 pend_start;
	size_t		 ref_start;
	size_t		 edge_start;
	int		 top;
};

struct ctx {
	struct dag	 *dag;
	struct dag_index *ix;
	int		  flags;
	char		 *err;
	size_t		  errlen;
	size_t		  cnodes, cbits, cfiles, ccats;
	struct htab	  cats;
	uint16_t	 *bits;
	struct pend	 *pend;
	size_t		  npend, cpend;
	char		**refs;
	size_t		  nrefs, crefs;
	struct epair	 *edges;
	size_t		  nedges, cedges;
	struct egroup	 *groups;
	size_t		  ngroups, cgroups;
	struct splice	 *splices;
	size_t		  nsplices, csplices;
	uint32_t	 *ends;
	size_t		  nends, cends;
	uint32_t	 *tmp;		/* resolved names of one PARENT line */
	size_t		  ntmp, ctmp;
	char		**texts;	/* every file's text, freed at the end */
	size_t		  ntexts, ctexts;
	size_t		  total;	/* bytes read */
	struct {
		dev_t	dev;
		ino_t	ino;
	}		  open[DAG_MAX_DEPTH + 2];
	int		  nopen;
	struct buf	  scratch;	/* full_name() */
	struct buf	  pathbuf;	/* join() */
	char		 *stat_path;	/* the last file looked at */
	int		  stat_errno;	/* 0, -1: not a regular file */
	const char	 *last_file;	/* interned node file and dir */
	const char	 *last_dir;
	long		  final_file, final_line;
};

static void
vgrow(void *pp, size_t *cap, size_t n, size_t size)
{
	void **p = pp;
	size_t nc;

	if (n < *cap)
		return;
	nc = *cap ? *cap * 2 : 16;
	while (nc <= n)
		nc *= 2;
	*p = xreallocarray(*p, nc, size);
	*cap = nc;
}

static int
perr(struct ctx *c, uint32_t file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The error "FILE:LINE: what" into the caller's buffer; returns -1. */
static int
perr(struct ctx *c, uint32_t file, int line, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line > 0)
		errbuf_set(c->err, c->errlen, "%s:%d: %s",
		    c->dag->files[file], line, msg);
	else
		errbuf_set(c->err, c->errlen, "%s: %s", c->dag->files[file],
		    msg);
	return -1;
}

static void
pwarn(struct ctx *c, uint32_t file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
pwarn(struct ctx *c, uint32_t file, int line, const char *fmt, ...)
{
	struct dag *dag = c->dag;
	char msg[1024];
	va_list ap;

	if (dag->nwarnings >= DAG_MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (dag->warnings == NULL)
		dag->warnings = xcalloc(DAG_MAX_WARNINGS,
		    sizeof(*dag->warnings));
	dag->warnings[dag->nwarnings++] = xasprintf("%s:%d: %s",
	    dag->files[file], line, msg);
}

static uint32_t
add_file(struct ctx *c, const char *path)
{
	struct dag *dag = c->dag;

	vgrow(&dag->files, &c->cfiles, dag->nfiles, sizeof(*dag->files));
	dag->files[dag->nfiles] = arena_strdup(&c->ix->arena, path);
	return (uint32_t)dag->nfiles++;
}

static int
is_space(int ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' ||
	    ch == '\f';
}

/* The next whitespace-separated word of *PP, NUL-terminated in place;
 * NULL at the end of the line. */
static char *
tok(char **pp)
{
	char *p = *pp, *s;

	while (is_space((unsigned char)*p))
		p++;
	if (*p == '\0') {
		*pp = p;
		return NULL;
	}
	s = p;
	while (*p != '\0' && !is_space((unsigned char)*p))
		p++;
	if (*p != '\0')
		*p++ = '\0';
	*pp = p;
	return s;
}

/* The rest of the line, trimmed. */
static char *
rest(char *p)
{
	char *e;

	while (is_space((unsigned char)*p))
		p++;
	e = p + strlen(p);
	while (e > p && is_space((unsigned char)e[-1]))
		*--e = '\0';
	return p;
}

static int
kw(const char *s, const char *keyword)
{
	return s != NULL && strcasecmp(s, keyword) == 0;
}

/* A decimal integer in [MIN, MAX]; -1 with the error made. */
static int
number(struct ctx *c, uint32_t f, int line, const char *what,
    const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (s == NULL)
		return perr(c, f, line, "%s: a number is missing", what);
	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || !((s[0] >= '0' && s[0] <= '9') ||
	    ((s[0] == '-' || s[0] == '+') && s[1] >= '0' && s[1] <= '9')))
		return perr(c, f, line, "%s: \"%s\" is not a number", what,
		    s);
	if (errno == ERANGE || v < min || v > max)
		return perr(c, f, line, "%s: %s is out of range (%ld to %ld)",
		    what, s, min, max);
	*out = v;
	return 0;
}

static int
inumber(struct ctx *c, uint32_t f, int line, const char *what,
    const char *s, long min, long max, int *out)
{
	long v;

	if (number(c, f, line, what, s, min, max, &v) == -1)
		return -1;
	*out = (int)v;
	return 0;
}

static const char *const reserved[] = { "PARENT", "CHILD", "ALL_NODES" };

/* A node or splice name as written: non-empty, no '+', no keyword. */
static int
check_name(struct ctx *c, uint32_t f, int line, const char *what,
    const char *name)
{
	size_t i;

	if (name == NULL)
		return perr(c, f, line, "%s: the name is missing", what);
	if (strchr(name, '+') != NULL)
		return perr(c, f, line, "%s: %s: '+' is reserved for splices",
		    what, name);
	for (i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (strcasecmp(name, reserved[i]) == 0)
			return perr(c, f, line, "%s: %s is a reserved word",
			    what, name);
	return 0;
}

/* DIR joined to P: P if absolute or DIR is NULL.  Arena string. */
static const char *
join(struct ctx *c, const char *dir, const char *p)
{
	struct buf *b = &c->pathbuf;

	if (p[0] == '/' || dir == NULL)
		return p;
	buf_reset(b);
	buf_printf(b, "%s/%s", dir, p);
	return b->data;
}

/* The full name of NAME in SC ("S+T+" NAME): in c->scratch, or NAME. */
static const char *
full_name(struct ctx *c, const struct scope *sc, const char *name)
{
	if (sc->prefixlen == 0)
		return name;
	buf_reset(&c->scratch);
	buf_add(&c->scratch, sc->prefix, sc->prefixlen);
	buf_adds(&c->scratch, name);
	return c->scratch.data;
}

/* Whether PATH is a regular file: 0, or an errno (-1: not regular). */
static int
check_path(struct ctx *c, const char *path)
{
	struct stat st;

	if (c->stat_path != NULL && strcmp(c->stat_path, path) == 0)
		return c->stat_errno;
	free(c->stat_path);
	c->stat_path = xstrdup(path);
	if (stat(path, &st) == -1)
		c->stat_errno = errno ? errno : ENOENT;
	else if (!S_ISREG(st.st_mode))
		c->stat_errno = -1;
	else
		c->stat_errno = 0;
	return c->stat_errno;
}

/* ------------------------------------------------------------------ */
/* Definitions. */

static int
add_node(struct ctx *c, const struct scope *sc, uint32_t f, int line,
    const char *what, const char *name, const char *file, const char *dir,
    int flags)
{
	struct dag *dag = c->dag;
	struct arena *a = &c->ix->arena;
	struct dag_node *n;
	const char *full, *path;
	int32_t v;
	int found, e;

	if (check_name(c, f, line, what, name) == -1)
		return -1;
	full = full_name(c, sc, name);
	v = htab_get(&c->ix->names, full, strlen(full), &found);
	if (found) {
		if (v >= 0)
			return perr(c, f, line, "node %s already defined at "
			    "%s:%d", full, dag->nodes[v].src,
			    dag->nodes[v].line);
		return perr(c, f, line, "%s %s: the name of a splice", what,
		    full);
	}
	if (dag->nnodes >= DAG_MAX_NODES)
		return perr(c, f, line, "more than %d nodes", DAG_MAX_NODES);
	if (flags & DAG_FINAL) {
		if (!sc->top)
			return perr(c, f, line, "FINAL %s: a splice may not "
			    "have a FINAL node", name);
		if (dag->final >= 0)
			return perr(c, f, line, "FINAL %s: a second FINAL node "
			    "(%s at %s:%d)", name, dag->nodes[dag->final].name,
			    dag->nodes[dag->final].src,
			    dag->nodes[dag->final].line);
	}
	/* The node's directory: its DIR under its splices' DIRs. */
	if (dir != NULL) {
		dir = join(c, sc->dir, dir);
		if (c->last_dir == NULL || strcmp(c->last_dir, dir) != 0)
			c->last_dir = arena_strdup(a, dir);
		dir = c->last_dir;
	} else
		dir = sc->dir;
	if ((c->flags & DAG_CHECK_FILES) && !(flags & DAG_NOOP)) {
		path = join(c, dir, file);
		if ((e = check_path(c, path)) != 0)
			return perr(c, f, line, "%s %s: %s %s: %s", what, name,
			    (flags & DAG_SUBDAG) ? "DAG file" : "submit file",
			    path, e == -1 ? "not a regular file" :
			    strerror(e));
	}
	vgrow(&dag->nodes, &c->cnodes, dag->nnodes, sizeof(*dag->nodes));
	vgrow(&c->bits, &c->cbits, dag->nnodes, sizeof(*c->bits));
	n = &dag->nodes[dag->nnodes];
	memset(n, 0, sizeof(*n));
	full = full_name(c, sc, name);
	n->name = arena_strdup(a, full);
	if (c->last_file == NULL || strcmp(c->last_file, file) != 0)
		c->last_file = arena_strdup(a, file);
	n->file = (char *)c->last_file;
	n->dir = (char *)dir;
	n->flags = flags;
	n->category = -1;
	n->src = dag->files[f];
	n->line = line;
	c->bits[dag->nnodes] = 0;
	htab_put(&c->ix->names, n->name, (int32_t)dag->nnodes);
	if (flags & DAG_FINAL)
		dag->final = (long)dag->nnodes;
	dag->nnodes++;
	return 0;
}

/* JOB|DATA|FINAL name file [DIR dir] [NOOP] [DONE]; SUBDAG EXTERNAL ... */
static int
cmd_job(struct ctx *c, struct scope *sc, uint32_t f, int line,
    const char *what, int flags, char *p)
{
	char *name, *file, *w, *dir = NULL;

	name = tok(&p);
	file = tok(&p);
	if (name == NULL || file == NULL)
		return perr(c, f, line, "%s needs a node name and a %s", what,
		    (flags & DAG_SUBDAG) ? "DAG file" : "submit file");
	while ((w = tok(&p)) != NULL) {
		if (kw(w, "DIR")) {
			if ((dir = tok(&p)) == NULL)
				return perr(c, f, line, "%s %s: DIR needs a "
				    "directory", what, name);
		} else if (kw(w, "NOOP"))
			flags |= DAG_NOOP;
		else if (kw(w, "DONE") && !(flags & DAG_FINAL))
			flags |= DAG_DONE;
		else
			return perr(c, f, line, "%s %s: unexpected \"%s\"",
			    what, name, w);
	}
	return add_node(c, sc, f, line, what, name, file, dir, flags);
}

static int parse_path(struct ctx *, struct scope *, uint32_t, int,
    const char *, const char *, int);
static int end_scope(struct ctx *, struct scope *);

/* The lines of text TEXT (NUL-terminated, writable) of file F. */
static int parse_text(struct ctx *, struct scope *, uint32_t, char *,
    size_t, int);

/* Read PATH whole into a buffer kept until the parse ends. */
static int
read_file(struct ctx *c, uint32_t f, int line, const char *what,
    const char *path, char **text, size_t *len, dev_t *dev, ino_t *ino)
{
	struct stat st;
	size_t n = 0;
	ssize_t r;
	char *t;
	int fd, e;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		e = errno;
		goto fail;
	}
	if (fstat(fd, &st) == -1) {
		e = errno;
		close(fd);
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		if (line > 0)
			return perr(c, f, line, "%s %s: not a regular file",
			    what, path);
		errbuf_set(c->err, c->errlen, "%s: not a regular file", path);
		return -1;
	}
	if (st.st_size > DAG_MAX_FILE ||
	    c->total + (size_t)st.st_size > (size_t)DAG_MAX_FILE) {
		close(fd);
		e = EFBIG;
		goto fail;
	}
	t = xmalloc((size_t)st.st_size + 1);
	while (n < (size_t)st.st_size) {
		r = read(fd, t + n, (size_t)st.st_size - n);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0) {
			e = r == 0 ? EIO : errno;
			free(t);
			close(fd);
			goto fail;
		}
		n += (size_t)r;
	}
	close(fd);
	t[n] = '\0';
	c->total += n;
	vgrow(&c->texts, &c->ctexts, c->ntexts, sizeof(*c->texts));
	c->texts[c->ntexts++] = t;
	*text = t;
	*len = n;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return 0;
fail:
	if (line > 0)
		return perr(c, f, line, "%s %s: %s", what, path, strerror(e));
	errbuf_set(c->err, c->errlen, "%s: %s", path, strerror(e));
	return -1;
}

/* Read and parse PATH (INCLUDE or SPLICE from F:LINE) into SC. */
static int
parse_path(struct ctx *c, struct scope *sc, uint32_t f, int line,
    const char *what, const char *path, int depth)
{
	char *text;
	size_t len;
	dev_t dev;
	ino_t ino;
	uint32_t nf;
	int i, rc;

	if (depth > DAG_MAX_DEPTH)
		return perr(c, f, line, "%s %s: nested more than %d deep",
		    what, path, DAG_MAX_DEPTH);
	if (read_file(c, f, line, what, path, &text, &len, &dev, &ino) == -1)
		return -1;
	for (i = 0; i < c->nopen; i++)
		if (c->open[i].dev == dev && c->open[i].ino == ino)
			return perr(c, f, line, "%s %s: a loop (the file "
			    "includes or splices itself)", what, path);
	nf = add_file(c, path);
	c->open[c->nopen].dev = dev;
	c->open[c->nopen].ino = ino;
	c->nopen++;
	rc = parse_text(c, sc, nf, text, len, depth);
	c->nopen--;
	return rc;
}

/* SPLICE name file [DIR dir] */
static int
cmd_splice(struct ctx *c, struct scope *sc, uint32_t f, int line, char *p,
    int depth)
{
	struct scope in;
	struct splice *s;
	struct buf pre;
	const char *full, *path;
	char *name, *file, *w, *dir = NULL;
	unsigned char *deg;
	size_t i, base, n;
	int32_t v;
	int found;

	name = tok(&p);
	file = tok(&p);
	if (name == NULL || file == NULL)
		return perr(c, f, line, "SPLICE needs a name and a DAG file");
	while ((w = tok(&p)) != NULL) {
		if (kw(w, "DIR") && dir == NULL) {
			if ((dir = tok(&p)) == NULL)
				return perr(c, f, line, "SPLICE %s: DIR needs "
				    "a directory", name);
		} else
			return perr(c, f, line, "SPLICE %s: unexpected \"%s\"",
			    name, w);
	}
	if (check_name(c, f, line, "SPLICE", name) == -1)
		return -1;
	full = full_name(c, sc, name);
	v = htab_get(&c->ix->names, full, strlen(full), &found);
	if (found) {
		if (v >= 0)
			return perr(c, f, line, "SPLICE %s: the name of node "
			    "defined at %s:%d", full, c->dag->nodes[v].src,
			    c->dag->nodes[v].line);
		return perr(c, f, line, "SPLICE %s: splice already defined",
		    full);
	}
	memset(&in, 0, sizeof(in));
	buf_init(&pre);
	buf_printf(&pre, "%s%s+", sc->prefix, name);
	in.prefixlen = pre.len;
	in.prefix = arena_strdup(&c->ix->arena, pre.data);
	buf_free(&pre);
	in.dir = sc->dir;
	if (dir != NULL)
		in.dir = arena_strdup(&c->ix->arena, join(c, sc->dir, dir));
	in.node_start = c->dag->nnodes;
	in.pend_start = c->npend;
	in.ref_start = c->nrefs;
	in.edge_start = c->nedges;
	path = arena_strdup(&c->ix->arena, join(c, in.dir, file));
	if (parse_path(c, &in, f, line, "SPLICE", path, depth + 1) == -1 ||
	    end_scope(c, &in) == -1)
		return -1;

	/* Its exits (no children inside) and entries (no parents). */
	n = c->dag->nnodes - in.node_start;
	deg = xcalloc(n ? n : 1, 1);
	for (i = in.edge_start; i < c->nedges; i++) {
		deg[c->edges[i].p - in.node_start] |= 1;
		deg[c->edges[i].c - in.node_start] |= 2;
	}
	vgrow(&c->splices, &c->csplices, c->nsplices, sizeof(*c->splices));
	s = &c->splices[c->nsplices];
	s->end0 = (uint32_t)c->nends;
	s->nsinks = s->nsources = 0;
	for (i = 0; i < n; i++)
		if (!(deg[i] & 1)) {
			vgrow(&c->ends, &c->cends, c->nends, sizeof(*c->ends));
			c->ends[c->nends++] = (uint32_t)(in.node_start + i);
			s->nsinks++;
		}
	for (i = 0; i < n; i++)
		if (!(deg[i] & 2)) {
			vgrow(&c->ends, &c->cends, c->nends, sizeof(*c->ends));
			c->ends[c->nends++] = (uint32_t)(in.node_start + i);
			s->nsources++;
		}
	free(deg);
	base = in.prefixlen - 1;	/* the name, without the last '+' */
	htab_put(&c->ix->names, arena_strndup(&c->ix->arena, in.prefix, base),
	    -1 - (int32_t)c->nsplices);
	c->nsplices++;
	return 0;
}

static struct pend *
new_pend(struct ctx *c, enum pkind kind, uint32_t f, int line,
    const char *name)
{
	struct pend *pd;

	vgrow(&c->pend, &c->cpend, c->npend, sizeof(*c->pend));
	pd = &c->pend[c->npend++];
	memset(pd, 0, sizeof(*pd));
	pd->kind = kind;
	pd->file = f;
	pd->line = line;
	pd->name = (name != NULL && strcasecmp(name, "ALL_NODES") == 0) ? NULL :
	    name;
	return pd;
}

static int apply_edges(struct ctx *, const struct scope *,
    const struct pend *, int);

/* PARENT p... CHILD c...: its edges at once when every name is known
 * (the usual case, and the cheap one), else when the namespace ends. */
static int
cmd_parent(struct ctx *c, const struct scope *sc, uint32_t f, int line,
    char *p)
{
	struct pend *pd;
	int r;
	size_t r0 = c->nrefs, np = 0;
	char *w;
	int child = 0;

	while ((w = tok(&p)) != NULL) {
		if (!child && kw(w, "CHILD")) {
			child = 1;
			if (c->nrefs == r0)
				return perr(c, f, line, "PARENT: no parent "
				    "before CHILD");
			np = c->nrefs - r0;
			continue;
		}
		if (kw(w, "PARENT") || kw(w, "CHILD"))
			return perr(c, f, line, "PARENT: unexpected \"%s\"",
			    w);
		vgrow(&c->refs, &c->crefs, c->nrefs, sizeof(*c->refs));
		c->refs[c->nrefs++] = w;
	}
	if (!child)
		return perr(c, f, line, "PARENT: CHILD is missing");
	if (c->nrefs - r0 == np)
		return perr(c, f, line, "PARENT: no child after CHILD");
	if (c->ngroups >= UINT32_MAX - 1 || c->nrefs >= UINT32_MAX - 1)
		return perr(c, f, line, "PARENT: too many");
	pd = new_pend(c, P_EDGES, f, line, "");
	pd->u.edges.p0 = (uint32_t)r0;
	pd->u.edges.np = (uint32_t)np;
	pd->u.edges.nc = (uint32_t)(c->nrefs - r0 - np);
	vgrow(&c->groups, &c->cgroups, c->ngroups, sizeof(*c->groups));
	c->groups[c->ngroups].file = f;
	c->groups[c->ngroups].line = line;
	pd->u.edges.group = (uint32_t)c->ngroups++;
	if ((r = apply_edges(c, sc, pd, 1)) != -2) {
		c->npend--;
		c->nrefs = r0;
		return r;
	}
	return 0;
}

/* SCRIPT [DEFER status seconds] PRE|POST name program args... */
static int
cmd_script(struct ctx *c, uint32_t f, int line, char *p)
{
	struct dag_script *s;
	struct pend *pd;
	char *w, *name, *cmd;
	long st = 0, secs = 0;

	w = tok(&p);
	if (kw(w, "DEFER")) {
		if (number(c, f, line, "SCRIPT DEFER status", tok(&p), 0,
		    255, &st) == -1 ||
		    number(c, f, line, "SCRIPT DEFER seconds", tok(&p), 1,
		    INT_MAX, &secs) == -1)
			return -1;
		w = tok(&p);
	}
	if (kw(w, "HOLD"))
		return perr(c, f, line, "SCRIPT HOLD is not supported");
	if (!kw(w, "PRE") && !kw(w, "POST"))
		return perr(c, f, line, "SCRIPT needs PRE or POST, a node "
		    "name and a program");
	if ((name = tok(&p)) == NULL)
		return perr(c, f, line, "SCRIPT %s: the node name is missing",
		    w);
	cmd = rest(p);
	if (*cmd == '\0')
		return perr(c, f, line, "SCRIPT %s %s: the program is missing",
		    w, name);
	s = arena_alloc(&c->ix->arena, sizeof(*s));
	s->cmd = arena_strdup(&c->ix->arena, cmd);
	s->defer_status = (int)st;
	s->defer_time = secs;
	pd = new_pend(c, kw(w, "PRE") ? P_PRE : P_POST, f, line, name);
	pd->u.script = s;
	return 0;
}

static int
valid_key(const char *k, size_t n)
{
	size_t i;

	if (n == 0 || !((k[0] >= 'A' && k[0] <= 'Z') ||
	    (k[0] >= 'a' && k[0] <= 'z') || k[0] == '_'))
		return 0;
	for (i = 1; i < n; i++)
		if (!((k[i] >= 'A' && k[i] <= 'Z') ||
		    (k[i] >= 'a' && k[i] <= 'z') ||
		    (k[i] >= '0' && k[i] <= '9') || k[i] == '_' || k[i] == '.'))
			return 0;
	return 1;
}

/* VARS name [PREPEND|APPEND] key="value"... */
static int
cmd_vars(struct ctx *c, uint32_t f, int line, char *p)
{
	struct dag_var *v = NULL;
	struct pend *pd;
	size_t nv = 0, cv = 0, klen;
	char *name, *k, *q, *o, *vs, *save;
	int rc = -1;

	if ((name = tok(&p)) == NULL)
		return perr(c, f, line, "VARS needs a node name and "
		    "key=\"value\" pairs");
	save = p;
	q = tok(&p);
	if (!kw(q, "PREPEND") && !kw(q, "APPEND")) {
		if (q != NULL && p > q + strlen(q))
			q[strlen(q)] = ' ';	/* undo the cut */
		p = save;
	}
	for (;;) {
		while (is_space((unsigned char)*p))
			p++;
		if (*p == '\0')
			break;
		k = p;
		while (*p != '\0' && *p != '=' && !is_space((unsigned char)*p))
			p++;
		klen = (size_t)(p - k);
		while (is_space((unsigned char)*p))
			p++;
		if (*p != '=') {
			perr(c, f, line, "VARS %s: \"%.*s\" is not key=\"value\"",
			    name, (int)(klen > 100 ? 100 : klen), k);
			goto out;
		}
		if (!valid_key(k, klen)) {
			perr(c, f, line, "VARS %s: \"%.*s\" is not a valid "
			    "name", name, (int)(klen > 100 ? 100 : klen), k);
			goto out;
		}
		if (klen >= 5 && strncasecmp(k, "queue", 5) == 0) {
			perr(c, f, line, "VARS %s: %.*s: names starting with "
			    "\"queue\" are not allowed", name,
			    (int)(klen > 100 ? 100 : klen), k);
			goto out;
		}
		p++;
		while (is_space((unsigned char)*p))
			p++;
		if (*p != '"') {
			perr(c, f, line, "VARS %s: the value of %.*s must be "
			    "in double quotes", name,
			    (int)(klen > 100 ? 100 : klen), k);
			goto out;
		}
		vs = q = o = ++p;
		for (;;) {
			if (*q == '\0') {
				perr(c, f, line, "VARS %s: the value of %.*s "
				    "has no closing quote", name,
				    (int)(klen > 100 ? 100 : klen), k);
				goto out;
			}
			if (*q == '"')
				break;
			if (*q == '\\' && (q[1] == '"' || q[1] == '\\'))
				q++;
			*o++ = *q++;
		}
		p = q + 1;
		if (*p != '\0' && !is_space((unsigned char)*p)) {
			perr(c, f, line, "VARS %s: unexpected text after the "
			    "value of %.*s", name,
			    (int)(klen > 100 ? 100 : klen), k);
			goto out;
		}
		vgrow(&v, &cv, nv, sizeof(*v));
		v[nv].name = arena_strndup(&c->ix->arena, k, klen);
		v[nv].value = arena_strndup(&c->ix->arena, vs,
		    (size_t)(o - vs));
		nv++;
	}
	if (nv == 0) {
		perr(c, f, line, "VARS %s: no key=\"value\" pairs", name);
		goto out;
	}
	pd = new_pend(c, P_VARS, f, line, name);
	pd->u.vars.v = arena_alloc(&c->ix->arena, nv * sizeof(*v));
	memcpy(pd->u.vars.v, v, nv * sizeof(*v));
	pd->u.vars.n = nv;
	rc = 0;
out:
	free(v);
	return rc;
}

/* RETRY name N [UNLESS-EXIT value] */
static int
cmd_retry(struct ctx *c, uint32_t f, int line, char *p)
{
	struct pend *pd;
	char *name, *w;
	int n, v = 0, has = 0;

	if ((name = tok(&p)) == NULL)
		return perr(c, f, line, "RETRY needs a node name and a number");
	if (inumber(c, f, line, "RETRY", tok(&p), 0, INT_MAX, &n) == -1)
		return -1;
	if ((w = tok(&p)) != NULL) {
		if (!kw(w, "UNLESS-EXIT"))
			return perr(c, f, line, "RETRY %s: unexpected \"%s\"",
			    name, w);
		if (inumber(c, f, line, "RETRY UNLESS-EXIT", tok(&p), INT_MIN,
		    INT_MAX, &v) == -1)
			return -1;
		has = 1;
		if ((w = tok(&p)) != NULL)
			return perr(c, f, line, "RETRY %s: unexpected \"%s\"",
			    name, w);
	}
	pd = new_pend(c, P_RETRY, f, line, name);
	pd->u.retry.n = n;
	pd->u.retry.has_unless = has;
	pd->u.retry.unless = v;
	return 0;
}

/* ABORT-DAG-ON name value [RETURN n] */
static int
cmd_abort(struct ctx *c, uint32_t f, int line, char *p)
{
	struct pend *pd;
	char *name, *w;
	int v, r = 0, has = 0;

	if ((name = tok(&p)) == NULL)
		return perr(c, f, line, "ABORT-DAG-ON needs a node name and "
		    "an exit value");
	if (inumber(c, f, line, "ABORT-DAG-ON", tok(&p), INT_MIN, INT_MAX,
	    &v) == -1)
		return -1;
	if ((w = tok(&p)) != NULL) {
		if (!kw(w, "RETURN"))
			return perr(c, f, line, "ABORT-DAG-ON %s: unexpected "
			    "\"%s\"", name, w);
		if (inumber(c, f, line, "ABORT-DAG-ON RETURN", tok(&p), 0,
		    255, &r) == -1)
			return -1;
		has = 1;
		if ((w = tok(&p)) != NULL)
			return perr(c, f, line, "ABORT-DAG-ON %s: unexpected "
			    "\"%s\"", name, w);
	}
	pd = new_pend(c, P_ABORT, f, line, name);
	pd->u.abort.value = v;
	pd->u.abort.has_ret = has;
	pd->u.abort.ret = r;
	return 0;
}

/* The index of category NAME as written in SC ("+c": global). */
static int
category(struct ctx *c, const struct scope *sc, uint32_t f, int line,
    const char *what, const char *name, int *out)
{
	struct dag *dag = c->dag;
	const char *full;
	int32_t v;
	int found;

	if (name == NULL)
		return perr(c, f, line, "%s: the category is missing", what);
	if (name[0] == '+')
		full = name + 1;
	else
		full = full_name(c, sc, name);
	if (full[0] == '\0')
		return perr(c, f, line, "%s: an empty category name", what);
	v = htab_get(&c->cats, full, strlen(full), &found);
	if (!found) {
		if (dag->ncategories >= DAG_MAX_NODES)
			return perr(c, f, line, "%s: too many categories",
			    what);
		vgrow(&dag->categories, &c->ccats, dag->ncategories,
		    sizeof(*dag->categories));
		dag->categories[dag->ncategories].name =
		    arena_strdup(&c->ix->arena, full);
		dag->categories[dag->ncategories].maxjobs = 0;
		v = (int32_t)dag->ncategories++;
		htab_put(&c->cats, dag->categories[v].name, v);
	}
	*out = v;
	return 0;
}

/* PRIORITY, CATEGORY, PRE_SKIP, DONE: name [value] */
static int
cmd_simple(struct ctx *c, const struct scope *sc, uint32_t f, int line,
    enum pkind kind, const char *what, char *p)
{
	struct pend *pd;
	char *name, *w;
	int v = 0;

	if ((name = tok(&p)) == NULL)
		return perr(c, f, line, "%s needs a node name%s", what,
		    kind == P_DONE ? "" : kind == P_CAT ? " and a category" :
		    " and a number");
	w = tok(&p);
	switch (kind) {
	case P_PRIO:
		if (inumber(c, f, line, what, w, INT_MIN, INT_MAX, &v) == -1)
			return -1;
		break;
	case P_PRESKIP:
		if (inumber(c, f, line, what, w, 1, 255, &v) == -1)
			return -1;
		break;
	case P_CAT:
		if (category(c, sc, f, line, what, w, &v) == -1)
			return -1;
		break;
	default:
		if (w != NULL)
			return perr(c, f, line, "%s %s: unexpected \"%s\"",
			    what, name, w);
		break;
	}
	if (kind == P_DONE && strcasecmp(name, "ALL_NODES") == 0)
		return perr(c, f, line, "DONE does not take ALL_NODES");
	if (kind != P_DONE && (w = tok(&p)) != NULL)
		return perr(c, f, line, "%s %s: unexpected \"%s\"", what, name,
		    w);
	pd = new_pend(c, kind, f, line, name);
	pd->u.value = v;
	return 0;
}

/* MAXJOBS category N */
static int
cmd_maxjobs(struct ctx *c, const struct scope *sc, uint32_t f, int line,
    char *p)
{
	char *name, *w;
	int cat, n;

	name = tok(&p);
	if (name == NULL)
		return perr(c, f, line, "MAXJOBS needs a category and a "
		    "number");
	if (inumber(c, f, line, "MAXJOBS", tok(&p), 0, INT_MAX, &n) == -1)
		return -1;
	if ((w = tok(&p)) != NULL)
		return perr(c, f, line, "MAXJOBS %s: unexpected \"%s\"", name,
		    w);
	if (category(c, sc, f, line, "MAXJOBS", name, &cat) == -1)
		return -1;
	c->dag->categories[cat].maxjobs = n;
	return 0;
}

/* DOT file [UPDATE|DONT-UPDATE] [OVERWRITE|DONT-OVERWRITE] [INCLUDE f] */
static int
cmd_dot(struct ctx *c, const struct scope *sc, uint32_t f, int line,
    char *p)
{
	struct dag *dag = c->dag;
	char *file, *w;
	int update = 0, overwrite = 1;

	if ((file = tok(&p)) == NULL)
		return perr(c, f, line, "DOT needs a file name");
	while ((w = tok(&p)) != NULL) {
		if (kw(w, "UPDATE"))
			update = 1;
		else if (kw(w, "DONT-UPDATE"))
			update = 0;
		else if (kw(w, "OVERWRITE"))
			overwrite = 1;
		else if (kw(w, "DONT-OVERWRITE"))
			overwrite = 0;
		else if (kw(w, "INCLUDE")) {
			if ((w = tok(&p)) == NULL)
				return perr(c, f, line, "DOT INCLUDE needs a "
				    "file name");
			pwarn(c, f, line, "DOT INCLUDE %s is not supported; "
			    "ignored", w);
		} else
			return perr(c, f, line, "DOT %s: unexpected \"%s\"",
			    file, w);
	}
	if (!sc->top) {
		pwarn(c, f, line, "DOT in a splice is ignored");
		return 0;
	}
	dag->dot_file = arena_strdup(&c->ix->arena, file);
	dag->dot_update = update;
	dag->dot_overwrite = overwrite;
	return 0;
}

/* NODE_STATUS_FILE file [seconds] [ALWAYS-UPDATE] */
static int
cmd_status(struct ctx *c, const struct scope *sc, uint32_t f, int line,
    char *p)
{
	struct dag *dag = c->dag;
	char *file, *w;
	long secs = 60;
	int n = 0;

	if ((file = tok(&p)) == NULL)
		return perr(c, f, line, "NODE_STATUS_FILE needs a file name");
	while ((w = tok(&p)) != NULL) {
		if (kw(w, "ALWAYS-UPDATE"))
			continue;
		if (n++ > 0)
			return perr(c, f, line, "NODE_STATUS_FILE %s: "
			    "unexpected \"%s\"", file, w);
		if (number(c, f, line, "NODE_STATUS_FILE", w, 1, INT_MAX,
		    &secs) == -1)
			return -1;
	}
	if (!sc->top) {
		pwarn(c, f, line, "NODE_STATUS_FILE in a splice is ignored");
		return 0;
	}
	dag->status_file = arena_strdup(&c->ix->arena, file);
	dag->status_interval = secs;
	return 0;
}

/* CONFIG file */
static int
cmd_config(struct ctx *c, const struct scope *sc, uint32_t f, int line,
    char *p)
{
	struct dag *dag = c->dag;
	char *file, *w;

	if ((file = tok(&p)) == NULL)
		return perr(c, f, line, "CONFIG needs a file name");
	if ((w = tok(&p)) != NULL)
		return perr(c, f, line, "CONFIG %s: unexpected \"%s\"", file,
		    w);
	if (!sc->top) {
		pwarn(c, f, line, "CONFIG in a splice is ignored");
		return 0;
	}
	if (dag->config_file != NULL && strcmp(dag->config_file, file) != 0)
		return perr(c, f, line, "CONFIG %s: a second configuration "
		    "file (the first: %s)", file, dag->config_file);
	dag->config_file = arena_strdup(&c->ix->arena, file);
	return 0;
}

static const char *const unsupported[] = {
	"SET_JOB_ATTR", "ENV", "PROVISIONER", "SERVICE", "CONNECT", "PIN_IN",
	"PIN_OUT"
};

/* One line (NUL-terminated, writable) of file F. */
static int
parse_line(struct ctx *c, struct scope *sc, uint32_t f, int line, char *p,
    int depth)
{
	char *w, *file;
	size_t i;

	if ((w = tok(&p)) == NULL || w[0] == '#')
		return 0;
	if (kw(w, "JOB") || kw(w, "DATA"))
		return cmd_job(c, sc, f, line, "JOB", 0, p);
	if (kw(w, "PARENT"))
		return cmd_parent(c, sc, f, line, p);
	if (kw(w, "SCRIPT"))
		return cmd_script(c, f, line, p);
	if (kw(w, "VARS"))
		return cmd_vars(c, f, line, p);
	if (kw(w, "RETRY"))
		return cmd_retry(c, f, line, p);
	if (kw(w, "FINAL"))
		return cmd_job(c, sc, f, line, "FINAL", DAG_FINAL, p);
	if (kw(w, "SUBDAG")) {
		if (!kw(tok(&p), "EXTERNAL"))
			return perr(c, f, line, "SUBDAG needs EXTERNAL");
		return cmd_job(c, sc, f, line, "SUBDAG", DAG_SUBDAG, p);
	}
	if (kw(w, "SPLICE"))
		return cmd_splice(c, sc, f, line, p, depth);
	if (kw(w, "ABORT-DAG-ON"))
		return cmd_abort(c, f, line, p);
	if (kw(w, "PRIORITY"))
		return cmd_simple(c, sc, f, line, P_PRIO, "PRIORITY", p);
	if (kw(w, "CATEGORY"))
		return cmd_simple(c, sc, f, line, P_CAT, "CATEGORY", p);
	if (kw(w, "PRE_SKIP"))
		return cmd_simple(c, sc, f, line, P_PRESKIP, "PRE_SKIP", p);
	if (kw(w, "DONE"))
		return cmd_simple(c, sc, f, line, P_DONE, "DONE", p);
	if (kw(w, "MAXJOBS"))
		return cmd_maxjobs(c, sc, f, line, p);
	if (kw(w, "INCLUDE")) {
		if ((file = tok(&p)) == NULL)
			return perr(c, f, line, "INCLUDE needs a file name");
		if ((w = tok(&p)) != NULL)
			return perr(c, f, line, "INCLUDE %s: unexpected \"%s\"",
			    file, w);
		file = arena_strdup(&c->ix->arena, join(c, sc->dir, file));
		return parse_path(c, sc, f, line, "INCLUDE", file, depth + 1);
	}
	if (kw(w, "DOT"))
		return cmd_dot(c, sc, f, line, p);
	if (kw(w, "NODE_STATUS_FILE"))
		return cmd_status(c, sc, f, line, p);
	if (kw(w, "CONFIG"))
		return cmd_config(c, sc, f, line, p);
	if (kw(w, "JOBSTATE_LOG") || kw(w, "SAVE_POINT_FILE")) {
		pwarn(c, f, line, "%s is not supported; ignored", w);
		return 0;
	}
	if (kw(w, "REJECT"))
		return perr(c, f, line, "REJECT: the DAG file is marked not "
		    "to be run");
	for (i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++)
		if (kw(w, unsupported[i]))
			return perr(c, f, line, "%s is not supported",
			    unsupported[i]);
	return perr(c, f, line, "unknown command \"%.100s\"", w);
}

static int
parse_text(struct ctx *c, struct scope *sc, uint32_t f, char *text,
    size_t len, int depth)
{
	char *p = text, *end = text + len, *nl, *z;
	int line = 0;

	if ((z = memchr(text, '\0', len)) != NULL) {
		for (p = text; p < z; p++)
			if (*p == '\n')
				line++;
		return perr(c, f, line + 1, "a NUL byte");
	}
	while (p < end) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (line == INT_MAX)
			return perr(c, f, line, "too many lines");
		line++;
		if (nl - p > DAG_MAX_LINE)
			return perr(c, f, line, "a line longer than %ld bytes",
			    DAG_MAX_LINE);
		*nl = '\0';
		if (parse_line(c, sc, f, line, p, depth) == -1)
			return -1;
		p = nl + 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Resolution, at the end of a namespace. */

static const char *
pend_what(enum pkind k)
{
	switch (k) {
	case P_EDGES:	return "PARENT";
	case P_PRE:	return "SCRIPT PRE";
	case P_POST:	return "SCRIPT POST";
	case P_RETRY:	return "RETRY";
	case P_VARS:	return "VARS";
	case P_ABORT:	return "ABORT-DAG-ON";
	case P_PRIO:	return "PRIORITY";
	case P_CAT:	return "CATEGORY";
	case P_PRESKIP:	return "PRE_SKIP";
	case P_DONE:	return "DONE";
	}
	return "?";
}

/* NAME in SC: 0 and the node's index, 1 and the splice's, or -1. */
static int
resolve(struct ctx *c, const struct scope *sc, const char *name,
    size_t *idx)
{
	const char *full = full_name(c, sc, name);
	int32_t v;
	int found;

	v = htab_get(&c->ix->names, full, strlen(full), &found);
	if (!found)
		return -1;
	if (v >= 0) {
		*idx = (size_t)v;
		return 0;
	}
	*idx = (size_t)(-1 - v);
	return 1;
}

/* Room for N vars: the capacity is the power of two at or above the
 * count, so that appends one line at a time stay linear. */
static size_t
vars_room(size_t n)
{
	size_t r = 4;

	while (r < n)
		r *= 2;
	return r;
}

static void
add_vars(struct dag_node *n, const struct dag_var *v, size_t nv, int front)
{
	if (n->vars == NULL || vars_room(n->nvars + nv) != vars_room(n->nvars))
		n->vars = xreallocarray(n->vars, vars_room(n->nvars + nv),
		    sizeof(*n->vars));
	if (front) {
		memmove(n->vars + nv, n->vars, n->nvars * sizeof(*n->vars));
		memcpy(n->vars, v, nv * sizeof(*v));
	} else
		memcpy(n->vars + n->nvars, v, nv * sizeof(*v));
	n->nvars += nv;
}

/* Apply PD to node I; ALL: from ALL_NODES, only what is not yet set. */
static int
apply(struct ctx *c, const struct pend *pd, size_t i, int all)
{
	struct dag_node *n = &c->dag->nodes[i];
	uint16_t *b = &c->bits[i];

#define SETTING(bit) do {						\
	if (all && (*b & (bit)))					\
		return 0;						\
	*b |= (bit);							\
} while (0)

	switch (pd->kind) {
	case P_PRE:
		if (!all && (*b & B_XPRE))
			return perr(c, pd->file, pd->line, "SCRIPT PRE: node "
			    "%s already has a PRE script", n->name);
		SETTING(B_PRE);
		if (!all)
			*b |= B_XPRE;
		n->pre = pd->u.script;
		break;
	case P_POST:
		if (!all && (*b & B_XPOST))
			return perr(c, pd->file, pd->line, "SCRIPT POST: node "
			    "%s already has a POST script", n->name);
		SETTING(B_POST);
		if (!all)
			*b |= B_XPOST;
		n->post = pd->u.script;
		break;
	case P_RETRY:
		SETTING(B_RETRY);
		n->retry = pd->u.retry.n;
		n->has_unless_exit = pd->u.retry.has_unless;
		n->unless_exit = pd->u.retry.unless;
		break;
	case P_VARS:
		add_vars(n, pd->u.vars.v, pd->u.vars.n, all);
		break;
	case P_ABORT:
		SETTING(B_ABORT);
		n->has_abort = 1;
		n->abort_value = pd->u.abort.value;
		n->has_abort_return = pd->u.abort.has_ret;
		n->abort_return = pd->u.abort.ret;
		break;
	case P_PRIO:
		SETTING(B_PRIO);
		n->priority = pd->u.value;
		break;
	case P_CAT:
		SETTING(B_CAT);
		n->category = pd->u.value;
		break;
	case P_PRESKIP:
		SETTING(B_PRESKIP);
		n->has_pre_skip = 1;
		n->pre_skip = pd->u.value;
		break;
	case P_DONE:
		n->flags |= DAG_DONE;
		break;
	case P_EDGES:
		break;
	}
#undef SETTING
	return 0;
}

/* PARENT's (or CHILD's, CHILD set) name NAME into c->tmp, or only
 * counted into *COUNT if COUNT is not NULL; QUIET: an unknown name
 * returns -2, no error made. */
static int
expand(struct ctx *c, const struct scope *sc, const struct pend *pd,
    const char *name, int child, int quiet, size_t *count)
{
	const struct splice *s;
	size_t idx, i, from, n;
	int r;

	if ((r = resolve(c, sc, name, &idx)) == -1) {
		if (quiet)
			return -2;
		return perr(c, pd->file, pd->line, "%s: unknown node %s",
		    child ? "CHILD" : "PARENT", name);
	}
	if (r == 0) {
		if (c->dag->nodes[idx].flags & DAG_FINAL)
			return perr(c, pd->file, pd->line, "FINAL node %s may "
			    "not be in PARENT or CHILD", name);
		if (count != NULL) {
			(*count)++;
			return 0;
		}
		vgrow(&c->tmp, &c->ctmp, c->ntmp, sizeof(*c->tmp));
		c->tmp[c->ntmp++] = (uint32_t)idx;
		return 0;
	}
	s = &c->splices[idx];
	from = child ? s->end0 + s->nsinks : s->end0;
	n = child ? s->nsources : s->nsinks;
	if (count != NULL) {
		*count += n;
		return 0;
	}
	for (i = 0; i < n; i++) {
		vgrow(&c->tmp, &c->ctmp, c->ntmp, sizeof(*c->tmp));
		c->tmp[c->ntmp++] = c->ends[from + i];
	}
	return 0;
}

/* The edges of PARENT line PD; QUIET: -2 if a name is not yet known. */
static int
apply_edges(struct ctx *c, const struct scope *sc, const struct pend *pd,
    int quiet)
{
	size_t i, j, np, nc;
	uint32_t p0 = pd->u.edges.p0;
	int r;

	/* Names checked and counted first: a splice without entries or
	 * exits costs nothing to expand. */
	np = nc = 0;
	for (i = 0; i < pd->u.edges.np; i++)
		if ((r = expand(c, sc, pd, c->refs[p0 + i], 0, quiet,
		    &np)) < 0)
			return r;
	for (i = 0; i < pd->u.edges.nc; i++)
		if ((r = expand(c, sc, pd, c->refs[p0 + pd->u.edges.np + i], 1,
		    quiet, &nc)) < 0)
			return r;
	if (np == 0 || nc == 0)
		return 0;
	c->ntmp = 0;
	for (i = 0; i < pd->u.edges.np; i++)
		(void)expand(c, sc, pd, c->refs[p0 + i], 0, 0, NULL);
	np = c->ntmp;
	for (i = 0; i < pd->u.edges.nc; i++)
		(void)expand(c, sc, pd, c->refs[p0 + pd->u.edges.np + i], 1, 0,
		    NULL);
	nc = c->ntmp - np;
	if (np != 0 && nc > ((size_t)DAG_MAX_EDGES - c->nedges) / np)
		return perr(c, pd->file, pd->line, "more than %ld edges",
		    DAG_MAX_EDGES);
	if (np * nc == 0)
		return 0;
	vgrow(&c->edges, &c->cedges, c->nedges + np * nc - 1,
	    sizeof(*c->edges));
	for (i = 0; i < np; i++)
		for (j = 0; j < nc; j++) {
			c->edges[c->nedges].p = c->tmp[i];
			c->edges[c->nedges].c = c->tmp[np + j];
			c->edges[c->nedges].group = pd->u.edges.group;
			c->nedges++;
		}
	return 0;
}

static int
end_scope(struct ctx *c, struct scope *sc)
{
	struct pend *pd;
	struct dag_var *all = NULL;
	size_t i, k, idx, end = c->dag->nnodes, nv = 0, nall = 0;
	unsigned char seen[P_DONE + 1];
	int r;

	for (k = sc->pend_start; k < c->npend; k++) {
		pd = &c->pend[k];
		if (pd->kind == P_EDGES) {
			if (apply_edges(c, sc, pd, 0) == -1)
				return -1;
			continue;
		}
		if (pd->name == NULL)
			continue;
		if ((r = resolve(c, sc, pd->name, &idx)) == -1)
			return perr(c, pd->file, pd->line, "%s: unknown node "
			    "%s", pend_what(pd->kind), pd->name);
		if (r == 1)
			return perr(c, pd->file, pd->line, "%s: %s is a "
			    "splice, not a node", pend_what(pd->kind),
			    pd->name);
		if (apply(c, pd, idx, 0) == -1)
			return -1;
	}
	/* ALL_NODES: of each command the last one written wins, so only
	 * that one is applied; every ALL_NODES VARS, in order, goes in
	 * front of each node's own. */
	memset(seen, 0, sizeof(seen));
	for (k = c->npend; k-- > sc->pend_start;) {
		pd = &c->pend[k];
		if (pd->kind == P_EDGES || pd->name != NULL ||
		    pd->kind == P_VARS || seen[pd->kind])
			continue;
		seen[pd->kind] = 1;
		for (i = sc->node_start; i < end; i++)
			if (!(c->dag->nodes[i].flags & DAG_FINAL))
				(void)apply(c, pd, i, 1);
	}
	for (k = sc->pend_start; k < c->npend; k++) {
		pd = &c->pend[k];
		if (pd->kind != P_VARS || pd->name != NULL)
			continue;
		vgrow(&all, &nall, nv + pd->u.vars.n - 1, sizeof(*all));
		memcpy(all + nv, pd->u.vars.v, pd->u.vars.n * sizeof(*all));
		nv += pd->u.vars.n;
	}
	if (nv > 0) {
		for (i = sc->node_start; i < end; i++)
			if (!(c->dag->nodes[i].flags & DAG_FINAL))
				add_vars(&c->dag->nodes[i], all, nv, 1);
		free(all);
	}
	c->npend = sc->pend_start;
	c->nrefs = sc->ref_start;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The graph: children lists, parents counted, cycles refused. */

static int
report_cycle(struct ctx *c, const size_t *off, const uint32_t *grp,
    const uint32_t *indeg)
{
	struct dag *dag = c->dag;
	struct buf b;
	uint32_t *pred, *pgrp, *seen, *list, x, v;
	size_t i, j, n = dag->nnodes, k = 0, start = 0;
	int rc;

	pred = xmalloc(n * sizeof(*pred));
	pgrp = xmalloc(n * sizeof(*pgrp));
	seen = xcalloc(n, sizeof(*seen));
	for (i = 0; i < n; i++) {
		if (indeg[i] == 0)
			continue;
		if (indeg[start] == 0)
			start = i;	/* the first node left */
		for (j = off[i]; j < off[i + 1]; j++)
			if (indeg[dag->edges[j]] != 0) {
				pred[dag->edges[j]] = (uint32_t)i;
				pgrp[dag->edges[j]] = grp[j];
			}
	}
	/* Every node left has a parent left: walk back to a repeat. */
	for (v = (uint32_t)start; !seen[v]; v = pred[v])
		seen[v] = 1;
	x = v;
	list = xmalloc(n * sizeof(*list));
	v = x;
	do {
		list[k++] = v;
		v = pred[v];
	} while (v != x);
	buf_init(&b);
	buf_printf(&b, "cycle: %s", dag->nodes[x].name);
	for (i = k; i-- > 1;) {
		if (b.len > 2048) {
			buf_adds(&b, " -> ...");
			break;
		}
		buf_printf(&b, " -> %s", dag->nodes[list[i]].name);
	}
	buf_printf(&b, " -> %s", dag->nodes[x].name);
	rc = perr(c, c->groups[pgrp[x]].file, c->groups[pgrp[x]].line, "%s",
	    b.data);
	buf_free(&b);
	free(list);
	free(seen);
	free(pgrp);
	free(pred);
	return rc;
}

static int
build_graph(struct ctx *c)
{
	struct dag *dag = c->dag;
	size_t n = dag->nnodes, e = c->nedges, i, j, w, *off;
	uint32_t *grp, *mark, *indeg, *queue, head = 0, tail = 0;
	int rc = 0;

	off = xcalloc(n + 1, sizeof(*off));
	for (i = 0; i < e; i++)
		off[c->edges[i].p + 1]++;
	for (i = 0; i < n; i++)
		off[i + 1] += off[i];
	dag->edges = xmalloc((e ? e : 1) * sizeof(*dag->edges));
	grp = xmalloc((e ? e : 1) * sizeof(*grp));
	/* Fill with off[p] as the cursor, then shift back. */
	for (i = 0; i < e; i++) {
		w = off[c->edges[i].p]++;
		dag->edges[w] = c->edges[i].c;
		grp[w] = c->edges[i].group;
	}
	for (i = n; i > 0; i--)
		off[i] = off[i - 1];
	off[0] = 0;
	free(c->edges);
	c->edges = NULL;
	c->nedges = c->cedges = 0;

	/* Drop duplicates, keeping the first (and its line). */
	mark = xcalloc(n ? n : 1, sizeof(*mark));
	w = 0;
	for (i = 0; i < n; i++) {
		size_t from = off[i], to = off[i + 1];

		off[i] = w;
		for (j = from; j < to; j++) {
			if (mark[dag->edges[j]] == i + 1)
				continue;
			mark[dag->edges[j]] = (uint32_t)(i + 1);
			dag->edges[w] = dag->edges[j];
			grp[w] = grp[j];
			w++;
		}
	}
	off[n] = w;
	dag->nedges = w;
	indeg = mark;
	memset(indeg, 0, n * sizeof(*indeg));
	for (i = 0; i < n; i++) {
		dag->nodes[i].children = dag->edges + off[i];
		dag->nodes[i].nchildren = off[i + 1] - off[i];
		for (j = off[i]; j < off[i + 1]; j++)
			indeg[dag->edges[j]]++;
	}
	for (i = 0; i < n; i++)
		dag->nodes[i].nparents = indeg[i];

	/* Kahn: take away the nodes without parents, one by one. */
	queue = xmalloc((n ? n : 1) * sizeof(*queue));
	for (i = 0; i < n; i++)
		if (indeg[i] == 0)
			queue[tail++] = (uint32_t)i;
	while (head < tail) {
		i = queue[head++];
		for (j = off[i]; j < off[i + 1]; j++)
			if (--indeg[dag->edges[j]] == 0)
				queue[tail++] = (uint32_t)dag->edges[j];
	}
	free(queue);
	if (tail < n)
		rc = report_cycle(c, off, grp, indeg);
	free(indeg);
	free(grp);
	free(off);
	return rc;
}

/* ------------------------------------------------------------------ */

static void
dag_init(struct dag *dag)
{
	uint64_t key[2];

	memset(dag, 0, sizeof(*dag));
	dag->final = -1;
	dag->dot_overwrite = 1;
	dag->status_interval = 60;
	dag->index = xcalloc(1, sizeof(struct dag_index));
	if (getentropy(key, sizeof(key)) == -1) {
		key[0] = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
		key[1] = (uint64_t)(uintptr_t)dag ^ (uint64_t)clock();
	}
	htab_init(&((struct dag_index *)dag->index)->names, key);
}

static void
ctx_free(struct ctx *c)
{
	size_t i;

	htab_free(&c->cats);
	free(c->bits);
	free(c->pend);
	free(c->refs);
	free(c->edges);
	free(c->groups);
	free(c->splices);
	free(c->ends);
	free(c->tmp);
	for (i = 0; i < c->ntexts; i++)
		free(c->texts[i]);
	free(c->texts);
	buf_free(&c->scratch);
	buf_free(&c->pathbuf);
	free(c->stat_path);
}

/* The parse of top-level TEXT (writable, kept by c->texts) or PATH. */
static int
parse_top(struct dag *dag, const char *path, char *text, size_t len,
    int flags, char *err, size_t errlen)
{
	struct ctx c;
	struct scope top;
	dev_t dev;
	ino_t ino;
	uint32_t f;
	int rc = -1;

	dag_init(dag);
	memset(&c, 0, sizeof(c));
	c.dag = dag;
	c.ix = dag->index;
	c.flags = flags;
	c.err = err;
	c.errlen = errlen;
	buf_init(&c.scratch);
	buf_init(&c.pathbuf);
	htab_init(&c.cats, c.ix->names.key);
	memset(&top, 0, sizeof(top));
	top.prefix = "";
	top.top = 1;
	f = add_file(&c, path);
	if (text != NULL) {
		vgrow(&c.texts, &c.ctexts, c.ntexts, sizeof(*c.texts));
		c.texts[c.ntexts++] = text;
		c.total = len;
	} else {
		if (read_file(&c, f, 0, "DAG", path, &text, &len, &dev,
		    &ino) == -1)
			goto out;
		c.open[0].dev = dev;
		c.open[0].ino = ino;
		c.nopen = 1;
	}
	if (parse_text(&c, &top, f, text, len, 0) == -1 ||
	    end_scope(&c, &top) == -1)
		goto out;
	if (dag->nnodes == 0) {
		perr(&c, f, 0, "the DAG has no nodes");
		goto out;
	}
	rc = build_graph(&c);
out:
	ctx_free(&c);
	return rc;
}

int
dag_parse(const char *path, int flags, struct dag *dag, char *err,
    size_t errlen)
{
	return parse_top(dag, path, NULL, 0, flags, err, errlen);
}

int
dag_parse_text(const char *text, size_t len, const char *name, int flags,
    struct dag *dag, char *err, size_t errlen)
{
	char *t;

	if (len > (size_t)DAG_MAX_FILE) {
		dag_init(dag);
		errbuf_set(err, errlen, "%s: %s", name, strerror(EFBIG));
		return -1;
	}
	t = xmalloc(len + 1);
	memcpy(t, text, len);
	t[len] = '\0';
	return parse_top(dag, name, t, len, flags, err, errlen);
}

void
dag_free(struct dag *dag)
{
	struct dag_index *ix = dag->index;
	size_t i;

	for (i = 0; i < dag->nnodes; i++)
		free(dag->nodes[i].vars);
	free(dag->nodes);
	free(dag->edges);
	free(dag->categories);
	free(dag->files);
	for (i = 0; i < dag->nwarnings; i++)
		free(dag->warnings[i]);
	free(dag->warnings);
	if (ix != NULL) {
		htab_free(&ix->names);
		arena_free(&ix->arena);
		free(ix);
	}
	memset(dag, 0, sizeof(*dag));
	dag->final = -1;
}

long
dag_find(const struct dag *dag, const char *name)
{
	const struct dag_index *ix = dag->index;
	int32_t v;
	int found;

	if (ix == NULL)
		return -1;
	v = htab_get(&ix->names, name, strlen(name), &found);
	return found && v >= 0 ? (long)v : -1;
}

/* ------------------------------------------------------------------ */
/* Rescue DAGs. */

int
dag_apply_rescue(struct dag *dag, const char *path, char *err, size_t errlen)
{
	struct ctx c;
	struct dag_index *ix = dag->index;
	char *text, *p, *end, *nl, *w, *name;
	size_t len;
	dev_t dev;
	ino_t ino;
	uint32_t f;
	long idx;
	int line = 0, rc = -1, n;

	if (ix == NULL) {
		errbuf_set(err, errlen, "%s: no DAG to apply it to", path);
		return -1;
	}
	memset(&c, 0, sizeof(c));
	c.dag = dag;
	c.ix = ix;
	c.err = err;
	c.errlen = errlen;
	c.cfiles = dag->nfiles;	/* the array is exactly this long */
	buf_init(&c.scratch);
	buf_init(&c.pathbuf);
	f = add_file(&c, path);
	if (read_file(&c, f, 0, "rescue DAG", path, &text, &len, &dev,
	    &ino) == -1)
		goto out;
	if (memchr(text, '\0', len) != NULL) {
		perr(&c, f, 0, "a NUL byte");
		goto out;
	}
	for (p = text, end = text + len; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		*nl = '\0';
		line++;
		if ((w = tok(&p)) == NULL || w[0] == '#')
			continue;
		if (kw(w, "DONE") || kw(w, "RETRY")) {
			if ((name = tok(&p)) == NULL) {
				perr(&c, f, line, "%s: the node name is "
				    "missing", w);
				goto out;
			}
			if ((idx = dag_find(dag, name)) == -1) {
				perr(&c, f, line, "%s: unknown node %s", w,
				    name);
				goto out;
			}
			if (kw(w, "DONE"))
				dag->nodes[idx].flags |= DAG_DONE;
			else {
				if (inumber(&c, f, line, "RETRY", tok(&p), 0,
				    INT_MAX, &n) == -1)
					goto out;
				dag->nodes[idx].retry = n;
			}
			if ((name = tok(&p)) != NULL) {
				perr(&c, f, line, "%s: unexpected \"%s\"", w,
				    name);
				goto out;
			}
			continue;
		}
		perr(&c, f, line, "a rescue DAG has only DONE and RETRY "
		    "lines, not %.100s", w);
		goto out;
	}
	rc = 0;
out:
	ctx_free(&c);
	return rc;
}

int
dag_write_rescue(const struct dag *dag, const char *path, const char *dagfile,
    const char *reason, const unsigned char *done, const int *retries_left,
    const size_t *failed, size_t nfailed, char *err, size_t errlen)
{
	struct buf tmp, line;
	const char *r;
	size_t i, ndone = 0;
	FILE *fp;
	int fd, e;

	buf_init(&tmp);
	buf_printf(&tmp, "%s.tmp", path);
	/* Aside and renamed, never through a planted link (fdio.h). */
	if ((fd = fd_create_aside(path, tmp.data, 0644)) == -1 ||
	    (fp = fdopen(fd, "w")) == NULL) {
		e = errno;
		if (fd != -1)
			close(fd);
		errbuf_set(err, errlen, "%s: %s", e == ELOOP ||
		    e == EFTYPE_USER ? path : tmp.data, fd_user_strerror(e));
		buf_free(&tmp);
		return -1;
	}
	for (i = 0; done != NULL && i < dag->nnodes; i++)
		ndone += done[i] != 0;
	fprintf(fp, "# Rescue DAG file, written by condor_dagman for %s.\n#",
	    dagfile);
	fputc(' ', fp);
	for (r = reason != NULL ? reason : ""; *r != '\0'; r++)
		fputc(*r == '\n' ? ' ' : *r, fp);
	fprintf(fp, "\n# Nodes that failed: %zu\n", nfailed);
	buf_init(&line);
	for (i = 0; i < nfailed; i++) {
		if (failed[i] >= dag->nnodes)
			continue;
		if (line.len > 0 && line.len +
		    strlen(dag->nodes[failed[i]].name) > 70) {
			fprintf(fp, "#   %s\n", line.data);
			buf_reset(&line);
		}
		buf_printf(&line, "%s%s", dag->nodes[failed[i]].name,
		    i + 1 < nfailed ? "," : "");
	}
	if (line.len > 0)
		fprintf(fp, "#   %s\n", line.data);
	buf_free(&line);
	fprintf(fp, "# Total number of nodes: %zu\n", dag->nnodes);
	fprintf(fp, "# Nodes done: %zu\n", ndone);
	fprintf(fp, "# A DONE node is not run again; RETRY gives the retries "
	    "left.\n\n");
	for (i = 0; done != NULL && i < dag->nnodes; i++)
		if (done[i])
			fprintf(fp, "DONE %s\n", dag->nodes[i].name);
	for (i = 0; retries_left != NULL && i < dag->nnodes; i++)
		if ((done == NULL || !done[i]) &&
		    retries_left[i] < dag->nodes[i].retry)
			fprintf(fp, "RETRY %s %d\n", dag->nodes[i].name,
			    retries_left[i] < 0 ? 0 : retries_left[i]);
	if (fflush(fp) == EOF || ferror(fp) || fsync(fileno(fp)) == -1) {
		e = errno ? errno : EIO;
		fclose(fp);
		goto fail;
	}
	if (fclose(fp) == EOF) {
		e = errno;
		goto fail;
	}
	if (rename(tmp.data, path) == -1) {
		e = errno;
		goto fail;
	}
	buf_free(&tmp);
	return 0;
fail:
	(void)unlink(tmp.data);
	errbuf_set(err, errlen, "%s: %s", path, strerror(e));
	buf_free(&tmp);
	return -1;
}

const char *
dag_state_name(enum dag_state s)
{
	static const char *const names[] = {
		"STATUS_NOT_READY", "STATUS_READY", "STATUS_PRERUN",
		"STATUS_SUBMITTED", "STATUS_POSTRUN", "STATUS_DONE",
		"STATUS_ERROR", "STATUS_FUTILE"
	};

	if ((unsigned)s >= sizeof(names) / sizeof(names[0]))
		return "STATUS_UNKNOWN";
	return names[s];
}

/* NAME in double quotes, '"' and '\' escaped. */
static void
dot_quote(FILE *fp, const char *name)
{
	fputc('"', fp);
	for (; *name != '\0'; name++) {
		if (*name == '"' || *name == '\\')
			fputc('\\', fp);
		fputc(*name, fp);
	}
	fputc('"', fp);
}

int
dag_write_dot(const struct dag *dag, const unsigned char *states, FILE *fp)
{
	const char *name;
	size_t i, j;

	fprintf(fp, "digraph DAG {\n");
	for (i = 0; i < dag->nnodes; i++) {
		fputc('\t', fp);
		dot_quote(fp, dag->nodes[i].name);
		if (states != NULL) {
			fprintf(fp, " [label=\"");
			for (name = dag->nodes[i].name; *name != '\0';
			    name++) {
				if (*name == '"' || *name == '\\')
					fputc('\\', fp);
				fputc(*name, fp);
			}
			fprintf(fp, "\\n%s\"]",
			    dag_state_name((enum dag_state)states[i]));
		}
		fprintf(fp, ";\n");
	}
	for (i = 0; i < dag->nnodes; i++)
		for (j = 0; j < dag->nodes[i].nchildren; j++) {
			fputc('\t', fp);
			dot_quote(fp, dag->nodes[i].name);
			fprintf(fp, " -> ");
			dot_quote(fp, dag->nodes[dag->nodes[i].children[j]].name);
			fprintf(fp, ";\n");
		}
	fprintf(fp, "}\n");
	if (fflush(fp) == EOF || ferror(fp)) {
		if (errno == 0)
			errno = EIO;
		return -1;
	}
	return 0;
}
