/*
 * dagman_node.c: the nodes' states, the throttles, and submitting node
 * jobs.
 *
 * A node waits for its parents (NOT_READY), becomes READY, runs its PRE
 * script (PRERUN), has its job queued (SUBMITTED) until every proc of it
 * has terminated or been removed, runs its POST script (POSTRUN) and
 * ends in SUCCESS or FAILURE; a failure with retries left starts it
 * again from READY.  Ready nodes wait in a heap, highest PRIORITY first
 * and then in the order of the DAG file, for the throttles: -maxjobs
 * (node jobs in the queue), -maxidle (of which none runs yet) and each
 * CATEGORY's MAXJOBS.
 *
 * Node jobs are queued through the same client code as condor_submit's
 * (submit_parse, schedd_submit), one cluster per node, with the node's
 * VARS and JOB, RETRY and DAGManJobId as macros, and the attributes
 * DAGManJobId and DAGNodeName; their user log is the DAG's node log,
 * whose 000 events then name the node ("DAG Node: NAME").
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
#include <unistd.h>

#include "ad.h"
#include "buf.h"
#include "config.h"
#include "dagman.h"
#include "event.h"
#include "log.h"
#include "rpcutil.h"
#include "schedd_client.h"
#include "schedd_rpc.h"
#include "submit.h"
#include "xalloc.h"

#define SUBMIT_TRIES	10	/* failed submits before the node fails */
#define SUBMIT_BACKOFF	30.0	/* seconds: the longest wait between */
#define SUBMIT_BATCH	200	/* submits before others get a turn */
#define TEXT_CACHE	16	/* submit files kept read */

extern char **environ;

static size_t	*heap;		/* READY nodes */
static size_t	 nheap;
static size_t	*cat_running;	/* node jobs queued per category */
static size_t	 njobs;		/* nodes SUBMITTED */
static size_t	 nidle;		/* ...of which no proc runs */
static int	 final_state = -1;	/* -1 not started; else a state */
static CLIENT	*schedd;

/* cluster -> node, open addressing */
static int	*map_cluster;
static size_t	*map_node;
static size_t	 map_cap, map_len;

static struct text_cache {
	char	*path;
	char	*text;
	size_t	 len;
	time_t	 mtime;
} cache[TEXT_CACHE];
static size_t	 cache_next;

static void	node_finish(size_t i, int ok);
static void	job_left(size_t i);

/* Count node I among the idle ones (-maxidle) if its job is queued and
 * none of its procs runs. */
static void
idle_update(size_t i)
{
	int idle = run[i].state == DAG_SUBMITTED && run[i].nexec == 0 &&
	    run[i].nheld == 0;

	if (idle && !run[i].idle) {
		nidle++;
		run[i].idle = 1;
	} else if (!idle && run[i].idle) {
		nidle--;
		run[i].idle = 0;
	}
}

static size_t
hash_int(int v, size_t cap)
{
	return ((size_t)(unsigned)v * 2654435761u) & (cap - 1);
}

static void
map_put(int cluster, size_t node)
{
	size_t h, k;

	if ((map_len + 1) * 2 > map_cap) {
		int *oc = map_cluster;
		size_t *on = map_node, ocap = map_cap;

		map_cap = map_cap ? map_cap * 2 : 1024;
		map_cluster = xcalloc(map_cap, sizeof(*map_cluster));
		map_node = xcalloc(map_cap, sizeof(*map_node));
		map_len = 0;
		for (k = 0; k < ocap; k++)
			if (oc[k] != 0)
				map_put(oc[k], on[k]);
		free(oc);
		free(on);
	}
	for (h = hash_int(cluster, map_cap); map_cluster[h] != 0;
	    h = (h + 1) & (map_cap - 1))
		if (map_cluster[h] == cluster) {
			map_node[h] = node;
			return;
		}
	map_cluster[h] = cluster;
	map_node[h] = node;
	map_len++;
}

long
node_of_cluster(int cluster)
{
	size_t h;

	if (map_cap == 0 || cluster <= 0)
		return -1;
	for (h = hash_int(cluster, map_cap); map_cluster[h] != 0;
	    h = (h + 1) & (map_cap - 1))
		if (map_cluster[h] == cluster)
			return (long)map_node[h];
	return -1;
}

/* Heap order: higher priority first, then earlier in the file. */
static int
before(size_t a, size_t b)
{
	if (dag.nodes[a].priority != dag.nodes[b].priority)
		return dag.nodes[a].priority > dag.nodes[b].priority;
	return a < b;
}

static void
heap_push(size_t i)
{
	size_t k, p;

	if (run[i].queued & NODE_Q_READY)
		return;
	run[i].queued |= NODE_Q_READY;
	k = nheap++;
	heap[k] = i;
	while (k > 0 && before(heap[k], heap[p = (k - 1) / 2])) {
		size_t t = heap[k];

		heap[k] = heap[p];
		heap[p] = t;
		k = p;
	}
}

static size_t
heap_pop(void)
{
	size_t top = heap[0], k = 0, c;

	heap[0] = heap[--nheap];
	for (;;) {
		size_t best = k, t;

		c = 2 * k + 1;
		if (c < nheap && before(heap[c], heap[best]))
			best = c;
		if (c + 1 < nheap && before(heap[c + 1], heap[best]))
			best = c + 1;
		if (best == k)
			break;
		t = heap[k];
		heap[k] = heap[best];
		heap[best] = t;
		k = best;
	}
	run[top].queued &= ~NODE_Q_READY;
	return top;
}

static void
make_ready(size_t i)
{
	run[i].state = DAG_READY;
	run[i].pre_done = 0;
	heap_push(i);
	dagman_poke();
}

void
node_init(void)
{
	size_t i, c;

	run = xcalloc(dag.nnodes ? dag.nnodes : 1, sizeof(*run));
	heap = xcalloc(dag.nnodes ? dag.nnodes : 1, sizeof(*heap));
	cat_running = xcalloc(dag.ncategories ? dag.ncategories : 1,
	    sizeof(*cat_running));
	for (i = 0; i < dag.nnodes; i++) {
		run[i].pre_code = -1;
		run[i].state = DAG_NOT_READY;
	}
	/* Parents done before the start (DONE, or a rescue DAG's) do not
	 * hold their children back. */
	for (i = 0; i < dag.nnodes; i++) {
		if (dag.nodes[i].flags & DAG_DONE)
			run[i].state = DAG_SUCCESS;
	}
	for (i = 0; i < dag.nnodes; i++) {
		const struct dag_node *n = &dag.nodes[i];

		for (c = 0; c < n->nchildren; c++)
			if (run[i].state != DAG_SUCCESS)
				run[n->children[c]].waiting++;
	}
	for (i = 0; i < dag.nnodes; i++)
		if (run[i].state == DAG_NOT_READY && run[i].waiting == 0 &&
		    !(dag.nodes[i].flags & DAG_FINAL))
			make_ready(i);
}

/* A node's directory, absolute (caller frees). */
static char *
node_dir(size_t i)
{
	const char *d = dag.nodes[i].dir;

	if (d == NULL)
		return xstrdup(dag_cwd);
	if (d[0] == '/')
		return xstrdup(d);
	return xasprintf("%s/%s", dag_cwd, d);
}

/* The text of submit file PATH, from the cache when it has not changed;
 * NULL with ERR. */
static const char *
submit_text(const char *path, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	struct text_cache *c;
	struct buf b;
	char chunk[65536];
	ssize_t n;
	size_t k;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd != -1)
			close(fd);
		return NULL;
	}
	for (k = 0; k < TEXT_CACHE; k++)
		if (cache[k].path != NULL && strcmp(cache[k].path, path) == 0 &&
		    cache[k].mtime == st.st_mtime &&
		    cache[k].len == (size_t)st.st_size) {
			close(fd);
			*len = cache[k].len;
			return cache[k].text;
		}
	buf_init(&b);
	while ((n = read(fd, chunk, sizeof(chunk))) > 0) {
		if (b.len + (size_t)n > SUBMIT_MAX_FILE) {
			snprintf(err, errlen, "%s: larger than %d bytes", path,
			    SUBMIT_MAX_FILE);
			close(fd);
			buf_free(&b);
			return NULL;
		}
		buf_add(&b, chunk, (size_t)n);
	}
	close(fd);
	if (n == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		buf_free(&b);
		return NULL;
	}
	c = &cache[cache_next++ % TEXT_CACHE];
	free(c->path);
	free(c->text);
	c->len = b.len;
	c->text = buf_take(&b);
	c->path = xstrdup(path);
	c->mtime = st.st_mtime;
	*len = c->len;
	return c->text;
}

/* A quoted ClassAd string of S. */
static char *
quoted(const char *s)
{
	struct buf b;

	buf_init(&b);
	buf_addc(&b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			buf_addc(&b, '\\');
		buf_addc(&b, *s);
	}
	buf_addc(&b, '"');
	return buf_take(&b);
}

/*
 * A SUBDAG's job: condor_submit_dag -no_submit writes the sub-DAG's
 * submit file (from its newest rescue DAG if there is one, else afresh).
 * Returns the submit file's path (caller frees) or NULL with ERR.
 */
static char *
subdag_prepare(size_t i, const char *dir, char *err, size_t errlen)
{
	const struct dag_node *n = &dag.nodes[i];
	char self[PATH_MAX], *tool, *slash, *rescue, *sub;
	const char *argv[8];
	struct stat st;
	int k = 0, status;
	pid_t pid;
	ssize_t len;

	if (param("BIN") != NULL)
		tool = xasprintf("%s/condor_submit_dag", param("BIN"));
	else {
		if ((len = readlink("/proc/self/exe", self, sizeof(self) - 1))
		    <= 0) {
			snprintf(err, errlen, "cannot find condor_submit_dag");
			return NULL;
		}
		self[len] = '\0';
		if ((slash = strrchr(self, '/')) != NULL)
			*slash = '\0';
		tool = xasprintf("%s/../bin/condor_submit_dag", self);
	}
	rescue = xasprintf("%s/%s.rescue001", dir, n->file);
	argv[k++] = tool;
	argv[k++] = "-no_submit";
	if (stat(rescue, &st) == -1)
		argv[k++] = "-f";
	argv[k++] = n->file;
	argv[k] = NULL;
	free(rescue);
	if ((pid = fork()) == -1) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		free(tool);
		return NULL;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (chdir(dir) == -1)
			_exit(127);
		if (fd != -1)
			dup2(fd, 1);
		execv(tool, (char *const *)argv);
		_exit(127);
	}
	free(tool);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(err, errlen, "condor_submit_dag -no_submit %s "
		    "failed (status %d): see %s.condor.sub's messages in "
		    "this DAG's error file", n->file, status, n->file);
		return NULL;
	}
	sub = xasprintf("%s.condor.sub", n->file);
	return sub;
}

static CLIENT *
schedd_client(char *err, size_t errlen)
{
	if (schedd == NULL)
		schedd = schedd_connect(NULL, err, errlen);
	return schedd;
}

static void
schedd_drop(void)
{
	if (schedd != NULL)
		rpc_close(schedd);
	schedd = NULL;
}

/*
 * A submit of node I failed in a way that may have queued it after all
 * (the answer was lost): ask the schedd.  1 if it holds (or held) a job
 * of the node newer than the last one we know, which is then the
 * node's; 0 if it does not; -1 if it cannot say now.
 */
static int
submit_check_lost(size_t i)
{
	char err[1024], *name = quoted(dag.nodes[i].name), *c;
	static const char *const attrs[] = { "ClusterId", "ProcId", NULL };
	struct ad **jobs = NULL;
	CLIENT *cl;
	int n, h, found = 0;
	long long cl_id;

	c = xasprintf("DAGManJobId == %d && DAGNodeName == %s && "
	    "ClusterId > %d", dag_cluster, name, run[i].cluster);
	free(name);
	if ((cl = schedd_client(err, sizeof(err))) == NULL) {
		free(c);
		return -1;
	}
	for (h = 0; h < 2 && !found; h++) {
		if ((n = schedd_query(cl, c, h, attrs, &jobs, err,
		    sizeof(err))) == -1) {
			schedd_drop();
			free(c);
			return -1;
		}
		if (n > 0 && ad_get_int(jobs[0], "ClusterId", &cl_id) == 0) {
			node_job_submitted(i, (int)cl_id, n);
			found = 1;
		}
		schedd_free_jobs(jobs, n);
	}
	free(c);
	return found;
}

static void
submit_retry_later(void *arg)
{
	size_t i = (size_t)arg;

	if (run[i].state == DAG_READY)
		heap_push(i);
	dagman_poke();
}

/* Node I could not be queued: its job counts as failed (-1). */
static void
submit_failed(size_t i, const char *err)
{
	const struct dag_node *n = &dag.nodes[i];

	log_warnx("Node %s: cannot submit its job: %s", n->name, err);
	run[i].submit_tries = 0;
	if (run[i].state != DAG_SUBMITTED) {
		/* node_job_done takes it away again */
		njobs++;
		if (n->category >= 0)
			cat_running[n->category]++;
	}
	run[i].state = DAG_SUBMITTED;
	run[i].cluster = 0;
	run[i].job_failed = 1;
	run[i].job_code = -1;
	run[i].nprocs = 0;
	node_job_done(i);
}

/* The schedd did not take node I: again later, with a growing wait. */
static void
submit_later(size_t i, const char *err)
{
	const struct dag_node *n = &dag.nodes[i];
	int tries = ++run[i].submit_tries;
	double wait = 1.0;
	int k;

	if (run[i].state == DAG_SUBMITTED && run[i].cluster == 0) {
		/* It was in a batch the schedd did not take. */
		job_left(i);
		run[i].state = DAG_READY;
		run[i].pre_done = dag.nodes[i].pre != NULL;
		idle_update(i);
	}
	run[i].unsure = 1;
	if (tries >= SUBMIT_TRIES) {
		log_warnx("Node %s: submit failed %d times, the last: %s",
		    n->name, tries, err);
		/* One last look: it may be queued after all. */
		if (submit_check_lost(i) == 1) {
			run[i].unsure = 0;
			return;
		}
		submit_failed(i, err);
		return;
	}
	for (k = 1; k < tries && wait < SUBMIT_BACKOFF; k++)
		wait *= 2;
	log_warnx("Node %s: submit failed (%s); again in %.0f s", n->name,
	    err, wait);
	event_timer_add(wait, submit_retry_later, (void *)i);
}

/*
 * Read node I's submit file into RES, as condor_submit would with the
 * node's macros and attributes.  0 ready to send; 1 the node is dealt
 * with (NOOP, a submit file that does not parse, a job found queued
 * after a lost answer); -1 not now (the schedd cannot say).
 */
static int
submit_prepare(size_t i, struct submit_result *res)
{
	const struct dag_node *n = &dag.nodes[i];
	struct submit_env env;
	char err[2048], *dir, *file = NULL, *path, **append, *nm;
	const char *text;
	size_t len, k, na = 0;
	int rc;

	memset(res, 0, sizeof(*res));
	if (n->flags & DAG_NOOP) {
		log_info("Node %s: NOOP, done without a job", n->name);
		run[i].job_failed = 0;
		run[i].job_code = 0;
		run[i].state = DAG_SUBMITTED;
		node_job_done(i);
		return 1;
	}
	if (run[i].unsure) {
		switch (submit_check_lost(i)) {
		case 1:
			run[i].unsure = 0;
			return 1;
		case -1:
			event_timer_add(SUBMIT_BACKOFF / 10, submit_retry_later,
			    (void *)i);
			return -1;
		}
		run[i].unsure = 0;
	}
	dir = node_dir(i);
	if (n->flags & DAG_SUBDAG) {
		if ((file = subdag_prepare(i, dir, err, sizeof(err))) == NULL)
			goto failed;
	} else
		file = xstrdup(n->file);
	path = file[0] == '/' ? xstrdup(file) : xasprintf("%s/%s", dir, file);
	text = submit_text(path, &len, err, sizeof(err));
	free(path);
	if (text == NULL)
		goto failed;

	append = xcalloc(n->nvars + 12, sizeof(*append));
	append[na++] = xasprintf("JOB = %s", n->name);
	append[na++] = xasprintf("RETRY = %d", run[i].retries);
	append[na++] = xasprintf("DAGManJobId = %d", dag_cluster);
	if (n->flags & DAG_FINAL) {
		struct dag_counts c;

		node_counts(&c);
		append[na++] = xasprintf("DAG_STATUS = %d", dag_status);
		append[na++] = xasprintf("FAILED_COUNT = %zu", c.failed);
	}
	for (k = 0; k < n->nvars; k++)
		append[na++] = xasprintf("%s = %s", n->vars[k].name,
		    n->vars[k].value);
	/* The node log beside the job's own log, not instead of it: both
	 * get the job's events (HTCondor's DAGManNodesLog). */
	nm = quoted(nodes_log);
	append[na++] = xasprintf("+DAGManNodesLog = %s", nm);
	free(nm);
	append[na++] = xasprintf("+DAGManJobId = %d", dag_cluster);
	nm = quoted(n->name);
	append[na++] = xasprintf("+DAGNodeName = %s", nm);
	free(nm);
	if (n->priority != 0)
		append[na++] = xasprintf("priority = %d", n->priority);
	append[na] = NULL;

	memset(&env, 0, sizeof(env));
	env.cwd = dir;
	env.environ = environ;
	env.check_files = 1;
	env.append = append;
	env.default_lease = param_int("JOB_DEFAULT_LEASE_DURATION", 2400);
	rc = submit_parse(text, len, file, &env, res, err, sizeof(err));
	for (k = 0; k < na; k++)
		free(append[k]);
	free(append);
	if (rc == -1) {
		submit_result_free(res);
		memset(res, 0, sizeof(*res));
		goto failed;
	}
	free(dir);
	free(file);
	return 0;

failed:
	free(dir);
	free(file);
	submit_failed(i, err);
	return 1;
}

static void
submit_logged(size_t i, int cluster, size_t nprocs)
{
	run[i].submit_tries = 0;
	log_info("Node %s: submitted as job %d (%zu proc%s)%s",
	    dag.nodes[i].name, cluster, nprocs, nprocs == 1 ? "" : "s",
	    run[i].retries ? " again" : "");
	node_job_submitted(i, cluster, (int)nprocs);
}

/*
 * Ready nodes prepared for one SUBMIT_MANY: their clusters are queued
 * in one transaction.
 */
struct batch {
	size_t			 node[SUBMIT_BATCH];
	struct submit_result	 res[SUBMIT_BATCH];
	size_t			 n;
	size_t			 bytes;
};

static void
batch_flush(struct batch *b)
{
	const struct submit_result *rp[SUBMIT_BATCH];
	int clusters[SUBMIT_BATCH];
	char err[2048];
	long failed = -1;
	size_t k;
	CLIENT *cl;

	if (b->n == 0)
		return;
	for (k = 0; k < b->n; k++)
		rp[k] = &b->res[k];
	if ((cl = schedd_client(err, sizeof(err))) != NULL &&
	    schedd_submit_many(cl, rp, b->n, clusters, &failed, err,
	    sizeof(err)) == 0) {
		if (b->n > 1)
			log_info("%zu node jobs queued in one transaction",
			    b->n);
		for (k = 0; k < b->n; k++)
			submit_logged(b->node[k], clusters[k],
			    b->res[k].nprocs);
	} else if (failed >= 0) {
		/* That one was refused, nothing queued: the others go
		 * again. */
		for (k = 0; k < b->n; k++) {
			if ((long)k == failed)
				submit_failed(b->node[k], err);
			else {
				size_t j = b->node[k];

				job_left(j);
				run[j].state = DAG_READY;
				run[j].pre_done = dag.nodes[j].pre != NULL;
				idle_update(j);
				heap_push(j);
			}
		}
		dagman_poke();
	} else {
		schedd_drop();
		for (k = 0; k < b->n; k++)
			submit_later(b->node[k], err);
	}
	for (k = 0; k < b->n; k++)
		submit_result_free(&b->res[k]);
	b->n = 0;
	b->bytes = 0;
}

/*
 * Queue node I's job, in batch B when it can go in one, else alone.  0
 * queued (or on its way in B, or the node is dealt with); -1 not now.
 */
static int
submit_node(size_t i, struct batch *b)
{
	struct submit_result res;
	char err[2048];
	size_t size;
	int cluster = 0, rc;
	CLIENT *cl;

	if ((rc = submit_prepare(i, &res)) != 0)
		return rc == 1 ? 0 : -1;
	size = schedd_submit_size(&res);
	if (size > 0) {
		if (b->bytes + size >= SCHEDD_SUBMIT_MANY_BYTES)
			batch_flush(b);
		/* Counted as queued from now on, for the throttles; its
		 * cluster (0 now) comes with the batch's answer. */
		node_job_submitted(i, 0, (int)res.nprocs);
		b->node[b->n] = i;
		b->res[b->n++] = res;
		b->bytes += size;
		if (b->n == SUBMIT_BATCH)
			batch_flush(b);
		return 0;
	}
	if ((cl = schedd_client(err, sizeof(err))) == NULL ||
	    schedd_submit(cl, &res, &cluster, err, sizeof(err)) == -1) {
		schedd_drop();
		submit_later(i, err);
		submit_result_free(&res);
		return -1;
	}
	submit_logged(i, cluster, res.nprocs);
	submit_result_free(&res);
	return 0;
}

void
node_job_submitted(size_t i, int cluster, int nprocs)
{
	const struct dag_node *n = &dag.nodes[i];

	if (run[i].state == DAG_SUBMITTED && run[i].cluster == cluster &&
	    cluster != 0) {
		if (nprocs > run[i].nprocs)
			run[i].nprocs = nprocs;
		return;
	}
	if (run[i].state == DAG_SUBMITTED && run[i].cluster == 0)
		;	/* its batch's answer: counted when it joined it */
	else if (run[i].state == DAG_SUBMITTED)
		log_warnx("Node %s: job %d replaces job %d", n->name, cluster,
		    run[i].cluster);
	else {
		njobs++;
		if (n->category >= 0)
			cat_running[n->category]++;
	}
	if (run[i].cluster > 0 && run[i].cluster != cluster)
		map_put(run[i].cluster, (size_t)-1);
	run[i].state = DAG_SUBMITTED;
	run[i].cluster = cluster;
	run[i].nprocs = nprocs;
	run[i].nended = 0;
	run[i].nexec = 0;
	run[i].nheld = 0;
	run[i].job_failed = 0;
	run[i].job_code = 0;
	run[i].unsure = 0;
	if (cluster > 0)
		map_put(cluster, i);
	idle_update(i);
}

/* The node's job left the queue (or never entered it). */
static void
job_left(size_t i)
{
	const struct dag_node *n = &dag.nodes[i];

	if (njobs > 0)
		njobs--;
	if (n->category >= 0 && cat_running[n->category] > 0)
		cat_running[n->category]--;
}

void
node_job_done(size_t i)
{
	const struct dag_node *n = &dag.nodes[i];

	if (!(n->flags & DAG_NOOP))
		job_left(i);
	run[i].state = DAG_POSTRUN;	/* no longer a job in the queue */
	idle_update(i);
	log_info("Node %s: job %d %s (return %d)", n->name, run[i].cluster,
	    run[i].job_failed ? "failed" : "succeeded", run[i].job_code);
	if (n->has_abort && run[i].job_code == n->abort_value) {
		log_info("Node %s: ABORT-DAG-ON %d", n->name, n->abort_value);
		run[i].state = DAG_FAILURE;
		dagman_abort(n->has_abort_return ? n->abort_return :
		    n->abort_value, "ABORT-DAG-ON");
		return;
	}
	if (n->post != NULL && !(n->flags & DAG_NOOP)) {
		run[i].state = DAG_POSTRUN;
		script_queue(i, 1);
		return;
	}
	node_finish(i, !run[i].job_failed);
}

void
node_pre_done(size_t i, int by_signal, int code)
{
	const struct dag_node *n = &dag.nodes[i];

	run[i].pre_code = by_signal ? -code : code;
	if (!by_signal && n->has_pre_skip && code == n->pre_skip) {
		log_info("Node %s: PRE returned %d (PRE_SKIP): done", n->name,
		    code);
		node_finish(i, 1);
		return;
	}
	if (n->has_abort && !by_signal && code == n->abort_value) {
		run[i].state = DAG_FAILURE;
		dagman_abort(n->has_abort_return ? n->abort_return :
		    n->abort_value, "ABORT-DAG-ON (PRE script)");
		return;
	}
	if (by_signal || code != 0) {
		log_info("Node %s: PRE failed (%s %d)", n->name,
		    by_signal ? "signal" : "return", code);
		run[i].job_code = -1;
		node_finish(i, 0);
		return;
	}
	run[i].pre_done = 1;
	run[i].state = DAG_READY;
	heap_push(i);
	dagman_poke();
}

void
node_post_done(size_t i, int by_signal, int code)
{
	const struct dag_node *n = &dag.nodes[i];

	if (run[i].state != DAG_POSTRUN)
		return;
	log_info("Node %s: POST %s %d", n->name,
	    by_signal ? "killed by signal" : "returned", code);
	node_finish(i, !by_signal && code == 0);
}

/* Node I ended this attempt: success, a retry, or failure. */
static void
node_finish(size_t i, int ok)
{
	const struct dag_node *n = &dag.nodes[i];
	size_t c;

	if (ok) {
		run[i].state = DAG_SUCCESS;
		if (n->flags & DAG_FINAL) {
			final_state = DAG_SUCCESS;
			dagman_poke();
			return;
		}
		for (c = 0; c < n->nchildren; c++) {
			size_t k = n->children[c];

			if (run[k].waiting > 0 && --run[k].waiting == 0 &&
			    run[k].state == DAG_NOT_READY)
				make_ready(k);
		}
		dagman_poke();
		return;
	}
	if (run[i].retries < n->retry && !(n->has_unless_exit &&
	    run[i].job_code == n->unless_exit)) {
		run[i].retries++;
		log_info("Node %s: retry %d of %d", n->name, run[i].retries,
		    n->retry);
		make_ready(i);
		return;
	}
	run[i].state = DAG_FAILURE;
	if (n->flags & DAG_FINAL)
		final_state = DAG_FAILURE;
	log_info("Node %s: failed", n->name);
	if (dag_status == 0)
		dag_status = 2;
	dagman_poke();
}

/* May node I's job be queued now? */
static int
throttle_ok(size_t i)
{
	int c = dag.nodes[i].category;

	if (max_jobs > 0 && njobs >= (size_t)max_jobs)
		return 0;
	if (max_idle > 0 && nidle >= (size_t)max_idle)
		return 0;
	if (c >= 0 && dag.categories[c].maxjobs > 0 &&
	    cat_running[c] >= (size_t)dag.categories[c].maxjobs)
		return 0;
	return 1;
}

void
node_schedule(void)
{
	static struct batch batch;
	size_t *held = NULL, nheld = 0, done = 0, i;

	while (nheap > 0 && done < SUBMIT_BATCH) {
		if (max_jobs > 0 && njobs >= (size_t)max_jobs)
			break;
		if (max_idle > 0 && nidle >= (size_t)max_idle)
			break;
		i = heap_pop();
		if (run[i].state != DAG_READY)
			continue;
		if (dag.nodes[i].pre != NULL && !run[i].pre_done &&
		    !(dag.nodes[i].flags & DAG_NOOP)) {
			run[i].state = DAG_PRERUN;
			script_queue(i, 0);
			continue;
		}
		if (!throttle_ok(i)) {
			/* Its category is full: others may go. */
			held = xreallocarray(held, nheld + 1, sizeof(*held));
			held[nheld++] = i;
			continue;
		}
		if (submit_node(i, &batch) == 0)
			done++;
	}
	batch_flush(&batch);
	for (i = 0; i < nheld; i++)
		heap_push(held[i]);
	free(held);
	if (nheap > 0 && done == SUBMIT_BATCH)
		dagman_poke();
	script_schedule();
}

void
node_job_event_exec(size_t i, int delta)
{
	run[i].nexec += delta;
	if (run[i].nexec < 0)
		run[i].nexec = 0;
	idle_update(i);
}

int
node_under_way(size_t i)
{
	switch (run[i].state) {
	case DAG_READY:
	case DAG_PRERUN:
	case DAG_SUBMITTED:
	case DAG_POSTRUN:
		return 1;
	}
	return 0;
}

int
node_all_ended(void)
{
	size_t i;

	if (nheap > 0 || script_running())
		return 0;
	for (i = 0; i < dag.nnodes; i++)
		if (!(dag.nodes[i].flags & DAG_FINAL) && node_under_way(i))
			return 0;
	return 1;
}

void
node_counts(struct dag_counts *c)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < dag.nnodes; i++) {
		switch (run[i].state) {
		case DAG_SUCCESS: c->done++; break;
		case DAG_FAILURE: c->failed++; break;
		case DAG_FUTILE: c->futile++; break;
		case DAG_PRERUN: c->pre++; break;
		case DAG_SUBMITTED:
			c->queued++;
			if (run[i].nexec == 0 && run[i].nheld == 0)
				c->idle++;
			if (run[i].nheld > 0)
				c->held++;
			break;
		case DAG_POSTRUN: c->post++; break;
		case DAG_READY: c->ready++; break;
		default: c->unready++; break;
		}
	}
}

int
node_start_final(void)
{
	size_t i;

	if (dag.final < 0 || final_state != -1)
		return 0;
	/* What can no longer run is futile. */
	for (i = 0; i < dag.nnodes; i++)
		if (run[i].state == DAG_NOT_READY &&
		    !(dag.nodes[i].flags & DAG_FINAL))
			run[i].state = DAG_FUTILE;
	i = (size_t)dag.final;
	final_state = DAG_READY;
	if (run[i].state == DAG_SUCCESS) {
		final_state = DAG_SUCCESS;
		return 0;
	}
	log_info("Node %s: the FINAL node starts", dag.nodes[i].name);
	make_ready(i);
	return 1;
}

int
node_final_ended(void)
{
	return dag.final < 0 || final_state == DAG_SUCCESS ||
	    final_state == DAG_FAILURE;
}

int
node_final_ok(void)
{
	return dag.final < 0 || final_state == DAG_SUCCESS;
}

void
node_remove_jobs(void)
{
	char err[1024], *c;
	int count = 0, denied = 0, tries;
	CLIENT *cl;

	c = xasprintf("DAGManJobId == %d", dag_cluster);
	for (tries = 0; tries < 3; tries++) {
		if ((cl = schedd_client(err, sizeof(err))) != NULL &&
		    schedd_action(cl, JOB_REMOVE, c, 0, "the DAG was stopped",
		    &count, &denied, err, sizeof(err)) == 0) {
			log_info("Removed %d node job%s", count,
			    count == 1 ? "" : "s");
			free(c);
			return;
		}
		schedd_drop();
		log_warnx("cannot remove the node jobs: %s", err);
		sleep(1);
	}
	free(c);
}

void
node_job_held(size_t i, int delta)
{
	run[i].nheld += delta;
	if (run[i].nheld < 0)
		run[i].nheld = 0;
	idle_update(i);
}
