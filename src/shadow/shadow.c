/*
 * NAME
 *	condor_shadow - the submitting host's side of one running job
 *
 * SYNOPSIS
 *	condor_shadow CLUSTER.PROC STARTD_ADDR MACHINE_NAME
 *
 * DESCRIPTION
 *	The schedd spawns one shadow per job it runs, as root when the
 *	schedd is root.  The shadow stays root for SPOOL and its own log,
 *	and takes the job owner's identity (effective ids) for every access
 *	to the owner's files: the initial directory Iwd, the input In, the
 *	output Out and error Err (relative to Iwd unless absolute) and the
 *	user log UserLog (and DAGManNodesLog, a DAG node job's node log,
 *	which gets every event too).  Not root, it simply runs as its user.
 *
 *	It asks the schedd for the job ad (SCHEDD_QUERY, "ClusterId == C &&
 *	ProcId == P").  Before claiming a machine it checks what the job
 *	needs on this side: Iwd must be a directory, In readable, Out and
 *	Err writable (created if missing, emptied only when the job starts
 *	running from its beginning, not when it resumes from a checkpoint),
 *	and the job's executable in SPOOL (cluster<C>.ickpt, or
 *	the job's checkpoint cluster<C>.proc<P>.ckpt once it has one)
 *	readable.  A failure holds the job with a HoldReason naming the
 *	file ("Cannot open input file /home/u/in.txt: No such file or
 *	directory").
 *
 *	It then makes up a capability (192 random bits), listens on an
 *	ephemeral TCP port at BIND_ADDRESS, and asks the startd at
 *	STARTD_ADDR for the machine (STARTD_REQUEST_CLAIM with the job ad).
 *	A refusal, or no answer, sends the job back to idle; on a reused
 *	claim "its last job is still leaving" (EINPROGRESS) is asked again
 *	every 20 ms for up to RPC_TIMEOUT seconds.  On success
 *	it writes the execute event (001, with the startd's address and
 *	"SlotName: MACHINE_NAME") and sends JobCurrentStartDate (the
 *	schedd itself keeps RemoteHost, NumJobStarts, JobStartDate and
 *	RemoteWallClockTime).  The startd's starter then
 *	connects back, presents the capability, and is served: the job ad
 *	and the executable and input (GET), the output and error written at
 *	the starter's offsets as they grow (PUT), suspend and continue
 *	events (010 and 011 in the user log, JobStatus 7 and back to 2),
 *	and at last how the job ended (EXIT).  A standard-universe job's
 *	system calls are served on a second port (shadow_syscall.c, the
 *	calls in shadow_calls.c, the protocol condor_syscalls(7)); its
 *	checkpoints come in pieces (PUT FILE_CHECKPOINT) into
 *	$(SPOOL)/cluster<C>.proc<P>.ckpt.tmp, and CKPT_COMMIT installs one
 *	(size and CRC-32 checked, fsync, every checksum verified, rename)
 *	or discards it, keeping the old one; an installed one raises
 *	NumCkpts, sets LastCkptTime and ImageSize and writes event 003.
 *
 *	A normal end or a death by a signal completes the job: ExitCode (or
 *	ExitSignal), ExitBySignal, CompletionDate, RemoteUserCpu,
 *	RemoteSysCpu, LocalUserCpu and LocalSysCpu (the shadow's own CPU,
 *	all accumulated over the job's runs), LastRemoteHost and ImageSize
 *	go to the schedd, the user log gets
 *	event 005 with the usage, and the owner (NotifyUser, else Owner) is
 *	mailed as Notification asks: Complete and Always every time, Error
 *	when the job died by a signal or exited non-zero, Never (or none)
 *	not at all.  A vacated or killed job, a starter that hangs up or is
 *	silent for STARTER_TIMEOUT seconds, is evicted: the accumulated
 *	usage goes to the schedd, the user log gets event 004, and the job
 *	goes back to idle; with a lease (JobLeaseDuration), unless
 *	its startd says the starter is gone (STARTD_CLAIM_ALIVE), it is
 *	waited for instead (022) until it comes back (SHADOW_RECONNECT,
 *	024) or the lease is over (025, then evicted).  A job the execute
 *	host cannot run for the job's own sake is held with the starter's
 *	reason (007, then 012); a program it could not execute with
 *	HoldReasonCode 6 and HoldReasonSubCode the exec's errno.  A job
 *	sent back without having run (the starter could not start it,
 *	the claim was refused or unanswered) counts in
 *	NumStartsWithoutRunning; the MAX_JOB_STARTS_WITHOUT_RUNNING-th in
 *	a row holds it (code 6) with the last reason.  Every 004 says why.
 *
 * PROTOCOL
 *	Serves SHADOW_PROG (include/shadow_rpc.x) over TCP to its starter
 *	alone: the first caller presenting the capability, on that one
 *	connection.  The starter calls SHADOW_HELLO (the capability, for
 *	the job ad), SHADOW_GET (the executable or checkpoint, standard
 *	input), SHADOW_PUT (output, a new checkpoint), SHADOW_CKPT_COMMIT,
 *	SHADOW_EVENT and SHADOW_EXIT, SHADOW_RECONNECT (a job with a lease,
 *	its starter back on a new connection); SHADOW_NULL is a ping; a vanilla
 *	job's transferred files with SHADOW_INPUT_LIST, SHADOW_OUTPUT_BEGIN,
 *	SHADOW_OUTPUT_END and SHADOW_XFER_OPEN, their bytes on a transfer
 *	stream of their own (shadow_xfer.c).  Calls
 *	STARTD_REQUEST_CLAIM, STARTD_CLAIM_ALIVE and STARTD_RELEASE_CLAIM
 *	(include/startd_rpc.x) at STARTD_ADDR, and SCHEDD_QUERY and
 *	SCHEDD_JOB_UPDATE (include/schedd_rpc.x) on $(SPOOL)/.schedd_socket.
 *
 * SIGNALS
 *	SIGTERM, SIGINT: the job is being removed or held: release the
 *	claim (the startd kills the job at once) and exit 102.  SIGHUP and
 *	SIGPIPE are ignored.
 *
 * CONFIGURATION
 *	SPOOL, BIND_ADDRESS, HOST, RPC_TIMEOUT, STARTER_TIMEOUT, MAIL,
 *	MAX_JOB_STARTS_WITHOUT_RUNNING, SHADOW_LOG, LOG.
 *
 * FILES
 *	$(LOG)/ShadowLog, shared by all shadows (each line carries the
 *	pid); reads $(SPOOL)/cluster<C>.ickpt or cluster<C>.proc<P>.ckpt;
 *	writes the owner's Out, Err, UserLog and DAGManNodesLog.
 *
 * EXIT STATUS
 *	100 completed, 107 back to idle, 112 held (HoldReason sent first),
 *	102 removed (after SIGTERM), 2 bad arguments.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <arpa/inet.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "ad.h"
#include "auth.h"
#include "buf.h"
#include "config.h"
#include "daemon.h"
#include "event.h"
#include "expr.h"
#include "fdio.h"
#include "log.h"
#include "priv.h"
#include "rpcutil.h"
#include "shadow.h"
#include "shadow_rpc.h"
#include "startd_rpc.h"
#include "userlog.h"
#include "xalloc.h"

#define CAPABILITY_BYTES	24	/* random bytes, sent as hex */

struct shadow_job sj = {
	.exe_fd = -1, .in_fd = -1, .out_fd = -1, .err_fd = -1,
};

static int			 as_root;	/* act as the owner */
static long			 lease_timer;
static int			 reconnect_failed; /* 025 written: no 004 after */
static int			 disconnected;	/* waiting for a reconnect */
static int			 finished;	/* an outcome is recorded */
static struct shadow_outcome	 outcome;

/* The dispatcher rpcgen writes in shadow_rpc_svc.c. */
void	shadow_prog_1(struct svc_req *, SVCXPRT *);

int
shadow_as_owner(void)
{
	if (!as_root)
		return 0;
	if (priv_as_user(sj.uid, sj.gid) == -1) {
		log_warn("job %s: cannot act as %s", sj.id, sj.owner);
		return -1;
	}
	return 0;
}

int
shadow_is_root(void)
{
	return as_root;
}

void
shadow_as_self(void)
{
	if (as_root)
		priv_restore();
}

static void __attribute__((noreturn))
shadow_exit(int status, const char *what)
{
	struct ad *up;

	log_info("job %s: %s; exiting with status %d", sj.id, what, status);
	if (shadow_orphaned() && sj.ad != NULL) {
		/* Our parent cannot hear this status: tell the queue. */
		up = ad_new();
		ad_set_int(up, "ShadowExitCode", status);
		if (schedd_update_job(up, 1) == -1)
			log_warnx("job %s: the schedd never heard how it "
			    "ended", sj.id);
		ad_free(up);
	}
	exit(status);
}

static pid_t	shadow_parent;	/* the schedd that started us */

int
shadow_orphaned(void)
{
	return shadow_parent > 1 && getppid() != shadow_parent;
}

static long
timeout_param(const char *name, long dflt)
{
	long v = param_int(name, dflt);

	return v > 0 ? v : dflt;
}

/*
 * One call PROC to the startd about our claim, with argument ARG (which
 * XARG encodes), within TIMEOUT seconds: 0 with the answer in RES (free
 * it with xdr_status_x), -1 (no answer) with ERR saying why and errno
 * ECONNREFUSED if the startd's address refused the connection (0 if it
 * connected).
 */
static int
claim_call_arg(unsigned long proc, xdrproc_t xarg, void *arg, long timeout,
    status_x *res, char *err, size_t errlen)
{
	CLIENT *cl;
	int r;

	memset(res, 0, sizeof(*res));
	cl = rpc_connect(sj.startd_addr, PROG_STARTD, 1, (int)timeout, err,
	    errlen);
	if (cl == NULL)
		return -1;
	r = rpc_invoke(cl, proc, xarg, arg, (xdrproc_t)xdr_status_x, res,
	    err, errlen);
	rpc_close(cl);
	if (r == -1)
		errno = 0;	/* connected: not a refusal (startd_dead) */
	return r;
}

/* The same for a call whose argument is the claim's capability. */
static int
claim_call(unsigned long proc, long timeout, status_x *res, char *err,
    size_t errlen)
{
	char *cap = sj.capability;

	return claim_call_arg(proc, (xdrproc_t)xdr_wrapstring, &cap, timeout,
	    res, err, errlen);
}

/* Ask the startd to kill the job now; best effort. */
static void
release_claim(void)
{
	status_x res;
	char err[512];

	if (!sj.claimed)
		return;
	if (claim_call(STARTD_RELEASE_CLAIM, timeout_param("RPC_TIMEOUT",
	    20), &res, err, sizeof(err)) == -1)
		log_warnx("job %s: cannot release the claim: %s", sj.id, err);
	else {
		log_info("job %s: claim released: %s", sj.id,
		    res.message ? res.message : "");
		xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
	}
	sj.claimed = 0;
}

static int	is_standard(void);
static void	match_expanded(void);

/* HTCondor's HoldReasonCode of the next hold, if it has one: 6 the
 * program could not be executed or found (HoldReasonSubCode execve's
 * errno), 12 an output, 13 an input could not be transferred; the
 * starter's for a job over a limit (34 memory or disk, 46 its
 * duration). */
static int	hold_code, hold_subcode;

/* Cmd held $$(): the program is the one named for this machine, found
 * on this host now (not the copy in SPOOL). */
static int	cmd_from_machine;

/* Hold the job for REASON and exit 112. */
static void __attribute__((noreturn, format(printf, 1, 2)))
hold(const char *fmt, ...)
{
	char reason[ERRSTR_MAX];
	struct ad *up = ad_new();
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	log_warnx("job %s: holding it: %s", sj.id, reason);
	release_claim();
	ad_set_string(up, "HoldReason", reason);
	if (hold_code != 0)
		ad_set_int(up, "HoldReasonCode", hold_code);
	ad_set_int(up, "HoldReasonSubCode", hold_subcode);
	schedd_update_job(up, 3);
	ad_free(up);
	shadow_exit(SHADOW_EXIT_HELD, "held");
}

static char	hold_reason[ERRSTR_MAX];

static void
hold_now(void *arg)
{
	hold("%s", hold_reason);
}

/* Hold the job for REASON from the loop, once the reply went out: its
 * starter, losing us, kills it. */
void
shadow_hold_soon(const char *reason)
{
	if (hold_reason[0] != '\0')
		return;
	snprintf(hold_reason, sizeof(hold_reason), "%s", reason);
	event_timer_add(0.0, hold_now, NULL);
}

/*
 * The job goes back to the queue without having run (its starter could
 * not start it, the startd refused or did not answer the claim): one
 * more start without a run (NumStartsWithoutRunning, in the queue so
 * that it survives the shadow and the schedd).  The
 * MAX_JOB_STARTS_WITHOUT_RUNNING-th in a row holds it with WHY, rather
 * than have it matched, started and sent back for ever.  UP (may be
 * NULL) carries more attributes for the same update.
 */
static void
requeue_unrun(struct ad *up, const char *why)
{
	long long n = 0, max = param_int("MAX_JOB_STARTS_WITHOUT_RUNNING",
	    10);
	struct ad *own = NULL;

	if (up == NULL)
		up = own = ad_new();
	(void)ad_get_int(sj.ad, "NumStartsWithoutRunning", &n);
	n = n >= 0 ? n + 1 : 1;
	ad_set_int(up, "NumStartsWithoutRunning", n);
	schedd_update_job(up, 3);
	if (own != NULL)
		ad_free(own);
	if (max > 0 && n >= max) {
		/* HTCondor's code for a job that could not be started. */
		hold_code = 6;
		hold_subcode = 0;
		hold("The job was started %lld times in a row and never ran "
		    "(MAX_JOB_STARTS_WITHOUT_RUNNING is %lld); the last time: "
		    "%s", n, max, why);
	}
	log_info("job %s: back to the queue without having run (%lld in a "
	    "row): %s", sj.id, n, why);
}

/* The job ran: a count of starts without a run begins again. */
static void
ran(struct ad *up)
{
	long long n;

	if (ad_get_int(sj.ad, "NumStartsWithoutRunning", &n) == 0 && n != 0)
		ad_set_int(up, "NumStartsWithoutRunning", 0);
}

/* Finish from the loop, once the starter's reply went out. */
static void
finish(void *arg)
{
	struct ad *up = ad_new();
	const struct shadow_outcome *o = &outcome;

	/* The job is gone: its system-call service ends with it.  One
	 * that died under the job took the job's files with it: whatever
	 * the job did since is lost, and it runs again (from its last
	 * checkpoint). */
	syscall_collect(5);
	if (syscall_lost() && (o->how == EXIT_NORMAL ||
	    o->how == EXIT_SIGNAL)) {
		outcome.how = EXIT_VACATED_KILLED;
		snprintf(outcome.message, sizeof(outcome.message), "its "
		    "system-call service died before the job ended");
	}
	xfer_finish(o->how != EXIT_NORMAL && o->how != EXIT_SIGNAL);
	switch (o->how) {
	case EXIT_NORMAL:
	case EXIT_SIGNAL:
		if (xfer_failure() != NULL) {
			report_usage_attrs(up, o);
			schedd_update_job(up, 3);
			ad_free(up);
			hold_code = 12;
			hold("%s", xfer_failure());
		}
		ad_set_bool(up, "ExitBySignal", o->how == EXIT_SIGNAL);
		if (o->how == EXIT_NORMAL)
			ad_set_int(up, "ExitCode", o->code);
		else
			ad_set_int(up, "ExitSignal", o->code);
		ad_set_int(up, "CompletionDate", (long long)time(NULL));
		report_usage_attrs(up, o);
		ran(up);
		schedd_update_job(up, 5);
		ad_free(up);
		report_terminated(o);
		report_mail(o);
		shadow_exit(SHADOW_EXIT_COMPLETED, o->how == EXIT_NORMAL ?
		    "the job exited" : "the job died by a signal");
	case EXIT_FAILED:
		report_usage_attrs(up, o);
		schedd_update_job(up, 3);
		ad_free(up);
		/* As HTCondor's shadow: the exception (007) saying where,
		 * then the hold (012), with the starter's HoldReasonCode
		 * (6 a program the machine could not execute, held at once
		 * with execve's errno as its subcode, never tried again;
		 * 34 or 46 a job over a limit). */
		report_shadow_exception(o);
		if (o->code > 0 && o->code < 1000) {
			hold_code = o->code;
			hold_subcode = o->subcode;
		}
		hold("Error from %s: %s", sj.machine, o->message);
	case EXIT_NOT_STARTED:
		log_info("job %s: %s could not start it: %s", sj.id,
		    sj.machine, o->message);
		report_usage_attrs(up, o);
		report_evicted(o);
		requeue_unrun(up, o->message);
		ad_free(up);
		shadow_exit(SHADOW_EXIT_REQUEUE, "the job could not start");
	default:
		if (o->message[0] != '\0')
			log_info("job %s leaves %s: %s", sj.id, sj.machine,
			    o->message);
		report_usage_attrs(up, o);
		ran(up);
		schedd_update_job(up, 3);
		ad_free(up);
		/* After 025 the job is back in the queue, not evicted:
		 * no 004 (as HTCondor's shadow). */
		if (!reconnect_failed)
			report_evicted(o);
		shadow_exit(SHADOW_EXIT_REQUEUE, o->how == EXIT_VACATED_CKPT ?
		    "the job was checkpointed and vacated" :
		    "the job was evicted");
	}
}

void
shadow_outcome(const struct shadow_outcome *o)
{
	if (finished)
		return;
	finished = 1;
	outcome = *o;
	event_timer_cancel(lease_timer);
	event_timer_add(0, finish, NULL);
}

/* The starter is gone without a word: the job goes back to idle. */
static void
starter_lost(const char *why)
{
	struct shadow_outcome o;

	if (finished)
		return;
	log_warnx("job %s: %s", sj.id, why);
	release_claim();
	memset(&o, 0, sizeof(o));
	o.how = EXIT_VACATED_KILLED;
	snprintf(o.message, sizeof(o.message), "%s", why);
	shadow_outcome(&o);
}

static int	fence(long seconds);

/*
 * The job cannot go on (its calls have nowhere to go).  Under a lease
 * its starter may not hear of it (the link may be down too): the job
 * goes back to the queue only once the startd says the starter is gone,
 * or the lease is over, so that it never runs twice.
 */
void
shadow_syscalls_lost(void)
{
	long lease = shadow_job_lease();

	if (finished)
		return;
	if (lease > 0 && sj.claimed) {
		(void)fence(lease + 2 * timeout_param("RPC_TIMEOUT", 20) + 5);
		sj.claimed = 0;
	}
	starter_lost("its system-call service died; the job goes back to "
	    "the queue");
}

/*
 * The job's lease (JobLeaseDuration): how long its starter
 * keeps it running without us.  0: none, the starter kills the job the
 * moment it loses us, and so we give up on it at once.
 */
long
shadow_job_lease(void)
{
	static long lease = -1;
	long long v;

	if (lease < 0) {
		lease = 0;
		if (ad_get_int(sj.ad, "JobLeaseDuration", &v) == 0 && v > 0)
			lease = v < 10000000 ? (long)v : 10000000;
	}
	return lease;
}

/*
 * A startd whose address refuses connections (its host answers, nothing
 * listens there) is dead: a restarted one listens elsewhere and knows
 * none of its claims.  Its starters vacate their jobs the moment it
 * dies, and its successor kills what is left; VACATE_GRACE and a margin
 * after the first refusal, the claim's starter is gone.  SINCE keeps the
 * first refusal of a run of them (0: none); 1 once the starter is surely
 * gone.
 */
static int
startd_dead(int refused, double *since)
{
	if (!refused) {
		*since = 0;
		return 0;
	}
	if (*since == 0)
		*since = monotime();
	return monotime() - *since >= (double)param_int("VACATE_GRACE", 10) +
	    5.0;
}

/*
 * Does the startd still hold our claim with a starter running?  1 yes,
 * 0 no (the starter is gone for good), -1 no answer.
 */
static int
claim_alive(void)
{
	static double refused_since;
	status_x res;
	char err[512];
	long t = timeout_param("RPC_TIMEOUT", 20);
	int r;

	if (claim_call(STARTD_CLAIM_ALIVE, t < 5 ? t : 5, &res, err,
	    sizeof(err)) == -1)
		return startd_dead(errno == ECONNREFUSED, &refused_since) ?
		    0 : -1;
	refused_since = 0;
	r = res.code == 0;
	xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
	return r;
}

static void
reconnect_expired(void *arg)
{
	char why[160];

	lease_timer = 0;
	report_reconnect_failed(shadow_job_lease());
	reconnect_failed = 1;
	snprintf(why, sizeof(why), "no reconnection from the starter on %s "
	    "within the job's lease of %ld seconds", sj.machine,
	    shadow_job_lease());
	starter_lost(why);
}

/* While disconnected: whether the claim's startd now says the starter
 * is gone (then the job goes back to the queue), every 5 s. */
static void
alive_tick(void *arg)
{
	if (finished || !disconnected)
		return;
	if (claim_alive() == 0) {
		starter_lost("its startd says the starter is gone");
		return;
	}
	event_timer_add(5.0, alive_tick, NULL);
}

/*
 * The starter hung up, or has been silent too long.  Without a lease
 * the job is lost.  With one, unless its startd says the starter is
 * gone, the job runs on over there: wait for the starter to reconnect
 * (SHADOW_RECONNECT) until the lease, and a margin for its starter to
 * have killed the job, are over.
 */
static void
starter_gone(const char *why)
{
	long lease = shadow_job_lease();
	char text[256];
	int alive;

	if (finished || disconnected)
		return;
	if (lease == 0) {
		starter_lost(why);
		return;
	}
	if ((alive = claim_alive()) == 0) {
		snprintf(text, sizeof(text), "%s; its startd says the starter "
		    "is gone", why);
		starter_lost(text);
		return;
	}
	disconnected = 1;
	log_warnx("job %s: %s; it runs on under its lease (%ld s): waiting "
	    "for the starter to reconnect%s", sj.id, why, lease, alive < 0 ?
	    " (its startd does not answer either)" : "");
	report_disconnected(why);
	/* A startd out of reach now may answer later that its starter is
	 * gone (killed, or its host restarted): asked again while we
	 * wait, not only when the lease is over. */
	if (alive < 0)
		event_timer_add(5.0, alive_tick, NULL);
	event_timer_cancel(lease_timer);
	lease_timer = event_timer_add((double)lease +
	    (double)timeout_param("RPC_TIMEOUT", 20) + 5.0, reconnect_expired,
	    NULL);
}

static void
lease_expired(void *arg)
{
	char why[128];

	lease_timer = 0;
	snprintf(why, sizeof(why), "no word from the starter on %s for %ld "
	    "seconds", sj.machine, timeout_param("STARTER_TIMEOUT", 60));
	starter_gone(why);
}

void
shadow_starter_alive(void)
{
	if (finished)
		return;
	if (disconnected) {
		/* On the old connection, or a new one: the job is back. */
		disconnected = 0;
		log_info("job %s: the starter on %s is back", sj.id,
		    sj.machine);
		report_reconnected();
	}
	event_timer_cancel(lease_timer);
	lease_timer = event_timer_add((double)timeout_param(
	    "STARTER_TIMEOUT", 60), lease_expired, NULL);
}

void
shadow_reconnected(const char *from)
{
	if (finished)
		return;
	log_info("job %s: the starter on %s reconnected from %s", sj.id,
	    sj.machine, from);
	shadow_starter_alive();
}

static int	watched_fd = -1;	/* the starter's connection */

static void
on_hangup(int fd, short revents, void *arg)
{
	event_fd_del(fd);
	/* A connection the starter left for a new one says nothing. */
	if (fd != watched_fd)
		return;
	watched_fd = -1;
	shadow_left();
	starter_gone("the starter's connection closed");
}

void
shadow_watch_fd(int fd)
{
	/* Alongside the RPC service's own watch on the same descriptor:
	 * ours runs first in a round, and only hears the hang-up. */
	watched_fd = fd;
	event_fd_add(fd, POLLRDHUP, on_hangup, NULL);
}

static int	leaving;	/* SIGTERM: going away on purpose */

int
shadow_is_leaving(void)
{
	return leaving;
}

static void
leave_now(void *arg)
{
	shadow_exit(SHADOW_EXIT_REMOVED, arg != NULL ? "removed; the "
	    "starter heard we are leaving" : "removed");
}

/* The starter heard we are leaving (our answer to its EXIT went out,
 * or it hung up): nothing is left to do. */
void
shadow_left(void)
{
	if (leaving)
		event_timer_add(0.0, leave_now, "");
}

/*
 * SIGTERM: the job is removed or held.  The startd is asked to kill the
 * job at once (STARTD_RELEASE_CLAIM); and so that the starter does not
 * take our going for a cut link and wait for us under the job's lease,
 * we stay (up to RPC_TIMEOUT) to tell it: every call of its from now on
 * (its report of the killed job first) is answered ESHUTDOWN, "the
 * shadow is going away on purpose", on its authenticated connection,
 * and it stops the job and exits; the machine is free at once.
 */
static void
on_term(int signo)
{
	struct ad *up;
	/* (A starter we lost under a lease would not hear us.) */
	int starter = sj.claimed && !finished && !disconnected &&
	    transfer_starter_known();

	if (leaving)
		shadow_exit(SHADOW_EXIT_REMOVED, "removed (signalled again)");
	log_info("job %s: signal %d: the job is being removed or held",
	    sj.id, signo);
	leaving = 1;
	release_claim();
	if (sj.run_start > 0 && !finished) {
		up = ad_new();
		report_usage_attrs(up, NULL);
		schedd_update_job(up, 1);
		ad_free(up);
	}
	if (!starter)
		shadow_exit(SHADOW_EXIT_REMOVED, "removed");
	/* No outcome of the run counts any more: it is over. */
	finished = 1;
	event_timer_cancel(lease_timer);
	log_info("job %s: telling the starter on %s we are going away on "
	    "purpose", sj.id, sj.machine);
	event_timer_add((double)timeout_param("RPC_TIMEOUT", 20), leave_now,
	    NULL);
}

static void
on_ignore(int signo)
{
}

/* Attribute NAME as a path: NULL if unset or /dev/null, else absolute. */
static char *
job_path(const char *name)
{
	char *s;

	if (ad_get_string(sj.ad, name, &s) == -1)
		return NULL;
	if (*s == '\0' || strcmp(s, "/dev/null") == 0) {
		free(s);
		return NULL;
	}
	if (*s != '/') {
		char *abs = xasprintf("%s/%s", sj.iwd, s);

		free(s);
		return abs;
	}
	return s;
}

static double
job_real(const char *name)
{
	double v = 0;

	ad_get_real(sj.ad, name, &v);
	return v >= 0 ? v : 0;
}

/* Learn the job from its ad; hold it if the ad cannot describe one. */
static void
setup_job(void)
{
	char host[256];
	long long c = -1, p = -1;

	if (ad_get_int(sj.ad, "ClusterId", &c) == -1 || c != sj.cluster ||
	    ad_get_int(sj.ad, "ProcId", &p) == -1 || p != sj.proc)
		shadow_exit(SHADOW_EXIT_REQUEUE, "the schedd sent another job");
	if (ad_get_string(sj.ad, "Owner", &sj.owner) == -1)
		hold("the job has no Owner");
	match_expanded();
	if (gethostname(host, sizeof(host)) == -1)
		snprintf(host, sizeof(host), "this host");
	if (as_root && user_lookup(sj.owner, &sj.uid, &sj.gid) == -1)
		hold("Owner %s is not a user on %s", sj.owner, host);
	if (ad_get_string(sj.ad, "Iwd", &sj.iwd) == -1 || *sj.iwd != '/') {
		free(sj.iwd);
		sj.iwd = NULL;
		hold("the job's initial directory (Iwd) is not an absolute "
		    "path");
	}
	sj.in = job_path("In");
	sj.out = job_path("Out");
	sj.err = job_path("Err");
	sj.userlog = job_path("UserLog");
	/* A DAG node job's events go to its DAG's node log too. */
	sj.nodes_log = job_path("DAGManNodesLog");
	userlog_also(sj.nodes_log);
	sj.prev_remote_user = job_real("RemoteUserCpu");
	sj.prev_remote_sys = job_real("RemoteSysCpu");
	sj.prev_local_user = job_real("LocalUserCpu");
	sj.prev_local_sys = job_real("LocalSysCpu");
	sj.prev_wall = job_real("RemoteWallClockTime");
	ad_get_int(sj.ad, "ImageSize", &sj.prev_image_size);
	ad_get_int(sj.ad, "NumCkpts", &sj.num_ckpts);
}

/*
 * Open one of the job's files as the owner (the caller acts as the
 * owner).  Only regular files will do: data moves at offsets, and a FIFO
 * or a device could hang the shadow (hence O_NONBLOCK, cleared after).
 * An output file is not emptied yet: the job may not start.
 */
static int
open_job_file(const char *path, int flags, const char *what)
{
	struct stat st;
	int fd, e;

	if (flags == O_RDONLY) {
		fd = open(path, flags | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		if (fd == -1 || fstat(fd, &st) == -1)
			e = errno;
		else if (!S_ISREG(st.st_mode))
			e = EFTYPE_USER;
		else {
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
			return fd;
		}
		if (fd != -1)
			close(fd);
	} else if ((fd = fd_open_user(path, flags, 0644)) != -1)
		return fd;
	else
		e = errno;
	shadow_as_self();
	hold("Cannot open %s file %s: %s", what, path, fd_user_strerror(e));
}

/* The machine's own ad, from its startd; NULL (ERR says why). */
static struct ad *
machine_ad(char *err, size_t errlen)
{
	startd_query_res_x res;
	struct ad *ad = NULL;
	CLIENT *cl;

	cl = rpc_connect(sj.startd_addr, PROG_STARTD, 1,
	    (int)timeout_param("RPC_TIMEOUT", 20), err, errlen);
	if (cl == NULL)
		return NULL;
	memset(&res, 0, sizeof(res));
	if (rpc_invoke(cl, STARTD_QUERY, (xdrproc_t)rpc_xdr_nothing, NULL,
	    (xdrproc_t)xdr_startd_query_res_x, &res, err, errlen) == 0) {
		if (res.code != 0)
			snprintf(err, errlen, "%s", res.message ? res.message :
			    "refused");
		else
			ad = ad_from_xdr(&res.ad, err, errlen);
		xdr_free((xdrproc_t)xdr_startd_query_res_x, (char *)&res);
	}
	rpc_close(cl);
	return ad;
}

/*
 * $$(Attr): a job whose attributes refer to the machine it runs on gets
 * them filled in from the machine's ad, asked of its startd now: each
 * attribute X so expanded is kept in the queue as MATCH_EXP_X, and X
 * takes its value here.  A reference the machine cannot fill holds the
 * job, naming it.
 */
static void
match_expanded(void)
{
	struct ad *machine, *exp;
	struct buf b;
	char err[ERRSTR_MAX], *cmd;
	size_t i;
	int refs = 0;

	buf_init(&b);
	for (i = 0; i < ad_count(sj.ad) && !refs; i++) {
		if (strncmp(ad_name_at(sj.ad, i), "MATCH_EXP_", 10) == 0)
			continue;
		buf_reset(&b);
		expr_unparse(ad_expr_at(sj.ad, i), &b);
		refs = b.data != NULL && strstr(b.data, "$$(") != NULL;
	}
	buf_free(&b);
	if (!refs)
		return;
	if (ad_get_string(sj.ad, "Cmd", &cmd) == 0) {
		cmd_from_machine = strstr(cmd, "$$(") != NULL;
		free(cmd);
	}
	if ((machine = machine_ad(err, sizeof(err))) == NULL) {
		log_warnx("job %s: cannot ask %s for its ad: %s", sj.id,
		    sj.machine, err);
		shadow_exit(SHADOW_EXIT_REQUEUE, "no machine ad for $$()");
	}
	exp = ad_new();
	if (ad_match_expand(sj.ad, machine, exp, err, sizeof(err)) == -1) {
		ad_free(machine);
		ad_free(exp);
		hold("Cannot expand $$() in %s", err);
	}
	ad_free(machine);
	ad_merge(sj.ad, exp);
	ad_match_apply(sj.ad);
	if (schedd_update_job(exp, 3) == -1)
		log_warnx("job %s: cannot record its MATCH_EXP_ attributes",
		    sj.id);
	ad_free(exp);
}

/*
 * The job's Cmd named its program with $$() (prog.$$(OpSys), one program
 * per platform): the expanded name is looked up now, on this host, as
 * the owner (who acts now), relative to Iwd, and sent to the starter in
 * place of what SPOOL holds.  A program that is not there holds the job
 * (HoldReasonCode 6, as HTCondor's "could not execute"), naming it and
 * the machine.
 */
static void
open_matched_cmd(void)
{
	struct stat st;
	char *path = job_path("Cmd");
	int fd, e = 0;

	if (path == NULL) {
		shadow_as_self();
		hold_code = 6;
		hold("the job's Cmd names no program for %s", sj.machine);
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd == -1 || fstat(fd, &st) == -1)
		e = errno;
	else if (!S_ISREG(st.st_mode))
		e = EINVAL;
	if (e != 0) {
		if (fd != -1)
			close(fd);
		shadow_as_self();
		hold_code = 6;
		hold("Cannot execute %s, the program for %s: %s", path,
		    sj.machine, e == EINVAL ? "not a regular file" :
		    strerror(e));
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	snprintf(sj.exe_path, sizeof(sj.exe_path), "%s", path);
	sj.exe_fd = fd;
	sj.exe_size = st.st_size;
	log_info("job %s: its program for %s is %s", sj.id, sj.machine, path);
	free(path);
}

/* Everything the job needs on this side, before a machine is claimed. */
static void
check_files(void)
{
	struct stat st;
	char *spool_ckpt, why[ERRSTR_MAX];
	const char *spool = param("SPOOL");
	int e;

	if (shadow_as_owner() == -1)
		hold("Cannot act as the job's owner %s: %s", sj.owner,
		    strerror(errno));
	if (stat(sj.iwd, &st) == -1)
		e = errno;
	else
		e = S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
	if (e != 0) {
		shadow_as_self();
		hold("Cannot access initial working directory %s: %s",
		    sj.iwd, strerror(e));
	}
	if (sj.in != NULL)
		sj.in_fd = open_job_file(sj.in, O_RDONLY, "input");
	if (sj.out != NULL)
		sj.out_fd = open_job_file(sj.out, O_WRONLY | O_CREAT, "output");
	if (sj.err != NULL && sj.out != NULL && strcmp(sj.err, sj.out) == 0)
		sj.err_fd = sj.out_fd;
	else if (sj.err != NULL)
		sj.err_fd = open_job_file(sj.err, O_WRONLY | O_CREAT, "error");
	/* The user log is appended to per event; a link planted under its
	 * name holds the job now rather than losing every event. */
	if (sj.userlog != NULL)
		close(open_job_file(sj.userlog, O_WRONLY | O_CREAT | O_APPEND,
		    "user log"));
	if (sj.nodes_log != NULL)
		close(open_job_file(sj.nodes_log, O_WRONLY | O_CREAT | O_APPEND,
		    "DAG node log"));
	if (!is_standard() && xfer_inputs_list(why, sizeof(why)) == -1) {
		shadow_as_self();
		hold_code = 13;
		hold("%s", why);
	}
	if (cmd_from_machine)
		open_matched_cmd();
	shadow_as_self();

	/* The job's latest checkpoint, else what was submitted. */
	spool_ckpt = xasprintf("%s/cluster%d.proc%d.ckpt", spool, sj.cluster,
	    sj.proc);
	sj.resuming = access(spool_ckpt, F_OK) == 0;
	if (sj.resuming) {
		snprintf(sj.exe_path, sizeof(sj.exe_path), "%s", spool_ckpt);
		if (sj.exe_fd != -1) {
			close(sj.exe_fd);
			sj.exe_fd = -1;
		}
	} else if (sj.exe_fd != -1) {
		/* The program named for this machine (open_matched_cmd). */
		free(spool_ckpt);
		return;
	} else {
		/* A job with a program of its own (another queue statement's
		 * executable), else its cluster's. */
		snprintf(sj.exe_path, sizeof(sj.exe_path),
		    "%s/cluster%d.proc%d.ickpt", spool, sj.cluster, sj.proc);
		if (access(sj.exe_path, F_OK) == -1)
			snprintf(sj.exe_path, sizeof(sj.exe_path),
			    "%s/cluster%d.ickpt", spool, sj.cluster);
	}
	free(spool_ckpt);
	if ((sj.exe_fd = open(sj.exe_path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(sj.exe_fd, &st) == -1)
		hold("Cannot open executable %s: %s", sj.exe_path,
		    strerror(errno));
	sj.exe_size = st.st_size;
}

/*
 * The key of the job's claim (auth_claim_key), from the schedd: not the
 * machine's claim id, which only the pool's daemons hold, but what the
 * schedd made of it for this job with the pool key.  It comes down a
 * pipe whose descriptor CONDOR_CLAIM_KEY_FD names, never in the
 * environment or on the command line.
 */
static char	claim_id[CAPABILITY_MAX + 1];

/* Read the claim's key from the schedd's pipe: nothing we start inherits
 * the pipe, and no other process can read it. */
static void
take_claim_id(void)
{
	const char *var = getenv("CONDOR_CLAIM_KEY_FD");
	char buf[CAPABILITY_MAX + 2], *end;
	size_t i, len = 0;
	ssize_t n;
	long fd;

	if (var == NULL)
		return;
	fd = strtol(var, &end, 10);
	unsetenv("CONDOR_CLAIM_KEY_FD");
	if (*end != '\0' || fd < 3 || fd > 1024)
		return;
	while (len < sizeof(buf) - 1) {
		n = read((int)fd, buf + len, sizeof(buf) - 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close((int)fd);
	buf[len] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	len = strlen(buf);
	for (i = 0; i < len && isxdigit((unsigned char)buf[i]); i++)
		;
	if (i == len && len == AUTH_CLAIM_KEY_LEN)
		memcpy(claim_id, buf, len + 1);
	explicit_bzero(buf, sizeof(buf));
}

/*
 * The capability the starter must present: the machine's claim id,
 * which the startd also wants; without one (a shadow run by hand), one
 * made up here.
 */
static void
make_capability(void)
{
	if (claim_id[0] != '\0') {
		memcpy(sj.capability, claim_id, sizeof(claim_id));
		explicit_bzero(claim_id, sizeof(claim_id));
		return;
	}
	auth_random_hex(sj.capability, CAPABILITY_BYTES);
}

/*
 * Listen for the starter; ADDR gets the address to give the startd.  A
 * wildcard bind is announced as HOST's address, or loopback.
 */
static void
listen_for_starter(char *addr)
{
	struct sockaddr_in bound;
	int fd;

	fd = rpc_listen_tcp(param("BIND_ADDRESS"), 0, &bound);
	if (fd == -1 || rpc_serve(fd, PROG_SHADOW, 1, shadow_prog_1) ==
	    NULL) {
		log_warn("job %s: cannot listen at %s", sj.id,
		    param("BIND_ADDRESS") ? param("BIND_ADDRESS") : "*");
		shadow_exit(SHADOW_EXIT_REQUEUE, "no port for the starter");
	}
	shadow_format_address(&bound, addr);
}

void
shadow_format_address(struct sockaddr_in *bound, char *out)
{
	struct sockaddr_in host;
	char *text;

	if (bound->sin_addr.s_addr == htonl(INADDR_ANY)) {
		text = xasprintf("%s:0", param("HOST") ? param("HOST") :
		    "localhost");
		if (addr_parse(text, &host) == 0)
			bound->sin_addr = host.sin_addr;
		else
			bound->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		free(text);
	}
	addr_format(bound, out);
}

/* Ask the startd for the machine; exit 107 if it says no. */
static void
claim_machine(const char *addr)
{
	const char *host = param("HOST");
	status_x res;
	claim_x c;
	char err[512], *slot;
	CLIENT *cl;
	int r;

	double deadline = monotime() + (double)timeout_param("RPC_TIMEOUT",
	    20);
	struct timespec pause = { 0, 20 * 1000 * 1000 };

	cl = rpc_connect(sj.startd_addr, PROG_STARTD, 1,
	    (int)timeout_param("RPC_TIMEOUT", 20), err, sizeof(err));
	if (cl == NULL) {
		log_warnx("job %s: cannot reach the startd of %s: %s", sj.id,
		    sj.machine, err);
		requeue_unrun(NULL, err);
		shadow_exit(SHADOW_EXIT_REQUEUE, "no startd");
	}
	memset(&c, 0, sizeof(c));
	ad_to_xdr(sj.ad, &c.job);
	c.shadow_addr = (char *)addr;
	c.capability = sj.capability;
	c.schedd_name = (char *)(host ? host : "");
	for (;;) {
		memset(&res, 0, sizeof(res));
		r = rpc_invoke(cl, STARTD_REQUEST_CLAIM,
		    (xdrproc_t)xdr_claim_x, &c, (xdrproc_t)xdr_status_x, &res,
		    err, sizeof(err));
		/* A reused claim whose last job's starter is still
		 * leaving: a moment more (claim reuse). */
		if (r == -1 || res.code != EINPROGRESS ||
		    monotime() >= deadline)
			break;
		xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
		nanosleep(&pause, NULL);
	}
	ad_x_free(&c.job);
	rpc_close(cl);
	if (r == -1) {
		log_warnx("job %s: the startd of %s did not answer the claim: "
		    "%s", sj.id, sj.machine, err);
		requeue_unrun(NULL, err);
		shadow_exit(SHADOW_EXIT_REQUEUE, "no answer to the claim");
	}
	if (res.code != 0) {
		log_info("job %s: %s refused the claim: %s", sj.id,
		    sj.machine, res.message ? res.message : "");
		snprintf(err, sizeof(err), "%s refused the claim: %s",
		    sj.machine, res.message ? res.message : "");
		xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
		requeue_unrun(NULL, err);
		shadow_exit(SHADOW_EXIT_REQUEUE, "claim refused");
	}
	log_info("job %s: claimed %s (%s)", sj.id, sj.machine,
	    res.message ? res.message : "");
	/* A partitionable machine names the dynamic slot the job got. */
	if (res.message != NULL && (slot = strstr(res.message, "; slot ")) !=
	    NULL && slot[7] != '\0' && strlen(slot + 7) < 256 &&
	    strcmp(slot + 7, sj.machine) != 0)
		sj.machine = xstrdup(slot + 7);
	xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
	sj.claimed = 1;
	sj.run_start = time(NULL);
}

/* A relinked job (the default universe) calls back for its system calls. */
static int
is_standard(void)
{
	char *u;
	int standard;

	if (ad_get_string(sj.ad, "Universe", &u) == -1)
		return 1;
	standard = strcasecmp(u, "standard") == 0;
	free(u);
	return standard;
}

/*
 * condor_shadow -reconnect: the shadow of job sj.id died (killed, or
 * with its host) while its starter may still run the job under its
 * lease.  Instead of claiming a machine, tell the claim's startd where
 * we listen (STARTD_RECONNECT_JOB): it tells the starter, which comes
 * back to us with SHADOW_RECONNECT (024), and the job goes on as if
 * we had started it.  A startd that says the starter is gone sends the
 * job back to the queue; one that does not answer is asked again every
 * few seconds until the lease is over (then 025, as for a starter that
 * never came back).
 */
static void
reconnect_tick(void *arg)
{
	static double refused_since;
	const char *addr = arg;
	reconnect_x r;
	status_x res;
	char err[512];
	int rc;

	if (finished || !disconnected)
		return;
	r.capability = sj.capability;
	r.shadow_addr = (char *)addr;
	rc = claim_call_arg(STARTD_RECONNECT_JOB, (xdrproc_t)xdr_reconnect_x,
	    &r, 5, &res, err, sizeof(err));
	if (startd_dead(rc == -1 && errno == ECONNREFUSED, &refused_since)) {
		sj.claimed = 0;
		starter_lost("its startd is gone, and its starters with it");
		return;
	}
	if (rc == 0 && res.code == ENOENT) {
		xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
		sj.claimed = 0;
		starter_lost("its startd says the starter is gone");
		return;
	}
	if (rc == 0) {
		log_info("job %s: %s", sj.id, res.message ? res.message : "");
		xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
	} else
		log_warnx("job %s: the startd of %s does not answer: %s",
		    sj.id, sj.machine, err);
	/* Told, or not: ask again in a while unless the starter is back. */
	event_timer_add(5.0, reconnect_tick, arg);
}

static void
reconnect_job(const char *addr)
{
	long long start;

	sj.claimed = 1;
	if (ad_get_int(sj.ad, "JobCurrentStartDate", &start) == 0 &&
	    start > 0)
		sj.run_start = (time_t)start;
	else
		sj.run_start = time(NULL);
	log_info("job %s: reconnecting to its starter on %s (lease %ld s)",
	    sj.id, sj.machine, shadow_job_lease());
	shadow_await_reconnect();
	disconnected = 1;
	report_disconnected("its shadow died");
	lease_timer = event_timer_add((double)shadow_job_lease() +
	    (double)timeout_param("RPC_TIMEOUT", 20) + 5.0, reconnect_expired,
	    NULL);
	reconnect_tick((void *)addr);
}

static void
usage(void)
{
	fprintf(stderr, "usage: condor_shadow CLUSTER.PROC STARTD_ADDR "
	    "MACHINE_NAME\n"
	    "       condor_shadow -reconnect CLUSTER.PROC STARTD_ADDR "
	    "MACHINE_NAME\n"
	    "       condor_shadow -fence CLUSTER.PROC STARTD_ADDR SECONDS\n"
	    "  (run by condor_schedd, one per running job)\n");
}

/*
 * condor_shadow -fence: the shadow of job sj.id died without saying
 * what became of its starter (killed, crashed).  That starter may still
 * be running the job, and will until it misses its shadow (at once, or
 * after RPC_TIMEOUT or the job's lease when the link is down too).  The
 * schedd starts the job again only once this process has ended: it asks
 * the startd to kill the job (STARTD_RELEASE_CLAIM) and waits until the
 * startd says the claim is gone, or until SECONDS are over, by which
 * time the starter has given the job up by itself.
 */
static int
fence(long seconds)
{
	double deadline = monotime() + (double)seconds;
	struct timespec pause = { 0, 500 * 1000 * 1000 };
	status_x res;
	char err[512];
	int alive;

	log_info("job %s: stopping its starter (claim at %s) before it runs "
	    "again", sj.id, sj.startd_addr);
	if (sj.capability[0] == '\0')	/* -fence: make_capability was not run */
		make_capability();
	if (claim_call(STARTD_RELEASE_CLAIM, 5, &res, err, sizeof(err)) == 0)
		xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
	while (monotime() < deadline) {
		if ((alive = claim_alive()) == 0) {
			log_info("job %s: the startd says its old starter is "
			    "gone", sj.id);
			return 0;
		}
		if (shadow_orphaned())
			return 1;
		nanosleep(&pause, NULL);
	}
	log_info("job %s: no word of its old starter for %ld s: it has given "
	    "the job up by now", sj.id, seconds);
	return 0;
}

int
main(int argc, char **argv)
{
	char addr[ADDR_STRLEN], err[512], *end;
	const char *logpath;
	long c, p, fencing = 0;
	int gone, reconnecting = 0, tries;

	/* The schedd names itself: one killed as it started us would
	 * make getppid() a reaper's, and our orphaned end go unheard. */
	if ((end = getenv("CONDOR_SHADOW_PARENT")) != NULL &&
	    (p = strtol(end, &end, 10)) > 1 && *end == '\0')
		shadow_parent = (pid_t)p;
	else
		shadow_parent = getppid();
	unsetenv("CONDOR_SHADOW_PARENT");
	/* The shadow acts for the job's owner: it never holds the pool key,
	 * so neither does the system-call server it forks for the job. */
	auth_client_acts_for_user();
	take_claim_id();
	if (argc == 2 && strcmp(argv[1], "-h") == 0) {
		usage();
		return 0;
	}
	if (argc == 5 && strcmp(argv[1], "-reconnect") == 0) {
		reconnecting = 1;
		argv++;
		argc--;
	} else if (argc == 5 && strcmp(argv[1], "-fence") == 0) {
		fencing = strtol(argv[4], &end, 10);
		if (*end != '\0' || fencing <= 0 || claim_id[0] == '\0') {
			usage();
			return 2;
		}
		argv++;
		argc--;
	}
	if (argc != 4) {
		usage();
		return 2;
	}
	errno = 0;
	c = strtol(argv[1], &end, 10);
	if (*end != '.' || c < 0 || c > 0x7fffffff || errno != 0) {
		usage();
		return 2;
	}
	p = strtol(end + 1, &end, 10);
	if (*end != '\0' || p < 0 || p > 0x7fffffff || errno != 0) {
		usage();
		return 2;
	}
	sj.cluster = (int)c;
	sj.proc = (int)p;
	snprintf(sj.id, sizeof(sj.id), "%d.%d", sj.cluster, sj.proc);
	sj.startd_addr = argv[2];
	sj.machine = argv[3];

	common_init(argv[0]);
	umask(022);
	as_root = getuid() == 0;
	logpath = param("SHADOW_LOG");
	if (param("LOG") != NULL)
		daemon_mkdir(param("LOG"), 0755);
	if (logpath == NULL || log_open_file(logpath) == -1)
		log_warn("cannot open the log %s", logpath ? logpath :
		    "(SHADOW_LOG is not set)");
	signal(SIGPIPE, SIG_IGN);
	if (fencing > 0)
		return fence(fencing);
	event_init();
	event_signal_add(SIGTERM, on_term);
	event_signal_add(SIGINT, on_term);
	event_signal_add(SIGHUP, on_ignore);
	log_info("job %s: shadow starting (pid %d) for %s at %s", sj.id,
	    (int)getpid(), sj.machine, sj.startd_addr);

	/* A new shadow for a running job may be started by a schedd still
	 * starting (its recovery): it is given time to listen. */
	sj.ad = schedd_get_job(sj.cluster, sj.proc, &gone, err, sizeof(err));
	for (tries = 0; sj.ad == NULL && !gone && reconnecting && tries < 30;
	    tries++) {
		sleep(1);
		sj.ad = schedd_get_job(sj.cluster, sj.proc, &gone, err,
		    sizeof(err));
	}
	if (sj.ad == NULL) {
		log_warnx("job %s: %s", sj.id, err);
		shadow_exit(gone ? SHADOW_EXIT_REMOVED : SHADOW_EXIT_REQUEUE,
		    "no job ad");
	}
	setup_job();
	check_files();
	make_capability();
	transfer_init();
	listen_for_starter(addr);
	if (reconnecting) {
		if (is_standard() || shadow_job_lease() == 0)
			shadow_exit(SHADOW_EXIT_REQUEUE, "no reconnection for "
			    "this job");
		reconnect_job(addr);
		return event_dispatch();
	}
	if (is_standard() && syscall_init() == -1) {
		log_warn("job %s: cannot listen for system calls", sj.id);
		shadow_exit(SHADOW_EXIT_REQUEUE, "no port for system calls");
	}
	claim_machine(addr);
	report_execute();
	shadow_starter_alive();
	return event_dispatch();
}
