/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmu-sys: a static program that makes N getppid system calls, for the
 * far-transfer LBR tests (pmu-lbr.sh).  No libc: every user instruction
 * is here.
 *
 *   #1              mov  $PMU_SYS_ITERS, %ebx        (_start)
 *   #4k-2           mov  $110, %eax                  (pmu_sys_loop)
 *   #4k-1           syscall                          (pmu_sys_call)
 *   #4k             dec  %ebx                        (pmu_sys_ret)
 *   #4k+1           jnz  pmu_sys_loop                (pmu_sys_jnz)
 *                   k = 1..N
 *   #4N+2..4N+4     mov $60, %eax; xor %edi, %edi; syscall  (exit(0))
 *
 * Every getppid returns to pmu_sys_ret (the kernel's sysretq, or an
 * iretq); the loop branch goes back to pmu_sys_loop.
 */
#ifndef PMU_SYS_ITERS
#define PMU_SYS_ITERS 10000
#endif
	.text
	.globl _start
_start:
	mov	$PMU_SYS_ITERS, %ebx
	.globl pmu_sys_loop
pmu_sys_loop:
	mov	$110, %eax		/* getppid */
	.globl pmu_sys_call
pmu_sys_call:
	syscall
	.globl pmu_sys_ret
pmu_sys_ret:
	dec	%ebx
	.globl pmu_sys_jnz
pmu_sys_jnz:
	jnz	pmu_sys_loop
	mov	$60, %eax
	xor	%edi, %edi
	syscall
	.section .note.GNU-stack, "", @progbits
