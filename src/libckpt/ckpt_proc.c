/*
 * ckpt_proc.c: the library's own files in /proc under Condor.
 *
 * A checkpoint reads /proc/self/maps, /proc/self/stat and
 * /proc/self/exe, an incremental one /proc/self/pagemap, and it lists
 * /proc/self/task (the threads to stop).  Under Condor the job's root
 * is its execute directory (no /proc there) and the outer seccomp
 * filter refuses every open made
 * through the gate, so the start-up code (and a restart, before it
 * installs the filter) opens them once, relative to the /proc directory
 * the starter hands over in CONDOR_PROC_FD (a procfs of the job's own,
 * mounted nowhere: nothing of the host's files is reachable from it),
 * and keeps them; the /proc descriptor itself is closed here, before
 * main (a program's .preinit_array runs earlier, and finds only that
 * procfs).  Outside Condor nothing is cached: the files are
 * opened by name each time, as before.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/syscall.h>

#include "ckpt.h"

static const char *const proc_names[CKPT_PROC_N] = {
	"/proc/self/maps", "/proc/self/stat", "/proc/self/exe",
	"/proc/self/pagemap", "/proc/self/task",
};

long	ckpt_proc_fds[CKPT_PROC_N] = { -1, -1, -1, -1, -1 };

/* Keep FD above the descriptors a program normally uses. */
static long
keep_high(long fd)
{
	long nfd;

	if (fd < 0 || fd >= CKPT_PROC_FD_LOW)
		return fd;
	nfd = condor_sys3(SYS_fcntl, fd, F_DUPFD_CLOEXEC, CKPT_PROC_FD_LOW);
	condor_sys1(SYS_close, fd);
	return nfd;
}

void
ckpt_proc_cache(char **envp, long fds[CKPT_PROC_N])
{
	long dir = cj_env_number(envp, "CONDOR_PROC_FD", 65536, -1);
	int i;

	for (i = 0; i < CKPT_PROC_N; i++)
		fds[i] = -1;
	if (dir < 0 || condor_sys2(SYS_fcntl, dir, F_GETFD) < 0)
		return;
	for (i = 0; i < CKPT_PROC_N; i++)
		fds[i] = keep_high(condor_sys4(SYS_openat, dir,
		    proc_names[i] + 6, O_RDONLY | O_CLOEXEC, 0));
	condor_sys1(SYS_close, dir);
}

long
ckpt_proc_open(const char *path)
{
	long fd;
	int i;

	for (i = 0; i < CKPT_PROC_N; i++) {
		if (cj_strcmp(path, proc_names[i]) != 0 || ckpt_proc_fds[i] < 0)
			continue;
		fd = condor_sys3(SYS_fcntl, ckpt_proc_fds[i], F_DUPFD_CLOEXEC,
		    CKPT_PROC_FD_LOW);
		if (fd >= 0)
			condor_sys3(SYS_lseek, fd, 0, SEEK_SET);
		return fd;
	}
	return condor_sys3(SYS_open, path, O_RDONLY | O_CLOEXEC, 0);
}
