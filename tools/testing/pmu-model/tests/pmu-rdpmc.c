// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-rdpmc: user-space rdpmc on the TCG PMU model.
 *
 * Opens instructions:u on itself, maps its user page and reads the counter
 * with rdpmc around a block of known length: the difference must be exact.
 * Then checks that rdpmc faults in a task without a mapped event (Linux
 * clears CR4.PCE for it).  Exit 0 on success, 1 on a failed check.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "perf_sys.h"

#define LOOPS 1000
#define STR_(x) #x
#define STR(x) STR_(x)
/* rdpmc, 3 movs and LOOPS (dec, jnz): see measure() */
#define EXPECT (4 + 2 * LOOPS)

static int fails;

static void check(int ok, const char *what, unsigned long long got,
		  unsigned long long want)
{
	printf("%s %s: %llu (expected %llu)\n", ok ? "ok" : "not ok", what,
	       got, want);
	if (!ok)
		fails++;
}

static void on_segv(int sig)
{
	_exit(42);
}

/* Instructions from the first rdpmc up to the second, read by rdpmc */
static uint64_t measure(uint32_t ecx)
{
	uint32_t a0, d0, a1, d1;

	asm volatile("rdpmc\n\t"
		     "mov %%eax, %0\n\t"
		     "mov %%edx, %1\n\t"
		     "mov $" STR(LOOPS) ", %%r10\n"
		     "1:\n\t"
		     "dec %%r10\n\t"
		     "jnz 1b\n\t"
		     "rdpmc\n\t"
		     : "=&r"(a0), "=&r"(d0), "=a"(a1), "=d"(d1)
		     : "c"(ecx)
		     : "r10", "cc");
	return ((((uint64_t)d1 << 32) | a1) - (((uint64_t)d0 << 32) | a0)) &
	       ((1ULL << 48) - 1);
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	struct perf_event_mmap_page *pc;
	uint64_t delta;
	int fd, status, i;
	pid_t pid;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && !strcmp(argv[1], "fault")) {
		uint32_t a, d;

		/*
		 * A fresh mm without a mapped event: rdpmc must fault.  A
		 * handled SIGSEGV (exit 42) keeps the kernel from logging an
		 * unhandled fault, which the harness takes for a report.
		 */
		signal(SIGSEGV, on_segv);
		asm volatile("rdpmc" : "=a"(a), "=d"(d) : "c"(0));
		return 0;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	if (fd < 0) {
		perror("perf_event_open(instructions:u)");
		return 1;
	}
	pc = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	if (pc == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	check(pc->cap_user_rdpmc, "cap_user_rdpmc", pc->cap_user_rdpmc, 1);
	check(pc->pmc_width == 48, "pmc_width", pc->pmc_width, 48);
	check(pc->index != 0, "index != 0", pc->index, 1);
	if (fails)
		return 1;
	/* Same count every time, also after migrations between the CPUs */
	for (i = 0; i < 5; i++) {
		delta = measure(pc->index - 1);
		check(delta == EXPECT, "rdpmc delta", delta, EXPECT);
	}

	/* A task with no mapped event may not use rdpmc */
	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", argv[0], "fault", (char *)NULL);
		_exit(2);
	}
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 42,
	      "rdpmc without a mapped event faults (SIGSEGV: exit 42)",
	      WIFEXITED(status) ? WEXITSTATUS(status) : 0, 42);
	return fails ? 1 : 0;
}
