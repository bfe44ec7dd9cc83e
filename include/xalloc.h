/*
 * xalloc.h: allocation that cannot fail silently.  Every wrapper calls
 * fatalx() on exhaustion or on a size computation that would overflow.
 */
#ifndef CONDOR_XALLOC_H
#define CONDOR_XALLOC_H

#include <stddef.h>

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
/* printf into a fresh allocation. */
char	*xasprintf(const char *, ...) __attribute__((format(printf, 1, 2)));

#endif
