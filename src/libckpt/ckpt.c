/*
 * ckpt.c: CKPT(), the handler of the checkpoint signals, and the calls a
 * program may make itself (condor_ckpt.h).
 *
 *	SIGUSR2	 checkpoint and go on.  The state of the process (registers,
 *		 signals, timers, files) is taken in the handler, then the
 *		 handler forks a writer (clone without SIGCHLD, invisible to
 *		 the program's wait()) and returns at once: the program is
 *		 frozen only for the fork.  The writer, whose memory is the
 *		 program's at that instant, writes the checkpoint and exits.
 *		 CONDOR_CKPT_FORK=0 writes in the handler instead.
 *	SIGTSTP	 checkpoint and exit with status 85 once the checkpoint is
 *		 safely on disk.  If it cannot be written the program says
 *		 why on stderr and goes on running.
 *
 * The checkpoint goes to $CONDOR_CKPT_FILE or PROGRAM.ckpt in the working
 * directory the program started in, written under a temporary name,
 * fsynced, read back and checked, then renamed over the old one (and the
 * directory fsynced): a failed checkpoint never replaces a good one.
 * Either may be "fd:N": the file is written to descriptor N in one pass
 * (no temporary, no rename; the receiver checks it).
 * With CONDOR_CKPT_CORE=PATH the library writes an ELF core (with the
 * restart state in a CONDOR note) to PATH instead, for gdb or for
 * `condor_ckpt merge`.  With CONDOR_CKPT_NOTIFY_FD=N (a descriptor open
 * when the program starts, a pipe from the starter say) it writes one line
 * there when a checkpoint is over: "ok PATH" once it is safely in place
 * ("ok-exit PATH" if the program exits with status 85 right after;
 * "ok-wait PATH" if, under Condor, it waits for a SIGCONT before it
 * goes on: hold_until_shipped),
 * "failed REASON" otherwise.
 *
 * In a program running several threads, the thread the signal reached
 * first stops every other one in this handler (ckpt_threads.c); a
 * periodic checkpoint lets them go on once its writer is forked.
 *
 * Incremental checkpoints (CONDOR_CKPT_INCREMENTAL=1; ckpt_incr.c): a
 * periodic checkpoint of a program that checkpointed before writes only
 * what changed since, a delta (include/ckptfile.h), to TARGET.deltaN
 * beside the full image TARGET (N = 1, 2, ...; to the descriptor itself
 * for "fd:N"), each naming the image it applies to.  At most
 * CONDOR_CKPT_MAX_DELTAS (CKPT_MAX_DELTAS, 4) deltas follow a full image
 * before the next full one, which removes them once it is in place.  A
 * checkpoint the program exits after is always full: it is the one a
 * restart runs.  `condor_ckpt merge TARGET TARGET.delta1 ... -o OUT`
 * folds a chain into a checkpoint to restart; TARGET alone refuses to
 * restart while a delta of its own lies beside it (ckpt_restart.c).
 *
 * Restart: the restart code (ckpt_restart.c) jumps back to the context
 * saved below, inside this handler, in the restored process; the handler
 * then returns as from any signal handler, and the program goes on where
 * the signal interrupted it.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "condor_ckpt.h"
#include "ckpt.h"
#include "../libremote/remote.h"

#ifndef __WCLONE
#define __WCLONE	0x80000000
#endif

struct ckpt_globals ckpt_g;

/* ---------------------------------------------------------------- */
/* Output. */

struct out {
	long	fd;
	long	exe_fd;
	int	err;
	const struct ckpt_head *h;
	uint64_t written, flushed;	/* bytes; writeback started */
	uint64_t live_lo, live_hi;	/* the region the writer runs on */
};

/* Start writeback every WB_STEP bytes, so that the final fsync finds
 * little left to do and dirty pages do not pile up. */
#define WB_STEP		(32ULL << 20)

static int
out_exe_read(void *arg, uint64_t off, void *buf, size_t len)
{
	struct out *o = arg;
	char *p = buf;
	long n;

	while (len > 0) {
		n = condor_sys4(SYS_pread64, o->exe_fd, p, len, off);
		if (n == -EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? (int)n : -EIO;
		p += n, len -= (size_t)n, off += (uint64_t)n;
	}
	return 0;
}

/*
 * Memory is written from where it is, except the stack: the writer's own
 * frames live below CKPT()'s, and change between the checksum and the
 * write, so stack chunks are copied first and both taken from the copy.
 * The same for the stack of a thread other than the main one, when that
 * thread took the checkpoint (live_lo, live_hi).
 */
/* The region of H holding the caller's stack into O. */
static void
out_live_stack(struct out *o, const struct ckpt_head *h)
{
	const struct ckpt_region *r = CKPT_REGIONS(h);
	uint64_t sp = (uint64_t)__builtin_frame_address(0);
	uint32_t i;

	o->live_lo = o->live_hi = 0;
	for (i = 0; i < h->nregions; i++)
		if (sp >= r[i].start && sp < r[i].end) {
			o->live_lo = r[i].start;
			o->live_hi = r[i].end;
		}
}

static const void *
out_data(void *arg, const struct ckpt_extent *e, uint64_t off, void *buf,
    size_t len, int *err)
{
	struct out *o = arg;
	const void *p = (const void *)(uintptr_t)(e->addr + off);

	(void)err;
	if (CKPT_REGIONS(o->h)[e->region].kind == CKPT_R_STACK ||
	    (e->addr < o->live_hi && e->addr + e->len > o->live_lo)) {
		cj_memcpy(buf, p, len);
		return buf;
	}
	return p;
}

int
ckpt_out_write(long fd, const void *buf, size_t len)
{
	const char *p = buf;
	long n;

	while (len > 0) {
		n = condor_sys3(SYS_write, fd, p, len);
		if (n == -EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? (int)n : -EIO;
		p += n, len -= (size_t)n;
	}
	return 0;
}

static int
out_write(void *arg, const void *buf, size_t len)
{
	struct out *o = arg;
	int rc;

	if ((rc = ckpt_out_write(o->fd, buf, len)) < 0)
		return rc;
	o->written += len;
	if (o->written - o->flushed >= WB_STEP) {
		condor_sys4(SYS_sync_file_range, o->fd, o->flushed,
		    o->written - o->flushed, SYNC_FILE_RANGE_WRITE);
		o->flushed = o->written;
	}
	return 0;
}

static void
tmp_name(char *tmp, size_t len, const char *target)
{
	char num[24];

	cj_strlcpy(tmp, target, len);
	cj_strlcat(tmp, ".tmp.", len);
	cj_strlcat(tmp, cj_utoa((unsigned long long)condor_sys0(SYS_getpid),
	    num, 10), len);
}

static void
fsync_dir(const char *target)
{
	static char dir[PATH_MAX];	/* static: CKPT() is not reentered */
	size_t n;
	long fd;

	cj_strlcpy(dir, target, sizeof(dir));
	for (n = cj_strlen(dir); n > 0 && dir[n - 1] != '/'; n--)
		;
	if (n == 0)
		cj_strlcpy(dir, ".", sizeof(dir));
	else
		dir[n > 1 ? n - 1 : 1] = '\0';
	if ((fd = condor_sys3(SYS_open, dir, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC, 0)) >= 0) {
		condor_sys1(SYS_fsync, fd);
		condor_sys1(SYS_close, fd);
	}
}

static void	notify(const char *, const char *);
static void	delta_name(char *, size_t, const char *, uint32_t);
static void	remove_deltas(const char *);

/*
 * The word of the notification line: "ok-exit " for a checkpoint the
 * program exits after (SIGTSTP, ckpt_and_exit), so that the starter
 * tells a job that checkpointed itself and left from one that exited 85
 * by itself.
 */
static const char *ok_word = "ok ";

/* How long a program waits for the starter to take its checkpoint
 * (below) before it goes on regardless. */
#define HOLD_SECONDS	600

/*
 * Under Condor each checkpoint rewrites the file the starter gave from
 * its first byte, and the starter ships it from there.  A periodic one
 * is asked for only once the last is shipped; a program's own ckpt()
 * is not, so after it the program says "ok-wait" and waits for the
 * starter's SIGCONT, sent once the file is shipped: a ckpt_and_exit()
 * right after cannot overwrite it meanwhile.  SIGCONT is blocked in the
 * handler, so one sent before the wait begins is pending and ends it.
 */
static void
hold_until_shipped(void)
{
	struct timespec ts = { HOLD_SECONDS, 0 };
	uint64_t set = SIGBIT(SIGCONT);
	long r;

	do
		r = condor_sys4(SYS_rt_sigtimedwait, &set, 0, &ts, 8);
	while (r == -EINTR);
}

/* The program's own ckpt(), under Condor, to a file the starter ships. */
static int
must_hold(int sig, int sync)
{
	return sig == CONDOR_SIG_CKPT && sync && ckpt_g.notify_fd >= 0 &&
	    remote_syscall_fd >= 0 && ckpt_g.core_target[0] == '\0' &&
	    cj_strncmp(ckpt_g.target, "fd:", 3) == 0;
}

/*
 * Before the rename: the file has the size the layout says, and its
 * restart state reads back from the disk's copy (after fsync) and passes
 * every check.  The memory is not read back: its checksums were taken
 * from the very bytes written, and every restart verifies them all.
 */
static int
verify_written(long fd, struct ckpt_build *b, int64_t total, const char **why)
{
	struct ckpt_head *rb = (struct ckpt_head *)b->mapsbuf;
	const struct ckpt_head *h = b->packed;
	struct stat st;
	uint64_t off = b->delta ? CKPT_PAGE + h->data_bytes :
	    ckpt_state_offset(h);
	const char *bad;
	long n;

	if (condor_sys2(SYS_fstat, fd, &st) < 0 || st.st_size != total) {
		*why = "the checkpoint's size is wrong after writing";
		return -1;
	}
	if (h->state_len > CB_MAPSBUF)
		return 0;
	n = condor_sys4(SYS_pread64, fd, rb, h->state_len, off);
	if (n != (long)h->state_len) {
		*why = "cannot read the checkpoint back";
		return -1;
	}
	if ((bad = ckpt_state_check(rb, h->state_len, (uint64_t)total)) != 0) {
		*why = bad;
		return -1;
	}
	return 0;
}

/*
 * To a descriptor the caller gave ("fd:N", a pipe or socket from the
 * starter, say): the whole file in one pass, nothing to rename; the
 * receiver checks it (ckpt_install) and knows its end from the ELF
 * header (e_shoff + e_shnum * e_shentsize, the section headers last).
 */
static int
write_to_fd(struct ckpt_build *b, ucontext_t *uc, const char *target,
    const char **why)
{
	struct out o = { 0, -1, 0, 0, 0, 0, 0, 0 };
	struct ckpt_io io = { out_exe_read, out_data, out_write, &o };
	const char *p;
	int rc = -1;

	for (p = target + 3; *p >= '0' && *p <= '9' && o.fd < 65536; p++)
		o.fd = o.fd * 10 + (*p - '0');
	o.written = o.flushed = 1ULL << 62;	/* no sync_file_range */
	/* A file the starter gave (CONDOR_CKPT_FILE=fd:N under Condor):
	 * each checkpoint replaces the last one from its first byte.  A
	 * pipe or socket cannot seek and is written as it stands. */
	if (condor_sys3(SYS_lseek, o.fd, 0, SEEK_SET) == 0)
		condor_sys2(SYS_ftruncate, o.fd, 0);
	if (ckpt_g.core_target[0] != '\0')
		rc = ckpt_core_write((int)o.fd, b, uc, why);
	else if (b->delta) {
		o.h = b->packed;
		rc = ckpt_write_delta(b->packed, &io, b->iobuf, CB_IOBUF,
		    why) < 0 ? -1 : 0;
	} else if ((o.exe_fd = ckpt_proc_open("/proc/self/exe")) < 0)
		*why = "cannot read /proc/self/exe";
	else {
		o.h = b->packed;
		out_live_stack(&o, b->packed);
		rc = ckpt_write(b->packed, &io, b->iobuf, CB_IOBUF, why) < 0 ?
		    -1 : 0;
		condor_sys1(SYS_close, o.exe_fd);
	}
	ckpt_build_restore_prot(b);
	if (rc == 0)
		notify(ok_word, target);
	return rc;
}

/*
 * write_image: gather the memory and write the checkpoint (or the core)
 * safely.  Runs in the writer child, or in the handler.
 */
static int
write_image(struct ckpt_build *b, ucontext_t *uc, const char **why)
{
	static char tmp[PATH_MAX + 32];	/* static: see fsync_dir */
	static char dname[PATH_MAX + 32];
	const char *target = ckpt_g.core_target[0] != '\0' ?
	    ckpt_g.core_target : ckpt_g.target;
	struct out o = { -1, -1, 0, 0, 0, 0, 0, 0 };
	int64_t total;
	int rc = -1;

	if (ckpt_build_memory(b, why) == -1 || ckpt_build_pack(b, why) == -1)
		goto out;
	if (cj_strncmp(target, "fd:", 3) == 0)
		return write_to_fd(b, uc, target, why);
	if (b->delta) {
		delta_name(dname, sizeof(dname), target,
		    b->packed->delta_seq);
		target = dname;
	}
	tmp_name(tmp, sizeof(tmp), target);
	o.fd = condor_sys3(SYS_open, tmp, O_RDWR | O_CREAT | O_TRUNC |
	    O_CLOEXEC, 0755);
	if (o.fd < 0) {
		*why = "cannot create the temporary checkpoint file";
		goto out;
	}
	if (ckpt_g.core_target[0] != '\0') {
		if (ckpt_core_write((int)o.fd, b, uc, why) == -1)
			goto out;
	} else {
		struct ckpt_io io = { out_exe_read, out_data, out_write, &o };

		o.h = b->packed;
		out_live_stack(&o, b->packed);
		if (b->delta)
			total = ckpt_write_delta(b->packed, &io, b->iobuf,
			    CB_IOBUF, why);
		else if ((o.exe_fd = ckpt_proc_open("/proc/self/exe")) < 0) {
			*why = "cannot read /proc/self/exe";
			goto out;
		} else
			total = ckpt_write(b->packed, &io, b->iobuf, CB_IOBUF,
			    why);
		if (total < 0)
			goto out;
		if (condor_sys1(SYS_fsync, o.fd) < 0) {
			*why = "fsync failed (disk full?)";
			goto out;
		}
		if (verify_written(o.fd, b, total, why) == -1)
			goto out;
	}
	if (ckpt_g.core_target[0] != '\0' && condor_sys1(SYS_fsync, o.fd) < 0) {
		*why = "fsync failed (disk full?)";
		goto out;
	}
	condor_sys1(SYS_close, o.fd);
	o.fd = -1;
	if (condor_sys2(SYS_rename, tmp, target) < 0) {
		*why = "cannot rename the new checkpoint into place";
		goto out;
	}
	fsync_dir(target);
	if (!b->delta && ckpt_g.core_target[0] == '\0')
		remove_deltas(target);
	notify(ok_word, target);
	rc = 0;
out:
	ckpt_build_restore_prot(b);
	if (o.exe_fd >= 0)
		condor_sys1(SYS_close, o.exe_fd);
	if (o.fd >= 0) {
		condor_sys1(SYS_close, o.fd);
		condor_sys1(SYS_unlink, tmp);
	}
	return rc;
}

static void
notify(const char *what, const char *detail)
{
	static char line[PATH_MAX + 64];	/* static: see fsync_dir */

	if (ckpt_g.notify_fd < 0)
		return;
	cj_strlcpy(line, what, sizeof(line));
	cj_strlcat(line, detail, sizeof(line) - 1);
	cj_strlcat(line, "\n", sizeof(line));
	(void)ckpt_out_write(ckpt_g.notify_fd, line, cj_strlen(line));
}

static void
say_failed(const char *why)
{
	cj_say("checkpoint failed: ", why, " (", ckpt_g.core_target[0] ?
	    ckpt_g.core_target : ckpt_g.target, " left as it was)", (char *)0);
	notify("failed ", why);
}

/* Wait for the writer of a periodic checkpoint; its result. */
static int
wait_writer(void)
{
	int status = 0;
	long r;

	if (ckpt_g.writer_pid <= 0)
		return 0;
	do
		r = condor_sys4(SYS_wait4, ckpt_g.writer_pid, &status,
		    __WCLONE, 0);
	while (r == -EINTR);
	ckpt_g.writer_pid = 0;
	if (r < 0)
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	/* Its pages were protected again but never saved: the next
	 * checkpoint must be a full one. */
	ckpt_g.trk_ok = 0;
	return -1;
}

void
condor_ckpt_before_exit(void)
{
	(void)wait_writer();
}

/* ---------------------------------------------------------------- */
/* Incremental checkpoints. */

static uint64_t
new_image_id(void)
{
	uint64_t id = 0;
	uint32_t lo, hi;

	if (condor_sys3(SYS_getrandom, &id, sizeof(id), 1 /* NONBLOCK */) !=
	    (long)sizeof(id) || id == 0) {
		__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
		id = ((uint64_t)hi << 32 | lo) ^
		    ((uint64_t)condor_sys0(SYS_getpid) << 40) ^ ckpt_g.last_id;
	}
	return id != 0 ? id : 1;
}

/*
 * Name this image and decide what it is: a delta of the last one (a
 * periodic checkpoint of a program tracked since a good image, the chain
 * not yet at its limit, not a core) or a full image.  Then the snapshot
 * of what was written (ckpt_incr.c).  Runs last in the handler, just
 * before the image is taken.
 */
static void
incr_begin(struct ckpt_build *b, int sig)
{
	struct ckpt_head *h = b->head;
	int delta;

	delta = ckpt_g.incremental && ckpt_g.trk_ok && sig == CONDOR_SIG_CKPT &&
	    ckpt_g.core_target[0] == '\0' && ckpt_g.last_id != 0 &&
	    ckpt_g.chain < ckpt_g.max_deltas;
	ckpt_g.trk_ok = 0;
	/* A program that exits after its checkpoint needs no tracking. */
	if (sig == CONDOR_SIG_CKPT)
		delta = ckpt_incr_snapshot(b, delta);
	h->image_id = new_image_id();
	h->parent_id = delta ? ckpt_g.last_id : 0;
	h->delta_seq = delta ? ckpt_g.chain + 1 : 0;
	ckpt_g.last_id = h->image_id;
	ckpt_g.chain = h->delta_seq;
}

/* TARGET.deltaN */
static void
delta_name(char *out, size_t len, const char *target, uint32_t n)
{
	char num[24];

	cj_strlcpy(out, target, len);
	cj_strlcat(out, ".delta", len);
	cj_strlcat(out, cj_utoa(n, num, 10), len);
}

/* A full image is in place: the deltas of the one before are stale. */
static void
remove_deltas(const char *target)
{
	static char name[PATH_MAX + 32];	/* static: see fsync_dir */
	uint32_t n;

	for (n = 1; n <= CKPT_MAX_DELTAS_LIMIT; n++) {
		delta_name(name, sizeof(name), target, n);
		if (condor_sys1(SYS_unlink, name) < 0 && n > ckpt_g.max_deltas)
			break;
	}
}

/* ---------------------------------------------------------------- */
/* The handler. */

/*
 * The CPU of the program's runs up to the checkpoint being taken (user
 * s, us; system s, us): the earlier runs' and this one's.  In the
 * checkpoint's memory; a resumed program's getrusage adds it.
 */
static long usage_saved[4];

static void
save_usage(void)
{
	struct rusage ru;
	long *p = remote_prior_usage;

	if (condor_sys2(SYS_getrusage, RUSAGE_SELF, &ru) < 0)
		return;
	usage_saved[0] = p[0] + ru.ru_utime.tv_sec;
	usage_saved[1] = p[1] + ru.ru_utime.tv_usec;
	usage_saved[2] = p[2] + ru.ru_stime.tv_sec;
	usage_saved[3] = p[3] + ru.ru_stime.tv_usec;
	if (usage_saved[1] >= 1000000) {
		usage_saved[0]++;
		usage_saved[1] -= 1000000;
	}
	if (usage_saved[3] >= 1000000) {
		usage_saved[2]++;
		usage_saved[3] -= 1000000;
	}
}

/* Back from a restart: we are in the restored process. */
static __attribute__((noinline)) void
after_restart(void)
{
	int i;

	for (i = 0; i < 4; i++)
		remote_prior_usage[i] = usage_saved[i];
	ckpt_threads_restarted();	/* all off the restart's stacks */
	if (ckpt_g.scratch_addr != 0)
		condor_sys2(SYS_munmap, ckpt_g.scratch_addr,
		    ckpt_g.scratch_len);
	ckpt_g.scratch_addr = 0;
	ckpt_g.writer_pid = 0;
	/* The tracking was the old process's (the restart put this
	 * process's own in trk_uffd): the next image is full. */
	ckpt_g.trk_ok = 0;
	ckpt_g.chain = 0;
	ckpt_g.last_result = 1;
	ckpt_g.generation++;
}

static void
ckpt_handler(int sig, siginfo_t *si, void *ucv)
{
	struct ckpt_ctx ctx;
	struct ckpt_build b;
	ucontext_t *uc = ucv;
	const char *why = "";
	volatile int sync = ckpt_g.sync_request;
	long pid;

	/* Another thread takes a checkpoint: stop here until it is done. */
	if (ckpt_threads_is_stop(sig, si)) {
		ckpt_threads_park();
		return;
	}
	/* A trapped call that has just completed, its bookkeeping not done:
	 * later (condor_job.h, remote_unblocked). */
	if (remote_unblocked > 0 &&
	    CONDOR_GATE_DONE((uint64_t)uc->uc_mcontext.gregs[REG_RIP])) {
		remote_deferred_sig = sig;
		return;
	}
	ckpt_g.sync_request = 0;
	(void)wait_writer();	/* one checkpoint at a time */
	ckpt_lazy_finish();	/* all the memory back first */
	/* Every other thread parked (ckpt_threads.c) before anything is
	 * saved, and released on every way out. */
	if (ckpt_threads_stop(&why) == -1) {
		say_failed(why);
		ckpt_g.last_result = -1;
		return;
	}
	if (ckpt_build_init(&b, &why) == -1) {
		ckpt_threads_release();
		say_failed(why);
		ckpt_g.last_result = -1;
		return;
	}
	save_usage();
	if (ckpt_ctx_save(&ctx) != 0) {
		after_restart();
		ckpt_threads_release();
		return;
	}
	if (ckpt_build_process(&b, sig, uc, &ctx, &why) == -1)
		goto fail;
	ok_word = sig == CONDOR_SIG_VACATE ? "ok-exit " :
	    must_hold(sig, sync) ? "ok-wait " : "ok ";
	incr_begin(&b, sig);	/* last: see ckpt_incr.c */
	if (sig == CONDOR_SIG_CKPT && ckpt_g.fork_writer) {
		pid = condor_sys5(SYS_clone, 0, 0, 0, 0, 0);
		if (pid == 0) {
			/*
			 * Same priority as the program: niced, the writer
			 * starved on a busy machine (a 1 GiB checkpoint took
			 * 2 to 4 s to be durable instead of 0.7 s), while the
			 * program gained little.
			 */
			condor_sys2(SYS_prctl, PR_SET_NAME, "condor_ckptwr");
			if (write_image(&b, uc, &why) == -1) {
				say_failed(why);
				condor_sys1(SYS_exit_group, 1);
			}
			condor_sys1(SYS_exit_group, 0);
		}
		ckpt_threads_release();	/* the writer has the image */
		ckpt_build_free(&b);
		if (pid < 0) {
			why = "cannot start the checkpoint writer";
			say_failed(why);
			ckpt_g.last_result = -1;
			return;
		}
		ckpt_g.writer_pid = pid;
		ckpt_g.last_result = sync ? wait_writer() : 0;
		return;
	}
	if (write_image(&b, uc, &why) == -1) {
		ckpt_g.trk_ok = 0;
		goto fail;
	}
	ckpt_build_free(&b);
	ckpt_g.last_result = 0;
	if (sig == CONDOR_SIG_VACATE)	/* the other threads stay parked */
		condor_sys1(SYS_exit_group, CONDOR_VACATE_STATUS);
	ckpt_threads_release();
	if (must_hold(sig, sync))
		hold_until_shipped();
	return;
fail:
	ckpt_threads_release();
	ckpt_build_free(&b);
	say_failed(why);
	ckpt_g.last_result = -1;
}

extern void	condor_restore_rt(void);

#define SYNC_SIGS	(SIGBIT(SIGSEGV) | SIGBIT(SIGBUS) | SIGBIT(SIGILL) | \
			 SIGBIT(SIGFPE) | SIGBIT(SIGTRAP))

/* Install CKPT() on the checkpoint signals; 0 or -errno. */
int
ckpt_install_handlers(void)
{
	struct ksigaction sa;
	long r;

	cj_memset(&sa, 0, sizeof(sa));
	sa.handler = (uint64_t)ckpt_handler;
	sa.flags = SA_SIGINFO | SA_RESTART | SA_RESTORER;
	sa.restorer = (uint64_t)condor_restore_rt;
	sa.mask = ~(SYNC_SIGS | SIGBIT(SIGKILL) | SIGBIT(SIGSTOP));
	if ((r = condor_sys4(SYS_rt_sigaction, CONDOR_SIG_CKPT, &sa, 0, 8)) < 0)
		return (int)r;
	return (int)condor_sys4(SYS_rt_sigaction, CONDOR_SIG_VACATE, &sa, 0, 8);
}

/* ---------------------------------------------------------------- */
/* The program's calls (condor_ckpt.h). */

static void
signal_self(int sig)
{
	condor_sys3(SYS_tgkill, condor_sys0(SYS_getpid),
	    condor_sys0(SYS_gettid), sig);
}

int
ckpt(void)
{
	ckpt_g.last_result = -1;
	ckpt_g.sync_request = 1;
	signal_self(CONDOR_SIG_CKPT);
	ckpt_g.sync_request = 0;
	return ckpt_g.last_result;
}

void
ckpt_and_exit(void)
{
	signal_self(CONDOR_SIG_VACATE);
}

/*
 * The same from Fortran: CALL CKPT() and CALL CKPT_AND_EXIT() are, with
 * gfortran's default mangling, calls of ckpt_ and ckpt_and_exit_ with
 * no arguments (a name with an underscore gets a second one under
 * -ff2c or -fsecond-underscore, hence ckpt_and_exit__ too).  CKPT is a
 * subroutine there: its result is dropped.
 */
void	ckpt_(void);
void	ckpt_and_exit_(void);
void	ckpt_and_exit__(void);

void
ckpt_(void)
{
	(void)ckpt();
}

void
ckpt_and_exit_(void)
{
	ckpt_and_exit();
}

void
ckpt_and_exit__(void)
{
	ckpt_and_exit();
}

/* ---------------------------------------------------------------- */
/* The environment's say in where checkpoints go. */

static const char *
env_get(char **envp, const char *name)
{
	size_t n = cj_strlen(name);

	for (; envp != 0 && *envp != 0; envp++)
		if (cj_strncmp(*envp, name, n) == 0 && (*envp)[n] == '=')
			return *envp + n + 1;
	return 0;
}

static void
absolute(char *out, size_t len, const char *path)
{
	char cwd[PATH_MAX];

	if (path[0] == '/') {
		cj_strlcpy(out, path, len);
		return;
	}
	if (condor_sys2(SYS_getcwd, cwd, sizeof(cwd)) <= 0)
		cj_strlcpy(cwd, ".", sizeof(cwd));
	cj_strlcpy(out, cwd, len);
	if (cwd[1] != '\0')
		cj_strlcat(out, "/", len);
	cj_strlcat(out, path, len);
}

void
ckpt_set_target(const char *path)
{
	absolute(ckpt_g.target, sizeof(ckpt_g.target), path);
}

void
ckpt_fixup_from_env(struct ckpt_fixup *f, const char *program, char **envp)
{
	const char *v;
	char name[300];

	if ((v = env_get(envp, "CONDOR_CKPT_FILE")) != 0 && *v != '\0' &&
	    cj_strncmp(v, "fd:", 3) == 0)
		cj_strlcpy(f->target, v, sizeof(f->target));
	else if (v != 0 && *v != '\0')
		absolute(f->target, sizeof(f->target), v);
	else {
		cj_strlcpy(name, program, sizeof(name));
		cj_strlcat(name, ".ckpt", sizeof(name));
		absolute(f->target, sizeof(f->target), name);
	}
	if ((v = env_get(envp, "CONDOR_CKPT_CORE")) != 0 && *v != '\0' &&
	    cj_strncmp(v, "fd:", 3) == 0)
		cj_strlcpy(f->core_target, v, sizeof(f->core_target));
	else if (v != 0 && *v != '\0')
		absolute(f->core_target, sizeof(f->core_target), v);
	else
		f->core_target[0] = '\0';
	v = env_get(envp, "CONDOR_CKPT_FORK");
	f->fork_writer = !(v != 0 && v[0] == '0');
	f->notify_fd = -1;
	if ((v = env_get(envp, "CONDOR_CKPT_NOTIFY_FD")) != 0 && *v != '\0') {
		f->notify_fd = 0;
		for (; *v >= '0' && *v <= '9' && f->notify_fd < 65536; v++)
			f->notify_fd = f->notify_fd * 10 + (*v - '0');
	}
	v = env_get(envp, "CONDOR_TRAP_ALL");
	f->trap_all = v != 0 && v[0] == '1';
	v = env_get(envp, "CONDOR_RESTORE");
	f->restore = v == 0 ? CKPT_RESTORE_AUTO : cj_strcmp(v, "eager") == 0 ?
	    CKPT_RESTORE_EAGER : cj_strcmp(v, "lazy") == 0 ?
	    CKPT_RESTORE_LAZY : CKPT_RESTORE_AUTO;
	f->uffd_dev = cj_env_number(envp, "CONDOR_UFFD_FD", 65535, -1);
	v = env_get(envp, "CONDOR_CKPT_INCREMENTAL");
	f->incremental = v != 0 && v[0] == '1';
	f->max_deltas = (uint32_t)cj_env_number(envp, "CONDOR_CKPT_MAX_DELTAS",
	    CKPT_MAX_DELTAS_LIMIT, CKPT_MAX_DELTAS);
	f->mode = REMOTE_MODE_LOCAL;
}
