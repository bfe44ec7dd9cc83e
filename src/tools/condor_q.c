/*
 * condor_q: show the job queue of this host's schedd, of another host's,
 * or of every schedd in the pool; explain why idle jobs do not run.  See
 * condor_q(1).
 *
 * Everything printed comes from ads: any attribute may be missing or of
 * the wrong type, and strings may hold anything; control characters
 * never reach the terminal.
 */
#include <ctype.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ad.h"
#include "buf.h"
#include "collector_client.h"
#include "config.h"
#include "daemon.h"
#include "expr.h"
#include "locate.h"
#include "log.h"
#include "rpcutil.h"
#include "schedd_client.h"
#include "slot.h"
#include "xalloc.h"

#define MAX_CLAUSES	64	/* clauses of a Requirements analysed */
#define MAX_REFUSING	20	/* machines whose refusal is detailed */
#define WAIT_HORIZON	(7 * 24 * 3600)	/* seconds looked ahead */

enum format {
	FMT_TABLE,
	FMT_LONG,
	FMT_JSON,
	FMT_AF,
	FMT_ANALYZE,
	FMT_HOLD,	/* -hold: held jobs and why */
	FMT_RUN,	/* -run: running jobs and where */
	FMT_TOTALS,	/* -totals: the footer alone */
	FMT_BATCH,	/* -batch: HTCondor's view, a line a batch */
	FMT_DAG,	/* -dag: node jobs under their DAG job */
};

/* What the table needs of each job. */
/* -json: no object printed yet (one array for every schedd). */
static int json_first = 1;

static const char *const table_attrs[] = {
	"ClusterId", "ProcId", "Owner", "QDate", "RemoteUserCpu", "JobStatus",
	"UserPrio", "ImageSize", "Cmd", "Args", "NumJobStarts", "NumCkpts",
	NULL
};

static const char header[] =
    " ID      OWNER            SUBMITTED     CPU_USAGE ST PRI SIZE CMD";
static const char *const dag_attrs[] = {
	"ClusterId", "ProcId", "Owner", "QDate", "RemoteUserCpu", "JobStatus",
	"UserPrio", "ImageSize", "Cmd", "Args", "DAGManJobId", "DAGNodeName",
	"NumJobStarts", "NumCkpts", NULL
};
static const char dag_header[] =
    " ID      OWNER/NODENAME   SUBMITTED     CPU_USAGE ST PRI SIZE CMD";
static const char *const hold_attrs[] = {
	"ClusterId", "ProcId", "Owner", "EnteredCurrentStatus", "HoldReason",
	"JobStatus", NULL
};
static const char hold_header[] =
    " ID      OWNER          HELD_SINCE  HOLD_REASON";
static const char *const run_attrs[] = {
	"ClusterId", "ProcId", "Owner", "QDate", "JobStartDate",
	"RemoteHost", "JobStatus", NULL
};
static const char *const batch_attrs[] = {
	"ClusterId", "ProcId", "Owner", "QDate", "JobStatus", "JobBatchName",
	"TotalSubmitProcs", "JobMaterializeNextProcId", NULL
};
static const char batch_header[] =
    "OWNER      BATCH_NAME           SUBMITTED   DONE   RUN   IDLE   HOLD  "
    "TOTAL JOB_IDS";
static const char run_header[] =
    " ID      OWNER            SUBMITTED     RUN_TIME HOST(S)";

static int
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: condor_q [-l | -json | -af[:jlhVr,tng] ATTR... | "
	    "-format FMT ATTR... |\n"
	    "                -analyze | -hold | -run | -totals | -batch | "
	    "-nobatch | -dag]\n"
	    "                [-global | -name "
	    "HOST]\n"
	    "                [-constraint EXPR] [OWNER | C | C.P]...\n"
	    "  -l               every attribute of each job\n"
	    "  -af ATTR...      the named attributes, one job a line\n"
	    "  -af:jlh ATTR...  the same with the job id, labels, a header\n"
	    "  -format FMT ATTR printf-like: -format '%%d.' ClusterId "
	    "-format '%%d\\n' ProcId\n"
	    "  -analyze         why each idle job is not running\n"
	    "  -hold            held jobs, since when and why\n"
	    "  -run             running jobs, for how long and where\n"
	    "  -totals          the counts alone\n"
	    "  -batch           a line a batch (HTCondor's view); -nobatch: "
	    "one a job\n"
	    "  -dag             node jobs under the DAG job that runs them\n"
	    "  -json            every attribute, as a JSON array\n"
	    "  -global          the queues of every schedd in the pool\n"
	    "  -name HOST       the queue of HOST's schedd\n"
	    "  -constraint EXPR only jobs for which EXPR is TRUE\n"
	    "  OWNER, C, C.P    only this user's jobs, this cluster, this "
	    "job\n");
	return fp == stdout ? 0 : 1;
}

static long long
get_int(const struct ad *ad, const char *name, long long dflt)
{
	long long v;

	return ad_get_int(ad, name, &v) == 0 ? v : dflt;
}

static double
get_real(const struct ad *ad, const char *name, double dflt)
{
	double v;

	return ad_get_real(ad, name, &v) == 0 ? v : dflt;
}

/*
 * The status the table shows: JobStatus, but Condor 4's U (0) for an
 * idle job that never started and has no checkpoint.  The ad itself
 * says 1 (Idle) for both, as HTCondor's does.
 */
static long long
table_status(const struct ad *ad)
{
	long long st = get_int(ad, "JobStatus", -1);

	if ((st == 0 || st == 1) && get_int(ad, "NumJobStarts", 0) == 0 &&
	    get_int(ad, "NumCkpts", 0) == 0)
		return 0;
	return st == 0 ? 1 : st;
}

static void
print_row_as(const struct ad *ad, const char *who)
{
	char submitted[32], cpu[32], *owner, *cmd;
	long long prio;
	double size;

	job_format_time(ad, "QDate", submitted, sizeof(submitted));
	job_format_cpu(get_real(ad, "RemoteUserCpu", 0), cpu, sizeof(cpu));
	owner = who != NULL ? xstrdup(who) : job_value_text(ad, "Owner");
	cmd = job_command(ad);
	prio = get_int(ad, "UserPrio", 0);
	if (prio < -999 || prio > 999)
		prio = 0;
	size = get_real(ad, "ImageSize", 0) / 1024.0;
	if (!(size >= 0) || size > 1e7)
		size = 0;
	printf("%4lld.%-3lld %-14.14s %11s %13s %-2s %-3lld %-4.1f %s\n",
	    get_int(ad, "ClusterId", 0), get_int(ad, "ProcId", 0), owner,
	    submitted, cpu, job_status_letter(table_status(ad)),
	    prio, size, cmd);
	free(owner);
	free(cmd);
}

static void
print_row(const struct ad *ad)
{
	print_row_as(ad, NULL);
}

/*
 * -dag: a job, then the node jobs of the DAG it runs (DAGManJobId is its
 * cluster) as " |-NODE", a sub-DAG's under it one step further in.
 * Node jobs whose DAG job is not shown are shown on their own.
 */
static void
print_dag_tree(struct ad **jobs, int n, int i, int depth,
    unsigned char *shown)
{
	long long c = get_int(jobs[i], "ClusterId", 0);
	char who[64], *node;
	int k;

	shown[i] = 1;
	if (depth == 0)
		print_row(jobs[i]);
	else {
		node = job_value_text(jobs[i], "DAGNodeName");
		snprintf(who, sizeof(who), "%*s|-%s", depth - 1, "", node);
		print_row_as(jobs[i], who);
		free(node);
	}
	if (depth > 20)
		return;
	for (k = 0; k < n; k++)
		if (!shown[k] && get_int(jobs[k], "DAGManJobId", -1) == c)
			print_dag_tree(jobs, n, k, depth + 1, shown);
}

static void
print_dags(struct ad **jobs, int n)
{
	unsigned char *shown = xcalloc((size_t)n + 1, 1);
	int i, k;

	for (i = 0; i < n; i++) {
		long long d = get_int(jobs[i], "DAGManJobId", -1);

		if (shown[i])
			continue;
		/* A node job whose DAG job is in the list comes under it. */
		for (k = 0; k < n && d >= 0; k++)
			if (get_int(jobs[k], "ClusterId", 0) == d)
				break;
		if (d >= 0 && k < n)
			continue;
		print_dag_tree(jobs, n, i, 0, shown);
	}
	for (i = 0; i < n; i++)
		if (!shown[i])
			print_dag_tree(jobs, n, i, 0, shown);
	free(shown);
}

static void
print_hold(const struct ad *ad)
{
	char since[32], *owner, *why;

	job_format_time(ad, "EnteredCurrentStatus", since, sizeof(since));
	owner = job_value_text(ad, "Owner");
	why = job_value_text(ad, "HoldReason");
	printf("%4lld.%-3lld %-14.14s %11s %s\n", get_int(ad, "ClusterId", 0),
	    get_int(ad, "ProcId", 0), owner, since, why);
	free(owner);
	free(why);
}

static void
print_run(const struct ad *ad, time_t now)
{
	char submitted[32], run[32], *owner, *host;
	long long start = get_int(ad, "JobStartDate", 0);

	job_format_time(ad, "QDate", submitted, sizeof(submitted));
	job_format_cpu(start > 0 && now > start ? (double)(now - start) : 0,
	    run, sizeof(run));
	owner = job_value_text(ad, "Owner");
	host = job_value_text(ad, "RemoteHost");
	printf("%4lld.%-3lld %-14.14s %11s %13s %s\n",
	    get_int(ad, "ClusterId", 0), get_int(ad, "ProcId", 0), owner,
	    submitted, run, host);
	free(owner);
	free(host);
}

/*
 * -batch: the jobs (sorted by id) a line a batch, as HTCondor shows
 * them: one JobBatchName of one owner, else one cluster.  DONE is what
 * was submitted (TotalSubmitProcs) less what is still in the queue and
 * what waits to be materialized (TotalSubmitProcs less
 * JobMaterializeNextProcId, of a cluster with max_materialize).
 */
static void
print_count(long long n, const char *end)
{
	if (n > 0)
		printf("%6lld%s", n, end);
	else
		printf("%6s%s", "_", end);
}

static void
print_batches(struct ad **jobs, int n)
{
	char *used = xcalloc((size_t)n + 1, 1), *owner, *name, *o2, *n2;
	char submitted[32], label[64];
	long long st, run, idle, hold, total, inq, c, last_c, waiting, next;
	long long first_c, first_p, last_p;
	int i, k;

	for (i = 0; i < n; i++) {
		if (used[i])
			continue;
		owner = job_value_text(jobs[i], "Owner");
		if (ad_get_string(jobs[i], "JobBatchName", &name) == -1)
			name = NULL;
		run = idle = hold = total = inq = waiting = 0;
		last_c = -1;
		first_c = get_int(jobs[i], "ClusterId", 0);
		first_p = get_int(jobs[i], "ProcId", 0);
		last_p = first_p;
		c = first_c;
		job_format_time(jobs[i], "QDate", submitted, sizeof(submitted));
		for (k = i; k < n; k++) {
			if (used[k])
				continue;
			/* Sorted by id: a cluster's jobs are together. */
			if (name == NULL &&
			    get_int(jobs[k], "ClusterId", 0) != first_c)
				break;
			o2 = job_value_text(jobs[k], "Owner");
			if (ad_get_string(jobs[k], "JobBatchName", &n2) == -1)
				n2 = NULL;
			c = get_int(jobs[k], "ClusterId", 0);
			if (strcmp(o2, owner) != 0 || (name == NULL) !=
			    (n2 == NULL) || (name != NULL ? strcmp(name, n2) :
			    c != first_c) != 0) {
				free(o2);
				free(n2);
				continue;
			}
			free(o2);
			free(n2);
			used[k] = 1;
			inq++;
			st = get_int(jobs[k], "JobStatus", -1);
			if (st == 2 || st == 7)
				run++;
			else if (st == 0 || st == 1)
				idle++;
			else if (st == 5)
				hold++;
			if (c != last_c) {
				/* A cluster's procs come together: count it
				 * once. */
				total += get_int(jobs[k], "TotalSubmitProcs", 0);
				next = get_int(jobs[k],
				    "JobMaterializeNextProcId", -1);
				if (next >= 0 && next < get_int(jobs[k],
				    "TotalSubmitProcs", 0))
					waiting += get_int(jobs[k],
					    "TotalSubmitProcs", 0) - next;
				last_c = c;
			}
			last_p = get_int(jobs[k], "ProcId", 0);
		}
		if (total < inq + waiting)
			total = inq + waiting;
		if (name != NULL)
			snprintf(label, sizeof(label), "%s", name);
		else
			snprintf(label, sizeof(label), "ID: %lld", first_c);
		printf("%-10.10s %-20.20s %11s", owner, label, submitted);
		print_count(total - inq - waiting, " ");
		print_count(run, " ");
		print_count(idle, " ");
		print_count(hold, " ");
		printf("%6lld ", total);
		if (last_c == get_int(jobs[i], "ClusterId", 0) && inq > 1)
			printf("%lld.%lld-%lld\n", first_c, first_p, last_p);
		else if (inq > 1)
			printf("%lld.%lld ... %lld.%lld\n", first_c, first_p,
			    last_c, last_p);
		else
			printf("%lld.%lld\n", first_c, first_p);
		free(owner);
		free(name);
	}
	free(used);
}

static void
print_footer(struct ad **jobs, int n)
{
	long count[8];
	long long st;
	int i;

	memset(count, 0, sizeof(count));
	for (i = 0; i < n; i++) {
		st = table_status(jobs[i]);
		if (st >= 0 && st < 8)
			count[st]++;
	}
	printf("\n%d jobs; %ld unexpanded, %ld idle, %ld running, "
	    "%ld suspended, %ld held\n", n, count[0], count[1], count[2],
	    count[7], count[5]);
}

/*
 * -analyze.
 */
struct machines {
	struct ad	**ads;
	int		 n;
	int		 fetched;	/* -1: the collector failed */
};

/* Is V exactly TRUE (a boolean true or a non-zero number)? */
static int
eval_true(const struct expr *e, const struct ad *my, const struct ad *target)
{
	struct value v;
	int t;

	expr_eval(e, my, target, &v);
	t = value_is_true(&v);
	value_free(&v);
	return t;
}

/* The machine's side: its Requirements, else its START; none accepts. */
static int
machine_accepts(const struct ad *machine, const struct ad *job)
{
	const char *name = "Requirements";
	struct value v;
	int t;

	if (ad_lookup(machine, name) == NULL) {
		name = "START";
		if (ad_lookup(machine, name) == NULL)
			return 1;
	}
	ad_eval(machine, job, name, &v);
	t = value_is_true(&v);
	value_free(&v);
	return t;
}

static void
machines_fetch(struct machines *m)
{
	char err[1024];

	if (m->fetched)
		return;
	m->n = collector_query(ADTYPE_STARTD, NULL, &m->ads, err, sizeof(err));
	if (m->n < 0) {
		log_warnx("cannot ask the collector at %s for machines: %s",
		    param("COLLECTOR_HOST") ? param("COLLECTOR_HOST") : "?",
		    err);
		m->n = 0;
		m->ads = NULL;
		m->fetched = -1;
		return;
	}
	m->fetched = 1;
}

/*
 * The resources the job requests that no machine has as much of, one
 * line each ("RequestMemory = 100000 MiB: no machine has that much
 * Memory (largest: 8192)").  A partitionable slot counts with its whole
 * (TotalSlotCpus...), not only what is free now.  A request may be an
 * expression of the machine's attributes: it is evaluated against each
 * machine, as the negotiator does, and one that gives no number against
 * any machine is said so.  Returns how many.
 */
static int
analyze_resources(const struct ad *job, struct machines *m)
{
	static const struct {
		const char *req, *attr, *total, *unit;
	} res[] = {
		{ "RequestCpus", "Cpus", "TotalSlotCpus", "" },
		{ "RequestMemory", "Memory", "TotalSlotMemory", " MiB" },
		{ "RequestDisk", "Disk", "TotalSlotDisk", " KiB" },
		{ "RequestGpus", "GPUs", "TotalSlotGPUs", "" },
	};
	struct slot_res want;
	long long asked[4], least[4], have, largest;
	char why[256], first_why[256];
	size_t r;
	int i, bad = 0, evaluated = 0, fits;

	if (m->n == 0)
		return 0;
	first_why[0] = '\0';
	for (r = 0; r < 4; r++)
		least[r] = -1;
	for (i = 0; i < m->n; i++) {
		if (slot_request(job, m->ads[i], &want, why,
		    sizeof(why)) == -1) {
			if (first_why[0] == '\0')
				snprintf(first_why, sizeof(first_why), "%s",
				    why);
			continue;
		}
		evaluated++;
		asked[0] = want.cpus;
		asked[1] = want.memory;
		asked[2] = want.disk;
		asked[3] = want.gpus;
		for (r = 0; r < 4; r++)
			if (least[r] == -1 || asked[r] < least[r])
				least[r] = asked[r];
	}
	if (evaluated == 0) {
		printf("%s against every machine: the job matches none\n",
		    first_why);
		return 1;
	}
	for (r = 0; r < sizeof(res) / sizeof(res[0]); r++) {
		if (ad_lookup(job, res[r].req) == NULL || least[r] <= 0)
			continue;
		largest = 0;
		fits = 0;
		for (i = 0; i < m->n; i++) {
			if (ad_get_int(m->ads[i], res[r].total, &have) == -1 &&
			    ad_get_int(m->ads[i], res[r].attr, &have) == -1)
				have = 0;
			if (have > largest)
				largest = have;
			if (slot_request(job, m->ads[i], &want, why,
			    sizeof(why)) == 0 && (r == 0 ? want.cpus :
			    r == 1 ? want.memory : r == 2 ? want.disk :
			    want.gpus) <= have)
				fits = 1;
		}
		asked[r] = least[r];
		if (fits)
			continue;
		printf("%s = %lld%s: no machine has that much %s (largest: "
		    "%lld)\n", res[r].req, asked[r], res[r].unit, res[r].attr,
		    largest);
		bad++;
	}
	return bad;
}

/* Print B's text as one line, any control character as '?'. */
static void
put_line(struct buf *b)
{
	size_t i;

	for (i = 0; i < b->len; i++)
		putchar((unsigned char)b->data[i] < 0x20 ||
		    b->data[i] == 0x7f ? '?' : b->data[i]);
	putchar('\n');
}

static void
put_value(const struct value *v, struct buf *b)
{
	if (v->type == VAL_UNDEFINED)
		buf_adds(b, "undefined");
	else
		value_print(v, b);
}

/*
 * How A stands to B: "<", "==" or ">" for numbers, "==" or "!=" for
 * strings (compared as == does, regardless of case) and booleans; NULL
 * if they do not compare.
 */
static const char *
relation(const struct value *a, const struct value *b)
{
	double x, y;

	if ((a->type == VAL_INT || a->type == VAL_REAL) &&
	    (b->type == VAL_INT || b->type == VAL_REAL)) {
		x = a->type == VAL_INT ? (double)a->u.i : a->u.r;
		y = b->type == VAL_INT ? (double)b->u.i : b->u.r;
		return x < y ? "<" : x > y ? ">" : "==";
	}
	if (a->type == VAL_STRING && b->type == VAL_STRING)
		return strcasecmp(a->u.s, b->u.s) == 0 ? "==" : "!=";
	if (a->type == VAL_BOOL && b->type == VAL_BOOL)
		return (a->u.b != 0) == (b->u.b != 0) ? "==" : "!=";
	return NULL;
}

/*
 * Clause C of the machine's policy, false for JOB: its operands and
 * their values ("KeyboardIdle 42 < 900 (15 * 60)"), or the clause and
 * the values of the attributes it names.
 */
static void
clause_describe(const struct expr *c, const struct ad *machine,
    const struct ad *job, struct buf *b)
{
	const struct expr *l, *r;
	struct value lv, rv, cv;
	struct buf refs;
	const char *op, *rel, *p, *sp;
	char *text, name[128];
	size_t n;
	int first = 1;

	if (expr_comparison(c, &l, &op, &r)) {
		expr_eval(l, machine, job, &lv);
		expr_eval(r, machine, job, &rv);
		text = expr_to_string(l);
		buf_adds(b, text);
		free(text);
		if (!expr_is_literal(l)) {
			buf_addc(b, ' ');
			put_value(&lv, b);
		}
		rel = relation(&lv, &rv);
		buf_printf(b, " %s ", rel != NULL ? rel : op);
		put_value(&rv, b);
		if (!expr_is_literal(r)) {
			text = expr_to_string(r);
			buf_printf(b, " (%s)", text);
			free(text);
		}
		if (rel == NULL) {
			expr_eval(c, machine, job, &cv);
			buf_adds(b, " is ");
			put_value(&cv, b);
			value_free(&cv);
		}
		value_free(&lv);
		value_free(&rv);
		return;
	}
	text = expr_to_string(c);
	buf_adds(b, text);
	free(text);
	expr_eval(c, machine, job, &cv);
	buf_adds(b, " is ");
	put_value(&cv, b);
	value_free(&cv);
	buf_init(&refs);
	expr_references(c, &refs);
	for (p = refs.data; p != NULL && *p != '\0'; p = sp) {
		sp = strchr(p, ' ');
		n = sp != NULL ? (size_t)(sp - p) : strlen(p);
		if (sp != NULL)
			sp++;
		if (n == 0 || n >= sizeof(name))
			continue;
		memcpy(name, p, n);
		name[n] = '\0';
		if (ad_lookup(machine, name) == NULL &&
		    ad_lookup(job, name) == NULL)
			continue;
		expr_eval_text(name, machine, job, &cv);
		buf_printf(b, "%s%s = ", first ? " (" : ", ", name);
		put_value(&cv, b);
		value_free(&cv);
		first = 0;
	}
	if (!first)
		buf_addc(b, ')');
	buf_free(&refs);
}

/* Does C name the keyboard's idle time? */
static int
expr_references_idle(const struct expr *c)
{
	struct buf refs;
	char *p;
	int r = 0;

	buf_init(&refs);
	expr_references(c, &refs);
	buf_addc(&refs, ' ');
	for (p = refs.data; *p != '\0'; p++)
		*p = (char)tolower((unsigned char)*p);
	if (strstr(refs.data, "keyboardidle ") != NULL ||
	    strstr(refs.data, "consoleidle ") != NULL)
		r = 1;
	buf_free(&refs);
	return r;
}

/* C true for JOB on MACHINE after D seconds without keyboard use? */
static int
clause_true_after(const struct expr *c, const struct ad *machine,
    const struct ad *job, long d)
{
	static const char *const idle[] = { "KeyboardIdle", "ConsoleIdle" };
	struct ad *m = ad_copy(machine);
	long long v;
	size_t i;
	int t;

	for (i = 0; i < sizeof(idle) / sizeof(idle[0]); i++)
		if (ad_get_int(m, idle[i], &v) == 0)
			ad_set_int(m, idle[i], v + d);
	ad_set_int(m, "CurrentTime", (long long)time(NULL) + d);
	t = eval_true(c, m, job);
	ad_free(m);
	return t;
}

/*
 * Seconds until clause C, false now, becomes true if no one uses the
 * machine's keyboard (KeyboardIdle, ConsoleIdle and CurrentTime go on,
 * nothing else changes); -1 if waiting up to WAIT_HORIZON does not do.
 */
static long
clause_wait(const struct expr *c, const struct ad *machine,
    const struct ad *job)
{
	long lo = 0, hi = WAIT_HORIZON, mid;

	if (!clause_true_after(c, machine, job, hi))
		return -1;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (clause_true_after(c, machine, job, mid))
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/*
 * Why MACHINE's policy refuses JOB: each clause of its START (else its
 * Requirements) that is not true, with its values and when waiting
 * would make it true.  Returns the seconds until every one would be
 * (the machine may accept the job then), or -1 if waiting alone does
 * not do.
 */
static long
refusal_explain(const struct ad *machine, const struct ad *job)
{
	struct expr *clauses[MAX_CLAUSES];
	const struct expr *e;
	const char *what = "START";
	struct buf b;
	size_t n, i;
	long w, most = 0;
	char *name = job_value_text(machine, "Name");
	int shown = 0;

	if ((e = ad_lookup(machine, what)) == NULL) {
		what = "Requirements";
		e = ad_lookup(machine, what);
	}
	buf_init(&b);
	buf_printf(&b, "Machine %s refuses the job:", name);
	put_line(&b);
	free(name);
	if (e == NULL)
		return -1;
	n = expr_clauses(e, clauses, MAX_CLAUSES);
	for (i = 0; i <= n; i++) {
		/* Past the clauses: the whole, if no clause alone is
		 * false (an || split differently). */
		const struct expr *c = i < n ? clauses[i] : e;

		if (i == n && shown > 0)
			break;
		if (eval_true(c, machine, job))
			continue;
		buf_reset(&b);
		buf_printf(&b, "  %s: ", what);
		clause_describe(c, machine, job, &b);
		w = clause_wait(c, machine, job);
		if (w > 0) {
			if (expr_references_idle(c))
				buf_printf(&b, ", true in %ld s without "
				    "keyboard use", w);
			else
				buf_printf(&b, ", true in %ld s", w);
		} else
			buf_adds(&b, ", not by waiting alone");
		put_line(&b);
		if (w < 0 || most < 0)
			most = -1;
		else if (w > most)
			most = w;
		shown++;
	}
	for (i = 0; i < n; i++)
		expr_free(clauses[i]);
	buf_free(&b);
	return shown > 0 ? most : -1;
}

static void
analyze_idle(const struct ad *job, struct machines *m)
{
	struct expr *clauses[MAX_CLAUSES], *req = NULL;
	const struct expr *e;
	int *sat = NULL, match = 0, refuse = 0, busy = 0, avail = 0;
	int *refusing = NULL, soonest_i = -1;
	size_t nclauses = 0, c, bad = 0;
	char *text, *state;
	long w, soonest = -1;
	int i, all;

	machines_fetch(m);
	if (m->fetched < 0) {
		printf("The machines cannot be analysed: the collector does "
		    "not answer.\n");
		return;
	}
	if ((e = ad_lookup(job, "Requirements")) != NULL) {
		req = expr_copy(e);
		nclauses = expr_clauses(req, clauses, MAX_CLAUSES);
		text = expr_to_string(req);
		printf("Requirements: %s\n", text);
		free(text);
	} else
		printf("Requirements: none (every machine satisfies them)\n");
	sat = xcalloc(nclauses + 1, sizeof(*sat));
	refusing = xcalloc((size_t)m->n + 1, sizeof(*refusing));
	for (i = 0; i < m->n; i++) {
		all = 1;
		for (c = 0; c < nclauses; c++)
			if (eval_true(clauses[c], job, m->ads[i]))
				sat[c]++;
			else
				all = 0;
		/* A clause split out may differ from the whole (!, ||). */
		if (req != NULL && !eval_true(req, job, m->ads[i]))
			all = 0;
		if (!all)
			continue;
		match++;
		if (!machine_accepts(m->ads[i], job)) {
			refusing[refuse++] = i;
			continue;
		}
		if (ad_get_string(m->ads[i], "State", &state) == 0) {
			if (strcmp(state, "Idle") != 0)
				busy++;
			else
				avail++;
			free(state);
		} else
			busy++;
	}
	printf("Of %d machine%s in the pool:\n", m->n, m->n == 1 ? "" : "s");
	for (c = 0; c < nclauses; c++) {
		text = expr_to_string(clauses[c]);
		printf("  %6d satisfy %s\n", sat[c], text);
		free(text);
	}
	printf("  %6d satisfy all of the job's requirements\n", match);
	printf("  %6d of these refuse the job (their START or "
	    "Requirements)\n", refuse);
	printf("  %6d of these are busy (not Idle)\n", busy);
	printf("  %6d are available to the job\n", avail);
	for (c = 0; c < nclauses && m->n > 0; c++)
		if (sat[c] == 0) {
			text = expr_to_string(clauses[c]);
			printf("No machine satisfies: %s\n", text);
			free(text);
			bad++;
		}
	bad += (size_t)analyze_resources(job, m);
	/* Why each machine that suits the job refuses it. */
	for (i = 0; bad == 0 && i < refuse; i++) {
		if (i == MAX_REFUSING) {
			printf("... and %d more machine%s refuse%s it.\n",
			    refuse - i, refuse - i == 1 ? "" : "s",
			    refuse - i == 1 ? "s" : "");
			break;
		}
		w = refusal_explain(m->ads[refusing[i]], job);
		if (w >= 0 && (soonest < 0 || w < soonest)) {
			soonest = w;
			soonest_i = refusing[i];
		}
	}
	if (m->n == 0)
		printf("The pool has no machines: no startd has reported to "
		    "the collector.\n");
	else if (bad > 0 || match == 0)
		printf("The job cannot run until its requirements change "
		    "(remove it with condor_rm and submit it again).\n");
	else if (avail > 0)
		printf("The job should start at the next negotiation cycle "
		    "(every %s seconds, or at once after condor_reschedule), "
		    "in the order of its priority (UserPrio %lld) among this "
		    "schedd's jobs and of the schedd's priority among "
		    "submitters.\n", param("NEGOTIATOR_INTERVAL") ?
		    param("NEGOTIATOR_INTERVAL") : "?",
		    get_int(job, "UserPrio", 0));
	else if (refuse == match && soonest >= 0) {
		text = job_value_text(m->ads[soonest_i], "Name");
		printf("Every machine that suits the job refuses it now (its "
		    "owner is busy, or its policy excludes the job); %s may "
		    "accept it in %ld s if no one uses its keyboard.\n",
		    text, soonest);
		free(text);
	} else if (refuse == match)
		printf("Every machine that suits the job refuses it now (its "
		    "owner is busy, or its policy excludes the job); it waits "
		    "until one accepts.\n");
	else
		printf("Every machine that suits the job is busy; it waits "
		    "until one is free (the negotiator may vacate a machine "
		    "running a job of a submitter with a lower priority).\n");
	for (c = 0; c < nclauses; c++)
		expr_free(clauses[c]);
	expr_free(req);
	free(sat);
	free(refusing);
}

static void
analyze(const struct ad *job, struct machines *m)
{
	long long st = table_status(job);
	char *s;

	printf("\nJob %lld.%lld: ", get_int(job, "ClusterId", 0),
	    get_int(job, "ProcId", 0));
	switch (st) {
	case 0:
	case 1:
		printf("%s\n", st == 0 ? "idle, it has never run" : "idle");
		analyze_idle(job, m);
		break;
	case 2:
	case 7:
		s = job_value_text(job, "RemoteHost");
		printf("%s on %s\n", st == 2 ? "running" : "suspended", s);
		free(s);
		break;
	case 3:
		printf("removed, being cleaned up\n");
		break;
	case 4:
		printf("completed\n");
		break;
	case 5:
		s = job_value_text(job, "HoldReason");
		printf("held: %s\n", strcmp(s, "undefined") == 0 ?
		    "no reason given" : s);
		printf("It runs again once released (condor_release).\n");
		free(s);
		break;
	default:
		printf("in an unknown state (JobStatus %lld)\n", st);
		break;
	}
}

/* One schedd: NAME and ADDR (NULL: this host's over its socket). */
static int
show_schedd(const char *name, const char *addr, const char *constraint,
    enum format fmt, const struct jobfmt *pf, int global,
    struct machines *m)
{
	const char **af = fmt == FMT_AF ? jobfmt_attrs(pf) : NULL;
	struct ad **jobs;
	CLIENT *cl;
	char err[1024];
	int n, i;

	if ((cl = schedd_connect(addr, err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		free(af);
		return 1;
	}
	n = schedd_query(cl, constraint, 0, fmt == FMT_TABLE ||
	    fmt == FMT_TOTALS ? table_attrs : fmt == FMT_BATCH ? batch_attrs :
	    fmt == FMT_DAG ? dag_attrs :
	    fmt == FMT_HOLD ? hold_attrs :
	    fmt == FMT_RUN ? run_attrs : af, &jobs, err, sizeof(err));
	rpc_close(cl);
	free(af);
	if (n < 0) {
		log_warnx("cannot query the schedd%s%s: %s", name ? " of " : "",
		    name ? name : "", err);
		return 1;
	}
	/* Output into a closed pipe ("| head") ends us quietly, as usual. */
	signal(SIGPIPE, SIG_DFL);
	job_sort(jobs, (size_t)n);
	if (global && (fmt == FMT_TABLE || fmt == FMT_HOLD || fmt == FMT_RUN ||
	    fmt == FMT_TOTALS || fmt == FMT_BATCH || fmt == FMT_DAG))
		printf("\n-- Schedd: %s : %s\n", name, addr);
	if (fmt == FMT_TABLE || fmt == FMT_HOLD || fmt == FMT_RUN ||
	    fmt == FMT_BATCH || fmt == FMT_DAG)
		printf("%s\n", fmt == FMT_HOLD ? hold_header : fmt == FMT_RUN ?
		    run_header : fmt == FMT_BATCH ? batch_header :
		    fmt == FMT_DAG ? dag_header : header);
	if (fmt == FMT_BATCH)
		print_batches(jobs, n);
	if (fmt == FMT_DAG)
		print_dags(jobs, n);
	if (fmt == FMT_AF && !global)
		jobfmt_header(pf, stdout);
	for (i = 0; i < n; i++) {
		switch (fmt) {
		case FMT_TABLE:
			print_row(jobs[i]);
			break;
		case FMT_LONG:
			job_print_long(jobs[i], stdout);
			break;
		case FMT_JSON:
			ad_json_next(jobs[i], &json_first, stdout);
			break;
		case FMT_AF:
			jobfmt_print(pf, jobs[i], stdout);
			break;
		case FMT_ANALYZE:
			analyze(jobs[i], m);
			break;
		case FMT_HOLD:
			print_hold(jobs[i]);
			break;
		case FMT_RUN:
			print_run(jobs[i], time(NULL));
			break;
		case FMT_TOTALS:
		case FMT_BATCH:
		case FMT_DAG:
			break;
		}
	}
	if (fmt == FMT_TABLE || fmt == FMT_TOTALS || fmt == FMT_BATCH ||
	    fmt == FMT_DAG)
		print_footer(jobs, n);
	if (fmt == FMT_ANALYZE && n == 0)
		printf("No job matches.\n");
	schedd_free_jobs(jobs, n);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

static int
show_global(const char *constraint, enum format fmt, const struct jobfmt *pf,
    struct machines *m)
{
	struct ad **ads;
	char err[1024], *name, *addr;
	int n, i, rc = 0;

	n = collector_query(ADTYPE_SCHEDD, NULL, &ads, err, sizeof(err));
	if (n < 0) {
		log_warnx("cannot ask the collector at %s for schedds: %s",
		    param("COLLECTOR_HOST") ? param("COLLECTOR_HOST") : "?",
		    err);
		return 1;
	}
	if (n == 0)
		printf("No schedd is known to the collector.\n");
	if (fmt == FMT_AF)
		jobfmt_header(pf, stdout);
	for (i = 0; i < n; i++) {
		if (ad_get_string(ads[i], "Name", &name) == -1)
			name = xstrdup("?");
		if (ad_get_string(ads[i], "ScheddIpAddr", &addr) == -1) {
			log_warnx("the schedd %s advertises no ScheddIpAddr",
			    name);
			free(name);
			rc = 1;
			continue;
		}
		rc |= show_schedd(name, addr, constraint, fmt, pf, 1, m);
		free(name);
		free(addr);
	}
	collector_free_ads(ads, n);
	return rc;
}

int
main(int argc, char **argv)
{
	enum format fmt = FMT_TABLE;
	struct machines m;
	struct job_select sel;
	char err[1024], *constraint, *addr;
	const char *only;
	int i, global = 0, want_analyze = 0, rc;

	common_init(argv[0]);
	signal(SIGPIPE, SIG_IGN);
	memset(&m, 0, sizeof(m));
	job_select_init(&sel, usage, JOB_SELECT_AF);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "-global") == 0 || strcmp(a, "-g") == 0)
			global = 1;
		else if (strcmp(a, "-analyze") == 0 ||
		    strcmp(a, "-better-analyze") == 0)
			want_analyze = 1;
		else if (strcmp(a, "-hold") == 0)
			fmt = FMT_HOLD;
		else if (strcmp(a, "-run") == 0)
			fmt = FMT_RUN;
		else if (strcmp(a, "-totals") == 0)
			fmt = FMT_TOTALS;
		else if (strcmp(a, "-batch") == 0)
			fmt = FMT_BATCH;
		else if (strcmp(a, "-nobatch") == 0)
			fmt = FMT_TABLE;
		else if (strcmp(a, "-dag") == 0)
			fmt = FMT_DAG;
		else if (job_select_arg(&sel, argc, argv, &i) == -1)
			return 1;
	}
	/* -hold and -run select the jobs; -af, -l and -json may still say
	 * how to print them ("condor_q -hold -af HoldReason"). */
	only = fmt == FMT_HOLD ? "JobStatus == 5" : fmt == FMT_RUN ?
	    "JobStatus == 2" : NULL;
	if (only != NULL && (sel.want_json || sel.want_long ||
	    jobfmt_active(&sel.print)))
		fmt = FMT_TABLE;
	if (want_analyze)
		fmt = FMT_ANALYZE;
	else if (fmt != FMT_TABLE)
		;	/* -hold, -run, -totals */
	else if (sel.want_json)
		fmt = FMT_JSON;
	else if (sel.want_long)
		fmt = FMT_LONG;
	else if (jobfmt_active(&sel.print))
		fmt = FMT_AF;

	if ((constraint = job_select_constraint(&sel, only)) == NULL)
		return 1;

	if (global)
		rc = show_global(constraint, fmt, &sel.print, &m);
	else if (sel.host != NULL) {
		if ((addr = daemon_locate("schedd", sel.host, err,
		    sizeof(err))) == NULL) {
			log_warnx("%s", err);
			return 1;
		}
		rc = show_schedd(sel.host, addr, constraint, fmt, &sel.print,
		    0, &m);
		free(addr);
	} else
		rc = show_schedd(NULL, NULL, constraint, fmt, &sel.print, 0,
		    &m);
	if (fmt == FMT_JSON)
		ad_json_end(json_first, stdout);
	if (m.fetched > 0)
		collector_free_ads(m.ads, m.n);
	job_select_free(&sel);
	free(constraint);
	return rc;
}
