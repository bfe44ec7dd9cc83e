/*
 * box_filter_test: the outer seccomp filter of a standard job's box
 * (src/common/box_filter.c), installed for real in a child process,
 * which then tries what a job may and may not do on the execute host.
 * The starter's copy: opening by name, sockets, fork, exec by path,
 * signals to another process all fail with EPERM; its two doors work
 * (openat under the /proc descriptor, execveat of the job's descriptor
 * with AT_EMPTY_PATH), and nothing beside them (execveat of the right
 * descriptor without AT_EMPTY_PATH, or of another one), and so does
 * the restore's (a process made by clone with no flags).  The job's own
 * copy shuts every door.  A fresh job's copy under INCREMENTAL_CHECKPOINTS
 * lets through a user-mode-only userfaultfd and nothing else of the
 * restore's: no other userfaultfd, no clone.  Both copies let a thread
 * be made (pthread_create: clone3 answers ENOSYS, clone with glibc's
 * flags goes through), and no other clone; a signal with data
 * (rt_tgsigqueueinfo, how a checkpoint stops a job's threads) goes to
 * the process itself only.
 * checks: 30
 */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/filter.h>
#include <linux/seccomp.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box_filter.h"
#include "test.h"

#define EXEC_FD	1005
#define PROC_FD	1003
#define STATIC_PROGRAM	"/sbin/ldconfig"

enum {
	T_OPEN, T_OPENAT, T_SOCKET, T_FORK, T_EXECVE, T_KILL_OTHER,
	T_KILL_SELF, T_PROC, T_EXECAT_FLAGS, T_EXECAT_OTHER, T_CLONE0,
	T_UFFD_WP, T_UFFD_KERNEL, T_THREAD, T_CLONE3, T_CLONE_OTHER,
	T_SIGQ_SELF, T_SIGQ_OTHER, T_N
};

static void *
thread_main(void *arg)
{
	return arg;
}

/* A thread made and joined: 0, or the error. */
static int
make_thread(void)
{
	pthread_t t;
	void *ret = NULL;
	int e;

	if ((e = pthread_create(&t, NULL, thread_main, &e)) != 0)
		return e;
	if ((e = pthread_join(t, &ret)) != 0)
		return e;
	return ret == &e ? 0 : EINVAL;
}

static long
sigqueue_to(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_uid = getuid();
	return syscall(SYS_rt_tgsigqueueinfo, pid, pid, 0, &si);
}

/* In a child: install the filter (the starter's copy if STARTER: 1 for a
 * resuming job, 2 for a fresh one with INCREMENTAL_CHECKPOINTS), try
 * each call, write the errnos (0: it worked) to FD, then, the
 * starter's copy, exec /bin/true through the door. */
static void __attribute__((noreturn))
child(int fd, int starter, pid_t parent)
{
	struct sock_filter f[BOX_FILTER_MAX];
	struct box_filter_extra x = { EXEC_FD, PROC_FD, starter == 1,
	    starter == 2 };
	struct sock_fprog prog;
	char *argv[] = { "ldconfig", "--version", NULL }, *envp[] = { NULL };
	int r[T_N], n, e, other;
	long rc;

	/* A static program: a dynamic one's loader could not open its
	 * libraries in the box. */
	if (dup2(open("/dev/null", O_WRONLY), 1) == -1 ||
	    dup2(open(STATIC_PROGRAM, O_RDONLY | O_CLOEXEC), EXEC_FD) == -1 ||
	    dup2(open("/proc", O_PATH | O_DIRECTORY), PROC_FD) == -1 ||
	    (other = open("/bin/true", O_RDONLY)) == -1)
		_exit(90);
	fcntl(EXEC_FD, F_SETFD, FD_CLOEXEC);
	n = box_filter_build(f, (uint32_t)getpid(), starter ? &x : NULL);
	if (n < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		_exit(91);
	prog.len = (unsigned short)n;
	prog.filter = f;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == -1)
		_exit(92);
#define TRY(i, call) do { rc = (call); e = errno; r[i] = rc >= 0 ? 0 : e; } while (0)
	TRY(T_OPEN, syscall(SYS_open, "/etc/passwd", O_RDONLY));
	TRY(T_OPENAT, syscall(SYS_openat, AT_FDCWD, "/etc/passwd", O_RDONLY));
	TRY(T_SOCKET, syscall(SYS_socket, AF_INET, SOCK_STREAM, 0));
	TRY(T_FORK, syscall(SYS_fork));
	if (rc == 0)
		_exit(0);
	TRY(T_CLONE0, syscall(SYS_clone, 0, 0, 0, 0, 0));
	if (rc == 0)
		_exit(0);
	TRY(T_UFFD_WP, syscall(SYS_userfaultfd, BOX_UFFD_WP_FLAGS));
	TRY(T_UFFD_KERNEL, syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK));
	r[T_THREAD] = make_thread();
	TRY(T_CLONE3, syscall(SYS_clone3, NULL, 0));
	/* Refused by the filter (EPERM), else by the kernel (EINVAL:
	 * CLONE_THREAD wants CLONE_SIGHAND): never a new task. */
	TRY(T_CLONE_OTHER, syscall(SYS_clone, CLONE_THREAD, 0, 0, 0, 0));
	TRY(T_SIGQ_SELF, sigqueue_to(getpid()));
	TRY(T_SIGQ_OTHER, sigqueue_to(parent));
	TRY(T_EXECVE, syscall(SYS_execve, "/bin/true", argv, envp));
	TRY(T_KILL_OTHER, syscall(SYS_kill, parent, 0));
	TRY(T_KILL_SELF, syscall(SYS_kill, getpid(), 0));
	TRY(T_PROC, syscall(SYS_openat, PROC_FD, "self/stat", O_RDONLY));
	TRY(T_EXECAT_FLAGS, syscall(SYS_execveat, EXEC_FD, "/bin/true", argv,
	    envp, 0));
	TRY(T_EXECAT_OTHER, syscall(SYS_execveat, other, "", argv, envp,
	    AT_EMPTY_PATH));
	if (write(fd, r, sizeof(r)) != (ssize_t)sizeof(r))
		_exit(93);
	if (starter)
		syscall(SYS_execveat, EXEC_FD, "", argv, envp, AT_EMPTY_PATH);
	_exit(errno == EPERM ? 77 : 94);
}

/* Run the child; its errnos into R, its wait status returned. */
static int
run(int starter, int r[T_N])
{
	int p[2], status = -1;
	pid_t pid;

	memset(r, 0xff, sizeof(int) * T_N);
	if (pipe(p) == -1 || (pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		close(p[0]);
		child(p[1], starter, getppid());
	}
	close(p[1]);
	if (read(p[0], r, sizeof(int) * T_N) != (ssize_t)(sizeof(int) * T_N))
		memset(r, 0xff, sizeof(int) * T_N);
	close(p[0]);
	waitpid(pid, &status, 0);
	return status;
}

int
main(void)
{
	int r[T_N], status;

	status = run(1, r);
	CHECK("starter's: open by name is refused", r[T_OPEN] == EPERM);
	CHECK("starter's: openat by name is refused", r[T_OPENAT] == EPERM);
	CHECK("starter's: a socket is refused", r[T_SOCKET] == EPERM);
	CHECK("starter's: fork is refused", r[T_FORK] == EPERM);
	CHECK("starter's: execve by path is refused", r[T_EXECVE] == EPERM);
	CHECK("starter's: a signal to another process is refused",
	    r[T_KILL_OTHER] == EPERM);
	CHECK("starter's: a signal to itself is allowed", r[T_KILL_SELF] == 0);
	CHECK("starter's: openat under the /proc descriptor is allowed",
	    r[T_PROC] == 0);
	CHECK("starter's: a process of its own for the restore (clone, no "
	    "flags) is allowed", r[T_CLONE0] == 0);
	CHECK("starter's: a thread is made (pthread_create)",
	    r[T_THREAD] == 0);
	CHECK("starter's: clone3 answers ENOSYS", r[T_CLONE3] == ENOSYS);
	CHECK("starter's: clone with other flags is refused",
	    r[T_CLONE_OTHER] == EPERM);
	CHECK("starter's: rt_tgsigqueueinfo to itself is allowed",
	    r[T_SIGQ_SELF] == 0);
	CHECK("starter's: rt_tgsigqueueinfo to another process is refused",
	    r[T_SIGQ_OTHER] == EPERM);
	CHECK("starter's: execveat of the door without AT_EMPTY_PATH is "
	    "refused", r[T_EXECAT_FLAGS] == EPERM);
	CHECK("starter's: execveat of another descriptor is refused",
	    r[T_EXECAT_OTHER] == EPERM);
	if (access(STATIC_PROGRAM, X_OK) == 0)
		CHECK("starter's: the job is executed through the door",
		    WIFEXITED(status) && WEXITSTATUS(status) == 0);
	else
		printf("SKIP starter's: the job is executed through the door: "
		    "no %s to execute\n", STATIC_PROGRAM);

	status = run(0, r);
	CHECK("job's own: openat under the /proc descriptor is refused",
	    r[T_PROC] == EPERM);
	CHECK("job's own: a socket is refused", r[T_SOCKET] == EPERM);
	CHECK("job's own: a signal to itself is allowed", r[T_KILL_SELF] == 0);
	CHECK("job's own: the door is shut",
	    WIFEXITED(status) && WEXITSTATUS(status) == 77);
	CHECK("job's own: fork is refused", r[T_FORK] == EPERM);
	CHECK("job's own: clone with no flags is refused",
	    r[T_CLONE0] == EPERM);
	CHECK("job's own: a userfaultfd is refused",
	    r[T_UFFD_WP] == EPERM && r[T_UFFD_KERNEL] == EPERM);
	CHECK("job's own: a thread is made (pthread_create)",
	    r[T_THREAD] == 0);
	CHECK("job's own: clone with other flags is refused",
	    r[T_CLONE_OTHER] == EPERM);

	(void)run(2, r);
	CHECK("fresh, incremental: a user-mode-only userfaultfd is allowed",
	    r[T_UFFD_WP] == 0);
	CHECK("fresh, incremental: any other userfaultfd is refused",
	    r[T_UFFD_KERNEL] == EPERM);
	CHECK("fresh, incremental: clone with no flags is refused",
	    r[T_CLONE0] == EPERM);
	CHECK("fresh, incremental: open by name is refused",
	    r[T_OPEN] == EPERM);
	return test_failures != 0;
}
