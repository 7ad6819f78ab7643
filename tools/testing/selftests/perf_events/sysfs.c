// SPDX-License-Identifier: GPL-2.0
/*
 * The event_source bus in sysfs: every registered PMU appears under
 * /sys/bus/event_source/devices/<name> with a unique numeric `type` (the
 * attr.type to pass to perf_event_open) and a perf_event_mux_interval_ms
 * attribute.
 */
#include "perf_test.h"
#include <dirent.h>
#include <sys/stat.h>

#define BUS "/sys/bus/event_source/devices"
#define SW_MUX BUS "/software/perf_event_mux_interval_ms"

static int pmu_attr(const char *pmu, const char *attr, long long *v)
{
	char path[512];

	snprintf(path, sizeof(path), BUS "/%s/%s", pmu, attr);
	return pt_read_int_file(path, v);
}

TEST(software_pmu_type_file_reads_exactly_1_newline)
{
	char buf[16] = { 0 };
	int fd = open(BUS "/software/type", O_RDONLY);

	ASSERT_LE(0, fd);
	EXPECT_EQ(2, read(fd, buf, sizeof(buf)));
	EXPECT_STREQ("1\n", buf);
	close(fd);
}

TEST(software_pmu_is_a_link_to_devices_software)
{
	char buf[256];
	ssize_t n = readlink(BUS "/software", buf, sizeof(buf) - 1);

	ASSERT_LT(0, n);
	buf[n] = 0;
	EXPECT_STREQ("../../../devices/software", buf);
}

TEST(every_pmu_has_a_readable_unique_type)
{
	long long types[256];
	int n = 0, i;
	struct dirent *de;
	DIR *dir = opendir(BUS);

	ASSERT_NE(NULL, dir);
	while ((de = readdir(dir))) {
		long long t;

		if (de->d_name[0] == '.')
			continue;
		ASSERT_EQ(0, pmu_attr(de->d_name, "type", &t)) TH_LOG("%s", de->d_name);
		EXPECT_LE(0, t) TH_LOG("%s", de->d_name);
		for (i = 0; i < n; i++) {
			EXPECT_NE(types[i], t) TH_LOG("%s duplicates type %lld", de->d_name, t);
		}
		ASSERT_GT(256, n);
		types[n++] = t;
	}
	closedir(dir);
	EXPECT_LE(1, n);
}

TEST(fixed_pmu_types_match_the_uapi_enum)
{
	static const struct { const char *name; long long type; } fixed[] = {
		{ "software", PERF_TYPE_SOFTWARE },
		{ "tracepoint", PERF_TYPE_TRACEPOINT },
		{ "breakpoint", PERF_TYPE_BREAKPOINT },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fixed); i++) {
		long long t;

		if (pmu_attr(fixed[i].name, "type", &t)) {
			/* only "software" is mandatory */
			EXPECT_NE(0, strcmp(fixed[i].name, "software"));
			continue;
		}
		EXPECT_EQ(fixed[i].type, t) TH_LOG("%s", fixed[i].name);
	}
}

TEST(every_pmu_has_a_positive_mux_interval)
{
	struct dirent *de;
	DIR *dir = opendir(BUS);

	ASSERT_NE(NULL, dir);
	while ((de = readdir(dir))) {
		long long ms;

		if (de->d_name[0] == '.')
			continue;
		ASSERT_EQ(0, pmu_attr(de->d_name, "perf_event_mux_interval_ms", &ms))
			TH_LOG("%s", de->d_name);
		EXPECT_LT(0, ms) TH_LOG("%s", de->d_name);
	}
	closedir(dir);
}

TEST(pmu_sysfs_files_have_fixed_modes)
{
	struct stat st;

	ASSERT_EQ(0, stat(BUS "/software/type", &st));
	EXPECT_EQ(0444, st.st_mode & 07777);
	ASSERT_EQ(0, stat(SW_MUX, &st));
	EXPECT_EQ(0644, st.st_mode & 07777);
}

TEST(open_with_the_type_read_from_sysfs_counts_page_faults)
{
	struct perf_event_attr attr;
	long long type;
	int fd;

	ASSERT_EQ(0, pmu_attr("software", "type", &type));
	pt_attr_sw(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	attr.type = type;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_touch_window(fd, 8, 0));
	EXPECT_EQ(8, pt_read1(fd));
	close(fd);
}

TEST(unprivileged_mux_interval_write_fails_eacces)
{
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (geteuid() == 0 && pt_drop_privs(1000, 1000))
			_exit(255);
		_exit(pt_write_file(SW_MUX, "10\n") == -EACCES ? 0 : 1);
	}
	EXPECT_EQ(0, pt_wait_exit(pid));
}

FIXTURE(mux) {
	long long saved;
};

FIXTURE_SETUP(mux)
{
	if (geteuid() != 0)
		SKIP(return, "needs root to write perf_event_mux_interval_ms");
	ASSERT_EQ(0, pt_read_int_file(SW_MUX, &self->saved));
}

FIXTURE_TEARDOWN_PARENT(mux)
{
	if (geteuid() == 0 && self->saved > 0)
		pt_write_int_file(SW_MUX, self->saved);
}

TEST_F(mux, mux_interval_value_round_trips)
{
	long long v;

	ASSERT_EQ(0, pt_write_int_file(SW_MUX, 10));
	ASSERT_EQ(0, pt_read_int_file(SW_MUX, &v));
	EXPECT_EQ(10, v);
	ASSERT_EQ(0, pt_write_int_file(SW_MUX, 1));
	ASSERT_EQ(0, pt_read_int_file(SW_MUX, &v));
	EXPECT_EQ(1, v);
}

TEST_F(mux, mux_interval_below_1_fails_einval)
{
	long long v;

	ASSERT_EQ(0, pt_write_int_file(SW_MUX, 7));
	EXPECT_EQ(-EINVAL, pt_write_int_file(SW_MUX, 0));
	EXPECT_EQ(-EINVAL, pt_write_int_file(SW_MUX, -1));
	EXPECT_EQ(-EINVAL, pt_write_file(SW_MUX, "abc\n"));
	ASSERT_EQ(0, pt_read_int_file(SW_MUX, &v));
	EXPECT_EQ(7, v);
}

TEST_F(mux, mux_interval_above_int_max_fails_erange)
{
	EXPECT_EQ(-ERANGE, pt_write_file(SW_MUX, "2147483648\n"));
}

TEST_HARNESS_MAIN
