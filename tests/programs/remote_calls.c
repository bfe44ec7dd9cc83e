/*
 * remote_calls.c: a standard-universe test job for the forwarded calls
 * that remote_files.c leaves out: linkat, symlinkat, readlinkat, fchmod,
 * fchmodat, utimensat and futimens, umask, flock, fchdir, close_range,
 * statx, and the open-file-description locks (F_OFD_SETLK, F_OFD_GETLK,
 * F_OFD_SETLKW), each with its success and its error paths.
 *
 * Run natively and under Condor (tests/pool/remote_calls_test.sh) in an
 * empty directory of its own; it makes every file it uses.  Its standard
 * output must be byte-identical: it prints results, errno names, mode
 * bits, sizes, link counts, link targets, times it set itself and what
 * a second descriptor sees of a lock; never a pid, an inode number, a
 * directory's absolute path or a time it did not choose.
 */
#define _GNU_SOURCE
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC	(1U << 2)
#endif

#define BADFD	99	/* never open here */
#define NFILLER	60	/* descriptors open at once, below BADFD */

/* Print WHAT and a call's result R: the value, or -1 and errno's name. */
static void
report(const char *what, long r)
{
	int e = errno;

	if (r < 0)
		printf("%-44s -1 %s\n", what, strerrorname_np(e));
	else
		printf("%-44s %ld\n", what, r);
}

static char
type_of(mode_t m)
{
	if (S_ISREG(m))
		return 'f';
	if (S_ISDIR(m))
		return 'd';
	if (S_ISLNK(m))
		return 'l';
	return '?';
}

/* The type, permission bits, link count and size of PATH (lstat). */
static void
show(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == -1) {
		printf("  %-42s %s\n", path, strerrorname_np(errno));
		return;
	}
	printf("  %-42s %c %04o links %lu size %lld\n", path,
	    type_of(st.st_mode), (unsigned)(st.st_mode & 07777),
	    (unsigned long)st.st_nlink, (long long)st.st_size);
}

/* Access and modification times of PATH (lstat). */
static void
show_times(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == -1) {
		printf("  %-42s %s\n", path, strerrorname_np(errno));
		return;
	}
	printf("  %-42s atime %lld.%09ld mtime %lld.%09ld\n", path,
	    (long long)st.st_atim.tv_sec, st.st_atim.tv_nsec,
	    (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

static int
same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (lstat(a, &sa) == -1 || lstat(b, &sb) == -1)
		return 0;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The target of symbolic link PATH read with a buffer of SIZE bytes. */
static void
show_link(const char *what, int dirfd, const char *path, size_t size)
{
	char buf[PATH_MAX];
	ssize_t n;

	memset(buf, 0, sizeof(buf));
	n = readlinkat(dirfd, path, buf, size);
	report(what, n);
	if (n >= 0)
		printf("  target [%.*s]\n", (int)n, buf);
}

/* The last part of the working directory, as the program sees it. */
static void
show_cwd_name(void)
{
	char cwd[PATH_MAX], *slash;

	if (getcwd(cwd, sizeof(cwd)) == NULL) {
		printf("  cwd %s\n", strerrorname_np(errno));
		return;
	}
	slash = strrchr(cwd, '/');
	printf("  cwd ends in [%s]\n", slash != NULL ? slash + 1 : cwd);
}

static void
write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd == -1 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		printf("cannot write %s: %s\n", path, strerrorname_np(errno));
	if (fd != -1)
		close(fd);
}

/* ------------------------------------------------------------------ */

static void
test_umask(void)
{
	int fd;

	printf("== umask\n");
	umask(027);		/* what it was differs: not printed */
	report("umask 022, was 027 (octal 27 = 23)", umask(022));
	report("umask 0777, was 022 (18)", umask(0777));
	fd = open("u_none", O_WRONLY | O_CREAT | O_EXCL, 0666);
	report("create u_none 0666 under 0777", fd);
	close(fd);
	show("u_none");
	report("umask 07777 (only 0777 kept), was 0777 (511)", umask(07777));
	report("umask 027, was 0777 (511)", umask(027));
	fd = open("u_file", O_WRONLY | O_CREAT | O_EXCL, 0666);
	report("create u_file 0666 under 027", fd);
	close(fd);
	show("u_file");
	report("mkdir u_dir 0777 under 027", mkdir("u_dir", 0777));
	show("u_dir");
	report("umask 0, was 027 (23)", umask(0));
	report("mkdir u_dir0 0777 under 0", mkdir("u_dir0", 0777));
	show("u_dir0");
	report("umask 022, was 0", umask(022));
}

static void
test_symlinkat(int dfd, int ffd)
{
	char target[201];

	printf("== symlinkat\n");
	report("symlinkat f -> lf", symlinkat("f", AT_FDCWD, "lf"));
	show("lf");
	report("symlinkat dangling", symlinkat("no/such/target", AT_FDCWD,
	    "dangling"));
	show("dangling");
	report("stat through dangling", stat("dangling", &(struct stat){0}));
	report("symlinkat in d (dirfd)", symlinkat("g", dfd, "lg"));
	show("d/lg");
	report("symlinkat lf again: EEXIST", symlinkat("x", AT_FDCWD, "lf"));
	report("symlinkat over a dir: EEXIST", symlinkat("x", AT_FDCWD, "d"));
	report("symlinkat in missing dir: ENOENT", symlinkat("x", AT_FDCWD,
	    "nodir/l"));
	report("symlinkat under a file: ENOTDIR", symlinkat("x", AT_FDCWD,
	    "f/l"));
	report("symlinkat bad dirfd: EBADF", symlinkat("x", BADFD, "l"));
	report("symlinkat dirfd -1: EBADF", symlinkat("x", -1, "l"));
	report("symlinkat file dirfd: ENOTDIR", symlinkat("x", ffd, "l"));
	report("symlinkat empty target: ENOENT", symlinkat("", AT_FDCWD,
	    "empty"));
	report("symlinkat empty name: ENOENT", symlinkat("x", AT_FDCWD, ""));
	memset(target, 'a', 200);
	target[200] = '\0';
	report("symlinkat 200-byte target", symlinkat(target, AT_FDCWD,
	    "long"));
	show("long");
}

static void
test_readlinkat(int dfd, int ffd)
{
	int lfd;

	printf("== readlinkat\n");
	show_link("readlinkat lf", AT_FDCWD, "lf", 64);
	show_link("readlinkat d/lg by dirfd", dfd, "lg", 64);
	show_link("readlinkat dangling", AT_FDCWD, "dangling", 64);
	show_link("readlinkat long, 300 bytes", AT_FDCWD, "long", 300);
	show_link("readlinkat long, 200 bytes", AT_FDCWD, "long", 200);
	show_link("readlinkat long, 7 bytes: truncated", AT_FDCWD, "long", 7);
	show_link("readlinkat dangling, 2 bytes", AT_FDCWD, "dangling", 2);
	show_link("readlinkat size 0: EINVAL", AT_FDCWD, "lf", 0);
	show_link("readlinkat a file: EINVAL", AT_FDCWD, "f", 64);
	show_link("readlinkat a dir: EINVAL", AT_FDCWD, "d", 64);
	show_link("readlinkat missing: ENOENT", AT_FDCWD, "missing", 64);
	show_link("readlinkat under a file: ENOTDIR", AT_FDCWD, "f/x", 64);
	show_link("readlinkat bad dirfd: EBADF", BADFD, "lf", 64);
	show_link("readlinkat file dirfd: ENOTDIR", ffd, "x", 64);
	show_link("readlinkat file fd, empty path", ffd, "", 64);
	lfd = open("lf", O_PATH | O_NOFOLLOW);
	report("open lf O_PATH|O_NOFOLLOW", lfd >= 0 ? 0 : -1);
	show_link("readlinkat O_PATH link fd, empty path", lfd, "", 64);
	close(lfd);
	show_link("readlink through ../", AT_FDCWD, "d/../lf", 64);
}

static void
test_linkat(int dfd, int ffd)
{
	int fd;

	printf("== linkat\n");
	report("linkat f -> hard", linkat(AT_FDCWD, "f", AT_FDCWD, "hard",
	    0));
	show("f");
	show("hard");
	printf("  hard is f: %s\n", same_file("f", "hard") ? "yes" : "no");
	report("linkat again: EEXIST", linkat(AT_FDCWD, "f", AT_FDCWD, "hard",
	    0));
	report("linkat onto a dir: EEXIST", linkat(AT_FDCWD, "f", AT_FDCWD,
	    "d", 0));
	report("linkat missing: ENOENT", linkat(AT_FDCWD, "missing", AT_FDCWD,
	    "x", 0));
	report("linkat into missing dir: ENOENT", linkat(AT_FDCWD, "f",
	    AT_FDCWD, "nodir/x", 0));
	report("linkat from under a file: ENOTDIR", linkat(AT_FDCWD, "f/x",
	    AT_FDCWD, "x", 0));
	report("linkat to under a file: ENOTDIR", linkat(AT_FDCWD, "f",
	    AT_FDCWD, "f/x", 0));
	report("linkat a dir: EPERM", linkat(AT_FDCWD, "d", AT_FDCWD, "dlink",
	    0));
	report("linkat bad old dirfd: EBADF", linkat(BADFD, "f", AT_FDCWD,
	    "x", 0));
	report("linkat bad new dirfd: EBADF", linkat(AT_FDCWD, "f", BADFD,
	    "x", 0));
	report("linkat file as dirfd: ENOTDIR", linkat(ffd, "x", AT_FDCWD,
	    "x", 0));
	report("linkat bad flags: EINVAL", linkat(AT_FDCWD, "f", AT_FDCWD, "x",
	    0x4));
	report("linkat d/g -> g2 (old dirfd)", linkat(dfd, "g", AT_FDCWD,
	    "g2", 0));
	report("linkat f -> d/f2 (new dirfd)", linkat(AT_FDCWD, "f", dfd,
	    "f2", 0));
	show("f");
	show("d/g");
	report("linkat lf -> lf_hard (the link itself)", linkat(AT_FDCWD,
	    "lf", AT_FDCWD, "lf_hard", 0));
	show("lf_hard");
	report("linkat lf -> lf_follow (AT_SYMLINK_FOLLOW)", linkat(AT_FDCWD,
	    "lf", AT_FDCWD, "lf_follow", AT_SYMLINK_FOLLOW));
	show("lf_follow");
	printf("  lf_follow is f: %s\n", same_file("f", "lf_follow") ?
	    "yes" : "no");
	report("linkat dangling, FOLLOW: ENOENT", linkat(AT_FDCWD,
	    "dangling", AT_FDCWD, "x", AT_SYMLINK_FOLLOW));
	/* Needs CAP_DAC_READ_SEARCH: 0 as root, ENOENT otherwise; both
	 * runs are the same user. */
	fd = open("f", O_RDONLY);
	report("linkat fd, AT_EMPTY_PATH", linkat(fd, "", AT_FDCWD, "by_fd",
	    AT_EMPTY_PATH));
	close(fd);
	report("linkat empty path without flag: ENOENT", linkat(ffd, "",
	    AT_FDCWD, "x", 0));
	report("unlink hard", unlink("hard"));
	show("f");
}

static void
test_fchmod(int dfd)
{
	struct stat st;
	int fd, pfd, i, filler[NFILLER];

	printf("== fchmod\n");
	fd = open("m", O_RDWR | O_CREAT | O_EXCL, 0644);
	report("create m 0644", fd >= 0 ? 0 : -1);
	report("fchmod m 0600", fchmod(fd, 0600));
	if (fstat(fd, &st) == 0)
		printf("  fstat m %04o\n", (unsigned)(st.st_mode & 07777));
	report("fchmod m 04750", fchmod(fd, 04750));
	show("m");
	report("fchmod m S_IFDIR|0755 (type ignored)", fchmod(fd,
	    S_IFDIR | 0755));
	show("m");
	report("fchmod bad fd: EBADF", fchmod(BADFD, 0600));
	report("fchmod fd -1: EBADF", fchmod(-1, 0600));
	pfd = open("m", O_PATH);
	report("fchmod O_PATH fd: EBADF", fchmod(pfd, 0600));
	close(pfd);
	report("fchmod a dir fd", fchmod(dfd, 0700));
	show("d");
	report("fchmod a closed fd: EBADF", (close(fd), fchmod(fd, 0600)));
	report("fchmod d back to 0750", fchmod(dfd, 0750));

	printf("== fchmodat\n");
	report("fchmodat m 0640", fchmodat(AT_FDCWD, "m", 0640, 0));
	show("m");
	report("fchmodat d/g 0604 (dirfd)", fchmodat(dfd, "g", 0604, 0));
	show("d/g");
	report("fchmodat through lf (follows)", fchmodat(AT_FDCWD, "lf", 0664,
	    0));
	show("f");
	show("lf");
	report("fchmodat m, AT_SYMLINK_NOFOLLOW", fchmodat(AT_FDCWD, "m",
	    0660, AT_SYMLINK_NOFOLLOW));
	show("m");
	/* glibc does AT_SYMLINK_NOFOLLOW with an O_PATH descriptor and
	 * chmod of /proc/self/fd/N: with many descriptors open, N is far
	 * from the low numbers where a shadow's own descriptors could
	 * happen to match the job's. */
	write_file("filler", "");
	for (i = 0; i < NFILLER; i++)
		filler[i] = open("filler", O_RDONLY);
	report("fchmodat m NOFOLLOW, 60 descriptors open", fchmodat(AT_FDCWD,
	    "m", 0604, AT_SYMLINK_NOFOLLOW));
	show("m");
	show("filler");
	for (i = 0; i < NFILLER; i++)
		close(filler[i]);
	report("fchmodat lf, AT_SYMLINK_NOFOLLOW", fchmodat(AT_FDCWD, "lf",
	    0600, AT_SYMLINK_NOFOLLOW));
	show("f");
	report("fchmodat bad flags: EINVAL", fchmodat(AT_FDCWD, "m", 0600,
	    0x4));
	report("fchmodat missing: ENOENT", fchmodat(AT_FDCWD, "missing", 0600,
	    0));
	report("fchmodat dangling: ENOENT", fchmodat(AT_FDCWD, "dangling",
	    0600, 0));
	report("fchmodat under a file: ENOTDIR", fchmodat(AT_FDCWD, "m/x",
	    0600, 0));
	report("fchmodat bad dirfd: EBADF", fchmodat(BADFD, "m", 0600, 0));
	report("fchmodat empty path: ENOENT", fchmodat(AT_FDCWD, "", 0600, 0));
	report("chmod m 0644", chmod("m", 0644));
	show("m");
}

static void
set_times(struct timespec ts[2], long a, long an, long m, long mn)
{
	ts[0].tv_sec = a;
	ts[0].tv_nsec = an;
	ts[1].tv_sec = m;
	ts[1].tv_nsec = mn;
}

static void
test_utimensat(int dfd, int ffd)
{
	struct timespec ts[2];
	struct stat st;
	int fd, pfd, rfd;

	printf("== utimensat\n");
	write_file("t", "times\n");
	set_times(ts, 1000000000, 123456789, 1100000000, 987654321);
	report("utimensat t", utimensat(AT_FDCWD, "t", ts, 0));
	show_times("t");
	set_times(ts, 0, UTIME_OMIT, 1200000000, 5);
	report("utimensat t, atime UTIME_OMIT", utimensat(AT_FDCWD, "t", ts,
	    0));
	show_times("t");
	set_times(ts, 1300000000, 0, 0, UTIME_OMIT);
	report("utimensat t, mtime UTIME_OMIT", utimensat(AT_FDCWD, "t", ts,
	    0));
	show_times("t");
	set_times(ts, 7, UTIME_OMIT, 7, UTIME_OMIT);
	report("utimensat t, both UTIME_OMIT", utimensat(AT_FDCWD, "t", ts,
	    0));
	show_times("t");
	set_times(ts, 0, UTIME_NOW, 0, UTIME_OMIT);
	report("utimensat t, atime UTIME_NOW", utimensat(AT_FDCWD, "t", ts,
	    0));
	if (stat("t", &st) == 0)
		printf("  atime now %s, mtime %lld.%09ld\n",
		    st.st_atim.tv_sec > 1500000000 ? "recent" : "old",
		    (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	report("utimensat t, NULL times (now)", utimensat(AT_FDCWD, "t", NULL,
	    0));
	if (stat("t", &st) == 0)
		printf("  mtime now %s\n", st.st_mtim.tv_sec > 1500000000 ?
		    "recent" : "old");
	set_times(ts, 1000000001, 1, 1000000002, 2);
	report("utimensat d/g (dirfd)", utimensat(dfd, "g", ts, 0));
	show_times("d/g");
	set_times(ts, 1000000003, 3, 1000000004, 4);
	report("utimensat f through lf", utimensat(AT_FDCWD, "lf", ts, 0));
	show_times("f");
	set_times(ts, 1000000005, 5, 1000000006, 6);
	report("utimensat lf, AT_SYMLINK_NOFOLLOW", utimensat(AT_FDCWD, "lf",
	    ts, AT_SYMLINK_NOFOLLOW));
	show_times("lf");
	show_times("f");
	fd = open("t", O_RDONLY);
	set_times(ts, 1000000007, 7, 1000000008, 8);
	report("utimensat fd, \"\", AT_EMPTY_PATH", utimensat(fd, "", ts,
	    AT_EMPTY_PATH));
	show_times("t");
	report("utimensat missing: ENOENT", utimensat(AT_FDCWD, "missing", ts,
	    0));
	report("utimensat dangling: ENOENT", utimensat(AT_FDCWD, "dangling",
	    ts, 0));
	report("utimensat under a file: ENOTDIR", utimensat(AT_FDCWD, "t/x",
	    ts, 0));
	report("utimensat bad dirfd: EBADF", utimensat(BADFD, "t", ts, 0));
	report("utimensat file dirfd: ENOTDIR", utimensat(ffd, "x", ts, 0));
	report("utimensat bad flags: EINVAL", utimensat(AT_FDCWD, "t", ts,
	    0x1));
	set_times(ts, 1, 1000000000, 1, 0);
	report("utimensat nsec 1e9: EINVAL", utimensat(AT_FDCWD, "t", ts, 0));
	set_times(ts, 1, -1, 1, 0);
	report("utimensat nsec -1: EINVAL", utimensat(AT_FDCWD, "t", ts, 0));
	set_times(ts, 1000000009, 9, 1000000010, 10);
	report("utimensat raw, fd and NULL path", syscall(SYS_utimensat, fd,
	    NULL, ts, 0));
	show_times("t");
	report("utimensat raw, fd, NULL, NOFOLLOW: EINVAL",
	    syscall(SYS_utimensat, fd, NULL, ts, AT_SYMLINK_NOFOLLOW));
	report("utimensat raw, AT_FDCWD and NULL path",
	    syscall(SYS_utimensat, AT_FDCWD, NULL, ts, 0));
	report("utimensat raw, bad fd, NULL path: EBADF",
	    syscall(SYS_utimensat, BADFD, NULL, ts, 0));

	printf("== futimens\n");
	set_times(ts, 1400000000, 400, 1500000000, 500);
	report("futimens t", futimens(fd, ts));
	show_times("t");
	if (fstat(fd, &st) == 0)
		printf("  fstat mtime %lld.%09ld\n",
		    (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	set_times(ts, 0, UTIME_OMIT, 1500000001, 501);
	report("futimens t, atime UTIME_OMIT", futimens(fd, ts));
	show_times("t");
	set_times(ts, 1600000000, 600, 1600000001, 601);
	report("futimens d (a dir fd)", futimens(dfd, ts));
	show_times("d");
	report("futimens bad fd: EBADF", futimens(BADFD, ts));
	pfd = open("t", O_PATH);
	report("futimens O_PATH fd", futimens(pfd, ts));
	close(pfd);
	rfd = open("t", O_RDONLY);
	close(rfd);
	report("futimens closed fd: EBADF", futimens(rfd, ts));
	close(fd);
}

static void
test_statx(int dfd, int ffd)
{
	struct statx s;
	int fd;

#define SHOW_STATX(what, call) do {					\
	long r_;							\
									\
	memset(&s, 0, sizeof(s));					\
	report(what, r_ = (call));					\
	if (r_ == 0 &&							\
	    (s.stx_mask & STATX_BASIC_STATS) == STATX_BASIC_STATS)	\
		printf("  basic %c %04o links %u size %llu mtime "	\
		    "%lld.%09u\n", type_of(s.stx_mode),			\
		    (unsigned)(s.stx_mode & 07777), s.stx_nlink,	\
		    (unsigned long long)s.stx_size,			\
		    (long long)s.stx_mtime.tv_sec, s.stx_mtime.tv_nsec); \
} while (0)

	printf("== statx\n");
	SHOW_STATX("statx t", statx(AT_FDCWD, "t", 0, STATX_BASIC_STATS, &s));
	SHOW_STATX("statx lf (follows)", statx(AT_FDCWD, "lf", 0,
	    STATX_BASIC_STATS, &s));
	SHOW_STATX("statx lf, AT_SYMLINK_NOFOLLOW", statx(AT_FDCWD, "lf",
	    AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &s));
	SHOW_STATX("statx d/g (dirfd)", statx(dfd, "g", 0, STATX_BASIC_STATS,
	    &s));
	SHOW_STATX("statx d", statx(AT_FDCWD, "d", 0, STATX_BASIC_STATS, &s));
	fd = open("t", O_RDONLY);
	SHOW_STATX("statx fd, \"\", AT_EMPTY_PATH", statx(fd, "",
	    AT_EMPTY_PATH, STATX_BASIC_STATS, &s));
	/* A NULL path with AT_EMPTY_PATH: the descriptor (Linux 6.11 on),
	 * EFAULT before. */
	SHOW_STATX("statx fd, NULL, AT_EMPTY_PATH", syscall(SYS_statx,
	    fd, NULL, AT_EMPTY_PATH, STATX_BASIC_STATS, &s));
	memset(&s, 0, sizeof(s));
	report("statx AT_FDCWD, \"\", AT_EMPTY_PATH (cwd)",
	    statx(AT_FDCWD, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &s));
	printf("  type %c\n", type_of(s.stx_mode));
	SHOW_STATX("statx t, AT_STATX_FORCE_SYNC", statx(AT_FDCWD, "t",
	    AT_STATX_FORCE_SYNC, STATX_BASIC_STATS, &s));
	SHOW_STATX("statx t, AT_STATX_DONT_SYNC", statx(AT_FDCWD, "t",
	    AT_STATX_DONT_SYNC, STATX_BASIC_STATS, &s));
	SHOW_STATX("statx t, mask STATX_SIZE only", statx(AT_FDCWD, "t", 0,
	    STATX_SIZE, &s));
	printf("  size %llu\n", (unsigned long long)s.stx_size);
	memset(&s, 0, sizeof(s));
	report("statx t, STATX_MNT_ID", statx(AT_FDCWD, "t", 0, STATX_MNT_ID,
	    &s));
	printf("  mount id %s\n", !(s.stx_mask & STATX_MNT_ID) ?
	    "not reported" : s.stx_mnt_id != 0 ? "reported, set" :
	    "reported, ZERO");
	memset(&s, 0, sizeof(s));
	report("statx t, STATX_ALL", statx(AT_FDCWD, "t", 0, STATX_ALL, &s));
	printf("  mask has basic %s, attributes %#llx of %#llx\n",
	    (s.stx_mask & STATX_BASIC_STATS) == STATX_BASIC_STATS ? "yes" :
	    "no", (unsigned long long)s.stx_attributes,
	    (unsigned long long)s.stx_attributes_mask);
	SHOW_STATX("statx missing: ENOENT", statx(AT_FDCWD, "missing", 0,
	    STATX_BASIC_STATS, &s));
	SHOW_STATX("statx dangling: ENOENT", statx(AT_FDCWD, "dangling", 0,
	    STATX_BASIC_STATS, &s));
	SHOW_STATX("statx under a file: ENOTDIR", statx(AT_FDCWD, "t/x", 0,
	    STATX_BASIC_STATS, &s));
	SHOW_STATX("statx bad dirfd: EBADF", statx(BADFD, "t", 0,
	    STATX_BASIC_STATS, &s));
	SHOW_STATX("statx file dirfd: ENOTDIR", statx(ffd, "x", 0,
	    STATX_BASIC_STATS, &s));
	SHOW_STATX("statx empty path: ENOENT", statx(AT_FDCWD, "", 0,
	    STATX_BASIC_STATS, &s));
	SHOW_STATX("statx bad flags: EINVAL", statx(AT_FDCWD, "t", 0x1,
	    STATX_BASIC_STATS, &s));
	SHOW_STATX("statx both sync flags: EINVAL", statx(AT_FDCWD, "t",
	    AT_STATX_FORCE_SYNC | AT_STATX_DONT_SYNC, STATX_BASIC_STATS, &s));
	SHOW_STATX("statx reserved mask: EINVAL", statx(AT_FDCWD, "t", 0,
	    STATX__RESERVED, &s));
	report("statx NULL buffer: EFAULT", syscall(SYS_statx, AT_FDCWD,
	    "t", 0, STATX_BASIC_STATS, NULL));
	close(fd);
#undef SHOW_STATX
}

static void
test_fchdir(int dfd, int ffd)
{
	int home, pd, cfd;

	printf("== fchdir\n");
	home = open(".", O_RDONLY | O_DIRECTORY);
	report("open . O_DIRECTORY", home >= 0 ? 0 : -1);
	report("fchdir d", fchdir(dfd));
	show_cwd_name();
	report("access g, relative to d", access("g", F_OK));
	report("access ../t, relative to d", access("../t", F_OK));
	write_file("made_in_d", "here\n");
	report("fchdir back", fchdir(home));
	show("d/made_in_d");
	report("access d, relative to home", access("d", F_OK));
	pd = open("d", O_PATH | O_DIRECTORY);
	report("fchdir an O_PATH dir fd", fchdir(pd));
	show_cwd_name();
	report("fchdir back", fchdir(home));
	close(pd);
	report("fchdir a file: ENOTDIR", fchdir(ffd));
	report("fchdir bad fd: EBADF", fchdir(BADFD));
	report("fchdir -1: EBADF", fchdir(-1));
	cfd = open("d", O_RDONLY | O_DIRECTORY);
	close(cfd);
	report("fchdir a closed fd: EBADF", fchdir(cfd));
	report("access t, still home", access("t", F_OK));
	report("chdir d then fchdir back", chdir("d") == 0 ?
	    fchdir(home) : -1);
	report("access t, home again", access("t", F_OK));
	close(home);
}

static void
show_fd(int fd)
{
	char what[64];

	snprintf(what, sizeof(what), "  F_GETFD %d", fd);
	report(what, fcntl(fd, F_GETFD));
}

static void
test_close_range(void)
{
	int fd, i;

	printf("== close_range\n");
	fd = open("t", O_RDONLY);
	for (i = 20; i <= 24; i++)
		dup2(fd, i);
	close(fd);
	report("close_range 22-23 CLOSE_RANGE_CLOEXEC", close_range(22, 23,
	    CLOSE_RANGE_CLOEXEC));
	for (i = 20; i <= 24; i++)
		show_fd(i);
	report("close_range 20-21", close_range(20, 21, 0));
	for (i = 20; i <= 24; i++)
		show_fd(i);
	report("close_range 24-20 (first > last): EINVAL", close_range(24, 20,
	    0));
	report("close_range unknown flag: EINVAL", close_range(30, 40,
	    0x80));
	show_fd(22);
	report("close_range nothing open", close_range(100, 200, 0));
	report("close_range 23-max", close_range(23, ~0U, 0));
	for (i = 20; i <= 24; i++)
		show_fd(i);
	report("read from a closed one: EBADF", read(24, &i, 1));
	fd = open("t", O_RDONLY);
	report("open takes the lowest free (22 is open)", fd);
	report("close_range it, a single one", close_range((unsigned)fd,
	    (unsigned)fd, 0));
	report("close_range 22-22", close_range(22, 22, 0));
	report("open takes the lowest free", fd = open("t", O_RDONLY));
	close(fd);
}

static void
test_flock(int dfd)
{
	int a, b, c, p;

	printf("== flock\n");
	a = open("t", O_RDWR);
	b = open("t", O_RDONLY);
	report("flock a LOCK_EX", flock(a, LOCK_EX));
	report("flock b LOCK_EX|LOCK_NB: EWOULDBLOCK", flock(b, LOCK_EX |
	    LOCK_NB));
	report("flock b LOCK_SH|LOCK_NB: EWOULDBLOCK", flock(b, LOCK_SH |
	    LOCK_NB));
	report("flock a LOCK_EX again (converts)", flock(a, LOCK_EX |
	    LOCK_NB));
	c = dup(a);
	report("flock c = dup(a) LOCK_UN (a's lock)", flock(c, LOCK_UN));
	report("flock b LOCK_SH|LOCK_NB", flock(b, LOCK_SH | LOCK_NB));
	report("flock a LOCK_SH|LOCK_NB", flock(a, LOCK_SH | LOCK_NB));
	report("flock a LOCK_EX|LOCK_NB: EWOULDBLOCK", flock(a, LOCK_EX |
	    LOCK_NB));
	report("flock b LOCK_UN", flock(b, LOCK_UN));
	report("flock a LOCK_EX|LOCK_NB, b unlocked", flock(a, LOCK_EX |
	    LOCK_NB));
	report("flock b LOCK_SH|LOCK_NB: EWOULDBLOCK", flock(b, LOCK_SH |
	    LOCK_NB));
	close(a);
	report("flock b LOCK_SH|LOCK_NB, a closed, c holds", flock(b, LOCK_SH |
	    LOCK_NB));
	close(c);
	report("flock b LOCK_EX (blocking), all closed", flock(b, LOCK_EX));
	report("flock 0: EINVAL", flock(b, 0));
	report("flock LOCK_NB alone: EINVAL", flock(b, LOCK_NB));
	report("flock 0x40: EINVAL", flock(b, 0x40));
	report("flock bad fd: EBADF", flock(BADFD, LOCK_SH));
	p = open("t", O_PATH);
	report("flock O_PATH fd: EBADF", flock(p, LOCK_SH | LOCK_NB));
	close(p);
	report("flock a dir fd", flock(dfd, LOCK_EX | LOCK_NB));
	report("flock a dir fd LOCK_UN", flock(dfd, LOCK_UN));
	close(b);
	report("flock a closed fd: EBADF", flock(b, LOCK_SH));
}

static const char *
lock_type(short t)
{
	switch (t) {
	case F_RDLCK:
		return "F_RDLCK";
	case F_WRLCK:
		return "F_WRLCK";
	case F_UNLCK:
		return "F_UNLCK";
	}
	return "?";
}

/* fcntl(FD, CMD) with a lock of TYPE on [START, START + LEN). */
static long
lk(int fd, int cmd, short type, off_t start, off_t len, struct flock *fl)
{
	memset(fl, 0, sizeof(*fl));
	fl->l_type = type;
	fl->l_whence = SEEK_SET;
	fl->l_start = start;
	fl->l_len = len;
	return fcntl(fd, cmd, fl);
}

/* What F_OFD_GETLK or F_GETLK on FD says of [START, START + LEN). */
static void
getlk(const char *what, int fd, int cmd, short type, off_t start, off_t len)
{
	struct flock fl;
	long r = lk(fd, cmd, type, start, len, &fl);

	report(what, r);
	if (r == 0)
		printf("  %s start %lld len %lld pid %s\n",
		    lock_type(fl.l_type), (long long)fl.l_start,
		    (long long)fl.l_len, fl.l_pid == -1 ? "-1 (a description)" :
		    fl.l_pid > 0 ? "a process's" : "0");
}

static void
test_ofd_locks(void)
{
	struct flock fl;
	int a, b, c, d, ro, wo;

	printf("== F_OFD locks\n");
	write_file("lk", "0123456789abcdefghijklmnopqrstuvwxyz\n");
	a = open("lk", O_RDWR);
	b = open("lk", O_RDWR);
	report("a F_OFD_SETLK F_WRLCK 0-9", lk(a, F_OFD_SETLK, F_WRLCK, 0, 10,
	    &fl));
	getlk("b F_OFD_GETLK F_RDLCK 5-9", b, F_OFD_GETLK, F_RDLCK, 5, 5);
	getlk("a F_OFD_GETLK F_WRLCK 5-9 (its own)", a, F_OFD_GETLK, F_WRLCK,
	    5, 5);
	report("b F_OFD_SETLK F_RDLCK 5-9: EAGAIN", lk(b, F_OFD_SETLK,
	    F_RDLCK, 5, 5, &fl));
	report("b F_OFD_SETLK F_WRLCK 10-19", lk(b, F_OFD_SETLK, F_WRLCK, 10,
	    10, &fl));
	getlk("a F_OFD_GETLK F_WRLCK 0-EOF", a, F_OFD_GETLK, F_WRLCK, 0, 0);
	report("b F_OFD_SETLKW F_WRLCK 30-39 (free)", lk(b, F_OFD_SETLKW,
	    F_WRLCK, 30, 10, &fl));
	getlk("a F_OFD_GETLK F_RDLCK 25-EOF", a, F_OFD_GETLK, F_RDLCK, 25, 0);
	/* A process's own POSIX locks meet the descriptions' locks. */
	getlk("b F_GETLK F_WRLCK 0-4 (POSIX sees OFD)", b, F_GETLK, F_WRLCK,
	    0, 5);
	report("a F_SETLK F_WRLCK 0-4 (POSIX): EAGAIN", lk(a, F_SETLK,
	    F_WRLCK, 0, 5, &fl));
	report("a F_SETLK F_WRLCK 50-59 (POSIX)", lk(a, F_SETLK, F_WRLCK, 50,
	    10, &fl));
	getlk("b F_OFD_GETLK F_WRLCK 50-59", b, F_OFD_GETLK, F_WRLCK, 50, 10);
	report("a F_SETLK F_UNLCK 50-59 (POSIX)", lk(a, F_SETLK, F_UNLCK, 50,
	    10, &fl));
	report("a F_OFD_SETLK F_UNLCK 0-9", lk(a, F_OFD_SETLK, F_UNLCK, 0, 10,
	    &fl));
	getlk("b F_OFD_GETLK F_WRLCK 0-9", b, F_OFD_GETLK, F_WRLCK, 0, 10);
	report("a F_OFD_SETLK F_RDLCK 0-9", lk(a, F_OFD_SETLK, F_RDLCK, 0, 10,
	    &fl));
	report("b F_OFD_SETLK F_RDLCK 0-9 (shared)", lk(b, F_OFD_SETLK,
	    F_RDLCK, 0, 10, &fl));
	report("b F_OFD_SETLK F_WRLCK 0-9: EAGAIN", lk(b, F_OFD_SETLK,
	    F_WRLCK, 0, 10, &fl));
	getlk("b F_OFD_GETLK F_WRLCK 0-9", b, F_OFD_GETLK, F_WRLCK, 0, 10);
	/* A lock lives as long as one descriptor of its description. */
	c = dup(b);
	close(b);
	getlk("a F_OFD_GETLK F_WRLCK 10-19, c = dup(b)", a, F_OFD_GETLK,
	    F_WRLCK, 10, 10);
	close(c);
	getlk("a F_OFD_GETLK F_WRLCK 10-19, c closed", a, F_OFD_GETLK,
	    F_WRLCK, 10, 10);
	d = open("lk", O_RDWR);
	report("d F_OFD_SETLKW F_WRLCK 10-19 (freed)", lk(d, F_OFD_SETLKW,
	    F_WRLCK, 10, 10, &fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_END;
	fl.l_start = -5;
	fl.l_len = 5;
	fl.l_pid = 0;
	report("d F_OFD_SETLK SEEK_END -5, 5", fcntl(d, F_OFD_SETLK, &fl));
	getlk("a F_OFD_GETLK F_RDLCK 30-EOF", a, F_OFD_GETLK, F_RDLCK, 30, 0);
	fl.l_type = F_RDLCK;
	fl.l_whence = SEEK_SET;
	fl.l_start = 60;
	fl.l_len = 1;
	fl.l_pid = 1;
	report("F_OFD_SETLK l_pid 1: EINVAL", fcntl(a, F_OFD_SETLK, &fl));
	report("F_OFD_SETLKW l_pid 1: EINVAL", fcntl(a, F_OFD_SETLKW, &fl));
	report("F_OFD_GETLK l_pid 1: EINVAL", fcntl(a, F_OFD_GETLK, &fl));
	report("F_OFD_SETLK bad type: EINVAL", lk(a, F_OFD_SETLK, 7, 0, 1,
	    &fl));
	report("F_OFD_SETLKW bad type: EINVAL", lk(a, F_OFD_SETLKW, 7, 0, 1,
	    &fl));
	getlk("F_OFD_GETLK F_UNLCK", a, F_OFD_GETLK, F_UNLCK, 0, 1);
	report("F_OFD_SETLK negative start: EINVAL", lk(a, F_OFD_SETLK,
	    F_RDLCK, -5, 1, &fl));
	report("F_OFD_SETLK bad fd: EBADF", lk(BADFD, F_OFD_SETLK, F_RDLCK, 0,
	    1, &fl));
	report("F_OFD_GETLK bad fd: EBADF", lk(BADFD, F_OFD_GETLK, F_RDLCK, 0,
	    1, &fl));
	report("F_OFD_SETLKW bad fd: EBADF", lk(BADFD, F_OFD_SETLKW, F_RDLCK,
	    0, 1, &fl));
	ro = open("lk", O_RDONLY);
	wo = open("lk", O_WRONLY);
	report("F_OFD_SETLK F_WRLCK on O_RDONLY: EBADF", lk(ro, F_OFD_SETLK,
	    F_WRLCK, 70, 1, &fl));
	report("F_OFD_SETLK F_RDLCK on O_WRONLY: EBADF", lk(wo, F_OFD_SETLK,
	    F_RDLCK, 70, 1, &fl));
	report("F_OFD_SETLK F_RDLCK on O_RDONLY", lk(ro, F_OFD_SETLK, F_RDLCK,
	    70, 1, &fl));
	getlk("wo F_OFD_GETLK F_WRLCK 70", wo, F_OFD_GETLK, F_WRLCK, 70, 1);
	report("a F_OFD_SETLK F_UNLCK 0-EOF", lk(a, F_OFD_SETLK, F_UNLCK, 0, 0,
	    &fl));
	close(ro);
	close(wo);
	close(d);
	getlk("a F_OFD_GETLK F_WRLCK 0-EOF, all closed", a, F_OFD_GETLK,
	    F_WRLCK, 0, 0);
	close(a);
}

int
main(void)
{
	int dfd, ffd;

	/* Whatever the native run inherited: descriptor numbers below
	 * start from 3, as under Condor. */
	report("close_range 3-max", close_range(3, ~0U, 0));
	test_umask();
	write_file("f", "hello\n");
	report("mkdir d", mkdir("d", 0755));
	write_file("d/g", "in d\n");
	dfd = open("d", O_RDONLY | O_DIRECTORY);
	ffd = open("f", O_RDONLY);
	report("open d and f", dfd >= 0 && ffd >= 0 ? 0 : -1);
	test_symlinkat(dfd, ffd);
	test_readlinkat(dfd, ffd);
	test_linkat(dfd, ffd);
	test_fchmod(dfd);
	test_utimensat(dfd, ffd);
	test_statx(dfd, ffd);
	test_fchdir(dfd, ffd);
	test_close_range();
	test_flock(dfd);
	test_ofd_locks();
	close(dfd);
	close(ffd);
	printf("done\n");
	return 0;
}
