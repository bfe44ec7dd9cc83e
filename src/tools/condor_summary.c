/*
 * condor_summary: what the pool did for its users, in the 1988 paper's
 * measures.  Per owner, from the schedd's history of finished jobs:
 * jobs, remote CPU, the shadows' local CPU, leverage, wait ratio,
 * checkpoints, remote system calls.  Then the pool's utilization over
 * time, from the samples the collector keeps (COLLECTOR_HISTORY).
 * With -plot, both as an SVG picture.  See condor_summary(1); the
 * measures are defined in summary.h.
 *
 * Everything shown comes from ads and a file other programs wrote: any
 * attribute may be missing or absurd, names may hold anything, and none
 * of it may break the table or the XML.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ad.h"
#include "buf.h"
#include "collector_rpc.h"
#include "config.h"
#include "daemon.h"
#include "expr.h"
#include "fdio.h"
#include "locate.h"
#include "log.h"
#include "poolhist.h"
#include "rpcutil.h"
#include "schedd_client.h"
#include "summary.h"
#include "xalloc.h"

#define DEFAULT_HOURS	(7 * 24)	/* utilization window, hours */
#define MAX_HOURS	(100 * 365 * 24)
#define MAX_ROWS	24		/* utilization buckets shown */

/* What the accounting needs of each finished job. */
static const char *const job_attrs[] = {
	"Owner", "JobStatus", "RemoteUserCpu", "RemoteSysCpu", "LocalUserCpu",
	"LocalSysCpu", "RemoteWallClockTime", "QDate", "CompletionDate",
	"EnteredCurrentStatus", "NumCkpts", "NumRemoteSyscalls", "BytesSent",
	"BytesRecvd", "NumJobStarts", NULL
};

static int
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: condor_summary [-l] [-plot FILE.svg] [-hours N] "
	    "[-name HOST]\n"
	    "                      [-constraint EXPR] [OWNER | C | C.P]...\n"
	    "  -l               the figures as ads, \"Name = value\", "
	    "seconds unrounded\n"
	    "  -plot FILE.svg   also draw utilization and CPU per user "
	    "as SVG\n"
	    "  -hours N         only the last N hours (default: every "
	    "finished job,\n"
	    "                   the utilization of the last %d hours)\n"
	    "  -name HOST       the history of HOST's schedd\n"
	    "  -constraint EXPR only jobs for which EXPR is TRUE\n"
	    "  OWNER, C, C.P    only this user's jobs, this cluster, this "
	    "job\n", DEFAULT_HOURS);
	return fp == stdout ? 0 : 1;
}

static void
format_time(long long t, int seconds, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (t <= 0 || localtime_r(&tt, &tm) == NULL) {
		snprintf(buf, len, "-");
		return;
	}
	if (seconds)
		strftime(buf, len, "%m/%d %H:%M:%S", &tm);
	else
		strftime(buf, len, "%m/%d %H:%M", &tm);
}

static void
format_width(long long w, char *buf, size_t len)
{
	if (w % 86400 == 0)
		snprintf(buf, len, "%lld d", w / 86400);
	else if (w % 3600 == 0)
		snprintf(buf, len, "%lld h", w / 3600);
	else if (w % 60 == 0)
		snprintf(buf, len, "%lld min", w / 60);
	else
		snprintf(buf, len, "%lld s", w);
}

/* A ratio for the table: "-" when undefined, few digits when large. */
static void
format_ratio(double r, char *buf, size_t len)
{
	if (r < 0)
		snprintf(buf, len, "-");
	else if (r >= 1e9)
		snprintf(buf, len, "%.3g", r);
	else if (r >= 100)
		snprintf(buf, len, "%.0f", r);
	else
		snprintf(buf, len, "%.2f", r);
}

static void
format_percent(double f, char *buf, size_t len)
{
	if (f < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.0f%%", f * 100);
}

/*
 * CPU seconds as D+HH:MM:SS.ss: condor_q's form, with hundredths, since
 * the shadows' CPU is often well under a second.
 */
static void
format_cpu(double secs, char *buf, size_t len)
{
	long long whole;
	double frac;

	if (!(secs >= 0) || secs > 1e12)
		secs = 0;
	whole = (long long)secs;
	frac = secs - (double)whole;
	if (frac >= 0.995) {
		whole++;
		frac = 0;
	}
	snprintf(buf, len, "%lld+%02lld:%02lld:%02lld.%02d", whole / 86400,
	    whole / 3600 % 24, whole / 60 % 60, whole % 60,
	    (int)(frac * 100 + 0.5));
}

/* An owner name fit for one table cell: printable, at most 16. */
static void
format_owner(const char *owner, char *buf, size_t len)
{
	size_t i;

	for (i = 0; owner[i] != '\0' && i + 1 < len && i < 16; i++)
		buf[i] = owner[i] > ' ' && owner[i] < 127 ? owner[i] : '?';
	buf[i] = '\0';
}

static void
print_user_row(const struct summary_user *u)
{
	char owner[20], remote[32], local[32], lev[32], wr[32];

	format_owner(u->owner, owner, sizeof(owner));
	format_cpu(u->remote_cpu, remote, sizeof(remote));
	format_cpu(u->local_cpu, local, sizeof(local));
	format_ratio(summary_leverage(u), lev, sizeof(lev));
	format_ratio(summary_wait_ratio(u), wr, sizeof(wr));
	printf("%-16s %5ld %5ld %5ld %16s %16s %9s %10s %6lld %9lld\n",
	    owner, u->jobs, u->completed, u->removed, remote, local, lev,
	    wr, u->ckpts, u->syscalls);
}

static void
print_users(const struct summary *sum)
{
	char from[32], to[32];
	size_t i;

	format_time(sum->first, 0, from, sizeof(from));
	format_time(sum->last, 0, to, sizeof(to));
	if (sum->total.jobs == 0)
		printf("No finished jobs.\n");
	else
		printf("Finished jobs by owner: %ld job%s, submitted from %s, "
		    "finished by %s\n", sum->total.jobs,
		    sum->total.jobs == 1 ? "" : "s", from, to);
	printf("%-16s %5s %5s %5s %16s %16s %9s %10s %6s %9s\n", "OWNER",
	    "JOBS", "DONE", "RMVD", "REMOTE_CPU", "LOCAL_CPU", "LEVERAGE",
	    "WAIT_RATIO", "CKPTS", "SYSCALLS");
	for (i = 0; i < sum->nusers; i++)
		print_user_row(&sum->users[i]);
	print_user_row(&sum->total);
}

static void
user_to_ad(const struct summary_user *u, struct ad *ad)
{
	ad_set_string(ad, "Owner", u->owner);
	ad_set_int(ad, "Jobs", u->jobs);
	ad_set_int(ad, "Completed", u->completed);
	ad_set_int(ad, "Removed", u->removed);
	ad_set_int(ad, "Served", u->served);
	ad_set_real(ad, "RemoteCpu", u->remote_cpu);
	ad_set_real(ad, "LocalCpu", u->local_cpu);
	ad_set_real(ad, "ServiceTime", u->service);
	ad_set_real(ad, "WaitTime", u->wait);
	ad_set_real(ad, "Leverage", summary_leverage(u));
	ad_set_real(ad, "WaitRatio", summary_wait_ratio(u));
	ad_set_int(ad, "NumCkpts", u->ckpts);
	ad_set_int(ad, "NumRemoteSyscalls", u->syscalls);
	ad_set_int(ad, "BytesSent", u->bytes_sent);
	ad_set_int(ad, "BytesRecvd", u->bytes_recvd);
	ad_set_int(ad, "NumJobStarts", u->starts);
}

static void
print_users_long(const struct summary *sum)
{
	struct ad *ad;
	size_t i;

	for (i = 0; i <= sum->nusers; i++) {
		ad = ad_new();
		ad_set_string(ad, "MyType", "UserSummary");
		user_to_ad(i < sum->nusers ? &sum->users[i] : &sum->total, ad);
		ad_fprint(ad, stdout);
		printf("\n");
		ad_free(ad);
	}
}

/* The mean utilization over all samples: -1 where undefined. */
static void
util_means(const pool_sample_x *s, size_t n, double *condor, double *local,
    double *avail)
{
	double f, sums[3] = { 0, 0, 0 };
	int cnt[3] = { 0, 0, 0 };
	size_t i;

	for (i = 0; i < n; i++) {
		if ((f = summary_util_condor(&s[i])) >= 0) {
			sums[0] += f;
			cnt[0]++;
		}
		if ((f = summary_util_local(&s[i])) >= 0) {
			sums[1] += f;
			cnt[1]++;
		}
		if ((f = summary_util_avail(&s[i])) >= 0) {
			sums[2] += f;
			cnt[2]++;
		}
	}
	*condor = cnt[0] ? sums[0] / cnt[0] : -1;
	*local = cnt[1] ? sums[1] / cnt[1] : -1;
	*avail = cnt[2] ? sums[2] / cnt[2] : -1;
}

static void
print_util(const collector_history_res_x *h, int want_long)
{
	const pool_sample_x *s = h->samples.samples_val;
	size_t n = h->samples.samples_len, nb, i;
	struct summary_bucket *b = NULL;
	char t0[32], t1[32], w[32], c[16], l[16], a[16];
	double mc, ml, ma;
	long long width;
	struct ad *ad;

	if (n == 0) {
		if (!want_long)
			printf("\nPool utilization: no samples in the "
			    "window%s\n", h->interval > 0 ? "" :
			    " (the collector is not sampling: "
			    "COLLECTOR_HISTORY_INTERVAL = 0)");
		return;
	}
	width = summary_bucket_width(s[n - 1].time - s[0].time + 1, MAX_ROWS);
	nb = summary_buckets(s, n, width, &b);
	util_means(s, n, &mc, &ml, &ma);
	if (want_long) {
		for (i = 0; i < nb; i++) {
			ad = ad_new();
			ad_set_string(ad, "MyType", "PoolUtilization");
			ad_set_int(ad, "BucketStart", b[i].start);
			ad_set_int(ad, "BucketWidth", width);
			ad_set_int(ad, "Samples", b[i].samples);
			ad_set_real(ad, "Machines", b[i].machines);
			ad_set_real(ad, "OwnerMachines",
			    b[i].states[POOLHIST_OWNER]);
			ad_set_real(ad, "IdleMachines",
			    b[i].states[POOLHIST_IDLE]);
			ad_set_real(ad, "ClaimedMachines",
			    b[i].states[POOLHIST_CLAIMED]);
			ad_set_real(ad, "SuspendedMachines",
			    b[i].states[POOLHIST_SUSPENDED]);
			ad_set_real(ad, "CondorUtilization", b[i].condor);
			ad_set_real(ad, "LocalUtilization", b[i].local);
			ad_set_real(ad, "AvailUtilization", b[i].avail);
			ad_fprint(ad, stdout);
			printf("\n");
			ad_free(ad);
		}
		free(b);
		return;
	}
	format_time(s[0].time, 1, t0, sizeof(t0));
	format_time(s[n - 1].time, 1, t1, sizeof(t1));
	format_width(width, w, sizeof(w));
	printf("\nPool utilization: %zu sample%s", n, n == 1 ? "" : "s");
	if (h->matched > 0 && (size_t)h->matched > n)
		printf(" (of %d)", h->matched);
	printf(", one every %d s, from %s to %s, by %s\n", h->interval, t0,
	    t1, w);
	printf("%-14s %7s %8s %6s %6s %7s %9s %6s %6s %6s\n", "TIME",
	    "SAMPLES", "MACHINES", "OWNER", "IDLE", "CLAIMED", "SUSPENDED",
	    "LOCAL", "CONDOR", "AVAIL");
	for (i = 0; i < nb; i++) {
		format_time(b[i].start, width < 60, t0, sizeof(t0));
		format_percent(b[i].local, l, sizeof(l));
		format_percent(b[i].condor, c, sizeof(c));
		format_percent(b[i].avail, a, sizeof(a));
		printf("%-14s %7d %8.1f %6.1f %6.1f %7.1f %9.1f %6s %6s %6s\n",
		    t0, b[i].samples, b[i].machines,
		    b[i].states[POOLHIST_OWNER], b[i].states[POOLHIST_IDLE],
		    b[i].states[POOLHIST_CLAIMED],
		    b[i].states[POOLHIST_SUSPENDED], l, c, a);
	}
	format_percent(ml, l, sizeof(l));
	format_percent(mc, c, sizeof(c));
	format_percent(ma, a, sizeof(a));
	printf("Mean: running Condor jobs %s of the machines, %s of the ones "
	    "available; owners used %s\n", c, a, l);
	free(b);
}

/* S with &, <, >, " and ' escaped and control characters dropped. */
static void
svg_text(struct buf *out, const char *s)
{
	for (; *s != '\0'; s++) {
		switch (*s) {
		case '&':
			buf_adds(out, "&amp;");
			break;
		case '<':
			buf_adds(out, "&lt;");
			break;
		case '>':
			buf_adds(out, "&gt;");
			break;
		case '"':
			buf_adds(out, "&quot;");
			break;
		case '\'':
			buf_adds(out, "&apos;");
			break;
		default:
			if ((unsigned char)*s >= ' ' && *s != 127)
				buf_addc(out, *s);
		}
	}
}

#define SVG_W		800
#define PLOT_X		60	/* left edge of the plots */
#define PLOT_W		(SVG_W - PLOT_X - 180)
#define UTIL_Y		50	/* top of the utilization plot */
#define UTIL_H		200
#define BAR_H		18

/* One utilization series as a polyline (points where defined). */
static void
svg_series(struct buf *out, const pool_sample_x *s, size_t n,
    double (*fn)(const pool_sample_x *), const char *color,
    const char *dash)
{
	long long t0 = s[0].time, span = s[n - 1].time - s[0].time;
	double f, x, y;
	size_t i;

	buf_printf(out, "<polyline fill=\"none\" stroke=\"%s\" "
	    "stroke-width=\"2\"%s%s%s points=\"", color,
	    dash ? " stroke-dasharray=\"" : "", dash ? dash : "",
	    dash ? "\"" : "");
	for (i = 0; i < n; i++) {
		if ((f = fn(&s[i])) < 0)
			continue;
		x = PLOT_X + (span > 0 ? (double)(s[i].time - t0) / span *
		    PLOT_W : PLOT_W / 2.0);
		y = UTIL_Y + UTIL_H - f * UTIL_H;
		buf_printf(out, "%.1f,%.1f ", x, y);
	}
	buf_adds(out, "\"/>\n");
}

static int
write_svg(const char *path, const struct summary *sum,
    const collector_history_res_x *h)
{
	const pool_sample_x *s = h->samples.samples_val;
	size_t n = h->samples.samples_len, i;
	struct buf out;
	char t0[32], t1[32], owner[20], cpu[32];
	double maxcpu = 0, w;
	int height, y, pct, users_y;
	FILE *fp;

	users_y = UTIL_Y + UTIL_H + 70;
	height = users_y + 30 + (int)(sum->nusers + 1) * (BAR_H + 8) + 30;
	buf_init(&out);
	buf_printf(&out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
	    "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" "
	    "font-size=\"12\">\n", SVG_W, height, SVG_W, height);
	buf_printf(&out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
	    "fill=\"white\"/>\n", SVG_W, height);
	buf_printf(&out, "<text x=\"%d\" y=\"25\" font-size=\"16\">"
	    "Pool utilization</text>\n", PLOT_X);

	/* The utilization plot: axes, grid, three series, legend. */
	for (pct = 0; pct <= 100; pct += 25) {
		y = UTIL_Y + UTIL_H - pct * UTIL_H / 100;
		buf_printf(&out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" "
		    "y2=\"%d\" stroke=\"#ccc\"/>\n<text x=\"%d\" y=\"%d\" "
		    "text-anchor=\"end\">%d%%</text>\n", PLOT_X, y,
		    PLOT_X + PLOT_W, y, PLOT_X - 5, y + 4, pct);
	}
	buf_printf(&out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
	    "fill=\"none\" stroke=\"black\"/>\n", PLOT_X, UTIL_Y, PLOT_W,
	    UTIL_H);
	if (n == 0) {
		buf_printf(&out, "<text x=\"%d\" y=\"%d\" "
		    "text-anchor=\"middle\">no samples</text>\n",
		    PLOT_X + PLOT_W / 2, UTIL_Y + UTIL_H / 2);
	} else {
		svg_series(&out, s, n, summary_util_local, "#d95f02", "4,3");
		svg_series(&out, s, n, summary_util_avail, "#7570b3", "1,3");
		svg_series(&out, s, n, summary_util_condor, "#1b9e77", NULL);
		format_time(s[0].time, 1, t0, sizeof(t0));
		format_time(s[n - 1].time, 1, t1, sizeof(t1));
		buf_printf(&out, "<text x=\"%d\" y=\"%d\">", PLOT_X,
		    UTIL_Y + UTIL_H + 18);
		svg_text(&out, t0);
		buf_printf(&out, "</text>\n<text x=\"%d\" y=\"%d\" "
		    "text-anchor=\"end\">", PLOT_X + PLOT_W,
		    UTIL_Y + UTIL_H + 18);
		svg_text(&out, t1);
		buf_adds(&out, "</text>\n");
	}
	y = UTIL_Y + 10;
	buf_printf(&out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
	    "stroke=\"#1b9e77\" stroke-width=\"2\"/><text x=\"%d\" y=\"%d\">"
	    "running Condor jobs</text>\n", PLOT_X + PLOT_W + 10, y,
	    PLOT_X + PLOT_W + 30, y, PLOT_X + PLOT_W + 35, y + 4);
	y += 20;
	buf_printf(&out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
	    "stroke=\"#7570b3\" stroke-width=\"2\" stroke-dasharray=\"1,3\"/>"
	    "<text x=\"%d\" y=\"%d\">of available</text>\n",
	    PLOT_X + PLOT_W + 10, y, PLOT_X + PLOT_W + 30, y,
	    PLOT_X + PLOT_W + 35, y + 4);
	y += 20;
	buf_printf(&out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
	    "stroke=\"#d95f02\" stroke-width=\"2\" stroke-dasharray=\"4,3\"/>"
	    "<text x=\"%d\" y=\"%d\">used by owners</text>\n",
	    PLOT_X + PLOT_W + 10, y, PLOT_X + PLOT_W + 30, y,
	    PLOT_X + PLOT_W + 35, y + 4);

	/* CPU per user: remote (long bar) and local (the shadows'). */
	buf_printf(&out, "<text x=\"%d\" y=\"%d\" font-size=\"16\">"
	    "Remote CPU per user (local CPU in orange)</text>\n", PLOT_X,
	    users_y);
	for (i = 0; i < sum->nusers; i++) {
		if (sum->users[i].remote_cpu > maxcpu)
			maxcpu = sum->users[i].remote_cpu;
		if (sum->users[i].local_cpu > maxcpu)
			maxcpu = sum->users[i].local_cpu;
	}
	y = users_y + 15;
	for (i = 0; i < sum->nusers; i++) {
		const struct summary_user *u = &sum->users[i];

		format_owner(u->owner, owner, sizeof(owner));
		format_cpu(u->remote_cpu, cpu, sizeof(cpu));
		buf_printf(&out, "<text x=\"%d\" y=\"%d\" "
		    "text-anchor=\"end\">", PLOT_X + 95, y + BAR_H - 5);
		svg_text(&out, owner);
		buf_adds(&out, "</text>\n");
		w = maxcpu > 0 ? u->remote_cpu / maxcpu * (PLOT_W - 100) : 0;
		buf_printf(&out, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" "
		    "height=\"%d\" fill=\"#1b9e77\"/>\n", PLOT_X + 100, y, w,
		    BAR_H - 6);
		w = maxcpu > 0 ? u->local_cpu / maxcpu * (PLOT_W - 100) : 0;
		buf_printf(&out, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" "
		    "height=\"4\" fill=\"#d95f02\"/>\n", PLOT_X + 100,
		    y + BAR_H - 5, w < 1 && u->local_cpu > 0 ? 1 : w);
		buf_printf(&out, "<text x=\"%d\" y=\"%d\">",
		    PLOT_X + PLOT_W + 5, y + BAR_H - 5);
		svg_text(&out, cpu);
		buf_adds(&out, "</text>\n");
		y += BAR_H + 8;
	}
	if (sum->nusers == 0)
		buf_printf(&out, "<text x=\"%d\" y=\"%d\">no finished jobs"
		    "</text>\n", PLOT_X + 100, y + BAR_H - 5);
	buf_adds(&out, "</svg>\n");

	if ((fp = fd_fopen_user(path, "w")) == NULL) {
		log_warnx("cannot create %s: %s", path,
		    fd_user_strerror(errno));
		buf_free(&out);
		return -1;
	}
	if (fwrite(out.data, 1, out.len, fp) != out.len || fclose(fp) != 0) {
		log_warn("cannot write %s", path);
		buf_free(&out);
		return -1;
	}
	buf_free(&out);
	return 0;
}

int
main(int argc, char **argv)
{
	struct job_select sel;
	struct summary sum;
	collector_history_res_x hist;
	struct ad **jobs;
	const char *plot = NULL;
	char err[1024], window[128], *constraint, *end;
	long hours = 0;
	long long now, since;
	int i, n, rc = 0, have_hist;
	CLIENT *cl;

	common_init(argv[0]);
	signal(SIGPIPE, SIG_IGN);
	job_select_init(&sel, usage, 0);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "-plot") == 0) {
			if (++i == argc || argv[i][0] == '\0') {
				log_warnx("-plot needs a file name");
				return 1;
			}
			plot = argv[i];
		} else if (strcmp(a, "-hours") == 0) {
			if (++i == argc) {
				log_warnx("-hours needs a number of hours");
				return 1;
			}
			errno = 0;
			hours = strtol(argv[i], &end, 10);
			if (errno != 0 || end == argv[i] || *end != '\0' ||
			    hours < 1 || hours > MAX_HOURS) {
				log_warnx("-hours: \"%s\" is not a number of "
				    "hours from 1 to %d", argv[i], MAX_HOURS);
				return 1;
			}
		} else if (job_select_arg(&sel, argc, argv, &i) == -1)
			return 1;
	}
	now = (long long)time(NULL);
	since = now - (long long)(hours ? hours : DEFAULT_HOURS) * 3600;
	if (hours > 0)
		snprintf(window, sizeof(window), "CompletionDate >= %lld || "
		    "EnteredCurrentStatus >= %lld", since, since);
	if ((constraint = job_select_constraint(&sel, hours > 0 ? window :
	    NULL)) == NULL)
		return 1;

	/* The finished jobs. */
	if ((cl = job_select_connect(&sel)) == NULL)
		return 1;
	n = schedd_query(cl, constraint, 1, job_attrs, &jobs, err,
	    sizeof(err));
	rpc_close(cl);
	if (n < 0) {
		log_warnx("cannot read the history: %s", err);
		return 1;
	}
	summary_init(&sum);
	for (i = 0; i < n; i++)
		summary_add_job(&sum, jobs[i]);
	schedd_free_jobs(jobs, n);
	summary_sort(&sum);

	/* The pool's samples. */
	have_hist = poolhist_fetch(since, 0, COLLECTOR_MAX_SAMPLES, &hist,
	    err, sizeof(err)) == 0;

	signal(SIGPIPE, SIG_DFL);
	if (sel.want_long)
		print_users_long(&sum);
	else
		print_users(&sum);
	if (have_hist)
		print_util(&hist, sel.want_long);
	else {
		fflush(stdout);
		log_warnx("cannot read the pool's utilization from the "
		    "collector: %s", err);
		rc = 1;
		memset(&hist, 0, sizeof(hist));
	}
	if (plot != NULL && write_svg(plot, &sum, &hist) == -1)
		rc = 1;
	if (have_hist)
		xdr_free((xdrproc_t)xdr_collector_history_res_x, (char *)&hist);
	summary_free(&sum);
	job_select_free(&sel);
	free(constraint);
	return rc;
}
