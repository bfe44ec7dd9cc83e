/*
 * starter_box.c: what keeps a job in on the execute host.
 *
 * An account of its own.  When the starter is root, every job runs as
 * an account no other running job has: one of SLOT_USERS (dedicated
 * accounts the machine's owner made), or else a numeric id of
 * SLOT_UID_RANGE that no user of this machine has.  An EXECUTE_USER set
 * in the configuration (with no SLOT_USERS) is taken as the owner's
 * wish that jobs share that account, and the log says so.  An account
 * is held with a lock file in SLOT_LOCK_DIR, machine-wide because ids
 * are, for as long as the starter lives; the lock goes with the
 * starter, however it ends.  Whoever takes an account kills every
 * process still running under it (kill(-1) from a child that has
 * become the account: it reaches exactly that account's processes),
 * unless the lock file says "clean" (the last starter saw them all
 * gone), and so does the starter when its job ends, unless the job's
 * emptied cgroup already has.  A job therefore can read no
 * other job's files (its execute directory is 0700 and its own), signal
 * no other job's processes, and leave nothing behind.
 *
 * A cgroup of its own.  Where cgroup v2 is mounted and the starter is
 * root, the job's processes are kept in BASE_CGROUP/job_PID (PID the
 * starter's): the job's process is made in it (clone3), so every
 * process the job makes is there, whatever it does with sessions and
 * process groups; at the end cgroup.kill empties it and it is removed.
 * Without one, the job's process is made the init of a PID namespace
 * of its own (starter_job.c), whose end the kernel makes the end of
 * everything in it, and the account's sweep above is done as well; a
 * personal pool (not root) has neither, and only the job's process
 * group is killed.  The StarterLog says which.
 *
 * The vanilla box (as root; an ordinary user's starter cannot build
 * one, and says so).  The job gets namespaces of its own: mounts, IPC
 * (System V and POSIX queues: no other job's shared memory), and, when
 * ALLOW_NETWORK_FOR_JOBS is false, the network (a loopback only).  Its
 * root is a new one: the system's directories (JOB_SYSTEM_DIRS: /usr,
 * /etc, ...) and /dev, /sys, read-only; a /proc of its own (of its PID
 * namespace, or, in a cgroup, one that shows its account's processes
 * alone: never the host's); its execute directory at the same path,
 * read-write; and a private /tmp, /var/tmp and /dev/shm, all three the
 * directory _condor_tmp inside its execute directory.
 * Nothing else of the machine is there: no /home, no other job's
 * directory, none of the pool's own files; only a job run as its owner
 * on a shared file system sees SHARED_FILESYSTEM_DIRS too
 * (starter_owner.c).  The no-new-privileges bit
 * is set, so no set-user-id program can take the job out again.
 *
 * The standard box is the starter's too: the outer seccomp filter
 * (src/common/box_filter.c) is installed before the exec of the job,
 * which goes through execveat on a descriptor the exec closes; nothing
 * in the job's file (.preinit_array, constructors, code that never
 * calls the library) runs outside it.  Its chroot and personality are
 * in starter_universe.c; its /proc is box_proc_fd's, below.
 */
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <net/if.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "box_filter.h"
#include "config.h"
#include "daemon.h"
#include "log.h"
#include "priv.h"
#include "starter.h"
#include "xalloc.h"

#define BOX_TMP		"_condor_tmp"

/* mount_setattr(2), for a whole tree read-only at once. */
#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY	0x00000001
#endif
#ifndef MOUNT_ATTR_NOSUID
#define MOUNT_ATTR_NOSUID	0x00000002
#endif
#ifndef MOUNT_ATTR_NODEV
#define MOUNT_ATTR_NODEV	0x00000004
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE		0x8000
#endif
struct box_mount_attr {
	uint64_t	attr_set, attr_clr, propagation, userns_fd;
};

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* ---- an account of its own ---- */

int
proc_stat_read(long pid, struct proc_stat *ps)
{
	char path[64], buf[1024], *p;
	struct stat st;
	long long pages;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld", pid);
	if (stat(path, &st) == -1)
		return -1;
	ps->uid = st.st_uid;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	/* After the command's closing parenthesis: state, ppid, pgrp, ...
	 * rss is field 24. */
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 2, "%c %*d %ld %*d %*d %*d %*u %*u %*u %*u %*u %*u "
	    "%*u %*d %*d %*d %*d %*d %*d %*u %*u %lld", &ps->state,
	    &ps->pgrp, &pages) != 3)
		return -1;
	ps->rss = pages * sysconf(_SC_PAGESIZE);
	return 0;
}

/* Whether a process other than the caller, and not a zombie, runs as
 * UID (its /proc directory is its effective uid's). */
static int
account_busy(uid_t uid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	struct proc_stat ps;
	long pid;
	int busy = 0;

	if (d == NULL)
		return 0;
	while (!busy && (e = readdir(d)) != NULL) {
		if ((pid = atol(e->d_name)) <= 0 || pid == (long)getpid())
			continue;
		if (proc_stat_read(pid, &ps) == 0 && ps.uid == uid &&
		    ps.state != 'Z' && ps.state != 'X')
			busy = 1;
	}
	closedir(d);
	return busy;
}

/*
 * Kill every process of UID (but the caller): kill(-1) from a child
 * that has become UID reaches exactly that account's processes.  Again
 * until none is left (zombies aside), or a few seconds have gone: kill
 * (-1) itself cannot tell, it succeeds whenever any process exists.
 */
static int
sweep_account(uid_t uid, gid_t gid, int no_pw)
{
	pid_t pid;
	int status;

	if ((pid = fork()) == -1) {
		log_warn("cannot sweep the processes of uid %u: fork",
		    (unsigned)uid);
		return -1;
	}
	if (pid == 0) {
		int i;

		if ((no_pw ? priv_become_id(uid, gid) :
		    priv_become_user(uid, gid)) == -1 || getuid() != uid)
			_exit(2);
		for (i = 0; i < 500; i++) {
			kill(-1, SIGKILL);
			if (!account_busy(uid))
				_exit(0);
			sleep_ms(10);
		}
		_exit(1);
	}
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		log_warnx("processes of uid %u may be left: the sweep ended "
		    "with status %d", (unsigned)uid, status);
		return -1;
	}
	return 0;
}

/* SLOT_LOCK_DIR, or its default when set empty. */
static const char *
lock_dir(void)
{
	const char *dir = param("SLOT_LOCK_DIR");

	return dir != NULL && *dir != '\0' ? dir : "/run/condor/slots";
}

/* Take the lock of UID in SLOT_LOCK_DIR: its descriptor, or -1 (held by
 * another starter, or an error, logged). */
static int
lock_account(uid_t uid)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/uid_%u", lock_dir(), (unsigned)uid);
	if ((fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	    0600)) == -1) {
		log_warn("cannot open the account lock %s", path);
		return -1;
	}
	if (fstat(fd, &st) == -1 || st.st_uid != 0 || !S_ISREG(st.st_mode)) {
		log_warnx("the account lock %s is not root's file", path);
		close(fd);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

static int
make_lock_dir(char *err, size_t errlen)
{
	const char *dir = lock_dir();
	struct stat st;

	if (daemon_mkdir(dir, 0755) == -1) {
		snprintf(err, errlen, "cannot create SLOT_LOCK_DIR %s: %s",
		    dir, strerror(errno));
		return -1;
	}
	if (lstat(dir, &st) == -1 || !S_ISDIR(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 022) != 0) {
		snprintf(err, errlen, "SLOT_LOCK_DIR %s must be a directory "
		    "of root's that nobody else may write", dir);
		return -1;
	}
	return 0;
}

/* Both marks are 6 bytes: one write over the other, no truncation. */
#define LOCK_BUSY	"busy \n"
#define LOCK_CLEAN	"clean\n"

static int
lock_says_clean(int fd)
{
	char buf[16];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	return strcmp(buf, LOCK_CLEAN) == 0;
}

static void
lock_mark(int fd, const char *what)
{
	if (pwrite(fd, what, strlen(what), 0) != (ssize_t)strlen(what))
		log_warn("cannot mark an account lock %s", what);
}

/* The account UID, whose lock FD is held, becomes the job's. */
static void
claim(struct starter_job *job, int fd, uid_t uid, gid_t gid,
    const char *name)
{
	job->account_fd = fd;
	job->uid = uid;
	job->gid = gid;
	job->dedicated = 1;
	snprintf(job->user, sizeof(job->user), "%s", name);
	/*
	 * Whatever a dead starter's job left under this account goes.  The
	 * lock file says "clean" when the last starter saw its job's every
	 * process gone; it says "busy" from now until this one does.
	 */
	if (!lock_says_clean(fd))
		sweep_account(uid, gid, job->no_pw);
	lock_mark(fd, LOCK_BUSY);
}

static int
take(struct starter_job *job, uid_t uid, gid_t gid, const char *name)
{
	int fd;

	if (uid == 0 || (fd = lock_account(uid)) == -1)
		return -1;
	claim(job, fd, uid, gid, name);
	return 0;
}

/* One of SLOT_USERS, not running a job. */
static int
take_slot_user(struct starter_job *job, const char *list, char *err,
    size_t errlen)
{
	char *copy = xstrdup(list), *name, *save;
	uid_t uid;
	gid_t gid;
	int r = -1;

	for (name = strtok_r(copy, ", \t", &save); name != NULL && r == -1;
	    name = strtok_r(NULL, ", \t", &save)) {
		if (user_lookup(name, &uid, &gid) == -1)
			log_warnx("SLOT_USERS: %s is not a user here", name);
		else if (uid == 0)
			log_warnx("SLOT_USERS: %s is root; jobs never run as "
			    "root", name);
		else
			r = take(job, uid, gid, name);
	}
	free(copy);
	if (r == -1)
		snprintf(err, errlen, "every account of SLOT_USERS (%s) is "
		    "running a job, or none is usable", list);
	return r;
}

/* An id of SLOT_UID_RANGE that no user has and no job is running as. */
static int
take_dynamic(struct starter_job *job, const char *range, char *err,
    size_t errlen)
{
	unsigned long lo, hi, id;
	char name[64], *end;
	int fd;

	lo = strtoul(range, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (*end != '-' || lo == 0) {
		snprintf(err, errlen, "SLOT_UID_RANGE \"%s\" is not LOW-HIGH "
		    "with LOW above 0", range);
		return -1;
	}
	hi = strtoul(end + 1, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (*end != '\0' || hi < lo || hi >= 0xfffffffeUL) {
		snprintf(err, errlen, "SLOT_UID_RANGE \"%s\" is not LOW-HIGH",
		    range);
		return -1;
	}
	/* The lock first, then the user database, for that id only: a
	 * lookup can cost dozens of files (NSS modules), a lock one. */
	for (id = lo; id <= hi; id++) {
		if ((fd = lock_account((uid_t)id)) == -1)
			continue;
		if (getpwuid((uid_t)id) != NULL) {
			close(fd);	/* somebody's: never ours */
			continue;
		}
		snprintf(name, sizeof(name), "condor_slot_%lu", id);
		job->no_pw = 1;
		claim(job, fd, (uid_t)id, (gid_t)id, name);
		return 0;
	}
	snprintf(err, errlen, "every id of SLOT_UID_RANGE %s is in use",
	    range);
	return -1;
}

int
box_account(struct starter_job *job, char *err, size_t errlen)
{
	const char *users = param("SLOT_USERS");
	const char *range = param("SLOT_UID_RANGE");
	const char *file;
	int line;

	job->account_fd = -1;
	if (users != NULL && *users == '\0')
		users = NULL;
	if (range != NULL && *range == '\0')
		range = NULL;
	if (geteuid() != 0)
		return job_user(job, err, errlen);
	if (users == NULL && config_where("EXECUTE_USER", &file, &line) &&
	    file != NULL) {
		if (job_user(job, err, errlen) == -1)
			return -1;
		log_info("job %d.%d runs as EXECUTE_USER %s, an account it "
		    "shares with every job here (set SLOT_USERS or "
		    "SLOT_UID_RANGE instead to give each its own)",
		    job->cluster, job->proc, job->user);
		return 0;
	}
	if (users == NULL && range == NULL)
		return job_user(job, err, errlen);
	if (make_lock_dir(err, errlen) == -1 || (users != NULL ?
	    take_slot_user(job, users, err, errlen) :
	    take_dynamic(job, range, err, errlen)) == -1)
		return -1;
	log_info("job %d.%d has an account of its own: %s (uid %u)",
	    job->cluster, job->proc, job->user, (unsigned)job->uid);
	return 0;
}

/* The job's end: an emptied cgroup has killed everything already. */
void
box_account_sweep(struct starter_job *job)
{
	if (job->account_fd >= 0 && !job->account_clean)
		job->account_clean = sweep_account(job->uid, job->gid,
		    job->no_pw) == 0;
}

void
box_account_release(struct starter_job *job)
{
	if (job->account_fd < 0)
		return;
	if (job->account_clean)
		lock_mark(job->account_fd, LOCK_CLEAN);
	close(job->account_fd);
	job->account_fd = -1;
}

/* ---- a cgroup of its own ---- */

/* Whether the mountinfo tail TAIL ("cgroup SRC OPTIONS") is a v1
 * hierarchy holding CONTROLLER. */
static int
cgroup1_has(const char *tail, const char *controller)
{
	char opts[512], *o, *save;
	const char *sp;

	if (strncmp(tail, "cgroup ", 7) != 0 ||
	    (sp = strchr(tail + 7, ' ')) == NULL)
		return 0;
	snprintf(opts, sizeof(opts), "%s", sp + 1);
	opts[strcspn(opts, " \n")] = '\0';
	for (o = strtok_r(opts, ",", &save); o != NULL;
	    o = strtok_r(NULL, ",", &save))
		if (strcmp(o, controller) == 0)
			return 1;
	return 0;
}

/* Where cgroup v2 is mounted (CONTROLLER NULL), or the v1 hierarchy
 * of CONTROLLER, into BUF; 0, or -1 if it is not. */
static int
cgroup_mount(const char *controller, char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	int found = -1;

	if (f == NULL)
		return -1;
	while (found == -1 && fgets(line, sizeof(line), f) != NULL) {
		char *dash = strstr(line, " - "), *fields[5], *s = line;
		int i;

		if (dash == NULL || (controller == NULL ?
		    strncmp(dash + 3, "cgroup2 ", 8) != 0 :
		    !cgroup1_has(dash + 3, controller)))
			continue;
		for (i = 0; i < 5 && s != NULL; i++) {
			fields[i] = s;
			if ((s = strchr(s, ' ')) != NULL)
				*s++ = '\0';
		}
		/* Field 5 is the mount point; one with octal escapes
		 * (a space in it) is passed over. */
		if (i == 5 && strchr(fields[4], '\\') == NULL) {
			snprintf(buf, len, "%s", fields[4]);
			found = 0;
		}
	}
	fclose(f);
	return found;
}

/* Kill every process of the cgroup DIR and remove it; 0 or -1. */
static int
cgroup_remove(const char *dir)
{
	char path[PATH_MAX + 32], buf[256];
	int i, fd, populated = 1;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/cgroup.kill", dir);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) != -1) {
		if (write(fd, "1", 1) != 1)
			log_warn("cannot write %s", path);
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/cgroup.events", dir);
	for (i = 0; i < 500 && populated; i++) {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			break;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = '\0';
		populated = strstr(buf, "populated 1") != NULL;
		if (populated) {
			/* A kernel without cgroup.kill: one by one. */
			FILE *f;
			char p2[PATH_MAX + 32];
			long pid;

			snprintf(p2, sizeof(p2), "%s/cgroup.procs", dir);
			if ((f = fopen(p2, "re")) != NULL) {
				while (fscanf(f, "%ld", &pid) == 1)
					if (pid > 1)
						kill((pid_t)pid, SIGKILL);
				fclose(f);
			}
			sleep_ms(10);
		}
	}
	if (rmdir(dir) == -1 && errno != ENOENT) {
		log_warn("cannot remove the cgroup %s", dir);
		return -1;
	}
	return 0;
}

/* Cgroups of starters that died before they removed theirs. */
static void
cgroup_sweep_stale(const char *base)
{
	DIR *d = opendir(base);
	struct dirent *e;
	char path[PATH_MAX * 2];
	long pid;
	char *end;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "job_", 4) != 0)
			continue;
		pid = strtol(e->d_name + 4, &end, 10);
		if (*end != '\0' || pid <= 1 || pid == (long)getpid() ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", base, e->d_name);
		log_info("removing the stale cgroup %s", path);
		cgroup_remove(path);
	}
	closedir(d);
}

int
box_cgroup_make(struct starter_job *job)
{
	const char *base = param("BASE_CGROUP");
	char mnt[PATH_MAX], dir[PATH_MAX + 300];
	int n;

	job->cg_fd = -1;
	job->cgroup[0] = '\0';
	if (base == NULL || *base == '\0' || strstr(base, "..") != NULL ||
	    geteuid() != 0 || cgroup_mount(NULL, mnt, sizeof(mnt)) == -1)
		goto none;
	while (*base == '/')
		base++;
	snprintf(dir, sizeof(dir), "%s/%s", mnt, base);
	if (mkdir(dir, 0755) == -1 && errno != EEXIST) {
		log_warn("cannot create the cgroup %s", dir);
		goto none;
	}
	cgroup_sweep_stale(dir);
	n = snprintf(job->cgroup, sizeof(job->cgroup), "%s/job_%d", dir,
	    (int)getpid());
	if (n < 0 || (size_t)n >= sizeof(job->cgroup))
		goto none;
	if (mkdir(job->cgroup, 0755) == -1) {
		log_warn("cannot create the cgroup %s", job->cgroup);
		goto none;
	}
	if ((job->cg_fd = open(job->cgroup, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1) {
		log_warn("cannot open %s", job->cgroup);
		rmdir(job->cgroup);
		goto none;
	}
	log_info("job %d.%d: its processes are kept in the cgroup %s",
	    job->cluster, job->proc, job->cgroup);
	return 0;
none:
	job->cgroup[0] = '\0';
	if (geteuid() == 0) {
		/* Its init's end kills whatever it left (box_fork). */
		job->pidns = 1;
		log_info("job %d.%d: no cgroup v2 here; its processes are "
		    "kept in a PID namespace of its own%s%s, and killed when "
		    "it ends", job->cluster, job->proc, job->dedicated ?
		    " and found by its account, " : "", job->dedicated ?
		    job->user : "");
	} else if (job->dedicated)
		log_info("job %d.%d: no cgroup v2 here; its processes are "
		    "found by its account, %s, and killed when it ends",
		    job->cluster, job->proc, job->user);
	else
		log_info("job %d.%d: no cgroup and no account of its own: "
		    "processes it moves out of its process group may outlive "
		    "it", job->cluster, job->proc);
	return 0;
}

/*
 * The job's process, made in its cgroup from the start by clone3 with
 * CLONE_INTO_CGROUP: moving a running process into a cgroup takes a
 * lock that waits for every CPU (a scheduler-wide RCU grace period),
 * milliseconds on a busy machine for every job.  On a kernel without
 * it, fork(), and the child moves itself (box_cgroup_enter).  As fork:
 * the child's 0, the parent's pid, or -1.
 */
pid_t
box_fork(struct starter_job *job)
{
	struct clone_args a;
	long r;

	if (job->cg_fd >= 0) {
		memset(&a, 0, sizeof(a));
		a.flags = CLONE_INTO_CGROUP;
		a.exit_signal = SIGCHLD;
		a.cgroup = (uint64_t)job->cg_fd;
		if ((r = syscall(SYS_clone3, &a, sizeof(a))) >= 0) {
			if (r == 0)
				job->in_cgroup = 1;
			return (pid_t)r;
		}
		if (errno != ENOSYS && errno != EINVAL && errno != E2BIG)
			return -1;
	}
	if (job->pidns)	/* its pid 1: as fork, in a new namespace */
		return (pid_t)syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, NULL,
		    NULL, NULL, NULL);
	return fork();
}

/* The caller into the cgroup whose directory DIRFD is; 0 or -1. */
static int
cgroup_join(int dirfd)
{
	int fd, r;

	if ((fd = openat(dirfd, "cgroup.procs", O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	r = write(fd, "0\n", 2) == 2 ? 0 : -1;
	close(fd);
	return r;
}

/* In the child, as root: into the cgroup, if not born there. */
int
box_cgroup_enter(struct starter_job *job)
{
	if (job->cg_fd < 0 || job->in_cgroup)
		return 0;
	return cgroup_join(job->cg_fd);
}

void
box_cgroup_end(struct starter_job *job)
{
	if (job->cg_fd >= 0) {
		close(job->cg_fd);
		job->cg_fd = -1;
	}
	if (job->cgroup[0] == '\0')
		return;
	/* Every process the job ever had was in it: none is left. */
	job->account_clean = cgroup_remove(job->cgroup) == 0;
	job->cgroup[0] = '\0';
}

/* ---- the kernel's hold on its memory ---- */

/* Write TEXT to DIR/FILE; 0 or -1. */
static int
cg_write(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX * 2];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* The number after KEY in DIR/FILE (lines "key value"); 0 if none. */
static long long
cg_read_key(const char *dir, const char *file, const char *key)
{
	char path[PATH_MAX * 2], line[256], k[64];
	long long v, found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%63s %lld", k, &v) == 2 &&
		    strcmp(k, key) == 0)
			found = v;
	fclose(f);
	return found;
}

/*
 * job->mem_limit as a limit the kernel keeps: memory.max (and no swap)
 * in the job's cgroup v2 where the memory controller is there; else,
 * with BASE_CGROUP set and root, a cgroup of the v1 memory controller
 * (memory and memory with swap); else only the starter's watch.
 */
void
box_memory_make(struct starter_job *job)
{
	const char *base = param("BASE_CGROUP");
	char mnt[PATH_MAX], dir[sizeof(job->cgroup)], v[32], *slash;
	int n;

	job->mem_v2 = 0;
	job->memcg[0] = '\0';
	job->memcg_fd = -1;
	if (job->mem_limit <= 0 || geteuid() != 0 || base == NULL ||
	    *base == '\0' || strstr(base, "..") != NULL)
		return;
	snprintf(v, sizeof(v), "%lld", job->mem_limit * 1024 * 1024);
	if (job->cgroup[0] != '\0') {
		snprintf(dir, sizeof(dir), "%s", job->cgroup);
		if ((slash = strrchr(dir, '/')) != NULL) {
			*slash = '\0';
			(void)cg_write(dir, "cgroup.subtree_control",
			    "+memory");
		}
		if (cg_write(job->cgroup, "memory.max", v) == 0) {
			(void)cg_write(job->cgroup, "memory.swap.max", "0");
			job->mem_v2 = 1;
			log_info("job %d.%d: the kernel holds its memory to %lld "
			    "MB (memory.max of its cgroup)", job->cluster,
			    job->proc, job->mem_limit);
			return;
		}
	}
	if (cgroup_mount("memory", mnt, sizeof(mnt)) == -1)
		goto watched;
	while (*base == '/')
		base++;
	snprintf(dir, sizeof(dir), "%s/%s", mnt, base);
	if (mkdir(dir, 0755) == -1 && errno != EEXIST)
		goto watched;
	cgroup_sweep_stale(dir);
	n = snprintf(job->memcg, sizeof(job->memcg), "%s/job_%d", dir,
	    (int)getpid());
	if (n < 0 || (size_t)n >= sizeof(job->memcg) ||
	    (mkdir(job->memcg, 0755) == -1 && errno != EEXIST)) {
		job->memcg[0] = '\0';
		goto watched;
	}
	if (cg_write(job->memcg, "memory.limit_in_bytes", v) == -1 ||
	    (job->memcg_fd = open(job->memcg, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1) {
		cgroup_remove(job->memcg);
		job->memcg[0] = '\0';
		goto watched;
	}
	/* With swap too, where the kernel counts it. */
	(void)cg_write(job->memcg, "memory.memsw.limit_in_bytes", v);
	log_info("job %d.%d: the kernel holds its memory to %lld MB (the "
	    "memory cgroup %s)", job->cluster, job->proc, job->mem_limit,
	    job->memcg);
	return;
watched:
	log_info("job %d.%d: no memory controller here; its memory is "
	    "watched, %lld MB", job->cluster, job->proc, job->mem_limit);
}

/* In the child, as root: into the v1 memory cgroup. */
int
box_memory_enter(struct starter_job *job)
{
	return job->memcg_fd < 0 ? 0 : cgroup_join(job->memcg_fd);
}

int
box_memory_killed(struct starter_job *job)
{
	if (job->mem_v2)
		return cg_read_key(job->cgroup, "memory.events",
		    "oom_kill") > 0;
	if (job->memcg[0] != '\0')
		return cg_read_key(job->memcg, "memory.oom_control",
		    "oom_kill") > 0;
	return 0;
}

void
box_memory_end(struct starter_job *job)
{
	if (job->memcg_fd >= 0) {
		close(job->memcg_fd);
		job->memcg_fd = -1;
	}
	if (job->memcg[0] != '\0' && cgroup_remove(job->memcg) == -1)
		job->account_clean = 0;
	job->memcg[0] = '\0';
}

/* ---- the vanilla box ---- */

/* mkdir -p PATH, as root, 0755; what it makes is given to the job's
 * account if JOB is not NULL. */
static int
mkdir_p(const char *path, const struct starter_job *job)
{
	return daemon_mkdir_owned(path, 0755, job ? job->uid : (uid_t)-1,
	    job ? job->gid : (gid_t)-1);
}

/* Make the mount at PATH, and every mount below it, read-only. */
static int
read_only(const char *path)
{
	struct box_mount_attr a = { MOUNT_ATTR_RDONLY, 0, 0, 0 };

	if (syscall(SYS_mount_setattr, AT_FDCWD, path, AT_RECURSIVE, &a,
	    sizeof(a)) == 0)
		return 0;
	if (errno != ENOSYS)
		return -1;
	/* An older kernel: the top mount only. */
	return mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY |
	    MS_NOSUID | MS_NODEV, NULL);
}

/* Bind SRC at ROOT/DST (made as it is in SRC: a directory, a file, a
 * symbolic link copied); read-only if RO.  A SRC missing is no error.
 * FOLLOW: SRC is followed and bound alone, without the mounts below it
 * (for the job's own directories, named through /proc/self/fd, a
 * recursive bind would bring the new root, mounted over the execute
 * directory, along). */
static int
bind_in(const char *root, const char *src, const char *dst, int ro,
    int follow, const struct starter_job *job)
{
	char to[PATH_MAX * 2], link[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd;

	if ((follow ? stat(src, &st) : lstat(src, &st)) == -1)
		return errno == ENOENT ? 0 : -1;
	snprintf(to, sizeof(to), "%s%s", root, dst);
	if (S_ISLNK(st.st_mode)) {
		if ((n = readlink(src, link, sizeof(link) - 1)) == -1)
			return -1;
		link[n] = '\0';
		/* Its directory first. */
		char *slash = strrchr(to, '/');

		*slash = '\0';
		if (mkdir_p(to, job) == -1)
			return -1;
		*slash = '/';
		return symlink(link, to) == -1 && errno != EEXIST ? -1 : 0;
	}
	if (S_ISDIR(st.st_mode)) {
		if (mkdir_p(to, job) == -1)
			return -1;
	} else {
		char *slash = strrchr(to, '/');

		*slash = '\0';
		if (mkdir_p(to, job) == -1)
			return -1;
		*slash = '/';
		if ((fd = open(to, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) ==
		    -1)
			return -1;
		close(fd);
	}
	if (mount(src, to, NULL, MS_BIND | (follow ? 0 : MS_REC), NULL) == -1)
		return -1;
	return ro ? read_only(to) : 0;
}

/*
 * Make the way to DST, a directory below the private /tmp or /var/tmp
 * (an execute directory or a system directory under /tmp, as in a test
 * pool), go through a small tmpfs on its first component there: the
 * directories on the way are then made in memory, not on the disk of
 * the job's directory, where each would be an inode made and removed
 * with every job (and ext4 makes them slowly under such churn).
 */
static int
way_in_private_tmp(const char *root, const char *dst,
    const struct starter_job *job)
{
	static const char *const tmps[] = { "/tmp/", "/var/tmp/" };
	char top[PATH_MAX * 2], way[PATH_MAX * 2];
	const char *slash;
	struct stat tst, wst;
	size_t i, len;

	for (i = 0; i < sizeof(tmps) / sizeof(tmps[0]); i++) {
		len = strlen(tmps[i]);
		if (strncmp(dst, tmps[i], len) != 0)
			continue;
		if ((slash = strchr(dst + len, '/')) == NULL)
			return 0;	/* right in it: nothing on the way */
		snprintf(top, sizeof(top), "%s%.*s", root, (int)(len - 1),
		    dst);
		snprintf(way, sizeof(way), "%s%.*s", root, (int)(slash - dst),
		    dst);
		if (stat(top, &tst) == -1 ||
		    (mkdir(way, 0755) == -1 && errno != EEXIST) ||
		    lstat(way, &wst) == -1 || !S_ISDIR(wst.st_mode))
			return -1;
		if (wst.st_dev != tst.st_dev)
			return 0;	/* made for an earlier one */
		if (job != NULL && lchown(way, job->uid, job->gid) == -1)
			return -1;
		return mount("condor-way", way, "tmpfs", MS_NOSUID | MS_NODEV,
		    "mode=0755,size=64k,nr_inodes=1024");
	}
	return 0;
}

/*
 * The shared file system's directories (SHARED_FILESYSTEM_DIRS), for a
 * job run as its owner in its Iwd (starter_owner.c): each at its own
 * path, read-only where marked, with no set-user-id program and no
 * device honoured on any; the owner's rights decide the rest.
 */
static int
bind_shared(const char *root, const struct starter_job *job)
{
	const char *dirs = param("SHARED_FILESYSTEM_DIRS");
	struct box_mount_attr a = { MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0,
	    0, 0 };
	char dir[PATH_MAX], to[PATH_MAX * 2], *copy, *cur;
	int ro, r = 0;

	cur = copy = xstrdup(dirs != NULL ? dirs : "");
	while (r == 0 && owner_shared_dir_next(&cur, dir, sizeof(dir), &ro)) {
		if (way_in_private_tmp(root, dir, job) == -1 ||
		    bind_in(root, dir, dir, ro, 0, job) == -1) {
			r = -1;
			break;
		}
		snprintf(to, sizeof(to), "%s%s", root, dir);
		if (syscall(SYS_mount_setattr, AT_FDCWD, to, AT_RECURSIVE, &a,
		    sizeof(a)) == -1 && errno != ENOENT && errno != EINVAL &&
		    (errno != ENOSYS || mount(NULL, to, NULL, MS_REMOUNT |
		    MS_BIND | MS_NOSUID | MS_NODEV | (ro ? MS_RDONLY : 0),
		    NULL) == -1))
			r = -1;
	}
	free(copy);
	return r;
}

/* The loopback of a new network namespace, up. */
static int
loopback_up(void)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r = -1;

	if (s == -1)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		r = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	close(s);
	return r;
}

int
box_vanilla_root(struct starter_job *job)
{
	const char *dirs = param("JOB_SYSTEM_DIRS");
	char root[PATH_MAX], tmp[PATH_MAX + 64], name[PATH_MAX];
	char shm[PATH_MAX + 16], *copy, *dir, *save;
	int flags = CLONE_NEWNS | CLONE_NEWIPC, jfd;

	if (geteuid() != 0)
		return 0;
	if (!param_bool("ALLOW_NETWORK_FOR_JOBS", 1))
		flags |= CLONE_NEWNET;
	if (unshare(flags) == -1)
		return -1;
	if ((flags & CLONE_NEWNET) && loopback_up() == -1)
		return -1;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1)
		return -1;
	/* The job's own /tmp, in its directory. */
	if ((jfd = open(job->dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	if (mkdirat(jfd, BOX_TMP, 0700) == -1 ||
	    fchownat(jfd, BOX_TMP, job->uid, job->gid, AT_SYMLINK_NOFOLLOW) ==
	    -1)
		return -1;
	snprintf(tmp, sizeof(tmp), "/proc/self/fd/%d/%s", jfd, BOX_TMP);
	/* The new root: a tmpfs over the execute directory itself (the
	 * directory stays reachable through JFD). */
	snprintf(root, sizeof(root), "%s", job->dir);
	if (mount("condor-job", root, "tmpfs", MS_NOSUID | MS_NODEV,
	    "mode=0755,size=1m") == -1)
		return -1;
	/* The private /tmp first: a system directory below /tmp (a shared
	 * one the owner names) goes inside it, on directories made the
	 * job's, so that they go with the rest of its files. */
	if (bind_in(root, tmp, "/tmp", 0, 1, NULL) == -1 ||
	    bind_in(root, tmp, "/var/tmp", 0, 1, NULL) == -1)
		return -1;
	copy = xstrdup(dirs != NULL ? dirs : "");
	for (dir = strtok_r(copy, ", \t", &save); dir != NULL;
	    dir = strtok_r(NULL, ", \t", &save)) {
		if (dir[0] != '/' || strstr(dir, "..") != NULL ||
		    strcmp(dir, "/tmp") == 0 || strcmp(dir, "/var/tmp") == 0)
			continue;
		if (way_in_private_tmp(root, dir, job) == -1 ||
		    bind_in(root, dir, dir, 1, 0, job) == -1)
			return -1;
	}
	free(copy);
	if (job->shared_fs && bind_shared(root, job) == -1)
		return -1;
	/* /sys alone, without what is mounted below it (the cgroup
	 * hierarchies, the kernel's debugging files): fewer mounts to copy
	 * and to tear down with every job, and less to see. */
	if (bind_in(root, "/dev", "/dev", 1, 0, NULL) == -1 ||
	    bind_in(root, "/sys", "/sys", 1, 1, NULL) == -1)
		return -1;
	/* A /proc of its own, never the host's: of its own namespace
	 * (its processes alone), or, in a cgroup, showing the processes
	 * of its account alone (hidepid).  A kernel older than 5.8 knows
	 * no "invisible", and there every procfs of a namespace shares
	 * its options (hidepid would hide the host's processes from the
	 * host): the host's /proc then, as the log says. */
	if (snprintf(name, sizeof(name), "%s/proc", root) >=
	    (int)sizeof(name) || mkdir_p(name, NULL) == -1)
		return -1;
	if (mount("proc", name, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	    job->pidns ? NULL : "hidepid=invisible") == -1) {
		if (job->pidns || errno != EINVAL ||
		    bind_in(root, "/proc", "/proc", 0, 0, NULL) == -1)
			return -1;
		log_warnx("job %d.%d: this kernel cannot give it a /proc "
		    "that hides other accounts' processes: it sees the "
		    "host's", job->cluster, job->proc);
	}
	snprintf(shm, sizeof(shm), "%s/dev/shm", root);
	if (access(shm, F_OK) == 0 &&
	    bind_in(root, tmp, "/dev/shm", 0, 1, NULL) == -1)
		return -1;
	/* Last, its directory, at its own path: under the private /tmp if
	 * that is where it is (the way there made in memory, above). */
	snprintf(name, sizeof(name), "/proc/self/fd/%d", jfd);
	if (way_in_private_tmp(root, job->dir, job) == -1 ||
	    bind_in(root, name, job->dir, 0, 1, job) == -1)
		return -1;
	close(jfd);
	if (chdir(root) == -1 || syscall(SYS_pivot_root, ".", ".") == -1 ||
	    umount2(".", MNT_DETACH) == -1 || chdir("/") == -1)
		return -1;
	return mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY |
	    MS_NOSUID | MS_NODEV, NULL);
}

/* ---- the standard box ---- */

#ifndef FSOPEN_CLOEXEC
#define FSOPEN_CLOEXEC		0x00000001
#define FSCONFIG_SET_STRING	1
#define FSCONFIG_CMD_CREATE	6
#define FSMOUNT_CLOEXEC		0x00000001
#endif
#ifndef MOUNT_ATTR_NOEXEC
#define MOUNT_ATTR_NOEXEC	0x00000008
#endif

/*
 * The standard job's /proc, at descriptor AT (close-on-exec): a procfs
 * of its own, made in the child as root once it is in the job's PID
 * namespace (if it has one), and mounted nowhere (fsmount gives the root of a detached
 * mount).  ".." from its root is its root: no name through it leads to
 * the host's files, unlike the host's /proc, whose ".." is the host's
 * "/".  It shows only the processes of the job's account (hidepid) and
 * nothing but them (subset=pid: no sys, no sysrq-trigger, no kcore); a
 * kernel too old for those two options gets a procfs without them,
 * still detached.  0 or -1.
 */
int
box_proc_fd(int at)
{
	int fs, mnt;

	if ((fs = (int)syscall(SYS_fsopen, "proc", FSOPEN_CLOEXEC)) == -1)
		return -1;
	if (syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "hidepid",
	    "invisible", 0) == -1 && errno != EINVAL)
		goto fail;
	if (syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "subset", "pid",
	    0) == -1 && errno != EINVAL)
		goto fail;
	if (syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) ==
	    -1)
		goto fail;
	mnt = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC,
	    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	close(fs);
	if (mnt == -1)
		return -1;
	if (mnt != at && (dup3(mnt, at, O_CLOEXEC) == -1 || close(mnt) == -1))
		return -1;
	return 0;
fail:
	close(fs);
	return -1;
}

int
box_standard_filter(struct starter_job *job, int exec_fd, int proc_fd)
{
	struct sock_filter f[BOX_FILTER_MAX];
	/* userfaultfd and the helper's clone: a restore's alone. */
	struct box_filter_extra x = { exec_fd, proc_fd, job->resuming,
	    param_bool("INCREMENTAL_CHECKPOINTS", 0) };
	struct sock_fprog prog;
	int n;

	if ((n = box_filter_build(f, (uint32_t)getpid(), &x)) < 0) {
		errno = E2BIG;
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		return -1;
	prog.len = (unsigned short)n;
	prog.filter = f;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}
