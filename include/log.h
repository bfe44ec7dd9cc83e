/*
 * log.h: the one log module.  Daemons log to $(LOG)/<Daemon>Log with a
 * time stamp and their pid; commands log to stderr as "prog: message".
 */
#ifndef CONDOR_LOG_H
#define CONDOR_LOG_H

#include <stdarg.h>

enum log_level {
	LOG_LEVEL_DEBUG,
	LOG_LEVEL_INFO,
	LOG_LEVEL_WARN,
};

/*
 * log_init: name the program ("condor_collector") and send messages to
 * stderr.  log_open_file: from now on append to PATH instead (daemons).
 * Returns -1 with errno set if PATH cannot be opened.
 */
void	log_init(const char *progname);
int	log_open_file(const char *path);
void	log_set_stderr(int also);	/* also copy to stderr (-t) */
void	log_set_level(enum log_level);
const char *log_progname(void);

void	log_debug(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_info(const char *, ...) __attribute__((format(printf, 1, 2)));
/* log_warn appends ": strerror(errno)" and preserves errno. */
void	log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_warnx(const char *, ...) __attribute__((format(printf, 1, 2)));
void	fatal(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));
void	fatalx(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));
/* A broken invariant: log and abort(). */
void	panic(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));

#endif
