/*
 * NAME
 *	condor_kbdd - tells the startd when the keyboard or mouse was used
 *
 * DESCRIPTION
 *	A workstation's owner may use it without any terminal the startd
 *	can see: at a graphical console, keystrokes and mouse movements
 *	reach no tty.  The kbdd watches the input devices instead and tells
 *	its startd the time of the last use, so that KeyboardIdle counts
 *	them and a job is suspended the moment the owner is back.
 *
 *	It opens every file KBDD_DEVICES names (shell patterns, separated
 *	by commas or blanks; default /dev/input/event*, the kernel's
 *	keyboards, mice and touchpads) that it may read: character devices
 *	and FIFOs only.  Any data read from one is activity; what it says
 *	does not matter and is thrown away.  The list is expanded again
 *	every 10 seconds, so devices plugged in later are watched, and one
 *	that fails (unplugged) is closed.  A FIFO whose
 *	writer left is opened again at once (a test or another program may
 *	feed activity through one).
 *
 *	The first activity after a quiet second is reported at once; then
 *	at most one report a second, the last one carrying the latest
 *	time.  The last activity is reported again every 60 seconds, so
 *	that a startd that restarted learns it.  A report the startd did
 *	not take is logged once per outage and tried again every 2
 *	seconds.  The startd works without a kbdd; the master starts the
 *	kbdd when DAEMON_LIST names KBDD.
 *
 *	An X display is watched too where one is named (KBDD_X_DISPLAY,
 *	default $DISPLAY): the kbdd speaks the X protocol on the display's
 *	local socket (no X library), asks the MIT-SCREEN-SAVER extension
 *	every second how long ago the last keyboard or pointer input came,
 *	and, where the display has XInput 2, takes its key, button and
 *	motion events (raw ones from every device, and those that reach the
 *	root window) as activity the moment they come.  This counts input
 *	that reaches no device the kbdd may read (a remote desktop,
 *	synthetic input).  Its cookie comes
 *	from the Xauthority files of KBDD_XAUTHORITY (default $XAUTHORITY,
 *	then ~/.Xauthority).  A display that is not there, refuses us or
 *	goes away is logged once and tried again every 10 seconds; the
 *	devices are watched all the same.
 *
 * PROTOCOL
 *	Client of STARTD_PROG (include/startd_rpc.x) on the startd's
 *	Unix-domain socket $(LOG)/.startd_socket: STARTD_KBDD_ACTIVITY
 *	with the time of the last activity in milliseconds since 1970.
 *	Serves nothing.
 *
 * SIGNALS
 *	SIGTERM, SIGINT: exit.  SIGHUP: re-read the configuration and the
 *	device list.
 *
 * CONFIGURATION
 *	KBDD_DEVICES, KBDD_X_DISPLAY, KBDD_XAUTHORITY, LOG, KBDD_LOG,
 *	RPC_TIMEOUT (at most 5 s is used: a local call).
 *
 * FILES
 *	$(LOG)/KbdLog; reads the devices; $(LOG)/.startd_socket; the X
 *	display's socket /tmp/.X11-unix/XN and the Xauthority files.
 */
#include <sys/stat.h>
#include <sys/time.h>

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rpc/rpc.h>

#include "buf.h"
#include "config.h"
#include "daemon.h"
#include "event.h"
#include "log.h"
#include "rpcutil.h"
#include "startd_rpc.h"
#include "xalloc.h"
#include "kbdd_xidle.h"

#define KBDD_RESCAN	10	/* seconds between expansions of the list */
#define KBDD_HEARTBEAT	60	/* seconds between repeated reports */
#define KBDD_MIN_GAP	1.0	/* seconds between reports */
#define KBDD_RETRY	2.0	/* seconds before a failed report again */
#define KBDD_MAX_DEVICES 256
#define KBDD_READ	4096	/* bytes read from a device at once */
#define KBDD_X_POLL	1.0	/* seconds between idle-time queries */
#define KBDD_X_TIMEOUT	2	/* seconds for the display to answer */
#define KBDD_X_JITTER	1000	/* ms: input older than this is news */

struct device {
	char	*path;
	int	 fd;		/* -1: not open */
	int	 listed;	/* matched the list at the last expansion */
	int	 err;		/* last errno complained of; 0 none */
	int	 announced;	/* "watching" was logged */
};

static struct device	 devices[KBDD_MAX_DEVICES];
static size_t		 ndevices;
static long long	 last_activity;	/* ms since 1970; 0: none yet */
static long long	 last_reported;	/* what the startd took */
static double		 last_sent = -1e9;	/* monotime of a report */
static long		 report_timer, rescan_timer, heartbeat_timer;
static CLIENT		*startd;
static int		 startd_down;	/* complained of */
static struct xidle	*xdisp;		/* the X display; NULL: none now */
static int		 xdisp_fd = -1;	/* watched for its input events */
static char		*xdisp_name;	/* its name; NULL: none watched */
static char		 xdisp_err[256];	/* last complaint */
static long		 xdisp_timer;

static long long
now_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static void	report_tick(void *);

static void
arm_report(double delay)
{
	if (report_timer != 0)
		return;
	report_timer = event_timer_add(delay > 0 ? delay : 0, report_tick,
	    NULL);
}

/* Send the last activity to the startd; 0 or -1 (it retries). */
static int
report(void)
{
	long timeout = param_int("RPC_TIMEOUT", 20);
	char err[512], *path;
	status_x res;
	quad_t when = last_activity;

	if (timeout < 1 || timeout > 5)
		timeout = 5;	/* a local call: the kbdd must not stall */
	last_sent = monotime();
	if (startd == NULL) {
		path = xasprintf("%s/%s", param("LOG"), STARTD_SOCKET_NAME);
		startd = rpc_connect_unix(path, PROG_STARTD, 1, (int)timeout,
		    err, sizeof(err));
		free(path);
		if (startd == NULL)
			goto fail;
	}
	memset(&res, 0, sizeof(res));
	if (rpc_invoke(startd, STARTD_KBDD_ACTIVITY, (xdrproc_t)xdr_quad_t,
	    &when, (xdrproc_t)xdr_status_x, &res, err, sizeof(err)) == -1) {
		rpc_close(startd);
		startd = NULL;
		goto fail;
	}
	if (res.code != 0) {
		snprintf(err, sizeof(err), "refused: %s", res.message ?
		    res.message : "");
		xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
		goto fail;
	}
	xdr_free((xdrproc_t)xdr_status_x, (char *)&res);
	if (startd_down)
		log_info("the startd takes our reports again");
	startd_down = 0;
	last_reported = when;
	return 0;
fail:
	if (!startd_down)
		log_warnx("cannot report activity to the startd: %s; "
		    "trying again", err);
	startd_down = 1;
	arm_report(KBDD_RETRY);
	return -1;
}

static void
report_tick(void *arg)
{
	report_timer = 0;
	if (last_activity > last_reported || startd_down)
		report();
}

/* Input at AT (ms since 1970): report now, or as soon as a second has
 * passed since the last report. */
static void
activity_at(long long at)
{
	double since;

	if (at <= last_activity)
		return;
	last_activity = at;
	since = monotime() - last_sent;
	if (report_timer != 0)
		return;		/* the next report carries it */
	if (since >= KBDD_MIN_GAP)
		report();
	else
		arm_report(KBDD_MIN_GAP - since);
}

static void	device_open(struct device *);

static void
device_close(struct device *d)
{
	if (d->fd == -1)
		return;
	event_fd_del(d->fd);
	close(d->fd);
	d->fd = -1;
}

static void
on_device(int fd, short revents, void *arg)
{
	struct device *d = arg;
	char buf[KBDD_READ];
	ssize_t n;
	int got = 0, err;

	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n > 0) {
			got = 1;
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		break;
	}
	err = errno;	/* the report below makes calls of its own */
	if (got)
		activity_at(now_ms());
	if (n == -1 && (err == EAGAIN || err == EWOULDBLOCK))
		return;
	if (n == 0) {
		/* A FIFO whose writer left: wait for the next one. */
		device_close(d);
		device_open(d);
		return;
	}
	errno = err;
	log_warn("%s", d->path);
	d->err = err;
	device_close(d);	/* unplugged: the next expansion sees */
}

static void
device_open(struct device *d)
{
	struct stat st;
	int fd;

	fd = open(d->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd == -1) {
		if (d->err != errno)
			log_warn("cannot watch %s", d->path);
		d->err = errno;
		return;
	}
	if (fstat(fd, &st) == -1 || (!S_ISCHR(st.st_mode) &&
	    !S_ISFIFO(st.st_mode))) {
		/* A regular file is always readable: no activity in it. */
		if (d->err != EINVAL)
			log_warnx("cannot watch %s: not a device or a FIFO",
			    d->path);
		d->err = EINVAL;
		close(fd);
		return;
	}
	if (d->err != 0 || !d->announced)
		log_info("watching %s", d->path);
	d->announced = 1;
	d->err = 0;
	d->fd = fd;
	event_fd_add(fd, POLLIN, on_device, d);
}

static struct device *
device_find(const char *path)
{
	size_t i;

	for (i = 0; i < ndevices; i++)
		if (strcmp(devices[i].path, path) == 0)
			return &devices[i];
	return NULL;
}

/* PATH matched the list: open it if it is not. */
static void
device_listed(const char *path)
{
	struct device *d = device_find(path);

	if (d == NULL) {
		if (ndevices == KBDD_MAX_DEVICES)
			return;
		d = &devices[ndevices++];
		memset(d, 0, sizeof(*d));
		d->path = xstrdup(path);
		d->fd = -1;
	}
	d->listed = 1;
	if (d->fd == -1)
		device_open(d);
}

/* Expand KBDD_DEVICES again; close what no longer matches. */
static void
rescan(void)
{
	const char *value = param("KBDD_DEVICES");
	char *copy, *tok, *save = NULL;
	glob_t g;
	size_t i, w;
	int open_now = 0;

	for (i = 0; i < ndevices; i++)
		devices[i].listed = 0;
	copy = xstrdup(value != NULL ? value : "");
	for (tok = strtok_r(copy, ", \t\n", &save); tok != NULL;
	    tok = strtok_r(NULL, ", \t\n", &save)) {
		memset(&g, 0, sizeof(g));
		if (glob(tok, GLOB_NOSORT, NULL, &g) == 0) {
			for (i = 0; i < g.gl_pathc; i++)
				device_listed(g.gl_pathv[i]);
		} else if (strpbrk(tok, "*?[") == NULL)
			device_listed(tok);	/* complain of it */
		globfree(&g);
	}
	free(copy);
	for (i = w = 0; i < ndevices; i++) {
		if (!devices[i].listed) {
			device_close(&devices[i]);
			free(devices[i].path);
			continue;
		}
		if (devices[i].fd != -1)
			open_now++;
		if (w != i) {
			devices[w] = devices[i];
			/* The loop's argument moved with it. */
			if (devices[w].fd != -1)
				event_fd_add(devices[w].fd, POLLIN,
				    on_device, &devices[w]);
		}
		w++;
	}
	ndevices = w;
	if (open_now == 0)
		log_debug("no input device to watch (KBDD_DEVICES = %s)",
		    value != NULL ? value : "");
}

static void
rescan_tick(void *arg)
{
	rescan();
	rescan_timer = event_timer_add(KBDD_RESCAN, rescan_tick, NULL);
}

static void
heartbeat_tick(void *arg)
{
	if (last_activity > 0 && report_timer == 0)
		report();
	heartbeat_timer = event_timer_add(KBDD_HEARTBEAT, heartbeat_tick,
	    NULL);
}

/* The display to watch: KBDD_X_DISPLAY, else $DISPLAY; NULL none. */
static char *
x_display_name(void)
{
	const char *d = param("KBDD_X_DISPLAY");

	if (d == NULL || *d == '\0')
		d = getenv("DISPLAY");
	return d != NULL && *d != '\0' ? xstrdup(d) : NULL;
}

static char *
x_auth_files(void)
{
	const char *f = param("KBDD_XAUTHORITY"), *home;
	struct buf b;

	if (f != NULL && *f != '\0')
		return xstrdup(f);
	buf_init(&b);
	if ((f = getenv("XAUTHORITY")) != NULL && *f != '\0')
		buf_printf(&b, "%s:", f);
	if ((home = getenv("HOME")) != NULL && *home != '\0')
		buf_printf(&b, "%s/.Xauthority", home);
	return buf_release(&b);
}

static void	x_tick(void *);
static void	x_complain(const char *, const char *);

static void
x_disconnect(void)
{
	if (xdisp_fd != -1)
		event_fd_del(xdisp_fd);
	xdisp_fd = -1;
	xidle_close(xdisp);
	xdisp = NULL;
}

/* Take what the display sent: input events are activity now. */
static int
x_drain(void)
{
	char why[256];
	int input;

	if (xidle_events(xdisp, &input, why, sizeof(why)) == -1) {
		x_complain("lost: ", why);
		x_disconnect();
		return -1;
	}
	if (input)
		activity_at(now_ms());
	if (xdisp_fd != -1 && xidle_fd(xdisp) == -1) {
		event_fd_del(xdisp_fd);	/* it refused the selection */
		xdisp_fd = -1;
	}
	return 0;
}

static void
on_x_events(int fd, short revents, void *arg)
{
	x_drain();
}

/* Complain of the display once per distinct reason. */
static void
x_complain(const char *what, const char *why)
{
	if (strcmp(xdisp_err, why) == 0)
		return;
	snprintf(xdisp_err, sizeof(xdisp_err), "%s", why);
	log_warnx("X display %s: %s%s; trying again every %d s", xdisp_name,
	    what, why, KBDD_RESCAN);
}

/* Ask the display how long it has been idle; connect first if need be. */
static void
x_poll(void)
{
	char why[256], *auth;
	long long idle;

	if (xdisp == NULL) {
		auth = x_auth_files();
		xdisp = xidle_open(xdisp_name, auth, KBDD_X_TIMEOUT, why,
		    sizeof(why));
		free(auth);
		if (xdisp == NULL) {
			x_complain("", why);
			return;
		}
		xdisp_fd = xidle_fd(xdisp);
		if (xdisp_fd != -1)
			event_fd_add(xdisp_fd, POLLIN, on_x_events, NULL);
		log_info("watching X display %s (its idle time%s)",
		    xdisp_name, xdisp_fd != -1 ? " and input events" : "");
		xdisp_err[0] = '\0';
	}
	if (xidle_query(xdisp, &idle, why, sizeof(why)) == -1) {
		x_complain("lost: ", why);
		x_disconnect();
		return;
	}
	if (x_drain() == -1)
		return;
	if (now_ms() - idle > last_activity + KBDD_X_JITTER)
		activity_at(now_ms() - idle);
}

static void
x_tick(void *arg)
{
	xdisp_timer = 0;
	x_poll();
	xdisp_timer = event_timer_add(xdisp != NULL ? KBDD_X_POLL :
	    KBDD_RESCAN, x_tick, NULL);
}

/* (Re)start watching the display the configuration names. */
static void
x_start(void)
{
	if (xdisp_timer != 0)
		event_timer_cancel(xdisp_timer);
	xdisp_timer = 0;
	x_disconnect();
	free(xdisp_name);
	xdisp_err[0] = '\0';
	if ((xdisp_name = x_display_name()) == NULL) {
		log_debug("no X display to watch");
		return;
	}
	x_tick(NULL);
}

static int
kbdd_init(int argc, char **argv)
{
	size_t i;
	int n = 0;

	rescan();
	for (i = 0; i < ndevices; i++)
		if (devices[i].fd != -1)
			n++;
	log_info("watching %d input device%s (KBDD_DEVICES = %s); reporting "
	    "to the startd at %s/%s", n, n == 1 ? "" : "s",
	    param("KBDD_DEVICES") ? param("KBDD_DEVICES") : "", param("LOG"),
	    STARTD_SOCKET_NAME);
	rescan_timer = event_timer_add(KBDD_RESCAN, rescan_tick, NULL);
	heartbeat_timer = event_timer_add(KBDD_HEARTBEAT, heartbeat_tick,
	    NULL);
	x_start();
	return 0;
}

static void
kbdd_reconfig(void)
{
	if (startd != NULL) {
		rpc_close(startd);
		startd = NULL;
	}
	rescan();
	x_start();
}

static void
kbdd_shutdown(void)
{
	size_t i;

	for (i = 0; i < ndevices; i++)
		device_close(&devices[i]);
	x_disconnect();
	if (startd != NULL)
		rpc_close(startd);
	startd = NULL;
}

static const struct daemon_ops kbdd_ops = {
	.name = "kbdd",
	.subsys = "KBDD",
	.drop_privs = 0,	/* devices come and go; they are root's */
	.init = kbdd_init,
	.reconfig = kbdd_reconfig,
	.shutdown = kbdd_shutdown,
};

int
main(int argc, char **argv)
{
	return daemon_main(argc, argv, &kbdd_ops);
}
