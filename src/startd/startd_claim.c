/*
 * startd_claim.c: running a job on this machine.
 *
 * A shadow asks for the machine with STARTD_REQUEST_CLAIM, presenting
 * the machine's claim id: made here (AUTH_CLAIM_ID_BYTES from
 * getrandom), advertised in the machine ad, which the collector shows
 * to the pool's daemons only, given by the negotiator to the schedd it
 * matched, and by the schedd to its shadow; a new one after every
 * claim.  No other caller can claim the machine.  The answer
 * is decided here and now, not by the matchmaker's stale view: the
 * machine must be Idle after a fresh look (the owner may just have come
 * back), START must be TRUE with the job as its target, and the job's
 * Requirements TRUE with this machine as theirs.  Then a starter is
 * spawned and handed the claim on a pipe, its standard input: the
 * capability is a secret and must not show in ps.  The startd keeps the
 * pipe's write end open for as long as the starter lives, so that a
 * startd that dies (even by SIGKILL) is noticed at once by its starter,
 * which then vacates the job rather than run it unsupervised.
 *
 * The starter is the only handle on the job: signals tell it what to
 * do (startd.h), and its exit ends the claim.  A starter that does not
 * obey is escalated: a vacate that takes longer than VACATE_GRACE plus
 * two RPC_TIMEOUTs becomes a kill, and a kill that takes longer than
 * RPC_TIMEOUT becomes SIGKILL of the starter (its job dies with it: the
 * starter set its parent-death signal).
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <arpa/inet.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rpc/rpc.h>

#include "ad.h"
#include "auth.h"
#include "config.h"
#include "event.h"
#include "expr.h"
#include "log.h"
#include "machine.h"
#include "startd_owner.h"
#include "rpcutil.h"
#include "startd.h"
#include "startd_rpc.h"
#include "xalloc.h"

#define CAPABILITY_MIN	16	/* bytes; shorter is guessable */

struct claim {
	pid_t	 pid;		/* the starter; 0: no claim */
	int	 pipe_fd;	/* write end of its stdin; -1 when closed */
	char	*msg;		/* the claim as written on the pipe */
	size_t	 msg_len, msg_off;
	char	*capability;
	char	*owner;		/* RemoteUser */
	char	*schedd;	/* RemoteSchedd */
	char	 job_id[32];	/* "C.P" */
	struct ad *job;		/* the job ad: TARGET of the policy */
	time_t	 start;		/* JobStart */
	long	 escalate_timer;
	double	 stop_sent;	/* monotime of the last SIGTSTP; 0 none */
};

static struct claim claim = { .pipe_fd = -1 };
/* Claims accepted since start-up, advertised as NumClaims: a matchmaker
 * that gave this machine out knows its ad is current once it moved. */
static long long num_claims;

int
claim_active(void)
{
	return claim.pid != 0;
}

pid_t
claim_starter_pid(void)
{
	return claim.pid;
}

/* The id the next claim must present. */
static char	claim_id[2 * AUTH_CLAIM_ID_BYTES + 1];

static void
claim_id_new(void)
{
	auth_random_hex(claim_id, AUTH_CLAIM_ID_BYTES);
}

void
claim_add_attrs(struct ad *ad)
{
	ad_set_int(ad, "NumClaims", num_claims);
	if (claim_id[0] == '\0')
		claim_id_new();
	if (!claim_active()) {
		ad_set_string(ad, AUTH_CLAIM_ID_ATTR, claim_id);
		return;
	}
	ad_set_string(ad, "RemoteUser", claim.owner);
	ad_set_string(ad, "RemoteSchedd", claim.schedd);
	ad_set_string(ad, "JobId", claim.job_id);
	ad_set_int(ad, "JobStart", (long long)claim.start);
}


static void
claim_clear(void)
{
	event_timer_cancel(claim.escalate_timer);
	if (claim.pipe_fd != -1) {
		event_fd_del(claim.pipe_fd);
		close(claim.pipe_fd);
	}
	free(claim.msg);
	if (claim.capability != NULL)
		explicit_bzero(claim.capability, strlen(claim.capability));
	free(claim.capability);
	free(claim.owner);
	free(claim.schedd);
	ad_free(claim.job);
	memset(&claim, 0, sizeof(claim));
	claim.pipe_fd = -1;
	/* Whoever saw the last one cannot claim with it again. */
	claim_id_new();
}

/* Send SIG to the starter; 0 or -1 (logged). */
static int
signal_starter(int sig, const char *name)
{
	if (!claim_active())
		return -1;
	if (kill(claim.pid, sig) == -1) {
		log_warn("cannot send %s to the starter (pid %d)", name,
		    (int)claim.pid);
		return -1;
	}
	return 0;
}

static void	escalate(void *);

static void
arm_escalation(long seconds)
{
	event_timer_cancel(claim.escalate_timer);
	claim.escalate_timer = event_timer_add((double)seconds, escalate,
	    NULL);
}

/* The starter did not leave in time: push harder. */
static void
escalate(void *arg)
{
	claim.escalate_timer = 0;
	if (!claim_active())
		return;
	if (startd_state_get() == STATE_VACATING) {
		claim_kill("the vacate took too long");
		return;
	}
	log_warnx("the starter (pid %d) ignores its kill order; SIGKILL",
	    (int)claim.pid);
	signal_starter(SIGKILL, "SIGKILL");
}

/*
 * Does the starter catch SIGTSTP yet?  Sent before it does (it is just
 * starting), the signal would stop the starter itself rather than its
 * job.  1 yes, 0 not yet, -1 cannot tell (then it is sent anyway: a
 * starter past its first moments always catches it).
 */
static int
starter_catches_tstp(void)
{
	char path[64], *text;
	int r;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)claim.pid);
	if ((text = machine_read_file(path)) == NULL)
		return -1;
	r = policy_catches_signal(text, SIGTSTP);
	free(text);
	return r;
}

/* Tell the starter to stop its job, if it can hear it now. */
static void
send_stop(void)
{
	if (starter_catches_tstp() == 0) {
		log_debug("the starter (pid %d) is not ready for SIGTSTP "
		    "yet; at the next look", (int)claim.pid);
		return;
	}
	if (signal_starter(SIGTSTP, "SIGTSTP") == 0)
		claim.stop_sent = monotime();
}

int
claim_suspend(const char *why)
{
	if (!claim_active() || startd_state_get() != STATE_CLAIMED)
		return -1;
	log_info("suspending job %s: %s", claim.job_id, why);
	claim.stop_sent = 0;
	send_stop();
	startd_state_set(STATE_SUSPENDED, why);
	return 0;
}

int
claim_continue(const char *why)
{
	if (!claim_active() || startd_state_get() != STATE_SUSPENDED)
		return -1;
	log_info("continuing job %s: %s", claim.job_id, why);
	if (signal_starter(SIGCONT, "SIGCONT") == -1)
		return -1;
	claim.stop_sent = 0;
	startd_state_set(STATE_CLAIMED, why);
	return 0;
}

int
claim_vacate(const char *why)
{
	long grace = param_int("VACATE_GRACE", 10);
	long timeout = param_int("RPC_TIMEOUT", 20);
	enum startd_state s = startd_state_get();

	if (!claim_active() || (s != STATE_CLAIMED && s != STATE_SUSPENDED))
		return -1;
	log_info("vacating job %s: %s", claim.job_id, why);
	if (signal_starter(SIGTERM, "SIGTERM") == -1)
		return -1;
	startd_state_set(STATE_VACATING, why);
	arm_escalation((grace > 0 ? grace : 0) + 2 * (timeout > 0 ?
	    timeout : 20));
	return 0;
}

int
claim_kill(const char *why)
{
	long timeout = param_int("RPC_TIMEOUT", 20);

	if (!claim_active() || startd_state_get() == STATE_KILLING)
		return -1;
	log_info("killing job %s: %s", claim.job_id, why);
	if (signal_starter(SIGQUIT, "SIGQUIT") == -1)
		return -1;
	startd_state_set(STATE_KILLING, why);
	arm_escalation(timeout > 0 ? timeout : 20);
	return 0;
}

int
claim_policy(const struct ad *machine)
{
	enum startd_state s = startd_state_get();
	char why[256];

	if (!claim_active())
		return 0;
	switch (policy_claim_action(s, machine, claim.job, why,
	    sizeof(why))) {
	case POLICY_DO_SUSPEND:
		return claim_suspend(why) == 0;
	case POLICY_DO_CONTINUE:
		return claim_continue(why) == 0;
	case POLICY_DO_VACATE:
		return claim_vacate(why) == 0;
	case POLICY_DO_KILL:
		return claim_kill(why) == 0;
	case POLICY_NONE:
		break;
	}
	/*
	 * Suspended, but is the job stopped?  The order may have come
	 * before the starter could hear it, or before the job existed
	 * (the starter was still fetching it): say it again.  The starter
	 * ignores the order for a job it already stopped.
	 */
	if (s == STATE_SUSPENDED && (claim.stop_sent == 0 ||
	    (load_job_stopped() == 0 && monotime() - claim.stop_sent >=
	    1.0)))
		send_stop();
	return 0;
}

void
claim_shutdown(void)
{
	if (claim_active() && startd_state_get() != STATE_VACATING &&
	    startd_state_get() != STATE_KILLING)
		claim_vacate("the startd is shutting down");
}

int
claim_child_exit(pid_t pid, int status)
{
	if (!claim_active() || pid != claim.pid)
		return 0;
	if (WIFEXITED(status))
		log_info("the starter of job %s (pid %d) exited with status "
		    "%d", claim.job_id, (int)pid, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		log_info("the starter of job %s (pid %d) died of signal %d",
		    claim.job_id, (int)pid, WTERMSIG(status));
	claim_clear();
	startd_job_left();
	return 1;
}

/* Write the rest of the claim to the starter's standard input. */
static void
claim_write(int fd, short revents, void *arg)
{
	ssize_t n;

	while (claim.msg_off < claim.msg_len) {
		n = write(fd, claim.msg + claim.msg_off,
		    claim.msg_len - claim.msg_off);
		if (n > 0) {
			claim.msg_off += (size_t)n;
			continue;
		}
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			return;
		/* The starter died before reading: child_exit tidies. */
		log_warn("cannot hand the claim to the starter (pid %d)",
		    (int)claim.pid);
		event_fd_del(fd);
		return;
	}
	/* Done; the pipe stays open as the starter's lifeline. */
	event_fd_del(fd);
	explicit_bzero(claim.msg, claim.msg_len);
	free(claim.msg);
	claim.msg = NULL;
}

/*
 * The claim as the starter reads it: a 4-byte length in network order,
 * then claim_x in XDR.
 */
static char *
claim_encode(claim_x *c, size_t *lenp)
{
	unsigned long size = xdr_sizeof((xdrproc_t)xdr_claim_x, c);
	uint32_t be;
	char *msg;
	XDR xdrs;

	msg = xmalloc(4 + size);
	be = htonl((uint32_t)size);
	memcpy(msg, &be, 4);
	xdrmem_create(&xdrs, msg + 4, (u_int)size, XDR_ENCODE);
	if (!xdr_claim_x(&xdrs, c)) {
		xdr_destroy(&xdrs);
		free(msg);
		return NULL;
	}
	xdr_destroy(&xdrs);
	*lenp = 4 + size;
	return msg;
}

/* Start the starter with the claim C on its standard input. */
static int
spawn_starter(claim_x *c, char *err, size_t errlen)
{
	const char *starter = param("STARTER");
	int p[2];
	pid_t pid;

	if (starter == NULL || access(starter, X_OK) == -1) {
		snprintf(err, errlen, "cannot run the starter %s: %s",
		    starter ? starter : "(STARTER is not set)",
		    strerror(errno));
		return -1;
	}
	if ((claim.msg = claim_encode(c, &claim.msg_len)) == NULL) {
		snprintf(err, errlen, "cannot encode the claim");
		return -1;
	}
	claim.msg_off = 0;
	if (pipe2(p, O_CLOEXEC) == -1) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	if ((pid = fork()) == -1) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (dup2(p[0], STDIN_FILENO) == -1)
			_exit(127);
		execl(starter, starter, (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	claim.pid = pid;
	claim.pipe_fd = p[1];
	claim_write(p[1], POLLOUT, NULL);
	if (claim.msg != NULL)
		event_fd_add(p[1], POLLOUT, claim_write, NULL);
	return 0;
}

/* Is TEXT a plausible capability: long enough, printable, no space? */
static int
capability_valid(const char *text)
{
	size_t len = strlen(text);
	const char *p;

	if (len < CAPABILITY_MIN || len > CLAIM_CAPABILITY_MAX)
		return 0;
	for (p = text; *p; p++)
		if (!isgraph((unsigned char)*p))
			return 0;
	return 1;
}

/* Evaluate NAME of MY against TARGET: 1 TRUE, 0 not; WHAT describes. */
static int
eval_true(const struct ad *my, const struct ad *target, const char *name,
    const char **what)
{
	struct value v;
	int r;

	ad_eval(my, target, name, &v);
	switch (v.type) {
	case VAL_UNDEFINED:
		*what = "UNDEFINED";
		r = 0;
		break;
	case VAL_ERROR:
		*what = "ERROR";
		r = 0;
		break;
	default:
		r = value_is_true(&v);
		*what = r ? "TRUE" : "FALSE";
		break;
	}
	value_free(&v);
	return r;
}

static int	capability_equal(const char *, const char *);

bool_t
startd_request_claim_1_svc(claim_x *arg, status_x *res, struct svc_req *req)
{
	struct sockaddr_in sin;
	const struct ad *machine;
	long long cluster, proc;
	struct ad *job;
	const char *what;
	char from[64], err[512], *owner = NULL;

	memset(res, 0, sizeof(*res));
	rpc_caller_ip(req, from, sizeof(from));
	/* A shadow claims from a host allowed to change our state. */
	if (!rpc_host_allowed(req, "HOSTALLOW_WRITE")) {
		log_warnx("claim from %s refused (HOSTALLOW_WRITE)", from);
		rpc_status(res, EPERM, "not allowed to claim this machine");
		return TRUE;
	}
	if ((job = ad_from_xdr(&arg->job, err, sizeof(err))) == NULL) {
		log_warnx("claim from %s: bad job ad: %s", from, err);
		rpc_status(res, EINVAL, "bad job ad: %s", err);
		return TRUE;
	}
	if (ad_get_int(job, "ClusterId", &cluster) == -1 ||
	    ad_get_int(job, "ProcId", &proc) == -1 ||
	    ad_get_string(job, "Owner", &owner) == -1 ||
	    !capability_valid(arg->capability) ||
	    addr_parse(arg->shadow_addr, &sin) == -1) {
		log_warnx("claim from %s: malformed (job id, Owner, "
		    "capability or shadow address)", from);
		rpc_status(res, EINVAL, "malformed claim: it needs ClusterId, "
		    "ProcId, Owner, a capability and the shadow's address");
		goto out;
	}
	if (claim_id[0] == '\0' || !capability_equal(arg->capability,
	    claim_id)) {
		log_warnx("claim for job %lld.%lld from %s refused: not this "
		    "machine's claim id", cluster, proc, from);
		rpc_status(res, EPERM, "not this machine's claim id: a claim "
		    "needs a match from the negotiator");
		goto out;
	}
	/* A fresh look: the owner may have come back since the match. */
	startd_refresh();
	if (startd_state_get() != STATE_IDLE) {
		log_info("claim for job %lld.%lld from %s refused: the "
		    "machine is %s", cluster, proc, from,
		    startd_state_name(startd_state_get()));
		if (startd_state_get() == STATE_OWNER)
			rpc_status(res, EBUSY, "the machine is in the Owner "
			    "state (START is FALSE): the owner is back");
		else
			rpc_status(res, EBUSY, "the machine is %s: it runs "
			    "another job", startd_state_name(
			    startd_state_get()));
		goto out;
	}
	machine = startd_machine_ad();
	if (!eval_true(machine, job, "START", &what)) {
		log_info("claim for job %lld.%lld from %s refused: START is "
		    "%s for it", cluster, proc, from, what);
		rpc_status(res, EPERM, "START is %s for this job%s", what,
		    strcmp(what, "FALSE") == 0 ? ": the owner is back or "
		    "the machine does not want it" : "");
		goto out;
	}
	if (ad_lookup(job, "Requirements") != NULL &&
	    !eval_true(job, machine, "Requirements", &what)) {
		log_info("claim for job %lld.%lld from %s refused: its "
		    "Requirements are %s here", cluster, proc, from, what);
		rpc_status(res, EPERM, "the job's Requirements are %s on "
		    "this machine", what);
		goto out;
	}
	if (spawn_starter(arg, err, sizeof(err)) == -1) {
		log_warnx("claim for job %lld.%lld: %s", cluster, proc, err);
		claim_clear();
		rpc_status(res, EAGAIN, "%s", err);
		goto out;
	}
	claim.capability = xstrdup(arg->capability);
	claim.owner = owner;
	owner = NULL;
	claim.schedd = xstrdup(arg->schedd_name);
	snprintf(claim.job_id, sizeof(claim.job_id), "%lld.%lld", cluster,
	    proc);
	claim.start = time(NULL);
	claim.job = job;
	job = NULL;
	num_claims++;
	log_info("claimed by job %s of %s (schedd %s, shadow %s); starter "
	    "pid %d", claim.job_id, claim.owner, claim.schedd,
	    arg->shadow_addr, (int)claim.pid);
	startd_state_set(STATE_CLAIMED, "a claim was accepted");
	rpc_status(res, 0, "starter pid %d", (int)claim.pid);
out:
	free(owner);
	ad_free(job);
	return TRUE;
}

bool_t
startd_vacate_1_svc(void *arg, status_x *res, struct svc_req *req)
{
	char from[64], why[128];

	memset(res, 0, sizeof(*res));
	rpc_caller_ip(req, from, sizeof(from));
	if (!rpc_host_allowed(req, "HOSTALLOW_WRITE")) {
		log_warnx("vacate from %s refused (HOSTALLOW_WRITE)", from);
		rpc_status(res, EPERM, "not allowed to vacate this machine");
		return TRUE;
	}
	if (!claim_active()) {
		rpc_status(res, 0, "no job is running on %s",
		    startd_host_name());
		return TRUE;
	}
	snprintf(why, sizeof(why), "vacate request from %s", from);
	switch (startd_state_get()) {
	case STATE_VACATING:
	case STATE_KILLING:
		rpc_status(res, 0, "job %s is already leaving", claim.job_id);
		break;
	default:
		if (claim_vacate(why) == -1)
			rpc_status(res, EAGAIN, "cannot vacate job %s",
			    claim.job_id);
		else
			rpc_status(res, 0, "vacating job %s", claim.job_id);
		break;
	}
	return TRUE;
}

/* Compare without leaking where the first difference is. */
static int
capability_equal(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i;
	unsigned char d = 0;

	if (la != lb)
		return 0;
	for (i = 0; i < la; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

bool_t
startd_release_claim_1_svc(char **arg, status_x *res, struct svc_req *req)
{
	char from[64];

	memset(res, 0, sizeof(*res));
	rpc_caller_ip(req, from, sizeof(from));
	if (!claim_active() || claim.capability == NULL ||
	    *arg == NULL || !capability_equal(*arg, claim.capability)) {
		log_warnx("release from %s refused: not the claim's holder",
		    from);
		rpc_status(res, EPERM, "not the holder of a claim here");
		return TRUE;
	}
	if (startd_state_get() == STATE_KILLING)
		rpc_status(res, 0, "job %s is already being killed",
		    claim.job_id);
	else if (claim_kill("its shadow released the claim") == -1)
		rpc_status(res, EAGAIN, "cannot kill job %s", claim.job_id);
	else
		rpc_status(res, 0, "killing job %s", claim.job_id);
	return TRUE;
}
