/*
 * ckpt_asm.S: the checkpoint library's own setjmp/longjmp and stack
 * switch.
 *
 * glibc's sigsetjmp would do, but its jmp_buf is mangled with the pointer
 * guard at %fs:0x30 and its longjmp unwinds through libc state; the
 * restart jumps while libc's memory is half replaced, so it uses these:
 * plain callee-saved registers, stack pointer and return address, nothing
 * mangled, no system call.
 *
 *	int  ckpt_ctx_save(struct ckpt_ctx *)	0 now; VAL when jumped to
 *	void ckpt_ctx_jump(const struct ckpt_ctx *, int val)
 *	void ckpt_call_on_stack(void (*fn)(void *), void *arg, void *top)
 *		calls FN(ARG) on the stack ending at TOP; FN must not return
 */
	.text
	.globl	ckpt_ctx_save
	.type	ckpt_ctx_save, @function
	.p2align 4
ckpt_ctx_save:
	movq	%rbx, 0(%rdi)
	movq	%rbp, 8(%rdi)
	movq	%r12, 16(%rdi)
	movq	%r13, 24(%rdi)
	movq	%r14, 32(%rdi)
	movq	%r15, 40(%rdi)
	leaq	8(%rsp), %rdx		/* the caller's stack pointer */
	movq	%rdx, 48(%rdi)
	movq	(%rsp), %rdx		/* where to return */
	movq	%rdx, 56(%rdi)
	xorl	%eax, %eax
	ret
	.size	ckpt_ctx_save, . - ckpt_ctx_save

	.globl	ckpt_ctx_jump
	.type	ckpt_ctx_jump, @function
	.p2align 4
ckpt_ctx_jump:
	movq	0(%rdi), %rbx
	movq	8(%rdi), %rbp
	movq	16(%rdi), %r12
	movq	24(%rdi), %r13
	movq	32(%rdi), %r14
	movq	40(%rdi), %r15
	movq	48(%rdi), %rsp
	movl	%esi, %eax
	jmpq	*56(%rdi)
	.size	ckpt_ctx_jump, . - ckpt_ctx_jump

	.globl	ckpt_call_on_stack
	.type	ckpt_call_on_stack, @function
	.p2align 4
ckpt_call_on_stack:
	movq	%rdx, %rsp
	andq	$-16, %rsp
	xorl	%ebp, %ebp
	movq	%rdi, %rax
	movq	%rsi, %rdi
	callq	*%rax
	hlt
	.size	ckpt_call_on_stack, . - ckpt_call_on_stack

/*
 * ckpt_thread_start: where a thread a restart makes again begins
 * (ckpt_threads.c).  The gate's `ret` brought it here on its temporary
 * stack, its slot above; ckpt_thread_setup gives its kernel state back
 * and returns the context to resume.  Counted off the temporary stack
 * (which the coordinator then frees) only once nothing here touches it.
 * ckpt_thread_resume(ctx) is that last part alone, for the thread that
 * runs the restart and resumes the main thread.
 */
	.globl	ckpt_thread_start
	.type	ckpt_thread_start, @function
	.p2align 4
ckpt_thread_start:
	movq	(%rsp), %rdi
	andq	$-16, %rsp
	callq	ckpt_thread_setup
	movq	%rax, %rdi
	/* ckpt_thread_resume(ctx): counted, then into CTX, returning 1 */
	.globl	ckpt_thread_resume
ckpt_thread_resume:
	lock incl ckpt_threads_started(%rip)
	movq	0(%rdi), %rbx
	movq	8(%rdi), %rbp
	movq	16(%rdi), %r12
	movq	24(%rdi), %r13
	movq	32(%rdi), %r14
	movq	40(%rdi), %r15
	movq	48(%rdi), %rsp
	movl	$1, %eax
	jmpq	*56(%rdi)
	.size	ckpt_thread_start, . - ckpt_thread_start

/*
 * condor_ckpt_entry: a checkpoint file's entry point (its ELF header's
 * e_entry; a program's stays _start).  Before anything of libc runs from
 * the file's text, ckpt_entry_check() verifies the executable part's
 * checksum and refuses a damaged file; then on to _start with the
 * registers the kernel gave (rsp: argc, argv...; rdx: 0).
 */
	.globl	condor_ckpt_entry
	.type	condor_ckpt_entry, @function
	.p2align 4
condor_ckpt_entry:
	movq	%rsp, %r12
	movq	%rdx, %r13
	andq	$-16, %rsp
	callq	ckpt_entry_check
	movq	%r12, %rsp
	movq	%r13, %rdx
	xorl	%ebp, %ebp
	jmp	_start
	.size	condor_ckpt_entry, . - condor_ckpt_entry

	.section .note.GNU-stack,"",@progbits
