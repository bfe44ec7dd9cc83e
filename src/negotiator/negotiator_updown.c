/*
 * negotiator_updown.c: station priorities by the Up-Down algorithm
 * (see negotiator_updown.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ad.h"
#include "buf.h"
#include "expr.h"
#include "negotiator_updown.h"
#include "xalloc.h"

/* A line is an index, a blank and a name: bounded by the longest name. */
#define UPDOWN_MAX_LINE	(UPDOWN_MAX_NAME + 64)

void
updown_init(struct updown *t)
{
	memset(t, 0, sizeof(*t));
}

void
updown_clear(struct updown *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->v[i]->name);
		free(t->v[i]);
	}
	free(t->v);
	updown_init(t);
}

/* Where NAME is, or would be inserted, in the sorted table. */
static size_t
updown_slot(const struct updown *t, const char *name, int *found)
{
	size_t lo = 0, hi = t->n, mid;
	int c;

	*found = 0;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = strcmp(t->v[mid]->name, name);
		if (c == 0) {
			*found = 1;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct updown_station *
updown_find(const struct updown *t, const char *name)
{
	size_t i;
	int found;

	if (name == NULL)
		return NULL;
	i = updown_slot(t, name, &found);
	return found ? t->v[i] : NULL;
}

static int
name_valid(const char *name)
{
	size_t len;
	const unsigned char *p;

	if (name == NULL || (len = strlen(name)) == 0 ||
	    len > UPDOWN_MAX_NAME)
		return 0;
	/* Blanks at either end would not survive the file. */
	if (name[0] == ' ' || name[len - 1] == ' ')
		return 0;
	for (p = (const unsigned char *)name; *p != '\0'; p++)
		if (*p < 0x20 || *p == 0x7f)
			return 0;
	return 1;
}

static void
updown_remove_at(struct updown *t, size_t i)
{
	free(t->v[i]->name);
	free(t->v[i]);
	memmove(&t->v[i], &t->v[i + 1], (t->n - i - 1) * sizeof(t->v[0]));
	t->n--;
}

/*
 * Make room in a full table: forget the silent station whose index is
 * nearest 0, the one whose memory matters least.  -1 if all advertise.
 */
static int
updown_evict(struct updown *t)
{
	size_t i, best = 0;
	int have = 0;

	for (i = 0; i < t->n; i++) {
		if (t->v[i]->seen)
			continue;
		if (!have || fabs(t->v[i]->prio) < fabs(t->v[best]->prio)) {
			best = i;
			have = 1;
		}
	}
	if (!have)
		return -1;
	updown_remove_at(t, best);
	return 0;
}

struct updown_station *
updown_add(struct updown *t, const char *name)
{
	struct updown_station *s;
	size_t i;
	int found;

	if (!name_valid(name)) {
		errno = EINVAL;
		return NULL;
	}
	i = updown_slot(t, name, &found);
	if (found)
		return t->v[i];
	if (t->n >= UPDOWN_MAX_STATIONS) {
		if (updown_evict(t) == -1) {
			errno = ENOSPC;
			return NULL;
		}
		i = updown_slot(t, name, &found);
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->v = xreallocarray(t->v, t->cap, sizeof(t->v[0]));
	}
	s = xcalloc(1, sizeof(*s));
	s->name = xstrdup(name);
	memmove(&t->v[i + 1], &t->v[i], (t->n - i) * sizeof(t->v[0]));
	t->v[i] = s;
	t->n++;
	return s;
}

double
updown_clamp(double x)
{
	if (isnan(x))
		return 0;
	if (x > UPDOWN_LIMIT)
		return UPDOWN_LIMIT;
	if (x < -UPDOWN_LIMIT)
		return -UPDOWN_LIMIT;
	return x;
}

int
updown_step(const struct expr *update_prio, double prio, long long users,
    long long running, double *next, char *err, size_t errlen)
{
	struct ad *ad;
	struct value v;
	double x;
	int rc = 0;

	*next = prio;
	if (users == 0 && running == 0) {
		/* Neither waiting nor running: drift back toward 0. */
		if (fabs(prio) <= 1)
			*next = 0;
		else
			*next = updown_clamp(prio > 0 ? prio - 1 : prio + 1);
		return 0;
	}
	if (update_prio == NULL) {
		snprintf(err, errlen, "UPDATE_PRIO is not defined");
		return -1;
	}
	ad = ad_new();
	ad_set_real(ad, "Prio", prio);
	ad_set_int(ad, "Users", users);
	ad_set_int(ad, "Running", running);
	expr_eval(update_prio, ad, NULL, &v);
	switch (v.type) {
	case VAL_INT:
		x = (double)v.u.i;
		break;
	case VAL_REAL:
		x = v.u.r;
		break;
	default:
		x = NAN;
		break;
	}
	if (!isfinite(x)) {
		struct buf b;

		buf_init(&b);
		value_print(&v, &b);
		snprintf(err, errlen, "UPDATE_PRIO gave %s, not a number",
		    b.data);
		buf_free(&b);
		rc = -1;
	} else
		*next = updown_clamp(x);
	value_free(&v);
	ad_free(ad);
	return rc;
}

/*
 * Parse one line "PRIO NAME" into the table.  0 if stored (or a comment
 * or blank), -1 if it does not parse.
 */
static int
updown_parse_line(struct updown *t, char *line)
{
	struct updown_station *s;
	char *end;
	double prio;

	while (*line == ' ' || *line == '\t')
		line++;
	if (*line == '\0' || *line == '#')
		return 0;
	errno = 0;
	prio = strtod(line, &end);
	if (end == line || errno != 0 || !isfinite(prio) || *end != ' ')
		return -1;
	if ((s = updown_add(t, end + 1)) == NULL)
		return -1;
	s->prio = updown_clamp(prio);
	return 0;
}

int
updown_load(struct updown *t, const char *path, int *bad, char *err,
    size_t errlen)
{
	struct stat st;
	char *line = NULL;
	size_t len, cap = 0;
	ssize_t n;
	int nbad = 0;
	FILE *f;

	updown_clear(t);
	if (bad != NULL)
		*bad = 0;
	if ((f = fopen(path, "r")) == NULL) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fileno(f), &st) == 0 &&
	    st.st_size > (off_t)UPDOWN_MAX_STATIONS * (UPDOWN_MAX_LINE + 1) +
	    4096) {
		fclose(f);
		errno = EFBIG;
		snprintf(err, errlen, "%s: larger than %d stations could be",
		    path, UPDOWN_MAX_STATIONS);
		return -1;
	}
	while ((n = getline(&line, &cap, f)) != -1) {
		len = (size_t)n;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len > UPDOWN_MAX_LINE || memchr(line, '\0', len) != NULL ||
		    updown_parse_line(t, line) == -1)
			nbad++;
	}
	free(line);
	if (ferror(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		fclose(f);
		return -1;
	}
	fclose(f);
	if (bad != NULL)
		*bad = nbad;
	return 0;
}

/* fsync the directory holding PATH, so that a rename survives a crash. */
static int
sync_parent(const char *path)
{
	char *dir = xstrdup(path), *slash;
	int fd, rc;

	if ((slash = strrchr(dir, '/')) == NULL) {
		free(dir);
		dir = xstrdup(".");
	} else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd == -1)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

int
updown_save(const struct updown *t, const char *path, char *err,
    size_t errlen)
{
	struct buf b;
	char *tmp;
	size_t i, off;
	ssize_t w;
	int fd, saved;

	buf_init(&b);
	buf_adds(&b, "# condor_negotiator: station priorities (Up-Down "
	    "index), one \"PRIO NAME\" a line\n");
	for (i = 0; i < t->n; i++)
		buf_printf(&b, "%.17g %s\n", t->v[i]->prio, t->v[i]->name);
	tmp = xasprintf("%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd == -1)
		goto fail;
	for (off = 0; off < b.len; off += (size_t)w) {
		w = write(fd, b.data + off, b.len - off);
		if (w == -1) {
			if (errno == EINTR) {
				w = 0;
				continue;
			}
			goto fail_close;
		}
	}
	if (fsync(fd) == -1)
		goto fail_close;
	if (close(fd) == -1) {
		fd = -1;
		goto fail_unlink;
	}
	if (rename(tmp, path) == -1)
		goto fail_unlink;
	/* The new file is in place; a lost directory sync only risks it. */
	(void)sync_parent(path);
	free(tmp);
	buf_free(&b);
	return 0;

fail_close:
	saved = errno;
	close(fd);
	errno = saved;
fail_unlink:
	saved = errno;
	unlink(tmp);
	errno = saved;
fail:
	saved = errno;
	snprintf(err, errlen, "%s: %s", tmp, strerror(saved));
	free(tmp);
	buf_free(&b);
	errno = saved;
	return -1;
}
