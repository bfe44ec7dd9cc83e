/*
 * tcp_loopback: the bare transport beside bench/remote_io_bench.sh's
 * remote calls: two processes on 127.0.0.1, one TCP connection
 * (TCP_NODELAY, as RPC over TCP).
 *
 *   tcp_loopback MIB CALLS
 *
 * makes CALLS round trips of 1 byte each way, then has the other side
 * send MIB MiB which this side reads in 1 MiB reads, and prints
 *
 *   pingpong_us U
 *   stream_gibs G
 */
#include <sys/socket.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define BUF	(1 << 20)	/* bytes per read or write */

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Read exactly LEN bytes; -1 on error or end of file. */
static int
read_full(int fd, char *p, size_t len)
{
	ssize_t r;

	while (len > 0) {
		if ((r = read(fd, p, len)) <= 0)
			return -1;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

/* The far side: echo CALLS bytes, then send MIB MiB. */
static int
serve(int fd, long mib, long calls)
{
	char *buf = calloc(1, BUF), c;
	long i;

	if (buf == NULL)
		return 1;
	for (i = 0; i < calls; i++)
		if (read_full(fd, &c, 1) == -1 || write(fd, &c, 1) != 1)
			return 1;
	for (i = 0; i < mib; i++)
		if (write(fd, buf, BUF) != BUF)
			return 1;
	return 0;
}

int
main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t slen = sizeof(sin);
	long mib, calls, i;
	int ls, fd, one = 1, status;
	char *buf, c = 'x';
	double t;
	pid_t pid;

	if (argc != 3)
		return 2;
	mib = atol(argv[1]);
	calls = atol(argv[2]);
	if (mib <= 0 || calls <= 0 || (buf = malloc(BUF)) == NULL)
		return 2;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((ls = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    bind(ls, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(ls, 1) == -1 ||
	    getsockname(ls, (struct sockaddr *)&sin, &slen) == -1) {
		perror("listen");
		return 1;
	}
	if ((pid = fork()) == -1)
		return 1;
	if (pid == 0) {
		if ((fd = accept(ls, NULL, NULL)) == -1)
			_exit(1);
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		_exit(serve(fd, mib, calls));
	}
	close(ls);
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1) {
		perror("connect");
		return 1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	t = now();
	for (i = 0; i < calls; i++)
		if (write(fd, &c, 1) != 1 || read_full(fd, &c, 1) == -1)
			return 1;
	printf("pingpong_us %.2f\n", (now() - t) * 1e6 / calls);
	t = now();
	for (i = 0; i < mib; i++)
		if (read_full(fd, buf, BUF) == -1)
			return 1;
	printf("stream_gibs %.3f\n", mib / 1024.0 / (now() - t));
	close(fd);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return 1;
	return 0;
}
