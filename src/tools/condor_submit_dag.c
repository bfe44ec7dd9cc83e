/*
 * condor_submit_dag: check a DAG file and queue condor_dagman to run it,
 * as a scheduler-universe job.  See condor_submit_dag(1).
 *
 * The whole DAG (with what it includes and splices, and every node's
 * submit file) is read and checked first; only then is DAGFILE.condor.sub
 * written and submitted like condor_submit would, so a mistake anywhere
 * writes and queues nothing.  A rescue DAG (DAGFILE.rescueNNN) beside the
 * DAG is run unless -f.
 */
#include <sys/stat.h>

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "dagfile.h"
#include "daemon.h"
#include "fdio.h"
#include "log.h"
#include "rpcutil.h"
#include "schedd_client.h"
#include "submit.h"
#include "xalloc.h"

/* The rule above and below what condor_submit_dag says, as HTCondor's. */
#define DASHES	"-----------------------------------------------------------------------"

extern char **environ;

struct opts {
	long		 maxjobs, maxidle, maxpre, maxpost;
	int		 force;
	int		 no_submit;
	const char	*notification;
	const char	*batch;
	const char	*dagfile;
};

static int
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: condor_submit_dag [-f] [-no_submit] [-maxjobs N] "
	    "[-maxidle N]\n"
	    "                         [-maxpre N] [-maxpost N] "
	    "[-notification WHEN]\n"
	    "                         [-batch-name NAME] DAGFILE\n"
	    "  Checks DAGFILE and queues condor_dagman to run it; prints the\n"
	    "  files the run writes, then \"1 job(s) submitted to cluster C.\".\n"
	    "  -maxjobs N   node jobs queued at once (0: no limit)\n"
	    "  -maxidle N   idle node jobs at once (0: no limit)\n"
	    "  -maxpre N    PRE scripts running at once (0: no limit)\n"
	    "  -maxpost N   POST scripts running at once (0: no limit)\n"
	    "  -f, -force   overwrite DAGFILE.condor.sub and the old logs; "
	    "ignore\n"
	    "               rescue DAGs\n"
	    "  -no_submit   write DAGFILE.condor.sub, queue nothing\n"
	    "  -notification never|always|complete|error  mail about the "
	    "DAG job\n"
	    "  -batch-name NAME  the DAG job's batch (default: the DAG "
	    "file's name)\n"
	    "  The DAG language is in condor_submit_dag(1).\n");
	return fp == stdout ? 0 : 1;
}

/* A non-negative number for option OPT. */
static int
opt_number(const char *opt, const char *s, long *out)
{
	char *end;
	long v;

	if (s == NULL) {
		log_warnx("%s needs a number", opt);
		return -1;
	}
	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || errno == ERANGE || v < 0 ||
	    v > INT_MAX) {
		log_warnx("%s: \"%s\" is not a number from 0 to %d", opt, s,
		    INT_MAX);
		return -1;
	}
	*out = v;
	return 0;
}

/* Options into O; 0, -1 on a mistake (said), 1 for -help. */
static int
parse_args(int argc, char **argv, struct opts *o)
{
	const char *a;
	long *num;
	int i;

	memset(o, 0, sizeof(*o));
	o->notification = "never";
	for (i = 1; i < argc; i++) {
		a = argv[i];
		num = NULL;
		if (strcmp(a, "-maxjobs") == 0)
			num = &o->maxjobs;
		else if (strcmp(a, "-maxidle") == 0)
			num = &o->maxidle;
		else if (strcmp(a, "-maxpre") == 0)
			num = &o->maxpre;
		else if (strcmp(a, "-maxpost") == 0)
			num = &o->maxpost;
		if (num != NULL) {
			if (opt_number(a, argv[i + 1], num) == -1)
				return -1;
			i++;
		} else if (strcmp(a, "-f") == 0 || strcmp(a, "-force") == 0)
			o->force = 1;
		else if (strcmp(a, "-no_submit") == 0)
			o->no_submit = 1;
		else if (strcmp(a, "-notification") == 0) {
			if (++i == argc) {
				log_warnx("-notification needs never, always, "
				    "complete or error");
				return -1;
			}
			if (strcasecmp(argv[i], "never") != 0 &&
			    strcasecmp(argv[i], "always") != 0 &&
			    strcasecmp(argv[i], "complete") != 0 &&
			    strcasecmp(argv[i], "error") != 0) {
				log_warnx("-notification %s: not never, always, "
				    "complete or error", argv[i]);
				return -1;
			}
			o->notification = argv[i];
		} else if (strcmp(a, "-batch-name") == 0) {
			if (++i == argc || argv[i][0] == '\0') {
				log_warnx("-batch-name needs a name");
				return -1;
			}
			o->batch = argv[i];
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "-help") == 0 ||
		    strcmp(a, "--help") == 0)
			return 1;
		else if (a[0] == '-' && a[1] != '\0') {
			log_warnx("unknown option %s", a);
			return -1;
		} else if (o->dagfile != NULL) {
			log_warnx("one DAG file at a time");
			return -1;
		} else
			o->dagfile = a;
	}
	if (o->dagfile == NULL) {
		log_warnx("no DAG file");
		return -1;
	}
	if (strchr(o->dagfile, '\n') != NULL ||
	    (o->batch != NULL && strchr(o->batch, '\n') != NULL)) {
		log_warnx("a newline in a DAG file or batch name");
		return -1;
	}
	return 0;
}

/*
 * The newest DAGFILE.rescueNNN (001 to 999) beside the DAG file: its
 * number, its path in *PATH (freed by the caller); 0 if there is none.
 */
static int
find_rescue(const char *dagfile, char **path)
{
	struct stat st;
	char *p;
	int n;

	for (n = 999; n >= 1; n--) {
		p = xasprintf("%s.rescue%03d", dagfile, n);
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
			*path = p;
			return n;
		}
		free(p);
	}
	*path = NULL;
	return 0;
}

/*
 * The absolute path of condor_dagman: DAGMAN (by default
 * $(BIN)/condor_dagman), else this program's own directory (condor_dagman
 * is a command, in bin as in HTCondor); NULL (said) if it is not
 * executable.
 */
static char *
dagman_path(void)
{
	const char *v;
	char self[PATH_MAX], *p;

	if ((v = param("DAGMAN")) != NULL && *v != '\0')
		p = xstrdup(v);
	else if ((v = param("BIN")) != NULL && *v != '\0')
		p = xasprintf("%s/condor_dagman", v);
	else {
		if (realpath("/proc/self/exe", self) == NULL) {
			log_warn("cannot find this program's directory");
			return NULL;
		}
		p = xasprintf("%s/condor_dagman", dirname(self));
	}
	if (p[0] != '/') {
		log_warnx("%s: condor_dagman's path must be absolute (DAGMAN)",
		    p);
		free(p);
		return NULL;
	}
	if (access(p, X_OK) == -1) {
		log_warn("%s (condor_dagman; see DAGMAN)", p);
		free(p);
		return NULL;
	}
	return p;
}

/* S as one argument of the new-style arguments syntax: in single
 * quotes, a single quote doubled, a double quote doubled. */
static void
add_arg(struct buf *b, const char *s)
{
	buf_addc(b, '\'');
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			buf_adds(b, "''");
		else if (*s == '"')
			buf_adds(b, "\"\"");
		else
			buf_addc(b, *s);
	}
	buf_addc(b, '\'');
}

/* S as a ClassAd string literal. */
static void
add_string(struct buf *b, const char *s)
{
	buf_addc(b, '"');
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			buf_addc(b, '\\');
		buf_addc(b, *s);
	}
	buf_addc(b, '"');
}

/* The text of DAGFILE.condor.sub. */
static void
submit_text(struct buf *b, const struct opts *o, const char *dagman,
    const char *rescue)
{
	const char *f = o->dagfile, *base;

	base = strrchr(f, '/') != NULL ? strrchr(f, '/') + 1 : f;
	buf_printf(b, "# The DAG job of %s, written by condor_submit_dag.\n",
	    f);
	buf_printf(b, "universe\t= scheduler\n");
	buf_printf(b, "executable\t= %s\n", dagman);
	buf_printf(b, "getenv\t\t= True\n");
	buf_printf(b, "output\t\t= %s.lib.out\n", f);
	buf_printf(b, "error\t\t= %s.lib.err\n", f);
	buf_printf(b, "log\t\t= %s.dagman.log\n", f);
	buf_printf(b, "notification\t= %s\n", o->notification);
	buf_adds(b, "arguments\t= \"-Dag ");
	add_arg(b, f);
	buf_printf(b, " -maxjobs %ld -maxidle %ld -maxpre %ld -maxpost %ld",
	    o->maxjobs, o->maxidle, o->maxpre, o->maxpost);
	if (rescue != NULL) {
		buf_adds(b, " -Rescue ");
		add_arg(b, rescue);
	}
	buf_adds(b, "\"\n");
	/* Any exit of its own ends the DAG job (an ABORT-DAG-ON RETURN
	 * value too); killed by a signal, it runs again and recovers. */
	buf_adds(b, "on_exit_remove\t= (ExitBySignal =?= false || "
	    "ExitSignal =?= 11)\n");
	buf_printf(b, "batch_name\t= %s\n", o->batch != NULL ? o->batch :
	    base);
	buf_adds(b, "+DAGManDagFile\t= ");
	add_string(b, f);
	buf_adds(b, "\nqueue\n");
}

/* Write TEXT to PATH through PATH.tmp and a rename. */
static int
write_file(const char *path, const struct buf *text)
{
	char *tmp = xasprintf("%s.tmp", path);
	FILE *fp;

	if ((fp = fd_fopen_aside(path, tmp)) == NULL) {
		log_warnx("%s: %s", errno == ELOOP || errno == EFTYPE_USER ?
		    path : tmp, fd_user_strerror(errno));
		free(tmp);
		return -1;
	}
	if (fwrite(text->data, 1, text->len, fp) != text->len ||
	    fflush(fp) == EOF || fsync(fileno(fp)) == -1) {
		log_warn("%s", tmp);
		fclose(fp);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	if (fclose(fp) == EOF || rename(tmp, path) == -1) {
		log_warn("%s", path);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

/*
 * Say which files the DAG's run writes, as HTCondor's condor_submit_dag
 * does before it submits: a user's first question is where the logs are.
 */
static void
print_files(const char *dagfile)
{
	static const struct {
		const char	*what;
		const char	*suffix;
	} files[] = {
		{ "File for submitting this DAG to Condor", ".condor.sub" },
		{ "Log of DAGMan debugging messages", ".dagman.out" },
		{ "Log of Condor library output", ".lib.out" },
		{ "Log of Condor library error messages", ".lib.err" },
		{ "Log of the life of condor_dagman itself", ".dagman.log" },
		{ "Log of the node jobs' events", ".nodes.log" },
	};
	size_t i;

	printf("%s\n", DASHES);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		printf("%-40s : %s%s\n", files[i].what, dagfile,
		    files[i].suffix);
	printf("\n");
}

/* Queue the job of SUBFILE (TEXT) as condor_submit does. */
static int
submit(const char *subfile, const struct buf *text)
{
	struct submit_env env;
	struct submit_result res;
	char err[2048], cwd[4096];
	CLIENT *cl;
	size_t w;
	int rc, cluster = 0;

	if (getcwd(cwd, sizeof(cwd)) == NULL) {
		log_warn("cannot find the current directory");
		return -1;
	}
	memset(&env, 0, sizeof(env));
	env.cwd = cwd;
	env.environ = environ;
	env.check_files = 1;
	env.default_lease = param_int("JOB_DEFAULT_LEASE_DURATION", 2400);
	rc = submit_parse(text->data, text->len, subfile, &env, &res, err,
	    sizeof(err));
	for (w = 0; w < res.nwarnings; w++)
		log_warnx("%s", res.warnings[w]);
	if (rc == -1) {
		log_warnx("%s", err);
		submit_result_free(&res);
		return -1;
	}
	printf("Submitting job(s).\n");
	fflush(stdout);
	if ((cl = schedd_connect(NULL, err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		submit_result_free(&res);
		return -1;
	}
	rc = schedd_submit(cl, &res, &cluster, err, sizeof(err));
	rpc_close(cl);
	if (rc == -1) {
		log_warnx("%s", err);
		submit_result_free(&res);
		return -1;
	}
	printf("%zu job(s) submitted to cluster %d.\n", res.nprocs, cluster);
	submit_result_free(&res);
	return 0;
}

int
main(int argc, char **argv)
{
	static const char *const old[] = {
		".dagman.out", ".lib.out", ".lib.err"
	};
	struct opts o;
	struct dag dag;
	struct buf text;
	struct stat st;
	char err[2048], *rescue = NULL, *subfile, *dagman, *p;
	size_t i;
	int rc, n = 0;

	common_init(argv[0]);
	signal(SIGPIPE, SIG_IGN);
	if ((rc = parse_args(argc, argv, &o)) != 0)
		return usage(rc == 1 ? stdout : stderr);

	/* 1. The whole DAG, checked. */
	if (dag_parse(o.dagfile, DAG_CHECK_FILES, &dag, err, sizeof(err)) ==
	    -1) {
		log_warnx("%s", err);
		dag_free(&dag);
		return 1;
	}
	for (i = 0; i < dag.nwarnings; i++)
		log_warnx("warning: %s", dag.warnings[i]);

	/* 2. A rescue DAG, checked against it. */
	if (!o.force && (n = find_rescue(o.dagfile, &rescue)) > 0) {
		if (dag_apply_rescue(&dag, rescue, err, sizeof(err)) == -1) {
			log_warnx("%s", err);
			dag_free(&dag);
			free(rescue);
			return 1;
		}
		printf("Running rescue DAG %d\n", n);
	}
	dag_free(&dag);

	/* 3. What an earlier run left. */
	subfile = xasprintf("%s.condor.sub", o.dagfile);
	if (!o.force && rescue == NULL && lstat(subfile, &st) == 0) {
		if (!S_ISREG(st.st_mode))
			log_warnx("%s %s; remove it, or use -f to replace it",
			    subfile, fd_user_strerror(S_ISLNK(st.st_mode) ?
			    ELOOP : EFTYPE_USER));
		else
			log_warnx("%s exists (a DAG already submitted?); use "
			    "-f to overwrite", subfile);
		return 1;
	}
	if ((dagman = dagman_path()) == NULL)
		return 1;
	if (o.force || rescue != NULL) {
		if (unlink(subfile) == -1 && errno != ENOENT) {
			log_warn("%s", subfile);
			return 1;
		}
		for (i = 0; i < sizeof(old) / sizeof(old[0]); i++) {
			p = xasprintf("%s%s", o.dagfile, old[i]);
			if (unlink(p) == -1 && errno != ENOENT) {
				log_warn("%s", p);
				return 1;
			}
			free(p);
		}
	}

	/* 4. DAGFILE.condor.sub. */
	buf_init(&text);
	submit_text(&text, &o, dagman, rescue);
	if (write_file(subfile, &text) == -1)
		return 1;

	/* 5. Queued, or not. */
	print_files(o.dagfile);
	if (o.no_submit) {
		printf("Written %s; submit it with condor_submit.\n", subfile);
		rc = 0;
	} else
		rc = submit(subfile, &text) == -1 ? 1 : 0;
	printf("%s\n", DASHES);
	buf_free(&text);
	free(subfile);
	free(dagman);
	free(rescue);
	return rc;
}
