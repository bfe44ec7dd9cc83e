/*
 * condor_tail: the end of a running job's output (or error), and with
 * -f what it writes after, until it ends.  See condor_tail(1).
 *
 * A running job's output is usually on the submitting host already: a
 * vanilla job's starter streams it to the shadow, which writes it into
 * the job's Out file as the owner, and a standard job writes it there
 * itself through remote system calls.  Then condor_tail reads that
 * file, on the host of the schedd it asks, and needs no daemon to read
 * for it: it runs as its caller, who can read no more than the file
 * system allows.  Still, as HTCondor's, it serves the job's owner and
 * the queue's super users (root, QUEUE_SUPER_USERS) only.
 *
 * A job whose ad says its output is not streamed (StreamOut or
 * StreamErr false) has it only in its execute directory until it ends:
 * then condor_tail asks the schedd (SCHEDD_TAIL), which checks that the
 * caller may and fetches the piece from the job's startd with the
 * claim's capability.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ad.h"
#include "config.h"
#include "daemon.h"
#include "log.h"
#include "rpcutil.h"
#include "schedd_client.h"
#include "words.h"
#include "xalloc.h"

#define TAIL_DEFAULT_BYTES	1024	/* as HTCondor's -maxbytes */
#define TAIL_POLL_US		500000	/* between looks with -f */

static const char *const tail_attrs[] = {
	"Owner", "JobStatus", "Out", "Err", "Iwd", "StreamOut", "StreamErr",
	NULL
};

static int
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: condor_tail [-f] [-stderr] [-maxbytes N] C.P\n"
	    "  the last bytes (1024 by default) of running job C.P's "
	    "output\n"
	    "  -f           follow: print what it writes until it ends\n"
	    "  -stderr      its error instead of its output\n"
	    "  -maxbytes N  at most N bytes of what it wrote so far\n");
	return fp == stdout ? 0 : 1;
}

/*
 * The job's ad (Owner, JobStatus, ...), or NULL (said).  *GONE is set
 * when the queue no longer holds it.
 */
static struct ad *
job_fetch(const char *constraint, int *gone)
{
	struct ad **jobs, *ad;
	char err[1024];
	CLIENT *cl;
	int n, i;

	*gone = 0;
	if ((cl = schedd_connect(NULL, err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		return NULL;
	}
	n = schedd_query(cl, constraint, 0, tail_attrs, &jobs, err,
	    sizeof(err));
	rpc_close(cl);
	if (n < 0) {
		log_warnx("cannot ask the schedd: %s", err);
		return NULL;
	}
	if (n == 0) {
		*gone = 1;
		schedd_free_jobs(jobs, n);
		return NULL;
	}
	ad = jobs[0];
	for (i = 1; i < n; i++)
		ad_free(jobs[i]);
	free(jobs);
	return ad;
}

static int
job_running(const struct ad *ad)
{
	long long st;

	return ad_get_int(ad, "JobStatus", &st) == 0 && st == 2;
}

/* One piece from the execute host; 1 the job no longer runs, -1 an
 * error (said), 0. */
static int
remote_piece(const struct job_spec *spec, int which, long long offset,
    int max, long long *at, long long *size)
{
	char err[1024], *data;
	size_t len;
	long long from;
	CLIENT *cl;
	int code, rc;

	if ((cl = schedd_connect(NULL, err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		return -1;
	}
	rc = schedd_tail(cl, spec->cluster, spec->proc, which, offset, max,
	    &data, &len, &from, size, &code, err, sizeof(err));
	rpc_close(cl);
	if (rc == -1) {
		if (code == ESRCH || code == ENOENT)
			return 1;
		log_warnx("%s", err);
		return -1;
	}
	if (len > 0 && fwrite(data, 1, len, stdout) != len) {
		free(data);
		return -1;
	}
	free(data);
	*at = from + (long long)len;
	return 0;
}

/*
 * The job's output from its execute host: the last MAXBYTES, then with
 * FOLLOW what comes, until the job no longer runs.
 */
static int
tail_remote(const struct job_spec *spec, int which, long long maxbytes,
    int follow)
{
	long long at = 0, size = 0, want, before;
	int r;

	/* Its size first, then the last MAXBYTES a piece at a time. */
	if ((r = remote_piece(spec, which, -1, 0, &at, &size)) != 0)
		return r == 1 ? 0 : 1;
	at = size > maxbytes ? size - maxbytes : 0;
	while (at < size) {
		want = size - at;
		before = at;
		if ((r = remote_piece(spec, which, at, want > 65536 ? 65536 :
		    (int)want, &at, &size)) != 0)
			return r == 1 ? 0 : 1;
		if (at == before)
			break;		/* it shrank under us */
	}
	while (follow) {
		fflush(stdout);
		usleep(TAIL_POLL_US);
		if ((r = remote_piece(spec, which, at, 65536, &at, &size)) != 0)
			return r == 1 ? 0 : 1;
		/* Evicted and started again elsewhere: a new file. */
		if (size < at)
			at = 0;
	}
	return 0;
}

/* Copy FD's bytes [*AT, end) to stdout; -1 on a write error. */
static int
copy_from(int fd, long long *at)
{
	char buf[65536];
	ssize_t n;

	for (;;) {
		n = pread(fd, buf, sizeof(buf), (off_t)*at);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
			return -1;
		*at += n;
	}
}

int
main(int argc, char **argv)
{
	const char *which = "Out", *stream = "StreamOut", *idarg = NULL;
	struct job_spec spec;
	struct passwd *pw;
	struct stat st;
	struct ad *ad;
	char *constraint, *owner = NULL, *file = NULL, *iwd = NULL, *path;
	char me[LOGIN_NAME_MAX + 1], *end;
	long long maxbytes = TAIL_DEFAULT_BYTES, at;
	int i, follow = 0, gone, streamed, fd, rc = 0;

	common_init(argv[0]);
	signal(SIGPIPE, SIG_IGN);
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "-help") == 0)
			return usage(stdout);
		if (strcmp(argv[i], "-f") == 0 ||
		    strcmp(argv[i], "-follow") == 0)
			follow = 1;
		else if (strcmp(argv[i], "-stderr") == 0) {
			which = "Err";
			stream = "StreamErr";
		} else if (strcmp(argv[i], "-stdout") == 0) {
			which = "Out";
			stream = "StreamOut";
		} else if (strcmp(argv[i], "-maxbytes") == 0) {
			if (++i == argc || (maxbytes = strtoll(argv[i], &end,
			    10), *end != '\0') || argv[i][0] == '\0' ||
			    maxbytes < 0) {
				log_warnx("-maxbytes needs a number of bytes");
				return usage(stderr);
			}
		} else if (argv[i][0] == '-') {
			log_warnx("unknown option %s", argv[i]);
			return usage(stderr);
		} else if (idarg != NULL) {
			log_warnx("one job at a time (%s and %s)", idarg,
			    argv[i]);
			return usage(stderr);
		} else
			idarg = argv[i];
	}
	if (idarg == NULL || job_spec_parse(idarg, &spec) == -1 ||
	    spec.kind != JOB_SPEC_PROC) {
		log_warnx("%s: a job is named C.P", idarg ? idarg :
		    "no job named");
		return usage(stderr);
	}
	constraint = job_spec_constraint(&spec);
	if ((ad = job_fetch(constraint, &gone)) == NULL) {
		if (gone)
			log_warnx("job %s is not in the queue", idarg);
		free(constraint);
		return 1;
	}

	/* The owner's, or the queue's super users'. */
	if ((pw = getpwuid(getuid())) != NULL)
		snprintf(me, sizeof(me), "%s", pw->pw_name);
	else
		snprintf(me, sizeof(me), "%u", (unsigned)getuid());
	if (ad_get_string(ad, "Owner", &owner) == -1)
		owner = xstrdup("?");
	if (getuid() != 0 && strcmp(owner, me) != 0 &&
	    !words_has(param("QUEUE_SUPER_USERS"), me)) {
		log_warnx("job %s is %s's, not yours", idarg, owner);
		rc = 1;
		goto out;
	}
	if (!job_running(ad)) {
		log_warnx("job %s is not running", idarg);
		rc = 1;
		goto out;
	}
	if (ad_get_string(ad, which, &file) == -1 || *file == '\0' ||
	    strcmp(file, "/dev/null") == 0) {
		log_warnx("job %s has no %s file", idarg, *which == 'O' ?
		    "output" : "error");
		rc = 1;
		goto out;
	}
	if (ad_get_bool(ad, stream, &streamed) == 0 && !streamed) {
		/* Not streamed: only its execute host has it. */
		signal(SIGPIPE, SIG_DFL);
		rc = tail_remote(&spec, *which == 'E', maxbytes, follow);
		goto out;
	}
	if (file[0] != '/' && ad_get_string(ad, "Iwd", &iwd) == 0)
		path = xasprintf("%s/%s", iwd, file);
	else
		path = xstrdup(file);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1 ||
	    fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		log_warnx("cannot read %s: %s", path, fd == -1 ?
		    strerror(errno) : "not a regular file");
		if (fd != -1)
			close(fd);
		free(path);
		rc = 1;
		goto out;
	}
	free(path);
	signal(SIGPIPE, SIG_DFL);
	at = (long long)st.st_size > maxbytes ? (long long)st.st_size -
	    maxbytes : 0;
	if (copy_from(fd, &at) == -1)
		rc = 1;
	while (follow && rc == 0) {
		fflush(stdout);
		usleep(TAIL_POLL_US);
		/* Evicted and started again elsewhere: a new file. */
		if (fstat(fd, &st) == 0 && (long long)st.st_size < at)
			at = 0;
		if (copy_from(fd, &at) == -1) {
			rc = 1;
			break;
		}
		ad_free(ad);
		if ((ad = job_fetch(constraint, &gone)) == NULL ||
		    !job_running(ad)) {
			/* What the job wrote last came before it left. */
			if (copy_from(fd, &at) == -1 || (ad == NULL && !gone))
				rc = 1;
			break;
		}
	}
	close(fd);
out:
	if (fflush(stdout) == EOF || ferror(stdout)) {
		log_warnx("cannot write the output");
		rc = 1;
	}
	ad_free(ad);
	free(owner);
	free(file);
	free(iwd);
	free(constraint);
	return rc;
}
