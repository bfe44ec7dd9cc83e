/*
 * master_client.c: condor_off, condor_on, condor_reconfig and
 * condor_restart, which ask a host's master to stop, start, reconfigure
 * or restart its daemons (master_rpc.x).
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

static const struct {
	const char	*verb;		/* what it does, for the usage */
	const char	*word;		/* what it sent, for the report */
} master_cmds[] = {
	[MASTER_CMD_OFF] = { "stops", "off" },
	[MASTER_CMD_ON] = { "starts", "on" },
	[MASTER_CMD_RECONFIG] = { "makes re-read their configuration",
	    "reconfig" },
	[MASTER_CMD_RESTART] = { "stops and starts again (the master "
	    "itself too, unless -daemon)", "restart" },
};

static int
master_tool_usage(const char *prog, enum master_cmd cmd, int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: %s %s[HOST...]\n"
	    "  %s the daemons of DAEMON_LIST on each HOST (default: this\n"
	    "  host) through its condor_master%s\n",
	    prog, cmd == MASTER_CMD_RECONFIG ? "" :
	    cmd == MASTER_CMD_RESTART ? "[-master | -daemon NAME] " :
	    "[-daemon NAME] ", master_cmds[cmd].verb,
	    cmd == MASTER_CMD_RECONFIG ? " (as SIGHUP does)." :
	    "; -daemon names one of\n  them (COLLECTOR, NEGOTIATOR, SCHEDD, "
	    "STARTD, KBDD).");
	return status;
}

/* MASTER_RECONFIG has no arguments. */
static bool_t
xdr_no_args(XDR *xdrs, void *unused)
{
	return TRUE;
}

static int
master_tool_one(const char *host, const char *daemon, enum master_cmd cmd)
{
	static const u_long procs[] = {
		[MASTER_CMD_OFF] = MASTER_OFF,
		[MASTER_CMD_ON] = MASTER_ON,
		[MASTER_CMD_RECONFIG] = MASTER_RECONFIG,
		[MASTER_CMD_RESTART] = MASTER_RESTART,
	};
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
	if (rpc_invoke(cl, procs[cmd], cmd == MASTER_CMD_RECONFIG ?
	    (xdrproc_t)xdr_no_args : (xdrproc_t)xdr_wrapstring,
	    cmd == MASTER_CMD_RECONFIG ? NULL : &name,
	    (xdrproc_t)xdr_status_x, &res, err, sizeof(err)) == -1) {
		log_warnx("master of %s: %s", host ? host : param("HOST"),
		    err);
		rc = 1;
	} else if (res.code != 0) {
		log_warnx("master of %s: %s", host ? host : param("HOST"),
		    res.message ? res.message : "refused");
		rc = 1;
	} else
		printf("Sent \"%s\" to the master of %s\n",
		    master_cmds[cmd].word, host ? host : param("HOST"));
	xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
	rpc_close(cl);
	return rc;
}

int
master_tool_main(int argc, char **argv, enum master_cmd cmd)
{
	const char *daemon = "";
	int i, rc = 0, hosts = 0;

	common_init(argv[0]);
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "-help") == 0)
			return master_tool_usage(log_progname(), cmd, 0);
		if (cmd != MASTER_CMD_RECONFIG &&
		    (strcmp(argv[i], "-daemon") == 0 ||
		    strcmp(argv[i], "-subsystem") == 0)) {
			if (++i == argc)
				return master_tool_usage(log_progname(), cmd,
				    2);
			daemon = argv[i];
			continue;
		}
		if (cmd == MASTER_CMD_RESTART &&
		    strcmp(argv[i], "-master") == 0) {
			daemon = "MASTER";
			continue;
		}
		if (argv[i][0] == '-') {
			log_warnx("unknown option %s", argv[i]);
			return master_tool_usage(log_progname(), cmd, 2);
		}
		hosts++;
		rc |= master_tool_one(argv[i], daemon, cmd);
	}
	if (hosts == 0)
		rc = master_tool_one(NULL, daemon, cmd);
	return rc;
}
