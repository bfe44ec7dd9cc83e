/*
 * remote_poll.c: poll, ppoll, select and pselect6 under Condor.
 *
 * Every descriptor a job has is a file at the shadow (pipes, sockets
 * and the like are refused), and the kernel answers poll on a regular
 * file at once: readable and writable, never an exception.  So these
 * calls are answered here without a round trip; only a descriptor the
 * library does not know as open costs one (fcntl F_GETFD at the
 * shadow), to tell a closed descriptor from one the file table lost
 * track of.  When nothing is asked about, nothing can ever become
 * ready, and the caller (remote_trap.c) sleeps out the timeout locally.
 *
 * epoll is refused with ENOSYS under Condor (epoll_create is, and the
 * table leaves epoll_wait and epoll_ctl to the default): an epoll set
 * would live in the execute host's kernel, which knows none of the
 * job's files.
 *
 * Single-threaded under Condor (clone is refused): the file table is
 * read without the trap's lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "remote.h"

#define POLL_BATCH	64		/* struct pollfd per copy */
#define SELECT_MAX	8192		/* descriptors select looks at */
#define READY_EVENTS	(POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM)

static int
fd_is_open(int fd)
{
	long a[6] = { fd, F_GETFD, 0, 0, 0, 0 };

	if (fd < 0)
		return 0;
	if (fd < FT_MAXFD && ft_fds[fd].file != 0)
		return 1;
	return remote_call(SYS_fcntl, a) >= 0;
}

static long
poll_ready(struct pollfd *user, unsigned long nfds)
{
	static struct pollfd p[POLL_BATCH];
	struct rlimit rl;
	unsigned long i, n, done;
	size_t len;
	long ready = 0;

	if (condor_sys4(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, &rl) == 0 &&
	    nfds > rl.rlim_cur)
		return -EINVAL;
	for (done = 0; done < nfds; done += n) {
		n = nfds - done > POLL_BATCH ? POLL_BATCH : nfds - done;
		len = n * sizeof(p[0]);
		if (remote_copy_in(p, user + done, len) != (long)len)
			return -EFAULT;
		for (i = 0; i < n; i++) {
			if (p[i].fd < 0)
				p[i].revents = 0;
			else if (!fd_is_open(p[i].fd))
				p[i].revents = POLLNVAL;
			else
				p[i].revents = p[i].events & READY_EVENTS;
			if (p[i].revents != 0)
				ready++;
		}
		if (remote_copy_out(user + done, p, len) != (long)len)
			return -EFAULT;
	}
	return ready;
}

/* One fd_set of the program's, NFDS bits, rounded to longs as the
 * kernel copies them. */
static long
set_in(unsigned long *set, const void *user, size_t bytes)
{
	if (user == 0) {
		cj_memset(set, 0, bytes);
		return 0;
	}
	return remote_copy_in(set, user, bytes) == (long)bytes ? 0 : -EFAULT;
}

static long
select_ready(long nfds, void *ur, void *uw, void *ue)
{
	static unsigned long r[SELECT_MAX / 64], w[SELECT_MAX / 64],
	    e[SELECT_MAX / 64];
	size_t bytes;
	long fd, ready = 0;
	unsigned long bit;

	if (nfds < 0)
		return -EINVAL;
	if (nfds > SELECT_MAX)
		nfds = SELECT_MAX;
	bytes = (size_t)(nfds + 63) / 64 * sizeof(long);
	if (set_in(r, ur, bytes) < 0 || set_in(w, uw, bytes) < 0 ||
	    set_in(e, ue, bytes) < 0)
		return -EFAULT;
	for (fd = 0; fd < nfds; fd++) {
		bit = 1UL << (fd % 64);
		if (!((r[fd / 64] | w[fd / 64] | e[fd / 64]) & bit))
			continue;
		if (!fd_is_open((int)fd))
			return -EBADF;
		ready += (r[fd / 64] & bit) != 0;
		ready += (w[fd / 64] & bit) != 0;
		e[fd / 64] &= ~bit;
	}
	if ((ur != 0 && remote_copy_out(ur, r, bytes) != (long)bytes) ||
	    (uw != 0 && remote_copy_out(uw, w, bytes) != (long)bytes) ||
	    (ue != 0 && remote_copy_out(ue, e, bytes) != (long)bytes))
		return -EFAULT;
	return ready;
}

long
remote_poll_ready(long nr, const long a[6])
{
	switch (nr) {
	case SYS_poll:
	case SYS_ppoll:
		return poll_ready((struct pollfd *)a[0],
		    (unsigned long)(unsigned int)a[1]);
	case SYS_select:
	case SYS_pselect6:
		return select_ready((int)a[0], (void *)a[1], (void *)a[2],
		    (void *)a[3]);
	}
	return -ENOSYS;
}
