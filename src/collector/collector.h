/*
 * collector.h: private to condor_collector.
 */
#ifndef COLLECTOR_PRIVATE_H
#define COLLECTOR_PRIVATE_H

#include <netinet/in.h>
#include <time.h>

struct ad;
struct expr;

/* collector_store.c: the current ads, by (type, Name). */
void	store_init(void);
/* Replace the ad of (TYPE, its Name); the store takes AD.  PEER: where
 * its datagram came from (NULL: over TCP, the last one is kept).  -1 if
 * it has no Name. */
int	store_update(int adtype, struct ad *ad, time_t now,
	    const struct sockaddr_in *peer);
/* The stored ad of (TYPE, NAME), or NULL. */
struct ad *store_find(int adtype, const char *name);
int	store_invalidate(int adtype, const char *name);
/* Drop ads not refreshed since NOW - LIFETIME; returns how many. */
int	store_expire(time_t now, long lifetime);
/* Call FN for every ad of ADTYPE (0: all) in a stable order. */
void	store_foreach(int adtype, void (*fn)(struct ad *, void *),
	    void *arg);
size_t	store_count(int adtype);
/* Call FN for the datagram address of every ad that has one. */
void	store_foreach_peer(void (*fn)(const struct sockaddr_in *, void *),
	    void *arg);
void	store_clear(void);

/* collector_history.c: the pool history (COLLECTOR_HISTORY_INTERVAL). */
int	history_init(void);
void	history_reconfig(void);

/* collector_peers.c: the daemons to ask for their ads after a restart. */
/* Read $(SPOOL)/collector_peers and prompt each address from FD. */
int	peers_init(int fd, unsigned int incarnation);
/* The set of datagram addresses changed: rewrite the file soon. */
void	peers_changed(void);
/* Write the file now if a change is pending. */
void	peers_shutdown(void);

#endif
