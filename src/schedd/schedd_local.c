/*
 * schedd_local.c: jobs of the scheduler universe (JobUniverse 7) and of
 * its later name, the local universe (12), which the schedd runs itself
 * on its own host, without negotiator, shadow or starter: condor_dagman
 * is one.
 *
 * An idle one is started by a "keeper", a plain fork of the schedd
 * (no exec) that closes every descriptor but its two pipes, starts a
 * session of its own and does not die with the schedd (a fork does not
 * inherit PR_SET_PDEATHSIG; it is cleared anyway).  The schedd first
 * commits the job Running with the keeper's pid and start time
 * (LocalKeeperPid, LocalKeeperStart: field 22 of /proc/PID/stat), then
 * lets the keeper go on: a schedd that dies in between leaves a keeper
 * that runs nothing.  The keeper forks the job, which leads a process
 * group of its own, takes the owner's identity when the schedd is root,
 * goes to Iwd, opens In, Out and Err (appending) as the owner and execs
 * Cmd with Args and Env as the starter gives them, plus CONDOR_ID=C.P.
 * The keeper reports the job's pid and start time (LocalJobPid,
 * LocalJobStart) or why it could not start (the job is then held),
 * waits for the job, writes its wait status and CPU times to
 * $(SPOOL)/local/C.P.exit (a temporary file synced and renamed) and
 * exits.  Its end, reaped or (for one adopted after a restart) seen
 * gone, has the exit file read: see queue_local_exited.
 *
 * A schedd that starts finds the jobs an earlier one ran (local_recover):
 * an exit file means the job ended meanwhile; a live keeper (same pid,
 * same start time, not a zombie) is adopted and watched once a second;
 * a live job whose keeper is gone is watched, and requeued when it ends
 * (its status is lost); nothing left (the host crashed) requeues it.
 */
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "event.h"
#include "fdio.h"
#include "jobargs.h"
#include "log.h"
#include "priv.h"
#include "schedd.h"
#include "xalloc.h"

#define LOCAL_TICK	1.0	/* seconds between looks at idle jobs */
#define POKE_DELAY	0.05	/* seconds after a poke */
#define WATCH_TICK	1.0	/* seconds between looks at adopted ones */
#define REPORT_WAIT	10000	/* milliseconds for the keeper's report */
#define JOB_PATH	"/usr/local/bin:/usr/bin:/bin"

/* Where the job child stopped, in the keeper's report. */
enum { STAGE_NONE, STAGE_FORK, STAGE_IDS, STAGE_CHDIR, STAGE_IN, STAGE_OUT,
    STAGE_ERR, STAGE_LOG, STAGE_EXEC };
static const char *const stage_names[] = { "", "fork", "switch to the "
    "owner", "chdir to Iwd", "open In", "open Out", "open Err",
    "open the user log", "exec" };

struct keeper {
	int		 cluster;
	int		 proc;
	pid_t		 pid;		/* the keeper; 0 when gone */
	unsigned long long start;
	pid_t		 job;		/* the job's process, 0 unknown */
	unsigned long long job_start;
	int		 child;		/* ours: reaped, not polled */
	int		 failed;	/* the job never started */
	int		 stopping;
	int		 shutdown;	/* stopped by our shutdown */
	long		 kill_timer;
};

/* What the keeper tells the schedd once the job runs (or did not). */
struct keeper_report {
	pid_t			job;
	unsigned long long	job_start;
	int			stage;	/* STAGE_NONE: it runs */
	int			err;
};

/* What the keeper and the job child need, prepared before the fork. */
struct launch {
	char	 *cmd, *iwd, *in, *out, *err, *log;
	char	**argv, **envp;
	char	 *exit_path, *exit_tmp, *dir;
	char	 *user;
	uid_t	  uid;
	gid_t	  gid;
	int	  switch_ids;
};

static struct keeper	*keepers;
static size_t		 nkeepers, capkeepers;
static long		 start_timer, watch_timer;
static int		 shutting_down;

static void	start_tick(void *);
static void	watch_tick(void *);
static struct keeper *keeper_find(int, int);

int
job_local_universe(const struct job *j)
{
	long long u = job_int(j, "JobUniverse", 0);

	return u == 7 || u == 12;
}

static char *
local_dir(void)
{
	return xasprintf("%s/local", param("SPOOL"));
}

static char *
exit_path(int cluster, int proc)
{
	return xasprintf("%s/local/%d.%d.exit", param("SPOOL"), cluster, proc);
}

/* $(SPOOL)/local, made when a first job starts: 0, or -1 (logged). */
static int
local_mkdir(void)
{
	char *dir = local_dir();
	int r = 0;

	if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
		log_warn("cannot create %s", dir);
		r = -1;
	}
	free(dir);
	return r;
}

void
local_init(void)
{
	shutting_down = 0;
}

void
local_sweep(void)
{
	char *dir = local_dir(), *path;
	struct dirent *e;
	struct job j;
	int cluster, proc, n;
	DIR *d;

	if ((d = opendir(dir)) == NULL) {
		free(dir);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (sscanf(e->d_name, "%d.%d.exit%n", &cluster, &proc, &n) !=
		    2 || (e->d_name[n] != '\0' &&
		    strcmp(e->d_name + n, ".tmp") != 0))
			continue;
		/* An adopted keeper may be writing its file right now. */
		if (keeper_find(cluster, proc) != NULL ||
		    (e->d_name[n] == '\0' && job_find(cluster, proc, &j) == 0))
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		log_info("removing stale %s", path);
		if (unlink(path) == -1)
			log_warn("cannot remove %s", path);
		free(path);
	}
	closedir(d);
	free(dir);
}

void
local_poke(void)
{
	if (shutting_down)
		return;
	event_timer_cancel(start_timer);
	start_timer = event_timer_add(POKE_DELAY, start_tick, NULL);
}

static struct keeper *
keeper_find(int cluster, int proc)
{
	size_t i;

	for (i = 0; i < nkeepers; i++)
		if (keepers[i].cluster == cluster && keepers[i].proc == proc)
			return &keepers[i];
	return NULL;
}

static struct keeper *
keeper_add(int cluster, int proc)
{
	struct keeper *k;

	if (nkeepers == capkeepers) {
		capkeepers = capkeepers ? capkeepers * 2 : 16;
		keepers = xreallocarray(keepers, capkeepers,
		    sizeof(*keepers));
	}
	k = &keepers[nkeepers++];
	memset(k, 0, sizeof(*k));
	k->cluster = cluster;
	k->proc = proc;
	return k;
}

static void
keeper_drop(struct keeper *k)
{
	event_timer_cancel(k->kill_timer);
	*k = keepers[--nkeepers];
}

/*
 * The start time of process PID (clock ticks after boot, field 22 of
 * /proc/PID/stat), or 0 if there is no such process or it is a zombie.
 */
static unsigned long long
proc_start(pid_t pid)
{
	char path[64], buf[1024], *p, state;
	unsigned long long start;
	ssize_t n;
	int fd, field;

	if (pid <= 1)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* The name in parentheses may hold anything: after its last ')'
	 * come field 3 (the state) and on. */
	if ((p = strrchr(buf, ')')) == NULL || sscanf(p + 1, " %c", &state)
	    != 1 || state == 'Z' || state == 'X')
		return 0;
	for (field = 2; field < 22 && p != NULL; field++)
		p = strchr(p + 1, ' ');
	if (p == NULL || sscanf(p + 1, "%llu", &start) != 1)
		return 0;
	return start;
}

/* Is process PID the one that started at START? */
static int
proc_same(pid_t pid, unsigned long long start)
{
	return pid > 1 && start != 0 && proc_start(pid) == start;
}

/* SIG to the job's process group, and to the job itself should it have
 * left the group. */
static void
job_signal(const struct keeper *k, int sig)
{
	if (k->job <= 1)
		return;
	if (kill(-k->job, sig) == -1 && errno != ESRCH)
		log_warn("kill(-%d, %d)", (int)k->job, sig);
	(void)kill(k->job, sig);
}

/* ---- the keeper and the job (after fork: no log, no allocation that
 * matters, _exit only) ---- */

static void __attribute__((noreturn))
child_fail(int fd, int stage)
{
	int msg[2] = { stage, errno };

	(void)write(fd, msg, sizeof(msg));
	_exit(127);
}

/* PATH on descriptor TARGET; written to only when it is a regular file
 * (or /dev/null), never through a link planted under its name (fdio.h). */
static int
open_onto(const char *path, int flags, int target)
{
	int fd = flags == O_RDONLY ? open(path, flags | O_NOCTTY) :
	    fd_open_user(path, flags, 0644);

	if (fd == -1)
		return -1;
	if (fd != target) {
		if (dup2(fd, target) == -1)
			return -1;
		close(fd);
	}
	return 0;
}

static void __attribute__((noreturn))
job_child(const struct launch *l, int errfd)
{
	sigset_t none;
	int s, fd;

	(void)setpgid(0, 0);
	for (s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			(void)signal(s, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (l->switch_ids && (initgroups(l->user, l->gid) == -1 ||
	    setgid(l->gid) == -1 || setuid(l->uid) == -1))
		child_fail(errfd, STAGE_IDS);
	if (chdir(l->iwd) == -1)
		child_fail(errfd, STAGE_CHDIR);
	if (open_onto(l->in, O_RDONLY, 0) == -1)
		child_fail(errfd, STAGE_IN);
	if (open_onto(l->out, O_WRONLY | O_CREAT | O_APPEND, 1) == -1)
		child_fail(errfd, STAGE_OUT);
	if (open_onto(l->err, O_WRONLY | O_CREAT | O_APPEND, 2) == -1)
		child_fail(errfd, STAGE_ERR);
	/* The user log is the schedd's to append to, as the owner; a link
	 * planted under its name holds the job before it starts. */
	if (l->log != NULL) {
		if ((fd = fd_open_user(l->log, O_WRONLY | O_CREAT | O_APPEND,
		    0644)) == -1)
			child_fail(errfd, STAGE_LOG);
		close(fd);
	}
	execve(l->cmd, l->argv, l->envp);
	child_fail(errfd, STAGE_EXEC);
}

/* Write the job's end to L's exit file: 0, or -1. */
static int
exit_write(const struct launch *l, int status, const struct rusage *ru)
{
	char text[256];
	int fd, len, dfd, ok;

	len = snprintf(text, sizeof(text), "status %d\nuser %ld.%06ld\n"
	    "sys %ld.%06ld\n", status, (long)ru->ru_utime.tv_sec,
	    (long)ru->ru_utime.tv_usec, (long)ru->ru_stime.tv_sec,
	    (long)ru->ru_stime.tv_usec);
	fd = open(l->exit_tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600);
	if (fd == -1)
		return -1;
	ok = write(fd, text, (size_t)len) == len && fsync(fd) == 0;
	if (close(fd) != 0 || !ok || rename(l->exit_tmp, l->exit_path) == -1)
		return -1;
	if ((dfd = open(l->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
	return 0;
}

static void __attribute__((noreturn))
keeper_main(const struct launch *l, int go_fd, int rep_fd)
{
	struct keeper_report rep;
	struct rusage ru;
	sigset_t none;
	pid_t job;
	int a, b, nul, s, ep[2], msg[2], status;
	ssize_t n;
	char go;

	/* Not to die with the schedd (or the master). */
	(void)prctl(PR_SET_PDEATHSIG, 0);
	/* Its two pipes on 3 and 4, /dev/null on 0-2, nothing else: not
	 * the schedd's sockets, lock or logs. */
	if ((a = fcntl(go_fd, F_DUPFD_CLOEXEC, 64)) == -1 ||
	    (b = fcntl(rep_fd, F_DUPFD_CLOEXEC, 64)) == -1 ||
	    dup3(a, 3, O_CLOEXEC) == -1 || dup3(b, 4, O_CLOEXEC) == -1)
		_exit(2);
	if ((nul = open("/dev/null", O_RDWR)) == -1)
		_exit(2);
	for (s = 0; s < 3; s++)
		if (nul != s && dup2(nul, s) == -1)
			_exit(2);
	if (syscall(SYS_close_range, 5U, ~0U, 0U) == -1)
		for (s = 5; s < 65536; s++)
			(void)close(s);
	(void)setsid();
	for (s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			(void)signal(s, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* A stray signal must not cost the job's exit status. */
	signal(SIGHUP, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);

	/* The schedd committed the job Running (or died: then nothing). */
	do {
		n = read(3, &go, 1);
	} while (n == -1 && errno == EINTR);
	if (n != 1)
		_exit(0);
	close(3);

	memset(&rep, 0, sizeof(rep));
	if (pipe2(ep, O_CLOEXEC) == -1 || (job = fork()) == -1) {
		rep.stage = STAGE_FORK;
		rep.err = errno;
		(void)write(4, &rep, sizeof(rep));
		_exit(3);
	}
	if (job == 0) {
		close(ep[0]);
		job_child(l, ep[1]);
	}
	close(ep[1]);
	do {
		n = read(ep[0], msg, sizeof(msg));
	} while (n == -1 && errno == EINTR);
	close(ep[0]);
	rep.job = job;
	rep.job_start = proc_start(job);
	if (n == (ssize_t)sizeof(msg)) {
		rep.stage = msg[0];
		rep.err = msg[1];
	}
	(void)write(4, &rep, sizeof(rep));
	close(4);
	while (wait4(job, &status, 0, &ru) == -1)
		if (errno != EINTR)
			_exit(4);
	if (rep.stage != STAGE_NONE)
		_exit(3);
	_exit(exit_write(l, status, &ru) == 0 ? 0 : 4);
}

/* ---- the schedd's side ---- */

static void
launch_free(struct launch *l)
{
	free(l->cmd);
	free(l->iwd);
	free(l->in);
	free(l->out);
	free(l->err);
	free(l->log);
	jobargs_free(l->argv);
	jobargs_free(l->envp);
	free(l->exit_path);
	free(l->exit_tmp);
	free(l->dir);
	free(l->user);
}

/* PATH (a job attribute) relative to IWD; DFLT if missing or empty. */
static char *
job_file(const struct job *j, const char *name, const char *iwd,
    const char *dflt)
{
	char *v = job_string(j, name), *p;

	if (v == NULL || *v == '\0') {
		free(v);
		return xstrdup(dflt);
	}
	if (v[0] == '/')
		return v;
	p = xasprintf("%s/%s", iwd, v);
	free(v);
	return p;
}

/*
 * Everything J's keeper and job need, into L; -1 with a hold reason in
 * WHY if the job cannot run here.
 */
static int
launch_prepare(const struct job *j, struct launch *l, char *why,
    size_t whylen)
{
	struct passwd *pw;
	char err[256], id[32], **words = NULL, **vars = NULL, *owner, *s;
	int n, i, nv;

	memset(l, 0, sizeof(*l));
	snprintf(id, sizeof(id), "%d.%d", j->cluster, j->proc);
	owner = job_string(j, "Owner");
	if (owner == NULL || (pw = getpwnam(owner)) == NULL) {
		snprintf(why, whylen, "its owner %s is not a user on the "
		    "submitting host", owner ? owner : "(none)");
		free(owner);
		return -1;
	}
	l->user = owner;
	l->uid = pw->pw_uid;
	l->gid = pw->pw_gid;
	if (getuid() == 0)
		l->switch_ids = 1;
	else if (l->uid != getuid()) {
		char me[64];

		user_name(getuid(), me, sizeof(me));
		snprintf(why, whylen, "the schedd runs as %s, not as root: it "
		    "can run scheduler-universe jobs of %s only, not of %s",
		    me, me, owner);
		return -1;
	}
	l->cmd = job_string(j, "Cmd");
	if (l->cmd == NULL || l->cmd[0] != '/') {
		snprintf(why, whylen, "its Cmd is not an absolute path");
		return -1;
	}
	l->iwd = job_string(j, "Iwd");
	if (l->iwd == NULL || l->iwd[0] != '/') {
		free(l->iwd);
		l->iwd = xstrdup(pw->pw_dir && pw->pw_dir[0] == '/' ?
		    pw->pw_dir : "/");
	}
	l->in = job_file(j, "In", l->iwd, "/dev/null");
	l->out = job_file(j, "Out", l->iwd, "/dev/null");
	l->err = job_file(j, "Err", l->iwd, "/dev/null");
	l->log = job_userlog_path(j);

	s = job_string(j, "Args");
	n = jobargs_split(s, &words, err, sizeof(err));
	free(s);
	if (n == -1) {
		snprintf(why, whylen, "its Args: %s", err);
		return -1;
	}
	l->argv = xcalloc((size_t)n + 2, sizeof(*l->argv));
	l->argv[0] = xstrdup(l->cmd);
	for (i = 0; i < n; i++)
		l->argv[i + 1] = words[i];
	free(words);

	/* As the starter builds a vanilla job's: ours, then Env over. */
	s = job_string(j, "Env");
	n = jobenv_parse(s, &vars, err, sizeof(err));
	free(s);
	if (n == -1) {
		snprintf(why, whylen, "its Env: %s", err);
		return -1;
	}
	l->envp = xcalloc(1, sizeof(*l->envp));
	nv = 0;
	nv = jobenv_set(&l->envp, nv, "PATH", JOB_PATH);
	nv = jobenv_set(&l->envp, nv, "HOME", pw->pw_dir ? pw->pw_dir : "/");
	nv = jobenv_set(&l->envp, nv, "USER", owner);
	nv = jobenv_set(&l->envp, nv, "LOGNAME", owner);
	nv = jobenv_set(&l->envp, nv, "CONDOR_JOB_ID", id);
	for (i = 0; i < n; i++) {
		char *eq = strchr(vars[i], '=');

		*eq = '\0';
		nv = jobenv_set(&l->envp, nv, vars[i], eq + 1);
		*eq = '=';
	}
	jobargs_free(vars);
	nv = jobenv_set(&l->envp, nv, "CONDOR_ID", id);

	l->dir = local_dir();
	l->exit_path = exit_path(j->cluster, j->proc);
	l->exit_tmp = xasprintf("%s.tmp", l->exit_path);
	return 0;
}

/*
 * Start job J: -1 if it could not be (held, or left idle after a
 * failure of ours, logged), else 0.
 */
static int
local_start(const struct job *j)
{
	struct keeper_report rep;
	struct launch l;
	struct pollfd pfd;
	struct keeper *k;
	char why[1024], *cmd;
	int go[2], rp[2], cluster = j->cluster, proc = j->proc;
	unsigned long long start;
	ssize_t n;
	pid_t pid;

	if (launch_prepare(j, &l, why, sizeof(why)) == -1) {
		launch_free(&l);
		log_warnx("job %d.%d cannot run: %s", cluster, proc, why);
		queue_local_hold(cluster, proc, why, 0);
		return -1;
	}
	if (local_mkdir() == -1) {
		launch_free(&l);
		return -1;
	}
	submit_flush_events(cluster);
	(void)unlink(l.exit_path);
	if (pipe2(go, O_CLOEXEC) == -1) {
		log_warn("job %d.%d: pipe", cluster, proc);
		launch_free(&l);
		return -1;
	}
	if (pipe2(rp, O_CLOEXEC) == -1) {
		log_warn("job %d.%d: pipe", cluster, proc);
		close(go[0]);
		close(go[1]);
		launch_free(&l);
		return -1;
	}
	if ((pid = fork()) == -1) {
		log_warn("job %d.%d: cannot fork its keeper", cluster, proc);
		close(go[0]);
		close(go[1]);
		close(rp[0]);
		close(rp[1]);
		launch_free(&l);
		return -1;
	}
	if (pid == 0)
		keeper_main(&l, go[0], rp[1]);
	close(go[0]);
	close(rp[1]);
	launch_free(&l);
	start = proc_start(pid);
	k = keeper_add(cluster, proc);
	k->pid = pid;
	k->start = start;
	k->child = 1;
	/* Durable before the job may run: a schedd that dies from here on
	 * finds the keeper in the queue and never starts the job twice. */
	queue_local_started(cluster, proc, pid, start);
	if (write(go[1], "g", 1) != 1)
		log_warn("job %d.%d: cannot start its keeper %d", cluster,
		    proc, (int)pid);
	close(go[1]);
	pfd.fd = rp[0];
	pfd.events = POLLIN;
	memset(&rep, 0, sizeof(rep));
	n = 0;
	if (poll(&pfd, 1, REPORT_WAIT) == 1)
		do {
			n = read(rp[0], &rep, sizeof(rep));
		} while (n == -1 && errno == EINTR);
	close(rp[0]);
	if (n != (ssize_t)sizeof(rep)) {
		log_warnx("job %d.%d: its keeper %d did not report; its end "
		    "will tell", cluster, proc, (int)pid);
		return 0;
	}
	k = keeper_find(cluster, proc);
	if (rep.stage != STAGE_NONE) {
		if (rep.stage < STAGE_FORK || rep.stage > STAGE_EXEC)
			rep.stage = STAGE_EXEC;
		if (rep.stage == STAGE_EXEC) {
			/* As for a job on a machine (condor_starter(8)). */
			cmd = job_string(j, "Cmd");
			snprintf(why, sizeof(why), "Failed to execute '%s': %s",
			    cmd != NULL ? cmd : "", fd_user_strerror(rep.err));
			free(cmd);
		} else
			snprintf(why, sizeof(why), "the schedd cannot %s for "
			    "the scheduler-universe job: %s",
			    stage_names[rep.stage], fd_user_strerror(rep.err));
		log_warnx("job %d.%d: %s", cluster, proc, why);
		if (k != NULL)
			k->failed = 1;
		queue_local_hold(cluster, proc, why, rep.stage == STAGE_EXEC ?
		    rep.err : 0);
		return -1;
	}
	if (k != NULL) {
		k->job = rep.job;
		k->job_start = rep.job_start;
	}
	log_info("job %d.%d started by the schedd: keeper %d, job %d",
	    cluster, proc, (int)pid, (int)rep.job);
	queue_local_job_pid(cluster, proc, rep.job, rep.job_start);
	return 0;
}

static size_t
running_count(void)
{
	size_t i, n = 0;

	for (i = 0; i < nkeepers; i++)
		n += !keepers[i].failed;
	return n;
}

/* Start the idle scheduler and local jobs, as many as may run. */
static void
start_tick(void *arg)
{
	long max = param_int("MAX_SCHEDULER_JOBS_RUNNING", 500);
	struct { int cluster, proc; } *ids = NULL;
	size_t n = 0, cap = 0, i;
	struct job j;
	int ok, st, waiting = 0, started = 0;

	start_timer = 0;
	if (shutting_down || schedd_queue == NULL)
		return;
	/* The ids first: each start commits, which ends the walk. */
	for (ok = job_next(&j, 1); ok; ok = job_next(&j, 0)) {
		st = job_status(&j);
		if (st != JOB_IDLE ||
		    !job_local_universe(&j) || keeper_find(j.cluster, j.proc))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			ids = xreallocarray(ids, cap, sizeof(*ids));
		}
		ids[n].cluster = j.cluster;
		ids[n++].proc = j.proc;
	}
	for (i = 0; i < n; i++) {
		if ((long)running_count() >= max) {
			waiting = 1;
			break;
		}
		if (job_find(ids[i].cluster, ids[i].proc, &j) == -1 ||
		    (st = job_status(&j)) != JOB_IDLE)
			continue;
		if (local_start(&j) == -1)
			waiting = 1;
		started++;
	}
	free(ids);
	if (started > 0)
		schedd_counts_changed();
	if (waiting)
		start_timer = event_timer_add(LOCAL_TICK, start_tick, NULL);
}

/*
 * Read the exit file of job CLUSTER.PROC: 1 with *STATUS, *USER and *SYS
 * set, else 0.
 */
static int
exit_read(int cluster, int proc, int *status, double *user, double *sys)
{
	char *path = exit_path(cluster, proc);
	FILE *f = fopen(path, "re");
	int n = 0;

	free(path);
	if (f == NULL)
		return 0;
	n = fscanf(f, "status %d user %lf sys %lf", status, user, sys);
	fclose(f);
	return n == 3;
}

static int
exit_exists(int cluster, int proc)
{
	char *path = exit_path(cluster, proc);
	int r = access(path, F_OK) == 0;

	free(path);
	return r;
}

/* The job ended: REQUEUE if our shutdown stopped it. */
static void
ended(int cluster, int proc, int requeue)
{
	char *path;
	double user = 0, sys = 0;
	int status = 0, have;

	have = exit_read(cluster, proc, &status, &user, &sys);
	if (!have && !requeue)
		log_warnx("job %d.%d: its keeper left no exit status; the job "
		    "runs again", cluster, proc);
	queue_local_exited(cluster, proc, have, status, user, sys, requeue);
	path = exit_path(cluster, proc);
	if (unlink(path) == -1 && errno != ENOENT)
		log_warn("cannot remove %s", path);
	free(path);
	local_poke();
}

void
local_ended(int cluster, int proc)
{
	ended(cluster, proc, 0);
}

int
local_reaped(pid_t pid, int status)
{
	struct keeper k;
	size_t i;

	for (i = 0; i < nkeepers; i++)
		if (keepers[i].child && keepers[i].pid == pid)
			break;
	if (i == nkeepers)
		return 0;
	k = keepers[i];
	keeper_drop(&keepers[i]);
	if (k.failed) {
		log_debug("job %d.%d: keeper %d ended (the job never ran)",
		    k.cluster, k.proc, (int)pid);
		return 1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		log_warnx("job %d.%d: keeper %d ended with status %#x",
		    k.cluster, k.proc, (int)pid, status);
	ended(k.cluster, k.proc, k.shutdown);
	return 1;
}

pid_t
local_of(int cluster, int proc)
{
	struct keeper *k = keeper_find(cluster, proc);

	if (k == NULL || k->failed)
		return 0;
	return k->pid > 0 ? k->pid : k->job;
}

static double
kill_grace(void)
{
	long g = param_int("VACATE_GRACE", 10);

	return g < 0 ? 0 : (double)g;
}

static void
kill_tick(void *arg)
{
	pid_t job = (pid_t)(long)arg;
	size_t i;

	for (i = 0; i < nkeepers; i++) {
		struct keeper *k = &keepers[i];

		if (k->job != job)
			continue;
		k->kill_timer = 0;
		log_warnx("job %d.%d did not stop after SIGTERM; killing it",
		    k->cluster, k->proc);
		job_signal(k, SIGKILL);
	}
}

void
local_stop(int cluster, int proc)
{
	struct keeper *k = keeper_find(cluster, proc);

	if (k == NULL || k->failed)
		return;
	log_info("stopping job %d.%d (process group %d)", cluster, proc,
	    (int)k->job);
	job_signal(k, SIGTERM);
	k->stopping = 1;
	if (k->kill_timer == 0 && k->job > 1)
		k->kill_timer = event_timer_add(kill_grace(), kill_tick,
		    (void *)(long)k->job);
}

/* Adopted keepers and orphaned jobs: are they still there? */
static void
watch_tick(void *arg)
{
	size_t i;
	int more = 0;

	watch_timer = 0;
	for (i = 0; i < nkeepers;) {
		struct keeper *k = &keepers[i];
		int cluster = k->cluster, proc = k->proc, shutdown;

		if (k->child) {
			i++;
			continue;
		}
		shutdown = k->shutdown;
		if (exit_exists(cluster, proc)) {
			log_info("job %d.%d: its adopted keeper is done",
			    cluster, proc);
			keeper_drop(k);
			ended(cluster, proc, shutdown);
			continue;
		}
		if (k->pid > 0 && !proc_same(k->pid, k->start)) {
			/* It may have written the file just now. */
			if (exit_exists(cluster, proc))
				continue;
			log_warnx("job %d.%d: its keeper %d is gone without an "
			    "exit file", cluster, proc, (int)k->pid);
			k->pid = 0;
		}
		if (k->pid == 0 && !proc_same(k->job, k->job_start)) {
			log_warnx("job %d.%d: its job process %d is gone; its "
			    "exit status is lost", cluster, proc, (int)k->job);
			keeper_drop(k);
			ended(cluster, proc, 1);
			continue;
		}
		more = 1;
		i++;
	}
	if (more)
		watch_timer = event_timer_add(WATCH_TICK, watch_tick, NULL);
}

int
local_recover(const struct job *j)
{
	pid_t kpid = (pid_t)job_int(j, "LocalKeeperPid", 0);
	pid_t jpid = (pid_t)job_int(j, "LocalJobPid", 0);
	unsigned long long kstart, jstart;
	struct keeper *k;
	int st = job_status(j);

	kstart = (unsigned long long)job_int(j, "LocalKeeperStart", 0);
	jstart = (unsigned long long)job_int(j, "LocalJobStart", 0);
	if (exit_exists(j->cluster, j->proc)) {
		log_info("job %d.%d ended while no schedd ran", j->cluster,
		    j->proc);
		return LOCAL_ENDED;
	}
	if (proc_same(kpid, kstart)) {
		log_info("job %d.%d runs on: its keeper %d is adopted",
		    j->cluster, j->proc, (int)kpid);
		k = keeper_add(j->cluster, j->proc);
		k->pid = kpid;
		k->start = kstart;
	} else if (proc_same(jpid, jstart)) {
		log_warnx("job %d.%d: its keeper %d is gone but the job (%d) "
		    "runs on: watched, and run again when it ends",
		    j->cluster, j->proc, (int)kpid, (int)jpid);
		k = keeper_add(j->cluster, j->proc);
	} else
		return LOCAL_GONE;
	k->job = jpid > 1 ? jpid : 0;
	k->job_start = jstart;
	if (watch_timer == 0)
		watch_timer = event_timer_add(WATCH_TICK, watch_tick, NULL);
	/* Removed or held before the last schedd could stop it. */
	if (st != JOB_RUNNING && st != JOB_SUSPENDED)
		local_stop(j->cluster, j->proc);
	return LOCAL_RUNS;
}

void
local_shutdown_begin(void)
{
	size_t i;

	shutting_down = 1;
	event_timer_cancel(start_timer);
	start_timer = 0;
	if (running_count() > 0)
		log_info("stopping %zu scheduler-universe job(s)",
		    running_count());
	for (i = 0; i < nkeepers; i++) {
		if (keepers[i].failed)
			continue;
		keepers[i].shutdown = 1;
		job_signal(&keepers[i], SIGTERM);
	}
}

void
local_shutdown(double wait)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	double t0 = monotime(), grace = kill_grace();
	int killed = 0, status;
	size_t i;
	pid_t pid;

	if (grace > wait)
		grace = wait;
	while (running_count() > 0 && monotime() < t0 + wait + 2) {
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
			if (!local_reaped(pid, status))
				(void)shadow_reaped(pid, status);
		for (i = 0; i < nkeepers;)
			if (keepers[i].failed)
				keeper_drop(&keepers[i]);
			else
				i++;
		if (running_count() > 0)
			watch_tick(NULL);
		if (!killed && monotime() > t0 + grace) {
			for (i = 0; i < nkeepers; i++)
				job_signal(&keepers[i], SIGKILL);
			killed = 1;
		}
		nanosleep(&ts, NULL);
	}
	if (running_count() > 0)
		log_warnx("%zu scheduler-universe job(s) still running; the "
		    "next schedd will adopt them", running_count());
}
