// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kind of a recorded branch (PERF_SAMPLE_BRANCH_TYPE_SAVE). Neither
 * the legacy LBR nor LbrExtV2 records it, so it is read off the
 * instruction at the branch's source, with the kernel's x86 instruction
 * decoder (Intel SDM vol. 2 for the opcodes). A record that enters the
 * kernel from user space at anything but a system call is an interrupt
 * or an exception, whatever the instruction it interrupted (int3, int1
 * and into included: traps, not calls of the kernel).
 */

#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#include <asm/insn.h>

#include "perf_event.h"

static bool x86_user_addr(u64 addr)
{
	return addr < TASK_SIZE_MAX;
}

/* the kind of the (decoded) instruction at a branch's source */
static int x86_insn_branch_type(struct insn *insn)
{
	u8 op = insn->opcode.bytes[0];
	u8 reg = X86_MODRM_REG(insn->modrm.value);

	/* their opcode bytes are of another map: none of them branches */
	if (insn->vex_prefix.nbytes || insn_is_rex2(insn))
		return PERF_BR_UNKNOWN;
	switch (op) {
	case 0x70 ... 0x7f:		/* jcc rel8 */
	case 0xe0 ... 0xe3:		/* loopne, loope, loop, jrcxz */
		return PERF_BR_COND;
	case 0xe9:			/* jmp rel32 */
	case 0xea:			/* jmp far ptr (32-bit) */
	case 0xeb:			/* jmp rel8 */
		return PERF_BR_UNCOND;
	case 0xe8:			/* call rel32 */
	case 0x9a:			/* call far ptr (32-bit) */
		return PERF_BR_CALL;
	case 0xc2: case 0xc3:		/* ret (imm16) */
	case 0xca: case 0xcb:		/* far ret (imm16) */
		return PERF_BR_RET;
	case 0xcd:			/* int n (int $0x80) */
		return PERF_BR_SYSCALL;
	case 0xcf:			/* iret */
		return PERF_BR_ERET;
	case 0xff:
		switch (reg) {
		case 2: case 3:		/* call (far) r/m */
			return PERF_BR_IND_CALL;
		case 4: case 5:		/* jmp (far) r/m */
			return PERF_BR_IND;
		}
		return PERF_BR_UNKNOWN;
	case 0x0f:
		op = insn->opcode.bytes[1];
		if (op >= 0x80 && op <= 0x8f)	/* jcc rel32 */
			return PERF_BR_COND;
		if (op == 0x05 || op == 0x34)	/* syscall, sysenter */
			return PERF_BR_SYSCALL;
		if (op == 0x07 || op == 0x35)	/* sysret, sysexit */
			return PERF_BR_SYSRET;
		return PERF_BR_UNKNOWN;
	}
	return PERF_BR_UNKNOWN;
}

/**
 * x86_branch_type - the PERF_BR_* kind of the branch @from -> @to
 * @from: its source, as the branch record holds it
 * @to: its target
 *
 * Called in the PMI, for the current task's records: a user-space source
 * is read with copy_from_user_nmi(), a kernel one without faulting.
 *
 * Return: a PERF_BR_* value; PERF_BR_UNKNOWN if the instruction cannot
 * be read or is no branch.
 */
int x86_branch_type(u64 from, u64 to)
{
	u8 buf[MAX_INSN_SIZE];
	enum insn_mode mode = INSN_MODE_64;
	struct insn insn;
	int type, len;

	if (!from)
		return PERF_BR_UNKNOWN;
	if (x86_user_addr(from)) {
		struct pt_regs *regs;

		/* a kernel thread borrowing an mm has no user registers */
		if (!current->mm || (current->flags & PF_KTHREAD))
			return PERF_BR_UNKNOWN;
		regs = task_pt_regs(current);
		if (!user_64bit_mode(regs))
			mode = INSN_MODE_32;
		len = MAX_INSN_SIZE -
		      copy_from_user_nmi(buf, (void __user *)from,
					 MAX_INSN_SIZE);
	} else {
		if (copy_from_kernel_nofault(buf, (void *)from, MAX_INSN_SIZE))
			return PERF_BR_UNKNOWN;
		len = MAX_INSN_SIZE;
	}
	if (len <= 0 || insn_decode(&insn, buf, len, mode))
		type = PERF_BR_UNKNOWN;
	else
		type = x86_insn_branch_type(&insn);

	/* into the kernel, not by a system call: an interrupt or exception */
	if (x86_user_addr(from) && !x86_user_addr(to) &&
	    type != PERF_BR_SYSCALL)
		return PERF_BR_IRQ;
	return type;
}
