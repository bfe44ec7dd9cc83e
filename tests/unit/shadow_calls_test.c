/*
 * shadow_calls_test.c: the shadow's side of streamed remote I/O
 * (src/shadow/shadow_calls.c, include/syscall_proto.h): a chained
 * request is performed only after a complete one, a piece that fails
 * mid-stream ends the stream there (nothing after it is read or
 * written), an unchained request starts afresh, and a read asked for
 * raw gets its data unpadded.  Requests are served by calls_serve as
 * the server loop serves them, on files in a temporary directory.
 *
 * checks: 16
 */
#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shadow.h"
#include "syscall_table.h"
#include "test.h"

static char	dir[] = "/tmp/shadow_calls_test.XXXXXX";
static uint8_t	req[256], rep[SYSCALL_PROTO_MAX_RECORD];
static uint32_t	rep_len;

/* A pread (job descriptor FD, COUNT bytes at OFF), call number flags
 * FLAGS: the result. */
static long long
pread_req(uint32_t flags, int fd, uint32_t count, long long off)
{
	struct sxdr x;

	sxdr_init(&x, req, sizeof(req));
	sxdr_put_u32(&x, SYS_pread64 | flags);
	sxdr_put_i32(&x, fd);
	sxdr_put_u32(&x, count);
	sxdr_put_i64(&x, off);
	rep_len = calls_serve(req, x.pos, rep, sizeof(rep));
	sxdr_init(&x, rep, rep_len);
	return sxdr_get_i64(&x);
}

/* A pwrite of TEXT at OFF. */
static long long
pwrite_req(uint32_t flags, int fd, const char *text, long long off)
{
	struct sxdr x;

	sxdr_init(&x, req, sizeof(req));
	sxdr_put_u32(&x, SYS_pwrite64 | flags);
	sxdr_put_i32(&x, fd);
	sxdr_put_opaque(&x, text, (uint32_t)strlen(text));
	sxdr_put_i64(&x, off);
	rep_len = calls_serve(req, x.pos, rep, sizeof(rep));
	sxdr_init(&x, rep, rep_len);
	return sxdr_get_i64(&x);
}

/* The file's text (at most 63 bytes). */
static const char *
contents(const char *path)
{
	static char text[64];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	n = fd == -1 ? -1 : read(fd, text, sizeof(text) - 1);
	text[n > 0 ? n : 0] = '\0';
	if (fd != -1)
		close(fd);
	return text;
}

int
main(void)
{
	const uint32_t C = SYSCALL_PROTO_CHAINED, R = SYSCALL_PROTO_RAW_DATA;
	char path[128];
	int fd;

	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/f", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd == -1 || write(fd, "0123456789", 10) != 10) {
		perror(path);
		return 1;
	}
	calls_init();
	calls_set_fd(3, fd);

	/* A stream of reads: complete pieces, then a short one. */
	CHECK("a first piece is performed", pread_req(0, 3, 4, 0) == 4);
	CHECK("a chained piece after a complete one is performed",
	    pread_req(C, 3, 4, 4) == 4);
	CHECK("a short piece returns what there is",
	    pread_req(C, 3, 4, 8) == 2);
	CHECK("a chained piece after a short one is cancelled",
	    pread_req(C, 3, 4, 12) == -ECANCELED);
	CHECK("so is every chained piece after it",
	    pread_req(C, 3, 4, 0) == -ECANCELED);
	CHECK("an unchained request starts afresh", pread_req(0, 3, 4, 0) == 4);

	/* A piece that fails mid-stream: nothing after it is performed. */
	CHECK("a complete piece", pwrite_req(0, 3, "ab", 0) == 2);
	CHECK("a piece that fails mid-stream reports its error",
	    pwrite_req(C, 3, "cd", -1) == -EINVAL);
	CHECK("the chained write after it is cancelled",
	    pwrite_req(C, 3, "ef", 4) == -ECANCELED);
	CHECK_STR("and was not performed", contents(path), "ab23456789");
	CHECK("a read error mid-stream is reported",
	    pread_req(0, 3, 4, 0) == 4 && pread_req(C, 3, 4, -1) == -EINVAL);
	CHECK("a chained piece on a closed descriptor is cancelled, not EBADF",
	    pread_req(C, 9, 4, 0) == -ECANCELED);

	/* A malformed request breaks the chain as well. */
	pread_req(0, 3, 4, 0);
	calls_break_chain();
	CHECK("a chained piece after a request not served is cancelled",
	    pread_req(C, 3, 4, 0) == -ECANCELED);

	/* Data padded to 4, or raw. */
	CHECK("a read's data is padded to 4",
	    pread_req(0, 3, 3, 0) == 3 && rep_len == 8 + 4 + 4);
	CHECK("a read asked for raw data ends with its last byte",
	    pread_req(R, 3, 3, 0) == 3 && rep_len == 8 + 4 + 3 &&
	    memcmp(rep + 12, "ab2", 3) == 0);
	CHECK("a raw chained piece is cancelled all the same",
	    pread_req(R, 3, 4, 8) == 2 && pread_req(C | R, 3, 4, 10) ==
	    -ECANCELED && rep_len == 8);

	calls_close_all();
	unlink(path);
	rmdir(dir);
	TEST_EXIT();
}
