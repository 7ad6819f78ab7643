// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_SAMPLE_CALLCHAIN: user callchains through frame pointers (a known
 * chain of functions built with frame pointers and no sibling calls), the
 * context markers, kernel callchains (root), exclude_callchain_user /
 * _kernel, sample_max_stack, and the perf_event_max_stack /
 * perf_event_max_contexts_per_stack sysctls.
 */
#pragma GCC optimize("no-omit-frame-pointer", "no-optimize-sibling-calls")
#include "perf_test.h"

#include <pthread.h>

#define KERNEL_MIN	0xffff800000000000ULL
#define USER_MAX	0x0000800000000000ULL

static __u64 ra[4];
static char *fault_page;

#define RA() ((__u64)(unsigned long)__builtin_return_address(0))

static __attribute__((noinline)) void level3(void)
{
	ra[3] = RA();
	*(volatile char *)fault_page = 1;
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void level2(void)
{
	ra[2] = RA();
	level3();
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void level1(void)
{
	ra[1] = RA();
	level2();
	__asm__ volatile("" ::: "memory");
}

/*
 * One page-fault sample from level3 (called through level1 and level2);
 * returns 0 and the parsed sample.
 */
static int chain_sample(struct perf_event_attr *attr, struct pt_sample *s)
{
	struct perf_event_header *h;
	struct pt_recs r;
	struct pt_rb rb;
	int fd, ret = -1;

	fd = sys_perf_event_open(attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (pt_rb_map(&rb, fd, 8))
		goto out_close;
	fault_page = pt_map_pages(1);
	if (!fault_page)
		goto out_unmap;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	level1();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	pt_unmap_pages(fault_page, 1);
	if (pt_rb_drain(&rb, &r))
		goto out_unmap;
	h = pt_recs_next(&r, NULL, PERF_RECORD_SAMPLE);
	if (h && pt_recs_count(&r, PERF_RECORD_SAMPLE) == 1 &&
	    pt_sample_parse(attr, h, s) == h->size - 8)
		ret = 0;
	pt_recs_free(&r);
out_unmap:
	pt_rb_unmap(&rb);
out_close:
	close(fd);
	return ret;
}

static void fault_chain_attr(struct perf_event_attr *attr)
{
	pt_attr_sample(attr, PERF_COUNT_SW_PAGE_FAULTS, 1,
		       PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN);
	/* 6.12 refuses kernel callchains to the unprivileged */
	attr->exclude_callchain_kernel = !pt_can_count_kernel();
}

TEST(user_callchain_follows_frame_pointers)
{
	struct perf_event_attr attr;
	struct pt_sample s;

	fault_chain_attr(&attr);
	ASSERT_EQ(0, chain_sample(&attr, &s));
	/* a fault in user mode: no kernel part, even when allowed */
	ASSERT_LE(5, s.nr_chain);
	EXPECT_EQ(PERF_CONTEXT_USER, s.chain[0]);
	EXPECT_EQ(s.ip, s.chain[1]);
	EXPECT_EQ(ra[3], s.chain[2]);
	EXPECT_EQ(ra[2], s.chain[3]);
	EXPECT_EQ(ra[1], s.chain[4]);
}

TEST(sample_max_stack_limits_user_chain)
{
	struct perf_event_attr attr;
	struct pt_sample s;

	fault_chain_attr(&attr);
	attr.sample_max_stack = 2;
	ASSERT_EQ(0, chain_sample(&attr, &s));
	/* the marker plus two entries */
	ASSERT_EQ(3, s.nr_chain);
	EXPECT_EQ(PERF_CONTEXT_USER, s.chain[0]);
	EXPECT_EQ(s.ip, s.chain[1]);
	EXPECT_EQ(ra[3], s.chain[2]);
}

TEST(exclude_callchain_user_leaves_nothing_for_user_fault)
{
	struct perf_event_attr attr;
	struct pt_sample s;

	fault_chain_attr(&attr);
	attr.exclude_callchain_user = 1;
	ASSERT_EQ(0, chain_sample(&attr, &s));
	EXPECT_EQ(0, s.nr_chain);
}

/*
 * Kernel callchains (root): a context-switch sample is taken in the
 * scheduler: KERNEL marker, the sample IP, kernel addresses, then the
 * USER marker and the user stack of the task that blocked.
 */
static int cs_sample(struct perf_event_attr *attr, struct pt_sample *s,
		     __u16 *misc)
{
	struct perf_event_header *h;
	struct pt_recs r;
	struct pt_rb rb;
	int fd, i, ret = -1;

	fd = sys_perf_event_open(attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (pt_rb_map(&rb, fd, 8))
		goto out_close;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	/*
	 * A sleep whose timer expires before nanosleep() gets to schedule()
	 * (a vCPU held up on a loaded host) returns with no switch: sleep
	 * again until one was counted.
	 */
	for (i = 0; i < 5 && pt_read1(fd) == 0; i++)
		pt_sleep_ns(20000000);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (pt_rb_drain(&rb, &r))
		goto out_unmap;
	h = pt_recs_next(&r, NULL, PERF_RECORD_SAMPLE);
	if (h && pt_sample_parse(attr, h, s) == h->size - 8) {
		*misc = h->misc;
		ret = 0;
	}
	pt_recs_free(&r);
out_unmap:
	pt_rb_unmap(&rb);
out_close:
	close(fd);
	return ret;
}

static void cs_attr(struct perf_event_attr *attr)
{
	pt_attr_sample(attr, PERF_COUNT_SW_CONTEXT_SWITCHES, 1,
		       PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN);
	attr->exclude_kernel = 0;
}

/* index of the USER marker, or -1 */
static int user_marker(struct pt_sample *s)
{
	unsigned int i;

	for (i = 0; i < s->nr_chain && i < PT_MAX_CHAIN; i++)
		if (s->chain[i] == PERF_CONTEXT_USER)
			return i;
	return -1;
}

TEST(kernel_callchain_of_context_switch)
{
	struct perf_event_attr attr;
	struct pt_sample s;
	__u16 misc = 0;
	int u, i;

	if (!pt_can_count_kernel())
		SKIP(return, "kernel samples need root or perf_event_paranoid < 2");
	cs_attr(&attr);
	ASSERT_EQ(0, cs_sample(&attr, &s, &misc));
	EXPECT_EQ(PERF_RECORD_MISC_KERNEL, misc & PERF_RECORD_MISC_CPUMODE_MASK);
	EXPECT_LE(KERNEL_MIN, s.ip);
	ASSERT_LE(3, s.nr_chain);
	EXPECT_EQ(PERF_CONTEXT_KERNEL, s.chain[0]);
	EXPECT_EQ(s.ip, s.chain[1]);
	u = user_marker(&s);
	/* a few kernel frames (scheduler, nanosleep, syscall entry) */
	ASSERT_LT(3, u);
	for (i = 1; i < u; i++)
		EXPECT_LE(KERNEL_MIN, s.chain[i]) TH_LOG("entry %d", i);
	/* the task entered the kernel from user space: its user stack */
	ASSERT_LT(u + 1, (int)s.nr_chain);
	EXPECT_GT(USER_MAX, s.chain[u + 1]);
}

TEST(exclude_callchain_user_and_kernel)
{
	struct perf_event_attr attr;
	struct pt_sample s;
	__u16 misc;
	unsigned int i;

	if (!pt_can_count_kernel())
		SKIP(return, "kernel samples need root or perf_event_paranoid < 2");
	cs_attr(&attr);
	attr.exclude_callchain_user = 1;
	ASSERT_EQ(0, cs_sample(&attr, &s, &misc));
	ASSERT_LE(2, s.nr_chain);
	EXPECT_EQ(PERF_CONTEXT_KERNEL, s.chain[0]);
	EXPECT_EQ(-1, user_marker(&s));
	for (i = 1; i < s.nr_chain; i++)
		EXPECT_LE(KERNEL_MIN, s.chain[i]);

	cs_attr(&attr);
	attr.exclude_callchain_kernel = 1;
	ASSERT_EQ(0, cs_sample(&attr, &s, &misc));
	ASSERT_LE(2, s.nr_chain);
	EXPECT_EQ(PERF_CONTEXT_USER, s.chain[0]);
	EXPECT_GT(USER_MAX, s.chain[1]);
}

/*
 * sample_max_stack counts addresses, not markers: with 3, the kernel part
 * keeps 3 addresses and the user part is only its marker.
 */
TEST(sample_max_stack_counts_addresses)
{
	struct perf_event_attr attr;
	struct pt_sample s;
	__u16 misc;

	if (!pt_can_count_kernel())
		SKIP(return, "kernel samples need root or perf_event_paranoid < 2");
	cs_attr(&attr);
	attr.sample_max_stack = 3;
	ASSERT_EQ(0, cs_sample(&attr, &s, &misc));
	ASSERT_EQ(5, s.nr_chain);
	EXPECT_EQ(PERF_CONTEXT_KERNEL, s.chain[0]);
	EXPECT_EQ(s.ip, s.chain[1]);
	EXPECT_LE(KERNEL_MIN, s.chain[2]);
	EXPECT_LE(KERNEL_MIN, s.chain[3]);
	EXPECT_EQ(PERF_CONTEXT_USER, s.chain[4]);
}

#define MAX_STACK	"/proc/sys/kernel/perf_event_max_stack"
#define MAX_CTX		"/proc/sys/kernel/perf_event_max_contexts_per_stack"

FIXTURE(sysctl) {
	long long max_stack, max_ctx;
	bool restore;
};

FIXTURE_SETUP(sysctl)
{
	self->restore = false;
	if (geteuid() != 0)
		SKIP(return, "writing the callchain sysctls needs root");
	ASSERT_EQ(0, pt_read_int_file(MAX_STACK, &self->max_stack));
	ASSERT_EQ(0, pt_read_int_file(MAX_CTX, &self->max_ctx));
	self->restore = true;
}

FIXTURE_TEARDOWN(sysctl)
{
	if (self->restore) {
		pt_write_int_file(MAX_STACK, self->max_stack);
		pt_write_int_file(MAX_CTX, self->max_ctx);
	}
}

TEST_F(sysctl, max_stack_sysctl_limits_and_bounds_sample_max_stack)
{
	struct perf_event_attr attr;
	struct pt_sample s;
	int fd;

	ASSERT_EQ(0, pt_write_int_file(MAX_STACK, 2));
	fault_chain_attr(&attr);
	ASSERT_EQ(0, chain_sample(&attr, &s));
	/* sample_max_stack 0 means the sysctl */
	ASSERT_EQ(3, s.nr_chain);
	EXPECT_EQ(PERF_CONTEXT_USER, s.chain[0]);
	EXPECT_EQ(ra[3], s.chain[2]);
	fault_chain_attr(&attr);
	attr.sample_max_stack = 3;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EOVERFLOW, errno);
	/* the sysctl cannot change while a callchain event exists */
	fault_chain_attr(&attr);
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EBUSY, pt_write_int_file(MAX_STACK, 10));
	/* a value out of range is EINVAL, busy or not: it is parsed first */
	EXPECT_EQ(-EINVAL, pt_write_int_file(MAX_STACK, 655361));
	EXPECT_EQ(-EINVAL, pt_write_int_file(MAX_CTX, 1001));
	EXPECT_EQ(-EBUSY, pt_write_int_file(MAX_CTX, 8));
	close(fd);
	EXPECT_EQ(0, pt_write_int_file(MAX_STACK, 10));
}

TEST_F(sysctl, max_contexts_per_stack)
{
	struct perf_event_attr attr;
	struct pt_sample s;
	__u16 misc;

	ASSERT_EQ(0, pt_write_int_file(MAX_CTX, 1));
	cs_attr(&attr);
	ASSERT_EQ(0, cs_sample(&attr, &s, &misc));
	/* only the first context's marker */
	EXPECT_EQ(PERF_CONTEXT_KERNEL, s.chain[0]);
	EXPECT_EQ(-1, user_marker(&s));
}

/*
 * The limits change only while no callchain user exists, and buffers
 * sized under one pair of limits are only walked within them: one thread
 * opens context-switch samplers with kernel and user chains (two markers
 * a sample) and closes them again, while another writes both sysctls,
 * switching the markers' room between 0 and 8. A write meets EBUSY while
 * an event lives; KASAN sees any write past the buffers.
 */
static volatile int limits_stop;
static volatile long limits_opens, limits_samples, limits_bad;

static __attribute__((noinline)) void limits_deep(int depth)
{
	if (depth) {
		limits_deep(depth - 1);
		__asm__ volatile("" ::: "memory");
		return;
	}
	pt_sleep_ns(20000);
}

static void *limits_sampler(void *arg)
{
	struct perf_event_attr attr;
	struct perf_event_header *h;
	struct pt_sample smp;
	struct pt_recs r;
	struct pt_rb rb;
	int fd, i;

	while (!limits_stop) {
		cs_attr(&attr);
		fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			continue;
		limits_opens++;
		if (pt_rb_map(&rb, fd, 8)) {
			close(fd);
			continue;
		}
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		for (i = 0; i < 4; i++)
			limits_deep(40);
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		if (!pt_rb_drain(&rb, &r)) {
			for (h = pt_recs_next(&r, NULL, PERF_RECORD_SAMPLE); h;
			     h = pt_recs_next(&r, h, PERF_RECORD_SAMPLE)) {
				if (pt_sample_parse(&attr, h, &smp) != h->size - 8 ||
				    smp.nr_chain > 127 + 8)
					limits_bad++;
				limits_samples++;
			}
			pt_recs_free(&r);
		}
		pt_rb_unmap(&rb);
		close(fd);
		pt_sleep_ns(50000);
	}
	return arg;
}

TEST_F_TIMEOUT(sysctl, limits_written_while_samplers_come_and_go, 90)
{
	long busy = 0, written = 0, other = 0;
	__u64 end;
	pthread_t t;
	int i = 0, err;

	if (!pt_can_count_kernel())
		SKIP(return, "kernel samples need root or perf_event_paranoid < 2");
	limits_stop = 0;
	ASSERT_EQ(0, pthread_create(&t, NULL, limits_sampler, NULL));
	end = pt_now_ns() + 8000000000ULL;
	while (pt_now_ns() < end) {
		i++;
		err = pt_write_int_file(MAX_CTX, i & 1 ? 0 : 8);
		if (!err)
			err = pt_write_int_file(MAX_STACK, i & 2 ? 2 : 127);
		if (!err)
			written++;
		else if (err == -EBUSY)
			busy++;
		else
			other++;
	}
	limits_stop = 1;
	pthread_join(t, NULL);
	TH_LOG("%ld opens, %ld samples, %ld writes, %ld EBUSY", limits_opens,
	       limits_samples, written, busy);
	EXPECT_EQ(0, other);
	EXPECT_LT(0, busy);
	EXPECT_LT(0, written);
	EXPECT_LT(0, limits_samples);
	EXPECT_EQ(0, limits_bad);
}

TEST_HARNESS_MAIN
