/*
 * box_preinit.c: a standard job with code of its own that runs before
 * the checkpoint library's start-up, from .preinit_array, where a
 * program's author may put anything.  It tries what a job must not do
 * on the execute host: open a TCP connection (to the port in argv[1],
 * where the test listens), open a file of the host, and leave a process
 * behind.  main, which runs under the library, prints what happened:
 * every attempt must have failed with EPERM, the box being the
 * starter's and already in force.
 */
#include <sys/socket.h>
#include <sys/types.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int	connect_err = -1, open_err = -1, fork_err = -1;

static void
early(int argc, char **argv, char **envp)
{
	struct sockaddr_in sin;
	int s, fd;
	pid_t pid;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((unsigned short)(argc > 1 ? atoi(argv[1]) : 9));
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		connect_err = errno;
	else if (connect(s, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		connect_err = errno;
	else {
		connect_err = 0;
		if (write(s, "preinit\n", 8) < 0)
			connect_err = errno;
	}
	if ((fd = open("/etc/passwd", O_RDONLY)) == -1)
		open_err = errno;
	else
		open_err = 0;
	if ((pid = fork()) == -1)
		fork_err = errno;
	else if (pid == 0) {
		for (;;)
			pause();
	} else
		fork_err = 0;
}

__attribute__((section(".preinit_array"), used))
static void (*const preinit)(int, char **, char **) = early;

static const char *
name(int err)
{
	return err == 0 ? "succeeded" : err == EPERM ? "EPERM" : strerror(err);
}

int
main(void)
{
	printf("connect %s\n", name(connect_err));
	printf("open %s\n", name(open_err));
	printf("fork %s\n", name(fork_err));
	return 0;
}
