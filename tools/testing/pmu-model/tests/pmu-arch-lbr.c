// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-arch-lbr: architectural LBRs on the TCG PMU model (patch 0018,
 * -cpu Icelake-PMU,arch-lbr=on,model=143), as root, asserting what the
 * stock 6.12 driver does with them (Documentation/perf-core/
 * pmu-model.rst, 0018). Skipped ("ok # SKIP") without CPUID.7.EDX[19].
 *
 * - enumeration: CPUID 0x1C = 80000008 00000007 00000005 00000000 (depth
 *   32, LIP; CPL and branch filtering, call-stack mode; mispredict bit
 *   and branch type, no timed LBRs), no XSAVE LBR state (CPUID 0xD.1
 *   ECX bit 15 clear), caps/branches 32;
 * - registers through /dev/cpu/0/msr: PERF_CAPABILITIES.LBR_FMT 0x3f,
 *   IA32_LBR_DEPTH 32 (writing 16 fails, 32 is taken), the legacy LBR
 *   MSRs (LBR_SELECT, LBR_TOS, LASTBRANCH_0_FROM/TO, LBR_INFO_0) and
 *   the entries past the depth (0x1520, 0x1620, 0x1220) fail (#GP: EIO),
 *   as do LBR_CTL's reserved bits, INFO's reserved bits and a
 *   non-canonical FROM;
 * - the IA32_LBR_CTL value the driver programs for each branch filter,
 *   read on CPU 0 while this task's sampling event is active there;
 * - the errno of each branch_sample_type bit the driver refuses;
 * - branch records: -b on a dec/jnz loop: 32 records jnz -> dec, type
 *   COND (also without TYPE_SAVE: the type comes from LBR_INFO),
 *   predicted, cycles 0, hw_idx -1 or 0 (stock with adaptive PEBS,
 *   0019; entry 0 is the newest); any_call,u on
 *   a call chain: the calls newest first (type CALL), the oldest the
 *   indirect call into the workload ("?" the caller: IND_CALL);
 *   call-stack mode (PERF_SAMPLE_BRANCH_CALL_STACK): the calls not yet
 *   returned from, newest first (f2's call popped once f2 returned).
 * "pmu-arch-lbr facts" prints the observations without checking them.
 * Exit 0 on success, 1 on a failed check.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "perf_sys.h"

#include "pmu-ring.h"
#include "pmu-unthrottle.h"

#define MSR_PERF_CAPABILITIES	0x345
#define MSR_LBR_SELECT		0x1c8
#define MSR_LBR_TOS		0x1c9
#define MSR_LBR_FROM_0		0x680
#define MSR_LBR_TO_0		0x6c0
#define MSR_LBR_INFO_0		0xdc0
#define MSR_ARCH_LBR_CTL	0x14ce
#define MSR_ARCH_LBR_DEPTH	0x14cf
#define MSR_ARCH_LBR_FROM_0	0x1500
#define MSR_ARCH_LBR_TO_0	0x1600
#define MSR_ARCH_LBR_INFO_0	0x1200

/* dec/jnz: %rdi iterations; a chain of calls: a -> f1 -> f2 (loops) */
asm(".text\n"
    ".globl alr_loop, alr_loop_dec, alr_loop_jnz\n"
    "alr_loop:\n\t"
    "mov %rdi, %rcx\n"
    "alr_loop_dec:\n\t"
    "dec %rcx\n"
    "alr_loop_jnz:\n\t"
    "jnz alr_loop_dec\n\t"
    "ret\n"
    /* alr_calls(n): f1 calls f2 (n iterations) then f3 (n iterations) */
    ".globl alr_calls, alr_call_a, alr_f1, alr_call_b, alr_f2\n"
    ".globl alr_call_c, alr_f3\n"
    "alr_calls:\n\t"
    "mov %rdi, %rcx\n"
    "alr_call_a:\n\t"
    "call alr_f1\n\t"
    "ret\n"
    "alr_f1:\n\t"
    "mov %rcx, %rdx\n"
    "alr_call_b:\n\t"
    "call alr_f2\n\t"
    "mov %rdx, %rcx\n"
    "alr_call_c:\n\t"
    "call alr_f3\n\t"
    "ret\n"
    "alr_f2:\n\t"
    "dec %rcx\n\t"
    "jnz alr_f2\n\t"
    "ret\n"
    "alr_f3:\n\t"
    "dec %rcx\n\t"
    "jnz alr_f3\n\t"
    "ret\n");

extern char alr_loop[], alr_loop_dec[], alr_loop_jnz[];
extern char alr_calls[], alr_call_a[], alr_f1[], alr_call_b[], alr_f2[];
extern char alr_call_c[], alr_f3[];

static int facts, fails;

static void check(int ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	if (facts)
		printf("# fact: ");
	else
		printf("%s ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!ok && !facts)
		fails++;
}

static int msr_fd;

/* 0 or -errno */
static int rdmsr(uint32_t msr, uint64_t *val)
{
	return pread(msr_fd, val, 8, msr) == 8 ? 0 : -errno;
}

static int wrmsr(uint32_t msr, uint64_t val)
{
	return pwrite(msr_fd, &val, 8, msr) == 8 ? 0 : -errno;
}

static int open_event(uint64_t bst, uint64_t period, uint64_t sample_type)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.sample_period = period;
	attr.sample_type = sample_type;
	attr.branch_sample_type = bst;
	attr.exclude_kernel = !(bst & PERF_SAMPLE_BRANCH_KERNEL);
	attr.exclude_hv = 1;
	attr.disabled = 1;
	return sys_perf_event_open(&attr, 0, -1, -1, 0);
}

/* The enumeration */
static void enumeration(void)
{
	unsigned int a, b, c, d;
	int branches = 0;
	FILE *fp;

	__cpuid_count(0x1c, 0, a, b, c, d);
	check(a == 0x80000008 && b == 7 && c == 5 && d == 0,
	      "CPUID 0x1C = %08x %08x %08x %08x (want 80000008 00000007 00000005 00000000)",
	      a, b, c, d);
	__cpuid_count(0xd, 1, a, b, c, d);
	check(!(c & (1U << 15)),
	      "CPUID 0xD.1 ECX = %08x: no XSAVES LBR state (bit 15 clear)", c);
	fp = fopen("/sys/bus/event_source/devices/cpu/caps/branches", "r");
	if (!fp || fscanf(fp, "%d", &branches) != 1)
		branches = -1;
	if (fp)
		fclose(fp);
	check(branches == 32, "caps/branches %d (want 32)", branches);
}

/* The registers, through the msr driver (EIO: the access #GP'd) */
static void registers(void)
{
	static const struct { uint32_t msr; const char *name; } gp[] = {
		{ MSR_LBR_SELECT, "LBR_SELECT" },
		{ MSR_LBR_TOS, "LBR_TOS" },
		{ MSR_LBR_FROM_0, "LASTBRANCH_0_FROM_IP" },
		{ MSR_LBR_TO_0, "LASTBRANCH_0_TO_IP" },
		{ MSR_LBR_INFO_0, "LBR_INFO_0" },
		{ MSR_ARCH_LBR_FROM_0 + 32, "IA32_LBR_32_FROM_IP" },
		{ MSR_ARCH_LBR_TO_0 + 32, "IA32_LBR_32_TO_IP" },
		{ MSR_ARCH_LBR_INFO_0 + 32, "IA32_LBR_32_INFO" },
	};
	uint64_t v = 0;
	unsigned int i;
	int r;

	r = rdmsr(MSR_PERF_CAPABILITIES, &v);
	check(!r && (v & 0x3f) == 0x3f,
	      "PERF_CAPABILITIES %#llx: LBR_FMT 0x3f (architectural)",
	      (unsigned long long)v);
	r = rdmsr(MSR_ARCH_LBR_DEPTH, &v);
	check(!r && v == 32, "IA32_LBR_DEPTH reads %llu (want 32)",
	      (unsigned long long)v);
	r = wrmsr(MSR_ARCH_LBR_DEPTH, 16);
	check(r == -EIO, "IA32_LBR_DEPTH = 16 fails: %s", strerror(-r));
	r = wrmsr(MSR_ARCH_LBR_DEPTH, 32);
	check(!r, "IA32_LBR_DEPTH = 32 is taken: %s", strerror(-r));
	r = rdmsr(MSR_ARCH_LBR_FROM_0 + 31, &v);
	check(!r && !v, "IA32_LBR_31_FROM_IP reads 0 after the depth write: %s",
	      strerror(-r));
	for (i = 0; i < sizeof(gp) / sizeof(gp[0]); i++) {
		r = rdmsr(gp[i].msr, &v);
		check(r == -EIO, "rdmsr %#x (%s) fails: %s", gp[i].msr,
		      gp[i].name, strerror(-r));
	}
	r = wrmsr(MSR_ARCH_LBR_CTL, 1ULL << 4);
	check(r == -EIO, "IA32_LBR_CTL reserved bit 4 fails: %s", strerror(-r));
	r = wrmsr(MSR_ARCH_LBR_CTL, 1ULL << 23);
	check(r == -EIO, "IA32_LBR_CTL reserved bit 23 fails: %s", strerror(-r));
	r = wrmsr(MSR_ARCH_LBR_INFO_0 + 31, 1ULL << 16);
	check(r == -EIO, "IA32_LBR_31_INFO reserved bit 16 fails: %s",
	      strerror(-r));
	r = wrmsr(MSR_ARCH_LBR_FROM_0 + 31, 1ULL << 47);
	check(r == -EIO, "IA32_LBR_31_FROM_IP non-canonical fails: %s",
	      strerror(-r));
}

/*
 * IA32_LBR_CTL as the driver programs it for each filter: read on CPU 0
 * (this task runs there) while the event is enabled
 */
#define U PERF_SAMPLE_BRANCH_USER
#define K PERF_SAMPLE_BRANCH_KERNEL
static const struct {
	const char *name;
	uint64_t bst;
	uint64_t ctl;
} filters[] = {
	{ "any,u", PERF_SAMPLE_BRANCH_ANY | U, 0x7f0005 },
	{ "any,k", PERF_SAMPLE_BRANCH_ANY | K, 0x7f0003 },
	{ "any,u,k", PERF_SAMPLE_BRANCH_ANY | U | K, 0x7f0007 },
	{ "any_call,u", PERF_SAMPLE_BRANCH_ANY_CALL | U, 0x580005 },
	{ "any_ret,u", PERF_SAMPLE_BRANCH_ANY_RETURN | U, 0x600005 },
	{ "ind_call,u", PERF_SAMPLE_BRANCH_IND_CALL | U, 0x100005 },
	{ "call,u", PERF_SAMPLE_BRANCH_CALL | U, 0x080005 },
	{ "cond,u", PERF_SAMPLE_BRANCH_COND | U, 0x010005 },
	{ "ind_jmp,u", PERF_SAMPLE_BRANCH_IND_JUMP | U, 0x040005 },
	{ "call_stack,u", PERF_SAMPLE_BRANCH_CALL_STACK | U, 0x38000d },
	{ "cond|call,u", PERF_SAMPLE_BRANCH_COND | PERF_SAMPLE_BRANCH_CALL | U,
	  0x090005 },
	{ "ind_call|any_ret,u", PERF_SAMPLE_BRANCH_IND_CALL |
	  PERF_SAMPLE_BRANCH_ANY_RETURN | U, 0x700005 },
};

static void lbr_ctl(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(filters) / sizeof(filters[0]); i++) {
		uint64_t v = ~0ULL;
		int fd, r;

		fd = open_event(filters[i].bst, 1000000000ULL,
				PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK);
		if (fd < 0) {
			check(0, "-j %s: open: %s", filters[i].name,
			      strerror(errno));
			continue;
		}
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		r = rdmsr(MSR_ARCH_LBR_CTL, &v);
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		close(fd);
		check(!r && v == filters[i].ctl,
		      "-j %s: IA32_LBR_CTL %#llx (want %#llx)", filters[i].name,
		      (unsigned long long)v,
		      (unsigned long long)filters[i].ctl);
	}
	/* and 0 again once no event uses the LBRs */
	{
		uint64_t v = ~0ULL;
		int r = rdmsr(MSR_ARCH_LBR_CTL, &v);

		check(!r && !v, "IA32_LBR_CTL %#llx with no LBR event",
		      (unsigned long long)v);
	}
}

/* branch_sample_type bits the driver refuses, and how */
static const struct {
	const char *name;
	uint64_t bst;
	int err;
} refused[] = {
	{ "any|abort_tx,u", PERF_SAMPLE_BRANCH_ABORT_TX, 0 },
	{ "any|in_tx,u", PERF_SAMPLE_BRANCH_IN_TX, 0 },
	{ "any|no_tx,u", PERF_SAMPLE_BRANCH_NO_TX, 0 },
	{ "any|call_stack,u", PERF_SAMPLE_BRANCH_CALL_STACK, EINVAL },
	{ "any|no_flags,u", PERF_SAMPLE_BRANCH_NO_FLAGS, 0 },
	{ "any|no_cycles,u", PERF_SAMPLE_BRANCH_NO_CYCLES, 0 },
	{ "any|type_save,u", PERF_SAMPLE_BRANCH_TYPE_SAVE, 0 },
	{ "any|hw_index,u", PERF_SAMPLE_BRANCH_HW_INDEX, 0 },
	{ "any|priv_save,u", PERF_SAMPLE_BRANCH_PRIV_SAVE, 0 },
	{ "any|counters,u", 1ULL << 19 /* PERF_SAMPLE_BRANCH_COUNTERS */,
	  EINVAL },
	{ "hv", PERF_SAMPLE_BRANCH_HV, EINVAL },
	{ "call_stack,k", PERF_SAMPLE_BRANCH_CALL_STACK | K, 0 },
	{ "any|bit 20,u", 1ULL << 20, EINVAL },
};

static void errnos(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		uint64_t bst = refused[i].bst;
		int fd, err = 0;

		if (!(bst & (U | K | PERF_SAMPLE_BRANCH_HV |
			     PERF_SAMPLE_BRANCH_ANY)))
			bst |= PERF_SAMPLE_BRANCH_ANY | U;
		fd = open_event(bst, 100000,
				PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK);
		if (fd < 0)
			err = errno;
		else
			close(fd);
		check(err == refused[i].err, "branch_sample_type %s: %s",
		      refused[i].name, err ? strerror(err) : "opens");
	}
}

/* Branch records */
struct rec {
	uint64_t ip, nr, hw_idx;
	struct perf_branch_entry e[32];
};

static struct rec recs[64];

static int record(uint64_t bst, uint64_t period, void (*code)(long), long n)
{
	struct perf_event_mmap_page *pc;
	struct ring_iter it;
	unsigned char *data;
	uint64_t *p;
	int fd, k = 0;

	fd = open_event(bst | PERF_SAMPLE_BRANCH_HW_INDEX, period,
			PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK);
	if (fd < 0) {
		check(0, "open: %s", strerror(errno));
		return -1;
	}
	data = ring_map(fd, &pc);
	if (!data) {
		check(0, "mmap: %s", strerror(errno));
		close(fd);
		return -1;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	code(n);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	ring_iter_start(&it, pc, data);
	while ((p = ring_next_sample(&it)) && k < 64) {
		recs[k].ip = p[0];
		recs[k].nr = p[1] > 32 ? 32 : p[1];
		recs[k].hw_idx = p[2];
		memcpy(recs[k].e, &p[3], recs[k].nr * sizeof(recs[k].e[0]));
		k++;
	}
	ring_unmap(pc);
	close(fd);
	return k;
}

static const char *name_of(uint64_t a)
{
	static char buf[4][32];
	static int b;
	static const struct { char *addr; const char *name; } names[] = {
		{ alr_loop_dec, "dec" }, { alr_loop_jnz, "jnz" },
		{ alr_call_a, "call_a" }, { alr_f1, "f1" },
		{ alr_call_b, "call_b" }, { alr_f2, "f2" },
		{ alr_call_c, "call_c" }, { alr_f3, "f3" },
		{ alr_calls, "calls" }, { alr_loop, "loop" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if ((uint64_t)(uintptr_t)names[i].addr == a)
			return names[i].name;
	b = (b + 1) % 4;
	/* the indirect call into the workload comes from record() */
	if (facts)
		snprintf(buf[b], sizeof(buf[b]), "%#llx", (unsigned long long)a);
	else
		snprintf(buf[b], sizeof(buf[b]), "?");
	return buf[b];
}

/* "from/to/flags/cycles/type" of every record, space separated */
static char *stack_of(struct rec *r, int typed)
{
	static char buf[32 * 64];
	unsigned int i;
	int len = 0;

	buf[0] = 0;
	for (i = 0; i < r->nr; i++) {
		struct perf_branch_entry *e = &r->e[i];

		len += snprintf(buf + len, sizeof(buf) - len, "%s%s/%s/%s%s/%u",
				i ? " " : "", name_of(e->from), name_of(e->to),
				e->mispred ? "M" : "-", e->predicted ? "P" : "-",
				(unsigned int)e->cycles);
		if (typed)
			len += snprintf(buf + len, sizeof(buf) - len, "/%u",
					(unsigned int)e->type);
	}
	return buf;
}

static void records(void)
{
	char want[32 * 64];
	int n, k, i, len;

	/* -b on the loop: every sample 32 x jnz -> dec, COND (1), predicted */
	n = record(PERF_SAMPLE_BRANCH_ANY | U, 30011,
		   (void (*)(long))alr_loop, 100000);
	check(n == 6, "-b on the loop: %d samples (want 6)", n);
	for (len = 0, i = 0; i < 32; i++)
		len += snprintf(want + len, sizeof(want) - len, "%sjnz/dec/-P/0/%d",
				i ? " " : "", PERF_BR_COND);
	for (k = 0; k < n; k++) {
		/*
		 * stock reports no hardware index (-1) once PEBS is
		 * baseline (the model's 0019 on this CPU model), or in
		 * some boots 0 (entry 0 is the newest): both say the same
		 */
		check(recs[k].hw_idx == ~0ULL || recs[k].hw_idx == 0,
		      "-b sample %d: hw_idx %#llx (want -1 or 0)",
		      k + 1, (unsigned long long)recs[k].hw_idx);
		check(!strcmp(stack_of(&recs[k], 1), want),
		      "-b sample %d: %llu records: %s", k + 1,
		      (unsigned long long)recs[k].nr, stack_of(&recs[k], 1));
	}

	/*
	 * any_call,u on the calls (4N + 9 instructions, N = 50000; f2 loops
	 * up to about 2N): samples 1-3 in f2, 4-6 in f3
	 */
	n = record(PERF_SAMPLE_BRANCH_ANY_CALL | U | PERF_SAMPLE_BRANCH_TYPE_SAVE,
		   30011, (void (*)(long))alr_calls, 50000);
	check(n == 6, "-j any_call,u on the calls: %d samples (want 6)", n);
	for (k = 0; k < n; k++) {
		if (k < 3)
			snprintf(want, sizeof(want), "call_b/f2/-P/0/%d "
				 "call_a/f1/-P/0/%d ?/calls/-P/0/%d",
				 PERF_BR_CALL, PERF_BR_CALL, PERF_BR_IND_CALL);
		else
			snprintf(want, sizeof(want), "call_c/f3/-P/0/%d "
				 "call_b/f2/-P/0/%d call_a/f1/-P/0/%d "
				 "?/calls/-P/0/%d", PERF_BR_CALL,
				 PERF_BR_CALL, PERF_BR_CALL, PERF_BR_IND_CALL);
		check(!strcmp(stack_of(&recs[k], 1), want),
		      "any_call sample %d: %s", k + 1, stack_of(&recs[k], 1));
	}

	/* call-stack mode: f2's call popped once f2 returned */
	n = record(PERF_SAMPLE_BRANCH_CALL_STACK | U, 30011,
		   (void (*)(long))alr_calls, 50000);
	check(n == 6, "call stack on the calls: %d samples (want 6)", n);
	for (k = 0; k < n; k++) {
		snprintf(want, sizeof(want),
			 "%s/%s/-P/0 call_a/f1/-P/0 ?/calls/-P/0",
			 k < 3 ? "call_b" : "call_c", k < 3 ? "f2" : "f3");
		check(!strcmp(stack_of(&recs[k], 0), want),
		      "call stack sample %d: %s", k + 1, stack_of(&recs[k], 0));
	}
}

int main(int argc, char **argv)
{
	unsigned int a, b, c, d;
	cpu_set_t set;

	setvbuf(stdout, NULL, _IONBF, 0);
	facts = argc > 1 && !strcmp(argv[1], "facts");
	__cpuid_count(7, 0, a, b, c, d);
	if (!(d & (1U << 19))) {
		printf("ok # SKIP no architectural LBRs (CPUID.7.EDX[19] clear)\n");
		return 0;
	}
	/* on CPU 0, where the msr reads run */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		printf("not ok sched_setaffinity: %s\n", strerror(errno));
		return 1;
	}
	msr_fd = open("/dev/cpu/0/msr", O_RDWR);
	if (msr_fd < 0) {
		printf("not ok /dev/cpu/0/msr: %s\n", strerror(errno));
		return 1;
	}
	unthrottle();
	enumeration();
	registers();
	lbr_ctl();
	errnos();
	records();
	return fails ? 1 : 0;
}
