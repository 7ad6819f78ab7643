// SPDX-License-Identifier: GPL-2.0
/*
 * prctl(PR_TASK_PERF_EVENTS_DISABLE / PR_TASK_PERF_EVENTS_ENABLE): switch
 * off / on every event *owned by* (opened by) the calling task, whatever
 * task those events monitor; events that other tasks opened on the caller
 * are not affected.
 */
#include "perf_test.h"

#define NPAGES	32

static int prctl_disable(void)
{
	return prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0);
}

static int prctl_enable(void)
{
	return prctl(PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0);
}

/* Touch NPAGES fresh pages with the same code path warmed up first. */
static __attribute__((noinline)) int touch_window(int npages)
{
	char *p = pt_map_pages(npages);

	if (!p)
		return -1;
	pt_touch(p, npages);
	pt_unmap_pages(p, npages);
	return 0;
}

static int open_enabled(__u64 config, pid_t pid)
{
	struct perf_event_attr attr;

	pt_attr_sw(&attr, config);
	attr.disabled = 0;
	return sys_perf_event_open(&attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static int open_disabled(__u64 config, pid_t pid)
{
	struct perf_event_attr attr;

	pt_attr_sw(&attr, config);
	return sys_perf_event_open(&attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

TEST(prctl_disable_stops_and_enable_resumes_own_events)
{
	int fd;

	ASSERT_EQ(0, touch_window(1));
	ASSERT_EQ(0, prctl_disable());
	ASSERT_EQ(0, prctl_enable());
	fd = open_enabled(PERF_COUNT_SW_PAGE_FAULTS, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, prctl_disable());
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_RESET, 0));
	ASSERT_EQ(0, touch_window(NPAGES));
	EXPECT_EQ(0, pt_read1(fd));
	ASSERT_EQ(0, prctl_enable());
	ASSERT_EQ(0, touch_window(NPAGES));
	ASSERT_EQ(0, prctl_disable());
	EXPECT_EQ(NPAGES, pt_read1(fd));
	close(fd);
}

TEST(prctl_disable_applies_to_every_owned_event)
{
	int fd[3], i;

	ASSERT_EQ(0, touch_window(1));
	for (i = 0; i < 3; i++) {
		fd[i] = open_enabled(i == 1 ? PERF_COUNT_SW_PAGE_FAULTS_MIN
					    : PERF_COUNT_SW_PAGE_FAULTS, 0);
		ASSERT_LE(0, fd[i]);
	}
	ASSERT_EQ(0, prctl_disable());
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, ioctl(fd[i], PERF_EVENT_IOC_RESET, 0));
	ASSERT_EQ(0, touch_window(NPAGES));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(0, pt_read1(fd[i]));
	}
	for (i = 0; i < 3; i++)
		close(fd[i]);
}

TEST(prctl_enable_also_starts_events_opened_disabled)
{
	int fd = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, 0);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, touch_window(1));
	EXPECT_EQ(0, pt_read1(fd));
	ASSERT_EQ(0, prctl_enable());
	ASSERT_EQ(0, touch_window(NPAGES));
	ASSERT_EQ(0, prctl_disable());
	EXPECT_EQ(NPAGES, pt_read1(fd));
	close(fd);
}

TEST(prctl_disable_stops_time_enabled)
{
	struct perf_event_attr attr;
	struct pt_val3 a, b;
	int fd;

	pt_attr_sw(&attr, PERF_COUNT_SW_DUMMY);
	attr.disabled = 0;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd);
	pt_spin_ns(1000000);
	ASSERT_EQ(0, prctl_disable());
	ASSERT_EQ(0, pt_read3(fd, &a));
	EXPECT_LT(0, a.enabled);
	pt_spin_ns(3000000);
	ASSERT_EQ(0, pt_read3(fd, &b));
	EXPECT_EQ(a.enabled, b.enabled);
	EXPECT_EQ(a.running, b.running);
	close(fd);
}

TEST(events_opened_after_prctl_disable_count_normally)
{
	int fd;

	ASSERT_EQ(0, touch_window(1));
	ASSERT_EQ(0, prctl_disable());
	fd = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_touch_window(fd, NPAGES, 0));
	EXPECT_EQ(NPAGES, pt_read1(fd));
	close(fd);
}

TEST(prctl_without_any_events_succeeds)
{
	EXPECT_EQ(0, prctl_disable());
	EXPECT_EQ(0, prctl_enable());
	EXPECT_EQ(0, prctl_enable());
	EXPECT_EQ(0, prctl_disable());
}

/*
 * Child that runs a command byte by byte from a pipe:
 *   'd' prctl disable, 'e' prctl enable, 't' touch NPAGES, 'q' quit;
 * answering each with one byte.
 */
static pid_t spawn_worker(int *to, int *from)
{
	int p2c[2], c2p[2];
	pid_t pid;

	if (pipe(p2c) || pipe(c2p))
		return -1;
	pid = fork();
	if (pid == 0) {
		char c;

		close(p2c[1]);
		close(c2p[0]);
		/* warm up the touch path in the child */
		touch_window(1);
		while (read(p2c[0], &c, 1) == 1 && c != 'q') {
			int r = 0;

			if (c == 'd')
				r = prctl_disable();
			else if (c == 'e')
				r = prctl_enable();
			else if (c == 't')
				r = touch_window(NPAGES);
			c = r ? 'E' : 'k';
			if (write(c2p[1], &c, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	close(p2c[0]);
	close(c2p[1]);
	*to = p2c[1];
	*from = c2p[0];
	return pid;
}

static char cmd(int to, int from, char c)
{
	if (write(to, &c, 1) != 1 || read(from, &c, 1) != 1)
		return 0;
	return c;
}

TEST(prctl_in_the_monitored_task_does_not_stop_events_others_opened_on_it)
{
	int to, from, fd;
	pid_t pid = spawn_worker(&to, &from);

	ASSERT_LT(0, pid);
	fd = open_disabled(PERF_COUNT_SW_PAGE_FAULTS, pid);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	/* warm up the worker's command loop while the event is off */
	ASSERT_EQ('k', cmd(to, from, 't'));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	ASSERT_EQ('k', cmd(to, from, 'd'));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_RESET));
	ASSERT_EQ('k', cmd(to, from, 't'));
	EXPECT_EQ(NPAGES, pt_read1(fd));
	close(to);
	ASSERT_EQ(0, pt_wait_exit(pid));
	close(fd);
}

TEST(prctl_in_the_owner_stops_its_events_on_other_tasks)
{
	int to, from, fd;
	pid_t pid = spawn_worker(&to, &from);

	ASSERT_LT(0, pid);
	/* let the worker finish starting up and warm up its loop first */
	ASSERT_EQ('k', cmd(to, from, 't'));
	fd = open_enabled(PERF_COUNT_SW_PAGE_FAULTS, pid);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, prctl_disable());
	ASSERT_EQ('k', cmd(to, from, 't'));
	EXPECT_EQ(0, pt_read1(fd));
	ASSERT_EQ(0, prctl_enable());
	ASSERT_EQ('k', cmd(to, from, 't'));
	EXPECT_EQ(NPAGES, pt_read1(fd));
	close(to);
	ASSERT_EQ(0, pt_wait_exit(pid));
	close(fd);
}

TEST_HARNESS_MAIN
