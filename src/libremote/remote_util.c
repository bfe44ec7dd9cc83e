/*
 * remote_util.c: the few string and memory helpers the job libraries use
 * on paths where libc is off limits (signal handlers, the restart while
 * memory is replaced), and cj_say, their only way to speak.
 *
 * Built with -fno-tree-loop-distribute-patterns (mk/job.mk) so that the
 * compiler does not turn these loops back into calls to memcpy/memset.
 */
#include <stdarg.h>
#include <sys/syscall.h>

#include "condor_job.h"

size_t
cj_strlen(const char *s)
{
	size_t n = 0;

	while (s[n] != '\0')
		n++;
	return n;
}

size_t
cj_strlcpy(char *d, const char *s, size_t size)
{
	size_t n = cj_strlen(s), i;

	if (size > 0) {
		for (i = 0; i < n && i < size - 1; i++)
			d[i] = s[i];
		d[i] = '\0';
	}
	return n;
}

size_t
cj_strlcat(char *d, const char *s, size_t size)
{
	size_t dl = 0;

	while (dl < size && d[dl] != '\0')
		dl++;
	if (dl == size)
		return dl + cj_strlen(s);
	return dl + cj_strlcpy(d + dl, s, size - dl);
}

int
cj_strcmp(const char *a, const char *b)
{
	while (*a != '\0' && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

/*
 * The value of NAME in ENVP as a decimal number below MAX; DFLT when it
 * is missing, not a number, or too large.
 */
long
cj_env_number(char **envp, const char *name, long max, long dflt)
{
	size_t n = cj_strlen(name);
	const char *v;
	long r;

	for (; envp != 0 && *envp != 0; envp++) {
		if (cj_strncmp(*envp, name, n) != 0 || (*envp)[n] != '=')
			continue;
		v = *envp + n + 1;
		if (*v < '0' || *v > '9')
			return dflt;
		for (r = 0; *v >= '0' && *v <= '9' && r < max; v++)
			r = r * 10 + (*v - '0');
		return *v == '\0' && r < max ? r : dflt;
	}
	return dflt;
}

int
cj_strncmp(const char *a, const char *b, size_t n)
{
	for (; n > 0; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (*a == '\0')
			return 0;
	}
	return 0;
}

void
cj_memcpy(void *d, const void *s, size_t n)
{
	char *dp = d;
	const char *sp = s;

	if (((uintptr_t)dp | (uintptr_t)sp | n) % 8 == 0) {
		uint64_t *dq = d;
		const uint64_t *sq = s;

		for (n /= 8; n > 0; n--)
			*dq++ = *sq++;
		return;
	}
	while (n-- > 0)
		*dp++ = *sp++;
}

void
cj_memset(void *d, int c, size_t n)
{
	char *dp = d;

	while (n-- > 0)
		*dp++ = (char)c;
}

/* Format V in BASE (10 or 16) into BUF (at least 24 bytes). */
char *
cj_utoa(unsigned long long v, char *buf, int base)
{
	char tmp[24];
	int n = 0, i;

	do {
		tmp[n++] = "0123456789abcdef"[v % (unsigned)base];
		v /= (unsigned)base;
	} while (v != 0);
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return buf;
}

/*
 * cj_say: write "condor: " and the strings up to a NULL, then a newline,
 * to stderr in one write.
 */
void
cj_say(const char *first, ...)
{
	char msg[1024];
	const char *s;
	va_list ap;

	cj_strlcpy(msg, "condor: ", sizeof(msg));
	va_start(ap, first);
	for (s = first; s != 0; s = va_arg(ap, const char *))
		cj_strlcat(msg, s, sizeof(msg) - 1);
	va_end(ap);
	cj_strlcat(msg, "\n", sizeof(msg));
	condor_sys3(SYS_write, 2, msg, cj_strlen(msg));
}
