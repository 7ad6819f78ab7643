// SPDX-License-Identifier: GPL-2.0
/*
 * The arm64 perf semantics of Documentation/arch/arm64/perf.rst, through
 * upstream's PMUv3 driver (drivers/perf/arm_pmuv3.c) on our core, and the
 * same on the stock kernel (make arm64-test boots both):
 *
 * - hardware counters: instructions counted exactly (QEMU counts them only
 *   under -icount: the icount boot), cycles and instructions read as one
 *   group, SW_INCR, which nothing writes, at exactly 0;
 * - exclude_user / exclude_kernel per exception level: a loop of a known
 *   number of EL0 instructions adds exactly that many to an EL0 count, and
 *   in one window the EL0 count and the kernel's (EL1, or EL2 on a VHE
 *   host) add up exactly to the count of both;
 * - userspace counter access: kernel/perf_user_access, the rdpmc format bit
 *   (config1:1), the control page's cap_user_rdpmc, index and pmc_width,
 *   the counter read from EL0 in the seqlock loop, EL0 access open only
 *   to a task with such an event (our core's ctx->nr_user, read through
 *   perf_cpu_task_ctx()), and the refusals: a CPU event (EINVAL), a
 *   disabled event (index 0), the sysctl off (index 0, and a trap); the
 *   page's clock fields (the generic timer to the perf clock) extend
 *   time_enabled/time_running to what read() says, and date a sample;
 * - 64-bit counters (config1:0): a cycles count past 2^32 in the cycle
 *   counter and in an event counter (chained on a PMU whose counters are
 *   32 bits) agree exactly.
 *
 * Other arches: every test skips.
 */
#include "perf_test.h"

#include <setjmp.h>
#include <signal.h>

#include "kselftest_harness.h"

#if defined(__aarch64__)

#include <asm/hwcap.h>
#include <asm/perf_regs.h>
#include <sys/auxv.h>
#include <sys/prctl.h>

#define USER_ACCESS	"/proc/sys/kernel/perf_user_access"
#define EV_SW_INCR	0x00
#define EV_INST_RETIRED	0x08
#define EV_CPU_CYCLES	0x11
#define CFG1_LONG	(1ULL << 0)
#define CFG1_RDPMC	(1ULL << 1)

#define PMU_DIR		"/sys/bus/event_source/devices/armv8_pmuv3"

/* the PMUv3 PMU's own (dynamic) type */
static int pmu_type(void)
{
	return pt_pmu_type(PMU_DIR);
}

static void raw_attr(struct perf_event_attr *attr, __u64 event, __u64 config1)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = pmu_type();
	attr->config = event;
	attr->config1 = config1;
	attr->disabled = 1;
	attr->exclude_hv = 1;
}

static int raw_open(__u64 event, __u64 config1, int excl_user, int excl_kernel,
		    int group)
{
	struct perf_event_attr attr;

	raw_attr(&attr, event, config1);
	attr.exclude_user = excl_user;
	attr.exclude_kernel = excl_kernel;
	if (group >= 0)
		attr.disabled = 0;
	return sys_perf_event_open(&attr, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

/* @n iterations of two EL0 instructions, and nothing else */
static void __attribute__((noinline)) el0_loop(unsigned long n)
{
	asm volatile("1:	subs	%0, %0, #1\n"
		     "	b.ne	1b\n"
		     : "+r"(n) : : "cc");
}

/* the count of one enable, loop, disable */
static __u64 count_loop(int fd, unsigned long n)
{
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	el0_loop(n);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	return pt_read1(fd);
}

/*
 * QEMU counts instructions only under -icount: elsewhere the event is
 * refused, or opens and counts nothing. Whether this machine counts them.
 */
static bool instructions_count(void)
{
	static int counts = -1;
	int fd;

	if (counts >= 0)
		return counts;
	fd = raw_open(EV_INST_RETIRED, 0, 0, 1, -1);
	counts = fd >= 0 && count_loop(fd, 1000) >= 2000;
	if (fd >= 0)
		close(fd);
	return counts;
}

#define NEED_INSTRUCTIONS()						\
	do {								\
		if (!instructions_count())				\
			SKIP(return, "instructions are not counted: QEMU " \
			     "counts them only under -icount (the icount " \
			     "boots)");					\
	} while (0)

TEST(el0_loop_counts_exactly_with_exclude_kernel)
{
	__u64 a, b;
	int fd;

	NEED_INSTRUCTIONS();
	fd = raw_open(EV_INST_RETIRED, 0, 0, 1, -1);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	count_loop(fd, 1000);	/* warm: the loop's page and the paths */
	a = count_loop(fd, 1000);
	b = count_loop(fd, 101000);
	/* the ioctls' own EL0 instructions cancel out */
	EXPECT_EQ(2 * 100000, b - a);
	close(fd);
}

/*
 * One window, three counters of the same instructions: EL0 only, the
 * kernel only (EL1, or EL2 under VHE, interrupts included) and both. The
 * levels split the count exactly: both == EL0 + kernel.
 */
TEST(exception_levels_split_the_count_exactly)
{
	struct { __u64 nr, v[3]; } g;
	struct perf_event_attr attr;
	int both, user, kern, i;

	if (!pt_can_count_kernel())
		SKIP(return, "counting the kernel needs paranoid < 2 or root");
	NEED_INSTRUCTIONS();
	raw_attr(&attr, EV_INST_RETIRED, 0);
	attr.read_format = PERF_FORMAT_GROUP;
	both = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, both) TH_LOG("%s", strerror(errno));
	user = raw_open(EV_INST_RETIRED, 0, 0, 1, both);
	ASSERT_LE(0, user);
	kern = raw_open(EV_INST_RETIRED, 0, 1, 0, both);
	ASSERT_LE(0, kern);
	ASSERT_EQ(0, ioctl(both, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP));
	el0_loop(100000);
	for (i = 0; i < 100; i++)
		syscall(SYS_getppid);
	ASSERT_EQ(0, ioctl(both, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP));
	ASSERT_EQ(sizeof(g), read(both, &g, sizeof(g)));
	EXPECT_EQ(3, g.nr);
	EXPECT_EQ(g.v[0], g.v[1] + g.v[2]);
	EXPECT_LE(200000, g.v[1]);
	/* a hundred system calls are the kernel's at least */
	EXPECT_LE(100 * 10, g.v[2]);
	close(kern);
	close(user);
	close(both);
}

TEST(cycles_and_instructions_read_as_one_group)
{
	struct { __u64 nr, v[3]; } g;
	struct perf_event_attr attr;
	int lead, fi, fr;

	NEED_INSTRUCTIONS();
	raw_attr(&attr, EV_CPU_CYCLES, 0);
	attr.read_format = PERF_FORMAT_GROUP;
	attr.exclude_kernel = 1;
	lead = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, lead) TH_LOG("%s", strerror(errno));
	fi = raw_open(EV_INST_RETIRED, 0, 0, 1, lead);
	ASSERT_LE(0, fi);
	/* the generic instructions event is the same counter */
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fr = sys_perf_event_open(&attr, 0, -1, lead, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fr) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, ioctl(lead, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP));
	el0_loop(50000);
	ASSERT_EQ(0, ioctl(lead, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP));
	ASSERT_EQ(sizeof(g), read(lead, &g, sizeof(g)));
	EXPECT_EQ(3, g.nr);
	EXPECT_LE(100000, g.v[1]);
	/* both count the same instructions, enabled and disabled together */
	EXPECT_EQ(g.v[1], g.v[2]);
	EXPECT_LT(0, g.v[0]);
	close(fr);
	close(fi);
	close(lead);
}

TEST(sw_incr_that_nothing_writes_stays_zero)
{
	int fd = raw_open(EV_SW_INCR, 0, 0, 1, -1);

	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, count_loop(fd, 100000));
	close(fd);
}

/*
 * The PMU has a dynamic type, yet PERF_TYPE_RAW and the generic types
 * reach it: the same counter whichever type names it
 */
TEST(raw_and_generic_types_reach_the_pmu)
{
	struct perf_event_attr attr;
	__u64 a, b;
	int fd;

	ASSERT_LT(PERF_TYPE_MAX, pmu_type()) TH_LOG("no " PMU_DIR);
	raw_attr(&attr, EV_CPU_CYCLES, 0);
	attr.type = PERF_TYPE_RAW;
	attr.exclude_kernel = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("PERF_TYPE_RAW: %s", strerror(errno));
	a = count_loop(fd, 100000);
	EXPECT_LT(0, a);
	close(fd);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("PERF_TYPE_HARDWARE: %s", strerror(errno));
	b = count_loop(fd, 100000);
	EXPECT_LT(0, b);
	close(fd);
	/* a type no PMU has */
	attr.type = PERF_TYPE_MAX + 1000;
	EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(ENOENT, errno);
}

/* ---- userspace counter access ---------------------------------------- */

static sigjmp_buf trap_jmp;

static void on_sigill(int sig)
{
	siglongjmp(trap_jmp, 1);
}

static __u64 read_pmccntr(void)
{
	__u64 v;

	asm volatile("mrs %0, pmccntr_el0" : "=r"(v));
	return v;
}

/* event counter @n, through PMSELR_EL0 (zeroed when the lock changes) */
static __u64 read_pmevcntr(unsigned int n)
{
	__u64 v;

	asm volatile("msr pmselr_el0, %1\n"
		     "isb\n"
		     "mrs %0, pmxevcntr_el0" : "=r"(v) : "r"((__u64)n));
	return v;
}

/* 1: reading the cycle counter from EL0 traps (SIGILL) */
static int el0_read_traps(void)
{
	struct sigaction sa = { .sa_handler = on_sigill }, old;
	int trapped = 0;

	sigaction(SIGILL, &sa, &old);
	if (sigsetjmp(trap_jmp, 1))
		trapped = 1;
	else
		read_pmccntr();
	sigaction(SIGILL, &old, NULL);
	return trapped;
}

/*
 * The self-monitoring read of perf_event_mmap_page: retry while lock
 * changes. Return: 0 with *v = offset + the counter sign-extended from
 * pmc_width bits (uapi perf_event.h), or -1 when the page offers no index.
 */
static int user_read(volatile struct perf_event_mmap_page *pc, __u64 *v)
{
	__u32 seq, idx, width;
	__u64 cnt, off;

	do {
		seq = pc->lock;
		__sync_synchronize();
		idx = pc->index;
		off = pc->offset;
		width = pc->pmc_width;
		if (!pc->cap_user_rdpmc || !idx)
			return -1;
		cnt = idx == 32 ? read_pmccntr() : read_pmevcntr(idx - 1);
		if (width < 64)
			cnt = (__u64)((__s64)(cnt << (64 - width)) >> (64 - width));
		__sync_synchronize();
	} while (pc->lock != seq);
	*v = off + cnt;
	return 0;
}

FIXTURE(uacc)
{
	long long saved;
};

FIXTURE_SETUP(uacc)
{
	if (geteuid())
		SKIP(return, "root only: sets kernel/perf_user_access");
	ASSERT_EQ(0, pt_read_int_file(USER_ACCESS, &self->saved))
		TH_LOG("no " USER_ACCESS);
}

FIXTURE_TEARDOWN(uacc)
{
	if (!geteuid())
		pt_write_int_file(USER_ACCESS, self->saved);
}

static void *map_page(int fd)
{
	void *p = mmap(NULL, pt_page_size(), PROT_READ, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* A cycles event of this task with the rdpmc bit, mapped and enabled. */
static int open_user_read(__u64 config1, struct perf_event_mmap_page **pc)
{
	int fd = raw_open(EV_CPU_CYCLES, CFG1_RDPMC | config1, 0, 1, -1);

	if (fd < 0)
		return -1;
	*pc = map_page(fd);
	if (!*pc || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The counter read from EL0 lies between two read()s of the fd. */
static void expect_read_between(struct __test_metadata *_metadata, int fd,
				struct perf_event_mmap_page *pc)
{
	__u64 before, mid, after;

	before = pt_read1(fd);
	ASSERT_EQ(0, user_read(pc, &mid));
	after = pt_read1(fd);
	EXPECT_LE(before, mid);
	EXPECT_LE(mid, after);
}

TEST_F(uacc, sysctl_off_gives_no_index_and_el0_traps)
{
	struct perf_event_mmap_page *pc;
	int fd;

	ASSERT_EQ(0, pt_write_int_file(USER_ACCESS, 0));
	fd = open_user_read(0, &pc);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	/* the driver marks the event readable; the sysctl withholds it */
	EXPECT_EQ(1, (int)pc->cap_user_rdpmc);
	EXPECT_EQ(0, pc->index);
	EXPECT_EQ(1, el0_read_traps());
	munmap(pc, pt_page_size());
	close(fd);
}

TEST_F(uacc, cycles_read_from_el0_in_the_seqlock_loop)
{
	struct perf_event_mmap_page *pc;
	__u64 mid;
	int fd;

	ASSERT_EQ(0, pt_write_int_file(USER_ACCESS, 1));
	fd = open_user_read(0, &pc);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	el0_loop(1000);
	EXPECT_EQ(1, (int)pc->cap_user_rdpmc);
	/*
	 * the cycle counter is counter 31, index 32, unless the NMI
	 * watchdog's pinned cycles event holds it: then an event counter
	 */
	EXPECT_LE(1, pc->index);
	EXPECT_GE(32, pc->index);
	EXPECT_EQ(32, pc->pmc_width);
	EXPECT_EQ(0, el0_read_traps());
	expect_read_between(_metadata, fd, pc);
	/* a disabled event has no counter to read */
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	EXPECT_EQ(0, pc->index);
	EXPECT_EQ(-1, user_read(pc, &mid));
	munmap(pc, pt_page_size());
	close(fd);
}

/* the generic timer's virtual count, as EL0 reads it (CNTKCTL_EL1 lets it) */
static __u64 read_cntvct(void)
{
	__u64 v;

	asm volatile("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}

/*
 * The control page's clock, the uapi header's way: the counter (widened
 * by time_cycles/time_mask for a short one) in ns, added to time_offset
 * (the time since time_enabled/time_running were taken: *enabled,
 * *running) and to time_zero (the perf clock: *clock). Return: 0, or -1
 * when the page offers no clock.
 */
static int page_times(volatile struct perf_event_mmap_page *pc,
		      __u64 *enabled, __u64 *running, __u64 *clock)
{
	__u64 cyc, quot, rem, ns;
	__u32 seq;

	do {
		seq = pc->lock;
		__sync_synchronize();
		if (!pc->cap_user_time || !pc->cap_user_time_zero)
			return -1;
		cyc = read_cntvct();
		if (pc->cap_user_time_short)
			cyc = pc->time_cycles +
			      ((cyc - pc->time_cycles) & pc->time_mask);
		quot = cyc >> pc->time_shift;
		rem = cyc & (((__u64)1 << pc->time_shift) - 1);
		ns = quot * pc->time_mult +
		     ((rem * pc->time_mult) >> pc->time_shift);
		*enabled = pc->time_enabled + pc->time_offset + ns;
		*running = pc->time_running +
			   (pc->index ? pc->time_offset + ns : 0);
		*clock = pc->time_zero + ns;
		__sync_synchronize();
	} while (pc->lock != seq);
	return 0;
}

/*
 * arm_pmuv3 gives a user-read event the clock fields (sched_clock runs
 * on the generic timer), and our core hands it the perf clock at which
 * it took time_enabled and time_running: extended to now by the page,
 * both lie between two read()s. time_zero turns the timer into the
 * perf clock of a sample's TIME. (1 ns either side: the page's and
 * sched_clock's roundings of the same count.)
 */
TEST_F(uacc, control_page_clock_extends_the_times_and_dates_samples)
{
	struct perf_event_attr attr;
	struct perf_event_mmap_page *pc;
	__u64 bef[3], aft[3], en, run, clk0, clk1, x;
	struct perf_event_header *h;
	struct pt_recs r;
	struct pt_rb rb;
	int fd, sfd, k, n = 0;

	ASSERT_EQ(0, pt_write_int_file(USER_ACCESS, 1));
	raw_attr(&attr, EV_CPU_CYCLES, CFG1_RDPMC);
	attr.exclude_kernel = 1;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	pc = map_page(fd);
	ASSERT_NE(NULL, pc);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	el0_loop(100000);
	EXPECT_EQ(1, (int)pc->cap_user_time);
	EXPECT_EQ(1, (int)pc->cap_user_time_zero);
	EXPECT_EQ(1, (int)pc->cap_user_time_short);
	for (k = 0; k < 50; k++) {
		ASSERT_EQ(24, read(fd, bef, sizeof(bef)));
		ASSERT_EQ(0, page_times(pc, &en, &run, &clk0));
		ASSERT_EQ(24, read(fd, aft, sizeof(aft)));
		EXPECT_LE(bef[1], en + 1);
		EXPECT_GE(aft[1] + 1, en);
		EXPECT_LE(bef[2], run + 1);
		EXPECT_GE(aft[2] + 1, run);
		if (k == 25)	/* and after a switch away and back */
			usleep(1000);
	}
	/* a page fault's sample, dated between two clock reads of the page */
	pt_attr_sample(&attr, PERF_COUNT_SW_PAGE_FAULTS, 1, PERF_SAMPLE_TIME);
	attr.exclude_kernel = 1;
	sfd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, sfd);
	ASSERT_EQ(0, pt_rb_map(&rb, sfd, 8));
	ASSERT_EQ(0, page_times(pc, &en, &run, &clk0));
	ASSERT_EQ(0, ioctl(sfd, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, pt_fault_pages(1));
	ASSERT_EQ(0, ioctl(sfd, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, page_times(pc, &en, &run, &clk1));
	ASSERT_EQ(0, pt_rb_drain(&rb, &r));
	pt_recs_for_each(h, &r, PERF_RECORD_SAMPLE) {
		memcpy(&x, h + 1, sizeof(x));
		EXPECT_LE(clk0, x + 1);
		EXPECT_GE(clk1 + 1, x);
		n++;
	}
	EXPECT_LE(1, n);
	pt_recs_free(&r);
	pt_rb_unmap(&rb);
	close(sfd);
	munmap(pc, pt_page_size());
	close(fd);
}

TEST_F(uacc, event_counter_read_and_long_width)
{
	struct perf_event_mmap_page *pc;
	int fd, fl;

	ASSERT_EQ(0, pt_write_int_file(USER_ACCESS, 1));
	/* an event counter (instructions only under -icount: cycles twice) */
	fl = raw_open(EV_CPU_CYCLES, 0, 0, 1, -1);
	ASSERT_LE(0, fl);
	ASSERT_EQ(0, ioctl(fl, PERF_EVENT_IOC_ENABLE, 0));
	fd = open_user_read(0, &pc);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(1, (int)pc->cap_user_rdpmc);
	EXPECT_LE(1, pc->index);
	EXPECT_GE(31, pc->index);
	EXPECT_EQ(32, pc->pmc_width);
	expect_read_between(_metadata, fd, pc);
	munmap(pc, pt_page_size());
	close(fd);
	close(fl);

	/*
	 * config1:0 asks for 64 bits: a cycles event may always have them
	 * (the cycle counter); another event needs PMUv3p5's long counters,
	 * else EOPNOTSUPP (user access never chains)
	 */
	fd = raw_open(EV_CPU_CYCLES, CFG1_RDPMC | CFG1_LONG, 0, 1, -1);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	pc = map_page(fd);
	ASSERT_NE(NULL, pc);
	EXPECT_EQ(64, pc->pmc_width);
	munmap(pc, pt_page_size());
	close(fd);
}

/* A child pinned to @cpu that exits 0 when its EL0 read traps. */
static int child_traps_on(int cpu)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (pt_pin_cpu(0, cpu))
			_exit(2);
		_exit(el0_read_traps() ? 0 : 1);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * arm_pmuv3 sets PMUSERENR_EL0 in its start(), which pmu_enable() calls
 * only while a counter of the CPU is in use: on a CPU whose PMU is idle
 * the last setting stays (stock and ours alike). A CPU event of each CPU
 * on an event counter keeps a counter in use everywhere, so every
 * switch decides afresh from perf_cpu_task_ctx(), which our core must
 * have cleared before the pmu_enable() that follows the task's del().
 * The test pins itself to CPU 0; the children run after it on CPU 0
 * (it waits for them there) and on the last CPU.
 */
TEST_F(uacc, el0_access_follows_the_task_with_the_event)
{
	int ncpu = pt_nr_cpus();
	struct perf_event_attr attr;
	int fd, cpu, cpufd[64];

	ASSERT_LT(0, ncpu);
	if (ncpu > 64)
		ncpu = 64;
	ASSERT_EQ(0, pt_pin_cpu(0, 0));
	raw_attr(&attr, EV_INST_RETIRED, 0);
	attr.disabled = 0;
	attr.pinned = 1;
	for (cpu = 0; cpu < ncpu; cpu++) {
		cpufd[cpu] = sys_perf_event_open(&attr, -1, cpu, -1,
						 PERF_FLAG_FD_CLOEXEC);
		ASSERT_LE(0, cpufd[cpu]) TH_LOG("cpu %d: %s", cpu, strerror(errno));
	}
	ASSERT_EQ(0, pt_write_int_file(USER_ACCESS, 1));
	/* a task without a user-read event: EL0 access stays shut */
	EXPECT_EQ(1, el0_read_traps());
	fd = raw_open(EV_CPU_CYCLES, CFG1_RDPMC, 0, 1, -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	EXPECT_EQ(0, el0_read_traps());
	/* children, not inherited: no access, here or elsewhere */
	EXPECT_EQ(0, child_traps_on(0));
	EXPECT_EQ(0, child_traps_on(ncpu - 1));
	/* after switches to the children and back, still open here */
	EXPECT_EQ(0, el0_read_traps());
	close(fd);
	for (cpu = 0; cpu < ncpu; cpu++)
		close(cpufd[cpu]);
}

TEST_F(uacc, refusals)
{
	struct perf_event_attr attr;
	int fd;

	ASSERT_EQ(0, pt_write_int_file(USER_ACCESS, 1));
	/* not a task event */
	raw_attr(&attr, EV_CPU_CYCLES, CFG1_RDPMC);
	EXPECT_EQ(-1, sys_perf_event_open(&attr, -1, 0, -1, 0));
	EXPECT_EQ(EINVAL, errno);
	/* the sysctl refuses anything but 0 and 1 */
	EXPECT_NE(0, pt_write_int_file(USER_ACCESS, 2));
	/* turning it off shuts EL0 access at once */
	fd = raw_open(EV_CPU_CYCLES, CFG1_RDPMC, 0, 1, -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	EXPECT_EQ(0, el0_read_traps());
	ASSERT_EQ(0, pt_write_int_file(USER_ACCESS, 0));
	EXPECT_EQ(1, el0_read_traps());
	close(fd);
}

/* ---- VG, the extended register --------------------------------------- */

/*
 * PERF_SAMPLE_REGS_USER with VG (SVE's vector length in 64-bit granules,
 * arm64's one extended register): the core lets it through to a PMU with
 * PERF_PMU_CAP_EXTENDED_REGS (arm_pmu), and each sample carries the
 * task's vector length as it is then: 4 at a 32-byte vector, 2 at 16.
 */
TEST(vg_is_sampled_as_the_tasks_vector_length)
{
	static const int vls[] = { 32, 16 };
	struct perf_event_attr attr;
	unsigned int k;

	if (!(getauxval(AT_HWCAP) & HWCAP_SVE))
		SKIP(return, "no SVE: VG is a reserved register bit");
	for (k = 0; k < 2; k++) {
		struct perf_event_header *h;
		struct pt_rb rb;
		struct pt_recs r;
		int fd, n = 0;

		ASSERT_EQ(vls[k], prctl(PR_SVE_SET_VL, vls[k]) & PR_SVE_VL_LEN_MASK);
		raw_attr(&attr, EV_CPU_CYCLES, 0);
		attr.exclude_kernel = 1;
		attr.sample_period = 200000;
		attr.sample_type = PERF_SAMPLE_REGS_USER;
		attr.sample_regs_user = (1ULL << PERF_REG_ARM64_PC) |
					(1ULL << PERF_REG_ARM64_VG);
		fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
		ASSERT_EQ(0, pt_rb_map(&rb, fd, 8));
		ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
		el0_loop(3000000);
		ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
		ASSERT_EQ(0, pt_rb_drain(&rb, &r));
		pt_recs_for_each(h, &r, PERF_RECORD_SAMPLE) {
			/* abi, then PC (bit 32), then VG (bit 46) */
			__u64 *v = (void *)(h + 1);

			n++;
			EXPECT_EQ(PERF_SAMPLE_REGS_ABI_64, v[0]);
			EXPECT_EQ(vls[k] * 8 / 64, v[2]) TH_LOG("VG %llu", v[2]);
		}
		EXPECT_LT(0, n);
		pt_recs_free(&r);
		pt_rb_unmap(&rb);
		close(fd);
	}
}

/* ---- 64-bit counters ------------------------------------------------- */

/*
 * Cycles past 2^32, in the cycle counter (64 bits) and in an event
 * counter with config1:0, which the driver chains where counters are 32
 * bits (cortex-a57's PMUv3) or gives a long counter (PMUv3p5). Under
 * -icount the cycle counter runs at 1 GHz of virtual time, so the boot's
 * icount shift sets how many cycles an instruction takes.
 */
FIXTURE(big)
{
};

FIXTURE_SETUP(big)
{
}

FIXTURE_TEARDOWN(big)
{
}

TEST_F_TIMEOUT(big, long_counters_agree_past_2_to_the_32, 150)
{
	struct { __u64 nr, v[2]; } g;
	struct perf_event_attr attr;
	int lead, fd;
	__u64 c0 = 0;

	raw_attr(&attr, EV_CPU_CYCLES, CFG1_LONG);
	attr.read_format = PERF_FORMAT_GROUP;
	attr.exclude_kernel = 1;
	lead = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, lead) TH_LOG("%s", strerror(errno));
	fd = raw_open(EV_CPU_CYCLES, CFG1_LONG, 0, 1, lead);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, ioctl(lead, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP));
	do {
		el0_loop(1000000);
		ASSERT_EQ(sizeof(g), read(lead, &g, sizeof(g)));
		if (!c0 && !g.v[0])
			SKIP(return, "the cycle counter does not run");
		/*
		 * A chained pair whose high half never counts wraps at 2^32:
		 * the PMU lacks the CHAIN event (QEMU 7.2's cortex-a57)
		 */
		if (g.v[0] < c0 && access(PMU_DIR "/events/chain", F_OK))
			SKIP(return, "the count wrapped at 2^32 and the PMU has "
			     "no CHAIN event (0x1e) for its high half");
		ASSERT_LE(c0, g.v[0]) TH_LOG("the count went back: %llu < %llu",
					     g.v[0], c0);
		c0 = g.v[0];
	} while (g.v[0] <= (1ULL << 32));
	ASSERT_EQ(0, ioctl(lead, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP));
	ASSERT_EQ(sizeof(g), read(lead, &g, sizeof(g)));
	EXPECT_LT(1ULL << 32, g.v[0]);
	if (instructions_count()) {
		/* -icount: both count the same virtual clock, exactly */
		EXPECT_EQ(g.v[0], g.v[1]);
	} else {
		/*
		 * MTTCG: QEMU reads the host's clock for each counter apart,
		 * and a busy host can preempt its vCPU between the two: they
		 * agree to 1/1000 (1.1/10000 seen beside a kernel build)
		 */
		EXPECT_GT(g.v[0] / 1000, g.v[0] > g.v[1] ? g.v[0] - g.v[1] :
			  g.v[1] - g.v[0]);
	}
	close(fd);
	close(lead);
}

#else /* !__aarch64__ */

TEST(arm64_only)
{
	SKIP(return, "arm64's PMUv3 semantics");
}

#endif

TEST_HARNESS_MAIN
