/*
 * negotiator_updown.h: station priorities by the Up-Down algorithm (Mutka and
 * Livny), as the negotiator keeps them.
 *
 * Each station (a schedd, by its Name) has an index, 0 at first.  Once
 * per NEGOTIATOR_INTERVAL the negotiator replaces it by UPDATE_PRIO
 * evaluated with Prio (the index), Users (users with jobs waiting there)
 * and Running (its jobs running in the pool): the index rises while a
 * station waits and sinks while it runs, and the highest index is served
 * first.  Two rules of ours keep it sane:
 *
 *   - the index stays within [-UPDOWN_LIMIT, UPDOWN_LIMIT], so that a
 *     station that ran (or waited) for days cannot drift so far that it
 *     needs days to come back;
 *   - a station that neither waits nor runs (Users == 0, Running == 0)
 *     moves one step toward 0 instead: the seeds' index recovers when a
 *     station stops competing, so yesterday's heavy user is not punished
 *     forever and yesterday's starved one does not keep a head start.
 *
 * A station that no longer advertises keeps its index untouched.  The
 * table is kept in a text file, written to a temporary name, synced and
 * renamed, so a crash leaves either the old or the new file.
 */
#ifndef CONDOR_UPDOWN_H
#define CONDOR_UPDOWN_H

#include <stddef.h>

struct expr;

#define UPDOWN_LIMIT		1000.0	/* bound on |index| */
#define UPDOWN_MAX_STATIONS	10000	/* stations remembered */
#define UPDOWN_MAX_NAME		255	/* bytes in a station name */

struct updown_station {
	char		*name;
	double		 prio;		/* the Up-Down index */
	/* What its latest schedd ad said; not kept in the file. */
	int		 seen;		/* it advertises now */
	long long	 users;		/* NumUsers */
	long long	 running;	/* TotalRunningJobs */
	long long	 idle;		/* TotalIdleJobs */
};

struct updown {
	struct updown_station	**v;	/* sorted by name */
	size_t			  n;
	size_t			  cap;
};

void	updown_init(struct updown *);
void	updown_clear(struct updown *);	/* forget every station */

/* updown_find: the station called NAME, or NULL. */
struct updown_station *updown_find(const struct updown *, const char *name);

/*
 * updown_add: the station called NAME, created with index 0 if it is new.
 * Station pointers stay valid until updown_clear.  When the table holds
 * UPDOWN_MAX_STATIONS already, a station that does not advertise is
 * forgotten to make room (the one nearest 0); NULL (errno ENOSPC) if every
 * one advertises, or (errno EINVAL) if NAME is empty, longer than
 * UPDOWN_MAX_NAME, holds a control character or starts or ends with a
 * blank.
 */
struct updown_station *updown_add(struct updown *, const char *name);

/* updown_clamp: X bounded to [-UPDOWN_LIMIT, UPDOWN_LIMIT]; NaN gives 0. */
double	updown_clamp(double x);

/*
 * updown_step: the next index of a station with index PRIO, USERS users
 * waiting and RUNNING jobs running, by UPDATE_PRIO (already parsed), or
 * one step toward 0 when USERS and RUNNING are both 0; clamped.  Returns
 * 0 with the result in *NEXT, or -1 with a message in ERR when
 * UPDATE_PRIO is not a finite number (*NEXT is then PRIO, unchanged).
 */
int	updown_step(const struct expr *update_prio, double prio,
	    long long users, long long running, double *next, char *err,
	    size_t errlen);

/*
 * updown_load: replace the table by the file PATH ("PRIO NAME" lines, '#'
 * comments).  A missing file is an empty table (0).  Lines that do not
 * parse are skipped and counted in *BAD (may be NULL); indexes are
 * clamped.  -1 with errno and a message in ERR if the file cannot be
 * read or is larger than the table could ever be.
 */
int	updown_load(struct updown *, const char *path, int *bad, char *err,
	    size_t errlen);

/*
 * updown_save: write the table to PATH atomically (PATH.tmp, fsync,
 * rename, fsync of the directory).  0, or -1 with errno and a message.
 */
int	updown_save(const struct updown *, const char *path, char *err,
	    size_t errlen);

#endif
