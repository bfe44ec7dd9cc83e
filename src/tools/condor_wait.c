/*
 * condor_wait: wait until the jobs a user log tells of have ended.  See
 * condor_wait(1).
 *
 * The log is read as it grows (a few times a second); a job has ended
 * when its log holds its 005 (terminated) or 009 (aborted) event.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon.h"
#include "log.h"
#include "schedd_client.h"
#include "userlog.h"
#include "xalloc.h"

#define POLL_NSEC	250000000L	/* between looks at the log */

#define JOB_SEEN	0
#define JOB_DONE	1
#define JOB_ABORTED	2

struct job {
	int	cluster, proc;
	int	state;
};

struct waiter {
	struct job_spec	 spec;
	int		 have_spec;
	struct job	*jobs;
	size_t		 njobs;
};

static int
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: condor_wait [-wait SECONDS] LOGFILE [C | C.P]\n"
	    "  Waits until every job in the user log LOGFILE (or cluster C,\n"
	    "  or job C.P) has ended.  Exit status: 0 all terminated, 1 one\n"
	    "  was aborted (removed) or an error, 2 time expired.\n");
	return fp == stdout ? 0 : 1;
}

static void
on_event(const struct ulog_event *e, void *arg)
{
	struct waiter *w = arg;
	struct job *j = NULL;
	size_t i;

	if (w->have_spec && (e->cluster != w->spec.cluster ||
	    (w->spec.kind == JOB_SPEC_PROC && e->proc != w->spec.proc)))
		return;
	for (i = 0; i < w->njobs; i++)
		if (w->jobs[i].cluster == e->cluster &&
		    w->jobs[i].proc == e->proc) {
			j = &w->jobs[i];
			break;
		}
	if (j == NULL) {
		w->jobs = xreallocarray(w->jobs, w->njobs + 1,
		    sizeof(*w->jobs));
		j = &w->jobs[w->njobs++];
		j->cluster = e->cluster;
		j->proc = e->proc;
		j->state = JOB_SEEN;
	}
	if (e->event == ULOG_TERMINATED)
		j->state = JOB_DONE;
	else if (e->event == ULOG_ABORTED)
		j->state = JOB_ABORTED;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	struct waiter w;
	struct timespec pause = { 0, POLL_NSEC };
	const char *path = NULL;
	double limit = -1, start;
	long offset = 0, next;
	size_t i, aborted, ended;
	char *end;
	int a;

	common_init(argv[0]);
	memset(&w, 0, sizeof(w));
	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "-h") == 0 ||
		    strcmp(argv[a], "-help") == 0 ||
		    strcmp(argv[a], "--help") == 0)
			return usage(stdout);
		if (strcmp(argv[a], "-wait") == 0) {
			if (++a == argc)
				return usage(stderr);
			errno = 0;
			limit = strtod(argv[a], &end);
			if (errno != 0 || end == argv[a] || *end != '\0' ||
			    !(limit >= 0) || limit > 1e9) {
				log_warnx("-wait needs a number of seconds, "
				    "not \"%s\"", argv[a]);
				return 1;
			}
			continue;
		}
		if (argv[a][0] == '-' && argv[a][1] != '\0') {
			log_warnx("unknown option %s", argv[a]);
			return usage(stderr);
		}
		if (path == NULL) {
			path = argv[a];
			continue;
		}
		if (w.have_spec || job_spec_parse(argv[a], &w.spec) == -1 ||
		    w.spec.kind == JOB_SPEC_OWNER) {
			log_warnx("\"%s\" is not a job (C.P) or a cluster (C)",
			    argv[a]);
			return usage(stderr);
		}
		w.have_spec = 1;
	}
	if (path == NULL)
		return usage(stderr);

	start = now();
	for (;;) {
		if ((next = userlog_read(path, offset, on_event, &w)) == -1) {
			log_warn("cannot read the log %s", path);
			return 1;
		}
		offset = next;
		aborted = ended = 0;
		for (i = 0; i < w.njobs; i++) {
			if (w.jobs[i].state != JOB_SEEN)
				ended++;
			if (w.jobs[i].state == JOB_ABORTED)
				aborted++;
		}
		if (w.njobs > 0 && ended == w.njobs) {
			if (aborted == 0) {
				printf("All jobs done.\n");
				return 0;
			}
			printf("All jobs done; %zu aborted.\n", aborted);
			return 1;
		}
		if (limit >= 0 && now() - start >= limit) {
			printf("Time expired.\n");
			return 2;
		}
		nanosleep(&pause, NULL);
	}
}
