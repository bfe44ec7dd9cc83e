/*
 * event.c: the poll() loop (see event.h).
 *
 * Timers live in a small unsorted array: daemons keep a handful of them,
 * so a linear scan per round is cheaper than any heap.  The descriptor
 * table is rebuilt into a pollfd array each round, followed by a copy of
 * libtirpc's svc_pollfd so that svc_getreq_poll() can be handed its own
 * slice.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <rpc/rpc.h>

#include "event.h"
#include "log.h"
#include "xalloc.h"

struct event_fd {
	int		 fd;
	short		 events;
	event_fd_fn	 fn;
	void		*arg;
};

struct event_timer {
	long		 id;		/* 0: free slot */
	double		 when;		/* monotime() */
	event_timer_fn	 fn;
	void		*arg;
};

static struct event_fd		*fds;
static size_t			 nfds, capfds;
static struct event_timer	*timers;
static size_t			 ntimers;
static long			 next_timer_id = 1;
static event_signal_fn		 sig_fns[NSIG];
static volatile sig_atomic_t	 sig_pending[NSIG];
static int			 sig_pipe[2] = { -1, -1 };
static int			 rpc_enabled;
static int			 loop_done;
static int			 loop_status;
static void			(*before_poll)(void);
static int			 gather_fd = -1;	/* event_rpc_gather */
static double			 gather_time, gather_until;

double
monotime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
set_nonblock_cloexec(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl != -1)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
}

void
event_init(void)
{
	if (sig_pipe[0] != -1)
		return;
	if (pipe(sig_pipe) == -1)
		fatal("pipe");
	set_nonblock_cloexec(sig_pipe[0]);
	set_nonblock_cloexec(sig_pipe[1]);
}

void
event_fd_add(int fd, short events, event_fd_fn fn, void *arg)
{
	size_t i;

	for (i = 0; i < nfds; i++) {
		if (fds[i].fd == fd) {
			fds[i].events = events;
			fds[i].fn = fn;
			fds[i].arg = arg;
			return;
		}
	}
	if (nfds == capfds) {
		capfds = capfds ? capfds * 2 : 16;
		fds = xreallocarray(fds, capfds, sizeof(*fds));
	}
	fds[nfds].fd = fd;
	fds[nfds].events = events;
	fds[nfds].fn = fn;
	fds[nfds].arg = arg;
	nfds++;
}

void
event_fd_del(int fd)
{
	size_t i;

	for (i = 0; i < nfds; i++) {
		if (fds[i].fd == fd) {
			/* Mark dead; compacted at the top of the next round so
			 * a callback may delete descriptors safely. */
			fds[i].fd = -1;
			fds[i].fn = NULL;
		}
	}
}

long
event_timer_add(double delay, event_timer_fn fn, void *arg)
{
	size_t i;

	for (i = 0; i < ntimers; i++)
		if (timers[i].id == 0)
			break;
	if (i == ntimers) {
		timers = xreallocarray(timers, ntimers + 1, sizeof(*timers));
		ntimers++;
	}
	if (delay < 0)
		delay = 0;
	timers[i].id = next_timer_id++;
	timers[i].when = monotime() + delay;
	timers[i].fn = fn;
	timers[i].arg = arg;
	return timers[i].id;
}

void
event_timer_cancel(long id)
{
	size_t i;

	if (id <= 0)
		return;
	for (i = 0; i < ntimers; i++)
		if (timers[i].id == id)
			timers[i].id = 0;
}

static void
event_sig_handler(int signo)
{
	int saved = errno;
	char c = (char)signo;

	sig_pending[signo] = 1;
	if (write(sig_pipe[1], &c, 1) < 0) {
		/* the pipe is full: a wake-up is already pending */
	}
	errno = saved;
}

void
event_signal_add(int signo, event_signal_fn fn)
{
	struct sigaction sa;

	event_init();
	sig_fns[signo] = fn;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = event_sig_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (signo == SIGCHLD)
		sa.sa_flags |= SA_NOCLDSTOP;
	if (sigaction(signo, &sa, NULL) == -1)
		fatal("sigaction %d", signo);
}

void
event_rpc_enable(void)
{
	rpc_enabled = 1;
}

void
event_rpc_gather(int fd, double seconds)
{
	gather_fd = fd;
	gather_time = seconds;
	gather_until = 0;
}

/*
 * The gathering descriptor was ready: serve what waits on it (at most a
 * few hundred requests, so the rest of the loop is not starved), then,
 * once it is empty, leave it alone for gather_time.
 */
static void
serve_gathered(void)
{
	int k, queued = 0;

	for (k = 0; k < 256 && !loop_done; k++) {
		if (ioctl(gather_fd, FIONREAD, &queued) == -1 || queued <= 0)
			break;
		svc_getreq_common(gather_fd);
	}
	/* Still more: no pause, the next round goes on with them. */
	if (gather_time > 0 && k < 256)
		gather_until = monotime() + gather_time;
}

void
event_exit(int status)
{
	loop_done = 1;
	loop_status = status;
}

static void
run_signals(void)
{
	char junk[64];
	int s;

	while (read(sig_pipe[0], junk, sizeof(junk)) > 0)
		;
	for (s = 1; s < NSIG; s++) {
		if (sig_pending[s]) {
			sig_pending[s] = 0;
			if (sig_fns[s] != NULL)
				sig_fns[s](s);
		}
	}
}

void
event_before_poll(void (*fn)(void))
{
	before_poll = fn;
}

/* Seconds to the next timer (-1: none). */
static double
timers_next(void)
{
	double now = monotime(), next = -1;
	int found = 0;
	size_t i;

	for (i = 0; i < ntimers; i++) {
		if (timers[i].id == 0)
			continue;
		if (!found || timers[i].when - now < next)
			next = timers[i].when - now;
		found = 1;
	}
	if (found && next < 0)
		next = 0;
	return next;
}

/* Run every timer that is due; return seconds to the next one (-1: none). */
static double
run_timers(void)
{
	double now = monotime();
	size_t i;

	for (i = 0; i < ntimers; i++) {
		if (timers[i].id != 0 && timers[i].when <= now) {
			event_timer_fn fn = timers[i].fn;
			void *arg = timers[i].arg;

			timers[i].id = 0;
			fn(arg);	/* may add timers: re-read ntimers */
		}
	}
	return timers_next();
}

static void
compact_fds(void)
{
	size_t i, j;

	for (i = j = 0; i < nfds; i++)
		if (fds[i].fd != -1)
			fds[j++] = fds[i];
	nfds = j;
}

void
event_run_once(double maxwait)
{
	static struct pollfd *pfd;
	static size_t cappfd;
	size_t n, i, nf, nsvc = 0;
	double next;
	int timeout, r;

	event_init();
	/* The end of the last turn's work (what the descriptors brought)
	 * is settled before the timers run, so that a long timer does not
	 * hold it back; then the timers' own work, before the loop may
	 * sleep.  The hook may set timers. */
	if (before_poll != NULL)
		before_poll();
	next = run_timers();
	if (loop_done)
		return;
	if (before_poll != NULL) {
		before_poll();
		next = timers_next();
	}
	if (maxwait >= 0 && (next < 0 || next > maxwait))
		next = maxwait;
	compact_fds();
	/* The descriptors polled this round: a callback may add some (and
	 * grow nfds) before the RPC slice of PFD is looked at. */
	nf = nfds;
	if (rpc_enabled && svc_max_pollfd > 0)
		nsvc = (size_t)svc_max_pollfd;
	n = 1 + nf + nsvc;
	if (n > cappfd) {
		cappfd = n;
		pfd = xreallocarray(pfd, cappfd, sizeof(*pfd));
	}
	pfd[0].fd = sig_pipe[0];
	pfd[0].events = POLLIN;
	for (i = 0; i < nf; i++) {
		pfd[1 + i].fd = fds[i].fd;
		pfd[1 + i].events = fds[i].events;
	}
	for (i = 0; i < nsvc; i++) {
		pfd[1 + nf + i].fd = svc_pollfd[i].fd;
		pfd[1 + nf + i].events = svc_pollfd[i].events;
	}
	if (gather_until > 0) {
		double left = gather_until - monotime();

		if (left > 0) {
			/* Not looked at until then (poll skips fd -1). */
			for (i = 0; i < nsvc; i++)
				if (pfd[1 + nf + i].fd == gather_fd)
					pfd[1 + nf + i].fd = -1;
			if (next < 0 || next > left)
				next = left;
		} else
			gather_until = 0;
	}
	for (i = 0; i < n; i++)
		pfd[i].revents = 0;

	if (next < 0)
		timeout = -1;
	else
		timeout = (int)(next * 1000.0) + 1;
	r = poll(pfd, n, timeout);
	if (r == -1) {
		if (errno != EINTR)
			log_warn("poll");
		return;
	}
	if (pfd[0].revents)
		run_signals();
	for (i = 0; i < nf && !loop_done; i++) {
		short rev = pfd[1 + i].revents;

		/* the table may have changed under a callback: match by fd */
		if (rev && fds[i].fd == pfd[1 + i].fd && fds[i].fn != NULL)
			fds[i].fn(fds[i].fd, rev, fds[i].arg);
	}
	if (nsvc > 0 && !loop_done) {
		int ready = 0, gathered = 0;

		for (i = 0; i < nsvc; i++)
			if (pfd[1 + nf + i].revents) {
				ready++;
				if (pfd[1 + nf + i].fd == gather_fd)
					gathered = 1;
			}
		/* The datagrams waiting go first, paused or not, and
		 * svc_getreq_poll need not look at their socket again: any
		 * other request (a query) sees every update that came
		 * before it, so gathering delays updates only while no
		 * one is looking. */
		if (ready > 0 && gather_fd != -1) {
			serve_gathered();
			for (i = 0; gathered && i < nsvc; i++)
				if (pfd[1 + nf + i].fd == gather_fd) {
					pfd[1 + nf + i].revents = 0;
					ready--;
				}
		}
		/* svc_getreq_poll indexes its own array, so hand it a slice
		 * laid out exactly like svc_pollfd. */
		if (ready > 0 && (size_t)svc_max_pollfd == nsvc)
			svc_getreq_poll(&pfd[1 + nf], ready);
	}
}

int
event_dispatch(void)
{
	loop_done = 0;
	while (!loop_done)
		event_run_once(-1);
	return loop_status;
}
