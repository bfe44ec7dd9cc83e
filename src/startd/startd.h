/*
 * startd.h: private to condor_startd.
 */
#ifndef STARTD_PRIVATE_H
#define STARTD_PRIVATE_H

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

#endif
