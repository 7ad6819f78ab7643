// SPDX-License-Identifier: GPL-2.0
/*
 * Event lifetime: closing fds frees events (no fd leak), and an event
 * attached to a task outlives the task: after the task exits the fd still
 * reads the final count and its times stop.
 */
#include "perf_test.h"
#include <dirent.h>

#define NPAGES	32

static int count_fds(void)
{
	struct dirent *de;
	DIR *dir = opendir("/proc/self/fd");
	int n = 0;

	if (!dir)
		return -1;
	while ((de = readdir(dir)))
		if (de->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

/*
 * Child driven over a pipe: 't' touch NPAGES fresh pages, EOF exits.
 * Each command is acknowledged with one byte.
 */
struct worker {
	pid_t pid;
	int to, from;
};

static int worker_start(struct worker *w)
{
	int p2c[2], c2p[2];

	if (pipe(p2c) || pipe(c2p))
		return -1;
	w->pid = fork();
	if (w->pid < 0)
		return -1;
	if (w->pid == 0) {
		char c;

		close(p2c[1]);
		close(c2p[0]);
		while (read(p2c[0], &c, 1) == 1) {
			if (c == 't' && pt_fault_pages(NPAGES))
				_exit(1);
			if (write(c2p[1], &c, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	close(p2c[0]);
	close(c2p[1]);
	w->to = p2c[1];
	w->from = c2p[0];
	return 0;
}

static int worker_cmd(struct worker *w, char c)
{
	return write(w->to, &c, 1) == 1 && read(w->from, &c, 1) == 1 ? 0 : -1;
}

/* Close the command pipe: the worker exits; reap it. */
static int worker_stop(struct worker *w)
{
	int ret;

	close(w->to);
	ret = pt_wait_exit(w->pid);
	close(w->from);
	return ret;
}

static int open_on(pid_t pid, __u64 config, __u64 read_format)
{
	struct perf_event_attr attr;

	pt_attr_sw(&attr, config);
	attr.read_format = read_format;
	return sys_perf_event_open(&attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

TEST(opening_and_closing_10000_events_leaks_no_fds)
{
	/*
	 * Keep one page-fault event open so the loop does not switch the
	 * software event on and off globally 5000 times (slow under TCG).
	 */
	int anchor = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, 0);
	int before = count_fds();
	int i;

	ASSERT_LE(0, anchor);
	ASSERT_LT(0, before);
	for (i = 0; i < 10000; i++) {
		int fd = pt_open_sw(i % 2 ? PERF_COUNT_SW_DUMMY : PERF_COUNT_SW_PAGE_FAULTS,
				    -1, 0);

		ASSERT_LE(0, fd) TH_LOG("iteration %d: %s", i, strerror(errno));
		close(fd);
	}
	EXPECT_EQ(before, count_fds());
	close(anchor);
}

TEST(closing_a_group_leader_and_members_leaks_no_fds)
{
	int before = count_fds();
	int i, j;

	for (i = 0; i < 200; i++) {
		int fd[8];

		fd[0] = pt_open_sw(PERF_COUNT_SW_DUMMY, -1, PERF_FORMAT_GROUP);
		ASSERT_LE(0, fd[0]);
		for (j = 1; j < 8; j++) {
			fd[j] = pt_open_sw(PERF_COUNT_SW_DUMMY, fd[0], 0);
			ASSERT_LE(0, fd[j]);
		}
		/* leader first on even rounds, last on odd ones */
		for (j = 0; j < 8; j++)
			close(fd[i % 2 ? 7 - j : j]);
	}
	EXPECT_EQ(before, count_fds());
}

TEST(event_on_an_exited_child_reads_its_final_count)
{
	struct worker w;
	int fd;

	ASSERT_EQ(0, worker_start(&w));
	fd = open_on(w.pid, PERF_COUNT_SW_PAGE_FAULTS, 0);
	ASSERT_LE(0, fd);
	/* warm up the worker's command path while the event is off */
	ASSERT_EQ(0, worker_cmd(&w, 't'));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	ASSERT_EQ(0, worker_cmd(&w, 't'));
	ASSERT_EQ(0, worker_cmd(&w, 't'));
	ASSERT_EQ(0, worker_stop(&w));
	/* the exit path itself takes no user page faults */
	EXPECT_EQ(2 * NPAGES, pt_read1(fd));
	EXPECT_EQ(2 * NPAGES, pt_read1(fd));
	close(fd);
}

TEST(times_stop_when_the_monitored_task_exits)
{
	struct pt_val3 a, b;
	struct worker w;
	int fd;

	ASSERT_EQ(0, worker_start(&w));
	fd = open_on(w.pid, PERF_COUNT_SW_DUMMY,
		     PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	ASSERT_EQ(0, worker_cmd(&w, 't'));
	ASSERT_EQ(0, worker_stop(&w));
	ASSERT_EQ(0, pt_read3(fd, &a));
	EXPECT_LT(0, a.enabled);
	pt_sleep_ns(10000000);
	ASSERT_EQ(0, pt_read3(fd, &b));
	EXPECT_EQ(a.enabled, b.enabled);
	EXPECT_EQ(a.running, b.running);
	close(fd);
}

TEST(ioctls_on_an_event_of_an_exited_task_still_succeed)
{
	struct worker w;
	int fd;

	ASSERT_EQ(0, worker_start(&w));
	fd = open_on(w.pid, PERF_COUNT_SW_PAGE_FAULTS, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	ASSERT_EQ(0, worker_cmd(&w, 't'));
	ASSERT_EQ(0, worker_stop(&w));
	EXPECT_LE(NPAGES, pt_read1(fd));
	EXPECT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	EXPECT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	EXPECT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_RESET));
	EXPECT_EQ(0, pt_read1(fd));
	close(fd);
}

TEST(many_events_on_an_exiting_child_all_stay_readable)
{
	int before = count_fds();
	struct worker w;
	int fd[64], i;

	ASSERT_EQ(0, worker_start(&w));
	for (i = 0; i < 64; i++) {
		fd[i] = open_on(w.pid, PERF_COUNT_SW_PAGE_FAULTS, 0);
		ASSERT_LE(0, fd[i]);
	}
	ASSERT_EQ(0, worker_cmd(&w, 't'));
	for (i = 0; i < 64; i++)
		ASSERT_EQ(0, pt_ioctl(fd[i], PERF_EVENT_IOC_ENABLE));
	ASSERT_EQ(0, worker_cmd(&w, 't'));
	ASSERT_EQ(0, worker_stop(&w));
	for (i = 0; i < 64; i++) {
		EXPECT_EQ(NPAGES, pt_read1(fd[i])) TH_LOG("event %d", i);
	}
	for (i = 0; i < 64; i++)
		close(fd[i]);
	EXPECT_EQ(before, count_fds());
}

TEST(closing_the_fd_while_the_task_runs_does_not_disturb_it)
{
	struct worker w;
	int fd;

	ASSERT_EQ(0, worker_start(&w));
	fd = open_on(w.pid, PERF_COUNT_SW_PAGE_FAULTS, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	ASSERT_EQ(0, worker_cmd(&w, 't'));
	close(fd);
	ASSERT_EQ(0, worker_cmd(&w, 't'));
	EXPECT_EQ(0, worker_stop(&w));
}

TEST(opening_an_event_on_a_zombie_fails_esrch)
{
	struct perf_event_attr attr;
	siginfo_t si;
	pid_t pid = fork();
	int fd;

	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(0);
	/* wait for it to become a zombie, without reaping it */
	ASSERT_EQ(0, waitid(P_PID, pid, &si, WEXITED | WNOWAIT));
	pt_attr_sw(&attr, PERF_COUNT_SW_DUMMY);
	errno = 0;
	fd = sys_perf_event_open(&attr, pid, -1, -1, 0);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(ESRCH, errno);
	if (fd >= 0)
		close(fd);
	ASSERT_EQ(0, pt_wait_exit(pid));
}

TEST(exiting_owner_frees_its_events_on_a_surviving_task)
{
	struct worker w;
	pid_t owner;

	ASSERT_EQ(0, worker_start(&w));
	owner = fork();
	ASSERT_LE(0, owner);
	if (owner == 0) {
		int i;

		/* a process opens many events on the worker, then exits */
		for (i = 0; i < 100; i++)
			if (open_on(w.pid, PERF_COUNT_SW_PAGE_FAULTS, 0) < 0)
				_exit(1);
		_exit(0);
	}
	ASSERT_EQ(0, pt_wait_exit(owner));
	/* the worker keeps running normally */
	ASSERT_EQ(0, worker_cmd(&w, 't'));
	EXPECT_EQ(0, worker_stop(&w));
}

TEST_HARNESS_MAIN
