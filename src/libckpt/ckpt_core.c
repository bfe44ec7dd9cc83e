/*
 * ckpt_core.c: write the process as a standard ELF core (ET_CORE), the
 * form DESIGN.md section 6 and the seeds describe: what gdb reads, and
 * what `condor_ckpt merge EXE CORE` turns into a checkpoint.
 *
 *	PT_NOTE   NT_PRSTATUS (the registers of the interrupted context),
 *		  NT_PRPSINFO, NT_FPREGSET (the FXSAVE area) and NT_X86_XSTATE
 *		  (the XSAVE area with XCR0 where gdb looks for it), both from
 *		  the signal frame, NT_AUXV, and NT_CONDOR_RESTART named
 *		  "CONDOR": the restart state, its extents' offsets pointing
 *		  into this core
 *	PT_LOAD   one per saved extent (with its bytes), one with no bytes
 *		  per hole and per region not saved (text, vDSO...), so gdb
 *		  sees the whole map and reads text from the executable
 *
 * The AVX registers need no saving of their own for a restart: CKPT() is
 * a signal handler, and the kernel put the whole XSAVE state in the
 * signal frame on the stack, which the restart restores and sigreturn
 * reloads.  The notes are written last, after the memory, because the
 * restart state carries the checksums of what precedes it.
 */
#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/procfs.h>
#include <sys/syscall.h>

#include "ckpt.h"

#define PAGE		4096UL
#define FP_XSTATE_MAGIC1 0x46505853U

static size_t
note_size(size_t namesz, size_t descsz)
{
	return sizeof(Elf64_Nhdr) + ((namesz + 3) & ~3UL) +
	    ((descsz + 3) & ~3UL);
}

static char *
put_note(char *p, const char *name, uint32_t type, const void *desc,
    size_t descsz)
{
	Elf64_Nhdr nh;
	size_t namesz = cj_strlen(name) + 1;

	nh.n_namesz = (Elf64_Word)namesz;
	nh.n_descsz = (Elf64_Word)descsz;
	nh.n_type = type;
	cj_memcpy(p, &nh, sizeof(nh));
	p += sizeof(nh);
	cj_memset(p, 0, (namesz + 3) & ~3UL);
	cj_memcpy(p, name, namesz);
	p += (namesz + 3) & ~3UL;
	if (desc != 0) {
		cj_memset(p, 0, (descsz + 3) & ~3UL);
		cj_memcpy(p, desc, descsz);
		p += (descsz + 3) & ~3UL;
	}
	return p;
}

static uint32_t
pflags(uint32_t prot)
{
	return (prot & 1 ? PF_R : 0) | (prot & 2 ? PF_W : 0) |
	    (prot & 4 ? PF_X : 0);
}

static Elf64_Phdr *
load(Elf64_Phdr *ph, uint64_t addr, uint64_t len, uint64_t off,
    uint64_t filesz, uint32_t prot)
{
	cj_memset(ph, 0, sizeof(*ph));
	ph->p_type = PT_LOAD;
	ph->p_flags = pflags(prot);
	ph->p_offset = off;
	ph->p_vaddr = addr;
	ph->p_memsz = len;
	ph->p_filesz = filesz;
	ph->p_align = PAGE;
	return ph + 1;
}

int
ckpt_core_write(int fd, struct ckpt_build *b, ucontext_t *uc,
    const char **why)
{
	struct ckpt_head *h = b->packed;
	struct ckpt_region *r = (struct ckpt_region *)((char *)h +
	    h->regions_off);
	struct ckpt_extent *e = (struct ckpt_extent *)((char *)h +
	    h->extents_off);
	struct elf_prstatus prs;
	struct elf_prpsinfo psi;
	Elf64_Ehdr eh;
	Elf64_Phdr *ph0 = (Elf64_Phdr *)b->mapsbuf, *ph;
	const unsigned char *fx = (const unsigned char *)uc->uc_mcontext.fpregs;
	static char auxv[4096];	/* static: CKPT() is not reentered */
	char *notes, *np;
	uint64_t nph, data_off, at, notes_len, xsize = 0, i, j;
	long auxlen, afd;
	int rc;

	/* Count the program headers: the note, extents, holes, others. */
	nph = 1;
	for (i = 0; i < h->nregions; i++) {
		uint64_t a = r[i].start;

		for (j = r[i].first_extent; j < r[i].first_extent +
		    r[i].nextents; j++) {
			nph += (e[j].addr > a) + 1;
			a = e[j].addr + e[j].len;
		}
		nph += a < r[i].end;
	}
	if (nph >= PN_XNUM || (nph + 1) * sizeof(Elf64_Phdr) +
	    (64u << 10) > CB_MAPSBUF) {
		*why = "too many memory regions for a core";
		return -1;
	}
	data_off = (sizeof(eh) + nph * sizeof(Elf64_Phdr) + PAGE - 1) &
	    ~(PAGE - 1);

	/* The notes (all but the CONDOR one) go after the headers. */
	notes = (char *)(ph0 + nph);
	cj_memset(&prs, 0, sizeof(prs));
	prs.pr_info.si_signo = (int)h->ckpt_signal;
	prs.pr_cursig = (short)h->ckpt_signal;
	prs.pr_sigpend = h->sigpending;
	prs.pr_sighold = h->sigmask;
	prs.pr_pid = (int)h->pid;
	prs.pr_pgrp = (int)condor_sys0(SYS_getpgrp);
	prs.pr_sid = (int)condor_sys1(SYS_getsid, 0);
	prs.pr_ppid = (int)condor_sys0(SYS_getppid);
	for (i = 0; i < CKPT_NGREG && i < ELF_NGREG; i++)
		prs.pr_reg[i] = (elf_greg_t)h->gregs[i];
	prs.pr_fpvalid = fx != 0;
	cj_memset(&psi, 0, sizeof(psi));
	psi.pr_sname = 'R';
	psi.pr_pid = (int)h->pid;
	psi.pr_ppid = prs.pr_ppid;
	cj_strlcpy(psi.pr_fname, CKPT_STR(h, h->program), sizeof(psi.pr_fname));
	cj_strlcpy(psi.pr_psargs, CKPT_STR(h, h->program),
	    sizeof(psi.pr_psargs));
	auxlen = 0;
	if ((afd = condor_sys3(SYS_open, "/proc/self/auxv", O_RDONLY |
	    O_CLOEXEC, 0)) >= 0) {
		auxlen = condor_sys3(SYS_read, afd, auxv, sizeof(auxv));
		condor_sys1(SYS_close, afd);
		if (auxlen < 0)
			auxlen = 0;
	}
	np = put_note(notes, "CORE", NT_PRSTATUS, &prs, sizeof(prs));
	np = put_note(np, "CORE", NT_PRPSINFO, &psi, sizeof(psi));
	if (auxlen > 0)
		np = put_note(np, "CORE", NT_AUXV, auxv, (size_t)auxlen);
	if (fx != 0) {
		np = put_note(np, "CORE", NT_FPREGSET, fx, 512);
		if (*(const uint32_t *)(fx + 464) == FP_XSTATE_MAGIC1)
			xsize = *(const uint32_t *)(fx + 464 + 16);
		if (xsize >= 576 && xsize <= 65536) {
			char *desc;
			uint32_t lo, hi, a, bx, c, d;

			/* gdb wants the whole area XCR0 enables; the signal
			 * frame may hold less (zero-filled here). */
			__asm__ volatile("cpuid" : "=a"(a), "=b"(bx), "=c"(c),
			    "=d"(d) : "a"(0xd), "c"(0));
			desc = np + sizeof(Elf64_Nhdr) + 8;
			np = put_note(np, "LINUX", NT_X86_XSTATE, fx, xsize);
			if (bx > xsize && bx <= 65536) {
				cj_memset(desc + xsize, 0, bx - xsize);
				((Elf64_Nhdr *)(desc - 8 -
				    sizeof(Elf64_Nhdr)))->n_descsz = bx;
				np = desc + ((bx + 3) & ~3u);
			}
			/* gdb reads XCR0 from the software-reserved bytes. */
			__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
			*(uint64_t *)(desc + 464) = ((uint64_t)hi << 32) | lo;
		}
	}
	notes_len = (uint64_t)(np - notes) + note_size(sizeof(CKPT_NOTE_NAME),
	    h->state_len);

	/* Headers. */
	cj_memset(&eh, 0, sizeof(eh));
	cj_memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_ident[EI_OSABI] = ELFOSABI_NONE;
	eh.e_type = ET_CORE;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(eh);
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = (Elf64_Half)nph;
	ph = ph0;
	cj_memset(ph, 0, sizeof(*ph));
	ph->p_type = PT_NOTE;
	ph->p_offset = data_off + h->data_bytes;
	ph->p_filesz = notes_len;
	ph->p_align = 4;
	ph++;
	at = data_off;
	for (i = 0; i < h->nregions; i++) {
		uint64_t a = r[i].start;

		for (j = r[i].first_extent; j < r[i].first_extent +
		    r[i].nextents; j++) {
			if (e[j].addr > a)
				ph = load(ph, a, e[j].addr - a, 0, 0, r[i].prot);
			e[j].off = at;
			ph = load(ph, e[j].addr, e[j].len, at, e[j].len,
			    r[i].prot);
			at += e[j].len;
			a = e[j].addr + e[j].len;
		}
		if (a < r[i].end)
			ph = load(ph, a, r[i].end - a, 0, 0, r[i].prot);
	}
	if ((rc = ckpt_out_write(fd, &eh, sizeof(eh))) < 0 ||
	    (rc = ckpt_out_write(fd, ph0, nph * sizeof(Elf64_Phdr))) < 0)
		goto werr;
	cj_memset(b->iobuf, 0, PAGE);
	if ((rc = ckpt_out_write(fd, b->iobuf, data_off - sizeof(eh) -
	    nph * sizeof(Elf64_Phdr))) < 0)
		goto werr;

	/* Memory, with the checksums the restart state carries.  The
	 * stack changes under us (our own frames): copied, then summed. */
	for (i = 0; i < h->nextents; i++) {
		const char *m = (const char *)(uintptr_t)e[i].addr;

		if (r[e[i].region].kind != CKPT_R_STACK) {
			e[i].sum = ckpt_sum(m, e[i].len);
			if ((rc = ckpt_out_write(fd, m, e[i].len)) < 0)
				goto werr;
			continue;
		}
		{
			struct ckpt_sumctx sc;
			uint64_t k, n;

			ckpt_sum_init(&sc);
			for (k = 0; k < e[i].len; k += n) {
				n = e[i].len - k < CB_IOBUF ? e[i].len - k :
				    CB_IOBUF;
				cj_memcpy(b->iobuf, m + k, n);
				ckpt_sum_more(&sc, b->iobuf, n);
				if ((rc = ckpt_out_write(fd, b->iobuf, n)) < 0)
					goto werr;
			}
			e[i].sum = ckpt_sum_end(&sc);
		}
	}
	h->exe_sum = 0;
	h->data_off = data_off;
	h->sum = ckpt_state_sum(h, h->state_len);
	np = put_note(np, CKPT_NOTE_NAME, NT_CONDOR_RESTART, 0, h->state_len);
	if ((rc = ckpt_out_write(fd, notes, (size_t)(np - notes))) < 0 ||
	    (rc = ckpt_out_write(fd, h, h->state_len)) < 0)
		goto werr;
	if (h->state_len % 4 != 0) {
		static const char pad[4];

		if ((rc = ckpt_out_write(fd, pad, 4 - h->state_len % 4)) < 0)
			goto werr;
	}
	return 0;
werr:
	*why = "cannot write the core (disk full?)";
	return -1;
}
