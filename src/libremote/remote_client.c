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
 * registers rearranged.  Descriptor numbers go unchanged: the shadow
 * keeps the job's descriptor table.
 *
 * A call costs one write and, mostly, one read on the socket.  Reads
 * and writes larger than one piece are streamed (r_stream): cut into
 * pieces of at most REMOTE_IO_CHUNK bytes (and STREAM_PIECE), up to
 * STREAM_WINDOW of them in flight, each after the first chained to the
 * one before (include/syscall_proto.h), so that the shadow performs
 * none after a short or failed one; a read's data goes from the socket
 * straight into the program's buffer.  Nothing is read ahead of what
 * the program asked for: each call's pieces are all answered before it
 * returns, so no later call can see data older than itself.
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "remote.h"
#include "syscall_table.h"

#ifndef AT_REMOVEDIR
#define AT_REMOVEDIR	0x200
#endif

#define STREAM_PIECE	(256 * 1024)	/* bytes per piece, at most */
#define STREAM_WINDOW	16		/* pieces in flight, at most */
/* A streamed piece's reply header: mark, result, data length. */
#define PIECE_HEADER	16

int		remote_syscall_fd = -1;
static long	remote_call_unlocked(long, const long[6]);
static uint32_t	chunk = REMOTE_CHUNK_DEFAULT;
static int	broken;
/* One request or one reply at a time, record mark included. */
static uint8_t	buf[SYSCALL_PROTO_MAX_RECORD + 8] __attribute__((aligned(8)));
/*
 * The streamed pieces' replies are read header by header into RX (what
 * is read past one header is the next reply's, kept for it), their data
 * straight into the program's memory; and the read pieces' requests go
 * together from SREQ.
 */
static uint8_t	rx[2 * PIECE_HEADER];
static uint32_t	rx_have;
static uint8_t	sreq[STREAM_WINDOW * 64] __attribute__((aligned(8)));

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
	rx_have = 0;
	remote_user_init();
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

/*
 * Read a reply of at most N bytes into P, all of it: the record mark,
 * then as much as has come, which is the rest of the record (nothing
 * else is in flight): its length after the mark, or -1.
 */
static long
recv_record(uint8_t *p, uint32_t n)
{
	uint32_t got = 0, mark, len = 0;
	long r;

	if (rx_have != 0)	/* a stream's leftover: out of step */
		return -1;
	for (;;) {
		r = condor_sys3(SYS_read, remote_syscall_fd, p + got, n - got);
		if (r == -EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (uint32_t)r;
		if (got < 4)
			continue;
		mark = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		    (uint32_t)p[2] << 8 | p[3];
		len = mark & ~SYSCALL_PROTO_LAST_FRAG;
		if (!(mark & SYSCALL_PROTO_LAST_FRAG) || len < 8 ||
		    len > n - 4 || got > 4 + len)
			return -1;
		if (got == 4 + len)
			return (long)len;
	}
}

/* Start a request for call NR in X, the record at AT of SIZE bytes
 * (its body after the record mark). */
static void
req_begin(struct sxdr *x, uint8_t *at, uint32_t size, long nr)
{
	sxdr_init(x, at + 4, size - 4);
	sxdr_put_u32(x, (uint32_t)nr);
}

/* The record mark of the request X in front of it. */
static void
req_mark(struct sxdr *x)
{
	uint32_t mark = SYSCALL_PROTO_LAST_FRAG | x->pos;
	uint8_t *b = x->buf - 4;

	b[0] = (uint8_t)(mark >> 24);
	b[1] = (uint8_t)(mark >> 16);
	b[2] = (uint8_t)(mark >> 8);
	b[3] = (uint8_t)mark;
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

/* The connection is out of step or gone: never returns. */
static long
lost(void)
{
	broken = 1;
	hang();
	return -EIO;
}

static long
transact(struct sxdr *x)
{
	long len;

	if (broken || remote_syscall_fd < 0)
		return -EIO;
	if (x->err)
		return -EFAULT;	/* a path or buffer too long to send */
	req_mark(x);
	if (io_all(1, buf, 4 + x->pos) == -1 ||
	    (len = recv_record(buf, sizeof(buf))) == -1)
		return lost();
	sxdr_init(x, buf + 4, (uint32_t)len);
	return (long)sxdr_get_i64(x);
}

/* ---------------------------------------------------------------- */
/* The calls, by their lines in include/syscall_table.h.  The program's
 * memory is reached through remote_user.c: a bad pointer gives EFAULT,
 * as natively, not a crash in the handler. */

/* What a request's fields say about its reply. */
struct fwd {
	void		*out;	/* SC_OUT; the flock after F_GETLK */
	uint32_t	 count;	/* SC_COUNT, at most SYSCALL_PROTO_MAX_DATA */
	uint32_t	 data;	/* SC_DATA: the bytes sent */
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
 * Encode call D with the registers A into X, as the record at REC of
 * SIZE bytes, call number NR (D's, maybe chained), and what its reply
 * needs into F: 0, or -errno (EFAULT, ENAMETOOLONG).  SC_DATA copies
 * what it can: a buffer that ends early sends what there is, as the
 * kernel writes what it could read.
 */
static long
encode_at(struct sxdr *x, uint8_t *rec, uint32_t size,
    const struct syscall_desc *d, uint32_t nr, const long a[6],
    struct fwd *f)
{
	static char path[SYSCALL_PROTO_MAX_PATH];
	static struct timespec ts[2];
	static struct flock fl;
	uint32_t n, at;
	uint8_t *room;
	long r;
	int i, j;

	req_begin(x, rec, size, nr);
	f->out = 0;
	f->count = 0;
	f->data = 0;
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
			f->data = n;
			if ((room = sxdr_put_opaque_room(x, n)) == 0 ||
			    (r = remote_copy_in(room, (const void *)a[i], n)) ==
			    (long)n)
				break;
			if (r <= 0)
				return -EFAULT;
			x->pos = at;
			sxdr_put_opaque_room(x, (uint32_t)r);
			f->data = (uint32_t)r;
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

/* Encode call D into the one request buffer. */
static long
encode(struct sxdr *x, const struct syscall_desc *d, const long a[6],
    struct fwd *f)
{
	return encode_at(x, buf, sizeof(buf), d, d->nr, a, f);
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

/* ---------------------------------------------------------------- */
/* Streams: a large read or write as pieces in flight. */

/* Have N bytes (at most PIECE_HEADER) of the reply at hand in RX,
 * reading what has come, never past the next reply's header. */
static int
rx_fill(uint32_t n)
{
	long r;

	while (rx_have < n) {
		r = condor_sys3(SYS_read, remote_syscall_fd, rx + rx_have,
		    PIECE_HEADER - rx_have);
		if (r == -EINTR)
			continue;
		if (r <= 0)
			return -1;
		rx_have += (uint32_t)r;
	}
	return 0;
}

/* Drop N bytes from the front of RX. */
static void
rx_take(uint32_t n)
{
	uint32_t i;

	for (i = n; i < rx_have; i++)
		rx[i - n] = rx[i];
	rx_have -= n;
}

static uint32_t
rx_u32(uint32_t at)
{
	return (uint32_t)rx[at] << 24 | (uint32_t)rx[at + 1] << 16 |
	    (uint32_t)rx[at + 2] << 8 | rx[at + 3];
}

/*
 * Read N bytes of a reply's data into the program's memory at USER (or,
 * when USER is 0, drop them): how many reached the program.  A buffer
 * that ends early, or is read-only, takes what fitted, as the kernel's
 * read does, and the rest is dropped: the socket refuses a copy that
 * faults with nothing taken, so from there the data goes through BUF
 * and remote_copy_out, which copies up to the fault.  -1 when the
 * connection is lost.
 */
static long
rx_data(uint8_t *user, uint32_t n)
{
	uint32_t got = 0, part;
	int faulted = user == 0;
	long r, c;

	while (!faulted && got < n) {
		r = condor_sys6(SYS_recvfrom, remote_syscall_fd, user + got,
		    n - got, MSG_WAITALL, 0, 0);
		if (r == -EINTR)
			continue;
		if (r == -EFAULT)
			break;
		if (r <= 0)
			return -1;
		got += (uint32_t)r;
	}
	for (part = got; part < n; part += (uint32_t)r) {
		r = condor_sys3(SYS_read, remote_syscall_fd, buf,
		    n - part < sizeof(buf) ? n - part : sizeof(buf));
		if (r == -EINTR) {
			r = 0;
			continue;
		}
		if (r <= 0)
			return -1;
		if (faulted)
			continue;
		c = remote_copy_out(user + part, buf, (size_t)r);
		if (c > 0)
			got += (uint32_t)c;
		if (c != r)
			faulted = 1;
	}
	return (long)got;
}

/*
 * The reply to one piece of N bytes of a read (DATA: the data goes to
 * USER) or a write: its result; for a read, *COPIED the bytes that
 * reached USER.  Returns 0, or -1 when the connection is lost or the
 * reply is garbled.
 */
static int
piece_reply(int data, uint8_t *user, uint32_t n, long *res, long *copied)
{
	uint32_t len, dlen;
	long r;

	*copied = 0;
	if (rx_fill(12) == -1)
		return -1;
	len = rx_u32(0);
	if (!(len & SYSCALL_PROTO_LAST_FRAG))
		return -1;
	len &= ~SYSCALL_PROTO_LAST_FRAG;
	r = (long)((uint64_t)rx_u32(4) << 32 | rx_u32(8));
	*res = r;
	if (r < 0 || !data) {
		if (len != 8 || (r >= 0 && (unsigned long)r > n))
			return -1;
		rx_take(12);
		return 0;
	}
	if (rx_fill(16) == -1)
		return -1;
	dlen = rx_u32(12);
	if ((unsigned long)r != dlen || dlen > n || len != 12 + dlen)
		return -1;
	rx_take(16);
	/* Nothing past the header was read: the data (raw) is next. */
	if (rx_have != 0 || (*copied = rx_data(user, dlen)) == -1)
		return -1;
	return 0;
}

/*
 * The reply to a read sent alone with SYSCALL_PROTO_RAW_DATA: the header
 * into RX and the data (at most N bytes) straight into the program's
 * memory at USER, in one readv when all has come (nothing else is in
 * flight, so nothing past the reply can land there).  *RES gets the
 * result, *COPIED the bytes that reached USER.  0, or -1 when the
 * connection is lost or the reply garbled.
 */
static int
recv_raw(uint8_t *user, uint32_t n, long *res, long *copied)
{
	struct iovec iov[2];
	uint32_t len = 0, dlen, data = 0;
	int whole = 1;		/* the data in the same readv */
	long k;

	*copied = 0;
	if (rx_have != 0)
		return -1;
	while (rx_have < PIECE_HEADER) {
		iov[0].iov_base = rx + rx_have;
		iov[0].iov_len = PIECE_HEADER - rx_have;
		iov[1].iov_base = user;
		iov[1].iov_len = n;
		k = condor_sys3(SYS_readv, remote_syscall_fd, iov,
		    whole ? 2 : 1);
		if (k == -EINTR)
			continue;
		if (k == -EFAULT && whole) {
			/* The program's buffer faults, and the socket took
			 * nothing: the header alone, then rx_data. */
			whole = 0;
			continue;
		}
		if (k <= 0)
			return -1;
		if ((unsigned long)k > iov[0].iov_len) {
			data = (uint32_t)k - (uint32_t)iov[0].iov_len;
			rx_have = PIECE_HEADER;
		} else
			rx_have += (uint32_t)k;
		if (rx_have < 12)
			continue;
		len = rx_u32(0);
		if (!(len & SYSCALL_PROTO_LAST_FRAG))
			return -1;
		len &= ~SYSCALL_PROTO_LAST_FRAG;
		if (len == 8)
			break;
	}
	*res = (long)((uint64_t)rx_u32(4) << 32 | rx_u32(8));
	if (len == 8) {
		k = rx_have == 12 && *res < 0 ? 0 : -1;
		rx_have = 0;
		return (int)k;
	}
	dlen = rx_u32(12);
	rx_have = 0;
	if (*res < 0 || (unsigned long)*res != dlen || dlen > n ||
	    len != 12 + dlen || data > dlen)
		return -1;
	if (data < dlen && (k = rx_data(user + data, dlen - data)) == -1)
		return -1;
	*copied = data < dlen ? data + k : data;
	return 0;
}

/* One read or pread request of at most CHUNK bytes into P. */
static long
read_once(long nr, int fd, uint8_t *p, uint32_t n, long long off)
{
	const long a[6] = { fd, (long)p, n, off, 0, 0 };
	const struct syscall_desc *d;
	struct sxdr x;
	struct fwd f;
	long r, copied;

	if (broken || remote_syscall_fd < 0)
		return -EIO;
	if (syscall_lookup((uint32_t)nr, &d) == -1)
		return -ENOSYS;
	if ((r = encode_at(&x, buf, sizeof(buf), d,
	    (uint32_t)nr | SYSCALL_PROTO_RAW_DATA, a, &f)) < 0)
		return r;
	req_mark(&x);
	if (io_all(1, buf, 4 + x.pos) == -1 ||
	    recv_raw(p, n, &r, &copied) == -1)
		return lost();
	if (r < 0 || copied == r)
		return r;
	/* The buffer ends early or is read-only: as the kernel does, keep
	 * what fitted and leave the offset after it. */
	if (nr == SYS_read) {
		const long back[6] = { fd, copied - r, SEEK_CUR };

		forward(SYS_lseek, back);
	}
	return copied > 0 ? copied : -EFAULT;
}

/* One getdents64 request of at most CHUNK bytes into P. */
static long
getdents_once(int fd, uint8_t *p, uint32_t n)
{
	const long a[6] = { fd, (long)p, n, 0, 0, 0 };
	const struct syscall_desc *d;
	const uint8_t *data;
	struct sxdr x;
	struct fwd f;
	uint32_t got;
	long r;

	if (syscall_lookup(SYS_getdents64, &d) == -1)
		return -ENOSYS;
	if ((r = encode(&x, d, a, &f)) < 0 || (r = transact(&x)) < 0)
		return r;
	data = sxdr_get_opaque(&x, n, &got);
	if (x.err || got != (uint32_t)r)
		return -EIO;
	/* A record cut short cannot be given back: EFAULT. */
	return remote_copy_out(p, data, got) == (long)got ? r : -EFAULT;
}

/* Append the request for a piece of a read to SREQ at *AT: 0 or -1. */
static int
piece_read_req(uint32_t *at, uint32_t nr, int fd, uint8_t *p, uint32_t n,
    long long off)
{
	const long a[6] = { fd, (long)p, n, off, 0, 0 };
	const struct syscall_desc *d;
	struct sxdr x;
	struct fwd f;

	if (syscall_lookup(nr & ~SYSCALL_PROTO_FLAGS, &d) == -1 ||
	    encode_at(&x, sreq + *at, (uint32_t)sizeof(sreq) - *at, d, nr, a,
	    &f) < 0)
		return -1;
	req_mark(&x);
	*at += 4 + x.pos;
	return 0;
}

/*
 * read, pread, write or pwrite of N bytes at P as a stream of pieces
 * (the top of this file): what the kernel's call would return.  The
 * call ends at the first short or failed piece, as a file's does (a
 * short copy to or from the program's buffer is one): the shadow
 * cancels the chained pieces after it, and a read's offset is put
 * back after the bytes that reached the program when later pieces
 * had already been performed.
 */
static long
r_stream(long nr, int fd, uint8_t *p, unsigned long n, long long off)
{
	const int reading = nr == SYS_read || nr == SYS_pread64;
	const uint32_t piece = chunk < STREAM_PIECE ? chunk : STREAM_PIECE;
	unsigned long npieces = (n + piece - 1) / piece, sent = 0, got = 0;
	unsigned long done = 0, at;
	long long back = 0;	/* bytes a read must step back */
	long first = 0, r, copied;
	uint32_t len, pos;
	int stop = 0;		/* no more pieces are sent */
	int ended = 0;		/* the call's result is known */

	if (broken || remote_syscall_fd < 0)
		return -EIO;
	while (got < sent || (!stop && sent < npieces)) {
		/* Keep the window full: reads send half a window at once. */
		if (!stop && sent < npieces &&
		    sent - got <= (reading ? STREAM_WINDOW / 2 :
		    STREAM_WINDOW - 1)) {
			pos = 0;
			do {
				at = sent * piece;
				len = n - at < piece ? (uint32_t)(n - at) : piece;
				if (reading) {
					if (piece_read_req(&pos, (uint32_t)nr |
					    SYSCALL_PROTO_RAW_DATA |
					    (sent > 0 ? SYSCALL_PROTO_CHAINED : 0),
					    fd, p + at, len, off +
					    (long long)at) == -1)
						return lost();
				} else {
					const long a[6] = { fd, (long)(p + at),
					    len, off + (long long)at, 0, 0 };
					const struct syscall_desc *d;
					struct sxdr x;
					struct fwd f;

					if (syscall_lookup((uint32_t)nr, &d) ==
					    -1)
						return -ENOSYS;
					r = encode_at(&x, buf, sizeof(buf), d,
					    (uint32_t)nr | (sent > 0 ?
					    SYSCALL_PROTO_CHAINED : 0), a, &f);
					if (r < 0) {
						/* Nothing readable at all. */
						stop = 1;
						if (sent == 0)
							first = r;
						break;
					}
					req_mark(&x);
					if (io_all(1, buf, 4 + x.pos) == -1)
						return lost();
					/* A buffer that ends early: this
					 * piece is the last. */
					if (f.data < len)
						stop = 1;
				}
				sent++;
			} while (reading && sent < npieces &&
			    sent - got < STREAM_WINDOW &&
			    pos + 64 <= sizeof(sreq));
			if (reading && io_all(1, sreq, pos) == -1)
				return lost();
			continue;
		}
		at = got * piece;
		len = n - at < piece ? (uint32_t)(n - at) : piece;
		if (piece_reply(reading, ended ? 0 : p + at, len, &r,
		    &copied) == -1)
			return lost();
		got++;
		if (ended) {
			/* Performed after the end the program sees. */
			if (r > 0)
				back += r;
			continue;
		}
		if (r < 0) {
			stop = ended = 1;
			if (done == 0)
				first = r;
			continue;
		}
		if (!reading)
			copied = r;
		done += (unsigned long)copied;
		if (copied < r) {
			back += r - copied;
			if (done == 0)
				first = -EFAULT;
		}
		if (copied < (long)len)
			stop = ended = 1;
	}
	if (back > 0 && nr == SYS_read) {
		const long a[6] = { fd, (long)-back, SEEK_CUR, 0, 0, 0 };

		forward(SYS_lseek, a);
	}
	return done > 0 ? (long)done : first;
}

/*
 * read, pread, write or pwrite: a small one in one request, a larger
 * one streamed.
 */
static long
r_chunked(long nr, int fd, uint8_t *p, unsigned long n, long long off)
{
	if (nr == SYS_read || nr == SYS_pread64) {
		if (n <= chunk && n <= STREAM_PIECE)
			return read_once(nr, fd, p, (uint32_t)n, off);
	} else if (n <= chunk) {
		const long a[6] = { fd, (long)p, (long)n, off, 0, 0 };

		return forward(nr, a);
	}
	return r_stream(nr, fd, p, n, off);
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
		return getdents_once((int)a[0], (uint8_t *)a[1],
		    (unsigned long)a[2] > chunk ? chunk : (uint32_t)a[2]);
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
