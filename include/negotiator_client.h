/*
 * negotiator_client.h: talking to the pool's negotiator
 * (negotiator_rpc.x): asking for a cycle, and reading the stations'
 * priorities (condor_status -submitters).
 *
 * The negotiator is found through the collector (its ad,
 * ADTYPE_NEGOTIATOR, has NegotiatorIpAddr), or, failing that, through
 * the address file it writes in this host's LOG.
 */
#ifndef CONDOR_NEGOTIATOR_CLIENT_H
#define CONDOR_NEGOTIATOR_CLIENT_H

#include <stddef.h>

struct ad;

/*
 * negotiator_locate: the negotiator's "<ip:port>", allocated, or NULL
 * with a message in ERR.
 */
char	*negotiator_locate(char *err, size_t errlen);

/*
 * negotiator_reschedule: ask for a negotiation cycle soon.  The request
 * is sent and no answer is awaited: a schedd calling this can never
 * wait on a negotiator that is itself waiting on that schedd in the
 * middle of a cycle.  0 once sent, -1 with a message in ERR if the
 * negotiator could not be found or reached.  The negotiator coalesces
 * requests and ignores those from hosts not in its HOSTALLOW_WRITE.
 */
int	 negotiator_reschedule(char *err, size_t errlen);

/*
 * negotiator_priorities: every station the negotiator knows, highest
 * priority first, as ads with Name, Priority, Running, Idle, Users and
 * Advertising (whether its schedd advertises now), LastUpdate (when the
 * indexes were last updated, seconds since the epoch).  Returns how many
 * were stored in *ADS (free with collector_free_ads), or -1 with a
 * message in ERR.
 */
int	 negotiator_priorities(struct ad ***ads, char *err, size_t errlen);

/*
 * negotiator_set_priority: station NAME's index becomes PRIO (condor_userprio
 * -setprio).  Administrators only: on the negotiator's own host through
 * its Unix socket (the caller's uid), else with the pool key or a token.
 * 0, or -1 with a message in ERR (refused, unreachable, a bad name).
 */
int	 negotiator_set_priority(const char *name, double prio, char *err,
	    size_t errlen);

/*
 * negotiator_annotate_submitters: set StationPriority, the station's
 * Up-Down priority, in each of the N schedd ads SCHEDDS (by Name), for
 * condor_status -submitters.  Ads of stations the negotiator does not
 * know are left alone.  Returns 0, or -1 with a message in ERR (no ad
 * was changed) when the negotiator cannot be asked.
 */
int	 negotiator_annotate_submitters(struct ad **schedds, int n,
	    char *err, size_t errlen);

#endif
