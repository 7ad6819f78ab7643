/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmu-rep: REP string instructions retire once, however many iterations
 * they run (as on hardware): 12 user instructions, no branch.
 */
	.text
	.globl _start
_start:
	lea	buf(%rip), %rdi		/* #1 */
	mov	$1000, %ecx		/* #2 */
	xor	%eax, %eax		/* #3 */
	rep stosb			/* #4: 1000 iterations */
	rep stosb			/* #5: none (rcx = 0) */
	mov	$100, %ecx		/* #6 */
	lea	buf(%rip), %rsi		/* #7 */
	lea	buf(%rip), %rdi		/* #8 */
	repe cmpsb			/* #9: 100 iterations, all equal */
	mov	$60, %eax		/* #10 */
	xor	%edi, %edi		/* #11 */
	syscall				/* #12 */
	.bss
buf:	.skip	4096
	.section .note.GNU-stack, "", @progbits
