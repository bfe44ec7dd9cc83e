/*
 * schedd_submit.c: new clusters.
 *
 * A submission is checked, its executable is copied into SPOOL (read
 * with the submitter's rights, written under a temporary name, synced,
 * renamed), and the cluster ad and every proc ad go into the queue in
 * one transaction, synced before the answer.  The schedd sets the
 * attributes it is responsible for itself and never takes them from the
 * client.  A cluster too large for one request arrives in pieces
 * (SUBMIT_BEGIN, SUBMIT_MORE) and is held here, invisible, until its
 * last piece commits it.
 *
 * Each proc's "submitted" event (000) is written to its user log as the
 * owner after the answer, a batch at a time, so that a large cluster
 * does not keep the submitter waiting; any later event of the cluster
 * first writes the ones still pending.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "acctgroup.h"
#include "ad.h"
#include "config.h"
#include "event.h"
#include "expr.h"
#include "fdio.h"
#include "log.h"
#include "priv.h"
#include "queue_log.h"
#include "schedd.h"
#include "submit.h"
#include "userlog.h"
#include "xalloc.h"

#define PENDING_MAX		16	/* submissions in pieces at once */
#define PENDING_PER_USER	4
#define PENDING_IDLE		120	/* seconds, then dropped */
#define EVENTS_PER_TICK		2000	/* submit events per turn */
#define COPY_CHUNK		(1024 * 1024)

/* Attributes the schedd sets; a client's values are dropped. */
static const char *const schedd_sets[] = {
	"ClusterId", "ProcId", "Owner", "QDate", "JobStatus",
	"EnteredCurrentStatus", "NumJobStarts", "NumCkpts", "RemoteHost",
	"LastRemoteHost", "ShadowPid", "JobStartDate", "CompletionDate",
	"NumShadowExceptions", "LastCkptTime", "HoldReason", "RemoveReason",
	"ExitCode", "ExitBySignal", "ExitSignal", "LocalKeeperPid",
	"LocalKeeperStart", "LocalJobPid", "LocalJobStart", "UidDomain",
	"FileSystemDomain", "JobMaterializeNextProcId",
	"JobMaterializeNextOffset", NULL
};

/* Accounting the schedd starts at 0.0 unless the client set it. */
static const char *const zeroed[] = {
	"RemoteUserCpu", "RemoteSysCpu", "LocalUserCpu", "LocalSysCpu",
	"RemoteWallClockTime", NULL
};

/* A cluster being submitted. */
struct pending {
	int		 cluster;
	uid_t		 uid;
	gid_t		 gid;
	char		 owner[64];
	struct ad	*cad;
	struct ad	**procs;
	size_t		 nprocs, cap;
	char		*executable;
	double		 touched;	/* monotime() */
	int		 universe;	/* JobUniverse, once prepared */
	size_t		 staged;	/* procs in the open transaction */
	size_t		 now;		/* procs queued now (the rest wait
					 * in its factory) */
	size_t		 total;		/* procs submitted */
	struct pending	*next;
};

/* User-log submit events still to write. */
struct pending_events {
	int			 cluster;
	int			 next_proc;
	int			 nprocs;
	int			 logged;	/* an event was written */
	struct pending_events	*next;
};

static struct pending		*pendings;
static struct pending_events	*events, **events_tail = &events;
static long			 events_timer, sweep_timer;
static int			 reserved_cluster;

static int	pending_add_procs(struct pending *, const ad_x *, u_int,
		    submit_res_x *);
static void	events_tick(void *);
static void	pending_unprepare(struct pending *);
static void	sweep_tick(void *);

static void
res_error(submit_res_x *res, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
res_error(submit_res_x *res, int code, const char *fmt, ...)
{
	char msg[ERRSTR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	res->code = code;
	free(res->message);
	res->message = xstrdup(msg);
}

static void
pending_free(struct pending *p)
{
	size_t i;

	if (p == NULL)
		return;
	ad_free(p->cad);
	for (i = 0; i < p->nprocs; i++)
		ad_free(p->procs[i]);
	free(p->procs);
	free(p->executable);
	free(p);
}

static void
pending_unlink(struct pending *p)
{
	struct pending **pp;

	for (pp = &pendings; *pp != NULL; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			return;
		}
}

/* An id no cluster has or will have: the counter, or past reservations. */
static int
cluster_reserve(void)
{
	int c = qlog_counter(schedd_queue);

	if (reserved_cluster > c)
		c = reserved_cluster;
	reserved_cluster = c + 1;
	return c;
}

/*
 * Read an ad off the wire into AD, with $(Cluster) replaced, leaving out
 * what the schedd sets.  -1 with a message in ERR.
 */
static int
wire_to_ad(const ad_x *x, int cluster, struct ad *ad, char *err,
    size_t errlen)
{
	char perr[300], *expanded;
	const attr_x *a;
	u_int i;
	int rc;

	for (i = 0; i < x->attrs.attrs_len; i++) {
		a = &x->attrs.attrs_val[i];
		if (a->name == NULL || a->text == NULL ||
		    !ad_name_valid(a->name)) {
			snprintf(err, errlen, "bad attribute name \"%.64s\"",
			    a->name ? a->name : "");
			return -1;
		}
		if (strcmp(a->name, "JobStatus") == 0 &&
		    strcmp(a->text, "5") == 0) {
			/* hold = true: the job is queued held, as HTCondor
			 * has it; the reason is the schedd's to give. */
			ad_set_int(ad, "JobStatus", JOB_HELD);
			ad_set_int(ad, "HoldReasonCode", 15);
			ad_set_int(ad, "HoldReasonSubCode", 0);
			ad_set_string(ad, "HoldReason",
			    "submitted on hold at user's request");
			continue;
		}
		if (queue_attr_in(schedd_sets, a->name))
			continue;
		expanded = submit_expand_cluster(a->text, cluster);
		rc = ad_set_expr(ad, a->name, expanded ? expanded : a->text,
		    perr, sizeof(perr));
		free(expanded);
		if (rc == -1) {
			snprintf(err, errlen, "%s", perr);
			return -1;
		}
	}
	return 0;
}

/* The caller's name and group; -1 (with a message) if unusable. */
static int
caller_identity(uid_t uid, struct pending *p, submit_res_x *res)
{
	struct passwd *pw = getpwuid(uid);

	p->uid = uid;
	if (pw != NULL) {
		snprintf(p->owner, sizeof(p->owner), "%s", pw->pw_name);
		p->gid = pw->pw_gid;
		return 0;
	}
	if (geteuid() == 0) {
		/* Jobs run as their Owner: one that is nobody cannot run. */
		res_error(res, EPERM, "uid %u has no user name on this host",
		    (unsigned)uid);
		return -1;
	}
	user_name(uid, p->owner, sizeof(p->owner));
	p->gid = getgid();
	return 0;
}

/*
 * The accounting group AD names, if any, must admit its owner
 * (acctgroup.h): here, not only in condor_submit, which a user can do
 * without.  0, or -1 with the reply set.
 */
static int
check_acct_group(const struct pending *p, const struct ad *ad,
    submit_res_x *res)
{
	char why[256], *group;
	int ok;

	if (ad_get_string(ad, "AcctGroup", &group) == -1)
		return 0;
	ok = acct_group_allows(group, p->owner, why, sizeof(why));
	if (!ok)
		res_error(res, EACCES, "accounting_group %.64s is refused: %s",
		    group, why);
	free(group);
	return ok ? 0 : -1;
}

/* The checks that need only the cluster ad; -1 with the reply set. */
static int
check_cluster_ad(struct pending *p, submit_res_x *res)
{
	static const struct {
		const char	*name;
		long long	 number;
	} universes[] = {
		{ "standard", 1 }, { "vanilla", 5 }, { "scheduler", 7 },
		{ "local", 12 }, { NULL, 0 }
	};
	char *universe = NULL;
	long long ju, prio;
	int rc = 0, i;

	if (ad_get_string(p->cad, "Universe", &universe) == 0) {
		for (i = 0; universes[i].name != NULL; i++)
			if (strcasecmp(universe, universes[i].name) == 0)
				break;
		if (universes[i].name != NULL) {
			ad_set_string(p->cad, "Universe", universes[i].name);
			ad_set_int(p->cad, "JobUniverse", universes[i].number);
		} else {
			res_error(res, EINVAL, "unknown universe \"%.64s\" "
			    "(standard, vanilla, scheduler or local)",
			    universe);
			rc = -1;
		}
		free(universe);
	} else if (ad_get_int(p->cad, "JobUniverse", &ju) == 0) {
		for (i = 0; universes[i].name != NULL; i++)
			if (ju == universes[i].number)
				break;
		if (universes[i].name != NULL)
			ad_set_string(p->cad, "Universe", universes[i].name);
		else {
			res_error(res, EINVAL, "unknown JobUniverse %lld "
			    "(1, 5, 7 or 12)", ju);
			rc = -1;
		}
	} else {
		ad_set_string(p->cad, "Universe", "standard");
		ad_set_int(p->cad, "JobUniverse", 1);
	}
	if (ad_get_int(p->cad, "UserPrio", &prio) == -1)
		prio = 0;
	ad_set_int(p->cad, "UserPrio", prio < -20 ? -20 : prio > 20 ? 20 :
	    prio);
	if (rc == 0 && check_acct_group(p, p->cad, res) == -1)
		rc = -1;
	return rc;
}

/*
 * Start a submission from a submit_x, with the procs it brings; NULL with
 * the reply set.
 */
static struct pending *
pending_new(uid_t caller, submit_x *arg, submit_res_x *res)
{
	struct pending *p;
	char err[512];

	p = xcalloc(1, sizeof(*p));
	if (caller_identity(caller, p, res) == -1)
		goto fail;
	if (arg->executable == NULL || arg->executable[0] != '/') {
		res_error(res, EINVAL, "the executable must be an absolute "
		    "path");
		goto fail;
	}
	p->executable = xstrdup(arg->executable);
	p->cluster = cluster_reserve();
	p->cad = ad_new();
	if (wire_to_ad(&arg->cluster_ad, p->cluster, p->cad, err,
	    sizeof(err)) == -1) {
		res_error(res, EINVAL, "cluster ad: %s", err);
		goto fail;
	}
	if (check_cluster_ad(p, res) == -1)
		goto fail;
	p->touched = monotime();
	if (pending_add_procs(p, arg->proc_ads.proc_ads_val,
	    arg->proc_ads.proc_ads_len, res) == -1)
		goto fail;
	return p;
fail:
	pending_free(p);
	return NULL;
}

static int
pending_add_procs(struct pending *p, const ad_x *procs, u_int n,
    submit_res_x *res)
{
	char err[512];
	struct ad *ad;
	u_int i;

	if (n > SCHEDD_MAX_PROCS - p->nprocs) {
		res_error(res, E2BIG, "more than %d procs in one cluster",
		    SCHEDD_MAX_PROCS);
		return -1;
	}
	if (p->nprocs + n > p->cap) {
		p->cap = p->nprocs + n > p->cap * 2 ? p->nprocs + n :
		    p->cap * 2;
		p->procs = xreallocarray(p->procs, p->cap, sizeof(*p->procs));
	}
	for (i = 0; i < n; i++) {
		ad = ad_new();
		if (wire_to_ad(&procs[i], p->cluster, ad, err,
		    sizeof(err)) == -1) {
			ad_free(ad);
			res_error(res, EINVAL, "proc %zu: %s",
			    p->nprocs, err);
			return -1;
		}
		ad_set_int(ad, "ProcId", (long long)p->nprocs);
		p->procs[p->nprocs++] = ad;
		if (check_acct_group(p, ad, res) == -1)
			return -1;
	}
	p->touched = monotime();
	return 0;
}

/*
 * Open the executable with the submitter's rights; -1 with the reply
 * set.  O_NONBLOCK so that a FIFO cannot stall the schedd.
 */
static int
open_executable(const struct pending *p, const char *path, struct stat *st,
    submit_res_x *res)
{
	int fd, saved;

	if (path[0] != '/') {
		res_error(res, EINVAL, "the executable %s is not an absolute "
		    "path", path);
		return -1;
	}
	if (priv_as_user(p->uid, p->gid) == -1) {
		res_error(res, EPERM, "cannot act as uid %u: %s",
		    (unsigned)p->uid, strerror(errno));
		return -1;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	saved = errno;
	priv_restore();
	if (fd == -1) {
		res_error(res, saved, "cannot read the executable %s: %s",
		    path, strerror(saved));
		return -1;
	}
	if (fstat(fd, st) == -1 || !S_ISREG(st->st_mode)) {
		res_error(res, EINVAL, "the executable %s is not a regular "
		    "file", path);
		close(fd);
		return -1;
	}
	if (fcntl(fd, F_SETFL, 0) == -1) {
		close(fd);
		res_error(res, errno, "%s: %s", path, strerror(errno));
		return -1;
	}
	return fd;
}

/* Copy FD to DST (taken over) in SPOOL durably; -1 with the reply
 * set. */
static int
copy_executable(int fd, char *dst, submit_res_x *res)
{
	char *tmp = xasprintf("%s.tmp", dst);
	char *buf = xmalloc(COPY_CHUNK);
	ssize_t n, w, off;
	int out, saved;

	/* Only the schedd and its shadows read it: the submitter's program
	 * may be private. */
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
	if (out == -1)
		goto fail;
	for (;;) {
		n = read(fd, buf, COPY_CHUNK);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			goto fail;
		if (n == 0)
			break;
		for (off = 0; off < n; off += w) {
			w = write(out, buf + off, (size_t)(n - off));
			if (w == -1 && errno == EINTR) {
				w = 0;
				continue;
			}
			if (w <= 0)
				goto fail;
		}
	}
	if (fsync(out) == -1 || close(out) == -1) {
		out = -1;
		goto fail;
	}
	out = -1;
	if (rename(tmp, dst) == -1)
		goto fail;
	if (fd_fsync_dir(spool_dir()) == -1)
		log_warn("cannot fsync %s", spool_dir());
	free(buf);
	free(tmp);
	free(dst);
	return 0;
fail:
	saved = errno;
	log_warn("cannot copy the executable to %s", dst);
	if (out != -1)
		close(out);
	unlink(tmp);
	res_error(res, saved, "cannot store the executable in the spool: %s",
	    strerror(saved));
	free(buf);
	free(tmp);
	free(dst);
	return -1;
}

static void
events_queue(int cluster, int nprocs)
{
	submit_events_range(cluster, 0, nprocs);
}

void
submit_events_range(int cluster, int first, int end)
{
	struct pending_events *pe = xcalloc(1, sizeof(*pe));

	pe->cluster = cluster;
	pe->next_proc = first;
	pe->nprocs = end;
	*events_tail = pe;
	events_tail = &pe->next;
	if (events_timer == 0)
		events_timer = event_timer_add(0, events_tick, NULL);
}

/* Whether the program FD (at PATH) is relinked for Condor; if not the
 * reply says so. */
static int
relinked(int fd, const char *path, submit_res_x *res)
{
	char fdpath[64], err[512];
	int r;

	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	r = submit_elf_relinked(fdpath, err, sizeof(err));
	if (r != 1)
		res_error(res, EINVAL, "%s is not relinked for Condor (link "
		    "it with condor_cc, or use universe = vanilla)%s%s", path,
		    r == -1 ? ": " : "", r == -1 ? strerror(ENOEXEC) : "");
	return r == 1;
}

/* SPOOL/cluster<C>.proc<P>.ickpt: a job's own executable. */
static char *
spool_proc_ickpt(int cluster, int proc)
{
	return xasprintf("%s/cluster%d.proc%d.ickpt", spool_dir(), cluster,
	    proc);
}

static void
proc_executables_undo(int cluster, size_t n)
{
	char *path;
	size_t i;

	for (i = 0; i < n; i++) {
		path = spool_proc_ickpt(cluster, (int)i);
		unlink(path);
		free(path);
	}
}

/*
 * Jobs of the cluster whose Cmd is another program than the cluster's
 * (a later queue statement with an executable of its own, as Condor 4
 * allowed) get it in SPOOL as cluster<C>.proc<P>.ickpt, read with the
 * submitter's rights and checked like the cluster's: each program is
 * copied once, the other jobs running it get a link to that copy.  0,
 * or -1 with the reply set (nothing left behind).
 */
#define MAX_PROC_EXECUTABLES	64

static int
proc_executables(struct pending *p, submit_res_x *res)
{
	struct stat st;
	char *paths[MAX_PROC_EXECUTABLES], *cmd, *dst, *first;
	size_t firsts[MAX_PROC_EXECUTABLES], n = 0, i, k;
	long long universe;
	int fd;

	for (i = 0; i < p->nprocs; i++) {
		if (ad_get_string(p->procs[i], "Cmd", &cmd) == -1)
			continue;
		/* A program per platform: found when the job starts. */
		if (strcmp(cmd, p->executable) == 0 ||
		    strstr(cmd, "$$(") != NULL) {
			free(cmd);
			continue;
		}
		for (k = 0; k < n && strcmp(paths[k], cmd) != 0; k++)
			;
		dst = spool_proc_ickpt(p->cluster, (int)i);
		if (k < n) {
			/* The same program as an earlier job's. */
			first = spool_proc_ickpt(p->cluster, (int)firsts[k]);
			if (link(first, dst) == -1) {
				res_error(res, errno, "cannot store the "
				    "executable in the spool: %s",
				    strerror(errno));
				free(first);
				free(dst);
				free(cmd);
				goto fail;
			}
			free(first);
			free(dst);
			free(cmd);
			continue;
		}
		if (n == MAX_PROC_EXECUTABLES) {
			res_error(res, E2BIG, "more than %d executables in one "
			    "cluster", MAX_PROC_EXECUTABLES);
			free(dst);
			free(cmd);
			goto fail;
		}
		if ((fd = open_executable(p, cmd, &st, res)) == -1) {
			free(dst);
			free(cmd);
			goto fail;
		}
		if ((ad_get_int(p->procs[i], "JobUniverse", &universe) == 0 ||
		    ad_get_int(p->cad, "JobUniverse", &universe) == 0) &&
		    universe == 1 && !relinked(fd, cmd, res)) {
			close(fd);
			free(dst);
			free(cmd);
			goto fail;
		}
		if (copy_executable(fd, dst, res) == -1) {
			close(fd);
			free(cmd);
			goto fail;
		}
		close(fd);
		paths[n] = cmd;
		firsts[n++] = i;
	}
	for (k = 0; k < n; k++)
		free(paths[k]);
	return 0;
fail:
	for (k = 0; k < n; k++)
		free(paths[k]);
	proc_executables_undo(p->cluster, p->nprocs);
	return -1;
}

/*
 * Commit P as one transaction; the reply says how it went.  P is
 * consumed either way.
 */
/*
 * The files of cluster P before it is committed: its executable checked
 * and copied into SPOOL, and the attributes the schedd sets.  0, or -1
 * with the reply set and nothing left behind.
 *
 * An executable named with $$() (prog.$$(OpSys)) is a program per
 * platform, chosen by the machine the job matches: nothing is copied
 * now; the shadow finds the program when the job starts.
 */
static int
pending_prepare(struct pending *p, submit_res_x *res)
{
	struct stat st;
	char *ickpt, err[512];
	int fd, std_universe, cluster = p->cluster;
	long long universe;
	time_t now = time(NULL);
	size_t i;

	if (p->nprocs == 0) {
		res_error(res, EINVAL, "a cluster needs at least one proc");
		return -1;
	}
	/* The cluster's universe, else its first job's. */
	if (ad_get_int(p->cad, "JobUniverse", &universe) == -1 &&
	    ad_get_int(p->procs[0], "JobUniverse", &universe) == -1)
		universe = 0;
	p->universe = (int)universe;
	if (strstr(p->executable, "$$(") != NULL) {
		memset(&st, 0, sizeof(st));
		if (proc_executables(p, res) == -1)
			return -1;
		goto attrs;
	}
	if ((fd = open_executable(p, p->executable, &st, res)) == -1)
		return -1;
	std_universe = universe == 1;
	if (std_universe && !relinked(fd, p->executable, res)) {
		close(fd);
		return -1;
	}
	if (copy_executable(fd, spool_ickpt(cluster), res) == -1) {
		close(fd);
		return -1;
	}
	close(fd);
	if (proc_executables(p, res) == -1) {
		ickpt = spool_ickpt(cluster);
		unlink(ickpt);
		free(ickpt);
		return -1;
	}

attrs:
	ad_set_int(p->cad, "ClusterId", cluster);
	ad_set_string(p->cad, "Owner", p->owner);
	/* The domains of the submitting host, as HTCondor's condor_submit
	 * puts them: set here, where the user cannot choose them, for the
	 * execute host to compare with its own (condor_starter(8)). */
	ad_set_string(p->cad, "UidDomain", param("UID_DOMAIN") ?
	    param("UID_DOMAIN") : "");
	ad_set_string(p->cad, "FileSystemDomain",
	    param("FILESYSTEM_DOMAIN") ? param("FILESYSTEM_DOMAIN") : "");
	ad_set_int(p->cad, "QDate", (long long)now);
	ad_set_int(p->cad, "JobStatus", JOB_IDLE);
	ad_set_int(p->cad, "EnteredCurrentStatus", (long long)now);
	ad_set_int(p->cad, "NumJobStarts", 0);
	ad_set_int(p->cad, "NumCkpts", 0);
	if (ad_lookup(p->cad, "Cmd") == NULL)
		ad_set_string(p->cad, "Cmd", p->executable);
	if (ad_lookup(p->cad, "ImageSize") == NULL)
		ad_set_int(p->cad, "ImageSize",
		    ((long long)st.st_size + 1023) / 1024);
	/* Accounting starts at zero, so that it always adds up. */
	for (i = 0; zeroed[i] != NULL; i++)
		if (ad_lookup(p->cad, zeroed[i]) == NULL)
			ad_set_real(p->cad, zeroed[i], 0.0);
	/* Last, as nothing after it may fail: its file is synced. */
	if (factory_plan(cluster, p->cad, p->procs, p->nprocs, &p->now, err,
	    sizeof(err)) == -1) {
		res_error(res, EIO, "%s", err);
		pending_unprepare(p);
		return -1;
	}
	return 0;
}

/* A prepared cluster that will not be committed: its files go. */
static void
pending_unprepare(struct pending *p)
{
	char *ickpt = spool_ickpt(p->cluster);

	unlink(ickpt);
	free(ickpt);
	proc_executables_undo(p->cluster, p->nprocs);
	factory_unplan(p->cluster);
}

/* Add prepared cluster P to the open transaction. */
static void
pending_stage(struct pending *p)
{
	size_t i;

	if (p->cluster >= qlog_counter(schedd_queue))
		qlog_set_counter(schedd_queue, p->cluster + 1);
	qlog_new_ad_from(schedd_queue, p->cluster, -1, p->cad);
	p->cad = NULL;
	/* Past NOW, the procs wait in the factory file (factory_plan). */
	for (i = 0; i < p->now; i++) {
		qlog_new_ad_from(schedd_queue, p->cluster, (int)i,
		    p->procs[i]);
		p->procs[i] = NULL;
	}
	for (; i < p->nprocs; i++) {
		ad_free(p->procs[i]);
		p->procs[i] = NULL;
	}
	p->staged = p->now;
	p->total = p->nprocs;
	p->nprocs = 0;
}

/* Cluster P is committed: the schedd's books, its events, its ad. */
static void
pending_committed(struct pending *p)
{
	size_t n = p->staged;

	queue_cluster_add(p->cluster, (int)n);
	log_info("cluster %d: %zu job(s) submitted by %s", p->cluster, n,
	    p->owner);
	events_queue(p->cluster, (int)n);
	if (p->total > n) {
		log_info("cluster %d: %zu more job(s) to materialize",
		    p->cluster, p->total - n);
		factory_committed(p->cluster);
	}
	if (p->universe == 7 || p->universe == 12)
		local_poke();
}

/* Staged clusters whose transaction could not be written. */
static void
pending_commit_failed(struct pending *p)
{
	char *ickpt = spool_ickpt(p->cluster);

	unlink(ickpt);
	free(ickpt);
	proc_executables_undo(p->cluster, p->staged);
	factory_unplan(p->cluster);
}

static void
pending_commit(struct pending *p, submit_res_x *res)
{
	if (pending_prepare(p, res) == -1)
		goto out;
	qlog_begin(schedd_queue);
	pending_stage(p);
	if (qlog_commit(schedd_queue, 1) == -1) {
		int saved = errno;

		log_warn("cannot write the job queue");
		pending_commit_failed(p);
		res_error(res, saved, "cannot write the job queue: %s",
		    strerror(saved));
		goto out;
	}
	queue_maybe_compact();
	res->code = 0;
	res->cluster = p->cluster;
	res->nprocs = (int)p->total;
	pending_committed(p);
	schedd_advertise_now();
out:
	pending_free(p);
}

void
submit_many(uid_t caller, submit_many_x *arg, submit_many_res_x *res)
{
	struct pending **ps;
	submit_res_x one;
	u_int n = arg->clusters.clusters_len, i, k;
	int saved;

	memset(res, 0, sizeof(*res));
	res->message = xstrdup("");
	res->failed = -1;
	if (n == 0) {
		res->code = EINVAL;
		free(res->message);
		res->message = xstrdup("no cluster to submit");
		return;
	}
	ps = xcalloc(n, sizeof(*ps));
	for (i = 0; i < n; i++) {
		memset(&one, 0, sizeof(one));
		one.message = xstrdup("");
		if ((ps[i] = pending_new(caller, &arg->clusters.clusters_val[i],
		    &one)) == NULL || pending_prepare(ps[i], &one) == -1) {
			/* All or none: undo the ones prepared. */
			for (k = 0; k < i; k++) {
				pending_unprepare(ps[k]);
				pending_free(ps[k]);
			}
			if (ps[i] != NULL)
				pending_free(ps[i]);
			res->code = one.code;
			res->failed = (int)i;
			free(res->message);
			res->message = xasprintf("cluster %u of %u: %s", i + 1,
			    n, one.message);
			free(one.message);
			free(ps);
			return;
		}
		free(one.message);
	}
	qlog_begin(schedd_queue);
	for (i = 0; i < n; i++)
		pending_stage(ps[i]);
	if (qlog_commit(schedd_queue, 1) == -1) {
		saved = errno;
		log_warn("cannot write the job queue");
		for (i = 0; i < n; i++)
			pending_commit_failed(ps[i]);
		res->code = saved;
		free(res->message);
		res->message = xasprintf("cannot write the job queue: %s",
		    strerror(saved));
	} else {
		queue_maybe_compact();
		res->clusters.clusters_val = xcalloc(n, sizeof(int));
		res->clusters.clusters_len = n;
		for (i = 0; i < n; i++) {
			res->clusters.clusters_val[i] = ps[i]->cluster;
			pending_committed(ps[i]);
		}
		schedd_advertise_now();
	}
	for (i = 0; i < n; i++)
		pending_free(ps[i]);
	free(ps);
}

void
submit_one(uid_t caller, submit_x *arg, submit_res_x *res)
{
	struct pending *p;

	res->message = xstrdup("");
	if ((p = pending_new(caller, arg, res)) == NULL)
		return;
	pending_commit(p, res);
}

void
submit_begin(uid_t caller, submit_x *arg, submit_res_x *res)
{
	struct pending *p, *q;
	int total = 0, mine = 0;

	res->message = xstrdup("");
	for (q = pendings; q != NULL; q = q->next) {
		total++;
		mine += q->uid == caller;
	}
	if (total >= PENDING_MAX || mine >= PENDING_PER_USER) {
		res_error(res, EAGAIN, "too many submissions in progress");
		return;
	}
	if ((p = pending_new(caller, arg, res)) == NULL)
		return;
	p->next = pendings;
	pendings = p;
	res->cluster = p->cluster;
	res->nprocs = (int)p->nprocs;
	if (sweep_timer == 0)
		sweep_timer = event_timer_add(PENDING_IDLE / 4, sweep_tick,
		    NULL);
}

void
submit_more(uid_t caller, submit_more_x *arg, submit_res_x *res)
{
	struct pending *p;

	res->message = xstrdup("");
	for (p = pendings; p != NULL; p = p->next)
		if (p->cluster == arg->cluster)
			break;
	if (p == NULL || p->uid != caller) {
		res_error(res, ENOENT, "no submission of cluster %d is in "
		    "progress", arg->cluster);
		return;
	}
	res->cluster = p->cluster;
	if (arg->last == -1) {
		pending_unlink(p);
		pending_free(p);
		return;
	}
	if (pending_add_procs(p, arg->proc_ads.proc_ads_val,
	    arg->proc_ads.proc_ads_len, res) == -1) {
		/* The cluster as a whole can no longer be right. */
		pending_unlink(p);
		pending_free(p);
		return;
	}
	res->nprocs = (int)p->nprocs;
	if (arg->last == 1) {
		pending_unlink(p);
		pending_commit(p, res);
	}
}

static void
sweep_tick(void *arg)
{
	struct pending **pp, *p;
	double now = monotime();

	sweep_timer = 0;
	for (pp = &pendings; (p = *pp) != NULL;) {
		if (now - p->touched > PENDING_IDLE) {
			log_warnx("submission of cluster %d by %s abandoned "
			    "after %zu procs", p->cluster, p->owner,
			    p->nprocs);
			*pp = p->next;
			pending_free(p);
		} else
			pp = &p->next;
	}
	if (pendings != NULL)
		sweep_timer = event_timer_add(PENDING_IDLE / 4, sweep_tick,
		    NULL);
}

/* User-log submit events. */

/* Write up to MAX events of PE; returns how many procs it went past. */
static int
events_write(struct pending_events *pe, int max)
{
	struct job j;
	char *path = NULL, *last_path = NULL, *node, *nodes;
	uid_t uid = 0, cur_uid = (uid_t)-1;
	gid_t gid = 0;
	int done = 0, as_user = 0;

	while (pe->next_proc < pe->nprocs && done < max) {
		int proc = pe->next_proc++;

		done++;
		if (job_find(pe->cluster, proc, &j) == -1)
			continue;
		/* Its own log and, for a DAG node job, its DAG's node log
		 * too (userlog_also), or alone when it has no log. */
		path = job_userlog_path(&j);
		nodes = job_nodes_log_path(&j);
		if (path == NULL && nodes == NULL)
			continue;
		if (path == NULL)
			path = xstrdup(nodes);
		else
			userlog_also(nodes);
		free(nodes);
		/* The real uid tells whether the schedd is root: the
		 * effective one is the last owner's. */
		if (job_owner_ids(&j, &uid, &gid) == -1) {
			if (getuid() == 0) {
				userlog_also(NULL);
				free(path);
				continue;
			}
		} else if (getuid() == 0 && uid != cur_uid) {
			if (as_user)
				priv_restore();
			as_user = priv_as_user(uid, gid) == 0;
			cur_uid = as_user ? uid : (uid_t)-1;
			if (!as_user) {
				userlog_also(NULL);
				free(path);
				continue;
			}
		}
		node = job_string(&j, "DAGNodeName");
		pe->logged = 1;
		if (userlog_submit(path, pe->cluster, proc, schedd_addr,
		    node) == -1 && (last_path == NULL ||
		    strcmp(last_path, path) != 0))
			log_warn("job %d.%d: cannot write its user log %s",
			    pe->cluster, proc, path);
		userlog_also(NULL);
		free(node);
		free(last_path);
		last_path = path;
	}
	if (as_user)
		priv_restore();
	free(last_path);
	return done;
}

/*
 * How far a cluster's submit events are known written: SUBMIT_EVENTS_DONE
 * on its cluster ad, procs 0 to it less one.  Written after the events,
 * in a transaction of its own (a timer's: no other is open then), and
 * not durable: a crash that loses it only makes the next schedd look in
 * the user log (submit_events_recover) for what it already holds.
 */
#define SUBMIT_EVENTS_DONE	"SubmitEventsDone"

static void
events_done(int cluster, int through)
{
	long long old;

	if (qlog_ad(schedd_queue, cluster, -1) == NULL ||
	    (ad_get_int(qlog_ad(schedd_queue, cluster, -1),
	    SUBMIT_EVENTS_DONE, &old) == 0 && old >= through))
		return;
	qlog_begin(schedd_queue);
	qlog_set_int(schedd_queue, cluster, -1, SUBMIT_EVENTS_DONE, through);
	queue_commit(0);
}

static void
events_tick(void *arg)
{
	struct pending_events *pe;
	int budget = EVENTS_PER_TICK;

	events_timer = 0;
	while ((pe = events) != NULL && budget > 0) {
		budget -= events_write(pe, budget);
		/* (A cluster without a user log has nothing to recover.) */
		if (pe->logged)
			events_done(pe->cluster, pe->next_proc);
		if (pe->next_proc < pe->nprocs)
			break;
		events = pe->next;
		if (events == NULL)
			events_tail = &events;
		free(pe);
	}
	if (events != NULL)
		events_timer = event_timer_add(0, events_tick, NULL);
}

/*
 * The procs of CLUSTER whose submit event is in the user log at PATH
 * (read as UID/GID), as flags in SEEN[0..N); -1 if the log cannot be
 * read (then nothing is known).
 */
static int
events_seen(const char *path, uid_t uid, gid_t gid, int cluster,
    unsigned char *seen, int n)
{
	char line[256];
	FILE *fp;
	int fd, c, p, as_user = 0;

	if (getuid() == 0 && (as_user = priv_as_user(uid, gid) == 0) == 0)
		return -1;
	fd = fd_open_user(path, O_RDONLY, 0);
	if (as_user)
		priv_restore();
	if (fd == -1 || (fp = fdopen(fd, "r")) == NULL) {
		if (fd != -1)
			close(fd);
		return -1;
	}
	while (fgets(line, sizeof(line), fp) != NULL)
		if (sscanf(line, "000 (%d.%d.", &c, &p) == 2 &&
		    c == cluster && p >= 0 && p < n)
			seen[p] = 1;
	fclose(fp);
	return 0;
}

/*
 * After a restart: the submit events a killed schedd committed jobs for
 * but had not written yet.  For each cluster whose queued procs go past
 * its SUBMIT_EVENTS_DONE, its user log says which of them have theirs;
 * the others are written again, in order, as after a submit.  Exactly
 * one event a job, whenever the last schedd died.
 */
struct ev_job {
	int	cluster, proc;
};

static int
ev_job_cmp(const void *a, const void *b)
{
	const struct ev_job *x = a, *y = b;

	if (x->cluster != y->cluster)
		return x->cluster < y->cluster ? -1 : 1;
	return x->proc < y->proc ? -1 : x->proc > y->proc;
}

void
submit_events_recover(void)
{
	const struct qlog_entry *e;
	const struct ad *cad;
	struct ev_job *v = NULL;
	unsigned char *seen;
	long long done;
	struct job j;
	size_t n = 0, cap = 0, i, k;
	char *path;
	uid_t uid;
	gid_t gid;
	int redone = 0;

	/* The queued procs past their cluster's SUBMIT_EVENTS_DONE. */
	for (e = qlog_first(schedd_queue); e != NULL; e = qlog_next(e)) {
		if (qlog_entry_proc(e) < 0)
			continue;
		cad = qlog_ad(schedd_queue, qlog_entry_cluster(e), -1);
		if (cad == NULL || ad_get_int(cad, SUBMIT_EVENTS_DONE,
		    &done) != 0)
			done = 0;
		if (qlog_entry_proc(e) < done)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			v = xreallocarray(v, cap, sizeof(*v));
		}
		v[n].cluster = qlog_entry_cluster(e);
		v[n++].proc = qlog_entry_proc(e);
	}
	if (n > 0)
		qsort(v, n, sizeof(*v), ev_job_cmp);
	/* A cluster at a time: its user log says which have theirs. */
	for (i = 0; i < n; i = k) {
		for (k = i; k < n && v[k].cluster == v[i].cluster; k++)
			;
		if (job_find(v[i].cluster, v[i].proc, &j) != 0 ||
		    (path = job_userlog_path(&j)) == NULL)
			continue;
		if (job_owner_ids(&j, &uid, &gid) == -1) {
			uid = getuid();
			gid = getgid();
		}
		seen = xcalloc((size_t)v[k - 1].proc + 1, 1);
		if (events_seen(path, uid, gid, v[i].cluster, seen,
		    v[k - 1].proc + 1) == 0) {
			size_t m;

			for (m = i; m < k; m++)
				if (!seen[v[m].proc]) {
					submit_events_range(v[m].cluster,
					    v[m].proc, v[m].proc + 1);
					redone++;
				}
		}
		free(seen);
		free(path);
	}
	free(v);
	if (redone > 0)
		log_info("%d submit event(s) the last schedd had not written "
		    "yet: written now", redone);
}

void
submit_flush_events(int cluster)
{
	struct pending_events **pp, *pe;

	for (pp = &events; (pe = *pp) != NULL;) {
		if (pe->cluster != cluster) {
			pp = &pe->next;
			continue;
		}
		events_write(pe, pe->nprocs);
		*pp = pe->next;
		if (*pp == NULL)
			events_tail = pp;
		free(pe);
	}
}

int
submit_events_pending(int cluster)
{
	struct pending_events *pe;

	for (pe = events; pe != NULL; pe = pe->next)
		if (pe->cluster == cluster)
			return 1;
	return 0;
}

void
submit_init(void)
{
	reserved_cluster = 0;
}
