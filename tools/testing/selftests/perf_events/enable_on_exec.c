// SPDX-License-Identifier: GPL-2.0
/*
 * attr.enable_on_exec: an event opened disabled on a task is switched on
 * by that task's next execve(). The child execs this same binary
 * (/proc/self/exe --exec-child <in> <out>), which then runs a small,
 * pipe-synchronised script so the parent can sample the counter at known
 * points:
 *
 *   child (after exec): warm up; say 'r'; wait
 *   parent:             read baseline B
 *   child:              touch N fresh pages; say 'd'; wait
 *   parent:             read C; C - B == N
 */
#include "perf_test.h"

#define NPAGES	64

struct child {
	pid_t pid;
	int to_child;	/* parent writes */
	int from_child;	/* parent reads */
};

static int exec_child_main(int in, int out)
{
	char c = 0;

	/* warm up the code path below so the second pass is exact */
	if (pt_fault_pages(1) || write(out, "r", 1) != 1 || read(in, &c, 1) != 1)
		return 1;
	if (pt_fault_pages(NPAGES) || write(out, "d", 1) != 1 || read(in, &c, 1) != 1)
		return 1;
	return 0;
}

/* exec'd once: say 'e', wait, exec again into the script */
static int exec_once_main(char *in, char *out)
{
	char c = 0;

	if (write(atoi(out), "e", 1) != 1 || read(atoi(in), &c, 1) != 1)
		return 1;
	execl("/proc/self/exe", "enable_on_exec", "--exec-child", in, out,
	      (char *)NULL);
	return 1;
}

/*
 * Fork a child that, before exec, waits for 'g', touches NPAGES pages,
 * says 'p', waits for 'x' and then execs the exec-child script.
 */
static int start_child_stage(struct child *ch, const char *stage)
{
	int p2c[2], c2p[2];

	if (pipe(p2c) || pipe(c2p))
		return -1;
	ch->pid = fork();
	if (ch->pid < 0)
		return -1;
	if (ch->pid == 0) {
		char in[16], out[16], c;

		close(p2c[1]);
		close(c2p[0]);
		if (read(p2c[0], &c, 1) != 1)
			_exit(10);
		pt_fault_pages(NPAGES);
		if (write(c2p[1], "p", 1) != 1 || read(p2c[0], &c, 1) != 1)
			_exit(11);
		snprintf(in, sizeof(in), "%d", p2c[0]);
		snprintf(out, sizeof(out), "%d", c2p[1]);
		execl("/proc/self/exe", "enable_on_exec", stage, in, out,
		      (char *)NULL);
		_exit(12);
	}
	close(p2c[0]);
	close(c2p[1]);
	ch->to_child = p2c[1];
	ch->from_child = c2p[0];
	return 0;
}

static int start_child(struct child *ch)
{
	return start_child_stage(ch, "--exec-child");
}

/* Send one byte and wait for the child's one-byte answer. */
static char step(struct child *ch)
{
	char c = 0;

	if (write(ch->to_child, "x", 1) != 1 || read(ch->from_child, &c, 1) != 1)
		return 0;
	return c;
}

static int finish_child(struct child *ch)
{
	char c = 'x';
	int ret;

	if (write(ch->to_child, &c, 1) != 1)
		return -1;
	ret = pt_wait_exit(ch->pid);
	close(ch->to_child);
	close(ch->from_child);
	return ret;
}

static int open_on(pid_t pid, int enable_on_exec, __u64 read_format, int group_fd)
{
	struct perf_event_attr attr;

	pt_attr_sw(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	attr.enable_on_exec = enable_on_exec;
	attr.read_format = read_format;
	return sys_perf_event_open(&attr, pid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

TEST(enable_on_exec_event_is_off_with_zero_times_before_exec)
{
	struct child ch;
	struct pt_val3 v;
	int fd;

	ASSERT_EQ(0, start_child(&ch));
	fd = open_on(ch.pid, 1, PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING, -1);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	/* child touches NPAGES before exec */
	ASSERT_EQ('p', step(&ch));
	ASSERT_EQ(0, pt_read3(fd, &v));
	EXPECT_EQ(0, v.value);
	EXPECT_EQ(0, v.enabled);
	EXPECT_EQ(0, v.running);

	/* exec: now it runs */
	ASSERT_EQ('r', step(&ch));
	ASSERT_EQ(0, pt_read3(fd, &v));
	EXPECT_LT(0, v.value);
	EXPECT_LT(0, v.enabled);
	EXPECT_EQ(v.enabled, v.running);
	ASSERT_EQ('d', step(&ch));
	ASSERT_EQ(0, finish_child(&ch));
	close(fd);
}

TEST(enable_on_exec_counts_exactly_the_pages_touched_after_exec)
{
	struct child ch;
	__u64 before, after;
	int fd;

	ASSERT_EQ(0, start_child(&ch));
	fd = open_on(ch.pid, 1, 0, -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ('p', step(&ch));
	EXPECT_EQ(0, pt_read1(fd));
	ASSERT_EQ('r', step(&ch));
	before = pt_read1(fd);
	ASSERT_EQ('d', step(&ch));
	after = pt_read1(fd);
	EXPECT_EQ(NPAGES, after - before);
	ASSERT_EQ(0, finish_child(&ch));
	/* the final count stays readable after the child is gone */
	EXPECT_EQ(after, pt_read1(fd));
	close(fd);
}

TEST(disabled_event_without_enable_on_exec_stays_off_across_exec)
{
	struct child ch;
	struct pt_val3 v;
	int fd;

	ASSERT_EQ(0, start_child(&ch));
	fd = open_on(ch.pid, 0, PERF_FORMAT_TOTAL_TIME_ENABLED, -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ('p', step(&ch));
	ASSERT_EQ('r', step(&ch));
	ASSERT_EQ('d', step(&ch));
	ASSERT_EQ(0, finish_child(&ch));
	ASSERT_EQ(16, read(fd, &v, 16));
	EXPECT_EQ(0, v.value);
	EXPECT_EQ(0, v.enabled);
	close(fd);
}

TEST(enable_on_exec_leader_starts_its_enabled_group_members)
{
	struct perf_event_attr attr;
	struct child ch;
	__u64 a[4], b[4];
	int leader, member;

	ASSERT_EQ(0, start_child(&ch));
	leader = open_on(ch.pid, 1, PERF_FORMAT_GROUP, -1);
	ASSERT_LE(0, leader);
	/* an enabled member of a disabled group counts once the leader does */
	pt_attr_sw(&attr, PERF_COUNT_SW_PAGE_FAULTS_MIN);
	attr.disabled = 0;
	member = sys_perf_event_open(&attr, ch.pid, -1, leader, 0);
	ASSERT_LE(0, member);
	ASSERT_EQ('p', step(&ch));
	ASSERT_EQ(24, read(leader, a, sizeof(a)));
	EXPECT_EQ(0, a[1]);
	EXPECT_EQ(0, a[2]);
	ASSERT_EQ('r', step(&ch));
	ASSERT_EQ(24, read(leader, a, sizeof(a)));
	ASSERT_EQ('d', step(&ch));
	ASSERT_EQ(24, read(leader, b, sizeof(b)));
	EXPECT_EQ(NPAGES, b[1] - a[1]);
	EXPECT_EQ(NPAGES, b[2] - a[2]);
	ASSERT_EQ(0, finish_child(&ch));
	close(member);
	close(leader);
}

TEST(enable_on_exec_on_an_already_enabled_event_changes_nothing)
{
	struct perf_event_attr attr;
	struct child ch;
	__u64 before, after;
	int fd;

	ASSERT_EQ(0, start_child(&ch));
	pt_attr_sw(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	attr.enable_on_exec = 1;
	attr.disabled = 0;
	fd = sys_perf_event_open(&attr, ch.pid, -1, -1, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ('p', step(&ch));
	/* counting already before exec */
	EXPECT_LE(NPAGES, pt_read1(fd));
	ASSERT_EQ('r', step(&ch));
	before = pt_read1(fd);
	ASSERT_EQ('d', step(&ch));
	after = pt_read1(fd);
	EXPECT_EQ(NPAGES, after - before);
	ASSERT_EQ(0, finish_child(&ch));
	close(fd);
}

/*
 * The first exec uses enable_on_exec up, whatever the event's state: one
 * enabled by hand before it and disabled after it stays off through a
 * second exec.
 */
TEST(enable_on_exec_is_used_up_by_the_first_exec)
{
	struct child ch;
	__u64 off;
	int fd;

	ASSERT_EQ(0, start_child_stage(&ch, "--exec-once"));
	fd = open_on(ch.pid, 1, 0, -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ('p', step(&ch));
	EXPECT_LE(NPAGES, pt_read1(fd));
	/* the first exec, with the event on; then off by hand */
	ASSERT_EQ('e', step(&ch));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	off = pt_read1(fd);
	/* the second exec, into the script, which touches NPAGES pages */
	ASSERT_EQ('r', step(&ch));
	ASSERT_EQ('d', step(&ch));
	EXPECT_EQ(off, pt_read1(fd));
	ASSERT_EQ(0, finish_child(&ch));
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--exec-child"))
		return exec_child_main(atoi(argv[2]), atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "--exec-once"))
		return exec_once_main(argv[2], argv[3]);
	return test_harness_run(argc, argv);
}
