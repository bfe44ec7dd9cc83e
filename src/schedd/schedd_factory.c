/*
 * schedd_factory.c: late materialization (HTCondor's max_materialize and
 * max_idle).
 *
 * A cluster whose ad has JobMaterializeLimit = N keeps at most N of its
 * jobs in the queue, and one with JobMaterializeMaxIdle = M at most M of
 * them idle.  The procs not yet in the queue wait in
 * $(SPOOL)/cluster<C>.factory, written and synced before the submission
 * is answered: only each proc's own ad (what it adds to the cluster's),
 * never a whole job ad, so a cluster of 100,000 jobs costs its file, not
 * 100,000 ads in memory.  The file is records
 *
 *	P <proc> <bytes>\n<bytes of "Name = value\n" lines>
 *
 * in proc order.  The cluster ad says how far it has been read:
 * JobMaterializeNextProcId (the next proc to come) and
 * JobMaterializeNextOffset (where its record starts), set in the same
 * transaction that puts the procs before it in the queue, so that a
 * schedd killed at any moment neither loses nor repeats a proc.
 * TotalSubmitProcs is the cluster's size.  As jobs leave the queue (and,
 * under a max_idle, as they start) more are materialized, a batch per
 * turn of the loop.  Removing the cluster (condor_rm C, OWNER, -a)
 * removes the procs still waiting too: JobMaterializeNextProcId is set
 * to the total and the file goes.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ad.h"
#include "buf.h"
#include "event.h"
#include "fdio.h"
#include "log.h"
#include "queue_log.h"
#include "schedd.h"
#include "xalloc.h"

#define FACTORY_BATCH		1000	/* procs per transaction */
#define FACTORY_RECORD_MAX	(1024 * 1024)	/* bytes of one proc's ad */
#define ATTR_LIMIT		"JobMaterializeLimit"
#define ATTR_MAX_IDLE		"JobMaterializeMaxIdle"
#define ATTR_NEXT		"JobMaterializeNextProcId"
#define ATTR_OFFSET		"JobMaterializeNextOffset"
#define ATTR_TOTAL		"TotalSubmitProcs"

struct factory {
	int	cluster;
	int	broken;		/* its file cannot be read: left alone */
};

static struct factory	*factories;
static size_t		 nfactories, capfactories;
static long		 factory_timer;

static char *
factory_path(int cluster)
{
	return xasprintf("%s/cluster%d.factory", spool_dir(), cluster);
}

static struct factory *
factory_find(int cluster)
{
	size_t i;

	for (i = 0; i < nfactories; i++)
		if (factories[i].cluster == cluster)
			return &factories[i];
	return NULL;
}

static void
factory_add(int cluster)
{
	if (factory_find(cluster) != NULL)
		return;
	if (nfactories == capfactories) {
		capfactories = capfactories ? capfactories * 2 : 8;
		factories = xreallocarray(factories, capfactories,
		    sizeof(*factories));
	}
	factories[nfactories].cluster = cluster;
	factories[nfactories++].broken = 0;
}

static void
factory_forget(int cluster)
{
	size_t i;
	char *path;

	for (i = 0; i < nfactories; i++)
		if (factories[i].cluster == cluster) {
			factories[i] = factories[--nfactories];
			break;
		}
	path = factory_path(cluster);
	if (unlink(path) == -1 && errno != ENOENT)
		log_warn("cannot remove %s", path);
	free(path);
}

/* A positive whole number NAME of AD in *V: 1, else 0. */
static int
limit_of(const struct ad *ad, const char *name, long long *v)
{
	return ad != NULL && ad_get_int(ad, name, v) == 0 && *v > 0;
}

int
factory_cad_pending(const struct ad *cad)
{
	long long next, total;

	return cad != NULL && ad_get_int(cad, ATTR_NEXT, &next) == 0 &&
	    ad_get_int(cad, ATTR_TOTAL, &total) == 0 && next < total;
}

/* The cluster ad decides, not the list: at start-up, jobs leave the
 * queue (recovery) before the list is made. */
int
factory_pending(int cluster)
{
	return factory_cad_pending(qlog_ad(schedd_queue, cluster, -1));
}

int
factory_plan(int cluster, struct ad *cad, struct ad **procs, size_t n,
    size_t *now, char *err, size_t errlen)
{
	long long limit = 0, max_idle = 0;
	char *path, *tmp;
	struct buf b;
	size_t k, i;
	FILE *f;
	int have_limit, have_idle, ok;

	*now = n;
	have_limit = limit_of(cad, ATTR_LIMIT, &limit);
	have_idle = limit_of(cad, ATTR_MAX_IDLE, &max_idle);
	if (!have_limit && !have_idle)
		return 0;
	k = n;
	if (have_limit && (unsigned long long)limit < k)
		k = (size_t)limit;
	if (have_idle && (unsigned long long)max_idle < k)
		k = (size_t)max_idle;
	if (k >= n)
		return 0;
	path = factory_path(cluster);
	tmp = xasprintf("%s.tmp", path);
	if ((f = fopen(tmp, "wxe")) == NULL) {
		snprintf(err, errlen, "cannot create %s: %s", tmp,
		    strerror(errno));
		free(path);
		free(tmp);
		return -1;
	}
	buf_init(&b);
	ok = 1;
	for (i = k; i < n && ok; i++) {
		buf_reset(&b);
		ad_print(procs[i], &b);
		ok = fprintf(f, "P %zu %zu\n", i, b.len) > 0 &&
		    fwrite(b.data, 1, b.len, f) == b.len;
	}
	buf_free(&b);
	ok = ok && fflush(f) == 0 && fsync(fileno(f)) == 0;
	if (fclose(f) != 0)
		ok = 0;
	if (!ok || rename(tmp, path) == -1 || fd_fsync_dir(spool_dir()) == -1) {
		snprintf(err, errlen, "cannot write %s: %s", path,
		    strerror(errno));
		unlink(tmp);
		unlink(path);
		free(path);
		free(tmp);
		return -1;
	}
	free(path);
	free(tmp);
	ad_set_int(cad, ATTR_NEXT, (long long)k);
	ad_set_int(cad, ATTR_OFFSET, 0);
	ad_set_int(cad, ATTR_TOTAL, (long long)n);
	*now = k;
	return 0;
}

void
factory_unplan(int cluster)
{
	char *path = factory_path(cluster);

	unlink(path);
	free(path);
}

static void
factory_tick(void *arg)
{
	int *clusters;
	size_t n, i;

	factory_timer = 0;
	/* A copy: a factory done with is taken off the list meanwhile. */
	n = factory_clusters(&clusters);
	for (i = 0; i < n; i++)
		factory_materialize(clusters[i]);
	free(clusters);
}

void
factory_poke(void)
{
	if (nfactories > 0 && factory_timer == 0)
		factory_timer = event_timer_add(0, factory_tick, NULL);
}

void
factory_committed(int cluster)
{
	factory_add(cluster);
	factory_poke();
}

/* How many of CLUSTER's jobs are idle now. */
static long long
cluster_idle(int cluster)
{
	struct job_scope s;
	struct job j;
	char c[64];
	long long n = 0;

	snprintf(c, sizeof(c), "ClusterId == %d", cluster);
	scope_init(&s, c);
	while (scope_next(&s, &j))
		if (job_status(&j) == JOB_IDLE)
			n++;
	return n;
}

/*
 * Read up to WANT records of CLUSTER's file from OFFSET, the first of
 * which must be proc NEXT.  Returns how many ads went to ADS (with
 * *OFFSET past them), or -1 if the file is not what the queue says.
 */
static int
factory_read(int cluster, long long next, long long *offset, size_t want,
    struct ad **ads)
{
	char *path = factory_path(cluster), line[128], err[256], *text;
	unsigned long long proc, len;
	size_t got = 0;
	FILE *f;
	int n;

	if ((f = fopen(path, "re")) == NULL) {
		log_warn("cluster %d: cannot open %s", cluster, path);
		free(path);
		return -1;
	}
	if (fseeko(f, (off_t)*offset, SEEK_SET) == -1) {
		log_warn("cluster %d: cannot seek in %s", cluster, path);
		goto bad;
	}
	while (got < want && fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "P %llu %llu%n", &proc, &len, &n) != 2 ||
		    line[n] != '\n' || proc != (unsigned long long)next +
		    got || len > FACTORY_RECORD_MAX) {
			log_warnx("cluster %d: %s: a bad record at byte %lld",
			    cluster, path, *offset);
			goto bad;
		}
		text = xmalloc((size_t)len + 1);
		if (fread(text, 1, (size_t)len, f) != (size_t)len) {
			free(text);
			log_warnx("cluster %d: %s: a short record at byte "
			    "%lld", cluster, path, *offset);
			goto bad;
		}
		text[len] = '\0';
		if (ad_parse_text(text, &ads[got], 1, err, sizeof(err)) != 1) {
			free(text);
			log_warnx("cluster %d: %s: proc %llu: %s", cluster,
			    path, proc, err);
			goto bad;
		}
		free(text);
		*offset += (long long)strlen(line) + (long long)len;
		got++;
	}
	fclose(f);
	free(path);
	return (int)got;
bad:
	while (got > 0)
		ad_free(ads[--got]);
	fclose(f);
	free(path);
	return -1;
}

void
factory_materialize(int cluster)
{
	const struct ad *cad = qlog_ad(schedd_queue, cluster, -1);
	struct factory *fa = factory_find(cluster);
	struct ad **ads;
	long long limit, max_idle, next, total, offset, room;
	int i, got;

	if (fa == NULL || fa->broken)
		return;
	if (!factory_cad_pending(cad)) {
		factory_forget(cluster);
		return;
	}
	ad_get_int(cad, ATTR_NEXT, &next);
	ad_get_int(cad, ATTR_TOTAL, &total);
	if (ad_get_int(cad, ATTR_OFFSET, &offset) == -1 || offset < 0)
		offset = 0;
	room = total - next;
	if (limit_of(cad, ATTR_LIMIT, &limit) &&
	    limit - queue_cluster_procs(cluster) < room)
		room = limit - queue_cluster_procs(cluster);
	if (limit_of(cad, ATTR_MAX_IDLE, &max_idle) &&
	    max_idle - cluster_idle(cluster) < room)
		room = max_idle - cluster_idle(cluster);
	if (room > FACTORY_BATCH)
		room = FACTORY_BATCH;
	if (room <= 0)
		return;
	ads = xcalloc((size_t)room, sizeof(*ads));
	got = factory_read(cluster, next, &offset, (size_t)room, ads);
	if (got <= 0) {
		/* Nothing where the queue says more is (0: the file ends
		 * early): no guess is made at what it held. */
		log_warnx("cluster %d: its %lld job(s) not yet in the queue "
		    "cannot be read; they stay where they are", cluster,
		    total - next);
		fa->broken = 1;
		free(ads);
		return;
	}
	qlog_begin(schedd_queue);
	for (i = 0; i < got; i++) {
		ad_set_int(ads[i], "ProcId", next + i);
		qlog_new_ad_from(schedd_queue, cluster, (int)(next + i),
		    ads[i]);
	}
	qlog_set_int(schedd_queue, cluster, -1, ATTR_NEXT, next + got);
	qlog_set_int(schedd_queue, cluster, -1, ATTR_OFFSET, offset);
	queue_commit(1);
	free(ads);
	queue_cluster_add(cluster, got);
	submit_events_range(cluster, (int)next, (int)(next + got));
	log_debug("cluster %d: %d job(s) materialized, %lld to come",
	    cluster, got, total - next - got);
	if (next + got >= total)
		factory_forget(cluster);
	else if (got == FACTORY_BATCH)
		factory_poke();		/* more room than one batch */
	schedd_advertise_now();
}

int
factory_cancel(int cluster)
{
	const struct ad *cad = qlog_ad(schedd_queue, cluster, -1);
	long long total;

	if (!factory_cad_pending(cad) ||
	    ad_get_int(cad, ATTR_TOTAL, &total) == -1)
		return 0;
	qlog_set_int(schedd_queue, cluster, -1, ATTR_NEXT, total);
	/* Nothing of it in the queue: the cluster goes now. */
	if (queue_cluster_procs(cluster) == 0)
		qlog_destroy(schedd_queue, cluster, -1);
	return 1;
}

void
factory_sync(void)
{
	size_t i = 0;
	int cluster;
	char *path;

	while (i < nfactories) {
		cluster = factories[i].cluster;
		if (factory_cad_pending(qlog_ad(schedd_queue, cluster, -1))) {
			i++;
			continue;
		}
		if (qlog_ad(schedd_queue, cluster, -1) == NULL) {
			path = spool_ickpt(cluster);
			if (unlink(path) == -1 && errno != ENOENT)
				log_warn("cannot remove %s", path);
			free(path);
		}
		log_info("cluster %d: its jobs not yet in the queue are "
		    "removed", cluster);
		factory_forget(cluster);
	}
	schedd_counts_changed();
}

size_t
factory_clusters(int **out)
{
	size_t i;

	*out = xcalloc(nfactories + 1, sizeof(**out));
	for (i = 0; i < nfactories; i++)
		(*out)[i] = factories[i].cluster;
	return nfactories;
}

void
factory_recover(void)
{
	const struct qlog_entry *e;
	size_t n = 0;

	nfactories = 0;
	for (e = qlog_first(schedd_queue); e != NULL; e = qlog_next(e))
		if (qlog_entry_proc(e) == -1 &&
		    factory_cad_pending(qlog_entry_ad(e))) {
			factory_add(qlog_entry_cluster(e));
			n++;
		}
	if (n > 0)
		log_info("%zu cluster(s) with jobs still to materialize", n);
	factory_poke();
}
