/*
 * schedd_queue.c: the job queue.  Jobs live in the transaction log
 * (queue_log.h) as a cluster ad holding what the procs share and one ad
 * per proc holding what it sets or changed; every change the schedd
 * makes is set on the proc's own ad.  This file reads jobs, answers
 * queries, carries out condor_rm/hold/release/prio and the shadows'
 * updates, moves jobs through their states, and repairs the queue at
 * start-up.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "ad.h"
#include "buf.h"
#include "config.h"
#include "daemon.h"
#include "event.h"
#include "expr.h"
#include "log.h"
#include "priv.h"
#include "queue_log.h"
#include "schedd.h"
#include "userlog.h"
#include "words.h"
#include "xalloc.h"

#define PRIO_MIN	(-20)
#define PRIO_MAX	20
#define OWNER_CACHE	5	/* seconds an owner's ids are kept */
#define FINISH_BATCH	20000	/* jobs leaving the queue per turn */

struct qlog	*schedd_queue;

static char	*spool;
static long	 compact_timer;
static double	 compact_failed;	/* monotime() of the last failure, or 0 */

/*
 * Live procs per cluster, so that the last proc to leave takes its
 * cluster ad and executable along without a walk over the queue.
 */
struct cluster_count {
	int	cluster;	/* 0: empty slot */
	int	procs;
};
static struct cluster_count	*ccounts;
static size_t			 nccounts, ccount_used;

/* Attributes a shadow may not change (schedd_rpc.x). */
static const char *const schedd_owned[] = {
	"ClusterId", "ProcId", "Owner", "QDate", "ShadowPid", "RemoteHost",
	"JobStartDate", "NumJobStarts", "RemoteWallClockTime",
	"EnteredCurrentStatus", "NumShadowExceptions", "LocalKeeperPid",
	"LocalKeeperStart", "LocalJobPid", "LocalJobStart", "UidDomain",
	"FileSystemDomain", "AcctGroup", "AcctGroupUser", "AccountingGroup",
	"JobMaterializeNextProcId", "JobMaterializeNextOffset",
	"TotalSubmitProcs", NULL
};

/* Spool files. */

const char *
spool_dir(void)
{
	return spool;
}

char *
spool_ickpt(int cluster)
{
	return xasprintf("%s/cluster%d.ickpt", spool, cluster);
}

char *
spool_ckpt(int cluster, int proc)
{
	return xasprintf("%s/cluster%d.proc%d.ckpt", spool, cluster, proc);
}

/* Files a job kept from an evicted run (src/shadow/shadow_xfer.c). */
static char *
spool_xfer(int cluster, int proc, const char *suffix)
{
	return xasprintf("%s/cluster%d.proc%d.xfer%s", spool, cluster, proc,
	    suffix);
}

/* Cluster counts: open addressing, deletions leave count 0 entries. */

static struct cluster_count *
ccount_slot(int cluster, int create)
{
	size_t i, mask;

	if (nccounts == 0 || (create && (ccount_used + 1) * 2 > nccounts)) {
		struct cluster_count *old = ccounts;
		size_t oldn = nccounts, j;

		if (!create && nccounts == 0)
			return NULL;
		nccounts = nccounts ? nccounts * 2 : 256;
		ccounts = xcalloc(nccounts, sizeof(*ccounts));
		ccount_used = 0;
		for (j = 0; j < oldn; j++) {
			if (old[j].cluster == 0 || old[j].procs == 0)
				continue;
			*ccount_slot(old[j].cluster, 1) = old[j];
		}
		free(old);
	}
	mask = nccounts - 1;
	for (i = (size_t)cluster * 2654435761u & mask;
	    ccounts[i].cluster != 0; i = (i + 1) & mask)
		if (ccounts[i].cluster == cluster)
			return &ccounts[i];
	if (!create)
		return NULL;
	ccounts[i].cluster = cluster;
	ccounts[i].procs = 0;
	ccount_used++;
	return &ccounts[i];
}

void
queue_cluster_add(int cluster, int nprocs)
{
	ccount_slot(cluster, 1)->procs += nprocs;
}

int
queue_cluster_procs(int cluster)
{
	struct cluster_count *c = ccount_slot(cluster, 0);

	return c != NULL && c->procs > 0 ? c->procs : 0;
}

/* One proc of CLUSTER left; 1 if it was the last. */
static int
cluster_drop(int cluster)
{
	struct cluster_count *c = ccount_slot(cluster, 0);

	if (c == NULL || c->procs <= 0)
		return 1;
	return --c->procs == 0;
}

/* Reading jobs. */

static void
job_fill(struct job *j, const struct qlog_entry *e, const struct ad *cad)
{
	j->cluster = qlog_entry_cluster(e);
	j->proc = qlog_entry_proc(e);
	j->ad = qlog_entry_ad(e);
	j->cad = cad;
	j->entry = e;
}

int
job_find(int cluster, int proc, struct job *j)
{
	const struct qlog_entry *e;

	if (proc < 0)
		return -1;
	j->ad = qlog_ad(schedd_queue, cluster, proc);
	if (j->ad == NULL)
		return -1;
	j->cad = qlog_ad(schedd_queue, cluster, -1);
	j->cluster = cluster;
	j->proc = proc;
	/* Only walks need the entry; finding it costs a walk, so none. */
	e = NULL;
	j->entry = e;
	return 0;
}

int
job_next(struct job *j, int first)
{
	const struct qlog_entry *e;
	const struct ad *cad = NULL;
	int last_cluster = 0;

	if (first)
		e = qlog_first(schedd_queue);
	else {
		if (j->entry == NULL)
			panic("job_next without a walk");
		last_cluster = j->cluster;
		cad = j->cad;
		e = qlog_next(j->entry);
	}
	for (; e != NULL; e = qlog_next(e)) {
		if (qlog_entry_proc(e) < 0) {
			/* Procs follow their cluster ad in creation order. */
			last_cluster = qlog_entry_cluster(e);
			cad = qlog_entry_ad(e);
			continue;
		}
		if (qlog_entry_cluster(e) != last_cluster) {
			last_cluster = qlog_entry_cluster(e);
			cad = qlog_ad(schedd_queue, last_cluster, -1);
		}
		job_fill(j, e, cad);
		return 1;
	}
	return 0;
}

/*
 * The jobs a constraint can select.  The tools and the shadows name a
 * job or a cluster as "ClusterId == C && ProcId == P" or "ClusterId ==
 * C"; for those only that job or that cluster's procs (which follow
 * their cluster ad in the queue) are looked at, not the whole queue.
 * Any other constraint walks every job.  The constraint is still
 * evaluated for each job the scope yields.
 */
void
scope_init(struct job_scope *s, const char *constraint)
{
	char bare[128];
	size_t i, n = 0;
	int c, p, end = -1;

	memset(s, 0, sizeof(*s));
	if (constraint == NULL || strlen(constraint) >= sizeof(bare))
		return;
	/* Parentheses cannot change a conjunction of two equalities (and
	 * the constraint did parse): "((ClusterId == 4 && ProcId == 7))". */
	for (i = 0; constraint[i] != '\0'; i++)
		if (constraint[i] != '(' && constraint[i] != ')')
			bare[n++] = constraint[i];
	bare[n] = '\0';
	if ((sscanf(bare, " ClusterId == %d && ProcId == %d %n", &c, &p,
	    &end) == 2 && end >= 0 && bare[end] == '\0') ||
	    (end = -1, sscanf(bare, " ProcId == %d && ClusterId == %d %n", &p,
	    &c, &end) == 2 && end >= 0 && bare[end] == '\0')) {
		s->kind = 2;
		s->cluster = c;
		s->proc = p;
	} else if (end = -1, sscanf(bare, " ClusterId == %d %n", &c,
	    &end) == 1 && end >= 0 && bare[end] == '\0') {
		s->kind = 1;
		s->cluster = c;
	}
}

int
scope_next(struct job_scope *s, struct job *j)
{
	const struct qlog_entry *e;

	switch (s->kind) {
	case 2:
		if (s->started++)
			return 0;
		return job_find(s->cluster, s->proc, j) == 0;
	case 1:
		if (!s->started++) {
			e = qlog_entry_find(schedd_queue, s->cluster, -1);
			if (e == NULL)
				return 0;
			j->entry = e;
			j->cluster = s->cluster;
			j->cad = qlog_entry_ad(e);
		}
		return job_next(j, 0) && j->cluster == s->cluster;
	default:
		return job_next(j, !s->started++);
	}
}

/* NAME's value, evaluated where it is found (ClassAd scoping). */
static void
job_value(const struct job *j, const char *name, struct value *out)
{
	const struct expr *e;

	if ((e = ad_lookup(j->ad, name)) != NULL)
		expr_eval(e, j->ad, j->cad, out);
	else if ((e = ad_lookup(j->cad, name)) != NULL)
		expr_eval(e, j->cad, j->ad, out);
	else {
		out->type = VAL_UNDEFINED;
		out->u.i = 0;
	}
}

int
job_has(const struct job *j, const char *name)
{
	return ad_lookup(j->ad, name) != NULL ||
	    ad_lookup(j->cad, name) != NULL;
}

long long
job_int(const struct job *j, const char *name, long long dflt)
{
	struct value v;
	long long r = dflt;

	job_value(j, name, &v);
	if (v.type == VAL_INT)
		r = v.u.i;
	else if (v.type == VAL_BOOL)
		r = v.u.b;
	else if (v.type == VAL_REAL && v.u.r > -9e18 && v.u.r < 9e18)
		r = (long long)v.u.r;
	value_free(&v);
	return r;
}

double
job_real(const struct job *j, const char *name, double dflt)
{
	struct value v;
	double r = dflt;

	job_value(j, name, &v);
	if (v.type == VAL_REAL)
		r = v.u.r;
	else if (v.type == VAL_INT)
		r = (double)v.u.i;
	value_free(&v);
	return r;
}

char *
job_string(const struct job *j, const char *name)
{
	struct value v;

	job_value(j, name, &v);
	if (v.type != VAL_STRING) {
		value_free(&v);
		return NULL;
	}
	return v.u.s;
}

int
job_status(const struct job *j)
{
	int st = (int)job_int(j, "JobStatus", JOB_IDLE);

	return st == JOB_OLD_UNEXPANDED ? JOB_IDLE : st;
}

int
expr_needs_merge(const char *text)
{
	return text != NULL && (strcasestr(text, "MY.") != NULL ||
	    strcasestr(text, "TARGET.") != NULL);
}

struct ad *
job_full_ad(const struct job *j)
{
	struct ad *ad = ad_copy(j->cad);

	ad_merge(ad, j->ad);
	return ad;
}

void
job_print(const struct job *j, struct buf *b)
{
	const char *name;
	size_t i;

	for (i = 0; i < ad_count(j->cad); i++) {
		name = ad_name_at(j->cad, i);
		if (ad_lookup(j->ad, name) != NULL)
			continue;
		buf_adds(b, name);
		buf_adds(b, " = ");
		expr_unparse(ad_expr_at(j->cad, i), b);
		buf_addc(b, '\n');
	}
	for (i = 0; i < ad_count(j->ad); i++) {
		buf_adds(b, ad_name_at(j->ad, i));
		buf_adds(b, " = ");
		expr_unparse(ad_expr_at(j->ad, i), b);
		buf_addc(b, '\n');
	}
	buf_addc(b, '\n');
}

/*
 * Without MY. or TARGET. the job's own ad stands as MY and the cluster
 * ad as TARGET: a name missing from the first is found in the second,
 * with no copy.  (An attribute of the cluster ad that refers to one the
 * proc overrides then sees the cluster's value; merged evaluation, used
 * for explicit scopes, does not.)
 */
void
job_eval(const struct job *j, const struct expr *e, int merged,
    struct value *out)
{
	struct ad *full;

	if (!merged) {
		expr_eval(e, j->ad, j->cad, out);
		return;
	}
	full = job_full_ad(j);
	expr_eval(e, full, NULL, out);
	ad_free(full);
}

/* Does J meet the constraint E (NULL: every job does)? */
static int
job_meets(const struct job *j, const struct expr *e, int merged)
{
	struct value v;
	int ok;

	if (e == NULL)
		return 1;
	job_eval(j, e, merged, &v);
	ok = value_is_true(&v);
	value_free(&v);
	return ok;
}

static void
attr_put(ad_x *out, u_int *cap, const char *name, const struct expr *e)
{
	char *text;

	if (out->attrs.attrs_len >= AD_MAX_ATTRS)
		return;
	text = expr_to_string(e);
	if (strlen(text) > AD_MAX_TEXT) {
		/* It would make the whole reply fail to encode. */
		log_warnx("attribute %s too long for the wire; left out",
		    name);
		free(text);
		return;
	}
	if (out->attrs.attrs_len == *cap) {
		*cap = *cap ? *cap * 2 : 32;
		out->attrs.attrs_val = xreallocarray(out->attrs.attrs_val,
		    *cap, sizeof(attr_x));
	}
	out->attrs.attrs_val[out->attrs.attrs_len].name = xstrdup(name);
	out->attrs.attrs_val[out->attrs.attrs_len].text = text;
	out->attrs.attrs_len++;
}

static int
listed_in(char **list, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcasecmp(list[i], name) == 0)
			return 1;
	return 0;
}

/*
 * Add job J to R: the attributes NAMES lists and those their values
 * refer to (so that the client can evaluate them), as far as the job
 * has them; every attribute when NAMES is NULL.  NAMES has no
 * duplicates.  Most values are literals and refer to nothing: only
 * then does a job need a list of its own.
 */
static void
job_encode(const struct job *j, struct query_reply *r, char **names,
    u_int n)
{
	static struct buf refs;
	const struct expr *e;
	const char *name;
	char **extra = NULL, *tok, *save;
	size_t nextra = 0, capextra = 0, i;

	reply_ad_begin(r);
	if (names == NULL) {
		for (i = 0; i < ad_count(j->cad); i++) {
			name = ad_name_at(j->cad, i);
			if (ad_lookup(j->ad, name) == NULL)
				reply_attr(r, name, ad_expr_at(j->cad, i));
		}
		for (i = 0; i < ad_count(j->ad); i++)
			reply_attr(r, ad_name_at(j->ad, i),
			    ad_expr_at(j->ad, i));
		reply_ad_end(r);
		return;
	}
	if (refs.data == NULL)
		buf_init(&refs);
	for (i = 0; i < n + nextra && i < AD_MAX_ATTRS; i++) {
		name = i < n ? names[i] : extra[i - n];
		if ((e = ad_lookup(j->ad, name)) == NULL &&
		    (e = ad_lookup(j->cad, name)) == NULL)
			continue;
		reply_attr(r, name, e);
		buf_reset(&refs);
		expr_references(e, &refs);
		if (refs.len == 0)
			continue;
		save = NULL;
		for (tok = strtok_r(refs.data, " ", &save); tok != NULL;
		    tok = strtok_r(NULL, " ", &save)) {
			if (listed_in(names, n, tok) ||
			    listed_in(extra, nextra, tok))
				continue;
			if (nextra == capextra) {
				capextra = capextra ? capextra * 2 : 8;
				extra = xreallocarray(extra, capextra,
				    sizeof(*extra));
			}
			extra[nextra++] = xstrdup(tok);
		}
	}
	reply_ad_end(r);
	for (i = 0; i < nextra; i++)
		free(extra[i]);
	free(extra);
}

void
job_to_xdr(const struct job *j, ad_x *out)
{
	const char *name;
	u_int cap = 0;
	size_t k;

	memset(out, 0, sizeof(*out));
	for (k = 0; k < ad_count(j->cad); k++) {
		name = ad_name_at(j->cad, k);
		if (ad_lookup(j->ad, name) == NULL)
			attr_put(out, &cap, name, ad_expr_at(j->cad, k));
	}
	for (k = 0; k < ad_count(j->ad); k++)
		attr_put(out, &cap, ad_name_at(j->ad, k),
		    ad_expr_at(j->ad, k));
}

/*
 * Owners repeat from job to job: the last lookup is kept for a few
 * seconds, which spares a read of the password database per job when
 * thousands change at once.
 */
int
job_owner_ids(const struct job *j, uid_t *uid, gid_t *gid)
{
	static char *last;
	static uid_t last_uid;
	static gid_t last_gid;
	static double when;
	char *owner = job_string(j, "Owner");

	if (owner == NULL)
		return -1;
	if (last != NULL && strcmp(owner, last) == 0 &&
	    monotime() - when < OWNER_CACHE) {
		free(owner);
		*uid = last_uid;
		*gid = last_gid;
		return 0;
	}
	free(last);
	last = NULL;
	if (user_lookup(owner, uid, gid) == -1) {
		free(owner);
		return -1;
	}
	last = owner;
	last_uid = *uid;
	last_gid = *gid;
	when = monotime();
	return 0;
}

static char	*job_log_attr_path(const struct job *, const char *);

char *
job_userlog_path(const struct job *j)
{
	return job_log_attr_path(j, "UserLog");
}

char *
job_nodes_log_path(const struct job *j)
{
	return job_log_attr_path(j, "DAGManNodesLog");
}

/* The log the job's attribute ATTR names, relative to its Iwd. */
static char *
job_log_attr_path(const struct job *j, const char *attr)
{
	char *log, *iwd, *path;

	if ((log = job_string(j, attr)) == NULL)
		return NULL;
	if (*log == '\0') {
		free(log);
		return NULL;
	}
	if (log[0] == '/')
		return log;
	iwd = job_string(j, "Iwd");
	path = xasprintf("%s/%s", iwd ? iwd : "/", log);
	free(iwd);
	free(log);
	return path;
}

/* Acting as an owner for user logs: see job_log_batch_begin. */
static int	 as_batch, as_active;
static uid_t	 as_uid;

static int
act_as(uid_t uid, gid_t gid)
{
	if (geteuid() != 0 && !as_active)
		return 0;	/* not root: no identities to switch */
	if (as_active && as_uid == uid)
		return 0;
	if (as_active)
		priv_restore();
	as_active = 0;
	if (priv_as_user(uid, gid) == -1)
		return -1;
	as_active = 1;
	as_uid = uid;
	return 0;
}

static void
act_as_done(void)
{
	if (as_active)
		priv_restore();
	as_active = 0;
}

void
job_log_batch_begin(void)
{
	as_batch = 1;
}

void
job_log_batch_end(void)
{
	as_batch = 0;
	act_as_done();
}

/* job_log_event and job_log_terminated: EVENT with what it needs. */
static void
job_log_write(const struct job *j, int event, const char *reason,
    int by_signal, int code, const struct ulog_usage *u)
{
	char *path, *nodes;
	uid_t uid;
	gid_t gid;
	int rc = -1;

	/* Its own log and, for a DAG node job, the DAG's node log. */
	path = job_userlog_path(j);
	if ((nodes = job_nodes_log_path(j)) == NULL && path == NULL)
		return;
	if (submit_events_pending(j->cluster)) {
		/* They switch identities themselves. */
		act_as_done();
		submit_flush_events(j->cluster);
	}
	if (job_owner_ids(j, &uid, &gid) == -1) {
		if (getuid() == 0) {
			log_warnx("job %d.%d: its owner is unknown; no user "
			    "log event", j->cluster, j->proc);
			free(path);
			free(nodes);
			return;
		}
		uid = getuid();
		gid = getgid();
	}
	if (act_as(uid, gid) == -1) {
		log_warn("job %d.%d: cannot act as its owner", j->cluster,
		    j->proc);
		free(path);
		free(nodes);
		return;
	}
	userlog_also(nodes);
	switch (event) {
	case ULOG_ABORTED:
		rc = userlog_aborted(path, j->cluster, j->proc, reason);
		break;
	case ULOG_HELD:
		rc = userlog_held(path, j->cluster, j->proc, reason,
		    (int)job_int(j, "HoldReasonCode", 0),
		    (int)job_int(j, "HoldReasonSubCode", 0));
		break;
	case ULOG_RELEASED:
		rc = userlog_released(path, j->cluster, j->proc, reason);
		break;
	case ULOG_EXECUTE:
		/* A job the schedd runs itself: here. */
		rc = userlog_execute(path, j->cluster, j->proc, schedd_addr,
		    param("HOST"));
		break;
	case ULOG_TERMINATED:
		rc = userlog_terminated(path, j->cluster, j->proc, by_signal,
		    code, u);
		break;
	}
	userlog_also(NULL);
	if (rc == -1)
		log_warn("job %d.%d: cannot write its user log %s%s%s",
		    j->cluster, j->proc, path ? path : "", path && nodes ?
		    " or " : "", nodes ? nodes : "");
	if (!as_batch)
		act_as_done();
	free(path);
	free(nodes);
}

void
job_log_event(const struct job *j, int event, const char *reason)
{
	job_log_write(j, event, reason, 0, 0, NULL);
}

void
job_log_terminated(const struct job *j, int by_signal, int code,
    const struct ulog_usage *u)
{
	job_log_write(j, ULOG_TERMINATED, NULL, by_signal, code, u);
}

/* Committing. */

static void
compact_tick(void *arg)
{
	double t0 = monotime();
	long long before = qlog_file_size(schedd_queue);

	compact_timer = 0;
	if (qlog_compact(schedd_queue) == -1) {
		/* The log is still whole; the next commit after
		 * QUEUE_COMPACT_RETRY seconds tries again. */
		compact_failed = monotime();
		log_warnx("job queue not compacted; trying again after %g s",
		    param_double("QUEUE_COMPACT_RETRY", 60));
		return;
	}
	compact_failed = 0;
	log_info("job queue compacted from %lld to %lld bytes in %.3f s",
	    before, qlog_file_size(schedd_queue), monotime() - t0);
}

void
queue_maybe_compact(void)
{
	double ratio = param_double("QUEUE_COMPACT_RATIO", 4.0);

	if (compact_timer != 0 || (compact_failed > 0 && monotime() <
	    compact_failed + param_double("QUEUE_COMPACT_RETRY", 60)))
		return;
	if (qlog_should_compact(schedd_queue, ratio))
		compact_timer = event_timer_add(0, compact_tick, NULL);
}

void
queue_commit(int durable)
{
	if (qlog_commit(schedd_queue, durable) == -1)
		fatal("cannot write the job queue %s/%s", spool,
		    QUEUE_LOG_NAME);
	queue_maybe_compact();
}

void
queue_commit_now(void)
{
	queue_commit(1);
	if (qlog_sync(schedd_queue) == -1)
		fatal("cannot sync the job queue %s/%s", spool,
		    QUEUE_LOG_NAME);
}

/* Commit a change a user asked for: an error reply, not an exit. */
static int
queue_commit_request(int durable, char *err, size_t errlen)
{
	if (qlog_commit(schedd_queue, durable) == -1) {
		snprintf(err, errlen, "cannot write the job queue: %s",
		    strerror(errno));
		log_warnx("%s", err);
		return -1;
	}
	queue_maybe_compact();
	return 0;
}

/* Changing jobs (inside an open transaction). */

static void
tx_status(const struct job *j, int status, time_t now)
{
	qlog_set_int(schedd_queue, j->cluster, j->proc, "JobStatus", status);
	qlog_set_int(schedd_queue, j->cluster, j->proc,
	    "EnteredCurrentStatus", (long long)now);
}

/* Make NAME undefined for the job even if its cluster defines it. */
static void
tx_unset(const struct job *j, const char *name)
{
	char err[64];

	if (ad_lookup(j->cad, name) != NULL)
		(void)qlog_set(schedd_queue, j->cluster, j->proc, name,
		    "UNDEFINED", err, sizeof(err));
	else if (ad_lookup(j->ad, name) != NULL)
		qlog_delete(schedd_queue, j->cluster, j->proc, name);
}

/*
 * The end of a run: where it ran becomes where it last ran.  A job that
 * completed keeps RemoteHost too, so that its history record says where
 * it finished (condor_history -af RemoteHost).
 */
static void
tx_run_ended(const struct job *j, double wall, int completed)
{
	char *host = job_string(j, "RemoteHost");

	if (host != NULL) {
		qlog_set_string(schedd_queue, j->cluster, j->proc,
		    "LastRemoteHost", host);
		free(host);
	}
	if (!completed)
		tx_unset(j, "RemoteHost");
	tx_unset(j, "ShadowPid");
	if (wall > 0)
		qlog_set_real(schedd_queue, j->cluster, j->proc,
		    "RemoteWallClockTime",
		    job_real(j, "RemoteWallClockTime", 0) + wall);
}

struct job_id {
	int	cluster;
	int	proc;
};

/*
 * Group commit.  A change is written to the log when it is committed
 * (so a full disk is still answered as an error), but the log is synced
 * once per turn of the event loop, by queue_flush, which runs before
 * the loop waits again and before any answer to the turn's requests
 * leaves (schedd.c): one fdatasync for every transaction of the turn.
 *
 * Jobs that leave the queue leave in queue_flush too, after that sync:
 * the commit that made them Completed or Removed is on the disk before
 * their history records are written (one write and one fsync for all of
 * the turn's), and those before the transaction that takes them out of
 * the log is written.  A crash at any point finds each job in the queue
 * (where the start-up check finishes it, once, since it sees whether
 * the history has it) or in the history, never in neither; and never
 * in the history while the queue would run it again.
 */
struct finishing {
	int	cluster;
	int	proc;
	int	skip;		/* in the history already */
};
static struct finishing	*finishing;
static size_t		 nfinishing, capfinishing;
static int		 factory_sync_wanted;
static long long	 flushed_commits;	/* qlog_commits() then */

static int
finishing_cmp(const void *a, const void *b)
{
	const struct finishing *x = a, *y = b;

	if (x->cluster != y->cluster)
		return x->cluster < y->cluster ? -1 : 1;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return 0;
}

/*
 * Jobs whose removal or completion is committed (JobStatus 3 or 4) leave
 * at the end of the turn (queue_flush).  SKIP (may be NULL) marks those
 * already in the history.
 */
static void
jobs_finish(const struct job_id *ids, size_t n, const int *skip)
{
	size_t i;

	if (nfinishing + n > capfinishing) {
		capfinishing = nfinishing + n > capfinishing * 2 ?
		    nfinishing + n : capfinishing * 2;
		finishing = xreallocarray(finishing, capfinishing,
		    sizeof(*finishing));
	}
	for (i = 0; i < n; i++) {
		finishing[nfinishing].cluster = ids[i].cluster;
		finishing[nfinishing].proc = ids[i].proc;
		finishing[nfinishing++].skip = skip != NULL && skip[i];
	}
}

/*
 * Jobs leave for good: their full ads go to the history (one write, one
 * fsync), then out of the log, each cluster's ad and executable with
 * its last proc.  F, N: the turn's, sorted; a job named twice leaves
 * once.  The history is written first so that a crash in between finds
 * the job still in the queue, and the start-up check sees it is in the
 * history.
 */
static void
jobs_finish_now(struct finishing *f, size_t n)
{
	struct buf text;
	struct job j;
	size_t i, k, nrec = 0;
	char *path;

	if (n == 0)
		return;
	qsort(f, n, sizeof(*f), finishing_cmp);
	for (i = k = 0; i < n; i++) {
		if (k > 0 && finishing_cmp(&f[k - 1], &f[i]) == 0) {
			f[k - 1].skip |= f[i].skip;
			continue;
		}
		f[k++] = f[i];
	}
	n = k;
	buf_init(&text);
	for (i = 0; i < n; i++) {
		if (f[i].skip || job_find(f[i].cluster, f[i].proc, &j) == -1)
			continue;
		job_print(&j, &text);
		nrec++;
	}
	if (nrec > 0 && history_append(text.data, text.len) == -1)
		log_warn("cannot write the history; %zu job(s) leave the "
		    "queue without a record", nrec);
	buf_free(&text);

	job_log_batch_begin();
	for (i = 0; i < n; i++) {
		if (job_find(f[i].cluster, f[i].proc, &j) == -1)
			continue;
		if (job_status(&j) == JOB_REMOVED) {
			char *why = job_string(&j, "RemoveReason");

			job_log_event(&j, ULOG_ABORTED, why ? why :
			    "via condor_rm");
			free(why);
		}
	}
	job_log_batch_end();
	qlog_begin(schedd_queue);
	for (i = 0; i < n; i++) {
		if (job_find(f[i].cluster, f[i].proc, &j) == -1)
			continue;
		qlog_destroy(schedd_queue, j.cluster, j.proc);
		path = spool_ckpt(j.cluster, j.proc);
		if (unlink(path) == -1 && errno != ENOENT)
			log_warn("cannot remove %s", path);
		free(path);
		path = spool_xfer(j.cluster, j.proc, "");
		if (daemon_remove_tree(path) == -1)
			log_warn("cannot remove %s", path);
		free(path);
		path = xasprintf("%s/cluster%d.proc%d.ickpt", spool, j.cluster,
		    j.proc);
		if (unlink(path) == -1 && errno != ENOENT)
			log_warn("cannot remove %s", path);
		free(path);
		/* The cluster stays while jobs are to materialize. */
		if (cluster_drop(j.cluster) && !factory_pending(j.cluster)) {
			qlog_destroy(schedd_queue, j.cluster, -1);
			path = spool_ickpt(j.cluster);
			if (unlink(path) == -1 && errno != ENOENT)
				log_warn("cannot remove %s", path);
			free(path);
		}
	}
	queue_commit(0);
	schedd_counts_changed();
	factory_poke();
}

void
queue_flush(struct queue_flush_stats *st)
{
	struct finishing *f;
	size_t n;
	long long syncs = qlog_syncs(schedd_queue);

	if (st != NULL)
		memset(st, 0, sizeof(*st));
	if (st != NULL)
		st->transactions = qlog_commits(schedd_queue) -
		    flushed_commits;
	/* A sync that fails leaves changes applied here that the disk may
	 * not hold: no answer may say they are done, and a schedd that
	 * cannot keep its queue must stop (the next one replays it).  Jobs
	 * about to leave need it too, whatever made them Completed. */
	if ((qlog_sync_wanted(schedd_queue) || nfinishing > 0) &&
	    qlog_sync(schedd_queue) == -1)
		fatal("cannot sync the job queue %s/%s", spool,
		    QUEUE_LOG_NAME);
	if (st != NULL)
		st->syncs = qlog_syncs(schedd_queue) - syncs;
	if (factory_sync_wanted) {
		factory_sync_wanted = 0;
		factory_sync();
	}
	while (nfinishing > 0) {
		/* Taken whole: finishing may queue more (it does not now). */
		f = finishing;
		n = nfinishing;
		finishing = NULL;
		nfinishing = capfinishing = 0;
		jobs_finish_now(f, n);
		if (st != NULL)
			st->finished += n;
		free(f);
	}
	flushed_commits = qlog_commits(schedd_queue);
}

int
queue_flush_pending(void)
{
	return qlog_sync_wanted(schedd_queue) || nfinishing > 0 ||
	    factory_sync_wanted;
}

/*
 * Many jobs leaving at once (condor_rm of a large cluster) leave from
 * the loop, a batch per turn, after the answer: their removal is already
 * committed, and a restart would finish the work.
 */
static struct job_id	*leaving;
static size_t		 nleaving, capleaving;
static long		 leaving_timer;

static void
leaving_tick(void *arg)
{
	size_t n = nleaving < FINISH_BATCH ? nleaving : FINISH_BATCH;

	leaving_timer = 0;
	jobs_finish(leaving, n, NULL);
	memmove(leaving, leaving + n, (nleaving - n) * sizeof(*leaving));
	nleaving -= n;
	if (nleaving > 0)
		leaving_timer = event_timer_add(0, leaving_tick, NULL);
}

static void
jobs_finish_soon(const struct job_id *ids, size_t n)
{
	if (n == 0)
		return;
	if (nleaving + n > capleaving) {
		capleaving = nleaving + n > capleaving * 2 ? nleaving + n :
		    capleaving * 2;
		leaving = xreallocarray(leaving, capleaving,
		    sizeof(*leaving));
	}
	memcpy(leaving + nleaving, ids, n * sizeof(*ids));
	nleaving += n;
	if (leaving_timer == 0)
		leaving_timer = event_timer_add(0, leaving_tick, NULL);
}

/* Transitions asked for by the shadow side. */

void
queue_job_reshadowed(int cluster, int proc, pid_t shadow)
{
	struct job j;

	if (job_find(cluster, proc, &j) == -1)
		return;
	qlog_begin(schedd_queue);
	qlog_set_int(schedd_queue, cluster, proc, "ShadowPid", shadow);
	/* Now: the new shadow runs already, and a schedd started after a
	 * crash must know it rather than the old one. */
	queue_commit_now();
}

/* In the open transaction: J starts a run now. */
static void
tx_started(const struct job *j, time_t now)
{
	tx_status(j, JOB_RUNNING, now);
	qlog_set_int(schedd_queue, j->cluster, j->proc, "NumJobStarts",
	    job_int(j, "NumJobStarts", 0) + 1);
	if (!job_has(j, "JobStartDate"))
		qlog_set_int(schedd_queue, j->cluster, j->proc,
		    "JobStartDate", (long long)now);
}

void
queue_job_started(int cluster, int proc, const char *machine, pid_t shadow)
{
	struct job j;
	time_t now = time(NULL);

	if (job_find(cluster, proc, &j) == -1)
		return;
	qlog_begin(schedd_queue);
	tx_started(&j, now);
	qlog_set_string(schedd_queue, cluster, proc, "RemoteHost", machine);
	qlog_set_int(schedd_queue, cluster, proc, "ShadowPid", shadow);
	/* Not synced: after a crash the job is requeued whatever the
	 * log says, so only the next durable commit needs to carry it. */
	queue_commit(0);
	schedd_counts_changed();
	/* One idle job fewer: a max_idle may let one more in. */
	factory_poke();
}

static void
describe_status(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exit status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "signal %d", WTERMSIG(status));
	else
		snprintf(buf, len, "wait status %#x", status);
}

/* ---- the job's own policies (periodic_*, on_exit_*) ---- */

/*
 * The policy attribute NAME of the whole ad FULL: 1 TRUE, 0 FALSE, -1
 * missing or neither (UNDEFINED, ERROR, not a boolean); its text into
 * *TEXT (freed by the caller) when TRUE or FALSE.
 */
static int
policy_in(struct ad *full, const char *name, char **text)
{
	const struct expr *e;
	struct value v;
	int r = -1;

	if ((e = ad_lookup(full, name)) == NULL)
		return -1;
	expr_eval(e, full, NULL, &v);
	if (v.type == VAL_BOOL)
		r = v.u.b != 0;
	else if (v.type == VAL_INT)
		r = v.u.i != 0;
	value_free(&v);
	if (r != -1 && text != NULL)
		*text = expr_to_string(e);
	return r;
}

static int
policy_of(const struct job *j, const char *name, char **text)
{
	struct ad *full;
	int r;

	if (!job_has(j, name))
		return -1;
	full = job_full_ad(j);
	r = policy_in(full, name, text);
	ad_free(full);
	return r;
}

/* The reason a policy gives, as HTCondor words it. */
static char *
policy_reason(const char *attr, const char *text)
{
	return xasprintf("The job attribute %s expression '%s' evaluated to "
	    "TRUE", attr, text);
}

/* What a job's own policy made of its end (tx_exit_policy). */
#define EXIT_COMPLETED	0
#define EXIT_REQUEUED	1
#define EXIT_HELD	2

/*
 * A run of J ended by itself (exit or signal): its on_exit_hold, then
 * its on_exit_remove (max_retries) see the run just ended, with the
 * attributes of SET (may be NULL: what the run changed, not committed
 * yet) over the job's.  Inside the open transaction: J is held (with
 * its HoldReason), back to Idle, or completed.
 */
static int
tx_exit_policy(const struct job *j, const struct ad *set, time_t now)
{
	struct ad *full = job_full_ad(j);
	long long done = job_int(j, "NumJobCompletions", 0) + 1;
	char *text = NULL, *reason;
	int r;

	if (set != NULL)
		ad_merge(full, set);
	qlog_set_int(schedd_queue, j->cluster, j->proc, "NumJobCompletions",
	    done);
	ad_set_int(full, "NumJobCompletions", done);
	if (policy_in(full, "OnExitHold", &text) == 1) {
		reason = policy_reason("OnExitHold", text);
		tx_status(j, JOB_HELD, now);
		qlog_set_string(schedd_queue, j->cluster, j->proc,
		    "HoldReason", reason);
		qlog_set_int(schedd_queue, j->cluster, j->proc,
		    "HoldReasonCode", 3);
		free(reason);
		r = EXIT_HELD;
	} else if (free(text), text = NULL,
	    policy_in(full, "OnExitRemove", &text) == 0) {
		log_info("job %d.%d ended (run %lld), and its OnExitRemove "
		    "(%s) is FALSE: it goes back to the queue", j->cluster,
		    j->proc, done, text);
		tx_status(j, JOB_IDLE, now);
		r = EXIT_REQUEUED;
	} else {
		log_info("job %d.%d completed", j->cluster, j->proc);
		tx_status(j, JOB_COMPLETED, now);
		if (!job_has(j, "CompletionDate"))
			qlog_set_int(schedd_queue, j->cluster, j->proc,
			    "CompletionDate", (long long)now);
		r = EXIT_COMPLETED;
	}
	free(text);
	ad_free(full);
	return r;
}

/* J was just put on hold: say so in the log and its user log (012). */
static void
log_held(const struct job *j)
{
	char *reason = job_string(j, "HoldReason");

	log_info("job %d.%d held: %s", j->cluster, j->proc,
	    reason ? reason : "");
	job_log_event(j, ULOG_HELD, reason ? reason : "");
	free(reason);
}

void
queue_shadow_exited(int cluster, int proc, int status, double wall,
    int stopped)
{
	struct job_id id = { cluster, proc };
	struct job j;
	char how[64], *reason;
	time_t now = time(NULL);
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	int st, durable = 0, finish = 0, held = 0;
	long long fails, maxfails;

	describe_status(status, how, sizeof(how));
	if (job_find(cluster, proc, &j) == -1) {
		log_info("shadow of job %d.%d ended (%s); the job is gone",
		    cluster, proc, how);
		return;
	}
	st = job_status(&j);
	qlog_begin(schedd_queue);
	tx_run_ended(&j, wall, code == SHADOW_EXIT_COMPLETED);
	if (code == SHADOW_EXIT_COMPLETED) {
		switch (tx_exit_policy(&j, NULL, now)) {
		case EXIT_HELD:
			durable = held = 1;
			break;
		case EXIT_REQUEUED:
			durable = 1;
			break;
		default:
			durable = finish = 1;
		}
	} else if (st == JOB_REMOVED) {
		/* A shadow says "removed" (102) whenever SIGTERM stopped
		 * it: for condor_rm, but also for a hold, a schedd's
		 * shutdown, or anyone's kill.  The queue knows which: a
		 * removal is committed before the shadow is stopped. */
		log_info("job %d.%d removed (shadow: %s)", cluster, proc,
		    how);
		if (st != JOB_REMOVED)
			tx_status(&j, JOB_REMOVED, now);
		durable = finish = 1;
	} else if (st == JOB_HELD) {
		log_info("job %d.%d stays held (shadow: %s)", cluster, proc,
		    how);
	} else if (code == SHADOW_EXIT_HELD) {
		tx_status(&j, JOB_HELD, now);
		if (!job_has(&j, "HoldReason"))
			qlog_set_string(schedd_queue, cluster, proc,
			    "HoldReason", "held by its shadow");
		durable = held = 1;
	} else if (code == SHADOW_EXIT_REQUEUE ||
	    code == SHADOW_EXIT_REMOVED || (stopped && WIFSIGNALED(status))) {
		log_info("job %d.%d back in the queue (shadow: %s)", cluster,
		    proc, how);
		tx_status(&j, JOB_IDLE, now);
	} else {
		fails = job_int(&j, "NumShadowExceptions", 0) + 1;
		maxfails = param_int("MAX_SHADOW_EXCEPTIONS", 5);
		qlog_set_int(schedd_queue, cluster, proc,
		    "NumShadowExceptions", fails);
		if (maxfails > 0 && fails >= maxfails) {
			reason = xasprintf("its shadow failed %lld times "
			    "(last: %s)", fails, how);
			log_warnx("job %d.%d held: %s", cluster, proc,
			    reason);
			tx_status(&j, JOB_HELD, now);
			qlog_set_string(schedd_queue, cluster, proc,
			    "HoldReason", reason);
			free(reason);
			durable = held = 1;
		} else {
			log_warnx("shadow of job %d.%d failed (%s); the job "
			    "goes back to the queue", cluster, proc, how);
			tx_status(&j, JOB_IDLE, now);
		}
	}
	queue_commit(durable);
	if (held && job_find(cluster, proc, &j) == 0)
		log_held(&j);
	if (finish)
		jobs_finish(&id, 1, NULL);
	/* A machine is free: if jobs wait, a cycle now rather than at the
	 * next interval. */
	schedd_advertise_now();
}

/* Jobs the schedd runs itself (schedd_local.c). */

static const char *const local_attrs[] = {
	"LocalKeeperPid", "LocalKeeperStart", "LocalJobPid", "LocalJobStart",
	NULL
};

/* Inside the open transaction: J's run by a keeper is over. */
static void
tx_local_ended(const struct job *j, double wall)
{
	size_t i;

	for (i = 0; local_attrs[i] != NULL; i++)
		tx_unset(j, local_attrs[i]);
	tx_run_ended(j, wall, 0);
}

void
queue_local_started(int cluster, int proc, pid_t pid,
    unsigned long long start)
{
	struct job j;
	time_t now = time(NULL);

	if (job_find(cluster, proc, &j) == -1)
		return;
	qlog_begin(schedd_queue);
	tx_started(&j, now);
	qlog_set_int(schedd_queue, cluster, proc, "JobCurrentStartDate",
	    (long long)now);
	qlog_set_int(schedd_queue, cluster, proc, "LocalKeeperPid", pid);
	qlog_set_int(schedd_queue, cluster, proc, "LocalKeeperStart",
	    (long long)start);
	tx_unset(&j, "LocalJobPid");
	tx_unset(&j, "LocalJobStart");
	/* Synced now, not at the end of the turn: the keeper starts the
	 * job next, and it must never run twice. */
	queue_commit_now();
	schedd_counts_changed();
}

void
queue_local_job_pid(int cluster, int proc, pid_t pid,
    unsigned long long start)
{
	struct job j;

	if (job_find(cluster, proc, &j) == -1)
		return;
	qlog_begin(schedd_queue);
	qlog_set_int(schedd_queue, cluster, proc, "LocalJobPid", pid);
	qlog_set_int(schedd_queue, cluster, proc, "LocalJobStart",
	    (long long)start);
	queue_commit(1);
	if (job_find(cluster, proc, &j) == 0)
		job_log_event(&j, ULOG_EXECUTE, NULL);
}

void
queue_local_hold(int cluster, int proc, const char *reason, int subcode)
{
	struct job j;
	time_t now = time(NULL);
	int st;

	if (job_find(cluster, proc, &j) == -1)
		return;
	st = job_status(&j);
	if (st == JOB_REMOVED || st == JOB_COMPLETED || st == JOB_HELD)
		return;
	qlog_begin(schedd_queue);
	tx_local_ended(&j, 0);
	tx_status(&j, JOB_HELD, now);
	qlog_set_string(schedd_queue, cluster, proc, "HoldReason", reason);
	/* HTCondor's code for a job that could not start. */
	qlog_set_int(schedd_queue, cluster, proc, "HoldReasonCode", 6);
	/* The exec's errno, when it was the exec that failed. */
	qlog_set_int(schedd_queue, cluster, proc, "HoldReasonSubCode",
	    subcode);
	queue_commit(1);
	if (job_find(cluster, proc, &j) == 0)
		job_log_event(&j, ULOG_HELD, reason);
	schedd_counts_changed();
}

void
queue_local_exited(int cluster, int proc, int have, int status,
    double user, double sys, int requeue)
{
	struct job_id id = { cluster, proc };
	struct ulog_usage u;
	struct ad *set;
	struct job j;
	time_t now = time(NULL);
	long long start;
	double wall = 0, tuser, tsys;
	int st, outcome = -1, durable = 1, finish = 0, by_signal, code;

	if (job_find(cluster, proc, &j) == -1) {
		log_info("job %d.%d ended; it left the queue already",
		    cluster, proc);
		return;
	}
	st = job_status(&j);
	start = job_int(&j, "JobCurrentStartDate", 0);
	if (start > 0 && start <= (long long)now)
		wall = (double)((long long)now - start);
	by_signal = have && WIFSIGNALED(status);
	code = !have ? 0 : by_signal ? WTERMSIG(status) :
	    WIFEXITED(status) ? WEXITSTATUS(status) : 0;
	tuser = job_real(&j, "RemoteUserCpu", 0) + (have ? user : 0);
	tsys = job_real(&j, "RemoteSysCpu", 0) + (have ? sys : 0);

	qlog_begin(schedd_queue);
	tx_local_ended(&j, wall);
	if (have) {
		set = ad_new();
		ad_set_bool(set, "ExitBySignal", by_signal);
		if (by_signal) {
			ad_set_int(set, "ExitSignal", code);
			tx_unset(&j, "ExitCode");
		} else {
			ad_set_int(set, "ExitCode", code);
			tx_unset(&j, "ExitSignal");
		}
		ad_set_real(set, "RemoteUserCpu", tuser);
		ad_set_real(set, "RemoteSysCpu", tsys);
		qlog_set_int(schedd_queue, cluster, proc, "ExitBySignal",
		    by_signal);
		if (by_signal)
			qlog_set_int(schedd_queue, cluster, proc, "ExitSignal",
			    code);
		else
			qlog_set_int(schedd_queue, cluster, proc, "ExitCode",
			    code);
		qlog_set_real(schedd_queue, cluster, proc, "RemoteUserCpu",
		    tuser);
		qlog_set_real(schedd_queue, cluster, proc, "RemoteSysCpu",
		    tsys);
	} else
		set = NULL;
	if (st == JOB_REMOVED) {
		log_info("job %d.%d removed; it has ended", cluster, proc);
		finish = 1;
	} else if (st == JOB_HELD) {
		log_info("job %d.%d stays held; it has ended", cluster, proc);
	} else if (requeue || !have) {
		log_info("job %d.%d back in the queue%s", cluster, proc,
		    requeue ? " (the schedd stops)" : "");
		tx_status(&j, JOB_IDLE, now);
	} else {
		outcome = tx_exit_policy(&j, set, now);
		finish = outcome == EXIT_COMPLETED;
	}
	ad_free(set);
	queue_commit(durable);
	if (job_find(cluster, proc, &j) == -1)
		return;
	if (outcome == EXIT_COMPLETED) {
		memset(&u, 0, sizeof(u));
		u.remote_user = user;
		u.remote_sys = sys;
		u.total_remote_user = tuser;
		u.total_remote_sys = tsys;
		job_log_terminated(&j, by_signal, code, &u);
	} else if (outcome == EXIT_HELD)
		log_held(&j);
	if (finish)
		jobs_finish(&id, 1, NULL);
	schedd_counts_changed();
}

/* Queries. */

void
queue_query(const char *constraint, int history, char **names,
    u_int nnames, struct query_reply *r)
{
	struct expr *e = NULL;
	struct job j;
	struct job_scope scope;
	char err[256], **uniq = NULL;
	int merged;

	if (constraint != NULL && *constraint != '\0') {
		if ((e = expr_parse(constraint, err, sizeof(err))) == NULL) {
			reply_error(r, EINVAL, "constraint: %s", err);
			return;
		}
	}
	if (history) {
		scope_init(&scope, constraint);
		history_query(e, &scope, names, nnames, r);
		expr_free(e);
		return;
	}
	merged = expr_needs_merge(constraint);
	if (names != NULL) {
		/* Once, not per job: the names without duplicates. */
		u_int i, k = 0;

		uniq = xcalloc(nnames + 1, sizeof(*uniq));
		for (i = 0; i < nnames; i++)
			if (!listed_in(uniq, k, names[i]))
				uniq[k++] = names[i];
		names = uniq;
		nnames = k;
	}
	scope_init(&scope, constraint);
	while (!reply_full(r) && scope_next(&scope, &j)) {
		if (!job_meets(&j, e, merged))
			continue;
		job_encode(&j, r, names, nnames);
	}
	free(uniq);
	expr_free(e);
}

/* Counts for the schedd's ad. */

void
queue_counts(struct queue_counts *c)
{
	struct job j;
	char **users = NULL, *owner = NULL;
	size_t nusers = 0, capusers = 0, i;
	int ok, owner_cluster = 0;

	memset(c, 0, sizeof(*c));
	for (ok = job_next(&j, 1); ok; ok = job_next(&j, 0)) {
		c->jobs++;
		/* The schedd runs these itself: not the negotiator's. */
		if (job_local_universe(&j)) {
			switch (job_status(&j)) {
			case JOB_IDLE:
				c->sched_idle++;
				continue;
			case JOB_RUNNING:
			case JOB_SUSPENDED:
				c->sched_running++;
				continue;
			}
		}
		switch (job_status(&j)) {
		case JOB_IDLE:
			c->idle++;
			break;
		case JOB_RUNNING:
		case JOB_SUSPENDED:
			c->running++;
			continue;
		case JOB_HELD:
			c->held++;
			continue;
		case JOB_REMOVED:
			c->removed++;
			continue;
		default:
			continue;
		}
		/* Owners usually live in the cluster ad: once per cluster. */
		if (owner_cluster != j.cluster || ad_lookup(j.ad, "Owner")) {
			free(owner);
			owner = job_string(&j, "Owner");
			owner_cluster = j.cluster;
		}
		if (owner == NULL)
			continue;
		for (i = 0; i < nusers; i++)
			if (strcmp(users[i], owner) == 0)
				break;
		if (i < nusers)
			continue;
		if (nusers == capusers) {
			capusers = capusers ? capusers * 2 : 8;
			users = xreallocarray(users, capusers, sizeof(*users));
		}
		users[nusers++] = xstrdup(owner);
	}
	c->users = (long)nusers;
	for (i = 0; i < nusers; i++)
		free(users[i]);
	free(users);
	free(owner);
}

/* Actions. */

static int
clamp_prio(long long p)
{
	if (p < PRIO_MIN)
		return PRIO_MIN;
	if (p > PRIO_MAX)
		return PRIO_MAX;
	return (int)p;
}

static const char *
action_name(int action)
{
	switch (action) {
	case JOB_REMOVE:
		return "remove";
	case JOB_HOLD:
		return "hold";
	case JOB_RELEASE:
		return "release";
	case JOB_SET_PRIO:
	case JOB_ADD_PRIO:
		return "prio";
	}
	return "unknown";
}

/* Add J's id to IDS, of which *N are taken. */
static void
ids_add(struct job_id *ids, size_t *n, const struct job *j)
{
	ids[*n].cluster = j->cluster;
	ids[(*n)++].proc = j->proc;
}

/*
 * Apply ACTION to one job inside the open transaction.  Returns 1 if
 * the job changes.  Jobs to finish at once, to stop, and to tell about
 * in their user logs are noted in the lists.
 */
static int
action_one(const job_action_x *arg, const struct job *j, time_t now,
    const char *reason, struct job_id *finish, size_t *nfinish,
    struct job_id *stop, size_t *nstop)
{
	int st = job_status(j);
	long long prio;
	char *held_for;

	switch (arg->action) {
	case JOB_REMOVE:
		if (st == JOB_REMOVED || st == JOB_COMPLETED)
			return 0;
		tx_status(j, JOB_REMOVED, now);
		qlog_set_string(schedd_queue, j->cluster, j->proc,
		    "RemoveReason", reason);
		if (shadow_of(j->cluster, j->proc) != 0 ||
		    local_of(j->cluster, j->proc) != 0)
			ids_add(stop, nstop, j);
		else
			ids_add(finish, nfinish, j);
		return 1;
	case JOB_HOLD:
		if (st == JOB_HELD || st == JOB_REMOVED ||
		    st == JOB_COMPLETED)
			return 0;
		tx_status(j, JOB_HELD, now);
		qlog_set_string(schedd_queue, j->cluster, j->proc,
		    "HoldReason", reason);
		/* HTCondor's UserRequest; a policy's hold says 3. */
		qlog_set_int(schedd_queue, j->cluster, j->proc,
		    "HoldReasonCode", 1);
		if (shadow_of(j->cluster, j->proc) != 0 ||
		    local_of(j->cluster, j->proc) != 0)
			ids_add(stop, nstop, j);
		return 1;
	case JOB_RELEASE:
		if (st != JOB_HELD)
			return 0;
		tx_status(j, JOB_IDLE, now);
		if ((held_for = job_string(j, "HoldReason")) != NULL) {
			qlog_set_string(schedd_queue, j->cluster, j->proc,
			    "LastHoldReason", held_for);
			free(held_for);
		}
		tx_unset(j, "HoldReason");
		tx_unset(j, "HoldReasonCode");
		tx_unset(j, "HoldReasonSubCode");
		qlog_set_int(schedd_queue, j->cluster, j->proc,
		    "NumShadowExceptions", 0);
		/* Released, it gets MAX_JOB_STARTS_WITHOUT_RUNNING tries
		 * afresh. */
		if (job_has(j, "NumStartsWithoutRunning"))
			qlog_set_int(schedd_queue, j->cluster, j->proc,
			    "NumStartsWithoutRunning", 0);
		return 1;
	case JOB_SET_PRIO:
	case JOB_ADD_PRIO:
		if (st == JOB_REMOVED || st == JOB_COMPLETED)
			return 0;
		prio = arg->action == JOB_SET_PRIO ? arg->value :
		    job_int(j, "UserPrio", 0) + arg->value;
		qlog_set_int(schedd_queue, j->cluster, j->proc, "UserPrio",
		    clamp_prio(prio));
		return 1;
	}
	return 0;
}

/*
 * After a committed ACTION on the jobs CHANGED: their user logs hear of
 * it (REASON, or each job's own HoldReason when NULL) before the jobs
 * leave or stop; the shadows of STOP are stopped, FINISH leave.
 */
static void
actions_done(int action, const char *reason, const struct job_id *changed,
    size_t nchanged, const struct job_id *stop, size_t nstop,
    const struct job_id *finish, size_t nfinish)
{
	struct job j;
	char *own;
	size_t i;

	job_log_batch_begin();
	for (i = 0; i < nchanged; i++) {
		if (action != JOB_HOLD && action != JOB_RELEASE)
			break;
		if (job_find(changed[i].cluster, changed[i].proc, &j) == -1)
			continue;
		own = reason == NULL && action == JOB_HOLD ?
		    job_string(&j, "HoldReason") : NULL;
		job_log_event(&j, action == JOB_HOLD ? ULOG_HELD :
		    ULOG_RELEASED, reason != NULL ? reason : own != NULL ?
		    own : "");
		free(own);
	}
	job_log_batch_end();
	for (i = 0; i < nstop; i++) {
		shadow_stop(stop[i].cluster, stop[i].proc);
		local_stop(stop[i].cluster, stop[i].proc);
	}
	jobs_finish_soon(finish, nfinish);
	if (nchanged > 0) {
		if (action == JOB_RELEASE) {
			schedd_advertise_now();
			local_poke();
		}
		else
			schedd_counts_changed();
	}
}

/*
 * Whose jobs a request may change: the caller's own, or any for root
 * and QUEUE_SUPER_USERS.  A cluster's Owner is looked up once (a proc
 * that has one of its own is looked at alone).
 */
struct rights {
	char	 user[64];
	int	 super;
	char	*owner;
	int	 cluster;	/* OWNER's; 0 none yet */
	int	 mine;
};

static void
rights_init(struct rights *r, uid_t caller)
{
	memset(r, 0, sizeof(*r));
	user_name(caller, r->user, sizeof(r->user));
	r->super = caller == 0 ||
	    words_has(param("QUEUE_SUPER_USERS"), r->user);
}

static int
rights_allow(struct rights *r, const struct job *j)
{
	if (r->cluster != j->cluster || ad_lookup(j->ad, "Owner")) {
		free(r->owner);
		r->owner = job_string(j, "Owner");
		r->cluster = j->cluster;
		r->mine = r->owner != NULL && strcmp(r->owner, r->user) == 0;
	}
	return r->super || r->mine;
}

/*
 * condor_rm of a cluster (or of jobs chosen by what their cluster's ad
 * says: an owner, every job) with jobs still to materialize removes
 * those too, in the open transaction.  A constraint that names single
 * procs leaves them: only the cluster's ad is tested, without ProcId.
 * Returns how many clusters it selected.
 */
static int
remove_factories(const struct expr *e, int merged, struct rights *rights,
    job_action_res_x *res)
{
	struct job j;
	int *clusters, selected = 0;
	size_t n, i;

	n = factory_clusters(&clusters);
	for (i = 0; i < n; i++) {
		memset(&j, 0, sizeof(j));
		j.cluster = clusters[i];
		j.proc = -1;
		if ((j.ad = qlog_ad(schedd_queue, j.cluster, -1)) == NULL ||
		    !factory_cad_pending(j.ad) || !job_meets(&j, e, merged))
			continue;
		selected++;
		if (!rights_allow(rights, &j)) {
			res->denied++;
			continue;
		}
		if (factory_cancel(j.cluster))
			log_info("cluster %d: its jobs not yet in the queue "
			    "are removed by %s", j.cluster, rights->user);
	}
	free(clusters);
	return selected;
}

static void
rights_free(struct rights *r)
{
	free(r->owner);
	r->owner = NULL;
}

int
queue_tail_allowed(uid_t caller, int cluster, int proc, char *msg,
    size_t msglen)
{
	struct rights rights;
	struct job j;
	int rc = 0;

	if (job_find(cluster, proc, &j) == -1) {
		snprintf(msg, msglen, "job %d.%d is not in the queue", cluster,
		    proc);
		return ENOENT;
	}
	rights_init(&rights, caller);
	if (!rights_allow(&rights, &j)) {
		snprintf(msg, msglen, "job %d.%d is %s's, not yours", cluster,
		    proc, rights.owner ? rights.owner : "someone else");
		rc = EPERM;
	} else if (job_status(&j) != JOB_RUNNING) {
		snprintf(msg, msglen, "job %d.%d is not running", cluster,
		    proc);
		rc = ESRCH;
	}
	rights_free(&rights);
	return rc;
}

void
queue_action(uid_t caller, job_action_x *arg, job_action_res_x *res)
{
	struct job_id *finish = NULL, *stop = NULL, *changed = NULL;
	struct expr *e = NULL;
	struct job_scope scope;
	struct rights rights;
	struct job j;
	char err[256], *reason;
	size_t nfinish = 0, nstop = 0, nchanged = 0, cap = 0;
	time_t now = time(NULL);
	int merged, matched = 0;

	res->message = xstrdup("");
	if (arg->action < JOB_REMOVE || arg->action > JOB_ADD_PRIO) {
		res->code = EINVAL;
		free(res->message);
		res->message = xstrdup("unknown action");
		return;
	}
	if (*arg->constraint != '\0' &&
	    (e = expr_parse(arg->constraint, err, sizeof(err))) == NULL) {
		res->code = EINVAL;
		free(res->message);
		res->message = xasprintf("constraint: %s", err);
		return;
	}
	merged = expr_needs_merge(arg->constraint);
	rights_init(&rights, caller);
	reason = *arg->reason != '\0' ? xstrdup(arg->reason) :
	    xasprintf("via condor_%s (by user %s)",
	    arg->action == JOB_HOLD ? "hold" :
	    arg->action == JOB_RELEASE ? "release" : "rm", rights.user);

	qlog_begin(schedd_queue);
	scope_init(&scope, arg->constraint);
	while (scope_next(&scope, &j)) {
		if (!job_meets(&j, e, merged))
			continue;
		matched++;
		if (!rights_allow(&rights, &j)) {
			res->denied++;
			continue;
		}
		if (nchanged == cap) {
			cap = cap ? cap * 2 : 64;
			finish = xreallocarray(finish, cap, sizeof(*finish));
			stop = xreallocarray(stop, cap, sizeof(*stop));
			changed = xreallocarray(changed, cap,
			    sizeof(*changed));
		}
		if (action_one(arg, &j, now, reason, finish, &nfinish, stop,
		    &nstop)) {
			changed[nchanged].cluster = j.cluster;
			changed[nchanged++].proc = j.proc;
		}
	}
	if (arg->action == JOB_REMOVE)
		matched += remove_factories(e, merged, &rights, res);
	rights_free(&rights);
	expr_free(e);
	if (queue_commit_request(1, err, sizeof(err)) == -1) {
		res->code = EIO;
		free(res->message);
		res->message = xstrdup(err);
		goto out;
	}
	res->count = (int)nchanged;
	if (matched == 0) {
		res->code = ENOENT;
		free(res->message);
		res->message = xstrdup("no job matches");
	}
	if (nchanged > 0)
		log_info("%s of %zu job(s) by %s (%d denied)",
		    action_name(arg->action), nchanged, rights.user,
		    res->denied);
	/* The factory files of clusters removed go once the removal is
	 * on the disk (queue_flush). */
	if (arg->action == JOB_REMOVE)
		factory_sync_wanted = 1;
	actions_done(arg->action, reason, changed, nchanged, stop, nstop,
	    finish, nfinish);
out:
	free(reason);
	free(finish);
	free(stop);
	free(changed);
}

/*
 * What condor_qedit may not change: who a job is, what it runs and where
 * it stands, besides what the schedd keeps (schedd_owned).
 */
static const char *const edit_refused[] = {
	"JobStatus", "LastJobStatus", "User", "Cmd", "JobUniverse", "MyType",
	"TargetType", "GlobalJobId", "ProcExecutable", "UidDomain",
	"FileSystemDomain", "AcctGroup", "AcctGroupUser", "AccountingGroup",
	NULL
};

void
queue_edit(uid_t caller, job_edit_x *arg, job_action_res_x *res)
{
	struct expr *e = NULL, *v;
	struct job_scope scope;
	struct rights rights;
	struct job j;
	char err[256];
	int merged, matched = 0, changed = 0;

	res->message = NULL;
	if (!ad_name_valid(arg->name)) {
		res->code = EINVAL;
		res->message = xasprintf("\"%.64s\" is not an attribute name",
		    arg->name);
		return;
	}
	if (queue_attr_in(schedd_owned, arg->name) ||
	    queue_attr_in(edit_refused, arg->name)) {
		res->code = EACCES;
		res->message = xasprintf("%s is the schedd's to set, not a "
		    "user's", arg->name);
		return;
	}
	if ((v = expr_parse(arg->value, err, sizeof(err))) == NULL) {
		res->code = EINVAL;
		res->message = xasprintf("%s = %.64s: %s", arg->name,
		    arg->value, err);
		return;
	}
	expr_free(v);
	if (*arg->constraint != '\0' &&
	    (e = expr_parse(arg->constraint, err, sizeof(err))) == NULL) {
		res->code = EINVAL;
		res->message = xasprintf("constraint: %s", err);
		return;
	}
	merged = expr_needs_merge(arg->constraint);
	rights_init(&rights, caller);

	qlog_begin(schedd_queue);
	scope_init(&scope, arg->constraint);
	while (scope_next(&scope, &j)) {
		if (!job_meets(&j, e, merged))
			continue;
		matched++;
		if (!rights_allow(&rights, &j)) {
			res->denied++;
			continue;
		}
		if (qlog_set(schedd_queue, j.cluster, j.proc, arg->name,
		    arg->value, err, sizeof(err)) == -1) {
			qlog_abort(schedd_queue);
			rights_free(&rights);
			expr_free(e);
			res->code = EINVAL;
			res->message = xstrdup(err);
			return;
		}
		changed++;
	}
	rights_free(&rights);
	expr_free(e);
	if (queue_commit_request(1, err, sizeof(err)) == -1) {
		res->code = EIO;
		res->message = xstrdup(err);
		return;
	}
	res->count = changed;
	if (matched == 0) {
		res->code = ENOENT;
		res->message = xstrdup("no job matches");
	} else
		res->message = xstrdup("");
	if (changed > 0) {
		log_info("%s set in %d job(s) by %s (%d denied)", arg->name,
		    changed, rights.user, res->denied);
		schedd_counts_changed();
	}
}

void
queue_adopted_ended(int cluster, int proc)
{
	struct job j;
	long long code, start;
	time_t now = time(NULL);
	double wall = 0;
	char err[256];
	int status;

	if (job_find(cluster, proc, &j) == -1)
		return;
	code = job_int(&j, "ShadowExitCode", -1);
	start = job_int(&j, "JobCurrentStartDate", 0);
	if (start > 0 && start <= (long long)now)
		wall = (double)((long long)now - start);
	if (code >= 0 && code <= 255)
		status = (int)code << 8;	/* as wait() says "exited" */
	else {
		log_warnx("the adopted shadow of job %d.%d ended without a "
		    "word", cluster, proc);
		status = SIGKILL;		/* "killed": a failure */
	}
	queue_shadow_exited(cluster, proc, status, wall, 0);
	if (job_find(cluster, proc, &j) == 0 && job_has(&j,
	    "ShadowExitCode")) {
		qlog_begin(schedd_queue);
		qlog_delete(schedd_queue, cluster, proc, "ShadowExitCode");
		(void)queue_commit_request(0, err, sizeof(err));
	}
}

/*
 * Every PERIODIC_EXPR_INTERVAL: a job whose PeriodicRemove is TRUE is
 * removed, else one whose PeriodicHold is TRUE is held (HoldReasonCode
 * 3, as HTCondor's policy holds), and a held job whose PeriodicRelease
 * is TRUE is released; one of them a job a pass.
 */
void
queue_policy_tick(void)
{
	static const struct { const char *attr; int action; } rules[] = {
		{ "PeriodicRemove", JOB_REMOVE },
		{ "PeriodicHold", JOB_HOLD },
		{ "PeriodicRelease", JOB_RELEASE },
	};
	struct job_id *ids[3] = { NULL, NULL, NULL }, *stop = NULL;
	struct job_id *finish = NULL;
	size_t n[3] = { 0, 0, 0 }, nstop = 0, nfinish = 0, cap = 0, k;
	size_t total = 0;
	struct job_scope scope;
	struct job j;
	job_action_x arg;
	char *text, *reason;
	time_t now = time(NULL);
	int st;

	memset(&arg, 0, sizeof(arg));
	qlog_begin(schedd_queue);
	scope_init(&scope, "");
	while (scope_next(&scope, &j)) {
		st = job_status(&j);
		if (st == JOB_REMOVED || st == JOB_COMPLETED)
			continue;
		for (k = 0; k < 3; k++) {
			if ((rules[k].action == JOB_RELEASE) != (st == JOB_HELD))
				continue;
			if (policy_of(&j, rules[k].attr, &text) != 1)
				continue;
			if (total == cap) {
				cap = cap ? 2 * cap : 16;
				for (st = 0; st < 3; st++)
					ids[st] = xreallocarray(ids[st], cap,
					    sizeof(*ids[st]));
				stop = xreallocarray(stop, cap, sizeof(*stop));
				finish = xreallocarray(finish, cap,
				    sizeof(*finish));
			}
			reason = policy_reason(rules[k].attr, text);
			arg.action = rules[k].action;
			if (action_one(&arg, &j, now, reason, finish, &nfinish,
			    stop, &nstop)) {
				ids[k][n[k]].cluster = j.cluster;
				ids[k][n[k]++].proc = j.proc;
				total++;
				if (arg.action == JOB_HOLD)
					qlog_set_int(schedd_queue, j.cluster,
					    j.proc, "HoldReasonCode", 3);
				log_info("job %d.%d %s: %s", j.cluster, j.proc,
				    arg.action == JOB_HOLD ? "held" :
				    arg.action == JOB_REMOVE ? "removed" :
				    "released", reason);
			}
			free(reason);
			free(text);
			break;
		}
	}
	queue_commit(total > 0);
	actions_done(JOB_HOLD, NULL, ids[1], n[1], NULL, 0, NULL, 0);
	actions_done(JOB_RELEASE, "its periodic_release expression "
	    "evaluated to TRUE", ids[2], n[2], NULL, 0, NULL, 0);
	actions_done(JOB_REMOVE, NULL, ids[0], n[0], stop, nstop, finish,
	    nfinish);
	for (k = 0; k < 3; k++)
		free(ids[k]);
	free(stop);
	free(finish);
}

/* A shadow's update. */

int
queue_attr_in(const char *const *names, const char *name)
{
	size_t i;

	for (i = 0; names[i] != NULL; i++)
		if (strcasecmp(names[i], name) == 0)
			return 1;
	return 0;
}

void
queue_job_update(uid_t caller, job_update_x *arg, status_x *res)
{
	struct buf skipped;
	struct value v;
	struct job j;
	const char *name, *text;
	char err[512];
	uid_t uid;
	gid_t gid;
	u_int i;
	int st, status_changed = 0;

	res->code = 0;
	if (job_find(arg->id.cluster, arg->id.proc, &j) == -1) {
		res->code = ENOENT;
		res->message = xstrdup("no such job");
		return;
	}
	if (caller != 0 && (job_owner_ids(&j, &uid, &gid) == -1 ||
	    uid != caller)) {
		res->code = EPERM;
		res->message = xstrdup("not the job's owner");
		return;
	}
	st = job_status(&j);
	buf_init(&skipped);
	qlog_begin(schedd_queue);
	for (i = 0; i < arg->attrs.attrs.attrs_len; i++) {
		name = arg->attrs.attrs.attrs_val[i].name;
		text = arg->attrs.attrs.attrs_val[i].text;
		if (queue_attr_in(schedd_owned, name)) {
			buf_printf(&skipped, " %s", name);
			continue;
		}
		if (strcasecmp(name, "JobStatus") == 0) {
			expr_eval_text(text, NULL, NULL, &v);
			if (v.type != VAL_INT ||
			    (v.u.i != JOB_RUNNING && v.u.i != JOB_SUSPENDED) ||
			    (st != JOB_RUNNING && st != JOB_SUSPENDED)) {
				value_free(&v);
				buf_printf(&skipped, " %s", name);
				continue;
			}
			if (v.u.i != st) {
				qlog_set_int(schedd_queue, j.cluster, j.proc,
				    "EnteredCurrentStatus",
				    (long long)time(NULL));
				status_changed = 1;
			}
			value_free(&v);
		}
		if (qlog_set(schedd_queue, j.cluster, j.proc, name, text, err,
		    sizeof(err)) == -1) {
			qlog_abort(schedd_queue);
			res->code = EINVAL;
			res->message = xstrdup(err);
			buf_free(&skipped);
			return;
		}
	}
	/* Synced with the turn's other changes before the shadow hears
	 * that it is done. */
	if (queue_commit_request(1, err, sizeof(err)) == -1) {
		res->code = EIO;
		res->message = xstrdup(err);
		buf_free(&skipped);
		return;
	}
	if (skipped.len > 0) {
		log_warnx("update of job %d.%d: left out%s", j.cluster,
		    j.proc, skipped.data);
		res->message = xasprintf("left out (the schedd keeps them):%s",
		    skipped.data);
	} else
		res->message = xstrdup("");
	buf_free(&skipped);
	if (status_changed)
		schedd_counts_changed();
}

/* Start-up. */

/* Remove leftovers a crash may leave in SPOOL. */
static void
spool_cleanup(void)
{
	struct dirent *d;
	DIR *dir;
	char *path;
	int c, p, n;

	if ((dir = opendir(spool)) == NULL) {
		log_warn("cannot read %s", spool);
		return;
	}
	while ((d = readdir(dir)) != NULL) {
		int stale = 0;
		size_t len = strlen(d->d_name);

		if (strncmp(d->d_name, "cluster", 7) != 0)
			continue;
		n = 0;
		if (len > 4 && strcmp(d->d_name + len - 4, ".tmp") == 0)
			stale = 1;
		else if (sscanf(d->d_name, "cluster%d.proc%d.ckpt%n", &c, &p,
		    &n) == 2 && (size_t)n == len)
			stale = qlog_ad(schedd_queue, c, p) == NULL;
		else if (sscanf(d->d_name, "cluster%d.proc%d.ickpt%n", &c, &p,
		    &n) == 2 && (size_t)n == len)
			stale = qlog_ad(schedd_queue, c, p) == NULL;
		else if (sscanf(d->d_name, "cluster%d.proc%d.xfer%n", &c, &p,
		    &n) == 2 && ((size_t)n == len ||
		    strcmp(d->d_name + n, ".new") == 0))
			stale = qlog_ad(schedd_queue, c, p) == NULL;
		else if (sscanf(d->d_name, "cluster%d.ickpt%n", &c, &n) == 1 &&
		    (size_t)n == len)
			stale = qlog_ad(schedd_queue, c, -1) == NULL;
		else if (sscanf(d->d_name, "cluster%d.factory%n", &c,
		    &n) == 1 && ((size_t)n == len ||
		    strcmp(d->d_name + n, ".tmp") == 0))
			/* A submission that never committed, or a factory
			 * done or removed before its file went. */
			stale = (size_t)n != len || !factory_pending(c);
		if (!stale)
			continue;
		path = xasprintf("%s/%s", spool, d->d_name);
		log_info("removing stale %s", path);
		if (daemon_remove_tree(path) == -1)
			log_warn("cannot remove %s", path);
		free(path);
	}
	closedir(dir);
}

/*
 * After a restart: jobs the log says are running lost their shadows
 * (which are stopped if they still run) and go back to Idle; removed
 * and completed jobs that did not make it out of the queue finish
 * leaving it, without a second history record; cluster ads without
 * procs go.
 */
static void
recover(void)
{
	struct job_id *finish = NULL, *ended = NULL, *lended = NULL;
	size_t nlended = 0, caplended = 0;
	const struct qlog_entry *e;
	struct job j;
	size_t nfinish = 0, cap = 0, i, requeued = 0, empty = 0, adopted = 0;
	size_t nended = 0, capended = 0, unexpanded = 0;
	int *clusters, *procs, *found, ok, st;
	time_t now = time(NULL);
	long long pid;

	qlog_begin(schedd_queue);
	/* A queue written before jobs that never ran were Idle holds
	 * Condor 4's Unexpanded (0): it becomes 1, so that the ads say
	 * what `JobStatus == 1' looks for. */
	for (e = qlog_first(schedd_queue); e != NULL; e = qlog_next(e)) {
		long long old;

		if (ad_get_int(qlog_entry_ad(e), "JobStatus", &old) == 0 &&
		    old == JOB_OLD_UNEXPANDED) {
			qlog_set_int(schedd_queue, qlog_entry_cluster(e),
			    qlog_entry_proc(e), "JobStatus", JOB_IDLE);
			unexpanded++;
		}
	}
	if (unexpanded > 0)
		log_info("%zu ad(s) of an older queue: JobStatus 0 "
		    "(unexpanded) read as 1 (idle)", unexpanded);
	for (ok = job_next(&j, 1); ok; ok = job_next(&j, 0)) {
		queue_cluster_add(j.cluster, 1);
		st = job_status(&j);
		/* A job the last schedd ran itself, through a keeper. */
		if (job_local_universe(&j) && job_has(&j, "LocalKeeperPid")) {
			switch (local_recover(&j)) {
			case LOCAL_RUNS:
				adopted++;
				continue;
			case LOCAL_ENDED:
				if (nlended == caplended) {
					caplended = caplended ?
					    caplended * 2 : 16;
					lended = xreallocarray(lended,
					    caplended, sizeof(*lended));
				}
				ids_add(lended, &nlended, &j);
				continue;
			}
			tx_local_ended(&j, 0);
			if (st == JOB_RUNNING || st == JOB_SUSPENDED) {
				log_warnx("job %d.%d: nothing of its run is "
				    "left (the host restarted?); it runs "
				    "again", j.cluster, j.proc);
				tx_status(&j, JOB_IDLE, now);
				requeued++;
				continue;
			}
		}
		/* The shadow of a running job outlives its schedd, and so
		 * does one told to stop (condor_rm, condor_hold) that had
		 * not yet when the schedd died. */
		pid = job_int(&j, "ShadowPid", 0);
		if ((st == JOB_RUNNING || st == JOB_SUSPENDED) && pid > 0 &&
		    pid <= INT_MAX && shadow_adopt(j.cluster, j.proc,
		    (pid_t)pid)) {
			adopted++;
			continue;	/* it runs on, its shadow adopted */
		}
		if (pid > 0 && pid <= INT_MAX)
			shadow_orphan(j.cluster, j.proc, (pid_t)pid);
		/* Its shadow ended while no schedd heard it, its outcome
		 * left in ShadowExitCode: taken below, as if adopted. */
		if ((st == JOB_RUNNING || st == JOB_SUSPENDED) &&
		    job_int(&j, "ShadowExitCode", -1) >= 0 &&
		    !shadow_job_busy(j.cluster, j.proc)) {
			if (nended == capended) {
				capended = capended ? capended * 2 : 16;
				ended = xreallocarray(ended, capended,
				    sizeof(*ended));
			}
			ids_add(ended, &nended, &j);
			continue;
		}
		/* Its shadow died with the last schedd: its starter may
		 * run on (a lease).  A new shadow reconnects to it, or the
		 * job does not run again before it stops. */
		if ((st == JOB_RUNNING || st == JOB_SUSPENDED) &&
		    !shadow_job_busy(j.cluster, j.proc) &&
		    (pid = shadow_reconnect_kept(j.cluster, j.proc)) > 0) {
			qlog_set_int(schedd_queue, j.cluster, j.proc,
			    "ShadowPid", pid);
			adopted++;
			continue;
		}
		if (st == JOB_RUNNING || st == JOB_SUSPENDED) {
			if (!shadow_job_busy(j.cluster, j.proc))
				(void)shadow_fence_kept(j.cluster, j.proc);
			tx_run_ended(&j, 0, 0);
			tx_status(&j, JOB_IDLE, now);
			requeued++;
		} else if (pid > 0)
			tx_run_ended(&j, 0, 0);
		if (st == JOB_REMOVED || st == JOB_COMPLETED) {
			if (nfinish == cap) {
				cap = cap ? cap * 2 : 16;
				finish = xreallocarray(finish, cap,
				    sizeof(*finish));
			}
			ids_add(finish, &nfinish, &j);
		}
	}
	for (e = qlog_first(schedd_queue); e != NULL; e = qlog_next(e)) {
		if (qlog_entry_proc(e) >= 0)
			continue;
		if (ccount_slot(qlog_entry_cluster(e), 0) == NULL &&
		    !factory_cad_pending(qlog_entry_ad(e))) {
			qlog_destroy(schedd_queue, qlog_entry_cluster(e), -1);
			empty++;
		}
	}
	if (qlog_pending(schedd_queue) > 0)
		queue_commit(1);
	else
		qlog_abort(schedd_queue);
	if (requeued > 0)
		log_info("%zu job(s) that were running are idle again",
		    requeued);
	if (adopted > 0)
		log_info("%zu running job(s) run on with their shadows",
		    adopted);
	if (empty > 0)
		log_info("%zu empty cluster(s) removed", empty);
	for (i = 0; i < nended; i++) {
		log_info("the shadow of job %d.%d ended while no schedd ran",
		    ended[i].cluster, ended[i].proc);
		queue_adopted_ended(ended[i].cluster, ended[i].proc);
	}
	free(ended);
	for (i = 0; i < nlended; i++)
		local_ended(lended[i].cluster, lended[i].proc);
	free(lended);
	shadow_claims_sweep();
	if (nfinish > 0) {
		clusters = xcalloc(nfinish, sizeof(int));
		procs = xcalloc(nfinish, sizeof(int));
		found = xcalloc(nfinish, sizeof(int));
		for (i = 0; i < nfinish; i++) {
			clusters[i] = finish[i].cluster;
			procs[i] = finish[i].proc;
		}
		history_find(clusters, procs, nfinish, found);
		log_info("%zu finished job(s) leave the queue", nfinish);
		jobs_finish(finish, nfinish, found);
		free(clusters);
		free(procs);
		free(found);
	}
	free(finish);
}

int
queue_open(char *err, size_t errlen)
{
	const struct qlog_stats *st;
	char *path;
	int max_cluster = 0;
	const struct qlog_entry *e;

	free(spool);
	spool = xstrdup(param("SPOOL"));
	if (daemon_mkdir(spool, 0755) == -1) {
		snprintf(err, errlen, "cannot create %s: %s", spool,
		    strerror(errno));
		return -1;
	}
	if (history_open(err, errlen) == -1)
		return -1;
	path = xasprintf("%s/%s", spool, QUEUE_LOG_NAME);
	schedd_queue = qlog_open(path, err, errlen);
	free(path);
	if (schedd_queue == NULL)
		return -1;
	st = qlog_replay_stats(schedd_queue);
	log_info("job queue: %zu ads from %lld transactions%s",
	    qlog_count(schedd_queue), st->transactions,
	    st->dropped_bytes ? " (a damaged tail was cut)" : "");
	for (e = qlog_first(schedd_queue); e != NULL; e = qlog_next(e))
		if (qlog_entry_cluster(e) > max_cluster)
			max_cluster = qlog_entry_cluster(e);
	if (max_cluster >= qlog_counter(schedd_queue)) {
		/* Never hand out an id the queue already uses. */
		qlog_begin(schedd_queue);
		qlog_set_counter(schedd_queue, max_cluster + 1);
		queue_commit(1);
	}
	/* From here on durable commits are synced once per turn of the
	 * loop; the recovery's are synced, and its finished jobs leave,
	 * before anything is served. */
	qlog_set_group(schedd_queue, 1);
	recover();
	queue_flush(NULL);
	submit_events_recover();
	factory_recover();
	spool_cleanup();
	if (qlog_should_compact(schedd_queue,
	    param_double("QUEUE_COMPACT_RATIO", 4.0)))
		compact_tick(NULL);
	return 0;
}

void
queue_close(void)
{
	queue_flush(NULL);
	event_timer_cancel(compact_timer);
	compact_timer = 0;
	qlog_close(schedd_queue);
	schedd_queue = NULL;
	history_close();
}
