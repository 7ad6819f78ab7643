// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl(2) on a counting perf event fd: ENABLE, DISABLE, RESET, the
 * PERF_IOC_FLAG_GROUP argument, ID, PERIOD/REFRESH on counting events,
 * PERIOD on the inherited copies of a sampling event and unknown
 * commands.
 */
#include "perf_test.h"

#define NPAGES	16

static __u64 event_id(int fd)
{
	__u64 id = 0;

	if (ioctl(fd, PERF_EVENT_IOC_ID, &id))
		return ~0ULL;
	return id;
}

/* Expect ioctl to fail with errno 'err'. */
#define EXPECT_IOCTL_FAILS(expr, err) do {	\
	int __r;				\
	errno = 0;				\
	__r = (expr);				\
	EXPECT_EQ(-1, __r);			\
	EXPECT_EQ(err, errno);			\
} while (0)

TEST(disabled_event_counts_nothing_until_enabled)
{
	int fd = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, 0);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_fault_pages(NPAGES));
	EXPECT_EQ(0, pt_read1(fd));
	ASSERT_EQ(0, pt_touch_window(fd, NPAGES, 0));
	EXPECT_EQ(NPAGES, pt_read1(fd));
	/* after DISABLE nothing more is counted */
	ASSERT_EQ(0, pt_fault_pages(NPAGES));
	EXPECT_EQ(NPAGES, pt_read1(fd));
	close(fd);
}

TEST(event_opened_enabled_counts_immediately)
{
	struct perf_event_attr attr;
	char *p = pt_map_pages(NPAGES);
	int fd;

	ASSERT_NE(NULL, p);
	pt_attr_sw(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	attr.disabled = 0;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd);
	pt_touch(p, NPAGES);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	/* at least our NPAGES (plus any faults of the code path itself) */
	EXPECT_LE(NPAGES, pt_read1(fd));
	EXPECT_GE(NPAGES + 8, pt_read1(fd));
	close(fd);
	pt_unmap_pages(p, NPAGES);
}

TEST(reset_zeroes_the_count_and_counting_continues)
{
	int fd = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, 0);
	char *p = pt_map_pages(NPAGES);

	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, pt_touch_window(fd, NPAGES, 0));
	ASSERT_EQ(NPAGES, pt_read1(fd));

	/* RESET while enabled: count restarts from zero, event stays on */
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_RESET));
	pt_touch(p, NPAGES);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	EXPECT_EQ(NPAGES, pt_read1(fd));

	/* RESET while disabled zeroes it too */
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_RESET));
	EXPECT_EQ(0, pt_read1(fd));
	close(fd);
	pt_unmap_pages(p, NPAGES);
}

TEST(reset_does_not_reset_time_enabled_or_running)
{
	struct pt_val3 a, b;
	int fd = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1,
			    PERF_FORMAT_TOTAL_TIME_ENABLED |
			    PERF_FORMAT_TOTAL_TIME_RUNNING);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	pt_spin_ns(2000000);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	ASSERT_EQ(0, pt_read3(fd, &a));
	ASSERT_LT(0, a.enabled);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_RESET));
	ASSERT_EQ(0, pt_read3(fd, &b));
	EXPECT_EQ(0, b.value);
	EXPECT_EQ(a.enabled, b.enabled);
	EXPECT_EQ(a.running, b.running);
	close(fd);
}

TEST(enable_and_disable_are_idempotent)
{
	int fd = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, 0);
	char *p = pt_map_pages(NPAGES);

	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	ASSERT_EQ(0, pt_touch_window(fd, 1, 0));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_RESET));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	pt_touch(p, NPAGES);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	EXPECT_EQ(NPAGES, pt_read1(fd));
	close(fd);
	pt_unmap_pages(p, NPAGES);
}

TEST(time_enabled_stops_advancing_while_disabled)
{
	struct pt_val3 a, b;
	int fd = pt_open_sw(PERF_COUNT_SW_DUMMY, -1,
			    PERF_FORMAT_TOTAL_TIME_ENABLED |
			    PERF_FORMAT_TOTAL_TIME_RUNNING);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	pt_spin_ns(2000000);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	ASSERT_EQ(0, pt_read3(fd, &a));
	EXPECT_LT(0, a.enabled);
	pt_spin_ns(5000000);
	pt_sleep_ns(5000000);
	ASSERT_EQ(0, pt_read3(fd, &b));
	EXPECT_EQ(a.enabled, b.enabled);
	EXPECT_EQ(a.running, b.running);

	/* and it resumes from where it stopped */
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	pt_spin_ns(1000000);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	ASSERT_EQ(0, pt_read3(fd, &b));
	EXPECT_LT(a.enabled, b.enabled);
	EXPECT_GT(a.enabled + 1000000000ULL, b.enabled);
	close(fd);
}

TEST(task_event_time_enabled_does_not_advance_while_task_sleeps)
{
	struct pt_val3 v;
	int fd = pt_open_sw(PERF_COUNT_SW_DUMMY, -1,
			    PERF_FORMAT_TOTAL_TIME_ENABLED |
			    PERF_FORMAT_TOTAL_TIME_RUNNING);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	pt_sleep_ns(50000000);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	ASSERT_EQ(0, pt_read3(fd, &v));
	/* A task event's clock runs only while the task is on a CPU. */
	EXPECT_GT(25000000ULL, v.enabled);
	EXPECT_EQ(v.enabled, v.running);
	close(fd);
}

TEST(group_flag_enable_enables_every_group_member)
{
	__u64 buf[8];
	int leader, m1, m2;

	leader = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, PERF_FORMAT_GROUP);
	ASSERT_LE(0, leader);
	m1 = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS_MIN, leader, 0);
	ASSERT_LE(0, m1);
	m2 = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, leader, 0);
	ASSERT_LE(0, m2);
	ASSERT_EQ(0, pt_touch_window(leader, NPAGES, PERF_IOC_FLAG_GROUP));
	ASSERT_EQ(32, read(leader, buf, sizeof(buf)));
	EXPECT_EQ(3, buf[0]);
	EXPECT_EQ(NPAGES, buf[1]);
	EXPECT_EQ(NPAGES, buf[2]);
	EXPECT_EQ(NPAGES, buf[3]);
	close(m2);
	close(m1);
	close(leader);
}

TEST(enable_without_group_flag_enables_only_that_event)
{
	__u64 buf[8];
	int leader, m1;

	leader = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, PERF_FORMAT_GROUP);
	ASSERT_LE(0, leader);
	m1 = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, leader, 0);
	ASSERT_LE(0, m1);
	ASSERT_EQ(0, pt_touch_window(leader, NPAGES, 0));
	ASSERT_EQ(24, read(leader, buf, sizeof(buf)));
	EXPECT_EQ(2, buf[0]);
	EXPECT_EQ(NPAGES, buf[1]);
	EXPECT_EQ(0, buf[2]);
	close(m1);
	close(leader);
}

TEST(group_flag_on_a_member_fd_acts_on_the_whole_group)
{
	__u64 buf[8];
	int leader, m1, m2;

	leader = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, PERF_FORMAT_GROUP);
	ASSERT_LE(0, leader);
	m1 = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, leader, 0);
	ASSERT_LE(0, m1);
	m2 = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, leader, 0);
	ASSERT_LE(0, m2);
	ASSERT_EQ(0, pt_touch_window(m1, NPAGES, PERF_IOC_FLAG_GROUP));
	ASSERT_EQ(32, read(leader, buf, sizeof(buf)));
	EXPECT_EQ(NPAGES, buf[1]);
	EXPECT_EQ(NPAGES, buf[2]);
	EXPECT_EQ(NPAGES, buf[3]);

	ASSERT_EQ(0, ioctl(m2, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP));
	ASSERT_EQ(32, read(leader, buf, sizeof(buf)));
	EXPECT_EQ(0, buf[1]);
	EXPECT_EQ(0, buf[2]);
	EXPECT_EQ(0, buf[3]);
	close(m2);
	close(m1);
	close(leader);
}

TEST(group_flag_reset_resets_every_member)
{
	__u64 buf[8];
	int leader, m1;

	leader = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, PERF_FORMAT_GROUP);
	ASSERT_LE(0, leader);
	m1 = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, leader, 0);
	ASSERT_LE(0, m1);
	ASSERT_EQ(0, pt_touch_window(leader, NPAGES, PERF_IOC_FLAG_GROUP));

	/* RESET without the flag on the leader resets only the leader */
	ASSERT_EQ(0, pt_ioctl(leader, PERF_EVENT_IOC_RESET));
	ASSERT_EQ(24, read(leader, buf, sizeof(buf)));
	EXPECT_EQ(0, buf[1]);
	EXPECT_EQ(NPAGES, buf[2]);

	ASSERT_EQ(0, ioctl(leader, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP));
	ASSERT_EQ(24, read(leader, buf, sizeof(buf)));
	EXPECT_EQ(0, buf[1]);
	EXPECT_EQ(0, buf[2]);
	close(m1);
	close(leader);
}

TEST(disabling_one_member_leaves_the_others_counting)
{
	__u64 buf[8];
	int leader, m1, m2;

	leader = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, PERF_FORMAT_GROUP);
	ASSERT_LE(0, leader);
	m1 = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, leader, 0);
	ASSERT_LE(0, m1);
	m2 = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, leader, 0);
	ASSERT_LE(0, m2);
	ASSERT_EQ(0, ioctl(leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP));
	ASSERT_EQ(0, pt_ioctl(m1, PERF_EVENT_IOC_DISABLE));
	/* m2 stays enabled and counts whenever the leader is on */
	ASSERT_EQ(0, pt_ioctl(leader, PERF_EVENT_IOC_DISABLE));
	ASSERT_EQ(0, ioctl(leader, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP));
	ASSERT_EQ(0, pt_touch_window(leader, NPAGES, 0));
	ASSERT_EQ(32, read(leader, buf, sizeof(buf)));
	EXPECT_EQ(NPAGES, buf[1]);
	EXPECT_EQ(0, buf[2]);
	EXPECT_EQ(NPAGES, buf[3]);
	close(m2);
	close(m1);
	close(leader);
}

TEST(id_ioctl_is_stable_and_matches_read_format_id)
{
	__u64 buf[2];
	int fd = pt_open_sw(PERF_COUNT_SW_DUMMY, -1, PERF_FORMAT_ID);

	ASSERT_LE(0, fd);
	ASSERT_EQ(16, read(fd, buf, sizeof(buf)));
	EXPECT_EQ(buf[1], event_id(fd));
	EXPECT_EQ(event_id(fd), event_id(fd));
	close(fd);
}

TEST(period_ioctl_on_counting_event_fails_einval)
{
	__u64 period = 1000;
	int fd = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, 0);

	ASSERT_LE(0, fd);
	EXPECT_IOCTL_FAILS(ioctl(fd, PERF_EVENT_IOC_PERIOD, &period), EINVAL);
	period = 0;
	EXPECT_IOCTL_FAILS(ioctl(fd, PERF_EVENT_IOC_PERIOD, &period), EINVAL);
	close(fd);
}

TEST(period_ioctl_with_bad_pointer_fails_efault)
{
	int fd = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, 0);

	ASSERT_LE(0, fd);
	EXPECT_IOCTL_FAILS(ioctl(fd, PERF_EVENT_IOC_PERIOD, NULL), EFAULT);
	close(fd);
}

/* Samples of @tid among the records in the buffer. */
static int samples_of(struct pt_rb *rb, pid_t tid)
{
	struct perf_event_header *h = NULL;
	struct pt_recs r;
	int n = 0;

	if (pt_rb_drain(rb, &r))
		return -1;
	while ((h = pt_recs_next(&r, h, PERF_RECORD_SAMPLE))) {
		/* PERF_SAMPLE_TID: u32 pid, u32 tid */
		__u32 *pid_tid = (__u32 *)(h + 1);

		if ((pid_t)pid_tid[1] == tid)
			n++;
	}
	pt_recs_free(&r);
	return n;
}

/*
 * PERIOD reaches the copies that inheritance made: a child forked while
 * the period was too long to ever sample samples each of its page faults
 * once the parent's period is set to 1. (An inherited event can only be
 * mapped bound to a CPU: both tasks run on that one.)
 */
TEST(period_ioctl_applies_to_inherited_children)
{
	int go[2], fd, status, cpu = pt_nth_cpu(0);
	struct perf_event_attr attr;
	__u64 period = 1;
	struct pt_rb rb;
	pid_t pid;
	char c;

	ASSERT_LE(0, cpu);
	ASSERT_EQ(0, pt_pin_cpu(0, cpu));
	pt_attr_sw(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	attr.disabled = 0;
	attr.inherit = 1;
	attr.sample_period = 1ULL << 40;
	attr.sample_type = PERF_SAMPLE_TID;
	fd = sys_perf_event_open(&attr, 0, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_rb_map(&rb, fd, NPAGES));
	ASSERT_EQ(0, pipe(go));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		_exit(pt_fault_pages(NPAGES) ? 3 : 0);
	}
	close(go[0]);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_PERIOD, &period));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	/* at least one sample per page the child faulted in */
	EXPECT_LE(NPAGES, samples_of(&rb, pid));
	close(go[1]);
	pt_rb_unmap(&rb);
	close(fd);
}

TEST(refresh_on_counting_event_fails_einval)
{
	int fd = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, 0);

	ASSERT_LE(0, fd);
	EXPECT_IOCTL_FAILS(ioctl(fd, PERF_EVENT_IOC_REFRESH, 1), EINVAL);
	EXPECT_IOCTL_FAILS(ioctl(fd, PERF_EVENT_IOC_REFRESH, 0), EINVAL);
	/* and it did not enable the event */
	ASSERT_EQ(0, pt_fault_pages(NPAGES));
	EXPECT_EQ(0, pt_read1(fd));
	close(fd);
}

TEST(modify_attributes_on_software_event_fails_eopnotsupp)
{
	struct perf_event_attr attr;
	int fd = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, 0);

	ASSERT_LE(0, fd);
	pt_attr_sw(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	EXPECT_IOCTL_FAILS(ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &attr),
			   EOPNOTSUPP);
	close(fd);
}

TEST(unknown_ioctl_fails_enotty)
{
	int fd = pt_open_sw(PERF_COUNT_SW_DUMMY, -1, 0);

	ASSERT_LE(0, fd);
	/* unused number in the perf '$' range, another type, and a raw 0 */
	EXPECT_IOCTL_FAILS(ioctl(fd, _IO('$', 99), 0), ENOTTY);
	EXPECT_IOCTL_FAILS(ioctl(fd, _IO('x', 0), 0), ENOTTY);
	EXPECT_IOCTL_FAILS(ioctl(fd, 0, 0), ENOTTY);
	close(fd);
}

TEST_HARNESS_MAIN
