/*
 * shadow_syscall.c: the system-call service of a standard-universe job
 * (include/syscall_proto.h is the protocol).
 *
 * The shadow listens on a second ephemeral TCP port (its address goes to
 * the starter in hello_res_x.syscall_addr).  The first connection that
 * presents the claim's capability is the job's; the shadow forks a
 * server process for it and stops listening.  The server:
 *
 *  - enters the job's world once and for all: chdir to Iwd, or, when
 *    the job asked for a RootDir other than "/", chroot to it and chdir
 *    to the part of Iwd below it from inside (the kernel then confines
 *    every path, "..", and symbolic link, exactly: an Iwd of
 *    RootDir/.. is the root itself; a shadow that is not root makes
 *    the chroot in a user namespace of its own, its ids mapped to
 *    themselves, and keeps no capability after it), and, when
 *    the shadow is root, becomes the job's owner for good (real,
 *    effective and saved ids, the owner's groups), so each request runs
 *    with the owner's rights and nothing else;
 *  - keeps the job's descriptor table, whose numbers 0, 1, 2 are its
 *    In, Out and Err (/dev/null when it has none), and performs each
 *    call (shadow_calls.c);
 *  - answers the requests one at a time, in order, with the kernel's
 *    result and errno, reading those the job streams several at once
 *    and writing their replies together (server_loop); a malformed or
 *    oversized request gets -EIO and the service goes on.
 *
 * When the job closes the connection (it exited, or was killed), the
 * server writes its counts (calls, bytes each way) and its own CPU time
 * on a pipe to the shadow and exits; the shadow adds them to
 * LocalUserCpu/LocalSysCpu and reports NumRemoteSyscalls, BytesSent (to
 * the job) and BytesRecvd (from the job).
 *
 * Not yet: a restarted job's Out and Err are still emptied at HELLO as
 * for a vanilla job (a checkpointed job will need them kept, and opened
 * with O_CREAT only the first time).
 */
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ad.h"
#include "config.h"
#include "event.h"
#include "fdio.h"
#include "log.h"
#include "priv.h"
#include "rpcutil.h"
#include "shadow.h"
#include "syscall_proto.h"
#include "xalloc.h"

#define HELLO_TIMEOUT	10	/* seconds for the capability record */

/* What the server reports at its end. */
struct syscall_counts {
	long long	calls;
	long long	bytes_in;	/* request bytes, from the job */
	long long	bytes_out;	/* reply bytes, to the job */
	double		user_cpu, sys_cpu;
};

static int			listen_fd = -1;
static char			address[ADDR_STRLEN];
static pid_t			server_pid = -1;
static int			report_fd = -1;	/* the server's pipe */
static int			collected;
static int			lost;	/* it ended without its counts */
static struct syscall_counts	counts;

/* ---------------------------------------------------------------- */
/* The server process (the calls themselves: shadow_calls.c). */

/*
 * Requests are read as they come, several at once when the job streams
 * them (a large read or write goes as pieces in flight), so a small
 * request costs one read and no more; a large record's data is read on
 * its own, up to its end and no further, so nothing large is ever
 * moved in the buffer.  Replies are gathered while the next request is
 * already here, and written together before the server could wait.
 */
#define IN_SLACK	65536	/* bytes a read may take past a record */
#define IN_CAP		(4 + SYSCALL_PROTO_MAX_RECORD + IN_SLACK)
#define OUT_BATCH	65536	/* bytes of small replies gathered */
#define OUT_CAP		(4 + SYSCALL_PROTO_MAX_RECORD + OUT_BATCH)

static uint8_t		*in_buf, *out_buf;
static size_t		 in_pos, in_end, out_len;

/* The record at in_pos: its length, or -1 when its mark is not here. */
static long long
in_record(void)
{
	uint32_t mark;

	if (in_end - in_pos < 4)
		return -1;
	memcpy(&mark, in_buf + in_pos, 4);
	return ntohl(mark) & ~SYSCALL_PROTO_LAST_FRAG;
}

/* Is a whole well-formed request waiting in the buffer? */
static int
in_has_request(void)
{
	long long len = in_record();

	return len >= 0 && len <= SYSCALL_PROTO_MAX_RECORD &&
	    in_end - in_pos >= 4 + (size_t)len;
}

/*
 * Have N bytes (at most IN_CAP) from in_pos in the buffer: 0, or -1
 * when the job hung up.  Reads take what has come, up to IN_SLACK
 * bytes past N.
 */
static int
in_fill(int sock, size_t n)
{
	size_t want;
	ssize_t r;

	if (in_pos == in_end)
		in_pos = in_end = 0;
	else if (IN_CAP - in_pos < n) {
		memmove(in_buf, in_buf + in_pos, in_end - in_pos);
		in_end -= in_pos;
		in_pos = 0;
	}
	while (in_end - in_pos < n) {
		want = n - (in_end - in_pos) + IN_SLACK;
		if (want > IN_CAP - in_end)
			want = IN_CAP - in_end;
		r = read(sock, in_buf + in_end, want);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		in_end += (size_t)r;
	}
	return 0;
}

/* Read and drop N bytes of a request we will not serve. */
static int
drain(int sock, uint32_t n)
{
	size_t part;

	while (n > 0) {
		part = in_end - in_pos;
		if (part == 0) {
			if (in_fill(sock, 1) == -1)
				return -1;
			continue;
		}
		if (part > n)
			part = n;
		in_pos += part;
		n -= (uint32_t)part;
	}
	return 0;
}

/* Write the gathered replies: 0 or -1. */
static int
out_flush(int sock)
{
	int r = out_len > 0 ? fd_write_full(sock, out_buf, out_len) : 0;

	out_len = 0;
	return r;
}

/* Serve the job on SOCK until it hangs up; never returns. */
static void __attribute__((noreturn))
server_loop(int sock, int report)
{
	struct syscall_counts c;
	struct rusage ru;
	struct sxdr out;
	uint32_t mark, len, body;
	long long rec;

	memset(&c, 0, sizeof(c));
	for (;;) {
		/* Never wait for the job while it waits for replies. */
		if (!in_has_request() && out_flush(sock) == -1)
			break;
		if (in_fill(sock, 4) == -1)
			break;
		rec = in_record();
		memcpy(&mark, in_buf + in_pos, 4);
		mark = ntohl(mark);
		len = (uint32_t)rec;
		in_pos += 4;
		c.calls++;
		c.bytes_in += 4 + (long long)len;
		/* Room for the largest reply after those gathered. */
		if (OUT_CAP - out_len < 4 + SYSCALL_PROTO_MAX_RECORD &&
		    out_flush(sock) == -1)
			break;
		if (!(mark & SYSCALL_PROTO_LAST_FRAG) ||
		    len > SYSCALL_PROTO_MAX_RECORD || len < 4) {
			/* Fragments are not used by this protocol. */
			if (drain(sock, len) == -1)
				break;
			calls_break_chain();
			sxdr_init(&out, out_buf + out_len + 4, 8);
			sxdr_put_i64(&out, -EIO);
			body = out.pos;
		} else {
			if (in_fill(sock, len) == -1)
				break;
			body = calls_serve(in_buf + in_pos, len,
			    out_buf + out_len + 4, SYSCALL_PROTO_MAX_RECORD);
			in_pos += len;
		}
		mark = htonl(SYSCALL_PROTO_LAST_FRAG | body);
		memcpy(out_buf + out_len, &mark, 4);
		out_len += 4 + body;
		c.bytes_out += 4 + (long long)body;
	}
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		c.user_cpu = (double)ru.ru_utime.tv_sec +
		    (double)ru.ru_utime.tv_usec / 1e6;
		c.sys_cpu = (double)ru.ru_stime.tv_sec +
		    (double)ru.ru_stime.tv_usec / 1e6;
	}
	fd_write_full(report, &c, sizeof(c));
	_exit(0);
}

/* Open the job's standard file FD (or /dev/null) at job number N: the
 * server's descriptor, or -1. */
static int
std_fd(int fd, int n)
{
	int real = fd != -1 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) :
	    open("/dev/null", n == 0 ? O_RDONLY : O_WRONLY | O_CLOEXEC);

	if (real != -1)
		calls_set_fd(n, real);
	return real;
}

/* In the forked server: enter the job's world.  Never returns. */
/* Write TEXT to the /proc/self file NAME; 0 or -1. */
static int
proc_self_write(const char *name, const char *text)
{
	char path[64];
	int fd, r;

	snprintf(path, sizeof(path), "/proc/self/%s", name);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	r = write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -1;
	close(fd);
	return r;
}

/*
 * A shadow that is not root confines a job to its RootDir all the same:
 * in a user namespace of its own, where its uid and gid map to
 * themselves (it keeps exactly its rights on every file), it may
 * chroot, and the kernel keeps every path, "..", and symbolic link of
 * the job's inside, as it does for root's chroot.
 */
static int
confine_unprivileged(void)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWUSER) == -1)
		return -1;
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)uid,
	    (unsigned)uid);
	if (proc_self_write("uid_map", map) == -1 ||
	    proc_self_write("setgroups", "deny") == -1)
		return -1;
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)gid,
	    (unsigned)gid);
	return proc_self_write("gid_map", map);
}

/* Then none of the namespace's capabilities is kept. */
static int
drop_capabilities(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	return (int)syscall(SYS_capset, &h, d);
}

static void __attribute__((noreturn))
server_start(int sock, int report, int as_root)
{
	char *root = NULL;
	int keep[5], nkeep, lo;
	long mb;

	calls_init();
	mb = param_int("MAX_JOB_WRITE_MB", 0);
	calls_limit_writes(mb > 0 ? mb * 1024 * 1024 : -1);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	if ((keep[2] = std_fd(sj.in_fd, 0)) == -1 ||
	    (keep[3] = std_fd(sj.out_fd, 1)) == -1 ||
	    (keep[4] = std_fd(sj.err_fd, 2)) == -1)
		_exit(3);
	if (chdir(sj.iwd) == -1)
		_exit(4);
	if (ad_get_string(sj.ad, "RootDir", &root) == 0 &&
	    strcmp(root, "/") != 0 && *root != '\0') {
		size_t rl = strlen(root);

		while (rl > 1 && root[rl - 1] == '/')
			rl--;
		if ((!as_root && confine_unprivileged() == -1) ||
		    chroot(root) == -1 || chdir("/") == -1 ||
		    (!as_root && drop_capabilities() == -1))
			_exit(5);
		/*
		 * Iwd under RootDir by its name: the rest of it, walked from
		 * inside the root, where the kernel keeps "..", and symbolic
		 * links, in (Iwd "/jail/.." is the root itself, not its
		 * parent); else the root itself.
		 */
		if (strncmp(sj.iwd, root, rl) == 0 && sj.iwd[rl] == '/' &&
		    sj.iwd[rl + 1] != '\0' && chdir(sj.iwd + rl) == -1)
			_exit(5);
	}
	free(root);
	if (as_root && priv_become_user(sj.uid, sj.gid) == -1)
		_exit(6);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(7);
	umask(022);
	/* Nothing of the shadow's survives but what the service needs:
	 * above all not the starter's connection, whose hang-up tells the
	 * starter that the shadow is gone. */
	keep[0] = sock;
	keep[1] = report;
	nkeep = 5;
	lo = 3;
	for (;;) {
		int low = -1, j;

		for (j = 0; j < nkeep; j++)
			if (keep[j] >= lo && (low == -1 || keep[j] < low))
				low = keep[j];
		if (low == -1) {
			close_range((unsigned)lo, ~0U, 0);
			break;
		}
		if (low > lo)
			close_range((unsigned)lo, (unsigned)low - 1, 0);
		lo = low + 1;
	}
	in_buf = xmalloc(IN_CAP);
	out_buf = xmalloc(OUT_CAP);
	server_loop(sock, report);
}

/* ---------------------------------------------------------------- */
/* The shadow's side. */

static void
on_report(int fd, short revents, void *arg)
{
	syscall_collect(0);
}

/* Read the capability record on a fresh connection: 0 if it matches. */
static int
check_capability(int sock)
{
	uint8_t buf[4 + 4 + CAPABILITY_MAX + 4];
	char cap[CAPABILITY_MAX + 1];
	struct pollfd p = { sock, POLLIN, 0 };
	struct sxdr x;
	uint32_t mark, len;
	size_t got = 0;
	ssize_t r;
	double end = monotime() + HELLO_TIMEOUT;

	/* The record mark first, then exactly its length. */
	len = 4;
	while (got < len) {
		int ms = (int)((end - monotime()) * 1000);

		if (ms <= 0 || poll(&p, 1, ms) != 1)
			return -1;
		r = read(sock, buf + got, len - got);
		if (r <= 0)
			return -1;
		got += (size_t)r;
		if (got == 4 && len == 4) {
			memcpy(&mark, buf, 4);
			mark = ntohl(mark);
			if (!(mark & SYSCALL_PROTO_LAST_FRAG) ||
			    (mark & ~SYSCALL_PROTO_LAST_FRAG) >
			    sizeof(buf) - 4)
				return -1;
			len = 4 + (mark & ~SYSCALL_PROTO_LAST_FRAG);
		}
	}
	sxdr_init(&x, buf + 4, len - 4);
	sxdr_get_string(&x, cap, sizeof(cap));
	if (x.err || x.pos != x.len)
		return -1;
	return shadow_capability_ok(cap) ? 0 : -1;
}

static void
on_connect(int fd, short revents, void *arg)
{
	struct sockaddr_in from;
	socklen_t fl = sizeof(from);
	uint8_t reply[8];
	uint32_t mark;
	int sock, p[2], one = 1;
	pid_t pid;

	sock = accept4(listen_fd, (struct sockaddr *)&from, &fl, SOCK_CLOEXEC);
	if (sock == -1)
		return;
	if (check_capability(sock) == -1) {
		log_warnx("job %s: system-call connection from %s refused: "
		    "wrong capability", sj.id, inet_ntoa(from.sin_addr));
		close(sock);
		return;
	}
	setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	mark = htonl(SYSCALL_PROTO_LAST_FRAG | 4);
	memcpy(reply, &mark, 4);
	memset(reply + 4, 0, 4);
	if (pipe2(p, O_CLOEXEC) == -1 || fd_write_full(sock, reply, 8) == -1) {
		log_warn("job %s: cannot start the system-call service",
		    sj.id);
		close(sock);
		return;
	}
	if ((pid = fork()) == -1) {
		log_warn("job %s: fork", sj.id);
		close(sock);
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		close(p[0]);
		server_start(sock, p[1], shadow_is_root());
	}
	close(p[1]);
	close(sock);
	event_fd_del(listen_fd);
	close(listen_fd);
	listen_fd = -1;
	server_pid = pid;
	report_fd = p[0];
	event_fd_add(report_fd, POLLIN, on_report, NULL);
	log_info("job %s: system calls from %s served by pid %d", sj.id,
	    inet_ntoa(from.sin_addr), (int)pid);
}

static void
syscall_atexit(void)
{
	if (server_pid > 0 && !collected)
		kill(server_pid, SIGKILL);
}

int
syscall_init(void)
{
	struct sockaddr_in bound;

	listen_fd = rpc_listen_tcp(param("BIND_ADDRESS"), 0, &bound);
	if (listen_fd == -1)
		return -1;
	fcntl(listen_fd, F_SETFD, FD_CLOEXEC);
	shadow_format_address(&bound, address);
	event_fd_add(listen_fd, POLLIN, on_connect, NULL);
	atexit(syscall_atexit);
	return 0;
}

const char *
syscall_address(void)
{
	return listen_fd != -1 ? address : "";
}

/* Why the service exited with CODE before serving (server_start). */
static const char *
server_failure(int code)
{
	switch (code) {
	case 3:
		return "cannot open the job's standard files";
	case 4:
		return "cannot enter its initialdir";
	case 5:
		return "cannot confine it to its rootdir (a chroot, as root or "
		    "in a user namespace of the shadow's own)";
	case 6:
		return "cannot become the job's owner";
	default:
		return "its shadow is gone";
	}
}

void
syscall_collect(double wait)
{
	struct pollfd p;
	struct syscall_counts c;
	int status;

	if (collected || report_fd == -1)
		return;
	p.fd = report_fd;
	p.events = POLLIN;
	if (poll(&p, 1, (int)(wait * 1000)) != 1)
		return;
	if (fd_read_full(report_fd, &c, sizeof(c)) == 0)
		counts = c;
	else
		lost = 1;
	collected = 1;
	event_fd_del(report_fd);
	close(report_fd);
	report_fd = -1;
	if (waitpid(server_pid, &status, 0) == server_pid &&
	    WIFEXITED(status) && WEXITSTATUS(status) >= 3 &&
	    WEXITSTATUS(status) <= 7)
		log_warnx("job %s: the system-call service could not start: "
		    "%s", sj.id, server_failure(WEXITSTATUS(status)));
	if (lost) {
		log_warnx("job %s: its system-call service (pid %d) died "
		    "before the job ended", sj.id, (int)server_pid);
		shadow_syscalls_lost();
		return;
	}
	sj.bytes_sent += counts.bytes_in;
	sj.bytes_received += counts.bytes_out;
	log_info("job %s: %lld remote system calls, %lld bytes from the job, "
	    "%lld to it, %.3f s user and %.3f s system CPU", sj.id,
	    counts.calls, counts.bytes_in, counts.bytes_out, counts.user_cpu,
	    counts.sys_cpu);
}

int
syscall_lost(void)
{
	return lost;
}

void
syscall_cpu(double *user, double *sys)
{
	*user += counts.user_cpu;
	*sys += counts.sys_cpu;
}

void
syscall_report_attrs(struct ad *ad)
{
	if (server_pid <= 0)
		return;
	ad_set_int(ad, "NumRemoteSyscalls", counts.calls);
	ad_set_int(ad, "BytesSent", counts.bytes_out);
	ad_set_int(ad, "BytesRecvd", counts.bytes_in);
}
