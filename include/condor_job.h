/*
 * condor_job.h: private interface between the pieces linked into a
 * relinked job: the start-up object (lib/condor_rt0.o), the checkpoint
 * library (lib/libcondor_ckpt.a, src/libckpt) and the system-call library
 * (lib/libcondor_remote.a, src/libremote).  Nothing here is for users;
 * their header is condor_ckpt.h.
 *
 * Rules for code behind this header: it runs inside signal handlers and,
 * for the restart, while the process's memory is being replaced, so it
 * allocates nothing, uses no stdio, and makes every system call through
 * the gate (condor_sys*), never through libc.
 */
#ifndef CONDOR_JOB_H
#define CONDOR_JOB_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <ucontext.h>

/*
 * The gate: the only place the library issues `syscall` from.  The code
 * (remote_gate.S, section .condor_gate, between condor_gate_template and
 * condor_gate_template_end) is copied at start-up into one page at this
 * fixed address, the same in every relinked program, so that the seccomp
 * filter of a relinked program also lets through the gate of a relinked
 * program it execs, and the starter's outer filter can name it.
 */
#define CONDOR_GATE_ADDR	0x200000UL
#define CONDOR_GATE_SIZE	4096UL

extern const char	condor_gate_template[], condor_gate_template_end[];
extern const char	condor_gate_template_ret[];
/* The address right after the gate's `syscall`: a signal interrupting a
 * gate call that has completed finds its RIP here (one that must be
 * restarted, at the `syscall` itself). */
#define CONDOR_GATE_RET	(CONDOR_GATE_ADDR + \
	(unsigned long)(condor_gate_template_ret - condor_gate_template))

typedef long (*condor_gate_fn)(long, long, long, long, long, long, long);
#define condor_gate	((condor_gate_fn)CONDOR_GATE_ADDR)

/*
 * The gate's second entry: the call, then the signal mask *MASK put
 * back, for calls that wait with the program's signals unblocked.  A
 * signal whose RIP is in CONDOR_GATE_DONE(rip) came after such a call
 * completed and before the mask was back: its bookkeeping is not done.
 */
extern const char	condor_gate_template_masked[];
extern const char	condor_gate_template_masked_ret[];
extern const char	condor_gate_template_masked_done[];
typedef long (*condor_gate_masked_fn)(long, long, long, long, long, long,
    long, const uint64_t *);
#define CONDOR_GATE_AT(sym)	(CONDOR_GATE_ADDR + \
	(unsigned long)((sym) - condor_gate_template))
#define condor_gate_masked \
	((condor_gate_masked_fn)CONDOR_GATE_AT(condor_gate_template_masked))
#define CONDOR_GATE_DONE(rip) \
	((rip) == CONDOR_GATE_RET || \
	((rip) >= CONDOR_GATE_AT(condor_gate_template_masked_ret) && \
	(rip) <= CONDOR_GATE_AT(condor_gate_template_masked_done)))

/* A system call through the gate: the raw result (-errno on error). */
#define condor_sys0(n)			condor_gate((n), 0, 0, 0, 0, 0, 0)
#define condor_sys1(n, a)		condor_gate((n), (long)(a), 0, 0, 0, 0, 0)
#define condor_sys2(n, a, b)		condor_gate((n), (long)(a), (long)(b), 0, 0, 0, 0)
#define condor_sys3(n, a, b, c)		condor_gate((n), (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define condor_sys4(n, a, b, c, d)	condor_gate((n), (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)
#define condor_sys5(n, a, b, c, d, e)	condor_gate((n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), 0)
#define condor_sys6(n, a, b, c, d, e, f) condor_gate((n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))

/*
 * condor_gate_install: map the gate page.  The first call uses an inline
 * `syscall` (nothing is trapped yet in a fresh process).  Returns 0 or
 * -errno.
 */
int	condor_gate_install(void);

/* The signals that belong to Condor in a relinked program. */
#define CONDOR_SIG_CKPT		SIGUSR2		/* checkpoint and go on */
#define CONDOR_SIG_VACATE	SIGTSTP		/* checkpoint and exit 85 */
#define CONDOR_VACATE_STATUS	85
#define SIGBIT(s)		(1ULL << ((s) - 1))
#define CONDOR_SIGS		(SIGBIT(SIGSYS) | SIGBIT(CONDOR_SIG_CKPT) | \
				 SIGBIT(CONDOR_SIG_VACATE))

#ifndef SA_RESTORER
#define SA_RESTORER		0x04000000
#endif

/* The kernel's struct sigaction, as rt_sigaction takes it. */
struct ksigaction {
	uint64_t	handler;
	uint64_t	flags;
	uint64_t	restorer;
	uint64_t	mask;
};

/* ---------------------------------------------------------------- */
/* The system-call trap (src/libremote/remote_trap.c). */

enum remote_mode {
	REMOTE_MODE_LOCAL = 1,	/* outside Condor: calls run here */
	REMOTE_MODE_REMOTE,	/* under Condor: file calls go to the shadow
				   (issue 4; not built yet) */
};

/*
 * remote_trap_install: install the SIGSYS handler, then the seccomp
 * filter (after PR_SET_NO_NEW_PRIVS).  TRAP_ALL: trap every call made
 * outside the gate (the remote mode's filter; in local mode a test aid,
 * CONDOR_TRAP_ALL=1), else only the calls the file table and the signal
 * bookkeeping need.  Returns 0 or -errno.
 */
int	remote_trap_install(enum remote_mode, int trap_all);
enum remote_mode remote_mode(void);
/* After a restart replaced the library's memory: the new process's mode
 * (the filter itself was installed before the replacement). */
void	remote_trap_restored(enum remote_mode, int trap_all);

/*
 * The program's own view of the signals Condor keeps for itself: the
 * dispositions it asked for (not installed) and whether it asked to
 * block them (they are never blocked in the kernel).
 */
extern struct ksigaction remote_virtual_action[3];	/* SYS, USR2, TSTP */
extern uint64_t	remote_virtual_blocked;

/* Nonzero while the trap handler is running (in this thread). */
extern __thread volatile int remote_in_call;
/*
 * Calls that may wait (open of a FIFO, a lock, sigsuspend) run inside
 * the trap handler with the program's signal mask, so a checkpoint
 * signal can come while one is in flight: remote_unblocked counts them.
 * If it comes after the call completed but before the handler did its
 * bookkeeping (a new descriptor not yet in the file table), CKPT() must
 * not take the checkpoint: it stores the signal in remote_deferred_sig
 * and returns, and the handler raises it again once it is done.  Both
 * are the calling thread's own.
 */
extern __thread volatile int remote_unblocked;
extern __thread volatile int remote_deferred_sig;

/* ---------------------------------------------------------------- */
/* The open-file table (src/libremote/remote_files.c). */

#define FT_MAXFD	4096	/* descriptors tracked: 0 .. FT_MAXFD-1 */
#define FT_MAXFILES	256	/* open file descriptions */

enum ft_kind {
	FT_FREE = 0,
	FT_FILE,		/* opened by path: restorable */
	FT_INHERITED,		/* open before main: the restart's own */
	FT_OTHER,		/* pipe, socket, eventfd...: not restorable */
};

struct ft_file {
	int		kind;		/* enum ft_kind */
	int		refs;		/* descriptors sharing it */
	int		flags;		/* open flags (O_ACCMODE, O_APPEND...) */
	mode_t		mode;
	const char	*what;		/* FT_OTHER: "pipe", "socket"... */
	char		path[PATH_MAX];	/* absolute; "" if unknown */
};

struct ft_fd {
	int16_t		file;		/* index + 1 into ft_files; 0: closed */
	uint8_t		cloexec;
};

extern struct ft_file	ft_files[FT_MAXFILES];
extern struct ft_fd	ft_fds[FT_MAXFD];
extern char		ft_cwd[PATH_MAX];
extern int		ft_overflow;	/* a descriptor or file went untracked */

/* remote_files_init: record inherited descriptors and the cwd. */
void	remote_files_init(void);
/* Bookkeeping after a successful call (the trap calls these). */
void	ft_opened(int fd, int dirfd, const char *path, int flags, mode_t);
void	ft_opened_other(int fd, int flags, const char *what);
void	ft_closed(int fd);
void	ft_dup(int oldfd, int newfd, int cloexec);
void	ft_set_cloexec(int fd, int on);
void	ft_set_flags(int fd, int flags);
void	ft_chdir(int dirfd, const char *path);
/* ft_resolve: DIRFD + PATH as an absolute, normalized path into OUT. */
int	ft_resolve(int dirfd, const char *path, char *out, size_t outlen);

/* ---------------------------------------------------------------- */
/* The checkpoint library (src/libckpt). */

/* Start-up, called from condor_rt0.o's constructor (before main). */
void	condor_ckpt_startup(int argc, char **argv, char **envp);
/* Called by condor_rt0.o's __wrap_main, just before main: takes the
 * library's -_condor_* flags out of ARGV; the new argc. */
int	condor_ckpt_main_args(int argc, char **argv, char **envp);
/* Called by the trap before exit_group: finish a checkpoint in flight. */
void	condor_ckpt_before_exit(void);
/* The kernel's id of the thread the program knows as TID (they differ
 * for a thread a restart made again: ckpt_threads.c); the trap's
 * tgkill and tkill use it. */
int	condor_ckpt_tid(int tid);

/* Small string and memory helpers safe on every path (no libc). */
size_t	cj_strlen(const char *);
size_t	cj_strlcpy(char *, const char *, size_t);
size_t	cj_strlcat(char *, const char *, size_t);
int	cj_strcmp(const char *, const char *);
int	cj_strncmp(const char *, const char *, size_t);
long	cj_env_number(char **envp, const char *name, long max, long dflt);
void	cj_memcpy(void *, const void *, size_t);
void	cj_memset(void *, int, size_t);
char	*cj_utoa(unsigned long long v, char *buf, int base);
/* Write a message to stderr through the gate: "condor: " + the parts. */
void	cj_say(const char *, ...);

#endif
