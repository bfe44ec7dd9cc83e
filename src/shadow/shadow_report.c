/*
 * shadow_report.c: what the shadow tells the world about its job: the
 * user log (as the owner), the job's accounting attributes in the
 * schedd's queue, and the owner's mail.
 *
 * Accounting adds each run to the totals the job ad carried when the
 * shadow started: RemoteUserCpu and RemoteSysCpu (the job's CPU on the
 * execute hosts), LocalUserCpu and LocalSysCpu (the shadows' own CPU:
 * the 1988 paper's leverage is remote over local), RemoteWallClockTime.
 */
#include <sys/resource.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ad.h"
#include "buf.h"
#include "log.h"
#include "shadow_mail.h"
#include "shadow.h"
#include "userlog.h"
#include "xalloc.h"

/* The shadow's own CPU so far (seconds). */
static void
local_cpu(double *user, double *sys)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) == -1) {
		*user = *sys = 0;
		return;
	}
	*user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	*sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	/* And the process that served the job's system calls. */
	syscall_cpu(user, sys);
}

static double
run_wall(void)
{
	time_t now = time(NULL);

	return sj.run_start > 0 && now > sj.run_start ?
	    (double)(now - sj.run_start) : 0.0;
}

static void
usage_of(const struct shadow_outcome *o, struct ulog_usage *u)
{
	memset(u, 0, sizeof(*u));
	local_cpu(&u->local_user, &u->local_sys);
	if (o != NULL) {
		u->remote_user = o->user_cpu;
		u->remote_sys = o->sys_cpu;
	}
	u->total_remote_user = sj.prev_remote_user + u->remote_user;
	u->total_remote_sys = sj.prev_remote_sys + u->remote_sys;
	u->total_local_user = sj.prev_local_user + u->local_user;
	u->total_local_sys = sj.prev_local_sys + u->local_sys;
	u->bytes_sent = u->total_bytes_sent = sj.bytes_sent;
	u->bytes_received = u->total_bytes_received = sj.bytes_received;
}

/*
 * Whether the job has a user log: its own (written under the name
 * sj.userlog) or a DAG's node log (which userlog_also adds, alone when
 * the userlog is NULL).
 */
static int
has_userlog(void)
{
	return sj.userlog != NULL || sj.nodes_log != NULL;
}

/* Run FN's user-log write as the owner; a failure is only logged. */
static void
log_result(int r, const char *what)
{
	if (r == -1)
		log_warn("job %s: cannot write %s to the user log %s%s%s",
		    sj.id, what, sj.userlog ? sj.userlog : "", sj.userlog &&
		    sj.nodes_log ? " or " : "", sj.nodes_log ? sj.nodes_log :
		    "");
}

/*
 * The schedd itself keeps RemoteHost, NumJobStarts, JobStartDate and
 * RemoteWallClockTime (it knows when it started and reaped us); we send
 * only what it cannot know.
 */
void
report_execute(void)
{
	struct ad *up = ad_new();

	if (has_userlog() && shadow_as_owner() == 0) {
		log_result(userlog_execute(sj.userlog, sj.cluster, sj.proc,
		    sj.startd_addr, sj.machine), "the execute event");
		shadow_as_self();
	}
	ad_set_int(up, "JobCurrentStartDate", (long long)sj.run_start);
	schedd_update_job(up, 3);
	ad_free(up);
}

void
report_suspended(int suspended)
{
	struct ad *up = ad_new();

	if (has_userlog() && shadow_as_owner() == 0) {
		log_result(suspended ? userlog_suspended(sj.userlog,
		    sj.cluster, sj.proc) : userlog_unsuspended(sj.userlog,
		    sj.cluster, sj.proc), suspended ? "the suspend event" :
		    "the unsuspend event");
		shadow_as_self();
	}
	log_info("job %s %s", sj.id, suspended ? "suspended" : "continues");
	ad_set_int(up, "JobStatus", suspended ? 7 : 2);
	schedd_update_job(up, 1);
	ad_free(up);
}

void
report_usage_attrs(struct ad *ad, const struct shadow_outcome *o)
{
	struct ulog_usage u;

	usage_of(o, &u);
	ad_set_real(ad, "RemoteUserCpu", u.total_remote_user);
	ad_set_real(ad, "RemoteSysCpu", u.total_remote_sys);
	ad_set_real(ad, "LocalUserCpu", u.total_local_user);
	ad_set_real(ad, "LocalSysCpu", u.total_local_sys);
	syscall_report_attrs(ad);
	if (sj.machine != NULL)
		ad_set_string(ad, "LastRemoteHost", sj.machine);
	if (o != NULL && o->image_size > sj.prev_image_size)
		ad_set_int(ad, "ImageSize", o->image_size);
}

void
report_disconnected(const char *why)
{
	if (has_userlog() && shadow_as_owner() == 0) {
		log_result(userlog_disconnected(sj.userlog, sj.cluster,
		    sj.proc, sj.machine, why), "the disconnected event");
		shadow_as_self();
	}
}

void
report_reconnected(void)
{
	if (has_userlog() && shadow_as_owner() == 0) {
		log_result(userlog_reconnected(sj.userlog, sj.cluster,
		    sj.proc, sj.machine, sj.startd_addr),
		    "the reconnected event");
		shadow_as_self();
	}
}

void
report_reconnect_failed(long lease)
{
	if (has_userlog() && shadow_as_owner() == 0) {
		log_result(userlog_reconnect_failed(sj.userlog, sj.cluster,
		    sj.proc, sj.machine, lease), "the reconnect-failed event");
		shadow_as_self();
	}
}

/* Why the job left its machine, for 004: the starter's word, or one. */
static void
evicted_reason(const struct shadow_outcome *o, char *out, size_t len)
{
	if (o != NULL && o->message[0] != '\0')
		snprintf(out, len, "%s", o->message);
	else if (o != NULL && o->how == EXIT_VACATED_CKPT)
		snprintf(out, len, "%s vacated the job after its checkpoint",
		    sj.machine);
	else
		snprintf(out, len, "%s vacated the job", sj.machine);
}

void
report_evicted(const struct shadow_outcome *o)
{
	struct ulog_usage u;
	char why[ERRSTR_MAX + 64];

	usage_of(o, &u);
	evicted_reason(o, why, sizeof(why));
	if (has_userlog() && shadow_as_owner() == 0) {
		log_result(userlog_evicted(sj.userlog, sj.cluster, sj.proc,
		    o != NULL && o->how == EXIT_VACATED_CKPT, &u, why),
		    "the evicted event");
		shadow_as_self();
	}
}

void
report_shadow_exception(const struct shadow_outcome *o)
{
	struct ulog_usage u;
	char why[ERRSTR_MAX + 300];

	usage_of(o, &u);
	snprintf(why, sizeof(why), "Error from %s: %s", sj.machine,
	    o->message);
	if (sj.userlog != NULL && shadow_as_owner() == 0) {
		log_result(userlog_shadow_exception(sj.userlog, sj.cluster,
		    sj.proc, why, &u), "the shadow exception event");
		shadow_as_self();
	}
}

void
report_checkpointed(const struct shadow_outcome *o)
{
	struct ad *up = ad_new();
	struct ulog_usage u;

	usage_of(o, &u);
	if (has_userlog() && shadow_as_owner() == 0) {
		log_result(userlog_checkpointed(sj.userlog, sj.cluster,
		    sj.proc, &u), "the checkpointed event");
		shadow_as_self();
	}
	ad_set_int(up, "NumCkpts", sj.num_ckpts);
	ad_set_int(up, "LastCkptTime", (long long)time(NULL));
	if (o->image_size > sj.prev_image_size)
		ad_set_int(up, "ImageSize", o->image_size);
	schedd_update_job(up, 1);
	ad_free(up);
}

void
report_terminated(const struct shadow_outcome *o)
{
	struct ulog_usage u;

	usage_of(o, &u);
	if (has_userlog() && shadow_as_owner() == 0) {
		log_result(userlog_terminated(sj.userlog, sj.cluster, sj.proc,
		    o->how == EXIT_SIGNAL, o->code, &u),
		    "the terminated event");
		shadow_as_self();
	}
}

/* "D HH:MM:SS" */
static void
add_duration(struct buf *b, const char *label, double secs)
{
	long s = secs > 0 ? (long)secs : 0;

	buf_printf(b, "%-25s%ld %02ld:%02ld:%02ld\n", label, s / 86400,
	    s % 86400 / 3600, s % 3600 / 60, s % 60);
}

static void
add_date(struct buf *b, const char *label, time_t t)
{
	char when[64];
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", &tm);
	buf_printf(b, "%-25s%s\n", label, when);
}

/* Does the job's Notification ask for mail about this end? */
static int
wants_mail(const struct shadow_outcome *o)
{
	char *n = NULL;
	int yes = 0;

	if (ad_get_string(sj.ad, "Notification", &n) == -1)
		return 0;
	if (strcasecmp(n, "Complete") == 0 || strcasecmp(n, "Always") == 0)
		yes = 1;
	else if (strcasecmp(n, "Error") == 0)
		yes = o->how == EXIT_SIGNAL || o->code != 0;
	free(n);
	return yes;
}

void
report_mail(const struct shadow_outcome *o)
{
	struct ulog_usage u;
	char *to = NULL, *cmd = NULL, *args = NULL, subject[128];
	long long qdate = 0;
	struct buf b;
	time_t now = time(NULL);

	if (!wants_mail(o))
		return;
	if (ad_get_string(sj.ad, "NotifyUser", &to) == -1 || *to == '\0') {
		free(to);
		to = xstrdup(sj.owner);
	}
	ad_get_string(sj.ad, "Cmd", &cmd);
	ad_get_string(sj.ad, "Args", &args);
	ad_get_int(sj.ad, "QDate", &qdate);
	usage_of(o, &u);

	buf_init(&b);
	buf_printf(&b, "This is an automated email from the Condor system\n"
	    "on machine %s.  Do not reply.\n\n", sj.machine);
	buf_printf(&b, "Your Condor job %s\n\t%s%s%s\n", sj.id,
	    cmd ? cmd : "", args && *args ? " " : "", args ? args : "");
	if (o->how == EXIT_SIGNAL)
		buf_printf(&b, "died on signal %d.\n\n", o->code);
	else
		buf_printf(&b, "exited normally with status %d.\n\n",
		    o->code);
	if (qdate > 0)
		add_date(&b, "Submitted at:", (time_t)qdate);
	add_date(&b, "Completed at:", now);
	if (qdate > 0)
		add_duration(&b, "Real Time:", (double)(now - qdate));
	buf_printf(&b, "%-25s%s\n", "Executed on host:", sj.machine);
	if (o->image_size > 0)
		buf_printf(&b, "%-25s%lld Kilobytes\n", "Virtual Image Size:",
		    o->image_size);
	buf_adds(&b, "\nStatistics from last run:\n");
	add_duration(&b, "Allocation/Run time:", run_wall());
	add_duration(&b, "Remote User CPU Time:", u.remote_user);
	add_duration(&b, "Remote System CPU Time:", u.remote_sys);
	add_duration(&b, "Total Remote CPU Time:", u.remote_user +
	    u.remote_sys);
	buf_adds(&b, "\nStatistics totaled from all runs:\n");
	add_duration(&b, "Allocation/Run time:", sj.prev_wall + run_wall());
	add_duration(&b, "Remote User CPU Time:", u.total_remote_user);
	add_duration(&b, "Remote System CPU Time:", u.total_remote_sys);
	add_duration(&b, "Total Remote CPU Time:", u.total_remote_user +
	    u.total_remote_sys);
	add_duration(&b, "Local (shadow) CPU Time:", u.total_local_user +
	    u.total_local_sys);
	buf_printf(&b, "\nBytes sent by the job:     %lld\n"
	    "Bytes received by the job: %lld\n", u.bytes_sent,
	    u.bytes_received);

	snprintf(subject, sizeof(subject), "[Condor] Condor Job %s", sj.id);
	mail_send(to, subject, b.data);
	buf_free(&b);
	free(to);
	free(cmd);
	free(args);
}
