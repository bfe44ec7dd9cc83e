/*
 * shadow_syscall.c: the system-call service of a standard-universe job
 * (include/syscall_proto.h is the protocol).
 *
 * The shadow listens on a second ephemeral TCP port (its address goes to
 * the starter in hello_res_x.syscall_addr).  The first connection that
 * presents the claim's capability is the job's; the shadow forks a
 * server process for it and stops listening.  The server:
 *
 *  - enters the job's world once and for all: chdir to Iwd, chroot to
 *    RootDir when the job asked for one other than "/" (the kernel then
 *    confines every path, "..", and symbolic link, exactly), and, when
 *    the shadow is root, becomes the job's owner for good (real,
 *    effective and saved ids, the owner's groups), so each request runs
 *    with the owner's rights and nothing else;
 *  - keeps the job's descriptor table: the job's numbers 0, 1, 2 are its
 *    In, Out and Err (/dev/null when it has none) and every later number
 *    is allocated the way the kernel does (lowest free), so the job's
 *    library forwards descriptor numbers unchanged;
 *  - answers one request at a time, in order, with the kernel's result
 *    and errno; a malformed or oversized request gets -EIO and the
 *    service goes on.
 *
 * When the job closes the connection (it exited, or was killed), the
 * server writes its counts (calls, bytes each way) and its own CPU time
 * on a pipe to the shadow and exits; the shadow adds them to
 * LocalUserCpu/LocalSysCpu and reports NumRemoteSyscalls, BytesSent (to
 * the job) and BytesRecvd (from the job).
 *
 * Not yet: a restarted job's Out and Err are still emptied at HELLO as
 * for a vanilla job (a checkpointed job will need them kept, and opened
 * with O_CREAT only the first time).
 */
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ad.h"
#include "config.h"
#include "event.h"
#include "fdio.h"
#include "log.h"
#include "priv.h"
#include "rpcutil.h"
#include "shadow.h"
#include "syscall_proto.h"
#include "xalloc.h"

#define JOB_MAXFD	1024	/* descriptors a job may hold */
#define HELLO_TIMEOUT	10	/* seconds for the capability record */

/* What the server reports at its end. */
struct syscall_counts {
	long long	calls;
	long long	bytes_in;	/* request bytes, from the job */
	long long	bytes_out;	/* reply bytes, to the job */
	double		user_cpu, sys_cpu;
};

static int			listen_fd = -1;
static char			address[ADDR_STRLEN];
static pid_t			server_pid = -1;
static int			report_fd = -1;	/* the server's pipe */
static int			collected;
static struct syscall_counts	counts;

/* ---------------------------------------------------------------- */
/* The server process. */

struct jfd {
	int	fd;		/* the server's descriptor, -1: closed */
	int	cloexec;	/* the job's FD_CLOEXEC, kept for it */
};

static struct jfd	jfds[JOB_MAXFD];
static uint8_t		*req_buf, *rep_buf;



static int
jfd_alloc(int min)
{
	int i;

	for (i = min < 0 ? 0 : min; i < JOB_MAXFD; i++)
		if (jfds[i].fd == -1)
			return i;
	return -1;
}

/* The server's descriptor for the job's FD, or -1 (EBADF). */
static int
jfd_get(int fd)
{
	if (fd < 0 || fd >= JOB_MAXFD || jfds[fd].fd == -1)
		return -1;
	return jfds[fd].fd;
}

/* A dirfd argument: AT_FDCWD stays (the server's cwd is the job's). */
static int
jdir(int fd)
{
	return fd == AT_FDCWD ? AT_FDCWD : jfd_get(fd);
}

static void
jfd_close(int fd)
{
	if (jfd_get(fd) == -1)
		return;
	close(jfds[fd].fd);
	jfds[fd].fd = -1;
	jfds[fd].cloexec = 0;
}

/* Give job descriptor NEW the server's REAL (owned now). */
static void
jfd_set(int new, int real, int cloexec)
{
	jfd_close(new);
	jfds[new].fd = real;
	jfds[new].cloexec = cloexec != 0;
}

/* A libc result as the kernel's: -errno on failure.  V once. */
#define RET(v)	({ long long v_ = (long long)(v); v_ == -1 ? -errno : v_; })

static void
put_stat(struct sxdr *o, const struct stat *st)
{
	sxdr_put_i64(o, (int64_t)st->st_dev);
	sxdr_put_i64(o, (int64_t)st->st_ino);
	sxdr_put_i64(o, (int64_t)st->st_mode);
	sxdr_put_i64(o, (int64_t)st->st_nlink);
	sxdr_put_i64(o, (int64_t)st->st_uid);
	sxdr_put_i64(o, (int64_t)st->st_gid);
	sxdr_put_i64(o, (int64_t)st->st_rdev);
	sxdr_put_i64(o, (int64_t)st->st_size);
	sxdr_put_i64(o, (int64_t)st->st_blksize);
	sxdr_put_i64(o, (int64_t)st->st_blocks);
	sxdr_put_i64(o, (int64_t)st->st_atim.tv_sec);
	sxdr_put_i64(o, (int64_t)st->st_mtim.tv_sec);
	sxdr_put_i64(o, (int64_t)st->st_ctim.tv_sec);
	sxdr_put_i64(o, (int64_t)st->st_atim.tv_nsec);
	sxdr_put_i64(o, (int64_t)st->st_mtim.tv_nsec);
	sxdr_put_i64(o, (int64_t)st->st_ctim.tv_nsec);
}

static void
put_ts(struct sxdr *o, const struct statx_timestamp *t)
{
	sxdr_put_i64(o, t->tv_sec);
	sxdr_put_u32(o, t->tv_nsec);
}

static void
put_statx(struct sxdr *o, const struct statx *s)
{
	sxdr_put_i64(o, s->stx_mask);
	sxdr_put_i64(o, s->stx_blksize);
	sxdr_put_i64(o, (int64_t)s->stx_attributes);
	sxdr_put_i64(o, s->stx_nlink);
	sxdr_put_i64(o, s->stx_uid);
	sxdr_put_i64(o, s->stx_gid);
	sxdr_put_i64(o, s->stx_mode);
	sxdr_put_i64(o, (int64_t)s->stx_ino);
	sxdr_put_i64(o, (int64_t)s->stx_size);
	sxdr_put_i64(o, (int64_t)s->stx_blocks);
	sxdr_put_i64(o, (int64_t)s->stx_attributes_mask);
	put_ts(o, &s->stx_atime);
	put_ts(o, &s->stx_btime);
	put_ts(o, &s->stx_ctime);
	put_ts(o, &s->stx_mtime);
	sxdr_put_u32(o, s->stx_rdev_major);
	sxdr_put_u32(o, s->stx_rdev_minor);
	sxdr_put_u32(o, s->stx_dev_major);
	sxdr_put_u32(o, s->stx_dev_minor);
}

/* The reply's result goes first: leave room for it, fill it last. */
#define RESULT_AT	4	/* after the record mark */

/*
 * Serve one decoded request from IN into O (positioned after the
 * result).  Returns the result (>= 0 or -errno); O's data is sent only
 * when the result is not negative.
 */
static long long
serve_one(uint32_t nr, struct sxdr *in, struct sxdr *o)
{
	static char path[SYSCALL_PROTO_MAX_PATH], path2[SYSCALL_PROTO_MAX_PATH];
	const uint8_t *data;
	struct stat st;
	struct statx stx;
	struct flock fl;
	uint32_t n, count;
	int fd, fd2, flags, dfd, dfd2, real, cmd;
	long long r = -ENOSYS, off;
	uint8_t *room;

	switch (nr) {
	case SYS_openat:
		dfd = sxdr_get_i32(in);
		sxdr_get_string(in, path, sizeof(path));
		flags = sxdr_get_i32(in);
		n = sxdr_get_u32(in);
		if (in->err)
			break;
		if ((dfd = jdir(dfd)) == -1)
			return -EBADF;
		if ((fd = jfd_alloc(0)) == -1)
			return -EMFILE;
		real = openat(dfd, path, (flags & ~O_CLOEXEC) | O_CLOEXEC,
		    (mode_t)n);
		if (real == -1)
			return -errno;
		jfd_set(fd, real, flags & O_CLOEXEC);
		return fd;
	case SYS_close:
		fd = sxdr_get_i32(in);
		if (in->err)
			break;
		if (jfd_get(fd) == -1)
			return -EBADF;
		jfd_close(fd);
		return 0;
	case SYS_close_range: {
		uint32_t first = sxdr_get_u32(in), last = sxdr_get_u32(in);
		uint32_t f = sxdr_get_u32(in), i;

		if (in->err)
			break;
		if (first > last)
			return -EINVAL;
		for (i = first; i <= last && i < JOB_MAXFD; i++) {
			if (f & CLOSE_RANGE_CLOEXEC)
				jfds[i].cloexec = jfds[i].fd != -1;
			else
				jfd_close((int)i);
		}
		return 0;
	}
	case SYS_read:
	case SYS_pread64:
	case SYS_getdents64:
		fd = sxdr_get_i32(in);
		count = sxdr_get_u32(in);
		off = nr == SYS_pread64 ? sxdr_get_i64(in) : 0;
		if (in->err || count > SYSCALL_PROTO_MAX_DATA)
			break;
		if ((real = jfd_get(fd)) == -1)
			return -EBADF;
		if ((room = sxdr_put_opaque_room(o, count)) == 0)
			break;
		if (nr == SYS_read)
			r = RET(read(real, room, count));
		else if (nr == SYS_pread64)
			r = RET(pread(real, room, count, (off_t)off));
		else
			r = RET(syscall(SYS_getdents64, real, room, count));
		/* Shrink the opaque to what was read. */
		o->pos -= (count + 3) & ~3U;
		o->pos -= 4;
		if (r >= 0)
			sxdr_put_opaque_room(o, (uint32_t)r);
		return r;
	case SYS_write:
	case SYS_pwrite64:
		fd = sxdr_get_i32(in);
		data = sxdr_get_opaque(in, SYSCALL_PROTO_MAX_DATA, &n);
		off = nr == SYS_pwrite64 ? sxdr_get_i64(in) : 0;
		if (in->err)
			break;
		if ((real = jfd_get(fd)) == -1)
			return -EBADF;
		if (nr == SYS_write)
			return RET(write(real, data, n));
		return RET(pwrite(real, data, n, (off_t)off));
	case SYS_lseek:
		fd = sxdr_get_i32(in);
		off = sxdr_get_i64(in);
		flags = sxdr_get_i32(in);
		if (in->err)
			break;
		if ((real = jfd_get(fd)) == -1)
			return -EBADF;
		return RET(lseek(real, (off_t)off, flags));
	case SYS_dup:
		fd = sxdr_get_i32(in);
		if (in->err)
			break;
		if ((real = jfd_get(fd)) == -1)
			return -EBADF;
		if ((fd2 = jfd_alloc(0)) == -1)
			return -EMFILE;
		if ((real = fcntl(real, F_DUPFD_CLOEXEC, 0)) == -1)
			return -errno;
		jfd_set(fd2, real, 0);
		return fd2;
	case SYS_dup3:
		fd = sxdr_get_i32(in);
		fd2 = sxdr_get_i32(in);
		flags = sxdr_get_i32(in);
		if (in->err)
			break;
		if ((real = jfd_get(fd)) == -1)
			return -EBADF;
		if (fd2 < 0 || fd2 >= JOB_MAXFD)
			return -EBADF;
		if (flags == -1 && fd == fd2)		/* dup2 */
			return fd2;
		if (fd == fd2 || (flags != -1 && (flags & ~O_CLOEXEC)))
			return -EINVAL;
		if ((real = fcntl(real, F_DUPFD_CLOEXEC, 0)) == -1)
			return -errno;
		jfd_set(fd2, real, flags != -1 && (flags & O_CLOEXEC));
		return fd2;
	case SYS_fcntl:
		fd = sxdr_get_i32(in);
		cmd = sxdr_get_i32(in);
		if (cmd == F_GETLK || cmd == F_SETLK || cmd == F_SETLKW ||
		    cmd == F_OFD_GETLK || cmd == F_OFD_SETLK ||
		    cmd == F_OFD_SETLKW) {
			memset(&fl, 0, sizeof(fl));
			fl.l_type = (short)sxdr_get_i32(in);
			fl.l_whence = (short)sxdr_get_i32(in);
			fl.l_start = (off_t)sxdr_get_i64(in);
			fl.l_len = (off_t)sxdr_get_i64(in);
			fl.l_pid = sxdr_get_i32(in);
			off = 0;
		} else
			off = sxdr_get_i64(in);
		if (in->err)
			break;
		if ((real = jfd_get(fd)) == -1)
			return -EBADF;
		switch (cmd) {
		case F_DUPFD:
		case F_DUPFD_CLOEXEC:
			if (off < 0 || off >= JOB_MAXFD)
				return -EINVAL;
			if ((fd2 = jfd_alloc((int)off)) == -1)
				return -EMFILE;
			if ((real = fcntl(real, F_DUPFD_CLOEXEC, 0)) == -1)
				return -errno;
			jfd_set(fd2, real, cmd == F_DUPFD_CLOEXEC);
			return fd2;
		case F_GETFD:
			return jfds[fd].cloexec ? FD_CLOEXEC : 0;
		case F_SETFD:
			jfds[fd].cloexec = (off & FD_CLOEXEC) != 0;
			return 0;
		case F_GETFL:
		case F_SETFL:
		case F_GETLEASE:
		case F_GET_SEALS:
			return RET(fcntl(real, cmd, (long)off));
		case F_GETLK:
		case F_SETLK:
		case F_SETLKW:
		case F_OFD_GETLK:
		case F_OFD_SETLK:
		case F_OFD_SETLKW:
			r = RET(fcntl(real, cmd, &fl));
			if (r >= 0) {
				sxdr_put_i32(o, fl.l_type);
				sxdr_put_i32(o, fl.l_whence);
				sxdr_put_i64(o, fl.l_start);
				sxdr_put_i64(o, fl.l_len);
				sxdr_put_i32(o, fl.l_pid);
			}
			return r;
		}
		return -EINVAL;
	case SYS_fstat:
		fd = sxdr_get_i32(in);
		if (in->err)
			break;
		if ((real = jfd_get(fd)) == -1)
			return -EBADF;
		if (fstat(real, &st) == -1)
			return -errno;
		put_stat(o, &st);
		return 0;
	case SYS_newfstatat:
		dfd = sxdr_get_i32(in);
		sxdr_get_string(in, path, sizeof(path));
		flags = sxdr_get_i32(in);
		if (in->err)
			break;
		if ((dfd = jdir(dfd)) == -1 && !(path[0] == '/'))
			return -EBADF;
		if (fstatat(dfd, path, &st, flags) == -1)
			return -errno;
		put_stat(o, &st);
		return 0;
	case SYS_statx:
		dfd = sxdr_get_i32(in);
		sxdr_get_string(in, path, sizeof(path));
		flags = sxdr_get_i32(in);
		n = sxdr_get_u32(in);
		if (in->err)
			break;
		if ((dfd = jdir(dfd)) == -1 && !(path[0] == '/'))
			return -EBADF;
		if (statx(dfd, path, flags, n, &stx) == -1)
			return -errno;
		put_statx(o, &stx);
		return 0;
	case SYS_faccessat2:
		dfd = sxdr_get_i32(in);
		sxdr_get_string(in, path, sizeof(path));
		n = sxdr_get_u32(in);
		flags = sxdr_get_i32(in);
		if (in->err)
			break;
		if ((dfd = jdir(dfd)) == -1 && path[0] != '/')
			return -EBADF;
		return RET(syscall(SYS_faccessat2, dfd, path, (int)n, flags));
	case SYS_unlinkat:
		dfd = sxdr_get_i32(in);
		sxdr_get_string(in, path, sizeof(path));
		flags = sxdr_get_i32(in);
		if (in->err)
			break;
		if ((dfd = jdir(dfd)) == -1 && path[0] != '/')
			return -EBADF;
		return RET(unlinkat(dfd, path, flags));
	case SYS_renameat2:
	case SYS_linkat:
		dfd = sxdr_get_i32(in);
		sxdr_get_string(in, path, sizeof(path));
		dfd2 = sxdr_get_i32(in);
		sxdr_get_string(in, path2, sizeof(path2));
		flags = sxdr_get_i32(in);
		if (in->err)
			break;
		if (((dfd = jdir(dfd)) == -1 && path[0] != '/') ||
		    ((dfd2 = jdir(dfd2)) == -1 && path2[0] != '/'))
			return -EBADF;
		if (nr == SYS_linkat)
			return RET(linkat(dfd, path, dfd2, path2, flags));
		return RET(syscall(SYS_renameat2, dfd, path, dfd2, path2,
		    flags));
	case SYS_symlinkat:
		sxdr_get_string(in, path, sizeof(path));
		dfd2 = sxdr_get_i32(in);
		sxdr_get_string(in, path2, sizeof(path2));
		if (in->err)
			break;
		if ((dfd2 = jdir(dfd2)) == -1 && path2[0] != '/')
			return -EBADF;
		return RET(symlinkat(path, dfd2, path2));
	case SYS_mkdirat:
		dfd = sxdr_get_i32(in);
		sxdr_get_string(in, path, sizeof(path));
		n = sxdr_get_u32(in);
		if (in->err)
			break;
		if ((dfd = jdir(dfd)) == -1 && path[0] != '/')
			return -EBADF;
		return RET(mkdirat(dfd, path, (mode_t)n));
	case SYS_ftruncate:
		fd = sxdr_get_i32(in);
		off = sxdr_get_i64(in);
		if (in->err)
			break;
		if ((real = jfd_get(fd)) == -1)
			return -EBADF;
		return RET(ftruncate(real, (off_t)off));
	case SYS_truncate:
		sxdr_get_string(in, path, sizeof(path));
		off = sxdr_get_i64(in);
		if (in->err)
			break;
		return RET(truncate(path, (off_t)off));
	case SYS_fsync:
	case SYS_fdatasync:
	case SYS_fchdir:
		fd = sxdr_get_i32(in);
		if (in->err)
			break;
		if ((real = jfd_get(fd)) == -1)
			return -EBADF;
		if (nr == SYS_fchdir)
			return RET(fchdir(real));
		return RET(nr == SYS_fsync ? fsync(real) : fdatasync(real));
	case SYS_getcwd:
		count = sxdr_get_u32(in);
		if (in->err)
			break;
		if (getcwd(path, sizeof(path)) == NULL)
			return -errno;
		if (strlen(path) + 1 > count)
			return -ERANGE;
		sxdr_put_string(o, path);
		return (long long)strlen(path) + 1;
	case SYS_chdir:
		sxdr_get_string(in, path, sizeof(path));
		if (in->err)
			break;
		return RET(chdir(path));
	case SYS_readlinkat:
		dfd = sxdr_get_i32(in);
		sxdr_get_string(in, path, sizeof(path));
		count = sxdr_get_u32(in);
		if (in->err)
			break;
		if ((dfd = jdir(dfd)) == -1 && path[0] != '/')
			return -EBADF;
		if (count > sizeof(path2))
			count = sizeof(path2);
		r = RET(readlinkat(dfd, path, path2, count));
		if (r >= 0)
			sxdr_put_opaque(o, path2, (uint32_t)r);
		return r;
	case SYS_utimensat: {
		struct timespec ts[2];
		int has_path, has_times;

		dfd = sxdr_get_i32(in);
		has_path = sxdr_get_i32(in);
		if (has_path)
			sxdr_get_string(in, path, sizeof(path));
		has_times = sxdr_get_i32(in);
		ts[0].tv_sec = (time_t)sxdr_get_i64(in);
		ts[0].tv_nsec = (long)sxdr_get_i64(in);
		ts[1].tv_sec = (time_t)sxdr_get_i64(in);
		ts[1].tv_nsec = (long)sxdr_get_i64(in);
		flags = sxdr_get_i32(in);
		if (in->err)
			break;
		if ((dfd = jdir(dfd)) == -1 && !(has_path && path[0] == '/'))
			return -EBADF;
		return RET(syscall(SYS_utimensat, dfd, has_path ? path : NULL,
		    has_times ? ts : NULL, flags));
	}
	case SYS_fchmodat:
		dfd = sxdr_get_i32(in);
		sxdr_get_string(in, path, sizeof(path));
		n = sxdr_get_u32(in);
		if (in->err)
			break;
		if ((dfd = jdir(dfd)) == -1 && path[0] != '/')
			return -EBADF;
		return RET(fchmodat(dfd, path, (mode_t)n, 0));
	case SYS_fchmod:
	case SYS_flock:
		fd = sxdr_get_i32(in);
		n = sxdr_get_u32(in);
		if (in->err)
			break;
		if ((real = jfd_get(fd)) == -1)
			return -EBADF;
		if (nr == SYS_fchmod)
			return RET(fchmod(real, (mode_t)n));
		return RET(flock(real, (int)n));
	case SYS_umask:
		n = sxdr_get_u32(in);
		if (in->err)
			break;
		return (long long)umask((mode_t)(n & 0777));
	default:
		return -ENOSYS;
	}
	return -EIO;		/* the request did not decode */
}

/* Read and drop N bytes of a request we will not serve. */
static int
drain(int sock, uint32_t n)
{
	uint32_t chunk;

	while (n > 0) {
		chunk = n < SYSCALL_PROTO_MAX_RECORD ? n :
		    SYSCALL_PROTO_MAX_RECORD;
		if (fd_read_full(sock, req_buf, chunk) == -1)
			return -1;
		n -= chunk;
	}
	return 0;
}

/* Serve the job on SOCK until it hangs up; never returns. */
static void __attribute__((noreturn))
server_loop(int sock, int report)
{
	struct syscall_counts c;
	struct rusage ru;
	struct sxdr in, out;
	uint32_t mark, len, nr;
	long long r;

	memset(&c, 0, sizeof(c));
	for (;;) {
		if (fd_read_full(sock, &mark, 4) == -1)
			break;
		mark = ntohl(mark);
		len = mark & ~SYSCALL_PROTO_LAST_FRAG;
		c.calls++;
		c.bytes_in += 4 + (long long)len;
		if (!(mark & SYSCALL_PROTO_LAST_FRAG) ||
		    len > SYSCALL_PROTO_MAX_RECORD || len < 4) {
			/* Fragments are not used by this protocol. */
			if (drain(sock, len) == -1)
				break;
			r = -EIO;
			sxdr_init(&out, rep_buf + RESULT_AT,
			    SYSCALL_PROTO_MAX_RECORD);
			sxdr_put_i64(&out, r);
		} else {
			if (fd_read_full(sock, req_buf, len) == -1)
				break;
			sxdr_init(&in, req_buf, len);
			nr = sxdr_get_u32(&in);
			sxdr_init(&out, rep_buf + RESULT_AT,
			    SYSCALL_PROTO_MAX_RECORD);
			sxdr_put_i64(&out, 0);
			r = serve_one(nr, &in, &out);
			if (out.err)
				r = -EIO;
			if (r < 0)
				out.pos = 8;	/* the result alone */
			/* The result, in front of the data. */
			{
				uint32_t keep = out.pos;

				out.pos = 0;
				out.err = 0;
				sxdr_put_i64(&out, r);
				out.pos = keep;
			}
		}
		mark = htonl(SYSCALL_PROTO_LAST_FRAG | out.pos);
		memcpy(rep_buf, &mark, 4);
		if (fd_write_full(sock, rep_buf, RESULT_AT + out.pos) == -1)
			break;
		c.bytes_out += RESULT_AT + (long long)out.pos;
	}
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		c.user_cpu = (double)ru.ru_utime.tv_sec +
		    (double)ru.ru_utime.tv_usec / 1e6;
		c.sys_cpu = (double)ru.ru_stime.tv_sec +
		    (double)ru.ru_stime.tv_usec / 1e6;
	}
	fd_write_full(report, &c, sizeof(c));
	_exit(0);
}

/* Open the job's standard file FD (or /dev/null), at job number N. */
static int
std_fd(int fd, int n)
{
	int real = fd != -1 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) :
	    open("/dev/null", n == 0 ? O_RDONLY : O_WRONLY | O_CLOEXEC);

	if (real == -1)
		return -1;
	jfds[n].fd = real;
	return 0;
}

/* In the forked server: enter the job's world.  Never returns. */
static void __attribute__((noreturn))
server_start(int sock, int report, int as_root)
{
	char *root = NULL;
	int i, keep[6], nkeep = 0, lo;

	for (i = 0; i < JOB_MAXFD; i++) {
		jfds[i].fd = -1;
		jfds[i].cloexec = 0;
	}
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	if (std_fd(sj.in_fd, 0) == -1 || std_fd(sj.out_fd, 1) == -1 ||
	    std_fd(sj.err_fd, 2) == -1)
		_exit(3);
	if (chdir(sj.iwd) == -1)
		_exit(4);
	if (ad_get_string(sj.ad, "RootDir", &root) == 0 &&
	    strcmp(root, "/") != 0 && *root != '\0') {
		size_t rl = strlen(root);

		if (chroot(root) == -1)
			_exit(5);
		/* Iwd inside RootDir: there; else the root itself. */
		if (strncmp(sj.iwd, root, rl) != 0 ||
		    (sj.iwd[rl] != '/' && sj.iwd[rl] != '\0'))
			if (chdir("/") == -1)
				_exit(5);
	}
	free(root);
	if (as_root && priv_become_user(sj.uid, sj.gid) == -1)
		_exit(6);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(7);
	umask(022);
	/* Nothing of the shadow's survives but what the service needs:
	 * above all not the starter's connection, whose hang-up tells the
	 * starter that the shadow is gone. */
	keep[nkeep++] = sock;
	keep[nkeep++] = report;
	for (i = 0; i < 3; i++)
		keep[nkeep++] = jfds[i].fd;
	lo = 3;
	for (;;) {
		int low = -1, j;

		for (j = 0; j < nkeep; j++)
			if (keep[j] >= lo && (low == -1 || keep[j] < low))
				low = keep[j];
		if (low == -1) {
			close_range((unsigned)lo, ~0U, 0);
			break;
		}
		if (low > lo)
			close_range((unsigned)lo, (unsigned)low - 1, 0);
		lo = low + 1;
	}
	req_buf = xmalloc(SYSCALL_PROTO_MAX_RECORD);
	rep_buf = xmalloc(SYSCALL_PROTO_MAX_RECORD + 64);
	server_loop(sock, report);
}

/* ---------------------------------------------------------------- */
/* The shadow's side. */

static void
on_report(int fd, short revents, void *arg)
{
	syscall_collect(0);
}

static int
capability_equal(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i;
	unsigned char d = 0;

	if (la != lb)
		return 0;
	for (i = 0; i < la; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

/* Read the capability record on a fresh connection: 0 if it matches. */
static int
check_capability(int sock)
{
	uint8_t buf[4 + 4 + CAPABILITY_MAX + 4];
	char cap[CAPABILITY_MAX + 1];
	struct pollfd p = { sock, POLLIN, 0 };
	struct sxdr x;
	uint32_t mark, len;
	size_t got = 0;
	ssize_t r;
	double end = monotime() + HELLO_TIMEOUT;

	/* The record mark first, then exactly its length. */
	len = 4;
	while (got < len) {
		int ms = (int)((end - monotime()) * 1000);

		if (ms <= 0 || poll(&p, 1, ms) != 1)
			return -1;
		r = read(sock, buf + got, len - got);
		if (r <= 0)
			return -1;
		got += (size_t)r;
		if (got == 4 && len == 4) {
			memcpy(&mark, buf, 4);
			mark = ntohl(mark);
			if (!(mark & SYSCALL_PROTO_LAST_FRAG) ||
			    (mark & ~SYSCALL_PROTO_LAST_FRAG) >
			    sizeof(buf) - 4)
				return -1;
			len = 4 + (mark & ~SYSCALL_PROTO_LAST_FRAG);
		}
	}
	sxdr_init(&x, buf + 4, len - 4);
	sxdr_get_string(&x, cap, sizeof(cap));
	if (x.err || x.pos != x.len)
		return -1;
	return capability_equal(cap, sj.capability) ? 0 : -1;
}

static void
on_connect(int fd, short revents, void *arg)
{
	struct sockaddr_in from;
	socklen_t fl = sizeof(from);
	uint8_t reply[8];
	uint32_t mark;
	int sock, p[2], one = 1;
	pid_t pid;

	sock = accept4(listen_fd, (struct sockaddr *)&from, &fl, SOCK_CLOEXEC);
	if (sock == -1)
		return;
	if (check_capability(sock) == -1) {
		log_warnx("job %s: system-call connection from %s refused: "
		    "wrong capability", sj.id, inet_ntoa(from.sin_addr));
		close(sock);
		return;
	}
	setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	mark = htonl(SYSCALL_PROTO_LAST_FRAG | 4);
	memcpy(reply, &mark, 4);
	memset(reply + 4, 0, 4);
	if (pipe2(p, O_CLOEXEC) == -1 || fd_write_full(sock, reply, 8) == -1) {
		log_warn("job %s: cannot start the system-call service",
		    sj.id);
		close(sock);
		return;
	}
	if ((pid = fork()) == -1) {
		log_warn("job %s: fork", sj.id);
		close(sock);
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		close(p[0]);
		server_start(sock, p[1], shadow_is_root());
	}
	close(p[1]);
	close(sock);
	event_fd_del(listen_fd);
	close(listen_fd);
	listen_fd = -1;
	server_pid = pid;
	report_fd = p[0];
	event_fd_add(report_fd, POLLIN, on_report, NULL);
	log_info("job %s: system calls from %s served by pid %d", sj.id,
	    inet_ntoa(from.sin_addr), (int)pid);
}

static void
syscall_atexit(void)
{
	if (server_pid > 0 && !collected)
		kill(server_pid, SIGKILL);
}

int
syscall_init(void)
{
	struct sockaddr_in bound, host;
	char *text;

	listen_fd = rpc_listen_tcp(param("BIND_ADDRESS"), 0, &bound);
	if (listen_fd == -1)
		return -1;
	fcntl(listen_fd, F_SETFD, FD_CLOEXEC);
	if (bound.sin_addr.s_addr == htonl(INADDR_ANY)) {
		text = xasprintf("%s:0", param("HOST") ? param("HOST") :
		    "localhost");
		if (addr_parse(text, &host) == 0)
			bound.sin_addr = host.sin_addr;
		else
			bound.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		free(text);
	}
	addr_format(&bound, address);
	event_fd_add(listen_fd, POLLIN, on_connect, NULL);
	atexit(syscall_atexit);
	return 0;
}

const char *
syscall_address(void)
{
	return listen_fd != -1 ? address : "";
}

/* Why the service exited with CODE before serving (server_start). */
static const char *
server_failure(int code)
{
	switch (code) {
	case 3:
		return "cannot open the job's standard files";
	case 4:
		return "cannot enter its initialdir";
	case 5:
		return "cannot confine it to its rootdir (chroot needs the "
		    "shadow to run as root)";
	case 6:
		return "cannot become the job's owner";
	default:
		return "its shadow is gone";
	}
}

void
syscall_collect(double wait)
{
	struct pollfd p;
	struct syscall_counts c;
	int status;

	if (collected || report_fd == -1)
		return;
	p.fd = report_fd;
	p.events = POLLIN;
	if (poll(&p, 1, (int)(wait * 1000)) != 1)
		return;
	if (fd_read_full(report_fd, &c, sizeof(c)) == 0)
		counts = c;
	collected = 1;
	event_fd_del(report_fd);
	close(report_fd);
	report_fd = -1;
	if (waitpid(server_pid, &status, 0) == server_pid &&
	    WIFEXITED(status) && WEXITSTATUS(status) >= 3 &&
	    WEXITSTATUS(status) <= 7)
		log_warnx("job %s: the system-call service could not start: "
		    "%s", sj.id, server_failure(WEXITSTATUS(status)));
	sj.bytes_sent += counts.bytes_in;
	sj.bytes_received += counts.bytes_out;
	log_info("job %s: %lld remote system calls, %lld bytes from the job, "
	    "%lld to it, %.3f s user and %.3f s system CPU", sj.id,
	    counts.calls, counts.bytes_in, counts.bytes_out, counts.user_cpu,
	    counts.sys_cpu);
}

void
syscall_cpu(double *user, double *sys)
{
	*user += counts.user_cpu;
	*sys += counts.sys_cpu;
}

void
syscall_report_attrs(struct ad *ad)
{
	if (server_pid <= 0)
		return;
	ad_set_int(ad, "NumRemoteSyscalls", counts.calls);
	ad_set_int(ad, "BytesSent", counts.bytes_out);
	ad_set_int(ad, "BytesRecvd", counts.bytes_in);
}
