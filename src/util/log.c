/*
 * log.c: the one log module.
 *
 * Before log_open_file() messages go to stderr as "prog: message", which
 * is what commands want.  Daemons open $(LOG)/<Daemon>Log and from then on
 * each line carries a time stamp and the pid, and nothing goes to stderr
 * unless log_set_stderr() asked for a copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "fdio.h"
#include "log.h"

static const char	*log_name = "condor";
static int		 log_fd = -1;	/* -1: stderr only */
static int		 log_also_stderr;
static enum log_level	 log_min = LOG_LEVEL_INFO;

void
log_init(const char *progname)
{
	const char *slash = strrchr(progname, '/');

	log_name = slash ? slash + 1 : progname;
	if (getenv("CONDOR_DEBUG") != NULL)
		log_min = LOG_LEVEL_DEBUG;
}

const char *
log_progname(void)
{
	return log_name;
}

int
log_open_file(const char *path)
{
	struct stat st;
	int fd;

	/* A daemon's log names addresses, pids and jobs an attacker could
	 * use: readable by its owner and group only, even if an older
	 * release made it readable by all.  A log may lie in a directory
	 * its writer does not control alone (a DAG's DAGFILE.dagman.out):
	 * never through a planted link. */
	fd = fd_open_user(path, O_WRONLY | O_CREAT | O_APPEND, 0640);
	if (fd == -1)
		return -1;
	/* Only a regular file: a log sent to /dev/null must not change
	 * the device's mode. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_uid == geteuid() && (st.st_mode & 007) != 0)
		(void)fchmod(fd, st.st_mode & 0770);
	if (log_fd != -1)
		close(log_fd);
	log_fd = fd;
	return 0;
}

void
log_set_stderr(int also)
{
	log_also_stderr = also;
}

void
log_set_level(enum log_level level)
{
	log_min = level;
}

/*
 * Format one line and write it with a single write(2) so that lines from
 * several processes sharing a log never interleave.
 */
static void
log_emit(const char *tag, const char *fmt, va_list ap, int with_errno,
    int saved_errno)
{
	char line[4096];
	size_t n = 0;
	int r;

	if (log_fd != -1) {
		struct timeval tv;
		struct tm tm;

		gettimeofday(&tv, NULL);
		localtime_r(&tv.tv_sec, &tm);
		n = strftime(line, sizeof(line), "%m/%d/%y %H:%M:%S", &tm);
		r = snprintf(line + n, sizeof(line) - n, ".%03ld [%d] %s",
		    (long)(tv.tv_usec / 1000), (int)getpid(), tag);
		if (r > 0)
			n += (size_t)r;
	} else {
		r = snprintf(line, sizeof(line), "%s: %s", log_name, tag);
		if (r > 0)
			n = (size_t)r;
	}
	if (n < sizeof(line)) {
		r = vsnprintf(line + n, sizeof(line) - n, fmt, ap);
		if (r > 0)
			n += (size_t)r;
	}
	if (with_errno && n < sizeof(line)) {
		r = snprintf(line + n, sizeof(line) - n, ": %s",
		    strerror(saved_errno));
		if (r > 0)
			n += (size_t)r;
	}
	if (n >= sizeof(line) - 1)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (log_fd != -1) {
		if (write(log_fd, line, n) < 0) {
			/* nowhere left to report it */
		}
		if (!log_also_stderr)
			return;
	}
	if (write(STDERR_FILENO, line, n) < 0) {
		/* nothing to do */
	}
}

#define LOG_BODY(level, tag, with_errno) do {			\
	int saved = errno;					\
	va_list ap;						\
	if ((level) < log_min) {				\
		errno = saved;					\
		return;						\
	}							\
	va_start(ap, fmt);					\
	log_emit(tag, fmt, ap, with_errno, saved);		\
	va_end(ap);						\
	errno = saved;						\
} while (0)

void
log_debug(const char *fmt, ...)
{
	LOG_BODY(LOG_LEVEL_DEBUG, "", 0);
}

void
log_info(const char *fmt, ...)
{
	LOG_BODY(LOG_LEVEL_INFO, "", 0);
}

void
log_warn(const char *fmt, ...)
{
	LOG_BODY(LOG_LEVEL_WARN, "", 1);
}

void
log_warnx(const char *fmt, ...)
{
	LOG_BODY(LOG_LEVEL_WARN, "", 0);
}

void
fatal(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	log_emit("", fmt, ap, 1, saved);
	va_end(ap);
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_emit("", fmt, ap, 0, 0);
	va_end(ap);
	exit(1);
}

void
panic(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_emit("PANIC: ", fmt, ap, 0, 0);
	va_end(ap);
	abort();
}
