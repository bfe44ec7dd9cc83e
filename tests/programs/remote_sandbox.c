/*
 * remote_sandbox.c: what a relinked job may not do on the execute host.
 * Under Condor every line must end in "refused"; the last part jumps
 * into the library's system-call gate (the fixed page at 0x200000) to
 * bypass the trap, which the sandbox's outer filter answers with EPERM.
 */
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef long (*gate_fn)(long, long, long, long, long, long, long);

static void
show(const char *what, long r, int e)
{
	printf("%-24s %s (%s)\n", what, r < 0 ? "refused" : "ALLOWED",
	    r < 0 ? strerror(e) : "");
	fflush(stdout);
}

int
main(void)
{
	gate_fn gate = (gate_fn)0x200000;
	char *argv[] = { "/bin/true", NULL };
	long r;
	pid_t pid;

	errno = 0;
	pid = fork();
	if (pid == 0)
		_exit(0);
	show("fork", pid, errno);
	errno = 0;
	show("socket", socket(AF_INET, SOCK_STREAM, 0), errno);
	errno = 0;
	show("execve", execve("/bin/true", argv, NULL), errno);
	errno = 0;
	show("kill 1", kill(1, 0), errno);
	r = gate(SYS_openat, AT_FDCWD, (long)"/etc/passwd", O_RDONLY, 0, 0, 0);
	show("gate openat", r, (int)-r);
	r = gate(SYS_open, (long)"/etc/passwd", O_RDONLY, 0, 0, 0, 0);
	show("gate open", r, (int)-r);
	r = gate(SYS_socket, AF_INET, SOCK_STREAM, 0, 0, 0, 0);
	show("gate socket", r, (int)-r);
	r = gate(SYS_clone, SIGCHLD, 0, 0, 0, 0, 0);
	if (r == 0)
		_exit(0);
	show("gate clone", r, (int)-r);
	r = gate(SYS_execve, (long)"/bin/true", (long)argv, 0, 0, 0, 0);
	show("gate execve", r, (int)-r);
	r = gate(SYS_kill, 1, 0, 0, 0, 0, 0);
	show("gate kill 1", r, (int)-r);
	return 0;
}
