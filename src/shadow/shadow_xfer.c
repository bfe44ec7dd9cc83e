/*
 * shadow_xfer.c: the files a vanilla job transfers (TransferInput,
 * TransferOutput, TransferOutputRemaps, WhenToTransferOutput), on the
 * submitting side.
 *
 * Inputs are listed once, as the owner, before a machine is claimed: a
 * file that is missing or unreadable then holds the job with its name
 * and costs no claim.  The starter asks for the list a page at a time
 * and for each file by its number, never by a name: the shadow serves
 * what the list holds and nothing else, whatever the caller asks.  The
 * bytes go on the transfer stream (include/shadow_rpc.x), whole, with
 * their CRC-32C after them.
 *
 * An output arrives as OUTPUT_BEGIN (its name, relative to the job's
 * directory, checked here again), its bytes and CRC-32C on the stream,
 * and OUTPUT_END (size and CRC-32C again).  It is written as the owner into a new file beside
 * its destination and renamed over it only when size and checksum
 * agree: an owner never finds an output half written, and an output
 * never lands outside Iwd unless a remap the owner wrote sends it there.
 * A failure (a named output the job did not make, no room, no right) is
 * remembered and holds the job when it exits, with the file's name.
 *
 * ON_EXIT_OR_EVICT: the outputs of a job that is leaving a machine go
 * to $(SPOOL)/cluster<C>.proc<P>.xfer instead (written by the shadow
 * itself, installed when the job has left), and the next run gets them
 * back as inputs, in place of inputs of the same name.
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ad.h"
#include "config.h"
#include "crc.h"
#include "daemon.h"
#include "event.h"
#include "fdio.h"
#include "log.h"
#include "rpcutil.h"
#include "shadow.h"
#include "shadow_rpc.h"
#include "xalloc.h"
#include "xfer.h"

/* Entries an input list may hold, directories expanded. */
#define XFER_MAX_ENTRIES	100000
/* Directories deep below a transferred one. */
#define XFER_MAX_DEPTH		64

struct xin {
	char		*src;	/* where it is here */
	char		*name;	/* in the job's directory */
	int		 kind;	/* XFER_FILE, XFER_DIR */
	unsigned	 mode;
	long long	 size;
	int		 spooled;	/* from an evicted run: read as self */
};

static struct xin	*ins;
static size_t		 nins, capins;

/* The transfer stream: its listener, then the connection. */
static int		 listen_fd = -1, stream_fd = -1;
static char		 stream_addr[64];

static void	stream_close(void);

/* The output being written. */
static int		 out_fd = -1;
static char		*out_tmp, *out_dest;
static long long	 out_size, out_bytes;
static uint32_t		 out_crc;
static unsigned		 out_mode;
static int		 out_evicted;
static long long	 out_total;	/* every output's bytes */
static unsigned		 out_serial;
static int		 spool_begun;	/* evicted outputs came this run */

static char		 failure[ERRSTR_MAX];	/* holds the job */

static char *
spool_xfer(const char *suffix)
{
	const char *spool = param("SPOOL");

	return xasprintf("%s/cluster%d.proc%d.xfer%s", spool ? spool : ".",
	    sj.cluster, sj.proc, suffix);
}

static void
add(const char *src, const char *name, int kind, const struct stat *st,
    int spooled)
{
	if (nins == capins) {
		capins = capins ? capins * 2 : 16;
		ins = xreallocarray(ins, capins, sizeof(*ins));
	}
	ins[nins].src = xstrdup(src);
	ins[nins].name = xstrdup(name);
	ins[nins].kind = kind;
	ins[nins].mode = (unsigned)st->st_mode & 07777;
	ins[nins].size = kind == XFER_FILE ? (long long)st->st_size : 0;
	ins[nins].spooled = spooled;
	nins++;
}

/* Add the tree below the directory SRC as NAME/...; 0, or -1 with ERR. */
static int
add_tree(const char *src, const char *name, int depth, int spooled,
    char *err, size_t errlen)
{
	struct dirent *e;
	struct stat st;
	char *s, *n;
	DIR *d;
	int r = 0;

	if (depth > XFER_MAX_DEPTH) {
		snprintf(err, errlen, "%s is more than %d directories deep",
		    src, XFER_MAX_DEPTH);
		return -1;
	}
	if ((d = opendir(src)) == NULL) {
		snprintf(err, errlen, "%s: %s", src, strerror(errno));
		return -1;
	}
	while (r == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		s = xasprintf("%s/%s", src, e->d_name);
		n = *name ? xasprintf("%s/%s", name, e->d_name) :
		    xstrdup(e->d_name);
		/* A link to a file is followed; one to a directory is not
		 * (it could lead back up, or anywhere). */
		if (lstat(s, &st) == 0 && S_ISLNK(st.st_mode) &&
		    (stat(s, &st) == -1 || S_ISDIR(st.st_mode))) {
			log_info("job %s: %s is a link to a directory or to "
			    "nothing: not transferred", sj.id, s);
			free(s);
			free(n);
			continue;
		}
		if (nins >= XFER_MAX_ENTRIES) {
			snprintf(err, errlen, "transfer_input_files holds more "
			    "than %d files", XFER_MAX_ENTRIES);
			r = -1;
		} else if (!xfer_name_ok(n)) {
			snprintf(err, errlen, "%s: the name is too long or not "
			    "printable", s);
			r = -1;
		} else if (S_ISDIR(st.st_mode)) {
			add(s, n, XFER_DIR, &st, spooled);
			r = add_tree(s, n, depth + 1, spooled, err, errlen);
		} else if (S_ISREG(st.st_mode))
			add(s, n, XFER_FILE, &st, spooled);
		else
			log_info("job %s: %s is not a file or a directory: not "
			    "transferred", sj.id, s);
		free(s);
		free(n);
	}
	closedir(d);
	return r;
}

static int
by_name(const void *a, const void *b)
{
	const struct xin *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c != 0 ? c : x->spooled - y->spooled;
}

static void
drop(size_t i)
{
	free(ins[i].src);
	free(ins[i].name);
	memmove(&ins[i], &ins[i + 1], (nins - i - 1) * sizeof(*ins));
	nins--;
}

int
xfer_inputs_list(char *err, size_t errlen)
{
	struct stat st;
	char **items, *src, *base, *spool, *text = NULL;
	size_t n = 0, i, len;
	int r = 0;

	if (ad_get_string(sj.ad, "TransferInput", &text) == 0)
		items = xfer_list_split(text, &n);
	else
		items = NULL;
	free(text);
	for (i = 0; r == 0 && i < n; i++) {
		src = items[i][0] == '/' ? xstrdup(items[i]) :
		    xasprintf("%s/%s", sj.iwd, items[i]);
		len = strlen(items[i]);
		if (stat(src, &st) == -1) {
			snprintf(err, errlen, "Transfer input file %s cannot "
			    "be read: %s", src, strerror(errno));
			r = -1;
		} else if (S_ISDIR(st.st_mode) && items[i][len - 1] == '/')
			/* "dir/": what it holds, not itself. */
			r = add_tree(src, "", 0, 0, err, errlen);
		else if (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)) {
			while (len > 1 && src[strlen(src) - 1] == '/')
				src[strlen(src) - 1] = '\0';
			base = strrchr(src, '/') + 1;
			if (!xfer_name_ok(base)) {
				snprintf(err, errlen, "Transfer input file %s: "
				    "its name cannot be used in the job's "
				    "directory", src);
				r = -1;
			} else if (S_ISREG(st.st_mode))
				add(src, base, XFER_FILE, &st, 0);
			else {
				add(src, base, XFER_DIR, &st, 0);
				r = add_tree(src, base, 1, 0, err, errlen);
			}
		} else {
			snprintf(err, errlen, "Transfer input file %s is not a "
			    "file or a directory", src);
			r = -1;
		}
		if (r == 0 && access(src, R_OK) == -1) {
			snprintf(err, errlen, "Transfer input file %s cannot "
			    "be read: %s", src, strerror(errno));
			r = -1;
		}
		free(src);
	}
	xfer_list_free(items, n);
	if (r == -1)
		return -1;

	/* What an evicted run left, as the shadow itself. */
	spool = spool_xfer("");
	shadow_as_self();
	if (stat(spool, &st) == 0 && S_ISDIR(st.st_mode) &&
	    add_tree(spool, "", 0, 1, err, errlen) == -1)
		log_warnx("job %s: the files of its last run are lost: %s",
		    sj.id, err);
	free(spool);
	if (shadow_as_owner() == -1) {
		snprintf(err, errlen, "cannot act as %s", sj.owner);
		return -1;
	}

	/* Parents sort before what they hold; two of one name are an
	 * error, unless one is from the last run, which wins. */
	qsort(ins, nins, sizeof(*ins), by_name);
	for (i = 0; i + 1 < nins; ) {
		if (strcmp(ins[i].name, ins[i + 1].name) != 0) {
			i++;
			continue;
		}
		if (ins[i].spooled == ins[i + 1].spooled) {
			snprintf(err, errlen, "Transfer input files %s and %s "
			    "would both be %s in the job's directory",
			    ins[i].src, ins[i + 1].src, ins[i].name);
			return -1;
		}
		drop(i);
	}
	if (nins > 0)
		log_info("job %s: %zu input files and directories to "
		    "transfer", sj.id, nins);
	return 0;
}

bool_t
shadow_input_list_1_svc(int *start, xfer_list_res_x *res,
    struct svc_req *req)
{
	size_t i, n;

	memset(res, 0, sizeof(*res));
	if (!transfer_from_starter(req, "INPUT_LIST")) {
		res->code = EPERM;
		res->message = xstrdup("refused");
		return TRUE;
	}
	res->message = xstrdup("");
	if (*start < 0 || (size_t)*start > nins) {
		res->code = EINVAL;
		free(res->message);
		res->message = xstrdup("no such entry");
		return TRUE;
	}
	n = nins - (size_t)*start;
	if (n > XFER_PAGE)
		n = XFER_PAGE;
	res->entries.entries_len = (u_int)n;
	res->entries.entries_val = xcalloc(n ? n : 1, sizeof(xfer_entry_x));
	for (i = 0; i < n; i++) {
		const struct xin *x = &ins[(size_t)*start + i];
		xfer_entry_x *e = &res->entries.entries_val[i];

		e->name = xstrdup(x->name);
		e->kind = x->kind;
		e->mode = x->mode;
		e->size = x->size;
	}
	res->more = (size_t)*start + n < nins;
	return TRUE;
}

static void __attribute__((format(printf, 1, 2)))
fail(const char *fmt, ...)
{
	va_list ap;

	if (failure[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(failure, sizeof(failure), fmt, ap);
	va_end(ap);
	log_warnx("job %s: %s", sj.id, failure);
}

const char *
xfer_failure(void)
{
	return failure[0] != '\0' ? failure : NULL;
}

static void
out_discard(void)
{
	if (out_fd != -1)
		close(out_fd);
	out_fd = -1;
	if (out_tmp != NULL) {
		if (!out_evicted)
			shadow_as_owner();
		unlink(out_tmp);
		if (!out_evicted)
			shadow_as_self();
	}
	free(out_tmp);
	free(out_dest);
	out_tmp = out_dest = NULL;
}

/* Where the output NAME goes: its remap, else Iwd/NAME. */
static char *
destination(const char *name)
{
	struct xfer_remap *r;
	char *text = NULL, *to = NULL, why[256];
	size_t n, i;

	if (ad_get_string(sj.ad, "TransferOutputRemaps", &text) == 0 &&
	    xfer_remaps_parse(text, &r, &n, why, sizeof(why)) == 0) {
		for (i = 0; i < n && to == NULL; i++)
			if (strcmp(r[i].name, name) == 0)
				to = r[i].to[0] == '/' ? xstrdup(r[i].to) :
				    xasprintf("%s/%s", sj.iwd, r[i].to);
		/* What a remapped directory holds goes with it. */
		for (i = 0; i < n && to == NULL; i++) {
			size_t len = strlen(r[i].name);

			if (strncmp(r[i].name, name, len) == 0 &&
			    name[len] == '/')
				to = r[i].to[0] == '/' ?
				    xasprintf("%s%s", r[i].to, name + len) :
				    xasprintf("%s/%s%s", sj.iwd, r[i].to,
				    name + len);
		}
		xfer_remaps_free(r, n);
	}
	free(text);
	return to != NULL ? to : xasprintf("%s/%s", sj.iwd, name);
}

/*
 * Whether SIZE more bytes of output take this run's transferred output
 * past MAX_TRANSFER_OUTPUT_MB, at its exit and on eviction alike; the
 * failure then says so.
 */
static int
over_output_cap(long long size)
{
	long mb = param_int("MAX_TRANSFER_OUTPUT_MB", 0);

	if (mb <= 0 || out_total + size <= (long long)mb * 1024 * 1024)
		return 0;
	fail("Transfer output files passed MAX_TRANSFER_OUTPUT_MB (%ld MB)",
	    mb);
	return 1;
}

/* Begin one output; 0, or an errno with RES saying why. */
static int
out_begin(const xfer_begin_x *b, status_x *res)
{
	const xfer_entry_x *e = &b->entry;
	char *slash, *dir;
	struct stat st;
	int r = 0;

	out_discard();
	out_evicted = b->evicted != 0;
	if (e->name == NULL || !xfer_name_ok(e->name)) {
		rpc_status(res, EINVAL, "not a name inside the job's "
		    "directory");
		return EINVAL;
	}
	if (e->kind == XFER_MISSING) {
		if (!out_evicted)
			fail("Transfer output file %s: %s", e->name,
			    b->message && *b->message ? b->message :
			    "not made by the job");
		rpc_status_ok(res);
		return 0;
	}
	if ((e->kind != XFER_FILE && e->kind != XFER_DIR) || e->size < 0 ||
	    e->size > (1LL << 50)) {
		rpc_status(res, EINVAL, "bad entry");
		return EINVAL;
	}
	if (e->kind == XFER_FILE && over_output_cap(e->size)) {
		/* Refused before a byte of it is written: on eviction too
		 * (spooled for the next run), where the job is held as it
		 * would be at its exit. */
		if (out_evicted) {
			dir = spool_xfer(".new");
			daemon_remove_tree(dir);
			free(dir);
			shadow_hold_soon(failure);
		}
		rpc_status(res, EFBIG, "over MAX_TRANSFER_OUTPUT_MB");
		return EFBIG;
	}
	if (out_evicted) {
		dir = spool_xfer(".new");
		if (!spool_begun) {
			/* A new set: whatever an unfinished one left goes. */
			daemon_remove_tree(dir);
			if (mkdir(dir, 0700) == -1) {
				r = errno;
				rpc_status(res, r, "cannot create %s: %s", dir,
				    strerror(r));
				free(dir);
				return r;
			}
			spool_begun = 1;
		}
		out_dest = xasprintf("%s/%s", dir, e->name);
		free(dir);
	} else {
		out_dest = destination(e->name);
		if (shadow_as_owner() == -1) {
			rpc_status(res, EPERM, "cannot act as the owner");
			return EPERM;
		}
	}
	if (e->kind == XFER_DIR) {
		if (mkdir(out_dest, 0700 | (e->mode & 0777)) == -1 &&
		    (errno != EEXIST || lstat(out_dest, &st) == -1 ||
		    !S_ISDIR(st.st_mode)))
			r = errno != EEXIST ? errno : ENOTDIR;
	} else {
		slash = strrchr(out_dest, '/');
		out_tmp = xasprintf("%.*s/.condor_xfer_%d_%u",
		    (int)(slash - out_dest), out_dest, (int)getpid(),
		    out_serial++);
		/* Aside, then renamed; a link planted under the name is
		 * refused, never written through nor replaced (fdio.h). */
		out_fd = out_evicted ? open(out_tmp, O_WRONLY | O_CREAT |
		    O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600) :
		    fd_create_aside(out_dest, out_tmp, 0600);
		/* Spooled on eviction in the shadow's own directory, the
		 * file is still the owner's, and written as the owner. */
		if (out_fd != -1 && out_evicted && shadow_is_root() &&
		    fchown(out_fd, sj.uid, sj.gid) == -1) {
			int e = errno;

			close(out_fd);
			out_fd = -1;
			unlink(out_tmp);
			errno = e;
		}
		if (out_fd == -1) {
			r = errno;
			free(out_tmp);
			out_tmp = NULL;
		}
	}
	if (!out_evicted)
		shadow_as_self();
	if (r != 0) {
		if (!out_evicted)
			fail("Transfer output file %s cannot be written to %s: "
			    "%s", e->name, out_dest, fd_user_strerror(r));
		rpc_status(res, r, "cannot write %s: %s", out_dest,
		    fd_user_strerror(r));
		free(out_dest);
		out_dest = NULL;
		return r;
	}
	out_size = e->size;
	out_mode = e->mode & 0777;
	out_bytes = 0;
	out_crc = 0;
	if (e->kind == XFER_DIR) {
		free(out_dest);
		out_dest = NULL;
	}
	rpc_status_ok(res);
	return 0;
}

bool_t
shadow_output_begin_1_svc(xfer_begin_x *arg, status_x *res,
    struct svc_req *req)
{
	memset(res, 0, sizeof(*res));
	if (!transfer_from_starter(req, "OUTPUT_BEGIN")) {
		rpc_status(res, EPERM, "refused");
		return TRUE;
	}
	if (transfer_leaving(res))
		return TRUE;
	out_begin(arg, res);
	return TRUE;
}

bool_t
shadow_output_end_1_svc(xfer_end_x *arg, status_x *res, struct svc_req *req)
{
	int r = 0;

	memset(res, 0, sizeof(*res));
	if (!transfer_from_starter(req, "OUTPUT_END")) {
		rpc_status(res, EPERM, "refused");
		return TRUE;
	}
	if (transfer_leaving(res))
		return TRUE;
	if (out_fd == -1) {
		rpc_status(res, EINVAL, "no output was begun");
		return TRUE;
	}
	if (arg->size != out_bytes || arg->size != out_size ||
	    arg->crc32c != out_crc) {
		if (!out_evicted)
			fail("Transfer output file %s arrived damaged (%lld "
			    "bytes of %lld, CRC-32C %08x, the starter's %08x)",
			    out_dest, out_bytes, (long long)arg->size,
			    (unsigned)out_crc, arg->crc32c);
		out_discard();
		rpc_status(res, EIO, "size or CRC-32 mismatch");
		return TRUE;
	}
	if (fchmod(out_fd, out_mode | 0600) == -1 || fsync(out_fd) == -1 ||
	    close(out_fd) == -1)
		r = errno;
	out_fd = -1;
	if (r == 0) {
		if (!out_evicted && shadow_as_owner() == -1)
			r = EPERM;
		else {
			if (rename(out_tmp, out_dest) == -1)
				r = errno;
			if (!out_evicted)
				shadow_as_self();
		}
	}
	if (r != 0) {
		if (!out_evicted)
			fail("Transfer output file %s cannot be written: %s",
			    out_dest, strerror(r));
		out_discard();
		rpc_status(res, r, "cannot install: %s", strerror(r));
		return TRUE;
	}
	log_info("job %s: output %s: %lld bytes", sj.id, out_dest, out_bytes);
	free(out_tmp);
	free(out_dest);
	out_tmp = out_dest = NULL;
	rpc_status_ok(res);
	return TRUE;
}

/* ---------------------------------------------------------------- */
/* The transfer stream (include/shadow_rpc.x). */

static void
stream_close(void)
{
	if (listen_fd != -1) {
		event_fd_del(listen_fd);
		close(listen_fd);
	}
	if (stream_fd != -1) {
		event_fd_del(stream_fd);
		close(stream_fd);
	}
	listen_fd = stream_fd = -1;
}

#define frame_send(proc, obj)	xfer_frame_send(stream_fd, proc, obj)
#define frame_recv(proc, obj, len) xfer_frame_recv(stream_fd, proc, obj, len)

/* XFER_SEND_INPUT: input INDEX, whole, then its CRC-32C; -1 ends the
 * stream. */
static int
send_input(int index)
{
	const struct xin *x;
	xfer_trailer_x t;
	xfer_hdr_x h;
	struct stat st;
	uint32_t crc = 0;
	int fd, e;

	memset(&h, 0, sizeof(h));
	if (index < 0 || (size_t)index >= nins ||
	    ins[index].kind != XFER_FILE) {
		h.code = EINVAL;
		return frame_send((xdrproc_t)xdr_xfer_hdr_x, &h);
	}
	x = &ins[index];
	if (!x->spooled && shadow_as_owner() == -1)
		fd = -1;
	else {
		fd = open(x->src, O_RDONLY | O_NONBLOCK | O_NOCTTY |
		    O_CLOEXEC);
		e = errno;
		if (!x->spooled)
			shadow_as_self();
		errno = e;
	}
	if (fd == -1 || fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		h.code = fd == -1 ? errno : EINVAL;
		log_warnx("job %s: cannot send %s: %s", sj.id, x->src,
		    strerror(h.code));
		if (fd != -1)
			close(fd);
		return frame_send((xdrproc_t)xdr_xfer_hdr_x, &h);
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	h.size = st.st_size;
	if (frame_send((xdrproc_t)xdr_xfer_hdr_x, &h) == -1 ||
	    xfer_send_file(stream_fd, fd, h.size, &crc) == -1) {
		/* Gone, or it shrank: the starter sees a short file. */
		log_warnx("job %s: %s was not sent whole", sj.id, x->src);
		goto lost;
	}
	close(fd);
	sj.bytes_received += h.size;
	t.crc32c = crc;
	return frame_send((xdrproc_t)xdr_xfer_trailer_x, &t);
lost:
	close(fd);
	return -1;
}

/*
 * SIZE bytes of the stream into the output begun, written as its owner
 * (its quota applies, root's privileges do not): the job's data is never
 * written as root, in its directory or spooled on eviction.
 */
static int
recv_as_owner(long long size, uint32_t *crc)
{
	int r, e;

	if (shadow_as_owner() == -1)
		return -1;
	r = xfer_recv_file(stream_fd, out_fd, size, crc);
	e = errno;
	shadow_as_self();
	errno = e;
	return r;
}

/* XFER_RECV_OUTPUT: SIZE bytes into the output begun, and its CRC-32C;
 * -1 ends the stream. */
static int
recv_output(long long size)
{
	char buf[65536];
	xfer_trailer_x t;
	xfer_hdr_x h;
	long long got;
	uint32_t crc = 0;
	ssize_t n;
	int err = 0;

	if (size < 0 || size > (1LL << 50))
		return -1;
	if (out_fd == -1 || size != out_size || out_bytes != 0)
		err = EINVAL;
	else if (over_output_cap(size)) {
		if (out_evicted)
			shadow_hold_soon(failure);
		err = EFBIG;
	}
	if (err != 0) {
		/* Read and dropped, so that the stream stays in step. */
		for (got = 0; got < size; got += n) {
			n = read(stream_fd, buf, size - got < (long long)
			    sizeof(buf) ? (size_t)(size - got) : sizeof(buf));
			if (n == -1 && errno == EINTR) {
				n = 0;
				continue;
			}
			if (n <= 0)
				return -1;
		}
	} else if (recv_as_owner(size, &crc) == -1) {
		if (!out_evicted)
			fail("Transfer output file %s was not received whole",
			    out_dest);
		out_discard();
		return -1;
	}
	if (frame_recv((xdrproc_t)xdr_xfer_trailer_x, &t, 4) == -1)
		return -1;
	if (err == 0 && t.crc32c != crc)
		err = EIO;
	if (err == EIO && !out_evicted)
		fail("Transfer output file %s arrived damaged (CRC-32C %08x, "
		    "the starter's %08x)", out_dest, (unsigned)crc, t.crc32c);
	if (err != 0)
		out_discard();
	else {
		out_bytes = size;
		out_crc = crc;
		out_total += size;
		sj.bytes_sent += size;
	}
	memset(&h, 0, sizeof(h));
	h.code = err;
	return frame_send((xdrproc_t)xdr_xfer_hdr_x, &h);
}

static void
on_stream(int fd, short revents, void *arg)
{
	xfer_req_x r;
	int rc;

	/* The starter waits for us, and we for it, in step: each request
	 * is served whole, each read and write within RPC_TIMEOUT. */
	if (frame_recv((xdrproc_t)xdr_xfer_req_x, &r, 16) == -1) {
		stream_close();
		return;
	}
	switch (r.op) {
	case XFER_SEND_INPUT:
		rc = send_input(r.index);
		break;
	case XFER_RECV_OUTPUT:
		rc = recv_output(r.size);
		break;
	default:
		rc = -1;
	}
	if (rc == -1) {
		log_warnx("job %s: the transfer stream broke", sj.id);
		stream_close();
	}
	shadow_starter_alive();
}

/* Read the caller's capability; 0 if it is the claim's. */
static int
stream_hello(int fd)
{
	char cap[CAPABILITY_MAX + 1];

	return xfer_hello_recv(fd, cap, CAPABILITY_MAX) == 0 &&
	    shadow_capability_ok(cap) ? 0 : -1;
}

static void
on_stream_connect(int fd, short revents, void *arg)
{
	struct sockaddr_in from;
	socklen_t fl = sizeof(from);
	struct timeval tv;
	long timeout = param_int("RPC_TIMEOUT", 20);
	int sock, one = 1;

	sock = accept4(listen_fd, (struct sockaddr *)&from, &fl, SOCK_CLOEXEC);
	if (sock == -1)
		return;
	tv.tv_sec = timeout > 0 ? timeout : 20;
	tv.tv_usec = 0;
	setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (stream_hello(sock) == -1) {
		log_warnx("job %s: transfer stream from %s refused: wrong "
		    "capability", sj.id, inet_ntoa(from.sin_addr));
		close(sock);
		return;
	}
	setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	event_fd_del(listen_fd);
	close(listen_fd);
	listen_fd = -1;
	stream_fd = sock;
	event_fd_add(stream_fd, POLLIN, on_stream, NULL);
}

bool_t
shadow_xfer_open_1_svc(void *arg, xfer_open_res_x *res, struct svc_req *req)
{
	struct sockaddr_in bound;

	memset(res, 0, sizeof(*res));
	res->addr = xstrdup("");
	if (!transfer_from_starter(req, "XFER_OPEN")) {
		res->code = EPERM;
		res->message = xstrdup("refused");
		return TRUE;
	}
	/* One stream at a time: a new one replaces the old. */
	stream_close();
	listen_fd = rpc_listen_tcp(param("BIND_ADDRESS"), 0, &bound);
	if (listen_fd == -1) {
		res->code = errno;
		res->message = xasprintf("cannot listen: %s",
		    strerror(errno));
		return TRUE;
	}
	fcntl(listen_fd, F_SETFD, FD_CLOEXEC);
	shadow_format_address(&bound, stream_addr);
	event_fd_add(listen_fd, POLLIN, on_stream_connect, NULL);
	free(res->addr);
	res->addr = xstrdup(stream_addr);
	res->message = xstrdup("");
	return TRUE;
}

void
xfer_finish(int evicted)
{
	char *cur, *next;

	out_discard();
	stream_close();
	cur = spool_xfer("");
	next = spool_xfer(".new");
	if (evicted && spool_begun && failure[0] == '\0') {
		/* This run's files replace the last run's. */
		daemon_remove_tree(cur);
		if (rename(next, cur) == -1)
			log_warn("job %s: cannot keep its files in %s", sj.id,
			    cur);
		else
			log_info("job %s: the files of this run are kept in "
			    "%s", sj.id, cur);
	} else if (!evicted)
		daemon_remove_tree(cur);
	daemon_remove_tree(next);
	free(cur);
	free(next);
}
