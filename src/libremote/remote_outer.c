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
 *    new processes or threads, exec, ptrace, signals to other processes,
 *    mounts and namespaces, module and kernel loading fail with EPERM,
 *    whoever asks.  What the library needs locally (memory, time, its
 *    socket to the shadow, signals to itself) stays allowed, bounded by
 *    the chroot and the unprivileged user the starter gave the job.
 *
 * Why the job installs it and not the starter: a filter that refuses
 * execve, installed before exec, would refuse the exec of the job
 * itself, and BPF cannot allow "the first execve only".  The start-up
 * code installs it (remote_trap_install, remote mode) before any of the
 * program's own code runs (before main and before every constructor but
 * condor_rt0's); an exec'd program can never remove a filter, so this is
 * equivalent to the starter installing it just before exec.  The
 * starter sets PR_SET_NO_NEW_PRIVS itself.
 *
 * Consequences for checkpoints under Condor: the forked checkpoint
 * writer (clone) and checkpoint files opened by name are refused, so
 * the starter asks for CONDOR_CKPT_FORK=0 and will give the checkpoint
 * a descriptor (CONDOR_CKPT_FILE=fd:N).
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "remote.h"

#define OUTER_MAX	256

static const int denied[] = {
	SYS_open, SYS_openat, SYS_openat2, SYS_creat, SYS_open_by_handle_at,
	SYS_name_to_handle_at, SYS_open_tree, SYS_fsopen, SYS_fspick,
	SYS_fsmount, SYS_move_mount, SYS_mount, SYS_umount2, SYS_pivot_root,
	SYS_chroot, SYS_mknod, SYS_mknodat,
	SYS_socket, SYS_socketpair, SYS_connect, SYS_bind, SYS_listen,
	SYS_accept, SYS_accept4,
	SYS_fork, SYS_vfork, SYS_clone, SYS_clone3, SYS_execve,
	SYS_execveat, SYS_ptrace, SYS_unshare, SYS_setns,
	SYS_rt_sigqueueinfo, SYS_rt_tgsigqueueinfo, SYS_pidfd_open,
	SYS_pidfd_send_signal, SYS_pidfd_getfd,
	SYS_init_module, SYS_finit_module, SYS_delete_module,
	SYS_kexec_load, SYS_kexec_file_load, SYS_bpf, SYS_perf_event_open,
	SYS_userfaultfd, SYS_io_uring_setup, SYS_keyctl, SYS_add_key,
	SYS_request_key, SYS_reboot, SYS_swapon, SYS_swapoff, SYS_acct,
	SYS_quotactl, SYS_fanotify_init,
};

static struct sock_filter	outer[OUTER_MAX];
static int			nouter;

static void
emit(uint16_t code, uint8_t jt, uint8_t jf, uint32_t k)
{
	struct sock_filter f = { code, jt, jf, k };

	if (nouter < OUTER_MAX)
		outer[nouter++] = f;
	else
		nouter = OUTER_MAX + 1;
}

#define LD(off)		emit(BPF_LD | BPF_W | BPF_ABS, 0, 0, (off))
#define RET(v)		emit(BPF_RET | BPF_K, 0, 0, (v))
#define JEQ(k, t, f)	emit(BPF_JMP | BPF_JEQ | BPF_K, (t), (f), (k))
#define JGE(k, t, f)	emit(BPF_JMP | BPF_JGE | BPF_K, (t), (f), (k))
#define DENY		(SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))
#define OFF_NR		offsetof(struct seccomp_data, nr)
#define OFF_ARCH	offsetof(struct seccomp_data, arch)
#define OFF_ARG0_LO	offsetof(struct seccomp_data, args[0])
#define OFF_ARG0_HI	(offsetof(struct seccomp_data, args[0]) + 4)

int
remote_outer_install(void)
{
	struct sock_fprog prog;
	uint32_t pid = (uint32_t)condor_sys0(SYS_getpid);
	size_t i;
	long r;

	nouter = 0;
	LD(OFF_ARCH);
	JEQ(AUDIT_ARCH_X86_64, 1, 0);
	RET(DENY);				/* int 0x80 and friends */
	LD(OFF_NR);
	JGE(0x40000000U, 0, 1);			/* the x32 numbers */
	RET(DENY);
	for (i = 0; i < sizeof(denied) / sizeof(denied[0]); i++) {
		JEQ((uint32_t)denied[i], 0, 1);
		RET(DENY);
	}
	/* kill, tkill, tgkill: only to this process; process_vm_readv and
	 * process_vm_writev too (remote_user.c copies the program's
	 * buffers with them, the kernel checking its pointers). */
	JEQ(SYS_kill, 4, 0);
	JEQ(SYS_tkill, 3, 0);
	JEQ(SYS_tgkill, 2, 0);
	JEQ(SYS_process_vm_readv, 1, 0);
	JEQ(SYS_process_vm_writev, 0, 6);
	LD(OFF_ARG0_HI);
	JEQ(0, 0, 3);
	LD(OFF_ARG0_LO);
	JEQ(pid, 0, 1);
	RET(SECCOMP_RET_ALLOW);
	RET(DENY);
	RET(SECCOMP_RET_ALLOW);
	if (nouter > OUTER_MAX)
		return -E2BIG;
	if ((r = condor_sys5(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) < 0)
		return (int)r;
	prog.len = (unsigned short)nouter;
	prog.filter = outer;
	return (int)condor_sys3(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0,
	    &prog);
}
