// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-prio: the order in which a CPU's counters are handed out on the
 * TCG PMU model: the CPU's pinned groups, the task's pinned groups, the
 * CPU's flexible groups, the task's flexible groups.
 *
 * Eight CPU-wide flexible branch events on CPU 0 want more general
 * counters than either model has (Intel 4, AMD 6). A pinned branch event
 * of this task, pinned to CPU 0, must still count all the time: when it
 * is opened and each time the task comes back on the CPU, the CPU's
 * flexible events make room for it. Had they kept the counters, the
 * pinned event would be in the error state (read() returns 0 bytes).
 * Counts are checked by difference: a loop of 2N iterations counts
 * exactly N more branches than one of N.
 * Root (CPU-wide events). Exit 0 on success, 1 on a failed check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "perf_sys.h"
#include "pmu-check.h"

#define NCPU_EV	8
#define N	20000

static int open_branches(pid_t pid, int cpu, int pinned)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
	attr.pinned = pinned;
	attr.disabled = pinned;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	return sys_perf_event_open(&attr, pid, cpu, -1, 0);
}

/* n iterations of a dec/jnz loop: n branches */
static void loop(long n)
{
	asm volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
}

struct val {
	uint64_t value, enabled, running;
};

/* the loop of @n under @fd, with @sleeps trips off the CPU around it */
static long run(int fd, long n, int sleeps, struct val *v)
{
	int i;

	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < sleeps; i++)
		usleep(2000);
	loop(n);
	for (i = 0; i < sleeps; i++)
		usleep(2000);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	return read(fd, v, sizeof(*v));
}

int main(void)
{
	struct val a, b;
	cpu_set_t set;
	int cpu_ev[NCPU_EV], fd, i, sleeps;
	long r1, r2;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		return 1;
	}
	for (i = 0; i < NCPU_EV; i++) {
		cpu_ev[i] = open_branches(-1, 0, 0);
		if (cpu_ev[i] < 0) {
			perror("CPU-wide branches");
			return 1;
		}
	}
	fd = open_branches(0, 0, 1);
	if (fd < 0) {
		perror("pinned task branches");
		return 1;
	}
	/* 0: on the counters since its open; 3: after switches back in */
	for (sleeps = 0; sleeps <= 3; sleeps += 3) {
		r1 = run(fd, N, sleeps, &a);
		r2 = run(fd, 2 * N, sleeps, &b);
		check_val(r1 == sizeof(a) && r2 == sizeof(b),
		      sleeps ? "pinned read after switches (bytes)" :
			       "pinned read (bytes)", r1 + r2, 2 * sizeof(a));
		if (r1 != sizeof(a) || r2 != sizeof(b))
			continue;
		check_val(a.running == a.enabled && b.running == b.enabled,
		      "pinned ran all the time (running - enabled)",
		      (long long)(a.running - a.enabled + b.running - b.enabled),
		      0);
		check_val(b.value - a.value == N, "pinned branches, 2N - N",
		      (long long)(b.value - a.value), N);
	}
	for (i = 0; i < NCPU_EV; i++)
		close(cpu_ev[i]);
	close(fd);
	return fails ? 1 : 0;
}
