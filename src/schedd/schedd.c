/*
 * NAME
 *	condor_schedd - the job queue of a submitting host
 *
 * DESCRIPTION
 *	Keeps this host's jobs in a durable queue, $(SPOOL)/job_queue.log:
 *	an append-only transaction log, synced before any request that
 *	changes a job is answered (group commit: written as each change is
 *	made, synced once per turn of the event loop for all the turn's
 *	changes, whose answers are sent only then; queries and the
 *	negotiator's requests are served after the sync; the jobs that
 *	leave the queue go to the history, one write and one sync, after
 *	it), replayed at start-up (a torn or
 *	corrupt tail is cut at the last complete transaction, with a
 *	warning, and kept in job_queue.log.bad), and compacted by writing
 *	the live queue to a new file and renaming it over the old one when
 *	the log has grown to QUEUE_COMPACT_RATIO times the queue (a
 *	compaction that fails leaves the log as it was and is tried again
 *	after QUEUE_COMPACT_RETRY seconds).
 *
 *	A submission is one transaction: a new cluster of N procs.  The
 *	schedd sets ClusterId, ProcId, Owner (the caller's user name, from
 *	the kernel), QDate, JobStatus (1, Idle), EnteredCurrentStatus,
 *	NumJobStarts, NumCkpts, ImageSize (if missing: the executable's
 *	size in KiB), UserPrio (0 if missing), Universe and JobUniverse
 *	(standard by default), and zero CPU and wall times.  It reads the
 *	executable with the submitter's rights and copies it to
 *	$(SPOOL)/cluster<C>.ickpt before committing; a standard-universe
 *	executable must carry the .condor_relinked section of condor_cc.
 *	A missing, unreadable or non-regular executable queues nothing.
 *	An executable named with $$(Attr) is not copied: the shadow finds
 *	the program named for the matched machine.  A cluster with
 *	JobMaterializeLimit or JobMaterializeMaxIdle keeps its jobs past
 *	them in $(SPOOL)/cluster<C>.factory and puts them in the queue as
 *	room is made (schedd_factory.c).
 *
 *	Every SCHEDD_INTERVAL seconds, and soon after its counts change,
 *	it sends the collector its ad: Name ($(HOST)), ScheddIpAddr,
 *	TotalIdleJobs, TotalRunningJobs,
 *	TotalHeldJobs, TotalJobAds, NumUsers (owners with idle jobs),
 *	MaxJobsRunning.  New idle jobs, and a shadow's end while jobs
 *	wait, also poke the negotiator (NEGOTIATOR_RESCHEDULE, not waiting
 *	for its answer), at most twice a second.
 *
 *	In a negotiation cycle it offers its idle jobs best first by PRIO,
 *	each once, and on a match starts "$(SHADOW) C.P STARTD_ADDR
 *	MACHINE" for it (at most MAX_JOB_STARTS per cycle, MAX_JOBS_RUNNING
 *	at once); the job becomes Running.  The shadow's exit status says
 *	what became of the job: 100 completed (it goes to the history and
 *	leaves the queue), 107 back to the queue (Idle), 112 held (with
 *	the HoldReason the shadow sent), 102 removed; anything else counts
 *	as a failure and requeues the job, until MAX_SHADOW_EXCEPTIONS
 *	failures in a row put it on hold.  Jobs that were running when a
 *	schedd died go back to Idle when the next one starts, once their
 *	old shadows are gone.
 *
 *	Claim reuse (schedd_shadow.c): when a job completed, its claim
 *	runs the next idle job of the same Owner, AcctGroup and niceness
 *	whose Requirements are TRUE against the slot's current ad (asked
 *	of the startd, STARTD_CLAIM_AD) and, in a dynamic slot, whose
 *	requests fit its share: a new shadow at once, with the same claim,
 *	no negotiation cycle between, until CLAIM_WORKLIFE seconds after
 *	the claim began; the startd decides START for it again.  Else the
 *	startd is told the claim has no more jobs (STARTD_END_CLAIM).
 *
 *	condor_rm of a running job sends its shadow SIGTERM (SIGKILL three
 *	times RPC_TIMEOUT later if it is still there); the job is Removed at
 *	once and leaves for the history when the shadow ends.
 *	condor_hold does the same but keeps the job (and its checkpoint),
 *	Held with its HoldReason; condor_release makes it Idle.  A user
 *	may act only on their own jobs; root and QUEUE_SUPER_USERS on all.
 *	The schedd writes the user-log events submitted (000; a job with a
 *	DAGNodeName gets a second line "    DAG Node: NAME"), aborted
 *	(009), held (012) and released (013), as the job's owner; the
 *	shadow writes the others.
 *
 *	Jobs of the scheduler universe (JobUniverse 7) and of the local
 *	universe (12), condor_dagman's, are never offered to the
 *	negotiator: the schedd runs them itself on its host, counted apart
 *	in its ad (TotalSchedulerJobsIdle, TotalSchedulerJobsRunning).
 *	About once a second, and at once after a submission, release or
 *	requeue, it starts the idle ones, at most
 *	MAX_SCHEDULER_JOBS_RUNNING at a time, each through a keeper: a
 *	fork of the schedd that keeps none of its descriptors, leads a
 *	session of its own and outlives the schedd and the master.  The
 *	job is committed Running (LocalKeeperPid, LocalKeeperStart: the
 *	22nd field of /proc/PID/stat) and synced before the keeper may
 *	start it.  The job leads its own process group, runs as its Owner
 *	(a schedd that is not root holds other users' jobs) in Iwd with
 *	In, Out and Err (appended to, as the owner; default /dev/null),
 *	Args and Env as a starter gives them and CONDOR_ID=C.P, and execs
 *	Cmd (LocalJobPid, LocalJobStart; 001 in its user log).  One that
 *	cannot start is held.  Its keeper writes how it ended to
 *	$(SPOOL)/local/C.P.exit and exits; the schedd sets ExitCode or
 *	ExitSignal, ExitBySignal, RemoteUserCpu, RemoteSysCpu and applies
 *	OnExitHold and OnExitRemove as for a shadow's job: completed (005,
 *	the history), held, or Idle again (no event).  condor_rm and
 *	condor_hold send its process group SIGTERM, SIGKILL VACATE_GRACE
 *	seconds later if its keeper has not ended; so does the schedd's
 *	shutdown, which requeues the jobs.  A schedd that starts completes
 *	a job whose exit file is there, adopts a keeper still alive (same
 *	pid and start time; looked at once a second), watches a job whose
 *	keeper is gone and runs it again when it ends (its status lost),
 *	and runs again one of which nothing is left.
 *
 * PROTOCOL
 *	Serves SCHEDD_PROG (include/schedd_rpc.x) on the Unix-domain socket
 *	$(SPOOL)/.schedd_socket, where the caller's uid comes from the
 *	kernel (SO_PEERCRED): submitting (SCHEDD_SUBMIT, or
 *	SCHEDD_SUBMIT_BEGIN and SCHEDD_SUBMIT_MORE for a large cluster,
 *	SCHEDD_SUBMIT_MANY for several clusters in one transaction),
 *	queries (SCHEDD_QUERY, SCHEDD_QUERY_ATTRS), actions (SCHEDD_ACTION:
 *	remove, hold, release, priority), SCHEDD_EDIT (condor_qedit),
 *	SCHEDD_TAIL (condor_tail: a piece of a running job's output as its
 *	execute host holds it, for its owner or a super user, got from the
 *	startd with STARTD_TAIL and the claim's capability),
 *	SCHEDD_RESCHEDULE and the shadows'
 *	job updates (SCHEDD_JOB_UPDATE, which may not change the attributes
 *	the schedd keeps: see schedd_rpc.x); SCHEDD_NULL is a ping.  Over TCP at BIND_ADDRESS:SCHEDD_PORT
 *	(ScheddIpAddr) it answers queries from HOSTALLOW_READ and
 *	SCHEDD_NEXT_JOB, SCHEDD_MATCH and SCHEDD_RESCHEDULE from
 *	HOSTALLOW_WRITE (the negotiator); submitting and changing jobs are
 *	refused there.  Calls COLLECTOR_PROG (its ad), NEGOTIATOR_PROG
 *	(NEGOTIATOR_RESCHEDULE) and STARTD_PROG (STARTD_TAIL;
 *	STARTD_CLAIM_AD and STARTD_END_CLAIM for claim reuse, waiting at
 *	most five seconds).
 *
 * SIGNALS
 *	SIGTERM, SIGINT: send every shadow and every scheduler job's
 *	process group SIGTERM, wait up to ten seconds for them (their jobs
 *	go back to the queue; a scheduler job still there after
 *	VACATE_GRACE gets SIGKILL), withdraw the ad, exit.
 *	SIGHUP: re-read the configuration.  SIGCHLD: reap shadows and
 *	keepers.
 *
 * CONFIGURATION
 *	SPOOL, LOG, SCHEDD_LOG, HOST, BIND_ADDRESS, SCHEDD_PORT,
 *	SCHEDD_INTERVAL, SHADOW, MAX_JOB_STARTS, MAX_JOBS_RUNNING,
 *	MAX_SCHEDULER_JOBS_RUNNING, VACATE_GRACE, PRIO,
 *	QUEUE_SUPER_USERS, QUEUE_COMPACT_RATIO, QUEUE_COMPACT_RETRY,
 *	MAX_SHADOW_EXCEPTIONS, CLAIM_WORKLIFE, RPC_TIMEOUT, HOSTALLOW_READ,
 *	HOSTALLOW_WRITE, COLLECTOR_HOST.
 *
 * FILES
 *	$(SPOOL)/job_queue.log		the queue
 *	$(SPOOL)/job_queue.log.bad	a damaged tail cut at start-up
 *	$(SPOOL)/history		finished jobs, one ad each
 *	$(SPOOL)/cluster<C>.ickpt	a cluster's executable
 *	$(SPOOL)/cluster<C>.proc<P>.ickpt a job's, when its queue statement
 *					named another (a link to one copy)
 *	$(SPOOL)/cluster<C>.proc<P>.ckpt a job's checkpoint (the shadow's)
 *	$(SPOOL)/cluster<C>.proc<P>.xfer the files an evicted vanilla job
 *					kept (ON_EXIT_OR_EVICT, the shadow's)
 *	$(SPOOL)/local/C.P.exit		how a scheduler job ended (its
 *					keeper's; mode 0600, dir 0700)
 *	$(SPOOL)/.schedd_socket		the local service
 *	$(SPOOL)/.schedd_lock		held while a schedd runs
 *	$(LOG)/SchedLog, $(LOG)/.schedd_address.
 */
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ad.h"
#include "auth.h"
#include "collector_client.h"
#include "config.h"
#include "daemon.h"
#include "event.h"
#include "log.h"
#include "queue_log.h"
#include "rpcutil.h"
#include "schedd.h"
#include "schedd_rpc.h"
#include "startd_rpc.h"
#include "xalloc.h"

#define SHUTDOWN_WAIT	10.0	/* seconds for shadows to leave */
#define COUNTS_DELAY	0.5	/* seconds: changes coalesce */
#define NOW_SPACING	0.02	/* seconds between urgent ads */

char		 schedd_addr[ADDR_STRLEN];

static int	 lock_fd = -1;
static char	*socket_path;
static long	 ad_timer, counts_timer, now_timer, policy_timer;
static struct queue_counts last_sent;
static int	 advertised;
static int	 collector_down;
static double	 last_now = -1e9;
static int	 poke_forced;

/* The dispatcher rpcgen writes in schedd_rpc_svc.c. */
void	schedd_prog_1(struct svc_req *, SVCXPRT *);


/*
 * The caller's uid when the request came over the Unix-domain socket.
 * A remote caller is refused WHAT: -1, a warning, and the reply's *CODE
 * and *MESSAGE are set to EPERM and REFUSAL.
 */
static int
local_caller(struct svc_req *req, uid_t *uid, const char *what, int *code,
    char **message, const char *refusal)
{
	char from[64];

	if (rpc_caller_uid(req, uid) == 0)
		return 0;
	rpc_caller_ip(req, from, sizeof(from));
	log_warnx("%s from %s refused: local callers only", what, from);
	*code = EPERM;
	*message = xstrdup(refusal);
	return -1;
}

/* The submitting calls: RES cleared, and local callers only. */
static int
local_submitter(struct svc_req *req, uid_t *uid, submit_res_x *res)
{
	memset(res, 0, sizeof(*res));
	return local_caller(req, uid, "submit", &res->code, &res->message,
	    "submitting is possible only on the schedd's host");
}

static int
host_allowed(struct svc_req *req, const char *list, const char *what)
{
	char from[64];

	if (rpc_host_allowed(req, list))
		return 1;
	rpc_caller_ip(req, from, sizeof(from));
	log_warnx("%s from %s refused (%s)", what, from, list);
	return 0;
}

bool_t
schedd_null_1_svc(void *arg, void *res, struct svc_req *req)
{
	return TRUE;
}

bool_t
schedd_submit_1_svc(submit_x *arg, submit_res_x *res, struct svc_req *req)
{
	uid_t uid;

	if (local_submitter(req, &uid, res) == 0)
		submit_one(uid, arg, res);
	return TRUE;
}

bool_t
schedd_submit_begin_1_svc(submit_x *arg, submit_res_x *res,
    struct svc_req *req)
{
	uid_t uid;

	if (local_submitter(req, &uid, res) == 0)
		submit_begin(uid, arg, res);
	return TRUE;
}

bool_t
schedd_submit_more_1_svc(submit_more_x *arg, submit_res_x *res,
    struct svc_req *req)
{
	uid_t uid;

	if (local_submitter(req, &uid, res) == 0)
		submit_more(uid, arg, res);
	return TRUE;
}

bool_t
schedd_submit_many_1_svc(submit_many_x *arg, submit_many_res_x *res,
    struct svc_req *req)
{
	submit_res_x one;
	uid_t uid;

	memset(&one, 0, sizeof(one));
	if (local_submitter(req, &uid, &one) == 0) {
		free(one.message);
		submit_many(uid, arg, res);
	} else {
		memset(res, 0, sizeof(*res));
		res->code = one.code;
		res->message = one.message;
		res->failed = -1;
	}
	return TRUE;
}

/*
 * Queries are served by schedd_dispatch with a reply encoded as it is
 * built (schedd_reply.c); the generated dispatcher never gets them.
 */
bool_t
schedd_query_1_svc(job_query_x *arg, job_query_res_x *res,
    struct svc_req *req)
{
	memset(res, 0, sizeof(*res));
	res->code = ENOSYS;
	res->message = xstrdup("internal error: query not dispatched");
	return TRUE;
}

bool_t
schedd_query_attrs_1_svc(job_query_attrs_x *arg, job_query_res_x *res,
    struct svc_req *req)
{
	return schedd_query_1_svc(NULL, res, req);
}

/*
 * Group commit (schedd_queue.c): a request that changes the queue is
 * answered only once the turn's changes are synced, with every other
 * answer of the turn.  The answer waits here, encoded later from RES
 * on its connection: libtirpc's connection keeps the call's xid until
 * the next call is read from it, and none is read before the end of the
 * turn unless its client sends a call before the answer to its last
 * (no Condor client does; such a client confuses only itself).
 */
struct held_reply {
	SVCXPRT		*xprt;
	xdrproc_t	 xres;
	void		*res;
};
static struct held_reply	*held;
static size_t			 nheld, capheld;

typedef bool_t	(*svc_fn)(void *, void *, struct svc_req *);

/* The procedures whose answers wait for the sync. */
static const struct changing_proc {
	u_long		 proc;
	xdrproc_t	 xargs;
	xdrproc_t	 xres;
	size_t		 argsize;
	size_t		 ressize;
	svc_fn		 fn;
} changing_procs[] = {
	{ SCHEDD_SUBMIT, (xdrproc_t)xdr_submit_x, (xdrproc_t)xdr_submit_res_x,
	    sizeof(submit_x), sizeof(submit_res_x),
	    (svc_fn)schedd_submit_1_svc },
	{ SCHEDD_SUBMIT_BEGIN, (xdrproc_t)xdr_submit_x,
	    (xdrproc_t)xdr_submit_res_x, sizeof(submit_x),
	    sizeof(submit_res_x), (svc_fn)schedd_submit_begin_1_svc },
	{ SCHEDD_SUBMIT_MORE, (xdrproc_t)xdr_submit_more_x,
	    (xdrproc_t)xdr_submit_res_x, sizeof(submit_more_x),
	    sizeof(submit_res_x), (svc_fn)schedd_submit_more_1_svc },
	{ SCHEDD_SUBMIT_MANY, (xdrproc_t)xdr_submit_many_x,
	    (xdrproc_t)xdr_submit_many_res_x, sizeof(submit_many_x),
	    sizeof(submit_many_res_x), (svc_fn)schedd_submit_many_1_svc },
	{ SCHEDD_ACTION, (xdrproc_t)xdr_job_action_x,
	    (xdrproc_t)xdr_job_action_res_x, sizeof(job_action_x),
	    sizeof(job_action_res_x), (svc_fn)schedd_action_1_svc },
	{ SCHEDD_EDIT, (xdrproc_t)xdr_job_edit_x,
	    (xdrproc_t)xdr_job_action_res_x, sizeof(job_edit_x),
	    sizeof(job_action_res_x), (svc_fn)schedd_edit_1_svc },
	{ SCHEDD_JOB_UPDATE, (xdrproc_t)xdr_job_update_x,
	    (xdrproc_t)xdr_status_x, sizeof(job_update_x),
	    sizeof(status_x), (svc_fn)schedd_job_update_1_svc },
};

static void
reply_send(SVCXPRT *xprt, xdrproc_t xres, void *res)
{
	if (!svc_sendreply(xprt, xres, res))
		log_warnx("cannot send an answer");
	xdr_free(xres, res);
	free(res);
}

/*
 * The end of a turn of the loop, and before anything that must not see
 * changes not yet on the disk: sync the turn's changes (and let the
 * jobs that leave the queue go), then send the answers that waited.
 */
static void
schedd_flush(void)
{
	struct queue_flush_stats st;
	size_t i, n = nheld;

	if (schedd_queue == NULL || (nheld == 0 && !queue_flush_pending()))
		return;
	queue_flush(&st);
	for (i = 0; i < nheld; i++)
		reply_send(held[i].xprt, held[i].xres, held[i].res);
	nheld = 0;
	if (st.transactions > 0 || n > 0)
		log_debug("group commit: %lld transaction(s), %zu answer(s), "
		    "%lld fdatasync(s), %zu job(s) left the queue",
		    st.transactions, n, st.syncs, st.finished);
}

/* A request that changes the queue: served, its answer held if the
 * turn has anything to sync. */
static void
serve_change(struct svc_req *req, SVCXPRT *xprt,
    const struct changing_proc *p)
{
	void *arg, *res;
	size_t i;

	for (i = 0; i < nheld; i++)
		if (held[i].xprt == xprt) {
			/* A call before the answer to the last. */
			schedd_flush();
			break;
		}
	arg = xcalloc(1, p->argsize);
	if (!svc_getargs(xprt, p->xargs, arg)) {
		svcerr_decode(xprt);
		free(arg);
		return;
	}
	res = xcalloc(1, p->ressize);
	(void)p->fn(arg, res, req);
	if (!svc_freeargs(xprt, p->xargs, arg))
		log_warnx("cannot free a request's arguments");
	free(arg);
	if (!queue_flush_pending()) {
		reply_send(xprt, p->xres, res);
		return;
	}
	if (nheld == capheld) {
		capheld = capheld ? capheld * 2 : 64;
		held = xreallocarray(held, capheld, sizeof(*held));
	}
	held[nheld].xprt = xprt;
	held[nheld].xres = p->xres;
	held[nheld++].res = res;
}

/* SCHEDD_QUERY and SCHEDD_QUERY_ATTRS. */
static void
serve_query(struct svc_req *req, SVCXPRT *xprt)
{
	union {
		job_query_x		q;
		job_query_attrs_x	qa;
	} arg;
	struct query_reply r;
	xdrproc_t xargs;
	int attrs = req->rq_proc == SCHEDD_QUERY_ATTRS;
	double t0 = monotime();

	xargs = attrs ? (xdrproc_t)xdr_job_query_attrs_x :
	    (xdrproc_t)xdr_job_query_x;
	memset(&arg, 0, sizeof(arg));
	if (!svc_getargs(xprt, xargs, (caddr_t)&arg)) {
		svcerr_decode(xprt);
		return;
	}
	reply_init(&r);
	if (!host_allowed(req, "HOSTALLOW_READ", "query"))
		reply_error(&r, EPERM, "not allowed to query");
	else if (attrs)
		queue_query(arg.qa.constraint, arg.qa.history,
		    arg.qa.attrs.attrs_val, arg.qa.attrs.attrs_len, &r);
	else
		queue_query(arg.q.constraint, arg.q.history, NULL, 0, &r);
	if (r.b.len > 65536) {
		/* libtirpc's non-blocking transport retries a full socket
		 * in a busy loop: room for the whole reply spares a CPU the
		 * client needs to read it. */
		int sz = r.b.len > 64 << 20 ? 64 << 20 : (int)r.b.len + 65536;

		if (setsockopt(xprt->xp_fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz,
		    sizeof(sz)) == -1)
			(void)setsockopt(xprt->xp_fd, SOL_SOCKET, SO_SNDBUF,
			    &sz, sizeof(sz));
	}
	if (!svc_sendreply(xprt, (xdrproc_t)xdr_query_reply, (caddr_t)&r))
		log_warnx("cannot send a query reply");
	log_debug("query: %u ads, %zu bytes, %.3f s", r.njobs, r.b.len,
	    monotime() - t0);
	if (!svc_freeargs(xprt, xargs, (caddr_t)&arg))
		log_warnx("cannot free query arguments");
	reply_free(&r);
}

/*
 * The generated dispatcher, except for queries and the requests that
 * change the queue.  Whatever is not held is served only after the
 * turn's changes are synced: no query, no negotiator sees a change that
 * a crash could still take back.
 */
static void
schedd_dispatch(struct svc_req *req, SVCXPRT *xprt)
{
	size_t i;

	for (i = 0; i < sizeof(changing_procs) / sizeof(changing_procs[0]);
	    i++)
		if (changing_procs[i].proc == req->rq_proc) {
			serve_change(req, xprt, &changing_procs[i]);
			return;
		}
	schedd_flush();
	if (req->rq_proc == SCHEDD_QUERY || req->rq_proc == SCHEDD_QUERY_ATTRS)
		serve_query(req, xprt);
	else
		schedd_prog_1(req, xprt);
}

bool_t
schedd_action_1_svc(job_action_x *arg, job_action_res_x *res,
    struct svc_req *req)
{
	uid_t uid;

	memset(res, 0, sizeof(*res));
	if (local_caller(req, &uid, "job action", &res->code, &res->message,
	    "jobs can be changed only on the schedd's host") == 0)
		queue_action(uid, arg, res);
	return TRUE;
}

bool_t
schedd_edit_1_svc(job_edit_x *arg, job_action_res_x *res,
    struct svc_req *req)
{
	uid_t uid;

	memset(res, 0, sizeof(*res));
	if (local_caller(req, &uid, "job edit", &res->code, &res->message,
	    "jobs can be changed only on the schedd's host") == 0)
		queue_edit(uid, arg, res);
	return TRUE;
}

/* Seconds the schedd waits for a startd's piece of a job's output: it
 * serves no one else meanwhile. */
#define TAIL_TIMEOUT	5

bool_t
schedd_tail_1_svc(tail_x *arg, tail_res_x *res, struct svc_req *req)
{
	startd_tail_x q;
	char msg[256], err[512], key[AUTH_CLAIM_KEY_LEN + 1];
	char *addr = NULL, *claim = NULL;
	CLIENT *cl;
	uid_t uid;

	memset(res, 0, sizeof(*res));
	if (local_caller(req, &uid, "tail", &res->code, &res->message,
	    "a job's output can be read only on the schedd's host") == -1)
		return TRUE;
	if ((res->code = queue_tail_allowed(uid, arg->cluster, arg->proc,
	    msg, sizeof(msg))) != 0) {
		res->message = xstrdup(msg);
		return TRUE;
	}
	if (shadow_claim_of(arg->cluster, arg->proc, &addr, &claim) == -1) {
		res->code = ESRCH;
		res->message = xasprintf("job %d.%d has no claim to ask its "
		    "machine with", arg->cluster, arg->proc);
		return TRUE;
	}
	/* The startd knows the claim by its key for this job, never by
	 * the claim id alone (condor_security(7)). */
	if (auth_claim_key(claim, arg->cluster, arg->proc, key,
	    sizeof(key)) == -1) {
		free(addr);
		free(claim);
		res->code = EPERM;
		res->message = xasprintf("no pool key to ask the machine of "
		    "job %d.%d with", arg->cluster, arg->proc);
		return TRUE;
	}
	memset(&q, 0, sizeof(q));
	q.capability = key;
	q.which = arg->which == TAIL_ERROR ? TAIL_ERROR : TAIL_OUTPUT;
	q.offset = arg->offset < 0 ? -1 : arg->offset;
	q.max = arg->max < 0 || arg->max > TAIL_MAX ? TAIL_MAX : arg->max;
	if ((cl = rpc_connect(addr, PROG_STARTD, 1, TAIL_TIMEOUT, err,
	    sizeof(err))) == NULL ||
	    rpc_invoke(cl, STARTD_TAIL, (xdrproc_t)xdr_startd_tail_x, &q,
	    (xdrproc_t)xdr_tail_res_x, res, err, sizeof(err)) == -1) {
		xdr_free((xdrproc_t)xdr_tail_res_x, (char *)res);
		memset(res, 0, sizeof(*res));
		res->code = EIO;
		res->message = xasprintf("cannot ask the machine of job "
		    "%d.%d: %s", arg->cluster, arg->proc, err);
	} else if (res->code == EPERM || res->code == ENOENT) {
		/* The claim or its starter's directory is gone: the job
		 * has left that machine, whatever the queue says yet. */
		free(res->message);
		res->code = ESRCH;
		res->message = xasprintf("job %d.%d no longer runs on its "
		    "machine", arg->cluster, arg->proc);
	}
	if (cl != NULL)
		rpc_close(cl);
	explicit_bzero(claim, strlen(claim));
	explicit_bzero(key, sizeof(key));
	free(claim);
	free(addr);
	return TRUE;
}

bool_t
schedd_reschedule_1_svc(void *arg, status_x *res, struct svc_req *req)
{
	memset(res, 0, sizeof(*res));
	if (!host_allowed(req, "HOSTALLOW_WRITE", "reschedule")) {
		rpc_status(res, EPERM, "not allowed to reschedule");
		return TRUE;
	}
	/* Asked for: a cycle even without idle jobs here. */
	poke_forced = 1;
	schedd_advertise_now();
	rpc_status_ok(res);
	return TRUE;
}

bool_t
schedd_next_job_1_svc(next_job_x *arg, next_job_res_x *res,
    struct svc_req *req)
{
	memset(res, 0, sizeof(*res));
	if (!host_allowed(req, "HOSTALLOW_WRITE", "negotiation"))
		return TRUE;
	negotiate_next_job(arg, res);
	return TRUE;
}

bool_t
schedd_match_1_svc(match_x *arg, status_x *res, struct svc_req *req)
{
	memset(res, 0, sizeof(*res));
	if (!host_allowed(req, "HOSTALLOW_WRITE", "match")) {
		rpc_status(res, EPERM, "not allowed to negotiate");
		return TRUE;
	}
	negotiate_match(arg, res);
	return TRUE;
}

bool_t
schedd_job_update_1_svc(job_update_x *arg, status_x *res,
    struct svc_req *req)
{
	uid_t uid;

	memset(res, 0, sizeof(*res));
	if (local_caller(req, &uid, "job update", &res->code, &res->message,
	    "job updates are local only") == 0)
		queue_job_update(uid, arg, res);
	return TRUE;
}

int
schedd_prog_1_freeresult(SVCXPRT *xprt, xdrproc_t xres, caddr_t res)
{
	xdr_free(xres, res);
	return 1;
}

/* The schedd's ad. */

static void
advertise(const struct queue_counts *c)
{
	struct ad *ad = ad_new();
	char err[256];

	ad_set_string(ad, "Name", param("HOST"));
	ad_set_string(ad, "ScheddIpAddr", schedd_addr);
	ad_set_int(ad, "TotalIdleJobs", c->idle);
	ad_set_int(ad, "TotalRunningJobs", c->running);
	ad_set_int(ad, "TotalSchedulerJobsIdle", c->sched_idle);
	ad_set_int(ad, "TotalSchedulerJobsRunning", c->sched_running);
	ad_set_int(ad, "TotalHeldJobs", c->held);
	ad_set_int(ad, "TotalRemovedJobs", c->removed);
	ad_set_int(ad, "TotalJobAds", c->jobs);
	ad_set_int(ad, "NumUsers", c->users);
	ad_set_int(ad, "MaxJobsRunning", param_int("MAX_JOBS_RUNNING", 200));
	if (collector_update(ADTYPE_SCHEDD, ad, err, sizeof(err)) == -1) {
		/* Once per outage, not at every interval. */
		if (!collector_down)
			log_warnx("cannot update the collector: %s", err);
		collector_down = 1;
	} else {
		if (collector_down)
			log_info("the collector has our ad again");
		collector_down = 0;
		last_sent = *c;
		advertised = 1;
	}
	ad_free(ad);
}

static void
ad_tick(void *arg)
{
	struct queue_counts c;
	long interval = param_int("SCHEDD_INTERVAL", 60);

	queue_counts(&c);
	advertise(&c);
	ad_timer = event_timer_add(interval > 0 ? (double)interval : 60,
	    ad_tick, NULL);
}

/* The jobs' periodic_* policies, every PERIODIC_EXPR_INTERVAL. */
static void
policy_tick(void *arg)
{
	long interval = param_int("PERIODIC_EXPR_INTERVAL", 60);

	queue_policy_tick();
	policy_timer = event_timer_add(interval > 0 ? (double)interval : 60,
	    policy_tick, NULL);
}

static void
counts_tick(void *arg)
{
	struct queue_counts c;

	counts_timer = 0;
	queue_counts(&c);
	if (!advertised || memcmp(&c, &last_sent, sizeof(c)) != 0)
		advertise(&c);
}

void
schedd_counts_changed(void)
{
	if (counts_timer == 0 && now_timer == 0)
		counts_timer = event_timer_add(COUNTS_DELAY, counts_tick,
		    NULL);
}

static void
now_tick(void *arg)
{
	struct queue_counts c;

	now_timer = 0;
	last_now = monotime();
	event_timer_cancel(counts_timer);
	counts_timer = 0;
	queue_counts(&c);
	advertise(&c);
	if (c.idle > 0 || poke_forced)
		negotiate_poke();
	poke_forced = 0;
}

void
schedd_advertise_now(void)
{
	double wait = last_now + NOW_SPACING - monotime();

	/* From the loop, after the reply is on its way; under a stream of
	 * changes, once per NOW_SPACING. */
	if (now_timer == 0)
		now_timer = event_timer_add(wait > 0 ? wait : 0, now_tick,
		    NULL);
}

/* Start-up and shutdown. */

/* One schedd per SPOOL: a second would corrupt the queue. */
static int
lock_spool(void)
{
	char *path = xasprintf("%s/.schedd_lock", param("SPOOL"));

	lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lock_fd == -1) {
		log_warn("cannot open %s", path);
		free(path);
		return -1;
	}
	if (flock(lock_fd, LOCK_EX | LOCK_NB) == -1) {
		log_warnx("another condor_schedd is using %s (%s is locked)",
		    param("SPOOL"), path);
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

static int
schedd_init(int argc, char **argv)
{
	struct sockaddr_in bound;
	SVCXPRT *ux, *tx;
	char err[512];
	int tfd, ufd;

	if (daemon_mkdir(param("SPOOL"), 0755) == -1) {
		log_warn("cannot create %s", param("SPOOL"));
		return -1;
	}
	if (lock_spool() == -1)
		return -1;
	tfd = rpc_listen_tcp(param("BIND_ADDRESS"),
	    (int)param_int("SCHEDD_PORT", 0), &bound);
	if (tfd == -1) {
		log_warn("cannot listen on %s port %ld", param("BIND_ADDRESS"),
		    param_int("SCHEDD_PORT", 0));
		return -1;
	}
	rpc_keepalive(tfd);
	addr_format(&bound, schedd_addr);
	submit_init();
	local_init();
	if (queue_open(err, sizeof(err)) == -1) {
		log_warnx("%s", err);
		return -1;
	}
	socket_path = xasprintf("%s/%s", param("SPOOL"), SCHEDD_SOCKET_NAME);
	if ((ufd = rpc_listen_unix(socket_path)) == -1) {
		log_warn("cannot listen on %s", socket_path);
		return -1;
	}
	if ((ux = rpc_serve(ufd, PROG_SCHEDD, SCHEDD_V1,
	    schedd_dispatch)) == NULL ||
	    (tx = rpc_serve(tfd, PROG_SCHEDD, SCHEDD_V1,
	    schedd_dispatch)) == NULL)
		return -1;
	/* A burst of clients in one turn: one sync for all of them. */
	if (rpc_accept_all(ux) == -1 || rpc_accept_all(tx) == -1)
		log_warn("cannot accept connections in batches");
	daemon_write_address("schedd", schedd_addr);
	log_info("serving at %s and %s", schedd_addr, socket_path);
	ad_timer = event_timer_add(0, ad_tick, NULL);
	policy_timer = event_timer_add(1, policy_tick, NULL);
	local_sweep();
	local_poke();
	event_before_poll(schedd_flush);
	return 0;
}

static void
schedd_reconfig(void)
{
	collector_disconnect();
	negotiate_reconfig();
	event_timer_cancel(ad_timer);
	ad_timer = event_timer_add(0, ad_tick, NULL);
	event_timer_cancel(policy_timer);
	policy_timer = event_timer_add(1, policy_tick, NULL);
}

static void
schedd_shutdown(void)
{
	char err[256];

	schedd_flush();
	local_shutdown_begin();
	shadow_shutdown(SHUTDOWN_WAIT);
	local_shutdown(SHUTDOWN_WAIT);
	if (collector_invalidate(ADTYPE_SCHEDD, param("HOST"), err,
	    sizeof(err)) == -1)
		log_debug("cannot withdraw the ad: %s", err);
	if (socket_path != NULL)
		unlink(socket_path);
	queue_close();
}

static void
schedd_child_exit(pid_t pid, int status)
{
	if (!shadow_reaped(pid, status) && !local_reaped(pid, status))
		log_debug("child %d ended", (int)pid);
}

static const struct daemon_ops schedd_ops = {
	.name = "schedd",
	.subsys = "SCHEDD",
	.drop_privs = 0,	/* shadows start as root; ids switch per file */
	.init = schedd_init,
	.reconfig = schedd_reconfig,
	.shutdown = schedd_shutdown,
	.child_exit = schedd_child_exit,
};

int
main(int argc, char **argv)
{
	return daemon_main(argc, argv, &schedd_ops);
}
