/*
 * remote_stream: large reads and writes, the remote I/O library's
 * streamed path (several pieces of one call in flight), checked against
 * a native run (tests/pool/remote_stream_test.sh).  In its working
 * directory:
 *
 *   remote_stream make FILE MIB	FILE of MIB MiB of the pattern
 *   remote_stream seq FILE		read it in large reads, preads and
 *					readvs: counts, hashes, and bytes
 *					that differ from the pattern
 *   remote_stream mixed FILE		writes, seeks, truncation and reads
 *					interleaved on two descriptors
 *   remote_stream fault FILE		reads and a write with a buffer
 *					whose middle page is unmapped
 *   remote_stream trunc FILE MIB	read FILE over and over until the
 *					file "truncated" exists, then once
 *					more: every byte must be the
 *					pattern's, the last pass MIB MiB
 *   remote_stream quota FILE		writes of 8 MiB and more (the pool
 *					caps a job's writes at 12 MiB:
 *					MAX_JOB_WRITE_MB): its exit code
 *					has bit 1, 2 or 4 set when the
 *					first, second or third write did
 *					not return what it should
 *
 * Everything printed depends only on what the calls return, so a native
 * run and a run under Condor print the same.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define MIB		(1024 * 1024L)
#define BUFSZ		(16 * MIB)

static unsigned char	*buf;

static unsigned char
pattern(uint64_t off)
{
	return (unsigned char)((off >> 12) * 31 + off * 7 + (off >> 20));
}

static uint64_t
hash(const unsigned char *p, long n)
{
	uint64_t h = 1469598103934665603ULL;
	long i;

	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}

/* Bytes of P (N of them, from file offset OFF) not the pattern's. */
static long
differ(const unsigned char *p, long n, uint64_t off)
{
	long i, bad = 0;

	for (i = 0; i < n; i++)
		bad += p[i] != pattern(off + (uint64_t)i);
	return bad;
}

static void
show(const char *what, long r)
{
	if (r < 0)
		printf("%-28s -1 %s\n", what, strerror(errno));
	else
		printf("%-28s %ld\n", what, r);
}

static void
show_data(const char *what, long r, const unsigned char *p)
{
	show(what, r);
	if (r > 0)
		printf("  hash %016llx\n", (unsigned long long)hash(p, r));
}

static int
do_make(const char *file, long mib)
{
	long i;
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd == -1)
		return 1;
	for (i = 0; i < mib; i++) {
		long j;

		for (j = 0; j < MIB; j++)
			buf[j] = pattern((uint64_t)(i * MIB + j));
		if (write(fd, buf, MIB) != MIB)
			return 1;
	}
	return close(fd) == 0 ? 0 : 1;
}

static int
do_seq(const char *file)
{
	static const long sizes[] = { 3 * MIB, 1000003, 65536,
	    5 * MIB + 7, 4097, MIB };
	const int nsizes = sizeof(sizes) / sizeof(sizes[0]);
	long r, total = 0, bad = 0, calls = 0;
	uint64_t h = 0;
	struct iovec iov[3];
	int fd = open(file, O_RDONLY);

	if (fd == -1) {
		show("open", -1);
		return 1;
	}
	/* read, in sizes that cut pieces unevenly */
	while ((r = read(fd, buf, (size_t)sizes[calls % nsizes])) > 0) {
		bad += differ(buf, r, (uint64_t)total);
		h ^= hash(buf, r) + (uint64_t)calls;
		total += r;
		calls++;
	}
	show("read total", total);
	show("read last", r);
	printf("  calls %ld hash %016llx differing %ld\n", calls,
	    (unsigned long long)h, bad);
	/* pread, from the end backwards */
	total = bad = 0;
	h = 0;
	for (calls = 0;; calls++) {
		long off = (long)lseek(fd, 0, SEEK_END) - (calls + 1) * 3 * MIB;
		long len = 3 * MIB + (calls % 3);

		if (off < 0) {
			len += off;
			off = 0;
		}
		if (len <= 0 || (r = pread(fd, buf, (size_t)len, off)) <= 0)
			break;
		bad += differ(buf, r, (uint64_t)off);
		h ^= hash(buf, r) + (uint64_t)calls;
		total += r;
		if (off == 0)
			break;
	}
	show("pread total", total);
	printf("  calls %ld hash %016llx differing %ld\n", calls,
	    (unsigned long long)h, bad);
	/* readv, three buffers a call */
	lseek(fd, 0, SEEK_SET);
	total = bad = 0;
	iov[0].iov_base = buf;
	iov[0].iov_len = 3 * MIB / 2;
	iov[1].iov_base = buf + 2 * MIB;
	iov[1].iov_len = 7;
	iov[2].iov_base = buf + 3 * MIB;
	iov[2].iov_len = 2 * MIB + 3;
	while ((r = readv(fd, iov, 3)) > 0) {
		long a = r < (long)iov[0].iov_len ? r : (long)iov[0].iov_len;
		long b = r - a < 7 ? r - a : 7;

		bad += differ(buf, a, (uint64_t)total);
		bad += differ(buf + 2 * MIB, b, (uint64_t)(total + a));
		bad += differ(buf + 3 * MIB, r - a - b,
		    (uint64_t)(total + a + b));
		total += r;
	}
	show("readv total", total);
	printf("  differing %ld\n", bad);
	return 0;
}

static int
do_mixed(const char *file)
{
	unsigned char *w = malloc((size_t)(2 * MIB));
	int fd = open(file, O_RDWR), fd2 = open(file, O_RDWR);
	long i, r;

	if (w == NULL || fd == -1 || fd2 == -1) {
		show("open", -1);
		return 1;
	}
	for (i = 0; i < 2 * MIB; i++)
		w[i] = (unsigned char)(i * 13 + 5);
	r = read(fd, buf, (size_t)(2 * MIB));
	show_data("read 2 MiB", r, buf);
	show("pwrite 300000 at 1 MiB+5", pwrite(fd, w, 300000, MIB + 5));
	show("lseek 1 MiB", lseek(fd, MIB, SEEK_SET));
	r = read(fd, buf, (size_t)(2 * MIB));
	show_data("read 2 MiB, fresh", r, buf);
	show("write 1.5 MiB", write(fd, w + 1, (size_t)(3 * MIB / 2)));
	r = read(fd2, buf, (size_t)(6 * MIB));
	show_data("other fd: read 6 MiB", r, buf);
	show("lseek -1 MiB", lseek(fd, -MIB, SEEK_CUR));
	r = read(fd, buf, (size_t)(3 * MIB));
	show_data("read 3 MiB", r, buf);
	show("other fd: ftruncate", ftruncate(fd2, 3 * MIB + 1));
	show("lseek 0", lseek(fd, 0, SEEK_SET));
	r = read(fd, buf, (size_t)(8 * MIB));
	show_data("read 8 MiB of 3 MiB+1", r, buf);
	show("read at the end", read(fd, buf, (size_t)MIB));
	show("lseek 10 MiB", lseek(fd, 10 * MIB, SEEK_SET));
	show("write past the end", write(fd, "x", 1));
	show("pwrite 2 MiB at 5 MiB", pwrite(fd2, w, (size_t)(2 * MIB),
	    5 * MIB));
	show("lseek 0", lseek(fd, 0, SEEK_SET));
	r = read(fd, buf, BUFSZ);
	show_data("read all", r, buf);
	show("position", lseek(fd, 0, SEEK_CUR));
	close(fd);
	close(fd2);
	return 0;
}

static int
do_fault(const char *file)
{
	const long hole = 3 * MIB / 2 + 3 * 4096;	/* unmapped page */
	unsigned char *m = mmap(NULL, (size_t)(4 * MIB),
	    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open(file, O_RDONLY), out;
	long r, i;

	if (m == MAP_FAILED || fd == -1 || munmap(m + hole, 4096) == -1) {
		show("setup", -1);
		return 1;
	}
	r = read(fd, m, (size_t)(4 * MIB));
	show_data("read over the hole", r, m);
	show("position", lseek(fd, 0, SEEK_CUR));
	r = read(fd, buf, (size_t)MIB);
	show_data("read after it", r, buf);
	r = pread(fd, m + 4096, (size_t)(2 * MIB), 4096);
	show_data("pread over the hole", r, m + 4096);
	show("position", lseek(fd, 0, SEEK_CUR));
	show("read into the hole", read(fd, m + hole, 100000));
	show("position", lseek(fd, 0, SEEK_CUR));
	r = read(fd, buf, (size_t)MIB);
	show_data("read after it", r, buf);
	for (i = 0; i < hole; i++)
		m[i] = pattern((uint64_t)i);
	if ((out = open("fault_out.bin", O_RDWR | O_CREAT | O_TRUNC,
	    0644)) == -1) {
		show("open fault_out.bin", -1);
		return 1;
	}
	/* How much of a write stops short of a fault depends on the file
	 * system's pages: some of it, at most up to the hole. */
	r = write(out, m, (size_t)(4 * MIB));
	printf("write over the hole          %s\n", r > 0 && r <= hole ?
	    "short, up to the hole at most" : "wrong");
	show("write from the hole", write(out, m + hole, (size_t)MIB));
	printf("size                         %s\n",
	    lseek(out, 0, SEEK_END) == r ? "what was written" : "wrong");
	if (pread(out, buf, (size_t)r, 0) != r || differ(buf, r, 0) != 0)
		printf("written data wrong\n");
	close(out);
	close(fd);
	return 0;
}

static int
do_trunc(const char *file, long mib)
{
	long r, total, bad = 0, passes = 0, after = 0, last = -1;
	int fd = open(file, O_RDONLY), done = 0, seen = 0;

	if (fd == -1) {
		show("open", -1);
		return 1;
	}
	close(open("reading", O_WRONLY | O_CREAT, 0644));
	while (!done) {
		/* Seen before the pass: this pass starts after the
		 * truncation, and must end at its size. */
		done = seen;
		if (!seen && access("truncated", F_OK) == 0)
			seen = 1;
		if (lseek(fd, 0, SEEK_SET) != 0) {
			show("lseek", -1);
			return 1;
		}
		total = 0;
		while ((r = read(fd, buf, (size_t)(6 * MIB + 5))) > 0) {
			bad += differ(buf, r, (uint64_t)total);
			total += r;
		}
		if (r < 0) {
			show("read", -1);
			return 1;
		}
		passes++;
		after += seen;
		last = total;
	}
	printf("passes %s\n", passes > 1 ? "several" : "one");
	printf("differing %ld\n", bad);
	printf("last pass %s\n", last == mib * MIB ? "the new size" :
	    "wrong");
	close(fd);
	return after > 0 ? 0 : 1;
}

static int
do_quota(const char *file)
{
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644), e[3];
	long i, r[3];

	if (fd == -1)
		return 8;
	for (i = 0; i < 8 * MIB + 12345; i++)
		buf[i] = pattern((uint64_t)i);
	r[0] = write(fd, buf, (size_t)(8 * MIB + 12345));
	e[0] = errno;
	/* The second write is cut short inside one of its pieces. */
	for (i = 0; i < 8 * MIB; i++)
		buf[i] = pattern((uint64_t)(i + 8 * MIB + 12345));
	r[1] = write(fd, buf, (size_t)(8 * MIB));
	e[1] = errno;
	r[2] = write(fd, buf, (size_t)MIB);
	e[2] = errno;
	close(fd);
	/* Nothing can be printed past the cap: the exit code tells. */
	return (r[0] == 8 * MIB + 12345 ? 0 : 1) |
	    (r[1] == 4 * MIB - 12345 ? 0 : 2) |
	    (r[2] == -1 && e[2] == EDQUOT ? 0 : 4);
}

int
main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 3 || (buf = malloc(BUFSZ)) == NULL)
		return 2;
	memset(buf, 0, BUFSZ);
	if (strcmp(argv[1], "make") == 0 && argc == 4)
		return do_make(argv[2], atol(argv[3]));
	if (strcmp(argv[1], "seq") == 0)
		return do_seq(argv[2]);
	if (strcmp(argv[1], "mixed") == 0)
		return do_mixed(argv[2]);
	if (strcmp(argv[1], "fault") == 0)
		return do_fault(argv[2]);
	if (strcmp(argv[1], "trunc") == 0 && argc == 4)
		return do_trunc(argv[2], atol(argv[3]));
	if (strcmp(argv[1], "quota") == 0)
		return do_quota(argv[2]);
	return 2;
}
