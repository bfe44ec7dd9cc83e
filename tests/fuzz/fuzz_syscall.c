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
 * and no descriptor of the server's may outlive the job's table.
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
static int	first_free = -1;	/* the lowest free descriptor */
static int	real_root = -1, real_cwd = -1, jail = -1;
static char	jail_path[] = "/tmp/fuzz_syscall.XXXXXX";

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
	first_free = open("/", O_RDONLY | O_CLOEXEC);
	close(first_free);
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
	nr = sxdr_get_u32(&x);
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
	if ((len & 3) != 0)
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
	/* Nothing of the service's may stay open. */
	fd = open("/", O_RDONLY | O_CLOEXEC);
	if (fd != first_free)
		abort();
	close(fd);
	empty_dir(open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	enter(real_root, real_cwd);
	return 0;
}
