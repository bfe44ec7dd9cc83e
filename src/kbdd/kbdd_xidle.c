/*
 * kbdd_xidle.c: an X display's idle time over the X protocol
 * (kbdd_xidle.h).
 *
 * Three requests are all it takes: the connection setup (which names
 * the root window), QueryExtension("MIT-SCREEN-SAVER") for the
 * extension's opcode, and the extension's QueryInfo on the root window,
 * whose reply carries the milliseconds since the last input.  We speak
 * little-endian (the setup's first byte says so) and read only what
 * the replies' lengths promise, bounded; events and errors the server
 * sends in between are recognized and skipped.  The socket is the
 * display's Unix-domain one, tried first in the abstract namespace
 * (where servers also listen, and which a chroot does not hide) and
 * then as a path.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event.h"
#include "xalloc.h"
#include "kbdd_xidle.h"

#define X_OP_QUERY_EXTENSION	98
#define SS_QUERY_INFO		1	/* MIT-SCREEN-SAVER minor opcode */
#define SS_NAME			"MIT-SCREEN-SAVER"
#define X_GENERIC_EVENT		35
#define X_SKIP_MAX		(64 * 1024)	/* bytes of an odd reply */
#define X_EVENTS_MAX		1000	/* events skipped for one reply */
#define X_IN_MAX		8192	/* bytes of events read ahead */
#define XI_NAME			"XInputExtension"
#define XI_SELECT_EVENTS	46	/* XInput minor opcodes */
#define XI_QUERY_VERSION	47
#define XI_ALL_DEVICES		0
#define XI_KEY_PRESS		2	/* XI2 event types */
#define XI_BUTTON_PRESS		4
#define XI_MOTION		6
#define XI_RAW_KEY_PRESS	13
#define XI_RAW_BUTTON_PRESS	15
#define XI_RAW_MOTION		17
#define XI_INPUT_MASK		(1U << XI_KEY_PRESS | 1U << XI_BUTTON_PRESS | \
	1U << XI_MOTION | 1U << XI_RAW_KEY_PRESS | \
	1U << XI_RAW_BUTTON_PRESS | 1U << XI_RAW_MOTION)

struct xidle {
	int		fd;
	int		timeout;	/* seconds per answer */
	uint16_t	seq;		/* of the last request sent */
	uint8_t		ss_opcode;
	uint32_t	root;
	uint8_t		xi_opcode;	/* XInputExtension's; 0 none */
	int		raw;		/* raw input events selected */
	uint16_t	select_seq;	/* the XISelectEvents request */
	int		input;		/* raw input seen, not yet told */
	size_t		inlen;		/* bytes read ahead into IN */
	unsigned char	in[X_IN_MAX];
};

static void
why_set(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (whylen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
}

static unsigned
get16(const unsigned char *p)
{
	return p[0] | (unsigned)p[1] << 8;
}

static uint32_t
get32(const unsigned char *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static void
put16(unsigned char *p, unsigned v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
}

static void
put32(unsigned char *p, uint32_t v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

static size_t
pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

int
xidle_display_parse(const char *display, int *number, char *path,
    size_t pathlen, char *why, size_t whylen)
{
	const char *colon, *p;
	long n = 0;

	if (display == NULL || *display == '\0') {
		why_set(why, whylen, "no display named");
		return -1;
	}
	colon = strrchr(display, ':');
	if (colon == NULL) {
		why_set(why, whylen, "%s: not a display (:N expected)",
		    display);
		return -1;
	}
	if (colon != display && !(colon - display == 4 &&
	    strncmp(display, "unix", 4) == 0)) {
		why_set(why, whylen, "%s: not a local display", display);
		return -1;
	}
	p = colon + 1;
	if (*p < '0' || *p > '9') {
		why_set(why, whylen, "%s: no display number", display);
		return -1;
	}
	while (*p >= '0' && *p <= '9') {
		n = n * 10 + (*p++ - '0');
		if (n > 65535) {
			why_set(why, whylen, "%s: display number too large",
			    display);
			return -1;
		}
	}
	if (*p == '.') {	/* a screen: the root of screen 0 is used */
		p++;
		if (*p < '0' || *p > '9') {
			why_set(why, whylen, "%s: bad screen number", display);
			return -1;
		}
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p != '\0') {
		why_set(why, whylen, "%s: junk after the display number",
		    display);
		return -1;
	}
	*number = (int)n;
	snprintf(path, pathlen, "/tmp/.X11-unix/X%ld", n);
	return 0;
}

/* One counted string of an Xauthority entry (big-endian length). */
static int
auth_field(const unsigned char *buf, size_t len, size_t *off,
    const unsigned char **s, size_t *slen)
{
	size_t n;

	if (len - *off < 2)
		return -1;
	n = (size_t)buf[*off] << 8 | buf[*off + 1];
	*off += 2;
	if (len - *off < n)
		return -1;
	*s = buf + *off;
	*slen = n;
	*off += n;
	return 0;
}

static int
field_is(const unsigned char *s, size_t slen, const char *want)
{
	return slen == strlen(want) && memcmp(s, want, slen) == 0;
}

int
xidle_auth_find(const unsigned char *buf, size_t len, const char *hostname,
    int number, unsigned char *cookie)
{
	const unsigned char *addr, *num, *name, *data;
	size_t off = 0, alen, nlen, namelen, dlen;
	char want[16];
	int best = 0, rank, got = 0;
	unsigned family;

	snprintf(want, sizeof(want), "%d", number);
	while (off < len) {
		if (len - off < 2)
			return got > 0 ? got : -1;
		family = (unsigned)buf[off] << 8 | buf[off + 1];
		off += 2;
		if (auth_field(buf, len, &off, &addr, &alen) == -1 ||
		    auth_field(buf, len, &off, &num, &nlen) == -1 ||
		    auth_field(buf, len, &off, &name, &namelen) == -1 ||
		    auth_field(buf, len, &off, &data, &dlen) == -1)
			return got > 0 ? got : -1;
		if (!field_is(name, namelen, XIDLE_COOKIE_NAME) ||
		    dlen == 0 || dlen > XIDLE_COOKIE_MAX)
			continue;
		if (!field_is(num, nlen, want))
			continue;
		if (family == 256 && hostname != NULL &&
		    field_is(addr, alen, hostname))
			rank = 3;	/* FamilyLocal, this host */
		else if (family == 65535)
			rank = 2;	/* FamilyWild */
		else if (family == 256)
			rank = 1;	/* FamilyLocal, another name */
		else
			continue;	/* a network address: not ours */
		if (rank > best) {
			best = rank;
			memcpy(cookie, data, dlen);
			got = (int)dlen;
		}
	}
	return got;
}

size_t
xidle_setup_request(unsigned char *out, const unsigned char *cookie,
    size_t cookielen)
{
	size_t namelen = cookielen > 0 ? strlen(XIDLE_COOKIE_NAME) : 0;
	size_t off = 12;

	memset(out, 0, 12 + pad4(namelen) + pad4(cookielen));
	out[0] = 'l';		/* little-endian */
	put16(out + 2, 11);
	put16(out + 4, 0);
	put16(out + 6, (unsigned)namelen);
	put16(out + 8, (unsigned)cookielen);
	if (namelen > 0) {
		memcpy(out + off, XIDLE_COOKIE_NAME, namelen);
		off += pad4(namelen);
		memcpy(out + off, cookie, cookielen);
		off += pad4(cookielen);
	}
	return off;
}

long
xidle_setup_header(const unsigned char *hdr, int *status)
{
	if (hdr[0] > 2)
		return -1;
	*status = hdr[0];
	return (long)get16(hdr + 6) * 4;
}

int
xidle_setup_parse(const unsigned char *buf, size_t len, uint32_t *root,
    char *why, size_t whylen)
{
	size_t vendor, formats, off;

	if (len < 32) {
		why_set(why, whylen, "setup reply too short (%zu bytes)",
		    len);
		return -1;
	}
	vendor = get16(buf + 16);
	formats = buf[21];
	if (buf[20] == 0) {
		why_set(why, whylen, "the display has no screen");
		return -1;
	}
	off = 32 + pad4(vendor) + 8 * formats;
	if (off > len || len - off < 4) {
		why_set(why, whylen, "setup reply truncated (%zu bytes, "
		    "screen at %zu)", len, off);
		return -1;
	}
	*root = get32(buf + off);
	return 0;
}

/* Read exactly LEN bytes within the connection's timeout. */
static int
read_full(struct xidle *x, unsigned char *buf, size_t len, char *why,
    size_t whylen)
{
	double deadline = monotime() + x->timeout;
	struct pollfd p;
	size_t got = 0;
	ssize_t n;
	int ms;

	if (x->inlen > 0) {	/* read ahead by xidle_events first */
		got = x->inlen < len ? x->inlen : len;
		memcpy(buf, x->in, got);
		memmove(x->in, x->in + got, x->inlen - got);
		x->inlen -= got;
	}
	while (got < len) {
		ms = (int)((deadline - monotime()) * 1000);
		if (ms <= 0) {
			why_set(why, whylen, "no answer from the display "
			    "within %d s", x->timeout);
			return -1;
		}
		p.fd = x->fd;
		p.events = POLLIN;
		switch (poll(&p, 1, ms)) {
		case -1:
			if (errno == EINTR)
				continue;
			why_set(why, whylen, "poll: %s", strerror(errno));
			return -1;
		case 0:
			continue;	/* the deadline decides */
		}
		n = read(x->fd, buf + got, len - got);
		if (n == 0 || (n == -1 && errno == ECONNRESET)) {
			why_set(why, whylen, "the display closed the "
			    "connection");
			return -1;
		}
		if (n == -1) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			why_set(why, whylen, "read: %s", strerror(errno));
			return -1;
		}
		got += (size_t)n;
	}
	return 0;
}

/* Throw away LEN bytes (the tail of a reply or event). */
static int
skip(struct xidle *x, size_t len, char *why, size_t whylen)
{
	unsigned char junk[512];
	size_t n;

	if (len > X_SKIP_MAX) {
		why_set(why, whylen, "the display sent %zu unexpected bytes",
		    len);
		return -1;
	}
	while (len > 0) {
		n = len < sizeof(junk) ? len : sizeof(junk);
		if (read_full(x, junk, n, why, whylen) == -1)
			return -1;
		len -= n;
	}
	return 0;
}

static int
write_full(struct xidle *x, const unsigned char *buf, size_t len, char *why,
    size_t whylen)
{
	ssize_t n;

	while (len > 0) {
		n = send(x->fd, buf, len, MSG_NOSIGNAL);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EPIPE || errno == ECONNRESET) {
				why_set(why, whylen, "the display closed the "
				    "connection");
				return -1;
			}
			why_set(why, whylen, "write: %s", strerror(errno));
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	x->seq++;
	return 0;
}

/* An event in BUF (32 bytes and more): raw input of XInput's? */
static void
note_event(struct xidle *x, const unsigned char *buf)
{
	unsigned type = get16(buf + 8);

	if ((buf[0] & 0x7f) == X_GENERIC_EVENT && x->xi_opcode != 0 &&
	    buf[1] == x->xi_opcode && type < 32 &&
	    (XI_INPUT_MASK & 1U << type) != 0)
		x->input = 1;
}

/*
 * The 32-byte reply to the last request sent, into REPLY, its extra
 * bytes skipped; events are noted and skipped.  -1 if the connection
 * failed; -2 if the display answered with an X error (both with the
 * reason).  An error for the XISelectEvents request, which has no
 * reply, only means there will be no raw input events.
 */
static int
read_reply(struct xidle *x, unsigned char *reply, const char *what,
    char *why, size_t whylen)
{
	int events = 0;

	for (;;) {
		if (read_full(x, reply, 32, why, whylen) == -1)
			return -1;
		if (reply[0] == 0 && x->raw && get16(reply + 2) ==
		    x->select_seq && x->select_seq != x->seq) {
			x->raw = 0;
			continue;
		}
		if (reply[0] == 0) {
			why_set(why, whylen, "the display refused %s (X "
			    "error %u)", what, reply[1]);
			return -2;
		}
		if (reply[0] == 1) {
			if (skip(x, (size_t)get32(reply + 4) * 4, why,
			    whylen) == -1)
				return -1;
			if (get16(reply + 2) != x->seq) {
				why_set(why, whylen, "reply out of sequence");
				return -1;
			}
			return 0;
		}
		note_event(x, reply);
		if ((reply[0] & 0x7f) == X_GENERIC_EVENT &&
		    skip(x, (size_t)get32(reply + 4) * 4, why, whylen) == -1)
			return -1;
		if (++events > X_EVENTS_MAX) {
			why_set(why, whylen, "the display sends only events");
			return -1;
		}
	}
}

static int
connect_socket(const char *path, char *why, size_t whylen)
{
	struct sockaddr_un sun;
	socklen_t len;
	size_t plen = strlen(path);
	int fd, abstract;

	if (plen + 1 >= sizeof(sun.sun_path)) {
		why_set(why, whylen, "%s: path too long", path);
		return -1;
	}
	for (abstract = 1; abstract >= 0; abstract--) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd == -1) {
			why_set(why, whylen, "socket: %s", strerror(errno));
			return -1;
		}
		memset(&sun, 0, sizeof(sun));
		sun.sun_family = AF_UNIX;
		memcpy(sun.sun_path + abstract, path, plen);
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
		    abstract + plen + !abstract);
		if (connect(fd, (struct sockaddr *)&sun, len) == 0)
			return fd;
		why_set(why, whylen, "cannot connect to %s: %s", path,
		    strerror(errno));
		close(fd);
	}
	return -1;
}

/* The cookie for display NUMBER from the first file of AUTHFILES that
 * has one; its length, 0 if none. */
static int
find_cookie(const char *authfiles, int number, unsigned char *cookie)
{
	char host[256], *copy, *tok, *save = NULL;
	unsigned char *buf;
	ssize_t n;
	size_t len;
	int fd, got = 0;

	if (authfiles == NULL)
		return 0;
	if (gethostname(host, sizeof(host)) == -1)
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	copy = xstrdup(authfiles);
	buf = xmalloc(XIDLE_AUTH_FILE_MAX);
	for (tok = strtok_r(copy, ":", &save); tok != NULL && got <= 0;
	    tok = strtok_r(NULL, ":", &save)) {
		if ((fd = open(tok, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		len = 0;
		while (len < XIDLE_AUTH_FILE_MAX && (n = read(fd, buf + len,
		    XIDLE_AUTH_FILE_MAX - len)) > 0)
			len += (size_t)n;
		close(fd);
		got = xidle_auth_find(buf, len, host, number, cookie);
	}
	free(buf);
	free(copy);
	return got > 0 ? got : 0;
}

/* QueryExtension(NAME): its major opcode, 0 if absent, -1 (WHY). */
static int
query_extension(struct xidle *x, const char *name, char *why, size_t whylen)
{
	unsigned char req[64];
	size_t len = 8 + pad4(strlen(name));

	memset(req, 0, sizeof(req));
	req[0] = X_OP_QUERY_EXTENSION;
	put16(req + 2, (unsigned)(len / 4));
	put16(req + 4, (unsigned)strlen(name));
	memcpy(req + 8, name, strlen(name));
	if (write_full(x, req, len, why, whylen) == -1 ||
	    read_reply(x, req, "QueryExtension", why, whylen) < 0)
		return -1;
	return req[8] ? req[9] : 0;
}

/*
 * Ask for XInput 2's key, button and motion events from every device on
 * the root window, raw (what physical devices do, wherever the pointer
 * is) and plain (what reaches the root window, synthetic input from
 * XTEST among it), so that input is seen the moment it comes rather
 * than at the next QueryInfo.  A display without XInput 2 is
 * fine: the idle time is still there.  -1 only if the connection fails.
 */
static int
select_raw_input(struct xidle *x, char *why, size_t whylen)
{
	unsigned char req[32];
	int r;

	if ((r = query_extension(x, XI_NAME, why, whylen)) <= 0)
		return r;
	x->xi_opcode = (uint8_t)r;
	memset(req, 0, sizeof(req));
	req[0] = x->xi_opcode;
	req[1] = XI_QUERY_VERSION;
	put16(req + 2, 2);
	put16(req + 4, 2);	/* we speak 2.2 */
	put16(req + 6, 2);
	if (write_full(x, req, 8, why, whylen) == -1)
		return -1;
	if ((r = read_reply(x, req, "XIQueryVersion", why, whylen)) == -1)
		return -1;
	if (r == -2 || get16(req + 8) < 2)
		return 0;	/* XInput 1 only */
	memset(req, 0, sizeof(req));
	req[0] = x->xi_opcode;
	req[1] = XI_SELECT_EVENTS;
	put16(req + 2, 5);
	put32(req + 4, x->root);
	put16(req + 8, 1);		/* one mask */
	put16(req + 12, XI_ALL_DEVICES);
	put16(req + 14, 1);		/* of one 4-byte unit */
	put32(req + 16, XI_INPUT_MASK);	/* bit N: event type N */
	if (write_full(x, req, 20, why, whylen) == -1)
		return -1;
	x->select_seq = x->seq;
	x->raw = 1;
	return 0;
}

struct xidle *
xidle_open(const char *display, const char *authfiles, int timeout,
    char *why, size_t whylen)
{
	unsigned char cookie[XIDLE_COOKIE_MAX], req[128], hdr[8], *setup;
	char path[128];
	struct xidle *x;
	long more;
	size_t len;
	int number, status, clen, r;

	if (xidle_display_parse(display, &number, path, sizeof(path), why,
	    whylen) == -1)
		return NULL;
	x = xcalloc(1, sizeof(*x));
	x->timeout = timeout > 0 ? timeout : 1;
	if ((x->fd = connect_socket(path, why, whylen)) == -1) {
		free(x);
		return NULL;
	}
	clen = find_cookie(authfiles, number, cookie);
	len = xidle_setup_request(req, cookie, (size_t)clen);
	if (write_full(x, req, len, why, whylen) == -1 ||
	    read_full(x, hdr, sizeof(hdr), why, whylen) == -1)
		goto fail;
	x->seq = 0;		/* the setup has no sequence number */
	if ((more = xidle_setup_header(hdr, &status)) == -1) {
		why_set(why, whylen, "not an X server");
		goto fail;
	}
	setup = xmalloc(more > 0 ? (size_t)more : 1);
	if (read_full(x, setup, (size_t)more, why, whylen) == -1) {
		free(setup);
		goto fail;
	}
	if (status != 1) {
		size_t rlen = status == 0 ? hdr[1] : (size_t)more;

		if (rlen > (size_t)more)
			rlen = (size_t)more;
		while (rlen > 0 && (setup[rlen - 1] == '\0' ||
		    setup[rlen - 1] == '\n' || setup[rlen - 1] == ' '))
			rlen--;		/* the reason's padding and newline */
		for (len = 0; len < rlen; len++)
			if (setup[len] < ' ' || setup[len] > '~')
				setup[len] = '?';
		why_set(why, whylen, "the display refused us%s: %.*s",
		    clen > 0 ? "" : " (no cookie for it)", (int)rlen,
		    (char *)setup);
		free(setup);
		goto fail;
	}
	if (xidle_setup_parse(setup, (size_t)more, &x->root, why,
	    whylen) == -1) {
		free(setup);
		goto fail;
	}
	free(setup);

	if ((r = query_extension(x, SS_NAME, why, whylen)) < 0)
		goto fail;
	if (r == 0) {
		why_set(why, whylen, "the display has no %s extension",
		    SS_NAME);
		goto fail;
	}
	x->ss_opcode = (uint8_t)r;
	if (select_raw_input(x, why, whylen) == -1)
		goto fail;
	return x;
fail:
	close(x->fd);
	free(x);
	return NULL;
}

int
xidle_query(struct xidle *x, long long *idle_ms, char *why, size_t whylen)
{
	unsigned char req[32];

	memset(req, 0, 8);
	req[0] = x->ss_opcode;
	req[1] = SS_QUERY_INFO;
	put16(req + 2, 2);
	put32(req + 4, x->root);
	if (write_full(x, req, 8, why, whylen) == -1 ||
	    read_reply(x, req, "QueryInfo", why, whylen) < 0)
		return -1;
	*idle_ms = get32(req + 16);
	return 0;
}

int
xidle_fd(const struct xidle *x)
{
	return x->raw ? x->fd : -1;
}

int
xidle_events(struct xidle *x, int *input, char *why, size_t whylen)
{
	size_t total;
	ssize_t n;

	for (;;) {
		if (x->inlen == sizeof(x->in))
			break;
		n = recv(x->fd, x->in + x->inlen, sizeof(x->in) - x->inlen,
		    MSG_DONTWAIT);
		if (n > 0) {
			x->inlen += (size_t)n;
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		why_set(why, whylen, n == 0 || errno == ECONNRESET ?
		    "the display closed the connection" : "read: %s",
		    strerror(errno));
		return -1;
	}
	while (x->inlen >= 32) {
		total = 32;
		if (x->in[0] == 1 || (x->in[0] & 0x7f) == X_GENERIC_EVENT)
			total += (size_t)get32(x->in + 4) * 4;
		if (total > sizeof(x->in)) {
			why_set(why, whylen, "the display sent an event of %zu "
			    "bytes", total);
			return -1;
		}
		if (x->inlen < total)
			break;
		if (x->in[0] == 0 && x->raw &&
		    get16(x->in + 2) == x->select_seq)
			x->raw = 0;	/* XISelectEvents refused */
		note_event(x, x->in);
		memmove(x->in, x->in + total, x->inlen - total);
		x->inlen -= total;
	}
	*input = x->input;
	x->input = 0;
	return 0;
}

void
xidle_close(struct xidle *x)
{
	if (x == NULL)
		return;
	close(x->fd);
	free(x);
}
