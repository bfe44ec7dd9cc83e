/*
 * lazyhold MIB [stop]: fills MIB MiB of heap with a pattern, checkpoints
 * (ckpt_and_exit), and once resumed prints "restarted" (with "stop",
 * then stops its process group: itself and the restore's helper, which
 * is still loading), then checks
 * every byte (slowly enough, a page at a time from the end, that memory
 * restored on demand is still coming back while it runs) and prints the
 * number of wrong bytes.  It keeps lazyhold.dat open across the
 * checkpoint (on descriptor 3, where a caller's CONDOR_CKPT_NOTIFY_FD
 * may be too) and prints what it holds.  For the restore's own checks in
 * tests/ckpt/memory_suite.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <fcntl.h>
#include <unistd.h>
#include "condor_ckpt.h"

int
main(int argc, char **argv)
{
	size_t n = (size_t)(argc > 1 ? atol(argv[1]) : 16) << 20, i, bad = 0;
	int stop = argc > 2 && strcmp(argv[2], "stop") == 0;
	unsigned char *p = malloc(n);

	if (p == NULL) {
		perror("malloc");
		return 1;
	}
	char dat[16] = "";
	int fd = open("lazyhold.dat", O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, "data\n", 5) != 5) {
		perror("lazyhold.dat");
		return 1;
	}
	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 13 + (i >> 12));
	ckpt_and_exit();
	printf("restarted\n");
	fflush(stdout);
	if (stop)
		kill(0, SIGSTOP);
	for (i = n; i-- > 0;)
		bad += p[i] != (unsigned char)(i * 13 + (i >> 12));
	printf("%zu wrong bytes of %zu\n", bad, n);
	if (pread(fd, dat, sizeof(dat) - 1, 0) < 0)
		perror("lazyhold.dat");
	printf("lazyhold.dat on %d: %s", fd, dat);
	return bad != 0;
}
