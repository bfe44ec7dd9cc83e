/*
 * box_inherit.c: what a job inherits on the execute host, seen from
 * inside it, and an attempt to leave its box through what it inherits.
 *
 * Its code runs from .preinit_array, before a relinked program's
 * library starts (and closes the descriptors it was handed) and before
 * the library's trap sends file calls to the shadow: what a program's
 * author may do there, anyone may.  It lists
 *
 *   fd N TARGET            every open descriptor (readlink of its
 *                          /proc/self/fd entry), and for a directory:
 *   dirfd N top=root|self|other
 *                          where ".." leads from it, followed as far as
 *                          it goes: to the job's root, nowhere (a
 *                          detached mount), or elsewhere (out of the box)
 *   mount POINT ROOT TYPE  every mount in /proc/self/mountinfo
 *   env NAME=VALUE         every environment variable
 *   escape N DEPTH         a file created through ../ of descriptor N
 *   uffd N                 a userfaultfd, or its device, inherited
 *   uffd-syscall OK|errno  whether the userfaultfd call is allowed
 *   proc-foreign N         processes of other accounts its /proc shows
 *
 * and tries to create argv[2] in the host's directory argv[1] through
 * "../" (1 to 16 times) of every directory descriptor it has, with
 * openat and mkdirat.  The /proc it reads is an inherited procfs
 * descriptor if it has one (a standard job), else /proc.  main prints
 * the list (through the shadow, for a standard job) and exits 1 if any
 * escape succeeded; built without the library (a static program that
 * only carries the relinked mark), its output goes nowhere and the
 * exit code and the host's directory tell.
 */
#define _GNU_SOURCE
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC	0x9fa0
#endif

static char	report[256 * 1024];
static size_t	used;
static int	escaped;

static void
say(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (used >= sizeof(report))
		return;
	va_start(ap, fmt);
	n = vsnprintf(report + used, sizeof(report) - used, fmt, ap);
	va_end(ap);
	if (n > 0)
		used += (size_t)n < sizeof(report) - used ? (size_t)n :
		    sizeof(report) - used - 1;
}

/* Where ".." leads from directory FD, followed until it stops. */
static const char *
top_of(int fd)
{
	struct stat root, cur, up;
	int d, u, i;

	if (stat("/", &root) == -1 || fstat(fd, &cur) == -1)
		return "unknown";
	if ((d = openat(fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		d = dup(fd);
	for (i = 0; i < 4096; i++) {
		u = openat(d, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (u == -1 || fstat(u, &up) == -1) {
			if (u != -1)
				close(u);
			break;
		}
		close(d);
		d = u;
		if (up.st_dev == cur.st_dev && up.st_ino == cur.st_ino)
			break;
		cur = up;
	}
	close(d);
	if (cur.st_dev == root.st_dev && cur.st_ino == root.st_ino)
		return "root";
	return i == 0 ? "self" : "other";
}

/* Try to create NAME in the host's DIR through ../ of FD. */
static void
escape(int fd, const char *dir, const char *name)
{
	char path[4096];
	size_t off;
	int depth, f;

	while (*dir == '/')
		dir++;
	for (depth = 1; depth <= 16; depth++) {
		path[0] = '\0';
		for (off = 0; (int)(off / 3) < depth; off += 3)
			memcpy(path + off, "../", 4);
		snprintf(path + off, sizeof(path) - off, "%s/%s.fd%d.%d", dir,
		    name, fd, depth);
		if ((f = openat(fd, path, O_WRONLY | O_CREAT | O_EXCL |
		    O_CLOEXEC, 0666)) != -1) {
			close(f);
			say("escape %d %d\n", fd, depth);
			escaped++;
		}
		snprintf(path + off, sizeof(path) - off, "%s/%s.dir%d.%d",
		    dir, name, fd, depth);
		if (mkdirat(fd, path, 0777) == 0) {
			say("escape %d %d\n", fd, depth);
			escaped++;
		}
	}
}

static int
proc_dir(int *own)
{
	struct statfs sf;
	struct stat st;
	int fd;

	*own = 0;
	for (fd = 0; fd < 4096; fd++)
		if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) &&
		    fstatfs(fd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC)
			return fd;
	*own = 1;
	return open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static void
early(int argc, char **argv, char **envp)
{
	char link[4096], path[64], buf[65536], *line, *save;
	const char *dir = argc > 2 ? argv[1] : "/tmp";
	const char *name = argc > 2 ? argv[2] : "box_inherit";
	struct dirent *e;
	struct stat st;
	DIR *d;
	ssize_t n;
	int proc, own, fd, nfd, i;

	proc = proc_dir(&own);
	say("proc %s\n", proc == -1 ? "none" : own ? "/proc" : "inherited");
	/* Descriptors: through /proc if it can be read, else by probing. */
	nfd = proc == -1 ? -1 : openat(proc, "self/fd", O_RDONLY |
	    O_DIRECTORY | O_CLOEXEC);
	if (nfd != -1 && (d = fdopendir(nfd)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			fd = atoi(e->d_name);
			if (e->d_name[0] == '.' || fd == dirfd(d) ||
			    (own && fd == proc))
				continue;
			snprintf(path, sizeof(path), "self/fd/%d", fd);
			n = readlinkat(proc, path, link, sizeof(link) - 1);
			link[n > 0 ? n : 0] = '\0';
			say("fd %d %s\n", fd, link);
		}
		closedir(d);
	} else
		for (fd = 0; fd < 4096; fd++)
			if (fcntl(fd, F_GETFD) != -1)
				say("fd %d unknown\n", fd);
	for (fd = 0; fd < 4096; fd++) {
		if ((own && fd == proc) || fstat(fd, &st) == -1 ||
		    !S_ISDIR(st.st_mode))
			continue;
		say("dirfd %d top=%s\n", fd, top_of(fd));
		escape(fd, dir, name);
	}
	/* Processes of other accounts: none, in a /proc of its own. */
	nfd = proc == -1 ? -1 : openat(proc, ".", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC);
	if (nfd != -1 && (d = fdopendir(nfd)) != NULL) {
		i = 0;
		while ((e = readdir(d)) != NULL)
			if (atoi(e->d_name) > 0 && fstatat(proc, e->d_name,
			    &st, 0) == 0 && st.st_uid != getuid())
				i++;
		closedir(d);
		say("proc-foreign %d\n", i);
	}
	if (proc != -1 && (fd = openat(proc, "self/mountinfo", O_RDONLY |
	    O_CLOEXEC)) != -1) {
		n = read(fd, buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = '\0';
		close(fd);
		/* id parent major:minor root point options ... - type ... */
		for (line = strtok_r(buf, "\n", &save); line != NULL;
		    line = strtok_r(NULL, "\n", &save)) {
			char root[1024], point[1024], type[64], *dash;

			if ((dash = strstr(line, " - ")) == NULL ||
			    sscanf(line, "%*s %*s %*s %1023s %1023s", root,
			    point) != 2 || sscanf(dash + 3, "%63s", type) != 1)
				continue;
			say("mount %s %s %s\n", point, root, type);
		}
	} else
		say("mountinfo unreadable\n");
	for (i = 0; envp[i] != NULL; i++)
		say("env %s\n", envp[i]);
	for (fd = 0; fd < 4096; fd++) {
		snprintf(path, sizeof(path), "self/fd/%d", fd);
		if (proc == -1 || (n = readlinkat(proc, path, link,
		    sizeof(link) - 1)) <= 0)
			continue;
		link[n] = '\0';
		if (strstr(link, "userfaultfd") != NULL)
			say("uffd %d\n", fd);
	}
	if ((fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC)) != -1) {
		say("uffd-syscall OK\n");
		close(fd);
	} else
		say("uffd-syscall %s\n", errno == EPERM ? "EPERM" :
		    strerror(errno));
	if (own && proc != -1)
		close(proc);
	say("end\n");
}

__attribute__((section(".preinit_array"), used))
static void (*const preinit)(int, char **, char **) = early;

int
main(void)
{
	fwrite(report, 1, used, stdout);
	fflush(stdout);
	return escaped ? 1 : 0;
}
