/*
 * NAME
 *	condor_negotiator - the central manager's matchmaker
 *
 * DESCRIPTION
 *	Gives the pool's idle machines to the stations (schedds) that want
 *	them, fairly.  Every NEGOTIATOR_INTERVAL seconds, and half a second
 *	after NEGOTIATOR_RESCHEDULE (requests in between are coalesced), it
 *	runs a negotiation cycle:
 *
 *	1. It asks the collector for every machine ad and every schedd ad.
 *	2. Once per NEGOTIATOR_INTERVAL (however many cycles are asked
 *	   for), it replaces each advertising station's priority, its
 *	   Up-Down index, by UPDATE_PRIO evaluated with Prio (the index),
 *	   Users (NumUsers: users with idle jobs there) and Running
 *	   (TotalRunningJobs): waiting raises it, running lowers it.  A
 *	   station with neither waiting users nor running jobs moves one
 *	   step toward 0 instead, so the index recovers when a station stops
 *	   competing.  The index is clamped to [-1000, 1000] so that no
 *	   history, however long, takes longer than that many cycles to
 *	   undo.  A station that stops advertising keeps its index.
 *	3. It serves the stations highest priority first (ties: fewer
 *	   running jobs, then Name), in passes: in each pass a station gets
 *	   at most one machine, so that at equal priorities a heavy station
 *	   does not take every machine before a light one is asked.  In its
 *	   turn a station is asked for its best idle job (SCHEDD_NEXT_JOB,
 *	   by the schedd's PRIO) until one finds a machine or it has none
 *	   left.  A job's machine is the Idle machine, not yet given out
 *	   this cycle, whose ad makes the job's Requirements TRUE and whose
 *	   Requirements (or START) are TRUE against the job, with the
 *	   highest job Rank (UNDEFINED counts as 0; ties by Name).  The
 *	   schedd is then told to run the job there (SCHEDD_MATCH).  A
 *	   machine given out is not offered again until its startd has
 *	   advertised since (its ad says Idle until the claim arrives).
 *	4. Priority preemption, if PREEMPTION_ENABLED: a station that got
 *	   nothing although it offered a job has one Claimed machine
 *	   vacated (STARTD_VACATE: the job checkpoints and goes back to its
 *	   queue) if that machine suits the job and runs a job of a station
 *	   (the machine's RemoteSchedd) whose priority is lower by more than
 *	   PREEMPTION_PRIO_MARGIN; the lowest such station loses first.  At
 *	   most one per waiting station per cycle, and none while its last
 *	   one is still under way (up to five intervals).  When the machine
 *	   comes back Idle it is kept for that station in the next cycle.
 *	   With preemption off and claim reuse on (CLAIM_WORKLIFE not 0),
 *	   such machines' claims are retired instead (STARTD_RETIRE_SLOT),
 *	   as many as the station has idle jobs: their jobs run on, the
 *	   claims take no new job of their station.
 *	5. It advertises itself to the collector (ADTYPE_NEGOTIATOR): Name
 *	   (HOST), NegotiatorIpAddr, LastCycleTime, LastCycleDuration,
 *	   NumMatches, NumPreemptions, NumStations, CycleNumber.
 *
 *	Every outbound call has RPC_TIMEOUT; a schedd that does not answer
 *	is skipped for the cycle, and after that until its ad is refreshed.
 *	Each cycle is logged: the stations in order with their priorities,
 *	each match and preemption, and the time taken.
 *
 * PROTOCOL
 *	Serves NEGOTIATOR_PROG (include/negotiator_rpc.x) over TCP on
 *	NEGOTIATOR_PORT (0: any free port) at BIND_ADDRESS:
 *	NEGOTIATOR_NULL (a ping), NEGOTIATOR_RESCHEDULE for callers in
 *	HOSTALLOW_WRITE,
 *	NEGOTIATOR_PRIORITIES (every station's index, highest first) for
 *	callers in HOSTALLOW_READ, NEGOTIATOR_SET_PRIORITY (condor_userprio
 *	-setprio) for administrators in HOSTALLOW_WRITE.  Local callers may
 *	also come through $(LOG)/.negotiator_socket, where their uid is
 *	known (administrators who hold no pool key).  Calls COLLECTOR_PROG (queries and its
 *	own ad), SCHEDD_PROG (SCHEDD_NEXT_JOB, SCHEDD_MATCH) at each
 *	station's ScheddIpAddr, and STARTD_PROG (STARTD_VACATE) at a
 *	machine's StartdIpAddr.
 *
 * SIGNALS
 *	SIGTERM, SIGINT: withdraw the ad and exit.  SIGHUP: re-read the
 *	configuration and run a cycle soon.
 *
 * CONFIGURATION
 *	HOST, COLLECTOR_HOST, BIND_ADDRESS, NEGOTIATOR_PORT,
 *	NEGOTIATOR_INTERVAL, MATCH_TIMEOUT, UPDATE_PRIO, PREEMPTION_ENABLED,
 *	PREEMPTION_PRIO_MARGIN, RPC_TIMEOUT, HOSTALLOW_READ,
 *	HOSTALLOW_WRITE, SPOOL, LOG, NEGOTIATOR_LOG.
 *
 * FILES
 *	$(SPOOL)/negotiator_priorities: "PRIO NAME" per station, written
 *	to a temporary file, synced and renamed after each update, read at
 *	start-up.  $(LOG)/NegotiatorLog, $(LOG)/.negotiator_address.
 */
#include <arpa/inet.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ad.h"
#include "collector_client.h"
#include "config.h"
#include "daemon.h"
#include "event.h"
#include "log.h"
#include "negotiator.h"
#include "negotiator_rpc.h"
#include "rpcutil.h"
#include "xalloc.h"

#define RESCHEDULE_DELAY	0.01	/* seconds: requests coalesce */
#define RETRY_DELAY		5.0	/* seconds: collector not reachable */

static long	 cycle_timer;
static double	 cycle_at = -1;		/* monotime() of the next cycle */
static double	 last_duration;		/* seconds the last cycle took */
static int	 cycle_number;
static char	 negotiator_addr[ADDR_STRLEN];

/* The dispatcher rpcgen writes in negotiator_rpc_svc.c. */
void	negotiator_prog_1(struct svc_req *, SVCXPRT *);

static const char *
host_name(void)
{
	const char *host = param("HOST");

	return host != NULL && *host != '\0' ? host : "localhost";
}

static void	cycle_tick(void *);

/*
 * Run the next cycle DELAY seconds from now.  Unless FORCE, a cycle
 * already planned sooner stays as it is.  Returns 1 if the plan changed.
 */
static int
cycle_arm(double delay, int force)
{
	double at = monotime() + delay;

	if (!force && cycle_at >= 0 && cycle_at <= at)
		return 0;
	event_timer_cancel(cycle_timer);
	cycle_timer = event_timer_add(delay, cycle_tick, NULL);
	cycle_at = at;
	return 1;
}

/*
 * How soon a cycle follows a request: RESCHEDULE_DELAY, so requests that
 * come together share a cycle, but never sooner than the last cycle took,
 * so that in a large pool, where a cycle takes a good part of a second,
 * the negotiator is not kept in cycles by a stream of requests.
 */
static double
reschedule_delay(void)
{
	return last_duration > RESCHEDULE_DELAY ? last_duration :
	    RESCHEDULE_DELAY;
}

static void
advertise(const struct cycle_report *rep, time_t started)
{
	struct ad *ad = ad_new();
	char err[512];

	ad_set_string(ad, "Name", host_name());
	ad_set_string(ad, "Machine", host_name());
	ad_set_string(ad, "NegotiatorIpAddr", negotiator_addr);
	ad_set_int(ad, "LastCycleTime", (long long)started);
	ad_set_real(ad, "LastCycleDuration", rep->duration);
	ad_set_int(ad, "NumMatches", rep->matches);
	ad_set_int(ad, "NumPreemptions", rep->preemptions);
	ad_set_int(ad, "NumStations", rep->stations);
	ad_set_int(ad, "CycleNumber", cycle_number);
	if (collector_update(ADTYPE_NEGOTIATOR, ad, err, sizeof(err)) == -1)
		log_warnx("cannot advertise to the collector: %s", err);
	ad_free(ad);
}

static void
cycle_tick(void *arg)
{
	struct cycle_report rep;
	long interval = param_int("NEGOTIATOR_INTERVAL", 60);
	time_t started = time(NULL);

	cycle_timer = 0;
	cycle_at = -1;
	if (interval < 1)
		interval = 1;
	if (cycle_number == 0x7fffffff)
		cycle_number = 0;
	cycle_number++;
	negotiate_cycle(cycle_number, &rep);
	last_duration = rep.duration;
	if (rep.ok)
		advertise(&rep, started);
	cycle_arm(rep.ok || interval < RETRY_DELAY ? (double)interval :
	    RETRY_DELAY, 1);
}

bool_t
negotiator_null_1_svc(void *arg, void *res, struct svc_req *req)
{
	return TRUE;
}

bool_t
negotiator_reschedule_1_svc(void *arg, status_x *res, struct svc_req *req)
{
	char from[64];

	rpc_caller_ip(req, from, sizeof(from));
	if (!rpc_host_allowed(req, "HOSTALLOW_WRITE")) {
		log_warnx("reschedule from %s refused (HOSTALLOW_WRITE)",
		    from);
		res->code = EPERM;
		res->message = xstrdup("not allowed to reschedule");
		return TRUE;
	}
	/* Logged once per cycle it brings forward, not per request. */
	if (cycle_arm(reschedule_delay(), 0))
		log_info("reschedule asked by %s: a cycle in %.2f s", from,
		    reschedule_delay());
	res->code = 0;
	res->message = xstrdup("");
	return TRUE;
}

bool_t
negotiator_priorities_1_svc(void *arg, prio_res_x *res, struct svc_req *req)
{
	char from[64];

	memset(res, 0, sizeof(*res));
	if (!rpc_host_allowed(req, "HOSTALLOW_READ")) {
		rpc_caller_ip(req, from, sizeof(from));
		log_warnx("priorities query from %s refused (HOSTALLOW_READ)",
		    from);
		res->code = EPERM;
		res->message = xstrdup("not allowed to query");
		return TRUE;
	}
	res->message = xstrdup("");
	prio_reply(res);
	return TRUE;
}

bool_t
negotiator_set_priority_1_svc(setprio_x *arg, status_x *res,
    struct svc_req *req)
{
	char from[64], err[256];

	memset(res, 0, sizeof(*res));
	if (!rpc_host_allowed(req, "HOSTALLOW_WRITE")) {
		rpc_caller_ip(req, from, sizeof(from));
		log_warnx("priority change from %s refused (HOSTALLOW_WRITE)",
		    from);
		rpc_status(res, EPERM, "not allowed to change priorities");
		return TRUE;
	}
	if (prio_set(arg->name, arg->prio, err, sizeof(err)) == -1)
		rpc_status(res, EINVAL, "%s", err);
	else
		rpc_status_ok(res);
	return TRUE;
}

int
negotiator_prog_1_freeresult(SVCXPRT *xprt, xdrproc_t xres, caddr_t res)
{
	xdr_free(xres, res);
	return 1;
}

static int
negotiator_init(int argc, char **argv)
{
	struct sockaddr_in bound;
	char *socket_path;
	int fd, ufd;

	fd = rpc_listen_tcp(param("BIND_ADDRESS"),
	    (int)param_int("NEGOTIATOR_PORT", 0), &bound);
	if (fd == -1) {
		log_warn("cannot listen on %s port %ld",
		    param("BIND_ADDRESS") ? param("BIND_ADDRESS") : "*",
		    param_int("NEGOTIATOR_PORT", 0));
		return -1;
	}
	rpc_keepalive(fd);
	if (rpc_serve(fd, PROG_NEGOTIATOR, 1, negotiator_prog_1) == NULL)
		return -1;
	/* Local administrators are known by their uid here. */
	socket_path = xasprintf("%s/.negotiator_socket", param("LOG"));
	if ((ufd = rpc_listen_unix(socket_path)) == -1 ||
	    rpc_serve(ufd, PROG_NEGOTIATOR, 1, negotiator_prog_1) == NULL)
		log_warn("cannot serve on %s", socket_path);
	free(socket_path);
	addr_advertised(&bound, host_name(), negotiator_addr);
	daemon_write_address("negotiator", negotiator_addr);
	log_info("serving at %s as %s", negotiator_addr, host_name());
	prio_init();
	negotiate_init();
	/*
	 * Cycle numbers start from the clock, so that a restarted
	 * negotiator does not reuse the numbers schedds saw last.
	 */
	cycle_number = (int)(time(NULL) % 1000000000) * 2;
	cycle_arm(0, 1);
	return 0;
}

static void
negotiator_reconfig(void)
{
	collector_disconnect();
	prio_reconfig();
	cycle_arm(RESCHEDULE_DELAY, 1);
}

static void
negotiator_shutdown(void)
{
	char err[512];

	if (collector_invalidate(ADTYPE_NEGOTIATOR, host_name(), err,
	    sizeof(err)) == -1)
		log_warnx("cannot withdraw our ad from the collector: %s",
		    err);
}

static const struct daemon_ops negotiator_ops = {
	.name = "negotiator",
	.subsys = "NEGOTIATOR",
	.drop_privs = 1,
	.init = negotiator_init,
	.reconfig = negotiator_reconfig,
	.shutdown = negotiator_shutdown,
};

int
main(int argc, char **argv)
{
	return daemon_main(argc, argv, &negotiator_ops);
}
