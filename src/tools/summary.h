/*
 * summary.h: the accounting condor_summary shows, computed from the
 * finished jobs' history records and the collector's pool history.
 *
 * The measures are the 1988 paper's ("Condor - A Hunter of Idle
 * Workstations"):
 *
 *   leverage    remote capacity a job consumed over the local capacity
 *               spent to support it: (RemoteUserCpu + RemoteSysCpu) /
 *               (LocalUserCpu + LocalSysCpu), the latter being the
 *               shadow's CPU (placement, checkpoints, system calls).
 *   wait ratio  the time a job waited for service over its service
 *               time: (CompletionDate - QDate - RemoteWallClockTime) /
 *               RemoteWallClockTime.
 *   utilization the fraction of the pool's machines running Condor jobs
 *               (Claimed), of the ones in use by their owners (Owner,
 *               Suspended: the paper's local utilization), and the
 *               Condor share of the machines their owners left
 *               (Claimed over Idle + Claimed + Vacating + Killing).
 *
 * For a user, leverage and wait ratio are ratios of sums over the
 * user's jobs, so that a long job weighs more than a short one and a
 * job whose local CPU rounds to zero does not make the figure infinite.
 */
#ifndef CONDOR_SUMMARY_H
#define CONDOR_SUMMARY_H

#include <stddef.h>

#include "collector_rpc.h"

struct ad;

struct summary_user {
	char		*owner;
	long		 jobs;		/* completed or removed */
	long		 completed;
	long		 removed;
	long		 served;	/* jobs that ran (wall clock > 0) */
	double		 remote_cpu;	/* seconds, user + system */
	double		 local_cpu;	/* seconds, the shadows' */
	double		 service;	/* seconds running */
	double		 wait;		/* seconds waiting */
	long long	 ckpts;
	long long	 syscalls;
	long long	 bytes_sent;
	long long	 bytes_recvd;
	long long	 starts;
};

struct summary {
	struct summary_user	*users;		/* by owner name */
	size_t			 nusers;
	struct summary_user	 total;		/* owner "TOTAL" */
	long long		 first;		/* first QDate, or 0 */
	long long		 last;		/* latest end, 0: none */
};

void	summary_init(struct summary *);
/* summary_add_job: account one history record to its Owner. */
void	summary_add_job(struct summary *, const struct ad *job);
/* summary_sort: order the users by name. */
void	summary_sort(struct summary *);
void	summary_free(struct summary *);
/* Leverage and wait ratio of U; -1 when undefined (nothing local, no
 * service). */
double	summary_leverage(const struct summary_user *u);
double	summary_wait_ratio(const struct summary_user *u);

/*
 * Utilization of one sample, as fractions in [0, 1]: of all machines
 * running Condor jobs, in use by their owners, and Condor's share of
 * the machines available to it (-1 when none was available).  A sample
 * with no machines has -1 for all.
 */
double	summary_util_condor(const pool_sample_x *s);
double	summary_util_local(const pool_sample_x *s);
double	summary_util_avail(const pool_sample_x *s);

struct summary_bucket {
	long long	start;		/* seconds since the epoch */
	int		samples;
	double		machines;	/* mean of the samples' totals */
	double		states[COLLECTOR_NSTATES];	/* means */
	double		condor;		/* mean fractions, -1 */
	double		local;
	double		avail;
};

/*
 * summary_bucket_width: a round width in seconds (1, 2, 5, 10, 15, 30 s,
 * 1, 2, 5, 10, 15, 30 min, 1, 2, 3, 6, 12 h, 1, 2, 7 days...) that
 * splits SPAN seconds into at most MAXB buckets aligned on multiples of
 * the width (so fewer than MAXB unaligned).
 */
long long summary_bucket_width(long long span, int maxb);
/*
 * summary_buckets: the N samples (in time order) averaged in buckets of
 * WIDTH seconds aligned on multiples of WIDTH; empty buckets are left
 * out.  Returns how many were stored in *OUT (the caller frees it).
 */
size_t	summary_buckets(const pool_sample_x *s, size_t n, long long width,
	    struct summary_bucket **out);

#endif
