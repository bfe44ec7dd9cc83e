/*
 * remote.h: the remote mode of the system-call library (issue 4),
 * private to src/libremote and the start-up code.
 *
 * Under Condor the starter hands the job a connected socket to its
 * shadow's system-call service (include/syscall_proto.h) in
 * CONDOR_SYSCALL_FD, and the largest read or write to send in one
 * request in REMOTE_IO_CHUNK (bytes).  Same rules as condor_job.h: no
 * libc, no allocation; every call through the gate.
 */
#ifndef REMOTE_H
#define REMOTE_H

#include "condor_job.h"

#define REMOTE_FD_ENV		"CONDOR_SYSCALL_FD"
#define REMOTE_CHUNK_ENV	"REMOTE_IO_CHUNK"
#define REMOTE_CHUNK_DEFAULT	65536	/* bytes */

/* The socket to the shadow, or -1 outside Condor. */
extern int	remote_syscall_fd;

/*
 * The CPU the program used in its runs before this one (seconds and
 * microseconds of user and system time), which getrusage(RUSAGE_SELF)
 * adds to this run's: the checkpoint library sets it when a program is
 * resumed.
 */
extern long	remote_prior_usage[4];	/* utime s, us; stime s, us */

/*
 * remote_client_init: read CONDOR_SYSCALL_FD and REMOTE_IO_CHUNK from
 * ENVP.  Returns 1 when the program runs under Condor (the socket is
 * there), else 0.
 */
int	remote_client_init(char **envp);

/*
 * remote_client_start: once the trap is in remote mode: the working
 * directory the file table starts from is the shadow's, and the
 * socket is no descriptor of the program's.
 */
void	remote_client_start(void);

/*
 * remote_call: perform system call NR with arguments A at the shadow
 * (or, for the few calls the remote mode answers itself, here).  The
 * kernel's convention: the result, or -errno.  A lost or garbled
 * connection gives -EIO, for this call and every later one.
 */
long	remote_call(long nr, const long a[6]);

/*
 * remote_outer_install: the sandbox's outer seccomp filter (remote
 * mode only), installed before the trap's filter: calls issued from the
 * gate that could reach the execute host (opening files, sockets, new
 * processes, exec, ptrace, signals to others) fail with EPERM.  Returns
 * 0 or -errno.
 */
int	remote_outer_install(void);

/*
 * remote_copy_in, remote_copy_out: copy N bytes between the program's
 * memory at USER and the library's, as the kernel would: the number of
 * bytes copied (short when the range runs into an unmapped page, or a
 * read-only one for remote_copy_out), or -EFAULT when none could be.
 * remote_copy_string: the NUL-terminated string at USER into DST of
 * SIZE bytes: its length, -EFAULT, or -ENAMETOOLONG when it does not
 * fit.  remote_user_init: read the pid the copies name (at start and
 * at restart).  remote_user.c.
 */
void	remote_user_init(void);
long	remote_copy_in(void *dst, const void *user, size_t n);
long	remote_copy_out(void *user, const void *src, size_t n);
long	remote_copy_string(char *dst, const char *user, size_t size);

/*
 * remote_poll_ready: poll, ppoll, select or pselect6 (NR, arguments A)
 * on the job's descriptors, all plain files at the shadow, answered
 * here as the kernel answers for regular files: always readable and
 * writable; a descriptor that is not open gives POLLNVAL (poll) or
 * EBADF (select).  Returns the number ready, or -errno, or 0 when
 * nothing can ever become ready: the caller then sleeps out the
 * timeout locally.  remote_poll.c.
 */
long	remote_poll_ready(long nr, const long a[6]);

#endif
