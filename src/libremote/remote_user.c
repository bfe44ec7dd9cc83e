/*
 * remote_user.c: copying the program's memory from the SIGSYS handler
 * without trusting its pointers.
 *
 * A forwarded call reads or writes the program's buffers in the handler,
 * not in the kernel, so a bad pointer (unmapped, or a read-only page for
 * read()) would crash the program where the native call returns EFAULT.
 * The copies go through process_vm_readv/process_vm_writev on the
 * process itself: the kernel walks the page tables with the mapping's
 * protection (no FOLL_FORCE), copies what it can and reports how much,
 * so unmapped and read-only ranges are both caught, and nothing is ever
 * touched by the handler itself.  The outer filter (remote_outer.c)
 * allows these two calls to this process only.
 *
 * The pid is read once (remote_user_init, at start and at restart:
 * the remote mode refuses fork, so it cannot change in between).
 *
 * Cost: one system call per copy instead of a memcpy, about 1 us for a
 * small one (pinning the pages); for large buffers the copy runs at
 * memcpy speed, and it replaces the memcpy rather than adding to it.
 * Where the kernel refuses (ENOSYS, EPERM), the copy falls back to a
 * plain memcpy, as before.
 */
#include <errno.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "remote.h"

#define PAGE	4096UL	/* bytes; only the probing step of strings */

static int	vm_broken;
static long	self;	/* our pid: the copies name it */

void
remote_user_init(void)
{
	self = condor_sys0(SYS_getpid);
}

static long
vm_copy(int out, void *user, void *mine, size_t n)
{
	struct iovec l = { mine, n }, r = { user, n };
	long got;

	if (n == 0)
		return 0;
	if (!vm_broken) {
		if (self <= 0)
			remote_user_init();
		got = condor_sys6(out ? SYS_process_vm_writev :
		    SYS_process_vm_readv, self, &l, 1, &r, 1, 0);
		if (got >= 0 || got == -EFAULT)
			return got;
		vm_broken = 1;
	}
	if (out)
		cj_memcpy(user, mine, n);
	else
		cj_memcpy(mine, user, n);
	return (long)n;
}

long
remote_copy_in(void *dst, const void *user, size_t n)
{
	return vm_copy(0, (void *)(uintptr_t)user, dst, n);
}

long
remote_copy_out(void *user, const void *src, size_t n)
{
	return vm_copy(1, user, (void *)(uintptr_t)src, n);
}

long
remote_copy_string(char *dst, const char *user, size_t size)
{
	size_t done = 0, want, i;
	long got;

	while (done < size) {
		/* Up to the end of the page: one call for most paths. */
		want = PAGE - ((uintptr_t)(user + done) & (PAGE - 1));
		if (want > size - done)
			want = size - done;
		got = remote_copy_in(dst + done, user + done, want);
		if (got <= 0)
			return -EFAULT;
		for (i = done; i < done + (size_t)got; i++)
			if (dst[i] == '\0')
				return (long)i;
		done += (size_t)got;
		if ((size_t)got < want)
			return -EFAULT;
	}
	return -ENAMETOOLONG;
}
