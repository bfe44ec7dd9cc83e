/*
 * dagman_script.c: PRE and POST scripts, run on the submitting host as
 * the DAG's owner, in the node's directory, at most -maxpre and
 * -maxpost at a time.
 *
 * The command line is split at white space (no shell) after $JOB,
 * $RETRY, $MAX_RETRIES, $JOBID, $RETURN, $PRE_SCRIPT_RETURN, $DAG_STATUS
 * and $FAILED_COUNT are replaced.  A script with SCRIPT DEFER S T that
 * exits with S runs again T seconds later.  A script dies with the
 * manager (PR_SET_PDEATHSIG): a manager that restarts runs it again
 * rather than leave it running beside its second run.  A POST script's
 * end is written to the node log (event 016), which is how a manager
 * that restarts knows it ran.
 */
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "dagman.h"
#include "event.h"
#include "log.h"
#include "userlog.h"
#include "xalloc.h"

#define SCRIPT_MAX_ARGS	4096

struct script {
	size_t	node;
	int	post;
	pid_t	pid;
};

static struct script	*live;		/* running */
static size_t		 nlive, caplive;
static size_t		 npre, npost;
static size_t		*wait_q[2];	/* waiting for a slot: PRE, POST */
static size_t		 wait_head[2], wait_len[2], wait_cap[2];

void
script_queue(size_t i, int post)
{
	int bit = post ? NODE_Q_POST : NODE_Q_PRE;
	size_t k;

	if (run[i].queued & bit)
		return;
	run[i].queued |= bit;
	if (wait_head[post] + wait_len[post] == wait_cap[post]) {
		/* Slide to the front, or grow. */
		if (wait_head[post] > 0) {
			for (k = 0; k < wait_len[post]; k++)
				wait_q[post][k] =
				    wait_q[post][wait_head[post] + k];
			wait_head[post] = 0;
		} else {
			wait_cap[post] = wait_cap[post] ? wait_cap[post] * 2 :
			    64;
			wait_q[post] = xreallocarray(wait_q[post],
			    wait_cap[post], sizeof(size_t));
		}
	}
	wait_q[post][wait_head[post] + wait_len[post]++] = i;
	dagman_poke();
}

/* The command line of node I's script with the macros replaced. */
static char *
script_expand(size_t i, int post)
{
	const struct dag_node *n = &dag.nodes[i];
	const char *s = post ? n->post->cmd : n->pre->cmd;
	struct dag_counts c;
	struct buf b;
	char num[64];

	buf_init(&b);
	while (*s != '\0') {
		const char *v = NULL;
		size_t len = 0;

		if (*s == '$') {
#define WORD(w)	(strncmp(s + 1, w, strlen(w)) == 0 && (len = strlen(w)))
			if (WORD("JOBID")) {
				snprintf(num, sizeof(num), "%d.0",
				    run[i].cluster);
				v = num;
			} else if (WORD("JOB"))
				v = n->name;
			else if (WORD("RETRY")) {
				snprintf(num, sizeof(num), "%d",
				    run[i].retries);
				v = num;
			} else if (WORD("MAX_RETRIES")) {
				snprintf(num, sizeof(num), "%d", n->retry);
				v = num;
			} else if (WORD("RETURN")) {
				snprintf(num, sizeof(num), "%d",
				    run[i].job_code);
				v = num;
			} else if (WORD("PRE_SCRIPT_RETURN")) {
				snprintf(num, sizeof(num), "%d",
				    run[i].pre_code);
				v = num;
			} else if (WORD("DAG_STATUS")) {
				snprintf(num, sizeof(num), "%d", dag_status);
				v = num;
			} else if (WORD("FAILED_COUNT")) {
				node_counts(&c);
				snprintf(num, sizeof(num), "%zu", c.failed);
				v = num;
			}
#undef WORD
		}
		if (v != NULL) {
			buf_adds(&b, v);
			s += 1 + len;
		} else
			buf_addc(&b, *s++);
	}
	return buf_take(&b);
}

static void
script_start(size_t i, int post)
{
	const struct dag_node *n = &dag.nodes[i];
	char *line = script_expand(i, post), *p, *argv[SCRIPT_MAX_ARGS + 1];
	char *dir;
	pid_t pid, parent = getpid();
	int argc = 0;

	for (p = strtok(line, " \t"); p != NULL && argc < SCRIPT_MAX_ARGS;
	    p = strtok(NULL, " \t"))
		argv[argc++] = p;
	argv[argc] = NULL;
	if (argc == 0) {
		log_warnx("Node %s: empty %s script", n->name,
		    post ? "POST" : "PRE");
		free(line);
		if (post)
			node_post_done(i, 0, 1);
		else
			node_pre_done(i, 0, 1);
		return;
	}
	dir = n->dir == NULL ? xstrdup(dag_cwd) : n->dir[0] == '/' ?
	    xstrdup(n->dir) : xasprintf("%s/%s", dag_cwd, n->dir);
	log_info("Node %s: running %s script: %s", n->name,
	    post ? "POST" : "PRE", n->post != NULL && post ? n->post->cmd :
	    n->pre->cmd);
	if ((pid = fork()) == -1) {
		log_warn("Node %s: fork", n->name);
		free(line);
		free(dir);
		if (post)
			node_post_done(i, 0, 1);
		else
			node_pre_done(i, 0, 1);
		return;
	}
	if (pid == 0) {
		sigset_t none;
		int fd;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		if ((fd = open("/dev/null", O_RDONLY)) != -1) {
			dup2(fd, 0);
			close(fd);
		}
		/* Its output goes where the manager's own errors go. */
		dup2(2, 1);
		if (chdir(dir) == -1) {
			fprintf(stderr, "condor_dagman: %s: %s\n", dir,
			    strerror(errno));
			_exit(127);
		}
		execv(argv[0], argv);
		if (errno == ENOENT && strchr(argv[0], '/') == NULL)
			execvp(argv[0], argv);
		fprintf(stderr, "condor_dagman: node %s: %s: %s\n", n->name,
		    argv[0], strerror(errno));
		_exit(127);
	}
	free(line);
	free(dir);
	if (nlive == caplive) {
		caplive = caplive ? caplive * 2 : 16;
		live = xreallocarray(live, caplive, sizeof(*live));
	}
	live[nlive].node = i;
	live[nlive].post = post;
	live[nlive].pid = pid;
	nlive++;
	run[i].script = 1;
	if (post)
		npost++;
	else
		npre++;
}

void
script_schedule(void)
{
	int post;

	for (post = 0; post < 2; post++) {
		long max = post ? max_post : max_pre;

		while (wait_len[post] > 0) {
			size_t i = wait_q[post][wait_head[post]];
			int state = post ? DAG_POSTRUN : DAG_PRERUN;

			if (max > 0 && (post ? npost : npre) >= (size_t)max)
				break;
			wait_head[post]++;
			wait_len[post]--;
			if (wait_len[post] == 0)
				wait_head[post] = 0;
			run[i].queued &= ~(post ? NODE_Q_POST : NODE_Q_PRE);
			/* A stale entry: recovery moved the node on. */
			if (run[i].state != state || run[i].script)
				continue;
			script_start(i, post);
		}
	}
}

static void
defer_again(void *arg)
{
	size_t i = (size_t)arg >> 1;
	int post = (int)((size_t)arg & 1);

	script_queue(i, post);
}

int
script_reaped(pid_t pid, int status)
{
	size_t k, i;
	int post, by_signal, code;
	const struct dag_script *s;

	for (k = 0; k < nlive; k++)
		if (live[k].pid == pid)
			break;
	if (k == nlive)
		return 0;
	i = live[k].node;
	post = live[k].post;
	live[k] = live[--nlive];
	run[i].script = 0;
	if (post)
		npost--;
	else
		npre--;
	by_signal = WIFSIGNALED(status);
	code = by_signal ? WTERMSIG(status) : WEXITSTATUS(status);
	s = post ? dag.nodes[i].post : dag.nodes[i].pre;
	if (!by_signal && s->defer_time > 0 && code == s->defer_status) {
		log_info("Node %s: %s script deferred for %ld s",
		    dag.nodes[i].name, post ? "POST" : "PRE", s->defer_time);
		event_timer_add((double)s->defer_time, defer_again,
		    (void *)((i << 1) | (size_t)post));
		return 1;
	}
	if (post) {
		if (userlog_post_script(nodes_log, run[i].cluster, 0,
		    by_signal, code, dag.nodes[i].name) == -1)
			log_warn("%s", nodes_log);
		node_post_done(i, by_signal, code);
	} else
		node_pre_done(i, by_signal, code);
	dagman_poke();
	return 1;
}

int
script_running(void)
{
	return nlive > 0 || wait_len[0] > 0 || wait_len[1] > 0;
}

void
script_kill_all(void)
{
	size_t k;

	for (k = 0; k < nlive; k++)
		kill(live[k].pid, SIGKILL);
}
