// SPDX-License-Identifier: GPL-2.0
/*
 * The perf sysctls in /proc/sys/kernel: presence, permissions, defaults
 * and the ranges the kernel accepts on write. Write tests need root and
 * restore every value (fixture teardown runs in the harness process).
 */
#include "perf_test.h"
#include <sys/stat.h>

#define SYSCTL_DIR "/proc/sys/kernel/"

static const char *const perf_sysctls[] = {
	"perf_event_paranoid",
	"perf_event_mlock_kb",
	"perf_event_max_sample_rate",
	"perf_cpu_time_max_percent",
	"perf_event_max_stack",
	"perf_event_max_contexts_per_stack",
};
#define NR_SYSCTLS ARRAY_SIZE(perf_sysctls)

static int read_sysctl(const char *name, long long *v)
{
	char path[128];

	snprintf(path, sizeof(path), SYSCTL_DIR "%s", name);
	return pt_read_int_file(path, v);
}

/* 0 or -errno */
static int write_sysctl_str(const char *name, const char *s)
{
	char path[128];

	snprintf(path, sizeof(path), SYSCTL_DIR "%s", name);
	return pt_write_file(path, s);
}

static int write_sysctl(const char *name, long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld\n", v);
	return write_sysctl_str(name, buf);
}

static long long get(const char *name)
{
	long long v = -12345;

	read_sysctl(name, &v);
	return v;
}

TEST(all_perf_sysctls_exist_and_are_root_owned_0644)
{
	unsigned int i;

	for (i = 0; i < NR_SYSCTLS; i++) {
		char path[128];
		struct stat st;

		snprintf(path, sizeof(path), SYSCTL_DIR "%s", perf_sysctls[i]);
		ASSERT_EQ(0, stat(path, &st)) TH_LOG("%s missing", path);
		EXPECT_EQ(0644, st.st_mode & 07777) TH_LOG("%s", path);
		EXPECT_EQ(0, st.st_uid) TH_LOG("%s", path);
	}
}

/*
 * The test kernels are built, as Debian's, with
 * SECURITY_PERF_EVENTS_RESTRICT: the boot default is 3. The guest's init
 * kept that value in /run-paranoid before setting 6.12's default of 2,
 * at which every test runs.
 */
TEST(perf_event_paranoid_boots_at_3_with_security_restrict)
{
	long long boot = -12345;

	ASSERT_EQ(0, pt_read_int_file("/run-paranoid", &boot))
		TH_LOG("the guest's init did not keep the boot value");
	EXPECT_EQ(3, boot);
	EXPECT_EQ(2, get("perf_event_paranoid"));
}

TEST(perf_event_mlock_kb_default_is_512_plus_one_page)
{
	/* 516 with 4 KiB pages */
	EXPECT_EQ(512 + pt_page_size() / 1024, get("perf_event_mlock_kb"));
}

TEST(perf_event_max_sample_rate_is_positive_and_at_most_100000)
{
	long long v = get("perf_event_max_sample_rate");

	/* the kernel may lower it at run time when sampling takes too long */
	EXPECT_LT(0, v);
	EXPECT_GE(100000, v);
}

TEST(perf_cpu_time_max_percent_default_is_25)
{
	EXPECT_EQ(25, get("perf_cpu_time_max_percent"));
}

TEST(perf_event_max_stack_default_is_127)
{
	EXPECT_EQ(127, get("perf_event_max_stack"));
}

TEST(perf_event_max_contexts_per_stack_default_is_8)
{
	EXPECT_EQ(8, get("perf_event_max_contexts_per_stack"));
}

TEST(unprivileged_sysctl_write_fails_eacces)
{
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		unsigned int i;

		if (geteuid() == 0 && pt_drop_privs(1000, 1000))
			_exit(255);
		for (i = 0; i < NR_SYSCTLS; i++)
			if (write_sysctl(perf_sysctls[i], get(perf_sysctls[i])) != -EACCES)
				_exit(1 + i);
		_exit(0);
	}
	EXPECT_EQ(0, pt_wait_exit(pid));
}

FIXTURE(sysctl) {
	long long saved[NR_SYSCTLS];
};

FIXTURE_SETUP(sysctl)
{
	unsigned int i;

	if (geteuid() != 0)
		SKIP(return, "needs root to write sysctls");
	for (i = 0; i < NR_SYSCTLS; i++)
		ASSERT_EQ(0, read_sysctl(perf_sysctls[i], &self->saved[i]));
}

FIXTURE_TEARDOWN_PARENT(sysctl)
{
	unsigned int i;

	if (geteuid() != 0)
		return;
	/*
	 * perf_cpu_time_max_percent (index 3) first: the sample rate cannot
	 * be written while it is 0 or 100.
	 */
	write_sysctl(perf_sysctls[3], self->saved[3]);
	for (i = 0; i < NR_SYSCTLS; i++)
		write_sysctl(perf_sysctls[i], self->saved[i]);
}

/* Write v and expect it accepted and read back unchanged. */
#define EXPECT_ROUND_TRIP(name, v) do {					\
	EXPECT_EQ(0, write_sysctl(name, v)) TH_LOG("%s=%lld", name, (long long)(v)); \
	EXPECT_EQ((long long)(v), get(name)) TH_LOG("%s", name);	\
} while (0)

#define EXPECT_REJECTED(name, v) do {					\
	long long __before = get(name);					\
	EXPECT_EQ(-EINVAL, write_sysctl(name, v)) TH_LOG("%s=%lld", name, (long long)(v)); \
	EXPECT_EQ(__before, get(name)) TH_LOG("%s", name);		\
} while (0)

TEST_F(sysctl, perf_cpu_time_max_percent_accepts_0_to_100_only)
{
	const char *n = "perf_cpu_time_max_percent";

	EXPECT_ROUND_TRIP(n, 0);
	EXPECT_ROUND_TRIP(n, 100);
	EXPECT_ROUND_TRIP(n, 50);
	EXPECT_REJECTED(n, 101);
	EXPECT_REJECTED(n, -1);
}

TEST_F(sysctl, perf_event_max_sample_rate_rejects_values_below_1)
{
	const char *n = "perf_event_max_sample_rate";

	EXPECT_ROUND_TRIP(n, 1);
	EXPECT_ROUND_TRIP(n, 50000);
	EXPECT_REJECTED(n, 0);
	EXPECT_REJECTED(n, -1);
}

TEST_F(sysctl, perf_event_max_sample_rate_is_read_only_while_cpu_time_limit_is_off)
{
	const char *n = "perf_event_max_sample_rate";

	/* 0 and 100 both disable the CPU time limit (and rate throttling) */
	ASSERT_EQ(0, write_sysctl("perf_cpu_time_max_percent", 100));
	EXPECT_REJECTED(n, 50000);
	ASSERT_EQ(0, write_sysctl("perf_cpu_time_max_percent", 0));
	EXPECT_REJECTED(n, 50000);
	ASSERT_EQ(0, write_sysctl("perf_cpu_time_max_percent", 25));
	EXPECT_ROUND_TRIP(n, 50000);
}

TEST_F(sysctl, perf_event_max_sample_rate_limits_attr_sample_freq)
{
	struct perf_event_attr attr;
	int fd;

	ASSERT_EQ(0, write_sysctl("perf_event_max_sample_rate", 1000));
	pt_attr_sw(&attr, PERF_COUNT_SW_CPU_CLOCK);
	attr.freq = 1;
	attr.sample_freq = 1000;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	EXPECT_LE(0, fd) TH_LOG("%s", strerror(errno));
	if (fd >= 0)
		close(fd);
	attr.sample_freq = 1001;
	errno = 0;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EINVAL, errno);
	if (fd >= 0)
		close(fd);
}

TEST_F(sysctl, perf_event_max_stack_accepts_0_to_655360)
{
	const char *n = "perf_event_max_stack";

	EXPECT_ROUND_TRIP(n, 0);
	EXPECT_ROUND_TRIP(n, 512);
	EXPECT_ROUND_TRIP(n, 655360);
	EXPECT_REJECTED(n, 655361);
	EXPECT_REJECTED(n, -1);
}

TEST_F(sysctl, perf_event_max_contexts_per_stack_accepts_0_to_1000)
{
	const char *n = "perf_event_max_contexts_per_stack";

	EXPECT_ROUND_TRIP(n, 0);
	EXPECT_ROUND_TRIP(n, 1000);
	EXPECT_REJECTED(n, 1001);
	EXPECT_REJECTED(n, -1);
}

TEST_F(sysctl, perf_event_paranoid_accepts_any_int)
{
	const char *n = "perf_event_paranoid";

	EXPECT_ROUND_TRIP(n, -1);
	EXPECT_ROUND_TRIP(n, 3);
	/* no range check: out-of-spec levels are stored as written */
	EXPECT_ROUND_TRIP(n, -2);
	EXPECT_ROUND_TRIP(n, 100);
	EXPECT_REJECTED(n, 2147483648LL);
}

TEST_F(sysctl, perf_event_mlock_kb_round_trips)
{
	const char *n = "perf_event_mlock_kb";

	EXPECT_ROUND_TRIP(n, 0);
	EXPECT_ROUND_TRIP(n, 1024);
	EXPECT_ROUND_TRIP(n, 2048);
}

TEST_F(sysctl, non_numeric_writes_fail_einval)
{
	unsigned int i;

	for (i = 0; i < NR_SYSCTLS; i++) {
		long long before = get(perf_sysctls[i]);

		EXPECT_EQ(-EINVAL, write_sysctl_str(perf_sysctls[i], "abc\n"))
			TH_LOG("%s", perf_sysctls[i]);
		EXPECT_EQ(before, get(perf_sysctls[i]));
	}
}

#define TEST_PMU_KO	"/tests/modules/perf_test_pmu.ko"
#define TOOK_PARAM	"/sys/module/perf_test_pmu/parameters/took"

/*
 * What one long PMU interrupt does to the rate limit: the average is
 * over the last 128 or so interrupts of the CPU, as 6.12's, so one of
 * 2.5 ms after many of 1 us lowers perf_event_max_sample_rate from
 * 100000 to about 9000-10000 (at 25%: 9500 with HZ 250, 9000 with HZ
 * 1000), not to a few hundred. The test module reports the interrupts
 * to perf_sample_event_took() on the CPU this test is pinned to.
 */
TEST_F(sysctl, one_long_interrupt_lowers_the_rate_by_its_share)
{
	long long rate;
	cpu_set_t set;
	int fd;

	/* both writes' interrupts on one CPU: its average */
	CPU_ZERO(&set);
	CPU_SET(sched_getcpu(), &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	fd = open(TEST_PMU_KO, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		SKIP(return, "no %s", TEST_PMU_KO);
	ASSERT_TRUE(!syscall(SYS_finit_module, fd, "", 0) || errno == EEXIST)
		TH_LOG("finit_module: %s", strerror(errno));
	close(fd);
	if (access(TOOK_PARAM, W_OK))
		SKIP(return, "the test module has no \"took\" (a stock build)");
	ASSERT_EQ(0, write_sysctl("perf_cpu_time_max_percent", 25));
	ASSERT_EQ(0, write_sysctl("perf_event_max_sample_rate", 100000));
	/* under the limit (2.5 us a sample at 100000 and 25%): no change */
	ASSERT_EQ(0, pt_write_file(TOOK_PARAM, "3000 1000"));
	EXPECT_EQ(100000, get("perf_event_max_sample_rate"));
	ASSERT_EQ(0, pt_write_file(TOOK_PARAM, "1 2500000"));
	rate = get("perf_event_max_sample_rate");
	EXPECT_TRUE(rate >= 8000 && rate <= 10000) TH_LOG("rate %lld", rate);
	/*
	 * this CPU's average back near 0 before the teardown restores the
	 * rate: the next interrupt here would lower it again
	 */
	EXPECT_EQ(0, pt_write_file(TOOK_PARAM, "3000 0"));
	EXPECT_EQ(rate, get("perf_event_max_sample_rate"));
	syscall(SYS_delete_module, "perf_test_pmu", O_NONBLOCK);
}

TEST_HARNESS_MAIN
