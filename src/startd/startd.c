/*
 * NAME
 *	condor_startd - this machine's owner policy and its machine ad
 *
 * DESCRIPTION
 *	Decides whether this machine may run a foreign job, gets the job out
 *	of the owner's way when the owner is back, and tells the central
 *	manager.  Every POLLING_INTERVAL seconds it looks at the machine:
 *	architecture and system, memory, free swap, free disk in EXECUTE,
 *	the load average (the first field of LOAD_AVERAGE_FILE), the load
 *	the job itself causes, and how long the keyboard has been idle.  A
 *	source that cannot be read is logged once and its last good value
 *	kept.
 *
 *	KeyboardIdle is the least idle of the files in CONSOLE_DEVICES (by
 *	default the terminals and pseudo-terminals in use, from utmp; their
 *	latest access or modification) and of the last report of
 *	condor_kbdd; ConsoleIdle leaves the kbdd out; with no device and no
 *	report at all, the time since boot counts.  Between looks the
 *	devices are watched with inotify, and any access, modification or
 *	change of attributes, like any report of the kbdd, makes the startd
 *	look and apply its policy at once (at most every 0.2 s under a
 *	stream of activity).  Activity newer than the previous look counts
 *	as 0 seconds of idleness whatever its time stamp, so that
 *	"KeyboardIdle < $(POLLING_INTERVAL)" sees every use exactly once.
 *
 *	CondorLoadAvg is the job's share of the load average: the time the
 *	processes under the starter (the starter included) spent running
 *	or waiting for a processor (/proc stat and schedstat) since the last
 *	look, averaged over a minute as the kernel averages its load.
 *	NonCondorLoadAvg, LoadAvg less CondorLoadAvg (never negative), is
 *	the owner's: a job does not make its own machine look busy.  After
 *	the job leaves its share decays as the kernel's does.
 *
 *	The policy is the control expressions of the configuration,
 *	evaluated with the machine ad as MY (and the job ad as TARGET while
 *	a job is here); EnteredCurrentState and CurrentTime give the time in
 *	the present state.  Without a job, START decides: FALSE puts the
 *	machine in the Owner state, TRUE (or UNDEFINED: START may refer to
 *	the job, which only a match can tell) in the Idle state.  With a job:
 *	in Claimed, SUSPEND stops it (Suspended); in Suspended, CONTINUE
 *	resumes it (Claimed) unless SUSPEND holds too, else VACATE sends it
 *	away (Vacating); in Vacating, KILL kills it (Killing).  An
 *	expression that does not parse or whose value is not a boolean (a
 *	misspelt attribute is UNDEFINED, a type error ERROR) is logged once
 *	per change and counts on the owner's side: START FALSE, SUSPEND
 *	TRUE, CONTINUE FALSE, VACATE TRUE, KILL FALSE (a vacate still ends
 *	within the startd's own deadline).  Each change of state is logged
 *	with its reason ("State Claimed -> Suspended (SUSPEND is TRUE)") and
 *	advertised to the collector at once; otherwise the ad goes out every
 *	STARTD_UPDATE_INTERVAL seconds.  The first ad, and the first after
 *	the collector restarted, is repeated until the collector acknowledges
 *	it (collector_client.c).  An update that could not be sent (or, over
 *	TCP, that the collector did not take) is retried at the next poll.
 *
 *	The ad holds Name and Machine (HOST), Arch, OpSys, Memory (MiB),
 *	VirtualMemory (KiB), Disk (KiB), LoadAvg, CondorLoadAvg,
 *	NonCondorLoadAvg, KeyboardIdle and ConsoleIdle (seconds), Cpus,
 *	TotalCpus, State, Activity, EnteredCurrentState, StartdIpAddr,
 *	START and Requirements (the START expression, for the matchmaker
 *	to evaluate against a job), Rank (STARTD_RANK, default 0),
 *	UpdateSequenceNumber, DaemonStartTime and NumClaims (claims
 *	accepted since start-up, so a matchmaker sees an ad that moved);
 *	while a job is here also RemoteUser (its Owner), RemoteSchedd,
 *	JobId ("C.P"), JobStart, the job's ConcurrencyLimits and AcctGroup
 *	(which the negotiator counts) and NiceUser (TRUE for a nice user's
 *	job); and the settings STARTD_ATTRS names, as
 *	written in the configuration.
 *
 *	A shadow asks to run its job here (STARTD_REQUEST_CLAIM).  The
 *	startd looks at the machine again, and accepts only if it is Idle,
 *	START is TRUE with the job as TARGET and the job's Requirements are
 *	TRUE with the machine as TARGET; otherwise it refuses and says why.
 *	It then spawns STARTER (as root when it is root), writes the claim
 *	on the starter's standard input and keeps that pipe open as the
 *	starter's lifeline, and enters the Claimed state.  The starter obeys
 *	signals: SIGTERM vacate, SIGQUIT kill now, SIGTSTP suspend, SIGCONT
 *	continue.  SIGTSTP waits until the starter catches it (a starter
 *	just born would be stopped itself), and is sent again while the
 *	job's processes are not all stopped (the order came before the job
 *	existed).  STARTD_VACATE (condor_vacate, preemption) enters
 *	Vacating, STARTD_RELEASE_CLAIM (the claim's shadow, proving it with
 *	the claim's capability) enters Killing.  A vacate that takes longer
 *	than VACATE_GRACE plus two RPC_TIMEOUTs becomes a kill, and a kill
 *	that takes longer than RPC_TIMEOUT becomes SIGKILL.  When the
 *	starter exits the machine returns to Owner or Idle as START says,
 *	unless the claim is kept for its schedd's next job: after a job
 *	that ended by itself, within CLAIM_WORKLIFE seconds of the claim's
 *	start, the slot stays Claimed (Activity Idle, NumJobsOnClaim) and
 *	the next STARTD_REQUEST_CLAIM keyed by the claim's own id runs its
 *	next job, START and Requirements decided again; the claim ends on
 *	STARTD_END_CLAIM, START no longer TRUE, a vacate, or two
 *	RPC_TIMEOUTs without a job (startd_claim.c).
 *
 *	With NUM_CPUS above 1 the machine is partitionable: its ad is
 *	slot1@HOST (SlotType "Partitionable"), whose Cpus, Memory, Disk and
 *	GPUs are what is free (TotalSlotCpus... the whole) and whose State
 *	follows START; its ClaimId holds one id per core.  Each claim whose
 *	requests (RequestCpus, RequestMemory, RequestDisk, RequestGpus) fit
 *	in what is free carves a dynamic slot slot1_N@HOST with its own ad,
 *	state, job and starter, and AssignedGPUs; the owner policy is
 *	applied to each with its own ad; its share returns to slot1 and its
 *	ad is withdrawn when its starter exits (startd_claim.c).
 *
 * PROTOCOL
 *	Serves STARTD_PROG (include/startd_rpc.x) over TCP on STARTD_PORT
 *	(0: any free port) at BIND_ADDRESS: STARTD_NULL; STARTD_QUERY,
 *	which answers with the current machine ad (the caller must be in
 *	HOSTALLOW_READ); STARTD_REQUEST_CLAIM; STARTD_VACATE and
 *	STARTD_VACATE_SLOT (one slot's job; the caller must be in
 *	HOSTALLOW_WRITE); STARTD_RELEASE_CLAIM and STARTD_CLAIM_ALIVE (a
 *	shadow asking whether its starter lives); STARTD_RECONNECT_JOB (a
 *	new shadow of a running job: its starter is told where, on its
 *	standard input); STARTD_TAIL (a piece of the job's output or
 *	error from its starter's directory, for the holder of the claim's
 *	capability: the schedd, for condor_tail); STARTD_END_CLAIM and
 *	STARTD_CLAIM_AD (claim reuse, for the holder of the key of the
 *	claim's current or last job: its schedd); STARTD_RETIRE_SLOT (the
 *	negotiator, HOSTALLOW_WRITE: the slot's claim takes no new job).
 *	Also serves
 *	STARTD_NULL, STARTD_QUERY and STARTD_KBDD_ACTIVITY (condor_kbdd's
 *	reports, refused over TCP) to local callers on the Unix-domain
 *	socket $(LOG)/.startd_socket.  Sends its ad (ADTYPE_STARTD) to the
 *	collector at COLLECTOR_HOST (COLLECTOR_PROG) and invalidates it on
 *	shutdown.
 *
 * SIGNALS
 *	SIGTERM, SIGINT: vacate the job if one runs, withdraw the ad from
 *	the collector and exit.  SIGHUP: re-read the configuration (policy,
 *	intervals, devices), look at the machine again and advertise at
 *	once; a configuration that does not read is logged and the old one
 *	kept.  SIGCHLD: reap the starter; the claim ends.
 *
 * CONFIGURATION
 *	HOST, COLLECTOR_HOST, BIND_ADDRESS, STARTD_PORT, POLLING_INTERVAL,
 *	STARTD_UPDATE_INTERVAL, START, SUSPEND, CONTINUE, VACATE, KILL and
 *	the macros they use, STARTD_RANK, CONSOLE_DEVICES,
 *	LOAD_AVERAGE_FILE, EXECUTE, HOSTALLOW_READ, HOSTALLOW_WRITE,
 *	STARTER, VACATE_GRACE, RPC_TIMEOUT, CLAIM_WORKLIFE, LOG,
 *	STARTD_LOG, NUM_CPUS, MEMORY, MACHINE_RESOURCE_GPUs.
 *
 * FILES
 *	$(LOG)/StartLog, $(LOG)/.startd_address, $(LOG)/.startd_socket;
 *	reads LOAD_AVERAGE_FILE, /proc/meminfo, /proc/uptime, the utmp
 *	file, the console devices, and /proc/PID/{stat,status,task} of the
 *	starter and its job.
 */
#include <arpa/inet.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "ad.h"
#include "auth.h"
#include "collector_client.h"
#include "config.h"
#include "daemon.h"
#include "event.h"
#include "expr.h"
#include "log.h"
#include "rpcutil.h"
#include "slot.h"
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
static long		 poll_timer, update_timer, activity_timer;
static double		 last_activity_look;	/* monotime */
static int		 partitionable;	/* NUM_CPUS > 1 at start-up */
static long long	 total_cpus = 1, total_gpus;

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

/*
 * STARTD_ATTRS: names of configuration settings advertised in the machine
 * ad as they are written (HasMatlab = True, Department = "physics"), for
 * jobs' Requirements and Rank.  Read with the configuration; a setting
 * that is missing, does not parse, or would replace one of the startd's
 * own attributes is logged once and left out.
 */
static char	**config_names, **config_texts;
static size_t	 nconfig_attrs;

/* Attributes the startd (or the collector) sets in the machine ad. */
static int
startd_own_attr(const char *name)
{
	static const char *const own[] = {
		"Name", "Machine", "Arch", "OpSys", "Memory", "VirtualMemory",
		"Disk", "LoadAvg", "CondorLoadAvg", "NonCondorLoadAvg",
		"KeyboardIdle", "ConsoleIdle", "Cpus", "TotalCpus", "State",
		"Activity", "EnteredCurrentState", "StartdIpAddr", "START",
		"Requirements", "Rank", "UpdateSequenceNumber",
		"DaemonStartTime", "JobId", "JobStart", "NumClaims",
		"RemoteSchedd", "RemoteUser", "MyType", "LastHeardFrom",
		"UpdatesTotal", "UpdatesLost", "GPUs", "AssignedGPUs",
		"SlotType", "PartitionableSlot", "SlotID", "DSlotID",
		"TotalSlotCpus", "TotalSlotMemory", "TotalSlotDisk",
		"TotalSlotGPUs", "ConcurrencyLimits", "NiceUser", "AcctGroup",
		"UidDomain", "FileSystemDomain", "NumJobsOnClaim",
	};
	size_t i;

	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (strcasecmp(name, own[i]) == 0)
			return 1;
	return 0;
}

static void
load_config_attrs(void)
{
	const char *list = param("STARTD_ATTRS");
	char *copy, *tok, *save = NULL, err[256];
	struct ad *probe;

	while (nconfig_attrs > 0) {
		nconfig_attrs--;
		free(config_names[nconfig_attrs]);
		free(config_texts[nconfig_attrs]);
	}
	if (list == NULL || *list == '\0')
		return;
	probe = ad_new();
	copy = xstrdup(list);
	for (tok = strtok_r(copy, ", \t", &save); tok != NULL;
	    tok = strtok_r(NULL, ", \t", &save)) {
		const char *text = param(tok);

		if (text == NULL || *text == '\0') {
			log_warnx("STARTD_ATTRS: %s is not set; not advertised",
			    tok);
			continue;
		}
		if (startd_own_attr(tok)) {
			log_warnx("STARTD_ATTRS: %s is the startd's own; not "
			    "replaced", tok);
			continue;
		}
		if (ad_set_expr(probe, tok, text, err, sizeof(err)) == -1) {
			log_warnx("STARTD_ATTRS: %s = %s: %s; not advertised",
			    tok, text, err);
			continue;
		}
		config_names = xreallocarray(config_names, nconfig_attrs + 1,
		    sizeof(*config_names));
		config_texts = xreallocarray(config_texts, nconfig_attrs + 1,
		    sizeof(*config_texts));
		config_names[nconfig_attrs] = xstrdup(tok);
		config_texts[nconfig_attrs] = xstrdup(text);
		nconfig_attrs++;
	}
	free(copy);
	ad_free(probe);
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
	struct slot_res total, carved;
	char name[256];
	size_t i;

	if (partitionable)
		snprintf(name, sizeof(name), "slot1@%s", startd_host_name());
	else
		snprintf(name, sizeof(name), "%s", startd_host_name());
	ad_set_string(ad, "Name", name);
	ad_set_string(ad, "Machine", startd_host_name());
	ad_set_string(ad, "Arch", s->arch);
	ad_set_string(ad, "OpSys", s->opsys);
	/* Whose users and files it shares (condor_starter(8)). */
	ad_set_string(ad, "UidDomain", param("UID_DOMAIN") ?
	    param("UID_DOMAIN") : "");
	ad_set_string(ad, "FileSystemDomain", param("FILESYSTEM_DOMAIN") ?
	    param("FILESYSTEM_DOMAIN") : "");
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
	if (s->gpus > 0)
		ad_set_int(ad, "GPUs", s->gpus);
	if (partitionable) {
		/* What is still free; the whole in TotalSlot*. */
		total.cpus = s->cpus;
		total.memory = s->memory;
		total.disk = s->disk;
		total.gpus = s->gpus;
		claim_carved(&carved);
		ad_set_string(ad, "SlotType", "Partitionable");
		ad_set_bool(ad, "PartitionableSlot", 1);
		ad_set_int(ad, "SlotID", 1);
		ad_set_int(ad, "TotalSlotCpus", total.cpus);
		ad_set_int(ad, "TotalSlotMemory", total.memory);
		ad_set_int(ad, "TotalSlotDisk", total.disk);
		ad_set_int(ad, "TotalSlotGPUs", total.gpus);
		slot_take(&total, &carved);
		if (total.disk < 0)
			total.disk = 0;
		slot_ad_set_res(ad, &total);
	}
	set_state_attrs(ad);
	ad_set_string(ad, "StartdIpAddr", startd_addr);
	set_expr(ad, "START", policy_start_text());
	set_expr(ad, "Requirements", policy_start_text());
	set_expr(ad, "Rank", policy_rank_text());
	ad_set_int(ad, "UpdateSequenceNumber", update_seq);
	ad_set_int(ad, "DaemonStartTime", (long long)daemon_start_time);
	claim_add_attrs(ad);
	for (i = 0; i < nconfig_attrs; i++)
		if (ad_lookup(ad, config_names[i]) == NULL)
			set_expr(ad, config_names[i], config_texts[i]);
	return ad;
}

static void	update_tick(void *);
static void	send_update(void);

/* The dynamic slots' ads, in one call (over TCP). */
static void
send_slot_updates(void)
{
	struct ad **ads;
	char err[512];
	size_t i, n;

	if ((n = claim_slot_ads(machine_ad, &ads)) == 0)
		return;
	for (i = 0; i < n; i++)
		ad_set_int(ads[i], "UpdateSequenceNumber", update_seq);
	if (collector_update_many(ADTYPE_STARTD, ads, n, err,
	    sizeof(err)) == -1)
		log_warnx("cannot send the dynamic slots' ads: %s", err);
	for (i = 0; i < n; i++)
		ad_free(ads[i]);
	free(ads);
}

int
startd_partitionable(void)
{
	return partitionable;
}

long long
startd_total_cpus(void)
{
	return total_cpus;
}

long long
startd_total_gpus(void)
{
	return total_gpus;
}

void
startd_slots_changed(void)
{
	ad_free(machine_ad);
	machine_ad = build_ad(&sample);
	send_update();
}

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
	send_slot_updates();
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
startd_state_set(enum startd_state next, const char *why)
{
	if (next == state)
		return;
	log_info("State %s -> %s (%s)", startd_state_name(state),
	    startd_state_name(next), why);
	state = next;
	entered_state = time(NULL);
	/* Rebuilt rather than patched: the claim's attributes come and go
	 * with the states. */
	ad_free(machine_ad);
	machine_ad = build_ad(&sample);
	send_update();
}

/* Why START put the machine in NEXT, for the log. */
static const char *
owner_why(enum startd_state next)
{
	return next == STATE_IDLE ? "START is TRUE" :
	    "START is not TRUE";
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

	int changed = 0;

	sample_machine(&sample);
	ad_free(machine_ad);
	machine_ad = build_ad(&sample);
	if (!partitionable && state != STATE_OWNER && state != STATE_IDLE)
		return claim_policy(machine_ad);
	/* Partitionable: slot1 follows START; each job its own policy. */
	next = policy_owner_state(machine_ad);
	if (next != state) {
		startd_state_set(next, owner_why(next));
		changed = 1;
	}
	if (partitionable && claim_policy(machine_ad))
		changed = 1;
	return changed;
}

void
startd_refresh(void)
{
	refresh();
}

void
startd_job_left(const char *why)
{
	enum startd_state next;
	char text[256];

	sample_machine(&sample);
	ad_free(machine_ad);
	machine_ad = build_ad(&sample);
	next = policy_owner_state(machine_ad);
	snprintf(text, sizeof(text), "%s; START is %s", why != NULL ? why :
	    "the job left", next == STATE_IDLE ? "TRUE" : "not TRUE");
	startd_state_set(next, text);
	/* The claim's attributes went with it, the state perhaps not. */
	if (next == state)
		startd_slots_changed();
}

static void
activity_tick(void *arg)
{
	activity_timer = 0;
	last_activity_look = monotime();
	if (refresh() == 0 && update_pending)
		send_update();
}

/*
 * The first activity after a quiet spell is looked at on the next turn
 * of the loop; a stream of it (a busy terminal) at most every
 * ACTIVITY_GAP seconds.
 */
void
startd_activity(const char *source)
{
	double wait;

	log_debug("activity (%s)", source);
	if (activity_timer != 0)
		return;		/* a look is coming */
	wait = last_activity_look + ACTIVITY_GAP - monotime();
	activity_timer = event_timer_add(wait > 0 ? wait : 0, activity_tick,
	    NULL);
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
	if (!auth_caller_is_daemon())
		auth_strip_private(&res->ad, 1);
	return TRUE;
}


bool_t
startd_kbdd_activity_1_svc(quad_t *arg, status_x *res, struct svc_req *req)
{
	static int heard;
	char from[64];
	uid_t uid;

	memset(res, 0, sizeof(*res));
	if (rpc_caller_uid(req, &uid) == -1) {
		rpc_caller_ip(req, from, sizeof(from));
		log_warnx("activity report from %s refused: only a local "
		    "kbdd may report", from);
		rpc_status(res, EPERM, "only a kbdd on this machine may "
		    "report activity, on the local socket");
		return TRUE;
	}
	if (*arg < 0) {
		rpc_status(res, EINVAL, "a negative time");
		return TRUE;
	}
	if (!heard) {
		log_info("the kbdd (uid %u) reports keyboard and mouse "
		    "activity", (unsigned)uid);
		heard = 1;
	}
	if (console_kbdd_report((double)*arg / 1000.0))
		startd_activity("kbdd");
	rpc_status_ok(res);
	return TRUE;
}

/*
 * Both sockets are served here (one program has one dispatcher).  The
 * local socket serves what a program on this machine needs: the null
 * procedure, the ad, the kbdd's reports, and condor_vacate by a local
 * user (the socket tells who: OWNER is checked before it runs).  Claims
 * and their release go over TCP, where HOSTALLOW_WRITE and the claim id
 * guard them.
 */
static void
startd_dispatch(struct svc_req *req, SVCXPRT *xprt)
{
	uid_t uid;

	switch (req->rq_proc) {
	case STARTD_NULL:
	case STARTD_QUERY:
	case STARTD_KBDD_ACTIVITY:
	case STARTD_VACATE:
		break;
	default:
		if (rpc_caller_uid(req, &uid) == 0) {
			svcerr_noproc(xprt);
			return;
		}
		break;
	}
	startd_prog_1(req, xprt);
}

int
startd_prog_1_freeresult(SVCXPRT *xprt, xdrproc_t xres, caddr_t res)
{
	xdr_free(xres, res);
	return 1;
}

static int
startd_init(int argc, char **argv)
{
	struct sockaddr_in bound;
	const char *execute = param("EXECUTE");
	char *socket_path;
	int fd, ufd;

	daemon_start_time = entered_state = time(NULL);
	/* Read once: the slots carved from the machine depend on it. */
	total_cpus = param_int("NUM_CPUS", 1);
	if (total_cpus < 1)
		total_cpus = 1;
	if (total_cpus > SLOTS_MAX) {
		log_warnx("NUM_CPUS %lld: at most %d", total_cpus, SLOTS_MAX);
		total_cpus = SLOTS_MAX;
	}
	partitionable = total_cpus > 1;
	total_gpus = param_int("MACHINE_RESOURCE_GPUs", 0);
	if (total_gpus < 0)
		total_gpus = 0;
	if (total_gpus > SLOT_GPUS_MAX) {
		log_warnx("MACHINE_RESOURCE_GPUs %lld: at most %d",
		    total_gpus, SLOT_GPUS_MAX);
		total_gpus = SLOT_GPUS_MAX;
	}
	if (execute != NULL && daemon_mkdir(execute, 0755) == -1)
		log_warn("cannot create EXECUTE %s", execute);
	claim_sweep_execute(0);
	fd = rpc_listen_tcp(param("BIND_ADDRESS"),
	    (int)param_int("STARTD_PORT", 0), &bound);
	if (fd == -1) {
		log_warn("cannot listen on %s port %ld",
		    param("BIND_ADDRESS") ? param("BIND_ADDRESS") : "*",
		    param_int("STARTD_PORT", 0));
		return -1;
	}
	rpc_keepalive(fd);
	if (rpc_serve(fd, PROG_STARTD, 1, startd_dispatch) == NULL)
		return -1;
	addr_advertised(&bound, startd_host_name(), startd_addr);
	daemon_write_address("startd", startd_addr);
	/* Without it the kbdd cannot report; the startd works on. */
	socket_path = xasprintf("%s/%s", param("LOG"), STARTD_SOCKET_NAME);
	if ((ufd = rpc_listen_unix(socket_path)) == -1 ||
	    rpc_serve(ufd, PROG_STARTD, 1, startd_dispatch) == NULL)
		log_warn("cannot serve on %s; no kbdd can report",
		    socket_path);
	log_info("serving at %s and %s as %s", startd_addr, socket_path,
	    startd_host_name());
	free(socket_path);
	console_init();
	policy_load();
	load_config_attrs();
	poll_timer = event_timer_add(0, poll_tick, NULL);
	update_timer = event_timer_add(0, update_tick, NULL);
	return 0;
}

static void
startd_reconfig(void)
{
	policy_load();
	load_config_attrs();
	collector_disconnect();
	event_timer_cancel(poll_timer);
	event_timer_cancel(update_timer);
	poll_timer = event_timer_add(0, poll_tick, NULL);
	update_timer = event_timer_add(0, update_tick, NULL);
}

static void
startd_shutdown(void)
{
	char err[512], name[256];

	claim_shutdown();
	claim_invalidate_all();
	if (partitionable)
		snprintf(name, sizeof(name), "slot1@%s", startd_host_name());
	else
		snprintf(name, sizeof(name), "%s", startd_host_name());
	if (collector_invalidate(ADTYPE_STARTD, name, err,
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
