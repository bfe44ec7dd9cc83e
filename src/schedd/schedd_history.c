/*
 * schedd_history.c: $(SPOOL)/history, the record of finished jobs.
 *
 * Each job that leaves the queue (completed or removed) is appended as
 * its full ad, "Name = value" lines (ad_print), followed by a blank
 * line, with its accounting: RemoteUserCpu, RemoteSysCpu, LocalUserCpu,
 * LocalSysCpu, RemoteWallClockTime, QDate and JobStartDate (the wait),
 * CompletionDate, NumCkpts, NumJobStarts (one more than its
 * migrations).  A batch is one write(2) and one fsync.  At start-up a
 * torn last record (a crash in the middle of a write) is cut, so the
 * next record starts on a clean line.
 *
 * An index in memory (cluster, proc, offset, length of each record,
 * built at start-up and kept up to date) lets a query that names one job
 * or one cluster read just those records, however long the history.
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "ad.h"
#include "buf.h"
#include "expr.h"
#include "log.h"
#include "schedd.h"
#include "xalloc.h"

#define TAIL_CHUNK	65536	/* bytes read per step back */

static int	 hist_fd = -1;
static char	*hist_path;
static off_t	 hist_size;

struct hist_rec {
	int		cluster;
	int		proc;
	off_t		off;
	size_t		len;
};
static struct hist_rec	*hidx;
static size_t		 nhidx, caphidx;

/* Where the last complete record ends: after the last "\n\n". */
static off_t
last_record_end(int fd, off_t size)
{
	char buf[TAIL_CHUNK + 1];
	off_t end = size, start;
	ssize_t n, i;

	while (end > 0) {
		start = end > TAIL_CHUNK ? end - TAIL_CHUNK : 0;
		n = pread(fd, buf, (size_t)(end - start), start);
		if (n != end - start)
			return -1;
		/* Overlap one byte with the previous chunk. */
		if (end < size && pread(fd, buf + n, 1, end) == 1)
			n++;
		for (i = n - 1; i >= 1; i--)
			if (buf[i] == '\n' && buf[i - 1] == '\n')
				return start + i + 1;
		if (start == 0)
			break;
		end = start;
	}
	return 0;
}

/*
 * The records in DATA[0..SIZE), which starts at offset BASE of the file:
 * FN(record, length, offset, ARG) for each non-empty one; FN returns 0 to
 * go on.
 */
static void
records_walk(const char *data, size_t size, off_t base,
    int (*fn)(const char *, size_t, off_t, void *), void *arg)
{
	const char *p, *end, *sep;

	for (p = data, end = data + size; p < end; p = sep + 2) {
		while (p < end && *p == '\n')
			p++;
		if (p >= end)
			break;
		sep = memmem(p, (size_t)(end - p), "\n\n", 2);
		if (sep == NULL)
			sep = end - 1;
		if (fn(p, (size_t)(sep - p + 1), base + (p - data), arg) != 0)
			break;
	}
}

/* The whole file, mapped; NULL if empty or unreadable. */
static const char *
history_map(void)
{
	const char *data;

	if (hist_fd == -1 || hist_size == 0)
		return NULL;
	data = mmap(NULL, (size_t)hist_size, PROT_READ, MAP_PRIVATE, hist_fd,
	    0);
	if (data == MAP_FAILED) {
		log_warn("cannot read %s", hist_path);
		return NULL;
	}
	return data;
}

static void
history_walk(int (*fn)(const char *, size_t, off_t, void *), void *arg)
{
	const char *data = history_map();

	if (data == NULL)
		return;
	records_walk(data, (size_t)hist_size, 0, fn, arg);
	munmap((void *)data, (size_t)hist_size);
}

/* The value text of attribute NAME in RECORD, or NULL (not a copy). */
static const char *
record_line(const char *rec, size_t len, const char *name, size_t *vlen)
{
	const char *p = rec, *end = rec + len, *nl;
	size_t nlen = strlen(name);

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if ((size_t)(nl - p) > nlen + 3 &&
		    strncasecmp(p, name, nlen) == 0 &&
		    memcmp(p + nlen, " = ", 3) == 0) {
			*vlen = (size_t)(nl - p) - nlen - 3;
			return p + nlen + 3;
		}
	}
	return NULL;
}

static int
record_int(const char *rec, size_t len, const char *name, int *out)
{
	const char *v;
	char tmp[24];
	size_t vlen;
	char *ep;
	long l;

	if ((v = record_line(rec, len, name, &vlen)) == NULL ||
	    vlen == 0 || vlen >= sizeof(tmp))
		return -1;
	memcpy(tmp, v, vlen);
	tmp[vlen] = '\0';
	l = strtol(tmp, &ep, 10);
	if (*ep != '\0')
		return -1;
	*out = (int)l;
	return 0;
}

static int
index_one(const char *rec, size_t len, off_t off, void *arg)
{
	int c, p;

	if (record_int(rec, len, "ClusterId", &c) == -1 ||
	    record_int(rec, len, "ProcId", &p) == -1)
		return 0;
	if (nhidx == caphidx) {
		caphidx = caphidx ? caphidx * 2 : 1024;
		hidx = xreallocarray(hidx, caphidx, sizeof(*hidx));
	}
	hidx[nhidx].cluster = c;
	hidx[nhidx].proc = p;
	hidx[nhidx].off = off;
	hidx[nhidx].len = len;
	nhidx++;
	return 0;
}

int
history_open(char *err, size_t errlen)
{
	struct stat st;
	off_t good;

	history_close();
	hist_path = xasprintf("%s/%s", spool_dir(), HISTORY_NAME);
	hist_fd = open(hist_path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC,
	    0644);
	if (hist_fd == -1 || fstat(hist_fd, &st) == -1) {
		snprintf(err, errlen, "cannot open %s: %s", hist_path,
		    strerror(errno));
		return -1;
	}
	hist_size = st.st_size;
	if (hist_size == 0)
		return 0;
	good = last_record_end(hist_fd, hist_size);
	if (good < 0) {
		snprintf(err, errlen, "cannot read %s: %s", hist_path,
		    strerror(errno));
		return -1;
	}
	if (good < hist_size) {
		log_warnx("%s: cutting a torn last record (%lld bytes)",
		    hist_path, (long long)(hist_size - good));
		if (ftruncate(hist_fd, good) == -1) {
			snprintf(err, errlen, "cannot cut %s: %s", hist_path,
			    strerror(errno));
			return -1;
		}
		hist_size = good;
	}
	history_walk(index_one, NULL);
	return 0;
}

void
history_close(void)
{
	if (hist_fd != -1)
		close(hist_fd);
	hist_fd = -1;
	free(hist_path);
	hist_path = NULL;
	free(hidx);
	hidx = NULL;
	nhidx = caphidx = 0;
}

int
history_append(const char *text, size_t len)
{
	size_t off = 0;
	ssize_t w;
	int saved;

	if (hist_fd == -1) {
		errno = EBADF;
		return -1;
	}
	while (off < len) {
		w = write(hist_fd, text + off, len - off);
		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0)
			goto fail;
		off += (size_t)w;
	}
	if (fdatasync(hist_fd) == -1)
		goto fail;
	records_walk(text, len, hist_size, index_one, NULL);
	hist_size += (off_t)len;
	return 0;
fail:
	saved = errno;
	if (ftruncate(hist_fd, hist_size) == -1)
		log_warn("%s: cannot cut a failed write", hist_path);
	errno = saved;
	return -1;
}


struct wanted_id {
	int	cluster;
	int	proc;
	size_t	i;		/* its place in the caller's arrays */
};

static int
wanted_cmp(const void *a, const void *b)
{
	const struct wanted_id *x = a, *y = b;

	if (x->cluster != y->cluster)
		return x->cluster < y->cluster ? -1 : 1;
	return x->proc < y->proc ? -1 : x->proc > y->proc;
}

void
history_find(const int *clusters, const int *procs, size_t n, int *found)
{
	struct wanted_id *w, key, *hit;
	size_t i, k;

	memset(found, 0, n * sizeof(*found));
	if (n == 0)
		return;
	w = xcalloc(n, sizeof(*w));
	for (i = 0; i < n; i++) {
		w[i].cluster = clusters[i];
		w[i].proc = procs[i];
		w[i].i = i;
	}
	qsort(w, n, sizeof(*w), wanted_cmp);
	for (k = 0; k < nhidx; k++) {
		key.cluster = hidx[k].cluster;
		key.proc = hidx[k].proc;
		hit = bsearch(&key, w, n, sizeof(*w), wanted_cmp);
		if (hit != NULL)
			found[hit->i] = 1;
	}
	free(w);
}

struct query_state {
	const struct expr	*constraint;
	char			**names;
	u_int			 nnames;
	struct buf		 wanted;	/* " a b c " */
	int			 partial;	/* parse only WANTED */
	struct query_reply	*r;
	long			 bad;
};

static int
word_in(const struct buf *b, const char *w, size_t wlen)
{
	const char *p = b->data;

	while ((p = strcasestr(p, w)) != NULL) {
		if (p > b->data && p[-1] == ' ' && p[wlen] == ' ')
			return 1;
		p++;
	}
	return 0;
}

static void
word_add(struct buf *b, const char *w)
{
	if (b->len == 0)
		buf_addc(b, ' ');
	if (!word_in(b, w, strlen(w))) {
		buf_adds(b, w);
		buf_addc(b, ' ');
	}
}

/*
 * Parse the attributes of REC that WANTED names, adding the names their
 * values refer to until nothing new turns up.
 */
static struct ad *
parse_partial(const char *rec, size_t len, struct buf *wanted)
{
	const char *p, *end = rec + len, *nl, *eq;
	struct ad *ad = ad_new();
	struct buf refs;
	char name[AD_MAX_NAME + 1], *text;
	size_t nlen, before;
	int round;

	buf_init(&refs);
	for (round = 0; round < 8; round++) {
		before = wanted->len;
		for (p = rec; p < end; p = nl + 1) {
			if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
				nl = end;
			eq = memmem(p, (size_t)(nl - p), " = ", 3);
			if (eq == NULL || (nlen = (size_t)(eq - p)) == 0 ||
			    nlen > AD_MAX_NAME)
				continue;
			memcpy(name, p, nlen);
			name[nlen] = '\0';
			if (!word_in(wanted, name, nlen) ||
			    ad_lookup(ad, name) != NULL)
				continue;
			text = xstrndup(eq + 3, (size_t)(nl - eq - 3));
			if (ad_set_expr(ad, name, text, NULL, 0) == 0) {
				buf_reset(&refs);
				expr_references(ad_lookup(ad, name), &refs);
				if (refs.len > 0) {
					char *tok, *save = NULL;

					for (tok = strtok_r(refs.data, " ",
					    &save); tok != NULL;
					    tok = strtok_r(NULL, " ", &save))
						word_add(wanted, tok);
				}
			}
			free(text);
		}
		if (wanted->len == before)
			break;
	}
	buf_free(&refs);
	return ad;
}

static int
query_one(const char *rec, size_t len, off_t off, void *arg)
{
	struct query_state *q = arg;
	struct ad *ad = NULL;
	struct value v;
	char *text;
	int ok = 1;

	if (reply_full(q->r))
		return 1;
	if (q->partial) {
		struct buf w;

		buf_init(&w);
		buf_add(&w, q->wanted.data, q->wanted.len);
		ad = parse_partial(rec, len, &w);
		buf_free(&w);
	} else {
		text = xstrndup(rec, len);
		if (ad_parse_text(text, &ad, 1, NULL, 0) != 1) {
			free(text);
			q->bad++;
			return 0;
		}
		free(text);
	}
	if (q->constraint != NULL) {
		expr_eval(q->constraint, ad, NULL, &v);
		ok = value_is_true(&v);
		value_free(&v);
	}
	/* With names, AD holds only those and what they (and the
	 * constraint) refer to. */
	if (ok)
		reply_ad(q->r, ad);
	ad_free(ad);
	return 0;
}

void
history_query(const struct expr *constraint,
    const struct job_scope *scope, char **names, u_int nnames,
    struct query_reply *r)
{
	struct query_state q;
	const char *data;
	size_t k;
	u_int i;

	memset(&q, 0, sizeof(q));
	q.constraint = constraint;
	q.names = names;
	q.nnames = nnames;
	q.r = r;
	buf_init(&q.wanted);
	if (names != NULL) {
		struct buf refs;
		char *tok, *save = NULL;

		/* Only what is shown and what the constraint reads. */
		q.partial = 1;
		for (i = 0; i < nnames; i++)
			word_add(&q.wanted, names[i]);
		buf_init(&refs);
		expr_references(constraint, &refs);
		for (tok = strtok_r(refs.data, " ", &save); tok != NULL;
		    tok = strtok_r(NULL, " ", &save))
			word_add(&q.wanted, tok);
		buf_free(&refs);
	}
	if (scope->kind == 0)
		history_walk(query_one, &q);
	else if ((data = history_map()) != NULL) {
		/* One job or one cluster: its records only. */
		for (k = 0; k < nhidx; k++) {
			if (hidx[k].cluster != scope->cluster ||
			    (scope->kind == 2 && hidx[k].proc != scope->proc))
				continue;
			if (query_one(data + hidx[k].off, hidx[k].len,
			    hidx[k].off, &q) != 0)
				break;
		}
		munmap((void *)data, (size_t)hist_size);
	}
	if (q.bad > 0)
		log_warnx("%s: %ld record(s) could not be read", hist_path,
		    q.bad);
	buf_free(&q.wanted);
}
