// SPDX-License-Identifier: GPL-2.0
/*
 * CPU-bound events: per-CPU events (pid == -1, cpu == N) that count
 * everything on one CPU, and task events restricted to one CPU
 * (pid, cpu == N) that count only while the task runs there.
 */
#include "perf_test.h"

#define NPAGES	32
#define ROUNDS	200

#define NEED_ROOT()							\
	do {								\
		if (geteuid() != 0)					\
			SKIP(return, "per-CPU events need root here");	\
	} while (0)

static int open_cpu_event(__u64 config, pid_t pid, int cpu, bool kernel,
			  __u64 read_format)
{
	struct perf_event_attr attr;

	pt_attr_sw(&attr, config);
	attr.exclude_kernel = !kernel;
	attr.read_format = read_format;
	return sys_perf_event_open(&attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

TEST(per_cpu_event_needs_privilege_at_paranoid_1_and_above)
{
	int paranoid = pt_paranoid();
	int cpu = pt_nth_cpu(0);
	pid_t pid;

	if (paranoid < 1)
		SKIP(return, "perf_event_paranoid is %d (< 1)", paranoid);
	if (geteuid() != 0) {
		int fd = open_cpu_event(PERF_COUNT_SW_DUMMY, -1, cpu, false, 0);

		EXPECT_EQ(-1, fd);
		EXPECT_EQ(EACCES, errno);
		return;
	}
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd;

		if (pt_drop_privs(1000, 1000))
			_exit(2);
		fd = open_cpu_event(PERF_COUNT_SW_DUMMY, -1, cpu, false, 0);
		_exit(fd == -1 && errno == EACCES ? 0 : 1);
	}
	EXPECT_EQ(0, pt_wait_exit(pid));
}

TEST(per_cpu_event_opens_for_root_on_every_online_cpu)
{
	int i, cpu;

	NEED_ROOT();
	for (i = 0; (cpu = pt_nth_cpu(i)) >= 0; i++) {
		int fd = open_cpu_event(PERF_COUNT_SW_CPU_CLOCK, -1, cpu, true, 0);

		EXPECT_LE(0, fd) TH_LOG("cpu %d: %s", cpu, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
}

TEST(per_cpu_event_time_enabled_advances_while_our_task_sleeps)
{
	struct pt_val3 v;
	int fd;

	NEED_ROOT();
	fd = open_cpu_event(PERF_COUNT_SW_DUMMY, -1, pt_nth_cpu(0), true,
			    PERF_FORMAT_TOTAL_TIME_ENABLED |
			    PERF_FORMAT_TOTAL_TIME_RUNNING);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	pt_sleep_ns(50000000);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	ASSERT_EQ(0, pt_read3(fd, &v));
	/* a CPU context's clock runs all the time, unlike a task's */
	EXPECT_LE(45000000ULL, v.enabled);
	EXPECT_EQ(v.enabled, v.running);
	close(fd);
}

TEST(per_cpu_cpu_clock_counts_the_cpus_wall_time)
{
	struct pt_val3 v;
	__u64 t0, wall;
	int fd;

	NEED_ROOT();
	fd = open_cpu_event(PERF_COUNT_SW_CPU_CLOCK, -1, pt_nth_cpu(0), true,
			    PERF_FORMAT_TOTAL_TIME_ENABLED |
			    PERF_FORMAT_TOTAL_TIME_RUNNING);
	ASSERT_LE(0, fd);
	t0 = pt_now_ns();
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	pt_sleep_ns(50000000);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	wall = pt_now_ns() - t0;
	ASSERT_EQ(0, pt_read3(fd, &v));
	/* the perf clock and CLOCK_MONOTONIC drift apart under TCG */
	EXPECT_LE(50000000ULL * 3 / 4, v.value);
	EXPECT_GE(wall + wall / 4 + 2000000ULL, v.value);
	EXPECT_GE(v.enabled + 2000000ULL, v.value);
	close(fd);
}

TEST(per_cpu_page_faults_include_our_faults_on_that_cpu)
{
	int cpu = pt_nth_cpu(0);
	__u64 v;
	int fd;

	NEED_ROOT();
	ASSERT_EQ(0, pt_pin_cpu(0, cpu));
	fd = open_cpu_event(PERF_COUNT_SW_PAGE_FAULTS, -1, cpu, false, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_touch_window(fd, NPAGES, 0));
	v = pt_read1(fd);
	/* any other task faulting on that CPU meanwhile is counted too */
	EXPECT_LE(NPAGES, v);
	close(fd);
}

TEST(per_cpu_context_switches_count_both_sides_of_a_ping_pong)
{
	struct sched_param sp = { .sched_priority = 10 };
	int cpu = pt_nth_cpu(0);
	int a[2], b[2], fd, i;
	pid_t pid;
	char c = 0;
	__u64 v;

	NEED_ROOT();
	ASSERT_EQ(0, pt_pin_cpu(0, cpu));
	sched_setscheduler(0, SCHED_FIFO, &sp);
	ASSERT_EQ(0, pipe(a));
	ASSERT_EQ(0, pipe(b));
	fd = open_cpu_event(PERF_COUNT_SW_CONTEXT_SWITCHES, -1, cpu, true, 0);
	ASSERT_LE(0, fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		for (i = 0; i < ROUNDS + 1; i++)
			if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	ASSERT_EQ(1, write(a[1], &c, 1));
	ASSERT_EQ(1, read(b[0], &c, 1));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	for (i = 0; i < ROUNDS; i++) {
		ASSERT_EQ(1, write(a[1], &c, 1));
		ASSERT_EQ(1, read(b[0], &c, 1));
	}
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	ASSERT_EQ(0, pt_wait_exit(pid));
	v = pt_read1(fd);
	/* each round trip switches each side out once on this CPU */
	EXPECT_LE(2 * ROUNDS, v);
	close(fd);
}

TEST(task_event_bound_to_another_cpu_never_runs)
{
	int c0 = pt_nth_cpu(0), c1 = pt_nth_cpu(1);
	struct pt_val3 v;
	int fd;

	if (c1 < 0)
		SKIP(return, "needs 2 CPUs");
	ASSERT_EQ(0, pt_pin_cpu(0, c0));
	fd = open_cpu_event(PERF_COUNT_SW_PAGE_FAULTS, 0, c1, false,
			    PERF_FORMAT_TOTAL_TIME_ENABLED |
			    PERF_FORMAT_TOTAL_TIME_RUNNING);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_touch_window(fd, NPAGES, 0));
	ASSERT_EQ(0, pt_read3(fd, &v));
	EXPECT_EQ(0, v.value);
	/* enabled while we ran, but never scheduled on our CPU */
	EXPECT_LT(0, v.enabled);
	EXPECT_EQ(0, v.running);
	close(fd);
}

TEST(task_event_bound_to_a_cpu_counts_while_the_task_runs_there)
{
	int c0 = pt_nth_cpu(0), c1 = pt_nth_cpu(1);
	int target = c1 >= 0 ? c1 : c0;
	struct pt_val3 v;
	int fd;

	ASSERT_EQ(0, pt_pin_cpu(0, target));
	fd = open_cpu_event(PERF_COUNT_SW_PAGE_FAULTS, 0, target, false,
			    PERF_FORMAT_TOTAL_TIME_ENABLED |
			    PERF_FORMAT_TOTAL_TIME_RUNNING);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_touch_window(fd, NPAGES, 0));
	ASSERT_EQ(0, pt_read3(fd, &v));
	EXPECT_EQ(NPAGES, v.value);
	EXPECT_LT(0, v.running);
	EXPECT_EQ(v.enabled, v.running);
	close(fd);
}

TEST(task_event_bound_to_a_cpu_pauses_while_the_task_is_elsewhere)
{
	int c0 = pt_nth_cpu(0), c1 = pt_nth_cpu(1);
	struct pt_val3 v;
	int fd;

	if (c1 < 0)
		SKIP(return, "needs 2 CPUs");
	ASSERT_EQ(0, pt_pin_cpu(0, c1));
	fd = open_cpu_event(PERF_COUNT_SW_PAGE_FAULTS, 0, c1, false,
			    PERF_FORMAT_TOTAL_TIME_ENABLED |
			    PERF_FORMAT_TOTAL_TIME_RUNNING);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_touch_window(fd, NPAGES, 0));
	ASSERT_EQ(0, pt_pin_cpu(0, c0));
	ASSERT_EQ(0, pt_touch_window(fd, NPAGES, 0));
	ASSERT_EQ(0, pt_read3(fd, &v));
	EXPECT_EQ(NPAGES, v.value);
	/* running stopped while we were on c0, enabled did not */
	EXPECT_LT(0, v.running);
	EXPECT_LT(v.running, v.enabled);
	close(fd);
}

TEST_HARNESS_MAIN
