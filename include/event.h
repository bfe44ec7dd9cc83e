/*
 * event.h: the one event loop every daemon runs.
 *
 * poll() over registered descriptors and the Sun RPC service descriptors,
 * one-shot timers on CLOCK_MONOTONIC (periodic work re-arms itself), and
 * signals turned into callbacks through a self-pipe: a handler only
 * records the signal and writes a byte; the loop does the work.
 */
#ifndef CONDOR_EVENT_H
#define CONDOR_EVENT_H

#include <poll.h>

typedef void	(*event_fd_fn)(int fd, short revents, void *arg);
typedef void	(*event_timer_fn)(void *arg);
typedef void	(*event_signal_fn)(int signo);

void	event_init(void);

/* Watch FD for EVENTS (POLLIN, POLLOUT); replaces an earlier watch. */
void	event_fd_add(int fd, short events, event_fd_fn fn, void *arg);
void	event_fd_del(int fd);

/*
 * event_timer_add: call FN(ARG) once, DELAY seconds from now.  Returns an
 * id (> 0) for event_timer_cancel; cancelling a fired or unknown id is
 * harmless.
 */
long	event_timer_add(double delay, event_timer_fn fn, void *arg);
void	event_timer_cancel(long id);

/*
 * event_before_poll: run FN at the end of every turn of the loop: once
 * the descriptors' callbacks and requests are done (before the timers
 * due run), and again after those timers, before the loop waits in
 * poll() (the schedd syncs its queue there once for the whole turn and
 * only then answers the turn's requests).  NULL: none.
 */
void	event_before_poll(void (*fn)(void));

/* event_signal_add: run FN from the loop whenever SIGNO arrives. */
void	event_signal_add(int signo, event_signal_fn fn);

/* event_rpc_enable: also serve the libtirpc descriptors (svc_pollfd). */
void	event_rpc_enable(void);
/*
 * event_rpc_gather: when the libtirpc datagram socket FD is ready, serve
 * every request waiting on it, then do not look at it again for SECONDS,
 * so that requests arriving meanwhile are served together: one wake-up
 * for many datagrams.  A request after a quiet spell is served at once,
 * and any other request (over TCP) is served only after the datagrams
 * that arrived before it, so no one sees older state for the wait.
 */
void	event_rpc_gather(int fd, double seconds);

/*
 * event_dispatch: run until event_exit() is called; returns its status.
 * event_run_once: one poll round, waiting at most MAXWAIT seconds (< 0:
 * until something happens); for commands and tests.
 */
int	event_dispatch(void);
void	event_run_once(double maxwait);
void	event_exit(int status);

/* Seconds on CLOCK_MONOTONIC. */
double	monotime(void);

#endif
