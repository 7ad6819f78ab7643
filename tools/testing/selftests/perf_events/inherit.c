// SPDX-License-Identifier: GPL-2.0
/*
 * attr.inherit / inherit_thread / inherit_stat: counters of a task follow
 * it into the children it creates after the event was opened, and the
 * children's counts show up in the parent's fd.
 *
 * Exact counts use children that share our mm (vfork(), clone(CLONE_VM)
 * and threads), so that the child takes no copy-on-write or text faults of
 * its own: its only page faults are the NPAGES fresh pages it touches.
 */
#include "perf_test.h"
#include <pthread.h>

#define NPAGES		64
#define STACK_SIZE	(256 * 1024)

static int open_sw_on(__u64 config, pid_t pid)
{
	struct perf_event_attr attr;

	pt_attr_sw(&attr, config);
	return sys_perf_event_open(&attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static int open_inherit(__u64 config, int inherit_thread, __u64 read_format,
			int group_fd)
{
	struct perf_event_attr attr;

	pt_attr_sw(&attr, config);
	attr.inherit = 1;
	attr.inherit_thread = inherit_thread;
	attr.read_format = read_format;
	return sys_perf_event_open(&attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* vfork() a child that touches npages of 'pages' and exits. */
static int vfork_touch(char *pages, int npages)
{
	pid_t pid = vfork();

	if (pid == 0) {
		pt_touch(pages, npages);
		_exit(0);
	}
	return pid < 0 ? -1 : pt_wait_exit(pid);
}

/* vfork() a child that vfork()s a grandchild that touches the pages. */
static int vfork_grandchild_touch(char *pages, int npages)
{
	pid_t pid = vfork();

	if (pid == 0) {
		pid_t g = vfork();

		if (g == 0) {
			pt_touch(pages, npages);
			_exit(0);
		}
		_exit(g < 0 ? 1 : pt_wait_exit(g));
	}
	return pid < 0 ? -1 : pt_wait_exit(pid);
}

/*
 * A clone(CLONE_VM) child (a process, not a thread) that touches its pages
 * when told to and then stays alive until released.
 */
struct vm_child {
	pid_t pid;
	int go[2];
	int done[2];
	char *stack;
	char *pages;
	int npages;
};

static int vm_child_fn(void *arg)
{
	struct vm_child *c = arg;
	char x;

	if (syscall(SYS_read, c->go[0], &x, 1) != 1)
		return 1;
	pt_touch(c->pages, c->npages);
	if (syscall(SYS_write, c->done[1], &x, 1) != 1)
		return 1;
	/* wait to be released */
	if (syscall(SYS_read, c->go[0], &x, 1) != 1)
		return 1;
	return 0;
}

/* Map the child's pages and pre-fault its stack (causes parent faults). */
static int vm_child_prepare(struct vm_child *c, int npages)
{
	memset(c, 0, sizeof(*c));
	c->npages = npages;
	c->pages = pt_map_pages(NPAGES);
	c->stack = pt_map_pages(STACK_SIZE / pt_page_size());
	if (!c->pages || !c->stack || pipe(c->go) || pipe(c->done))
		return -1;
	/* pre-fault the child's stack so it takes no faults of its own */
	memset(c->stack, 0, STACK_SIZE);
	return 0;
}

/* Create the child; no page faults in parent or child. */
static int vm_child_spawn(struct vm_child *c)
{
	c->pid = clone(vm_child_fn, c->stack + STACK_SIZE, CLONE_VM | SIGCHLD, c);
	return c->pid > 0 ? 0 : -1;
}

static int vm_child_start(struct vm_child *c, int npages)
{
	if (vm_child_prepare(c, npages))
		return -1;
	return vm_child_spawn(c);
}

/* Let the child touch its pages; returns once it has. */
static int vm_child_touch(struct vm_child *c)
{
	char x = 0;

	if (write(c->go[1], &x, 1) != 1 || read(c->done[0], &x, 1) != 1)
		return -1;
	return 0;
}

static int vm_child_finish(struct vm_child *c)
{
	char x = 0;
	int ret;

	if (write(c->go[1], &x, 1) != 1)
		return -1;
	ret = pt_wait_exit(c->pid);
	close(c->go[0]);
	close(c->go[1]);
	close(c->done[0]);
	close(c->done[1]);
	pt_unmap_pages(c->pages, NPAGES);
	pt_unmap_pages(c->stack, STACK_SIZE / pt_page_size());
	return ret;
}

/* Run one whole vm_child life cycle so that its code paths are mapped. */
static void vm_child_warm_up(void)
{
	struct vm_child c;

	if (vm_child_start(&c, 0) == 0) {
		vm_child_touch(&c);
		vm_child_finish(&c);
	}
}

/* Exact-count window around vfork_touch(); warm-up pass disabled. */
static int vfork_window(int fd, int npages, int (*fn)(char *, int))
{
	int pass;

	for (pass = 0; pass < 2; pass++) {
		char *p = pt_map_pages(npages);

		if (!p)
			return -1;
		if (ioctl(fd, pass ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE,
			  PERF_IOC_FLAG_GROUP))
			return -1;
		if (fn(p, pass ? npages : 0))
			return -1;
		if (ioctl(fd, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP))
			return -1;
		pt_unmap_pages(p, npages);
	}
	return 0;
}

TEST(inherit_counts_page_faults_of_a_vfork_child_exactly)
{
	int fd = open_inherit(PERF_COUNT_SW_PAGE_FAULTS, 0, 0, -1);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, vfork_window(fd, NPAGES, vfork_touch));
	EXPECT_EQ(NPAGES, pt_read1(fd));
	close(fd);
}

TEST(without_inherit_child_page_faults_are_not_counted)
{
	int fd = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, 0);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, vfork_window(fd, NPAGES, vfork_touch));
	EXPECT_EQ(0, pt_read1(fd));
	close(fd);
}

TEST(inherit_counts_page_faults_of_grandchildren)
{
	int fd = open_inherit(PERF_COUNT_SW_PAGE_FAULTS, 0, 0, -1);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, vfork_window(fd, NPAGES, vfork_grandchild_touch));
	EXPECT_EQ(NPAGES, pt_read1(fd));
	close(fd);
}

TEST(inherit_sums_page_faults_of_forked_children_and_parent)
{
	int fd = open_inherit(PERF_COUNT_SW_PAGE_FAULTS, 0, 0, -1);
	__u64 v;
	int i;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	for (i = 0; i < 3; i++) {
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (pid == 0)
			_exit(pt_fault_pages(NPAGES) ? 1 : 0);
		ASSERT_EQ(0, pt_wait_exit(pid));
	}
	ASSERT_EQ(0, pt_fault_pages(NPAGES));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	v = pt_read1(fd);
	/*
	 * 4 * NPAGES fresh-page faults, plus the copy-on-write and text
	 * faults that fork() itself causes in parent and children.
	 */
	EXPECT_LE(4 * NPAGES, v);
	EXPECT_GE(4 * NPAGES + 3 * 64, v);
	close(fd);
}

TEST(live_childrens_counts_are_included_in_the_parents_read)
{
	struct vm_child c;
	int fd = open_inherit(PERF_COUNT_SW_PAGE_FAULTS, 0, 0, -1);

	ASSERT_LE(0, fd);
	vm_child_warm_up();
	ASSERT_EQ(0, vm_child_prepare(&c, NPAGES));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	ASSERT_EQ(0, vm_child_spawn(&c));
	ASSERT_EQ(0, vm_child_touch(&c));
	/* the child is still alive here */
	EXPECT_EQ(NPAGES, pt_read1(fd));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	ASSERT_EQ(0, vm_child_finish(&c));
	/* and its count stays after it exited and was reaped */
	EXPECT_EQ(NPAGES, pt_read1(fd));
	close(fd);
}

TEST(enabling_after_fork_also_enables_the_inherited_child_events)
{
	struct vm_child c;
	int fd = open_inherit(PERF_COUNT_SW_PAGE_FAULTS, 0, 0, -1);

	ASSERT_LE(0, fd);
	vm_child_warm_up();
	/* child created while the (inherited) event is disabled */
	ASSERT_EQ(0, vm_child_start(&c, NPAGES));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	ASSERT_EQ(0, vm_child_touch(&c));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	EXPECT_EQ(NPAGES, pt_read1(fd));
	ASSERT_EQ(0, vm_child_finish(&c));
	EXPECT_EQ(NPAGES, pt_read1(fd));
	close(fd);
}

TEST(disabling_in_the_parent_stops_the_inherited_child_events)
{
	struct vm_child c;
	int fd = open_inherit(PERF_COUNT_SW_PAGE_FAULTS, 0, 0, -1);

	ASSERT_LE(0, fd);
	vm_child_warm_up();
	ASSERT_EQ(0, vm_child_prepare(&c, NPAGES));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	ASSERT_EQ(0, vm_child_spawn(&c));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	ASSERT_EQ(0, vm_child_touch(&c));
	EXPECT_EQ(0, pt_read1(fd));
	ASSERT_EQ(0, vm_child_finish(&c));
	EXPECT_EQ(0, pt_read1(fd));
	close(fd);
}

TEST(event_opened_after_the_child_exists_does_not_follow_it)
{
	struct vm_child c;
	int fd;

	vm_child_warm_up();
	ASSERT_EQ(0, vm_child_start(&c, NPAGES));
	fd = open_inherit(PERF_COUNT_SW_PAGE_FAULTS, 0, 0, -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	ASSERT_EQ(0, vm_child_touch(&c));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	EXPECT_EQ(0, pt_read1(fd));
	ASSERT_EQ(0, vm_child_finish(&c));
	EXPECT_EQ(0, pt_read1(fd));
	close(fd);
}

static char *thread_pages;
static int thread_npages;

static void *thread_touch(void *arg)
{
	pt_touch(thread_pages, thread_npages);
	return NULL;
}

/*
 * Count one thread touching npages, with a preallocated, pre-faulted
 * thread stack; a first pass with the event disabled warms up the path.
 */
static int thread_window(int fd, int npages)
{
	pthread_attr_t pa;
	char *stack = pt_map_pages(STACK_SIZE / pt_page_size());
	int pass;

	if (!stack)
		return -1;
	memset(stack, 0, STACK_SIZE);
	pthread_attr_init(&pa);
	pthread_attr_setstack(&pa, stack, STACK_SIZE);
	for (pass = 0; pass < 2; pass++) {
		pthread_t t;

		thread_pages = pt_map_pages(npages);
		thread_npages = pass ? npages : 0;
		if (!thread_pages)
			return -1;
		ioctl(fd, pass ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
		if (pthread_create(&t, &pa, thread_touch, NULL))
			return -1;
		pthread_join(t, NULL);
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		pt_unmap_pages(thread_pages, npages);
	}
	pthread_attr_destroy(&pa);
	pt_unmap_pages(stack, STACK_SIZE / pt_page_size());
	return 0;
}

/* Threads: exact up to the rare fault of the thread start/exit path. */
#define THREAD_SLACK	3

TEST(inherit_counts_page_faults_of_threads)
{
	int fd = open_inherit(PERF_COUNT_SW_PAGE_FAULTS, 0, 0, -1);
	__u64 v;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, thread_window(fd, NPAGES));
	v = pt_read1(fd);
	EXPECT_LE(NPAGES, v);
	EXPECT_GE(NPAGES + THREAD_SLACK, v);
	close(fd);
}

TEST(without_inherit_thread_page_faults_are_not_counted)
{
	int fd = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, 0);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, thread_window(fd, NPAGES));
	EXPECT_GE(THREAD_SLACK, pt_read1(fd));
	close(fd);
}

TEST(inherit_thread_counts_page_faults_of_threads)
{
	int fd = open_inherit(PERF_COUNT_SW_PAGE_FAULTS, 1, 0, -1);
	__u64 v;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, thread_window(fd, NPAGES));
	v = pt_read1(fd);
	EXPECT_LE(NPAGES, v);
	EXPECT_GE(NPAGES + THREAD_SLACK, v);
	close(fd);
}

TEST(inherit_thread_does_not_follow_children_without_clone_thread)
{
	int fd = open_inherit(PERF_COUNT_SW_PAGE_FAULTS, 1, 0, -1);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, vfork_window(fd, NPAGES, vfork_touch));
	EXPECT_EQ(0, pt_read1(fd));
	close(fd);
}

TEST(inherit_thread_does_not_follow_forked_children)
{
	int fd = open_inherit(PERF_COUNT_SW_PAGE_FAULTS, 1, 0, -1);
	int parent_only, with_child;
	pid_t pid;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(pt_fault_pages(NPAGES) ? 1 : 0);
	ASSERT_EQ(0, pt_wait_exit(pid));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	with_child = pt_read1(fd);
	/* only the parent's own copy-on-write faults after fork() remain */
	parent_only = with_child < NPAGES;
	EXPECT_TRUE(parent_only) TH_LOG("counted %d", with_child);
	close(fd);
}

TEST(inherit_stat_is_accepted_and_children_are_counted)
{
	struct perf_event_attr attr;
	int fd;

	pt_attr_sw(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	attr.inherit = 1;
	attr.inherit_stat = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, vfork_window(fd, NPAGES, vfork_touch));
	EXPECT_EQ(NPAGES, pt_read1(fd));
	close(fd);
}

TEST(inherited_group_read_includes_children_for_every_member)
{
	__u64 buf[8];
	int leader, member;

	leader = open_inherit(PERF_COUNT_SW_PAGE_FAULTS, 0,
			      PERF_FORMAT_GROUP | PERF_FORMAT_ID, -1);
	ASSERT_LE(0, leader);
	member = open_inherit(PERF_COUNT_SW_PAGE_FAULTS_MIN, 0,
			      PERF_FORMAT_GROUP | PERF_FORMAT_ID, leader);
	ASSERT_LE(0, member);
	ASSERT_EQ(0, vfork_window(leader, NPAGES, vfork_touch));
	ASSERT_EQ(8 * 5, read(leader, buf, sizeof(buf)));
	EXPECT_EQ(2, buf[0]);
	EXPECT_EQ(NPAGES, buf[1]);
	EXPECT_EQ(NPAGES, buf[3]);
	close(member);
	close(leader);
}

TEST(inherited_counts_accumulate_over_many_children)
{
	int fd = open_inherit(PERF_COUNT_SW_PAGE_FAULTS, 0, 0, -1);
	int i;

	ASSERT_LE(0, fd);
	for (i = 0; i < 10; i++)
		ASSERT_EQ(0, vfork_window(fd, 8, vfork_touch));
	EXPECT_EQ(10 * 8, pt_read1(fd));
	close(fd);
}

static volatile int reader_stop;
static long reader_reads, reader_backwards;

/* read() the origin over and over: nothing it reports may go back */
static void *monotonic_reader(void *arg)
{
	__u64 prev[3] = { 0, 0, 0 }, v[3];
	int fd = *(int *)arg, i;

	while (!reader_stop) {
		if (read(fd, v, sizeof(v)) != sizeof(v))
			break;
		reader_reads++;
		for (i = 0; i < 3; i++)
			if (v[i] < prev[i])
				reader_backwards++;
		memcpy(prev, v, sizeof(v));
	}
	return NULL;
}

/*
 * A child that exits moves its count and times into the origin's
 * totals and leaves the list of live children in one step: a read
 * that took the totals before that step and walked the list after it
 * would miss the child, and the count (and times) would go backwards.
 */
TEST(reads_of_an_inherited_event_never_go_backwards)
{
	char *pages = mmap(NULL, NPAGES * 4096, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct pt_val3 v;
	pthread_t reader;
	int fd, i, j;
	time_t start;
	pid_t pid;

	ASSERT_NE(MAP_FAILED, pages);
	reader_stop = 0;
	fd = open_inherit(PERF_COUNT_SW_PAGE_FAULTS, 0,
			  PERF_FORMAT_TOTAL_TIME_ENABLED |
			  PERF_FORMAT_TOTAL_TIME_RUNNING, -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, pthread_create(&reader, NULL, monotonic_reader, &fd));
	/* 100 children, or what 15 s allow on a slow (KASAN, TCG) kernel */
	start = time(NULL);
	for (i = 0; i < 100 && time(NULL) - start < 15; i++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			for (j = 0; j < NPAGES; j++)
				pages[j * 4096] = 1;
			_exit(0);
		}
		ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	}
	reader_stop = 1;
	pthread_join(reader, NULL);
	TH_LOG("%d children, %ld reads", i, reader_reads);
	EXPECT_LT(i, reader_reads);
	EXPECT_EQ(0, reader_backwards);
	ASSERT_EQ(sizeof(v), read(fd, &v, sizeof(v)));
	EXPECT_LE(i * NPAGES, v.value);
	close(fd);
	munmap(pages, NPAGES * 4096);
}

#define FAILSLAB	"/sys/kernel/debug/failslab"

static int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

/*
 * A fork that fails while perf copies the parent's events (the Nth slab
 * allocation of the fork made to fail, N = 1, 2, ... until the fork no
 * longer reaches an Nth) must take back the copies it made: each sits
 * on its origin's child list and points at the child task, which the
 * failed fork frees. KASAN reports the read and close of the origins
 * below if one stayed.
 */
TEST(failed_fork_takes_back_the_copied_events)
{
	int fd[3], nth_fd, i, n, failed = 0, done = 0;
	char path[64], buf[32];
	pid_t pid;

	if (access("/proc/thread-self/fail-nth", F_OK) ||
	    access(FAILSLAB "/ignore-gfp-wait", F_OK))
		SKIP(return, "no fail-nth or failslab (CONFIG_FAILSLAB, debugfs)");
	ASSERT_EQ(0, write_str(FAILSLAB "/ignore-gfp-wait", "N"));
	ASSERT_EQ(0, write_str(FAILSLAB "/verbose", "0"));
	for (i = 0; i < 3; i++) {
		fd[i] = open_inherit(PERF_COUNT_SW_PAGE_FAULTS, 0, 0, -1);
		ASSERT_LE(0, fd[i]);
	}
	snprintf(path, sizeof(path), "/proc/self/task/%d/fail-nth", pt_gettid());
	nth_fd = open(path, O_RDWR);
	ASSERT_LE(0, nth_fd);
	for (n = 1; n < 2000 && !done; n++) {
		snprintf(buf, sizeof(buf), "%d", n);
		ASSERT_EQ((ssize_t)strlen(buf), pwrite(nth_fd, buf, strlen(buf), 0));
		pid = fork();
		if (pid == 0)
			_exit(0);
		/* a fail-nth not counted down to 0: the fork had no Nth */
		memset(buf, 0, sizeof(buf));
		ASSERT_LT(0, pread(nth_fd, buf, sizeof(buf) - 1, 0));
		done = atoi(buf) != 0;
		ASSERT_EQ(2, pwrite(nth_fd, "0", 2, 0));
		failed += pid < 0;
		ASSERT_TRUE(pid < 0 || waitpid(pid, NULL, 0) == pid);
		for (i = 0; i < 3; i++)
			ASSERT_LE(0, pt_read1(fd[i]));
	}
	close(nth_fd);
	write_str(FAILSLAB "/ignore-gfp-wait", "Y");
	EXPECT_TRUE(done) TH_LOG("every one of %d forks failed", n);
	EXPECT_LT(10, failed);
	for (i = 0; i < 3; i++)
		close(fd[i]);
}

static volatile int thread_go;

static void *thread_touch_on_go(void *arg)
{
	while (!thread_go)
		sched_yield();
	pt_touch(thread_pages, thread_npages);
	return NULL;
}

static void *thread_report_tid(void *arg)
{
	*(pid_t *)arg = gettid();
	return thread_touch_on_go(arg);
}

TEST(event_on_a_thread_id_counts_only_that_thread)
{
	volatile pid_t tid = -1;
	pthread_t t;
	char *mine = pt_map_pages(NPAGES);
	int fd;

	ASSERT_NE(NULL, mine);
	thread_pages = pt_map_pages(NPAGES);
	thread_npages = NPAGES;
	ASSERT_NE(NULL, thread_pages);
	thread_go = 0;
	ASSERT_EQ(0, pthread_create(&t, NULL, thread_report_tid, (void *)&tid));
	while (tid == -1)
		sched_yield();
	fd = open_sw_on(PERF_COUNT_SW_PAGE_FAULTS, tid);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	/* our own faults are not the thread's */
	pt_touch(mine, NPAGES);
	thread_go = 1;
	pthread_join(t, NULL);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	/* the thread's NPAGES, plus at most its exit path */
	EXPECT_LE(NPAGES, pt_read1(fd));
	EXPECT_GE(NPAGES + THREAD_SLACK, pt_read1(fd));
	close(fd);
	pt_unmap_pages(mine, NPAGES);
	pt_unmap_pages(thread_pages, NPAGES);
}

TEST_HARNESS_MAIN
