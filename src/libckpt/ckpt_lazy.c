/*
 * ckpt_lazy.c: memory that comes back on demand after a restart.
 *
 * A restart that reads a 1 GiB program's memory before running it keeps
 * the program stopped for as long as the read takes.  Here the private
 * anonymous regions (heap, bss, anonymous mappings) become anonymous
 * memory registered with a userfaultfd, the program runs at once, and a
 * helper process fills that memory from the checkpoint file: the pages
 * the program touches first (each fault brings in its whole extent,
 * read, summed and copied with UFFDIO_COPY), and the rest in order in
 * the background.  When nothing is left the helper exits; its
 * userfaultfd closing unregisters the memory, which is then ordinary
 * anonymous memory the program owns.
 *
 * What makes this memory right rather than a mapping of the file is the
 * kernel's non-cooperative events, which the helper follows:
 *
 *	REMOVE	(madvise DONTNEED, FREE) the range's saved contents are
 *		forgotten: later faults there get zero pages, as natively;
 *	UNMAP	(munmap, MAP_FIXED over it, brk and mremap shrinking it)
 *		forgotten too;
 *	REMAP	(mremap moving it) the saved contents move with it;
 *	FORK	a child starts with the parent's outstanding pages; the
 *		helper serves the child's memory too (its own copy of the
 *		bookkeeping), so neither sees the other's later changes.
 *
 * A fault in a hole (zero when saved, or forgotten) gets UFFDIO_ZEROPAGE.
 * Every extent (at most CKPT_LAZY_EXTENT bytes, ckpt_state.c splits
 * them) is summed before any of its pages is copied: a mismatch stops
 * the program (its process group when it leads one) with a message,
 * before it could run on bad data.
 *
 * The helper is made before the job's own filters are installed (they
 * refuse userfaultfd and clone; the starter's, already in force, lets
 * through exactly a userfaultfd and a clone with no flags, for this), as
 * a grandchild (its parent exits at
 * once and is reaped here), so it is no child the program could wait
 * for, and it sends no SIGCHLD.  It keeps only the userfaultfd, the
 * checkpoint, its pipes, the notification descriptor and stderr; it
 * ignores the signals a terminal or a scheduler sends a process group
 * (so ^C to a program that catches it does not take the memory away),
 * and it ends by itself: when everything is back, or when a copy says
 * the process is gone (exit, exec: ESRCH).  Its "done" pipe tells a
 * checkpoint to wait (ckpt_lazy_finish): a checkpoint reads memory with
 * mincore and must see all of it.
 *
 * When userfaultfd cannot be had (vm.unprivileged_userfaultfd=0 and no
 * access to /dev/userfaultfd; the starter passes that device only when
 * STARTER_USERFAULTFD says so), or cannot follow a fork (EVENT_FORK
 * needs CAP_SYS_PTRACE) where the program may fork (outside Condor),
 * the restart reads everything first (ckpt_restart.c), and says why.
 * So does CONDOR_RESTORE=eager.  Small programs (under LAZY_MIN) are
 * read at once: starting a helper costs more than reading them.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "ckpt.h"

#define PAGE		4096UL
#define LAZY_MIN	(4UL << 20)
#define MAX_CTX		16
#define MAX_SEGS	(1UL << 21)
#define MAX_FAULTS	256
#define MSG_BATCH	32
#define LAZY_EVENTS	(UFFD_FEATURE_EVENT_REMAP | UFFD_FEATURE_EVENT_REMOVE | \
			 UFFD_FEATURE_EVENT_UNMAP)

#ifndef USERFAULTFD_IOC_NEW
#define USERFAULTFD_IOC_NEW	_IO(0xAA, 0x00)
#endif
#ifndef __WCLONE
#define __WCLONE	0x80000000
#endif

static double
now(void)
{
	struct timespec ts;

	condor_sys2(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* "1.234" for T seconds. */
static char *
seconds(double t, char *buf)
{
	unsigned long ms = (unsigned long)(t * 1000.0 + 0.5);
	char a[24], b[8];

	cj_utoa(ms / 1000, a, 10);
	cj_utoa(1000 + ms % 1000, b, 10);
	cj_strlcpy(buf, a, 32);
	cj_strlcat(buf, ".", 32);
	cj_strlcat(buf, b + 1, 32);
	return buf;
}

static void
note(long fd, const char *a, const char *b, const char *c, const char *d)
{
	char line[512];

	if (fd < 0)
		return;
	cj_strlcpy(line, a, sizeof(line));
	cj_strlcat(line, b, sizeof(line));
	cj_strlcat(line, c, sizeof(line));
	cj_strlcat(line, d, sizeof(line));
	cj_strlcat(line, "\n", sizeof(line));
	(void)ckpt_out_write(fd, line, cj_strlen(line));
}

/*
 * A userfaultfd with the events, following forks if it may (*FORKS), or
 * -1 and *WHY.  The system call first (root, or
 * vm.unprivileged_userfaultfd=1), then DEVFD (the starter's
 * /dev/userfaultfd), then /dev/userfaultfd if this user may open it.
 */
static long
new_uffd(long devfd, int *forks, const char **why)
{
	struct uffdio_api api;
	long fd, dev = -1;
	int pass;

	*forks = 0;
	for (pass = 0; pass < 2; pass++) {
		fd = condor_sys1(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
		if (fd < 0 && devfd >= 0)
			fd = condor_sys3(SYS_ioctl, devfd, USERFAULTFD_IOC_NEW,
			    O_CLOEXEC | O_NONBLOCK);
		if (fd < 0) {
			if (dev < 0)
				dev = condor_sys3(SYS_open, "/dev/userfaultfd",
				    O_RDWR | O_CLOEXEC, 0);
			if (dev >= 0)
				fd = condor_sys3(SYS_ioctl, dev,
				    USERFAULTFD_IOC_NEW, O_CLOEXEC | O_NONBLOCK);
		}
		if (fd < 0) {
			*why = fd == -ENOSYS ? "this kernel has no "
			    "userfaultfd" : "userfaultfd is not permitted "
			    "(vm.unprivileged_userfaultfd is 0 and "
			    "/dev/userfaultfd is not open to this user)";
			break;
		}
		cj_memset(&api, 0, sizeof(api));
		api.api = UFFD_API;
		api.features = LAZY_EVENTS | (pass == 0 ?
		    UFFD_FEATURE_EVENT_FORK : 0);
		if (condor_sys3(SYS_ioctl, fd, UFFDIO_API, &api) == 0 &&
		    (api.ioctls & (1ULL << _UFFDIO_REGISTER)) != 0) {
			*forks = pass == 0;
			if (dev >= 0)
				condor_sys1(SYS_close, dev);
			return fd;
		}
		/* Without EVENT_FORK (it needs CAP_SYS_PTRACE), once more. */
		condor_sys1(SYS_close, fd);
		*why = "userfaultfd lacks the events a restore needs";
	}
	if (dev >= 0)
		condor_sys1(SYS_close, dev);
	return -1;
}

/* ---------------------------------------------------------------- */
/* The helper. */

struct lext {			/* a lazily restored extent */
	uint64_t	off, len, page0;
	uint32_t	sum;
};

struct seg {			/* [addr, addr + npages) holds pages src.. */
	uint64_t	addr, npages, src;
};

struct lctx {			/* one address space */
	long		 fd;
	struct seg	*seg;
	uint64_t	 nseg;
	uint64_t	*pend;	/* a bit per source page still to copy */
	uint64_t	 npend;
	uint64_t	 cur;	/* segments before it have nothing left */
};

struct fault {
	int		 ctx;
	uint64_t	 addr;
};

static struct helper {
	const struct ckpt_head *h;
	long		 exe_fd, done_fd, notify_fd;
	int		 job_pid;
	struct lext	*ext;
	uint64_t	 next, npages, bitmap_words;
	struct lctx	 ctx[MAX_CTX];
	int		 nctx;
	struct seg	*tmp;
	char		*buf;
	uint64_t	 buf_ext;	/* extent in buf, ~0: none */
	struct fault	 faults[MAX_FAULTS];
	int		 nfaults;
	uint64_t	 copied;
} H;

static void *
h_alloc(uint64_t len)
{
	long p = condor_sys6(SYS_mmap, 0, (len + PAGE - 1) & ~(PAGE - 1),
	    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_NORESERVE, -1, 0);

	if (p < 0 && p > -4096)
		return 0;
	return (void *)p;
}

static __attribute__((noreturn)) void
h_exit(int status)
{
	condor_sys1(SYS_exit_group, status);
	__builtin_unreachable();
}

/* Bad data or no way on: the program must not run on.  WHY ends with
 * what ADDR is ("at", "at file offset"). */
static __attribute__((noreturn)) void
h_stop(const char *why, uint64_t addr)
{
	char a[24];

	cj_say("restart: ", why, " 0x", cj_utoa(addr, a, 16),
	    " (memory restored on demand); stopping the program",
	    (char *)0);
	note(H.notify_fd, "restore failed: ", why, " 0x", a);
	if (condor_sys1(SYS_getpgid, H.job_pid) == H.job_pid)
		condor_sys2(SYS_kill, -H.job_pid, SIGKILL);
	condor_sys2(SYS_kill, H.job_pid, SIGKILL);
	h_exit(1);
}

static int
pending(const struct lctx *c, uint64_t p)
{
	return (c->pend[p / 64] >> (p % 64)) & 1;
}

static void
clear_pending(struct lctx *c, uint64_t p)
{
	if (pending(c, p)) {
		c->pend[p / 64] &= ~(1ULL << (p % 64));
		c->npend--;
	}
}

static uint64_t
ext_of(uint64_t page)
{
	uint64_t lo = 0, hi = H.next;

	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (H.ext[mid].page0 <= page)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The segment holding ADDR, or -1 (segments are sorted by address). */
static long
seg_of(const struct lctx *c, uint64_t addr)
{
	uint64_t lo = 0, hi = c->nseg;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		const struct seg *s = &c->seg[mid];

		if (addr < s->addr)
			hi = mid;
		else if (addr >= s->addr + s->npages * PAGE)
			lo = mid + 1;
		else
			return (long)mid;
	}
	return -1;
}

static void
sift(struct seg *a, uint64_t i, uint64_t n)
{
	struct seg t;
	uint64_t c;

	for (; (c = 2 * i + 1) < n; i = c) {
		if (c + 1 < n && a[c + 1].addr > a[c].addr)
			c++;
		if (a[i].addr >= a[c].addr)
			return;
		t = a[i], a[i] = a[c], a[c] = t;
	}
}

static void
sort_segs(struct seg *a, uint64_t n)
{
	struct seg t;
	uint64_t i;

	for (i = n / 2; i-- > 0;)
		sift(a, i, n);
	for (i = n; i-- > 1;) {
		t = a[0], a[0] = a[i], a[i] = t;
		sift(a, 0, i);
	}
}

static void
drop_ctx(struct lctx *c)
{
	if (c->fd >= 0)
		condor_sys1(SYS_close, c->fd);
	c->fd = -1;
	c->npend = 0;
	c->nseg = 0;
}

/*
 * The pages of [lo, hi) in C: forgotten (DELTA 0, FORGET) or moved by
 * DELTA (REMAP); the segments are cut at lo and hi.
 */
static void
cut(struct lctx *c, uint64_t lo, uint64_t hi, int forget, uint64_t delta)
{
	uint64_t i, n = 0, p;
	int moved = 0;

	for (i = 0; i < c->nseg; i++) {
		struct seg s = c->seg[i], m;
		uint64_t end = s.addr + s.npages * PAGE, a, b;

		if (end <= lo || s.addr >= hi) {
			H.tmp[n++] = s;
			continue;
		}
		if (n + 3 > MAX_SEGS)
			h_stop("too many pieces of memory to follow at", lo);
		a = s.addr > lo ? s.addr : lo;
		b = end < hi ? end : hi;
		if (s.addr < a) {
			H.tmp[n].addr = s.addr;
			H.tmp[n].npages = (a - s.addr) / PAGE;
			H.tmp[n++].src = s.src;
		}
		m.addr = a;
		m.npages = (b - a) / PAGE;
		m.src = s.src + (a - s.addr) / PAGE;
		if (forget)
			for (p = 0; p < m.npages; p++)
				clear_pending(c, m.src + p);
		else {
			m.addr += delta;
			H.tmp[n++] = m;
			moved = 1;
		}
		if (b < end) {
			H.tmp[n].addr = b;
			H.tmp[n].npages = (end - b) / PAGE;
			H.tmp[n++].src = s.src + (b - s.addr) / PAGE;
		}
	}
	cj_memcpy(c->seg, H.tmp, n * sizeof(struct seg));
	c->nseg = n;
	c->cur = 0;
	if (moved)
		sort_segs(c->seg, n);
}

static int
new_ctx(long fd, const struct lctx *from)
{
	struct lctx *c;
	int i;

	for (i = 0; i < H.nctx; i++)
		if (H.ctx[i].fd < 0)
			break;
	if (i == MAX_CTX)
		return -1;
	c = &H.ctx[i];
	if (c->seg == 0 && ((c->seg = h_alloc(MAX_SEGS *
	    sizeof(struct seg))) == 0 || (c->pend = h_alloc(H.bitmap_words *
	    8)) == 0))
		return -1;
	c->fd = fd;
	c->cur = 0;
	c->nseg = from->nseg;
	c->npend = from->npend;
	cj_memcpy(c->seg, from->seg, from->nseg * sizeof(struct seg));
	cj_memcpy(c->pend, from->pend, H.bitmap_words * 8);
	if (i == H.nctx)
		H.nctx++;
	return i;
}

/* Read the events of context CI; faults are queued. */
static void
read_events(int ci)
{
	struct uffd_msg m[MSG_BATCH];
	long n, k;

	while (H.ctx[ci].fd >= 0) {
		n = condor_sys3(SYS_read, H.ctx[ci].fd, m, sizeof(m));
		if (n == -EINTR)
			continue;
		if (n <= 0)
			return;
		for (k = 0; k < n / (long)sizeof(m[0]); k++) {
			struct lctx *c = &H.ctx[ci];

			switch (m[k].event) {
			case UFFD_EVENT_PAGEFAULT:
				if (H.nfaults == MAX_FAULTS)
					h_stop("too many faults at once at",
					    m[k].arg.pagefault.address);
				H.faults[H.nfaults].ctx = ci;
				H.faults[H.nfaults++].addr =
				    m[k].arg.pagefault.address & ~(PAGE - 1);
				break;
			case UFFD_EVENT_REMOVE:
			case UFFD_EVENT_UNMAP:
				cut(c, m[k].arg.remove.start,
				    m[k].arg.remove.end, 1, 0);
				break;
			case UFFD_EVENT_REMAP:
				cut(c, m[k].arg.remap.from,
				    m[k].arg.remap.from + m[k].arg.remap.len,
				    0, m[k].arg.remap.to -
				    m[k].arg.remap.from);
				break;
			case UFFD_EVENT_FORK:
				if (new_ctx((long)m[k].arg.fork.ufd, c) < 0)
					h_stop("too many processes share the "
					    "memory being restored: one more at", 0);
				break;
			}
		}
	}
}

static void
read_all_events(void)
{
	int i;

	for (i = 0; i < H.nctx; i++)
		read_events(i);
}

/* Extent X into the buffer, its sum checked. */
static void
load_extent(uint64_t x)
{
	const struct lext *e = &H.ext[x];
	uint64_t at = 0;
	long n;

	if (H.buf_ext == x)
		return;
	H.buf_ext = ~0ULL;
	while (at < e->len) {
		n = condor_sys4(SYS_pread64, H.exe_fd, H.buf + at,
		    e->len - at, e->off + at);
		if (n == -EINTR)
			continue;
		if (n <= 0)
			h_stop("cannot read memory back (file truncated?) "
			    "at file offset", e->off + at);
		at += (uint64_t)n;
	}
	if (ckpt_sum(H.buf, e->len) != e->sum)
		h_stop("checksum mismatch in memory saved at file offset",
		    e->off);
	H.buf_ext = x;
}

/*
 * The outstanding pages of segment SI of context CI, copied in.  0 when
 * done, -1 when events came first (read them and look again).
 */
static int
fill_seg(int ci, uint64_t si)
{
	struct lctx *c = &H.ctx[ci];
	struct seg s = c->seg[si];
	const struct lext *e;
	struct uffdio_copy cp;
	uint64_t x = ext_of(s.src), p = 0, q, n = 0;
	long r;

	e = &H.ext[x];
	while (p < s.npages) {
		if (!pending(c, s.src + p)) {
			p++;
			continue;
		}
		for (q = p + 1; q < s.npages && pending(c, s.src + q); q++)
			;
		/* A copy must lie in one mapping: after an mprotect the
		 * run may span several (ENOENT), so halve it until it fits. */
		if (n > q - p || n == 0)
			n = q - p;
		load_extent(x);
		cp.dst = s.addr + p * PAGE;
		cp.src = (uint64_t)H.buf + (s.src + p - e->page0) * PAGE;
		cp.len = n * PAGE;
		cp.mode = 0;
		cp.copy = 0;
		r = condor_sys3(SYS_ioctl, c->fd, UFFDIO_COPY, &cp);
		if (cp.copy > 0) {
			uint64_t k, done = (uint64_t)cp.copy / PAGE;

			for (k = 0; k < done; k++)
				clear_pending(c, s.src + p + k);
			H.copied += (uint64_t)cp.copy;
			p += done;
			n = 0;
			continue;
		}
		if (r == 0)
			continue;
		if (r == -EAGAIN || r == -EINTR)
			return -1;
		if (r == -ESRCH) {	/* exited, or exec'd */
			drop_ctx(c);
			return 0;
		}
		if (r == -ENOENT && n > 1) {
			n /= 2;
			continue;
		}
		if (r == -EEXIST || r == -ENOENT || r == -EFAULT) {
			/* There already, or no longer registered memory. */
			clear_pending(c, s.src + p);
			p++;
			n = 0;
			continue;
		}
		h_stop("cannot copy memory back at", cp.dst);
	}
	return 0;
}

static void
wake(long fd, uint64_t addr)
{
	struct uffdio_range rg = { addr, PAGE };

	condor_sys3(SYS_ioctl, fd, UFFDIO_WAKE, &rg);
}

/* A fault: the segment's pages, or a zero page.  -1: events first. */
static int
serve(int ci, uint64_t addr)
{
	struct lctx *c = &H.ctx[ci];
	struct uffdio_zeropage z;
	long si, r;

	if (c->fd < 0)
		return 0;
	si = seg_of(c, addr);
	if (si >= 0 && pending(c, c->seg[si].src +
	    (addr - c->seg[si].addr) / PAGE)) {
		if (fill_seg(ci, (uint64_t)si) < 0)
			return -1;
		if (c->fd >= 0)
			wake(c->fd, addr);
		return 0;
	}
	z.range.start = addr;
	z.range.len = PAGE;
	z.mode = 0;
	z.zeropage = 0;
	r = condor_sys3(SYS_ioctl, c->fd, UFFDIO_ZEROPAGE, &z);
	if (r == -EAGAIN)
		return -1;
	if (r == -ESRCH)
		drop_ctx(c);
	else if (r < 0)
		wake(c->fd, addr);	/* there already, or gone */
	return 0;
}

/* Serve the queued faults; -1 if events came first. */
static int
serve_faults(void)
{
	while (H.nfaults > 0) {
		struct fault f = H.faults[0];

		if (serve(f.ctx, f.addr) < 0)
			return -1;
		H.nfaults--;
		cj_memcpy(H.faults, H.faults + 1, (size_t)H.nfaults *
		    sizeof(struct fault));
	}
	return 0;
}

/* The next segment with outstanding pages, children first. */
static int
next_work(int *ci, uint64_t *si)
{
	int i;
	uint64_t k;

	for (i = H.nctx - 1; i >= 0; i--) {
		struct lctx *c = &H.ctx[i];

		if (c->fd < 0)
			continue;
		if (c->npend == 0) {
			if (i > 0)
				drop_ctx(c);
			continue;
		}
		for (k = c->cur; k < c->nseg; k++) {
			uint64_t p;

			for (p = 0; p < c->seg[k].npages; p++)
				if (pending(c, c->seg[k].src + p)) {
					*ci = i;
					*si = k;
					c->cur = k;
					return 1;
				}
		}
		if (c->cur == 0)
			c->npend = 0;	/* what is left is in no segment */
		c->cur = 0;
		i++;	/* once more from the start */
	}
	return 0;
}

static __attribute__((noreturn)) void
helper_main(long go_fd, uint64_t bytes)
{
	const struct ckpt_head *h = H.h;
	const struct ckpt_region *r = CKPT_REGIONS(h);
	const struct ckpt_extent *e = CKPT_EXTENTS(h);
	struct lctx *c = &H.ctx[0];
	struct sigaction_k {
		uint64_t handler, flags, restorer, mask;
	} ign = { (uint64_t)SIG_IGN, 0, 0, 0 };
	uint64_t n = 0, k, page = 0;
	double t0;
	char go, a[32], b[32];
	uint32_t i, j;
	int ci, sig;
	long got;

	condor_sys2(SYS_prctl, PR_SET_NAME, "condor_restore");
	for (sig = 1; sig <= 64; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			condor_sys4(SYS_rt_sigaction, sig, &ign, 0, 8);

	for (i = 0; i < h->nregions; i++)
		if (ckpt_lazy_region(h, &r[i]))
			n += r[i].nextents;
	H.ext = h_alloc(n * sizeof(struct lext) + PAGE);
	H.tmp = h_alloc(MAX_SEGS * sizeof(struct seg));
	H.buf = h_alloc(CKPT_LAZY_EXTENT);
	c->seg = h_alloc(MAX_SEGS * sizeof(struct seg));
	H.bitmap_words = bytes / PAGE / 64 + 1;
	c->pend = h_alloc(H.bitmap_words * 8);
	if (H.ext == 0 || H.tmp == 0 || H.buf == 0 || c->seg == 0 ||
	    c->pend == 0 || n > MAX_SEGS)
		h_exit(1);	/* the job sees no "go" answer: it is not
				   waiting; it will see EOF on done */
	H.buf_ext = ~0ULL;
	for (i = 0; i < h->nregions; i++) {
		if (!ckpt_lazy_region(h, &r[i]))
			continue;
		for (j = r[i].first_extent; j < r[i].first_extent +
		    r[i].nextents; j++) {
			struct lext *x = &H.ext[H.next++];

			x->off = e[j].off;
			x->len = e[j].len;
			x->sum = e[j].sum;
			x->page0 = page;
			c->seg[c->nseg].addr = e[j].addr;
			c->seg[c->nseg].npages = e[j].len / PAGE;
			c->seg[c->nseg++].src = page;
			for (k = 0; k < e[j].len / PAGE; k++, page++)
				c->pend[page / 64] |= 1ULL << (page % 64);
		}
	}
	c->npend = page;
	H.npages = page;
	H.nctx = 1;
	sort_segs(c->seg, c->nseg);

	/* The job registered its memory, or died. */
	do
		got = condor_sys3(SYS_read, go_fd, &go, 1);
	while (got == -EINTR);
	if (got != 1)
		h_exit(0);
	condor_sys1(SYS_close, go_fd);
	t0 = now();

	for (;;) {
		uint64_t si;

		read_all_events();
		if (serve_faults() < 0)
			continue;
		if (!next_work(&ci, &si))
			break;
		(void)fill_seg(ci, si);
	}
	for (ci = 0; ci < H.nctx; ci++)
		drop_ctx(&H.ctx[ci]);
	cj_utoa(H.copied, a, 10);
	cj_strlcat(seconds(now() - t0, b), " s", sizeof(b));
	note(H.notify_fd, "restore done: ", a, " bytes back in ", b);
	(void)ckpt_out_write(H.done_fd, "D", 1);
	h_exit(0);
}

/* ---------------------------------------------------------------- */
/* The job's side. */

static long
close_above(long lo, long hi)
{
	if (lo > hi)
		return 0;
	return condor_sys3(SYS_close_range, lo, hi, 0);
}

/* In the helper: close every descriptor but these. */
static void
keep_only(long *keep, int n)
{
	long last = -1, t;
	int i, j;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (keep[j] < keep[i])
				t = keep[i], keep[i] = keep[j], keep[j] = t;
	for (i = 0; i < n; i++) {
		if (keep[i] < 0)
			continue;
		close_above(last + 1, keep[i] - 1);
		last = keep[i];
	}
	close_above(last + 1, 0x7fffffff);
}

int
ckpt_lazy_start(struct ckpt_lazy *l, const struct ckpt_head *h, long exe_fd,
    long notify_fd, int want, long devfd, int can_fork)
{
	int go[2], done[2];
	long pid, uffd;
	uint64_t bytes = ckpt_lazy_bytes(h);
	int forks = 0;

	l->uffd = l->go_fd = l->done_fd = -1;
	l->bytes = bytes;
	l->why = 0;
	if (want == CKPT_RESTORE_EAGER)
		l->why = "CONDOR_RESTORE=eager";
	else if (bytes == 0)
		l->why = "no memory to restore on demand";
	else if (bytes < LAZY_MIN && want != CKPT_RESTORE_LAZY)
		l->why = "too little memory to be worth restoring on demand";
	if (l->why != 0)
		goto no;
	if ((uffd = new_uffd(devfd, &forks, &l->why)) < 0)
		goto no;
	if (can_fork && !forks) {
		condor_sys1(SYS_close, uffd);
		l->why = "userfaultfd cannot follow a fork here "
		    "(UFFD_FEATURE_EVENT_FORK needs CAP_SYS_PTRACE)";
		goto no;
	}
	if (condor_sys2(SYS_pipe2, go, O_CLOEXEC) < 0) {
		condor_sys1(SYS_close, uffd);
		l->why = "no descriptors left";
		goto no;
	}
	if (condor_sys2(SYS_pipe2, done, O_CLOEXEC) < 0) {
		condor_sys1(SYS_close, uffd);
		condor_sys1(SYS_close, go[0]);
		condor_sys1(SYS_close, go[1]);
		l->why = "no descriptors left";
		goto no;
	}
	H.h = h;
	H.exe_fd = exe_fd;
	H.done_fd = done[1];
	H.notify_fd = notify_fd;
	H.job_pid = (int)condor_sys0(SYS_getpid);
	H.ctx[0].fd = uffd;
	/* A grandchild: exit signal 0 for both, the middle one reaped. */
	pid = condor_sys5(SYS_clone, 0, 0, 0, 0, 0);
	if (pid == 0) {
		if (condor_sys5(SYS_clone, 0, 0, 0, 0, 0) == 0) {
			long keep[6] = { 2, uffd, exe_fd, go[0], done[1],
			    notify_fd };

			keep_only(keep, 6);
			helper_main(go[0], bytes);
		}
		h_exit(0);
	}
	condor_sys1(SYS_close, go[0]);
	condor_sys1(SYS_close, done[1]);
	if (pid < 0) {
		condor_sys1(SYS_close, uffd);
		condor_sys1(SYS_close, go[1]);
		condor_sys1(SYS_close, done[0]);
		l->why = "cannot start the restore's helper";
		goto no;
	}
	while (condor_sys4(SYS_wait4, pid, 0, __WCLONE, 0) == -EINTR)
		;
	l->uffd = uffd;
	l->go_fd = go[1];
	l->done_fd = done[0];
	return 1;
no:
	l->bytes = 0;
	return 0;
}

int
ckpt_lazy_register(struct ckpt_lazy *l, uint64_t start, uint64_t len)
{
	struct uffdio_register rg;

	if (l->uffd < 0)
		return -1;
	cj_memset(&rg, 0, sizeof(rg));
	rg.range.start = start;
	rg.range.len = len;
	rg.mode = UFFDIO_REGISTER_MODE_MISSING;
	return condor_sys3(SYS_ioctl, l->uffd, UFFDIO_REGISTER, &rg) == 0 ?
	    0 : -1;
}

long
ckpt_lazy_go(struct ckpt_lazy *l, int registered)
{
	long fd = l->done_fd;

	if (l->uffd >= 0)
		condor_sys1(SYS_close, l->uffd);
	l->uffd = -1;
	if (registered)
		(void)ckpt_out_write(l->go_fd, "g", 1);
	condor_sys1(SYS_close, l->go_fd);
	l->go_fd = -1;
	if (!registered) {
		condor_sys1(SYS_close, fd);
		l->why = "userfaultfd refused to register the memory";
		l->bytes = 0;
		return -1;
	}
	return fd;
}

void
ckpt_lazy_finish(void)
{
	char buf[16];
	long n, fd = ckpt_g.lazy_fd;
	int done = 0;

	if (fd < 0)
		return;
	ckpt_g.lazy_fd = -1;
	while ((n = condor_sys3(SYS_read, fd, buf, sizeof(buf))) != 0) {
		if (n == -EINTR)
			continue;
		if (n < 0)
			break;
		done |= buf[n - 1] == 'D';
	}
	condor_sys1(SYS_close, fd);
	if (n == 0 && !done) {
		cj_say("restart: the helper restoring memory on demand died "
		    "before all of it was back; stopping the program",
		    (char *)0);
		condor_sys1(SYS_exit_group, 1);
	}
}
