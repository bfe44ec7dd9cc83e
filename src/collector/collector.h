/*
 * collector.h: private to condor_collector.
 */
#ifndef COLLECTOR_PRIVATE_H
#define COLLECTOR_PRIVATE_H

#include <time.h>

struct ad;
struct expr;

/* collector_store.c: the current ads, by (type, Name). */
void	store_init(void);
/* Replace the ad of (TYPE, its Name); the store takes AD.  -1 if it has
 * no Name. */
int	store_update(int adtype, struct ad *ad, time_t now);
/* The stored ad of (TYPE, NAME), or NULL. */
struct ad *store_find(int adtype, const char *name);
int	store_invalidate(int adtype, const char *name);
/* Drop ads not refreshed since NOW - LIFETIME; returns how many. */
int	store_expire(time_t now, long lifetime);
/* Call FN for every ad of ADTYPE (0: all) in a stable order. */
void	store_foreach(int adtype, void (*fn)(struct ad *, void *),
	    void *arg);
size_t	store_count(int adtype);
void	store_clear(void);

/* collector_history.c: the pool history (COLLECTOR_HISTORY_INTERVAL). */
int	history_init(void);
void	history_reconfig(void);

#endif
