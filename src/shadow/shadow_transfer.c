/*
 * shadow_transfer.c: SHADOW_PROG, the service a shadow gives its
 * starter.
 *
 * Trust is one connection: the first caller to present the claim's
 * capability (SHADOW_HELLO) is the starter, and from then on only calls
 * on that same transport are served; HELLO is accepted once, and every
 * other call from anyone else is refused.  A job with a lease
 * (JobLeaseDuration) may have its starter come back on a new connection
 * (SHADOW_RECONNECT, the same capability and starter pid) after losing
 * the first; the new one is then the trusted one.  The capability is
 * compared in constant time and never logged.
 *
 * Files move in chunks of at most SHADOW_CHUNK bytes, read and written
 * at the offsets the starter names, so neither side holds a whole file.
 * The owner's files (input, output, error) were opened as the owner
 * before the claim; the executable in SPOOL as the shadow itself.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ad.h"
#include "ckptfile.h"
#include "config.h"
#include "event.h"
#include "log.h"
#include "queue_log.h"
#include "rpcutil.h"
#include "shadow.h"
#include "shadow_rpc.h"
#include "userlog.h"
#include "xalloc.h"

/* Bytes: a larger offset is garbage. */
#define MAX_FILE_OFFSET	(1LL << 50)

static SVCXPRT	*trusted;	/* the starter's, after HELLO */
static int	 greeted;

/* The dispatcher rpcgen writes in shadow_rpc_svc.c. */
void	shadow_prog_1(struct svc_req *, SVCXPRT *);

void
transfer_init(void)
{
	trusted = NULL;
	greeted = 0;
}


int
transfer_starter_known(void)
{
	return greeted;
}

int
transfer_leaving(status_x *res)
{
	if (!shadow_is_leaving())
		return 0;
	rpc_status(res, ESHUTDOWN, "the job was removed or put on hold");
	return 1;
}

/* Is REQ from our starter?  If not, log it (the caller refuses). */
int
transfer_from_starter(struct svc_req *req, const char *what)
{
	char from[64];

	if (greeted && req->rq_xprt == trusted) {
		shadow_starter_alive();
		return 1;
	}
	rpc_caller_ip(req, from, sizeof(from));
	log_warnx("job %s: %s from %s refused: %s", sj.id, what, from,
	    greeted ? "not our starter" : "no HELLO yet");
	return 0;
}

/* Is CAP the claim's capability?  In constant time. */
int
shadow_capability_ok(const char *cap)
{
	const char *want = sj.capability;
	size_t la = strlen(cap), lb = strlen(want), i;
	unsigned char d = 0;

	if (la != lb)
		return 0;
	for (i = 0; i < la; i++)
		d |= (unsigned char)(cap[i] ^ want[i]);
	return d == 0;
}

static int	starter_pid;	/* the one that said HELLO */

/* The starter that said HELLO, again, on a new connection. */
bool_t
shadow_reconnect_1_svc(hello_x *arg, status_x *res, struct svc_req *req)
{
	char from[64];

	memset(res, 0, sizeof(*res));
	rpc_caller_ip(req, from, sizeof(from));
	if (!greeted || arg->capability == NULL ||
	    !shadow_capability_ok(arg->capability) ||
	    (arg->starter_pid != starter_pid && starter_pid != -1) ||
	    shadow_job_lease() == 0) {
		log_warnx("job %s: RECONNECT from %s refused: %s", sj.id, from,
		    !greeted ? "no HELLO yet" : shadow_job_lease() == 0 ?
		    "the job has no lease" : "not our starter");
		rpc_status(res, EPERM, "refused");
		return TRUE;
	}
	trusted = req->rq_xprt;
	starter_pid = arg->starter_pid;
	shadow_watch_fd(trusted->xp_fd);
	shadow_reconnected(from);
	rpc_status_ok(res);
	return TRUE;
}

void
shadow_await_reconnect(void)
{
	greeted = 1;		/* the starter said HELLO to our predecessor */
	starter_pid = -1;	/* any that has the capability */
}

bool_t
shadow_null_1_svc(void *arg, void *res, struct svc_req *req)
{
	if (greeted && req->rq_xprt == trusted)
		shadow_starter_alive();
	return TRUE;
}

bool_t
shadow_hello_1_svc(hello_x *arg, hello_res_x *res, struct svc_req *req)
{
	char from[64];

	memset(res, 0, sizeof(res[0]));
	res->syscall_addr = xstrdup("");
	rpc_caller_ip(req, from, sizeof(from));
	if (greeted || !sj.claimed || arg->capability == NULL ||
	    !shadow_capability_ok(arg->capability)) {
		log_warnx("job %s: HELLO from %s refused: %s", sj.id, from,
		    greeted ? "the starter already said hello" :
		    "wrong capability");
		res->code = EPERM;
		res->message = xstrdup("refused");
		return TRUE;
	}
	greeted = 1;
	starter_pid = arg->starter_pid;
	trusted = req->rq_xprt;
	shadow_watch_fd(trusted->xp_fd);
	shadow_starter_alive();
	log_info("job %s: starter pid %d on %s (%s) said hello", sj.id,
	    arg->starter_pid, arg->starter_host, from);
	if (strcmp(arg->starter_host, sj.machine) != 0 &&
	    (strchr(sj.machine, '@') == NULL ||
	    strcmp(arg->starter_host, strchr(sj.machine, '@') + 1) != 0))
		log_warnx("job %s: the starter calls its host %s, the match "
		    "said %s", sj.id, arg->starter_host, sj.machine);
	/* The job starts from scratch this time: so does its output.  A
	 * job resuming from a checkpoint seeks back to where its output
	 * was at that checkpoint. */
	if (sj.resuming)
		;
	else if (sj.out_fd != -1 && ftruncate(sj.out_fd, 0) == -1)
		log_warn("job %s: cannot truncate %s", sj.id, sj.out);
	if (!sj.resuming && sj.err_fd != -1 && sj.err_fd != sj.out_fd &&
	    ftruncate(sj.err_fd, 0) == -1)
		log_warn("job %s: cannot truncate %s", sj.id, sj.err);
	ad_to_xdr(sj.ad, &res->job);
	res->executable_size = sj.exe_size;
	free(res->syscall_addr);
	res->syscall_addr = xstrdup(syscall_address());
	res->message = xstrdup("");
	return TRUE;
}

bool_t
shadow_get_1_svc(get_x *arg, get_res_x *res, struct svc_req *req)
{
	struct stat st;
	ssize_t n;
	int fd;

	memset(res, 0, sizeof(*res));
	if (!transfer_from_starter(req, "GET")) {
		res->code = EPERM;
		res->message = xstrdup("refused");
		return TRUE;
	}
	if (shadow_is_leaving()) {
		res->code = ESHUTDOWN;
		res->message = xstrdup("the job was removed or put on hold");
		return TRUE;
	}
	if (arg->length < 0 || arg->length > SHADOW_CHUNK ||
	    arg->offset < 0 || arg->offset > MAX_FILE_OFFSET) {
		res->code = EINVAL;
		res->message = xstrdup("bad offset or length");
		return TRUE;
	}
	switch (arg->which) {
	case FILE_EXECUTABLE:
		fd = sj.exe_fd;
		break;
	case FILE_STDIN:
		fd = sj.in_fd;
		break;
	default:
		res->code = EINVAL;
		res->message = xstrdup("no such file to get");
		return TRUE;
	}
	res->message = xstrdup("");
	if (fd == -1) {
		res->eof = 1;	/* no input: an empty file */
		return TRUE;
	}
	res->data.data_val = xmalloc(arg->length > 0 ? (size_t)arg->length :
	    1);
	do {
		n = pread(fd, res->data.data_val, (size_t)arg->length,
		    (off_t)arg->offset);
	} while (n == -1 && errno == EINTR);
	if (n == -1) {
		log_warn("job %s: cannot read file %d", sj.id, arg->which);
		free(res->message);
		res->message = xasprintf("cannot read: %s", strerror(errno));
		res->code = EIO;
		return TRUE;
	}
	res->data.data_len = (u_int)n;
	res->eof = n < arg->length || (fstat(fd, &st) == 0 &&
	    arg->offset + n >= st.st_size);
	sj.bytes_received += n;
	return TRUE;
}

/*
 * A new checkpoint comes in pieces (PUT FILE_CHECKPOINT from offset 0
 * on) into $(SPOOL)/cluster<C>.proc<P>.ckpt.tmp, written by the shadow
 * itself, and replaces the job's stored checkpoint only when
 * CKPT_COMMIT's size and CRC-32 match and ckpt_install (fsync, every
 * checksum, rename, the directory's fsync) succeeds.  A bad one is
 * removed and the old one stays.  An incremental checkpoint (a delta,
 * INCREMENTAL_CHECKPOINTS) is folded into the stored one at once
 * (ckpt_fold: every checksum of both verified, the delta's parent must
 * be the stored image), and the result installed the same way: the
 * spool always holds one full checkpoint, which a restart runs.
 */
static int	 ckpt_fd = -1;
static char	*ckpt_tmp;
static long long ckpt_bytes;

static void
ckpt_discard(void)
{
	if (ckpt_fd != -1)
		close(ckpt_fd);
	ckpt_fd = -1;
	if (ckpt_tmp != NULL)
		unlink(ckpt_tmp);
	ckpt_bytes = 0;
}

static char *
ckpt_target(void)
{
	const char *spool = param("SPOOL");

	return xasprintf("%s/cluster%d.proc%d.ckpt", spool ? spool : ".",
	    sj.cluster, sj.proc);
}

static void
ckpt_put(put_x *arg, status_x *res)
{
	size_t done = 0;
	ssize_t n;

	if (arg->offset == 0) {
		char *target = ckpt_target();

		ckpt_discard();
		free(ckpt_tmp);
		ckpt_tmp = xasprintf("%s.tmp", target);
		free(target);
		ckpt_fd = open(ckpt_tmp, O_RDWR | O_CREAT | O_TRUNC |
		    O_NOFOLLOW | O_CLOEXEC, 0755);
		if (ckpt_fd == -1) {
			log_warn("job %s: cannot create %s", sj.id, ckpt_tmp);
			rpc_status(res, errno, "cannot create the checkpoint: "
			    "%s", strerror(errno));
			return;
		}
	}
	if (ckpt_fd == -1 || arg->offset != ckpt_bytes) {
		rpc_status(res, EINVAL, "checkpoint data out of order");
		return;
	}
	while (done < arg->data.data_len) {
		n = pwrite(ckpt_fd, arg->data.data_val + done,
		    arg->data.data_len - done,
		    (off_t)(arg->offset + (long long)done));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n == 0 ? EIO : errno;

			log_warn("job %s: cannot write its checkpoint", sj.id);
			ckpt_discard();
			rpc_status(res, e, "cannot write the checkpoint: %s",
			    strerror(e));
			return;
		}
		done += (size_t)n;
	}
	ckpt_bytes += (long long)done;
	rpc_status_ok(res);
}

/*
 * Whether this piece of the job's output or error takes it past
 * MAX_TRANSFER_OUTPUT_MB (of either, from its first byte): the job is
 * then held, and nothing more of it is written here.
 */
static int
output_over_limit(const put_x *arg)
{
	long mb = param_int("MAX_TRANSFER_OUTPUT_MB", 0);
	char why[200];

	if (mb <= 0 || arg->offset + (long long)arg->data.data_len <=
	    (long long)mb * 1024 * 1024)
		return 0;
	snprintf(why, sizeof(why), "its %s passed MAX_TRANSFER_OUTPUT_MB "
	    "(%ld MB)", arg->which == FILE_STDOUT ? "output" : "error", mb);
	log_warnx("job %s: %s", sj.id, why);
	shadow_hold_soon(why);
	return 1;
}

bool_t
shadow_put_1_svc(put_x *arg, status_x *res, struct svc_req *req)
{
	size_t done = 0;
	ssize_t n;
	int fd;

	memset(res, 0, sizeof(*res));
	if (!transfer_from_starter(req, "PUT")) {
		rpc_status(res, EPERM, "refused");
		return TRUE;
	}
	if (transfer_leaving(res))
		return TRUE;
	if (arg->offset < 0 || arg->offset > MAX_FILE_OFFSET) {
		rpc_status(res, EINVAL, "bad offset");
		return TRUE;
	}
	switch (arg->which) {
	case FILE_STDOUT:
		fd = sj.out_fd;
		break;
	case FILE_STDERR:
		fd = sj.err_fd;
		break;
	case FILE_CHECKPOINT:
		ckpt_put(arg, res);
		return TRUE;
	default:
		rpc_status(res, EINVAL, "no such file to put");
		return TRUE;
	}
	if (output_over_limit(arg)) {
		rpc_status(res, EFBIG, "over MAX_TRANSFER_OUTPUT_MB");
		return TRUE;
	}
	sj.bytes_sent += arg->data.data_len;
	if (fd == -1) {
		rpc_status(res, 0, "discarded");	/* the job has none */
		return TRUE;
	}
	/* Written as the owner: its quota applies, root's privileges do
	 * not. */
	if (shadow_as_owner() == -1) {
		rpc_status(res, EPERM, "cannot act as the owner");
		return TRUE;
	}
	while (done < arg->data.data_len) {
		n = pwrite(fd, arg->data.data_val + done,
		    arg->data.data_len - done,
		    (off_t)(arg->offset + (long long)done));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n == 0 ? EIO : errno;

			shadow_as_self();
			log_warnx("job %s: cannot write its %s: %s", sj.id,
			    arg->which == FILE_STDOUT ? "output" : "error",
			    strerror(e));
			rpc_status(res, e, "cannot write: %s", n == 0 ?
			    "short write" : strerror(e));
			return TRUE;
		}
		done += (size_t)n;
	}
	shadow_as_self();
	rpc_status_ok(res);
	return TRUE;
}

/* Check what came, install it, account for it; 0 or -1 (RES says). */
static int
ckpt_commit(ckpt_commit_x *arg, status_x *res)
{
	static char buf[SHADOW_CHUNK];
	struct shadow_outcome o;
	char err[512], *target;
	unsigned crc = 0;
	long long at;
	double t0 = monotime();
	ssize_t n;
	int delta;

	if (arg->size != ckpt_bytes) {
		log_warnx("job %s: checkpoint of %lld bytes announced, %lld "
		    "came; discarded", sj.id, (long long)arg->size,
		    ckpt_bytes);
		rpc_status(res, EIO, "size mismatch");
		return -1;
	}
	for (at = 0; at < ckpt_bytes; at += n) {
		n = pread(ckpt_fd, buf, sizeof(buf), (off_t)at);
		if (n == -1 && errno == EINTR) {
			n = 0;
			continue;
		}
		if (n <= 0) {
			rpc_status(res, EIO, "cannot read the checkpoint back");
			return -1;
		}
		crc = qlog_crc32(crc, buf, (size_t)n);
	}
	if (crc != arg->crc32) {
		log_warnx("job %s: checkpoint CRC-32 %08x, the starter's "
		    "%08x; discarded", sj.id, crc, arg->crc32);
		rpc_status(res, EIO, "CRC-32 mismatch");
		return -1;
	}
	close(ckpt_fd);
	ckpt_fd = -1;
	target = ckpt_target();
	delta = ckpt_is_delta(ckpt_tmp) == 1;
	if (delta ? ckpt_fold_install(target, &ckpt_tmp, 1, target, err,
	    sizeof(err)) : ckpt_install(ckpt_tmp, target, err,
	    sizeof(err))) {
		log_warnx("job %s: %scheckpoint refused: %s; the old one "
		    "stays", sj.id, delta ? "incremental " : "", err);
		rpc_status(res, EIO, "%s", err);
		if (delta)
			unlink(ckpt_tmp);
		free(target);
		return -1;
	}
	if (delta)
		unlink(ckpt_tmp);
	free(target);
	ckpt_bytes = 0;
	sj.num_ckpts++;
	log_info("job %s: checkpoint %lld installed: %lld bytes%s, verified "
	    "in %.3f s", sj.id, sj.num_ckpts, (long long)arg->size,
	    delta ? " (incremental, folded)" : "", monotime() - t0);
	memset(&o, 0, sizeof(o));
	o.user_cpu = arg->user_cpu >= 0 && arg->user_cpu < 1e12 ?
	    arg->user_cpu : 0;
	o.sys_cpu = arg->sys_cpu >= 0 && arg->sys_cpu < 1e12 ?
	    arg->sys_cpu : 0;
	o.image_size = arg->image_size >= 0 ? arg->image_size : 0;
	report_checkpointed(&o);
	rpc_status_ok(res);
	return 0;
}

bool_t
shadow_ckpt_commit_1_svc(ckpt_commit_x *arg, status_x *res,
    struct svc_req *req)
{
	memset(res, 0, sizeof(*res));
	if (!transfer_from_starter(req, "CKPT_COMMIT")) {
		rpc_status(res, EPERM, "refused");
		return TRUE;
	}
	if (transfer_leaving(res))
		return TRUE;
	if (ckpt_fd == -1) {
		rpc_status(res, EINVAL, "no checkpoint was sent");
		return TRUE;
	}
	if (ckpt_commit(arg, res) == -1)
		ckpt_discard();
	return TRUE;
}

bool_t
shadow_event_1_svc(event_x *arg, status_x *res, struct svc_req *req)
{
	memset(res, 0, sizeof(*res));
	if (!transfer_from_starter(req, "EVENT")) {
		rpc_status(res, EPERM, "refused");
		return TRUE;
	}
	if (transfer_leaving(res))
		return TRUE;
	switch (arg->event) {
	case EVENT_SUSPENDED:
		report_suspended(1);
		break;
	case EVENT_UNSUSPENDED:
		report_suspended(0);
		break;
	default:
		log_warnx("job %s: event %d from the starter ignored", sj.id,
		    arg->event);
		rpc_status(res, EINVAL, "unknown event %d", arg->event);
		return TRUE;
	}
	rpc_status_ok(res);
	return TRUE;
}

bool_t
shadow_exit_1_svc(exit_x *arg, status_x *res, struct svc_req *req)
{
	struct shadow_outcome o;

	memset(res, 0, sizeof(*res));
	if (!transfer_from_starter(req, "EXIT")) {
		rpc_status(res, EPERM, "refused");
		return TRUE;
	}
	if (transfer_leaving(res)) {
		shadow_left();
		return TRUE;
	}
	if (arg->how < EXIT_NORMAL || arg->how > EXIT_NOT_STARTED) {
		rpc_status(res, EINVAL, "unknown outcome %d", arg->how);
		return TRUE;
	}
	memset(&o, 0, sizeof(o));
	o.how = arg->how;
	o.code = arg->code;
	o.subcode = arg->subcode;
	/* NaN and absurd values from a broken starter count as 0. */
	o.user_cpu = arg->user_cpu >= 0 && arg->user_cpu < 1e12 ?
	    arg->user_cpu : 0;
	o.sys_cpu = arg->sys_cpu >= 0 && arg->sys_cpu < 1e12 ?
	    arg->sys_cpu : 0;
	o.image_size = arg->image_size >= 0 ? arg->image_size : 0;
	snprintf(o.message, sizeof(o.message), "%s", arg->message ?
	    arg->message : "");
	shadow_outcome(&o);
	rpc_status_ok(res);
	return TRUE;
}

int
shadow_prog_1_freeresult(SVCXPRT *xprt, xdrproc_t xres, caddr_t res)
{
	xdr_free(xres, res);
	return 1;
}
