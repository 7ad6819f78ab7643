// SPDX-License-Identifier: GPL-2.0
/*
 * perf_event_open(2): copy-in and validation of struct perf_event_attr and
 * of the pid/cpu/group_fd/flags arguments. All events are user-only
 * software events so the file runs unprivileged at perf_event_paranoid=2.
 */
#include "perf_test.h"
#include <dirent.h>
#include <limits.h>
#include <sys/resource.h>

static union pt_attr_buf ab;

/* A disabled user-only dummy event in a zeroed oversized buffer. */
static struct perf_event_attr *fresh_attr(__u32 size)
{
	memset(&ab, 0, sizeof(ab));
	ab.attr.type = PERF_TYPE_SOFTWARE;
	ab.attr.config = PERF_COUNT_SW_DUMMY;
	ab.attr.disabled = 1;
	ab.attr.exclude_kernel = 1;
	ab.attr.exclude_hv = 1;
	ab.attr.size = size;
	return &ab.attr;
}

static int open_self(struct perf_event_attr *attr)
{
	return sys_perf_event_open(attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Expect open to fail with errno 'err'; close the fd if it unexpectedly opened. */
#define EXPECT_OPEN_FAILS(_metadata, fd_expr, err) do {			\
	int __fd = (fd_expr);						\
	int __e = errno;						\
	EXPECT_EQ(-1, __fd);						\
	if (__fd >= 0)							\
		close(__fd);						\
	else								\
		EXPECT_EQ(err, __e);					\
} while (0)

TEST(every_published_attr_size_is_accepted)
{
	static const __u32 sizes[] = { 64, 72, 80, 96, 104, 112, 120, 128, 136 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		int fd = open_self(fresh_attr(sizes[i]));

		EXPECT_LE(0, fd) TH_LOG("size %u: %s", sizes[i], strerror(errno));
		/* A successful open does not rewrite attr.size. */
		EXPECT_EQ(sizes[i], ab.attr.size);
		if (fd >= 0)
			close(fd);
	}
}

TEST(attr_size_zero_is_accepted_as_ver0)
{
	int fd;

	/*
	 * Size 0 means PERF_ATTR_SIZE_VER0 (64): a non-zero __reserved_2 at
	 * offset 110 is outside the first 64 bytes and must be ignored,
	 * while the same attr with size 136 is rejected.
	 */
	fresh_attr(0);
	ab.bytes[PT_OFF_RESERVED_2] = 1;
	fd = open_self(&ab.attr);
	ASSERT_LE(0, fd) TH_LOG("size 0: %s", strerror(errno));
	close(fd);
	EXPECT_EQ(0, ab.attr.size);

	fresh_attr(PT_ATTR_SIZE_612);
	ab.bytes[PT_OFF_RESERVED_2] = 1;
	EXPECT_OPEN_FAILS(_metadata, open_self(&ab.attr), EINVAL);
}

TEST(bytes_beyond_attr_size_are_not_read)
{
	int fd;

	/* size 104 (VER4) ends before __reserved_2 and __reserved_3. */
	fresh_attr(PERF_ATTR_SIZE_VER4);
	ab.bytes[PT_OFF_RESERVED_2] = 0xff;
	ab.bytes[PT_OFF_RESERVED_3 + 3] = 0xff;
	memset(&ab.bytes[PT_ATTR_SIZE_612], 0xff, 64);
	fd = open_self(&ab.attr);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	close(fd);
}

TEST(unpublished_larger_size_with_zero_tail_is_accepted)
{
	static const __u32 sizes[] = { 144, 200, 256, 1024 };
	unsigned int i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		fd = open_self(fresh_attr(sizes[i]));
		EXPECT_LE(0, fd) TH_LOG("size %u: %s", sizes[i], strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	/* Exactly one page is still allowed. */
	fd = open_self(fresh_attr(pt_page_size()));
	EXPECT_LE(0, fd) TH_LOG("size PAGE_SIZE: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
}

TEST(attr_size_need_not_be_a_multiple_of_8)
{
	static const __u32 sizes[] = { 65, 68, 100, 132 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		int fd = open_self(fresh_attr(sizes[i]));

		EXPECT_LE(0, fd) TH_LOG("size %u: %s", sizes[i], strerror(errno));
		if (fd >= 0)
			close(fd);
	}
}

TEST(attr_size_below_ver0_fails_e2big_and_reports_kernel_size)
{
	static const __u32 sizes[] = { 1, 8, 32, 63 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		fresh_attr(sizes[i]);
		EXPECT_OPEN_FAILS(_metadata, open_self(&ab.attr), E2BIG);
		EXPECT_EQ(PT_ATTR_SIZE_612, ab.attr.size)
			TH_LOG("size %u", sizes[i]);
	}
}

TEST(nonzero_tail_beyond_kernel_size_fails_e2big_and_reports_kernel_size)
{
	/* One byte set past the 136 bytes the kernel knows about. */
	fresh_attr(144);
	ab.bytes[PT_ATTR_SIZE_612 + 7] = 1;
	EXPECT_OPEN_FAILS(_metadata, open_self(&ab.attr), E2BIG);
	EXPECT_EQ(PT_ATTR_SIZE_612, ab.attr.size);

	/* The very last byte of a one-page attr. */
	fresh_attr(pt_page_size());
	ab.bytes[pt_page_size() - 1] = 0x80;
	EXPECT_OPEN_FAILS(_metadata, open_self(&ab.attr), E2BIG);
	EXPECT_EQ(PT_ATTR_SIZE_612, ab.attr.size);
}

TEST(attr_size_above_page_size_fails_e2big_and_reports_kernel_size)
{
	fresh_attr(pt_page_size() + 1);
	EXPECT_OPEN_FAILS(_metadata, open_self(&ab.attr), E2BIG);
	EXPECT_EQ(PT_ATTR_SIZE_612, ab.attr.size);

	fresh_attr(pt_page_size() + 8);
	EXPECT_OPEN_FAILS(_metadata, open_self(&ab.attr), E2BIG);
	EXPECT_EQ(PT_ATTR_SIZE_612, ab.attr.size);

	fresh_attr(2 * pt_page_size());
	EXPECT_OPEN_FAILS(_metadata, open_self(&ab.attr), E2BIG);
	EXPECT_EQ(PT_ATTR_SIZE_612, ab.attr.size);
}

TEST(bad_attr_pointer_fails_efault)
{
	EXPECT_OPEN_FAILS(_metadata, sys_perf_event_open(NULL, 0, -1, -1, 0), EFAULT);
	EXPECT_OPEN_FAILS(_metadata, sys_perf_event_open((void *)8, 0, -1, -1, 0), EFAULT);
}

TEST(reserved_flag_bits_fail_einval)
{
	/* __reserved_1 is bits 38..63 of the flag word at offset 40. */
	static const int bits[] = { 38, 45, 63 };
	unsigned int i;
	__u64 flags;

	for (i = 0; i < ARRAY_SIZE(bits); i++) {
		fresh_attr(PT_ATTR_SIZE_612);
		memcpy(&flags, &ab.bytes[PT_OFF_FLAGS], 8);
		flags |= 1ULL << bits[i];
		memcpy(&ab.bytes[PT_OFF_FLAGS], &flags, 8);
		EXPECT_OPEN_FAILS(_metadata, open_self(&ab.attr), EINVAL);
	}
}

TEST(reserved_2_nonzero_fails_einval)
{
	fresh_attr(PERF_ATTR_SIZE_VER5);
	ab.bytes[PT_OFF_RESERVED_2 + 1] = 0x80;
	EXPECT_OPEN_FAILS(_metadata, open_self(&ab.attr), EINVAL);
}

TEST(reserved_3_top_bit_fails_einval)
{
	/* Bit 31 of the u32 at offset 116 is reserved in every version. */
	fresh_attr(PERF_ATTR_SIZE_VER6);
	ab.bytes[PT_OFF_RESERVED_3 + 3] = 0x80;
	EXPECT_OPEN_FAILS(_metadata, open_self(&ab.attr), EINVAL);
}

/* A PMU type number above every type listed in sysfs (and >= 1000). */
static __u32 unused_pmu_type(void)
{
	const char *base = "/sys/bus/event_source/devices";
	__u32 type = 1000;
	struct dirent *de;
	DIR *dir = opendir(base);

	while (dir && (de = readdir(dir))) {
		char path[512];
		long long t;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/type", base, de->d_name);
		if (!pt_read_int_file(path, &t) && t >= type)
			type = t + 1;
	}
	if (dir)
		closedir(dir);
	return type;
}

TEST(unknown_event_type_fails_enoent)
{
	struct perf_event_attr *attr = fresh_attr(PT_ATTR_SIZE_612);

	attr->type = unused_pmu_type();
	EXPECT_OPEN_FAILS(_metadata, open_self(attr), ENOENT);
	attr->type = 0x7fffffff;
	EXPECT_OPEN_FAILS(_metadata, open_self(attr), ENOENT);
}

TEST(every_software_config_below_max_opens)
{
	__u64 config;

	for (config = 0; config < PT_SW_MAX_612; config++) {
		struct perf_event_attr *attr = fresh_attr(PT_ATTR_SIZE_612);
		int fd;

		attr->config = config;
		fd = open_self(attr);
		EXPECT_LE(0, fd) TH_LOG("config %llu: %s",
					(unsigned long long)config, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
}

TEST(software_config_out_of_range_fails_enoent)
{
	static const __u64 configs[] = { PT_SW_MAX_612, 13, 1ULL << 32, ~0ULL };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(configs); i++) {
		struct perf_event_attr *attr = fresh_attr(PT_ATTR_SIZE_612);

		attr->config = configs[i];
		EXPECT_OPEN_FAILS(_metadata, open_self(attr), ENOENT);
	}
}

TEST(unknown_open_flags_fail_einval)
{
	static const unsigned long flags[] = { 1UL << 4, 1UL << 5, 1UL << 31, 1UL << 40 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(flags); i++)
		EXPECT_OPEN_FAILS(_metadata,
				  sys_perf_event_open(fresh_attr(PT_ATTR_SIZE_612), 0, -1, -1, flags[i]),
				  EINVAL);
}

TEST(pid_minus_one_with_cpu_minus_one_fails_einval)
{
	EXPECT_OPEN_FAILS(_metadata,
			  sys_perf_event_open(fresh_attr(PT_ATTR_SIZE_612), -1, -1, -1, 0),
			  EINVAL);
}

TEST(cpu_out_of_range_fails_einval)
{
	static const int cpus[] = { -2, 4096, INT_MAX };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cpus); i++)
		EXPECT_OPEN_FAILS(_metadata,
				  sys_perf_event_open(fresh_attr(PT_ATTR_SIZE_612), 0, cpus[i], -1, 0),
				  EINVAL);
}

TEST(task_event_on_one_online_cpu_opens)
{
	int cpu = pt_nth_cpu(0);
	int fd;

	ASSERT_LE(0, cpu);
	fd = sys_perf_event_open(fresh_attr(PT_ATTR_SIZE_612), 0, cpu, -1, 0);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	close(fd);
}

TEST(nonexistent_pid_fails_esrch)
{
	long long pid_max = 32768;

	ASSERT_EQ(0, pt_read_int_file("/proc/sys/kernel/pid_max", &pid_max));
	/* pids are strictly below pid_max */
	EXPECT_OPEN_FAILS(_metadata,
			  sys_perf_event_open(fresh_attr(PT_ATTR_SIZE_612), (pid_t)pid_max, -1, -1, 0),
			  ESRCH);
	EXPECT_OPEN_FAILS(_metadata,
			  sys_perf_event_open(fresh_attr(PT_ATTR_SIZE_612), INT_MAX, -1, -1, 0),
			  ESRCH);
}

TEST(reaped_child_pid_fails_esrch)
{
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(0);
	ASSERT_EQ(0, pt_wait_exit(pid));
	EXPECT_OPEN_FAILS(_metadata,
			  sys_perf_event_open(fresh_attr(PT_ATTR_SIZE_612), pid, -1, -1, 0),
			  ESRCH);
}

TEST(group_fd_that_is_not_a_perf_event_fails_ebadf)
{
	int pipefd[2];
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);

	ASSERT_LE(0, devnull);
	ASSERT_EQ(0, pipe(pipefd));
	EXPECT_OPEN_FAILS(_metadata,
			  sys_perf_event_open(fresh_attr(PT_ATTR_SIZE_612), 0, -1, devnull, 0),
			  EBADF);
	EXPECT_OPEN_FAILS(_metadata,
			  sys_perf_event_open(fresh_attr(PT_ATTR_SIZE_612), 0, -1, pipefd[0], 0),
			  EBADF);
	close(devnull);
	close(pipefd[0]);
	close(pipefd[1]);
}

TEST(group_fd_closed_or_negative_fails_ebadf)
{
	int fd = open("/dev/null", O_RDONLY);

	ASSERT_LE(0, fd);
	close(fd);
	EXPECT_OPEN_FAILS(_metadata,
			  sys_perf_event_open(fresh_attr(PT_ATTR_SIZE_612), 0, -1, fd, 0),
			  EBADF);
	EXPECT_OPEN_FAILS(_metadata,
			  sys_perf_event_open(fresh_attr(PT_ATTR_SIZE_612), 0, -1, -2, 0),
			  EBADF);
}

TEST(unknown_read_format_bits_fail_einval)
{
	static const __u64 bad[] = { 1ULL << 5, 1ULL << 6, 1ULL << 63 };
	unsigned int i;
	__u64 ok;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct perf_event_attr *attr = fresh_attr(PT_ATTR_SIZE_612);

		attr->read_format = bad[i];
		EXPECT_OPEN_FAILS(_metadata, open_self(attr), EINVAL);
	}
	/* All five defined bits together are fine. */
	ok = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
	     PERF_FORMAT_ID | PERF_FORMAT_GROUP | PERF_FORMAT_LOST;
	fresh_attr(PT_ATTR_SIZE_612)->read_format = ok;
	i = open_self(&ab.attr);
	EXPECT_LE(0, (int)i);
	if ((int)i >= 0)
		close(i);
}

TEST(unknown_sample_type_bits_fail_einval)
{
	static const __u64 bad[] = { 1ULL << 25, 1ULL << 40, 1ULL << 63 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct perf_event_attr *attr = fresh_attr(PT_ATTR_SIZE_612);

		attr->sample_type = bad[i];
		EXPECT_OPEN_FAILS(_metadata, open_self(attr), EINVAL);
	}
}

TEST(pinned_or_exclusive_group_member_fails_einval)
{
	struct perf_event_attr *attr;
	int leader, fd;

	attr = fresh_attr(PT_ATTR_SIZE_612);
	attr->pinned = 1;
	attr->exclusive = 1;
	leader = open_self(attr);
	ASSERT_LE(0, leader) TH_LOG("pinned+exclusive leader: %s", strerror(errno));

	attr = fresh_attr(PT_ATTR_SIZE_612);
	attr->pinned = 1;
	EXPECT_OPEN_FAILS(_metadata, sys_perf_event_open(attr, 0, -1, leader, 0), EINVAL);

	attr = fresh_attr(PT_ATTR_SIZE_612);
	attr->exclusive = 1;
	EXPECT_OPEN_FAILS(_metadata, sys_perf_event_open(attr, 0, -1, leader, 0), EINVAL);

	/* A plain member is fine. */
	fd = sys_perf_event_open(fresh_attr(PT_ATTR_SIZE_612), 0, -1, leader, 0);
	EXPECT_LE(0, fd);
	if (fd >= 0)
		close(fd);
	close(leader);
}

TEST(inherit_with_format_group_is_accepted_for_counting)
{
	struct perf_event_attr *attr = fresh_attr(PT_ATTR_SIZE_612);
	int fd;

	attr->inherit = 1;
	attr->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	fd = open_self(attr);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	close(fd);
}

TEST(inherit_thread_without_inherit_fails_einval)
{
	struct perf_event_attr *attr = fresh_attr(PT_ATTR_SIZE_612);
	int fd;

	attr->inherit_thread = 1;
	EXPECT_OPEN_FAILS(_metadata, open_self(attr), EINVAL);

	attr = fresh_attr(PT_ATTR_SIZE_612);
	attr->inherit = 1;
	attr->inherit_thread = 1;
	fd = open_self(attr);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	close(fd);
}

TEST(sigtrap_without_remove_on_exec_fails_einval)
{
	struct perf_event_attr *attr = fresh_attr(PT_ATTR_SIZE_612);

	attr->sigtrap = 1;
	EXPECT_OPEN_FAILS(_metadata, open_self(attr), EINVAL);
}

TEST(sample_freq_above_max_sample_rate_fails_einval)
{
	struct perf_event_attr *attr = fresh_attr(PT_ATTR_SIZE_612);
	long long rate;

	ASSERT_EQ(0, pt_read_int_file("/proc/sys/kernel/perf_event_max_sample_rate", &rate));
	attr->config = PERF_COUNT_SW_CPU_CLOCK;
	attr->freq = 1;
	attr->sample_freq = rate + 1;
	EXPECT_OPEN_FAILS(_metadata, open_self(attr), EINVAL);
}

TEST(sample_period_with_top_bit_set_fails_einval)
{
	struct perf_event_attr *attr = fresh_attr(PT_ATTR_SIZE_612);

	attr->sample_period = 1ULL << 63;
	EXPECT_OPEN_FAILS(_metadata, open_self(attr), EINVAL);
}

TEST(fd_cloexec_flag_sets_close_on_exec)
{
	struct perf_event_attr *attr = fresh_attr(PT_ATTR_SIZE_612);
	int fd;

	fd = sys_perf_event_open(attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(FD_CLOEXEC, fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);

	fd = sys_perf_event_open(attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
}

TEST(event_fd_is_an_anon_inode_named_perf_event)
{
	char path[64], link[128];
	ssize_t n;
	int fd = open_self(fresh_attr(PT_ATTR_SIZE_612));

	ASSERT_LE(0, fd);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	ASSERT_LT(0, n);
	link[n] = 0;
	EXPECT_STREQ("anon_inode:[perf_event]", link);
	/* O_RDWR, as documented for perf event fds. */
	EXPECT_EQ(O_RDWR, fcntl(fd, F_GETFL) & O_ACCMODE);
	close(fd);
}

TEST(attr_crossing_into_unmapped_memory_fails_efault)
{
	long ps = pt_page_size();
	char *map = mmap(NULL, 2 * ps, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct perf_event_attr *attr;

	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, mprotect(map + ps, ps, PROT_NONE));
	/* only the first 64 of the 136 bytes are readable */
	attr = (struct perf_event_attr *)(map + ps - 64);
	memset(attr, 0, 64);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_DUMMY;
	attr->size = PT_ATTR_SIZE_612;
	attr->disabled = 1;
	attr->exclude_kernel = 1;
	EXPECT_OPEN_FAILS(_metadata, open_self(attr), EFAULT);
	/* the same bytes with size 64 are fine */
	attr->size = PERF_ATTR_SIZE_VER0;
	{
		int fd = open_self(attr);

		EXPECT_LE(0, fd) TH_LOG("%s", strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	munmap(map, 2 * ps);
}

TEST(own_pid_is_equivalent_to_pid_zero)
{
	struct perf_event_attr attr;
	int fd;

	pt_attr_sw(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	fd = sys_perf_event_open(&attr, getpid(), -1, -1, 0);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, pt_touch_window(fd, 8, 0));
	EXPECT_EQ(8, pt_read1(fd));
	close(fd);
}

TEST(open_beyond_rlimit_nofile_fails_emfile)
{
	struct rlimit rl;
	int fds[16], n = 0, fd, i;

	/* allow only a few more descriptors than are open now */
	fd = dup(0);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &rl));
	rl.rlim_cur = fd + 4;
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	for (;;) {
		fd = open_self(fresh_attr(PT_ATTR_SIZE_612));
		if (fd < 0)
			break;
		ASSERT_GT(16, n);
		fds[n++] = fd;
	}
	EXPECT_EQ(EMFILE, errno);
	EXPECT_LE(1, n);
	for (i = 0; i < n; i++)
		close(fds[i]);
}

TEST(hardware_event_without_pmu_fails_enoent)
{
	struct perf_event_attr *attr = fresh_attr(PT_ATTR_SIZE_612);
	int fd;

	attr->type = PERF_TYPE_HARDWARE;
	attr->config = PERF_COUNT_HW_CPU_CYCLES;
	fd = open_self(attr);
	if (fd >= 0) {
		close(fd);
		SKIP(return, "a hardware PMU is present; cannot test the no-PMU case");
	}
	EXPECT_EQ(ENOENT, errno);

	attr = fresh_attr(PT_ATTR_SIZE_612);
	attr->type = PERF_TYPE_HW_CACHE;
	attr->config = PERF_COUNT_HW_CACHE_L1D;
	EXPECT_OPEN_FAILS(_metadata, open_self(attr), ENOENT);

	attr = fresh_attr(PT_ATTR_SIZE_612);
	attr->type = PERF_TYPE_RAW;
	attr->config = 0x3c;
	EXPECT_OPEN_FAILS(_metadata, open_self(attr), ENOENT);
}

TEST_HARNESS_MAIN
