/*
 * remote_outer.c: the sandbox's outer seccomp filter.
 *
 * The trap's filter (remote_trap.c) lets every call issued from the gate
 * page through, so a program that jumps into the gate (it is at a fixed
 * address) could make local system calls on the execute host: the
 * loophole the 1989 system admitted.  In remote mode a second filter is
 * installed first; seccomp runs every filter and the strongest action
 * wins (KILL, TRAP, ERRNO, ALLOW), so:
 *
 *  - a call from the program's own code meets the trap's TRAP, which
 *    beats this filter's ERRNO: it reaches the SIGSYS handler and is
 *    forwarded to the shadow, performed locally or refused as the table
 *    says;
 *  - a call from the gate meets this filter: opening files, sockets,
 *    new processes (threads alone may be made), exec, ptrace, signals
 *    to other processes, mounts and namespaces, module and kernel
 *    loading fail with EPERM, whoever asks.  What the library needs locally (memory, time, its
 *    socket to the shadow, signals to itself) stays allowed, bounded by
 *    the chroot and the unprivileged user the starter gave the job.
 *
 * Under Condor the starter has already installed the same filter
 * (src/common/box_filter.c) before it executed the job, with the two
 * doors the exec and the start-up need: nothing in the program's file,
 * .preinit_array and constructors included, ever ran outside it.  The
 * job's own copy, installed here before any of the program runs, shuts
 * those doors too; outside Condor it is the only one.
 *
 * Consequences for checkpoints under Condor: the forked checkpoint
 * writer (clone) and checkpoint files opened by name are refused, so
 * the starter asks for CONDOR_CKPT_FORK=0 and will give the checkpoint
 * a descriptor (CONDOR_CKPT_FILE=fd:N).
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "box_filter.h"
#include "remote.h"

static struct sock_filter	outer[BOX_FILTER_MAX];

int
remote_outer_install(void)
{
	struct sock_fprog prog;
	int n = box_filter_build(outer,
	    (uint32_t)condor_sys0(SYS_getpid), NULL);
	long r;

	if (n < 0)
		return -E2BIG;
	if ((r = condor_sys5(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) < 0)
		return (int)r;
	prog.len = (unsigned short)n;
	prog.filter = outer;
	return (int)condor_sys3(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0,
	    &prog);
}
