/*
 * startd_claim.c: running a job on this machine.
 *
 * A shadow asks for the machine with STARTD_REQUEST_CLAIM, presenting
 * the machine's claim id: made here (AUTH_CLAIM_ID_BYTES from
 * getrandom), advertised in the machine ad, which the collector shows
 * to the pool's daemons only, given by the negotiator to the schedd it
 * matched, and by the schedd to its shadow; a new one after every
 * claim.  No other caller can claim the machine.  The answer
 * is decided here and now, not by the matchmaker's stale view: the
 * machine must be Idle after a fresh look (the owner may just have come
 * back), START must be TRUE with the job as its target, and the job's
 * Requirements TRUE with this machine as theirs.  Then a starter is
 * spawned and handed the claim on a pipe, its standard input: the
 * capability is a secret and must not show in ps.  The startd keeps the
 * pipe's write end open for as long as the starter lives, so that a
 * startd that dies (even by SIGKILL) is noticed at once by its starter,
 * which then vacates the job rather than run it unsupervised.
 *
 * A partitionable machine (NUM_CPUS above 1) advertises one id per
 * core, space separated, in the ClaimId of slot1@HOST: the negotiator
 * gives each job it matches with the slot in one cycle an id of its
 * own, and each id is replaced the moment a claim uses it.  The claim
 * is then decided as above against the partitionable slot's ad, whose
 * Cpus, Memory, Disk and GPUs are what is free, and the job's requests
 * (slot.h) must fit in them; the job runs in a dynamic slot carved for
 * it, slot1_N@HOST, with its own state and ad, whose share returns to
 * slot1 when its starter exits.  The owner policy is evaluated for each
 * dynamic slot with its own ad (the machine's, with its state).
 *
 * Claim reuse: a claim outlives its job.  When the starter of a job
 * that ended by itself exits 0 from Claimed, within CLAIM_WORKLIFE
 * seconds of the claim's start, the claim is kept (struct claim): the
 * slot stays Claimed with Activity Idle, the claim keeps its own id
 * (the ad shows a new one), and STARTD_REQUEST_CLAIM with a key made
 * of that id for another job runs that job on it, the policy decided
 * again for it (claim_activate).  A kept claim ends on STARTD_END_CLAIM
 * from its schedd, when START is no longer TRUE for its user, on a
 * vacate, or after two RPC_TIMEOUTs without a job.
 *
 * The starter is the only handle on the job: signals tell it what to
 * do (startd.h), and its exit ends the claim.  A starter that does not
 * obey is escalated: a vacate that takes longer than VACATE_GRACE plus
 * two RPC_TIMEOUTs becomes a kill, and a kill that takes longer than
 * RPC_TIMEOUT becomes SIGKILL of the starter (its job dies with it: the
 * starter set its parent-death signal).
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <arpa/inet.h>

#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rpc/rpc.h>

#include "ad.h"
#include "auth.h"
#include "buf.h"
#include "collector_client.h"
#include "daemon.h"
#include "config.h"
#include "event.h"
#include "expr.h"
#include "log.h"
#include "machine.h"
#include "startd_owner.h"
#include "rpcutil.h"
#include "slot.h"
#include "startd.h"
#include "startd_rpc.h"
#include "xalloc.h"

#define CAPABILITY_MIN	16	/* bytes; shorter is guessable */

/*
 * One claim: a job running here, in its slot.  Without partitioning
 * there is one, slots[0], and its state is the machine's
 * (startd_state_get).  A partitionable machine's dynamic slots are
 * slots[1..SLOTS_MAX]; slot N is advertised as slot1_N@HOST with its own
 * state, resources and ad, and its resources are the partitionable
 * slot's until its starter exits.
 */
struct claim {
	pid_t	 pid;		/* the starter; 0: no claim */
	int	 pipe_fd;	/* write end of its stdin; -1 when closed */
	char	*msg;		/* the claim as written on the pipe */
	size_t	 msg_len, msg_off;
	char	*capability;
	char	*owner;		/* RemoteUser */
	char	*schedd;	/* RemoteSchedd */
	char	 job_id[32];	/* "C.P" */
	struct ad *job;		/* the job ad: TARGET of the policy */
	time_t	 start;		/* JobStart */
	long	 escalate_timer;
	double	 stop_sent;	/* monotime of the last SIGTSTP; 0 none */

	int	 id;		/* N of slot1_N; 0: the whole machine */
	enum startd_state state;	/* a dynamic slot's own */
	time_t	 entered;	/* when STATE changed */
	struct slot_res res;	/* a dynamic slot's share */
	char	 gpus[SLOT_GPUS_MAX * 8];	/* AssignedGPUs, or "" */

	/*
	 * Claim reuse: the claim outlives its job.  When the starter of
	 * a job that ended by itself exits, the claim is KEPT (no
	 * starter, the slot still Claimed, its Activity Idle) for its
	 * schedd's next job, which proves it with a key made of the
	 * claim's own id for that job; CLAIM_WORKLIFE bounds how long
	 * after BEGUN new jobs are taken.
	 */
	char	 claim_id[2 * AUTH_CLAIM_ID_BYTES + 1];
	long long serial;	/* "claim N" in the log; not a secret */
	time_t	 begun;		/* when the claim was accepted */
	int	 jobs;		/* jobs it has run, the current one too */
	int	 kept;		/* between jobs: no starter, no job */
	int	 ending;	/* its schedd has no more jobs for it */
	long	 idle_timer;	/* a kept claim unused too long ends */
};

static struct claim slots[SLOTS_MAX + 1];
static unsigned char gpu_used[SLOT_GPUS_MAX];
/* Claims accepted since start-up, advertised as NumClaims: a matchmaker
 * that gave this machine out knows its ad is current once it moved. */
static long long num_claims;

/*
 * The ids the next claims must present.  One for a whole machine; one
 * per core for a partitionable slot, so that the negotiator can give
 * each of the jobs it matches with it in one cycle an id of its own.
 * Each is replaced as soon as it is used.
 */
static char	claim_ids[SLOTS_MAX][2 * AUTH_CLAIM_ID_BYTES + 1];
static int	nclaim_ids;

static void
claim_init_once(void)
{
	int i;

	if (nclaim_ids > 0)
		return;
	for (i = 0; i <= SLOTS_MAX; i++) {
		slots[i].pipe_fd = -1;
		slots[i].id = i;
	}
	nclaim_ids = startd_partitionable() ? (int)startd_total_cpus() : 1;
	if (nclaim_ids < 1)
		nclaim_ids = 1;
	if (nclaim_ids > SLOTS_MAX)
		nclaim_ids = SLOTS_MAX;
	for (i = 0; i < nclaim_ids; i++)
		auth_random_hex(claim_ids[i], AUTH_CLAIM_ID_BYTES);
}

/*
 * What the negotiator must know of C's job: the concurrency limits it
 * holds, its accounting group (whose quota it counts against), and
 * whether it is a nice user's (any other job may take its place).
 */
static void
job_limits(const struct claim *c, struct ad *ad)
{
	char *limits;
	int nice;

	if (c->job == NULL)
		return;
	if (ad_get_string(c->job, "ConcurrencyLimits", &limits) == 0) {
		ad_set_string(ad, "ConcurrencyLimits", limits);
		free(limits);
	}
	if (ad_get_string(c->job, "AcctGroup", &limits) == 0) {
		ad_set_string(ad, "AcctGroup", limits);
		free(limits);
	}
	if (ad_get_bool(c->job, "NiceUser", &nice) == 0 && nice)
		ad_set_bool(ad, "NiceUser", 1);
}

static int
active(const struct claim *c)
{
	return c->pid != 0;
}

/* A claim, with a job or kept between two. */
static int
held(const struct claim *c)
{
	return c->pid != 0 || c->kept;
}

/* CLAIM_WORKLIFE: seconds after its start that a claim takes new jobs;
 * -1 for ever, 0 none after its first. */
static int
worklife_over(const struct claim *c)
{
	long long w = param_int("CLAIM_WORKLIFE", 1200);

	if (w < 0)
		return 0;
	return w == 0 || (long long)(time(NULL) - c->begun) >= w;
}

/* Seconds a kept claim waits for its schedd's next job. */
static double
kept_timeout(void)
{
	long t = param_int("RPC_TIMEOUT", 20);

	return 2.0 * (double)(t > 0 ? t : 20);
}

/* The slots in use in this mode: [*lo, *hi]. */
static void
slot_range(int *lo, int *hi)
{
	claim_init_once();
	if (startd_partitionable()) {
		*lo = 1;
		*hi = SLOTS_MAX;
	} else
		*lo = *hi = 0;
}

int
claim_active(void)
{
	int i, lo, hi;

	slot_range(&lo, &hi);
	for (i = lo; i <= hi; i++)
		if (held(&slots[i]))
			return 1;
	return 0;
}

pid_t
claim_starter_pid(void)
{
	int i, lo, hi;

	slot_range(&lo, &hi);
	for (i = lo; i <= hi; i++)
		if (active(&slots[i]))
			return slots[i].pid;
	return 0;
}

size_t
claim_starter_pids(pid_t *pids, size_t max)
{
	size_t n = 0;
	int i, lo, hi;

	slot_range(&lo, &hi);
	for (i = lo; i <= hi && n < max; i++)
		if (active(&slots[i]))
			pids[n++] = slots[i].pid;
	return n;
}

void
claim_carved(struct slot_res *r)
{
	int i;

	memset(r, 0, sizeof(*r));
	if (!startd_partitionable())
		return;
	for (i = 1; i <= SLOTS_MAX; i++)
		if (held(&slots[i]))
			slot_give(r, &slots[i].res);
}

static enum startd_state
claim_state(const struct claim *c)
{
	return c->id == 0 ? startd_state_get() : c->state;
}

/* The name of C's slot in the pool. */
static void
slot_name(const struct claim *c, char *buf, size_t len)
{
	if (c->id == 0)
		snprintf(buf, len, "%s", startd_host_name());
	else
		snprintf(buf, len, "slot1_%d@%s", c->id, startd_host_name());
}

/*
 * C enters NEXT: the machine's state for a whole machine; for a dynamic
 * slot its own, logged with its name and advertised at once.
 */
static void
claim_state_set(struct claim *c, enum startd_state next, const char *why)
{
	char name[256];

	if (c->id == 0) {
		startd_state_set(next, why);
		return;
	}
	if (c->state == next)
		return;
	slot_name(c, name, sizeof(name));
	log_info("%s: State %s -> %s (%s)", name, startd_state_name(c->state),
	    startd_state_name(next), why);
	c->state = next;
	c->entered = time(NULL);
	startd_slots_changed();
}

void
claim_add_attrs(struct ad *ad)
{
	struct buf b;
	int i;

	claim_init_once();
	ad_set_int(ad, "NumClaims", num_claims);
	if (startd_partitionable()) {
		buf_init(&b);
		for (i = 0; i < nclaim_ids; i++)
			buf_printf(&b, "%s%s", i ? " " : "", claim_ids[i]);
		ad_set_string(ad, AUTH_CLAIM_ID_ATTR, b.data);
		explicit_bzero(b.data, b.len);
		buf_free(&b);
		return;
	}
	if (!held(&slots[0])) {
		ad_set_string(ad, AUTH_CLAIM_ID_ATTR, claim_ids[0]);
		return;
	}
	ad_set_string(ad, "RemoteUser", slots[0].owner);
	ad_set_string(ad, "RemoteSchedd", slots[0].schedd);
	ad_set_int(ad, "NumJobsOnClaim", slots[0].jobs);
	if (slots[0].kept) {
		/* Claimed, waiting for the claim's next job. */
		ad_set_string(ad, "Activity", "Idle");
		job_limits(&slots[0], ad);
		return;
	}
	ad_set_string(ad, "JobId", slots[0].job_id);
	ad_set_int(ad, "JobStart", (long long)slots[0].start);
	if (slots[0].gpus[0] != '\0')
		ad_set_string(ad, "AssignedGPUs", slots[0].gpus);
	job_limits(&slots[0], ad);
}

/* The ad of dynamic slot C: MACHINE's, with C's name, share and job. */
static struct ad *
slot_ad(const struct claim *c, const struct ad *machine)
{
	struct ad *ad = ad_copy(machine);
	char name[256];

	slot_name(c, name, sizeof(name));
	ad_set_string(ad, "Name", name);
	ad_set_string(ad, "SlotType", "Dynamic");
	ad_set_bool(ad, "PartitionableSlot", 0);
	ad_set_int(ad, "SlotID", 1);
	ad_set_int(ad, "DSlotID", c->id);
	slot_ad_set_res(ad, &c->res);
	ad_delete(ad, AUTH_CLAIM_ID_ATTR);
	ad_set_string(ad, "State", startd_state_name(c->state));
	ad_set_string(ad, "Activity", c->kept ? "Idle" :
	    startd_activity_name(c->state));
	ad_set_int(ad, "EnteredCurrentState", (long long)c->entered);
	ad_set_string(ad, "RemoteUser", c->owner);
	ad_set_string(ad, "RemoteSchedd", c->schedd);
	ad_set_int(ad, "NumJobsOnClaim", c->jobs);
	if (!c->kept) {
		ad_set_string(ad, "JobId", c->job_id);
		ad_set_int(ad, "JobStart", (long long)c->start);
	}
	if (c->gpus[0] != '\0')
		ad_set_string(ad, "AssignedGPUs", c->gpus);
	job_limits(c, ad);
	return ad;
}

size_t
claim_slot_ads(const struct ad *machine, struct ad ***adsp)
{
	struct ad **ads;
	size_t n = 0;
	int i;

	*adsp = NULL;
	if (!startd_partitionable() || machine == NULL)
		return 0;
	ads = xcalloc(SLOTS_MAX, sizeof(*ads));
	for (i = 1; i <= SLOTS_MAX; i++)
		if (held(&slots[i]))
			ads[n++] = slot_ad(&slots[i], machine);
	if (n == 0) {
		free(ads);
		return 0;
	}
	*adsp = ads;
	return n;
}

static void
claim_clear(struct claim *c)
{
	int id = c->id;

	event_timer_cancel(c->escalate_timer);
	event_timer_cancel(c->idle_timer);
	if (c->pipe_fd != -1) {
		event_fd_del(c->pipe_fd);
		close(c->pipe_fd);
	}
	explicit_bzero(c->claim_id, sizeof(c->claim_id));
	free(c->msg);
	if (c->capability != NULL)
		explicit_bzero(c->capability, strlen(c->capability));
	free(c->capability);
	free(c->owner);
	free(c->schedd);
	ad_free(c->job);
	slot_gpus_give(gpu_used, SLOT_GPUS_MAX, c->gpus);
	memset(c, 0, sizeof(*c));
	c->pipe_fd = -1;
	c->id = id;
	/* Whoever saw the last one cannot claim with it again. */
	if (id == 0)
		auth_random_hex(claim_ids[0], AUTH_CLAIM_ID_BYTES);
}

/* Send SIG to C's starter; 0 or -1 (logged). */
static int
signal_starter(struct claim *c, int sig, const char *name)
{
	if (!active(c))
		return -1;
	if (kill(c->pid, sig) == -1) {
		log_warn("cannot send %s to the starter (pid %d)", name,
		    (int)c->pid);
		return -1;
	}
	return 0;
}

static void	escalate(void *);
static int	claim_kill(struct claim *, const char *);
static int	eval_true(const struct ad *, const struct ad *, const char *,
		    const char **);
static void	claim_end(struct claim *, const char *);

static void
arm_escalation(struct claim *c, long seconds)
{
	event_timer_cancel(c->escalate_timer);
	c->escalate_timer = event_timer_add((double)seconds, escalate, c);
}

/* The starter did not leave in time: push harder. */
static void
escalate(void *arg)
{
	struct claim *c = arg;

	c->escalate_timer = 0;
	if (!active(c))
		return;
	if (claim_state(c) == STATE_VACATING) {
		claim_kill(c, "the vacate took too long");
		return;
	}
	log_warnx("the starter (pid %d) ignores its kill order; SIGKILL",
	    (int)c->pid);
	signal_starter(c, SIGKILL, "SIGKILL");
}

/*
 * Does the starter catch SIGTSTP yet?  Sent before it does (it is just
 * starting), the signal would stop the starter itself rather than its
 * job.  1 yes, 0 not yet, -1 cannot tell (then it is sent anyway: a
 * starter past its first moments always catches it).
 */
static int
starter_catches_tstp(const struct claim *c)
{
	char path[64], *text;
	int r;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)c->pid);
	if ((text = machine_read_file(path)) == NULL)
		return -1;
	r = policy_catches_signal(text, SIGTSTP);
	free(text);
	return r;
}

/* Tell C's starter to stop its job, if it can hear it now. */
static void
send_stop(struct claim *c)
{
	if (starter_catches_tstp(c) == 0) {
		log_debug("the starter (pid %d) is not ready for SIGTSTP "
		    "yet; at the next look", (int)c->pid);
		return;
	}
	if (signal_starter(c, SIGTSTP, "SIGTSTP") == 0)
		c->stop_sent = monotime();
}

static int
claim_suspend(struct claim *c, const char *why)
{
	if (!active(c) || claim_state(c) != STATE_CLAIMED)
		return -1;
	log_info("suspending job %s: %s", c->job_id, why);
	c->stop_sent = 0;
	send_stop(c);
	claim_state_set(c, STATE_SUSPENDED, why);
	return 0;
}

static int
claim_continue(struct claim *c, const char *why)
{
	if (!active(c) || claim_state(c) != STATE_SUSPENDED)
		return -1;
	log_info("continuing job %s: %s", c->job_id, why);
	if (signal_starter(c, SIGCONT, "SIGCONT") == -1)
		return -1;
	c->stop_sent = 0;
	claim_state_set(c, STATE_CLAIMED, why);
	return 0;
}

static int
claim_vacate(struct claim *c, const char *why)
{
	long grace = param_int("VACATE_GRACE", 10);
	long timeout = param_int("RPC_TIMEOUT", 20);
	enum startd_state s = claim_state(c);

	if (!active(c) || (s != STATE_CLAIMED && s != STATE_SUSPENDED))
		return -1;
	log_info("vacating job %s: %s", c->job_id, why);
	if (signal_starter(c, SIGTERM, "SIGTERM") == -1)
		return -1;
	claim_state_set(c, STATE_VACATING, why);
	arm_escalation(c, (grace > 0 ? grace : 0) + 2 * (timeout > 0 ?
	    timeout : 20));
	return 0;
}

static int
claim_kill(struct claim *c, const char *why)
{
	long timeout = param_int("RPC_TIMEOUT", 20);

	if (!active(c) || claim_state(c) == STATE_KILLING)
		return -1;
	log_info("killing job %s: %s", c->job_id, why);
	if (signal_starter(c, SIGQUIT, "SIGQUIT") == -1)
		return -1;
	claim_state_set(c, STATE_KILLING, why);
	arm_escalation(c, timeout > 0 ? timeout : 20);
	return 0;
}

/* Dynamic slot C is gone: its share returns to the partitionable slot. */
static void
slot_gone(struct claim *c)
{
	char name[256], err[512];

	slot_name(c, name, sizeof(name));
	log_info("%s is gone; its resources return to slot1@%s", name,
	    startd_host_name());
	claim_clear(c);
	if (collector_invalidate(ADTYPE_STARTD, name, err,
	    sizeof(err)) == -1)
		log_warnx("cannot withdraw the ad of %s: %s", name, err);
	startd_slots_changed();
}

/*
 * Kept claim C (no job) is over, for WHY: the slot is free again (a
 * whole machine enters Owner or Idle as START says).
 */
static void
claim_end(struct claim *c, const char *why)
{
	char text[320];

	log_info("claim %lld ends after %d job(s): %s", c->serial, c->jobs,
	    why);
	if (c->id != 0) {
		slot_gone(c);
		return;
	}
	claim_clear(c);
	snprintf(text, sizeof(text), "the claim ended: %s", why);
	startd_job_left(text);
}

/* A kept claim its schedd did not use in time. */
static void
kept_tick(void *arg)
{
	struct claim *c = arg;
	char why[128];

	c->idle_timer = 0;
	if (!c->kept)
		return;
	snprintf(why, sizeof(why), "its schedd sent no job for %.0f s",
	    kept_timeout());
	claim_end(c, why);
}

/*
 * The starter of C's job left after the job ended by itself: the claim
 * stays, without a job, for its schedd's next one (claim reuse).
 */
static void
claim_keep(struct claim *c)
{
	char name[256];

	event_timer_cancel(c->escalate_timer);
	c->escalate_timer = 0;
	if (c->pipe_fd != -1) {
		event_fd_del(c->pipe_fd);
		close(c->pipe_fd);
		c->pipe_fd = -1;
	}
	if (c->msg != NULL) {
		explicit_bzero(c->msg, c->msg_len);
		free(c->msg);
		c->msg = NULL;
	}
	c->pid = 0;
	c->stop_sent = 0;
	c->kept = 1;
	c->idle_timer = event_timer_add(kept_timeout(), kept_tick, c);
	slot_name(c, name, sizeof(name));
	log_info("claim %lld: job %s left %s; the claim waits for its "
	    "schedd's next job (%d run on it)", c->serial, c->job_id, name,
	    c->jobs);
	startd_slots_changed();
}

/*
 * The policy for kept claim C, with MY its slot's ad: START must stay
 * TRUE for the claim's user (its last job as TARGET), or the claim
 * ends, as the machine would refuse that user's next job.
 */
static int
kept_policy(struct claim *c, const struct ad *my)
{
	const char *what;

	if (eval_true(my, c->job, "START", &what))
		return 0;
	claim_end(c, what[0] == 'F' ? "START is no longer TRUE" :
	    "START is no longer TRUE (it is UNDEFINED or an error)");
	return 1;
}

/* The owner policy for claim C, with MY its slot's ad. */
static int
claim_policy_one(struct claim *c, const struct ad *my)
{
	enum startd_state s = claim_state(c);
	char why[256];

	switch (policy_claim_action(s, my, c->job, why, sizeof(why))) {
	case POLICY_DO_SUSPEND:
		return claim_suspend(c, why) == 0;
	case POLICY_DO_CONTINUE:
		return claim_continue(c, why) == 0;
	case POLICY_DO_VACATE:
		return claim_vacate(c, why) == 0;
	case POLICY_DO_KILL:
		return claim_kill(c, why) == 0;
	case POLICY_NONE:
		break;
	}
	/*
	 * Suspended, but is the job stopped?  The order may have come
	 * before the starter could hear it, or before the job existed
	 * (the starter was still fetching it): say it again.  The starter
	 * ignores the order for a job it already stopped.  On a
	 * partitionable machine every job's processes are sampled
	 * together (startd_load.c).
	 */
	if (s == STATE_SUSPENDED && (c->stop_sent == 0 ||
	    (load_job_stopped() == 0 && monotime() - c->stop_sent >= 1.0)))
		send_stop(c);
	return 0;
}

int
claim_policy(const struct ad *machine)
{
	struct ad *my;
	int i, lo, hi, changed = 0;

	slot_range(&lo, &hi);
	for (i = lo; i <= hi; i++) {
		if (!held(&slots[i]))
			continue;
		if (i == 0) {
			if (slots[0].kept)
				changed |= kept_policy(&slots[0], machine);
			else
				changed |= claim_policy_one(&slots[0],
				    machine);
			continue;
		}
		/* A slot's change rebuilds the machine's ad: the current
		 * one, not MACHINE, for each. */
		if (startd_machine_ad() != NULL)
			machine = startd_machine_ad();
		my = slot_ad(&slots[i], machine);
		if (slots[i].kept)
			changed |= kept_policy(&slots[i], my);
		else
			changed |= claim_policy_one(&slots[i], my);
		ad_free(my);
	}
	return changed;
}

int
claim_vacate_all(const char *why)
{
	int i, lo, hi, n = 0;

	slot_range(&lo, &hi);
	for (i = lo; i <= hi; i++) {
		if (slots[i].kept) {
			claim_end(&slots[i], why);
			n++;
		} else if (claim_vacate(&slots[i], why) == 0)
			n++;
	}
	return n;
}

void
claim_shutdown(void)
{
	claim_vacate_all("the startd is shutting down");
}

/* Is PID a condor_starter? */
static int
is_starter(long pid)
{
	char path[64], *comm;
	int r;

	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	if ((comm = machine_read_file(path)) == NULL)
		return 0;
	r = strncmp(comm, "condor_starter", 14) == 0;
	free(comm);
	return r;
}

/* The pid N of a starter's execute directory "dir_N", or -1. */
static long
execute_dir_pid(const char *name)
{
	char *end;
	long n;

	if (strncmp(name, "dir_", 4) != 0)
		return -1;
	n = strtol(name + 4, &end, 10);
	return *end == '\0' && n > 1 ? n : -1;
}

/*
 * At start-up: starters of the startd before us (killed) still running
 * their jobs.  They vacate them as soon as they see it gone; they are
 * given VACATE_GRACE and a few seconds for that (a standard job's
 * checkpoint), then killed, so that no job of theirs runs on beside
 * what this startd is about to accept.
 */
static void
claim_old_starters(void)
{
	const char *execute = param("EXECUTE");
	double deadline = monotime() + (double)param_int("VACATE_GRACE", 10) +
	    5.0;
	struct timespec pause = { 0, 100 * 1000 * 1000 };
	struct dirent *e;
	long n, left;
	int killed = 0;
	DIR *d;

	if (execute == NULL)
		return;
	do {
		if ((d = opendir(execute)) == NULL)
			return;
		left = 0;
		while ((e = readdir(d)) != NULL) {
			if ((n = execute_dir_pid(e->d_name)) == -1 ||
			    !is_starter(n))
				continue;
			if (left++ == 0 && monotime() < deadline)
				log_info("waiting for the starters of the "
				    "startd before us to leave");
			if (monotime() >= deadline && !killed) {
				log_warnx("starter %ld of the startd before us "
				    "is still there; killing it", n);
				kill((pid_t)n, SIGKILL);
			}
		}
		closedir(d);
		if (monotime() >= deadline)
			killed = 1;
		if (left > 0)
			nanosleep(&pause, NULL);
	} while (left > 0 && monotime() < deadline + 5.0);
}

/*
 * The execute directory (EXECUTE/dir_PID) of starter PID, which died
 * before it removed it (killed); with PID 0, of every starter that is
 * no longer running (at start-up, after the starters of the startd
 * before us are gone).  A pid that is running (reused) keeps its
 * directory.
 */
void
claim_sweep_execute(pid_t pid)
{
	const char *execute = param("EXECUTE");
	struct dirent *e;
	char path[PATH_MAX];
	long n;
	DIR *d;

	if (pid == 0)
		claim_old_starters();
	if (execute == NULL || (d = opendir(execute)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if ((n = execute_dir_pid(e->d_name)) == -1 ||
		    (pid != 0 && n != (long)pid))
			continue;
		if (kill((pid_t)n, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", execute, e->d_name);
		log_info("removing %s, left by a starter that was killed",
		    path);
		if (daemon_remove_tree(path) == -1)
			log_warn("cannot remove %s", path);
	}
	closedir(d);
}

int
claim_child_exit(pid_t pid, int status)
{
	struct claim *c = NULL;
	const char *why = NULL;
	int i, lo, hi;

	slot_range(&lo, &hi);
	for (i = lo; i <= hi; i++)
		if (active(&slots[i]) && slots[i].pid == pid)
			c = &slots[i];
	if (c == NULL)
		return 0;
	if (WIFEXITED(status))
		log_info("the starter of job %s (pid %d) exited with status "
		    "%d", c->job_id, (int)pid, WEXITSTATUS(status));
	else if (WIFSIGNALED(status)) {
		log_info("the starter of job %s (pid %d) died of signal %d",
		    c->job_id, (int)pid, WTERMSIG(status));
		claim_sweep_execute(pid);
	}
	/*
	 * A job that ended by itself (its starter told the shadow and
	 * exited 0, never told to leave) leaves its claim to the schedd's
	 * next job, within the claim's worklife.
	 */
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
	    claim_state(c) == STATE_CLAIMED) {
		if (c->ending)
			why = "the job left; its schedd has no more jobs for "
			    "the claim";
		else if (worklife_over(c))
			why = "the job left; the claim's worklife "
			    "(CLAIM_WORKLIFE) is over";
		else {
			claim_keep(c);
			return 1;
		}
	}
	if (c->serial > 0)
		log_info("claim %lld ends after %d job(s)", c->serial,
		    c->jobs);
	if (c->id == 0) {
		claim_clear(c);
		startd_job_left(why);
		return 1;
	}
	/* The dynamic slot goes; its share is the partitionable slot's. */
	slot_gone(c);
	return 1;
}

void
claim_invalidate_all(void)
{
	char name[256], err[512];
	int i;

	if (!startd_partitionable())
		return;
	for (i = 1; i <= SLOTS_MAX; i++) {
		if (!held(&slots[i]))
			continue;
		slot_name(&slots[i], name, sizeof(name));
		if (collector_invalidate(ADTYPE_STARTD, name, err,
		    sizeof(err)) == -1)
			log_warnx("cannot withdraw the ad of %s: %s", name,
			    err);
	}
}

/* Write the rest of the claim to the starter's standard input. */
static void
claim_write(int fd, short revents, void *arg)
{
	struct claim *c = arg;
	ssize_t n;

	while (c->msg_off < c->msg_len) {
		n = write(fd, c->msg + c->msg_off, c->msg_len - c->msg_off);
		if (n > 0) {
			c->msg_off += (size_t)n;
			continue;
		}
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			return;
		/* The starter died before reading: child_exit tidies. */
		log_warn("cannot hand the claim to the starter (pid %d)",
		    (int)c->pid);
		event_fd_del(fd);
		return;
	}
	/* Done; the pipe stays open as the starter's lifeline. */
	event_fd_del(fd);
	explicit_bzero(c->msg, c->msg_len);
	free(c->msg);
	c->msg = NULL;
}

/*
 * The claim as the starter reads it: a 4-byte length in network order,
 * then claim_x in XDR.
 */
static char *
claim_encode(claim_x *cx, size_t *lenp)
{
	unsigned long size = xdr_sizeof((xdrproc_t)xdr_claim_x, cx);
	uint32_t be;
	char *msg;
	XDR xdrs;

	msg = xmalloc(4 + size);
	be = htonl((uint32_t)size);
	memcpy(msg, &be, 4);
	xdrmem_create(&xdrs, msg + 4, (u_int)size, XDR_ENCODE);
	if (!xdr_claim_x(&xdrs, cx)) {
		xdr_destroy(&xdrs);
		free(msg);
		return NULL;
	}
	xdr_destroy(&xdrs);
	*lenp = 4 + size;
	return msg;
}

/* Start C's starter with the claim CX on its standard input. */
static int
spawn_starter(struct claim *c, claim_x *cx, char *err, size_t errlen)
{
	const char *starter = param("STARTER");
	int p[2];
	pid_t pid;

	if (starter == NULL || access(starter, X_OK) == -1) {
		snprintf(err, errlen, "cannot run the starter %s: %s",
		    starter ? starter : "(STARTER is not set)",
		    strerror(errno));
		return -1;
	}
	if ((c->msg = claim_encode(cx, &c->msg_len)) == NULL) {
		snprintf(err, errlen, "cannot encode the claim");
		return -1;
	}
	c->msg_off = 0;
	if (pipe2(p, O_CLOEXEC) == -1) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	if ((pid = fork()) == -1) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (dup2(p[0], STDIN_FILENO) == -1)
			_exit(127);
		execl(starter, starter, (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	c->pid = pid;
	c->pipe_fd = p[1];
	claim_write(p[1], POLLOUT, c);
	if (c->msg != NULL)
		event_fd_add(p[1], POLLOUT, claim_write, c);
	return 0;
}

/*
 * Start C's starter for JOB with the rest of the claim ARG (JOB as the
 * claim's ad, with the GPUs C was given as AssignedGPUs).  0, or -1
 * with ERR.
 */
static int
spawn_job(struct claim *c, const claim_x *arg, struct ad *job, char *err,
    size_t errlen)
{
	claim_x cx = *arg;
	int r;

	memset(&cx.job, 0, sizeof(cx.job));
	if (c->gpus[0] != '\0')
		ad_set_string(job, "AssignedGPUs", c->gpus);
	ad_to_xdr(job, &cx.job);
	r = spawn_starter(c, &cx, err, errlen);
	ad_x_free(&cx.job);
	return r;
}

/* Is TEXT a plausible capability: long enough, printable, no space? */
static int
capability_valid(const char *text)
{
	size_t len = strlen(text);
	const char *p;

	if (len < CAPABILITY_MIN || len > CLAIM_CAPABILITY_MAX)
		return 0;
	for (p = text; *p; p++)
		if (!isgraph((unsigned char)*p))
			return 0;
	return 1;
}

/* Evaluate NAME of MY against TARGET: 1 TRUE, 0 not; WHAT describes. */
static int
eval_true(const struct ad *my, const struct ad *target, const char *name,
    const char **what)
{
	struct value v;
	int r;

	ad_eval(my, target, name, &v);
	switch (v.type) {
	case VAL_UNDEFINED:
		*what = "UNDEFINED";
		r = 0;
		break;
	case VAL_ERROR:
		*what = "ERROR";
		r = 0;
		break;
	default:
		r = value_is_true(&v);
		*what = r ? "TRUE" : "FALSE";
		break;
	}
	value_free(&v);
	return r;
}

static int	capability_equal(const char *, const char *);

/*
 * Which claim id the key CAP of job CLUSTER.PROC was made with
 * (auth_claim_key): its index, or -1 if none.  The claim id itself is
 * not accepted: whoever saw it (in a log, a leaked ad) cannot make the
 * key without the pool key, so only the schedd that was matched, and
 * the shadow it gave the key to, can claim.
 */
static int
claim_id_index(const char *cap, long long cluster, long long proc)
{
	char key[AUTH_CLAIM_KEY_LEN + 1];
	int i, found = -1;

	claim_init_once();
	if (cluster < 0 || cluster > INT_MAX || proc < 0 || proc > INT_MAX)
		return -1;
	for (i = 0; i < nclaim_ids; i++)
		if (auth_claim_key(claim_ids[i], (int)cluster, (int)proc, key,
		    sizeof(key)) == 0 && capability_equal(cap, key))
			found = i;
	explicit_bzero(key, sizeof(key));
	return found;
}

/*
 * The slot a claim for JOB takes: slots[0] for a whole machine that is
 * Idle; for a partitionable one a free dynamic slot, given the job's
 * requests if they fit in what is free.  NULL with the refusal in RES.
 */
static struct claim *
claim_slot_for(const struct ad *machine, const struct ad *job,
    const char *jobid, const char *from, status_x *res)
{
	struct slot_res want, room;
	char why[256];
	int i;

	if (!startd_partitionable())
		return &slots[0];
	if (slot_request(job, machine, &want, why, sizeof(why)) == -1) {
		log_info("claim for job %s from %s refused: %s", jobid, from,
		    why);
		rpc_status(res, EINVAL, "%s", why);
		return NULL;
	}
	slot_ad_res(machine, &room);
	if (!slot_fits(&room, &want, why, sizeof(why))) {
		log_info("claim for job %s from %s refused: too little is "
		    "free (%s)", jobid, from, why);
		rpc_status(res, EBUSY, "too little of the machine is free: "
		    "%s", why);
		return NULL;
	}
	for (i = 1; i <= SLOTS_MAX; i++)
		if (!held(&slots[i])) {
			slots[i].res = want;
			return &slots[i];
		}
	rpc_status(res, EBUSY, "every dynamic slot is in use");
	return NULL;
}

/*
 * The claim, kept or still with its last job, whose own id made the key
 * CAP of job CLUSTER.PROC (auth_claim_key), or NULL.
 */
static struct claim *
claim_of_key(const char *cap, long long cluster, long long proc)
{
	char key[AUTH_CLAIM_KEY_LEN + 1];
	struct claim *found = NULL;
	int i, lo, hi;

	if (cluster < 0 || cluster > INT_MAX || proc < 0 || proc > INT_MAX)
		return NULL;
	slot_range(&lo, &hi);
	for (i = lo; i <= hi; i++)
		if (held(&slots[i]) && slots[i].claim_id[0] != '\0' &&
		    auth_claim_key(slots[i].claim_id, (int)cluster,
		    (int)proc, key, sizeof(key)) == 0 &&
		    capability_equal(cap, key))
			found = &slots[i];
	explicit_bzero(key, sizeof(key));
	return found;
}

/*
 * Run JOB (ARG's, its OWNER; both ours now) on claim C, which its schedd
 * holds from an earlier job: the policy is decided again for this job,
 * as for a new claim, against the slot as it is now.  START not TRUE
 * ends the claim; Requirements not TRUE, or requests that do not fit in
 * a dynamic slot's share, refuse the job and leave the claim to its
 * schedd.  EINPROGRESS while the last job's starter is still leaving:
 * the shadow asks again.
 */
static void
claim_activate(struct claim *c, claim_x *arg, struct ad *job, char *owner,
    const char *jobid, const char *from, status_x *res)
{
	struct slot_res want;
	struct ad *my = NULL;
	long long ngpus = 0;
	const char *what;
	char err[512], name[256], why[256];

	if (active(c)) {
		if (claim_state(c) == STATE_CLAIMED && !c->ending)
			rpc_status(res, EINPROGRESS, "the claim's last job "
			    "(%s) is still leaving; ask again", c->job_id);
		else
			rpc_status(res, EBUSY, "the claim is ending");
		goto out;
	}
	if (worklife_over(c)) {
		log_info("claim %lld: job %s from %s refused: the claim's "
		    "worklife is over", c->serial, jobid, from);
		rpc_status(res, EPERM, "the claim's worklife "
		    "(CLAIM_WORKLIFE) is over");
		claim_end(c, "its worklife (CLAIM_WORKLIFE) is over");
		goto out;
	}
	/* A fresh look: the owner may be back (the claim then ended). */
	startd_refresh();
	if (!c->kept || startd_machine_ad() == NULL) {
		log_info("claim for job %s from %s refused: the claim ended "
		    "(START is no longer TRUE)", jobid, from);
		rpc_status(res, EBUSY, "the claim ended: START is no longer "
		    "TRUE (the owner is back?)");
		goto out;
	}
	my = c->id == 0 ? ad_copy(startd_machine_ad()) :
	    slot_ad(c, startd_machine_ad());
	if (!eval_true(my, job, "START", &what)) {
		log_info("claim %lld: job %s from %s refused: START is %s for "
		    "it", c->serial, jobid, from, what);
		rpc_status(res, EPERM, "START is %s for this job%s", what,
		    strcmp(what, "FALSE") == 0 ? ": the owner is back or "
		    "the machine does not want it" : "");
		claim_end(c, "START is not TRUE for its next job");
		goto out;
	}
	if (ad_lookup(job, "Requirements") != NULL &&
	    !eval_true(job, my, "Requirements", &what)) {
		log_info("claim %lld: job %s from %s refused: its "
		    "Requirements are %s here", c->serial, jobid, from, what);
		rpc_status(res, EPERM, "the job's Requirements are %s on "
		    "this machine", what);
		goto out;
	}
	if (c->id != 0) {
		/* The dynamic slot stays as it was carved. */
		if (slot_request(job, my, &want, why, sizeof(why)) == -1 ||
		    !slot_fits(&c->res, &want, why, sizeof(why))) {
			log_info("claim %lld: job %s from %s refused: it does "
			    "not fit in the slot (%s)", c->serial, jobid,
			    from, why);
			rpc_status(res, EBUSY, "the job does not fit in the "
			    "claimed slot: %s", why);
			goto out;
		}
	} else {
		if (ad_get_int(job, "RequestGpus", &ngpus) == -1 ||
		    ngpus < 0)
			ngpus = 0;
		slot_gpus_give(gpu_used, SLOT_GPUS_MAX, c->gpus);
		c->gpus[0] = '\0';
		if (ngpus > 0 && slot_gpus_take(gpu_used,
		    startd_total_gpus(), ngpus, c->gpus,
		    sizeof(c->gpus)) == -1) {
			log_info("claim %lld: job %s from %s refused: %lld "
			    "GPU(s) are not free", c->serial, jobid, from,
			    ngpus);
			rpc_status(res, EBUSY, "%lld GPU(s) are not free",
			    ngpus);
			goto out;
		}
	}
	if (spawn_job(c, arg, job, err, sizeof(err)) == -1) {
		log_warnx("claim for job %s: %s", jobid, err);
		rpc_status(res, EAGAIN, "%s", err);
		claim_end(c, "no starter could be started");
		goto out;
	}
	event_timer_cancel(c->idle_timer);
	c->idle_timer = 0;
	c->kept = 0;
	if (c->capability != NULL)
		explicit_bzero(c->capability, strlen(c->capability));
	free(c->capability);
	c->capability = xstrdup(arg->capability);
	free(c->owner);
	c->owner = owner;
	owner = NULL;
	free(c->schedd);
	c->schedd = xstrdup(arg->schedd_name);
	snprintf(c->job_id, sizeof(c->job_id), "%s", jobid);
	c->start = time(NULL);
	ad_free(c->job);
	c->job = job;
	job = NULL;
	c->jobs++;
	slot_name(c, name, sizeof(name));
	log_info("claim %lld: reused by job %s of %s (schedd %s, shadow %s) "
	    "as %s, job %d on the claim; starter pid %d", c->serial,
	    c->job_id, c->owner, c->schedd, arg->shadow_addr, name, c->jobs,
	    (int)c->pid);
	startd_slots_changed();
	rpc_status(res, 0, "starter pid %d; slot %s", (int)c->pid, name);
out:
	ad_free(my);
	ad_free(job);
	free(owner);
}

bool_t
startd_request_claim_1_svc(claim_x *arg, status_x *res, struct svc_req *req)
{
	struct sockaddr_in sin;
	const struct ad *machine;
	long long cluster, proc, ngpus = 0;
	struct ad *job;
	struct claim *c;
	const char *what;
	char from[64], err[512], jobid[32], name[256], *owner = NULL;
	int idx;

	memset(res, 0, sizeof(*res));
	rpc_caller_ip(req, from, sizeof(from));
	/* A shadow claims from a host allowed to change our state. */
	if (!rpc_host_allowed(req, "HOSTALLOW_WRITE")) {
		log_warnx("claim from %s refused (HOSTALLOW_WRITE)", from);
		rpc_status(res, EPERM, "not allowed to claim this machine");
		return TRUE;
	}
	if ((job = ad_from_xdr(&arg->job, err, sizeof(err))) == NULL) {
		log_warnx("claim from %s: bad job ad: %s", from, err);
		rpc_status(res, EINVAL, "bad job ad: %s", err);
		return TRUE;
	}
	if (ad_get_int(job, "ClusterId", &cluster) == -1 ||
	    ad_get_int(job, "ProcId", &proc) == -1 ||
	    ad_get_string(job, "Owner", &owner) == -1 ||
	    !capability_valid(arg->capability) ||
	    addr_parse(arg->shadow_addr, &sin) == -1) {
		log_warnx("claim from %s: malformed (job id, Owner, "
		    "capability or shadow address)", from);
		rpc_status(res, EINVAL, "malformed claim: it needs ClusterId, "
		    "ProcId, Owner, a capability and the shadow's address");
		goto out;
	}
	snprintf(jobid, sizeof(jobid), "%lld.%lld", cluster, proc);
	if ((idx = claim_id_index(arg->capability, cluster, proc)) == -1 &&
	    (c = claim_of_key(arg->capability, cluster, proc)) != NULL) {
		/* The next job of a claim this schedd holds. */
		claim_activate(c, arg, job, owner, jobid, from, res);
		job = NULL;
		owner = NULL;
		goto out;
	}
	if (idx == -1) {
		log_warnx("claim for job %s from %s refused: not this "
		    "machine's claim id (no key of a claim of this job)",
		    jobid, from);
		rpc_status(res, EPERM, "not this machine's claim id: a claim "
		    "needs a match from the negotiator, and the key the "
		    "matched schedd makes of it for this job");
		goto out;
	}
	/* A fresh look: the owner may have come back since the match. */
	startd_refresh();
	if (startd_state_get() != STATE_IDLE) {
		log_info("claim for job %s from %s refused: the machine is "
		    "%s", jobid, from, startd_state_name(startd_state_get()));
		if (startd_state_get() == STATE_OWNER)
			rpc_status(res, EBUSY, "the machine is in the Owner "
			    "state (START is FALSE): the owner is back");
		else
			rpc_status(res, EBUSY, "the machine is %s: it runs "
			    "another job", startd_state_name(
			    startd_state_get()));
		goto out;
	}
	machine = startd_machine_ad();
	if (!eval_true(machine, job, "START", &what)) {
		log_info("claim for job %s from %s refused: START is %s for "
		    "it", jobid, from, what);
		rpc_status(res, EPERM, "START is %s for this job%s", what,
		    strcmp(what, "FALSE") == 0 ? ": the owner is back or "
		    "the machine does not want it" : "");
		goto out;
	}
	if (ad_lookup(job, "Requirements") != NULL &&
	    !eval_true(job, machine, "Requirements", &what)) {
		log_info("claim for job %s from %s refused: its Requirements "
		    "are %s here", jobid, from, what);
		rpc_status(res, EPERM, "the job's Requirements are %s on "
		    "this machine", what);
		goto out;
	}
	if ((c = claim_slot_for(machine, job, jobid, from, res)) == NULL)
		goto out;
	/* GPUs: the job's share, named to its starter in the job ad. */
	if (c->id != 0)
		ngpus = c->res.gpus;
	else if (ad_get_int(job, "RequestGpus", &ngpus) == -1 || ngpus < 0)
		ngpus = 0;
	c->gpus[0] = '\0';
	if (ngpus > 0 && slot_gpus_take(gpu_used, startd_total_gpus(), ngpus,
	    c->gpus, sizeof(c->gpus)) == -1) {
		log_info("claim for job %s from %s refused: %lld GPU(s) are "
		    "not free", jobid, from, ngpus);
		rpc_status(res, EBUSY, "%lld GPU(s) are not free", ngpus);
		memset(&c->res, 0, sizeof(c->res));
		goto out;
	}
	if (spawn_job(c, arg, job, err, sizeof(err)) == -1) {
		log_warnx("claim for job %s: %s", jobid, err);
		claim_clear(c);
		rpc_status(res, EAGAIN, "%s", err);
		goto out;
	}
	c->capability = xstrdup(arg->capability);
	c->owner = owner;
	owner = NULL;
	c->schedd = xstrdup(arg->schedd_name);
	snprintf(c->job_id, sizeof(c->job_id), "%s", jobid);
	c->start = time(NULL);
	c->job = job;
	job = NULL;
	num_claims++;
	/* The claim keeps its id for its next jobs (claim reuse); the
	 * machine advertises a new one, so whoever saw this one cannot
	 * claim with it again. */
	memcpy(c->claim_id, claim_ids[idx], sizeof(c->claim_id));
	c->serial = num_claims;
	c->begun = c->start;
	c->jobs = 1;
	c->kept = c->ending = 0;
	auth_random_hex(claim_ids[idx], AUTH_CLAIM_ID_BYTES);
	slot_name(c, name, sizeof(name));
	log_info("claim %lld: claimed by job %s of %s (schedd %s, shadow %s) "
	    "as %s; starter pid %d", c->serial, c->job_id, c->owner,
	    c->schedd, arg->shadow_addr, name, (int)c->pid);
	if (c->id == 0)
		startd_state_set(STATE_CLAIMED, "a claim was accepted");
	else {
		log_info("%s: %lld core(s), %lld MiB, %lld KiB of disk, %lld "
		    "GPU(s)%s%s", name, c->res.cpus, c->res.memory,
		    c->res.disk, c->res.gpus, c->gpus[0] ? " " : "",
		    c->gpus);
		c->state = STATE_IDLE;
		claim_state_set(c, STATE_CLAIMED, "a claim was accepted");
	}
	rpc_status(res, 0, "starter pid %d; slot %s", (int)c->pid, name);
out:
	free(owner);
	ad_free(job);
	return TRUE;
}

bool_t
startd_vacate_1_svc(void *arg, status_x *res, struct svc_req *req)
{
	struct buf ids;
	char from[64], why[128];
	int i, lo, hi, leaving = 0, failed = 0;

	memset(res, 0, sizeof(*res));
	rpc_caller_ip(req, from, sizeof(from));
	if (!rpc_host_allowed(req, "HOSTALLOW_WRITE")) {
		log_warnx("vacate from %s refused (HOSTALLOW_WRITE)", from);
		rpc_status(res, EPERM, "not allowed to vacate this machine");
		return TRUE;
	}
	if (!claim_active()) {
		rpc_status(res, 0, "no job is running on %s",
		    startd_host_name());
		return TRUE;
	}
	snprintf(why, sizeof(why), "vacate request from %s", from);
	buf_init(&ids);
	slot_range(&lo, &hi);
	for (i = lo; i <= hi; i++) {
		struct claim *c = &slots[i];

		if (c->kept) {
			claim_end(c, why);
			buf_printf(&ids, "%sthe claim of %s", ids.len ? ", " :
			    "", c->owner);
			continue;
		}
		if (!active(c))
			continue;
		switch (claim_state(c)) {
		case STATE_VACATING:
		case STATE_KILLING:
			leaving++;
			break;
		default:
			if (claim_vacate(c, why) == -1)
				failed++;
			else
				buf_printf(&ids, "%s%s", ids.len ? ", " : "",
				    c->job_id);
			break;
		}
	}
	if (ids.len > 0)
		rpc_status(res, 0, "vacating job %s", ids.data);
	else if (failed > 0)
		rpc_status(res, EAGAIN, "cannot vacate the job%s here",
		    failed > 1 ? "s" : "");
	else
		rpc_status(res, 0, "the job%s here %s already leaving",
		    leaving > 1 ? "s" : "", leaving > 1 ? "are" : "is");
	buf_free(&ids);
	return TRUE;
}

bool_t
startd_vacate_slot_1_svc(char **arg, status_x *res, struct svc_req *req)
{
	struct claim *c = NULL;
	char from[64], why[128], name[256];
	int i, lo, hi;

	memset(res, 0, sizeof(*res));
	rpc_caller_ip(req, from, sizeof(from));
	if (!rpc_host_allowed(req, "HOSTALLOW_WRITE")) {
		log_warnx("vacate of a slot from %s refused (HOSTALLOW_WRITE)",
		    from);
		rpc_status(res, EPERM, "not allowed to vacate this machine");
		return TRUE;
	}
	/* The partitionable slot's own name: the machine, as a whole. */
	if (*arg != NULL && startd_partitionable() && strncmp(*arg, "slot1@",
	    6) == 0 && strcmp(*arg + 6, startd_host_name()) == 0)
		return startd_vacate_1_svc(NULL, res, req);
	slot_range(&lo, &hi);
	for (i = lo; i <= hi && *arg != NULL; i++) {
		slot_name(&slots[i], name, sizeof(name));
		if (held(&slots[i]) && strcmp(name, *arg) == 0)
			c = &slots[i];
	}
	if (c == NULL) {
		rpc_status(res, ENOENT, "no job runs in a slot named %s here",
		    *arg != NULL ? *arg : "");
		return TRUE;
	}
	snprintf(why, sizeof(why), "vacate request for %s from %s", *arg,
	    from);
	if (c->kept) {
		claim_end(c, why);
		rpc_status(res, 0, "the claim of %s (no job) ended", *arg);
		return TRUE;
	}
	switch (claim_state(c)) {
	case STATE_VACATING:
	case STATE_KILLING:
		rpc_status(res, 0, "job %s is already leaving", c->job_id);
		break;
	default:
		if (claim_vacate(c, why) == -1)
			rpc_status(res, EAGAIN, "cannot vacate job %s",
			    c->job_id);
		else
			rpc_status(res, 0, "vacating job %s", c->job_id);
		break;
	}
	return TRUE;
}

/* Compare without leaking where the first difference is. */
static int
capability_equal(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i;
	unsigned char d = 0;

	if (la != lb)
		return 0;
	for (i = 0; i < la; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

/*
 * A shadow that lost its starter asks whether the claim it proves with
 * its capability still has a starter here (0), or not (ENOENT): a
 * starter that died is not waited for.
 */
/* The active claim whose capability CAP is, or NULL. */
static struct claim *
claim_by_capability(const char *cap)
{
	struct claim *c = NULL;
	int i, lo, hi;

	slot_range(&lo, &hi);
	for (i = lo; i <= hi && cap != NULL; i++)
		if (held(&slots[i]) && slots[i].capability != NULL &&
		    capability_equal(cap, slots[i].capability))
			c = &slots[i];
	return c;
}

bool_t
startd_claim_alive_1_svc(char **arg, status_x *res, struct svc_req *req)
{
	struct claim *c = claim_by_capability(*arg);

	memset(res, 0, sizeof(*res));
	if (c != NULL && active(c))
		rpc_status(res, 0, "job %s runs", c->job_id);
	else
		rpc_status(res, ENOENT, "no such claim here");
	return TRUE;
}

bool_t
startd_reconnect_job_1_svc(reconnect_x *arg, status_x *res,
    struct svc_req *req)
{
	struct claim *c = claim_by_capability(arg->capability);
	const char *a = arg->shadow_addr;
	char line[AD_X_MAX_NAME + 16];
	size_t i, n;

	char from[64];

	memset(res, 0, sizeof(*res));
	rpc_caller_ip(req, from, sizeof(from));
	if (c == NULL) {
		/* Only the claim's key moves a starter: a claim id, however
		 * it was learnt, does not. */
		log_warnx("reconnect from %s refused: not the key of a claim "
		    "here", from);
		rpc_status(res, ENOENT, "no starter of that claim here");
		return TRUE;
	}
	if (c->pid <= 0 || c->pipe_fd == -1 || c->msg != NULL) {
		rpc_status(res, ENOENT, "no starter of that claim here");
		return TRUE;
	}
	/* "<ip:port>", nothing else: it goes down a pipe as a line. */
	n = strlen(a);
	for (i = 1; i + 1 < n && (isdigit((unsigned char)a[i]) ||
	    a[i] == '.' || a[i] == ':'); i++)
		;
	if (n < 3 || a[0] != '<' || a[n - 1] != '>' || i != n - 1) {
		rpc_status(res, EINVAL, "bad shadow address");
		return TRUE;
	}
	n = (size_t)snprintf(line, sizeof(line), "SHADOW %s\n", a);
	if (write(c->pipe_fd, line, n) != (ssize_t)n) {
		rpc_status(res, EIO, "cannot tell the starter");
		return TRUE;
	}
	log_info("job %s has a new shadow at %s; its starter (pid %d) is told",
	    c->job_id, a, (int)c->pid);
	rpc_status(res, 0, "starter of job %s told", c->job_id);
	return TRUE;
}

/*
 * The piece of FILE that ARG asks for into RES (code, size, offset and
 * data set); the file is read as it is now, while the job writes on.
 */
static void
tail_read(const char *file, const startd_tail_x *arg, tail_res_x *res)
{
	struct stat st;
	long long at, max = arg->max;
	size_t got = 0;
	ssize_t n;
	int fd;

	if ((fd = open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1 || fstat(fd, &st) == -1 ||
	    !S_ISREG(st.st_mode)) {
		res->code = fd == -1 ? errno : EINVAL;
		res->message = xasprintf("the job's %s: %s",
		    arg->which == TAIL_ERROR ? "error" : "output",
		    strerror(res->code));
		if (fd != -1)
			close(fd);
		return;
	}
	if (max < 0 || max > TAIL_MAX)
		max = TAIL_MAX;
	at = arg->offset;
	if (at < 0)
		at = st.st_size > max ? (long long)st.st_size - max : 0;
	res->size = st.st_size;
	res->offset = at;
	res->data.data_val = xmalloc(max > 0 ? (size_t)max : 1);
	while (got < (size_t)max) {
		n = pread(fd, res->data.data_val + got, (size_t)max - got,
		    (off_t)(at + (long long)got));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	res->data.data_len = (u_int)got;
	close(fd);
	res->message = xstrdup("");
}

bool_t
startd_tail_1_svc(startd_tail_x *arg, tail_res_x *res, struct svc_req *req)
{
	struct claim *c = claim_by_capability(arg->capability);
	char from[64], *file;

	memset(res, 0, sizeof(*res));
	if (c == NULL || c->pid <= 0) {
		rpc_caller_ip(req, from, sizeof(from));
		log_warnx("tail from %s refused: not the holder of a claim "
		    "with a job", from);
		res->code = EPERM;
		res->message = xstrdup("not the holder of a claim here");
		return TRUE;
	}
	/* The starter's names (starter.h) in its directory, dir_PID. */
	file = xasprintf("%s/dir_%d/%s", param("EXECUTE"), (int)c->pid,
	    arg->which == TAIL_ERROR ? "_condor_stderr" : "_condor_stdout");
	tail_read(file, arg, res);
	free(file);
	return TRUE;
}

bool_t
startd_release_claim_1_svc(char **arg, status_x *res, struct svc_req *req)
{
	struct claim *c = claim_by_capability(*arg);
	char from[64];

	memset(res, 0, sizeof(*res));
	rpc_caller_ip(req, from, sizeof(from));
	if (c == NULL) {
		log_warnx("release from %s refused: not the claim's holder",
		    from);
		rpc_status(res, EPERM, "not the holder of a claim here");
		return TRUE;
	}
	if (c->kept) {
		claim_end(c, "its holder released it");
		rpc_status(res, 0, "the claim (no job) ended");
	} else if (claim_state(c) == STATE_KILLING)
		rpc_status(res, 0, "job %s is already being killed",
		    c->job_id);
	else if (claim_kill(c, "its shadow released the claim") == -1)
		rpc_status(res, EAGAIN, "cannot kill job %s", c->job_id);
	else
		rpc_status(res, 0, "killing job %s", c->job_id);
	return TRUE;
}

/*
 * The schedd has no more jobs for the claim whose last job's key this
 * is (claim reuse): a kept claim ends now; one whose starter is still
 * leaving ends when it has left.  The job is never killed for it.
 */
bool_t
startd_end_claim_1_svc(char **arg, status_x *res, struct svc_req *req)
{
	struct claim *c = claim_by_capability(*arg);
	char from[64];

	memset(res, 0, sizeof(*res));
	if (c == NULL) {
		rpc_caller_ip(req, from, sizeof(from));
		log_info("end of a claim from %s: no such claim here (it "
		    "ended already?)", from);
		rpc_status(res, ENOENT, "no such claim here");
		return TRUE;
	}
	if (c->kept) {
		claim_end(c, "its schedd has no more jobs for it");
		rpc_status(res, 0, "the claim ended");
		return TRUE;
	}
	c->ending = 1;
	rpc_status(res, 0, "the claim ends when job %s has left", c->job_id);
	return TRUE;
}

bool_t
startd_claim_ad_1_svc(char **arg, startd_query_res_x *res,
    struct svc_req *req)
{
	struct claim *c = claim_by_capability(*arg);
	const struct ad *machine = startd_machine_ad();
	struct ad *ad;

	memset(res, 0, sizeof(*res));
	if (c == NULL || machine == NULL) {
		res->code = ENOENT;
		res->message = xstrdup("no such claim here");
		return TRUE;
	}
	if (c->ending) {
		res->code = EBUSY;
		res->message = xstrdup("the claim takes no new job");
		return TRUE;
	}
	ad = c->id == 0 ? ad_copy(machine) : slot_ad(c, machine);
	ad_delete(ad, AUTH_CLAIM_ID_ATTR);
	res->message = xstrdup("");
	ad_to_xdr(ad, &res->ad);
	ad_free(ad);
	return TRUE;
}

bool_t
startd_retire_slot_1_svc(char **arg, status_x *res, struct svc_req *req)
{
	char from[64], why[160], name[256];
	int i, lo, hi, n = 0, all;

	memset(res, 0, sizeof(*res));
	rpc_caller_ip(req, from, sizeof(from));
	if (!rpc_host_allowed(req, "HOSTALLOW_WRITE")) {
		log_warnx("retire of a claim from %s refused (HOSTALLOW_WRITE)",
		    from);
		rpc_status(res, EPERM, "not allowed to retire claims here");
		return TRUE;
	}
	/* The partitionable slot's own name: every claim of the machine. */
	all = *arg != NULL && startd_partitionable() &&
	    strncmp(*arg, "slot1@", 6) == 0 &&
	    strcmp(*arg + 6, startd_host_name()) == 0;
	snprintf(why, sizeof(why), "retired by %s", from);
	slot_range(&lo, &hi);
	for (i = lo; i <= hi && *arg != NULL; i++) {
		struct claim *c = &slots[i];

		slot_name(c, name, sizeof(name));
		if (!held(c) || (!all && strcmp(name, *arg) != 0))
			continue;
		n++;
		if (c->kept)
			claim_end(c, why);
		else if (!c->ending) {
			c->ending = 1;
			log_info("claim %lld (%s): takes no new job after job "
			    "%s (%s)", c->serial, name, c->job_id, why);
		}
	}
	if (n == 0)
		rpc_status(res, ENOENT, "no claim in a slot named %s here",
		    *arg != NULL ? *arg : "");
	else
		rpc_status(res, 0, "%d claim(s) take no new job", n);
	return TRUE;
}
