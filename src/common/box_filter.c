/*
 * box_filter.c: the outer seccomp filter of a standard job's box (see
 * box_filter.h, and src/libremote/remote_outer.c for why it has the
 * shape it has).
 *
 * Opening files, sockets, new processes, exec, ptrace, signals to other
 * processes, mounts and namespaces, module and kernel loading all fail
 * with EPERM.  Threads may be made (clone with the flags of glibc's
 * pthread_create, BOX_CLONE_THREAD; clone3 answers ENOSYS, so that
 * glibc falls back on clone): they share everything the process has
 * and gain nothing.  What the library needs locally (memory,
 * time, its socket to the shadow, signals to itself) stays allowed,
 * bounded by the chroot and the account the starter gave the job.
 *
 * The starter installs it before it execs the job, so it needs two
 * doors the job's own copy keeps shut: the exec of the job itself,
 * through one descriptor the exec closes (execveat with AT_EMPTY_PATH),
 * and the library's /proc files, opened relative to the descriptor the
 * starter hands over; and a resuming job's restore needs a userfaultfd
 * and a helper process (clone with no flags).  A program that finds
 * these doors gains nothing: whatever it executes, and any process it
 * makes, inherits every filter, the chroot, the account and the cgroup;
 * the /proc it reaches is a procfs of the job's own, mounted nowhere
 * (".." from it is itself), showing its account's processes alone; and
 * only a resuming job's filter lets the userfaultfd call and the clone
 * through (with INCREMENTAL_CHECKPOINTS, every job's lets through a
 * user-mode-only userfaultfd, for the library's write-protection, made
 * before its own filter refuses it).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/syscall.h>

#include "box_filter.h"

static const int denied[] = {
	SYS_open, SYS_creat, SYS_open_by_handle_at,
	SYS_name_to_handle_at, SYS_open_tree, SYS_fsopen, SYS_fspick,
	SYS_fsmount, SYS_move_mount, SYS_mount, SYS_umount2, SYS_pivot_root,
	SYS_chroot, SYS_mknod, SYS_mknodat, SYS_openat2,
	SYS_socket, SYS_socketpair, SYS_connect, SYS_bind, SYS_listen,
	SYS_accept, SYS_accept4,
	SYS_fork, SYS_vfork, SYS_execve,
	SYS_ptrace, SYS_unshare, SYS_setns,
	SYS_rt_sigqueueinfo, SYS_pidfd_open,
	SYS_pidfd_send_signal, SYS_pidfd_getfd,
	SYS_init_module, SYS_finit_module, SYS_delete_module,
	SYS_kexec_load, SYS_kexec_file_load, SYS_bpf, SYS_perf_event_open,
	SYS_io_uring_setup, SYS_keyctl, SYS_add_key,
	SYS_request_key, SYS_reboot, SYS_swapon, SYS_swapoff, SYS_acct,
	SYS_quotactl, SYS_fanotify_init,
};

#define DENY		(SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))
#define OFF_NR		offsetof(struct seccomp_data, nr)
#define OFF_ARCH	offsetof(struct seccomp_data, arch)
#define OFF_ARG_LO(i)	offsetof(struct seccomp_data, args[i])
#define OFF_ARG_HI(i)	(offsetof(struct seccomp_data, args[i]) + 4)

struct prog {
	struct sock_filter	*f;
	int			 n;
};

static void
emit(struct prog *p, uint16_t code, uint8_t jt, uint8_t jf, uint32_t k)
{
	if (p->n < BOX_FILTER_MAX) {
		p->f[p->n].code = code;
		p->f[p->n].jt = jt;
		p->f[p->n].jf = jf;
		p->f[p->n].k = k;
	}
	p->n++;
}

#define LD(off)		emit(p, BPF_LD | BPF_W | BPF_ABS, 0, 0, (off))
#define RET(v)		emit(p, BPF_RET | BPF_K, 0, 0, (v))
#define JEQ(k, t, f)	emit(p, BPF_JMP | BPF_JEQ | BPF_K, (t), (f), (k))
#define JGE(k, t, f)	emit(p, BPF_JMP | BPF_JGE | BPF_K, (t), (f), (k))

/* Call NR is allowed only when its argument ARG is VALUE (a small
 * non-negative number), and, if FLAGS_ARG >= 0, argument FLAGS_ARG is
 * FLAGS; anything else is refused.  Any other call goes on with its
 * number still loaded. */
static void
allow_if(struct prog *p, int nr, int arg, uint32_t value, int flags_arg,
    uint32_t flags)
{
	int extra = flags_arg >= 0 ? 4 : 0;

	JEQ((uint32_t)nr, 0, (uint8_t)(6 + extra));
	LD(OFF_ARG_HI(arg));
	JEQ(0, 0, (uint8_t)(3 + extra));
	LD(OFF_ARG_LO(arg));
	JEQ(value, 0, (uint8_t)(1 + extra));
	if (flags_arg >= 0) {
		LD(OFF_ARG_HI(flags_arg));
		JEQ(0, 0, 3);
		LD(OFF_ARG_LO(flags_arg));
		JEQ(flags, 0, 1);
	}
	RET(SECCOMP_RET_ALLOW);
	RET(DENY);
}

int
box_filter_build(struct sock_filter *f, uint32_t pid,
    const struct box_filter_extra *extra)
{
	struct prog prog = { f, 0 }, *p = &prog;
	int exec_fd = extra != NULL ? extra->exec_fd : -1;
	int proc_fd = extra != NULL ? extra->proc_fd : -1;
	size_t i;

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
	/* clone3: ENOSYS, so that glibc's pthread_create falls back on
	 * clone, whose flags a filter can read. */
	JEQ(SYS_clone3, 0, 1);
	RET(SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA));
	if (extra == NULL || !extra->allow_restore) {
		if (extra != NULL && extra->allow_uffd_wp)
			allow_if(p, SYS_userfaultfd, 0, BOX_UFFD_WP_FLAGS, -1,
			    0);
		else {
			JEQ(SYS_userfaultfd, 0, 1);
			RET(DENY);
		}
		/* clone: a thread, with glibc's flags, and nothing else. */
		JEQ(SYS_clone, 0, 6);
		LD(OFF_ARG_HI(0));
		JEQ(0, 0, 3);
		LD(OFF_ARG_LO(0));
		JEQ(BOX_CLONE_THREAD, 0, 1);
		RET(SECCOMP_RET_ALLOW);
		RET(DENY);
	} else {
		/* A thread, or the restore's helper (no flags). */
		JEQ(SYS_clone, 0, 7);
		LD(OFF_ARG_HI(0));
		JEQ(0, 0, 4);
		LD(OFF_ARG_LO(0));
		JEQ(BOX_CLONE_THREAD, 1, 0);
		JEQ(0, 0, 1);
		RET(SECCOMP_RET_ALLOW);
		RET(DENY);
	}
	if (exec_fd >= 0)
		allow_if(p, SYS_execveat, 0, (uint32_t)exec_fd, 4,
		    AT_EMPTY_PATH);
	else {
		JEQ(SYS_execveat, 0, 1);
		RET(DENY);
	}
	if (proc_fd >= 0)
		allow_if(p, SYS_openat, 0, (uint32_t)proc_fd, -1, 0);
	else {
		JEQ(SYS_openat, 0, 1);
		RET(DENY);
	}
	/* kill, tkill, tgkill, rt_tgsigqueueinfo (how a checkpoint stops
	 * the job's other threads): only to this process; process_vm_readv
	 * and process_vm_writev too (the library copies the program's
	 * buffers with them, the kernel checking its pointers). */
	JEQ(SYS_kill, 5, 0);
	JEQ(SYS_tkill, 4, 0);
	JEQ(SYS_tgkill, 3, 0);
	JEQ(SYS_rt_tgsigqueueinfo, 2, 0);
	JEQ(SYS_process_vm_readv, 1, 0);
	JEQ(SYS_process_vm_writev, 0, 6);
	LD(OFF_ARG_HI(0));
	JEQ(0, 0, 3);
	LD(OFF_ARG_LO(0));
	JEQ(pid, 0, 1);
	RET(SECCOMP_RET_ALLOW);
	RET(DENY);
	RET(SECCOMP_RET_ALLOW);
	return prog.n > BOX_FILTER_MAX ? -1 : prog.n;
}
