// SPDX-License-Identifier: GPL-2.0
/*
 * exclude_host and exclude_guest (Documentation/arch/arm64/perf.rst) with a
 * KVM guest: the test is its own VMM. It gives a vCPU a few instructions of
 * guest code at EL1, MMU off, that count down a register and then store to
 * an address no memory slot backs, which exits to us (KVM_EXIT_MMIO). The
 * VMM thread's task events see the guest while KVM_RUN is in the kernel;
 * the PMU driver (arm_pmuv3) and KVM (arch/arm64/kvm/pmu.c) split what is
 * counted by the attributes, through our core:
 *
 * - exclude_host counts the guest alone: exactly the loop's instructions;
 * - exclude_guest leaves the guest out: the host's count does not grow
 *   with the loop;
 * - the two add up exactly to an event that excludes neither, in one
 *   window (one group, enabled and disabled with the PMU held);
 * - samples taken while the guest runs say so: cpumode GUEST_KERNEL, the
 *   guest's PC as the IP, the VMM's pid and tid.
 *
 * The same holds on a VHE host (the host kernel at EL2, the guest at EL1:
 * the PMU's exception-level filters split them) and on an nVHE host
 * (kvm-arm.mode=nvhe, both kernels at EL1: KVM turns counters on and off
 * at the world switch); make arm64-test boots both with -icount, where
 * QEMU counts instructions exactly. Every attribute is the same on both:
 * exclude_user (the VMM's EL0 code is not the point), exclude_hv (nVHE's
 * EL2 is KVM's world switch; a VHE host ignores it).
 *
 * Needs /dev/kvm (the kernel entered at EL2: virtualization=on) and
 * instructions counted (-icount); skips otherwise. Other arches: skips.
 */
#include "perf_test.h"

#include <fcntl.h>
#include <sys/mman.h>

#include "kselftest_harness.h"

#if defined(__aarch64__)

#include <linux/kvm.h>

#define PMU_DIR		"/sys/bus/event_source/devices/armv8_pmuv3"
#define EV_INST_RETIRED	0x08

#define CODE_GPA	0x100000ULL	/* the guest code's page */
#define MEM_SIZE	0x10000ULL
#define MMIO_GPA	0x200000ULL	/* no slot: a store here exits */

/*
 * x2: the loop count, x1: MMIO_GPA. After the exit the store is done
 * (KVM emulates it and steps over it on the next KVM_RUN) and the branch
 * starts again: every run after the first retires b, mov and the 2n loop
 * instructions in the guest; the store traps, so it does not retire.
 */
extern const unsigned int guest_code[], guest_code_end[];
asm(".pushsection .rodata\n"
    ".balign 4\n"
    ".global guest_code\n"
    "guest_code:\n"
    "0:	mov	x0, x2\n"
    "1:	subs	x0, x0, #1\n"
    "	b.ne	1b\n"
    "	str	x0, [x1]\n"
    "	b	0b\n"
    ".global guest_code_end\n"
    "guest_code_end:\n"
    ".popsection\n");

struct guest {
	int kvm, vm, vcpu;
	struct kvm_run *run;
	size_t run_size;
	void *mem;
};

#define CORE_REG(r) (KVM_REG_ARM64 | KVM_REG_SIZE_U64 | KVM_REG_ARM_CORE | \
		     KVM_REG_ARM_CORE_REG(r))

static int set_reg(struct guest *g, __u64 id, __u64 val)
{
	struct kvm_one_reg reg = { .id = id, .addr = (unsigned long)&val };

	return ioctl(g->vcpu, KVM_SET_ONE_REG, &reg);
}

static void guest_close(struct guest *g)
{
	if (g->run)
		munmap(g->run, g->run_size);
	if (g->mem)
		munmap(g->mem, MEM_SIZE);
	if (g->vcpu >= 0)
		close(g->vcpu);
	if (g->vm >= 0)
		close(g->vm);
	if (g->kvm >= 0)
		close(g->kvm);
}

/* A VM with one vCPU at guest_code; 0, or a string saying what failed */
static const char *guest_open(struct guest *g)
{
	struct kvm_userspace_memory_region slot = {
		.slot = 0,
		.guest_phys_addr = CODE_GPA,
		.memory_size = MEM_SIZE,
	};
	struct kvm_vcpu_init init;
	long sz;

	memset(g, 0, sizeof(*g));
	g->vm = g->vcpu = -1;
	g->kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (g->kvm < 0)
		return "no /dev/kvm (the kernel entered at EL1: a boot without virtualization=on)";
	g->vm = ioctl(g->kvm, KVM_CREATE_VM, 0);
	if (g->vm < 0)
		return "KVM_CREATE_VM";
	g->mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->mem == MAP_FAILED) {
		g->mem = NULL;
		return "mmap";
	}
	memcpy(g->mem, guest_code,
	       (char *)guest_code_end - (char *)guest_code);
	slot.userspace_addr = (unsigned long)g->mem;
	if (ioctl(g->vm, KVM_SET_USER_MEMORY_REGION, &slot))
		return "KVM_SET_USER_MEMORY_REGION";
	g->vcpu = ioctl(g->vm, KVM_CREATE_VCPU, 0);
	if (g->vcpu < 0)
		return "KVM_CREATE_VCPU";
	if (ioctl(g->vm, KVM_ARM_PREFERRED_TARGET, &init) ||
	    ioctl(g->vcpu, KVM_ARM_VCPU_INIT, &init))
		return "KVM_ARM_VCPU_INIT";
	sz = ioctl(g->kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (sz <= 0)
		return "KVM_GET_VCPU_MMAP_SIZE";
	g->run_size = sz;
	g->run = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, g->vcpu, 0);
	if (g->run == MAP_FAILED) {
		g->run = NULL;
		return "mmap of kvm_run";
	}
	/* reset left it at EL1h, interrupts masked, MMU off */
	if (set_reg(g, CORE_REG(regs.pc), CODE_GPA) ||
	    set_reg(g, CORE_REG(regs.regs[1]), MMIO_GPA))
		return "KVM_SET_ONE_REG";
	return NULL;
}

/* One KVM_RUN: the guest counts @n down and stores to MMIO_GPA */
static int guest_run(struct guest *g, __u64 n)
{
	if (set_reg(g, CORE_REG(regs.regs[2]), n))
		return -1;
	if (ioctl(g->vcpu, KVM_RUN, 0))
		return -1;
	if (g->run->exit_reason != KVM_EXIT_MMIO ||
	    g->run->mmio.phys_addr != MMIO_GPA || !g->run->mmio.is_write)
		return -1;
	return 0;
}

#define GUEST_OPEN(g)							\
	do {								\
		const char *why;					\
		if (geteuid())						\
			SKIP(return, "/dev/kvm is root's");		\
		why = guest_open(g);					\
		if (why) {						\
			guest_close(g);					\
			SKIP(return, "%s: %s", why, strerror(errno));	\
		}							\
		/* the first run starts past the branch: warm up */	\
		ASSERT_EQ(0, guest_run(g, 10));				\
	} while (0)

/* instructions, never EL0, with exclude_host/exclude_guest as given */
static int inst_open(int excl_host, int excl_guest, int group, __u64 period)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = pt_pmu_type(PMU_DIR);
	attr.config = EV_INST_RETIRED;
	attr.disabled = group < 0;
	attr.exclude_user = 1;
	attr.exclude_hv = 1;
	attr.exclude_host = excl_host;
	attr.exclude_guest = excl_guest;
	if (group < 0)
		attr.read_format = PERF_FORMAT_GROUP;
	if (period) {
		attr.sample_period = period;
		attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
		attr.read_format = 0;
	}
	return sys_perf_event_open(&attr, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

struct split {
	__u64 both, host, guest;
};

/*
 * Both, host only and guest only over one KVM_RUN of @n. The leader alone
 * is enabled and disabled: the group goes on and off the PMU at once,
 * its members enabled all along. (With PERF_IOC_FLAG_GROUP, 6.12 enables
 * the disabled members one after the other, and the leader counts the
 * kernel's work on the others: about 20000 instructions on the stock
 * KASAN kernel.)
 */
static int measure(struct guest *g, int lead, __u64 n, struct split *s)
{
	struct { __u64 nr, v[3]; } r;

	if (ioctl(lead, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP) ||
	    ioctl(lead, PERF_EVENT_IOC_ENABLE, 0) ||
	    guest_run(g, n) ||
	    ioctl(lead, PERF_EVENT_IOC_DISABLE, 0) ||
	    read(lead, &r, sizeof(r)) != sizeof(r) || r.nr != 3)
		return -1;
	s->both = r.v[0];
	s->host = r.v[1];
	s->guest = r.v[2];
	return 0;
}

/* the guest's instructions in a run of @n after the first (see guest_code) */
#define GUEST_INSNS(n)	(2 * (n) + 2)

FIXTURE(kvm) {
	struct guest g;
	int lead, host, guest;
};

FIXTURE_SETUP(kvm)
{
	struct split s;

	self->lead = self->host = self->guest = -1;
	GUEST_OPEN(&self->g);
	self->lead = inst_open(0, 0, -1, 0);
	ASSERT_LE(0, self->lead) TH_LOG("%s", strerror(errno));
	self->host = inst_open(0, 1, self->lead, 0);
	ASSERT_LE(0, self->host) TH_LOG("%s", strerror(errno));
	self->guest = inst_open(1, 0, self->lead, 0);
	ASSERT_LE(0, self->guest) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, measure(&self->g, self->lead, 1000, &s));
	if (s.guest < 2000)
		SKIP(return, "instructions are not counted: QEMU counts them only under -icount (the icount boots)");
}

FIXTURE_TEARDOWN(kvm)
{
	if (self->guest >= 0)
		close(self->guest);
	if (self->host >= 0)
		close(self->host);
	if (self->lead >= 0)
		close(self->lead);
	guest_close(&self->g);
}

/* exclude_host: the guest's loop, exactly, however long it runs */
TEST_F(kvm, exclude_host_counts_the_guest_loop_exactly)
{
	static const __u64 n[] = { 1000, 100000, 1000000 };
	struct split s;
	int i;

	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, measure(&self->g, self->lead, n[i], &s));
		EXPECT_EQ(GUEST_INSNS(n[i]), s.guest)
			TH_LOG("n=%llu: guest %llu", n[i], s.guest);
	}
}

/*
 * exclude_guest: the host's count leaves the guest's loop out. It still
 * grows with the loop's length, by the host's own work while the guest
 * runs (the timer interrupts that exit it: about a quarter of the
 * guest's instructions on the KASAN kernel under -icount shift=4, half
 * of them in a loaded CI run on nVHE), but the loop's two million more
 * instructions are not in it: they are in the count of both.
 */
TEST_F(kvm, exclude_guest_leaves_the_guest_out)
{
	struct split a, b;

	ASSERT_EQ(0, measure(&self->g, self->lead, 1000, &a));
	ASSERT_EQ(0, measure(&self->g, self->lead, 1001000, &b));
	EXPECT_LT(0, a.host);
	/* with the loop counted it would be 2000000 more, at least */
	EXPECT_LT(b.host - a.host, 2000000)
		TH_LOG("host: %llu at 1000, %llu at 1001000", a.host, b.host);
	EXPECT_EQ(2000000 + b.host - a.host, b.both - a.both);
}

/* in one window, host and guest add up exactly to both */
TEST_F(kvm, host_and_guest_add_up_to_both_exactly)
{
	static const __u64 n[] = { 10, 50000, 500000 };
	struct split s;
	int i;

	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, measure(&self->g, self->lead, n[i], &s));
		EXPECT_EQ(s.both, s.host + s.guest)
			TH_LOG("n=%llu: both %llu host %llu guest %llu",
			       n[i], s.both, s.host, s.guest);
		EXPECT_EQ(GUEST_INSNS(n[i]), s.guest);
	}
}

/*
 * A sampling event on the guest alone: each sample is the guest's
 * (cpumode GUEST_KERNEL, its PC within guest_code), taken for the VMM's
 * task. How many there are is QEMU's: its PMUv3 under -icount takes
 * about one sample in ten periods, on the stock kernel as on ours and
 * for a host loop alike (5 samples where the count made 50 periods).
 */
TEST_F(kvm, guest_samples_carry_the_guest_pc)
{
	const __u64 period = 9973, n = 250000;
	__u64 lo = CODE_GPA;
	__u64 hi = lo + ((char *)guest_code_end - (char *)guest_code);
	struct perf_event_header *h;
	struct pt_rb rb;
	struct pt_recs r;
	int fd, samples = 0;
	__u64 count;

	fd = inst_open(1, 0, -1, period);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, pt_rb_map(&rb, fd, 16));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, guest_run(&self->g, n));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	count = pt_read1(fd);
	EXPECT_EQ(GUEST_INSNS(n), count);
	ASSERT_EQ(0, pt_rb_drain(&rb, &r));
	EXPECT_EQ(0, r.bad);
	pt_recs_for_each(h, &r, PERF_RECORD_SAMPLE) {
		struct { __u64 ip; __u32 pid, tid; } *s = (void *)(h + 1);

		samples++;
		EXPECT_EQ(PERF_RECORD_MISC_GUEST_KERNEL,
			  h->misc & PERF_RECORD_MISC_CPUMODE_MASK);
		EXPECT_LE(lo, s->ip) TH_LOG("ip %#llx", s->ip);
		EXPECT_GT(hi, s->ip) TH_LOG("ip %#llx", s->ip);
		EXPECT_EQ(getpid(), s->pid);
		EXPECT_EQ(pt_gettid(), s->tid);
	}
	EXPECT_EQ(0, pt_recs_count(&r, PERF_RECORD_LOST));
	EXPECT_LT(0, samples);
	EXPECT_GE(count / period, samples);
	pt_recs_free(&r);
	pt_rb_unmap(&rb);
	close(fd);
}

#else

TEST(kvm_guest_is_arm64_only)
{
	SKIP(return, "arm64 only");
}

#endif

TEST_HARNESS_MAIN
