/*
 * schedd_reply.c: query replies encoded as they are built.
 *
 * A query over a large queue answers hundreds of thousands of strings.
 * Building a job_query_res_x first (a malloc per name and per value),
 * then encoding it (a strlen per string) and freeing it again cost more
 * than finding the jobs.  Instead the reply is written straight into
 * one buffer in the XDR form of job_query_res_x (RFC 4506: big-endian
 * 32-bit counts and lengths, strings padded to four bytes), which
 * xdr_query_reply hands to the transport as it is.  The peer sees the
 * same bytes the generated encoder would have sent.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ad.h"
#include "buf.h"
#include "expr.h"
#include "log.h"
#include "schedd.h"
#include "xalloc.h"

static void
put_u32(struct buf *b, uint32_t v)
{
	unsigned char x[4];

	x[0] = (unsigned char)(v >> 24);
	x[1] = (unsigned char)(v >> 16);
	x[2] = (unsigned char)(v >> 8);
	x[3] = (unsigned char)v;
	buf_add(b, x, 4);
}

static void
patch_u32(struct buf *b, size_t at, uint32_t v)
{
	unsigned char *x = (unsigned char *)b->data + at;

	x[0] = (unsigned char)(v >> 24);
	x[1] = (unsigned char)(v >> 16);
	x[2] = (unsigned char)(v >> 8);
	x[3] = (unsigned char)v;
}

static void
put_string(struct buf *b, const char *s, size_t len)
{
	static const char pad[4];

	put_u32(b, (uint32_t)len);
	buf_add(b, s, len);
	if (len % 4 != 0)
		buf_add(b, pad, 4 - len % 4);
}

static void
reply_start(struct query_reply *r, int code, const char *msg)
{
	size_t len = strlen(msg);

	if (len > ERRSTR_MAX)
		len = ERRSTR_MAX;
	buf_reset(&r->b);
	put_u32(&r->b, (uint32_t)code);
	put_string(&r->b, msg, len);
	r->count_at = r->b.len;
	put_u32(&r->b, 0);
	r->njobs = 0;
	r->ad_at = 0;
}

void
reply_init(struct query_reply *r)
{
	buf_init(&r->b);
	buf_init(&r->text);
	reply_start(r, 0, "");
}

void
reply_free(struct query_reply *r)
{
	buf_free(&r->b);
	buf_free(&r->text);
}

void
reply_error(struct query_reply *r, int code, const char *fmt, ...)
{
	char msg[ERRSTR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	reply_start(r, code, msg);
}

int
reply_full(const struct query_reply *r)
{
	return r->njobs >= SCHEDD_MAX_JOBS;
}

void
reply_ad_begin(struct query_reply *r)
{
	if (r->ad_at != 0)
		panic("reply: ad begun twice");
	r->ad_at = r->b.len;
	r->nattrs = 0;
	put_u32(&r->b, 0);
}

void
reply_attr(struct query_reply *r, const char *name, const struct expr *e)
{
	size_t nlen = strlen(name);

	if (r->nattrs >= AD_MAX_ATTRS || nlen > AD_MAX_NAME)
		return;
	buf_reset(&r->text);
	expr_unparse(e, &r->text);
	if (r->text.len > AD_MAX_TEXT) {
		/* It would make the whole reply undecodable. */
		log_warnx("attribute %s is too long for the wire; left out",
		    name);
		return;
	}
	put_string(&r->b, name, nlen);
	put_string(&r->b, r->text.data, r->text.len);
	r->nattrs++;
}

void
reply_ad_end(struct query_reply *r)
{
	patch_u32(&r->b, r->ad_at, r->nattrs);
	r->ad_at = 0;
	r->njobs++;
	patch_u32(&r->b, r->count_at, r->njobs);
}

void
reply_ad(struct query_reply *r, const struct ad *ad)
{
	size_t i, n = ad_count(ad);

	reply_ad_begin(r);
	for (i = 0; i < n; i++)
		reply_attr(r, ad_name_at(ad, i), ad_expr_at(ad, i));
	reply_ad_end(r);
}

bool_t
xdr_query_reply(XDR *xdrs, struct query_reply *r)
{
	switch (xdrs->x_op) {
	case XDR_ENCODE:
		return XDR_PUTBYTES(xdrs, r->b.data, (u_int)r->b.len);
	case XDR_FREE:
		return TRUE;
	default:
		return FALSE;
	}
}
