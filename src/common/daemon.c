/*
 * daemon.c: the daemon skeleton (see daemon.h).
 */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth.h"
#include "config.h"
#include "daemon.h"
#include "event.h"
#include "expr.h"
#include "log.h"
#include "xalloc.h"

int daemon_foreground;

static const struct daemon_ops *ops;

void
common_init(const char *argv0)
{
	char err[1024];

	log_init(argv0);
	if (config_init(err, sizeof(err)) == -1)
		fatalx("configuration: %s", err);
	expr_set_fallback(param);
	config_report_warnings();
}

void
config_report_warnings(void)
{
	const char *w = config_warnings(), *nl;

	for (; w != NULL && *w != '\0'; w = nl + 1) {
		if ((nl = strchr(w, '\n')) == NULL)
			break;
		log_warnx("configuration: %.*s", (int)(nl - w), w);
	}
}

static int
remove_one(const char *path, const struct stat *st, int type,
    struct FTW *f)
{
	if (type == FTW_DP)
		return rmdir(path) == -1 && errno != ENOENT;
	return unlink(path) == -1 && errno != ENOENT;
}

int
daemon_remove_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == -1)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	return nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS |
	    FTW_MOUNT) == 0 ? 0 : -1;
}

int
daemon_mkdir(const char *dir, mode_t mode)
{
	return daemon_mkdir_owned(dir, mode, (uid_t)-1, (gid_t)-1);
}

/* mkdir PATH, and what is missing above it first; what is made is
 * given to UID and GID unless UID is -1.  From the end up: a path that
 * mostly exists costs a call or two, not one per component. */
static int
mkdir_up(char *path, mode_t mode, uid_t uid, gid_t gid)
{
	char *slash;
	int r;

	if (mkdir(path, mode) == 0)
		goto made;
	if (errno == EEXIST)
		return 0;
	if (errno != ENOENT || (slash = strrchr(path, '/')) == NULL ||
	    slash == path)
		return -1;
	*slash = '\0';
	r = mkdir_up(path, mode, uid, gid);
	*slash = '/';
	if (r == -1)
		return -1;
	if (mkdir(path, mode) == -1)
		return errno == EEXIST ? 0 : -1;
made:
	return uid != (uid_t)-1 && chown(path, uid, gid) == -1 ? -1 : 0;
}

int
daemon_mkdir_owned(const char *dir, mode_t mode, uid_t uid, gid_t gid)
{
	char path[PATH_MAX];
	size_t len = strlen(dir);

	if (len == 0 || len >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(path, dir, len + 1);
	while (len > 1 && path[len - 1] == '/')
		path[--len] = '\0';
	return mkdir_up(path, mode, uid, gid);
}

void
daemon_write_address(const char *name, const char *addr)
{
	char *path, *tmp;
	FILE *f;

	path = xasprintf("%s/.%s_address", param("LOG"), name);
	tmp = xasprintf("%s.tmp", path);
	if ((f = fopen(tmp, "w")) == NULL) {
		log_warn("cannot write %s", tmp);
		goto out;
	}
	fprintf(f, "%s\n", addr);
	if (fclose(f) != 0 || rename(tmp, path) == -1)
		log_warn("cannot write %s", path);
out:
	free(tmp);
	free(path);
}

char *
daemon_read_address(const char *name)
{
	char line[256], *path, *nl;
	FILE *f;

	path = xasprintf("%s/.%s_address", param("LOG"), name);
	f = fopen(path, "r");
	free(path);
	if (f == NULL)
		return NULL;
	if (fgets(line, sizeof(line), f) == NULL) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	if ((nl = strchr(line, '\n')) != NULL)
		*nl = '\0';
	return xstrdup(line);
}

static void
on_term(int signo)
{
	log_info("caught signal %d, shutting down", signo);
	if (ops->shutdown != NULL)
		ops->shutdown();
	event_exit(0);
}

static void
on_hup(int signo)
{
	char err[1024];

	log_info("caught SIGHUP, re-reading the configuration");
	if (config_init(err, sizeof(err)) == -1) {
		/* Keep running on what we had: a typo must not kill a pool. */
		log_warnx("configuration: %s; keeping the old one", err);
		return;
	}
	config_report_warnings();
	if (ops->reconfig != NULL)
		ops->reconfig();
}

static void
on_chld(int signo)
{
	pid_t pid;
	int status;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (ops->child_exit != NULL)
			ops->child_exit(pid, status);
	}
}

static void
detach(void)
{
	pid_t pid;
	int fd;

	if ((pid = fork()) == -1)
		fatal("fork");
	if (pid != 0)
		_exit(0);
	setsid();
	if ((fd = open("/dev/null", O_RDWR)) != -1) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
}

/*
 * Run as the ids CONDOR_IDS names ("uid.gid") when we are root and the
 * setting exists; the sockets are already bound.
 */
static void
drop_privileges(void)
{
	const char *ids = param("CONDOR_IDS");
	unsigned uid, gid;

	if (geteuid() != 0 || ids == NULL || *ids == '\0')
		return;
	if (sscanf(ids, "%u.%u", &uid, &gid) != 2)
		fatalx("CONDOR_IDS: expected uid.gid, got \"%s\"", ids);
	if (setgroups(0, NULL) == -1 || setgid(gid) == -1 ||
	    setuid(uid) == -1)
		fatal("cannot drop privileges to %u.%u", uid, gid);
	log_info("running as %u.%u", uid, gid);
}

/*
 * A daemon the master started stops when the master dies (SIGTERM, as
 * asked for in master_children.c).  A change of ids clears that request,
 * so it is made again after drop_privileges; a master already gone by
 * then is answered at once.
 */
static pid_t master_pid;

static void
follow_master(void)
{
	if (master_pid <= 1)
		return;
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1)
		log_warn("prctl(PR_SET_PDEATHSIG)");
	if (getppid() != master_pid) {
		log_warnx("the master (pid %d) is gone; shutting down",
		    (int)master_pid);
		kill(getpid(), SIGTERM);
	}
}

static void
usage(void)
{
	fprintf(stderr, "usage: condor_%s [-f] [-t]%s\n"
	    "  -f  stay in the foreground\n"
	    "  -t  copy the log to stderr\n",
	    ops->name, ops->usage ? ops->usage : "");
}

int
daemon_main(int argc, char **argv, const struct daemon_ops *d)
{
	char logparam[64], keyerr[512], *logdir_err = NULL;
	sigset_t none;
	const char *logpath;
	int c, to_stderr = 0, status;

	ops = d;
	log_init(argv[0]);
	while ((c = getopt(argc, argv, "+fth")) != -1) {
		switch (c) {
		case 'f':
			daemon_foreground = 1;
			break;
		case 't':
			to_stderr = 1;
			break;
		case 'h':
			usage();
			return 0;
		default:
			usage();
			return 2;
		}
	}
	common_init(argv[0]);
	if (d->preflight != NULL && d->preflight() == -1)
		return 1;
	if (getenv("CONDOR_MASTER_PID") != NULL) {
		master_pid = (pid_t)atoi(getenv("CONDOR_MASTER_PID"));
		unsetenv("CONDOR_MASTER_PID");
	}

	if (daemon_mkdir(param("LOG"), 0755) == -1)
		logdir_err = xasprintf("cannot create %s: %s", param("LOG"),
		    strerror(errno));
	snprintf(logparam, sizeof(logparam), "%s_LOG", d->subsys);
	logpath = param(logparam);
	if (logdir_err != NULL)
		fatalx("%s", logdir_err);
	if (logpath == NULL)
		fatalx("%s is not defined", logparam);
	if (log_open_file(logpath) == -1)
		fatal("cannot open %s", logpath);
	log_set_stderr(to_stderr);
	if (!daemon_foreground)
		detach();

	signal(SIGPIPE, SIG_IGN);
	event_init();
	event_signal_add(SIGTERM, on_term);
	event_signal_add(SIGINT, on_term);
	event_signal_add(SIGHUP, on_hup);
	event_signal_add(SIGCHLD, on_chld);
	/* The master starts its daemons with SIGHUP blocked until their
	 * handler is in place. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	log_info("******************************************************");
	log_info("** condor_%s starting (pid %d), config %s", d->name,
	    (int)getpid(), *config_main_file() ? config_main_file() :
	    "(defaults)");
	/* Before init, which may call other daemons; as whoever started us,
	 * to whom the key belongs. */
	if (auth_pool_key_load(1, keyerr, sizeof(keyerr)) == -1)
		fatalx("the pool key: %s", keyerr);
	if (d->init(optind < argc ? argc - optind : 0, argv + optind) == -1)
		fatalx("condor_%s: initialisation failed", d->name);
	if (d->drop_privs)
		drop_privileges();
	follow_master();
	status = event_dispatch();
	log_info("** condor_%s exiting", d->name);
	return status;
}
