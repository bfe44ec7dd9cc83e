/*
 * schedd_shadow.c: one condor_shadow per running job.
 *
 * A shadow is started as "$(SHADOW) CLUSTER.PROC STARTD_ADDR MACHINE" in
 * a process group of its own, with the schedd's identity (root in a
 * real pool: the shadow switches to the job owner around each access to
 * the owner's files), a clean signal mask and no descriptor but 0-2.
 * posix_spawn keeps that cheap however large the queue makes the
 * schedd.  Its exit status says what became of the job; see
 * queue_shadow_exited.  A shadow asked to stop gets SIGTERM, and
 * SIGKILL if it is still there a while later.
 *
 * Shadows of a schedd that died keep running; the next schedd finds
 * their pids in the queue (ShadowPid), stops those that are still the
 * same program for the same job, and starts the job again only once
 * they are gone.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "event.h"
#include "log.h"
#include "schedd.h"
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
	char	*startd_addr;	/* the claim it ran the job on */
	char	*claim_id;
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

static void
forget_claim(struct shadow *s)
{
	if (s->claim_id != NULL) {
		explicit_bzero(s->claim_id, strlen(s->claim_id));
		free(s->claim_id);
	}
	free(s->startd_addr);
	s->claim_id = s->startd_addr = NULL;
}

/*
 * Start the SHADOW program with arguments ARGS (after its name) for
 * job CLUSTER.PROC, the claim id in its environment; a fence (see
 * shadow_reaped) if FENCE.
 */
static pid_t
spawn(int cluster, int proc, char *const *args, const char *startd_addr,
    const char *claim_id, int fence)
{
	static const int reset[] = { SIGPIPE, SIGTERM, SIGINT, SIGHUP,
	    SIGCHLD, SIGUSR1, SIGUSR2, SIGQUIT, SIGALRM };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	const char *exe = param("SHADOW");
	char id[32], *argv[6];
	sigset_t none, dflt;
	size_t i;
	pid_t pid;
	int rc;

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
	posix_spawn_file_actions_init(&fa);
	/* RPC connections accepted by libtirpc are not close-on-exec. */
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	{
		char **env, *idvar = NULL;
		size_t n = 0, k = 0;

		while (environ[n] != NULL)
			n++;
		env = xcalloc(n + 2, sizeof(*env));
		for (i = 0; i < n; i++)
			if (strncmp(environ[i], "CONDOR_CLAIM_ID=", 16) != 0)
				env[k++] = environ[i];
		if (claim_id != NULL)
			env[k++] = idvar = xasprintf("CONDOR_CLAIM_ID=%s",
			    claim_id);
		env[k] = NULL;
		rc = posix_spawn(&pid, exe, &fa, &attr, argv, env);
		if (idvar != NULL) {
			explicit_bzero(idvar, strlen(idvar));
			free(idvar);
		}
		free(env);
	}
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
	shadows[nshadows].startd_addr = xstrdup(startd_addr);
	shadows[nshadows].claim_id = claim_id ? xstrdup(claim_id) : NULL;
	nshadows++;
	return pid;
}

pid_t
shadow_spawn(int cluster, int proc, const char *startd_addr,
    const char *machine, const char *claim_id)
{
	char id[32], *args[4];

	snprintf(id, sizeof(id), "%d.%d", cluster, proc);
	args[0] = id;
	args[1] = (char *)startd_addr;
	args[2] = (char *)machine;
	args[3] = NULL;
	return spawn(cluster, proc, args, startd_addr, claim_id, 0);
}

/*
 * The shadow of a job died unasked and without an exit status of its
 * own (killed, crashed): its starter may still be running the job.
 * Until "condor_shadow -fence" has seen to that starter (see there) the
 * job is busy and is not started again; it is given the job's lease,
 * two RPC_TIMEOUTs and a margin.
 */
static void
fence_spawn(const struct shadow *s)
{
	struct job j;
	long long lease = 0, secs;
	char id[32], seconds[32], *args[5];

	if (s->claim_id == NULL || s->startd_addr == NULL)
		return;
	if (job_find(s->cluster, s->proc, &j) == 0)
		lease = job_int(&j, "JobLeaseDuration", 0);
	secs = (lease > 0 ? lease : 0) + 2 * param_int("RPC_TIMEOUT", 20) + 5;
	snprintf(id, sizeof(id), "%d.%d", s->cluster, s->proc);
	snprintf(seconds, sizeof(seconds), "%lld", secs);
	args[0] = "-fence";
	args[1] = id;
	args[2] = s->startd_addr;
	args[3] = seconds;
	args[4] = NULL;
	if (spawn(s->cluster, s->proc, args, s->startd_addr, s->claim_id,
	    1) == -1)
		log_warnx("job %s: its old starter may still run it, and no "
		    "fence could be started", id);
	else
		log_info("job %s: its shadow died; it runs again once its old "
		    "starter is seen to be gone (within %lld s)", id, secs);
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
	struct shadow s;
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
		return 1;
	}
	if (!s.stopping && !shadow_status_known(status))
		fence_spawn(&s);
	forget_claim(&s);
	queue_shadow_exited(s.cluster, s.proc, status,
	    monotime() - s.started, s.stopping);
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

			log_info("old shadow %d of job %d.%d is gone",
			    (int)o->pid, o->cluster, o->proc);
			orphans[i] = orphans[--norphans];
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

	if (nshadows == 0)
		return;
	log_info("stopping %zu shadow(s)", nshadows);
	for (i = 0; i < nshadows; i++) {
		kill(shadows[i].pid, SIGTERM);
		shadows[i].stopping = 1;
	}
	while (nshadows > 0 && monotime() < deadline) {
		pid = waitpid(-1, &status, WNOHANG);
		if (pid > 0) {
			shadow_reaped(pid, status);
			continue;
		}
		if (pid == -1 && errno == ECHILD)
			break;
		nanosleep(&ts, NULL);
	}
	if (nshadows > 0)
		log_warnx("%zu shadow(s) still running; the next schedd "
		    "will stop them", nshadows);
}
