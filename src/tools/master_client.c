/*
 * master_client.c: condor_off and condor_on, which ask a host's master
 * to stop or start its daemons (master_rpc.x).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "daemon.h"
#include "locate.h"
#include "log.h"
#include "master_client.h"
#include "master_rpc.h"
#include "rpcutil.h"
#include "xalloc.h"

static int
master_tool_usage(const char *prog, int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: %s [-daemon NAME] [HOST...]\n"
	    "  %s the daemons of DAEMON_LIST on each HOST (default: this\n"
	    "  host) through its condor_master; -daemon names one of them\n"
	    "  (COLLECTOR, NEGOTIATOR, SCHEDD, STARTD, KBDD).\n",
	    prog, strstr(prog, "_on") ? "starts" : "stops");
	return status;
}

static int
master_tool_one(const char *host, const char *daemon, int on)
{
	char err[512];
	char *name = (char *)daemon;
	CLIENT *cl;
	status_x res;
	int rc = 0;

	cl = daemon_connect("master", host, PROG_MASTER, 1, err, sizeof(err));
	if (cl == NULL) {
		log_warnx("%s", err);
		return 1;
	}
	memset(&res, 0, sizeof(res));
	if (rpc_invoke(cl, on ? MASTER_ON : MASTER_OFF,
	    (xdrproc_t)xdr_wrapstring, &name, (xdrproc_t)xdr_status_x, &res,
	    err, sizeof(err)) == -1) {
		log_warnx("master of %s: %s", host ? host : param("HOST"),
		    err);
		rc = 1;
	} else if (res.code != 0) {
		log_warnx("master of %s: %s", host ? host : param("HOST"),
		    res.message ? res.message : "refused");
		rc = 1;
	} else
		printf("Sent \"%s\" to the master of %s\n",
		    on ? "on" : "off", host ? host : param("HOST"));
	xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
	rpc_close(cl);
	return rc;
}

int
master_tool_main(int argc, char **argv, int on)
{
	const char *daemon = "";
	int i, rc = 0, hosts = 0;

	common_init(argv[0]);
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "-help") == 0)
			return master_tool_usage(log_progname(), 0);
		if (strcmp(argv[i], "-daemon") == 0 ||
		    strcmp(argv[i], "-subsystem") == 0) {
			if (++i == argc)
				return master_tool_usage(log_progname(), 2);
			daemon = argv[i];
			continue;
		}
		if (argv[i][0] == '-') {
			log_warnx("unknown option %s", argv[i]);
			return master_tool_usage(log_progname(), 2);
		}
		hosts++;
		rc |= master_tool_one(argv[i], daemon, on);
	}
	if (hosts == 0)
		rc = master_tool_one(NULL, daemon, on);
	return rc;
}
