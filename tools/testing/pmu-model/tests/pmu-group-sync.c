// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-group-sync: the members of a group start and stop counting at the
 * same instruction. On the stock kernel the core holds the PMU (all
 * counters off through the global control register) while it puts a
 * group's members on or takes them off, and one write turns them all
 * on again. Under icount every member counting instructions at every
 * privilege level then reads exactly the same, although the kernel runs
 * thousands of instructions between the first member's start and the
 * last's. Without the hold the counts differ by those instructions.
 *
 * Groups: a hardware leader with three members (instructions, on a
 * fixed counter on Intel; cycles, at least twice the instructions on the
 * model); a task-clock leader with three hardware members;
 * each enabled and disabled through the leader, five times. Run as root
 * (kernel counting).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "perf_sys.h"

#include "pmu-check.h"

#define MEMBERS	3
#define RUNS	5

static int open_ev(uint32_t type, uint64_t config, int group)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.disabled = group < 0;
	a.read_format = PERF_FORMAT_GROUP;
	return sys_perf_event_open(&a, 0, -1, group, 0);
}

static void run(const char *name, uint32_t ltype, uint64_t lconfig)
{
	uint64_t v[1 + 1 + MEMBERS];
	int fd[1 + MEMBERS], i, r, same = 1;
	char what[160];

	fd[0] = open_ev(ltype, lconfig, -1);
	for (i = 1; i <= MEMBERS; i++)
		fd[i] = open_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
				fd[0]);
	for (i = 0; i <= MEMBERS; i++) {
		if (fd[i] < 0) {
			snprintf(what, sizeof(what), "%s: open event %d", name,
				 i);
			check(0, what);
			goto out;
		}
	}
	for (r = 0; r < RUNS; r++) {
		ioctl(fd[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
		ioctl(fd[0], PERF_EVENT_IOC_ENABLE, 0);
		for (volatile int k = 0; k < 20000; k++)
			;
		ioctl(fd[0], PERF_EVENT_IOC_DISABLE, 0);
		if (read(fd[0], v, sizeof(v)) != sizeof(v) ||
		    v[0] != 1 + MEMBERS) {
			same = 0;
			break;
		}
		/* the members, and a leader counting instructions */
		for (i = ltype == PERF_TYPE_HARDWARE &&
			 lconfig == PERF_COUNT_HW_INSTRUCTIONS ? 1 : 2;
		     i <= 1 + MEMBERS; i++) {
			if (v[i] != v[1 + MEMBERS] || !v[i])
				same = 0;
		}
		/*
		 * the model's 2 cycles per instruction executed: at least
		 * twice the instructions retired (a REP string instruction
		 * of the kernel's executes more often than it retires)
		 */
		if (ltype == PERF_TYPE_HARDWARE &&
		    lconfig == PERF_COUNT_HW_CPU_CYCLES && v[1] < 2 * v[2])
			same = 0;
		if (!same)
			break;
	}
	snprintf(what, sizeof(what),
		 "%s: the members counted the same instructions (run %d: %llu %llu %llu %llu)",
		 name, r + (r < RUNS), (unsigned long long)v[1],
		 (unsigned long long)v[2], (unsigned long long)v[3],
		 (unsigned long long)v[4]);
	check(same, what);
out:
	for (i = 0; i <= MEMBERS; i++)
		if (fd[i] >= 0)
			close(fd[i]);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	run("instructions leader", PERF_TYPE_HARDWARE,
	    PERF_COUNT_HW_INSTRUCTIONS);
	run("cycles leader", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	run("task-clock leader", PERF_TYPE_SOFTWARE,
	    PERF_COUNT_SW_TASK_CLOCK);
	printf("%s\n", fails ? "FAIL" : "PASS");
	return fails ? 1 : 0;
}
