// SPDX-License-Identifier: GPL-2.0
/*
 * The x86 "msr" PMU (/sys/bus/event_source/devices/msr): free-running
 * counters (tsc, aperf, mperf, ...) read by the kernel on behalf of the
 * event. Checks its sysfs description and that a tsc event counts, and
 * that what it cannot do (sampling, privilege filters, unknown or absent
 * counters) is refused with EINVAL.
 *
 * Every test SKIPs when the PMU is not there (non-x86, or no TSC).
 * The msr PMU cannot exclude the kernel, so opening a counting event
 * needs kernel counting permission (root or perf_event_paranoid < 2);
 * the tests that need it SKIP for an unprivileged user.
 */
#include "perf_test.h"

#include <dirent.h>

#define MSR_DIR		"/sys/bus/event_source/devices/msr"
/* config numbers of the ABI: tsc=0 ... cpu_thermal_margin=7 */
#define MSR_NR_CONFIGS	8
#define SPIN_NS		(20 * 1000 * 1000ULL)

#define NEED_MSR_PMU(_type)						\
	do {								\
		(_type) = msr_pmu_type();				\
		if ((_type) < 0)					\
			SKIP(return, "no msr PMU (" MSR_DIR ")");	\
	} while (0)

#define NEED_KERNEL_COUNTING()						\
	do {								\
		if (!pt_can_count_kernel())				\
			SKIP(return, "msr events count the kernel too: needs root or perf_event_paranoid < 2"); \
	} while (0)

static int msr_pmu_type(void)
{
	long long type;

	if (pt_read_int_file(MSR_DIR "/type", &type))
		return -1;
	return (int)type;
}

/* The contents of a sysfs file without the trailing newline, or -1. */
static int read_str_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	return 0;
}

/* A counting (non-sampling) msr event, enabled unless 'disabled'. */
static void msr_attr(struct perf_event_attr *attr, int type, __u64 config,
		     bool disabled)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config;
	attr->disabled = disabled;
}

static int msr_open(int type, __u64 config, bool disabled)
{
	struct perf_event_attr attr;

	msr_attr(&attr, type, config, disabled);
	return sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* errno of a perf_event_open(attr) on self that must fail, or 0. */
static int open_errno(struct perf_event_attr *attr)
{
	int fd = sys_perf_event_open(attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno;
}

/*
 * Parse an events/ file holding "event=0x0N"; returns N, or -1 if the
 * contents are anything else.
 */
static int parse_event_file(const char *contents)
{
	unsigned int n;
	char tail;

	if (strncmp(contents, "event=0x0", 9) || strlen(contents) != 10)
		return -1;
	if (sscanf(contents, "event=0x%x%c", &n, &tail) != 1)
		return -1;
	return n < MSR_NR_CONFIGS ? (int)n : -1;
}

/*
 * The configs listed in events/, as a bit mask; -1 if a file does not
 * parse. Files with a '.' (e.g. <event>.unit) describe an event and are
 * not events.
 */
static int listed_configs(struct __test_metadata *_metadata)
{
	char path[512], buf[64];
	struct dirent *de;
	int mask = 0, n;
	DIR *d;

	d = opendir(MSR_DIR "/events");
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strchr(de->d_name, '.'))
			continue;
		snprintf(path, sizeof(path), MSR_DIR "/events/%s", de->d_name);
		if (read_str_file(path, buf, sizeof(buf))) {
			TH_LOG("%s: unreadable", path);
			mask = -1;
			break;
		}
		n = parse_event_file(buf);
		if (n < 0) {
			TH_LOG("%s: \"%s\" is not event=0x0N", path, buf);
			mask = -1;
			break;
		}
		if (mask & (1 << n)) {
			TH_LOG("%s: config %d listed twice", path, n);
			mask = -1;
			break;
		}
		mask |= 1 << n;
	}
	closedir(d);
	return mask;
}

TEST(type_is_a_dynamic_pmu_type)
{
	int type;

	NEED_MSR_PMU(type);
	EXPECT_LE(PERF_TYPE_MAX, type);
}

TEST(format_event_is_config_0_63)
{
	char buf[64];
	int type;

	NEED_MSR_PMU(type);
	ASSERT_EQ(0, read_str_file(MSR_DIR "/format/event", buf, sizeof(buf)));
	EXPECT_STREQ("config:0-63", buf);
}

TEST(every_event_file_is_event_0x0N)
{
	int type, mask;

	NEED_MSR_PMU(type);
	mask = listed_configs(_metadata);
	ASSERT_LE(0, mask);
	/* tsc is always there when the PMU is */
	EXPECT_TRUE(mask & 1);
}

TEST(tsc_file_is_config_0)
{
	char buf[64];
	int type;

	NEED_MSR_PMU(type);
	ASSERT_EQ(0, read_str_file(MSR_DIR "/events/tsc", buf, sizeof(buf)));
	EXPECT_STREQ("event=0x00", buf);
}

TEST(tsc_counts_a_busy_loop_and_is_monotonic)
{
	__u64 v1, v2, v3;
	int type, fd;

	NEED_MSR_PMU(type);
	NEED_KERNEL_COUNTING();
	fd = msr_open(type, 0, false);
	ASSERT_LE(0, fd) TH_LOG("open msr/tsc/: %s", strerror(errno));

	pt_spin_ns(SPIN_NS);
	v1 = pt_read1(fd);
	pt_spin_ns(SPIN_NS);
	v2 = pt_read1(fd);
	v3 = pt_read1(fd);
	close(fd);

	ASSERT_NE(~0ULL, v1);
	ASSERT_NE(~0ULL, v2);
	ASSERT_NE(~0ULL, v3);
	/* 20ms of a TSC of at least 1 MHz */
	EXPECT_LT(20000ULL, v1);
	EXPECT_LT(v1 + 20000ULL, v2);
	EXPECT_LE(v2, v3);
}

TEST(tsc_does_not_count_while_disabled)
{
	__u64 v0, v1, v2, v3;
	int type, fd;

	NEED_MSR_PMU(type);
	NEED_KERNEL_COUNTING();
	fd = msr_open(type, 0, true);
	ASSERT_LE(0, fd) TH_LOG("open msr/tsc/: %s", strerror(errno));

	pt_spin_ns(SPIN_NS);
	v0 = pt_read1(fd);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	pt_spin_ns(SPIN_NS);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	v1 = pt_read1(fd);
	pt_spin_ns(SPIN_NS);
	v2 = pt_read1(fd);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	pt_spin_ns(SPIN_NS);
	v3 = pt_read1(fd);
	close(fd);

	EXPECT_EQ(0ULL, v0);
	EXPECT_LT(20000ULL, v1);
	EXPECT_EQ(v1, v2);
	EXPECT_LT(v2 + 20000ULL, v3);
}

TEST(tsc_counts_cpu_wide)
{
	struct perf_event_attr attr;
	__u64 v1, v2;
	int type, fd;

	NEED_MSR_PMU(type);
	if (geteuid() != 0 && pt_paranoid() > 0)
		SKIP(return, "CPU-wide events need root or perf_event_paranoid <= 0");
	msr_attr(&attr, type, 0, false);
	fd = sys_perf_event_open(&attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open msr/tsc/ on CPU 0: %s", strerror(errno));

	v1 = pt_read1(fd);
	usleep(20000);
	v2 = pt_read1(fd);
	close(fd);

	ASSERT_NE(~0ULL, v1);
	ASSERT_NE(~0ULL, v2);
	/* the TSC runs while CPU 0 idles, too */
	EXPECT_LT(v1 + 20000ULL, v2);
}

TEST(every_listed_event_opens_and_reads)
{
	int type, mask, cfg, fd;

	NEED_MSR_PMU(type);
	NEED_KERNEL_COUNTING();
	mask = listed_configs(_metadata);
	ASSERT_LE(0, mask);
	for (cfg = 0; cfg < MSR_NR_CONFIGS; cfg++) {
		if (!(mask & (1 << cfg)))
			continue;
		fd = msr_open(type, cfg, false);
		EXPECT_LE(0, fd) TH_LOG("config %d: %s", cfg, strerror(errno));
		if (fd < 0)
			continue;
		pt_spin_ns(SPIN_NS / 10);
		EXPECT_NE(~0ULL, pt_read1(fd)) TH_LOG("config %d", cfg);
		close(fd);
	}
}

TEST(unlisted_configs_are_rejected_with_einval)
{
	struct perf_event_attr attr;
	int type, mask, cfg;

	NEED_MSR_PMU(type);
	NEED_KERNEL_COUNTING();
	mask = listed_configs(_metadata);
	ASSERT_LE(0, mask);
	for (cfg = 0; cfg < MSR_NR_CONFIGS; cfg++) {
		if (mask & (1 << cfg))
			continue;
		msr_attr(&attr, type, cfg, true);
		EXPECT_EQ(EINVAL, open_errno(&attr)) TH_LOG("config %d", cfg);
	}
}

TEST(out_of_range_config_is_rejected_with_einval)
{
	static const __u64 configs[] = { MSR_NR_CONFIGS, 0x1000, 1ULL << 32,
					  ~0ULL };
	struct perf_event_attr attr;
	unsigned int i;
	int type;

	NEED_MSR_PMU(type);
	NEED_KERNEL_COUNTING();
	for (i = 0; i < sizeof(configs) / sizeof(configs[0]); i++) {
		msr_attr(&attr, type, configs[i], true);
		EXPECT_EQ(EINVAL, open_errno(&attr))
			TH_LOG("config %#llx", (unsigned long long)configs[i]);
	}
}

TEST(sampling_is_rejected_with_einval)
{
	struct perf_event_attr attr;
	int type;

	NEED_MSR_PMU(type);
	NEED_KERNEL_COUNTING();
	msr_attr(&attr, type, 0, true);
	attr.sample_period = 1000;
	EXPECT_EQ(EINVAL, open_errno(&attr));

	msr_attr(&attr, type, 0, true);
	attr.freq = 1;
	attr.sample_freq = 1000;
	EXPECT_EQ(EINVAL, open_errno(&attr));
}

/* Needs no privilege: exclude_kernel=1 is what a user may ask for. */
TEST(exclude_kernel_is_rejected_with_einval)
{
	struct perf_event_attr attr;
	int type;

	NEED_MSR_PMU(type);
	if (geteuid() != 0 && pt_paranoid() > 2)
		SKIP(return, "perf_event_paranoid > 2 forbids perf_event_open to users");
	msr_attr(&attr, type, 0, true);
	attr.exclude_kernel = 1;
	EXPECT_EQ(EINVAL, open_errno(&attr));

	attr.exclude_hv = 1;
	EXPECT_EQ(EINVAL, open_errno(&attr));
}

TEST(exclude_user_is_rejected_with_einval)
{
	struct perf_event_attr attr;
	int type;

	NEED_MSR_PMU(type);
	NEED_KERNEL_COUNTING();
	msr_attr(&attr, type, 0, true);
	attr.exclude_user = 1;
	EXPECT_EQ(EINVAL, open_errno(&attr));
}

TEST_HARNESS_MAIN
