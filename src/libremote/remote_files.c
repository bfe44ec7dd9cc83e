/*
 * remote_files.c: the job's open-file table.
 *
 * The trap (remote_trap.c) calls these after every successful call that
 * creates, copies or closes a descriptor or changes the working
 * directory, so that a checkpoint knows, for each descriptor: the open
 * file description it shares with its dup()s, that file's absolute path
 * (resolved against the working directory of the moment), its open
 * flags and mode, and close-on-exec.  Offsets are not tracked: the
 * checkpoint asks the kernel (lseek(fd, 0, SEEK_CUR)) when it needs them.
 *
 * Fixed-size static tables (FT_MAXFD descriptors, FT_MAXFILES open
 * files), no allocation; what does not fit sets ft_overflow and the next
 * checkpoint refuses, naming the reason, instead of restarting without
 * the file.  Callers hold the trap's lock.
 */
#include <fcntl.h>
#include <sys/syscall.h>

#include "condor_job.h"

struct ft_file	ft_files[FT_MAXFILES];
struct ft_fd	ft_fds[FT_MAXFD];
char		ft_cwd[PATH_MAX];
int		ft_overflow;

/* Flags that F_SETFL can change. */
#define SETFL_MASK	(O_APPEND | O_ASYNC | O_DIRECT | O_NOATIME | O_NONBLOCK)
/* Flags whose effect is over once the file is open. */
#define ONCE_MASK	(O_CREAT | O_EXCL | O_TRUNC | O_NOCTTY)

static struct ft_file *
file_of(int fd)
{
	if (fd < 0 || fd >= FT_MAXFD || ft_fds[fd].file == 0)
		return 0;
	return &ft_files[ft_fds[fd].file - 1];
}

static int
file_alloc(void)
{
	int i;

	for (i = 0; i < FT_MAXFILES; i++)
		if (ft_files[i].kind == FT_FREE)
			return i;
	return -1;
}

/* Attach descriptor FD to a new file of KIND; returns it or NULL. */
static struct ft_file *
attach_new(int fd, int kind, int cloexec)
{
	struct ft_file *f;
	int i;

	if (fd < 0 || fd >= FT_MAXFD) {
		ft_overflow = 1;
		return 0;
	}
	if (ft_fds[fd].file != 0)
		ft_closed(fd);
	if ((i = file_alloc()) == -1) {
		ft_overflow = 1;
		return 0;
	}
	f = &ft_files[i];
	f->kind = kind;
	f->refs = 1;
	f->flags = 0;
	f->mode = 0;
	f->what = 0;
	f->path[0] = '\0';
	ft_fds[fd].file = (int16_t)(i + 1);
	ft_fds[fd].cloexec = (uint8_t)(cloexec != 0);
	return f;
}

void
ft_opened(int fd, int dirfd, const char *path, int flags, mode_t mode)
{
	struct ft_file *f;

	if ((f = attach_new(fd, FT_FILE, flags & O_CLOEXEC)) == 0)
		return;
	f->flags = flags & ~(ONCE_MASK | O_CLOEXEC);
	f->mode = mode;
	if (path == 0 || ft_resolve(dirfd, path, f->path,
	    sizeof(f->path)) == -1)
		f->path[0] = '\0';
}

void
ft_opened_other(int fd, int flags, const char *what)
{
	struct ft_file *f;

	if ((f = attach_new(fd, FT_OTHER, flags & O_CLOEXEC)) == 0)
		return;
	f->what = what;
}

void
ft_closed(int fd)
{
	struct ft_file *f = file_of(fd);

	if (f == 0)
		return;
	ft_fds[fd].file = 0;
	ft_fds[fd].cloexec = 0;
	if (--f->refs <= 0)
		f->kind = FT_FREE;
}

void
ft_dup(int oldfd, int newfd, int cloexec)
{
	struct ft_file *f = file_of(oldfd);

	if (newfd < 0 || newfd >= FT_MAXFD) {
		if (f != 0)
			ft_overflow = 1;
		return;
	}
	ft_closed(newfd);
	if (f == 0)
		return;		/* untracked: the checkpoint will say so */
	ft_fds[newfd].file = ft_fds[oldfd].file;
	ft_fds[newfd].cloexec = (uint8_t)(cloexec != 0);
	f->refs++;
}

void
ft_set_cloexec(int fd, int on)
{
	if (file_of(fd) != 0)
		ft_fds[fd].cloexec = (uint8_t)(on != 0);
}

void
ft_set_flags(int fd, int flags)
{
	struct ft_file *f = file_of(fd);

	if (f != 0)
		f->flags = (f->flags & ~SETFL_MASK) | (flags & SETFL_MASK);
}

void
ft_chdir(int dirfd, const char *path)
{
	static char buf[PATH_MAX];	/* static: under the trap's lock */

	/* Outside Condor the kernel knows best. */
	if (remote_mode() == REMOTE_MODE_LOCAL &&
	    condor_sys2(SYS_getcwd, buf, sizeof(buf)) > 0) {
		cj_strlcpy(ft_cwd, buf, sizeof(ft_cwd));
		return;
	}
	if (path == 0) {
		struct ft_file *f = file_of(dirfd);

		if (f != 0 && f->path[0] == '/')
			cj_strlcpy(ft_cwd, f->path, sizeof(ft_cwd));
		return;
	}
	if (ft_resolve(AT_FDCWD, path, buf, sizeof(buf)) == 0)
		cj_strlcpy(ft_cwd, buf, sizeof(ft_cwd));
}

/*
 * ft_resolve: the absolute path of PATH relative to DIRFD (AT_FDCWD: the
 * working directory), with "", ".", ".." and repeated slashes resolved
 * lexically.  Returns 0, or -1 if the base is unknown or OUT too small.
 */
int
ft_resolve(int dirfd, const char *path, char *out, size_t outlen)
{
	static char tmp[PATH_MAX];	/* static: under the trap's lock */
	const char *p, *base;
	size_t n, o;

	if (path[0] == '/')
		base = "";
	else if (dirfd == AT_FDCWD)
		base = ft_cwd;
	else {
		struct ft_file *f = file_of(dirfd);

		if (f == 0 || f->path[0] != '/')
			return -1;
		base = f->path;
	}
	if (cj_strlcpy(tmp, base, sizeof(tmp)) >= sizeof(tmp) ||
	    cj_strlcat(tmp, "/", sizeof(tmp)) >= sizeof(tmp) ||
	    cj_strlcat(tmp, path, sizeof(tmp)) >= sizeof(tmp))
		return -1;
	if (outlen < 2)
		return -1;
	/* Walk the components of tmp, building out. */
	o = 0;
	for (p = tmp; *p != '\0';) {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		for (n = 0; p[n] != '\0' && p[n] != '/'; n++)
			;
		if (n == 1 && p[0] == '.')
			;
		else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
		} else {
			if (o + 1 + n + 1 > outlen)
				return -1;
			out[o++] = '/';
			cj_memcpy(out + o, p, n);
			o += n;
		}
		p += n;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	return 0;
}

/* ---------------------------------------------------------------- */

struct linux_dirent64 {
	uint64_t	d_ino;
	int64_t		d_off;
	unsigned short	d_reclen;
	unsigned char	d_type;
	char		d_name[];
};

static void
inherit(int fd)
{
	long fl = condor_sys2(SYS_fcntl, fd, F_GETFD);
	struct ft_file *f;

	if (fl < 0)
		return;
	if ((f = attach_new(fd, FT_INHERITED, fl & FD_CLOEXEC)) != 0)
		f->flags = (int)condor_sys2(SYS_fcntl, fd, F_GETFL);
}

/*
 * remote_files_init: the descriptors open before main are "inherited":
 * a restarted program uses the ones its own starter gave it.  Found in
 * /proc/self/fd, or by probing the first 1024 if /proc is missing.
 */
void
remote_files_init(void)
{
	union {
		struct linux_dirent64 d;
		char buf[4096];
	} u;
	long dfd, n, pos;
	int fd, i;

	cj_memset(ft_files, 0, sizeof(ft_files));
	cj_memset(ft_fds, 0, sizeof(ft_fds));
	ft_overflow = 0;
	if (condor_sys2(SYS_getcwd, ft_cwd, sizeof(ft_cwd)) <= 0)
		cj_strlcpy(ft_cwd, "/", sizeof(ft_cwd));
	dfd = condor_sys3(SYS_open, "/proc/self/fd",
	    O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (dfd < 0) {
		for (fd = 0; fd < 1024; fd++)
			inherit(fd);
		return;
	}
	while ((n = condor_sys3(SYS_getdents64, dfd, u.buf,
	    sizeof(u.buf))) > 0) {
		for (pos = 0; pos < n;) {
			struct linux_dirent64 *d =
			    (struct linux_dirent64 *)(u.buf + pos);

			pos += d->d_reclen;
			if (d->d_name[0] < '0' || d->d_name[0] > '9')
				continue;
			for (fd = 0, i = 0; d->d_name[i] >= '0' &&
			    d->d_name[i] <= '9' && fd < 1 << 20; i++)
				fd = fd * 10 + (d->d_name[i] - '0');
			if (fd != dfd)
				inherit(fd);
		}
	}
	condor_sys1(SYS_close, dfd);
}
