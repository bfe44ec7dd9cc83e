/*
 * queue_log.c: the job queue's transaction log (see queue_log.h).
 *
 * The live state is a chained hash table of entries, each holding one
 * parsed ad, threaded on a list in creation order so that walking the
 * queue gives jobs in the order they were submitted without sorting.
 *
 * An open transaction is kept twice: as the text it will append (built
 * as each change is recorded, so that committing is one write) and as a
 * list of operations to apply once that text is safely in the file.
 * Replay parses the file back into the same operations and applies them
 * with the same code, so what a running schedd holds and what a
 * restarted one rebuilds cannot differ.
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ad.h"
#include "buf.h"
#include "expr.h"
#include "fdio.h"
#include "log.h"
#include "crc.h"
#include "queue_log.h"
#include "xalloc.h"

#define QLOG_COMPACT_FLOOR	(64 * 1024)	/* bytes: kept below */
#define QLOG_COMPACT_CHUNK	1024	/* ads per transaction */
#define QLOG_FLUSH_BYTES	(1024 * 1024)	/* compaction write size */
#define QLOG_MAX_WARNINGS	10	/* per replay or commit */

struct qlog_entry {
	int			 cluster;
	int			 proc;
	struct ad		*ad;
	long long		 bytes;		/* in a log, roughly */
	struct qlog_entry	*next;		/* creation order */
	struct qlog_entry	*prev;
	struct qlog_entry	*hnext;		/* hash chain */
};

enum op_type {
	OP_COUNTER,
	OP_NEW,
	OP_SET_TEXT,
	OP_SET_INT,
	OP_SET_REAL,
	OP_SET_STRING,
	OP_DELETE,
	OP_DESTROY,
};

struct qlog_op {
	enum op_type	 type;
	int		 cluster;
	int		 proc;
	char		*name;
	char		*text;		/* OP_SET_TEXT, _STRING */
	long long	 i;		/* OP_COUNTER, OP_SET_INT */
	double		 r;		/* OP_SET_REAL */
	struct ad	*ad;		/* OP_NEW: initial attributes */
	long long	 bytes;		/* its records' bytes */
};

struct qlog {
	char			*path;
	int			 fd;		/* O_APPEND */
	long long		 size;		/* bytes in the file */
	int			 dirty;		/* not yet synced */
	int			 group;		/* durable commits wait for
						 * qlog_sync (group commit) */
	int			 sync_wanted;	/* a durable commit waits */
	long long		 syncs;		/* fdatasyncs done */
	long long		 commits;	/* transactions written */
	int			 counter;	/* next cluster id */

	struct qlog_entry	**table;
	size_t			 nbuckets;	/* a power of two */
	size_t			 count;
	struct qlog_entry	*head, *tail;
	long long		 live_bytes;	/* estimate */

	int			 in_tx;
	struct buf		 tx;		/* records from "B" */
	struct qlog_op		*ops;
	size_t			 nops, capops;

	int			 warnings;
	struct qlog_stats	 stats;
};

/* CRC-32 (IEEE 802.3, reflected, polynomial 0xedb88320). */
unsigned
qlog_crc32(unsigned crc, const void *data, size_t n)
{
	return crc32_ieee(crc, data, n);
}

/* A warning during replay or apply; the first few only, then a count. */
static void
qlog_warnx(struct qlog *q, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
qlog_warnx(struct qlog *q, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (q->warnings++ >= QLOG_MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_warnx("%s: %s", q->path, msg);
}

/*
 * Escaping: a record is one line, so newlines and the escape character
 * itself must not appear raw; other control bytes are escaped as well so
 * that the file stays readable and no terminal-eating byte survives.
 */
static void
escape_text(struct buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p;
	const char *run = s;

	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p >= 0x20 && *p != 0x7f && *p != '\\')
			continue;
		buf_add(b, run, (size_t)((const char *)p - run));
		switch (*p) {
		case '\\':
			buf_add(b, "\\\\", 2);
			break;
		case '\n':
			buf_add(b, "\\n", 2);
			break;
		case '\r':
			buf_add(b, "\\r", 2);
			break;
		case '\t':
			buf_add(b, "\\t", 2);
			break;
		default:
			buf_addc(b, '\\');
			buf_addc(b, 'x');
			buf_addc(b, hex[*p >> 4]);
			buf_addc(b, hex[*p & 0xf]);
			break;
		}
		run = (const char *)p + 1;
	}
	buf_adds(b, run);
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Undo escape_text on S[0..N) into a fresh string.  NULL if an escape is
 * malformed, a NUL would result, or the text exceeds AD_MAX_TEXT.
 */
static char *
unescape_text(const char *s, size_t n)
{
	char *out, *o;
	size_t i;

	if (n > 4 * (size_t)AD_MAX_TEXT)
		return NULL;
	out = o = xmalloc(n + 1);
	for (i = 0; i < n; i++) {
		int hi, lo;

		if (s[i] != '\\') {
			if (s[i] == '\0')
				goto bad;
			*o++ = s[i];
			continue;
		}
		if (++i >= n)
			goto bad;
		switch (s[i]) {
		case '\\':
			*o++ = '\\';
			break;
		case 'n':
			*o++ = '\n';
			break;
		case 'r':
			*o++ = '\r';
			break;
		case 't':
			*o++ = '\t';
			break;
		case 'x':
			if (i + 2 >= n)
				goto bad;
			hi = hexval((unsigned char)s[i + 1]);
			lo = hexval((unsigned char)s[i + 2]);
			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
				goto bad;
			*o++ = (char)(hi << 4 | lo);
			i += 2;
			break;
		default:
			goto bad;
		}
	}
	*o = '\0';
	if ((size_t)(o - out) > AD_MAX_TEXT)
		goto bad;
	return out;
bad:
	free(out);
	return NULL;
}

/* The table. */

static size_t
entry_hash(int cluster, int proc, size_t nbuckets)
{
	uint64_t k = (uint64_t)(uint32_t)cluster << 32 | (uint32_t)proc;

	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & (nbuckets - 1);
}

static struct qlog_entry *
entry_find(const struct qlog *q, int cluster, int proc)
{
	struct qlog_entry *e;

	for (e = q->table[entry_hash(cluster, proc, q->nbuckets)]; e != NULL;
	    e = e->hnext)
		if (e->cluster == cluster && e->proc == proc)
			return e;
	return NULL;
}

static void
table_grow(struct qlog *q)
{
	struct qlog_entry **nt, *e;
	size_t n = q->nbuckets * 2, h;

	nt = xcalloc(n, sizeof(*nt));
	for (e = q->head; e != NULL; e = e->next) {
		h = entry_hash(e->cluster, e->proc, n);
		e->hnext = nt[h];
		nt[h] = e;
	}
	free(q->table);
	q->table = nt;
	q->nbuckets = n;
}

static struct qlog_entry *
entry_add(struct qlog *q, int cluster, int proc, struct ad *ad)
{
	struct qlog_entry *e;
	size_t h;

	if (q->count + 1 > q->nbuckets)
		table_grow(q);
	e = xcalloc(1, sizeof(*e));
	e->cluster = cluster;
	e->proc = proc;
	e->ad = ad != NULL ? ad : ad_new();
	h = entry_hash(cluster, proc, q->nbuckets);
	e->hnext = q->table[h];
	q->table[h] = e;
	e->prev = q->tail;
	if (q->tail != NULL)
		q->tail->next = e;
	else
		q->head = e;
	q->tail = e;
	q->count++;
	return e;
}

static void
entry_remove(struct qlog *q, struct qlog_entry *e)
{
	struct qlog_entry **pp;

	pp = &q->table[entry_hash(e->cluster, e->proc, q->nbuckets)];
	while (*pp != e)
		pp = &(*pp)->hnext;
	*pp = e->hnext;
	if (e->prev != NULL)
		e->prev->next = e->next;
	else
		q->head = e->next;
	if (e->next != NULL)
		e->next->prev = e->prev;
	else
		q->tail = e->prev;
	q->count--;
	q->live_bytes -= e->bytes;
	ad_free(e->ad);
	free(e);
}

/* Operations. */

static void
op_free(struct qlog_op *op)
{
	free(op->name);
	free(op->text);
	ad_free(op->ad);
	memset(op, 0, sizeof(*op));
}

static void
ops_clear(struct qlog *q)
{
	size_t i;

	for (i = 0; i < q->nops; i++)
		op_free(&q->ops[i]);
	q->nops = 0;
}

static struct qlog_op *
op_push(struct qlog *q, enum op_type type, int cluster, int proc)
{
	struct qlog_op *op;

	if (q->nops == q->capops) {
		q->capops = q->capops ? q->capops * 2 : 64;
		q->ops = xreallocarray(q->ops, q->capops, sizeof(*q->ops));
	}
	op = &q->ops[q->nops++];
	memset(op, 0, sizeof(*op));
	op->type = type;
	op->cluster = cluster;
	op->proc = proc;
	return op;
}

/*
 * Apply one operation to the table.  It cannot fail: a change to an ad
 * that does not exist is counted and ignored, so that the same committed
 * log always rebuilds the same state.
 */
static void
op_apply(struct qlog *q, struct qlog_op *op)
{
	struct qlog_entry *e = NULL;
	char err[256];
	int existed;

	if (op->type == OP_COUNTER) {
		q->counter = (int)op->i;
		return;
	}
	if (op->type == OP_NEW) {
		if ((e = entry_find(q, op->cluster, op->proc)) != NULL) {
			qlog_warnx(q, "ad %d.%d created twice; replaced",
			    op->cluster, op->proc);
			q->stats.skipped_ops++;
			entry_remove(q, e);
		}
		e = entry_add(q, op->cluster, op->proc, op->ad);
		op->ad = NULL;
		e->bytes = op->bytes;
		q->live_bytes += op->bytes;
		return;
	}
	if ((e = entry_find(q, op->cluster, op->proc)) == NULL) {
		qlog_warnx(q, "change to ad %d.%d, which does not exist",
		    op->cluster, op->proc);
		q->stats.skipped_ops++;
		return;
	}
	existed = op->name != NULL && ad_lookup(e->ad, op->name) != NULL;
	switch (op->type) {
	case OP_SET_TEXT:
		if (ad_set_expr(e->ad, op->name, op->text, err,
		    sizeof(err)) == -1) {
			qlog_warnx(q, "ad %d.%d: %s; attribute skipped",
			    op->cluster, op->proc, err);
			q->stats.skipped_ops++;
			return;
		}
		break;
	case OP_SET_INT:
		ad_set_int(e->ad, op->name, op->i);
		break;
	case OP_SET_REAL:
		ad_set_real(e->ad, op->name, op->r);
		break;
	case OP_SET_STRING:
		ad_set_string(e->ad, op->name, op->text);
		break;
	case OP_DELETE:
		if (existed) {
			ad_delete(e->ad, op->name);
			e->bytes -= op->bytes * 2;
			q->live_bytes -= op->bytes * 2;
			if (e->bytes < 0) {
				q->live_bytes -= e->bytes;
				e->bytes = 0;
			}
		}
		return;
	case OP_DESTROY:
		entry_remove(q, e);
		return;
	default:
		panic("queue log: bad operation %d", (int)op->type);
	}
	/* A replaced attribute takes about as much room as before. */
	if (!existed) {
		e->bytes += op->bytes;
		q->live_bytes += op->bytes;
	}
}

/* Recording changes. */

static void
tx_need(struct qlog *q)
{
	if (!q->in_tx)
		qlog_begin(q);
}

void
qlog_begin(struct qlog *q)
{
	if (q->in_tx)
		qlog_abort(q);
	q->in_tx = 1;
	buf_reset(&q->tx);
	buf_add(&q->tx, "B\n", 2);
}

void
qlog_abort(struct qlog *q)
{
	ops_clear(q);
	buf_reset(&q->tx);
	q->in_tx = 0;
}

size_t
qlog_pending(const struct qlog *q)
{
	return q->in_tx ? q->nops : 0;
}

void
qlog_set_counter(struct qlog *q, int next_cluster)
{
	struct qlog_op *op;
	size_t before;

	tx_need(q);
	before = q->tx.len;
	buf_printf(&q->tx, "C %d\n", next_cluster);
	op = op_push(q, OP_COUNTER, 0, 0);
	op->i = next_cluster;
	op->bytes = (long long)(q->tx.len - before);
}

/* Append "S c p name text" for one attribute given as a tree. */
static void
record_expr(struct buf *b, int cluster, int proc, const char *name,
    const struct expr *e, struct buf *scratch)
{
	buf_reset(scratch);
	expr_unparse(e, scratch);
	buf_printf(b, "S %d %d %s ", cluster, proc, name);
	escape_text(b, scratch->data);
	buf_addc(b, '\n');
}

void
qlog_new_ad_from(struct qlog *q, int cluster, int proc, struct ad *ad)
{
	struct qlog_op *op;
	struct buf scratch;
	size_t before, i, n;

	tx_need(q);
	before = q->tx.len;
	buf_printf(&q->tx, "N %d %d\n", cluster, proc);
	n = ad_count(ad);
	if (n > 0) {
		buf_init(&scratch);
		for (i = 0; i < n; i++)
			record_expr(&q->tx, cluster, proc, ad_name_at(ad, i),
			    ad_expr_at(ad, i), &scratch);
		buf_free(&scratch);
	}
	op = op_push(q, OP_NEW, cluster, proc);
	op->ad = ad;
	op->bytes = (long long)(q->tx.len - before);
}

void
qlog_new_ad(struct qlog *q, int cluster, int proc)
{
	qlog_new_ad_from(q, cluster, proc, NULL);
}

int
qlog_set(struct qlog *q, int cluster, int proc, const char *name,
    const char *text, char *err, size_t errlen)
{
	struct qlog_op *op;
	struct expr *e;
	char perr[256];
	size_t before;

	if (!ad_name_valid(name)) {
		snprintf(err, errlen, "bad attribute name \"%.64s\"",
		    name ? name : "(null)");
		return -1;
	}
	if (text == NULL || strlen(text) > AD_MAX_TEXT) {
		snprintf(err, errlen, "%s: missing or too long a value", name);
		return -1;
	}
	if ((e = expr_parse(text, perr, sizeof(perr))) == NULL) {
		snprintf(err, errlen, "%s: %s", name, perr);
		return -1;
	}
	expr_free(e);
	tx_need(q);
	before = q->tx.len;
	buf_printf(&q->tx, "S %d %d %s ", cluster, proc, name);
	escape_text(&q->tx, text);
	buf_addc(&q->tx, '\n');
	op = op_push(q, OP_SET_TEXT, cluster, proc);
	op->name = xstrdup(name);
	op->text = xstrdup(text);
	op->bytes = (long long)(q->tx.len - before);
	return 0;
}

/* Record a literal: its text is the value's canonical printing. */
static struct qlog_op *
set_value(struct qlog *q, enum op_type type, int cluster, int proc,
    const char *name, const struct value *v)
{
	struct qlog_op *op;
	struct buf text;
	size_t before;

	if (!ad_name_valid(name))
		panic("queue log: bad attribute name \"%.64s\"", name);
	tx_need(q);
	buf_init(&text);
	value_print(v, &text);
	before = q->tx.len;
	buf_printf(&q->tx, "S %d %d %s ", cluster, proc, name);
	escape_text(&q->tx, text.data);
	buf_addc(&q->tx, '\n');
	buf_free(&text);
	op = op_push(q, type, cluster, proc);
	op->name = xstrdup(name);
	op->bytes = (long long)(q->tx.len - before);
	return op;
}

void
qlog_set_int(struct qlog *q, int cluster, int proc, const char *name,
    long long value)
{
	struct value v;

	v.type = VAL_INT;
	v.u.i = value;
	set_value(q, OP_SET_INT, cluster, proc, name, &v)->i = value;
}

void
qlog_set_real(struct qlog *q, int cluster, int proc, const char *name,
    double value)
{
	struct value v;

	v.type = VAL_REAL;
	v.u.r = value;
	set_value(q, OP_SET_REAL, cluster, proc, name, &v)->r = value;
}

void
qlog_set_string(struct qlog *q, int cluster, int proc, const char *name,
    const char *value)
{
	struct value v;

	v.type = VAL_STRING;
	v.u.s = (char *)(value ? value : "");
	set_value(q, OP_SET_STRING, cluster, proc, name, &v)->text =
	    xstrdup(v.u.s);
}

void
qlog_delete(struct qlog *q, int cluster, int proc, const char *name)
{
	struct qlog_op *op;
	size_t before;

	if (!ad_name_valid(name))
		panic("queue log: bad attribute name \"%.64s\"", name);
	tx_need(q);
	before = q->tx.len;
	buf_printf(&q->tx, "D %d %d %s\n", cluster, proc, name);
	op = op_push(q, OP_DELETE, cluster, proc);
	op->name = xstrdup(name);
	op->bytes = (long long)(q->tx.len - before);
}

void
qlog_destroy(struct qlog *q, int cluster, int proc)
{
	tx_need(q);
	buf_printf(&q->tx, "X %d %d\n", cluster, proc);
	op_push(q, OP_DESTROY, cluster, proc);
}

/* Writing. */


static void
apply_all(struct qlog *q)
{
	size_t i;

	for (i = 0; i < q->nops; i++)
		op_apply(q, &q->ops[i]);
	ops_clear(q);
}

int
qlog_commit(struct qlog *q, int durable)
{
	char end[16];
	unsigned crc;
	int saved;

	if (!q->in_tx)
		return 0;
	if (q->nops == 0) {
		qlog_abort(q);
		if (durable && q->group) {
			q->sync_wanted |= q->dirty;
			return 0;
		}
		return durable ? qlog_sync(q) : 0;
	}
	crc = qlog_crc32(0, q->tx.data, q->tx.len);
	snprintf(end, sizeof(end), "E %08x\n", crc);
	buf_adds(&q->tx, end);
	if (fd_write_full(q->fd, q->tx.data, q->tx.len) == -1)
		goto fail;
	q->dirty = 1;
	q->commits++;
	if (durable && q->group)
		q->sync_wanted = 1;
	else if (durable && qlog_sync(q) == -1)
		goto fail;
	q->size += (long long)q->tx.len;
	q->warnings = 0;
	apply_all(q);
	buf_reset(&q->tx);
	q->in_tx = 0;
	return 0;
fail:
	saved = errno;
	/* Cut the half-written transaction so the next one follows the
	 * last good commit; if even that fails, replay will cut it. */
	if (ftruncate(q->fd, (off_t)q->size) == -1)
		log_warn("%s: cannot cut back a failed commit", q->path);
	qlog_abort(q);
	errno = saved;
	return -1;
}

int
qlog_sync(struct qlog *q)
{
	if (!q->dirty) {
		q->sync_wanted = 0;
		return 0;
	}
	if (fdatasync(q->fd) == -1)
		return -1;
	q->syncs++;
	q->dirty = 0;
	q->sync_wanted = 0;
	return 0;
}

void
qlog_set_group(struct qlog *q, int on)
{
	q->group = on != 0;
}

int
qlog_sync_wanted(const struct qlog *q)
{
	return q->sync_wanted && q->dirty;
}

long long
qlog_syncs(const struct qlog *q)
{
	return q->syncs;
}

long long
qlog_commits(const struct qlog *q)
{
	return q->commits;
}

/* Replay. */

/* A decimal int in S[0..N), optionally negative; -1 if not one. */
static int
parse_int(const char *s, size_t n, long long min, long long max, int *out)
{
	long long v = 0;
	size_t i = 0;
	int neg = 0;

	if (n > 0 && s[0] == '-') {
		neg = 1;
		i = 1;
	}
	if (i == n || n - i > 10)
		return -1;
	if (s[i] == '0' && n - i > 1)
		return -1;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (neg)
		v = -v;
	if (v < min || v > max)
		return -1;
	*out = (int)v;
	return 0;
}

/* Split off the next space-separated field of [*P, END). */
static int
next_field(const char **p, const char *end, const char **f, size_t *n)
{
	const char *s = *p, *sp;

	if (s >= end)
		return -1;
	sp = memchr(s, ' ', (size_t)(end - s));
	if (sp == NULL)
		sp = end;
	if (sp == s)
		return -1;
	*f = s;
	*n = (size_t)(sp - s);
	*p = sp < end ? sp + 1 : end;
	return 0;
}

static int
parse_id(const char **p, const char *end, int *cluster, int *proc)
{
	const char *f;
	size_t n;

	if (next_field(p, end, &f, &n) == -1 ||
	    parse_int(f, n, 1, INT_MAX, cluster) == -1)
		return -1;
	if (next_field(p, end, &f, &n) == -1 ||
	    parse_int(f, n, -1, INT_MAX, proc) == -1)
		return -1;
	return 0;
}

static char *
parse_name(const char **p, const char *end, int last)
{
	const char *f;
	char *name;
	size_t n;

	if (next_field(p, end, &f, &n) == -1 || n >= AD_MAX_NAME)
		return NULL;
	if (last && *p != end)
		return NULL;
	if (!last && (*p == end && f + n == end))
		return NULL;	/* "S c p name" without a value */
	name = xstrndup(f, n);
	if (!ad_name_valid(name)) {
		free(name);
		return NULL;
	}
	return name;
}

/*
 * Parse one record (LINE[0..N), no newline) into an operation of the
 * open transaction.  Returns 0, or -1 with a reason in WHY.
 */
static int
parse_record(struct qlog *q, const char *line, size_t n, const char **why)
{
	const char *p = line + 2, *end = line + n;
	struct qlog_op *op;
	int cluster, proc, v;
	char *name, *text;

	*why = "malformed record";
	if (n < 3 || line[1] != ' ')
		return -1;
	switch (line[0]) {
	case 'C':
		if (parse_int(p, (size_t)(end - p), 1, INT_MAX, &v) == -1)
			return -1;
		op = op_push(q, OP_COUNTER, 0, 0);
		op->i = v;
		break;
	case 'N':
	case 'X':
		if (parse_id(&p, end, &cluster, &proc) == -1 || p != end)
			return -1;
		op = op_push(q, line[0] == 'N' ? OP_NEW : OP_DESTROY, cluster,
		    proc);
		break;
	case 'D':
		if (parse_id(&p, end, &cluster, &proc) == -1 ||
		    (name = parse_name(&p, end, 1)) == NULL)
			return -1;
		op = op_push(q, OP_DELETE, cluster, proc);
		op->name = name;
		break;
	case 'S':
		if (parse_id(&p, end, &cluster, &proc) == -1 ||
		    (name = parse_name(&p, end, 0)) == NULL)
			return -1;
		if ((text = unescape_text(p, (size_t)(end - p))) == NULL) {
			free(name);
			*why = "bad escape or value too long";
			return -1;
		}
		op = op_push(q, OP_SET_TEXT, cluster, proc);
		op->name = name;
		op->text = text;
		break;
	default:
		*why = "unknown record";
		return -1;
	}
	op->bytes = (long long)n + 1;
	return 0;
}

/* A printable excerpt of a bad line for the log. */
static void
excerpt(const char *line, size_t n, char *out, size_t outlen)
{
	size_t i, o = 0;

	for (i = 0; i < n && o + 5 < outlen && i < 80; i++) {
		unsigned char c = (unsigned char)line[i];

		if (c >= 0x20 && c < 0x7f)
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, outlen - o, "\\x%02x",
			    c);
	}
	if (i < n && o + 4 < outlen) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
}

/*
 * Replay DATA[0..SIZE).  Returns the offset just past the last good
 * transaction (or comment between them).
 */
static long long
replay(struct qlog *q, const char *data, long long size)
{
	const char *line, *nl, *why = NULL;
	long long pos = 0, good = 0, tx_start = 0, lineno = 0;
	char ex[128];
	size_t n;

	while (pos < size) {
		line = data + pos;
		n = (size_t)(size - pos);
		if (n > QLOG_MAX_LINE + 1)
			n = QLOG_MAX_LINE + 1;
		lineno++;
		if ((nl = memchr(line, '\n', n)) == NULL) {
			why = (size_t)(size - pos) > QLOG_MAX_LINE ?
			    "line too long" : "torn last line";
			break;
		}
		n = (size_t)(nl - line);
		if (n == 0 || line[0] == '#') {
			if (q->in_tx) {
				why = "comment inside a transaction";
				break;
			}
			pos += (long long)n + 1;
			good = pos;
			continue;
		}
		if (n == 1 && line[0] == 'B') {
			if (q->in_tx) {
				why = "begin inside a transaction";
				break;
			}
			q->in_tx = 1;
			tx_start = pos;
			pos += 2;
			continue;
		}
		if (line[0] == 'E') {
			unsigned crc, want;
			int hi, k;

			if (!q->in_tx) {
				why = "commit outside a transaction";
				break;
			}
			if (n != 10 || line[1] != ' ') {
				why = "malformed commit";
				break;
			}
			/* Lower case only: the commit line is outside its
			 * own checksum, so accept exactly one spelling. */
			for (want = 0, k = 2; k < 10; k++) {
				if ((line[k] < '0' || line[k] > '9') &&
				    (line[k] < 'a' || line[k] > 'f'))
					break;
				hi = hexval((unsigned char)line[k]);
				want = want << 4 | (unsigned)hi;
			}
			crc = qlog_crc32(0, data + tx_start,
			    (size_t)(pos - tx_start));
			if (k != 10 || crc != want) {
				why = "checksum mismatch";
				break;
			}
			apply_all(q);
			q->in_tx = 0;
			q->stats.transactions++;
			pos += (long long)n + 1;
			good = pos;
			continue;
		}
		if (!q->in_tx) {
			why = "record outside a transaction";
			break;
		}
		if (parse_record(q, line, n, &why) == -1)
			break;
		pos += (long long)n + 1;
	}
	ops_clear(q);
	q->in_tx = 0;
	if (good < size) {
		line = data + good;
		n = (size_t)(size - good);
		nl = memchr(line, '\n', n);
		excerpt(line, nl ? (size_t)(nl - line) : n, ex, sizeof(ex));
		q->stats.dropped_bytes = size - good;
		q->stats.bad_line = lineno;
		log_warnx("%s: line %lld: %s; dropping %lld bytes after the "
		    "last complete transaction (offset %lld), starting \"%s\"",
		    q->path, lineno, why ? why : "incomplete transaction",
		    size - good, good, ex);
	}
	return good;
}

/* Keep what replay cut off in PATH.bad, for whoever investigates. */
static void
save_dropped(const struct qlog *q, const char *data, long long size)
{
	char *bad = xasprintf("%s.bad", q->path);
	int fd;

	fd = open(bad, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd == -1 || fd_write_full(fd, data, (size_t)size) == -1)
		log_warn("%s: cannot save the dropped tail", bad);
	else
		log_warnx("%s: the dropped tail is saved in %s", q->path, bad);
	if (fd != -1)
		close(fd);
	free(bad);
}

struct qlog *
qlog_open(const char *path, char *err, size_t errlen)
{
	struct qlog *q;
	struct stat st;
	char *data = NULL;
	long long good;

	q = xcalloc(1, sizeof(*q));
	q->path = xstrdup(path);
	q->counter = 1;
	q->nbuckets = 1024;
	q->table = xcalloc(q->nbuckets, sizeof(*q->table));
	buf_init(&q->tx);
	q->fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (q->fd == -1 || fstat(q->fd, &st) == -1) {
		snprintf(err, errlen, "cannot open %s: %s", path,
		    strerror(errno));
		goto fail;
	}
	if (st.st_size > 0) {
		data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
		    q->fd, 0);
		if (data == MAP_FAILED) {
			snprintf(err, errlen, "cannot read %s: %s", path,
			    strerror(errno));
			goto fail;
		}
		good = replay(q, data, (long long)st.st_size);
		if (good < st.st_size) {
			save_dropped(q, data + good,
			    (long long)st.st_size - good);
			if (ftruncate(q->fd, (off_t)good) == -1 ||
			    fdatasync(q->fd) == -1) {
				snprintf(err, errlen, "cannot cut %s: %s",
				    path, strerror(errno));
				munmap(data, (size_t)st.st_size);
				goto fail;
			}
		}
		munmap(data, (size_t)st.st_size);
		q->size = good;
	}
	q->warnings = 0;
	return q;
fail:
	qlog_close(q);
	return NULL;
}

void
qlog_close(struct qlog *q)
{
	if (q == NULL)
		return;
	qlog_abort(q);
	if (q->fd != -1) {
		if (q->dirty && fdatasync(q->fd) == -1)
			log_warn("%s: fsync", q->path);
		close(q->fd);
	}
	while (q->head != NULL)
		entry_remove(q, q->head);
	free(q->table);
	free(q->ops);
	buf_free(&q->tx);
	free(q->path);
	free(q);
}

const struct qlog_stats *
qlog_replay_stats(const struct qlog *q)
{
	return &q->stats;
}

/* Reading. */

const struct ad *
qlog_ad(const struct qlog *q, int cluster, int proc)
{
	const struct qlog_entry *e = entry_find(q, cluster, proc);

	return e != NULL ? e->ad : NULL;
}

int
qlog_counter(const struct qlog *q)
{
	return q->counter;
}

size_t
qlog_count(const struct qlog *q)
{
	return q->count;
}

const struct qlog_entry *
qlog_first(const struct qlog *q)
{
	return q->head;
}

const struct qlog_entry *
qlog_entry_find(const struct qlog *q, int cluster, int proc)
{
	return entry_find(q, cluster, proc);
}

const struct qlog_entry *
qlog_next(const struct qlog_entry *e)
{
	return e->next;
}

int
qlog_entry_cluster(const struct qlog_entry *e)
{
	return e->cluster;
}

int
qlog_entry_proc(const struct qlog_entry *e)
{
	return e->proc;
}

const struct ad *
qlog_entry_ad(const struct qlog_entry *e)
{
	return e->ad;
}

long long
qlog_file_size(const struct qlog *q)
{
	return q->size;
}

/* Compaction. */

int
qlog_should_compact(const struct qlog *q, double ratio)
{
	if (ratio < 1.5)
		ratio = 1.5;
	return q->size > QLOG_COMPACT_FLOOR &&
	    (double)q->size > ratio * (double)(q->live_bytes + 4096);
}

/* Close the current chunk's transaction and start the next one. */
static void
chunk_end(struct buf *b, size_t tx_start)
{
	unsigned crc = qlog_crc32(0, b->data + tx_start, b->len - tx_start);

	buf_printf(b, "E %08x\n", crc);
}

static int
fsync_dir(const char *path)
{
	char *copy = xstrdup(path);
	int fd, rc = 0;

	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(copy);
	if (fd == -1)
		return -1;
	if (fsync(fd) == -1)
		rc = -1;
	close(fd);
	return rc;
}

int
qlog_compact(struct qlog *q)
{
	struct qlog_entry *e;
	struct buf b, scratch;
	char *tmp, stamp[64];
	size_t tx_start, i, n, in_chunk = 0;
	long long written = 0, live = 0, before;
	time_t now = time(NULL);
	int fd, nfd, saved;

	if (q->in_tx)
		panic("queue log: compaction inside a transaction");
	tmp = xasprintf("%s.tmp", q->path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd == -1) {
		saved = errno;
		log_warn("cannot create %s", tmp);
		free(tmp);
		errno = saved;
		return -1;
	}
	buf_init(&b);
	buf_init(&scratch);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S",
	    localtime(&now));
	buf_printf(&b, "# Condor job queue log, compacted %s\n", stamp);
	tx_start = b.len;
	buf_printf(&b, "B\nC %d\n", q->counter);
	for (e = q->head; e != NULL; e = e->next) {
		before = (long long)b.len;
		buf_printf(&b, "N %d %d\n", e->cluster, e->proc);
		n = ad_count(e->ad);
		for (i = 0; i < n; i++)
			record_expr(&b, e->cluster, e->proc,
			    ad_name_at(e->ad, i), ad_expr_at(e->ad, i),
			    &scratch);
		e->bytes = (long long)b.len - before;
		live += e->bytes;
		if (++in_chunk < QLOG_COMPACT_CHUNK && e->next != NULL)
			continue;
		chunk_end(&b, tx_start);
		in_chunk = 0;
		if (b.len >= QLOG_FLUSH_BYTES || e->next == NULL) {
			if (fd_write_full(fd, b.data, b.len) == -1)
				goto fail;
			written += (long long)b.len;
			buf_reset(&b);
		}
		tx_start = b.len;
		if (e->next != NULL)
			buf_add(&b, "B\n", 2);
	}
	if (q->head == NULL)
		chunk_end(&b, tx_start);
	if (b.len > 0) {
		if (fd_write_full(fd, b.data, b.len) == -1)
			goto fail;
		written += (long long)b.len;
	}
	if (fsync(fd) == -1 || close(fd) == -1) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	/* Flush what the old log holds first: until the rename, a crash
	 * must find it complete. */
	if (qlog_sync(q) == -1 || rename(tmp, q->path) == -1)
		goto fail;
	if (fsync_dir(q->path) == -1)
		log_warn("%s: cannot fsync its directory", q->path);
	nfd = open(q->path, O_RDWR | O_APPEND | O_CLOEXEC);
	if (nfd == -1)
		fatal("cannot reopen %s after compaction", q->path);
	close(q->fd);
	q->fd = nfd;
	q->size = written;
	q->live_bytes = live;
	q->dirty = 0;
	q->sync_wanted = 0;
	buf_free(&b);
	buf_free(&scratch);
	free(tmp);
	return 0;
fail:
	saved = errno;
	log_warn("cannot compact %s", q->path);
	if (fd != -1)
		close(fd);
	unlink(tmp);
	buf_free(&b);
	buf_free(&scratch);
	free(tmp);
	errno = saved;
	return -1;
}
