/*
 * ckpt_state.c: gather what a restart needs into a restart state
 * (struct ckpt_head and its tables, ckptfile.h).
 *
 * ckpt_build_process runs in the checkpoint signal handler of the
 * program itself: registers, signal dispositions, mask and pending set,
 * the alternate stack, interval timers, the thread pointer, the break,
 * the open files with their offsets.  ckpt_build_memory reads
 * /proc/self/maps and decides, region by region, what to save: writable
 * and anonymous memory is saved in extents (runs of pages that are
 * resident and not all zero, mincore() telling which anonymous pages
 * were ever touched, so a 2 TiB MAP_NORESERVE region with a few pages
 * used costs a few pages); the program's text is not (the checkpoint
 * carries the executable); the kernel's [vdso]/[vvar] are recorded to be
 * moved back, never saved.  For a periodic checkpoint it runs in the
 * forked writer, whose memory is the program's at the moment of the fork.
 *
 * Everything goes through the gate and lives in one scratch mapping.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <asm/prctl.h>

#include "../libremote/remote.h"
#include "ckpt.h"

#define PAGE		4096UL
#define MIN_HOLE	16	/* pages: shorter zero runs stay in the extent */

extern char	__executable_start[];

/* ---------------------------------------------------------------- */
/* Scratch. */

static size_t
sc_align(size_t v)
{
	return (v + PAGE - 1) & ~(PAGE - 1);
}

int
ckpt_build_init(struct ckpt_build *b, const char **why)
{
	size_t off = 0, len;
	long p;

	cj_memset(b, 0, sizeof(*b));
#define CARVE(field, type, n) do {					\
		b->field = (type)(uintptr_t)off;			\
		off += sc_align((size_t)(n));				\
	} while (0)
	CARVE(head, struct ckpt_head *, sizeof(struct ckpt_head));
	CARVE(regions, struct ckpt_region *,
	    CB_MAX_REGIONS * sizeof(struct ckpt_region));
	CARVE(extents, struct ckpt_extent *,
	    (size_t)CB_MAX_EXTENTS * sizeof(struct ckpt_extent));
	CARVE(files, struct ckpt_file *, CB_MAX_FILES * sizeof(struct ckpt_file));
	CARVE(fds, struct ckpt_fd *, CB_MAX_FDS * sizeof(struct ckpt_fd));
	CARVE(strtab, char *, CB_STRTAB);
	CARVE(mapsbuf, char *, CB_MAPSBUF);
	CARVE(iobuf, char *, CB_IOBUF);
	CARVE(packed, struct ckpt_head *, (size_t)(uintptr_t)b->mapsbuf);
	CARVE(tracked, struct ckpt_range *,
	    CB_MAX_TRACKED * sizeof(struct ckpt_range));
	CARVE(dirty, struct ckpt_range *,
	    (size_t)CB_MAX_DIRTY * sizeof(struct ckpt_range));
	CARVE(spare, struct ckpt_range *,
	    (size_t)CB_MAX_DIRTY * sizeof(struct ckpt_range));
#undef CARVE
	len = off;
	p = condor_sys6(SYS_mmap, 0, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p < 0 && p > -4096) {
		*why = "no memory for the checkpoint's tables";
		return -1;
	}
	b->scratch = (char *)p;
	b->scratch_len = len;
#define FIX(field, type) b->field = (type)(b->scratch + (uintptr_t)b->field)
	FIX(head, struct ckpt_head *);
	FIX(regions, struct ckpt_region *);
	FIX(extents, struct ckpt_extent *);
	FIX(files, struct ckpt_file *);
	FIX(fds, struct ckpt_fd *);
	FIX(strtab, char *);
	FIX(mapsbuf, char *);
	FIX(iobuf, char *);
	FIX(packed, struct ckpt_head *);
	FIX(tracked, struct ckpt_range *);
	FIX(dirty, struct ckpt_range *);
	FIX(spare, struct ckpt_range *);
#undef FIX
	b->strtab[0] = '\0';
	b->strtab_len = 1;
	return 0;
}

void
ckpt_build_free(struct ckpt_build *b)
{
	if (b->scratch != 0)
		condor_sys2(SYS_munmap, b->scratch, b->scratch_len);
	b->scratch = 0;
}

uint32_t
ckpt_build_str(struct ckpt_build *b, const char *s)
{
	size_t n = cj_strlen(s);
	uint32_t at;

	if (n == 0)
		return 0;
	if (b->strtab_len + n + 1 > CB_STRTAB)
		return 0;
	at = b->strtab_len;
	cj_memcpy(b->strtab + at, s, n + 1);
	b->strtab_len += (uint32_t)(n + 1);
	return at;
}

/* ---------------------------------------------------------------- */
/* Small parsers. */

static int
parse_hex(const char **pp, uint64_t *v)
{
	const char *p = *pp;
	int n = 0;

	*v = 0;
	for (;; p++, n++) {
		if (*p >= '0' && *p <= '9')
			*v = *v * 16 + (uint64_t)(*p - '0');
		else if (*p >= 'a' && *p <= 'f')
			*v = *v * 16 + (uint64_t)(*p - 'a' + 10);
		else
			break;
	}
	*pp = p;
	return n > 0 ? 0 : -1;
}

static uint64_t
parse_dec(const char **pp)
{
	const char *p = *pp;
	uint64_t v = 0;

	while (*p >= '0' && *p <= '9')
		v = v * 10 + (uint64_t)(*p++ - '0');
	*pp = p;
	return v;
}

/* Read a whole /proc file into BUF (NUL-terminated); its length or -1. */
static long
read_proc(const char *path, char *buf, size_t len)
{
	long fd, n, at = 0;

	if ((fd = ckpt_proc_open(path)) < 0)
		return -1;
	while ((size_t)at < len - 1 &&
	    (n = condor_sys3(SYS_read, fd, buf + at, len - 1 - (size_t)at)) > 0)
		at += n;
	condor_sys1(SYS_close, fd);
	if ((size_t)at >= len - 1)
		return -1;	/* may be truncated */
	buf[at] = '\0';
	return at;
}

uint64_t
ckpt_start_brk(void)
{
	static char buf[2048];	/* static: CKPT() and start-up only */
	const char *p;
	int field;

	if (read_proc("/proc/self/stat", buf, sizeof(buf)) < 0)
		return 0;
	/* The name (field 2) may hold anything: fields count from ") ". */
	for (p = buf + cj_strlen(buf); p > buf && *p != ')'; p--)
		;
	if (*p != ')')
		return 0;
	p += 2;
	for (field = 3; field < 47 && *p != '\0'; p++)
		if (*p == ' ')
			field++;
	return parse_dec(&p);
}

/* ---------------------------------------------------------------- */
/* The process. */

static void
gregs_from_uc(uint64_t *r, const ucontext_t *uc, uint64_t fs, uint64_t gs)
{
	const greg_t *g = uc->uc_mcontext.gregs;

	r[0] = (uint64_t)g[REG_R15];
	r[1] = (uint64_t)g[REG_R14];
	r[2] = (uint64_t)g[REG_R13];
	r[3] = (uint64_t)g[REG_R12];
	r[4] = (uint64_t)g[REG_RBP];
	r[5] = (uint64_t)g[REG_RBX];
	r[6] = (uint64_t)g[REG_R11];
	r[7] = (uint64_t)g[REG_R10];
	r[8] = (uint64_t)g[REG_R9];
	r[9] = (uint64_t)g[REG_R8];
	r[10] = (uint64_t)g[REG_RAX];
	r[11] = (uint64_t)g[REG_RCX];
	r[12] = (uint64_t)g[REG_RDX];
	r[13] = (uint64_t)g[REG_RSI];
	r[14] = (uint64_t)g[REG_RDI];
	r[15] = (uint64_t)-1;		/* orig_rax */
	r[16] = (uint64_t)g[REG_RIP];
	r[17] = 0x33;			/* cs */
	r[18] = (uint64_t)g[REG_EFL];
	r[19] = (uint64_t)g[REG_RSP];
	r[20] = 0x2b;			/* ss */
	r[21] = fs;
	r[22] = gs;
	r[23] = r[24] = r[25] = r[26] = 0;
}

static const char *
refuse_fd(int fd, const char *what, char *buf, size_t len)
{
	char num[24];

	cj_strlcpy(buf, "descriptor ", len);
	cj_strlcat(buf, cj_utoa((unsigned)fd, num, 10), len);
	cj_strlcat(buf, what, len);
	return buf;
}

/*
 * The library's own descriptors, which the program never sees: the
 * notification descriptor as a restart moved it (out of the program's
 * way, CKPT_PROC_FD_LOW up), the lazy restore's, the /proc ones.
 */
static int
library_fd(int fd)
{
	int i;

	if (fd == ckpt_g.notify_fd || fd == ckpt_g.lazy_fd ||
	    fd == ckpt_g.trk_uffd)
		return 1;
	for (i = 0; i < CKPT_PROC_N; i++)
		if (fd == ckpt_proc_fds[i])
			return 1;
	return 0;
}

/* Descriptors open but not in the table (made behind the trap's back). */
static int
untracked_fd(void)
{
	static char buf[4096];
	long dfd, n, pos;
	int fd, i, found = -1;

	dfd = condor_sys3(SYS_open, "/proc/self/fd",
	    O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (dfd < 0)
		return -1;
	while ((n = condor_sys3(SYS_getdents64, dfd, buf, sizeof(buf))) > 0)
		for (pos = 0; pos < n;) {
			unsigned short reclen = *(unsigned short *)(buf + pos + 16);
			const char *name = buf + pos + 19;

			pos += reclen;
			if (name[0] < '0' || name[0] > '9')
				continue;
			for (fd = 0, i = 0; name[i] >= '0' && name[i] <= '9' &&
			    fd < 1 << 20; i++)
				fd = fd * 10 + (name[i] - '0');
			if (fd == dfd || (library_fd(fd) && (fd >= FT_MAXFD ||
			    ft_fds[fd].file == 0)))
				continue;
			if (fd >= FT_MAXFD || ft_fds[fd].file == 0)
				found = fd;
		}
	condor_sys1(SYS_close, dfd);
	return found;
}

static char refuse_buf[PATH_MAX + 128];

static int
build_files(struct ckpt_build *b, const char **why)
{
	static int16_t map[FT_MAXFILES];
	struct stat st;
	long r;
	int fd, i, local = remote_mode() == REMOTE_MODE_LOCAL;

	/* Outside Condor the scan of /proc/self/fd below is exact; the
	 * flag only says that something once did not fit. */
	if (ft_overflow && !local) {
		*why = "more open files than the library can track";
		return -1;
	}
	if (local && (fd = untracked_fd()) >= 0) {
		*why = refuse_fd(fd, " was opened where the library could "
		    "not see it", refuse_buf, sizeof(refuse_buf));
		return -1;
	}
	for (i = 0; i < FT_MAXFILES; i++)
		map[i] = -1;
	b->nfiles = b->nfds = 0;
	for (fd = 0; fd < FT_MAXFD; fd++) {
		struct ft_file *f;
		struct ckpt_file *cf;
		int idx = ft_fds[fd].file - 1;

		if (idx < 0)
			continue;
		f = &ft_files[idx];
		if (f->kind == FT_OTHER) {
			refuse_fd(fd, " is a ", refuse_buf, sizeof(refuse_buf));
			cj_strlcat(refuse_buf, f->what ? f->what : "special file",
			    sizeof(refuse_buf));
			cj_strlcat(refuse_buf, ", which a restart cannot "
			    "restore", sizeof(refuse_buf));
			*why = refuse_buf;
			return -1;
		}
		if (map[idx] < 0) {
			static char path[PATH_MAX];
			char link[64], num[24];
			long n;

			map[idx] = (int16_t)b->nfiles;
			cf = &b->files[b->nfiles++];
			cj_memset(cf, 0, sizeof(*cf));
			cf->kind = f->kind == FT_INHERITED ? CKPT_F_INHERITED :
			    CKPT_F_FILE;
			cf->flags = f->flags;
			cf->mode = f->mode;
			if (local) {
				cf->offset = condor_sys3(SYS_lseek, fd, 0,
				    SEEK_CUR);
				r = condor_sys2(SYS_fstat, fd, &st);
			} else {
				/* The program's descriptors are the
				 * shadow's. */
				long a[6] = { fd, 0, SEEK_CUR, 0, 0, 0 };

				cf->offset = remote_call(SYS_lseek, a);
				a[1] = (long)&st;
				r = remote_call(SYS_fstat, a);
			}
			if (cf->offset < 0)
				cf->offset = -1;
			if (r == 0) {
				cf->dev = st.st_dev;
				cf->ino = st.st_ino;
				cf->size = (uint64_t)st.st_size;
			} else
				st.st_nlink = 1;
			if (cf->kind == CKPT_F_INHERITED)
				goto fd;
			cj_strlcpy(path, f->path, sizeof(path));
			if (local) {
				cj_strlcpy(link, "/proc/self/fd/", sizeof(link));
				cj_strlcat(link, cj_utoa((unsigned)fd, num, 10),
				    sizeof(link));
				n = condor_sys3(SYS_readlink, link, path,
				    sizeof(path) - 1);
				if (n > 0)
					path[n] = '\0';
				else
					cj_strlcpy(path, f->path, sizeof(path));
			}
			n = (long)cj_strlen(path);
			if (st.st_nlink == 0 || (n > 10 &&
			    cj_strcmp(path + n - 10, " (deleted)") == 0)) {
				cj_strlcpy(refuse_buf, path, sizeof(refuse_buf));
				cj_strlcat(refuse_buf, " is open but was deleted: "
				    "a restart could not reopen it",
				    sizeof(refuse_buf));
				*why = refuse_buf;
				return -1;
			}
			if (path[0] != '/') {
				*why = refuse_fd(fd, " has no known path",
				    refuse_buf, sizeof(refuse_buf));
				return -1;
			}
			cf->path = ckpt_build_str(b, path);
		}
fd:
		b->fds[b->nfds].fd = fd;
		b->fds[b->nfds].file = (uint32_t)map[idx];
		b->fds[b->nfds].cloexec = ft_fds[fd].cloexec;
		b->fds[b->nfds].pad = 0;
		b->nfds++;
	}
	return 0;
}

int
ckpt_build_process(struct ckpt_build *b, int sig, ucontext_t *uc,
    const struct ckpt_ctx *ctx, const char **why)
{
	struct ckpt_head *h = b->head;
	struct itimerval itv;
	stack_t ss;
	uint64_t v;
	int i;
	long r;

	cj_memset(h, 0, sizeof(*h));
	cj_memcpy(h->magic, CKPT_HEAD_MAGIC, 8);
	h->version = CKPT_VERSION;
	h->head_size = sizeof(*h);
	h->exe_len = ckpt_g.exe_len;
	h->exe_shoff = ckpt_g.exe_shoff;
	h->exe_shnum = ckpt_g.exe_shnum;
	h->exe_shstrndx = ckpt_g.exe_shstrndx;
	cj_memcpy(h->build_id, ckpt_g.build_id, sizeof(h->build_id));
	h->build_id_len = ckpt_g.build_id_len;
	h->ckpt_signal = (uint32_t)sig;
	h->created = condor_sys1(SYS_time, 0);
	h->pid = (uint32_t)condor_sys0(SYS_getpid);
	h->personality = (uint32_t)condor_sys1(SYS_personality, 0xffffffff);
	r = condor_sys1(SYS_umask, 0);
	condor_sys1(SYS_umask, r);
	h->umask = (uint32_t)r;
	h->program = ckpt_build_str(b, ckpt_g.program);
	if (remote_mode() == REMOTE_MODE_LOCAL)
		condor_sys2(SYS_getcwd, ft_cwd, sizeof(ft_cwd));
	h->cwd = ckpt_build_str(b, ft_cwd);

	h->start_brk = ckpt_start_brk();
	h->brk = (uint64_t)condor_sys1(SYS_brk, 0);
	if (h->start_brk == 0 || h->start_brk > h->brk) {
		*why = "cannot tell where the heap starts (/proc/self/stat)";
		return -1;
	}
	condor_sys2(SYS_arch_prctl, ARCH_GET_FS, &v);
	h->fs_base = v;
	condor_sys2(SYS_arch_prctl, ARCH_GET_GS, &v);
	h->gs_base = v;
	h->ctx = *ctx;
	gregs_from_uc(h->gregs, uc, h->fs_base, h->gs_base);

	condor_sys4(SYS_rt_sigprocmask, SIG_BLOCK, 0, &h->sigmask, 8);
	h->prog_sigmask = *(const uint64_t *)&uc->uc_sigmask |
	    remote_virtual_blocked;
	condor_sys2(SYS_rt_sigpending, &h->sigpending, 8);
	for (i = 1; i <= CKPT_NSIG; i++)
		condor_sys4(SYS_rt_sigaction, i, 0, &h->sigactions[i - 1], 8);
	if (condor_sys2(SYS_sigaltstack, 0, &ss) == 0) {
		h->altstack_sp = (uint64_t)ss.ss_sp;
		h->altstack_size = ss.ss_size;
		h->altstack_flags = (uint32_t)ss.ss_flags;
	}
	for (i = 0; i < 3; i++) {
		cj_memset(&itv, 0, sizeof(itv));
		condor_sys2(SYS_getitimer, i, &itv);
		h->itimers[i].interval_sec = itv.it_interval.tv_sec;
		h->itimers[i].interval_usec = itv.it_interval.tv_usec;
		h->itimers[i].value_sec = itv.it_value.tv_sec;
		h->itimers[i].value_usec = itv.it_value.tv_usec;
	}
	return build_files(b, why);
}

/* ---------------------------------------------------------------- */
/* The memory. */

struct seg {
	uint64_t	lo, hi;		/* page-rounded */
	int		writable;
};

static int
exe_segments(struct seg *s, int max)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)__executable_start;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(__executable_start +
	    eh->e_phoff);
	int i, n = 0;

	for (i = 0; i < eh->e_phnum && n < max; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		s[n].lo = ph[i].p_vaddr & ~(PAGE - 1);
		s[n].hi = (ph[i].p_vaddr + ph[i].p_memsz + PAGE - 1) &
		    ~(PAGE - 1);
		s[n].writable = (ph[i].p_flags & PF_W) != 0;
		n++;
	}
	return n;
}

static int
starts_with(const char *s, const char *p)
{
	return cj_strncmp(s, p, cj_strlen(p)) == 0;
}

static int
saveable(uint32_t kind)
{
	return kind == CKPT_R_DATA || kind == CKPT_R_BSS ||
	    kind == CKPT_R_HEAP || kind == CKPT_R_ANON || kind == CKPT_R_STACK;
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

#define VEC	65536	/* mincore entries per call (256 MiB of pages) */

/* [lo, hi) as extents of at most CKPT_LAZY_EXTENT bytes (a restart
 * may bring one back on demand, summed whole first: ckpt_lazy.c). */
static int
add_extent(struct ckpt_build *b, uint32_t region, uint64_t lo, uint64_t hi)
{
	struct ckpt_extent *e;

	for (; lo < hi; lo = e->addr + e->len) {
		if (b->nextents >= CB_MAX_EXTENTS)
			return -1;
		e = &b->extents[b->nextents++];
		e->addr = lo;
		e->len = hi - lo < CKPT_LAZY_EXTENT ? hi - lo :
		    CKPT_LAZY_EXTENT;
		e->off = 0;
		e->sum = 0;
		e->region = region;
	}
	return 0;
}

/*
 * The extents of region R: pages that may hold data (resident, for
 * anonymous memory; all, for file-backed) and are not all zero, in runs;
 * zero runs shorter than MIN_HOLE pages stay inside a run.
 */
static int
region_extents(struct ckpt_build *b, uint32_t ri, int anonymous,
    unsigned char *vec)
{
	struct ckpt_region *r = &b->regions[ri];
	uint64_t a, chunk, i, run_lo = 0, run_hi = 0;
	int in_run = 0, readable_set = 0;

	r->first_extent = b->nextents;
	for (a = r->start; a < r->end; a += chunk) {
		chunk = (r->end - a) / PAGE < VEC ? r->end - a : VEC * PAGE;
		if (anonymous) {
			if (condor_sys3(SYS_mincore, a, chunk, vec) < 0)
				cj_memset(vec, 1, chunk / PAGE);
		} else
			cj_memset(vec, 1, chunk / PAGE);
		for (i = 0; i < chunk / PAGE; i++) {
			uint64_t pg = a + i * PAGE;

			if (!(vec[i] & 1))
				continue;
			if (!(r->prot & PROT_READ) && !readable_set) {
				/* Lend read access (given back after). */
				condor_sys3(SYS_mprotect, r->start,
				    r->end - r->start, r->prot | PROT_READ);
				readable_set = 1;
				b->prot_fixed++;
			}
			if (page_is_zero((const uint64_t *)pg))
				continue;
			if (in_run && pg - run_hi <= MIN_HOLE * PAGE) {
				run_hi = pg + PAGE;
				continue;
			}
			if (in_run && add_extent(b, ri, run_lo, run_hi) == -1)
				return -1;
			run_lo = pg;
			run_hi = pg + PAGE;
			in_run = 1;
		}
	}
	if (in_run && add_extent(b, ri, run_lo, run_hi) == -1)
		return -1;
	r->nextents = b->nextents - r->first_extent;
	if (readable_set)
		r->flags |= 0x80000000u;	/* prot lent: restore */
	return 0;
}

/*
 * The extents of region R in a delta: the page runs written since the
 * parent image (b->dirty, in order), as they are now, zeros included.
 */
static int
region_dirty_extents(struct ckpt_build *b, uint32_t ri)
{
	struct ckpt_region *r = &b->regions[ri];
	uint32_t a = 0, z = b->ndirty, m;
	uint64_t lo, hi;

	r->first_extent = b->nextents;
	while (a < z) {
		m = (a + z) / 2;
		if (b->dirty[m].end <= r->start)
			a = m + 1;
		else
			z = m;
	}
	for (; a < b->ndirty && b->dirty[a].start < r->end; a++) {
		lo = b->dirty[a].start > r->start ? b->dirty[a].start :
		    r->start;
		hi = b->dirty[a].end < r->end ? b->dirty[a].end : r->end;
		if (lo >= hi)
			continue;
		if (!(r->prot & PROT_READ) && !(r->flags & 0x80000000u)) {
			condor_sys3(SYS_mprotect, r->start, r->end - r->start,
			    r->prot | PROT_READ);
			r->flags |= 0x80000000u;	/* prot lent */
			b->prot_fixed++;
		}
		if (add_extent(b, ri, lo, hi) == -1)
			return -1;
	}
	r->nextents = b->nextents - r->first_extent;
	return 0;
}

void
ckpt_build_restore_prot(struct ckpt_build *b)
{
	uint32_t i;

	if (b->prot_fixed == 0)
		return;
	for (i = 0; i < b->nregions; i++)
		if (b->regions[i].flags & 0x80000000u) {
			condor_sys3(SYS_mprotect, b->regions[i].start,
			    b->regions[i].end - b->regions[i].start,
			    b->regions[i].prot);
			b->regions[i].flags &= ~0x80000000u;
		}
	b->prot_fixed = 0;
}

/* One line of /proc/self/maps, parsed. */
struct mapline {
	uint64_t	lo, hi, off, inode;
	char		perms[5];
	char		name[PATH_MAX];
};

static struct mapline	mapline;	/* static: keeps CKPT()'s stack small */

static int
add_region(struct ckpt_build *b, const struct mapline *m, uint64_t lo,
    uint64_t hi, const struct seg *segs, int nsegs, unsigned char *vec,
    const char **why)
{
	struct ckpt_head *h = b->head;
	uint64_t heap_hi = (h->brk + PAGE - 1) & ~(PAGE - 1);
	const char *name = m->name;
	struct ckpt_region *r;
	size_t n;
	int k;

	if (b->nregions >= CB_MAX_REGIONS) {
		*why = "too many memory regions";
		return -1;
	}
	r = &b->regions[b->nregions];
	cj_memset(r, 0, sizeof(*r));
	r->start = lo;
	r->end = hi;
	r->prot = (m->perms[0] == 'r' ? PROT_READ : 0) |
	    (m->perms[1] == 'w' ? PROT_WRITE : 0) |
	    (m->perms[2] == 'x' ? PROT_EXEC : 0);
	r->flags = m->perms[3] == 'p' ? CKPT_RF_PRIVATE : 0;
	r->kind = CKPT_R_ANON;
	if (cj_strcmp(name, "[vdso]") == 0)
		r->kind = CKPT_R_VDSO;
	else if (cj_strcmp(name, "[vvar]") == 0)
		r->kind = CKPT_R_VVAR;
	else if (cj_strcmp(name, "[vvar_vclock]") == 0)
		r->kind = CKPT_R_VVAR_VCLOCK;
	else if (cj_strcmp(name, "[vsyscall]") == 0)
		r->kind = CKPT_R_VSYSCALL;
	else if (cj_strcmp(name, "[stack]") == 0) {
		r->kind = CKPT_R_STACK;
		r->flags |= CKPT_RF_GROWSDOWN;
	} else if (lo == CONDOR_GATE_ADDR)
		r->kind = CKPT_R_GATE;
	else if (lo >= h->start_brk && hi <= heap_hi)
		r->kind = CKPT_R_HEAP;
	else {
		for (k = 0; k < nsegs; k++) {
			if (lo < segs[k].lo || hi > segs[k].hi)
				continue;
			if (segs[k].writable)
				r->kind = m->inode != 0 ? CKPT_R_DATA :
				    CKPT_R_BSS;
			else
				r->kind = r->prot & PROT_WRITE ?
				    CKPT_R_DATA : CKPT_R_TEXT;
			break;
		}
		if (k == nsegs && m->perms[3] == 's' && m->inode != 0 &&
		    !starts_with(name, "/dev/zero") &&
		    !starts_with(name, "/SYSV") &&
		    !starts_with(name, "/memfd:")) {
			n = cj_strlen(name);
			if (n > 10 && cj_strcmp(name + n - 10,
			    " (deleted)") == 0) {
				cj_strlcpy(refuse_buf, "a shared mapping "
				    "of the deleted file ", sizeof(refuse_buf));
				cj_strlcat(refuse_buf, name, sizeof(refuse_buf));
				*why = refuse_buf;
				return -1;
			}
			r->kind = CKPT_R_SHARED;
			r->file_off = m->off + (lo - m->lo);
		}
	}
	/*
	 * A private mapping of a file (the executable's data, or a file the
	 * program mapped) is restored as one again, its saved pages laid
	 * over it, so that what the kernel does with it later (MADV_DONTNEED
	 * giving the file's pages back) is what it would have done.
	 * Devices, deleted files and shared memory objects are not files a
	 * restart could map.
	 */
	if ((r->kind == CKPT_R_DATA || r->kind == CKPT_R_ANON) &&
	    m->perms[3] == 'p' && m->inode != 0 && name[0] == '/' &&
	    !starts_with(name, "/dev/") && !starts_with(name, "/SYSV") &&
	    !starts_with(name, "/memfd:") &&
	    !((n = cj_strlen(name)) > 10 &&
	    cj_strcmp(name + n - 10, " (deleted)") == 0)) {
		r->flags |= CKPT_RF_FILE;
		r->file_off = m->off + (lo - m->lo);
	}
	r->name = ckpt_build_str(b, name);
	if (saveable(r->kind) && b->delta && ckpt_incr_tracked(b, lo, hi)) {
		h->image_bytes += hi - lo;
		r->flags |= CKPT_RF_INHERIT;
		if (region_dirty_extents(b, b->nregions) == -1) {
			*why = "too many memory extents";
			return -1;
		}
	} else if (saveable(r->kind)) {
		h->image_bytes += hi - lo;
		if (region_extents(b, b->nregions, m->inode == 0, vec) == -1) {
			*why = "too many memory extents";
			return -1;
		}
	}
	b->nregions++;
	return 0;
}

/*
 * The bss and the heap are two regions even when the kernel made them
 * one area (registering both for write-protection, ckpt_incr.c, lets it
 * merge them): cut at the heap's start, so that each is restored as the
 * kind of memory it was.
 */
static int
add_region_brk(struct ckpt_build *b, const struct mapline *m, uint64_t lo,
    uint64_t hi, const struct seg *segs, int nsegs, unsigned char *vec,
    const char **why)
{
	uint64_t cut = b->head->start_brk;

	if (cut % PAGE == 0 && lo < cut && cut < hi) {
		if (add_region(b, m, lo, cut, segs, nsegs, vec, why) == -1)
			return -1;
		lo = cut;
	}
	return add_region(b, m, lo, hi, segs, nsegs, vec, why);
}

int
ckpt_build_memory(struct ckpt_build *b, const char **why)
{
	struct ckpt_head *h = b->head;
	struct seg segs[16];
	struct mapline *mp = &mapline;
	unsigned char *vec = (unsigned char *)b->iobuf;
	uint64_t scr_lo = (uint64_t)b->scratch, scr_hi = scr_lo + b->scratch_len;
	uint32_t i;
	const char *p;
	int nsegs, k;

	nsegs = exe_segments(segs, 16);
	if (read_proc("/proc/self/maps", b->mapsbuf, CB_MAPSBUF) < 0) {
		*why = "cannot read /proc/self/maps";
		return -1;
	}
	b->nregions = 0;
	b->nextents = 0;
	h->image_bytes = 0;
	for (p = b->mapsbuf; *p != '\0';) {
		size_t n;

		if (parse_hex(&p, &mp->lo) == -1 || *p++ != '-' ||
		    parse_hex(&p, &mp->hi) == -1 || *p++ != ' ') {
			*why = "cannot parse /proc/self/maps";
			return -1;
		}
		for (k = 0; k < 4 && *p != '\0'; k++)
			mp->perms[k] = *p++;
		mp->perms[4] = '\0';
		p++;
		parse_hex(&p, &mp->off);
		while (*p == ' ')
			p++;
		while (*p != ' ' && *p != '\0')	/* device */
			p++;
		while (*p == ' ')
			p++;
		mp->inode = parse_dec(&p);
		while (*p == ' ')
			p++;
		for (n = 0; *p != '\n' && *p != '\0'; p++)
			if (n < sizeof(mp->name) - 1)
				mp->name[n++] = *p;
		mp->name[n] = '\0';
		if (*p == '\n')
			p++;
		/*
		 * Our own scratch is not the program's; the kernel may have
		 * merged it with a neighbouring anonymous mapping of the
		 * program, so it is cut out of the line, not skipped.
		 */
		if (mp->hi <= scr_lo || mp->lo >= scr_hi) {
			if (add_region_brk(b, mp, mp->lo, mp->hi, segs, nsegs,
			    vec, why) == -1)
				return -1;
			continue;
		}
		if (mp->lo < scr_lo && add_region_brk(b, mp, mp->lo, scr_lo,
		    segs, nsegs, vec, why) == -1)
			return -1;
		if (mp->hi > scr_hi && add_region_brk(b, mp, scr_hi, mp->hi,
		    segs, nsegs, vec, why) == -1)
			return -1;
	}
	h->data_bytes = 0;
	for (i = 0; i < b->nextents; i++)
		h->data_bytes += b->extents[i].len;
	return 0;
}

int
ckpt_build_pack(struct ckpt_build *b, const char **why)
{
	struct ckpt_head *h = b->head, *ph = b->packed;
	uint64_t off = sizeof(*h);
	uint32_t i;

	h->nregions = b->nregions;
	h->nextents = b->nextents;
	h->nfiles = b->nfiles;
	h->nfds = b->nfds;
	h->strtab_len = (b->strtab_len + 7) & ~7u;
	h->regions_off = off;
	off += (uint64_t)b->nregions * sizeof(struct ckpt_region);
	h->extents_off = off;
	off += (uint64_t)b->nextents * sizeof(struct ckpt_extent);
	h->files_off = off;
	off += (uint64_t)b->nfiles * sizeof(struct ckpt_file);
	h->fds_off = off;
	off += (uint64_t)b->nfds * sizeof(struct ckpt_fd);
	h->strtab_off = off;
	off += h->strtab_len;
	h->state_len = off;
	if (off > (uint64_t)(b->scratch + b->scratch_len - (char *)ph)) {
		*why = "restart state too large";
		return -1;
	}
	cj_memcpy(ph, h, sizeof(*h));
	cj_memcpy((char *)ph + h->regions_off, b->regions,
	    (size_t)b->nregions * sizeof(struct ckpt_region));
	/* The regions' "read access lent" bit is not part of the format. */
	for (i = 0; i < b->nregions; i++)
		((struct ckpt_region *)((char *)ph + h->regions_off))[i].flags &=
		    ~0x80000000u;
	cj_memcpy((char *)ph + h->extents_off, b->extents,
	    (size_t)b->nextents * sizeof(struct ckpt_extent));
	cj_memcpy((char *)ph + h->files_off, b->files,
	    (size_t)b->nfiles * sizeof(struct ckpt_file));
	cj_memcpy((char *)ph + h->fds_off, b->fds,
	    (size_t)b->nfds * sizeof(struct ckpt_fd));
	cj_memset((char *)ph + h->strtab_off, 0, h->strtab_len);
	cj_memcpy((char *)ph + h->strtab_off, b->strtab, b->strtab_len);
	b->packed_len = off;
	ph->sum = ckpt_state_sum(ph, off);
	return 0;
}
