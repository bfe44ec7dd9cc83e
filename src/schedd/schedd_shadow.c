/*
 * schedd_shadow.c: one condor_shadow per running job.
 *
 * A shadow is started as "$(SHADOW) CLUSTER.PROC STARTD_ADDR MACHINE" in
 * a process group of its own, with the schedd's identity (root in a
 * real pool: the shadow switches to the job owner around each access to
 * the owner's files), a clean signal mask and no descriptor but 0-2
 * and, when it has a claim, 3: a pipe with the key of the claim for this
 * job (auth_claim_key; CONDOR_CLAIM_KEY_FD=3), never the claim id.
 * posix_spawn keeps that cheap however large the queue makes the
 * schedd.  Its exit status says what became of the job; see
 * queue_shadow_exited.  A shadow asked to stop gets SIGTERM, and
 * SIGKILL if it is still there a while later.
 *
 * Shadows of a schedd that died keep running; the next schedd finds
 * their pids in the queue (ShadowPid), stops those that are still the
 * same program for the same job, and starts the job again only once
 * they are gone.
 *
 * The claim a shadow runs its job on (the startd's address, the
 * machine, the claim id) is kept in $(SPOOL)/claims/CLUSTER.PROC (mode
 * 0600, in a 0700 directory) while the shadow lives: a shadow killed
 * with the schedd (the submitting host crashed) may have left its
 * starter running the job, and the next schedd fences the job (below)
 * from that record as it would from memory.
 *
 * Claim reuse: when a shadow leaves after its job completed, the claim
 * runs the schedd's next job that fits it (claim_after): a new shadow
 * on the same claim, with the key of that claim for the new job, and a
 * new record; otherwise the startd is told the claim has no more jobs.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ad.h"
#include "auth.h"
#include "config.h"
#include "event.h"
#include "log.h"
#include "schedd.h"
#include "startd_rpc.h"
#include "xalloc.h"

#define ORPHAN_CHECK	1.0	/* seconds between looks at orphans */

extern char **environ;

struct shadow {
	pid_t	pid;
	int	cluster;
	int	proc;
	double	started;	/* monotime() */
	long	kill_timer;
	int	stopping;	/* we sent SIGTERM */
	int	fence;		/* condor_shadow -fence, not a job's shadow */
	int	reconnect;	/* condor_shadow -reconnect */
	char	*startd_addr;	/* the claim it runs the job on */
	char	*machine;
	char	*claim_id;
	time_t	 claim_begun;	/* when the claim was made */
	int	 claim_jobs;	/* jobs that ran on it before this one */
};

struct orphan {
	pid_t	pid;
	int	cluster;
	int	proc;
	double	since;
	int	killed;
	int	adopted;	/* running on: not stopped (yet) */
	int	report;		/* adopted: its end is the job's news */
};

static struct shadow	*shadows;
static size_t		 nshadows, capshadows;
static struct orphan	*orphans;
static size_t		 norphans, caporphans;
static long		 orphan_timer;

/* The old shadow of job CLUSTER.PROC still watched, or NULL. */
static struct orphan *
orphan_find(int cluster, int proc)
{
	size_t i;

	for (i = 0; i < norphans; i++)
		if (orphans[i].cluster == cluster && orphans[i].proc == proc)
			return &orphans[i];
	return NULL;
}

/* Seconds a stopping shadow is given before SIGKILL. */
static double
stop_grace(void)
{
	long t = param_int("RPC_TIMEOUT", 20) * 3;

	return t < 5 ? 5 : (double)t;
}

static struct shadow *
shadow_find_job(int cluster, int proc)
{
	size_t i;

	for (i = 0; i < nshadows; i++)
		if (shadows[i].cluster == cluster && shadows[i].proc == proc)
			return &shadows[i];
	return NULL;
}

/* $(SPOOL)/claims, or the record of job CLUSTER.PROC in it. */
static char *
claim_path(int cluster, int proc)
{
	if (cluster < 0)
		return xasprintf("%s/claims", param("SPOOL"));
	return xasprintf("%s/claims/%d.%d", param("SPOOL"), cluster, proc);
}

/* Keep the claim of job CLUSTER.PROC on disk; best effort (logged). */
static void
claim_save(int cluster, int proc, const char *addr, const char *machine,
    const char *claim_id)
{
	char *dir = claim_path(-1, 0), *path = claim_path(cluster, proc);
	char *tmp = xasprintf("%s.tmp", path);
	FILE *f;
	int fd;

	if (mkdir(dir, 0700) == -1 && errno != EEXIST)
		log_warn("cannot create %s", dir);
	else if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600)) == -1 || (f = fdopen(fd, "w")) == NULL)
		log_warn("cannot write %s", tmp);
	else {
		fprintf(f, "%s\n%s\n%s\n", addr, machine, claim_id);
		if (fclose(f) != 0 || rename(tmp, path) == -1)
			log_warn("cannot write %s", path);
	}
	free(dir);
	free(path);
	free(tmp);
}

static void
claim_forget(int cluster, int proc)
{
	char *path = claim_path(cluster, proc);

	if (unlink(path) == -1 && errno != ENOENT)
		log_warn("cannot remove %s", path);
	free(path);
}

/* The kept claim of job CLUSTER.PROC: 0 with ADDR, MACHINE and
 * CLAIM_ID set (free them), or -1. */
static int
claim_load(int cluster, int proc, char **addr, char **machine,
    char **claim_id)
{
	char *path = claim_path(cluster, proc), line[3][1024];
	FILE *f = fopen(path, "re");
	int i, ok = f != NULL;

	for (i = 0; ok && i < 3; i++) {
		if (fgets(line[i], sizeof(line[i]), f) == NULL ||
		    strchr(line[i], '\n') == NULL)
			ok = 0;
		else
			*strchr(line[i], '\n') = '\0';
	}
	if (f != NULL)
		fclose(f);
	free(path);
	if (!ok || line[0][0] != '<' || line[2][0] == '\0')
		return -1;
	*addr = xstrdup(line[0]);
	*machine = xstrdup(line[1]);
	*claim_id = xstrdup(line[2]);
	explicit_bzero(line, sizeof(line));
	return 0;
}

static void
forget_claim(struct shadow *s)
{
	if (s->claim_id != NULL) {
		explicit_bzero(s->claim_id, strlen(s->claim_id));
		free(s->claim_id);
	}
	free(s->startd_addr);
	free(s->machine);
	s->claim_id = s->startd_addr = s->machine = NULL;
}

/*
 * Start the SHADOW program with arguments ARGS (after its name) for
 * job CLUSTER.PROC, the key of its claim (made from the claim id) on a
 * pipe; a fence (see shadow_reaped) if FENCE.
 */
static pid_t
spawn(int cluster, int proc, char *const *args, const char *startd_addr,
    const char *machine, const char *claim_id, int fence)
{
	static const int reset[] = { SIGPIPE, SIGTERM, SIGINT, SIGHUP,
	    SIGCHLD, SIGUSR1, SIGUSR2, SIGQUIT, SIGALRM };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	const char *exe = param("SHADOW");
	char id[32], *argv[6], key[AUTH_CLAIM_KEY_LEN + 2];
	sigset_t none, dflt;
	size_t i, n;
	pid_t pid;
	int rc, key_pipe[2];

	if (exe == NULL || *exe == '\0') {
		log_warnx("SHADOW is not set");
		errno = ENOENT;
		return -1;
	}
	snprintf(id, sizeof(id), "%d.%d", cluster, proc);
	argv[0] = (char *)exe;
	for (i = 0; i < 4 && args[i] != NULL; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	sigemptyset(&none);
	sigemptyset(&dflt);
	for (i = 0; i < sizeof(reset) / sizeof(reset[0]); i++)
		sigaddset(&dflt, reset[i]);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK |
	    POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &dflt);
	posix_spawnattr_setpgroup(&attr, 0);
	/* The claim's key for this job goes down a pipe, the shadow's
	 * descriptor 3: never in its environment, where a job it forks
	 * or a reader of /proc could find it, nor the claim id itself. */
	key_pipe[0] = key_pipe[1] = -1;
	if (claim_id != NULL) {
		if (auth_claim_key(claim_id, cluster, proc, key,
		    sizeof(key)) == -1) {
			log_warnx("cannot start the shadow for job %s: no "
			    "pool key to make its claim's key", id);
			posix_spawnattr_destroy(&attr);
			errno = EPERM;
			return -1;
		}
		if (pipe2(key_pipe, O_CLOEXEC) == -1) {
			log_warn("cannot start the shadow for job %s: pipe",
			    id);
			explicit_bzero(key, sizeof(key));
			posix_spawnattr_destroy(&attr);
			return -1;
		}
		/* 65 bytes: within the pipe's buffer, it never blocks. */
		n = strlen(key);
		key[n] = '\n';
		if (write(key_pipe[1], key, n + 1) != (ssize_t)(n + 1))
			log_warn("job %s: cannot give its shadow the claim's "
			    "key", id);
		explicit_bzero(key, sizeof(key));
		close(key_pipe[1]);
		key_pipe[1] = -1;
		/* dup2 onto itself would keep close-on-exec. */
		if (key_pipe[0] == 3) {
			int fd = fcntl(3, F_DUPFD_CLOEXEC, 4);

			close(3);
			key_pipe[0] = fd;
		}
	}
	posix_spawn_file_actions_init(&fa);
	if (key_pipe[0] != -1)
		posix_spawn_file_actions_adddup2(&fa, key_pipe[0], 3);
	/* RPC connections accepted by libtirpc are not close-on-exec. */
	posix_spawn_file_actions_addclosefrom_np(&fa, key_pipe[0] != -1 ? 4 :
	    3);
	{
		char **env, parent[48];
		size_t k = 0;

		n = 0;
		while (environ[n] != NULL)
			n++;
		env = xcalloc(n + 3, sizeof(*env));
		for (i = 0; i < n; i++)
			if (strncmp(environ[i], "CONDOR_CLAIM_KEY_FD=",
			    20) != 0 && strncmp(environ[i],
			    "CONDOR_SHADOW_PARENT=", 21) != 0)
				env[k++] = environ[i];
		if (key_pipe[0] != -1)
			env[k++] = (char *)"CONDOR_CLAIM_KEY_FD=3";
		/* Who its parent is, should we die before it asks. */
		snprintf(parent, sizeof(parent), "CONDOR_SHADOW_PARENT=%d",
		    (int)getpid());
		env[k++] = parent;
		env[k] = NULL;
		rc = posix_spawn(&pid, exe, &fa, &attr, argv, env);
		free(env);
	}
	if (key_pipe[0] != -1)
		close(key_pipe[0]);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (rc != 0) {
		log_warnx("cannot start the shadow %s for job %s: %s", exe,
		    id, strerror(rc));
		errno = rc;
		return -1;
	}
	if (nshadows == capshadows) {
		capshadows = capshadows ? capshadows * 2 : 16;
		shadows = xreallocarray(shadows, capshadows,
		    sizeof(*shadows));
	}
	shadows[nshadows].pid = pid;
	shadows[nshadows].cluster = cluster;
	shadows[nshadows].proc = proc;
	shadows[nshadows].started = monotime();
	shadows[nshadows].kill_timer = 0;
	shadows[nshadows].stopping = 0;
	shadows[nshadows].fence = fence;
	shadows[nshadows].reconnect = 0;
	shadows[nshadows].startd_addr = xstrdup(startd_addr);
	shadows[nshadows].machine = xstrdup(machine ? machine : "");
	shadows[nshadows].claim_id = claim_id ? xstrdup(claim_id) : NULL;
	shadows[nshadows].claim_begun = time(NULL);
	shadows[nshadows].claim_jobs = 0;
	nshadows++;
	return pid;
}

pid_t
shadow_spawn(int cluster, int proc, const struct claim_info *ci)
{
	char id[32], *args[4];
	pid_t pid;

	snprintf(id, sizeof(id), "%d.%d", cluster, proc);
	args[0] = id;
	args[1] = (char *)ci->addr;
	args[2] = (char *)ci->machine;
	args[3] = NULL;
	if (ci->claim_id != NULL)
		claim_save(cluster, proc, ci->addr, ci->machine, ci->claim_id);
	pid = spawn(cluster, proc, args, ci->addr, ci->machine, ci->claim_id,
	    0);
	if (pid == -1)
		return -1;
	shadows[nshadows - 1].claim_begun = ci->begun;
	shadows[nshadows - 1].claim_jobs = ci->jobs;
	return pid;
}

static int	shadow_status_known(int);

/* Seconds the schedd waits for a startd to end a claim: it serves no
 * one else meanwhile. */
#define END_CLAIM_TIMEOUT	5

/*
 * Tell the startd at ADDR that the claim CLAIM_ID, whose last job was
 * CLUSTER.PROC, has no more jobs (STARTD_END_CLAIM, with that job's
 * key): its slot is free at once rather than when the startd tires of
 * waiting.  Best effort, logged.
 */
static void
claim_end_at(const char *addr, const char *claim_id, int cluster, int proc)
{
	char key[AUTH_CLAIM_KEY_LEN + 1], err[512], *arg = key;
	status_x res;
	CLIENT *cl;

	if (auth_claim_key(claim_id, cluster, proc, key, sizeof(key)) == -1)
		return;
	memset(&res, 0, sizeof(res));
	if ((cl = rpc_connect(addr, PROG_STARTD, 1, END_CLAIM_TIMEOUT, err,
	    sizeof(err))) == NULL || rpc_invoke(cl, STARTD_END_CLAIM,
	    (xdrproc_t)xdr_wrapstring, &arg, (xdrproc_t)xdr_status_x, &res,
	    err, sizeof(err)) == -1)
		log_info("cannot end the claim of job %d.%d at %s: %s; the "
		    "startd ends it when it has waited enough", cluster, proc,
		    addr, err);
	else
		log_debug("claim of job %d.%d at %s: %s", cluster, proc, addr,
		    res.message != NULL ? res.message : "");
	xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
	if (cl != NULL)
		rpc_close(cl);
	explicit_bzero(key, sizeof(key));
}

/*
 * The current ad of the slot of the claim CLAIM_ID at ADDR, whose last
 * job was CLUSTER.PROC (STARTD_CLAIM_AD, with that job's key), or NULL
 * (logged) if the startd does not say.
 */
static struct ad *
claim_slot_ad(const char *addr, const char *claim_id, int cluster, int proc)
{
	char key[AUTH_CLAIM_KEY_LEN + 1], err[512], *arg = key;
	startd_query_res_x res;
	struct ad *ad = NULL;
	CLIENT *cl;

	if (auth_claim_key(claim_id, cluster, proc, key, sizeof(key)) == -1)
		return NULL;
	memset(&res, 0, sizeof(res));
	if ((cl = rpc_connect(addr, PROG_STARTD, 1, END_CLAIM_TIMEOUT, err,
	    sizeof(err))) == NULL || rpc_invoke(cl, STARTD_CLAIM_AD,
	    (xdrproc_t)xdr_wrapstring, &arg, (xdrproc_t)xdr_startd_query_res_x,
	    &res, err, sizeof(err)) == -1)
		log_info("cannot ask %s for the ad of the claim of job %d.%d: "
		    "%s", addr, cluster, proc, err);
	else if (res.code != 0)
		log_info("%s has no claim of job %d.%d any more: %s", addr,
		    cluster, proc, res.message != NULL ? res.message : "");
	else if ((ad = ad_from_xdr(&res.ad, err, sizeof(err))) == NULL)
		log_warnx("the ad of the claim of job %d.%d from %s: %s",
		    cluster, proc, addr, err);
	xdr_free((xdrproc_t)xdr_startd_query_res_x, (char *)&res);
	if (cl != NULL)
		rpc_close(cl);
	explicit_bzero(key, sizeof(key));
	return ad;
}

/*
 * Claim reuse: shadow S has left (wait STATUS, after its job's fate is
 * committed).  After a job that completed, within CLAIM_WORKLIFE, the
 * claim runs the schedd's next job that fits it at once, without a
 * negotiation cycle: a new shadow with the same claim, which the startd
 * decides on again (START, Requirements).  Otherwise the startd is told
 * that the claim has no more jobs.  A shadow that died without a word
 * leaves its claim alone: its job may still run there (fence).
 */
static void
claim_after(const struct shadow *s, int status, const struct claim_user *u)
{
	long long worklife = param_int("CLAIM_WORKLIFE", 1200);
	const char *why = "no idle job of its user fits it";
	struct claim_info ci;
	struct ad *slot = NULL;
	struct job next;
	pid_t pid;
	int found = 0;

	if (s->claim_id == NULL || s->startd_addr == NULL || s->fence ||
	    s->stopping || !shadow_status_known(status) || worklife == 0)
		return;
	if (WEXITSTATUS(status) != SHADOW_EXIT_COMPLETED)
		why = NULL;
	else if (worklife > 0 && (long long)(time(NULL) - s->claim_begun) >=
	    worklife)
		why = "its worklife (CLAIM_WORKLIFE) is over";
	/* The slot as it is now, only if a job of its user waits. */
	else if (negotiate_claim_next(NULL, u, &next) == 0) {
		if ((slot = claim_slot_ad(s->startd_addr, s->claim_id,
		    s->cluster, s->proc)) == NULL)
			why = "its slot's ad is not to be had";
		else
			found = negotiate_claim_next(slot, u, &next) == 0;
		ad_free(slot);
	}
	if (found) {
		ci.addr = s->startd_addr;
		ci.machine = s->machine;
		ci.claim_id = s->claim_id;
		ci.begun = s->claim_begun;
		ci.jobs = s->claim_jobs + 1;
		submit_flush_events(next.cluster);
		if ((pid = shadow_spawn(next.cluster, next.proc, &ci)) != -1) {
			log_info("job %d.%d runs on the claim of %s after job "
			    "%d.%d (job %d on the claim); shadow %d",
			    next.cluster, next.proc, s->machine, s->cluster,
			    s->proc, ci.jobs + 1, (int)pid);
			queue_job_started(next.cluster, next.proc, s->machine,
			    pid);
			return;
		}
		log_warn("job %d.%d: cannot start a shadow", next.cluster,
		    next.proc);
	} else if (why != NULL)
		log_info("the claim of %s, after job %d.%d (%d on the claim), "
		    "ends: %s", s->machine, s->cluster, s->proc,
		    s->claim_jobs + 1, why);
	claim_end_at(s->startd_addr, s->claim_id, s->cluster, s->proc);
}

/*
 * The shadow of job CLUSTER.PROC, running on the claim (ADDR, MACHINE,
 * CLAIM_ID), died unasked: a vanilla job with a lease gets a new
 * shadow that reconnects to its starter (condor_shadow -reconnect), the
 * job still running.  Its pid, or 0 when the job does not qualify (or
 * the spawn failed).
 */
static pid_t
reshadow(int cluster, int proc, const char *addr, const char *machine,
    const char *claim_id)
{
	struct job j;
	char id[32], *args[5];
	pid_t pid;

	if (claim_id == NULL || addr == NULL || job_find(cluster, proc,
	    &j) == -1 || job_int(&j, "JobUniverse", 0) != 5 ||
	    job_int(&j, "JobLeaseDuration", 0) <= 0 ||
	    (job_status(&j) != JOB_RUNNING && job_status(&j) != JOB_SUSPENDED))
		return 0;
	snprintf(id, sizeof(id), "%d.%d", cluster, proc);
	args[0] = "-reconnect";
	args[1] = id;
	args[2] = (char *)addr;
	args[3] = (char *)(machine ? machine : "");
	args[4] = NULL;
	if ((pid = spawn(cluster, proc, args, addr, machine, claim_id,
	    0)) == -1)
		return 0;
	shadows[nshadows - 1].reconnect = 1;
	claim_save(cluster, proc, addr, machine ? machine : "", claim_id);
	log_info("job %s: its shadow died; a new one (pid %d) reconnects to "
	    "its starter", id, (int)pid);
	return pid;
}

/*
 * The shadow of a job died unasked and without an exit status of its
 * own (killed, crashed): its starter may still be running the job.
 * Until "condor_shadow -fence" has seen to that starter (see there) the
 * job is busy and is not started again; it is given the job's lease,
 * two RPC_TIMEOUTs and a margin.
 */
static int
fence_spawn(int cluster, int proc, const char *addr, const char *claim_id)
{
	struct job j;
	long long lease = 0, secs;
	char id[32], seconds[32], *args[5];

	if (claim_id == NULL || addr == NULL)
		return -1;
	if (job_find(cluster, proc, &j) == 0)
		lease = job_int(&j, "JobLeaseDuration", 0);
	secs = (lease > 0 ? lease : 0) + 2 * param_int("RPC_TIMEOUT", 20) + 5;
	snprintf(id, sizeof(id), "%d.%d", cluster, proc);
	snprintf(seconds, sizeof(seconds), "%lld", secs);
	args[0] = "-fence";
	args[1] = id;
	args[2] = (char *)addr;
	args[3] = seconds;
	args[4] = NULL;
	if (spawn(cluster, proc, args, addr, NULL, claim_id, 1) == -1) {
		log_warnx("job %s: its old starter may still run it, and no "
		    "fence could be started", id);
		return -1;
	}
	log_info("job %s: its shadow died; it runs again once its old "
	    "starter is seen to be gone (within %lld s)", id, secs);
	return 0;
}

/*
 * Fence job CLUSTER.PROC from its kept claim (its shadow died with an
 * earlier schedd, or unheard); the record goes.  1 if a fence started.
 */
int
shadow_fence_kept(int cluster, int proc)
{
	char *addr, *machine, *claim_id;
	int r;

	if (claim_load(cluster, proc, &addr, &machine, &claim_id) == -1) {
		claim_forget(cluster, proc);
		return 0;
	}
	r = fence_spawn(cluster, proc, addr, claim_id) == 0;
	explicit_bzero(claim_id, strlen(claim_id));
	free(claim_id);
	free(machine);
	free(addr);
	if (!r)
		claim_forget(cluster, proc);
	return r;
}

pid_t
shadow_reconnect_kept(int cluster, int proc)
{
	char *addr, *machine, *claim_id;
	pid_t pid;

	if (claim_load(cluster, proc, &addr, &machine, &claim_id) == -1)
		return 0;
	pid = reshadow(cluster, proc, addr, machine, claim_id);
	explicit_bzero(claim_id, strlen(claim_id));
	free(claim_id);
	free(machine);
	free(addr);
	return pid;
}

/*
 * Records of claims whose job has no shadow or fence (any more) go; an
 * idle job's is the last schedd's fence, which this one takes up.
 */
void
shadow_claims_sweep(void)
{
	char *dir = claim_path(-1, 0);
	struct dirent *e;
	struct job j;
	int cluster, proc, n;
	DIR *d;

	if ((d = opendir(dir)) == NULL) {
		free(dir);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (sscanf(e->d_name, "%d.%d%n", &cluster, &proc, &n) != 2 ||
		    e->d_name[n] != '\0' || shadow_job_busy(cluster, proc))
			continue;
		if (job_find(cluster, proc, &j) == 0 &&
		    job_status(&j) == JOB_IDLE &&
		    shadow_fence_kept(cluster, proc))
			continue;
		claim_forget(cluster, proc);
	}
	closedir(d);
	free(dir);
}

/* Did a shadow that exited so say what became of its job? */
static int
shadow_status_known(int status)
{
	if (!WIFEXITED(status))
		return 0;
	switch (WEXITSTATUS(status)) {
	case SHADOW_EXIT_COMPLETED:
	case SHADOW_EXIT_REMOVED:
	case SHADOW_EXIT_REQUEUE:
	case SHADOW_EXIT_HELD:
		return 1;
	}
	return 0;
}

int
shadow_reaped(pid_t pid, int status)
{
	struct claim_user u = { NULL, NULL, 0 };
	struct shadow s;
	struct job j;
	pid_t npid;
	size_t i;

	for (i = 0; i < nshadows; i++)
		if (shadows[i].pid == pid)
			break;
	if (i == nshadows)
		return 0;
	s = shadows[i];
	shadows[i] = shadows[--nshadows];
	event_timer_cancel(s.kill_timer);
	if (s.fence) {
		log_info("job %d.%d: fence %d over; the job may run again",
		    s.cluster, s.proc, (int)pid);
		forget_claim(&s);
		/* (One killed by our shutdown leaves the record to the
		 * next schedd.) */
		if (!WIFSIGNALED(status))
			claim_forget(s.cluster, s.proc);
		return 1;
	}
	if (!s.stopping && !shadow_status_known(status) && !s.reconnect &&
	    (npid = reshadow(s.cluster, s.proc, s.startd_addr, s.machine,
	    s.claim_id)) > 0) {
		forget_claim(&s);
		queue_job_reshadowed(s.cluster, s.proc, npid);
		return 1;
	}
	/* A new shadow that gave up before its starter came back (107)
	 * leaves that starter perhaps running the job too. */
	if (s.stopping || (shadow_status_known(status) && !(s.reconnect &&
	    WEXITSTATUS(status) == SHADOW_EXIT_REQUEUE)) ||
	    fence_spawn(s.cluster, s.proc, s.startd_addr, s.claim_id) == -1)
		claim_forget(s.cluster, s.proc);
	/* Whose the claim is: a completed job leaves the queue now. */
	if (s.claim_id != NULL && job_find(s.cluster, s.proc, &j) == 0)
		claim_user_of(&j, &u);
	queue_shadow_exited(s.cluster, s.proc, status,
	    monotime() - s.started, s.stopping);
	if (!(s.reconnect && WEXITSTATUS(status) == SHADOW_EXIT_REQUEUE))
		claim_after(&s, status, &u);
	claim_user_free(&u);
	forget_claim(&s);
	return 1;
}

pid_t
shadow_of(int cluster, int proc)
{
	struct shadow *s = shadow_find_job(cluster, proc);
	struct orphan *o;

	if (s != NULL)
		return s->fence ? 0 : s->pid;
	o = orphan_find(cluster, proc);
	return o != NULL && o->report ? o->pid : 0;	/* adopted */
}

int
shadow_count(void)
{
	size_t i;
	int n = 0;

	for (i = 0; i < nshadows; i++)
		n += !shadows[i].fence;
	return n;
}

static void
kill_tick(void *arg)
{
	pid_t pid = (pid_t)(long)arg;
	size_t i;

	for (i = 0; i < nshadows; i++) {
		if (shadows[i].pid != pid)
			continue;
		shadows[i].kill_timer = 0;
		log_warnx("shadow %d of job %d.%d did not stop; killing it",
		    (int)pid, shadows[i].cluster, shadows[i].proc);
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		return;
	}
}

void
shadow_stop(int cluster, int proc)
{
	struct shadow *s = shadow_find_job(cluster, proc);
	struct orphan *o;

	if (s == NULL) {
		/* An adopted one is stopped as an orphan is: killed after
		 * the grace if need be, its end still reported. */
		if ((o = orphan_find(cluster, proc)) != NULL && o->adopted) {
			log_info("stopping old shadow %d of job %d.%d",
			    (int)o->pid, cluster, proc);
			kill(o->pid, SIGTERM);
			o->adopted = 0;
			o->since = monotime();
		}
		return;
	}
	log_info("stopping shadow %d of job %d.%d", (int)s->pid, cluster,
	    proc);
	if (kill(s->pid, SIGTERM) == -1 && errno != ESRCH)
		log_warn("kill %d", (int)s->pid);
	s->stopping = 1;
	if (s->kill_timer == 0)
		s->kill_timer = event_timer_add(stop_grace(), kill_tick,
		    (void *)(long)s->pid);
}

/* Orphans: shadows of an earlier schedd. */

/*
 * Is PID still a shadow of job CLUSTER.PROC?  Its command line holds
 * the SHADOW program (perhaps after an interpreter, for a script) and
 * the job id; a reused pid or a zombie does not.
 */
static int
is_shadow_of(pid_t pid, int cluster, int proc)
{
	char path[64], buf[4096], id[32];
	const char *exe = param("SHADOW"), *p, *end;
	int fd, has_exe = 0, has_id = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	snprintf(id, sizeof(id), "%d.%d", cluster, proc);
	for (p = buf, end = buf + n; p < end; p += strlen(p) + 1) {
		if (exe != NULL && strcmp(p, exe) == 0)
			has_exe = 1;
		if (strcmp(p, id) == 0)
			has_id = 1;
	}
	return has_exe && has_id;
}

static void
orphan_tick(void *arg)
{
	double now = monotime();
	size_t i;

	orphan_timer = 0;
	for (i = 0; i < norphans;) {
		struct orphan *o = &orphans[i];

		if (!is_shadow_of(o->pid, o->cluster, o->proc)) {
			struct orphan gone = *o;

			struct job j;

			log_info("old shadow %d of job %d.%d is gone",
			    (int)o->pid, o->cluster, o->proc);
			orphans[i] = orphans[--norphans];
			pid_t npid;

			/* One that left no word of the job (killed) may have
			 * left its starter running it: a new shadow
			 * reconnects to it, or the job is fenced. */
			if (gone.report && job_find(gone.cluster, gone.proc,
			    &j) == 0 && job_int(&j, "ShadowExitCode", -1) < 0 &&
			    (npid = shadow_reconnect_kept(gone.cluster,
			    gone.proc)) > 0) {
				queue_job_reshadowed(gone.cluster, gone.proc,
				    npid);
				schedd_counts_changed();
				continue;
			}
			if (!gone.report || job_find(gone.cluster, gone.proc,
			    &j) == -1 || job_int(&j, "ShadowExitCode", -1) >= 0 ||
			    !shadow_fence_kept(gone.cluster, gone.proc))
				claim_forget(gone.cluster, gone.proc);
			if (gone.report)
				queue_adopted_ended(gone.cluster, gone.proc);
			schedd_counts_changed();
			continue;
		}
		if (o->adopted) {
			i++;
			continue;
		}
		if (!o->killed && now - o->since > stop_grace()) {
			log_warnx("old shadow %d of job %d.%d did not stop; "
			    "killing it", (int)o->pid, o->cluster, o->proc);
			kill(o->pid, SIGKILL);
			o->killed = 1;
		}
		i++;
	}
	if (norphans > 0)
		orphan_timer = event_timer_add(ORPHAN_CHECK, orphan_tick,
		    NULL);
}

static void
orphan_add(int cluster, int proc, pid_t pid, int adopted)
{
	if (norphans == caporphans) {
		caporphans = caporphans ? caporphans * 2 : 8;
		orphans = xreallocarray(orphans, caporphans,
		    sizeof(*orphans));
	}
	orphans[norphans].pid = pid;
	orphans[norphans].cluster = cluster;
	orphans[norphans].proc = proc;
	orphans[norphans].since = monotime();
	orphans[norphans].killed = 0;
	orphans[norphans].adopted = adopted;
	orphans[norphans].report = adopted;
	norphans++;
	if (orphan_timer == 0)
		orphan_timer = event_timer_add(ORPHAN_CHECK, orphan_tick,
		    NULL);
}

void
shadow_orphan(int cluster, int proc, pid_t pid)
{
	if (pid <= 1 || !is_shadow_of(pid, cluster, proc))
		return;
	log_info("shadow %d of job %d.%d outlived the last schedd; stopping "
	    "it", (int)pid, cluster, proc);
	if (kill(pid, SIGTERM) == -1)
		return;
	orphan_add(cluster, proc, pid, 0);
}

int
shadow_adopt(int cluster, int proc, pid_t pid)
{
	if (pid <= 1 || !is_shadow_of(pid, cluster, proc))
		return 0;
	log_info("shadow %d of job %d.%d outlived the last schedd; the job "
	    "runs on with it", (int)pid, cluster, proc);
	orphan_add(cluster, proc, pid, 1);
	return 1;
}

int
shadow_job_busy(int cluster, int proc)
{
	return shadow_find_job(cluster, proc) != NULL ||
	    orphan_find(cluster, proc) != NULL;
}

void
shadow_shutdown(double wait)
{
	double deadline = monotime() + wait;
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	size_t i;
	pid_t pid;
	int status;

	/* Fences go on (they end when they see us gone); the next
	 * schedd fences their jobs again from the kept claims. */
	if (shadow_count() == 0)
		return;
	log_info("stopping %d shadow(s)", shadow_count());
	for (i = 0; i < nshadows; i++) {
		if (shadows[i].fence)
			continue;
		kill(shadows[i].pid, SIGTERM);
		shadows[i].stopping = 1;
	}
	while (shadow_count() > 0 && monotime() < deadline) {
		pid = waitpid(-1, &status, WNOHANG);
		if (pid > 0) {
			if (!shadow_reaped(pid, status))
				(void)local_reaped(pid, status);
			continue;
		}
		if (pid == -1 && errno == ECHILD)
			break;
		nanosleep(&ts, NULL);
	}
	if (shadow_count() > 0)
		log_warnx("%d shadow(s) still running; the next schedd "
		    "will stop them", shadow_count());
}

int
shadow_claim_of(int cluster, int proc, char **addr, char **claim_id)
{
	struct shadow *s = shadow_find_job(cluster, proc);
	char *machine;

	if (s != NULL && !s->fence && s->claim_id != NULL &&
	    s->startd_addr != NULL) {
		*addr = xstrdup(s->startd_addr);
		*claim_id = xstrdup(s->claim_id);
		return 0;
	}
	if (claim_load(cluster, proc, addr, &machine, claim_id) == -1)
		return -1;
	free(machine);
	return 0;
}
