/*
 * regs: values held in integer, SSE and AVX registers across a long loop
 * that calls nothing; a checkpoint interrupts it anywhere, and the loop
 * checks every register at every turn against what it loaded.  AVX is
 * used when the CPU has it (then in both builds).
 */
#include <stdio.h>
#include <cpuid.h>

static int
have_avx(void)
{
	unsigned a, b, c, d, lo, hi;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_AVX) ||
	    !(c & bit_OSXSAVE))
		return 0;
	__asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (lo & 6) == 6;
}

int
main(void)
{
	static const unsigned long pat[4] = {
		0x0123456789abcdefUL, 0xfedcba9876543210UL,
		0x0f1e2d3c4b5a6978UL, 0x8796a5b4c3d2e1f0UL,
	};
	unsigned long bad_int = 0, bad_vec = 0, rounds;
	int avx = have_avx(), r;

	for (r = 0; r < 6; r++) {
		rounds = 90000000;
		/* Integer registers: rbx, r12-r15 hold constants. */
		__asm__ volatile(
		    "movabs $0x1111111111111111, %%rbx\n\t"
		    "movabs $0x2222222222222222, %%r12\n\t"
		    "movabs $0x3333333333333333, %%r13\n\t"
		    "movabs $0x4444444444444444, %%r14\n\t"
		    "movabs $0x5555555555555555, %%r15\n\t"
		    "movdqu (%[p]), %%xmm8\n\t"
		    "movdqu 16(%[p]), %%xmm9\n\t"
		    "1:\n\t"
		    "movabs $0x1111111111111111, %%rax\n\t"
		    "cmp %%rax, %%rbx\n\t jne 2f\n\t"
		    "movabs $0x2222222222222222, %%rax\n\t"
		    "cmp %%rax, %%r12\n\t jne 2f\n\t"
		    "movabs $0x3333333333333333, %%rax\n\t"
		    "cmp %%rax, %%r13\n\t jne 2f\n\t"
		    "movabs $0x4444444444444444, %%rax\n\t"
		    "cmp %%rax, %%r14\n\t jne 2f\n\t"
		    "movabs $0x5555555555555555, %%rax\n\t"
		    "cmp %%rax, %%r15\n\t jne 2f\n\t"
		    "movdqu (%[p]), %%xmm0\n\t"
		    "pcmpeqq %%xmm8, %%xmm0\n\t"
		    "pmovmskb %%xmm0, %%eax\n\t"
		    "cmp $0xffff, %%eax\n\t jne 3f\n\t"
		    "movdqu 16(%[p]), %%xmm0\n\t"
		    "pcmpeqq %%xmm9, %%xmm0\n\t"
		    "pmovmskb %%xmm0, %%eax\n\t"
		    "cmp $0xffff, %%eax\n\t jne 3f\n\t"
		    "4: dec %[n]\n\t jnz 1b\n\t"
		    "jmp 5f\n\t"
		    "2: incq %[bi]\n\t jmp 4b\n\t"
		    "3: incq %[bv]\n\t jmp 4b\n\t"
		    "5:\n\t"
		    : [n] "+r"(rounds), [bi] "+m"(bad_int), [bv] "+m"(bad_vec)
		    : [p] "r"(pat)
		    : "rax", "rbx", "r12", "r13", "r14", "r15", "xmm0", "xmm8",
		      "xmm9",
		      "cc", "memory");
		if (avx) {
			rounds = 60000000;
			__asm__ volatile(
			    "vmovdqu (%[p]), %%ymm10\n\t"
			    "vpxor %%ymm11, %%ymm11, %%ymm11\n\t"
			    "vpcmpeqq %%ymm11, %%ymm11, %%ymm11\n\t"
			    "vpxor %%ymm10, %%ymm11, %%ymm12\n\t"
			    "1:\n\t"
			    "vmovdqu (%[p]), %%ymm0\n\t"
			    "vpcmpeqq %%ymm10, %%ymm0, %%ymm1\n\t"
			    "vpmovmskb %%ymm1, %%eax\n\t"
			    "cmp $-1, %%eax\n\t jne 2f\n\t"
			    "vpxor %%ymm0, %%ymm11, %%ymm1\n\t"
			    "vpcmpeqq %%ymm12, %%ymm1, %%ymm1\n\t"
			    "vpmovmskb %%ymm1, %%eax\n\t"
			    "cmp $-1, %%eax\n\t jne 2f\n\t"
			    "3: dec %[n]\n\t jnz 1b\n\t"
			    "jmp 4f\n\t"
			    "2: incq %[bv]\n\t jmp 3b\n\t"
			    "4: vzeroupper\n\t"
			    : [n] "+r"(rounds), [bv] "+m"(bad_vec)
			    : [p] "r"(pat)
			    : "rax", "xmm0", "xmm1", "xmm10", "xmm11", "xmm12",
			      "cc", "memory");
		}
		printf("round %d: integer mismatches %lu, vector mismatches "
		    "%lu\n", r, bad_int, bad_vec);
		fflush(stdout);
	}
	printf("registers held: %s (avx %s)\n",
	    bad_int == 0 && bad_vec == 0 ? "yes" : "NO", avx ? "used" : "absent");
	return 0;
}
