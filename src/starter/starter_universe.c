/*
 * starter_universe.c: what the starter does differently for each kind
 * of job (starter.h, struct universe).
 *
 * vanilla: any program.  Its executable and standard input are copied
 * into the execute directory; its standard output and error are copied
 * back as they grow; on vacate it gets SIGTERM, then SIGKILL after
 * VACATE_GRACE seconds, and it will start again from the beginning
 * elsewhere.
 *
 * standard: relinked with condor_cc.  Its executable is copied in as
 * for vanilla; the starter connects to the shadow's system-call service
 * (hello_res_x.syscall_addr, the claim's capability first) and hands the
 * socket to the job at descriptor STANDARD_SYSCALL_FD
 * (CONDOR_SYSCALL_FD, with REMOTE_IO_CHUNK); the job's standard files
 * are at the shadow, so nothing is shipped.  The sandbox: the execute
 * directory is the job's root (chroot, as root, before it becomes
 * EXECUTE_USER; a starter that is not root says so in its log and runs
 * the job without), address-space randomization off, no new privileges,
 * and the outer seccomp filter, which the job's start-up code installs
 * before any of the program runs (src/libremote/remote_outer.c says
 * why there).
 *
 * Checkpoints of a standard job: the starter creates _condor_ckpt in
 * the execute directory and hands it to the job at STANDARD_CKPT_FD
 * (CONDOR_CKPT_FILE=fd:N: the job never opens a file by name here),
 * with a pipe for the library's "ok"/"failed" lines at
 * STANDARD_NOTIFY_FD and a /proc of the job's own at STANDARD_PROC_FD,
 * which the library uses before the outer filter and closes
 * (src/libckpt/ckpt_proc.c).  That /proc is made by the child, as root,
 * in the job's PID namespace if it has one, showing its account's
 * processes alone, and mounted nowhere (box_proc_fd):
 * ".." from it is itself, where from the host's /proc it would be the
 * host's "/", past the chroot.  Every PERIODIC_CHECKPOINT_INTERVAL
 * seconds the job gets SIGUSR2 (checkpoint and go on: it is frozen
 * while it writes, there is no forked writer in the sandbox); on "ok"
 * the file goes to the shadow (PUT FILE_CHECKPOINT in SHADOW_CHUNK
 * pieces, read straight from the disk, then CKPT_COMMIT with its size
 * and CRC-32), and only then may the next one be asked for, since each
 * checkpoint rewrites the file from its first byte.  On vacate the job
 * gets SIGTSTP (checkpoint and exit 85); if it exits 85 after "ok"
 * within VACATE_GRACE the checkpoint is shipped and the shadow hears
 * EXIT_VACATED_CKPT, else the job is killed and resumes elsewhere from
 * its last committed checkpoint.  A job that calls ckpt_and_exit()
 * itself (the library's line is then "ok-exit PATH" and it exits 85)
 * leaves the same way: its checkpoint is shipped and it is requeued to
 * resume from it; its ckpt() is shipped as a periodic one is, the job
 * waiting ("ok-wait PATH") for our SIGCONT until it is.  A job
 * resuming from a checkpoint is started the same way: its executable is
 * the checkpoint.
 *
 * How a resumed job gets its memory back is the library's choice
 * (src/libckpt/ckpt_lazy.c): on demand through userfaultfd when it may
 * have one, else all of it before the program runs.  The job is an
 * unprivileged user in a chroot, so with vm.unprivileged_userfaultfd=0
 * it may have one only if STARTER_USERFAULTFD is true: the starter then
 * opens /dev/userfaultfd (as root) and hands it at STANDARD_UFFD_FD
 * (CONDOR_UFFD_FD=N), to a job resuming from its checkpoint alone (a
 * fresh one has no restore, and its filter refuses the userfaultfd
 * call too); the restart, the checkpoint's entry point, makes its
 * userfaultfd from it and closes it before any of the program runs
 * (a file crafted to pass for a checkpoint reaches it all the same:
 * the checkpoint is the job's own).  The machine's owner
 * chooses: a userfaultfd lets a program stall the kernel in its page
 * faults, which the sysctl's default withholds from users.  The
 * library's "restore ..." lines say which way it went, and the
 * StarterLog shows them.
 */
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "ad.h"
#include "ckptfile.h"
#include "config.h"
#include "queue_log.h"
#include "event.h"
#include "log.h"
#include "shadow_rpc.h"
#include "rpcutil.h"
#include "starter.h"
#include "submit.h"
#include "syscall_proto.h"

/* Where the job finds its connection to the shadow. */
#define STANDARD_SYSCALL_FD	1000
/* Its checkpoint file, the library's report pipe, its own /proc and,
 * resuming, /dev/userfaultfd. */
#define STANDARD_CKPT_FD	1001
#define STANDARD_NOTIFY_FD	1002
#define STANDARD_PROC_FD	1003
#define STANDARD_UFFD_FD	1004
/* The executable, for the exec through the box (closed by it). */
#define STANDARD_EXEC_FD	1005
#define STANDARD_CKPT_FILE	"_condor_ckpt"
#define STANDARD_CKPT_STATUS	85	/* CONDOR_VACATE_STATUS */

/* Why the job leaves before its end, for the shadow's 004. */
static const char *
universe_leave_reason(const struct starter_job *job)
{
	if (job->leave == LEAVE_KILL)
		return "the execute machine killed the job (its KILL policy, "
		    "its startd's shutdown, or the claim's release)";
	return "the execute machine vacated the job (its owner policy, "
	    "condor_vacate, a higher priority, or its startd's shutdown)";
}

/* Fetch WHICH from the shadow into NAME, created for the job. */
static int
fetch(struct starter_job *job, int which, const char *name, mode_t mode,
    long long size, char *err, size_t errlen, int *jobs_fault)
{
	char path[PATH_MAX + 64], why[512];
	long long got = 0;
	int fd, r;

	snprintf(path, sizeof(path), "%s/%s", job->dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd == -1) {
		snprintf(err, errlen, "cannot create %s: %s", path,
		    strerror(errno));
		return -1;
	}
	r = shadow_get_file(which, fd, size, &got, why, sizeof(why));
	if (r == 0 && size >= 0 && got != size) {
		snprintf(why, sizeof(why), "got %lld bytes of %lld", got,
		    size);
		r = EIO;
	}
	if (r == 0 && ((geteuid() == 0 && fchown(fd, job->uid,
	    job->gid) == -1) || fchmod(fd, mode) == -1)) {
		snprintf(why, sizeof(why), "%s", strerror(errno));
		r = EIO;
	}
	if (close(fd) == -1 && r == 0) {
		snprintf(why, sizeof(why), "%s", strerror(errno));
		r = EIO;
	}
	if (r != 0) {
		snprintf(err, errlen, "cannot fetch %s: %s", name, why);
		/* The shadow could not read its own file: the job's. */
		*jobs_fault = r != -1 && r != EIO && r != EFBIG;
		return -1;
	}
	log_info("fetched %s: %lld bytes", name, got);
	return 0;
}

static int
vanilla_prepare(struct starter_job *job, char *err, size_t errlen,
    int *jobs_fault)
{
	*jobs_fault = 0;
	if (fetch(job, FILE_EXECUTABLE, STARTER_EXE, 0755, job->exe_size,
	    err, errlen, jobs_fault) == -1)
		return -1;
	if (job_wants_file(job, "In") && fetch(job, FILE_STDIN,
	    STARTER_STDIN, 0600, -1, err, errlen, jobs_fault) == -1)
		return -1;
	if (xfer_fetch_inputs(job, err, errlen, jobs_fault) == -1)
		return -1;
	if (geteuid() == 0)
		log_info("job %d.%d: boxed: a root of its own (JOB_SYSTEM_DIRS "
		    "read-only, its directory and a private /tmp writable), "
		    "its own IPC%s", job->cluster, job->proc,
		    param_bool("ALLOW_NETWORK_FOR_JOBS", 1) ? "" :
		    ", no network");
	else
		log_info("job %d.%d: not root: it runs without a box of its "
		    "own, as %s", job->cluster, job->proc, job->user);
	return job_open_std(job, err, errlen);
}

/* As the job's account, just before exec: nothing it runs may gain
 * privileges (set-user-id programs, file capabilities). */
static int
vanilla_child_setup(struct starter_job *job)
{
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

/* Ship up to LIMIT bytes of new output; -1 lost, 1 more waits, 0. */
static int
vanilla_ship(struct starter_job *job, long long limit)
{
	long long before = job->out_sent + job->err_sent;
	int more_out = 0, more_err = 0;

	if (job->ship_out && shadow_ship(FILE_STDOUT, job->out_rfd,
	    &job->out_sent, limit, &more_out) == -1)
		return -1;
	if (job->ship_err && shadow_ship(FILE_STDERR, job->err_rfd,
	    &job->err_sent, limit, &more_err) == -1)
		return -1;
	/* Nothing to say: still tell the shadow we are alive. */
	if (job->out_sent + job->err_sent == before && shadow_null() == -1)
		return -1;
	return more_out || more_err;
}

static int
vanilla_tick(struct starter_job *job)
{
	return vanilla_ship(job, STARTER_SHIP_PER_TICK);
}

/*
 * Seconds a leaving job gets before SIGKILL: VACATE_GRACE, or less if
 * the job asks for less (JobMaxVacateTime); the machine's owner decides
 * the most it may take.
 */
static long
vacate_grace(const struct starter_job *job)
{
	long grace = param_int("VACATE_GRACE", 10);
	long long want;

	if (grace < 0)
		grace = 0;
	if (ad_get_int(job->ad, "JobMaxVacateTime", &want) == 0 &&
	    want >= 0 && want < grace)
		grace = (long)want;
	return grace;
}

static void
vanilla_kill_now(void *arg)
{
	struct starter_job *job = arg;

	job->kill_timer = 0;
	if (!job->running)
		return;
	log_info("job %d.%d did not leave within its vacate time; SIGKILL",
	    job->cluster, job->proc);
	job_signal(job, SIGKILL);
}

static void
vanilla_vacate(struct starter_job *job)
{
	long grace = vacate_grace(job);

	job_signal(job, SIGTERM);
	/* A stopped job cannot act on SIGTERM. */
	job_signal(job, SIGCONT);
	job->suspended = 0;
	event_timer_cancel(job->kill_timer);
	job->kill_timer = event_timer_add((double)(grace > 0 ? grace : 0),
	    vanilla_kill_now, job);
}

static int
vanilla_finish(struct starter_job *job, int status, exit_x *x)
{
	int r;

	if (job->leave != LEAVE_NONE) {
		/* Leaving: the owner wants the machine now, and the next
		 * run starts the output afresh anyway. */
		x->how = EXIT_VACATED_KILLED;
		x->code = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
		x->message = (char *)universe_leave_reason(job);
		return xfer_send_outputs(job, 1);
	}
	while ((r = vanilla_ship(job, STARTER_SHIP_PER_TICK)) == 1)
		;
	if (r == -1 || xfer_send_outputs(job, 0) == -1)
		return -1;
	if (WIFSIGNALED(status)) {
		x->how = EXIT_SIGNAL;
		x->code = WTERMSIG(status);
	} else {
		x->how = EXIT_NORMAL;
		x->code = WEXITSTATUS(status);
	}
	return 0;
}

/*
 * Connect to the shadow's system-call service and present the claim's
 * capability (include/syscall_proto.h).  The socket ends up at
 * STANDARD_SYSCALL_FD, where the program's own descriptors (which are
 * the shadow's numbers) never look.
 */
static int
standard_connect(struct starter_job *job, char *err, size_t errlen)
{
	struct sockaddr_in sa;
	uint8_t rec[4 + 4 + CAPABILITY_MAX + 4], rep[8];
	struct sxdr x;
	uint32_t mark;
	struct timeval tv = { 30, 0 };
	int fd, moved, one = 1;

	if (job->syscall_addr == NULL || *job->syscall_addr == '\0' ||
	    addr_parse(job->syscall_addr, &sa) == -1) {
		snprintf(err, errlen, "the shadow offers no system-call "
		    "service (\"%s\")", job->syscall_addr ?
		    job->syscall_addr : "");
		return -1;
	}
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == -1 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1) {
		snprintf(err, errlen, "cannot connect to the shadow's system "
		    "calls at %s: %s", job->syscall_addr, strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	sxdr_init(&x, rec + 4, sizeof(rec) - 4);
	sxdr_put_string(&x, job->capability ? job->capability : "");
	mark = htonl(SYSCALL_PROTO_LAST_FRAG | x.pos);
	memcpy(rec, &mark, 4);
	if (x.err || write(fd, rec, 4 + x.pos) != (ssize_t)(4 + x.pos) ||
	    recv(fd, rep, 8, MSG_WAITALL) != 8 ||
	    (memcpy(&mark, rep + 4, 4), mark) != 0) {
		snprintf(err, errlen, "the shadow's system-call service at %s "
		    "did not accept us", job->syscall_addr);
		close(fd);
		return -1;
	}
	/* The job's reads wait as long as the shadow takes. */
	tv.tv_sec = 0;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	moved = fcntl(fd, F_DUPFD_CLOEXEC, STANDARD_SYSCALL_FD);
	close(fd);
	if (moved == -1) {
		snprintf(err, errlen, "cannot move the system-call socket: "
		    "%s", strerror(errno));
		return -1;
	}
	job->syscall_fd = moved;
	return 0;
}

/* F at descriptor AT (close-on-exec until child_setup), or -1. */
static int
move_to(int fd, int at)
{
	int moved;

	if (fd == -1)
		return -1;
	moved = fcntl(fd, F_DUPFD_CLOEXEC, at);
	close(fd);
	if (moved != -1 && moved != at) {
		close(moved);
		errno = EBUSY;
		return -1;
	}
	return moved;
}

/* The job's CPU seconds and image size (KiB) so far, from /proc. */
static void
job_usage(struct starter_job *job, double *user, double *sys,
    long long *kib)
{
	char path[64], buf[1024], *p;
	unsigned long long ut = 0, st = 0, pages = 0;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f;

	*user = *sys = 0;
	*kib = 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)job->pid);
	if ((f = fopen(path, "r")) != NULL) {
		if (fgets(buf, sizeof(buf), f) != NULL &&
		    (p = strrchr(buf, ')')) != NULL &&
		    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u "
		    "%*u %llu %llu", &ut, &st) == 2 && hz > 0) {
			*user = (double)ut / (double)hz;
			*sys = (double)st / (double)hz;
		}
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/statm", (int)job->pid);
	if ((f = fopen(path, "r")) != NULL) {
		if (fscanf(f, "%llu", &pages) == 1)
			*kib = (long long)(pages * (unsigned long long)
			    sysconf(_SC_PAGESIZE) / 1024);
		fclose(f);
	}
}

/*
 * Send the checkpoint in the job's file to the shadow and commit it.
 * 0 committed, 1 not (logged; the shadow keeps the one it had), -1 the
 * shadow is gone.
 */
static int
ckpt_ship(struct starter_job *job, double user, double sys,
    long long kib)
{
	static char chunk[SHADOW_CHUNK];
	ckpt_commit_x c;
	struct stat st;
	long long off = 0;
	unsigned crc = 0;
	double t0 = monotime();
	char why[256];
	ssize_t n;
	int r;

	if (fstat(job->ckpt_fd, &st) == -1 || st.st_size <= 0) {
		log_warnx("job %d.%d: its checkpoint file is empty",
		    job->cluster, job->proc);
		return 1;
	}
	while (off < st.st_size) {
		n = pread(job->ckpt_fd, chunk, sizeof(chunk), (off_t)off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			log_warn("job %d.%d: cannot read its checkpoint",
			    job->cluster, job->proc);
			return 1;
		}
		crc = qlog_crc32(crc, chunk, (size_t)n);
		if ((r = shadow_put(FILE_CHECKPOINT, off, chunk,
		    (size_t)n)) != 0)
			return r == -1 ? -1 : 1;
		off += n;
	}
	memset(&c, 0, sizeof(c));
	c.size = off;
	c.crc32 = crc;
	c.image_size = kib;
	c.user_cpu = user;
	c.sys_cpu = sys;
	if ((r = shadow_ckpt_commit(&c, why, sizeof(why))) != 0) {
		if (r != -1)
			log_warnx("job %d.%d: the shadow refused its checkpoint: "
			    "%s", job->cluster, job->proc, why);
		return r == -1 ? -1 : 1;
	}
	job->ckpts++;
	log_info("job %d.%d: checkpoint %d shipped: %lld bytes in %.3f s",
	    job->cluster, job->proc, job->ckpts, off, monotime() - t0);
	return 0;
}

/* Read the library's lines; 1 for each "ok", in *OKS. */
static void
ckpt_read_notes(struct starter_job *job, int *oks, int *fails)
{
	char buf[1024], *line, *nl;
	ssize_t n;

	*oks = *fails = 0;
	while ((n = read(job->notify_fd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = '\0';
		for (line = buf; *line != '\0'; line = nl + 1) {
			if ((nl = strchr(line, '\n')) == NULL)
				nl = line + strlen(line) - 1;
			else
				*nl = '\0';
			if (strncmp(line, "ok-exit", 7) == 0) {
				/* Taken as the job exits 85: its own
				 * ckpt_and_exit(), or our SIGTSTP. */
				(*oks)++;
				job->ckpt_exiting = 1;
			} else if (strncmp(line, "ok-wait", 7) == 0) {
				/* Its own ckpt(): it waits for our SIGCONT
				 * (ckpt_release) until this one is shipped. */
				(*oks)++;
				job->ckpt_held = 1;
			} else if (strncmp(line, "ok", 2) == 0)
				(*oks)++;
			else if (strncmp(line, "restore failed", 14) == 0)
				log_warnx("job %d.%d: %s", job->cluster,
				    job->proc, line);
			else if (strncmp(line, "restore ", 8) == 0)
				log_info("job %d.%d: %s", job->cluster,
				    job->proc, line);
			else if (*line != '\0') {
				(*fails)++;
				log_warnx("job %d.%d: checkpoint %s",
				    job->cluster, job->proc, line);
			}
		}
	}
}

static void	ckpt_arm(struct starter_job *);

/* The job waits after its own ckpt(): on with it.  A suspended job is
 * let go by its unsuspension's SIGCONT. */
static void
ckpt_release(struct starter_job *job)
{
	if (!job->ckpt_held)
		return;
	job->ckpt_held = 0;
	if (!job->suspended)
		job_signal_main(job, SIGCONT);
}

static void
ckpt_periodic(void *arg)
{
	struct starter_job *job = arg;

	job->ckpt_timer = 0;
	if (!job->running || job->leave != LEAVE_NONE || job->ckpt_pending)
		return;
	if (job->suspended) {
		ckpt_arm(job);
		return;
	}
	job->ckpt_pending = 1;
	job->ckpt_asked = monotime();
	job_signal_main(job, SIGUSR2);
}

static void
ckpt_arm(struct starter_job *job)
{
	long interval = param_int("PERIODIC_CHECKPOINT_INTERVAL", 3600);

	event_timer_cancel(job->ckpt_timer);
	job->ckpt_timer = interval > 0 ? event_timer_add((double)interval,
	    ckpt_periodic, job) : 0;
}

/* A line from the library: a periodic checkpoint is over. */
static void
ckpt_notified(int fd, short revents, void *arg)
{
	struct starter_job *job = arg;
	double user, sys, frozen = monotime() - job->ckpt_asked;
	long long kib;
	int oks, fails;

	ckpt_read_notes(job, &oks, &fails);
	if (oks == 0 && fails == 0) {
		if (revents & (POLLHUP | POLLERR))
			event_fd_del(fd);
		return;
	}
	if (oks > 0)
		job->ckpt_ready = 1;
	if (job->leave != LEAVE_NONE || !job->running) {
		ckpt_release(job);
		return;		/* the vacate's: shipped by finish */
	}
	if (job->ckpt_exiting)
		return;		/* the job's ckpt_and_exit(): by finish */
	if (oks > 0 && !job->ckpt_pending)
		log_info("job %d.%d: checkpoint written at the job's own "
		    "request (ckpt())", job->cluster, job->proc);
	else if (oks > 0)
		log_info("job %d.%d: checkpoint written in %.3f s (the job "
		    "was frozen meanwhile)", job->cluster, job->proc, frozen);
	job->ckpt_pending = 0;
	if (oks > 0) {
		job_usage(job, &user, &sys, &kib);
		if (ckpt_ship(job, user, sys, kib) == -1) {
			/* The shadow is gone: the loop's next call says so. */
			log_warnx("job %d.%d: the shadow is gone",
			    job->cluster, job->proc);
		}
	}
	ckpt_release(job);
	ckpt_arm(job);
}

/* The checkpoint file, the report pipe and /proc for the job. */
static int
ckpt_setup(struct starter_job *job, char *err, size_t errlen)
{
	char path[PATH_MAX + 64];
	int p[2], fd;

	snprintf(path, sizeof(path), "%s/%s", job->dir, STANDARD_CKPT_FILE);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd != -1 && geteuid() == 0 && fchown(fd, job->uid, job->gid) ==
	    -1) {
		close(fd);
		fd = -1;
	}
	if ((job->ckpt_fd = move_to(fd, STANDARD_CKPT_FD)) == -1) {
		snprintf(err, errlen, "cannot create %s: %s", path,
		    strerror(errno));
		return -1;
	}
	if (pipe2(p, O_CLOEXEC) == -1 ||
	    (job->give_fds[0] = move_to(p[1], STANDARD_NOTIFY_FD)) == -1) {
		snprintf(err, errlen, "checkpoint pipe: %s", strerror(errno));
		return -1;
	}
	job->notify_fd = p[0];
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	/* As root the child makes the job a /proc of its own, inside the
	 * box (standard_root_setup).  A starter that is not root builds
	 * no box: the job is its own user, unconfined, and gets the /proc
	 * it could open anyway. */
	if (geteuid() != 0 && (job->give_fds[1] = move_to(open("/proc",
	    O_PATH | O_DIRECTORY | O_CLOEXEC), STANDARD_PROC_FD)) == -1) {
		snprintf(err, errlen, "/proc: %s", strerror(errno));
		return -1;
	}
	/* Only a restore uses it, and only a resuming job has one. */
	if (job->resuming && param_bool("STARTER_USERFAULTFD", 0)) {
		job->give_fds[2] = move_to(open("/dev/userfaultfd", O_RDWR |
		    O_CLOEXEC), STANDARD_UFFD_FD);
		if (job->give_fds[2] == -1)
			log_warnx("job %d.%d: STARTER_USERFAULTFD: "
			    "/dev/userfaultfd: %s (its memory comes back "
			    "before it runs)", job->cluster, job->proc,
			    strerror(errno));
	}
	event_fd_add(job->notify_fd, POLLIN, ckpt_notified, job);
	ckpt_arm(job);
	return 0;
}

/*
 * Whether the executable fetched is a checkpoint (its marker says so
 * and its entry is the restart's): only then may the job have what a
 * restore alone needs.  A program that claims to be one gains nothing
 * it could not have by writing a checkpoint of its own.
 */
static int
standard_resuming(struct starter_job *job)
{
	struct ckpt_file_info ci;
	char path[PATH_MAX + 64], why[256];
	int r;

	snprintf(path, sizeof(path), "%s/%s", job->dir, STARTER_EXE);
	if (ckpt_open(path, &ci, why, sizeof(why)) == -1)
		return 0;
	r = ci.marker.is_ckpt != 0 && !ci.is_core;
	ckpt_close(&ci);
	if (r)
		log_info("job %d.%d resumes from its checkpoint", job->cluster,
		    job->proc);
	return r;
}

/*
 * A standard job's program must be relinked (or be the checkpoint of
 * one, which begins with it): anything else is the job's fault, and it
 * is held saying so.  The box does not depend on this: a program that
 * carries the mark without the library is boxed all the same.
 */
static int
standard_relinked(struct starter_job *job, char *err, size_t errlen,
    int *jobs_fault)
{
	char path[PATH_MAX + 64], why[512];
	int r;

	snprintf(path, sizeof(path), "%s/%s", job->dir, STARTER_EXE);
	if ((r = submit_elf_relinked(path, why, sizeof(why))) == 1)
		return 0;
	*jobs_fault = 1;
	if (r == 0)
		snprintf(err, errlen, "the executable is not relinked for "
		    "Condor (it has no .condor_relinked section): a standard "
		    "universe job must be linked with condor_cc");
	else
		snprintf(err, errlen, "the executable is not a program "
		    "relinked for Condor: %s", why);
	return -1;
}

/* What a standard job writes to its local standard output (code that
 * bypasses the library): dropped. */
static void
standard_drain(int fd, short revents, void *arg)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR)) {
		event_fd_del(fd);
		close(fd);
	}
}

static int
standard_prepare(struct starter_job *job, char *err, size_t errlen,
    int *jobs_fault)
{
	static char *env[12];
	static char fdvar[40], chunkvar[48], deltasvar[48];
	static char incr[] = "CONDOR_CKPT_INCREMENTAL=1";
	static char ckptvar[40], notifyvar[40], procvar[40], uffdvar[40];
	/* Writable: job_environment() splits them at '=' in place. */
	static char rseq[] = "GLIBC_TUNABLES=glibc.pthread.rseq=0";
	static char nofork[] = "CONDOR_CKPT_FORK=0";
	long chunk = param_int("REMOTE_IO_CHUNK", 65536);
	int in[2], out[2], n;

	*jobs_fault = 0;
	if (fetch(job, FILE_EXECUTABLE, STARTER_EXE, 0755, job->exe_size,
	    err, errlen, jobs_fault) == -1)
		return -1;
	if (standard_relinked(job, err, errlen, jobs_fault) == -1)
		return -1;
	job->resuming = standard_resuming(job);
	/* Its directory will be its root: HOME and the rest are "/". */
	if (geteuid() == 0)
		job->dir_is_root = 1;
	if (standard_connect(job, err, errlen) == -1)
		return -1;
	/* Its standard files are at the shadow: nothing to ship here. */
	job->ship_out = job->ship_err = 0;
	job->err_is_out = 1;
	/* Its local descriptors 0 to 2 are pipes to the starter, not a
	 * file of the host outside its root: its input at its end, its
	 * output read and dropped. */
	if (pipe2(in, O_CLOEXEC) == -1 || pipe2(out, O_CLOEXEC) == -1) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	close(in[1]);
	job->stdin_fd = in[0];
	job->stdout_fd = out[1];
	fcntl(out[0], F_SETFL, fcntl(out[0], F_GETFL) | O_NONBLOCK);
	event_fd_add(out[0], POLLIN, standard_drain, NULL);
	snprintf(fdvar, sizeof(fdvar), "CONDOR_SYSCALL_FD=%d",
	    STANDARD_SYSCALL_FD);
	snprintf(chunkvar, sizeof(chunkvar), "REMOTE_IO_CHUNK=%ld",
	    chunk > 0 ? chunk : 65536);
	env[0] = fdvar;
	env[1] = chunkvar;
	/* The layout the checkpoints need, without a re-execution (which
	 * the sandbox would refuse): no rseq; no randomization below. */
	env[2] = rseq;
	/* The sandbox refuses clone: checkpoints are written in-line. */
	env[3] = nofork;
	env[4] = NULL;
	job->extra_env = env;
	if (ckpt_setup(job, err, errlen) == -1)
		return -1;
	snprintf(ckptvar, sizeof(ckptvar), "CONDOR_CKPT_FILE=fd:%d",
	    STANDARD_CKPT_FD);
	snprintf(notifyvar, sizeof(notifyvar), "CONDOR_CKPT_NOTIFY_FD=%d",
	    STANDARD_NOTIFY_FD);
	snprintf(procvar, sizeof(procvar), "CONDOR_PROC_FD=%d",
	    STANDARD_PROC_FD);
	env[4] = ckptvar;
	env[5] = notifyvar;
	env[6] = procvar;
	env[7] = NULL;
	n = 7;
	if (job->give_fds[2] != -1) {
		snprintf(uffdvar, sizeof(uffdvar), "CONDOR_UFFD_FD=%d",
		    STANDARD_UFFD_FD);
		env[n++] = uffdvar;
	}
	/* Periodic checkpoints as deltas, folded by the shadow. */
	if (param_bool("INCREMENTAL_CHECKPOINTS", 0)) {
		snprintf(deltasvar, sizeof(deltasvar),
		    "CONDOR_CKPT_MAX_DELTAS=%ld",
		    param_int("CKPT_MAX_DELTAS", 4));
		env[n++] = incr;
		env[n++] = deltasvar;
	}
	env[n] = NULL;
	if (geteuid() != 0)
		log_info("job %d.%d: not root: it runs without chroot, as %s",
		    job->cluster, job->proc, job->user);
	return 0;
}

/* As root, before the job becomes EXECUTE_USER: its /proc (in its
 * PID namespace already, if it has one) and its root. */
static int
standard_root_setup(struct starter_job *job)
{
	if (geteuid() != 0)
		return 0;
	if (box_proc_fd(STANDARD_PROC_FD) == -1)
		return -1;
	if (chroot(job->dir) == -1 || chdir("/") == -1)
		return -1;
	job->chrooted = 1;
	return 0;
}

/* As the job's account, just before exec. */
static int
standard_child_setup(struct starter_job *job)
{
	char exe[PATH_MAX + 64];
	int fd;

	/* The socket survives the exec; cloexec_from() marked it.  So do
	 * the checkpoint's descriptors. */
	if (fcntl(STANDARD_SYSCALL_FD, F_SETFD, 0) == -1 ||
	    fcntl(STANDARD_CKPT_FD, F_SETFD, 0) == -1 ||
	    fcntl(STANDARD_NOTIFY_FD, F_SETFD, 0) == -1 ||
	    fcntl(STANDARD_PROC_FD, F_SETFD, 0) == -1 ||
	    (job->give_fds[2] != -1 &&
	    fcntl(STANDARD_UFFD_FD, F_SETFD, 0) == -1))
		return -1;
	if (personality(ADDR_NO_RANDOMIZE) == -1)
		return -1;
	/* The box, last: the exec itself goes through EXEC_FD. */
	if ((fd = open(job_exe_path(job, exe, sizeof(exe)), O_RDONLY |
	    O_CLOEXEC)) == -1)
		return -1;
	if (dup3(fd, STANDARD_EXEC_FD, O_CLOEXEC) == -1)
		return -1;
	close(fd);
	job->exec_fd = STANDARD_EXEC_FD;
	return box_standard_filter(job, STANDARD_EXEC_FD, STANDARD_PROC_FD);
}

/* Vacate: the job checkpoints and exits, or is killed after its
 * vacate time. */
static void
standard_vacate(struct starter_job *job)
{
	long grace = vacate_grace(job);

	event_timer_cancel(job->ckpt_timer);
	job->ckpt_timer = 0;
	job->ckpt_ready = 0;
	job->ckpt_asked = monotime();
	/* A stopped job cannot act on it; and SIGCONT discards a pending
	 * SIGTSTP, so it goes first. */
	if (job->suspended)
		job_signal(job, SIGCONT);
	job->suspended = 0;
	job_signal_main(job, SIGTSTP);
	event_timer_cancel(job->kill_timer);
	job->kill_timer = event_timer_add((double)(grace > 0 ? grace : 0),
	    vanilla_kill_now, job);
}

/*
 * The job called ckpt_and_exit() itself: as HTCondor, it is not done.
 * Its checkpoint goes to the shadow and the job leaves as a vacated one
 * (EXIT_VACATED_CKPT), back in the queue to resume from it at once, here
 * or elsewhere.  Status 85 without the library's "ok-exit" line (a
 * program's own exit(85)) stays a normal exit.
 */
static int
standard_self_vacate(struct starter_job *job, exit_x *x)
{
	int r;

	job->ckpt_exiting = 0;
	x->how = EXIT_VACATED_KILLED;
	x->code = 0;
	x->message = "the job checkpointed itself and exited "
	    "(ckpt_and_exit); it resumes from that checkpoint";
	log_info("job %d.%d checkpointed itself and exited", job->cluster,
	    job->proc);
	if ((r = ckpt_ship(job, x->user_cpu, x->sys_cpu, x->image_size)) ==
	    -1)
		return -1;
	if (r == 0)
		x->how = EXIT_VACATED_CKPT;
	return 0;
}

static int
standard_finish(struct starter_job *job, int status, exit_x *x)
{
	int oks, fails, r;

	event_timer_cancel(job->ckpt_timer);
	job->ckpt_timer = 0;
	if (job->leave == LEAVE_NONE && WIFEXITED(status) &&
	    WEXITSTATUS(status) == STANDARD_CKPT_STATUS) {
		ckpt_read_notes(job, &oks, &fails);
		if (job->ckpt_exiting)
			return standard_self_vacate(job, x);
	}
	if (job->leave == LEAVE_NONE)
		return vanilla_finish(job, status, x);
	x->how = EXIT_VACATED_KILLED;
	x->code = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	x->message = (char *)universe_leave_reason(job);
	if (job->leave != LEAVE_VACATE || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != STANDARD_CKPT_STATUS)
		return 0;
	ckpt_read_notes(job, &oks, &fails);
	if (oks > 0)
		job->ckpt_ready = 1;
	if (!job->ckpt_ready) {
		log_warnx("job %d.%d left without a checkpoint", job->cluster,
		    job->proc);
		return 0;
	}
	log_info("job %d.%d: vacate checkpoint written in %.3f s",
	    job->cluster, job->proc, monotime() - job->ckpt_asked);
	if ((r = ckpt_ship(job, x->user_cpu, x->sys_cpu, x->image_size)) ==
	    -1)
		return -1;
	if (r == 0) {
		x->how = EXIT_VACATED_CKPT;
		x->code = 0;
	}
	return 0;
}

static const struct universe universes[] = {
	{ "vanilla", vanilla_prepare, vanilla_child_setup, vanilla_tick,
	    vanilla_vacate, vanilla_finish, box_vanilla_root },
	{ "standard", standard_prepare, standard_child_setup, vanilla_tick,
	    standard_vacate, standard_finish, standard_root_setup },
	{ NULL, NULL, NULL, NULL, NULL, NULL, NULL },
};

const struct universe *
universe_find(const char *name)
{
	const struct universe *u;

	for (u = universes; u->name != NULL; u++)
		if (strcasecmp(u->name, name) == 0)
			return u;
	return NULL;
}
