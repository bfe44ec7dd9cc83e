/*
 * NAME
 *	condor_collector - the central manager's store of ads
 *
 * DESCRIPTION
 *	Holds, in memory, the latest ad of every startd, schedd, master and
 *	negotiator in the pool, keyed by ad type and Name.  Daemons refresh
 *	their ads periodically; an ad not refreshed within CLASSAD_LIFETIME
 *	seconds is forgotten, so a host that dies disappears from
 *	condor_status.  Queries carry a constraint expression evaluated
 *	against each ad.  Every COLLECTOR_HISTORY_INTERVAL seconds it counts
 *	the machines by state and appends the counts to the pool history,
 *	which condor_summary reads back (collector_history.c).
 *
 * PROTOCOL
 *	Serves COLLECTOR_PROG (include/collector_rpc.x) over TCP on the port of
 *	COLLECTOR_HOST (port 0, a personal pool's default: the port of its
 *	last address file if free, else any free port; the daemons and
 *	commands of this LOCAL_DIR read $(LOG)/.collector_address), at
 *	BIND_ADDRESS, and takes COLLECTOR_UPDATE as UDP
 *	datagrams on the same port number, which it does not answer (the
 *	daemons' periodic ads; UPDATE_COLLECTOR_WITH_TCP sends them over
 *	TCP instead).  Each stored ad gets UpdatesTotal, and UpdatesLost
 *	counted from the gaps in its UpdateSequenceNumber.  Datagrams that
 *	arrive within COLLECTOR_UPDATE_GATHER seconds of a batch are taken
 *	together, one wake-up for many (an update after a quiet spell is
 *	taken at once).  A daemon's first ad comes as
 *	COLLECTOR_UPDATE_ACKED, answered even over UDP with our incarnation
 *	(drawn at start-up) and repeated by the daemon until answered.  The
 *	addresses the datagrams came from are kept in $(SPOOL)/collector_peers
 *	(collector_peers.c); at start-up each gets one datagram
 *	COLLECTOR_PEER_READVERTISE (COLLECTOR_PEER_PROG), and the daemons
 *	advertise again at once.  The procedures: COLLECTOR_NULL (a ping),
 *	COLLECTOR_UPDATE, COLLECTOR_UPDATE_ACKED, COLLECTOR_UPDATE_MANY
 *	(many ads in one call, condor_advertise), COLLECTOR_QUERY,
 *	COLLECTOR_INVALIDATE (a daemon withdrawing its ad) and
 *	COLLECTOR_HISTORY (condor_summary).  Updates and
 *	invalidations need the caller in HOSTALLOW_WRITE, queries in
 *	HOSTALLOW_READ.
 *
 * SIGNALS
 *	SIGTERM, SIGINT: exit.  SIGHUP: re-read the configuration.
 *
 * CONFIGURATION
 *	COLLECTOR_HOST, BIND_ADDRESS, CLASSAD_LIFETIME, HOSTALLOW_READ,
 *	HOSTALLOW_WRITE, COLLECTOR_SOCKET_BUFSIZE, COLLECTOR_UPDATE_GATHER,
 *	COLLECTOR_LOG,
 *	COLLECTOR_HISTORY_INTERVAL, SPOOL.
 *	No portmapper is needed; if one
 *	runs on this machine the collector registers its port with it, so
 *	that "rpcinfo -n PORT -t HOST PROG" and "rpcinfo -p" find it.
 *
 * FILES
 *	$(LOG)/CollectorLog, $(LOG)/.collector_address,
 *	$(SPOOL)/pool_history and pool_history.old (the pool history, one
 *	line a sample, at most 4 MiB each), $(SPOOL)/collector_peers (the
 *	daemons' update addresses, "<ip:port>" a line, rewritten atomically).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "ad.h"
#include "auth.h"
#include "collector.h"
#include "collector_client.h"
#include "collector_rpc.h"
#include "config.h"
#include "daemon.h"
#include "event.h"
#include "expr.h"
#include "log.h"
#include "rpcutil.h"
#include "xalloc.h"

static long	expire_timer;
static SVCXPRT	*udp_xprt;	/* updates as datagrams */
static int	serving_port;	/* our TCP port, as told to a portmapper */
static unsigned int incarnation;	/* drawn at start-up, never 0 */

/* The dispatcher rpcgen writes in collector_rpc_svc.c. */
void	collector_prog_1(struct svc_req *, SVCXPRT *);


/*
 * The stored ad that the ad X (off the wire) will replace, or NULL: its
 * unchanged attributes need not be parsed again.
 */
static struct ad *
stored_ad(int adtype, const ad_x *x)
{
	struct ad *old = NULL;
	struct value v;
	u_int i;

	if (x == NULL || x->attrs.attrs_val == NULL)
		return NULL;
	for (i = 0; i < x->attrs.attrs_len; i++) {
		const attr_x *a = &x->attrs.attrs_val[i];

		if (a->name == NULL || a->text == NULL ||
		    strcasecmp(a->name, "Name") != 0)
			continue;
		expr_eval_text(a->text, NULL, NULL, &v);
		if (v.type == VAL_STRING)
			old = store_find(adtype, v.u.s);
		value_free(&v);
		break;
	}
	return old;
}

/*
 * Take one ad off the wire and store it.  Returns 0, or an errno with a
 * message in RES.
 */
static int
accept_ad(int adtype, const ad_x *x, const char *from,
    const struct sockaddr_in *peer, status_x *res)
{
	char err[256];
	const char *mytype;
	struct ad *ad, *old;
	long long total = 0, lost = 0, seq, oldseq;

	if (adtype < ADTYPE_STARTD || adtype > ADTYPE_MAX) {
		rpc_status(res, EINVAL, "unknown ad type");
		return EINVAL;
	}
	old = stored_ad(adtype, x);
	if (old != NULL) {
		ad_get_int(old, "UpdatesTotal", &total);
		ad_get_int(old, "UpdatesLost", &lost);
		if (ad_get_int(old, "UpdateSequenceNumber", &oldseq) == -1)
			oldseq = -1;
	}
	if ((ad = ad_from_xdr_reuse(x, old, err, sizeof(err))) == NULL) {
		log_warnx("bad ad from %s: %s", from, err);
		rpc_status(res, EINVAL, "%s", err);
		return EINVAL;
	}
	/* Updates that never came (UDP promises nothing) show as gaps in
	 * a daemon's UpdateSequenceNumber; a smaller one is a restart. */
	if (old != NULL && oldseq >= 0 &&
	    ad_get_int(ad, "UpdateSequenceNumber", &seq) == 0 &&
	    seq > oldseq + 1 && seq - oldseq - 1 < 1000000)
		lost += seq - oldseq - 1;
	mytype = collector_adtype_name(adtype);
	ad_set_string(ad, "MyType", mytype);
	ad_set_int(ad, "LastHeardFrom", (long long)time(NULL));
	ad_set_int(ad, "UpdatesTotal", total + 1);
	ad_set_int(ad, "UpdatesLost", lost);
	if (store_update(adtype, ad, time(NULL), peer) == -1) {
		log_warnx("ad from %s has no Name", from);
		ad_free(ad);
		rpc_status(res, EINVAL, "the ad has no Name");
		return EINVAL;
	}
	return 0;
}

bool_t
collector_null_1_svc(void *arg, void *res, struct svc_req *req)
{
	return TRUE;
}

/*
 * Where a datagram came from, into SIN; NULL if REQ came over TCP (a
 * connection's port is no address to send to later).
 */
static const struct sockaddr_in *
datagram_peer(struct svc_req *req, struct sockaddr_in *sin)
{
	struct netbuf *nb;

	if (req->rq_xprt != udp_xprt ||
	    (nb = svc_getrpccaller(req->rq_xprt)) == NULL ||
	    nb->buf == NULL || nb->len < sizeof(*sin))
		return NULL;
	memcpy(sin, nb->buf, sizeof(*sin));
	return sin->sin_family == AF_INET && sin->sin_port != 0 ? sin : NULL;
}

/* An update, answered or not; 0 if the ad was taken. */
static int
update(collector_update_x *arg, status_x *res, struct svc_req *req)
{
	struct sockaddr_in sin;
	char from[64];

	rpc_caller_ip(req, from, sizeof(from));
	if (!rpc_host_allowed(req, "HOSTALLOW_WRITE")) {
		log_warnx("update from %s refused (HOSTALLOW_WRITE)", from);
		rpc_status(res, EPERM, "not allowed to advertise");
		return EPERM;
	}
	if (accept_ad(arg->adtype, &arg->ad, from, datagram_peer(req, &sin),
	    res) != 0)
		return res->code;
	rpc_status_ok(res);
	return 0;
}

bool_t
collector_update_1_svc(collector_update_x *arg, status_x *res,
    struct svc_req *req)
{
	update(arg, res, req);
	/* No one waits for the answer to a datagram: none is sent. */
	return req->rq_xprt != udp_xprt;
}

/*
 * The same, answered even as a datagram (a daemon's first ad), with our
 * incarnation: the answer is smaller than the request, so a forged
 * sender gains nothing by it.
 */
bool_t
collector_update_acked_1_svc(collector_update_x *arg, collector_ack_x *res,
    struct svc_req *req)
{
	status_x st;

	memset(&st, 0, sizeof(st));
	res->code = update(arg, &st, req);
	res->incarnation = incarnation;
	xdr_free((xdrproc_t)xdr_status_x, (char *)&st);
	return TRUE;
}

/* COLLECTOR_PEER_PROG is what we send to daemons; we never serve it. */
bool_t
collector_peer_readvertise_1_svc(collector_prompt_x *arg, void *res,
    struct svc_req *req)
{
	return FALSE;
}

int
collector_peer_prog_1_freeresult(SVCXPRT *xprt, xdrproc_t xres, caddr_t res)
{
	xdr_free(xres, res);
	return 1;
}

bool_t
collector_update_many_1_svc(collector_updates_x *arg, status_x *res,
    struct svc_req *req)
{
	char from[64];
	u_int i;

	rpc_caller_ip(req, from, sizeof(from));
	if (!rpc_host_allowed(req, "HOSTALLOW_WRITE")) {
		log_warnx("update from %s refused (HOSTALLOW_WRITE)", from);
		rpc_status(res, EPERM, "not allowed to advertise");
		return TRUE;
	}
	for (i = 0; i < arg->ads.ads_len; i++) {
		if (accept_ad(arg->adtype, &arg->ads.ads_val[i], from, NULL,
		    res) != 0)
			return TRUE;	/* the ones before it are kept */
	}
	rpc_status_ok(res);
	return TRUE;
}

struct query_state {
	struct expr		*constraint;
	collector_query_res_x	*res;
	u_int			 cap;
	char			**names;	/* projection, or NULL */
	size_t			 nnames;
	int			 daemon;	/* sees claim ids */
};

static void
query_one(struct ad *ad, void *arg)
{
	struct query_state *q = arg;
	struct value v;
	int match = 1;

	if (q->constraint != NULL) {
		expr_eval(q->constraint, ad, NULL, &v);
		match = value_is_true(&v);
		value_free(&v);
	}
	if (!match || q->res->ads.ads_len >= COLLECTOR_MAX_ADS)
		return;
	if (q->res->ads.ads_len == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 64;
		q->res->ads.ads_val = xreallocarray(q->res->ads.ads_val,
		    q->cap, sizeof(ad_x));
	}
	/* The reply borrows the stored ads' texts: nothing changes them
	 * before it is sent, and collector_prog_1_freeresult knows. */
	ad_to_xdr_view(ad, (const char *const *)q->names,
	    q->nnames, &q->res->ads.ads_val[q->res->ads.ads_len]);
	if (!q->daemon)
		auth_strip_private(&q->res->ads.ads_val[q->res->ads.ads_len],
		    0);
	q->res->ads.ads_len++;
}

bool_t
collector_query_1_svc(collector_query_x *arg, collector_query_res_x *res,
    struct svc_req *req)
{
	struct query_state q;
	char err[256], from[64];

	memset(res, 0, sizeof(*res));
	memset(&q, 0, sizeof(q));
	q.res = res;
	q.daemon = auth_caller_is_daemon();
	res->message = xstrdup("");
	if (!rpc_host_allowed(req, "HOSTALLOW_READ")) {
		rpc_caller_ip(req, from, sizeof(from));
		log_warnx("query from %s refused (HOSTALLOW_READ)", from);
		res->code = EPERM;
		free(res->message);
		res->message = xstrdup("not allowed to query");
		return TRUE;
	}
	if (arg->adtype < 0 || arg->adtype > ADTYPE_MAX) {
		res->code = EINVAL;
		free(res->message);
		res->message = xstrdup("unknown ad type");
		return TRUE;
	}
	if (arg->constraint != NULL && *arg->constraint != '\0') {
		q.constraint = expr_parse(arg->constraint, err, sizeof(err));
		if (q.constraint == NULL) {
			res->code = EINVAL;
			free(res->message);
			res->message = xasprintf("constraint: %s", err);
			return TRUE;
		}
	}
	if (arg->projection != NULL && *arg->projection != '\0') {
		char *copy = xstrdup(arg->projection), *tok, *save = NULL;

		for (tok = strtok_r(copy, ", \t", &save); tok != NULL &&
		    q.nnames < AD_MAX_ATTRS; tok = strtok_r(NULL, ", \t",
		    &save)) {
			q.names = xreallocarray(q.names, q.nnames + 1,
			    sizeof(*q.names));
			q.names[q.nnames++] = xstrdup(tok);
		}
		free(copy);
	}
	store_foreach(arg->adtype, query_one, &q);
	expr_free(q.constraint);
	while (q.nnames > 0)
		free(q.names[--q.nnames]);
	free(q.names);
	return TRUE;
}

bool_t
collector_invalidate_1_svc(collector_invalidate_x *arg, status_x *res,
    struct svc_req *req)
{
	char from[64];

	if (!rpc_host_allowed(req, "HOSTALLOW_WRITE")) {
		rpc_caller_ip(req, from, sizeof(from));
		log_warnx("invalidation from %s refused (HOSTALLOW_WRITE)",
		    from);
		rpc_status(res, EPERM, "not allowed to invalidate");
		return TRUE;
	}
	if (arg->name == NULL ||
	    store_invalidate(arg->adtype, arg->name) == -1) {
		rpc_status(res, ENOENT, "no such ad");
		return TRUE;
	}
	log_info("ad of %s invalidated", arg->name);
	rpc_status_ok(res);
	return TRUE;
}

int
collector_prog_1_freeresult(SVCXPRT *xprt, xdrproc_t xres, caddr_t res)
{
	if (xres == (xdrproc_t)xdr_collector_query_res_x) {
		/* The ads in a query reply are views of the store. */
		collector_query_res_x *q = (collector_query_res_x *)res;
		u_int i;

		for (i = 0; i < q->ads.ads_len; i++)
			ad_x_free_view(&q->ads.ads_val[i]);
		free(q->ads.ads_val);
		q->ads.ads_val = NULL;
		q->ads.ads_len = 0;
	}
	xdr_free(xres, res);
	return 1;
}

/*
 * Every request, over TCP or UDP (one dispatcher per program).  Over
 * UDP only updates (one-way) and the null procedure: anything else
 * could need a reply bigger than a datagram.
 */
static void
collector_dispatch(struct svc_req *req, SVCXPRT *xprt)
{
	if (xprt == udp_xprt && req->rq_proc != NULLPROC &&
	    req->rq_proc != COLLECTOR_UPDATE &&
	    req->rq_proc != COLLECTOR_UPDATE_ACKED) {
		svcerr_noproc(xprt);
		return;
	}
	collector_prog_1(req, xprt);
}

static void
expire_tick(void *arg)
{
	long lifetime = param_int("CLASSAD_LIFETIME", 900);
	double period = lifetime / 4.0;

	store_expire(time(NULL), lifetime);
	if (period > 60)
		period = 60;
	if (period < 1)
		period = 1;
	expire_timer = event_timer_add(period, expire_tick, NULL);
}

/*
 * The TCP and UDP sockets on one port number: COLLECTOR_HOST's, or for
 * port 0 (any) the one of our last address file if it is free again (a
 * collector the master restarts keeps its address), else any whose UDP
 * twin is free too.  0 with *TCP, *UDP and BOUND set, or -1.
 */
static int
collector_listen(int *tcp, int *udp, struct sockaddr_in *bound)
{
	struct sockaddr_in want, last;
	const char *host = param("COLLECTOR_HOST");
	const char *bindaddr = param("BIND_ADDRESS");
	int bufsize = (int)param_int("COLLECTOR_SOCKET_BUFSIZE", 10240000);
	int any, port, try;
	char *prev;

	if (addr_parse(host, &want) == -1) {
		log_warnx("COLLECTOR_HOST \"%s\" is not host:port",
		    host ? host : "");
		return -1;
	}
	port = ntohs(want.sin_port);
	any = port == 0;
	if (any && (prev = daemon_read_address("collector")) != NULL) {
		if (addr_parse(prev, &last) == 0)
			port = ntohs(last.sin_port);
		free(prev);
	}
	for (try = 0; try < 20; try++) {
		*tcp = rpc_listen_tcp(bindaddr, port, bound);
		if (*tcp == -1 && any && port != 0) {
			port = 0;	/* the last port is taken: any */
			continue;
		}
		if (*tcp == -1) {
			log_warn("cannot listen on %s port %d", bindaddr, port);
			return -1;
		}
		/* Updates as datagrams, on the same port number. */
		*udp = rpc_listen_udp(bindaddr, ntohs(bound->sin_port),
		    bufsize);
		if (*udp != -1)
			return 0;
		log_warn("cannot listen for updates on UDP port %u",
		    ntohs(bound->sin_port));
		close(*tcp);
		if (!any)
			return -1;
		port = 0;
	}
	return -1;
}

static int
collector_init(int argc, char **argv)
{
	struct sockaddr_in bound;
	char addr[ADDR_STRLEN];
	int fd, ufd;

	if (collector_listen(&fd, &ufd, &bound) == -1)
		return -1;
	rpc_keepalive(fd);
	if (rpc_serve(fd, PROG_COLLECTOR, 1, collector_dispatch) == NULL)
		return -1;
	fd = ufd;
	if ((udp_xprt = rpc_serve_udp(fd, PROG_COLLECTOR, 1,
	    collector_dispatch)) == NULL)
		return -1;
	event_rpc_gather(fd, param_double("COLLECTOR_UPDATE_GATHER", 0.05));
	store_init();
	if (history_init() == -1)
		return -1;
	if (getentropy(&incarnation, sizeof(incarnation)) == -1)
		incarnation = (unsigned int)time(NULL) ^
		    (unsigned int)getpid() << 16;
	if (incarnation == 0)
		incarnation = 1;
	peers_init(fd, incarnation);
	serving_port = ntohs(bound.sin_port);
	/* A collector on any port (a personal pool's, one per user) is
	 * found through its address file, not the portmapper. */
	if (!collector_port_any())
		rpc_portmap_set(PROG_COLLECTOR, 1, serving_port);
	addr_format(&bound, addr);
	daemon_write_address("collector", addr);
	log_info("serving at %s", addr);
	expire_timer = event_timer_add(1, expire_tick, NULL);
	return 0;
}

static void
collector_reconfig(void)
{
	if (udp_xprt != NULL)
		event_rpc_gather(udp_xprt->xp_fd,
		    param_double("COLLECTOR_UPDATE_GATHER", 0.05));
	event_timer_cancel(expire_timer);
	expire_timer = event_timer_add(0, expire_tick, NULL);
	history_reconfig();
}

static void
collector_shutdown(void)
{
	peers_shutdown();
	if (!collector_port_any())
		rpc_portmap_unset(PROG_COLLECTOR, 1, serving_port);
}

static const struct daemon_ops collector_ops = {
	.name = "collector",
	.subsys = "COLLECTOR",
	.drop_privs = 1,
	.init = collector_init,
	.reconfig = collector_reconfig,
	.shutdown = collector_shutdown,
};

int
main(int argc, char **argv)
{
	return daemon_main(argc, argv, &collector_ops);
}
