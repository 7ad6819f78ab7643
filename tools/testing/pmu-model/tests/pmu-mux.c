// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-mux: multiplexing of hardware counters follows the PMU's sysfs
 * perf_event_mux_interval_ms (run as root).
 *
 * NEV branch events (general counters only, on both models) are opened
 * by a new process on itself, each its own flexible group: the model's general
 * counters (4 on Intel, 6 on AMD) hold only some of them. Around a loop
 * of about 40 ms of guest time (icount: 1 ns per instruction; HZ ticks):
 * - interval 1 ms: rotation gives every event some running time, and
 *   some ran less than they were enabled;
 * - interval 100000 ms: nothing rotates. Each event either ran the
 *   whole time (running == enabled) or never ran (running == 0, count
 *   0), and there are both kinds.
 * Writing 0 to the file is refused (EINVAL) and it reads back unchanged.
 * Exit 0 on success, 1 on a failed check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>
#include "perf_sys.h"
#include "pmu-check.h"

#define NEV	8
#define LOOPS	20000000L
#define MUX	"/sys/bus/event_source/devices/cpu/perf_event_mux_interval_ms"

static int mux_write(const char *val)
{
	int fd = open(MUX, O_WRONLY), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		err = -errno;
	close(fd);
	return err;
}

static long mux_read(void)
{
	char buf[32] = "";
	int fd = open(MUX, O_RDONLY);

	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) <= 0)
		return -1;
	close(fd);
	return atol(buf);
}

static void loop(long n)
{
	asm volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
}

struct val {
	__u64 count, enabled, running;
};

/*
 * In a new process (a new context, whose multiplexing starts afresh):
 * open the events disabled, enable them in order (the first ones take
 * the counters), run the loop and read them while still enabled (a
 * disable frees a counter, which would let a waiting event on).
 */
static void run_child(int out)
{
	struct perf_event_attr attr;
	struct val v[NEV];
	int fd[NEV], i;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	for (i = 0; i < NEV; i++) {
		fd[i] = sys_perf_event_open(&attr, 0, -1, -1, 0);
		if (fd[i] < 0) {
			printf("not ok perf_event_open %d: %s\n", i,
			       strerror(errno));
			_exit(1);
		}
	}
	for (i = 0; i < NEV; i++)
		ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0);
	loop(LOOPS);
	for (i = 0; i < NEV; i++)
		if (read(fd[i], &v[i], sizeof(v[i])) != sizeof(v[i]))
			_exit(1);
	if (write(out, v, sizeof(v)) != sizeof(v))
		_exit(1);
	_exit(0);
}

static int run(struct val *v)
{
	int p[2], i, status;
	pid_t pid;

	if (pipe(p))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		run_child(p[1]);
	close(p[1]);
	i = read(p[0], v, sizeof(*v) * NEV);
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid || status ||
	    i != (int)sizeof(*v) * NEV)
		return -1;
	for (i = 0; i < NEV; i++)
		printf("# event %d: count %llu enabled %llu running %llu\n", i,
		       (unsigned long long)v[i].count,
		       (unsigned long long)v[i].enabled,
		       (unsigned long long)v[i].running);
	return 0;
}

static long old;

/* put the interval back however the test ends */
static void restore(void)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", old);
	mux_write(buf);
}

int main(void)
{
	struct val v[NEV];
	int i, full = 0, none = 0, other = 0, all_ran = 1;
	int partial = 0, err;

	old = mux_read();
	if (old < 1) {
		printf("not ok %s: %ld\n", MUX, old);
		return 1;
	}
	printf("# %s: %ld\n", MUX, old);
	atexit(restore);

	err = mux_write("0");
	check(err == -EINVAL, "interval 0 refused with EINVAL");
	check(mux_read() == old, "interval unchanged after the refused write");

	check(mux_write("1") == 0, "interval 1 ms set");
	if (run(v))
		return 1;
	for (i = 0; i < NEV; i++) {
		if (!v[i].running || !v[i].count)
			all_ran = 0;
		if (v[i].running < v[i].enabled)
			partial++;
	}
	check(all_ran, "rotation: every event ran and counted");
	check(partial > 0, "rotation: some events ran only part of the time");

	/*
	 * Let a multiplexing timer armed with the old interval run out
	 * (stock's hrtimer keeps the interval it was armed with).
	 */
	usleep(20000);

	check(mux_write("100000") == 0, "interval 100000 ms set");
	if (run(v))
		return 1;
	for (i = 0; i < NEV; i++) {
		if (v[i].enabled && v[i].running == v[i].enabled)
			full++;
		else if (v[i].enabled && !v[i].running && !v[i].count)
			none++;
		else
			other++;
	}
	printf("# %d ran throughout, %d never ran, %d other\n", full, none,
	       other);
	check(full > 0 && none > 0 && !other,
	      "no rotation: each event ran throughout or not at all");

	restore();
	check(mux_read() == old, "interval restored");
	return fails ? 1 : 0;
}
