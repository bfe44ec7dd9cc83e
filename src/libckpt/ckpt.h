/*
 * ckpt.h: private to src/libckpt, the checkpoint library linked into every
 * relinked program (lib/libcondor_ckpt.a, started by lib/condor_rt0.o).
 *
 *	ckpt_startup.c	before main: the gate, a fixed layout (re-exec),
 *			restart or first start, the handlers and the trap
 *	ckpt.c		CKPT(), the signal handler that takes checkpoints;
 *			ckpt() and ckpt_and_exit()
 *	ckpt_state.c	gathering the process's state and memory map into
 *			a restart state (ckptfile.h)
 *	ckpt_core.c	writing an ELF core instead of a checkpoint
 *	ckpt_restart.c	resuming from a checkpoint
 *	ckpt_threads.c	a program's other threads: stopped before a
 *			checkpoint, made again by a restart
 *	ckpt_lazy.c	memory brought back on demand after a restart
 *	ckpt_incr.c	the pages written since the last checkpoint
 *			(incremental checkpoints)
 *	ckpt_asm.S	context save/jump, stack switch
 */
#ifndef CONDOR_CKPT_PRIVATE_H
#define CONDOR_CKPT_PRIVATE_H

#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <ucontext.h>

#include "ckptfile.h"
#include "condor_job.h"

/*
 * The library's own state.  It lives in the program's memory and so is
 * checkpointed and restored with it; what must describe the restarting
 * environment instead (where to write the next checkpoint, the trap's
 * mode) the restart overwrites from a struct ckpt_fixup.
 */
struct ckpt_globals {
	char		 program[256];	/* the program's file name */
	char		 target[PATH_MAX];	/* where checkpoints go */
	char		 core_target[PATH_MAX];	/* "": write checkpoints */
	int		 fork_writer;	/* periodic checkpoints in a child */
	int		 notify_fd;	/* -1, or where to say "ok PATH" */
	uint64_t	 exe_len;	/* the original executable */
	uint64_t	 exe_shoff;
	uint32_t	 exe_shnum, exe_shstrndx;
	uint8_t		 build_id[32];
	uint32_t	 build_id_len;
	long		 writer_pid;	/* a periodic checkpoint being written */
	int		 sync_request;	/* ckpt() waits for the writer */
	int		 last_result;	/* for ckpt(): 0, 1 restarted, -1 */
	uint64_t	 scratch_addr;	/* the restart's, unmapped by CKPT */
	uint64_t	 scratch_len;
	unsigned	 generation;	/* restarts so far */
	long		 lazy_fd;	/* -1, or EOF when memory restored
					   on demand is all back */
	/* Incremental checkpoints (ckpt_incr.c). */
	int		 incremental;	/* CONDOR_CKPT_INCREMENTAL */
	uint32_t	 max_deltas;	/* deltas before a full image */
	long		 trk_uffd;	/* -1, or the tracker's userfaultfd */
	int		 trk_ok;	/* pages tracked since last_id */
	uint32_t	 chain;		/* deltas since the last full one */
	uint64_t	 last_id;	/* the last image written */
	const char	*incr_why;	/* why every checkpoint is full */
};

extern struct ckpt_globals ckpt_g;

struct ckpt_fixup {
	char		 target[PATH_MAX];
	char		 core_target[PATH_MAX];
	int		 fork_writer;
	int		 notify_fd;
	int		 mode;
	int		 trap_all;
	int		 restore;	/* CKPT_RESTORE_* (CONDOR_RESTORE) */
	long		 uffd_dev;	/* -1, or /dev/userfaultfd from the
					   starter (CONDOR_UFFD_FD) */
	int		 incremental;	/* CONDOR_CKPT_INCREMENTAL=1 */
	uint32_t	 max_deltas;	/* CONDOR_CKPT_MAX_DELTAS */
};

/* The most deltas CONDOR_CKPT_MAX_DELTAS may allow in a chain. */
#define CKPT_MAX_DELTAS_LIMIT	64

#define CKPT_RESTORE_AUTO	0
#define CKPT_RESTORE_EAGER	1
#define CKPT_RESTORE_LAZY	2

/* Read the environment (CONDOR_CKPT_FILE, _CORE, _FORK, _NOTIFY_FD,
 * CONDOR_TRAP_ALL)
 * of this process into F; PROGRAM names the default target. */
void	ckpt_fixup_from_env(struct ckpt_fixup *f, const char *program,
	    char **envp);

int	ckpt_ctx_save(struct ckpt_ctx *) __attribute__((returns_twice));
void	ckpt_ctx_jump(const struct ckpt_ctx *, int) __attribute__((noreturn));
void	ckpt_call_on_stack(void (*)(void *), void *, void *)
	    __attribute__((noreturn));

/*
 * Building a restart state (ckpt_state.c).  All memory comes from one
 * scratch mapping made at checkpoint time (MAP_NORESERVE: only what is
 * touched costs), never from malloc.
 */
#define CB_MAX_REGIONS	65536
#define CB_MAX_EXTENTS	(1 << 20)
#define CB_MAX_FILES	FT_MAXFILES
#define CB_MAX_FDS	FT_MAXFD
#define CB_STRTAB	(4u << 20)	/* bytes */
#define CB_MAPSBUF	(16u << 20)	/* bytes for /proc/self/maps */
#define CB_IOBUF	(4u << 20)	/* bytes: the writer's buffer */
#define CB_MAX_DIRTY	(1u << 20)	/* page runs written since */
#define CB_MAX_TRACKED	65536

struct ckpt_range {
	uint64_t	 start, end;
};

struct ckpt_build {
	char			*scratch;
	size_t			 scratch_len;
	struct ckpt_head	*head;	/* built here, then packed */
	struct ckpt_region	*regions;
	uint32_t		 nregions;
	struct ckpt_extent	*extents;
	uint32_t		 nextents;
	struct ckpt_file	*files;
	uint32_t		 nfiles;
	struct ckpt_fd		*fds;
	uint32_t		 nfds;
	char			*strtab;
	uint32_t		 strtab_len;
	char			*mapsbuf;
	char			*iobuf;
	struct ckpt_head	*packed;	/* the final state */
	uint64_t		 packed_len;
	uint32_t		 prot_fixed;	/* regions made readable */
	/* A delta (ckpt_incr.c): the ranges tracked since the parent
	 * image, and the page runs written there since (in order). */
	int			 delta;
	struct ckpt_range	*tracked;
	uint32_t		 ntracked;
	struct ckpt_range	*dirty;
	uint32_t		 ndirty;
	struct ckpt_range	*spare;	/* for merging dirty runs */
};

int	ckpt_build_init(struct ckpt_build *, const char **why);
void	ckpt_build_free(struct ckpt_build *);
/* The process: signals, timers, registers, files (in the handler). */
int	ckpt_build_process(struct ckpt_build *, int sig, ucontext_t *uc,
	    const struct ckpt_ctx *ctx, const char **why);
/* The memory: regions, then the extents worth saving. */
int	ckpt_build_memory(struct ckpt_build *, const char **why);
/* Pack head and tables into one state (b->packed). */
int	ckpt_build_pack(struct ckpt_build *, const char **why);
/* After writing: give back the read access lent to PROT_NONE regions. */
void	ckpt_build_restore_prot(struct ckpt_build *);
uint32_t ckpt_build_str(struct ckpt_build *, const char *);

/*
 * Incremental checkpoints (ckpt_incr.c).  ckpt_incr_snapshot, in CKPT()
 * just before the image is taken: with DELTA, lists what was written
 * since the last checkpoint into B (1: a delta can be written; 0: write
 * a full image) and protects it all again; without, only protects.
 * ckpt_incr_tracked: whether [lo, hi) was tracked, so that its pages
 * outside B's dirty runs are the parent image's.
 */
int	ckpt_incr_snapshot(struct ckpt_build *b, int delta);
/* The tracking userfaultfd (under Condor made before the sandbox's
 * filters, which refuse it): its descriptor, or -1 and *WHY. */
long	ckpt_incr_open(const char **why);
int	ckpt_incr_tracked(const struct ckpt_build *b, uint64_t lo,
	    uint64_t hi);

/* The core writer (ckpt_core.c): a core with the CONDOR note to FD. */
int	ckpt_core_write(int fd, struct ckpt_build *, ucontext_t *uc,
	    const char **why);

/* Set by ckpt_entry_check when it verified the executable part. */
extern int	ckpt_exe_verified;

/* Resuming (ckpt_restart.c); never returns. */
void	ckpt_restart(const struct ckpt_marker *, char **envp)
	    __attribute__((noreturn));

/*
 * Restoring memory on demand (ckpt_lazy.c).  ckpt_lazy_start, before
 * the sandbox's filters: 1 and a helper waiting, or 0 and L->why (read
 * everything now).  Then ckpt_lazy_register each lazy region once it is
 * fresh anonymous memory, and ckpt_lazy_go: the helper starts; the
 * descriptor that reaches EOF when it is done (ckpt_g.lazy_fd), or -1
 * and L->why.  ckpt_lazy_finish, before a checkpoint: waits for it.
 */
struct ckpt_lazy {
	long		 uffd, go_fd, done_fd;
	uint64_t	 bytes;
	const char	*why;
};
int	ckpt_lazy_start(struct ckpt_lazy *l, const struct ckpt_head *h,
	    long exe_fd, long notify_fd, int want, long devfd, int can_fork);
int	ckpt_lazy_register(struct ckpt_lazy *l, uint64_t start, uint64_t len);
long	ckpt_lazy_go(struct ckpt_lazy *l, int registered);
void	ckpt_lazy_finish(void);

/* CKPT() on the checkpoint signals (ckpt.c); 0 or -errno. */
int	ckpt_install_handlers(void);
/* Where the checkpoints go from now on (a path, made absolute). */
void	ckpt_set_target(const char *path);
/* Write all of BUF to FD through the gate; 0 or -errno. */
int	ckpt_out_write(long fd, const void *buf, size_t len);

/*
 * Several threads (ckpt_threads.c).  ckpt_threads_init at first start,
 * in the main thread.  In CKPT(): ckpt_threads_is_stop tells a
 * coordinator's request to stop, on which the thread calls
 * ckpt_threads_park; otherwise the thread that takes the checkpoint
 * calls ckpt_threads_stop first (how many threads it parked, or -1 and
 * *why) and ckpt_threads_release once they may go on (on every path,
 * the restarted one too).  In a restart, with the memory back,
 * ckpt_threads_restart makes them again (0, or -1 and *why; it does
 * not return when the coordinator was not the main thread: the restart's
 * thread resumes the main one), and the coordinator, back in CKPT(), calls
 * ckpt_threads_restarted before it releases them.
 */
#define CKPT_MAX_THREADS	1024
void	ckpt_threads_init(void);
int	ckpt_threads_is_stop(int sig, const siginfo_t *si);
void	ckpt_threads_park(void);
int	ckpt_threads_stop(const char **why);
void	ckpt_threads_release(void);
int	ckpt_threads_restart(const struct ckpt_head *h, const char **why);
void	ckpt_threads_restarted(void);

/* start_brk from /proc/self/stat; 0 if unknown. */
uint64_t ckpt_start_brk(void);

/*
 * /proc under Condor (ckpt_proc.c): /proc/self/maps, stat, exe, pagemap,
 * task,
 * opened before the sandbox's outer filter from the starter's
 * CONDOR_PROC_FD (the job's own procfs) and kept.  ckpt_proc_cache
 * opens them into FDS (-1 each when there is no CONDOR_PROC_FD);
 * ckpt_proc_open gives a fresh descriptor of PATH at offset 0 (the
 * caller closes it), from the cache when it has PATH, else opened by
 * name.
 */
#define CKPT_PROC_N		5	/* maps, stat, exe, pagemap, task */
#define CKPT_PROC_FD_LOW	900
extern long	ckpt_proc_fds[CKPT_PROC_N];
void	ckpt_proc_cache(char **envp, long fds[CKPT_PROC_N]);
long	ckpt_proc_open(const char *path);

#endif
