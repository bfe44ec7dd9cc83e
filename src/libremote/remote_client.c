/*
 * remote_client.c: the job's side of the remote system calls.
 *
 * The trap (remote_trap.c) hands every call its table marks SC_REMOTE
 * in remote mode to remote_call().  Each call the shadow serves has one
 * line in include/syscall_table.h, whose fields follow the kernel's
 * registers: forward() encodes the registers by that line into one
 * static buffer (include/syscall_proto.h), sends it to the shadow on
 * CONDOR_SYSCALL_FD, waits for the reply in the same buffer and copies
 * the reply's data into the program's memory by the same line.  The
 * old calls (open, stat, rename...) go as their *at forms, with their
 * registers rearranged; reads and writes larger than REMOTE_IO_CHUNK go
 * as several requests.  Descriptor numbers go unchanged: the shadow
 * keeps the job's descriptor table.
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
#include "syscall_table.h"

#ifndef AT_REMOVEDIR
#define AT_REMOVEDIR	0x200
#endif

int		remote_syscall_fd = -1;
static long	remote_call_unlocked(long, const long[6]);
static uint32_t	chunk = REMOTE_CHUNK_DEFAULT;
static int	broken;
/* One request or one reply at a time, record mark included. */
static uint8_t	buf[SYSCALL_PROTO_MAX_RECORD + 8] __attribute__((aligned(8)));

int
remote_client_init(char **envp)
{
	long fd = cj_env_number(envp, REMOTE_FD_ENV, 1L << 30, -1);
	long c = cj_env_number(envp, REMOTE_CHUNK_ENV, 1L << 30,
	    REMOTE_CHUNK_DEFAULT);

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
/*
 * The connection to the shadow is gone (its service was killed, the
 * network failed): nothing the job does from here on could reach its
 * files, and it must not go on as if its calls had merely failed (its
 * output would be wrong and still count as done).  It waits here, every
 * signal blocked (a checkpoint now would keep a job no shadow serves),
 * until its starter, which loses the shadow too or is told by it, kills
 * it; it runs again from its last checkpoint.
 */
static void
hang(void)
{
	uint64_t all = ~(uint64_t)0;

	cj_say("lost the connection to the shadow; the job waits until its "
	    "starter stops it", (char *)0);
	condor_sys4(SYS_rt_sigprocmask, SIG_SETMASK, &all, 0, sizeof(all));
	for (;;)
		condor_sys0(SYS_pause);
}

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
	hang();
	return -EIO;
}

/* ---------------------------------------------------------------- */
/* The calls, by their lines in include/syscall_table.h.  The program's
 * memory is reached through remote_user.c: a bad pointer gives EFAULT,
 * as natively, not a crash in the handler. */

/* What a request's fields say about its reply. */
struct fwd {
	void		*out;	/* SC_OUT; the flock after F_GETLK */
	uint32_t	 count;	/* SC_COUNT, at most SYSCALL_PROTO_MAX_DATA */
};

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

/*
 * Encode call D with the registers A into X, and what its reply needs
 * into F: 0, or -errno (EFAULT, ENAMETOOLONG).  SC_DATA copies what it
 * can: a buffer that ends early sends what there is, as the kernel
 * writes what it could read.
 */
static long
encode(struct sxdr *x, const struct syscall_desc *d, const long a[6],
    struct fwd *f)
{
	static char path[SYSCALL_PROTO_MAX_PATH];
	static struct timespec ts[2];
	static struct flock fl;
	uint32_t n, at;
	uint8_t *room;
	long r;
	int i, j;

	req_begin(x, d->nr);
	f->out = 0;
	f->count = 0;
	for (i = 0; d->field[i] != SC_END; i++) {
		switch (d->field[i]) {
		case SC_INT:
		case SC_FD:
		case SC_DIRFD:
			sxdr_put_i32(x, (int32_t)a[i]);
			break;
		case SC_UINT:
			sxdr_put_u32(x, (uint32_t)a[i]);
			break;
		case SC_COUNT:
			f->count = (unsigned long)a[i] > SYSCALL_PROTO_MAX_DATA ?
			    SYSCALL_PROTO_MAX_DATA : (uint32_t)a[i];
			sxdr_put_u32(x, f->count);
			break;
		case SC_HYPER:
			sxdr_put_i64(x, a[i]);
			break;
		case SC_OPT_PATH:
			sxdr_put_i32(x, a[i] != 0);
			if (a[i] == 0)
				break;
			__attribute__((fallthrough));
		case SC_PATH:
		case SC_TEXT:
			r = remote_copy_string(path, (const char *)a[i],
			    sizeof(path));
			if (r < 0)
				return r;
			sxdr_put_string(x, path);
			break;
		case SC_DATA:
			n = (uint32_t)a[i + 1];		/* its SC_LEN */
			at = x->pos;
			if ((room = sxdr_put_opaque_room(x, n)) == 0 ||
			    (r = remote_copy_in(room, (const void *)a[i], n)) ==
			    (long)n)
				break;
			if (r <= 0)
				return -EFAULT;
			x->pos = at;
			sxdr_put_opaque_room(x, (uint32_t)r);
			break;
		case SC_TIMES:
			sxdr_put_i32(x, a[i] != 0);
			if (a[i] == 0)
				cj_memset(ts, 0, sizeof(ts));
			else if (get_user(ts, (const void *)a[i], sizeof(ts)) < 0)
				return -EFAULT;
			for (j = 0; j < 2; j++) {
				sxdr_put_i64(x, ts[j].tv_sec);
				sxdr_put_i64(x, ts[j].tv_nsec);
			}
			break;
		case SC_FCNTL_ARG:
			if (!syscall_fcntl_is_lock((int)a[i - 1])) {
				sxdr_put_i64(x, a[i]);
				break;
			}
			if (get_user(&fl, (const void *)a[i], sizeof(fl)) < 0)
				return -EFAULT;
			syscall_put_flock(x, &fl);
			if (a[i - 1] == F_GETLK || a[i - 1] == F_OFD_GETLK)
				f->out = (void *)a[i];
			break;
		case SC_OUT:
			f->out = (void *)a[i];
			break;
		}
	}
	return x->err ? -EFAULT : 0;
}

/*
 * The reply X of call D, result R, into the program's memory where F
 * says: R, -EIO when the reply is garbled, -EFAULT.
 */
static long
decode_reply(struct sxdr *x, const struct syscall_desc *d,
    const struct fwd *f, long r)
{
	static union {		/* static: under the trap's lock */
		struct stat	st;
		struct statx	stx;
		struct flock	fl;
	} u;
	const uint8_t *data;
	size_t size;
	uint32_t n;

	cj_memset(&u, 0, sizeof(u));
	switch (d->reply) {
	case SC_R_DATA:
	case SC_R_STRING:
		data = sxdr_get_opaque(x, f->count, &n);
		if (x->err || (unsigned long)r > f->count ||
		    n != (d->reply == SC_R_STRING ? r - 1 : r))
			return -EIO;
		if (put_user(f->out, data, n) < 0 ||
		    (d->reply == SC_R_STRING &&
		    put_user((char *)f->out + n, "", 1) < 0))
			return -EFAULT;
		return r;
	case SC_R_STAT:
		syscall_get_stat(x, &u.st);
		size = sizeof(u.st);
		break;
	case SC_R_STATX:
		syscall_get_statx(x, &u.stx);
		size = sizeof(u.stx);
		break;
	case SC_R_FLOCK:
		if (f->out == 0)
			return r;
		/* Over the program's own, so its padding stays. */
		if (get_user(&u.fl, f->out, sizeof(u.fl)) < 0)
			return -EFAULT;
		syscall_get_flock(x, &u.fl);
		size = sizeof(u.fl);
		break;
	default:
		return r;
	}
	if (x->err)
		return -EIO;
	return put_user(f->out, &u, size) < 0 ? -EFAULT : r;
}

/* Call NR (a line of the table) with the registers A at the shadow. */
static long
forward(long nr, const long a[6])
{
	const struct syscall_desc *d;
	struct sxdr x;
	struct fwd f;
	long r;

	if (syscall_lookup((uint32_t)nr, &d) == -1)
		return -ENOSYS;
	if ((r = encode(&x, d, a, &f)) < 0 || (r = transact(&x)) < 0)
		return r;
	return decode_reply(&x, d, &f, r);
}

/* One read request of at most CHUNK bytes into P. */
static long
read_once(long nr, int fd, uint8_t *p, uint32_t n, long long off)
{
	const long a[6] = { fd, (long)p, n, off, 0, 0 };
	const struct syscall_desc *d;
	const uint8_t *data;
	struct sxdr x;
	struct fwd f;
	uint32_t got;
	long r;

	if (syscall_lookup((uint32_t)nr, &d) == -1)
		return -ENOSYS;
	if ((r = encode(&x, d, a, &f)) < 0 || (r = transact(&x)) < 0)
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
		const long back[6] = { fd, (long)r - (long)got, SEEK_CUR };

		forward(SYS_lseek, back);
	} else if (nr == SYS_getdents64)
		return -EFAULT;
	return r > 0 ? r : -EFAULT;
}

/*
 * read, pread, write or pwrite in requests of at most CHUNK bytes:
 * stops at a short one, as a file would (a short copy to or from the
 * program's buffer is one).
 */
static long
r_chunked(long nr, int fd, uint8_t *p, unsigned long n, long long off)
{
	unsigned long done = 0;
	uint32_t part;
	long r;

	do {
		part = n - done > chunk ? chunk : (uint32_t)(n - done);
		if (nr == SYS_read || nr == SYS_pread64)
			r = read_once(nr, fd, p + done, part,
			    off + (long long)done);
		else {
			const long a[6] = { fd, (long)(p + done), part,
			    off + (long long)done, 0, 0 };

			r = forward(nr, a);
		}
		if (r < 0)
			return done > 0 ? (long)done : r;
		done += (unsigned long)r;
		if ((uint32_t)r < part)
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
		r = r_chunked(write ? SYS_write : SYS_read, fd,
		    iov[i].iov_base, iov[i].iov_len, 0);
		if (r < 0)
			return total > 0 ? total : r;
		total += r;
		if ((size_t)r < iov[i].iov_len)
			break;
	}
	return total;
}

static long
r_getcwd(char *out, unsigned long size)
{
	const long a[6] = { (long)out, (long)size, 0, 0, 0, 0 };

	return forward(SYS_getcwd, a);
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
	if ((fl = remote_call_unlocked(SYS_fcntl, g)) < 0)
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
		r = r_chunked(SYS_pread64, fd, (uint8_t *)addr + done,
		    len - done, off + (long long)done);
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

/*
 * The calls older than their *at forms, and the few others whose
 * registers differ from their line in the table: each as that line's
 * call, with its registers rearranged.
 */
static long
remote_call_unlocked(long nr, const long a[6])
{
	/* The old calls' arguments after an AT_FDCWD. */
	long w[6] = { AT_FDCWD, a[0], a[1], a[2], a[3], a[4] };

	switch (nr) {
	case SYS_open:
		return forward(SYS_openat, w);
	case SYS_creat:
		w[3] = a[1];
		w[2] = O_CREAT | O_WRONLY | O_TRUNC;
		return forward(SYS_openat, w);
	case SYS_openat2: {
		struct open_how how;

		if ((unsigned long)a[3] < sizeof(how))
			return -EINVAL;
		if (get_user(&how, (const void *)a[2], sizeof(how)) < 0)
			return -EFAULT;
		if (how.resolve != 0)
			return -ENOSYS;
		w[0] = a[0];
		w[2] = (long)how.flags;
		w[3] = (long)how.mode;
		return forward(SYS_openat, w);
	}
	case SYS_getdents64:
		return read_once(nr, (int)a[0], (uint8_t *)a[1],
		    (unsigned long)a[2] > chunk ? chunk : (uint32_t)a[2], 0);
	case SYS_read:
	case SYS_pread64:
	case SYS_write:
	case SYS_pwrite64:
		return r_chunked(nr, (int)a[0], (uint8_t *)a[1],
		    (unsigned long)a[2], nr == SYS_pread64 ||
		    nr == SYS_pwrite64 ? a[3] : 0);
	case SYS_readv:
	case SYS_writev:
		return r_iov(nr == SYS_writev, (int)a[0],
		    (const struct iovec *)a[1], a[2]);
	case SYS_dup2:
		w[0] = a[0];
		w[1] = a[1];
		w[2] = -1;
		return forward(SYS_dup3, w);
	case SYS_stat:
	case SYS_lstat:
		w[3] = nr == SYS_lstat ? AT_SYMLINK_NOFOLLOW : 0;
		return forward(SYS_newfstatat, w);
	case SYS_access:
		w[3] = 0;
		return forward(SYS_faccessat2, w);
	case SYS_faccessat: {
		const long v[6] = { a[0], a[1], a[2], 0, 0, 0 };

		return forward(SYS_faccessat2, v);
	}
	case SYS_unlink:
	case SYS_rmdir:
		w[2] = nr == SYS_rmdir ? AT_REMOVEDIR : 0;
		return forward(SYS_unlinkat, w);
	case SYS_rename:
	case SYS_link: {
		const long v[6] = { AT_FDCWD, a[0], AT_FDCWD, a[1], 0, 0 };

		return forward(nr == SYS_rename ? SYS_renameat2 : SYS_linkat,
		    v);
	}
	case SYS_renameat: {
		const long v[6] = { a[0], a[1], a[2], a[3], 0, 0 };

		return forward(SYS_renameat2, v);
	}
	case SYS_symlink: {
		const long v[6] = { a[0], AT_FDCWD, a[1], 0, 0, 0 };

		return forward(SYS_symlinkat, v);
	}
	case SYS_mkdir:
		return forward(SYS_mkdirat, w);
	case SYS_chmod:
		return forward(SYS_fchmodat, w);
	case SYS_readlink:
		return forward(SYS_readlinkat, w);
	case SYS_ioctl:
		return -ENOTTY;
	case SYS_mmap:
		if (!(a[3] & MAP_ANONYMOUS))
			return r_mmap_file(a);
		return condor_sys6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	}
	/* The rest are their lines in the table as they stand. */
	return forward(nr, a);
}

/*
 * One channel to the shadow, one request and reply at a time in static
 * buffers: the threads of a program take turns, each call whole.  The
 * holder runs with every signal blocked (in the trap's handler), so it
 * is never stopped halfway by a checkpoint.
 */
static volatile int	channel_lock;

long
remote_call(long nr, const long a[6])
{
	long r;

	while (__atomic_exchange_n(&channel_lock, 1, __ATOMIC_ACQUIRE))
		condor_sys0(SYS_sched_yield);
	r = remote_call_unlocked(nr, a);
	__atomic_store_n(&channel_lock, 0, __ATOMIC_RELEASE);
	return r;
}

void
remote_client_start(void)
{
	if (r_getcwd(ft_cwd, sizeof(ft_cwd)) < 0)
		cj_strlcpy(ft_cwd, "/", sizeof(ft_cwd));
	ft_closed(remote_syscall_fd);
}
