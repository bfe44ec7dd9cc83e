/*
 * negotiator_client.c: the client side of negotiator_rpc.x (see
 * negotiator_client.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad.h"
#include "auth.h"
#include "collector_client.h"
#include "config.h"
#include "daemon.h"
#include "negotiator_client.h"
#include "negotiator_rpc.h"
#include "rpcutil.h"
#include "xalloc.h"

char *
negotiator_locate(char *err, size_t errlen)
{
	struct ad **ads;
	char *addr = NULL, qerr[512];
	int i, n;

	/* There is one negotiator per pool, whatever its host's name. */
	n = collector_query(ADTYPE_NEGOTIATOR, NULL, &ads, qerr,
	    sizeof(qerr));
	for (i = 0; i < n && addr == NULL; i++)
		if (ad_get_string(ads[i], "NegotiatorIpAddr", &addr) == -1)
			addr = NULL;
	if (n >= 0)
		collector_free_ads(ads, n);
	if (addr != NULL)
		return addr;
	if ((addr = daemon_read_address("negotiator")) != NULL)
		return addr;
	if (n < 0)
		snprintf(err, errlen, "cannot find the negotiator: %s", qerr);
	else
		snprintf(err, errlen, "no negotiator is known to the "
		    "collector");
	return NULL;
}

static CLIENT *
negotiator_connect(char *err, size_t errlen)
{
	CLIENT *cl;
	char *addr;

	if ((addr = negotiator_locate(err, errlen)) == NULL)
		return NULL;
	cl = rpc_connect(addr, PROG_NEGOTIATOR, 1,
	    (int)param_int("RPC_TIMEOUT", 20), err, errlen);
	free(addr);
	return cl;
}

/* The request has no arguments. */
static bool_t
xdr_no_args(XDR *xdrs, void *unused)
{
	return TRUE;
}

int
negotiator_reschedule(char *err, size_t errlen)
{
	struct timeval zero = { 0, 0 };
	enum clnt_stat st;
	status_x res;
	CLIENT *cl;

	if ((cl = negotiator_connect(err, errlen)) == NULL)
		return -1;
	/*
	 * A call with a zero timeout is sent and returns RPC_TIMEDOUT at
	 * once, without reading an answer (Sun RPC's message passing).
	 */
	memset(&res, 0, sizeof(res));
	clnt_control(cl, CLSET_TIMEOUT, (char *)&zero);
	auth_client_proc(cl, NEGOTIATOR_RESCHEDULE);
	st = clnt_call(cl, NEGOTIATOR_RESCHEDULE, (xdrproc_t)xdr_no_args,
	    NULL, (xdrproc_t)xdr_status_x, (char *)&res, zero);
	rpc_close(cl);
	if (st != RPC_TIMEDOUT && st != RPC_SUCCESS) {
		snprintf(err, errlen, "reschedule: %s", clnt_sperrno(st));
		return -1;
	}
	if (st == RPC_SUCCESS)
		xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
	return 0;
}

int
negotiator_priorities(struct ad ***ads, char *err, size_t errlen)
{
	prio_res_x res;
	CLIENT *cl;
	u_int i, n = 0;
	int rc;

	*ads = NULL;
	if ((cl = negotiator_connect(err, errlen)) == NULL)
		return -1;
	memset(&res, 0, sizeof(res));
	rc = rpc_invoke(cl, NEGOTIATOR_PRIORITIES, (xdrproc_t)xdr_no_args,
	    NULL, (xdrproc_t)xdr_prio_res_x, &res, err, errlen);
	rpc_close(cl);
	if (rc == -1)
		return -1;
	if (res.code != 0) {
		snprintf(err, errlen, "%s", res.message && *res.message ?
		    res.message : strerror(res.code));
		xdr_free((xdrproc_t)xdr_prio_res_x, (char *)&res);
		return -1;
	}
	*ads = xcalloc(res.stations.stations_len + 1, sizeof(**ads));
	for (i = 0; i < res.stations.stations_len; i++) {
		struct ad *ad = ad_from_xdr(&res.stations.stations_val[i],
		    err, errlen);

		if (ad != NULL)
			(*ads)[n++] = ad;
	}
	xdr_free((xdrproc_t)xdr_prio_res_x, (char *)&res);
	return (int)n;
}

int
negotiator_set_priority(const char *name, double prio, char *err,
    size_t errlen)
{
	setprio_x arg;
	status_x res;
	struct stat st;
	CLIENT *cl = NULL;
	char *path;
	int rc;

	/* Here, the Unix socket tells the negotiator who we are. */
	path = xasprintf("%s/.negotiator_socket", param("LOG") ?
	    param("LOG") : ".");
	if (stat(path, &st) == 0 && S_ISSOCK(st.st_mode))
		cl = rpc_connect_unix(path, PROG_NEGOTIATOR, 1,
		    (int)param_int("RPC_TIMEOUT", 20), err, errlen);
	free(path);
	if (cl == NULL && (cl = negotiator_connect(err, errlen)) == NULL)
		return -1;
	arg.name = (char *)name;
	arg.prio = prio;
	memset(&res, 0, sizeof(res));
	rc = rpc_invoke(cl, NEGOTIATOR_SET_PRIORITY, (xdrproc_t)xdr_setprio_x,
	    &arg, (xdrproc_t)xdr_status_x, &res, err, errlen);
	rpc_close(cl);
	if (rc == -1)
		return -1;
	if (res.code != 0) {
		snprintf(err, errlen, "%s", res.message && *res.message ?
		    res.message : strerror(res.code));
		rc = -1;
	}
	xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
	return rc;
}

int
negotiator_annotate_submitters(struct ad **schedds, int n, char *err,
    size_t errlen)
{
	struct ad **prios;
	char *a, *b;
	double prio;
	int i, k, np;

	if ((np = negotiator_priorities(&prios, err, errlen)) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		if (ad_get_string(schedds[i], "Name", &a) == -1)
			continue;
		for (k = 0; k < np; k++) {
			if (ad_get_string(prios[k], "Name", &b) == -1)
				continue;
			if (strcmp(a, b) == 0 &&
			    ad_get_real(prios[k], "Priority", &prio) == 0)
				ad_set_real(schedds[i], "StationPriority",
				    prio);
			free(b);
		}
		free(a);
	}
	collector_free_ads(prios, np);
	return 0;
}
