/*
 * startd.h: private to condor_startd.
 */
#ifndef STARTD_PRIVATE_H
#define STARTD_PRIVATE_H

#include <sys/types.h>

#include <time.h>

#include "slot.h"
#include "startd_owner.h"	/* enum startd_state */

struct ad;

const char	*startd_state_name(enum startd_state);
const char	*startd_activity_name(enum startd_state);

/*
 * startd.c: the state machine's one door.  startd_state_set enters NEXT:
 * logs "State A -> B (WHY)", rebuilds the ad (with the claim's attributes
 * if a job is here) and advertises it at once.  startd_job_left: the
 * claim is gone (WHY, for the log; NULL: its job left); look at the
 * machine and enter Owner or Idle as START says.  startd_refresh: look at the machine now and apply the policy (a
 * claim request must see the owner who just came back).
 * startd_activity: a source (console watch, kbdd) saw the owner: look
 * at the machine and apply the policy as soon as possible, at most every
 * ACTIVITY_GAP seconds, never from inside the caller.  startd_machine_ad
 * is NULL before the first look.
 */
#define ACTIVITY_GAP	0.2	/* seconds between looks driven by activity */
enum startd_state startd_state_get(void);
void		 startd_state_set(enum startd_state next, const char *why);
void		 startd_job_left(const char *why);
void		 startd_refresh(void);
void		 startd_activity(const char *source);
const struct ad	*startd_machine_ad(void);
const char	*startd_host_name(void);

/* What one look at the machine found (startd_sample.c). */
struct machine_sample {
	char		 arch[32];
	char		 opsys[32];
	long long	 memory;	/* MiB of RAM */
	long long	 virtual_memory; /* KiB of free RAM and free swap */
	long long	 disk;		/* KiB free in EXECUTE */
	double		 loadavg;
	double		 condor_loadavg; /* the part due to our jobs */
	long long	 keyboard_idle;	/* seconds */
	long long	 console_idle;	/* seconds */
	int		 cpus;		/* offered to Condor (NUM_CPUS) */
	long long	 gpus;		/* MACHINE_RESOURCE_GPUs */
	int		 total_cpus;
};

/*
 * sample_machine: look at the machine again and update S.  A source that
 * cannot be read leaves its field as it was (the last good value) and is
 * logged once, until it reads again.
 */
void	sample_machine(struct machine_sample *s);

/*
 * startd_console.c: the owner's activity between looks.  console_init
 * opens the inotify watch (without it, looks alone see the devices);
 * console_watch makes it watch exactly the N PATHS (called at every
 * look); an access, modification or change of attributes of one of them
 * is activity, noted at once and passed to startd_activity.
 * console_kbdd_report: the kbdd says the keyboard or mouse was used at
 * WHEN (seconds since 1970); returns 1 if that is news.
 * console_watch_latest: the latest activity the watch saw, and
 * kbdd_latest the latest the kbdd reported (seconds since 1970, with a
 * fraction; < 0: none yet).
 */
void	console_init(void);
void	console_watch(char *const *paths, size_t n);
int	console_kbdd_report(double when);
double	console_watch_latest(void);
double	kbdd_latest(void);

/*
 * startd_load.c: the load the jobs cause.  load_sample follows the
 * process trees under the N STARTERS (none: no job; the average then
 * decays) and
 * moves CondorLoadAvg on by the time its processes were running or
 * waiting to run since the last sample: what they add to the kernel's
 * load average, averaged the same way.  load_condor_avg: the result.
 * load_job_stopped: 1 if every process of the jobs (starters aside)
 * was stopped at the last sample, 0 if one was not, -1 if the job had
 * no process then.
 */
void	load_sample(const pid_t *starters, size_t n);
double	load_condor_avg(void);
int	load_job_stopped(void);

/* startd_policy.c: the owner policy expressions. */

/*
 * policy_load: read START, STARTD_RANK, SUSPEND, CONTINUE, VACATE and
 * KILL from the configuration (again, after SIGHUP).  One that does not
 * parse is logged and counts as policy_bad_means says (startd_owner.h); a bad
 * STARTD_RANK is 0.
 */
void	policy_load(void);
/* The canonical text of START and of the Rank to advertise. */
const char *policy_start_text(void);
const char *policy_rank_text(void);

/*
 * policy_owner_state: STATE_OWNER if the START of MACHINE (its own ad,
 * with no job as target) is FALSE, ERROR or not a boolean, else
 * STATE_IDLE: a START that is UNDEFINED may depend on the job, which the
 * matchmaker checks (and the claim again).  A bad START is logged once
 * per change.
 */
enum startd_state policy_owner_state(const struct ad *machine);

/*
 * policy_claim_action: what SUSPEND, CONTINUE, VACATE and KILL order in
 * STATE, with MACHINE as MY and JOB as TARGET (policy_decide); WHY gets a
 * text for the log ("SUSPEND is TRUE").  An expression that is bad is
 * logged once per change and counts as policy_bad_means says.
 */
enum policy_action policy_claim_action(enum startd_state state,
	    const struct ad *machine, const struct ad *job, char *why,
	    size_t whylen);

/*
 * startd_claim.c: the job running here, if any: the claim a shadow made
 * (STARTD_REQUEST_CLAIM), the starter it runs in, and how it is made to
 * leave.  The starter obeys signals: SIGTERM vacate (checkpoint if the
 * job can, else stop it gracefully), SIGQUIT kill now, SIGTSTP suspend,
 * SIGCONT continue.
 *
 * claim_active: a starter is running.  claim_starter_pid: its pid, 0 if
 * none.  claim_add_attrs: RemoteUser, RemoteSchedd, JobId and JobStart,
 * while there is a claim.  claim_child_exit: the daemon reaped PID;
 * returns 1 if it was the starter (the claim is then over and the
 * machine freed, or the claim is kept for its schedd's next job: claim
 * reuse, startd_claim.c).  claim_policy: called at each look at the machine
 * while a job is here, with the fresh ad: evaluates SUSPEND, CONTINUE,
 * VACATE and KILL and acts.  Returns 1 if the state changed (the ad was
 * then sent).  claim_suspend, claim_continue, claim_vacate, claim_kill:
 * act on the job through its starter and enter Suspended, Claimed,
 * Vacating or Killing; WHY is logged.  Each returns 0, or -1 if there is
 * no job or the state does not allow it.  claim_shutdown: the startd is
 * going away: vacate the job.
 */
int	claim_active(void);
pid_t	claim_starter_pid(void);
size_t	claim_starter_pids(pid_t *pids, size_t max);
void	claim_add_attrs(struct ad *);
int	claim_child_exit(pid_t pid, int status);
void	claim_sweep_execute(pid_t pid);
int	claim_policy(const struct ad *machine);
void	claim_shutdown(void);

/*
 * Partitionable machines (NUM_CPUS above 1): each claim is a dynamic
 * slot with its own state.  claim_carved: the sum of the dynamic slots'
 * shares (zero for a whole machine).  claim_slot_ads: an ad for every
 * dynamic slot, MACHINE's with the slot's name, share, state and job;
 * returns how many, in *ADS (free each and the array).  claim_vacate_all:
 * vacate every job here (condor_vacate); returns how many were told.
 * claim_invalidate_all: withdraw every dynamic slot's ad from the
 * collector (the startd is going away).
 */
#define SLOTS_MAX	128	/* dynamic slots of one machine */
void	claim_carved(struct slot_res *r);
size_t	claim_slot_ads(const struct ad *machine, struct ad ***ads);
int	claim_vacate_all(const char *why);
void	claim_invalidate_all(void);

/*
 * startd.c: startd_partitionable: NUM_CPUS was above 1 at start-up.
 * startd_total_cpus, startd_total_gpus: NUM_CPUS and
 * MACHINE_RESOURCE_GPUs as read then.  startd_slots_changed: a dynamic
 * slot came, went or changed state: rebuild the ads and advertise them.
 */
int		startd_partitionable(void);
long long	startd_total_cpus(void);
long long	startd_total_gpus(void);
void		startd_slots_changed(void);

#endif
