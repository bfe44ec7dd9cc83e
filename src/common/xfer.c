/*
 * xfer.c: file lists of jobs that transfer files (xfer.h).
 */
#include <arpa/inet.h>

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crc.h"
#include "fdio.h"
#include "xalloc.h"
#include "xfer.h"

char **
xfer_list_split(const char *text, size_t *n)
{
	char **items = NULL;
	size_t cap = 0, len;
	const char *s = text;

	*n = 0;
	while (s != NULL && *s != '\0') {
		while (*s == ',' || isspace((unsigned char)*s))
			s++;
		if (*s == '\0')
			break;
		for (len = 0; s[len] != '\0' && s[len] != ',' &&
		    !isspace((unsigned char)s[len]); len++)
			;
		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			items = xreallocarray(items, cap, sizeof(*items));
		}
		items[(*n)++] = xstrndup(s, len);
		s += len;
	}
	return items;
}

void
xfer_list_free(char **items, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(items[i]);
	free(items);
}

int
xfer_name_ok(const char *name)
{
	const char *c = name, *e;
	size_t len;

	if (*name == '\0' || *name == '/' || strlen(name) >= XFER_NAME_LEN)
		return 0;
	for (e = name; *e != '\0'; e++)
		if ((unsigned char)*e < 0x20 || *e == 0x7f)
			return 0;
	while (*c != '\0') {
		e = strchr(c, '/');
		len = e ? (size_t)(e - c) : strlen(c);
		if (len == 0 || (len == 1 && c[0] == '.') ||
		    (len == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		if (e == NULL)
			break;
		c = e + 1;
		if (*c == '\0')
			return 0;	/* a trailing slash */
	}
	return 1;
}

/* S without the white space around it, in a new string. */
static char *
trimmed(const char *s, size_t len)
{
	while (len > 0 && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	return xstrndup(s, len);
}

int
xfer_remaps_parse(const char *text, struct xfer_remap **out, size_t *n,
    char *err, size_t errlen)
{
	struct xfer_remap *r = NULL;
	size_t cap = 0, len;
	const char *s, *end, *eq, *semi;
	char *name, *to;

	*out = NULL;
	*n = 0;
	while (isspace((unsigned char)*text))
		text++;
	len = strlen(text);
	while (len > 0 && isspace((unsigned char)text[len - 1]))
		len--;
	if (len >= 2 && text[0] == '"' && text[len - 1] == '"') {
		text++;
		len -= 2;
	}
	end = text + len;
	for (s = text; s < end; s = semi + 1) {
		semi = memchr(s, ';', (size_t)(end - s));
		if (semi == NULL)
			semi = end;
		eq = memchr(s, '=', (size_t)(semi - s));
		if (eq == NULL) {
			name = trimmed(s, (size_t)(semi - s));
			if (*name == '\0') {
				free(name);
				if (semi == end)
					break;
				continue;
			}
			snprintf(err, errlen, "\"%s\" has no '='", name);
			free(name);
			goto bad;
		}
		name = trimmed(s, (size_t)(eq - s));
		to = trimmed(eq + 1, (size_t)(semi - eq - 1));
		if (!xfer_name_ok(name) || *to == '\0' ||
		    strlen(to) >= XFER_NAME_LEN * 4) {
			snprintf(err, errlen, "\"%s = %s\": the name must be "
			    "a relative path inside the job's directory, and "
			    "the destination not empty", name, to);
			free(name);
			free(to);
			goto bad;
		}
		if (*n == cap) {
			cap = cap ? cap * 2 : 4;
			r = xreallocarray(r, cap, sizeof(*r));
		}
		r[*n].name = name;
		r[*n].to = to;
		(*n)++;
		if (semi == end)
			break;
	}
	*out = r;
	return 0;
bad:
	xfer_remaps_free(r, *n);
	*n = 0;
	return -1;
}

void
xfer_remaps_free(struct xfer_remap *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(r[i].name);
		free(r[i].to);
	}
	free(r);
}

int
xfer_frame_send(int fd, xdrproc_t proc, void *obj)
{
	char buf[64];
	XDR x;

	xdrmem_create(&x, buf, sizeof(buf), XDR_ENCODE);
	if (!proc(&x, obj))
		return -1;
	return fd_write_full(fd, buf, xdr_getpos(&x));
}

int
xfer_frame_recv(int fd, xdrproc_t proc, void *obj, size_t len)
{
	char buf[64];
	XDR x;
	int ok;

	if (len > sizeof(buf) || fd_read_full(fd, buf, len) == -1)
		return -1;
	xdrmem_create(&x, buf, (u_int)len, XDR_DECODE);
	ok = proc(&x, obj) && xdr_getpos(&x) == len;
	xdr_destroy(&x);
	return ok ? 0 : -1;
}

int
xfer_hello_send(int fd, const char *capability)
{
	char buf[4 + 256];
	size_t len = strlen(capability), padded = (len + 3) & ~(size_t)3;
	uint32_t n = htonl((uint32_t)len);

	if (padded > sizeof(buf) - 4)
		return -1;
	memset(buf, 0, sizeof(buf));
	memcpy(buf, &n, 4);
	memcpy(buf + 4, capability, len);
	return fd_write_full(fd, buf, 4 + padded);
}

int
xfer_hello_recv(int fd, char *out, size_t max)
{
	char buf[256];
	uint32_t len;

	if (max > sizeof(buf) - 4 || fd_read_full(fd, &len, 4) == -1)
		return -1;
	len = ntohl(len);
	if (len == 0 || len > max ||
	    fd_read_full(fd, buf, (len + 3) & ~3u) == -1)
		return -1;
	memcpy(out, buf, len);
	out[len] = '\0';
	return 0;
}

/* ---------------------------------------------------------------- */
/* File data on the transfer stream. */

/* Bytes read or written at a time: the checksum reads them while they
 * are still in the processor's cache. */
#define XFER_COPY	(1024 * 1024)

static char *
copy_buf(void)
{
	static char *buf;

	if (buf == NULL)
		buf = xmalloc(XFER_COPY);
	return buf;
}

int
xfer_send_file(int sock, int fd, long long size, uint32_t *crc)
{
	char *buf = copy_buf();
	long long off = 0;
	ssize_t n;

	*crc = 0;
	while (off < size) {
		n = pread(fd, buf, size - off < XFER_COPY ?
		    (size_t)(size - off) : XFER_COPY, (off_t)off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;	/* it shrank */
		*crc = crc32c(*crc, buf, (size_t)n);
		if (fd_write_full(sock, buf, (size_t)n) == -1)
			return -1;
		off += n;
	}
	return 0;
}

int
xfer_recv_file(int sock, int fd, long long size, uint32_t *crc)
{
	char *buf = copy_buf();
	long long got = 0;
	size_t have;
	ssize_t n;

	*crc = 0;
	while (got < size) {
		/* A whole buffer (or the rest) before each write. */
		for (have = 0; have < XFER_COPY && got + (long long)have <
		    size; have += (size_t)n) {
			n = read(sock, buf + have, size - got - (long long)have <
			    (long long)(XFER_COPY - have) ? (size_t)(size - got -
			    (long long)have) : XFER_COPY - have);
			if (n == -1 && errno == EINTR) {
				n = 0;
				continue;
			}
			if (n <= 0)
				return -1;
		}
		*crc = crc32c(*crc, buf, have);
		if (fd_write_full(fd, buf, have) == -1)
			return -1;
		got += (long long)have;
	}
	return 0;
}
