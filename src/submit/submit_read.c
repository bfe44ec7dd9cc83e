/*
 * submit_read.c: reading a submit file: lines and their continuations,
 * a queue statement's "(" list over lines, the conditional lines (if,
 * elif, else, endif), include, "NAME = value" lines, and condor_submit's
 * command-line settings.
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

#include "ad.h"
#include "buf.h"
#include "expr.h"
#include "submit_int.h"
#include "xalloc.h"

static int	parse_line(struct parser *, char *, int);

/* The line numbers of the command line's settings start after this. */
int
sub_cmdline_base(struct parser *p)
{
	if (p->append_base == 0) {
		if (p->nincl == SUBMIT_MAX_INCLUDED) {
			sub_perr(p, 1, "more than %d files included",
			    SUBMIT_MAX_INCLUDED);
			return -1;
		}
		p->incl[p->nincl++] = xstrdup("the command line");
		p->append_base = p->nincl << INCL_SHIFT;
	}
	return p->append_base;
}

/*
 * The command line's settings (condor_submit -a "NAME = value", or
 * NAME=value), as if written just before each queue statement; its
 * messages name "the command line" and the setting's place on it.
 */
int
sub_append_lines(struct parser *p)
{
	char *copy, *t;
	size_t i;
	int r = 0, base;

	if (p->env->append == NULL || p->env->append[0] == NULL)
		return 0;
	if ((base = sub_cmdline_base(p)) == -1)
		return -1;
	for (i = 0; p->env->append[i] != NULL && r == 0; i++) {
		copy = xstrdup(p->env->append[i]);
		t = sub_trim(copy);
		if (strncasecmp(t, "queue", 5) == 0 &&
		    (t[5] == '\0' || isspace((unsigned char)t[5]))) {
			sub_perr(p, base + (int)i + 1,
			    "a queue statement cannot "
			    "come from -a (use -queue)");
			r = -1;
		} else
			r = parse_line(p, t, base + (int)i + 1);
		free(copy);
	}
	return r;
}

/*
 * VALUE, about to be given to the macro or keyword CNAME (its canonical
 * name), with its references to CNAME itself ("A = $(A) more")
 * replaced by CNAME's value so far (or their default, or nothing), as
 * HTCondor does: a fresh string, or NULL if VALUE has none.
 */
static char *
self_expand(struct parser *p, const char *cname, const char *value,
    int line, int *failed)
{
	char lname[AD_MAX_NAME + 1];
	const char *s = value, *ref, *close, *colon;
	struct def *d;
	struct buf b;
	size_t n;
	int found = 0;

	buf_init(&b);
	while ((ref = strstr(s, "$(")) != NULL) {
		buf_add(&b, s, (size_t)(ref - s));
		s = ref + 2;
		/* A name (bounded: no scan to the end for each "$("). */
		for (n = 0; n <= AD_MAX_NAME && (isalnum((unsigned char)s[n]) ||
		    s[n] == '_' || s[n] == '.'); n++)
			;
		if (n == 0 || n > AD_MAX_NAME || (s[n] != ')' &&
		    s[n] != ':')) {
			buf_adds(&b, "$(");
			continue;
		}
		memcpy(lname, s, n);
		lname[n] = '\0';
		sub_lower(lname);
		if (strcmp(sub_canonical(lname), cname) != 0) {
			buf_adds(&b, "$(");
			continue;
		}
		if ((close = strchr(s + n, ')')) == NULL) {
			buf_adds(&b, "$(");
			break;		/* no reference is closed after */
		}
		found = 1;
		colon = s[n] == ':' ? s + n + 1 : NULL;
		if ((d = sub_def_find(p, cname)) != NULL)
			buf_adds(&b, d->value);
		else if (colon != NULL)
			buf_add(&b, colon, (size_t)(close - colon));
		s = close + 1;
		if (b.len > SUBMIT_MAX_VALUE) {
			sub_perr(p, line,
			    "the value of %s is longer than %d bytes",
			    cname, SUBMIT_MAX_VALUE);
			*failed = 1;
			buf_free(&b);
			return NULL;
		}
	}
	buf_adds(&b, s);
	if (!found) {
		buf_free(&b);
		return NULL;
	}
	return buf_take(&b);
}

/* One logical line (continuations joined), LINE its first line. */
static int
parse_line(struct parser *p, char *s, int line)
{
	const struct keyword *kw;
	const char *note;
	char *eq, *name, *value, shownbuf[64], *self;
	int kind, failed = 0;

	s = sub_trim(s);
	if (*s == '\0' || *s == '#')
		return 0;
	if (strncasecmp(s, "queue", 5) == 0 &&
	    (s[5] == '\0' || isspace((unsigned char)s[5]))) {
		value = sub_trim(s + 5);
		if (*value == '=') {
			sub_perr(p, line,
			    "queue is a statement (queue [N]), not a "
			    "setting");
			return -1;
		}
		if (sub_append_lines(p) == -1)
			return -1;
		return sub_queue_stmt(p, value, line);
	}
	if ((eq = strchr(s, '=')) == NULL) {
		sub_perr(p, line,
		    "expected NAME = value or queue [N], not \"%s\"",
		    sub_shown(s, shownbuf, sizeof(shownbuf)));
		return -1;
	}
	*eq = '\0';
	name = sub_trim(s);
	value = sub_trim(eq + 1);
	if (*name == '\0') {
		sub_perr(p, line, "a name is missing before '='");
		return -1;
	}
	if (name[0] == '+' || strncasecmp(name, "MY.", 3) == 0) {
		name = sub_trim(name + (name[0] == '+' ? 1 : 3));
		if (!ad_name_valid(name)) {
			sub_perr(p, line, "bad attribute name \"%s\"",
			    sub_shown(name, shownbuf, sizeof(shownbuf)));
			return -1;
		}
		sub_def_add(p, name, value, line, DEF_CUSTOM);
		return 0;
	}
	if (!sub_macro_name_valid(name) || strlen(name) > AD_MAX_NAME) {
		sub_perr(p, line,
		    "bad name \"%s\" (letters, digits, '_' and '.')",
		    sub_shown(name, shownbuf, sizeof(shownbuf)));
		return -1;
	}
	sub_lower(name);
	if (strcmp(name, "process") == 0 || strcmp(name, "procid") == 0 ||
	    strcmp(name, "cluster") == 0 || strcmp(name, "clusterid") == 0) {
		sub_perr(p, line, "$(%s) is set by condor_submit and cannot be "
		    "redefined", name);
		return -1;
	}
	kw = sub_keyword_find(name);
	if (kw != NULL)
		kind = DEF_KEYWORD;
	else if ((note = sub_keyword_unhonoured(name)) != NULL) {
		kind = DEF_IGNORED;
		sub_pwarn(p, line, "%s is HTCondor's, and not honoured here: "
		    "%s", name, note);
	} else
		kind = DEF_MACRO;
	self = self_expand(p, sub_canonical(name), value, line, &failed);
	if (failed)
		return -1;
	sub_def_add(p, sub_canonical(name), self != NULL ? self : value, line,
	    kind);
	free(self);
	return 0;
}

/* Whether TEXT is a queue statement whose "(" list is not closed. */
static int
queue_list_open(const char *text)
{
	const char *open;

	text += strspn(text, " \t");
	if (strncasecmp(text, "queue", 5) != 0 ||
	    !isspace((unsigned char)text[5]) ||
	    (open = strchr(text, '(')) == NULL)
		return 0;
	return strchr(open, ')') == NULL;
}

/* Whether TEXT, lines of an open queue list, closes it: more ) than (. */
static int
list_closes(const char *text)
{
	int depth = 0;

	for (; *text != '\0'; text++)
		if (*text == '(')
			depth++;
		else if (*text == ')' && --depth < 0)
			return 1;
	return 0;
}

/*
 * The conditional lines: "if COND", "elif COND", "else", "endif", with
 * COND "[!] defined NAME" or an expression (macros expanded first)
 * that is true; and "include : FILE".  Whether the logical line S is
 * one of them (0: not), handled (1), or an error (-1).
 */
#define SUBMIT_MAX_IFS		32
#define SUBMIT_MAX_INCLUDES	8

struct ifs {
	int	 n;
	int	 taking[SUBMIT_MAX_IFS];	/* this branch's lines count */
	int	 taken[SUBMIT_MAX_IFS];		/* one branch has been */
	int	 outer[SUBMIT_MAX_IFS];		/* the enclosing one counts */
	int	 line[SUBMIT_MAX_IFS];
};

/* Whether S starts with the word W (any case), and what follows it. */
static const char *
word_is(const char *s, const char *w)
{
	size_t n = strlen(w);

	if (strncasecmp(s, w, n) != 0 || (s[n] != '\0' &&
	    !isspace((unsigned char)s[n]) && s[n] != '!'))
		return NULL;
	return s + n;
}

static int
if_true(struct parser *p, const char *cond, int line, int *out)
{
	char shownbuf[64], err[256];
	const char *c = cond;
	struct value v;
	struct expr *e;
	struct def *d;
	struct buf b;
	int neg = 0, deps = 0;

	while (*c == '!' || isspace((unsigned char)*c)) {
		if (*c == '!')
			neg = !neg;
		c++;
	}
	if (word_is(c, "defined") != NULL) {
		char name[AD_MAX_NAME + 1];

		c = c + 7;
		while (isspace((unsigned char)*c))
			c++;
		if (strlen(c) > AD_MAX_NAME || !sub_macro_name_valid(c)) {
			sub_perr(p, line, "if defined: bad name \"%s\"",
			    sub_shown(c, shownbuf, sizeof(shownbuf)));
			return -1;
		}
		snprintf(name, sizeof(name), "%s", c);
		sub_lower(name);
		if ((d = sub_def_find(p, sub_canonical(name))) != NULL)
			d->used = 1;
		*out = (d != NULL) != neg;
		return 0;
	}
	buf_init(&b);
	p->nsubst = 0;
	if (sub_expand(p, c, line, p->nprocs, 0, &deps, &b) == -1) {
		buf_free(&b);
		return -1;
	}
	/* A value that expands to nothing is false (if $(UNSET:)). */
	if (*sub_trim(b.data) == '\0')
		v.type = VAL_BOOL, v.u.b = 0;
	else if (strcasecmp(sub_trim(b.data), "yes") == 0 ||
	    strcasecmp(sub_trim(b.data), "no") == 0)
		v.type = VAL_BOOL, v.u.b = tolower((unsigned char)
		    *sub_trim(b.data)) == 'y';
	else if ((e = expr_parse(b.data, err, sizeof(err))) == NULL) {
		sub_perr(p, line, "if: \"%s\" is not a condition: %s",
		    sub_shown(b.data, shownbuf, sizeof(shownbuf)), err);
		buf_free(&b);
		return -1;
	} else {
		expr_eval(e, NULL, NULL, &v);
		expr_free(e);
	}
	buf_free(&b);
	*out = value_is_true(&v) != neg;
	value_free(&v);
	return 0;
}

static int
conditional_line(struct parser *p, struct ifs *ifs, char *s, int line,
    int depth)
{
	const char *rest;
	int t, active = ifs->n == 0 || (ifs->taking[ifs->n - 1] &&
	    ifs->outer[ifs->n - 1]);

	s = sub_trim(s);
	if ((rest = word_is(s, "if")) != NULL &&
	    *sub_trim((char *)rest) != '=') {
		if (ifs->n == SUBMIT_MAX_IFS) {
			sub_perr(p, line, "if nested more than %d deep",
			    SUBMIT_MAX_IFS);
			return -1;
		}
		t = 0;
		if (active && if_true(p, rest, line, &t) == -1)
			return -1;
		ifs->outer[ifs->n] = active;
		ifs->taking[ifs->n] = t;
		ifs->taken[ifs->n] = t;
		ifs->line[ifs->n++] = line;
		return 1;
	}
	if ((rest = word_is(s, "elif")) != NULL &&
	    *sub_trim((char *)rest) != '=') {
		if (ifs->n == 0) {
			sub_perr(p, line, "elif without if");
			return -1;
		}
		t = 0;
		if (ifs->outer[ifs->n - 1] && !ifs->taken[ifs->n - 1] &&
		    if_true(p, rest, line, &t) == -1)
			return -1;
		ifs->taking[ifs->n - 1] = t;
		ifs->taken[ifs->n - 1] |= t;
		return 1;
	}
	if (strcasecmp(s, "else") == 0) {
		if (ifs->n == 0) {
			sub_perr(p, line, "else without if");
			return -1;
		}
		ifs->taking[ifs->n - 1] = !ifs->taken[ifs->n - 1];
		ifs->taken[ifs->n - 1] = 1;
		return 1;
	}
	if (strcasecmp(s, "endif") == 0) {
		if (ifs->n == 0) {
			sub_perr(p, line, "endif without if");
			return -1;
		}
		ifs->n--;
		return 1;
	}
	if (!active)
		return 1;	/* a line of a branch not taken */
	/* "include : FILE", with or without blanks around the colon. */
	if ((rest = word_is(s, "include")) != NULL ||
	    (strncasecmp(s, "include:", 8) == 0 && (rest = s + 7) != NULL)) {
		char *file, *path, shownbuf[64], chunk[8192];
		struct buf text;
		struct stat st;
		int fd, r, sub = 0;
		ssize_t n;

		rest = sub_trim((char *)rest);
		if (*rest != ':')
			return 0;	/* "include = x": a macro */
		file = sub_trim((char *)rest + 1);
		if (depth + 1 > SUBMIT_MAX_INCLUDES) {
			sub_perr(p, line, "include nested more than %d deep (a "
			    "loop?)", SUBMIT_MAX_INCLUDES);
			return -1;
		}
		if (p->nincl == SUBMIT_MAX_INCLUDED) {
			sub_perr(p, line, "more than %d files included",
			    SUBMIT_MAX_INCLUDED);
			return -1;
		}
		path = sub_path_join(p->cwd, file);
		buf_init(&text);
		if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) ==
		    -1 || fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
		    st.st_size > SUBMIT_MAX_FILE) {
			sub_perr(p, line, "include %s: %s",
			    sub_shown(file, shownbuf, sizeof(shownbuf)),
			    fd == -1 ? strerror(errno) :
			    "not a regular file of at most 16 MB");
			if (fd != -1)
				close(fd);
			free(path);
			buf_free(&text);
			return -1;
		}
		while ((n = read(fd, chunk, sizeof(chunk))) > 0 &&
		    text.len <= SUBMIT_MAX_FILE)
			buf_add(&text, chunk, (size_t)n);
		close(fd);
		/* Its lines are its own, in messages too. */
		p->incl[p->nincl++] = path;
		sub = p->nincl << INCL_SHIFT;
		r = sub_parse_text(p, text.data, text.len, depth + 1, &sub);
		buf_free(&text);
		return r == -1 ? -1 : 1;
	}
	return 0;
}

/* TEXT, line by line, into P; *LINENO the lines read. */
int
sub_parse_text(struct parser *p, const char *text, size_t len, int depth,
    int *lineno)
{
	struct ifs ifs;
	struct buf line;
	size_t pos = 0, n, e, scanned = 0;
	int start = 1, cont = 0, r = -1, c, inlist = 0;

	memset(&ifs, 0, sizeof(ifs));
	buf_init(&line);
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);

		n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		(*lineno)++;
		if (memchr(text + pos, '\0', n) != NULL) {
			sub_perr(p, *lineno, "a NUL byte in the line");
			goto out;
		}
		if (!cont)
			start = *lineno;
		buf_add(&line, text + pos, n);
		pos += n + (nl != NULL);
		if (line.len > 0 && line.data[line.len - 1] == '\r')
			line.data[--line.len] = '\0';
		/* A '\\' ends the line even with blanks after it (HTCondor
		 * reads it so; they cannot be seen). */
		for (e = line.len; e > 0 && (line.data[e - 1] == ' ' ||
		    line.data[e - 1] == '\t'); e--)
			;
		cont = e > 0 && line.data[e - 1] == '\\';
		if (cont) {
			line.len = e - 1;
			line.data[line.len] = '\0';
			if (pos < len)
				continue;
		}
		/* A queue statement's "(" list goes on to its ")": a line
		 * with more ) than ( (an item may be "f(1)"); what was
		 * read of the list is not scanned again for each line. */
		if (pos < len && (inlist ? !list_closes(line.data +
		    scanned) : queue_list_open(line.data))) {
			inlist = 1;
			scanned = line.len;
			buf_addc(&line, '\n');
			cont = 1;
			continue;
		}
		inlist = 0;
		scanned = 0;
		if ((c = conditional_line(p, &ifs, line.data, start,
		    depth)) == -1)
			goto out;
		p->seq++;
		if (c == 0 && parse_line(p, line.data, start) == -1)
			goto out;
		buf_reset(&line);
	}
	if (ifs.n > 0) {
		sub_perr(p, ifs.line[ifs.n - 1], "if without endif");
		goto out;
	}
	r = 0;
out:
	buf_free(&line);
	return r;
}
