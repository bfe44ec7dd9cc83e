/*
 * remote_gate.S: the system-call gate, the only code of a relinked program
 * that the seccomp filter lets make system calls.  This is a template:
 * condor_gate_install() copies it into one page at CONDOR_GATE_ADDR
 * (condor_job.h), the same address in every relinked program.
 *
 *	long gate(long nr, long a1, long a2, long a3, long a4, long a5,
 *	    long a6)
 *
 * The System V argument registers are shifted into the kernel's
 * (rax, rdi, rsi, rdx, r10, r8, r9); the seventh argument is on the
 * stack.  Returns the raw result, -errno on error; errno is not touched
 * (it lives in TLS, which the restart replaces).  Position-independent,
 * no stack use beyond the return address, so a clone() without CLONE_VM
 * returns here in the child as fork() would.
 */
	.section .condor_gate,"ax",@progbits
	.globl	condor_gate_template
	.globl	condor_gate_template_end
	.globl	condor_gate_template_ret
	.type	condor_gate_template, @function
	.p2align 4
condor_gate_template:
	movq	%rdi, %rax
	movq	%rsi, %rdi
	movq	%rdx, %rsi
	movq	%rcx, %rdx
	movq	%r8, %r10
	movq	%r9, %r8
	movq	8(%rsp), %r9
	syscall
condor_gate_template_ret:		/* where a completed call returns to */
	ret

/*
 *	long gate_masked(long nr, long a1, long a2, long a3, long a4,
 *	    long a5, long a6, const uint64_t *mask)
 *
 * The call, then rt_sigprocmask(SIG_SETMASK, mask), both here: a call
 * that may wait runs with the program's signals unblocked, and a signal
 * that finds its RIP from condor_gate_template_masked_ret to
 * condor_gate_template_masked_done came after the call completed and
 * before the mask went back on (condor_job.h, CONDOR_GATE_DONE).
 */
	.globl	condor_gate_template_masked
	.globl	condor_gate_template_masked_ret
	.globl	condor_gate_template_masked_done
condor_gate_template_masked:
	movq	%rdi, %rax
	movq	%rsi, %rdi
	movq	%rdx, %rsi
	movq	%rcx, %rdx
	movq	%r8, %r10
	movq	%r9, %r8
	movq	8(%rsp), %r9
	syscall
condor_gate_template_masked_ret:
	movq	%rax, %r9		/* the kernel keeps r9 across syscall */
	movl	$14, %eax		/* SYS_rt_sigprocmask */
	movl	$2, %edi		/* SIG_SETMASK */
	movq	16(%rsp), %rsi
	xorl	%edx, %edx
	movl	$8, %r10d
	syscall
condor_gate_template_masked_done:
	movq	%r9, %rax
	ret
condor_gate_template_end:
	.size	condor_gate_template, condor_gate_template_end - condor_gate_template


/*
 * condor_restore_rt: the signal return trampoline for the handlers the
 * library installs with rt_sigaction through the gate (SA_RESTORER).  Its
 * `syscall` is outside the gate, which the filter allows for rt_sigreturn
 * only.
 */
	.text
	.globl	condor_restore_rt
	.type	condor_restore_rt, @function
	.p2align 4
condor_restore_rt:
	movq	$15, %rax		/* __NR_rt_sigreturn */
	syscall
	hlt
	.size	condor_restore_rt, . - condor_restore_rt

	.section .note.GNU-stack,"",@progbits
