/*
 * remote_edge.c: a standard-universe test job for the edges of the
 * remote system calls: bad pointers passed to forwarded calls (EFAULT or
 * a short count, as natively, never a crash), and poll/select on files.
 * Run natively and under Condor in directories holding the same in.txt;
 * stdout must be identical.  What differs by design (epoll is refused
 * under Condor) goes to stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <stdint.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* Hidden from the compiler, which would warn about it. */
static void *volatile bad_ptr = (void *)(uintptr_t)1;
#define BAD	((void *)bad_ptr)

static void
report(const char *what, long r)
{
	if (r < 0)
		printf("%-28s -1 %s\n", what, strerrorname_np(errno));
	else
		printf("%-28s %ld\n", what, r);
	fflush(stdout);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *two, *ro, buf[64];
	struct stat st;
	struct iovec iov[2];
	struct pollfd p[3];
	struct timeval tv;
	struct timespec ts;
	fd_set r, w, e;
	sigset_t mask;
	double t0;
	int fd, out;
	long n;

	/* Descriptor 60 stands for a closed one: closed here in case the
	 * native run inherited it.  It is below 64 because select ignores
	 * descriptors past the size of the process's descriptor table,
	 * which natively depends on what the parent had open. */
	close(60);

	/* A mapping whose second page is gone, and a read-only page. */
	two = mmap(0, 2 * pg, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(two + pg, pg);
	memset(two, 'x', pg);
	ro = mmap(0, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	fd = open("in.txt", O_RDONLY);
	report("open in.txt", fd);
	report("read to BAD", read(fd, BAD, 10));
	report("read into read-only", read(fd, ro, 10));
	n = read(fd, buf, 10);
	report("read after the faults", n);
	printf("  data [%.*s]\n", (int)(n > 0 ? n : 0), buf);
	report("read past the mapping", read(fd, two + pg - 4, 10));
	printf("  data [%.4s]\n", two + pg - 4);
	n = read(fd, buf, 10);
	report("read after the short one", n);
	printf("  data [%.*s]\n", (int)(n > 0 ? n : 0), buf);
	report("pread to BAD", pread(fd, BAD, 10, 0));
	report("readv bad iovec", readv(fd, BAD, 2));
	iov[0].iov_base = buf;
	iov[0].iov_len = 4;
	iov[1].iov_base = BAD;
	iov[1].iov_len = 4;
	report("readv bad second buffer", readv(fd, iov, 2));
	report("open BAD", open(BAD, O_RDONLY));
	report("open path past mapping", open(two + pg - 1, O_RDONLY));
	report("stat BAD", stat(BAD, &st));
	report("stat to BAD", stat("in.txt", BAD));
	report("fstat into read-only", fstat(fd, (struct stat *)ro));
	report("getcwd to BAD", syscall(SYS_getcwd, BAD, 100));
	report("mkdir BAD", mkdir(BAD, 0755));
	report("rename to BAD", rename("in.txt", BAD));

	out = open("edge_out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	report("open edge_out.txt", out);
	report("write from BAD", write(out, BAD, 10));
	/* Natively 6 to 20 bytes, by file system: no count printed. */
	n = write(out, two + pg - 6, 20);
	printf("write past the mapping      %s\n", n >= 6 && n <= 20 ?
	    "wrote the readable part" : strerrorname_np(errno));
	report("writev bad iovec", writev(out, BAD, 1));
	report("pwrite from BAD", pwrite(out, BAD, 5, 0));
	report("write after the faults", write(out, "end\n", 4));

	/* poll and select on files: ready at once. */
	p[0].fd = fd;
	p[0].events = POLLIN | POLLOUT | POLLPRI;
	p[1].fd = 60;
	p[1].events = POLLIN;
	p[2].fd = -1;
	p[2].events = POLLIN;
	report("poll file, closed, -1", poll(p, 3, 1000));
	printf("  revents %#x %#x %#x\n", p[0].revents, p[1].revents,
	    p[2].revents);
	p[0].events = 0;
	report("poll no events, 0 ms", poll(p, 1, 0));
	report("poll bad array", poll(BAD, 1, 0));
	t0 = now();
	report("poll nothing, 200 ms", poll(0, 0, 200));
	printf("  slept %s\n", now() - t0 >= 0.18 ? "yes" : "no");
	ts.tv_sec = 0;
	ts.tv_nsec = 100000000;
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	t0 = now();
	report("ppoll nothing, 100 ms", ppoll(0, 0, &ts, &mask));
	printf("  slept %s\n", now() - t0 >= 0.09 ? "yes" : "no");
	p[0].events = POLLIN;
	report("ppoll file", ppoll(p, 1, &ts, &mask));

	FD_ZERO(&r);
	FD_ZERO(&w);
	FD_ZERO(&e);
	FD_SET(fd, &r);
	FD_SET(fd, &w);
	FD_SET(fd, &e);
	FD_SET(out, &w);
	tv.tv_sec = 1;
	tv.tv_usec = 0;
	report("select file r w e", select(out + 1, &r, &w, &e, &tv));
	printf("  r %d w %d %d e %d\n", FD_ISSET(fd, &r), FD_ISSET(fd, &w),
	    FD_ISSET(out, &w), FD_ISSET(fd, &e));
	FD_ZERO(&r);
	FD_SET(60, &r);
	report("select closed descriptor", select(61, &r, 0, 0, &tv));
	report("select bad set", select(out + 1, BAD, 0, 0, &tv));
	tv.tv_sec = 0;
	tv.tv_usec = 100000;
	t0 = now();
	report("select nothing, 100 ms", select(0, 0, 0, 0, &tv));
	printf("  slept %s\n", now() - t0 >= 0.09 ? "yes" : "no");
	t0 = now();
	report("pselect nothing, 100 ms", pselect(0, 0, 0, 0, &ts, &mask));
	printf("  slept %s\n", now() - t0 >= 0.09 ? "yes" : "no");
	FD_ZERO(&r);
	FD_SET(fd, &r);
	report("pselect file", pselect(fd + 1, &r, 0, 0, &ts, &mask));

	/* epoll: a kernel object on the execute host, refused under
	 * Condor; stderr only. */
	n = epoll_create1(0);
	fprintf(stderr, "epoll_create1 %s\n", n >= 0 ? "ok" :
	    strerrorname_np(errno));

	close(out);
	close(fd);
	printf("done\n");
	return 0;
}
