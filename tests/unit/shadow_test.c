/*
 * shadow_test.c: a job's run from shadow to starter and back, without
 * the rest of the pool: a real condor_startd (which spawns real
 * starters) and real condor_shadow processes, with a stand-in for the
 * schedd served here on $(SPOOL)/.schedd_socket.  Covers the claim and
 * its refusals, executable, input and output transfer, Args and Env,
 * exit codes and signals, the user log, mail, holds for missing input,
 * condor_vacate, removal (SIGTERM to the shadow), a starter and a startd
 * killed under a running job, and garbage claims.
 *
 * Run from the top of the tree after make (it runs sbin/condor_startd,
 * sbin/condor_shadow and bin/condor_vacate).
 *
 * checks: 73
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <netinet/in.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ad.h"
#include "auth.h"
#include "buf.h"
#include "config.h"
#include "daemon.h"
#include "event.h"
#include "expr.h"
#include "log.h"
#include "rpcutil.h"
#include "schedd_rpc.h"
#include "shadow_rpc.h"
#include "startd_rpc.h"
#include "test.h"
#include "userlog.h"
#include "xalloc.h"

static char	 dir[] = "/tmp/shadow_test.XXXXXX";
static char	 top[PATH_MAX];
static char	 startd_addr[ADDR_STRLEN];
static pid_t	 startd_pid;
static struct ad *job;		/* what the fake schedd holds */
static int	 updates;	/* SCHEDD_JOB_UPDATE calls */

static char *
path_of(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static void
write_file(const char *name, const char *text, mode_t mode)
{
	char *path = path_of(name);
	FILE *f = fopen(path, "w");

	if (f == NULL || fputs(text, f) == EOF || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
	chmod(path, mode);
	free(path);
}

/* The whole of NAME (relative to the test directory), or NULL. */
static char *
slurp(const char *name)
{
	char *path = name[0] == '/' ? xstrdup(name) : path_of(name);
	char *text = NULL;
	size_t len = 0, cap = 0, n;
	FILE *f = fopen(path, "r");

	free(path);
	if (f == NULL)
		return NULL;
	/* Read to the end: /proc files have no size. */
	do {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			text = xreallocarray(text, cap, 1);
		}
		n = fread(text + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	text[len] = '\0';
	fclose(f);
	return text;
}

static bool_t
xdr_nothing(XDR *xdrs, void *p)
{
	return TRUE;
}

/* The schedd, as far as a shadow can tell. */
static void
fake_schedd(struct svc_req *req, SVCXPRT *xprt)
{
	switch (req->rq_proc) {
	case SCHEDD_NULL:
		svc_sendreply(xprt, (xdrproc_t)xdr_nothing, NULL);
		return;
	case SCHEDD_QUERY: {
		job_query_res_x res;
		job_query_x q;

		memset(&q, 0, sizeof(q));
		if (!svc_getargs(xprt, (xdrproc_t)xdr_job_query_x,
		    (char *)&q)) {
			svcerr_decode(xprt);
			return;
		}
		memset(&res, 0, sizeof(res));
		res.message = "";
		if (job != NULL) {
			res.jobs.jobs_len = 1;
			res.jobs.jobs_val = xcalloc(1, sizeof(ad_x));
			ad_to_xdr(job, &res.jobs.jobs_val[0]);
		}
		svc_sendreply(xprt, (xdrproc_t)xdr_job_query_res_x,
		    (char *)&res);
		if (job != NULL) {
			ad_x_free(&res.jobs.jobs_val[0]);
			free(res.jobs.jobs_val);
		}
		svc_freeargs(xprt, (xdrproc_t)xdr_job_query_x, (char *)&q);
		return;
	}
	case SCHEDD_JOB_UPDATE: {
		job_update_x u;
		status_x res;
		struct ad *a;
		char err[256];

		memset(&u, 0, sizeof(u));
		if (!svc_getargs(xprt, (xdrproc_t)xdr_job_update_x,
		    (char *)&u)) {
			svcerr_decode(xprt);
			return;
		}
		a = ad_from_xdr(&u.attrs, err, sizeof(err));
		if (a != NULL && job != NULL)
			ad_merge(job, a);
		ad_free(a);
		updates++;
		res.code = 0;
		res.message = "";
		svc_sendreply(xprt, (xdrproc_t)xdr_status_x, (char *)&res);
		svc_freeargs(xprt, (xdrproc_t)xdr_job_update_x, (char *)&u);
		return;
	}
	default:
		svcerr_noproc(xprt);
	}
}

/* Start condor_startd and learn its address. */
static void
start_startd(void)
{
	char *exe = xasprintf("%s/sbin/condor_startd", top), *addr = NULL;
	char *file = path_of("log/.startd_address");
	double deadline;

	unlink(file);
	startd_addr[0] = '\0';
	if ((startd_pid = fork()) == 0) {
		int fd = open("/dev/null", O_RDWR);

		dup2(fd, 1);
		dup2(fd, 2);
		execl(exe, exe, "-f", (char *)NULL);
		_exit(127);
	}
	deadline = monotime() + 10;
	while ((addr = daemon_read_address("startd")) == NULL &&
	    monotime() < deadline)
		usleep(50000);
	if (addr != NULL) {
		snprintf(startd_addr, sizeof(startd_addr), "%s", addr);
		free(addr);
	}
	free(file);
	free(exe);
}

static void
stop_startd(int sig)
{
	int status;

	if (startd_pid <= 0)
		return;
	kill(startd_pid, sig);
	waitpid(startd_pid, &status, 0);
	startd_pid = 0;
}

/* The startd's attribute NAME, "" if it does not answer.  The test runs
 * as the pool's daemons do (it may read the pool key), so the claim id
 * is not kept from it. */
static char *
startd_attr(const char *name)
{
	startd_query_res_x res;
	char err[256], *state = NULL;
	struct ad *ad;
	CLIENT *cl;

	cl = rpc_connect(startd_addr, PROG_STARTD, 1, 5, err, sizeof(err));
	if (cl == NULL)
		return xstrdup("");
	memset(&res, 0, sizeof(res));
	if (rpc_invoke(cl, STARTD_QUERY, (xdrproc_t)xdr_nothing, NULL,
	    (xdrproc_t)xdr_startd_query_res_x, &res, err, sizeof(err)) == 0) {
		if (res.code == 0 && (ad = ad_from_xdr(&res.ad, err,
		    sizeof(err))) != NULL) {
			ad_get_string(ad, name, &state);
			ad_free(ad);
		}
		xdr_free((xdrproc_t)xdr_startd_query_res_x, (char *)&res);
	}
	rpc_close(cl);
	return state ? state : xstrdup("");
}

static char *
startd_state(void)
{
	return startd_attr("State");
}

/* Wait until the startd is in STATE; 1 if it got there. */
static int
wait_state(const char *state, double secs)
{
	double deadline = monotime() + secs;
	char *s;
	int ok;

	do {
		s = startd_state();
		ok = strcmp(s, state) == 0;
		free(s);
		if (ok)
			return 1;
		usleep(100000);
	} while (monotime() < deadline);
	return 0;
}

/* Wait until no job holds the machine; 1 if none does. */
static int
wait_unclaimed(double secs)
{
	static const char *held[] = { "Claimed", "Suspended", "Vacating",
	    "Killing" };
	double deadline = monotime() + secs;
	size_t i;
	char *s;
	int busy;

	do {
		s = startd_state();
		for (busy = 0, i = 0; i < sizeof(held) / sizeof(held[0]); i++)
			busy |= strcmp(s, held[i]) == 0;
		free(s);
		if (!busy)
			return 1;
		usleep(100000);
	} while (monotime() < deadline);
	return 0;
}

/* A job ad for cluster C running SCRIPT (written to SPOOL). */
static struct ad *
new_job(int c, const char *script)
{
	struct ad *ad = ad_new();
	char *name;

	name = xasprintf("spool/cluster%d.ickpt", c);
	write_file(name, script, 0755);
	free(name);
	ad_set_int(ad, "ClusterId", c);
	ad_set_int(ad, "ProcId", 0);
	ad_set_string(ad, "Owner", getenv("USER") && geteuid() != 0 ?
	    getenv("USER") : "root");
	ad_set_string(ad, "Cmd", "/bin/job.sh");
	ad_set_string(ad, "Iwd", dir);
	ad_set_string(ad, "Universe", "vanilla");
	ad_set_int(ad, "QDate", (long long)time(NULL));
	ad_set_int(ad, "JobStatus", 1);
	ad_set_bool(ad, "Requirements", 1);
	return ad;
}

/* What to do while the job runs, DELAY seconds after the claim. */
typedef void	(*during_fn)(pid_t shadow);

/*
 * Run a shadow for the job ad in JOB until it exits; its exit status,
 * or -1 if it did not exit within 60 seconds (it is then killed).
 */
static int
run_shadow(const char *machine, during_fn during, double delay)
{
	char *exe = xasprintf("%s/sbin/condor_shadow", top), id[32], *claim_id;
	char key[AUTH_CLAIM_KEY_LEN + 1], err[256];
	long long c = 0;
	int kp[2];
	double deadline = monotime() + 60, claimed = 0;
	int status, done = 0;
	pid_t pid, r;

	ad_get_int(job, "ClusterId", &c);
	snprintf(id, sizeof(id), "%lld.0", c);
	/* The previous test's claim must be gone first: its starter may
	 * still be cleaning up on a loaded machine, and the startd would
	 * refuse this claim ("it runs another job"). */
	if (startd_pid > 0)
		wait_unclaimed(30);
	/* A job that writes its pid there must not be mistaken for the
	 * previous one before it has run. */
	unlink("pid.txt");
	/* What the schedd passes its shadow: the key it makes, with the
	 * pool key, of the claim id the negotiator had from the machine's
	 * ad, down a pipe. */
	claim_id = startd_pid > 0 ? startd_attr("ClaimId") : xstrdup("");
	key[0] = '\0';
	if (*claim_id != '\0' && (auth_have_pool_key() ||
	    auth_pool_key_load(0, err, sizeof(err)) == 0))
		(void)auth_claim_key(claim_id, (int)c, 0, key, sizeof(key));
	if (pipe(kp) == -1)
		kp[0] = kp[1] = -1;
	else {
		/* 64 bytes: the pipe holds them. */
		if (key[0] != '\0')
			(void)!write(kp[1], key, strlen(key));
		close(kp[1]);
	}
	if ((pid = fork()) == 0) {
		if (key[0] != '\0' && kp[0] != -1) {
			dup2(kp[0], 3);
			setenv("CONDOR_CLAIM_KEY_FD", "3", 1);
		}
		execl(exe, exe, id, startd_addr, machine, (char *)NULL);
		_exit(127);
	}
	if (kp[0] != -1)
		close(kp[0]);
	free(exe);
	free(claim_id);
	while (monotime() < deadline) {
		event_run_once(0.05);
		r = waitpid(pid, &status, WNOHANG);
		if (r == pid) {
			done = 1;
			break;
		}
		if (during != NULL && claimed == 0 &&
		    ad_lookup(job, "JobCurrentStartDate") != NULL)
			claimed = monotime();
		if (during != NULL && claimed > 0 &&
		    monotime() - claimed >= delay) {
			during(pid);
			during = NULL;
		}
	}
	if (!done) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 +
	    WTERMSIG(status);
}

static int
has(const char *text, const char *needle)
{
	return text != NULL && strstr(text, needle) != NULL;
}

/* Is the execute directory empty (every starter cleaned up)? */
static int
execute_empty(void)
{
	char *cmd = xasprintf("test -z \"$(ls -A %s/execute)\"", dir);
	int r = system(cmd);

	free(cmd);
	return r == 0;
}

static void
test_complete(void)
{
	char *out, *err, *log, *mail, *s = NULL;
	long long code = -1;
	int by_signal = -1;
	int rc;

	write_file("in1.txt", "hello input\n", 0644);
	job = new_job(1, "#!/bin/sh\n"
	    "echo \"args [$1] [$2] [$#]\"\n"
	    "echo \"env FOO=$FOO HOME_SET=${HOME:+yes} "
	    "LEAK=${CONDOR_CONFIG:-none}\"\n"
	    "echo \"uid $(id -u)\"\n"
	    "cat\n"
	    "echo oops >&2\n"
	    "exit 3\n");
	ad_set_string(job, "Args", "one \"two words\"");
	ad_set_string(job, "Env", "FOO=bar;BAZ=1");
	ad_set_string(job, "In", "in1.txt");
	ad_set_string(job, "Out", "out1.txt");
	ad_set_string(job, "Err", "err1.txt");
	ad_set_string(job, "UserLog", "log1.txt");
	ad_set_string(job, "Notification", "Complete");
	ad_set_string(job, "NotifyUser", "someone@example.org");
	write_file("out1.txt", "stale output from before\n", 0644);

	rc = run_shadow("exec1", NULL, 0);
	CHECK("complete: shadow exits 100", rc == SHADOW_EXIT_COMPLETED);
	out = slurp("out1.txt");
	err = slurp("err1.txt");
	CHECK("complete: Args split with quotes",
	    has(out, "args [one] [two words] [2]\n"));
	CHECK("complete: Env set, HOME set, no leak of the starter's",
	    has(out, "env FOO=bar HOME_SET=yes LEAK=none\n"));
	CHECK("complete: stdin delivered", has(out, "hello input\n"));
	CHECK("complete: the old output was replaced",
	    out != NULL && strncmp(out, "args", 4) == 0);
	CHECK("complete: not run as root", out != NULL && !has(out,
	    "uid 0\n"));
	CHECK_STR("complete: stderr delivered", err, "oops\n");
	CHECK("complete: ExitCode 3", ad_get_int(job, "ExitCode", &code) ==
	    0 && code == 3);
	CHECK("complete: ExitBySignal FALSE", ad_get_bool(job,
	    "ExitBySignal", &by_signal) == 0 && by_signal == 0);
	CHECK("complete: accounting sent",
	    ad_lookup(job, "RemoteUserCpu") != NULL &&
	    ad_lookup(job, "LocalUserCpu") != NULL &&
	    ad_lookup(job, "CompletionDate") != NULL &&
	    ad_lookup(job, "JobCurrentStartDate") != NULL);
	/* The schedd's own, never the shadow's. */
	CHECK("complete: schedd attributes left alone",
	    ad_lookup(job, "NumJobStarts") == NULL &&
	    ad_lookup(job, "RemoteHost") == NULL &&
	    ad_lookup(job, "RemoteWallClockTime") == NULL);
	CHECK("complete: LastRemoteHost", ad_get_string(job,
	    "LastRemoteHost", &s) == 0 && strcmp(s, "exec1") == 0);
	free(s);
	log = slurp("log1.txt");
	CHECK("complete: user log 001 with SlotName",
	    has(log, "001 (001.000.000)") && has(log, "SlotName: exec1"));
	CHECK("complete: user log 005 with return value 3",
	    has(log, "005 (001.000.000)") &&
	    has(log, "Normal termination (return value 3)"));
	mail = slurp("mail.txt");
	CHECK("complete: mail to NotifyUser",
	    has(mail, "to=someone@example.org\n") &&
	    has(mail, "Subject: [Condor] Condor Job 1.0") &&
	    has(mail, "exited normally with status 3"));
	CHECK("complete: the machine is Idle again", wait_state("Idle", 10));
	CHECK("complete: the execute directory is cleaned", execute_empty());
	free(out);
	free(err);
	free(log);
	free(mail);
	ad_free(job);
}

static void
test_signal(void)
{
	long long sig = 0;
	int by_signal = 0, rc;
	char *mail;

	write_file("mail.txt", "", 0644);
	job = new_job(2, "#!/bin/sh\nkill -KILL $$\n");
	ad_set_string(job, "Out", "out2.txt");
	ad_set_string(job, "Err", "out2.txt");
	ad_set_string(job, "Notification", "Error");
	rc = run_shadow("exec1", NULL, 0);
	CHECK("signal: shadow exits 100", rc == SHADOW_EXIT_COMPLETED);
	CHECK("signal: ExitBySignal TRUE, ExitSignal 9",
	    ad_get_bool(job, "ExitBySignal", &by_signal) == 0 &&
	    by_signal && ad_get_int(job, "ExitSignal", &sig) == 0 &&
	    sig == 9);
	mail = slurp("mail.txt");
	CHECK("signal: Notification Error mails a signal death",
	    has(mail, "died on signal 9"));
	free(mail);
	ad_free(job);

	write_file("mail.txt", "", 0644);
	job = new_job(3, "#!/bin/sh\necho both; echo err >&2\nexit 0\n");
	ad_set_string(job, "Out", "both3.txt");
	ad_set_string(job, "Err", "both3.txt");
	ad_set_string(job, "Notification", "Error");
	rc = run_shadow("exec1", NULL, 0);
	mail = slurp("both3.txt");
	CHECK("merged: Out and Err in one file", rc == 100 &&
	    has(mail, "both\n") && has(mail, "err\n"));
	free(mail);
	mail = slurp("mail.txt");
	CHECK("error: no mail for a clean exit", mail != NULL &&
	    *mail == '\0');
	free(mail);
	ad_free(job);
}

static void
test_hold(void)
{
	char *reason = NULL;
	int rc;

	job = new_job(4, "#!/bin/sh\ncat\n");
	ad_set_string(job, "In", "missing4.txt");
	ad_set_string(job, "Out", "out4.txt");
	rc = run_shadow("exec1", NULL, 0);
	CHECK("hold: shadow exits 112", rc == SHADOW_EXIT_HELD);
	ad_get_string(job, "HoldReason", &reason);
	CHECK("hold: HoldReason names the input file", reason != NULL &&
	    has(reason, "Cannot open input file") &&
	    has(reason, "missing4.txt") &&
	    has(reason, "No such file or directory"));
	free(reason);
	CHECK("hold: no machine was claimed",
	    ad_lookup(job, "JobCurrentStartDate") == NULL);
	ad_free(job);

	job = new_job(5, "#!/bin/sh\ntrue\n");
	ad_set_string(job, "Iwd", "/nonexistent/dir");
	rc = run_shadow("exec1", NULL, 0);
	reason = NULL;
	ad_get_string(job, "HoldReason", &reason);
	CHECK("hold: a missing Iwd holds the job", rc == SHADOW_EXIT_HELD &&
	    has(reason, "/nonexistent/dir"));
	free(reason);
	ad_free(job);

	/* Not a program this machine can run: the job's fault. */
	job = new_job(6, "\177ELF garbage, not a program\n");
	rc = run_shadow("exec1", NULL, 0);
	reason = NULL;
	ad_get_string(job, "HoldReason", &reason);
	CHECK("hold: an executable that cannot run holds the job",
	    rc == SHADOW_EXIT_HELD && has(reason, "Exec format error") &&
	    has(reason, "exec1"));
	free(reason);
	CHECK("hold: the machine is Idle again", wait_state("Idle", 10));
	ad_free(job);
}

static void
vacate_now(pid_t shadow)
{
	char *cmd = xasprintf("%s/bin/condor_vacate >%s/vacate.out "
	    "2>&1", top, dir);

	if (system(cmd) != 0)
		fprintf(stderr, "condor_vacate failed\n");
	free(cmd);
}

static void
test_vacate(void)
{
	char *log, *out;
	int rc;

	job = new_job(7, "#!/bin/sh\n"
	    "trap 'echo got TERM; exit 1' TERM\n"
	    "echo running\n"
	    "while :; do sleep 0.1; done\n");
	ad_set_string(job, "Out", "out7.txt");
	ad_set_string(job, "UserLog", "log7.txt");
	rc = run_shadow("exec1", vacate_now, 2.5);
	CHECK("vacate: shadow exits 107", rc == SHADOW_EXIT_REQUEUE);
	out = slurp("vacate.out");
	CHECK_STR("vacate: condor_vacate says so", out,
	    "Sent vacate command to exec1\n");
	free(out);
	out = slurp("out7.txt");
	CHECK("vacate: output grew while the job ran", has(out,
	    "running\n"));
	free(out);
	log = slurp("log7.txt");
	CHECK("vacate: user log 004 not checkpointed",
	    has(log, "004 (007.000.000)") &&
	    has(log, "Job was not checkpointed"));
	free(log);
	CHECK("vacate: usage counted",
	    ad_lookup(job, "RemoteUserCpu") != NULL);
	CHECK("vacate: the machine is Idle again", wait_state("Idle", 15));
	CHECK("vacate: execute directory cleaned", execute_empty());
	ad_free(job);
}

static pid_t	job_pid;	/* from the job's output */

/*
 * The job's pid, once its output reached us.  Up to 30 seconds: on a
 * loaded machine the job may start late, and what a test does next
 * (kill its starter, vacate it) must happen to a job that runs.
 */
static void
read_job_pid(void)
{
	double deadline = monotime() + 30;
	char *out;

	do {
		out = slurp("pid.txt");
		job_pid = out != NULL ? (pid_t)atoi(out) : 0;
		free(out);
		if (job_pid > 0)
			return;
		event_run_once(0.1);
	} while (monotime() < deadline);
}

static void
remove_now(pid_t shadow)
{
	read_job_pid();
	kill(shadow, SIGTERM);
}

/* Wait for PID to be gone (or a zombie nobody reaps). */
static int
gone(pid_t pid, double secs)
{
	double deadline = monotime() + secs;
	char path[64], *stat;

	if (pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	do {
		stat = slurp(path);
		if (stat == NULL || has(stat, ") Z "))
			return free(stat), 1;
		free(stat);
		usleep(100000);
	} while (monotime() < deadline);
	return 0;
}

static const char *sleeper = "#!/bin/sh\n"
    "echo $$ >pid\n"
    "cat pid\n"
    "exec sleep 300\n";

static void
test_remove(void)
{
	int rc;

	job = new_job(8, sleeper);
	ad_set_string(job, "Out", "pid.txt");
	rc = run_shadow("exec1", remove_now, 2.5);
	CHECK("remove: shadow exits 102 on SIGTERM", rc == SHADOW_EXIT_REMOVED);
	CHECK("remove: the job's pid was shipped", job_pid > 0);
	CHECK("remove: the job is killed", gone(job_pid, 10));
	CHECK("remove: the machine is Idle again", wait_state("Idle", 15));
	CHECK("remove: execute directory cleaned", execute_empty());
	ad_free(job);
}

/* A second shadow for the same machine, while the first one runs. */
static int	second_rc;

static void
claim_again(pid_t shadow)
{
	struct ad *first = job;

	job = new_job(10, "#!/bin/sh\ntrue\n");
	second_rc = run_shadow("exec1", NULL, 0);
	ad_free(job);
	job = first;
	read_job_pid();
	kill(shadow, SIGTERM);
}

static void
test_refuse(void)
{
	int rc;

	job = new_job(9, sleeper);
	ad_set_string(job, "Out", "pid.txt");
	rc = run_shadow("exec1", claim_again, 2);
	CHECK("refuse: a Claimed machine refuses a second claim (107)",
	    second_rc == SHADOW_EXIT_REQUEUE);
	CHECK("refuse: the first job was then removed",
	    rc == SHADOW_EXIT_REMOVED && gone(job_pid, 10));
	ad_free(job);
	wait_state("Idle", 15);

	/* The owner is back (START false): refused, 107. */
	write_file("condor_config.local", "START : FALSE\n", 0644);
	kill(startd_pid, SIGHUP);
	wait_state("Owner", 10);
	job = new_job(11, "#!/bin/sh\ntrue\n");
	rc = run_shadow("exec1", NULL, 0);
	CHECK("refuse: START FALSE refuses the claim (107)",
	    rc == SHADOW_EXIT_REQUEUE);
	ad_free(job);
	write_file("condor_config.local", "START : TRUE\n", 0644);
	kill(startd_pid, SIGHUP);
	CHECK("refuse: Idle again when START holds", wait_state("Idle", 10));

	/* The job's Requirements do not hold on this machine. */
	job = new_job(12, "#!/bin/sh\ntrue\n");
	ad_set_expr(job, "Requirements", "TARGET.Memory < 0", NULL, 0);
	rc = run_shadow("exec1", NULL, 0);
	CHECK("refuse: Requirements FALSE refuses the claim (107)",
	    rc == SHADOW_EXIT_REQUEUE);
	ad_free(job);
}

/* A big executable and a big output: many chunks each way. */
static void
test_big(void)
{
	struct buf script;
	struct stat st;
	char *path;
	int i, rc;

	buf_init(&script);
	buf_adds(&script, "#!/bin/sh\n"
	    "head -c 3000000 /dev/zero | tr '\\0' x\n"
	    "exit 0\n");
	/* Padding the shell never reads: 700 KiB of comment. */
	for (i = 0; i < 7000; i++)
		buf_adds(&script, "# padding padding padding padding padding "
		    "padding padding padding padding padding\n");
	job = new_job(16, script.data);
	buf_free(&script);
	ad_set_string(job, "Out", "big.txt");
	rc = run_shadow("exec1", NULL, 0);
	CHECK("big: completes", rc == SHADOW_EXIT_COMPLETED);
	path = path_of("big.txt");
	CHECK("big: 3,000,000 bytes of output arrive", stat(path, &st) == 0 &&
	    st.st_size == 3000000);
	free(path);
	ad_free(job);
}

/* Strangers at the shadow's port, while its job runs. */
static int	stranger_hello, stranger_get, stranger_garbage;

static void
strangers(pid_t shadow)
{
	char *log = slurp("log/StartLog"), *p, *q, addr[64], err[256];
	struct sockaddr_in sin;
	hello_res_x hres;
	get_res_x gres;
	hello_x h;
	get_x g;
	CLIENT *cl;
	int fd, i;

	/* The claim's shadow address, from the startd's log. */
	addr[0] = '\0';
	for (p = log; p != NULL && (q = strstr(p, "shadow <")) != NULL;
	    p = q + 1)
		sscanf(q + 7, "%63[^)]", addr);
	free(log);
	if ((cl = rpc_connect(addr, PROG_SHADOW, 1, 5, err,
	    sizeof(err))) == NULL)
		return;
	memset(&hres, 0, sizeof(hres));
	h.capability = "0000000000000000000000000000000000000000000000000";
	h.starter_host = "evil";
	h.starter_pid = 1;
	if (rpc_invoke(cl, SHADOW_HELLO, (xdrproc_t)xdr_hello_x, &h,
	    (xdrproc_t)xdr_hello_res_x, &hres, err, sizeof(err)) == 0) {
		stranger_hello = hres.code == EPERM &&
		    hres.job.attrs.attrs_len == 0;
		xdr_free((xdrproc_t)xdr_hello_res_x, (char *)&hres);
	}
	memset(&gres, 0, sizeof(gres));
	g.which = FILE_EXECUTABLE;
	g.offset = 0;
	g.length = 100;
	if (rpc_invoke(cl, SHADOW_GET, (xdrproc_t)xdr_get_x, &g,
	    (xdrproc_t)xdr_get_res_x, &gres, err, sizeof(err)) == 0) {
		stranger_get = gres.code == EPERM && gres.data.data_len == 0;
		xdr_free((xdrproc_t)xdr_get_res_x, (char *)&gres);
	}
	rpc_close(cl);
	/* Garbage: record marks that lie, then random bytes. */
	if (addr_parse(addr, &sin) == 0 &&
	    (fd = socket(AF_INET, SOCK_STREAM, 0)) != -1) {
		unsigned char junk[4096];

		for (i = 0; i < (int)sizeof(junk); i++)
			junk[i] = (unsigned char)(random() & 0xff);
		junk[0] = 0xff;	/* a huge last fragment */
		if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0 &&
		    write(fd, junk, sizeof(junk)) == (ssize_t)sizeof(junk))
			stranger_garbage = 1;
		close(fd);
	}
}

static void
test_strangers(void)
{
	char *out;
	int rc;

	job = new_job(17, "#!/bin/sh\nsleep 3\necho finished\n");
	ad_set_string(job, "Out", "out17.txt");
	rc = run_shadow("exec1", strangers, 1);
	CHECK("strangers: a wrong capability is refused", stranger_hello);
	CHECK("strangers: GET without HELLO is refused", stranger_get);
	CHECK("strangers: garbage was sent", stranger_garbage);
	out = slurp("out17.txt");
	CHECK("strangers: the job still completes", rc ==
	    SHADOW_EXIT_COMPLETED && has(out, "finished\n"));
	free(out);
	ad_free(job);
}

/* Files the shadow will not use, and a root EXECUTE_USER. */
static void
test_refusals(void)
{
	char *reason = NULL, *path, *log;
	int rc;

	path = path_of("fifo18");
	mkfifo(path, 0644);
	free(path);
	job = new_job(18, "#!/bin/sh\ncat\n");
	ad_set_string(job, "In", "fifo18");
	rc = run_shadow("exec1", NULL, 0);
	ad_get_string(job, "HoldReason", &reason);
	CHECK("refusals: a FIFO as input holds the job (no hang)",
	    rc == SHADOW_EXIT_HELD && has(reason, "not a regular file"));
	free(reason);
	reason = NULL;
	ad_free(job);

	/* A standard job whose program never met condor_cc (here, however
	 * it got past condor_submit and the schedd): its starter refuses
	 * it, and the job is held saying why. */
	job = new_job(20, "");
	ad_set_string(job, "Universe", "standard");
	path = path_of("spool/cluster20.ickpt");
	log = xasprintf("cp /bin/true %s", path);
	rc = system(log) == 0 ? run_shadow("exec1", NULL, 0) : -1;
	free(log);
	free(path);
	ad_get_string(job, "HoldReason", &reason);
	CHECK("refusals: a standard job's program that is not relinked "
	    "holds the job, saying so", rc == SHADOW_EXIT_HELD &&
	    has(reason, "not relinked for Condor"));
	free(reason);
	ad_free(job);

	if (geteuid() != 0) {
		SKIP("refusals: EXECUTE_USER root is refused, the job "
		    "requeued", "not root");
		return;
	}
	write_file("condor_config.local", "START : TRUE\n"
	    "EXECUTE_USER = root\n", 0644);
	job = new_job(19, "#!/bin/sh\ntrue\n");
	rc = run_shadow("exec1", NULL, 0);
	log = slurp("log/StarterLog");
	CHECK("refusals: EXECUTE_USER root is refused, the job requeued",
	    rc == SHADOW_EXIT_REQUEUE && has(log, "jobs never run as root"));
	free(log);
	ad_free(job);
	write_file("condor_config.local", "START : TRUE\n", 0644);
}

/* Garbage claims: refused, and the startd goes on serving. */
static void
test_bad_claims(void)
{
	const char *caps[] = { "", "short", "has space in it 1234567",
	    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789"
	    "abcdefXX" };
	status_x res;
	claim_x c;
	char err[256], *rel;
	struct ad *ad;
	CLIENT *cl;
	size_t i;
	int refused = 0;

	cl = rpc_connect(startd_addr, PROG_STARTD, 1, 5, err, sizeof(err));
	if (cl == NULL) {
		CHECK("bad claims: connect", 0);
		return;
	}
	ad = new_job(13, "#!/bin/sh\ntrue\n");
	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		memset(&c, 0, sizeof(c));
		ad_to_xdr(ad, &c.job);
		c.shadow_addr = "<127.0.0.1:1>";
		c.capability = (char *)caps[i];
		c.schedd_name = "test";
		memset(&res, 0, sizeof(res));
		if (rpc_invoke(cl, STARTD_REQUEST_CLAIM,
		    (xdrproc_t)xdr_claim_x, &c, (xdrproc_t)xdr_status_x, &res,
		    err, sizeof(err)) == 0 && res.code == EINVAL)
			refused++;
		xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
		ad_x_free(&c.job);
	}
	CHECK("bad claims: bad capabilities refused with EINVAL",
	    refused == 3);	/* the over-long one fails to encode */
	/* No job ad attributes at all. */
	memset(&c, 0, sizeof(c));
	c.shadow_addr = "not an address";
	c.capability = "0123456789abcdef0123";
	c.schedd_name = "";
	memset(&res, 0, sizeof(res));
	CHECK("bad claims: an empty job ad is refused",
	    rpc_invoke(cl, STARTD_REQUEST_CLAIM, (xdrproc_t)xdr_claim_x, &c,
	    (xdrproc_t)xdr_status_x, &res, err, sizeof(err)) == 0 &&
	    res.code == EINVAL);
	xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
	/* Releasing a claim one does not hold. */
	rel = "0123456789abcdef0123";
	memset(&res, 0, sizeof(res));
	CHECK("bad claims: release without the capability is refused",
	    rpc_invoke(cl, STARTD_RELEASE_CLAIM, (xdrproc_t)xdr_wrapstring,
	    &rel, (xdrproc_t)xdr_status_x, &res, err, sizeof(err)) == 0 &&
	    res.code == EPERM);
	xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
	rpc_close(cl);
	ad_free(ad);
	CHECK("bad claims: the startd still serves", wait_state("Idle", 5));
}

/* The startd's child (its starter), 0 if none: from /proc. */
static pid_t
starter_pid(void)
{
	char path[300], *stat, *p;
	struct dirent *de;
	pid_t found = 0;
	DIR *d;
	int ppid;

	if ((d = opendir("/proc")) == NULL)
		return 0;
	while (found == 0 && (de = readdir(d)) != NULL) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((stat = slurp(path)) == NULL)
			continue;
		/* "pid (comm) S ppid ...": comm may hold anything. */
		p = strrchr(stat, ')');
		if (p != NULL && sscanf(p + 1, " %*c %d", &ppid) == 1 &&
		    ppid == (int)startd_pid)
			found = (pid_t)atoi(de->d_name);
		free(stat);
	}
	closedir(d);
	return found;
}

/* The starter dies under a running job. */
static void
kill_starter(pid_t shadow)
{
	pid_t p = starter_pid();

	read_job_pid();
	if (p > 0)
		kill(p, SIGKILL);
	else
		fprintf(stderr, "no starter to kill\n");
}

/* Suspend the job through its starter, as the startd will, and go on. */
static long long	status_suspended = -1, status_continued = -1;
static int		job_stopped;

static void
suspend_and_continue(pid_t shadow)
{
	pid_t starter = starter_pid();
	double deadline;
	char path[64], *stat;

	read_job_pid();
	if (starter <= 0)
		return;
	kill(starter, SIGTSTP);
	deadline = monotime() + 5;
	while (monotime() < deadline && status_suspended != 7) {
		event_run_once(0.05);
		ad_get_int(job, "JobStatus", &status_suspended);
	}
	/* A stop signal takes effect when the job next runs: on a busy
	 * machine, a moment after the starter sent it. */
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)job_pid);
	deadline = monotime() + 5;
	do {
		stat = slurp(path);
		job_stopped = has(stat, ") T ");
		free(stat);
		if (!job_stopped)
			event_run_once(0.05);
	} while (!job_stopped && monotime() < deadline);
	kill(starter, SIGCONT);
	deadline = monotime() + 5;
	while (monotime() < deadline && status_continued != 2) {
		event_run_once(0.05);
		ad_get_int(job, "JobStatus", &status_continued);
	}
}

static void
test_suspend(void)
{
	char *log;
	int rc;

	job = new_job(20, "#!/bin/sh\necho $$\nsleep 4\necho done\n");
	ad_set_string(job, "Out", "pid.txt");
	ad_set_string(job, "UserLog", "log20.txt");
	ad_set_int(job, "JobStatus", 2);
	rc = run_shadow("exec1", suspend_and_continue, 1.5);
	CHECK("suspend: JobStatus 7 while suspended", status_suspended == 7);
	CHECK("suspend: the job is stopped", job_stopped);
	CHECK("suspend: JobStatus 2 again after continue",
	    status_continued == 2);
	log = slurp("log20.txt");
	CHECK("suspend: user log 010 and 011", has(log, "010 (020.000.000)")
	    && has(log, "011 (020.000.000)"));
	free(log);
	CHECK("suspend: the job then completes", rc == SHADOW_EXIT_COMPLETED);
	CHECK("suspend: the machine is Idle again", wait_state("Idle", 30));
	ad_free(job);
}

static void
kill_startd(pid_t shadow)
{
	read_job_pid();
	kill(startd_pid, SIGKILL);
	waitpid(startd_pid, NULL, 0);
	startd_pid = 0;
}

static void
test_lost(void)
{
	char *log;
	int rc;

	job = new_job(14, sleeper);
	ad_set_string(job, "Out", "pid.txt");
	ad_set_string(job, "UserLog", "log14.txt");
	rc = run_shadow("exec1", kill_starter, 2.5);
	CHECK("starter killed: shadow exits 107", rc == SHADOW_EXIT_REQUEUE);
	CHECK("starter killed: the job dies with it", gone(job_pid, 10));
	log = slurp("log14.txt");
	CHECK("starter killed: user log 004", has(log, "004 (014.000.000)"));
	free(log);
	CHECK("starter killed: the machine is Idle again",
	    wait_state("Idle", 15));
	ad_free(job);

	job = new_job(15, sleeper);
	ad_set_string(job, "Out", "pid.txt");
	rc = run_shadow("exec1", kill_startd, 2.5);
	CHECK("startd killed: shadow exits 107", rc == SHADOW_EXIT_REQUEUE);
	CHECK("startd killed: the starter stops the job", gone(job_pid, 15));
	ad_free(job);
}

int
main(void)
{
	char *config, *text;

	log_init("shadow_test");
	if (getcwd(top, sizeof(top)) == NULL || mkdtemp(dir) == NULL)
		return 1;
	/* EXECUTE_USER (nobody, when root) must reach the execute
	 * directory. */
	chmod(dir, 0755);
	text = xasprintf(
	    "RELEASE_DIR = %s\n"
	    "LOCAL_DIR = %s\n"
	    "LOCAL_CONFIG_FILE = %s/condor_config.local\n"
	    "HOST = exec1\n"
	    "BIND_ADDRESS = 127.0.0.1\n"
	    "CONDOR_HOST = 127.0.0.1\n"
	    "COLLECTOR_HOST = 127.0.0.1:1\n"
	    "POLLING_INTERVAL = 1\n"
	    "STARTD_UPDATE_INTERVAL = 60\n"
	    "NUM_CPUS = 1\n"
	    "CONSOLE_DEVICES = %s/tty\n"
	    "LOAD_AVERAGE_FILE = %s/loadavg\n"
	    "RPC_TIMEOUT = 5\n"
	    "STARTER_UPDATE_INTERVAL = 1\n"
	    "STARTER_TIMEOUT = 20\n"
	    "VACATE_GRACE = 2\n"
	    /* No schedd here ends a claim after its job (claim reuse):
	     * each job's claim ends with it. */
	    "CLAIM_WORKLIFE = 0\n"
	    "MAIL = %s/mailer\n",
	    top, dir, dir, dir, dir, dir);
	write_file("condor_config", text, 0644);
	free(text);
	write_file("condor_config.local", "START : TRUE\n", 0644);
	write_file("tty", "", 0644);
	text = xasprintf("touch -d '1 hour ago' %s/tty", dir);
	if (system(text) != 0)
		return 1;
	free(text);
	write_file("loadavg", "0.00 0.00 0.00 1/100 1\n", 0644);
	text = xasprintf("#!/bin/sh\necho \"to=$1\" >>%s/mail.txt\n"
	    "cat >>%s/mail.txt\n", dir, dir);
	write_file("mailer", text, 0755);
	free(text);
	config = path_of("condor_config");
	setenv("CONDOR_CONFIG", config, 1);
	free(config);
	text = path_of("spool");
	mkdir(text, 0755);
	free(text);
	{
		char err[512];

		if (config_init(err, sizeof(err)) == -1) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		expr_set_fallback(param);
	}
	signal(SIGPIPE, SIG_IGN);
	event_init();
	{
		char *sock = path_of("spool/.schedd_socket");
		int fd = rpc_listen_unix(sock);

		if (fd == -1 || rpc_serve(fd, PROG_SCHEDD, 1,
		    fake_schedd) == NULL) {
			perror(sock);
			return 1;
		}
		free(sock);
	}
	start_startd();
	CHECK("the startd starts", startd_addr[0] != '\0');
	CHECK("the startd is Idle", wait_state("Idle", 10));
	if (startd_addr[0] != '\0') {
		test_complete();
		test_signal();
		test_hold();
		test_vacate();
		test_remove();
		test_refuse();
		test_bad_claims();
		test_big();
		test_strangers();
		test_refusals();
		test_suspend();
		test_lost();
	}
	stop_startd(SIGTERM);
	text = slurp("log/ShadowLog");
	CHECK("every user log event was written", text != NULL &&
	    !has(text, "to the user log"));
	free(text);
	if (test_failures == 0) {
		text = xasprintf("rm -rf %s", dir);
		if (system(text) != 0)
			fprintf(stderr, "cannot remove %s\n", dir);
		free(text);
	} else
		fprintf(stderr, "kept %s\n", dir);
	TEST_EXIT();
}
