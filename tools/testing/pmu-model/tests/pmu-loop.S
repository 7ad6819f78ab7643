/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmu-loop: a static program with a known instruction stream, for exact
 * counts and sample positions on the TCG PMU model.  No libc: every user
 * instruction is here.
 *
 *   #1            mov  $PMU_LOOP_ITERS, %ecx     (_start)
 *   #2k           dec  %ecx                      (pmu_loop_dec), k = 1..N
 *   #2k+1         jnz  pmu_loop_dec              (pmu_loop_jnz)
 *   #2N+2..2N+4   mov $60, %eax; xor %edi, %edi; syscall  (exit(0))
 *
 * So: instructions 2N+4, branches N (N-1 taken, one mispredicted by a
 * backward-taken predictor: the exit), and a sample of period P taken
 * after the instruction #kP lands on instruction #kP+1.
 */
#ifndef PMU_LOOP_ITERS
#define PMU_LOOP_ITERS 100000
#endif
	.text
	.globl _start
_start:
	mov	$PMU_LOOP_ITERS, %ecx
	.globl pmu_loop_dec
pmu_loop_dec:
	dec	%ecx
	.globl pmu_loop_jnz
pmu_loop_jnz:
	jnz	pmu_loop_dec
	mov	$60, %eax
	xor	%edi, %edi
	syscall
	.section .note.GNU-stack, "", @progbits
