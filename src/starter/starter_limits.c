/*
 * starter_limits.c: what a running job may use of the execute host, the
 * machine's owner setting the caps and the job asking within them.
 *
 *  - Time: a run lasts at most the job's AllowedJobDuration
 *    (allowed_job_duration in its submit file) or this machine's
 *    MAX_JOB_DURATION, whichever is less (seconds of this run, 0: none).
 *  - Disk: the execute directory may hold at most MAX_JOB_DISK MB; it is
 *    measured (each file as the larger of its allocated blocks and its
 *    apparent size, so that a sparse file costs what it would cost once
 *    transferred; links not followed, other mounts not entered) every
 *    DISK_CHECK_INTERVAL seconds.
 *  - Memory: the resident memory of all the job's processes together (its
 *    cgroup's, else its account's, else its process group's) may reach
 *    at most its RequestMemory (request_memory) or this machine's
 *    MAX_JOB_MEMORY, whichever is less (MB, 0: none).  The kernel
 *    imposes it where it can (box_memory_make: memory.max of the job's
 *    cgroup v2, or a cgroup of the v1 memory controller, swap included),
 *    and kills the job when it goes over; it is also measured at every
 *    tick, which is all there is without a memory controller (a job may
 *    then pass it for one tick before it is killed).
 *
 * A job over either is killed, everything it started with it, and
 * reported as failed with the reason, so its shadow holds it: running
 * it again elsewhere would end the same way.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad.h"
#include "config.h"
#include "event.h"
#include "log.h"
#include "starter.h"

/* HTCondor's HoldReasonCodes: a job over its memory or disk (34,
 * JobOutOfResources), over its allowed_job_duration (46). */
#define HOLD_OUT_OF_RESOURCES	34
#define HOLD_DURATION_EXCEEDED	46

static long long	disk_bytes;

static int
add_size(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	long long blocks, size;

	/* A sparse file holds few blocks here but is its whole size to
	 * whatever copies it out: count the larger. */
	if (flag != FTW_NS) {
		blocks = (long long)st->st_blocks * 512;
		size = S_ISREG(st->st_mode) ? (long long)st->st_size : 0;
		disk_bytes += blocks > size ? blocks : size;
	}
	return 0;
}

/* Bytes DIR and everything under it take (add_size). */
static long long
dir_usage(const char *dir)
{
	disk_bytes = 0;
	nftw(dir, add_size, 16, FTW_PHYS | FTW_MOUNT);
	return disk_bytes;
}

/* Resident bytes of all the job's processes together. */
static long long
job_rss(const struct starter_job *job)
{
	char path[PATH_MAX + 400];
	struct proc_stat ps;
	long long total = 0;
	long pid;
	FILE *f;
	DIR *d;
	struct dirent *e;

	if (job->cgroup[0] != '\0') {
		snprintf(path, sizeof(path), "%s/cgroup.procs", job->cgroup);
		if ((f = fopen(path, "re")) != NULL) {
			while (fscanf(f, "%ld", &pid) == 1)
				if (proc_stat_read(pid, &ps) == 0)
					total += ps.rss;
			fclose(f);
			return total;
		}
	}
	if ((d = opendir("/proc")) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		if ((pid = atol(e->d_name)) <= 0 ||
		    proc_stat_read(pid, &ps) == -1)
			continue;
		if (job->dedicated ? ps.uid == job->uid :
		    ps.pgrp == (long)job->pid)
			total += ps.rss;
	}
	closedir(d);
	return total;
}

/* The job is over a limit (job->over says which): it goes. */
static void
over(struct starter_job *job)
{
	log_warnx("job %d.%d: %s: killing it", job->cluster, job->proc,
	    job->over);
	job_signal(job, SIGCONT);
	job_signal(job, SIGKILL);
}

/*
 * The lower of what the job asks (its attribute ATTR) and this
 * machine's cap (setting CAP), 0 for none; *WHOSE names the one that
 * applies: ASKED_NAME, or the machine's setting.
 */
static long long
job_limit(const struct starter_job *job, const char *attr, const char *cap,
    const char *asked_name, const char **whose)
{
	static char machine[64];
	long long asked = 0, mine = param_int(cap, 0);

	if (ad_get_int(job->ad, attr, &asked) == 0 && asked > 0 &&
	    (mine <= 0 || asked <= mine)) {
		*whose = asked_name;
		return asked;
	}
	snprintf(machine, sizeof(machine), "this machine's %s", cap);
	*whose = machine;
	return mine > 0 ? mine : 0;
}

void
limits_memory(struct starter_job *job)
{
	const char *whose;

	job->mem_limit = job_limit(job, "RequestMemory", "MAX_JOB_MEMORY",
	    "its request_memory", &whose);
	snprintf(job->mem_whose, sizeof(job->mem_whose), "%s", whose);
}

void
limits_ended(struct starter_job *job, int status)
{
	if (job->over[0] == '\0' && WIFSIGNALED(status) &&
	    WTERMSIG(status) == SIGKILL && box_memory_killed(job)) {
		job->over_code = HOLD_OUT_OF_RESOURCES;
		snprintf(job->over, sizeof(job->over), "its memory went over "
		    "%s of %lld MB (the kernel killed it at the limit)",
		    job->mem_whose, job->mem_limit);
	}
}

void
limits_check(struct starter_job *job)
{
	long long disk_cap = param_int("MAX_JOB_DISK", 0), limit, used;
	long interval = param_int("DISK_CHECK_INTERVAL", 10);
	double now = monotime();
	const char *whose;

	if (!job->running || job->over[0] != '\0')
		return;
	limit = job_limit(job, "AllowedJobDuration", "MAX_JOB_DURATION",
	    "its allowed_job_duration", &whose);
	if (limit > 0 && now - job->started > (double)limit) {
		job->over_code = HOLD_DURATION_EXCEEDED;
		snprintf(job->over, sizeof(job->over), "the job ran longer "
		    "than %s, %lld s", whose, limit);
		over(job);
		return;
	}
	if ((limit = job->mem_limit) > 0 &&
	    (used = job_rss(job)) > limit * 1024 * 1024) {
		job->over_code = HOLD_OUT_OF_RESOURCES;
		snprintf(job->over, sizeof(job->over), "its memory reached %lld "
		    "MB, over %s of %lld MB", used / (1024 * 1024),
		    job->mem_whose, limit);
		over(job);
		return;
	}
	if (disk_cap <= 0 || now - job->disk_checked < (double)(interval > 0 ?
	    interval : 1))
		return;
	job->disk_checked = now;
	if ((used = dir_usage(job->dir)) > disk_cap * 1024 * 1024) {
		job->over_code = HOLD_OUT_OF_RESOURCES;
		snprintf(job->over, sizeof(job->over), "its execute directory "
		    "grew to %lld MB, over this machine's MAX_JOB_DISK of "
		    "%lld MB", used / (1024 * 1024), disk_cap);
		over(job);
	}
}
