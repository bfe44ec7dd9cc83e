/*
 * remote_localroot.c: a standard-universe test job that looks at its
 * own root on the execute host.  Its file calls go to the shadow, so it
 * asks through the library's system-call gate (the fixed page at
 * 0x200000), whose calls the trap lets through and the sandbox's outer
 * filter allows when they open nothing: newfstatat and getcwd, run by
 * the kernel of the execute host.  It prints what it sees (stdout is at
 * the shadow), then waits for a file "go" in its initialdir, so that
 * tests/pool/standard_chroot_test.sh can compare the device and inode
 * of its local "/" with its execute directory's while that directory
 * still exists.
 */
#define _GNU_SOURCE
#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define GO_WAIT	3000	/* times 0.1 s: the longest wait for "go" */

typedef long (*gate_fn)(long, long, long, long, long, long, long);

static const gate_fn gate = (gate_fn)0x200000;

/* stat PATH on the execute host: 0, or -errno. */
static long
local_stat(const char *path, struct stat *st)
{
	return gate(SYS_newfstatat, AT_FDCWD, (long)path, (long)st, 0, 0, 0);
}

static const char *
local_kind(const char *path)
{
	struct stat st;
	long r = local_stat(path, &st);

	if (r < 0)
		return strerrorname_np((int)-r);
	if (S_ISREG(st.st_mode))
		return "regular file";
	if (S_ISDIR(st.st_mode))
		return "directory";
	return "other";
}

int
main(void)
{
	struct stat root, up, fwd;
	struct timespec tick = { 0, 100000000 };
	char cwd[PATH_MAX];
	long r;
	int i;

	if ((r = local_stat("/", &root)) < 0) {
		printf("local / %s\n", strerrorname_np((int)-r));
		return 1;
	}
	printf("local / dev %lu ino %lu\n", (unsigned long)root.st_dev,
	    (unsigned long)root.st_ino);
	r = gate(SYS_getcwd, (long)cwd, sizeof(cwd), 0, 0, 0, 0);
	printf("local cwd [%s]\n", r < 0 ? strerrorname_np((int)-r) : cwd);
	r = local_stat("/..", &up);
	printf("local /.. is local /: %s\n", r < 0 ?
	    strerrorname_np((int)-r) : up.st_dev == root.st_dev &&
	    up.st_ino == root.st_ino ? "yes" : "no");
	printf("local /condor_exec.exe: %s\n", local_kind("/condor_exec.exe"));
	printf("local /etc/passwd: %s\n", local_kind("/etc/passwd"));
	printf("local /tmp: %s\n", local_kind("/tmp"));
	/* The same path through the library: the shadow's. */
	if (stat("/", &fwd) == 0)
		printf("forwarded / is local /: %s\n",
		    fwd.st_dev == root.st_dev && fwd.st_ino == root.st_ino ?
		    "yes" : "no");
	else
		printf("forwarded / %s\n", strerrorname_np(errno));
	printf("waiting for go\n");
	fflush(stdout);
	for (i = 0; i < GO_WAIT && access("go", F_OK) == -1; i++)
		nanosleep(&tick, NULL);
	printf("%s\n", i < GO_WAIT ? "done" : "no go");
	return 0;
}
