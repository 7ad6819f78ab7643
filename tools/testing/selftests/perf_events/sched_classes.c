// SPDX-License-Identifier: GPL-2.0
/*
 * Scheduling classes of software groups: pinned and exclusive.
 *
 * Software events cost no hardware counter, so a group made only of them
 * always fits: pinned ones never go to the error state and exclusive ones
 * do not keep each other off (time_running stays equal to time_enabled).
 */
#include "perf_test.h"
#include "kselftest_harness.h"

#define RF (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)

static int open_class(__u64 config, int pinned, int exclusive)
{
	struct perf_event_attr attr;

	pt_attr_sw(&attr, config);
	attr.read_format = RF;
	attr.pinned = pinned;
	attr.exclusive = exclusive;
	return sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static void run_both(struct __test_metadata *_metadata, int a, int b)
{
	struct pt_val3 va, vb;

	ASSERT_EQ(0, ioctl(a, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, ioctl(b, PERF_EVENT_IOC_ENABLE, 0));
	pt_spin_ns(20000000);
	ASSERT_EQ(0, ioctl(a, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, ioctl(b, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, pt_read3(a, &va));
	ASSERT_EQ(0, pt_read3(b, &vb));
	EXPECT_LT(10000000ULL, va.enabled);
	EXPECT_LT(10000000ULL, vb.enabled);
	EXPECT_EQ(va.enabled, va.running);
	EXPECT_EQ(vb.enabled, vb.running);
	EXPECT_LT(0ULL, va.value);
	EXPECT_LT(0ULL, vb.value);
}

TEST(two_pinned_exclusive_software_groups_both_run)
{
	int a = open_class(PERF_COUNT_SW_TASK_CLOCK, 1, 1);
	int b = open_class(PERF_COUNT_SW_TASK_CLOCK, 1, 0);

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	run_both(_metadata, a, b);
	close(a);
	close(b);
}

TEST(two_flexible_exclusive_software_groups_are_not_multiplexed)
{
	int a = open_class(PERF_COUNT_SW_CPU_CLOCK, 0, 1);
	int b = open_class(PERF_COUNT_SW_CPU_CLOCK, 0, 1);

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	run_both(_metadata, a, b);
	close(a);
	close(b);
}

TEST(pinned_software_event_reads_a_full_record)
{
	struct pt_val3 v;
	int a = open_class(PERF_COUNT_SW_TASK_CLOCK, 1, 0);

	ASSERT_LE(0, a);
	ASSERT_EQ(0, ioctl(a, PERF_EVENT_IOC_ENABLE, 0));
	pt_spin_ns(5000000);
	/* never in the error state: the read is not end-of-file */
	ASSERT_EQ((ssize_t)sizeof(v), read(a, &v, sizeof(v)));
	EXPECT_EQ(v.enabled, v.running);
	close(a);
}

TEST_HARNESS_MAIN
