/*
 * ckptfile.c: the checkpoint file format (include/ckptfile.h).
 *
 * Two builds of this one file: the daemons and condor_ckpt get all of it
 * (libcondor_common.a; the reading and merging half uses libelf), the
 * job's checkpoint library gets the first half only (-DCKPTFILE_NO_LIBELF):
 * the checksum, the state checker and the streaming writer, which use no
 * libc at all, because the job runs them inside a signal handler and on
 * its restart path while its own memory is being replaced.
 */
#include <elf.h>
#include <stddef.h>
#include <stdint.h>

#include "ckptfile.h"
#include "fdio.h"
#include "fdio.h"

/* ---------------------------------------------------------------- */
/* The checksum: CRC32C over four interleaved lanes of 64-bit words. */

static uint32_t crc32c_table[256];
static int	crc32c_hw;	/* 0 unknown, 1 software, 2 SSE4.2 */

static void
crc32c_detect(void)
{
	uint32_t a, b, c, d, i, k, crc;

	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d)
	    : "a"(1), "c"(0));
	if (c & (1u << 20)) {
		crc32c_hw = 2;
		return;
	}
	for (i = 0; i < 256; i++) {
		crc = i;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1)));
		crc32c_table[i] = crc;
	}
	crc32c_hw = 1;
}

static inline uint64_t
crc32c_u64_sw(uint64_t crc, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++) {
		crc = crc32c_table[(crc ^ v) & 0xff] ^ (crc >> 8);
		v >>= 8;
	}
	return crc;
}

static inline uint32_t
crc32c_u8_sw(uint32_t crc, uint8_t v)
{
	return crc32c_table[(crc ^ v) & 0xff] ^ (crc >> 8);
}

__attribute__((target("sse4.2")))
static void
lanes_hw(uint64_t *lane, const uint64_t *w, size_t nblocks)
{
	uint64_t a = lane[0], b = lane[1], c = lane[2], d = lane[3];

	while (nblocks-- > 0) {
		a = __builtin_ia32_crc32di(a, w[0]);
		b = __builtin_ia32_crc32di(b, w[1]);
		c = __builtin_ia32_crc32di(c, w[2]);
		d = __builtin_ia32_crc32di(d, w[3]);
		w += 4;
	}
	lane[0] = a, lane[1] = b, lane[2] = c, lane[3] = d;
}

__attribute__((target("sse4.2")))
static uint32_t
fold_hw(const uint64_t *lane, uint64_t len, const uint8_t *tail,
    size_t ntail)
{
	uint32_t t = (uint32_t)lane[0];
	uint64_t r = 0xffffffffu;
	size_t i;

	for (i = 0; i < ntail; i++)
		t = __builtin_ia32_crc32qi(t, tail[i]);
	r = __builtin_ia32_crc32di(r, t);
	r = __builtin_ia32_crc32di(r, lane[1]);
	r = __builtin_ia32_crc32di(r, lane[2]);
	r = __builtin_ia32_crc32di(r, lane[3]);
	r = __builtin_ia32_crc32di(r, len);
	return ~(uint32_t)r;
}

static void
lanes_sw(uint64_t *lane, const uint64_t *w, size_t nblocks)
{
	int k;

	while (nblocks-- > 0) {
		for (k = 0; k < 4; k++)
			lane[k] = crc32c_u64_sw(lane[k], w[k]);
		w += 4;
	}
}

static uint32_t
fold_sw(const uint64_t *lane, uint64_t len, const uint8_t *tail,
    size_t ntail)
{
	uint32_t t = (uint32_t)lane[0];
	uint64_t r = 0xffffffffu;
	size_t i;

	for (i = 0; i < ntail; i++)
		t = crc32c_u8_sw(t, tail[i]);
	r = crc32c_u64_sw(r, t);
	r = crc32c_u64_sw(r, lane[1]);
	r = crc32c_u64_sw(r, lane[2]);
	r = crc32c_u64_sw(r, lane[3]);
	r = crc32c_u64_sw(r, len);
	return ~(uint32_t)r;
}

void
ckpt_sum_init(struct ckpt_sumctx *s)
{
	if (crc32c_hw == 0)
		crc32c_detect();
	s->lane[0] = s->lane[1] = s->lane[2] = s->lane[3] = 0xffffffffu;
	s->len = 0;
	s->npend = 0;
	s->hw = crc32c_hw == 2;
}

static void
sum_blocks(struct ckpt_sumctx *s, const void *p, size_t nb)
{
	if (s->hw)
		lanes_hw(s->lane, p, nb);
	else
		lanes_sw(s->lane, p, nb);
}

/*
 * Whole 32-byte blocks go through the lanes; bytes short of a block wait
 * in pend; what is left at the end is folded into lane 0 byte by byte.
 */
void
ckpt_sum_more(struct ckpt_sumctx *s, const void *pv, size_t n)
{
	const uint8_t *p = pv;
	size_t nb;

	s->len += n;
	if (s->npend > 0) {
		while (n > 0 && s->npend < 32) {
			s->pend[s->npend++] = *p++;
			n--;
		}
		if (s->npend < 32)
			return;
		sum_blocks(s, s->pend, 1);
		s->npend = 0;
	}
	nb = n / 32;
	sum_blocks(s, p, nb);
	p += nb * 32;
	n -= nb * 32;
	while (n-- > 0)
		s->pend[s->npend++] = *p++;
}

uint32_t
ckpt_sum_end(struct ckpt_sumctx *s)
{
	if (s->hw)
		return fold_hw(s->lane, s->len, s->pend, s->npend);
	return fold_sw(s->lane, s->len, s->pend, s->npend);
}

uint32_t
ckpt_sum(const void *p, size_t n)
{
	struct ckpt_sumctx s;

	ckpt_sum_init(&s);
	ckpt_sum_more(&s, p, n);
	return ckpt_sum_end(&s);
}

/* ---------------------------------------------------------------- */
/* Checking a restart state: every bound, no libc. */

static const char *const kind_names[CKPT_R_MAX] = {
	"?", "text", "data", "bss", "heap", "anon", "shared", "stack",
	"vdso", "vvar", "vvar_vclock", "vsyscall", "gate",
};

const char *
ckpt_kind_name(uint32_t kind)
{
	return kind < CKPT_R_MAX ? kind_names[kind] : "?";
}

static int
table_ok(uint64_t off, uint64_t n, uint64_t size, uint64_t len)
{
	if (off % 8 != 0 || off > len)
		return 0;
	if (n != 0 && size > (len - off) / n)
		return 0;
	return 1;
}

#define STATE_UNSUMMED	32	/* bytes at the start checked field by field */

_Static_assert(offsetof(struct ckpt_head, pad_sum) + 4 == STATE_UNSUMMED,
    "the state's checksum covers what follows its first 32 bytes");
_Static_assert(sizeof(struct ckpt_head) % 8 == 0, "head alignment");

uint32_t
ckpt_state_sum(const struct ckpt_head *h, uint64_t len)
{
	return ckpt_sum((const char *)h + STATE_UNSUMMED,
	    len - STATE_UNSUMMED);
}

const char *
ckpt_state_check(const struct ckpt_head *h, uint64_t len, uint64_t file_size)
{
	const struct ckpt_region *r;
	const struct ckpt_extent *e;
	const struct ckpt_file *f;
	const struct ckpt_fd *d;
	const char *strtab;
	uint64_t i, prev_end, data = 0;
	int k;

	if (len < sizeof(*h))
		return "restart state truncated";
	for (k = 0; k < 8; k++)
		if (h->magic[k] != CKPT_HEAD_MAGIC[k])
			return "bad restart state magic";
	if (h->version != CKPT_VERSION)
		return "unsupported checkpoint version";
	if (h->head_size != sizeof(*h) || h->state_len != len ||
	    h->pad_sum != 0)
		return "restart state size mismatch";
	if (ckpt_state_sum(h, len) != h->sum)
		return "restart state checksum mismatch";
	if (!table_ok(h->regions_off, h->nregions, sizeof(*r), len) ||
	    !table_ok(h->extents_off, h->nextents, sizeof(*e), len) ||
	    !table_ok(h->files_off, h->nfiles, sizeof(*f), len) ||
	    !table_ok(h->fds_off, h->nfds, sizeof(*d), len) ||
	    h->strtab_off > len || h->strtab_len > len - h->strtab_off)
		return "restart state table out of bounds";
	if (h->strtab_len == 0)
		return "restart state has no string table";
	strtab = (const char *)h + h->strtab_off;
	if (strtab[h->strtab_len - 1] != '\0' || strtab[0] != '\0')
		return "restart state string table not terminated";
	if (h->program >= h->strtab_len || h->cwd >= h->strtab_len)
		return "restart state string out of bounds";
	if (h->build_id_len > sizeof(h->build_id))
		return "bad build id length";
	if (h->start_brk > h->brk)
		return "break below its start";
	if (h->image_id == 0 || (h->delta_seq == 0) != (h->parent_id == 0) ||
	    h->pad3 != 0)
		return "bad image identity";

	r = CKPT_REGIONS(h);
	e = CKPT_EXTENTS(h);
	prev_end = 0;
	for (i = 0; i < h->nregions; i++) {
		uint64_t j, at;

		if (r[i].start % CKPT_PAGE || r[i].end % CKPT_PAGE ||
		    r[i].start >= r[i].end || r[i].start < prev_end)
			return "regions overlap or are not page aligned";
		if (r[i].kind == 0 || r[i].kind >= CKPT_R_MAX)
			return "unknown region kind";
		if (r[i].name >= h->strtab_len)
			return "region name out of bounds";
		if ((r[i].flags & CKPT_RF_INHERIT) && h->delta_seq == 0)
			return "a full image's region inherits memory";
		if (r[i].first_extent > h->nextents ||
		    r[i].nextents > h->nextents - r[i].first_extent)
			return "region extents out of bounds";
		at = r[i].start;
		for (j = r[i].first_extent;
		    j < r[i].first_extent + r[i].nextents; j++) {
			if (e[j].region != i)
				return "extent of the wrong region";
			if (e[j].addr % CKPT_PAGE || e[j].len % CKPT_PAGE ||
			    e[j].len == 0 || e[j].addr < at ||
			    e[j].len > r[i].end - e[j].addr)
				return "extent outside its region";
			at = e[j].addr + e[j].len;
			if (file_size != 0 && (e[j].off > file_size ||
			    e[j].len > file_size - e[j].off))
				return "extent beyond the end of the file";
			data += e[j].len;
		}
		prev_end = r[i].end;
	}
	for (i = 0; i < h->nextents; i++)
		if (e[i].region >= h->nregions)
			return "extent without a region";
	if (data != h->data_bytes)
		return "extent lengths do not add up";
	f = CKPT_FILES(h);
	for (i = 0; i < h->nfiles; i++) {
		if (f[i].kind != CKPT_F_FILE && f[i].kind != CKPT_F_INHERITED)
			return "unknown open file kind";
		if (f[i].path >= h->strtab_len)
			return "file path out of bounds";
	}
	d = CKPT_FDS(h);
	for (i = 0; i < h->nfds; i++) {
		if (d[i].fd < 0 || d[i].fd > 65535 || d[i].file >= h->nfiles)
			return "bad descriptor entry";
		if (i > 0 && d[i].fd <= d[i - 1].fd)
			return "descriptors not in order";
	}
	return 0;
}

/* ---------------------------------------------------------------- */
/* Layout and the streaming writer. */

static uint64_t
align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

uint64_t
ckpt_data_offset(uint64_t exe_len)
{
	return align_up(exe_len, CKPT_PAGE);
}

uint64_t
ckpt_state_offset(const struct ckpt_head *h)
{
	return ckpt_data_offset(h->exe_len) + h->data_bytes;
}

static void
bcopy_(void *d, const void *s, size_t n)
{
	volatile char *dp = d;
	const char *sp = s;

	while (n-- > 0)
		*dp++ = *sp++;
}

static void
bzero_(void *d, size_t n)
{
	volatile char *dp = d;

	while (n-- > 0)
		*dp++ = 0;
}

static int
streq(const char *a, const char *b)
{
	while (*a != '\0' && *a == *b)
		a++, b++;
	return *a == *b;
}

#define NEW_NAMES	CKPT_DATA_SECTION "\0" CKPT_RESTART_SECTION
#define CHUNK_MAX	(1u << 20)	/* bytes per write */
#define MAX_SHDRS	1024

int64_t
ckpt_write(struct ckpt_head *h, struct ckpt_io *io, void *bufv, size_t buflen,
    const char **why)
{
	char *buf = bufv;
	Elf64_Ehdr eh;
	Elf64_Shdr *sh, *nsh;
	struct ckpt_marker mk;
	struct ckpt_extent *ext;
	struct ckpt_sumctx s;
	uint64_t shstr_off, shstr_len, new_str_len, data_off, state_off,
	    str_off, shdr_off, marker_off = 0, marker_len = 0, at, total,
	    chunk, i;
	size_t meta, names_len = sizeof(NEW_NAMES);
	uint64_t entry;
	uint32_t nsec, nnew, data_name, restart_name;
	char *chunkbuf;
	int rc, found = 0;

	*why = "";
	if (buflen < 65536 || buflen % CKPT_PAGE != 0) {
		*why = "writer buffer too small";
		return -22;
	}
	/* The original ELF header and sections, as linked. */
	if ((rc = io->exe_read(io->arg, 0, &eh, sizeof(eh))) < 0) {
		*why = "cannot read the executable";
		return rc;
	}
	if (eh.e_ident[EI_MAG0] != ELFMAG0 || eh.e_ident[EI_MAG1] != ELFMAG1 ||
	    eh.e_ident[EI_MAG2] != ELFMAG2 || eh.e_ident[EI_MAG3] != ELFMAG3 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64 ||
	    eh.e_type != ET_EXEC) {
		*why = "the executable is not an x86-64 ELF executable";
		return -8;
	}
	nsec = h->exe_shnum;
	if (nsec == 0 || nsec > MAX_SHDRS - 2 || h->exe_shstrndx >= nsec ||
	    h->exe_shoff > h->exe_len ||
	    (uint64_t)nsec * sizeof(Elf64_Shdr) > h->exe_len - h->exe_shoff) {
		*why = "the executable's section headers are unusable";
		return -8;
	}
	/* Scratch layout: [new shdrs][new shstrtab][chunk buffer]. */
	nnew = nsec + 2;
	sh = (Elf64_Shdr *)buf;
	meta = (size_t)nnew * sizeof(Elf64_Shdr);
	if ((rc = io->exe_read(io->arg, h->exe_shoff, sh,
	    nsec * sizeof(Elf64_Shdr))) < 0) {
		*why = "cannot read the section headers";
		return rc;
	}
	shstr_off = sh[h->exe_shstrndx].sh_offset;
	shstr_len = sh[h->exe_shstrndx].sh_size;
	if (shstr_off > h->exe_len || shstr_len > h->exe_len - shstr_off ||
	    shstr_len + names_len + meta > buflen / 2) {
		*why = "the executable's section names are unusable";
		return -8;
	}
	if ((rc = io->exe_read(io->arg, shstr_off, buf + meta, shstr_len)) < 0) {
		*why = "cannot read the section names";
		return rc;
	}
	buf[meta + shstr_len - 1] = '\0';
	for (i = 0; i < nsec; i++) {
		if (sh[i].sh_name >= shstr_len)
			continue;
		if (streq(buf + meta + sh[i].sh_name, CKPT_MARKER_SECTION)) {
			marker_off = sh[i].sh_offset;
			marker_len = sh[i].sh_size;
			found = sh[i].sh_type == SHT_PROGBITS;
		}
	}
	if (!found || marker_len < sizeof(mk) || marker_off > h->exe_len ||
	    sizeof(mk) > h->exe_len - marker_off) {
		*why = "no " CKPT_MARKER_SECTION " section: not relinked with condor_cc";
		return -8;
	}
	if ((rc = io->exe_read(io->arg, marker_off, &mk, sizeof(mk))) < 0) {
		*why = "cannot read the executable's marker";
		return rc;
	}
	entry = mk.entry;
	bcopy_(buf + meta + shstr_len, NEW_NAMES, names_len);
	data_name = (uint32_t)shstr_len;
	restart_name = (uint32_t)(shstr_len + sizeof(CKPT_DATA_SECTION));
	new_str_len = shstr_len + names_len;
	chunkbuf = buf + align_up(meta + new_str_len, CKPT_PAGE);
	chunk = buflen - (uint64_t)(chunkbuf - buf);
	if (chunk < 32768) {
		*why = "writer buffer too small";
		return -22;
	}
	chunk &= ~(uint64_t)(CKPT_PAGE - 1);
	/* Small enough to stay in cache between the checksum and the
	 * kernel's copy of the same bytes. */
	if (chunk > CHUNK_MAX)
		chunk = CHUNK_MAX;

	/* Where everything goes. */
	data_off = ckpt_data_offset(h->exe_len);
	ext = (struct ckpt_extent *)((char *)h + h->extents_off);
	at = data_off;
	for (i = 0; i < h->nextents; i++) {
		ext[i].off = at;
		at += ext[i].len;
	}
	h->data_off = data_off;
	state_off = at;
	str_off = state_off + h->state_len;
	shdr_off = align_up(str_off + new_str_len, 8);
	total = shdr_off + (uint64_t)nnew * sizeof(Elf64_Shdr);

	/* New section headers: the original ones, the new shstrtab in
	 * place of the old, .condor_data and .condor_restart. */
	sh[h->exe_shstrndx].sh_offset = str_off;
	sh[h->exe_shstrndx].sh_size = new_str_len;
	nsh = &sh[nsec];
	bzero_(nsh, 2 * sizeof(Elf64_Shdr));
	nsh[0].sh_name = data_name;
	nsh[0].sh_type = SHT_PROGBITS;
	nsh[0].sh_offset = data_off;
	nsh[0].sh_size = h->data_bytes;
	nsh[0].sh_addralign = CKPT_PAGE;
	nsh[1].sh_name = restart_name;
	nsh[1].sh_type = SHT_PROGBITS;
	nsh[1].sh_offset = state_off;
	nsh[1].sh_size = h->state_len;
	nsh[1].sh_addralign = 8;

	/* The marker as the checkpoint carries it. */
	bzero_(&mk, sizeof(mk));
	bcopy_(mk.magic, CKPT_MARKER_MAGIC, sizeof(CKPT_MARKER_MAGIC));
	mk.version = CKPT_VERSION;
	mk.is_ckpt = 1;
	mk.state_off = state_off;
	mk.state_len = h->state_len;
	mk.entry = entry;

	/* The trailer is known now: its checksum goes in the state. */
	bzero_(buf + meta + new_str_len, shdr_off - str_off - new_str_len);
	ckpt_sum_init(&s);
	ckpt_sum_more(&s, buf + meta, shdr_off - str_off);
	ckpt_sum_more(&s, sh, meta);
	h->trailer_sum = ckpt_sum_end(&s);

	/* 1. The executable, patched, with its checksum. */
	ckpt_sum_init(&s);
	for (at = 0; at < h->exe_len; at += chunk) {
		uint64_t n = h->exe_len - at < chunk ? h->exe_len - at : chunk;
		uint64_t lo, hi;

		if ((rc = io->exe_read(io->arg, at, chunkbuf, n)) < 0) {
			*why = "cannot read the executable";
			return rc;
		}
		if (at == 0) {
			Elf64_Ehdr *e = (Elf64_Ehdr *)chunkbuf;

			e->e_shoff = shdr_off;
			e->e_shnum = nnew;
			e->e_shstrndx = h->exe_shstrndx;
			if (entry != 0)
				e->e_entry = entry;
		}
		lo = marker_off > at ? marker_off : at;
		hi = marker_off + sizeof(mk) < at + n ?
		    marker_off + sizeof(mk) : at + n;
		if (lo < hi)
			bcopy_(chunkbuf + (lo - at),
			    (char *)&mk + (lo - marker_off), hi - lo);
		ckpt_sum_more(&s, chunkbuf, n);
		if ((rc = io->write(io->arg, chunkbuf, n)) < 0) {
			*why = "cannot write the checkpoint";
			return rc;
		}
	}
	h->exe_sum = ckpt_sum_end(&s);
	if (data_off > h->exe_len) {
		bzero_(chunkbuf, data_off - h->exe_len);
		if ((rc = io->write(io->arg, chunkbuf,
		    data_off - h->exe_len)) < 0) {
			*why = "cannot write the checkpoint";
			return rc;
		}
	}

	/* 2. The extents, each with its checksum. */
	for (i = 0; i < h->nextents; i++) {
		ckpt_sum_init(&s);
		for (at = 0; at < ext[i].len; at += chunk) {
			uint64_t n = ext[i].len - at < chunk ?
			    ext[i].len - at : chunk;
			const void *p;
			int err = 0;

			p = io->data(io->arg, &ext[i], at, chunkbuf, n, &err);
			if (p == 0) {
				*why = "cannot read the image";
				return err < 0 ? err : -5;
			}
			ckpt_sum_more(&s, p, n);
			if ((rc = io->write(io->arg, p, n)) < 0) {
				*why = "cannot write the checkpoint";
				return rc;
			}
		}
		ext[i].sum = ckpt_sum_end(&s);
	}

	/* 3. The restart state, 4. names, 5. section headers. */
	h->sum = ckpt_state_sum(h, h->state_len);
	if ((rc = io->write(io->arg, h, h->state_len)) < 0) {
		*why = "cannot write the checkpoint";
		return rc;
	}
	if ((rc = io->write(io->arg, buf + meta, shdr_off - str_off)) < 0 ||
	    (rc = io->write(io->arg, sh, meta)) < 0) {
		*why = "cannot write the checkpoint";
		return rc;
	}
	return (int64_t)total;
}

/* ---------------------------------------------------------------- */
/* Deltas. */

#define DELTA_SUMMED	offsetof(struct ckpt_delta, sum)

const char *
ckpt_delta_check(const struct ckpt_delta *d, uint64_t file_size)
{
	int k;

	for (k = 0; k < 8; k++)
		if (d->magic[k] != CKPT_DELTA_MAGIC[k])
			return "not a delta (bad magic)";
	if (d->version != CKPT_VERSION)
		return "unsupported delta version";
	if (d->size != sizeof(*d))
		return "delta header size mismatch";
	if (ckpt_sum(d, DELTA_SUMMED) != d->sum)
		return "delta header checksum mismatch";
	if (d->seq == 0 || d->image_id == 0 || d->parent_id == 0)
		return "delta without a parent";
	if (d->data_off != CKPT_PAGE || d->state_off < d->data_off ||
	    d->state_off % 8 != 0 || d->state_len > d->file_len ||
	    d->state_off != d->file_len - d->state_len)
		return "delta layout out of bounds";
	if (file_size != 0 && d->file_len != file_size)
		return "delta truncated or too long";
	return 0;
}

/*
 * Like ckpt_write, without the executable: the header (its page), the
 * extents (each summed as it streams), the state.
 */
int64_t
ckpt_write_delta(struct ckpt_head *h, struct ckpt_io *io, void *bufv,
    size_t buflen, const char **why)
{
	char *buf = bufv;
	struct ckpt_delta *d = (struct ckpt_delta *)bufv;
	struct ckpt_extent *ext;
	struct ckpt_sumctx s;
	uint64_t at, chunk, i;
	int rc;

	*why = "";
	if (buflen < 65536 || buflen % CKPT_PAGE != 0) {
		*why = "writer buffer too small";
		return -22;
	}
	chunk = buflen - CKPT_PAGE;
	if (chunk > CHUNK_MAX)
		chunk = CHUNK_MAX;
	ext = (struct ckpt_extent *)((char *)h + h->extents_off);
	at = CKPT_PAGE;
	for (i = 0; i < h->nextents; i++) {
		ext[i].off = at;
		at += ext[i].len;
	}
	h->data_off = CKPT_PAGE;
	h->exe_sum = 0;
	h->trailer_sum = 0;
	bzero_(buf, CKPT_PAGE);
	bcopy_(d->magic, CKPT_DELTA_MAGIC, 8);
	d->version = CKPT_VERSION;
	d->size = sizeof(*d);
	d->image_id = h->image_id;
	d->parent_id = h->parent_id;
	d->seq = h->delta_seq;
	d->data_off = CKPT_PAGE;
	d->state_off = at;
	d->state_len = h->state_len;
	d->file_len = at + h->state_len;
	d->sum = ckpt_sum(d, DELTA_SUMMED);
	if ((rc = io->write(io->arg, buf, CKPT_PAGE)) < 0) {
		*why = "cannot write the delta";
		return rc;
	}
	for (i = 0; i < h->nextents; i++) {
		ckpt_sum_init(&s);
		for (at = 0; at < ext[i].len; at += chunk) {
			uint64_t n = ext[i].len - at < chunk ?
			    ext[i].len - at : chunk;
			const void *p;
			int err = 0;

			p = io->data(io->arg, &ext[i], at, buf + CKPT_PAGE, n,
			    &err);
			if (p == 0) {
				*why = "cannot read the image";
				return err < 0 ? err : -5;
			}
			ckpt_sum_more(&s, p, n);
			if ((rc = io->write(io->arg, p, n)) < 0) {
				*why = "cannot write the delta";
				return rc;
			}
		}
		ext[i].sum = ckpt_sum_end(&s);
	}
	h->sum = ckpt_state_sum(h, h->state_len);
	if ((rc = io->write(io->arg, h, h->state_len)) < 0) {
		*why = "cannot write the delta";
		return rc;
	}
	return (int64_t)(CKPT_PAGE + h->data_bytes + h->state_len);
}

int
ckpt_lazy_region(const struct ckpt_head *h, const struct ckpt_region *r)
{
	const struct ckpt_extent *e = CKPT_EXTENTS(h);
	uint32_t j;

	if (!(r->kind == CKPT_R_HEAP || r->kind == CKPT_R_BSS ||
	    (r->kind == CKPT_R_ANON && (r->flags & CKPT_RF_PRIVATE) &&
	    !(r->flags & CKPT_RF_FILE))))
		return 0;
	for (j = r->first_extent; j < r->first_extent + r->nextents; j++)
		if (e[j].len > CKPT_LAZY_EXTENT || e[j].len % CKPT_PAGE != 0 ||
		    e[j].addr % CKPT_PAGE != 0)
			return 0;
	return 1;
}

uint64_t
ckpt_lazy_bytes(const struct ckpt_head *h)
{
	const struct ckpt_region *r = CKPT_REGIONS(h);
	const struct ckpt_extent *e = CKPT_EXTENTS(h);
	uint64_t n = 0;
	uint32_t i, j;

	for (i = 0; i < h->nregions; i++)
		if (ckpt_lazy_region(h, &r[i]))
			for (j = r[i].first_extent; j < r[i].first_extent +
			    r[i].nextents; j++)
				n += e[j].len;
	return n;
}

#ifndef CKPTFILE_NO_LIBELF
/* ---------------------------------------------------------------- */
/* Reading, verifying, describing, merging (libelf). */

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "xalloc.h"

#define MAX_STATE	(256u << 20)	/* bytes: a sane upper bound */

static int
pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = pread(fd, p, len, (off_t)off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		p += n, len -= (size_t)n, off += (uint64_t)n;
	}
	return 0;
}


static void
elf_init_once(void)
{
	static int done;

	if (!done) {
		(void)elf_version(EV_CURRENT);
		done = 1;
	}
}

/* Find a section by name: its header into *SHDR; 0, or -1. */
static int
find_section(Elf *e, const char *name, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	size_t strndx;
	const char *n;

	if (elf_getshdrstrndx(e, &strndx) != 0)
		return -1;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (gelf_getshdr(scn, shdr) == NULL)
			return -1;
		if ((n = elf_strptr(e, strndx, shdr->sh_name)) != NULL &&
		    strcmp(n, name) == 0)
			return 0;
	}
	return -1;
}

/* Read a restart state of LEN bytes at OFF and check it. */
static struct ckpt_head *
read_state(int fd, uint64_t off, uint64_t len, uint64_t file_size,
    char *err, size_t errlen)
{
	struct ckpt_head *h;
	const char *why;

	if (len < sizeof(*h) || len > MAX_STATE || off > file_size ||
	    len > file_size - off) {
		snprintf(err, errlen, "restart state out of the file "
		    "(offset %llu, %llu bytes, file %llu bytes)",
		    (unsigned long long)off, (unsigned long long)len,
		    (unsigned long long)file_size);
		return NULL;
	}
	h = xmalloc(len);
	if (pread_full(fd, h, len, off) == -1) {
		snprintf(err, errlen, "reading the restart state: %s",
		    strerror(errno));
		free(h);
		return NULL;
	}
	if ((why = ckpt_state_check(h, len, file_size)) != NULL) {
		snprintf(err, errlen, "%s", why);
		free(h);
		return NULL;
	}
	return h;
}

/* The CONDOR note of a core: its state; NULL with ERR if none. */
static struct ckpt_head *
core_state(Elf *e, int fd, uint64_t file_size, char *err, size_t errlen)
{
	GElf_Phdr ph;
	GElf_Nhdr nh;
	Elf_Data *d;
	size_t n, i, off, name_off, desc_off;

	if (elf_getphdrnum(e, &n) != 0) {
		snprintf(err, errlen, "no program headers");
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (gelf_getphdr(e, (int)i, &ph) == NULL ||
		    ph.p_type != PT_NOTE)
			continue;
		if (ph.p_offset > file_size || ph.p_filesz > file_size -
		    ph.p_offset) {
			snprintf(err, errlen, "note segment beyond the file");
			return NULL;
		}
		d = elf_getdata_rawchunk(e, (off_t)ph.p_offset, ph.p_filesz,
		    ELF_T_NHDR);
		if (d == NULL)
			continue;
		off = 0;
		while ((off = gelf_getnote(d, off, &nh, &name_off,
		    &desc_off)) > 0) {
			if (nh.n_type == NT_CONDOR_RESTART &&
			    nh.n_namesz == sizeof(CKPT_NOTE_NAME) &&
			    memcmp((char *)d->d_buf + name_off,
			    CKPT_NOTE_NAME, sizeof(CKPT_NOTE_NAME)) == 0)
				return read_state(fd, ph.p_offset + desc_off,
				    nh.n_descsz, file_size, err, errlen);
		}
	}
	snprintf(err, errlen, "no CONDOR restart note: not a core the "
	    "checkpoint library wrote");
	return NULL;
}

int
ckpt_open(const char *path, struct ckpt_file_info *ci, char *err,
    size_t errlen)
{
	struct stat st;
	GElf_Ehdr eh;
	GElf_Shdr shdr;
	Elf *e = NULL;

	memset(ci, 0, sizeof(*ci));
	ci->fd = -1;
	elf_init_once();
	if ((ci->fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(ci->fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		goto fail;
	}
	ci->size = (uint64_t)st.st_size;
	if ((e = elf_begin(ci->fd, ELF_C_READ, NULL)) == NULL ||
	    elf_kind(e) != ELF_K_ELF || gelf_getehdr(e, &eh) == NULL) {
		snprintf(err, errlen, "%s: not an ELF file", path);
		goto fail;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64) {
		snprintf(err, errlen, "%s: not an x86-64 ELF file", path);
		goto fail;
	}
	if (eh.e_type == ET_CORE) {
		ci->is_core = 1;
		ci->head = core_state(e, ci->fd, ci->size, err, errlen);
		if (ci->head == NULL)
			goto fail;
		elf_end(e);
		return 0;
	}
	if (eh.e_type != ET_EXEC) {
		snprintf(err, errlen, "%s: not an executable", path);
		goto fail;
	}
	if (find_section(e, CKPT_MARKER_SECTION, &shdr) == -1 ||
	    shdr.sh_size < sizeof(ci->marker)) {
		snprintf(err, errlen, "%s: no %s section: not a program "
		    "relinked with condor_cc", path, CKPT_MARKER_SECTION);
		goto fail;
	}
	ci->marker_off = shdr.sh_offset;
	if (shdr.sh_offset > ci->size || sizeof(ci->marker) > ci->size -
	    shdr.sh_offset || pread_full(ci->fd, &ci->marker,
	    sizeof(ci->marker), shdr.sh_offset) == -1) {
		snprintf(err, errlen, "%s: marker section beyond the file",
		    path);
		goto fail;
	}
	if (memcmp(ci->marker.magic, CKPT_MARKER_MAGIC,
	    sizeof(CKPT_MARKER_MAGIC)) != 0 ||
	    ci->marker.version != CKPT_VERSION) {
		snprintf(err, errlen, "%s: bad marker magic or version", path);
		goto fail;
	}
	if (!ci->marker.is_ckpt) {
		snprintf(err, errlen, "%s: a relinked program, not a "
		    "checkpoint", path);
		goto fail;
	}
	if (find_section(e, CKPT_RESTART_SECTION, &shdr) == -1) {
		snprintf(err, errlen, "%s: no %s section", path,
		    CKPT_RESTART_SECTION);
		goto fail;
	}
	if (shdr.sh_offset != ci->marker.state_off ||
	    shdr.sh_size != ci->marker.state_len) {
		snprintf(err, errlen, "%s: marker and %s section disagree",
		    path, CKPT_RESTART_SECTION);
		goto fail;
	}
	ci->head = read_state(ci->fd, ci->marker.state_off,
	    ci->marker.state_len, ci->size, err + 0, errlen);
	if (ci->head == NULL) {
		char why[256];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "%s: %s", path, why);
		goto fail;
	}
	if (ckpt_state_offset(ci->head) != ci->marker.state_off ||
	    ci->head->exe_len > ci->size ||
	    ci->head->data_off != ckpt_data_offset(ci->head->exe_len)) {
		snprintf(err, errlen, "%s: restart state not where the "
		    "layout puts it", path);
		goto fail;
	}
	elf_end(e);
	return 0;
fail:
	if (e != NULL)
		elf_end(e);
	ckpt_close(ci);
	return -1;
}

void
ckpt_close(struct ckpt_file_info *ci)
{
	if (ci->fd != -1)
		close(ci->fd);
	free(ci->head);
	ci->head = NULL;
	ci->fd = -1;
}

#define VBUF	(1u << 20)

/* Checksum LEN bytes of FD at OFF. */
static int
sum_range(int fd, uint64_t off, uint64_t len, uint32_t *sum, char *buf)
{
	struct ckpt_sumctx s;
	uint64_t n;

	ckpt_sum_init(&s);
	while (len > 0) {
		n = len < VBUF ? len : VBUF;
		if (pread_full(fd, buf, n, off) == -1)
			return -1;
		ckpt_sum_more(&s, buf, n);
		off += n, len -= n;
	}
	*sum = ckpt_sum_end(&s);
	return 0;
}

static int
check_padding(int fd, uint64_t from, uint64_t to, char *buf)
{
	uint64_t i;

	if (to < from || to - from > CKPT_PAGE)
		return -1;
	if (to == from)
		return 0;
	if (pread_full(fd, buf, to - from, from) == -1)
		return -1;
	for (i = 0; i < to - from; i++)
		if (buf[i] != 0)
			return -1;
	return 0;
}

int
ckpt_verify(struct ckpt_file_info *ci, char *err, size_t errlen)
{
	const struct ckpt_head *h = ci->head;
	const struct ckpt_extent *e = CKPT_EXTENTS(h);
	char *buf;
	uint32_t sum;
	uint64_t i;
	int rc = -1;

	buf = xmalloc(VBUF);
	if (!ci->is_core) {
		if (sum_range(ci->fd, 0, h->exe_len, &sum, buf) == -1) {
			snprintf(err, errlen, "reading the executable part: "
			    "%s", strerror(errno));
			goto out;
		}
		if (sum != h->exe_sum) {
			snprintf(err, errlen, "executable part checksum "
			    "mismatch (%08x, expected %08x)", sum, h->exe_sum);
			goto out;
		}
		if (check_padding(ci->fd, h->exe_len, h->data_off, buf) == -1) {
			snprintf(err, errlen, "padding after the executable "
			    "part is not zero");
			goto out;
		}
		if (sum_range(ci->fd, ci->marker.state_off + h->state_len,
		    ci->size - ci->marker.state_off - h->state_len, &sum,
		    buf) == -1 || sum != h->trailer_sum) {
			snprintf(err, errlen, "section headers checksum "
			    "mismatch");
			goto out;
		}
	}
	for (i = 0; i < h->nextents; i++) {
		if (!ci->is_core && e[i].off != (i == 0 ? h->data_off :
		    e[i - 1].off + e[i - 1].len)) {
			snprintf(err, errlen, "extent %llu not where the "
			    "layout puts it", (unsigned long long)i);
			goto out;
		}
		if (sum_range(ci->fd, e[i].off, e[i].len, &sum, buf) == -1) {
			snprintf(err, errlen, "reading extent %llu: %s",
			    (unsigned long long)i, strerror(errno));
			goto out;
		}
		if (sum != e[i].sum) {
			snprintf(err, errlen, "checksum mismatch in memory at "
			    "%#llx-%#llx (%s)",
			    (unsigned long long)e[i].addr,
			    (unsigned long long)(e[i].addr + e[i].len),
			    ckpt_kind_name(CKPT_REGIONS(h)[e[i].region].kind));
			goto out;
		}
	}
	rc = 0;
out:
	free(buf);
	return rc;
}

static void
print_size(FILE *fp, uint64_t n)
{
	if (n >= (10ull << 30))
		fprintf(fp, "%llu GiB", (unsigned long long)(n >> 30));
	else if (n >= (10ull << 20))
		fprintf(fp, "%llu MiB", (unsigned long long)(n >> 20));
	else if (n >= (10ull << 10))
		fprintf(fp, "%llu KiB", (unsigned long long)(n >> 10));
	else
		fprintf(fp, "%llu B", (unsigned long long)n);
}

static const char *
sig_name(int sig)
{
	static const char *const names[] = {
		"0", "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE",
		"KILL", "USR1", "SEGV", "USR2", "PIPE", "ALRM", "TERM",
		"STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU",
		"URG", "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "PWR",
		"SYS",
	};
	static char buf[16];

	if (sig > 0 && sig < 32)
		return names[sig];
	snprintf(buf, sizeof(buf), "RT%d", sig - 32);
	return buf;
}

static void
print_sigset(FILE *fp, uint64_t set)
{
	int sig, any = 0;

	for (sig = 1; sig <= 64; sig++)
		if (set & (1ull << (sig - 1))) {
			fprintf(fp, "%s%s", any ? " " : "", sig_name(sig));
			any = 1;
		}
	if (!any)
		fprintf(fp, "(none)");
}

void
ckpt_describe(struct ckpt_file_info *ci, FILE *fp)
{
	const struct ckpt_head *h = ci->head;
	const struct ckpt_region *r = CKPT_REGIONS(h);
	const struct ckpt_file *f = CKPT_FILES(h);
	const struct ckpt_fd *d = CKPT_FDS(h);
	static const char *const itn[3] = { "real", "virtual", "prof" };
	char tbuf[64];
	time_t t = (time_t)h->created;
	struct tm tm;
	uint64_t i;
	int sig, k;

	strftime(tbuf, sizeof(tbuf), "%Y-%m-%d %H:%M:%S %z",
	    localtime_r(&t, &tm));
	fprintf(fp, "%s of %s\n", ci->is_core ? "core" : "checkpoint",
	    CKPT_STR(h, h->program));
	fprintf(fp, "created       %s (pid %u, signal %s)\n", tbuf, h->pid,
	    sig_name((int)h->ckpt_signal));
	fprintf(fp, "file          ");
	print_size(fp, ci->size);
	fprintf(fp, " (executable ");
	print_size(fp, h->exe_len);
	fprintf(fp, ", saved memory ");
	print_size(fp, h->data_bytes);
	fprintf(fp, " of ");
	print_size(fp, h->image_bytes);
	fprintf(fp, ")\n");
	fprintf(fp, "build id      ");
	for (i = 0; i < h->build_id_len; i++)
		fprintf(fp, "%02x", h->build_id[i]);
	fprintf(fp, "%s\n", h->build_id_len ? "" : "(none)");
	fprintf(fp, "cwd           %s\n", CKPT_STR(h, h->cwd));
	fprintf(fp, "brk           %#llx-%#llx, fs base %#llx, umask %03o\n",
	    (unsigned long long)h->start_brk, (unsigned long long)h->brk,
	    (unsigned long long)h->fs_base, h->umask);
	fprintf(fp, "resumes at    rip %#llx rsp %#llx (interrupted at rip "
	    "%#llx rsp %#llx)\n", (unsigned long long)h->ctx.rip,
	    (unsigned long long)h->ctx.rsp,
	    (unsigned long long)h->gregs[16], (unsigned long long)h->gregs[19]);
	fprintf(fp, "regions       %u\n", h->nregions);
	for (i = 0; i < h->nregions; i++) {
		uint64_t saved = 0, j;

		for (j = r[i].first_extent; j < r[i].first_extent +
		    r[i].nextents; j++)
			saved += CKPT_EXTENTS(h)[j].len;
		fprintf(fp, "  %012llx-%012llx %c%c%c%c %-11s %10llu KiB, "
		    "%10llu KiB saved in %u extent%s %s\n",
		    (unsigned long long)r[i].start,
		    (unsigned long long)r[i].end,
		    r[i].prot & 1 ? 'r' : '-', r[i].prot & 2 ? 'w' : '-',
		    r[i].prot & 4 ? 'x' : '-',
		    r[i].flags & CKPT_RF_PRIVATE ? 'p' : 's',
		    ckpt_kind_name(r[i].kind),
		    (unsigned long long)((r[i].end - r[i].start) >> 10),
		    (unsigned long long)(saved >> 10), r[i].nextents,
		    r[i].nextents == 1 ? "" : "s", CKPT_STR(h, r[i].name));
	}
	fprintf(fp, "descriptors   %u\n", h->nfds);
	for (i = 0; i < h->nfds; i++) {
		const struct ckpt_file *cf = &f[d[i].file];

		if (cf->kind == CKPT_F_INHERITED)
			fprintf(fp, "  fd %d: inherited, offset %lld%s\n",
			    d[i].fd, (long long)cf->offset,
			    d[i].cloexec ? ", close-on-exec" : "");
		else
			fprintf(fp, "  fd %d: %s, flags %#o, offset %lld%s\n",
			    d[i].fd, CKPT_STR(h, cf->path), cf->flags,
			    (long long)cf->offset,
			    d[i].cloexec ? ", close-on-exec" : "");
	}
	fprintf(fp, "handled       ");
	for (sig = 1, k = 0; sig <= CKPT_NSIG; sig++) {
		uint64_t hd = h->sigactions[sig - 1].handler;

		if (hd == 0 || hd == 1)	/* SIG_DFL, SIG_IGN */
			continue;
		fprintf(fp, "%s%s", k++ ? " " : "", sig_name(sig));
	}
	fprintf(fp, "%s\n", k ? "" : "(none)");
	fprintf(fp, "ignored       ");
	for (sig = 1, k = 0; sig <= CKPT_NSIG; sig++)
		if (h->sigactions[sig - 1].handler == 1)
			fprintf(fp, "%s%s", k++ ? " " : "", sig_name(sig));
	fprintf(fp, "%s\n", k ? "" : "(none)");
	fprintf(fp, "blocked       ");
	print_sigset(fp, h->prog_sigmask);
	fprintf(fp, "\npending       ");
	print_sigset(fp, h->sigpending);
	fprintf(fp, "\n");
	for (k = 0; k < 3; k++) {
		const struct ckpt_itimer *it = &h->itimers[k];

		if (it->value_sec == 0 && it->value_usec == 0)
			continue;
		fprintf(fp, "itimer %-7s %lld.%06lld s left, interval "
		    "%lld.%06lld s\n", itn[k], (long long)it->value_sec,
		    (long long)it->value_usec, (long long)it->interval_sec,
		    (long long)it->interval_usec);
	}
}

/* ---- merge ---- */

struct merge_io {
	int		 exe_fd;
	int		 core_fd;
	int		 out_fd;
	uint64_t	 written, flushed;	/* bytes */
	uint64_t	*core_off;	/* each extent's offset in the core */
	const struct ckpt_extent *ext0;
};

static int
merge_exe_read(void *arg, uint64_t off, void *buf, size_t len)
{
	struct merge_io *m = arg;

	return pread_full(m->exe_fd, buf, len, off) == -1 ? -errno : 0;
}

static const void *
merge_data(void *arg, const struct ckpt_extent *e, uint64_t off, void *buf,
    size_t len, int *err)
{
	struct merge_io *m = arg;

	if (pread_full(m->core_fd, buf, len, m->core_off[e - m->ext0] +
	    off) == -1) {
		*err = -errno;
		return NULL;
	}
	return buf;
}

/*
 * Write LEN bytes of BUF to FD, WRITTEN counting them; writeback is
 * started every 32 MiB (FLUSHED: how far) so the final fsync is short.
 * 0, or -errno.
 */
static int
write_flushing(int fd, const void *buf, size_t len, uint64_t *written,
    uint64_t *flushed)
{
	if (fd_write_full(fd, buf, len) == -1)
		return -errno;
	*written += len;
	if (*written - *flushed >= (32u << 20)) {
		(void)sync_file_range(fd, (off_t)*flushed,
		    (off_t)(*written - *flushed), SYNC_FILE_RANGE_WRITE);
		*flushed = *written;
	}
	return 0;
}

static int
merge_write(void *arg, const void *buf, size_t len)
{
	struct merge_io *m = arg;

	return write_flushing(m->out_fd, buf, len, &m->written, &m->flushed);
}

/* The GNU build id of an ELF file; its length or 0. */
static size_t
build_id(Elf *e, uint8_t *id, size_t max)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Nhdr nh;
	Elf_Data *d;
	size_t off, name_off, desc_off;

	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_NOTE)
			continue;
		if ((d = elf_getdata(scn, NULL)) == NULL)
			continue;
		off = 0;
		while ((off = gelf_getnote(d, off, &nh, &name_off,
		    &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((char *)d->d_buf + name_off, "GNU", 4) == 0 &&
			    nh.n_descsz <= max) {
				memcpy(id, (char *)d->d_buf + desc_off,
				    nh.n_descsz);
				return nh.n_descsz;
			}
		}
	}
	return 0;
}

int64_t
ckpt_merge(const char *exe_path, const char *core_path, int out_fd,
    char *err, size_t errlen)
{
	struct ckpt_file_info core;
	struct merge_io m;
	struct ckpt_head *h;
	struct ckpt_extent *e;
	struct stat st;
	GElf_Ehdr eh;
	GElf_Shdr shdr;
	Elf *elf = NULL;
	uint8_t id[32];
	uint32_t *want = NULL;
	size_t idlen;
	const char *why;
	char *buf = NULL;
	int64_t n = -1;
	uint64_t i;

	memset(&m, 0, sizeof(m));
	m.exe_fd = -1;
	if (ckpt_open(core_path, &core, err, errlen) == -1)
		return -1;
	if (!core.is_core) {
		snprintf(err, errlen, "%s: not a core", core_path);
		goto out;
	}
	h = core.head;
	if ((m.exe_fd = open(exe_path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(m.exe_fd, &st) == -1) {
		snprintf(err, errlen, "%s: %s", exe_path, strerror(errno));
		goto out;
	}
	if ((elf = elf_begin(m.exe_fd, ELF_C_READ, NULL)) == NULL ||
	    gelf_getehdr(elf, &eh) == NULL || eh.e_type != ET_EXEC ||
	    eh.e_machine != EM_X86_64) {
		snprintf(err, errlen, "%s: not an x86-64 executable",
		    exe_path);
		goto out;
	}
	if (find_section(elf, CKPT_MARKER_SECTION, &shdr) == -1) {
		snprintf(err, errlen, "%s: not relinked with condor_cc",
		    exe_path);
		goto out;
	}
	idlen = build_id(elf, id, sizeof(id));
	if ((uint64_t)st.st_size < h->exe_len || idlen != h->build_id_len ||
	    memcmp(id, h->build_id, idlen) != 0) {
		snprintf(err, errlen, "%s is not the program %s was taken "
		    "from", exe_path, core_path);
		goto out;
	}
	/* Keep what the core says each extent holds, then write. */
	e = (struct ckpt_extent *)((char *)h + h->extents_off);
	m.core_fd = core.fd;
	m.out_fd = out_fd;
	m.ext0 = e;
	m.core_off = xreallocarray(NULL, h->nextents + 1, sizeof(uint64_t));
	want = xreallocarray(NULL, h->nextents + 1, sizeof(uint32_t));
	for (i = 0; i < h->nextents; i++) {
		m.core_off[i] = e[i].off;
		want[i] = e[i].sum;
	}
	buf = xmalloc(4u << 20);
	{
		struct ckpt_io io = {
			merge_exe_read, merge_data, merge_write, &m
		};

		n = ckpt_write(h, &io, buf, 4u << 20, &why);
	}
	if (n < 0) {
		snprintf(err, errlen, "%s%s%s", why, *why ? ": " : "",
		    strerror((int)-n));
		n = -1;
		goto out;
	}
	for (i = 0; i < h->nextents; i++)
		if (e[i].sum != want[i]) {
			snprintf(err, errlen, "%s: checksum mismatch in memory "
			    "at %#llx", core_path,
			    (unsigned long long)e[i].addr);
			n = -1;
			goto out;
		}
out:
	free(buf);
	free(want);
	free(m.core_off);
	if (elf != NULL)
		elf_end(elf);
	if (m.exe_fd != -1)
		close(m.exe_fd);
	ckpt_close(&core);
	return n;
}


/* ---- fold: a base and its deltas into one checkpoint ---- */

/* Where a run of the folded image's bytes comes from. */
struct fold_seg {
	uint64_t	 addr, len;
	uint64_t	 off;		/* in file src */
	int		 src;		/* index into fold.fds */
};

struct fold_list {
	struct fold_seg	*v;
	size_t		 n, cap;
};

struct fold {
	int		*fds;		/* base, then each delta */
	struct fold_list cur;		/* the image so far */
	struct fold_seg	*segs;		/* final, for the writer */
	size_t		*first;		/* each extent's first segment */
	const struct ckpt_extent *ext0;
	int		 out_fd;
	uint64_t	 written, flushed;
};

static void
seg_add(struct fold_list *l, uint64_t addr, uint64_t len, uint64_t off,
    int src)
{
	/* Never merged with the one before: that one may lie in the
	 * region before (fold_state makes extents per region). */
	if (len == 0)
		return;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 256;
		l->v = xreallocarray(l->v, l->cap, sizeof(*l->v));
	}
	l->v[l->n].addr = addr;
	l->v[l->n].len = len;
	l->v[l->n].off = off;
	l->v[l->n].src = src;
	l->n++;
}

/* The parts of PREV's segments (from *IP on) inside [lo, hi), to OUT. */
static void
seg_clip(const struct fold_list *prev, size_t *ip, uint64_t lo, uint64_t hi,
    struct fold_list *out)
{
	size_t i;

	while (*ip < prev->n && prev->v[*ip].addr + prev->v[*ip].len <= lo)
		(*ip)++;
	for (i = *ip; i < prev->n && prev->v[i].addr < hi; i++) {
		const struct fold_seg *g = &prev->v[i];
		uint64_t a = g->addr > lo ? g->addr : lo;
		uint64_t b = g->addr + g->len < hi ? g->addr + g->len : hi;

		if (a < b)
			seg_add(out, a, b - a, g->off + (a - g->addr), g->src);
	}
}

/* Is [lo, hi) inside the union of H's regions? */
static int
covered(const struct ckpt_head *h, uint64_t lo, uint64_t hi)
{
	const struct ckpt_region *r = CKPT_REGIONS(h);
	uint32_t i;

	for (i = 0; i < h->nregions && lo < hi; i++)
		if (r[i].start <= lo && lo < r[i].end)
			lo = r[i].end;
	return lo >= hi;
}

/* Apply delta D (file index SRC, parent PH) to f->cur. */
static int
fold_apply(struct fold *f, const struct ckpt_head *ph,
    const struct ckpt_head *d, int src, char *err, size_t errlen)
{
	const struct ckpt_region *r = CKPT_REGIONS(d);
	const struct ckpt_extent *e = CKPT_EXTENTS(d);
	struct fold_list out = { NULL, 0, 0 };
	size_t ip = 0;
	uint32_t i, j;

	for (i = 0; i < d->nregions; i++) {
		uint64_t at = r[i].start;
		int inherit = (r[i].flags & CKPT_RF_INHERIT) != 0;

		if (inherit && !covered(ph, r[i].start, r[i].end)) {
			snprintf(err, errlen, "a region at %#llx inherits "
			    "memory its parent image does not have",
			    (unsigned long long)r[i].start);
			free(out.v);
			return -1;
		}
		for (j = r[i].first_extent; j < r[i].first_extent +
		    r[i].nextents; j++) {
			if (inherit)
				seg_clip(&f->cur, &ip, at, e[j].addr, &out);
			seg_add(&out, e[j].addr, e[j].len, e[j].off, src);
			at = e[j].addr + e[j].len;
		}
		if (inherit)
			seg_clip(&f->cur, &ip, at, r[i].end, &out);
	}
	free(f->cur.v);
	f->cur = out;
	return 0;
}

static int
fold_exe_read(void *arg, uint64_t off, void *buf, size_t len)
{
	struct fold *f = arg;

	return pread_full(f->fds[0], buf, len, off) == -1 ? -errno : 0;
}

static const void *
fold_data(void *arg, const struct ckpt_extent *e, uint64_t off, void *buf,
    size_t len, int *err)
{
	struct fold *f = arg;
	uint64_t a = e->addr + off, end = a + len;
	size_t i = f->first[e - f->ext0];
	char *p = buf;

	for (; a < end; i++) {
		const struct fold_seg *g = &f->segs[i];
		uint64_t b;

		if (g->addr + g->len <= a)
			continue;
		b = g->addr + g->len < end ? g->addr + g->len : end;
		if (pread_full(f->fds[g->src], p, b - a, g->off +
		    (a - g->addr)) == -1) {
			*err = -errno;
			return NULL;
		}
		p += b - a;
		a = b;
	}
	return buf;
}

static int
fold_write(void *arg, const void *buf, size_t len)
{
	struct fold *f = arg;

	return write_flushing(f->out_fd, buf, len, &f->written, &f->flushed);
}

/* Read and check a delta: its header, state, every extent's checksum. */
static struct ckpt_head *
delta_read(int fd, const char *path, char *err, size_t errlen)
{
	struct ckpt_delta d;
	struct ckpt_head *h;
	const struct ckpt_extent *e;
	struct stat st;
	const char *why;
	char why2[256], *buf;
	uint32_t sum;
	uint64_t i, at;

	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size < CKPT_PAGE) {
		snprintf(err, errlen, "%s: not a delta (too short)", path);
		return NULL;
	}
	if (pread_full(fd, &d, sizeof(d), 0) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if ((why = ckpt_delta_check(&d, (uint64_t)st.st_size)) != NULL) {
		snprintf(err, errlen, "%s: %s", path, why);
		return NULL;
	}
	if ((h = read_state(fd, d.state_off, d.state_len, (uint64_t)st.st_size,
	    why2, sizeof(why2))) == NULL) {
		snprintf(err, errlen, "%s: %s", path, why2);
		return NULL;
	}
	if (h->image_id != d.image_id || h->parent_id != d.parent_id ||
	    h->delta_seq != d.seq || h->data_off != d.data_off ||
	    d.data_off + h->data_bytes != d.state_off) {
		snprintf(err, errlen, "%s: delta header and state disagree",
		    path);
		free(h);
		return NULL;
	}
	buf = xmalloc(VBUF);
	if (check_padding(fd, sizeof(d), CKPT_PAGE, buf) == -1) {
		snprintf(err, errlen, "%s: delta header padding is not zero",
		    path);
		goto bad;
	}
	e = CKPT_EXTENTS(h);
	for (i = 0, at = d.data_off; i < h->nextents; i++) {
		if (e[i].off != at) {
			snprintf(err, errlen, "%s: extent %llu not where the "
			    "layout says", path, (unsigned long long)i);
			goto bad;
		}
		at += e[i].len;
		if (sum_range(fd, e[i].off, e[i].len, &sum, buf) == -1) {
			snprintf(err, errlen, "%s: reading extent %llu: %s",
			    path, (unsigned long long)i, strerror(errno));
			goto bad;
		}
		if (sum != e[i].sum) {
			snprintf(err, errlen, "%s: checksum mismatch in memory "
			    "at %#llx-%#llx (%s)", path,
			    (unsigned long long)e[i].addr,
			    (unsigned long long)(e[i].addr + e[i].len),
			    ckpt_kind_name(CKPT_REGIONS(h)[e[i].region].kind));
			goto bad;
		}
	}
	free(buf);
	return h;
bad:
	free(buf);
	free(h);
	return NULL;
}

int
ckpt_delta_describe(const char *path, FILE *fp, char *err, size_t errlen)
{
	struct ckpt_head *h;
	const struct ckpt_region *r;
	struct stat st;
	uint64_t whole = 0, inherited = 0;
	uint32_t i, ni = 0;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if ((h = delta_read(fd, path, err, errlen)) == NULL) {
		close(fd);
		return -1;
	}
	(void)fstat(fd, &st);
	close(fd);
	r = CKPT_REGIONS(h);
	for (i = 0; i < h->nregions; i++) {
		if (r[i].flags & CKPT_RF_INHERIT) {
			ni++;
			inherited += r[i].end - r[i].start;
		} else
			whole += r[i].end - r[i].start;
	}
	fprintf(fp, "delta         %u of image %016llx (this image %016llx)\n",
	    h->delta_seq, (unsigned long long)h->parent_id,
	    (unsigned long long)h->image_id);
	fprintf(fp, "program       %s\n", CKPT_STR(h, h->program));
	fprintf(fp, "file          %lld bytes, %llu KiB of pages written "
	    "since in %u extents\n", (long long)st.st_size,
	    (unsigned long long)(h->data_bytes >> 10), h->nextents);
	fprintf(fp, "regions       %u, %u of them (%llu KiB) the parent's "
	    "outside those pages, the others (%llu KiB) saved whole (new, "
	    "moved, untracked) or not at all (text)\n",
	    h->nregions, ni, (unsigned long long)(inherited >> 10),
	    (unsigned long long)(whole >> 10));
	fprintf(fp, "checksums     all %u extents, the header and the restart "
	    "state verified; fold it with condor_ckpt merge\n", h->nextents);
	free(h);
	return 0;
}

int
ckpt_is_delta(const char *path)
{
	char magic[8];
	int fd;
	ssize_t n;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = pread(fd, magic, sizeof(magic), 0);
	close(fd);
	if (n < 0)
		return -1;
	return n == sizeof(magic) && memcmp(magic, CKPT_DELTA_MAGIC,
	    sizeof(magic)) == 0;
}

/*
 * The folded state: the last delta's, its extents rebuilt from the
 * segments: runs of contiguous bytes within one region and one aligned
 * CKPT_LAZY_EXTENT window (so that a restart may still bring them back
 * on demand), no longer a delta.
 */
static struct ckpt_head *
fold_state(struct fold *f, const struct ckpt_head *d)
{
	const struct ckpt_region *dr = CKPT_REGIONS(d);
	struct fold_list split = { NULL, 0, 0 };
	struct ckpt_head *h;
	struct ckpt_region *r;
	struct ckpt_extent *e;
	uint64_t len, i, k, ne;
	uint32_t ri;

	/* No segment crosses a window boundary. */
	for (i = 0; i < f->cur.n; i++) {
		const struct fold_seg *g = &f->cur.v[i];
		uint64_t a = g->addr, end = g->addr + g->len, b;

		for (; a < end; a = b) {
			b = (a / CKPT_LAZY_EXTENT + 1) * CKPT_LAZY_EXTENT;
			if (b > end)
				b = end;
			if (split.n == split.cap) {
				split.cap = split.cap ? split.cap * 2 : 256;
				split.v = xreallocarray(split.v, split.cap,
				    sizeof(*split.v));
			}
			split.v[split.n].addr = a;
			split.v[split.n].len = b - a;
			split.v[split.n].off = g->off + (a - g->addr);
			split.v[split.n].src = g->src;
			split.n++;
		}
	}
	free(f->cur.v);
	f->cur = split;
	len = sizeof(*h) + d->nregions * sizeof(*r) +
	    f->cur.n * sizeof(*e) + d->nfiles * sizeof(struct ckpt_file) +
	    d->nfds * sizeof(struct ckpt_fd) + d->strtab_len;
	h = xcalloc(1, len);
	memcpy(h, d, sizeof(*h));
	h->regions_off = sizeof(*h);
	h->extents_off = h->regions_off + d->nregions * sizeof(*r);
	r = (struct ckpt_region *)((char *)h + h->regions_off);
	e = (struct ckpt_extent *)((char *)h + h->extents_off);
	memcpy(r, dr, d->nregions * sizeof(*r));
	f->first = xreallocarray(NULL, f->cur.n + 1, sizeof(*f->first));
	ne = 0;
	k = 0;
	for (ri = 0; ri < d->nregions; ri++) {
		r[ri].flags &= ~CKPT_RF_INHERIT;
		r[ri].first_extent = (uint32_t)ne;
		while (k < f->cur.n && f->cur.v[k].addr < r[ri].end) {
			uint64_t a = f->cur.v[k].addr, end, win;

			win = a / CKPT_LAZY_EXTENT;
			f->first[ne] = k;
			end = a + f->cur.v[k].len;
			while (k + 1 < f->cur.n &&
			    f->cur.v[k + 1].addr == end && end < r[ri].end &&
			    f->cur.v[k + 1].addr / CKPT_LAZY_EXTENT == win) {
				k++;
				end += f->cur.v[k].len;
			}
			k++;
			e[ne].addr = a;
			e[ne].len = end - a;
			e[ne].off = 0;
			e[ne].sum = 0;
			e[ne].region = ri;
			ne++;
		}
		r[ri].nextents = (uint32_t)ne - r[ri].first_extent;
	}
	h->nextents = (uint32_t)ne;
	h->data_bytes = 0;
	for (i = 0; i < ne; i++)
		h->data_bytes += e[i].len;
	h->files_off = h->extents_off + ne * sizeof(*e);
	memcpy((char *)h + h->files_off, (const char *)d + d->files_off,
	    d->nfiles * sizeof(struct ckpt_file));
	h->fds_off = h->files_off + d->nfiles * sizeof(struct ckpt_file);
	memcpy((char *)h + h->fds_off, (const char *)d + d->fds_off,
	    d->nfds * sizeof(struct ckpt_fd));
	h->strtab_off = h->fds_off + d->nfds * sizeof(struct ckpt_fd);
	memcpy((char *)h + h->strtab_off, (const char *)d + d->strtab_off,
	    d->strtab_len);
	h->state_len = h->strtab_off + d->strtab_len;
	h->parent_id = 0;
	h->delta_seq = 0;
	h->sum = 0;
	f->segs = f->cur.v;
	return h;
}

int64_t
ckpt_fold(const char *base_path, char *const *deltas, int n, int out_fd,
    char *err, size_t errlen)
{
	struct ckpt_file_info base;
	struct ckpt_head **dh, *h = NULL;
	const struct ckpt_head *prev;
	const struct ckpt_extent *be;
	struct ckpt_io io;
	struct fold f;
	const char *why;
	char *buf = NULL, msg[512];
	int64_t total = -1;
	uint32_t i;
	int k;

	if (n < 1) {
		snprintf(err, errlen, "no delta to fold");
		return -1;
	}
	memset(&f, 0, sizeof(f));
	if (ckpt_open(base_path, &base, err, errlen) == -1)
		return -1;
	if (base.is_core || ckpt_verify(&base, msg, sizeof(msg)) == -1) {
		snprintf(err, errlen, "%s: %s", base_path, base.is_core ?
		    "a core, not a checkpoint" : msg);
		ckpt_close(&base);
		return -1;
	}
	dh = xcalloc((size_t)n, sizeof(*dh));
	f.fds = xcalloc((size_t)n + 1, sizeof(*f.fds));
	for (k = 0; k <= n; k++)
		f.fds[k] = -1;
	f.fds[0] = base.fd;
	be = CKPT_EXTENTS(base.head);
	for (i = 0; i < base.head->nextents; i++)
		seg_add(&f.cur, be[i].addr, be[i].len, be[i].off, 0);
	prev = base.head;
	for (k = 0; k < n; k++) {
		if ((f.fds[k + 1] = open(deltas[k], O_RDONLY | O_CLOEXEC)) ==
		    -1) {
			snprintf(err, errlen, "%s: %s", deltas[k],
			    strerror(errno));
			goto out;
		}
		if ((dh[k] = delta_read(f.fds[k + 1], deltas[k], err,
		    errlen)) == NULL)
			goto out;
		if (dh[k]->parent_id != prev->image_id) {
			snprintf(err, errlen, "%s: delta %u applies to image "
			    "%016llx, not to %s (image %016llx)", deltas[k],
			    dh[k]->delta_seq,
			    (unsigned long long)dh[k]->parent_id,
			    k == 0 ? base_path : deltas[k - 1],
			    (unsigned long long)prev->image_id);
			goto out;
		}
		if (dh[k]->exe_len != base.head->exe_len ||
		    dh[k]->build_id_len != base.head->build_id_len ||
		    memcmp(dh[k]->build_id, base.head->build_id,
		    sizeof(dh[k]->build_id)) != 0) {
			snprintf(err, errlen, "%s: a delta of another program",
			    deltas[k]);
			goto out;
		}
		if (fold_apply(&f, prev, dh[k], k + 1, msg, sizeof(msg)) ==
		    -1) {
			snprintf(err, errlen, "%s: %s", deltas[k], msg);
			goto out;
		}
		prev = dh[k];
	}
	h = fold_state(&f, dh[n - 1]);
	h->exe_shoff = base.head->exe_shoff;
	h->exe_shnum = base.head->exe_shnum;
	h->exe_shstrndx = base.head->exe_shstrndx;
	f.ext0 = CKPT_EXTENTS(h);
	f.out_fd = out_fd;
	io.exe_read = fold_exe_read;
	io.data = fold_data;
	io.write = fold_write;
	io.arg = &f;
	buf = xmalloc(4u << 20);
	total = ckpt_write(h, &io, buf, 4u << 20, &why);
	if (total < 0) {
		snprintf(err, errlen, "writing the folded checkpoint: %s: %s",
		    why, strerror((int)-total));
		total = -1;
	}
out:
	for (k = 0; k < n; k++) {
		free(dh[k]);
		if (f.fds[k + 1] != -1)
			close(f.fds[k + 1]);
	}
	free(dh);
	free(f.fds);
	free(f.cur.v);
	free(f.first);
	free(h);
	free(buf);
	ckpt_close(&base);
	return total;
}

int
ckpt_fold_install(const char *base_path, char *const *deltas, int n,
    const char *target, char *err, size_t errlen)
{
	char tmp[PATH_MAX];
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", target,
	    (long)getpid()) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "%s: path too long", target);
		return -1;
	}
	if ((fd = fd_create_aside(target, tmp, 0755)) == -1) {
		snprintf(err, errlen, "%s: %s", errno == ELOOP ||
		    errno == EFTYPE_USER ? target : tmp,
		    fd_user_strerror(errno));
		return -1;
	}
	if (ckpt_fold(base_path, deltas, n, fd, err, errlen) < 0) {
		close(fd);
		unlink(tmp);
		return -1;
	}
	if (close(fd) == -1) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return ckpt_install(tmp, target, err, errlen);
}

int
ckpt_install(const char *tmp, const char *target, char *err, size_t errlen)
{
	struct ckpt_file_info ci;
	char dir[PATH_MAX], why[512];
	const char *slash;
	int fd, dfd;

	if ((fd = open(tmp, O_RDONLY | O_CLOEXEC)) == -1 || fsync(fd) == -1) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		if (fd != -1)
			close(fd);
		goto fail;
	}
	close(fd);
	if (ckpt_open(tmp, &ci, why, sizeof(why)) == -1) {
		snprintf(err, errlen, "the new checkpoint does not read back: "
		    "%s", why);
		goto fail;
	}
	if (ckpt_verify(&ci, why, sizeof(why)) == -1) {
		ckpt_close(&ci);
		snprintf(err, errlen, "the new checkpoint does not verify: %s",
		    why);
		goto fail;
	}
	ckpt_close(&ci);
	if (rename(tmp, target) == -1) {
		snprintf(err, errlen, "rename to %s: %s", target,
		    strerror(errno));
		goto fail;
	}
	slash = strrchr(target, '/');
	if (slash == NULL)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s",
		    (int)(slash == target ? 1 : slash - target), target);
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		(void)fsync(dfd);
		close(dfd);
	}
	return 0;
fail:
	unlink(tmp);
	return -1;
}

int
ckpt_merge_install(const char *exe_path, const char *core_path,
    const char *target, char *err, size_t errlen)
{
	char tmp[PATH_MAX];
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", target,
	    (long)getpid()) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "%s: path too long", target);
		return -1;
	}
	/* The target lies in the user's directory: aside and renamed,
	 * never through a link planted under either name (fdio.h). */
	if ((fd = fd_create_aside(target, tmp, 0755)) == -1) {
		snprintf(err, errlen, "%s: %s", errno == ELOOP ||
		    errno == EFTYPE_USER ? target : tmp,
		    fd_user_strerror(errno));
		return -1;
	}
	if (ckpt_merge(exe_path, core_path, fd, err, errlen) < 0) {
		close(fd);
		unlink(tmp);
		return -1;
	}
	if (close(fd) == -1) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return ckpt_install(tmp, target, err, errlen);
}
#endif
