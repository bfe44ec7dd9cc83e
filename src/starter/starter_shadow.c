/*
 * starter_shadow.c: the starter's side of SHADOW_PROG.
 *
 * One connection, opened once; every call is synchronous and times out
 * after RPC_TIMEOUT.  A call that gets no answer means the shadow (or
 * the network to the submitting host) is gone, and with it any reason
 * to run the job: the caller kills the job and leaves.  Unless the job
 * has a lease (JobLeaseDuration): then the starter is only
 * disconnected, the job runs on, and the starter tries to come back on
 * a new connection (SHADOW_RECONNECT) until the lease, counted from the
 * last answered call, is over.  A shadow that refuses connections is
 * no reason to give up early: the schedd may start a new one, which the
 * startd names to us (shadow_redirect).  Files move in
 * SHADOW_CHUNK pieces, straight between the socket and the disk, so a
 * large executable or output never sits whole in memory.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "event.h"
#include "log.h"
#include "rpcutil.h"
#include "shadow_rpc.h"
#include "starter.h"
#include "xalloc.h"

static CLIENT	*shadow;
static char	 shadow_addr[ADDR_STRLEN * 2];
static int	 lost;		/* a call went unanswered */
static int	 disconnected;	/* ... but the job's lease lets it run on */
static long	 lease;		/* seconds; 0: none */
static double	 last_ok;	/* monotime of the last answered call */
static char	*lease_capability, *lease_host;
static int	 refused;	/* said once: the shadow's port refuses us */
static int	 leaving;	/* the shadow said it is going away */

/*
 * CODE and MESSAGE, a reply of the shadow's: ESHUTDOWN says the shadow
 * is going away on purpose (the job was removed or held).  Then no
 * lease holds the job here: the shadow is lost for good, and whoever
 * calls next stops the job and the starter (shadow_is_leaving).
 */
static void
heard(int code, const char *message)
{
	if (code != ESHUTDOWN || leaving)
		return;
	leaving = 1;
	lost = 1;
	log_info("the shadow at %s is going away on purpose (%s): stopping "
	    "the job", shadow_addr, message ? message : "");
}

int
shadow_is_leaving(void)
{
	return leaving;
}

int
shadow_is_lost(void)
{
	return lost;
}

int
shadow_connect(const char *addr)
{
	char err[512];
	long timeout = param_int("RPC_TIMEOUT", 20);

	snprintf(shadow_addr, sizeof(shadow_addr), "%s", addr);
	shadow = rpc_connect(addr, PROG_SHADOW, 1, (int)(timeout > 0 ?
	    timeout : 20), err, sizeof(err));
	if (shadow == NULL) {
		lost = 1;
		log_warnx("cannot reach the shadow: %s", err);
		return -1;
	}
	return 0;
}

void
shadow_disconnect(void)
{
	rpc_close(shadow);
	shadow = NULL;
}

/* One call; -1 (logged) if the shadow did not answer. */
static int
call(unsigned long proc, const char *what, xdrproc_t xargs, void *args,
    xdrproc_t xres, void *res)
{
	char err[256];

	if (shadow == NULL || lost)
		return -1;
	if (rpc_invoke(shadow, proc, xargs, args, xres, res, err,
	    sizeof(err)) == -1) {
		if (lease > 0) {
			disconnected = 1;
			log_warnx("the shadow at %s did not answer %s: %s; the "
			    "job runs on under its lease (%.0f s left)",
			    shadow_addr, what, err, shadow_lease_left());
			rpc_close(shadow);
			shadow = NULL;
			return -1;
		}
		lost = 1;
		log_warnx("the shadow at %s did not answer %s: %s",
		    shadow_addr, what, err);
		return -1;
	}
	last_ok = monotime();
	return 0;
}

void
shadow_set_lease(long seconds, const char *capability, const char *host)
{
	lease = seconds > 0 ? seconds : 0;
	free(lease_capability);
	free(lease_host);
	lease_capability = xstrdup(capability ? capability : "");
	lease_host = xstrdup(host ? host : "");
	last_ok = monotime();
}

int
shadow_is_disconnected(void)
{
	return disconnected && !lost;
}

double
shadow_lease_left(void)
{
	return last_ok + (double)lease - monotime();
}

int
shadow_reconnect(void)
{
	char err[512];
	long timeout = param_int("RPC_TIMEOUT", 20);
	status_x res;
	hello_x h;
	CLIENT *cl;

	if (!disconnected || lost)
		return disconnected ? -1 : 0;
	cl = rpc_connect(shadow_addr, PROG_SHADOW, 1, (int)(timeout > 0 &&
	    timeout < 5 ? timeout : 5), err, sizeof(err));
	if (cl == NULL && errno == ECONNREFUSED && !refused) {
		/* Its host answers, nothing listens: the shadow died.  A
		 * new one may come (shadow_redirect) while the lease
		 * lasts; a removed or held job's claim is released. */
		log_warnx("the shadow at %s is gone (%s); waiting for a new "
		    "one", shadow_addr, err);
		refused = 1;
	}
	if (cl == NULL)
		return -1;
	h.capability = lease_capability;
	h.starter_host = lease_host;
	h.starter_pid = (int)getpid();
	memset(&res, 0, sizeof(res));
	if (rpc_invoke(cl, SHADOW_RECONNECT, (xdrproc_t)xdr_hello_x, &h,
	    (xdrproc_t)xdr_status_x, &res, err, sizeof(err)) == -1) {
		rpc_close(cl);
		return -1;
	}
	if (res.code != 0) {
		/* The shadow is there and will not have us: it gave up. */
		log_warnx("the shadow at %s refused our reconnection: %s",
		    shadow_addr, res.message ? res.message : "");
		xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
		rpc_close(cl);
		lost = 1;
		return -1;
	}
	xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
	shadow = cl;
	disconnected = 0;
	last_ok = monotime();
	log_info("reconnected to the shadow at %s", shadow_addr);
	return 0;
}

void
shadow_redirect(const char *addr)
{
	if (lease == 0 || lost) {
		log_warnx("told of a new shadow at %s, but the job has no "
		    "lease left here", addr);
		return;
	}
	log_info("the job has a new shadow at %s", addr);
	snprintf(shadow_addr, sizeof(shadow_addr), "%s", addr);
	refused = 0;
	if (!disconnected) {
		rpc_close(shadow);
		shadow = NULL;
		disconnected = 1;
	}
}

int
shadow_hello(const char *capability, const char *host, hello_res_x *res)
{
	hello_x h;

	h.capability = (char *)capability;
	h.starter_host = (char *)host;
	h.starter_pid = (int)getpid();
	memset(res, 0, sizeof(*res));
	return call(SHADOW_HELLO, "HELLO", (xdrproc_t)xdr_hello_x, &h,
	    (xdrproc_t)xdr_hello_res_x, res);
}

int
shadow_get_file(int which, int fd, long long limit, long long *got,
    char *err, size_t errlen)
{
	get_res_x res;
	get_x g;
	long long off = 0;
	ssize_t n;
	size_t w;
	int eof = 0;

	while (!eof) {
		g.which = which;
		g.offset = off;
		g.length = SHADOW_CHUNK;
		memset(&res, 0, sizeof(res));
		if (call(SHADOW_GET, "GET", (xdrproc_t)xdr_get_x, &g,
		    (xdrproc_t)xdr_get_res_x, &res) == -1) {
			snprintf(err, errlen, "the shadow is gone");
			return -1;
		}
		if (res.code != 0) {
			int code = res.code;

			heard(code, res.message);
			snprintf(err, errlen, "%s", res.message ?
			    res.message : "refused");
			xdr_free((xdrproc_t)xdr_get_res_x, (char *)&res);
			return code;
		}
		if (limit >= 0 && off + res.data.data_len > limit) {
			snprintf(err, errlen, "the shadow sent more than the "
			    "%lld bytes it announced", limit);
			xdr_free((xdrproc_t)xdr_get_res_x, (char *)&res);
			return EFBIG;
		}
		for (w = 0; w < res.data.data_len; w += (size_t)n) {
			n = write(fd, res.data.data_val + w,
			    res.data.data_len - w);
			if (n == -1 && errno == EINTR) {
				n = 0;
				continue;
			}
			if (n <= 0) {
				snprintf(err, errlen, "cannot write: %s",
				    n == 0 ? "short write" : strerror(errno));
				xdr_free((xdrproc_t)xdr_get_res_x,
				    (char *)&res);
				return EIO;
			}
		}
		off += res.data.data_len;
		eof = res.eof || res.data.data_len == 0;
		xdr_free((xdrproc_t)xdr_get_res_x, (char *)&res);
	}
	*got = off;
	return 0;
}

int
shadow_xfer_open(char *addr, size_t addrlen, char *err, size_t errlen)
{
	xfer_open_res_x res;
	int code;

	memset(&res, 0, sizeof(res));
	if (call(SHADOW_XFER_OPEN, "XFER_OPEN", (xdrproc_t)rpc_xdr_nothing,
	    NULL, (xdrproc_t)xdr_xfer_open_res_x, &res) == -1) {
		snprintf(err, errlen, "the shadow is gone");
		return -1;
	}
	code = res.code;
	heard(code, res.message);
	snprintf(err, errlen, "%s", res.message ? res.message : "");
	snprintf(addr, addrlen, "%s", res.addr ? res.addr : "");
	xdr_free((xdrproc_t)xdr_xfer_open_res_x, (char *)&res);
	return code;
}

int
shadow_input_list(int start, xfer_list_res_x *res)
{
	memset(res, 0, sizeof(*res));
	return call(SHADOW_INPUT_LIST, "INPUT_LIST", (xdrproc_t)xdr_int,
	    &start, (xdrproc_t)xdr_xfer_list_res_x, res);
}

/* One call answered with a status_x: its code, or -1 (shadow gone). */
static int
call_status(unsigned long proc, const char *what, xdrproc_t xargs,
    void *args, char *err, size_t errlen)
{
	status_x res;
	int code;

	memset(&res, 0, sizeof(res));
	if (call(proc, what, xargs, args, (xdrproc_t)xdr_status_x,
	    &res) == -1) {
		snprintf(err, errlen, "the shadow is gone");
		return -1;
	}
	code = res.code;
	heard(code, res.message);
	snprintf(err, errlen, "%s", res.message ? res.message : "");
	xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
	return code;
}

int
shadow_output_begin(xfer_begin_x *b, char *err, size_t errlen)
{
	return call_status(SHADOW_OUTPUT_BEGIN, "OUTPUT_BEGIN",
	    (xdrproc_t)xdr_xfer_begin_x, b, err, errlen);
}

int
shadow_output_end(long long size, unsigned crc, char *err, size_t errlen)
{
	xfer_end_x e;

	e.size = size;
	e.crc32c = crc;
	return call_status(SHADOW_OUTPUT_END, "OUTPUT_END",
	    (xdrproc_t)xdr_xfer_end_x, &e, err, errlen);
}

int
shadow_put(int which, long long offset, const char *data, size_t len)
{
	status_x res;
	put_x p;
	int code;

	p.which = which;
	p.offset = offset;
	p.data.data_val = (char *)data;
	p.data.data_len = (u_int)len;
	memset(&res, 0, sizeof(res));
	if (call(SHADOW_PUT, "PUT", (xdrproc_t)xdr_put_x, &p,
	    (xdrproc_t)xdr_status_x, &res) == -1)
		return -1;
	code = res.code;
	heard(code, res.message);
	if (code != 0 && !leaving)
		log_warnx("the shadow refused output: %s", res.message ?
		    res.message : "");
	xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
	return code;
}

int
shadow_ship(int which, int fd, long long *sent, long long max, int *more)
{
	static char chunk[SHADOW_CHUNK];
	long long shipped = 0;
	ssize_t n;
	int r;

	*more = 0;
	while (shipped < max) {
		n = pread(fd, chunk, sizeof(chunk), (off_t)*sent);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			log_warn("cannot read the job's output");
			return 0;
		}
		if (n == 0)
			return 0;
		if ((r = shadow_put(which, *sent, chunk, (size_t)n)) == -1)
			return -1;
		if (r != 0)
			return 0;	/* refused: logged, the job goes on */
		*sent += n;
		shipped += n;
	}
	*more = 1;
	return 0;
}

int
shadow_ckpt_commit(ckpt_commit_x *c, char *err, size_t errlen)
{
	status_x res;
	int code;

	memset(&res, 0, sizeof(res));
	if (call(SHADOW_CKPT_COMMIT, "CKPT_COMMIT",
	    (xdrproc_t)xdr_ckpt_commit_x, c, (xdrproc_t)xdr_status_x,
	    &res) == -1)
		return -1;
	code = res.code;
	heard(code, res.message);
	snprintf(err, errlen, "%s", res.message ? res.message : "");
	xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
	return code;
}

int
shadow_event(int event, const char *text)
{
	status_x res;
	event_x e;

	e.event = event;
	e.text = (char *)(text ? text : "");
	memset(&res, 0, sizeof(res));
	if (call(SHADOW_EVENT, "EVENT", (xdrproc_t)xdr_event_x, &e,
	    (xdrproc_t)xdr_status_x, &res) == -1)
		return -1;
	heard(res.code, res.message);
	xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
	return 0;
}

int
shadow_null(void)
{
	return call(SHADOW_NULL, "NULL", (xdrproc_t)rpc_xdr_nothing, NULL,
	    (xdrproc_t)rpc_xdr_nothing, NULL);
}

int
shadow_exit(exit_x *x)
{
	status_x res;

	memset(&res, 0, sizeof(res));
	if (call(SHADOW_EXIT, "EXIT", (xdrproc_t)xdr_exit_x, x,
	    (xdrproc_t)xdr_status_x, &res) == -1)
		return -1;
	heard(res.code, res.message);
	if (res.code != 0 && !leaving)
		log_warnx("the shadow refused the exit report: %s",
		    res.message ? res.message : "");
	xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
	return 0;
}
