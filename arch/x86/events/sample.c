// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the perf core asks the architecture about the registers of a
 * sample: the instruction pointer to report and the PERF_RECORD_MISC_*
 * bits of the record header. A sample whose interrupt hit a guest (the
 * hypervisor's callbacks say so, kernel/events/guest.c) is the guest's:
 * its IP and PERF_RECORD_MISC_GUEST_KERNEL/USER.
 */

#include <linux/perf_event.h>

#include <asm/perf_event.h>
#include <asm/ptrace.h>

/**
 * perf_instruction_pointer - the instruction pointer of a sample
 * @regs: the registers of the interrupted (or sampled) context
 *
 * Return: the address reported in PERF_SAMPLE_IP: the guest's when the
 * interrupt hit a guest.
 */
unsigned long perf_instruction_pointer(struct pt_regs *regs)
{
	if (perf_guest_state())
		return perf_guest_get_ip();
	return regs->ip;
}

/**
 * perf_misc_flags - the misc bits of a sample record's header
 * @regs: the registers of the interrupted (or sampled) context
 *
 * PERF_RECORD_MISC_USER or PERF_RECORD_MISC_KERNEL by the privilege
 * level of @regs (PERF_RECORD_MISC_GUEST_USER or _GUEST_KERNEL by the
 * guest's when the interrupt hit a guest), plus PERF_RECORD_MISC_EXACT_IP when the PMU driver
 * marked @regs->ip as the exact instruction that caused the event
 * (PERF_EFLAGS_EXACT, a bit of @regs->flags that is otherwise zero).
 *
 * Return: the PERF_RECORD_MISC_* bits.
 */
unsigned long perf_misc_flags(struct pt_regs *regs)
{
	unsigned int guest = perf_guest_state();
	unsigned long misc;

	if (guest)
		return guest & PERF_GUEST_USER ? PERF_RECORD_MISC_GUEST_USER :
		       PERF_RECORD_MISC_GUEST_KERNEL;
	if (user_mode(regs))
		misc = PERF_RECORD_MISC_USER;
	else
		misc = PERF_RECORD_MISC_KERNEL;

	if (regs->flags & PERF_EFLAGS_EXACT)
		misc |= PERF_RECORD_MISC_EXACT_IP;

	return misc;
}
