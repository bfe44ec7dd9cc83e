/*
 * condor_reschedule: ask this host's schedd to have a negotiation cycle
 * now rather than at the next NEGOTIATOR_INTERVAL.  See
 * condor_reschedule(1).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "daemon.h"
#include "log.h"
#include "rpcutil.h"
#include "schedd_client.h"

static int
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: condor_reschedule\n"
	    "  Asks this host's schedd to have the negotiator match its idle\n"
	    "  jobs with machines now.\n");
	return fp == stdout ? 0 : 1;
}

int
main(int argc, char **argv)
{
	CLIENT *cl;
	char err[1024];
	int rc;

	common_init(argv[0]);
	signal(SIGPIPE, SIG_IGN);
	if (argc > 1) {
		if (strcmp(argv[1], "-h") == 0 ||
		    strcmp(argv[1], "-help") == 0 ||
		    strcmp(argv[1], "--help") == 0)
			return usage(stdout);
		log_warnx("unknown argument %s", argv[1]);
		return usage(stderr);
	}
	if ((cl = schedd_connect(NULL, err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		return 1;
	}
	rc = schedd_reschedule(cl, err, sizeof(err));
	rpc_close(cl);
	if (rc == -1) {
		log_warnx("reschedule: %s", err);
		return 1;
	}
	printf("Sent reschedule command to local schedd\n");
	return 0;
}
