/*
 * submit.c: the job description language (see submit.h and
 * condor_submit(5)).
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
 */
#include <sys/random.h>
#include <sys/stat.h>

#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "ad.h"
#include "buf.h"
#include "expr.h"
#include "machine.h"
#include "submit.h"
#include "xfer.h"
#include "xalloc.h"

#define DEP_PROCESS	0x1	/* the value uses $(Process) */
#define DEP_CLUSTER	0x2	/* the value uses $(Cluster) */

#define RELINKED_SECTION	".condor_relinked"
#define PRIO_MIN		(-20)
#define PRIO_MAX		20
#define INCL_SHIFT		24	/* see where_file */
#define SUBMIT_MAX_INCLUDED	100	/* files included in all */

/* The keywords, in the order their attributes appear in a job ad. */
enum kw {
	KW_EXECUTABLE,
	KW_ARGUMENTS,
	KW_INITIALDIR,
	KW_INPUT,
	KW_OUTPUT,
	KW_ERROR,
	KW_LOG,
	KW_ROOTDIR,
	KW_ENVIRONMENT,
	KW_GETENV,
	KW_UNIVERSE,
	KW_REQUIREMENTS,
	KW_RANK,
	KW_PRIORITY,
	KW_NOTIFICATION,
	KW_NOTIFY_USER,
	KW_IMAGE_SIZE,
	KW_ALLOWED_JOB_DURATION,
	KW_REQUEST_MEMORY,
	KW_REQUEST_CPUS,
	KW_REQUEST_DISK,
	KW_BATCH_NAME,
	KW_PERIODIC_HOLD,
	KW_PERIODIC_REMOVE,
	KW_PERIODIC_RELEASE,
	KW_ON_EXIT_HOLD,
	KW_ON_EXIT_REMOVE,
	KW_MAX_RETRIES,
	KW_SHOULD_TRANSFER_FILES,
	KW_WHEN_TO_TRANSFER_OUTPUT,
	KW_TRANSFER_INPUT_FILES,
	KW_TRANSFER_OUTPUT_FILES,
	KW_TRANSFER_OUTPUT_REMAPS,
	KW_TRANSFER_EXECUTABLE,
	KW_RETRY_UNTIL,
	KW_SUCCESS_EXIT_CODE,
	KW_JOB_MAX_VACATE_TIME,
	KW_JOB_LEASE_DURATION,
	KW_REQUEST_GPUS,
	KW_CONCURRENCY_LIMITS,
	KW_NICE_USER,
	KW_ACCOUNTING_GROUP,
	KW_ACCOUNTING_GROUP_USER,
	NKW
};

static const struct keyword {
	const char	*name;		/* as written, lower case */
	int		 kw;		/* -1: accepted and ignored */
} keywords[] = {
	{ "executable",			KW_EXECUTABLE },
	{ "arguments",			KW_ARGUMENTS },
	{ "initialdir",			KW_INITIALDIR },
	{ "initial_dir",		KW_INITIALDIR },	/* HTCondor's */
	{ "input",			KW_INPUT },
	{ "output",			KW_OUTPUT },
	{ "error",			KW_ERROR },
	{ "log",			KW_LOG },
	{ "rootdir",			KW_ROOTDIR },
	{ "environment",		KW_ENVIRONMENT },
	{ "getenv",			KW_GETENV },
	{ "universe",			KW_UNIVERSE },
	{ "requirements",		KW_REQUIREMENTS },
	{ "rank",			KW_RANK },
	{ "preferences",		KW_RANK },
	{ "priority",			KW_PRIORITY },
	{ "notification",		KW_NOTIFICATION },
	{ "notify_user",		KW_NOTIFY_USER },
	{ "image_size",			KW_IMAGE_SIZE },
	{ "allowed_job_duration",	KW_ALLOWED_JOB_DURATION },
	{ "request_memory",		KW_REQUEST_MEMORY },
	{ "request_cpus",		KW_REQUEST_CPUS },
	{ "request_disk",		KW_REQUEST_DISK },
	{ "batch_name",			KW_BATCH_NAME },
	{ "periodic_hold",		KW_PERIODIC_HOLD },
	{ "periodic_remove",		KW_PERIODIC_REMOVE },
	{ "periodic_release",		KW_PERIODIC_RELEASE },
	{ "on_exit_hold",		KW_ON_EXIT_HOLD },
	{ "on_exit_remove",		KW_ON_EXIT_REMOVE },
	{ "max_retries",		KW_MAX_RETRIES },
	{ "should_transfer_files",	KW_SHOULD_TRANSFER_FILES },
	{ "when_to_transfer_output",	KW_WHEN_TO_TRANSFER_OUTPUT },
	{ "transfer_input_files",	KW_TRANSFER_INPUT_FILES },
	{ "transfer_output_files",	KW_TRANSFER_OUTPUT_FILES },
	{ "transfer_output_remaps",	KW_TRANSFER_OUTPUT_REMAPS },
	{ "transfer_executable",	KW_TRANSFER_EXECUTABLE },
	{ "retry_until",		KW_RETRY_UNTIL },
	{ "success_exit_code",		KW_SUCCESS_EXIT_CODE },
	{ "job_max_vacate_time",	KW_JOB_MAX_VACATE_TIME },
	{ "job_lease_duration",		KW_JOB_LEASE_DURATION },
	{ "request_gpus",		KW_REQUEST_GPUS },
	{ "concurrency_limits",		KW_CONCURRENCY_LIMITS },
	{ "nice_user",			KW_NICE_USER },
	{ "accounting_group",		KW_ACCOUNTING_GROUP },
	{ "accounting_group_user",	KW_ACCOUNTING_GROUP_USER },
	{ NULL,				0 }
};

/* The name a keyword is stored under ("preferences" is "rank"). */
static const char *kw_names[NKW] = {
	"executable", "arguments", "initialdir", "input", "output", "error",
	"log", "rootdir", "environment", "getenv", "universe",
	"requirements", "rank", "priority", "notification", "notify_user",
	"image_size", "allowed_job_duration", "request_memory",
	"request_cpus", "request_disk", "batch_name", "periodic_hold",
	"periodic_remove", "periodic_release", "on_exit_hold",
	"on_exit_remove", "max_retries", "should_transfer_files",
	"when_to_transfer_output", "transfer_input_files",
	"transfer_output_files", "transfer_output_remaps",
	"transfer_executable", "retry_until", "success_exit_code",
	"job_max_vacate_time", "job_lease_duration", "request_gpus",
	"concurrency_limits", "nice_user", "accounting_group",
	"accounting_group_user",
};

/* TEXT, an amount with an optional unit (K, KB, M, MB, G, GB, T, TB,
 * any case), in units of BASE KB (1 for KB, 1024 for MB), rounded up;
 * a bare number is in those units already.  -1 if it is not one. */
static long long
amount_in(const char *text, double base)
{
	static const struct { const char *unit; double kb; } units[] = {
		{ "k", 1 }, { "kb", 1 }, { "m", 1024 }, { "mb", 1024 },
		{ "g", 1048576 }, { "gb", 1048576 },
		{ "t", 1073741824.0 }, { "tb", 1073741824.0 },
	};
	char *end;
	double v, n;
	size_t i;

	errno = 0;
	v = strtod(text, &end);
	if (errno != 0 || end == text || !(v > 0) || v > 1e12)
		return -1;
	while (*end == ' ' || *end == '\t')
		end++;
	if (*end == '\0')
		n = v;
	else {
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strcasecmp(end, units[i].unit) == 0)
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return -1;
		n = v * units[i].kb / base;
	}
	return n < 1 ? 1 : (long long)(n + 0.999999);
}

/* request_disk: KB. */
static long long
disk_kb(const char *text)
{
	return amount_in(text, 1);
}

/* request_cpus: a whole number of cores, 1 or more. */
static long long
cpus(const char *text)
{
	long long v;
	char *end;

	errno = 0;
	v = strtoll(text, &end, 10);
	while (*end == ' ' || *end == '\t')
		end++;
	return errno != 0 || end == text || *end != '\0' || v < 1 ||
	    v > 4096 ? -1 : v;
}

/* request_gpus: a whole number of GPUs, 0 or more; -1 if not one. */
static long long
gpus(const char *text)
{
	long long v;
	char *end;

	errno = 0;
	v = strtoll(text, &end, 10);
	while (*end == ' ' || *end == '\t')
		end++;
	return errno != 0 || end == text || *end != '\0' || v < 0 ||
	    v > 4096 ? -1 : v;
}

/* "2 GB", "512", "1.5G", "100MB" in MB (rounded up); -1 if it is not one. */
static long long
memory_mb(const char *text)
{
	return amount_in(text, 1024);
}

/*
 * One "NAME = value" line.  A later line with the same name replaces the
 * value in place: a custom attribute keeps its first place in the ad,
 * and a macro counts as used if any of its definitions was.
 */
struct def {
	char	*name;		/* macros and keywords: lower case */
	char	*value;
	int	 line;
	int	 kind;		/* DEF_* */
	int	 used;		/* a $(NAME) expanded it */
	int	 seq;		/* (parser's seq) when last defined */
};
#define DEF_MACRO	0
#define DEF_KEYWORD	1
#define DEF_CUSTOM	2	/* +Name: NAME keeps its case */
#define DEF_IGNORED	3

/* A keyword or custom value expanded for one proc. */
struct kval {
	char	*text;		/* NULL: not set */
	int	 deps;
	int	 line;
};

/* A job attribute being built. */
struct jattr {
	char	*name;
	char	*text;
	int	 deps;
};

struct jattrs {
	struct jattr	*a;
	size_t		 n, cap;
};

/* One queue statement: its first proc's attributes, and the others'. */
struct stmt {
	struct jattrs	 base;
	size_t		 first;		/* the proc number of the first */
	size_t		 count;
	struct jattrs	*more;		/* COUNT - 1, only when some depend */
	int		 line;
	int		 seq;		/* (parser's seq) */
};

struct parser {
	const char		*file;
	const struct submit_env	*env;
	struct submit_result	*res;
	char			*err;
	size_t			 errlen;
	int			 failed;
	struct def		*defs;
	size_t			 ndefs, capdefs;
	size_t			*slots;		/* index of defs + 1; 0 free */
	size_t			 nslots;	/* a power of two */
	size_t			*customs;	/* indexes of DEF_CUSTOM defs */
	size_t			 ncustoms;
	struct stmt		*stmts;
	size_t			 nstmts, capstmts;
	size_t			 nprocs;
	char			*exe;		/* the cluster's executable */
	int			 exe_relinked;	/* -1: not looked at yet */
	char			*cwd;
	char			 arch[32];	/* this machine's, for */
	char			 opsys[32];	/* the default requirements */
	/* Bounds on one top-level expansion. */
	size_t			 nsubst;
	/* The queue statement being expanded: its variables (lower
	 * case) and the current item's values, $(Step) and $(Row). */
	char			**qvars;
	size_t			 nqvars;
	int			 seq;		/* logical lines read, all
						   files together */
	char			*incl[SUBMIT_MAX_INCLUDED];	/* included, in
								   order */
	int			 append_base;	/* lines of env->append */
	int			 nincl;
	char			**qvals;
	size_t			 qstep, qrow;
};

static int	expand(struct parser *, const char *, int, size_t, int,
		    int *, struct buf *);
static char	*path_join(const char *, const char *);

/*
 * Lines are numbered across files: the file's own lines for the main
 * one, and (K << INCL_SHIFT) + its line for the K-th file included.
 */

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

static void __attribute__((format(printf, 3, 4)))
perr(struct parser *p, int line, const char *fmt, ...)
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

static void __attribute__((format(printf, 3, 4)))
pwarn(struct parser *p, int line, const char *fmt, ...)
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

/* A printable, bounded rendering of user text for messages. */
static const char *
shown(const char *s, char *buf, size_t len)
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

static char *
trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static void
lower(char *s)
{
	for (; *s != '\0'; s++)
		*s = (char)tolower((unsigned char)*s);
}

static int
macro_name_valid(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return 0;
	for (s++; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.')
			return 0;
	return 1;
}

static const struct keyword *
keyword_find(const char *lname)
{
	const struct keyword *k;

	for (k = keywords; k->name != NULL; k++)
		if (strcmp(k->name, lname) == 0)
			return k;
	return NULL;
}

/* The name a macro reference or definition is stored under. */
static const char *
canonical(const char *lname)
{
	const struct keyword *k = keyword_find(lname);

	if (k != NULL && k->kw >= 0)
		return kw_names[k->kw];
	return lname;
}

/* FNV-1a over the lower-cased name; custom attributes hash apart. */
static size_t
name_hash(const char *name, int custom)
{
	size_t h = custom ? 0x9e3779b9u : 2166136261u;

	for (; *name != '\0'; name++) {
		h ^= (unsigned char)tolower((unsigned char)*name);
		h *= 16777619u;
	}
	return h;
}

static struct def *
def_lookup(struct parser *p, const char *name, int custom)
{
	size_t i, mask;
	struct def *d;

	if (p->nslots == 0)
		return NULL;
	mask = p->nslots - 1;
	for (i = name_hash(name, custom) & mask; p->slots[i] != 0;
	    i = (i + 1) & mask) {
		d = &p->defs[p->slots[i] - 1];
		if ((d->kind == DEF_CUSTOM) == (custom != 0) &&
		    strcasecmp(d->name, name) == 0)
			return d;
	}
	return NULL;
}

/* The definition of macro or keyword LNAME (lower case), or NULL. */
static struct def *
def_find(struct parser *p, const char *lname)
{
	return def_lookup(p, lname, 0);
}

static void
def_index(struct parser *p, size_t idx)
{
	size_t i, mask = p->nslots - 1;
	const struct def *d = &p->defs[idx];

	for (i = name_hash(d->name, d->kind == DEF_CUSTOM) & mask;
	    p->slots[i] != 0; i = (i + 1) & mask)
		;
	p->slots[i] = idx + 1;
}

static void
def_add(struct parser *p, const char *name, const char *value, int line,
    int kind)
{
	struct def *d;
	size_t i;

	if ((d = def_lookup(p, name, kind == DEF_CUSTOM)) != NULL) {
		free(d->value);
		d->value = xstrdup(value);
		d->line = line;
		d->seq = p->seq;
		return;
	}
	if (p->ndefs == p->capdefs) {
		p->capdefs = p->capdefs ? p->capdefs * 2 : 32;
		p->defs = xreallocarray(p->defs, p->capdefs, sizeof(*p->defs));
	}
	/* Keep the index at most half full. */
	if (2 * (p->ndefs + 1) > p->nslots) {
		free(p->slots);
		p->nslots = p->nslots ? p->nslots * 2 : 64;
		p->slots = xcalloc(p->nslots, sizeof(*p->slots));
		for (i = 0; i < p->ndefs; i++)
			def_index(p, i);
	}
	d = &p->defs[p->ndefs];
	d->name = xstrdup(name);
	d->value = xstrdup(value);
	d->line = line;
	d->seq = p->seq;
	d->kind = kind;
	d->used = 0;
	def_index(p, p->ndefs);
	if (kind == DEF_CUSTOM) {
		p->customs = xreallocarray(p->customs, p->ncustoms + 1,
		    sizeof(*p->customs));
		p->customs[p->ncustoms++] = p->ndefs;
	}
	p->ndefs++;
}

/* NAME's value in the submitter's environment, or NULL. */
static const char *
env_get(struct parser *p, const char *name)
{
	char *const *e;
	size_t len = strlen(name);

	if (p->env->environ == NULL)
		return NULL;
	for (e = p->env->environ; *e != NULL; e++)
		if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
			return *e + len + 1;
	return NULL;
}

/*
 * expand_ref: the reference that starts at TEXT ("$(NAME)",
 * "$(NAME:default)" or "$ENV(NAME)") into OUT; *END is set past it.
 * Returns 0 or -1 (the error recorded).
 */
static int
expand_ref(struct parser *p, const char *text, const char **end, int line,
    size_t proc, int depth, int *deps, struct buf *out)
{
	const char *open, *close, *colon;
	char name[AD_MAX_NAME + 1], shownbuf[80], lname[AD_MAX_NAME + 1];
	const char *val, *dflt = NULL;
	struct def *d;
	size_t len, dlen = 0;
	int isenv = 0;

	if (strncmp(text, "$ENV(", 5) == 0) {
		isenv = 1;
		open = text + 4;
	} else
		open = text + 1;
	if ((close = strchr(open, ')')) == NULL) {
		perr(p, line, "unterminated macro reference \"%s\"",
		    shown(text, shownbuf, 40));
		return -1;
	}
	*end = close + 1;
	len = (size_t)(close - open - 1);
	if ((colon = memchr(open + 1, ':', len)) != NULL) {
		dflt = colon + 1;
		dlen = (size_t)(close - dflt);
		len = (size_t)(colon - open - 1);
	}
	if (len == 0 || len > AD_MAX_NAME) {
		perr(p, line, "bad macro reference \"%s\"",
		    shown(text, shownbuf, (size_t)(close - text) + 2 < 40 ?
		    (size_t)(close - text) + 2 : 40));
		return -1;
	}
	memcpy(name, open + 1, len);
	name[len] = '\0';
	if (!macro_name_valid(name)) {
		perr(p, line, "bad macro name \"%s\"",
		    shown(name, shownbuf, sizeof(shownbuf)));
		return -1;
	}
	if (++p->nsubst > SUBMIT_MAX_SUBST) {
		perr(p, line, "more than %d macros expanded in one value",
		    SUBMIT_MAX_SUBST);
		return -1;
	}
	if (isenv) {
		if ((val = env_get(p, name)) != NULL)
			buf_adds(out, val);
		else if (dflt != NULL)
			buf_add(out, dflt, dlen);
		return 0;
	}
	memcpy(lname, name, len + 1);
	lower(lname);
	if (strcmp(lname, "process") == 0 || strcmp(lname, "procid") == 0) {
		buf_printf(out, "%zu", proc);
		*deps |= DEP_PROCESS;
		return 0;
	}
	if (strcmp(lname, "cluster") == 0 ||
	    strcmp(lname, "clusterid") == 0) {
		buf_adds(out, SUBMIT_CLUSTER_MACRO);
		*deps |= DEP_CLUSTER;
		return 0;
	}
	/* The queue statement's: they change from one proc to the next. */
	if (strcmp(lname, "step") == 0 || strcmp(lname, "row") == 0 ||
	    strcmp(lname, "itemindex") == 0) {
		buf_printf(out, "%zu", lname[0] == 's' ? p->qstep : p->qrow);
		*deps |= DEP_PROCESS;
		return 0;
	}
	for (len = 0; len < p->nqvars; len++)
		if (strcmp(lname, p->qvars[len]) == 0) {
			/* (A macro of the same name is hidden, not unused.) */
			if ((d = def_find(p, canonical(lname))) != NULL)
				d->used = 1;
			buf_adds(out, p->qvals != NULL ? p->qvals[len] : "");
			*deps |= DEP_PROCESS;
			return 0;
		}
	if ((d = def_find(p, canonical(lname))) == NULL &&
	    (strcmp(lname, "opsys") == 0 || strcmp(lname, "arch") == 0)) {
		/* This machine's, as the default requirements have them. */
		if (p->arch[0] == '\0') {
			machine_arch(p->arch, sizeof(p->arch));
			machine_opsys(p->opsys, sizeof(p->opsys));
		}
		buf_adds(out, lname[0] == 'o' ? p->opsys : p->arch);
		return 0;
	}
	if (d == NULL) {
		if (dflt != NULL) {
			buf_add(out, dflt, dlen);
			return 0;
		}
		perr(p, line, "undefined macro $(%s)", name);
		return -1;
	}
	d->used = 1;
	if (depth + 1 > SUBMIT_MAX_DEPTH) {
		perr(p, d->line, "macros nested more than %d deep (a loop?) "
		    "in $(%s)", SUBMIT_MAX_DEPTH, name);
		return -1;
	}
	return expand(p, d->value, d->line, proc, depth + 1, deps, out);
}

/*
 * $RANDOM_INTEGER(LOW, HIGH[, STEP]) or $RANDOM_CHOICE(A, B, ...) at
 * TEXT, drawn anew for each proc, into OUT; *END past it.
 */
static int
expand_random(struct parser *p, const char *text, const char **end,
    int line, int *deps, struct buf *out)
{
	const char *open = strchr(text, '('), *close;
	char args[256], *a[64], *save = NULL, *w, *e, shownbuf[64];
	long long lo, hi, step = 1;
	int n = 0;
	unsigned r;

	if ((close = strchr(open, ')')) == NULL ||
	    (size_t)(close - open - 1) >= sizeof(args)) {
		perr(p, line, "bad %s", shown(text, shownbuf, 40));
		return -1;
	}
	*end = close + 1;
	memcpy(args, open + 1, (size_t)(close - open - 1));
	args[close - open - 1] = '\0';
	for (w = strtok_r(args, ",", &save); w != NULL && n < 64;
	    w = strtok_r(NULL, ",", &save))
		a[n++] = trim(w);
	if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
		r = (unsigned)random();
	*deps |= DEP_PROCESS;
	if (text[8] == 'C') {		/* $RANDOM_CHOICE */
		if (n == 0) {
			perr(p, line, "$RANDOM_CHOICE() has no choices");
			return -1;
		}
		buf_adds(out, a[r % (unsigned)n]);
		return 0;
	}
	errno = 0;
	if (n < 2 || n > 3 || (lo = strtoll(a[0], &e, 10), *e != '\0') ||
	    (hi = strtoll(a[1], &e, 10), *e != '\0') ||
	    (n == 3 && (step = strtoll(a[2], &e, 10), *e != '\0')) ||
	    errno != 0 || hi < lo || step < 1 ||
	    (unsigned long long)hi - (unsigned long long)lo > 1000000000ULL) {
		perr(p, line, "$RANDOM_INTEGER takes (LOW, HIGH[, STEP]) "
		    "with LOW <= HIGH, not \"%.*s\"", (int)(close - text <
		    60 ? close - text + 1 : 60), text);
		return -1;
	}
	buf_printf(out, "%lld", lo + (long long)(r %
	    (unsigned long long)((hi - lo) / step + 1)) * step);
	return 0;
}

/*
 * The length of the name of HTCondor's function macro at TEXT ("$Fnx",
 * "$BASENAME", "$DIRNAME", "$INT") when a "(" follows it; 0 if none.
 */
static size_t
func_name_len(const char *text)
{
	static const char *names[] = { "$BASENAME(", "$DIRNAME(", "$INT(",
	    NULL };
	size_t n, i;

	for (i = 0; names[i] != NULL; i++)
		if (strncmp(text, names[i], strlen(names[i])) == 0)
			return strlen(names[i]) - 1;
	if (text[1] != 'F')
		return 0;
	n = 2 + strspn(text + 2, "fpduwnxbqa");
	return text[n] == '(' ? n : 0;
}

/* A printf conversion for one long long: "%[flags][width]d" (or i, u,
 * x, X, o) with literal text around it; into OUT with "ll" added. */
static int
int_format(const char *fmt, char *out, size_t len)
{
	const char *pc = strchr(fmt, '%'), *c;
	size_t pre;

	if (pc == NULL || strchr(pc + 1, '%') != NULL)
		return -1;
	c = pc + 1 + strspn(pc + 1, "-+ 0#");
	c += strspn(c, "0123456789");
	if (*c == '\0' || strchr("diuxXo", *c) == NULL ||
	    (size_t)(c - pc) > 8 || strlen(fmt) + 3 > len)
		return -1;
	pre = (size_t)(c - fmt);
	memcpy(out, fmt, pre);
	snprintf(out + pre, len - pre, "ll%s", c);
	return 0;
}

/*
 * HTCondor's function macros at TEXT, whose name is NLEN bytes long:
 * $F[fpdnxbqauw](NAME), $BASENAME(NAME) ($Fnx), $DIRNAME(NAME) ($Fp)
 * on the file name macro NAME holds, and $INT(NAME[, FORMAT]), the
 * expression NAME holds as a whole number.  NAME may also be text
 * with macros in it.  Into OUT; *END past it.
 */
static int
expand_func(struct parser *p, const char *text, size_t nlen,
    const char **end, int line, size_t proc, int depth, int *deps,
    struct buf *out)
{
	const char *open = text + nlen, *close, *flags, *comma, *slash;
	char shownbuf[64], fmt[64], err[256], *arg, *v, *base, *dot;
	struct buf val, res;
	struct value ev;
	struct expr *e;
	long long iv;
	int rc = -1;

	if ((close = strchr(open, ')')) == NULL) {
		perr(p, line, "unterminated %s", shown(text, shownbuf, 40));
		return -1;
	}
	*end = close + 1;
	arg = xstrndup(open + 1, (size_t)(close - open - 1));
	comma = strncmp(text, "$INT(", 5) == 0 ? strchr(arg, ',') : NULL;
	if (comma != NULL)
		arg[comma - arg] = '\0';
	buf_init(&val);
	buf_init(&res);
	v = trim(arg);
	if (macro_name_valid(v) || strchr(v, ':') != NULL) {
		/* A macro's name (with a default, maybe): its value. */
		char *ref = xasprintf("$(%s)", v);

		rc = expand(p, ref, line, proc, depth + 1, deps, &val);
		free(ref);
	} else
		rc = expand(p, v, line, proc, depth + 1, deps, &val);
	if (rc == -1)
		goto out;
	rc = -1;
	v = trim(val.data);
	if (strncmp(text, "$INT(", 5) == 0) {
		snprintf(fmt, sizeof(fmt), "%%lld");
		if (comma != NULL && int_format(trim(arg + (comma - arg) + 1),
		    fmt, sizeof(fmt)) == -1) {
			perr(p, line, "$INT: the format must be one %%d-like "
			    "conversion");
			goto out;
		}
		if ((e = expr_parse(v, err, sizeof(err))) == NULL) {
			perr(p, line, "$INT: \"%s\" is not a number: %s",
			    shown(v, shownbuf, sizeof(shownbuf)), err);
			goto out;
		}
		expr_eval(e, NULL, NULL, &ev);
		expr_free(e);
		if (ev.type == VAL_INT || ev.type == VAL_BOOL)
			iv = ev.type == VAL_INT ? ev.u.i : ev.u.b;
		else if (ev.type == VAL_REAL && ev.u.r > -9e18 &&
		    ev.u.r < 9e18)
			iv = (long long)ev.u.r;
		else {
			value_free(&ev);
			perr(p, line, "$INT: \"%s\" is not a number",
			    shown(v, shownbuf, sizeof(shownbuf)));
			goto out;
		}
		value_free(&ev);
		buf_printf(out, fmt, iv);
		rc = 0;
		goto out;
	}
	if (text[1] == 'B')
		flags = "nx";
	else if (text[1] == 'D')
		flags = "p";
	else
		flags = xstrndup(text + 2, nlen - 2);
	if (strchr(flags, 'f') != NULL && *v != '\0' && *v != '/') {
		char *full = path_join(p->cwd, v);

		buf_reset(&val);
		buf_adds(&val, full);
		free(full);
		v = val.data;
	}
	slash = strrchr(v, '/');
	base = (char *)(slash != NULL ? slash + 1 : v);
	dot = strrchr(base, '.');
	if (dot == base)
		dot = NULL;		/* ".bashrc" is a name */
	if (strpbrk(flags, "pdnx") == NULL)
		buf_adds(&res, v);
	if (strchr(flags, 'p') != NULL && slash != NULL)
		buf_add(&res, v, (size_t)(slash - v) + 1);
	else if (strchr(flags, 'd') != NULL && slash != NULL) {
		const char *d = slash;

		while (d > v && d[-1] != '/')
			d--;
		buf_add(&res, d, (size_t)(slash - d) +
		    (strchr(flags, 'b') == NULL));
	}
	if (strchr(flags, 'n') != NULL)
		buf_add(&res, base, dot != NULL ? (size_t)(dot - base) :
		    strlen(base));
	if (strchr(flags, 'x') != NULL && dot != NULL)
		buf_adds(&res, dot + (strchr(flags, 'b') != NULL));
	if (strchr(flags, 'w') != NULL)
		for (v = res.data; v != NULL && *v != '\0'; v++)
			if (*v == '/')
				*v = '\\';
	if (strchr(flags, 'q') != NULL)
		buf_addc(out, strchr(flags, 'a') != NULL ? '\'' : '"');
	buf_adds(out, res.data != NULL ? res.data : "");
	if (strchr(flags, 'q') != NULL)
		buf_addc(out, strchr(flags, 'a') != NULL ? '\'' : '"');
	if (text[1] == 'F')
		free((char *)flags);
	rc = 0;
out:
	free(arg);
	buf_free(&val);
	buf_free(&res);
	return rc;
}

/*
 * expand: TEXT (written at LINE) with its macro references expanded for
 * proc PROC, appended to OUT; the kinds of dependence found are or-ed
 * into *DEPS.  Returns 0 or -1 (the error recorded).
 */
static int
expand(struct parser *p, const char *text, int line, size_t proc,
    int depth, int *deps, struct buf *out)
{
	const char *s = text, *dollar, *end;
	size_t flen;

	while ((dollar = strchr(s, '$')) != NULL) {
		buf_add(out, s, (size_t)(dollar - s));
		if (dollar[1] == '$' && dollar[2] == '(' &&
		    (end = strchr(dollar + (dollar[3] == '[' ?
		    strcspn(dollar, "]") : 2), ')')) != NULL) {
			/* $$(Attr), $$([expr]): the matched machine's, when
			 * the job starts (its shadow's MATCH_EXP_
			 * attributes); kept as written. */
			buf_add(out, dollar, (size_t)(end + 1 - dollar));
			s = end + 1;
		} else if ((flen = func_name_len(dollar)) > 0) {
			if (expand_func(p, dollar, flen, &end, line, proc,
			    depth, deps, out) == -1)
				return -1;
			s = end;
		} else if (strncmp(dollar, "$RANDOM_INTEGER(", 16) == 0 ||
		    strncmp(dollar, "$RANDOM_CHOICE(", 15) == 0) {
			if (expand_random(p, dollar, &end, line, deps,
			    out) == -1)
				return -1;
			s = end;
		} else if (dollar[1] == '(' ||
		    strncmp(dollar, "$ENV(", 5) == 0) {
			if (expand_ref(p, dollar, &end, line, proc, depth, deps,
			    out) == -1)
				return -1;
			s = end;
		} else {
			buf_addc(out, '$');
			s = dollar + 1;
		}
		if (out->len > SUBMIT_MAX_VALUE) {
			perr(p, line, "value longer than %d bytes once "
			    "expanded", SUBMIT_MAX_VALUE);
			return -1;
		}
	}
	buf_adds(out, s);
	if (out->len > SUBMIT_MAX_VALUE) {
		perr(p, line, "value longer than %d bytes once expanded",
		    SUBMIT_MAX_VALUE);
		return -1;
	}
	return 0;
}

/* Expand the value of definition D for PROC into KV. */
static int
kval_expand(struct parser *p, const struct def *d, size_t proc,
    struct kval *kv)
{
	struct buf b;
	char *t;

	buf_init(&b);
	p->nsubst = 0;
	kv->deps = 0;
	kv->line = d->line;
	if (expand(p, d->value, d->line, proc, 0, &kv->deps, &b) == -1) {
		buf_free(&b);
		kv->text = NULL;
		return -1;
	}
	t = trim(b.data);
	/* An empty value is the same as none: the default applies. */
	kv->text = *t != '\0' ? xstrdup(t) : NULL;
	buf_free(&b);
	return 0;
}

static void
jattrs_free(struct jattrs *j)
{
	size_t i;

	for (i = 0; i < j->n; i++) {
		free(j->a[i].name);
		free(j->a[i].text);
	}
	free(j->a);
	memset(j, 0, sizeof(*j));
}

/*
 * Set NAME to TEXT (taken over).  Custom attributes (CUSTOM) may replace
 * an earlier NAME; the built-in ones are set once each.
 */
static int
jattrs_set(struct parser *p, struct jattrs *j, const char *name, char *text,
    int deps, int line, int custom)
{
	size_t i;

	if (strlen(text) > AD_MAX_TEXT) {
		perr(p, line, "the value of %s is longer than %d bytes", name,
		    AD_MAX_TEXT);
		free(text);
		return -1;
	}
	for (i = 0; custom && i < j->n; i++)
		if (strcasecmp(j->a[i].name, name) == 0) {
			free(j->a[i].text);
			j->a[i].text = text;
			j->a[i].deps = deps;
			return 0;
		}
	if (j->n == j->cap) {
		j->cap = j->cap ? j->cap * 2 : 32;
		j->a = xreallocarray(j->a, j->cap, sizeof(*j->a));
	}
	j->a[j->n].name = xstrdup(name);
	j->a[j->n].text = text;
	j->a[j->n].deps = deps;
	j->n++;
	return 0;
}

static int
jattrs_put(struct parser *p, struct jattrs *j, const char *name, char *text,
    int deps, int line)
{
	return jattrs_set(p, j, name, text, deps, line, 0);
}

static char *
quote(const char *s)
{
	struct value v;
	struct buf b;

	v.type = VAL_STRING;
	v.u.s = (char *)s;
	buf_init(&b);
	value_print(&v, &b);
	return buf_take(&b);
}

static int
put_string(struct parser *p, struct jattrs *j, const char *name,
    const char *s, int deps, int line)
{
	return jattrs_put(p, j, name, quote(s), deps, line);
}

static int
put_int(struct parser *p, struct jattrs *j, const char *name, long long v,
    int deps, int line)
{
	return jattrs_put(p, j, name, xasprintf("%lld", v), deps, line);
}

/* PATH made absolute against DIR. */
static char *
path_join(const char *dir, const char *path)
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

/*
 * Parse TEXT (which may hold $(Cluster)) as an expression; -1 with the
 * error recorded at LINE if it does not parse.  *TREE, if not NULL,
 * receives the tree (with $(Cluster) read as 1).
 */
static int
check_expr(struct parser *p, const char *what, const char *text, int line,
    struct expr **tree)
{
	char err[256], *sub;
	struct expr *e;

	sub = submit_expand_cluster(text, 1);
	e = expr_parse(sub ? sub : text, err, sizeof(err));
	free(sub);
	if (e == NULL) {
		perr(p, line, "%s: %s", what, err);
		return -1;
	}
	if (tree != NULL)
		*tree = e;
	else
		expr_free(e);
	return 0;
}

static int
parse_bool(const char *s, int *out)
{
	static const char *yes[] = { "true", "yes", "t", "y", "1", NULL };
	static const char *no[] = { "false", "no", "f", "n", "0", NULL };
	int i;

	for (i = 0; yes[i] != NULL; i++)
		if (strcasecmp(s, yes[i]) == 0) {
			*out = 1;
			return 0;
		}
	for (i = 0; no[i] != NULL; i++)
		if (strcasecmp(s, no[i]) == 0) {
			*out = 0;
			return 0;
		}
	return -1;
}

/* A whole decimal integer; -1 if S is anything else. */
static int
parse_long(const char *s, long long *out)
{
	char *end;

	if (*s == '\0')
		return -1;
	errno = 0;
	*out = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	return 0;
}

/* What the starter accepts as a variable name: [A-Za-z_][A-Za-z0-9_]*. */
static int
env_name_valid(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || (!isalpha((unsigned char)s[0]) && s[0] != '_'))
		return 0;
	for (i = 1; i < len; i++)
		if (!isascii((unsigned char)s[i]) ||
		    (!isalnum((unsigned char)s[i]) && s[i] != '_'))
			return 0;
	return 1;
}

/*
 * HTCondor's new syntax for arguments and environment: the whole value
 * in double quotes ("" inside is one "), words parted by white space, a
 * stretch in single quotes part of a word, spaces and all ('' inside is
 * one ').  Whether TEXT is written so.
 */
static int
is_new_style(const char *text)
{
	size_t n = strlen(text);

	return n >= 2 && text[0] == '"' && text[n - 1] == '"';
}

/*
 * The words of the new-style TEXT, each ended by '\0', one after the
 * other in OUT; their number, or -1 with *WHY set.
 */
static int
new_style_words(const char *text, struct buf *out, const char **why)
{
	const char *s = text + 1, *end = text + strlen(text) - 1;
	int n = 0, in_word = 0, quoted = 0;

	for (; s < end; s++) {
		if (*s == '"') {
			if (s + 1 < end && s[1] == '"') {
				s++;
			} else {
				*why = "a lone \" inside (write \"\" for one)";
				return -1;
			}
		} else if (*s == '\'') {
			if (quoted && s + 1 < end && s[1] == '\'') {
				s++;	/* '' in quotes: one ' */
			} else {
				quoted = !quoted;
				if (!in_word) {
					in_word = 1;
					n++;
				}
				continue;
			}
		} else if (!quoted && isspace((unsigned char)*s)) {
			if (in_word)
				buf_addc(out, '\0');
			in_word = 0;
			continue;
		}
		if (!in_word) {
			in_word = 1;
			n++;
		}
		buf_addc(out, *s);
	}
	if (quoted) {
		*why = "a single quote is not closed";
		return -1;
	}
	if (in_word)
		buf_addc(out, '\0');
	return n;
}

/* New-style arguments TEXT in the form the starter splits (Args:
 * words at white space, "..." one word, \" and \\ inside); NULL (an
 * error given) if TEXT is malformed. */
static char *
args_from_new_style(struct parser *p, const char *text, int line)
{
	struct buf words, args;
	const char *w, *why = NULL, *c;
	int n, i;

	buf_init(&words);
	buf_init(&args);
	if ((n = new_style_words(text, &words, &why)) == -1) {
		perr(p, line, "arguments: %s", why);
		buf_free(&words);
		buf_free(&args);
		return NULL;
	}
	for (i = 0, w = words.data; i < n; i++, w += strlen(w) + 1) {
		if (i > 0)
			buf_addc(&args, ' ');
		if (*w != '\0' && strpbrk(w, " \t\n\"\\") == NULL) {
			buf_adds(&args, w);
			continue;
		}
		buf_addc(&args, '"');
		for (c = w; *c != '\0'; c++) {
			if (*c == '"' || *c == '\\')
				buf_addc(&args, '\\');
			buf_addc(&args, *c);
		}
		buf_addc(&args, '"');
	}
	buf_free(&words);
	return buf_take(&args);
}

/*
 * The environment TEXT as "NAME=value;NAME2=value2": as it is, or from
 * HTCondor's new syntax ("NAME=value NAME2='a b'"); NULL (an error
 * given) if it cannot be written so.
 */
static char *
env_canonical(struct parser *p, const char *text, int line)
{
	char *item, shownbuf[64];
	const char *why = NULL;
	struct buf words;
	int n, i;

	if (!is_new_style(text))
		return xstrdup(text);
	buf_init(&words);
	if ((n = new_style_words(text, &words, &why)) == -1) {
		perr(p, line, "environment: %s", why);
		buf_free(&words);
		return NULL;
	}
	/* One word an item: ';' parts them from now on. */
	for (i = 0, item = words.data; i < n; i++) {
		size_t len = strlen(item);

		if (strchr(item, ';') != NULL) {
			perr(p, line, "environment: a value cannot hold ';' "
			    "(\"%s\")", shown(item, shownbuf,
			    sizeof(shownbuf)));
			buf_free(&words);
			return NULL;
		}
		if (i + 1 < n)
			item[len] = ';';
		item += len + 1;
	}
	return buf_take(&words);
}

/* "NAME=value;NAME2=value2" checked and appended to ENV (a buf). */
static int
env_add_list(struct parser *p, const char *list, int line, struct buf *env)
{
	char *copy, *item, *save = NULL, *eq, shownbuf[64];
	const char *sep = ";";

	copy = xstrdup(list);
	for (item = strtok_r(copy, sep, &save); item != NULL;
	    item = strtok_r(NULL, sep, &save)) {
		item = trim(item);
		if (*item == '\0')
			continue;
		eq = strchr(item, '=');
		if (eq == NULL || eq == item) {
			perr(p, line, "environment: \"%s\" is not NAME=value",
			    shown(item, shownbuf, sizeof(shownbuf)));
			free(copy);
			return -1;
		}
		*eq = '\0';
		if (!env_name_valid(item, strlen(item))) {
			perr(p, line, "environment: bad variable name \"%s\"",
			    shown(item, shownbuf, sizeof(shownbuf)));
			free(copy);
			return -1;
		}
		*eq = '=';
		if (env->len > 0)
			buf_addc(env, ';');
		buf_adds(env, item);
	}
	free(copy);
	return 0;
}

/* Whether the variable NAME (NLEN bytes) matches one of the shell
 * patterns of the getenv list ONLY (commas or white space between). */
static int
getenv_wanted(const char *only, const char *name, size_t nlen)
{
	char pat[256], var[256];
	const char *s = only;
	size_t n;

	if (nlen >= sizeof(var))
		return 0;
	memcpy(var, name, nlen);
	var[nlen] = '\0';
	while (*s != '\0') {
		s += strspn(s, ", \t");
		n = strcspn(s, ", \t");
		if (n > 0 && n < sizeof(pat)) {
			memcpy(pat, s, n);
			pat[n] = '\0';
			if (fnmatch(pat, var, 0) == 0)
				return 1;
		}
		s += n;
	}
	return 0;
}

/*
 * The submitter's environment for getenv, minus what the one-line
 * format cannot hold (';' in a value, odd names) and what EXPLICIT sets
 * anyway.
 */
static void
env_add_getenv(struct parser *p, const char *explicit, const char *only,
    int line, struct buf *env)
{
	char *const *e;
	const char *eq;
	struct buf skipped;
	size_t nlen;

	if (p->env->environ == NULL)
		return;
	buf_init(&skipped);
	for (e = p->env->environ; *e != NULL; e++) {
		if ((eq = strchr(*e, '=')) == NULL || eq == *e)
			continue;
		nlen = (size_t)(eq - *e);
		if (only != NULL && !getenv_wanted(only, *e, nlen))
			continue;
		if (strchr(eq + 1, ';') != NULL || !env_name_valid(*e, nlen)) {
			buf_printf(&skipped, "%s%.*s", skipped.len ? " " : "",
			    (int)nlen, *e);
			continue;
		}
		if (explicit != NULL) {
			/* Is NAME= at the start of an item of EXPLICIT? */
			const char *q = explicit;
			int found = 0;

			while (*q != '\0' && !found) {
				while (*q == ';' || isspace((unsigned char)*q))
					q++;
				if (strncmp(q, *e, nlen + 1) == 0)
					found = 1;
				q += strcspn(q, ";");
			}
			if (found)
				continue;
		}
		if (env->len > 0)
			buf_addc(env, ';');
		buf_adds(env, *e);
	}
	if (skipped.len > 0)
		pwarn(p, line, "getenv: left out %s (a ';' in the value, or "
		    "not a plain name)",
		    skipped.data);
	buf_free(&skipped);
}

/* Does the space-separated list REFS name NAME (any case)? */
static int
refs_name(const char *refs, const char *name)
{
	size_t len = strlen(name), n;

	while (*refs != '\0') {
		while (*refs == ' ')
			refs++;
		n = strcspn(refs, " ");
		if (n == len && strncasecmp(refs, name, len) == 0)
			return 1;
		refs += n;
	}
	return 0;
}

/* Look at the executable once: it exists, may run, is relinked. */
static int
check_executable(struct parser *p, const char *exe, int standard, int line,
    long long *kib)
{
	struct stat st;
	char err[256];
	int r;

	*kib = 1;
	if (!p->env->check_files)
		return 0;
	if (stat(exe, &st) == -1) {
		perr(p, line, "executable %s: %s", exe, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		perr(p, line, "executable %s is not a regular file", exe);
		return -1;
	}
	if (access(exe, X_OK) == -1) {
		perr(p, line, "executable %s: not executable: %s", exe,
		    strerror(errno));
		return -1;
	}
	*kib = (st.st_size + 1023) / 1024;
	if (*kib < 1)
		*kib = 1;
	if (!standard)
		return 0;
	if (p->exe_relinked < 0) {
		r = submit_elf_relinked(exe, err, sizeof(err));
		p->exe_relinked = r == 1;
	}
	if (!p->exe_relinked) {
		perr(p, line, "executable %s is not relinked for Condor: "
		    "relink it with condor_cc, or use universe = vanilla", exe);
		return -1;
	}
	return 0;
}

static int
check_dir(struct parser *p, const char *dir, int line)
{
	struct stat st;

	if (!p->env->check_files || strstr(dir, SUBMIT_CLUSTER_MACRO))
		return 0;
	if (stat(dir, &st) == -1) {
		perr(p, line, "initialdir %s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		perr(p, line, "initialdir %s is not a directory", dir);
		return -1;
	}
	return 0;
}

/* Whether attribute NAME must be built for this proc. */
/* A whole number of seconds, above 0; -1 if TEXT is not one. */
static long long
seconds(const char *text)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(text, &end, 10);
	return errno != 0 || end == text || *end != '\0' || v <= 0 ? -1 : v;
}

/*
 * Keyword KW of KV, if given, as the integer attribute NAME: its text
 * converted by CONV (-1 for a bad one, which is an error naming WHAT it
 * must be).  0, or -1.
 */
static int
put_amount(struct parser *p, struct jattrs *j, const struct kval *kv, int kw,
    const char *name, long long (*conv)(const char *), const char *what)
{
	const struct kval *k = &kv[kw];
	char buf[80];
	long long v;

	if (k->text == NULL || *k->text == '\0')
		return 0;
	if ((v = conv(k->text)) <= 0) {
		perr(p, k->line, "%s must be %s, not \"%s\"", kw_names[kw],
		    what, shown(k->text, buf, sizeof(buf)));
		return -1;
	}
	return put_int(p, j, name, v, k->deps, k->line);
}

#define WANT(deps)	(first || ((deps) & DEP_PROCESS))

/* Each item of a concurrency_limits list a NAME (letters, digits, '_',
 * '.') with an optional ":WEIGHT"; 0, or -1 with BAD the item. */
static int
limits_check(const char *text, char *bad, size_t badlen)
{
	char **items, *colon, *end;
	size_t n, i, k;
	double w;
	int rc = 0;

	items = xfer_list_split(text, &n);
	for (i = 0; i < n && rc == 0; i++) {
		colon = strchr(items[i], ':');
		for (k = 0; items[i][k] != '\0' && items[i] + k != colon; k++)
			if (!isalnum((unsigned char)items[i][k]) &&
			    items[i][k] != '_' && items[i][k] != '.')
				break;
		if (k == 0 || (items[i] + k != colon && items[i][k] != '\0'))
			rc = -1;
		else if (colon != NULL) {
			w = strtod(colon + 1, &end);
			if (end == colon + 1 || *end != '\0' || !(w >= 0) ||
			    w > 1e9)
				rc = -1;
		}
		if (rc == -1)
			snprintf(bad, badlen, "%.40s", items[i]);
	}
	xfer_list_free(items, n);
	return rc;
}

/* A group or user name: letters, digits, '_', '-', '.' (for a group,
 * dot-separated parts none empty), at most 64 bytes. */
static int
acct_name_ok(const char *s, int group)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > 64 || (group && (s[0] == '.' || s[n - 1] == '.' ||
	    strstr(s, "..") != NULL)))
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' &&
		    s[i] != '-' && s[i] != '.' && (group || s[i] != '@'))
			return 0;
	return 1;
}

/*
 * Who waits and who is counted: nice_user (NiceUser: the job runs only
 * on machines no other job wants, and leaves for any), accounting_group
 * and accounting_group_user (AcctGroup, AcctGroupUser and
 * AccountingGroup "GROUP.USER", which the negotiator's GROUP_QUOTA_
 * settings count; the user is the submitter unless named).
 */
static int
put_accounting(struct parser *p, struct kval *kv, struct jattrs *j,
    int first)
{
	struct kval *k = &kv[KW_NICE_USER], *g = &kv[KW_ACCOUNTING_GROUP];
	struct kval *u = &kv[KW_ACCOUNTING_GROUP_USER];
	struct passwd *pw;
	const char *user;
	char *both;
	int on;

	if (k->text != NULL && WANT(k->deps)) {
		if (parse_bool(k->text, &on) == -1) {
			perr(p, k->line, "nice_user must be true or false, not "
			    "\"%.40s\"", k->text);
			return -1;
		}
		if (jattrs_put(p, j, "NiceUser", xstrdup(on ? "true" :
		    "false"), k->deps, k->line) == -1)
			return -1;
	}
	if (u->text != NULL && g->text == NULL) {
		perr(p, u->line, "accounting_group_user needs an "
		    "accounting_group");
		return -1;
	}
	if (g->text == NULL || !(WANT(g->deps) || (u->text != NULL &&
	    WANT(u->deps))))
		return 0;
	if (!acct_name_ok(g->text, 1)) {
		perr(p, g->line, "accounting_group \"%.40s\" is not a group "
		    "name (letters, digits, '_', '-', parts joined by '.')",
		    g->text);
		return -1;
	}
	if (u->text != NULL) {
		if (!acct_name_ok(u->text, 0)) {
			perr(p, u->line, "accounting_group_user \"%.40s\" is "
			    "not a user name", u->text);
			return -1;
		}
		user = u->text;
	} else if ((pw = getpwuid(getuid())) != NULL &&
	    acct_name_ok(pw->pw_name, 0))
		user = pw->pw_name;
	else
		user = "unknown";
	if (put_string(p, j, "AcctGroup", g->text, g->deps | u->deps,
	    g->line) == -1 || put_string(p, j, "AcctGroupUser", user,
	    g->deps | u->deps, g->line) == -1)
		return -1;
	both = xasprintf("%s.%s", g->text, user);
	on = put_string(p, j, "AccountingGroup", both, g->deps | u->deps,
	    g->line);
	free(both);
	return on;
}

/*
 * The files that travel with a vanilla job: ShouldTransferFiles (YES,
 * NO or IF_NEEDED; a job here never shares a file system with its
 * machine, so IF_NEEDED transfers), WhenToTransferOutput (ON_EXIT or
 * ON_EXIT_OR_EVICT), TransferInput, TransferOutput and
 * TransferOutputRemaps, each list checked here so that a bad one is
 * refused at its line rather than when the job runs.  A standard job's
 * files stay on this host (remote system calls): it may not name any.
 */
static int
put_transfer(struct parser *p, struct jattrs *j, struct kval *kv,
    int first, int standard, const char *iwd, int deps_iwd)
{
	static const char *should[] = { "YES", "NO", "IF_NEEDED", NULL };
	static const char *when[] = { "ON_EXIT", "ON_EXIT_OR_EVICT", NULL };
	struct xfer_remap *rm;
	struct kval *k;
	char **items, *path, shownbuf[64], why[256];
	const char *sv = "IF_NEEDED", *wv = "ON_EXIT";
	size_t n, i, nrm;
	int d, on = 1, rc = -1;

	k = &kv[KW_TRANSFER_EXECUTABLE];
	if (k->text != NULL && WANT(k->deps) &&
	    (parse_bool(k->text, &on) == -1 || !on)) {
		perr(p, k->line, "transfer_executable must be true: the "
		    "executable always travels with the job here");
		return -1;
	}
	k = &kv[KW_SHOULD_TRANSFER_FILES];
	if (k->text != NULL) {
		for (i = 0; should[i] != NULL; i++)
			if (strcasecmp(k->text, should[i]) == 0)
				break;
		if (should[i] == NULL) {
			perr(p, k->line, "should_transfer_files must be YES, "
			    "NO or IF_NEEDED, not \"%s\"",
			    shown(k->text, shownbuf, sizeof(shownbuf)));
			return -1;
		}
		sv = should[i];
	}
	k = &kv[KW_WHEN_TO_TRANSFER_OUTPUT];
	if (k->text != NULL) {
		for (i = 0; when[i] != NULL; i++)
			if (strcasecmp(k->text, when[i]) == 0)
				break;
		if (when[i] == NULL) {
			perr(p, k->line, "when_to_transfer_output must be "
			    "ON_EXIT or ON_EXIT_OR_EVICT, not \"%s\"",
			    shown(k->text, shownbuf, sizeof(shownbuf)));
			return -1;
		}
		wv = when[i];
	}
	for (i = KW_TRANSFER_INPUT_FILES; i <= KW_TRANSFER_OUTPUT_REMAPS;
	    i++) {
		k = &kv[i];
		if (k->text == NULL || *k->text == '\0')
			continue;
		if (standard) {
			perr(p, k->line, "%s is for vanilla jobs: a standard "
			    "job reads and writes its files on this host",
			    kw_names[i]);
			return -1;
		}
		if (strcmp(sv, "NO") == 0) {
			perr(p, k->line, "%s with should_transfer_files = NO",
			    kw_names[i]);
			return -1;
		}
	}
	if (standard)
		return 0;
	if (strcmp(sv, "NO") == 0 && strcmp(wv, "ON_EXIT_OR_EVICT") == 0) {
		perr(p, kv[KW_WHEN_TO_TRANSFER_OUTPUT].line,
		    "when_to_transfer_output = ON_EXIT_OR_EVICT with "
		    "should_transfer_files = NO");
		return -1;
	}
	k = &kv[KW_SHOULD_TRANSFER_FILES];
	if (WANT(k->deps) && put_string(p, j, "ShouldTransferFiles", sv,
	    k->deps, k->text ? k->line : 0) == -1)
		return -1;
	k = &kv[KW_WHEN_TO_TRANSFER_OUTPUT];
	if (WANT(k->deps) && put_string(p, j, "WhenToTransferOutput", wv,
	    k->deps, k->text ? k->line : 0) == -1)
		return -1;

	/* Inputs: relative to Iwd; one missing now is a warning, as for
	 * input (the job is held if it is still missing when it starts). */
	k = &kv[KW_TRANSFER_INPUT_FILES];
	d = k->deps | deps_iwd;
	if (k->text != NULL && *k->text != '\0' && WANT(d)) {
		struct buf b;

		items = xfer_list_split(k->text, &n);
		buf_init(&b);
		for (i = 0; i < n; i++) {
			if (strstr(items[i], "://") != NULL) {
				perr(p, k->line, "transfer_input_files: %s: "
				    "only files of this host can be "
				    "transferred, not URLs", shown(items[i],
				    shownbuf, sizeof(shownbuf)));
				goto in_out;
			}
			path = path_join(iwd, items[i]);
			if (p->env->check_files &&
			    strstr(path, SUBMIT_CLUSTER_MACRO) == NULL &&
			    access(path, R_OK) == -1)
				pwarn(p, k->line, "transfer input file %s: %s "
				    "(the job is held if it is still missing "
				    "when it starts)", path, strerror(errno));
			free(path);
			buf_printf(&b, "%s%s", i ? "," : "", items[i]);
		}
		rc = put_string(p, j, "TransferInput", b.data ? b.data : "",
		    d, k->line);
in_out:
		buf_free(&b);
		xfer_list_free(items, n);
		if (rc == -1)
			return -1;
		rc = -1;
	}
	k = &kv[KW_TRANSFER_OUTPUT_FILES];
	if (k->text != NULL && *k->text != '\0' && WANT(k->deps)) {
		struct buf b;
		char *name;

		items = xfer_list_split(k->text, &n);
		buf_init(&b);
		for (i = 0; i < n; i++) {
			name = items[i];
			while (name[0] == '.' && name[1] == '/')
				name += 2;
			if (!xfer_name_ok(name)) {
				perr(p, k->line, "transfer_output_files: "
				    "\"%s\" is not a relative path inside the "
				    "job's directory", shown(items[i],
				    shownbuf, sizeof(shownbuf)));
				goto out_out;
			}
			buf_printf(&b, "%s%s", i ? "," : "", name);
		}
		rc = put_string(p, j, "TransferOutput", b.data ? b.data : "",
		    k->deps, k->line);
out_out:
		buf_free(&b);
		xfer_list_free(items, n);
		if (rc == -1)
			return -1;
		rc = -1;
	}
	k = &kv[KW_TRANSFER_OUTPUT_REMAPS];
	if (k->text != NULL && *k->text != '\0' && WANT(k->deps)) {
		struct buf b;

		if (xfer_remaps_parse(k->text, &rm, &nrm, why,
		    sizeof(why)) == -1) {
			perr(p, k->line, "transfer_output_remaps: %s", why);
			return -1;
		}
		buf_init(&b);
		for (i = 0; i < nrm; i++)
			buf_printf(&b, "%s%s=%s", i ? ";" : "", rm[i].name,
			    rm[i].to);
		xfer_remaps_free(rm, nrm);
		rc = put_string(p, j, "TransferOutputRemaps", b.data ?
		    b.data : "", k->deps, k->line);
		buf_free(&b);
		if (rc == -1)
			return -1;
	}
	return 0;
}

/*
 * build: the attributes of proc PROC from the expanded keyword values KV
 * and custom values CV (NCV of them, named CNAMES) into J.  FIRST: the
 * statement's first proc, build everything; otherwise only what depends
 * on $(Process).  QLINE is the queue statement's line.
 */
static int
build(struct parser *p, struct kval *kv, struct kval *cv, char **cnames,
    size_t ncv, size_t proc, int first, int qline, struct jattrs *j)
{
	struct kval *k;
	struct expr *tree = NULL;
	struct buf b, refs;
	char *iwd = NULL, *path, shownbuf[64];
	const char *s;
	long long v, kib = 1;
	int d, standard = 1, getenv_on = 0, i, rc = -1;
	int universe = 1;	/* JobUniverse: 1, 5, 7 or 12 */
	const char *uname = "standard";
	char *env = NULL;
	const char *only;
	size_t c;

	(void)proc;
	buf_init(&b);
	buf_init(&refs);

	/* Universe first: the executable's checks depend on it. */
	k = &kv[KW_UNIVERSE];
	if (k->text != NULL) {
		if (strcasecmp(k->text, "standard") == 0) {
			universe = 1;
			uname = "standard";
		} else if (strcasecmp(k->text, "vanilla") == 0) {
			universe = 5;
			uname = "vanilla";
		} else if (strcasecmp(k->text, "scheduler") == 0) {
			universe = 7;
			uname = "scheduler";
		} else if (strcasecmp(k->text, "local") == 0) {
			universe = 12;
			uname = "local";
		} else {
			perr(p, k->line, "universe \"%s\" is not supported "
			    "(standard, vanilla, scheduler or local)",
			    shown(k->text, shownbuf, sizeof(shownbuf)));
			goto out;
		}
		standard = universe == 1;
	}

	/* Executable: relative to the current directory; a queue statement
	 * may name another than the one before (its jobs' Cmd). */
	k = &kv[KW_EXECUTABLE];
	if (k->text == NULL || *k->text == '\0') {
		perr(p, qline, "no executable given before queue");
		goto out;
	}
	if (k->deps & (DEP_PROCESS | DEP_CLUSTER)) {
		perr(p, k->line, "the executable cannot depend on $(Process) "
		    "or $(Cluster): each queue statement names one");
		goto out;
	}
	if (first) {
		path = path_join(p->cwd, k->text);
		if (check_executable(p, path, standard, k->line, &kib) == -1) {
			free(path);
			goto out;
		}
		if (p->exe == NULL)
			p->exe = xstrdup(path);
		put_string(p, j, "Cmd", path, 0, k->line);
		free(path);
	} else if (kv[KW_UNIVERSE].deps & DEP_PROCESS) {
		path = path_join(p->cwd, k->text);
		i = check_executable(p, path, standard, k->line, &kib);
		free(path);
		if (i == -1)
			goto out;
	}

	k = &kv[KW_ARGUMENTS];
	if (WANT(k->deps)) {
		char *args = k->text != NULL && is_new_style(k->text) ?
		    args_from_new_style(p, k->text, k->line) :
		    xstrdup(k->text ? k->text : "");

		if (args == NULL || put_string(p, j, "Args", args, k->deps,
		    k->line) == -1) {
			free(args);
			goto out;
		}
		free(args);
	}

	/* Initialdir, and the files relative to it. */
	k = &kv[KW_INITIALDIR];
	d = k->deps;
	iwd = k->text && *k->text ? path_join(p->cwd, k->text) :
	    xstrdup(p->cwd);
	if (WANT(d)) {
		if (check_dir(p, iwd, k->line) == -1)
			goto out;
		if (put_string(p, j, "Iwd", iwd, d, k->line) == -1)
			goto out;
	}
	for (i = KW_INPUT; i <= KW_LOG; i++) {
		static const char *attr[] = { "In", "Out", "Err", "UserLog" };
		int r;

		k = &kv[i];
		if (!WANT(k->deps | d))
			continue;
		if (k->text != NULL && *k->text != '\0')
			s = k->text;
		else if (i == KW_LOG)
			continue;	/* no log unless asked for */
		else
			s = "/dev/null";
		path = path_join(iwd, s);
		if (i == KW_INPUT && p->env->check_files &&
		    strcmp(path, "/dev/null") != 0 &&
		    strstr(path, SUBMIT_CLUSTER_MACRO) == NULL &&
		    access(path, R_OK) == -1)
			pwarn(p, k->line, "input file %s: %s (the job is held "
			    "if it is still missing when it starts)", path,
			    strerror(errno));
		r = put_string(p, j, attr[i - KW_INPUT], path, k->deps | d,
		    k->text ? k->line : qline);
		free(path);
		if (r == -1)
			goto out;
	}
	k = &kv[KW_ROOTDIR];
	if (WANT(k->deps)) {
		s = k->text && *k->text ? k->text : "/";
		if (s[0] != '/') {
			perr(p, k->line, "rootdir must be an absolute path");
			goto out;
		}
		if (put_string(p, j, "RootDir", s, k->deps, k->line) == -1)
			goto out;
	}

	/* Environment, with the submitter's under getenv = true. */
	d = kv[KW_ENVIRONMENT].deps | kv[KW_GETENV].deps;
	if (WANT(d)) {
		k = &kv[KW_GETENV];
		only = NULL;
		if (k->text != NULL && parse_bool(k->text, &getenv_on) == -1) {
			/* HTCondor's list: the variables the patterns name. */
			getenv_on = 1;
			only = k->text;
		}
		buf_reset(&b);
		k = &kv[KW_ENVIRONMENT];
		if (k->text != NULL &&
		    (env = env_canonical(p, k->text, k->line)) == NULL)
			goto out;
		if (getenv_on)
			env_add_getenv(p, env, only, kv[KW_GETENV].line, &b);
		if (env != NULL && env_add_list(p, env, k->line, &b) == -1)
			goto out;
		if (put_string(p, j, "Env", b.data, d, k->text ? k->line :
		    kv[KW_GETENV].line) == -1)
			goto out;
	}

	k = &kv[KW_UNIVERSE];
	if (WANT(k->deps)) {
		put_string(p, j, "Universe", uname, k->deps, k->line);
		put_int(p, j, "JobUniverse", universe, k->deps, k->line);
	}

	/*
	 * Requirements: the user's, plus what every job needs and the user
	 * did not say otherwise: the submitting machine's architecture and
	 * system, and room on the execute disk.
	 */
	k = &kv[KW_REQUIREMENTS];
	if (WANT(k->deps)) {
		buf_reset(&b);
		if (k->text != NULL && *k->text != '\0') {
			if (check_expr(p, "requirements", k->text, k->line,
			    &tree) == -1)
				goto out;
			expr_references(tree, &refs);
			expr_free(tree);
			buf_printf(&b, "(%s)", k->text);
		}
		if (p->arch[0] == '\0') {
			machine_arch(p->arch, sizeof(p->arch));
			machine_opsys(p->opsys, sizeof(p->opsys));
		}
		if (!refs_name(refs.data, "Arch"))
			buf_printf(&b, "%s(Arch == \"%s\")",
			    b.len ? " && " : "", p->arch);
		if (!refs_name(refs.data, "OpSys"))
			buf_printf(&b, "%s(OpSys == \"%s\")",
			    b.len ? " && " : "", p->opsys);
		/* What the job requests, as HTCondor joins it. */
		if (!refs_name(refs.data, "Disk"))
			buf_printf(&b, "%s(TARGET.Disk >= %s)",
			    b.len ? " && " : "", kv[KW_REQUEST_DISK].text ?
			    "RequestDisk" : "ImageSize");
		if (kv[KW_REQUEST_MEMORY].text != NULL &&
		    !refs_name(refs.data, "Memory"))
			buf_printf(&b, " && (TARGET.Memory >= RequestMemory)");
		if (kv[KW_REQUEST_CPUS].text != NULL &&
		    !refs_name(refs.data, "Cpus"))
			buf_printf(&b, " && (TARGET.Cpus >= RequestCpus)");
		if (kv[KW_REQUEST_GPUS].text != NULL &&
		    gpus(kv[KW_REQUEST_GPUS].text) > 0 &&
		    !refs_name(refs.data, "GPUs"))
			buf_printf(&b, " && (TARGET.GPUs >= RequestGpus)");
		if (jattrs_put(p, j, "Requirements", xstrdup(b.data),
		    k->deps, k->line) == -1)
			goto out;
	}
	k = &kv[KW_RANK];
	if (WANT(k->deps)) {
		s = k->text && *k->text ? k->text : "0.0";
		if (check_expr(p, "rank", s, k->line, NULL) == -1)
			goto out;
		if (jattrs_put(p, j, "Rank", xstrdup(s), k->deps,
		    k->line) == -1)
			goto out;
	}
	/* The job's own policies, evaluated by the schedd. */
	{
		static const struct { int kw; const char *attr; } pol[] = {
			{ KW_PERIODIC_HOLD, "PeriodicHold" },
			{ KW_PERIODIC_REMOVE, "PeriodicRemove" },
			{ KW_PERIODIC_RELEASE, "PeriodicRelease" },
			{ KW_ON_EXIT_HOLD, "OnExitHold" },
		};

		for (i = 0; i < (int)(sizeof(pol) / sizeof(pol[0])); i++) {
			k = &kv[pol[i].kw];
			if (k->text == NULL || !WANT(k->deps))
				continue;
			if (check_expr(p, kw_names[pol[i].kw], k->text,
			    k->line, NULL) == -1 || jattrs_put(p, j,
			    pol[i].attr, xstrdup(k->text), k->deps,
			    k->line) == -1)
				goto out;
		}
	}
	/* max_retries N: run again, up to N more times, while it fails
	 * (exits other than success_exit_code, 0 by default) and its
	 * retry_until (an expression, or an exit code) is not TRUE; joined
	 * to on_exit_remove as HTCondor joins them.  retry_until alone
	 * allows HTCondor's default of 2 retries. */
	k = &kv[KW_MAX_RETRIES];
	d = k->deps | kv[KW_ON_EXIT_REMOVE].deps | kv[KW_RETRY_UNTIL].deps |
	    kv[KW_SUCCESS_EXIT_CODE].deps;
	if (WANT(d) && (k->text != NULL ||
	    kv[KW_ON_EXIT_REMOVE].text != NULL ||
	    kv[KW_RETRY_UNTIL].text != NULL)) {
		const struct kval *r = &kv[KW_ON_EXIT_REMOVE];
		const struct kval *u = &kv[KW_RETRY_UNTIL];
		const struct kval *x = &kv[KW_SUCCESS_EXIT_CODE];
		long long success = 0, code;

		v = u->text != NULL ? 2 : -1;
		if (k->text != NULL && (parse_long(k->text, &v) == -1 ||
		    v < 0 || v > 1000000)) {
			perr(p, k->line, "max_retries must be a number of "
			    "retries, 0 or more, not \"%s\"",
			    shown(k->text, shownbuf, sizeof(shownbuf)));
			goto out;
		}
		if (x->text != NULL && (parse_long(x->text, &success) == -1 ||
		    success < -255 || success > 255)) {
			perr(p, x->line, "success_exit_code must be an exit "
			    "code, not \"%s\"", shown(x->text, shownbuf,
			    sizeof(shownbuf)));
			goto out;
		}
		if (r->text != NULL && check_expr(p, "on_exit_remove",
		    r->text, r->line, NULL) == -1)
			goto out;
		if (u->text != NULL && parse_long(u->text, &code) == -1 &&
		    check_expr(p, "retry_until", u->text, u->line, NULL) == -1)
			goto out;
		buf_reset(&b);
		if (r->text != NULL)
			buf_printf(&b, v >= 0 ? "(%s) || " : "%s", r->text);
		if (v >= 0) {
			buf_printf(&b, "(NumJobCompletions > JobMaxRetries) || "
			    "(ExitCode =?= %lld)", success);
			if (u->text != NULL && parse_long(u->text, &code) == 0)
				buf_printf(&b, " || (ExitCode =?= %lld)", code);
			else if (u->text != NULL)
				buf_printf(&b, " || (%s)", u->text);
			if (put_int(p, j, "JobMaxRetries", v, k->text ?
			    k->deps : u->deps, k->text ? k->line : u->line) ==
			    -1)
				goto out;
		}
		if (jattrs_put(p, j, "OnExitRemove", xstrdup(b.data), d,
		    r->text != NULL ? r->line : k->line) == -1)
			goto out;
	}

	/* Seconds: between the soft kill and the hard one when the job is
	 * vacated; how long a running job survives losing its shadow. */
	if (WANT(kv[KW_JOB_MAX_VACATE_TIME].deps) && put_amount(p, j, kv,
	    KW_JOB_MAX_VACATE_TIME, "JobMaxVacateTime", seconds,
	    "a positive number of seconds") == -1)
		goto out;
	/* NAME[:WEIGHT], ...: what the negotiator counts against the
	 * pool's NAME_LIMIT settings. */
	k = &kv[KW_CONCURRENCY_LIMITS];
	if (k->text != NULL && WANT(k->deps)) {
		if (limits_check(k->text, shownbuf, sizeof(shownbuf)) == -1) {
			perr(p, k->line, "concurrency_limits: \"%s\" is not a "
			    "NAME or NAME:WEIGHT", shownbuf);
			goto out;
		}
		if (put_string(p, j, "ConcurrencyLimits", k->text, k->deps,
		    k->line) == -1)
			goto out;
	}
	if (put_accounting(p, kv, j, first) == -1)
		goto out;
	if (WANT(kv[KW_JOB_LEASE_DURATION].deps) && put_amount(p, j, kv,
	    KW_JOB_LEASE_DURATION, "JobLeaseDuration", seconds,
	    "a positive number of seconds") == -1)
		goto out;
	/* A job without one gets the pool's default lease; one the schedd
	 * runs itself (scheduler, local) has no starter to lease. */
	if (kv[KW_JOB_LEASE_DURATION].text == NULL &&
	    p->env->default_lease > 0 && WANT(kv[KW_UNIVERSE].deps) &&
	    universe != 7 && universe != 12 &&
	    put_int(p, j, "JobLeaseDuration", p->env->default_lease,
	    kv[KW_UNIVERSE].deps, qline) == -1)
		goto out;

	k = &kv[KW_PRIORITY];
	if (WANT(k->deps)) {
		v = 0;
		if (k->text != NULL && (parse_long(k->text, &v) == -1 ||
		    v < PRIO_MIN || v > PRIO_MAX)) {
			perr(p, k->line, "priority must be an integer from %d "
			    "to %d, not \"%s\"", PRIO_MIN, PRIO_MAX,
			    shown(k->text, shownbuf, sizeof(shownbuf)));
			goto out;
		}
		put_int(p, j, "UserPrio", v, k->deps, k->line);
	}
	k = &kv[KW_NOTIFICATION];
	if (WANT(k->deps)) {
		static const char *values[] = {
			"Never", "Complete", "Error", "Always", NULL
		};

		s = "Complete";
		if (k->text != NULL) {
			for (i = 0; values[i] != NULL; i++)
				if (strcasecmp(k->text, values[i]) == 0)
					break;
			if (values[i] == NULL) {
				perr(p, k->line, "notification must be Never, "
				    "Complete, Error or Always, not \"%s\"",
				    shown(k->text, shownbuf,
				    sizeof(shownbuf)));
				goto out;
			}
			s = values[i];
		}
		put_string(p, j, "Notification", s, k->deps, k->line);
	}
	k = &kv[KW_NOTIFY_USER];
	if (k->text != NULL && *k->text != '\0' && WANT(k->deps) &&
	    put_string(p, j, "NotifyUser", k->text, k->deps, k->line) == -1)
		goto out;
	/* The batch condor_q -batch shows it in (condor_submit -batch-name
	 * gives one to a file that names none). */
	k = &kv[KW_BATCH_NAME];
	s = k->text != NULL && *k->text != '\0' ? k->text :
	    p->env->batch_name;
	if (s != NULL && *s != '\0' && WANT(k->deps) &&
	    put_string(p, j, "JobBatchName", s, k->deps, k->line) == -1)
		goto out;

	if (put_transfer(p, j, kv, first, standard, iwd,
	    kv[KW_INITIALDIR].deps) == -1)
		goto out;

	/* ImageSize in KiB: what the user says, else the executable's size. */
	k = &kv[KW_IMAGE_SIZE];
	if (WANT(k->deps)) {
		v = kib;
		if (k->text != NULL) {
			char *end;

			errno = 0;
			v = strtoll(k->text, &end, 10);
			if (strcasecmp(end, "k") == 0 ||
			    strcasecmp(end, "kb") == 0)
				end += strlen(end);
			else if (strcasecmp(end, "m") == 0 ||
			    strcasecmp(end, "mb") == 0) {
				v = v > LLONG_MAX / 1024 ? -1 : v * 1024;
				end += strlen(end);
			} else if (strcasecmp(end, "g") == 0 ||
			    strcasecmp(end, "gb") == 0) {
				v = v > LLONG_MAX / 1048576 ? -1 : v * 1048576;
				end += strlen(end);
			}
			if (errno != 0 || end == k->text || *end != '\0' ||
			    v <= 0) {
				perr(p, k->line, "image_size must be a "
				    "positive number of KiB (or with M or G), "
				    "not \"%s\"", shown(k->text, shownbuf,
				    sizeof(shownbuf)));
				goto out;
			}
		}
		put_int(p, j, "ImageSize", v, k->deps, k->line);
	}

	/* RequestMemory in MB; AllowedJobDuration in seconds. */
	if (WANT(kv[KW_REQUEST_MEMORY].deps) && put_amount(p, j, kv,
	    KW_REQUEST_MEMORY, "RequestMemory", memory_mb,
	    "a positive amount of memory (MB, or with KB, MB, GB or TB)") == -1)
		goto out;
	if (WANT(kv[KW_REQUEST_CPUS].deps) && put_amount(p, j, kv,
	    KW_REQUEST_CPUS, "RequestCpus", cpus,
	    "a whole number of cores, 1 or more") == -1)
		goto out;
	if (WANT(kv[KW_REQUEST_DISK].deps) && put_amount(p, j, kv,
	    KW_REQUEST_DISK, "RequestDisk", disk_kb,
	    "a positive amount of disk (KB, or with KB, MB, GB or TB)") == -1)
		goto out;
	/* RequestGpus only when some are asked for. */
	k = &kv[KW_REQUEST_GPUS];
	if (WANT(k->deps) && k->text != NULL && *k->text != '\0') {
		if ((v = gpus(k->text)) < 0) {
			perr(p, k->line, "request_gpus must be a whole number "
			    "of GPUs, 0 or more, not \"%s\"", shown(k->text,
			    shownbuf, sizeof(shownbuf)));
			goto out;
		}
		if (v > 0)
			put_int(p, j, "RequestGpus", v, k->deps, k->line);
	}
	if (WANT(kv[KW_ALLOWED_JOB_DURATION].deps) && put_amount(p, j, kv,
	    KW_ALLOWED_JOB_DURATION, "AllowedJobDuration", seconds,
	    "a positive number of seconds") == -1)
		goto out;

	/* Accounting starts at zero. */
	if (first) {
		static const char *zero[] = {
			"RemoteUserCpu", "RemoteSysCpu", "LocalUserCpu",
			"LocalSysCpu", "RemoteWallClockTime", NULL
		};

		put_int(p, j, "NumJobStarts", 0, 0, qline);
		put_int(p, j, "NumCkpts", 0, 0, qline);
		for (i = 0; zero[i] != NULL; i++)
			jattrs_put(p, j, zero[i], xstrdup("0.0"), 0, qline);
	}

	/* Custom attributes last: they may override anything above. */
	for (c = 0; c < ncv; c++) {
		k = &cv[c];
		if (!WANT(k->deps))
			continue;
		if (k->text == NULL) {
			perr(p, k->line, "+%s has no value", cnames[c]);
			goto out;
		}
		if (check_expr(p, cnames[c], k->text, k->line, NULL) == -1)
			goto out;
		if (jattrs_set(p, j, cnames[c], xstrdup(k->text), k->deps,
		    k->line, 1) == -1)
			goto out;
	}
	rc = 0;
out:
	free(env);
	free(iwd);
	buf_free(&b);
	buf_free(&refs);
	return rc;
}

static void
kvals_free(struct kval *kv, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(kv[i].text);
		kv[i].text = NULL;
	}
}

/*
 * The live definitions of every keyword and custom attribute, expanded
 * for PROC into KV and CV; when ONLY_DEPS, only those whose DEPS (from
 * the first proc) say they use $(Process).
 */
static int
expand_all(struct parser *p, size_t proc, struct kval *kv, struct kval *cv,
    struct def **cdefs, size_t ncv, int only_deps)
{
	struct def *d, item;
	size_t i, k;

	for (i = 0; i < NKW; i++) {
		if (only_deps && !(kv[i].deps & DEP_PROCESS))
			continue;
		/* A queue variable named as a keyword sets it, item by
		 * item (queue input, arguments from ...), as in HTCondor. */
		for (k = 0; k < p->nqvars; k++)
			if (strcmp(canonical(p->qvars[k]), kw_names[i]) == 0)
				break;
		if (k < p->nqvars) {
			memset(&item, 0, sizeof(item));
			item.value = p->qvals != NULL ? p->qvals[k] : "";
			item.line = p->stmts[p->nstmts - 1].line;
			free(kv[i].text);
			if (kval_expand(p, &item, proc, &kv[i]) == -1)
				return -1;
			kv[i].deps |= DEP_PROCESS;
			continue;
		}
		if ((d = def_find(p, kw_names[i])) == NULL)
			continue;
		free(kv[i].text);
		if (kval_expand(p, d, proc, &kv[i]) == -1)
			return -1;
	}
	for (i = 0; i < ncv; i++) {
		if (only_deps && !(cv[i].deps & DEP_PROCESS))
			continue;
		free(cv[i].text);
		if (kval_expand(p, cdefs[i], proc, &cv[i]) == -1)
			return -1;
	}
	return 0;
}

/* The items of a queue statement: NITEMS rows of NVARS values. */
struct items {
	char	**vars;		/* lower case */
	size_t	  nvars;
	char	**vals;		/* row after row */
	size_t	  nitems;
	size_t	  cap;
};

static void
items_free(struct items *it)
{
	size_t i;

	for (i = 0; i < it->nvars; i++)
		free(it->vars[i]);
	for (i = 0; i < it->nitems * it->nvars; i++)
		free(it->vals[i]);
	free(it->vars);
	free(it->vals);
	memset(it, 0, sizeof(*it));
}

/* One row from TEXT: split at commas and white space, the last variable
 * taking the rest of it. */
static void
items_add_row(struct items *it, const char *text)
{
	const char *s = text, *e;
	size_t v;

	if (it->nitems + 1 > it->cap) {
		it->cap = it->cap ? 2 * it->cap : 16;
		it->vals = xreallocarray(it->vals, it->cap * it->nvars,
		    sizeof(*it->vals));
	}
	for (v = 0; v < it->nvars; v++) {
		while (*s == ',' || isspace((unsigned char)*s))
			s++;
		if (v + 1 == it->nvars) {
			e = s + strlen(s);
			while (e > s && isspace((unsigned char)e[-1]))
				e--;
		} else
			e = s + strcspn(s, ", \t");
		it->vals[it->nitems * it->nvars + v] = xstrndup(s,
		    (size_t)(e - s));
		s = e;
	}
	it->nitems++;
}

/* Each line of TEXT (blank lines and # comments left out) a row. */
static void
items_add_lines(struct items *it, char *text)
{
	char *l, *save = NULL;

	for (l = strtok_r(text, "\n", &save); l != NULL;
	    l = strtok_r(NULL, "\n", &save)) {
		l = trim(l);
		if (*l != '\0' && *l != '#')
			items_add_row(it, l);
	}
}

/* Whether LIST (a "(...)" spanning lines, or what is left of the line)
 * is closed; its inside into *IN (NUL-terminated in place). */
static int
paren_list(char *list, char **in)
{
	char *close;

	list = trim(list);
	if (*list != '(') {
		*in = list;
		return 1;
	}
	if ((close = strrchr(list, ')')) == NULL || trim(close + 1)[0] != '\0')
		return 0;
	*close = '\0';
	*in = list + 1;
	return 1;
}

/* The rows of "from FILE" or "from ( lines )"; -1 with the error. */
static int
items_from(struct parser *p, struct items *it, char *rest, int line)
{
	char *in, *path, shownbuf[64];
	struct buf b;
	struct stat st;
	FILE *f;
	char chunk[8192];
	size_t n;
	int fd;

	if (*trim(rest) == '(') {
		if (!paren_list(rest, &in)) {
			perr(p, line, "queue ... from (: the list is not closed "
			    "with )");
			return -1;
		}
		items_add_lines(it, in);
		return 0;
	}
	rest = trim(rest);
	if (*rest == '\0') {
		perr(p, line, "queue ... from: a file or a ( list ) is "
		    "missing");
		return -1;
	}
	path = path_join(p->cwd, rest);
	memset(&st, 0, sizeof(st));
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (f = fdopen(fd, "r")) == NULL) {
		if (fd != -1 && !S_ISREG(st.st_mode))
			errno = EINVAL;
		perr(p, line, "queue ... from %s: %s", shown(rest, shownbuf,
		    sizeof(shownbuf)), errno == EINVAL ? "not a regular file" :
		    strerror(errno));
		if (fd != -1)
			close(fd);
		free(path);
		return -1;
	}
	free(path);
	buf_init(&b);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		buf_add(&b, chunk, n);
		if (b.len > SUBMIT_MAX_FILE)
			break;
	}
	fclose(f);
	if (b.len > SUBMIT_MAX_FILE || memchr(b.data, '\0', b.len) != NULL) {
		perr(p, line, "queue ... from %s: not a text file of at most "
		    "%d bytes", shown(rest, shownbuf, sizeof(shownbuf)),
		    SUBMIT_MAX_FILE);
		buf_free(&b);
		return -1;
	}
	for (n = 0; n < b.len; n++)
		if (b.data[n] == '\r')
			b.data[n] = '\n';
	items_add_lines(it, b.data);
	buf_free(&b);
	return 0;
}

/* The rows of "matching [files|dirs] GLOB...", sorted as glob sorts. */
static int
items_matching(struct parser *p, struct items *it, char *rest, int line)
{
	char *w, *save = NULL, *pat, *in;
	int want = 3;	/* 1 files, 2 directories */
	glob_t g;
	struct stat st;
	size_t i;

	/* The patterns may be a ( list ), over lines, after files|dirs. */
	rest = trim(rest);
	for (i = 0; i < 2; i++) {
		size_t n = strcspn(rest, " \t\n(");

		if ((n == 5 && strncasecmp(rest, "files", 5) == 0) ||
		    (n == 4 && strncasecmp(rest, "dirs", 4) == 0)) {
			want = tolower((unsigned char)rest[0]) == 'f' ? 1 : 2;
			rest = trim(rest + n);
		}
	}
	if (!paren_list(rest, &in)) {
		perr(p, line, "queue ... matching (: the list is not closed "
		    "with )");
		return -1;
	}
	for (w = strtok_r(in, " \t\n,", &save); w != NULL;
	    w = strtok_r(NULL, " \t\n,", &save)) {
		if (strcasecmp(w, "files") == 0 || strcasecmp(w, "dirs") == 0) {
			want = w[0] == 'f' || w[0] == 'F' ? 1 : 2;
			continue;
		}
		pat = path_join(p->cwd, w);
		memset(&g, 0, sizeof(g));
		if (glob(pat, 0, NULL, &g) == 0) {
			for (i = 0; i < g.gl_pathc; i++) {
				const char *m = g.gl_pathv[i];

				if (stat(m, &st) == -1 ||
				    !((want & 1 && !S_ISDIR(st.st_mode)) ||
				    (want & 2 && S_ISDIR(st.st_mode))))
					continue;
				/* As written: relative stays relative. */
				if (w[0] != '/' && strncmp(m, p->cwd,
				    strlen(p->cwd)) == 0 &&
				    m[strlen(p->cwd)] == '/')
					m += strlen(p->cwd) + 1;
				items_add_row(it, m);
				if (it->nitems > SUBMIT_MAX_PROCS)
					break;
			}
		}
		globfree(&g);
		free(pat);
	}
	return 0;
}

/*
 * The slice "start:stop:step" (LEN bytes at TEXT; each part may be
 * missing, start and stop may be negative) into SLICE: start, stop,
 * step, whether start and stop were given.  -1 if it is not one.
 */
static int
parse_slice(const char *text, size_t len, long long slice[5])
{
	char part[32], *end;
	size_t i, n;
	int k;

	slice[0] = 0;
	slice[1] = 0;
	slice[2] = 1;
	slice[3] = slice[4] = 0;
	for (k = 0, i = 0; k < 3; k++) {
		n = 0;
		while (i < len && text[i] != ':' && n + 1 < sizeof(part))
			part[n++] = text[i++];
		part[n] = '\0';
		if (i < len && text[i] != ':')
			return -1;
		if (*trim(part) != '\0') {
			errno = 0;
			slice[k] = strtoll(trim(part), &end, 10);
			if (*end != '\0' || errno != 0 ||
			    slice[k] < -SUBMIT_MAX_FILE ||
			    slice[k] > SUBMIT_MAX_FILE)
				return -1;
			if (k < 2)
				slice[3 + k] = 1;
		}
		if (i == len)
			break;
		i++;		/* the ':' */
	}
	if (i < len || slice[2] < 1)
		return -1;
	return 0;
}

/* Keep the rows SLICE picks, Python's way. */
static void
items_slice(struct items *it, const long long slice[5])
{
	long long n = (long long)it->nitems, start, stop, r;
	size_t kept = 0, v;

	start = slice[3] ? slice[0] : 0;
	stop = slice[4] ? slice[1] : n;
	if (start < 0)
		start += n;
	if (stop < 0)
		stop += n;
	start = start < 0 ? 0 : start > n ? n : start;
	stop = stop < 0 ? 0 : stop > n ? n : stop;
	for (r = 0; r < n; r++) {
		int keep = r >= start && r < stop &&
		    (r - start) % slice[2] == 0;

		for (v = 0; v < it->nvars; v++) {
			char *val = it->vals[(size_t)r * it->nvars + v];

			if (keep)
				it->vals[kept * it->nvars + v] = val;
			else
				free(val);
		}
		if (keep)
			kept++;
	}
	it->nitems = kept;
}

/* TEXT as an expression whose value is a whole number of jobs, 0 or
 * more (up to the limit), into *N; -1 if it is not one. */
static int
expr_count(const char *text, long long *n)
{
	char err[256];
	struct expr *e;
	struct value v;
	int rc = -1;

	if ((e = expr_parse(text, err, sizeof(err))) == NULL)
		return -1;
	expr_eval(e, NULL, NULL, &v);
	expr_free(e);
	if (v.type == VAL_INT && v.u.i >= 0 && v.u.i <= SUBMIT_MAX_PROCS) {
		*n = v.u.i;
		rc = 0;
	}
	value_free(&v);
	return rc;
}

/*
 * What follows "queue": [N] [VAR[,VAR...] in|from|matching ...].  *N is
 * the count; IT gets the items (none for a plain "queue N").
 */
static int
queue_args(struct parser *p, char *text, int line, long long *n,
    struct items *it)
{
	char *s = trim(text), *w, *kw = NULL, *rest = NULL, *vars, *in;
	const char *whole = s;
	char shownbuf[64], *v, *save = NULL;
	size_t len;
	long long slice[5];
	int rc, sliced = 0;

	*n = 1;
	if (*s == '\0')
		return 0;
	if (isdigit((unsigned char)*s) || *s == '-' || *s == '+') {
		len = strcspn(s, " \t");
		w = xstrndup(s, len);
		if (parse_long(w, n) == -1 || *n < 0) {
			perr(p, line, "the queue count must be a whole number "
			    "of jobs, 0 or more, not \"%s\"",
			    shown(w, shownbuf, sizeof(shownbuf)));
			free(w);
			return -1;
		}
		free(w);
		s = trim(s + len);
		if (*s == '\0')
			return 0;
	}
	/* The keyword: the first word that is one. */
	for (w = s; *w != '\0'; ) {
		len = strcspn(w, " \t,(");
		if ((len == 2 && strncasecmp(w, "in", 2) == 0) ||
		    (len == 4 && strncasecmp(w, "from", 4) == 0) ||
		    (len == 8 && strncasecmp(w, "matching", 8) == 0)) {
			kw = w;
			rest = w + len;
			break;
		}
		w += len;
		w += strspn(w, " \t,");
		if (*w == '(')
			break;
	}
	if (kw == NULL) {
		/* HTCondor's count is an expression: queue $(N) * 2. */
		if (expr_count(whole, n) == 0)
			return 0;
		perr(p, line, "queue takes [N] [VARS in|from|matching ...], "
		    "not \"%s\"", shown(s, shownbuf, sizeof(shownbuf)));
		return -1;
	}
	vars = xstrndup(s, (size_t)(kw - s));
	for (v = strtok_r(vars, " \t,", &save); v != NULL;
	    v = strtok_r(NULL, " \t,", &save)) {
		if (!macro_name_valid(v) || strlen(v) > AD_MAX_NAME) {
			perr(p, line, "queue: bad variable name \"%s\"",
			    shown(v, shownbuf, sizeof(shownbuf)));
			free(vars);
			return -1;
		}
		it->vars = xreallocarray(it->vars, it->nvars + 1,
		    sizeof(*it->vars));
		it->vars[it->nvars] = xstrdup(v);
		lower(it->vars[it->nvars++]);
	}
	free(vars);
	if (it->nvars == 0) {
		it->vars = xcalloc(1, sizeof(*it->vars));
		it->vars[it->nvars++] = xstrdup("item");
	}
	/* A Python slice of the items: [start:stop:step]. */
	rest = trim(rest);
	if (*rest == '[') {
		if ((w = strchr(rest, ']')) == NULL ||
		    parse_slice(rest + 1, (size_t)(w - rest - 1), slice) == -1) {
			perr(p, line, "queue: a slice is [start:stop:step], "
			    "whole numbers, step above 0");
			return -1;
		}
		sliced = 1;
		rest = w + 1;
	}
	switch (tolower((unsigned char)kw[0])) {
	case 'i':
		if (!paren_list(rest, &in)) {
			perr(p, line, "queue ... in (: the list is not closed "
			    "with )");
			return -1;
		}
		/* Items at commas, white space and line ends; one value
		 * an item whatever the variables. */
		for (v = strtok_r(in, ", \t\n", &save); v != NULL;
		    v = strtok_r(NULL, ", \t\n", &save))
			items_add_row(it, v);
		rc = 0;
		break;
	case 'f':
		rc = items_from(p, it, rest, line);
		break;
	default:
		rc = items_matching(p, it, rest, line);
		break;
	}
	if (rc == 0 && sliced)
		items_slice(it, slice);
	return rc;
}

/* "queue [N] [VARS in|from|matching ...]" at LINE: ARG is what follows
 * the word. */
static int
queue_stmt(struct parser *p, const char *arg, int line)
{
	struct kval kv[NKW], *cv = NULL;
	struct def **cdefs = NULL, cnt;
	char **cnames = NULL, *whole;
	const char *list;
	struct items it;
	struct stmt *st;
	struct kval q;
	size_t ncv, i, k, per;
	long long n = 1;
	int rc = -1, deps = 0;

	memset(kv, 0, sizeof(kv));
	memset(&cnt, 0, sizeof(cnt));
	memset(&it, 0, sizeof(it));
	/* A ( list (after a blank or a slice's ]) with no macro in it is
	 * taken as it is: a long one is not a value, bounded by
	 * SUBMIT_MAX_VALUE once expanded. */
	for (list = strchr(arg, '('); list != NULL && (list == arg ||
	    (list[-1] != ' ' && list[-1] != '\t' && list[-1] != ']'));
	    list = strchr(list + 1, '('))
		;
	if (list != NULL && strchr(list, '$') == NULL) {
		cnt.value = xstrndup(arg, (size_t)(list - arg));
		cnt.line = line;
		rc = kval_expand(p, &cnt, p->nprocs, &q);
		free(cnt.value);
		if (rc == -1)
			return -1;
		whole = xasprintf("%s %s", q.text != NULL ? q.text : "", list);
		free(q.text);
		q.text = whole;
		rc = -1;
	} else {
		cnt.value = (char *)arg;
		cnt.line = line;
		if (kval_expand(p, &cnt, p->nprocs, &q) == -1)
			return -1;
	}
	if (q.text != NULL && queue_args(p, q.text, line, &n, &it) == -1) {
		free(q.text);
		items_free(&it);
		return -1;
	}
	free(q.text);
	/* N jobs for each item. */
	per = (size_t)n;
	if (it.nvars > 0)
		n = it.nitems > 0 && per > 0 && it.nitems >
		    (size_t)SUBMIT_MAX_PROCS / per ? SUBMIT_MAX_PROCS + 1LL :
		    (long long)(it.nitems * per);
	if (n > (long long)(SUBMIT_MAX_PROCS - p->nprocs)) {
		perr(p, line, "too many jobs: a cluster holds at most %d",
		    SUBMIT_MAX_PROCS);
		items_free(&it);
		return -1;
	}
	p->qvars = it.vars;
	p->nqvars = it.nvars;
	p->qvals = it.nitems > 0 ? it.vals : NULL;
	p->qstep = p->qrow = 0;

	/* The custom attributes, in the order first defined. */
	ncv = p->ncustoms;
	if (ncv + NKW + 16 > AD_MAX_ATTRS) {
		perr(p, line, "too many custom attributes (%zu; at most %d "
		    "in all)", ncv, AD_MAX_ATTRS - NKW - 16);
		return -1;
	}
	cv = xcalloc(ncv + 1, sizeof(*cv));
	cdefs = xcalloc(ncv + 1, sizeof(*cdefs));
	cnames = xcalloc(ncv + 1, sizeof(*cnames));
	for (k = 0; k < ncv; k++) {
		cdefs[k] = &p->defs[p->customs[k]];
		cnames[k] = cdefs[k]->name;
	}

	if (p->nstmts == p->capstmts) {
		p->capstmts = p->capstmts ? 2 * p->capstmts : 16;
		p->stmts = xreallocarray(p->stmts, p->capstmts,
		    sizeof(*p->stmts));
	}
	st = &p->stmts[p->nstmts++];
	memset(st, 0, sizeof(*st));
	st->first = p->nprocs;
	st->count = (size_t)n;
	st->line = line;
	st->seq = p->seq;

	/* Even "queue 0" checks the description. */
	if (expand_all(p, st->first, kv, cv, cdefs, ncv, 0) == -1)
		goto out;
	if (build(p, kv, cv, cnames, ncv, st->first, 1, line, &st->base) == -1)
		goto out;
	for (i = 0; i < st->base.n; i++)
		deps |= st->base.a[i].deps;
	if (n > 1 && (deps & DEP_PROCESS)) {
		st->more = xcalloc((size_t)n - 1, sizeof(*st->more));
		for (k = 1; k < (size_t)n; k++) {
			/* Item k / per, step k % per. */
			p->qstep = per > 0 ? k % per : 0;
			p->qrow = per > 0 ? k / per : 0;
			if (it.nitems > 0)
				p->qvals = &it.vals[p->qrow * it.nvars];
			if (expand_all(p, st->first + k, kv, cv, cdefs, ncv,
			    1) == -1)
				goto out;
			if (build(p, kv, cv, cnames, ncv, st->first + k, 0,
			    line, &st->more[k - 1]) == -1)
				goto out;
		}
	}
	p->nprocs += (size_t)n;
	rc = 0;
out:
	p->qvars = p->qvals = NULL;
	p->nqvars = 0;
	items_free(&it);
	kvals_free(kv, NKW);
	kvals_free(cv, ncv);
	free(cv);
	free(cdefs);
	free(cnames);
	return rc;
}

static int	parse_line(struct parser *, char *, int);

/* The line numbers of the command line's settings start after this. */
static int
cmdline_base(struct parser *p)
{
	if (p->append_base == 0) {
		if (p->nincl == SUBMIT_MAX_INCLUDED) {
			perr(p, 1, "more than %d files included",
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
static int
append_lines(struct parser *p)
{
	char *copy, *t;
	size_t i;
	int r = 0, base;

	if (p->env->append == NULL || p->env->append[0] == NULL)
		return 0;
	if ((base = cmdline_base(p)) == -1)
		return -1;
	for (i = 0; p->env->append[i] != NULL && r == 0; i++) {
		copy = xstrdup(p->env->append[i]);
		t = trim(copy);
		if (strncasecmp(t, "queue", 5) == 0 &&
		    (t[5] == '\0' || isspace((unsigned char)t[5]))) {
			perr(p, base + (int)i + 1, "a queue statement cannot "
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
		lower(lname);
		if (strcmp(canonical(lname), cname) != 0) {
			buf_adds(&b, "$(");
			continue;
		}
		if ((close = strchr(s + n, ')')) == NULL) {
			buf_adds(&b, "$(");
			break;		/* no reference is closed after */
		}
		found = 1;
		colon = s[n] == ':' ? s + n + 1 : NULL;
		if ((d = def_find(p, cname)) != NULL)
			buf_adds(&b, d->value);
		else if (colon != NULL)
			buf_add(&b, colon, (size_t)(close - colon));
		s = close + 1;
		if (b.len > SUBMIT_MAX_VALUE) {
			perr(p, line, "the value of %s is longer than %d bytes",
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
	char *eq, *name, *value, shownbuf[64], *self;
	int kind, failed = 0;

	s = trim(s);
	if (*s == '\0' || *s == '#')
		return 0;
	if (strncasecmp(s, "queue", 5) == 0 &&
	    (s[5] == '\0' || isspace((unsigned char)s[5]))) {
		value = trim(s + 5);
		if (*value == '=') {
			perr(p, line, "queue is a statement (queue [N]), not a "
			    "setting");
			return -1;
		}
		if (append_lines(p) == -1)
			return -1;
		return queue_stmt(p, value, line);
	}
	if ((eq = strchr(s, '=')) == NULL) {
		perr(p, line, "expected NAME = value or queue [N], not \"%s\"",
		    shown(s, shownbuf, sizeof(shownbuf)));
		return -1;
	}
	*eq = '\0';
	name = trim(s);
	value = trim(eq + 1);
	if (*name == '\0') {
		perr(p, line, "a name is missing before '='");
		return -1;
	}
	if (name[0] == '+' || strncasecmp(name, "MY.", 3) == 0) {
		name = trim(name + (name[0] == '+' ? 1 : 3));
		if (!ad_name_valid(name)) {
			perr(p, line, "bad attribute name \"%s\"",
			    shown(name, shownbuf, sizeof(shownbuf)));
			return -1;
		}
		def_add(p, name, value, line, DEF_CUSTOM);
		return 0;
	}
	if (!macro_name_valid(name) || strlen(name) > AD_MAX_NAME) {
		perr(p, line, "bad name \"%s\" (letters, digits, '_' and '.')",
		    shown(name, shownbuf, sizeof(shownbuf)));
		return -1;
	}
	lower(name);
	if (strcmp(name, "process") == 0 || strcmp(name, "procid") == 0 ||
	    strcmp(name, "cluster") == 0 || strcmp(name, "clusterid") == 0) {
		perr(p, line, "$(%s) is set by condor_submit and cannot be "
		    "redefined", name);
		return -1;
	}
	kw = keyword_find(name);
	if (kw == NULL)
		kind = DEF_MACRO;
	else if (kw->kw < 0) {
		kind = DEF_IGNORED;
		pwarn(p, line, "%s is ignored: input and output files always "
		    "travel between the hosts", name);
	} else
		kind = DEF_KEYWORD;
	self = self_expand(p, canonical(name), value, line, &failed);
	if (failed)
		return -1;
	def_add(p, canonical(name), self != NULL ? self : value, line, kind);
	free(self);
	return 0;
}

/*
 * Whether attribute A of a statement's first proc belongs in the cluster
 * ad: no proc's value depends on $(Process), and every statement that
 * queues procs has it with the same text.  Statements usually build
 * their attributes in the same order, so position I is tried first.
 */
static int
in_cluster(struct parser *p, const struct jattr *a, size_t i)
{
	const struct jattrs *b;
	size_t s, k;

	if (a->deps & DEP_PROCESS)
		return 0;
	for (s = 0; s < p->nstmts; s++) {
		b = &p->stmts[s].base;
		if (p->stmts[s].count == 0)
			continue;
		k = i;
		if (k >= b->n || strcasecmp(b->a[k].name, a->name) != 0)
			for (k = 0; k < b->n; k++)
				if (strcasecmp(b->a[k].name, a->name) == 0)
					break;
		if (k == b->n || (b->a[k].deps & DEP_PROCESS) ||
		    strcmp(b->a[k].text, a->text) != 0)
			return 0;
	}
	return 1;
}

static void
sad_add(struct submit_ad *sa, const char *name, const char *text)
{
	sa->attrs = xreallocarray(sa->attrs, sa->n + 1, sizeof(*sa->attrs));
	sa->attrs[sa->n].name = xstrdup(name);
	sa->attrs[sa->n].text = xstrdup(text);
	sa->n++;
}

static int
sad_has(const struct submit_ad *sa, const char *name)
{
	size_t i;

	for (i = 0; i < sa->n; i++)
		if (strcasecmp(sa->attrs[i].name, name) == 0)
			return 1;
	return 0;
}

/* Split what the statements built into the cluster ad and proc ads. */
static void
assemble(struct parser *p)
{
	struct submit_result *r = p->res;
	const struct stmt *st;
	const struct jattrs *b;
	size_t s, i, k, proc = 0;
	char *own;

	for (s = 0; s < p->nstmts; s++)
		if (p->stmts[s].count > 0)
			break;
	if (s < p->nstmts) {
		b = &p->stmts[s].base;
		for (i = 0; i < b->n; i++)
			if (in_cluster(p, &b->a[i], i))
				sad_add(&r->cluster, b->a[i].name,
				    b->a[i].text);
	}
	/* How many were submitted: condor_q -batch counts those done. */
	own = xasprintf("%zu", p->nprocs);
	sad_add(&r->cluster, "TotalSubmitProcs", own);
	free(own);
	r->procs = xcalloc(p->nprocs + 1, sizeof(*r->procs));
	r->nprocs = p->nprocs;
	for (s = 0; s < p->nstmts; s++) {
		st = &p->stmts[s];
		b = &st->base;
		/* Which of the statement's attributes each proc carries. */
		own = xcalloc(b->n + 1, 1);
		for (i = 0, k = 0; i < b->n; i++) {
			if (b->a[i].deps & DEP_PROCESS)
				own[i] = 2;
			else if (k < r->cluster.n && strcasecmp(b->a[i].name,
			    r->cluster.attrs[k].name) == 0) {
				/* Usually in the same order: no search. */
				own[i] = 0;
				k++;
			} else
				own[i] = !sad_has(&r->cluster, b->a[i].name);
		}
		for (k = 0; k < st->count; k++, proc++) {
			struct submit_ad *pa = &r->procs[proc];

			for (i = 0; i < b->n; i++)
				if (own[i] == 1 || (own[i] == 2 && k == 0))
					sad_add(pa, b->a[i].name,
					    b->a[i].text);
			if (k == 0 || st->more == NULL)
				continue;
			for (i = 0; i < st->more[k - 1].n; i++)
				sad_add(pa, st->more[k - 1].a[i].name,
				    st->more[k - 1].a[i].text);
		}
		free(own);
	}
}

/* Settings after the last queue statement are errors; definitions of
 * unknown names that nothing used are likely typing mistakes. */
static int
check_unused(struct parser *p)
{
	size_t i;

	int last = p->nstmts > 0 ? p->stmts[p->nstmts - 1].line : 0;
	int lseq = p->nstmts > 0 ? p->stmts[p->nstmts - 1].seq : 0;

	/* A setting after the last queue statement applies to no job. */
	for (i = 0; i < p->ndefs; i++)
		if (p->defs[i].kind != DEF_MACRO && p->defs[i].seq > lseq) {
			perr(p, p->defs[i].line, "%s%s comes after the last "
			    "queue statement (line %d): it applies to no job",
			    p->defs[i].kind == DEF_CUSTOM ? "+" : "",
			    p->defs[i].name, where_line(last));
			return -1;
		}
	/* As HTCondor: a warning, and the line does nothing. */
	for (i = 0; i < p->ndefs; i++)
		if (p->defs[i].kind == DEF_MACRO && !p->defs[i].used)
			pwarn(p, p->defs[i].line, "unknown command \"%s\", and "
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
		jattrs_free(&p->stmts[i].base);
		if (p->stmts[i].more != NULL) {
			for (k = 0; k + 1 < p->stmts[i].count; k++)
				jattrs_free(&p->stmts[i].more[k]);
			free(p->stmts[i].more);
		}
	}
	free(p->stmts);
	free(p->exe);
	free(p->cwd);
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

static int	parse_text(struct parser *, const char *, size_t, int, int *);

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
		if (strlen(c) > AD_MAX_NAME || !macro_name_valid(c)) {
			perr(p, line, "if defined: bad name \"%s\"",
			    shown(c, shownbuf, sizeof(shownbuf)));
			return -1;
		}
		snprintf(name, sizeof(name), "%s", c);
		lower(name);
		if ((d = def_find(p, canonical(name))) != NULL)
			d->used = 1;
		*out = (d != NULL) != neg;
		return 0;
	}
	buf_init(&b);
	p->nsubst = 0;
	if (expand(p, c, line, p->nprocs, 0, &deps, &b) == -1) {
		buf_free(&b);
		return -1;
	}
	/* A value that expands to nothing is false (if $(UNSET:)). */
	if (*trim(b.data) == '\0')
		v.type = VAL_BOOL, v.u.b = 0;
	else if (strcasecmp(trim(b.data), "yes") == 0 ||
	    strcasecmp(trim(b.data), "no") == 0)
		v.type = VAL_BOOL, v.u.b = tolower((unsigned char)
		    *trim(b.data)) == 'y';
	else if ((e = expr_parse(b.data, err, sizeof(err))) == NULL) {
		perr(p, line, "if: \"%s\" is not a condition: %s",
		    shown(b.data, shownbuf, sizeof(shownbuf)), err);
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

	s = trim(s);
	if ((rest = word_is(s, "if")) != NULL && *trim((char *)rest) != '=') {
		if (ifs->n == SUBMIT_MAX_IFS) {
			perr(p, line, "if nested more than %d deep",
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
	    *trim((char *)rest) != '=') {
		if (ifs->n == 0) {
			perr(p, line, "elif without if");
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
			perr(p, line, "else without if");
			return -1;
		}
		ifs->taking[ifs->n - 1] = !ifs->taken[ifs->n - 1];
		ifs->taken[ifs->n - 1] = 1;
		return 1;
	}
	if (strcasecmp(s, "endif") == 0) {
		if (ifs->n == 0) {
			perr(p, line, "endif without if");
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

		rest = trim((char *)rest);
		if (*rest != ':')
			return 0;	/* "include = x": a macro */
		file = trim((char *)rest + 1);
		if (depth + 1 > SUBMIT_MAX_INCLUDES) {
			perr(p, line, "include nested more than %d deep (a "
			    "loop?)", SUBMIT_MAX_INCLUDES);
			return -1;
		}
		if (p->nincl == SUBMIT_MAX_INCLUDED) {
			perr(p, line, "more than %d files included",
			    SUBMIT_MAX_INCLUDED);
			return -1;
		}
		path = path_join(p->cwd, file);
		buf_init(&text);
		if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) ==
		    -1 || fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
		    st.st_size > SUBMIT_MAX_FILE) {
			perr(p, line, "include %s: %s", shown(file, shownbuf,
			    sizeof(shownbuf)), fd == -1 ? strerror(errno) :
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
		r = parse_text(p, text.data, text.len, depth + 1, &sub);
		buf_free(&text);
		return r == -1 ? -1 : 1;
	}
	return 0;
}

/* TEXT, line by line, into P; *LINENO the lines read. */
static int
parse_text(struct parser *p, const char *text, size_t len, int depth,
    int *lineno)
{
	struct ifs ifs;
	struct buf line;
	size_t pos = 0, n, scanned = 0;
	int start = 1, cont = 0, r = -1, c, inlist = 0;

	memset(&ifs, 0, sizeof(ifs));
	buf_init(&line);
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);

		n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		(*lineno)++;
		if (memchr(text + pos, '\0', n) != NULL) {
			perr(p, *lineno, "a NUL byte in the line");
			goto out;
		}
		if (!cont)
			start = *lineno;
		buf_add(&line, text + pos, n);
		pos += n + (nl != NULL);
		if (line.len > 0 && line.data[line.len - 1] == '\r')
			line.data[--line.len] = '\0';
		cont = line.len > 0 && line.data[line.len - 1] == '\\';
		if (cont) {
			line.data[--line.len] = '\0';
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
		perr(p, ifs.line[ifs.n - 1], "if without endif");
		goto out;
	}
	r = 0;
out:
	buf_free(&line);
	return r;
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
	p.exe_relinked = -1;
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (env->cwd != NULL)
		p.cwd = xstrdup(env->cwd);
	else if (getcwd(cwd, sizeof(cwd)) != NULL)
		p.cwd = xstrdup(cwd);
	else {
		perr(&p, 1, "cannot find the current directory: %s",
		    strerror(errno));
		parser_free(&p);
		return -1;
	}
	if (len > SUBMIT_MAX_FILE) {
		perr(&p, 1, "the file is longer than %d bytes",
		    SUBMIT_MAX_FILE);
		parser_free(&p);
		return -1;
	}

	/* The command line's settings are defined before the file's first
	 * line too, as HTCondor has them, so that "if defined" sees them. */
	if (append_lines(&p) == -1)
		goto out;
	if (parse_text(&p, text, len, 0, &lineno) == -1)
		goto out;
	/* condor_submit -queue: the statement of a file that has none. */
	if (env->queue != NULL) {
		char *q = xstrdup(env->queue);

		if (p.nstmts > 0) {
			perr(&p, p.stmts[0].line, "-queue was given, but the "
			    "file has a queue statement of its own");
			free(q);
			goto out;
		}
		p.seq++;
		for (n = 0; env->append != NULL && env->append[n] != NULL;
		    n++)
			;
		rc = (base = cmdline_base(&p)) == -1 ||
		    append_lines(&p) == -1 ? -1 : queue_stmt(&p, q,
		    base + (int)n + 1);
		free(q);
		if (rc == -1)
			goto out;
		rc = -1;
	}
	if (p.nstmts == 0) {
		perr(&p, lineno > 0 ? lineno : 1, "no queue statement: "
		    "nothing to submit");
		goto out;
	}
	if (p.nprocs == 0) {
		perr(&p, p.stmts[p.nstmts - 1].line, "nothing to submit: "
		    "every queue statement asks for 0 jobs");
		goto out;
	}
	if (check_unused(&p) == -1)
		goto out;
	assemble(&p);
	res->executable = p.exe;
	p.exe = NULL;
	rc = 0;
out:
	parser_free(&p);
	return rc;
}

void
submit_result_free(struct submit_result *res)
{
	size_t i, k;

	for (i = 0; i < res->cluster.n; i++) {
		free(res->cluster.attrs[i].name);
		free(res->cluster.attrs[i].text);
	}
	free(res->cluster.attrs);
	for (k = 0; k < res->nprocs; k++) {
		for (i = 0; i < res->procs[k].n; i++) {
			free(res->procs[k].attrs[i].name);
			free(res->procs[k].attrs[i].text);
		}
		free(res->procs[k].attrs);
	}
	free(res->procs);
	free(res->executable);
	for (i = 0; i < res->nwarnings; i++)
		free(res->warnings[i]);
	free(res->warnings);
	memset(res, 0, sizeof(*res));
}

static int
ad_add_submit(struct ad *ad, const struct submit_ad *sa, int cluster,
    char *err, size_t errlen)
{
	char *t;
	size_t i;
	int rc;

	for (i = 0; i < sa->n; i++) {
		t = submit_expand_cluster(sa->attrs[i].text, cluster);
		rc = ad_set_expr(ad, sa->attrs[i].name,
		    t ? t : sa->attrs[i].text, err, errlen);
		free(t);
		if (rc == -1)
			return -1;
	}
	return 0;
}

struct ad *
submit_proc_ad(const struct submit_result *res, size_t i, int cluster,
    char *err, size_t errlen)
{
	struct ad *ad;

	if (i >= res->nprocs) {
		snprintf(err, errlen, "no proc %zu", i);
		return NULL;
	}
	ad = ad_new();
	if (ad_add_submit(ad, &res->cluster, cluster, err, errlen) == -1 ||
	    ad_add_submit(ad, &res->procs[i], cluster, err, errlen) == -1) {
		ad_free(ad);
		return NULL;
	}
	ad_set_int(ad, "ClusterId", cluster);
	ad_set_int(ad, "ProcId", (long long)i);
	return ad;
}

char *
submit_expand_cluster(const char *text, int cluster)
{
	static const char macro[] = SUBMIT_CLUSTER_MACRO;
	const char *s, *hit;
	struct buf b;

	if (strstr(text, macro) == NULL)
		return NULL;
	buf_init(&b);
	for (s = text; (hit = strstr(s, macro)) != NULL;
	    s = hit + sizeof(macro) - 1) {
		buf_add(&b, s, (size_t)(hit - s));
		buf_printf(&b, "%d", cluster);
	}
	buf_adds(&b, s);
	return buf_take(&b);
}

/* Read LEN bytes at OFF exactly; -1 on a short file or an error. */
static int
read_at(int fd, void *buf, size_t len, off_t off)
{
	ssize_t n;
	size_t done = 0;

	while (done < len) {
		n = pread(fd, (char *)buf + done, len - done,
		    off + (off_t)done);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

int
submit_elf_relinked(const char *path, char *err, size_t errlen)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh0, *sh = NULL;
	struct stat st;
	char *names = NULL;
	size_t shnum, shstrndx, i;
	int fd, rc = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		goto out;
	}
	if (read_at(fd, &eh, sizeof(eh), 0) == -1 ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
		snprintf(err, errlen, "%s: not an ELF file", path);
		goto out;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff == 0 ||
	    eh.e_shoff > (Elf64_Off)st.st_size) {
		snprintf(err, errlen, "%s: not a 64-bit little-endian ELF file "
		    "with section headers", path);
		goto out;
	}
	/* Counts too large for the header live in section 0. */
	if (read_at(fd, &sh0, sizeof(sh0), (off_t)eh.e_shoff) == -1)
		goto bad;
	shnum = eh.e_shnum ? eh.e_shnum : sh0.sh_size;
	shstrndx = eh.e_shstrndx == SHN_XINDEX ? sh0.sh_link : eh.e_shstrndx;
	if (shnum == 0 || shnum > (size_t)st.st_size / sizeof(Elf64_Shdr) ||
	    shstrndx >= shnum)
		goto bad;
	sh = xcalloc(shnum, sizeof(*sh));
	if (read_at(fd, sh, shnum * sizeof(*sh), (off_t)eh.e_shoff) == -1)
		goto bad;
	if (sh[shstrndx].sh_offset > (Elf64_Off)st.st_size ||
	    sh[shstrndx].sh_size > (Elf64_Off)st.st_size -
	    sh[shstrndx].sh_offset || sh[shstrndx].sh_size == 0)
		goto bad;
	names = xmalloc(sh[shstrndx].sh_size + 1);
	if (read_at(fd, names, sh[shstrndx].sh_size,
	    (off_t)sh[shstrndx].sh_offset) == -1)
		goto bad;
	names[sh[shstrndx].sh_size] = '\0';
	rc = 0;
	for (i = 0; i < shnum; i++)
		if (sh[i].sh_name < sh[shstrndx].sh_size &&
		    strcmp(names + sh[i].sh_name, RELINKED_SECTION) == 0) {
			rc = 1;
			break;
		}
	goto out;
bad:
	snprintf(err, errlen, "%s: malformed ELF section headers", path);
	rc = -1;
out:
	free(sh);
	free(names);
	close(fd);
	return rc;
}
