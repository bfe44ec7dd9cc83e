/*
 * condor_vacate: give a machine back to its owner: the startd of each
 * HOST (default: this host) checkpoints its job if it can, or stops it,
 * and the job goes back to idle to run elsewhere.  See condor_vacate(1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "daemon.h"
#include "locate.h"
#include "log.h"
#include "rpcutil.h"
#include "startd_rpc.h"
#include "xalloc.h"

static int
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: condor_vacate [HOST...]\n"
	    "  asks the startd of each HOST (default: this host) to vacate\n"
	    "  its jobs: a job checkpoints if it can, leaves the machine\n"
	    "  and goes back to idle.  A slot's name (slot1_2@HOST) vacates\n"
	    "  that slot's job only.\n");
	return status;
}

static int
vacate_one(const char *host)
{
	const char *name = host ? host : param("HOST");
	char err[512];
	status_x res;
	CLIENT *cl;
	int r, rc = 0;

	cl = daemon_connect("startd", host, PROG_STARTD, 1, err, sizeof(err));
	if (cl == NULL) {
		log_warnx("startd of %s: %s", name, err);
		return 1;
	}
	memset(&res, 0, sizeof(res));
	/* A slot's name (slot1_2@host): that slot's job only. */
	if (host != NULL && strchr(host, '@') != NULL)
		r = rpc_invoke(cl, STARTD_VACATE_SLOT,
		    (xdrproc_t)xdr_wrapstring, (char *)&host,
		    (xdrproc_t)xdr_status_x, &res, err, sizeof(err));
	else
		r = rpc_invoke(cl, STARTD_VACATE, (xdrproc_t)rpc_xdr_nothing,
		    NULL, (xdrproc_t)xdr_status_x, &res, err, sizeof(err));
	if (r == -1) {
		log_warnx("startd of %s: %s", name, err);
		rc = 1;
	} else if (res.code != 0) {
		log_warnx("startd of %s: %s", name, res.message ?
		    res.message : "refused");
		rc = 1;
	} else
		printf("Sent vacate command to %s\n", name);
	xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
	rpc_close(cl);
	return rc;
}

int
main(int argc, char **argv)
{
	int i, rc = 0, hosts = 0;

	common_init(argv[0]);
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 ||
		    strcmp(argv[i], "-help") == 0)
			return usage(0);
		if (argv[i][0] == '-') {
			log_warnx("unknown option %s", argv[i]);
			return usage(2);
		}
		hosts++;
		rc |= vacate_one(argv[i]);
	}
	if (hosts == 0)
		rc = vacate_one(NULL);
	return rc;
}
