/*
 * files: the open-file table across checkpoints.  Reads input.dat (made
 * by `files init`) half before and half after wherever a checkpoint
 * lands, with a CRC; appends to out.log through descriptor 15 only
 * (O_APPEND, dup2, the original closed); writes report.txt through
 * stdio; lists a directory with readdir spread over the run; works in a
 * subdirectory after chdir; reads with pread and lseek.  Prints results.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define INPUT	(4 << 20)

static unsigned long
crc(unsigned long c, const unsigned char *p, size_t n)
{
	int k;

	c = ~c;
	while (n-- > 0) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320UL & (0UL - (c & 1)));
	}
	return ~c & 0xffffffffUL;
}

static unsigned long
file_crc(const char *path, long *size)
{
	unsigned char buf[65536];
	unsigned long c = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	*size = 0;
	if (fd == -1)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		c = crc(c, buf, (size_t)n);
		*size += n;
	}
	close(fd);
	return c;
}

static int
cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
busy(long n)
{
	volatile unsigned long x = 1;

	while (n-- > 0)
		x = x * 6364136223846793005UL + 1;
}

int
main(int argc, char **argv)
{
	unsigned char buf[4096];
	char *names[64];
	unsigned long c = 0;
	long size, chunk = 0;
	int in, out, sparse, nnames = 0, i;
	FILE *rep;
	DIR *d;
	struct dirent *de;
	ssize_t n;

	if (argc > 1 && strcmp(argv[1], "init") == 0) {
		unsigned long x = 12345;
		int fd = open("input.dat", O_WRONLY | O_CREAT | O_TRUNC, 0644);

		for (i = 0; i < INPUT / 8; i++) {
			x = x * 6364136223846793005UL + 1442695040888963407UL;
			if (write(fd, &x, 8) != 8)
				return 1;
		}
		close(fd);
		return 0;
	}
	mkdir("data", 0755);
	for (i = 0; i < 24; i++) {
		char name[64];
		FILE *f;

		snprintf(name, sizeof(name), "data/entry%02d", i);
		if ((f = fopen(name, "w")) != NULL) {
			fprintf(f, "entry %d\n", i);
			fclose(f);
		}
	}
	unlink("out.log");
	if ((in = open("input.dat", O_RDONLY)) == -1 ||
	    (out = open("out.log", O_WRONLY | O_CREAT | O_APPEND, 0644)) == -1 ||
	    (rep = fopen("report.txt", "w")) == NULL ||
	    (d = opendir("data")) == NULL) {
		perror("files");
		return 1;
	}
	if (dup2(out, 15) != 15)
		return 1;
	close(out);
	/* A sparse file written past 2 GiB, across the checkpoints. */
	if ((sparse = open("sparse.dat", O_RDWR | O_CREAT | O_TRUNC, 0644)) == -1 ||
	    lseek(sparse, 3LL << 30, SEEK_SET) != 3LL << 30 ||
	    write(sparse, "A", 1) != 1)
		return 1;
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		c = crc(c, buf, (size_t)n);
		if (chunk % 16 == 0) {
			char line[80];
			int len = snprintf(line, sizeof(line), "chunk %ld crc %08lx\n",
			    chunk, c);

			if (write(15, line, (size_t)len) != len)
				return 1;
			fprintf(rep, "report %ld %08lx\n", chunk, c);
		}
		if (chunk % 40 == 0 && (de = readdir(d)) != NULL) {
			if (de->d_name[0] != '.' && nnames < 64)
				names[nnames++] = strdup(de->d_name);
		}
		busy(900000);
		chunk++;
	}
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.' && nnames < 64)
			names[nnames++] = strdup(de->d_name);
	closedir(d);
	printf("input crc %08lx in %ld chunks\n", c, chunk);
	printf("append flag kept: %s\n",
	    fcntl(15, F_GETFL) & O_APPEND ? "yes" : "no");
	{
		unsigned char a[16], b[16];

		if (pread(in, a, 16, 1000) != 16 ||
		    lseek(in, 1000, SEEK_SET) != 1000 || read(in, b, 16) != 16)
			return 1;
		printf("pread and lseek agree: %s\n",
		    memcmp(a, b, 16) == 0 ? "yes" : "no");
	}
	close(in);
	close(15);
	if (write(sparse, "B", 1) != 1)
		return 1;
	{
		char ab[3] = "";

		printf("offset past 2 GiB kept: %s\n",
		    pread(sparse, ab, 2, 3LL << 30) == 2 && ab[0] == 'A' &&
		    ab[1] == 'B' && lseek(sparse, 0, SEEK_CUR) == (3LL << 30) + 2 ?
		    "yes" : "no");
	}
	close(sparse);
	unlink("sparse.dat");
	fclose(rep);
	qsort(names, (size_t)nnames, sizeof(names[0]), cmp);
	printf("directory:");
	for (i = 0; i < nnames; i++)
		printf(" %s", names[i]);
	printf("\n");
	if (chdir("data") == -1)
		return 1;
	c = file_crc("entry07", &size);
	printf("after chdir: entry07 crc %08lx size %ld\n", c, size);
	if (chdir("..") == -1)
		return 1;
	c = file_crc("out.log", &size);
	printf("out.log crc %08lx size %ld\n", c, size);
	c = file_crc("report.txt", &size);
	printf("report.txt crc %08lx size %ld\n", c, size);
	return 0;
}
