/*
 * collector_client.c: the client side of collector.x.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad.h"
#include "collector_rpc.h"
#include "collector_client.h"
#include "config.h"
#include "log.h"
#include "rpcutil.h"
#include "xalloc.h"

static CLIENT *collector_cl;
static struct rpc_dgram *collector_udp;	/* one-way updates */

static const char *adtype_names[] = {
	"Any", "Machine", "Scheduler", "DaemonMaster", "Negotiator",
};

const char *
collector_adtype_name(int adtype)
{
	if (adtype < 0 || adtype > ADTYPE_MAX)
		return NULL;
	return adtype_names[adtype];
}

void
collector_disconnect(void)
{
	rpc_close(collector_cl);
	collector_cl = NULL;
	rpc_dgram_close(collector_udp);
	collector_udp = NULL;
}

static CLIENT *
collector_client(char *err, size_t errlen)
{
	if (collector_cl == NULL)
		collector_cl = rpc_connect(param("COLLECTOR_HOST"),
		    PROG_COLLECTOR, 1, (int)param_int("RPC_TIMEOUT", 20),
		    err, errlen);
	return collector_cl;
}

/*
 * Make one call, re-connecting once: the collector may have restarted
 * since the kept connection was made.
 */
static int
collector_call(unsigned long proc, xdrproc_t xargs, void *args,
    xdrproc_t xres, void *res, char *err, size_t errlen)
{
	int try;

	for (try = 0; try < 2; try++) {
		CLIENT *cl = collector_client(err, errlen);

		if (cl == NULL)
			return -1;
		if (rpc_invoke(cl, proc, xargs, args, xres, res, err,
		    errlen) == 0)
			return 0;
		collector_disconnect();
	}
	return -1;
}

static int
status_result(status_x *st, char *err, size_t errlen)
{
	int code = st->code;

	if (code != 0 && err != NULL)
		snprintf(err, errlen, "%s", st->message ? st->message :
		    strerror(code));
	xdr_free((xdrproc_t)xdr_status_x, (char *)st);
	return code == 0 ? 0 : -1;
}

/*
 * An update as one UDP datagram, which the collector does not answer:
 * 0 once sent, -2 if the ad does not fit in a datagram, -1 on another
 * error.  Over UDP the collector needs no connection per daemon and
 * spends one receive on each update, which is what lets one collector
 * keep up with thousands of machines.
 */
static int
update_datagram(collector_update_x *arg, char *err, size_t errlen)
{
	if (collector_udp == NULL &&
	    (collector_udp = rpc_dgram_open(param("COLLECTOR_HOST"),
	    PROG_COLLECTOR, 1, err, errlen)) == NULL)
		return -1;
	return rpc_dgram_send(collector_udp, COLLECTOR_UPDATE,
	    (xdrproc_t)xdr_collector_update_x, arg, err, errlen);
}

int
collector_update(int adtype, const struct ad *ad, char *err, size_t errlen)
{
	collector_update_x arg;
	status_x res;
	int r;

	memset(&arg, 0, sizeof(arg));
	memset(&res, 0, sizeof(res));
	arg.adtype = adtype;
	ad_to_xdr(ad, &arg.ad);
	if (!param_bool("UPDATE_COLLECTOR_WITH_TCP", 0)) {
		r = update_datagram(&arg, err, errlen);
		if (r != -2) {	/* too big: over TCP below */
			ad_x_free(&arg.ad);
			return r;
		}
	}
	r = collector_call(COLLECTOR_UPDATE,
	    (xdrproc_t)xdr_collector_update_x, &arg,
	    (xdrproc_t)xdr_status_x, &res, err, errlen);
	ad_x_free(&arg.ad);
	if (r == -1)
		return -1;
	return status_result(&res, err, errlen);
}

int
collector_update_many(int adtype, struct ad **ads, size_t n, char *err,
    size_t errlen)
{
	collector_updates_x arg;
	status_x res;
	size_t i;
	int r;

	memset(&arg, 0, sizeof(arg));
	memset(&res, 0, sizeof(res));
	arg.adtype = adtype;
	arg.ads.ads_len = (u_int)n;
	arg.ads.ads_val = xcalloc(n, sizeof(ad_x));
	for (i = 0; i < n; i++)
		ad_to_xdr(ads[i], &arg.ads.ads_val[i]);
	r = collector_call(COLLECTOR_UPDATE_MANY,
	    (xdrproc_t)xdr_collector_updates_x, &arg,
	    (xdrproc_t)xdr_status_x, &res, err, errlen);
	for (i = 0; i < n; i++)
		ad_x_free(&arg.ads.ads_val[i]);
	free(arg.ads.ads_val);
	if (r == -1)
		return -1;
	return status_result(&res, err, errlen);
}

int
collector_query(int adtype, const char *constraint, struct ad ***adsp,
    char *err, size_t errlen)
{
	return collector_query_attrs(adtype, constraint, NULL, adsp, err,
	    errlen);
}

int
collector_query_attrs(int adtype, const char *constraint, const char *attrs,
    struct ad ***adsp, char *err, size_t errlen)
{
	collector_query_x arg;
	collector_query_res_x res;
	struct ad **ads;
	u_int i, n = 0;

	memset(&res, 0, sizeof(res));
	arg.adtype = adtype;
	arg.constraint = (char *)(constraint ? constraint : "");
	arg.projection = (char *)(attrs ? attrs : "");
	if (collector_call(COLLECTOR_QUERY,
	    (xdrproc_t)xdr_collector_query_x, &arg,
	    (xdrproc_t)xdr_collector_query_res_x, &res, err, errlen) == -1)
		return -1;
	if (res.code != 0) {
		snprintf(err, errlen, "%s", res.message ? res.message :
		    strerror(res.code));
		xdr_free((xdrproc_t)xdr_collector_query_res_x, (char *)&res);
		return -1;
	}
	ads = xcalloc(res.ads.ads_len + 1, sizeof(*ads));
	for (i = 0; i < res.ads.ads_len; i++) {
		char e[256];
		struct ad *ad = ad_from_xdr(&res.ads.ads_val[i], e,
		    sizeof(e));

		if (ad == NULL) {
			log_warnx("collector sent a bad ad: %s", e);
			continue;
		}
		ads[n++] = ad;
	}
	xdr_free((xdrproc_t)xdr_collector_query_res_x, (char *)&res);
	*adsp = ads;
	return (int)n;
}

void
collector_free_ads(struct ad **ads, int n)
{
	int i;

	if (ads == NULL)
		return;
	for (i = 0; i < n; i++)
		ad_free(ads[i]);
	free(ads);
}

int
collector_invalidate(int adtype, const char *name, char *err, size_t errlen)
{
	collector_invalidate_x arg;
	status_x res;

	memset(&res, 0, sizeof(res));
	arg.adtype = adtype;
	arg.name = (char *)name;
	if (collector_call(COLLECTOR_INVALIDATE,
	    (xdrproc_t)xdr_collector_invalidate_x, &arg,
	    (xdrproc_t)xdr_status_x, &res, err, errlen) == -1)
		return -1;
	return status_result(&res, err, errlen);
}
