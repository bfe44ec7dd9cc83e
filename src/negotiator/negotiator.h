/*
 * negotiator.h: the parts of condor_negotiator.
 */
#ifndef NEGOTIATOR_H
#define NEGOTIATOR_H

#include "negotiator_rpc.h"

struct ad;
struct updown;

/* negotiator_prio.c: the Up-Down table and its file. */

/* prio_init: read $(SPOOL)/negotiator_priorities.  Never fails. */
void	prio_init(void);
/* prio_reconfig: the file may have moved (SPOOL); keep the table. */
void	prio_reconfig(void);
/* prio_table: the table itself (stations, by name). */
struct updown *prio_table(void);
/*
 * prio_observe: take in the schedd ads of this cycle: every station with
 * an ad is added if new, marked as advertising, and its counts noted.
 */
void	prio_observe(struct ad **schedds, int n);
/*
 * prio_update: if NEGOTIATOR_INTERVAL has passed since the last update,
 * apply UPDATE_PRIO to every advertising station and save the file.
 * Returns 1 if it did, 0 if it was not yet due.
 */
int	prio_update(void);
/* prio_reply: every station, highest first, for NEGOTIATOR_PRIORITIES. */
void	prio_reply(prio_res_x *res);
/*
 * prio_set: station NAME's index becomes PRIO (clamped), the station
 * added if it is new; saved at once.  0, or -1 with ERR (a bad name, a
 * full table, a value that is not finite).
 */
int	prio_set(const char *name, double prio, char *err, size_t errlen);

/* negotiator_match.c: one negotiation cycle. */

struct cycle_report {
	int	ok;		/* the collector answered */
	int	stations;	/* stations that advertise */
	int	machines;	/* machine ads */
	int	matches;
	int	preemptions;
	int	updated;	/* priorities were updated */
	double	duration;	/* seconds */
};

/* negotiate_init: once, at start-up: what the build can do. */
void	negotiate_init(void);
/* negotiate_cycle: run cycle number CYCLE and say how it went. */
void	negotiate_cycle(int cycle, struct cycle_report *rep);

#endif
