/*
 * collector_peers.c: the daemons to ask for their ads after a restart.
 *
 * A collector that restarts has an empty table, and the daemons would
 * refill it only at their next periodic update, minutes later.  So the
 * collector remembers where the datagrams of its current ads came from
 * (each daemon's update socket, "ip:port") in $(SPOOL)/collector_peers,
 * rewritten atomically PEERS_WRITE_DELAY seconds after the set changed
 * (a daemon came, went or moved; in a steady pool, never).  When it
 * starts it reads the file and sends each address one
 * COLLECTOR_PEER_READVERTISE datagram from its own port, PROMPT_BATCH at
 * a time every PROMPT_PERIOD seconds so that the answers of a large pool
 * do not all arrive at once; each daemon answers with its ad,
 * acknowledged (collector_client.c).  No connection is kept, nothing is
 * waited for: a prompt that is lost leaves that daemon to its next
 * periodic update.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector.h"
#include "collector_rpc.h"
#include "config.h"
#include "event.h"
#include "log.h"
#include "rpcutil.h"
#include "xalloc.h"

#define PEERS_WRITE_DELAY	10.0	/* seconds */
#define PEERS_MAX		1000000	/* addresses read from the file */
#define PROMPT_BATCH		200	/* prompts sent at once */
#define PROMPT_PERIOD		0.02	/* seconds between batches */

static char		*peers_path;
static int		 peers_fd = -1;	/* the collector's datagram socket */
static unsigned int	 peers_incarnation;
static long		 write_timer;
static struct sockaddr_in *prompts;	/* read at start-up, to prompt */
static size_t		 nprompts, next_prompt;

struct peer_list {
	struct sockaddr_in	*v;
	size_t			 n, cap;
};

static void
peer_add(const struct sockaddr_in *sin, void *arg)
{
	struct peer_list *l = arg;

	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 256;
		l->v = xreallocarray(l->v, l->cap, sizeof(*l->v));
	}
	l->v[l->n++] = *sin;
}

static int
cmp_peer(const void *a, const void *b)
{
	const struct sockaddr_in *x = a, *y = b;
	uint32_t xa = ntohl(x->sin_addr.s_addr), ya = ntohl(y->sin_addr.s_addr);
	uint16_t xp = ntohs(x->sin_port), yp = ntohs(y->sin_port);

	if (xa != ya)
		return xa < ya ? -1 : 1;
	return xp < yp ? -1 : xp > yp;
}

/* Write the addresses of the current ads, each once; 0 or -1. */
static int
peers_write(void)
{
	struct peer_list l = { NULL, 0, 0 };
	char *tmp;
	FILE *f;
	size_t i;
	int ok;

	store_foreach_peer(peer_add, &l);
	if (l.n > 0)
		qsort(l.v, l.n, sizeof(*l.v), cmp_peer);
	tmp = xasprintf("%s.tmp", peers_path);
	if ((f = fopen(tmp, "w")) == NULL) {
		log_warn("cannot write %s", tmp);
		free(tmp);
		free(l.v);
		return -1;
	}
	for (i = 0; i < l.n; i++) {
		char a[ADDR_STRLEN];

		if (i > 0 && cmp_peer(&l.v[i - 1], &l.v[i]) == 0)
			continue;
		fprintf(f, "%s\n", addr_format(&l.v[i], a));
	}
	/* No fsync: the file is a hint, and waiting for the disk would
	 * leave the updates to pile up in the socket meanwhile.  A reader
	 * sees the old file or the new one, whole. */
	ok = fflush(f) == 0;
	ok = fclose(f) == 0 && ok;
	if (!ok || rename(tmp, peers_path) == -1) {
		log_warn("cannot write %s", peers_path);
		unlink(tmp);
		free(tmp);
		free(l.v);
		return -1;
	}
	log_debug("%s: %zu addresses", peers_path, l.n);
	free(tmp);
	free(l.v);
	return 0;
}

static void
write_tick(void *arg)
{
	write_timer = 0;
	peers_write();
}

void
peers_changed(void)
{
	if (write_timer == 0 && peers_path != NULL)
		write_timer = event_timer_add(PEERS_WRITE_DELAY, write_tick,
		    NULL);
}

static void
prompt_tick(void *arg)
{
	collector_prompt_x p;
	size_t end = next_prompt + PROMPT_BATCH;
	int failed = 0;

	p.incarnation = peers_incarnation;
	if (end > nprompts)
		end = nprompts;
	for (; next_prompt < end; next_prompt++)
		if (rpc_dgram_call_to(peers_fd, &prompts[next_prompt],
		    PROG_COLLECTOR_PEER, 1, COLLECTOR_PEER_READVERTISE,
		    (xdrproc_t)xdr_collector_prompt_x, &p) == -1)
			failed++;
	if (failed > 0)
		log_debug("%d prompts not sent", failed);
	if (next_prompt < nprompts) {
		event_timer_add(PROMPT_PERIOD, prompt_tick, NULL);
		return;
	}
	log_info("asked %zu daemons for their ads", nprompts);
	free(prompts);
	prompts = NULL;
	nprompts = next_prompt = 0;
}

int
peers_init(int fd, unsigned int incarnation)
{
	struct peer_list l = { NULL, 0, 0 };
	char line[128];
	FILE *f;

	peers_fd = fd;
	peers_incarnation = incarnation;
	free(peers_path);
	peers_path = xasprintf("%s/collector_peers", param("SPOOL"));
	if ((f = fopen(peers_path, "r")) == NULL) {
		if (errno != ENOENT)
			log_warn("cannot read %s", peers_path);
		return 0;
	}
	while (fgets(line, sizeof(line), f) != NULL && l.n < PEERS_MAX) {
		struct sockaddr_in sin;

		line[strcspn(line, "\n")] = '\0';
		if (addr_parse(line, &sin) == 0)
			peer_add(&sin, &l);
	}
	fclose(f);
	prompts = l.v;
	nprompts = l.n;
	next_prompt = 0;
	if (nprompts > 0)
		event_timer_add(0, prompt_tick, NULL);
	return 0;
}

void
peers_shutdown(void)
{
	if (write_timer != 0) {
		event_timer_cancel(write_timer);
		write_timer = 0;
		peers_write();
	}
}
