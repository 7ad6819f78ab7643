// SPDX-License-Identifier: GPL-2.0
/*
 * What the core does for device PMU drivers (uncore, iommu, idxd, RAPL,
 * nvdimm), through the test module modules/perf_test_pmu.c: the sysfs
 * helpers (PMU_FORMAT_ATTR, PMU_EVENT_ATTR_STRING, the cpumask of a
 * scoped PMU), PMUs without a task context or an interrupt, groups the
 * driver bounds with for_each_sibling_event, perf_pmu_migrate_context()
 * at CPU hotplug, and the module reference an open event holds.
 *
 * Needs root (module loading, hotplug); skips where the kernel has no
 * module support or the module was not built.
 */
#include "perf_test.h"

#include <fcntl.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"

#define MODULE_PATH	"/tests/modules/perf_test_pmu.ko"
#define MODULE_NAME	"perf_test_pmu"
#define SYS_DIR		"/sys/bus/event_source/devices/perf_test_sys"
#define MIG_DIR		"/sys/bus/event_source/devices/perf_test_mig"

enum { EV_CPU = 1, EV_STARTS = 2 };

static int unload_module(void)
{
	return syscall(SYS_delete_module, MODULE_NAME, O_NONBLOCK) ? errno : 0;
}

static int open_dev(int type, __u64 config, pid_t pid, int cpu, int group)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	return sys_perf_event_open(&attr, pid, cpu, group,
				   PERF_FLAG_FD_CLOEXEC);
}

static __u64 value(int fd)
{
	struct pt_val3 v;

	return pt_read3(fd, &v) ? ~0ULL : v.value;
}

static int file_is(const char *path, const char *want)
{
	char buf[256];

	if (pt_read_file(path, buf, sizeof(buf)) < 0)
		return 0;
	return !strcmp(buf, want);
}

static int cpu_online_set(int cpu, int on)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	return pt_write_int_file(path, on);
}

FIXTURE(dev) {
	int sys, mig;
};

FIXTURE_SETUP(dev)
{
	int err;

	if (geteuid() != 0)
		SKIP(return, "needs root to load modules");
	err = pt_load_module(MODULE_PATH);
	if (err == -ENOENT)
		SKIP(return, "no %s", MODULE_PATH);
	if (err == -ENOSYS)
		SKIP(return, "kernel without modules");
	ASSERT_EQ(0, err);
	self->sys = pt_pmu_type(SYS_DIR);
	self->mig = pt_pmu_type(MIG_DIR);
	ASSERT_LT(0, self->sys);
	ASSERT_LT(0, self->mig);
}

FIXTURE_TEARDOWN(dev)
{
	if (geteuid() == 0)
		unload_module();
}

/* The driver's format/ and events/ files, and the core's cpumask. */
TEST_F(dev, sysfs_helpers_and_cpumask)
{
	char online[256], path[300];

	EXPECT_TRUE(file_is(SYS_DIR "/format/event", "config:0-7\n"));
	EXPECT_TRUE(file_is(SYS_DIR "/events/cpu", "event=0x1\n"));
	EXPECT_TRUE(file_is(SYS_DIR "/events/starts", "event=0x2\n"));
	/* one reader for the whole system: the first online CPU */
	EXPECT_TRUE(file_is(SYS_DIR "/cpumask", "0\n"));
	/* a driver without a scope keeps its own cpumask file */
	ASSERT_EQ(0, pt_read_file("/sys/devices/system/cpu/online", online,
				  sizeof(online)));
	EXPECT_TRUE(file_is(MIG_DIR "/cpumask", online));
	snprintf(path, sizeof(path), "%s/format/event", MIG_DIR);
	EXPECT_TRUE(file_is(path, "config:0-7\n"));
}

/*
 * Tools open a scoped PMU's events on the cpumask CPU; one opened on
 * another CPU of the domain is accepted too (as 6.12 does). A domain-wide
 * count may be read on any CPU of the domain (6.12 reads it where read()
 * runs), so the value is some online CPU + 1.
 */
TEST_F(dev, scoped_events_open_on_any_cpu_of_the_domain)
{
	int cpu = pt_nth_cpu(pt_nr_cpus() - 1), fd, i;
	struct pt_val3 v;
	int cpus[2] = { 0, cpu };

	for (i = 0; i < 2; i++) {
		fd = open_dev(self->sys, EV_CPU, -1, cpus[i], -1);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, pt_read3(fd, &v));
		EXPECT_LE(1, v.value);
		EXPECT_GE(pt_nr_cpus(), v.value);
		EXPECT_EQ(v.enabled, v.running);
		close(fd);
	}
	/* the PMU without a scope likewise */
	fd = open_dev(self->mig, EV_CPU, -1, cpu, -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_read3(fd, &v));
	EXPECT_EQ(cpu + 1, v.value);
	close(fd);
}

/* No task context (perf_invalid_context): EINVAL for task events. */
TEST_F(dev, task_events_are_einval)
{
	errno = 0;
	EXPECT_EQ(-1, open_dev(self->sys, EV_CPU, 0, -1, -1));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, open_dev(self->mig, EV_CPU, 0, pt_nth_cpu(0), -1));
	EXPECT_EQ(EINVAL, errno);
}

/* PERF_PMU_CAP_NO_INTERRUPT: sampling is EOPNOTSUPP. */
TEST_F(dev, sampling_without_an_interrupt_is_eopnotsupp)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = self->sys;
	attr.config = EV_CPU;
	attr.sample_period = 1000;
	errno = 0;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, -1, pt_nth_cpu(0), -1,
					  PERF_FLAG_FD_CLOEXEC));
	EXPECT_EQ(EOPNOTSUPP, errno);
	/* and PERF_PMU_CAP_NO_EXCLUDE: any exclude bit is EINVAL */
	attr.sample_period = 0;
	attr.exclude_kernel = 1;
	errno = 0;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, -1, pt_nth_cpu(0), -1,
					  PERF_FLAG_FD_CLOEXEC));
	EXPECT_EQ(EINVAL, errno);
}

/* The driver counts the group's members with for_each_sibling_event(). */
TEST_F(dev, group_bounded_by_the_driver)
{
	int cpu = pt_nth_cpu(0), fd[5], i;

	fd[0] = open_dev(self->mig, EV_STARTS, -1, cpu, -1);
	ASSERT_LE(0, fd[0]);
	for (i = 1; i < 4; i++) {
		fd[i] = open_dev(self->mig, EV_STARTS, -1, cpu, fd[0]);
		ASSERT_LE(0, fd[i]);
	}
	errno = 0;
	fd[4] = open_dev(self->mig, EV_STARTS, -1, cpu, fd[0]);
	EXPECT_EQ(-1, fd[4]);
	EXPECT_EQ(EINVAL, errno);
	/* every member was started on the CPU */
	for (i = 0; i < 4; i++) {
		EXPECT_LE(1, value(fd[i]));
		EXPECT_GT(1000, value(fd[i]));
		close(fd[i]);
	}
}

/* An open event pins the module; closing it lets the module go. */
TEST_F(dev, open_event_holds_the_module)
{
	int fd = open_dev(self->sys, EV_CPU, -1, pt_nth_cpu(0), -1);

	ASSERT_LE(0, fd);
	EXPECT_EQ(EWOULDBLOCK, unload_module());
	close(fd);
	EXPECT_EQ(0, unload_module());
	EXPECT_EQ(0, pt_load_module(MODULE_PATH));
}

/*
 * The driver moves its events off a CPU going offline with
 * perf_pmu_migrate_context(): they keep counting on another CPU, their
 * times continuous, the group whole.
 */
TEST_F(dev, migrate_context_at_cpu_offline)
{
	struct pt_val3 before, after;
	int cpu, fd, sib;
	__u64 starts;

	if (pt_nr_cpus() < 2)
		SKIP(return, "needs two CPUs");
	cpu = pt_nth_cpu(1);
	fd = open_dev(self->mig, EV_CPU, -1, cpu, -1);
	ASSERT_LE(0, fd);
	sib = open_dev(self->mig, EV_STARTS, -1, cpu, fd);
	ASSERT_LE(0, sib);
	ASSERT_EQ(0, pt_read3(fd, &before));
	EXPECT_EQ(cpu + 1, before.value);
	starts = value(sib);
	EXPECT_LE(1, starts);

	ASSERT_EQ(0, cpu_online_set(cpu, 0));
	ASSERT_EQ(0, pt_read3(fd, &after));
	/* now read on the CPU it moved to, still running all the time */
	EXPECT_NE(cpu + 1, after.value);
	EXPECT_LT(0, after.value);
	EXPECT_EQ(after.enabled, after.running);
	EXPECT_LT(before.enabled, after.enabled);
	/* its sibling moved with it and was started again there */
	EXPECT_LT(starts, value(sib));
	ASSERT_EQ(0, cpu_online_set(cpu, 1));

	close(sib);
	close(fd);
}

TEST_HARNESS_MAIN
