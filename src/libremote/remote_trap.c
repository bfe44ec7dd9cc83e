/*
 * remote_trap.c: catch the system calls of a relinked program.
 *
 * At start-up (before main) the library sets PR_SET_NO_NEW_PRIVS and
 * installs a seccomp filter that answers SECCOMP_RET_TRAP for the calls
 * it wants to see when they are made from the program's own text, and
 * ALLOW for everything issued from the gate page (remote_gate.S) and for
 * rt_sigreturn.  The kernel then delivers SIGSYS before the call runs;
 * the handler below reads the call from the registers in the ucontext,
 * looks it up in sc_table (indexed by system-call number), performs it
 * (through the gate, or, in the remote mode of issue 4, at the shadow),
 * does the bookkeeping, and puts the result in RAX.
 *
 * The table.  Each call has one action per mode:
 *
 *	SC_DEFAULT	local mode: not trapped at all (the filter lets it
 *			through, and the kernel's seccomp cache makes that
 *			free); remote mode: refused with ENOSYS
 *	SC_NATIVE	performed here, unchanged
 *	SC_LOCAL	performed here, through its function (fn), which
 *			keeps the open-file table or the signal bookkeeping
 *	SC_REMOTE	sent to the shadow (issue 4)
 *	SC_REFUSE	answered with -err without running
 *
 * and flags: SCF_BLOCKS for calls that may wait (open of a FIFO, a lock):
 * they run with the program's signal mask, so its handlers and Condor's
 * checkpoint signals are not held off by the trap.
 *
 * Local mode (outside Condor) traps only what the file table and the
 * signal bookkeeping need: a read/write-heavy program pays nothing (see
 * bench/ckpt_bench.sh's trap figures).  CONDOR_TRAP_ALL=1 traps every
 * call, as the remote mode will, and performs it natively (a test aid).
 *
 * Signals.  SIGSYS, SIGUSR2 and SIGTSTP belong to Condor: the program's
 * sigaction on them is recorded (remote_virtual_action) and not
 * installed, and they are never blocked in the kernel: rt_sigprocmask is
 * emulated on the ucontext's mask (what sigreturn installs) with those
 * three removed and remembered (remote_virtual_blocked), and they are
 * removed from every sa_mask and rt_sigsuspend mask.  A blocked SIGSYS
 * would make the kernel kill the process at the next trapped call; a
 * blocked checkpoint signal would keep the job from ever checkpointing.
 *
 * The handler runs with every signal blocked except the synchronous
 * faults; it uses a spin lock around the table for threaded programs.
 *
 * Threads under Condor: clone with the flags of glibc's pthread_create
 * is let through (the new thread must not start inside this handler),
 * clone3 is refused with ENOSYS (glibc then uses clone), every other
 * clone is refused; remote calls take turns on the one channel to the
 * shadow (remote_client.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/times.h>
#include <sys/syscall.h>
#include <ucontext.h>

#include "box_filter.h"
#include "condor_job.h"
#include "remote.h"
#include "syscall_table.h"

#ifndef SECCOMP_FILTER_FLAG_SPEC_ALLOW
#define SECCOMP_FILTER_FLAG_SPEC_ALLOW	(1UL << 2)
#endif
#ifndef SYS_SECCOMP
#define SYS_SECCOMP	1	/* si_code of a seccomp SIGSYS */
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC	(1U << 2)
#endif

#define SC_MAX		512

enum sc_action {
	SC_DEFAULT = 0,
	SC_NATIVE,
	SC_LOCAL,
	SC_REMOTE,
	SC_REFUSE,
};

#define SCF_BLOCKS	0x01

struct sc_call {
	long		 nr;
	long		 a[6];
	ucontext_t	*uc;
};

struct sc_entry {
	uint8_t		 local;		/* enum sc_action, outside Condor */
	uint8_t		 remote;	/* enum sc_action, under Condor */
	uint8_t		 flags;		/* SCF_* */
	int16_t		 err;		/* SC_REFUSE's errno */
	long		(*fn)(struct sc_call *);
};

static long	h_open(struct sc_call *);
static long	h_close(struct sc_call *);
static long	h_close_range(struct sc_call *);
static long	h_dup(struct sc_call *);
static long	h_fcntl(struct sc_call *);
static long	h_chdir(struct sc_call *);
static long	h_other(struct sc_call *);
static long	h_sigaction(struct sc_call *);
static long	h_sigprocmask(struct sc_call *);
static long	h_sigsuspend(struct sc_call *);
static long	h_exit(struct sc_call *);
static long	h_kill(struct sc_call *);
static long	h_poll(struct sc_call *);
static long	h_getrusage(struct sc_call *);
static long	h_times(struct sc_call *);
static long	h_sigtimedwait(struct sc_call *);
static long	h_sigpending(struct sc_call *);
static void	sys_pending_release(void);
static int	sys_pending;
static siginfo_t	sys_pending_info;	/* (see user_sigsys) */

#define FILE_CALL(f)	{ SC_LOCAL, SC_REMOTE, SCF_BLOCKS, 0, f }
#define FD_CALL(f)	{ SC_LOCAL, SC_REFUSE, 0, ENOSYS, f }
#define SIG_CALL(f)	{ SC_LOCAL, SC_LOCAL, 0, 0, f }
#define REMOTE_ONLY	{ SC_DEFAULT, SC_REMOTE, SCF_BLOCKS, 0, 0 }
#define LOCAL_ONLY	{ SC_DEFAULT, SC_NATIVE, 0, 0, 0 }
#define REFUSED(e)	{ SC_DEFAULT, SC_REFUSE, 0, e, 0 }

static const struct sc_entry sc_table[SC_MAX] = {
	/* The open-file table. */
	[SYS_open] = FILE_CALL(h_open),
	[SYS_creat] = FILE_CALL(h_open),
	[SYS_openat] = FILE_CALL(h_open),
	[SYS_openat2] = FILE_CALL(h_open),
	[SYS_open_by_handle_at] = FILE_CALL(h_open),
	[SYS_close] = FILE_CALL(h_close),
	[SYS_close_range] = FILE_CALL(h_close_range),
	[SYS_dup] = FILE_CALL(h_dup),
	[SYS_dup2] = FILE_CALL(h_dup),
	[SYS_dup3] = FILE_CALL(h_dup),
	[SYS_fcntl] = FILE_CALL(h_fcntl),
	[SYS_chdir] = FILE_CALL(h_chdir),
	[SYS_fchdir] = FILE_CALL(h_chdir),
	/* Descriptors that cannot be restored: recorded, refused under
	 * Condor (the seeds' limitations: no pipes, sockets, IPC). */
	[SYS_pipe] = FD_CALL(h_other),
	[SYS_pipe2] = FD_CALL(h_other),
	[SYS_socket] = FD_CALL(h_other),
	[SYS_socketpair] = FD_CALL(h_other),
	[SYS_accept] = { SC_LOCAL, SC_REFUSE, SCF_BLOCKS, ENOSYS, h_other },
	[SYS_accept4] = { SC_LOCAL, SC_REFUSE, SCF_BLOCKS, ENOSYS, h_other },
	[SYS_eventfd] = FD_CALL(h_other),
	[SYS_eventfd2] = FD_CALL(h_other),
	[SYS_signalfd] = FD_CALL(h_other),
	[SYS_signalfd4] = FD_CALL(h_other),
	[SYS_timerfd_create] = FD_CALL(h_other),
	[SYS_epoll_create] = FD_CALL(h_other),
	[SYS_epoll_create1] = FD_CALL(h_other),
	[SYS_inotify_init] = FD_CALL(h_other),
	[SYS_inotify_init1] = FD_CALL(h_other),
	[SYS_memfd_create] = FD_CALL(h_other),
	[SYS_memfd_secret] = FD_CALL(h_other),
	[SYS_userfaultfd] = FD_CALL(h_other),
	[SYS_perf_event_open] = FD_CALL(h_other),
	[SYS_pidfd_open] = FD_CALL(h_other),
	[SYS_pidfd_getfd] = FD_CALL(h_other),
	[SYS_fanotify_init] = FD_CALL(h_other),
	[SYS_io_uring_setup] = FD_CALL(h_other),
	[SYS_open_tree] = FD_CALL(h_other),
	[SYS_fsopen] = FD_CALL(h_other),
	[SYS_fspick] = FD_CALL(h_other),
	[SYS_fsmount] = FD_CALL(h_other),
	/* Signal bookkeeping (both modes). */
	[SYS_rt_sigaction] = SIG_CALL(h_sigaction),
	[SYS_rt_sigprocmask] = SIG_CALL(h_sigprocmask),
	[SYS_rt_sigsuspend] = SIG_CALL(h_sigsuspend),
	[SYS_exit_group] = SIG_CALL(h_exit),
	/* What issue 4 forwards; untrapped outside Condor. */
	[SYS_read] = REMOTE_ONLY, [SYS_write] = REMOTE_ONLY,
	[SYS_pread64] = REMOTE_ONLY, [SYS_pwrite64] = REMOTE_ONLY,
	[SYS_readv] = REMOTE_ONLY, [SYS_writev] = REMOTE_ONLY,
	[SYS_lseek] = REMOTE_ONLY, [SYS_fstat] = REMOTE_ONLY,
	[SYS_stat] = REMOTE_ONLY, [SYS_lstat] = REMOTE_ONLY,
	[SYS_newfstatat] = REMOTE_ONLY, [SYS_statx] = REMOTE_ONLY,
	[SYS_access] = REMOTE_ONLY, [SYS_faccessat] = REMOTE_ONLY,
	[SYS_faccessat2] = REMOTE_ONLY, [SYS_unlink] = REMOTE_ONLY,
	[SYS_unlinkat] = REMOTE_ONLY, [SYS_rename] = REMOTE_ONLY,
	[SYS_renameat] = REMOTE_ONLY, [SYS_renameat2] = REMOTE_ONLY,
	[SYS_mkdir] = REMOTE_ONLY, [SYS_mkdirat] = REMOTE_ONLY,
	[SYS_rmdir] = REMOTE_ONLY, [SYS_getdents64] = REMOTE_ONLY,
	[SYS_ftruncate] = REMOTE_ONLY, [SYS_truncate] = REMOTE_ONLY,
	[SYS_fsync] = REMOTE_ONLY, [SYS_fdatasync] = REMOTE_ONLY,
	[SYS_getcwd] = REMOTE_ONLY, [SYS_readlink] = REMOTE_ONLY,
	[SYS_readlinkat] = REMOTE_ONLY, [SYS_utimensat] = REMOTE_ONLY,
	[SYS_chmod] = REMOTE_ONLY, [SYS_fchmod] = REMOTE_ONLY,
	[SYS_fchmodat] = REMOTE_ONLY, [SYS_fchmodat2] = REMOTE_ONLY,
	[SYS_link] = REMOTE_ONLY,
	[SYS_linkat] = REMOTE_ONLY, [SYS_symlink] = REMOTE_ONLY,
	[SYS_symlinkat] = REMOTE_ONLY, [SYS_flock] = REMOTE_ONLY,
	[SYS_ioctl] = REMOTE_ONLY,
	/* Local under Condor too: memory, time, identity, exit. */
	/* remote_client.c: anonymous memory here; a remote file a private
	 * copy (shared and writable: ENODEV). */
	[SYS_mmap] = { SC_DEFAULT, SC_REMOTE, 0, 0, 0 },
	/* Files are created at the shadow, with the job's umask there. */
	[SYS_umask] = { SC_DEFAULT, SC_REMOTE, 0, 0, 0 },
	[SYS_brk] = LOCAL_ONLY,
	[SYS_munmap] = LOCAL_ONLY, [SYS_mprotect] = LOCAL_ONLY,
	[SYS_mremap] = LOCAL_ONLY, [SYS_madvise] = LOCAL_ONLY,
	[SYS_mincore] = LOCAL_ONLY, [SYS_msync] = LOCAL_ONLY,
	[SYS_clock_gettime] = LOCAL_ONLY, [SYS_gettimeofday] = LOCAL_ONLY,
	[SYS_time] = LOCAL_ONLY, [SYS_clock_getres] = LOCAL_ONLY,
	[SYS_nanosleep] = LOCAL_ONLY, [SYS_clock_nanosleep] = LOCAL_ONLY,
	[SYS_getpid] = LOCAL_ONLY, [SYS_gettid] = LOCAL_ONLY,
	[SYS_getuid] = LOCAL_ONLY, [SYS_geteuid] = LOCAL_ONLY,
	[SYS_getgid] = LOCAL_ONLY, [SYS_getegid] = LOCAL_ONLY,
	[SYS_uname] = LOCAL_ONLY, [SYS_getrandom] = LOCAL_ONLY,
	[SYS_exit] = LOCAL_ONLY, [SYS_sigaltstack] = LOCAL_ONLY,
	[SYS_getitimer] = LOCAL_ONLY, [SYS_setitimer] = LOCAL_ONLY,
	[SYS_alarm] = LOCAL_ONLY, [SYS_pause] = LOCAL_ONLY,
	[SYS_rt_sigpending] = SIG_CALL(h_sigpending),
	[SYS_rt_sigtimedwait] = { SC_LOCAL, SC_LOCAL, SCF_BLOCKS, 0,
	    h_sigtimedwait },
	[SYS_rt_sigreturn] = LOCAL_ONLY,
	[SYS_arch_prctl] = LOCAL_ONLY, [SYS_set_tid_address] = LOCAL_ONLY,
	[SYS_set_robust_list] = LOCAL_ONLY, [SYS_futex] = LOCAL_ONLY,
	[SYS_sched_yield] = LOCAL_ONLY,
	/* The runs before a restart count (h_getrusage). */
	[SYS_getrusage] = { SC_LOCAL, SC_LOCAL, 0, 0, h_getrusage },
	[SYS_times] = { SC_LOCAL, SC_LOCAL, 0, 0, h_times },
	[SYS_prlimit64] = LOCAL_ONLY,
	[SYS_getrlimit] = LOCAL_ONLY,
	[SYS_sysinfo] = LOCAL_ONLY, [SYS_getppid] = LOCAL_ONLY,
	[SYS_rseq] = LOCAL_ONLY, [SYS_restart_syscall] = LOCAL_ONLY,
	/* The seeds' limitations (refused under Condor only). */
	[SYS_fork] = REFUSED(ENOSYS), [SYS_vfork] = REFUSED(ENOSYS),
	[SYS_clone] = REFUSED(ENOSYS), [SYS_clone3] = REFUSED(ENOSYS),
	[SYS_execve] = REFUSED(ENOSYS), [SYS_execveat] = REFUSED(ENOSYS),
	[SYS_connect] = REFUSED(ENOSYS), [SYS_bind] = REFUSED(ENOSYS),
	[SYS_ptrace] = REFUSED(EPERM),
	/* raise() and abort(): to itself only (h_kill). */
	[SYS_kill] = { SC_DEFAULT, SC_LOCAL, 0, 0, h_kill },
	/* Both modes: a thread's id as the program knows it (a restart
	 * made the thread again) becomes the kernel's. */
	[SYS_tgkill] = { SC_LOCAL, SC_LOCAL, 0, 0, h_kill },
	[SYS_tkill] = { SC_LOCAL, SC_LOCAL, 0, 0, h_kill },
	/* Every remote file is ready at once (remote_poll.c); epoll_wait
	 * and epoll_ctl stay ENOSYS, as epoll_create is. */
	[SYS_poll] = { SC_DEFAULT, SC_LOCAL, SCF_BLOCKS, 0, h_poll },
	[SYS_ppoll] = { SC_DEFAULT, SC_LOCAL, SCF_BLOCKS, 0, h_poll },
	[SYS_select] = { SC_DEFAULT, SC_LOCAL, SCF_BLOCKS, 0, h_poll },
	[SYS_pselect6] = { SC_DEFAULT, SC_LOCAL, SCF_BLOCKS, 0, h_poll },
};

/* Never trapped in local mode, even with CONDOR_TRAP_ALL: a new thread
 * or a vfork child cannot start inside a signal handler. */
static int
never_trapped_locally(long nr)
{
	return nr == SYS_rt_sigreturn || nr == SYS_clone ||
	    nr == SYS_clone3 || nr == SYS_vfork;
}

/*
 * Calls performed here that may wait long (a futex: pthread_join, a
 * mutex or condition variable of a program's threads), run with the
 * program's mask like SCF_BLOCKS calls: a checkpoint stopping the
 * threads must reach a thread waiting in one.
 */
static int
may_wait(long nr)
{
	return nr == SYS_futex || nr == SYS_nanosleep ||
	    nr == SYS_clock_nanosleep || nr == SYS_pause;
}

static enum remote_mode	mode;
static int		trap_all;
/* Per thread: each thread of a program is in its own call. */
__thread volatile int	remote_in_call;
__thread volatile int	remote_unblocked;
__thread volatile int	remote_deferred_sig;
struct ksigaction	remote_virtual_action[3];
uint64_t		remote_virtual_blocked;
static volatile int	table_lock;

extern void	condor_restore_rt(void);

enum remote_mode
remote_mode(void)
{
	return mode;
}

void
remote_trap_restored(enum remote_mode m, int all)
{
	mode = m;
	trap_all = all;
	remote_in_call = 0;
	table_lock = 0;
}

static void
lock(void)
{
	while (__atomic_exchange_n(&table_lock, 1, __ATOMIC_ACQUIRE))
		__builtin_ia32_pause();
}

static void
unlock(void)
{
	__atomic_store_n(&table_lock, 0, __ATOMIC_RELEASE);
}

/* ---------------------------------------------------------------- */
/* Performing a call. */

#define SYNC_SIGS	(SIGBIT(SIGSEGV) | SIGBIT(SIGBUS) | SIGBIT(SIGILL) | \
			 SIGBIT(SIGFPE) | SIGBIT(SIGTRAP))

static long
sc_gate(struct sc_call *c)
{
	return condor_sys6(c->nr, c->a[0], c->a[1], c->a[2], c->a[3],
	    c->a[4], c->a[5]);
}

/*
 * sc_do: perform the call where the mode says.  A call that may wait
 * runs with the program's mask (the handler's is full), so a signal the
 * program expects, or a checkpoint, can interrupt it.
 */
static long
sc_do_mask(struct sc_call *c, int blocks)
{
	uint64_t prog, full = ~SYNC_SIGS;
	long r;

	/* Under Condor, at the shadow (with every signal held: a call is
	 * never cut off halfway through its exchange). */
	if (mode == REMOTE_MODE_REMOTE && sc_table[c->nr].remote == SC_REMOTE)
		return remote_call(c->nr, c->a);
	if (!blocks)
		return sc_gate(c);
	prog = *(uint64_t *)&c->uc->uc_sigmask;
	remote_unblocked++;
	condor_sys4(SYS_rt_sigprocmask, SIG_SETMASK, &prog, 0, 8);
	/* The mask goes back on in the gate: see CONDOR_GATE_DONE. */
	r = condor_gate_masked(c->nr, c->a[0], c->a[1], c->a[2], c->a[3],
	    c->a[4], c->a[5], &full);
	remote_unblocked--;
	return r;
}

static long
sc_do(struct sc_call *c)
{
	return sc_do_mask(c, (sc_table[c->nr].flags & SCF_BLOCKS) != 0);
}

/* ---------------------------------------------------------------- */
/* The bookkeeping wrappers. */

static long
h_open(struct sc_call *c)
{
	const struct open_how *how;
	const char *path = 0;
	int dirfd = AT_FDCWD, flags = 0;
	mode_t m = 0;
	long r;

	r = sc_do(c);
	if (r < 0)
		return r;
	switch (c->nr) {
	case SYS_open:
		path = (const char *)c->a[0];
		flags = (int)c->a[1];
		m = (mode_t)c->a[2];
		break;
	case SYS_creat:
		path = (const char *)c->a[0];
		flags = O_CREAT | O_WRONLY | O_TRUNC;
		m = (mode_t)c->a[1];
		break;
	case SYS_openat:
		dirfd = (int)c->a[0];
		path = (const char *)c->a[1];
		flags = (int)c->a[2];
		m = (mode_t)c->a[3];
		break;
	case SYS_openat2:
		dirfd = (int)c->a[0];
		path = (const char *)c->a[1];
		how = (const struct open_how *)c->a[2];
		flags = (int)how->flags;
		m = (mode_t)how->mode;
		break;
	case SYS_open_by_handle_at:
		flags = (int)c->a[2];
		break;
	}
	lock();
	ft_opened((int)r, dirfd, path, flags, m);
	unlock();
	return r;
}

static long
h_close(struct sc_call *c)
{
	long r = sc_do(c);

	/* Linux frees the descriptor whatever close returns, but EBADF. */
	if (r != -EBADF) {
		lock();
		ft_closed((int)c->a[0]);
		unlock();
	}
	return r;
}

static long
h_close_range(struct sc_call *c)
{
	unsigned long first = (unsigned long)c->a[0], last = (unsigned long)c->a[1];
	unsigned long fd;
	long r = sc_do(c);

	if (r != 0)
		return r;
	lock();
	for (fd = first; fd <= last && fd < FT_MAXFD; fd++) {
		if (c->a[2] & CLOSE_RANGE_CLOEXEC)
			ft_set_cloexec((int)fd, 1);
		else
			ft_closed((int)fd);
	}
	unlock();
	return r;
}

static long
h_dup(struct sc_call *c)
{
	long r = sc_do(c);

	if (r < 0)
		return r;
	lock();
	if (c->nr == SYS_dup)
		ft_dup((int)c->a[0], (int)r, 0);
	else if (c->a[0] != c->a[1])
		ft_dup((int)c->a[0], (int)c->a[1],
		    c->nr == SYS_dup3 && (c->a[2] & O_CLOEXEC));
	unlock();
	return r;
}

static long
h_fcntl(struct sc_call *c)
{
	long r = sc_do(c);

	if (r < 0)
		return r;
	lock();
	switch ((int)c->a[1]) {
	case F_DUPFD:
		ft_dup((int)c->a[0], (int)r, 0);
		break;
	case F_DUPFD_CLOEXEC:
		ft_dup((int)c->a[0], (int)r, 1);
		break;
	case F_SETFD:
		ft_set_cloexec((int)c->a[0], (c->a[2] & FD_CLOEXEC) != 0);
		break;
	case F_SETFL:
		ft_set_flags((int)c->a[0], (int)c->a[2]);
		break;
	}
	unlock();
	return r;
}

static long
h_chdir(struct sc_call *c)
{
	long r = sc_do(c);

	if (r != 0)
		return r;
	lock();
	if (c->nr == SYS_chdir)
		ft_chdir(AT_FDCWD, (const char *)c->a[0]);
	else
		ft_chdir((int)c->a[0], 0);
	unlock();
	return r;
}

static long
h_other(struct sc_call *c)
{
	const char *what = "special file";
	long r = sc_do(c);
	int *pair = 0;

	if (r < 0)
		return r;
	switch (c->nr) {
	case SYS_pipe:
	case SYS_pipe2:
		pair = (int *)c->a[0];
		what = "pipe";
		break;
	case SYS_socketpair:
		pair = (int *)c->a[3];
		what = "socket";
		break;
	case SYS_socket:
	case SYS_accept:
	case SYS_accept4:
		what = "socket";
		break;
	case SYS_signalfd:
	case SYS_signalfd4:
		if (c->a[0] != -1)	/* changed an existing one */
			return r;
		what = "signalfd";
		break;
	case SYS_eventfd:
	case SYS_eventfd2:
		what = "eventfd";
		break;
	case SYS_timerfd_create:
		what = "timerfd";
		break;
	case SYS_epoll_create:
	case SYS_epoll_create1:
		what = "epoll";
		break;
	case SYS_memfd_create:
	case SYS_memfd_secret:
		what = "memfd";
		break;
	}
	lock();
	if (pair != 0) {
		ft_opened_other(pair[0], 0, what);
		ft_opened_other(pair[1], 0, what);
	} else
		ft_opened_other((int)r, 0, what);
	unlock();
	return r;
}

static int
virtual_index(long sig)
{
	switch (sig) {
	case SIGSYS:
		return 0;
	case CONDOR_SIG_CKPT:
		return 1;
	case CONDOR_SIG_VACATE:
		return 2;
	}
	return -1;
}

static long
h_sigaction(struct sc_call *c)
{
	const struct ksigaction *act = (const struct ksigaction *)c->a[1];
	struct ksigaction *oact = (struct ksigaction *)c->a[2], k, old;
	int i = virtual_index(c->a[0]);

	if (c->a[3] != 8)
		return -EINVAL;
	if (i >= 0) {
		/* Let the kernel check the pointers on a harmless call. */
		long r = condor_sys4(SYS_rt_sigaction, SIGUSR1, 0, oact, 8);

		if (r < 0)
			return r;
		lock();
		old = remote_virtual_action[i];
		if (act != 0)
			remote_virtual_action[i] = *act;
		unlock();
		if (oact != 0)
			*oact = old;
		return 0;
	}
	if (act == 0)
		return sc_gate(c);
	k = *act;
	k.mask &= ~CONDOR_SIGS;
	return condor_sys4(SYS_rt_sigaction, c->a[0], &k, oact, 8);
}

static long
h_sigprocmask(struct sc_call *c)
{
	uint64_t *cur = (uint64_t *)&c->uc->uc_sigmask;
	const uint64_t *set = (const uint64_t *)c->a[1];
	uint64_t *oset = (uint64_t *)c->a[2];
	uint64_t old, new;
	long r;

	if (c->a[3] != 8)
		return -EINVAL;
	/* The handler's mask is full: SIG_BLOCK changes nothing, but the
	 * kernel checks both pointers for us. */
	if ((r = condor_sys4(SYS_rt_sigprocmask, SIG_BLOCK, set, oset, 8)) < 0)
		return r;
	old = *cur | remote_virtual_blocked;
	if (set != 0) {
		switch (c->a[0]) {
		case SIG_BLOCK:
			new = old | *set;
			break;
		case SIG_UNBLOCK:
			new = old & ~*set;
			break;
		case SIG_SETMASK:
			new = *set;
			break;
		default:
			return -EINVAL;
		}
		remote_virtual_blocked = new & CONDOR_SIGS;
		*cur = new & ~(CONDOR_SIGS | SIGBIT(SIGKILL) | SIGBIT(SIGSTOP));
	}
	if (oset != 0)
		*oset = old;
	sys_pending_release();
	return 0;
}

/* rt_sigpending: a SIGSYS held for the program (user_sigsys) too. */
static long
h_sigpending(struct sc_call *c)
{
	uint64_t set;
	long r;

	if (c->a[1] != 8)
		return sc_gate(c);
	if ((r = condor_sys2(SYS_rt_sigpending, &set, 8)) < 0)
		return r;
	if (sys_pending)
		set |= SIGBIT(SIGSYS);
	if (remote_copy_out((void *)c->a[0], &set, sizeof(set)) !=
	    (long)sizeof(set))
		return -EFAULT;
	return 0;
}

/*
 * rt_sigtimedwait (sigwait, sigwaitinfo, sigtimedwait): a SIGSYS held
 * for the program (user_sigsys) is taken at once, with its siginfo, as
 * the kernel would take it from the pending set; otherwise the kernel
 * waits.  A SIGSYS sent meanwhile is the program's (the filter's own
 * never arrive in a thread that waits in the kernel), and Condor's
 * other two signals are left out of the set so that a checkpoint or a
 * vacate still reaches the library's handlers.
 */
static long
h_sigtimedwait(struct sc_call *c)
{
	uint64_t set;
	struct sc_call k;

	if (c->a[3] != 8)
		return sc_gate(c);
	if (remote_copy_in(&set, (const void *)c->a[0], 8) != 8)
		return -EFAULT;
	if ((set & SIGBIT(SIGSYS)) && sys_pending) {
		sys_pending = 0;
		if (c->a[1] != 0 && remote_copy_out((void *)c->a[1],
		    &sys_pending_info, sizeof(sys_pending_info)) !=
		    (long)sizeof(sys_pending_info))
			return -EFAULT;
		return SIGSYS;
	}
	set &= ~(CONDOR_SIGS & ~SIGBIT(SIGSYS));
	k = *c;
	k.a[0] = (long)&set;
	return sc_do_mask(&k, 1);
}

static long
h_sigsuspend(struct sc_call *c)
{
	uint64_t m;
	long r;

	if (c->a[1] != 8)
		return -EINVAL;
	uint64_t blocked = remote_virtual_blocked;

	m = *(const uint64_t *)c->a[0];
	/* For the program's SIGSYS, its mask while it waits. */
	remote_virtual_blocked = (blocked & ~SIGBIT(SIGSYS)) |
	    (m & SIGBIT(SIGSYS));
	sys_pending_release();
	m &= ~CONDOR_SIGS;
	remote_unblocked++;
	r = condor_sys2(SYS_rt_sigsuspend, &m, 8);
	remote_unblocked--;
	remote_virtual_blocked = blocked;
	return r;
}

static long
h_exit(struct sc_call *c)
{
	condor_ckpt_before_exit();
	return sc_gate(c);
}

long	remote_prior_usage[4];

/*
 * getrusage(RUSAGE_SELF): this process's usage plus that of the
 * program's runs before its last restart, as HTCondor's library
 * reported it: a program resumed elsewhere sees the CPU it has used in
 * all.  Other requests are the kernel's.
 */
static long
h_getrusage(struct sc_call *c)
{
	struct rusage ru;
	long r;

	if ((int)c->a[0] != RUSAGE_SELF)
		return sc_gate(c);
	if ((r = condor_sys2(SYS_getrusage, RUSAGE_SELF, &ru)) < 0)
		return r;
	ru.ru_utime.tv_sec += remote_prior_usage[0];
	ru.ru_utime.tv_usec += remote_prior_usage[1];
	ru.ru_stime.tv_sec += remote_prior_usage[2];
	ru.ru_stime.tv_usec += remote_prior_usage[3];
	if (ru.ru_utime.tv_usec >= 1000000) {
		ru.ru_utime.tv_sec++;
		ru.ru_utime.tv_usec -= 1000000;
	}
	if (ru.ru_stime.tv_usec >= 1000000) {
		ru.ru_stime.tv_sec++;
		ru.ru_stime.tv_usec -= 1000000;
	}
	if (remote_copy_out((void *)c->a[1], &ru, sizeof(ru)) !=
	    (long)sizeof(ru))
		return -EFAULT;
	return 0;
}

/*
 * times(): the earlier runs' CPU added to this process's as getrusage
 * adds it, in the kernel's clock ticks (USER_HZ, 100 a second on every
 * Linux, which is what sysconf(_SC_CLK_TCK) says).  The children's
 * times and the return value, ticks since an arbitrary moment, are the
 * kernel's.
 */
#define USER_HZ	100

static long
h_times(struct sc_call *c)
{
	struct tms t;
	long r;

	if ((r = condor_sys1(SYS_times, &t)) < 0 || c->a[0] == 0)
		return r;
	t.tms_utime += remote_prior_usage[0] * USER_HZ +
	    remote_prior_usage[1] / (1000000 / USER_HZ);
	t.tms_stime += remote_prior_usage[2] * USER_HZ +
	    remote_prior_usage[3] / (1000000 / USER_HZ);
	if (remote_copy_out((void *)c->a[0], &t, sizeof(t)) !=
	    (long)sizeof(t))
		return -EFAULT;
	return r;
}

/*
 * kill, tkill, tgkill.  Under Condor a job may signal itself (raise,
 * abort, a program's own kill(getpid(), sig)) and its own threads
 * (pthread_kill), nobody else: another process, its process group (0)
 * or every process (-1) is refused with EPERM, as the outer filter
 * refuses it from the gate.  Everywhere, a thread id the program knows
 * from before a restart becomes the kernel's (condor_ckpt_tid).  The signal is
 * pending while the handler runs and arrives when it returns.
 */
static long
h_kill(struct sc_call *c)
{
	long pid = condor_sys0(SYS_getpid);
	int self;

	if (c->nr == SYS_tgkill)
		c->a[1] = condor_ckpt_tid((int)c->a[1]);
	else if (c->nr == SYS_tkill)
		c->a[0] = condor_ckpt_tid((int)c->a[0]);
	if (mode != REMOTE_MODE_REMOTE)
		return sc_gate(c);	/* outside Condor */
	if (c->nr == SYS_tkill) {
		/* As tgkill in this process: the kernel refuses a thread of
		 * another one (ESRCH), and the outer filter lets it by. */
		c->nr = SYS_tgkill;
		c->a[2] = c->a[1];
		c->a[1] = c->a[0];
		c->a[0] = pid;
	}
	self = (int)c->a[0] == pid;	/* kill's pid, tgkill's tgid */
	return self ? sc_gate(c) : -EPERM;
}

/*
 * poll, ppoll, select, pselect6 under Condor: the job's descriptors are
 * files at the shadow, ready at once (remote_poll_ready).  When none is
 * asked about the call is a sleep: the same call with no descriptors,
 * run here with the program's mask, and the mask ppoll or pselect6
 * installs for the wait stripped of Condor's signals, as for sigsuspend.
 */
static long
h_poll(struct sc_call *c)
{
	struct sc_call s = *c;
	struct {
		const uint64_t	*set;
		size_t		 len;
	} sm;
	uint64_t m;
	long r;

	if (mode != REMOTE_MODE_REMOTE)
		return sc_do_mask(c, 1);	/* CONDOR_TRAP_ALL */
	if ((r = remote_poll_ready(c->nr, c->a)) != 0)
		return r;
	s.a[0] = 0;
	s.a[1] = 0;
	switch (c->nr) {
	case SYS_ppoll:
		if (c->a[3] == 0)
			break;
		if (c->a[4] != 8)
			return -EINVAL;
		if (remote_copy_in(&m, (const void *)c->a[3], 8) != 8)
			return -EFAULT;
		m &= ~CONDOR_SIGS;
		s.a[3] = (long)&m;
		break;
	case SYS_select:
	case SYS_pselect6:
		s.a[2] = 0;
		s.a[3] = 0;
		if (c->nr == SYS_select || c->a[5] == 0)
			break;
		if (remote_copy_in(&sm, (const void *)c->a[5], sizeof(sm)) !=
		    (long)sizeof(sm))
			return -EFAULT;
		if (sm.set != 0) {
			if (sm.len != 8)
				return -EINVAL;
			if (remote_copy_in(&m, sm.set, 8) != 8)
				return -EFAULT;
			m &= ~CONDOR_SIGS;
			sm.set = &m;
		}
		s.a[5] = (long)&sm;
		break;
	}
	return sc_do_mask(&s, 1);
}

/* ---------------------------------------------------------------- */
/* The program's SIGSYS. */

/*
 * A SIGSYS someone sent (not the seccomp filter's) while the program
 * blocks SIGSYS: held here, as the kernel would hold it, until the
 * program unblocks it (sigprocmask, sigsuspend, the end of a handler).
 */

/* Deliver a held SIGSYS if the program no longer blocks it: sent again,
 * it arrives once the trap's handler returns. */
static void
sys_pending_release(void)
{
	long pid, tid;

	if (!sys_pending || (remote_virtual_blocked & SIGBIT(SIGSYS)))
		return;
	sys_pending = 0;
	pid = condor_sys0(SYS_getpid);
	tid = condor_sys0(SYS_gettid);
	if (condor_sys4(SYS_rt_tgsigqueueinfo, pid, tid, SIGSYS,
	    &sys_pending_info) < 0)
		condor_sys3(SYS_tgkill, pid, tid, SIGSYS);
}

/*
 * A SIGSYS that did not come from the filter: what the program said it
 * wants.  Its handler runs as the kernel would run it: with its sa_mask
 * and (unless SA_NODEFER) SIGSYS blocked, for the program, while the
 * real SIGSYS stays unblocked so that the trap keeps working in it; the
 * mask as it was when it returns.
 */
static void
user_sigsys(int sig, siginfo_t *si, ucontext_t *uc)
{
	struct ksigaction va = remote_virtual_action[0];
	uint64_t blocked = remote_virtual_blocked, m, old;

	if (blocked & SIGBIT(SIGSYS)) {
		sys_pending = 1;
		sys_pending_info = *si;
		return;
	}
	if (va.handler == (uint64_t)SIG_IGN)
		return;
	if (va.handler == (uint64_t)SIG_DFL) {
		/* Default: die of it. */
		struct ksigaction dfl = { 0, 0, 0, 0 };

		m = SIGBIT(SIGSYS);
		condor_sys4(SYS_rt_sigaction, SIGSYS, &dfl, 0, 8);
		condor_sys4(SYS_rt_sigprocmask, SIG_UNBLOCK, &m, 0, 8);
		condor_sys2(SYS_kill, condor_sys0(SYS_getpid), SIGSYS);
		return;
	}
	if (va.flags & SA_RESETHAND) {
		lock();
		remote_virtual_action[0].handler = (uint64_t)SIG_DFL;
		remote_virtual_action[0].flags &= ~SA_SIGINFO;
		unlock();
	}
	remote_virtual_blocked |= va.mask & CONDOR_SIGS;
	if (!(va.flags & SA_NODEFER))
		remote_virtual_blocked |= SIGBIT(SIGSYS);
	m = (*(uint64_t *)&uc->uc_sigmask | va.mask) &
	    ~(CONDOR_SIGS | SIGBIT(SIGKILL) | SIGBIT(SIGSTOP));
	condor_sys4(SYS_rt_sigprocmask, SIG_SETMASK, &m, &old, 8);
	if (va.flags & SA_SIGINFO)
		((void (*)(int, siginfo_t *, void *))va.handler)(sig, si, uc);
	else
		((void (*)(int))va.handler)(sig);
	condor_sys4(SYS_rt_sigprocmask, SIG_SETMASK, &old, 0, 8);
	remote_virtual_blocked = blocked;
	sys_pending_release();
}

/* ---------------------------------------------------------------- */
/* The handler. */

static void
sigsys_handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *g = uc->uc_mcontext.gregs;
	const struct sc_entry *e;
	struct sc_call c;
	int action;
	long r;

	if (si->si_code != SYS_SECCOMP) {
		/* Sent by someone: the program's own disposition decides. */
		user_sigsys(sig, si, uc);
		return;
	}
	remote_in_call = 1;
	c.nr = si->si_syscall;
	c.a[0] = g[REG_RDI];
	c.a[1] = g[REG_RSI];
	c.a[2] = g[REG_RDX];
	c.a[3] = g[REG_R10];
	c.a[4] = g[REG_R8];
	c.a[5] = g[REG_R9];
	c.uc = uc;
	if (si->si_arch != AUDIT_ARCH_X86_64 || c.nr < 0 || c.nr >= SC_MAX) {
		g[REG_RAX] = -ENOSYS;
		remote_in_call = 0;
		return;
	}
	e = &sc_table[c.nr];
	action = mode == REMOTE_MODE_REMOTE ? e->remote : e->local;
	switch (action) {
	case SC_DEFAULT:
		if (mode == REMOTE_MODE_REMOTE) {
			r = -ENOSYS;
			break;
		}
		/* trapped only with CONDOR_TRAP_ALL */
		__attribute__((fallthrough));
	case SC_NATIVE:
	case SC_REMOTE:		/* issue 4: until then, performed here */
		if (c.nr == SYS_sigaltstack) {
			/* sigreturn reinstalls uc_stack: change it there. */
			r = sc_gate(&c);
			if (r == 0 && c.a[0] != 0)
				condor_sys2(SYS_sigaltstack, 0, &uc->uc_stack);
			break;
		}
		if (e->fn != 0) {
			r = e->fn(&c);
			break;
		}
		r = sc_do_mask(&c, trap_all || may_wait(c.nr));
		break;
	case SC_LOCAL:
		r = e->fn != 0 ? e->fn(&c) : sc_gate(&c);
		break;
	case SC_REFUSE:
	default:
		r = -e->err;
		break;
	}
	g[REG_RAX] = r;
	remote_in_call = 0;
	if (remote_deferred_sig != 0 && remote_unblocked == 0) {
		/* A checkpoint came while the call was finishing: now. */
		int sig = remote_deferred_sig;

		remote_deferred_sig = 0;
		condor_sys3(SYS_tgkill, condor_sys0(SYS_getpid),
		    condor_sys0(SYS_gettid), sig);
	}
}

/* ---------------------------------------------------------------- */
/* Installing the trap. */

#define MAX_FILTER	256

static struct sock_filter filter[MAX_FILTER];
static int		  nfilter;

static void
emit(uint16_t code, uint8_t jt, uint8_t jf, uint32_t k)
{
	struct sock_filter f = { code, jt, jf, k };

	if (nfilter < MAX_FILTER)
		filter[nfilter++] = f;
}

#define LD(off)		emit(BPF_LD | BPF_W | BPF_ABS, 0, 0, (off))
#define RET(v)		emit(BPF_RET | BPF_K, 0, 0, (v))
#define JEQ(k, t, f)	emit(BPF_JMP | BPF_JEQ | BPF_K, (t), (f), (k))
#define JGE(k, t, f)	emit(BPF_JMP | BPF_JGE | BPF_K, (t), (f), (k))
#define OFF_NR		offsetof(struct seccomp_data, nr)
#define OFF_ARCH	offsetof(struct seccomp_data, arch)
#define OFF_IP_LO	offsetof(struct seccomp_data, instruction_pointer)
#define OFF_IP_HI	(offsetof(struct seccomp_data, instruction_pointer) + 4)
#define OFF_ARG_LO(i)	offsetof(struct seccomp_data, args[i])
#define OFF_ARG_HI(i)	(offsetof(struct seccomp_data, args[i]) + 4)

/* The executable part of our own program: [lo, hi). */
static void
text_range(uint64_t *lo, uint64_t *hi)
{
	extern char __executable_start[], etext[];

	*lo = (uint64_t)__executable_start;
	*hi = (uint64_t)etext;
}

/*
 * The filter, in order:
 *   foreign architecture (int 0x80): ALLOW in local mode, TRAP in remote
 *   local mode: numbers not in the trapped set: ALLOW (constant on the
 *     number alone, so the kernel's seccomp cache answers them at no cost)
 *   rt_sigreturn: ALLOW
 *   instruction pointer inside the gate page: ALLOW
 *   local mode: outside our own text (an exec'd foreign program, the
 *     vDSO's fallbacks): ALLOW
 *   TRAP
 */
static int
build_filter(void)
{
	uint64_t lo, hi;
	int i, n, jumps[SC_MAX], nj = 0, check_ip;
	long nr;

	text_range(&lo, &hi);
	if (hi > 0xffffffffULL || lo >= hi)
		return -ENOEXEC;	/* not a static non-PIE program */
	nfilter = 0;
	LD(OFF_ARCH);
	JEQ(AUDIT_ARCH_X86_64, 1, 0);
	RET(mode == REMOTE_MODE_LOCAL ? SECCOMP_RET_ALLOW : SECCOMP_RET_TRAP);
	LD(OFF_NR);
	if (mode == REMOTE_MODE_REMOTE) {
		/*
		 * A thread (glibc's pthread_create) starts where clone
		 * returns, never inside a signal handler: let it through
		 * (the outer filter allows these flags alone); any other
		 * clone goes on as any call (the number loaded again):
		 * trapped and refused, or from the gate the outer filter's
		 * EPERM.
		 */
		JEQ(SYS_clone, 0, 6);
		LD(OFF_ARG_HI(0));
		JEQ(0, 0, 3);
		LD(OFF_ARG_LO(0));
		JEQ(BOX_CLONE_THREAD, 0, 1);
		RET(SECCOMP_RET_ALLOW);
		LD(OFF_NR);
	}
	if (mode == REMOTE_MODE_LOCAL && !trap_all) {
		for (nr = 0; nr < SC_MAX; nr++) {
			if (sc_table[nr].local == SC_DEFAULT ||
			    never_trapped_locally(nr))
				continue;
			jumps[nj++] = nfilter;
			JEQ((uint32_t)nr, 0, 0);	/* jt patched below */
		}
		RET(SECCOMP_RET_ALLOW);
	} else if (mode == REMOTE_MODE_LOCAL) {
		for (nr = 0; nr < SC_MAX; nr++)
			if (never_trapped_locally(nr) &&
			    nr != SYS_rt_sigreturn) {
				JEQ((uint32_t)nr, 0, 1);
				RET(SECCOMP_RET_ALLOW);
			}
	}
	/* check_ip: */
	check_ip = nfilter;
	for (i = 0; i < nj; i++) {
		n = check_ip - jumps[i] - 1;
		if (n > 255)
			return -E2BIG;
		filter[jumps[i]].jt = (uint8_t)n;
	}
	JEQ(SYS_rt_sigreturn, 0, 1);
	RET(SECCOMP_RET_ALLOW);
	LD(OFF_IP_HI);
	JEQ(0, 1, 0);
	RET(mode == REMOTE_MODE_LOCAL ? SECCOMP_RET_ALLOW : SECCOMP_RET_TRAP);
	LD(OFF_IP_LO);
	/* The gate page: ALLOW. */
	JGE((uint32_t)CONDOR_GATE_ADDR, 0, 2);
	JGE((uint32_t)(CONDOR_GATE_ADDR + CONDOR_GATE_SIZE), 1, 0);
	RET(SECCOMP_RET_ALLOW);
	if (mode == REMOTE_MODE_LOCAL) {
		JGE((uint32_t)lo, 0, 2);
		JGE((uint32_t)hi, 1, 0);
		RET(SECCOMP_RET_TRAP);
		RET(SECCOMP_RET_ALLOW);
	} else
		RET(SECCOMP_RET_TRAP);
	return nfilter < MAX_FILTER ? 0 : -E2BIG;
}

int
remote_trap_install(enum remote_mode m, int all)
{
	struct sock_fprog prog;
	struct ksigaction sa;
	long r;

	/* Under Condor (remote_client_init found the shadow's socket). */
	if (remote_syscall_fd >= 0)
		m = REMOTE_MODE_REMOTE;
	mode = m;
	trap_all = all;
	if ((r = build_filter()) < 0)
		return (int)r;
	if (m == REMOTE_MODE_REMOTE && (r = remote_outer_install()) < 0)
		return (int)r;
	cj_memset(&sa, 0, sizeof(sa));
	sa.handler = (uint64_t)sigsys_handler;
	sa.flags = SA_SIGINFO | SA_RESTORER;
	sa.restorer = (uint64_t)condor_restore_rt;
	sa.mask = ~(SYNC_SIGS | SIGBIT(SIGKILL) | SIGBIT(SIGSTOP));
	if ((r = condor_sys4(SYS_rt_sigaction, SIGSYS, &sa, 0, 8)) < 0)
		return (int)r;
	if ((r = condor_sys5(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) < 0)
		return (int)r;
	prog.len = (unsigned short)nfilter;
	prog.filter = filter;
	r = condor_sys3(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_SPEC_ALLOW, &prog);
	if (r == -EINVAL)
		r = condor_sys3(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
	if (r == 0 && m == REMOTE_MODE_REMOTE)
		remote_client_start();
	return (int)r;
}

/* ---------------------------------------------------------------- */
/* The gate page. */

static long
raw_syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall" : "=a"(ret)
	    : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
	    : "rcx", "r11", "memory");
	return ret;
}

int
condor_gate_install(void)
{
	size_t n = (size_t)(condor_gate_template_end - condor_gate_template);
	long r;

	r = raw_syscall6(SYS_mmap, (long)CONDOR_GATE_ADDR, CONDOR_GATE_SIZE,
	    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_FIXED_NOREPLACE, -1, 0);
	if (r == -EEXIST) {
		/* Mapped already (condor_ckpt_entry did it)? */
		unsigned char v = 0;
		size_t i;

		if (raw_syscall6(SYS_mincore, (long)CONDOR_GATE_ADDR,
		    CONDOR_GATE_SIZE, (long)&v, 0, 0, 0) < 0)
			return -EEXIST;
		for (i = 0; i < n; i++)
			if (((const char *)CONDOR_GATE_ADDR)[i] !=
			    condor_gate_template[i])
				return -EEXIST;
		return 0;
	}
	if (r < 0)
		return (int)r;
	if ((unsigned long)r != CONDOR_GATE_ADDR) {
		raw_syscall6(SYS_munmap, r, CONDOR_GATE_SIZE, 0, 0, 0, 0);
		return -EEXIST;
	}
	cj_memcpy((void *)CONDOR_GATE_ADDR, condor_gate_template, n);
	r = raw_syscall6(SYS_mprotect, (long)CONDOR_GATE_ADDR,
	    CONDOR_GATE_SIZE, PROT_READ | PROT_EXEC, 0, 0, 0);
	return (int)r;
}
