/*
 * fuzz_rpc.c: libFuzzer target for two RPC programs' request decoding
 * and dispatch, through the dispatchers rpcgen writes: the shadow's
 * SHADOW_PROG (include/shadow_rpc.x, its handlers in
 * src/shadow/shadow_transfer.c) and the master's MASTER_PROG
 * (include/master_rpc.x, src/master/master.c).
 *
 * The bytes are a sequence of calls, each a 4-byte big-endian length
 * (high bit ignored) then the procedure number and its XDR arguments,
 * as a client's call body would carry them.  Each call goes to the
 * dispatcher on a transport of the fuzzer's, made to free a failed
 * decoding's leftovers as rpc_serve's are: it decodes the arguments
 * from those bytes, and must be able to encode every reply a handler
 * gives (a reply that cannot go out is a bug).  The shadow's calls
 * share one transport per input, so a HELLO with the claim's
 * capability ("fuzzcap") lets the later calls of the input in (and a
 * RECONNECT with it moves them to another transport); the
 * master's come once from a local caller (allowed) and once from an
 * unknown one (refused).
 *
 * The rest of each daemon is replaced by stand-ins that check what
 * reaches them: the shadow's outcome, its starter's transport; the
 * master's signals (the master has no children here, and may signal
 * only itself).
 */
#include <sys/stat.h>
#include <sys/socket.h>

#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rpc/rpc.h>

#include "ad.h"
#include "config.h"
#include "log.h"
#include "master_rpc.h"
#include "rpcutil.h"
#include "shadow.h"
#include "shadow_rpc.h"

int	LLVMFuzzerInitialize(int *argc, char ***argv);
int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The dispatchers rpcgen writes. */
void	shadow_prog_1(struct svc_req *, SVCXPRT *);
void	master_prog_1(struct svc_req *, SVCXPRT *);

static char	spool[] = "/tmp/fuzz_rpc.XXXXXX";
static XDR	args;			/* the current call's arguments */
static char	reply[4 * SHADOW_CHUNK];

/* ---------------------------------------------------------------- */
/* The transport. */

static bool_t
fake_getargs(SVCXPRT *xprt, xdrproc_t proc, void *where)
{
	return proc(&args, where);
}

static bool_t
fake_freeargs(SVCXPRT *xprt, xdrproc_t proc, void *where)
{
	xdr_free(proc, where);
	return TRUE;
}

/* Every reply must encode: one that cannot never reaches the caller. */
static bool_t
fake_reply(SVCXPRT *xprt, struct rpc_msg *msg)
{
	XDR x;
	bool_t ok;

	xdrmem_create(&x, reply, sizeof(reply), XDR_ENCODE);
	ok = xdr_replymsg(&x, msg);
	xdr_destroy(&x);
	if (!ok)
		abort();
	return TRUE;
}

static const struct xp_ops fake_ops = {
	.xp_getargs = fake_getargs,
	.xp_reply = fake_reply,
	.xp_freeargs = fake_freeargs,
};

static SVCXPRT	local_xprt, stranger_xprt;

static void
fake_xprt(SVCXPRT *xprt, int fd)
{
	memset(xprt, 0, sizeof(*xprt));
	xprt->xp_fd = fd;
	xprt->xp_ops = &fake_ops;
}

/* ---------------------------------------------------------------- */
/* The shadow's other parts. */

struct shadow_job	sj;

void
shadow_starter_alive(void)
{
}

void
shadow_watch_fd(int fd)
{
	/* HELLO's transport, or the one a RECONNECT came on. */
	if (fd != local_xprt.xp_fd && fd != stranger_xprt.xp_fd)
		abort();
}

long
shadow_job_lease(void)
{
	return 60;	/* RECONNECT is served */
}

void
shadow_reconnected(const char *from)
{
	if (from == NULL)
		abort();
}

void
shadow_outcome(const struct shadow_outcome *o)
{
	if (o->how < EXIT_NORMAL || o->how > EXIT_FAILED ||
	    !(o->user_cpu >= 0 && o->user_cpu < 1e12) ||
	    !(o->sys_cpu >= 0 && o->sys_cpu < 1e12) || o->image_size < 0 ||
	    memchr(o->message, '\0', sizeof(o->message)) == NULL)
		abort();
}

void
shadow_hold_soon(const char *reason)
{
	if (reason == NULL || *reason == '\0')
		abort();
}

void
report_suspended(int suspended)
{
}

void
report_checkpointed(const struct shadow_outcome *o)
{
}

int
shadow_as_owner(void)
{
	return 0;
}

void
shadow_as_self(void)
{
}

int
shadow_is_root(void)
{
	return 0;
}

int
shadow_is_leaving(void)
{
	return 0;
}

void
shadow_left(void)
{
}

void
shadow_format_address(struct sockaddr_in *bound, char *out)
{
	addr_format(bound, out);
}

const char *
syscall_address(void)
{
	return "";
}

/* ---------------------------------------------------------------- */
/* The master's signals (master.c and master_children.c are built with
 * kill renamed to this). */

int	fuzz_kill(pid_t, int);

int
fuzz_kill(pid_t pid, int sig)
{
	if (pid != getpid() || (sig != SIGHUP && sig != SIGTERM))
		abort();
	return 0;
}

/* ---------------------------------------------------------------- */

static int
temp_file(const char *name)
{
	char *path = NULL;
	int fd;

	if (asprintf(&path, "%s/%s", spool, name) == -1 ||
	    (fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600)) == -1) {
		perror("fuzz_rpc");
		exit(1);
	}
	free(path);
	return fd;
}

static void
remove_spool(void)
{
	char *cmd = NULL;

	/* Only what this fuzzer made: the files below. */
	if (asprintf(&cmd, "rm -rf '%s'", spool) != -1 && system(cmd) == -1)
		perror("fuzz_rpc");
	free(cmd);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *dir, err[256];
	int sv[2];

	if (mkdtemp(spool) == NULL ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1) {
		perror("fuzz_rpc");
		exit(1);
	}
	atexit(remove_spool);
	log_init("fuzz_rpc");
	log_set_stderr(0);
	log_open_file("/dev/null");
	config_set("SPOOL", spool, 0);
	config_set("BIND_ADDRESS", "127.0.0.1", 0);
	fake_xprt(&local_xprt, sv[0]);
	/* Not a socket: the caller's address is unknown. */
	fake_xprt(&stranger_xprt, open("/dev/null", O_RDONLY | O_CLOEXEC));
	/* As rpc_serve's transports: a request that does not decode must
	 * not leak what it decoded (the leak checker sees to it). */
	if (rpc_xprt_free_on_decode_error(&local_xprt) == -1 ||
	    rpc_xprt_free_on_decode_error(&stranger_xprt) == -1)
		abort();

	snprintf(sj.id, sizeof(sj.id), "1.0");
	sj.cluster = 1;
	sj.owner = strdup("nobody");
	sj.iwd = spool;
	sj.machine = strdup("exec.example");
	snprintf(sj.capability, sizeof(sj.capability), "fuzzcap");
	sj.claimed = 1;
	sj.ad = ad_new();
	ad_set_string(sj.ad, "Owner", "nobody");
	ad_set_int(sj.ad, "ClusterId", 1);
	sj.exe_fd = temp_file("exe");
	if (write(sj.exe_fd, "\177ELF executable", 15) != 15)
		exit(1);
	sj.exe_size = 15;
	sj.in_fd = -1;
	sj.out_fd = temp_file("out");
	sj.err_fd = temp_file("err");
	/* Inputs to transfer: a file and a directory holding one. */
	close(temp_file("input.txt"));
	if (asprintf(&dir, "%s/indir", spool) == -1 || mkdir(dir, 0700) == -1)
		exit(1);
	free(dir);
	close(temp_file("indir/inner.txt"));
	ad_set_string(sj.ad, "TransferInput", "input.txt, indir");
	ad_set_string(sj.ad, "TransferOutputRemaps", "a = b; c/d = /dev/null");
	if (xfer_inputs_list(err, sizeof(err)) == -1) {
		fprintf(stderr, "fuzz_rpc: %s\n", err);
		exit(1);
	}
	return 0;
}

/* Serve the calls in DATA with DISPATCH on XPRT. */
static void
serve(const uint8_t *data, size_t size, u_long prog,
    void (*dispatch)(struct svc_req *, SVCXPRT *), SVCXPRT *xprt)
{
	struct svc_req req;
	uint32_t len, proc;
	size_t at = 0;

	while (size - at >= 8) {
		memcpy(&len, data + at, 4);
		len = __builtin_bswap32(len) & 0x7fffffff;
		at += 4;
		if (len > size - at)
			len = (uint32_t)(size - at);
		if (len < 4) {
			at += len;
			continue;
		}
		memcpy(&proc, data + at, 4);
		memset(&req, 0, sizeof(req));
		req.rq_prog = prog;
		req.rq_vers = 1;
		req.rq_proc = __builtin_bswap32(proc);
		req.rq_xprt = xprt;
		xdrmem_create(&args, (char *)data + at + 4, len - 4,
		    XDR_DECODE);
		dispatch(&req, xprt);
		xdr_destroy(&args);
		at += len;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	transfer_init();
	if (ftruncate(sj.out_fd, 0) == -1 || ftruncate(sj.err_fd, 0) == -1)
		abort();
	serve(data, size, PROG_SHADOW, shadow_prog_1, &local_xprt);
	serve(data, size, PROG_SHADOW, shadow_prog_1, &stranger_xprt);
	xfer_finish(size % 2);
	serve(data, size, PROG_MASTER, master_prog_1, &local_xprt);
	serve(data, size, PROG_MASTER, master_prog_1, &stranger_xprt);
	return 0;
}
