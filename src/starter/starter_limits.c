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
 *  - Memory: the resident memory of all the job's processes together (its
 *    cgroup's, else its account's, else its process group's) may reach
 *    at most its RequestMemory (request_memory) or this machine's
 *    MAX_JOB_MEMORY, whichever is less (MB, 0: none); it is measured at
 *    every tick.  This machine's kernel offers no memory controller to
 *    the cgroup v2 tree, so the limit is watched, not imposed: a job
 *    may pass it for one tick before it is killed.
 *
 * A job over either is killed, everything it started with it, and
 * reported as failed with the reason, so its shadow holds it: running
 * it again elsewhere would end the same way.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Resident bytes of process PID, or 0; its uid and process group. */
static long long
process_rss(long pid, uid_t *uid, long *pgrp)
{
	char path[64], buf[1024], *p;
	long long pages = 0;
	struct stat st;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld", pid);
	if (stat(path, &st) == -1)
		return 0;
	*uid = st.st_uid;
	*pgrp = -1;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	/* After the command: state, ppid, pgrp, ... rss is field 24. */
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 2, "%*c %*d %ld %*d %*d %*d %*u %*u %*u %*u %*u %*u "
	    "%*u %*d %*d %*d %*d %*d %*d %*u %*u %lld", pgrp, &pages) != 2)
		return 0;
	return pages * sysconf(_SC_PAGESIZE);
}

/* Resident bytes of all the job's processes together. */
static long long
job_rss(const struct starter_job *job)
{
	char path[PATH_MAX + 400];
	long long total = 0;
	long pid, pgrp;
	uid_t uid;
	FILE *f;
	DIR *d;
	struct dirent *e;

	if (job->cgroup[0] != '\0') {
		snprintf(path, sizeof(path), "%s/cgroup.procs", job->cgroup);
		if ((f = fopen(path, "re")) != NULL) {
			while (fscanf(f, "%ld", &pid) == 1)
				total += process_rss(pid, &uid, &pgrp);
			fclose(f);
			return total;
		}
	}
	if ((d = opendir("/proc")) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		long long rss;

		if ((pid = atol(e->d_name)) <= 0)
			continue;
		rss = process_rss(pid, &uid, &pgrp);
		if (job->dedicated ? uid == job->uid : pgrp == (long)job->pid)
			total += rss;
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

void
limits_check(struct starter_job *job)
{
	long long asked = 0, cap = param_int("MAX_JOB_DURATION", 0), limit, rss;
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
	if (ad_get_int(job->ad, "RequestMemory", &asked) == -1)
		asked = 0;
	cap = param_int("MAX_JOB_MEMORY", 0);
	limit = asked > 0 && (cap <= 0 || asked < cap) ? asked : cap;
	if (limit > 0 && (rss = job_rss(job)) > limit * 1024 * 1024) {
		snprintf(job->over, sizeof(job->over), "its memory reached %lld "
		    "MB, over %s of %lld MB", rss / (1024 * 1024),
		    asked == limit ? "its request_memory" :
		    "this machine's MAX_JOB_MEMORY", limit);
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
