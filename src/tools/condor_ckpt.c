/*
 * condor_ckpt: describe, check and build checkpoint files.
 *
 *	condor_ckpt info FILE
 *	condor_ckpt merge EXE CORE -o OUT
 *	condor_ckpt merge CKPT DELTA... -o OUT
 *
 * info prints what a checkpoint (or a core written by the checkpoint
 * library) holds: the program, when and why it was taken, its memory
 * regions with what was saved of each, its open files and offsets, its
 * signal dispositions, mask, pending signals and timers; and it verifies
 * every checksum (the executable part, each memory extent, the restart
 * state); and it says how a restart run here by this user would bring
 * the memory back: on demand through userfaultfd, or all of it before
 * the program runs, and why (src/libckpt/ckpt_lazy.c decides the same
 * way).  Of a delta (an incremental checkpoint) it says which image it
 * follows and what it holds, and verifies its checksums.  Exit status 0 if all is well, 1 with the reason on stderr if
 * anything is wrong: truncated, corrupted, foreign.
 *
 * merge builds a checkpoint from the relinked executable EXE (or an
 * earlier checkpoint of it) and a CORE the library wrote (CONDOR_CKPT_CORE
 * in condor_cc(1)), as the starter does: written under a temporary name,
 * fsynced, verified, then renamed to OUT.  OUT "-" streams it to stdout.
 * Given a checkpoint and deltas of it instead (the incremental
 * checkpoints the library writes as CKPT.delta1, CKPT.delta2, ...), merge
 * folds them in order into one checkpoint OUT, which a restart runs:
 * every checksum of the checkpoint and of each delta is verified first,
 * each delta must apply to the image before it, and a damaged or
 * misplaced one is refused by name (OUT is then left as it was; the
 * deltas before it still fold).
 * The format is in include/ckptfile.h.
 */
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ckptfile.h"
#include "log.h"

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: condor_ckpt info FILE\n"
	    "       condor_ckpt merge EXE CORE -o OUT\n"
	    "       condor_ckpt merge CKPT DELTA... -o OUT\n"
	    "  info   describe a checkpoint and verify every checksum\n"
	    "         (exit 1 with the reason if it is damaged)\n"
	    "  merge  build the checkpoint OUT (- for stdout) from a relinked\n"
	    "         executable and a core its checkpoint library wrote,\n"
	    "         or from a checkpoint and its deltas, in order\n"
	    "  -h     print this help\n");
}

#ifndef USERFAULTFD_IOC_NEW
#define USERFAULTFD_IOC_NEW	_IO(0xAA, 0x00)
#endif
#define LAZY_MIN	(4UL << 20)	/* ckpt_lazy.c */

/* NULL if this user may have a userfaultfd that follows forks, as a
 * restart outside Condor needs; else why not. */
static const char *
userfaultfd_refused(void)
{
	struct uffdio_api api;
	int fd, dev = -1;

	fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (fd == -1 && (dev = open("/dev/userfaultfd", O_RDWR |
	    O_CLOEXEC)) != -1)
		fd = ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC | O_NONBLOCK);
	if (dev != -1)
		close(dev);
	if (fd == -1)
		return "userfaultfd is not permitted (vm.unprivileged_userfaultfd "
		    "is 0 and /dev/userfaultfd is not open to this user)";
	memset(&api, 0, sizeof(api));
	api.api = UFFD_API;
	api.features = UFFD_FEATURE_EVENT_FORK | UFFD_FEATURE_EVENT_REMAP |
	    UFFD_FEATURE_EVENT_REMOVE | UFFD_FEATURE_EVENT_UNMAP;
	if (ioctl(fd, UFFDIO_API, &api) == -1) {
		close(fd);
		return "userfaultfd cannot follow a fork here "
		    "(UFFD_FEATURE_EVENT_FORK needs CAP_SYS_PTRACE)";
	}
	close(fd);
	return NULL;
}

static void
say_restore(const struct ckpt_head *h)
{
	uint64_t lazy = ckpt_lazy_bytes(h);
	const char *why = NULL;

	if (lazy == 0)
		why = "no memory to restore on demand";
	else if (lazy < LAZY_MIN)
		why = "too little memory to be worth restoring on demand";
	else
		why = userfaultfd_refused();
	if (why == NULL)
		printf("restore       run here: %llu KiB of heap and anonymous "
		    "memory on demand (userfaultfd), the rest first\n",
		    (unsigned long long)(lazy >> 10));
	else
		printf("restore       run here: all memory first (%s)\n", why);
}

static int
cmd_info(const char *path)
{
	struct ckpt_file_info ci;
	char err[1024];

	if (ckpt_is_delta(path) == 1) {
		if (ckpt_delta_describe(path, stdout, err, sizeof(err)) == -1) {
			fflush(stdout);
			fprintf(stderr, "condor_ckpt: %s\n", err);
			return 1;
		}
		return 0;
	}
	if (ckpt_open(path, &ci, err, sizeof(err)) == -1) {
		fprintf(stderr, "condor_ckpt: %s\n", err);
		return 1;
	}
	ckpt_describe(&ci, stdout);
	if (!ci.is_core)
		say_restore(ci.head);
	fflush(stdout);
	if (ckpt_verify(&ci, err, sizeof(err)) == -1) {
		fprintf(stderr, "condor_ckpt: %s: %s\n", path, err);
		ckpt_close(&ci);
		return 1;
	}
	printf("checksums     all %u extents%s and the restart state "
	    "verified\n", ci.head->nextents, ci.is_core ? "" :
	    ", the executable part");
	ckpt_close(&ci);
	return 0;
}

static int
cmd_merge(int argc, char **argv)
{
	const char *out = NULL;
	char err[1024], **pos;
	int i, n = 0, rc;

	pos = calloc((size_t)argc + 1, sizeof(*pos));
	if (pos == NULL) {
		fprintf(stderr, "condor_ckpt: out of memory\n");
		return 1;
	}
	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
			out = argv[++i];
		else
			pos[n++] = argv[i];
	}
	if (n < 2 || out == NULL) {
		free(pos);
		usage(stderr);
		return 2;
	}
	if (ckpt_is_delta(pos[1]) == 1) {
		/* A checkpoint and its deltas. */
		if (strcmp(out, "-") == 0)
			rc = ckpt_fold(pos[0], pos + 1, n - 1, STDOUT_FILENO,
			    err, sizeof(err)) < 0 ? -1 : 0;
		else
			rc = ckpt_fold_install(pos[0], pos + 1, n - 1, out,
			    err, sizeof(err));
	} else if (n != 2) {
		free(pos);
		usage(stderr);
		return 2;
	} else if (strcmp(out, "-") == 0)
		rc = ckpt_merge(pos[0], pos[1], STDOUT_FILENO, err,
		    sizeof(err)) < 0 ? -1 : 0;
	else
		rc = ckpt_merge_install(pos[0], pos[1], out, err, sizeof(err));
	free(pos);
	if (rc == -1) {
		fprintf(stderr, "condor_ckpt: %s\n", err);
		return 1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	log_init("condor_ckpt");
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "info") == 0 && argc == 3)
		return cmd_info(argv[2]);
	if (strcmp(argv[1], "merge") == 0)
		return cmd_merge(argc - 2, argv + 2);
	usage(stderr);
	return 2;
}
