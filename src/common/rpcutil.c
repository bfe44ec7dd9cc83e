/*
 * rpcutil.c: Sun RPC helpers over libtirpc (see rpcutil.h).
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <netdb.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rpc/rpc.h>
#include <rpc/rpc_com.h>

#include "auth.h"
#include "config.h"
#include "event.h"
#include "log.h"
#include "rpcutil.h"
#include "xalloc.h"

int
addr_parse(const char *text, struct sockaddr_in *out)
{
	char host[256];
	const char *colon, *end;
	struct addrinfo hints, *res;
	size_t hlen;
	char *ep;
	long port;

	if (text == NULL)
		return -1;
	while (isspace((unsigned char)*text))
		text++;
	if (*text == '<')
		text++;
	end = text + strcspn(text, ">? \t\n");
	colon = NULL;
	for (const char *p = text; p < end; p++)
		if (*p == ':')
			colon = p;
	if (colon == NULL || colon == text)
		return -1;
	hlen = (size_t)(colon - text);
	if (hlen >= sizeof(host))
		return -1;
	memcpy(host, text, hlen);
	host[hlen] = '\0';
	errno = 0;
	port = strtol(colon + 1, &ep, 10);
	if (ep != end || ep == colon + 1 || port < 0 || port > 65535 ||
	    errno != 0)
		return -1;
	memset(out, 0, sizeof(*out));
	out->sin_family = AF_INET;
	out->sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, host, &out->sin_addr) == 1)
		return 0;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, NULL, &hints, &res) != 0)
		return -1;
	out->sin_addr = ((struct sockaddr_in *)res->ai_addr)->sin_addr;
	freeaddrinfo(res);
	return 0;
}

char *
addr_format(const struct sockaddr_in *sin, char *buf)
{
	char ip[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip));
	snprintf(buf, ADDR_STRLEN, "<%s:%u>", ip, ntohs(sin->sin_port));
	return buf;
}

char *
addr_advertised(const struct sockaddr_in *bound, const char *host, char *buf)
{
	struct sockaddr_in sin = *bound, h;
	char *text;

	if (sin.sin_addr.s_addr == htonl(INADDR_ANY)) {
		text = xasprintf("%s:0", host != NULL ? host : "");
		if (addr_parse(text, &h) == 0)
			sin.sin_addr = h.sin_addr;
		else
			sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		free(text);
	}
	return addr_format(&sin, buf);
}

/* BINDADDR ("", "*" or an IPv4 address) and PORT into SIN. */
static int
bind_address(const char *bindaddr, int port, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)port);
	if (bindaddr == NULL || *bindaddr == '\0' ||
	    strcmp(bindaddr, "*") == 0)
		sin->sin_addr.s_addr = htonl(INADDR_ANY);
	else if (inet_pton(AF_INET, bindaddr, &sin->sin_addr) != 1) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int
rpc_listen_tcp(const char *bindaddr, int port, struct sockaddr_in *bound)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int fd, on = 1;

	if (bind_address(bindaddr, port, &sin) == -1)
		return -1;
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(fd, 128) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	if (bound != NULL)
		*bound = sin;
	return fd;
}

void
rpc_keepalive(int fd)
{
	int on = 1, idle = 60, intvl = 10, cnt = 6;

	if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on)) == -1 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle,
	    sizeof(idle)) == -1 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl,
	    sizeof(intvl)) == -1 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt)) == -1)
		log_warn("cannot set TCP keepalive");
}

int
rpc_listen_udp(const char *bindaddr, int port, int bufsize)
{
	struct sockaddr_in sin;
	int fd;

	if (bind_address(bindaddr, port, &sin) == -1)
		return -1;
	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0)) == -1)
		return -1;
	/* A burst of updates waits in the socket, not lost: past
	 * net.core.rmem_max where we may (root), within it otherwise. */
	if (bufsize > 0 && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE,
	    &bufsize, sizeof(bufsize)) == -1)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bufsize,
		    sizeof(bufsize));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

int
rpc_listen_unix(const char *path)
{
	struct sockaddr_un sun;
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    chmod(path, 0666) == -1 || listen(fd, 128) == -1) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

/*
 * A transport decodes a request's arguments for the dispatcher, and when
 * the decoding fails halfway libtirpc leaves what it allocated so far to
 * the dispatcher, which (as rpcgen writes it) never frees it: each
 * malformed request would leak.  A transport's operations are replaced,
 * before its first request, by a copy whose xp_getargs frees on
 * failure; one copy per kind of transport (connection, datagram...).
 */
#define FIXED_OPS_MAX	4

static struct {
	const struct xp_ops	*orig;
	struct xp_ops		 fixed;
} fixed_ops[FIXED_OPS_MAX];
static int	nfixed_ops;

static bool_t
getargs_or_free(SVCXPRT *xprt, xdrproc_t proc, void *where)
{
	int i;

	for (i = 0; i < nfixed_ops; i++)
		if (xprt->xp_ops == &fixed_ops[i].fixed)
			break;
	if (i == nfixed_ops)
		return FALSE;
	/* Arguments that came with a MAC were read and checked already. */
	switch (auth_getargs(xprt, proc, where)) {
	case 1:
		return TRUE;
	case 0:
		xdr_free(proc, where);
		return FALSE;
	}
	if (fixed_ops[i].orig->xp_getargs(xprt, proc, where))
		return TRUE;
	xdr_free(proc, where);
	return FALSE;
}

bool_t
rpc_xprt_getargs_raw(SVCXPRT *xprt, xdrproc_t proc, void *where)
{
	int i;

	for (i = 0; i < nfixed_ops; i++)
		if (xprt->xp_ops == &fixed_ops[i].fixed)
			return fixed_ops[i].orig->xp_getargs(xprt, proc, where);
	return xprt->xp_ops->xp_getargs(xprt, proc, where);
}

int
rpc_xprt_free_on_decode_error(SVCXPRT *xprt)
{
	int i;

	for (i = 0; i < nfixed_ops; i++) {
		if (xprt->xp_ops == &fixed_ops[i].fixed)
			return 0;
		if (xprt->xp_ops == fixed_ops[i].orig) {
			xprt->xp_ops = &fixed_ops[i].fixed;
			return 0;
		}
	}
	if (nfixed_ops == FIXED_OPS_MAX)
		return -1;
	fixed_ops[i].orig = xprt->xp_ops;
	fixed_ops[i].fixed = *xprt->xp_ops;
	fixed_ops[i].fixed.xp_getargs = getargs_or_free;
	nfixed_ops++;
	xprt->xp_ops = &fixed_ops[i].fixed;
	return 0;
}

/* What each program's requests go to, behind dispatch_fixed. */
#define SERVED_MAX	8

static struct {
	unsigned long	 prog, vers;
	void		(*dispatch)(struct svc_req *, SVCXPRT *);
} served[SERVED_MAX];
static int	nserved;

static void
dispatch_fixed(struct svc_req *req, SVCXPRT *xprt)
{
	int i;

	if (rpc_xprt_free_on_decode_error(xprt) == -1) {
		log_warnx("too many kinds of RPC transport");
		svcerr_systemerr(xprt);
		return;
	}
	for (i = 0; i < nserved; i++)
		if (served[i].prog == req->rq_prog &&
		    served[i].vers == req->rq_vers) {
			/* Nothing is dispatched that its caller may not ask. */
			if (auth_check(req, xprt) == 0)
				served[i].dispatch(req, xprt);
			auth_request_done();
			return;
		}
	auth_request_done();
	svcerr_noprog(xprt);
}

/* Serve PROG on XPRT (made by CREATED), from the event loop. */
static SVCXPRT *
serve_xprt(SVCXPRT *xprt, const char *created, unsigned long prog,
    unsigned long vers, void (*dispatch)(struct svc_req *, SVCXPRT *))
{
	int i;

	if (xprt == NULL) {
		log_warnx("%s failed", created);
		return NULL;
	}
	for (i = 0; i < nserved; i++)
		if (served[i].prog == prog && served[i].vers == vers)
			break;
	if (i == nserved && nserved == SERVED_MAX) {
		log_warnx("svc_register %#lx: too many programs", prog);
		svc_destroy(xprt);
		return NULL;
	}
	if (i == nserved)
		nserved++;
	auth_server_init();
	served[i].prog = prog;
	served[i].vers = vers;
	served[i].dispatch = dispatch;
	/* Protocol 0: register with the dispatcher only, not rpcbind. */
	if (!svc_register(xprt, prog, vers, dispatch_fixed, 0)) {
		log_warnx("svc_register %#lx failed", prog);
		svc_destroy(xprt);
		return NULL;
	}
	event_rpc_enable();
	return xprt;
}

SVCXPRT *
rpc_serve(int fd, unsigned long prog, unsigned long vers,
    void (*dispatch)(struct svc_req *, SVCXPRT *))
{
	static int configured;

	if (!configured) {
		int maxrec = RPC_MAX_RECORD;

		/* Non-blocking connections with bounded records: a peer
		 * that sends half a request cannot stall the daemon, and
		 * none can make us allocate more than RPC_MAX_RECORD. */
		if (!rpc_control(RPC_SVC_CONNMAXREC_SET, &maxrec))
			log_warnx("cannot bound RPC record size");
		configured = 1;
	}
	return serve_xprt(svc_vc_create(fd, 0, 0), "svc_vc_create", prog,
	    vers, dispatch);
}

/*
 * A listening transport's xp_recv accepts one connection per call, and
 * the loop calls it once per turn: a burst of N clients would be taken
 * one a turn, their calls served one a turn.  The copy below takes all
 * that wait (up to ACCEPT_BATCH), so their calls are served together in
 * the next turn.  The socket is made non-blocking: a client gone
 * between poll() and accept() must not stall the daemon.
 */
#define ACCEPT_BATCH	256

static const struct xp_ops	*listen_orig;
static struct xp_ops		 listen_ops;

static bool_t
accept_waiting(SVCXPRT *xprt, struct rpc_msg *msg)
{
	struct pollfd p;
	int k;

	for (k = 0; k < ACCEPT_BATCH; k++) {
		(void)listen_orig->xp_recv(xprt, msg);
		p.fd = xprt->xp_fd;
		p.events = POLLIN;
		p.revents = 0;
		if (poll(&p, 1, 0) != 1 || (p.revents & POLLIN) == 0)
			break;
	}
	return FALSE;	/* a listener never has a call of its own */
}

int
rpc_accept_all(SVCXPRT *xprt)
{
	int fl;

	if (listen_orig != NULL && xprt->xp_ops != listen_orig &&
	    xprt->xp_ops != &listen_ops) {
		errno = EINVAL;	/* another kind of transport */
		return -1;
	}
	if ((fl = fcntl(xprt->xp_fd, F_GETFL)) == -1 ||
	    fcntl(xprt->xp_fd, F_SETFL, fl | O_NONBLOCK) == -1)
		return -1;
	if (listen_orig == NULL) {
		listen_orig = xprt->xp_ops;
		listen_ops = *listen_orig;
		listen_ops.xp_recv = accept_waiting;
	}
	xprt->xp_ops = &listen_ops;
	return 0;
}

SVCXPRT *
rpc_serve_udp(int fd, unsigned long prog, unsigned long vers,
    void (*dispatch)(struct svc_req *, SVCXPRT *))
{
	return serve_xprt(svc_dg_create(fd, RPC_MAX_DATAGRAM,
	    RPC_MAX_DATAGRAM), "svc_dg_create", prog, vers, dispatch);
}

void
rpc_status(status_x *res, int code, const char *fmt, ...)
{
	char msg[ERRSTR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	res->code = code;
	res->message = xstrdup(msg);
}

void
rpc_status_ok(status_x *res)
{
	res->code = 0;
	res->message = xstrdup("");
}

/* Where rpcbind listens locally; libtirpc talks to it there first. */
#define RPCBIND_SOCKET	"/run/rpcbind.sock"

/*
 * The "tcp" transport for the local rpcbind (freenetconfigent it), or
 * NULL where none listens: without the socket libtirpc would try the
 * network and wait.
 */
static struct netconfig *
portmap_tcp(void)
{
	if (access(RPCBIND_SOCKET, W_OK) == -1)
		return NULL;
	return getnetconfigent("tcp");
}

void
rpc_portmap_set(unsigned long prog, unsigned long vers, int port)
{
	struct netconfig *nc;
	struct sockaddr_in sin;
	struct netbuf nb;

	if ((nc = portmap_tcp()) == NULL)
		return;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	nb.buf = &sin;
	nb.len = nb.maxlen = sizeof(sin);
	rpcb_unset(prog, vers, nc);
	if (rpcb_set(prog, vers, nc, &nb))
		log_info("registered with the local portmapper");
	freenetconfigent(nc);
}

void
rpc_portmap_unset(unsigned long prog, unsigned long vers, int port)
{
	struct netconfig *nc;
	struct sockaddr_in sin;
	struct netbuf nb;

	if ((nc = portmap_tcp()) == NULL)
		return;
	memset(&sin, 0, sizeof(sin));
	nb.buf = &sin;
	nb.len = 0;
	nb.maxlen = sizeof(sin);
	if (rpcb_getaddr(prog, vers, nc, &nb, "127.0.0.1") &&
	    nb.len == sizeof(sin) && sin.sin_family == AF_INET &&
	    ntohs(sin.sin_port) == port)
		rpcb_unset(prog, vers, nc);
	freenetconfigent(nc);
}

/* Connect FD to SA within TIMEOUT seconds. */
static int
connect_timeout(int fd, const struct sockaddr *sa, socklen_t salen,
    int timeout)
{
	struct pollfd pfd;
	int fl, r, soerr = 0;
	socklen_t len = sizeof(soerr);

	fl = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	r = connect(fd, sa, salen);
	if (r == -1 && errno != EINPROGRESS)
		return -1;
	if (r == -1) {
		pfd.fd = fd;
		pfd.events = POLLOUT;
		do {
			r = poll(&pfd, 1, timeout * 1000);
		} while (r == -1 && errno == EINTR);
		if (r == 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (r == -1)
			return -1;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == -1)
			return -1;
		if (soerr != 0) {
			errno = soerr;
			return -1;
		}
	}
	fcntl(fd, F_SETFL, fl);
	return 0;
}

static CLIENT *
client_on_fd(int fd, struct sockaddr *sa, socklen_t salen,
    unsigned long prog, unsigned long vers, int timeout)
{
	struct netbuf nb;
	struct timeval tv;
	CLIENT *cl;

	nb.buf = sa;
	nb.len = nb.maxlen = salen;
	cl = clnt_vc_create(fd, &nb, prog, vers, RPC_MAX_FRAGMENT, 0);
	if (cl == NULL)
		return NULL;
	clnt_control(cl, CLSET_FD_CLOSE, NULL);
	tv.tv_sec = timeout;
	tv.tv_usec = 0;
	clnt_control(cl, CLSET_TIMEOUT, (char *)&tv);
	/* Over TCP a caller proves itself with its key or token; on a Unix
	 * socket the kernel says who it is. */
	if (sa->sa_family == AF_INET)
		auth_client_attach(cl, prog, vers);
	return cl;
}

/* addr_parse, with "bad address" in ERR and EINVAL when it fails. */
static int
parse_address(const char *addr, struct sockaddr_in *sin, char *err,
    size_t errlen)
{
	if (addr_parse(addr, sin) == 0)
		return 0;
	if (err != NULL)
		snprintf(err, errlen, "bad address \"%s\"", addr ? addr : "");
	errno = EINVAL;
	return -1;
}

/*
 * A client on the stream socket FD (-1: socket() failed, errno says why)
 * once it connects to SA within TIMEOUT seconds; NULL with FD closed and
 * "cannot connect to NAME: why" in ERR otherwise.
 */
static CLIENT *
connect_client(int fd, struct sockaddr *sa, socklen_t salen,
    const char *name, unsigned long prog, unsigned long vers, int timeout,
    char *err, size_t errlen)
{
	CLIENT *cl;

	if (fd == -1)
		goto fail;
	if (connect_timeout(fd, sa, salen, timeout) == -1) {
		int saved = errno;

		close(fd);
		errno = saved;
		goto fail;
	}
	cl = client_on_fd(fd, sa, salen, prog, vers, timeout);
	if (cl == NULL) {
		close(fd);
		errno = ECONNREFUSED;
		goto fail;
	}
	return cl;
fail:
	if (err != NULL)
		snprintf(err, errlen, "cannot connect to %s: %s", name,
		    strerror(errno));
	return NULL;
}

CLIENT *
rpc_connect(const char *addr, unsigned long prog, unsigned long vers,
    int timeout, char *err, size_t errlen)
{
	struct sockaddr_in sin;
	int fd, on = 1;

	if (parse_address(addr, &sin, err, errlen) == -1)
		return NULL;
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) != -1)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
	return connect_client(fd, (struct sockaddr *)&sin, sizeof(sin), addr,
	    prog, vers, timeout, err, errlen);
}

CLIENT *
rpc_connect_unix(const char *path, unsigned long prog, unsigned long vers,
    int timeout, char *err, size_t errlen)
{
	struct sockaddr_un sun;
	int fd = -1;

	if (strlen(path) >= sizeof(sun.sun_path))
		errno = ENAMETOOLONG;
	else {
		memset(&sun, 0, sizeof(sun));
		sun.sun_family = AF_UNIX;
		memcpy(sun.sun_path, path, strlen(path) + 1);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	}
	return connect_client(fd, (struct sockaddr *)&sun, sizeof(sun), path,
	    prog, vers, timeout, err, errlen);
}

/*
 * A one-way sender: its socket (connected to the receiver, so that only
 * the receiver's datagrams reach it), the last call's xid, a buffer for
 * the datagram to send and one for a datagram received.
 */
struct rpc_dgram {
	int			fd;
	unsigned long		prog, vers;
	uint32_t		xid;
	char			buf[RPC_MAX_DATAGRAM];
	char			inbuf[RPC_DGRAM_MAX_IN];
	XDR			in;	/* over inbuf, after rpc_dgram_recv */
	int			in_ok;
	char		       *args;	/* a call's checked arguments */
};

struct rpc_dgram *
rpc_dgram_open(const char *addr, unsigned long prog, unsigned long vers,
    char *err, size_t errlen)
{
	struct rpc_dgram *d;
	struct sockaddr_in sin;
	int fd;

	if (parse_address(addr, &sin, err, errlen) == -1)
		return NULL;
	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0)) == -1 || connect(fd, (struct sockaddr *)&sin,
	    sizeof(sin)) == -1) {
		if (err != NULL)
			snprintf(err, errlen, "datagram socket to %s: %s",
			    addr, strerror(errno));
		if (fd != -1)
			close(fd);
		return NULL;
	}
	d = xcalloc(1, sizeof(*d));
	d->fd = fd;
	d->prog = prog;
	d->vers = vers;
	d->xid = (uint32_t)getpid() << 16 ^ (uint32_t)time(NULL);
	return d;
}

/*
 * Encode a call of PROG/VERS/PROC with XID into BUF (LEN bytes).  Returns
 * its length, 0 if it does not fit.  The call is encoded here rather than
 * by clnt_dg_call, which with no time to wait returns before it sends
 * anything.
 */
static u_int
dgram_encode(char *buf, u_int len, uint32_t xid, unsigned long prog,
    unsigned long vers, unsigned long proc, xdrproc_t xargs, void *args)
{
	uint32_t w[6] = { xid, CALL, RPC_MSG_VERSION, (uint32_t)prog,
	    (uint32_t)vers, (uint32_t)proc };
	XDR x;
	u_int n;
	int ok = 1, i;

	xdrmem_create(&x, buf, len, XDR_ENCODE);
	for (i = 0; i < 6 && ok; i++)
		ok = xdr_u_int32_t(&x, &w[i]);
	/* The credential and the arguments, with their MAC if we can. */
	ok = ok && auth_dgram_encode(&x, prog, vers, proc, xargs, args);
	n = xdr_getpos(&x);
	xdr_destroy(&x);
	return ok ? n : 0;
}

int
rpc_dgram_send(struct rpc_dgram *d, unsigned long proc, xdrproc_t xargs,
    void *args, char *err, size_t errlen)
{
	u_int len;

	len = dgram_encode(d->buf, sizeof(d->buf), ++d->xid, d->prog,
	    d->vers, proc, xargs, args);
	if (len == 0) {
		if (err != NULL)
			snprintf(err, errlen, "the request does not fit in "
			    "a datagram");
		return -2;
	}
	if (send(d->fd, d->buf, len, 0) != (ssize_t)len) {
		if (err != NULL)
			snprintf(err, errlen, "send: %s", strerror(errno));
		return -1;
	}
	return 0;
}

uint32_t
rpc_dgram_xid(const struct rpc_dgram *d)
{
	return d->xid;
}

int
rpc_dgram_fd(const struct rpc_dgram *d)
{
	return d->fd;
}

/* Step over an opaque_auth (flavor, then at most MAX_AUTH_BYTES). */
static int
skip_auth(XDR *x)
{
	uint32_t flavor, len;

	if (!xdr_u_int32_t(x, &flavor) || !xdr_u_int32_t(x, &len) ||
	    len > MAX_AUTH_BYTES)
		return 0;
	return xdr_setpos(x, xdr_getpos(x) + ((len + 3) & ~3u));
}

/*
 * A call's credential, then its arguments: those of a pool key's
 * holder, checked, go where rpc_dgram_decode reads; a call without a
 * credential is taken only by a process that has no key to check one.
 */
static int
dgram_call_args(struct rpc_dgram *d, unsigned long prog, unsigned long vers,
    unsigned long proc)
{
	char cred[MAX_AUTH_BYTES];
	uint32_t flavor, len;
	u_int alen;

	if (!xdr_u_int32_t(&d->in, &flavor) || !xdr_u_int32_t(&d->in, &len) ||
	    len > MAX_AUTH_BYTES || !xdr_opaque(&d->in, cred, len) ||
	    !skip_auth(&d->in))
		return 0;
	if (flavor != AUTH_CONDOR)
		return !auth_have_pool_key();
	if (auth_dgram_verify(cred, len, prog, vers, proc, &d->in, &d->args,
	    &alen) == -1)
		return 0;
	xdr_destroy(&d->in);
	xdrmem_create(&d->in, d->args, alen, XDR_DECODE);
	return 1;
}

int
rpc_dgram_recv(struct rpc_dgram *d, struct rpc_dgram_msg *m)
{
	uint32_t w[5];
	ssize_t n;
	int i;

	memset(m, 0, sizeof(*m));
	if (d->in_ok)
		xdr_destroy(&d->in);
	d->in_ok = 0;
	free(d->args);
	d->args = NULL;
	n = recv(d->fd, d->inbuf, sizeof(d->inbuf), MSG_DONTWAIT | MSG_TRUNC);
	if (n == -1)
		return -1;
	if ((size_t)n > sizeof(d->inbuf))
		return 0;	/* too long for anything we take */
	xdrmem_create(&d->in, d->inbuf, (u_int)n, XDR_DECODE);
	d->in_ok = 1;
	if (!xdr_u_int32_t(&d->in, &m->xid) ||
	    !xdr_u_int32_t(&d->in, &w[0]))
		return 0;
	if (w[0] == CALL) {
		for (i = 1; i < 5; i++)
			if (!xdr_u_int32_t(&d->in, &w[i]))
				return 0;
		if (w[1] != RPC_MSG_VERSION || !dgram_call_args(d, w[2],
		    w[3], w[4]))
			return 0;
		m->prog = w[2];
		m->vers = w[3];
		m->proc = w[4];
		return RPC_DGRAM_CALL;
	}
	if (w[0] != REPLY || !xdr_u_int32_t(&d->in, &w[1]) ||
	    w[1] != MSG_ACCEPTED || !skip_auth(&d->in) ||
	    !xdr_u_int32_t(&d->in, &w[2]) || w[2] != SUCCESS)
		return 0;
	return RPC_DGRAM_REPLY;
}

int
rpc_dgram_decode(struct rpc_dgram *d, xdrproc_t xdecode, void *obj)
{
	if (!d->in_ok || !xdecode(&d->in, obj)) {
		xdr_free(xdecode, obj);
		return -1;
	}
	return 0;
}

int
rpc_dgram_call_to(int fd, const struct sockaddr_in *to, unsigned long prog,
    unsigned long vers, unsigned long proc, xdrproc_t xargs, void *args)
{
	static uint32_t xid;
	char buf[RPC_DGRAM_MAX_IN];
	u_int len;

	if (xid == 0)
		xid = (uint32_t)getpid() << 16 ^ (uint32_t)time(NULL);
	len = dgram_encode(buf, sizeof(buf), ++xid, prog, vers, proc, xargs,
	    args);
	if (len == 0) {
		errno = EMSGSIZE;
		return -1;
	}
	if (sendto(fd, buf, len, MSG_DONTWAIT, (const struct sockaddr *)to,
	    sizeof(*to)) != (ssize_t)len)
		return -1;
	return 0;
}

void
rpc_dgram_close(struct rpc_dgram *d)
{
	if (d == NULL)
		return;
	if (d->in_ok)
		xdr_destroy(&d->in);
	free(d->args);
	close(d->fd);
	free(d);
}

bool_t
rpc_xdr_nothing(XDR *xdrs, void *p)
{
	return TRUE;
}

void
rpc_close(CLIENT *cl)
{
	if (cl != NULL)
		clnt_destroy(cl);
}

void
rpc_auth_error(CLIENT *cl, unsigned long proc, char *err, size_t errlen)
{
	const struct auth_rule *rule;
	struct rpc_err e;
	unsigned long prog = 0;
	const char *who = auth_client_identity(), *why;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char local[96];
	struct passwd *pw;
	int fd = -1;

	if (err == NULL)
		return;
	/* On a Unix socket the daemon knew us by our uid. */
	if (clnt_control(cl, CLGET_FD, (char *)&fd) && fd != -1 &&
	    getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 &&
	    ss.ss_family == AF_UNIX) {
		pw = getpwuid(geteuid());
		snprintf(local, sizeof(local), "local user %s", pw ?
		    pw->pw_name : "?");
		who = local;
	}
	clnt_geterr(cl, &e);
	clnt_control(cl, CLGET_PROG, (char *)&prog);
	rule = auth_rule_of(prog, proc);
	switch (e.re_why) {
	case AUTH_TOOWEAK:
		why = "not allowed";
		break;
	case AUTH_REJECTEDVERF:
		why = "its credential was refused (wrong key or token, or "
		    "a replay)";
		break;
	case AUTH_REJECTEDCRED:
		why = "its credential was refused (expired, or the clocks "
		    "differ by more than SEC_MAX_CLOCK_SKEW)";
		break;
	default:
		why = "its credential was refused";
		break;
	}
	snprintf(err, errlen, "permission denied: %s needs %s; the call as "
	    "%s was %s (the daemon's log says more)",
	    rule ? rule->proc : "the procedure",
	    rule ? auth_level_name(rule->level) : "more",
	    who ? who : "an unauthenticated caller", why);
}

int
rpc_invoke(CLIENT *cl, unsigned long proc, xdrproc_t xargs, void *args,
    xdrproc_t xres, void *res, char *err, size_t errlen)
{
	struct timeval tv;
	enum clnt_stat st;

	clnt_control(cl, CLGET_TIMEOUT, (char *)&tv);
	auth_client_proc(cl, proc);
	st = clnt_call(cl, proc, xargs, args, xres, res, tv);
	if (st == RPC_AUTHERROR) {
		rpc_auth_error(cl, proc, err, errlen);
		return -1;
	}
	if (st != RPC_SUCCESS) {
		if (err != NULL)
			snprintf(err, errlen, "%s", clnt_sperrno(st));
		return -1;
	}
	return 0;
}

int
rpc_caller_uid(struct svc_req *req, uid_t *uid)
{
	struct sockaddr_storage ss;
	struct ucred cred;
	socklen_t len = sizeof(ss), clen = sizeof(cred);
	int fd = req->rq_xprt->xp_fd;

	if (getsockname(fd, (struct sockaddr *)&ss, &len) == -1 ||
	    ss.ss_family != AF_UNIX)
		return -1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == -1)
		return -1;
	*uid = cred.uid;
	return 0;
}

void
rpc_caller_ip(struct svc_req *req, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int fd = req->rq_xprt->xp_fd;

	if (getpeername(fd, (struct sockaddr *)&ss, &sl) == -1) {
		/* A datagram's sender is the transport's, not the socket's. */
		struct netbuf *nb = svc_getrpccaller(req->rq_xprt);

		if (errno != ENOTCONN || nb == NULL || nb->buf == NULL ||
		    nb->len > sizeof(ss)) {
			snprintf(buf, len, "unknown");
			return;
		}
		memset(&ss, 0, sizeof(ss));
		memcpy(&ss, nb->buf, nb->len);
	}
	if (ss.ss_family == AF_UNIX)
		snprintf(buf, len, "local");
	else if (ss.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr,
		    buf, (socklen_t)len);
	else
		snprintf(buf, len, "unknown");
}

int
host_list_match(const char *list, const char *ip)
{
	char *copy, *tok, *save = NULL;
	int found = 0;

	if (list == NULL)
		return 0;
	copy = xstrdup(list);
	for (tok = strtok_r(copy, ", \t", &save); tok != NULL && !found;
	    tok = strtok_r(NULL, ", \t", &save)) {
		struct sockaddr_in sin;
		char probe[300], ipbuf[INET_ADDRSTRLEN];

		if (fnmatch(tok, ip, 0) == 0) {
			found = 1;
			break;
		}
		if (strpbrk(tok, "*?[") != NULL)
			continue;
		/* A host name: compare its address. */
		snprintf(probe, sizeof(probe), "%s:0", tok);
		if (addr_parse(probe, &sin) == 0 &&
		    inet_ntop(AF_INET, &sin.sin_addr, ipbuf,
		    sizeof(ipbuf)) != NULL && strcmp(ipbuf, ip) == 0)
			found = 1;
	}
	free(copy);
	return found;
}

int
rpc_host_allowed(struct svc_req *req, const char *param_name)
{
	char ip[INET6_ADDRSTRLEN + 8];

	rpc_caller_ip(req, ip, sizeof(ip));
	if (strcmp(ip, "local") == 0)
		return 1;
	return host_list_match(param(param_name), ip);
}
