/*
 * forkexec: outside Condor a relinked program must behave like the
 * native one even where Condor would refuse: fork, exec, pipes, popen,
 * and exec of a relinked program (itself) from a relinked program.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	char buf[128];
	int fds[2], status;
	pid_t pid;
	FILE *p;
	ssize_t n;

	if (argc > 1 && strcmp(argv[1], "child") == 0) {
		printf("child says %s\n", argc > 2 ? argv[2] : "nothing");
		return 7;
	}
	if (pipe(fds) == -1)
		return 1;
	if ((pid = fork()) == 0) {
		close(fds[0]);
		dup2(fds[1], 1);
		execl("/bin/echo", "echo", "hello through a pipe", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	waitpid(pid, &status, 0);
	printf("fork+exec: %s", buf);
	printf("exit status %d\n", WEXITSTATUS(status));
	if ((p = popen("echo popen works", "r")) != NULL) {
		if (fgets(buf, sizeof(buf), p) != NULL)
			printf("%s", buf);
		printf("pclose %d\n", WEXITSTATUS(pclose(p)));
	}
	fflush(stdout);
	if ((pid = fork()) == 0) {
		execl("/proc/self/exe", argv[0], "child", "again", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	printf("exec of itself: exit status %d\n", WEXITSTATUS(status));
	printf("system: %d\n", WEXITSTATUS(system("exit 3")));
	return 0;
}
