/*
 * startd.h: private to condor_startd.
 */
#ifndef STARTD_PRIVATE_H
#define STARTD_PRIVATE_H

#include <sys/types.h>

#include <time.h>

struct ad;

/*
 * The machine's states (DESIGN.md section 5).  Owner and Idle are decided
 * by START alone; the others come with claims and running jobs.  Keep
 * startd_state_names and startd_activity_names in step.
 */
enum startd_state {
	STATE_OWNER,		/* the owner is using it: no foreign job */
	STATE_IDLE,		/* in the processor bank, START holds */
	STATE_CLAIMED,		/* a job runs on it */
	STATE_SUSPENDED,	/* the job is stopped while the owner works */
	STATE_VACATING,		/* the job checkpoints and leaves */
	STATE_KILLING,		/* the job is killed, no checkpoint */
	STATE_COUNT
};

const char	*startd_state_name(enum startd_state);
const char	*startd_activity_name(enum startd_state);

/*
 * startd.c: the state machine's one door.  startd_state_set enters NEXT:
 * logs "State A -> B", rebuilds the ad (with the claim's attributes if a
 * job is here) and advertises it at once.  startd_job_left: the claim is
 * gone; look at the machine and enter Owner or Idle as START says.
 * startd_refresh: look at the machine now (a claim request must see the
 * owner who just came back).  startd_machine_ad is NULL before the first
 * look.
 */
enum startd_state startd_state_get(void);
void		 startd_state_set(enum startd_state next);
void		 startd_job_left(void);
void		 startd_refresh(void);
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
	int		 cpus;		/* offered to Condor */
	int		 total_cpus;
};

/*
 * sample_machine: look at the machine again and update S.  A source that
 * cannot be read leaves its field as it was (the last good value) and is
 * logged once, until it reads again.
 */
void	sample_machine(struct machine_sample *s);

/* startd_policy.c: the owner policy expressions. */

/*
 * policy_load: read START and STARTD_RANK from the configuration (again,
 * after SIGHUP).  An expression that does not parse is logged and
 * replaced: START by FALSE, STARTD_RANK by 0.
 */
void	policy_load(void);
/* The canonical text of START and of the Rank to advertise. */
const char *policy_start_text(void);
const char *policy_rank_text(void);

/*
 * policy_owner_state: STATE_OWNER if the START of MACHINE (its own ad,
 * with no job as target) is FALSE or ERROR, else STATE_IDLE: a START
 * that is UNDEFINED may depend on the job, which the matchmaker checks.
 * An ERROR is logged once, until START evaluates again.
 */
enum startd_state policy_owner_state(const struct ad *machine);

/*
 * startd_claim.c: the job running here, if any: the claim a shadow made
 * (STARTD_REQUEST_CLAIM), the starter it runs in, and how it is made to
 * leave.  The starter obeys signals: SIGTERM vacate (checkpoint if the
 * job can, else stop it gracefully), SIGQUIT kill now, SIGTSTP suspend,
 * SIGCONT continue.
 *
 * claim_active: a starter is running.  claim_add_attrs: RemoteUser,
 * RemoteSchedd, JobId and JobStart, while there is a claim.
 * claim_child_exit: the daemon reaped PID; returns 1 if it was the
 * starter (the claim is then over and the machine freed).
 * claim_policy: called at each look at the machine while a job is here,
 * with the fresh ad; this is where SUSPEND, CONTINUE, VACATE and KILL
 * will be evaluated (issue 6).  Returns 1 if the state changed (the ad
 * was then sent).
 * claim_suspend, claim_continue, claim_vacate, claim_kill: act on the
 * job through its starter and enter Suspended, Claimed, Vacating or
 * Killing; WHY is logged.  Each returns 0, or -1 if there is no job or
 * the state does not allow it.
 * claim_shutdown: the startd is going away: vacate the job.
 */
int	claim_active(void);
void	claim_add_attrs(struct ad *);
int	claim_child_exit(pid_t pid, int status);
int	claim_policy(const struct ad *machine);
int	claim_suspend(const char *why);
int	claim_continue(const char *why);
int	claim_vacate(const char *why);
int	claim_kill(const char *why);
void	claim_shutdown(void);

#endif
