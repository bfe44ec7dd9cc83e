/*
 * submit.c: the job description language (see submit.h and
 * condor_submit(5)); its files are listed in submit_int.h.
 *
 * The file is read once, line by line.  Assignments are recorded as
 * definitions; nothing is expanded when it is defined, so that a value
 * may name a macro defined later, as in HTCondor.  At each queue
 * statement every keyword is expanded with the definitions in force and
 * turned into job attributes, once for the statement's first proc; only
 * the attributes whose values depend on $(Process) are built again for
 * each further proc, which keeps "queue 100000" cheap.  When the file
 * has been read, the attributes every proc shares with the same text go
 * into the cluster ad and the rest into each proc's ad.
 *
 * This file: submit_parse, the messages, and small string helpers.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "submit_int.h"
#include "xalloc.h"

static const char *
where_file(const struct parser *p, int line)
{
	int k = line >> INCL_SHIFT;

	return k > 0 && k <= p->nincl ? p->incl[k - 1] : p->file;
}

static int
where_line(int line)
{
	return line & ((1 << INCL_SHIFT) - 1);
}

void __attribute__((format(printf, 3, 4)))
sub_perr(struct parser *p, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->failed)
		return;		/* the first error is the one to fix */
	p->failed = 1;
	n = snprintf(p->err, p->errlen, "%s:%d: ", where_file(p, line),
	    where_line(line));
	if (n < 0 || (size_t)n >= p->errlen)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

void __attribute__((format(printf, 3, 4)))
sub_pwarn(struct parser *p, int line, const char *fmt, ...)
{
	struct submit_result *r = p->res;
	struct buf b;
	va_list ap;

	if (r->nwarnings >= SUBMIT_MAX_WARNINGS) {
		r->warnings_dropped++;
		return;
	}
	buf_init(&b);
	buf_printf(&b, "%s:%d: warning: ", where_file(p, line),
	    where_line(line));
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	r->warnings = xreallocarray(r->warnings, r->nwarnings + 1,
	    sizeof(*r->warnings));
	r->warnings[r->nwarnings++] = buf_take(&b);
}

/*
 * A notice: not a mistake, but what condor_submit chose for the user
 * (the universe of a file that names none).  Each is given once.
 */
void __attribute__((format(printf, 2, 3)))
sub_notice(struct parser *p, const char *fmt, ...)
{
	struct submit_result *r = p->res;
	struct buf b;
	va_list ap;
	size_t i;

	buf_init(&b);
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	for (i = 0; i < r->nnotices; i++)
		if (strcmp(r->notices[i], b.data) == 0) {
			buf_free(&b);
			return;
		}
	if (r->nnotices >= SUBMIT_MAX_WARNINGS) {
		buf_free(&b);
		return;
	}
	r->notices = xreallocarray(r->notices, r->nnotices + 1,
	    sizeof(*r->notices));
	r->notices[r->nnotices++] = buf_take(&b);
}

/* A printable, bounded rendering of user text for messages. */
const char *
sub_shown(const char *s, char *buf, size_t len)
{
	size_t i, j = 0;

	for (i = 0; s[i] != '\0' && j + 4 < len; i++)
		buf[j++] = isprint((unsigned char)s[i]) ? s[i] : '?';
	if (s[i] != '\0' && len > 4) {
		buf[j++] = '.';
		buf[j++] = '.';
		buf[j++] = '.';
	}
	buf[j] = '\0';
	return buf;
}

char *
sub_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

void
sub_lower(char *s)
{
	for (; *s != '\0'; s++)
		*s = (char)tolower((unsigned char)*s);
}

int
sub_macro_name_valid(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return 0;
	for (s++; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.')
			return 0;
	return 1;
}

/* PATH made absolute against DIR. */
char *
sub_path_join(const char *dir, const char *path)
{
	size_t dl = strlen(dir);

	if (path[0] == '/')
		return xstrdup(path);
	if (strcmp(path, ".") == 0)
		return xstrdup(dir);
	if (path[0] == '.' && path[1] == '/')
		path += 2;
	if (dl > 0 && dir[dl - 1] == '/')
		return xasprintf("%s%s", dir, path);
	return xasprintf("%s/%s", dir, path);
}

/* Settings after the last queue statement are errors; definitions of
 * unknown names that nothing used are likely typing mistakes. */
static int
check_unused(struct parser *p)
{
	size_t i;

	int last = p->nstmts > 0 ? p->stmts[p->nstmts - 1].line : 0;
	int lseq = p->nstmts > 0 ? p->stmts[p->nstmts - 1].seq : 0;

	/* A setting after the last queue statement applies to no job
	 * (one not honoured here was noted already). */
	for (i = 0; i < p->ndefs; i++)
		if (p->defs[i].kind != DEF_MACRO &&
		    p->defs[i].kind != DEF_IGNORED && p->defs[i].seq > lseq) {
			sub_perr(p, p->defs[i].line,
			    "%s%s comes after the last "
			    "queue statement (line %d): it applies to no job",
			    p->defs[i].kind == DEF_CUSTOM ? "+" : "",
			    p->defs[i].name, where_line(last));
			return -1;
		}
	/* As HTCondor: a warning, and the line does nothing. */
	for (i = 0; i < p->ndefs; i++)
		if (p->defs[i].kind == DEF_MACRO && !p->defs[i].used &&
		    strncmp(p->defs[i].name, "request_", 8) == 0)
			/* HTCondor's request of a machine's own resource
			 * (request_Boats: machines with MACHINE_RESOURCE_). */
			sub_pwarn(p, p->defs[i].line, "%s is HTCondor's, and "
			    "not honoured here: only cpus, memory, disk and "
			    "gpus are requested", p->defs[i].name);
		else if (p->defs[i].kind == DEF_MACRO && !p->defs[i].used)
			sub_pwarn(p, p->defs[i].line,
			    "unknown command \"%s\", and "
			    "no $(%s) uses it as a macro: ignored (a typing "
			    "mistake?)", p->defs[i].name, p->defs[i].name);
	return 0;
}

static void
parser_free(struct parser *p)
{
	size_t i, k;

	for (k = 0; k < (size_t)p->nincl; k++)
		free(p->incl[k]);

	for (i = 0; i < p->ndefs; i++) {
		free(p->defs[i].name);
		free(p->defs[i].value);
	}
	free(p->defs);
	free(p->slots);
	free(p->customs);
	for (i = 0; i < p->nstmts; i++) {
		sub_jattrs_free(&p->stmts[i].base);
		if (p->stmts[i].more != NULL) {
			for (k = 0; k + 1 < p->stmts[i].count; k++)
				sub_jattrs_free(&p->stmts[i].more[k]);
			free(p->stmts[i].more);
		}
	}
	free(p->stmts);
	free(p->exe);
	free(p->cwd);
	free(p->relinked_path);
	for (i = 0; i < p->nundefined; i++)
		free(p->undefined[i]);
	free(p->undefined);
}

int
submit_parse(const char *text, size_t len, const char *filename,
    const struct submit_env *env, struct submit_result *res, char *err,
    size_t errlen)
{
	struct parser p;
	int lineno = 0, rc = -1, base;
	char cwd[PATH_MAX];
	size_t n;

	memset(res, 0, sizeof(*res));
	memset(&p, 0, sizeof(p));
	p.file = filename;
	p.env = env;
	p.res = res;
	p.err = err;
	p.errlen = errlen;
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (env->cwd != NULL)
		p.cwd = xstrdup(env->cwd);
	else if (getcwd(cwd, sizeof(cwd)) != NULL)
		p.cwd = xstrdup(cwd);
	else {
		sub_perr(&p, 1, "cannot find the current directory: %s",
		    strerror(errno));
		parser_free(&p);
		return -1;
	}
	if (len > SUBMIT_MAX_FILE) {
		sub_perr(&p, 1, "the file is longer than %d bytes",
		    SUBMIT_MAX_FILE);
		parser_free(&p);
		return -1;
	}

	/* The command line's settings are defined before the file's first
	 * line too, as HTCondor has them, so that "if defined" sees them. */
	if (sub_append_lines(&p) == -1)
		goto out;
	if (sub_parse_text(&p, text, len, 0, &lineno) == -1)
		goto out;
	/* condor_submit -queue: the statement of a file that has none. */
	if (env->queue != NULL) {
		char *q = xstrdup(env->queue);

		if (p.nstmts > 0) {
			sub_perr(&p, p.stmts[0].line,
			    "-queue was given, but the "
			    "file has a queue statement of its own");
			free(q);
			goto out;
		}
		p.seq++;
		for (n = 0; env->append != NULL && env->append[n] != NULL;
		    n++)
			;
		rc = (base = sub_cmdline_base(&p)) == -1 ||
		    sub_append_lines(&p) == -1 ? -1 : sub_queue_stmt(&p, q,
		    base + (int)n + 1);
		free(q);
		if (rc == -1)
			goto out;
		rc = -1;
	}
	if (p.nstmts == 0) {
		sub_perr(&p, lineno > 0 ? lineno : 1, "no queue statement: "
		    "nothing to submit");
		goto out;
	}
	if (p.nprocs == 0 && p.empty_match[0] != '\0') {
		sub_perr(&p, p.stmts[p.nstmts - 1].line, "nothing to submit: "
		    "%s (queue ... matching)", p.empty_match);
		goto out;
	}
	if (p.nprocs == 0) {
		sub_perr(&p, p.stmts[p.nstmts - 1].line, "nothing to submit: "
		    "every queue statement asks for 0 jobs");
		goto out;
	}
	if (check_unused(&p) == -1)
		goto out;
	sub_assemble(&p);
	res->executable = p.exe;
	p.exe = NULL;
	rc = 0;
out:
	parser_free(&p);
	return rc;
}
