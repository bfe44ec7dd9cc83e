/*
 * shadow_schedd.c: the shadow's calls to its schedd, over the schedd's
 * Unix-domain socket $(SPOOL)/.schedd_socket, where the kernel tells the
 * schedd who we are (the job's owner, or root).
 *
 * The connection is made while the shadow has its own identity (never
 * in the middle of acting as the owner), kept, and made again once if
 * it broke.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ad.h"
#include "config.h"
#include "log.h"
#include "rpcutil.h"
#include "schedd_rpc.h"
#include "shadow.h"
#include "xalloc.h"

static CLIENT	*schedd;

static CLIENT *
schedd_client(char *err, size_t errlen)
{
	long timeout = param_int("RPC_TIMEOUT", 20);
	char *path;

	if (schedd != NULL)
		return schedd;
	path = xasprintf("%s/.schedd_socket", param("SPOOL"));
	schedd = rpc_connect_unix(path, PROG_SCHEDD, 1, (int)(timeout > 0 ?
	    timeout : 20), err, errlen);
	free(path);
	return schedd;
}

/* One call, with one fresh connection if the kept one broke. */
static int
schedd_call(unsigned long proc, xdrproc_t xargs, void *args,
    xdrproc_t xres, void *res, char *err, size_t errlen)
{
	int attempt;

	for (attempt = 0; attempt < 2; attempt++) {
		if (schedd_client(err, errlen) == NULL)
			return -1;
		if (rpc_invoke(schedd, proc, xargs, args, xres, res, err,
		    errlen) == 0)
			return 0;
		rpc_close(schedd);
		schedd = NULL;
	}
	return -1;
}

struct ad *
schedd_get_job(int cluster, int proc, int *gone, char *err, size_t errlen)
{
	job_query_res_x res;
	job_query_x q;
	struct ad *ad;
	char c[128];

	*gone = 0;
	snprintf(c, sizeof(c), "ClusterId == %d && ProcId == %d", cluster,
	    proc);
	q.constraint = c;
	q.history = 0;
	memset(&res, 0, sizeof(res));
	if (schedd_call(SCHEDD_QUERY, (xdrproc_t)xdr_job_query_x, &q,
	    (xdrproc_t)xdr_job_query_res_x, &res, err, errlen) == -1)
		return NULL;
	if (res.code != 0 || res.jobs.jobs_len != 1) {
		if (res.code != 0)
			snprintf(err, errlen, "the schedd says: %s",
			    res.message ? res.message : "error");
		else {
			snprintf(err, errlen, "the schedd has %u jobs %d.%d",
			    res.jobs.jobs_len, cluster, proc);
			*gone = res.jobs.jobs_len == 0;
		}
		xdr_free((xdrproc_t)xdr_job_query_res_x, (char *)&res);
		return NULL;
	}
	ad = ad_from_xdr(&res.jobs.jobs_val[0], err, errlen);
	xdr_free((xdrproc_t)xdr_job_query_res_x, (char *)&res);
	return ad;
}

int
schedd_update_job(const struct ad *attrs, int tries)
{
	job_update_x u;
	status_x res;
	char err[512];
	int i, r = -1;

	memset(&u, 0, sizeof(u));
	u.id.cluster = sj.cluster;
	u.id.proc = sj.proc;
	ad_to_xdr(attrs, &u.attrs);
	/* Our schedd died: what we say must reach the next one. */
	for (i = 0; (i < tries || (shadow_orphaned() && i < ORPHAN_TRIES)) &&
	    r == -1; i++) {
		if (i > 0)
			sleep(1);
		memset(&res, 0, sizeof(res));
		if (schedd_call(SCHEDD_JOB_UPDATE,
		    (xdrproc_t)xdr_job_update_x, &u,
		    (xdrproc_t)xdr_status_x, &res, err, sizeof(err)) == -1) {
			log_warnx("job %s: cannot update the schedd: %s",
			    sj.id, err);
			continue;
		}
		if (res.code != 0)
			log_warnx("job %s: the schedd refused the update: %s",
			    sj.id, res.message ? res.message : "");
		else
			r = 0;
		xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
		if (r == -1)
			break;	/* refused: asking again will not help */
	}
	ad_x_free(&u.attrs);
	return r;
}
