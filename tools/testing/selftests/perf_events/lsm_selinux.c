// SPDX-License-Identifier: GPL-2.0
/*
 * SELinux's perf_event class, enforced through the perf LSM hooks.
 *
 * The test kernels are built with SELinux but boot without a policy. This
 * test loads small policies (selinux/policy.conf.in, compiled into the
 * binary by the Makefile), each granting every perf_event permission but
 * one, switches to enforcing mode and checks that exactly the operations
 * behind the missing permission fail with EACCES while the others work:
 * open (perf_event_open), cpu (a CPU-wide event), kernel (counting the
 * kernel), tracepoint (raw tracepoint samples), read (read() and mmap)
 * and write (ioctl). It ends with the policy that grants everything,
 * permissive again, so that the tests after it run as before.
 * Needs root.
 */
#include "perf_test.h"
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>

#define SELINUXFS	"/sys/fs/selinux"

#define POLICY(name)							\
	extern const char pol_##name[], pol_##name##_end[];		\
	asm(".pushsection .rodata\n"					\
	    ".global pol_" #name "\n"					\
	    "pol_" #name ":\n"						\
	    ".incbin \"" POLICY_DIR "/" #name ".bin\"\n"		\
	    ".global pol_" #name "_end\n"				\
	    "pol_" #name "_end:\n"					\
	    ".popsection\n")

POLICY(all);
POLICY(no_open);
POLICY(no_cpu);
POLICY(no_kernel);
POLICY(no_tracepoint);
POLICY(no_read);
POLICY(no_write);

/* 0 or -errno */
static int load(const char *start, const char *end)
{
	int fd = open(SELINUXFS "/load", O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, start, end - start);
	err = n < 0 ? -errno : n != end - start ? -EIO : 0;
	close(fd);
	return err;
}

#define LOAD(name) load(pol_##name, pol_##name##_end)

static int enforce(int on)
{
	return pt_write_file(SELINUXFS "/enforce", on ? "1" : "0");
}

/* open @attr on self (@cpu -1) or CPU-wide (@cpu 0): fd or -errno */
static int try_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	int fd = sys_perf_event_open(attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int sw_open(int exclude_kernel, pid_t pid, int cpu)
{
	struct perf_event_attr attr;

	pt_attr_sw(&attr, PERF_COUNT_SW_CPU_CLOCK);
	attr.exclude_kernel = exclude_kernel;
	return try_open(&attr, pid, cpu);
}

static long long tracepoint_id(void)
{
	long long id = -1;

	if (pt_read_int_file("/sys/kernel/tracing/events/sched/sched_switch/id",
			     &id))
		pt_read_int_file("/sys/kernel/debug/tracing/events/sched/sched_switch/id",
				 &id);
	return id;
}

static int tp_open(long long id, int raw)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = id;
	attr.disabled = 1;
	attr.sample_period = 1;
	attr.sample_type = raw ? PERF_SAMPLE_RAW : PERF_SAMPLE_IP;
	return try_open(&attr, 0, -1);
}

static void closefd(int fd)
{
	if (fd >= 0)
		close(fd);
}

FIXTURE(selinux) {
	int mounted;
};

FIXTURE_SETUP(selinux)
{
	struct stat st;

	if (geteuid())
		SKIP(return, "loading a policy needs root");
	if (stat(SELINUXFS "/load", &st)) {
		ASSERT_EQ(0, mount("selinuxfs", SELINUXFS, "selinuxfs", 0, NULL))
			TH_LOG("the test kernels have SELinux: %s",
			       strerror(errno));
		self->mounted = 1;
	}
}

FIXTURE_TEARDOWN(selinux)
{
	if (geteuid())
		return;
	/* everything granted, permissive: the next tests see no SELinux */
	EXPECT_EQ(0, LOAD(all));
	EXPECT_EQ(0, enforce(0));
}

TEST_F(selinux, perf_event_open_needs_open)
{
	int fd;

	ASSERT_EQ(0, LOAD(no_open));
	ASSERT_EQ(0, enforce(1));
	EXPECT_EQ(-EACCES, sw_open(1, 0, -1));
	ASSERT_EQ(0, enforce(0));
	/* permissive: logged, allowed */
	fd = sw_open(1, 0, -1);
	EXPECT_LE(0, fd) TH_LOG("permissive: %s", strerror(-fd));
	closefd(fd);
}

TEST_F(selinux, cpu_wide_events_need_cpu)
{
	int fd;

	ASSERT_EQ(0, LOAD(no_cpu));
	ASSERT_EQ(0, enforce(1));
	EXPECT_EQ(-EACCES, sw_open(1, -1, 0));
	fd = sw_open(1, 0, -1);
	EXPECT_LE(0, fd) TH_LOG("a task event needs no cpu: %s",
				 strerror(-fd));
	closefd(fd);
}

TEST_F(selinux, counting_the_kernel_needs_kernel)
{
	int fd;

	ASSERT_EQ(0, LOAD(no_kernel));
	ASSERT_EQ(0, enforce(1));
	EXPECT_EQ(-EACCES, sw_open(0, 0, -1));
	fd = sw_open(1, 0, -1);
	EXPECT_LE(0, fd) TH_LOG("user-only needs no kernel: %s",
				 strerror(-fd));
	closefd(fd);
}

TEST_F(selinux, raw_tracepoint_samples_need_tracepoint)
{
	long long id = tracepoint_id();
	int fd;

	ASSERT_LE(0, id) TH_LOG("no sched:sched_switch in tracefs");
	ASSERT_EQ(0, LOAD(no_tracepoint));
	ASSERT_EQ(0, enforce(1));
	EXPECT_EQ(-EACCES, tp_open(id, 1));
	fd = tp_open(id, 0);
	EXPECT_LE(0, fd) TH_LOG("samples without raw data: %s",
				 strerror(-fd));
	closefd(fd);
}

TEST_F(selinux, read_and_mmap_need_read)
{
	long pg = sysconf(_SC_PAGESIZE);
	__u64 v;
	void *rb;
	int fd;

	ASSERT_EQ(0, LOAD(no_read));
	ASSERT_EQ(0, enforce(1));
	fd = sw_open(1, 0, -1);
	ASSERT_LE(0, fd) TH_LOG("open: %s", strerror(-fd));
	EXPECT_EQ(-1, read(fd, &v, sizeof(v)));
	EXPECT_EQ(EACCES, errno);
	rb = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, rb);
	EXPECT_EQ(EACCES, errno);
	/* ioctls are writes: granted */
	EXPECT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	close(fd);
}

TEST_F(selinux, ioctls_need_write)
{
	__u64 v;
	int fd;

	ASSERT_EQ(0, LOAD(no_write));
	ASSERT_EQ(0, enforce(1));
	fd = sw_open(1, 0, -1);
	ASSERT_LE(0, fd) TH_LOG("open: %s", strerror(-fd));
	EXPECT_EQ(-1, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(-1, ioctl(fd, PERF_EVENT_IOC_RESET, 0));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ((ssize_t)sizeof(v), read(fd, &v, sizeof(v)));
	close(fd);
}

TEST_F(selinux, everything_granted_opens_reads_and_enables)
{
	__u64 v;
	int fd;

	ASSERT_EQ(0, LOAD(all));
	ASSERT_EQ(0, enforce(1));
	fd = sw_open(0, -1, 0);
	ASSERT_LE(0, fd) TH_LOG("open: %s", strerror(-fd));
	EXPECT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	EXPECT_EQ((ssize_t)sizeof(v), read(fd, &v, sizeof(v)));
	close(fd);
}

TEST_HARNESS_MAIN
