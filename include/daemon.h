/*
 * daemon.h: the skeleton every Condor daemon is built on.
 *
 * daemon_main() parses the common arguments, reads the configuration,
 * opens $(<SUBSYS>_LOG), detaches unless -f, installs the signal
 * callbacks (SIGTERM/SIGINT: shut down; SIGHUP: re-read the
 * configuration; SIGCHLD: reap), calls the daemon's init, optionally
 * drops privileges, and runs the event loop.  A daemon supplies only
 * its callbacks.
 */
#ifndef CONDOR_DAEMON_H
#define CONDOR_DAEMON_H

#include <sys/types.h>

struct daemon_ops {
	const char	*name;		/* "collector": program condor_NAME */
	const char	*subsys;	/* "COLLECTOR": NAME_LOG, NAME_PORT */
	int		 drop_privs;	/* run as CONDOR_IDS after init */
	/* Bind, register, arm timers.  -1: exit with an error. */
	int		(*init)(int argc, char **argv);
	/* After SIGHUP, once the configuration was read again. */
	void		(*reconfig)(void);
	/* SIGTERM: tidy up; the skeleton exits afterwards. */
	void		(*shutdown)(void);
	/* A child ended (already reaped): pid and wait status. */
	void		(*child_exit)(pid_t pid, int status);
	/* Extra usage text for -h. */
	const char	*usage;
	/* Once the configuration is read, before the log is opened or
	 * anything written: -1 makes the program exit 1 at once (it has
	 * said why on stderr). */
	int		(*preflight)(void);
};

/* Flags parsed from the command line, for the daemon's own use. */
extern int daemon_foreground;	/* -f */

int	 daemon_main(int argc, char **argv, const struct daemon_ops *);

/*
 * daemon_write_address: record ADDR ("<ip:port>") in
 * $(LOG)/.<name>_address so that local commands find the daemon.
 * daemon_read_address: read what a daemon NAME recorded; the string is
 * allocated, NULL if there is none.
 */
void	 daemon_write_address(const char *name, const char *addr);
char	*daemon_read_address(const char *name);

/*
 * daemon_mkdir: create DIR (and its parents) with MODE; 0 or -1.
 */
int	 daemon_mkdir(const char *dir, mode_t mode);
/*
 * daemon_remove_tree: remove PATH and, if it is a directory, everything
 * below it, never following a symbolic link; only for trees the caller
 * made itself.  0, or -1 if something stays.
 */
int	 daemon_remove_tree(const char *path);
/* daemon_mkdir_owned: the same, what it creates given to UID and GID
 * ((uid_t)-1: left as made). */
int	 daemon_mkdir_owned(const char *dir, mode_t mode, uid_t uid,
	    gid_t gid);

/* common_init: what every program (daemon or command) does first:
 * log_init, read the configuration (fatal on error), and route unknown
 * names in expressions to the configuration. */
void	 common_init(const char *argv0);
/* config_report_warnings: log config_warnings(), a line each. */
void	 config_report_warnings(void);

#endif
