/*
 * collector_client.c: the client side of collector.x.
 *
 * Periodic ads go as one-way datagrams.  A daemon's first ad of each
 * type, its first after a configuration change and its first after the
 * collector asked (COLLECTOR_PEER_READVERTISE: the collector restarted)
 * go as COLLECTOR_UPDATE_ACKED instead, repeated from the event loop at
 * a growing interval (RETRY_FIRST, times RETRY_GROWTH each time, at most
 * RETRY_MAX) until the collector answers: an ad sent while the
 * collector is still starting is not lost for a whole update interval.
 * An update over TCP (as configured, or too big for a datagram) is
 * answered; one that failed is tried again at the same intervals until
 * one goes.  Nothing here waits for the collector: the answers and the
 * collector's requests are read when the loop finds them (or at the
 * next update).
 *
 * A collector on any free port (COLLECTOR_HOST port 0, a personal pool)
 * is looked up in its address file before each call and each send;
 * when it moved, the kept connection and the datagram socket are made
 * afresh and each ad is sent again until acknowledged.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad.h"
#include "collector_rpc.h"
#include "collector_client.h"
#include "config.h"
#include "daemon.h"
#include "event.h"
#include "log.h"
#include "rpcutil.h"
#include "xalloc.h"

#define RETRY_FIRST	0.1	/* seconds before the first repeat */
#define RETRY_MAX	4.0	/* seconds, at most, between repeats */
#define RETRY_GROWTH	1.5	/* each interval the last one times this */
#define PROMPT_MIN_GAP	5.0	/* seconds between two prompts taken */

static CLIENT *collector_cl;
static struct rpc_dgram *collector_udp;	/* updates as datagrams */
static char *collector_at;	/* the address both were opened to */

/* The latest ad of each type, as sent, and whether the collector has it. */
struct advert {
	int		have;		/* bytes hold an ad */
	int		acked;		/* the collector said it took one */
	char		bytes[RPC_MAX_DATAGRAM];  /* collector_update_x */
	u_int		len;
	uint32_t	first_xid;	/* of this round of acknowledged sends */
	int		tries;		/* sends in this round */
	double		delay;		/* seconds until the next */
	long		timer;
	struct ad	*tcp_ad;	/* to send again over TCP, or NULL */
	double		tcp_delay;	/* seconds until then */
	long		tcp_timer;
};
static struct advert adverts[ADTYPE_MAX + 1];
static unsigned int incarnation;	/* the collector's, once answered */
static int	incarnation_known;
static double	last_prompt = -1e9;	/* monotime() of the last one taken */

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

/* Forget the kept connection, not the datagram socket. */
static void
tcp_close(void)
{
	rpc_close(collector_cl);
	collector_cl = NULL;
}

void
collector_disconnect(void)
{
	int t;

	tcp_close();
	if (collector_udp != NULL)
		event_fd_del(rpc_dgram_fd(collector_udp));
	rpc_dgram_close(collector_udp);
	collector_udp = NULL;
	/* COLLECTOR_HOST may name another collector now: the next ad of
	 * each type is sent until it is acknowledged. */
	for (t = 0; t <= ADTYPE_MAX; t++) {
		adverts[t].acked = 0;
		adverts[t].have = 0;
		event_timer_cancel(adverts[t].timer);
		adverts[t].timer = 0;
	}
}

int
collector_port_any(void)
{
	const char *host = param("COLLECTOR_HOST"), *colon;

	if (host == NULL || (colon = strrchr(host, ':')) == NULL)
		return 0;
	return strspn(colon + 1, "0") == strlen(colon + 1) &&
	    colon[1] != '\0';
}

char *
collector_address(char *err, size_t errlen)
{
	const char *host = param("COLLECTOR_HOST");
	char *addr;

	if (host == NULL || *host == '\0') {
		snprintf(err, errlen, "COLLECTOR_HOST is not set");
		return NULL;
	}
	if (!collector_port_any())
		return xstrdup(host);
	if ((addr = daemon_read_address("collector")) == NULL ||
	    *addr == '\0') {
		free(addr);
		snprintf(err, errlen, "the collector (COLLECTOR_HOST %s: any "
		    "port) has not written its address in %s/"
		    ".collector_address: is it running?", host,
		    param("LOG") ? param("LOG") : "$(LOG)");
		return NULL;
	}
	return addr;
}

/*
 * The collector's address now, and if it is not where the kept
 * connection and datagram socket lead, close them: the next ad of each
 * type is sent until acknowledged, as after a restart.
 */
static const char *
collector_target(char *err, size_t errlen)
{
	char *addr;
	int t;

	if ((addr = collector_address(err, errlen)) == NULL)
		return NULL;
	if (collector_at != NULL && strcmp(collector_at, addr) != 0) {
		log_info("the collector is now at %s (was %s)", addr,
		    collector_at);
		tcp_close();
		if (collector_udp != NULL)
			event_fd_del(rpc_dgram_fd(collector_udp));
		rpc_dgram_close(collector_udp);
		collector_udp = NULL;
		for (t = 0; t <= ADTYPE_MAX; t++)
			adverts[t].acked = 0;
		incarnation_known = 0;
	}
	free(collector_at);
	collector_at = addr;
	return addr;
}

static void	tcp_retry(void *);

/*
 * After an update of ADTYPE over TCP: AD (the ad that failed) is sent
 * again later, at growing intervals; NULL (it went) stops that.
 */
static void
tcp_pending(int adtype, const struct ad *ad)
{
	struct advert *a = &adverts[adtype];

	ad_free(a->tcp_ad);
	a->tcp_ad = NULL;
	if (ad == NULL) {
		event_timer_cancel(a->tcp_timer);
		a->tcp_timer = 0;
		a->tcp_delay = 0;
		return;
	}
	a->tcp_ad = ad_copy(ad);
	if (a->tcp_timer == 0) {
		a->tcp_delay = a->tcp_delay <= 0 ? RETRY_FIRST :
		    a->tcp_delay * RETRY_GROWTH;
		if (a->tcp_delay > RETRY_MAX)
			a->tcp_delay = RETRY_MAX;
		a->tcp_timer = event_timer_add(a->tcp_delay, tcp_retry,
		    (void *)(long)adtype);
	}
}

static void
tcp_retry(void *arg)
{
	int adtype = (int)(long)arg;
	struct advert *a = &adverts[adtype];
	struct ad *ad = a->tcp_ad;
	char err[256];

	a->tcp_timer = 0;
	if (ad == NULL)
		return;
	a->tcp_ad = NULL;
	if (collector_update(adtype, ad, err, sizeof(err)) == -1)
		log_debug("cannot update the collector: %s", err);
	else
		log_info("the collector took our %s ad",
		    collector_adtype_name(adtype));
	ad_free(ad);
}

static CLIENT *
collector_client(char *err, size_t errlen)
{
	const char *addr;

	if ((addr = collector_target(err, errlen)) == NULL)
		return NULL;
	if (collector_cl == NULL)
		collector_cl = rpc_connect(addr, PROG_COLLECTOR, 1,
		    (int)param_int("RPC_TIMEOUT", 20), err, errlen);
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
		tcp_close();
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

/* Encoded bytes, as an xdrproc_t's argument. */
struct raw {
	const char	*buf;
	u_int		 len;
};

static bool_t
xdr_raw(XDR *x, void *arg)
{
	struct raw *r = arg;

	return xdr_opaque(x, (char *)r->buf, r->len);
}

static void	dgram_readable(int, short, void *);

static struct rpc_dgram *
dgram_open(char *err, size_t errlen)
{
	const char *addr;

	if ((addr = collector_target(err, errlen)) == NULL)
		return NULL;
	if (collector_udp == NULL) {
		collector_udp = rpc_dgram_open(addr, PROG_COLLECTOR, 1, err,
		    errlen);
		if (collector_udp != NULL)
			event_fd_add(rpc_dgram_fd(collector_udp), POLLIN,
			    dgram_readable, NULL);
	}
	return collector_udp;
}

/* Send the latest ad of ADTYPE as PROC.  0, or -1 with a message. */
static int
advert_send(int adtype, unsigned long proc, char *err, size_t errlen)
{
	struct advert *a = &adverts[adtype];
	struct raw r = { a->bytes, a->len };

	if (dgram_open(err, errlen) == NULL)
		return -1;
	return rpc_dgram_send(collector_udp, proc, (xdrproc_t)xdr_raw, &r, err,
	    errlen) == 0 ? 0 : -1;
}

static void	advert_retry(void *);

/*
 * Send the latest ad of ADTYPE to be acknowledged, and go on sending it
 * at a growing interval until it is.  0 if this send went out, -1 with
 * a message if not (the repeats go on).
 */
static int
advert_send_acked(int adtype, char *err, size_t errlen)
{
	struct advert *a = &adverts[adtype];
	int r;

	r = advert_send(adtype, COLLECTOR_UPDATE_ACKED, err, errlen);
	if (r == 0 && a->tries++ == 0)
		a->first_xid = rpc_dgram_xid(collector_udp);
	if (a->timer == 0) {
		if (a->delay <= 0)
			a->delay = RETRY_FIRST;
		a->timer = event_timer_add(a->delay, advert_retry,
		    (void *)(long)adtype);
	}
	return r;
}

static void
advert_retry(void *arg)
{
	int adtype = (int)(long)arg;
	struct advert *a = &adverts[adtype];
	char err[256];

	a->timer = 0;
	if (a->acked || !a->have)
		return;
	a->delay *= RETRY_GROWTH;
	if (a->delay > RETRY_MAX)
		a->delay = RETRY_MAX;
	if (advert_send_acked(adtype, err, sizeof(err)) == -1)
		log_debug("cannot send our ad to the collector: %s", err);
}

/* Start a round of acknowledged sends of ADTYPE's latest ad. */
static int
advert_round(int adtype, char *err, size_t errlen)
{
	struct advert *a = &adverts[adtype];

	a->acked = 0;
	a->tries = 0;
	a->delay = 0;
	event_timer_cancel(a->timer);
	a->timer = 0;
	return advert_send_acked(adtype, err, errlen);
}

/* The collector answered COLLECTOR_UPDATE_ACKED call XID. */
static void
ack_received(uint32_t xid)
{
	collector_ack_x ack;
	uint32_t last = rpc_dgram_xid(collector_udp);
	int t;

	memset(&ack, 0, sizeof(ack));
	if (rpc_dgram_decode(collector_udp, (xdrproc_t)xdr_collector_ack_x,
	    &ack) == -1)
		return;
	for (t = 0; t <= ADTYPE_MAX; t++) {
		struct advert *a = &adverts[t];

		if (a->acked || !a->have || a->tries == 0 ||
		    xid - a->first_xid > last - a->first_xid)
			continue;
		if (ack.code != 0)
			log_warnx("the collector refuses our %s ad: %s",
			    collector_adtype_name(t), strerror(ack.code));
		else if (a->tries > 1)
			log_info("the collector has our %s ad (sent %d times)",
			    collector_adtype_name(t), a->tries);
		/* A refusal is final too: repeating would not change it. */
		a->acked = 1;
		event_timer_cancel(a->timer);
		a->timer = 0;
	}
	incarnation = ack.incarnation;
	incarnation_known = 1;
}

/*
 * The collector asks for our ads again: it restarted.  Only our
 * collector's datagrams reach the connected socket; one prompt in
 * PROMPT_MIN_GAP seconds is taken, and none from the incarnation that
 * already answered us.
 */
static void
prompt_received(void)
{
	collector_prompt_x p;
	char err[256];
	double now = monotime();
	int t;

	memset(&p, 0, sizeof(p));
	if (rpc_dgram_decode(collector_udp, (xdrproc_t)xdr_collector_prompt_x,
	    &p) == -1)
		return;
	if (incarnation_known && p.incarnation == incarnation)
		return;
	if (now - last_prompt < PROMPT_MIN_GAP) {
		log_debug("collector prompt ignored: too soon after the last");
		return;
	}
	last_prompt = now;
	log_info("the collector restarted: sending our ads again");
	for (t = 0; t <= ADTYPE_MAX; t++)
		if (adverts[t].have &&
		    advert_round(t, err, sizeof(err)) == -1)
			log_debug("cannot send our ad to the collector: %s",
			    err);
}

/* Take every datagram waiting on the update socket. */
static void
dgram_drain(void)
{
	struct rpc_dgram_msg m;
	int kind, n;

	for (n = 0; collector_udp != NULL && n < 64; n++) {
		kind = rpc_dgram_recv(collector_udp, &m);
		if (kind == -1) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			continue;	/* a refused send: the repeats go on */
		}
		if (kind == RPC_DGRAM_REPLY)
			ack_received(m.xid);
		else if (kind == RPC_DGRAM_CALL &&
		    m.prog == PROG_COLLECTOR_PEER && m.vers == 1 &&
		    m.proc == COLLECTOR_PEER_READVERTISE)
			prompt_received();
	}
}

static void
dgram_readable(int fd, short revents, void *arg)
{
	dgram_drain();
}

/*
 * Encode the update into ADTYPE's advert: 0, or -1 if it does not fit
 * in a datagram.
 */
static int
advert_set(int adtype, collector_update_x *arg)
{
	struct advert *a = &adverts[adtype];
	XDR x;
	int ok;

	/* Room for the call's header, which the datagram also holds. */
	xdrmem_create(&x, a->bytes, sizeof(a->bytes) - 64, XDR_ENCODE);
	ok = xdr_collector_update_x(&x, arg);
	a->len = xdr_getpos(&x);
	xdr_destroy(&x);
	a->have = ok;
	return ok ? 0 : -1;
}

int
collector_update(int adtype, const struct ad *ad, char *err, size_t errlen)
{
	collector_update_x arg;
	status_x res;
	int r;

	if (adtype < ADTYPE_STARTD || adtype > ADTYPE_MAX) {
		snprintf(err, errlen, "unknown ad type %d", adtype);
		return -1;
	}
	memset(&arg, 0, sizeof(arg));
	memset(&res, 0, sizeof(res));
	arg.adtype = adtype;
	ad_to_xdr(ad, &arg.ad);
	if (!param_bool("UPDATE_COLLECTOR_WITH_TCP", 0) &&
	    advert_set(adtype, &arg) == 0) {
		ad_x_free(&arg.ad);
		dgram_drain();	/* answers not yet seen by the loop */
		if (adverts[adtype].acked)
			r = advert_send(adtype, COLLECTOR_UPDATE, err, errlen);
		else if (adverts[adtype].tries == 0)
			r = advert_round(adtype, err, errlen);
		else
			r = advert_send_acked(adtype, err, errlen);
		return r;
	}
	/* Over TCP, answered: as asked, or too big for a datagram. */
	r = collector_call(COLLECTOR_UPDATE,
	    (xdrproc_t)xdr_collector_update_x, &arg,
	    (xdrproc_t)xdr_status_x, &res, err, errlen);
	ad_x_free(&arg.ad);
	if (r == 0)
		r = status_result(&res, err, errlen);
	tcp_pending(adtype, r == -1 ? ad : NULL);
	return r;
}

int
collector_update_acked(int adtype)
{
	if (adtype < 0 || adtype > ADTYPE_MAX)
		return 1;
	dgram_drain();
	return adverts[adtype].acked || adverts[adtype].tries == 0;
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
