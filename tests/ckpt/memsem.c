/*
 * memsem: what the kernel and malloc do with memory a restart gave
 * back.  Each test sets some memory up, checkpoints (ckpt_and_exit() in
 * the relinked program, nothing in the native one; the checkpoint is
 * then run to resume), and then uses that memory the way programs do:
 * realloc, mremap, madvise, munmap, mprotect, brk, MAP_FIXED, calloc.
 * It prints what it saw (contents as checksums, results, and the kind
 * of mapping each address is, from /proc/self/maps), so the relinked
 * run's output must be the native run's, byte for byte.
 *
 *	memsem TEST	one test: realloc mremap madvise munmap mprotect brk
 *			fixed calloc protnone fork
 *	memsem all	every test in turn, a checkpoint before each one's
 *			second half, then all the memory they left checked
 *			again across two more checkpoints (each restart
 *			resumes a program that was itself restarted)
 *	memsem maps	the process's own /proc/self/maps before and after
 *			a checkpoint, in maps.pre and maps.post (anonymous,
 *			shared, memfd, PROT_NONE memory, small and large
 *			blocks)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef CONDOR_RELINKED
#include "condor_ckpt.h"
#endif

#define KiB	1024UL
#define MiB	(1024UL * 1024)
#define PAGE	4096UL

static char	exe_path[PATH_MAX];

static void
exe_name(void)
{
	ssize_t n = readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1);

	exe_path[n > 0 ? n : 0] = '\0';
}

/* After a restart the program's file is the checkpoint. */
static void
checkpoint(void)
{
	fflush(stdout);
#ifdef CONDOR_RELINKED
	ckpt_and_exit();
#endif
	exe_name();
}

static unsigned long
sum(const void *p, size_t n)
{
	const unsigned char *c = p;
	unsigned long h = 14695981039346656037UL;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211UL;
	return h;
}

static void
fill(void *p, size_t n, unsigned seed)
{
	unsigned char *c = p;
	size_t i;

	for (i = 0; i < n; i++)
		c[i] = (unsigned char)(i * 31 + seed + (i >> 12) * 7);
}

static size_t
zeros(const void *p, size_t n)
{
	const unsigned char *c = p;
	size_t i, z = 0;

	for (i = 0; i < n; i++)
		z += c[i] == 0;
	return z;
}

/*
 * The kind of mapping ADDR is in: anon, heap, stack, shared-anon, exe
 * (the program's own file, whatever it is called), file NAME, or none;
 * with its permissions.
 */
static const char *
kind(const void *addr)
{
	static char out[PATH_MAX + 32];
	unsigned long lo, hi, a = (unsigned long)addr;
	char line[PATH_MAX + 128], perms[8], name[PATH_MAX];
	FILE *f = fopen("/proc/self/maps", "r");
	const char *base;

	snprintf(out, sizeof(out), "none");
	if (f == NULL)
		return out;
	while (fgets(line, sizeof(line), f) != NULL) {
		name[0] = '\0';
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %4095[^\n]", &lo,
		    &hi, perms, name) < 3 || a < lo || a >= hi)
			continue;
		base = strrchr(name, '/');
		base = base != NULL ? base + 1 : name;
		if (name[0] == '\0')
			snprintf(out, sizeof(out), "anon %s", perms);
		else if (strcmp(name, "[heap]") == 0 ||
		    strcmp(name, "[stack]") == 0)
			snprintf(out, sizeof(out), "%s %s", name, perms);
		else if (strncmp(name, "/dev/zero", 9) == 0)
			snprintf(out, sizeof(out), "shared-anon %s", perms);
		else if (strcmp(name, exe_path) == 0)
			snprintf(out, sizeof(out), "exe %s", perms);
		else
			snprintf(out, sizeof(out), "file %s %s", base, perms);
		break;
	}
	fclose(f);
	return out;
}

static void
say(const char *what, const void *p, size_t n)
{
	printf("  %-34s sum %016lx zeros %7zu [%s]\n", what, sum(p, n),
	    zeros(p, n), kind(p));
}

static void *
map(size_t n, int prot, int flags)
{
	void *p = mmap(NULL, n, prot, flags | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

/* Is [p, p+n) free?  (A mapping there without MAP_FIXED lands there.) */
static int
is_free(void *p, size_t n)
{
	void *q = mmap(p, n, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_FIXED_NOREPLACE, -1, 0);

	if (q == MAP_FAILED)
		return 0;
	munmap(q, n);
	return q == p;
}

static sigjmp_buf	fault_jmp;

static void
on_fault(int sig)
{
	siglongjmp(fault_jmp, sig);
}

/* Does writing to P fault? */
static int
write_faults(volatile char *p)
{
	struct sigaction sa, old_segv, old_bus;
	int r;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fault;
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	if ((r = sigsetjmp(fault_jmp, 1)) == 0)
		*p = 1;
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	return r != 0;
}

/* ---------------------------------------------------------------- */
/* What the tests leave behind, checked again by "all". */

static struct kept {
	const char	*what;
	void		*p;
	size_t		 n;
} kept[64];
static int	nkept;

static void
keep(const char *what, void *p, size_t n)
{
	if (nkept < 64)
		kept[nkept++] = (struct kept){ what, p, n };
}

/* ---------------------------------------------------------------- */

/* Large blocks (malloc's own mappings, grown with mremap) and small
 * ones (in the heap) grown and shrunk after the restart. */
static void
t_realloc(void)
{
	char *big = malloc(1 * MiB), *mid = malloc(200 * KiB);
	char *small = malloc(100), *small2 = malloc(5000);

	fill(big, 1 * MiB, 1);
	fill(mid, 200 * KiB, 2);
	fill(small, 100, 3);
	fill(small2, 5000, 4);
	checkpoint();
	big = realloc(big, 2 * MiB);
	say("big 1 MiB -> 2 MiB, kept part", big, 1 * MiB);
	fill(big + 1 * MiB, 1 * MiB, 5);
	big = realloc(big, 16 * MiB);
	say("big -> 16 MiB, kept part", big, 2 * MiB);
	fill(big + 2 * MiB, 14 * MiB, 6);
	say("big 16 MiB", big, 16 * MiB);
	big = realloc(big, 300 * KiB);
	say("big -> 300 KiB", big, 300 * KiB);
	mid = realloc(mid, 3 * MiB);
	say("mid 200 KiB -> 3 MiB, kept part", mid, 200 * KiB);
	fill(mid, 3 * MiB, 7);
	mid = realloc(mid, 150 * KiB);
	say("mid -> 150 KiB", mid, 150 * KiB);
	small = realloc(small, 100000);
	say("small 100 -> 100000, kept part", small, 100);
	fill(small, 100000, 8);
	small = realloc(small, 40);
	say("small -> 40", small, 40);
	small2 = realloc(small2, 2 * MiB);
	say("small 5000 -> 2 MiB, kept part", small2, 5000);
	fill(small2, 2 * MiB, 9);
	keep("realloc big", big, 300 * KiB);
	keep("realloc mid", mid, 150 * KiB);
	keep("realloc small", small, 40);
	keep("realloc small2", small2, 2 * MiB);
}

/* mremap of restored mappings: grow in place (room left above), grow
 * where there is no room (it moves), shrink, move to a fixed place. */
static void
t_mremap(void)
{
	char *a = map(4 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	char *b = map(2 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	char *c = map(256 * KiB, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	char *target = map(1 * MiB, PROT_READ, MAP_PRIVATE);
	char *r;

	munmap(a + 1 * MiB, 3 * MiB);	/* room to grow in place */
	fill(a, 1 * MiB, 11);
	/* b's second half is a guard of another kind: no room. */
	mprotect(b + 1 * MiB, 1 * MiB, PROT_READ);
	fill(b, 1 * MiB, 12);
	fill(c, 256 * KiB, 13);
	checkpoint();
	r = mremap(a, 1 * MiB, 3 * MiB, 0);
	printf("  grow in place: %s\n", r == a ? "same address" :
	    strerror(errno));
	if (r == a) {
		say("grown, old part", a, 1 * MiB);
		say("grown, new part", a + 1 * MiB, 2 * MiB);
		fill(a + 1 * MiB, 2 * MiB, 14);
	}
	r = mremap(a, 3 * MiB, 512 * KiB, 0);
	printf("  shrink: %s, freed part free again: %d\n",
	    r == a ? "same address" : strerror(errno),
	    is_free(a + 512 * KiB, 2 * MiB + 512 * KiB));
	say("shrunk", a, 512 * KiB);
	r = mremap(b, 1 * MiB, 4 * MiB, MREMAP_MAYMOVE);
	printf("  grow with move: %s\n", r == MAP_FAILED ? strerror(errno) :
	    r == b ? "did not move" : "moved");
	if (r != MAP_FAILED) {
		printf("  old place free: %d\n", r != b && is_free(b, 1 * MiB));
		b = r;
		say("moved, old part", b, 1 * MiB);
		say("moved, new part", b + 1 * MiB, 3 * MiB);
		fill(b + 1 * MiB, 3 * MiB, 15);
	}
	munmap(target, 1 * MiB);
	r = mremap(c, 256 * KiB, 512 * KiB, MREMAP_MAYMOVE | MREMAP_FIXED,
	    target);
	printf("  MREMAP_FIXED: %s, old place free: %d\n",
	    r == target ? "at the target" : strerror(errno),
	    is_free(c, 256 * KiB));
	if (r == target) {
		c = r;
		say("fixed, old part", c, 256 * KiB);
		say("fixed, new part", c + 256 * KiB, 256 * KiB);
		fill(c + 256 * KiB, 256 * KiB, 16);
	}
	keep("mremap a", a, 512 * KiB);
	keep("mremap b", b, 4 * MiB);
	keep("mremap c", c, 512 * KiB);
}

/* madvise: DONTNEED (zeros in anonymous memory, the file's pages in a
 * private file mapping), FREE (anonymous private memory only), REMOVE
 * (shared memory only), then the pages touched again. */
static void
t_madvise(void)
{
	char *m = map(1 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	char *s = map(256 * KiB, PROT_READ | PROT_WRITE, MAP_SHARED);
	char *f, *filedata = malloc(256 * KiB);
	int fd, r;

	fill(m, 1 * MiB, 21);
	fill(s, 256 * KiB, 22);
	fill(filedata, 256 * KiB, 23);
	fd = open("memsem.dat", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, filedata, 256 * KiB) != (ssize_t)(256 * KiB)) {
		perror("memsem.dat");
		exit(1);
	}
	f = mmap(NULL, 256 * KiB, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	if (f == MAP_FAILED) {
		perror("mmap memsem.dat");
		exit(1);
	}
	fill(f, 128 * KiB, 24);		/* its own copy of half of it */
	checkpoint();
	say("anonymous, restored", m, 1 * MiB);
	r = madvise(m, 256 * KiB, MADV_DONTNEED);
	printf("  MADV_DONTNEED: %d\n", r);
	say("anonymous, after DONTNEED", m, 256 * KiB);
	say("anonymous, the rest", m + 256 * KiB, 768 * KiB);
	fill(m, 64 * KiB, 25);
	say("anonymous, touched again", m, 256 * KiB);
	r = madvise(m + 256 * KiB, 256 * KiB, MADV_FREE);
	printf("  MADV_FREE: %d\n", r);
	fill(m + 256 * KiB, 256 * KiB, 26);
	say("anonymous, written after FREE", m + 256 * KiB, 256 * KiB);
	say("shared, restored", s, 256 * KiB);
	r = madvise(s, 128 * KiB, MADV_REMOVE);
	printf("  MADV_REMOVE: %d\n", r);
	say("shared, after REMOVE", s, 256 * KiB);
	fill(s, 4 * KiB, 27);
	say("shared, touched again", s, 256 * KiB);
	say("file, restored", f, 256 * KiB);
	r = madvise(f, 256 * KiB, MADV_DONTNEED);
	printf("  MADV_DONTNEED on the file mapping: %d\n", r);
	say("file, after DONTNEED", f, 256 * KiB);
	printf("  file pages back: %d\n", memcmp(f, filedata, 256 * KiB) == 0);
	keep("madvise m", m, 1 * MiB);
	keep("madvise s", s, 256 * KiB);
	keep("madvise f", f, 256 * KiB);
	free(filedata);
}

/* munmap of the middle of a restored region; the hole is reusable and
 * the part below can grow into it. */
static void
t_munmap(void)
{
	char *m = map(1 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	char *r;

	fill(m, 1 * MiB, 31);
	checkpoint();
	printf("  munmap middle: %d\n", munmap(m + 256 * KiB, 256 * KiB));
	printf("  hole free: %d\n", is_free(m + 256 * KiB, 256 * KiB));
	say("below the hole", m, 256 * KiB);
	say("above the hole", m + 512 * KiB, 512 * KiB);
	r = mremap(m, 256 * KiB, 512 * KiB, 0);
	printf("  grow into the hole: %s\n", r == m ? "same address" :
	    strerror(errno));
	if (r == m)
		say("grown into the hole", m + 256 * KiB, 256 * KiB);
	keep("munmap m", m, 1 * MiB);
}

/* mprotect on restored memory. */
static void
t_mprotect(void)
{
	char *m = map(512 * KiB, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	char *big = map(32 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE);

	fill(m, 512 * KiB, 41);
	fill(big, 32 * MiB, 42);
	checkpoint();
	/* At once, before memory restored on demand is back: a piece in
	 * the middle of a large region made read-only, then read. */
	printf("  middle read-only: %d\n", mprotect(big + 24 * MiB +
	    12 * KiB, 64 * KiB, PROT_READ));
	say("the read-only middle", big + 24 * MiB, 1 * MiB);
	say("the large region", big, 32 * MiB);
	printf("  read-only: %d\n", mprotect(m, 128 * KiB, PROT_READ));
	printf("  write to it faults: %d\n", write_faults(m + 100));
	say("read-only part", m, 128 * KiB);
	printf("  PROT_NONE: %d\n", mprotect(m + 128 * KiB, 128 * KiB,
	    PROT_NONE));
	printf("  back to read-write: %d\n", mprotect(m, 256 * KiB,
	    PROT_READ | PROT_WRITE));
	printf("  write faults: %d\n", write_faults(m + 200 * KiB));
	say("after the round trip", m, 512 * KiB);
	printf("  executable: %d\n", mprotect(m + 256 * KiB, 4 * KiB,
	    PROT_READ | PROT_EXEC));
	say("executable page", m + 256 * KiB, 4 * KiB);
	keep("mprotect m", m, 256 * KiB);
}

/* The break after a restart: grown, shrunk, grown again. */
static void
t_brk(void)
{
	char *b0, *p;

	printf("  (stdout buffered)\n");
	b0 = sbrk(0);
	p = sbrk(1 * MiB);
	fill(p, 1 * MiB, 51);
	checkpoint();
	printf("  grown by: %ld KiB\n", (long)((char *)sbrk(0) - b0) / 1024);
	say("saved", p, 1 * MiB);
	p = sbrk(2 * MiB);
	say("grown", p, 2 * MiB);
	fill(p, 2 * MiB, 52);
	sbrk(-(long)(2 * MiB + 512 * KiB));
	printf("  after shrinking: %ld KiB\n",
	    (long)((char *)sbrk(0) - b0) / 1024);
	say("what is left", b0, 512 * KiB);
	printf("  above the break is free: %d\n",
	    is_free(b0 + 512 * KiB, 512 * KiB));
	p = sbrk(1 * MiB);
	say("grown again (fresh)", p, 1 * MiB);
	fill(p, 1 * MiB, 53);
	keep("brk", b0, 1536 * KiB);
}

/* MAP_FIXED over restored memory: anonymous, and a file. */
static void
t_fixed(void)
{
	char *m = map(1 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	char *buf = malloc(64 * KiB);
	void *r;
	int fd;

	fill(m, 1 * MiB, 61);
	fill(buf, 64 * KiB, 62);
	fd = open("memsem.fix", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, buf, 64 * KiB) != (ssize_t)(64 * KiB)) {
		perror("memsem.fix");
		exit(1);
	}
	close(fd);
	checkpoint();
	r = mmap(m + 256 * KiB, 128 * KiB, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	printf("  anonymous over it: %d\n", r == m + 256 * KiB);
	say("the new mapping", m + 256 * KiB, 128 * KiB);
	say("below it", m, 256 * KiB);
	say("above it", m + 384 * KiB, 640 * KiB);
	fd = open("memsem.fix", O_RDONLY);
	r = mmap(m + 768 * KiB, 64 * KiB, PROT_READ, MAP_PRIVATE | MAP_FIXED,
	    fd, 0);
	close(fd);
	printf("  file over it: %d\n", r == m + 768 * KiB);
	say("the file", m + 768 * KiB, 64 * KiB);
	say("the rest", m + 832 * KiB, 192 * KiB);
	keep("fixed m", m, 1 * MiB);
	free(buf);
}

/* calloc after a restart: zeros, whether from the heap or mapped. */
static void
t_calloc(void)
{
	char *p = malloc(8 * MiB), *q = malloc(100 * KiB), *r;
	char *z1, *z2, *z3;

	memset(p, 0xff, 8 * MiB);
	memset(q, 0xee, 100 * KiB);
	r = malloc(64);
	free(p);
	free(q);
	checkpoint();
	z1 = calloc(1, 8 * MiB);
	printf("  calloc 8 MiB: %zu of %lu bytes zero\n", zeros(z1, 8 * MiB),
	    8 * MiB);
	z2 = calloc(1, 3 * MiB);
	printf("  calloc 3 MiB: %zu of %lu bytes zero\n", zeros(z2, 3 * MiB),
	    3 * MiB);
	z3 = calloc(100, KiB);
	printf("  calloc 100 KiB: %zu of %lu bytes zero [%s]\n",
	    zeros(z3, 100 * KiB), 100 * KiB, kind(z3));
	memset(z1, 1, 8 * MiB);
	free(z1);
	z1 = calloc(2, 4 * MiB);
	printf("  calloc again: %zu of %lu bytes zero\n", zeros(z1, 8 * MiB),
	    8 * MiB);
	keep("calloc z1", z1, 8 * MiB);
	keep("calloc z2", z2, 3 * MiB);
	free(r);
}

/* Memory that was PROT_NONE at the checkpoint, made usable after. */
static void
t_protnone(void)
{
	char *m = map(256 * KiB, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	char *res = map(64 * MiB, PROT_NONE, MAP_PRIVATE | MAP_NORESERVE);

	fill(m, 256 * KiB, 71);
	mprotect(m, 256 * KiB, PROT_NONE);
	checkpoint();
	printf("  made writable: %d\n", mprotect(m, 256 * KiB,
	    PROT_READ | PROT_WRITE));
	say("its data", m, 256 * KiB);
	fill(m, 4 * KiB, 72);
	say("written", m, 256 * KiB);
	printf("  reservation made writable: %d\n", mprotect(res + 16 * MiB,
	    1 * MiB, PROT_READ | PROT_WRITE));
	say("reservation", res + 16 * MiB, 1 * MiB);
	fill(res + 16 * MiB, 1 * MiB, 73);
	printf("  rest still PROT_NONE: %d\n", write_faults(res));
	keep("protnone m", m, 256 * KiB);
	keep("protnone res", res + 16 * MiB, 1 * MiB);
}

/* ---------------------------------------------------------------- */

/*
 * A child forked right after the restart (while memory may still be
 * coming back on demand) sees the memory as it was, and neither side
 * sees the other's later changes: the child's DONTNEED and writes, the
 * parent's.
 */
static void
t_fork(void)
{
	size_t n = 48 * MiB;
	char *m = map(n, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	char *h = malloc(8 * MiB);
	pid_t pid;
	int st;

	fill(m, n, 91);
	fill(h, 8 * MiB, 92);
	checkpoint();
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		say("child: mapping", m, n);
		say("child: heap block", h, 8 * MiB);
		madvise(m, 16 * MiB, MADV_DONTNEED);
		fill(m + 32 * MiB, 1 * MiB, 93);
		say("child: after DONTNEED and a write", m, n);
		fflush(stdout);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || st != 0)
		printf("  fork: %s, status %d\n", pid < 0 ? strerror(errno) :
		    "child", st);
	say("parent: mapping", m, n);
	fill(m + 16 * MiB, 1 * MiB, 94);
	say("parent: after a write", m, n);
	say("parent: heap block", h, 8 * MiB);
	keep("fork m", m, n);
	keep("fork h", h, 8 * MiB);
}

static const struct test {
	const char	*name;
	void		(*fn)(void);
} tests[] = {
	{ "realloc", t_realloc }, { "mremap", t_mremap },
	{ "madvise", t_madvise }, { "munmap", t_munmap },
	{ "mprotect", t_mprotect }, { "brk", t_brk }, { "fixed", t_fixed },
	{ "calloc", t_calloc }, { "protnone", t_protnone },
	{ "fork", t_fork },
};
#define NTESTS	(sizeof(tests) / sizeof(tests[0]))

static void
dump_maps(const char *to)
{
	FILE *in = fopen("/proc/self/maps", "r"), *out = fopen(to, "w");
	char line[PATH_MAX + 128];

	if (in == NULL || out == NULL) {
		perror(to);
		exit(1);
	}
	while (fgets(line, sizeof(line), in) != NULL)
		fputs(line, out);
	fclose(in);
	fclose(out);
}

static void
kept_check(void)
{
	int i;

	for (i = 0; i < nkept; i++)
		say(kept[i].what, kept[i].p, kept[i].n);
}

int
main(int argc, char **argv)
{
	size_t i;
	int gen;

	if (argc != 2) {
		fprintf(stderr, "usage: memsem test|all|maps\n");
		return 2;
	}
	exe_name();
	printf("memsem %s\n", argv[1]);
	if (strcmp(argv[1], "maps") == 0) {
		char *m = map(1 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE);
		char *s = map(64 * KiB, PROT_READ | PROT_WRITE, MAP_SHARED);
		char *h = malloc(3 * MiB), *l = malloc(100 * KiB), *mf;
		int fd = memfd_create("memsem", MFD_CLOEXEC);

		/* A memfd's memory, its descriptor closed (an open one
		 * would stop the checkpoint). */
		if (fd < 0 || ftruncate(fd, 128 * KiB) < 0 ||
		    (mf = mmap(NULL, 128 * KiB, PROT_READ | PROT_WRITE,
		    MAP_SHARED, fd, 0)) == MAP_FAILED) {
			perror("memfd");
			return 1;
		}
		close(fd);
		fill(mf, 128 * KiB, 85);
		fill(m, 1 * MiB, 81);
		mprotect(m + 512 * KiB, 64 * KiB, PROT_NONE);
		fill(s, 64 * KiB, 82);
		fill(h, 3 * MiB, 83);
		fill(l, 100 * KiB, 84);
		dump_maps("maps.pre");
		checkpoint();
		dump_maps("maps.post");
		say("anonymous", m, 512 * KiB);
		say("shared", s, 64 * KiB);
		say("large block", h, 3 * MiB);
		say("small block", l, 100 * KiB);
		say("memfd", mf, 128 * KiB);
		printf("memsem done\n");
		return 0;
	}
	for (i = 0; i < NTESTS; i++) {
		if (strcmp(argv[1], "all") != 0 &&
		    strcmp(argv[1], tests[i].name) != 0)
			continue;
		printf("%s\n", tests[i].name);
		tests[i].fn();
	}
	if (strcmp(argv[1], "all") == 0)
		for (gen = 0; gen < 2; gen++) {
			checkpoint();
			printf("everything kept, again\n");
			kept_check();
		}
	printf("memsem done\n");
	return 0;
}
