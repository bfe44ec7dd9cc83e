/*
 * negotiator_matchmaker.h: matchmaking, the negotiator's decisions,
 * free of any I/O so that they can be tested with ads built in code.
 *
 * A job and a machine match when the job's Requirements are TRUE with
 * MY = job and TARGET = machine, and the machine's Requirements (or,
 * without them, its START) are TRUE with MY = machine and TARGET = job.
 * A missing Requirements accepts anything; UNDEFINED or ERROR refuses.
 * Among matching machines the job prefers the highest Rank (MY = job,
 * TARGET = machine; UNDEFINED, ERROR or a string count as 0), then the
 * machine whose Name sorts first.
 *
 * match_negotiate runs one negotiation cycle over a set of stations
 * (schedds) and machines, talking to the outside world only through the
 * callbacks of struct match_ops:
 *
 *   - Stations are served highest priority first (ties: fewer running
 *     jobs, then Name), in passes: in each pass every station that still
 *     wants machines gets at most one, so that when priorities are equal
 *     a heavy station cannot take every machine before a light one is
 *     asked.  Within its turn a station is asked for jobs (its best
 *     first) until one finds a machine or it has none left.
 *   - Priority preemption: after the passes, a station that got nothing
 *     although it offered a job (no Idle machine suited it) may have one
 *     machine vacated: a Claimed machine that suits the job and runs a
 *     job of a station whose priority is lower by more than the margin;
 *     the lowest such station's machine is chosen (ties: by Name).  At
 *     most one per waiting station per cycle, and none while an earlier
 *     one for the same station is still under way (struct
 *     match_pending).  When the vacated machine comes back Idle it is
 *     kept for that station during the cycle that sees it.
 *   - A nice user's job (NiceUser = true; its schedd offers such jobs
 *     after all its others) waits until every station's other jobs
 *     have been served: the first one a station offers is put aside,
 *     and once the passes are over, the stations that put one aside
 *     are served again, in the same order, with their nice jobs, on the
 *     machines no one else took.  A nice job never preempts; a machine
 *     running one (its ad says NiceUser) is the first a waiting job of
 *     any station, its own included, may have vacated, whatever the
 *     priorities.
 *   - A partitionable slot (PartitionableSlot = true) may take several
 *     jobs in one cycle: each match takes the job's requests (slot.h)
 *     from the cycle's copy of its ad, and its next claim id (ClaimId
 *     holds one per core, space separated) is the one that job's
 *     schedd gets.  It is given out no more once it has no core, no
 *     memory or no claim id left.
 */
#ifndef CONDOR_MATCH_H
#define CONDOR_MATCH_H

#include <stddef.h>

struct ad;

/* match_job_accepts: the job's side: its Requirements against MACHINE. */
int	match_job_accepts(const struct ad *job, const struct ad *machine);
/* match_machine_accepts: the machine's side: Requirements, else START. */
int	match_machine_accepts(const struct ad *machine, const struct ad *job);
/* match_ads: both sides. */
int	match_ads(const struct ad *job, const struct ad *machine);
/* match_rank: the job's Rank of MACHINE; 0 when it is not a number. */
double	match_rank(const struct ad *job, const struct ad *machine);
/* match_nice: is AD (a job's, or a machine's running one) a nice user's? */
int	match_nice(const struct ad *ad);

/*
 * Jobs one station may offer in one cycle: the schedd offers each job
 * once per cycle, so only a broken one reaches this; it must not keep
 * the cycle going forever.
 */
#define MATCH_MAX_OFFERS	1000000

struct match_station {
	char		*name;		/* the schedd's Name */
	char		*addr;		/* ScheddIpAddr; NULL: not served */
	double		 prio;		/* Up-Down index, higher first */
	long long	 running;	/* TotalRunningJobs */
	long long	 idle;		/* TotalIdleJobs */
	void		*cookie;	/* the callbacks' own (a connection) */

	/* Set by match_negotiate. */
	int		 done;		/* asks for no more machines */
	int		 failed;	/* did not answer: skipped */
	int		 matches;	/* machines it got this cycle */
	int		 pending;	/* a preemption for it is under way */
	long		 offers;	/* jobs it offered this cycle */
	struct ad	*waiting_job;	/* first job that found no machine */
	struct ad	*nice_job;	/* a nice user's, put aside */
};

struct match_machine {
	const struct ad	*ad;		/* borrowed */
	char		*name;
	char		*state;		/* "Idle", "Claimed", ... */
	char		*remote_schedd;	/* station of its job, or NULL */

	struct ad	*own;		/* a partitionable slot's copy */
	int		 partitionable;

	/* Set by match_negotiate. */
	int		 used;		/* given out or vacated this cycle */
	struct match_station *reserved;	/* kept for this station */
};

/*
 * match_claim_id: the claim id the next job matched with M gets (the
 * first of its ClaimId), allocated; NULL if it has none.
 * match_pslot_take: partitionable M was matched with JOB: take JOB's
 * requests from its resources and its first claim id from its ClaimId.
 * Returns 1 if M may still take another job this cycle, 0 if not.
 */
char	*match_claim_id(const struct match_machine *m);
int	 match_pslot_take(struct match_machine *m, const struct ad *job);

/* A preemption under way: MACHINE is being vacated for STATION. */
struct match_pending {
	char	*machine;
	char	*station;
	double	 deadline;	/* forget it after this time (seconds) */
};

struct match_pendings {
	struct match_pending	*v;
	size_t			 n;
};

struct match_ops {
	/*
	 * next_job: the station's next job to place.  1 with *JOB set (the
	 * engine frees it), 0 when it has none left, -1 if the station
	 * failed (it is skipped for the rest of the cycle).
	 */
	int	(*next_job)(struct match_station *, struct ad **job,
		    void *arg);
	/*
	 * match: tell the station to run JOB on MACHINE.  0 done, 1 the
	 * station refused (the machine stays free, its next job is asked
	 * for), -1 the station failed.
	 */
	int	(*match)(struct match_station *, const struct ad *job,
		    const struct match_machine *, void *arg);
	/*
	 * vacate: order MACHINE (running a job of VICTIM, which may be
	 * NULL when unknown) vacated for the sake of FOR.  0 done, -1 not.
	 * NULL: preemption is off.
	 */
	int	(*vacate)(const struct match_machine *,
		    const struct match_station *victim,
		    const struct match_station *forst, void *arg);
	/*
	 * retire: with preemption off, order MACHINE's claim (of VICTIM)
	 * to take no new job, for the sake of FOR: the claim ends when
	 * its job leaves instead of running VICTIM's next one (claim
	 * reuse), so that fair share holds without killing a job.  0
	 * done, -1 not.  NULL: claims are not retired.
	 */
	int	(*retire)(const struct match_machine *,
		    const struct match_station *victim,
		    const struct match_station *forst, void *arg);
	void	*arg;
};

/*
 * Concurrency limits: how much of each named limit the jobs running, or
 * matched, use (a job's ConcurrencyLimits: "name[:weight], ...", names
 * in any case), and the most each may use (its NAME_LIMIT, from
 * LIMIT_OF, else DFLT; a name "@GROUP" is an accounting group's quota
 * of cores).  match_limits_add: the uses of TEXT added
 * (SIGN 1) or taken away (-1); match_limits_fit: 1 if TEXT fits in
 * what is left, else 0 with WHY naming the limit; match_limits_free.
 */
struct match_limits {
	char		**names;	/* lower case */
	double		 *used;
	double		 *max;
	size_t		  n;
	double		  dflt;
	double		(*limit_of)(const char *name, double dflt);
};

/*
 * match_uses: what AD holds of the limits, as match_limits_add takes
 * it: its ConcurrencyLimits, and for a job of an accounting group
 * (AcctGroup "a.b") its cores against the group's quota and each
 * parent's ("@a.b:N, @a:N"), N from CORES_ATTR (RequestCpus for a job,
 * Cpus for the slot running one), at least 1.  NULL when nothing
 * (caller frees).
 */
char	*match_uses(const struct ad *ad, const char *cores_attr);
void	match_limits_add(struct match_limits *l, const char *text, int sign);
int	match_limits_fit(struct match_limits *l, const char *text, char *why,
	    size_t whylen);
void	match_limits_free(struct match_limits *l);

struct match_cycle {
	/* In: */
	struct match_station	**stations;	/* every station known */
	size_t			  nstations;
	struct match_machine	 *machines;
	size_t			  nmachines;
	int			  preempt;	/* preemption enabled */
	double			  margin;	/* priority difference needed */
	double			  now;		/* seconds, for deadlines */
	double			  pending_timeout; /* seconds */
	struct match_pendings	 *pendings;	/* kept across cycles */
	struct match_limits	 *limits;	/* or NULL: none */
	int			  nice_pass;	/* serving nice jobs now */
	/* Out: */
	int			  matches;
	int			  preemptions;
	int			  jobs_offered;
};

/*
 * match_station_cmp: the serving order of two stations (for qsort over
 * an array of struct match_station *): higher prio first, then fewer
 * running, then Name.
 */
int	match_station_cmp(const void *a, const void *b);

/*
 * match_machine_init: fill M from the machine ad AD (borrowed: it must
 * outlive M).  -1 if AD has no Name.  match_machine_free frees what
 * match_machine_init allocated; match_station_free what a station holds
 * (name, addr, waiting_job) and the station itself.
 */
int	match_machine_init(struct match_machine *m, const struct ad *ad);
void	match_machine_free(struct match_machine *m);
void	match_station_free(struct match_station *s);

/*
 * match_best_machine: the index in MACHINES of the best machine for JOB
 * that is Idle, not used, and not kept for a station other than S (S may
 * be NULL); -1 if none.  FIRST_FREE, if not NULL, is a hint the caller
 * keeps between calls (start it at 0): machines before it are all used.
 */
long	match_best_machine(const struct ad *job,
	    struct match_machine *machines, size_t n,
	    const struct match_station *s, size_t *first_free);

/*
 * match_negotiate: one cycle, as described above.  Sorts C->stations
 * into serving order and C->machines by Name; fills the Out fields and
 * the stations' and machines' cycle fields; updates C->pendings.
 * Decisions are logged with log_info.
 */
void	match_negotiate(struct match_cycle *c, const struct match_ops *ops);

/* match_pendings_clear: forget every preemption under way. */
void	match_pendings_clear(struct match_pendings *);

#endif
