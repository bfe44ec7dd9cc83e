/*
 * cpu_reaper: run a command as a child subreaper and keep count of the
 * CPU of everything under it, for bench/slurm/slurm.sh (Slurm's CPU per
 * job: slurmd's slurmstepd are orphaned on purpose, and would escape a
 * count of slurmd's own children).
 *
 *   cpu_reaper FILE COMMAND [ARG...]
 *
 * runs COMMAND, forwards SIGTERM and SIGINT to it, reaps every process
 * orphaned under it, and after each one reaped writes to FILE the user
 * and system CPU seconds of all reaped so far ("USER SYS").  Exits with
 * COMMAND's status once nothing is left under it.  COMMAND is killed if
 * cpu_reaper is (SIGKILL after a SIGTERM that did not stop it), so that
 * it cannot outlive the pid its caller knows.
 */
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static volatile pid_t child;

static void
forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

static void
save(const char *path)
{
	struct rusage ru;
	char tmp[4096];
	FILE *f;

	if (getrusage(RUSAGE_CHILDREN, &ru) == -1)
		return;
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp) ||
	    (f = fopen(tmp, "w")) == NULL)
		return;
	fprintf(f, "%ld.%06ld %ld.%06ld\n", (long)ru.ru_utime.tv_sec,
	    (long)ru.ru_utime.tv_usec, (long)ru.ru_stime.tv_sec,
	    (long)ru.ru_stime.tv_usec);
	if (fclose(f) == 0)
		rename(tmp, path);
}

int
main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = forward };
	int status, code = 127;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: cpu_reaper FILE COMMAND [ARG...]\n");
		return 2;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) == -1) {
		perror("prctl");
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if ((pid = fork()) == -1) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 ||
		    getppid() == 1)
			_exit(127);
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	child = pid;
	save(argv[1]);
	for (;;) {
		pid = waitpid(-1, &status, 0);
		if (pid == -1) {
			if (errno == EINTR)
				continue;
			break;		/* ECHILD: nothing left */
		}
		save(argv[1]);
		if (pid == child) {
			child = 0;
			code = WIFEXITED(status) ? WEXITSTATUS(status) :
			    128 + WTERMSIG(status);
		}
	}
	return code;
}
