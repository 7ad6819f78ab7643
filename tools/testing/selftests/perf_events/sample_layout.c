// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_RECORD_SAMPLE layout, one sample_type bit at a time, with exact
 * values: a page-fault event with sample_period 1 samples every fault,
 * and the test touches known fresh pages from a known function on a known
 * CPU, so ip, pid/tid, addr, id, cpu, period and the read values are all
 * predictable. Also the sample_type / regs / stack attr errnos.
 */
#include "perf_test.h"
#include <asm/perf_regs.h>

#define NPAGES		8
#define RB_PAGES	16

/* Touch each page once; its page faults carry IPs inside this function. */
static __attribute__((noinline)) void touch_fn(char *p, int npages)
{
	long ps = pt_page_size();
	int i;

	for (i = 0; i < npages; i++)
		((volatile char *)p)[i * ps] = 1;
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void touch_fn_end(void)
{
	__asm__ volatile("");
}

static bool ip_in_touch_fn(__u64 ip)
{
	__u64 lo = (unsigned long)touch_fn, hi = (unsigned long)touch_fn_end;

	if (hi <= lo)
		hi = lo + 256;
	return ip >= lo && ip < hi;
}

struct run {
	int fd;
	int cpu;
	char *pages;
	struct pt_rb rb;
	struct pt_recs recs;
	__u64 id;
	__u64 t0, t1;		/* CLOCK_MONOTONIC around the touches */
};

/*
 * Open 'attr' on self pinned to a CPU, map it, fault NPAGES fresh pages
 * with the event enabled, and collect the buffer. Returns 0 or -errno of
 * the open.
 */
static int fault_run_mode(struct perf_event_attr *attr, struct run *r,
			  int group_fd, bool cow_first)
{
	char *warm;

	memset(r, 0, sizeof(*r));
	r->cpu = pt_nth_cpu(0);
	if (pt_pin_cpu(0, r->cpu))
		return -errno;
	r->fd = sys_perf_event_open(attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	if (ioctl(r->fd, PERF_EVENT_IOC_ID, &r->id))
		return -errno;
	if (pt_rb_map(&r->rb, r->fd, RB_PAGES))
		return -ENOMEM;
	/* fault in the code and stack of the path outside the window */
	warm = pt_map_pages(NPAGES);
	r->pages = pt_map_pages(NPAGES);
	if (!warm || !r->pages)
		return -ENOMEM;
	if (cow_first) {
		/* fork() write-protects our pages: the write faults find a page */
		pid_t pid;

		touch_fn(r->pages, NPAGES);
		pid = fork();
		if (pid == 0)
			_exit(0);
		if (pt_wait_exit(pid))
			return -ECHILD;
	}
	touch_fn(warm, NPAGES);
	r->t0 = pt_now_ns();
	ioctl(r->fd, PERF_EVENT_IOC_ENABLE, 0);
	touch_fn(r->pages, NPAGES);
	ioctl(r->fd, PERF_EVENT_IOC_DISABLE, 0);
	r->t1 = pt_now_ns();
	pt_unmap_pages(warm, NPAGES);
	return pt_rb_drain(&r->rb, &r->recs) ? -EIO : 0;
}

static int fault_run(struct perf_event_attr *attr, struct run *r, int group_fd)
{
	return fault_run_mode(attr, r, group_fd, false);
}

static void run_done(struct run *r)
{
	pt_recs_free(&r->recs);
	pt_rb_unmap(&r->rb);
	if (r->pages)
		pt_unmap_pages(r->pages, NPAGES);
	if (r->fd > 0)
		close(r->fd);
}

static void fault_attr(struct perf_event_attr *attr, __u64 sample_type)
{
	pt_attr_sample(attr, PERF_COUNT_SW_PAGE_FAULTS, 1, sample_type);
}

/* The i-th sample, parsed, with its exact size checked. */
#define GET_SAMPLE(attr, r, i, s) do {					\
		struct perf_event_header *__h = NULL;			\
		int __k, __len;						\
		for (__k = 0; __k <= (i); __k++) {			\
			__h = pt_recs_next(&(r)->recs, __h, PERF_RECORD_SAMPLE); \
			ASSERT_NE(NULL, __h) TH_LOG("sample %d missing", (int)(i)); \
		}							\
		__len = pt_sample_parse((attr), __h, (s));		\
		ASSERT_EQ((int)__h->size - 8, __len) TH_LOG("sample %d size %u", (int)(i), __h->size); \
		/* user mode, no other misc bit (no EXACT_IP in software) */ \
		EXPECT_EQ(PERF_RECORD_MISC_USER, __h->misc);		\
	} while (0)

TEST(every_fault_sampled_with_exact_fields)
{
	__u64 st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		   PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
		   PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	struct perf_event_attr attr;
	__u64 last_time = 0;
	struct run r;
	int i;

	fault_attr(&attr, st);
	ASSERT_EQ(0, fault_run(&attr, &r, -1));
	EXPECT_EQ(0, r.recs.bad);
	/* only samples, one per fault */
	EXPECT_EQ(NPAGES, r.recs.nr);
	EXPECT_EQ(NPAGES, pt_recs_count(&r.recs, PERF_RECORD_SAMPLE));
	for (i = 0; i < NPAGES; i++) {
		struct pt_sample s;

		GET_SAMPLE(&attr, &r, i, &s);
		EXPECT_TRUE(ip_in_touch_fn(s.ip)) TH_LOG("ip %llx", (unsigned long long)s.ip);
		EXPECT_EQ(getpid(), s.pid);
		EXPECT_EQ(pt_gettid(), s.tid);
		EXPECT_EQ((unsigned long)(r.pages + i * pt_page_size()), s.addr);
		EXPECT_EQ(r.id, s.id);
		EXPECT_EQ(r.id, s.stream_id);
		EXPECT_EQ(r.cpu, s.cpu);
		EXPECT_EQ(0, s.res);
		EXPECT_EQ(1, s.period);
		/*
		 * Non-decreasing: with an unstable TSC (always under TCG)
		 * local_clock() is held at the last tick + one tick until
		 * the next tick, so close samples may share a time, on
		 * stock too when the guest runs slow enough.
		 */
		EXPECT_LE(last_time, s.time);
		EXPECT_LT(0, s.time);
		last_time = s.time;
	}
	run_done(&r);
}

/*
 * A counted software event (page faults) with PERF_SAMPLE_PERIOD and a
 * fixed period samples every hit, each with period 1 (so that summing
 * periods gives the count); without PERIOD in sample_type the period
 * applies. Same on 6.12 and 6.18.
 */
TEST(sample_period_bit_makes_every_fault_a_sample)
{
	struct perf_event_attr attr;
	struct perf_event_header *h;
	struct run r;

	fault_attr(&attr, PERF_SAMPLE_ADDR);
	attr.sample_period = 4;
	ASSERT_EQ(0, fault_run(&attr, &r, -1));
	EXPECT_EQ(NPAGES / 4, pt_recs_count(&r.recs, PERF_RECORD_SAMPLE));
	/* the 4th, 8th, ... fault */
	h = pt_recs_next(&r.recs, NULL, PERF_RECORD_SAMPLE);
	ASSERT_NE(NULL, h);
	EXPECT_EQ((unsigned long)(r.pages + 3 * pt_page_size()), ((__u64 *)(h + 1))[0]);
	run_done(&r);

	fault_attr(&attr, PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD);
	attr.sample_period = 4;
	ASSERT_EQ(0, fault_run(&attr, &r, -1));
	EXPECT_EQ(NPAGES, pt_recs_count(&r.recs, PERF_RECORD_SAMPLE));
	pt_recs_for_each(h, &r.recs, PERF_RECORD_SAMPLE)
		EXPECT_EQ(1, ((__u64 *)(h + 1))[1]);
	run_done(&r);
}

/* exclude_user (root): faults taken in user mode are not sampled */
TEST(exclude_user_drops_user_faults)
{
	struct perf_event_attr attr;
	struct run r;

	if (!pt_can_count_kernel())
		SKIP(return, "exclude_user alone means counting the kernel: root");
	fault_attr(&attr, PERF_SAMPLE_IP);
	attr.exclude_user = 1;
	attr.exclude_kernel = 0;
	ASSERT_EQ(0, fault_run(&attr, &r, -1));
	EXPECT_EQ(0, pt_recs_count(&r.recs, PERF_RECORD_SAMPLE));
	run_done(&r);
}

TEST(sample_size_is_header_plus_fields)
{
	static const struct { __u64 st; int size; } cases[] = {
		{ PERF_SAMPLE_IP, 16 },
		{ PERF_SAMPLE_TID, 16 },
		{ PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME, 32 },
		{ PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD, 24 },
		{ PERF_SAMPLE_IDENTIFIER, 16 },
		{ PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID, 24 },
		{ PERF_SAMPLE_ADDR | PERF_SAMPLE_STREAM_ID, 24 },
	};
	unsigned int c;

	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		struct perf_event_attr attr;
		struct perf_event_header *h;
		struct run r;

		fault_attr(&attr, cases[c].st);
		ASSERT_EQ(0, fault_run(&attr, &r, -1));
		EXPECT_EQ(NPAGES, pt_recs_count(&r.recs, PERF_RECORD_SAMPLE));
		pt_recs_for_each(h, &r.recs, PERF_RECORD_SAMPLE)
			EXPECT_EQ(cases[c].size, h->size) TH_LOG("sample_type %llx",
				(unsigned long long)cases[c].st);
		run_done(&r);
	}
}

TEST(identifier_comes_first)
{
	struct perf_event_attr attr;
	struct perf_event_header *h;
	struct run r;

	fault_attr(&attr, PERF_SAMPLE_IP | PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID);
	ASSERT_EQ(0, fault_run(&attr, &r, -1));
	h = pt_recs_next(&r.recs, NULL, PERF_RECORD_SAMPLE);
	ASSERT_NE(NULL, h);
	ASSERT_EQ(32, h->size);
	/* identifier, ip, id */
	EXPECT_EQ(r.id, ((__u64 *)(h + 1))[0]);
	EXPECT_TRUE(ip_in_touch_fn(((__u64 *)(h + 1))[1]));
	EXPECT_EQ(r.id, ((__u64 *)(h + 1))[2]);
	run_done(&r);
}

TEST(time_with_clockid_monotonic_is_clock_gettime)
{
	struct perf_event_attr attr;
	__u64 last = 0;
	struct run r;
	int i;

	fault_attr(&attr, PERF_SAMPLE_TIME);
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	ASSERT_EQ(0, fault_run(&attr, &r, -1));
	for (i = 0; i < NPAGES; i++) {
		struct pt_sample s;

		GET_SAMPLE(&attr, &r, i, &s);
		EXPECT_LE(r.t0, s.time);
		EXPECT_GE(r.t1, s.time);
		EXPECT_LE(last, s.time);
		last = s.time;
	}
	run_done(&r);
}

TEST(bad_clockid_einval)
{
	struct perf_event_attr attr;

	fault_attr(&attr, PERF_SAMPLE_TIME);
	attr.use_clockid = 1;
	attr.clockid = 12345;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EINVAL, errno);
}

TEST(read_single_counts_up_to_the_fault)
{
	struct perf_event_attr attr;
	struct run r;
	int i;

	fault_attr(&attr, PERF_SAMPLE_READ);
	attr.read_format = PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	ASSERT_EQ(0, fault_run(&attr, &r, -1));
	for (i = 0; i < NPAGES; i++) {
		struct pt_sample s;

		GET_SAMPLE(&attr, &r, i, &s);
		/* the sampled fault is counted before the sample is written */
		EXPECT_EQ(i + 1, s.read[0].value);
		EXPECT_EQ(r.id, s.read[0].id);
		EXPECT_EQ(s.read_enabled, s.read_running);
	}
	run_done(&r);
}

TEST(read_group_has_every_member)
{
	struct perf_event_attr attr, mattr;
	int member, i;
	char *warm;
	__u64 mid;
	struct run r;

	/* the member is opened first into the leader's group below */
	fault_attr(&attr, PERF_SAMPLE_READ | PERF_SAMPLE_PERIOD);
	attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	ASSERT_EQ(0, pt_pin_cpu(0, pt_nth_cpu(0)));
	r.fd = -1;
	{
		int leader = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

		ASSERT_LE(0, leader);
		pt_attr_sw(&mattr, PERF_COUNT_SW_PAGE_FAULTS);
		mattr.disabled = 0;
		member = sys_perf_event_open(&mattr, 0, -1, leader, PERF_FLAG_FD_CLOEXEC);
		ASSERT_LE(0, member);
		ASSERT_EQ(0, ioctl(member, PERF_EVENT_IOC_ID, &mid));
		memset(&r, 0, sizeof(r));
		r.fd = leader;
		ASSERT_EQ(0, ioctl(leader, PERF_EVENT_IOC_ID, &r.id));
		ASSERT_EQ(0, pt_rb_map(&r.rb, leader, RB_PAGES));
		r.pages = pt_map_pages(NPAGES);
		ASSERT_NE(NULL, r.pages);
		warm = pt_map_pages(NPAGES);
		ASSERT_NE(NULL, warm);
		touch_fn(warm, NPAGES);
		pt_unmap_pages(warm, NPAGES);
		ASSERT_EQ(0, ioctl(leader, PERF_EVENT_IOC_ENABLE, 0));
		touch_fn(r.pages, NPAGES);
		ASSERT_EQ(0, ioctl(leader, PERF_EVENT_IOC_DISABLE, 0));
		ASSERT_EQ(0, pt_rb_drain(&r.rb, &r.recs));
	}
	EXPECT_EQ(NPAGES, pt_recs_count(&r.recs, PERF_RECORD_SAMPLE));
	for (i = 0; i < NPAGES; i++) {
		struct pt_sample s;

		GET_SAMPLE(&attr, &r, i, &s);
		ASSERT_EQ(2, s.read_nr);
		EXPECT_EQ(i + 1, s.read[0].value);
		EXPECT_EQ(r.id, s.read[0].id);
		/* the member counted the same faults */
		EXPECT_EQ(i + 1, s.read[1].value);
		EXPECT_EQ(mid, s.read[1].id);
		EXPECT_EQ(1, s.period);
	}
	close(member);
	run_done(&r);
}

TEST(sample_read_with_inherit_needs_tid)
{
	struct perf_event_attr attr;
	int fd;

	fault_attr(&attr, PERF_SAMPLE_READ);
	attr.inherit = 1;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EINVAL, errno);
	attr.read_format = PERF_FORMAT_GROUP;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EINVAL, errno);
	attr.sample_type |= PERF_SAMPLE_TID;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	EXPECT_LE(0, fd);
	close(fd);
	attr.read_format = 0;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	EXPECT_LE(0, fd);
	close(fd);
}

TEST(raw_on_software_event_is_empty)
{
	struct perf_event_attr attr;
	struct run r;
	int i;

	fault_attr(&attr, PERF_SAMPLE_RAW | PERF_SAMPLE_PERIOD);
	ASSERT_EQ(0, fault_run(&attr, &r, -1));
	for (i = 0; i < NPAGES; i++) {
		struct pt_sample s;

		GET_SAMPLE(&attr, &r, i, &s);
		/* u32 size + 4 bytes of zero padding to keep u64 alignment */
		EXPECT_EQ(4, s.raw_size);
		EXPECT_EQ(0, s.raw[0] | s.raw[1] | s.raw[2] | s.raw[3]);
		EXPECT_EQ(1, s.period);
	}
	run_done(&r);
}

TEST(branch_stack_on_software_event_eopnotsupp)
{
	struct perf_event_attr attr;

	fault_attr(&attr, PERF_SAMPLE_BRANCH_STACK);
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EOPNOTSUPP, errno);
}

#if defined(__aarch64__)
/* in register-number order: X0, X29, SP, PC */
#define REGS_MASK ((1ULL << PERF_REG_ARM64_X0) | (1ULL << PERF_REG_ARM64_X29) | \
		   (1ULL << PERF_REG_ARM64_SP) | (1ULL << PERF_REG_ARM64_PC))
#define REGS_SP_IDX	2
#define REGS_IP_IDX	3
#define REG_SP		PERF_REG_ARM64_SP
/* numbers past the last register (VG, 46, is an extended one) */
#define REG_BAD_USER	PERF_REG_ARM64_MAX
#define REG_BAD_INTR	(PERF_REG_ARM64_MAX + 1)
#define REG_PAST_MAX	(PERF_REG_ARM64_MAX + 7)
#else
/* in register-number order: AX, SP, IP, R15 */
#define REGS_MASK ((1ULL << PERF_REG_X86_IP) | (1ULL << PERF_REG_X86_SP) | \
		   (1ULL << PERF_REG_X86_AX) | (1ULL << PERF_REG_X86_R15))
#define REGS_SP_IDX	1
#define REGS_IP_IDX	2
#define REG_SP		PERF_REG_X86_SP
/* segment registers other than CS/SS do not exist in 64-bit mode */
#define REG_BAD_USER	PERF_REG_X86_DS
#define REG_BAD_INTR	PERF_REG_X86_ES
#define REG_PAST_MAX	PERF_REG_X86_64_MAX
#endif

TEST(regs_user_abi_and_ip)
{
	struct perf_event_attr attr;
	struct run r;
	char local;
	int i;

	fault_attr(&attr, PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER);
	attr.sample_regs_user = REGS_MASK;
	ASSERT_EQ(0, fault_run(&attr, &r, -1));
	for (i = 0; i < NPAGES; i++) {
		struct pt_sample s;
		__u64 sp;

		GET_SAMPLE(&attr, &r, i, &s);
		EXPECT_EQ(PERF_SAMPLE_REGS_ABI_64, s.regs_user_abi);
		ASSERT_EQ(4, s.nr_regs_user);
		EXPECT_EQ(s.ip, s.regs_user[REGS_IP_IDX]);
		sp = s.regs_user[REGS_SP_IDX];
		/* touch_fn ran below this frame, within a page or so */
		EXPECT_LT(sp, (unsigned long)&local);
		EXPECT_GT(sp + 8192, (unsigned long)&local);
	}
	run_done(&r);
}

TEST(regs_intr_of_user_fault_are_user_regs)
{
	struct perf_event_attr attr;
	struct run r;
	int i;

	fault_attr(&attr, PERF_SAMPLE_IP | PERF_SAMPLE_REGS_INTR);
	attr.sample_regs_intr = REGS_MASK;
	ASSERT_EQ(0, fault_run(&attr, &r, -1));
	for (i = 0; i < NPAGES; i++) {
		struct pt_sample s;

		GET_SAMPLE(&attr, &r, i, &s);
		EXPECT_EQ(PERF_SAMPLE_REGS_ABI_64, s.regs_intr_abi);
		ASSERT_EQ(4, s.nr_regs_intr);
		EXPECT_EQ(s.ip, s.regs_intr[REGS_IP_IDX]);
	}
	run_done(&r);
}

TEST(regs_masks_rejected)
{
	struct perf_event_attr attr;

	fault_attr(&attr, PERF_SAMPLE_REGS_USER);
	attr.sample_regs_user = 0;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EINVAL, errno);
	attr.sample_regs_user = 1ULL << REG_BAD_USER;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EINVAL, errno);
	attr.sample_regs_user = 1ULL << REG_PAST_MAX;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EINVAL, errno);
	fault_attr(&attr, PERF_SAMPLE_REGS_INTR);
	attr.sample_regs_intr = 0;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EINVAL, errno);
	attr.sample_regs_intr = 1ULL << REG_BAD_INTR;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EINVAL, errno);
}

TEST(stack_user_size_and_dyn_size)
{
	struct perf_event_attr attr;
	struct run r;
	int i;

	fault_attr(&attr, PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
	attr.sample_regs_user = 1ULL << REG_SP;
	attr.sample_stack_user = 256;
	ASSERT_EQ(0, fault_run(&attr, &r, -1));
	for (i = 0; i < NPAGES; i++) {
		struct pt_sample s;

		GET_SAMPLE(&attr, &r, i, &s);
		EXPECT_EQ(256, s.stack_size);
		/* the main thread's stack has far more than 256 bytes above sp */
		EXPECT_EQ(256, s.stack_dyn_size);
	}
	run_done(&r);
}

TEST(stack_user_sizes_rejected)
{
	struct perf_event_attr attr;
	int fd;

	fault_attr(&attr, PERF_SAMPLE_STACK_USER);
	attr.sample_stack_user = 63;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EINVAL, errno);
	attr.sample_stack_user = 65536;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EINVAL, errno);
	attr.sample_stack_user = 65528;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	EXPECT_LE(0, fd);
	close(fd);
}

/*
 * The page-fault software event fires on entry to the fault handler, before
 * the fault is resolved: a fault on a never-touched page has no page yet,
 * so PHYS_ADDR and DATA_PAGE_SIZE are 0; a copy-on-write fault (after
 * fork) finds the old page.
 */
TEST(phys_addr_root_only)
{
	struct perf_event_attr attr;
	__u64 phys0 = 0;
	struct run r;
	int i;

	fault_attr(&attr, PERF_SAMPLE_ADDR | PERF_SAMPLE_PHYS_ADDR);
	if (geteuid() != 0) {
		EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
		EXPECT_EQ(EACCES, errno);
		return;
	}
	ASSERT_EQ(0, fault_run(&attr, &r, -1));
	for (i = 0; i < NPAGES; i++) {
		struct pt_sample s;

		GET_SAMPLE(&attr, &r, i, &s);
		EXPECT_EQ((unsigned long)(r.pages + i * pt_page_size()), s.addr);
		EXPECT_EQ(0, s.phys_addr);
	}
	run_done(&r);
	ASSERT_EQ(0, fault_run_mode(&attr, &r, -1, true));
	EXPECT_EQ(NPAGES, pt_recs_count(&r.recs, PERF_RECORD_SAMPLE));
	for (i = 0; i < NPAGES; i++) {
		struct pt_sample s;

		GET_SAMPLE(&attr, &r, i, &s);
		EXPECT_EQ((unsigned long)(r.pages + i * pt_page_size()), s.addr);
		EXPECT_NE(0, s.phys_addr);
		EXPECT_EQ(0, s.phys_addr & (pt_page_size() - 1));
		EXPECT_NE(phys0, s.phys_addr);
		phys0 = s.phys_addr;
	}
	run_done(&r);
}

TEST(data_and_code_page_size)
{
	struct perf_event_attr attr;
	struct run r;
	int i;

	fault_attr(&attr, PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_PAGE_SIZE |
			  PERF_SAMPLE_CODE_PAGE_SIZE);
	ASSERT_EQ(0, fault_run(&attr, &r, -1));
	for (i = 0; i < NPAGES; i++) {
		struct pt_sample s;

		GET_SAMPLE(&attr, &r, i, &s);
		EXPECT_EQ(0, s.data_page_size);	/* not mapped yet */
		EXPECT_EQ(pt_page_size(), s.code_page_size);
	}
	run_done(&r);
	ASSERT_EQ(0, fault_run_mode(&attr, &r, -1, true));
	EXPECT_EQ(NPAGES, pt_recs_count(&r.recs, PERF_RECORD_SAMPLE));
	for (i = 0; i < NPAGES; i++) {
		struct pt_sample s;

		GET_SAMPLE(&attr, &r, i, &s);
		EXPECT_EQ(pt_page_size(), s.data_page_size);
		EXPECT_EQ(pt_page_size(), s.code_page_size);
	}
	run_done(&r);
}

TEST(hardware_only_fields_are_defaults)
{
	struct perf_event_attr attr;
	struct run r;
	int i;

	fault_attr(&attr, PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC |
			  PERF_SAMPLE_TRANSACTION);
	ASSERT_EQ(0, fault_run(&attr, &r, -1));
	for (i = 0; i < NPAGES; i++) {
		struct pt_sample s;

		GET_SAMPLE(&attr, &r, i, &s);
		EXPECT_EQ(0, s.weight);
		/* "not available" in every field */
		EXPECT_EQ(PERF_MEM_S(OP, NA) | PERF_MEM_S(LVL, NA) |
			  PERF_MEM_S(SNOOP, NA) | PERF_MEM_S(LOCK, NA) |
			  PERF_MEM_S(TLB, NA) | PERF_MEM_S(LVLNUM, NA), s.data_src);
		EXPECT_EQ(0, s.transaction);
	}
	run_done(&r);
	fault_attr(&attr, PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_TID);
	ASSERT_EQ(0, fault_run(&attr, &r, -1));
	for (i = 0; i < NPAGES; i++) {
		struct pt_sample s;

		GET_SAMPLE(&attr, &r, i, &s);
		EXPECT_EQ(0, s.weight);
	}
	run_done(&r);
}

TEST(aux_sample_on_software_event_is_empty)
{
	struct perf_event_attr attr;
	struct perf_event_header *h;
	struct run r;

	fault_attr(&attr, PERF_SAMPLE_TID | PERF_SAMPLE_AUX);
	ASSERT_EQ(0, fault_run(&attr, &r, -1));
	EXPECT_EQ(NPAGES, pt_recs_count(&r.recs, PERF_RECORD_SAMPLE));
	pt_recs_for_each(h, &r.recs, PERF_RECORD_SAMPLE) {
		ASSERT_EQ(24, h->size);
		EXPECT_EQ(0, ((__u64 *)(h + 1))[1]);	/* aux size */
	}
	run_done(&r);
	/* but an AUX sample size needs an AUX event as group leader */
	fault_attr(&attr, PERF_SAMPLE_AUX);
	attr.aux_sample_size = 64;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EINVAL, errno);
}

TEST(sample_type_errnos)
{
	struct perf_event_attr attr;

	fault_attr(&attr, PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT);
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EINVAL, errno);
	fault_attr(&attr, PERF_SAMPLE_IP | (PERF_SAMPLE_CODE_PAGE_SIZE << 2));
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EINVAL, errno);
	fault_attr(&attr, PERF_SAMPLE_IP);
	attr.sample_period = 1ULL << 63;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EINVAL, errno);
	fault_attr(&attr, PERF_SAMPLE_CALLCHAIN);
	attr.exclude_callchain_kernel = 1;
	attr.sample_max_stack = 128;	/* > perf_event_max_stack (127) */
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EOVERFLOW, errno);
}

/*
 * 6.12: at perf_event_paranoid 2 an unprivileged CALLCHAIN sample needs
 * exclude_callchain_kernel (EACCES without it); 6.18 allows it.
 */
TEST(user_callchain_needs_exclude_callchain_kernel)
{
	struct perf_event_attr attr;
	int fd;

	fault_attr(&attr, PERF_SAMPLE_CALLCHAIN);
	attr.exclude_callchain_kernel = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	EXPECT_LE(0, fd);
	close(fd);
	attr.exclude_callchain_kernel = 0;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	if (pt_can_count_kernel()) {
		EXPECT_LE(0, fd);
	} else if (pt_kernel_is_612()) {
		EXPECT_EQ(-1, fd);
		EXPECT_EQ(EACCES, errno);
	}
	if (fd >= 0)
		close(fd);
}

TEST(cgroup_sample_where_configured)
{
	struct perf_event_attr attr;
	struct run r;
	int ret, i;

	fault_attr(&attr, PERF_SAMPLE_CGROUP);
	ret = fault_run(&attr, &r, -1);
	if (ret == -EINVAL)
		SKIP(return, "kernel without CONFIG_CGROUP_PERF: PERF_SAMPLE_CGROUP is EINVAL");
	ASSERT_EQ(0, ret);
	for (i = 0; i < NPAGES; i++) {
		struct pt_sample s;

		GET_SAMPLE(&attr, &r, i, &s);
		EXPECT_NE(0, s.cgroup);
	}
	run_done(&r);
}

TEST_HARNESS_MAIN
