/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the branch trace store's tests (pmu-bts, pmu-intel-bts) share: a
 * loop of known branches, n iterations of dec/jnz, so n - 1 taken jnz
 * from bts_loop_jnz to bts_loop_dec; and the errno of an open.
 */
#include <errno.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "perf_sys.h"

extern char bts_loop_dec[], bts_loop_jnz[], bts_loop_end[];

static void __attribute__((noinline, unused)) bts_loop(unsigned int n)
{
	asm volatile("mov %0, %%ecx\n"
		     ".globl bts_loop_dec\n"
		     "bts_loop_dec: dec %%ecx\n"
		     ".globl bts_loop_jnz\n"
		     "bts_loop_jnz: jnz bts_loop_dec\n"
		     ".globl bts_loop_end\n"
		     "bts_loop_end: nop\n"
		     : : "r"(n) : "ecx", "cc");
}

/* 0 if @attr opens for (@pid, @cpu), else the errno */
static inline int open_errno(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	int fd = sys_perf_event_open(attr, pid, cpu, -1, 0);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}
