/*
 * master.h: private to condor_master.
 */
#ifndef MASTER_PRIVATE_H
#define MASTER_PRIVATE_H

#include <sys/types.h>
#include <time.h>

enum child_state {
	CHILD_STOPPED,		/* not running: off, or not yet started */
	CHILD_RUNNING,
	CHILD_BACKOFF,		/* died; waiting to be restarted */
	CHILD_STOPPING,		/* sent SIGTERM */
};

struct child {
	char		*name;		/* DAEMON_LIST entry, upper case */
	pid_t		 pid;
	enum child_state state;
	int		 off;		/* condor_off: do not restart */
	int		 unlisted;	/* left DAEMON_LIST: do not restart */
	int		 restarts;	/* consecutive quick deaths */
	time_t		 started;
	long		 timer;		/* back-off timer */
};

/* master_children.c */
void	children_sync(void);	/* DAEMON_LIST -> children, start them */
int	children_listed(const char *name);	/* in DAEMON_LIST? */
void	children_exited(pid_t pid, int status);
int	children_off(const char *name);		/* 0, or -1: unknown */
int	children_on(const char *name);
int	children_restart(const char *name);	/* 0, or -1: unknown */
void	children_signal(int signo);
void	children_stop_all(double grace);	/* blocks until gone */
int	children_describe(char *buf, size_t len);

#endif
