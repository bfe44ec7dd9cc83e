/*
 * startd_owner.h: the owner policy's decisions and measurements, as pure
 * functions the startd calls and the unit tests drive (startd_owner.c).
 *
 * Nothing here reads the configuration, logs, or looks at the clock:
 * the caller passes the time, the text of /proc files, and how each
 * control expression evaluated.
 */
#ifndef CONDOR_POLICY_H
#define CONDOR_POLICY_H

#include <sys/types.h>

struct value;

/*
 * The machine's states (DESIGN.md section 5).  Owner and Idle are decided
 * by START alone; the others come with a job.
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

/* The control expressions of the owner policy. */
enum policy_expr {
	POLICY_START,
	POLICY_SUSPEND,
	POLICY_CONTINUE,
	POLICY_VACATE,
	POLICY_KILL,
	POLICY_NEXPR
};

/* "START", "SUSPEND"...; "?" out of range. */
const char	*policy_expr_name(enum policy_expr);

/*
 * How an expression came out.  POLICY_BAD: it does not parse, or its
 * value is not a boolean (UNDEFINED, ERROR, a string).  A number counts
 * as a boolean, non-zero TRUE, as Condor 4 wrote its booleans.
 */
enum policy_truth {
	POLICY_FALSE,
	POLICY_TRUE,
	POLICY_BAD,
};

/*
 * policy_truth_of: the truth of V; for POLICY_BAD, *WHAT (if WHAT is not
 * NULL) names what V was instead ("UNDEFINED", "ERROR", "a string").
 */
enum policy_truth policy_truth_of(const struct value *v, const char **what);

/*
 * policy_bad_means: what a bad expression counts as, always the owner's
 * side: START FALSE (no job starts), SUSPEND TRUE (the job stops),
 * CONTINUE FALSE (it stays stopped), VACATE TRUE (a stopped job leaves
 * rather than wait), KILL FALSE (a vacate is not cut short: it still
 * ends within the startd's own deadline, VACATE_GRACE plus two
 * RPC_TIMEOUTs).  Returns 1 for TRUE, 0 for FALSE.
 */
int		 policy_bad_means(enum policy_expr);

/* policy_is_true: T after policy_bad_means. */
int		 policy_is_true(enum policy_expr, enum policy_truth t);

enum policy_action {
	POLICY_NONE,
	POLICY_DO_SUSPEND,	/* Claimed -> Suspended */
	POLICY_DO_CONTINUE,	/* Suspended -> Claimed */
	POLICY_DO_VACATE,	/* Suspended -> Vacating */
	POLICY_DO_KILL,		/* Vacating -> Killing */
};

/*
 * policy_decide: what the policy orders in STATE.  EVAL(X, ARG) evaluates
 * expression X (with the machine as MY and the job as TARGET); it is
 * called only for the expressions STATE needs, in this order:
 *	Claimed:	SUSPEND -> suspend.
 *	Suspended:	CONTINUE -> continue, unless SUSPEND is also TRUE
 *			(the job would be stopped again at the next look);
 *			else VACATE -> vacate.
 *	Vacating:	KILL -> kill.
 * Owner, Idle and Killing order nothing here (START decides Owner and
 * Idle).  *WHY, if not NULL, gets the expression that decided.
 */
typedef enum policy_truth (*policy_eval_fn)(enum policy_expr, void *arg);
enum policy_action policy_decide(enum startd_state state,
		    policy_eval_fn eval, void *arg, enum policy_expr *why);

/*
 * policy_idle_seconds: KeyboardIdle (or ConsoleIdle) at NOW from LATEST,
 * the latest activity any source knows of (seconds since 1970, with a
 * fraction; < 0: none at all).  *SEEN holds the latest activity known at
 * the previous look (< 0 before the first one) and is updated.  Activity
 * newer than the previous look gives 0 however old its time stamp, so
 * that a test "KeyboardIdle < POLLING_INTERVAL" sees every use of the
 * keyboard exactly once whatever the timing of looks and reports; the
 * first look gives only the elapsed time.  Otherwise the whole seconds
 * from LATEST to NOW, never negative, on the same second boundaries as
 * CurrentTime: so after the look that saw the owner, KeyboardIdle is
 * never less than CurrentTime - EnteredCurrentState.  -1 when LATEST < 0.
 */
long long	 policy_idle_seconds(double now, double latest, double *seen);

/*
 * policy_load_update: the load average LOAD moved DT seconds forward
 * with RUNNABLE tasks on average over that time: exponential decay over
 * POLICY_LOAD_TAU seconds, as the kernel's 1-minute load average.  A DT
 * of 0 or less leaves LOAD as it is.
 */
#define POLICY_LOAD_TAU	60.0	/* seconds */
double		 policy_load_update(double load, double runnable, double dt);

/* What one line of /proc/PID/stat says, the parts the startd needs. */
struct policy_proc {
	pid_t			 pid, ppid, session;
	char			 state;		/* R S D T t Z X ... */
	unsigned long long	 utime, stime;	/* clock ticks */
	unsigned long long	 cutime, cstime; /* reaped children's */
	unsigned long long	 starttime;	/* ticks after boot */
};

/*
 * policy_parse_stat: parse TEXT, the contents of /proc/PID/stat (the
 * command name in parentheses may hold anything, parentheses and spaces
 * included).  0, or -1 if TEXT is not such a line.
 */
int		 policy_parse_stat(const char *text, struct policy_proc *p);

/*
 * policy_parse_schedstat: the second field of /proc/PID/task/TID/schedstat
 * ("cpu_ns wait_ns slices"): nanoseconds spent runnable but waiting for a
 * processor.  0, or -1 if TEXT is not such a line.
 */
int		 policy_parse_schedstat(const char *text,
		    unsigned long long *wait_ns);

/*
 * policy_catches_signal: from TEXT, the contents of /proc/PID/status,
 * whether the process catches SIG (its SigCgt mask): 1 yes, 0 no, -1 if
 * TEXT has no SigCgt line or SIG is out of range.
 */
int		 policy_catches_signal(const char *text, int sig);

/* policy_stopped_state: a process in state C runs no more (T t Z X). */
int		 policy_stopped_state(char c);

#endif
