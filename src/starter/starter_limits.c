/*
 * starter_limits.c: what a running job may use of the execute host, the
 * machine's owner setting the caps and the job asking within them.
 *
 *  - Time: a run lasts at most the job's AllowedJobDuration
 *    (allowed_job_duration in its submit file) or this machine's
 *    MAX_JOB_DURATION, whichever is less (seconds of this run, 0: none).
 *  - Disk: the execute directory may hold at most MAX_JOB_DISK MB; it is
 *    measured (allocated blocks, links not followed, other mounts not
 *    entered) every DISK_CHECK_INTERVAL seconds.
 *
 * A job over either is killed, everything it started with it, and
 * reported as failed with the reason, so its shadow holds it: running
 * it again elsewhere would end the same way.
 */
#include <sys/stat.h>

#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "ad.h"
#include "config.h"
#include "event.h"
#include "log.h"
#include "starter.h"

static long long	disk_bytes;

static int
add_size(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	if (flag != FTW_NS)
		disk_bytes += (long long)st->st_blocks * 512;
	return 0;
}

/* Bytes allocated to DIR and everything under it. */
static long long
dir_usage(const char *dir)
{
	disk_bytes = 0;
	nftw(dir, add_size, 16, FTW_PHYS | FTW_MOUNT);
	return disk_bytes;
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

void
limits_check(struct starter_job *job)
{
	long long asked = 0, cap = param_int("MAX_JOB_DURATION", 0), limit;
	long long disk_cap = param_int("MAX_JOB_DISK", 0);
	long interval = param_int("DISK_CHECK_INTERVAL", 10);
	double now = monotime();

	if (!job->running || job->over[0] != '\0')
		return;
	if (ad_get_int(job->ad, "AllowedJobDuration", &asked) == -1)
		asked = 0;
	limit = asked > 0 && (cap <= 0 || asked < cap) ? asked : cap;
	if (limit > 0 && now - job->started > (double)limit) {
		snprintf(job->over, sizeof(job->over), "the job ran longer "
		    "than %s, %lld s", asked == limit ?
		    "its allowed_job_duration" :
		    "this machine's MAX_JOB_DURATION", limit);
		over(job);
		return;
	}
	if (disk_cap <= 0 || now - job->disk_checked < (double)(interval > 0 ?
	    interval : 1))
		return;
	job->disk_checked = now;
	if ((job->disk_used = dir_usage(job->dir)) > disk_cap * 1024 * 1024) {
		snprintf(job->over, sizeof(job->over), "its execute directory "
		    "grew to %lld MB, over this machine's MAX_JOB_DISK of "
		    "%lld MB", job->disk_used / (1024 * 1024), disk_cap);
		over(job);
	}
}
