/*
 * condor_history: the jobs this host's schedd (or another host's) has
 * finished, completed or removed, with their accounting.  See
 * condor_history(1).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad.h"
#include "buf.h"
#include "daemon.h"
#include "expr.h"
#include "locate.h"
#include "log.h"
#include "rpcutil.h"
#include "schedd_client.h"

static const char *const table_attrs[] = {
	"ClusterId", "ProcId", "Owner", "QDate", "RemoteUserCpu", "JobStatus",
	"CompletionDate", "EnteredCurrentStatus", "Cmd", "Args", NULL
};

static const char header[] =
    " ID      OWNER            SUBMITTED     CPU_USAGE ST   COMPLETED CMD";

static int
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: condor_history [-l | -json | -af[:OPTS] ATTR... | "
	    "-format FMT ATTR...]\n"
	    "                      [-name HOST] [-constraint EXPR]\n"
	    "                      [-limit N] [-forwards] "
	    "[OWNER | C | C.P]...\n"
	    "  -l               every attribute of each job\n"
	    "  -json            every attribute, as a JSON array\n"
	    "  -limit N         only N jobs (also -match N): the N that left "
	    "last,\n"
	    "                   or with -forwards the N that left first\n"
	    "  -forwards        oldest first (the default: newest first)\n"
	    "  -af ATTR...      the named attributes, one job a line\n"
	    "  -format FMT ATTR printf-like, as condor_q -format\n"
	    "  -name HOST       the history of HOST's schedd\n"
	    "  -constraint EXPR only jobs for which EXPR is TRUE\n"
	    "  OWNER, C, C.P    only this user's jobs, this cluster, this "
	    "job\n");
	return fp == stdout ? 0 : 1;
}

static void
print_row(const struct ad *ad)
{
	char submitted[32], completed[32], cpu[32], *owner, *cmd;
	long long cluster = 0, proc = 0, status = -1;
	double user = 0;

	(void)ad_get_int(ad, "ClusterId", &cluster);
	(void)ad_get_int(ad, "ProcId", &proc);
	(void)ad_get_int(ad, "JobStatus", &status);
	(void)ad_get_real(ad, "RemoteUserCpu", &user);
	job_format_time(ad, "QDate", submitted, sizeof(submitted));
	/* A removed job may have no CompletionDate: when it left, then. */
	job_format_time(ad, ad_lookup(ad, "CompletionDate") ? "CompletionDate" :
	    "EnteredCurrentStatus", completed, sizeof(completed));
	job_format_cpu(user, cpu, sizeof(cpu));
	owner = job_value_text(ad, "Owner");
	cmd = job_command(ad);
	printf("%4lld.%-3lld %-14.14s %11s %13s %-2s %11s %s\n", cluster, proc,
	    owner, submitted, cpu, job_status_letter(status), completed, cmd);
	free(owner);
	free(cmd);
}

int
main(int argc, char **argv)
{
	struct job_select sel;
	const char **af;
	struct ad **jobs;
	char err[1024], *constraint;
	int i, k, n, first = 1, count, forwards = 0;
	long long limit = -1;
	char *end;
	CLIENT *cl;

	common_init(argv[0]);
	signal(SIGPIPE, SIG_IGN);
	job_select_init(&sel, usage, JOB_SELECT_AF);
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-limit") == 0 ||
		    strcmp(argv[i], "-match") == 0) {
			if (++i == argc || (limit = strtoll(argv[i], &end, 10),
			    *end != '\0') || limit < 0) {
				log_warnx("%s needs a number of jobs, 0 or more",
				    argv[i - (i == argc)]);
				return 1;
			}
			continue;
		}
		if (strcmp(argv[i], "-forwards") == 0) {
			forwards = 1;
			continue;
		}
		if (strcmp(argv[i], "-backwards") == 0) {
			forwards = 0;
			continue;
		}
		if (job_select_arg(&sel, argc, argv, &i) == -1)
			return 1;
	}
	if ((constraint = job_select_constraint(&sel, NULL)) == NULL)
		return 1;

	if ((cl = job_select_connect(&sel)) == NULL)
		return 1;
	af = jobfmt_active(&sel.print) ? jobfmt_attrs(&sel.print) : NULL;
	n = schedd_query(cl, constraint, 1, sel.want_long ? NULL :
	    af != NULL ? af : table_attrs, &jobs, err, sizeof(err));
	rpc_close(cl);
	free(af);
	if (n < 0) {
		log_warnx("cannot read the history: %s", err);
		return 1;
	}
	signal(SIGPIPE, SIG_DFL);
	if (!sel.want_long && !jobfmt_active(&sel.print))
		printf("%s\n", header);
	else if (!sel.want_long)
		jobfmt_header(&sel.print, stdout);
	/*
	 * The schedd gives them in the order they left the queue; shown
	 * newest first, as HTCondor reads its history file backwards,
	 * unless -forwards.  -limit keeps the first N shown.
	 */
	count = limit >= 0 && n > limit ? (int)limit : n;
	for (k = 0; k < count; k++) {
		i = forwards ? k : n - 1 - k;
		if (sel.want_json)
			ad_json_next(jobs[i], &first, stdout);
		else if (sel.want_long)
			job_print_long(jobs[i], stdout);
		else if (jobfmt_active(&sel.print))
			jobfmt_print(&sel.print, jobs[i], stdout);
		else
			print_row(jobs[i]);
	}
	if (sel.want_json)
		ad_json_end(first, stdout);
	schedd_free_jobs(jobs, n);
	job_select_free(&sel);
	free(constraint);
	return 0;
}
