/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The raw perf_event_open() wrapper, on its own so that programs outside
 * the kselftest harness (the PMU model's guest tests,
 * tools/testing/pmu-model/tests) share it with perf_test.h.
 */
#ifndef PERF_SYS_H
#define PERF_SYS_H

#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

static inline int sys_perf_event_open(void *attr, pid_t pid, int cpu,
				      int group_fd, unsigned long flags)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

#endif /* PERF_SYS_H */
