/*
 * startd_console.c: the owner's activity between the startd's looks.
 *
 * A look every POLLING_INTERVAL reads the console devices' access and
 * modification times; that alone would see the owner up to one interval
 * late, and on a real terminal later still (the kernel updates a tty's
 * times only every few seconds).  So the devices are also watched with
 * inotify: any access, modification or change of attributes is activity
 * at that moment, and the policy is applied at once.  The kbdd's reports
 * of keyboard and mouse use arrive here too.  Without inotify (no more
 * watches, say) the periodic look still works; a device that cannot be
 * watched is simply left to it.
 */
#include <sys/inotify.h>
#include <sys/time.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event.h"
#include "log.h"
#include "startd.h"
#include "xalloc.h"

#define WATCH_MASK	(IN_ACCESS | IN_MODIFY | IN_ATTRIB)
#define EVENT_BUF	8192	/* bytes of inotify events read at once */

static int	 inotify_fd = -1;
static int	*watches;	/* the watch descriptors in use */
static size_t	 nwatches;
static double	 inotify_last = -1;	/* seconds since 1970 */
static double	 kbdd_last = -1;

static double
now_real(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* Drain the inotify descriptor; any event on a device is activity. */
static void
on_inotify(int fd, short revents, void *arg)
{
	char buf[EVENT_BUF]
	    __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	ssize_t n;
	size_t off;
	int active = 0;

	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (off = 0; off + sizeof(*ev) <= (size_t)n;
		    off += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)(buf + off);
			if (ev->mask & WATCH_MASK)
				active = 1;
			/* IN_IGNORED: the device went; the next look
			 * watches what is there then. */
		}
	}
	if (active) {
		inotify_last = now_real();
		startd_activity("console");
	}
}

void
console_init(void)
{
	if (inotify_fd != -1)
		return;
	inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (inotify_fd == -1) {
		log_warn("inotify: the console devices are only looked at "
		    "every POLLING_INTERVAL");
		return;
	}
	event_fd_add(inotify_fd, POLLIN, on_inotify, NULL);
}

static int
has_watch(const int *list, size_t n, int wd)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (list[i] == wd)
			return 1;
	return 0;
}

void
console_watch(char *const *paths, size_t n)
{
	int *now = NULL, wd;
	size_t i, k = 0;

	if (inotify_fd == -1)
		return;
	if (n > 0)
		now = xreallocarray(NULL, n, sizeof(*now));
	/* Adding a watch that exists returns it again: cheap. */
	for (i = 0; i < n; i++) {
		wd = inotify_add_watch(inotify_fd, paths[i], WATCH_MASK);
		if (wd >= 0 && !has_watch(now, k, wd))
			now[k++] = wd;
	}
	for (i = 0; i < nwatches; i++)
		if (!has_watch(now, k, watches[i]))
			inotify_rm_watch(inotify_fd, watches[i]);
	free(watches);
	watches = now;
	nwatches = k;
}

int
console_kbdd_report(double when)
{
	double now = now_real();

	/* The kbdd's clock is ours, but a report must not lie ahead. */
	if (when > now)
		when = now;
	if (when <= kbdd_last)
		return 0;
	kbdd_last = when;
	return 1;
}

double
console_watch_latest(void)
{
	return inotify_last;
}

double
kbdd_latest(void)
{
	return kbdd_last;
}
