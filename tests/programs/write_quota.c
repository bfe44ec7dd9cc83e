/*
 * write_quota.c: a standard job that writes the file named in argv[1]
 * in 64 KiB pieces until a write fails or 8 MiB are written, and prints
 * how many bytes went and how the writing ended (run against a
 * shadow's MAX_JOB_WRITE_MB, the line itself may not get out: the
 * exit status says it too, 17 for EDQUOT).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

int
main(int argc, char **argv)
{
	static char buf[65536];
	long long total = 0;
	FILE *f;
	size_t n;

	if (argc < 2 || (f = fopen(argv[1], "w")) == NULL) {
		printf("cannot open\n");
		return 2;
	}
	setvbuf(f, NULL, _IONBF, 0);
	memset(buf, 'x', sizeof(buf));
	while (total < 8LL * 1024 * 1024) {
		errno = 0;
		n = fwrite(buf, 1, sizeof(buf), f);
		total += (long long)n;
		if (n < sizeof(buf)) {
			int quota = errno == EDQUOT;

			printf("wrote %lld, then %s\n", total,
			    quota ? "EDQUOT" : strerror(errno));
			return quota ? 17 : 1;
		}
	}
	printf("wrote %lld, all of it\n", total);
	return 0;
}
