/*
 * condor_qedit: set attributes of queued jobs.  See condor_qedit(1).
 *
 *	condor_qedit [-constraint EXPR | C.P | C | OWNER | -a] ATTR VALUE
 *	    [ATTR VALUE]...
 *
 * Each ATTR VALUE pair is one request to the local schedd (SCHEDD_EDIT),
 * which sets it in the caller's selected jobs in one transaction.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "expr.h"
#include "log.h"
#include "rpcutil.h"
#include "schedd_client.h"
#include "xalloc.h"

static int
usage(FILE *fp)
{
	fprintf(fp, "usage: condor_qedit [-constraint EXPR | C.P | C | OWNER "
	    "| -a] ATTR VALUE [ATTR VALUE]...\n");
	return fp == stdout ? 0 : 2;
}

int
main(int argc, char **argv)
{
	struct job_spec spec;
	struct expr *e;
	CLIENT *cl;
	char err[1024], what[300], *constraint = NULL;
	int i = 1, rc = 0, count, denied;

	common_init(argv[0]);
	signal(SIGPIPE, SIG_IGN);
	if (argc > 1 && (strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "-help") == 0 || strcmp(argv[1], "--help") == 0))
		return usage(stdout);
	if (argc < 2)
		return usage(stderr);
	if (strcmp(argv[1], "-constraint") == 0) {
		if (argc < 3)
			return usage(stderr);
		if ((e = expr_parse(argv[2], err, sizeof(err))) == NULL) {
			log_warnx("bad constraint \"%s\": %s", argv[2], err);
			return 1;
		}
		expr_free(e);
		constraint = xstrdup(argv[2]);
		snprintf(what, sizeof(what), "the constraint %s", argv[2]);
		i = 3;
	} else if (strcmp(argv[1], "-a") == 0 || strcmp(argv[1], "-all") == 0) {
		constraint = xstrdup("");
		snprintf(what, sizeof(what), "all jobs");
		i = 2;
	} else if (argv[1][0] == '-') {
		log_warnx("unknown option %s", argv[1]);
		return usage(stderr);
	} else {
		if (job_spec_parse(argv[1], &spec) == -1) {
			log_warnx("\"%s\" is not a job (C.P), a cluster (C) or "
			    "a user name", argv[1]);
			return 1;
		}
		constraint = job_spec_constraint(&spec);
		job_spec_name(&spec, what, sizeof(what));
		i = 2;
	}
	if (i >= argc || (argc - i) % 2 != 0) {
		free(constraint);
		return usage(stderr);
	}
	/* Every value must parse before anything is changed. */
	for (int k = i; k < argc; k += 2)
		if ((e = expr_parse(argv[k + 1], err, sizeof(err))) == NULL) {
			log_warnx("%s = %s: %s (a string value is written "
			    "in double quotes)", argv[k], argv[k + 1], err);
			free(constraint);
			return 1;
		} else
			expr_free(e);
	if ((cl = schedd_connect(NULL, err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		free(constraint);
		return 1;
	}
	for (; i < argc; i += 2) {
		if (schedd_edit(cl, constraint, argv[i], argv[i + 1], &count,
		    &denied, err, sizeof(err)) == -1) {
			log_warnx("%s: %s", argv[i], err);
			rc = 1;
			break;
		}
		if (count == 0) {
			if (denied > 0)
				log_warnx("%s: %d job%s, none yours", what,
				    denied, denied == 1 ? "" : "s");
			else
				log_warnx("%s: no job matches", what);
			rc = 1;
			break;
		}
		printf("Set attribute \"%s\" for %d matching job%s.\n",
		    argv[i], count, count == 1 ? "" : "s");
		if (denied > 0)
			log_warnx("%d more matching job%s not yours: "
			    "left alone", denied, denied == 1 ? "" : "s");
	}
	rpc_close(cl);
	free(constraint);
	return rc;
}
