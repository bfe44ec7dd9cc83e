/*
 * remote_files.c: a job that exercises the file system calls a relinked
 * program forwards to its shadow.  Its output must be byte-identical
 * whether it runs natively or under Condor (tests/pool/
 * remote_syscalls_test.sh): nothing in it depends on the host, the
 * directory's name, times or inode numbers.
 *
 * Expects in its working directory: in.txt (text), app.txt (exists),
 * noperm.txt (mode 000, for EACCES when not run as root); reads its
 * standard input.
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *
ename(int e)
{
	switch (e) {
	case 0: return "OK";
	case ENOENT: return "ENOENT";
	case EISDIR: return "EISDIR";
	case EACCES: return "EACCES";
	case EEXIST: return "EEXIST";
	case ENOTEMPTY: return "ENOTEMPTY";
	case ENOTDIR: return "ENOTDIR";
	case EBADF: return "EBADF";
	case EINVAL: return "EINVAL";
	}
	return "other";
}

#define TRY(what, expr) do { errno = 0; long r_ = (long)(expr); \
	printf("%-28s %s\n", what, r_ == -1 ? ename(errno) : "OK"); } while (0)

static int
cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
main(void)
{
	char line[256], buf[8192], *names[64];
	unsigned long sum = 0;
	struct stat st;
	FILE *f;
	DIR *d;
	struct dirent *de;
	int fd, saved, n = 0, i, lines = 0;
	ssize_t r;

	/* Standard input. */
	while (fgets(line, sizeof(line), stdin) != NULL)
		lines++;
	printf("stdin lines: %d\n", lines);

	/* Read a file with stdio. */
	lines = 0;
	if ((f = fopen("in.txt", "r")) == NULL) {
		perror("in.txt");
		return 1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		lines++;
		sum += strlen(line);
	}
	fclose(f);
	printf("in.txt: %d lines, %lu bytes\n", lines, sum);

	/* Write, append. */
	f = fopen("out.txt", "w");
	for (i = 0; i < 1000; i++)
		fprintf(f, "line %d of out.txt\n", i);
	fclose(f);
	fd = open("app.txt", O_WRONLY | O_APPEND);
	TRY("append", write(fd, "appended\n", 9));
	close(fd);

	/* Seek, pread, pwrite; a file larger than any chunk. */
	fd = open("big.bin", O_RDWR | O_CREAT | O_TRUNC, 0644);
	for (i = 0; i < 300; i++) {
		memset(buf, 'a' + i % 26, sizeof(buf));
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			printf("short write\n");
	}
	TRY("pwrite", pwrite(fd, "XYZ", 3, 100000));
	printf("lseek end: %ld\n", (long)lseek(fd, 0, SEEK_END));
	printf("lseek set: %ld\n", (long)lseek(fd, 99999, SEEK_SET));
	r = read(fd, buf, 5);
	printf("read at 99999: %zd %.5s\n", r, buf);
	r = pread(fd, buf, 3, 8192 * 299);
	printf("pread: %zd %.3s\n", r, buf);
	lseek(fd, 0, SEEK_SET);
	{
		static char whole[300 * 8192];
		unsigned long h = 5381;

		r = read(fd, whole, sizeof(whole));
		for (i = 0; i < r; i++)
			h = h * 33 + (unsigned char)whole[i];
		printf("whole read: %zd hash %lx\n", r, h);
	}
	fstat(fd, &st);
	printf("big.bin size %ld mode %o\n", (long)st.st_size,
	    (unsigned)st.st_mode & 07777);
	close(fd);

	/* The file mapped: whole, from an offset, past its end (zeros),
	 * written privately (the file unchanged), and refused ones. */
	fd = open("big.bin", O_RDONLY);
	{
		unsigned char *m;
		unsigned long h = 5381;
		long len = 300 * 8192;
		int tfd;

		m = mmap(NULL, (size_t)len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED)
			printf("mmap whole: %s\n", ename(errno));
		else {
			for (i = 0; i < len; i++)
				h = h * 33 + m[i];
			printf("mmap whole: hash %lx\n", h);
			munmap(m, (size_t)len);
		}
		/* in.txt is shorter than a page: the rest reads as zeros. */
		tfd = open("in.txt", O_RDONLY);
		fstat(tfd, &st);
		m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, tfd, 0);
		if (m == MAP_FAILED || st.st_size >= 4096)
			printf("mmap in.txt: %s\n", ename(errno));
		else {
			printf("mmap in.txt: ends \"%.9s\", then %d %d\n",
			    (char *)m + st.st_size - 10, m[st.st_size],
			    m[4095]);
			munmap(m, 4096);
		}
		close(tfd);
		m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd,
		    8192 * 12);
		if (m == MAP_FAILED)
			printf("mmap at 12 pages: %s\n", ename(errno));
		else {
			printf("mmap at 12 pages: %c%c\n", m[0], m[8191]);
			m[0] = '!';
			printf("private write seen: %c\n", m[0]);
			munmap(m, 8192);
		}
		r = pread(fd, buf, 1, 8192 * 12);
		printf("the file after it: %c\n", buf[0]);
		m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		printf("mmap shared writable, read-only fd: %s\n",
		    m == MAP_FAILED ? ename(errno) : "OK");
		m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 100);
		printf("mmap at an odd offset: %s\n",
		    m == MAP_FAILED ? ename(errno) : "OK");
		m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, 77, 0);
		printf("mmap of a bad fd: %s\n",
		    m == MAP_FAILED ? ename(errno) : "OK");
	}
	close(fd);
	fd = open("big.bin", O_WRONLY);
	{
		void *m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);

		printf("mmap of a write-only fd: %s\n",
		    m == MAP_FAILED ? ename(errno) : "OK");
	}
	close(fd);

	/* dup2 onto stdout. */
	fflush(stdout);
	saved = dup(1);
	fd = open("dup.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 1);
	close(fd);
	printf("this went to dup.txt\n");
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	stat("dup.txt", &st);
	printf("dup.txt size %ld\n", (long)st.st_size);

	/* Directories. */
	TRY("mkdir sub", mkdir("sub", 0755));
	TRY("mkdir sub again", mkdir("sub", 0755));
	for (i = 0; i < 5; i++) {
		snprintf(line, sizeof(line), "sub/file%d", i);
		f = fopen(line, "w");
		fprintf(f, "%d\n", i * i);
		fclose(f);
	}
	d = opendir("sub");
	while ((de = readdir(d)) != NULL && n < 64)
		if (de->d_name[0] != '.')
			names[n++] = strdup(de->d_name);
	closedir(d);
	qsort(names, (size_t)n, sizeof(names[0]), cmp);
	printf("sub:");
	for (i = 0; i < n; i++)
		printf(" %s", names[i]);
	printf("\n");
	TRY("rmdir non-empty", rmdir("sub"));
	TRY("rename", rename("sub/file0", "sub/renamed"));
	TRY("stat renamed", stat("sub/renamed", &st));
	TRY("stat old name", stat("sub/file0", &st));
	TRY("chdir sub", chdir("sub"));
	getcwd(line, sizeof(line));
	printf("cwd ends in: %s\n", strrchr(line, '/'));
	TRY("access renamed R_OK", access("renamed", R_OK));
	TRY("chdir ..", chdir(".."));
	for (i = 1; i < 5; i++) {
		snprintf(line, sizeof(line), "sub/file%d", i);
		TRY("unlink", unlink(line));
	}
	TRY("unlink renamed", unlink("sub/renamed"));
	TRY("rmdir sub", rmdir("sub"));
	TRY("stat sub", stat("sub", &st));

	/* Errors as natively. */
	TRY("open missing", open("no/such/file", O_RDONLY));
	TRY("open dir for write", open(".", O_WRONLY));
	TRY("open noperm", open("noperm.txt", O_RDONLY));
	TRY("chdir to a file", chdir("in.txt"));
	TRY("close bad fd", close(77));
	TRY("read bad fd", read(77, buf, 1));
	TRY("unlink missing", unlink("missing"));

	/* A raw system call from the program's own code. */
	fd = (int)syscall(SYS_openat, AT_FDCWD, "raw.txt",
	    O_WRONLY | O_CREAT | O_TRUNC, 0644);
	TRY("raw openat", fd);
	TRY("raw write", syscall(SYS_write, fd, "raw\n", 4));
	TRY("raw close", syscall(SYS_close, fd));
	TRY("truncate", truncate("raw.txt", 2));
	stat("raw.txt", &st);
	printf("raw.txt size %ld\n", (long)st.st_size);

	fprintf(stderr, "to stderr: done\n");
	printf("done\n");
	return 3;
}
