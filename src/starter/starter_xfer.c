/*
 * starter_xfer.c: the files a vanilla job transfers, on the execute
 * side (the shadow's side: src/shadow/shadow_xfer.c).
 *
 * Inputs are made in the execute directory before the job runs, by
 * descriptors from the directory down, each name checked (relative, no
 * "..", not one of the starter's own files): a hostile shadow cannot
 * make the starter write outside the job's directory.  Each file's
 * CRC-32 is checked against the shadow's, and its size against the
 * list.
 *
 * Outputs are read after the job ended, again by descriptors, never
 * through a symbolic link, and only files of the job's own account: a
 * job cannot have the starter send the submitter a file it could not
 * read itself.  Without TransferOutput, what goes back is every regular
 * file at the top of the directory that the job made or changed (not
 * the executable, the starter's _condor_ files, or an input it left as
 * it came); with it, exactly the files and directories it names, and
 * one missing is reported, which holds the job.
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ad.h"
#include "config.h"
#include "crc.h"
#include "event.h"
#include "fdio.h"
#include "log.h"
#include "rpcutil.h"
#include "shadow_rpc.h"
#include "starter.h"
#include "xalloc.h"
#include "xfer.h"

#define XFER_MAX_DEPTH		64
#define XFER_MAX_OUTPUTS	100000

/* The transfer stream to the shadow, once opened; -1. */
static int	 stream = -1;

/* Open the stream (include/shadow_rpc.x); 0, or -1 with ERR. */
static int
stream_open(struct starter_job *job, char *err, size_t errlen)
{
	struct sockaddr_in sa;
	struct timeval tv;
	char addr[128], why[256];
	long timeout = param_int("RPC_TIMEOUT", 20);
	int fd, one = 1, r;

	if (stream != -1)
		return 0;
	if ((r = shadow_xfer_open(addr, sizeof(addr), why,
	    sizeof(why))) != 0) {
		snprintf(err, errlen, "no transfer stream from the shadow: %s",
		    r == -1 ? "it is gone" : why);
		return -1;
	}
	tv.tv_sec = timeout > 0 ? timeout : 20;
	tv.tv_usec = 0;
	if (addr_parse(addr, &sa) == -1 ||
	    (fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		snprintf(err, errlen, "bad transfer address \"%s\"", addr);
		return -1;
	}
	/* Every read, write and the connect itself within RPC_TIMEOUT. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) == -1 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
	    xfer_hello_send(fd, job->capability ? job->capability : "") ==
	    -1) {
		snprintf(err, errlen, "cannot open the transfer stream at %s: "
		    "%s", addr, strerror(errno));
		close(fd);
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	stream = fd;
	return 0;
}

static void
stream_close(void)
{
	if (stream != -1)
		close(stream);
	stream = -1;
}

/* Input INDEX of SIZE bytes from the stream into FD; 0, an errno from
 * the shadow (WHY says), or -1 (the stream is lost, WHY says). */
static int
stream_get(int index, long long size, int fd, char *why, size_t whylen)
{
	xfer_req_x q;
	xfer_hdr_x h;
	xfer_trailer_x t;
	uint32_t crc = 0;

	memset(&q, 0, sizeof(q));
	q.op = XFER_SEND_INPUT;
	q.index = index;
	if (xfer_frame_send(stream, (xdrproc_t)xdr_xfer_req_x, &q) == -1 ||
	    xfer_frame_recv(stream, (xdrproc_t)xdr_xfer_hdr_x, &h, 12) ==
	    -1) {
		snprintf(why, whylen, "the transfer stream broke");
		return -1;
	}
	if (h.code != 0) {
		snprintf(why, whylen, "the shadow cannot read it: %s",
		    strerror(h.code));
		return h.code;
	}
	if (h.size != size) {
		snprintf(why, whylen, "%lld bytes, listed %lld (it changed "
		    "while it was sent)", (long long)h.size, size);
		return -1;
	}
	if (xfer_recv_file(stream, fd, size, &crc) == -1) {
		snprintf(why, whylen, "not received whole: %s",
		    strerror(errno));
		return -1;
	}
	if (xfer_frame_recv(stream, (xdrproc_t)xdr_xfer_trailer_x, &t, 4) ==
	    -1) {
		snprintf(why, whylen, "the transfer stream broke");
		return -1;
	}
	if (t.crc32c != crc) {
		snprintf(why, whylen, "CRC-32C %08x, the shadow's %08x",
		    (unsigned)crc, t.crc32c);
		return -1;
	}
	return 0;
}

/* The inputs at the top of the directory, as they were made. */
struct made {
	char		*name;
	long long	 size;
	struct timespec	 mtime;
};

static struct made	*made;
static size_t		 nmade, capmade;

/* Whether NAME (its first component) is the starter's own. */
static int
reserved(const char *name)
{
	size_t len = strcspn(name, "/");

	return (len == strlen(STARTER_EXE) &&
	    strncmp(name, STARTER_EXE, len) == 0) ||
	    strncmp(name, "_condor_", 8) == 0;
}

/* The directory holding NAME's last component, opened from DFD without
 * following links; *LAST points at that component.  -1 if missing. */
static int
open_parent(int dfd, const char *name, const char **last)
{
	char part[XFER_NAME_LEN];
	const char *s = name, *slash;
	int fd = dup(dfd), next;

	while (fd != -1 && (slash = strchr(s, '/')) != NULL) {
		snprintf(part, sizeof(part), "%.*s", (int)(slash - s), s);
		next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		close(fd);
		fd = next;
		s = slash + 1;
	}
	*last = s;
	return fd;
}

static void
remember(const char *name, const struct stat *st)
{
	if (strchr(name, '/') != NULL)
		return;
	if (nmade == capmade) {
		capmade = capmade ? capmade * 2 : 16;
		made = xreallocarray(made, capmade, sizeof(*made));
	}
	made[nmade].name = xstrdup(name);
	made[nmade].size = (long long)st->st_size;
	made[nmade].mtime = st->st_mtim;
	nmade++;
}

/* Make one input; 0, or -1 with ERR (*JOBS_FAULT if the shadow could
 * not read the owner's file). */
static int
fetch_one(struct starter_job *job, int dfd, int index, const xfer_entry_x *e,
    char *err, size_t errlen, int *jobs_fault)
{
	char why[512];
	const char *last;
	struct stat st;
	int pfd, fd, r;

	if (e->name == NULL || !xfer_name_ok(e->name) || reserved(e->name)) {
		snprintf(err, errlen, "the shadow named an input \"%s\", "
		    "which is not a name the job's directory may hold",
		    e->name ? e->name : "");
		return -1;
	}
	if ((pfd = open_parent(dfd, e->name, &last)) == -1) {
		snprintf(err, errlen, "input %s: its directory is missing",
		    e->name);
		return -1;
	}
	if (e->kind == XFER_DIR) {
		r = mkdirat(pfd, last, 0700);
		if (r == 0 && geteuid() == 0 && fchownat(pfd, last, job->uid,
		    job->gid, AT_SYMLINK_NOFOLLOW) == -1)
			r = -1;
		if (r == 0 && fchmodat(pfd, last, 0700 | (e->mode & 0777),
		    0) == -1)
			r = -1;
		if (r == -1)
			snprintf(err, errlen, "cannot make the directory %s: "
			    "%s", e->name, strerror(errno));
		close(pfd);
		return r;
	}
	if (e->kind != XFER_FILE) {
		close(pfd);
		snprintf(err, errlen, "input %s of unknown kind", e->name);
		return -1;
	}
	fd = openat(pfd, last, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	close(pfd);
	if (fd == -1) {
		snprintf(err, errlen, "cannot create %s: %s", e->name,
		    strerror(errno));
		return -1;
	}
	if ((r = stream_open(job, why, sizeof(why))) == 0 &&
	    (r = stream_get(index, e->size, fd, why, sizeof(why))) == -1)
		stream_close();
	if (r == 0 && ((geteuid() == 0 && fchown(fd, job->uid,
	    job->gid) == -1) || fchmod(fd, 0600 | (e->mode & 0777)) == -1 ||
	    fstat(fd, &st) == -1)) {
		snprintf(why, sizeof(why), "%s", strerror(errno));
		r = EIO;
	}
	if (close(fd) == -1 && r == 0) {
		snprintf(why, sizeof(why), "%s", strerror(errno));
		r = EIO;
	}
	if (r != 0) {
		snprintf(err, errlen, "Transfer input file %s: %s", e->name,
		    why);
		*jobs_fault = r > 0 && r != EIO;
		return -1;
	}
	remember(e->name, &st);
	return 0;
}

int
xfer_fetch_inputs(struct starter_job *job, char *err, size_t errlen,
    int *jobs_fault)
{
	xfer_list_res_x res;
	long long bytes = 0;
	double t0 = monotime();
	unsigned i;
	int start = 0, more = 1, dfd, r = 0, files = 0;

	if (job->shared_fs)
		return 0;	/* they are where it runs */
	if ((dfd = open(job->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
	    -1) {
		snprintf(err, errlen, "cannot open %s: %s", job->dir,
		    strerror(errno));
		return -1;
	}
	while (r == 0 && more) {
		if (shadow_input_list(start, &res) == -1) {
			snprintf(err, errlen, "the shadow is gone");
			r = -1;
			break;
		}
		if (res.code != 0) {
			snprintf(err, errlen, "the shadow's input list: %s",
			    res.message ? res.message : "refused");
			r = -1;
		}
		for (i = 0; r == 0 && i < res.entries.entries_len; i++) {
			xfer_entry_x *e = &res.entries.entries_val[i];

			r = fetch_one(job, dfd, start + (int)i, e, err, errlen,
			    jobs_fault);
			if (e->kind == XFER_FILE) {
				files++;
				bytes += e->size;
			}
		}
		more = res.more && res.entries.entries_len > 0;
		start += (int)res.entries.entries_len;
		xdr_free((xdrproc_t)xdr_xfer_list_res_x, (char *)&res);
	}
	close(dfd);
	stream_close();
	if (r == 0 && start > 0)
		log_info("transferred %d input files (%lld bytes) in %.3f s",
		    files, bytes, monotime() - t0);
	return r;
}

/* Whether the top-level NAME is an input the job left as it came. */
static int
unchanged_input(const char *name, const struct stat *st)
{
	size_t i;

	for (i = 0; i < nmade; i++)
		if (strcmp(made[i].name, name) == 0)
			return made[i].size == (long long)st->st_size &&
			    made[i].mtime.tv_sec == st->st_mtim.tv_sec &&
			    made[i].mtime.tv_nsec == st->st_mtim.tv_nsec;
	return 0;
}

struct sender {
	struct starter_job	*job;
	int			 evicted;
	int			 count;
	long long		 bytes;
	int			 stop;	/* the shadow refused or is gone */
};

/* Tell the shadow NAME is missing (WHY). */
static void
send_missing(struct sender *s, const char *name, const char *why)
{
	char err[512];
	xfer_begin_x b;

	memset(&b, 0, sizeof(b));
	b.entry.name = (char *)name;
	b.entry.kind = XFER_MISSING;
	b.evicted = s->evicted;
	b.message = (char *)why;
	log_warnx("output %s: %s", name, why);
	if (shadow_output_begin(&b, err, sizeof(err)) != 0)
		s->stop = 1;
}

/* Send the regular file FD, known to the shadow as NAME. */
static void
send_file(struct sender *s, int fd, const char *name, const struct stat *st)
{
	char err[512];
	xfer_begin_x b;
	xfer_req_x q;
	xfer_hdr_x h;
	xfer_trailer_x t;
	long long off = 0;
	uint32_t crc = 0;
	int r;

	if (stream_open(s->job, err, sizeof(err)) == -1) {
		log_warnx("output %s: %s", name, err);
		s->stop = 1;
		return;
	}

	memset(&b, 0, sizeof(b));
	b.entry.name = (char *)name;
	b.entry.kind = XFER_FILE;
	b.entry.mode = (unsigned)st->st_mode & 0777;
	b.entry.size = st->st_size;
	b.evicted = s->evicted;
	b.message = "";
	if ((r = shadow_output_begin(&b, err, sizeof(err))) != 0) {
		log_warnx("output %s refused: %s", name, err);
		s->stop = 1;
		return;
	}
	memset(&q, 0, sizeof(q));
	q.op = XFER_RECV_OUTPUT;
	q.size = st->st_size;
	if (xfer_frame_send(stream, (xdrproc_t)xdr_xfer_req_x, &q) == -1)
		goto lost;
	if (xfer_send_file(stream, fd, st->st_size, &crc) == -1)
		goto lost;	/* gone, or it shrank: the stream cannot say */
	off = st->st_size;
	t.crc32c = crc;
	if (xfer_frame_send(stream, (xdrproc_t)xdr_xfer_trailer_x, &t) ==
	    -1 || xfer_frame_recv(stream, (xdrproc_t)xdr_xfer_hdr_x, &h,
	    12) == -1)
		goto lost;
	if (h.code != 0) {
		log_warnx("output %s refused: %s", name, strerror(h.code));
		s->stop = 1;
		return;
	}
	if ((r = shadow_output_end(off, crc, err, sizeof(err))) != 0) {
		log_warnx("output %s refused: %s", name, err);
		s->stop = 1;
		return;
	}
	s->count++;
	s->bytes += off;
	return;
lost:
	log_warnx("output %s: the transfer stream broke", name);
	stream_close();
	s->stop = 1;
}

/* Send NAME, opened from DFD as LAST; directories to DEPTH. */
static void
send_entry(struct sender *s, int dfd, const char *last, const char *name,
    int depth, int named)
{
	struct dirent *e;
	struct stat st;
	char *sub;
	DIR *d;
	int fd;

	if (s->stop)
		return;
	fd = openat(dfd, last, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
	    O_CLOEXEC);
	if (fd == -1 || fstat(fd, &st) == -1) {
		if (named)
			send_missing(s, name, errno == ELOOP ?
			    "a symbolic link: not transferred" :
			    strerror(errno));
		if (fd != -1)
			close(fd);
		return;
	}
	if (st.st_uid != s->job->uid) {
		/* Not the job's: nothing it may hand out. */
		if (named)
			send_missing(s, name, "not a file of the job's");
		close(fd);
		return;
	}
	if (S_ISREG(st.st_mode)) {
		if (s->count >= XFER_MAX_OUTPUTS) {
			send_missing(s, name, "more than 100000 outputs");
			s->stop = 1;
		} else
			send_file(s, fd, name, &st);
		close(fd);
		return;
	}
	if (!S_ISDIR(st.st_mode) || depth > XFER_MAX_DEPTH) {
		if (named)
			send_missing(s, name, S_ISDIR(st.st_mode) ?
			    "too deep" : "not a file or a directory");
		close(fd);
		return;
	}
	{
		char err[512];
		xfer_begin_x b;

		memset(&b, 0, sizeof(b));
		b.entry.name = (char *)name;
		b.entry.kind = XFER_DIR;
		b.entry.mode = (unsigned)st.st_mode & 0777;
		b.evicted = s->evicted;
		b.message = "";
		if (shadow_output_begin(&b, err, sizeof(err)) != 0) {
			log_warnx("output %s refused: %s", name, err);
			s->stop = 1;
			close(fd);
			return;
		}
	}
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while (!s->stop && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		sub = xasprintf("%s/%s", name, e->d_name);
		if (xfer_name_ok(sub))
			send_entry(s, dirfd(d), e->d_name, sub, depth + 1, 0);
		free(sub);
	}
	closedir(d);
}

int
xfer_send_outputs(struct starter_job *job, int evicted)
{
	struct sender s;
	struct dirent *e;
	struct stat st;
	char **names, *text = NULL, *when = NULL;
	const char *last;
	double t0 = monotime();
	size_t n = 0, i;
	int dfd, pfd;
	DIR *d;

	if (job->shared_fs)
		return 0;	/* written where they belong */
	if (evicted && (ad_get_string(job->ad, "WhenToTransferOutput",
	    &when) == -1 || strcmp(when, "ON_EXIT_OR_EVICT") != 0)) {
		free(when);
		return 0;
	}
	free(when);
	if (ad_get_string(job->ad, "ShouldTransferFiles", &text) == -1 ||
	    strcmp(text, "NO") == 0) {
		free(text);
		return 0;	/* not a job that transfers (or standard) */
	}
	free(text);
	text = NULL;
	memset(&s, 0, sizeof(s));
	s.job = job;
	s.evicted = evicted;
	if ((dfd = open(job->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
	    -1) {
		log_warn("cannot open %s", job->dir);
		return 0;
	}
	if (ad_get_string(job->ad, "TransferOutput", &text) == 0) {
		names = xfer_list_split(text, &n);
		for (i = 0; i < n && !s.stop; i++) {
			if (!xfer_name_ok(names[i]) || reserved(names[i])) {
				send_missing(&s, names[i], "not a name in the "
				    "job's directory");
				continue;
			}
			if ((pfd = open_parent(dfd, names[i], &last)) == -1) {
				send_missing(&s, names[i], strerror(errno));
				continue;
			}
			send_entry(&s, pfd, last, names[i], 0, 1);
			close(pfd);
		}
		xfer_list_free(names, n);
		free(text);
	} else if ((pfd = dup(dfd)) != -1 && (d = fdopendir(pfd)) != NULL) {
		while (!s.stop && (e = readdir(d)) != NULL) {
			if (reserved(e->d_name) || e->d_name[0] == '\0' ||
			    strcmp(e->d_name, ".") == 0 ||
			    strcmp(e->d_name, "..") == 0 ||
			    !xfer_name_ok(e->d_name) ||
			    fstatat(dfd, e->d_name, &st,
			    AT_SYMLINK_NOFOLLOW) == -1 ||
			    !S_ISREG(st.st_mode) ||
			    unchanged_input(e->d_name, &st))
				continue;
			send_entry(&s, dfd, e->d_name, e->d_name, 0, 0);
		}
		closedir(d);
	}
	close(dfd);
	stream_close();
	if (shadow_is_lost())
		return -1;
	if (s.count > 0)
		log_info("transferred %d output files (%lld bytes) %sin "
		    "%.3f s", s.count, s.bytes, evicted ? "to keep " : "",
		    monotime() - t0);
	return 0;
}
