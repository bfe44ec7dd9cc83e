/*
 * buf.h: a growable, always NUL-terminated string buffer for text of
 * unknown length.
 */
#ifndef CONDOR_BUF_H
#define CONDOR_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct buf {
	char	*data;		/* NUL-terminated; never NULL after buf_init */
	size_t	 len;		/* bytes used, not counting the NUL */
	size_t	 cap;		/* bytes allocated */
};

void	 buf_init(struct buf *);
void	 buf_free(struct buf *);
void	 buf_reset(struct buf *);	/* empty, keep the allocation */
void	 buf_add(struct buf *, const void *, size_t);
void	 buf_adds(struct buf *, const char *);
void	 buf_addc(struct buf *, int);
void	 buf_printf(struct buf *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
void	 buf_vprintf(struct buf *, const char *, va_list);
/* Hand the text to the caller (who frees it) and reset the buffer. */
char	*buf_release(struct buf *);
/* Hand the text to the caller (who frees it); the buffer is freed. */
char	*buf_take(struct buf *);
/*
 * An error message into a caller's buffer of ERRLEN bytes (nothing when
 * ERR is NULL): cut to fit, a truncated message still says what went
 * wrong.
 */
void	 errbuf_set(char *err, size_t errlen, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

#endif
