/*
 * dagman_log.c: the node log, DAGFILE.nodes.log, where every node job's
 * events arrive (the schedd and the shadows write them), and where
 * condor_dagman writes each POST script's end (016).
 *
 * condor_dagman learns what its jobs do by reading the log as it grows,
 * never by polling the queue.  After a crash it reads the whole log
 * again (recovery): a job's 000 event names its node ("DAG Node:
 * NAME"), so the jobs submitted, run, finished and the POST scripts that
 * ended are known again, and nothing that ran is run again.  A job the
 * schedd queued whose 000 event is not in the log yet (the manager died
 * between the two) is found by asking the schedd for the DAG's jobs, an
 * ordinary query.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad.h"
#include "dagman.h"
#include "log.h"
#include "rpcutil.h"
#include "schedd_client.h"
#include "userlog.h"
#include "xalloc.h"

static long	offset;		/* read up to here */
static off_t	last_size = -1;

static void
on_event(const struct ulog_event *e, void *arg)
{
	long i;

	(void)arg;
	if (e->event == ULOG_SUBMIT) {
		if (e->dag_node == NULL || e->proc < 0)
			return;
		if ((i = dag_find(&dag, e->dag_node)) < 0) {
			log_warnx("node log: job %d names no node of this DAG "
			    "(%s)", e->cluster, e->dag_node);
			return;
		}
		if (run[i].state == DAG_SUBMITTED &&
		    run[i].cluster == e->cluster) {
			if (e->proc + 1 > run[i].nprocs)
				run[i].nprocs = e->proc + 1;
			return;
		}
		if (run[i].cluster >= e->cluster && run[i].cluster > 0)
			return;		/* an older job of the node */
		node_job_submitted((size_t)i, e->cluster, e->proc + 1);
		return;
	}
	if (e->event == ULOG_POST_SCRIPT) {
		/* Our own: live, it was acted on when the script ended. */
		if (!recovering || e->dag_node == NULL ||
		    (i = dag_find(&dag, e->dag_node)) < 0)
			return;
		if (run[i].cluster == e->cluster &&
		    run[i].state == DAG_POSTRUN)
			node_post_done((size_t)i, e->by_signal, e->code);
		return;
	}
	if ((i = node_of_cluster(e->cluster)) < 0 ||
	    run[i].state != DAG_SUBMITTED || run[i].cluster != e->cluster)
		return;
	switch (e->event) {
	case ULOG_EXECUTE:
		node_job_event_exec((size_t)i, 1);
		break;
	case ULOG_EVICTED:
		node_job_event_exec((size_t)i, -1);
		break;
	case ULOG_HELD:
		log_info("Node %s: job %d.%d held", dag.nodes[i].name,
		    e->cluster, e->proc);
		node_job_held((size_t)i, 1);
		break;
	case ULOG_RELEASED:
		node_job_held((size_t)i, -1);
		break;
	case ULOG_TERMINATED:
	case ULOG_ABORTED:
		if (e->event == ULOG_TERMINATED) {
			if (e->by_signal || e->code != 0) {
				run[i].job_failed = 1;
				run[i].job_code = e->by_signal ? -e->code :
				    e->code;
			} else if (!run[i].job_failed)
				run[i].job_code = 0;
			node_job_event_exec((size_t)i, -1);
		} else {
			run[i].job_failed = 1;
			run[i].job_code = -1;
			log_info("Node %s: job %d.%d was removed",
			    dag.nodes[i].name, e->cluster, e->proc);
		}
		if (++run[i].nended >= run[i].nprocs)
			node_job_done((size_t)i);
		break;
	}
}

int
nodelog_poll(void)
{
	struct stat st;
	long next;

	if (stat(nodes_log, &st) == -1) {
		if (errno == ENOENT)
			return 0;
		log_warn("%s", nodes_log);
		return -1;
	}
	if (st.st_size == last_size && offset == (long)st.st_size)
		return 0;
	last_size = st.st_size;
	if ((next = userlog_read(nodes_log, offset, on_event, NULL)) == -1) {
		if (errno == ENOENT)
			return 0;
		log_warn("%s", nodes_log);
		return -1;
	}
	offset = next;
	return 0;
}

/*
 * The DAG's jobs the schedd holds now: those whose 000 event is not in
 * the log yet are the nodes' all the same.  -1 if the schedd cannot be
 * asked.
 */
int
nodelog_recover_queue(void)
{
	static const char *const attrs[] = { "ClusterId", "ProcId",
	    "DAGNodeName", NULL };
	struct ad **jobs = NULL;
	char err[1024], *c, *name;
	long long cl_id, proc;
	CLIENT *cl;
	int n, k;
	long i;

	if ((cl = schedd_connect(NULL, err, sizeof(err))) == NULL) {
		log_warnx("recovery: %s", err);
		return -1;
	}
	c = xasprintf("DAGManJobId == %d", dag_cluster);
	n = schedd_query(cl, c, 0, attrs, &jobs, err, sizeof(err));
	free(c);
	rpc_close(cl);
	if (n == -1) {
		log_warnx("recovery: %s", err);
		return -1;
	}
	for (k = 0; k < n; k++) {
		if (ad_get_int(jobs[k], "ClusterId", &cl_id) == -1 ||
		    ad_get_int(jobs[k], "ProcId", &proc) == -1 ||
		    ad_get_string(jobs[k], "DAGNodeName", &name) == -1)
			continue;
		i = dag_find(&dag, name);
		free(name);
		if (i < 0)
			continue;
		if (run[i].state == DAG_SUBMITTED &&
		    run[i].cluster == (int)cl_id) {
			if ((int)proc + 1 > run[i].nprocs)
				run[i].nprocs = (int)proc + 1;
			continue;
		}
		if (run[i].cluster >= (int)cl_id)
			continue;
		log_info("recovery: node %s has job %lld in the queue, not "
		    "yet in the log", dag.nodes[i].name, cl_id);
		node_job_submitted((size_t)i, (int)cl_id, (int)proc + 1);
	}
	schedd_free_jobs(jobs, n);
	return 0;
}

int
nodelog_recover(void)
{
	struct dag_counts c;
	int rc = 0;

	recovering = 1;
	log_info("Recovery: reading %s", nodes_log);
	offset = 0;
	last_size = -1;
	if (nodelog_poll() == -1)
		rc = -1;
	recovering = 0;
	node_counts(&c);
	log_info("Recovery: %zu done, %zu failed, %zu queued, %zu in POST, "
	    "%zu ready", c.done, c.failed, c.queued, c.post, c.ready);
	return rc;
}
