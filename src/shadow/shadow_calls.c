/*
 * shadow_calls.c: the job's files at its shadow: its descriptor table
 * and one handler per forwarded system call (include/syscall_table.h
 * lists them, include/syscall_proto.h is the transport).
 *
 * calls_serve decodes a request by the call's line in the table: the
 * fields into struct call_arg, the job's descriptors checked and
 * translated to the server's own (EBADF when not open), room reserved
 * in the reply for the data the call may return; then it runs the
 * call's handler h_<name>, and encodes the reply by the table again.
 * A handler therefore only performs its call, with the kernel's result
 * or -errno.
 *
 * The job's descriptor numbers are its own: 0, 1, 2 are its In, Out and
 * Err, and every later number is allocated the way the kernel does
 * (lowest free), so the job's library forwards numbers unchanged.  The
 * server's descriptors are all close-on-exec; the job's FD_CLOEXEC is
 * kept here for it.
 *
 * This file needs no shadow state: the fuzzer (tests/fuzz/fuzz_syscall.c)
 * runs it on its own.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <linux/close_range.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shadow.h"
#include "syscall_table.h"

#define JOB_MAXFD	1024	/* descriptors a job may hold */

struct jfd {
	int	fd;		/* the server's descriptor, -1: closed */
	int	cloexec;	/* the job's FD_CLOEXEC, kept for it */
};

static struct jfd	jfds[JOB_MAXFD];

/*
 * Was the last request complete (include/syscall_proto.h): a chained
 * request after one that was not is answered -ECANCELED unperformed.
 */
static int		chain_ok = 1;

/* One decoded field. */
struct call_arg {
	long long	 v;	/* the number; SC_FD, SC_DIRFD: the job's */
	int		 fd;	/* SC_FD, SC_DIRFD: the server's */
	const char	*s;	/* SC_PATH, SC_OPT_PATH (NULL: absent) */
	const uint8_t	*data;	/* SC_DATA, V bytes */
	struct timespec	 ts[2];	/* SC_TIMES, when V */
	struct flock	 fl;	/* SC_FCNTL_ARG after a lock command */
};

/* What a handler answers besides its result. */
struct call_reply {
	struct stat	 st;		/* SC_R_STAT */
	struct statx	 stx;		/* SC_R_STATX */
	uint8_t		*room;		/* SC_R_DATA, SC_R_STRING */
	uint32_t	 room_len;	/* the request's SC_COUNT, bounded */
};

typedef long long call_handler(struct call_arg *, struct call_reply *);

/* ---------------------------------------------------------------- */
/* The descriptor table. */

void
calls_init(void)
{
	int i;

	for (i = 0; i < JOB_MAXFD; i++) {
		jfds[i].fd = -1;
		jfds[i].cloexec = 0;
	}
	chain_ok = 1;
}

void
calls_break_chain(void)
{
	chain_ok = 0;
}

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
jfd_get(long long fd)
{
	if (fd < 0 || fd >= JOB_MAXFD || jfds[fd].fd == -1)
		return -1;
	return jfds[fd].fd;
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

void
calls_set_fd(int fd, int real)
{
	jfd_close(fd);
	jfds[fd].fd = real;
	jfds[fd].cloexec = 0;
}

void
calls_close_all(void)
{
	int i;

	for (i = 0; i < JOB_MAXFD; i++)
		jfd_close(i);
}

/* A copy of the server's REAL at job number NEW (EMFILE when NEW is
 * -1): NEW, or -errno. */
static long long
jfd_dup(int real, int new, int cloexec)
{
	if (new == -1)
		return -EMFILE;
	if ((real = fcntl(real, F_DUPFD_CLOEXEC, 0)) == -1)
		return -errno;
	jfd_close(new);
	jfds[new].fd = real;
	jfds[new].cloexec = cloexec != 0;
	return new;
}

/* ---------------------------------------------------------------- */
/* The handlers, in the table's order. */

/* A libc result as the kernel's: -errno on failure.  V once. */
#define RET(v)	({ long long v_ = (long long)(v); v_ == -1 ? -errno : v_; })

/* A handler that is one libc call, EXPR (of A and RP). */
#define CALL_RET(name, expr) \
	static long long \
	h_##name(struct call_arg *a, struct call_reply *rp) \
	{ \
		return RET(expr); \
	}

static long long
h_openat(struct call_arg *a, struct call_reply *rp)
{
	int fd, real, flags = (int)a[2].v;

	if ((fd = jfd_alloc(0)) == -1)
		return -EMFILE;
	real = openat(a[0].fd, a[1].s, (flags & ~O_CLOEXEC) | O_CLOEXEC,
	    (mode_t)a[3].v);
	if (real == -1)
		return -errno;
	calls_set_fd(fd, real);
	jfds[fd].cloexec = (flags & O_CLOEXEC) != 0;
	return fd;
}

static long long
h_close(struct call_arg *a, struct call_reply *rp)
{
	jfd_close((int)a[0].v);
	return 0;
}

static long long
h_close_range(struct call_arg *a, struct call_reply *rp)
{
	uint32_t first = (uint32_t)a[0].v, last = (uint32_t)a[1].v, i;
	uint32_t flags = (uint32_t)a[2].v;

	if (first > last ||
	    (flags & ~(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC)) != 0)
		return -EINVAL;
	for (i = first; i <= last && i < JOB_MAXFD; i++) {
		if (flags & CLOSE_RANGE_CLOEXEC)
			jfds[i].cloexec = jfds[i].fd != -1;
		else
			jfd_close((int)i);
	}
	return 0;
}

CALL_RET(read, read(a[0].fd, rp->room, rp->room_len))
CALL_RET(pread64, pread(a[0].fd, rp->room, rp->room_len,
    (off_t)a[3].v))
/*
 * Bytes the job may still write here (calls_limit_writes), or -1 for no
 * limit: a write beyond them fails with EDQUOT; one that reaches them
 * is cut short to them, as a full disk does.
 */
static long long	write_budget = -1;

void
calls_limit_writes(long long bytes)
{
	write_budget = bytes;
}

static long long
budget(long long len)
{
	if (write_budget < 0 || len <= 0)
		return len;
	if (write_budget == 0)
		return -EDQUOT;
	return len < write_budget ? len : write_budget;
}

static long long
spent(long long r)
{
	if (write_budget > 0 && r > 0)
		write_budget -= r < write_budget ? r : write_budget;
	return r;
}

static long long
h_write(struct call_arg *a, struct call_reply *rp)
{
	long long len = budget((long long)a[2].v);

	if (len < 0)
		return len;
	return spent(RET(write(a[0].fd, a[1].data, (size_t)len)));
}

static long long
h_pwrite64(struct call_arg *a, struct call_reply *rp)
{
	long long len = budget((long long)a[2].v);

	if (len < 0)
		return len;
	return spent(RET(pwrite(a[0].fd, a[1].data, (size_t)len,
	    (off_t)a[3].v)));
}
CALL_RET(lseek, lseek(a[0].fd, (off_t)a[1].v, (int)a[2].v))

static long long
h_dup(struct call_arg *a, struct call_reply *rp)
{
	return jfd_dup(a[0].fd, jfd_alloc(0), 0);
}

static long long
h_dup3(struct call_arg *a, struct call_reply *rp)
{
	long long fd = a[0].v, fd2 = a[1].v, flags = a[2].v;

	if (fd2 < 0 || fd2 >= JOB_MAXFD)
		return -EBADF;
	if (flags == -1 && fd == fd2)		/* dup2 */
		return fd2;
	if (fd == fd2 || (flags != -1 && (flags & ~O_CLOEXEC)))
		return -EINVAL;
	return jfd_dup(a[0].fd, (int)fd2, flags != -1 && (flags & O_CLOEXEC));
}

static long long
h_fcntl(struct call_arg *a, struct call_reply *rp)
{
	int cmd = (int)a[1].v;
	long long arg = a[2].v;

	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		if (arg < 0 || arg >= JOB_MAXFD)
			return -EINVAL;
		return jfd_dup(a[0].fd, jfd_alloc((int)arg),
		    cmd == F_DUPFD_CLOEXEC);
	case F_GETFD:
		return jfds[a[0].v].cloexec ? FD_CLOEXEC : 0;
	case F_SETFD:
		jfds[a[0].v].cloexec = (arg & FD_CLOEXEC) != 0;
		return 0;
	case F_GETFL:
	case F_SETFL:
	case F_GETLEASE:
	case F_GET_SEALS:
		return RET(fcntl(a[0].fd, cmd, (long)arg));
	}
	if (syscall_fcntl_is_lock(cmd))
		return RET(fcntl(a[0].fd, cmd, &a[2].fl));
	return -EINVAL;
}

CALL_RET(fstat, fstat(a[0].fd, &rp->st))
CALL_RET(newfstatat, fstatat(a[0].fd, a[1].s, &rp->st, (int)a[3].v))
/*
 * No path is the empty one with AT_EMPTY_PATH (as Linux 6.11 has it,
 * whatever this host's kernel), else a bad address.
 */
static long long
h_statx(struct call_arg *a, struct call_reply *rp)
{
	const char *path = a[1].s;

	if (path == NULL) {
		if (!((int)a[2].v & AT_EMPTY_PATH))
			return -EFAULT;
		path = "";
	}
	return RET(statx(a[0].fd, path, (int)a[2].v, (unsigned)a[3].v,
	    &rp->stx));
}
CALL_RET(faccessat2, syscall(SYS_faccessat2, a[0].fd, a[1].s, (int)a[2].v,
    (int)a[3].v))
CALL_RET(unlinkat, unlinkat(a[0].fd, a[1].s, (int)a[2].v))
CALL_RET(renameat2, syscall(SYS_renameat2, a[0].fd, a[1].s, a[2].fd,
    a[3].s, (unsigned)a[4].v))
CALL_RET(linkat, linkat(a[0].fd, a[1].s, a[2].fd, a[3].s, (int)a[4].v))
CALL_RET(symlinkat, symlinkat(a[0].s, a[1].fd, a[2].s))
CALL_RET(mkdirat, mkdirat(a[0].fd, a[1].s, (mode_t)a[2].v))
CALL_RET(getdents64, syscall(SYS_getdents64, a[0].fd, rp->room,
    rp->room_len))
CALL_RET(ftruncate, ftruncate(a[0].fd, (off_t)a[1].v))
CALL_RET(truncate, truncate(a[0].s, (off_t)a[1].v))
CALL_RET(fsync, fsync(a[0].fd))
CALL_RET(fdatasync, fdatasync(a[0].fd))

/* The kernel's getcwd: ERANGE when too small, the length with its NUL. */
CALL_RET(getcwd, syscall(SYS_getcwd, rp->room, (size_t)rp->room_len))
CALL_RET(chdir, chdir(a[0].s))
CALL_RET(fchdir, fchdir(a[0].fd))
CALL_RET(readlinkat, readlinkat(a[0].fd, a[1].s, (char *)rp->room,
    rp->room_len))
CALL_RET(utimensat, syscall(SYS_utimensat, a[0].fd, a[1].s,
    a[2].v ? a[2].ts : NULL, (int)a[3].v))
CALL_RET(fchmodat, syscall(SYS_fchmodat, a[0].fd, a[1].s, (mode_t)a[2].v))
CALL_RET(fchmodat2, syscall(SYS_fchmodat2, a[0].fd, a[1].s, (mode_t)a[2].v,
    (int)a[3].v))
CALL_RET(fchmod, fchmod(a[0].fd, (mode_t)a[1].v))
CALL_RET(flock, flock(a[0].fd, (int)a[1].v))

static long long
h_umask(struct call_arg *a, struct call_reply *rp)
{
	return (long long)umask((mode_t)(a[0].v & 0777));
}

#define CALL_HANDLER_(name, fields, reply, what)	h_##name,
static call_handler *const handlers[SYSCALL_NCALLS] = {
	SYSCALL_TABLE(CALL_HANDLER_)
};

/* ---------------------------------------------------------------- */
/* Decoding, dispatch, encoding. */

/*
 * A path naming one of the job's descriptors (/proc/self/fd/N or
 * /dev/fd/N, as glibc's fchmodat with AT_SYMLINK_NOFOLLOW names its
 * O_PATH descriptor) names the server's descriptor for the job's N
 * instead: here "self" is the server.  A number the job has not open
 * gives a name that does not exist (ENOENT, as natively).
 */
static void
jfd_path(char *path, size_t size)
{
	static const char *const names[] = { "/proc/self/fd/", "/dev/fd/" };
	char fixed[SYSCALL_PROTO_MAX_PATH];
	const char *p;
	size_t i, len;
	long long n;
	int r;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		len = strlen(names[i]);
		if (strncmp(path, names[i], len) != 0 ||
		    path[len] < '0' || path[len] > '9')
			continue;
		for (n = 0, p = path + len; *p >= '0' && *p <= '9'; p++)
			if (n < JOB_MAXFD)
				n = n * 10 + (*p - '0');
		if (*p != '\0' && *p != '/')
			return;
		r = snprintf(fixed, sizeof(fixed), "/proc/self/fd/%d%s",
		    jfd_get(n), p);
		if (r > 0 && (size_t)r < size)
			memcpy(path, fixed, (size_t)r + 1);
		return;
	}
}

/*
 * Decode the fields of D from IN into A, and check the job's
 * descriptors.  0, -EIO (malformed), or -EBADF.
 */
static long long
decode(const struct syscall_desc *d, struct sxdr *in, struct call_arg *a)
{
	static char paths[SYSCALL_MAX_FIELDS][SYSCALL_PROTO_MAX_PATH];
	uint32_t n;
	int i;

	for (i = 0; d->field[i] != SC_END; i++) {
		memset(&a[i], 0, sizeof(a[i]));
		switch (d->field[i]) {
		case SC_INT:
		case SC_FD:
		case SC_DIRFD:
			a[i].v = sxdr_get_i32(in);
			break;
		case SC_UINT:
		case SC_COUNT:
			a[i].v = sxdr_get_u32(in);
			break;
		case SC_HYPER:
			a[i].v = sxdr_get_i64(in);
			break;
		case SC_OPT_PATH:
			if ((a[i].v = sxdr_get_i32(in)) == 0)
				break;
			__attribute__((fallthrough));
		case SC_PATH:
		case SC_TEXT:
			sxdr_get_string(in, paths[i], sizeof(paths[i]));
			if (d->field[i] != SC_TEXT)
				jfd_path(paths[i], sizeof(paths[i]));
			a[i].s = paths[i];
			break;
		case SC_DATA:
			a[i].data = sxdr_get_opaque(in,
			    SYSCALL_PROTO_MAX_DATA, &n);
			a[i].v = n;
			break;
		case SC_LEN:
			a[i].v = a[i - 1].v;
			break;
		case SC_TIMES:
			a[i].v = sxdr_get_i32(in);
			for (n = 0; n < 2; n++) {
				a[i].ts[n].tv_sec = (time_t)sxdr_get_i64(in);
				a[i].ts[n].tv_nsec = (long)sxdr_get_i64(in);
			}
			break;
		case SC_FCNTL_ARG:
			if (syscall_fcntl_is_lock((int)a[i - 1].v))
				syscall_get_flock(in, &a[i].fl);
			else
				a[i].v = sxdr_get_i64(in);
			break;
		}
	}
	if (in->err)
		return -EIO;
	for (i = 0; d->field[i] != SC_END; i++) {
		if (d->field[i] == SC_FD && (a[i].fd = jfd_get(a[i].v)) == -1)
			return -EBADF;
		if (d->field[i] != SC_DIRFD)
			continue;
		a[i].fd = a[i].v == AT_FDCWD ? AT_FDCWD : jfd_get(a[i].v);
		/* An absolute path after it does not use it. */
		if (a[i].fd == -1 && (d->field[i + 1] == SC_END ||
		    a[i + 1].s == NULL || a[i + 1].s[0] != '/'))
			return -EBADF;
	}
	return 0;
}

/*
 * Serve one request IN (after the call number NR) into O (after the
 * result): the result, >= 0 or -errno; O's data counts only when the
 * result is not negative.  *COUNT gets what a complete call returns:
 * its SC_COUNT (bounded) or its data's length, else -1 (any result).
 */
static long long
serve(uint32_t nr, struct sxdr *in, struct sxdr *o, long long *count,
    int raw)
{
	static struct call_arg a[SYSCALL_MAX_FIELDS];
	static struct call_reply rp;
	const struct syscall_desc *d;
	long long r;
	uint32_t at;
	int i, call;

	if ((call = syscall_lookup(nr, &d)) == -1)
		return -ENOSYS;
	if ((r = decode(d, in, a)) < 0)
		return r;
	for (i = 0; d->field[i] != SC_END; i++)
		if (d->field[i] == SC_COUNT || d->field[i] == SC_LEN)
			*count = a[i].v > SYSCALL_PROTO_MAX_DATA ?
			    SYSCALL_PROTO_MAX_DATA : a[i].v;
	at = o->pos;
	rp.room = NULL;
	rp.room_len = 0;
	if (d->reply == SC_R_DATA || d->reply == SC_R_STRING) {
		for (i = 0; d->field[i] != SC_END; i++)
			if (d->field[i] == SC_COUNT)
				rp.room_len = (uint32_t)a[i].v;
		if (rp.room_len > SYSCALL_PROTO_MAX_DATA)
			rp.room_len = SYSCALL_PROTO_MAX_DATA;
		if ((rp.room = sxdr_put_opaque_room(o, rp.room_len)) == NULL)
			return -EIO;
	}
	if ((r = handlers[call](a, &rp)) < 0)
		return r;
	switch (d->reply) {
	case SC_R_DATA:
	case SC_R_STRING:
		if (d->reply == SC_R_STRING && r-- == 0)
			return -EIO;
		if (r > rp.room_len)
			return -EIO;
		/* Shrink the opaque to what the call gave. */
		o->pos = at;
		sxdr_put_opaque_room(o, (uint32_t)r);
		if (raw && d->reply == SC_R_DATA)	/* no padding */
			o->pos = at + 4 + (uint32_t)r;
		return d->reply == SC_R_STRING ? r + 1 : r;
	case SC_R_STAT:
		syscall_put_stat(o, &rp.st);
		break;
	case SC_R_STATX:
		syscall_put_statx(o, &rp.stx);
		break;
	case SC_R_FLOCK:
		for (i = 0; d->field[i] != SC_END; i++)
			if (d->field[i] == SC_FCNTL_ARG &&
			    syscall_fcntl_is_lock((int)a[i - 1].v))
				syscall_put_flock(o, &a[i].fl);
		break;
	}
	return r;
}

uint32_t
calls_serve(const uint8_t *req, uint32_t len, uint8_t *rep, uint32_t replen)
{
	struct sxdr in, out;
	uint32_t nr, keep;
	long long r, count = -1;

	sxdr_init(&in, (uint8_t *)req, len);
	nr = sxdr_get_u32(&in);
	sxdr_init(&out, rep, replen);
	sxdr_put_i64(&out, 0);
	if (in.err)
		r = -EIO;
	else if ((nr & SYSCALL_PROTO_CHAINED) && !chain_ok)
		r = -ECANCELED;		/* the call ended before this piece */
	else
		r = serve(nr & ~SYSCALL_PROTO_FLAGS, &in, &out, &count,
		    (nr & SYSCALL_PROTO_RAW_DATA) != 0);
	if (out.err)
		r = -EIO;
	chain_ok = r >= 0 && (count < 0 || r == count);
	if (r < 0)
		out.pos = 8;		/* the result alone */
	/* The result, in front of the data. */
	keep = out.pos;
	out.pos = 0;
	out.err = 0;
	sxdr_put_i64(&out, r);
	return keep;
}
