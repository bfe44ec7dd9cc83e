/*
 * box_liar.c: a program that claims to be relinked (the test adds an
 * empty .condor_relinked section with objcopy) but has none of the
 * library: no trap, no filter of its own.  Submitted as a standard job,
 * it must still be boxed by the starter.  It tries to connect to the
 * port in argv[1], to open a file of the host and to fork, and exits
 * with one bit per success: 0 when all three were refused.
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct sockaddr_in sin;
	int s, code = 0;
	pid_t pid;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((unsigned short)(argc > 1 ? atoi(argv[1]) : 9));
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((s = socket(AF_INET, SOCK_STREAM, 0)) != -1 &&
	    connect(s, (struct sockaddr *)&sin, sizeof(sin)) == 0) {
		code |= 1;
		if (write(s, "liar\n", 5) < 0)
			code |= 8;
	}
	if (open("/etc/passwd", O_RDONLY) != -1 || open(".", O_RDONLY) != -1)
		code |= 2;
	if ((pid = fork()) == 0) {
		for (;;)
			pause();
	} else if (pid > 0)
		code |= 4;
	return code;
}
