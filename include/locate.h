/*
 * locate.h: finding a daemon's RPC address.
 */
#ifndef CONDOR_LOCATE_H
#define CONDOR_LOCATE_H

#include <stddef.h>

/*
 * daemon_locate: the "<ip:port>" of daemon KIND ("master", "startd",
 * "schedd", "negotiator", "collector") on HOST.  With HOST NULL (this
 * host) the address file $(LOG)/.KIND_address is read first; otherwise,
 * or if there is none, the collector is asked for the ad whose Name is
 * HOST.  Returns an allocated string, or NULL with a message in ERR.
 */
char	*daemon_locate(const char *kind, const char *host, char *err,
	    size_t errlen);

#endif
