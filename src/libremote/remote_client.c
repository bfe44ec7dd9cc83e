/*
 * remote_client.c: the job's side of the remote system calls.
 *
 * The trap (remote_trap.c) hands every call its table marks SC_REMOTE
 * in remote mode to remote_call(), which encodes it
 * (include/syscall_proto.h) into one static buffer, sends it to the
 * shadow on CONDOR_SYSCALL_FD, waits for the reply in the same buffer
 * and copies the results into the program's memory.  Reads and writes
 * larger than REMOTE_IO_CHUNK go as several requests; the old calls
 * (open, stat, rename...) go as their *at forms.  Descriptor numbers go
 * unchanged: the shadow keeps the job's descriptor table.
 *
 * Answered here without a round trip: ioctl (ENOTTY: every remote file
 * is a plain file, so stdio buffers fully, as it does on a file), and
 * anonymous mmap.  A mapping of a remote file is a private copy
 * (r_mmap_file), and a shared writable one is refused with ENODEV.
 *
 * Runs inside the SIGSYS handler with every signal blocked: a remote
 * call is never interrupted halfway, so the stream stays in step.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "remote.h"
#include "syscall_proto.h"

#ifndef AT_REMOVEDIR
#define AT_REMOVEDIR	0x200
#endif

int		remote_syscall_fd = -1;
static uint32_t	chunk = REMOTE_CHUNK_DEFAULT;
static int	broken;
/* One request or one reply at a time, record mark included. */
static uint8_t	buf[SYSCALL_PROTO_MAX_RECORD + 8] __attribute__((aligned(8)));

static long
env_number(char **envp, const char *name, long dflt)
{
	size_t n = cj_strlen(name);
	const char *v;
	long r;

	for (; envp != 0 && *envp != 0; envp++) {
		if (cj_strncmp(*envp, name, n) != 0 || (*envp)[n] != '=')
			continue;
		v = *envp + n + 1;
		if (*v < '0' || *v > '9')
			return dflt;
		for (r = 0; *v >= '0' && *v <= '9' && r < (1L << 30); v++)
			r = r * 10 + (*v - '0');
		return *v == '\0' ? r : dflt;
	}
	return dflt;
}

int
remote_client_init(char **envp)
{
	long fd = env_number(envp, REMOTE_FD_ENV, -1);
	long c = env_number(envp, REMOTE_CHUNK_ENV, REMOTE_CHUNK_DEFAULT);

	if (fd < 3 || condor_sys2(SYS_fcntl, fd, F_GETFD) < 0) {
		remote_syscall_fd = -1;
		return 0;
	}
	remote_syscall_fd = (int)fd;
	if (c < 512)
		c = 512;
	if (c > SYSCALL_PROTO_MAX_DATA)
		c = SYSCALL_PROTO_MAX_DATA;
	chunk = (uint32_t)c;
	broken = 0;
	return 1;
}

/* ---------------------------------------------------------------- */
/* One exchange. */

static long	r_getcwd(char *, unsigned long);

static int
io_all(int write, uint8_t *p, uint32_t n)
{
	uint32_t done = 0;
	long r;

	while (done < n) {
		r = condor_sys3(write ? SYS_write : SYS_read,
		    remote_syscall_fd, p + done, n - done);
		if (r == -EINTR)
			continue;
		if (r <= 0)
			return -1;
		done += (uint32_t)r;
	}
	return 0;
}

/* Start a request for call NR in X (after the record mark). */
static void
req_begin(struct sxdr *x, long nr)
{
	sxdr_init(x, buf + 4, sizeof(buf) - 4);
	sxdr_put_u32(x, (uint32_t)nr);
}

/*
 * Send the request in X, receive the reply into X (positioned after
 * the result): the result, or -EIO.
 */
static long
transact(struct sxdr *x)
{
	uint32_t mark, len;

	if (broken || remote_syscall_fd < 0)
		return -EIO;
	if (x->err)
		return -EFAULT;	/* a path or buffer too long to send */
	mark = SYSCALL_PROTO_LAST_FRAG | x->pos;
	buf[0] = (uint8_t)(mark >> 24);
	buf[1] = (uint8_t)(mark >> 16);
	buf[2] = (uint8_t)(mark >> 8);
	buf[3] = (uint8_t)mark;
	if (io_all(1, buf, 4 + x->pos) == -1 || io_all(0, buf, 4) == -1)
		goto lost;
	mark = (uint32_t)buf[0] << 24 | (uint32_t)buf[1] << 16 |
	    (uint32_t)buf[2] << 8 | buf[3];
	len = mark & ~SYSCALL_PROTO_LAST_FRAG;
	if (!(mark & SYSCALL_PROTO_LAST_FRAG) || len < 8 ||
	    len > sizeof(buf) - 4 || io_all(0, buf + 4, len) == -1)
		goto lost;
	sxdr_init(x, buf + 4, len);
	return (long)sxdr_get_i64(x);
lost:
	broken = 1;
	cj_say("lost the connection to the shadow; every file call now "
	    "fails with EIO", (char *)0);
	return -EIO;
}

/* ---------------------------------------------------------------- */
/* The program's memory, through remote_user.c: a bad pointer gives
 * EFAULT, as natively, not a crash in the handler. */

/* The path at USER into X; a bad one makes transact answer EFAULT. */
static void
put_path(struct sxdr *x, const char *user)
{
	static char path[SYSCALL_PROTO_MAX_PATH];

	if (remote_copy_string(path, user, sizeof(path)) < 0) {
		x->err = 1;
		return;
	}
	sxdr_put_string(x, path);
}

/* Copy N bytes out to USER, all or -EFAULT. */
static long
put_user(void *user, const void *src, size_t n)
{
	return remote_copy_out(user, src, n) == (long)n ? 0 : -EFAULT;
}

/* Copy N bytes in from USER, all or -EFAULT. */
static long
get_user(void *dst, const void *user, size_t n)
{
	return remote_copy_in(dst, user, n) == (long)n ? 0 : -EFAULT;
}

/* ---------------------------------------------------------------- */
/* The calls. */

static long
r_openat(int dirfd, const char *path, int flags, unsigned mode)
{
	struct sxdr x;

	req_begin(&x, SYS_openat);
	sxdr_put_i32(&x, dirfd);
	put_path(&x, path);
	sxdr_put_i32(&x, flags);
	sxdr_put_u32(&x, mode);
	return transact(&x);
}

/* One read request of at most CHUNK bytes into P. */
static long
read_once(long nr, int fd, uint8_t *p, uint32_t n, long long off)
{
	const uint8_t *data;
	struct sxdr x;
	uint32_t got;
	long r;

	req_begin(&x, nr);
	sxdr_put_i32(&x, fd);
	sxdr_put_u32(&x, n);
	if (nr == SYS_pread64)
		sxdr_put_i64(&x, off);
	if ((r = transact(&x)) < 0)
		return r;
	data = sxdr_get_opaque(&x, n, &got);
	if (x.err || got != (uint32_t)r)
		return -EIO;
	if ((r = remote_copy_out(p, data, got)) == (long)got)
		return r;
	/* The buffer ends early or is read-only: as the kernel does, keep
	 * what fitted and leave the offset after it. */
	if (r < 0)
		r = 0;
	if (nr == SYS_read) {
		req_begin(&x, SYS_lseek);
		sxdr_put_i32(&x, fd);
		sxdr_put_i64(&x, (long long)r - got);
		sxdr_put_i32(&x, SEEK_CUR);
		transact(&x);
	} else if (nr == SYS_getdents64)
		return -EFAULT;
	return r > 0 ? r : -EFAULT;
}

/* read/pread in chunks: stops at a short read, as a file would (a
 * short copy into the program's buffer is one). */
static long
r_read(long nr, int fd, uint8_t *p, unsigned long n, long long off)
{
	unsigned long done = 0;
	uint32_t ask;
	long r;

	do {
		ask = n - done > chunk ? chunk : (uint32_t)(n - done);
		r = read_once(nr, fd, p + done, ask, off + (long long)done);
		if (r < 0)
			return done > 0 ? (long)done : r;
		done += (unsigned long)r;
		if ((uint32_t)r < ask)
			break;
	} while (done < n);
	return (long)done;
}

static long
r_write(long nr, int fd, const uint8_t *p, unsigned long n, long long off)
{
	unsigned long done = 0;
	struct sxdr x;
	uint32_t put, at;
	uint8_t *room;
	long r;

	do {
		put = n - done > chunk ? chunk : (uint32_t)(n - done);
		req_begin(&x, nr);
		sxdr_put_i32(&x, fd);
		/* Copied in place; a buffer that ends early sends what
		 * there is, as the kernel writes what it could read. */
		at = x.pos;
		if ((room = sxdr_put_opaque_room(&x, put)) != 0 &&
		    (r = remote_copy_in(room, p + done, put)) != (long)put) {
			if (r <= 0)
				return done > 0 ? (long)done : -EFAULT;
			x.pos = at;
			put = (uint32_t)r;
			sxdr_put_opaque_room(&x, put);
		}
		if (nr == SYS_pwrite64)
			sxdr_put_i64(&x, off + (long long)done);
		r = transact(&x);
		if (r < 0)
			return done > 0 ? (long)done : r;
		done += (unsigned long)r;
		if ((uint32_t)r < put)
			break;
	} while (done < n);
	return (long)done;
}

static long
r_iov(int write, int fd, const struct iovec *uiov, long cnt)
{
	static struct iovec iov[1024];
	long total = 0, r, i;

	if (cnt < 0 || cnt > 1024)
		return -EINVAL;
	if ((r = get_user(iov, uiov, (size_t)cnt * sizeof(iov[0]))) < 0)
		return r;
	for (i = 0; i < cnt; i++) {
		if (iov[i].iov_len == 0)
			continue;
		r = write ? r_write(SYS_write, fd, iov[i].iov_base,
		    iov[i].iov_len, 0) : r_read(SYS_read, fd,
		    iov[i].iov_base, iov[i].iov_len, 0);
		if (r < 0)
			return total > 0 ? total : r;
		total += r;
		if ((size_t)r < iov[i].iov_len)
			break;
	}
	return total;
}

static void
get_stat(struct sxdr *x, struct stat *st)
{
	cj_memset(st, 0, sizeof(*st));
	st->st_dev = (dev_t)sxdr_get_i64(x);
	st->st_ino = (ino_t)sxdr_get_i64(x);
	st->st_mode = (mode_t)sxdr_get_i64(x);
	st->st_nlink = (nlink_t)sxdr_get_i64(x);
	st->st_uid = (uid_t)sxdr_get_i64(x);
	st->st_gid = (gid_t)sxdr_get_i64(x);
	st->st_rdev = (dev_t)sxdr_get_i64(x);
	st->st_size = (off_t)sxdr_get_i64(x);
	st->st_blksize = (blksize_t)sxdr_get_i64(x);
	st->st_blocks = (blkcnt_t)sxdr_get_i64(x);
	st->st_atim.tv_sec = sxdr_get_i64(x);
	st->st_mtim.tv_sec = sxdr_get_i64(x);
	st->st_ctim.tv_sec = sxdr_get_i64(x);
	st->st_atim.tv_nsec = sxdr_get_i64(x);
	st->st_mtim.tv_nsec = sxdr_get_i64(x);
	st->st_ctim.tv_nsec = sxdr_get_i64(x);
}

static long
r_stat(long nr, int dirfd, const char *path, int flags, struct stat *out)
{
	static struct stat st;	/* static: under the trap's lock */
	struct sxdr x;
	long r;

	req_begin(&x, nr);
	sxdr_put_i32(&x, dirfd);
	if (nr == SYS_newfstatat) {
		put_path(&x, path);
		sxdr_put_i32(&x, flags);
	}
	if ((r = transact(&x)) < 0)
		return r;
	get_stat(&x, &st);
	if (x.err)
		return -EIO;
	return put_user(out, &st, sizeof(st)) < 0 ? -EFAULT : r;
}

static void
get_ts(struct sxdr *x, struct statx_timestamp *t)
{
	t->tv_sec = sxdr_get_i64(x);
	t->tv_nsec = sxdr_get_u32(x);
}

static long
r_statx(int dirfd, const char *path, int flags, unsigned mask,
    struct statx *out)
{
	static struct statx s;
	struct sxdr x;
	long r;

	req_begin(&x, SYS_statx);
	sxdr_put_i32(&x, dirfd);
	put_path(&x, path);
	sxdr_put_i32(&x, flags);
	sxdr_put_u32(&x, mask);
	if ((r = transact(&x)) < 0)
		return r;
	cj_memset(&s, 0, sizeof(s));
	s.stx_mask = (uint32_t)sxdr_get_i64(&x);
	s.stx_blksize = (uint32_t)sxdr_get_i64(&x);
	s.stx_attributes = (uint64_t)sxdr_get_i64(&x);
	s.stx_nlink = (uint32_t)sxdr_get_i64(&x);
	s.stx_uid = (uint32_t)sxdr_get_i64(&x);
	s.stx_gid = (uint32_t)sxdr_get_i64(&x);
	s.stx_mode = (uint16_t)sxdr_get_i64(&x);
	s.stx_ino = (uint64_t)sxdr_get_i64(&x);
	s.stx_size = (uint64_t)sxdr_get_i64(&x);
	s.stx_blocks = (uint64_t)sxdr_get_i64(&x);
	s.stx_attributes_mask = (uint64_t)sxdr_get_i64(&x);
	get_ts(&x, &s.stx_atime);
	get_ts(&x, &s.stx_btime);
	get_ts(&x, &s.stx_ctime);
	get_ts(&x, &s.stx_mtime);
	s.stx_rdev_major = sxdr_get_u32(&x);
	s.stx_rdev_minor = sxdr_get_u32(&x);
	s.stx_dev_major = sxdr_get_u32(&x);
	s.stx_dev_minor = sxdr_get_u32(&x);
	if (x.err)
		return -EIO;
	return put_user(out, &s, sizeof(s)) < 0 ? -EFAULT : r;
}

static long
r_two_paths(long nr, int od, const char *old, int nd, const char *new,
    int flags)
{
	struct sxdr x;

	req_begin(&x, nr);
	sxdr_put_i32(&x, od);
	put_path(&x, old);
	sxdr_put_i32(&x, nd);
	put_path(&x, new);
	sxdr_put_i32(&x, flags);
	return transact(&x);
}

static long
r_fd_int(long nr, int fd, long v, int is_hyper)
{
	struct sxdr x;

	req_begin(&x, nr);
	sxdr_put_i32(&x, fd);
	if (is_hyper)
		sxdr_put_i64(&x, v);
	else
		sxdr_put_i32(&x, (int32_t)v);
	return transact(&x);
}

static long
r_fcntl(int fd, int cmd, long arg)
{
	struct flock *ufl = (struct flock *)arg, lk, *fl = &lk;
	struct sxdr x;
	long r;
	int lock = cmd == F_GETLK || cmd == F_SETLK || cmd == F_SETLKW ||
	    cmd == F_OFD_GETLK || cmd == F_OFD_SETLK || cmd == F_OFD_SETLKW;

	if (lock && get_user(&lk, ufl, sizeof(lk)) < 0)
		return -EFAULT;
	req_begin(&x, SYS_fcntl);
	sxdr_put_i32(&x, fd);
	sxdr_put_i32(&x, cmd);
	if (lock) {
		sxdr_put_i32(&x, fl->l_type);
		sxdr_put_i32(&x, fl->l_whence);
		sxdr_put_i64(&x, fl->l_start);
		sxdr_put_i64(&x, fl->l_len);
		sxdr_put_i32(&x, fl->l_pid);
	} else
		sxdr_put_i64(&x, arg);
	if ((r = transact(&x)) < 0 || !lock)
		return r;
	if (cmd == F_GETLK || cmd == F_OFD_GETLK) {
		short type = (short)sxdr_get_i32(&x);
		short whence = (short)sxdr_get_i32(&x);
		long long start = sxdr_get_i64(&x), len = sxdr_get_i64(&x);
		int pid = sxdr_get_i32(&x);

		if (x.err)
			return -EIO;
		fl->l_type = type;
		fl->l_whence = whence;
		fl->l_start = start;
		fl->l_len = len;
		fl->l_pid = pid;
		if (put_user(ufl, &lk, sizeof(lk)) < 0)
			return -EFAULT;
	}
	return r;
}

static long
r_getdents(int fd, uint8_t *p, unsigned long n)
{
	return read_once(SYS_getdents64, fd, p,
	    n > chunk ? chunk : (uint32_t)n, 0);
}

static long
r_getcwd(char *out, unsigned long size)
{
	const uint8_t *s;
	struct sxdr x;
	uint32_t n;
	long r;

	req_begin(&x, SYS_getcwd);
	sxdr_put_u32(&x, size > 0xffffffffUL ? 0xffffffffU : (uint32_t)size);
	if ((r = transact(&x)) < 0)
		return r;
	s = sxdr_get_opaque(&x, SYSCALL_PROTO_MAX_PATH, &n);
	if (x.err || n + 1 > size)
		return -EIO;
	if (put_user(out, s, n) < 0 || put_user(out + n, "", 1) < 0)
		return -EFAULT;
	return r;
}

static long
r_readlinkat(int dirfd, const char *path, char *out, unsigned long size)
{
	const uint8_t *s;
	struct sxdr x;
	uint32_t n;
	long r;

	req_begin(&x, SYS_readlinkat);
	sxdr_put_i32(&x, dirfd);
	put_path(&x, path);
	sxdr_put_u32(&x, size > SYSCALL_PROTO_MAX_PATH ?
	    SYSCALL_PROTO_MAX_PATH : (uint32_t)size);
	if ((r = transact(&x)) < 0)
		return r;
	s = sxdr_get_opaque(&x, SYSCALL_PROTO_MAX_PATH, &n);
	if (x.err || n > size)
		return -EIO;
	return put_user(out, s, n) < 0 ? -EFAULT : r;
}

static long
r_utimensat(int dirfd, const char *path, const struct timespec *ts,
    int flags)
{
	struct timespec t[2];
	struct sxdr x;
	int i;

	if (ts != 0) {
		if (get_user(t, ts, sizeof(t)) < 0)
			return -EFAULT;
		ts = t;
	}
	req_begin(&x, SYS_utimensat);
	sxdr_put_i32(&x, dirfd);
	sxdr_put_i32(&x, path != 0);
	if (path != 0)
		put_path(&x, path);
	sxdr_put_i32(&x, ts != 0);
	for (i = 0; i < 2; i++) {
		sxdr_put_i64(&x, ts != 0 ? ts[i].tv_sec : 0);
		sxdr_put_i64(&x, ts != 0 ? ts[i].tv_nsec : 0);
	}
	sxdr_put_i32(&x, flags);
	return transact(&x);
}

static long
r_mode_call(long nr, int dirfd, const char *path, unsigned mode)
{
	struct sxdr x;

	req_begin(&x, nr);
	sxdr_put_i32(&x, dirfd);
	put_path(&x, path);
	sxdr_put_u32(&x, mode);
	return transact(&x);
}

static long
r_faccess(int dirfd, const char *path, int mode, int flags)
{
	struct sxdr x;

	req_begin(&x, SYS_faccessat2);
	sxdr_put_i32(&x, dirfd);
	put_path(&x, path);
	sxdr_put_u32(&x, (uint32_t)mode);
	sxdr_put_i32(&x, flags);
	return transact(&x);
}

#define MAP_PAGE	4096UL

/*
 * mmap of a remote file.  The file is at the shadow, so the mapping is a
 * copy: local anonymous memory filled by pread, then given the
 * protection asked for.  A private mapping means just that (the
 * program's writes stay its own, and a checkpoint carries the pages like
 * any others); a shared read-only one is a copy too, which does not see
 * later changes to the file; a shared writable one, whose writes would
 * have to reach the file, is refused with ENODEV.  Errors as the kernel
 * gives them: EINVAL, EBADF, EACCES for a descriptor not open for
 * reading (or, for a shared writable mapping, not for both), ENODEV for
 * what is not a regular file.  Pages wholly past the end of the file
 * read as zeros, where the kernel would raise SIGBUS.
 */
static long
r_mmap_file(const long a[6])
{
	unsigned long len = (unsigned long)a[1], done;
	int prot = (int)a[2], flags = (int)a[3], fd = (int)a[4];
	long long off = a[5];
	long g[6] = { fd, F_GETFL, 0, 0, 0, 0 };
	long addr, r = 0, fl;

	if (len == 0 || (off & (long long)(MAP_PAGE - 1)) != 0 || off < 0)
		return -EINVAL;
	if ((fl = remote_call(SYS_fcntl, g)) < 0)
		return fl;
	if ((fl & O_ACCMODE) == O_WRONLY)
		return -EACCES;
	if ((flags & MAP_TYPE) != MAP_PRIVATE && (prot & PROT_WRITE))
		return (fl & O_ACCMODE) != O_RDWR ? -EACCES : -ENODEV;
	addr = condor_sys6(SYS_mmap, a[0], len, PROT_READ | PROT_WRITE,
	    (flags & ~(MAP_TYPE | MAP_SYNC)) | MAP_PRIVATE | MAP_ANONYMOUS,
	    -1, 0);
	if (addr < 0 && addr > -4096)
		return addr;
	for (done = 0; done < len; done += (unsigned long)r) {
		r = r_read(SYS_pread64, fd, (uint8_t *)addr + done, len - done,
		    off + (long long)done);
		if (r <= 0)
			break;
	}
	if (r < 0 || (prot != (PROT_READ | PROT_WRITE) &&
	    (r = condor_sys3(SYS_mprotect, addr, len, prot)) < 0)) {
		condor_sys2(SYS_munmap, addr, len);
		if (r == -EISDIR || r == -ESPIPE || r == -EINVAL)
			return -ENODEV;
		return r;
	}
	return addr;
}

long
remote_call(long nr, const long a[6])
{
	const char *p0 = (const char *)a[0], *p1 = (const char *)a[1];
	struct sxdr x;

	switch (nr) {
	case SYS_open:
		return r_openat(AT_FDCWD, p0, (int)a[1], (unsigned)a[2]);
	case SYS_creat:
		return r_openat(AT_FDCWD, p0, O_CREAT | O_WRONLY | O_TRUNC,
		    (unsigned)a[1]);
	case SYS_openat:
		return r_openat((int)a[0], p1, (int)a[2], (unsigned)a[3]);
	case SYS_openat2: {
		struct open_how how;

		if ((unsigned long)a[3] < sizeof(how))
			return -EINVAL;
		if (get_user(&how, (const void *)a[2], sizeof(how)) < 0)
			return -EFAULT;
		if (how.resolve != 0)
			return -ENOSYS;
		return r_openat((int)a[0], p1, (int)how.flags,
		    (unsigned)how.mode);
	}
	case SYS_close:
	case SYS_dup:
	case SYS_fsync:
	case SYS_fdatasync:
	case SYS_fchdir:
		req_begin(&x, nr);
		sxdr_put_i32(&x, (int)a[0]);
		return transact(&x);
	case SYS_close_range:
		req_begin(&x, nr);
		sxdr_put_u32(&x, (uint32_t)a[0]);
		sxdr_put_u32(&x, (uint32_t)a[1]);
		sxdr_put_u32(&x, (uint32_t)a[2]);
		return transact(&x);
	case SYS_read:
		return r_read(nr, (int)a[0], (uint8_t *)a[1],
		    (unsigned long)a[2], 0);
	case SYS_pread64:
		return r_read(nr, (int)a[0], (uint8_t *)a[1],
		    (unsigned long)a[2], a[3]);
	case SYS_write:
		return r_write(nr, (int)a[0], (const uint8_t *)a[1],
		    (unsigned long)a[2], 0);
	case SYS_pwrite64:
		return r_write(nr, (int)a[0], (const uint8_t *)a[1],
		    (unsigned long)a[2], a[3]);
	case SYS_readv:
	case SYS_writev:
		return r_iov(nr == SYS_writev, (int)a[0],
		    (const struct iovec *)a[1], a[2]);
	case SYS_lseek:
		req_begin(&x, nr);
		sxdr_put_i32(&x, (int)a[0]);
		sxdr_put_i64(&x, a[1]);
		sxdr_put_i32(&x, (int)a[2]);
		return transact(&x);
	case SYS_dup2:
	case SYS_dup3:
		req_begin(&x, SYS_dup3);
		sxdr_put_i32(&x, (int)a[0]);
		sxdr_put_i32(&x, (int)a[1]);
		sxdr_put_i32(&x, nr == SYS_dup2 ? -1 : (int)a[2]);
		return transact(&x);
	case SYS_fcntl:
		return r_fcntl((int)a[0], (int)a[1], a[2]);
	case SYS_fstat:
		return r_stat(nr, (int)a[0], 0, 0, (struct stat *)a[1]);
	case SYS_stat:
		return r_stat(SYS_newfstatat, AT_FDCWD, p0, 0,
		    (struct stat *)a[1]);
	case SYS_lstat:
		return r_stat(SYS_newfstatat, AT_FDCWD, p0,
		    AT_SYMLINK_NOFOLLOW, (struct stat *)a[1]);
	case SYS_newfstatat:
		return r_stat(nr, (int)a[0], p1, (int)a[3],
		    (struct stat *)a[2]);
	case SYS_statx:
		return r_statx((int)a[0], p1, (int)a[2], (unsigned)a[3],
		    (struct statx *)a[4]);
	case SYS_access:
		return r_faccess(AT_FDCWD, p0, (int)a[1], 0);
	case SYS_faccessat:
		return r_faccess((int)a[0], p1, (int)a[2], 0);
	case SYS_faccessat2:
		return r_faccess((int)a[0], p1, (int)a[2], (int)a[3]);
	case SYS_unlink:
	case SYS_rmdir:
		req_begin(&x, SYS_unlinkat);
		sxdr_put_i32(&x, AT_FDCWD);
		put_path(&x, p0);
		sxdr_put_i32(&x, nr == SYS_rmdir ? AT_REMOVEDIR : 0);
		return transact(&x);
	case SYS_unlinkat:
		req_begin(&x, nr);
		sxdr_put_i32(&x, (int)a[0]);
		put_path(&x, p1);
		sxdr_put_i32(&x, (int)a[2]);
		return transact(&x);
	case SYS_rename:
		return r_two_paths(SYS_renameat2, AT_FDCWD, p0, AT_FDCWD, p1,
		    0);
	case SYS_renameat:
	case SYS_renameat2:
		return r_two_paths(SYS_renameat2, (int)a[0], p1, (int)a[2],
		    (const char *)a[3], nr == SYS_renameat ? 0 : (int)a[4]);
	case SYS_link:
		return r_two_paths(SYS_linkat, AT_FDCWD, p0, AT_FDCWD, p1, 0);
	case SYS_linkat:
		return r_two_paths(nr, (int)a[0], p1, (int)a[2],
		    (const char *)a[3], (int)a[4]);
	case SYS_symlink:
	case SYS_symlinkat:
		req_begin(&x, SYS_symlinkat);
		put_path(&x, p0);
		sxdr_put_i32(&x, nr == SYS_symlink ? AT_FDCWD : (int)a[1]);
		put_path(&x, nr == SYS_symlink ? p1 :
		    (const char *)a[2]);
		return transact(&x);
	case SYS_mkdir:
		return r_mode_call(SYS_mkdirat, AT_FDCWD, p0, (unsigned)a[1]);
	case SYS_mkdirat:
		return r_mode_call(nr, (int)a[0], p1, (unsigned)a[2]);
	case SYS_chmod:
		return r_mode_call(SYS_fchmodat, AT_FDCWD, p0,
		    (unsigned)a[1]);
	case SYS_fchmodat:
		return r_mode_call(nr, (int)a[0], p1, (unsigned)a[2]);
	case SYS_fchmod:
	case SYS_flock:
		req_begin(&x, nr);
		sxdr_put_i32(&x, (int)a[0]);
		sxdr_put_u32(&x, (uint32_t)a[1]);
		return transact(&x);
	case SYS_getdents64:
		return r_getdents((int)a[0], (uint8_t *)a[1],
		    (unsigned long)a[2]);
	case SYS_ftruncate:
		return r_fd_int(nr, (int)a[0], a[1], 1);
	case SYS_truncate:
		req_begin(&x, nr);
		put_path(&x, p0);
		sxdr_put_i64(&x, a[1]);
		return transact(&x);
	case SYS_getcwd:
		return r_getcwd((char *)a[0], (unsigned long)a[1]);
	case SYS_chdir:
		req_begin(&x, nr);
		put_path(&x, p0);
		return transact(&x);
	case SYS_readlink:
		return r_readlinkat(AT_FDCWD, p0, (char *)a[1],
		    (unsigned long)a[2]);
	case SYS_readlinkat:
		return r_readlinkat((int)a[0], p1, (char *)a[2],
		    (unsigned long)a[3]);
	case SYS_utimensat:
		return r_utimensat((int)a[0], p1,
		    (const struct timespec *)a[2], (int)a[3]);
	case SYS_umask:
		req_begin(&x, nr);
		sxdr_put_u32(&x, (uint32_t)a[0]);
		return transact(&x);
	case SYS_ioctl:
		return -ENOTTY;
	case SYS_mmap:
		if (!(a[3] & MAP_ANONYMOUS))
			return r_mmap_file(a);
		return condor_sys6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	}
	return -ENOSYS;
}

void
remote_client_start(void)
{
	if (r_getcwd(ft_cwd, sizeof(ft_cwd)) < 0)
		cj_strlcpy(ft_cwd, "/", sizeof(ft_cwd));
	ft_closed(remote_syscall_fd);
}
