/*
 * condor_submit: queue the jobs a job description file describes.  See
 * condor_submit(1) and condor_submit(5).
 *
 * The whole file is parsed and checked first (src/submit); only then is
 * the cluster sent to the local schedd, so a mistake anywhere queues
 * nothing.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ad.h"
#include "buf.h"
#include "config.h"
#include "daemon.h"
#include "log.h"
#include "rpcutil.h"
#include "schedd_client.h"
#include "submit.h"
#include "xalloc.h"

extern char **environ;

static int
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: condor_submit [-dry-run] [-terse] [-batch-name NAME] "
	    "[-a LINE]... [NAME=VALUE]...\n"
	    "                     [FILE | -] [-queue ARGS...]\n"
	    "  Queues the jobs FILE (or the standard input) describes, as one\n"
	    "  cluster; prints \"N job(s) submitted to cluster C.\".\n"
	    "  -dry-run  check the file and print the job ads; queue nothing\n"
	    "  -batch-name NAME  the jobs' batch (condor_q -batch), unless the "
	    "file\n"
	    "            names one with batch_name\n"
	    "  -a LINE, NAME=VALUE  a setting, as if written before each queue "
	    "statement\n"
	    "  -queue ARGS...  the queue statement, for a file with none (the "
	    "rest of\n"
	    "            the command line)\n"
	    "  -terse    print the jobs' ids, \"C.P - C.P\", only\n"
	    "  The job description language is in condor_submit(5).\n");
	return fp == stdout ? 0 : 1;
}

/* The whole of FP into a buffer; -1 if it is too long or unreadable. */
static int
read_all(FILE *fp, struct buf *b)
{
	char chunk[65536];
	size_t n;

	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0) {
		buf_add(b, chunk, n);
		if (b->len > SUBMIT_MAX_FILE) {
			errno = EFBIG;
			return -1;
		}
	}
	return ferror(fp) ? -1 : 0;
}

static void
dry_run(const struct submit_result *res)
{
	char err[512];
	struct ad *ad;
	size_t i;

	for (i = 0; i < res->nprocs; i++) {
		/* Cluster 0 stands for the number the schedd would choose. */
		if ((ad = submit_proc_ad(res, i, 0, err, sizeof(err))) ==
		    NULL) {
			log_warnx("job %zu: %s", i, err);
			continue;
		}
		job_print_long(ad, stdout);
		ad_free(ad);
	}
}

int
main(int argc, char **argv)
{
	struct submit_env env;
	struct submit_result res;
	struct buf text;
	const char *file = NULL, *name, *batch = NULL;
	char **append, *queue = NULL;
	int nappend = 0, terse = 0;
	char err[2048], cwd[4096];
	FILE *fp;
	CLIENT *cl;
	int i, dry = 0, cluster = 0, rc;
	size_t w;

	common_init(argv[0]);
	signal(SIGPIPE, SIG_IGN);
	append = xcalloc((size_t)argc + 1, sizeof(*append));
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-a") == 0 ||
		    strcmp(argv[i], "-append") == 0) {
			if (++i == argc) {
				log_warnx("-a needs a setting, \"NAME = value\"");
				return usage(stderr);
			}
			append[nappend++] = argv[i];
			continue;
		}
		if (strcmp(argv[i], "-queue") == 0) {
			struct buf q;

			if (++i == argc) {
				log_warnx("-queue needs what follows queue");
				return usage(stderr);
			}
			buf_init(&q);
			for (; i < argc; i++)
				buf_printf(&q, "%s%s", q.len ? " " : "",
				    argv[i]);
			queue = buf_take(&q);
			break;
		}
		if (strcmp(argv[i], "-terse") == 0) {
			terse = 1;
			continue;
		}
		if (argv[i][0] != '-' && strchr(argv[i], '=') != NULL) {
			append[nappend++] = argv[i];
			continue;
		}
		if (strcmp(argv[i], "-h") == 0 ||
		    strcmp(argv[i], "-help") == 0 ||
		    strcmp(argv[i], "--help") == 0)
			return usage(stdout);
		if (strcmp(argv[i], "-dry-run") == 0 ||
		    strcmp(argv[i], "-n") == 0) {
			dry = 1;
			continue;
		}
		if (strcmp(argv[i], "-batch-name") == 0) {
			if (++i == argc) {
				log_warnx("-batch-name needs a name");
				return usage(stderr);
			}
			batch = argv[i];
			continue;
		}
		if (argv[i][0] == '-' && argv[i][1] != '\0') {
			log_warnx("unknown option %s", argv[i]);
			return usage(stderr);
		}
		if (file != NULL) {
			log_warnx("one job description file at a time");
			return usage(stderr);
		}
		file = argv[i];
	}

	buf_init(&text);
	if (file == NULL || strcmp(file, "-") == 0) {
		name = "stdin";
		fp = stdin;
	} else {
		name = file;
		if ((fp = fopen(file, "r")) == NULL) {
			log_warn("%s", file);
			return 1;
		}
	}
	if (read_all(fp, &text) == -1) {
		log_warn("%s", name);
		return 1;
	}
	if (fp != stdin)
		fclose(fp);

	if (getcwd(cwd, sizeof(cwd)) == NULL) {
		log_warn("cannot find the current directory");
		return 1;
	}
	env.cwd = cwd;
	env.environ = environ;
	env.check_files = 1;
	env.batch_name = batch;
	env.append = append;
	env.queue = queue;
	env.default_lease = param_int("JOB_DEFAULT_LEASE_DURATION", 2400);
	rc = submit_parse(text.data, text.len, name, &env, &res, err,
	    sizeof(err));
	buf_free(&text);
	for (w = 0; w < res.nwarnings; w++)
		log_warnx("%s", res.warnings[w]);
	/* What was chosen for the user (on stderr: stdout is the count). */
	for (w = 0; w < res.nnotices; w++)
		log_warnx("%s", res.notices[w]);
	if (res.warnings_dropped > 0)
		log_warnx("%s: %zu more warning%s", name, res.warnings_dropped,
		    res.warnings_dropped == 1 ? "" : "s");
	if (rc == -1) {
		log_warnx("%s", err);
		submit_result_free(&res);
		return 1;
	}
	if (dry) {
		dry_run(&res);
		submit_result_free(&res);
		return 0;
	}

	if ((cl = schedd_connect(NULL, err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		submit_result_free(&res);
		return 1;
	}
	rc = schedd_submit(cl, &res, &cluster, err, sizeof(err));
	rpc_close(cl);
	if (rc == -1) {
		log_warnx("%s", err);
		submit_result_free(&res);
		return 1;
	}
	if (terse)
		printf("%d.0 - %d.%zu\n", cluster, cluster, res.nprocs - 1);
	else
		printf("%zu job(s) submitted to cluster %d.\n", res.nprocs,
		    cluster);
	submit_result_free(&res);
	return 0;
}
