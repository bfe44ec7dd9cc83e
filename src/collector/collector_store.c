/*
 * collector_store.c: the collector's ads, kept in memory only.
 *
 * A chained hash table on the lower-cased "type/Name" key gives O(1)
 * updates however large the pool; a per-entry insertion sequence number
 * gives queries a stable order.  The ads are not persisted; only the
 * addresses their datagrams came from are (collector_peers.c), so that
 * a restarted collector can ask for them again.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ad.h"
#include "collector.h"
#include "log.h"
#include "xalloc.h"

struct entry {
	struct entry	*next;		/* hash chain */
	char		*key;		/* "type/name", lower case */
	int		 adtype;
	struct ad	*ad;
	time_t		 updated;
	uint64_t	 seq;		/* order of first arrival */
	struct sockaddr_in peer;	/* of its datagrams; port 0: none */
};

static struct entry	**table;
static size_t		  nbuckets, nentries;
static uint64_t		  next_seq;

static uint64_t
hash_key(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

static char *
make_key(int adtype, const char *name)
{
	char *key = xasprintf("%d/%s", adtype, name), *p;

	for (p = key; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return key;
}

void
store_init(void)
{
	nbuckets = 1024;
	table = xcalloc(nbuckets, sizeof(*table));
	nentries = 0;
}

static void
store_grow(void)
{
	struct entry **old = table;
	size_t i, oldn = nbuckets;

	nbuckets *= 2;
	table = xcalloc(nbuckets, sizeof(*table));
	for (i = 0; i < oldn; i++) {
		struct entry *e, *next;

		for (e = old[i]; e != NULL; e = next) {
			size_t b = hash_key(e->key) % nbuckets;

			next = e->next;
			e->next = table[b];
			table[b] = e;
		}
	}
	free(old);
}

/* Note where the ad of E came from, PEER (NULL: over TCP). */
static void
entry_set_peer(struct entry *e, const struct sockaddr_in *peer)
{
	if (peer == NULL || (e->peer.sin_port == peer->sin_port &&
	    e->peer.sin_addr.s_addr == peer->sin_addr.s_addr))
		return;
	e->peer = *peer;
	peers_changed();
}

int
store_update(int adtype, struct ad *ad, time_t now,
    const struct sockaddr_in *peer)
{
	struct entry *e;
	char *name, *key;
	size_t b;

	if (ad_get_string(ad, "Name", &name) == -1)
		return -1;
	key = make_key(adtype, name);
	free(name);
	b = hash_key(key) % nbuckets;
	for (e = table[b]; e != NULL; e = e->next) {
		if (strcmp(e->key, key) == 0) {
			ad_free(e->ad);
			e->ad = ad;
			e->updated = now;
			entry_set_peer(e, peer);
			free(key);
			return 0;
		}
	}
	e = xcalloc(1, sizeof(*e));
	e->key = key;
	e->adtype = adtype;
	e->ad = ad;
	e->updated = now;
	e->seq = next_seq++;
	entry_set_peer(e, peer);
	e->next = table[b];
	table[b] = e;
	if (++nentries > nbuckets)
		store_grow();
	return 0;
}

struct ad *
store_find(int adtype, const char *name)
{
	struct entry *e;
	char *key = make_key(adtype, name);
	size_t b = hash_key(key) % nbuckets;

	for (e = table[b]; e != NULL; e = e->next)
		if (strcmp(e->key, key) == 0)
			break;
	free(key);
	return e != NULL ? e->ad : NULL;
}

static void
entry_free(struct entry *e)
{
	if (e->peer.sin_port != 0)
		peers_changed();
	ad_free(e->ad);
	free(e->key);
	free(e);
}

int
store_invalidate(int adtype, const char *name)
{
	struct entry **pe, *e;
	char *key = make_key(adtype, name);
	size_t b = hash_key(key) % nbuckets;

	for (pe = &table[b]; (e = *pe) != NULL; pe = &e->next) {
		if (strcmp(e->key, key) == 0) {
			*pe = e->next;
			entry_free(e);
			nentries--;
			free(key);
			return 0;
		}
	}
	free(key);
	return -1;
}

int
store_expire(time_t now, long lifetime)
{
	size_t i;
	int n = 0;

	for (i = 0; i < nbuckets; i++) {
		struct entry **pe = &table[i], *e;

		while ((e = *pe) != NULL) {
			if (now - e->updated > lifetime) {
				char *name = NULL;

				ad_get_string(e->ad, "Name", &name);
				log_info("ad of %s expired (not heard from "
				    "for %ld s)", name ? name : "?",
				    (long)(now - e->updated));
				free(name);
				*pe = e->next;
				entry_free(e);
				nentries--;
				n++;
			} else
				pe = &e->next;
		}
	}
	return n;
}

static int
cmp_seq(const void *a, const void *b)
{
	const struct entry *x = *(const struct entry *const *)a;
	const struct entry *y = *(const struct entry *const *)b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void
store_foreach(int adtype, void (*fn)(struct ad *, void *), void *arg)
{
	struct entry **v;
	size_t i, n = 0;

	v = xcalloc(nentries + 1, sizeof(*v));
	for (i = 0; i < nbuckets; i++) {
		struct entry *e;

		for (e = table[i]; e != NULL; e = e->next)
			if (adtype == 0 || e->adtype == adtype)
				v[n++] = e;
	}
	qsort(v, n, sizeof(*v), cmp_seq);
	for (i = 0; i < n; i++)
		fn(v[i]->ad, arg);
	free(v);
}

size_t
store_count(int adtype)
{
	size_t i, n = 0;

	for (i = 0; i < nbuckets; i++) {
		struct entry *e;

		for (e = table[i]; e != NULL; e = e->next)
			if (adtype == 0 || e->adtype == adtype)
				n++;
	}
	return n;
}

void
store_foreach_peer(void (*fn)(const struct sockaddr_in *, void *), void *arg)
{
	size_t i;

	for (i = 0; i < nbuckets; i++) {
		struct entry *e;

		for (e = table[i]; e != NULL; e = e->next)
			if (e->peer.sin_port != 0)
				fn(&e->peer, arg);
	}
}

void
store_clear(void)
{
	size_t i;

	for (i = 0; i < nbuckets; i++) {
		struct entry *e, *next;

		for (e = table[i]; e != NULL; e = next) {
			next = e->next;
			entry_free(e);
		}
		table[i] = NULL;
	}
	nentries = 0;
}
