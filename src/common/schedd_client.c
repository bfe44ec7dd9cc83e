/*
 * schedd_client.c: the user commands' side of the schedd's protocol
 * (see schedd_client.h): connecting, submitting, querying, acting on
 * jobs, and the pieces condor_q and condor_history share to show jobs.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "ad.h"
#include "buf.h"
#include "config.h"
#include "daemon.h"
#include "expr.h"
#include "locate.h"
#include "log.h"
#include "priv.h"
#include "rpcutil.h"
#include "schedd_client.h"
#include "schedd_rpc.h"
#include "submit.h"
#include "xalloc.h"

#define SUBMIT_TIMEOUT_FACTOR	5	/* submit: RPC_TIMEOUT times this */
#define PRIO_LIMIT		20	/* UserPrio is -20..20 */

static int
rpc_timeout(void)
{
	long t = param_int("RPC_TIMEOUT", 20);

	return t > 0 && t < 3600 ? (int)t : 20;
}

int
schedd_tail(CLIENT *cl, int cluster, int proc, int which, long long offset,
    int max, char **data, size_t *len, long long *at, long long *size,
    int *code, char *err, size_t errlen)
{
	tail_x q;
	tail_res_x res;

	*code = 0;
	*data = NULL;
	*len = 0;
	memset(&q, 0, sizeof(q));
	q.cluster = cluster;
	q.proc = proc;
	q.which = which ? TAIL_ERROR : TAIL_OUTPUT;
	q.offset = offset;
	q.max = max;
	memset(&res, 0, sizeof(res));
	if (rpc_invoke(cl, SCHEDD_TAIL, (xdrproc_t)xdr_tail_x, &q,
	    (xdrproc_t)xdr_tail_res_x, &res, err, errlen) == -1)
		return -1;
	if (res.code != 0) {
		*code = res.code;
		snprintf(err, errlen, "%s", res.message && *res.message ?
		    res.message : strerror(res.code));
		xdr_free((xdrproc_t)xdr_tail_res_x, (char *)&res);
		return -1;
	}
	*len = res.data.data_len;
	*data = xmalloc(*len + 1);
	memcpy(*data, res.data.data_val, *len);
	*at = res.offset;
	*size = res.size;
	xdr_free((xdrproc_t)xdr_tail_res_x, (char *)&res);
	return 0;
}

CLIENT *
schedd_connect(const char *addr, char *err, size_t errlen)
{
	const char *spool;
	char *path;
	CLIENT *cl;
	struct stat st;

	if (addr != NULL)
		return rpc_connect(addr, PROG_SCHEDD, SCHEDD_V1, rpc_timeout(),
		    err, errlen);
	if ((spool = param("SPOOL")) == NULL || *spool == '\0') {
		snprintf(err, errlen, "SPOOL is not set");
		return NULL;
	}
	path = xasprintf("%s/%s", spool, SCHEDD_SOCKET_NAME);
	if (stat(path, &st) == -1 && errno == ENOENT) {
		snprintf(err, errlen, "no schedd is running on this host "
		    "(%s does not exist)", path);
		free(path);
		return NULL;
	}
	cl = rpc_connect_unix(path, PROG_SCHEDD, SCHEDD_V1, rpc_timeout(),
	    err, errlen);
	if (cl == NULL && (errno == ECONNREFUSED || errno == ENOENT))
		snprintf(err, errlen, "no schedd is running on this host "
		    "(nothing answers on %s)", path);
	free(path);
	return cl;
}

/*
 * Submitting.  A request must stay under RPC_MAX_FRAGMENT bytes, and
 * $(Cluster) can be replaced only once the schedd has chosen the
 * cluster's number.  So a small cluster without $(Cluster) goes in one
 * SCHEDD_SUBMIT; any other begins with SCHEDD_SUBMIT_BEGIN (the shared
 * attributes that do not mention $(Cluster), no procs), which answers
 * the number, and goes on with SCHEDD_SUBMIT_MORE pieces of procs whose
 * ads carry, expanded, the shared attributes that mention it.  The
 * schedd commits nothing before the last piece.
 */
#define PIECE_BYTES	(RPC_MAX_FRAGMENT / 4 * 3)	/* per request */

/* Bytes an XDR string of LEN bytes takes. */
static size_t
xdr_string_size(size_t len)
{
	return 4 + ((len + 3) & ~(size_t)3);
}

static size_t
attrs_size(const struct submit_ad *sa)
{
	size_t i, n = 4;

	for (i = 0; i < sa->n; i++)
		n += xdr_string_size(strlen(sa->attrs[i].name)) +
		    xdr_string_size(strlen(sa->attrs[i].text));
	return n;
}

static int
has_cluster_macro(const struct submit_ad *sa)
{
	size_t i;

	for (i = 0; i < sa->n; i++)
		if (strstr(sa->attrs[i].text, SUBMIT_CLUSTER_MACRO) != NULL)
			return 1;
	return 0;
}

/*
 * X becomes the ad of SA's attributes for which SELECT holds (-1: all;
 * 0: those without $(Cluster); 1: those with it), with $(Cluster)
 * replaced by CLUSTER (when CLUSTER >= 0) in fresh strings that
 * ad_x_release frees.  SKIP, if not NULL, names attributes to leave out.
 */
static void
ad_x_fill(ad_x *x, const struct submit_ad *sa, int select, int cluster,
    const struct submit_ad *skip)
{
	size_t i, k;
	int has;

	for (i = 0; i < sa->n; i++) {
		const struct submit_attr *a = &sa->attrs[i];
		attr_x *ax;

		has = strstr(a->text, SUBMIT_CLUSTER_MACRO) != NULL;
		if (select >= 0 && has != select)
			continue;
		if (skip != NULL) {
			for (k = 0; k < skip->n; k++)
				if (strcasecmp(skip->attrs[k].name,
				    a->name) == 0)
					break;
			if (k < skip->n)
				continue;
		}
		x->attrs.attrs_val = xreallocarray(x->attrs.attrs_val,
		    x->attrs.attrs_len + 1, sizeof(attr_x));
		ax = &x->attrs.attrs_val[x->attrs.attrs_len++];
		ax->name = xstrdup(a->name);
		ax->text = cluster >= 0 && has ?
		    submit_expand_cluster(a->text, cluster) : xstrdup(a->text);
	}
}

static void
ad_x_release(ad_x *x)
{
	u_int i;

	for (i = 0; i < x->attrs.attrs_len; i++) {
		free(x->attrs.attrs_val[i].name);
		free(x->attrs.attrs_val[i].text);
	}
	free(x->attrs.attrs_val);
	memset(x, 0, sizeof(*x));
}

/*
 * A submitting request, given the longer timeout submits get: 0 with the
 * reply in RES, or -1 with a message in ERR (one that says so when the
 * jobs may have been queued all the same).
 */
static int
submit_invoke(CLIENT *cl, u_long proc, xdrproc_t xarg, void *arg,
    xdrproc_t xres, void *res, char *err, size_t errlen)
{
	struct timeval tv, old;
	char why[256];
	int rc = 0;

	clnt_control(cl, CLGET_TIMEOUT, (char *)&old);
	tv.tv_sec = (long)rpc_timeout() * SUBMIT_TIMEOUT_FACTOR;
	tv.tv_usec = 0;
	clnt_control(cl, CLSET_TIMEOUT, (char *)&tv);
	if (rpc_invoke(cl, proc, xarg, arg, xres, res, why,
	    sizeof(why)) == -1) {
		if (strstr(why, "timed out") != NULL)
			snprintf(err, errlen, "the schedd did not answer in "
			    "%ld seconds; the jobs may have been queued: look "
			    "with condor_q", (long)tv.tv_sec);
		else
			snprintf(err, errlen, "cannot submit: %s", why);
		rc = -1;
	}
	clnt_control(cl, CLSET_TIMEOUT, (char *)&old);
	return rc;
}

/* One request; 0 with RX filled, or -1 with a message in ERR. */
static int
submit_call(CLIENT *cl, u_long proc, xdrproc_t xarg, void *arg,
    submit_res_x *rx, char *err, size_t errlen)
{
	memset(rx, 0, sizeof(*rx));
	if (submit_invoke(cl, proc, xarg, arg, (xdrproc_t)xdr_submit_res_x,
	    rx, err, errlen) == -1)
		return -1;
	if (rx->code != 0) {
		snprintf(err, errlen, "%s", rx->message && *rx->message ?
		    rx->message : strerror(rx->code));
		return -1;
	}
	return 0;
}

int
schedd_submit(CLIENT *cl, const struct submit_result *res, int *cluster,
    char *err, size_t errlen)
{
	submit_x sx;
	submit_more_x mx;
	submit_res_x rx;
	size_t i, k, size, total, limit = PIECE_BYTES;
	int rc = -1, pieces = 0, begun = 0, c = -1;

	memset(&sx, 0, sizeof(sx));
	memset(&mx, 0, sizeof(mx));
	memset(&rx, 0, sizeof(rx));
	sx.executable = res->executable ? res->executable : "";

	/* The common case: one request, one transaction. */
	total = attrs_size(&res->cluster) + 4;
	pieces = has_cluster_macro(&res->cluster);
	for (i = 0; i < res->nprocs && !pieces && total < limit; i++) {
		total += attrs_size(&res->procs[i]);
		pieces = has_cluster_macro(&res->procs[i]);
	}
	if (!pieces && total < limit) {
		ad_x_fill(&sx.cluster_ad, &res->cluster, -1, -1, NULL);
		sx.proc_ads.proc_ads_len = (u_int)res->nprocs;
		sx.proc_ads.proc_ads_val = xcalloc(res->nprocs + 1,
		    sizeof(ad_x));
		for (i = 0; i < res->nprocs; i++)
			ad_x_fill(&sx.proc_ads.proc_ads_val[i], &res->procs[i],
			    -1, -1, NULL);
		if (submit_call(cl, SCHEDD_SUBMIT, (xdrproc_t)xdr_submit_x,
		    &sx, &rx, err, errlen) == 0) {
			*cluster = rx.cluster;
			rc = 0;
		}
		goto out;
	}

	/* In pieces: the shared part first, for the cluster's number. */
	ad_x_fill(&sx.cluster_ad, &res->cluster, 0, -1, NULL);
	if (attrs_size(&res->cluster) + 4096 > limit) {
		snprintf(err, errlen, "the attributes the jobs share are too "
		    "large to send (more than %zu bytes)", limit);
		goto out;
	}
	if (submit_call(cl, SCHEDD_SUBMIT_BEGIN, (xdrproc_t)xdr_submit_x,
	    &sx, &rx, err, errlen) == -1)
		goto out;
	c = rx.cluster;
	begun = 1;
	xdr_free((xdrproc_t)xdr_submit_res_x, (char *)&rx);
	mx.cluster = c;
	mx.proc_ads.proc_ads_val = xcalloc(res->nprocs + 1, sizeof(ad_x));
	for (i = 0; i < res->nprocs;) {
		/* As many procs as fit in one request. */
		size = 64;
		for (k = i; k < res->nprocs; k++) {
			ad_x *x = &mx.proc_ads.proc_ads_val[k - i];
			size_t one;

			ad_x_fill(x, &res->procs[k], -1, c, NULL);
			ad_x_fill(x, &res->cluster, 1, c, &res->procs[k]);
			one = (size_t)xdr_sizeof((xdrproc_t)xdr_ad_x, x);
			if (one + 64 > limit) {
				snprintf(err, errlen, "job %d.%zu is too large "
				    "to send (%zu bytes, at most %zu)", c, k,
				    one, limit - 64);
				ad_x_release(x);
				mx.proc_ads.proc_ads_len = (u_int)(k - i);
				goto out;
			}
			if (size + one > limit) {
				ad_x_release(x);
				break;
			}
			size += one;
		}
		mx.proc_ads.proc_ads_len = (u_int)(k - i);
		mx.last = k == res->nprocs;
		rc = submit_call(cl, SCHEDD_SUBMIT_MORE,
		    (xdrproc_t)xdr_submit_more_x, &mx, &rx, err, errlen);
		for (k = 0; k < mx.proc_ads.proc_ads_len; k++)
			ad_x_release(&mx.proc_ads.proc_ads_val[k]);
		i += mx.proc_ads.proc_ads_len;
		mx.proc_ads.proc_ads_len = 0;
		if (rc == -1)
			goto out;
		rc = -1;
		if (mx.last) {
			begun = 0;	/* committed */
			*cluster = rx.cluster;
			rc = 0;
		}
		xdr_free((xdrproc_t)xdr_submit_res_x, (char *)&rx);
	}
out:
	if (begun) {
		/* Tell the schedd to forget the half-sent cluster. */
		submit_res_x ax;
		char ignored[256];

		for (k = 0; k < mx.proc_ads.proc_ads_len; k++)
			ad_x_release(&mx.proc_ads.proc_ads_val[k]);
		mx.proc_ads.proc_ads_len = 0;
		mx.last = -1;
		(void)submit_call(cl, SCHEDD_SUBMIT_MORE,
		    (xdrproc_t)xdr_submit_more_x, &mx, &ax, ignored,
		    sizeof(ignored));
		xdr_free((xdrproc_t)xdr_submit_res_x, (char *)&ax);
	}
	xdr_free((xdrproc_t)xdr_submit_res_x, (char *)&rx);
	ad_x_release(&sx.cluster_ad);
	for (i = 0; i < sx.proc_ads.proc_ads_len; i++)
		ad_x_release(&sx.proc_ads.proc_ads_val[i]);
	free(sx.proc_ads.proc_ads_val);
	free(mx.proc_ads.proc_ads_val);
	return rc;
}

_Static_assert(SCHEDD_SUBMIT_MANY_BYTES <= PIECE_BYTES,
    "a SUBMIT_MANY request must fit a fragment");

size_t
schedd_submit_size(const struct submit_result *res)
{
	size_t i, total = attrs_size(&res->cluster) + 8 +
	    xdr_string_size(res->executable ? strlen(res->executable) : 0);

	if (has_cluster_macro(&res->cluster))
		return 0;
	for (i = 0; i < res->nprocs; i++) {
		if (has_cluster_macro(&res->procs[i]))
			return 0;
		total += attrs_size(&res->procs[i]);
		if (total >= PIECE_BYTES)
			return 0;
	}
	return total;
}

int
schedd_submit_many(CLIENT *cl, const struct submit_result *const *res,
    size_t n, int *clusters, long *failed, char *err, size_t errlen)
{
	submit_many_x mx;
	submit_many_res_x rx;
	size_t i, k, total = 0;
	int rc = -1;

	*failed = -1;
	if (n == 0 || n > SCHEDD_MAX_BATCH) {
		snprintf(err, errlen, "%zu clusters: 1 to %d at once", n,
		    SCHEDD_MAX_BATCH);
		return -1;
	}
	for (i = 0; i < n; i++) {
		size_t one = schedd_submit_size(res[i]);

		if (one == 0 || (total += one) >= SCHEDD_SUBMIT_MANY_BYTES) {
			snprintf(err, errlen, "cluster %zu of %zu does not fit "
			    "one request with the others", i + 1, n);
			return -1;
		}
	}
	memset(&mx, 0, sizeof(mx));
	memset(&rx, 0, sizeof(rx));
	mx.clusters.clusters_val = xcalloc(n, sizeof(submit_x));
	mx.clusters.clusters_len = (u_int)n;
	for (i = 0; i < n; i++) {
		submit_x *sx = &mx.clusters.clusters_val[i];

		sx->executable = res[i]->executable ? res[i]->executable : "";
		ad_x_fill(&sx->cluster_ad, &res[i]->cluster, -1, -1, NULL);
		sx->proc_ads.proc_ads_len = (u_int)res[i]->nprocs;
		sx->proc_ads.proc_ads_val = xcalloc(res[i]->nprocs + 1,
		    sizeof(ad_x));
		for (k = 0; k < res[i]->nprocs; k++)
			ad_x_fill(&sx->proc_ads.proc_ads_val[k],
			    &res[i]->procs[k], -1, -1, NULL);
	}
	if (submit_invoke(cl, SCHEDD_SUBMIT_MANY,
	    (xdrproc_t)xdr_submit_many_x, &mx,
	    (xdrproc_t)xdr_submit_many_res_x, &rx, err, errlen) == -1)
		;	/* said */
	else if (rx.code != 0) {
		snprintf(err, errlen, "%s", rx.message && *rx.message ?
		    rx.message : strerror(rx.code));
		if (rx.failed >= 0 && (size_t)rx.failed < n)
			*failed = rx.failed;
	} else if (rx.clusters.clusters_len != n) {
		snprintf(err, errlen, "the schedd answered %u clusters for %zu",
		    rx.clusters.clusters_len, n);
	} else {
		for (i = 0; i < n; i++)
			clusters[i] = rx.clusters.clusters_val[i];
		rc = 0;
	}
	xdr_free((xdrproc_t)xdr_submit_many_res_x, (char *)&rx);
	for (i = 0; i < n; i++) {
		submit_x *sx = &mx.clusters.clusters_val[i];

		ad_x_release(&sx->cluster_ad);
		for (k = 0; k < sx->proc_ads.proc_ads_len; k++)
			ad_x_release(&sx->proc_ads.proc_ads_val[k]);
		free(sx->proc_ads.proc_ads_val);
	}
	free(mx.clusters.clusters_val);
	return rc;
}

/*
 * Decoding a query's answer straight into ads: the attribute strings go
 * through fixed buffers, so that a queue of 100,000 jobs costs no
 * allocation per string besides the ads themselves.
 */
struct query_reply {
	int			 code;
	char			 message[ERRSTR_MAX + 1];
	struct ad		**jobs;
	u_int			 njobs;
	char			 name[AD_X_MAX_NAME + 1];
	char			 text[AD_X_MAX_TEXT + 1];
};

static bool_t
xdr_query_reply(XDR *x, struct query_reply *r)
{
	char *msg = r->message, *name = r->name, *text = r->text;
	u_int n, nattrs, i, k;
	struct ad *ad;

	if (x->x_op != XDR_DECODE)
		return TRUE;
	if (!xdr_int(x, &r->code) || !xdr_string(x, &msg, ERRSTR_MAX))
		return FALSE;
	if (!xdr_u_int(x, &n) || n > SCHEDD_MAX_JOBS)
		return FALSE;
	/* Grow as ads arrive: N is only a claim until they do. */
	for (i = 0; i < n; i++) {
		if (!xdr_u_int(x, &nattrs) || nattrs > AD_X_MAX_ATTRS)
			return FALSE;
		if ((r->njobs & (r->njobs - 1)) == 0)
			r->jobs = xreallocarray(r->jobs,
			    r->njobs ? 2 * r->njobs : 1, sizeof(*r->jobs));
		ad = ad_new();
		r->jobs[r->njobs++] = ad;
		for (k = 0; k < nattrs; k++) {
			if (!xdr_string(x, &name, AD_X_MAX_NAME) ||
			    !xdr_string(x, &text, AD_X_MAX_TEXT))
				return FALSE;
			/* A malformed attribute is left out. */
			(void)ad_set_expr(ad, name, text, NULL, 0);
		}
	}
	return TRUE;
}

int
schedd_query(CLIENT *cl, const char *constraint, int history,
    const char *const *attrs, struct ad ***jobs, char *err, size_t errlen)
{
	job_query_x q;
	job_query_attrs_x qa;
	struct query_reply *r;
	u_int n = 0;
	int rc;

	r = xcalloc(1, sizeof(*r));
	if (attrs == NULL) {
		q.constraint = (char *)(constraint ? constraint : "");
		q.history = history;
		rc = rpc_invoke(cl, SCHEDD_QUERY, (xdrproc_t)xdr_job_query_x,
		    &q, (xdrproc_t)xdr_query_reply, r, err, errlen);
	} else {
		while (attrs[n] != NULL)
			n++;
		qa.constraint = (char *)(constraint ? constraint : "");
		qa.history = history;
		qa.attrs.attrs_len = n;
		qa.attrs.attrs_val = (attr_name_x *)attrs;
		rc = rpc_invoke(cl, SCHEDD_QUERY_ATTRS,
		    (xdrproc_t)xdr_job_query_attrs_x, &qa,
		    (xdrproc_t)xdr_query_reply, r, err, errlen);
	}
	if (rc == -1) {
		schedd_free_jobs(r->jobs, (int)r->njobs);
		free(r);
		return -1;
	}
	if (r->code != 0) {
		snprintf(err, errlen, "%s", r->message[0] ? r->message :
		    strerror(r->code));
		schedd_free_jobs(r->jobs, (int)r->njobs);
		free(r);
		return -1;
	}
	*jobs = r->jobs ? r->jobs : xcalloc(1, sizeof(**jobs));
	rc = (int)r->njobs;
	free(r);
	return rc;
}

void
schedd_free_jobs(struct ad **jobs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		ad_free(jobs[i]);
	free(jobs);
}

int
schedd_action(CLIENT *cl, int action, const char *constraint, int value,
    const char *reason, int *count, int *denied, char *err, size_t errlen)
{
	job_action_x a;
	job_action_res_x r;
	int rc = 0;

	a.action = action;
	a.constraint = (char *)constraint;
	a.value = value;
	a.reason = (char *)(reason ? reason : "");
	memset(&r, 0, sizeof(r));
	if (rpc_invoke(cl, SCHEDD_ACTION, (xdrproc_t)xdr_job_action_x, &a,
	    (xdrproc_t)xdr_job_action_res_x, &r, err, errlen) == -1)
		return -1;
	*count = r.count;
	*denied = r.denied;
	switch (r.code) {
	case 0:
	case ENOENT:
		break;
	case EPERM:
	case EACCES:
		/* Everything matched belongs to someone else. */
		*count = 0;
		if (*denied == 0)
			*denied = 1;
		break;
	default:
		snprintf(err, errlen, "%s", r.message && *r.message ?
		    r.message : strerror(r.code));
		rc = -1;
	}
	xdr_free((xdrproc_t)xdr_job_action_res_x, (char *)&r);
	return rc;
}

int
schedd_edit(CLIENT *cl, const char *constraint, const char *name,
    const char *value, int *count, int *denied, char *err, size_t errlen)
{
	job_edit_x a;
	job_action_res_x r;
	int rc = 0;

	a.constraint = (char *)constraint;
	a.name = (char *)name;
	a.value = (char *)value;
	memset(&r, 0, sizeof(r));
	if (rpc_invoke(cl, SCHEDD_EDIT, (xdrproc_t)xdr_job_edit_x, &a,
	    (xdrproc_t)xdr_job_action_res_x, &r, err, errlen) == -1)
		return -1;
	*count = r.count;
	*denied = r.denied;
	if (r.code != 0 && r.code != ENOENT) {
		snprintf(err, errlen, "%s", r.message && *r.message ?
		    r.message : strerror(r.code));
		rc = -1;
	}
	xdr_free((xdrproc_t)xdr_job_action_res_x, (char *)&r);
	return rc;
}

int
schedd_reschedule(CLIENT *cl, char *err, size_t errlen)
{
	status_x r;
	int rc = 0;

	memset(&r, 0, sizeof(r));
	if (rpc_invoke(cl, SCHEDD_RESCHEDULE, (xdrproc_t)rpc_xdr_nothing, NULL,
	    (xdrproc_t)xdr_status_x, &r, err, errlen) == -1)
		return -1;
	if (r.code != 0) {
		snprintf(err, errlen, "%s", r.message && *r.message ?
		    r.message : strerror(r.code));
		rc = -1;
	}
	xdr_free((xdrproc_t)xdr_status_x, (char *)&r);
	return rc;
}

/* A non-negative decimal number that fits an int; -1 otherwise. */
static int
parse_id(const char *s, size_t len)
{
	long v = 0;
	size_t i;

	if (len == 0 || len > 9)
		return -1;
	for (i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return (int)v;
}

int
job_spec_parse(const char *arg, struct job_spec *spec)
{
	const char *dot = strchr(arg, '.');
	size_t i;

	memset(spec, 0, sizeof(*spec));
	if (isdigit((unsigned char)arg[0])) {
		if (dot == NULL) {
			spec->kind = JOB_SPEC_CLUSTER;
			spec->cluster = parse_id(arg, strlen(arg));
			return spec->cluster < 0 ? -1 : 0;
		}
		spec->kind = JOB_SPEC_PROC;
		spec->cluster = parse_id(arg, (size_t)(dot - arg));
		spec->proc = parse_id(dot + 1, strlen(dot + 1));
		return spec->cluster < 0 || spec->proc < 0 ? -1 : 0;
	}
	/* A user name as Unix systems allow them. */
	if (!isalpha((unsigned char)arg[0]) && arg[0] != '_')
		return -1;
	for (i = 1; arg[i] != '\0'; i++)
		if (i > 255 || (!isalnum((unsigned char)arg[i]) &&
		    strchr("_.-$", arg[i]) == NULL))
			return -1;
	spec->kind = JOB_SPEC_OWNER;
	spec->owner = arg;
	return 0;
}

char *
job_spec_constraint(const struct job_spec *spec)
{
	switch (spec->kind) {
	case JOB_SPEC_PROC:
		return xasprintf("ClusterId == %d && ProcId == %d",
		    spec->cluster, spec->proc);
	case JOB_SPEC_CLUSTER:
		return xasprintf("ClusterId == %d", spec->cluster);
	case JOB_SPEC_OWNER:
		/* job_spec_parse let no quote or backslash through. */
		return xasprintf("Owner == \"%s\"", spec->owner);
	case JOB_SPEC_ALL:
	default:
		return xstrdup("TRUE");
	}
}

void
job_spec_name(const struct job_spec *spec, char *buf, size_t len)
{
	switch (spec->kind) {
	case JOB_SPEC_PROC:
		snprintf(buf, len, "job %d.%d", spec->cluster, spec->proc);
		break;
	case JOB_SPEC_CLUSTER:
		snprintf(buf, len, "cluster %d", spec->cluster);
		break;
	case JOB_SPEC_OWNER:
		snprintf(buf, len, "user %s", spec->owner);
		break;
	case JOB_SPEC_ALL:
		snprintf(buf, len, "all jobs");
		break;
	}
}

/*
 * The job tools: condor_rm, condor_hold, condor_release, condor_prio.
 */
struct job_tool {
	const char	*prog;
	int		 action;
	const char	*done;		/* "marked for removal" */
	int		 value;		/* prio */
	const char	*reason;	/* hold */
};

/* One target: a spec, or a constraint (SPEC NULL). */
struct target {
	struct job_spec	 spec;
	const char	*constraint;
};

static int
job_tool_usage(const char *prog, int action, FILE *fp)
{
	if (action == JOB_SET_PRIO || action == JOB_ADD_PRIO)
		fprintf(fp,
		    "usage: %s (+N | -N | -p N) [-a] [-constraint EXPR] "
		    "[JOB...]\n"
		    "  +N, -N           raise or lower the priority by N\n"
		    "  -p N             set the priority to N (-20 to 20)\n",
		    prog);
	else
		fprintf(fp, "usage: %s%s [-a] [-constraint EXPR] [JOB...]\n",
		    prog, action == JOB_HOLD ? " [-reason TEXT]" : "");
	fprintf(fp,
	    "  JOB              C.P (one job), C (a cluster) or USER (all of "
	    "a user's jobs)\n"
	    "  -a               every job (that you may change)\n"
	    "  -constraint EXPR the jobs for which EXPR is TRUE\n");
	if (action == JOB_HOLD)
		fprintf(fp, "  -reason TEXT     why, shown by condor_q "
		    "-analyze\n");
	return fp == stdout ? 0 : 1;
}

/* "Job 3.1", "Cluster 3 has been", ... : the subject of a message. */
static void
target_subject(const struct target *t, int count, char *buf, size_t len)
{
	if (t->constraint != NULL) {
		snprintf(buf, len, "%d job%s matching the constraint", count,
		    count == 1 ? "" : "s");
		return;
	}
	switch (t->spec.kind) {
	case JOB_SPEC_PROC:
		snprintf(buf, len, "Job %d.%d", t->spec.cluster, t->spec.proc);
		break;
	case JOB_SPEC_CLUSTER:
		snprintf(buf, len, "Cluster %d has been", t->spec.cluster);
		break;
	case JOB_SPEC_OWNER:
		snprintf(buf, len, "All jobs of user %s", t->spec.owner);
		break;
	case JOB_SPEC_ALL:
		snprintf(buf, len, "All jobs");
		break;
	}
}

/* One request for target T; returns the exit status it deserves. */
static int
job_tool_one(CLIENT *cl, const struct job_tool *jt, const struct target *t)
{
	char err[1024], what[300], subject[320];
	char *constraint;
	int count = 0, denied = 0, rc;

	if (t->constraint != NULL) {
		constraint = xstrdup(t->constraint);
		snprintf(what, sizeof(what), "the constraint %s", constraint);
	} else {
		constraint = job_spec_constraint(&t->spec);
		job_spec_name(&t->spec, what, sizeof(what));
	}
	rc = schedd_action(cl, jt->action, constraint, jt->value, jt->reason,
	    &count, &denied, err, sizeof(err));
	free(constraint);
	if (rc == -1) {
		log_warnx("%s: %s", what, err);
		return 1;
	}
	if (count == 0 && denied == 0) {
		if (t->constraint != NULL)
			log_warnx("no job matches the constraint");
		else if (t->spec.kind == JOB_SPEC_OWNER)
			log_warnx("user %s has no jobs", t->spec.owner);
		else if (t->spec.kind == JOB_SPEC_ALL)
			log_warnx("there are no jobs");
		else
			log_warnx("%s not found", what);
		return 1;
	}
	if (count == 0) {
		if (t->constraint == NULL && (t->spec.kind == JOB_SPEC_PROC ||
		    t->spec.kind == JOB_SPEC_CLUSTER))
			log_warnx("%s is not yours", what);
		else if (t->constraint == NULL &&
		    t->spec.kind == JOB_SPEC_ALL)
			log_warnx("none of the %d job%s %s yours", denied,
			    denied == 1 ? "" : "s", denied == 1 ? "is" : "are");
		else
			log_warnx("the %d job%s of %s %s not yours", denied,
			    denied == 1 ? "" : "s", what,
			    denied == 1 ? "is" : "are");
		return 1;
	}
	if (jt->action == JOB_SET_PRIO || jt->action == JOB_ADD_PRIO) {
		if (t->constraint != NULL)
			snprintf(subject, sizeof(subject), "%d job%s matching "
			    "the constraint", count, count == 1 ? "" : "s");
		else
			snprintf(subject, sizeof(subject), "%s", what);
		if (jt->action == JOB_SET_PRIO)
			printf("Priority of %s set to %d\n", subject,
			    jt->value);
		else
			printf("Priority of %s changed by %+d\n", subject,
			    jt->value);
	} else {
		target_subject(t, count, subject, sizeof(subject));
		printf("%s %s\n", subject, jt->done);
	}
	if (denied > 0 && !(t->constraint == NULL &&
	    t->spec.kind == JOB_SPEC_ALL)) {
		log_warnx("%d job%s of %s %s not yours and %s left alone",
		    denied, denied == 1 ? "" : "s", what,
		    denied == 1 ? "is" : "are", denied == 1 ? "was" : "were");
		return 1;
	}
	return 0;
}

/* "+N" or "-N": a priority change; -1 if ARG is not one. */
static int
prio_delta(const char *arg, int *delta)
{
	int v;

	if ((arg[0] != '+' && arg[0] != '-') || !isdigit((unsigned char)arg[1]))
		return -1;
	if ((v = parse_id(arg + 1, strlen(arg + 1))) < 0)
		return -1;
	*delta = arg[0] == '-' ? -v : v;
	return 0;
}

void
job_select_init(struct job_select *sel, int (*usage)(FILE *), int flags)
{
	memset(sel, 0, sizeof(*sel));
	sel->usage = usage;
	sel->flags = flags;
}

void
job_select_free(struct job_select *sel)
{
	free(sel->specs);
	sel->specs = NULL;
	jobfmt_free(&sel->print);
}

/*
 * The attributes (names or expressions) after "-af" at ARGV[*I], up to
 * an option, a job (C or C.P) or what is no expression: *AF points at
 * the first, *I at the last; their number, or -1 (said) if there is
 * none.
 */
static int
af_args(int argc, char **argv, int *i, char ***af)
{
	const char *a;
	int n = 0;

	*af = argv + *i + 1;
	while (*i + 1 < argc) {
		a = argv[*i + 1];
		if (a[0] == '-' || a[strspn(a, "0123456789.")] == '\0' ||
		    !jobfmt_expr_valid(a))
			break;
		n++;
		++*i;
	}
	if (n == 0)
		log_warnx("-af needs at least one attribute or expression");
	return n > 0 ? n : -1;
}

int
job_select_arg(struct job_select *sel, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *opts;
	struct job_spec spec;
	char *c, *both, err[256];

	if (strcmp(a, "-h") == 0 || strcmp(a, "-help") == 0 ||
	    strcmp(a, "--help") == 0)
		exit(sel->usage(stdout));
	if (strcmp(a, "-l") == 0 || strcmp(a, "-long") == 0) {
		sel->want_long = 1;
		return 1;
	}
	if (strcmp(a, "-json") == 0) {
		sel->want_json = sel->want_long = 1;
		return 1;
	}
	if ((sel->flags & JOB_SELECT_AF) &&
	    (strncmp(a, "-af", 3) == 0 || strncmp(a, "-autoformat", 11) == 0)) {
		opts = a + (a[2] == 'f' ? 3 : 11);
		if (*opts != '\0' && *opts != ':') {
			log_warnx("unknown option %s", a);
			exit(sel->usage(stderr));
		}
		if (*opts == ':' && jobfmt_af_opts(&sel->print, opts + 1, err,
		    sizeof(err)) == -1) {
			log_warnx("%s", err);
			return -1;
		}
		sel->print.naf = af_args(argc, argv, i, &sel->print.af);
		return sel->print.naf > 0 ? 1 : -1;
	}
	if ((sel->flags & JOB_SELECT_AF) && strcmp(a, "-format") == 0) {
		if (*i + 2 >= argc) {
			log_warnx("-format needs a format and an attribute");
			return -1;
		}
		*i += 2;
		if (jobfmt_add_format(&sel->print, argv[*i - 1], argv[*i], err,
		    sizeof(err)) == -1) {
			log_warnx("%s", err);
			return -1;
		}
		return 1;
	}
	if (strcmp(a, "-constraint") == 0 || strcmp(a, "-name") == 0) {
		if (++*i == argc) {
			log_warnx("%s needs %s", a, a[1] == 'c' ?
			    "an expression" : "a host name");
			return -1;
		}
		if (a[1] == 'c')
			sel->constraint = argv[*i];
		else
			sel->host = argv[*i];
		return 1;
	}
	if (a[0] == '-') {
		log_warnx("unknown option %s", a);
		exit(sel->usage(stderr));
	}
	if (job_spec_parse(a, &spec) == -1) {
		log_warnx("\"%s\" is not a job (C.P), a cluster (C) or a user "
		    "name", a);
		return -1;
	}
	c = job_spec_constraint(&spec);
	if (sel->specs == NULL)
		sel->specs = xasprintf("(%s)", c);
	else {
		both = xasprintf("%s || (%s)", sel->specs, c);
		free(sel->specs);
		sel->specs = both;
	}
	free(c);
	return 1;
}

CLIENT *
job_select_connect(const struct job_select *sel)
{
	char err[1024], *addr = NULL;
	CLIENT *cl;

	if (sel->host != NULL && (addr = daemon_locate("schedd", sel->host,
	    err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		return NULL;
	}
	if ((cl = schedd_connect(addr, err, sizeof(err))) == NULL)
		log_warnx("%s", err);
	free(addr);
	return cl;
}

char *
job_select_constraint(const struct job_select *sel, const char *extra)
{
	struct expr *e;
	struct buf b;
	char err[256];

	buf_init(&b);
	if (sel->specs != NULL)
		buf_printf(&b, "(%s)", sel->specs);
	if (sel->constraint != NULL) {
		if ((e = expr_parse(sel->constraint, err, sizeof(err))) ==
		    NULL) {
			log_warnx("bad constraint \"%s\": %s", sel->constraint,
			    err);
			buf_free(&b);
			return NULL;
		}
		expr_free(e);
		buf_printf(&b, "%s(%s)", b.len ? " && " : "", sel->constraint);
	}
	if (extra != NULL)
		buf_printf(&b, "%s(%s)", b.len ? " && " : "", extra);
	if (b.len > AD_MAX_TEXT) {
		log_warnx("the constraint is too long");
		buf_free(&b);
		return NULL;
	}
	return buf_release(&b);
}

int
job_tool_main(int argc, char **argv, int action)
{
	struct job_tool jt;
	struct target *targets;
	struct expr *e;
	CLIENT *cl;
	char err[1024], who[64];
	const char *prog;
	int i, n = 0, rc = 0, have_prio = 0, delta;
	long v;
	char *end;

	common_init(argv[0]);
	signal(SIGPIPE, SIG_IGN);
	prog = log_progname();
	memset(&jt, 0, sizeof(jt));
	jt.prog = prog;
	jt.action = action;
	switch (action) {
	case JOB_REMOVE:
		jt.done = "marked for removal";
		break;
	case JOB_HOLD:
		jt.done = "held";
		break;
	case JOB_RELEASE:
		jt.done = "released";
		break;
	default:
		jt.done = "changed";
		break;
	}
	targets = xcalloc((size_t)argc + 1, sizeof(*targets));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "-h") == 0 || strcmp(a, "-help") == 0 ||
		    strcmp(a, "--help") == 0) {
			free(targets);
			return job_tool_usage(prog, action, stdout);
		}
		if (action == JOB_SET_PRIO && prio_delta(a, &delta) == 0) {
			if (delta < -2 * PRIO_LIMIT || delta > 2 * PRIO_LIMIT) {
				log_warnx("priority change %s is out of range",
				    a);
				free(targets);
				return 1;
			}
			jt.action = JOB_ADD_PRIO;
			jt.value = delta;
			have_prio = 1;
			continue;
		}
		if (action == JOB_SET_PRIO && strcmp(a, "-p") == 0) {
			if (++i == argc)
				goto usage;
			errno = 0;
			v = strtol(argv[i], &end, 10);
			if (errno != 0 || *end != '\0' || end == argv[i] ||
			    v < -PRIO_LIMIT || v > PRIO_LIMIT) {
				log_warnx("priority must be an integer from %d "
				    "to %d, not \"%s\"", -PRIO_LIMIT,
				    PRIO_LIMIT, argv[i]);
				free(targets);
				return 1;
			}
			jt.action = JOB_SET_PRIO;
			jt.value = (int)v;
			have_prio = 1;
			continue;
		}
		if (action == JOB_HOLD && strcmp(a, "-reason") == 0) {
			if (++i == argc)
				goto usage;
			jt.reason = argv[i];
			continue;
		}
		if (strcmp(a, "-a") == 0 || strcmp(a, "-all") == 0) {
			targets[n++].spec.kind = JOB_SPEC_ALL;
			continue;
		}
		if (strcmp(a, "-constraint") == 0) {
			if (++i == argc)
				goto usage;
			if ((e = expr_parse(argv[i], err, sizeof(err))) ==
			    NULL) {
				log_warnx("bad constraint \"%s\": %s", argv[i],
				    err);
				free(targets);
				return 1;
			}
			expr_free(e);
			targets[n++].constraint = argv[i];
			continue;
		}
		if (a[0] == '-') {
			log_warnx("unknown option %s", a);
			goto usage;
		}
		if (job_spec_parse(a, &targets[n].spec) == -1) {
			log_warnx("\"%s\" is not a job (C.P), a cluster (C) or "
			    "a user name", a);
			free(targets);
			return 1;
		}
		n++;
	}
	if (n == 0 || (action == JOB_SET_PRIO && !have_prio))
		goto usage;
	if (jt.action == JOB_HOLD && jt.reason == NULL) {
		snprintf(err, sizeof(err), "via condor_hold (by user %s)",
		    user_name(getuid(), who, sizeof(who)));
		jt.reason = err;
	}
	if ((cl = schedd_connect(NULL, err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		free(targets);
		return 1;
	}
	for (i = 0; i < n; i++)
		rc |= job_tool_one(cl, &jt, &targets[i]);
	rpc_close(cl);
	free(targets);
	return rc;
usage:
	free(targets);
	return job_tool_usage(prog, action, stderr);
}

/*
 * Showing jobs.
 */
const char *
job_status_letter(long long status)
{
	static const char *letters[] = { "U", "I", "R", "X", "C", "H", "?",
	    "S" };

	if (status < 0 || status > 7)
		return "?";
	return letters[status];
}

/*
 * Replace control characters (but newlines when KEEP_NL) so that an ad
 * cannot garble the terminal.
 */
static char *
printable_nl(char *s, int keep_nl)
{
	unsigned char *p;

	for (p = (unsigned char *)s; *p != '\0'; p++)
		if ((*p < 0x20 && !(keep_nl && *p == '\n')) || *p == 0x7f)
			*p = '?';
	return s;
}

static char *
printable(char *s)
{
	return printable_nl(s, 0);
}

char *
job_value_text(const struct ad *ad, const char *name)
{
	const struct expr *e;
	struct value v;
	struct buf b;

	ad_eval(ad, NULL, name, &v);
	buf_init(&b);
	/*
	 * An expression that needs a machine to evaluate (Requirements,
	 * Rank) is shown as written.
	 */
	if ((v.type == VAL_UNDEFINED || v.type == VAL_ERROR) &&
	    (e = ad_lookup(ad, name)) != NULL) {
		expr_unparse(e, &b);
		if (strcasecmp(b.data, "UNDEFINED") != 0 &&
		    strcasecmp(b.data, "ERROR") != 0) {
			value_free(&v);
			return printable(buf_take(&b));
		}
		buf_reset(&b);
	}
	value_print_plain(&v, NULL, &b);
	value_free(&v);
	return printable(buf_take(&b));
}

void
job_format_time(const struct ad *ad, const char *name, char *buf,
    size_t len)
{
	long long t;
	time_t tt;
	struct tm tm;

	if (ad_get_int(ad, name, &t) == -1 || t <= 0 ||
	    (tt = (time_t)t, localtime_r(&tt, &tm) == NULL)) {
		snprintf(buf, len, "?\?/?\? ?\?:?\?");
		return;
	}
	snprintf(buf, len, "%02d/%02d %02d:%02d", tm.tm_mon + 1, tm.tm_mday,
	    tm.tm_hour, tm.tm_min);
}

void
job_format_cpu(double secs, char *buf, size_t len)
{
	long long s;

	if (!(secs >= 0) || secs > 1e12)
		secs = 0;
	s = (long long)secs;
	snprintf(buf, len, "%lld+%02lld:%02lld:%02lld", s / 86400,
	    s / 3600 % 24, s / 60 % 60, s % 60);
}

char *
job_command(const struct ad *ad)
{
	char *cmd = NULL, *args = NULL, *base, *s;

	if (ad_get_string(ad, "Cmd", &cmd) == -1)
		cmd = xstrdup("?");
	base = strrchr(cmd, '/');
	base = base && base[1] ? base + 1 : cmd;
	if (ad_get_string(ad, "Args", &args) == 0 && *args != '\0')
		s = xasprintf("%s %s", base, args);
	else
		s = xstrdup(base);
	free(cmd);
	free(args);
	return printable(s);
}

struct job_key {
	long long	 cluster;
	long long	 proc;
	struct ad	*ad;
};

static int
job_key_cmp(const void *a, const void *b)
{
	const struct job_key *ka = a, *kb = b;

	if (ka->cluster != kb->cluster)
		return ka->cluster < kb->cluster ? -1 : 1;
	return ka->proc < kb->proc ? -1 : ka->proc > kb->proc;
}

void
job_sort(struct ad **jobs, size_t n)
{
	struct job_key *keys;
	size_t i;

	if (n < 2)
		return;
	/* The keys once each, not twice per comparison. */
	keys = xcalloc(n, sizeof(*keys));
	for (i = 0; i < n; i++) {
		keys[i].ad = jobs[i];
		(void)ad_get_int(jobs[i], "ClusterId", &keys[i].cluster);
		(void)ad_get_int(jobs[i], "ProcId", &keys[i].proc);
	}
	qsort(keys, n, sizeof(*keys), job_key_cmp);
	for (i = 0; i < n; i++)
		jobs[i] = keys[i].ad;
	free(keys);
}

void
job_print_long(const struct ad *ad, FILE *fp)
{
	struct buf b;

	buf_init(&b);
	ad_print(ad, &b);
	fputs(printable_nl(b.data, 1), fp);
	fputc('\n', fp);
	buf_free(&b);
}
