/*
 * NAME
 *	condor_startd - this machine's owner policy and its machine ad
 *
 * DESCRIPTION
 *	Decides whether this machine may run a foreign job, and tells the
 *	central manager.  Every POLLING_INTERVAL seconds it looks at the
 *	machine: architecture and system, memory, free swap, free disk in
 *	EXECUTE, load average (the first field of LOAD_AVERAGE_FILE), and
 *	how long the keyboard has been idle (the latest access or
 *	modification of the files in CONSOLE_DEVICES; by default the
 *	terminals and pseudo-terminals in use, from utmp; with no device at
 *	all, the time since boot).  A source that cannot be read is logged
 *	once and its last good value kept.
 *
 *	It then evaluates START against its own machine ad.  FALSE or
 *	ERROR puts the machine in the Owner state; TRUE, or UNDEFINED (START
 *	refers to the job, which only a match can tell), puts it in the
 *	Idle state: in the processor bank.  An expression that does not
 *	parse is logged and counts as FALSE.  Each state change is logged
 *	("State Owner -> Idle") and advertised to the collector at once;
 *	otherwise the ad goes out every STARTD_UPDATE_INTERVAL seconds.  An
 *	update the collector did not take is retried at the next poll.
 *
 *	The ad holds Name and Machine (HOST), Arch, OpSys, Memory (MiB),
 *	VirtualMemory (KiB), Disk (KiB), LoadAvg, CondorLoadAvg,
 *	NonCondorLoadAvg, KeyboardIdle and ConsoleIdle (seconds), Cpus,
 *	TotalCpus, State, Activity, EnteredCurrentState, StartdIpAddr,
 *	START and Requirements (the START expression, for the matchmaker
 *	to evaluate against a job), Rank (STARTD_RANK, default 0),
 *	UpdateSequenceNumber and DaemonStartTime; while a job is here also
 *	RemoteUser (its Owner), RemoteSchedd, JobId ("C.P") and JobStart.
 *
 *	A shadow asks to run its job here (STARTD_REQUEST_CLAIM).  The
 *	startd looks at the machine again, and accepts only if it is Idle,
 *	START is TRUE with the job as TARGET and the job's Requirements are
 *	TRUE with the machine as TARGET; otherwise it refuses and says why.
 *	It then spawns STARTER (as root when it is root), writes the claim
 *	on the starter's standard input and keeps that pipe open as the
 *	starter's lifeline, and enters the Claimed state.  The starter obeys
 *	signals: SIGTERM vacate, SIGQUIT kill now, SIGTSTP suspend, SIGCONT
 *	continue; STARTD_VACATE (condor_vacate, preemption) sends SIGTERM
 *	and enters Vacating, STARTD_RELEASE_CLAIM (the claim's shadow,
 *	proving it with the claim's capability) sends SIGQUIT and enters
 *	Killing.  A vacate that takes longer than VACATE_GRACE plus two
 *	RPC_TIMEOUTs becomes a kill, and a kill that takes longer than
 *	RPC_TIMEOUT becomes SIGKILL.  When the starter exits the machine
 *	returns to Owner or Idle as START says.  The owner policy for
 *	running jobs (SUSPEND, CONTINUE, VACATE, KILL) hooks in at
 *	claim_policy() in startd_claim.c.
 *
 * PROTOCOL
 *	Serves STARTD_PROG (include/startd_rpc.x) over TCP on STARTD_PORT
 *	(0: any free port) at BIND_ADDRESS: STARTD_NULL; STARTD_QUERY,
 *	which answers with the current machine ad (the caller must be in
 *	HOSTALLOW_READ); STARTD_REQUEST_CLAIM; STARTD_VACATE (the caller
 *	must be in HOSTALLOW_WRITE); STARTD_RELEASE_CLAIM.  Sends its ad
 *	(ADTYPE_STARTD) to the collector at COLLECTOR_HOST
 *	(COLLECTOR_PROG) and invalidates it on shutdown.
 *
 * SIGNALS
 *	SIGTERM, SIGINT: vacate the job if one runs, withdraw the ad from
 *	the collector and exit.  SIGHUP: re-read the configuration (policy,
 *	intervals, devices), look at the machine again and advertise at
 *	once.  SIGCHLD: reap the starter; the claim ends.
 *
 * CONFIGURATION
 *	HOST, COLLECTOR_HOST, BIND_ADDRESS, STARTD_PORT, POLLING_INTERVAL,
 *	STARTD_UPDATE_INTERVAL, START, STARTD_RANK, CONSOLE_DEVICES,
 *	LOAD_AVERAGE_FILE, EXECUTE, HOSTALLOW_READ, HOSTALLOW_WRITE,
 *	STARTER, VACATE_GRACE, RPC_TIMEOUT, LOG, STARTD_LOG.
 *
 * FILES
 *	$(LOG)/StartLog, $(LOG)/.startd_address; reads LOAD_AVERAGE_FILE,
 *	/proc/meminfo, /proc/uptime, the utmp file and the console devices.
 */
#include <arpa/inet.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ad.h"
#include "collector_client.h"
#include "config.h"
#include "daemon.h"
#include "event.h"
#include "expr.h"
#include "log.h"
#include "rpcutil.h"
#include "startd.h"
#include "startd_rpc.h"
#include "xalloc.h"

static const char *startd_state_names[STATE_COUNT] = {
	"Owner", "Idle", "Claimed", "Suspended", "Vacating", "Killing",
};
static const char *startd_activity_names[STATE_COUNT] = {
	"Idle", "Idle", "Busy", "Suspended", "Vacating", "Killing",
};

static struct machine_sample sample;	/* the last look at the machine */
static struct ad	*machine_ad;	/* what we advertise */
static enum startd_state state = STATE_OWNER;
static time_t		 entered_state;	/* when STATE changed */
static time_t		 daemon_start_time;
static char		 startd_addr[ADDR_STRLEN];
static long long	 update_seq;
static int		 update_pending;	/* the last update failed */
static long		 poll_timer, update_timer;

/* The dispatcher rpcgen writes in startd_rpc_svc.c. */
void	startd_prog_1(struct svc_req *, SVCXPRT *);

const char *
startd_state_name(enum startd_state s)
{
	if ((int)s < 0 || s >= STATE_COUNT)
		return "Unknown";
	return startd_state_names[s];
}

const char *
startd_activity_name(enum startd_state s)
{
	if ((int)s < 0 || s >= STATE_COUNT)
		return "Unknown";
	return startd_activity_names[s];
}

const char *
startd_host_name(void)
{
	const char *host = param("HOST");

	return host != NULL && *host != '\0' ? host : "localhost";
}

/*
 * Set NAME to the expression TEXT, or to FALSE if the ad refuses it (it
 * was checked when the policy was loaded, so this is a broken invariant
 * only in ad.c, and still no reason to die).
 */
static void
set_expr(struct ad *ad, const char *name, const char *text)
{
	char err[256];

	if (ad_set_expr(ad, name, text, err, sizeof(err)) == -1) {
		log_warnx("cannot advertise %s = %s: %s", name, text, err);
		ad_set_bool(ad, name, 0);
	}
}

static void
set_state_attrs(struct ad *ad)
{
	ad_set_string(ad, "State", startd_state_name(state));
	ad_set_string(ad, "Activity", startd_activity_name(state));
	ad_set_int(ad, "EnteredCurrentState", (long long)entered_state);
}

/* The machine ad for the sample S. */
static struct ad *
build_ad(const struct machine_sample *s)
{
	struct ad *ad = ad_new();
	double noncondor = s->loadavg - s->condor_loadavg;

	ad_set_string(ad, "Name", startd_host_name());
	ad_set_string(ad, "Machine", startd_host_name());
	ad_set_string(ad, "Arch", s->arch);
	ad_set_string(ad, "OpSys", s->opsys);
	ad_set_int(ad, "Memory", s->memory);
	ad_set_int(ad, "VirtualMemory", s->virtual_memory);
	ad_set_int(ad, "Disk", s->disk);
	ad_set_real(ad, "LoadAvg", s->loadavg);
	ad_set_real(ad, "CondorLoadAvg", s->condor_loadavg);
	ad_set_real(ad, "NonCondorLoadAvg", noncondor > 0 ? noncondor : 0.0);
	ad_set_int(ad, "KeyboardIdle", s->keyboard_idle);
	ad_set_int(ad, "ConsoleIdle", s->console_idle);
	ad_set_int(ad, "Cpus", s->cpus);
	ad_set_int(ad, "TotalCpus", s->total_cpus);
	set_state_attrs(ad);
	ad_set_string(ad, "StartdIpAddr", startd_addr);
	set_expr(ad, "START", policy_start_text());
	set_expr(ad, "Requirements", policy_start_text());
	set_expr(ad, "Rank", policy_rank_text());
	ad_set_int(ad, "UpdateSequenceNumber", update_seq);
	ad_set_int(ad, "DaemonStartTime", (long long)daemon_start_time);
	claim_add_attrs(ad);
	return ad;
}

static void	update_tick(void *);

/*
 * Send the ad now.  A failure is logged once per outage and retried at
 * the next poll; either way the periodic update is re-armed from now.
 */
static void
send_update(void)
{
	char err[512];
	long interval = param_int("STARTD_UPDATE_INTERVAL", 60);

	if (interval < 1)
		interval = 1;
	event_timer_cancel(update_timer);
	update_timer = event_timer_add((double)interval, update_tick, NULL);
	if (machine_ad == NULL)
		return;
	ad_set_int(machine_ad, "UpdateSequenceNumber", ++update_seq);
	if (collector_update(ADTYPE_STARTD, machine_ad, err,
	    sizeof(err)) == -1) {
		if (!update_pending)
			log_warnx("cannot update the collector at %s: %s; "
			    "retrying every poll", param("COLLECTOR_HOST"),
			    err);
		else
			log_debug("cannot update the collector: %s", err);
		update_pending = 1;
		return;
	}
	if (update_pending)
		log_info("the collector took our ad again");
	update_pending = 0;
}

enum startd_state
startd_state_get(void)
{
	return state;
}

const struct ad *
startd_machine_ad(void)
{
	return machine_ad;
}

void
startd_state_set(enum startd_state next)
{
	if (next == state)
		return;
	log_info("State %s -> %s", startd_state_name(state),
	    startd_state_name(next));
	state = next;
	entered_state = time(NULL);
	/* Rebuilt rather than patched: the claim's attributes come and go
	 * with the states. */
	ad_free(machine_ad);
	machine_ad = build_ad(&sample);
	send_update();
}

/*
 * Look at the machine, rebuild the ad and decide the state.  Owner and
 * Idle follow START; while a job is here the claim's policy decides.
 * Returns 1 if the state changed (the ad was then sent), 0 if not.
 */
static int
refresh(void)
{
	enum startd_state next;

	sample_machine(&sample);
	ad_free(machine_ad);
	machine_ad = build_ad(&sample);
	if (state != STATE_OWNER && state != STATE_IDLE)
		return claim_policy(machine_ad);
	next = policy_owner_state(machine_ad);
	if (next == state)
		return 0;
	startd_state_set(next);
	return 1;
}

void
startd_refresh(void)
{
	refresh();
}

void
startd_job_left(void)
{
	sample_machine(&sample);
	ad_free(machine_ad);
	machine_ad = build_ad(&sample);
	startd_state_set(policy_owner_state(machine_ad));
}

static void
poll_tick(void *arg)
{
	long interval = param_int("POLLING_INTERVAL", 5);

	if (refresh() == 0 && update_pending)
		send_update();
	if (interval < 1)
		interval = 1;
	poll_timer = event_timer_add((double)interval, poll_tick, NULL);
}

static void
update_tick(void *arg)
{
	if (refresh() == 0)
		send_update();
}

bool_t
startd_null_1_svc(void *arg, void *res, struct svc_req *req)
{
	return TRUE;
}

bool_t
startd_query_1_svc(void *arg, startd_query_res_x *res, struct svc_req *req)
{
	char from[64];

	memset(res, 0, sizeof(*res));
	if (!rpc_host_allowed(req, "HOSTALLOW_READ")) {
		rpc_caller_ip(req, from, sizeof(from));
		log_warnx("query from %s refused (HOSTALLOW_READ)", from);
		res->code = EPERM;
		res->message = xstrdup("not allowed to query");
		return TRUE;
	}
	if (machine_ad == NULL) {
		res->code = EAGAIN;
		res->message = xstrdup("no ad yet");
		return TRUE;
	}
	res->message = xstrdup("");
	ad_to_xdr(machine_ad, &res->ad);
	return TRUE;
}

int
startd_prog_1_freeresult(SVCXPRT *xprt, xdrproc_t xres, caddr_t res)
{
	xdr_free(xres, res);
	return 1;
}

/*
 * The address to advertise for BOUND: a wildcard bind is advertised as
 * HOST's address, or the loopback address if HOST does not resolve.
 */
static void
advertised_address(const struct sockaddr_in *bound, char *buf)
{
	struct sockaddr_in sin = *bound, host;
	char *text;

	if (sin.sin_addr.s_addr == htonl(INADDR_ANY)) {
		text = xasprintf("%s:0", startd_host_name());
		if (addr_parse(text, &host) == 0)
			sin.sin_addr = host.sin_addr;
		else
			sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		free(text);
	}
	addr_format(&sin, buf);
}

static int
startd_init(int argc, char **argv)
{
	struct sockaddr_in bound;
	const char *execute = param("EXECUTE");
	int fd;

	daemon_start_time = entered_state = time(NULL);
	if (execute != NULL && daemon_mkdir(execute, 0755) == -1)
		log_warn("cannot create EXECUTE %s", execute);
	fd = rpc_listen_tcp(param("BIND_ADDRESS"),
	    (int)param_int("STARTD_PORT", 0), &bound);
	if (fd == -1) {
		log_warn("cannot listen on %s port %ld",
		    param("BIND_ADDRESS") ? param("BIND_ADDRESS") : "*",
		    param_int("STARTD_PORT", 0));
		return -1;
	}
	if (rpc_serve(fd, PROG_STARTD, 1, startd_prog_1) == NULL)
		return -1;
	advertised_address(&bound, startd_addr);
	daemon_write_address("startd", startd_addr);
	log_info("serving at %s as %s", startd_addr, startd_host_name());
	policy_load();
	poll_timer = event_timer_add(0, poll_tick, NULL);
	update_timer = event_timer_add(0, update_tick, NULL);
	return 0;
}

static void
startd_reconfig(void)
{
	policy_load();
	collector_disconnect();
	event_timer_cancel(poll_timer);
	event_timer_cancel(update_timer);
	poll_timer = event_timer_add(0, poll_tick, NULL);
	update_timer = event_timer_add(0, update_tick, NULL);
}

static void
startd_shutdown(void)
{
	char err[512];

	claim_shutdown();

	if (collector_invalidate(ADTYPE_STARTD, startd_host_name(), err,
	    sizeof(err)) == -1)
		log_warnx("cannot withdraw our ad from the collector: %s",
		    err);
	else
		log_info("ad withdrawn from the collector");
}

static void
startd_child_exit(pid_t pid, int status)
{
	if (!claim_child_exit(pid, status))
		log_info("reaped pid %d (status %#x)", (int)pid, status);
}

static const struct daemon_ops startd_ops = {
	.name = "startd",
	.subsys = "STARTD",
	.drop_privs = 0,	/* starters will need root */
	.init = startd_init,
	.reconfig = startd_reconfig,
	.shutdown = startd_shutdown,
	.child_exit = startd_child_exit,
};

int
main(int argc, char **argv)
{
	return daemon_main(argc, argv, &startd_ops);
}
