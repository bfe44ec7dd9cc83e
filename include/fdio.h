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
#include <stdio.h>
#include <sys/types.h>

int	fd_write_full(int fd, const void *buf, size_t len);
int	fd_read_full(int fd, void *buf, size_t len);

/*
 * Files written for a user, in a directory the user (and maybe others)
 * controls: never through a symbolic link planted under the name, and
 * never into a FIFO or a device where a regular file is expected, since
 * another member of a group-writable directory can plant either one.
 * The caller runs as the file's owner.
 *
 * fd_open_user: open(2) PATH with FLAGS (O_WRONLY, O_RDWR, O_CREAT,
 * O_APPEND, O_TRUNC, O_EXCL) and MODE, with O_NOFOLLOW and O_CLOEXEC
 * added; the file must be a regular file, or /dev/null itself (the one
 * device a user names as output).  The descriptor, or -1 with errno:
 * ELOOP for a symbolic link, EFTYPE_USER for anything else that is not
 * a regular file, or open's own.  O_TRUNC is applied only once the file
 * is known to be regular.
 *
 * fd_create_aside: a fresh file TMP (mode MODE), to be renamed over
 * PATH: whatever lies at TMP (a planted link, an old file) is removed
 * first and the file is created with O_EXCL, so nothing is followed;
 * and PATH, if it exists, must be a regular file, as for fd_open_user
 * (ELOOP, EFTYPE_USER), so that a link planted there is refused rather
 * than silently replaced.  The descriptor, or -1 with errno.
 *
 * fd_fopen_user, fd_fopen_aside: the same as a stdio stream opened for
 * writing ("w" truncates, "a" appends); NULL with errno.
 *
 * fd_user_strerror: the text for errno E from these ("is a symbolic
 * link: not written through" for ELOOP, "is not a regular file" ...).
 */
#define EFTYPE_USER	EMEDIUMTYPE
int	 fd_open_user(const char *path, int flags, mode_t mode);
int	 fd_create_aside(const char *path, const char *tmp, mode_t mode);
FILE	*fd_fopen_user(const char *path, const char *mode);
FILE	*fd_fopen_aside(const char *path, const char *tmp);
const char *fd_user_strerror(int e);

/*
 * fd_fsync_dir: fsync directory DIR, so that a file created or renamed
 * in it lasts a crash; 0, or -1 with errno.
 */
int	 fd_fsync_dir(const char *dir);

#endif
