/*
 * locate.h: finding a daemon's RPC address.
 */
#ifndef CONDOR_LOCATE_H
#define CONDOR_LOCATE_H

#include <stddef.h>

#include <rpc/rpc.h>

/*
 * daemon_locate: the "<ip:port>" of daemon KIND ("master", "startd",
 * "schedd", "negotiator", "collector") on HOST.  With HOST NULL (this
 * host) the address file $(LOG)/.KIND_address is read first; otherwise,
 * or if there is none, the collector is asked for the ad whose Name is
 * HOST.  Returns an allocated string, or NULL with a message in ERR.
 */
char	*daemon_locate(const char *kind, const char *host, char *err,
	    size_t errlen);
/*
 * daemon_connect: a client of PROG/VERS at daemon KIND on HOST.  For this
 * host (HOST NULL or this host's HOST) the daemon's Unix socket
 * $(LOG)/.KIND_socket is used when it exists, so that the daemon knows
 * the caller by its uid (a machine's owner, an administrator without
 * the pool key); otherwise its TCP address, where the caller proves
 * itself with the pool key or a token.  NULL with a message in ERR.
 */
CLIENT	*daemon_connect(const char *kind, const char *host,
	    unsigned long prog, unsigned long vers, char *err, size_t errlen);

#endif
