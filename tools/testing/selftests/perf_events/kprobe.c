// SPDX-License-Identifier: GPL-2.0
/*
 * The kprobe PMU: perf_event_open() makes a kprobe (or, with the
 * format's retprobe bit, a kretprobe) at kprobe_func + probe_offset or
 * at kprobe_addr, which goes with the event. Counted per task, exactly:
 * the probe is on getppid's system call entry, which nothing else in
 * this task reaches. Run as root and as a user (who gets EACCES).
 */
#include "perf_test.h"

#define KPROBE_PMU	"/sys/bus/event_source/devices/kprobe"
/* the syscall's entry wrapper: its name is the arch's */
#if defined(__aarch64__)
#define FUNC		"__arm64_sys_getppid"
#else
#define FUNC		"__x64_sys_getppid"
#endif

static int kprobe_type(void)
{
	long long type;

	if (pt_read_int_file(KPROBE_PMU "/type", &type))
		return -1;
	return (int)type;
}

static void kp_attr(struct perf_event_attr *attr, int type, __u64 config,
		    const char *func, __u64 addr_or_offset)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config;
	attr->kprobe_func = (__u64)(unsigned long)func;
	attr->probe_offset = addr_or_offset;	/* kprobe_addr when !func */
	attr->disabled = 1;
}

/* @n getppid system calls between enable and disable; the count */
static long long count_getppid(int fd, int n)
{
	int i;

	if (pt_ioctl(fd, PERF_EVENT_IOC_ENABLE))
		return -1;
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	if (pt_ioctl(fd, PERF_EVENT_IOC_DISABLE))
		return -1;
	return pt_read1(fd);
}

/* FUNC's address from /proc/kallsyms (root sees it), or 0 */
static unsigned long long kallsyms_addr(const char *name)
{
	unsigned long long addr = 0, a;
	char line[256], sym[128], t;
	FILE *fp = fopen("/proc/kallsyms", "r");

	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%llx %c %127s", &a, &t, sym) == 3 &&
		    !strcmp(sym, name)) {
			addr = a;
			break;
		}
	}
	fclose(fp);
	return addr;
}

FIXTURE(kp)
{
	int type;
};

FIXTURE_SETUP(kp)
{
	self->type = kprobe_type();
	if (self->type < 0)
		SKIP(return, "no kprobe PMU (CONFIG_KPROBE_EVENTS)");
}

FIXTURE_TEARDOWN(kp)
{
}

TEST_F(kp, format_retprobe_is_config_bit_0)
{
	char buf[64];

	ASSERT_EQ(0, pt_read_file(KPROBE_PMU "/format/retprobe", buf,
				  sizeof(buf)));
	EXPECT_STREQ("config:0\n", buf);
}

TEST_F(kp, kprobe_counts_each_entry)
{
	struct perf_event_attr attr;
	int fd, fd2;

	if (geteuid())
		SKIP(return, "root only");
	kp_attr(&attr, self->type, 0, FUNC, 0);
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd) TH_LOG("kprobe on " FUNC ": %s", strerror(errno));
	/* a second probe on the same function counts on its own */
	fd2 = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(5, count_getppid(fd, 5));
	EXPECT_EQ(3, count_getppid(fd2, 3));
	EXPECT_EQ(5, pt_read1(fd));
	close(fd);
	close(fd2);
	/* closed: the probes are gone, and a new one starts from 0 */
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(2, count_getppid(fd, 2));
	close(fd);
}

TEST_F(kp, kretprobe_counts_each_return)
{
	struct perf_event_attr attr;
	int fd;

	if (geteuid())
		SKIP(return, "root only");
	kp_attr(&attr, self->type, 1, FUNC, 0);
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd) TH_LOG("kretprobe: %s", strerror(errno));
	EXPECT_EQ(4, count_getppid(fd, 4));
	close(fd);
}

TEST_F(kp, kprobe_at_an_address)
{
	unsigned long long addr = kallsyms_addr(FUNC);
	struct perf_event_attr attr;
	int fd;

	if (geteuid())
		SKIP(return, "root only");
	ASSERT_NE(0, addr) TH_LOG(FUNC " not in /proc/kallsyms");
	kp_attr(&attr, self->type, 0, NULL, addr);
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd) TH_LOG("kprobe at %llx: %s", addr, strerror(errno));
	EXPECT_EQ(3, count_getppid(fd, 3));
	close(fd);
}

/*
 * Every hit sampled (period 1): the sample is ours, and its RAW record
 * is the kprobe's trace entry, whose first field after the 8 bytes of
 * common fields is the probe's address: FUNC, or just past its ENDBR.
 */
TEST_F(kp, samples_carry_the_probe_address)
{
	unsigned long long addr = kallsyms_addr(FUNC), ip;
	struct perf_event_attr attr;
	struct perf_event_header *h;
	struct pt_recs r;
	struct pt_rb rb;
	int fd;

	if (geteuid())
		SKIP(return, "root only");
	ASSERT_NE(0, addr);
	kp_attr(&attr, self->type, 0, FUNC, 0);
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_RAW;
	attr.wakeup_events = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd) TH_LOG("open: %s", strerror(errno));
	ASSERT_EQ(0, pt_rb_map(&rb, fd, 8));
	EXPECT_EQ(3, count_getppid(fd, 3));
	ASSERT_EQ(0, pt_rb_drain(&rb, &r));
	EXPECT_EQ(0, r.bad);
	EXPECT_EQ(3, pt_recs_count(&r, PERF_RECORD_SAMPLE));
	pt_recs_for_each(h, &r, PERF_RECORD_SAMPLE) {
		struct pt_sample s;

		ASSERT_EQ(h->size - 8, pt_sample_parse(&attr, h, &s));
		EXPECT_EQ(pt_gettid(), s.tid);
		ASSERT_LE(16, (int)s.raw_size);
		memcpy(&ip, (const char *)s.raw + 8, sizeof(ip));
		EXPECT_TRUE(ip == addr || ip == addr + 4)
			TH_LOG("probe ip %llx, %s at %llx", ip, FUNC, addr);
	}
	pt_recs_free(&r);
	pt_rb_unmap(&rb);
	close(fd);
}

TEST_F(kp, bad_probes_are_refused)
{
	struct perf_event_attr attr;

	if (geteuid())
		SKIP(return, "root only");
	/* no such function */
	kp_attr(&attr, self->type, 0, "no_such_function_in_this_kernel", 0);
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(ENOENT, errno);
	/* neither a function nor an address */
	kp_attr(&attr, self->type, 0, NULL, 0);
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EINVAL, errno);
	/* the name at an address that is not mapped */
	kp_attr(&attr, self->type, 0, NULL, 0);
	attr.kprobe_func = 8;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EFAULT, errno);
}

/*
 * The parent and a child it forks, both on @cpu, make @mine and @theirs
 * getppid calls while @fd is enabled; @fd's count then. @set_filter
 * gets the child's pid before the calls.
 */
static long long count_two_pids(int fd, int cpu, int mine, int theirs,
				int (*set_filter)(int fd, pid_t child))
{
	int go[2], i;
	pid_t pid;
	char c;

	if (pt_pin_cpu(0, cpu) || pipe(go))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		for (i = 0; i < theirs; i++)
			syscall(SYS_getppid);
		_exit(0);
	}
	close(go[0]);
	if (set_filter(fd, pid) || pt_ioctl(fd, PERF_EVENT_IOC_ENABLE)) {
		kill(pid, SIGKILL);
		pt_wait_exit(pid);
		return -1;
	}
	for (i = 0; i < mine; i++)
		syscall(SYS_getppid);
	if (write(go[1], "g", 1) != 1 || pt_wait_exit(pid))
		return -1;
	close(go[1]);
	if (pt_ioctl(fd, PERF_EVENT_IOC_DISABLE))
		return -1;
	return pt_read1(fd);
}

static int filter_pid(int fd, pid_t pid)
{
	char f[64];

	snprintf(f, sizeof(f), "common_pid == %d", (int)pid);
	return ioctl(fd, PERF_EVENT_IOC_SET_FILTER, f);
}

/*
 * PERF_EVENT_IOC_SET_FILTER takes an ftrace filter on a kprobe PMU event,
 * as on a tracepoint (perf record -e probe:x --filter): here on the
 * common fields every trace event has. A CPU-wide event on one CPU with
 * "common_pid == child" counts only the child's hits there, not its
 * parent's; the same on a kretprobe.
 */
TEST_F(kp, set_filter_on_common_pid)
{
	struct perf_event_attr attr;
	int cpu = pt_nth_cpu(0), ret, fd;

	if (geteuid())
		SKIP(return, "root only");
	ASSERT_LE(0, cpu);
	for (ret = 0; ret <= 1; ret++) {
		kp_attr(&attr, self->type, ret, FUNC, 0);
		fd = sys_perf_event_open(&attr, -1, cpu, -1, 0);
		ASSERT_LE(0, fd) TH_LOG("open: %s", strerror(errno));
		EXPECT_EQ(3, count_two_pids(fd, cpu, 5, 3, filter_pid))
			TH_LOG("%s: the child's 3 calls, not the parent's 5",
			       ret ? "kretprobe" : "kprobe");
		close(fd);
	}
}

/* a filter for no pid of the test's: no hit counts (per-task event) */
TEST_F(kp, set_filter_excludes_other_pids)
{
	struct perf_event_attr attr;
	char f[64];
	int fd;

	if (geteuid())
		SKIP(return, "root only");
	kp_attr(&attr, self->type, 0, FUNC, 0);
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd) TH_LOG("open: %s", strerror(errno));
	snprintf(f, sizeof(f), "common_pid != %d", (int)getpid());
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_SET_FILTER, f))
		TH_LOG("SET_FILTER: %s", strerror(errno));
	EXPECT_EQ(0, count_getppid(fd, 4));
	close(fd);
}

/*
 * Filter text the ftrace parser refuses is EINVAL, and a second filter on
 * an event that has one EEXIST, as on a tracepoint.
 */
TEST_F(kp, set_filter_errors)
{
	struct perf_event_attr attr;
	int fd;

	if (geteuid())
		SKIP(return, "root only");
	kp_attr(&attr, self->type, 0, FUNC, 0);
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd) TH_LOG("open: %s", strerror(errno));
	EXPECT_EQ(-1, ioctl(fd, PERF_EVENT_IOC_SET_FILTER, "no_such_field == 1"));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(fd, PERF_EVENT_IOC_SET_FILTER, "common_pid =="));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, ioctl(fd, PERF_EVENT_IOC_SET_FILTER, "common_pid > 0"))
		TH_LOG("SET_FILTER: %s", strerror(errno));
	EXPECT_EQ(-1, ioctl(fd, PERF_EVENT_IOC_SET_FILTER, "common_pid > 1"));
	EXPECT_EQ(EEXIST, errno);
	EXPECT_EQ(2, count_getppid(fd, 2));
	close(fd);
}

TEST_F(kp, unprivileged_gets_eacces)
{
	struct perf_event_attr attr;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (geteuid() == 0 && pt_drop_privs(1000, 1000))
			_exit(2);
		kp_attr(&attr, self->type, 0, FUNC, 0);
		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
		if (sys_perf_event_open(&attr, 0, -1, -1, 0) >= 0)
			_exit(3);
		_exit(errno == EACCES ? 0 : 4);
	}
	EXPECT_EQ(0, pt_wait_exit(pid));
}

TEST_HARNESS_MAIN
