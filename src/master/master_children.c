/*
 * master_children.c: starting, watching and restarting the daemons of
 * DAEMON_LIST.
 *
 * A daemon that dies is restarted after a back-off that grows
 * geometrically with each quick death:
 *	MASTER_BACKOFF_CONSTANT * MASTER_BACKOFF_FACTOR ^ restarts
 * seconds, capped at MASTER_BACKOFF_CEILING.  A daemon that stayed up
 * longer than MASTER_RECOVER_FACTOR seconds is considered recovered and
 * its count starts again from zero.
 */
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "event.h"
#include "log.h"
#include "master.h"
#include "xalloc.h"

static struct child	*children;
static size_t		 nchildren;

static struct child *
child_find(const char *name)
{
	size_t i;

	for (i = 0; i < nchildren; i++)
		if (strcasecmp(children[i].name, name) == 0)
			return &children[i];
	return NULL;
}

static void
child_start(struct child *c)
{
	const char *exe = param(c->name);
	pid_t pid, master = getpid();
	char mpid[16];

	if (exe == NULL) {
		log_warnx("%s: no executable is configured (set %s)",
		    c->name, c->name);
		c->state = CHILD_STOPPED;
		return;
	}
	if (access(exe, X_OK) == -1) {
		log_warn("%s: cannot run %s", c->name, exe);
		c->state = CHILD_STOPPED;
		return;
	}
	if ((pid = fork()) == -1) {
		log_warn("%s: fork", c->name);
		return;
	}
	if (pid == 0) {
		sigset_t hup;

		/* A SIGHUP passed on right after the start waits until
		 * the daemon has its handler (daemon_main unblocks it):
		 * it must not kill the daemon. */
		sigemptyset(&hup);
		sigaddset(&hup, SIGHUP);
		sigprocmask(SIG_SETMASK, &hup, NULL);
		signal(SIGPIPE, SIG_DFL);
		/* A daemon outlives no master: a master that is killed
		 * and started again would otherwise find its old daemons
		 * still running beside the new ones.  daemon_main arms
		 * the signal again after a change of ids. */
		snprintf(mpid, sizeof(mpid), "%d", (int)master);
		setenv("CONDOR_MASTER_PID", mpid, 1);
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1 ||
		    getppid() != master)
			_exit(127);
		execl(exe, exe, "-f", (char *)NULL);
		_exit(127);
	}
	c->pid = pid;
	c->state = CHILD_RUNNING;
	c->started = time(NULL);
	log_info("started %s (%s), pid %d", c->name, exe, (int)pid);
}

static void
child_restart_timer(void *arg)
{
	struct child *c;
	char *name = arg;

	c = child_find(name);
	free(name);
	if (c == NULL || c->off || c->unlisted || c->state != CHILD_BACKOFF)
		return;
	c->timer = 0;
	child_start(c);
}

/* Is NAME (upper case) listed in DAEMON_LIST? */
static int
listed(const char *list, const char *name)
{
	char *copy = xstrdup(list), *tok, *save = NULL;
	int found = 0;

	for (tok = strtok_r(copy, ", \t", &save); tok != NULL;
	    tok = strtok_r(NULL, ", \t", &save))
		if (strcasecmp(tok, name) == 0)
			found = 1;
	free(copy);
	return found;
}

int
children_listed(const char *name)
{
	const char *list = param("DAEMON_LIST");

	return list != NULL && listed(list, name);
}

void
children_sync(void)
{
	const char *list = param("DAEMON_LIST");
	char *copy, *tok, *save = NULL;
	size_t i;

	if (list == NULL)
		list = "";
	/* Stop the daemons that left the list, and forget the restart of
	 * one waiting out its back-off.  Apart from condor_off: one put
	 * back into the list starts again. */
	for (i = 0; i < nchildren; i++) {
		struct child *c = &children[i];

		if (listed(list, c->name)) {
			c->unlisted = 0;
			continue;
		}
		c->unlisted = 1;
		if (c->state == CHILD_RUNNING) {
			log_info("%s left DAEMON_LIST; stopping it", c->name);
			c->state = CHILD_STOPPING;
			kill(c->pid, SIGTERM);
		} else if (c->state == CHILD_BACKOFF) {
			log_info("%s left DAEMON_LIST; not restarting it",
			    c->name);
			event_timer_cancel(c->timer);
			c->timer = 0;
			c->state = CHILD_STOPPED;
		}
	}
	copy = xstrdup(list);
	for (tok = strtok_r(copy, ", \t", &save); tok != NULL;
	    tok = strtok_r(NULL, ", \t", &save)) {
		struct child *c;
		char *p;

		if (strcasecmp(tok, "MASTER") == 0)
			continue;
		if ((c = child_find(tok)) == NULL) {
			children = xreallocarray(children, nchildren + 1,
			    sizeof(*children));
			c = &children[nchildren++];
			memset(c, 0, sizeof(*c));
			c->name = xstrdup(tok);
			for (p = c->name; *p; p++)
				*p = (char)toupper((unsigned char)*p);
		}
		if (c->state == CHILD_STOPPED && !c->off) {
			c->restarts = 0;
			child_start(c);
		}
	}
	free(copy);
}

void
children_exited(pid_t pid, int status)
{
	size_t i;

	for (i = 0; i < nchildren; i++) {
		struct child *c = &children[i];
		double delay;
		long ran;

		if (c->pid != pid)
			continue;
		c->pid = 0;
		ran = (long)(time(NULL) - c->started);
		if (WIFSIGNALED(status))
			log_info("%s (pid %d) died on signal %d", c->name,
			    (int)pid, WTERMSIG(status));
		else
			log_info("%s (pid %d) exited with status %d",
			    c->name, (int)pid, WEXITSTATUS(status));
		if (c->off || c->unlisted || c->state == CHILD_STOPPING) {
			c->state = CHILD_STOPPED;
			/* condor_on came, or it returned to DAEMON_LIST,
			 * while it was stopping: start it. */
			if (!c->off && !c->unlisted) {
				log_info("starting %s again", c->name);
				child_start(c);
			}
			return;
		}
		if (ran > param_int("MASTER_RECOVER_FACTOR", 300))
			c->restarts = 0;
		delay = param_double("MASTER_BACKOFF_CONSTANT", 9) *
		    pow(param_double("MASTER_BACKOFF_FACTOR", 2), c->restarts);
		if (delay > param_double("MASTER_BACKOFF_CEILING", 3600))
			delay = param_double("MASTER_BACKOFF_CEILING", 3600);
		c->restarts++;
		c->state = CHILD_BACKOFF;
		log_info("restarting %s in %.0f s", c->name, delay);
		c->timer = event_timer_add(delay, child_restart_timer,
		    xstrdup(c->name));
		return;
	}
}

/*
 * FN on each child of DAEMON_LIST that NAME names (case aside; "" names
 * all): 0, or -1 if no such child has that name.
 */
static int
children_each(const char *name, void (*fn)(struct child *))
{
	size_t i;
	int found = 0;

	for (i = 0; i < nchildren; i++) {
		if ((*name != '\0' && strcasecmp(children[i].name, name) != 0) ||
		    children[i].unlisted)
			continue;
		found = 1;
		fn(&children[i]);
	}
	return found || *name == '\0' ? 0 : -1;
}

static void
child_off(struct child *c)
{
	c->off = 1;
	if (c->state == CHILD_RUNNING) {
		log_info("condor_off: stopping %s", c->name);
		c->state = CHILD_STOPPING;
		kill(c->pid, SIGTERM);
	} else if (c->state == CHILD_BACKOFF)
		c->state = CHILD_STOPPED;
}

static void
child_on(struct child *c)
{
	c->off = 0;
	c->restarts = 0;
	if (c->state == CHILD_STOPPED || c->state == CHILD_BACKOFF) {
		log_info("condor_on: starting %s", c->name);
		event_timer_cancel(c->timer);
		child_start(c);
	}
}

/* condor_restart -daemon NAME: stop it; children_exited starts it. */
static void
child_restart(struct child *c)
{
	c->off = 0;
	c->restarts = 0;
	if (c->state == CHILD_RUNNING) {
		log_info("condor_restart: stopping %s to start it again",
		    c->name);
		c->state = CHILD_STOPPING;
		kill(c->pid, SIGTERM);
	} else if (c->state == CHILD_STOPPED || c->state == CHILD_BACKOFF) {
		log_info("condor_restart: starting %s", c->name);
		event_timer_cancel(c->timer);
		c->timer = 0;
		child_start(c);
	}
}

int
children_restart(const char *name)
{
	return children_each(name, child_restart);
}

int
children_off(const char *name)
{
	return children_each(name, child_off);
}

int
children_on(const char *name)
{
	return children_each(name, child_on);
}

void
children_signal(int signo)
{
	size_t i;

	for (i = 0; i < nchildren; i++)
		if (children[i].pid > 0)
			kill(children[i].pid, signo);
}

void
children_stop_all(double grace)
{
	double deadline = monotime() + grace;
	size_t i, left;

	for (i = 0; i < nchildren; i++) {
		children[i].off = 1;
		if (children[i].pid > 0) {
			children[i].state = CHILD_STOPPING;
			kill(children[i].pid, SIGTERM);
		}
	}
	for (;;) {
		pid_t pid;
		int status;

		while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
			children_exited(pid, status);
		for (i = left = 0; i < nchildren; i++)
			if (children[i].pid > 0)
				left++;
		if (left == 0)
			return;
		if (monotime() > deadline) {
			for (i = 0; i < nchildren; i++) {
				if (children[i].pid > 0) {
					log_warnx("%s did not stop; killing "
					    "it", children[i].name);
					kill(children[i].pid, SIGKILL);
				}
			}
			deadline = monotime() + 5;
		}
		usleep(20000);
	}
}

int
children_describe(char *buf, size_t len)
{
	static const char *states[] = {
		"stopped", "running", "restarting", "stopping",
	};
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < nchildren && off < len; i++) {
		int r = snprintf(buf + off, len - off, "%s%s=%s",
		    i ? " " : "", children[i].name,
		    states[children[i].state]);
		if (r < 0)
			break;
		off += (size_t)r;
	}
	return 0;
}
