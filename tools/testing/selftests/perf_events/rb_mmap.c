// SPDX-License-Identifier: GPL-2.0
/*
 * mmap() of a perf event: the 1 + 2^n page rule, the user page fields,
 * one buffer per event, the VMA rules (no split, no growth, not copied on
 * fork) and mlock accounting against perf_event_mlock_kb / RLIMIT_MEMLOCK.
 */
#include "perf_test.h"
#include <stddef.h>
#include <sys/resource.h>

static int open_sampling(__u64 config, __u64 period, int inherit, int cpu)
{
	struct perf_event_attr attr;

	pt_attr_sample(&attr, config, period, PERF_SAMPLE_IP);
	attr.inherit = inherit;
	return sys_perf_event_open(&attr, 0, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int open_task_clock(void)
{
	return open_sampling(PERF_COUNT_SW_TASK_CLOCK, 100000, 0, -1);
}

TEST(one_plus_power_of_two_pages_map)
{
	static const int ok[] = { 0, 1, 2, 4, 8, 16, 64 };
	int fd = open_task_clock();
	unsigned int i;

	ASSERT_LE(0, fd);
	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		struct pt_rb rb;

		ASSERT_EQ(0, pt_rb_map(&rb, fd, ok[i])) TH_LOG("1+%d pages", ok[i]);
		EXPECT_EQ((__u64)ok[i] * pt_page_size(), rb.pg->data_size);
		pt_rb_unmap(&rb);
	}
	close(fd);
}

TEST(other_sizes_einval)
{
	static const int bad[] = { 3, 5, 6, 7, 9, 12, 15, 17, 63 };
	int fd = open_task_clock();
	unsigned int i;
	long ps = pt_page_size();
	void *p;

	ASSERT_LE(0, fd);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct pt_rb rb;

		EXPECT_EQ(-EINVAL, pt_rb_map(&rb, fd, bad[i])) TH_LOG("1+%d pages", bad[i]);
		pt_rb_unmap(&rb);
	}
	/* not a whole number of pages: mmap rounds the length up to 2 pages */
	p = mmap(NULL, ps + 100, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	EXPECT_NE(MAP_FAILED, p);
	if (p != MAP_FAILED)
		munmap(p, ps + 100);
	close(fd);
}

TEST(private_mapping_einval)
{
	int fd = open_task_clock();
	void *p;

	ASSERT_LE(0, fd);
	p = mmap(NULL, 2 * pt_page_size(), PROT_READ, MAP_PRIVATE, fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	close(fd);
}

TEST(nonzero_offset_einval)
{
	long ps = pt_page_size();
	int fd = open_task_clock();
	void *p;

	ASSERT_LE(0, fd);
	p = mmap(NULL, 2 * ps, PROT_READ | PROT_WRITE, MAP_SHARED, fd, ps);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	close(fd);
}

TEST(second_mmap_same_size_ok_other_size_einval)
{
	struct pt_rb a, b, c;
	int fd = open_task_clock();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_rb_map(&a, fd, 4));
	/* same size: a second view of the same buffer */
	ASSERT_EQ(0, pt_rb_map(&b, fd, 4));
	EXPECT_NE(a.base, b.base);
	EXPECT_EQ(-EINVAL, pt_rb_map(&c, fd, 2));
	EXPECT_EQ(-EINVAL, pt_rb_map(&c, fd, 8));
	EXPECT_EQ(-EINVAL, pt_rb_map(&c, fd, 0));
	/* both views see the same data_tail */
	a.pg->data_tail = 0x40;
	EXPECT_EQ(0x40, b.pg->data_tail);
	a.pg->data_tail = 0;
	pt_rb_unmap(&a);
	EXPECT_EQ(-EINVAL, pt_rb_map(&c, fd, 2));
	pt_rb_unmap(&b);
	/* the buffer is gone with its last mapping: any size again */
	ASSERT_EQ(0, pt_rb_map(&c, fd, 2));
	EXPECT_EQ(2 * pt_page_size(), c.pg->data_size);
	pt_rb_unmap(&c);
	close(fd);
}

TEST(user_page_initial_fields)
{
	struct perf_event_mmap_page *pg;
	struct pt_rb rb;
	int fd = open_task_clock();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_rb_map(&rb, fd, 8));
	pg = rb.pg;
	EXPECT_EQ(0, pg->version);
	EXPECT_EQ(0, pg->compat_version);
	EXPECT_EQ(0, pg->lock & 1);
	/*
	 * Software event: no hardware counter to rdpmc, index 0. (The
	 * cap_user_rdpmc bit itself is the PMU's: stock 6.12 under QEMU TCG
	 * sets it even for a software event, the 6.18 host does not.)
	 */
	EXPECT_EQ(0, pg->index);
	EXPECT_EQ(0, (int)pg->cap_bit0);
	EXPECT_EQ(1, (int)pg->cap_bit0_is_deprecated);
	if (pg->cap_user_time)
		EXPECT_NE(0, pg->time_mult);
	if (pg->cap_user_time_zero)
		EXPECT_EQ(1, (int)pg->cap_user_time);
	EXPECT_EQ(offsetof(struct perf_event_mmap_page, __reserved), pg->size);
	EXPECT_EQ(0, pg->data_head);
	EXPECT_EQ(0, pg->data_tail);
	EXPECT_EQ(pt_page_size(), pg->data_offset);
	EXPECT_EQ(8 * pt_page_size(), pg->data_size);
	EXPECT_EQ(0, pg->aux_head);
	EXPECT_EQ(0, pg->aux_tail);
	EXPECT_EQ(0, pg->aux_offset);
	EXPECT_EQ(0, pg->aux_size);
	/* never enabled: no time yet */
	EXPECT_EQ(0, pg->time_enabled);
	EXPECT_EQ(0, pg->time_running);
	pt_rb_unmap(&rb);
	close(fd);
}

TEST(user_page_of_counting_event)
{
	struct pt_rb rb;
	int fd = open_sampling(PERF_COUNT_SW_TASK_CLOCK, 0, 0, -1);

	ASSERT_LE(0, fd);
	/* a counting event has a user page and even a data area */
	ASSERT_EQ(0, pt_rb_map(&rb, fd, 0));
	EXPECT_EQ(0, rb.pg->data_size);
	EXPECT_EQ(0, rb.pg->index);
	pt_rb_unmap(&rb);
	ASSERT_EQ(0, pt_rb_map(&rb, fd, 1));
	EXPECT_EQ(pt_page_size(), rb.pg->data_size);
	pt_rb_unmap(&rb);
	close(fd);
}

TEST(user_page_times_and_head_advance)
{
	struct perf_event_mmap_page *pg;
	struct pt_rb rb;
	__u64 te, tr, head;
	__u32 seq;
	int fd = open_task_clock();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_rb_map(&rb, fd, 8));
	pg = rb.pg;
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	pt_spin_user_ns(20000000);
	pt_sleep_ns(2000000);	/* schedule out and in */
	pt_spin_user_ns(5000000);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	do {
		seq = __atomic_load_n(&pg->lock, __ATOMIC_ACQUIRE);
		te = pg->time_enabled;
		tr = pg->time_running;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (seq != __atomic_load_n(&pg->lock, __ATOMIC_ACQUIRE) || (seq & 1));
	head = pt_rb_head(&rb);
	/* the lock was bumped by updates (starts at an even value) */
	EXPECT_NE(0, seq);
	EXPECT_LT(1000000, te);
	EXPECT_LT(1000000, tr);
	EXPECT_LE(tr, te);
	EXPECT_EQ(0, pg->index);
	/* ~25 ms of task-clock at 100 us: samples were written */
	EXPECT_LT(0, head);
	EXPECT_EQ(0, head % 8);
	pt_rb_unmap(&rb);
	close(fd);
}

TEST(inherit_event_with_cpu_minus_1_cannot_be_mapped)
{
	struct pt_rb rb;
	int fd = open_sampling(PERF_COUNT_SW_TASK_CLOCK, 100000, 1, -1);
	int cpu = pt_nth_cpu(0);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EINVAL, pt_rb_map(&rb, fd, 1));
	EXPECT_EQ(-EINVAL, pt_rb_map(&rb, fd, 0));
	close(fd);
	/* inherit on one CPU can */
	fd = open_sampling(PERF_COUNT_SW_TASK_CLOCK, 100000, 1, cpu);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, pt_rb_map(&rb, fd, 1));
	pt_rb_unmap(&rb);
	close(fd);
}

TEST(vma_cannot_be_split)
{
	long ps = pt_page_size();
	struct pt_rb rb;
	char *b;
	int fd = open_task_clock();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_rb_map(&rb, fd, 4));
	b = rb.base;
	EXPECT_EQ(-1, munmap(b + ps, ps));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, munmap(b, ps));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, munmap(b + 4 * ps, ps));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, mprotect(b, ps, PROT_READ));
	EXPECT_EQ(EINVAL, errno);
	/* still whole */
	EXPECT_EQ(ps, rb.pg->data_offset);
	EXPECT_EQ(0, munmap(b, rb.map_len));
	close(fd);
}

TEST(mremap_grow_efault_shrink_einval_move_ok)
{
	long ps = pt_page_size();
	struct pt_rb rb;
	void *p, *hole;
	int fd = open_task_clock(), i;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_rb_map(&rb, fd, 4));
	p = mremap(rb.base, rb.map_len, rb.map_len + 4 * ps, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EFAULT, errno);
	p = mremap(rb.base, rb.map_len, rb.map_len + 4 * ps, MREMAP_MAYMOVE);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EFAULT, errno);
	p = mremap(rb.base, rb.map_len, ps, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	/* moving the whole mapping keeps the buffer */
	hole = mmap(NULL, rb.map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, hole);
	p = mremap(rb.base, rb.map_len, rb.map_len, MREMAP_MAYMOVE | MREMAP_FIXED, hole);
	ASSERT_EQ(hole, p);
	rb.base = p;
	rb.pg = p;
	rb.data = (unsigned char *)p + ps;
	EXPECT_EQ(ps, rb.pg->data_offset);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	/*
	 * 20 ms of CPU time at a time, up to 2 s: under TCG on a busy host
	 * the vCPU may spend a spell's CPU time descheduled, and the
	 * timer's interrupt then comes once it runs again
	 */
	for (i = 0; i < 100 && !pt_rb_head(&rb); i++)
		pt_spin_user_ns(20000000);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	EXPECT_LT(0, pt_rb_head(&rb));
	pt_rb_unmap(&rb);
	close(fd);
}

TEST(mapping_not_inherited_by_fork)
{
	struct pt_rb rb;
	int fd = open_task_clock(), status;
	pid_t pid;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_rb_map(&rb, fd, 1));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		volatile __u32 v = rb.pg->version;

		(void)v;
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGSEGV, WTERMSIG(status));
	EXPECT_EQ(0, rb.pg->version);
	pt_rb_unmap(&rb);
	close(fd);
}

TEST(mapping_outlives_close)
{
	struct pt_rb rb;
	int fd = open_task_clock();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_rb_map(&rb, fd, 2));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	pt_spin_user_ns(3000000);
	close(fd);
	/* the event lives on in the mapping, but is gone from the task */
	EXPECT_EQ(pt_page_size(), rb.pg->data_offset);
	EXPECT_EQ(2 * pt_page_size(), rb.pg->data_size);
	pt_rb_unmap(&rb);
}

/*
 * mlock accounting: as an unprivileged user with RLIMIT_MEMLOCK 0, the
 * buffers of one user may lock at most perf_event_mlock_kb per online CPU
 * (user page included); the next mmap fails EPERM; munmap gives it back.
 * Root runs it in a child dropped to uid 1000.
 */
#define CHUNK_DATA_PAGES	64

static int mlock_limit_pages(void)
{
	long long kb = 516;

	pt_read_int_file("/proc/sys/kernel/perf_event_mlock_kb", &kb);
	return (int)(kb * 1024 / pt_page_size()) * pt_nr_cpus();
}

static int mlock_child(void)
{
	struct rlimit rl = { 0, 0 };
	struct pt_rb rb[64];
	int limit = mlock_limit_pages(), used = 0, n = 0, fd, err;

	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		return 10;
	while (used + CHUNK_DATA_PAGES + 1 <= limit) {
		if (n == 64)
			return 11;
		fd = open_task_clock();
		if (fd < 0)
			return 12;
		if (pt_rb_map(&rb[n], fd, CHUNK_DATA_PAGES))
			return 13;	/* within the limit must work */
		used += CHUNK_DATA_PAGES + 1;
		n++;
	}
	fd = open_task_clock();
	if (fd < 0)
		return 14;
	err = pt_rb_map(&rb[n], fd, CHUNK_DATA_PAGES);
	if (err != -EPERM)
		return 15;
	/* a smaller buffer that still fits works */
	if (limit - used >= 2) {
		struct pt_rb small;
		int fd2 = open_task_clock();

		if (pt_rb_map(&small, fd2, 1))
			return 16;
		pt_rb_unmap(&small);
		close(fd2);
	}
	if (n == 0)
		return 17;
	pt_rb_unmap(&rb[0]);
	if (pt_rb_map(&rb[n], fd, CHUNK_DATA_PAGES))
		return 18;	/* the munmap gave the pages back */
	return 0;
}

TEST(mlock_limit_per_user_eperm)
{
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (geteuid() == 0 && pt_drop_privs(1000, 1000))
			_exit(9);
		_exit(mlock_child());
	}
	EXPECT_EQ(0, pt_wait_exit(pid));
}

TEST(mlock_limit_does_not_bind_cap_ipc_lock)
{
	struct rlimit rl = { 0, 0 };
	int limit = mlock_limit_pages(), data = 1, fd;
	pid_t pid;

	if (geteuid() != 0)
		SKIP(return, "needs root (CAP_IPC_LOCK)");
	while (data + 1 <= limit)
		data *= 2;
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct pt_rb rb;

		if (setrlimit(RLIMIT_MEMLOCK, &rl))
			_exit(1);
		fd = open_task_clock();
		if (fd < 0)
			_exit(2);
		_exit(pt_rb_map(&rb, fd, data) ? 3 : 0);
	}
	EXPECT_EQ(0, pt_wait_exit(pid));
}

TEST_HARNESS_MAIN
