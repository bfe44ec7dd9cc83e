/*
 * fuzz_syscall.c: libFuzzer target for the shadow's system-call service
 * (src/shadow/shadow_calls.c, include/syscall_table.h): the bytes are
 * what a hostile job sends on its connection, records as on the wire
 * (a 4-byte record mark whose low 31 bits are the length, then the
 * request), each served in turn by calls_serve as the server loop
 * would.
 *
 * The service runs for real, confined to a fresh directory that is the
 * process's root while it serves an input (chroot, left again through
 * descriptors of the real root and working directory that the service
 * never sees; in a new user namespace when not root), with
 * the job's 0, 1, 2 on a file in it (never on anything outside, which
 * fchmod or utimensat would change).  After every input the job's
 * descriptors are closed and the directory emptied, so each input runs
 * from the same state.  A reply must be well formed (at least the
 * result; only the result when it is an error, which is a real errno),
 * and no descriptor of the server's may outlive the job's table: the
 * process has the same descriptors, on the same files, after an input
 * as before it.  (Not merely the same lowest free number as at the
 * start: the fuzzer's runtime opens its own between inputs, e.g. the
 * symbolizer's pipes when it first names a newly covered function.)
 *
 * A crash is found inside the jail, so libFuzzer writes its input there:
 * /tmp/fuzz_syscall.XXXXXX/crash-... (the directory then stays).
 *
 * Calls that could wait for ever on the fuzzer's own locks (flock
 * without LOCK_NB, F_SETLKW, F_OFD_SETLKW) are made not to wait: the
 * one liberty taken with the input.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shadow.h"
#include "syscall_table.h"

int	LLVMFuzzerInitialize(int *argc, char ***argv);
int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t	req[SYSCALL_PROTO_MAX_RECORD];
static uint8_t	rep[SYSCALL_PROTO_MAX_RECORD];
static int	real_root = -1, real_cwd = -1, jail = -1;
static char	jail_path[] = "/tmp/fuzz_syscall.XXXXXX";

/* An open descriptor: its number and the file it is open on. */
struct open_fd {
	int	fd;
	dev_t	dev;
	ino_t	ino;
};

#define MAX_OPEN	256	/* descriptors of the fuzzer's, at most */

static struct open_fd	before[MAX_OPEN];	/* open when an input starts */
static int		nbefore;

static void
write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);

	if (fd == -1 || write(fd, text, strlen(text)) == -1) {
		perror(path);
		exit(1);
	}
	close(fd);
}

/* Empty directory FD (which it closes), whatever the modes inside. */
static void
empty_dir(int fd)
{
	struct dirent *e;
	DIR *d;
	int sub;

	fchmod(fd, 0700);
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (unlinkat(fd, e->d_name, 0) == 0)
			continue;
		sub = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
		if (sub != -1)
			empty_dir(sub);
		unlinkat(fd, e->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

static void
remove_jail(void)
{
	empty_dir(open(jail_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	rmdir(jail_path);
}

static int
open_fd_cmp(const void *a, const void *b)
{
	const struct open_fd *x = a, *y = b;

	return (x->fd > y->fd) - (x->fd < y->fd);
}

/* The process's open descriptors into FDS (MAX_OPEN of them), by
 * number: their count.  Read from /proc, so outside the jail. */
static int
open_fds(struct open_fd *fds)
{
	struct dirent *e;
	struct stat st;
	DIR *d;
	int n = 0, fd;

	if ((d = opendir("/proc/self/fd")) == NULL)
		err(1, "fuzz_syscall: /proc/self/fd");
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		fd = atoi(e->d_name);
		if (fd == dirfd(d))
			continue;
		if (n == MAX_OPEN)
			errx(1, "fuzz_syscall: more than %d descriptors open",
			    MAX_OPEN);
		if (fstat(fd, &st) == -1)
			abort();
		fds[n].fd = fd;
		fds[n].dev = st.st_dev;
		fds[n].ino = st.st_ino;
		n++;
	}
	closedir(d);
	qsort(fds, (size_t)n, sizeof(fds[0]), open_fd_cmp);
	return n;
}

/* Abort unless the descriptors open now are those of BEFORE: the
 * service leaked one, or closed or replaced one of the fuzzer's. */
static void
check_fds(void)
{
	static struct open_fd after[MAX_OPEN];
	int nafter, i;

	nafter = open_fds(after);
	if (nafter == nbefore) {
		for (i = 0; i < nafter; i++)
			if (after[i].fd != before[i].fd ||
			    after[i].dev != before[i].dev ||
			    after[i].ino != before[i].ino)
				break;
		if (i == nafter)
			return;
	}
	for (i = 0; i < nbefore; i++)
		fprintf(stderr, "before: %d on %ju:%ju\n", before[i].fd,
		    (uintmax_t)before[i].dev, (uintmax_t)before[i].ino);
	for (i = 0; i < nafter; i++)
		fprintf(stderr, "after: %d on %ju:%ju\n", after[i].fd,
		    (uintmax_t)after[i].dev, (uintmax_t)after[i].ino);
	abort();
}

/* Into the jail (root and working directory), or back out of it: the
 * descriptors of the real ones are never the service's. */
static void
enter(int root, int cwd)
{
	if (fchdir(root) == -1 || chroot(".") == -1 || fchdir(cwd) == -1)
		abort();
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char map[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (uid != 0) {
		if (unshare(CLONE_NEWUSER) == -1) {
			/* Never run the service unconfined. */
			printf("SKIP fuzz_syscall: cannot confine the service "
			    "(unshare: %s)\n", strerror(errno));
			exit(0);
		}
		write_file("/proc/self/setgroups", "deny");
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
		write_file("/proc/self/uid_map", map);
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
		write_file("/proc/self/gid_map", map);
	}
	if (mkdtemp(jail_path) == NULL ||
	    (real_root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    (real_cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    (jail = open(jail_path, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1) {
		perror("fuzz_syscall: setting up");
		exit(1);
	}
	atexit(remove_jail);
	calls_init();
	open_fds(before);	/* fails here, not later, without /proc */
	return 0;
}

/* Requests that would wait on a lock the service itself holds: made
 * not to wait. */
static void
never_wait(uint8_t *body, uint32_t len)
{
	struct sxdr x;
	uint32_t nr, at;
	int32_t cmd;

	sxdr_init(&x, body, len);
	nr = sxdr_get_u32(&x) & ~SYSCALL_PROTO_FLAGS;
	sxdr_get_i32(&x);		/* the descriptor */
	at = x.pos;
	cmd = sxdr_get_i32(&x);
	if (x.err)
		return;
	if (nr == SYS_flock)
		cmd |= LOCK_NB;
	else if (nr == SYS_fcntl && cmd == F_SETLKW)
		cmd = F_SETLK;
	else if (nr == SYS_fcntl && cmd == F_OFD_SETLKW)
		cmd = F_OFD_SETLK;
	else
		return;
	x.pos = at;
	sxdr_put_i32(&x, cmd);
}

/* The reply of LEN bytes must be a result, and only that on error.
 * FUZZ_SYSCALL_TRACE in the environment prints each call's result. */
static void
check_reply(const uint8_t *body, uint32_t len)
{
	struct sxdr x;
	int64_t r;

	if (len < 8 || len > sizeof(rep))
		abort();
	sxdr_init(&x, rep, len);
	r = sxdr_get_i64(&x);
	if (r < 0 && (r < -4095 || len != 8))
		abort();
	/* Padded to 4, but data asked for raw (SYSCALL_PROTO_RAW_DATA). */
	if ((len & 3) != 0 && (len < 12 ||
	    !(body[0] & SYSCALL_PROTO_RAW_DATA >> 24)))
		abort();
	if (getenv("FUZZ_SYSCALL_TRACE") != NULL)
		fprintf(stderr, "call %u: %lld, %u bytes of reply\n",
		    (unsigned)body[0] << 24 | body[1] << 16 | body[2] << 8 | body[3],
		    (long long)r, len);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t mark, len;
	size_t at = 0;
	int fd;

	nbefore = open_fds(before);
	enter(jail, jail);
	umask(022);
	if ((fd = open("/std", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) == -1)
		abort();
	calls_set_fd(0, fcntl(fd, F_DUPFD_CLOEXEC, 0));
	calls_set_fd(1, fcntl(fd, F_DUPFD_CLOEXEC, 0));
	calls_set_fd(2, fd);
	while (size - at >= 4) {
		memcpy(&mark, data + at, 4);
		at += 4;
		len = __builtin_bswap32(mark) & ~SYSCALL_PROTO_LAST_FRAG;
		if (len > size - at)
			len = (uint32_t)(size - at);
		memcpy(req, data + at, len);
		at += len;
		never_wait(req, len);
		check_reply(req, calls_serve(req, len, rep, sizeof(rep)));
	}
	calls_close_all();
	empty_dir(open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	enter(real_root, real_cwd);
	check_fds();
	return 0;
}
