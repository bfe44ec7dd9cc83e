/*
 * NAME
 *	condor_dagman - run a DAG of jobs: the problem solver of
 *	condor_submit_dag
 *
 * SYNOPSIS
 *	condor_dagman -Dag DAGFILE [-Rescue RESCUEFILE] [-maxjobs N]
 *	    [-maxidle N] [-maxpre N] [-maxpost N] [-recovery_only]
 *
 * DESCRIPTION
 *	Runs as a scheduler-universe job of the submitting host's schedd
 *	(condor_submit_dag queues it), as the DAG's owner, in the
 *	directory condor_submit_dag ran in.  It reads DAGFILE (dagfile.h,
 *	condor_submit_dag(1)) and a rescue DAG over it, then queues each
 *	node's job when its parents are done and its PRE script has run,
 *	through the same client code as condor_submit (one cluster per
 *	node, queued as the owner over the schedd's local socket), learns
 *	of the jobs' ends by reading DAGFILE.nodes.log as it grows, runs
 *	POST scripts, retries failed nodes (RETRY), and ends when nothing
 *	more can run: exit 0 when every node succeeded (or the FINAL node
 *	decided so), 1 when a node failed, the ABORT-DAG-ON value when a
 *	node asked for it, 2 when the DAG job was removed.  A DAG that did
 *	not succeed leaves DAGFILE.rescueNNN, with which the next
 *	condor_submit_dag runs only what is left.
 *
 *	Recovery: DAGFILE.lock names the DAG job (C.P) while it runs.  A
 *	manager that starts and finds its own job's name there restarts
 *	after a crash (its own, the schedd's, or the host's): it reads the
 *	node log from the beginning, and the schedd's queue for the DAG's
 *	jobs, and carries on from there: no node job that was queued is
 *	queued again, no POST script that ended runs again.  Otherwise it
 *	starts afresh, and an old node log is kept as DAGFILE.nodes.log.old.
 *
 *	condor_rm of the DAG job (SIGTERM, the job then Removed; or
 *	SIGUSR1): every node job is removed, a rescue DAG written, exit 2.
 *	SIGTERM while the job is not removed (the schedd shutting down):
 *	exit at once, leaving the node jobs to the next run's recovery.
 *
 * PROTOCOL
 *	Calls SCHEDD_PROG (schedd_rpc.x) of the local schedd:
 *	SCHEDD_SUBMIT (node jobs), SCHEDD_QUERY_ATTRS (recovery, a submit
 *	whose answer was lost, its own job's status), SCHEDD_ACTION
 *	(removing node jobs) and SCHEDD_EDIT (the DAG_* attributes).
 *
 * SIGNALS
 *	SIGTERM, SIGINT, SIGUSR1: see above.  SIGCHLD: scripts.
 *
 * CONFIGURATION
 *	DAGMAN_MAX_JOBS_SUBMITTED, DAGMAN_MAX_JOBS_IDLE,
 *	DAGMAN_MAX_PRE_SCRIPTS, DAGMAN_MAX_POST_SCRIPTS (used when the
 *	option is 0 or missing), DAGMAN_UPDATE_INTERVAL,
 *	JOB_DEFAULT_LEASE_DURATION, SPOOL, RPC_TIMEOUT; the DAG's CONFIG
 *	file is read over the pool's configuration.
 *
 * FILES
 *	DAGFILE.dagman.out	its log: one line per decision
 *	DAGFILE.nodes.log	the node jobs' user log, and 016 events
 *	DAGFILE.lock		the running DAG job's id
 *	DAGFILE.rescueNNN	what is left after a failure
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ad.h"
#include "auth.h"
#include "config.h"
#include "daemon.h"
#include "dagman.h"
#include "event.h"
#include "fdio.h"
#include "log.h"
#include "rpcutil.h"
#include "schedd_client.h"
#include "xalloc.h"

#define TICK		0.1	/* seconds between looks at the node log */
#define RECOVER_WAIT	2.0	/* seconds between asks of a silent schedd */

struct dag	 dag;
struct node_run	*run;
int		 dag_cluster, dag_proc;
char		*nodes_log;
char		*dag_cwd;
int		 recovering;
long		 max_jobs, max_idle, max_pre, max_post;

static const char *dag_file;
static char	*lock_path;
static long	 tick_timer;
static int	 ending = -1;		/* exit status once aborting */
static int	 aborted;

static int
usage(FILE *fp)
{
	fprintf(fp, "usage: condor_dagman -Dag DAGFILE [-Rescue FILE] "
	    "[-maxjobs N] [-maxidle N]\n"
	    "                     [-maxpre N] [-maxpost N] "
	    "[-recovery_only]\n");
	return fp == stdout ? 0 : 1;
}

static void tick(void *arg);

void
dagman_poke(void)
{
	if (tick_timer != 0)
		event_timer_cancel(tick_timer);
	tick_timer = event_timer_add(0, tick, NULL);
}

/* The next rescue file's name: one past the highest there is. */
static char *
rescue_next(void)
{
	struct stat st;
	char *p;
	int n;

	for (n = 999; n >= 1; n--) {
		p = xasprintf("%s.rescue%03d", dag_file, n);
		if (stat(p, &st) == 0) {
			free(p);
			break;
		}
		free(p);
	}
	return xasprintf("%s.rescue%03d", dag_file, n < 999 ? n + 1 : 999);
}

static void
write_rescue(const char *reason)
{
	unsigned char *done = xcalloc(dag.nnodes ? dag.nnodes : 1, 1);
	int *left = xcalloc(dag.nnodes ? dag.nnodes : 1, sizeof(int));
	size_t *failed = xcalloc(dag.nnodes ? dag.nnodes : 1,
	    sizeof(size_t));
	size_t i, nfailed = 0, ndone = 0;
	char err[1024], *path;

	for (i = 0; i < dag.nnodes; i++) {
		if (dag.nodes[i].flags & DAG_FINAL)
			continue;
		if (run[i].state == DAG_SUCCESS) {
			done[i] = 1;
			ndone++;
		} else if (run[i].state == DAG_FAILURE)
			failed[nfailed++] = i;
		left[i] = dag.nodes[i].retry - run[i].retries;
		if (left[i] < 0)
			left[i] = 0;
	}
	path = rescue_next();
	if (dag_write_rescue(&dag, path, dag_file, reason, done, left,
	    failed, nfailed, err, sizeof(err)) == -1)
		log_warnx("cannot write the rescue DAG: %s", err);
	else
		log_info("Rescue DAG %s written: %zu node%s done, %zu "
		    "failed", path, ndone, ndone == 1 ? "" : "s", nfailed);
	free(path);
	free(done);
	free(left);
	free(failed);
}

static void
finish(int status)
{
	status_update(1);
	dot_write();
	if (unlink(lock_path) == -1 && errno != ENOENT)
		log_warn("%s", lock_path);
	log_info("condor_dagman ends: exit %d", status);
	exit(status);
}

/* Every non-FINAL node that has not ended is stopped where it is. */
static void
stop_all(void)
{
	size_t i;

	script_kill_all();
	for (i = 0; i < dag.nnodes; i++) {
		if (dag.nodes[i].flags & DAG_FINAL)
			continue;
		if (node_under_way(i))
			run[i].state = DAG_FAILURE;
		else if (run[i].state == DAG_NOT_READY)
			run[i].state = DAG_FUTILE;
	}
}

void
dagman_abort(int status, const char *why)
{
	if (aborted)
		return;
	aborted = 1;
	log_info("Aborting the DAG (%s): exit %d", why, status);
	dag_status = 3;
	node_remove_jobs();
	/* Nodes that had not ended keep their retries for the rescue. */
	stop_all();
	write_rescue(why);
	ending = status;
	if (!node_start_final())
		finish(status);
}

/* The DAG job was removed: stop everything, keep what is done. */
static void
removed(void)
{
	log_info("The DAG job was removed: removing its node jobs");
	dag_status = 4;
	node_remove_jobs();
	stop_all();
	write_rescue("the DAG job was removed");
	finish(2);
}

/* Is the DAG job Removed in the queue?  1 yes, 0 no, -1 cannot say. */
static int
job_removed(void)
{
	static const char *const attrs[] = { "JobStatus", NULL };
	struct ad **jobs = NULL;
	char err[1024], *c;
	long long st = 0;
	CLIENT *cl;
	int n;

	if (dag_cluster <= 0)
		return 1;
	if ((cl = schedd_connect(NULL, err, sizeof(err))) == NULL)
		return -1;
	c = xasprintf("ClusterId == %d && ProcId == %d", dag_cluster,
	    dag_proc);
	n = schedd_query(cl, c, 0, attrs, &jobs, err, sizeof(err));
	free(c);
	rpc_close(cl);
	if (n == -1)
		return -1;
	if (n == 0)
		return 1;
	ad_get_int(jobs[0], "JobStatus", &st);
	schedd_free_jobs(jobs, n);
	return st == 3;
}

static void
on_signal(int signo)
{
	if (signo == SIGUSR1 || job_removed() == 1) {
		removed();
		return;
	}
	log_info("Signal %d and the DAG job is not removed: stopping; the "
	    "next run recovers", signo);
	script_kill_all();
	exit(3);
}

static void
on_child(int signo)
{
	pid_t pid;
	int status;

	(void)signo;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		script_reaped(pid, status);
}

static void
tick(void *arg)
{
	(void)arg;
	tick_timer = 0;
	nodelog_poll();
	/* After an abort only FINAL is left to run: the other nodes were
	 * stopped where they stood. */
	node_schedule();
	if (node_all_ended()) {
		if (ending < 0 && node_start_final()) {
			node_schedule();
		} else if (node_final_ended()) {
			struct dag_counts c;
			int status;

			node_counts(&c);
			if (ending >= 0)
				status = ending;
			else if (dag.final >= 0)
				status = node_final_ok() ? 0 : 1;
			else
				status = c.failed > 0 ? 1 : 0;
			if (ending < 0 && (status != 0 || c.failed > 0)) {
				size_t i;

				for (i = 0; i < dag.nnodes; i++)
					if (run[i].state == DAG_NOT_READY)
						run[i].state = DAG_FUTILE;
				write_rescue(c.failed > 0 ? "nodes failed" :
				    "the FINAL node failed");
			}
			if (status != 0 && dag_status == 0)
				dag_status = 1;
			finish(status);
		}
	}
	status_update(0);
	tick_timer = event_timer_add(TICK, tick, NULL);
}

/* The throttle: the option if given (> 0), else the configuration. */
static long
throttle(long opt, const char *name)
{
	return opt > 0 ? opt : param_int(name, 0);
}

/* Whose job we are: CONDOR_ID, "C.P", set by the schedd. */
static void
job_id(void)
{
	const char *id = getenv("CONDOR_ID");

	if (id == NULL || sscanf(id, "%d.%d", &dag_cluster, &dag_proc) != 2) {
		dag_cluster = 0;
		dag_proc = 0;
	}
}

/* 1 if the lock names this DAG job (a restart), else 0. */
static int
lock_is_ours(void)
{
	char buf[64], mine[64];
	FILE *fp;
	int ours = 0;

	if (dag_cluster <= 0 || (fp = fopen(lock_path, "r")) == NULL)
		return 0;
	snprintf(mine, sizeof(mine), "%d.%d\n", dag_cluster, dag_proc);
	if (fgets(buf, sizeof(buf), fp) != NULL && strcmp(buf, mine) == 0)
		ours = 1;
	fclose(fp);
	return ours;
}

static void
lock_write(void)
{
	char *tmp = xasprintf("%s.tmp", lock_path);
	FILE *fp;

	if ((fp = fd_fopen_aside(lock_path, tmp)) == NULL)
		fatalx("%s: %s", lock_path, fd_user_strerror(errno));
	if (fprintf(fp, "%d.%d\n", dag_cluster, dag_proc) < 0 ||
	    fflush(fp) != 0 || fsync(fileno(fp)) == -1 || fclose(fp) != 0 ||
	    rename(tmp, lock_path) == -1)
		fatal("%s", lock_path);
	free(tmp);
}

int
main(int argc, char **argv)
{
	const char *rescue = NULL;
	long opt_jobs = 0, opt_idle = 0, opt_pre = 0, opt_post = 0;
	char err[4096], cwd[PATH_MAX], *out, *old;
	int i, recovery_only = 0, restart, fd;
	double t0;

	common_init(argv[0]);
	/* DAGMan acts for its user, even when root runs it: it submits as
	 * that user on the schedd's socket and never holds the pool key. */
	auth_client_acts_for_user();
	signal(SIGPIPE, SIG_IGN);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		long *num = NULL;

		if (strcasecmp(a, "-Dag") == 0 && i + 1 < argc)
			dag_file = argv[++i];
		else if (strcasecmp(a, "-Rescue") == 0 && i + 1 < argc)
			rescue = argv[++i];
		else if (strcasecmp(a, "-maxjobs") == 0)
			num = &opt_jobs;
		else if (strcasecmp(a, "-maxidle") == 0)
			num = &opt_idle;
		else if (strcasecmp(a, "-maxpre") == 0)
			num = &opt_pre;
		else if (strcasecmp(a, "-maxpost") == 0)
			num = &opt_post;
		else if (strcasecmp(a, "-recovery_only") == 0)
			recovery_only = 1;
		else if (strcmp(a, "-h") == 0 || strcmp(a, "-help") == 0)
			return usage(stdout);
		else {
			log_warnx("unknown argument %s", a);
			return usage(stderr);
		}
		if (num != NULL) {
			char *end;

			if (i + 1 == argc) {
				log_warnx("%s needs a number", a);
				return usage(stderr);
			}
			*num = strtol(argv[++i], &end, 10);
			if (*end != '\0' || *num < 0) {
				log_warnx("%s: not a number: %s", a, argv[i]);
				return usage(stderr);
			}
		}
	}
	if (dag_file == NULL)
		return usage(stderr);
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		fatal("getcwd");
	dag_cwd = xstrdup(cwd);
	job_id();
	nodes_log = dag_file[0] == '/' ? xasprintf("%s.nodes.log", dag_file) :
	    xasprintf("%s/%s.nodes.log", cwd, dag_file);
	lock_path = xasprintf("%s.lock", dag_file);
	out = xasprintf("%s.dagman.out", dag_file);
	if (!recovery_only && log_open_file(out) == -1)
		fatalx("%s: %s", out, fd_user_strerror(errno));
	free(out);
	log_info("condor_dagman starts: %s, job %d.%d, in %s", dag_file,
	    dag_cluster, dag_proc, cwd);

	t0 = monotime();
	if (dag_parse(dag_file, 0, &dag, err, sizeof(err)) == -1) {
		log_warnx("%s", err);
		return 1;
	}
	if (rescue != NULL && dag_apply_rescue(&dag, rescue, err,
	    sizeof(err)) == -1) {
		log_warnx("%s", err);
		return 1;
	}
	if (rescue != NULL)
		log_info("Running the rescue DAG %s", rescue);
	if (dag.config_file != NULL && config_read_file(dag.config_file, err,
	    sizeof(err)) == -1) {
		log_warnx("CONFIG %s: %s", dag.config_file, err);
		return 1;
	}
	max_jobs = throttle(opt_jobs, "DAGMAN_MAX_JOBS_SUBMITTED");
	max_idle = throttle(opt_idle, "DAGMAN_MAX_JOBS_IDLE");
	max_pre = throttle(opt_pre, "DAGMAN_MAX_PRE_SCRIPTS");
	max_post = throttle(opt_post, "DAGMAN_MAX_POST_SCRIPTS");
	log_info("%zu nodes, %zu edges; throttles: %ld jobs, %ld idle, "
	    "%ld PRE, %ld POST (0: none)", dag.nnodes, dag.nedges, max_jobs,
	    max_idle, max_pre, max_post);
	node_init();

	event_init();
	restart = recovery_only || lock_is_ours();
	if (restart) {
		int ask = !recovery_only;

		/* A log that cannot be read back would have every node run
		 * again: stop instead. */
		if (nodelog_recover() == -1) {
			log_warnx("cannot read back %s: stopping rather than "
			    "run its nodes again", nodes_log);
			return 1;
		}
		while (ask && nodelog_recover_queue() == -1)
			sleep((unsigned)RECOVER_WAIT);
		if (recovery_only) {
			struct dag_counts c;

			node_counts(&c);
			printf("recovered %zu nodes in %.3f s: %zu done, %zu "
			    "failed, %zu queued, %zu ready, %zu waiting\n",
			    dag.nnodes, monotime() - t0, c.done, c.failed,
			    c.queued, c.ready, c.unready);
			return 0;
		}
	} else {
		old = xasprintf("%s.old", nodes_log);
		if (rename(nodes_log, old) == -1 && errno != ENOENT)
			log_warn("%s", nodes_log);
		free(old);
		lock_write();
	}
	/* The node log is written by the schedd and the shadows as the
	 * owner, never through a link; one planted under its name would
	 * leave the DAG waiting for events that never come: refuse now. */
	if ((fd = fd_open_user(nodes_log, O_WRONLY | O_CREAT | O_APPEND,
	    0644)) == -1) {
		log_warnx("%s: %s", nodes_log, fd_user_strerror(errno));
		return 1;
	}
	close(fd);
	dot_write();

	event_signal_add(SIGCHLD, on_child);
	event_signal_add(SIGTERM, on_signal);
	event_signal_add(SIGINT, on_signal);
	event_signal_add(SIGUSR1, on_signal);
	status_update(1);
	dagman_poke();
	return event_dispatch();
}
