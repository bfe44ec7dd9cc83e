/*
 * fdio.h: whole reads and writes on a descriptor, across EINTR and
 * short counts.
 *
 * fd_write_full: write all LEN bytes; 0, or -1 with errno (EIO if the
 * kernel wrote nothing).  fd_read_full: read exactly LEN bytes; 0, or -1
 * with errno (EIO at end of file first).
 */
#ifndef CONDOR_FDIO_H
#define CONDOR_FDIO_H

#include <stddef.h>

int	fd_write_full(int fd, const void *buf, size_t len);
int	fd_read_full(int fd, void *buf, size_t len);

#endif
