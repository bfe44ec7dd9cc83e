/*
 * ckpt_restart.c: resume a program from its checkpoint.
 *
 * A checkpoint is an executable whose .condor_relinked marker says
 * is_ckpt; the kernel loads it like the program (same program headers,
 * same text), its start-up code gets here instead of to main, and:
 *
 *  A. on the normal stack: reads the restart state the marker points to
 *     and checks it (ckpt_state_check: magic, sizes, bounds, checksum);
 *     checks that the heap starts where it started (the same layout,
 *     which ADDR_NO_RANDOMIZE gives); maps a scratch area at an address
 *     no saved region uses; installs the system-call trap; and switches
 *     to a stack in the scratch area, since the program's stack is about
 *     to be replaced.  Before the trap (whose filters refuse both), the
 *     userfaultfd and the helper of a restore on demand (ckpt_lazy.c),
 *     or the reason there is none.
 *  B. on the scratch stack, before touching anything: the executable
 *     part's checksum; the stack top and the kernel's [vdso]/[vvar]
 *     layout; every file reopens (without O_CREAT/O_EXCL/O_TRUNC, with
 *     O_APPEND, and seeks to its offset); the working directory exists.
 *     Any failure here refuses with a message and exit status 1.
 *  C. the point of no return: moves [vvar]/[vdso] back where they were
 *     (mremap, as DMTCP does) if the kernel put them elsewhere; takes the
 *     break down to the heap's start and up to the saved break (the heap
 *     is fresh memory of the break, as it was); makes every other saved
 *     region the kind of memory it was: private anonymous memory (bss
 *     stays the kernel's own), shared anonymous memory (a memfd again
 *     for a memfd's), a private mapping of the executable's data or of
 *     the file the program mapped (anonymous if that file is gone), a
 *     shared file mapping; unmaps what the program did not have; copies
 *     the saved stack into the process's own stack (so it still grows);
 *     with a restore on demand, registers the private anonymous regions
 *     with the userfaultfd and lets the helper start (it fills them
 *     while the program runs); reads every other extent from the
 *     checkpoint into its place in large chunks, each summed as it
 *     arrives (a mismatch: message, exit 1: a corrupt image never
 *     runs), pages of a file mapping that were zero made zero;
 *     re-applies protections.  Nothing maps the
 *     checkpoint's saved memory afterwards: the memory is the program's,
 *     and realloc, mremap, madvise and brk behave on it as they did
 *     before.  Then it puts each file on its descriptor (dup3);
 *     restores the working directory, umask, signal dispositions,
 *     alternate stack, interval timers, then the thread pointer (after
 *     the heap: static glibc keeps the TCB in it, and with it the stack
 *     guard and pointer guard), the signal mask, and re-raises the
 *     pending signals; and jumps into CKPT(), which returns to the
 *     interrupted code.
 *
 * From B on nothing here calls libc: its memory is being replaced.  This
 * file is built with -fno-stack-protector and without loop-to-memcpy
 * transformations (mk/job.mk).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/rseq.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <asm/prctl.h>

#include "ckpt.h"
#include "../libremote/remote.h"

#define PAGE		4096UL
#define RS_STACK	(256UL << 10)
#define RS_IOBUF	(1UL << 20)
#define RS_VDSO		(1UL << 20)
#define RS_CHUNK	(2UL << 20)	/* bytes read and summed at once */
#define MAX_SHARED	256

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23
#endif
#ifndef MREMAP_FIXED
#define MREMAP_MAYMOVE	1
#define MREMAP_FIXED	2
#endif

struct rs {
	struct ckpt_fixup	 fix;
	struct ckpt_head	*h;
	char			*scratch;
	uint64_t		 scratch_len;
	char			*iobuf;
	char			*vdso_tmp;
	uint64_t		 file_size;
	long			 exe_fd;
	long			 cwd_fd;
	long			 file_fd[CB_MAX_FILES];
	long			 shared_fd[MAX_SHARED];
	uint64_t		 cur_stack_lo, cur_stack_hi;
	uint64_t		 cur_special[3][2];	/* vvar, vvar_vclock, vdso */
	long			 proc_fds[CKPT_PROC_N];	/* ckpt_proc.c */
	long			 trk_uffd;	/* ckpt_incr.c */
	const char		*trk_why;
	int			 remote;	/* under Condor: files at the
						   shadow */
	int			 syscall_fd;
	struct ckpt_lazy	 lazy;		/* ckpt_lazy.c */
	int			 lazy_on;	/* a helper is waiting */
	long			 lazy_fd;	/* EOF when it is done */
	uint64_t		 t0;		/* ms: the restart began */
	/* Regions mapped from a file, regions on demand: a bit each. */
	uint8_t			 filemap[CB_MAX_REGIONS / 8];
	uint8_t			 lazymap[CB_MAX_REGIONS / 8];
};

#define IS_FILEMAP(rs, i)	((rs)->filemap[(i) / 8] & (1u << ((i) % 8)))
#define SET_FILEMAP(rs, i)	\
	((rs)->filemap[(i) / 8] |= (uint8_t)(1u << ((i) % 8)))
#define IS_LAZY(rs, i)		((rs)->lazymap[(i) / 8] & (1u << ((i) % 8)))
#define SET_LAZY(rs, i)	\
	((rs)->lazymap[(i) / 8] |= (uint8_t)(1u << ((i) % 8)))

/* /proc/self/maps, from the cache in RS (the library's own copy is
 * replaced with the program's memory) or by name. */
static long
maps_open(const struct rs *rs)
{
	long fd;

	if (rs->proc_fds[0] < 0)
		return condor_sys3(SYS_open, "/proc/self/maps",
		    O_RDONLY | O_CLOEXEC, 0);
	fd = condor_sys3(SYS_fcntl, rs->proc_fds[0], F_DUPFD_CLOEXEC,
	    CKPT_PROC_FD_LOW);
	if (fd >= 0)
		condor_sys3(SYS_lseek, fd, 0, SEEK_SET);
	return fd;
}

/* A system call at the shadow, for the files of a program under Condor. */
static long
rcall(long nr, long a0, long a1, long a2, long a3)
{
	long a[6] = { a0, a1, a2, a3, 0, 0 };

	return remote_call(nr, a);
}

static __attribute__((noreturn)) void
refuse(const char *why, const char *what)
{
	cj_say("cannot resume this checkpoint: ", why, what ? what : "",
	    (char *)0);
	condor_sys1(SYS_exit_group, 1);
	__builtin_unreachable();
}

static long
pread_full(long fd, void *buf, uint64_t len, uint64_t off)
{
	char *p = buf;
	long n;

	while (len > 0) {
		n = condor_sys4(SYS_pread64, fd, p, len, off);
		if (n == -EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n, len -= (uint64_t)n, off += (uint64_t)n;
	}
	return 0;
}

static int
overlaps_saved(const struct ckpt_head *h, uint64_t lo, uint64_t hi)
{
	const struct ckpt_region *r = CKPT_REGIONS(h);
	uint32_t i;

	for (i = 0; i < h->nregions; i++)
		if (lo < r[i].end + PAGE && hi + PAGE > r[i].start)
			return 1;
	return 0;
}

static void restart_main(void *);

static uint64_t
ms_now(void)
{
	struct timespec ts;

	condor_sys2(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int	ckpt_exe_verified;
void	ckpt_entry_check(void);

/*
 * ckpt_entry_check: called by condor_ckpt_entry before libc's start-up:
 * no TLS, no libc, only the gate (mapped here; the filter a relinked
 * parent may have installed lets the gate page through).  It runs again
 * in the image the start-up code re-executes for a fixed layout: about
 * 0.2 ms a megabyte of executable.
 */
void
ckpt_entry_check(void)
{
	extern struct ckpt_marker condor_relinked_marker;
	volatile struct ckpt_marker *mk = &condor_relinked_marker;
	struct ckpt_head head;
	struct ckpt_sumctx sc;
	char buf[16384];
	uint64_t at, n;
	long fd;

	/* Only a checkpoint's header names this entry point. */
	if (condor_gate_install() < 0)
		return;
	if (!mk->is_ckpt || cj_strncmp((const char *)mk->magic,
	    CKPT_MARKER_MAGIC, sizeof(CKPT_MARKER_MAGIC)) != 0)
		refuse("its marker is corrupt", 0);
	fd = condor_sys3(SYS_open, "/proc/self/exe", O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (pread_full(fd, &head, sizeof(head), mk->state_off) < 0 ||
	    cj_strncmp(head.magic, CKPT_HEAD_MAGIC, 8) != 0 ||
	    head.exe_len > mk->state_off)
		refuse("the file is truncated or its marker is corrupt", 0);
	ckpt_sum_init(&sc);
	for (at = 0; at < head.exe_len; at += n) {
		n = head.exe_len - at < sizeof(buf) ? head.exe_len - at :
		    sizeof(buf);
		if (pread_full(fd, buf, n, at) < 0)
			refuse("the file is truncated", 0);
		ckpt_sum_more(&sc, buf, n);
	}
	if (ckpt_sum_end(&sc) != head.exe_sum)
		refuse("checksum mismatch in the executable part", 0);
	condor_sys1(SYS_close, fd);
	ckpt_exe_verified = 1;
}

/* Unregister rseq if glibc registered it (GLIBC_TUNABLES not honoured). */
static void
rseq_off(void)
{
	uint64_t fs = 0;

	if (__rseq_size == 0)
		return;
	condor_sys2(SYS_arch_prctl, ARCH_GET_FS, &fs);
	if (condor_sys4(SYS_rseq, fs + (uint64_t)__rseq_offset, 32,
	    RSEQ_FLAG_UNREGISTER, RSEQ_SIG) < 0)
		condor_sys4(SYS_rseq, fs + (uint64_t)__rseq_offset,
		    __rseq_size, RSEQ_FLAG_UNREGISTER, RSEQ_SIG);
}

/*
 * Incremental checkpoints (ckpt.c): a delta of this very image beside
 * it (FILE.delta1 naming this image as its parent) means this file is
 * not the program's latest state, and running it would silently go
 * back in time.  Refused, saying how to fold them.
 */
static void
deltas_beside(const struct ckpt_head *h)
{
	static char name[PATH_MAX + 16];
	struct ckpt_delta d;
	long fd, n;

	/* Its own path (the start-up may have re-executed it through
	 * /proc/self/exe); under Condor there is no /proc to ask, nor a
	 * delta beside the starter's copy. */
	n = condor_sys3(SYS_readlink, "/proc/self/exe", name, PATH_MAX - 1);
	if (n <= 0 || h->image_id == 0)
		return;
	name[n] = '\0';
	cj_strlcat(name, ".delta1", sizeof(name));
	if ((fd = condor_sys3(SYS_open, name, O_RDONLY | O_CLOEXEC, 0)) < 0)
		return;
	n = pread_full(fd, &d, sizeof(d), 0);
	condor_sys1(SYS_close, fd);
	if (n < 0 || ckpt_delta_check(&d, 0) != 0 || d.parent_id != h->image_id)
		return;
	refuse("its incremental checkpoints must be folded in first "
	    "(condor_ckpt merge): ", name);
}

void
ckpt_restart(const struct ckpt_marker *mk, char **envp)
{
	struct ckpt_head head;
	struct stat st;
	struct rs *rs;
	const char *bad;
	char *tmp, *scr = 0;
	uint64_t len = mk->state_len, size, k;
	long fd, p, proc_fds[CKPT_PROC_N];
	int i;

	/* Under Condor: /proc before the sandbox's filter (ckpt_proc.c). */
	ckpt_proc_cache(envp, proc_fds);
	for (i = 0; i < CKPT_PROC_N; i++)
		ckpt_proc_fds[i] = proc_fds[i];
	fd = ckpt_proc_open("/proc/self/exe");
	if (fd < 0)
		fd = condor_sys3(SYS_open, (const char *)getauxval(AT_EXECFN),
		    O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		refuse("cannot open its own executable file", 0);
	if (condor_sys2(SYS_fstat, fd, &st) < 0)
		refuse("cannot stat its own executable file", 0);
	if (mk->version != CKPT_VERSION)
		refuse("it was written by another version", 0);
	if (mk->state_off > (uint64_t)st.st_size || len < sizeof(head) ||
	    len > (uint64_t)st.st_size - mk->state_off || len > (256UL << 20))
		refuse("the file is truncated or its marker is corrupt", 0);
	p = condor_sys6(SYS_mmap, 0, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p < 0 && p > -4096)
		refuse("out of memory", 0);
	tmp = (char *)p;
	if (pread_full(fd, tmp, len, mk->state_off) < 0)
		refuse("cannot read the restart state (file truncated?)", 0);
	if ((bad = ckpt_state_check((struct ckpt_head *)tmp, len,
	    (uint64_t)st.st_size)) != 0)
		refuse(bad, 0);
	cj_memcpy(&head, tmp, sizeof(head));
	if (ckpt_state_offset(&head) != mk->state_off ||
	    head.exe_len > mk->state_off)
		refuse("the restart state is not where the layout puts it", 0);
	if (ckpt_start_brk() != head.start_brk)
		refuse("the heap would start at another address than when it "
		    "was checkpointed (address space randomization?)", 0);
	deltas_beside(&head);

	/* Scratch: the state, our variables, a buffer, a stack. */
	size = ((len + PAGE - 1) & ~(PAGE - 1)) + ((sizeof(*rs) + PAGE - 1) &
	    ~(PAGE - 1)) + RS_IOBUF + RS_VDSO + RS_STACK;
	for (k = 1; k < 127 && scr == 0; k++) {
		uint64_t at = k << 40;

		if (overlaps_saved((struct ckpt_head *)tmp, at, at + size))
			continue;
		p = condor_sys6(SYS_mmap, at, size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (p == (long)at)
			scr = (char *)p;
		else if (p >= 0 || p < -4095)
			condor_sys2(SYS_munmap, p, size);
	}
	if (scr == 0)
		refuse("no room for the restart's scratch memory", 0);
	cj_memcpy(scr, tmp, len);
	condor_sys2(SYS_munmap, tmp, len);
	rs = (struct rs *)(scr + ((len + PAGE - 1) & ~(PAGE - 1)));
	rs->h = (struct ckpt_head *)scr;
	rs->scratch = scr;
	rs->scratch_len = size;
	rs->iobuf = (char *)rs + ((sizeof(*rs) + PAGE - 1) & ~(PAGE - 1));
	rs->vdso_tmp = rs->iobuf + RS_IOBUF;
	rs->exe_fd = fd;
	rs->file_size = (uint64_t)st.st_size;
	ckpt_fixup_from_env(&rs->fix, CKPT_STR(rs->h, rs->h->program), envp);
	/* The notification descriptor out of the way of the program's own,
	 * which the restored ones may be (its file on 3, say). */
	if (rs->fix.notify_fd >= 0 && rs->fix.notify_fd < CKPT_PROC_FD_LOW &&
	    (p = condor_sys3(SYS_fcntl, rs->fix.notify_fd, F_DUPFD_CLOEXEC,
	    CKPT_PROC_FD_LOW)) >= 0) {
		condor_sys1(SYS_close, rs->fix.notify_fd);
		rs->fix.notify_fd = (int)p;
	}
	for (i = 0; i < CKPT_PROC_N; i++)
		rs->proc_fds[i] = proc_fds[i];
	/* Under Condor its files are reopened at the new shadow. */
	rs->remote = remote_client_init(envp);
	rs->syscall_fd = remote_syscall_fd;
	if (rs->remote)
		rs->fix.mode = REMOTE_MODE_REMOTE;
	rseq_off();
	rs->t0 = ms_now();
	/* Memory on demand: its helper before the sandbox's filters, which
	 * refuse userfaultfd and clone.  Under Condor the program cannot
	 * fork (remote_outer.c); elsewhere the helper must follow forks. */
	rs->lazy_on = ckpt_lazy_start(&rs->lazy, rs->h, fd, rs->fix.notify_fd,
	    rs->fix.restore, rs->fix.uffd_dev, !rs->remote);
	if (rs->fix.uffd_dev >= 0)
		condor_sys1(SYS_close, rs->fix.uffd_dev);
	rs->lazy_fd = -1;
	/* Incremental checkpoints: the tracking's userfaultfd, before the
	 * filters (ckpt_incr.c); its first checkpoint is full. */
	rs->trk_uffd = rs->fix.incremental ? ckpt_incr_open(&rs->trk_why) : -1;
	if (remote_trap_install((enum remote_mode)rs->fix.mode,
	    rs->fix.trap_all) < 0)
		refuse("cannot install the system-call trap", 0);
	ckpt_call_on_stack(restart_main, rs, scr + size);
}

/* ---------------------------------------------------------------- */

static const char *
errstr(long e)
{
	switch (-e) {
	case ENOENT:
		return " (no such file or directory)";
	case EACCES:
		return " (permission denied)";
	case EISDIR:
		return " (is a directory)";
	case EMFILE:
	case ENFILE:
		return " (too many open files)";
	default:
		return "";
	}
}

static void
say_path(const char *why, const char *path, long err)
{
	char msg[PATH_MAX + 64];

	cj_strlcpy(msg, path, sizeof(msg));
	cj_strlcat(msg, errstr(err), sizeof(msg));
	refuse(why, msg);
}

/* Parse /proc/self/maps for the stack and the kernel's special pages. */
static void
current_map(struct rs *rs)
{
	static const char *const names[3] = {
		"[vvar]", "[vvar_vclock]", "[vdso]"
	};
	char *p, *line;
	long fd, n, at = 0;
	int k;

	cj_memset(rs->cur_special, 0, sizeof(rs->cur_special));
	rs->cur_stack_lo = rs->cur_stack_hi = 0;
	fd = maps_open(rs);
	if (fd < 0)
		refuse("cannot read /proc/self/maps", 0);
	while (at < (long)RS_IOBUF - 1 && (n = condor_sys3(SYS_read, fd,
	    rs->iobuf + at, RS_IOBUF - 1 - (uint64_t)at)) > 0)
		at += n;
	condor_sys1(SYS_close, fd);
	rs->iobuf[at] = '\0';
	for (line = rs->iobuf; *line != '\0'; line = p) {
		uint64_t lo = 0, hi = 0;
		char *name;

		for (p = line; *p != '-'; p++)
			lo = lo * 16 + (uint64_t)(*p <= '9' ? *p - '0' :
			    *p - 'a' + 10);
		for (p++; *p != ' '; p++)
			hi = hi * 16 + (uint64_t)(*p <= '9' ? *p - '0' :
			    *p - 'a' + 10);
		for (name = p; *name != '\n' && *name != '[' && *name != '\0';)
			name++;
		for (p = name; *p != '\n' && *p != '\0'; p++)
			;
		if (*p == '\n')
			*p++ = '\0';
		if (cj_strcmp(name, "[stack]") == 0) {
			rs->cur_stack_lo = lo;
			rs->cur_stack_hi = hi;
		}
		for (k = 0; k < 3; k++)
			if (cj_strcmp(name, names[k]) == 0) {
				rs->cur_special[k][0] = lo;
				rs->cur_special[k][1] = hi;
			}
	}
}

static const struct ckpt_region *
saved_of(const struct ckpt_head *h, uint32_t kind)
{
	const struct ckpt_region *r = CKPT_REGIONS(h);
	uint32_t i;

	for (i = 0; i < h->nregions; i++)
		if (r[i].kind == kind)
			return &r[i];
	return 0;
}

static int
is_mapped_kind(uint32_t kind)
{
	return kind == CKPT_R_DATA || kind == CKPT_R_BSS ||
	    kind == CKPT_R_HEAP || kind == CKPT_R_ANON;
}

/* The checksum of LEN bytes of the checkpoint file at OFF. */
static uint32_t
ckpt_file_sum(struct rs *rs, uint64_t off, uint64_t len)
{
	struct ckpt_sumctx sc;
	uint64_t at, n;

	ckpt_sum_init(&sc);
	for (at = 0; at < len; at += n) {
		n = len - at < RS_IOBUF ? len - at : RS_IOBUF;
		if (pread_full(rs->exe_fd, rs->iobuf, n, off + at) < 0)
			refuse("the file is truncated", 0);
		ckpt_sum_more(&sc, rs->iobuf, n);
	}
	return ckpt_sum_end(&sc);
}

/*
 * Move a descriptor of the restart's own to MINFD or above, where no
 * descriptor of the restored program will be put.
 */
static long
above(long fd, long minfd)
{
	long nfd;

	if (fd >= minfd)
		return fd;
	nfd = condor_sys3(SYS_fcntl, fd, F_DUPFD_CLOEXEC, minfd);
	condor_sys1(SYS_close, fd);
	if (nfd < 0)
		refuse("too many open files", 0);
	return nfd;
}

/*
 * Under Condor the program's descriptors are the shadow's, which the
 * replacement of its memory does not touch: every file reopens at the
 * new shadow (without O_CREAT/O_EXCL/O_TRUNC), seeks to its offset and
 * goes on its descriptor here; the standard files the new shadow
 * inherited seek back to theirs; the working directory is the
 * shadow's.
 */
static void
remote_files(struct rs *rs, long minfd)
{
	const struct ckpt_head *h = rs->h;
	const struct ckpt_file *f = CKPT_FILES(h);
	const struct ckpt_fd *d = CKPT_FDS(h);
	uint32_t i;
	long fd, nfd;

	for (i = 0; i < h->nfiles; i++) {
		rs->file_fd[i] = -1;
		if (f[i].kind != CKPT_F_FILE)
			continue;
		fd = rcall(SYS_openat, AT_FDCWD, (long)CKPT_STR(h, f[i].path),
		    (f[i].flags & ~(O_CREAT | O_EXCL | O_TRUNC)) | O_CLOEXEC,
		    0);
		if (fd < 0)
			say_path("cannot reopen ", CKPT_STR(h, f[i].path), fd);
		if (f[i].offset >= 0)
			(void)rcall(SYS_lseek, fd, f[i].offset, SEEK_SET, 0);
		if (fd < minfd) {
			nfd = rcall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, minfd, 0);
			(void)rcall(SYS_close, fd, 0, 0, 0);
			if (nfd < 0)
				refuse("too many open files", 0);
			fd = nfd;
		}
		rs->file_fd[i] = fd;
	}
	for (i = 0; i < h->nfds; i++) {
		const struct ckpt_file *of = &f[d[i].file];

		if (of->kind == CKPT_F_FILE) {
			if (rcall(SYS_dup3, rs->file_fd[d[i].file], d[i].fd,
			    d[i].cloexec ? O_CLOEXEC : 0, 0) < 0)
				refuse("cannot put a file back on its "
				    "descriptor", 0);
		} else if (of->offset >= 0)
			(void)rcall(SYS_lseek, d[i].fd, of->offset, SEEK_SET,
			    0);
	}
	for (i = 0; i < h->nfiles; i++)
		if (rs->file_fd[i] >= 0) {
			(void)rcall(SYS_close, rs->file_fd[i], 0, 0, 0);
			rs->file_fd[i] = -1;
		}
	if ((fd = rcall(SYS_chdir, (long)CKPT_STR(h, h->cwd), 0, 0, 0)) < 0)
		say_path("its working directory is gone: ", CKPT_STR(h, h->cwd),
		    fd);
	rs->cwd_fd = -1;
}

/* Checks that need nothing destroyed; refuses on failure. */
static void
check_everything(struct rs *rs)
{
	const struct ckpt_head *h = rs->h;
	const struct ckpt_region *r = CKPT_REGIONS(h), *s;
	const struct ckpt_file *f = CKPT_FILES(h);
	const struct ckpt_fd *d = CKPT_FDS(h);
	struct rlimit rl;
	uint64_t at, n;
	uint32_t i, nshared = 0;
	long fd, minfd = 3;
	int k;

	/* The executable part (unless condor_ckpt_entry did), the padding
	 * after it, the trailer after the state. */
	if (!ckpt_exe_verified && ckpt_file_sum(rs, 0, h->exe_len) !=
	    h->exe_sum)
		refuse("checksum mismatch in the executable part", 0);
	n = h->data_off - h->exe_len;
	if (n > PAGE || pread_full(rs->exe_fd, rs->iobuf, n, h->exe_len) < 0)
		refuse("the file is truncated", 0);
	for (at = 0; at < n; at++)
		if (rs->iobuf[at] != 0)
			refuse("the padding after the executable part is not "
			    "zero", 0);
	at = ckpt_state_offset(h) + h->state_len;
	if (at > rs->file_size || ckpt_file_sum(rs, at, rs->file_size - at) !=
	    h->trailer_sum)
		refuse("checksum mismatch in the section headers", 0);

	/* Layout. */
	current_map(rs);
	if ((s = saved_of(h, CKPT_R_STACK)) == 0)
		refuse("no stack was saved", 0);
	if (rs->cur_stack_hi != s->end)
		refuse("the stack would end at another address than when it "
		    "was checkpointed", 0);
	if (condor_sys4(SYS_prlimit64, 0, RLIMIT_STACK, 0, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY && s->end - s->start > rl.rlim_cur)
		refuse("its stack is larger than the stack limit (ulimit -s)",
		    0);
	for (k = 0; k < 3; k++) {
		static const uint32_t kinds[3] = {
			CKPT_R_VVAR, CKPT_R_VVAR_VCLOCK, CKPT_R_VDSO
		};

		s = saved_of(h, kinds[k]);
		if ((s == 0) != (rs->cur_special[k][0] == 0) || (s != 0 &&
		    s->end - s->start != rs->cur_special[k][1] -
		    rs->cur_special[k][0]))
			refuse("this kernel's [vdso]/[vvar] differ from the "
			    "checkpointed ones (another kernel?)", 0);
	}

	/* Descriptors we use stay above every saved one. */
	for (i = 0; i < h->nfds; i++)
		if (d[i].fd >= minfd)
			minfd = d[i].fd + 1;
	if (condor_sys4(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, &rl) == 0 &&
	    (uint64_t)minfd + h->nfiles + MAX_SHARED + 8 > rl.rlim_cur)
		refuse("its descriptors exceed the open file limit "
		    "(ulimit -n)", 0);
	rs->exe_fd = above(rs->exe_fd, minfd);

	if (rs->remote) {
		remote_files(rs, minfd);
		return;
	}

	/* Files. */
	for (i = 0; i < h->nfiles; i++) {
		rs->file_fd[i] = -1;
		if (f[i].kind != CKPT_F_FILE)
			continue;
		fd = condor_sys3(SYS_open, CKPT_STR(h, f[i].path),
		    (f[i].flags & ~(O_CREAT | O_EXCL | O_TRUNC)) | O_CLOEXEC,
		    0);
		if (fd < 0)
			say_path("cannot reopen ", CKPT_STR(h, f[i].path), fd);
		if (f[i].offset >= 0)
			(void)condor_sys3(SYS_lseek, fd, f[i].offset, SEEK_SET);
		rs->file_fd[i] = above(fd, minfd);
	}
	for (i = 0; i < h->nregions; i++) {
		if (r[i].kind != CKPT_R_SHARED)
			continue;
		if (nshared >= MAX_SHARED)
			refuse("too many shared file mappings", 0);
		fd = condor_sys3(SYS_open, CKPT_STR(h, r[i].name),
		    (r[i].prot & PROT_WRITE ? O_RDWR : O_RDONLY) | O_CLOEXEC,
		    0);
		if (fd < 0)
			say_path("cannot reopen the mapped file ",
			    CKPT_STR(h, r[i].name), fd);
		rs->shared_fd[nshared++] = above(fd, minfd);
	}
	fd = condor_sys3(SYS_open, CKPT_STR(h, h->cwd),
	    O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd < 0)
		say_path("its working directory is gone: ", CKPT_STR(h, h->cwd),
		    fd);
	rs->cwd_fd = above(fd, minfd);
}

static void
move_specials(struct rs *rs)
{
	static const uint32_t kinds[3] = {
		CKPT_R_VVAR, CKPT_R_VVAR_VCLOCK, CKPT_R_VDSO
	};
	const struct ckpt_region *s;
	char *tmp = rs->vdso_tmp;
	uint64_t len;
	int k, moved = 0;
	long r;

	for (k = 0; k < 3; k++) {
		s = saved_of(rs->h, kinds[k]);
		if (s != 0 && s->start != rs->cur_special[k][0])
			moved = 1;
	}
	if (!moved)
		return;
	/* Out of the way first (they may sit where another must go). */
	for (k = 0; k < 3; k++) {
		if (rs->cur_special[k][0] == 0)
			continue;
		len = rs->cur_special[k][1] - rs->cur_special[k][0];
		r = condor_sys5(SYS_mremap, rs->cur_special[k][0], len, len,
		    MREMAP_MAYMOVE | MREMAP_FIXED, tmp);
		if (r != (long)tmp)
			refuse("cannot move the vDSO", 0);
		rs->cur_special[k][0] = (uint64_t)tmp;
		rs->cur_special[k][1] = (uint64_t)tmp + len;
		tmp += len;
	}
	for (k = 0; k < 3; k++) {
		if ((s = saved_of(rs->h, kinds[k])) == 0)
			continue;
		len = s->end - s->start;
		r = condor_sys5(SYS_mremap, rs->cur_special[k][0], len, len,
		    MREMAP_MAYMOVE | MREMAP_FIXED, s->start);
		if (r != (long)s->start)
			refuse("cannot move the vDSO back", 0);
	}
}

/*
 * A private anonymous mapping of LEN bytes at ADDR (MAP_FIXED), or a
 * shared one.  A region the kernel would not commit memory for without
 * MAP_NORESERVE (a 2 TiB one with a few pages used) gets the flag, as
 * the program must have given it.
 */
static long
map_anon(uint64_t addr, uint64_t len, int shared)
{
	int flags = (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS |
	    MAP_FIXED;
	long p;

	p = condor_sys6(SYS_mmap, addr, len, PROT_READ | PROT_WRITE, flags,
	    -1, 0);
	if (p == -ENOMEM)
		p = condor_sys6(SYS_mmap, addr, len, PROT_READ | PROT_WRITE,
		    flags | MAP_NORESERVE, -1, 0);
	return p;
}

/*
 * A shared memory object that is not a file (MAP_SHARED|MAP_ANONYMOUS
 * shows as "/dev/zero (deleted)", memfd_create's as "/memfd:NAME
 * (deleted)"): a new one of the same kind, its contents filled in after.
 */
static long
map_shared_anon(const struct ckpt_region *r, const char *name)
{
	char mname[256];
	uint64_t len = r->end - r->start;
	size_t n;
	long fd, p;

	if (cj_strncmp(name, "/memfd:", 7) != 0)
		return map_anon(r->start, len, 1);
	cj_strlcpy(mname, name + 7, sizeof(mname));
	n = cj_strlen(mname);
	if (n > 10 && cj_strcmp(mname + n - 10, " (deleted)") == 0)
		mname[n - 10] = '\0';
	fd = condor_sys2(SYS_memfd_create, mname, MFD_CLOEXEC);
	if (fd < 0)
		return map_anon(r->start, len, 1);
	p = -EINVAL;
	if (condor_sys2(SYS_ftruncate, fd, r->file_off + len) == 0)
		p = condor_sys6(SYS_mmap, r->start, len, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_FIXED, fd, r->file_off);
	condor_sys1(SYS_close, fd);
	return p == (long)r->start ? p : map_anon(r->start, len, 1);
}

/*
 * A private mapping of a file again: the executable's data from the
 * checkpoint (whose first exe_len bytes are the executable), another
 * file by its name.  -1 if the file cannot be mapped as it was (gone,
 * shorter now, refused by the sandbox): the region is then private
 * anonymous memory with the same contents.
 */
static long
map_file(struct rs *rs, const struct ckpt_region *r)
{
	uint64_t len = r->end - r->start;
	struct stat st;
	long fd, p;

	if (!(r->flags & CKPT_RF_FILE) || r->file_off % PAGE != 0)
		return -1;
	if (r->kind == CKPT_R_DATA) {
		if (r->file_off > rs->h->exe_len ||
		    len > rs->h->exe_len - r->file_off)
			return -1;
		p = condor_sys6(SYS_mmap, r->start, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_FIXED, rs->exe_fd, r->file_off);
		return p == (long)r->start ? 0 : -1;
	}
	fd = condor_sys3(SYS_open, CKPT_STR(rs->h, r->name),
	    O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	p = -1;
	if (condor_sys2(SYS_fstat, fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size >= r->file_off + len)
		p = condor_sys6(SYS_mmap, r->start, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_FIXED, fd, r->file_off);
	condor_sys1(SYS_close, fd);
	return p == (long)r->start ? 0 : -1;
}

/*
 * Every saved region becomes the kind of memory it was, writable for
 * now: anonymous memory fresh from the kernel (the heap from the break
 * set before), private mappings of files, shared mappings.  Their
 * contents come next (fill_regions).
 */
static void
map_regions(struct rs *rs)
{
	const struct ckpt_head *h = rs->h;
	const struct ckpt_region *r = CKPT_REGIONS(h);
	uint32_t i, nshared = 0;
	long p;

	for (i = 0; i < h->nregions; i++) {
		const char *name = CKPT_STR(h, r[i].name);

		switch (r[i].kind) {
		case CKPT_R_SHARED:
			p = condor_sys6(SYS_mmap, r[i].start,
			    r[i].end - r[i].start, r[i].prot,
			    MAP_SHARED | MAP_FIXED, rs->shared_fd[nshared++],
			    r[i].file_off);
			if (p != (long)r[i].start)
				refuse("cannot map a shared file back", 0);
			continue;
		case CKPT_R_HEAP:
			/* The break made it. */
			continue;
		case CKPT_R_DATA:
		case CKPT_R_BSS:
		case CKPT_R_ANON:
			break;
		default:
			continue;
		}
		if (r[i].kind == CKPT_R_BSS && condor_sys3(SYS_mprotect,
		    r[i].start, r[i].end - r[i].start,
		    PROT_READ | PROT_WRITE) == 0 && condor_sys3(SYS_madvise,
		    r[i].start, r[i].end - r[i].start, MADV_DONTNEED) == 0)
			continue;	/* the kernel's own, emptied */
		if (r[i].kind == CKPT_R_ANON && !(r[i].flags & CKPT_RF_PRIVATE))
			p = map_shared_anon(&r[i], name);
		else if (map_file(rs, &r[i]) == 0) {
			SET_FILEMAP(rs, i);
			continue;
		}
		else
			p = map_anon(r[i].start, r[i].end - r[i].start, 0);
		if (p != (long)r[i].start)
			refuse("cannot map memory back", 0);
	}
}

/*
 * The heap: the break goes down to where the heap starts (the start-up
 * code's own heap goes) and up to the saved break, so the whole heap is
 * fresh memory the kernel gave the break, as the program's was.
 */
static void
restore_break(struct rs *rs)
{
	const struct ckpt_head *h = rs->h;
	uint64_t hi = (h->brk + PAGE - 1) & ~(PAGE - 1);

	if ((uint64_t)condor_sys1(SYS_brk, h->start_brk) != h->start_brk)
		refuse("cannot set the break", 0);
	if (hi > h->start_brk)
		condor_sys2(SYS_munmap, h->start_brk, hi - h->start_brk);
	if ((uint64_t)condor_sys1(SYS_brk, h->brk) != h->brk)
		refuse("cannot set the break", 0);
}

/* Unmap what this process has and the checkpointed one had not. */
static void
unmap_leftovers(struct rs *rs)
{
	const struct ckpt_head *h = rs->h;
	const struct ckpt_region *r = CKPT_REGIONS(h);
	uint64_t scr_lo = (uint64_t)rs->scratch;
	uint64_t scr_hi = scr_lo + rs->scratch_len;
	char *p, *line;
	long fd, n, at = 0;
	uint32_t i;

	fd = maps_open(rs);
	if (fd < 0)
		return;
	while (at < (long)RS_IOBUF - 1 && (n = condor_sys3(SYS_read, fd,
	    rs->iobuf + at, RS_IOBUF - 1 - (uint64_t)at)) > 0)
		at += n;
	condor_sys1(SYS_close, fd);
	rs->iobuf[at] = '\0';
	for (line = rs->iobuf; *line != '\0'; line = p) {
		uint64_t lo = 0, hi = 0, a;

		for (p = line; *p != '-'; p++)
			lo = lo * 16 + (uint64_t)(*p <= '9' ? *p - '0' :
			    *p - 'a' + 10);
		for (p++; *p != ' '; p++)
			hi = hi * 16 + (uint64_t)(*p <= '9' ? *p - '0' :
			    *p - 'a' + 10);
		while (*p != '\n' && *p != '\0')
			p++;
		if (*p == '\n')
			p++;
		if (lo == CONDOR_GATE_ADDR || hi > 0x800000000000ULL)
			continue;
		if (lo >= rs->cur_stack_lo && hi <= rs->cur_stack_hi)
			continue;
		/* Unmap [lo, hi) less the saved regions and our scratch
		 * (which the kernel may have merged with a neighbour). */
		a = lo;
		while (a < hi) {
			uint64_t k_lo = hi, k_hi = hi;

			for (i = 0; i <= h->nregions; i++) {
				uint64_t s_lo = i < h->nregions ? r[i].start :
				    scr_lo;
				uint64_t s_hi = i < h->nregions ? r[i].end :
				    scr_hi;

				if (s_hi > a && s_lo < k_lo) {
					k_lo = s_lo;
					k_hi = s_hi;
				}
			}
			if (k_lo > a)
				condor_sys2(SYS_munmap, a,
				    (k_lo < hi ? k_lo : hi) - a);
			a = k_hi > a ? k_hi : a;
		}
	}
}

/*
 * Read extent E from the checkpoint into its place, in chunks, each
 * summed as it arrives (still in the cache); a mismatch stops the
 * restart before the program could run on bad data.
 */
static void
fill_extent(struct rs *rs, const struct ckpt_extent *e)
{
	struct ckpt_sumctx sc;
	char *p = (char *)e->addr, a[24];
	uint64_t at, n;

	ckpt_sum_init(&sc);
	for (at = 0; at < e->len; at += n) {
		n = e->len - at < RS_CHUNK ? e->len - at : RS_CHUNK;
		/* The pages in one go rather than a fault each (about 12%
		 * less time; older kernels say EINVAL and fault them). */
		condor_sys3(SYS_madvise, p + at, n, MADV_POPULATE_WRITE);
		if (pread_full(rs->exe_fd, p + at, n, e->off + at) < 0)
			refuse("cannot read memory back (file truncated?)", 0);
		ckpt_sum_more(&sc, p + at, n);
	}
	if (ckpt_sum_end(&sc) != e->sum)
		refuse("checksum mismatch in memory at 0x",
		    cj_utoa(e->addr, a, 16));
}

static int
page_is_zero(const uint64_t *p)
{
	size_t i;

	for (i = 0; i < PAGE / 8; i += 8)
		if ((p[i] | p[i + 1] | p[i + 2] | p[i + 3] | p[i + 4] |
		    p[i + 5] | p[i + 6] | p[i + 7]) != 0)
			return 0;
	return 1;
}

/* Pages of a file mapping in [lo, hi) that were zero when saved. */
static void
zero_pages(uint64_t lo, uint64_t hi)
{
	for (; lo < hi; lo += PAGE)
		if (!page_is_zero((const uint64_t *)lo))
			cj_memset((void *)lo, 0, PAGE);
}

static void
restore_stack(struct rs *rs)
{
	const struct ckpt_head *h = rs->h;
	const struct ckpt_region *s = saved_of(h, CKPT_R_STACK);
	const struct ckpt_extent *e = CKPT_EXTENTS(h);
	volatile char *q;
	uint64_t a, j;

	/* Grow the stack down to the saved size, a page at a time. */
	for (a = rs->cur_stack_lo; a > s->start; a -= PAGE) {
		q = (volatile char *)(a - PAGE);
		*q = 0;
	}
	a = s->start;
	for (j = s->first_extent; j < s->first_extent + s->nextents; j++) {
		if (e[j].addr > a)
			cj_memset((void *)a, 0, e[j].addr - a);
		fill_extent(rs, &e[j]);
		a = e[j].addr + e[j].len;
	}
	if (a < s->end)
		cj_memset((void *)a, 0, s->end - a);
}

/*
 * The contents: every extent read into its region; in a file mapping
 * the pages between extents (zero when saved) made zero; then each
 * region's protection.
 */
static void
fill_regions(struct rs *rs)
{
	const struct ckpt_head *h = rs->h;
	const struct ckpt_region *r = CKPT_REGIONS(h);
	const struct ckpt_extent *e = CKPT_EXTENTS(h);
	uint64_t a;
	uint32_t i, j;

	for (i = 0; i < h->nregions; i++) {
		if (!is_mapped_kind(r[i].kind))
			continue;
		if (IS_LAZY(rs, i))
			goto prot;	/* the helper fills it */
		a = r[i].start;
		for (j = r[i].first_extent; j < r[i].first_extent +
		    r[i].nextents; j++) {
			if (IS_FILEMAP(rs, i))
				zero_pages(a, e[j].addr);
			fill_extent(rs, &e[j]);
			a = e[j].addr + e[j].len;
		}
		if (IS_FILEMAP(rs, i))
			zero_pages(a, r[i].end);
prot:
		if (r[i].prot != (PROT_READ | PROT_WRITE))
			condor_sys3(SYS_mprotect, r[i].start,
			    r[i].end - r[i].start, r[i].prot);
	}
}

static void
restore_files(struct rs *rs)
{
	const struct ckpt_head *h = rs->h;
	const struct ckpt_file *f = CKPT_FILES(h);
	const struct ckpt_fd *d = CKPT_FDS(h);
	char buf[4096];
	long dfd, n, pos;
	uint32_t i;
	int fd, k;

	if (rs->remote)
		return;		/* remote_files did it all */
	for (i = 0; i < h->nfds; i++) {
		if (f[d[i].file].kind != CKPT_F_FILE)
			continue;
		if (condor_sys3(SYS_dup3, rs->file_fd[d[i].file], d[i].fd,
		    d[i].cloexec ? O_CLOEXEC : 0) < 0)
			refuse("cannot put a file back on its descriptor", 0);
	}
	for (i = 0; i < h->nfiles; i++)
		if (rs->file_fd[i] >= 0)
			condor_sys1(SYS_close, rs->file_fd[i]);
	/* Close what the checkpointed program did not have open. */
	dfd = condor_sys3(SYS_open, "/proc/self/fd", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC, 0);
	if (dfd < 0)
		return;
	while ((n = condor_sys3(SYS_getdents64, dfd, buf, sizeof(buf))) > 0)
		for (pos = 0; pos < n;) {
			unsigned short reclen = *(unsigned short *)(buf + pos + 16);
			const char *name = buf + pos + 19;
			int found = 0;

			pos += reclen;
			if (name[0] < '0' || name[0] > '9')
				continue;
			for (fd = 0, k = 0; name[k] >= '0' && name[k] <= '9' &&
			    fd < 1 << 20; k++)
				fd = fd * 10 + (name[k] - '0');
			if (fd == dfd || fd == rs->exe_fd ||
			    fd == rs->cwd_fd || fd == rs->lazy_fd ||
			    fd == rs->fix.notify_fd)
				continue;
			for (i = 0; i < h->nfds && !found; i++)
				found = d[i].fd == fd;
			if (!found)
				condor_sys1(SYS_close, fd);
		}
	condor_sys1(SYS_close, dfd);
}

static void
restore_signals(struct rs *rs)
{
	const struct ckpt_head *h = rs->h;
	struct itimerval itv;
	stack_t ss;
	int i;

	for (i = 1; i <= CKPT_NSIG; i++) {
		if (i == SIGKILL || i == SIGSTOP)
			continue;
		condor_sys4(SYS_rt_sigaction, i, &h->sigactions[i - 1], 0, 8);
	}
	cj_memset(&ss, 0, sizeof(ss));
	if (h->altstack_flags & SS_DISABLE)
		ss.ss_flags = SS_DISABLE;
	else {
		ss.ss_sp = (void *)h->altstack_sp;
		ss.ss_size = h->altstack_size;
		ss.ss_flags = (int)(h->altstack_flags & ~(uint32_t)SS_ONSTACK);
	}
	condor_sys2(SYS_sigaltstack, &ss, 0);
	for (i = 0; i < 3; i++) {
		itv.it_interval.tv_sec = h->itimers[i].interval_sec;
		itv.it_interval.tv_usec = h->itimers[i].interval_usec;
		itv.it_value.tv_sec = h->itimers[i].value_sec;
		itv.it_value.tv_usec = h->itimers[i].value_usec;
		if (itv.it_value.tv_sec != 0 || itv.it_value.tv_usec != 0)
			condor_sys3(SYS_setitimer, i, &itv, 0);
	}
}

/*
 * The regions the helper fills (ckpt_lazy.c), registered now that they
 * are fresh anonymous memory; then it starts.
 */
static void
register_lazy(struct rs *rs)
{
	const struct ckpt_head *h = rs->h;
	const struct ckpt_region *r = CKPT_REGIONS(h);
	uint32_t i, k, n = 0;
	long fd;

	if (!rs->lazy_on)
		return;
	/*
	 * Registering a region changes its flags, and the kernel then joins
	 * it to an adjacent region it can merge with (the heap to the bss:
	 * one [heap]).  Filling it would have given it an anon_vma of its
	 * own, which keeps it apart: so a write fault first, its page
	 * emptied again.  Meanwhile neighbours carry different flags
	 * (protections do not count), else a fault shares the neighbour's
	 * anon_vma.
	 */
	for (k = 0; k < 3; k++)
		for (i = 0, n = 0; i < h->nregions; i++) {
			uint64_t len = r[i].end - r[i].start;

			if (!ckpt_lazy_region(h, &r[i]) || IS_FILEMAP(rs, i) ||
			    r[i].nextents == 0)
				continue;
			if (k == 0)
				condor_sys3(SYS_madvise, r[i].start, len,
				    n % 2 ? MADV_WIPEONFORK : MADV_DONTFORK);
			else if (k == 1) {
				*(volatile char *)r[i].start = 0;
				condor_sys3(SYS_madvise, r[i].start, PAGE,
				    MADV_DONTNEED);
			} else
				condor_sys3(SYS_madvise, r[i].start, len,
				    n % 2 ? MADV_KEEPONFORK : MADV_DOFORK);
			n++;
		}
	n = 0;
	for (i = 0; i < h->nregions; i++)
		if (ckpt_lazy_region(h, &r[i]) && !IS_FILEMAP(rs, i) &&
		    r[i].nextents > 0 && ckpt_lazy_register(&rs->lazy,
		    r[i].start, r[i].end - r[i].start) == 0) {
			SET_LAZY(rs, i);
			n++;
		}
	if ((fd = ckpt_lazy_go(&rs->lazy, n > 0)) >= 0)
		rs->lazy_fd = above(fd, CKPT_PROC_FD_LOW);
}

/* "restore lazy ..." or "restore eager ...": StarterLog, tests. */
static void
say_restore(struct rs *rs)
{
	char line[512], a[24], b[24];
	uint64_t ms = ms_now() - rs->t0;

	if (rs->fix.notify_fd < 0)
		return;
	if (rs->lazy_fd >= 0) {
		cj_strlcpy(line, "restore lazy (userfaultfd): ", sizeof(line));
		cj_strlcat(line, cj_utoa(rs->lazy.bytes, a, 10), sizeof(line));
		cj_strlcat(line, " bytes on demand; running again after ",
		    sizeof(line));
	} else {
		cj_strlcpy(line, "restore eager (", sizeof(line));
		cj_strlcat(line, rs->lazy.why ? rs->lazy.why : "?",
		    sizeof(line));
		cj_strlcat(line, "): all memory back after ", sizeof(line));
	}
	cj_strlcat(line, cj_utoa(ms / 1000, a, 10), sizeof(line));
	cj_strlcat(line, ".", sizeof(line));
	cj_utoa(1000 + ms % 1000, b, 10);
	cj_strlcat(line, b + 1, sizeof(line));
	cj_strlcat(line, " s\n", sizeof(line));
	(void)ckpt_out_write(rs->fix.notify_fd, line, cj_strlen(line));
}

static void
restart_main(void *arg)
{
	struct rs *rs = arg;
	const struct ckpt_head *h = rs->h;
	uint64_t pending, mask;
	long pid, tid;
	int sig;

	check_everything(rs);

	/* No way back from here. */
	move_specials(rs);
	restore_break(rs);
	map_regions(rs);
	unmap_leftovers(rs);
	register_lazy(rs);
	restore_stack(rs);
	fill_regions(rs);
	restore_files(rs);
	if (rs->cwd_fd >= 0) {
		condor_sys1(SYS_fchdir, rs->cwd_fd);
		condor_sys1(SYS_close, rs->cwd_fd);
	}
	condor_sys1(SYS_umask, h->umask);
	restore_signals(rs);
	condor_sys2(SYS_arch_prctl, ARCH_SET_FS, h->fs_base);
	if (h->gs_base != 0)
		condor_sys2(SYS_arch_prctl, ARCH_SET_GS, h->gs_base);

	/* The library's own view of its new surroundings. */
	cj_strlcpy(ckpt_g.target, rs->fix.target, sizeof(ckpt_g.target));
	cj_strlcpy(ckpt_g.core_target, rs->fix.core_target,
	    sizeof(ckpt_g.core_target));
	ckpt_g.fork_writer = rs->fix.fork_writer;
	ckpt_g.notify_fd = rs->fix.notify_fd;
	ckpt_g.scratch_addr = (uint64_t)rs->scratch;
	ckpt_g.scratch_len = rs->scratch_len;
	ckpt_g.lazy_fd = rs->lazy_fd;
	ckpt_g.incremental = rs->fix.incremental;
	ckpt_g.max_deltas = rs->fix.max_deltas;
	ckpt_g.trk_uffd = rs->trk_uffd;
	ckpt_g.incr_why = rs->trk_why;
	say_restore(rs);
	for (sig = 0; sig < CKPT_PROC_N; sig++)
		ckpt_proc_fds[sig] = rs->proc_fds[sig];
	if (rs->remote)
		remote_syscall_fd = rs->syscall_fd;
	remote_trap_restored((enum remote_mode)rs->fix.mode, rs->fix.trap_all);

	mask = h->sigmask;
	condor_sys4(SYS_rt_sigprocmask, SIG_SETMASK, &mask, 0, 8);
	pending = h->sigpending & ~(CONDOR_SIGS | SIGBIT(SIGKILL) |
	    SIGBIT(SIGSTOP));
	pid = condor_sys0(SYS_getpid);
	tid = condor_sys0(SYS_gettid);
	for (sig = 1; sig <= CKPT_NSIG; sig++)
		if (pending & SIGBIT(sig))
			condor_sys3(SYS_tgkill, pid, tid, sig);
	condor_sys1(SYS_close, rs->exe_fd);
	/* The other threads are made again, each waiting in CKPT() for the
	 * one that took the checkpoint; this one resumes that one, or the
	 * main thread (ckpt_threads.c). */
	{
		const char *why = 0;

		if (ckpt_threads_restart(h, &why) < 0)
			refuse(why, 0);
	}
	ckpt_ctx_jump(&h->ctx, 1);
}
