/*
 * ckptfile.h: the checkpoint file format, shared by the job's checkpoint
 * library (which writes checkpoints), condor_ckpt (which describes,
 * verifies and merges them) and the starter (which merges and ships them).
 *
 * A checkpoint is an ordinary ELF executable for x86-64 Linux:
 *
 *   [0, exe_len)        the original relinked executable, byte for byte,
 *                       except the ELF header's section-header fields and
 *                       the .condor_relinked marker (struct ckpt_marker),
 *                       which says "this is a checkpoint" and where the
 *                       restart state is.  The program headers are the
 *                       original ones, so the kernel loads text, data and
 *                       bss exactly as it loads the program, and readelf -l
 *                       reads it.
 *   page-aligned        the saved memory: one extent per run of non-zero
 *   extents             pages of every saved region (data, bss, heap,
 *                       anonymous mappings, stack), each at a page-aligned
 *                       file offset (the restart reads it into memory of
 *                       the kind the region was, in large aligned reads);
 *                       section .condor_data.
 *   restart state       struct ckpt_head, then the tables it points to
 *                       (regions, extents, open files, descriptors, a
 *                       string table); section .condor_restart.
 *   section headers     the original sections, .condor_data,
 *                       .condor_restart and a new .shstrtab.
 *
 * Every byte is covered: the executable part, every extent, the restart
 * state and the trailer (section names and headers) carry a checksum
 * (ckpt_sum: CRC32C computed over four interleaved lanes of 64-bit
 * words, then folded; about 17 GB/s here, so a 1 GiB image verifies in
 * 60 ms), and the padding must be zeros.  A reader refuses the file if
 * any of them, any magic, version, size or offset is wrong.  A
 * checkpoint's entry point is the library's condor_ckpt_entry, which
 * checks the executable part before libc's start-up code runs from it.
 *
 * The job library writes the same restart state into a note named
 * "CONDOR" (type NT_CONDOR_RESTART) of an ELF core when asked for a core
 * instead of a checkpoint; there the extents' offsets are core file
 * offsets.  ckpt_merge turns such a core plus the executable into the
 * checkpoint above.
 *
 * All integers are little-endian, fixed size, naturally aligned.
 */
#ifndef CONDOR_CKPTFILE_H
#define CONDOR_CKPTFILE_H

#include <stddef.h>
#include <stdint.h>

#define CKPT_MARKER_MAGIC	"CONDOR-RELINKED"	/* 15 chars + NUL */
#define CKPT_MARKER_SECTION	".condor_relinked"
#define CKPT_DATA_SECTION	".condor_data"
#define CKPT_RESTART_SECTION	".condor_restart"
#define CKPT_HEAD_MAGIC		"CONDCKPT"		/* 8 bytes, no NUL */
#define CKPT_VERSION		2	/* 2: image identities, deltas */
#define CKPT_NOTE_NAME		"CONDOR"
#define NT_CONDOR_RESTART	0x434b5054		/* "CKPT" */
#define CKPT_PAGE		4096
#define CKPT_NSIG		64

/*
 * The marker every relinked program carries in its writable data, in a
 * section of its own (condor_submit looks for the section).  In a
 * program is_ckpt is 0; a checkpoint file's copy says where its restart
 * state is.  The start-up code reads it from memory, where the kernel
 * loaded it.
 */
struct ckpt_marker {
	char		magic[16];	/* CKPT_MARKER_MAGIC */
	uint32_t	version;	/* CKPT_VERSION */
	uint32_t	is_ckpt;
	uint64_t	state_off;	/* file offset of struct ckpt_head */
	uint64_t	state_len;	/* bytes of restart state */
	uint64_t	entry;		/* condor_ckpt_entry: a checkpoint's
					   e_entry, which checks the file
					   before libc's start-up runs */
	uint64_t	reserved[3];
};

/* Region kinds: what a saved mapping was. */
enum ckpt_kind {
	CKPT_R_TEXT = 1,	/* read-only part of the executable: not saved */
	CKPT_R_DATA,		/* writable (or RELRO) part of the executable */
	CKPT_R_BSS,		/* the anonymous tail of the data segment */
	CKPT_R_HEAP,		/* [start_brk, brk) */
	CKPT_R_ANON,		/* anonymous or private file mapping: saved */
	CKPT_R_SHARED,		/* shared file mapping: re-mapped by path */
	CKPT_R_STACK,		/* the main stack: copied into the new one */
	CKPT_R_VDSO,		/* [vdso], [vvar], [vvar_vclock]: moved back */
	CKPT_R_VVAR,
	CKPT_R_VVAR_VCLOCK,
	CKPT_R_VSYSCALL,	/* fixed by the kernel: recorded only */
	CKPT_R_GATE,		/* the library's system-call gate page */
	CKPT_R_MAX
};

/* Region flags. */
#define CKPT_RF_PRIVATE		0x01
#define CKPT_RF_NORESERVE	0x02	/* restored with MAP_NORESERVE */
#define CKPT_RF_GROWSDOWN	0x04
#define CKPT_RF_FILE		0x08	/* a private mapping of the file
					   NAME (the executable, for
					   CKPT_R_DATA) at file_off */
#define CKPT_RF_INHERIT		0x10	/* in a delta: its pages
					   outside the delta's extents
					   are the parent image's, at
					   the same addresses */

struct ckpt_region {
	uint64_t	start, end;	/* [start, end), page aligned */
	uint32_t	prot;		/* PROT_* */
	uint32_t	kind;		/* enum ckpt_kind */
	uint32_t	flags;		/* CKPT_RF_* */
	uint32_t	name;		/* string table offset ("" = 0) */
	uint32_t	first_extent;	/* its extents, ascending, no overlap */
	uint32_t	nextents;
	uint64_t	file_off;	/* CKPT_R_SHARED, CKPT_RF_FILE: offset
					   in that file */
};

/* A run of saved pages; pages of a region outside its extents are 0. */
struct ckpt_extent {
	uint64_t	addr;
	uint64_t	len;		/* multiple of CKPT_PAGE */
	uint64_t	off;		/* file offset (page aligned in a ckpt) */
	uint32_t	sum;		/* ckpt_sum of the len bytes */
	uint32_t	region;		/* index of its region */
};

/* Open file descriptions (what open() created; dup()s share one). */
enum ckpt_file_kind {
	CKPT_F_FILE = 1,	/* a path: reopened and re-seeked */
	CKPT_F_INHERITED,	/* open before the program started: the
				   restarted process's own is used */
};

struct ckpt_file {
	uint32_t	kind;		/* enum ckpt_file_kind */
	int32_t		flags;		/* open flags, O_CREAT/O_EXCL/O_TRUNC
					   already removed */
	uint32_t	mode;
	uint32_t	path;		/* string table offset, absolute */
	int64_t		offset;		/* lseek(fd, 0, SEEK_CUR), or -1 */
	uint64_t	dev, ino;	/* identity at checkpoint time */
	uint64_t	size;		/* its size then (information) */
};

struct ckpt_fd {
	int32_t		fd;
	uint32_t	file;		/* index into the file table */
	uint32_t	cloexec;
	uint32_t	pad;
};

/* The kernel's struct sigaction (rt_sigaction), as saved. */
struct ckpt_sigaction {
	uint64_t	handler, flags, restorer, mask;
};

struct ckpt_itimer {
	int64_t		interval_sec, interval_usec, value_sec, value_usec;
};

/*
 * Registers of the interrupted context, in the order of the kernel's
 * struct user_regs_struct (what an NT_PRSTATUS note holds).
 */
#define CKPT_NGREG	27

/* The callee-saved context CKPT() is resumed at (see ckpt_ctx_save). */
struct ckpt_ctx {
	uint64_t	rbx, rbp, r12, r13, r14, r15, rsp, rip;
};

/*
 * The restart state: this header, then its tables at the offsets it
 * gives (from the start of the header).  sum covers everything after
 * the first 32 bytes, whose fields are checked one by one.
 */
struct ckpt_head {
	char		magic[8];	/* CKPT_HEAD_MAGIC */
	uint32_t	version;	/* CKPT_VERSION */
	uint32_t	head_size;	/* sizeof(struct ckpt_head) */
	uint64_t	state_len;	/* header + tables + strings */
	uint32_t	sum;		/* ckpt_sum of bytes [32, state_len) */
	uint32_t	pad_sum;
	uint32_t	exe_sum;	/* ckpt_sum of the executable part
					   (0 in a core) */
	uint32_t	trailer_sum;	/* ckpt_sum of what follows the state:
					   section names and headers (0 in a
					   core); the padding before the data
					   must be zeros */
	uint64_t	exe_len;	/* bytes of the original executable */
	uint64_t	exe_shoff;	/* its section headers, as linked */
	uint32_t	exe_shnum, exe_shstrndx;
	uint8_t		build_id[32];	/* GNU build id of the executable */
	uint32_t	build_id_len;
	uint32_t	ckpt_signal;	/* the signal that took it */
	int64_t		created;	/* seconds since the epoch */
	uint64_t	image_bytes;	/* total length of saved regions */
	uint64_t	data_bytes;	/* total length of extents */
	uint64_t	data_off;	/* first extent byte in the file */
	uint32_t	nregions, nextents, nfiles, nfds;
	uint32_t	strtab_len, pad0;
	uint64_t	regions_off, extents_off, files_off, fds_off,
			strtab_off;

	/* The process. */
	uint32_t	pid;		/* at checkpoint time (information) */
	uint32_t	personality;
	uint32_t	umask;
	uint32_t	program;	/* string: the program's name */
	uint32_t	cwd;		/* string: the working directory */
	uint32_t	pad1;
	uint64_t	start_brk, brk;
	uint64_t	fs_base, gs_base;
	struct ckpt_ctx	ctx;		/* where CKPT() resumes */
	uint64_t	gregs[CKPT_NGREG];	/* the interrupted context */

	/* Signals: the mask inside CKPT() (restored before jumping back
	 * into it), the program's mask when the signal came (sigreturn
	 * restores it; information), what was pending, every disposition
	 * (index = signal number - 1), the alternate stack. */
	uint64_t	sigmask, prog_sigmask, sigpending;
	struct ckpt_sigaction sigactions[CKPT_NSIG];
	uint64_t	altstack_sp, altstack_size;
	uint32_t	altstack_flags, pad2;
	struct ckpt_itimer itimers[3];	/* ITIMER_REAL, _VIRTUAL, _PROF */

	/* Incremental checkpoints: which image this is, and for a delta
	 * the image it applies to (a full image, or the result of the
	 * delta before it). */
	uint64_t	image_id;	/* nonzero */
	uint64_t	parent_id;	/* 0 in a full image */
	uint32_t	delta_seq;	/* 0 full; n: the n-th delta since */
	uint32_t	pad3;
};

/*
 * A delta (an incremental checkpoint): what changed since its parent
 * image.  Not an executable: it is folded into its base (ckpt_fold)
 * before a restart.  The file is this header (its page zero-padded),
 * the extents' bytes from data_off (page aligned, in order), then a
 * restart state (struct ckpt_head and its tables) whose regions are the
 * whole memory layout at the delta's time: a region flagged
 * CKPT_RF_INHERIT takes its pages outside the delta's extents from the
 * parent at the same addresses (it existed, unmoved, in the parent), any
 * other region is wholly in the delta (new, moved or grown memory).
 * The state's exe_sum and trailer_sum are 0.  sum covers the header
 * before it; each extent and the state carry their own.
 */
#define CKPT_DELTA_MAGIC	"CONDDLTA"		/* 8 bytes, no NUL */
#define CKPT_MAX_DELTAS		4	/* deltas before a full one */

struct ckpt_delta {
	char		magic[8];	/* CKPT_DELTA_MAGIC */
	uint32_t	version;	/* CKPT_VERSION */
	uint32_t	size;		/* sizeof(struct ckpt_delta) */
	uint64_t	image_id;	/* as in its state */
	uint64_t	parent_id;
	uint32_t	seq;
	uint32_t	pad0;
	uint64_t	data_off;	/* CKPT_PAGE */
	uint64_t	state_off, state_len;
	uint64_t	file_len;
	uint32_t	sum;		/* ckpt_sum of what precedes */
	uint32_t	pad1;
};

/* ckpt_sum: the checksum used everywhere in the format. */
uint32_t	 ckpt_sum(const void *, size_t);
/* A running checksum: ckpt_sum_more over chunks of any lengths, then
 * ckpt_sum_end, equals ckpt_sum of their concatenation. */
struct ckpt_sumctx {
	uint64_t	 lane[4];
	uint64_t	 len;
	uint8_t		 pend[32];	/* bytes short of a block */
	uint32_t	 npend;
	int		 hw;
};
void		 ckpt_sum_init(struct ckpt_sumctx *);
void		 ckpt_sum_more(struct ckpt_sumctx *, const void *, size_t);
uint32_t	 ckpt_sum_end(struct ckpt_sumctx *);

/*
 * ckpt_state_check: verify a restart state read into memory (LEN bytes
 * at H): magic, version, sizes, every table inside it, every string
 * NUL-terminated, the extents inside their regions and inside a file of
 * FILE_SIZE bytes (0: not checked), and the checksum.  Returns NULL if
 * good, else a static message saying what is wrong.  Uses no libc.
 */
const char	*ckpt_state_check(const struct ckpt_head *h, uint64_t len,
		    uint64_t file_size);

/* Accessors for a checked state. */
#define CKPT_REGIONS(h)	((const struct ckpt_region *)((const char *)(h) + (h)->regions_off))
#define CKPT_EXTENTS(h)	((const struct ckpt_extent *)((const char *)(h) + (h)->extents_off))
#define CKPT_FILES(h)	((const struct ckpt_file *)((const char *)(h) + (h)->files_off))
#define CKPT_FDS(h)	((const struct ckpt_fd *)((const char *)(h) + (h)->fds_off))
#define CKPT_STR(h, o)	((const char *)(h) + (h)->strtab_off + (o))

const char	*ckpt_kind_name(uint32_t kind);

/*
 * Memory a restart may bring back on demand (ckpt_lazy.c): the private
 * anonymous regions (heap, bss, anonymous mappings), when every extent
 * of theirs is at most CKPT_LAZY_EXTENT bytes (each is summed whole
 * before any page of it is used; the checkpoint writer cuts extents at
 * that size).  ckpt_lazy_bytes: how many bytes of the state that is.
 */
#define CKPT_LAZY_EXTENT	(1UL << 20)
int		 ckpt_lazy_region(const struct ckpt_head *,
		    const struct ckpt_region *);
uint64_t	 ckpt_lazy_bytes(const struct ckpt_head *);

/*
 * Writing a checkpoint.  The writer is plain C without allocation or
 * libc I/O so that the job library can run it inside a signal handler;
 * the caller supplies I/O callbacks.
 *
 *	exe_read(arg, off, buf, len)   read LEN bytes of the executable at
 *	                               OFF (the original program or an
 *	                               earlier checkpoint of it); 0 or -errno
 *	data(arg, ext, off, buf, len)  the bytes [off, off+len) of extent
 *	                               EXT: return a pointer to them (in
 *	                               memory) or read them into BUF (at
 *	                               most len bytes) and return BUF; NULL
 *	                               and *err=-errno on error
 *	write(arg, buf, len)           append to the output; 0 or -errno
 *
 * The state H (with its tables, LEN bytes, in writable memory) describes
 * the process; ckpt_write fills in the extents' offsets and sums, the
 * data offset, the executable's checksum and the state's checksum, and
 * streams the whole file in order (no seeks, so the output may be a
 * pipe).  BUF is scratch of BUFLEN bytes (at least 64 KiB, a multiple
 * of 4096).  Returns the file length, or -errno with a message in *WHY.
 */
struct ckpt_io {
	int		(*exe_read)(void *, uint64_t, void *, size_t);
	const void	*(*data)(void *, const struct ckpt_extent *,
			    uint64_t, void *, size_t, int *);
	int		(*write)(void *, const void *, size_t);
	void		*arg;
};

int64_t		 ckpt_write(struct ckpt_head *h, struct ckpt_io *io,
		    void *buf, size_t buflen, const char **why);

/*
 * ckpt_write_delta: the same for a delta (H->delta_seq > 0, its regions
 * flagged, its extents the changed pages): header, extents, state, in
 * order.  Returns the file length, or -errno with a message in *WHY.
 */
int64_t		 ckpt_write_delta(struct ckpt_head *h,
		    struct ckpt_io *io, void *buf, size_t buflen,
		    const char **why);
/* ckpt_delta_check: a delta header read into memory (no libc); NULL if
 * good, else what is wrong. */
const char	*ckpt_delta_check(const struct ckpt_delta *d,
		    uint64_t file_size);

/* Layout helpers shared by the writer and the readers. */
uint64_t	 ckpt_data_offset(uint64_t exe_len);
uint64_t	 ckpt_state_offset(const struct ckpt_head *h);
/* The state's checksum (for writers of cores). */
uint32_t	 ckpt_state_sum(const struct ckpt_head *h, uint64_t len);

#ifndef CKPTFILE_NO_LIBELF
#include <stdio.h>
/*
 * Reading (libelf).  ckpt_open reads and checks a checkpoint file's ELF
 * structure and restart state; ckpt_verify checks every extent's and the
 * executable's checksum; ckpt_describe prints what `condor_ckpt info`
 * shows.  Errors: -1 with a message in ERR.
 */
struct ckpt_file_info {
	int		 fd;
	uint64_t	 size;
	struct ckpt_head *head;		/* malloc'd, checked */
	struct ckpt_marker marker;
	uint64_t	 marker_off;
	int		 is_core;
};

int	 ckpt_open(const char *path, struct ckpt_file_info *, char *err,
	    size_t errlen);
int	 ckpt_verify(struct ckpt_file_info *, char *err, size_t errlen);
void	 ckpt_describe(struct ckpt_file_info *, FILE *);
void	 ckpt_close(struct ckpt_file_info *);

/*
 * ckpt_merge: build the checkpoint OUT_FD (a file or a pipe, written in
 * order) from the executable EXE_PATH and a core CORE_PATH that the job
 * library wrote.  Checks that the core belongs to that executable (build
 * id and size) and every checksum the core carries.  Returns the bytes
 * written, or -1 with a message in ERR.
 */
int64_t	 ckpt_merge(const char *exe_path, const char *core_path, int out_fd,
	    char *err, size_t errlen);

/*
 * ckpt_install: put a checkpoint that was written to TMP (a file in
 * TARGET's directory, complete: a copy received from a peer, or one the
 * job wrote) in place: fsync it, verify every checksum, rename it over
 * TARGET, fsync the directory.  On failure TMP is removed and TARGET is
 * as it was.  0, or -1 with a message in ERR.
 */
int	 ckpt_install(const char *tmp, const char *target, char *err,
	    size_t errlen);

/*
 * ckpt_merge_install: ckpt_merge into a temporary file beside TARGET,
 * then ckpt_install it.  A failure leaves TARGET as it was.
 */
int	 ckpt_merge_install(const char *exe_path, const char *core_path,
	    const char *target, char *err, size_t errlen);

/*
 * ckpt_fold: apply the deltas DELTAS[0..N) in order to the checkpoint
 * BASE_PATH and write the resulting full checkpoint to OUT_FD (in
 * order; a pipe will do).  Verifies every checksum of the base and of
 * each delta first, and that each delta's parent is the image before
 * it; the result carries the last delta's identity and fresh checksums.
 * Returns the bytes written, or -1 with a message in ERR naming the
 * file at fault.  ckpt_fold_install: into a temporary beside TARGET,
 * then ckpt_install; TARGET is untouched on failure.
 */
int64_t	 ckpt_fold(const char *base_path, char *const *deltas, int n,
	    int out_fd, char *err, size_t errlen);
int	 ckpt_fold_install(const char *base_path, char *const *deltas, int n,
	    const char *target, char *err, size_t errlen);
/* ckpt_is_delta: 1 if PATH starts with a delta's magic, 0 if not, -1
 * if it cannot be read.  ckpt_delta_describe: verify every checksum of
 * the delta PATH and print what `condor_ckpt info` shows of it; 0, or
 * -1 with a message in ERR. */
int	 ckpt_delta_describe(const char *path, FILE *fp, char *err,
	    size_t errlen);
int	 ckpt_is_delta(const char *path);
#endif

#endif
