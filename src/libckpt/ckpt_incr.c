/*
 * ckpt_incr.c: which pages a program wrote since its last checkpoint,
 * for an incremental checkpoint (a delta, include/ckptfile.h).
 *
 * The kernel's soft-dirty bits (pagemap bit 55, cleared through
 * /proc/self/clear_refs) would do, but kernels built without
 * CONFIG_MEM_SOFT_DIRTY (this machine's 6.18 among them) have none:
 * clear_refs accepts the "4" and bit 55 stays 0.  So the library uses
 * userfaultfd write-protection in its asynchronous mode (Linux 6.7:
 * UFFD_FEATURE_WP_ASYNC with WP_UNPOPULATED): the private anonymous
 * regions (bss, heap, anonymous mappings) are registered for
 * write-protection and protected at each checkpoint; a write to a
 * protected page is resolved by the kernel itself (no handler, no
 * thread: the page just loses its protection), and at the next
 * checkpoint one PAGEMAP_SCAN ioctl on /proc/self/pagemap per region
 * lists the pages written since (PAGE_IS_WRITTEN) and protects them
 * again, in the same walk.  UFFD_USER_MODE_ONLY makes the userfaultfd
 * allowed to any user whatever vm.unprivileged_userfaultfd says.
 *
 * All of it runs in CKPT(), after everything else, just before the
 * writer is forked (or the handler writes): between the scan and the
 * snapshot nothing writes to a tracked page, so "not written since"
 * means "as in the parent image".  A region the kernel no longer tracks
 * (made, moved or grown since: mmap, mremap, brk make new areas without
 * the registration; PM_SCAN_CHECK_WPASYNC refuses them) is saved whole
 * and registered for the next time.  Pages dropped with MADV_DONTNEED
 * lose their protection marker and read as zero: they are listed too
 * (the second scan, for pages neither present nor swapped) and saved as
 * zeros.  Not tracked, so saved whole in every delta: the stack (the
 * handler's own frames change under the scan), the executable's data
 * (a private file mapping, which userfaultfd does not protect), shared
 * mappings, and regions over TRACK_MAX (protecting unpopulated memory
 * builds page tables: a 2 TiB MAP_NORESERVE region would cost 4 GiB).
 *
 * The tracking belongs to one process: a restarted one has none (the
 * restart clears it, ckpt.c), and its next checkpoint is a full image,
 * as is one after a failed checkpoint (its pages were protected again
 * but never saved).  Where userfaultfd cannot be had or lacks the
 * features, every checkpoint is full and the reason is said once on
 * stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "ckpt.h"

#define PAGE		4096UL
#define TRACK_MAX	(4UL << 30)	/* bytes: larger ones not tracked */

/* Linux 6.7's, for older headers. */
#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED	(1 << 13)
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC		(1 << 15)
#endif
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY		1
#endif

struct pm_page_region {
	uint64_t	start, end, categories;
};

struct pm_scan {
	uint64_t	size, flags, start, end, walk_end, vec, vec_len,
			max_pages, category_inverted, category_mask,
			category_anyof_mask, return_mask;
};

#define PM_PAGEMAP_SCAN		_IOWR('f', 16, struct pm_scan)
#define PM_IS_WRITTEN		(1 << 1)
#define PM_IS_PRESENT		(1 << 3)
#define PM_IS_SWAPPED		(1 << 4)
#define PM_WP_MATCHING		(1 << 0)
#define PM_CHECK_WPASYNC	(1 << 1)

/* Say once why checkpoints are full. */
static void
give_up(const char *why)
{
	ckpt_g.incr_why = why;
	ckpt_g.incremental = 0;
	cj_say("incremental checkpoints off: ", why, (char *)0);
}

long
ckpt_incr_open(const char **why)
{
	struct uffdio_api api;
	long fd, hi;

	fd = condor_sys1(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK |
	    UFFD_USER_MODE_ONLY);
	if (fd < 0) {
		*why = "no userfaultfd here (write-protection tracks the "
		    "pages written)";
		return -1;
	}
	cj_memset(&api, 0, sizeof(api));
	api.api = UFFD_API;
	api.features = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED;
	if (condor_sys3(SYS_ioctl, fd, UFFDIO_API, &api) < 0) {
		condor_sys1(SYS_close, fd);
		*why = "the kernel has neither soft-dirty bits nor "
		    "asynchronous userfaultfd write-protection (Linux 6.7)";
		return -1;
	}
	/* Out of the program's way, as the /proc descriptors are. */
	hi = condor_sys3(SYS_fcntl, fd, F_DUPFD_CLOEXEC, CKPT_PROC_FD_LOW);
	condor_sys1(SYS_close, fd);
	if (hi < 0) {
		*why = "no descriptor for the userfaultfd";
		return -1;
	}
	return hi;
}

static int
tracker_open(void)
{
	const char *why = "";

	if (ckpt_g.trk_uffd >= 0)
		return 0;
	/* Made at start-up or restart, before the filters, and failed:
	 * say why then, not why not now. */
	if (ckpt_g.incr_why != 0) {
		give_up(ckpt_g.incr_why);
		return -1;
	}
	if ((ckpt_g.trk_uffd = ckpt_incr_open(&why)) < 0) {
		give_up(why);
		return -1;
	}
	return 0;
}

/* Register [lo, hi) for write-protection and protect it all. */
static void
track_region(uint64_t lo, uint64_t hi)
{
	struct uffdio_register rg;
	struct uffdio_writeprotect wp;

	cj_memset(&rg, 0, sizeof(rg));
	rg.range.start = lo;
	rg.range.len = hi - lo;
	rg.mode = UFFDIO_REGISTER_MODE_WP;
	if (condor_sys3(SYS_ioctl, ckpt_g.trk_uffd, UFFDIO_REGISTER, &rg) < 0)
		return;		/* not anonymous, or another's: whole */
	cj_memset(&wp, 0, sizeof(wp));
	wp.range.start = lo;
	wp.range.len = hi - lo;
	wp.mode = UFFDIO_WRITEPROTECT_MODE_WP;
	(void)condor_sys3(SYS_ioctl, ckpt_g.trk_uffd, UFFDIO_WRITEPROTECT, &wp);
}

static int
add_range(struct ckpt_range *t, uint32_t *n, uint32_t max, uint64_t lo,
    uint64_t hi)
{
	if (*n > 0 && t[*n - 1].end == lo) {
		t[*n - 1].end = hi;
		return 0;
	}
	if (*n >= max)
		return -1;
	t[*n].start = lo;
	t[*n].end = hi;
	(*n)++;
	return 0;
}

/*
 * One scan of [lo, hi): pages in the categories asked, into the dirty
 * table (in address order, merged).  FLAGS may protect them again.
 * 0, -EPERM (a part not tracked: nothing was protected), or -1 (the
 * table is full).
 */
static long
scan(struct ckpt_build *b, long pm, uint64_t lo, uint64_t hi, uint64_t flags,
    uint64_t inverted, uint64_t mask)
{
	struct pm_page_region *vec = (struct pm_page_region *)b->iobuf;
	uint64_t nvec = CB_IOBUF / sizeof(*vec);
	struct pm_scan a;
	long n, i;

	while (lo < hi) {
		cj_memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.flags = flags;
		a.start = lo;
		a.end = hi;
		a.vec = (uint64_t)(uintptr_t)vec;
		a.vec_len = nvec;
		a.category_inverted = inverted;
		a.category_mask = mask;
		a.return_mask = mask;
		n = condor_sys3(SYS_ioctl, pm, PM_PAGEMAP_SCAN, &a);
		if (n < 0)
			return n;
		for (i = 0; i < n; i++)
			if (add_range(b->dirty, &b->ndirty, CB_MAX_DIRTY,
			    vec[i].start, vec[i].end) == -1)
				return -1;
		if (a.walk_end <= lo)
			return -1;
		lo = a.walk_end;
	}
	return 0;
}

/*
 * Merge the two sorted runs of the dirty table, [d0, d1) and [d1, end),
 * through the spare table; adjacent ranges become one.  0 or -1.
 */
static long
merge_dirty(struct ckpt_build *b, uint32_t d0, uint32_t d1)
{
	struct ckpt_range *t = b->spare;
	uint32_t i = d0, j = d1, end = b->ndirty, n = 0;

	if (d0 == d1 || d1 == end)
		return 0;
	while (i < d1 || j < end) {
		const struct ckpt_range *x;

		if (j >= end || (i < d1 && b->dirty[i].start <
		    b->dirty[j].start))
			x = &b->dirty[i++];
		else
			x = &b->dirty[j++];
		if (n > 0 && t[n - 1].end >= x->start) {
			if (x->end > t[n - 1].end)
				t[n - 1].end = x->end;
			continue;
		}
		t[n++] = *x;
	}
	cj_memcpy(&b->dirty[d0], t, n * sizeof(*t));
	b->ndirty = d0 + n;
	return 0;
}

static int
trackable(const char *perms, const char *name, uint64_t lo, uint64_t hi)
{
	return perms[1] == 'w' && perms[3] == 'p' && hi - lo <= TRACK_MAX &&
	    lo != CONDOR_GATE_ADDR && cj_strcmp(name, "[stack]") != 0 &&
	    name[0] != '/' && cj_strncmp(name, "[v", 2) != 0;
}

/*
 * Parse one line of /proc/self/maps at *PP: its range, permissions and
 * name (pointed to, not copied; the line's end made a NUL).
 */
static int
map_line(char **pp, uint64_t *lo, uint64_t *hi, char *perms, char **name)
{
	char *p = *pp;
	int k, field;

	*lo = *hi = 0;
	for (; *p != '-'; p++) {
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return -1;
		*lo = *lo * 16 + (uint64_t)(*p <= '9' ? *p - '0' :
		    *p - 'a' + 10);
	}
	for (p++; *p != ' '; p++) {
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return -1;
		*hi = *hi * 16 + (uint64_t)(*p <= '9' ? *p - '0' :
		    *p - 'a' + 10);
	}
	p++;
	for (k = 0; k < 4; k++)
		perms[k] = *p != '\0' ? *p++ : '-';
	/* offset, device, inode */
	for (field = 0; field < 3; field++) {
		while (*p == ' ')
			p++;
		while (*p != ' ' && *p != '\n' && *p != '\0')
			p++;
	}
	while (*p == ' ')
		p++;
	*name = p;
	while (*p != '\n' && *p != '\0')
		p++;
	if (*p == '\n')
		*p++ = '\0';
	*pp = p;
	return 0;
}

int
ckpt_incr_snapshot(struct ckpt_build *b, int delta)
{
	uint64_t scr_lo = (uint64_t)(uintptr_t)b->scratch;
	uint64_t scr_hi = scr_lo + b->scratch_len;
	uint64_t lo, hi, seg[2][2];
	char perms[4], *p, *name;
	long pm, n, r;
	uint32_t d0, d1;
	int ok = 1, k, ns;

	b->ntracked = b->ndirty = 0;
	b->delta = 0;
	if (!ckpt_g.incremental || tracker_open() == -1)
		return 0;
	if ((pm = ckpt_proc_open("/proc/self/pagemap")) < 0) {
		give_up("cannot open /proc/self/pagemap");
		return 0;
	}
	n = 0;
	{
		long fd = ckpt_proc_open("/proc/self/maps");
		long got;

		if (fd >= 0) {
			while (n < (long)CB_MAPSBUF - 1 && (got =
			    condor_sys3(SYS_read, fd, b->mapsbuf + n,
			    CB_MAPSBUF - 1 - (size_t)n)) > 0)
				n += got;
			condor_sys1(SYS_close, fd);
		}
	}
	if (n <= 0 || n >= (long)CB_MAPSBUF - 1) {
		condor_sys1(SYS_close, pm);
		return 0;
	}
	b->mapsbuf[n] = '\0';
	for (p = b->mapsbuf; *p != '\0';) {
		if (map_line(&p, &lo, &hi, perms, &name) == -1) {
			ok = 0;
			break;
		}
		if (!trackable(perms, name, lo, hi))
			continue;
		/* Our scratch is not the program's (ckpt_build_memory). */
		ns = 0;
		if (hi <= scr_lo || lo >= scr_hi) {
			seg[ns][0] = lo, seg[ns++][1] = hi;
		} else {
			if (lo < scr_lo)
				seg[ns][0] = lo, seg[ns++][1] = scr_lo;
			if (hi > scr_hi)
				seg[ns][0] = scr_hi, seg[ns++][1] = hi;
		}
		for (k = 0; k < ns; k++) {
			lo = seg[k][0], hi = seg[k][1];
			if (!delta || !ok) {
				track_region(lo, hi);
				continue;
			}
			/*
			 * First the pages dropped since (MADV_DONTNEED:
			 * neither present nor swapped, their protection
			 * marker gone with them), then the pages written,
			 * protected again by the same walk.  Each list is in
			 * order; the two are merged.
			 */
			d0 = b->ndirty;
			r = scan(b, pm, lo, hi, PM_CHECK_WPASYNC,
			    PM_IS_PRESENT | PM_IS_SWAPPED,
			    PM_IS_PRESENT | PM_IS_SWAPPED);
			if (r == -EPERM) {
				track_region(lo, hi);
				continue;
			}
			d1 = b->ndirty;
			if (r == 0)
				r = scan(b, pm, lo, hi, PM_WP_MATCHING |
				    PM_CHECK_WPASYNC, 0, PM_IS_WRITTEN);
			if (r == 0)
				r = merge_dirty(b, d0, d1);
			if (r < 0) {
				/* Too much to list, or not tracked after
				 * all: a full image, and everything
				 * protected from here on. */
				ok = 0;
				track_region(lo, hi);
				continue;
			}
			if (add_range(b->tracked, &b->ntracked,
			    CB_MAX_TRACKED, lo, hi) == -1) {
				ok = 0;
				continue;
			}
		}
	}
	condor_sys1(SYS_close, pm);
	ckpt_g.trk_ok = 1;
	b->delta = delta && ok;
	return b->delta;
}

/* Is [lo, hi) wholly inside a range tracked at this checkpoint? */
int
ckpt_incr_tracked(const struct ckpt_build *b, uint64_t lo, uint64_t hi)
{
	uint32_t a = 0, z = b->ntracked, m;

	while (a < z) {
		m = (a + z) / 2;
		if (b->tracked[m].end <= lo)
			a = m + 1;
		else
			z = m;
	}
	return a < b->ntracked && b->tracked[a].start <= lo &&
	    hi <= b->tracked[a].end;
}
