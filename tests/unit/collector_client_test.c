/*
 * collector_client_test: a daemon's ads against a stand-in collector (a
 * UDP socket of this test): the first ad asks for an answer and is
 * repeated until it gets one, the next goes unanswered, and the
 * collector's request to advertise again is taken only from the
 * collector's address, only from a new incarnation, and at most once in
 * a few seconds.
 * checks: 17
 */
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ad.h"
#include "collector_client.h"
#include "collector_rpc.h"
#include "config.h"
#include "event.h"
#include "rpcutil.h"
#include "test.h"

/* A datagram that reached the stand-in collector. */
struct got {
	uint32_t		xid;
	uint32_t		proc;
	struct sockaddr_in	from;
};

static int
udp_socket(struct sockaddr_in *bound)
{
	socklen_t len = sizeof(*bound);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	memset(bound, 0, sizeof(*bound));
	bound->sin_family = AF_INET;
	bound->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd == -1 || bind(fd, (struct sockaddr *)bound,
	    sizeof(*bound)) == -1 || getsockname(fd,
	    (struct sockaddr *)bound, &len) == -1) {
		perror("udp socket");
		exit(1);
	}
	return fd;
}

/*
 * Run the client's event loop for up to SECS seconds or until a call
 * reaches FD: 1 with G filled, 0 if none came.
 */
static int
wait_call(int fd, double secs, struct got *g)
{
	double end = monotime() + secs;
	uint32_t w[64];
	socklen_t len;
	ssize_t n;

	do {
		event_run_once(0.01);
		len = sizeof(g->from);
		n = recvfrom(fd, w, sizeof(w), MSG_DONTWAIT,
		    (struct sockaddr *)&g->from, &len);
		if (n >= 24 && ntohl(w[1]) == 0) {	/* CALL */
			g->xid = ntohl(w[0]);
			g->proc = ntohl(w[5]);
			return 1;
		}
	} while (monotime() < end);
	return 0;
}

/* Answer call G as the collector does: code 0 and INCARNATION. */
static void
answer(int fd, const struct got *g, unsigned int incarnation)
{
	uint32_t w[8] = { htonl(g->xid), htonl(1), 0, 0, 0, 0, 0,
	    htonl(incarnation) };

	sendto(fd, w, sizeof(w), 0, (const struct sockaddr *)&g->from,
	    sizeof(g->from));
}

static void
prompt(int fd, const struct sockaddr_in *to, unsigned int incarnation)
{
	collector_prompt_x p = { incarnation };

	rpc_dgram_call_to(fd, to, PROG_COLLECTOR_PEER, 1,
	    COLLECTOR_PEER_READVERTISE, (xdrproc_t)xdr_collector_prompt_x,
	    &p);
}

int
main(void)
{
	struct sockaddr_in cm, other, daemon;
	struct got g, g2;
	struct ad *ad = ad_new();
	char host[64], err[256];
	int fd, ofd, i;

	fd = udp_socket(&cm);
	ofd = udp_socket(&other);
	snprintf(host, sizeof(host), "127.0.0.1:%u", ntohs(cm.sin_port));
	config_set("COLLECTOR_HOST", host, 0);
	config_set("UPDATE_COLLECTOR_WITH_TCP", "False", 0);
	ad_set_string(ad, "Name", "test.host");

	CHECK("first update sent",
	    collector_update(ADTYPE_STARTD, ad, err, sizeof(err)) == 0);
	CHECK("the first ad asks for an answer",
	    wait_call(fd, 1, &g) && g.proc == COLLECTOR_UPDATE_ACKED);
	daemon = g.from;
	CHECK("not yet acknowledged",
	    collector_update_acked(ADTYPE_STARTD) == 0);
	CHECK("unanswered, it is repeated",
	    wait_call(fd, 2, &g2) && g2.proc == COLLECTOR_UPDATE_ACKED &&
	    g2.xid != g.xid);
	CHECK("from the same socket",
	    g2.from.sin_port == daemon.sin_port);
	answer(fd, &g2, 7);
	for (i = 0; i < 50 && !collector_update_acked(ADTYPE_STARTD); i++)
		event_run_once(0.02);
	CHECK("the answer is taken", collector_update_acked(ADTYPE_STARTD));
	CHECK("and the repeats stop", !wait_call(fd, 0.5, &g));

	CHECK("the next update sent",
	    collector_update(ADTYPE_STARTD, ad, err, sizeof(err)) == 0);
	CHECK("goes unanswered",
	    wait_call(fd, 1, &g) && g.proc == COLLECTOR_UPDATE);
	CHECK("once", !wait_call(fd, 0.3, &g));

	prompt(ofd, &daemon, 8);
	CHECK("a prompt from another address is not taken",
	    !wait_call(fd, 0.3, &g));
	prompt(fd, &daemon, 7);
	CHECK("nor one from the incarnation that answered",
	    !wait_call(fd, 0.3, &g));
	prompt(fd, &daemon, 8);
	CHECK("a new incarnation's prompt brings the ad again, answered",
	    wait_call(fd, 1, &g) && g.proc == COLLECTOR_UPDATE_ACKED);
	answer(fd, &g, 8);
	for (i = 0; i < 50 && !collector_update_acked(ADTYPE_STARTD); i++)
		event_run_once(0.02);
	CHECK("and is acknowledged", collector_update_acked(ADTYPE_STARTD));
	prompt(fd, &daemon, 9);
	CHECK("a second prompt within seconds is not taken",
	    !wait_call(fd, 0.5, &g));

	/* Only the collector's answers: a forged one is not seen. */
	collector_disconnect();
	CHECK("after a reconfiguration the ad asks again",
	    collector_update(ADTYPE_STARTD, ad, err, sizeof(err)) == 0 &&
	    wait_call(fd, 1, &g) && g.proc == COLLECTOR_UPDATE_ACKED);
	answer(ofd, &g, 10);
	for (i = 0; i < 10; i++)
		event_run_once(0.02);
	CHECK("an answer from another address is not taken",
	    collector_update_acked(ADTYPE_STARTD) == 0);

	ad_free(ad);
	collector_disconnect();
	close(fd);
	close(ofd);
	TEST_EXIT();
}
