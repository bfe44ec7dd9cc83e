/*
 * NAME
 *	condor_master - starts and watches this host's Condor daemons
 *
 * DESCRIPTION
 *	Starts every daemon named in DAEMON_LIST (COLLECTOR, NEGOTIATOR,
 *	SCHEDD, STARTD, KBDD; MASTER is itself), each as "$(NAME) -f", and
 *	restarts one that dies, with exponential back-off.  condor_off and
 *	condor_on stop and start them through its RPC service.  With no
 *	configuration at all it starts a personal pool: every daemon on
 *	this machine, listening on 127.0.0.1, state in ~/.condor, the
 *	collector on any free port (COLLECTOR_HOST port 0: the master
 *	removes a stale $(LOG)/.collector_address before its daemons could
 *	read it), and START taking its user's jobs at once (config.c's
 *	config_personal).
 *
 *	Without -f it detaches and writes its pid to
 *	$(LOG)/condor_master.pid.
 *
 *	One master runs per LOCAL_DIR: before it writes anything it takes
 *	an exclusive flock(2) on $(LOCAL_DIR)/.master_lock, held until it
 *	exits (the descriptor is close-on-exec, so its daemons do not hold
 *	it).  A second master for the same LOCAL_DIR, with -f or without,
 *	prints "condor_master: a condor_master is already running (pid N)
 *	for LOCAL_DIR DIR" on stderr and exits 1, touching nothing: not
 *	the pid file, the address files, the daemons or the ads.
 *
 * PROTOCOL
 *	Serves MASTER_PROG (include/master_rpc.x) on MASTER_PORT at
 *	BIND_ADDRESS: MASTER_NULL (a ping), MASTER_OFF and MASTER_ON (stop
 *	or start one daemon of DAEMON_LIST, or all of them: condor_off,
 *	condor_on), MASTER_RECONFIG (condor_reconfig: as SIGHUP),
 *	MASTER_RESTART (condor_restart: one daemon stopped and started
 *	again, or all of them and the master itself, which executes its
 *	own program anew in the same process, with -f) and MASTER_SHUTDOWN;
 *	changes need the caller in HOSTALLOW_WRITE.  Sends
 *	its ad (ADTYPE_MASTER) to the collector every
 *	MASTER_UPDATE_INTERVAL seconds so that condor_off HOST finds it.
 *
 * SIGNALS
 *	SIGTERM, SIGINT: stop every daemon (SIGTERM, then SIGKILL after
 *	SHUTDOWN_GRACEFUL_TIMEOUT seconds) and exit.  SIGHUP: re-read the
 *	configuration, pass SIGHUP on, start and stop daemons to match
 *	DAEMON_LIST.
 *
 * CONFIGURATION
 *	DAEMON_LIST, and for each entry NAME the executable $(NAME);
 *	MASTER_BACKOFF_CONSTANT, MASTER_BACKOFF_FACTOR,
 *	MASTER_BACKOFF_CEILING, MASTER_RECOVER_FACTOR, MASTER_PORT,
 *	MASTER_UPDATE_INTERVAL, SHUTDOWN_GRACEFUL_TIMEOUT, LOCAL_DIR, LOG,
 *	SPOOL, EXECUTE, HOST, MASTER_LOG.
 *
 * FILES
 *	$(LOG)/MasterLog, $(LOG)/condor_master.pid,
 *	$(LOG)/.master_address, $(LOCAL_DIR)/.master_lock (the lock; it
 *	holds the running master's pid).
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "ad.h"
#include "collector_client.h"
#include "config.h"
#include "daemon.h"
#include "event.h"
#include "log.h"
#include "master.h"
#include "master_rpc.h"
#include "rpcutil.h"
#include "version.h"
#include "xalloc.h"

static char	master_addr[ADDR_STRLEN];
static long	update_timer;
static int	lock_fd = -1;	/* $(LOCAL_DIR)/.master_lock, held */
static char   **master_argv;	/* as started: condor_restart runs it again */
static int	master_argc;

/* The dispatcher rpcgen writes in master_rpc_svc.c. */
void	master_prog_1(struct svc_req *, SVCXPRT *);


static int
write_allowed(struct svc_req *req, status_x *res)
{
	char from[64];

	if (rpc_host_allowed(req, "HOSTALLOW_WRITE"))
		return 1;
	rpc_caller_ip(req, from, sizeof(from));
	log_warnx("request from %s refused (HOSTALLOW_WRITE)", from);
	rpc_status(res, EPERM, "not allowed");
	return 0;
}

bool_t
master_null_1_svc(void *arg, void *res, struct svc_req *req)
{
	return TRUE;
}

bool_t
master_off_1_svc(char **name, status_x *res, struct svc_req *req)
{
	if (!write_allowed(req, res))
		return TRUE;
	if (children_off(*name ? *name : "") == -1)
		rpc_status(res, ENOENT, "no such daemon in DAEMON_LIST");
	else
		rpc_status_ok(res);
	return TRUE;
}

bool_t
master_on_1_svc(char **name, status_x *res, struct svc_req *req)
{
	if (!write_allowed(req, res))
		return TRUE;
	if (children_on(*name ? *name : "") == -1)
		rpc_status(res, ENOENT, "no such daemon in DAEMON_LIST");
	else
		rpc_status_ok(res);
	return TRUE;
}

bool_t
master_reconfig_1_svc(void *arg, status_x *res, struct svc_req *req)
{
	if (!write_allowed(req, res))
		return TRUE;
	kill(getpid(), SIGHUP);
	rpc_status_ok(res);
	return TRUE;
}

/* Close every descriptor from LOW on (close_range where the kernel has
 * it, else one by one up to the limit). */
static void
closefrom_all(int low)
{
	long max = sysconf(_SC_OPEN_MAX);
	int fd;

#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)low, ~0U, 0) == 0)
		return;
#endif
	if (max <= 0 || max > 65536)
		max = 65536;
	for (fd = low; fd < max; fd++)
		close(fd);
}

/*
 * condor_restart of the master: its daemons stopped, the master runs its
 * own program again in this process (its pid, which scripts and the
 * pid file know, stays), in the foreground since it is detached already.
 * Run from the event loop, after the caller has had its answer.
 */
static void
master_reexec(void *arg)
{
	char **av = xcalloc((size_t)master_argc + 2, sizeof(*av));
	char exe[4096];
	sigset_t none;
	ssize_t n;
	int i, k = 0, has_f = 0;

	log_info("condor_restart: stopping every daemon, then the master "
	    "starts again");
	children_stop_all(param_double("SHUTDOWN_GRACEFUL_TIMEOUT", 20));
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0 || (size_t)n >= sizeof(exe) - 1) {
		log_warn("cannot find the master's program; going on as "
		    "before");
		children_on("");
		free(av);
		return;
	}
	exe[n] = '\0';
	av[k++] = master_argv[0];
	for (i = 1; i < master_argc; i++) {
		if (strcmp(master_argv[i], "-f") == 0)
			has_f = 1;
		av[k++] = master_argv[i];
	}
	if (!has_f)
		av[k++] = "-f";
	av[k] = NULL;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* Accepted connections are not close-on-exec: none may leak into
	 * the new master and from there into its daemons. */
	closefrom_all(3);
	execv(exe, av);
	log_warn("cannot run %s again; going on as before", exe);
	children_on("");
	free(av);
}

bool_t
master_restart_1_svc(char **name, status_x *res, struct svc_req *req)
{
	if (!write_allowed(req, res))
		return TRUE;
	if (**name == '\0' || strcasecmp(*name, "MASTER") == 0) {
		event_timer_add(0, master_reexec, NULL);
		rpc_status_ok(res);
	} else if (children_restart(*name) == -1)
		rpc_status(res, ENOENT, "no such daemon in DAEMON_LIST");
	else
		rpc_status_ok(res);
	return TRUE;
}

bool_t
master_shutdown_1_svc(void *arg, status_x *res, struct svc_req *req)
{
	if (!write_allowed(req, res))
		return TRUE;
	kill(getpid(), SIGTERM);
	rpc_status_ok(res);
	return TRUE;
}

int
master_prog_1_freeresult(SVCXPRT *xprt, xdrproc_t xres, caddr_t res)
{
	xdr_free(xres, res);
	return 1;
}

static void
master_update(void *arg)
{
	char err[256], daemons[1024];
	struct ad *ad = ad_new();
	long interval = param_int("MASTER_UPDATE_INTERVAL", 300);

	ad_set_string(ad, "Name", param("HOST"));
	ad_set_string(ad, "Machine", param("HOST"));
	ad_set_string(ad, "MasterIpAddr", master_addr);
	ad_set_int(ad, "MasterPid", (long long)getpid());
	children_describe(daemons, sizeof(daemons));
	ad_set_string(ad, "Daemons", daemons);
	ad_set_string(ad, "CondorVersion", "$CondorVersion: " CONDOR_VERSION
	    " " CONDOR_RELEASE_DATE " $");
	if (collector_update(ADTYPE_MASTER, ad, err, sizeof(err)) == -1) {
		log_warnx("cannot update the collector: %s", err);
		/* The collector may simply not be up yet: try soon. */
		if (interval > 5)
			interval = 5;
	}
	ad_free(ad);
	update_timer = event_timer_add((double)interval, master_update, NULL);
}

static void
write_pid_file(void)
{
	char *path = xasprintf("%s/condor_master.pid", param("LOG"));
	FILE *f = fopen(path, "w");

	if (f == NULL || fprintf(f, "%d\n", (int)getpid()) < 0 ||
	    fclose(f) != 0)
		log_warn("cannot write %s", path);
	free(path);
}

/*
 * The pid a running master wrote into the lock file FD, or 0.  It
 * writes it just after taking the lock (and again once detached), so a
 * lock found taken but still empty is read again for a moment.
 */
static long
lock_holder(int fd)
{
	char text[32], *end;
	ssize_t n;
	long pid;
	int try;

	for (try = 0; try < 20; try++) {
		n = pread(fd, text, sizeof(text) - 1, 0);
		if (n > 0) {
			text[n] = '\0';
			pid = strtol(text, &end, 10);
			if (pid > 0 && end != text)
				return pid;
		}
		usleep(50000);
	}
	return 0;
}

/* Record our pid in the lock file we hold. */
static void
lock_write_pid(void)
{
	char text[32];
	int len;

	len = snprintf(text, sizeof(text), "%d\n", (int)getpid());
	if (ftruncate(lock_fd, 0) == -1 ||
	    pwrite(lock_fd, text, (size_t)len, 0) != len)
		log_warn("cannot write our pid in the master lock");
}

/*
 * One master per LOCAL_DIR (see the page above).  Runs before the log
 * is opened, so its refusal goes to stderr; nothing of the running
 * master's is touched.
 */
static int
master_preflight(void)
{
	const char *dir = param("LOCAL_DIR");
	char *path;
	long pid;
	int fd;

	if (dir == NULL || *dir == '\0') {
		fprintf(stderr, "condor_master: LOCAL_DIR is not set\n");
		return -1;
	}
	if (daemon_mkdir(dir, 0755) == -1) {
		fprintf(stderr, "condor_master: cannot create LOCAL_DIR %s: "
		    "%s\n", dir, strerror(errno));
		return -1;
	}
	path = xasprintf("%s/.master_lock", dir);
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	    0644)) == -1) {
		fprintf(stderr, "condor_master: cannot open %s: %s\n", path,
		    strerror(errno));
		free(path);
		return -1;
	}
	free(path);
	while (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK) {
			fprintf(stderr, "condor_master: cannot lock %s/"
			    ".master_lock: %s\n", dir, strerror(errno));
			close(fd);
			return -1;
		}
		if ((pid = lock_holder(fd)) > 0)
			fprintf(stderr, "condor_master: a condor_master is "
			    "already running (pid %ld) for LOCAL_DIR %s\n",
			    pid, dir);
		else
			fprintf(stderr, "condor_master: a condor_master is "
			    "already running for LOCAL_DIR %s\n", dir);
		close(fd);
		return -1;
	}
	lock_fd = fd;
	lock_write_pid();
	return 0;
}

static int
master_init(int argc, char **argv)
{
	static const char *dirs[] = { "LOCAL_DIR", "SPOOL", "EXECUTE", "LOG" };
	struct sockaddr_in bound;
	size_t i;
	char *socket_path;
	int fd, ufd;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		const char *d = param(dirs[i]);

		if (d == NULL || daemon_mkdir(d, 0755) == -1) {
			log_warn("cannot create %s (%s)", dirs[i],
			    d ? d : "undefined");
			return -1;
		}
	}
	/* Detached since the lock was taken: our pid is another now. */
	lock_write_pid();
	/* The execute directory is where jobs write as EXECUTE_USER. */
	chmod(param("EXECUTE"), 01777);
	fd = rpc_listen_tcp(param("BIND_ADDRESS"),
	    (int)param_int("MASTER_PORT", 0), &bound);
	if (fd == -1) {
		log_warn("cannot listen");
		return -1;
	}
	rpc_keepalive(fd);
	if (rpc_serve(fd, PROG_MASTER, 1, master_prog_1) == NULL)
		return -1;
	/* Local administrators are known by their uid here. */
	socket_path = xasprintf("%s/.master_socket", param("LOG"));
	if ((ufd = rpc_listen_unix(socket_path)) == -1 ||
	    rpc_serve(ufd, PROG_MASTER, 1, master_prog_1) == NULL)
		log_warn("cannot serve on %s", socket_path);
	free(socket_path);
	addr_format(&bound, master_addr);
	daemon_write_address("master", master_addr);
	write_pid_file();
	log_info("serving at %s", master_addr);
	/*
	 * A collector on any port is found through its address file: one
	 * left by our last run (the lock says no other master of this
	 * LOCAL_DIR runs) may name a port another user's collector holds
	 * now, so it goes before our daemons could read it.  A collector
	 * we restart later finds its own and keeps its port.
	 */
	if (collector_port_any() && children_listed("COLLECTOR")) {
		char *stale = xasprintf("%s/.collector_address",
		    param("LOG"));

		if (unlink(stale) == -1 && errno != ENOENT)
			log_warn("cannot remove %s", stale);
		free(stale);
	}
	if (config_personal())
		log_info("a personal pool (no file sets CONDOR_HOST or "
		    "COLLECTOR_HOST): the collector at %s, START %s",
		    param("COLLECTOR_HOST"), param("START") ? param("START") :
		    "undefined");
	children_sync();
	update_timer = event_timer_add(1, master_update, NULL);
	return 0;
}

static void
master_reconfig(void)
{
	children_signal(SIGHUP);
	children_sync();
	collector_disconnect();
	event_timer_cancel(update_timer);
	update_timer = event_timer_add(1, master_update, NULL);
}

static void
master_shutdown(void)
{
	char err[256];
	char *pidfile;

	children_stop_all(param_double("SHUTDOWN_GRACEFUL_TIMEOUT", 20));
	collector_invalidate(ADTYPE_MASTER, param("HOST"), err, sizeof(err));
	pidfile = xasprintf("%s/condor_master.pid", param("LOG"));
	unlink(pidfile);
	free(pidfile);
}

static const struct daemon_ops master_ops = {
	.name = "master",
	.subsys = "MASTER",
	.init = master_init,
	.reconfig = master_reconfig,
	.shutdown = master_shutdown,
	.child_exit = children_exited,
	.preflight = master_preflight,
};

int
main(int argc, char **argv)
{
	master_argc = argc;
	master_argv = argv;
	return daemon_main(argc, argv, &master_ops);
}
