/*
 * collector_client.h: talking to the collector named by COLLECTOR_HOST.
 *
 * One connection is kept open and re-made once if it broke; every call
 * times out after RPC_TIMEOUT seconds.  Updates go as datagrams from one
 * socket, which the event loop also watches for the collector's answers
 * and requests (collector_client.c).  Ad types are the ADTYPE_
 * constants of collector.x.
 */
#ifndef CONDOR_COLLECTOR_CLIENT_H
#define CONDOR_COLLECTOR_CLIENT_H

#include <stddef.h>

#include "collector_rpc.h"

struct ad;

/*
 * The collector's address: COLLECTOR_HOST; or, when its port is 0 (a
 * personal pool's collector takes any free port), the address the
 * collector wrote in $(LOG)/.collector_address.  Allocated; NULL with a
 * message if the collector has not written it yet.  Every call reads
 * the file again, so a collector that came back elsewhere is found.
 */
char	*collector_address(char *err, size_t errlen);
/* Whether COLLECTOR_HOST's port is 0: any free port (see above). */
int	collector_port_any(void);

/*
 * Send AD as the current ad of its kind.  0, or -1 with a message.  As
 * one UDP datagram that no one answers, unless UPDATE_COLLECTOR_WITH_TCP
 * or the ad is too big for one: then over the kept TCP connection, and
 * 0 means the collector took it.  The first datagram of each kind (and
 * the first after collector_disconnect, or after the collector asked for
 * it on restarting) asks for an answer and is repeated from the event
 * loop, at growing intervals up to a few seconds, until the collector
 * answers; a -1 then does not stop the repeats.
 */
int	collector_update(int adtype, const struct ad *ad, char *err,
	    size_t errlen);
/* 1 if the collector acknowledged the latest round of ADTYPE's ad (or
 * no round is under way), 0 while it is being repeated. */
int	collector_update_acked(int adtype);
/* Send N ads in one request (condor_advertise). */
int	collector_update_many(int adtype, struct ad **ads, size_t n,
	    char *err, size_t errlen);
/*
 * Ads of ADTYPE (ADTYPE_ANY: all) for which CONSTRAINT (NULL or "": any)
 * is TRUE.  The array and the ads are the caller's (collector_free_ads).
 * Returns how many, or -1 with a message.
 */
int	collector_query(int adtype, const char *constraint, struct ad ***ads,
	    char *err, size_t errlen);
/* The same, but the ads hold only the attributes ATTRS names (space or
 * comma separated; NULL or "": all), which is much cheaper for large
 * pools when a tool needs a few columns. */
int	collector_query_attrs(int adtype, const char *constraint,
	    const char *attrs, struct ad ***ads, char *err, size_t errlen);
void	collector_free_ads(struct ad **ads, int n);
int	collector_invalidate(int adtype, const char *name, char *err,
	    size_t errlen);
/* Forget the kept connections (after a configuration change). */
void	collector_disconnect(void);

/* "Machine", "Scheduler", ... for an ADTYPE, NULL if out of range. */
const char *collector_adtype_name(int adtype);

#endif
