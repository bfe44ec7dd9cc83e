/*
 * fdio_test.c: files opened for users never through a planted link, nor
 * into a FIFO or a device (fdio.h).
 *
 * checks: 12
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdio.h"
#include "test.h"

static char	dir[] = "/tmp/fdio_test.XXXXXX";

static char *
at(const char *name)
{
	static char path[4][256];
	static int n;

	n = (n + 1) % 4;
	snprintf(path[n], sizeof(path[n]), "%s/%s", dir, name);
	return path[n];
}

static void
put(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	if (fp != NULL) {
		fputs(text, fp);
		fclose(fp);
	}
}

static int
holds(const char *path, const char *text)
{
	char buf[256];
	FILE *fp = fopen(path, "r");
	size_t n;

	if (fp == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	return strcmp(buf, text) == 0;
}

int
main(void)
{
	struct stat st;
	FILE *fp;
	int fd, e;

	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	put(at("victim"), "precious\n");
	(void)symlink(at("victim"), at("out"));
	fd = fd_open_user(at("out"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	e = errno;
	CHECK("a planted link under an output's name is refused (ELOOP)",
	    fd == -1 && e == ELOOP);
	CHECK("... and its target is unchanged, not even truncated",
	    holds(at("victim"), "precious\n"));
	CHECK_STR("... with a clear reason", fd_user_strerror(e),
	    "is a symbolic link (not written through)");
	(void)mkfifo(at("fifo"), 0600);
	fd = fd_open_user(at("fifo"), O_WRONLY | O_CREAT | O_APPEND, 0644);
	CHECK("a FIFO where a file is expected is refused without blocking",
	    fd == -1 && errno == EFTYPE_USER);
	fd = fd_open_user("/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK("/dev/null is still an output", fd != -1);
	if (fd != -1)
		close(fd);
	fd = fd_open_user("/dev/zero", O_WRONLY, 0644);
	CHECK("another device is refused", fd == -1 && errno == EFTYPE_USER);
	fp = fd_fopen_user(at("log"), "a");
	if (fp != NULL) {
		fputs("one\n", fp);
		fclose(fp);
	}
	fp = fd_fopen_user(at("log"), "a");
	if (fp != NULL) {
		fputs("two\n", fp);
		fclose(fp);
	}
	CHECK("a regular file is created and appended to",
	    holds(at("log"), "one\ntwo\n"));
	fp = fd_fopen_user(at("log"), "w");
	if (fp != NULL)
		fclose(fp);
	CHECK("\"w\" truncates a regular file",
	    stat(at("log"), &st) == 0 && st.st_size == 0);

	/* Aside and renamed. */
	(void)symlink(at("victim"), at("lock"));
	fd = fd_create_aside(at("lock"), at("lock.tmp"), 0644);
	CHECK("a link planted under a renamed file's name is refused",
	    fd == -1 && errno == ELOOP);
	(void)symlink(at("victim"), at("sub.tmp"));
	fd = fd_create_aside(at("sub"), at("sub.tmp"), 0644);
	if (fd != -1) {
		(void)write(fd, "new\n", 4);
		close(fd);
	}
	CHECK("a link planted under the aside name is removed, not followed",
	    fd != -1 && holds(at("victim"), "precious\n") &&
	    lstat(at("sub.tmp"), &st) == 0 && S_ISREG(st.st_mode));
	CHECK("... and the new file holds what was written",
	    rename(at("sub.tmp"), at("sub")) == 0 && holds(at("sub"), "new\n"));
	fp = fd_fopen_aside(at("sub"), at("sub.tmp"));
	CHECK("an existing regular file may be replaced", fp != NULL);
	if (fp != NULL)
		fclose(fp);

	unlink(at("victim"));
	unlink(at("out"));
	unlink(at("fifo"));
	unlink(at("log"));
	unlink(at("lock"));
	unlink(at("sub"));
	unlink(at("sub.tmp"));
	rmdir(dir);
	TEST_EXIT();
}
