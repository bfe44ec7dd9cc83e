/*
 * starter_job.c: the execute directory and the job's process.
 *
 * The job runs as EXECUTE_USER, never root, in a directory of its own
 * that nobody else may enter, with a clean environment, in a session and
 * process group of its own so that one signal reaches every process it
 * started.  Its standard files are opened by the starter before the job
 * exists and read back through descriptors the starter kept: whatever
 * the job later does to the names (a symbolic link to a file only root
 * may read, say) cannot make the starter ship something else.  For the
 * same reason the directory is emptied with the file system ids of the
 * job's account, never by root walking a tree the job controlled.
 */
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ad.h"
#include "config.h"
#include "daemon.h"
#include "event.h"
#include "jobargs.h"
#include "log.h"
#include "priv.h"
#include "starter.h"
#include "xalloc.h"

#define JOB_PATH	"/usr/local/bin:/usr/bin:/bin"

char *
job_string(const struct starter_job *job, const char *name)
{
	char *s;

	if (ad_get_string(job->ad, name, &s) == -1)
		return xstrdup("");
	return s;
}

int
job_wants_file(const struct starter_job *job, const char *name)
{
	char *s = job_string(job, name);
	int wants = *s != '\0' && strcmp(s, "/dev/null") != 0;

	free(s);
	return wants;
}

int
job_user(struct starter_job *job, char *err, size_t errlen)
{
	const char *name = param("EXECUTE_USER");

	if (geteuid() != 0) {
		/* A personal pool: the job runs as the pool's user. */
		job->uid = getuid();
		job->gid = getgid();
		user_name(job->uid, job->user, sizeof(job->user));
		if (name != NULL && *name != '\0' &&
		    strcmp(name, job->user) != 0)
			log_info("not root: the job runs as %s, not "
			    "EXECUTE_USER %s", job->user, name);
		return 0;
	}
	if (name == NULL || *name == '\0' ||
	    user_lookup(name, &job->uid, &job->gid) == -1) {
		snprintf(err, errlen, "EXECUTE_USER %s is not a user on this "
		    "machine", name ? name : "(unset)");
		return -1;
	}
	if (job->uid == 0) {
		snprintf(err, errlen, "EXECUTE_USER %s is root; jobs never "
		    "run as root", name);
		return -1;
	}
	snprintf(job->user, sizeof(job->user), "%s", name);
	return 0;
}

/*
 * The job's directory, emptied by descriptors: never a name followed
 * twice, never a symbolic link followed.  Each directory is opened up
 * (0700) before it is read, whatever mode the job left it in; one
 * deeper than CLEAN_DEPTH is moved up to the top and emptied from there
 * on a later pass, so that no depth runs out of descriptors or stack.
 */
#define CLEAN_DEPTH	64

static int
open_dir_at(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);

	if (fd == -1 && errno == EACCES &&
	    fchmodat(dfd, name, 0700, 0) == 0)
		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd != -1)
		(void)fchmod(fd, 0700);
	return fd;
}

/* Empty the directory DFD (at DEPTH below TOP); how many directories
 * were moved up to TOP to be emptied later. */
static int
empty_dir(int dfd, int top, int depth, unsigned *moved)
{
	char up[64];
	struct dirent *e;
	DIR *d;
	int fd, n = 0;

	if ((fd = dup(dfd)) == -1)
		return 0;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return 0;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (unlinkat(dfd, e->d_name, 0) == 0 || errno != EISDIR)
			continue;
		if (depth >= CLEAN_DEPTH) {
			snprintf(up, sizeof(up), ".condor_up_%u", (*moved)++);
			if (renameat(dfd, e->d_name, top, up) == 0)
				n++;
			continue;
		}
		if ((fd = open_dir_at(dfd, e->d_name)) != -1) {
			n += empty_dir(fd, top, depth + 1, moved);
			close(fd);
		}
		unlinkat(dfd, e->d_name, AT_REMOVEDIR);
	}
	closedir(d);
	return n;
}

/*
 * Empty DIR with every file access checked as UID/GID, then remove the
 * empty DIR.  A root starter takes the file system ids of the account
 * (setfsuid, setfsgid, and its one group) for the walk and its own back
 * after: no process is made for it, and root never walks a tree the job
 * controlled with root's rights.  DIR itself is opened first, with the
 * starter's own rights: the account may not search the directories
 * above EXECUTE (a LOCAL_DIR under a 0700 directory), and the walk below
 * goes from that descriptor alone.  (O_NOFOLLOW: a job that put a
 * symbolic link in its directory's place gets nothing removed for it.)
 */
static void
clean_tree(const char *dir, uid_t uid, gid_t gid)
{
	gid_t *groups = NULL;
	struct stat st;
	unsigned moved = 0;
	int root = geteuid() == 0, ngroups = 0, fd;
	uid_t ofsuid = 0;
	gid_t ofsgid = 0;

	if (lstat(dir, &st) == -1)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(dir);
		return;
	}
	if ((fd = open_dir_at(AT_FDCWD, dir)) == -1) {
		log_warn("cannot clean %s", dir);
		return;
	}
	if (root) {
		if ((ngroups = getgroups(0, NULL)) == -1 ||
		    (groups = xcalloc((size_t)ngroups + 1,
		    sizeof(*groups)), getgroups(ngroups, groups)) != ngroups ||
		    setgroups(1, &gid) == -1) {
			log_warn("cannot clean %s: groups", dir);
			free(groups);
			close(fd);
			return;
		}
		/* (An invalid id changes nothing and says what is.) */
		ofsuid = (uid_t)setfsuid((uid_t)-1);
		ofsgid = (gid_t)setfsgid((gid_t)-1);
		setfsgid(gid);
		setfsuid(uid);
		if ((uid_t)setfsuid(uid) != uid ||
		    (gid_t)setfsgid(gid) != gid) {
			log_warnx("cannot clean %s: cannot take uid %u",
			    dir, (unsigned)uid);
			goto back;
		}
	}
	while (empty_dir(fd, fd, 0, &moved) > 0 && moved < 1000000)
		;
back:
	close(fd);
	if (root) {
		setfsuid(ofsuid);
		setfsgid(ofsgid);
		if ((uid_t)setfsuid(ofsuid) != ofsuid ||
		    (gid_t)setfsgid(ofsgid) != ofsgid ||
		    setgroups((size_t)ngroups, groups) == -1)
			panic("cannot return to the starter's own ids: %s",
			    strerror(errno));
		free(groups);
	}
	if (rmdir(dir) == -1 && errno != ENOENT)
		log_warn("cannot remove %s", dir);
}

int
job_make_dir(struct starter_job *job, char *err, size_t errlen)
{
	const char *execute = param("EXECUTE");
	struct stat st;
	int n;

	if (execute == NULL || *execute == '\0') {
		snprintf(err, errlen, "EXECUTE is not set");
		return -1;
	}
	if (daemon_mkdir(execute, 0755) == -1) {
		snprintf(err, errlen, "cannot create EXECUTE %s: %s", execute,
		    strerror(errno));
		return -1;
	}
	n = snprintf(job->dir, sizeof(job->dir), "%s/dir_%d", execute,
	    (int)getpid());
	if (n < 0 || (size_t)n >= sizeof(job->dir)) {
		snprintf(err, errlen, "EXECUTE %s is too long", execute);
		job->dir[0] = '\0';
		return -1;
	}
	if (lstat(job->dir, &st) == 0) {
		/* Left by an earlier starter with our pid that died. */
		log_info("removing the stale %s", job->dir);
		clean_tree(job->dir, st.st_uid ? st.st_uid : job->uid,
		    st.st_uid ? st.st_gid : job->gid);
	}
	if (mkdir(job->dir, 0700) == -1) {
		snprintf(err, errlen, "cannot create %s: %s", job->dir,
		    strerror(errno));
		job->dir[0] = '\0';
		return -1;
	}
	if (geteuid() == 0 && chown(job->dir, job->uid, job->gid) == -1) {
		snprintf(err, errlen, "cannot give %s to %s: %s", job->dir,
		    job->user, strerror(errno));
		return -1;
	}
	return 0;
}

/* The job's end: its processes, its directory, its account. */
void
job_clean_dir(struct starter_job *job)
{
	box_cgroup_end(job);
	box_memory_end(job);
	box_account_sweep(job);
	if (job->dir[0] != '\0')
		clean_tree(job->dir, job->uid, job->gid);
	job->dir[0] = '\0';
	box_account_release(job);
}

/* Create NAME in the execute directory for the job: O_EXCL, the job's. */
static int
create_for_job(struct starter_job *job, const char *name, int flags,
    mode_t mode, char *err, size_t errlen)
{
	char path[PATH_MAX + 64];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", job->dir, name);
	fd = open(path, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    mode);
	if (fd == -1) {
		snprintf(err, errlen, "cannot create %s: %s", path,
		    strerror(errno));
		return -1;
	}
	if ((geteuid() == 0 && fchown(fd, job->uid, job->gid) == -1) ||
	    fchmod(fd, mode) == -1) {
		snprintf(err, errlen, "cannot set up %s: %s", path,
		    strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Open NAME in the execute directory again, read-only, for the starter. */
static int
reopen_ro(struct starter_job *job, const char *name, char *err,
    size_t errlen)
{
	char path[PATH_MAX + 64];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", job->dir, name);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		snprintf(err, errlen, "cannot open %s: %s", path,
		    strerror(errno));
	return fd;
}

/* One of the job's output streams: NAME in its directory, with *WFD
 * for the job and *RFD for the starter to ship it back, if SHIP; else
 * /dev/null (a stream nobody will see does not go to the disk). */
static int
open_output(struct starter_job *job, int ship, const char *name, int *wfd,
    int *rfd, char *err, size_t errlen)
{
	if (!ship) {
		if ((*wfd = open("/dev/null", O_WRONLY | O_CLOEXEC)) == -1)
			snprintf(err, errlen, "cannot open /dev/null: %s",
			    strerror(errno));
		return *wfd == -1 ? -1 : 0;
	}
	if ((*wfd = create_for_job(job, name, O_WRONLY, 0600, err,
	    errlen)) == -1)
		return -1;
	return (*rfd = reopen_ro(job, name, err, errlen)) == -1 ? -1 : 0;
}

int
job_open_std(struct starter_job *job, char *err, size_t errlen)
{
	char *out = job_string(job, "Out"), *errf = job_string(job, "Err");

	job->ship_out = job_wants_file(job, "Out");
	job->ship_err = job_wants_file(job, "Err");
	/* Both streams to one file: one descriptor, or they would write
	 * over each other at their own offsets. */
	job->err_is_out = job->ship_out && job->ship_err &&
	    strcmp(out, errf) == 0;
	free(out);
	free(errf);
	if (job->ship_err && job->err_is_out)
		job->ship_err = 0;

	if (job_wants_file(job, "In"))
		job->stdin_fd = reopen_ro(job, STARTER_STDIN, err, errlen);
	else
		job->stdin_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (job->stdin_fd == -1)
		return -1;
	if (open_output(job, job->ship_out, STARTER_STDOUT, &job->stdout_fd,
	    &job->out_rfd, err, errlen) == -1)
		return -1;
	if (job->err_is_out)
		return 0;
	return open_output(job, job->ship_err, STARTER_STDERR,
	    &job->stderr_fd, &job->err_rfd, err, errlen);
}

/*
 * NAMES ("GPU-0,GPU-2") as numbers ("0,2") in BUF: each name's part
 * after its last '-'; a list too long for BUF is cut at a comma.
 */
static void
gpu_numbers(const char *names, char *buf, size_t len)
{
	const char *p = names, *end, *num;
	size_t off = 0, n;

	buf[0] = '\0';
	while (*p != '\0') {
		end = p + strcspn(p, ",");
		for (num = end; num > p && num[-1] != '-'; num--)
			;
		n = (size_t)(end - num);
		if (off + n + 2 > len)
			break;
		if (off > 0)
			buf[off++] = ',';
		memcpy(buf + off, num, n);
		off += n;
		buf[off] = '\0';
		p = *end == ',' ? end + 1 : end;
	}
}

/* The job's environment: a few of ours, then its Env over them. */
static char **
job_environment(struct starter_job *job, char *err, size_t errlen)
{
	char *env = job_string(job, "Env"), **vars, **base, id[32];
	const char *dir;
	int n, nb = 0, i;

	n = jobenv_parse(env, &vars, err, errlen);
	free(env);
	if (n == -1)
		return NULL;
	snprintf(id, sizeof(id), "%d.%d", job->cluster, job->proc);
	base = xcalloc(1, sizeof(*base));
	nb = jobenv_set(&base, nb, "PATH", JOB_PATH);
	/* Names of the job's own directory as the job sees it: a chrooted
	 * job's is "/"; the host's path of it would name what is outside
	 * its box. */
	dir = job->dir_is_root ? "/" : job->dir;
	nb = jobenv_set(&base, nb, "HOME", dir);
	nb = jobenv_set(&base, nb, "TMPDIR", dir);
	nb = jobenv_set(&base, nb, "USER", job->user);
	nb = jobenv_set(&base, nb, "LOGNAME", job->user);
	nb = jobenv_set(&base, nb, "_CONDOR_SCRATCH_DIR", dir);
	nb = jobenv_set(&base, nb, "CONDOR_JOB_ID", id);
	for (i = 0; i < n; i++) {
		char *eq = strchr(vars[i], '=');

		*eq = '\0';
		nb = jobenv_set(&base, nb, vars[i], eq + 1);
		*eq = '=';
	}
	jobargs_free(vars);
	/* The slot's GPUs: "GPU-0,GPU-2" and their numbers, "0,2". */
	if (job->assigned_gpus != NULL && *job->assigned_gpus != '\0') {
		char nums[512];

		gpu_numbers(job->assigned_gpus, nums, sizeof(nums));
		nb = jobenv_set(&base, nb, "CUDA_VISIBLE_DEVICES", nums);
		nb = jobenv_set(&base, nb, "_CONDOR_AssignedGPUs",
		    job->assigned_gpus);
	}
	/* The universe's own, over the job's. */
	for (i = 0; job->extra_env != NULL && job->extra_env[i] != NULL;
	    i++) {
		char *eq = strchr(job->extra_env[i], '=');

		*eq = '\0';
		nb = jobenv_set(&base, nb, job->extra_env[i], eq + 1);
		*eq = '=';
	}
	return base;
}

/* What the child reports on its error pipe when it cannot exec. */
struct child_failure {
	int	stage;
	int	err;
};

enum {
	STAGE_SETSID = 1, STAGE_USER, STAGE_DEATHSIG, STAGE_CHDIR,
	STAGE_FILES, STAGE_SANDBOX, STAGE_EXEC,
};

static const char *stage_names[] = {
	"", "setsid", "become EXECUTE_USER", "set the parent-death signal",
	"enter the execute directory", "open its standard files",
	"set up the sandbox", "execute",
};

static void __attribute__((noreturn))
child_fail(int fd, int stage)
{
	struct child_failure f = { stage, errno };

	if (write(fd, &f, sizeof(f)) < 0) {
		/* nobody to tell */
	}
	_exit(127);
}

/* Mark every descriptor from LOW on close-on-exec. */
static void
cloexec_from(int low)
{
	long max, fd;

	if (close_range((unsigned)low, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return;
	max = sysconf(_SC_OPEN_MAX);
	for (fd = low; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
		fcntl((int)fd, F_SETFD, FD_CLOEXEC);
}

char *
job_exe_path(const struct starter_job *job, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", job->chrooted ? "" : job->dir,
	    STARTER_EXE);
	return buf;
}

/*
 * The init of the job's PID namespace, its pid 1: the process the
 * starter made forks the job's and stays to wait for it.  When the
 * job's process ends, its init hands the starter the wait status on
 * STATUS_WFD and exits, and the kernel kills whatever else the job left
 * in the namespace.  Signals the starter sends the job's process group
 * reach the job's process; the init ignores all but SIGKILL and SIGSTOP
 * (pid 1 with no handlers).  Returns in the job's process.
 */
static void
pid_init(struct starter_job *job, int errfd)
{
	sigset_t none;
	pid_t pid, r;
	int s, status = 127 << 8;

	if ((pid = fork()) == -1)
		child_fail(errfd, STAGE_SANDBOX);
	if (pid == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
			child_fail(errfd, STAGE_DEATHSIG);
		return;
	}
	/* Nothing of the starter's but the status pipe (not even its
	 * standard files, which the startd watches to see the starter go;
	 * and a chrooted job may have no /dev/null), and no handler of the
	 * starter's. */
	if (dup2(job->status_wfd, 3) == -1)
		_exit(127);
	close_range(0, 2, 0);
	close_range(4, ~0U, 0);
	for (s = 1; s < NSIG; s++)
		signal(s, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	while ((r = waitpid(-1, &s, 0)) != pid)
		if (r == -1 && errno != EINTR)
			_exit(127);
	status = s;
	if (write(3, &status, sizeof(status)) != (ssize_t)sizeof(status))
		_exit(127);
	_exit(0);
}

/* The job's wait status: its init's word for it, if it has an init. */
void
job_init_status(struct starter_job *job, int *status)
{
	int s;

	if (job->status_fd < 0)
		return;
	if (read(job->status_fd, &s, sizeof(s)) == (ssize_t)sizeof(s))
		*status = s;
	close(job->status_fd);
	job->status_fd = -1;
}

/*
 * The job's owner, with the groups read before the box was made
 * (owner_account): inside it the user database's services may be out
 * of reach.  0 or -1.
 */
static int
become_owner(const struct starter_job *job)
{
	if (setgroups((size_t)job->ngroups, job->groups) == -1 ||
	    setresgid(job->gid, job->gid, job->gid) == -1 ||
	    setresuid(job->uid, job->uid, job->uid) == -1)
		return -1;
	return 0;
}

/* In the child: become the job.  Never returns. */
static void __attribute__((noreturn))
job_child(struct starter_job *job, char **argv, char **envp, int errfd,
    pid_t parent)
{
	char exe[PATH_MAX + 64];
	sigset_t none;
	int s;

	if (setsid() == -1)
		child_fail(errfd, STAGE_SETSID);
	if (box_cgroup_enter(job) == -1 || box_memory_enter(job) == -1)
		child_fail(errfd, STAGE_SANDBOX);
	if (job->u->root_setup != NULL && job->u->root_setup(job) == -1)
		child_fail(errfd, STAGE_SANDBOX);
	if (geteuid() == 0 && (job->as_owner ? become_owner(job) :
	    job->no_pw ? priv_become_id(job->uid, job->gid) :
	    priv_become_user(job->uid, job->gid)) == -1)
		child_fail(errfd, STAGE_USER);
	/* Never root, whoever the account is (its owner's included). */
	if (geteuid() == 0 || getuid() == 0)
		child_fail(errfd, STAGE_USER);
	/* Set after the id change, which clears it: if the starter dies
	 * (even by SIGKILL), the job dies with it. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
		child_fail(errfd, STAGE_DEATHSIG);
	/* (The init of a PID namespace sees no parent.) */
	if (getppid() != (job->pidns ? 0 : parent))
		_exit(127);
	if (job->pidns)
		pid_init(job, errfd);
	/* On a shared file system, its Iwd (entered as the owner, whose
	 * rights decide). */
	if (chdir(job->chrooted ? "/" : job->shared_fs ? job->iwd :
	    job->dir) == -1)
		child_fail(errfd, STAGE_CHDIR);
	if (dup2(job->stdin_fd, STDIN_FILENO) == -1 ||
	    dup2(job->stdout_fd, STDOUT_FILENO) == -1 ||
	    dup2(job->err_is_out ? job->stdout_fd : job->stderr_fd,
	    STDERR_FILENO) == -1)
		child_fail(errfd, STAGE_FILES);
	/* Nothing of the starter's but the error pipe survives exec. */
	cloexec_from(3);
	if (job->u->child_setup != NULL && job->u->child_setup(job) == -1)
		child_fail(errfd, STAGE_SANDBOX);
	for (s = 1; s < NSIG; s++)
		signal(s, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (job->exec_fd >= 0)
		syscall(SYS_execveat, job->exec_fd, "", argv, envp,
		    AT_EMPTY_PATH);
	else
		execve(job_exe_path(job, exe, sizeof(exe)), argv, envp);
	child_fail(errfd, STAGE_EXEC);
}

/*
 * Is ERR, execve's, about the program itself (its format, its #!
 * interpreter, its permissions), so that no machine would run it?
 * Running out of memory or descriptors is this machine's trouble.
 */
static int
exec_errno_jobs(int err)
{
	switch (err) {
	case ENOENT:		/* its #! interpreter or loader: none */
	case EACCES:		/* ... or not executable */
	case ENOEXEC:		/* not a program for this machine */
	case ELIBBAD:
	case E2BIG:		/* its arguments and environment */
	case ENOTDIR:
	case ELOOP:
	case EISDIR:
	case ENAMETOOLONG:
		return 1;
	}
	return 0;
}

/*
 * The reason a job whose program could not be executed is held with:
 * HTCondor's "Failed to execute 'CMD': TEXT", and for a script, what is
 * wrong with its #! line (a carriage return at its end is the usual
 * cause: a script written with DOS line endings).
 */
static void
exec_failure(struct starter_job *job, int err, char *out, size_t outlen)
{
	char path[PATH_MAX + 64], line[256], *cmd, *nl, *p, *q;
	ssize_t n;
	int fd, cr = 0;

	cmd = job_string(job, "Cmd");
	snprintf(out, outlen, "Failed to execute '%s': %s",
	    cmd != NULL ? cmd : STARTER_EXE, strerror(err));
	free(cmd);
	if (err != ENOENT && err != EACCES)
		return;
	/* (The starter sees the execute directory where it made it.) */
	snprintf(path, sizeof(path), "%s/%s", job->dir, STARTER_EXE);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return;
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n < 3 || line[0] != '#' || line[1] != '!')
		return;
	line[n] = '\0';
	if ((nl = strchr(line, '\n')) == NULL)
		return;
	*nl = '\0';
	for (p = line + 2; *p == ' ' || *p == '\t'; p++)
		;
	for (q = p; *q != '\0' && *q != ' ' && *q != '\t' && *q != '\r';
	    q++)
		;
	cr = *q == '\r' && q[1] == '\0';
	*q = '\0';
	if (*p == '\0')
		return;
	n = (ssize_t)strlen(out);
	if (cr)
		snprintf(out + n, outlen - (size_t)n, " (its #! interpreter "
		    "is \"%s\\r\": the script has DOS (CRLF) line endings)",
		    p);
	else
		snprintf(out + n, outlen - (size_t)n, " (its #! interpreter "
		    "%s %s)", p, err == ENOENT ? "does not exist" :
		    "cannot be executed");
}

int
job_spawn(struct starter_job *job, char *err, size_t errlen,
    int *jobs_fault)
{
	struct child_failure f;
	char *args = job_string(job, "Args"), **words, **argv, **envp;
	pid_t pid, parent = getpid();
	int n, i, p[2], status;
	ssize_t r;

	*jobs_fault = 1;
	n = jobargs_split(args, &words, err, errlen);
	free(args);
	if (n == -1)
		return -1;
	if ((envp = job_environment(job, err, errlen)) == NULL) {
		jobargs_free(words);
		return -1;
	}
	argv = xcalloc((size_t)n + 2, sizeof(*argv));
	argv[0] = STARTER_EXE;
	for (i = 0; i < n; i++)
		argv[i + 1] = words[i];
	*jobs_fault = 0;
	if (pipe2(p, O_CLOEXEC) == -1) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		goto out;
	}
	if (job->pidns) {
		int sp[2];

		if (pipe2(sp, O_CLOEXEC | O_NONBLOCK) == -1) {
			snprintf(err, errlen, "pipe: %s", strerror(errno));
			close(p[0]);
			close(p[1]);
			goto out;
		}
		job->status_fd = sp[0];
		job->status_wfd = sp[1];
	}
	if ((pid = box_fork(job)) == -1) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		goto out;
	}
	if (pid == 0) {
		close(p[0]);
		job_child(job, argv, envp, p[1], parent);
	}
	close(p[1]);
	if (job->status_wfd >= 0) {
		close(job->status_wfd);
		job->status_wfd = -1;
	}
	/* The job has the system-call connection now; not ours to keep. */
	if (job->syscall_fd > 0) {
		close(job->syscall_fd);
		job->syscall_fd = 0;
	}
	for (i = 0; i < (int)(sizeof(job->give_fds) /
	    sizeof(job->give_fds[0])); i++)
		if (job->give_fds[i] > 0) {
			close(job->give_fds[i]);
			job->give_fds[i] = -1;
		}
	do {
		r = read(p[0], &f, sizeof(f));
	} while (r == -1 && errno == EINTR);
	close(p[0]);
	if (r == (ssize_t)sizeof(f)) {
		while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
			;
		if (job->status_fd >= 0) {
			close(job->status_fd);
			job->status_fd = -1;
		}
		if (f.stage < STAGE_SETSID || f.stage > STAGE_EXEC)
			f.stage = STAGE_EXEC;
		/* A program no machine can run is the job's fault: it is
		 * held, never tried again elsewhere; so is an initialdir
		 * on the shared file system its owner cannot enter (it is
		 * there: owner_shared_fs saw it).  Anything else is ours. */
		if (f.stage == STAGE_EXEC && exec_errno_jobs(f.err)) {
			*jobs_fault = 1;
			job->exec_errno = f.err;
			exec_failure(job, f.err, err, errlen);
		} else if (f.stage == STAGE_CHDIR && job->shared_fs) {
			*jobs_fault = 1;
			snprintf(err, errlen, "cannot enter its initialdir %s "
			    "as %s: %s", job->iwd, job->user,
			    strerror(f.err));
		} else
			snprintf(err, errlen, "cannot %s %s: %s",
			    stage_names[f.stage], f.stage == STAGE_EXEC ?
			    "the job" : "for the job", strerror(f.err));
		goto out;
	}
	job->pid = pid;
	job->running = 1;
	job->started = monotime();
	log_info("job %d.%d started: pid %d as %s in %s", job->cluster,
	    job->proc, (int)pid, job->user, job->shared_fs ? job->iwd :
	    job->dir);
out:
	free(argv);
	jobargs_free(words);
	jobargs_free(envp);
	return job->running ? 0 : -1;
}

/* SIG to the job's own process: with an init of its own (which would
 * ignore it), through its process group. */
void
job_signal_main(struct starter_job *job, int sig)
{
	if (job->pid > 0)
		kill(job->pidns ? -job->pid : job->pid, sig);
}

void
job_signal(struct starter_job *job, int sig)
{
	if (job->pid <= 0)
		return;
	/* The whole process group; its leader alone if the group is
	 * gone (the job left it). */
	if (kill(-job->pid, sig) == -1 && errno == ESRCH && job->running)
		kill(job->pid, sig);
}
