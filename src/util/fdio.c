/*
 * fdio.c: whole reads and writes on a descriptor, and files opened for
 * users without following planted links (fdio.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fdio.h"

int
fd_write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
fd_read_full(int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = read(fd, p, len);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* /dev/null itself: the one device that is a legitimate output. */
static int
is_dev_null(const struct stat *st)
{
	struct stat null;

	return S_ISCHR(st->st_mode) && stat("/dev/null", &null) == 0 &&
	    S_ISCHR(null.st_mode) && st->st_rdev == null.st_rdev;
}

int
fd_open_user(const char *path, int flags, mode_t mode)
{
	struct stat st;
	int fd, trunc = flags & O_TRUNC, e;

	/*
	 * Look before opening, so that a FIFO or a device is never opened
	 * at all (an open may block or act); fstat after opening, so that
	 * what was looked at is what was opened.  O_NONBLOCK keeps a FIFO
	 * swapped in between the two from blocking the open.
	 */
	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode)) {
			errno = ELOOP;
			return -1;
		}
		if (!S_ISREG(st.st_mode) && !is_dev_null(&st)) {
			errno = EFTYPE_USER;
			return -1;
		}
	}
	fd = open(path, (flags & ~O_TRUNC) | O_NOFOLLOW | O_CLOEXEC |
	    O_NOCTTY | O_NONBLOCK, mode);
	if (fd == -1)
		return -1;
	if (fstat(fd, &st) == -1) {
		e = errno;
		goto fail;
	}
	if (is_dev_null(&st))
		return fd;
	if (!S_ISREG(st.st_mode)) {
		e = EFTYPE_USER;
		goto fail;
	}
	if ((trunc && ftruncate(fd, 0) == -1) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == -1) {
		e = errno;
		goto fail;
	}
	return fd;
fail:
	close(fd);
	errno = e;
	return -1;
}

int
fd_create_aside(const char *path, const char *tmp, mode_t mode)
{
	struct stat st;

	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		errno = S_ISLNK(st.st_mode) ? ELOOP : EFTYPE_USER;
		return -1;
	}
	if (unlink(tmp) == -1 && errno != ENOENT)
		return -1;
	return open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC | O_NOCTTY, mode);
}

static FILE *
stream(int fd, const char *mode)
{
	FILE *fp;
	int e;

	if (fd == -1)
		return NULL;
	if ((fp = fdopen(fd, mode)) == NULL) {
		e = errno;
		close(fd);
		errno = e;
	}
	return fp;
}

FILE *
fd_fopen_user(const char *path, const char *mode)
{
	int flags = O_WRONLY | O_CREAT;

	flags |= mode[0] == 'a' ? O_APPEND : O_TRUNC;
	return stream(fd_open_user(path, flags, 0644), mode[0] == 'a' ?
	    "a" : "w");
}

FILE *
fd_fopen_aside(const char *path, const char *tmp)
{
	return stream(fd_create_aside(path, tmp, 0644), "w");
}

const char *
fd_user_strerror(int e)
{
	if (e == ELOOP)
		return "is a symbolic link (not written through)";
	if (e == EFTYPE_USER)
		return "is not a regular file";
	return strerror(e);
}

int
fd_fsync_dir(const char *dir)
{
	int fd, rc, e;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	rc = fsync(fd);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}
