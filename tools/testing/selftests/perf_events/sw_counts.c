// SPDX-License-Identifier: GPL-2.0
/*
 * Exact counts of the generic software events (PERF_TYPE_SOFTWARE) for
 * workloads whose event count is fixed by construction.
 *
 * Kernel-mode events (context switches, migrations) need exclude_kernel=0,
 * which an unprivileged user may not ask for at perf_event_paranoid=2;
 * those tests SKIP when run unprivileged.
 */
#include "perf_test.h"

#include <sys/resource.h>

#define NPAGES	64
#define ROUNDS	200

/*
 * The scheduler's own count of this thread's switches (voluntary and
 * involuntary: ru_nvcsw + ru_nivcsw), bumped at the same switch that the
 * context-switches event counts. Even a SCHED_FIFO task is preempted by
 * stop-class work (the soft-lockup watchdog's stopper runs on every CPU
 * every few seconds); such a switch is real and counted by both, so an
 * exact test compares the event with this, not with a constant.
 */
static __u64 thread_switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

static __u64 thread_involuntary_switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return ru.ru_nivcsw;
}

#define NEED_KERNEL_COUNTING()						\
	do {								\
		if (!pt_can_count_kernel())				\
			SKIP(return, "counting kernel-mode events needs root or perf_event_paranoid < 2"); \
	} while (0)

/* Count 'config' (user-only unless 'kernel') around touching NPAGES fresh pages. */
static __u64 count_fresh_page_touches(__u64 config, bool user, bool kernel)
{
	struct perf_event_attr attr;
	__u64 v;
	int fd;

	pt_attr_sw(&attr, config);
	attr.exclude_user = !user;
	attr.exclude_kernel = !kernel;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	if (fd < 0)
		return ~0ULL;
	if (pt_touch_window(fd, NPAGES, 0))
		v = ~0ULL;
	else
		v = pt_read1(fd);
	close(fd);
	return v;
}

TEST(page_faults_count_each_fresh_anonymous_page_once)
{
	EXPECT_EQ(NPAGES, count_fresh_page_touches(PERF_COUNT_SW_PAGE_FAULTS,
						   true, pt_can_count_kernel()));
}

TEST(minor_faults_count_each_fresh_anonymous_page_once)
{
	EXPECT_EQ(NPAGES, count_fresh_page_touches(PERF_COUNT_SW_PAGE_FAULTS_MIN,
						   true, pt_can_count_kernel()));
}

TEST(major_faults_are_zero_for_anonymous_memory)
{
	EXPECT_EQ(0, count_fresh_page_touches(PERF_COUNT_SW_PAGE_FAULTS_MAJ,
					      true, pt_can_count_kernel()));
}

TEST(page_faults_with_exclude_kernel_still_count_user_faults)
{
	/* pt_attr_sw() sets exclude_kernel=1: user-mode faults are counted */
	EXPECT_EQ(NPAGES, count_fresh_page_touches(PERF_COUNT_SW_PAGE_FAULTS, true, false));
}

TEST(page_faults_with_exclude_user_count_zero_user_faults)
{
	NEED_KERNEL_COUNTING();
	EXPECT_EQ(0, count_fresh_page_touches(PERF_COUNT_SW_PAGE_FAULTS, false, true));
}

TEST(retouching_present_pages_causes_no_page_faults)
{
	char *p = pt_map_pages(NPAGES);
	int fd = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, 0);

	ASSERT_NE(NULL, p);
	ASSERT_LE(0, fd);
	pt_touch(p, NPAGES);
	/* the first window only warms up this code path */
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	pt_touch(p, NPAGES);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_RESET));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	pt_touch(p, NPAGES);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	EXPECT_EQ(0, pt_read1(fd));
	close(fd);
	pt_unmap_pages(p, NPAGES);
}

TEST(page_faults_accumulate_across_enable_disable_windows)
{
	int fd = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, 0);
	int i;

	ASSERT_LE(0, fd);
	for (i = 0; i < 3; i++) {
		/* each window counts NPAGES; its warm-up pass is not counted */
		ASSERT_EQ(0, pt_touch_window(fd, NPAGES, 0));
		/* faults while disabled are not counted */
		ASSERT_EQ(0, pt_fault_pages(8));
	}
	EXPECT_EQ(3 * NPAGES, pt_read1(fd));
	close(fd);
}

TEST(dummy_event_always_counts_zero)
{
	struct perf_event_attr attr;
	int fd;

	pt_attr_sw(&attr, PERF_COUNT_SW_DUMMY);
	attr.exclude_kernel = !pt_can_count_kernel();
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	pt_fault_pages(NPAGES);
	pt_spin_ns(2000000);
	pt_sleep_ns(1000000);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	EXPECT_EQ(0, pt_read1(fd));
	close(fd);
}

TEST(alignment_and_emulation_faults_count_zero)
{
	static const __u64 cfg[] = {
		PERF_COUNT_SW_ALIGNMENT_FAULTS, PERF_COUNT_SW_EMULATION_FAULTS,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cfg); i++) {
		struct perf_event_attr attr;
		int fd;

		pt_attr_sw(&attr, cfg[i]);
		attr.exclude_kernel = !pt_can_count_kernel();
		fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
		pt_fault_pages(NPAGES);
		pt_spin_ns(1000000);
		ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
		EXPECT_EQ(0, pt_read1(fd)) TH_LOG("config %llu", (unsigned long long)cfg[i]);
		close(fd);
	}
}

TEST(context_switches_count_each_blocking_sleep)
{
	struct perf_event_attr attr;
	struct sched_param sp = { .sched_priority = 10 };
	__u64 v, sw0, sw, iv0, preempted;
	bool fifo;
	int fd, i;

	NEED_KERNEL_COUNTING();
	/* SCHED_FIFO: nothing in the CFS class can preempt us in between. */
	fifo = sched_setscheduler(0, SCHED_FIFO, &sp) == 0;
	pt_attr_sw(&attr, PERF_COUNT_SW_CONTEXT_SWITCHES);
	attr.exclude_kernel = 0;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd);
	sw0 = thread_switches();
	iv0 = thread_involuntary_switches();
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	/*
	 * 20 ms, far above TCG's timing jitter: a 1 ms timer can expire
	 * before nanosleep() gets to schedule(), and then nothing switches.
	 */
	for (i = 0; i < 5; i++)
		pt_sleep_ns(20000000);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	v = pt_read1(fd);
	sw = thread_switches() - sw0;
	preempted = thread_involuntary_switches() - iv0;
	/* the five sleeps, plus any preemption by a stop-class task */
	EXPECT_EQ(sw, v);
	if (fifo) {
		EXPECT_EQ(5 + preempted, v);
		EXPECT_GE(2, preempted);
	} else {
		EXPECT_LE(5, v);
		EXPECT_GE(10, v);
	}
	close(fd);
}

/*
 * Two processes on one CPU ping-pong a byte over two pipes ROUNDS times;
 * each side blocks exactly once per round trip. Runs SCHED_FIFO so that
 * no other task preempts either side.
 */
TEST(context_switches_in_pipe_ping_pong_are_one_per_round_trip_per_side)
{
	struct sched_param sp = { .sched_priority = 10 };
	struct perf_event_attr attr;
	int a[2], b[2], res[2];
	__u64 mine, child_val = ~0ULL, child_out[2] = { ~0ULL, 0 };
	__u64 iv, preempted;
	bool fifo;
	pid_t pid;
	char c = 0;
	int fd, i;

	NEED_KERNEL_COUNTING();
	ASSERT_EQ(0, pt_pin_cpu(0, pt_nth_cpu(0)));
	fifo = sched_setscheduler(0, SCHED_FIFO, &sp) == 0;
	ASSERT_EQ(0, pipe(a));
	ASSERT_EQ(0, pipe(b));
	ASSERT_EQ(0, pipe(res));
	pt_attr_sw(&attr, PERF_COUNT_SW_CONTEXT_SWITCHES);
	attr.exclude_kernel = 0;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		__u64 v = ~0ULL;

		__u64 out[2], iv;

		fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
		if (read(a[0], &c, 1) != 1)
			_exit(1);
		iv = thread_involuntary_switches();
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		if (write(b[1], &c, 1) != 1)
			_exit(1);
		for (i = 0; i < ROUNDS; i++) {
			if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1)
				_exit(1);
		}
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		out[1] = thread_involuntary_switches() - iv;
		if (fd >= 0)
			v = pt_read1(fd);
		out[0] = v;
		_exit(write(res[1], out, 16) == 16 ? 0 : 1);
	}

	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, write(a[1], &c, 1));
	ASSERT_EQ(1, read(b[0], &c, 1));
	iv = thread_involuntary_switches();
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	for (i = 0; i < ROUNDS; i++) {
		ASSERT_EQ(1, write(a[1], &c, 1));
		ASSERT_EQ(1, read(b[0], &c, 1));
	}
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	preempted = thread_involuntary_switches() - iv;
	mine = pt_read1(fd);
	ASSERT_EQ(16, read(res[0], child_out, 16));
	child_val = child_out[0];
	ASSERT_EQ(0, pt_wait_exit(pid));

	if (fifo) {
		/* one block per round trip, plus stop-class preemptions */
		EXPECT_EQ(ROUNDS + preempted, mine);
		EXPECT_EQ(ROUNDS + child_out[1], child_val);
		/* a preemption is rare: it must not hide a miscount */
		EXPECT_GE(2, preempted);
		EXPECT_GE(2, child_out[1]);
	} else {
		TH_LOG("SCHED_FIFO unavailable, checking bounds only");
		EXPECT_LE(ROUNDS, mine);
		EXPECT_GE(ROUNDS + ROUNDS / 10, mine);
		EXPECT_LE(ROUNDS, child_val);
		EXPECT_GE(ROUNDS + ROUNDS / 10, child_val);
	}
	close(fd);
}

TEST(context_switches_are_invisible_with_exclude_kernel)
{
	int fd = pt_open_sw(PERF_COUNT_SW_CONTEXT_SWITCHES, -1, 0);
	int i;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	/*
	 * 20 ms, far above TCG's timing jitter: a 1 ms timer can expire
	 * before nanosleep() gets to schedule(), and then nothing switches.
	 */
	for (i = 0; i < 5; i++)
		pt_sleep_ns(20000000);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	EXPECT_EQ(0, pt_read1(fd));
	close(fd);
}

TEST(cpu_migrations_count_each_forced_move)
{
	struct perf_event_attr attr;
	int c0 = pt_nth_cpu(0), c1 = pt_nth_cpu(1);
	int fd, i;

	if (c1 < 0)
		SKIP(return, "needs 2 CPUs");
	NEED_KERNEL_COUNTING();
	pt_attr_sw(&attr, PERF_COUNT_SW_CPU_MIGRATIONS);
	attr.exclude_kernel = 0;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_pin_cpu(0, c0));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(0, pt_pin_cpu(0, c1));
		ASSERT_EQ(0, pt_pin_cpu(0, c0));
	}
	/* re-pinning to the CPU we are on does not migrate */
	ASSERT_EQ(0, pt_pin_cpu(0, c0));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	EXPECT_EQ(10, pt_read1(fd));
	close(fd);
}

TEST(cpu_migrations_are_zero_while_pinned)
{
	struct perf_event_attr attr;
	int fd;

	pt_attr_sw(&attr, PERF_COUNT_SW_CPU_MIGRATIONS);
	attr.exclude_kernel = !pt_can_count_kernel();
	ASSERT_EQ(0, pt_pin_cpu(0, pt_nth_cpu(0)));
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	pt_sleep_ns(1000000);
	pt_spin_ns(2000000);
	pt_sleep_ns(1000000);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	EXPECT_EQ(0, pt_read1(fd));
	close(fd);
}

struct clock_run {
	__u64 value;	/* event count (ns) */
	__u64 enabled;	/* time_enabled */
	__u64 wall;	/* CLOCK_MONOTONIC elapsed around enable..disable */
	__u64 cpu;	/* CLOCK_THREAD_CPUTIME_ID elapsed, same window */
};

/*
 * Run a clock event over either ns of our own CPU time (spin; robust on a
 * loaded machine because it waits for thread CPU time, not wall time) or
 * ns of sleep.
 */
static int clock_over(__u64 config, bool spin, __u64 ns, struct clock_run *r)
{
	struct perf_event_attr attr;
	struct pt_val3 v;
	__u64 w0, c0;
	int fd;

	pt_attr_sw(&attr, config);
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	if (fd < 0)
		return -1;
	w0 = pt_now_ns();
	c0 = pt_thread_cpu_ns();
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	if (spin) {
		while (pt_thread_cpu_ns() - c0 < ns)
			;
	} else {
		pt_sleep_ns(ns);
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	r->cpu = pt_thread_cpu_ns() - c0;
	r->wall = pt_now_ns() - w0;
	if (pt_read3(fd, &v))
		return -1;
	close(fd);
	r->value = v.value;
	r->enabled = v.enabled;
	return 0;
}

#define SPIN_NS		(40 * 1000000ULL)
#define SLACK_NS	(2 * 1000000ULL)

TEST(task_clock_advances_by_the_cpu_time_spent)
{
	struct clock_run r;

	ASSERT_EQ(0, clock_over(PERF_COUNT_SW_TASK_CLOCK, true, SPIN_NS, &r));
	/*
	 * Near the thread's own CPU time and not beyond wall time. The
	 * kernel's perf clock (sched_clock, from the TSC) and user space's
	 * CLOCK_MONOTONIC (another clocksource under QEMU TCG) drift apart
	 * on a loaded host, so the bands are a quarter wide.
	 */
	EXPECT_LE(r.cpu - r.cpu / 4, r.value);
	EXPECT_GE(r.cpu + r.cpu / 4 + SLACK_NS, r.value);
	EXPECT_GE(r.wall + r.wall / 4 + SLACK_NS, r.value);
	/* and it is the time the (task-bound) event was enabled: same clock */
	EXPECT_GE(r.enabled + SLACK_NS, r.value);
	EXPECT_LE(r.enabled - r.enabled / 10, r.value);
}

TEST(cpu_clock_advances_by_the_cpu_time_spent)
{
	struct clock_run r;

	ASSERT_EQ(0, clock_over(PERF_COUNT_SW_CPU_CLOCK, true, SPIN_NS, &r));
	/*
	 * The thread's CPU time and the CPU's clock are sampled at
	 * different points; on a loaded TCG host they drift apart by more
	 * than the task clock does, so allow a quarter.
	 */
	EXPECT_LE(r.cpu - r.cpu / 4, r.value);
	EXPECT_GE(r.wall + r.wall / 4 + SLACK_NS, r.value);
}

TEST(task_clock_does_not_advance_while_sleeping)
{
	struct clock_run r;

	ASSERT_EQ(0, clock_over(PERF_COUNT_SW_TASK_CLOCK, false, SPIN_NS, &r));
	EXPECT_LE(SPIN_NS, r.wall);
	EXPECT_GT(SPIN_NS / 4, r.value);
}

TEST(task_bound_cpu_clock_does_not_advance_while_sleeping)
{
	struct clock_run r;

	ASSERT_EQ(0, clock_over(PERF_COUNT_SW_CPU_CLOCK, false, SPIN_NS, &r));
	EXPECT_LE(SPIN_NS, r.wall);
	EXPECT_GT(SPIN_NS / 4, r.value);
}

TEST(disabled_clock_event_stays_at_zero)
{
	int fd = pt_open_sw(PERF_COUNT_SW_TASK_CLOCK, -1, 0);

	ASSERT_LE(0, fd);
	pt_spin_ns(5000000);
	EXPECT_EQ(0, pt_read1(fd));
	close(fd);
}

TEST_HARNESS_MAIN
