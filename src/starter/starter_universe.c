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
 * standard: relinked with condor_cc; needs the remote system calls and
 * checkpoints of later work, and until then is refused as the job's
 * fault (the shadow holds it with the reason).
 */
#include <sys/stat.h>
#include <sys/wait.h>

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
#include "starter.h"

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

static int
standard_prepare(struct starter_job *job, char *err, size_t errlen,
    int *jobs_fault)
{
	snprintf(err, errlen, "the standard universe (programs relinked "
	    "with condor_cc) is not supported by this starter yet");
	*jobs_fault = 1;
	return -1;
}

static const struct universe universes[] = {
	{ "vanilla", vanilla_prepare, NULL, vanilla_tick, vanilla_vacate,
	    vanilla_finish },
	{ "standard", standard_prepare, NULL, vanilla_tick, vanilla_vacate,
	    vanilla_finish },
	{ NULL, NULL, NULL, NULL, NULL, NULL },
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
