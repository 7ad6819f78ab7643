// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-ibs: AMD Instruction-Based Sampling on the EPYC-PMU model
 * (pmu-model.rst, 0015 "IBS"), held to the stock 6.12 kernel's results.
 * Root, pinned to CPU 0 (the MSR reads look there), unthrottled.
 *
 * The workload, ibs_loop, is 256 loads "mov disp32(%rdi), %rax" (7 bytes
 * each: load k, at ibs_block + 7k, reads buf + 8k, an L1D hit after the
 * first iteration) then dec/jnz: 258 ops an iteration, ITERS of them.
 * The model tags the op at which the count reaches the period and stops
 * right after it (pmu-model.rst), so every sample in the loop must be:
 * - IP = IbsOpRip (RAW), exact, user; RAW = struct perf_ibs_data of
 *   asm/amd-ibs.h (u32 size 60, u32 caps 0xdf, the 7 op MSRs) with
 *   OpVal, OpEn, the cnt_ctl bit asked for and MaxCnt = period >> 4;
 * - on a load: ADDR = IbsDcLinAd = buf + 8k for the load at k, IbsOpData3
 *   LdOp | DcLinAddrValid | DcPhyAddrValid, PHYS_ADDR = IbsDcPhysAd
 *   (same page offset), the L1D hit's data source and weight 0 as stock
 *   decodes them; on dec/jnz: no address, no data source;
 * and there must be as many as periods fit in the loop's ops (cnt_ctl)
 * or cycles (2 an instruction), one more or less: IBS counts the
 * kernel's ops too. The same for a cpu-wide event, and for ibs_fetch
 * (IP = IbsFetchLinAd in the loop). Then the data source and weight of
 * loads and stores through the model's cache levels, cycles:p/pp as
 * ibs_op events (cycles:ppp refused), and stock's open errors.
 *
 * "pmu-ibs facts" prints what a driver does instead of checking it
 * (pmu-ibs-facts.sh runs it); "pmu-ibs sweep" is perf mem's workload
 * there; "pmu-ibs kmsg" prints the kernel log (the runner's dmesg -c
 * leaves /dev/kmsg alone).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "perf_sys.h"

#include "pmu-check.h"
#include "pmu-ring.h"
#include "pmu-unthrottle.h"

/* struct perf_ibs_data's registers (asm/amd-ibs.h), op and fetch */
enum { OP_CTL, OP_RIP, OP_DATA, OP_DATA2, OP_DATA3, DC_LINAD, DC_PHYSAD,
       OP_REGS };
enum { FETCH_CTL, FETCH_LINAD, FETCH_PHYSAD, FETCH_REGS };

#define IBS_OP_VAL		(1ULL << 18)
#define IBS_OP_CNT_CTL		(1ULL << 19)
#define IBS_FETCH_VAL		(1ULL << 49)
#define IBS_FETCH_COMP		(1ULL << 50)
#define IBS_FETCH_PHY_VALID	(1ULL << 52)
#define DATA3_LD_OP		(1ULL << 0)
#define DATA3_ST_OP		(1ULL << 1)
#define DATA3_LIN_VALID		(1ULL << 17)
#define DATA3_PHY_VALID		(1ULL << 18)

/*
 * The op loop: 256 loads, 8 bytes apart from the buffer in rdi (each
 * "mov disp32(%rdi), %rax", 7 bytes: load k at ibs_block + 7k reads
 * buf + 8k), then dec/jnz: 258 instructions an iteration, rsi of them
 */
#define BLOCK_LOADS	256
#define LOAD_LEN	7
void ibs_loop(void *buf, long n);
extern const char ibs_block[], ibs_dec[], ibs_jnz[], ibs_loop_end[];
asm(".text\n"
    ".globl ibs_loop, ibs_block, ibs_dec, ibs_jnz, ibs_loop_end\n"
    "ibs_loop:\n"
    "	mov %rsi, %rcx\n"
    "1:\n"
    "ibs_block:\n"
    "	.set k, 0\n"
    "	.rept 256\n"
    "	.byte 0x48, 0x8b, 0x87\n"	/* mov disp32(%rdi), %rax */
    "	.long k\n"
    "	.set k, k + 8\n"
    "	.endr\n"
    "ibs_dec:\n"
    "	dec %rcx\n"
    "ibs_jnz:\n"
    "	jnz 1b\n"
    "ibs_loop_end:\n"
    "	ret\n");

/*
 * A sweep: rdi the buffer, rsi the count (a multiple of 8), rdx the
 * stride; eight loads (sweep_ld) or stores (sweep_st) at strides 0-7 from
 * sweep_*_insn to sweep_*_end, then the next eight: 8 of every 11
 * instructions access memory, so that the samples land on accesses
 * whatever phase the kernel's own counted ops (the NMI's) give them
 */
void sweep_ld(void *buf, long n, long stride);
void sweep_st(void *buf, long n, long stride);
extern const char sweep_ld_insn[], sweep_ld_end[], sweep_st_insn[],
	sweep_st_end[];
asm(".globl sweep_ld, sweep_ld_insn, sweep_ld_end, sweep_st, sweep_st_insn, sweep_st_end\n"
    "sweep_ld:\n"
    "	mov %rsi, %rcx\n"
    "	shr $3, %rcx\n"
    "	lea (%rdx,%rdx,2), %r9\n"
    "	lea (%rdx,%rdx,4), %r10\n"
    "	lea (%r9,%rdx,4), %r11\n"
    "1:\n"
    "sweep_ld_insn:\n"
    "	mov (%rdi), %rax\n"
    "	mov (%rdi,%rdx,1), %rax\n"
    "	mov (%rdi,%rdx,2), %rax\n"
    "	mov (%rdi,%r9,1), %rax\n"
    "	mov (%rdi,%rdx,4), %rax\n"
    "	mov (%rdi,%r10,1), %rax\n"
    "	mov (%rdi,%r9,2), %rax\n"
    "	mov (%rdi,%r11,1), %rax\n"
    "sweep_ld_end:\n"
    "	lea (%rdi,%rdx,8), %rdi\n"
    "	dec %rcx\n"
    "	jnz 1b\n"
    "	ret\n"
    "sweep_st:\n"
    "	mov %rsi, %rcx\n"
    "	shr $3, %rcx\n"
    "	lea (%rdx,%rdx,2), %r9\n"
    "	lea (%rdx,%rdx,4), %r10\n"
    "	lea (%r9,%rdx,4), %r11\n"
    "1:\n"
    "sweep_st_insn:\n"
    "	mov %rax, (%rdi)\n"
    "	mov %rax, (%rdi,%rdx,1)\n"
    "	mov %rax, (%rdi,%rdx,2)\n"
    "	mov %rax, (%rdi,%r9,1)\n"
    "	mov %rax, (%rdi,%rdx,4)\n"
    "	mov %rax, (%rdi,%r10,1)\n"
    "	mov %rax, (%rdi,%r9,2)\n"
    "	mov %rax, (%rdi,%r11,1)\n"
    "sweep_st_end:\n"
    "	lea (%rdi,%rdx,8), %rdi\n"
    "	dec %rcx\n"
    "	jnz 1b\n"
    "	ret\n");

/* Is @ip one of the accesses of the sweep (@st: the stores')? */
static int sweep_access(uint64_t ip, int st)
{
	if (st)
		return ip >= (uint64_t)sweep_st_insn &&
		       ip < (uint64_t)sweep_st_end;
	return ip >= (uint64_t)sweep_ld_insn && ip < (uint64_t)sweep_ld_end;
}

static int facts;

static int pmu_type(const char *pmu)
{
	char path[128];
	int type = -1;
	FILE *fp;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type",
		 pmu);
	fp = fopen(path, "r");
	if (fp) {
		if (fscanf(fp, "%d", &type) != 1)
			type = -1;
		fclose(fp);
	}
	return type;
}

/* the config bit of a one-bit format attribute ("config:N"), or -1 */
static int format_bit(const char *pmu, const char *name)
{
	char path[160];
	int bit = -1;
	FILE *fp;

	snprintf(path, sizeof(path),
		 "/sys/bus/event_source/devices/%s/format/%s", pmu, name);
	fp = fopen(path, "r");
	if (fp) {
		if (fscanf(fp, "config:%d", &bit) != 1)
			bit = -1;
		fclose(fp);
	}
	return bit;
}

static int sys_open(struct perf_event_attr *a, int pid, int cpu, int group)
{
	a->size = sizeof(*a);
	return sys_perf_event_open(a, pid, cpu, group, 0);
}

static uint64_t rdmsr0(uint32_t msr)
{
	uint64_t v = 0;
	int fd = open("/dev/cpu/0/msr", O_RDONLY);

	if (fd >= 0) {
		if (pread(fd, &v, sizeof(v), msr) != sizeof(v))
			v = -1;
		close(fd);
	}
	return v;
}

/* A sample's fields, for the sample types this program uses */
struct sample {
	uint64_t ip, time, addr, id, period, weight, data_src, phys;
	uint32_t pid, tid, cpu, raw_size;
	const uint8_t *raw;
	uint16_t misc;
};

static void parse(uint64_t type, const uint64_t *v, struct sample *s)
{
	const uint8_t *p = (const uint8_t *)v;

	memset(s, 0, sizeof(*s));
	s->misc = ((const struct perf_event_header *)v - 1)->misc;
#define U64 (*(const uint64_t *)(p += 8, p - 8))
	if (type & PERF_SAMPLE_IDENTIFIER)
		p += 8;
	if (type & PERF_SAMPLE_IP)
		s->ip = U64;
	if (type & PERF_SAMPLE_TID) {
		s->pid = ((const uint32_t *)p)[0];
		s->tid = ((const uint32_t *)p)[1];
		p += 8;
	}
	if (type & PERF_SAMPLE_TIME)
		s->time = U64;
	if (type & PERF_SAMPLE_ADDR)
		s->addr = U64;
	if (type & PERF_SAMPLE_ID)
		s->id = U64;
	if (type & PERF_SAMPLE_STREAM_ID)
		p += 8;
	if (type & PERF_SAMPLE_CPU) {
		s->cpu = *(const uint32_t *)p;
		p += 8;
	}
	if (type & PERF_SAMPLE_PERIOD)
		s->period = U64;
	if (type & PERF_SAMPLE_RAW) {
		s->raw_size = *(const uint32_t *)p;
		s->raw = p + 4;
		p += 4 + s->raw_size;
	}
	if (type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		s->weight = U64;
	if (type & PERF_SAMPLE_DATA_SRC)
		s->data_src = U64;
	if (type & PERF_SAMPLE_PHYS_ADDR)
		s->phys = U64;
#undef U64
}

/* RAW: u32 caps, then the registers */
static uint32_t raw_caps(const struct sample *s)
{
	uint32_t c = 0;

	if (s->raw_size >= 4)
		memcpy(&c, s->raw, 4);
	return c;
}

static uint64_t raw_reg(const struct sample *s, int i)
{
	uint64_t r = 0;

	if (s->raw_size >= 4 + 8 * (i + 1))
		memcpy(&r, s->raw + 4 + 8 * i, 8);
	return r;
}

static void dump_sample(const char *what, uint64_t type, const struct sample *s)
{
	unsigned i;

	printf("# %s: misc %#x ip %#llx pid %u tid %u", what, s->misc,
	       (unsigned long long)s->ip, s->pid, s->tid);
	if (type & PERF_SAMPLE_TIME)
		printf(" time %llu", (unsigned long long)s->time);
	if (type & PERF_SAMPLE_ADDR)
		printf(" addr %#llx", (unsigned long long)s->addr);
	if (type & PERF_SAMPLE_CPU)
		printf(" cpu %u", s->cpu);
	if (type & PERF_SAMPLE_PERIOD)
		printf(" period %llu", (unsigned long long)s->period);
	if (type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		printf(" weight %#llx", (unsigned long long)s->weight);
	if (type & PERF_SAMPLE_DATA_SRC)
		printf(" data_src %#llx", (unsigned long long)s->data_src);
	if (type & PERF_SAMPLE_PHYS_ADDR)
		printf(" phys %#llx", (unsigned long long)s->phys);
	printf("\n");
	if (type & PERF_SAMPLE_RAW) {
		printf("#   raw size %u:", s->raw_size);
		for (i = 0; i < s->raw_size; i++)
			printf("%s%02x", i % 4 ? "" : " ", s->raw[i]);
		printf("\n#   raw caps %#x regs", raw_caps(s));
		for (i = 0; 4 + 8 * (i + 1) <= s->raw_size; i++)
			printf(" %#llx", (unsigned long long)raw_reg(s, i));
		printf("\n");
	}
}

/* ------------------------------------------------------------------ */
/* facts: what the stock driver accepts and reports                     */

static void try_open(const char *what, struct perf_event_attr *a, int pid,
		     int cpu)
{
	int fd = sys_open(a, pid, cpu, -1);

	printf("# open %s: %s\n", what, fd >= 0 ? "ok" : strerror(errno));
	if (fd >= 0)
		close(fd);
}

static struct perf_event_attr base_attr(int type, uint64_t period)
{
	struct perf_event_attr a = {
		.type = type,
		.sample_period = period,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_ADDR | PERF_SAMPLE_RAW,
		.disabled = 1,
	};

	return a;
}

static void open_facts(const char *pmu)
{
	int type = pmu_type(pmu), b, first = -1, fd;
	struct perf_event_attr a;
	uint64_t p, periods[] = { 1, 8, 15, 16, 17, 0x10001, 0xfff0,
				  0xffff0, 0x100000, 0x7ffff0, 0x800000,
				  0xfffff0, 0x1000000, 0x7fffff0, 0x8000000,
				  0x100000000ULL };
	char what[128];
	unsigned i;

	printf("# %s: type %d\n", pmu, type);
	a = base_attr(type, 0x10000);
	try_open("task (pid 0, cpu -1)", &a, 0, -1);
	try_open("task on cpu 0 (pid 0, cpu 0)", &a, 0, 0);
	try_open("cpu-wide (pid -1, cpu 0)", &a, -1, 0);
	a = base_attr(type, 0);
	try_open("counting (period 0), cpu-wide", &a, -1, 0);
	try_open("counting (period 0), task", &a, 0, -1);
	for (i = 0; i < sizeof(periods) / sizeof(periods[0]); i++) {
		a = base_attr(type, periods[i]);
		snprintf(what, sizeof(what), "period %#llx, cpu-wide",
			 (unsigned long long)periods[i]);
		try_open(what, &a, -1, 0);
	}
	for (p = 16; p <= 0x10000; p += 16) {
		a = base_attr(type, p);
		fd = sys_open(&a, -1, 0, -1);
		if (fd >= 0) {
			close(fd);
			first = p;
			break;
		}
	}
	printf("# %s: smallest period (multiples of 16 from 16): %#x\n", pmu,
	       first);
	if (first > 16) {
		a = base_attr(type, first - 16);
		try_open("period smallest - 16", &a, -1, 0);
		a = base_attr(type, first - 1);
		try_open("period smallest - 1", &a, -1, 0);
	}
	a = base_attr(type, 0);
	a.freq = 1;
	a.sample_freq = 1000;
	try_open("freq 1000, cpu-wide", &a, -1, 0);
	try_open("freq 1000, task", &a, 0, -1);
	a = base_attr(type, 0);
	a.config = 0x1000;
	try_open("period 0, config 0x1000 (max count), cpu-wide", &a, -1, 0);
#define FLAG(f) do { a = base_attr(type, 0x10000); a.f = 1; \
	try_open(#f ", cpu-wide", &a, -1, 0); \
	try_open(#f ", task", &a, 0, -1); } while (0)
	FLAG(exclude_user);
	FLAG(exclude_kernel);
	FLAG(exclude_hv);
	FLAG(exclude_idle);
	FLAG(exclude_host);
	FLAG(exclude_guest);
	FLAG(exclude_callchain_kernel);
	FLAG(exclude_callchain_user);
	FLAG(inherit);
	FLAG(pinned);
	FLAG(exclusive);
	FLAG(enable_on_exec);
	FLAG(mmap);
	FLAG(comm);
	FLAG(task);
	FLAG(sample_id_all);
	FLAG(use_clockid);
#undef FLAG
	for (i = 1; i <= 3; i++) {
		a = base_attr(type, 0x10000);
		a.precise_ip = i;
		snprintf(what, sizeof(what), "precise_ip %u, cpu-wide", i);
		try_open(what, &a, -1, 0);
		snprintf(what, sizeof(what), "precise_ip %u, task", i);
		try_open(what, &a, 0, -1);
	}
	for (b = 0; b < 64; b++) {
		a = base_attr(type, 0x10000);
		a.config = 1ULL << b;
		fd = sys_open(&a, -1, 0, -1);
		printf("# open config bit %d, period 0x10000, cpu-wide: %s\n",
		       b, fd >= 0 ? "ok" : strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	a = base_attr(type, 0x10000);
	a.config1 = 1;
	try_open("config1 1", &a, -1, 0);
	a.config1 = 0;
	a.config2 = 1;
	try_open("config2 1", &a, -1, 0);
	a.config2 = 0;
	a.config1 = -1ULL;
	try_open("config1 ~0", &a, -1, 0);
#define STYPE(t) do { a = base_attr(type, 0x10000); \
	a.sample_type |= PERF_SAMPLE_##t; \
	try_open("sample_type +" #t, &a, -1, 0); } while (0)
	STYPE(TIME);
	STYPE(ID);
	STYPE(CPU);
	STYPE(PERIOD);
	STYPE(READ);
	STYPE(CALLCHAIN);
	STYPE(WEIGHT);
	STYPE(WEIGHT_STRUCT);
	STYPE(DATA_SRC);
	STYPE(PHYS_ADDR);
	STYPE(TRANSACTION);
	STYPE(DATA_PAGE_SIZE);
	STYPE(CODE_PAGE_SIZE);
	STYPE(IDENTIFIER);
	STYPE(CGROUP);
#undef STYPE
	a = base_attr(type, 0x10000);
	a.sample_type |= PERF_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	try_open("sample_type +BRANCH_STACK (any)", &a, -1, 0);
	a = base_attr(type, 0x10000);
	a.sample_type |= PERF_SAMPLE_REGS_INTR;
	a.sample_regs_intr = 0xff;
	try_open("sample_type +REGS_INTR", &a, -1, 0);
	a = base_attr(type, 0x10000);
	a.sample_type |= PERF_SAMPLE_REGS_USER;
	a.sample_regs_user = 0xff;
	try_open("sample_type +REGS_USER", &a, -1, 0);
	a = base_attr(type, 0x10000);
	a.sample_type |= PERF_SAMPLE_STACK_USER;
	a.sample_stack_user = 1024;
	try_open("sample_type +STACK_USER", &a, -1, 0);
	a = base_attr(type, 0x10000);
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	try_open("read_format GROUP|ID", &a, -1, 0);
	/* groups: with a software leader, and a cycles member */
	{
		struct perf_event_attr sw = {
			.type = PERF_TYPE_SOFTWARE,
			.config = PERF_COUNT_SW_CPU_CLOCK,
			.disabled = 1,
		};
		struct perf_event_attr hw = {
			.type = PERF_TYPE_HARDWARE,
			.config = PERF_COUNT_HW_CPU_CYCLES,
		};
		int lead = sys_open(&sw, -1, 0, -1), m;

		a = base_attr(type, 0x10000);
		m = sys_open(&a, -1, 0, lead);
		printf("# open as a member of a cpu-clock group: %s\n",
		       m >= 0 ? "ok" : strerror(errno));
		if (m >= 0)
			close(m);
		close(lead);
		lead = sys_open(&a, -1, 0, -1);
		m = lead >= 0 ? sys_open(&hw, -1, 0, lead) : -1;
		printf("# open cycles as a member of its group: %s\n",
		       m >= 0 ? "ok" : strerror(errno));
		if (m >= 0)
			close(m);
		a.disabled = 0;
		m = lead >= 0 ? sys_open(&a, -1, 0, lead) : -1;
		printf("# open a second %s as a member of its group: %s\n",
		       pmu, m >= 0 ? "ok" : strerror(errno));
		if (m >= 0)
			close(m);
		if (lead >= 0)
			close(lead);
	}
	/* two at once on the CPU */
	{
		int f1, f2;

		a = base_attr(type, 0x10000);
		a.disabled = 0;
		f1 = sys_open(&a, -1, 0, -1);
		f2 = sys_open(&a, -1, 0, -1);
		printf("# open two enabled cpu-wide events: %s, %s\n",
		       f1 >= 0 ? "ok" : strerror(errno),
		       f2 >= 0 ? "ok" : "fail");
		if (f1 >= 0)
			close(f1);
		if (f2 >= 0)
			close(f2);
	}
}

/*
 * Sample @type (config @config, period @period, sample_type @st) on
 * this task, over @fn; print the first @ndump samples, the MSR the
 * driver programmed (read while enabled), and count the samples
 */
static int sample_run(const char *what, int type, uint64_t config,
		      uint64_t period, uint64_t st, int cpuwide,
		      void (*fn)(void *), void *arg, int ndump,
		      uint32_t msr)
{
	struct perf_event_attr a = {
		.type = type,
		.config = config,
		.sample_period = period,
		.sample_type = st,
		.disabled = 1,
	};
	struct perf_event_mmap_page *pc;
	struct ring_iter it;
	unsigned char *data;
	uint64_t *v, ctl;
	struct sample s;
	int fd, n = 0, mine = 0;

	fd = sys_open(&a, cpuwide ? -1 : 0, cpuwide ? 0 : -1, -1);
	if (fd < 0) {
		printf("# %s: open: %s\n", what, strerror(errno));
		return -1;
	}
	data = ring_map(fd, &pc);
	if (!data) {
		printf("# %s: mmap: %s\n", what, strerror(errno));
		close(fd);
		return -1;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	ctl = msr ? rdmsr0(msr) : 0;
	fn(arg);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (msr)
		printf("# %s: MSR %#x while enabled: %#llx, after: %#llx\n",
		       what, msr, (unsigned long long)ctl,
		       (unsigned long long)rdmsr0(msr));
	ring_iter_start(&it, pc, data);
	while ((v = ring_next_sample(&it))) {
		parse(st, v, &s);
		n++;
		mine += s.tid == (uint32_t)syscall(SYS_gettid);
		if (n <= ndump) {
			char w[160];

			snprintf(w, sizeof(w), "%s sample %d", what, n);
			dump_sample(w, st, &s);
		}
	}
	printf("# %s: %d samples, %d of this task\n", what, n, mine);
	ring_unmap(pc);
	close(fd);
	return n;
}

static char *loop_buf;

static void run_loop(void *n)
{
	ibs_loop(loop_buf, (long)n);
}

struct sweep {
	char *buf;
	long n, stride;
	int st, times;
};

static void run_sweep(void *arg)
{
	struct sweep *w = arg;
	int i;

	for (i = 0; i < w->times; i++)
		(w->st ? sweep_st : sweep_ld)(w->buf, w->n, w->stride);
}

/*
 * Data source, weight, address of the loads (stores) of a sweep: @warm
 * sweeps while LsDispatch counts (the cache model on), then one sampled
 */
static void level_facts(int type, uint64_t cfg, const char *what,
			struct sweep *w, int warm)
{
	uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR |
		      PERF_SAMPLE_RAW | PERF_SAMPLE_WEIGHT |
		      PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR;
	struct perf_event_attr ls = {
		.type = PERF_TYPE_RAW,
		.config = 0x0329,	/* LsDispatch loads and stores */
	};
	struct perf_event_attr a = {
		.type = type,
		.config = cfg,
		.sample_period = 0x400,
		.sample_type = st,
		.disabled = 1,
	};
	struct perf_event_mmap_page *pc;
	struct ring_iter it;
	unsigned char *data;
	int lfd, fd, i, n = 0, k = 0, shown = 0;
	uint64_t *v;
	struct sample s;

	lfd = sys_open(&ls, 0, -1, -1);
	fd = sys_open(&a, 0, -1, -1);
	if (fd < 0)
		fd = sys_open(&a, -1, 0, -1);
	data = fd >= 0 ? ring_map(fd, &pc) : NULL;
	if (!data) {
		printf("# level %s: open/mmap: %s\n", what, strerror(errno));
		return;
	}
	for (i = 0; i < warm; i++)
		run_sweep(w);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	run_sweep(w);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	ring_iter_start(&it, pc, data);
	while ((v = ring_next_sample(&it))) {
		parse(st, v, &s);
		n++;
		if (!sweep_access(s.ip, w->st))
			continue;
		k++;
		if (shown < 3) {
			char msg[160];

			snprintf(msg, sizeof(msg), "level %s: %s", what,
				 w->st ? "store" : "load");
			dump_sample(msg, st, &s);
			shown++;
		}
	}
	printf("# level %s: %d samples, %d on the %s\n", what, n, k,
	       w->st ? "store" : "load");
	ring_unmap(pc);
	close(fd);
	if (lfd >= 0)
		close(lfd);
}

/* cycles:p, :pp, :ppp through the core PMU's type */
static void precise_facts(void)
{
	int p, fd;
	struct perf_event_attr a;
	uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_RAW;
	static const int types[] = { PERF_TYPE_HARDWARE, PERF_TYPE_RAW };
	unsigned t;

	for (t = 0; t < 2; t++) {
		for (p = 0; p <= 3; p++) {
			memset(&a, 0, sizeof(a));
			a.type = types[t];
			a.config = types[t] == PERF_TYPE_RAW ? 0x76 :
				   PERF_COUNT_HW_CPU_CYCLES;
			a.precise_ip = p;
			a.sample_period = 0x10000;
			a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
			a.disabled = 1;
			fd = sys_open(&a, 0, -1, -1);
			printf("# open %s:%d, task: %s", types[t] ==
			       PERF_TYPE_RAW ? "r76" : "cycles", p,
			       fd >= 0 ? "ok" : strerror(errno));
			if (fd >= 0) {
				ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
				printf(", IbsOpCtl %#llx PerfEvtSel0 %#llx",
				       (unsigned long long)rdmsr0(0xc0011033),
				       (unsigned long long)rdmsr0(0xc0010200));
				ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
				close(fd);
			}
			fd = sys_open(&a, -1, 0, -1);
			printf("; cpu-wide: %s\n",
			       fd >= 0 ? "ok" : strerror(errno));
			if (fd >= 0)
				close(fd);
		}
	}
	/* the core PMU's samples with RAW (precise ones: precise_sample) */
	sample_run("cycles (core PMU, not precise) with RAW",
		   PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0x10000, st, 0,
		   run_loop, (void *)4096L, 2, 0);
	/* instructions:p */
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.precise_ip = 1;
	a.sample_period = 0x10000;
	try_open("instructions:p, task", &a, 0, -1);
	a.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
	try_open("branches:p, task", &a, 0, -1);
}

static void precise_sample(int p)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.precise_ip = p,
		.sample_period = 0x10000,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_RAW,
		.disabled = 1,
	};
	struct perf_event_mmap_page *pc;
	struct ring_iter it;
	unsigned char *data;
	int fd, n = 0;
	uint64_t *v;
	struct sample s;

	fd = sys_open(&a, 0, -1, -1);
	if (fd < 0) {
		printf("# cycles:%d sampled with RAW: %s\n", p, strerror(errno));
		return;
	}
	data = ring_map(fd, &pc);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	ibs_loop(loop_buf, 4096);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	ring_iter_start(&it, pc, data);
	while ((v = ring_next_sample(&it))) {
		parse(a.sample_type, v, &s);
		if (++n <= 2)
			dump_sample("cycles:p sample", a.sample_type, &s);
	}
	printf("# cycles:%d sampled: %d samples\n", p, n);
	ring_unmap(pc);
	close(fd);
}


/* the control register the driver programs for @period (read enabled) */
static void period_facts(const char *pmu, uint32_t msr)
{
	static const uint64_t periods[] = { 1, 0xf, 0x10, 0x11, 0x1f, 0x10001,
					    0xfffff, 0x100000, 0x7ffff0,
					    0x800000, 0x7fffff0, 0x8000000,
					    0x100000000ULL };
	int type = pmu_type(pmu), fd;
	struct perf_event_attr a;
	unsigned i;

	for (i = 0; i < sizeof(periods) / sizeof(periods[0]); i++) {
		a = base_attr(type, periods[i]);
		a.sample_type |= PERF_SAMPLE_PERIOD;
		fd = sys_open(&a, 0, -1, -1);
		if (fd < 0) {
			printf("# %s period %#llx: %s\n", pmu,
			       (unsigned long long)periods[i], strerror(errno));
			continue;
		}
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		printf("# %s period %#llx: MSR %#x while enabled %#llx\n", pmu,
		       (unsigned long long)periods[i], msr,
		       (unsigned long long)rdmsr0(msr));
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		close(fd);
	}
}

static void run_sweep1m(void *buf)
{
	int i;

	for (i = 0; i < 4; i++)
		sweep_ld(buf, (1 << 20) / 64, 64);
	for (i = 0; i < 4; i++)
		sweep_st(buf, (1 << 20) / 64, 64);
}

/* perf mem's event (freq 4000) with RAW: every sample */
static void freq_facts(char *buf)
{
	struct perf_event_attr a = {
		.type = pmu_type("ibs_op"),
		.freq = 1,
		.sample_freq = 4000,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD |
			       PERF_SAMPLE_RAW | PERF_SAMPLE_WEIGHT |
			       PERF_SAMPLE_DATA_SRC,
		.disabled = 1,
	};
	struct perf_event_mmap_page *pc;
	struct ring_iter it;
	unsigned char *data;
	int fd, n = 0;
	uint64_t *v;
	struct sample s;

	fd = sys_open(&a, 0, -1, -1);
	data = fd >= 0 ? ring_map(fd, &pc) : NULL;
	if (!data)
		return;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	run_sweep1m(buf);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	ring_iter_start(&it, pc, data);
	while ((v = ring_next_sample(&it))) {
		parse(a.sample_type, v, &s);
		if (++n <= 24)
			dump_sample("freq 4000 sample", a.sample_type, &s);
	}
	printf("# freq 4000 over the 1 MiB sweeps: %d samples\n", n);
	ring_unmap(pc);
	close(fd);
}

static void do_facts(void)
{
	int op = pmu_type("ibs_op"), fetch = pmu_type("ibs_fetch");
	uint64_t all = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		       PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_CPU |
		       PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW |
		       PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC |
		       PERF_SAMPLE_PHYS_ADDR;
	char *big;
	struct sweep w;
	int i;

	printf("# IBSCTL %#llx\n", (unsigned long long)rdmsr0(0xc001103a));
	for (i = 0xc0011030; i <= 0xc001103d; i++)
		printf("# MSR %#x: %#llx\n", i,
		       (unsigned long long)rdmsr0(i));
	open_facts("ibs_op");
	open_facts("ibs_fetch");
	period_facts("ibs_op", 0xc0011033);
	period_facts("ibs_fetch", 0xc0011030);

	sample_run("ibs_op period 0x10000 (all types)", op, 0, 0x10000, all,
		   0, run_loop, (void *)4096L, 4, 0xc0011033);
	sample_run("ibs_op period 0x10000 cnt_ctl (all types)", op,
		   IBS_OP_CNT_CTL, 0x10000, all, 0, run_loop, (void *)4096L,
		   4, 0xc0011033);
	sample_run("ibs_op cpu-wide period 0x10000 cnt_ctl (all types)", op,
		   IBS_OP_CNT_CTL, 0x10000, all, 1, run_loop, (void *)4096L,
		   2, 0xc0011033);
	sample_run("ibs_op period 0x10000 weight_struct", op, IBS_OP_CNT_CTL,
		   0x10000, (all & ~PERF_SAMPLE_WEIGHT) |
		   PERF_SAMPLE_WEIGHT_STRUCT, 0, run_loop, (void *)4096L, 2,
		   0);
	sample_run("ibs_fetch period 0x10000 (all types)", fetch, 0,
		   0x10000, all, 0, run_loop, (void *)4096L, 4, 0xc0011030);
	sample_run("ibs_fetch cpu-wide period 0x10000", fetch, 0, 0x10000,
		   all, 1, run_loop, (void *)4096L, 2, 0xc0011030);

	big = mmap(NULL, 64 << 20, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (big == MAP_FAILED)
		return;
	w = (struct sweep){ big, 64, 64, 0, 200 };
	level_facts(op, IBS_OP_CNT_CTL, "L1 (4 KiB)", &w, 2);
	w = (struct sweep){ big, 64, 64, 1, 200 };
	level_facts(op, IBS_OP_CNT_CTL, "L1 (4 KiB) stores", &w, 2);
	w = (struct sweep){ big + (1 << 20), 1024, 64, 0, 1 };
	level_facts(op, IBS_OP_CNT_CTL, "L2 (64 KiB)", &w, 1);
	w = (struct sweep){ big + (2 << 20), 16384, 64, 0, 1 };
	level_facts(op, IBS_OP_CNT_CTL, "L3 (1 MiB)", &w, 1);
	w = (struct sweep){ big + (8 << 20), 16384, 64, 0, 1 };
	level_facts(op, IBS_OP_CNT_CTL, "memory (1 MiB, cold)", &w, 0);
	w = (struct sweep){ big + (16 << 20), 4096, 4096, 0, 1 };
	level_facts(op, IBS_OP_CNT_CTL, "memory, page walks (4096 pages)",
		    &w, 0);
	w = (struct sweep){ big + (40 << 20), 16384, 64, 1, 1 };
	level_facts(op, IBS_OP_CNT_CTL, "stores to memory (cold)", &w, 0);

	precise_facts();
	precise_sample(1);
	precise_sample(2);
	freq_facts(big + (48 << 20));
}

/* ------------------------------------------------------------------ */
/* the test                                                             */

#define PERIOD		0x10000
#define ITERS		4096	/* 258 ops an iteration: 16.1 periods */
#define LOOP_OPS	(ITERS * (BLOCK_LOADS + 2))
#define MAX_SAMPLES	4096
#define MISC_EXACT_USER	(PERF_RECORD_MISC_EXACT_IP | PERF_RECORD_MISC_USER)

/*
 * The data sources (perf_mem_data_src) the stock driver decodes from the
 * model's IbsOpData2/3: no memory op; loads that hit the L1D, the L2,
 * missed it and hit the L3 ("local cache", 1 hop), went to DRAM, and
 * the same with a page walk; the L2's with a first-level DTLB miss;
 * stores that hit the L1D, that missed it, and the same with a page walk
 * (the first store to each page of a cold sweep)
 */
#define SRC_NA		0x1e05080021ULL
#define SRC_LD_L1	0x229080142ULL
#define SRC_LD_L2	0x429080442ULL
#define SRC_LD_L2_TLB	0x449080442ULL
#define SRC_LD_L3	0x81629088842ULL
#define SRC_LD_L3_TLB	0x81649088842ULL
#define SRC_LD_DRAM	0x1a29081042ULL
#define SRC_LD_WALK	0x1a51081042ULL
#define SRC_ST_L1	0x229080144ULL
#define SRC_ST_MISS	0x1e29080024ULL
#define SRC_ST_WALK	0x1e51080024ULL

#define ST_ALL	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | \
		 PERF_SAMPLE_RAW | PERF_SAMPLE_WEIGHT | \
		 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR)

static struct sample samples[MAX_SAMPLES];

struct run {
	int fd, n;
	struct perf_event_mmap_page *pc;
	unsigned char *data;
};

/* a counter that run() turns on and off around the sampled run */
static int run_cfd = -1;

/*
 * Open @a on this task (or CPU 0 with @cpuwide), map its ring, run
 * @fn(@arg) @warm times, then once with the event enabled; parse its
 * samples into samples[] (RAW points into the ring: valid until run_end)
 */
static int run(struct run *r, struct perf_event_attr *a, int cpuwide,
	       void (*fn)(void *), void *arg, int warm)
{
	struct ring_iter it;
	uint64_t *v;
	int i;

	r->n = 0;
	r->data = NULL;
	r->fd = sys_open(a, cpuwide ? -1 : 0, cpuwide ? 0 : -1, -1);
	if (r->fd < 0)
		return -1;
	r->data = ring_map(r->fd, &r->pc);
	if (!r->data) {
		close(r->fd);
		return -1;
	}
	for (i = 0; i < warm; i++)
		fn(arg);
	if (run_cfd >= 0)
		ioctl(run_cfd, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(r->fd, PERF_EVENT_IOC_ENABLE, 0);
	fn(arg);
	ioctl(r->fd, PERF_EVENT_IOC_DISABLE, 0);
	if (run_cfd >= 0)
		ioctl(run_cfd, PERF_EVENT_IOC_DISABLE, 0);
	ring_iter_start(&it, r->pc, r->data);
	while ((v = ring_next_sample(&it)) && r->n < MAX_SAMPLES)
		parse(a->sample_type, v, &samples[r->n++]);
	return r->n;
}

static void run_end(struct run *r)
{
	if (r->data)
		ring_unmap(r->pc);
	if (r->fd >= 0)
		close(r->fd);
}

/*
 * The max count of a sample's control register: the period, or after a
 * context switch (or a stop) in the middle of one what was left of it,
 * as 6.12 programs it
 */
static int max_count_ok(uint64_t ctl)
{
	return (ctl & 0xffff) && (ctl & 0xffff) <= PERIOD >> 4;
}

static int in_loop(uint64_t ip)
{
	return ip >= (uint64_t)ibs_block && ip < (uint64_t)ibs_loop_end;
}

/*
 * run() over ITERS iterations of ibs_loop, with the task's core cycles
 * counter (@count_cycles) or its instructions counter (ops) on and off
 * beside the IBS event (run_cfd). IBS counts the kernel's cycles and
 * ops too: the ticks and interrupts (the sampling NMIs among them) that
 * land in the loop, some 25k instructions each on a debug kernel (and a
 * tick that runs RCU callbacks more than a period), can make a sample
 * or two more than the loop's own. *@most is the most samples the loop
 * may hold: one more than the periods of all that was counted (*@all),
 * and never fewer than @want + 1 (with no counter).
 */
static int run_counted(struct run *r, struct perf_event_attr *a, int cpuwide,
		       int count_cycles, long want, long *most, uint64_t *all)
{
	struct perf_event_attr ca = {
		.type = PERF_TYPE_HARDWARE,
		.config = count_cycles ? PERF_COUNT_HW_CPU_CYCLES :
					 PERF_COUNT_HW_INSTRUCTIONS,
		.disabled = 1,
	};
	int cfd = sys_open(&ca, 0, -1, -1);
	int ret;

	*all = 0;
	run_cfd = cfd;
	ret = run(r, a, cpuwide, run_loop, (void *)(long)ITERS, 0);
	run_cfd = -1;
	if (cfd >= 0) {
		if (ret < 0 || read(cfd, all, sizeof(*all)) != sizeof(*all))
			*all = 0;
		close(cfd);
	}
	*most = *all ? (long)(*all / PERIOD) + 1 : want + 1;
	if (*most < want + 1)
		*most = want + 1;
	return ret;
}

/*
 * ibs_op on this task over ITERS iterations of ibs_loop, counting ops
 * (cnt_ctl) or cycles (2 an instruction): the samples in the loop, each
 * on the tagged instruction with the registers of struct perf_ibs_data
 */
static void op_case(const char *name, uint64_t config, int cpuwide)
{
	struct perf_event_attr a = {
		.type = pmu_type("ibs_op"),
		.config = config,
		.sample_period = PERIOD,
		.sample_type = ST_ALL,
		.disabled = 1,
	};
	int cnt_ctl = !!(config & IBS_OP_CNT_CTL);
	long want = (long)LOOP_OPS * (cnt_ctl ? 1 : 2) / PERIOD, most;
	uint32_t tid = syscall(SYS_gettid);
	int i, in = 0, other = 0, loads = 0, l1 = 0, ok_raw = 1, ok_ip = 1;
	int ok_ld = 1, ok_nomem = 1, nomem = 0, ok_src = 1;
	uint64_t all;
	struct run r;
	char what[240];

	/*
	 * the kernel's cycles, or ops (its instructions: an interrupt's
	 * handler in the loop, long on a debug kernel), count too
	 */
	if (run_counted(&r, &a, cpuwide, !cnt_ctl, want, &most, &all) < 0) {
		snprintf(what, sizeof(what), "%s: opened and mapped (%s)",
			 name, strerror(errno));
		check(0, what);
		return;
	}
	for (i = 0; i < r.n; i++) {
		struct sample *s = &samples[i];
		uint64_t ctl = raw_reg(s, OP_CTL), d3 = raw_reg(s, OP_DATA3);
		uint64_t lin = raw_reg(s, DC_LINAD), pa = raw_reg(s, DC_PHYSAD);

		if (s->tid != tid || !in_loop(s->ip)) {
			other++;
			if (facts || other <= 3)
				dump_sample("outside the loop", ST_ALL, s);
			continue;
		}
		in++;
		if (in <= 3)
			dump_sample(name, ST_ALL, s);
		/* RAW: u32 size, u32 caps, IbsOpCtl .. IbsDcPhysAd */
		if (s->raw_size != 4 + 8 * OP_REGS || raw_caps(s) != 0xdf ||
		    !max_count_ok(ctl) || (ctl & 0x7f00000) ||
		    !(ctl & (1ULL << 17)) || !(ctl & IBS_OP_VAL) ||
		    !!(ctl & IBS_OP_CNT_CTL) != cnt_ctl ||
		    raw_reg(s, OP_DATA) != 0x20001 || raw_reg(s, OP_DATA2))
			ok_raw = 0;
		if (raw_reg(s, OP_RIP) != s->ip || s->misc != MISC_EXACT_USER)
			ok_ip = 0;
		if (s->ip < (uint64_t)ibs_dec) {
			uint64_t off = s->ip - (uint64_t)ibs_block;
			uint64_t addr = (uint64_t)loop_buf + 8 * (off / LOAD_LEN);

			loads++;
			if (off % LOAD_LEN || s->addr != addr || lin != addr ||
			    d3 != (DATA3_LD_OP | DATA3_LIN_VALID |
				   DATA3_PHY_VALID) ||
			    s->phys != pa || (pa & 0xfff) != (addr & 0xfff))
				ok_ld = 0;
			if (s->data_src == SRC_LD_L1 && !s->weight)
				l1++;
			else if (s->data_src != SRC_LD_L2 || s->weight != 14)
				ok_src = 0;
		} else {
			nomem++;
			if (s->addr || lin || pa || d3 || s->phys ||
			    s->data_src != SRC_NA || s->weight)
				ok_nomem = 0;
		}
	}
	printf("# %s: %d samples, %d in the loop (%d loads, %d L1D hits, %d dec/jnz), %d elsewhere; %ld ops in the loop\n",
	       name, r.n, in, loads, l1, nomem, other, (long)LOOP_OPS);
	if (all)
		printf("# %s: %llu %s in all while it sampled (%ld periods)\n",
		       name, (unsigned long long)all,
		       cnt_ctl ? "instructions" : "cycles", (long)(all / PERIOD));
	snprintf(what, sizeof(what),
		 "%s: %d samples in the loop, %ld periods of %s (one less, or at most %ld with the kernel's)",
		 name, in, want, cnt_ctl ? "ops" : "cycles", most);
	check(in >= want - 1 && in <= most, what);
	snprintf(what, sizeof(what),
		 "%s: RAW is struct perf_ibs_data: size %u, caps 0xdf, IbsOpCtl (OpEn, OpVal, cnt_ctl %d, max count %#x or what was left of it), IbsOpData 0x20001, IbsOpData2 0",
		 name, 4 + 8 * OP_REGS, cnt_ctl, PERIOD >> 4);
	check(in && ok_raw, what);
	snprintf(what, sizeof(what),
		 "%s: IP = IbsOpRip, exact, user", name);
	check(in && ok_ip, what);
	snprintf(what, sizeof(what),
		 "%s: each load sample on a load of the block, ADDR = IbsDcLinAd = its data address (buf + 8 k for load k), IbsOpData3 LdOp|DcLinAddrValid|DcPhyAddrValid, PHYS_ADDR = IbsDcPhysAd (same page offset)",
		 name);
	check(loads && ok_ld, what);
	snprintf(what, sizeof(what),
		 "%s: loads' data source %#llx weight 0 (L1D hit): %d of %d, the others L2 hits (%#llx, 14)",
		 name, (unsigned long long)SRC_LD_L1, l1, loads,
		 (unsigned long long)SRC_LD_L2);
	check(loads && ok_src && 2 * l1 > loads, what);
	snprintf(what, sizeof(what),
		 "%s: dec/jnz samples (%d): no data address, IbsOpData3 0, data source %#llx",
		 name, nomem, (unsigned long long)SRC_NA);
	check(ok_nomem, what);
	run_end(&r);
}

/* ibs_fetch on this task: samples whose IbsFetchLinAd is in the loop */
static void fetch_case(void)
{
	struct perf_event_attr a = {
		.type = pmu_type("ibs_fetch"),
		.sample_period = PERIOD,
		.sample_type = ST_ALL,
		.disabled = 1,
	};
	long want = (long)LOOP_OPS / PERIOD;
	uint32_t tid = syscall(SYS_gettid);
	uint64_t bits = (1ULL << 48) | IBS_FETCH_VAL | IBS_FETCH_COMP |
			IBS_FETCH_PHY_VALID;
	int i, in = 0, ok_raw = 1, ok_ip = 1;
	struct run r;
	char what[200];

	if (run(&r, &a, 0, run_loop, (void *)(long)ITERS, 0) < 0) {
		snprintf(what, sizeof(what), "ibs_fetch: opened and mapped (%s)",
			 strerror(errno));
		check(0, what);
		return;
	}
	for (i = 0; i < r.n; i++) {
		struct sample *s = &samples[i];
		uint64_t ctl = raw_reg(s, FETCH_CTL);
		uint64_t lin = raw_reg(s, FETCH_LINAD);

		if (s->tid != tid || !in_loop(lin))
			continue;
		if (++in <= 3)
			dump_sample("ibs_fetch", ST_ALL, s);
		if (s->raw_size != 4 + 8 * FETCH_REGS || raw_caps(s) != 0xdf ||
		    (ctl & bits) != bits || !max_count_ok(ctl) ||
		    (raw_reg(s, FETCH_PHYSAD) & 0xfff) != (lin & 0xfff))
			ok_raw = 0;
		if (s->ip != lin || s->misc != MISC_EXACT_USER || s->addr ||
		    s->phys || s->weight || s->data_src != SRC_NA)
			ok_ip = 0;
	}
	printf("# ibs_fetch: %d samples, %d in the loop; %ld fetches in the loop\n",
	       r.n, in, (long)LOOP_OPS);
	snprintf(what, sizeof(what),
		 "ibs_fetch: %d samples in the loop, %ld periods (one more or less)",
		 in, want);
	check(in >= want - 1 && in <= want + 1, what);
	snprintf(what, sizeof(what),
		 "ibs_fetch: RAW size %u, caps 0xdf, IbsFetchCtl FetchEn|Val|Comp|PhyAddrValid, max count %#x or what was left of it, IbsFetchPhysAd with the page offset of IbsFetchLinAd",
		 4 + 8 * FETCH_REGS, PERIOD >> 4);
	check(in && ok_raw, what);
	snprintf(what, sizeof(what),
		 "ibs_fetch: IP = IbsFetchLinAd, exact, user; no ADDR, PHYS_ADDR, WEIGHT; data source %#llx",
		 (unsigned long long)SRC_NA);
	check(in && ok_ip, what);
	run_end(&r);
}

/*
 * The sampling period of the cache level cases: far longer than the NMI
 * and its return, which IBS counts too (about 700-900 ops in a debug
 * kernel, with KASAN and lockdep), so that most samples land in the sweep
 */
#define LEVEL_PERIOD	0x1000

/*
 * The data source and weight of the loads (stores) of a sweep through
 * the model's cache levels (@warm sweeps before, while LsDispatch counts:
 * the cache model on): most samples on the access must say @src, @weight
 */
static void level_case(const char *name, struct sweep *w, int warm,
		       uint64_t src, uint64_t weight, uint64_t src2)
{
	struct perf_event_attr ls = {
		.type = PERF_TYPE_RAW,
		.config = 0x0329,	/* LsDispatch loads and stores */
	};
	struct perf_event_attr a = {
		.type = pmu_type("ibs_op"),
		.config = IBS_OP_CNT_CTL,
		.sample_period = LEVEL_PERIOD,
		.sample_type = ST_ALL,
		.disabled = 1,
	};
	int lfd, i, k = 0, hits = 0, ok = 1, bad = 0;
	struct run r;
	char what[200];

	/* the ring mapped first: its pages' clearing would evict the L2 */
	lfd = sys_open(&ls, 0, -1, -1);
	if (run(&r, &a, 0, run_sweep, w, warm) < 0) {
		snprintf(what, sizeof(what), "%s: opened (%s)", name,
			 strerror(errno));
		check(0, what);
		if (lfd >= 0)
			close(lfd);
		return;
	}
	for (i = 0; i < r.n; i++) {
		struct sample *s = &samples[i];

		if (!sweep_access(s->ip, w->st))
			continue;
		if (++k <= 2)
			dump_sample(name, ST_ALL, s);
		if (s->addr < (uint64_t)w->buf ||
		    s->addr >= (uint64_t)w->buf + w->n * w->stride ||
		    raw_reg(s, DC_LINAD) != s->addr) {
			ok = 0;
			if (bad++ < 3)
				dump_sample("unexpected address", ST_ALL, s);
		}
		if (s->data_src == src && s->weight == weight) {
			hits++;
		} else if (s->data_src != src2 || s->weight != weight) {
			ok = 0;
			if (bad++ < 3)
				dump_sample("unexpected source", ST_ALL, s);
		}
	}
	printf("# %s: %d samples, %d on the %s\n", name, r.n, k,
	       w->st ? "store" : "load");
	snprintf(what, sizeof(what),
		 "%s: data source %#llx weight %llu: %d of %d samples on the %s (the others %#llx)",
		 name, (unsigned long long)src, (unsigned long long)weight,
		 hits, k, w->st ? "store" : "load", (unsigned long long)src2);
	check(k >= 4 && ok && 2 * hits > k, what);
	run_end(&r);
	if (lfd >= 0)
		close(lfd);
}

/* cycles:p and :pp are ibs_op's (cycles, not ops), :ppp is refused */
static void precise_case(int p)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.precise_ip = p,
		.sample_period = PERIOD,
		.sample_type = ST_ALL,
		.disabled = 1,
	};
	long want = (long)LOOP_OPS * 2 / PERIOD, most;
	int i, in = 0, ok = 1;
	uint64_t all;
	struct run r;
	char what[200];

	if (p == 3) {
		expect_errno(sys_open(&a, 0, -1, -1), EOPNOTSUPP,
			     "cycles:ppp");
		return;
	}
	/* IBS counts the kernel's cycles in the loop too */
	if (run_counted(&r, &a, 0, 1, want, &most, &all) < 0) {
		snprintf(what, sizeof(what), "cycles:%d opens (%s)", p,
			 strerror(errno));
		check(0, what);
		return;
	}
	printf("# cycles:%d: %llu cycles in all while it sampled (%ld periods)\n",
	       p, (unsigned long long)all, (long)(all / PERIOD));
	for (i = 0; i < r.n; i++) {
		struct sample *s = &samples[i];

		if (!in_loop(s->ip))
			continue;
		in++;
		if (s->raw_size != 4 + 8 * OP_REGS || raw_caps(s) != 0xdf ||
		    raw_reg(s, OP_RIP) != s->ip ||
		    (raw_reg(s, OP_CTL) & IBS_OP_CNT_CTL) ||
		    !max_count_ok(raw_reg(s, OP_CTL)) ||
		    s->misc != MISC_EXACT_USER)
			ok = 0;
	}
	if (in < want - 1 || in > most) {
		/* the max count each was armed with: where periods were cut */
		printf("# cycles:%d: %d samples:", p, r.n);
		for (i = 0; i < r.n; i++)
			printf(" %s%#llx", in_loop(samples[i].ip) ? "" : "k",
			       (unsigned long long)(raw_reg(&samples[i], OP_CTL) & 0xffff));
		printf("\n");
	}
	snprintf(what, sizeof(what),
		 "cycles:%d is an ibs_op event (cycles): %d samples in the loop (%ld periods of its own, at most %ld with the kernel's), IBS RAW, exact IPs",
		 p, in, want, most);
	check(in >= want - 1 && in <= most && ok, what);
	run_end(&r);
}

static void errno_case(const char *pmu, int fmt_bit)
{
	struct perf_event_attr a;
	int type = pmu_type(pmu), b, fd, bad = 0;
	char what[256], desc[32];

#define EXPECT(err, desc, pid, cpu) do { \
	snprintf(what, sizeof(what), "%s %s", pmu, desc); \
	fd = sys_open(&a, pid, cpu, -1); \
	if (err) \
		expect_errno(fd, err, what); \
	else { \
		snprintf(what, sizeof(what), "%s %s opens (%s)", pmu, desc, \
			 fd >= 0 ? "ok" : strerror(errno)); \
		check(fd >= 0, what); \
		if (fd >= 0) \
			close(fd); \
	} } while (0)
	a = base_attr(type, PERIOD);
	EXPECT(0, "task event", 0, -1);
	EXPECT(0, "cpu-wide event", -1, 0);
	a = base_attr(type, 0);
	EXPECT(EINVAL, "counting (period 0)", 0, -1);
	a = base_attr(type, 0x10001);
	EXPECT(0, "period 0x10001 (not a multiple of 16)", 0, -1);
	a = base_attr(type, 1);
	EXPECT(0, "period 1", 0, -1);
	a = base_attr(type, 0x100000000ULL);
	EXPECT(0, "period 2^32", 0, -1);
	a = base_attr(type, 0);
	a.freq = 1;
	a.sample_freq = 1000;
	EXPECT(0, "freq 1000", 0, -1);
#define FLAG(f, err) do { a = base_attr(type, PERIOD); a.f = 1; \
	EXPECT(err, #f, 0, -1); } while (0)
	FLAG(exclude_user, EINVAL);
	FLAG(exclude_kernel, EINVAL);
	FLAG(exclude_hv, EINVAL);
	FLAG(exclude_idle, EINVAL);
	FLAG(exclude_host, EINVAL);
	FLAG(exclude_guest, EINVAL);
	FLAG(use_clockid, EINVAL);
	FLAG(inherit, 0);
	FLAG(exclude_callchain_kernel, 0);
#undef FLAG
	for (b = 1; b <= 3; b++) {
		a = base_attr(type, PERIOD);
		a.precise_ip = b;
		snprintf(desc, sizeof(desc), "precise_ip %d", b);
		EXPECT(0, desc, 0, -1);
	}
	a = base_attr(type, PERIOD);
	a.config1 = -1ULL;
	a.config2 = -1ULL;
	EXPECT(0, "config1, config2 all ones (ignored)", 0, -1);
	a = base_attr(type, PERIOD);
	a.sample_type |= PERF_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	EXPECT(EOPNOTSUPP, "branch stack", 0, -1);
	/* every config bit but the format's is refused */
	for (b = 0; b < 64; b++) {
		a = base_attr(type, PERIOD);
		a.config = 1ULL << b;
		fd = sys_open(&a, 0, -1, -1);
		if ((fd >= 0) != (b == fmt_bit) ||
		    (fd < 0 && errno != EINVAL)) {
			printf("# %s config bit %d: %s\n", pmu, b,
			       fd >= 0 ? "opens" : strerror(errno));
			bad++;
		}
		if (fd >= 0)
			close(fd);
	}
	snprintf(what, sizeof(what),
		 "%s: config bit %d opens, every other config bit EINVAL",
		 pmu, fmt_bit);
	check(!bad, what);
	/* groups: no hardware sibling, no second IBS event */
	{
		struct perf_event_attr hw = {
			.type = PERF_TYPE_HARDWARE,
			.config = PERF_COUNT_HW_CPU_CYCLES,
		};
		int lead;

		a = base_attr(type, PERIOD);
		lead = sys_open(&a, 0, -1, -1);
		fd = lead >= 0 ? sys_open(&hw, 0, -1, lead) : -1;
		snprintf(what, sizeof(what), "%s: cycles in its group", pmu);
		expect_errno(fd, EINVAL, what);
		fd = lead >= 0 ? sys_open(&a, 0, -1, lead) : -1;
		snprintf(what, sizeof(what), "%s: a second %s in its group",
			 pmu, pmu);
		expect_errno(fd, EINVAL, what);
		if (lead >= 0)
			close(lead);
	}
	/*
	 * Under a software leader: one IBS event, but not a second of the
	 * same PMU (one unit a CPU: the group could never go on), nor one
	 * of the other IBS PMU (a group's hardware is one PMU's)
	 */
	{
		struct perf_event_attr sw = {
			.type = PERF_TYPE_SOFTWARE,
			.config = PERF_COUNT_SW_CPU_CLOCK,
			.disabled = 1,
		};
		const char *other = strcmp(pmu, "ibs_op") ? "ibs_op" :
							    "ibs_fetch";
		struct perf_event_attr o = base_attr(pmu_type(other), PERIOD);
		int lead = sys_open(&sw, 0, -1, -1), m;

		a = base_attr(type, PERIOD);
		m = lead >= 0 ? sys_open(&a, 0, -1, lead) : -1;
		snprintf(what, sizeof(what),
			 "%s: a member of a cpu-clock group opens (%s)", pmu,
			 m >= 0 ? "ok" : strerror(errno));
		check(m >= 0, what);
		fd = m >= 0 ? sys_open(&a, 0, -1, lead) : -1;
		snprintf(what, sizeof(what),
			 "%s: a second %s in a cpu-clock group", pmu, pmu);
		expect_errno(fd, EINVAL, what);
		fd = m >= 0 ? sys_open(&o, 0, -1, lead) : -1;
		snprintf(what, sizeof(what),
			 "%s: an %s in a cpu-clock group with an %s", pmu,
			 other, pmu);
		expect_errno(fd, EINVAL, what);
		sw.disabled = 0;
		fd = m >= 0 ? sys_open(&sw, 0, -1, lead) : -1;
		snprintf(what, sizeof(what),
			 "%s: a software member after it opens (%s)", pmu,
			 fd >= 0 ? "ok" : strerror(errno));
		check(fd >= 0, what);
		if (fd >= 0)
			close(fd);
		if (m >= 0)
			close(m);
		if (lead >= 0)
			close(lead);
	}
#undef EXPECT
}

static void sysfs_case(void)
{
	static const char *const files[][2] = {
		{ "ibs_op/format/cnt_ctl", "config:19" },
		{ "ibs_fetch/format/rand_en", "config:57" },
	};
	char path[160], buf[64];
	unsigned i;
	FILE *fp;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s",
			 files[i][0]);
		buf[0] = 0;
		fp = fopen(path, "r");
		if (fp) {
			if (!fgets(buf, sizeof(buf), fp))
				buf[0] = 0;
			fclose(fp);
		}
		buf[strcspn(buf, "\n")] = 0;
		snprintf(path, sizeof(path), "%s: \"%s\" (expected \"%s\")",
			 files[i][0], buf, files[i][1]);
		check(!strcmp(buf, files[i][1]), path);
	}
}

int main(int argc, char **argv)
{
	cpu_set_t cpus;

	/* the workload of pmu-ibs-facts.sh's perf mem: 1 MiB, 4 times */
	if (argc > 1 && !strcmp(argv[1], "sweep")) {
		char *b = aligned_alloc(4096, 1 << 20);
		int i;

		for (i = 0; i < 4; i++)
			sweep_ld(b, (1 << 20) / 64, 64);
		for (i = 0; i < 4; i++)
			sweep_st(b, (1 << 20) / 64, 64);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "kmsg"))
		return print_kmsg();
	if (cpu_is_intel()) {
		printf("ok # SKIP IBS is AMD's\n");
		return 0;
	}
	facts = argc > 1 && !strcmp(argv[1], "facts");
	unthrottle();
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	loop_buf = aligned_alloc(4096, 8 * BLOCK_LOADS);
	memset(loop_buf, 0, 8 * BLOCK_LOADS);
	if (facts) {
		do_facts();
		return 0;
	}
	if (pmu_type("ibs_op") < 0 || pmu_type("ibs_fetch") < 0) {
		check(0, "the ibs_op and ibs_fetch PMUs exist");
		return 1;
	}
	sysfs_case();
	/* counting ops (IbsOpCtl.CntCtl), where the format says it is */
	if (format_bit("ibs_op", "cnt_ctl") != 19) {
		check(0, "ibs_op's format has cnt_ctl at config:19");
		return 1;
	}
	op_case("ibs_op cnt_ctl (ops)", IBS_OP_CNT_CTL, 0);
	op_case("ibs_op (cycles)", 0, 0);
	op_case("ibs_op cnt_ctl, cpu-wide", IBS_OP_CNT_CTL, 1);
	fetch_case();
	{
		char *big = mmap(NULL, 192 << 20, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
				 -1, 0);
		struct sweep w;

		/*
		 * A sweep has 11 ops for 8 accesses: at LEVEL_PERIOD, a
		 * sample every 2979 accesses, 8 in 11 on an access
		 */
		if (big == MAP_FAILED) {
			check(0, "mmap");
			return 1;
		}
		w = (struct sweep){ big, 64, 64, 0, 1000 };
		level_case("loads, L1D (4 KiB)", &w, 2, SRC_LD_L1, 0,
			   SRC_LD_L1);
		w = (struct sweep){ big, 64, 64, 1, 1000 };
		level_case("stores, L1D (4 KiB)", &w, 2, SRC_ST_L1, 0,
			   SRC_ST_L1);
		w = (struct sweep){ big + (1 << 20), 1024, 64, 0, 64 };
		level_case("loads, L2 (64 KiB)", &w, 1, SRC_LD_L2, 14,
			   SRC_LD_L2_TLB);
		w = (struct sweep){ big + (2 << 20), 16384, 64, 0, 4 };
		level_case("loads, L3 (1 MiB)", &w, 1, SRC_LD_L3, 42,
			   SRC_LD_L3_TLB);
		w = (struct sweep){ big + (8 << 20), 65536, 64, 0, 1 };
		level_case("loads, memory (4 MiB, cold)", &w, 0, SRC_LD_DRAM,
			   200, SRC_LD_WALK);
		w = (struct sweep){ big + (16 << 20), 32768, 4096, 0, 1 };
		level_case("loads, memory with page walks (32768 pages)", &w,
			   0, SRC_LD_WALK, 200, SRC_LD_WALK);
		w = (struct sweep){ big + (160 << 20), 65536, 64, 1, 1 };
		level_case("stores, memory (4 MiB, cold)", &w, 0, SRC_ST_MISS,
			   0, SRC_ST_WALK);
	}
	precise_case(1);
	precise_case(2);
	precise_case(3);
	{
		struct perf_event_attr a = {
			.type = PERF_TYPE_HARDWARE,
			.config = PERF_COUNT_HW_INSTRUCTIONS,
			.precise_ip = 1,
			.sample_period = PERIOD,
		};

		expect_errno(sys_open(&a, 0, -1, -1), ENOENT,
			     "instructions:p (no IBS forwarding)");
	}
	errno_case("ibs_op", 19);
	errno_case("ibs_fetch", 57);
	return fails ? 1 : 0;
}
