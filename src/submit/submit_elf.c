/*
 * submit_elf.c: whether a program is relinked for Condor (condor_cc
 * gives it a section of its own), read from its ELF section headers.
 */
#include <sys/stat.h>

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "submit.h"
#include "xalloc.h"

#define RELINKED_SECTION	".condor_relinked"

/* Read LEN bytes at OFF exactly; -1 on a short file or an error. */
static int
read_at(int fd, void *buf, size_t len, off_t off)
{
	ssize_t n;
	size_t done = 0;

	while (done < len) {
		n = pread(fd, (char *)buf + done, len - done,
		    off + (off_t)done);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

int
submit_elf_relinked(const char *path, char *err, size_t errlen)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh0, *sh = NULL;
	struct stat st;
	char *names = NULL;
	size_t shnum, shstrndx, i;
	int fd, rc = -1;

	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		goto out;
	}
	if (read_at(fd, &eh, sizeof(eh), 0) == -1 ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
		snprintf(err, errlen, "%s: not an ELF file", path);
		goto out;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff == 0 ||
	    eh.e_shoff > (Elf64_Off)st.st_size) {
		snprintf(err, errlen, "%s: not a 64-bit little-endian ELF file "
		    "with section headers", path);
		goto out;
	}
	/* Counts too large for the header live in section 0. */
	if (read_at(fd, &sh0, sizeof(sh0), (off_t)eh.e_shoff) == -1)
		goto bad;
	shnum = eh.e_shnum ? eh.e_shnum : sh0.sh_size;
	shstrndx = eh.e_shstrndx == SHN_XINDEX ? sh0.sh_link : eh.e_shstrndx;
	if (shnum == 0 || shnum > (size_t)st.st_size / sizeof(Elf64_Shdr) ||
	    shstrndx >= shnum)
		goto bad;
	sh = xcalloc(shnum, sizeof(*sh));
	if (read_at(fd, sh, shnum * sizeof(*sh), (off_t)eh.e_shoff) == -1)
		goto bad;
	if (sh[shstrndx].sh_offset > (Elf64_Off)st.st_size ||
	    sh[shstrndx].sh_size > (Elf64_Off)st.st_size -
	    sh[shstrndx].sh_offset || sh[shstrndx].sh_size == 0)
		goto bad;
	names = xmalloc(sh[shstrndx].sh_size + 1);
	if (read_at(fd, names, sh[shstrndx].sh_size,
	    (off_t)sh[shstrndx].sh_offset) == -1)
		goto bad;
	names[sh[shstrndx].sh_size] = '\0';
	rc = 0;
	for (i = 0; i < shnum; i++)
		if (sh[i].sh_name < sh[shstrndx].sh_size &&
		    strcmp(names + sh[i].sh_name, RELINKED_SECTION) == 0) {
			rc = 1;
			break;
		}
	goto out;
bad:
	snprintf(err, errlen, "%s: malformed ELF section headers", path);
	rc = -1;
out:
	free(sh);
	free(names);
	close(fd);
	return rc;
}
