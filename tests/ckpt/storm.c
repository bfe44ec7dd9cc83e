/*
 * storm: opens, reads and closes a file in a tight loop while the driver
 * sends checkpoint signals as fast as it can: a checkpoint that lands
 * between a trapped call's completion and the file table's update must
 * wait for the update, never refuse or record a stale table.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int
main(void)
{
	long n = 0;
	int i, fd;
	char c;

	for (i = 0; i < 300000; i++) {
		if ((fd = open("/proc/self/exe", O_RDONLY)) == -1)
			return 1;
		if (read(fd, &c, 1) == 1)
			n++;
		close(fd);
	}
	printf("%ld opens read\n", n);
	return 0;
}
