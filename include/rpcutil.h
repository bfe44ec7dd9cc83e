/*
 * rpcutil.h: Sun RPC (libtirpc) without a portmapper.
 *
 * Daemons bind their own sockets and register their programs with
 * protocol 0 (no rpcbind); clients connect to a known address.  An
 * address is written "<ip:port>" as in the ads; "ip:port" and
 * "host:port" are accepted too.
 */
#ifndef CONDOR_RPCUTIL_H
#define CONDOR_RPCUTIL_H

#include <sys/types.h>
#include <netinet/in.h>
#include <rpc/rpc.h>

#include "condor_types.h"

#define ADDR_STRLEN	64
/*
 * A request travels as one record fragment: libtirpc's non-blocking
 * server (which keeps a slow peer from stalling a daemon) misreads
 * records of several fragments, and a client fragment is at most 256 KiB.
 * So every request must stay below RPC_MAX_FRAGMENT bytes; bulk data
 * moves in chunks well under it.  Replies have no such limit.
 */
#define RPC_MAX_FRAGMENT	(256 * 1024)	/* bytes in one request */
#define RPC_MAX_RECORD		RPC_MAX_FRAGMENT
/*
 * A one-way request over UDP (collector updates) is one datagram of at
 * most this many bytes, which crosses an Ethernet as six fragments at
 * most; a bigger request goes over TCP instead.
 */
#define RPC_MAX_DATAGRAM	8800

/* Program numbers (the user-defined range). */
#define PROG_COLLECTOR	0x2c0d0001
#define PROG_MASTER	0x2c0d0002
#define PROG_STARTD	0x2c0d0003
#define PROG_SCHEDD	0x2c0d0004
#define PROG_NEGOTIATOR	0x2c0d0005
#define PROG_SHADOW	0x2c0d0006
#define PROG_STARTER	0x2c0d0007
#define PROG_COLLECTOR_PEER 0x2c0d0008	/* collector to daemons */

/* addr_parse: fill OUT from TEXT; -1 if TEXT is not an address. */
int	 addr_parse(const char *text, struct sockaddr_in *out);
/* addr_format: "<ip:port>" into BUF (at least ADDR_STRLEN bytes). */
char	*addr_format(const struct sockaddr_in *, char *buf);
/*
 * addr_advertised: the address to advertise for a socket bound to BOUND:
 * a wildcard bind is advertised as HOST's address, or the loopback
 * address if HOST does not resolve.  Into BUF (ADDR_STRLEN bytes).
 */
char	*addr_advertised(const struct sockaddr_in *bound, const char *host,
	    char *buf);

/*
 * rpc_listen_tcp: a listening TCP socket on BINDADDR:PORT (PORT 0: any
 * free port); the address actually bound goes to BOUND.  -1 on error.
 * rpc_listen_unix: the same for a Unix-domain socket at PATH, which any
 * local user may connect to (the server checks SO_PEERCRED).
 */
int	 rpc_listen_tcp(const char *bindaddr, int port,
	    struct sockaddr_in *bound);
int	 rpc_listen_unix(const char *path);
/*
 * rpc_keepalive: TCP keepalive on a daemon's command port, which the
 * connections it accepts inherit, so that a client whose host vanished
 * (a half-open connection) is noticed within about two minutes and its
 * descriptor freed.  Not for a shadow's ports, whose peers' silence the
 * job's lease judges.
 */
void	 rpc_keepalive(int fd);
/*
 * rpc_listen_udp: a non-blocking datagram socket on BINDADDR:PORT whose
 * receive buffer holds BUFSIZE bytes (0: the system's default), for
 * one-way requests; rpc_serve_udp serves PROG on it (with the same
 * DISPATCH as over TCP: libtirpc keeps one per program).
 */
int	 rpc_listen_udp(const char *bindaddr, int port, int bufsize);
SVCXPRT	*rpc_serve_udp(int fd, unsigned long prog, unsigned long vers,
	    void (*dispatch)(struct svc_req *, SVCXPRT *));

/*
 * rpc_serve: serve PROG/VERS with DISPATCH on the listening socket FD,
 * through the event loop.  Requests are read without blocking and are
 * bounded by RPC_MAX_RECORD.  Returns NULL on failure.
 */
SVCXPRT	*rpc_serve(int fd, unsigned long prog, unsigned long vers,
	    void (*dispatch)(struct svc_req *, SVCXPRT *));

/*
 * rpc_accept_all: make the listening transport XPRT (rpc_serve's) accept
 * every connection waiting when it is ready, not one per turn of the
 * loop, so that a burst of clients is served in one turn (the schedd
 * then syncs its queue once for all of them).  0, or -1 with errno.
 */
int	 rpc_accept_all(SVCXPRT *xprt);

/*
 * rpc_xprt_free_on_decode_error: make XPRT free what a failed decoding
 * of a request's arguments allocated (libtirpc leaves it to the
 * dispatcher, which rpcgen writes without freeing it).  rpc_serve's and
 * rpc_serve_udp's transports get it before their first request.  0, or
 * -1 when too many kinds of transport were seen.
 */
int	 rpc_xprt_free_on_decode_error(SVCXPRT *xprt);

/*
 * rpc_status: fill the common reply RES with CODE (an errno) and the
 * message FMT makes; rpc_status_ok: success, no message.
 */
void	 rpc_status(status_x *res, int code, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
void	 rpc_status_ok(status_x *res);

/*
 * rpc_portmap_set: tell a portmapper running on this machine, if any,
 * that PROG/VERS is served on TCP port PORT, so that generic tools
 * (rpcinfo -p, rpcinfo -t) find it.  Nothing depends on it: without a
 * portmapper it does nothing.  The last to register wins.
 * rpc_portmap_unset withdraws it if it is still PORT's, not a later
 * server's (another pool's collector on the same machine).
 */
void	 rpc_portmap_set(unsigned long prog, unsigned long vers, int port);
void	 rpc_portmap_unset(unsigned long prog, unsigned long vers, int port);

/*
 * rpc_connect: a client for PROG/VERS at ADDR over TCP; connecting and
 * every call time out after TIMEOUT seconds.  rpc_connect_unix: the same
 * over a Unix-domain socket.  NULL with errno set (and a message in ERR
 * if not NULL) on failure.  rpc_close destroys the client and its socket.
 */
CLIENT	*rpc_connect(const char *addr, unsigned long prog, unsigned long vers,
	    int timeout, char *err, size_t errlen);
CLIENT	*rpc_connect_unix(const char *path, unsigned long prog,
	    unsigned long vers, int timeout, char *err, size_t errlen);
/*
 * One-way requests over UDP: rpc_dgram_open a sender to ADDR for PROG
 * and VERS (its socket is connected to ADDR: only ADDR's datagrams come
 * back to it); rpc_dgram_send sends one call and waits for nothing.  0
 * once it is sent (which promises nothing about its arrival); -2 if it
 * does not fit in a datagram (RPC_MAX_DATAGRAM), -1 on another error,
 * with a message in ERR.  rpc_dgram_xid is the xid of the last call
 * sent, rpc_dgram_fd the socket, for the event loop to watch.
 */
struct rpc_dgram;
struct rpc_dgram *rpc_dgram_open(const char *addr, unsigned long prog,
	    unsigned long vers, char *err, size_t errlen);
int	 rpc_dgram_send(struct rpc_dgram *, unsigned long proc,
	    xdrproc_t xargs, void *args, char *err, size_t errlen);
uint32_t rpc_dgram_xid(const struct rpc_dgram *);
int	 rpc_dgram_fd(const struct rpc_dgram *);
void	 rpc_dgram_close(struct rpc_dgram *);
/*
 * What comes back to a sender: a reply to one of its calls (the receiver
 * chose to answer it) or a one-way call from the receiver.  At most
 * RPC_DGRAM_MAX_IN bytes; longer ones are dropped.
 */
#define RPC_DGRAM_MAX_IN	1024
#define RPC_DGRAM_REPLY		1
#define RPC_DGRAM_CALL		2
struct rpc_dgram_msg {
	uint32_t	 xid;
	unsigned long	 prog, vers, proc;	/* of a call */
};
/*
 * rpc_dgram_recv: take one waiting datagram without blocking.  -1 with
 * errno when none is waiting (EAGAIN) or the socket has an error (a
 * refused earlier send: ECONNREFUSED); 0 for a datagram that is neither
 * a successful reply nor a call (dropped); RPC_DGRAM_REPLY or
 * RPC_DGRAM_CALL with M filled.  rpc_dgram_decode then decodes the
 * reply's results or the call's arguments into OBJ (free with xdr_free);
 * -1 if they do not decode.
 */
int	 rpc_dgram_recv(struct rpc_dgram *, struct rpc_dgram_msg *m);
int	 rpc_dgram_decode(struct rpc_dgram *, xdrproc_t, void *obj);
/*
 * rpc_dgram_call_to: one one-way call of PROG/VERS/PROC, at most
 * RPC_DGRAM_MAX_IN bytes, from a server's datagram socket FD to TO,
 * without blocking.  0 once sent, -1 with errno.
 */
int	 rpc_dgram_call_to(int fd, const struct sockaddr_in *to,
	    unsigned long prog, unsigned long vers, unsigned long proc,
	    xdrproc_t xargs, void *args);
/*
 * rpc_xprt_getargs_raw: decode from XPRT's request with PROC as the
 * transport itself would, past the hook that decodes checked arguments
 * (auth.c reads a call's wrapped arguments with it).
 * rpc_auth_error: the text of a refused call of PROC on CL, naming the
 * level it needs, into ERR.
 */
bool_t	 rpc_xprt_getargs_raw(SVCXPRT *xprt, xdrproc_t proc, void *where);
void	 rpc_auth_error(CLIENT *cl, unsigned long proc, char *err,
	    size_t errlen);
/* xdr_void with the argument list xdrproc_t expects. */
bool_t	 rpc_xdr_nothing(XDR *, void *);
void	 rpc_close(CLIENT *);
/* rpc_invoke: clnt_call with the client's timeout; text of the failure in
 * ERR.  Returns 0 or -1. */
int	 rpc_invoke(CLIENT *, unsigned long proc, xdrproc_t xargs, void *args,
	    xdrproc_t xres, void *res, char *err, size_t errlen);

/*
 * The caller of a request: rpc_caller_uid gives the uid of a local
 * caller on a Unix-domain socket (-1: not local); rpc_caller_ip the
 * caller's address as text ("local" for a Unix-domain socket).
 */
int	 rpc_caller_uid(struct svc_req *, uid_t *uid);
void	 rpc_caller_ip(struct svc_req *, char *buf, size_t len);

/*
 * rpc_host_allowed: is the caller in the host list named by the
 * configuration setting PARAM (HOSTALLOW_READ, HOSTALLOW_WRITE)?  Local
 * callers on a Unix-domain socket always are.  The list holds IP
 * addresses, shell patterns ("127.0.0.*", "*") and host names.
 */
int	 rpc_host_allowed(struct svc_req *, const char *param);
int	 host_list_match(const char *list, const char *ip);

#endif
