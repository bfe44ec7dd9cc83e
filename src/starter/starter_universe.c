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
 * why there).  Not yet: periodic checkpoints, a checkpoint on vacate.
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
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "config.h"
#include "event.h"
#include "log.h"
#include "shadow_rpc.h"
#include "rpcutil.h"
#include "starter.h"
#include "syscall_proto.h"

/* Where the job finds its connection to the shadow. */
#define STANDARD_SYSCALL_FD	1000

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
	return job_open_std(job, err, errlen);
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

static void
vanilla_kill_now(void *arg)
{
	struct starter_job *job = arg;

	job->kill_timer = 0;
	if (!job->running)
		return;
	log_info("job %d.%d did not leave within VACATE_GRACE; SIGKILL",
	    job->cluster, job->proc);
	job_signal(job, SIGKILL);
}

static void
vanilla_vacate(struct starter_job *job)
{
	long grace = param_int("VACATE_GRACE", 10);

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
		return 0;
	}
	while ((r = vanilla_ship(job, STARTER_SHIP_PER_TICK)) == 1)
		;
	if (r == -1)
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

static int
standard_prepare(struct starter_job *job, char *err, size_t errlen,
    int *jobs_fault)
{
	static char *env[6];
	static char fdvar[40], chunkvar[48];
	/* Writable: job_environment() splits them at '=' in place. */
	static char rseq[] = "GLIBC_TUNABLES=glibc.pthread.rseq=0";
	static char nofork[] = "CONDOR_CKPT_FORK=0";
	long chunk = param_int("REMOTE_IO_CHUNK", 65536);

	*jobs_fault = 0;
	if (fetch(job, FILE_EXECUTABLE, STARTER_EXE, 0755, job->exe_size,
	    err, errlen, jobs_fault) == -1)
		return -1;
	if (standard_connect(job, err, errlen) == -1)
		return -1;
	/* Its standard files are at the shadow: nothing to ship here. */
	job->ship_out = job->ship_err = 0;
	job->err_is_out = 1;
	job->stdin_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	job->stdout_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (job->stdin_fd == -1 || job->stdout_fd == -1) {
		snprintf(err, errlen, "/dev/null: %s", strerror(errno));
		return -1;
	}
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
	if (geteuid() != 0)
		log_info("job %d.%d: not root: it runs without chroot, as %s",
		    job->cluster, job->proc, job->user);
	return 0;
}

/* As root, before the job becomes EXECUTE_USER: its root. */
static int
standard_root_setup(struct starter_job *job)
{
	if (geteuid() != 0)
		return 0;
	if (chroot(job->dir) == -1 || chdir("/") == -1)
		return -1;
	job->chrooted = 1;
	return 0;
}

/* As EXECUTE_USER, just before exec. */
static int
standard_child_setup(struct starter_job *job)
{
	/* The socket survives the exec; cloexec_from() marked it. */
	if (fcntl(STANDARD_SYSCALL_FD, F_SETFD, 0) == -1)
		return -1;
	if (personality(ADDR_NO_RANDOMIZE) == -1)
		return -1;
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

static const struct universe universes[] = {
	{ "vanilla", vanilla_prepare, NULL, vanilla_tick, vanilla_vacate,
	    vanilla_finish, NULL },
	{ "standard", standard_prepare, standard_child_setup, vanilla_tick,
	    vanilla_vacate, vanilla_finish, standard_root_setup },
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
