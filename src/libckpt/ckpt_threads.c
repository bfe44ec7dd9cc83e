/*
 * ckpt_threads.c: checkpointing a program that runs several threads.
 *
 * The thread that takes the checkpoint signal (the coordinator) stops
 * every other thread at a safe point before it saves anything: it lists
 * /proc/self/task and sends each other thread SIGUSR2 with a marked
 * siginfo (rt_tgsigqueueinfo, SI_QUEUE, STOP_MAGIC).  SIGUSR2 is
 * Condor's already and never blocked in the kernel (remote_trap.c), so
 * the request reaches a thread whatever mask the program gave it; CKPT()
 * runs, sees the mark, and parks the thread: its callee-saved context
 * (inside this signal handler, so that the interrupted registers, the
 * signal mask and the alternate stack come back through sigreturn), its
 * thread pointer and its mask go into a slot of the table below, and it
 * waits on a futex until the coordinator releases it.  The coordinator
 * lists the threads again until a listing finds none it has not stopped
 * (a thread may have been made meanwhile), then takes its checkpoint as
 * for one thread: every thread's stack and TLS are ordinary mappings,
 * and the table is in the library's memory, so the image holds all of
 * it.  A periodic checkpoint forks its writer with every thread parked,
 * and releases them at once.
 *
 * A restart restores the memory and the coordinator's registers as for
 * one thread, then (ckpt_threads_restart) makes every parked thread
 * again: a raw clone(CLONE_VM|CLONE_THREAD|CLONE_SETTLS|...) onto a
 * small temporary stack, the kernel clearing the tid field of glibc's
 * thread descriptor when the thread exits (CLONE_CHILD_CLEARTID:
 * pthread_join waits on it); the new thread sets its robust-mutex list
 * and its mask and jumps into its slot's context, where it waits for the
 * release like the others.  The descriptors keep the ids the program
 * knows (tid_map below).  A thread that was waiting in futex()
 * re-enters the call after sigreturn (SA_RESTART) and sees the futex
 * word as the restored memory has it; glibc's loops treat an early
 * return as spurious.
 *
 * Under Condor the same: the starter's and the job's filters let a
 * thread be made and signalled (box_filter.c), the thread list is read
 * from the job's own procfs (ckpt_proc.c), futex waits run with the
 * program's mask so the stop request reaches them (remote_trap.c), and
 * the threads' remote calls take turns on the channel
 * (remote_client.c).
 *
 * Where the tid and robust-list fields are in glibc's struct pthread is
 * learnt at start-up from the main thread (its tid is the pid; the
 * kernel tells where its robust list is), and checked in every thread at
 * every checkpoint: a checkpoint is refused rather than restarted wrong.
 *
 * Not restored: signals pending on one thread (not the process) other
 * than the coordinator; a priority-inheriting or robust mutex held
 * across a checkpoint names its owner by the old id, which the kernel
 * no longer knows.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <asm/prctl.h>

#include "ckpt.h"

#define STOP_MAGIC	0x43545354	/* "TSTC" in si_value */
#define STOP_TIMEOUT	30000		/* ms: threads that never stop */
#define RESTART_STACK	(16UL << 10)	/* bytes per new thread */
#define CLONE_FLAGS	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | \
			 CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS | \
			 CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)

#ifndef SI_QUEUE
#define SI_QUEUE	-1
#endif

/* A parked thread. */
struct thread_slot {
	int32_t		 tid;		/* the kernel's, at checkpoint time */
	int32_t		 vtid;		/* the program's (its descriptor's) */
	int32_t		 newtid;	/* the kernel's, after a restart */
	uint32_t	 seq;		/* release_seq when it parked */
	uint64_t	 fs, gs;
	uint64_t	 mask;		/* inside CKPT() */
	struct ckpt_ctx	 ctx;		/* where it resumes, in park() */
};

static struct thread_slot slots[CKPT_MAX_THREADS];
static volatile uint32_t nclaimed;	/* slots taken this round */
static volatile uint32_t nparked;	/* slots filled: a futex */
static volatile uint32_t release_seq;	/* bumped to release: a futex */
static volatile int	 round_on;	/* a coordinator is stopping */
static volatile int	 coord_tid;	/* 0, or the coordinator */
static int		 signaled[CKPT_MAX_THREADS];
static int		 nsignaled;
static int		 main_slot;	/* the parked main thread, or -1 */

/*
 * The program's thread ids and the kernel's.  A restart keeps the ids
 * the program has seen in glibc's descriptors (the owner of a recursive
 * or error-checking mutex held across the checkpoint is one, and must
 * stay the thread's), and the trap turns them into the kernel's where
 * the program signals a thread (tgkill, tkill: condor_ckpt_tid).  Each
 * restart replaces the table; a thread made since is its own.
 */
struct tid_pair {
	int32_t		 vtid, tid;
};
static struct tid_pair	 tid_map[CKPT_MAX_THREADS + 1];
static volatile uint32_t ntid_map;

int
condor_ckpt_tid(int vtid)
{
	uint32_t i, n = __atomic_load_n(&ntid_map, __ATOMIC_ACQUIRE);

	for (i = 0; i < n; i++)
		if (tid_map[i].vtid == vtid)
			return tid_map[i].tid;
	return vtid;
}

/* Offsets in glibc's struct pthread (from the thread pointer); -1 if
 * unknown. */
static long		 tid_off = -1, robust_off = -1;
static uint64_t		 robust_len;

/* The restart's temporary stacks, and how many new threads are off
 * them (ckpt_thread_start). */
static uint64_t		 rs_stacks, rs_stacks_len;
static uint32_t		 rs_threads;
volatile uint32_t	 ckpt_threads_started;

static long
futex(volatile uint32_t *w, int op, uint32_t val, const struct timespec *ts)
{
	return condor_sys6(SYS_futex, w, op | FUTEX_PRIVATE_FLAG, val, ts, 0,
	    0);
}

static uint64_t
get_fs(void)
{
	uint64_t v = 0;

	condor_sys2(SYS_arch_prctl, ARCH_GET_FS, &v);
	return v;
}

void
ckpt_threads_init(void)
{
	uint64_t fs = get_fs(), head = 0;
	int32_t tid = (int32_t)condor_sys0(SYS_gettid);
	size_t len = 0;
	long off;

	tid_off = -1;
	if (fs == 0)
		return;
	/* glibc's header (tcbhead_t) and list links come first: pointers,
	 * never a small int equal to the pid. */
	for (off = 0x100; off < 0x1000; off += 4)
		if (*(const int32_t *)(fs + (uint64_t)off) == tid) {
			tid_off = off;
			break;
		}
	robust_off = -1;
	if (condor_sys3(SYS_get_robust_list, 0, &head, &len) == 0 &&
	    head > fs && head < fs + 0x1000) {
		robust_off = (long)(head - fs);
		robust_len = len;
	}
}

/* Is this SIGUSR2 a coordinator's request to stop? */
int
ckpt_threads_is_stop(int sig, const siginfo_t *si)
{
	return sig == CONDOR_SIG_CKPT && si != 0 && si->si_code == SI_QUEUE &&
	    si->si_value.sival_int == STOP_MAGIC &&
	    si->si_pid == (pid_t)condor_sys0(SYS_getpid);
}

/*
 * Park the calling thread until the coordinator releases it.  Returns
 * at once if no coordinator is stopping threads (a request left pending
 * from an earlier round).
 */
void
ckpt_threads_park(void)
{
	struct thread_slot *volatile s;
	volatile uint32_t seq;
	uint32_t i;
	int spins;

	/* A coordinator that has just taken the lock sets round_on next. */
	for (spins = 0; !round_on && coord_tid != 0 && spins < 100000;
	    spins++)
		condor_sys0(SYS_sched_yield);
	if (!round_on)
		return;
	i = __atomic_fetch_add(&nclaimed, 1, __ATOMIC_ACQ_REL);
	seq = release_seq;
	if (i >= CKPT_MAX_THREADS) {
		/* No slot: the coordinator refuses this checkpoint. */
		__atomic_fetch_add(&nparked, 1, __ATOMIC_RELEASE);
		futex(&nparked, FUTEX_WAKE, 1, 0);
		while (release_seq == seq)
			futex(&release_seq, FUTEX_WAIT, seq, 0);
		return;
	}
	s = &slots[i];
	s->tid = (int32_t)condor_sys0(SYS_gettid);
	s->seq = seq;
	s->fs = get_fs();
	s->vtid = tid_off >= 0 && s->fs != 0 ?
	    *(const int32_t *)(s->fs + (uint64_t)tid_off) : s->tid;
	s->gs = 0;
	condor_sys2(SYS_arch_prctl, ARCH_GET_GS, &s->gs);
	condor_sys4(SYS_rt_sigprocmask, SIG_BLOCK, 0, &s->mask, 8);
	/* Parked now (a restart comes back here with 1, and waits for the
	 * release as well: the coordinator's, once every thread is back). */
	if (ckpt_ctx_save(&s->ctx) == 0) {
		__atomic_fetch_add(&nparked, 1, __ATOMIC_RELEASE);
		futex(&nparked, FUTEX_WAKE, 1, 0);
	}
	while (__atomic_load_n(&release_seq, __ATOMIC_ACQUIRE) == seq)
		futex(&release_seq, FUTEX_WAIT, seq, 0);
}

static int
was_signaled(int tid)
{
	int i;

	for (i = 0; i < nsignaled; i++)
		if (signaled[i] == tid)
			return 1;
	return 0;
}

static int
is_parked(int tid)
{
	uint32_t i, n = nclaimed < CKPT_MAX_THREADS ? nclaimed :
	    CKPT_MAX_THREADS;

	for (i = 0; i < n; i++)
		if (slots[i].tid == tid)
			return 1;
	return 0;
}

static int
stop_one(long pid, int tid, int uid)
{
	siginfo_t si;

	cj_memset(&si, 0, sizeof(si));
	si.si_signo = CONDOR_SIG_CKPT;
	si.si_code = SI_QUEUE;
	si.si_pid = (pid_t)pid;
	si.si_uid = (uid_t)uid;
	si.si_value.sival_int = STOP_MAGIC;
	return condor_sys4(SYS_rt_tgsigqueueinfo, pid, tid, CONDOR_SIG_CKPT,
	    &si) == 0;
}

/*
 * Signal every thread of /proc/self/task not signaled yet; how many
 * new ones, or -1 (cannot list, or too many threads).
 */
static int
stop_listed(long dfd, long pid, int me, const char **why)
{
	static char buf[4096];	/* static: one coordinator at a time */
	long n, pos;
	int added = 0, tid, i, uid = (int)condor_sys0(SYS_getuid);

	if (condor_sys3(SYS_lseek, dfd, 0, SEEK_SET) < 0) {
		*why = "cannot list the program's threads";
		return -1;
	}
	while ((n = condor_sys3(SYS_getdents64, dfd, buf, sizeof(buf))) > 0)
		for (pos = 0; pos < n;) {
			unsigned short reclen = *(unsigned short *)(buf + pos +
			    16);
			const char *name = buf + pos + 19;

			pos += reclen;
			if (name[0] < '0' || name[0] > '9')
				continue;
			for (tid = 0, i = 0; name[i] >= '0' && name[i] <= '9' &&
			    tid < 1 << 24; i++)
				tid = tid * 10 + (name[i] - '0');
			if (tid == me || was_signaled(tid))
				continue;
			if (nsignaled >= CKPT_MAX_THREADS) {
				*why = "the program runs more threads than a "
				    "checkpoint can hold";
				return -1;
			}
			if (stop_one(pid, tid, uid)) {
				signaled[nsignaled++] = tid;
				added++;
			}
		}
	if (n < 0) {
		*why = "cannot list the program's threads";
		return -1;
	}
	return added;
}

/*
 * The main thread has called pthread_exit: the kernel keeps it, a
 * zombie, as long as the process lives, and it never takes a signal
 * (only the thread group's leader lingers so).
 */
static int
leader_gone(void)
{
	char buf[512];
	long fd, n, i;

	if ((fd = ckpt_proc_open("/proc/self/stat")) < 0)
		return 0;
	n = condor_sys3(SYS_read, fd, buf, sizeof(buf) - 1);
	condor_sys1(SYS_close, fd);
	if (n <= 0)
		return 0;
	for (i = n - 1; i > 0 && buf[i] != ')'; i--)
		;
	return i > 0 && i + 2 < n && (buf[i + 2] == 'Z' || buf[i + 2] == 'X');
}

/* Signaled threads still alive (a thread may exit before it parks). */
static uint32_t
alive(long pid)
{
	uint32_t n = 0;
	int i;

	for (i = 0; i < nsignaled; i++)
		if (is_parked(signaled[i]) ||
		    (condor_sys3(SYS_tgkill, pid, signaled[i], 0) == 0 &&
		    (signaled[i] != pid || !leader_gone())))
			n++;
		else
			signaled[i] = -1;
	return n;
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	condor_sys2(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Wait until every signaled thread that lives is parked; 0 or -1. */
static int
wait_parked(long pid, uint64_t deadline, const char **why)
{
	struct timespec ts = { 0, 20 * 1000000 };
	uint32_t want, got;

	for (;;) {
		got = __atomic_load_n(&nparked, __ATOMIC_ACQUIRE);
		want = alive(pid);
		if (got >= want)
			return 0;
		if (now_ms() > deadline) {
			*why = "a thread of the program did not stop for the "
			    "checkpoint";
			return -1;
		}
		futex(&nparked, FUTEX_WAIT, got, &ts);
	}
}

/* Every parked thread's descriptor must say its tid where we look. */
static int
check_slots(const char **why)
{
	uint32_t i;

	if (nclaimed > CKPT_MAX_THREADS) {
		*why = "the program runs more threads than a checkpoint can "
		    "hold";
		return -1;
	}
	if (nclaimed == 0)
		return 0;
	if (tid_off < 0) {
		*why = "cannot find the thread id in glibc's thread "
		    "descriptor; only one thread can be checkpointed";
		return -1;
	}
	for (i = 0; i < nclaimed; i++)
		if (slots[i].fs == 0 ||
		    condor_ckpt_tid(slots[i].vtid) != slots[i].tid) {
			*why = "a thread's descriptor does not hold its thread "
			    "id where the main thread's does";
			return -1;
		}
	return 0;
}

int
ckpt_threads_stop(const char **why)
{
	int me = (int)condor_sys0(SYS_gettid);
	long pid = condor_sys0(SYS_getpid), dfd;
	uint64_t deadline;
	uint32_t i;
	int added;

	/* Another thread is coordinating: be stopped by it first. */
	while (!__atomic_compare_exchange_n(&coord_tid, &(int){ 0 }, me, 0,
	    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		ckpt_threads_park();
	nclaimed = 0;
	nparked = 0;
	nsignaled = 0;
	main_slot = -1;
	__atomic_store_n(&round_on, 1, __ATOMIC_RELEASE);
	dfd = ckpt_proc_open("/proc/self/task");
	if (dfd < 0) {
		/* No way to list them: one thread, as far as we can tell. */
		return 0;
	}
	deadline = now_ms() + STOP_TIMEOUT;
	do {
		if ((added = stop_listed(dfd, pid, me, why)) < 0 ||
		    wait_parked(pid, deadline, why) < 0) {
			condor_sys1(SYS_close, dfd);
			ckpt_threads_release();
			return -1;
		}
	} while (added > 0);
	condor_sys1(SYS_close, dfd);
	if (check_slots(why) < 0) {
		ckpt_threads_release();
		return -1;
	}
	main_slot = -1;
	for (i = 0; i < nclaimed; i++)
		if (slots[i].tid == pid)
			main_slot = (int)i;
	return (int)nclaimed;
}

void
ckpt_threads_release(void)
{
	__atomic_store_n(&round_on, 0, __ATOMIC_RELEASE);
	__atomic_fetch_add(&release_seq, 1, __ATOMIC_ACQ_REL);
	futex(&release_seq, FUTEX_WAKE, 0x7fffffff, 0);
	__atomic_store_n(&coord_tid, 0, __ATOMIC_RELEASE);
}

/* ---------------------------------------------------------------- */
/* Restart. */

void	ckpt_thread_start(void);	/* ckpt_asm.S */
void	ckpt_thread_resume(const struct ckpt_ctx *) __attribute__((noreturn));
const struct ckpt_ctx *ckpt_thread_setup(struct thread_slot *);

/* On the new thread's temporary stack: its kernel state, then the
 * context to jump to (ckpt_thread_start counts it off the stack). */
const struct ckpt_ctx *
ckpt_thread_setup(struct thread_slot *s)
{
	if (s->gs != 0)
		condor_sys2(SYS_arch_prctl, ARCH_SET_GS, s->gs);
	if (robust_off >= 0)
		condor_sys2(SYS_set_robust_list, s->fs + (uint64_t)robust_off,
		    robust_len);
	condor_sys4(SYS_rt_sigprocmask, SIG_SETMASK, &s->mask, 0, 8);
	return &s->ctx;
}

/* Make the thread of slot S again (ckpt_thread_start); 0 or -1.  Its
 * descriptor keeps the program's id of it; the kernel's goes into the
 * slot, and the kernel clears the descriptor's when it exits
 * (pthread_join waits for that). */
static int
remake(struct thread_slot *s, uint64_t top)
{
	uint64_t tidp = s->fs + (uint64_t)tid_off;

	/* The gate returns into ckpt_thread_start in the child. */
	((uint64_t *)top)[0] = (uint64_t)ckpt_thread_start;
	((uint64_t *)top)[1] = (uint64_t)s;
	/* Counted before it runs: the coordinator frees the stacks once
	 * every counted thread is off them, this one's parent included. */
	__atomic_fetch_add(&rs_threads, 1, __ATOMIC_SEQ_CST);
	if (condor_sys5(SYS_clone, CLONE_FLAGS, top, &s->newtid, tidp,
	    s->fs) < 0)
		return -1;
	tid_map[ntid_map].vtid = s->vtid;
	tid_map[ntid_map].tid = s->newtid;
	__atomic_fetch_add(&ntid_map, 1, __ATOMIC_RELEASE);
	return 0;
}

/* The calling thread's kernel state for the descriptor at FS. */
static void
adopt(uint64_t fs)
{
	uint64_t tidp;

	if (tid_off >= 0) {
		tidp = fs + (uint64_t)tid_off;
		tid_map[ntid_map].vtid = *(int32_t *)tidp;
		tid_map[ntid_map].tid = (int32_t)condor_sys0(SYS_gettid);
		__atomic_fetch_add(&ntid_map, 1, __ATOMIC_RELEASE);
		condor_sys1(SYS_set_tid_address, tidp);
	}
	if (robust_off >= 0)
		condor_sys2(SYS_set_robust_list, fs + (uint64_t)robust_off,
		    robust_len);
}

/* The coordinator, when the main thread is not it: made like the
 * parked ones, from the restart state. */
static struct thread_slot coord_slot;

/*
 * In the restored process, on the restart's stack, with the
 * coordinator's thread pointer, signal mask and pending signals: every
 * parked thread is made again.  The process's first thread stays the
 * main thread: if the coordinator was another, it is made again too and
 * this thread resumes the main one (never returning).  Returns 0 when
 * the caller is to resume the coordinator (H->ctx), or -1 and a reason
 * (nothing can be undone: the caller refuses and exits).
 */
int
ckpt_threads_restart(const struct ckpt_head *h, const char **why)
{
	uint32_t i, n = nclaimed;
	uint64_t top;
	long r;

	rs_threads = 0;
	rs_stacks = 0;
	ckpt_threads_started = 0;
	ntid_map = 0;
	if (n == 0 || main_slot < 0) {
		adopt(h->fs_base);
		if (n == 0)
			return 0;
	}
	rs_stacks_len = (uint64_t)(n + 1) * RESTART_STACK;
	r = condor_sys6(SYS_mmap, 0, rs_stacks_len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r < 0 && r > -4096) {
		*why = "no memory for the threads' restart stacks";
		return -1;
	}
	rs_stacks = (uint64_t)r;
	for (i = 0; i < n; i++) {
		if ((int)i == main_slot)
			continue;
		top = rs_stacks + (uint64_t)(i + 1) * RESTART_STACK - 64;
		if (remake(&slots[i], top) < 0) {
			*why = "cannot make the program's threads again";
			return -1;
		}
	}
	if (main_slot < 0)
		return 0;
	/* This one, off the restart's stack below. */
	__atomic_fetch_add(&rs_threads, 1, __ATOMIC_SEQ_CST);
	coord_slot.tid = 0;
	coord_slot.vtid = tid_off >= 0 ?
	    *(const int32_t *)(h->fs_base + (uint64_t)tid_off) : 0;
	coord_slot.fs = h->fs_base;
	coord_slot.gs = h->gs_base;
	coord_slot.mask = h->sigmask;
	coord_slot.ctx = h->ctx;
	top = rs_stacks + (uint64_t)(n + 1) * RESTART_STACK - 64;
	if (remake(&coord_slot, top) < 0) {
		*why = "cannot make the program's threads again";
		return -1;
	}
	/* This thread is the main one again. */
	condor_sys2(SYS_arch_prctl, ARCH_SET_FS, slots[main_slot].fs);
	adopt(slots[main_slot].fs);
	ckpt_thread_resume(ckpt_thread_setup(&slots[main_slot]));
}

/* Back in CKPT() after a restart: once every new thread is off its
 * temporary stack, free them. */
void
ckpt_threads_restarted(void)
{
	while (__atomic_load_n(&ckpt_threads_started, __ATOMIC_ACQUIRE) <
	    __atomic_load_n(&rs_threads, __ATOMIC_ACQUIRE))
		condor_sys0(SYS_sched_yield);
	if (rs_stacks != 0)
		condor_sys2(SYS_munmap, rs_stacks, rs_stacks_len);
	rs_stacks = 0;
	rs_threads = 0;
}
