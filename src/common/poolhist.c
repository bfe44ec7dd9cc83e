/*
 * poolhist.c: the pool history file (see poolhist.h): samples of the
 * machines by state, written by the collector, read back for
 * condor_summary.
 *
 * Text, one record a line, so that an administrator can read it with
 * less(1) and a crash can cost at most the line being written.  The
 * parser trusts nothing: the file may have been cut anywhere, edited by
 * hand, or filled with garbage; a bad line is skipped, never fatal.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "buf.h"
#include "collector_client.h"
#include "config.h"
#include "poolhist.h"
#include "rpcutil.h"
#include "xalloc.h"

#define READ_MAX	(64 * 1024 * 1024)	/* bytes read of one file */
#define COUNT_MAX	10000000		/* machines in one count */

static const char *const state_names[COLLECTOR_NSTATES] = {
	"Owner", "Idle", "Claimed", "Suspended", "Vacating", "Killing",
	"Other",
};

const char *
poolhist_state_name(int state)
{
	if (state < 0 || state >= COLLECTOR_NSTATES)
		return "Other";
	return state_names[state];
}

static int
name_char_ok(int c)
{
	return isalnum((unsigned char)c) || c == '@' || c == '.' ||
	    c == '_' || c == '-';
}

void
poolhist_count_machine(pool_sample_x *s, const char *state,
    const char *user)
{
	pool_user_x *u;
	char name[COLLECTOR_USER_NAME];
	int i, st = POOLHIST_OTHER;
	u_int j;

	for (i = 0; state != NULL && i < POOLHIST_OTHER; i++)
		if (strcasecmp(state, state_names[i]) == 0)
			st = i;
	s->total++;
	s->states[st]++;
	if (user == NULL || *user == '\0' ||
	    (st != POOLHIST_CLAIMED && st != POOLHIST_SUSPENDED))
		return;
	for (i = 0; user[i] != '\0' && i < COLLECTOR_USER_NAME - 1; i++)
		name[i] = name_char_ok(user[i]) ? user[i] : '_';
	name[i] = '\0';
	for (j = 0; j < s->users.users_len; j++)
		if (strcmp(s->users.users_val[j].name, name) == 0) {
			s->users.users_val[j].claimed++;
			return;
		}
	if (s->users.users_len >= COLLECTOR_SAMPLE_USERS)
		return;
	s->users.users_val = xreallocarray(s->users.users_val,
	    s->users.users_len + 1, sizeof(pool_user_x));
	u = &s->users.users_val[s->users.users_len++];
	u->name = xstrdup(name);
	u->claimed = 1;
}

void
poolhist_format(const pool_sample_x *s, struct buf *out)
{
	u_int i;

	buf_printf(out, "%d %lld %d", POOLHIST_VERSION, (long long)s->time,
	    s->total);
	for (i = 0; i < COLLECTOR_NSTATES; i++)
		buf_printf(out, " %d", s->states[i]);
	for (i = 0; i < s->users.users_len; i++)
		buf_printf(out, " %s=%d", s->users.users_val[i].name,
		    s->users.users_val[i].claimed);
	buf_addc(out, '\n');
}

void
poolhist_sample_free(pool_sample_x *s)
{
	u_int i;

	for (i = 0; i < s->users.users_len; i++)
		free(s->users.users_val[i].name);
	free(s->users.users_val);
	memset(s, 0, sizeof(*s));
}

/* A decimal number of at most 18 digits, no sign: 0 or -1. */
static int
parse_count(const char *tok, long long *out)
{
	long long v = 0;
	int digits = 0;

	for (; *tok != '\0'; tok++) {
		if (!isdigit((unsigned char)*tok) || ++digits > 18)
			return -1;
		v = v * 10 + (*tok - '0');
	}
	if (digits == 0)
		return -1;
	*out = v;
	return 0;
}

int
poolhist_parse_line(const char *line, size_t len, pool_sample_x *s)
{
	char copy[POOLHIST_LINE_MAX + 1], *tok, *save = NULL, *eq;
	long long v, sum = 0, named = 0;
	int field = 0;
	pool_user_x *u;

	memset(s, 0, sizeof(*s));
	if (len == 0 || len > POOLHIST_LINE_MAX || memchr(line, '\0', len))
		return -1;
	memcpy(copy, line, len);
	copy[len] = '\0';
	for (tok = strtok_r(copy, " \t", &save); tok != NULL;
	    tok = strtok_r(NULL, " \t", &save), field++) {
		if (field < 3 + COLLECTOR_NSTATES) {
			if (parse_count(tok, &v) == -1)
				goto bad;
			if (field == 0 && v != POOLHIST_VERSION)
				goto bad;
			if (field == 1)
				s->time = v;
			else if (field == 2 && v <= COUNT_MAX)
				s->total = (int)v;
			else if (field >= 3 && v <= COUNT_MAX) {
				s->states[field - 3] = (int)v;
				sum += v;
			} else if (field != 0 && field != 1)
				goto bad;
			continue;
		}
		/* USER=N */
		if ((eq = strrchr(tok, '=')) == NULL || eq == tok ||
		    eq - tok >= COLLECTOR_USER_NAME ||
		    parse_count(eq + 1, &v) == -1 || v > COUNT_MAX ||
		    s->users.users_len >= COLLECTOR_SAMPLE_USERS)
			goto bad;
		*eq = '\0';
		for (char *c = tok; *c != '\0'; c++)
			if (!name_char_ok(*c))
				goto bad;
		named += v;
		s->users.users_val = xreallocarray(s->users.users_val,
		    s->users.users_len + 1, sizeof(pool_user_x));
		u = &s->users.users_val[s->users.users_len++];
		u->name = xstrdup(tok);
		u->claimed = (int)v;
	}
	if (field < 3 + COLLECTOR_NSTATES || s->time <= 0 ||
	    sum != s->total ||
	    named > (long long)s->states[POOLHIST_CLAIMED] +
	    s->states[POOLHIST_SUSPENDED])
		goto bad;
	return 0;
bad:
	poolhist_sample_free(s);
	return -1;
}

void
poolhist_parse_text(const char *text, size_t len, long long since,
    long long until, pool_sample_x **samples, size_t *n, size_t *skipped)
{
	const char *p = text, *end = text + len, *nl;
	pool_sample_x s;
	size_t cap = *n;

	while (p < end) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL) {
			/* Torn: the writer died before the newline. */
			if (skipped != NULL)
				(*skipped)++;
			break;
		}
		if (nl > p) {
			if (poolhist_parse_line(p, (size_t)(nl - p),
			    &s) == -1) {
				if (skipped != NULL)
					(*skipped)++;
			} else if (s.time < since ||
			    (until != 0 && s.time > until)) {
				poolhist_sample_free(&s);
			} else {
				if (*n == cap) {
					cap = cap ? cap * 2 : 256;
					*samples = xreallocarray(*samples,
					    cap, sizeof(**samples));
				}
				(*samples)[(*n)++] = s;
			}
		}
		p = nl + 1;
	}
}

void
poolhist_samples_free(pool_sample_x *samples, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		poolhist_sample_free(&samples[i]);
	free(samples);
}

size_t
poolhist_thin(pool_sample_x *samples, size_t n, size_t max)
{
	size_t i, k, next = 0;

	if (n <= max)
		return n;
	if (max == 0) {
		for (i = 0; i < n; i++)
			poolhist_sample_free(&samples[i]);
		return 0;
	}
	/* Keep sample i when it is the first at or past the k-th of MAX
	 * evenly spaced positions; k = 0 is the first, k = MAX - 1 the
	 * last. */
	for (i = 0, k = 0; i < n; i++) {
		size_t want = max == 1 ? 0 :
		    (size_t)((double)k * (double)(n - 1) / (double)(max - 1) +
		    0.5);

		if (k < max && i == want) {
			samples[next++] = samples[i];
			k++;
		} else
			poolhist_sample_free(&samples[i]);
	}
	return next;
}

/*
 * Move PATH to OLD.  A daemon that runs as CONDOR_IDS may not write the
 * directory, only the two files made for it at start-up: then copy and
 * empty instead (a crash in between leaves records in both, never
 * none).
 */
static int
rotate(const char *path, const char *old)
{
	char chunk[65536];
	ssize_t r;
	int in, out, saved;

	if (rename(path, old) == 0)
		return 0;
	if (errno != EACCES && errno != EPERM)
		return -1;
	if ((in = open(path, O_RDWR | O_CLOEXEC)) == -1)
		return -1;
	if ((out = open(old, O_WRONLY | O_TRUNC | O_CLOEXEC)) == -1) {
		saved = errno;
		close(in);
		errno = saved;
		return -1;
	}
	while ((r = read(in, chunk, sizeof(chunk))) > 0)
		if (write(out, chunk, (size_t)r) != r) {
			r = -1;
			break;
		}
	saved = errno;
	if (r == 0 && fsync(out) == 0 && close(out) == 0) {
		out = -1;
		r = ftruncate(in, 0);
		saved = errno;
	} else
		r = -1;
	if (out != -1)
		close(out);
	close(in);
	errno = saved;
	return r == 0 ? 0 : -1;
}

int
poolhist_append(const char *path, const pool_sample_x *s, off_t maxbytes)
{
	struct buf line;
	struct stat st;
	char *old;
	ssize_t w;
	int fd, saved;

	/* A record torn by a crash (or a writer that failed half-way)
	 * would swallow this one. */
	if (poolhist_repair(path) == -1)
		return -1;
	buf_init(&line);
	poolhist_format(s, &line);
	if (stat(path, &st) == 0 && st.st_size > 0 &&
	    st.st_size + (off_t)line.len > maxbytes) {
		old = xasprintf("%s.old", path);
		if (rotate(path, old) == -1) {
			saved = errno;
			free(old);
			buf_free(&line);
			errno = saved;
			return -1;
		}
		free(old);
	}
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
	    0644)) == -1) {
		saved = errno;
		buf_free(&line);
		errno = saved;
		return -1;
	}
	if (fstat(fd, &st) == -1)
		st.st_size = -1;
	w = write(fd, line.data, line.len);
	if (w != (ssize_t)line.len) {
		saved = w == -1 ? errno : ENOSPC;
		if (st.st_size >= 0)
			(void)ftruncate(fd, st.st_size);
		close(fd);
		buf_free(&line);
		errno = saved;
		return -1;
	}
	buf_free(&line);
	return close(fd);
}

int
poolhist_repair(const char *path)
{
	char tail[POOLHIST_LINE_MAX + 1];
	struct stat st;
	off_t start, cut;
	ssize_t r;
	int fd, saved;

	if ((fd = open(path, O_RDWR | O_CLOEXEC)) == -1)
		return errno == ENOENT ? 0 : -1;
	if (fstat(fd, &st) == -1 || st.st_size == 0) {
		close(fd);
		return 0;
	}
	start = st.st_size > (off_t)sizeof(tail) ? st.st_size -
	    (off_t)sizeof(tail) : 0;
	if ((r = pread(fd, tail, (size_t)(st.st_size - start), start)) !=
	    st.st_size - start) {
		saved = r == -1 ? errno : EIO;
		close(fd);
		errno = saved;
		return -1;
	}
	if (tail[r - 1] == '\n') {
		close(fd);
		return 0;
	}
	/* Back to just after the last newline.  No newline in the last
	 * POOLHIST_LINE_MAX bytes is no record at all: end it, so that it
	 * is one bad line that readers skip. */
	while (r > 0 && tail[r - 1] != '\n')
		r--;
	if (r == 0 && start > 0) {
		r = pwrite(fd, "\n", 1, st.st_size);
		saved = errno;
		close(fd);
		errno = saved;
		return r == 1 ? 0 : -1;
	}
	cut = start + r;
	if (ftruncate(fd, cut) == -1) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return close(fd);
}

/* Read up to the last READ_MAX bytes of PATH and parse them. */
static int
read_one(const char *path, long long since, long long until,
    pool_sample_x **samples, size_t *n, size_t *skipped)
{
	struct stat st;
	char *text, *p;
	off_t start = 0;
	size_t len, got = 0;
	ssize_t r;
	int fd, saved;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return errno == ENOENT ? 0 : -1;
	if (fstat(fd, &st) == -1) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	if (st.st_size > READ_MAX)
		start = st.st_size - READ_MAX;
	len = (size_t)(st.st_size - start);
	text = xmalloc(len + 1);
	while (got < len) {
		r = pread(fd, text + got, len - got, start + (off_t)got);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			saved = errno;
			free(text);
			close(fd);
			errno = saved;
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	p = text;
	if (start > 0) {
		/* Began mid-record: from the first whole line. */
		char *nl = memchr(text, '\n', got);

		p = nl ? nl + 1 : text + got;
	}
	poolhist_parse_text(p, (size_t)(text + got - p), since, until,
	    samples, n, skipped);
	free(text);
	return 0;
}

int
poolhist_read(const char *path, long long since, long long until,
    pool_sample_x **samples, size_t *n, size_t *skipped)
{
	char *old = xasprintf("%s.old", path);
	int r;

	*samples = NULL;
	*n = 0;
	if (skipped != NULL)
		*skipped = 0;
	r = read_one(old, since, until, samples, n, skipped);
	free(old);
	if (r == 0)
		r = read_one(path, since, until, samples, n, skipped);
	return r;
}

int
poolhist_fetch(long long since, long long until, int max,
    collector_history_res_x *res, char *err, size_t errlen)
{
	collector_history_query_x arg;
	CLIENT *cl;
	char *addr;
	int r;

	memset(res, 0, sizeof(*res));
	if ((addr = collector_address(err, errlen)) == NULL)
		return -1;
	cl = rpc_connect(addr, PROG_COLLECTOR, 1,
	    (int)param_int("RPC_TIMEOUT", 20), err, errlen);
	free(addr);
	if (cl == NULL)
		return -1;
	arg.since = since;
	arg.until = until;
	arg.max_samples = max;
	r = rpc_invoke(cl, COLLECTOR_HISTORY,
	    (xdrproc_t)xdr_collector_history_query_x, &arg,
	    (xdrproc_t)xdr_collector_history_res_x, res, err, errlen);
	rpc_close(cl);
	if (r == -1)
		return -1;
	if (res->code != 0) {
		snprintf(err, errlen, "%s", res->message && *res->message ?
		    res->message : strerror(res->code));
		xdr_free((xdrproc_t)xdr_collector_history_res_x, (char *)res);
		memset(res, 0, sizeof(*res));
		return -1;
	}
	return 0;
}
