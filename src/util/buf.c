/*
 * buf.c: a growable string buffer.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "log.h"
#include "xalloc.h"

void
buf_init(struct buf *b)
{
	b->cap = 64;
	b->len = 0;
	b->data = xmalloc(b->cap);
	b->data[0] = '\0';
}

void
buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

void
buf_reset(struct buf *b)
{
	b->len = 0;
	b->data[0] = '\0';
}

/* Make room for N more bytes and the NUL. */
static void
buf_grow(struct buf *b, size_t n)
{
	size_t need;

	if (n > SIZE_MAX / 2 - b->len)
		fatalx("string buffer too large");
	need = b->len + n + 1;
	if (need <= b->cap)
		return;
	while (b->cap < need)
		b->cap *= 2;
	b->data = xreallocarray(b->data, b->cap, 1);
}

void
buf_add(struct buf *b, const void *p, size_t n)
{
	buf_grow(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void
buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void
buf_addc(struct buf *b, int c)
{
	char ch = (char)c;

	buf_add(b, &ch, 1);
}

void
buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		fatalx("bad format string");
	if ((size_t)n >= b->cap - b->len) {
		buf_grow(b, (size_t)n);
		n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
	}
	b->len += (size_t)n;
}

void
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

char *
buf_release(struct buf *b)
{
	char *s = b->data;

	buf_init(b);
	return s;
}

char *
buf_take(struct buf *b)
{
	char *s = b->data;

	b->data = NULL;
	b->len = b->cap = 0;
	return s;
}

void
errbuf_set(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}
