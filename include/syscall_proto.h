/*
 * syscall_proto.h: the remote system-call protocol between a relinked
 * job (src/libremote/remote_client.c) and its shadow
 * (src/shadow/shadow_syscall.c, shadow_calls.c).
 *
 * Transport: one TCP connection per job.  The starter connects to the
 * address the shadow gave in hello_res_x.syscall_addr and sends one
 * record holding the claim's capability (an XDR string); the shadow
 * answers one record with an XDR int (0: accepted).  The starter then
 * hands the connected socket to the job (CONDOR_SYSCALL_FD) and never
 * uses it again.
 *
 * Records use ONC RPC's record marking (RFC 5531 section 11): a 4-byte
 * big-endian word, high bit set (last fragment), low 31 bits the length,
 * then the body.  Bodies are XDR (RFC 4506).  A request is the Linux
 * x86-64 system-call number as an unsigned int, then that call's
 * fields; a reply is the result as a hyper, a negative errno on failure
 * exactly as the kernel returns it, then the call's reply data when it
 * succeeded.  One reply per request, in the order of the requests.
 * Which calls go, with which fields and replies, is written once, in
 * include/syscall_table.h; condor_syscalls(7) is printed from it.
 *
 * Several requests may be in flight: the job may send requests before
 * the replies to its earlier ones have come (a large read or write goes
 * as a stream of pieces), and the shadow serves them one at a time, in
 * order.  A request whose call number has SYSCALL_PROTO_CHAINED set is
 * one piece of the same call as the request before it: the shadow
 * performs it only when that request was complete (its result not
 * negative and, for a call with a count or data, equal to the count or
 * the data's length), and otherwise answers -ECANCELED without
 * performing it, and so for every chained request after it.  A short
 * or failed piece thus ends its call at the shadow as it would in the
 * kernel: nothing after it is read or written.
 *
 * A request whose call number has SYSCALL_PROTO_RAW_DATA set gets the
 * data of its reply (SC_R_DATA) without XDR's padding: the record ends
 * with the data's last byte.  The job then receives the data straight
 * into the program's buffer, and no byte past those the call returns
 * lands there.
 *
 * Descriptors in requests are the job's own numbers: the shadow keeps
 * the job's descriptor table (which of its files each number is), so
 * the job library forwards numbers unchanged.
 *
 * The helpers below encode and decode in a caller's fixed buffer with
 * no allocation, so the job can use them inside its SIGSYS handler.
 * Each sets x->err on overflow or malformed input and then does nothing.
 */
#ifndef SYSCALL_PROTO_H
#define SYSCALL_PROTO_H

#include <stdint.h>

#define SYSCALL_PROTO_MAX_DATA	(1024 * 1024)	/* bytes per read/write */
#define SYSCALL_PROTO_MAX_PATH	4096		/* bytes, with the NUL */
/* The largest record either side accepts: data, two paths, a margin. */
#define SYSCALL_PROTO_MAX_RECORD (SYSCALL_PROTO_MAX_DATA + \
				  2 * SYSCALL_PROTO_MAX_PATH + 1024)
#define SYSCALL_PROTO_LAST_FRAG	0x80000000U
/* In a request's call number (above): a piece of the call before it;
 * its reply's data unpadded. */
#define SYSCALL_PROTO_CHAINED	0x80000000U
#define SYSCALL_PROTO_RAW_DATA	0x40000000U
#define SYSCALL_PROTO_FLAGS	(SYSCALL_PROTO_CHAINED | SYSCALL_PROTO_RAW_DATA)

struct sxdr {
	uint8_t		*buf;
	uint32_t	 len;	/* bytes available (decode: present) */
	uint32_t	 pos;
	int		 err;
};

static inline void
sxdr_init(struct sxdr *x, void *buf, uint32_t len)
{
	x->buf = buf;
	x->len = len;
	x->pos = 0;
	x->err = 0;
}

static inline void
sxdr_put_u32(struct sxdr *x, uint32_t v)
{
	if (x->err || x->len - x->pos < 4) {
		x->err = 1;
		return;
	}
	x->buf[x->pos++] = (uint8_t)(v >> 24);
	x->buf[x->pos++] = (uint8_t)(v >> 16);
	x->buf[x->pos++] = (uint8_t)(v >> 8);
	x->buf[x->pos++] = (uint8_t)v;
}

static inline void
sxdr_put_i32(struct sxdr *x, int32_t v)
{
	sxdr_put_u32(x, (uint32_t)v);
}

static inline void
sxdr_put_i64(struct sxdr *x, int64_t v)
{
	sxdr_put_u32(x, (uint32_t)((uint64_t)v >> 32));
	sxdr_put_u32(x, (uint32_t)(uint64_t)v);
}

/* Variable-length opaque: length, bytes, zero padding to 4. */
static inline void
sxdr_put_opaque(struct sxdr *x, const void *p, uint32_t n)
{
	const uint8_t *s = p;
	uint32_t i, pad = (4 - (n & 3)) & 3;

	sxdr_put_u32(x, n);
	if (x->err || x->len - x->pos < n || x->len - x->pos - n < pad) {
		x->err = 1;
		return;
	}
	for (i = 0; i < n; i++)
		x->buf[x->pos++] = s[i];
	for (i = 0; i < pad; i++)
		x->buf[x->pos++] = 0;
}

/* Reserve room for N bytes of opaque to be filled in place: where. */
static inline uint8_t *
sxdr_put_opaque_room(struct sxdr *x, uint32_t n)
{
	uint32_t pad = (4 - (n & 3)) & 3, i;
	uint8_t *p;

	sxdr_put_u32(x, n);
	if (x->err || x->len - x->pos < n || x->len - x->pos - n < pad) {
		x->err = 1;
		return 0;
	}
	p = x->buf + x->pos;
	x->pos += n;
	for (i = 0; i < pad; i++)
		x->buf[x->pos++] = 0;
	return p;
}

/* A string: STR up to its NUL (at most SYSCALL_PROTO_MAX_PATH - 1). */
static inline void
sxdr_put_string(struct sxdr *x, const char *s)
{
	uint32_t n = 0;

	while (n < SYSCALL_PROTO_MAX_PATH && s[n] != '\0')
		n++;
	if (n >= SYSCALL_PROTO_MAX_PATH) {
		x->err = 1;
		return;
	}
	sxdr_put_opaque(x, s, n);
}

static inline uint32_t
sxdr_get_u32(struct sxdr *x)
{
	uint32_t v;

	if (x->err || x->len - x->pos < 4) {
		x->err = 1;
		return 0;
	}
	v = (uint32_t)x->buf[x->pos] << 24 |
	    (uint32_t)x->buf[x->pos + 1] << 16 |
	    (uint32_t)x->buf[x->pos + 2] << 8 | x->buf[x->pos + 3];
	x->pos += 4;
	return v;
}

static inline int32_t
sxdr_get_i32(struct sxdr *x)
{
	return (int32_t)sxdr_get_u32(x);
}

static inline int64_t
sxdr_get_i64(struct sxdr *x)
{
	uint64_t hi = sxdr_get_u32(x);

	return (int64_t)(hi << 32 | sxdr_get_u32(x));
}

/* Opaque of at most MAX bytes, left in the buffer: where, *N its size. */
static inline const uint8_t *
sxdr_get_opaque(struct sxdr *x, uint32_t max, uint32_t *n)
{
	uint32_t len = sxdr_get_u32(x), pad = (4 - (len & 3)) & 3;
	const uint8_t *p;

	*n = 0;
	if (x->err || len > max || x->len - x->pos < len ||
	    x->len - x->pos - len < pad) {
		x->err = 1;
		return 0;
	}
	p = x->buf + x->pos;
	x->pos += len + pad;
	*n = len;
	return p;
}

/* A string into OUT (size OUTLEN, NUL-terminated); no NUL inside. */
static inline void
sxdr_get_string(struct sxdr *x, char *out, uint32_t outlen)
{
	const uint8_t *p;
	uint32_t n, i;

	p = sxdr_get_opaque(x, outlen - 1, &n);
	if (p == 0) {
		x->err = 1;
		out[0] = '\0';
		return;
	}
	for (i = 0; i < n; i++) {
		if (p[i] == '\0') {
			x->err = 1;
			break;
		}
		out[i] = (char)p[i];
	}
	out[i] = '\0';
}

#endif
