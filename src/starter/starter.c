/*
 * NAME
 *	condor_starter - runs one foreign job on this machine
 *
 * DESCRIPTION
 *	The startd spawns one starter per job it accepts, as root when the
 *	startd is root, and writes the claim on the starter's standard
 *	input: a 4-byte length in network order, then claim_x
 *	(include/startd_rpc.x) in XDR.  The pipe stays open afterwards; the
 *	starter takes its end of file as the death of its startd and
 *	vacates the job, so that no job runs on a machine whose owner
 *	policy nobody enforces.
 *
 *	The starter connects to the shadow named in the claim, presents the
 *	claim's capability (SHADOW_HELLO) and receives the job ad.  It makes
 *	a fresh execute directory $(EXECUTE)/dir_<pid>, owned by
 *	EXECUTE_USER and closed to everyone else, fetches the executable
 *	into it (SHADOW_GET, in chunks, straight to disk) and, for a
 *	vanilla job, its standard input, and starts the job: in a session
 *	of its own, as EXECUTE_USER (never root: a starter that would have
 *	to run a job as root refuses), in the execute directory, with
 *	standard input, output and error on files there, an environment
 *	made of the job's Env over a minimal PATH, HOME, TMPDIR, USER,
 *	LOGNAME, _CONDOR_SCRATCH_DIR and CONDOR_JOB_ID (nothing of the
 *	starter's own), with CUDA_VISIBLE_DEVICES and _CONDOR_AssignedGPUs
 *	over it when the startd gave the slot GPUs (AssignedGPUs in the
 *	claim's job ad), and Args split on white space (double quotes group
 *	words).  When not root the job runs as the starter's user.  A job
 *	from a host of this host's UID_DOMAIN runs as its owner, and on a
 *	shared file system (FILESYSTEM_DOMAIN, SHARED_FILESYSTEM_DIRS) in
 *	its Iwd with nothing transferred (starter_owner.c).
 *
 *	Every STARTER_UPDATE_INTERVAL seconds the new bytes of the job's
 *	output and error go to the shadow (SHADOW_PUT), so the files grow
 *	on the submitting host while the job runs; with nothing to send,
 *	SHADOW_NULL tells the shadow the starter is alive.  When the job
 *	exits the rest is sent, then SHADOW_EXIT with how it ended and its
 *	resource usage; the execute directory is emptied (by a child that
 *	became EXECUTE_USER) and removed, and the starter exits.
 *
 *	The shadow is the starter's lifeline: a call it does not answer
 *	within RPC_TIMEOUT ends the job at once (SIGKILL) and the starter;
 *	for a job with a lease (JobLeaseDuration), only once the
 *	lease is over without the starter having come back to the shadow
 *	(SHADOW_RECONNECT, tried every second; starter_shadow.c).
 *	A shadow that answers ESHUTDOWN is going away on purpose (the
 *	job was removed or held): no lease holds the job then; it is
 *	stopped and the starter exits at once.
 *	What differs per universe (vanilla now; standard with its remote
 *	system calls, sandbox and checkpoints later) is in
 *	starter_universe.c.
 *
 * PROTOCOL
 *	Client of SHADOW_PROG (include/shadow_rpc.x) over TCP.  Serves
 *	nothing.
 *
 * SIGNALS
 *	From the startd.  SIGTERM: vacate (vanilla: SIGTERM to the job's
 *	process group, SIGKILL after VACATE_GRACE seconds (less if the job's
 *	JobMaxVacateTime asks for less); the shadow hears
 *	EXIT_VACATED_KILLED; standard: SIGTSTP, the job checkpoints and
 *	exits, the checkpoint goes to the shadow, EXIT_VACATED_CKPT; killed
 *	after VACATE_GRACE without one; a job's own ckpt_and_exit() ends
 *	the same way).  SIGQUIT: kill the job at once.
 *	SIGTSTP:
 *	suspend the job (SIGSTOP to its group, event 10 to the shadow).
 *	SIGCONT: continue it (event 11).  SIGINT: as SIGQUIT.  SIGHUP and
 *	SIGPIPE are ignored.
 *
 * CONFIGURATION
 *	EXECUTE, EXECUTE_USER, UID_DOMAIN, TRUST_UID_DOMAIN,
 *	FILESYSTEM_DOMAIN, SHARED_FILESYSTEM_DIRS, HOST, RPC_TIMEOUT,
 *	STARTER_UPDATE_INTERVAL,
 *	VACATE_GRACE, PERIODIC_CHECKPOINT_INTERVAL, INCREMENTAL_CHECKPOINTS,
 *	CKPT_MAX_DELTAS (standard universe),
 *	STARTER_LOG, LOG.
 *
 * FILES
 *	$(LOG)/StarterLog, shared by all starters (each line carries the
 *	pid); $(EXECUTE)/dir_<pid>/ with condor_exec.exe, _condor_stdin,
 *	_condor_stdout and _condor_stderr (vanilla, those it ships back) or
 *	_condor_ckpt (the standard job's latest checkpoint).
 *
 * EXIT STATUS
 *	0 when the shadow heard how the job ended; 1 otherwise.
 */
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <arpa/inet.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <rpc/rpc.h>

#include "ad.h"
#include "auth.h"
#include "config.h"
#include "daemon.h"
#include "event.h"
#include "log.h"
#include "rpcutil.h"
#include "shadow_rpc.h"
#include "starter.h"
#include "startd_rpc.h"
#include "xalloc.h"

static struct starter_job job = {
	.stdin_fd = -1, .stdout_fd = -1, .stderr_fd = -1,
	.out_rfd = -1, .err_rfd = -1,
	.give_fds = { -1, -1, -1, -1 }, .ckpt_fd = -1, .notify_fd = -1,
	.account_fd = -1, .cg_fd = -1, .exec_fd = -1,
	.status_fd = -1, .status_wfd = -1, .memcg_fd = -1,
};
static long	tick_timer;
static int	startd_gone;
static int	read_startd(int fd);

static void __attribute__((noreturn))
starter_exit(int status)
{
	log_info("exiting with status %d", status);
	exit(status);
}

/* Give the job up: kill it, tidy, leave (WHY is logged). */
static void __attribute__((noreturn))
starter_give_up(const char *why)
{
	int status;

	log_warnx("%s; killing job %d.%d", why, job.cluster, job.proc);
	if (job.running) {
		job_signal(&job, SIGKILL);
		while (waitpid(job.pid, &status, 0) == -1 && errno == EINTR)
			;
		job.running = 0;
	}
	job_clean_dir(&job);
	starter_exit(1);
}

/* The shadow is gone: nobody wants the job any more. */
static void __attribute__((noreturn))
starter_lost(void)
{
	if (shadow_is_leaving())
		starter_give_up("stopped on purpose: the shadow went away "
		    "because the job was removed or put on hold");
	starter_give_up("lost the shadow");
}

/*
 * Disconnected from the shadow under the job's lease: try once to come
 * back.  1 when we are back; 0 not yet; the lease over, the job is
 * given up (it will run again elsewhere, and must not run here too).
 */
static int
shadow_back(void)
{
	char why[128];

	if (!shadow_is_disconnected())
		return !shadow_is_lost();
	if (shadow_reconnect() == 0)
		return 1;
	if (shadow_is_lost())
		starter_lost();
	if (shadow_lease_left() <= 0) {
		snprintf(why, sizeof(why), "no shadow for the whole of the "
		    "job's lease");
		starter_give_up(why);
	}
	return 0;
}

/*
 * Without its startd and without its shadow the starter gives up at
 * once rather than waiting out the lease: only the startd can send it
 * to a new shadow, and a startd that comes back does not know it and
 * offers the slot to other jobs, so a job kept running here could run
 * twice at once, and a starter kept waiting would outlive its host's
 * shutdown.
 */
static void __attribute__((noreturn))
orphan_give_up(void)
{
	starter_give_up("the startd went away while the shadow is out of "
	    "reach");
}

/* Wait for the shadow, a second at a time, until shadow_back; the
 * startd may name a new one meanwhile. */
static void
await_shadow(void)
{
	struct pollfd p = { STDIN_FILENO, POLLIN, 0 };

	while (!shadow_back()) {
		if (startd_gone)
			orphan_give_up();
		if (poll(&p, 1, 1000) == 1 && !read_startd(STDIN_FILENO))
			startd_gone = 1;
	}
}

/*
 * The job could not be started.  JOBS_FAULT: it is the job's (it will be
 * held, with WHY); otherwise this machine's (it will run elsewhere).
 */
static void __attribute__((noreturn))
starter_fail(const char *why, int jobs_fault)
{
	exit_x x;

	log_warnx("job %d.%d cannot run here: %s", job.cluster, job.proc,
	    why);
	memset(&x, 0, sizeof(x));
	x.how = jobs_fault ? EXIT_FAILED : EXIT_NOT_STARTED;
	/* A program that could not be executed: HoldReasonCode 6, with
	 * execve's errno as its HoldReasonSubCode. */
	if (jobs_fault && job.exec_errno != 0) {
		x.code = 6;
		x.subcode = job.exec_errno;
	}
	x.message = (char *)why;
	if (shadow_exit(&x) == -1)
		starter_lost();
	shadow_disconnect();
	job_clean_dir(&job);
	starter_exit(0);
}

/* Read LEN bytes of FD before DEADLINE (monotime); 0 or -1. */
static int
read_full(int fd, void *buf, size_t len, double deadline)
{
	struct pollfd pfd;
	size_t off = 0;
	ssize_t n;
	int left;

	while (off < len) {
		left = (int)((deadline - monotime()) * 1000.0);
		if (left <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, left) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		n = read(fd, (char *)buf + off, len - off);
		if (n == -1 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EPIPE;
			return -1;
		}
		off += (size_t)n;
	}
	return 0;
}

/* The claim from the startd on standard input.  0 or -1 (logged). */
static int
read_claim(claim_x *c)
{
	long timeout = param_int("RPC_TIMEOUT", 20);
	double deadline = monotime() + (double)(timeout > 0 ? timeout : 20);
	uint32_t be;
	size_t len;
	char *msg;
	XDR xdrs;
	int ok;

	if (read_full(STDIN_FILENO, &be, sizeof(be), deadline) == -1) {
		log_warn("cannot read the claim from the startd");
		return -1;
	}
	len = ntohl(be);
	/* It reached the startd as one RPC request. */
	if (len == 0 || len > RPC_MAX_FRAGMENT) {
		log_warnx("the claim from the startd is %zu bytes long", len);
		return -1;
	}
	msg = xmalloc(len);
	if (read_full(STDIN_FILENO, msg, len, deadline) == -1) {
		log_warn("cannot read the claim from the startd");
		free(msg);
		return -1;
	}
	memset(c, 0, sizeof(*c));
	xdrmem_create(&xdrs, msg, (u_int)len, XDR_DECODE);
	ok = xdr_claim_x(&xdrs, c);
	xdr_destroy(&xdrs);
	explicit_bzero(msg, len);
	free(msg);
	if (!ok) {
		log_warnx("the claim from the startd does not decode");
		xdr_free((xdrproc_t)xdr_claim_x, (char *)c);
		return -1;
	}
	return 0;
}

static void	tick(void *);

static void
arm_tick(double delay)
{
	event_timer_cancel(tick_timer);
	tick_timer = event_timer_add(delay, tick, NULL);
}

static void
tick(void *arg)
{
	long interval = param_int("STARTER_UPDATE_INTERVAL", 2);
	int r;

	tick_timer = 0;
	if (!job.running)
		return;
	limits_check(&job);
	/* Without the shadow, the job runs on while its lease lasts. */
	if (shadow_is_disconnected() && !shadow_back()) {
		if (startd_gone)
			orphan_give_up();
		arm_tick(1.0);
		return;
	}
	if ((r = job.u->tick(&job)) == -1) {
		if (!shadow_is_disconnected())
			starter_lost();
		arm_tick(1.0);
		return;
	}
	arm_tick(r == 1 ? 0.0 : (double)(interval > 0 ? interval : 1));
}

/* The job's process ended: report, tidy, leave. */
static void __attribute__((noreturn))
job_ended(int status, const struct rusage *ru)
{
	exit_x x;

	job.running = 0;
	event_timer_cancel(job.kill_timer);
	event_timer_cancel(tick_timer);
	/* Whatever it left behind in its group goes too. */
	job_signal(&job, SIGKILL);
	if (WIFSIGNALED(status))
		log_info("job %d.%d (pid %d) died of signal %d", job.cluster,
		    job.proc, (int)job.pid, WTERMSIG(status));
	else
		log_info("job %d.%d (pid %d) exited with status %d",
		    job.cluster, job.proc, (int)job.pid, WEXITSTATUS(status));
	memset(&x, 0, sizeof(x));
	x.message = "";
	x.user_cpu = (double)ru->ru_utime.tv_sec +
	    (double)ru->ru_utime.tv_usec / 1e6;
	x.sys_cpu = (double)ru->ru_stime.tv_sec +
	    (double)ru->ru_stime.tv_usec / 1e6;
	x.image_size = ru->ru_maxrss;	/* KiB */
	/* Disconnected under a lease: the report waits for the shadow. */
	for (;;) {
		if (shadow_is_disconnected())
			await_shadow();
		if (job.u->finish(&job, status, &x) == -1) {
			if (shadow_is_disconnected())
				continue;
			starter_lost();
		}
		if (job.over[0] != '\0') {
			/* Over a limit: held, not run again elsewhere. */
			x.how = EXIT_FAILED;
			x.code = job.over_code;
			x.message = job.over;
		}
		if (shadow_exit(&x) == 0)
			break;
		if (!shadow_is_disconnected())
			starter_lost();
	}
	if (shadow_is_leaving())
		log_info("job %d.%d stopped on purpose: its shadow went away "
		    "because the job was removed or put on hold", job.cluster,
		    job.proc);
	shadow_disconnect();
	job_clean_dir(&job);
	starter_exit(0);
}

static void
on_child(int signo)
{
	struct rusage ru;
	pid_t r;
	int status;

	if (!job.running || job.pid <= 0)
		return;
	memset(&ru, 0, sizeof(ru));
	r = wait4(job.pid, &status, WNOHANG, &ru);
	if (r == job.pid) {
		job_init_status(&job, &status);
		limits_ended(&job, status);
		job_ended(status, &ru);
	}
}

static void
on_vacate(int signo)
{
	if (job.leave != LEAVE_NONE)
		return;
	job.leave = LEAVE_VACATE;
	if (!job.running)
		return;		/* checked before the job starts */
	log_info("vacating job %d.%d", job.cluster, job.proc);
	job.u->vacate(&job);
}

static void
on_kill(int signo)
{
	job.leave = LEAVE_KILL;
	if (!job.running)
		return;
	log_info("killing job %d.%d", job.cluster, job.proc);
	event_timer_cancel(job.kill_timer);
	job_signal(&job, SIGKILL);
}

static void
on_suspend(int signo)
{
	if (!job.running || job.suspended || job.leave != LEAVE_NONE)
		return;
	log_info("suspending job %d.%d", job.cluster, job.proc);
	job_signal(&job, SIGSTOP);
	job.suspended = 1;
	if (shadow_event(EVENT_SUSPENDED, "") == -1 &&
	    !shadow_is_disconnected())
		starter_lost();
}

static void
on_continue(int signo)
{
	if (!job.running || !job.suspended)
		return;
	log_info("continuing job %d.%d", job.cluster, job.proc);
	job_signal(&job, SIGCONT);
	job.suspended = 0;
	if (shadow_event(EVENT_UNSUSPENDED, "") == -1 &&
	    !shadow_is_disconnected())
		starter_lost();
}

/*
 * What the startd says on our standard input after the claim: lines
 * "SHADOW <ip:port>" (the job has a new shadow, STARTD_RECONNECT_JOB).
 * 1 while the startd is there, 0 at end of file (its death).
 */
static int
read_startd(int fd)
{
	static char line[256];
	static size_t len;
	char buf[256], *nl;
	ssize_t n;
	size_t i;

	n = read(fd, buf, sizeof(buf));
	if (n == -1)
		return errno == EINTR || errno == EAGAIN;
	if (n == 0)
		return 0;
	for (i = 0; i < (size_t)n; i++) {
		if (len < sizeof(line) - 1)
			line[len++] = buf[i];
		if (buf[i] != '\n')
			continue;
		line[len] = '\0';
		if ((nl = strchr(line, '\n')) != NULL)
			*nl = '\0';
		if (strncmp(line, "SHADOW <", 8) == 0)
			shadow_redirect(line + 7);
		len = 0;
	}
	return 1;
}

/* The startd's end of our standard input: end of file is its death. */
static void
on_startd(int fd, short revents, void *arg)
{
	if (read_startd(fd))
		return;
	event_fd_del(fd);
	startd_gone = 1;
	if (shadow_is_disconnected())
		orphan_give_up();
	log_warnx("the startd went away; vacating job %d.%d", job.cluster,
	    job.proc);
	on_vacate(SIGTERM);
}

static void
on_ignore(int signo)
{
}

static void
usage(void)
{
	fprintf(stderr, "usage: condor_starter\n"
	    "  (run by condor_startd, which writes the claim on its "
	    "standard input)\n");
}

/* Talk to the shadow and learn the job.  Fatal on failure. */
static void
starter_hello(claim_x *c)
{
	const char *host = param("HOST");
	long long cluster, proc;
	struct ad *slot;
	hello_res_x res;
	char err[256];

	if (shadow_connect(c->shadow_addr) == -1 ||
	    shadow_hello(c->capability, host ? host : "", &res) == -1)
		starter_exit(1);
	if (res.code != 0) {
		log_warnx("the shadow at %s refused us: %s", c->shadow_addr,
		    res.message ? res.message : "");
		xdr_free((xdrproc_t)xdr_hello_res_x, (char *)&res);
		starter_exit(1);
	}
	/* The slot's GPUs, which the startd named in its copy of the ad. */
	if ((slot = ad_from_xdr(&c->job, err, sizeof(err))) != NULL) {
		if (ad_get_string(slot, "AssignedGPUs", &job.assigned_gpus) ==
		    -1)
			job.assigned_gpus = NULL;
		ad_free(slot);
	}
	job.ad = ad_from_xdr(&res.job, err, sizeof(err));
	job.exe_size = res.executable_size;
	job.syscall_addr = xstrdup(res.syscall_addr ? res.syscall_addr : "");
	job.capability = xstrdup(c->capability ? c->capability : "");
	xdr_free((xdrproc_t)xdr_hello_res_x, (char *)&res);
	if (job.ad == NULL || ad_get_int(job.ad, "ClusterId", &cluster) ==
	    -1 || ad_get_int(job.ad, "ProcId", &proc) == -1) {
		job.cluster = job.proc = -1;
		starter_fail(job.ad == NULL ? "the job ad does not decode" :
		    "the job ad has no ClusterId or ProcId", 1);
	}
	job.cluster = (int)cluster;
	job.proc = (int)proc;
	if (ad_get_string(job.ad, "Universe", &job.universe) == -1)
		job.universe = xstrdup("standard");
	log_info("job %d.%d (%s universe) from the shadow at %s",
	    job.cluster, job.proc, job.universe, c->shadow_addr);
}

int
main(int argc, char **argv)
{
	char err[1024], *shadow_addr;
	const char *logpath;
	claim_x c;
	long interval;
	long long lease;
	int jobs_fault;

	if (argc > 1) {
		usage();
		return strcmp(argv[1], "-h") == 0 ? 0 : 2;
	}
	common_init(argv[0]);
	/* The starter acts for the job: it proves itself to the shadow with
	 * the claim's key alone and never holds the pool key. */
	auth_client_acts_for_user();
	logpath = param("STARTER_LOG");
	if (param("LOG") != NULL)
		daemon_mkdir(param("LOG"), 0755);
	if (logpath == NULL || log_open_file(logpath) == -1)
		log_warn("cannot open the log %s", logpath ? logpath :
		    "(STARTER_LOG is not set)");
	signal(SIGPIPE, SIG_IGN);
	event_init();
	event_signal_add(SIGTERM, on_vacate);
	event_signal_add(SIGQUIT, on_kill);
	event_signal_add(SIGINT, on_kill);
	event_signal_add(SIGTSTP, on_suspend);
	event_signal_add(SIGCONT, on_continue);
	event_signal_add(SIGCHLD, on_child);
	event_signal_add(SIGHUP, on_ignore);
	log_info("starting (pid %d)", (int)getpid());

	if (read_claim(&c) == -1)
		starter_exit(1);
	starter_hello(&c);
	shadow_addr = xstrdup(c.shadow_addr ? c.shadow_addr : "");
	xdr_free((xdrproc_t)xdr_claim_x, (char *)&c);
	event_fd_add(STDIN_FILENO, POLLIN, on_startd, NULL);

	if ((job.u = universe_find(job.universe)) == NULL) {
		snprintf(err, sizeof(err), "unknown universe \"%s\"",
		    job.universe);
		starter_fail(err, 1);
	}
	/* Its owner's account where this host shares the submitter's
	 * users, else one of its own. */
	if (owner_account(&job, shadow_addr))
		owner_shared_fs(&job);
	else if (box_account(&job, err, sizeof(err)) == -1)
		starter_fail(err, 0);
	free(shadow_addr);
	if (job_make_dir(&job, err, sizeof(err)) == -1)
		starter_fail(err, 0);
	box_cgroup_make(&job);
	limits_memory(&job);
	box_memory_make(&job);
	if (job.u->prepare(&job, err, sizeof(err), &jobs_fault) == -1) {
		if (shadow_is_lost())
			starter_lost();
		starter_fail(err, jobs_fault);
	}
	/* Orders that came while we were busy fetching. */
	event_run_once(0);
	if (job.leave != LEAVE_NONE)
		starter_fail(startd_gone ? "the startd went away before the "
		    "job started" : "vacated before the job started", 0);
	if (job_spawn(&job, err, sizeof(err), &jobs_fault) == -1)
		starter_fail(err, jobs_fault);
	/* A job with a lease outlives a lost shadow for a while.  A
	 * standard job's system call in flight waits meanwhile on its
	 * own connection, which TCP carries on once the link is back; no
	 * checkpoint is taken while the shadow is away. */
	if (ad_get_int(job.ad, "JobLeaseDuration", &lease) == 0 && lease > 0)
		shadow_set_lease(lease < 10000000 ? (long)lease : 10000000,
		    job.capability, param("HOST"));
	interval = param_int("STARTER_UPDATE_INTERVAL", 2);
	arm_tick((double)(interval > 0 ? interval : 1));
	/* It may have ended already; SIGCHLD would not come again. */
	on_child(SIGCHLD);
	event_dispatch();
	starter_exit(0);
}
