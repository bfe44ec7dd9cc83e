/*
 * mkdir_test.c: daemon_mkdir and daemon_mkdir_owned (src/common/daemon.c),
 * mkdir -p from the end up, what it makes given to an owner.
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

#include "daemon.h"
#include "test.h"

static char	top[] = "/tmp/mkdir_test.XXXXXX";

static int
is_dir(const char *rel, mode_t mode, uid_t uid)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
	    (st.st_mode & 07777) == mode && st.st_uid == uid;
}

static int
make(const char *rel, mode_t mode, uid_t uid, gid_t gid)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	return daemon_mkdir_owned(path, mode, uid, gid);
}

int
main(void)
{
	char path[512];
	uid_t other = geteuid() == 0 ? 4242 : (uid_t)-1;
	uid_t want = geteuid() == 0 ? 4242 : geteuid();
	int fd;

	umask(022);
	if (mkdtemp(top) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	CHECK("a path whose parents all exist",
	    make("a", 0755, (uid_t)-1, (gid_t)-1) == 0 &&
	    is_dir("a", 0755, geteuid()));
	CHECK("four levels at once",
	    make("b/c/d/e", 0755, other, other) == 0 &&
	    is_dir("b/c/d/e", 0755, want));
	CHECK("... each level made is given to the owner",
	    is_dir("b", 0755, want) && is_dir("b/c", 0755, want) &&
	    is_dir("b/c/d", 0755, want));
	CHECK("what already exists is not given away",
	    make("a/x", 0755, other, other) == 0 &&
	    is_dir("a", 0755, geteuid()) && is_dir("a/x", 0755, want));
	CHECK("a path that exists whole is no error",
	    make("b/c/d/e", 0755, (uid_t)-1, (gid_t)-1) == 0);
	CHECK("trailing slashes",
	    make("f/g//", 0700, (uid_t)-1, (gid_t)-1) == 0 &&
	    is_dir("f/g", 0700, geteuid()));
	CHECK("doubled slashes inside",
	    make("h//i", 0755, (uid_t)-1, (gid_t)-1) == 0 &&
	    is_dir("h/i", 0755, geteuid()));
	snprintf(path, sizeof(path), "%s/file", top);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	if (fd >= 0)
		close(fd);
	errno = 0;
	CHECK("a file in the way is an error (ENOTDIR)",
	    make("file/j", 0755, (uid_t)-1, (gid_t)-1) == -1 &&
	    errno == ENOTDIR);
	CHECK("the relative form",
	    chdir(top) == 0 && daemon_mkdir("k/l", 0755) == 0 &&
	    is_dir("k/l", 0755, geteuid()));
	CHECK("/ itself", daemon_mkdir("/", 0755) == 0);
	CHECK("an empty path is refused", daemon_mkdir("", 0755) == -1);
	{
		char *longp = malloc(8192);

		memset(longp, 'y', 8191);
		longp[0] = '/';
		longp[8191] = '\0';
		CHECK("a path longer than PATH_MAX is refused (ENAMETOOLONG)",
		    daemon_mkdir(longp, 0755) == -1 && errno == ENAMETOOLONG);
		free(longp);
	}
	if (chdir("/") == 0) {
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", top);
	}
	TEST_EXIT();
}
