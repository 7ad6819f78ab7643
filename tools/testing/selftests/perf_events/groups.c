// SPDX-License-Identifier: GPL-2.0
/*
 * Event groups: who may join a group (group_fd rules), how a group is
 * scheduled as a unit, PERF_FLAG_FD_NO_GROUP, and what happens to members
 * when the leader or a member goes away.
 */
#include "perf_test.h"

#define NPAGES	16

static int open_member(__u64 config, int group_fd, pid_t pid, int cpu,
		       unsigned long flags)
{
	struct perf_event_attr attr;

	pt_attr_sw(&attr, config);
	return sys_perf_event_open(&attr, pid, cpu, group_fd, flags);
}

/* Fork a child that just waits to be killed. */
static pid_t spawn_sleeper(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

static void kill_sleeper(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

#define EXPECT_OPEN_FAILS(fd_expr, err) do {	\
	int __fd = (fd_expr);			\
	int __e = errno;			\
	EXPECT_EQ(-1, __fd);			\
	if (__fd >= 0)				\
		close(__fd);			\
	else					\
		EXPECT_EQ(err, __e);		\
} while (0)

TEST(group_read_reports_nr_and_one_value_per_member)
{
	__u64 buf[40];
	int fd[17], i;

	fd[0] = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, PERF_FORMAT_GROUP);
	ASSERT_LE(0, fd[0]);
	for (i = 1; i < 17; i++) {
		/* alternate counting and non-counting members */
		fd[i] = pt_open_sw(i % 2 ? PERF_COUNT_SW_DUMMY : PERF_COUNT_SW_PAGE_FAULTS_MIN,
				   fd[0], 0);
		ASSERT_LE(0, fd[i]);
	}
	ASSERT_EQ(0, pt_touch_window(fd[0], NPAGES, PERF_IOC_FLAG_GROUP));
	ASSERT_EQ(8 * 18, read(fd[0], buf, sizeof(buf)));
	EXPECT_EQ(17, buf[0]);
	EXPECT_EQ(NPAGES, buf[1]);
	for (i = 1; i < 17; i++) {
		EXPECT_EQ(i % 2 ? 0 : NPAGES, buf[1 + i]) TH_LOG("member %d", i);
	}
	for (i = 16; i >= 0; i--)
		close(fd[i]);
}

TEST(members_do_not_count_while_the_leader_is_disabled)
{
	struct perf_event_attr attr;
	__u64 buf[4];
	int leader, member;

	leader = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, PERF_FORMAT_GROUP);
	ASSERT_LE(0, leader);
	/* member opened enabled (disabled=0) into a disabled group */
	pt_attr_sw(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	attr.disabled = 0;
	member = sys_perf_event_open(&attr, 0, -1, leader, 0);
	ASSERT_LE(0, member);
	ASSERT_EQ(0, pt_fault_pages(NPAGES));
	ASSERT_EQ(0, pt_fault_pages(NPAGES));
	ASSERT_EQ(24, read(leader, buf, sizeof(buf)));
	EXPECT_EQ(0, buf[1]);
	EXPECT_EQ(0, buf[2]);

	/* enabling just the leader brings the enabled member with it */
	ASSERT_EQ(0, pt_touch_window(leader, NPAGES, 0));
	ASSERT_EQ(24, read(leader, buf, sizeof(buf)));
	EXPECT_EQ(NPAGES, buf[1]);
	EXPECT_EQ(NPAGES, buf[2]);
	close(member);
	close(leader);
}

/*
 * A member's time_enabled is the time its group was enabled: while the
 * leader is off, an enabled member gains neither enabled nor running
 * time (6.12), so a reader that scales by enabled/running (PAPI does,
 * from the control page) sees no multiplexing that did not happen.
 */
TEST(member_times_stop_while_the_leader_is_disabled)
{
	const __u64 rf = PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING;
	struct perf_event_attr attr;
	struct perf_event_mmap_page *pg;
	struct pt_val3 l, m, m2, r;
	int leader, member, ref;

	leader = pt_open_sw(PERF_COUNT_SW_TASK_CLOCK, -1, rf);
	ASSERT_LE(0, leader);
	pt_attr_sw(&attr, PERF_COUNT_SW_TASK_CLOCK);
	attr.disabled = 0;
	attr.read_format = rf;
	member = sys_perf_event_open(&attr, 0, -1, leader, 0);
	ASSERT_LE(0, member);
	pg = mmap(NULL, pt_page_size(), PROT_READ, MAP_SHARED, member, 0);
	ASSERT_NE(MAP_FAILED, pg);

	/* the leader has never been on: no time at all */
	pt_spin_ns(5000000);
	ASSERT_EQ(0, pt_read3(member, &m));
	EXPECT_EQ(0, m.enabled);
	EXPECT_EQ(0, m.running);

	/*
	 * A lone task-clock enabled inside the group's window is the yard
	 * stick: it runs on the same context clock, so the member's time
	 * must cover it. Thread CPU time is no such stick: under TCG on a
	 * busy host a stall inside a context switch counts in the thread's
	 * time but not in its context's.
	 */
	ref = pt_open_sw(PERF_COUNT_SW_TASK_CLOCK, -1, rf);
	ASSERT_LE(0, ref);
	ASSERT_EQ(0, pt_ioctl(leader, PERF_EVENT_IOC_ENABLE));
	ASSERT_EQ(0, pt_ioctl(ref, PERF_EVENT_IOC_ENABLE));
	pt_spin_ns(5000000);
	ASSERT_EQ(0, pt_ioctl(ref, PERF_EVENT_IOC_DISABLE));
	ASSERT_EQ(0, pt_ioctl(leader, PERF_EVENT_IOC_DISABLE));
	ASSERT_EQ(0, pt_read3(member, &m));
	ASSERT_EQ(0, pt_read3(leader, &l));
	ASSERT_EQ(0, pt_read3(ref, &r));
	EXPECT_LT(0, r.enabled);
	EXPECT_LE(r.enabled, m.enabled);
	EXPECT_EQ(m.enabled, m.running);
	EXPECT_GE(l.enabled, m.enabled);
	/* the control page says the same once the group is off */
	EXPECT_EQ(pg->time_enabled, pg->time_running);

	/* off again: the member's times stand still */
	pt_spin_ns(5000000);
	ASSERT_EQ(0, pt_read3(member, &m2));
	EXPECT_EQ(m.enabled, m2.enabled);
	EXPECT_EQ(m.running, m2.running);
	munmap(pg, pt_page_size());
	close(ref);
	close(member);
	close(leader);
}

TEST(member_added_to_a_running_group_counts_from_then_on)
{
	struct perf_event_attr attr;
	__u64 buf[4];
	char *p = pt_map_pages(NPAGES);
	int leader, member;

	ASSERT_NE(NULL, p);
	leader = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, PERF_FORMAT_GROUP);
	ASSERT_LE(0, leader);
	ASSERT_EQ(0, pt_touch_window(leader, NPAGES, 0));
	ASSERT_EQ(0, pt_ioctl(leader, PERF_EVENT_IOC_ENABLE));
	pt_attr_sw(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	attr.disabled = 0;
	member = sys_perf_event_open(&attr, 0, -1, leader, 0);
	ASSERT_LE(0, member);
	pt_touch(p, NPAGES);
	ASSERT_EQ(0, pt_ioctl(leader, PERF_EVENT_IOC_DISABLE));
	ASSERT_EQ(24, read(leader, buf, sizeof(buf)));
	EXPECT_EQ(2, buf[0]);
	EXPECT_LE(2 * NPAGES, buf[1]);
	EXPECT_EQ(NPAGES, buf[2]);
	close(member);
	close(leader);
	pt_unmap_pages(p, NPAGES);
}

TEST(closing_a_member_removes_it_from_the_group_read)
{
	__u64 buf[8], id = 0;
	int leader, m1, m2;

	leader = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, PERF_FORMAT_GROUP | PERF_FORMAT_ID);
	ASSERT_LE(0, leader);
	m1 = pt_open_sw(PERF_COUNT_SW_DUMMY, leader, 0);
	ASSERT_LE(0, m1);
	m2 = pt_open_sw(PERF_COUNT_SW_DUMMY, leader, 0);
	ASSERT_LE(0, m2);
	ASSERT_EQ(8 * 7, read(leader, buf, sizeof(buf)));
	EXPECT_EQ(3, buf[0]);
	close(m1);
	ASSERT_EQ(8 * 5, read(leader, buf, sizeof(buf)));
	EXPECT_EQ(2, buf[0]);
	/* the survivor is m2 */
	ASSERT_EQ(0, ioctl(m2, PERF_EVENT_IOC_ID, &id));
	EXPECT_EQ(id, buf[4]);
	close(m2);
	close(leader);
}

TEST(closing_the_leader_leaves_members_counting_on_their_own)
{
	__u64 buf[4];
	int leader, member;

	leader = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, 0);
	ASSERT_LE(0, leader);
	member = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, leader, PERF_FORMAT_GROUP);
	ASSERT_LE(0, member);
	ASSERT_EQ(0, pt_touch_window(leader, NPAGES, PERF_IOC_FLAG_GROUP));
	ASSERT_EQ(0, ioctl(leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP));
	close(leader);

	/* the member is now a singleton group of its own, still enabled */
	ASSERT_EQ(0, pt_fault_pages(NPAGES));
	ASSERT_EQ(16, read(member, buf, sizeof(buf)));
	EXPECT_EQ(1, buf[0]);
	EXPECT_LE(2 * NPAGES, buf[1]);
	EXPECT_GE(2 * NPAGES + 8, buf[1]);

	/* and it can be driven directly */
	ASSERT_EQ(0, pt_ioctl(member, PERF_EVENT_IOC_RESET));
	ASSERT_EQ(0, pt_touch_window(member, NPAGES, 0));
	ASSERT_EQ(16, read(member, buf, sizeof(buf)));
	EXPECT_EQ(NPAGES, buf[1]);
	close(member);
}

TEST(fd_no_group_flag_opens_a_standalone_event)
{
	__u64 buf[4];
	int leader, solo;

	leader = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, PERF_FORMAT_GROUP);
	ASSERT_LE(0, leader);
	solo = open_member(PERF_COUNT_SW_PAGE_FAULTS, leader, 0, -1, PERF_FLAG_FD_NO_GROUP);
	ASSERT_LE(0, solo);
	ASSERT_EQ(16, read(leader, buf, sizeof(buf)));
	EXPECT_EQ(1, buf[0]);

	/* group ENABLE does not reach it ... */
	ASSERT_EQ(0, pt_touch_window(leader, NPAGES, PERF_IOC_FLAG_GROUP));
	EXPECT_EQ(0, pt_read1(solo));
	/* ... but it counts on its own */
	ASSERT_EQ(0, pt_touch_window(solo, NPAGES, 0));
	EXPECT_EQ(NPAGES, pt_read1(solo));
	close(solo);
	close(leader);
}

TEST(group_fd_must_be_a_group_leader)
{
	int leader, member;

	leader = pt_open_sw(PERF_COUNT_SW_DUMMY, -1, 0);
	ASSERT_LE(0, leader);
	member = pt_open_sw(PERF_COUNT_SW_DUMMY, leader, 0);
	ASSERT_LE(0, member);
	EXPECT_OPEN_FAILS(open_member(PERF_COUNT_SW_DUMMY, member, 0, -1, 0), EINVAL);
	close(member);
	close(leader);
}

TEST(member_for_another_task_than_the_leader_fails_einval)
{
	pid_t child = spawn_sleeper();
	int leader;

	ASSERT_LT(0, child);
	leader = pt_open_sw(PERF_COUNT_SW_DUMMY, -1, 0);
	ASSERT_LE(0, leader);
	EXPECT_OPEN_FAILS(open_member(PERF_COUNT_SW_DUMMY, leader, child, -1, 0), EINVAL);
	close(leader);

	/* and the other way round: leader on the child, member on us */
	leader = open_member(PERF_COUNT_SW_DUMMY, -1, child, -1, 0);
	ASSERT_LE(0, leader) TH_LOG("open on own child: %s", strerror(errno));
	EXPECT_OPEN_FAILS(open_member(PERF_COUNT_SW_DUMMY, leader, 0, -1, 0), EINVAL);
	/* a member for the same task is fine */
	{
		int m = open_member(PERF_COUNT_SW_DUMMY, leader, child, -1, 0);

		EXPECT_LE(0, m);
		if (m >= 0)
			close(m);
	}
	close(leader);
	kill_sleeper(child);
}

TEST(member_on_a_different_cpu_than_the_leader_fails_einval)
{
	int c0 = pt_nth_cpu(0), c1 = pt_nth_cpu(1);
	int leader, m;

	ASSERT_LE(0, c0);
	/* leader on any CPU, member bound to one */
	leader = open_member(PERF_COUNT_SW_DUMMY, -1, 0, -1, 0);
	ASSERT_LE(0, leader);
	EXPECT_OPEN_FAILS(open_member(PERF_COUNT_SW_DUMMY, leader, 0, c0, 0), EINVAL);
	close(leader);

	/* leader bound to a CPU, member on any CPU */
	leader = open_member(PERF_COUNT_SW_DUMMY, -1, 0, c0, 0);
	ASSERT_LE(0, leader);
	EXPECT_OPEN_FAILS(open_member(PERF_COUNT_SW_DUMMY, leader, 0, -1, 0), EINVAL);
	/* same CPU is fine */
	m = open_member(PERF_COUNT_SW_DUMMY, leader, 0, c0, 0);
	EXPECT_LE(0, m);
	if (m >= 0)
		close(m);
	if (c1 < 0) {
		close(leader);
		SKIP(return, "needs 2 CPUs for the cpu0-vs-cpu1 case");
	}
	EXPECT_OPEN_FAILS(open_member(PERF_COUNT_SW_DUMMY, leader, 0, c1, 0), EINVAL);
	close(leader);
}

TEST(inherit_must_match_between_leader_and_member)
{
	struct perf_event_attr attr;
	int leader, m;

	leader = pt_open_sw(PERF_COUNT_SW_DUMMY, -1, 0);
	ASSERT_LE(0, leader);
	pt_attr_sw(&attr, PERF_COUNT_SW_DUMMY);
	attr.inherit = 1;
	EXPECT_OPEN_FAILS(sys_perf_event_open(&attr, 0, -1, leader, 0), EINVAL);
	close(leader);

	leader = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, leader);
	m = sys_perf_event_open(&attr, 0, -1, leader, 0);
	EXPECT_LE(0, m);
	if (m >= 0)
		close(m);
	EXPECT_OPEN_FAILS(open_member(PERF_COUNT_SW_DUMMY, leader, 0, -1, 0), EINVAL);
	close(leader);
}

TEST(group_flag_enables_leader_and_members_together)
{
	__u64 rf = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	struct pt_val3 lv, mv;
	int leader, member;

	leader = pt_open_sw(PERF_COUNT_SW_DUMMY, -1, rf);
	ASSERT_LE(0, leader);
	member = pt_open_sw(PERF_COUNT_SW_DUMMY, leader, rf);
	ASSERT_LE(0, member);
	ASSERT_EQ(0, ioctl(leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP));
	pt_spin_ns(20000000);
	ASSERT_EQ(0, ioctl(leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP));
	ASSERT_EQ(0, pt_read3(leader, &lv));
	ASSERT_EQ(0, pt_read3(member, &mv));
	/* each event keeps its own times, switched within one ioctl */
	EXPECT_LT(10000000ULL, lv.enabled);
	EXPECT_GT(5000000ULL, lv.enabled > mv.enabled ? lv.enabled - mv.enabled
						     : mv.enabled - lv.enabled);
	EXPECT_EQ(lv.enabled, lv.running);
	EXPECT_EQ(mv.enabled, mv.running);
	close(member);
	close(leader);
}

TEST_HARNESS_MAIN
