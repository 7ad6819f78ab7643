/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmu-calls: a static program with known calls and returns, for the LBR
 * tests (pmu-lbr.sh).  No libc.
 *
 *   _start: call f1            (pmu_call_a)
 *   f1:     call f2            (pmu_call_b)
 *           call f3            (pmu_call_c)
 *   f2:     N x (dec; jnz), ret
 *   f3:     N x (dec; jnz), exit(0)
 *
 * While f2 loops the call stack is _start > f1 > f2, while f3 loops
 * _start > f1 > f3 (f2 returned).
 */
#ifndef PMU_CALLS_ITERS
#define PMU_CALLS_ITERS 50000
#endif
	.text
	.globl _start
_start:
	.globl pmu_call_a
pmu_call_a:
	call	f1
	hlt
	.globl f1
f1:
	.globl pmu_call_b
pmu_call_b:
	call	f2
	.globl pmu_call_c
pmu_call_c:
	call	f3
	ret
	.globl f2
f2:
	mov	$PMU_CALLS_ITERS, %ecx
	.globl pmu_f2_loop
pmu_f2_loop:
	dec	%ecx
	jnz	pmu_f2_loop
	.globl pmu_f2_ret
pmu_f2_ret:
	ret
	.globl f3
f3:
	mov	$PMU_CALLS_ITERS, %ecx
	.globl pmu_f3_loop
pmu_f3_loop:
	dec	%ecx
	jnz	pmu_f3_loop
	mov	$60, %eax
	xor	%edi, %edi
	syscall
	.section .note.GNU-stack, "", @progbits
