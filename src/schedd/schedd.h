/*
 * schedd.h: what the parts of condor_schedd share.
 *
 * schedd.c		start-up, the RPC procedures, the schedd's ad
 * schedd_queue.c	the job queue: jobs, queries, actions, transitions
 * schedd_submit.c	new clusters: checks, the executable, user-log events
 * schedd_factory.c	late materialization: a cluster's jobs not yet queued
 * schedd_history.c	$(SPOOL)/history: finished jobs and their accounting
 * schedd_negotiate.c	SCHEDD_NEXT_JOB, SCHEDD_MATCH, negotiator pokes
 * schedd_shadow.c	one shadow per running job: spawn, signal, reap
 * schedd_local.c	scheduler- and local-universe jobs, run by the schedd
 * schedd_reply.c	query replies encoded as they are built
 */
#ifndef CONDOR_SCHEDD_H
#define CONDOR_SCHEDD_H

#include <sys/types.h>

#include <time.h>

#include "buf.h"
#include "rpcutil.h"
#include "schedd_rpc.h"

struct ad;
struct expr;
struct qlog;
struct qlog_entry;
struct value;

/*
 * JobStatus (INTERFACE.md), as HTCondor numbers it.  A job that never
 * ran is Idle (1) like any other waiting job; Condor 4's Unexpanded (0)
 * survives only in old queue logs, read as Idle.
 */
#define JOB_OLD_UNEXPANDED	0
#define JOB_IDLE	1
#define JOB_RUNNING	2
#define JOB_REMOVED	3
#define JOB_COMPLETED	4
#define JOB_HELD	5
#define JOB_SUSPENDED	7

/* What a shadow's exit status says became of its job. */
#define SHADOW_EXIT_COMPLETED	100
#define SHADOW_EXIT_REMOVED	102
#define SHADOW_EXIT_REQUEUE	107
#define SHADOW_EXIT_HELD	112

#define SCHEDD_SOCKET_NAME	".schedd_socket"
#define HISTORY_NAME		"history"
#define QUEUE_LOG_NAME		"job_queue.log"

/* schedd.c */
/* "<ip:port>" of the TCP service. */
extern char	 schedd_addr[ADDR_STRLEN];
/* The schedd's counts may have changed: advertise soon if they did. */
void	 schedd_counts_changed(void);
/* Send the ad now (new idle jobs: the negotiator must see them). */
void	 schedd_advertise_now(void);

/*
 * A job as the schedd sees it: its own ad (what its proc set or changed)
 * over its cluster's shared ad.  Names resolve in AD first, then CAD.
 * The pointers stay valid until the next commit.
 */
struct job {
	int		 cluster;
	int		 proc;
	const struct ad	*ad;
	const struct ad	*cad;		/* NULL: no cluster ad */
	const struct qlog_entry *entry;
};

/* schedd_queue.c */
extern struct qlog *schedd_queue;

int	 queue_open(char *err, size_t errlen);
void	 queue_close(void);
/* queue_commit: commit the open transaction; fatal if it cannot be
 * written (a schedd that cannot keep its queue must stop).  DURABLE:
 * synced by the turn's queue_flush, before any answer leaves;
 * queue_commit_now syncs it at once (something outside the queue is
 * about to depend on it). */
void	 queue_commit(int durable);
void	 queue_commit_now(void);
/*
 * queue_flush: the end of a turn of the event loop (group commit): one
 * fdatasync for all of the turn's durable commits, then the jobs that
 * leave the queue go to the history (one fsync) and out of the log.
 * Answers to the turn's requests may leave only after it.  ST (may be
 * NULL): what it did.  queue_flush_pending: has it anything to do?
 */
struct queue_flush_stats {
	long long	transactions;	/* written since the last flush */
	long long	syncs;		/* fdatasyncs of the log: 0 or 1 */
	size_t		finished;	/* jobs that left the queue */
};
void	 queue_flush(struct queue_flush_stats *st);
int	 queue_flush_pending(void);
/* Compact the log soon if it has grown enough. */
void	 queue_maybe_compact(void);

int	 job_find(int cluster, int proc, struct job *);
/*
 * Walking the jobs a constraint may select: scope_init, then
 * scope_next until it returns 0.  A constraint that names one job or
 * one cluster ("ClusterId == C && ProcId == P", "ClusterId == C")
 * yields only those; any other yields every job.
 */
struct job_scope {
	int	kind;		/* 0 all, 1 a cluster, 2 a job */
	int	cluster;
	int	proc;
	int	started;
};
void	 scope_init(struct job_scope *, const char *constraint);
int	 scope_next(struct job_scope *, struct job *);
/* The next proc after J in queue order (J NULL: the first); 0 at end. */
int	 job_next(struct job *j, int first);
long long job_int(const struct job *, const char *name, long long dflt);
double	 job_real(const struct job *, const char *name, double dflt);
/* An allocated string, or NULL if NAME is missing or not a string. */
char	*job_string(const struct job *, const char *name);
int	 job_status(const struct job *);
int	 job_has(const struct job *, const char *name);
/*
 * job_eval: evaluate E for the job.  E's names resolve in the job's own
 * ad, then its cluster's; with MERGED set (E uses MY. or TARGET.) the
 * two are merged into one ad first, which is exact but slower.
 */
void	 job_eval(const struct job *, const struct expr *e, int merged,
	    struct value *out);
int	 expr_needs_merge(const char *text);
/* Is NAME (case aside) one of the attribute NAMES, NULL-terminated? */
int	 queue_attr_in(const char *const *names, const char *name);
/* The whole ad, cluster attributes then the proc's (caller frees). */
struct ad *job_full_ad(const struct job *);
/* The whole ad as "Name = value" lines and a blank line, onto B. */
void	 job_print(const struct job *, struct buf *b);
/* The whole ad on the wire (for the negotiator). */
void	 job_to_xdr(const struct job *, ad_x *out);
/* The owner's uid and gid; -1 if the Owner is not a user here. */
int	 job_owner_ids(const struct job *, uid_t *, gid_t *);

/* Requests from the RPC layer; the caller has checked where they came
 * from.  CALLER is the local caller's uid. */
void	 queue_action(uid_t caller, job_action_x *arg,
	    job_action_res_x *res);
void	 queue_job_update(uid_t caller, job_update_x *arg, status_x *res);
void	 queue_edit(uid_t caller, job_edit_x *arg, job_action_res_x *res);
/*
 * queue_tail_allowed: may CALLER read running job CLUSTER.PROC's output
 * (condor_tail)?  0, or an errno with a message in MSG: ENOENT no such
 * job, EPERM not the caller's (root and QUEUE_SUPER_USERS may), ESRCH
 * not running.
 */
int	 queue_tail_allowed(uid_t caller, int cluster, int proc, char *msg,
	    size_t msglen);
/* QUERY and QUERY_ATTRS (NAMES NULL: every attribute) into R. */
struct query_reply;
void	 queue_query(const char *constraint, int history, char **names,
	    u_int nnames, struct query_reply *r);

/* Counts for the schedd's ad (scheduler and local jobs apart). */
struct queue_counts {
	long	idle;		/* unexpanded and idle */
	long	running;	/* running and suspended */
	long	sched_idle;	/* scheduler/local universe: idle */
	long	sched_running;	/* scheduler/local universe: running */
	long	held;
	long	removed;
	long	users;		/* distinct owners with idle jobs */
	long	jobs;
};
void	 queue_counts(struct queue_counts *);

/*
 * Transitions the other parts ask for.  queue_job_started: a shadow now
 * runs J on MACHINE (its Name).  queue_shadow_exited: J's shadow ended
 * with wait STATUS after WALL seconds; STOPPED if the schedd had asked
 * it to stop (then a death by signal is no failure of the shadow).
 */
void	 queue_job_started(int cluster, int proc, const char *machine,
	    pid_t shadow);
/* queue_policy_tick: the jobs' periodic_remove, _hold and _release. */
void	 queue_policy_tick(void);
void	 queue_shadow_exited(int cluster, int proc, int status, double wall,
	    int stopped);
/* Bookkeeping of live procs per cluster (schedd_queue.c). */
void	 queue_cluster_add(int cluster, int nprocs);
/* How many procs of CLUSTER are in the queue. */
int	 queue_cluster_procs(int cluster);
/* A file in SPOOL: cluster<C>.ickpt, cluster<C>.proc<P>.ckpt (freed by
 * the caller). */
char	*spool_ickpt(int cluster);
char	*spool_ckpt(int cluster, int proc);
const char *spool_dir(void);
/* The job's user log as an absolute path (caller frees), or NULL. */
char	*job_userlog_path(const struct job *);
char	*job_nodes_log_path(const struct job *);
/*
 * job_log_event: write ULOG_ABORTED, ULOG_HELD or ULOG_RELEASED with
 * REASON to the job's user log, as its owner; failures are logged.
 * Between job_log_batch_begin and job_log_batch_end the schedd keeps
 * the identity of the last owner instead of switching for each event
 * (nothing else may touch files in between).
 */
void	 job_log_event(const struct job *, int event, const char *reason);
/* 005 with the run's and the job's total usage. */
struct ulog_usage;
void	 job_log_terminated(const struct job *, int by_signal, int code,
	    const struct ulog_usage *);
void	 job_log_batch_begin(void);
void	 job_log_batch_end(void);

/* schedd_factory.c */
/*
 * factory_plan: before cluster CLUSTER (ad CAD, N proc ads PROCS) is
 * committed: if CAD asks for late materialization and N is more than it
 * allows at first, the procs past *NOW are written (synced) to the
 * cluster's factory file and CAD gets its factory attributes.  *NOW is
 * how many procs go into the queue now (N if no factory).  0, or -1 with
 * ERR set and nothing left behind.
 */
int	 factory_plan(int cluster, struct ad *cad, struct ad **procs,
	    size_t n, size_t *now, char *err, size_t errlen);
/* The cluster was not committed after all: its factory file goes. */
void	 factory_unplan(int cluster);
/* The cluster is committed: materialize its jobs as room is made. */
void	 factory_committed(int cluster);
/* Look soon whether a factory may materialize more. */
void	 factory_poke(void);
/* Materialize what CLUSTER's limits allow now (commits). */
void	 factory_materialize(int cluster);
/* Has CLUSTER (its ad CAD) jobs still to materialize? */
int	 factory_pending(int cluster);
int	 factory_cad_pending(const struct ad *cad);
/*
 * factory_cancel: in the open transaction, drop CLUSTER's jobs still to
 * materialize (and its ad if none is in the queue); 1 if it had some.
 * factory_sync, after the commit, removes the files of those dropped.
 */
int	 factory_cancel(int cluster);
void	 factory_sync(void);
/* The clusters with a factory (caller frees *OUT); how many. */
size_t	 factory_clusters(int **out);
/* At start-up, after recovery: the factories the queue describes. */
void	 factory_recover(void);

/* schedd_submit.c */
void	 submit_one(uid_t caller, submit_x *arg, submit_res_x *res);
void	 submit_begin(uid_t caller, submit_x *arg, submit_res_x *res);
void	 submit_more(uid_t caller, submit_more_x *arg, submit_res_x *res);
/* Several clusters in one transaction: all are queued, or none. */
void	 submit_many(uid_t caller, submit_many_x *arg, submit_many_res_x *res);
/* Write pending submit events of CLUSTER before any later event. */
void	 submit_flush_events(int cluster);
/* Write the submit events of procs FIRST to END-1 of CLUSTER soon. */
void	 submit_events_range(int cluster, int first, int end);
/* After a restart: the submit events the last schedd left unwritten. */
void	 submit_events_recover(void);
int	 submit_events_pending(int cluster);
void	 submit_init(void);

/* schedd_history.c */
int	 history_open(char *err, size_t errlen);
void	 history_close(void);
/*
 * history_append: append LEN bytes of records (job_print's), in one
 * write and one fsync.  0, or -1 with errno set and nothing appended.
 */
int	 history_append(const char *text, size_t len);
/* Which of N (cluster, proc) pairs are in the history already. */
void	 history_find(const int *clusters, const int *procs, size_t n,
	    int *found);
/*
 * Add to R the history ads CONSTRAINT (may be NULL) accepts, among those
 * SCOPE allows (scope_init of the constraint's text).
 */
void	 history_query(const struct expr *constraint,
	    const struct job_scope *scope, char **names, u_int nnames,
	    struct query_reply *r);

/*
 * schedd_reply.c: a job_query_res_x written in its XDR form as it is
 * built, then sent as it is (xdr_query_reply): no allocation per
 * string.  reply_init starts a successful reply, reply_error replaces
 * whatever was built by an error; ads are added with reply_ad, or
 * reply_ad_begin, reply_attr... reply_ad_end.  reply_full: the reply
 * holds SCHEDD_MAX_JOBS ads.
 */
struct query_reply {
	struct buf	 b;		/* the XDR bytes */
	size_t		 count_at;	/* offset of the count of ads */
	u_int		 njobs;
	size_t		 ad_at;		/* the open ad's count */
	u_int		 nattrs;
	struct buf	 text;		/* scratch: one value's text */
};
void	 reply_init(struct query_reply *);
void	 reply_free(struct query_reply *);
void	 reply_error(struct query_reply *, int code, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
int	 reply_full(const struct query_reply *);
void	 reply_ad(struct query_reply *, const struct ad *);
void	 reply_ad_begin(struct query_reply *);
void	 reply_attr(struct query_reply *, const char *name,
	    const struct expr *);
void	 reply_ad_end(struct query_reply *);
bool_t	 xdr_query_reply(XDR *, struct query_reply *);

/* schedd_negotiate.c */
void	 negotiate_next_job(next_job_x *arg, next_job_res_x *res);
void	 negotiate_match(match_x *arg, status_x *res);
/* Ask the negotiator for a cycle soon; never waits for it. */
void	 negotiate_poke(void);
void	 negotiate_reconfig(void);

/*
 * Claim reuse.  The user a claim runs jobs for: the Owner, AcctGroup
 * (NULL: none) and NiceUser of its last job (claim_user_of, before that
 * job leaves the queue; claim_user_free).  negotiate_claim_next: the
 * next job to run on the claim whose slot's current ad is SLOT (a
 * dynamic slot's own, with its share): idle, not about to start, of
 * user U, its Requirements TRUE against SLOT and, in a dynamic slot,
 * its requests within the slot's share; the first in queue order.
 * With SLOT NULL, the first idle job of U.  0 with NEXT set, or -1 if
 * there is none.
 */
struct claim_user {
	char	*owner;
	char	*group;
	int	 nice;
};
void	 claim_user_of(const struct job *, struct claim_user *u);
void	 claim_user_free(struct claim_user *u);
int	 negotiate_claim_next(const struct ad *slot,
	    const struct claim_user *u, struct job *next);

/* schedd_shadow.c */
/*
 * What the schedd holds of a claim: the startd's "<ip:port>", the
 * slot's Name as matched, the claim id (NULL: none; it goes to the
 * shadow only as the key made of it for its job, down a pipe), when
 * the claim was made and how many jobs ran on it before this one.
 */
struct claim_info {
	const char	*addr;
	const char	*machine;
	const char	*claim_id;
	time_t		 begun;
	int		 jobs;
};
pid_t	 shadow_spawn(int cluster, int proc, const struct claim_info *);
/* A reaped child: 1 if it was a shadow (handled), else 0. */
int	 shadow_reaped(pid_t pid, int status);
/* The live shadow of a job, or 0; and whether the job may start. */
pid_t	 shadow_of(int cluster, int proc);
int	 shadow_job_busy(int cluster, int proc);
/* Ask a job's shadow to stop (SIGTERM, SIGKILL later if need be). */
void	 shadow_stop(int cluster, int proc);
int	 shadow_count(void);
/*
 * shadow_claim_of: the claim job CLUSTER.PROC runs on (its shadow's, or
 * the one kept in SPOOL for an adopted shadow): 0 with ADDR, the
 * startd's "<ip:port>", and CLAIM_ID set (free them; wipe the claim),
 * or -1 if there is none.
 */
int	 shadow_claim_of(int cluster, int proc, char **addr, char **claim_id);
/*
 * A shadow from before a restart that may still run: shadow_orphan
 * stops it; shadow_adopt keeps it (a running job's: the job runs on),
 * 1 if it is alive and adopted, else 0.  When an adopted shadow is gone
 * queue_adopted_ended hears of it: its outcome is the job's
 * ShadowExitCode, which an orphaned shadow sends before it exits.
 * shadow_stop stops an adopted shadow too.
 */
void	 shadow_orphan(int cluster, int proc, pid_t pid);
int	 shadow_adopt(int cluster, int proc, pid_t pid);
void	 queue_adopted_ended(int cluster, int proc);
/*
 * A job whose shadow died with an earlier schedd or without a word:
 * shadow_fence_kept starts a fence (condor_shadow -fence) from the claim
 * kept in SPOOL, 1 if it did; shadow_claims_sweep (at start-up)
 * fences again an idle job whose claim is still kept (the last
 * schedd's fence) and removes the kept claims of jobs with no shadow or
 * fence.
 */
int	 shadow_fence_kept(int cluster, int proc);
/* A vanilla job with a lease: a new shadow reconnecting to its starter
 * from the kept claim (condor_shadow -reconnect); its pid, or 0. */
pid_t	 shadow_reconnect_kept(int cluster, int proc);
/* The job runs on under a new shadow PID (ShadowPid). */
void	 queue_job_reshadowed(int cluster, int proc, pid_t pid);
void	 shadow_claims_sweep(void);
/* SIGTERM every shadow and wait up to WAIT seconds for them. */
void	 shadow_shutdown(double wait);

/*
 * schedd_local.c: jobs of the scheduler (JobUniverse 7) and local (12)
 * universes, which the schedd runs itself through a keeper process.
 * local_init: at start-up, before the queue is read.  local_poke: idle
 * ones may wait (a submit, a release, a requeue): look soon.
 * local_reaped: a reaped child, 1 if it was a keeper (handled).
 * local_of: the keeper of a job that runs, or 0.  local_stop: SIGTERM to
 * the job's process group, SIGKILL VACATE_GRACE seconds later.
 * local_recover: at start-up, a job the queue says has a keeper:
 * LOCAL_ENDED (its exit file is there: call local_ended once the queue
 * is committed), LOCAL_RUNS (its keeper or job lives on, watched) or
 * LOCAL_GONE (nothing is left: it did not finish).
 * local_shutdown_begin/local_shutdown: stop them all, then wait up to
 * WAIT seconds (their jobs go back to Idle).
 */
#define LOCAL_GONE	0
#define LOCAL_RUNS	1
#define LOCAL_ENDED	2
int	 job_local_universe(const struct job *);
void	 local_init(void);
/* After the queue is read: exit files no job will take go. */
void	 local_sweep(void);
void	 local_poke(void);
int	 local_reaped(pid_t pid, int status);
pid_t	 local_of(int cluster, int proc);
void	 local_stop(int cluster, int proc);
int	 local_recover(const struct job *);
void	 local_ended(int cluster, int proc);
void	 local_shutdown_begin(void);
void	 local_shutdown(double wait);
/*
 * queue_local_exited: the keeper of J ended.  HAVE: its exit file gave
 * STATUS (a wait status) and the CPU seconds USER and SYS; REQUEUE: the
 * schedd stopped it to shut down.  The job completes (005), runs again
 * (OnExitRemove FALSE, or its status was lost), is held (OnExitHold),
 * or leaves as Removed if it was removed meanwhile.
 */
void	 queue_local_exited(int cluster, int proc, int have, int status,
	    double user, double sys, int requeue);
/* queue_local_started: the keeper PID (started at START, in clock
 * ticks since boot) runs J; commit it Running, durably. */
void	 queue_local_started(int cluster, int proc, pid_t pid,
	    unsigned long long start);
/* The job's own process, as the keeper reported it. */
void	 queue_local_job_pid(int cluster, int proc, pid_t pid,
	    unsigned long long start);
/* J cannot be started: held with REASON. */
void	 queue_local_hold(int cluster, int proc, const char *reason,
	    int subcode);

#endif
