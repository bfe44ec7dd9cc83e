/*
 * remote_io_job: the job of bench/remote_io_bench.sh, relinked with
 * condor_cc and run in the standard universe, so that its file calls go
 * to the shadow.  In its working directory (the submitting side):
 *
 *   remote_io_job MIB CALLS
 *
 * writes a file of MIB MiB in 1 MiB writes (fsync not included), reads
 * it back in 1 MiB reads, then makes CALLS preads of 1 byte at
 * scattered offsets, and prints
 *
 *   write_gibs G
 *   read_gibs G
 *   pread_us U
 *
 * (GiB a second; microseconds a call, the mean).  The file is removed.
 */
#include <fcntl.h>
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

int
main(int argc, char **argv)
{
	const char *path = "remote_io.data";
	long mib, calls, i;
	char *buf, c;
	double t;
	int fd;

	if (argc != 3)
		return 2;
	mib = atol(argv[1]);
	calls = atol(argv[2]);
	if (mib <= 0 || calls <= 0 || (buf = malloc(BUF)) == NULL)
		return 2;
	for (i = 0; i < BUF; i++)
		buf[i] = (char)(i * 2654435761u >> 13);
	if ((fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600)) == -1) {
		perror(path);
		return 1;
	}
	t = now();
	for (i = 0; i < mib; i++)
		if (write(fd, buf, BUF) != BUF) {
			perror("write");
			return 1;
		}
	printf("write_gibs %.6f\n", mib / 1024.0 / (now() - t));
	if (lseek(fd, 0, SEEK_SET) != 0)
		return 1;
	t = now();
	for (i = 0; i < mib; i++)
		if (read(fd, buf, BUF) != BUF) {
			perror("read");
			return 1;
		}
	printf("read_gibs %.6f\n", mib / 1024.0 / (now() - t));
	t = now();
	for (i = 0; i < calls; i++)
		if (pread(fd, &c, 1, (i * 7919 % mib) << 20) != 1) {
			perror("pread");
			return 1;
		}
	printf("pread_us %.2f\n", (now() - t) * 1e6 / calls);
	close(fd);
	unlink(path);
	return 0;
}
