/*
 * machine.c: looking at this machine, for the startd's ad (machine.h).
 *
 * Everything read here comes from files another program writes, or that
 * an administrator named; any of it may be missing or garbage.
 */
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <paths.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <utmpx.h>

#include "buf.h"
#include "machine.h"
#include "xalloc.h"

static void
copy_upper(char *buf, size_t len, const char *s)
{
	size_t i;

	if (len == 0)
		return;
	for (i = 0; i + 1 < len && s[i] != '\0'; i++)
		buf[i] = (char)toupper((unsigned char)s[i]);
	buf[i] = '\0';
}

void
machine_arch(char *buf, size_t len)
{
	struct utsname u;

	if (uname(&u) == -1) {
		copy_upper(buf, len, "unknown");
		return;
	}
	if (strcmp(u.machine, "x86_64") == 0 || strcmp(u.machine, "amd64") == 0)
		copy_upper(buf, len, "x86_64");
	else if (u.machine[0] == 'i' && strlen(u.machine) == 4 &&
	    strcmp(u.machine + 2, "86") == 0 && u.machine[1] >= '3' &&
	    u.machine[1] <= '6')
		copy_upper(buf, len, "intel");
	else
		copy_upper(buf, len, u.machine);
}

void
machine_opsys(char *buf, size_t len)
{
	struct utsname u;

	if (uname(&u) == -1)
		copy_upper(buf, len, "unknown");
	else
		copy_upper(buf, len, u.sysname);
}

int
machine_ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	if (n > 1000000)
		return 1000000;
	return (int)n;
}

char *
machine_read_file(const char *path)
{
	char *text;
	size_t len = 0;
	ssize_t r;
	int fd, saved;

	/* O_NONBLOCK: a FIFO named by mistake must not hang the daemon. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd == -1)
		return NULL;
	text = xmalloc(MACHINE_MAX_FILE);
	while (len < MACHINE_MAX_FILE - 1) {
		r = read(fd, text + len, MACHINE_MAX_FILE - 1 - len);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			saved = errno;
			free(text);
			close(fd);
			errno = saved == EAGAIN ? EINVAL : saved;
			return NULL;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	text[len] = '\0';
	if (memchr(text, '\0', len) != NULL) {
		free(text);
		errno = EINVAL;
		return NULL;
	}
	return text;
}

/*
 * Parse the number at the start of TEXT (after blanks), which must end at
 * white space or the end of the text.  0 or -1.
 */
static int
leading_number(const char *text, double *out)
{
	const char *p = text;
	char *end;
	double v;

	while (*p == ' ' || *p == '\t')
		p++;
	/* strtod would take "nan", "inf" and hex; a load is plain decimal. */
	if (!isdigit((unsigned char)*p) && *p != '.')
		return -1;
	errno = 0;
	v = strtod(p, &end);
	if (end == p || errno != 0 || !isfinite(v) ||
	    strspn(p, "0123456789.eE+-") < (size_t)(end - p))
		return -1;
	if (*end != '\0' && !isspace((unsigned char)*end))
		return -1;
	*out = v;
	return 0;
}

int
machine_read_loadavg(const char *path, double *load, char *err,
    size_t errlen)
{
	char *text;
	double v;

	if (path == NULL || *path == '\0') {
		snprintf(err, errlen, "no load average file");
		return -1;
	}
	if ((text = machine_read_file(path)) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (leading_number(text, &v) == -1 || v > MACHINE_MAX_LOAD) {
		snprintf(err, errlen, "%s: the first field is not a load "
		    "average", path);
		free(text);
		return -1;
	}
	free(text);
	*load = v;
	return 0;
}

/*
 * Find "KEY:" at the start of a line of TEXT and parse the number after
 * it (in kB).  0, -1 if absent, -2 if garbled.
 */
static int
meminfo_field(const char *text, const char *key, long long *kib)
{
	size_t klen = strlen(key);
	const char *line = text;
	char *end;
	long long v;

	while (line != NULL && *line != '\0') {
		if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
			const char *p = line + klen + 1;

			while (*p == ' ' || *p == '\t')
				p++;
			if (!isdigit((unsigned char)*p))
				return -2;
			errno = 0;
			v = strtoll(p, &end, 10);
			if (errno != 0 || v < 0 ||
			    v > (long long)1 << 50)	/* an exbibyte */
				return -2;
			*kib = v;
			return 0;
		}
		if ((line = strchr(line, '\n')) != NULL)
			line++;
	}
	return -1;
}

int
machine_read_meminfo(const char *path, long long *total_kib,
    long long *virtual_kib, char *err, size_t errlen)
{
	long long total, avail, swap = 0;
	char *text;
	int r;

	if ((text = machine_read_file(path)) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (meminfo_field(text, "MemTotal", &total) != 0) {
		snprintf(err, errlen, "%s: no MemTotal", path);
		goto bad;
	}
	r = meminfo_field(text, "MemAvailable", &avail);
	if (r == -1)
		r = meminfo_field(text, "MemFree", &avail);
	if (r != 0) {
		snprintf(err, errlen, "%s: no MemAvailable or MemFree", path);
		goto bad;
	}
	if (meminfo_field(text, "SwapFree", &swap) == -2) {
		snprintf(err, errlen, "%s: garbled SwapFree", path);
		goto bad;
	}
	free(text);
	*total_kib = total;
	*virtual_kib = avail + swap;
	return 0;
bad:
	free(text);
	return -1;
}

int
machine_read_uptime(const char *path, double *secs, char *err,
    size_t errlen)
{
	char *text;
	double v;

	if ((text = machine_read_file(path)) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (leading_number(text, &v) == -1 || v > 1e12) {
		snprintf(err, errlen, "%s: the first field is not a number "
		    "of seconds", path);
		free(text);
		return -1;
	}
	free(text);
	*secs = v;
	return 0;
}

int
machine_disk_free(const char *dir, long long *kib)
{
	struct statvfs sv;
	unsigned long long bytes;

	if (dir == NULL || *dir == '\0') {
		errno = ENOENT;
		return -1;
	}
	if (statvfs(dir, &sv) == -1)
		return -1;
	bytes = (unsigned long long)sv.f_bavail *
	    (sv.f_frsize ? sv.f_frsize : sv.f_bsize);
	*kib = (long long)(bytes / 1024);
	return 0;
}

/* Append PATH to the list unless it is there already. */
static void
list_add(char ***paths, size_t *n, size_t *cap, char *path)
{
	size_t i;

	for (i = 0; i < *n; i++) {
		if (strcmp((*paths)[i], path) == 0) {
			free(path);
			return;
		}
	}
	if (*n >= MACHINE_MAX_DEVICES) {
		free(path);
		return;
	}
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		*paths = xreallocarray(*paths, *cap, sizeof(**paths));
	}
	(*paths)[(*n)++] = path;
}

size_t
machine_parse_devices(const char *value, char ***paths)
{
	const char *p = value, *start;
	size_t n = 0, cap = 0, len;

	*paths = NULL;
	if (value == NULL)
		return 0;
	for (;;) {
		while (*p == ',' || isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			break;
		start = p;
		while (*p != '\0' && *p != ',' && !isspace((unsigned char)*p))
			p++;
		len = (size_t)(p - start);
		if (*start == '/')
			list_add(paths, &n, &cap, xstrndup(start, len));
		else
			list_add(paths, &n, &cap,
			    xasprintf("/dev/%.*s", (int)len, start));
	}
	return n;
}

size_t
machine_utmp_devices(const char *utmp, char ***paths)
{
	struct utmpx *u;
	char line[sizeof(u->ut_line) + 1];
	size_t n = 0, cap = 0, len;

	*paths = NULL;
	if (utmpxname(utmp != NULL ? utmp : _PATH_UTMPX) != 0)
		return 0;
	setutxent();
	while ((u = getutxent()) != NULL) {
		if (u->ut_type != USER_PROCESS)
			continue;
		len = strnlen(u->ut_line, sizeof(u->ut_line));
		memcpy(line, u->ut_line, len);
		line[len] = '\0';
		/* A line must name something under /dev. */
		if (len == 0 || line[0] == '/' || strstr(line, "..") != NULL ||
		    strchr(line, '\n') != NULL)
			continue;
		list_add(paths, &n, &cap, xasprintf("/dev/%s", line));
	}
	endutxent();
	if (utmp != NULL)
		utmpxname(_PATH_UTMPX);
	return n;
}

void
machine_free_list(char **paths, size_t n)
{
	size_t i;

	if (paths == NULL)
		return;
	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

int
machine_device_time(const char *path, time_t *when)
{
	struct stat st;

	if (stat(path, &st) == -1)
		return -1;
	*when = st.st_atim.tv_sec > st.st_mtim.tv_sec ?
	    st.st_atim.tv_sec : st.st_mtim.tv_sec;
	return 0;
}

long long
machine_console_idle(char *const *paths, size_t n, time_t now,
    struct buf *missing)
{
	time_t t, latest = 0;
	size_t i;
	int found = 0;

	for (i = 0; i < n; i++) {
		if (machine_device_time(paths[i], &t) == -1) {
			if (missing != NULL) {
				if (missing->len > 0)
					buf_addc(missing, ' ');
				buf_adds(missing, paths[i]);
			}
			continue;
		}
		if (!found || t > latest)
			latest = t;
		found = 1;
	}
	if (!found)
		return -1;
	if (latest >= now)
		return 0;
	return (long long)now - (long long)latest;
}

void
machine_format_idle(long long secs, char *buf, size_t len)
{
	long long days, hours, mins;

	if (secs < 0) {
		snprintf(buf, len, "?");
		return;
	}
	days = secs / 86400;
	hours = secs % 86400 / 3600;
	mins = secs % 3600 / 60;
	if (days > 0)
		snprintf(buf, len, "%lldd+%02lld:%02lld", days, hours, mins);
	else
		snprintf(buf, len, "%02lld:%02lld", hours, mins);
}
