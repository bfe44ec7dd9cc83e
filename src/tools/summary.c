/*
 * summary.c: per-user accounting and pool utilization for
 * condor_summary (definitions in summary.h).  Kept apart from the
 * command so that the unit tests check the arithmetic on made-up
 * records.
 */
#include <stdlib.h>
#include <string.h>

#include "ad.h"
#include "poolhist.h"
#include "summary.h"
#include "xalloc.h"

void
summary_init(struct summary *sum)
{
	memset(sum, 0, sizeof(*sum));
	sum->total.owner = xstrdup("TOTAL");
}

static double
job_real(const struct ad *job, const char *name)
{
	double v = 0;

	if (ad_get_real(job, name, &v) == -1 || !(v >= 0) || v > 1e15)
		return 0;
	return v;
}

static long long
job_int(const struct ad *job, const char *name)
{
	long long v = 0;

	if (ad_get_int(job, name, &v) == -1 || v < 0)
		return 0;
	return v;
}

static struct summary_user *
user_find(struct summary *sum, const char *owner)
{
	size_t i;

	for (i = 0; i < sum->nusers; i++)
		if (strcmp(sum->users[i].owner, owner) == 0)
			return &sum->users[i];
	sum->users = xreallocarray(sum->users, sum->nusers + 1,
	    sizeof(*sum->users));
	memset(&sum->users[sum->nusers], 0, sizeof(*sum->users));
	sum->users[sum->nusers].owner = xstrdup(owner);
	return &sum->users[sum->nusers++];
}

static void
user_add(struct summary_user *u, long completed, long removed, int served,
    double remote, double local, double service, double wait,
    const struct ad *job)
{
	u->jobs++;
	u->completed += completed;
	u->removed += removed;
	u->served += served;
	u->remote_cpu += remote;
	u->local_cpu += local;
	u->service += service;
	u->wait += wait;
	u->ckpts += job_int(job, "NumCkpts");
	u->syscalls += job_int(job, "NumRemoteSyscalls");
	u->bytes_sent += job_int(job, "BytesSent");
	u->bytes_recvd += job_int(job, "BytesRecvd");
	u->starts += job_int(job, "NumJobStarts");
}

void
summary_add_job(struct summary *sum, const struct ad *job)
{
	char *owner = NULL;
	long long status = 0, qdate, end;
	double remote, local, service, wait = 0;
	int served;

	if (ad_get_string(job, "Owner", &owner) == -1)
		owner = xstrdup("?");
	(void)ad_get_int(job, "JobStatus", &status);
	remote = job_real(job, "RemoteUserCpu") +
	    job_real(job, "RemoteSysCpu");
	local = job_real(job, "LocalUserCpu") + job_real(job, "LocalSysCpu");
	service = job_real(job, "RemoteWallClockTime");
	qdate = job_int(job, "QDate");
	/* A removed job may have no CompletionDate: when it left, then. */
	if ((end = job_int(job, "CompletionDate")) == 0)
		end = job_int(job, "EnteredCurrentStatus");
	served = service > 0 && qdate > 0 && end >= qdate;
	if (served) {
		wait = (double)(end - qdate) - service;
		if (wait < 0)
			wait = 0;	/* clocks a second apart */
	} else
		service = 0;
	user_add(user_find(sum, owner), status == 4, status == 3, served,
	    remote, local, service, wait, job);
	user_add(&sum->total, status == 4, status == 3, served, remote,
	    local, service, wait, job);
	if (qdate > 0 && (sum->first == 0 || qdate < sum->first))
		sum->first = qdate;
	if (end > sum->last)
		sum->last = end;
	free(owner);
}

static int
cmp_owner(const void *a, const void *b)
{
	const struct summary_user *x = a, *y = b;

	return strcmp(x->owner, y->owner);
}

void
summary_sort(struct summary *sum)
{
	if (sum->nusers > 1)
		qsort(sum->users, sum->nusers, sizeof(*sum->users), cmp_owner);
}

void
summary_free(struct summary *sum)
{
	size_t i;

	for (i = 0; i < sum->nusers; i++)
		free(sum->users[i].owner);
	free(sum->users);
	free(sum->total.owner);
	memset(sum, 0, sizeof(*sum));
}

double
summary_leverage(const struct summary_user *u)
{
	if (!(u->local_cpu > 0))
		return -1;
	return u->remote_cpu / u->local_cpu;
}

double
summary_wait_ratio(const struct summary_user *u)
{
	if (u->served == 0 || !(u->service > 0))
		return -1;
	return u->wait / u->service;
}

double
summary_util_condor(const pool_sample_x *s)
{
	if (s->total <= 0)
		return -1;
	return (double)s->states[POOLHIST_CLAIMED] / s->total;
}

double
summary_util_local(const pool_sample_x *s)
{
	if (s->total <= 0)
		return -1;
	return (double)(s->states[POOLHIST_OWNER] +
	    s->states[POOLHIST_SUSPENDED]) / s->total;
}

double
summary_util_avail(const pool_sample_x *s)
{
	int avail = s->states[POOLHIST_IDLE] +
	    s->states[POOLHIST_CLAIMED] +
	    s->states[POOLHIST_VACATING] +
	    s->states[POOLHIST_KILLING];

	if (s->total <= 0 || avail <= 0)
		return -1;
	return (double)s->states[POOLHIST_CLAIMED] / avail;
}

long long
summary_bucket_width(long long span, int maxb)
{
	static const long long widths[] = {
		1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600,
		7200, 10800, 21600, 43200, 86400, 172800, 604800,
	};
	size_t i;
	long long w;

	if (maxb < 1)
		maxb = 1;
	if (span < 1)
		span = 1;
	for (i = 0; i < sizeof(widths) / sizeof(widths[0]); i++)
		if ((span + widths[i] - 1) / widths[i] < maxb)
			return widths[i];
	/* Past a week: whole weeks. */
	w = 604800 * ((span / 604800) / maxb + 1);
	return w;
}

/* Add F to the running mean *MEAN of *N values; F < 0 is no value. */
static void
mean_add(double *mean, int *n, double f)
{
	if (f < 0)
		return;
	(*n)++;
	*mean += (f - *mean) / *n;
}

size_t
summary_buckets(const pool_sample_x *s, size_t n, long long width,
    struct summary_bucket **out)
{
	struct summary_bucket *b = NULL, *cur = NULL;
	size_t nb = 0, i;
	int j, nc = 0, nl = 0, na = 0;
	long long start;

	if (width < 1)
		width = 1;
	for (i = 0; i < n; i++) {
		start = s[i].time - ((s[i].time % width) + width) % width;
		if (cur == NULL || cur->start != start) {
			b = xreallocarray(b, nb + 1, sizeof(*b));
			cur = &b[nb++];
			memset(cur, 0, sizeof(*cur));
			cur->start = start;
			cur->condor = cur->local = cur->avail = -1;
			nc = nl = na = 0;
		}
		cur->samples++;
		cur->machines += (s[i].total - cur->machines) / cur->samples;
		for (j = 0; j < COLLECTOR_NSTATES; j++)
			cur->states[j] += (s[i].states[j] - cur->states[j]) /
			    cur->samples;
		if (nc == 0)
			cur->condor = 0;
		if (nl == 0)
			cur->local = 0;
		if (na == 0)
			cur->avail = 0;
		mean_add(&cur->condor, &nc, summary_util_condor(&s[i]));
		mean_add(&cur->local, &nl, summary_util_local(&s[i]));
		mean_add(&cur->avail, &na, summary_util_avail(&s[i]));
		if (nc == 0)
			cur->condor = -1;
		if (nl == 0)
			cur->local = -1;
		if (na == 0)
			cur->avail = -1;
	}
	*out = b;
	return nb;
}
