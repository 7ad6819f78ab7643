// SPDX-License-Identifier: GPL-2.0
/*
 * The model's CPU rather than its PMU: CMPXCHG8B and CMPXCHG16B set or
 * clear ZF and keep every other flag (patch 0025).
 *
 * QEMU 7.2's translator called their helpers without first storing the
 * flags operation it tracks lazily within a translation block, and the
 * helpers compute the flags they keep from the operation stored in the
 * CPU state. In a block entered with the flags held whole (after an
 * exception, an interrupt or a return to user space) and with an
 * arithmetic instruction before the compare-exchange, the helper took that
 * instruction's operand for the flags: reserved and system bits ended up
 * in RFLAGS. A Debian-config kernel (SLUB's hardened freelist, a XOR before
 * its cmpxchg16b) crashed that way under PEBS sampling, whose records stop
 * the vCPU at arbitrary instructions.
 *
 * Each case: a system call, then in one block an ADD that leaves CF, PF and
 * ZF set with an operand whose low 32 bits are 0xffc00000 (bits 22-31,
 * reserved in RFLAGS), the compare-exchange (succeeding or not), PUSHFQ.
 * A block can be cut short by a page boundary or a timer, so each case
 * runs many times, and every run must be right.
 */
#include <stdint.h>
#include <sys/syscall.h>
#include "pmu-check.h"

#define RUNS		2000
#define FLAGS_ARITH	0x8d5UL		/* OF SF ZF AF PF CF */
#define FLAGS_VALID	0x3f7fd7UL	/* every defined bit */
#define CF		0x001UL
#define PF		0x004UL
#define ZF		0x040UL

static unsigned __int128 m16 __attribute__((aligned(16)));
static uint64_t m8;

/*
 * One case: @insn on @mem (holding 2:1 to succeed), right after a system
 * call, in the same block as an ADD that sets CF, PF and ZF: RFLAGS after
 */
#define CX_CASE(name, insn, mem)					\
static unsigned long name(void)						\
{									\
	unsigned long flags;						\
									\
	asm volatile("mov %[nr], %%eax\n\t"				\
		     "syscall\n\t"						\
		     "mov $-0x400000, %%r8\n\t"				\
		     "mov $0x400000, %%r9d\n\t"				\
		     "add %%r8, %%r9\n\t"					\
		     "mov $1, %%eax\n\t"					\
		     "mov $2, %%edx\n\t"					\
		     "mov $3, %%ebx\n\t"					\
		     "mov $4, %%ecx\n\t"					\
		     insn " %[m]\n\t"					\
		     "pushfq\n\t"						\
		     "pop %[flags]"						\
		     : [flags] "=r" (flags), [m] "+m" (mem)			\
		     : [nr] "i" (SYS_getppid)					\
		     : "rax", "rbx", "rcx", "rdx", "r8", "r9", "r11", "cc",	\
		       "memory");						\
	return flags;							\
}

CX_CASE(cx16, "cmpxchg16b", m16)
CX_CASE(cx8, "cmpxchg8b", m8)

/* RUNS runs of @fn on memory that compares equal or not: all must be right */
static void run(const char *name, unsigned long (*fn)(void), int equal)
{
	unsigned long want = CF | PF | (equal ? ZF : 0), first = 0, f;
	int bad = 0, i;
	char what[120];

	for (i = 0; i < RUNS; i++) {
		/* 2:1 (the compared value) or not */
		m16 = ((unsigned __int128)2 << 64) | (equal ? 1 : 5);
		m8 = ((uint64_t)2 << 32) | (equal ? 1 : 5);
		f = fn();
		if ((f & FLAGS_ARITH) != want || (f & ~FLAGS_VALID)) {
			if (!bad++)
				first = f;
		}
	}
	snprintf(what, sizeof(what),
		 "%s (%s): runs with flags other than CF PF%s and no reserved bit (first bad %#lx)",
		 name, equal ? "equal" : "not equal", equal ? " ZF" : "",
		 first);
	check_val(bad == 0, what, bad, 0);
}

int main(void)
{
	run("cmpxchg16b", cx16, 1);
	run("cmpxchg16b", cx16, 0);
	run("cmpxchg8b", cx8, 1);
	run("cmpxchg8b", cx8, 0);
	/* the compare-exchange itself: the last run's memory and registers */
	m16 = ((unsigned __int128)2 << 64) | 1;
	cx16();
	check(m16 == (((unsigned __int128)4 << 64) | 3),
	      "cmpxchg16b stored rcx:rbx over an equal rdx:rax");
	m8 = ((uint64_t)2 << 32) | 1;
	cx8();
	check(m8 == (((uint64_t)4 << 32) | 3),
	      "cmpxchg8b stored ecx:ebx over an equal edx:eax");
	return fails ? 1 : 0;
}
