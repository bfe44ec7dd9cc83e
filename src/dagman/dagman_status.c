/*
 * dagman_status.c: what the DAG shows while it runs.
 *
 * The DAG job's own ad carries DAG_NodesTotal, DAG_NodesDone,
 * DAG_NodesFailed, DAG_NodesQueued, DAG_NodesReady, DAG_NodesPre,
 * DAG_NodesPost, DAG_NodesUnready and DAG_Status, set through the same
 * request as condor_qedit's when they change (at most every
 * DAGMAN_UPDATE_INTERVAL seconds, and at the end).  NODE_STATUS_FILE is
 * rewritten whole, to a temporary file renamed over it, every interval
 * the DAG file gives; DOT ... UPDATE rewrites the Graphviz file as nodes
 * change state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "dagman.h"
#include "fdio.h"
#include "event.h"
#include "log.h"
#include "rpcutil.h"
#include "schedd_client.h"
#include "xalloc.h"

int	dag_status;

static struct dag_counts last;
static int	 last_status = -1;
static double	 last_attrs = -1e9, last_file = -1e9;

/* Write TEXT to PATH through PATH.tmp and a rename. */
static int
write_atomic(const char *path, const char *text, size_t len)
{
	char *tmp = xasprintf("%s.tmp", path);
	FILE *fp;
	int rc = 0;

	if ((fp = fd_fopen_aside(path, tmp)) == NULL) {
		log_warnx("%s: %s", errno == ELOOP || errno == EFTYPE_USER ?
		    path : tmp, fd_user_strerror(errno));
		free(tmp);
		return -1;
	}
	if (fwrite(text, 1, len, fp) != len || fflush(fp) != 0 ||
	    fsync(fileno(fp)) == -1)
		rc = -1;
	if (fclose(fp) != 0)
		rc = -1;
	if (rc == 0 && rename(tmp, path) == -1)
		rc = -1;
	if (rc == -1) {
		log_warn("%s", path);
		unlink(tmp);
	}
	free(tmp);
	return rc;
}

/* HTCondor's node status numbers. */
static int
status_number(int state)
{
	switch (state) {
	case DAG_NOT_READY: return 0;
	case DAG_READY: return 1;
	case DAG_PRERUN: return 2;
	case DAG_SUBMITTED: return 3;
	case DAG_POSTRUN: return 4;
	case DAG_SUCCESS: return 5;
	case DAG_FAILURE: return 6;
	default: return 7;
	}
}

static void
write_status_file(const struct dag_counts *c)
{
	struct buf b;
	size_t i;
	time_t now = time(NULL);

	buf_init(&b);
	buf_printf(&b, "[\n  Type = \"DagStatus\";\n  DagFiles = { };\n"
	    "  Timestamp = %lld;\n  DagStatus = %d;\n  NodesTotal = %zu;\n"
	    "  NodesDone = %zu;\n  NodesPre = %zu;\n  NodesQueued = %zu;\n"
	    "  NodesPost = %zu;\n  NodesReady = %zu;\n  NodesUnready = %zu;\n"
	    "  NodesFutile = %zu;\n  NodesFailed = %zu;\n"
	    "  JobProcsHeld = %zu;\n  JobProcsIdle = %zu;\n]\n",
	    (long long)now, dag_status, dag.nnodes, c->done, c->pre,
	    c->queued, c->post, c->ready, c->unready, c->futile, c->failed,
	    c->held, c->idle);
	for (i = 0; i < dag.nnodes; i++) {
		const char *s;

		buf_adds(&b, "[\n  Type = \"NodeStatus\";\n  Node = \"");
		for (s = dag.nodes[i].name; *s; s++) {
			if (*s == '"' || *s == '\\')
				buf_addc(&b, '\\');
			buf_addc(&b, *s);
		}
		buf_printf(&b, "\";\n  NodeStatus = %d;\n  StatusDetails = "
		    "\"%s\";\n  RetryCount = %d;\n  JobProcsQueued = %d;\n"
		    "  JobProcsHeld = %d;\n]\n", status_number(run[i].state),
		    dag_state_name(run[i].state), run[i].retries,
		    run[i].state == DAG_SUBMITTED ?
		    run[i].nprocs - run[i].nended : 0, run[i].nheld);
	}
	buf_printf(&b, "[\n  Type = \"StatusEnd\";\n  EndTime = %lld;\n"
	    "  NextUpdate = %lld;\n]\n", (long long)now,
	    (long long)(now + dag.status_interval));
	write_atomic(dag.status_file, b.data, b.len);
	buf_free(&b);
}

void
dot_write(void)
{
	unsigned char *states;
	char *tmp;
	FILE *fp;
	size_t i;

	if (dag.dot_file == NULL)
		return;
	states = xmalloc(dag.nnodes ? dag.nnodes : 1);
	for (i = 0; i < dag.nnodes; i++)
		states[i] = run[i].state;
	tmp = xasprintf("%s.tmp", dag.dot_file);
	if ((fp = fd_fopen_aside(dag.dot_file, tmp)) == NULL)
		log_warnx("%s: %s", dag.dot_file, fd_user_strerror(errno));
	else if (dag_write_dot(&dag, states, fp) == -1 || fclose(fp) != 0 ||
	    rename(tmp, dag.dot_file) == -1)
		log_warn("%s", dag.dot_file);
	free(tmp);
	free(states);
}

/* Set the DAG_* attributes of the DAG job's ad; 0 or -1. */
static int
set_attrs(const struct dag_counts *c)
{
	struct {
		const char *name;
		long long value;
	} a[] = {
		{ "DAG_NodesTotal", (long long)dag.nnodes },
		{ "DAG_NodesDone", (long long)c->done },
		{ "DAG_NodesFailed", (long long)c->failed },
		{ "DAG_NodesQueued", (long long)c->queued },
		{ "DAG_NodesReady", (long long)c->ready },
		{ "DAG_NodesPre", (long long)c->pre },
		{ "DAG_NodesPost", (long long)c->post },
		{ "DAG_NodesUnready", (long long)(c->unready + c->futile) },
		{ "DAG_Status", (long long)dag_status },
	};
	char err[1024], val[32], *cons;
	int count, denied, rc = 0;
	size_t k;
	CLIENT *cl;

	if (dag_cluster <= 0)
		return 0;
	if ((cl = schedd_connect(NULL, err, sizeof(err))) == NULL) {
		log_debug("DAG attributes: %s", err);
		return -1;
	}
	cons = xasprintf("ClusterId == %d && ProcId == %d", dag_cluster,
	    dag_proc);
	for (k = 0; k < sizeof(a) / sizeof(a[0]) && rc == 0; k++) {
		snprintf(val, sizeof(val), "%lld", a[k].value);
		if (schedd_edit(cl, cons, a[k].name, val, &count, &denied,
		    err, sizeof(err)) == -1) {
			log_warnx("DAG attributes: %s", err);
			rc = -1;
		}
	}
	free(cons);
	rpc_close(cl);
	return rc;
}

void
status_update(int force)
{
	struct dag_counts c;
	double now = monotime();
	long every = param_int("DAGMAN_UPDATE_INTERVAL", 5);

	node_counts(&c);
	if ((force || now - last_attrs >= (double)every) &&
	    (memcmp(&c, &last, sizeof(c)) != 0 || dag_status != last_status ||
	    force)) {
		if (set_attrs(&c) == 0) {
			last = c;
			last_status = dag_status;
		}
		last_attrs = now;
		if (dag.dot_file != NULL && dag.dot_update)
			dot_write();
	}
	if (dag.status_file != NULL && (force ||
	    now - last_file >= (double)dag.status_interval)) {
		write_status_file(&c);
		last_file = now;
	}
}
