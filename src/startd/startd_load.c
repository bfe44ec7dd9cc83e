/*
 * startd_load.c: CondorLoadAvg, the load the job itself causes.
 *
 * The kernel's load average counts the tasks that are running or waiting
 * to run, averaged over a minute.  The job's share of it is measured the
 * same way: at each look, the time its processes spent running (utime
 * and stime, with those of children they reaped) and waiting for a
 * processor (run_delay, from schedstat) since the last look, divided by
 * the time between, is how many of its tasks were runnable on average;
 * that moves an exponential average over POLICY_LOAD_TAU seconds, as the
 * kernel's does.  NonCondorLoadAvg, what the owner's policy looks at, is
 * LoadAvg less this, so a job never makes its own machine look busy.
 *
 * The job's processes are the tree under its starter (the starter
 * included: its work is Condor's; on a partitionable machine the trees
 * under every starter), found through each task's children
 * list in /proc.  A process that escapes the tree (a daemon that forks
 * twice) counts as the owner's: the mistake is on the owner's side.
 * After the job leaves the average decays as the kernel's does, so the
 * owner does not seem to come back the moment it ends.  Tasks blocked on
 * disk count in the kernel's average but cannot be measured here: they
 * also count as the owner's.
 */
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event.h"
#include "log.h"
#include "machine.h"
#include "startd_owner.h"
#include "startd.h"
#include "xalloc.h"

#define LOAD_MIN_DT	0.25	/* seconds: closer looks keep the average */
#define LOAD_MAX_PROCS	4096	/* processes followed under one starter */

struct tracked {
	struct policy_proc	 p;
	double			 wait;	/* seconds runnable, not running */
};

static struct tracked	*prev;	/* the tree at the last sample */
static size_t		 nprev;
static double		 prev_time = -1;	/* monotime of it */
static double		 condor_load;
static int		 job_stopped = -1;
static long		 clock_ticks;

/* Read a small /proc file into BUF; 0 or -1. */
static int
read_small(const char *path, char *buf, size_t len)
{
	char *text = machine_read_file(path);

	if (text == NULL)
		return -1;
	snprintf(buf, len, "%s", text);
	free(text);
	return 0;
}

struct tree {
	struct tracked	*procs;
	size_t		 n, cap;
	pid_t		*queue;		/* pids still to visit */
	size_t		 qn, qcap;
	int		 no_children;	/* a children list was missing */
};

static void
queue_push(struct tree *t, pid_t pid)
{
	if (t->qn == t->qcap) {
		t->qcap = t->qcap ? t->qcap * 2 : 16;
		t->queue = xreallocarray(t->queue, t->qcap,
		    sizeof(*t->queue));
	}
	t->queue[t->qn++] = pid;
}

/* Queue the children listed in TEXT ("12 345 "). */
static void
queue_children(struct tree *t, const char *text)
{
	const char *s = text;
	char *end;
	long v;

	for (;;) {
		while (*s == ' ' || *s == '\n')
			s++;
		if (*s == '\0')
			return;
		errno = 0;
		v = strtol(s, &end, 10);
		if (end == s || errno != 0 || v <= 0 || v > 0x7fffffffL)
			return;
		queue_push(t, (pid_t)v);
		s = end;
	}
}

/*
 * Add process PID: its stat, the run delay of its tasks, and its
 * children (of every task) to visit.
 */
static void
visit(struct tree *t, pid_t pid)
{
	char path[128], text[4096];
	unsigned long long wait_ns, total = 0;
	struct tracked *tr;
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_small(path, text, sizeof(text)) == -1)
		return;		/* gone meanwhile */
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->procs = xreallocarray(t->procs, t->cap, sizeof(*t->procs));
	}
	tr = &t->procs[t->n];
	if (policy_parse_stat(text, &tr->p) == -1 || tr->p.pid != pid)
		return;
	t->n++;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/schedstat",
		    (int)pid, de->d_name);
		if (read_small(path, text, sizeof(text)) == 0 &&
		    policy_parse_schedstat(text, &wait_ns) == 0)
			total += wait_ns;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/children",
		    (int)pid, de->d_name);
		if (read_small(path, text, sizeof(text)) == 0)
			queue_children(t, text);
		else if (errno == ENOENT)
			t->no_children = 1;
	}
	closedir(d);
	tr->wait = (double)total / 1e9;
}

static int
in_tree(const struct tree *t, pid_t pid)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->procs[i].p.pid == pid)
			return 1;
	return 0;
}

/*
 * A kernel without children lists (CONFIG_PROC_CHILDREN): find the
 * descendants by their parents, in every /proc/PID/stat, a generation
 * per pass.
 */
static void
scan_descendants(struct tree *t)
{
	static int said;
	struct policy_proc *all = NULL;
	size_t n = 0, cap = 0, i;
	char path[64], text[4096];
	struct dirent *de;
	int pass, added;
	DIR *d;

	if (!said)
		log_info("no children lists in /proc: CondorLoadAvg scans "
		    "every process");
	said = 1;
	if ((d = opendir("/proc")) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.16s/stat", de->d_name);
		if (read_small(path, text, sizeof(text)) == -1)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			all = xreallocarray(all, cap, sizeof(*all));
		}
		if (policy_parse_stat(text, &all[n]) == 0)
			n++;
	}
	closedir(d);
	for (pass = 0, added = 1; added && pass < 64; pass++) {
		added = 0;
		for (i = 0; i < n && t->n < LOAD_MAX_PROCS; i++) {
			if (!in_tree(t, all[i].ppid) || in_tree(t, all[i].pid))
				continue;
			visit(t, all[i].pid);
			added = 1;
		}
	}
	free(all);
}

static const struct tracked *
find(const struct tracked *list, size_t n, const struct policy_proc *p)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (list[i].p.pid == p->pid &&
		    list[i].p.starttime == p->starttime)
			return &list[i];
	return NULL;
}

static double
ticks(unsigned long long t)
{
	return (double)t / (double)clock_ticks;
}

/*
 * Seconds the processes of CUR were runnable since PREV: each known
 * process's growth, all of a new one's; the times of children a parent
 * reaped since (they appear in its cutime) less what was already counted
 * of them while they lived.
 */
static double
runnable_seconds(const struct tracked *cur, size_t n)
{
	const struct tracked *c, *p;
	double busy = 0, own, child, wait;
	size_t i, j;

	for (i = 0; i < n; i++) {
		c = &cur[i];
		own = ticks(c->p.utime + c->p.stime);
		child = ticks(c->p.cutime + c->p.cstime);
		wait = c->wait;
		if ((p = find(prev, nprev, &c->p)) != NULL) {
			own -= ticks(p->p.utime + p->p.stime);
			child -= ticks(p->p.cutime + p->p.cstime);
			wait -= p->wait;
			/* Children of it that vanished were counted. */
			for (j = 0; j < nprev; j++)
				if (prev[j].p.ppid == c->p.pid &&
				    find(cur, n, &prev[j].p) == NULL)
					child -= ticks(prev[j].p.utime +
					    prev[j].p.stime + prev[j].p.cutime +
					    prev[j].p.cstime);
		}
		busy += (own > 0 ? own : 0) + (child > 0 ? child : 0) +
		    (wait > 0 ? wait : 0);
	}
	return busy;
}

void
load_sample(const pid_t *starters, size_t nstarters)
{
	struct tree t;
	double now = monotime(), busy;
	size_t i, k;
	int starter;

	if (clock_ticks == 0 && (clock_ticks = sysconf(_SC_CLK_TCK)) <= 0)
		clock_ticks = 100;
	if (prev_time >= 0 && now - prev_time < LOAD_MIN_DT)
		return;
	memset(&t, 0, sizeof(t));
	for (k = 0; k < nstarters; k++)
		if (starters[k] > 0)
			queue_push(&t, starters[k]);
	/* Breadth first; a pid seen twice (a race with exits) once. */
	for (i = 0; i < t.qn && t.n < LOAD_MAX_PROCS; i++)
		if (!in_tree(&t, t.queue[i]))
			visit(&t, t.queue[i]);
	if (t.no_children)
		scan_descendants(&t);
	free(t.queue);
	busy = runnable_seconds(t.procs, t.n);
	if (prev_time >= 0)
		condor_load = policy_load_update(condor_load,
		    busy / (now - prev_time), now - prev_time);
	job_stopped = -1;
	for (i = 0; i < t.n; i++) {
		for (k = 0, starter = 0; k < nstarters; k++)
			if (t.procs[i].p.pid == starters[k])
				starter = 1;
		if (starter)
			continue;
		if (!policy_stopped_state(t.procs[i].p.state)) {
			job_stopped = 0;
			break;
		}
		job_stopped = 1;
	}
	free(prev);
	prev = t.procs;
	nprev = t.n;
	prev_time = now;
}

double
load_condor_avg(void)
{
	/* Rounded off below a task in ten thousand: no "1e-17". */
	return condor_load < 1e-4 ? 0.0 : condor_load;
}

int
load_job_stopped(void)
{
	return job_stopped;
}
